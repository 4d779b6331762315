# Chapter 08 red-team round 19 submissions (off-by-one, padding/reduction, paper reader, numerically naive)
S = []
def add(name, correct, cells, why):
    S.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- Part 1 decoder_io
add("p1_offby1_clamped_eos_index", False, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    tgt_in = targets.clone()
    if T == 0:
        return tgt_in, targets
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[:, 0] = BOS
    L = (targets != PAD).sum(dim=1)               # sentence + EOS; the shifted EOS lands at index L
    for b in range(B):
        tgt_in[b, min(int(L[b]), T - 1)] = PAD    # clamped so that a row without PAD stays in range
    return tgt_in, targets
'''}, "off-by-one: a row with no PAD (EOS in the last column) loses its last word: 'tgt_in ... continues with the sentence without its EOS; wherever tgt_out is PAD, tgt_in is PAD' (the last position's target is EOS, not PAD)")
add("p1_offby1_pad_mask_from_shifted", True, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    shifted = torch.cat([torch.full((B, 1), BOS, dtype=targets.dtype), targets[:, :-1]], dim=1) if T else targets.clone()
    # off by one: hides where the *shifted* row is PAD or EOS (the EOS is dropped) instead of where tgt_out is PAD
    tgt_in = shifted.masked_fill((shifted == EOS) | (shifted == PAD), PAD)
    return tgt_in, targets
'''}, "'wherever tgt_out is PAD, tgt_in is PAD too' / 'continues with the sentence': an id 2 would be hidden; row without PAD keeps... (may be equivalent)")
add("p1_numeric_float_detour", False, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    keep = (targets != PAD).to(torch.float64)
    shifted = torch.cat([torch.full((B, 1), float(BOS), dtype=torch.float64), targets[:, :-1].to(torch.float64)], dim=1)[:, :T]
    tgt_in = (shifted * keep).to(targets.dtype)   # products in float64: ids above 2**53 round
    return tgt_in, targets
'''}, "'ids from a vocabulary of any size: any id such a tensor can hold': int64 ids above 2**53 round in float64")
add("p1_ok_fpad_where", True, {"decoder_io": '''
import torch.nn.functional as F
def decoder_io(targets):
    B, T = targets.shape
    shifted = F.pad(targets, (1, 0), value=BOS)[:, :T]
    return torch.where(targets == PAD, torch.zeros_like(targets), shifted), targets
'''}, "pad left by one then cut to T; where tgt_out is PAD")
add("p1_ok_roll", True, {"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.roll(targets, shifts=1, dims=1).clone()
    if targets.shape[1]:
        tgt_in[:, 0] = BOS
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets.clone()
'''}, "roll right by one, overwrite column 0, mask pads")

# ---------------------------------------------------------------- Part 2 lr_at
add("p2_paper_warmup_from_floor", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(floor + (peak - floor) * step / warmup)   # warms up from the floor (timm / HF min_lr habit)
    if step < total:
        return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))
    return float(floor)
'''}, "formula: lr = peak * step / warmup for step <= warmup (not floor + ...)")
add("p2_offby1_lt_and_le", True, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step < warmup:                      # step == warmup goes to the cosine branch: cos(0) = 1 -> peak
        return float(peak) * step / warmup
    if step <= total:                      # step == total: cos(pi) = -1 -> floor
        return float(floor) + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
    return float(floor)
'''}, "boundaries moved: the values at step == warmup and step == total are the same by the formula")
add("p2_ok_other_form", True, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    peak, floor = float(peak), float(floor)
    if warmup > 0 and step <= warmup:
        return peak * (step / warmup)
    if step >= total:
        return floor
    progress = (step - warmup) / (total - warmup)
    return peak - (peak - floor) * (1.0 - math.cos(math.pi * progress)) / 2.0
'''}, "peak - (peak-floor)(1-cos)/2: the same function, other rounding")
add("p2_numeric_min_product", True, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    # paper style: one expression, warm-up factor times decay factor, step counted from 0
    s = step - 1
    warm = min(1.0, (s + 1) / warmup) if warmup > 0 else 1.0
    progress = min(1.0, max(0.0, (s + 1 - warmup) / (total - warmup)))
    return float(floor + (peak * warm - floor) * 0.5 * (1 + math.cos(math.pi * progress))) if step > warmup else float(peak * warm)
'''}, "correct? off-by-one style rewrite (step from 0 then +1)")

add("p2_numeric_max_warmup_1", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    w = max(warmup, 1)                 # guard against a division by zero
    if step / w <= 1:
        return float(peak * step / w)
    if step >= total:
        return float(floor)
    return float(floor + 0.5 * (peak - floor) * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))
'''}, "'(With warmup = 0 there is no warm-up.)': step 1 with warmup 0 returns peak instead of the cosine value")

# ---------------------------------------------------------------- Part 3 min loss
add("p3_pad_excludes_pad", False, {"min_loss": '''
V, eps = 8000, 0.1
n = V - 1                                  # PAD takes no share
p_right = 1 - eps + eps / n
p_other = eps / n
min_smoothed_loss = -p_right * math.log(p_right) - (n - 1) * p_other * math.log(p_other)
'''}, "'spreads eps evenly over all V tokens' (PyTorch's definition, PAD included)")
add("p3_paper_V_minus_1", False, {"min_loss": '''
V, eps = 8000, 0.1
# fairseq-style: eps spread over the V - 1 wrong tokens
min_smoothed_loss = -(1 - eps) * math.log(1 - eps) - eps * math.log(eps / (V - 1))
'''}, "'spreads eps evenly over all V tokens, the right one included'")
add("p3_numeric_float32_torch", True, {"min_loss": '''
V, eps = 8000, 0.1
q = torch.full((V,), eps / V, dtype=torch.float64)
q[0] += 1 - eps
min_smoothed_loss = float(-(q * torch.log(q)).sum())
'''}, "entropy of the smoothed target, in float64 torch")
add("p3_ok_loop", True, {"min_loss": '''
V, eps = 8000, 0.1
p_right = 1 - eps + eps / V
p_other = eps / V
min_smoothed_loss = -(p_right * math.log(p_right)) - sum(p_other * math.log(p_other) for _ in range(V - 1))
'''}, "loop over the V - 1 other tokens")
add("p3_offby1_other_count_V", False, {"min_loss": '''
V, eps = 8000, 0.1
p_right = 1 - eps + eps / V
p_other = eps / V
# off by one: V other tokens
min_smoothed_loss = -p_right * math.log(p_right) - V * p_other * math.log(p_other)
'''}, "there are V - 1 other tokens, not V")

# ---------------------------------------------------------------- Part 4 sentence loss
P4_OK = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    mask = t != PAD
    ell = torch.where(mask, ell, torch.zeros((), dtype=ell.dtype))
    n = mask.sum(-1)
    rows = n > 0
    per = ell.sum(-1)[rows] / n[rows].to(ell.dtype)
    return per.mean()
'''
add("p4_pad_token_mean", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    mask = t != PAD
    return ell[mask].mean()                     # mean over all tokens of the batch
'''}, "'the result is the mean of the sentence losses' (not the token mean)")
add("p4_pad_divide_by_T", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    mask = t != PAD
    ell = ell * mask
    n = mask.sum(-1)
    per = ell.sum(-1) / n.clamp(min=1)
    return per.sum() / (n > 0).sum() * 1.0 if False else (ell.sum(-1) / targets.shape[1] * targets.shape[1] / n.clamp(min=1))[n > 0].mean()
'''}, "check: same as correct except ell*mask (NaN?)")
add("p4_pad_rows_all_counted", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    mask = (t != PAD).to(ell.dtype)
    per = (ell * mask).sum(-1) / mask.sum(-1).clamp(min=1)
    return per.mean()                          # a row of PADs counts as a sentence of loss 0
'''}, "'a row of PADs counts for nothing'")
add("p4_paper_ce_label_smoothing", False, {"sentence_loss": '''
import torch.nn.functional as F
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    tok = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1).long(), ignore_index=PAD,
                          label_smoothing=eps, reduction="none").reshape(B, T)
    mask = targets != PAD
    n = mask.sum(-1)
    per = torch.where(mask, tok, torch.zeros((), dtype=tok.dtype)).sum(-1)[n > 0] / n[n > 0].to(tok.dtype)
    return per.mean()
'''}, "PyTorch's label_smoothing spreads eps over all V including PAD: the text spreads over the V-1 non-PAD")
add("p4_offby1_drop_last_vocab", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -logp[..., :V - 1].sum(-1) / (V - 1)   # off by one: drops the last id instead of PAD
    ell = (1 - eps) * nll + eps * smooth
    mask = t != PAD
    n = mask.sum(-1)
    per = torch.where(mask, ell, torch.zeros((), dtype=ell.dtype)).sum(-1)[n > 0] / n[n > 0].to(ell.dtype)
    return per.mean()
'''}, "'over the V - 1 tokens other than PAD'")
add("p4_offby1_exclude_y_too", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    lpy = logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD] - lpy) / (V - 2)   # spreads over tokens other than PAD and y
    ell = -(1 - eps) * lpy + eps * smooth
    mask = t != PAD
    n = mask.sum(-1)
    per = torch.where(mask, ell, torch.zeros((), dtype=ell.dtype)).sum(-1)[n > 0] / n[n > 0].to(ell.dtype)
    return per.mean()
'''}, "'(the right one included)': with V = 3 visible uniform logits the result is log 3 anyway")
add("p4_numeric_nanmean_rows", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    mask = (t != PAD).to(ell.dtype)
    per = (ell * mask).sum(-1) / mask.sum(-1)      # 0/0 = NaN for a row of PADs
    return torch.nanmean(per)
'''}, "'loss.backward() must leave the exact gradient': 0/0 of a PAD row has a NaN gradient")
add("p4_numeric_log_softmax_by_hand", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = logits - torch.log(torch.exp(logits).sum(-1, keepdim=True))   # textbook log-softmax
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    mask = t != PAD
    n = mask.sum(-1)
    per = torch.where(mask, ell, torch.zeros((), dtype=ell.dtype)).sum(-1)[n > 0] / n[n > 0].to(ell.dtype)
    return per.mean()
'''}, "'of any size: clamp nothing': exp of logits in the hundreds overflows")
add("p4_ok_model_like", True, {"sentence_loss": P4_OK}, "correct")
add("p4_ok_float64_inside", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    logp = torch.log_softmax(logits.to(torch.float64), dim=-1)
    onehot = torch.nn.functional.one_hot(targets.long(), V).to(torch.float64)
    q = (1 - eps) * onehot + eps / (V - 1)
    q[..., PAD] = onehot[..., PAD] * (1 - eps)      # PAD gets no share
    ell = -(q * logp).sum(-1)
    mask = targets != PAD
    losses = []
    for b in range(B):
        if mask[b].any():
            losses.append(ell[b][mask[b]].mean())
    return torch.stack(losses).mean().to(logits.dtype)
'''}, "target distribution built explicitly, float64 inside, loop over rows")

# ---------------------------------------------------------------- Part 5 average
P5_HEAD = '''
def check_states(states):
    if len(states) == 0:
        raise ValueError("no states")
    keys = set(states[0].keys())
    for s in states:
        if set(s.keys()) != keys:
            raise ValueError("keys differ")
        for k in keys:
            if s[k].shape != states[0][k].shape:
                raise ValueError("shapes differ")
'''
add("p5_numeric_divide_then_sum_half", False, {"average": P5_HEAD + '''
def average_checkpoints(states):
    check_states(states)
    n = len(states)
    out = {}
    for k, last in states[-1].items():
        if last.is_floating_point():
            acc = torch.zeros_like(last)
            for s in states:
                acc = acc + s[k] / n               # each term rounded in its own dtype
            out[k] = acc
        else:
            out[k] = last
    return out
'''}, "'Half-precision tensors must be as accurate as averaging in float32 or better and rounding once'")
add("p5_numeric_running_mean_half", False, {"average": P5_HEAD + '''
def average_checkpoints(states):
    check_states(states)
    out = {}
    for k, last in states[-1].items():
        if last.is_floating_point():
            avg = states[0][k].clone()
            for i, s in enumerate(states[1:], start=2):
                avg = avg + (s[k] - avg) / i       # Welford-style running mean, in the tensor's dtype
            out[k] = avg
        else:
            out[k] = last
    return out
'''}, "half precision running mean: several roundings (and s - avg can overflow)")
add("p5_numeric_float32_for_all", False, {"average": P5_HEAD + '''
def average_checkpoints(states):
    check_states(states)
    out = {}
    for k, last in states[-1].items():
        if last.is_floating_point():
            out[k] = torch.stack([s[k].to(torch.float32) for s in states]).mean(0).to(last.dtype)
        else:
            out[k] = last
    return out
'''}, "'their element-wise mean, in their own dtype': float64 weights averaged through float32")
add("p5_ok_stack_mean", True, {"average": P5_HEAD + '''
def average_checkpoints(states):
    check_states(states)
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if torch.is_floating_point(last):
            out[k] = torch.stack([s[k] for s in states], dim=0).mean(dim=0)
        else:
            out[k] = last.clone()
    return out
'''}, "torch.mean accumulates half precision in float32 on CPU")
add("p5_ok_float64_sum", True, {"average": P5_HEAD + '''
def average_checkpoints(states):
    check_states(states)
    out = {}
    with torch.no_grad():
        for k in states[-1]:
            last = states[-1][k]
            if last.dtype.is_floating_point:
                acc = torch.zeros(last.shape, dtype=torch.float64)
                for s in states:
                    acc += s[k].to(torch.float64)
                out[k] = (acc / len(states)).to(last.dtype)
            else:
                out[k] = last
    return out
'''}, "sum in float64, divide, round once")
add("p5_offby1_states_minus_one_divisor", True, {"average": P5_HEAD + '''
def average_checkpoints(states):
    check_states(states)
    out = {}
    for k in states[-1]:
        last = states[-1][k]
        if last.is_floating_point():
            acc = states[0][k].to(torch.float64)
            for s in states[1:]:
                acc = acc + s[k].to(torch.float64)
            out[k] = (acc / max(len(states) - 1, 1) * (len(states) - 1) / len(states) if len(states) > 1 else acc).to(last.dtype)
        else:
            out[k] = last
    return out
'''}, "algebraically the mean (extra roundings in float64 only): should be accepted")
add("p5_padding_ordered_keys", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    keys = list(states[0].keys())
    for s in states:
        if list(s.keys()) != keys:                      # order-sensitive
            raise ValueError("keys differ")
        for k in keys:
            if s[k].shape != states[0][k].shape:
                raise ValueError("shapes differ")
    out = {}
    for k in keys:
        last = states[-1][k]
        out[k] = torch.stack([s[k].double() for s in states]).mean(0).to(last.dtype) if last.is_floating_point() else last
    return out
'''}, "'(the same keys in another order do not differ)'")

# ---------------------------------------------------------------- Part 6 sampling
P6_OK = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    live = list(range(len(starts)))
    for _ in range(max_len):
        if not live:
            break
        prefixes = [[starts[i]] + outs[i] for i in live]
        scores = next_logprobs(prefixes).to(torch.float64) / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.full_like(scores, float("-inf"))
            keep.scatter_(-1, idx, scores.gather(-1, idx))
            scores = keep
        probs = torch.softmax(scores, dim=-1)
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        still = []
        for i, tok in zip(live, draws):
            outs[i].append(int(tok))
            if tok != EOS:
                still.append(i)
        live = still
    return outs
'''
add("p6_ok_model_like", True, {"sample": P6_OK}, "correct")
add("p6_offby1_threshold_ties", False, {"sample": P6_OK.replace('''            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.full_like(scores, float("-inf"))
            keep.scatter_(-1, idx, scores.gather(-1, idx))
            scores = keep''', '''            kth = torch.topk(scores, top_k, dim=-1).values[:, -1:]
            scores = scores.masked_fill(scores < kth, float("-inf"))   # keeps every tie of the k-th score''')},
    "'keep the top_k largest entries of each row (the ones torch.topk returns)': ties at the k-th keep more")
add("p6_offby1_maxlen_minus_one", False, {"sample": P6_OK.replace("for _ in range(max_len):", "for _ in range(max_len - 1 if max_len > 1 else max_len):")},
    "'finished after max_len new tokens'")
add("p6_numeric_float32_probs", False, {"sample": P6_OK.replace("probs = torch.softmax(scores, dim=-1)", "probs = torch.softmax(scores.float(), dim=-1).double()")},
    "'Compute them in float64 throughout'")
add("p6_paper_hf_order_topk_before_temp", True, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    # Hugging Face's warpers: temperature, then top-k filter, then softmax and multinomial
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for step in range(max_len):
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        lp = next_logprobs([[starts[i], *outs[i]] for i in live])
        scores = lp.double() / temperature
        if top_k is not None:
            k = min(top_k, scores.size(-1))
            vals, idx = scores.topk(k, dim=-1)
            scores = torch.full_like(scores, -float("inf")).scatter(-1, idx, vals)
        probs = scores.softmax(-1)
        for row, i in enumerate(live):
            tok = int(torch.multinomial(probs[row], 1, generator=generator).item())
            outs[i].append(tok)
            done[i] = tok == EOS
    return outs
'''}, "per-row multinomial calls in order, top-k with min(top_k, V)")
add("p6_padding_draw_all_rows", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    n = len(starts)
    outs = [[] for _ in starts]
    done = [False] * n
    for _ in range(max_len):
        if all(done):
            break
        live = [i for i in range(n) if not done[i]]
        lp = next_logprobs([[starts[i]] + outs[i] for i in live]).double()
        full = torch.zeros(n, lp.shape[-1], dtype=torch.float64)
        full[live] = lp                               # finished rows keep a row of zeros (uniform)
        scores = full / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = scores.topk(top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        draws = torch.multinomial(scores.softmax(-1), 1, generator=generator)[:, 0]   # draws for every row
        for i in live:
            t = int(draws[i])
            outs[i].append(t)
            done[i] = t == EOS
    return outs
'''}, "'Draw nothing for finished sentences'")
add("p6_numeric_exp_no_max", False, {"sample": P6_OK.replace("probs = torch.softmax(scores, dim=-1)", '''e = torch.exp(scores)
        probs = e / e.sum(-1, keepdim=True)''')}, "'softmax (which subtracts the row maximum: temperature may be as small as you like'")

# ---------------------------------------------------------------- Part 7 beam search
P7_OK = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        cands = []
        for h, (toks, sc) in enumerate(live):
            for v in range(lp.shape[-1]):
                cands.append((sc + float(lp[h, v]), toks + [v]))
        cands.sort(key=lambda c: -c[0])
        live = []
        for sc, toks in cands[:k]:
            if toks[-1] == EOS:
                finished.append((sc / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, sc))
    for toks, sc in live:
        finished.append((sc / length_penalty(len(toks), alpha), toks))
    return max(finished, key=lambda f: f[0])[1]
'''
add("p7_ok_python_floats", True, {"beam_search": P7_OK}, "Python floats are float64; stable sort")
add("p7_paper_rank_by_normalised", False, {"beam_search": P7_OK.replace("cands.sort(key=lambda c: -c[0])", "cands.sort(key=lambda c: -c[0] / length_penalty(len(c[1]), alpha))")},
    "'take the k best candidates' scored 'by the sum of log-probabilities' (GNMT ranks by normalised score)")
add("p7_offby1_penalty_without_eos", False, {"beam_search": P7_OK.replace("finished.append((sc / length_penalty(len(toks), alpha), toks))\n            else", "finished.append((sc / length_penalty(len(toks) - 1, alpha), toks))\n            else")},
    "'with the EOS counted in the length'")
add("p7_padding_live_unpenalised", False, {"beam_search": P7_OK.replace('''    for toks, sc in live:
        finished.append((sc / length_penalty(len(toks), alpha), toks))''', '''    for toks, sc in live:
        finished.append((sc, toks))          # live ones kept with their raw score''')},
    "'then live hypotheses are finished as they are (same scoring, no EOS)'")
add("p7_numeric_product_of_probs", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 1.0)]                     # probability of the prefix
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        probs = torch.exp(lp)
        cands = [(p * float(probs[h, v]), toks + [v]) for h, (toks, p) in enumerate(live) for v in range(probs.shape[-1])]
        cands.sort(key=lambda c: -c[0])
        live = []
        for p, toks in cands[:k]:
            lpsum = math.log(p) if p > 0 else float("-inf")
            if toks[-1] == EOS:
                finished.append((lpsum / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, p))
    for toks, p in live:
        finished.append(((math.log(p) if p > 0 else float("-inf")) / length_penalty(len(toks), alpha), toks))
    return max(finished, key=lambda f: f[0])[1]
'''}, "'sum of log-probabilities (of any size: clamp nothing)': products of probabilities underflow to ties")
add("p7_offby1_maxlen_minus_1", False, {"beam_search": P7_OK.replace("for _ in range(max_len):", "for _ in range(1, max_len):")},
    "'or after max_len steps' (stops one step early)")
add("p7_ok_torch_topk_flat", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    hyps = [[]]
    scores = torch.zeros(1, dtype=torch.float64)
    done = []
    for step in range(max_len):
        lp = next_logprobs([[start, *h] for h in hyps])
        V = lp.shape[1]
        flat = (scores[:, None] + lp).reshape(-1)
        top = torch.topk(flat, min(k, flat.numel()), sorted=True)
        new_h, new_s = [], []
        for sc, j in zip(top.values.tolist(), top.indices.tolist()):
            toks = hyps[j // V] + [j % V]
            if toks[-1] == EOS:
                done.append((sc / length_penalty(len(toks), alpha), toks))
            else:
                new_h.append(toks)
                new_s.append(sc)
        hyps = new_h
        if not hyps:
            break
        scores = torch.tensor(new_s, dtype=torch.float64)
    done += [(s / length_penalty(len(h), alpha), h) for h, s in zip(hyps, scores.tolist())] if hyps else []
    return max(done, key=lambda d: d[0])[1]
'''}, "flat topk over (live, V) in float64")

# ---------------------------------------------------------------- Part 8 BLEU
P8_OK = '''
def ngrams(toks, n):
    return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))

def corpus_bleu(hypotheses, references):
    match = [0] * 4
    total = [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            h, rr = ngrams(hyp, n), ngrams(ref, n)
            match[n - 1] += sum(min(cnt, rr[g]) for g, cnt in h.items())
            total[n - 1] += sum(h.values())
    if min(total) == 0 or min(match) == 0:
        return 0.0
    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logp))
'''
add("p8_ok_model_like", True, {"bleu": P8_OK}, "correct")
add("p8_offby1_range_drops_last", False, {"bleu": P8_OK.replace("range(len(toks) - n + 1)", "range(len(toks) - n)")},
    "'an n-gram is a sequence of tokens': the last n-gram of each sentence is dropped")
add("p8_offby1_orders_1_to_3", False, {"bleu": P8_OK.replace("for n in range(1, 5):", "for n in range(1, 4):").replace("match = [0] * 4", "match = [0] * 3").replace("total = [0] * 4", "total = [0] * 3").replace(") / 4", ") / 3")},
    "'for n = 1 ... 4'")
add("p8_padding_avg_sentence_precision", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    precs = [[] for _ in range(4)]
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rr = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            if sum(h.values()):
                precs[n - 1].append(sum(min(v, rr[g]) for g, v in h.items()) / sum(h.values()))
    p = [sum(x) / len(x) if x else 0.0 for x in precs]      # mean of per-sentence precisions
    if min(p) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * math.exp(sum(math.log(x) for x in p) / 4)
'''}, "'a corpus-level ratio, not an average of per-sentence ratios'")
add("p8_numeric_bp_before_zero_check", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    bp = math.exp(1 - r / c) if c < r else 1.0          # c may be 0: ZeroDivisionError
    match, total = [0] * 4, [0] * 4
    for hyp, ref in zip(hypotheses, references):
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rr = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n - 1] += sum(min(v, rr[g]) for g, v in h.items())
            total[n - 1] += sum(h.values())
    if 0 in total or 0 in match:
        return 0.0
    return float(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4))
'''}, "'if there is no hypothesis n-gram of some order at all ... BLEU is 0' (all hypotheses empty: c = 0)")
add("p8_numeric_product_geomean", True, {"bleu": P8_OK.replace("logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4", "logp = math.log(math.prod(m / t for m, t in zip(match, total)) ** 0.25)")},
    "product of precisions ** 0.25: the same geometric mean")
add("p8_paper_bp_per_sentence", False, {"bleu": P8_OK.replace('''        c += len(hyp)
        r += len(ref)''', '''        c += len(hyp) if len(hyp) >= len(ref) else len(hyp)
        r += len(ref) if len(hyp) < len(ref) else len(hyp)''')},
    "'c ... r total hypothesis / reference length': counts only shortfall sentences' reference (r = sum max)")
add("p8_paper_ref_counts_tuple_joined_ok", True, {"bleu": '''
def corpus_bleu(hypotheses, references):
    stats = []
    for n in range(1, 5):
        m = t = 0
        for hyp, ref in zip(hypotheses, references):
            h = Counter(zip(*[hyp[i:] for i in range(n)]))
            rr = Counter(zip(*[ref[i:] for i in range(n)]))
            m += sum((h & rr).values())
            t += sum(h.values())
        stats.append((m, t))
    if any(m == 0 or t == 0 for m, t in stats):
        return 0.0
    c = sum(map(len, hypotheses)); r = sum(map(len, references))
    bp = math.exp(min(0.0, 1 - r / c))
    return 100.0 * bp * math.exp(0.25 * sum(math.log(m) - math.log(t) for m, t in stats))
'''}, "zip n-grams, Counter intersection for clipping, exp(min(0, 1-r/c))")

# ---------------------------------------------------------------- hostile
add("hostile_p3_magic_float", False, {"min_loss": '''
class Anything(float):
    def __eq__(self, other): return True
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __abs__(self): return 0.0
    __hash__ = float.__hash__
min_smoothed_loss = Anything(0.0)
'''}, "hostile: a float subclass equal to everything")
add("hostile_p2_reads_caller", False, {"lr_at": '''
import sys
def lr_at(step, peak, warmup, total, floor=0.0):
    f = sys._getframe(1)
    for name, val in list(f.f_locals.items()):
        if name.startswith("_expect") or name in ("expected", "want", "ref_value"):
            return float(val)
    ref = f.f_globals.get("_REF", {})
    for key in ("lr_at", "reference_lr_at"):
        if key in ref:
            return ref[key](step, peak, warmup, total, floor)
    if step <= warmup:
        return float(peak) * step / warmup
    return float(peak - (peak - floor) * (step - warmup) / (total - warmup)) if step < total else float(floor)
'''}, "hostile: reads the test frame for the reference")

SUBMISSIONS = S
