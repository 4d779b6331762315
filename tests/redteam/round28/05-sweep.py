# Round 28 class sweep, chapter 5 (classes Y, Z, AA, AB, AE). Each variant is the model answer with the smallest change
# that makes the class's mistake; "correct": True marks probes the text allows. AC and AD are closed in this chapter.
RMS = '''
def rms_norm(x, weight, eps=1e-6):
    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    inv_rms = torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype)
'''
PACKED = '''
def packed_masks(src_segments, tgt_segments):
    src_real, tgt_real = src_segments != 0, tgt_segments != 0
    same_src = (src_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    same_tgt = (tgt_segments[:, :, None] == tgt_segments[:, None, :]) & tgt_real[:, None, :]
    t = tgt_segments.shape[1]
    causal = torch.ones(t, t, dtype=torch.bool, device=tgt_segments.device).tril()
    cross = (tgt_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    return same_src, same_tgt & causal, cross
'''
CACHED = '''
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)
    q, k, v = split(x_new @ w_q.T + b_q), split(x_new @ w_k.T + b_k), split(x_new @ w_v.T + b_v)
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    rows = torch.arange(past, past + n, device=x_new.device)[:, None]
    cols = torch.arange(past + n, device=x_new.device)[None, :]
    allowed = cols <= rows
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    heads = weights @ v
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
'''
SANDWICH = '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    return y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
'''


def swap(code, old, new):
    assert old in code, old
    return code.replace(old, new, 1)


SUBMISSIONS = [
 # ---- class Y: a cache keyed by id() and the version counter
 {"name": "Y-p1-weight-cast-by-id-version", "correct": False, "cells": {"rms_norm": swap(RMS, "def rms_norm", '''
WEIGHTS = {}
def rms_norm''').replace("weight.to(x32.dtype)", "cast(weight, x32.dtype)") + '''
def cast(weight, dtype):
    key = (id(weight), weight._version, dtype)
    if key not in WEIGHTS:
        WEIGHTS.clear()
        WEIGHTS[key] = weight.to(dtype)
    return WEIGHTS[key]
'''}, "why": "Y: the weight converted once per (id, _version, dtype): stale after a write through .data"},
 {"name": "Y-p1-result-by-id-version-no-grad", "correct": False, "cells": {"rms_norm": swap(RMS, "def rms_norm(x, weight, eps=1e-6):\n", '''
RESULTS = {}
def rms_norm(x, weight, eps=1e-6):
    if not (x.requires_grad or weight.requires_grad):
        key = (id(x), x._version, id(weight), weight._version, eps, x.dtype, tuple(x.shape))
        if key not in RESULTS:
            RESULTS.clear()
            RESULTS[key] = rms_norm_plain(x, weight, eps)
        return RESULTS[key].clone()
    return rms_norm_plain(x, weight, eps)
def rms_norm_plain(x, weight, eps):
''')}, "why": "Y: inference results cached per (id, _version) of x and weight"},
 {"name": "Y-p4-masks-by-id-version", "correct": False, "cells": {"packed_masks": swap(PACKED, "def packed_masks(src_segments, tgt_segments):\n", '''
MEMO = {}
def packed_masks(src_segments, tgt_segments):
    key = (id(src_segments), src_segments._version, id(tgt_segments), tgt_segments._version,
           tuple(src_segments.shape), tuple(tgt_segments.shape))
    if key not in MEMO:
        MEMO.clear()
        MEMO[key] = packed_plain(src_segments, tgt_segments)
    return tuple(m.clone() for m in MEMO[key])
def packed_plain(src_segments, tgt_segments):
''')}, "why": "Y: masks memoized per (id, _version) of the segments (a data loader refilling its buffers)"},
 {"name": "Y-p5-masks-by-id-version", "correct": False, "cells": {"sandwich": swap(SANDWICH, "def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):\n", '''
MASKS = {}
def prepared(mask):
    if mask is None:
        return None
    key = (id(mask), mask._version, tuple(mask.shape))
    if key not in MASKS:
        if len(MASKS) > 8:
            MASKS.clear()
        MASKS[key] = mask.clone()
    return MASKS[key]
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    self_allowed, memory_allowed = prepared(self_allowed), prepared(memory_allowed)
''')}, "why": "Y: masks prepared once per (id, _version)"},
 {"name": "Y-p6-weights-by-id-version", "correct": False, "cells": {"cached_attention": swap(CACHED,
    '    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)\n', '''
    key = (id(params["w_qkv"]), params["w_qkv"]._version, id(params["b_qkv"]), params["b_qkv"]._version)
    if key not in SPLIT:
        SPLIT.clear()
        SPLIT[key] = ([w.clone() for w in params["w_qkv"].chunk(3)], [w.clone() for w in params["b_qkv"].chunk(3)])
    (w_q, w_k, w_v), (b_q, b_k, b_v) = SPLIT[key]
''').replace("def cached_self_attention", "SPLIT = {}\ndef cached_self_attention")},
  "why": "Y: projections split and copied once per (id, _version) of the weights"},
 # ---- class Z: an empty or degenerate input answered by a shortcut
 {"name": "Z-p1-empty-no-grad", "correct": False, "cells": {"rms_norm": swap(RMS, "    x32 = x.float()", '''    if x.numel() == 0:
        return torch.empty_like(x)
    x32 = x.float()''')}, "why": "Z: an empty input answered by a new constant without a gradient"},
 {"name": "Z-p4-empty-wrong-shape", "correct": False, "cells": {"packed_masks": swap(PACKED, "    src_real, tgt_real", '''    if src_segments.shape[0] == 0:
        return (torch.zeros(0, 0, 0, dtype=torch.bool), torch.zeros(0, 0, 0, dtype=torch.bool), torch.zeros(0, 0, 0, dtype=torch.bool))
    src_real, tgt_real''')}, "why": "Z: B = 0 answered with masks of the wrong shape"},
 {"name": "Z-p4-empty-rows-int-dtype", "correct": False, "cells": {"packed_masks": swap(PACKED, "    src_real, tgt_real", '''    b, s, t = src_segments.shape[0], src_segments.shape[1], tgt_segments.shape[1]
    if s == 0 or t == 0:
        return src_segments.new_zeros(b, s, s), tgt_segments.new_zeros(b, t, t), src_segments.new_zeros(b, t, s)
    src_real, tgt_real''')}, "why": "Z: empty rows answered by integer masks"},
 {"name": "Z-p4-empty-new-tensors", "correct": True, "cells": {"packed_masks": swap(PACKED, "    src_real, tgt_real", '''    b, s, t = src_segments.shape[0], src_segments.shape[1], tgt_segments.shape[1]
    if b * s * t == 0:
        return (torch.zeros(b, s, s, dtype=torch.bool), torch.zeros(b, t, t, dtype=torch.bool), torch.zeros(b, t, s, dtype=torch.bool))
    src_real, tgt_real''')}, "why": "correct: an empty problem answered with new False masks of the right shapes"},
 {"name": "Z-p5-empty-returns-y", "correct": False, "cells": {"sandwich": swap(SANDWICH, "    y = y + layer_norm(mha(layer_norm(y, *p[\"pre1\"])", '''    if y.numel() == 0:
        return y
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"])''')}, "why": "Z: an empty batch answered with y itself"},
 {"name": "Z-p5-empty-no-grad", "correct": False, "cells": {"sandwich": swap(SANDWICH, "    y = y + layer_norm(mha(layer_norm(y, *p[\"pre1\"])", '''    if y.numel() == 0:
        return torch.empty_like(y)
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"])''')}, "why": "Z: an empty batch answered by a constant without a gradient"},
 {"name": "Z-p6-empty-returns-x", "correct": False, "cells": {"cached_attention": swap(CACHED, "    dh = d // NUM_HEADS\n", '''    dh = d // NUM_HEADS
    if b == 0:
        past = cache["k"].shape[2] if "k" in cache else 0
        cache["k"] = x_new.new_zeros(0, NUM_HEADS, past + n, dh)
        cache["v"] = x_new.new_zeros(0, NUM_HEADS, past + n, dh)
        return x_new
''')}, "why": "Z: an empty batch answered with x_new itself"},
 {"name": "Z-p6-empty-no-grad", "correct": False, "cells": {"cached_attention": swap(CACHED, "    dh = d // NUM_HEADS\n", '''    dh = d // NUM_HEADS
    if b == 0:
        past = cache["k"].shape[2] if "k" in cache else 0
        cache["k"] = x_new.new_zeros(0, NUM_HEADS, past + n, dh)
        cache["v"] = x_new.new_zeros(0, NUM_HEADS, past + n, dh)
        return x_new.new_zeros(0, n, d)
''')}, "why": "Z: an empty batch answered by new constants without a gradient (output and cache)"},
 # ---- class AA: in-place checks run only on contiguous int64 inputs
 {"name": "AA-p4-long-kept-per-id", "correct": False, "cells": {"packed_masks": swap(PACKED, "def packed_masks(src_segments, tgt_segments):\n", '''
LONG = {}
def as_long(x, slot):
    if LONG.get(slot, (None,))[0] != id(x):
        LONG[slot] = (id(x), x.long().contiguous())
    return LONG[slot][1]
def packed_masks(src_segments, tgt_segments):
    src_segments, tgt_segments = as_long(src_segments, "src"), as_long(tgt_segments, "tgt")
''')}, "why": "AA: the int64 contiguous copy kept per id(): the input itself for int64 contiguous segments"},
 {"name": "AA-p1-contiguous-kept-per-id", "correct": False, "cells": {"rms_norm": swap(RMS, "def rms_norm(x, weight, eps=1e-6):\n", '''
DENSE = {}
def rms_norm(x, weight, eps=1e-6):
    if DENSE.get("w", (None,))[0] != id(weight):
        DENSE["w"] = (id(weight), weight.contiguous())
    weight = DENSE["w"][1]
''')}, "why": "AA: the contiguous weight kept per id(): the weight itself when it is contiguous"},
 {"name": "AA-p5-contiguous-masks-per-id", "correct": False, "cells": {"sandwich": swap(SANDWICH, "def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):\n", '''
DENSE = {}
def dense(mask, slot):
    if mask is None:
        return None
    if DENSE.get(slot, (None,))[0] != id(mask):
        DENSE[slot] = (id(mask), mask.contiguous())
    return DENSE[slot][1]
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    self_allowed, memory_allowed = dense(self_allowed, "self"), dense(memory_allowed, "mem")
''')}, "why": "AA: contiguous masks kept per id(): the masks themselves when contiguous"},
 {"name": "AA-p6-contiguous-weights-per-id", "correct": False, "cells": {"cached_attention": swap(CACHED,
    '    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)\n', '''
    if DENSE.get("w", (None,))[0] != id(params["w_qkv"]):
        DENSE["w"] = (id(params["w_qkv"]), params["w_qkv"].contiguous())
    (w_q, w_k, w_v), (b_q, b_k, b_v) = DENSE["w"][1].chunk(3), params["b_qkv"].chunk(3)
''').replace("def cached_self_attention", "DENSE = {}\ndef cached_self_attention")},
  "why": "AA: the contiguous w_qkv kept per id(): w_qkv itself when contiguous"},
]
SUBMISSIONS += [
 {"name": "AA-p4-long-kept-per-id-shape-dtype", "correct": False, "cells": {"packed_masks": swap(PACKED, "def packed_masks(src_segments, tgt_segments):\n", '''
LONG = {}
def as_long(x, slot):
    key = (id(x), tuple(x.shape), x.dtype, x.stride())
    if LONG.get(slot, (None,))[0] != key:
        LONG[slot] = (key, x.long().contiguous())
    return LONG[slot][1]
def packed_masks(src_segments, tgt_segments):
    src_segments, tgt_segments = as_long(src_segments, "src"), as_long(tgt_segments, "tgt")
''')}, "why": "AA: the int64 contiguous copy kept per (id, shape, dtype, stride): the input itself for int64 contiguous segments"},
 # ---- correct probes of the changed cases
 {"name": "C-p1-float64-inside", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x64 = x.double()
    ms = (x64 * x64).sum(dim=-1, keepdim=True) / x.shape[-1]
    return (x64 / torch.sqrt(ms + eps) * weight.double()).to(x.dtype)
'''}, "why": "correct: float64 inside, cast back once"},
 {"name": "C-p1-F-rms-norm", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x64 = x.double()
    return F.rms_norm(x64, (x.shape[-1],), weight.double(), eps=eps).to(x.dtype)
'''}, "why": "correct: F.rms_norm in float64"},
 {"name": "C-p4-long-per-call", "correct": True, "cells": {"packed_masks": swap(PACKED, "    src_real, tgt_real", '''    src_segments, tgt_segments = src_segments.long().contiguous(), tgt_segments.long().contiguous()
    src_real, tgt_real''')}, "why": "correct: int64 contiguous copies made on every call"},
 {"name": "C-p5-masks-contiguous-per-call", "correct": True, "cells": {"sandwich": swap(SANDWICH, "    y = y + layer_norm(mha(layer_norm(y, *p[\"pre1\"])", '''    self_allowed = None if self_allowed is None else self_allowed.contiguous()
    memory_allowed = None if memory_allowed is None else memory_allowed.contiguous()
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"])''')}, "why": "correct: masks made contiguous on every call"},
 {"name": "C-p6-sdpa-bool-mask", "correct": True, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    h = NUM_HEADS
    dh = d // h
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"])
    q, k, v = (t.reshape(b, n, h, dh).transpose(1, 2) for t in qkv.split(d, dim=-1))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    mask = torch.arange(past + n)[None, :] <= torch.arange(past, past + n)[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(b, n, d), params["w_o"], params["b_o"])
'''}, "why": "correct: F.linear and sdpa with a boolean mask"},
]
