# Round 30 class sweep, chapter 05 (classes AL, AM, AN). Each variant is the model answer with the smallest change
# that makes the class's mistake; "correct": True marks probes the text allows. AJ and AK are closed in this chapter.
RMS_NORM = '''
def rms_norm(x, weight, eps=1e-6):
    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    inv_rms = torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype)
'''
MODERN_PARAMS = '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    attention = 4 * d * d
    ffn = 3 * d * d_ff
    encoder = n_enc * (attention + ffn + 2 * d) + d
    decoder = n_dec * (2 * attention + ffn + 3 * d) + d
    return 2 * vocab * d + encoder + decoder
'''
CACHE_COUNT_WITHOUT = '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    full, rest = divmod(prompt_len, chunk)
    # full chunk k = 0 .. full-1: chunk queries against (k + 1) * chunk keys; then rest queries against all prompt_len keys
    per_head = chunk * chunk * full * (full + 1) // 2 + rest * prompt_len
    return layers * heads * per_head
'''
CACHE_COUNT_WITH = '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    steps = max(new_tokens - 1, 0)  # the prefill chose the first token
    # step j = 1 .. steps feeds position prompt_len + j - 1, whose query meets prompt_len + j keys
    return total + layers * heads * (steps * prompt_len + steps * (steps + 1) // 2)
'''
PACKED_MASKS = '''
def packed_masks(src_segments, tgt_segments):
    src_real, tgt_real = src_segments != 0, tgt_segments != 0
    same_src = (src_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    same_tgt = (tgt_segments[:, :, None] == tgt_segments[:, None, :]) & tgt_real[:, None, :]
    t = tgt_segments.shape[1]
    causal = torch.ones(t, t, dtype=torch.bool, device=tgt_segments.device).tril()
    cross = (tgt_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    return same_src, same_tgt & causal, cross
'''
SANDWICH = '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    return y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
'''
CACHED_ATTENTION = '''
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)  # (B, n, D) -> (B, H, n, Dh)
    q, k, v = split(x_new @ w_q.T + b_q), split(x_new @ w_k.T + b_k), split(x_new @ w_v.T + b_v)
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)  # (B, H, past + n, Dh)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    rows = torch.arange(past, past + n, device=x_new.device)[:, None]
    cols = torch.arange(past + n, device=x_new.device)[None, :]
    allowed = cols <= rows  # (n, past + n)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)  # (B, H, n, Dh) @ (B, H, Dh, past + n) -> (B, H, n, past + n)
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    heads = weights @ v  # (B, H, n, past + n) @ (B, H, past + n, Dh) -> (B, H, n, Dh)
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
'''


def swap(code, old, new):
    assert old in code, old
    return code.replace(old, new, 1)

SUBMISSIONS = [
 # ---- class AL: a converted copy of an input kept per id()
 {"name": "AL-p1-weight-converted-by-id", "correct": False, "cells": {"rms_norm": '''
CONVERTED = {}
def converted(t, dtype):
    key = (id(t), tuple(t.shape), t.stride(), t.dtype, dtype)
    if key not in CONVERTED:
        CONVERTED[key] = t.to(dtype)
    return CONVERTED[key]
''' + swap(RMS_NORM, "weight.to(x32.dtype)", "converted(weight, x32.dtype)")},
  "why": "AL: the float32 copy of a half weight kept per id(); 'keep nothing from one call to the next keyed on a tensor'"},
 {"name": "AL-p1-x-float-by-id", "correct": False, "cells": {"rms_norm": '''
CONVERTED = {}
def converted(t, dtype):
    key = (id(t), tuple(t.shape), t.stride(), t.dtype, dtype)
    if key not in CONVERTED:
        CONVERTED[key] = t.to(dtype)
    return CONVERTED[key]
''' + swap(RMS_NORM, "x.float() if", "converted(x, torch.float32) if")},
  "why": "AL: the float32 copy of a half x kept per id()"},
 {"name": "AL-p1-all-float64-by-id", "correct": False, "cells": {"rms_norm": '''
CONVERTED = {}
def converted(t, dtype):
    key = (id(t), tuple(t.shape), t.stride(), t.dtype, dtype)
    if key not in CONVERTED:
        CONVERTED[key] = t.to(dtype)
    return CONVERTED[key]
def rms_norm(x, weight, eps=1e-6):
    x64, w64 = converted(x, torch.float64), converted(weight, torch.float64)
    inv_rms = torch.rsqrt(x64.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (x64 * inv_rms * w64).to(x.dtype)
'''},
  "why": "AL: float64 copies of x and weight kept per id() (a float64 input is its own copy)"},
 {"name": "AL-p4-long-by-id", "correct": False, "cells": {"packed_masks": '''
CONVERTED = {}
def converted(t):
    key = (id(t), tuple(t.shape), t.stride(), t.dtype)
    if key not in CONVERTED:
        CONVERTED[key] = t.long().contiguous()
    return CONVERTED[key]
''' + swap(PACKED_MASKS, "src_real, tgt_real", "src_segments, tgt_segments = converted(src_segments), converted(tgt_segments)\n    src_real, tgt_real")},
  "why": "AL: int64 copies of the segments kept per id()"},
 {"name": "AL-p5-memory-params-float64-by-id", "correct": False, "cells": {"sandwich": '''
CONVERTED = {}
def converted(t):
    kept = CONVERTED.get(id(t))
    if kept is None or kept[0] is not t:  # the original is kept alive with its copy, so its id() is never reused
        kept = CONVERTED[id(t)] = (t, t.to(torch.float64))
    return kept[1]
def conv_p(p):
    return {name: (converted(v) if torch.is_tensor(v) else
                   tuple(converted(t) for t in v) if isinstance(v, (tuple, list)) else
                   {key: converted(t) for key, t in v.items()})
            for name, v in p.items()}
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    dtype = y.dtype
    p = conv_p(p)
    memory = converted(memory)
    y = y.to(torch.float64)
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    return (y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])).to(dtype)
'''},
  "why": "AL: float64 copies of memory and of the parameters kept per id()"},
 {"name": "AL-p6-weights-float64-by-id", "correct": False, "cells": {"cached_attention": '''
CONVERTED = {}
def converted(t):
    key = (id(t), tuple(t.shape), t.stride(), t.dtype)
    if key not in CONVERTED:
        CONVERTED[key] = t.to(torch.float64)
    return CONVERTED[key]
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = converted(params["w_qkv"]).chunk(3), converted(params["b_qkv"]).chunk(3)
    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)
    x64 = x_new.to(torch.float64)
    q, k, v = split(x64 @ w_q.T + b_q), split(x64 @ w_k.T + b_k), split(x64 @ w_v.T + b_v)
    k, v = k.to(x_new.dtype), v.to(x_new.dtype)
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    rows = torch.arange(past, past + n)[:, None]
    cols = torch.arange(past + n)[None, :]
    scores = q @ k.to(torch.float64).transpose(-2, -1) / math.sqrt(dh)
    weights = torch.softmax(scores.masked_fill(~(cols <= rows), float("-inf")), dim=-1)
    heads = weights @ v.to(torch.float64)
    return (heads.transpose(1, 2).reshape(b, n, d) @ converted(params["w_o"]).T + converted(params["b_o"])).to(x_new.dtype)
'''},
  "why": "AL: float64 copies of the weights kept per id() (the same-object case was float64, its own copy)"},
 # ---- class AN: a value at a limit the text includes refused
 {"name": "AN-p3a-empty-prompt-refused", "correct": False, "cells": {"cache_count_without": swap(CACHE_COUNT_WITHOUT,
     "    full, rest", "    if prompt_len < 1:\n        raise ValueError('empty prompt')\n    full, rest")},
  "why": "AN: prompt_len >= 0 (an empty prompt costs nothing)"},
 {"name": "AN-p3a-chunk-1-refused", "correct": False, "cells": {"cache_count_without": swap(CACHE_COUNT_WITHOUT,
     "    full, rest", "    if chunk < 2:\n        raise ValueError('chunk')\n    full, rest")},
  "why": "AN: chunk >= 1"},
 {"name": "AN-p3a-one-layer-one-head-refused", "correct": False, "cells": {"cache_count_without": swap(CACHE_COUNT_WITHOUT,
     "    full, rest", "    if layers < 2 and heads < 2:\n        raise ValueError('model')\n    full, rest")},
  "why": "AN: layers >= 1 and heads >= 1"},
 {"name": "AN-p3a-chunk-equal-prompt-wrong", "correct": False, "cells": {"cache_count_without": swap(CACHE_COUNT_WITHOUT,
     "    full, rest", "    if chunk == prompt_len:\n        return layers * heads * prompt_len * (prompt_len + 1) // 2\n    full, rest")},
  "why": "AN: c >= P is a single chunk, c = P included (the whole square is scored)"},
 {"name": "AN-p3b-no-new-tokens-refused", "correct": False, "cells": {"cache_count_with": swap(CACHE_COUNT_WITH,
     "    total =", "    if new_tokens < 1:\n        raise ValueError('new_tokens')\n    total =")},
  "why": "AN: new_tokens >= 0"},
 {"name": "AN-p3b-prompt-1-refused", "correct": False, "cells": {"cache_count_with": swap(CACHE_COUNT_WITH,
     "    total =", "    if prompt_len < 2:\n        raise ValueError('prompt_len')\n    total =")},
  "why": "AN: prompt_len >= 1 in (b)"},
 {"name": "AN-p3b-one-new-token-wrong", "correct": False, "cells": {"cache_count_with": swap(CACHE_COUNT_WITH,
     "    total =", "    if new_tokens == 1:\n        return prefill_dot_products(prompt_len, chunk, layers, heads) + layers * heads * (prompt_len + 1)\n    total =")},
  "why": "AN: new_tokens = 1 (the first token comes from the prefill: no step)"},
]
