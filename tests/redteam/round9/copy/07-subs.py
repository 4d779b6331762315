SUBMISSIONS = [
{"name": "p1 max_batch", "correct": True, "cells": {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    one = 2 * layers * kv_heads * head_dim * cached * 1 * bytes_per_value
    return max(0, (memory_bytes - weight_bytes) // one)
'''}, "why": "copied from inference.md kv_cache_bytes (batch=1) + ModelShape.cached_tokens; changes: 3 lines (cached inlined, name, return floor-division glue)"},
{"name": "p2 merge_partials", "correct": True, "cells": {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    m = torch.maximum(lse_a, lse_b)
    wa, wb = torch.exp(lse_a - m), torch.exp(lse_b - m)
    o = (wa[:, None] * o_a.to(m.dtype) + wb[:, None] * o_b.to(m.dtype)) / (wa + wb)[:, None]
    return o.to(o_a.dtype), m + torch.log(wa + wb)
'''}, "why": "copied from flash.md online-softmax cell (m_new = maximum, l*exp(m-m_new)+...) and flash_attention_forward (acc*rescale, acc/l, lse=m+log l); changes: 4 lines"},
{"name": "p4 rms_norm_half", "correct": True, "cells": {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    y = x.float()
    var = (y * y).mean(-1, keepdim=True)
    normalised = y / (var + eps).sqrt()
    return normalised.to(x.dtype)
'''}, "why": "copied from precision.md overflow cell (y = x.to(dtype); var = (y*y).mean(); normalised = y / var.sqrt()); changes: 4 lines (.float(), dim=-1 keepdim, +eps, cast back)"},
{"name": "p7 chunk_attention", "correct": True, "cells": {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    block_q = block_k = block
    grad_out = d_out
    scale = 1.0 / math.sqrt(q.shape[-1])
    t, s = q.shape[-2], k.shape[-2]
    if causal:
        s = min(s, offset + t)
    acc = lse.dtype
    dq = torch.zeros(q.shape, dtype=acc, device=q.device)
    dk = torch.zeros(k.shape, dtype=acc, device=q.device)
    dv = torch.zeros(v.shape, dtype=acc, device=q.device)
    delta = (grad_out.to(acc) * out.to(acc)).sum(dim=-1)  # (..., T): rowsum(dO ∘ O)
    for j0 in range(0, s, block_k):
        j1 = min(j0 + block_k, s)
        kj, vj = k[..., j0:j1, :].to(acc), v[..., j0:j1, :].to(acc)
        first_query = max(j0 - offset, 0) if causal else 0
        for i0 in range(first_query - first_query % block_q, t, block_q):
            i1 = min(i0 + block_q, t)
            qi, doi = q[..., i0:i1, :].to(acc), grad_out[..., i0:i1, :].to(acc)
            scores = (qi @ kj.transpose(-2, -1)) * scale
            p = torch.exp(scores - lse[..., i0:i1, None])
            if causal:
                rows = torch.arange(i0, i1, device=q.device)[:, None] + offset
                cols = torch.arange(j0, j1, device=q.device)[None, :]
                p = p.masked_fill(cols > rows, 0.0)
            dv[..., j0:j1, :] += p.transpose(-2, -1) @ doi
            dp = doi @ vj.transpose(-2, -1)
            ds = p * (dp - delta[..., i0:i1, None])
            dq[..., i0:i1, :] += (ds @ kj) * scale
            dk[..., j0:j1, :] += (ds.transpose(-2, -1) @ qi) * scale
    dsink = -(torch.exp(sink.to(acc) - lse.to(acc)) * delta).sum()
    return dq.to(q.dtype), dk.to(q.dtype), dv.to(q.dtype), dsink.to(q.dtype)
'''}, "why": "copied from flash.md flash_attention_backward; changes: 7 lines (block alias, d_out rename, s limited to offset+T [2 lines], first_query and rows shifted by offset, dsink line derived by me - exceeds 5-line rule, flagged)"},
]
