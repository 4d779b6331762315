REFERENCE = {
"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return t * (t + 1) // 2
    return window * (window + 1) // 2 + (t - window) * window
''',
"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
''',
"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    chosen = pick.gather(1, last.clamp(min=0))
    return chosen & (last >= 0)
''',
"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    weights = torch.where(keep, probs, torch.zeros_like(probs))
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    return torch.multinomial(weights, 1, generator=generator).squeeze(-1)
''',
"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad:
                break
            if tok in sent:
                cur = tok
                spans[cur] = []
            else:
                spans[cur].append(tok)
        out, nz = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:
                out += spans[tok]
                nz += [True] * len(spans[tok])
            else:
                out.append(tok)
                nz.append(False)
        rows.append(out)
        noises.append(nz)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64).reshape(len(rows), T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool).reshape(len(rows), T)
    return tokens, noise
''',
"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices
    k = min(capacity, N)
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order[:k], True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
''',
"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    qg = q.to(work).reshape(B, G, H // G, T, Dh)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k.to(work)) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    w = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    out = torch.einsum("bgrts,bgsd->bgrtd", w, v.to(work))
    return out.reshape(B, H, T, Dh).to(q.dtype)
''',
"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    gap = i[:, None] - i[None, :]
    powers = torch.pow(torch.tensor(decay, dtype=work), gap.clamp(min=0).to(work))
    w = torch.where(gap >= 0, powers, torch.zeros((), dtype=work))
    A = (fq @ fk.transpose(-1, -2)) * w
    return ((A @ v.to(work)) / A.sum(-1, keepdim=True)).to(q.dtype)
''',
}
SUBMISSIONS = [
# ---------------- wrong: sampling-and-randomness student ----------------
{"name": "W01-minp-strict-greater", "correct": False, "kind": "sampling",
 "why": "P4 'keep token i ... when its probability is **at least** min_p times the largest' (p_i >= ...): uses > against the threshold.",
 "cells": {"min_p_sample": REFERENCE["min_p_sample"].replace("keep = probs >= min_p", "keep = probs > min_p")}},
{"name": "W02-minp-global-generator", "correct": False, "kind": "sampling",
 "why": "P4 'draw every random number from generator': torch.multinomial without generator= draws from the global generator.",
 "cells": {"min_p_sample": REFERENCE["min_p_sample"].replace("torch.multinomial(weights, 1, generator=generator)", "torch.multinomial(weights, 1)")}},
{"name": "W03-minp-reseed-each-call", "correct": False, "kind": "sampling",
 "why": "P4 'a second call with the same generator draws new numbers (it advances; ... a copy of its state, would repeat them)': reseeds the generator from its initial seed every call.",
 "cells": {"min_p_sample": REFERENCE["min_p_sample"].replace("    if logits.shape[0] == 0:", "    generator.manual_seed(generator.initial_seed())  # reproducible\n    if logits.shape[0] == 0:")}},
{"name": "W04-minp-gumbel-single-log", "correct": False, "kind": "sampling",
 "why": "P4 'draw one token per row from the kept probabilities, renormalised': Gumbel-max with -log(u) (one log) is not Gumbel noise, so the distribution is wrong.",
 "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    logp = torch.log(probs).masked_fill(~keep, float("-inf"))
    u = torch.rand(logits.shape, generator=generator, dtype=probs.dtype).clamp_min(1e-20)
    return (logp - torch.log(u)).argmax(dim=-1)
'''}},
{"name": "W05-minp-skip-draw-when-certain", "correct": False, "kind": "sampling",
 "why": "P4 'Draw on every call with B >= 1, also where every row keeps a single token': returns the argmax without drawing when every row is certain.",
 "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    if bool((keep.sum(dim=-1) == 1).all()):
        return probs.argmax(dim=-1)          # nothing to sample: greedy
    weights = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(weights, 1, generator=generator).squeeze(-1)
'''}},
{"name": "W06-expert-jitter-noise", "correct": False, "kind": "sampling",
 "why": "P6 'probs is the router's softmax over the experts' and intro (no global generator): Switch-style multiplicative jitter on the logits drawn from the global generator.",
 "cells": {"expert_choice": REFERENCE["expert_choice"].replace("    probs = torch.softmax(router_logits, dim=-1)\n", "    jitter = torch.empty_like(router_logits).uniform_(1 - 1e-7, 1 + 1e-7)\n    probs = torch.softmax(router_logits * jitter, dim=-1)\n", 1)}},
# ---------------- wrong: rounding-and-integer student ----------------
{"name": "W07-window-float-half", "correct": False, "kind": "rounding",
 "why": "P1 'count with Python integer arithmetic (exactly: not through float)': t*(t+1)/2 then int().",
 "cells": {"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return int(t * (t + 1) / 2)
    return int(window * (window + 1) / 2) + (t - window) * window
'''}},
{"name": "W08-tokens-int-at-alpha-one", "correct": False, "kind": "rounding",
 "why": "P2 'Return a Python float, whatever the type of alpha': returns gamma + 1 (an int) for alpha == 1.",
 "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}},
{"name": "W09-tokens-log-expm1", "correct": False, "kind": "rounding",
 "why": "P2 '0 <= alpha <= 1 (both ends included)': the numerically careful expm1/log form raises at alpha = 0 (math domain error).",
 "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma + 1)
    la = math.log(alpha)
    return math.expm1((gamma + 1) * la) / math.expm1(la)
'''}},
{"name": "W10-spans-sentinels-cast-to-input-dtype", "correct": False, "kind": "rounding",
 "why": "P5 'the list may also hold sentinels that no row uses, outside int32's range even when inputs is int32': sentinels cast to the inputs' dtype wrap into real token ids.",
 "cells": {"span_corrupt": REFERENCE["span_corrupt"].replace("sent = set(sentinels.tolist())", "sent = set(sentinels.to(inputs.dtype).tolist())")}},
{"name": "W11-gqa-positions-in-q-dtype", "correct": False, "kind": "rounding",
 "why": "P7 'compare positions as integers: S may pass 256 and 2048, past which bfloat16 and float16 do not hold every position'.",
 "cells": {"gqa_cached_attention": REFERENCE["gqa_cached_attention"].replace("allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]", "allowed = torch.arange(S, dtype=q.dtype)[None, :] <= torch.arange(S - T, S, dtype=q.dtype)[:, None]")}},
{"name": "W12-decay-powers-default-float", "correct": False, "kind": "rounding",
 "why": "P8 'within 1e-10 ... for float64 inputs (... compute float64 in float64, the powers of the decay included)': torch.pow(decay, int gaps) gives float32 powers.",
 "cells": {"decayed_linear_attention": REFERENCE["decayed_linear_attention"].replace("powers = torch.pow(torch.tensor(decay, dtype=work), gap.clamp(min=0).to(work))", "powers = torch.pow(decay, gap.clamp(min=0))")}},
{"name": "W13-gqa-scores-in-q-dtype", "correct": False, "kind": "rounding",
 "why": "P7 'their dot products can pass 65504 ... where scores computed in float16 overflow: compute them in float32 and round once at the end'.",
 "cells": {"gqa_cached_attention": REFERENCE["gqa_cached_attention"].replace("work = torch.float64 if q.dtype == torch.float64 else torch.float32", "work = q.dtype")}},
# ---------------- wrong: counting-and-units student ----------------
{"name": "W14-tokens-linear-expectation", "correct": False, "kind": "counting",
 "why": "P2 'The target checks them in order and stops at the first rejection': gamma * alpha + 1 counts accepted drafts as if none stopped the round.",
 "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return float(gamma * alpha + 1)   # expected accepted drafts + the target's own token
'''}},
{"name": "W15-window-loop-over-queries", "correct": False, "kind": "counting",
 "why": "P1 't and window can be as large as 10**15': a loop over the t queries never ends for such sizes.",
 "cells": {"window_pairs": '''
def window_pairs(t, window):
    return sum(min(i + 1, window) for i in range(t))
'''}},
{"name": "W16-expert-rank-by-logits", "correct": False, "kind": "counting",
 "why": "P6 'expert e takes the capacity tokens with the largest probs[:, e]' (probs over the experts, per token): ranks each column by the raw logit.",
 "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(router_logits, dim=0, descending=True, stable=True).indices   # the expert's own scores
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order[:min(capacity, N)], True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}},
{"name": "W17-window-small-path-tensor", "correct": False, "kind": "counting",
 "why": "P1 'use no tensors or arrays at all, on any path of your code (not even to build the mask for small t)'.",
 "cells": {"window_pairs": '''
def window_pairs(t, window):
    if t <= 64:   # small: count the mask itself
        i = torch.arange(t)
        return int(((i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - window)).sum())
    return window * (window + 1) // 2 + (t - window) * window if t > window else t * (t + 1) // 2
'''}},
# ---------------- wrong: allocation student ----------------
{"name": "W18-wholeword-float-buffer", "correct": False, "kind": "allocation",
 "why": "P3 'Return a **boolean** tensor': filled into torch.zeros(B, T) (float32), which .tolist() compares equal to booleans.",
 "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T)
    for b in range(B):
        current = None
        for t in range(T):
            if starts[b, t]:
                current = bool(pick[b, t])
            if current:
                out[b, t] = 1
    return out
'''}},
{"name": "W19-wholeword-stack-rows", "correct": False, "kind": "allocation",
 "why": "P3 'The batch may be empty (B = 0): then return a (0, T) tensor and raise nothing (torch.stack of an empty list raises)'.",
 "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    rows = []
    for s_row, p_row in zip(starts, pick):
        word = torch.cumsum(s_row.long(), 0)              # word number, 0 before the first start
        start_pos = torch.nonzero(s_row).flatten()
        chosen_word = torch.cat([torch.zeros(1, dtype=torch.bool), p_row[start_pos]])
        rows.append(chosen_word[word])
    return torch.stack(rows)
'''}},
{"name": "W20-minp-empty-float", "correct": False, "kind": "allocation",
 "why": "P4 'Return the token ids as an int64 tensor ... (B = 0): then return an empty (0,) tensor': torch.empty(0) is float32.",
 "cells": {"min_p_sample": REFERENCE["min_p_sample"].replace("return torch.zeros(0, dtype=torch.int64)", "return torch.empty(0)")}},
{"name": "W21-spans-full-in-input-dtype", "correct": False, "kind": "allocation",
 "why": "P5 'tokens (int64) holds the original sequences': the padded buffer is torch.full(..., dtype=inputs.dtype), int32 for int32 inputs.",
 "cells": {"span_corrupt": REFERENCE["span_corrupt"].replace("dtype=torch.int64).reshape(len(rows), T)", "dtype=inputs.dtype).reshape(len(rows), T)")}},
{"name": "W22-spans-nothing-hidden-returns-input", "correct": False, "kind": "allocation",
 "why": "P5 'return new tensors, also where nothing was hidden ... never an input itself': a shortcut returns inputs.long(), which is inputs itself for int64.",
 "cells": {"span_corrupt": REFERENCE["span_corrupt"].replace("    sent = set(sentinels.tolist())\n", "    if inputs.numel() and not torch.isin(inputs, sentinels).any():\n        return inputs.long(), torch.zeros(inputs.shape, dtype=torch.bool)\n    sent = set(sentinels.tolist())\n", 1)}},
{"name": "W23-expert-gate-zeros-buffer", "correct": False, "kind": "allocation",
 "why": "P6 'gate ... in the dtype of router_logits (float16 and bfloat16 included)': gate filled into torch.zeros(N, E) (float32).",
 "cells": {"expert_choice": REFERENCE["expert_choice"].replace("gate = torch.where(chosen, probs, torch.zeros_like(probs))", "gate = torch.zeros(N, E)\n    gate[chosen] = probs[chosen]")}},
{"name": "W24-expert-capacity0-shortcut", "correct": False, "kind": "allocation",
 "why": "P6 'gradients must flow through gate (for every capacity, 0 included)' and dtype of logits: capacity 0 returns fresh zeros with no graph.",
 "cells": {"expert_choice": REFERENCE["expert_choice"].replace("    probs = torch.softmax(router_logits, dim=-1)\n", "    if capacity == 0:\n        N, E = router_logits.shape\n        return torch.zeros(N, E, dtype=torch.bool), torch.zeros(N, E, dtype=router_logits.dtype)\n    probs = torch.softmax(router_logits, dim=-1)\n", 1)}},
{"name": "W25-gqa-out-buffer-float32", "correct": False, "kind": "allocation",
 "why": "P7 'accuracy ... within 1e-10 for float64 inputs ... compute float64 in float64' and 'return in the dtype of q': out buffer torch.empty(B, H, T, Dh) is float32.",
 "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    out = torch.empty(B, H, T, Dh)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    for h in range(H):
        g = h // (H // G)
        scores = (q[:, h].float() @ k[:, g].float().transpose(-1, -2)) / math.sqrt(Dh)
        w = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        out[:, h] = w @ v[:, g].float()
    return out.to(q.dtype)
'''}},
{"name": "W26-decay-recurrence-float32-buffer", "correct": False, "kind": "allocation",
 "why": "P8 'within 1e-10 ... for float64 inputs ... compute float64 in float64': outputs written into torch.zeros(...) float32.",
 "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q.float()) + 1, F.elu(k.float()) + 1
    vf = v.float()
    T = q.shape[-2]
    out = torch.zeros(*v.shape)
    S = torch.zeros(*fk.shape[:-2], fk.shape[-1], v.shape[-1])
    z = torch.zeros(*fk.shape[:-2], fk.shape[-1])
    for i in range(T):
        S = decay * S + fk[..., i, :, None] * vf[..., i, None, :]
        z = decay * z + fk[..., i, :]
        num = (fq[..., i, :, None] * S).sum(-2)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        out[..., i, :] = num / den
    return out.to(q.dtype)
'''}},
# ---------------- correct ----------------
{"name": "C01-window-comb", "correct": True, "kind": "counting",
 "why": "P1 with math.comb and min(), Python ints only.",
 "cells": {"window_pairs": '''
def window_pairs(t, window):
    w = min(t, window)
    return math.comb(w + 1, 2) + (t - w) * window
'''}},
{"name": "C02-tokens-fraction", "correct": True, "kind": "rounding",
 "why": "P2 with exact Fraction arithmetic, float once at the end.",
 "cells": {"tokens_per_target_pass": '''
from fractions import Fraction
def tokens_per_target_pass(alpha, gamma):
    a = Fraction(alpha)
    if a == 1:
        return float(gamma + 1)
    return float((1 - a ** (gamma + 1)) / (1 - a))
'''}},
{"name": "C03-tokens-horner-loop", "correct": True, "kind": "counting",
 "why": "P2 as a Horner loop over the gamma rounds (1 + a(1 + a(...))) in floats.",
 "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    expected = 1.0
    for _ in range(gamma):
        expected = 1.0 + float(alpha) * expected
    return expected
'''}},
{"name": "C04-wholeword-loop-zeros-like", "correct": True, "kind": "allocation",
 "why": "P3 with a per-row loop over the starts into torch.zeros_like(pick) (bool).",
 "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    out = torch.zeros_like(pick, dtype=torch.bool)
    B, T = starts.shape
    for b in range(B):
        idx = torch.nonzero(starts[b]).flatten().tolist() + [T]
        for s, e in zip(idx[:-1], idx[1:]):
            if pick[b, s]:
                out[b, s:e] = True
    return out
'''}},
{"name": "C05-minp-inverse-cdf", "correct": True, "kind": "sampling",
 "why": "P4: one uniform per row from the generator and inverse-CDF over the renormalised kept probabilities (the text fixes no sampling method).",
 "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits.to(torch.float64), dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    weights = torch.where(keep, probs, torch.zeros_like(probs))
    weights = weights / weights.sum(dim=-1, keepdim=True)
    B, V = logits.shape
    u = torch.rand(B, 1, generator=generator, dtype=torch.float64)
    cdf = weights.cumsum(dim=-1)
    idx = (cdf <= u).sum(dim=-1)
    last_kept = V - 1 - keep.flip(-1).to(torch.int64).argmax(dim=-1)
    return torch.minimum(idx, last_kept).to(torch.int64)
'''}},
{"name": "C06-minp-row-loop-buffer", "correct": True, "kind": "allocation",
 "why": "P4: a per-row multinomial into a preallocated int64 buffer, all draws from the generator.",
 "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B = logits.shape[0]
    ids = torch.zeros(B, dtype=torch.int64)
    for b in range(B):
        p = torch.softmax(logits[b], dim=-1)
        w = torch.where(p >= min_p * p.max(), p, torch.zeros_like(p))
        ids[b] = torch.multinomial(w / w.sum(), num_samples=1, generator=generator)[0]
    return ids
'''}},
{"name": "C07-spans-full-pad-buffer", "correct": True, "kind": "allocation",
 "why": "P5: a torch.full(pad, int64) buffer and a bool zeros buffer, filled row by row; ids stay Python ints.",
 "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(int(s) for s in sentinels.tolist())
    rows = []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        tgt = [x for x in tgt if x != pad]
        spans, cur = {}, None
        for x in tgt:
            if x in sent:
                cur = spans.setdefault(x, [])
            else:
                cur.append(x)
        row = []
        for x in inp:
            if x == pad:
                break
            row.extend((y, True) for y in spans[x]) if x in sent else row.append((x, False))
        rows.append(row)
    B = inputs.shape[0]
    T = max([len(r) for r in rows] + [0])
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros((B, T), dtype=torch.bool)
    for b, row in enumerate(rows):
        if row:
            tokens[b, :len(row)] = torch.tensor([x for x, _ in row], dtype=torch.int64)
            noise[b, :len(row)] = torch.tensor([n for _, n in row], dtype=torch.bool)
    return tokens, noise
'''}},
{"name": "C08-expert-argsort-per-expert", "correct": True, "kind": "counting",
 "why": "P6: per expert a stable argsort of -probs[:, e] (negation is exact), capacity clipped to N.",
 "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = F.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros((N, E), dtype=torch.bool)
    for e in range(E):
        order = torch.argsort(-probs[:, e], stable=True)
        chosen[order[:capacity], e] = True
    gate = probs.masked_fill(~chosen, 0.0)
    return chosen, gate
'''}},
{"name": "C09-gqa-repeat-interleave", "correct": True, "kind": "allocation",
 "why": "P7 with repeat_interleave of the K/V heads, a -inf masked_fill in float32/float64 and one cast at the end.",
 "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    dt = torch.float64 if q.dtype == torch.float64 else torch.float32
    kk = k.to(dt).repeat_interleave(H // G, dim=1)
    vv = v.to(dt).repeat_interleave(H // G, dim=1)
    scores = q.to(dt) @ kk.transpose(-2, -1) * (1.0 / math.sqrt(Dh))
    key_pos = torch.arange(S, dtype=torch.int64)
    query_pos = torch.arange(S - T, S, dtype=torch.int64)
    hidden = key_pos.unsqueeze(0) > query_pos.unsqueeze(1)
    w = torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1)
    return (w @ vv).to(q.dtype)
'''}},
{"name": "C10-decay-extra-gamma-cancels", "correct": True, "kind": "counting",
 "why": "P8: decay exponent i - j + 1 (decay counted once more on every key): a common factor that cancels in the ratio.",
 "cells": {"decayed_linear_attention": REFERENCE["decayed_linear_attention"].replace("gap.clamp(min=0).to(work))", "(gap.clamp(min=0) + 1).to(work))")}},
{"name": "C11-decay-exact-phi", "correct": True, "kind": "rounding",
 "why": "P8: phi(x) = elu(x) + 1 written as where(x > 0, x + 1, exp(x)), the same function, more accurate for very negative x.",
 "cells": {"decayed_linear_attention": REFERENCE["decayed_linear_attention"].replace("fq, fk = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1", "phi = lambda x: torch.where(x > 0, x + 1, torch.exp(torch.clamp(x, max=0)))\n    fq, fk = phi(q.to(work)), phi(k.to(work))")}},
{"name": "C12-decay-recurrence-work-dtype", "correct": True, "kind": "allocation",
 "why": "P8 as the recurrence of the text, the state in float32/float64 built with new_zeros, results stacked along T.",
 "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    S = fq.new_zeros(fq.shape[:-2] + (fq.shape[-1], vv.shape[-1]))
    z = fq.new_zeros(fq.shape[:-2] + (fq.shape[-1],))
    outs = []
    for i in range(T):
        S = decay * S + fk[..., i, :, None] * vv[..., i, None, :]
        z = decay * z + fk[..., i, :]
        num = (fq[..., i, :, None] * S).sum(-2)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    out = torch.stack(outs, dim=-2) if outs else vv.new_zeros(vv.shape)
    return out.to(q.dtype)
'''}},
# ---------------- hostile ----------------
{"name": "H01-window-int-subclass", "correct": False, "kind": "hostile",
 "why": "P1: returns an int subclass that compares equal to anything.",
 "cells": {"window_pairs": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def window_pairs(t, window):
    return Count(min(t, window))
'''}},
{"name": "H02-gqa-frame-snoop-reference", "correct": False, "kind": "hostile",
 "why": "P7: looks up the grader's reference function in the caller's frames and returns its result; otherwise attention without the causal mask.",
 "cells": {"gqa_cached_attention": '''
import sys as sysmod
def gqa_cached_attention(q, k, v):
    f = sysmod._getframe(1)
    while f is not None:
        for space in (f.f_locals, f.f_globals):
            for name, obj in list(space.items()):
                if callable(obj) and obj is not gqa_cached_attention and "gqa" in name.lower() and hasattr(obj, "__code__"):
                    try:
                        return obj(q, k, v)
                    except Exception:
                        pass
        f = f.f_back
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    kk, vv = k.repeat_interleave(H // G, 1), v.repeat_interleave(H // G, 1)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    return torch.softmax((q @ kk.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~allowed, -1e4), -1) @ vv
'''}},
# ---------------- second pass (still blind) ----------------
{"name": "W27-minp-one-uniform-per-batch", "correct": False, "kind": "sampling",
 "why": "P4 'draw one token per row': one uniform shared by every row (inverse CDF), so the rows' draws are not independent.",
 "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, torch.zeros_like(probs))
    w = w / w.sum(dim=-1, keepdim=True)
    u = torch.rand(1, generator=generator, dtype=w.dtype)     # one draw for the batch
    idx = (w.cumsum(dim=-1) <= u).sum(dim=-1)
    last = w.shape[-1] - 1 - keep.flip(-1).long().argmax(dim=-1)
    return torch.minimum(idx, last).long()
'''}},
{"name": "W28-minp-log-space-threshold", "correct": False, "kind": "rounding",
 "why": "P4 'keep token i when its probability is at least min_p times the largest probability ... no tolerance': the threshold taken in log space (logit >= max logit + log(min_p)), which rounds differently at the threshold.",
 "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    keep = logits >= logits.max(dim=-1, keepdim=True).values + math.log(min_p)
    weights = torch.softmax(logits.masked_fill(~keep, float("-inf")), dim=-1)
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    return torch.multinomial(weights, 1, generator=generator).squeeze(-1)
'''}},
{"name": "W29-wholeword-int16-word-ids", "correct": False, "kind": "rounding",
 "why": "P3 'rows of tens of thousands of positions, most of them starts': word numbers kept in int16 wrap past 32767.",
 "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    word = torch.cumsum(starts, dim=1, dtype=torch.int16)          # word number, 0 before the first start
    n_words = int(word.max()) if word.numel() else 0
    table = torch.zeros(B, max(n_words, 0) + 1, dtype=torch.bool)
    rows, cols = torch.nonzero(starts, as_tuple=True)
    table[rows, word[rows, cols].long()] = pick[rows, cols]
    return table.gather(1, word.long().clamp(min=0))
'''}},
{"name": "C13-minp-masked-softmax", "correct": True, "kind": "sampling",
 "why": "P4: renormalisation by a second softmax over the logits with the dropped ones set to -inf; multinomial from the generator.",
 "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = F.softmax(logits, dim=-1)
    keep = probs >= probs.amax(dim=-1, keepdim=True) * min_p
    renorm = F.softmax(logits.masked_fill(~keep, float("-inf")), dim=-1)
    return torch.multinomial(renorm, num_samples=1, replacement=True, generator=generator).reshape(-1).to(torch.int64)
'''}},
{"name": "C14-decay-powers-exp-log", "correct": True, "kind": "rounding",
 "why": "P8: powers as exp(gap * log(decay)) in the working dtype (float64 for float64), past keys only.",
 "cells": {"decayed_linear_attention": REFERENCE["decayed_linear_attention"].replace("powers = torch.pow(torch.tensor(decay, dtype=work), gap.clamp(min=0).to(work))", "powers = torch.exp(gap.clamp(min=0).to(work) * math.log(decay))")}},
{"name": "C15-window-single-formula", "correct": True, "kind": "rounding",
 "why": "P1: w * (2t - w + 1) // 2 with w = min(t, window) (the product is always even).",
 "cells": {"window_pairs": '''
def window_pairs(t, window):
    w = min(t, window)
    return w * (2 * t - w + 1) // 2
'''}},
# ---------------- third pass (still blind) ----------------
{"name": "W30-gqa-scale-in-q-dtype", "correct": False, "kind": "rounding",
 "why": "P7 'compute them in float32 and round once at the end': the scale 1/sqrt(Dh) is made as a tensor in q's dtype (rounded to float16/bfloat16) before the float32 work.",
 "cells": {"gqa_cached_attention": REFERENCE["gqa_cached_attention"].replace(") / math.sqrt(Dh)", ") * torch.tensor(1 / math.sqrt(Dh), dtype=q.dtype).to(work)")}},
{"name": "W31-decay-in-q-dtype", "correct": False, "kind": "rounding",
 "why": "P8 'compute them in float32 and round once at the end': the decay is first made a tensor in q's dtype (0.05 rounded to bfloat16), then its powers taken in float32.",
 "cells": {"decayed_linear_attention": REFERENCE["decayed_linear_attention"].replace("torch.pow(torch.tensor(decay, dtype=work)", "torch.pow(torch.tensor(decay, dtype=q.dtype).to(work)")}},
{"name": "W32-minp-threshold-float32-tensor", "correct": False, "kind": "rounding",
 "why": "P4 'no tolerance: a token just below that threshold is dropped': min_p made a default-dtype (float32) tensor, so a float64 threshold moves by ~1e-8 relative.",
 "cells": {"min_p_sample": REFERENCE["min_p_sample"].replace("    probs = torch.softmax(logits, dim=-1)\n", "    min_p = torch.tensor(min_p)\n    probs = torch.softmax(logits, dim=-1)\n", 1)}},
{"name": "C16-minp-gumbel-max", "correct": True, "kind": "sampling",
 "why": "P4: Gumbel-max over the log of the kept probabilities, the uniforms (one per token) from the generator; the text fixes no sampling method.",
 "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    logw = torch.log(probs).masked_fill(~keep, float("-inf"))
    u = torch.rand(logits.shape, generator=generator, dtype=torch.float64)
    gumbel = -torch.log(-torch.log(u.clamp(min=torch.finfo(torch.float64).tiny)))
    return (logw.to(torch.float64) + gumbel).argmax(dim=-1).to(torch.int64)
'''}},
]
