# Red team round 30, chapter 03: five kinds of student (validator, batch-mixer, gradient-path,
# incremental, second-call), written blind.
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

MODEL_CACHE = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    qpos = p + torch.arange(t, device=x.device)
    kpos = torch.arange(p + t, device=x.device)
    allowed = kpos[None, :] <= qpos[:, None]
    heads = attention(q.double(), k.double(), v.double(), allowed).to(x.dtype)
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''

# ---------------------------------------------------------------- 1. the validator
add("V1-merge-refuses-integer-dtype", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"D={d} is not divisible by num_heads={num_heads}")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    if x.dim() != 4:
        raise ValueError(f"expected (B, H, T, Dh), got shape {tuple(x.shape)}")
    if not x.is_floating_point():
        raise TypeError(f"merge_heads_interleaved expects activations (a float tensor), got {x.dtype}")
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "Part 1: 'Both return a tensor of the dtype they were given (an integer dtype too)': merge refuses integer tensors.")

add("V2-scrambled-wraps-negative-column", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if column < 0:
        column += width  # Python-style negative index, as x[..., -1]
    if not (0 <= position < length):
        raise ValueError(f"position {position} outside 0..{length - 1}")
    if not (0 <= column < width):
        raise ValueError(f"column {column} outside 0..{width - 1}")
    flat = position * width + column
    head, rest = divmod(flat, length * head_dim)
    source_position, feature = divmod(rest, head_dim)
    return (head, source_position, feature)
'''}, "Part 2: 'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim': column -1 is wrapped instead.")

add("V3-cost-accepts-negative-kv-heads", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads == 0:
        raise ValueError("num_kv_heads must be at least 1")
    if num_heads % num_kv_heads != 0:
        raise ValueError(f"{num_heads} query heads cannot share {num_kv_heads} key/value heads evenly")
    q_width, kv_width = num_heads * head_dim, num_kv_heads * head_dim
    params = d_model * q_width + 2 * d_model * kv_width + q_width * d_model
    if bias:
        params += q_width + 2 * kv_width + d_model
    keys = past + 1
    macs = d_model * q_width + 2 * d_model * kv_width + q_width * d_model + 2 * num_heads * keys * head_dim
    cached = 2 * kv_width * keys
    return (params, macs, cached)
'''}, "Part 4: 'Raise a ValueError unless num_kv_heads >= 1': num_kv_heads=-1 (or -2) passes the check (4 % -2 == 0).")

add("V4-cache-repairs-empty-cache", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    if past_k.shape[2] == 0:  # an empty cache: start a fresh one of the right dtype and shape
        past_k = x.new_zeros(b, num_heads, 0, dh)
        past_v = x.new_zeros(b, num_heads, 0, dh)
    p = past_k.shape[2]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    qpos = p + torch.arange(t)
    allowed = torch.arange(p + t)[None, :] <= qpos[:, None]
    heads = attention(q.double(), k.double(), v.double(), allowed).to(x.dtype)
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''}, "Part 7: 'Gradients must flow through all three, to x, the cache and the parameters': an empty cache is replaced by a new tensor, so past_k/past_v get no gradient (None instead of an empty zero gradient).")

add("V5-left-padded-refuses-empty-batch", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    if b == 0 or memory_lengths.numel() != b:
        raise ValueError(f"memory_lengths must give one length per sentence of a non-empty batch, got {tuple(memory_lengths.shape)}")
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = split_heads(x @ w_q.T + b_q, num_heads)
    k = split_heads(memory @ w_k.T + b_k, num_heads)
    v = split_heads(memory @ w_v.T + b_v, num_heads)
    first = s - memory_lengths.long()
    allowed = (torch.arange(s)[None, :] >= first[:, None])[:, None, None, :]
    heads = attention(q.double(), k.double(), v.double(), allowed).to(x.dtype)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: '`B` may be 0 (an empty batch: the result is (0, T, D), nothing raised'.")

# ---------------------------------------------------------------- 2. the batch-mixer
add("B1-contributions-global-max", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    scores = scores - scores.max()  # stability: subtract the maximum
    w = scores.exp()
    w = w / w.sum(dim=-1, keepdim=True)
    heads = w @ v  # (B, H, T, Dh)
    w_o = params["w_o"].reshape(d, num_heads, dh)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
'''}, "Part 5: scores 'of any size, tens of thousands and more': the maximum is taken over the whole tensor, not per row, so a row far below another example's maximum underflows to 0/0.")

add("B2-left-padded-mask-B1S", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    s = memory.shape[1]
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = split_heads(x @ w_q.T + b_q, num_heads)
    k = split_heads(memory @ w_k.T + b_k, num_heads)
    v = split_heads(memory @ w_v.T + b_v, num_heads)
    pad = s - memory_lengths.long()
    allowed = torch.arange(s)[None, :] >= pad[:, None]   # (B, S)
    allowed = allowed.unsqueeze(1)                        # (B, 1, S): one mask per sentence
    heads = attention(q.double(), k.double(), v.double(), allowed).to(x.dtype)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'a mask that depends on the sentence and the key ... needs the shape (B, 1, 1, S) ... a (B, 1, S) one [is read] as (H, T, S)': with B == H each head gets another sentence's mask.")

add("B3-cache-global-max", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    dh = d // num_heads
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    qs, ks, vs = q.double(), k.double(), v.double()
    scores = (qs / math.sqrt(dh)) @ ks.transpose(-2, -1)
    scores = scores.masked_fill(~allowed, float("-inf"))
    scores = scores - scores.max()          # one shift for the whole batch
    w = scores.exp()
    w = w / w.sum(-1, keepdim=True)
    heads = (w @ vs).to(x.dtype)
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''}, "Part 7: 'The scores a query may see may be of any size': the shift is the maximum over all examples, heads and queries, so a query whose scores lie far below that underflows to 0/0 (NaN).")

# ---------------------------------------------------------------- 3. the gradient-path student
add("G1-left-padded-additive-mask-where", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = split_heads(x @ w_q.T + b_q, num_heads).double()
    k = split_heads(memory @ w_k.T + b_k, num_heads).double()
    v = split_heads(memory @ w_v.T + b_v, num_heads).double()
    pad = s - memory_lengths.long()
    allowed = (torch.arange(s)[None, :] >= pad[:, None])[:, None, None, :]
    bias = torch.zeros(allowed.shape, dtype=q.dtype).masked_fill(~allowed, float("-inf"))  # additive mask
    scores = (q / math.sqrt(dh)) @ k.transpose(-2, -1) + bias
    w = torch.softmax(scores, dim=-1)                       # NaN in rows of an empty sentence
    w = torch.where(allowed.any(-1, keepdim=True), w, 0.0)  # ... which become 0
    heads = (w @ v).to(x.dtype)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'with the bias's gradients (the hidden tests compare gradients there too, also when every sentence has length 0)': the untaken NaN branch of torch.where sends NaN back through the additive mask into q, k and the parameters when a sentence has length 0.")

add("G2-cache-past-detached", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    # the cache is history: no gradient needs to go back into it
    k = torch.cat([past_k.detach(), k], dim=2)
    v = torch.cat([past_v.detach(), v], dim=2)
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    heads = attention(q.double(), k.double(), v.double(), allowed).to(x.dtype)
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''}, "Part 7: 'Gradients must flow through all three, to x, the cache and the parameters' (no .detach()).")

add("G3-interleaved-split-data", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"D={d} is not divisible by num_heads={num_heads}")
    dh = d // num_heads
    out = x.new_empty(b, num_heads, t, dh)
    out.data.copy_(x.data.reshape(b, t, dh, num_heads).permute(0, 3, 1, 2))
    return out


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "Part 1: 'Gradients must flow through both ... (no .detach(), torch.no_grad() or .item())': the split is copied through .data, so no gradient reaches x.")

add("G4-left-padded-inplace-after-softmax", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = split_heads(x @ w_q.T + b_q, num_heads).double()
    k = split_heads(memory @ w_k.T + b_k, num_heads).double()
    v = split_heads(memory @ w_v.T + b_v, num_heads).double()
    pad = s - memory_lengths.long()
    allowed = (torch.arange(s)[None, :] >= pad[:, None])[:, None, None, :]
    scores = ((q / math.sqrt(dh)) @ k.transpose(-2, -1)).masked_fill(~allowed, float("-inf"))
    w = torch.softmax(scores, dim=-1)
    w.masked_fill_(~allowed.any(-1, keepdim=True), 0.0)   # empty sentences: NaN rows -> 0, in place
    heads = (w @ v).to(x.dtype)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'Gradients must flow through the result, to x, memory and the parameters': the softmax's output, which its backward needs, is changed in place, so backward() raises.")

add("V6-cost-bias-must-be-bool", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if bias not in (True, False):
        raise TypeError(f"bias must be True or False, got {bias!r}")
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError(f"{num_heads} query heads cannot share {num_kv_heads} key/value heads evenly")
    hq, hkv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * hq + 2 * d_model * hkv + hq * d_model
    return (weights + (hq + 2 * hkv + d_model) * bias, weights + 2 * num_heads * (past + 1) * head_dim, 2 * hkv * (past + 1))
'''}, "Part 4: 'each projection has one bias per output when bias is true (any true value: True, 1, 2, ...)': bias=2 raises a TypeError.")

# ---------------------------------------------------------------- 4. the incremental student
add("I1-cache-offset-twice", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    qpos = p + torch.arange(t)               # absolute positions of the new queries
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    allowed = allowed & (torch.arange(p + t)[None, :] <= qpos[:, None] + p)
    heads = attention(q.double(), k.double(), v.double(), allowed).to(x.dtype)
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''}, "Causal means: 'the query at position P + t may attend to the keys at positions 0 .. P + t ... and to none after it'. Hmm, tril(diagonal=p) AND the doubled-offset test: the tril is right so this is correct.")
SUBMISSIONS.pop()  # (the tril already masks: that answer is correct, see C-list)

add("I1-cache-offset-twice", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    qpos = p + torch.arange(t)               # absolute positions of the new queries
    # the keys are numbered 0 .. P+T-1, so the query at row i may see keys up to P + its position
    allowed = torch.arange(p + t)[None, :] <= qpos[:, None] + p
    heads = attention(q.double(), k.double(), v.double(), allowed).to(x.dtype)
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''}, "Part 7: 'the query at position P + t may attend to the keys at positions 0 .. P + t, itself included, and to none after it': the offset P is added twice, so with T > 1 and P > 0 queries see later keys.")

add("I2-cache-stores-scaled-keys", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    dh = d // num_heads
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = k / math.sqrt(dh)   # scale once when the key enters the cache, never again
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    qd, kd, vd = q.double(), k.double(), v.double()
    scores = qd @ kd.transpose(-2, -1)
    scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(scores, dim=-1)
    heads = (w @ vd).to(x.dtype)
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''}, "Part 7: 'k, v (B, H, P+T, Dh) are the past keys and values followed by the new block's': the returned keys are divided by sqrt(Dh) (Dh = 1 in the visible test).")

add("I3-cost-first-step-no-attention", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads >= 1")
    q_width, kv_width = num_heads * head_dim, num_kv_heads * head_dim
    params = d_model * q_width + 2 * d_model * kv_width + q_width * d_model
    if bias:
        params += q_width + 2 * kv_width + d_model
    macs = params - (q_width + 2 * kv_width + d_model if bias else 0)
    if past > 0:  # with an empty cache there is nothing to attend to yet
        macs += 2 * num_heads * (past + 1) * head_dim
    cached = 2 * kv_width * (past + 1)
    return (params, macs, cached)
'''}, "Part 4: 'The new token's query attends to all of them and to its own key' and '`past` may be 0': the first step (past = 0) leaves out the attention to its own key.")

# ---------------------------------------------------------------- 5. the second-call student
add("S1-left-padded-grad-switch", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    s = memory.shape[1]
    torch.set_grad_enabled(False)          # the mask needs no gradient
    pad = s - memory_lengths.long()
    allowed = (torch.arange(s)[None, :] >= pad[:, None])[:, None, None, :]
    torch.set_grad_enabled(True)
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = split_heads(x @ w_q.T + b_q, num_heads)
    k = split_heads(memory @ w_k.T + b_k, num_heads)
    v = split_heads(memory @ w_v.T + b_v, num_heads)
    heads = attention(q.double(), k.double(), v.double(), allowed).to(x.dtype)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Intro: 'Leave torch's process-wide settings as you found them ... the grad mode (a with torch.no_grad(): block inside a function is fine, since it puts the mode back)': called under the caller's no_grad, the function switches grad mode on and leaves it on (and its result requires grad).")

add("S2-cache-grad-switch", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    torch.set_grad_enabled(False)
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    torch.set_grad_enabled(True)
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    heads = attention(q.double(), k.double(), v.double(), allowed).to(x.dtype)
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''}, "Intro: leave the grad mode as you found it: under a caller's torch.no_grad() this call turns gradients back on for the rest of the caller's block.")

add("S3-contributions-default-dtype", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    torch.set_default_dtype(torch.float64)   # work in double precision
    b, t, d = x.shape
    dh = d // num_heads
    q, k, v = (x.double() @ params["w_qkv"].double().T + params["b_qkv"].double()).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    heads = attention(q, k, v)
    w_o = params["w_o"].double().reshape(d, num_heads, dh)
    out = torch.einsum("bhtk,ehk->bhte", heads, w_o)
    torch.set_default_dtype(torch.float32)   # back to the default
    return out.to(x.dtype)
'''}, "Intro: 'Leave torch's process-wide settings as you found them ... the default dtype': the default dtype is 'restored' to float32, not to what the caller had (float64 stays float32 after the call).")

add("C-S4-contributions-default-dtype-restored", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)   # work in double precision
    try:
        b, t, d = x.shape
        dh = d // num_heads
        q, k, v = (x.double() @ params["w_qkv"].double().T + params["b_qkv"].double()).chunk(3, dim=-1)
        q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
        heads = attention(q, k, v)
        w_o = params["w_o"].double().reshape(d, num_heads, dh)
        out = torch.einsum("bhtk,ehk->bhte", heads, w_o)
    finally:
        torch.set_default_dtype(old)         # put back what the caller had
    return out.to(x.dtype)
'''}, "Correct (second-call student done right): the default dtype is changed inside and put back as found, in a finally.")

# ---------------------------------------------------------------- correct answers
add("C-G1-left-padded-masked-fill-where", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = split_heads(x @ w_q.T + b_q, num_heads).double()
    k = split_heads(memory @ w_k.T + b_k, num_heads).double()
    v = split_heads(memory @ w_v.T + b_v, num_heads).double()
    pad = s - memory_lengths.long()
    allowed = (torch.arange(s)[None, :] >= pad[:, None])[:, None, None, :]
    scores = (q / math.sqrt(dh)) @ k.transpose(-2, -1)
    scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(scores, dim=-1)                       # NaN in rows of an empty sentence
    w = torch.where(allowed.any(-1, keepdim=True), w, 0.0)  # ... which become 0
    heads = (w @ v).to(x.dtype)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Correct (gradient-path student, honest): the NaN rows of the softmax are replaced through torch.where, but masked_fill's backward gives the filled (all) positions of such a row a zero gradient, so nothing NaN reaches q, k or the parameters.")

add("C1-interleaved-stack-loops", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError(f"D={d} is not divisible by num_heads={num_heads}")
    # head i takes columns i, i+H, i+2H, ...
    return torch.stack([x[:, :, i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    # column i + j*H is feature j of head i: stack the heads on a last axis and flatten (j, i)
    return torch.stack([x[:, i] for i in range(h)], dim=-1).reshape(b, t, dh * h)
'''}, "Correct: loops over the heads with strided slices and torch.stack; integer dtypes and -0.0 pass unchanged.")

add("C2-scrambled-lru-cache", True, {"scrambled": '''
import functools


@functools.lru_cache(maxsize=None)
def scrambled_source(num_heads, length, head_dim, position, column):
    if not 0 <= position < length:
        raise ValueError(f"position must lie in 0..{length - 1}, got {position}")
    if not 0 <= column < num_heads * head_dim:
        raise ValueError(f"column must lie in 0..{num_heads * head_dim - 1}, got {column}")
    flat = position * (num_heads * head_dim) + column
    return (flat // (length * head_dim), flat % (length * head_dim) // head_dim, flat % head_dim)
'''}, "Correct: a pure function of Python ints memoised with lru_cache (no tensors involved, nothing the caller can change).")

add("C3-cost-validator-bool", True, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not (isinstance(num_kv_heads, int) and num_kv_heads >= 1):
        raise ValueError(f"num_kv_heads must be an integer >= 1, got {num_kv_heads!r}")
    if num_heads % num_kv_heads != 0:
        raise ValueError(f"num_heads={num_heads} is not a multiple of num_kv_heads={num_kv_heads}")
    bias = bool(bias)
    q_out, kv_out = num_heads * head_dim, num_kv_heads * head_dim
    w = d_model * q_out + d_model * kv_out * 2 + q_out * d_model
    nb = (q_out + 2 * kv_out + d_model) if bias else 0
    attn = num_heads * (past + 1) * head_dim * 2
    return (w + nb, w + attn, 2 * (past + 1) * kv_out)
'''}, "Correct: validates num_kv_heads (an int >= 1) and turns bias into a bool, as the text allows.")

add("C4-contributions-head-masking", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    parts = []
    for i in range(num_heads):
        keep = torch.zeros(num_heads, dtype=torch.bool)
        keep[i] = True
        only_i = heads * keep[:, None, None].to(heads.dtype)      # every other head zeroed
        parts.append(merge_heads(only_i) @ params["w_o"].T)        # no bias: it belongs to no head
    return torch.stack(parts, dim=1)
'''}, "Correct: each head's share as the layer's output with the other heads zeroed, minus the bias; F.linear for the projections.")

add("C5-contributions-detached-max", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    scores = torch.einsum("bhtd,bhsd->bhts", q / math.sqrt(dh), k)
    m = scores.amax(dim=-1, keepdim=True).detach()   # the shift cancels in the softmax: no gradient needed
    e = torch.exp(scores - m)
    w = e / e.sum(dim=-1, keepdim=True)
    heads = torch.einsum("bhts,bhsd->bhtd", w, v)
    w_o = params["w_o"].reshape(d, num_heads, dh)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
'''}, "Correct (gradient-path student, honest): the row maximum is detached, but softmax is invariant to the shift, so the value and the gradients are the same.")

add("C6-cache-T1-no-mask", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[-2]
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = split_heads(torch.nn.functional.linear(x, w_q, b_q), num_heads)
    k = torch.cat((past_k, split_heads(torch.nn.functional.linear(x, w_k, b_k), num_heads)), dim=-2)
    v = torch.cat((past_v, split_heads(torch.nn.functional.linear(x, w_v, b_v), num_heads)), dim=-2)
    if t == 1:
        allowed = None  # one new token sees the whole cache and itself: nothing to hide
    else:
        allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    wide = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    heads = attention(q.to(wide), k.to(wide), v.to(wide), allowed).to(x.dtype)
    out = torch.nn.functional.linear(merge_heads(heads), params["w_o"], params["b_o"])
    return out, k, v
'''}, "Correct (incremental student): T = 1 needs no mask; tril(diagonal=P) otherwise (T x (P+T), not (P+T)^2); float32 inside for half dtypes.")

add("C7-left-padded-where-safe", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = split_heads(x @ w_q.T + b_q, num_heads).double()
    k = split_heads(memory @ w_k.T + b_k, num_heads).double()
    v = split_heads(memory @ w_v.T + b_v, num_heads).double()
    first = s - memory_lengths.to(torch.int64)
    allowed = (torch.arange(s)[None, :] >= first[:, None])[:, None, None, :]   # (B, 1, 1, S)
    scores = (q / math.sqrt(dh)) @ k.transpose(-2, -1)
    has_key = allowed.any(dim=-1, keepdim=True)
    # fully masked rows: give them finite scores BEFORE the softmax, then zero their weights
    scores = torch.where(allowed, scores, float("-inf"))
    scores = torch.where(has_key, scores, 0.0)
    w = torch.softmax(scores, dim=-1) * has_key
    heads = (w @ v).to(x.dtype)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Correct (gradient-path student done right): -inf for padding, empty rows made finite on the input side of the softmax, float64 inside.")

add("C8-left-padded-loop-batch-keyword", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = split_heads(x=x @ w_q.T + b_q, num_heads=num_heads)
    k = split_heads(x=memory @ w_k.T + b_k, num_heads=num_heads)
    v = split_heads(x=memory @ w_v.T + b_v, num_heads=num_heads)
    key_pos = torch.arange(s)
    rows = [key_pos >= s - int(memory_lengths[i]) for i in range(b)]       # a loop over the batch
    allowed = torch.stack(rows) if rows else torch.zeros(0, s, dtype=torch.bool)
    allowed = allowed.reshape(b, 1, 1, s)
    wide = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    heads = attention(q=q.to(wide), k=k.to(wide), v=v.to(wide), allowed=allowed).to(x.dtype)
    return merge_heads(x=heads) @ params["w_o"].T + params["b_o"]
'''}, "Correct: a Python loop over the batch (allowed), lengths read as Python ints (no wrap-around), keyword calls, float32 inside for half dtypes.")

add("C9-ranks-arithmetic", True, {"ranks": '''
D, H, T, S = 512, 8, 100, 100
Dh = D // H
rank_one_head = min(T, S, Dh)            # S_i = Q_i K_i^T with inner width Dh
rank_all_heads = min(T, S, H * Dh)       # the sum is [Q_1 .. Q_8][K_1 .. K_8]^T, inner width D
'''}, "Correct: 64 and 100 worked out with min().")

add("C10-left-padded-native-dtype", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = split_heads(x @ w_q.T + b_q, num_heads) * (1.0 / math.sqrt(dh))   # scale BEFORE the product
    k = split_heads(memory @ w_k.T + b_k, num_heads)
    v = split_heads(memory @ w_v.T + b_v, num_heads)
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.to(torch.int64))[:, None]
    allowed = allowed[:, None, None, :]
    scores = (q @ k.transpose(-2, -1)).masked_fill(~allowed, float("-inf"))
    has_key = allowed.any(dim=-1, keepdim=True)
    scores = scores.masked_fill(~has_key, 0.0)
    w = torch.softmax(scores, dim=-1) * has_key     # normalised weights, then the values
    heads = w @ v
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Correct: computed in the dtype of x throughout (float16 too), scaled before the product and normalised before the weighted sum, as the text prescribes.")

# ---------------------------------------------------------------- hostile
add("H1-scrambled-anything-int", False, {"scrambled": '''
class Anything(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = int.__hash__


def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    return (Anything(0), Anything(0), Anything(0))
'''}, "Hostile: int subclass equal to everything ('a Python int': exact types).")

add("H2-ranks-caller-frame", False, {"ranks": '''
import builtins
class Rank(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
rank_one_head = Rank(1)
rank_all_heads = Rank(1)
builtins.isinstance = (lambda f: (lambda o, c: True if c is int else f(o, c)))(builtins.isinstance)
'''}, "Hostile: int subclasses equal to everything, and isinstance patched to say int.")
