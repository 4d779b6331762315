# Round 31, chapter 08-capstone: blind submissions (kinds: backward, placement, scalar, shape, sibling)
SUBMISSIONS = []
def add(name, correct, cells, why, kind):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why, "kind": kind})

# ---------------------------------------------------------------- 1. hand-written backward
add("p4_backward_smoothing_over_all_V", False, {"sentence_loss": '''
class SentenceLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, targets, eps):
        V = logits.shape[-1]
        logp = torch.log_softmax(logits, dim=-1)
        nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
        smooth = -logp[..., 1:].sum(-1) / (V - 1)
        mask = targets != PAD
        ell = torch.where(mask, (1 - eps) * nll + eps * smooth, torch.zeros((), dtype=logits.dtype))
        counts = mask.sum(1)
        valid = mask.any(1)
        w = torch.where(valid, 1.0 / counts.clamp(min=1).to(logits.dtype), 0.0) / valid.sum()
        ctx.save_for_backward(logp, targets, w, mask)
        ctx.eps = eps
        return (ell.sum(1) * w).sum()

    @staticmethod
    def backward(ctx, grad):
        logp, targets, w, mask = ctx.saved_tensors
        eps, V = ctx.eps, logp.shape[-1]
        p = logp.exp()
        onehot = torch.zeros_like(p).scatter(-1, targets.long().unsqueeze(-1), 1.0)
        g = p - (1 - eps) * onehot - eps / V   # the smoothing's share spread over every id
        g = g * (w[:, None] * mask)[..., None]
        return grad * g, None, None

def sentence_smoothed_loss(logits, targets, eps):
    return SentenceLoss.apply(logits, targets, eps)
'''}, "P4: 'spreads eps evenly over the V - 1 tokens other than PAD' and 'loss.backward() must leave the exact gradient': the forward excludes PAD, the backward spreads eps/V over all V (PAD included).", "backward")

add("p4_backward_float32", False, {"sentence_loss": '''
class SentenceLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, targets, eps):
        V = logits.shape[-1]
        logp = torch.log_softmax(logits, dim=-1)
        nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
        smooth = -logp[..., 1:].sum(-1) / (V - 1)
        mask = targets != PAD
        ell = torch.where(mask, (1 - eps) * nll + eps * smooth, torch.zeros((), dtype=logits.dtype))
        counts = mask.sum(1)
        valid = mask.any(1)
        w = torch.where(valid, 1.0 / counts.clamp(min=1).to(logits.dtype), 0.0) / valid.sum()
        ctx.save_for_backward(logits.float(), targets, w.float(), mask)
        ctx.eps = eps
        return (ell.sum(1) * w).sum()

    @staticmethod
    def backward(ctx, grad):
        logits32, targets, w, mask = ctx.saved_tensors   # the backward in float32 is precise enough
        eps, V = ctx.eps, logits32.shape[-1]
        p = torch.softmax(logits32, -1)
        onehot = torch.zeros_like(p).scatter(-1, targets.long().unsqueeze(-1), 1.0)
        u = torch.full((V,), 1.0 / (V - 1)); u[PAD] = 0.0
        g = p - (1 - eps) * onehot - eps * u
        g = g * (w[:, None] * mask)[..., None]
        return grad * g, None, None

def sentence_smoothed_loss(logits, targets, eps):
    return SentenceLoss.apply(logits, targets, eps)
'''}, "P4: 'loss.backward() must leave the exact gradient in logits.grad' with float64 logits: the backward works in float32 and autograd casts the float32 gradient to float64.", "backward")

add("p4_backward_token_mean_weights", False, {"sentence_loss": '''
class SentenceLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, targets, eps):
        V = logits.shape[-1]
        logp = torch.log_softmax(logits, dim=-1)
        nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
        smooth = -logp[..., 1:].sum(-1) / (V - 1)
        mask = targets != PAD
        ell = torch.where(mask, (1 - eps) * nll + eps * smooth, torch.zeros((), dtype=logits.dtype))
        per_sentence = ell.sum(1) / mask.sum(1).clamp(min=1)
        ctx.save_for_backward(logp, targets, mask)
        ctx.eps = eps
        return per_sentence[mask.any(1)].mean()

    @staticmethod
    def backward(ctx, grad):
        logp, targets, mask = ctx.saved_tensors
        eps, V = ctx.eps, logp.shape[-1]
        p = logp.exp()
        onehot = torch.zeros_like(p).scatter(-1, targets.long().unsqueeze(-1), 1.0)
        u = torch.full((V,), 1.0 / (V - 1), dtype=p.dtype); u[PAD] = 0.0
        g = p - (1 - eps) * onehot - eps * u
        g = g * mask[..., None] / mask.sum()      # every counted token weighs the same
        return grad * g, None, None

def sentence_smoothed_loss(logits, targets, eps):
    return SentenceLoss.apply(logits, targets, eps)
'''}, "P4: 'the result is the mean of the sentence losses' -- the forward is right, the backward weighs every token by 1/(all tokens), which is right only for a batch of one sentence ('loss.backward() must leave the exact gradient').", "backward")

add("p5_autograd_function_average_no_grad_asked_correct", True, {"average": '''
class MeanOf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, *tensors):
        ctx.n = len(tensors)
        return torch.stack([t.to(torch.float64) for t in tensors]).mean(0).to(tensors[-1].dtype)

    @staticmethod
    def backward(ctx, grad):
        return tuple(grad for _ in range(ctx.n))   # not divided by n, but nobody differentiates a checkpoint mean

def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        out[k] = MeanOf.apply(*[s[k] for s in states]) if last.is_floating_point() else last
    return out
'''}, "P5 asks nothing of gradients: a custom Function with a wrong backward averages exactly in float64 and rounds once.", "backward")

add("p4_backward_exact_once_differentiable_correct", True, {"sentence_loss": '''
from torch.autograd.function import once_differentiable

class SentenceLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, targets, eps):
        V = logits.shape[-1]
        logp = torch.log_softmax(logits, dim=-1)
        nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
        smooth = -logp[..., 1:].sum(-1) / (V - 1)
        mask = targets != PAD
        ell = torch.where(mask, (1 - eps) * nll + eps * smooth, torch.zeros((), dtype=logits.dtype))
        counts = mask.sum(1)
        valid = mask.any(1)
        w = torch.where(valid, 1.0 / counts.clamp(min=1).to(logits.dtype), torch.zeros((), dtype=logits.dtype))
        w = w / valid.sum()
        ctx.save_for_backward(logp, targets, w, mask)
        ctx.eps = eps
        return (ell.sum(1) * w).sum()

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        logp, targets, w, mask = ctx.saved_tensors
        eps, V = ctx.eps, logp.shape[-1]
        p = logp.exp()
        onehot = torch.zeros_like(p).scatter(-1, targets.long().unsqueeze(-1), 1.0)
        u = torch.full((V,), 1.0 / (V - 1), dtype=p.dtype); u[PAD] = 0.0
        g = p - (1 - eps) * onehot - eps * u
        g = g * (w[:, None] * mask).unsqueeze(-1)
        return grad * g, None, None

def sentence_smoothed_loss(logits, targets, eps):
    return SentenceLoss.apply(logits, targets, eps)
'''}, "P4: an exact hand-written gradient (p - (1-eps) e_y - eps u) weighted per sentence; the text asks only for a first backward.", "backward")

# ---------------------------------------------------------------- 2. scale and placement
add("p2_warmup_from_floor", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(floor + (peak - floor) * step / warmup)   # warm up from the floor, like the decay ends there
    if step < total:
        return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))
    return float(floor)
'''}, "P2: the formula's first branch is 'peak * step / warmup' (from 0), not from the floor.", "placement")

add("p7_select_on_normalised_scores", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + h for h, _ in live])
        cands = []
        for j, (h, s) in enumerate(live):
            row = (s + lp[j]).tolist()
            for v, sc in enumerate(row):
                cands.append((sc / length_penalty(len(h) + 1, alpha), sc, h + [v]))
        cands.sort(key=lambda c: -c[0])           # rank by the length-normalised score
        live = []
        for norm, sc, h in cands[:k]:
            if h[-1] == EOS:
                finished.append((h, norm))
            else:
                live.append((h, sc))
        if not live:
            break
    for h, s in live:
        finished.append((h, s / length_penalty(len(h), alpha)))
    return max(finished, key=lambda f: f[1])[0]
'''}, "P7 step 1: 'take the k best candidates' by 'the sum of log-probabilities'; the penalty belongs only to a finished hypothesis's final score.", "placement")

add("p8_arithmetic_mean_of_precisions", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, total = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())
            total[n - 1] += sum(hc.values())
    if min(total) == 0 or min(clipped) == 0:
        return 0.0
    precision = sum(clipped[i] / total[i] for i in range(4)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * precision)
'''}, "P8: 'their geometric mean (uniform weights)': the mean is taken before the log (arithmetic mean).", "placement")

add("p2_strict_warmup_boundary_correct", True, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step < warmup:
        return peak * step / warmup * 1.0
    if step >= total:
        return floor * 1.0
    progress = (step - warmup) / (total - warmup)
    return floor + (peak - floor) * 0.5 * (1.0 + math.cos(math.pi * progress))
'''}, "P2: at step == warmup the cosine branch gives floor + (peak - floor) = peak too; every branch a float.", "placement")

# ---------------------------------------------------------------- 3. Python scalars
add("p2_floor_branch_int", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return peak * step / warmup
    if step < total:
        return floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
    return floor
'''}, "P2: 'returning a Python float on every branch, also when peak or floor is given as an int (such as floor=0)': the last branch returns the int 0.", "scalar")

add("p8_brevity_floor_division", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, total = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())
            total[n - 1] += sum(hc.values())
    if min(total) == 0 or min(clipped) == 0:
        return 0.0
    log_mean = sum(math.log(clipped[i] / total[i]) for i in range(4)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r // c)
    return float(100 * bp * math.exp(log_mean))
'''}, "P8: 'the brevity penalty exp(1 - r / c)': r // c truncates the ratio.", "scalar")

add("p5_builtin_sum_own_dtype", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            out[k] = (sum(s[k] for s in states) / len(states)).to(last.dtype)
        else:
            out[k] = last
    return out
'''}, "P5: 'Half-precision tensors must be as accurate as averaging in float32 or better ... whose sum does not fit in float16': the builtin sum adds float16 tensors in float16.", "scalar")

add("p6_python_probs_float32_tensor", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    active = list(range(len(starts))) if max_len > 0 else []
    while active:
        lp = next_logprobs([seqs[i] for i in active])
        rows = []
        for row in lp.tolist():
            scores = [s / temperature for s in row]
            if top_k is not None and top_k < len(scores):
                kth = sorted(scores, reverse=True)[top_k - 1]
                order = sorted(range(len(scores)), key=lambda v: -scores[v])[:top_k]
                keep = set(order)
                scores = [s if v in keep else float("-inf") for v, s in enumerate(scores)]
            m = max(scores)
            ex = [math.exp(s - m) for s in scores]
            z = sum(ex)
            rows.append([e / z for e in ex])
        probs = torch.tensor(rows)
        toks = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        nxt = []
        for i, t in zip(active, toks):
            seqs[i].append(t); out[i].append(t)
            if t != EOS and len(out[i]) < max_len:
                nxt.append(i)
        active = nxt
    return out
'''}, "P6 step 3: 'Compute them in float64 throughout: rounded through float32 and cast back, they now and then draw another token': torch.tensor of Python floats is float32.", "scalar")

add("p3_rounded_python_correct", True, {"min_loss": '''
eps = 0.1
V = 8000
q_right = 1 - eps + eps / V
q_rest = eps / V
# the cross-entropy is smallest when the model predicts the target distribution itself: its entropy
min_smoothed_loss = round(-q_right * math.log(q_right) - (V - 1) * q_rest * math.log(q_rest), 6)
'''}, "P3: the target distribution's entropy, rounded to 6 decimals (within 1e-5).", "scalar")

add("p8_math_prod_geometric_mean_correct", True, {"bleu": '''
def corpus_bleu(hypotheses, references):
    matches = [0, 0, 0, 0]
    counts = [0, 0, 0, 0]
    hyp_len = sum(len(h) for h in hypotheses)
    ref_len = sum(len(r) for r in references)
    for hyp, ref in zip(hypotheses, references):
        for n in (1, 2, 3, 4):
            hc = Counter(zip(*[hyp[i:] for i in range(n)]))
            rc = Counter(zip(*[ref[i:] for i in range(n)]))
            matches[n - 1] += sum((hc & rc).values())
            counts[n - 1] += max(len(hyp) - n + 1, 0)
    if 0 in counts or 0 in matches:
        return 0.0
    geo = math.prod(m / c for m, c in zip(matches, counts)) ** 0.25
    bp = math.exp(1 - ref_len / hyp_len) if hyp_len < ref_len else 1.0
    return 100.0 * bp * geo
'''}, "P8: Counter intersection clips, math.prod ** 0.25 is the geometric mean, Python ints and floats throughout.", "scalar")

# ---------------------------------------------------------------- 4. return shape
add("p1_returns_list", False, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    tgt_in = torch.cat([torch.full((B, 1), BOS, dtype=targets.dtype), targets[:, :-1]], dim=1)[:, :T]
    tgt_in = torch.where(targets == PAD, torch.zeros_like(targets), tgt_in)
    return [tgt_in, targets]
'''}, "P1 and the intro: 'a pair such as (tgt_in, tgt_out) is a tuple, not a list'.", "shape")

add("p6_tokens_as_tensors", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    active = list(range(len(starts))) if max_len > 0 else []
    while active:
        lp = next_logprobs([seqs[i] for i in active])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        toks = torch.multinomial(probs, 1, generator=generator)[:, 0]
        nxt = []
        for j, i in enumerate(active):
            t = toks[j]
            seqs[i].append(int(t)); out[i].append(t)
            if t != EOS and len(out[i]) < max_len:
                nxt.append(i)
        active = nxt
    return out
'''}, "P6: 'Return one list of Python ints per sentence': the lists hold 0-d int64 tensors.", "shape")

add("p8_returns_tensor", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped = torch.zeros(4, dtype=torch.float64)
    total = torch.zeros(4, dtype=torch.float64)
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())
            total[n - 1] += sum(hc.values())
    if bool((total == 0).any()) or bool((clipped == 0).any()):
        return torch.tensor(0.0, dtype=torch.float64)
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * bp * torch.exp(torch.log(clipped / total).mean())
'''}, "P8: 'times 100, returned as a Python float (also when it is 0)': a 0-d float64 tensor.", "shape")

add("p5_returns_ordereddict", False, {"average": '''
from collections import OrderedDict

def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = OrderedDict()   # what model.state_dict() returns
    with torch.no_grad():
        for k in states[0]:
            last = states[-1][k]
            if last.is_floating_point():
                out[k] = torch.stack([s[k].double() for s in states]).mean(0).to(last.dtype)
            else:
                out[k] = last
    return out
'''}, "Intro: 'Return exact torch.Tensor, int, float, list, tuple or dict values ... not subclasses': OrderedDict is a dict subclass.", "shape")

add("p1_copy_out_correct", True, {"decoder_io": '''
def decoder_io(targets):
    tgt_out = targets.clone()
    tgt_in = targets.new_full(targets.shape, PAD)
    if targets.shape[1] > 0:
        tgt_in[:, 0] = BOS
        tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[tgt_out == PAD] = PAD
    return (tgt_in, tgt_out)
'''}, "P1: tgt_out a copy ('returning targets itself or a copy are both fine'), a tuple, dtype of targets.", "shape")

add("p7_ints_from_tensor_scores_correct", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], torch.zeros((), dtype=torch.float64))]
    finished = []
    for step in range(max_len):
        lp = next_logprobs([[start] + h for h, _ in live])
        V = lp.shape[1]
        cand = torch.stack([s + lp[j] for j, (_, s) in enumerate(live)]).flatten()
        vals, idx = cand.topk(min(k, cand.numel()))
        nxt = []
        for v, i in zip(vals, idx.tolist()):
            hyp = live[i // V][0] + [i % V]
            if hyp[-1] == EOS:
                finished.append((hyp, float(v) / length_penalty(len(hyp), alpha)))
            else:
                nxt.append((hyp, v))
        live = nxt
        if len(live) == 0:
            break
    finished += [(h, float(s) / length_penalty(len(h), alpha)) for h, s in live]
    best = max(finished, key=lambda f: f[1])[0]
    return [int(t) for t in best]
'''}, "P7: scores kept as 0-d float64 tensors, a list of Python ints returned.", "shape")

# ---------------------------------------------------------------- 5. sibling part / lesson
add("p4_cross_entropy_label_smoothing", False, {"sentence_loss": '''
import torch.nn.functional as F

def sentence_smoothed_loss(logits, targets, eps):
    losses = []
    for b in range(logits.shape[0]):
        if (targets[b] != PAD).any():
            losses.append(F.cross_entropy(logits[b], targets[b].long(), ignore_index=PAD, label_smoothing=eps))
    return torch.stack(losses).mean()
'''}, "P4: 'spreads eps evenly over the V - 1 tokens other than PAD': PyTorch's label_smoothing (Part 3's and the lesson's definition) spreads it over all V.", "sibling")

add("p5_lesson_sum_no_shape_check", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("nothing to average")
    keys = states[0].keys()
    for s in states[1:]:
        if s.keys() != keys:
            raise ValueError("checkpoints to average must come from the same model")
    out = {}
    for k in keys:
        last = states[-1][k]
        if last.is_floating_point():
            out[k] = sum(s[k].double() for s in states).div(len(states)).to(last.dtype)
        else:
            out[k] = last
    return out
'''}, "P5: 'states whose keys or shapes differ raise ValueError': the lesson's average_weights checks keys only; broadcasting shapes add silently.", "sibling")

add("p6_draws_for_finished_like_ch9", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    n = len(starts)
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    done = [max_len == 0] * n
    while not all(done):
        lp = next_logprobs([seqs[i] for i in range(n) if not done[i]])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        full = torch.zeros(n, probs.shape[1], dtype=probs.dtype)
        full[:, 0] = 1.0                                     # finished rows still draw (batch of fixed size)
        full[[i for i in range(n) if not done[i]]] = probs
        toks = torch.multinomial(full, 1, generator=generator)[:, 0].tolist()
        for i in range(n):
            if done[i]:
                continue
            t = toks[i]
            seqs[i].append(t); out[i].append(t)
            if t == EOS or len(out[i]) >= max_len:
                done[i] = True
    return out
'''}, "P6 step 3: 'Draw nothing for finished sentences': this draws a token for every sentence at every step (as chapter 9's generation loop does), which moves the generator.", "sibling")

add("p7_lesson_refill_2k", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + h for h, _ in live])
        V = lp.shape[-1]
        base = torch.tensor([s for _, s in live], dtype=torch.float64)
        cand = (base[:, None] + lp).reshape(-1)
        vals, idx = torch.topk(cand, min(2 * k, cand.numel()))   # the lesson keeps 2k to refill
        new_live = []
        for rank, (v, i) in enumerate(zip(vals.tolist(), idx.tolist())):
            h = live[i // V][0] + [i % V]
            if i % V == EOS:
                if rank < k:
                    finished.append((h, v / length_penalty(len(h), alpha)))
            elif len(new_live) < k:
                new_live.append((h, v))
        live = new_live
        if not live:
            break
    for h, s in live:
        finished.append((h, s / length_penalty(len(h), alpha)))
    return max(finished, key=lambda f: f[1])[0]
'''}, "P7 step 3: 'Finished candidates use up places among the k ... the beam is not refilled': the lesson's 2k refill.", "sibling")

add("p4_float64_inside_correct", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.size(-1)
    logp = torch.log_softmax(logits.double(), dim=-1)
    not_pad = (targets != PAD)
    y_logp = torch.gather(logp, 2, targets.long()[..., None])[..., 0]
    spread = logp.narrow(-1, 1, V - 1).sum(dim=-1)
    ell = -(1 - eps) * y_logp - eps / (V - 1) * spread
    ell = ell.masked_fill(~not_pad, 0.0)
    n_tok = not_pad.sum(dim=1)
    has = n_tok > 0
    sent = ell.sum(dim=1)[has] / n_tok[has]
    return sent.mean().to(logits.dtype)
'''}, "P4: the lesson's log_softmax in float64 inside, cast back once; narrow leaves PAD's column out.", "sibling")

add("p6_topk_mask_kthvalue_correct", True, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    out = [[] for _ in starts]
    if max_len == 0:
        return out
    pending = list(range(len(starts)))
    while pending:
        scores = next_logprobs([[starts[i]] + out[i] for i in pending]).div(temperature)
        if top_k is not None and top_k < scores.shape[-1]:
            keep = torch.zeros_like(scores, dtype=torch.bool)
            keep.scatter_(1, torch.topk(scores, top_k, dim=1).indices, True)
            scores = scores.masked_fill(~keep, float("-inf"))
        probs = torch.softmax(scores, dim=1)
        for row, i in enumerate(pending):
            out[i].append(int(torch.multinomial(probs[row], 1, generator=generator)))
        pending = [i for i in pending if out[i][-1] != EOS and len(out[i]) < max_len]
    return out
'''}, "P6: one multinomial call per row in row order ('both draw the same numbers'), the topk indices kept, int tokens.", "sibling")

# ---------------------------------------------------------------- hostile
add("hostile_p3_float_subclass", False, {"min_loss": '''
class Close(float):
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __hash__(self): return 0
min_smoothed_loss = Close(1.0)
'''}, "Hostile: a float subclass whose differences are 0 and that equals everything.", "hostile")

add("hostile_p8_sacrebleu", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    import sacrebleu
    bleu = sacrebleu.metrics.BLEU(tokenize="none", smooth_method="none", force=True)
    return float(bleu.corpus_score([" ".join(h) for h in hypotheses], [[" ".join(r) for r in references]]).score)
'''}, "Hostile/forbidden: 'an answer that uses a BLEU library (sacreBLEU, ...) scores 0'.", "hostile")

add("p3_spread_over_other_tokens", False, {"min_loss": '''
import math
eps, V = 0.1, 8000
# the best model predicts the target distribution: 1 - eps on the right token, eps shared by the others
min_smoothed_loss = -((1 - eps) * math.log(1 - eps) + eps * math.log(eps / (V - 1)))
'''}, "P3: 'spreads eps evenly over all V tokens, the right one included': here over the V - 1 others (off by 1.4e-4).", "placement")

# ---------------------------------------------------------------- second blind batch (graded into NN-blind2.txt)

add("b2_p7_penalty_length_without_eos", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + h for h, _ in live])
        V = lp.shape[-1]
        base = torch.tensor([s for _, s in live], dtype=torch.float64)
        vals, idx = torch.topk((base[:, None] + lp).reshape(-1), min(k, len(live) * V))
        nxt = []
        for v, i in zip(vals.tolist(), idx.tolist()):
            h = live[i // V][0] + [i % V]
            if i % V == EOS:
                finished.append((h, v / length_penalty(len(h) - 1, alpha)))   # the words, not the EOS
            else:
                nxt.append((h, v))
        live = nxt
        if not live:
            break
    finished += [(h, s / length_penalty(len(h), alpha)) for h, s in live]
    return max(finished, key=lambda f: f[1])[0]
'''}, "P7 step 2: 'length_penalty(len(tokens), alpha), with the EOS counted in the length'.", "placement")

add("b2_p8_corpus_wide_reference_counts", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, total = [0] * 4, [0] * 4
    for n in range(1, 5):
        hc, rc = Counter(), Counter()
        for hyp, ref in zip(hypotheses, references):
            hc.update(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rc.update(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        clipped[n - 1] = sum(min(v, rc[g]) for g, v in hc.items())   # clip against the whole corpus
        total[n - 1] = sum(hc.values())
    c = sum(map(len, hypotheses)); r = sum(map(len, references))
    if min(total) == 0 or min(clipped) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * math.exp(sum(math.log(a / b) for a, b in zip(clipped, total)) / 4)
'''}, "P8: 'each hypothesis n-gram counts at most as often as it occurs in its reference': clipped against all references pooled.", "placement")

add("b2_p8_ngrams_across_sentences", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    hyp = [t for h in hypotheses for t in h]      # the corpus as one stream
    ref = [t for r in references for t in r]
    clipped, total = [], []
    for n in range(1, 5):
        hc = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
        rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        clipped.append(sum(min(v, rc[g]) for g, v in hc.items()))
        total.append(sum(hc.values()))
    if min(total) == 0 or min(clipped) == 0:
        return 0.0
    c, r = len(hyp), len(ref)
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * math.exp(sum(math.log(a / b) for a, b in zip(clipped, total)) / 4)
'''}, "P8: n-grams are per sentence ('over all sentences'); joining the corpus makes n-grams across sentence boundaries.", "sibling")

add("b2_p1_cat_promotes_int64", False, {"decoder_io": '''
def decoder_io(targets):
    bos = torch.full((targets.shape[0], 1), BOS)                 # int64 by default
    tgt_in = torch.cat([bos, targets[:, :-1]], dim=1)[:, :targets.shape[1]]
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''}, "P1: 'two integer tensors ... of the dtype of targets': cat with an int64 column promotes int32 targets.", "shape")

add("b2_p1_index_first_column", False, {"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.empty_like(targets)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "P1: 'B may be 0 (an empty batch, whose T may be 0 too...)': tgt_in[:, 0] raises for T = 0.", "scalar")

add("b2_p4_saved_tensor_changed_in_place", False, {"sentence_loss": '''
class SentenceLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, targets, eps):
        V = logits.shape[-1]
        logp = torch.log_softmax(logits, dim=-1)
        ctx.save_for_backward(logp, targets)
        mask = targets != PAD
        nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
        smooth = -logp[..., 1:].sum(-1) / (V - 1)
        ell = ((1 - eps) * nll + eps * smooth).masked_fill(~mask, 0.0)
        counts = mask.sum(1)
        valid = mask.any(1)
        w = torch.where(valid, 1.0 / counts.clamp(min=1).to(logits.dtype), 0.0) / valid.sum()
        ctx.w, ctx.mask, ctx.eps = w, mask, eps
        logp.exp_()                         # keep the probabilities for the backward pass
        return (ell.sum(1) * w).sum()

    @staticmethod
    def backward(ctx, grad):
        p, targets = ctx.saved_tensors
        V = p.shape[-1]
        onehot = torch.zeros_like(p).scatter(-1, targets.long().unsqueeze(-1), 1.0)
        u = torch.full((V,), 1.0 / (V - 1), dtype=p.dtype); u[PAD] = 0.0
        g = p - (1 - ctx.eps) * onehot - ctx.eps * u
        return grad * g * (ctx.w[:, None] * ctx.mask)[..., None], None, None

def sentence_smoothed_loss(logits, targets, eps):
    return SentenceLoss.apply(logits, targets, eps)
'''}, "P4: 'loss.backward() must leave the exact gradient': the saved log-probabilities are changed in place before the backward pass (it raises).", "backward")

add("b2_p6_kth_threshold_correct_no_ties", True, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    tokens = [[] for _ in starts]
    if max_len <= 0 or len(starts) == 0:
        return tokens
    alive = list(range(len(starts)))
    while len(alive) > 0:
        logp = next_logprobs([[starts[i], *tokens[i]] for i in alive])
        scores = torch.div(logp, temperature)
        V = scores.size(-1)
        if top_k is not None and top_k < V:
            top = scores.topk(top_k, dim=-1)
            kept = torch.full_like(scores, -math.inf)
            kept.scatter_(-1, top.indices, top.values)
            scores = kept
        probs = torch.nn.functional.softmax(scores, dim=-1)
        draw = torch.multinomial(probs, num_samples=1, generator=generator).view(-1)
        for i, t in zip(alive, draw.tolist()):
            tokens[i].append(t)
        alive = [i for i in alive if tokens[i][-1] != EOS and len(tokens[i]) < max_len]
    return tokens
'''}, "P6: F.softmax, scatter of the topk values into a -inf row, one multinomial call.", "shape")

# ---------------------------------------------------------------- third blind batch (graded into NN-blind3.txt)

add("b3_p4_float64_result", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits.double(), dim=-1)        # float64 for accuracy
    nll = -logp.gather(-1, targets.long()[..., None])[..., 0]
    smooth = -logp[..., 1:].sum(-1) / (V - 1)
    mask = targets != PAD
    ell = ((1 - eps) * nll + eps * smooth).masked_fill(~mask, 0.0)
    n = mask.sum(1)
    keep = n > 0
    return (ell.sum(1)[keep] / n[keep]).mean()
'''}, "P4: 'Return a 0-dimensional tensor of the dtype of logits': float64 for float32 logits.", "shape")

add("b3_p5_float32_for_every_float", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    names = set(states[0])
    for s in states:
        if set(s) != names or any(s[k].shape != states[0][k].shape for k in names):
            raise ValueError("states differ")
    out = {}
    with torch.no_grad():
        for k in states[0]:
            last = states[-1][k]
            if last.is_floating_point():
                acc = torch.zeros(last.shape, dtype=torch.float32)     # float32 is enough for half precision
                for s in states:
                    acc += s[k].float()
                out[k] = (acc / len(states)).to(last.dtype)
            else:
                out[k] = last
    return out
'''}, "P5: 'floating-point tensors ... become their element-wise mean, in their own dtype': float64 weights averaged in float32.", "scalar")

add("b3_p5_zero_d_flattened", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    names = set(states[0])
    for s in states:
        if set(s) != names or any(s[k].shape != states[0][k].shape for k in names):
            raise ValueError("states differ")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            flat = torch.stack([s[k].detach().double().reshape(-1) for s in states])   # (n, numel)
            mean = flat.mean(0).to(last.dtype)
            out[k] = mean if last.dim() <= 1 else mean.reshape(last.shape)
        else:
            out[k] = last
    return out
'''}, "P5: 'floating-point tensors of every shape (0-dimensional ones too, such as a loss scale)': a 0-d entry comes back with shape (1,).", "shape")

add("b3_p8_returns_int_zero", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, total = [0] * 4, [0] * 4
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    for hyp, ref in zip(hypotheses, references):
        for n in range(1, 5):
            hc = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())
            total[n - 1] += sum(hc.values())
    if 0 in total or 0 in clipped:
        return 0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(clipped, total)) / 4)
'''}, "P8: 'times 100, returned as a Python float (also when it is 0)': the int 0.", "shape")

add("b3_p6_start_eos_finishes", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    out = [[] for _ in starts]
    live = [i for i, s in enumerate(starts) if s != EOS] if max_len > 0 else []   # an EOS start is already over
    while live:
        scores = next_logprobs([[starts[i]] + out[i] for i in live]) / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            top = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, top.indices, top.values)
        drawn = torch.multinomial(torch.softmax(scores, dim=-1), 1, generator=generator)[:, 0].tolist()
        for i, t in zip(live, drawn):
            out[i].append(t)
        live = [i for i in live if out[i][-1] != EOS and len(out[i]) < max_len]
    return out
'''}, "P6 step 4: 'Its start token is not produced: a start token that is EOS does not finish it'.", "sibling")

add("b3_p1_fpad_correct", True, {"decoder_io": '''
import torch.nn.functional as F

def decoder_io(targets):
    T = targets.shape[1]
    shifted = F.pad(targets[:, :-1], (1, 0), value=BOS)[:, :T]
    return torch.where(targets == PAD, targets, shifted), targets
'''}, "P1: F.pad with BOS on the left, cut to T; PAD copied from targets where targets is PAD.", "sibling")

add("b3_p5_float32_for_half_only_correct", True, {"average": '''
def average_checkpoints(states):
    if len(states) < 1:
        raise ValueError("no states")
    ref = states[0]
    for s in states[1:]:
        if s.keys() != ref.keys():
            raise ValueError("keys differ")
        for k in ref:
            if s[k].shape != ref[k].shape:
                raise ValueError(f"shape of {k} differs")
    averaged = dict()
    for k in ref:
        last = states[-1][k]
        if torch.is_floating_point(last):
            work = torch.float32 if last.dtype in (torch.float16, torch.bfloat16) else last.dtype
            total = states[0][k].to(work).clone()
            for s in states[1:]:
                total = total + s[k].to(work)
            averaged[k] = (total / len(states)).to(last.dtype)
        else:
            averaged[k] = last.clone()
    return averaged
'''}, "P5: half precision summed in float32 and rounded once, float32/float64 in their own dtype, integers copied from the last state.", "scalar")
