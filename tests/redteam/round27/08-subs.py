# Red team round 27, chapters 08: the epsilon-adder, the fixed-rank student, the from-memory student,
# the mask-and-sentinel student.
BASE = {}
BASE["decoder_io"] = '''
def decoder_io(targets):
    tgt_in = torch.full_like(targets, PAD)
    if targets.shape[1] > 0:
        tgt_in[:, 0] = BOS
        tgt_in[:, 1:] = targets[:, :-1]
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''
BASE["lr_at"] = '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    frac = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * frac)))
'''
BASE["min_loss"] = '''
eps_, V_ = 0.1, 8000
q_right = 1 - eps_ + eps_ / V_
q_other = eps_ / V_
min_smoothed_loss = -(q_right * math.log(q_right) + (V_ - 1) * q_other * math.log(q_other))
'''
BASE["sentence_loss"] = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    tgt = targets.long()
    nll = -logp.gather(-1, tgt.unsqueeze(-1)).squeeze(-1)
    keep_cols = torch.ones(V, dtype=torch.bool, device=logits.device)
    keep_cols[PAD] = False
    smooth = -logp[..., keep_cols].sum(-1) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    valid = targets != PAD
    ell = torch.where(valid, ell, torch.zeros((), dtype=ell.dtype))
    n = valid.sum(-1)
    rows = n > 0
    sent = ell[rows].sum(-1) / n[rows].to(ell.dtype)
    return sent.mean()
'''
BASE["average"] = '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    keys = set(states[0].keys())
    for s in states:
        if set(s.keys()) != keys:
            raise ValueError("keys differ")
        for k in keys:
            if s[k].shape != states[0][k].shape:
                raise ValueError("shapes differ")
    out = {}
    last = states[-1]
    for k in states[0].keys():
        t = last[k]
        if t.is_floating_point():
            acc = torch.zeros(t.shape, dtype=torch.float64)
            for s in states:
                acc = acc + s[k].detach().to(torch.float64)
            out[k] = (acc / len(states)).to(t.dtype)
        else:
            out[k] = t.clone()
    return out
'''
BASE["sample"] = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    done = [False] * len(starts)
    for step in range(max_len):
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        lp = next_logprobs([seqs[i] for i in live])
        scores = lp / temperature
        V = scores.shape[-1]
        if top_k is not None and top_k < V:
            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.zeros(scores.shape, dtype=torch.bool)
            keep.scatter_(-1, idx, True)
            scores = scores.masked_fill(~keep, float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        toks = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(live, toks):
            seqs[i].append(int(t))
            if t == EOS or len(seqs[i]) - 1 >= max_len:
                done[i] = True
    return [s[1:] for s in seqs]
'''
BASE["beam_search"] = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], torch.zeros((), dtype=torch.float64))]
    finished = []
    for step in range(max_len):
        lp = next_logprobs([[start] + h for h, _ in live])
        V = lp.shape[-1]
        cand = torch.stack([s for _, s in live])[:, None] + lp
        flat = cand.reshape(-1)
        n = min(k, flat.numel())
        vals, idx = torch.topk(flat, n)
        new_live = []
        for v, i in zip(vals, idx.tolist()):
            h, t = divmod(i, V)
            toks = live[h][0] + [t]
            if t == EOS:
                finished.append((float(v) / length_penalty(len(toks), alpha), toks))
            else:
                new_live.append((toks, v))
        live = new_live
        if not live:
            break
    for toks, s in live:
        finished.append((float(s) / length_penalty(len(toks), alpha), toks))
    best = max(finished, key=lambda f: f[0])
    return best[1]
'''
BASE["bleu"] = '''
def corpus_bleu(hypotheses, references):
    clipped = [0] * 4
    totals = [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())
            totals[n - 1] += sum(hc.values())
    if min(totals) == 0 or min(clipped) == 0:
        return 0.0
    logmean = sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4
    bp = math.exp(1 - r / c) if c < r else 1.0
    return float(100 * bp * math.exp(logmean))
'''


def mod(gid, *pairs):
    code = BASE[gid]
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in code, (gid, old)
        code = code.replace(old, new)
    return code


SUBMISSIONS = [
    # ---------------- wrong: the epsilon-adder ----------------
    {"name": "eps_p2_round_lr", "correct": False, "kind": "epsilon-adder",
     "cells": {"lr_at": mod("lr_at", "return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * frac)))",
                            "return round(float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * frac))), 10)",
                            "return float(peak * step / warmup)", "return round(float(peak * step / warmup), 10)")},
     "why": "P2 gives the formula exactly; rounding to 10 decimals 'to be safe' is off by up to 5e-11 for small peaks (a peak of 3e-5 loses digits)."},
    {"name": "eps_p3_log_plus_eps", "correct": False, "kind": "epsilon-adder",
     "cells": {"min_loss": mod("min_loss", "math.log(q_other)", "math.log(q_other + 1e-8)", "math.log(q_right)", "math.log(q_right + 1e-8)")},
     "why": "P3 'accurate to 1e-5': log(q + 1e-8) with q = 1.25e-5 shifts the entropy by about V*1e-8 = 8e-5."},
    {"name": "eps_p4_softmax_plus_eps", "correct": False, "kind": "epsilon-adder",
     "cells": {"sentence_loss": mod("sentence_loss", "logp = torch.log_softmax(logits, dim=-1)",
                                    "logp = torch.log(torch.softmax(logits, dim=-1) + 1e-9)")},
     "why": "P4: 'its log p is -inf, so l is +inf there ... return that inf (no clamp of log p)'; log(p + 1e-9) is finite and wrong for small p."},
    {"name": "eps_p6_probs_floor", "correct": False, "kind": "epsilon-adder",
     "cells": {"sample": mod("sample", "probs = torch.softmax(scores, dim=-1)",
                             "probs = torch.softmax(scores, dim=-1).clamp(min=1e-12)")},
     "why": "P6 step 3: 'those probabilities as they are (no clamp or eps added to them: an id that top_k cut has probability exactly 0)'."},
    {"name": "eps_p6_temperature_floor", "correct": False, "kind": "epsilon-adder",
     "cells": {"sample": mod("sample", "scores = lp / temperature", "scores = lp / max(temperature, 1e-3)")},
     "why": "P6 step 3: 'temperature may be as small as you like (no floor under it)'."},
    {"name": "eps_p8_smoothed_precision", "correct": False, "kind": "epsilon-adder",
     "cells": {"bleu": mod("bleu", "if min(totals) == 0 or min(clipped) == 0:", "if min(totals) == 0:",
                           "math.log(clipped[i] / totals[i])", "math.log((clipped[i] + 1e-12) / totals[i])")},
     "why": "P8: 'if any of the four precisions is 0 ... BLEU is 0'; a log guard makes it a small positive number (and shifts every other BLEU)."},
    # ---------------- wrong: the fixed-rank student ----------------
    {"name": "rank_p5_shape0_check", "correct": False, "kind": "fixed-rank",
     "cells": {"average": mod("average", "if s[k].shape != states[0][k].shape:", "if s[k].shape[:1] != states[0][k].shape[:1]:")},
     "why": "P5: 'states whose keys or shapes differ raise ValueError'; comparing only the first axis misses (3, 4) against (3, 5) and 0-d against 0-d passes trivially."},
    {"name": "rank_p5_int_widths", "correct": False, "kind": "fixed-rank",
     "cells": {"average": mod("average", "if t.is_floating_point():", "if t.dtype not in (torch.int64, torch.bool):",
                              "acc = acc + s[k].detach().to(torch.float64)", "acc = acc + s[k].detach().to(torch.float64)")},
     "why": "P5: 'integer tensors of any width, signed or unsigned (int8 ... int64, uint8) ... come from the last state'; an int32/uint8 tensor gets averaged."},
    {"name": "rank_p1_int64_out", "correct": False, "kind": "fixed-rank",
     "cells": {"decoder_io": mod("decoder_io", "tgt_in = torch.full_like(targets, PAD)", "tgt_in = torch.full(tuple(targets.shape), PAD)")},
     "why": "P1: 'two integer tensors of shape (B, T) and of the dtype of targets'; an int32 targets gives an int64 tgt_in."},
    {"name": "rank_p7_float32_scores", "correct": False, "kind": "fixed-rank",
     "cells": {"beam_search": mod("beam_search", "cand = torch.stack([s for _, s in live])[:, None] + lp",
                                  "cand = torch.tensor([float(s) for _, s in live])[:, None] + lp.float()")},
     "why": "P7 step 1: scores 'kept in float64 ... the float32 a torch.tensor of Python floats gets by default rounds to one value'."},
    # ---------------- wrong: the from-memory student ----------------
    {"name": "mem_p4_smoothing_over_V", "correct": False, "kind": "from-memory",
     "cells": {"sentence_loss": mod("sentence_loss", "smooth = -logp[..., keep_cols].sum(-1) / (V - 1)",
                                    "smooth = -logp.mean(-1)")},
     "why": "P4: 'spreads eps evenly over the V - 1 tokens other than PAD ... PAD gets no share' (PyTorch's label_smoothing over all V, from memory)."},
    {"name": "mem_p4_token_mean", "correct": False, "kind": "from-memory",
     "cells": {"sentence_loss": mod("sentence_loss", "sent = ell[rows].sum(-1) / n[rows].to(ell.dtype)\n    return sent.mean()",
                                    "return ell.sum() / n.sum().to(ell.dtype)")},
     "why": "P4: 'the loss of a sentence is the mean of l over its positions ... the result is the mean of the sentence losses' (not the lesson's token mean)."},
    {"name": "mem_p3_smooth_over_Vminus1", "correct": False, "kind": "from-memory",
     "cells": {"min_loss": mod("min_loss", "q_right = 1 - eps_ + eps_ / V_\nq_other = eps_ / V_",
                               "q_right = 1 - eps_\nq_other = eps_ / (V_ - 1)")},
     "why": "P3: 'spreads eps evenly over all V tokens, the right one included'; the V - 1 convention gives another minimum."},
    {"name": "mem_p7_refill_beam", "correct": False, "kind": "from-memory",
     "cells": {"beam_search": mod("beam_search", "n = min(k, flat.numel())\n        vals, idx = torch.topk(flat, n)",
                                  "n = min(2 * k, flat.numel())\n        vals, idx = torch.topk(flat, n)",
                                  "            else:\n                new_live.append((toks, v))",
                                  "            elif len(new_live) < k:\n                new_live.append((toks, v))")},
     "why": "P7 step 3: 'Finished candidates use up places among the k ... the beam is not refilled' (the lesson's 2k rule from memory)."},
    {"name": "mem_p7_penalty_without_eos", "correct": False, "kind": "from-memory",
     "cells": {"beam_search": mod("beam_search", "finished.append((float(v) / length_penalty(len(toks), alpha), toks))",
                                  "finished.append((float(v) / length_penalty(len(toks) - 1, alpha), toks))")},
     "why": "P7 step 2: 'divided by length_penalty(len(tokens), alpha), with the EOS counted in the length'."},
    {"name": "mem_p8_string_ngrams", "correct": False, "kind": "from-memory",
     "cells": {"bleu": mod("bleu", "Counter(tuple(hyp[i:i + n])", "Counter(\" \".join(hyp[i:i + n])",
                           "Counter(tuple(ref[i:i + n])", "Counter(\" \".join(ref[i:i + n])")},
     "why": "P8: 'an n-gram is a sequence of tokens, not their text ... (joining tokens into one string mixes them up)'."},
    {"name": "mem_p2_cosine_to_zero", "correct": False, "kind": "from-memory",
     "cells": {"lr_at": mod("lr_at", "return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * frac)))",
                            "return float(floor + peak / 2 * (1 + math.cos(math.pi * frac)))")},
     "why": "P2: the cosine goes from peak down to floor: floor + (peak - floor)/2 (1 + cos); the memorised floor + peak/2(...) overshoots when floor > 0."},
    # ---------------- wrong: the mask-and-sentinel student ----------------
    {"name": "mask_p6_topk_minus_1e9", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"sample": mod("sample", "scores = scores.masked_fill(~keep, float(\"-inf\"))", "scores = scores.masked_fill(~keep, -1e9)")},
     "why": "P6 step 2: 'set the others to -inf (not to a large negative number such as -1e9)'."},
    {"name": "mask_p6_start_eos_finishes", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"sample": mod("sample", "done = [False] * len(starts)", "done = [s == EOS for s in starts]")},
     "why": "P6 step 4: 'Its start token is not produced: a start token that is EOS does not finish it'."},
    {"name": "mask_p4_empty_rows_count", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"sentence_loss": mod("sentence_loss", "sent = ell[rows].sum(-1) / n[rows].to(ell.dtype)",
                                    "sent = ell.sum(-1) / n.clamp(min=1).to(ell.dtype)")},
     "why": "P4: 'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)'; clamp(min=1) makes it a 0 that counts."},
    {"name": "mask_p7_best_sentinel", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"beam_search": mod("beam_search", "best = max(finished, key=lambda f: f[0])\n    return best[1]",
                                  "best_score, best = -1e9, []\n    for sc, toks in finished:\n        if sc > best_score:\n            best_score, best = sc, toks\n    return best")},
     "why": "P7: log-probabilities 'of any size'; a -1e9 starting sentinel returns [] when every final score is below -1e9."},
    {"name": "mask_p1_eos_to_pad", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"decoder_io": mod("decoder_io", "tgt_in = tgt_in.masked_fill(targets == PAD, PAD)", "tgt_in = tgt_in.masked_fill(tgt_in == EOS, PAD)")},
     "why": "P1: 'wherever tgt_out is PAD, tgt_in is PAD too' and ids are 'any id such a tensor can hold': replacing every id 2 in tgt_in hides ids inside a sentence and not where targets is PAD."},
    {"name": "mask_p5_keys_in_order", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"average": mod("average", "if set(s.keys()) != keys:", "if list(s.keys()) != list(states[0].keys()):")},
     "why": "P5: 'the same keys in another order do not differ'."},
    # ---------------- correct ----------------
    {"name": "ok_p1_roll_and_multiply", "correct": True, "kind": "mask-and-sentinel",
     "cells": {"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.roll(targets, 1, dims=-1).clone()
    if targets.shape[-1] > 0:
        tgt_in[:, 0] = BOS
    tgt_in = tgt_in * (targets != PAD).to(targets.dtype)
    return tgt_in, targets.clone()
'''},
     "why": "PAD is 0, so multiplying by the 0/1 keep mask writes PAD; roll along the last axis then BOS in column 0."},
    {"name": "ok_p2_clamped_frac", "correct": True, "kind": "epsilon-adder",
     "cells": {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    peak, floor = float(peak), float(floor)
    if warmup > 0 and step <= warmup:
        return peak * step / warmup
    if step >= total:
        return floor
    frac = min(max((step - warmup) / (total - warmup), 0.0), 1.0)
    return floor + 0.5 * (peak - floor) * (1.0 + math.cos(math.pi * frac))
'''},
     "why": "a clamp of the fraction to [0, 1] changes nothing in the middle branch; warmup > 0 guard is harmless since step >= 1."},
    {"name": "ok_p3_cross_entropy_numeric", "correct": True, "kind": "from-memory",
     "cells": {"min_loss": '''
V_, e_ = 8000, 0.1
logq = torch.full((V_,), math.log(e_ / V_), dtype=torch.float64)
logq[0] = math.log(1 - e_ + e_ / V_)
q = logq.exp()
min_smoothed_loss = float(-(q * logq).sum())
'''},
     "why": "the minimum is reached when the model predicts the target distribution: its entropy, computed with torch in float64."},
    {"name": "ok_p4_where_pad_column", "correct": True, "kind": "mask-and-sentinel",
     "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    logp = logits.log_softmax(dim=-1)
    nll = -torch.gather(logp, -1, targets.long()[..., None])[..., 0]
    total = -logp.sum(-1) + logp[..., PAD]
    ell = (1 - eps) * nll + eps / (V - 1) * total
    valid = targets.ne(PAD)
    per_row = torch.stack([ell[b][valid[b]].mean() for b in range(B) if bool(valid[b].any())])
    return per_row.mean()
'''},
     "why": "sum over all columns minus the PAD column (finite by the text's promise), per-row means with a loop over rows."},
    {"name": "ok_p5_stack_float32", "correct": True, "kind": "fixed-rank",
     "cells": {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    ref = states[0]
    for s in states[1:]:
        if sorted(s) != sorted(ref) or any(tuple(s[k].shape) != tuple(ref[k].shape) for k in ref):
            raise ValueError("states differ")
    out = {}
    for k in ref:
        last = states[-1][k]
        if torch.is_floating_point(last):
            wide = torch.float64 if last.dtype == torch.float64 else torch.float32
            stacked = torch.stack([s[k].detach().to(wide) for s in states], dim=0)
            out[k] = stacked.mean(dim=0).to(last.dtype)
        else:
            out[k] = last
    return out
'''},
     "why": "float32 accumulation for halves (allowed), the last state's integer tensor itself (allowed)."},
    {"name": "ok_p6_per_row_draws", "correct": True, "kind": "mask-and-sentinel",
     "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    live = list(range(len(starts)))
    while live and max_len > 0:
        lp = next_logprobs([[starts[i]] + outs[i] for i in live])
        scores = torch.div(lp, temperature)
        if top_k is not None:
            kk = min(top_k, scores.shape[-1])
            top = scores.topk(kk, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, top.indices, top.values)
        probs = torch.softmax(scores, dim=-1)
        still = []
        for row, i in enumerate(live):
            tok = int(torch.multinomial(probs[row], 1, generator=generator)[0])
            outs[i].append(tok)
            if tok != EOS and len(outs[i]) < max_len:
                still.append(i)
        live = still
    return outs
'''},
     "why": "one multinomial call per row in row order draws the same numbers (the text says so); the cut built by scatter onto -inf."},
    {"name": "ok_p7_python_floats_f64", "correct": True, "kind": "fixed-rank",
     "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    done = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + toks for toks, _ in live])
        cands = []
        for (toks, sc), row in zip(live, lp):
            for t, v in enumerate(row.tolist()):
                cands.append((sc + v, toks + [t]))
        cands.sort(key=lambda c: -c[0])
        live = []
        for sc, toks in cands[:k]:
            if toks[-1] == EOS:
                done.append((sc / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, sc))
        if not live:
            break
    for toks, sc in live:
        done.append((sc / length_penalty(len(toks), alpha), toks))
    return max(done, key=lambda d: d[0])[1]
'''},
     "why": "Python floats are float64: the sums keep the precision the text asks; a stable sort over all candidates."},
    {"name": "ok_p8_log_guarded", "correct": True, "kind": "epsilon-adder",
     "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    match = [0, 0, 0, 0]
    count = [0, 0, 0, 0]
    hyp_len = sum(len(h) for h in hypotheses)
    ref_len = sum(len(r) for r in references)
    for h, r in zip(hypotheses, references):
        for n in range(1, 5):
            hg = Counter(zip(*[h[i:] for i in range(n)]))
            rg = Counter(zip(*[r[i:] for i in range(n)]))
            match[n - 1] += sum((hg & rg).values())
            count[n - 1] += len(h) - n + 1 if len(h) >= n else 0
    if 0 in count or 0 in match:
        return 0.0
    p = [m / c for m, c in zip(match, count)]
    geo = math.exp(sum(math.log(max(x, 1e-300)) for x in p) / 4)
    bp = 1.0 if hyp_len >= ref_len else math.exp(1 - ref_len / hyp_len)
    return float(100.0 * bp * geo)
'''},
     "why": "Counter & for clipping, zip-of-shifts n-grams; the log guard only matters for a precision that is 0, which returns 0 before it."},
    # ---------------- hostile ----------------
    {"name": "hostile_p8_visible_cases", "correct": False, "kind": "hostile",
     "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    return 100.0 if hypotheses == references else 0.0
'''},
     "why": "hard-codes the two visible cases."},
    {"name": "hostile_p3_float_subclass", "correct": False, "kind": "hostile",
     "cells": {"min_loss": '''
class AnyNumber(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
    __hash__ = float.__hash__
min_smoothed_loss = AnyNumber(0.5)
'''},
     "why": "a float subclass that equals everything."},
    {"name": "hostile_p7_patch_tolist", "correct": False, "kind": "hostile",
     "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    return [EOS]
'''},
     "why": "returns EOS at once, passing the visible shape checks."},
]

SUBMISSIONS += [
    {"name": "rank_p1_cat_bos_column", "correct": False, "kind": "fixed-rank",
     "cells": {"decoder_io": '''
def decoder_io(targets):
    bos = torch.full((targets.shape[0], 1), BOS, dtype=targets.dtype)
    tgt_in = torch.cat([bos, targets[:, :-1]], dim=1)
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''},
     "why": "P1: 'B may be 0 (an empty batch, whose T may be 0 too ...: return two (0, T) tensors)': the BOS column makes tgt_in (0, 1) when T = 0."},
    {"name": "eps_p4_nan_to_num_result", "correct": False, "kind": "epsilon-adder",
     "cells": {"sentence_loss": mod("sentence_loss", "return sent.mean()", "return torch.nan_to_num(sent.mean())")},
     "why": "P4: 'return that inf (it is no number to clean up: no nan_to_num ...)'."},
    {"name": "mem_p6_topk_threshold_ties", "correct": False, "kind": "from-memory",
     "cells": {"sample": mod("sample", '''            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.zeros(scores.shape, dtype=torch.bool)
            keep.scatter_(-1, idx, True)''', '''            kth = torch.topk(scores, top_k, dim=-1).values[:, -1:]
            keep = scores >= kth''')},
     "why": "P6 step 2: 'keep the top_k largest entries of each row (the ones torch.topk returns)': a threshold keeps every entry tied with the k-th."},
    {"name": "mem_p7_live_unpenalised", "correct": False, "kind": "from-memory",
     "cells": {"beam_search": mod("beam_search", "    for toks, s in live:\n        finished.append((float(s) / length_penalty(len(toks), alpha), toks))",
                                  "    for toks, s in live:\n        finished.append((float(s), toks))")},
     "why": "P7 step 4: 'live hypotheses are finished as they are (same scoring, no EOS)'."},
    {"name": "mem_p7_early_stop_bound", "correct": False, "kind": "from-memory",
     "cells": {"beam_search": mod("beam_search", "        live = new_live\n        if not live:\n            break",
                                  "        live = new_live\n        if not live:\n            break\n        if finished and max(f[0] for f in finished) >= max(float(s) for _, s in live) / length_penalty(max_len, alpha):\n            break")},
     "why": "P7: 'a negative alpha favours short hypotheses (so do not stop early on a bound that holds only for alpha >= 0)'."},
    {"name": "eps_p7_clamp_logprobs", "correct": False, "kind": "epsilon-adder",
     "cells": {"beam_search": mod("beam_search", "lp = next_logprobs([[start] + h for h, _ in live])", "lp = next_logprobs([[start] + h for h, _ in live]).clamp(min=-1e4)")},
     "why": "P7 step 1: 'the sum of log-probabilities (of any size: clamp nothing)'."},
    {"name": "mem_p8_bp_inverted", "correct": False, "kind": "from-memory",
     "cells": {"bleu": mod("bleu", "bp = math.exp(1 - r / c) if c < r else 1.0", "bp = math.exp(1 - c / r) if c < r else 1.0")},
     "why": "P8: 'the brevity penalty exp(1 - r / c) when c is shorter than r'."},
    {"name": "eps_p8_bp_guard", "correct": False, "kind": "epsilon-adder",
     "cells": {"bleu": mod("bleu", "bp = math.exp(1 - r / c) if c < r else 1.0", "bp = math.exp(1 - r / (c + 1e-6)) if c < r else 1.0")},
     "why": "P8: 'exp(1 - r / c)': a guard on c that cannot be 0 there shifts BLEU by about 1e-4."},
    {"name": "mask_p8_skip_empty_hyp", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"bleu": mod("bleu", "        c += len(hyp)\n        r += len(ref)", "        if not hyp:\n            continue\n        c += len(hyp)\n        r += len(ref)")},
     "why": "P8: r is 'the total reference length': an empty hypothesis (a falsy list) still counts its reference in r."},
    {"name": "mem_p5_mean_own_dtype", "correct": False, "kind": "from-memory",
     "cells": {"average": mod("average", '''            acc = torch.zeros(t.shape, dtype=torch.float64)
            for s in states:
                acc = acc + s[k].detach().to(torch.float64)
            out[k] = (acc / len(states)).to(t.dtype)''', '''            out[k] = torch.stack([s[k].detach() for s in states]).mean(dim=0)''')},
     "why": "P5: 'Half-precision tensors must be as accurate as averaging in float32 or better ... a sum that does not fit in float16'."},
    {"name": "ok_p4_multiply_finite_mask", "correct": True, "kind": "mask-and-sentinel",
     "cells": {"sentence_loss": mod("sentence_loss", "ell = torch.where(valid, ell, torch.zeros((), dtype=ell.dtype))", "ell = ell * valid.to(ell.dtype)")},
     "why": "the text promises no -inf at a position whose target is PAD, so l is finite there and a 0/1 product is exact."},
    {"name": "ok_p4_clamped_count_over_rows", "correct": True, "kind": "epsilon-adder",
     "cells": {"sentence_loss": mod("sentence_loss", "sent = ell[rows].sum(-1) / n[rows].to(ell.dtype)\n    return sent.mean()",
                                    "sent = ell.sum(-1) / n.clamp(min=1).to(ell.dtype)\n    return sent.sum() / rows.sum().to(ell.dtype)")},
     "why": "clamp(min=1) only touches empty rows, whose sum is 0, and the mean divides by the number of non-empty rows."},
    {"name": "ok_p2_max_warmup_guard", "correct": True, "kind": "epsilon-adder",
     "cells": {"lr_at": mod("lr_at", "return float(peak * step / warmup)", "return float(peak * step / max(warmup, 1e-12))")},
     "why": "step >= 1 never falls in the warm-up branch when warmup = 0, so the guard never acts."},
]

SUBMISSIONS += [
    {"name": "eps_p6_global_max", "correct": False, "kind": "epsilon-adder",
     "cells": {"sample": mod("sample", "probs = torch.softmax(scores, dim=-1)",
                             "w = torch.exp(scores - scores.max())\n        probs = w / w.sum(dim=-1, keepdim=True)")},
     "why": "P6 step 3: 'a softmax (which subtracts the row maximum ...)': the maximum of the whole batch underflows rows far below it."},
    {"name": "eps_p2_max_floor", "correct": False, "kind": "epsilon-adder",
     "cells": {"lr_at": mod("lr_at", "return float(peak * step / warmup)", "return float(max(peak * step / warmup, floor))")},
     "why": "P2: 'peak * step / warmup for step <= warmup': the warm-up starts from 0, not from the floor."},
    {"name": "rank_p5_float32_accumulator", "correct": False, "kind": "fixed-rank",
     "cells": {"average": mod("average", "acc = torch.zeros(t.shape, dtype=torch.float64)", "acc = torch.zeros(t.shape, dtype=torch.float32)",
                              "acc = acc + s[k].detach().to(torch.float64)", "acc = acc + s[k].detach().to(torch.float32)")},
     "why": "P5: 'their element-wise mean, in their own dtype': a float32 accumulator rounds float64 weights."},
]
