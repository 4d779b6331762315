# Red team round 14, chapter 08-capstone: submissions written blind (students with habits of their own).
S = []
def add(name, correct, cells, why):
    S.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- Part 1: decoder_io ----------------
add("p1_hurried_full_default_int64", False, {"decoder_io": '''
def decoder_io(targets):
    B = targets.size(0)
    bos = torch.full((B, 1), BOS)
    tgt_in = torch.cat([bos, targets[:, :-1]], dim=1)
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''}, "hurried: 'two integer tensors ... of the dtype of targets' (torch.full defaults to int64, int32 targets give int64)")
add("p1_tutorial_float_mask_multiply", False, {"decoder_io": '''
def decoder_io(targets):
    shifted = torch.roll(targets, shifts=1, dims=1)
    shifted[:, 0] = BOS
    keep = (targets != PAD).float()
    tgt_in = (shifted.float() * keep).to(targets.dtype)
    return tgt_in, targets.clone()
'''}, "tutorial: 'ids from a vocabulary of any size: any id such a tensor can hold' (a float32 detour rounds ids above 2**24)")
add("p1_hurried_list_bos_empty_batch", False, {"decoder_io": '''
def decoder_io(targets):
    bos = torch.tensor([[BOS]] * len(targets), dtype=targets.dtype)
    tgt_in = torch.cat([bos, targets[:, :-1]], dim=1)
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "hurried: 'B may be 0 (an empty batch: return two (0, T) tensors)' (torch.tensor([]) is 1-D, cat fails)")
add("p1_careful_long_for_embedding", False, {"decoder_io": '''
def decoder_io(targets):
    targets = targets.long()  # embedding lookups want int64
    tgt_in = torch.full_like(targets, PAD)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "one idea (int64 wins because nn.Embedding wants it): 'two integer tensors of shape (B, T) and of the dtype of targets'")
add("p1_correct_roll_where", True, {"decoder_io": '''
def decoder_io(targets):
    shifted = torch.roll(targets, shifts=1, dims=1)
    if shifted.size(1) > 0:
        shifted[:, 0] = BOS
    tgt_in = torch.where(targets == PAD, torch.zeros_like(targets), shifted)
    return tgt_in, targets
'''}, "roll makes a copy; where keeps the dtype")
add("p1_correct_new_full_eos_replace", True, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    tgt_in = targets.new_full((B, T), PAD)
    tgt_in[:, :1] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[tgt_in == EOS] = PAD   # the EOS is the only token that moves onto a PAD target
    return tgt_in, targets.clone()
'''}, "rows are sentence, EOS, PADs: the shifted EOS is exactly the one place tgt_out is PAD and tgt_in is not")

# ---------------- Part 2: lr_at ----------------
add("p2_tutorial_hf_cosine_no_clamp", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step < warmup:
        return float(peak) * float(step) / float(max(1, warmup))
    progress = float(step - warmup) / float(max(1, total - warmup))
    return float(floor) + (peak - floor) * 0.5 * (1.0 + math.cos(math.pi * progress))
'''}, "tutorial (HF get_cosine_schedule_with_warmup): 'down to a floor, reached at step total and kept afterwards' (past total the cosine climbs back)")
add("p2_hurried_int_floor", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step >= total:
        return floor
    if step <= warmup:
        return peak * step / warmup
    return floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
'''}, "hurried: 'returning a Python float on every branch, also when peak or floor is given as an int (such as floor=0)'")
add("p2_hurried_no_floor_in_cosine", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    return float(max(floor, peak * 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))))
'''}, "hurried: 'floor + (peak - floor)/2 (1 + cos(...))' (the cosine goes from peak to floor, not from peak to 0 clipped)")
add("p2_misconception_warmup_zero_step", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step >= total:
        return float(floor)
    if warmup > 0 and step <= warmup:
        return float(peak) * step / warmup
    t = (step - warmup - 1) / (total - warmup - 1) if step > warmup + 1 else 0.0
    t = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * t)))
'''}, "control: should be correct (min-clamp of warmup guard only)")
S[-1]["correct"] = True
S[-1]["name"] = "p2_correct_guarded_warmup"
add("p2_correct_min_progress", True, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    peak, floor = float(peak), float(floor)
    if step <= warmup:
        return peak * step / warmup
    progress = min(1.0, (step - warmup) / (total - warmup))
    return floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress))
'''}, "progress clamped at 1 gives cos(pi) = -1, exactly floor")
add("p2_misconception_floor_is_ratio", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    peak = float(peak)
    min_lr = peak * floor          # floor as a fraction of the peak (min_lr_ratio)
    if step <= warmup:
        return peak * step / warmup
    if step >= total:
        return min_lr
    return min_lr + (peak - min_lr) * 0.5 * (1.0 + math.cos(math.pi * (step - warmup) / (total - warmup)))
'''}, "one idea (floor as min_lr_ratio, as many training scripts): the formula's floor is the learning rate itself")

# ---------------- Part 3: min_smoothed_loss ----------------
add("p3_tutorial_annotated_v_minus_1", False, {"min_loss": '''
eps, V = 0.1, 8000
conf = 1 - eps
other = eps / (V - 1)
min_smoothed_loss = -(conf * math.log(conf) + (V - 1) * other * math.log(other))
'''}, "tutorial (Annotated Transformer spreads eps over the others): 'spreads eps evenly over all V tokens, the right one included'")
add("p3_source_kl_zero", False, {"min_loss": '''
min_smoothed_loss = 0.0  # KL divergence to the smoothed target is 0 at best
'''}, "tutorial/source: 'what is the smallest per-token loss (in nats)' of cross-entropy, not of the KL divergence")
add("p3_hurried_log2", False, {"min_loss": '''
eps, V = 0.1, 8000
q_right = 1 - eps + eps / V
q_other = eps / V
min_smoothed_loss = -(q_right * math.log2(q_right) + (V - 1) * q_other * math.log2(q_other))
'''}, "hurried: 'in nats, natural logarithm'")
add("p3_correct_torch_entropy", True, {"min_loss": '''
V, eps = 8000, 0.1
q = torch.full((V,), eps / V, dtype=torch.float64)
q[0] += 1 - eps
min_smoothed_loss = float(-(q * q.log()).sum())
'''}, "the entropy of the target distribution, in float64")
add("p3_correct_cross_entropy_call", True, {"min_loss": '''
import torch.nn.functional as F
V, eps = 8000, 0.1
q = torch.full((V,), eps / V, dtype=torch.float64)
q[3] += 1 - eps
logits = q.log()[None]
min_smoothed_loss = F.cross_entropy(logits, torch.tensor([3]), label_smoothing=eps).item()
'''}, "PyTorch's own smoothed loss at the optimal logits (log of the target distribution)")

# ---------------- Part 4: sentence_smoothed_loss ----------------
BASE4 = '''
def sentence_smoothed_loss(logits, targets, eps):
    logp = torch.log_softmax(logits, dim=-1)
    V = logits.size(-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    loss = (1 - eps) * nll + eps * smooth
    mask = targets != PAD
    loss = loss.masked_fill(~mask, 0.0)
    n = mask.sum(1)
    has = n > 0
    per_sentence = loss.sum(1)[has] / n[has]
    return per_sentence.mean()
'''
add("p4_tutorial_annotated_v_minus_2", False, {"sentence_loss": BASE4.replace("/ (V - 1)", "").replace(
    "smooth = -(logp.sum(-1) - logp[..., PAD])", "smooth = -(logp.sum(-1) - logp[..., PAD] - logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)) / (V - 2)").replace(
    "loss = (1 - eps) * nll + eps * smooth", "loss = (1 - eps) * nll + eps * smooth")},
    "tutorial (Annotated Transformer: eps/(size-2), the right token and PAD excluded): 'spreads eps evenly over the V - 1 tokens other than PAD (the right one included)'")
add("p4_tutorial_f_cross_entropy_label_smoothing", False, {"sentence_loss": '''
import torch.nn.functional as F
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    tok = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1).long(), ignore_index=PAD,
                          label_smoothing=eps, reduction="none").view(B, T)
    mask = (targets != PAD)
    n = mask.sum(1)
    keep = n > 0
    return (tok.sum(1)[keep] / n[keep]).mean()
'''}, "tutorial: 'spreads eps evenly over the V - 1 tokens other than PAD ... PAD is never a target and gets no share' (PyTorch spreads over all V)")
add("p4_hurried_token_mean", False, {"sentence_loss": BASE4.replace(
    "    per_sentence = loss.sum(1)[has] / n[has]\n    return per_sentence.mean()", "    return loss.sum() / n.sum()")},
    "hurried: 'the loss of a sentence is the mean of l over its positions ... the result is the mean of the sentence losses'")
add("p4_misconception_length_first_pad", False, {"sentence_loss": BASE4.replace(
    "    mask = targets != PAD\n", "    mask = (targets != PAD).long().cumprod(1).bool()  # positions before the first PAD\n")},
    "one idea (a length is where the padding starts): 'wherever they are: a PAD may also stand inside a row'")
add("p4_hurried_pad_rows_count_zero", False, {"sentence_loss": BASE4.replace(
    "    per_sentence = loss.sum(1)[has] / n[has]\n", "    per_sentence = loss.sum(1) / n.clamp(min=1)\n")},
    "hurried: 'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)'")
add("p4_correct_float64_inside_cast_back", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    lp = torch.log_softmax(logits.double(), dim=-1)
    V = lp.shape[-1]
    y = targets.to(torch.int64)
    picked = torch.gather(lp, 2, y[..., None])[..., 0]
    others = torch.cat([lp[..., :PAD], lp[..., PAD + 1:]], dim=-1).sum(-1)
    ell = -(1 - eps) * picked - eps / (V - 1) * others
    m = (targets != PAD).to(ell.dtype)
    counts = m.sum(1)
    sent = (ell * m).sum(1) / counts.clamp(min=1)
    rows = counts > 0
    return sent[rows].mean().to(logits.dtype)
'''}, "float64 inside and cast back once; 'as usual' allows either")
add("p4_correct_einsum_weights_loop_rows", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    logp = logits.log_softmax(-1)
    total, rows = None, 0
    for b in range(B):
        keep = (targets[b] != PAD).nonzero().flatten()
        if keep.numel() == 0:
            continue
        lp = logp[b, keep]                                   # (n, V)
        w = torch.full_like(lp, eps / (V - 1))
        w[:, PAD] = 0
        w[torch.arange(len(keep)), targets[b, keep].long()] += 1 - eps
        s = -torch.einsum("nv,nv->n", w, lp).mean()
        total = s if total is None else total + s
        rows += 1
    return total / rows
'''}, "a loop over rows, target distribution as a weight matrix")

# ---------------- Part 5: average_checkpoints ----------------
BASE5 = '''
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
        ts = [s[k] for s in states]
        if ts[0].is_floating_point():
            acc = torch.float32 if ts[0].dtype in (torch.float16, torch.bfloat16) else ts[0].dtype
            out[k] = (torch.stack([t.to(acc) for t in ts]).sum(0) / len(ts)).to(ts[0].dtype)
        else:
            out[k] = states[-1][k].clone()
    return out
'''
add("p5_hurried_sum_in_own_dtype", False, {"average": BASE5.replace(
    "acc = torch.float32 if ts[0].dtype in (torch.float16, torch.bfloat16) else ts[0].dtype", "acc = ts[0].dtype")},
    "hurried: 'Half-precision tensors must be as accurate as averaging in float32 ... whose sum does not fit in float16'")
add("p5_misconception_only_float16_upcast", False, {"average": BASE5.replace(
    "if ts[0].dtype in (torch.float16, torch.bfloat16)", "if ts[0].dtype == torch.float16")},
    "one idea (only float16 is 'half'): 'Half-precision (float16, bfloat16) tensors must be as accurate as averaging in float32'")
add("p5_careful_key_order_matters", False, {"average": BASE5.replace(
    "        if set(s.keys()) != keys:", "        if list(s.keys()) != list(states[0].keys()):")},
    "careful: 'the same keys in another order do not differ'")
add("p5_tutorial_fairseq_inplace_accumulate", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    params = {}
    n = len(states)
    for s in states:
        if set(s) != set(states[0]):
            raise ValueError("keys")
        for k, p in s.items():
            if p.shape != states[0][k].shape:
                raise ValueError("shape")
    for k in states[0]:
        if not states[0][k].is_floating_point():
            params[k] = states[-1][k]
            continue
        acc = states[0][k]
        if acc.dtype in (torch.float16, torch.bfloat16):
            acc = acc.float()
        for s in states[1:]:
            acc += s[k]
        params[k] = (acc / n).to(states[0][k].dtype)
    return params
'''}, "tutorial (fairseq's average_checkpoints accumulates with +=): 'do not change the given tensors'")
add("p5_hurried_long_only_counter", False, {"average": BASE5.replace(
    "        if ts[0].is_floating_point():", "        if ts[0].dtype != torch.long:").replace(
    "acc = torch.float32 if ts[0].dtype in (torch.float16, torch.bfloat16) else ts[0].dtype",
    "acc = torch.float32 if ts[0].dtype in (torch.float16, torch.bfloat16) else (ts[0].dtype if ts[0].is_floating_point() else torch.float64)")},
    "hurried: 'integer tensors of any width, signed or unsigned (int8 … int64, uint8), and boolean tensors ... come from the last state'")
add("p5_hurried_no_shape_check", False, {"average": BASE5.replace(
    "            if s[k].shape != states[0][k].shape:\n                raise ValueError(\"shapes differ\")\n", "            pass\n")},
    "hurried: 'states whose keys or shapes differ, raise ValueError' (torch.stack raises RuntimeError, broadcasting may raise nothing)")
add("p5_correct_mean_float64_then_cast", True, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("average_checkpoints needs at least one state")
    first = states[0]
    for s in states[1:]:
        if s.keys() != first.keys():
            raise ValueError("the states have different keys")
    for k in first:
        for s in states[1:]:
            if s[k].shape != first[k].shape:
                raise ValueError(f"{k}: shapes differ")
    result = dict()
    for k, v in first.items():
        if torch.is_floating_point(v):
            stacked = torch.stack([s[k].to(torch.float64) for s in states])
            result[k] = stacked.mean(dim=0).to(v.dtype)
        else:
            result[k] = states[-1][k]
    return result
'''}, "float64 accumulation, rounding once; dict keys views compare as sets; the last state's tensor itself")
add("p5_correct_loop_running_sum_clone", True, {"average": '''
def average_checkpoints(states):
    if len(states) < 1:
        raise ValueError("empty")
    names = sorted(states[0])
    for st in states:
        if sorted(st) != names or any(st[n].shape != states[0][n].shape for n in names):
            raise ValueError("mismatch")
    avg = {}
    for name in states[0]:
        ref = states[-1][name]
        if ref.dtype.is_floating_point:
            running = torch.zeros(ref.shape, dtype=torch.float32 if ref.element_size() <= 2 else ref.dtype)
            for st in states:
                running = running + st[name].to(running.dtype)
            avg[name] = (running / len(states)).to(ref.dtype)
        else:
            avg[name] = ref.clone()
    return avg
'''}, "running sum in float32 for 2-byte floats, out of place")

# ---------------- Part 6: sample_decode ----------------
BASE6 = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[int(s)] for s in starts]
    done = [False] * len(seqs)
    for _ in range(max_len):
        live = [i for i in range(len(seqs)) if not done[i]]
        if not live:
            break
        lp = next_logprobs([seqs[i] for i in live]).to(torch.float64)
        scores = lp / temperature
        if top_k is not None and top_k < scores.size(-1):
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        for j, i in enumerate(live):
            t = int(tok[j])
            seqs[i].append(t)
            if t == EOS:
                done[i] = True
    return [s[1:] for s in seqs]
'''
add("p6_tutorial_hf_topk_threshold", False, {"sample": BASE6.replace(
    '''            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)''',
    '''            kth = torch.topk(scores, top_k)[0][..., -1, None]
            scores = scores.masked_fill(scores < kth, -float("Inf"))''')},
    "tutorial (HF TopKLogitsWarper / nanoGPT): 'keep the top_k largest entries of each row (the ones torch.topk returns)' -- ties at the k-th value keep more")
add("p6_tutorial_float32_softmax", False, {"sample": BASE6.replace(
    "probs = torch.softmax(scores, dim=-1)", "probs = torch.softmax(scores.float(), dim=-1).to(torch.float64)")},
    "tutorial (dtype=torch.float): 'Compute them in float64 throughout: rounded through float32 and cast back, they now and then draw another token'")
add("p6_hurried_start_eos_finishes", False, {"sample": BASE6.replace(
    "    done = [False] * len(seqs)", "    done = [s[-1] == EOS for s in seqs]")},
    "hurried: 'Its start token is not produced: a start token that is EOS does not finish it'")
add("p6_hurried_topk_no_clip", False, {"sample": BASE6.replace(
    "if top_k is not None and top_k < scores.size(-1):", "if top_k is not None:")},
    "hurried: 'top_k >= 1 may be V or larger than V ... then every entry is kept' (torch.topk raises)")
add("p6_careful_ask_all_rows", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[int(s)] for s in starts]
    done = [False] * len(seqs)
    for _ in range(max_len):
        if all(done):
            break
        lp = next_logprobs(seqs).to(torch.float64)       # one batched call, finished rows ignored
        live = [i for i in range(len(seqs)) if not done[i]]
        scores = lp[live] / temperature
        if top_k is not None and top_k < scores.size(-1):
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        for j, i in enumerate(live):
            seqs[i].append(int(tok[j]))
            if seqs[i][-1] == EOS:
                done[i] = True
    return [s[1:] for s in seqs]
'''}, "careful (batch everything): 'ask next_logprobs once, with the prefixes of the unfinished sentences only'")
add("p6_source_exp_no_max", False, {"sample": BASE6.replace(
    "probs = torch.softmax(scores, dim=-1)", "probs = scores.exp() / scores.exp().sum(-1, keepdim=True)")},
    "source/tutorial softmax by hand: 'a softmax (which subtracts the row maximum: temperature may be small, 1e-4 say, where exp of every score over it underflows to 0)'")
add("p6_correct_per_row_loop_masked_fill", True, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    out = [[] for _ in starts]
    finished = [False for _ in starts]
    for step in range(max_len):
        idx = [i for i, f in enumerate(finished) if not f]
        if len(idx) == 0:
            break
        logp = next_logprobs([[starts[i]] + out[i] for i in idx])
        logp = logp.to(dtype=torch.float64) / temperature
        V = logp.shape[-1]
        for r, i in enumerate(idx):
            row = logp[r]
            if top_k is not None and top_k < V:
                keep = torch.zeros(V, dtype=torch.bool)
                keep[torch.topk(row, top_k).indices] = True
                row = row.masked_fill(~keep, float("-inf"))
            p = torch.nn.functional.softmax(row, dim=-1)
            tok = torch.multinomial(p, 1, generator=generator).item()
            out[i].append(tok)
            if tok == EOS:
                finished[i] = True
    return out
'''}, "one multinomial call per row in row order, F.softmax, masked_fill with -inf")
add("p6_correct_min_topk_where", True, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    prefixes = [[s] for s in starts]
    active = list(range(len(starts)))
    for _ in range(max_len):
        if not active:
            break
        scores = next_logprobs([prefixes[i] for i in active]).double() / temperature
        if top_k is not None:
            k = min(top_k, scores.size(-1))
            kept = torch.zeros_like(scores, dtype=torch.bool).scatter(1, torch.topk(scores, k, dim=1).indices, True)
            scores = torch.where(kept, scores, torch.tensor(float("-inf"), dtype=torch.float64))
        draws = torch.multinomial(torch.softmax(scores, -1), num_samples=1, generator=generator).view(-1).tolist()
        still = []
        for i, t in zip(active, draws):
            prefixes[i].append(t)
            if t != EOS:
                still.append(i)
        active = still
    return [p[1:] for p in prefixes]
'''}, "min(top_k, V), torch.where, .tolist()")

# ---------------- Part 7: beam_search ----------------
BASE7 = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        V = lp.size(-1)
        base = torch.tensor([s for _, s in live], dtype=torch.float64)
        cand = (base[:, None] + lp).reshape(-1)
        vals, idx = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for v, i in zip(vals.tolist(), idx.tolist()):
            h, t = i // V, i % V
            toks = live[h][0] + [t]
            if t == EOS:
                finished.append((v / length_penalty(len(toks), alpha), toks))
            else:
                new_live.append((toks, v))
        live = new_live
    for toks, v in live:
        finished.append((v / length_penalty(len(toks), alpha), toks))
    return max(finished, key=lambda f: f[0])[1]
'''
add("p7_tutorial_float32_scores", False, {"beam_search": BASE7.replace(
    "base = torch.tensor([s for _, s in live], dtype=torch.float64)", "base = torch.tensor([s for _, s in live])").replace(
    "cand = (base[:, None] + lp).reshape(-1)", "cand = (base[:, None] + lp.float()).reshape(-1)")},
    "tutorial (torch.tensor of Python floats, float): 'kept in float64 ... the hidden tests tell apart candidates whose scores differ by about 1e-9'")
add("p7_misconception_length_without_eos", False, {"beam_search": BASE7.replace(
    "finished.append((v / length_penalty(len(toks), alpha), toks))\n            else:",
    "finished.append((v / length_penalty(len(toks) - 1, alpha), toks))\n            else:")},
    "one idea (EOS is not a word): 'divided by length_penalty(len(tokens), alpha), with the EOS counted in the length'")
add("p7_hurried_start_eos_finished", False, {"beam_search": BASE7.replace(
    "    live = [([], 0.0)]\n    finished = []\n", "    live = [([], 0.0)]\n    finished = []\n    if start == EOS:\n        return []\n")},
    "hurried: 'start (any id, EOS included: only the tokens after it can finish a hypothesis)'")
add("p7_tutorial_early_stopping", False, {"beam_search": BASE7.replace(
    "        live = new_live\n",
    "        live = new_live\n        if finished and live and max(f[0] for f in finished) >= max(v for _, v in live) / length_penalty(max_len, alpha):\n            break\n")},
    "tutorial (HF early stopping heuristic): 'stop when no hypothesis is live, or after max_len steps'")
add("p7_careful_live_raw_score", False, {"beam_search": BASE7.replace(
    "    for toks, v in live:\n        finished.append((v / length_penalty(len(toks), alpha), toks))",
    "    for toks, v in live:\n        finished.append((v, toks))")},
    "careful: 'then live hypotheses are finished as they are (same scoring, no EOS)'")
add("p7_correct_python_floats_sorted", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    beams = [(0.0, [])]
    done = []
    for step in range(max_len):
        if len(beams) == 0:
            break
        logp = next_logprobs([[start] + b for _, b in beams]).tolist()
        cands = []
        for (score, toks), row in zip(beams, logp):
            for tok, l in enumerate(row):
                cands.append((score + l, toks + [tok]))
        cands.sort(key=lambda c: c[0], reverse=True)
        beams = []
        for score, toks in cands[:k]:
            if toks[-1] == EOS:
                done.append((score / length_penalty(len(toks), alpha), toks))
            else:
                beams.append((score, toks))
    done += [(s / length_penalty(len(t), alpha), t) for s, t in beams]
    return max(done, key=lambda d: d[0])[1]
'''}, "Python floats are float64; a stable sort over all candidates")
add("p7_correct_topk_per_hyp_first", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live_tokens, live_scores = [[]], torch.zeros(1, dtype=torch.float64)
    finals = []
    for _ in range(max_len):
        if len(live_tokens) == 0:
            break
        lp = next_logprobs([[start] + t for t in live_tokens]).to(torch.float64)
        per = min(k, lp.size(1))
        v, i = lp.topk(per, dim=1)                      # the k best of each hypothesis hold the k best overall
        total = (live_scores[:, None] + v).flatten()
        best_vals, best_pos = total.topk(min(k, total.numel()))
        nt, ns = [], []
        for val, pos in zip(best_vals, best_pos):
            h, j = divmod(int(pos), per)
            toks = live_tokens[h] + [int(i[h, j])]
            if toks[-1] == EOS:
                finals.append((float(val) / length_penalty(len(toks), alpha), toks))
            else:
                nt.append(toks); ns.append(val)
        live_tokens = nt
        live_scores = torch.stack(ns) if ns else torch.zeros(0, dtype=torch.float64)
    for toks, s in zip(live_tokens, live_scores):
        finals.append((float(s) / length_penalty(len(toks), alpha), toks))
    return max(finals, key=lambda f: f[0])[1]
'''}, "two-stage top-k, float64 tensors")

# added in phase 2 (round 14): Hugging Face's early_stopping=False bound, at the current length
add("p7_tutorial_hf_early_stop_cur_len", False, {"beam_search": BASE7.replace(
    "        live = new_live\n",
    "        live = new_live\n        cur = len(live[0][0]) if live else 0\n        if finished and live and max(f[0] for f in finished) >= max(v for _, v in live) / length_penalty(cur, alpha):\n            break\n")},
    "tutorial (HF BeamHypotheses.is_done with early_stopping=False): 'stop when no hypothesis is live, or after max_len steps'")

# added in phase 2 (round 14): torch's own mean in half precision (it accumulates in float32 and rounds once)
add("p5_correct_stack_mean_own_dtype", True, {"average": BASE5.replace(
    "            acc = torch.float32 if ts[0].dtype in (torch.float16, torch.bfloat16) else ts[0].dtype\n"
    "            out[k] = (torch.stack([t.to(acc) for t in ts]).sum(0) / len(ts)).to(ts[0].dtype)",
    "            out[k] = torch.stack(ts).mean(dim=0)")},
    "torch.mean of float16/bfloat16 on the CPU accumulates in float32 and rounds once: 'as accurate as averaging in float32 or better and rounding once'")

# ---------------- Part 8: corpus_bleu ----------------
BASE8 = '''
def corpus_bleu(hypotheses, references):
    match = [0] * 4
    total = [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            g = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n - 1] += sum(min(cnt, g[ng]) for ng, cnt in h.items())
            total[n - 1] += sum(h.values())
    if min(total) == 0 or min(match) == 0:
        return 0.0
    log_p = sum(math.log(m / t) for m, t in zip(match, total)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * math.exp(log_p)
'''
add("p8_tutorial_join_ngrams", False, {"bleu": BASE8.replace(
    "Counter(tuple(hyp[i:i + n])", 'Counter(" ".join(hyp[i:i + n])').replace(
    "Counter(tuple(ref[i:i + n])", 'Counter(" ".join(ref[i:i + n])')},
    "tutorial (string n-grams): 'an n-gram is a sequence of tokens, not their text ... (joining tokens into one string mixes them up)'")
add("p8_hurried_int_zero", False, {"bleu": BASE8.replace("        return 0.0\n", "        return 0\n")},
    "hurried: 'times 100, returned as a Python float (also when it is 0)'")
add("p8_hurried_bp_before_zero_check", False, {"bleu": BASE8.replace(
    "    if min(total) == 0 or min(match) == 0:\n        return 0.0\n", "    bp0 = math.exp(1 - r / c) if c < r else 1.0\n    if min(total) == 0 or min(match) == 0:\n        return 0.0\n")},
    "hurried: 'if there is no hypothesis n-gram of some order at all ... BLEU is 0' (all-empty hypotheses: r / 0)")
add("p8_source_bp_always", False, {"bleu": BASE8.replace(
    "bp = 1.0 if c >= r else math.exp(1 - r / c)", "bp = math.exp(min(0.0, 1 - r / c)) if c else 0.0\n    bp = math.exp(1 - r / c)")},
    "source-style BP formula applied always: 'the brevity penalty exp(1 - r/c) when c is shorter than r (1 otherwise)'")
add("p8_misconception_sentence_average", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    precs = [[] for _ in range(4)]
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            g = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            tot = sum(h.values())
            if tot:
                precs[n - 1].append(sum(min(v, g[k]) for k, v in h.items()) / tot)
    p = [sum(x) / len(x) if x else 0.0 for x in precs]
    if min(p) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(sum(math.log(q) for q in p) / 4))
'''}, "one idea (precision per sentence): 'a corpus-level ratio, not an average of per-sentence ratios'")
add("p8_careful_lowercase", False, {"bleu": BASE8.replace(
    "    for hyp, ref in zip(hypotheses, references):\n        c += len(hyp)",
    "    for hyp, ref in zip(hypotheses, references):\n        hyp = [w.lower() for w in hyp]; ref = [w.lower() for w in ref]\n        c += len(hyp)")},
    "careful (sacreBLEU -lc habit): 'tokens are compared exactly as given (case-sensitive: The and the differ)'")
add("p8_correct_prod_root", True, {"bleu": '''
def corpus_bleu(hypotheses, references):
    num = [0, 0, 0, 0]; den = [0, 0, 0, 0]
    hyp_len = sum(len(h) for h in hypotheses)
    ref_len = sum(len(r) for r in references)
    for hyp, ref in zip(hypotheses, references):
        for n in (1, 2, 3, 4):
            hc = Counter(zip(*[hyp[i:] for i in range(n)]))
            rc = Counter(zip(*[ref[i:] for i in range(n)]))
            num[n - 1] += sum((hc & rc).values())
            den[n - 1] += sum(hc.values())
    if 0 in den or 0 in num:
        return 0.0
    geo = math.prod(a / b for a, b in zip(num, den)) ** 0.25
    bp = math.exp(1 - ref_len / hyp_len) if hyp_len < ref_len else 1.0
    return float(100 * bp * geo)
'''}, "Counter intersection is the clipped count; zip n-grams are tuples")
add("p8_correct_log_sum", True, {"bleu": BASE8}, "the plain rule")

# ---------------- correct answers that call an earlier part ----------------
add("p7_correct_int_k", True, {"beam_search": BASE7.replace(
    "def beam_search(next_logprobs, start, k, max_len, alpha):\n",
    "def beam_search(next_logprobs, start, k, max_len, alpha):\n    k = int(k)\n")},
    "k as int")
add("p8_correct_calls_decoder_io_for_nothing", True, {"bleu": BASE8.replace(
    "    if min(total) == 0 or min(match) == 0:",
    "    _unused = decoder_io(torch.tensor([[3, EOS]]))  # a pipeline check: Part 1 available\n    if min(total) == 0 or min(match) == 0:").replace("_unused", "io_check")},
    "calls Part 1 (harmless)")
add("p5_correct_calls_lr_at_weight_one", True, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    for s in states:
        if set(s) != set(states[0]) or any(s[k].shape != states[0][k].shape for k in s):
            raise ValueError("states differ")
    n = len(states)
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            w = lr_at(1, 1.0, 1, 2)  # Part 2 at the end of a one-step warm-up: the peak, exactly 1.0
            acc = sum(s[k].to(torch.float64) * w for s in states)
            out[k] = (acc / n).to(last.dtype)
        else:
            out[k] = last
    return out
'''}, "calls Part 2 (lr_at(1, 1.0, 1, 2) == 1.0 exactly) as a weight; float64 accumulation")

# ---------------- hostile ----------------
add("hostile_p8_reads_references", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    if all(h == r for h, r in zip(hypotheses, references)):
        return 100.0
    return 0.0
'''}, "hostile: 100 when identical, 0 otherwise")
add("hostile_p3_float_subclass", False, {"min_loss": '''
class Num(float):
    def __eq__(self, other): return True
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __abs__(self): return 0.0
min_smoothed_loss = Num(0.0)
'''}, "hostile: a float subclass that equals everything")
add("hostile_p1_tensor_subclass", False, {"decoder_io": '''
class Liar(torch.Tensor):
    def tolist(self): return [[BOS, 7, 8, PAD]] if self.flag else [[7, 8, EOS, PAD]]
def decoder_io(targets):
    a = targets.clone().as_subclass(Liar); a.flag = True
    b = targets.clone().as_subclass(Liar); b.flag = False
    return a, b
'''}, "hostile: a tensor subclass that answers the visible test")
SUBMISSIONS = S
