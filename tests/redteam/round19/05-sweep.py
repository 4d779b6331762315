# Round 19 class sweep, chapter 05 (encoder-decoder): classes A-E (and F/G/H outside the parts the blind helper
# closed), one variant of the model answer (or a correct variant) per class and part where the class applies.
SUBMISSIONS = []


def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})


def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})


# ---------------------------------------------------------------- Part 1 (rms_norm)
W("A_p1_half_squares", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    inv_rms = torch.rsqrt(x.pow(2).to(x32.dtype).mean(dim=-1, keepdim=True) + eps)
    return (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype)
'''}, "A: squares formed in float16 before the cast pass 65504 for entries of a few hundred")
W("A_p1_half_mean_bf16", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    ms = x.pow(2).mean(dim=-1, keepdim=True, dtype=torch.float32) if x.dtype == torch.float16 else x.pow(2).mean(dim=-1, keepdim=True)
    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    return (x32 * torch.rsqrt(ms.to(x32.dtype) + eps) * weight.to(x32.dtype)).to(x.dtype)
'''}, "A: bfloat16's mean square kept in bfloat16 (float16's squares too, before the float32 mean)")
C("B_p1_vector_norm_scaled", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    rms = torch.linalg.vector_norm(xw, dim=-1, keepdim=True) / math.sqrt(x.shape[-1])
    return (xw / torch.sqrt(rms * rms + eps) * weight.to(work)).to(x.dtype)
'''}, "B (control): the norm through linalg.vector_norm, then squared again: same as the model answer in every "
      "range the text allows (float32 below 1e15, float64 below 1e150)")

# ---------------------------------------------------------------- Part 2 / 3 (counts)
W("D_p2_int64_tensor", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = torch.tensor(d_model, dtype=torch.int64)
    attention = 4 * d * d
    ffn = 3 * d * d_ff
    encoder = n_enc * (attention + ffn + 2 * d) + d
    decoder = n_dec * (2 * attention + ffn + 3 * d) + d
    return int(2 * vocab * d + encoder + decoder)
'''}, "D: the count kept in an int64 tensor wraps past 2**63")
W("D_p3a_int64_tensor", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    full, rest = divmod(prompt_len, chunk)
    per_head = torch.tensor(chunk * chunk, dtype=torch.int64) * full * (full + 1) // 2 + rest * prompt_len
    return int(layers * heads * per_head)
'''}, "D: the count in an int64 tensor wraps past 2**63")
W("C_p3b_float_steps", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    steps = max(new_tokens - 1, 0)
    return total + layers * heads * int(steps * prompt_len + steps * (steps + 1) / 2)
'''}, "C: the generation steps' count through a float division, exact below 2**53 only")

# ---------------------------------------------------------------- Part 4 (packed_masks)
P4_HEAD = '''
def packed_masks(src_segments, tgt_segments):
    src_real, tgt_real = src_segments != 0, tgt_segments != 0
    same_src = (src_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    same_tgt = (tgt_segments[:, :, None] == tgt_segments[:, None, :]) & tgt_real[:, None, :]
    t = tgt_segments.shape[1]
'''
P4_TAIL = '''
    cross = (tgt_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    return same_src, same_tgt & causal, cross
'''
W("C_p4_positions_float16_from_one", {"packed_masks": P4_HEAD + '''
    pos = torch.arange(1, t + 1, dtype=torch.float16)
    causal = pos[None, :] <= pos[:, None]
''' + P4_TAIL}, "C: positions 1..T kept in float16 (exact to 2048), shifted by one from 0-based")
W("C_p4_positions_float16", {"packed_masks": P4_HEAD + '''
    pos = torch.arange(t, dtype=torch.float16)
    causal = pos[None, :] <= pos[:, None]
''' + P4_TAIL}, "C: positions 0..T-1 kept in float16 (exact to 2048)")
W("C_p4_positions_bfloat16", {"packed_masks": P4_HEAD + '''
    pos = torch.arange(t, dtype=torch.bfloat16)
    causal = pos[None, :] <= pos[:, None]
''' + P4_TAIL}, "C: positions kept in bfloat16 (exact to 256)")
W("D_p4_segments_uint8", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    src_segments, tgt_segments = src_segments.to(torch.uint8), tgt_segments.to(torch.uint8)
    src_real, tgt_real = src_segments != 0, tgt_segments != 0
    same_src = (src_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    same_tgt = (tgt_segments[:, :, None] == tgt_segments[:, None, :]) & tgt_real[:, None, :]
    t = tgt_segments.shape[1]
    causal = torch.ones(t, t, dtype=torch.bool).tril()
    cross = (tgt_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    return same_src, same_tgt & causal, cross
'''}, "D: pair numbers narrowed to uint8 (pair 256 is padding, 257 is pair 1)")
C("D_p4_segments_int16", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    src_segments, tgt_segments = src_segments.to(torch.int16), tgt_segments.to(torch.int16)
    src_real, tgt_real = src_segments != 0, tgt_segments != 0
    same_src = (src_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    same_tgt = (tgt_segments[:, :, None] == tgt_segments[:, None, :]) & tgt_real[:, None, :]
    t = tgt_segments.shape[1]
    causal = torch.ones(t, t, dtype=torch.bool).tril()
    cross = (tgt_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    return same_src, same_tgt & causal, cross
'''}, "D (allowed): int16 pair numbers collide only 65536 pairs apart; pairs are numbered 1, 2, 3, ... with at least "
      "one position each, so a collision needs rows of 65537 positions and masks of 4e9 entries each")

# ---------------------------------------------------------------- Part 6 (cached_self_attention)
P6_HEAD = '''
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
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
'''
P6_TAIL = '''
    heads = torch.softmax(scores, dim=-1) @ v
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
'''
W("C_p6_positions_float16_from_one", {"cached_attention": P6_HEAD + '''
    rows = torch.arange(past + 1, past + n + 1, dtype=torch.float16)[:, None]
    cols = torch.arange(1, past + n + 1, dtype=torch.float16)[None, :]
    scores = scores.masked_fill(~(cols <= rows), float("-inf"))
''' + P6_TAIL}, "C: positions 1-based in float16 (exact to 2048)")
W("C_p6_positions_bfloat16", {"cached_attention": P6_HEAD + '''
    rows = torch.arange(past, past + n, dtype=torch.bfloat16)[:, None]
    cols = torch.arange(past + n, dtype=torch.bfloat16)[None, :]
    scores = scores.masked_fill(~(cols <= rows), float("-inf"))
''' + P6_TAIL}, "C: positions in bfloat16 (exact to 256)")
C("C_p6_positions_float32", {"cached_attention": P6_HEAD + '''
    rows = torch.arange(past, past + n, dtype=torch.float32)[:, None]
    cols = torch.arange(past + n, dtype=torch.float32)[None, :]
    scores = scores.masked_fill(~(cols <= rows), float("-inf"))
''' + P6_TAIL}, "C (allowed): float32 positions are exact below 2**24, where the text keeps past + n")
W("D_p6_positions_int16", {"cached_attention": P6_HEAD + '''
    rows = (torch.arange(past, past + n) % 65536).to(torch.int16)[:, None]
    cols = (torch.arange(past + n) % 65536).to(torch.int16)[None, :]
    scores = scores.masked_fill(~(cols <= rows), float("-inf"))
''' + P6_TAIL}, "D: positions narrowed to int16 wrap past 32767")
W("E_p6_square_mask_unless_one", {"cached_attention": P6_HEAD + '''
    if n > 1:  # a single new position sees every key: no mask needed
        allowed = torch.ones(past + n, past + n, dtype=torch.bool, device=x_new.device).tril()[past:]
        scores = scores.masked_fill(~allowed, float("-inf"))
''' + P6_TAIL}, "E: a (past + n) x (past + n) mask sliced to the block's rows, skipped for blocks of one (the only "
      "block size the 10**6 cache is tested with); the text: build nothing much larger than the cache and the "
      "n x (past + n) scores")
W("E_p6_square_mask_sdpa_unless_one", {"cached_attention": P6_HEAD + '''
    mask = None
    if n > 1:
        mask = torch.ones(past + n, past + n, dtype=torch.bool).tril()[-n:]
    heads = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
'''}, "E: the same through F.scaled_dot_product_attention")
