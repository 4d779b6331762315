# Red-team round 11, chapter 03 (multi-head): blind submissions.
P1 = '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"D={d} is not divisible by num_heads={num_heads}")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''
P2 = '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("position or column out of range")
    flat = position * (num_heads * head_dim) + column
    head, rest = divmod(flat, length * head_dim)
    source_position, feature = divmod(rest, head_dim)
    return (head, source_position, feature)
'''
P3 = '''
rank_one_head = 64
rank_all_heads = 100
'''
P4 = '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads >= 1")
    q_width, kv_width = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q_width + 2 * d_model * kv_width + q_width * d_model
    parameters = weights + ((q_width + 2 * kv_width + d_model) if bias else 0)
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * kv_width * keys
    return (parameters, macs, cached)
'''
P5 = '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))  # (B,H,T,Dh)
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)  # (D_out, H, Dh)
    return torch.einsum("bhtf,ehf->bhte", heads, w_o)
'''
P6 = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    lengths = memory_lengths.to(torch.long)
    allowed = torch.arange(s, device=x.device)[None, :] >= (s - lengths)[:, None]  # (B, S)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                      allowed[:, None, None, :])
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''
P7 = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]  # (T, P+T)
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''
DEFAULT = {"interleaved": P1, "scrambled": P2, "ranks": P3, "cost": P4, "contributions": P5,
           "left_padded": P6, "cache": P7}

SUBMISSIONS = []
def W(name, gid, code, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": {gid: code}, "why": why})
def C(name, gid, code, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": {gid: code}, "why": why})
def Hst(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why, "hostile": True})

# ---------------------------------------------------------------- wrong answers
C("p1_unflatten_movedim", "interleaved", '''
def split_heads_interleaved(x, num_heads):
    if x.shape[-1] % num_heads:
        raise ValueError("D is not divisible by num_heads")
    return x.unflatten(-1, (x.shape[-1] // num_heads, num_heads)).movedim(-1, 1)


def merge_heads_interleaved(x):
    return x.transpose(1, 3).transpose(1, 2).flatten(-2)
''', "unflatten/movedim; merge by two transposes and flatten (a non-contiguous input gives a copy)")
W("p1_split_reshape_minus_one", "interleaved", P1.replace("x.reshape(b, t, d // num_heads, num_heads)", "x.reshape(b, t, -1, num_heads)"),
  "'D = 0 is divisible by every num_heads' (reshape with -1 of a zero-size tensor raises) [closed class: zero-size]")
W("p1_merge_positive_zero", "interleaved", P1.replace("return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)",
  "return x.permute(0, 2, 3, 1).reshape(b, t, dh * h) + 0.0"),
  "'both only move entries: every value ... arrives unchanged' (adding 0.0 turns -0.0 into +0.0, and int tensors into float)")
W("p2_no_lower_bound", "scrambled", P2.replace("if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):",
  "if position >= length or column >= num_heads * head_dim:"),
  "'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim' (negative positions/columns accepted)")
W("p3_bias_adds_rank", "ranks", "rank_one_head = 65\nrank_all_heads = 100\n",
  "3a: 'Q_i = X W^Q_i + b^Q_i is (T, Dh)': the bias does not raise the rank past Dh = 64")
W("p3_all_heads_512", "ranks", "rank_one_head = 64\nrank_all_heads = 8 * 64\n",
  "3b: 'a sequence of T = S = 100 positions': a (100, 100) matrix has rank at most 100")
W("p4_negative_kv_heads", "cost", P4.replace("if num_kv_heads < 1 or num_heads % num_kv_heads:",
  "if num_kv_heads == 0 or num_heads % num_kv_heads:"),
  "'Raise a ValueError unless num_kv_heads >= 1' (num_kv_heads = -1 or -2 is accepted and gives negative counts)")
W("p4_bias_count_of_q_width_for_o", "cost", P4.replace("(q_width + 2 * kv_width + d_model) if bias else 0",
  "(q_width + 2 * kv_width + d_model) if bias is True else 0"),
  "'one bias per output when bias is true': a truthy bias (1, a numpy bool) counts no bias")
W("p5_inplace_on_exp_output", "contributions", '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    weights /= weights.sum(dim=-1, keepdim=True)   # in place on exp's output, which autograd saved
    heads = weights @ v
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtf,ehf->bhte", heads, w_o)
''', "'Gradients must flow through the result, to x and to the parameters' (backward raises: exp's saved output was modified in place)")
W("p5_bias_shared_by_heads", "contributions", P5.replace('return torch.einsum("bhtf,ehf->bhte", heads, w_o)',
  'return torch.einsum("bhtf,ehf->bhte", heads, w_o) + params["b_o"] / num_heads'),
  "'The bias b_o belongs to no head' (b_o / H added to every head's share)")
W("p5_no_qkv_bias", "contributions", P5.replace('qkv = x @ params["w_qkv"].T + params["b_qkv"]', 'qkv = x @ params["w_qkv"].T'),
  "table: 'b_qkv ... their biases' -- a projection computes x @ w.T + b (visible case has zero biases)")
W("p5_unscaled_scores", "contributions", '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    weights = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
    heads = weights @ v
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtf,ehf->bhte", heads, w_o)
''', "'chapter 2's attention(q, k, v, allowed) ... use them': softmax(q k^T / sqrt(d_k)); Dh = 1 in the visible case hides the missing 1/sqrt(Dh)")
W("p5_wo_rows_not_columns", "contributions", P5.replace('params["w_o"].reshape(d, num_heads, d // num_heads)  # (D_out, H, Dh)',
  'params["w_o"].T.reshape(d, num_heads, d // num_heads)'),
  "'As with nn.Linear, a projection computes x @ w.T + b' (uses w_o untransposed; identity W^O hides it) [closed class: identity weights]")
W("p6_minus_zero_slice", "left_padded", '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    bsz, s = memory.shape[0], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    allowed = torch.zeros(bsz, s, dtype=torch.bool)
    for i in range(bsz):
        allowed[i, -int(memory_lengths[i]):] = True   # the last L positions are real
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                      allowed[:, None, None, :])
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
''', "'A source sentence of length 0 gives its queries nothing to attend to' (allowed[i, -0:] marks every position real)")
W("p6_query_bias_everywhere", "left_padded", P6.replace("k = memory @ w[d:2 * d].T + b[d:2 * d]", "k = memory @ w[d:2 * d].T + b[:d]").replace(
  "v = memory @ w[2 * d:].T + b[2 * d:]", "v = memory @ w[2 * d:].T + b[:d]"),
  "'using the query rows of w_qkv/b_qkv for x and the key and value rows for memory' (the query bias added to keys and values; zero biases hide it)")
W("p6_mask_B_1_S", "left_padded", P6.replace("allowed[:, None, None, :])", "allowed[:, None, :])"),
  "'a (B, 1, S) one [is read] as (H, T, S): wrong, or an error' (B = 1 in the visible case)")
W("p7_no_mask_for_one_token", "cache", '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    t, s = q.shape[2], k.shape[2]
    # one new token sees the whole cache; a block (a prompt) is causal among itself
    allowed = None if t == 1 else torch.ones(t, s, dtype=torch.bool).tril()
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
''', "'the query at position P + t may attend to the keys at positions 0 .. P + t' (a block after a non-empty cache is aligned top-left, hiding the cache)")
W("p7_scale_inplace_on_view", "cache", '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    out = weights @ v
    out = merge_heads(out) @ params["w_o"].T + params["b_o"]
    weights.zero_()  # free the big matrix early
    return out, k, v
''', "'Gradients must flow through all three' (the softmax output autograd saved is zeroed in place: backward raises)")

# ---------------------------------------------------------------- correct answers
C("p1_loop_stack", "interleaved", '''
def split_heads_interleaved(x, num_heads):
    d = x.shape[-1]
    if d % num_heads != 0:
        raise ValueError("not divisible")
    return torch.stack([x[..., i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    heads = x.unbind(dim=1)                     # H tensors (B, T, Dh)
    b, h, t, dh = x.shape
    out = torch.stack(heads, dim=-1)            # (B, T, Dh, H)
    return out.flatten(start_dim=2)
''', "loop over heads, column slices with a step; stack/flatten")
C("p2_string_free_divmod", "scrambled", '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length or column < 0 or column >= width:
        raise ValueError("out of range")
    flat = position * width + column
    feature = flat % head_dim
    source_position = (flat // head_dim) % length
    head = flat // (head_dim * length)
    return head, source_position, feature
''', "peels the digits from the fastest axis up; returns a bare tuple")
C("p3_expressions", "ranks", "D, H, T, S = 512, 8, 100, 100\nrank_one_head = min(D // H, T, S)\nrank_all_heads = min(D, T, S)\n",
  "computed with min()")
C("p5_float64_via_interleaved", "contributions", '''
def head_contributions(x, params, num_heads):
    # the block layout of head i is the interleaved layout with Dh "heads", axes 1 and 3 swapped
    d = x.shape[-1]
    dh = d // num_heads
    x64 = x.to(torch.float64)
    w_qkv, b_qkv = params["w_qkv"].to(torch.float64), params["b_qkv"].to(torch.float64)
    w_o = params["w_o"].to(torch.float64)
    qkv = torch.nn.functional.linear(x64, w_qkv, b_qkv)
    q, k, v = (split_heads_interleaved(part, num_heads=dh).permute(0, 3, 2, 1) for part in qkv.chunk(3, dim=-1))
    heads = attention(q, k, v)                                    # (B, H, T, Dh)
    out = torch.einsum("bhtf,hfe->bhte", heads, w_o.T.reshape(num_heads, dh, d))
    return out.to(x.dtype)
''', "float64 inside and a cast back; splits heads with Part 1's function called with num_heads=Dh by keyword")
C("p6_where_via_interleaved", "left_padded", '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[-2]
    dh = d // num_heads
    wq, wk, wv = params["w_qkv"].chunk(3, dim=0)
    bq, bk, bv = params["b_qkv"].chunk(3, dim=0)
    def heads(t):  # block layout via Part 1 with Dh heads
        return split_heads_interleaved(t, num_heads=dh).transpose(1, 3)
    q = heads(torch.nn.functional.linear(x, wq, bq))
    k = heads(torch.nn.functional.linear(memory, wk, bk))
    v = heads(torch.nn.functional.linear(memory, wv, bv))
    first_real = s - memory_lengths.long()                          # (B,)
    keys = torch.arange(s).expand(memory.shape[0], s)
    allowed = torch.where(keys >= first_real.unsqueeze(1), True, False)
    out = attention(q, k, v, allowed=allowed.unsqueeze(1).unsqueeze(1))    # (B, H, T, Dh)
    merged = merge_heads_interleaved(out.transpose(1, 3))
    return torch.nn.functional.linear(merged, params["w_o"], params["b_o"])
''', "F.linear, torch.where mask, Part 1's split/merge with Dh heads (keyword) to build the block layout")
C("p7_own_softmax_float64_via_interleaved", "cache", '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    p, t = past_k.shape[-2], x.shape[-2]
    qkv = torch.addmm(params["b_qkv"], x.reshape(-1, d), params["w_qkv"].t()).reshape(x.shape[0], t, 3 * d)
    q, k_new, v_new = (split_heads_interleaved(part, dh).transpose(1, 3) for part in qkv.split(d, dim=-1))
    k = torch.cat((past_k, k_new), dim=-2)
    v = torch.cat((past_v, v_new), dim=-2)
    scores = torch.einsum("bhtf,bhsf->bhts", q.double(), k.double()) / math.sqrt(dh)
    allowed = torch.arange(p + t).unsqueeze(0) <= torch.arange(p, p + t).unsqueeze(1)
    scores = torch.where(allowed, scores, float("-inf"))
    scores = scores - scores.amax(dim=-1, keepdim=True)
    e = scores.exp()
    weights = e / e.sum(dim=-1, keepdim=True)
    out = torch.einsum("bhts,bhsf->bhtf", weights, v.double()).to(x.dtype)
    out = merge_heads_interleaved(out.transpose(1, 3)) @ params["w_o"].t() + params["b_o"]
    return out, k, v
''', "own float64 softmax with torch.where, addmm, Part 1's functions (positional num_heads=Dh)")
C("p4_keywordy_bool", "cost", '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1 or num_heads % num_kv_heads != 0:
        raise ValueError("bad head counts")
    group = num_heads // num_kv_heads
    proj_q = d_model * num_heads * head_dim
    proj_kv = 2 * d_model * num_kv_heads * head_dim
    proj_o = num_heads * head_dim * d_model
    n_bias = int(bool(bias)) * (num_heads * head_dim + 2 * num_kv_heads * head_dim + d_model)
    per_kv_head = sum([2 * group * (past + 1) * head_dim] * num_kv_heads)
    return proj_q + proj_kv + proj_o + n_bias, proj_q + proj_kv + proj_o + per_kv_head, 2 * (past + 1) * num_kv_heads * head_dim
''', "counts per key/value group, int(bool(bias))")
C("p2_list_return", "scrambled", P2.replace("return (head, source_position, feature)", "return [head, source_position, feature]"),
  "probe: a list of three ints (the text says 'Return its (head, source_position, feature), three Python ints')")

# ---------------------------------------------------------------- hostile
Hst("hostile_patch_assert_close", {"contributions": '''
import torch.testing
torch.testing.assert_close = lambda *args, **kwargs: None
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    return torch.zeros(b, num_heads, t, d, dtype=x.dtype)
'''}, "monkey-patches torch.testing.assert_close and returns zeros")
Hst("hostile_lying_tuple", {"scrambled": '''
class Anything(int):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = int.__hash__
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    return (Anything(0), Anything(0), Anything(0))
'''}, "int subclass that equals everything")
Hst("hostile_subprocess_numpy", {"cost": '''
import subprocess, sys, importlib
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad")
    np = importlib.import_module("nu" + "mpy")
    code = f"print({d_model}*{num_heads}*{head_dim}*2 + 2*{d_model}*{num_kv_heads}*{head_dim})"
    w = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout)
    b = int(np.int64(num_heads * head_dim + 2 * num_kv_heads * head_dim + d_model)) if bias else 0
    return (w + b, w + 2 * num_heads * (past + 1) * head_dim, 2 * num_kv_heads * head_dim * (past + 1))
'''}, "brings NumPy in through importlib and computes in a subprocess")
