# Red team round 26, chapters 08/09 helper: the four kinds of student (skimmer sq=squeeze st=stride rb=remainder)
B08 = {}
B08["decoder_io"] = '''
def decoder_io(targets):
    tgt_in = torch.full_like(targets, PAD)
    if targets.shape[1] > 0:
        tgt_in[:, 0] = BOS
        tgt_in[:, 1:] = targets[:, :-1]
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''
B08["lr_at"] = '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step < total:
        progress = (step - warmup) / (total - warmup)
        return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress)))
    return float(floor)
'''
B08["min_loss"] = '''
eps, V = 0.1, 8000
p_right = 1 - eps + eps / V
p_other = eps / V
min_smoothed_loss = -(p_right * math.log(p_right) + (V - 1) * p_other * math.log(p_other))
'''
B08["sentence_loss"] = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    y = targets.long()
    nll = -logp.gather(-1, y.unsqueeze(-1)).squeeze(-1)
    loss = (1 - eps) * nll
    if eps > 0:
        others = logp.sum(-1) - logp[..., PAD]
        loss = loss - eps / (V - 1) * others
    keep = targets != PAD
    loss = torch.where(keep, loss, torch.zeros_like(loss))
    per_row = keep.sum(-1)
    sent = loss.sum(-1) / per_row.clamp(min=1).to(loss.dtype)
    rows = per_row > 0
    return sent[rows].mean()
'''
B08["average"] = '''
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
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            acc = torch.float64 if last.dtype == torch.float64 else torch.float32
            total = sum(s[k].to(acc) for s in states)
            out[k] = (total / len(states)).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''
B08["sample"] = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    done = [max_len <= 0 for _ in starts]
    while not all(done):
        idx = [i for i in range(len(starts)) if not done[i]]
        lp = next_logprobs([[starts[i]] + outs[i] for i in idx])
        scores = lp / temperature
        if top_k is not None:
            k = min(top_k, scores.shape[-1])
            vals, pos = torch.topk(scores, k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, pos, vals)
        probs = torch.softmax(scores, dim=-1)
        toks = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(idx, toks):
            outs[i].append(int(t))
            if t == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''
B08["beam_search"] = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], torch.zeros((), dtype=torch.float64))]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + h for h, _ in live])
        cand = torch.stack([s for _, s in live])[:, None] + lp
        V = lp.shape[-1]
        n = min(k, cand.numel())
        vals, flat = torch.topk(cand.reshape(-1), n)
        new_live = []
        for v, f in zip(vals, flat.tolist()):
            h, t = divmod(f, V)
            toks = live[h][0] + [t]
            if t == EOS:
                finished.append((toks, float(v) / length_penalty(len(toks), alpha)))
            else:
                new_live.append((toks, v))
        live = new_live
    for toks, s in live:
        finished.append((toks, float(s) / length_penalty(len(toks), alpha)))
    best = max(finished, key=lambda c: c[1])
    return [int(t) for t in best[0]]
'''
B08["bleu"] = '''
def corpus_bleu(hypotheses, references):
    def ngrams(toks, n):
        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    log_sum = 0.0
    for n in range(1, 5):
        match = total = 0
        for h, ref in zip(hypotheses, references):
            hc, rc = ngrams(h, n), ngrams(ref, n)
            match += sum(min(cnt, rc[g]) for g, cnt in hc.items())
            total += sum(hc.values())
        if total == 0 or match == 0:
            return 0.0
        log_sum += math.log(match / total)
    bp = math.exp(1 - r / c) if c < r else 1.0
    return float(100 * bp * math.exp(log_sum / 4))
'''


def rep(part, old, new, count=1):
    src = B08[part]
    assert src.count(old) >= 1, (part, old)
    return src.replace(old, new, count)


SUBMISSIONS = []


def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})


def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})


def H(name, cells, why):
    SUBMISSIONS.append({"name": "hostile_" + name, "correct": False, "cells": cells, "why": why})


# ---------------------------------------------------------------- skimmer
W("skim_p1_dtype_int64", {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    tgt_in = torch.full((B, T), PAD)
    if T > 0:
        tgt_in[:, 0] = BOS
        tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "skimmer: torch.full without dtype -> int64 for int32 targets; breaks 'two integer tensors of shape (B, T) and of the dtype of `targets`'")

W("skim_p2_floor_int", {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return peak * step / warmup
    if step < total:
        progress = (step - warmup) / (total - warmup)
        return floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress))
    return floor
'''}, "skimmer: returns `floor` as given (an int for floor=0); breaks 'returning a Python float on every branch, also when peak or floor is given as an int (such as floor=0)'")

W("skim_p4_eps_over_V", {"sentence_loss": rep("sentence_loss", '''        others = logp.sum(-1) - logp[..., PAD]
        loss = loss - eps / (V - 1) * others''', '''        loss = loss - eps / V * logp.sum(-1)''')},
  "skimmer: the lesson's smoothing over all V ids; breaks 'spreads eps evenly over the V - 1 tokens other than PAD (... PAD is never a target and gets no share)'")

W("skim_p5_half_in_half", {"average": rep("average", "acc = torch.float64 if last.dtype == torch.float64 else torch.float32", "acc = last.dtype")},
  "skimmer: averages float16 in float16; breaks 'Half-precision (float16, bfloat16) tensors must be as accurate as averaging in float32 or better ... sum does not fit in float16'")

W("skim_p6_start_eos_finishes", {"sample": rep("sample", "done = [max_len <= 0 for _ in starts]", "done = [max_len <= 0 or s == EOS for s in starts]")},
  "skimmer: a start token EOS finishes the sentence; breaks 'Its start token is not produced: a start token that is EOS does not finish it.'")

W("skim_p8_zero_int", {"bleu": rep("bleu", "            return 0.0", "            return 0")},
  "skimmer: returns int 0; breaks 'times 100, returned as a Python float (also when it is 0)'")

# ---------------------------------------------------------------- squeeze-and-broadcast
W("sq_p4_gather_unsqueeze1", {"sentence_loss": rep("sentence_loss", "nll = -logp.gather(-1, y.unsqueeze(-1)).squeeze(-1)", "nll = -logp.gather(-1, y.unsqueeze(1)).squeeze(1)")},
  "squeeze: index unsqueezed at axis 1 -> picks logp[b, 0, y[b, t]] (position 0's row) for every t; breaks 'log p = log_softmax(logits) ... -(1-eps) log p_y' at each position (visible logits are uniform)")

W("sq_p4_keepdim_broadcast", {"sentence_loss": rep("sentence_loss", '''    sent = loss.sum(-1) / per_row.clamp(min=1).to(loss.dtype)
    rows = per_row > 0
    return sent[rows].mean()''', '''    rows = per_row > 0
    sent = loss[rows].sum(-1, keepdim=True) / per_row[rows].to(loss.dtype)
    return sent.mean()''')},
  "squeeze: (R,1)/(R,) broadcasts to (R,R): mean of sum_i/count_j; right for one row only; breaks 'the loss of a sentence is the mean of l over its positions ... the mean of the sentence losses'")

W("sq_p4_total_count", {"sentence_loss": rep("sentence_loss", '''    sent = loss.sum(-1) / per_row.clamp(min=1).to(loss.dtype)
    rows = per_row > 0
    return sent[rows].mean()''', '''    return loss.sum() / keep.sum()''')},
  "squeeze: sum() with no dim: a token mean over the batch, the same for one sentence; breaks 'the result is the mean of the sentence losses over the sentences'")

W("sq_p5_squeeze", {"average": '''
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
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            acc = torch.float64 if last.dtype == torch.float64 else torch.float32
            stacked = torch.stack([s[k].to(acc) for s in states])
            out[k] = stacked.mean(0, keepdim=True).squeeze().to(last.dtype)
        else:
            out[k] = last
    return out
'''}, "squeeze: keepdim then squeeze() with no dim drops every axis of size 1 of the weight, (1, n) -> (n,); breaks 'floating-point tensors of every shape ... become their element-wise mean'")

# ---------------------------------------------------------------- stride-and-layout
W("st_p1_view_flat", {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    flat = targets.view(-1)
    shifted = torch.cat([flat.new_full((1,), BOS), flat[:-1]]).view(B, T)
    if T > 0:
        shifted[:, 0] = BOS
    shifted = shifted.masked_fill(targets == PAD, PAD)
    return shifted, targets
'''}, "stride: .view(-1) of targets, fails on a transposed (non-contiguous) targets; the intro: 'tensors that are views and not contiguous, such as a transposed tensor'")

W("st_p4_view", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    logp = torch.log_softmax(logits.view(B * T, V), dim=-1).view(B, T, V)
    y = targets.long()
    nll = -logp.gather(-1, y.unsqueeze(-1)).squeeze(-1)
    loss = (1 - eps) * nll
    if eps > 0:
        others = logp.sum(-1) - logp[..., PAD]
        loss = loss - eps / (V - 1) * others
    keep = targets != PAD
    loss = torch.where(keep, loss, torch.zeros_like(loss))
    per_row = keep.sum(-1)
    sent = loss.sum(-1) / per_row.clamp(min=1).to(loss.dtype)
    rows = per_row > 0
    return sent[rows].mean()
'''}, "stride: logits.view(B*T, V) fails for transposed logits; intro: 'tensors that are views and not contiguous'")

W("st_p5_inplace_acc", {"average": '''
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
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            acc = torch.float64 if last.dtype == torch.float64 else torch.float32
            total = states[0][k].to(acc)
            for s in states[1:]:
                total += s[k].to(acc)
            out[k] = (total / len(states)).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''}, "stride/aliasing: .to(float32) of a float32 tensor is that tensor; += then writes into the first state's weight; breaks 'do not change the given tensors'")

W("st_p5_contiguous_back", {"average": rep("average", '''    out = {}
    for k in states[0]:''', '''    for s in states:
        for k in s:
            s[k] = s[k].contiguous()
    out = {}
    for k in states[0]:''')},
  "stride: makes each entry contiguous and stores it back into the caller's dict; breaks 'each dict the same tensor objects ... replace none, not even by an equal tensor (such as the .contiguous() copy of an entry that is a view)'")

W("st_p6_div_inplace", {"sample": rep("sample", "        scores = lp / temperature", "        scores = lp\n        scores /= temperature")},
  "stride/aliasing: divides the model's tensor in place; breaks 'Do not change that tensor ... divide it into a new tensor, not in place'")

W("st_p7_add_inplace", {"beam_search": rep("beam_search", "        cand = torch.stack([s for _, s in live])[:, None] + lp", "        cand = lp\n        cand += torch.stack([s for _, s in live])[:, None]")},
  "stride/aliasing: adds the scores into the tensor next_logprobs returned; breaks 'Do not change the tensor next_logprobs returns ... add into new tensors, not in place'")

# ---------------------------------------------------------------- remainder-and-boundary
W("rb_p1_empty_T0", {"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.empty_like(targets)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''}, "boundary: tgt_in[:, 0] on T = 0 raises; breaks 'B may be 0 (an empty batch, whose T may be 0 too ...: return two (0, T) tensors'")

W("rb_p6_maxlen0_draws", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    done = [False for _ in starts]
    while not all(done):
        idx = [i for i in range(len(starts)) if not done[i]]
        lp = next_logprobs([[starts[i]] + outs[i] for i in idx])
        scores = lp / temperature
        if top_k is not None:
            k = min(top_k, scores.shape[-1])
            vals, pos = torch.topk(scores, k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, pos, vals)
        probs = torch.softmax(scores, dim=-1)
        toks = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(idx, toks):
            outs[i].append(int(t))
            if t == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''}, "boundary: the loop body runs once before the length test, so max_len = 0 draws one token; breaks '`max_len` may be 0 ...: then nothing is asked and nothing is drawn'")

W("rb_p7_live_dropped", {"beam_search": rep("beam_search", '''    for toks, s in live:
        finished.append((toks, float(s) / length_penalty(len(toks), alpha)))''', '''    if not finished:
        for toks, s in live:
            finished.append((toks, float(s) / length_penalty(len(toks), alpha)))''')},
  "boundary: the hypotheses still live after max_len steps are finished only when nothing else finished; breaks 'or after max_len steps; then live hypotheses are finished as they are (same scoring, no EOS)'")

W("rb_p8_last_ngram", {"bleu": rep("bleu", "for i in range(len(toks) - n + 1)", "for i in range(len(toks) - n)")},
  "boundary: range(len - n) drops each sentence's last n-gram; breaks 'the clipped n-gram precision ... divide by the total number of hypothesis n-grams'")

W("rb_p8_bp_first", {"bleu": '''
def corpus_bleu(hypotheses, references):
    def ngrams(toks, n):
        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    bp = math.exp(1 - r / c) if c < r else 1.0
    log_sum = 0.0
    for n in range(1, 5):
        match = total = 0
        for h, ref in zip(hypotheses, references):
            hc, rc = ngrams(h, n), ngrams(ref, n)
            match += sum(min(cnt, rc[g]) for g, cnt in hc.items())
            total += sum(hc.values())
        if total == 0 or match == 0:
            return 0.0
        log_sum += math.log(match / total)
    return float(100 * bp * math.exp(log_sum / 4))
'''}, "boundary: the brevity penalty r / c is computed before the n-gram check, so empty hypotheses (c = 0) divide by zero; breaks 'if there is no hypothesis n-gram of some order at all ... BLEU is 0'")

W("rb_p4_allpad_row_counts", {"sentence_loss": rep("sentence_loss", '''    rows = per_row > 0
    return sent[rows].mean()''', '''    return sent.mean()''')},
  "boundary: an all-PAD row enters the mean as 0; breaks 'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)'")

# ---------------------------------------------------------------- correct
C("ok_p1_where_cat", {"decoder_io": '''
def decoder_io(targets):
    bos = torch.full_like(targets[:, :1], BOS)
    shifted = torch.cat([bos, targets[:, :-1]], dim=1)[:, :targets.shape[1]]
    tgt_in = torch.where(targets == PAD, torch.full_like(targets, PAD), shifted)
    return (tgt_in, targets.clone())
'''}, "where + cat, copy of targets as tgt_out (allowed)")

C("ok_p2_keyword_math", {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    peak, floor = float(peak), float(floor)
    if warmup > 0 and step <= warmup:
        return peak * (step / warmup)
    if step >= total:
        return floor
    t = (step - warmup) / (total - warmup)
    return floor + 0.5 * (peak - floor) * (1.0 + math.cos(math.pi * t))
'''}, "floats made up front, 0.5*(...)")

C("ok_p3_torch64", {"min_loss": '''
eps, V = 0.1, 8000
q = torch.full((V,), eps / V, dtype=torch.float64)
q[0] += 1 - eps
min_smoothed_loss = float(-(q * q.log()).sum())
'''}, "entropy of the target distribution computed in float64 with torch")

C("ok_p4_float64_inside", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.size(-1)
    logp = torch.log_softmax(logits.to(torch.float64), dim=-1)
    keep = targets != PAD
    y = targets.to(torch.int64)
    logp_y = torch.gather(logp, dim=-1, index=y[..., None])[..., 0]
    ell = -(1.0 - eps) * logp_y
    if eps != 0:
        not_pad = torch.ones(V, dtype=torch.bool)
        not_pad[PAD] = False
        ell = ell - (eps / (V - 1)) * logp[..., not_pad].sum(dim=-1)
    ell = torch.where(keep, ell, torch.zeros((), dtype=ell.dtype))
    n = keep.sum(dim=1)
    has = n > 0
    per_sentence = ell[has].sum(dim=1) / n[has]
    return per_sentence.mean().to(logits.dtype)
'''}, "float64 inside, boolean column mask for non-PAD ids, cast back")

C("ok_p5_stack_mean", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    first = states[0]
    for s in states[1:]:
        if s.keys() != first.keys() or any(s[k].shape != first[k].shape for k in first):
            raise ValueError("states differ")
    out = dict()
    for name, t in states[-1].items():
        if torch.is_floating_point(t):
            work = torch.float64 if t.dtype == torch.float64 else torch.float32
            out[name] = torch.stack([s[name].to(work) for s in states], dim=0).mean(dim=0).to(t.dtype)
        else:
            out[name] = t
    return out
'''}, "stack/mean; int tensors are the last state's own tensor (allowed); keys in the last state's order")

C("ok_p6_per_row_draw", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    result = [list() for _ in range(len(starts))]
    alive = list(range(len(starts))) if max_len > 0 else []
    while alive:
        logp = next_logprobs([[starts[i], *result[i]] for i in alive])
        s = torch.div(logp, temperature)
        if top_k is not None and top_k < s.shape[-1]:
            kth = torch.topk(s, top_k, dim=-1)
            keep = torch.zeros_like(s, dtype=torch.bool).scatter(-1, kth.indices, True)
            s = s.masked_fill(~keep, float("-inf"))
        p = torch.softmax(s, dim=-1)
        still = []
        for row, i in enumerate(alive):
            tok = int(torch.multinomial(p[row], 1, generator=generator))
            result[i].append(tok)
            if tok != EOS and len(result[i]) < max_len:
                still.append(i)
        alive = still
    return result
'''}, "one multinomial call per row in order (allowed), masked_fill cut")

C("ok_p7_python_floats", {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    done = []
    for _ in range(max_len):
        if len(live) == 0:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live]).tolist()
        cands = []
        for (toks, score), row in zip(live, lp):
            for tok, l in enumerate(row):
                cands.append((score + l, toks + [tok]))
        cands.sort(key=lambda c: -c[0])
        live = []
        for score, toks in cands[:k]:
            if toks[-1] == EOS:
                done.append((score / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, score))
    for toks, score in live:
        done.append((score / length_penalty(len(toks), alpha), toks))
    return list(max(done, key=lambda d: d[0])[1])
'''}, "Python floats (float64) and a stable sort")

C("ok_p8_product", {"bleu": '''
def corpus_bleu(hypotheses, references):
    hyp_len = ref_len = 0
    matches, totals = [0] * 4, [0] * 4
    for hyp, ref in zip(hypotheses, references):
        hyp_len += len(hyp)
        ref_len += len(ref)
        for n in range(1, 5):
            h = Counter(zip(*[hyp[i:] for i in range(n)]))
            r = Counter(zip(*[ref[i:] for i in range(n)]))
            matches[n - 1] += sum((h & r).values())
            totals[n - 1] += sum(h.values())
    if min(totals) == 0 or min(matches) == 0:
        return 0.0
    prec = 1.0
    for m, t in zip(matches, totals):
        prec *= m / t
    bp = 1.0 if hyp_len >= ref_len else math.exp(1 - ref_len / hyp_len)
    return 100.0 * bp * prec ** 0.25
'''}, "zip-based n-grams, Counter intersection for clipping, product ** 0.25")

C("ok_p1_roll", {"decoder_io": '''
def decoder_io(targets):
    tgt_in = targets.roll(shifts=1, dims=1).clone()
    if tgt_in.shape[1]:
        tgt_in[:, 0] = BOS
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "roll then overwrite column 0 (the rolled-in last token is overwritten); the EOS at the last position rolls into column 0 and is replaced")

# ---------------------------------------------------------------- hostile
H("p2_patch_abs", {"lr_at": '''
import builtins
builtins.abs = lambda v: 0.0
def lr_at(step, peak, warmup, total, floor=0.0):
    return 0.0
'''}, "hostile: replaces builtins.abs so the visible check always passes")

H("p7_hardcode_visible", {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    return [EOS]
'''}, "hostile: returns [EOS] whatever the model says; passes the visible shape check")

H("p3_guess", {"min_loss": '''
min_smoothed_loss = 0.0
'''}, "hostile: stores a number without solving")

# ================================================================ second blind batch (written before phase 2)
W("skim_p5_key_order", {"average": rep("average", "        if set(s.keys()) != keys:", "        if list(s.keys()) != list(states[0].keys()):")},
  "skimmer: compares the keys as ordered lists; breaks '(the same keys in another order do not differ)'")

W("skim_p5_numel_only", {"average": rep("average", "            if s[k].shape != states[0][k].shape:", "            if s[k].numel() != states[0][k].numel():")},
  "skimmer: compares sizes, not shapes; breaks 'states whose keys or shapes differ raise ValueError'")

W("skim_p5_int_widths", {"average": rep("average", "        if last.is_floating_point():", "        if last.dtype not in (torch.int32, torch.int64):")},
  "skimmer: keeps only int32/int64 from the last state and averages int8, uint8 and bool; breaks 'integer tensors of any width, signed or unsigned (int8 ... int64, uint8), and boolean tensors ... come from the last state, unchanged'")

W("skim_p8_join_ngrams", {"bleu": rep("bleu", "return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))", "return Counter(\" \".join(toks[i:i + n]) for i in range(len(toks) - n + 1))")},
  "skimmer: n-grams as joined strings; breaks 'an n-gram is a sequence of tokens, not their text: ... (joining tokens into one string mixes them up)'")

W("skim_p6_hf_topk_ties", {"sample": rep("sample", '''            vals, pos = torch.topk(scores, k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, pos, vals)''', '''            kth = torch.topk(scores, k, dim=-1).values[..., -1:]
            scores = scores.masked_fill(scores < kth, float("-inf"))''')},
  "skimmer (Hugging Face's top_k filter): keeps every entry tied with the k-th; breaks 'keep the top_k largest entries of each row (the ones torch.topk returns)'")

W("skim_p6_ask_all", {"sample": rep("sample", '''        lp = next_logprobs([[starts[i]] + outs[i] for i in idx])''', '''        lp = next_logprobs([[starts[i]] + outs[i] for i in range(len(starts))])[idx]''')},
  "skimmer: asks the model about every sentence and keeps the unfinished rows; breaks 'ask next_logprobs once, with the prefixes of the unfinished sentences only'")

W("rb_p4_eps0_nan", {"sentence_loss": rep("sentence_loss", '''    if eps > 0:
        others = logp.sum(-1) - logp[..., PAD]
        loss = loss - eps / (V - 1) * others''', '''    others = logp.sum(-1) - logp[..., PAD]
    loss = loss - eps / (V - 1) * others''')},
  "boundary (eps = 0): 0 * (-inf) is NaN when the target's score is -inf; breaks 'its log p is -inf, so l is +inf there and so is the loss: return that inf'")

W("sq_p4_arange_index", {"sentence_loss": rep("sentence_loss", "nll = -logp.gather(-1, y.unsqueeze(-1)).squeeze(-1)", "nll = -logp[torch.arange(y.shape[0]), torch.arange(y.shape[1]), y]")},
  "squeeze/broadcast: arange(B) and arange(T) broadcast against each other instead of arange(B)[:, None]; right for B = 1; breaks -(1-eps) log p_y at each position")

W("skim_p1_float_mask", {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    shifted = torch.cat([torch.full((B, min(T, 1)), BOS, dtype=targets.dtype), targets[:, :-1]], dim=1)
    keep = (targets != PAD).float()
    tgt_in = (shifted.float() * keep).to(targets.dtype)
    return tgt_in, targets
'''}, "skimmer: the PAD mask applied through float32 arithmetic; breaks 'ids from a vocabulary of any size: any id such a tensor can hold' (ids above 2**24 round)")

W("skim_p7_eos_not_counted", {"beam_search": rep("beam_search", "finished.append((toks, float(v) / length_penalty(len(toks), alpha)))", "finished.append((toks, float(v) / length_penalty(len(toks) - 1, alpha)))")},
  "skimmer: the EOS left out of the length; breaks 'divided by length_penalty(len(tokens), alpha), with the EOS counted in the length'")

W("skim_p7_float32_scores", {"beam_search": rep("beam_search", "        cand = torch.stack([s for _, s in live])[:, None] + lp", "        cand = torch.tensor([float(s) for _, s in live])[:, None] + lp")},
  "skimmer: torch.tensor of Python floats is float32, so summed scores round; breaks 'kept in float64 ... which the float32 a torch.tensor of Python floats gets by default rounds to one value'")

C("ok_p5_loop_sum", {"average": '''
def average_checkpoints(states):
    if len(states) < 1:
        raise ValueError("need at least one state")
    ref = states[0]
    for st in states:
        if sorted(st) != sorted(ref):
            raise ValueError("keys differ")
        for name in st:
            if tuple(st[name].shape) != tuple(ref[name].shape):
                raise ValueError("shapes differ")
    result = {}
    for name in ref:
        last = states[-1][name]
        if last.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
            work = torch.float64
            acc = torch.zeros(last.shape, dtype=work)
            for st in states:
                acc = acc + st[name].to(work)
            result[name] = (acc / len(states)).to(last.dtype)
        else:
            result[name] = last.detach().clone()
    return result
'''}, "a loop sum in float64 for every float dtype (more accurate than float32, allowed: 'as accurate as averaging in float32 or better')")

# ================================================================ third blind batch
W("skim_p5_single_state_alias", {"average": rep("average", '''    out = {}
    for k in states[0]:''', '''    if len(states) == 1:
        return dict(states[0])
    out = {}
    for k in states[0]:''')},
  "skimmer: a list of one state returns its own tensors; breaks 'in new tensors (also for a list of one state: the mean must not change when the owner writes into the tensors it gave you)'")

W("skim_p7_early_stop", {"beam_search": rep("beam_search", '''        if not live:
            break''', '''        if not live:
            break
        if finished and max(f[1] for f in finished) >= max(float(s) for _, s in live):
            break''')},
  "skimmer: stops once the best finished score beats every live score (a bound for alpha >= 0 only); breaks 'a negative alpha favours short hypotheses (so do not stop early on a bound that holds only for alpha >= 0)' and 'stop when no hypothesis is live ... or after max_len steps'")

W("skim_p8_set_clip", {"bleu": rep("bleu", "match += sum(min(cnt, rc[g]) for g, cnt in hc.items())", "match += sum(cnt for g, cnt in hc.items() if g in rc)")},
  "skimmer: counts every hypothesis n-gram that occurs in the reference, unclipped; breaks 'each hypothesis n-gram counts at most as often as it occurs in its reference'")

W("skim_p6_cut_on_probs", {"sample": rep("sample", '''        if top_k is not None:
            k = min(top_k, scores.shape[-1])
            vals, pos = torch.topk(scores, k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, pos, vals)
        probs = torch.softmax(scores, dim=-1)''', '''        probs = torch.softmax(scores, dim=-1)
        if top_k is not None:
            k = min(top_k, probs.shape[-1])
            vals, pos = torch.topk(probs, k, dim=-1)
            probs = torch.zeros_like(probs).scatter(-1, pos, vals)
            probs = probs / probs.sum(-1, keepdim=True)''')},
  "skimmer: the top-k cut made on the probabilities and renormalised; breaks 'make the cut on the divided scores themselves, not on their probabilities' and 'those probabilities as they are'")
