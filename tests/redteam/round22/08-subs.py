# Round 22, chapter 08: four kinds of student (sampling, rounding, counting, allocation), correct and hostile answers.
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


# ---------------------------------------------------------------- 1. sampling-and-randomness student
add("samp_draws_for_finished_rows", W, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    # one draw per sentence per step, like a batched decoder; finished sentences ignore theirs
    seqs = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        if not starts or all(done):
            break
        lp = next_logprobs(seqs)
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, tok in enumerate(draws):
            if done[i]:
                continue
            seqs[i].append(tok)
            outs[i].append(tok)
            if tok == EOS or len(outs[i]) == max_len:
                done[i] = True
    return outs
'''}, "Part 6 step 1/3: 'ask next_logprobs once, with the prefixes of the unfinished sentences only' and 'Draw nothing for finished sentences': a draw per sentence every step shifts later rows' draws.")

add("samp_inverse_cdf_one_uniform", W, {"sample": rep("sample",
    "draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()",
    "u = torch.rand(probs.shape[0], 1, generator=generator, dtype=probs.dtype)\n"
    "        cdf = probs.cumsum(-1)\n"
    "        draws = (cdf < u).sum(-1).clamp(max=probs.shape[-1] - 1).tolist()")},
    "Part 6 step 3: 'draw one token per row with torch.multinomial(probs, 1, generator=generator)': inverse-CDF with one uniform draws other numbers.")

add("samp_rows_drawn_in_reverse", W, {"sample": rep("sample",
    "draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()",
    "draws = [0] * probs.shape[0]\n"
    "        for j in reversed(range(probs.shape[0])):\n"
    "            draws[j] = int(torch.multinomial(probs[j], 1, generator=generator))")},
    "Part 6: 'for the sentences that are not yet finished, in the order of their index' / 'one call per row in the same order': rows drawn last to first.")

add("samp_gumbel_max_with_generator", W, {"sample": rep("sample",
    "draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()",
    "u = torch.rand(scores.shape, generator=generator, dtype=scores.dtype)\n"
    "        draws = (scores - torch.log(-torch.log(u))).argmax(-1).tolist()")},
    "Part 6 step 3: draws must be torch.multinomial's on the probabilities; Gumbel-max samples the same distribution with other draws.")

add("samp_topk_filtered_not_renormalised", W, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    outs = [[] for _ in starts]
    live = list(range(len(starts))) if max_len > 0 else []
    while live:
        lp = next_logprobs([seqs[i] for i in live])
        scores = lp / temperature
        probs = torch.softmax(scores, dim=-1)
        if top_k is not None and top_k < scores.shape[-1]:
            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.zeros_like(probs, dtype=torch.bool).scatter(-1, idx, True)
            probs = probs * keep          # multinomial normalises the rows itself
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        nxt = []
        for i, tok in zip(live, draws):
            seqs[i].append(tok)
            outs[i].append(tok)
            if tok != EOS and len(outs[i]) < max_len:
                nxt.append(i)
        live = nxt
    return outs
'''}, "Part 6 steps 2-3: cut to -inf, 'then turn each row into probabilities with a softmax': the filtered probabilities are passed unnormalised (the tests compare the probabilities passed).")

add("samp_global_seed_from_generator", W, {"sample": rep("sample",
    "draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()",
    "torch.manual_seed(generator.initial_seed() + len(seqs[live[0]]))\n"
    "        draws = torch.multinomial(probs, 1)[:, 0].tolist()")},
    "Part 6 step 3: 'draw with no other random source (leave torch's global generator alone: no torch.manual_seed either)'.")

# ---------------------------------------------------------------- 2. rounding-and-integer student
add("round_lr_floor_returned_as_given", W, {"lr_at": rep("lr_at", "return float(floor)", "return floor")},
    "Part 2: 'returning a Python float on every branch, also when ... floor is given as an int (such as floor=0)'.")

add("round_bleu_bp_integer_division", W, {"bleu": rep("bleu", "math.exp(1 - r / c)", "math.exp(1 - r // c)")},
    "Part 8: brevity penalty 'exp(1 - r / c)': r // c floors the ratio.")

add("round_bleu_two_decimals", W, {"bleu": rep("bleu", "return float(100 * bp * math.exp(log_mean))",
    "return round(100 * bp * math.exp(log_mean), 2)")},
    "Part 8: 'times 100, returned as a Python float': the sacreBLEU display rounding to 2 decimals is not the number.")

add("round_decoder_io_through_float", W, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    shifted = torch.cat([torch.full((B, 1), float(BOS)), targets[:, :-1].float()], dim=1)[:, :T]
    keep = (targets != PAD).float()
    return (shifted * keep).to(targets.dtype), targets
'''}, "Part 1: 'ids from a vocabulary of any size: any id such a tensor can hold': ids above 2**24 round through float32.")

add("round_average_divide_each_first", W, {"average": rep("average",
    "acc = sum(s[k].to(work) for s in states) / len(states)\n            out[k] = acc.to(last.dtype)",
    "acc = sum(s[k] / len(states) for s in states)\n            out[k] = acc.to(last.dtype)")},
    "Part 5: half precision 'as accurate as averaging in float32 or better and rounding once': each term divided and summed in float16 rounds many times.")

add("round_beam_scores_float32_tensor", W, {"beam_search": rep("beam_search",
    "base = torch.tensor([s for _, s in live], dtype=torch.float64)",
    "base = torch.tensor([s for _, s in live])")},
    "Part 7 step 1: scores 'kept in float64 ... which the float32 a torch.tensor of Python floats gets by default rounds'.")

# ---------------------------------------------------------------- 3. counting-and-units student
add("count_min_loss_in_bits", W, {"min_loss": B["min_loss"].replace("math.log(", "math.log2(")},
    "Part 3: 'the smallest per-token loss (in nats, natural logarithm)': computed in bits.")

add("count_min_loss_spread_over_others", W, {"min_loss": '''
eps, V = 0.1, 8000
min_smoothed_loss = -((1 - eps) * math.log(1 - eps) + eps * math.log(eps / (V - 1)))
'''}, "Part 3: 'spreads eps evenly over all V tokens, the right one included': spread over the V - 1 others.")

add("count_sentence_loss_per_token_mean", W, {"sentence_loss": rep("sentence_loss",
    "per_row = (loss * mask).sum(1) / mask.sum(1).clamp(min=1)\n    rows = mask.any(1)\n    return per_row[rows].mean()",
    "return (loss * mask).sum() / mask.sum()")},
    "Part 4: 'the loss of a sentence is the mean ... the result is the mean of the sentence losses': averaged over tokens instead.")

add("count_sentence_loss_spread_over_V", W, {"sentence_loss": rep("sentence_loss",
    "spread = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)", "spread = -logp.mean(-1)")},
    "Part 4: 'spreads eps evenly over the V - 1 tokens other than PAD': spread over all V.")

add("count_sentence_loss_all_rows", W, {"sentence_loss": rep("sentence_loss",
    "return per_row[rows].mean()", "return per_row.mean()")},
    "Part 4: 'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)'.")

add("count_sample_len_with_start", W, {"sample": rep("sample", "len(outs[i]) < max_len", "len(seqs[i]) < max_len")},
    "Part 6 step 4: 'finished ... after max_len new tokens. Its start token is not produced': the start token counted.")

add("count_beam_penalty_with_start", W, {"beam_search": B["beam_search"].replace(
    "length_penalty(len(toks), alpha)", "length_penalty(len(toks) + 1, alpha)")},
    "Part 7 step 2: 'length_penalty(len(tokens), alpha), with the EOS counted' (tokens after start): the start counted too.")

add("count_beam_unfinished_virtual_eos", W, {"beam_search": rep("beam_search",
    "    for toks, val in live:\n        finished.append((toks, val / length_penalty(len(toks), alpha)))",
    "    for toks, val in live:\n        finished.append((toks, val / length_penalty(len(toks) + 1, alpha)))")},
    "Part 7 step 4: 'live hypotheses are finished as they are (same scoring, no EOS)': a virtual EOS counted in their length.")

add("count_bleu_ngrams_len_minus_n", W, {"bleu": B["bleu"].replace("len(hyp) - n + 1", "len(hyp) - n").replace(
    "len(ref) - n + 1", "len(ref) - n")},
    "Part 8: 'divide by the total number of hypothesis n-grams': the last n-gram of each sentence dropped.")

add("count_bleu_sentence_average", W, {"bleu": '''
def corpus_bleu(hypotheses, references):
    def one(hyp, ref):
        logs = []
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            total = max(len(hyp) - n + 1, 0)
            clip = sum(min(cnt, rc[g]) for g, cnt in h.items())
            if total == 0 or clip == 0:
                return 0.0
            logs.append(math.log(clip / total))
        bp = 1.0 if len(hyp) >= len(ref) else math.exp(1 - len(ref) / len(hyp))
        return 100 * bp * math.exp(sum(logs) / 4)
    scores = [one(h, r) for h, r in zip(hypotheses, references)]
    return float(sum(scores) / len(scores)) if scores else 0.0
'''}, "Part 8: 'a corpus-level ratio, not an average of per-sentence ratios'.")

add("count_lr_cosine_past_total", W, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    progress = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress)))
'''}, "Part 2: 'floor, reached at step total and kept afterwards' (step >= total): the cosine climbs back after total.")

# ---------------------------------------------------------------- 4. allocation student
add("alloc_decoder_io_zeros_float", W, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    tgt_in = torch.zeros(B, T)
    if T > 0:
        tgt_in[:, 0] = BOS
        tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "Part 1: 'two integer tensors of shape (B, T) and of the dtype of targets': torch.zeros gives float32.")

add("alloc_decoder_io_full_int64", W, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    tgt_in = torch.full((B, T), PAD)
    if T > 0:
        tgt_in[:, 0] = BOS
        tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "Part 1: 'of the dtype of targets' (int32 too): torch.full with an int fill is int64.")

add("alloc_decoder_io_empty_like_col0", W, {"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.empty_like(targets)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "Part 1: 'B may be 0 (an empty batch, whose T may be 0 too ...: return two (0, T) tensors)': column 0 of a (0, 0) buffer raises.")

add("alloc_average_default_float_accumulator", W, {"average": rep("average",
    "acc = sum(s[k].to(work) for s in states) / len(states)",
    "acc = torch.zeros(last.shape)\n                for s in states:\n                    acc += s[k]\n                acc = acc / len(states)")},
    "Part 5: 'their element-wise mean, in their own dtype': a float32 buffer rounds float64 weights.")

add("alloc_sentence_loss_row_buffer", W, {"sentence_loss": rep("sentence_loss",
    "per_row = (loss * mask).sum(1) / mask.sum(1).clamp(min=1)",
    "per_row = torch.zeros(loss.shape[0])\n"
    "    for b in range(loss.shape[0]):\n"
    "        if mask[b].any():\n"
    "            per_row[b] = loss[b][mask[b]].mean()")},
    "Part 4: 'Return a 0-dimensional tensor of the dtype of logits (float32 or float64)': the float32 row buffer rounds float64.")

add("alloc_sentence_loss_tensor_of_list", W, {"sentence_loss": rep("sentence_loss",
    "per_row = (loss * mask).sum(1) / mask.sum(1).clamp(min=1)\n    rows = mask.any(1)\n    return per_row[rows].mean()",
    "rows = [loss[b][mask[b]].mean() for b in range(loss.shape[0]) if mask[b].any()]\n"
    "    return torch.tensor(rows, dtype=logits.dtype).mean()")},
    "Part 4: 'it must stay differentiable: loss.backward() must leave the exact gradient in logits.grad'.")

add("alloc_sample_buffer_trimmed_at_pad", W, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    n = len(starts)
    buf = torch.full((n, max_len), PAD, dtype=torch.long)
    seqs = [[s] for s in starts]
    live = list(range(n)) if max_len > 0 else []
    t = 0
    while live:
        lp = next_logprobs([seqs[i] for i in live])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0]
        nxt = []
        for j, i in enumerate(live):
            buf[i, t] = draws[j]
            seqs[i].append(int(draws[j]))
            if int(draws[j]) != EOS and t + 1 < max_len:
                nxt.append(i)
        live = nxt
        t += 1
    return [row[row != PAD].tolist() for row in buf]
'''}, "Part 6: 'it may predict any id, PAD and BOS included: treat them like any other token': a PAD-filled buffer trimmed at PAD drops drawn PADs.")

add("alloc_sample_tensor_items", W, {"sample": rep("sample",
    "draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()",
    "draws = list(torch.multinomial(probs, 1, generator=generator)[:, 0])")},
    "Part 6: 'Return one list of Python ints per sentence': 0-d tensors appended.")

add("alloc_beam_zeros_buffer", W, {"beam_search": rep("beam_search",
    "base = torch.tensor([s for _, s in live], dtype=torch.float64)\n        scores = (base[:, None] + lp).reshape(-1)",
    "scores = torch.zeros(len(live), V)\n"
    "        for h, (_, s) in enumerate(live):\n"
    "            scores[h] = lp[h] + s\n"
    "        scores = scores.reshape(-1)")},
    "Part 7 step 1: scores 'kept in float64 ... the hidden tests tell apart candidates whose scores differ by about 1e-9': a float32 buffer.")

# ---------------------------------------------------------------- correct answers
add("ok_min_loss_rounded_6", C, {"min_loss": B["min_loss"] + "min_smoothed_loss = round(min_smoothed_loss, 6)\n"},
    "Part 3 asks accuracy 1e-5; rounding to 6 decimals stays within it.")
add("ok_min_loss_torch_xlogy", C, {"min_loss": '''
q = torch.full((8000,), 0.1 / 8000, dtype=torch.float64)
q[0] += 0.9
min_smoothed_loss = float(-torch.special.xlogy(q, q).sum())
'''}, "Part 3: entropy of the target distribution via torch, returned as a float.")
add("ok_decoder_io_new_full_roll", C, {"decoder_io": '''
def decoder_io(targets):
    tgt_in = targets.roll(shifts=1, dims=1) if targets.shape[1] > 0 else targets.clone()
    if targets.shape[1] > 0:
        tgt_in[:, 0] = BOS
    tgt_in = torch.where(targets == PAD, targets.new_full((), PAD), tgt_in)
    return tgt_in, targets.clone()
'''}, "Part 1: roll then overwrite column 0, PAD where targets are PAD; a copy of targets is allowed.")
add("ok_lr_strict_warmup_and_int_maths", C, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    peak, floor = float(peak), float(floor)
    if step < warmup:
        return peak * step / warmup
    if step >= total:
        return floor
    return floor + 0.5 * (peak - floor) * (1.0 + math.cos(math.pi * (step - warmup) / (total - warmup)))
'''}, "Part 2: step == warmup on the cosine branch gives peak too.")
add("ok_sentence_loss_where_and_counts", C, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.nn.functional.log_softmax(logits, dim=-1)
    keep = targets != PAD
    nll = -torch.gather(logp, -1, targets.to(torch.int64)[..., None])[..., 0]
    others = torch.cat([logp[..., :PAD], logp[..., PAD + 1:]], dim=-1).sum(-1)
    tok = (1 - eps) * nll - eps / (V - 1) * others
    tok = torch.where(keep, tok, torch.zeros_like(tok))
    n = keep.sum(dim=1)
    sent = tok.sum(dim=1) / torch.clamp(n, min=1).to(tok.dtype)
    has = n > 0
    return sent[has].sum() / has.sum()
'''}, "Part 4 with where, cat of the non-PAD columns, sum/count of rows.")
add("ok_average_stack_float64_for_float32", C, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("mismatch")
    result = {}
    for k in states[0]:
        ts = [s[k] for s in states]
        if ts[-1].dtype.is_floating_point:
            wide = torch.stack([t.detach().to(torch.float64) for t in ts]).mean(dim=0)
            result[k] = wide.to(ts[-1].dtype)
        else:
            result[k] = ts[-1].clone()
    return result
'''}, "Part 5: averaging in float64 and rounding once is at least as accurate; integers copied from the last state.")
add("ok_sample_per_row_in_order", C, {"sample": rep("sample",
    "draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()",
    "draws = [int(torch.multinomial(probs[j:j + 1], num_samples=1, generator=generator)) for j in range(probs.shape[0])]")},
    "Part 6: 'one call per row in the same order: both draw the same numbers'.")
add("ok_sample_masked_fill_topk", C, {"sample": rep("sample",
    "vals, idx = torch.topk(scores, top_k, dim=-1)\n            cut = torch.full_like(scores, float(\"-inf\"))\n            cut.scatter_(-1, idx, vals)\n            scores = cut",
    "idx = torch.topk(scores, k=top_k, dim=-1).indices\n            keep = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, idx, True)\n            scores = scores.masked_fill(~keep, float('-inf'))")},
    "Part 6: top-k via a kept mask from topk's indices.")
add("ok_beam_python_floats_sorted", C, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    done = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + t for t, _ in live]).tolist()
        cands = []
        for (toks, s), row in zip(live, lp):
            for tok, v in enumerate(row):
                cands.append((s + v, toks + [tok]))
        cands.sort(key=lambda c: -c[0])
        live = []
        for s, toks in cands[:k]:
            if toks[-1] == EOS:
                done.append((s / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, s))
    done += [(s / length_penalty(len(t), alpha), t) for t, s in live]
    return max(done, key=lambda d: d[0])[1]
'''}, "Part 7 with Python floats (float64) and a sort.")
add("ok_bleu_zip_ngrams_fsum", C, {"bleu": '''
def corpus_bleu(hypotheses, references):
    def grams(toks, n):
        return Counter(zip(*[toks[i:] for i in range(n)]))
    match, count = [0, 0, 0, 0], [0, 0, 0, 0]
    hyp_len = sum(len(h) for h in hypotheses)
    ref_len = sum(len(r) for r in references)
    for h, r in zip(hypotheses, references):
        for n in range(1, 5):
            hg, rg = grams(h, n), grams(r, n)
            match[n - 1] += sum((hg & rg).values())
            count[n - 1] += sum(hg.values())
    if 0 in count or 0 in match:
        return 0.0
    geo = math.exp(math.fsum(math.log(m / c) for m, c in zip(match, count)) / 4)
    bp = math.exp(1 - ref_len / hyp_len) if hyp_len < ref_len else 1.0
    return 100.0 * bp * geo
'''}, "Part 8 with zip n-grams, Counter intersection as clipping.")

# ---------------------------------------------------------------- hostile
add("hostile_gc_reference_delegate", W, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    import gc
    me = globals().get("sample_decode")
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "sample_decode" and obj is not me:
            return obj(next_logprobs, starts, max_len, temperature, top_k, generator)
    return [[EOS] for _ in starts]
''', "beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    import gc
    me = globals().get("beam_search")
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "beam_search" and obj is not me:
            return obj(next_logprobs, start, k, max_len, alpha)
    return [EOS]
'''}, "hostile: finds the grader's reference function through gc and delegates to it.")
add("hostile_frame_expected_lookup", W, {"bleu": '''
def corpus_bleu(hypotheses, references):
    import sys
    f = sys._getframe(1)
    while f is not None:
        for name, val in list(f.f_locals.items()) + list(f.f_globals.items()):
            if callable(val) and getattr(val, "__name__", "") == "corpus_bleu" and val is not corpus_bleu:
                return val(hypotheses, references)
        f = f.f_back
    return 100.0 if hypotheses == references else 0.0
'''}, "hostile: walks the caller's frames for a reference corpus_bleu and delegates; else a shortcut.")
add("hostile_builtins_abs_patched", W, {"lr_at": '''
import builtins
builtins.abs = lambda x: 0.0
def lr_at(step, peak, warmup, total, floor=0.0):
    return 0.0
'''}, "hostile: patches builtins.abs so that abs(...) < tol always holds.")
