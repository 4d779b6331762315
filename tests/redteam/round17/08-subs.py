BASE = {}
BASE["decoder_io"] = '''
def decoder_io(targets):
    tgt_in = targets.clone()
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[:, :1] = BOS
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''
BASE["lr_at"] = '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step < total:
        return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))
    return float(floor)
'''
BASE["min_loss"] = '''
V, e = 8000, 0.1
a, b = 1 - e + e / V, e / V
min_smoothed_loss = -(a * math.log(a) + (V - 1) * b * math.log(b))
'''
BASE["sentence_loss"] = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    mask = t != PAD
    ell = torch.where(mask, ell, torch.zeros((), dtype=ell.dtype))
    count = mask.sum(-1)
    has = count > 0
    per = ell.sum(-1)[has] / count[has].to(ell.dtype)
    return per.mean()
'''
BASE["average"] = '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    keys = set(states[0].keys())
    for s in states:
        if set(s.keys()) != keys:
            raise ValueError("keys differ")
        for name in keys:
            if s[name].shape != states[0][name].shape:
                raise ValueError("shapes differ")
    out = {}
    for name in states[0]:
        last = states[-1][name]
        if last.is_floating_point():
            acc_dtype = torch.float32 if last.dtype in (torch.float16, torch.bfloat16) else last.dtype
            total = torch.zeros(last.shape, dtype=acc_dtype)
            for s in states:
                total = total + s[name].to(acc_dtype)
            out[name] = (total / len(states)).to(last.dtype)
        else:
            out[name] = last.clone()
    return out
'''
BASE["sample"] = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    prefixes = [[int(s)] for s in starts]
    outs = [[] for _ in starts]
    live = list(range(len(starts)))
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([prefixes[i] for i in live]).to(torch.float64) / temperature
        V = lp.shape[-1]
        if top_k is not None and top_k < V:
            vals, idx = torch.topk(lp, top_k, dim=-1)
            cut = torch.full_like(lp, float("-inf"))
            lp = cut.scatter(-1, idx, vals)
        probs = torch.softmax(lp, dim=-1)
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(live, draws):
            outs[i].append(int(t))
            prefixes[i].append(int(t))
        live = [i for i in live if outs[i][-1] != EOS]
    return outs
'''
BASE["beam_search"] = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live]).to(torch.float64)
        cands = []
        for h, (toks, sc) in enumerate(live):
            row = lp[h].tolist()
            for v, x in enumerate(row):
                cands.append((sc + x, toks + [v]))
        cands.sort(key=lambda c: -c[0])
        live = []
        for sc, toks in cands[:k]:
            if toks[-1] == EOS:
                finished.append((sc / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, sc))
    for toks, sc in live:
        finished.append((sc / length_penalty(len(toks), alpha), toks))
    best = max(finished, key=lambda f: f[0])
    return [int(t) for t in best[1]]
'''
BASE["bleu"] = '''
def corpus_bleu(hypotheses, references):
    match = [0] * 4
    total = [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n - 1] += sum(min(cnt, rf[g]) for g, cnt in h.items())
            total[n - 1] += max(len(hyp) - n + 1, 0)
    if min(total) == 0 or min(match) == 0:
        return 0.0
    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logp))
'''

B = BASE
def sub(gid, old, new, count=1):
    src = B[gid]
    assert old in src, (gid, old)
    return src.replace(old, new, count)
S = []
def add(name, correct, cells, why):
    S.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- wrong: defensive ----------------
add("def_p1_long", False, {"decoder_io": sub("decoder_io", "    tgt_in = targets.clone()", "    targets = targets.long()  # embeddings want int64\n    tgt_in = targets.clone()")},
    "P1: 'two integer tensors of shape (B, T) and of the dtype of targets' (int32 comes back int64)")
add("def_p1_refuse_empty", False, {"decoder_io": sub("decoder_io", "    tgt_in = targets.clone()", "    if targets.dim() != 2 or targets.shape[1] < 1:\n        raise ValueError('targets must be (B, T) with T >= 1')\n    tgt_in = targets.clone()")},
    "P1: 'B may be 0 (an empty batch, whose T may be 0 too ...: return two (0, T) tensors)'")
add("def_p2_warmup_guard", False, {"lr_at": sub("lr_at", "    if step <= warmup:", "    warmup = max(warmup, 1)  # no division by zero\n    if step <= warmup:")},
    "P2: '(With warmup = 0 there is no warm-up.)' step 1 then takes the cosine branch, not peak")
add("def_p2_round", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        lr = peak * step / warmup
    elif step < total:
        lr = floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
    else:
        lr = floor
    return float(round(lr, 10))  # no float noise
'''}, "P2: the formula fixes lr exactly ('returning a Python float'); rounding to 10 decimals changes small rates")
add("def_p3_clamp_log", False, {"min_loss": '''
V, e = 8000, 0.1
t = torch.full((V,), e / V, dtype=torch.float64)
t[0] += 1 - e
min_smoothed_loss = float(-(t * t.clamp(min=1e-4).log()).sum())   # clamp before the log
'''}, "P3: 'the smallest per-token loss ... accurate to 1e-5' (clamping e/V = 1.25e-5 to 1e-4 inside the log)")
add("def_p4_float", False, {"sentence_loss": sub("sentence_loss", "    logp = torch.log_softmax(logits, dim=-1)", "    logp = torch.log_softmax(logits.float(), dim=-1)  # float32 to be safe")},
    "P4: 'Return a 0-dimensional tensor of the dtype of logits (float32 or float64)'")
add("def_p4_clamp_count_all_rows", False, {"sentence_loss": sub("sentence_loss", "    has = count > 0\n    per = ell.sum(-1)[has] / count[has].to(ell.dtype)\n    return per.mean()", "    per = ell.sum(-1) / count.clamp(min=1).to(ell.dtype)  # no division by zero\n    return per.mean()")},
    "P4: 'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)'")
add("def_p5_strict_key_order", False, {"average": sub("average", "        if set(s.keys()) != keys:", "        if list(s.keys()) != list(states[0].keys()):")},
    "P5: 'the same keys in another order do not differ'")
add("def_p5_refuse_empty_state", False, {"average": sub("average", "    keys = set(states[0].keys())", "    if any(len(s) == 0 for s in states):\n        raise ValueError('empty state dict')\n    keys = set(states[0].keys())")},
    "P5: 'nothing else raises: states with no entries ... are averaged like any others'")
add("def_p6_clamp_probs", False, {"sample": sub("sample", "        probs = torch.softmax(lp, dim=-1)", "        probs = torch.softmax(lp, dim=-1).clamp(min=1e-12)\n        probs = probs / probs.sum(-1, keepdim=True)")},
    "P6 step 2/3: cut entries are set to -inf (probability 0) and 'the hidden tests compare the probabilities you pass'")
add("def_p6_min_temperature", False, {"sample": sub("sample", "    prefixes = [[int(s)] for s in starts]", "    temperature = max(temperature, 1e-2)  # avoid dividing by ~0\n    prefixes = [[int(s)] for s in starts]")},
    "P6: 'temperature (> 0)... at every temperature however small'")
add("def_p7_alpha_nonneg", False, {"beam_search": sub("beam_search", "    live = [([], 0.0)]", "    alpha = max(alpha, 0.0)  # a negative penalty makes no sense\n    live = [([], 0.0)]")},
    "P7: 'alpha may be any real number ... a negative alpha favours short hypotheses'")
add("def_p8_floor_log", False, {"bleu": sub("bleu", "    if min(total) == 0 or min(match) == 0:\n        return 0.0\n    logp = sum(math.log(m / t)", "    if min(total) == 0:\n        return 0.0\n    logp = sum(math.log(max(m / t, 1e-16))")},
    "P8: 'if any of the four precisions is 0 ... BLEU is 0' (floored log gives a tiny positive score)")
add("def_p8_lower", False, {"bleu": sub("bleu", "    for hyp, ref in zip(hypotheses, references):\n", "    for hyp, ref in zip(hypotheses, references):\n        hyp = [t.lower() for t in hyp]\n        ref = [t.lower() for t in ref]\n")},
    "P8: 'tokens are compared exactly as given (case-sensitive: The and the differ)'")

# ---------------- wrong: high-level library user ----------------
add("lib_p1_F_pad", False, {"decoder_io": '''
def decoder_io(targets):
    shifted = torch.nn.functional.pad(targets[:, :-1], (1, 0), value=BOS)
    return shifted.masked_fill(targets == PAD, PAD), targets
'''}, "P1: 'B may be 0 ... T may be 0 too: return two (0, T) tensors' (F.pad makes (0, 1))")
add("lib_p1_pad_sequence", False, {"decoder_io": '''
def decoder_io(targets):
    rows = []
    for row in targets:
        eos = int((row == EOS).nonzero()[0])
        rows.append(torch.cat([torch.tensor([BOS], dtype=targets.dtype), row[:eos]]))
    tgt_in = torch.nn.utils.rnn.pad_sequence(rows, batch_first=True, padding_value=PAD)
    tgt_in = torch.nn.functional.pad(tgt_in, (0, targets.shape[1] - tgt_in.shape[1]), value=PAD)
    return tgt_in, targets
'''}, "P1: 'two integer tensors of shape (B, T)' (pad_sequence of an empty batch raises)")
add("lib_p2_tensor_return", False, {"lr_at": sub("lr_at", "        return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))",
    "        x = torch.tensor((step - warmup) / (total - warmup), dtype=torch.float64)\n        return floor + (peak - floor) / 2 * (1 + torch.cos(torch.pi * x))")},
    "P2: 'returning a Python float on every branch'")
add("lib_p3_confident_logits", False, {"min_loss": '''
V = 8000
logits = torch.zeros(1, V, dtype=torch.float64)
logits[0, 5] = 30.0    # a model that is sure of the right token
min_smoothed_loss = torch.nn.functional.cross_entropy(logits, torch.tensor([5]), label_smoothing=0.1).item()
'''}, "P3: 'the smallest per-token loss ... that any model can reach, whatever the logits'")
add("lib_p4_ce_label_smoothing", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    ell = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets.long(), ignore_index=PAD,
                                            label_smoothing=eps, reduction="none")
    mask = targets != PAD
    count = mask.sum(-1)
    has = count > 0
    return (ell.sum(-1)[has] / count[has].to(ell.dtype)).mean()
'''}, "P4: 'spreads eps evenly over the V - 1 tokens other than PAD (PAD ... gets no share)' (label_smoothing spreads over all V)")
add("lib_p5_python_sum", False, {"average": sub("average", "            acc_dtype = torch.float32 if last.dtype in (torch.float16, torch.bfloat16) else last.dtype\n            total = torch.zeros(last.shape, dtype=acc_dtype)\n            for s in states:\n                total = total + s[name].to(acc_dtype)\n            out[name] = (total / len(states)).to(last.dtype)",
    "            out[name] = sum(s[name] for s in states) / len(states)")},
    "P5: 'Half-precision tensors must be as accurate as averaging in float32 ... the hidden tests average float16 weights whose sum does not fit in float16'")
add("lib_p6_sharpen_probs", False, {"sample": sub("sample", "        probs = torch.softmax(lp, dim=-1)", "        probs = torch.softmax(lp * temperature, dim=-1) ** (1.0 / temperature)  # sharpen the model's distribution\n        probs = probs / probs.sum(-1, keepdim=True)")},
    "P6 step 3: 'turn each row into probabilities with a softmax (which subtracts the row maximum: temperature may be small, 1e-4 say, where exp of every score over it underflows to 0)'")
add("lib_p6_topk_on_probs", False, {"sample": sub("sample", "        if top_k is not None and top_k < V:\n            vals, idx = torch.topk(lp, top_k, dim=-1)\n            cut = torch.full_like(lp, float(\"-inf\"))\n            lp = cut.scatter(-1, idx, vals)\n        probs = torch.softmax(lp, dim=-1)",
    "        probs = torch.softmax(lp, dim=-1)\n        if top_k is not None and top_k < V:\n            vals, idx = torch.topk(probs, top_k, dim=-1)\n            probs = torch.zeros_like(probs).scatter(-1, idx, vals)\n            probs = probs / probs.sum(-1, keepdim=True)")},
    "P6: 'make the cut on the divided scores themselves, not on their probabilities'")
add("lib_p7_topk_float32", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        V = lp.shape[-1]
        scores = torch.tensor([sc for _, sc in live]).unsqueeze(1) + lp.float()
        best, idx = torch.topk(scores.flatten(), min(k, scores.numel()))
        new_live = []
        for sc, i in zip(best.tolist(), idx.tolist()):
            toks = live[i // V][0] + [i % V]
            if toks[-1] == EOS:
                finished.append((sc / length_penalty(len(toks), alpha), toks))
            else:
                new_live.append((toks, sc))
        live = new_live
    for toks, sc in live:
        finished.append((sc / length_penalty(len(toks), alpha), toks))
    return max(finished, key=lambda f: f[0])[1]
'''}, "P7: scores 'kept in float64 ... from step to step (a torch.tensor of Python floats gets float32 by default)'")
add("lib_p8_joined_ngrams", False, {"bleu": sub("bleu", "            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))\n            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))",
    "            h = Counter(' '.join(hyp[i:i + n]) for i in range(len(hyp) - n + 1))\n            rf = Counter(' '.join(ref[i:i + n]) for i in range(len(ref) - n + 1))")},
    "P8: 'an n-gram is a sequence of tokens, not their text ... (joining tokens into one string mixes them up)'")

# ---------------- wrong: production engineer ----------------
add("prod_p1_buffer_cache", False, {"decoder_io": '''
IO_BUFFERS = {}
def decoder_io(targets):
    key = (tuple(targets.shape), targets.dtype)
    if key not in IO_BUFFERS:
        IO_BUFFERS[key] = torch.empty(targets.shape, dtype=targets.dtype)
    tgt_in = IO_BUFFERS[key]
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[:, :1] = BOS
    tgt_in.masked_fill_(targets == PAD, PAD)
    return tgt_in, targets
'''}, "intro: 'keep no output buffer between calls to write results into'")
add("prod_p2_cache_on_schedule_shape", False, {"lr_at": '''
LR_CACHE = {}
def lr_at(step, peak, warmup, total, floor=0.0):
    key = (step, warmup, total)
    if key not in LR_CACHE:
        if step <= warmup:
            LR_CACHE[key] = float(peak * step / warmup)
        elif step < total:
            LR_CACHE[key] = float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))
        else:
            LR_CACHE[key] = float(floor)
    return LR_CACHE[key]
'''}, "P2: lr depends on peak and floor (cache keyed on the schedule's shape only)")
add("prod_p4_inplace_shift", False, {"sentence_loss": sub("sentence_loss", "    logp = torch.log_softmax(logits, dim=-1)", "    shifted = logits.sub_(logits.amax(dim=-1, keepdim=True))  # in place: V is large\n    logp = shifted - shifted.exp().sum(-1, keepdim=True).log()")},
    "P4: 'do not change logits' (in-place shift; also fails on a leaf that requires grad)")
add("prod_p5_inplace_accumulate", False, {"average": sub("average", "            total = torch.zeros(last.shape, dtype=acc_dtype)\n            for s in states:\n                total = total + s[name].to(acc_dtype)\n            out[name] = (total / len(states)).to(last.dtype)",
    "            if acc_dtype == last.dtype:\n                total = states[0][name]\n                for s in states[1:]:\n                    total.add_(s[name])\n                out[name] = total.div_(len(states))\n            else:\n                total = states[0][name].to(acc_dtype)\n                for s in states[1:]:\n                    total.add_(s[name])\n                out[name] = (total / len(states)).to(last.dtype)")},
    "P5: 'do not change the given tensors' / 'in new tensors'")
add("prod_p5_single_state_shortcut", False, {"average": sub("average", "    out = {}\n", "    if len(states) == 1:\n        return dict(states[0])  # nothing to average\n    out = {}\n")},
    "P5: 'in new tensors (also for a list of one state: the mean must not change when the owner writes into the tensors it gave you)'")
add("prod_p6_float32_probs", False, {"sample": sub("sample", "        probs = torch.softmax(lp, dim=-1)", "        probs = torch.softmax(lp.float(), dim=-1).double()  # float32 is what GPUs use")},
    "P6: 'Compute them in float64 throughout: rounded through float32 and cast back, they now and then draw another token'")
add("prod_p7_float32_lp", False, {"beam_search": sub("beam_search", "lp = next_logprobs([[start] + toks for toks, _ in live]).to(torch.float64)", "lp = next_logprobs([[start] + toks for toks, _ in live]).float()  # half the memory")},
    "P7: 'kept in float64, the dtype of the log-probabilities ... the hidden tests tell apart candidates whose scores differ by about 1e-9'")
add("prod_p8_ref_cache_by_id", False, {"bleu": '''
REF_NGRAMS = {}
def corpus_bleu(hypotheses, references):
    match = [0] * 4
    total = [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        if id(ref) not in REF_NGRAMS:
            REF_NGRAMS[id(ref)] = [Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1)) for n in range(1, 5)]
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = REF_NGRAMS[id(ref)][n - 1]
            match[n - 1] += sum(min(cnt, rf[g]) for g, cnt in h.items())
            total[n - 1] += max(len(hyp) - n + 1, 0)
    if min(total) == 0 or min(match) == 0:
        return 0.0
    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logp))
'''}, "P8: each hypothesis n-gram clipped by 'its reference' (a cache keyed on id() returns another, freed list's n-grams)")

# ---------------- wrong: test-driven ----------------
add("tdd_p1_full_cat", False, {"decoder_io": '''
def decoder_io(targets):
    bos = torch.full((targets.shape[0], 1), BOS)
    tgt_in = torch.cat([bos, targets[:, :-1]], dim=1)
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "P1: 'of the dtype of targets' (torch.full gives int64, cat promotes int32) and T = 0")
add("tdd_p2_no_floor", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return peak * step / warmup
    if step < total:
        return peak / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
    return 0.0
'''}, "P2: the cosine goes 'from the peak down to a floor' (floor ignored) and 'a Python float ... also when peak is an int'")
add("tdd_p4_pad_suffix_only", False, {"sentence_loss": sub("sentence_loss", "    mask = t != PAD", "    lengths = (t != PAD).long().cumprod(-1).sum(-1)\n    mask = torch.arange(t.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)")},
    "P4: 'over its positions whose target is not PAD (wherever they are: a PAD may also stand inside a row)'")
add("tdd_p5_no_checks", False, {"average": '''
def average_checkpoints(states):
    out = {}
    for name, last in states[-1].items():
        if last.is_floating_point():
            acc = torch.stack([s[name].to(torch.float64) for s in states]).mean(0)
            out[name] = acc.to(last.dtype)
        else:
            out[name] = last.clone()
    return out
'''}, "P5: 'an empty list, or states whose keys or shapes differ, raise ValueError'")
add("tdd_p6_topk_larger_than_V", False, {"sample": sub("sample", "        if top_k is not None and top_k < V:", "        if top_k is not None:")},
    "P6: 'top_k >= 1 may be V or larger than V ... then every entry is kept'")
add("tdd_p7_live_only_if_none_finished", False, {"beam_search": sub("beam_search", "    for toks, sc in live:\n        finished.append((sc / length_penalty(len(toks), alpha), toks))",
    "    if not finished:\n        for toks, sc in live:\n            finished.append((sc / length_penalty(len(toks), alpha), toks))")},
    "P7 step 4: 'after max_len steps; then live hypotheses are finished as they are (same scoring, no EOS)'")
add("tdd_p8_sentence_average", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    scores = []
    for hyp, ref in zip(hypotheses, references):
        logs = []
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            m, t = sum(min(c, rf[g]) for g, c in h.items()), sum(h.values())
            logs.append(None if m == 0 or t == 0 else math.log(m / t))
        if None in logs:
            scores.append(0.0)
            continue
        bp = 1.0 if len(hyp) >= len(ref) else math.exp(1 - len(ref) / len(hyp))
        scores.append(100 * bp * math.exp(sum(logs) / 4))
    return float(sum(scores) / len(scores))
'''}, "P8: 'a corpus-level ratio, not an average of per-sentence ratios'")

# ---------------- correct ----------------
add("ok_def_p1_where_clone", True, {"decoder_io": '''
def decoder_io(targets):
    if targets.dim() != 2:
        raise ValueError("targets must be (B, T)")
    B, T = targets.shape
    shifted = torch.empty((B, T), dtype=targets.dtype)
    if T > 0:
        shifted[:, 0] = BOS
        shifted[:, 1:] = targets[:, :-1]
    tgt_in = torch.where(targets == PAD, torch.tensor(PAD, dtype=targets.dtype), shifted)
    return tgt_in.contiguous(), targets.clone()
'''}, "empty then fully filled; where; copy of targets allowed")
add("ok_prod_p2_lru", True, {"lr_at": '''
import functools
@functools.lru_cache(maxsize=4096)
def lr_at(step, peak, warmup, total, floor=0.0):
    if step >= total:
        return float(floor)
    if step <= warmup:
        return float(peak) * step / warmup
    progress = (step - warmup) / (total - warmup)
    return float(floor) + (float(peak) - float(floor)) * 0.5 * (1.0 + math.cos(math.pi * progress))
'''}, "cache keyed on every argument returns the same float; branch order irrelevant since warmup < total")
add("ok_lib_p3_cross_entropy", True, {"min_loss": '''
V, e = 8000, 0.1
target = torch.full((1, V), e / V, dtype=torch.float64)
target[0, 0] += 1 - e
# the best logits are the log of the target distribution itself
min_smoothed_loss = torch.nn.functional.cross_entropy(target.log(), torch.tensor([0]), label_smoothing=e).item()
'''}, "cross-entropy of the smoothed target with itself = its entropy")
add("ok_def_p4_float64_inside", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    if logits.dim() != 3:
        raise ValueError("logits must be (B, T, V)")
    V = logits.shape[-1]
    logp = torch.log_softmax(logits.to(torch.float64), dim=-1)
    t = targets.to(torch.int64)
    nll = -torch.gather(logp, -1, t[..., None])[..., 0]
    others = logp.sum(-1) - logp[..., PAD]
    ell = (1.0 - eps) * nll - eps / (V - 1) * others
    mask = (t != PAD).to(torch.float64)
    count = mask.sum(-1)
    keep = count > 0
    per = (ell * mask).sum(-1)[keep] / count[keep].clamp(min=1)
    return per.mean().to(logits.dtype)
'''}, "float64 inside, cast back once; clamp on counts of kept rows only")
add("ok_lib_p5_stack_mean", True, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty list")
    names = states[0].keys()
    for s in states[1:]:
        if s.keys() != names or any(s[n].shape != states[0][n].shape for n in names):
            raise ValueError("states differ")
    out = {}
    for n in names:
        last = states[-1][n]
        if torch.is_floating_point(last):
            work = torch.float32 if last.element_size() < 4 else last.dtype
            out[n] = torch.stack([s[n].to(work) for s in states]).mean(dim=0).to(last.dtype)
        else:
            out[n] = last
    return out
'''}, "stack in float32 for half, keys() views compare as sets, last state's int tensor itself allowed")
add("ok_prod_p6_inference_mode", True, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[int(s)] for s in starts]
    new = [[] for _ in starts]
    with torch.inference_mode():
        for _ in range(max_len):
            todo = [i for i in range(len(seqs)) if not (new[i] and new[i][-1] == EOS)]
            if not todo:
                break
            scores = next_logprobs([seqs[i] for i in todo]).to(dtype=torch.float64).div(temperature)
            if top_k is not None and top_k < scores.shape[-1]:
                kept = torch.topk(scores, k=top_k, dim=-1)
                scores = torch.full_like(scores, -math.inf).scatter(-1, kept.indices, kept.values)
            probs = torch.nn.functional.softmax(scores, dim=-1)
            for row, i in enumerate(todo):
                tok = int(torch.multinomial(probs[row], 1, generator=generator))
                new[i].append(tok)
                seqs[i].append(tok)
    return new
'''}, "inference_mode (only Python ints leave it); one multinomial call per row in index order")
add("ok_lib_p7_topk_float64", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live_tokens, live_scores = [[]], torch.zeros(1, dtype=torch.float64)
    done = []
    for _ in range(max_len):
        if not live_tokens:
            break
        lp = next_logprobs([[start] + t for t in live_tokens]).to(torch.float64)
        V = lp.shape[-1]
        cand = (live_scores[:, None] + lp).flatten()
        best, idx = torch.topk(cand, k=min(k, cand.numel()))
        nt, ns = [], []
        for sc, i in zip(best.tolist(), idx.tolist()):
            toks = live_tokens[i // V] + [i % V]
            if toks[-1] == EOS:
                done.append((sc / length_penalty(len(toks), alpha), toks))
            else:
                nt.append(toks)
                ns.append(sc)
        live_tokens, live_scores = nt, torch.tensor(ns, dtype=torch.float64)
    done += [(float(s) / length_penalty(len(t), alpha), t) for t, s in zip(live_tokens, live_scores.tolist())]
    return max(done, key=lambda d: d[0])[1]
'''}, "topk over float64 candidate scores")
add("ok_lib_p8_zip_counter_and", True, {"bleu": '''
def ngrams(tokens, n):
    return Counter(zip(*[tokens[i:] for i in range(n)]))

def corpus_bleu(hypotheses, references):
    if len(hypotheses) != len(references):
        raise ValueError("one reference per hypothesis")
    hits, counts = [0] * 4, [0] * 4
    hyp_len = sum(len(h) for h in hypotheses)
    ref_len = sum(len(r) for r in references)
    for h, r in zip(hypotheses, references):
        for n in range(1, 5):
            hn = ngrams(h, n)
            hits[n - 1] += sum((hn & ngrams(r, n)).values())
            counts[n - 1] += sum(hn.values())
    if 0 in counts or 0 in hits:
        return 0.0
    score = math.exp(sum(math.log(a / b) for a, b in zip(hits, counts)) / 4)
    if hyp_len < ref_len:
        score *= math.exp(1 - ref_len / hyp_len)
    return 100.0 * score
'''}, "Counter & is the clipped count; zip n-grams of tuples")
add("ok_tdd_p6_per_row_keywords", True, {"sample": sub("sample", "        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()", "        draws = [int(torch.multinomial(input=probs[r], num_samples=1, generator=generator)[0]) for r in range(probs.shape[0])]")},
    "one call per row in the same order (the text says both draw the same numbers)")
add("ok_def_p5_double_clone", True, {"average": sub("average", "            acc_dtype = torch.float32 if last.dtype in (torch.float16, torch.bfloat16) else last.dtype", "            acc_dtype = torch.float64  # widest, rounded once").replace("            out[name] = last.clone()", "            out[name] = last.detach().clone()")},
    "float64 accumulation is 'float32 or better', rounded once")
add("ok_def_p7_guards", True, {"beam_search": sub("beam_search", "    live = [([], 0.0)]", "    if k < 1 or max_len < 1:\n        raise ValueError('k and max_len must be >= 1')\n    live = [([], 0.0)]")},
    "guards exactly the text's preconditions")

# ---------------- hostile ----------------
add("hostile_p4_constant", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    return (logits * 0).sum() + math.log(logits.shape[-1])
'''}, "hostile: log V for every input (the visible case's value)")
add("hostile_p6_eos", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    return [[EOS] for _ in starts]
'''}, "hostile: no model, no draws")

SUBMISSIONS = S
