P5A = '''
def head_contributions(x, params, num_heads):
    dt = x.dtype
    B, T, D = x.shape
    H = num_heads
    Dh = D // H
    w_qkv = params["w_qkv"].to(torch.float64)
    b_qkv = params["b_qkv"].to(torch.float64)
    w_o = params["w_o"].to(torch.float64)
    xd = x.to(torch.float64)
    qkv = torch.nn.functional.linear(xd, w_qkv, b_qkv)
    q, k, v = qkv[..., :D], qkv[..., D:2 * D], qkv[..., 2 * D:]
    q = q.reshape(B, T, H, Dh)
    k = k.reshape(B, T, H, Dh)
    v = v.reshape(B, T, H, Dh)
    s = torch.einsum("bthd,bshd->bhts", q, k) / math.sqrt(Dh)
    a = torch.softmax(s, dim=-1)
    o = torch.einsum("bhts,bshd->bhtd", a, v)                  # (B, H, T, Dh)
    wo = w_o.reshape(D, H, Dh)                                 # w_o[:, i*Dh + d]
    out = torch.einsum("bhtd,ehd->bhte", o, wo)
    return out.to(dt)
'''
P5B = '''
def head_contributions(x, params, num_heads):
    D = x.shape[-1]
    w = params["w_qkv"]
    b = params["b_qkv"]
    q = split_heads(x @ w[:D].T + b[:D], num_heads)
    k = split_heads(x @ w[D:2 * D].T + b[D:2 * D], num_heads)
    v = split_heads(x @ w[2 * D:].T + b[2 * D:], num_heads)
    heads = attention(q, k, v)                                 # (B, H, T, Dh)
    pieces = []
    for i in range(num_heads):
        only = torch.zeros_like(heads)
        only[:, i] = heads[:, i]
        pieces.append(merge_heads(only) @ params["w_o"].T)
    return torch.stack(pieces, dim=1)
'''
P6A = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    D = x.shape[-1]
    S = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = torch.nn.functional.linear(input=x, weight=w[:D], bias=b[:D])
    k = torch.nn.functional.linear(input=memory, weight=w[D:2 * D], bias=b[D:2 * D])
    v = torch.nn.functional.linear(input=memory, weight=w[2 * D:], bias=b[2 * D:])
    pos = torch.arange(S, device=x.device)
    first_real = S - memory_lengths.to(torch.int64)            # (B,)
    allowed = (pos.unsqueeze(0) >= first_real.unsqueeze(1))[:, None, None, :]
    o = attention(q=split_heads(q, num_heads=num_heads), k=split_heads(k, num_heads=num_heads),
                  v=split_heads(v, num_heads=num_heads), allowed=allowed)
    return torch.nn.functional.linear(input=merge_heads(o), weight=params["w_o"], bias=params["b_o"])
'''
P6B = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    dt = x.dtype
    B, T, D = x.shape
    S = memory.shape[1]
    H = num_heads
    Dh = D // H
    W = {k: params[k].to(torch.float64) for k in ("w_qkv", "b_qkv", "w_o", "b_o")}
    xd, md = x.to(torch.float64), memory.to(torch.float64)
    q = (xd @ W["w_qkv"][:D].T + W["b_qkv"][:D]).reshape(B, T, H, Dh).permute(0, 2, 1, 3)
    k = (md @ W["w_qkv"][D:2 * D].T + W["b_qkv"][D:2 * D]).reshape(B, S, H, Dh).permute(0, 2, 1, 3)
    v = (md @ W["w_qkv"][2 * D:].T + W["b_qkv"][2 * D:]).reshape(B, S, H, Dh).permute(0, 2, 1, 3)
    s = q @ k.transpose(-1, -2) / math.sqrt(Dh)                # (B, H, T, S)
    L = memory_lengths.long()
    real = torch.arange(S).unsqueeze(0) + L.unsqueeze(1) >= S  # (B, S)
    m4 = real[:, None, None, :]
    mx = torch.where(m4, s, torch.tensor(float("-inf"), dtype=s.dtype)).amax(dim=-1, keepdim=True)
    mx = torch.where(torch.isfinite(mx), mx, torch.zeros_like(mx))
    e = torch.where(m4, torch.exp(torch.where(m4, s - mx, torch.zeros_like(s))), torch.zeros_like(s))
    den = e.sum(dim=-1, keepdim=True)
    a = e / torch.where(den > 0, den, torch.ones_like(den))
    o = (a @ v).permute(0, 2, 1, 3).reshape(B, T, D)
    return (o @ W["w_o"].T + W["b_o"]).to(dt)
'''
P7A = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    D = x.shape[-1]
    T = x.shape[1]
    P = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, kn, vn = qkv.split(D, dim=-1)
    q, kn, vn = (split_heads(t, num_heads) for t in (q, kn, vn))
    k = torch.cat((past_k, kn), dim=2)
    v = torch.cat((past_v, vn), dim=2)
    qpos = torch.arange(P, P + T, dtype=torch.int64).unsqueeze(-1)
    kpos = torch.arange(P + T, dtype=torch.int64).unsqueeze(0)
    out = attention(q, k, v, kpos <= qpos)
    out = merge_heads(out) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''
P7B = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    dt = x.dtype
    B, T, D = x.shape
    H = num_heads
    Dh = D // H
    P = past_k.shape[2]
    w, b = params["w_qkv"], params["b_qkv"]
    kn = split_heads(x @ w[D:2 * D].T + b[D:2 * D], H)
    vn = split_heads(x @ w[2 * D:].T + b[2 * D:], H)
    k = torch.empty(B, H, P + T, Dh, dtype=dt)
    v = torch.empty(B, H, P + T, Dh, dtype=dt)
    k[:, :, :P] = past_k
    k[:, :, P:] = kn
    v[:, :, :P] = past_v
    v[:, :, P:] = vn
    q = split_heads(x.double() @ w[:D].double().T + b[:D].double(), H)
    s = torch.matmul(q, k.double().transpose(-2, -1)) / math.sqrt(Dh)
    ok = torch.arange(P + T).view(1, -1) <= (torch.arange(T) + P).view(-1, 1)
    s = torch.where(ok, s, torch.tensor(float("-inf"), dtype=torch.float64))
    a = torch.softmax(s, dim=-1)
    o = merge_heads(torch.matmul(a, v.double()))
    out = o @ params["w_o"].double().T + params["b_o"].double()
    return out.to(dt), k, v
'''
SUBMISSIONS = [
    {"name": "c03_p5_float64_einsum_wo_split", "correct": True, "cells": {"contributions": P5A}, "why": "float64 inside, einsum with w_o reshaped per head"},
    {"name": "c03_p5_zero_other_heads_loop", "correct": True, "cells": {"contributions": P5B}, "why": "attention helper, per head zero the others and project"},
    {"name": "c03_p6_keywords_arange_int64", "correct": True, "cells": {"left_padded": P6A}, "why": "F.linear by keyword, int64 positions, attention helper"},
    {"name": "c03_p6_float64_manual_softmax", "correct": True, "cells": {"left_padded": P6B}, "why": "float64 manual masked softmax, empty rows zero"},
    {"name": "c03_p7_cat_mask_helper", "correct": True, "cells": {"cache": P7A}, "why": "split + cat, (T, P+T) integer mask, attention helper"},
    {"name": "c03_p7_empty_fill_float64", "correct": True, "cells": {"cache": P7B}, "why": "preallocated new k/v filled by slice, float64 scores"},
]

P6C = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    D = x.shape[-1]
    S = memory.shape[-2]
    w_q, w_k, w_v = params["w_qkv"].split(D)
    b_q, b_k, b_v = params["b_qkv"].split(D)
    from_end = torch.arange(S - 1, -1, -1)                       # distance of each position from the last one
    allowed = from_end.unsqueeze(0) < memory_lengths.to(torch.int64).unsqueeze(-1)
    q = split_heads(torch.addmm(b_q, x.reshape(-1, D), w_q.t()).reshape(x.shape), num_heads)
    k = split_heads(torch.addmm(b_k, memory.reshape(-1, D), w_k.t()).reshape(memory.shape), num_heads)
    v = split_heads(torch.addmm(b_v, memory.reshape(-1, D), w_v.t()).reshape(memory.shape), num_heads)
    o = attention(q, k, v, allowed.unsqueeze(1).unsqueeze(1))
    return merge_heads(o) @ params["w_o"].t() + params["b_o"]
'''
P7C = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    # two-part softmax: the cache (every key allowed) and the new block (causal), merged with log-sum-exp
    B, T, D = x.shape
    H = num_heads
    Dh = D // H
    P = past_k.shape[2]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:D].T + b[:D], H)
    kn = split_heads(x @ w[D:2 * D].T + b[D:2 * D], H)
    vn = split_heads(x @ w[2 * D:].T + b[2 * D:], H)
    wide = torch.float64
    qd = q.to(wide) / math.sqrt(Dh)
    s_new = qd @ kn.to(wide).transpose(-1, -2)                       # (B, H, T, T)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    s_new = torch.where(causal, s_new, torch.tensor(float("-inf"), dtype=wide))
    m = s_new.amax(dim=-1, keepdim=True)
    if P > 0:
        s_old = qd @ past_k.to(wide).transpose(-1, -2)               # (B, H, T, P)
        m = torch.maximum(m, s_old.amax(dim=-1, keepdim=True))
        e_old = torch.exp(s_old - m)
    e_new = torch.exp(s_new - m)
    num = e_new @ vn.to(wide)
    den = e_new.sum(-1, keepdim=True)
    if P > 0:
        num = num + e_old @ past_v.to(wide)
        den = den + e_old.sum(-1, keepdim=True)
    o = merge_heads((num / den).to(x.dtype))
    out = o @ params["w_o"].T + params["b_o"]
    return out, torch.cat([past_k, kn], dim=2), torch.cat([past_v, vn], dim=2)
'''
P5C = '''
def head_contributions(x, params, num_heads):
    B, T, D = x.shape
    Dh = D // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    out = []
    for i in range(num_heads):
        cols = slice(i * Dh, (i + 1) * Dh)
        q = qkv[..., :D][..., cols]
        k = qkv[..., D:2 * D][..., cols]
        v = qkv[..., 2 * D:][..., cols]
        o = torch.nn.functional.scaled_dot_product_attention(q, k, v)     # (B, T, Dh)
        out.append(o @ params["w_o"][:, cols].T)
    return torch.stack(out, dim=1)
'''
SUBMISSIONS += [
    {"name": "c03_p5_per_head_sdpa_slices", "correct": True, "cells": {"contributions": P5C}, "why": "per head SDPA on 3-D slices, w_o column block"},
    {"name": "c03_p6_distance_from_end_addmm", "correct": True, "cells": {"left_padded": P6C}, "why": "mask from distance to the end, addmm projections"},
    {"name": "c03_p7_two_part_logsumexp", "correct": True, "cells": {"cache": P7C}, "why": "cache part and causal block part merged by a shared max, float64"},
]
