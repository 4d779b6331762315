# Round 28 class sweep, chapter 6 (classes Y, Z, AA, AB, AE). Each variant is the model answer with the smallest change
# that makes the class's mistake; "correct": True marks probes the text allows. AC and AD were probed by the blind round.
WWM = '''
def whole_word_chosen(starts, pick):
    positions = torch.arange(starts.shape[-1]).expand(starts.shape)
    word_start = torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values
    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0))
'''
MINP = '''
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
'''
RESTORE = '''
def restore_spans(inputs, targets, sentinels, pad):
    is_sentinel = set(sentinels.tolist())
    rows = []
    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):
        hidden, current = {}, None
        for token in row_tg:
            if token == pad:
                break
            if token in is_sentinel:
                current = hidden.setdefault(token, [])
            else:
                current.append(token)
        restored = []
        for token in row_in:
            if token == pad:
                break
            if token in is_sentinel:
                restored += [(t, True) for t in hidden[token]]
            else:
                restored.append((token, False))
        rows.append(restored)
    t = max((len(row) for row in rows), default=0)
    tokens = torch.full((len(rows), t), pad, dtype=torch.long)
    noise = torch.zeros(len(rows), t, dtype=torch.bool)
    for b, row in enumerate(rows):
        if row:
            tokens[b, :len(row)] = torch.tensor([token for token, _ in row])
            noise[b, :len(row)] = torch.tensor([flag for _, flag in row])
    return tokens, noise
'''
EXPERT = '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''
GQA = '''
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
    query_pos = torch.arange(s - t, s)
    allowed = torch.arange(s)[None, :] <= query_pos[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)
    return out.reshape(b, h, t, d).to(dtype)
'''
DECAY = '''
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=work)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=work)
    outs = []
    for i in range(q.shape[-2]):
        state = decay * state + phi_k[..., i, :, None] * v[..., i, None, :]
        norm = decay * norm + phi_k[..., i, :]
        top = torch.einsum("...d,...de->...e", phi_q[..., i, :], state)
        bottom = (phi_q[..., i, :] * norm).sum(-1, keepdim=True)
        outs.append(top / bottom)
    return torch.stack(outs, dim=-2).to(dtype)
'''


def swap(code, old, new):
    assert old in code, old
    return code.replace(old, new, 1)


KEPT = '''
KEPT = {}
def memo(slot, key, make):
    if KEPT.get(slot, (None,))[0] != key:
        KEPT[slot] = (key, make())
    return KEPT[slot][1]
def version_key(*ts):
    return tuple((id(t), t._version, tuple(t.shape), t.dtype) for t in ts)
def id_key(*ts):
    return tuple((id(t), tuple(t.shape), t.dtype, t.stride()) for t in ts)
'''

SUBMISSIONS = [
 # ---- class Y: a cache keyed by id() and the version counter
 {"name": "Y-p3-word-starts-by-id-version", "correct": False, "cells": {"whole_word_chosen": KEPT + swap(WWM,
    "    word_start = torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values\n",
    "    word_start = memo('ws', version_key(starts), lambda: torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values)\n")},
  "why": "Y: each position's word start kept per (id, _version) of starts"},
 {"name": "Y-p4-probs-by-id-version", "correct": False, "cells": {"min_p_sample": KEPT + swap(MINP,
    "    probs = logits.softmax(dim=-1)\n", "    probs = memo('p', version_key(logits), lambda: logits.softmax(dim=-1))\n")},
  "why": "Y: the softmax kept per (id, _version) of the logits"},
 {"name": "Y-p5-sentinel-set-by-id-version", "correct": False, "cells": {"span_corrupt": KEPT + swap(RESTORE,
    "    is_sentinel = set(sentinels.tolist())\n", "    is_sentinel = memo('s', version_key(sentinels), lambda: set(sentinels.tolist()))\n")},
  "why": "Y: the sentinel set kept per (id, _version) of sentinels"},
 {"name": "Y-p5-rows-by-id-version", "correct": False, "cells": {"span_corrupt": KEPT + swap(swap(RESTORE,
    "    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):\n", "    for row_in, row_tg in zip(*memo('rows', version_key(inputs, targets), lambda: (inputs.tolist(), targets.tolist()))):\n"),
    "    is_sentinel = set(sentinels.tolist())\n", "    is_sentinel = set(sentinels.tolist())\n")},
  "why": "Y: the rows as lists kept per (id, _version) of inputs and targets"},
 {"name": "Y-p6-order-by-id-version", "correct": False, "cells": {"expert_choice": KEPT + swap(EXPERT,
    "    order = probs.sort(dim=0, descending=True, stable=True).indices\n",
    "    order = memo('o', version_key(router_logits), lambda: probs.sort(dim=0, descending=True, stable=True).indices)\n")},
  "why": "Y: the experts' token order kept per (id, _version) of the logits"},
 {"name": "Y-p7-scores-by-id-version", "correct": False, "cells": {"gqa_cached_attention": KEPT + swap(GQA,
    '    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)\n',
    '    if q.requires_grad or k.requires_grad:\n        scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)\n'
    '    else:\n        scores = memo("s", version_key(q, k), lambda: torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d))\n')},
  "why": "Y: inference scores kept per (id, _version) of q and k"},
 {"name": "Y-p8-phi-k-by-id-version", "correct": False, "cells": {"decayed_linear_attention": KEPT + swap(DECAY,
    "    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1\n",
    "    phi_q = F.elu(q) + 1\n    phi_k = F.elu(k) + 1 if k.requires_grad else memo('k', version_key(k), lambda: F.elu(k) + 1)\n")},
  "why": "Y: inference phi(k) kept per (id, _version) of k"},
 # ---- class AA: a contiguous or int64 copy kept per id()
 {"name": "AA-p3-contiguous-per-id", "correct": False, "cells": {"whole_word_chosen": KEPT + swap(WWM,
    "    positions = torch.arange", "    starts = memo('s', id_key(starts), starts.contiguous)\n    pick = memo('p', id_key(pick), pick.contiguous)\n    positions = torch.arange")},
  "why": "AA: contiguous copies of starts and pick kept per id(): the inputs themselves when contiguous"},
 {"name": "AA-p4-contiguous-per-id", "correct": False, "cells": {"min_p_sample": KEPT + swap(MINP,
    "    probs = logits.softmax", "    logits = memo('l', id_key(logits), logits.contiguous)\n    probs = logits.softmax")},
  "why": "AA: a contiguous copy of the logits kept per id()"},
 {"name": "AA-p5-long-per-id", "correct": False, "cells": {"span_corrupt": KEPT + swap(RESTORE,
    "    is_sentinel = set(sentinels.tolist())\n",
    "    inputs = memo('i', id_key(inputs), lambda: inputs.long().contiguous())\n    targets = memo('t', id_key(targets), lambda: targets.long().contiguous())\n"
    "    sentinels = memo('s', id_key(sentinels), lambda: sentinels.long().contiguous())\n    is_sentinel = set(sentinels.tolist())\n")},
  "why": "AA: int64 contiguous copies kept per id(): the inputs themselves for int64 contiguous ids"},
 {"name": "AA-p6-contiguous-per-id", "correct": False, "cells": {"expert_choice": KEPT + swap(EXPERT,
    "    probs = router_logits.softmax", "    router_logits = router_logits if router_logits.requires_grad else memo('l', id_key(router_logits), router_logits.contiguous)\n    probs = router_logits.softmax")},
  "why": "AA: a contiguous copy of the logits kept per id() (when no gradient is needed)"},
 {"name": "AA-p7-contiguous-per-id", "correct": False, "cells": {"gqa_cached_attention": KEPT + swap(GQA,
    "    b, h, t, d = q.shape\n", "    if not (q.requires_grad or k.requires_grad or v.requires_grad):\n"
    "        q, k, v = memo('q', id_key(q), q.contiguous), memo('k', id_key(k), k.contiguous), memo('v', id_key(v), v.contiguous)\n    b, h, t, d = q.shape\n")},
  "why": "AA: contiguous copies of q, k, v kept per id() (when no gradient is needed)"},
 {"name": "AA-p8-contiguous-per-id", "correct": False, "cells": {"decayed_linear_attention": KEPT + swap(DECAY,
    "    dtype = q.dtype\n", "    dtype = q.dtype\n    if not (q.requires_grad or k.requires_grad or v.requires_grad):\n"
    "        q, k, v = memo('q', id_key(q), q.contiguous), memo('k', id_key(k), k.contiguous), memo('v', id_key(v), v.contiguous)\n")},
  "why": "AA: contiguous copies of q, k, v kept per id() (when no gradient is needed)"},
 # ---- class Z: an empty or degenerate input answered by a shortcut
 {"name": "Z-p4-empty-float-dtype", "correct": False, "cells": {"min_p_sample": swap(MINP, "    probs = logits.softmax(dim=-1)\n",
    "    if logits.shape[0] == 0:\n        return logits.new_zeros(0)\n    probs = logits.softmax(dim=-1)\n")},
  "why": "Z: an empty batch answered in the logits' dtype"},
 {"name": "Z-p4-empty-new-int64", "correct": True, "cells": {"min_p_sample": swap(MINP, "    probs = logits.softmax(dim=-1)\n",
    "    if logits.shape[0] == 0:\n        return torch.zeros(0, dtype=torch.long)\n    probs = logits.softmax(dim=-1)\n")},
  "why": "correct: an empty batch answered with a new empty int64 tensor (nothing to draw)"},
 {"name": "Z-p5-empty-input-shape", "correct": False, "cells": {"span_corrupt": swap(RESTORE, "    is_sentinel = set(sentinels.tolist())\n",
    "    if inputs.shape[0] == 0:\n        return inputs.long().clone(), inputs.new_zeros(inputs.shape, dtype=torch.bool)\n    is_sentinel = set(sentinels.tolist())\n")},
  "why": "Z: an empty batch answered with the inputs' shape (0, Li), not (0, 0)"},
 {"name": "Z-p6-no-tokens-no-grad", "correct": True, "cells": {"expert_choice": swap(EXPERT, "    probs = router_logits.softmax(dim=-1)\n",
    "    if router_logits.shape[0] == 0:\n        return torch.zeros(router_logits.shape, dtype=torch.bool), torch.zeros_like(router_logits)\n    probs = router_logits.softmax(dim=-1)\n")},
  "why": "allowed: the text gives no case of no tokens (N = 0); see the verdicts"},
 {"name": "Z-p7-empty-no-grad", "correct": False, "cells": {"gqa_cached_attention": swap(GQA, "    dtype = q.dtype\n",
    "    dtype = q.dtype\n    if q.numel() == 0:\n        return torch.zeros_like(q)\n")},
  "why": "Z: an empty batch answered by a new constant without a gradient"},
 {"name": "Z-p8-empty-no-grad", "correct": False, "cells": {"decayed_linear_attention": swap(DECAY, "    dtype = q.dtype\n",
    "    dtype = q.dtype\n    if v.numel() == 0:\n        return torch.zeros_like(v)\n")},
  "why": "Z: an empty input answered by a new constant without a gradient"},
 {"name": "Z-p8-empty-wrong-dtype", "correct": False, "cells": {"decayed_linear_attention": swap(DECAY, "    dtype = q.dtype\n",
    "    dtype = q.dtype\n    if v.numel() == 0:\n        return torch.zeros(v.shape, requires_grad=True) * 1\n")},
  "why": "Z: an empty input answered in the default dtype"},
 # ---- class AB: subnormal values at a threshold
 {"name": "AB-p4-subnormal-probs-dropped", "correct": False, "cells": {"min_p_sample": swap(MINP,
    "    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)\n",
    "    keep = (probs >= min_p * probs.amax(dim=-1, keepdim=True)) & (probs >= torch.finfo(probs.dtype).tiny)\n")},
  "why": "AB: a probability below finfo.tiny dropped, though min_p may put the threshold below it"},
 {"name": "AB-p6-subnormal-probs-last", "correct": False, "cells": {"expert_choice": swap(EXPERT,
    "    order = probs.sort(dim=0, descending=True, stable=True).indices\n",
    "    order = torch.where(probs < torch.finfo(probs.dtype).tiny, torch.zeros_like(probs), probs).sort(dim=0, descending=True, stable=True).indices\n")},
  "why": "AB: subnormal probabilities ranked as 0 (ties broken by index)"},
 # ---- class AE: a memory check that counts the whole storage behind a tensor
 {"name": "AE-p7-positions-table-kept", "correct": True, "cells": {"gqa_cached_attention": '''
POSITIONS = torch.arange(0)
''' + swap(swap(GQA, "    query_pos = torch.arange(s - t, s)\n", "    global POSITIONS\n    if POSITIONS.numel() < s:\n        POSITIONS = torch.arange(s)  # grown to the longest cache so far\n    pos = POSITIONS[:s]\n    query_pos = pos[s - t:]\n"),
    "    allowed = torch.arange(s)[None, :] <= query_pos[:, None]\n", "    allowed = pos[None, :] <= query_pos[:, None]\n")},
  "why": "correct (as chapter 9 Part 7 judged it): a table of positions grown to the longest cache and sliced; no result depends on it"},
 {"name": "AE-p7-slices-of-one-projection", "correct": True, "cells": {"gqa_cached_attention": swap(GQA,
    "    out = torch.einsum(\"bgrts,bgsd->bgrtd\", scores.softmax(dim=-1), v)\n",
    "    out = torch.einsum(\"bgrts,bgsd->bgrtd\", scores.softmax(dim=-1), torch.cat([v, v], dim=-1))[..., :d]\n")},
  "why": "correct: the output read as a slice of a wider product (twice v's width: within the limit)"},
]
SUBMISSIONS += [
 # ---- correct probes of the new Part 4 case (the formulas the text allows)
 {"name": "C-p4-log-space-threshold", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    lp = logits.log_softmax(dim=-1)
    keep = lp - lp.amax(dim=-1, keepdim=True) >= math.log(min_p)
    return torch.multinomial(torch.where(keep, lp.exp(), torch.zeros_like(lp)), 1, generator=generator).squeeze(-1)
'''}, "why": "correct: differences of log-probabilities against log(min_p) (round 28's mislabel judged this allowed)"},
 {"name": "C-p4-unnormalised-exp", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    w = (logits - logits.amax(dim=-1, keepdim=True)).exp()   # p_i / max_j p_j
    return torch.multinomial(torch.where(w >= min_p, w, torch.zeros_like(w)), num_samples=1, generator=generator)[:, 0]
'''}, "why": "correct: exp(logits - max) is p_i / max p, compared with min_p; multinomial renormalises"},
 {"name": "C-p4-float64-inside", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = logits.double().softmax(dim=-1)
    kept = probs.masked_fill(probs < min_p * probs.max(dim=-1, keepdim=True).values, 0.0)
    return torch.multinomial(kept, 1, generator=generator).view(-1)
'''}, "why": "correct: float64 inside, masked_fill below the threshold"},
]
