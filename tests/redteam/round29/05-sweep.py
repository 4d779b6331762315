# Round 29 class sweep, chapter 5 (classes AF, AG, AH; AI is not this chapter's). Each variant is the model answer
# (or a correct variant) with the smallest change that makes the class's mistake; "correct": True marks probes the
# text allows.
CACHED_HEAD = '''
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
'''
CACHED_TAIL = '''
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
'''


def cached(body):
    return CACHED_HEAD + body + CACHED_TAIL


# online softmax over blocks of keys: init is the running maximum's start, stop the last key the loop reads
ONLINE = '''
    scores = scores.masked_fill(~allowed, float("-inf"))
    total = past + n
    block = {block}
    m = torch.full(scores.shape[:-1] + (1,), {init}, dtype=scores.dtype)
    l = torch.zeros(scores.shape[:-1] + (1,), dtype=scores.dtype)
    acc = torch.zeros(scores.shape[:-1] + (dh,), dtype=scores.dtype)
    for start in range(0, {stop}, block):
        s = scores[..., start:start + block]
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        safe = torch.where(m_new == float("-inf"), torch.zeros_like(m_new), m_new)
        alpha = torch.exp(m - safe)
        p = torch.exp(s - safe)
        l = alpha * l + p.sum(dim=-1, keepdim=True)
        acc = alpha * acc + p @ v[..., start:start + block, :]
        m = m_new
    heads = acc / l
'''

RMS = '''
def rms_norm(x, weight, eps=1e-6):
    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    {body}
    return (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype)
'''
RMS_MS = "inv_rms = torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps)"

PACKED = '''
def packed_masks(src_segments, tgt_segments):
    src_real, tgt_real = src_segments != 0, tgt_segments != 0
    same_src = (src_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    same_tgt = (tgt_segments[:, :, None] == tgt_segments[:, None, :]) & tgt_real[:, None, :]
    t = tgt_segments.shape[1]
    causal = torch.zeros(t, t, dtype=torch.bool, device=tgt_segments.device)
    tile = 1024
    for r in range(0, {stop}, tile):
        rows = torch.arange(r, min(r + tile, t))[:, None]
        causal[r:r + tile] = torch.arange(t)[None, :] <= rows
    cross = (tgt_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    return same_src, same_tgt & causal, cross
'''

SANDWICH = '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ffn(x, ff):
        w1, b1, w2, b2 = ff
        return {relu} @ w2.T + b2
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    return y + layer_norm(ffn(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
'''

PREFILL = '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for start in range(0, {stop}, chunk):
        m = min(chunk, prompt_len - start)
        total += m * (start + m)
    return layers * heads * total
'''

SUBMISSIONS = [
    # ---- AF: a running maximum (or shift) started at 0
    {"name": "AF-p6-shift-floored-at-0", "correct": False,
     "cells": {"cached_attention": cached('''
    scores = scores.masked_fill(~allowed, float("-inf"))
    shift = scores.amax(dim=-1, keepdim=True).clamp(min=0)
    e = torch.exp(scores - shift)
    heads = (e / e.sum(dim=-1, keepdim=True)) @ v
''')},
     "why": "AF: the softmax shift max(0, row max); rows whose every visible score is far below 0 give 0/0"},
    {"name": "AF-p6-online-max-from-0", "correct": False,
     "cells": {"cached_attention": cached(ONLINE.format(block=64, init="0.0", stop="total"))},
     "why": "AF: online softmax over blocks of 64 keys whose running maximum starts at 0"},
    {"name": "AF-p6-online-max-from-minus-inf", "correct": True,
     "cells": {"cached_attention": cached(ONLINE.format(block=64, init='float("-inf")', stop="total"))},
     "why": "correct: the same online softmax started at -inf"},
    # ---- AG: the last, shorter piece dropped
    {"name": "AG-p6-key-blocks-64-last-dropped", "correct": False,
     "cells": {"cached_attention": cached(ONLINE.format(block=64, init='float("-inf")', stop="max(total - total % block, min(total, block))"))},
     "why": "AG: key blocks of 64, the last shorter block never read"},
    {"name": "AG-p6-key-blocks-8-last-dropped", "correct": False,
     "cells": {"cached_attention": cached(ONLINE.format(block=8, init='float("-inf")', stop="max(total - total % block, min(total, block))"))},
     "why": "AG: key blocks of 8, the last shorter block never read"},
    {"name": "AG-p6-key-blocks-4096-last-dropped", "correct": False,
     "cells": {"cached_attention": cached(ONLINE.format(block=4096, init='float("-inf")',
                                                         stop="max(total - total % block, min(total, block))"))},
     "why": "AG: key blocks of 4096, the last shorter block dropped when there is a full one before it"},
    {"name": "AG-p6-key-blocks-1024-correct", "correct": True,
     "cells": {"cached_attention": cached(ONLINE.format(block=1024, init='float("-inf")', stop="total"))},
     "why": "correct: online softmax over key blocks of 1024, every block read"},
    {"name": "AG-p4-causal-tiles-last-dropped", "correct": False,
     "cells": {"packed_masks": PACKED.format(stop="t - t % tile")},
     "why": "AG: the causal mask built in tiles of 1024 rows, the last shorter tile never written"},
    {"name": "AG-p4-causal-tiles-correct", "correct": True,
     "cells": {"packed_masks": PACKED.format(stop="t")},
     "why": "correct: the causal mask built in tiles of 1024 rows"},
    {"name": "AG-p1-sum-in-chunks-of-32-last-dropped", "correct": False,
     "cells": {"rms_norm": RMS.format(body='''d = x32.shape[-1]
    full = d - d % 32 if d >= 32 else d
    ss = sum(x32[..., i:i + 32].pow(2).sum(dim=-1, keepdim=True) for i in range(0, full, 32))
    inv_rms = torch.rsqrt(ss / d + eps)''')},
     "why": "AG: the mean square summed in chunks of 32, the last shorter chunk dropped when a full one precedes it"},
    {"name": "AG-p3-chunk-loop-last-dropped", "correct": False,
     "cells": {"cache_count_without": PREFILL.format(stop="prompt_len - prompt_len % chunk")},
     "why": "AG: the loop over chunks stops before the last, shorter chunk"},
    # ---- AH: a derivative wrong only at exactly 0
    {"name": "AH-p1-x-as-abs-times-sign", "correct": False,
     "cells": {"rms_norm": RMS.format(body="x32 = x32.abs() * x32.sign()\n    " + RMS_MS)},
     "why": "AH: x rewritten as |x| sign(x): right values, slope 0 at exactly 0"},
    {"name": "AH-p1-where-zero", "correct": False,
     "cells": {"rms_norm": RMS.format(body="x32 = torch.where(x32 == 0, torch.zeros_like(x32), x32)\n    " + RMS_MS)},
     "why": "AH: zero entries replaced by a constant 0: right values, no gradient at exactly 0"},
    {"name": "AH-p5-relu-as-clamp", "correct": True,
     "cells": {"sandwich": SANDWICH.format(relu="(x @ w1.T + b1).clamp(min=0)")},
     "why": "allowed: ReLU is not differentiable at 0; clamp's slope 1 there is another subgradient"},
    {"name": "AH-p5-relu-as-where", "correct": True,
     "cells": {"sandwich": SANDWICH.format(relu="torch.where((x @ w1.T + b1) > 0, x @ w1.T + b1, 0.0)")},
     "why": "allowed: ReLU written with where (slope 0 at 0, as torch.relu)"},
]
