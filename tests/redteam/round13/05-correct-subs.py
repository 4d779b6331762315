P5A = '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    w = {name: p[name] for name in ("pre1", "post1", "pre2", "post2", "pre3", "post3")}
    ln = lambda t, name: layer_norm(x=t, weight=w[name][0], bias=w[name][1])
    a = ln(y, "pre1")
    y = y + ln(mha(query=a, memory=a, allowed=self_allowed, params=p["self_attn"]), "post1")
    a = ln(y, "pre2")
    y = y + ln(mha(query=a, memory=memory, allowed=memory_allowed, params=p["cross_attn"]), "post2")
    a = ln(y, "pre3")
    return y + ln(feed_forward(x=a, ff=p["ff"]), "post3")
'''
P5B = '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    dt = y.dtype
    up = lambda t: t.to(torch.float64)
    attn = lambda d: {k: up(d[k]) for k in ("w_qkv", "b_qkv", "w_o", "b_o")}
    q = {"self_attn": attn(p["self_attn"]), "cross_attn": attn(p["cross_attn"]),
         "ff": tuple(up(t) for t in p["ff"])}
    for name in ("pre1", "post1", "pre2", "post2", "pre3", "post3"):
        q[name] = (up(p[name][0]), up(p[name][1]))
    h, mem = up(y), up(memory)
    h = h + layer_norm(mha(layer_norm(h, *q["pre1"]), None, self_allowed, q["self_attn"]), *q["post1"])
    h = h + layer_norm(mha(layer_norm(h, *q["pre2"]), mem, memory_allowed, q["cross_attn"]), *q["post2"])
    h = h + layer_norm(feed_forward(layer_norm(h, *q["pre3"]), q["ff"]), *q["post3"])
    return h.to(dt)
'''
P5C = '''
def my_layer_norm(x, weight, bias):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) * torch.rsqrt(var + 1e-5) * weight + bias


def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    dt = y.dtype
    f = lambda t: t.double()
    steps = [("pre1", "post1", lambda a: mha(a, None, self_allowed, p["self_attn"])),
             ("pre2", "post2", lambda a: mha(a, memory, memory_allowed, p["cross_attn"])),
             ("pre3", "post3", lambda a: feed_forward(a, p["ff"]))]
    out = y
    for pre, post, sub in steps:
        a = my_layer_norm(f(out), f(p[pre][0]), f(p[pre][1])).to(dt)
        out = out + my_layer_norm(f(sub(a)), f(p[post][0]), f(p[post][1])).to(dt)
    return out
'''
P6A = '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3, dim=0)
    b_q, b_k, b_v = params["b_qkv"].chunk(3, dim=0)
    heads = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q = heads(F.linear(x_new, w_q, b_q))
    k_new = heads(F.linear(x_new, w_k, b_k))
    v_new = heads(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        past = cache["k"].shape[2]
        k = torch.cat([cache["k"], k_new], dim=2)
        v = torch.cat([cache["v"], v_new], dim=2)
    else:
        past = 0
        k, v = k_new, v_new
    cache["k"], cache["v"] = k, v
    qpos = torch.arange(past, past + n, dtype=torch.int64)[:, None]
    kpos = torch.arange(past + n, dtype=torch.int64)[None, :]
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=kpos <= qpos)
    o = o.transpose(1, 2).reshape(B, n, D)
    return F.linear(o, params["w_o"], params["b_o"])
'''
P6B = '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    dt = x_new.dtype
    W, b = params["w_qkv"], params["b_qkv"]
    qkv = torch.einsum("bnd,ed->bne", x_new, W) + b              # (B, n, 3D)
    qkv = qkv.unflatten(-1, (3, H, Dh)).permute(2, 0, 3, 1, 4)    # (3, B, H, n, Dh)
    q, k_new, v_new = qkv[0], qkv[1], qkv[2]
    past = cache["k"].shape[2] if "k" in cache else 0
    old_k = cache["k"] if past or "k" in cache else torch.zeros(B, H, 0, Dh, dtype=dt)
    old_v = cache["v"] if past or "v" in cache else torch.zeros(B, H, 0, Dh, dtype=dt)
    k = torch.cat((old_k, k_new), 2)
    v = torch.cat((old_v, v_new), 2)
    cache.update(k=k, v=v)
    s = torch.einsum("bhqd,bhkd->bhqk", q.double(), k.double()) / math.sqrt(Dh)
    allowed = torch.arange(past + n).unsqueeze(0) <= (past + torch.arange(n)).unsqueeze(1)
    s = torch.where(allowed, s, torch.full((), float("-inf"), dtype=torch.float64))
    a = torch.softmax(s, dim=-1)
    o = torch.einsum("bhqk,bhkd->bhqd", a, v.double())
    o = o.permute(0, 2, 1, 3).reshape(B, n, D)
    return (o @ params["w_o"].double().T + params["b_o"].double()).to(dt)
'''
SUBMISSIONS = [
    {"name": "c05_p5_keywords_own_dict", "correct": True, "cells": {"sandwich": P5A}, "why": "every argument by keyword, a new dict of the norm pairs, memory=a for self"},
    {"name": "c05_p5_float64_copies", "correct": True, "cells": {"sandwich": P5B}, "why": "float64 copies of every parameter in a dict of my own, cast back"},
    {"name": "c05_p5_own_ln_loop", "correct": True, "cells": {"sandwich": P5C}, "why": "own LayerNorm in float64 (eps 1e-5, biased variance), sublayers in a loop"},
    {"name": "c05_p6_sdpa_chunk_int_mask", "correct": True, "cells": {"cached_attention": P6A}, "why": "chunk, SDPA with an (n, past+n) integer-built mask, cat"},
    {"name": "c05_p6_einsum_float64_where", "correct": True, "cells": {"cached_attention": P6B}, "why": "einsum projections, unflatten, float64 scores with where(-inf), cache.update"},
]

P6C = '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"])
    q, k_new, v_new = (t.reshape(B, n, H, Dh).permute(0, 2, 1, 3) for t in qkv.split(D, dim=-1))
    past = cache["k"].shape[2] if "k" in cache else 0
    k = x_new.new_empty(B, H, past + n, Dh)
    v = x_new.new_empty(B, H, past + n, Dh)
    if past:
        k[:, :, :past] = cache["k"]
        v[:, :, :past] = cache["v"]
    k[:, :, past:] = k_new
    v[:, :, past:] = v_new
    cache["k"] = k
    cache["v"] = v
    if past == 0:
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    else:
        rows = torch.arange(n).add(past).unsqueeze(1)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.arange(past + n).unsqueeze(0) <= rows)
    return F.linear(o.permute(0, 2, 1, 3).reshape(B, n, D), params["w_o"], params["b_o"])
'''
SUBMISSIONS += [
    {"name": "c05_p6_prealloc_is_causal", "correct": True, "cells": {"cached_attention": P6C}, "why": "new k/v filled by slice assignment, is_causal when the cache is empty"},
]
