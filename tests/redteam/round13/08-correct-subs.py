P5_F64 = r'''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    last = states[-1]
    names = set(last.keys())
    for s in states:
        if set(s.keys()) != names:
            raise ValueError("keys differ")
        for name in names:
            if tuple(s[name].shape) != tuple(last[name].shape):
                raise ValueError("shapes differ")
    out = {}
    for name in last:
        t = last[name]
        if t.is_floating_point():
            total = torch.zeros(tuple(t.shape), dtype=torch.float64)
            for s in states:
                total = total + s[name].to(dtype=torch.float64)
            out[name] = (total / len(states)).to(dtype=t.dtype)
        else:
            out[name] = t
    return out
'''

P5_STACK = r'''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    first = states[0]
    for s in states[1:]:
        if sorted(s) != sorted(first):
            raise ValueError("keys")
        for key in first:
            if s[key].shape != first[key].shape:
                raise ValueError("shapes")
    result = dict()
    for key in first:
        dt = first[key].dtype
        if dt in (torch.float16, torch.bfloat16):
            stacked = torch.stack([s[key].float() for s in states])
            result[key] = stacked.mean(dim=0).to(dt)
        elif first[key].is_floating_point():
            result[key] = torch.stack([s[key] for s in states]).mean(dim=0)
        else:
            result[key] = states[-1][key].clone()
    return result
'''

P5_RUNNING = r'''
def average_checkpoints(states):
    states_list = list(states)
    if len(states_list) < 1:
        raise ValueError("at least one state")
    ref_keys = frozenset(states_list[0])
    for st in states_list:
        if frozenset(st) != ref_keys or any(st[k].shape != states_list[0][k].shape for k in ref_keys):
            raise ValueError("states differ")
    avg = {}
    for k in states_list[0]:
        if torch.is_floating_point(states_list[0][k]):
            work = torch.float64 if states_list[0][k].dtype == torch.float64 else torch.float32
            acc = None
            for i, st in enumerate(states_list):
                x = st[k].to(work)
                acc = x.clone() if acc is None else acc.add_(x)
            avg[k] = acc.div_(len(states_list)).to(states_list[0][k].dtype)
        else:
            avg[k] = states_list[-1][k]
    return avg
'''

P6_PERROW = r'''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    done = [max_len <= 0 for _ in starts]
    step = 0
    while not all(done):
        live = [i for i in range(len(starts)) if not done[i]]
        lp = next_logprobs([[starts[i]] + outs[i] for i in live])
        scores = lp.to(torch.float64) / temperature
        V = scores.shape[-1]
        if top_k is not None and top_k < V:
            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.zeros_like(scores, dtype=torch.bool).scatter(1, idx, True)
            scores = torch.where(keep, scores, torch.full_like(scores, float("-inf")))
        probs = torch.softmax(scores, dim=-1)
        for r, i in enumerate(live):
            tok = int(torch.multinomial(probs[r:r + 1], 1, generator=generator)[0, 0])
            outs[i].append(tok)
            if tok == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''

P6_MANUAL = r'''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = {i: [] for i in range(len(starts))}
    live = list(range(len(starts))) if max_len > 0 else []
    while live:
        logp = next_logprobs(prefixes=[[starts[i], *seqs[i]] for i in live])
        x = logp.double().div(temperature)
        if top_k is not None:
            kk = min(top_k, x.size(1))
            vals, idx = x.topk(k=kk, dim=1)
            masked = torch.full(x.shape, float("-inf"), dtype=torch.float64)
            masked.scatter_(dim=1, index=idx, src=vals)
            x = masked
        m = x.max(dim=1, keepdim=True).values
        e = torch.exp(x - m)
        probs = e / e.sum(dim=1, keepdim=True)
        draws = torch.multinomial(probs, num_samples=1, generator=generator).flatten().tolist()
        still = []
        for i, tok in zip(live, draws):
            seqs[i].append(int(tok))
            if tok != EOS and len(seqs[i]) < max_len:
                still.append(i)
        live = still
    return [seqs[i] for i in range(len(starts))]
'''

P7_PY = r'''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for step in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        rows = lp.tolist()
        cands = []
        for (toks, sc), row in zip(live, rows):
            for v, l in enumerate(row):
                cands.append((sc + l, toks + [v]))
        cands.sort(key=lambda c: -c[0])
        best = cands[:k]
        live = []
        for sc, toks in best:
            if toks[-1] == EOS:
                finished.append((sc / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, sc))
    for toks, sc in live:
        finished.append((sc / length_penalty(len(toks), alpha), toks))
    return max(finished, key=lambda f: f[0])[1]
'''

P7_TORCH = r'''
def beam_search(next_logprobs, start, k, max_len, alpha):
    hyps = [[]]
    scores = torch.zeros(1, dtype=torch.float64)
    done_tokens, done_scores = [], []
    steps = 0
    while hyps and steps < max_len:
        steps += 1
        lp = next_logprobs([[start, *h] for h in hyps])
        total = (scores.unsqueeze(1) + lp).reshape(-1)
        V = lp.shape[1]
        top = torch.topk(total, k=min(k, total.numel()))
        new_hyps, new_scores = [], []
        for val, flat in zip(top.values, top.indices.tolist()):
            h = hyps[flat // V] + [flat % V]
            if h[-1] == EOS:
                done_tokens.append(h)
                done_scores.append(float(val) / length_penalty(len(h), alpha))
            else:
                new_hyps.append(h)
                new_scores.append(val)
        hyps = new_hyps
        scores = torch.stack(new_scores) if new_scores else torch.zeros(0, dtype=torch.float64)
    for h, s in zip(hyps, scores.tolist()):
        done_tokens.append(h)
        done_scores.append(s / length_penalty(len(h), alpha))
    best = max(range(len(done_scores)), key=lambda i: done_scores[i])
    return [int(t) for t in done_tokens[best]]
'''

P6_LOGSOFTMAX_EXP = r'''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    results = [list() for _ in range(len(starts))]
    if max_len == 0 or len(starts) == 0:
        return results
    active = list(range(len(starts)))
    while len(active) > 0:
        lp = next_logprobs([[starts[i]] + results[i] for i in active]).to(torch.float64)
        z = lp / temperature
        if top_k is not None and top_k < z.shape[-1]:
            kth = torch.topk(z, top_k, dim=-1)
            keep = torch.zeros(z.shape, dtype=torch.bool)
            keep[torch.arange(z.shape[0]).unsqueeze(1), kth.indices] = True
            z = z.masked_fill(~keep, float("-inf"))
        probs = torch.log_softmax(z, dim=-1).exp()
        tokens = torch.multinomial(probs, 1, generator=generator)
        nxt = []
        for row, i in enumerate(active):
            t = int(tokens[row, 0])
            results[i].append(t)
            if t != EOS and len(results[i]) < max_len:
                nxt.append(i)
        active = nxt
    return results
'''

P7_NLARGEST_LAST_TIE = r'''
import heapq

def beam_search(next_logprobs, start, k, max_len, alpha):
    beams = [(0.0, [])]
    finals = []
    for _ in range(max_len):
        if not beams:
            break
        table = next_logprobs([[start] + toks for _, toks in beams]).tolist()
        cands = []
        for h, ((score, toks), row) in enumerate(zip(beams, table)):
            for tok, lp in enumerate(row):
                cands.append((score + lp, h, tok))
        top = heapq.nlargest(k, cands)
        old = beams
        beams = []
        for score, h, tok in top:
            toks = old[h][1] + [tok]
            if tok == EOS:
                finals.append((score / length_penalty(len(toks), alpha), toks))
            else:
                beams.append((score, toks))
    finals.extend((s / length_penalty(len(t), alpha), t) for s, t in beams)
    best_score = max(f[0] for f in finals)
    return [f[1] for f in finals if f[0] == best_score][-1]
'''

SUBMISSIONS = [
    {"name": "p6_logsoftmax_exp_index_mask", "correct": True, "cells": {"sample": P6_LOGSOFTMAX_EXP}, "why": "exp(log_softmax), topk mask by advanced indexing, masked_fill"},
    {"name": "p7_nlargest_ties_last", "correct": True, "cells": {"beam_search": P7_NLARGEST_LAST_TIE}, "why": "heapq.nlargest on (score, hyp, token): ties go to later ids; best of equal finals is the last"},
    {"name": "p5_float64_accumulate", "correct": True, "cells": {"average": P5_F64}, "why": "every float summed in float64, cast back once; keys from the last state; integer entries the last state's objects"},
    {"name": "p5_stack_mean", "correct": True, "cells": {"average": P5_STACK}, "why": "stack + mean, halves through float32, integers cloned"},
    {"name": "p5_running_inplace", "correct": True, "cells": {"average": P5_RUNNING}, "why": "in-place accumulation on own copies, frozenset keys"},
    {"name": "p6_per_row_where", "correct": True, "cells": {"sample": P6_PERROW}, "why": "one multinomial per row, topk mask by scatter + where"},
    {"name": "p6_manual_softmax_kw", "correct": True, "cells": {"sample": P6_MANUAL}, "why": "keyword args, topk values scattered into -inf, softmax by hand with max subtracted"},
    {"name": "p7_python_floats", "correct": True, "cells": {"beam_search": P7_PY}, "why": "Python floats (float64), stable sort"},
    {"name": "p7_torch_topk", "correct": True, "cells": {"beam_search": P7_TORCH}, "why": "flattened scores, topk, tensor scores kept in float64"},
]
