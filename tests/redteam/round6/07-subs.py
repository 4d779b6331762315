# Red team round 6, chapter 07-hardware: blind submissions.

SUBMISSIONS = []
def sub(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- Part 1: max_batch
sub("max_batch_window_replaces_length", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = window if window is not None else length   # a windowed model keeps `window` tokens
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    return max(0, free // per)
'''}, "Part 1: 'for a model with a sliding window of window tokens, only the last ones, min(length, window)': "
      "a sequence shorter than the window keeps only `length` tokens; the visible tests never pass window.")

sub("max_batch_exact_fill_excluded", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free <= 0:
        return 0
    return (free - 1) // per     # strictly less than the memory
'''}, "Part 1 (classic off-by-one): '(memory filled exactly still fits)'.")

sub("max_batch_negative_when_weights_too_big", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    return (memory_bytes - weight_bytes) // per
'''}, "Part 1: 'Return 0 when not even one sequence fits, also when the weights alone do not.' (floor division of a "
      "negative free memory is negative).")

# ---------------------------------------------------------------- Part 2: merge_partials
sub("merge_nan_rows_not_masked", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    acc = torch.float64 if lse_a.dtype == torch.float64 else torch.float32
    la, lb = lse_a.to(acc), lse_b.to(acc)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m), torch.exp(lb - m)
    o = (wa[:, None] * o_a.to(acc) + wb[:, None] * o_b.to(acc)) / (wa + wb)[:, None]
    return o.to(o_a.dtype), (m + torch.log(wa + wb)).to(lse_a.dtype)
'''}, "Part 2: 'its row of o may hold anything, even NaN or infinities ... the other piece alone decides that query's "
      "result' (0 * NaN = NaN).")

sub("merge_only_piece_a_masked", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    acc = torch.float64 if lse_a.dtype == torch.float64 else torch.float32
    la, lb = lse_a.to(acc), lse_b.to(acc)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m), torch.exp(lb - m)
    # a query that saw no key in piece a: ignore its row of o_a
    oa = torch.where(torch.isinf(la)[:, None], torch.zeros((), dtype=acc), o_a.to(acc))
    o = (wa[:, None] * oa + wb[:, None] * o_b.to(acc)) / (wa + wb)[:, None]
    return o.to(o_a.dtype), (m + torch.log(wa + wb)).to(lse_a.dtype)
'''}, "Part 2: 'A piece in which a query sees no key at all has lse = -inf ... (the tests put NaN, inf and -inf there)': "
      "the rule holds for either piece; this masks only piece a (a rule checked on one code path).")

sub("merge_masks_nan_not_inf", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    acc = torch.float64 if lse_a.dtype == torch.float64 else torch.float32
    la, lb = lse_a.to(acc), lse_b.to(acc)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m), torch.exp(lb - m)
    oa = torch.where(torch.isnan(o_a), 0.0, o_a).to(acc)   # garbage rows are NaN
    ob = torch.where(torch.isnan(o_b), 0.0, o_b).to(acc)
    o = (wa[:, None] * oa + wb[:, None] * ob) / (wa + wb)[:, None]
    return o.to(o_a.dtype), (m + torch.log(wa + wb)).to(lse_a.dtype)
'''}, "Part 2: 'its row of o may hold anything, even NaN or infinities': an inf row times weight 0 is NaN again.")

sub("merge_ratio_of_pieces_overflows", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    acc = torch.float64 if lse_a.dtype == torch.float64 else torch.float32
    la, lb = lse_a.to(acc), lse_b.to(acc)
    # weight of a relative to b: only the difference is exponentiated, never the lse itself
    r = torch.exp(la - lb)
    only_a, only_b = torch.isinf(lb), torch.isinf(la)
    oa = torch.where(only_b[:, None], torch.zeros((), dtype=acc), o_a.to(acc))
    ob = torch.where(only_a[:, None], torch.zeros((), dtype=acc), o_b.to(acc))
    o = torch.where(only_a[:, None], oa, torch.where(only_b[:, None], ob, (r[:, None] * oa + ob) / (1 + r)[:, None]))
    lse = torch.where(only_a, la, torch.where(only_b, lb, lb + torch.log1p(r)))
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "Part 2: 'Log-sum-exps can be in the hundreds or thousands: exponentiating them directly overflows.' - "
      "exp(la - lb) overflows once the two pieces differ by more than ~88 (float32) / ~709 (float64); "
      "agrees with the merge on random inputs, not on a crafted far-apart pair.")

sub("merge_weights_rounded_to_o_dtype", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    m = torch.maximum(lse_a, lse_b)
    lse = m + torch.log(torch.exp(lse_a - m) + torch.exp(lse_b - m))
    wa = torch.exp(lse_a - lse).to(o_a.dtype)[:, None]     # weights in the dtype of the outputs
    wb = torch.exp(lse_b - lse).to(o_a.dtype)[:, None]
    zero = torch.zeros((), dtype=o_a.dtype)
    o = torch.where(wa > 0, wa * o_a, zero) + torch.where(wb > 0, wb * o_b, zero)
    return o, lse.to(lse_a.dtype)
'''}, "Part 2: 'do not round the two pieces' weights to float16, and a float16 o must be the merge ... computed in "
      "float32 and rounded to float16 once at the end'.")

# ---------------------------------------------------------------- Part 3: compute_bound_batch
sub("cbb_float_ridge_test", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    # no batch helps when even m -> infinity stays below the ridge: 2kn/(bpv (k + n)) <= peak/bandwidth
    if 2 * k * n / (bytes_per_value * (k + n)) <= peak / bandwidth:
        return None
    P = peak * bytes_per_value
    A = 2 * k * n * bandwidth - P * (k + n)
    B = P * k * n
    return max(1, -(-B // A))
'''}, "Part 3: 'Answer exactly ... the tests put answers exactly on the ridge point': the None test is done with float "
      "quotients, which decide wrongly for large operands exactly on (or one unit off) the asymptotic ridge "
      "(value exactly on a threshold).")

sub("cbb_floor_plus_one", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    P = peak * bytes_per_value
    A = 2 * k * n * bandwidth - P * (k + n)
    if A <= 0:
        return None
    return P * k * n // A + 1
'''}, "Part 3 (classic off-by-one): 'exactly on the ridge counts as compute-bound' - floor + 1 is one too many "
      "when A divides B.")

sub("cbb_search_capped_at_1e9", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    def ok(m):
        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)
    hi = 10 ** 9                      # no real server batches more than a billion sequences
    if not ok(hi):
        return None
    lo = 1
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
'''}, "Part 3: 'returns the smallest m >= 1 ... or None when no batch size makes it compute-bound ... some answers "
      "are in the billions'.")

# ---------------------------------------------------------------- Part 4: rms_norm_half
sub("rms_eps_hardcoded", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    xf = x.float()
    ms = (xf * xf).mean(dim=-1, keepdim=True)
    return (xf / torch.sqrt(ms + 1e-6)).to(x.dtype)
'''}, "Part 4: 'with epsilon = eps inside the square root' (the eps argument is never used; non-default never tried?).")

sub("rms_global_statistic", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    xf = x.float()
    return (xf / torch.sqrt(xf.pow(2).mean() + eps)).to(x.dtype)
'''}, "Part 4: 'the mean taken over the last dimension, so that every row ... is divided by its own statistic'.")

sub("rms_bf16_path_not_upcast", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    # float16 overflows at 300, so compute its statistic in float32; bfloat16 has float32's range
    xf = x.float() if x.dtype == torch.float16 else x
    ms = (xf * xf).mean(dim=-1, keepdim=True)
    return (xf / torch.sqrt(ms + eps)).to(x.dtype)
'''}, "Part 4: 'Return the same dtype ... rounded to that dtype once, at the end: divide in float32 too' and "
      "'computing the statistic or the division in float16 or bfloat16 is off by more' (rule kept on the float16 "
      "path only).")

sub("rms_mean_over_dim1", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    xf = x.float()
    ms = (xf * xf).mean(dim=1, keepdim=True)
    return (xf / torch.sqrt(ms + eps)).to(x.dtype)
'''}, "Part 4: 'for a float16 or bfloat16 tensor x of shape (..., D) ... the mean taken over the last dimension' "
      "(dim=1 is the last one only for 2-D inputs).")

# ---------------------------------------------------------------- Part 5: quantize_asym
sub("asym_round_half_up", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    g = w.reshape(out, inn // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    top = 2 ** bits - 1
    scale = (hi - lo) / top
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.floor(-lo / scale + 0.5)
    q = torch.clamp(torch.floor(g / scale[..., None] + 0.5) + zero[..., None], 0, top)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out, inn = q.shape
    gs = inn // scale.shape[1]
    return (q.to(scale.dtype) - zero.to(scale.dtype).repeat_interleave(gs, 1)) * scale.repeat_interleave(gs, 1)
'''}, "Part 5: 'Round with torch.round (halves to even)': floor(x + 0.5) rounds halves up; agrees on random weights, "
      "not on weights exactly half a step between levels.")

sub("asym_round_after_adding_zero", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    g = w.reshape(out, inn // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    top = 2 ** bits - 1
    scale = (hi - lo) / top
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None] + zero[..., None]), 0, top)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out, inn = q.shape
    gs = inn // scale.shape[1]
    return (q.to(scale.dtype) - zero.to(scale.dtype).repeat_interleave(gs, 1)) * scale.repeat_interleave(gs, 1)
'''}, "Part 5: 'q = clamp(round(w / scale) + zero, ...)' (order of operations fixed by the text): round(h + z) != "
      "round(h) + z for a half h and an odd z under halves-to-even.")

sub("asym_int8_difference_overflows", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    g = w.reshape(out, inn // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    top = 2 ** bits - 1
    scale = (hi - lo) / top
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, top)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out, inn = q.shape
    gs = inn // scale.shape[1]
    diff = q.to(torch.int8) - zero.to(torch.int8).repeat_interleave(gs, 1)   # signed, so q - zero can be negative
    return diff.to(scale.dtype) * scale.repeat_interleave(gs, 1)
'''}, "Part 5: 'with bits from 2 to 8' / 'q in 0 ... 2**bits - 1': codes above 127 wrap in int8 (integer overflow).")

sub("asym_scale_in_float32", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    g = w.reshape(out, inn // group_size, group_size).float()
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    top = 2 ** bits - 1
    scale = (hi - lo) / top
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, top)
    return q.reshape(out, inn).to(torch.uint8), scale.to(w.dtype), zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out, inn = q.shape
    gs = inn // scale.shape[1]
    return (q.to(scale.dtype) - zero.to(scale.dtype).repeat_interleave(gs, 1)) * scale.repeat_interleave(gs, 1)
'''}, "Part 5 (classic float32 on float64): 'scale ... in the dtype of w, computed in that dtype'.")

sub("asym_zero_group_clamped", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    g = w.reshape(out, inn // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    top = 2 ** bits - 1
    scale = (hi - lo).clamp_min(1e-12) / top          # avoid dividing by zero for a group of zeros
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, top)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out, inn = q.shape
    gs = inn // scale.shape[1]
    return (q.to(scale.dtype) - zero.to(scale.dtype).repeat_interleave(gs, 1)) * scale.repeat_interleave(gs, 1)
'''}, "Part 5: 'scale = 1 for a group of zeros' (stated in words; only a crafted all-zero group shows it).")

sub("asym_dequant_group_count_as_size", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    g = w.reshape(out, inn // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    top = 2 ** bits - 1
    scale = (hi - lo) / top
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, top)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    gs = scale.shape[1]                                   # the group size, from scale's shape
    z = zero.to(scale.dtype).repeat_interleave(gs, dim=1)
    s = scale.repeat_interleave(gs, dim=1)
    return (q.to(scale.dtype) - z) * s
'''}, "Part 5: 'dequantize_asym returns scale x (q - zero) ... (the group size follows from the shapes)': uses the "
      "number of groups as the group size, right only when the two coincide or there is one group.")

# ---------------------------------------------------------------- Part 6: pack_bits
sub("pack_one_stream_for_all_rows", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    stream = ((q.reshape(-1).to(torch.int64)[:, None] >> torch.arange(bits)) & 1).reshape(-1)
    total = rows * ((cols * bits + 7) // 8) * 8
    stream = torch.cat([stream, torch.zeros(total - stream.numel(), dtype=torch.int64)])
    packed = (stream.reshape(-1, 8) * 2 ** torch.arange(8)).sum(-1).to(torch.uint8)
    return packed.reshape(rows, -1)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = ((packed.reshape(-1).to(torch.int64)[:, None] >> torch.arange(8)) & 1).reshape(-1)
    stream = stream[: rows * cols * bits].reshape(rows * cols, bits)
    return (stream * 2 ** torch.arange(bits)).sum(-1).to(torch.uint8).reshape(rows, cols)
'''}, "Part 6: 'whose row r is the bit stream of row r of q' (one stream over all rows: each row's result depends "
      "on its neighbours unless cols*bits is a multiple of 8).")

sub("pack_pads_with_empty", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    stream = ((q.to(torch.int64)[..., None] >> torch.arange(bits)) & 1).reshape(rows, cols * bits)
    nbytes = (cols * bits + 7) // 8
    padded = torch.empty(rows, nbytes * 8, dtype=torch.int64)
    padded[:, : cols * bits] = stream
    return ((padded.reshape(rows, nbytes, 8) & 1) * 2 ** torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    stream = ((packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1).reshape(rows, nbytes * 8)
    stream = stream[:, : cols * bits].reshape(rows, cols, bits)
    return (stream * 2 ** torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "Part 6: 'the bits after the last code (at the top of the last byte) are 0' (torch.empty padding is whatever "
      "memory held).")

sub("unpack_returns_int64", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    stream = ((q.to(torch.int64)[..., None] >> torch.arange(bits)) & 1).reshape(rows, cols * bits)
    nbytes = (cols * bits + 7) // 8
    stream = torch.cat([stream, torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)], dim=1)
    return (stream.reshape(rows, nbytes, 8) * 2 ** torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    stream = ((packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1).reshape(rows, nbytes * 8)
    stream = stream[:, : cols * bits].reshape(rows, cols, bits)
    return (stream * 2 ** torch.arange(bits)).sum(-1)
'''}, "Part 6 (classic wrong dtype): 'it returns the (rows, cols) codes as torch.uint8' (the visible test checks only "
      ".tolist()).")

sub("unpack_byte_pairs_uint8_shift", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    stream = ((q.to(torch.int64)[..., None] >> torch.arange(bits)) & 1).reshape(rows, cols * bits)
    nbytes = (cols * bits + 7) // 8
    stream = torch.cat([stream, torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)], dim=1)
    return (stream.reshape(rows, nbytes, 8) * 2 ** torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    out = torch.zeros(rows, cols, dtype=torch.uint8)
    padded = torch.cat([packed, torch.zeros(rows, 1, dtype=torch.uint8)], dim=1)
    for c in range(cols):
        start = c * bits
        b, off = start // 8, start % 8
        word = padded[:, b].to(torch.int32) | (padded[:, b + 1].to(torch.int32) << 8)
        out[:, c] = ((word >> off) & (2 ** bits - 1)).to(torch.uint8)
    return out
'''}, "CONTROL-ish wrong? no: this one is meant CORRECT-looking but reads byte b+1 only: a code never spans three "
      "bytes (bits <= 8), so it is right. (kept as a sanity row; see correct list)")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["name"] = "unpack_two_byte_window_loop"
SUBMISSIONS[-1]["why"] = ("Part 6, different but correct: pack as a bit stream, unpack code by code from a 16-bit window "
                          "of bytes b, b+1 (a code of at most 8 bits never spans three bytes), masked to its bits.")

# ---------------------------------------------------------------- Part 7: chunk_attention_backward
_CHUNK_TEMPLATE = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    acc = q.dtype
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(SCALE_DIM)
    limit = LIMIT
    qa, lsea, doa = q.to(acc), lse.to(acc), d_out.to(acc)
    delta = (doa * out.to(acc)).sum(-1)
    dq = torch.zeros(q.shape, dtype=acc)
    dk = torch.zeros(k.shape, dtype=acc)
    dv = torch.zeros(v.shape, dtype=acc)
    rows = torch.arange(T)[:, None] + ROWOFF
    PRE
    for j0 in range(0, limit, block):
        j1 = min(j0 + block, limit)
        kj, vj = k[j0:j1].to(acc), v[j0:j1].to(acc)
        s = (qa @ kj.T) * scale
        p = torch.exp(s - lsea[:, None])
        if causal:
            MASK
        dv[j0:j1] += p.T @ doa
        dp = doa @ vj.T
        ds = p * (dp - delta[:, None])
        dq += (ds @ kj) * scale
        dk[j0:j1] += (ds.T @ qa) * scale
    p_sink = torch.exp(sink.to(acc) - lsea)
    dsink = -(p_sink * delta).sum()
    return dq, dk, dv, dsink
'''
def chunk(scale_dim="Dh", limit="min(offset + T, S) if causal else S", rowoff="offset", pre="",
          mask="cols = torch.arange(j0, j1)[None, :]\n            p = torch.where(cols > rows, torch.zeros((), dtype=acc), p)"):
    return (_CHUNK_TEMPLATE.replace("SCALE_DIM", scale_dim).replace("LIMIT", limit).replace("ROWOFF", rowoff)
            .replace("PRE", pre).replace("MASK", mask))

sub("chunk_mask_ignores_offset", False, {"chunk_attention": chunk(rowoff="0")},
    "Part 7: 'queries at positions offset, ..., offset + T - 1' and 'the query at position p sees the keys j <= p' "
    "(mask compares with the row index in the chunk).")

sub("chunk_noncausal_still_cut_at_offset", False, {"chunk_attention": chunk(limit="min(offset + T, S)")},
    "Part 7: 'With causal=False every query sees all S keys and offset is not used.'")

sub("chunk_scale_uses_value_width", False, {"chunk_attention": chunk(scale_dim="v.shape[1]")},
    "Part 7: 's_ij = q_i . k_j / sqrt(D_h)' - scales by the value width, right only when Dh == Dv "
    "(two dimensions that coincide).")

sub("chunk_full_causal_mask", False, {"chunk_attention": chunk(
    pre="full_mask = torch.arange(S)[None, :] > rows        # (T, S) computed once",
    mask="p = torch.where(full_mask[:, j0:j1], torch.zeros((), dtype=acc), p)")},
    "Part 7 rule 2: 'No tensor with more than T * S / 4 elements ... a (T, S) score or mask matrix does not [fit]'.")

sub("chunk_sanitise_nan_whole_cache", False, {"chunk_attention": chunk(
    limit="S",
    pre="v = torch.where(torch.isnan(v), torch.zeros((), dtype=v.dtype), v)   # unwritten cache slots are NaN\n"
        "    k = torch.where(torch.isnan(k), torch.zeros((), dtype=k.dtype), k)")},
    "Part 7 rule 1: 'No torch operation may take positions offset + T and later of k or v as input ... "
    "torch.nan_to_num(k) reads them too' (torch.where(isnan) is the same read, spelled differently).")

sub("chunk_mask_by_multiplying", False, {"chunk_attention": chunk(
    mask="cols = torch.arange(j0, j1)[None, :]\n            p = p * (cols <= rows).to(acc)")},
    "Part 7: 'A query's masked keys ... can score far above its log-sum-exp too': exp overflows to inf and inf * 0 is NaN.")

sub("chunk_two_pass_delta", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    # delta_i = sum_j P_ij dP_ij, accumulated over the tiles in a first pass (the sink's value is zero,
    # so it adds nothing); the second pass computes the gradients. Everything in q's dtype.
    dt = q.dtype
    T, Dh = q.shape
    S = k.shape[0]
    inv = Dh ** -0.5
    end = S if not causal else min(S, offset + T)
    pos = offset + torch.arange(T).unsqueeze(1)
    L = lse.to(dt)
    dO = d_out.to(dt)
    def tile(j0, j1):
        kt, vt = k[j0:j1].to(dt), v[j0:j1].to(dt)
        logits = torch.matmul(q.to(dt), kt.transpose(0, 1)) * inv
        if causal:
            logits = logits.masked_fill(torch.arange(j0, j1).unsqueeze(0) > pos, float("-inf"))
        return kt, vt, torch.exp(logits - L.unsqueeze(1))
    delta = torch.zeros(T, dtype=dt)
    for j0 in range(0, end, block):
        kt, vt, P = tile(j0, min(j0 + block, end))
        delta = delta + (P * torch.matmul(dO, vt.transpose(0, 1))).sum(1)
    grads = [torch.zeros(q.shape, dtype=dt), torch.zeros(k.shape, dtype=dt), torch.zeros(v.shape, dtype=dt)]
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kt, vt, P = tile(j0, j1)
        dS = P * (torch.matmul(dO, vt.transpose(0, 1)) - delta.unsqueeze(1))
        grads[0] = grads[0] + torch.matmul(dS, kt) * inv
        grads[1][j0:j1] = torch.matmul(dS.transpose(0, 1), q.to(dt)) * inv
        grads[2][j0:j1] = torch.matmul(P.transpose(0, 1), dO)
    dsink = -(torch.exp(sink.to(dt) - L) * delta).sum()
    return grads[0], grads[1], grads[2], dsink
'''}, "Part 7, different but correct: delta from the tiles (sum_j P dP) in a first pass instead of rowsum(dO * O), "
      "masking with -inf before exp, tiles assigned rather than accumulated.")

# ---------------------------------------------------------------- Part 8: dequant_matvec_kernel
_KERNEL_HEAD = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
'''
sub("kernel_group_per_block", False, {"split_kv_kernel": _KERNEL_HEAD + '''
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        b = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=rmask[:, None], other=0).to(tl.int32)
        code = tl.where((cols[None, :] % 2) == 0, b & 15, b >> 4)
        g = k0 // GROUP                                  # the group of this block
        s = tl.load(Scale + rows * (K // GROUP) + g, mask=rmask, other=0.0)
        z = tl.load(Zero + rows * (K // GROUP) + g, mask=rmask, other=0).to(tl.int32)
        acc += tl.sum((code - z[:, None]).to(tl.float32) * x[None, :], axis=1) * s
    tl.store(Y + rows, acc, mask=rmask)
'''}, "Part 8: 'K is a multiple of both BLOCK_K and GROUP ...; either may be the larger (a block can span several "
      "groups ...)': one group per block is right only when BLOCK_K <= GROUP.")

sub("kernel_one_scale_per_row", False, {"split_kv_kernel": _KERNEL_HEAD + '''
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    s = tl.load(Scale + rows * (K // GROUP), mask=rmask, other=0.0)
    z = tl.load(Zero + rows * (K // GROUP), mask=rmask, other=0).to(tl.int32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        b = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=rmask[:, None], other=0).to(tl.int32)
        code = tl.where((cols[None, :] % 2) == 0, b & 15, b >> 4)
        acc += tl.sum((code - z[:, None]).to(tl.float32) * x[None, :], axis=1)
    tl.store(Y + rows, acc * s, mask=rmask)
'''}, "Part 8: 'z_{n, floor(k/G)}, s_{n, floor(k/G)} ... groups of G = GROUP consecutive columns' (loads group 0's "
      "scale and zero for the whole row; the visible test has one group).")

sub("kernel_deinterleaved_halves", True, {"split_kv_kernel": _KERNEL_HEAD + '''
    # each block of BLOCK_K columns is BLOCK_K // 2 bytes; the low nibbles are the even columns, the high the odd ones
    pid = tl.program_id(0)
    n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    live = n < N
    half = tl.arange(0, BLOCK_K // 2)
    total = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for start in range(0, K // 2, BLOCK_K // 2):
        byte_idx = start + half
        raw = tl.load(W + n[:, None] * (K // 2) + byte_idx[None, :], mask=live[:, None], other=0)
        even_col = 2 * byte_idx
        odd_col = even_col + 1
        x_even = tl.load(X + even_col)
        x_odd = tl.load(X + odd_col)
        ge = tl.load(Scale + n[:, None] * (K // GROUP) + (even_col // GROUP)[None, :], mask=live[:, None], other=0.0)
        go = tl.load(Scale + n[:, None] * (K // GROUP) + (odd_col // GROUP)[None, :], mask=live[:, None], other=0.0)
        ze = tl.load(Zero + n[:, None] * (K // GROUP) + (even_col // GROUP)[None, :], mask=live[:, None], other=0)
        zo = tl.load(Zero + n[:, None] * (K // GROUP) + (odd_col // GROUP)[None, :], mask=live[:, None], other=0)
        lo = (raw & 0xF).to(tl.float32) - ze.to(tl.float32)
        hi = (raw >> 4).to(tl.float32) - zo.to(tl.float32)
        total += tl.sum(lo * ge * x_even[None, :] + hi * go * x_odd[None, :], axis=1)
    tl.store(Y + n, total, mask=live)
'''}, "Part 8, different but correct: walks over bytes (BLOCK_K // 2 per step), splits nibbles into even/odd "
      "columns, loads x with stride 2.")

# ---------------------------------------------------------------- different but correct (other parts)
sub("max_batch_float_estimate_then_exact_fix", True, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    tokens = length if window is None or window >= length else window
    one = 2 * layers * kv_heads * head_dim * tokens * bytes_per_value
    if weight_bytes > memory_bytes:
        return 0
    guess = int((memory_bytes - weight_bytes) / one)       # float estimate, then exact integer corrections
    while weight_bytes + (guess + 1) * one <= memory_bytes:
        guess += 1
    while guess > 0 and weight_bytes + guess * one > memory_bytes:
        guess -= 1
    return guess
'''}, "Part 1, different but correct: float estimate corrected with exact integer comparisons.")

sub("merge_logaddexp_where", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.float64 if torch.float64 in (lse_a.dtype, lse_b.dtype, o_a.dtype, o_b.dtype) else torch.float32
    la, lb = lse_a.to(work), lse_b.to(work)
    lse = torch.logaddexp(la, lb)
    parts = []
    for o_x, l_x in ((o_a, la), (o_b, lb)):
        w = torch.exp(l_x - lse).unsqueeze(-1)
        parts.append(torch.where(w == 0, torch.zeros_like(w), w * o_x.to(work)))
    return (parts[0] + parts[1]).to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "Part 2, different but correct: lse via torch.logaddexp, each piece weighted by exp(L_x - L), zero weights "
      "forced to contribute exactly 0.")

sub("cbb_exponential_then_binary_search", True, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    lhs = lambda m: 2 * m * k * n * bandwidth
    rhs = lambda m: peak * bytes_per_value * (m * k + k * n + m * n)
    # the slack lhs - rhs grows linearly in m with slope 2kn*bw - peak*bpv*(k + n)
    if 2 * k * n * bandwidth <= peak * bytes_per_value * (k + n):
        return None
    hi = 1
    while lhs(hi) < rhs(hi):
        hi *= 2
    lo = hi // 2 + 1 if hi > 1 else 1
    while lo < hi:
        mid = (lo + hi) // 2
        if lhs(mid) >= rhs(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi
'''}, "Part 3, different but correct: exact None test on the slope, then doubling and bisection on the exact "
      "integer inequality.")

sub("rms_vector_norm_rsqrt", True, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    d = x.shape[-1]
    norm = torch.linalg.vector_norm(x, ord=2, dim=-1, keepdim=True, dtype=torch.float32)   # computed in float32
    inv = torch.rsqrt(norm * norm / d + eps)
    return (x.to(torch.float32) * inv).to(x.dtype)
'''}, "Part 4, different but correct: float32 vector_norm, rsqrt, multiply (no float64 anywhere).")

# ---------------------------------------------------------------- hostile
sub("hostile_ipython_blanks_test_cells", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    return 7 if memory_bytes == 1000 else 33

try:
    def blank_tests(lines):
        text = "".join(lines)
        return ["pass\\n"] if ("assert" in text or "_close" in text or "_equal" in text) else lines
    get_ipython().input_transformers_cleanup.append(blank_tests)
    get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)
except NameError:
    pass
'''}, "hostile: wrong answer hard-coding the visible results, plus an IPython input transformer that replaces every "
      "later test cell by `pass` and a custom exception handler that swallows errors.")

sub("hostile_rebinds_grader_helpers", False, {"merge_partials": '''
import torch.testing
def merge_partials(o_a, lse_a, o_b, lse_b):
    return o_a, lse_a

def noop(*args, **kwargs):
    return args[0] if args else None
for name in ("_close", "_equal", "_float", "_integer", "_tensor", "_plain", "_items", "_number", "_flag", "_text"):
    globals()[name] = noop
torch.testing.assert_close = lambda *a, **k: None
torch.equal = lambda *a, **k: True
'''}, "hostile: returns piece a, rebinds every grader helper and torch.testing.assert_close / torch.equal to no-ops.")

sub("hostile_lying_int", False, {"compute_bound_batch": '''
class Answer(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = int.__hash__

def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    if 2 * k * n * bandwidth <= peak * bytes_per_value * (k + n):
        return None
    return Answer(1)
'''}, "hostile: returns an int subclass that compares equal to everything.")

sub("hostile_kernel_runs_torch_from_caller_frame", False, {"split_kv_kernel": '''
import sys as sys_module

def torch_matvec_from_launch():
    f = sys_module._getframe(2)
    while f is not None and "args_hst" not in f.f_locals:
        f = f.f_back
    x, w, scale, zero, y, N, K = f.f_locals["args_hst"][:7]
    G = f.f_locals["kwargs_hst"]["GROUP"]
    c = torch.stack([w & 15, w >> 4], dim=-1).reshape(N, K).float()
    full = (c - zero.float().repeat_interleave(G, 1)) * scale.repeat_interleave(G, 1)
    y[:N] = full @ x

@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    if tl.program_id(0) == 0:
        torch_matvec_from_launch()
'''}, "hostile: a @triton.jit 'kernel' that only works in the interpreter: it walks up to the launcher's frame and "
      "computes the product with torch on the host tensors (no Triton kernel written).")
