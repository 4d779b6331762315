# Round 22, chapter 08: four kinds of student, second blind pass (sampling, rounding, counting, allocation), correct and hostile answers.
B = {}
B["decoder_io"] = '''
def decoder_io(targets):
    B, T = targets.shape
    first = torch.full((B, 1), BOS, dtype=targets.dtype)
    tgt_in = torch.cat([first, targets[:, :-1]], dim=1)[:, :T]
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''
B["lr_at"] = '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress)))
'''
B["min_loss"] = '''
eps, V = 0.1, 8000
q_right = 1 - eps + eps / V
q_other = eps / V
min_smoothed_loss = -(q_right * math.log(q_right) + (V - 1) * q_other * math.log(q_other))
'''
B["sentence_loss"] = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    spread = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    loss = (1 - eps) * nll + eps * spread
    mask = targets != PAD
    per_row = (loss * mask).sum(1) / mask.sum(1).clamp(min=1)
    rows = mask.any(1)
    return per_row[rows].mean()
'''
B["average"] = '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    first = states[0]
    for s in states:
        if set(s.keys()) != set(first.keys()):
            raise ValueError("keys differ")
        for k in first:
            if s[k].shape != first[k].shape:
                raise ValueError("shapes differ")
    out = {}
    for k in first:
        last = states[-1][k]
        if last.is_floating_point():
            work = torch.float32 if last.dtype in (torch.float16, torch.bfloat16) else last.dtype
            with torch.no_grad():
                acc = sum(s[k].to(work) for s in states) / len(states)
            out[k] = acc.to(last.dtype)
        else:
            out[k] = last
    return out
'''
B["sample"] = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    outs = [[] for _ in starts]
    live = list(range(len(starts))) if max_len > 0 else []
    while live:
        lp = next_logprobs([seqs[i] for i in live])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            cut = torch.full_like(scores, float("-inf"))
            cut.scatter_(-1, idx, vals)
            scores = cut
        probs = torch.softmax(scores, dim=-1)
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        nxt = []
        for i, tok in zip(live, draws):
            seqs[i].append(tok)
            outs[i].append(tok)
            if tok != EOS and len(outs[i]) < max_len:
                nxt.append(i)
        live = nxt
    return outs
'''
B["beam_search"] = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        V = lp.shape[-1]
        base = torch.tensor([s for _, s in live], dtype=torch.float64)
        scores = (base[:, None] + lp).reshape(-1)
        n = min(k, scores.numel())
        top = torch.topk(scores, n)
        new = []
        for val, idx in zip(top.values.tolist(), top.indices.tolist()):
            h, tok = divmod(idx, V)
            toks = live[h][0] + [tok]
            if tok == EOS:
                finished.append((toks, val / length_penalty(len(toks), alpha)))
            else:
                new.append((toks, val))
        live = new
    for toks, val in live:
        finished.append((toks, val / length_penalty(len(toks), alpha)))
    best = max(finished, key=lambda f: f[1])
    return list(best[0])
'''
B["bleu"] = '''
def corpus_bleu(hypotheses, references):
    clipped = [0] * 4
    totals = [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(cnt, rc[g]) for g, cnt in h.items())
            totals[n - 1] += max(len(hyp) - n + 1, 0)
    if min(totals) == 0 or min(clipped) == 0:
        return 0.0
    log_mean = sum(math.log(cl / t) for cl, t in zip(clipped, totals)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(log_mean))
'''


def rep(part, old, new, count=1):
    src = B[part]
    assert src.count(old) >= 1, (part, old)
    return src.replace(old, new, count)


W, C = False, True
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- sampling-and-randomness student
add("p2_samp_multinomial_with_replacement", W, {"sample": rep("sample",
    "draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()",
    "draws = torch.multinomial(probs, 1, replacement=True, generator=generator)[:, 0].tolist()")},
    "Part 6 step 3: 'torch.multinomial(probs, 1, generator=generator)': replacement=True takes another sampling path (other draws).")
add("p2_samp_topk_threshold_keeps_ties", W, {"sample": rep("sample",
    "vals, idx = torch.topk(scores, top_k, dim=-1)\n            cut = torch.full_like(scores, float(\"-inf\"))\n            cut.scatter_(-1, idx, vals)\n            scores = cut",
    "kth = torch.topk(scores, top_k, dim=-1).values[:, -1:]\n            scores = scores.masked_fill(scores < kth, float('-inf'))")},
    "Part 6 step 2: 'keep the top_k largest entries of each row (the ones torch.topk returns)': a threshold keeps every tie of the k-th score.")
add("p2_samp_cut_before_dividing", W, {"sample": rep("sample",
    "        scores = lp / temperature\n        if top_k is not None and top_k < scores.shape[-1]:\n            vals, idx = torch.topk(scores, top_k, dim=-1)",
    "        scores = lp / temperature\n        if top_k is not None and top_k < scores.shape[-1]:\n            vals, idx = torch.topk(lp, top_k, dim=-1)\n            vals = vals / temperature")},
    "Part 6 step 2: 'make the cut on the divided scores themselves': the cut taken on the log-probabilities before dividing (ties the division makes are broken otherwise).")
add("p2_samp_softmax_then_topk_probs", W, {"sample": rep("sample",
    "        probs = torch.softmax(scores, dim=-1)\n",
    "        probs = torch.softmax(lp / temperature, dim=-1)\n"
    "        if top_k is not None and top_k < probs.shape[-1]:\n"
    "            idx = torch.topk(probs, top_k, dim=-1).indices\n"
    "            probs = torch.zeros_like(probs).scatter(-1, idx, probs.gather(-1, idx))\n"
    "            probs = probs / probs.sum(-1, keepdim=True)\n")},
    "Part 6 step 2: 'make the cut on the divided scores themselves, not on their probabilities' (and the softmax after the cut).")
# ---------------------------------------------------------------- rounding-and-integer student
add("p2_round_bleu_integer_precision", W, {"bleu": rep("bleu",
    "    if min(totals) == 0 or min(clipped) == 0:\n        return 0.0\n    log_mean = sum(math.log(cl / t) for cl, t in zip(clipped, totals)) / 4",
    "    if min(totals) == 0 or min(clipped) == 0:\n        return 0.0\n    precisions = [100 * cl // t for cl, t in zip(clipped, totals)]\n"
    "    if min(precisions) == 0:\n        return 0.0\n    log_mean = sum(math.log(p / 100) for p in precisions) / 4")},
    "Part 8: precision = clipped / total: percentages floored to integers.")
add("p2_round_average_bf16_in_bf16", W, {"average": rep("average",
    "work = torch.float32 if last.dtype in (torch.float16, torch.bfloat16) else last.dtype",
    "work = torch.float32 if last.dtype == torch.float16 else last.dtype")},
    "Part 5: 'Half-precision (float16, bfloat16) tensors must be as accurate as averaging in float32 ... and rounding once': bfloat16 summed in bfloat16.")
add("p2_round_sentence_loss_no_clamp_count", W, {"sentence_loss": rep("sentence_loss",
    "mask.sum(1).clamp(min=1)", "mask.sum(1)")},
    "Part 4: 'loss.backward() must leave the exact gradient in logits.grad': 0/0 for a row of PADs gives a NaN gradient even though the row is dropped.")
# ---------------------------------------------------------------- counting-and-units student
add("p2_count_bleu_negative_ngram_totals", W, {"bleu": rep("bleu", "totals[n - 1] += max(len(hyp) - n + 1, 0)",
    "totals[n - 1] += len(hyp) - n + 1")},
    "Part 8: 'divide by the total number of hypothesis n-grams': a hypothesis shorter than n counts negative n-grams.")
add("p2_count_sentence_loss_length_to_first_pad", W, {"sentence_loss": rep("sentence_loss",
    "mask = targets != PAD", "mask = (targets != PAD).long().cumprod(dim=1).bool()")},
    "Part 4: 'positions whose target is not PAD (wherever they are: a PAD may also stand inside a row)'.")
add("p2_count_beam_stop_on_bound", W, {"beam_search": rep("beam_search",
    "        live = new\n",
    "        live = new\n"
    "        if finished and live and max(f[1] for f in finished) >= max(s for _, s in live) / length_penalty(max_len, alpha):\n"
    "            break\n")},
    "Part 7: 'do not stop early on a bound that holds only for alpha >= 0' / stop only when nothing is live or after max_len steps.")
add("p2_count_lr_peak_held_one_step", W, {"lr_at": rep("lr_at",
    "    if step <= warmup:\n        return float(peak * step / warmup)",
    "    if step <= warmup:\n        return float(peak * min(step, warmup) / warmup)\n    if warmup and step == warmup + 1:\n        return float(peak)")},
    "Part 2: the cosine branch holds for warmup < step < total: step warmup + 1 held at the peak.")
# ---------------------------------------------------------------- allocation student
add("p2_alloc_average_single_state_shares", W, {"average": rep("average",
    "    out = {}\n", "    if len(states) == 1:\n        return dict(states[0])\n    out = {}\n")},
    "Part 5: 'in new tensors (also for a list of one state: the mean must not change when the owner writes into the tensors it gave you)'.")
add("p2_alloc_average_float32_accumulator_all", W, {"average": rep("average",
    "work = torch.float32 if last.dtype in (torch.float16, torch.bfloat16) else last.dtype",
    "work = torch.float32")},
    "Part 5: float64 weights averaged through a float32 accumulator: 'their element-wise mean, in their own dtype'.")
add("p2_alloc_decoder_io_where_int64_fill", W, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    shifted = torch.cat([torch.full((B, 1), BOS), targets[:, :-1]], dim=1)[:, :T]
    return torch.where(targets == PAD, torch.zeros_like(targets), shifted), targets
'''}, "Part 1: 'of the dtype of targets': the int64 BOS column promotes int32 targets' tgt_in to int64.")
add("p2_alloc_sample_probs_buffer_float32", W, {"sample": rep("sample",
    "        probs = torch.softmax(scores, dim=-1)\n",
    "        probs = torch.zeros(scores.shape)\n        probs[:] = torch.softmax(scores, dim=-1)\n        probs = probs.to(torch.float64)\n")},
    "Part 6 step 3: 'Compute them in float64 throughout: rounded through float32 and cast back, they now and then draw another token'.")
# ---------------------------------------------------------------- correct
add("ok2_samp_manual_softmax", C, {"sample": rep("sample",
    "        probs = torch.softmax(scores, dim=-1)\n",
    "        z = scores - scores.max(dim=-1, keepdim=True).values\n        e = torch.exp(z)\n        probs = e / e.sum(dim=-1, keepdim=True)\n")},
    "Part 6: a softmax written out (max subtracted) in float64.")
add("ok2_samp_method_multinomial_topk_min", C, {"sample": rep("sample",
    "        if top_k is not None and top_k < scores.shape[-1]:\n            vals, idx = torch.topk(scores, top_k, dim=-1)",
    "        if top_k is not None:\n            vals, idx = scores.topk(min(top_k, scores.shape[-1]), dim=-1)").replace(
    "torch.multinomial(probs, 1, generator=generator)", "probs.multinomial(num_samples=1, generator=generator)")},
    "Part 6: topk with min(top_k, V) (every entry kept when top_k >= V) and the method form of multinomial.")
add("ok2_beam_topk_per_row_then_merge", C, {"beam_search": rep("beam_search",
    "        n = min(k, scores.numel())\n        top = torch.topk(scores, n)",
    "        per = torch.topk(base[:, None] + lp, min(k, V), dim=-1)\n"
    "        flat_idx = (per.indices + V * torch.arange(len(live))[:, None]).reshape(-1)\n"
    "        flat_val = per.values.reshape(-1)\n"
    "        n = min(k, flat_val.numel())\n"
    "        best = torch.topk(flat_val, n)\n"
    "        top = type(best)((best.values, flat_idx[best.indices]))")},
    "Part 7: top k of each hypothesis first, then the top k of those: the same k best.")
add("ok2_bleu_product_power", C, {"bleu": rep("bleu",
    "    log_mean = sum(math.log(cl / t) for cl, t in zip(clipped, totals)) / 4\n",
    "    prod = 1.0\n    for cl, t in zip(clipped, totals):\n        prod *= cl / t\n    log_mean = math.log(prod ** 0.25)\n")},
    "Part 8: geometric mean as the fourth root of the product.")
add("ok2_sentence_loss_buffer_index_put", C, {"sentence_loss": rep("sentence_loss",
    "    per_row = (loss * mask).sum(1) / mask.sum(1).clamp(min=1)",
    "    buf = torch.zeros_like(loss)\n    buf[mask] = loss[mask]\n    per_row = buf.sum(1) / mask.sum(1).clamp(min=1).to(loss.dtype)")},
    "Part 4: per-token losses written into a zeros_like buffer by index (differentiable).")
add("ok2_average_fsum_python_loop", C, {"average": '''
def average_checkpoints(states):
    if not isinstance(states, (list, tuple)) or len(states) == 0:
        raise ValueError("need at least one state")
    names = set(states[0])
    for st in states[1:]:
        if set(st) != names:
            raise ValueError("keys differ")
    for name in names:
        shapes = {tuple(st[name].shape) for st in states}
        if len(shapes) != 1:
            raise ValueError(f"shapes of {name} differ")
    out = {}
    for name in states[-1]:
        t = states[-1][name]
        if torch.is_floating_point(t):
            acc = torch.zeros(t.shape, dtype=torch.float64)
            for st in states:
                acc = acc + st[name].detach().double()
            out[name] = (acc / len(states)).to(t.dtype)
        else:
            out[name] = t
    return out
'''}, "Part 5: a float64 accumulator for every float dtype, rounded once.")
add("ok2_lr_with_torch_free_cos_form", C, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if warmup > 0 and step <= warmup:
        return step / warmup * peak * 1.0
    if step >= total:
        return floor * 1.0
    t = (step - warmup) / (total - warmup)
    return floor * 1.0 + (peak - floor) * (math.cos(math.pi * t) + 1) / 2
'''}, "Part 2 with float(…) replaced by * 1.0.")
