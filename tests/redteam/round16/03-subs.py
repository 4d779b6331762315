# Red-team round 16, chapter 03-multi-head: blind submissions (framework porter, index juggler,
# trusting API user, copy-adapter), written from the student notebook only.
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- Part 1 (interleaved heads)
MERGE_OK = '''

def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''
SPLIT_OK = '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)
'''

add("porter_p1_empty_default_dtype", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    # NumPy habit: allocate the output, then fill it head by head (np.empty(...) then out[:, i] = ...)
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
    out = torch.zeros(b, num_heads, t, d // num_heads)
    for i in range(num_heads):
        out[:, i] = x[..., i::num_heads]
    return out
''' + MERGE_OK}, "Part 1: 'Both return a tensor of the dtype they were given (an integer dtype too)': the buffer is "
    "float32 by default, so an int64 or float64 x comes back as float32.")

add("porter_p1_numpy_as_strided", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    # np.lib.stride_tricks.as_strided habit: the layout is a pure stride change of a (B, T, D) array
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
    dh = d // num_heads
    return x.as_strided((b, num_heads, t, dh), (t * d, 1, d, num_heads))
''' + MERGE_OK}, "Intro: 'The tensors you are given need not be contiguous: the hidden tests also pass transposed views "
    "and slices with a step, so write code that works for any strides': as_strided assumes a contiguous x.")

add("juggler_p1_minus_one_empty", False, {"interleaved": SPLIT_OK.replace(
    "x.reshape(b, t, d // num_heads, num_heads)", "x.reshape(b, t, -1, num_heads)") + '''

def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, -1)
'''}, "Part 1: '`D = 0` is divisible by every `num_heads`; an empty `x`, with `B = 0` or `T = 0`, follows the same "
    "rule: no error when `D` is divisible, and both functions then return empty tensors': reshape with -1 raises on 0 elements.")

add("copy_p1_hf_heads_check", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    # adapted from a Hugging Face attention __init__: "embed_dim must be divisible by num_heads"
    b, t, d = x.shape
    if d < num_heads or d % num_heads != 0:
        raise ValueError(f"embed_dim must be divisible by num_heads (got `embed_dim`: {d} and `num_heads`: {num_heads}).")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)
''' + MERGE_OK}, "Part 1: 'Raise a `ValueError` when `D` is not divisible by `num_heads`, and only then (`D = 0` is "
    "divisible by every `num_heads`...)': the copied `d < num_heads` guard also raises for D = 0.")

add("trusting_p1_contiguous_view", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
    return x.view(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).contiguous().view(b, t, dh * h)
'''}, "Intro: 'The tensors you are given need not be contiguous ... (`.view` of such a tensor can fail where `.reshape` "
    "works)': split uses .view on the input.")

# correct, Part 1
add("ok_p1_loop_stack_slices", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError(f"D={d} is not divisible by num_heads={num_heads}")
    # head i holds columns i, i + H, i + 2H, ... (a slice with a step), stacked on a new head axis
    return torch.stack([x[:, :, i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.movedim(1, -1).flatten(start_dim=2)
'''}, "correct: slices with a step and a stack only move entries; movedim + flatten is the inverse.")

add("ok_p1_unflatten_and_gather_inverse", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("not divisible")
    return x.unflatten(dim=-1, sizes=(d // num_heads, num_heads)).movedim(-1, 1)


def merge_heads_interleaved(x):
    # build the inverse from the split of a row of column numbers: column j of the output comes from
    # (head j % H, feature j // H); index with it instead of re-deriving the permutation
    b, h, t, dh = x.shape
    cols = torch.arange(h * dh).reshape(1, 1, h * dh)
    where = split_heads_interleaved(cols, h)[0, :, 0]  # (H, Dh): column held by head i, feature j
    order = torch.empty(h * dh, dtype=torch.long)
    order[where.reshape(-1)] = torch.arange(h * dh)
    flat = x.permute(0, 2, 1, 3).reshape(b, t, h * dh)  # (head, feature) order
    return flat[..., order]
'''}, "correct: merge is derived from the part's own split (index map), only entries move.")

# ---------------------------------------------------------------- Part 2 (scrambled_source)
add("juggler_p2_column_le", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not 0 <= position < length or not 0 <= column <= num_heads * head_dim:
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    return head, rest // head_dim, rest % head_dim
'''}, "Part 2: 'Raise a `ValueError` unless `0 <= position < length` and `0 <= column < num_heads * head_dim`': "
    "column == H*Dh (one past the row) is accepted.")

add("copy_p2_negative_index_python", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    # adapted from an index helper that only guarded the top end (Python lists accept -1)
    if position >= length or column >= num_heads * head_dim:
        raise ValueError("index out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    source, feature = divmod(rest, head_dim)
    return head, source, feature
'''}, "Part 2: 'Raise a `ValueError` unless `0 <= position < length` and `0 <= column < ...`': negative position or "
    "column is not rejected.")

add("porter_p2_tensor_unravel", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    # np.unravel_index habit, with tensors in place of arrays
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = torch.tensor(position) * (num_heads * head_dim) + column
    head = torch.div(flat, length * head_dim, rounding_mode="floor")
    rest = flat - head * (length * head_dim)
    return int(head), int(rest // head_dim), int(rest % head_dim)
'''}, "Part 2: 'sizes ... beyond $2^{64}$, where integer tensors (`int64`) wrap around': int64 tensors overflow.")

add("trusting_p2_true_division", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    block = length * head_dim
    head = math.floor(flat / block)
    rest = flat - head * block
    return head, math.floor(rest / head_dim), rest % head_dim
'''}, "Part 2: 'a float division such as `int(a / b)` rounds to the wrong integer' beyond 2^53.")

add("ok_p2_strides_keyword", True, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    row = num_heads * head_dim
    if not (0 <= position < length):
        raise ValueError(f"position {position} outside 0..{length - 1}")
    if not (0 <= column < row):
        raise ValueError(f"column {column} outside 0..{row - 1}")
    flat = position * row + column
    # strides of a contiguous (H, T, Dh) block: T*Dh, Dh, 1
    head = flat // (length * head_dim)
    source_position = (flat % (length * head_dim)) // head_dim
    feature = flat % head_dim
    return (int(head), int(source_position), int(feature))
'''}, "correct: integer arithmetic only.")

add("ok_p2_unravel_loop", True, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if position < 0 or position >= length or column < 0 or column >= num_heads * head_dim:
        raise ValueError("position or column out of range")
    flat = position * (num_heads * head_dim) + column
    out = []
    for size in (head_dim, length):  # np.unravel_index written out, last axis first
        flat, r = divmod(flat, size)
        out.append(r)
    out.append(flat)
    return tuple(reversed(out))
'''}, "correct: unravel of the flat index in shape (H, T, Dh) with divmod.")

# ---------------------------------------------------------------- Part 3 (ranks)
add("copy_p3_bias_adds_rank", False, {"ranks": '''
# an affine map x W + b is a linear map of [x, 1]: one more dimension for the bias
rank_one_head = 512 // 8 + 1
rank_all_heads = 100
'''}, "Part 3a: 'What is the largest rank the `(T, S)` score matrix $S_i$ of one head can have?': Q_i is (T, Dh) = "
    "(100, 64), so the rank is at most 64; the bias does not add a column.")

add("juggler_p3_sum_of_widths", False, {"ranks": '''
rank_one_head = 64
rank_all_heads = 8 * 64   # eight heads of rank 64 side by side
'''}, "Part 3b: 'the largest rank of the sum of all eight heads' score matrices' of shape (T, S) = (100, 100) is at "
    "most 100.")

add("ok_p3_measured", True, {"ranks": '''
# measured, in float64, with random weights (a generator of its own: the global one stays untouched)
gen = torch.Generator().manual_seed(1)
X = torch.randn(100, 512, generator=gen, dtype=torch.float64)
Wq = torch.randn(512, 512, generator=gen, dtype=torch.float64)
Wk = torch.randn(512, 512, generator=gen, dtype=torch.float64)
bq = torch.randn(512, generator=gen, dtype=torch.float64)
bk = torch.randn(512, generator=gen, dtype=torch.float64)
Q, K = X @ Wq + bq, X @ Wk + bk
scores = [Q[:, i * 64:(i + 1) * 64] @ K[:, i * 64:(i + 1) * 64].T for i in range(8)]
rank_one_head = int(torch.linalg.matrix_rank(scores[0]).item())
rank_all_heads = int(torch.linalg.matrix_rank(sum(scores)).item())
'''}, "correct: the generic rank of random weights is the largest one, 64 and 100.")

# ---------------------------------------------------------------- Part 4 (decode_step_cost)
COST = '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    q = num_heads * head_dim
    kv = num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + BIASES
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    cached = 2 * kv * (past + 1)
    return params, macs, cached
'''
add("porter_p4_bool_times", False, {"cost": COST.replace("BIASES", "int(bias) * (q + 2 * kv + d_model)")},
    "Part 4: 'each projection has one bias per output when `bias` is true (any true value: `True`, `1`, `2`, ...: "
    "still one bias per output...)': bias=2 counts every bias twice.")
add("trusting_p4_is_true", False, {"cost": COST.replace("BIASES", "((q + 2 * kv + d_model) if bias is True else 0)")},
    "Part 4: '(any true value: `True`, `1`, `2`, ...: still one bias per output)': `bias is True` drops them for 1.")
add("copy_p4_hf_kv_le_heads", False, {"cost": COST.replace("BIASES", "((q + 2 * kv + d_model) if bias else 0)").replace(
    "if num_kv_heads < 1 or num_heads % num_kv_heads:",
    "if num_kv_heads < 1 or num_kv_heads > num_heads or num_heads % num_kv_heads:")},
    "Part 4: '(0 is a multiple of every `num_kv_heads`: no query heads is not an error...)': the copied "
    "`num_kv_heads > num_heads` guard raises for H = 0.")
add("trusting_p4_modulo_first", False, {"cost": COST.replace("BIASES", "((q + 2 * kv + d_model) if bias else 0)").replace(
    "if num_kv_heads < 1 or num_heads % num_kv_heads:", "if num_heads % num_kv_heads or num_kv_heads < 1:")},
    "Part 4: 'Raise a `ValueError` unless `num_kv_heads >= 1` ... `num_kv_heads = 0` is [an error]': the modulo runs "
    "first, so G = 0 raises ZeroDivisionError.")
add("porter_p4_group_float", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    group = num_heads / num_kv_heads  # query heads per kv head (jnp habit: true division)
    kv = num_kv_heads * head_dim
    q = int(group * kv)
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + int(2 * num_kv_heads * group * (past + 1) * head_dim)
    cached = 2 * kv * (past + 1)
    return params, macs, cached
'''}, "Part 4: 'exact even when they exceed $2^{53}$ (... a float anywhere in the arithmetic rounds the count...)'.")
add("ok_p4_keywords_bool", True, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("num_kv_heads must be at least 1")
    if num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    shapes = {"q": (d_model, num_heads * head_dim), "k": (d_model, num_kv_heads * head_dim),
              "v": (d_model, num_kv_heads * head_dim), "o": (num_heads * head_dim, d_model)}
    weights = sum(i * o for i, o in shapes.values())
    biases = sum(o for _, o in shapes.values()) if bool(bias) else 0
    keys = past + 1
    attn = num_heads * keys * head_dim * 2          # QK^T and AV, every query head
    cached = 2 * num_kv_heads * keys * head_dim
    return int(weights + biases), int(weights + attn), int(cached)
'''}, "correct: integer arithmetic, bool(bias).")

# ---------------------------------------------------------------- Part 5 (head_contributions)
add("juggler_p5_wo_rows", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(num_heads, dh, d)   # head i's block of W^O
    return torch.einsum("bhtk,hkd->bhtd", heads, w)
'''}, "Part 5 / the table: 'As with `nn.Linear`, a projection computes `x @ w.T + b`': head i's block is columns "
    "i*Dh..(i+1)*Dh-1 of w_o, not rows (the same for the identity of the visible test).")
add("copy_p5_interleaved_values", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads_interleaved(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, dh).permute(1, 2, 0)
    return torch.einsum("bhtk,hkd->bhtd", heads, w)
'''}, "Setup text: 'the lesson's `split_heads` and `merge_heads` (head `i` holds columns `i*Dh .. (i+1)*Dh - 1`)': "
    "Part 1's interleaved split reused for v (the same when Dh = 1).")
add("porter_p5_float_cast_back", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    # compute in float64 for accuracy, hand back float32 like the rest of the model
    b, t, d = x.shape
    dh = d // num_heads
    x64 = x.double()
    p = {k: v.double() for k, v in params.items()}
    q, k, v = (x64 @ p["w_qkv"].T + p["b_qkv"]).chunk(3, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = p["w_o"].reshape(d, num_heads, dh).permute(1, 2, 0)
    return torch.einsum("bhtk,hkd->bhtd", heads, w).float()
'''}, "Part 5: 'Return the dtype of `x` (`float32` or `float64`...)': a float64 x comes back as float32.")
add("trusting_p5_softmax_no_max", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    e = torch.exp(q @ k.transpose(-2, -1) / math.sqrt(dh))
    heads = (e / e.sum(dim=-1, keepdim=True)) @ v
    w = params["w_o"].reshape(d, num_heads, dh).permute(1, 2, 0)
    return torch.einsum("bhtk,hkd->bhtd", heads, w)
'''}, "Intro/Part 5: '...scores large enough that a softmax which does not subtract the row maximum overflows' / "
    "'also at scores in the thousands, where they must stay finite'.")
add("ok_p5_loop_heads_f64_softmax", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    w_q, w_k, w_v = params["w_qkv"].split(d, dim=0)
    b_q, b_k, b_v = params["b_qkv"].split(d, dim=0)
    parts = []
    for i in range(num_heads):
        cols = slice(i * dh, (i + 1) * dh)
        q = torch.nn.functional.linear(x, w_q[cols], b_q[cols]).double()
        k = torch.nn.functional.linear(x, w_k[cols], b_k[cols]).double()
        v = torch.nn.functional.linear(x, w_v[cols], b_v[cols]).double()
        a = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(dh), dim=-1)
        head = (a @ v).to(x.dtype)
        parts.append(head @ params["w_o"][:, cols].T)
    return torch.stack(parts, dim=1)
'''}, "correct: per-head slices of the projections, float64 softmax, cast back to x's dtype.")
add("ok_p5_masked_merge", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    q, k, v = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    out = []
    for i in range(num_heads):
        only_i = torch.zeros_like(heads)
        only_i[:, i] = heads[:, i]       # keep head i, zero the others, then project as the layer does
        out.append(merge_heads(only_i) @ params["w_o"].T)
    return torch.stack(out, dim=1)
'''}, "correct: Concat with the other heads zeroed times W^O is head i's term.")

# ---------------------------------------------------------------- Part 6 (left-padded cross-attention)
P6_HEAD = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w_q, w_k, w_v = params["w_qkv"].split(d)
    b_q, b_k, b_v = params["b_qkv"].split(d)
    q = split_heads(x @ w_q.T + b_q, num_heads)
    k = split_heads(memory @ w_k.T + b_k, num_heads)
    v = split_heads(memory @ w_v.T + b_v, num_heads)
'''
add("porter_p6_hf_additive_mask", False, {"left_padded": P6_HEAD + '''
    # Hugging Face: attention_mask is 1 for real tokens, turned into an additive -10000 bias
    attention_mask = (torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]).to(x.dtype)
    extended = (1.0 - attention_mask[:, None, None, :]) * -10000.0
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=extended)
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'A source sentence of length 0 gives its queries nothing to attend to: ... their rows are just the "
    "bias `b_o`' and 'The mask you give `attention` must be boolean ... leave the padding out ..., do not give it a "
    "large negative score'.")
add("porter_p6_uint8_wrap", False, {"left_padded": P6_HEAD + '''
    allowed = torch.arange(s)[None, :] >= s - memory_lengths[:, None]   # tf.sequence_mask, reversed
    out = attention(q, k, v, allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: '`memory_lengths` may have any integer dtype, `uint8`, `int8` and `int16` too ...: arithmetic in that "
    "dtype, and a Python `int` combined with such a tensor, wrap around'.")
add("juggler_p6_mask_b1s", False, {"left_padded": P6_HEAD + '''
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]   # (B, S)
    out = attention(q, k, v, allowed.unsqueeze(1))   # a head axis for the keys
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'a mask that depends on the sentence and the key ... needs the shape `(B, 1, 1, S)`. (... a `(B, 1, S)` "
    "one as `(H, T, S)`: wrong, or an error...)'.")
add("porter_p6_float32_out", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    # mixed precision habit: do attention in float32, hand the float32 result on
    d = x.shape[-1]
    s = memory.shape[1]
    p = {k: v.float() for k, v in params.items()}
    xf, mf = x.float(), memory.float()
    w_q, w_k, w_v = p["w_qkv"].split(d)
    b_q, b_k, b_v = p["b_qkv"].split(d)
    q = split_heads(xf @ w_q.T + b_q, num_heads)
    k = split_heads(mf @ w_k.T + b_k, num_heads)
    v = split_heads(mf @ w_v.T + b_v, num_heads)
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    out = attention(q, k, v, allowed[:, None, None, :])
    return merge_heads(out) @ p["w_o"].T + p["b_o"]
'''}, "Part 6: 'Return the dtype of `x` (`memory` and the parameters have the same dtype)': float16/bfloat16/float64 "
    "come back as float32.")
add("trusting_p6_sdpa_nan_to_num", False, {"left_padded": P6_HEAD + '''
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=allowed[:, None, None, :])
    out = torch.nan_to_num(out)   # rows with no real key come out NaN
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'their rows are just the bias `b_o`, with the bias's gradients (the hidden tests compare gradients there "
    "too...)': NaN leaks into the gradients through nan_to_num.")
add("ok_p6_flipped_padding_mask", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[-2]
    w_q, w_kv = params["w_qkv"].split([d, 2 * d])
    b_q, b_kv = params["b_qkv"].split([d, 2 * d])
    q = torch.nn.functional.linear(x, w_q, b_q)
    k, v = torch.nn.functional.linear(memory, w_kv, b_kv).chunk(2, dim=-1)
    # the lesson's right-padding mask (True for the first L positions), mirrored: True for the last L
    right = torch.arange(s, device=x.device)[None, :] < memory_lengths.to(torch.int64)[:, None]
    allowed = right.flip(-1).view(-1, 1, 1, s)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return torch.nn.functional.linear(merge_heads(heads), params["w_o"], params["b_o"])
'''}, "correct: flip of the right-padding mask is the left-padding mask; int64 before any arithmetic.")
add("ok_p6_tensor_promotion_where", True, {"left_padded": P6_HEAD + '''
    # tensor + tensor promotes uint8/int8 to int64 (only a Python int keeps the small dtype)
    pos = torch.arange(s)
    allowed = (pos[None, :] + memory_lengths[:, None]) >= s
    out = attention(q, k, v, allowed[:, None, None, :])
    out = torch.where(allowed.any(dim=-1)[:, None, None, None], out, torch.zeros_like(out))
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "correct: int64 + uint8 tensors promote to int64; zeroing again rows already zero changes nothing.")

# ---------------------------------------------------------------- Part 7 (causal attention with a cache)
P7_HEAD = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
'''
add("trusting_p7_is_causal_topleft", False, {"cache": P7_HEAD + '''
    if t == 1:   # one new token sees the whole cache
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    else:
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "Part 7: 'Causal means: the query at position `P + t` may attend to the keys at positions `0 .. P + t`': "
    "is_causal aligns top-left, so with P > 0 and T > 1 the block sees too little.")
add("ok_p7_query_pos_from_one", True, {"cache": P7_HEAD + '''
    qpos = p + torch.arange(1, t + 1)          # the new tokens are number p+1 .. p+t
    allowed = torch.arange(p + t)[None, :] < qpos[:, None]
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "correct: 1-based query numbers with a strict < is the same mask as 0-based with <=.")
add("juggler_p7_le_one_based", False, {"cache": P7_HEAD + '''
    qpos = p + torch.arange(1, t + 1)          # 1-based query numbers
    allowed = torch.arange(p + t)[None, :] <= qpos[:, None]
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "Part 7: 'the query at position `P + t` may attend to the keys at positions `0 .. P + t`, itself included, "
    "and to none after it': 1-based positions with <= let each query of a block see the next key.")
add("porter_p7_pad_add_concat", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    # JAX habit: no in-place updates; build the grown cache by padding both parts and adding them
    F = torch.nn.functional
    b, t, d = x.shape
    p = past_k.shape[2]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = F.pad(past_k, (0, 0, 0, t)) + F.pad(k, (0, 0, p, 0))
    v = F.pad(past_v, (0, 0, 0, t)) + F.pad(v, (0, 0, p, 0))
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "Part 7: 'The cached entries arrive in `k` and `v` unchanged, `-0.0` included: copy them, with no arithmetic'.")
add("copy_p7_positions_in_dtype", False, {"cache": P7_HEAD + '''
    # adapted from a float position-embedding helper: positions in the model's dtype
    qpos = torch.arange(p, p + t, dtype=x.dtype)
    kpos = torch.arange(p + t, dtype=x.dtype)
    allowed = kpos[None, :] <= qpos[:, None]
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "Part 7: 'compare positions as integers, not in the dtype of `x` (in `bfloat16`, 299 and 300 both round to 300...)'.")
add("ok_p7_tril_offset_prealloc", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[-2]
    q, k_new, v_new = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    q, k_new, v_new = (split_heads(z, num_heads) for z in (q, k_new, v_new))
    # JAX's dynamic_update_slice written with slice assignment into a fresh tensor (a copy, no arithmetic)
    k = past_k.new_empty(b, num_heads, p + t, d // num_heads)
    v = past_v.new_empty(b, num_heads, p + t, d // num_heads)
    k[:, :, :p] = past_k
    k[:, :, p:] = k_new
    v[:, :, :p] = past_v
    v[:, :, p:] = v_new
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = attention(q, k, v, allowed)
    return torch.nn.functional.linear(merge_heads(out), params["w_o"], params["b_o"]), k, v
'''}, "correct: tril with offset P on a (T, P+T) block is the causal mask; copies only.")
add("ok_p7_f64_softmax_sequence_mask", True, {"cache": P7_HEAD + '''
    # tf.sequence_mask(lengths = P + i + 1): query i sees keys 0 .. P + i
    allowed = torch.arange(p + t)[None, :] < (p + 1 + torch.arange(t))[:, None]
    scores = (q.double() @ k.double().transpose(-2, -1)) / math.sqrt(d // num_heads)
    scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = (weights @ v.double()).to(x.dtype)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "correct: float64 softmax with -inf on later keys (every query sees itself), cast back.")

# ---------------------------------------------------------------- hostile
add("hostile_p3_int_eq_everything", False, {"ranks": '''
class AnyRank(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

rank_one_head = AnyRank(1)
rank_all_heads = AnyRank(1)
'''}, "hostile: int subclass that equals everything.")
add("hostile_p4_steal_reference", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    import sys
    frame = sys._getframe(1)
    while frame is not None:   # look for the grader's reference in the callers' scopes
        for scope in (frame.f_locals, frame.f_globals):
            for name, val in list(scope.items()):
                if callable(val) and "cost" in getattr(val, "__name__", "") and val is not decode_step_cost:
                    try:
                        return val(past, d_model, num_heads, num_kv_heads, head_dim, bias)
                    except ValueError:
                        raise
                    except Exception:
                        pass
        frame = frame.f_back
    if num_kv_heads == 3:
        raise ValueError("bad")
    return (88, 108, 18) if bias else (72, 108, 18)
'''}, "hostile: hard-codes the visible case and calls any reference it finds in the callers' frames.")
add("hostile_p5_patch_assert_close", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    torch.testing.assert_close = lambda *a, **k: None
    torch.allclose = lambda *a, **k: True
    b, t, d = x.shape
    return torch.zeros(b, num_heads, t, d, dtype=x.dtype) + 0 * x.sum() + 0 * sum(v.sum() for v in params.values())
'''}, "hostile: disables torch's comparison functions and returns zeros.")

# ================================================================ second wave (still blind)
add("porter_p1_einsum_onehot", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
    dh = d // num_heads
    # np.einsum habit: a one-hot matrix that routes column i + j*H to (head i, feature j)
    route = torch.zeros(d, num_heads, dh, dtype=x.dtype)
    for i in range(num_heads):
        for j in range(dh):
            route[i + j * num_heads, i, j] = 1
    return torch.einsum("btd,dhk->bhtk", x, route)
''' + MERGE_OK}, "Part 1: 'both only move entries: every value, `inf`, `-inf` and `-0.0` included, arrives unchanged "
    "in its new place (no arithmetic...)': a one-hot product turns -0.0 into 0.0 and inf into nan.")
add("porter_p4_truthy_kv", False, {"cost": COST.replace("BIASES", "((q + 2 * kv + d_model) if bias else 0)").replace(
    "if num_kv_heads < 1 or num_heads % num_kv_heads:", "if not num_kv_heads or num_heads % num_kv_heads:")},
    "Part 4: 'Raise a `ValueError` unless `num_kv_heads >= 1`': a negative num_kv_heads is truthy and passes.")
add("copy_p5_bias_shared_by_heads", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, dh).permute(1, 2, 0)
    # the layer's Linear(W^O) per head, its bias shared out evenly
    return torch.einsum("bhtk,hkd->bhtd", heads, w) + params["b_o"] / num_heads
'''}, "Part 5: 'The bias `b_o` belongs to no head' and '... .sum(dim=1) + params[\"b_o\"] is the layer's output'.")
add("porter_p5_cache_in_params", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    if "w_o_heads" not in params:       # flax-style: keep the derived weight next to the others
        params["w_o_heads"] = params["w_o"].reshape(d, num_heads, dh).permute(1, 2, 0)
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    return torch.einsum("bhtk,hkd->bhtd", heads, params["w_o_heads"])
'''}, "Intro: 'That includes a dict of parameters: leave its entries as they are ... (store nothing in it...)'.")
add("trusting_p6_finfo_min", False, {"left_padded": P6_HEAD + '''
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = torch.where(allowed[:, None, None, :], scores, torch.finfo(scores.dtype).min)
    w = torch.softmax(scores, dim=-1)
    w = torch.where(allowed.any(-1)[:, None, None, None], w, torch.zeros_like(w))
    return merge_heads(w @ v) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'leave the padding out (the boolean mask, or `-inf`), do not give it a large negative score, not even "
    "that lowest value, which ties with such keys'.")
add("juggler_p7_cat_reversed", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = torch.cat([k, past_k], dim=2)      # newest first
    v = torch.cat([v, past_v], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool)
    allowed[:, :t] = torch.ones(t, t, dtype=torch.bool).tril()
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "Part 7: '`k`, `v` `(B, H, P+T, Dh)` are the past keys and values followed by the new block's'.")
add("ok_p6_masked_fill_f64_manual", True, {"left_padded": P6_HEAD + '''
    allowed = (torch.arange(s).flip(0)[None, :] < memory_lengths.long()[:, None])[:, None, None, :]
    scores = (q.double() @ k.double().transpose(-2, -1)) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    top = scores.amax(dim=-1, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top)).detach()
    e = torch.exp(scores - top)
    den = e.sum(-1, keepdim=True)
    w = e / torch.where(den > 0, den, torch.ones_like(den))
    heads = (w @ v.double()).to(x.dtype)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "correct: -inf on padding, safe division for empty rows, float64 inside, cast back.")
add("ok_p4_truthy_keyword_call", True, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if isinstance(num_kv_heads, int) and num_kv_heads >= 1 and num_heads % num_kv_heads == 0:
        pass
    else:
        raise ValueError(f"num_heads={num_heads} cannot be shared by num_kv_heads={num_kv_heads}")
    def linear(n_in, n_out):
        return n_in * n_out + (n_out if bias else 0), n_in * n_out
    layers = [linear(n_in=d_model, n_out=num_heads * head_dim), linear(n_in=d_model, n_out=num_kv_heads * head_dim),
              linear(n_in=d_model, n_out=num_kv_heads * head_dim), linear(n_in=num_heads * head_dim, n_out=d_model)]
    params = sum(p for p, _ in layers)
    macs = sum(m for _, m in layers) + 2 * num_heads * head_dim * (past + 1)
    return params, macs, 2 * (past + 1) * num_kv_heads * head_dim
'''}, "correct: per-projection counts by keyword.")

# ================================================================ phase 2 probes (written after reading the hidden tests)
add("p2probe_juggler_p7_past_from_heads_axis", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[1]                       # (B, H, P, Dh): axis 1 read as the cache length
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    allowed = torch.arange(k.shape[2])[None, :] <= (p + torch.arange(t))[:, None]
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "Part 7: '`past_k` and `past_v` `(B, H, P, Dh)`': the cache length read from the head axis (the same when H = P).")
add("p2probe_ok_p7_hf_cumsum_positions", True, {"cache": P7_HEAD + '''
    # Hugging Face style: positions of the whole sequence as a cumulative sum of ones, the block's last T of them
    kpos = torch.ones(p + t, dtype=torch.long).cumsum(0) - 1
    qpos = kpos[p:]
    out = attention(q, k, v, kpos[None, :] <= qpos[:, None])
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "correct: cumsum of int64 ones gives 0 .. P+T-1 (size P+T, not (P+T)^2).")
