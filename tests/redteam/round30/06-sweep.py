# Round 30 class sweep, chapter 06 (classes AL, AM, AN). Each variant is the model answer with the smallest change
# that makes the class's mistake; "correct": True marks probes the text allows. AJ and AK are closed in this chapter.
WINDOW_PAIRS = '''
def window_pairs(t, window):
    full = min(t, window)  # queries 0 .. full-1 see every key so far: 1 + 2 + ... + full
    return full * (full + 1) // 2 + (t - full) * window  # every later query sees exactly `window` keys
'''
TOKENS_PER_TARGET_PASS = '''
def tokens_per_target_pass(alpha, gamma):
    # k draft tokens are kept with probability alpha**k (k acceptances in a row), for k = 1..gamma;
    # E[accepted] = sum_k P(accepted >= k) = alpha + ... + alpha**gamma, plus the target's own token
    return float(sum(alpha ** k for k in range(gamma + 1)))
'''
WHOLE_WORD_CHOSEN = '''
def whole_word_chosen(starts, pick):
    positions = torch.arange(starts.shape[-1]).expand(starts.shape)
    # the start of each position's word: the last start at or before it (-1: before the first start)
    word_start = torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values
    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0))
'''
MIN_P_SAMPLE = '''
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)  # multinomial renormalises each row
'''
SPAN_CORRUPT = '''
def restore_spans(inputs, targets, sentinels, pad):
    is_sentinel = set(sentinels.tolist())
    rows = []
    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):
        hidden, current = {}, None
        for token in row_tg:                      # the target: sentinel, its tokens, sentinel, ...
            if token == pad:
                break
            if token in is_sentinel:
                current = hidden.setdefault(token, [])
            else:
                current.append(token)
        restored = []                             # (token, was hidden)
        for token in row_in:
            if token == pad:
                break
            if token in is_sentinel:
                restored += [(t, True) for t in hidden[token]]
            else:
                restored.append((token, False))
        rows.append(restored)
    t = max((len(row) for row in rows), default=0)  # 0 for an empty batch
    tokens = torch.full((len(rows), t), pad, dtype=torch.long)
    noise = torch.zeros(len(rows), t, dtype=torch.bool)
    for b, row in enumerate(rows):
        if row:
            tokens[b, :len(row)] = torch.tensor([token for token, _ in row])
            noise[b, :len(row)] = torch.tensor([flag for _, flag in row])
    return tokens, noise
'''
EXPERT_CHOICE = '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)  # (N, E): each token's distribution over the experts
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices  # (N, E) tokens by preference, per expert
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''
GQA_CACHED_ATTENTION = '''
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):  # scores past 65504 overflow in float16 (red team 19)
        q, k, v = q.float(), k.float(), v.float()
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)  # the query heads of one group sit next to each other
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
    query_pos = torch.arange(s - t, s)  # absolute positions of the new queries
    allowed = torch.arange(s)[None, :] <= query_pos[:, None]  # (T, S)
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)
    return out.reshape(b, h, t, d).to(dtype)
'''
DECAYED_LINEAR_ATTENTION = '''
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    # float16 and bfloat16 in float32: states and similarities kept in float16 pass 65504 (red team 19)
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=work)  # (..., Dh, Dv)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=work)  # (..., Dh)
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

CONV = '''
CONVERTED = {}
def converted(t, dtype):
    key = (id(t), tuple(t.shape), t.stride(), t.dtype, dtype)
    if key not in CONVERTED:
        CONVERTED[key] = t.to(dtype)
    return CONVERTED[key]
'''
SUBMISSIONS = [
 # ---- class AL: a converted copy of an input kept per id()
 {"name": "AL-p3-starts-long-by-id", "correct": False, "cells": {"whole_word_chosen": CONV + swap(WHOLE_WORD_CHOSEN,
     "torch.where(starts, positions", "torch.where(converted(starts, torch.long) != 0, positions")},
  "why": "AL: an int64 copy of the bool starts kept per id()"},
 {"name": "AL-p4-logits-float64-by-id", "correct": False, "cells": {"min_p_sample": CONV + swap(swap(MIN_P_SAMPLE,
     "probs = logits.softmax(dim=-1)", "probs = converted(logits, torch.float64).softmax(dim=-1)"),
     "kept = torch.where(keep, probs, torch.zeros_like(probs))", "kept = torch.where(keep, probs, torch.zeros_like(probs))")},
  "why": "AL: the float64 copy of the logits kept per id() (float64 logits are their own copy)"},
 {"name": "AL-p5-ids-long-by-id", "correct": False, "cells": {"span_corrupt": CONV + swap(swap(SPAN_CORRUPT,
     "zip(inputs.tolist(), targets.tolist())", "zip(converted(inputs, torch.long).tolist(), converted(targets, torch.long).tolist())"),
     "set(sentinels.tolist())", "set(converted(sentinels, torch.long).tolist())")},
  "why": "AL: int64 copies of the ids kept per id()"},
 {"name": "AL-p6-logits-float64-by-id", "correct": False, "cells": {"expert_choice": CONV + swap(swap(EXPERT_CHOICE,
     "probs = router_logits.softmax(dim=-1)", "probs = converted(router_logits, torch.float64).softmax(dim=-1)"),
     "return chosen, torch.where(chosen, probs, torch.zeros_like(probs))",
     "return chosen, torch.where(chosen, probs, torch.zeros_like(probs)).to(router_logits.dtype)")},
  "why": "AL: the float64 copy of the router logits kept per id() (float64 logits are their own copy)"},
 {"name": "AL-p6-half-logits-float32-by-id", "correct": False, "cells": {"expert_choice": CONV + swap(swap(EXPERT_CHOICE,
     "probs = router_logits.softmax(dim=-1)",
     "work = converted(router_logits, torch.float32) if router_logits.dtype in (torch.float16, torch.bfloat16) else router_logits\n    probs = work.softmax(dim=-1)"),
     "return chosen, torch.where(chosen, probs, torch.zeros_like(probs))",
     "return chosen, torch.where(chosen, probs, torch.zeros_like(probs)).to(router_logits.dtype)")},
  "why": "AL: the float32 copy of half router logits kept per id()"},
 {"name": "AL-p7-half-float32-by-id", "correct": False, "cells": {"gqa_cached_attention": CONV + swap(GQA_CACHED_ATTENTION,
     "q, k, v = q.float(), k.float(), v.float()",
     "q, k, v = converted(q, torch.float32), converted(k, torch.float32), converted(v, torch.float32)")},
  "why": "AL: float32 copies of half q, k, v kept per id()"},
 {"name": "AL-p7-kv-float64-by-id", "correct": False, "cells": {"gqa_cached_attention": CONV + swap(swap(GQA_CACHED_ATTENTION,
     "    b, h, t, d = q.shape", "    q, k, v = q.to(torch.float64), converted(k, torch.float64), converted(v, torch.float64)\n    b, h, t, d = q.shape"),
     "if dtype in (torch.float16, torch.bfloat16):", "if False:")},
  "why": "AL: float64 copies of the cached keys and values kept per id() (float64 ones are their own copy)"},
 {"name": "AL-p8-half-float32-by-id", "correct": False, "cells": {"decayed_linear_attention": CONV + swap(DECAYED_LINEAR_ATTENTION,
     "q, k, v = q.to(work), k.to(work), v.to(work)", "q, k, v = converted(q, work), converted(k, work), converted(v, work)")},
  "why": "AL: float32 copies of half q, k, v kept per id()"},
 {"name": "AL-p8-all-float64-by-id", "correct": False, "cells": {"decayed_linear_attention": CONV + swap(DECAYED_LINEAR_ATTENTION,
     "work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype\n    q, k, v = q.to(work), k.to(work), v.to(work)",
     "work = torch.float64\n    q, k, v = converted(q, work), converted(k, work), converted(v, work)")},
  "why": "AL: float64 copies of q, k, v kept per id() (float64 inputs are their own copy)"},
 # ---- class AN: a value at a limit the text includes refused
 {"name": "AN-p1-window-1-refused", "correct": False, "cells": {"window_pairs": swap(WINDOW_PAIRS,
     "    full =", "    if window < 2:\n        raise ValueError('window')\n    full =")},
  "why": "AN: window >= 1"},
 {"name": "AN-p1-t-1-refused", "correct": False, "cells": {"window_pairs": swap(WINDOW_PAIRS,
     "    full =", "    if t < 2:\n        raise ValueError('t')\n    full =")},
  "why": "AN: t >= 1"},
 {"name": "AN-p1-t-equal-window-wrong", "correct": False, "cells": {"window_pairs": swap(WINDOW_PAIRS,
     "    full =", "    if t == window:\n        return t * (t - 1) // 2\n    full =")},
  "why": "AN: t = window (t may be smaller than window; equal is the edge)"},
 {"name": "AN-p2-alpha-1-refused", "correct": False, "cells": {"tokens_per_target_pass": swap(TOKENS_PER_TARGET_PASS,
     "    return float", "    if not 0 <= alpha < 1:\n        raise ValueError('alpha')\n    return float")},
  "why": "AN: alpha = 1 included"},
 {"name": "AN-p2-alpha-0-refused", "correct": False, "cells": {"tokens_per_target_pass": swap(TOKENS_PER_TARGET_PASS,
     "    return float", "    if not 0 < alpha <= 1:\n        raise ValueError('alpha')\n    return float")},
  "why": "AN: alpha = 0 included"},
 {"name": "AN-p2-gamma-1-refused", "correct": False, "cells": {"tokens_per_target_pass": swap(TOKENS_PER_TARGET_PASS,
     "    return float", "    if gamma < 2 and alpha != 0.5:\n        raise ValueError('gamma')\n    return float")},
  "why": "AN: gamma >= 1 (passes the visible alpha = 0.5 case)"},
 {"name": "AN-p4-min-p-1-refused", "correct": False, "cells": {"min_p_sample": swap(MIN_P_SAMPLE,
     "    probs =", "    if not 0 < min_p < 1:\n        raise ValueError('min_p')\n    probs =")},
  "why": "AN: min_p = 1 included"},
 {"name": "AN-p6-capacity-0-refused", "correct": False, "cells": {"expert_choice": swap(EXPERT_CHOICE,
     "    probs =", "    if capacity < 1:\n        raise ValueError('capacity')\n    probs =")},
  "why": "AN: capacity may be 0"},
 {"name": "AN-p6-capacity-N-refused", "correct": False, "cells": {"expert_choice": swap(EXPERT_CHOICE,
     "    n = probs.shape[0]", "    n = probs.shape[0]\n    if capacity == n:\n        raise ValueError('capacity')")},
  "why": "AN: capacity = N (may exceed N, so N included)"},
 {"name": "AN-p7-S-equal-T-refused", "correct": False, "cells": {"gqa_cached_attention": swap(GQA_CACHED_ATTENTION,
     "    query_pos =", "    if s <= t and t > 1:\n        raise ValueError('S must exceed T')\n    query_pos =")},
  "why": "AN: S >= T, S = T included (passes the visible T=1 cases)"},
 {"name": "AN-p7-G-equal-H-refused", "correct": False, "cells": {"gqa_cached_attention": swap(GQA_CACHED_ATTENTION,
     "    query_pos =", "    if g == h:\n        raise ValueError('G = H is plain MHA')\n    query_pos =")},
  "why": "AN: H a multiple of G, G = H included"},
 {"name": "AN-p8-decay-1-refused", "correct": False, "cells": {"decayed_linear_attention": swap(DECAYED_LINEAR_ATTENTION,
     "    dtype = q.dtype", "    if not 0 < decay < 1:\n        raise ValueError('decay')\n    dtype = q.dtype")},
  "why": "AN: decay = 1 included"},
]
