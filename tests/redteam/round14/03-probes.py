# Round 14, second wave for 03-multi-head (written after the blind grade).
import importlib.util as _u
_s = _u.spec_from_file_location("b", "tests/redteam/round14/03-subs.py"); _m = _u.module_from_spec(_s); _s.loader.exec_module(_m)
BASE = _m.BASE
SUBMISSIONS = [
{"name": "P_mha_forward_key_padding_nan_to_num", "correct": False, "kind": "tutorial", "cells": {"left_padded": '''
import torch.nn.functional as F

def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    pad = torch.arange(s)[None, :] < (s - memory_lengths.long())[:, None]        # True = ignore (PyTorch's convention)
    out, _ = F.multi_head_attention_forward(
        x.transpose(0, 1), memory.transpose(0, 1), memory.transpose(0, 1), d, num_heads,
        params["w_qkv"], params["b_qkv"], None, None, False, 0.0, params["w_o"], params["b_o"],
        training=False, key_padding_mask=pad, need_weights=False)
    out = out.transpose(0, 1)
    empty = (memory_lengths == 0)[:, None, None]
    return torch.where(empty, params["b_o"].expand_as(out), out)
'''}, "why": "P6: length 0 gives NaN inside multi_head_attention_forward; torch.where fixes the forward, but 'gradients ... must stay finite'"},
{"name": "P_cache_preallocated_per_call", "correct": True, "kind": "careful", "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = x.new_zeros(b, num_heads, p + t, d // num_heads)
    v = x.new_zeros(b, num_heads, p + t, d // num_heads)
    k[:, :, :p] = past_k
    k[:, :, p:] = k_new
    v[:, :, :p] = past_v
    v[:, :, p:] = v_new
    allowed = torch.arange(p + t)[None, :] <= torch.arange(p, p + t)[:, None]
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "why": "P7 writing into a fresh buffer each call (copies, gradients flow through the slice assignments)"},
{"name": "P_cost_bool_bias_string", "correct": True, "kind": "hurried", "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    w = 2 * d_model * q + 2 * d_model * kv
    return w + int(bool(bias)) * (q + 2 * kv + d_model), w + 2 * num_heads * (past + 1) * head_dim, 2 * kv * (past + 1)
'''}, "why": "P4 with int(bool(bias))"},
{"name": "P_interleaved_unflatten_keywords", "correct": True, "kind": "tutorial", "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    batch, length, width = x.size()
    if width % num_heads != 0:
        raise ValueError("width must be divisible by num_heads")
    return x.unflatten(dim=-1, sizes=(width // num_heads, num_heads)).permute(0, 3, 1, 2).contiguous()


def merge_heads_interleaved(x):
    batch, heads, length, head_dim = x.size()
    return x.permute(0, 2, 3, 1).contiguous().view(batch, length, head_dim * heads)
'''}, "why": "P1 with unflatten and contiguous().view"},
{"name": "P_contrib_float16_manual_softmax_float32", "correct": True, "kind": "tutorial", "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(dh)
    wide = torch.promote_types(scores.dtype, torch.float32)
    probs = torch.softmax(scores.to(wide), dim=-1).to(x.dtype)
    heads = probs @ v
    w = params["w_o"].T.reshape(num_heads, dh, d)
    return torch.einsum("bhtf,hfe->bhte", heads, w)
'''}, "why": "P5 with the softmax in float32 for half inputs (and float64 kept)"},
]
