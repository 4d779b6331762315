"""Red team round 28, chapter 07-hardware: five kinds of student (tie-breaker, fallback writer, constant-hardcoder,
memoizer, spec-lawyer). Cells not named keep the model answer."""

# ---------------------------------------------------------------- bases (my own correct answers)
P1 = '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < 0:
        return 0
    return free // per
'''

P2 = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(dt), lse_b.to(dt)
    m = torch.maximum(la, lb)
    wa = torch.exp(la - m)
    wb = torch.exp(lb - m)
    s = wa + wb
    lse = m + torch.log(s)
    ca = (wa / s)[:, None]
    cb = (wb / s)[:, None]
    oa = torch.where(ca > 0, o_a.to(dt), torch.zeros((), dtype=dt))
    ob = torch.where(cb > 0, o_b.to(dt), torch.zeros((), dtype=dt))
    o = ca * oa + cb * ob
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''

P3 = '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    P = peak * bytes_per_value
    A = 2 * k * n * bandwidth - P * (k + n)
    B = P * k * n
    if A <= 0:
        return None
    return max(1, -(-B // A))
'''

P4 = '''
def rms_norm_half(x, eps=1e-6):
    D = x.shape[-1]
    sd = (D.bit_length() - 1) // 2          # 2**sd <= sqrt(D)
    es = math.frexp(math.sqrt(eps))[1]      # sqrt(eps) < 2**es
    a = x.detach().abs().amax(dim=-1, keepdim=True)
    ea = torch.frexp(a)[1]                  # a < 2**ea (int32)
    E = torch.clamp(torch.where(a == 0, es, ea), min=es)
    h = sd - E                              # scale by 2**h, in two halves
    h1 = torch.div(h, 2, rounding_mode="floor")
    h2 = h - h1
    f1 = torch.exp2(h1.to(x.dtype))
    f2 = torch.exp2(h2.to(x.dtype))
    y = x * f1 * f2
    e = (f1 * math.sqrt(eps)) * f2
    den = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    return y / den
'''

P5 = '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    g = w.reshape(out, inn // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    levels = 2 ** bits - 1
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    group = q.shape[1] // scale.shape[1]
    diff = q.to(torch.int32) - zero.to(torch.int32).repeat_interleave(group, dim=1)
    return scale.repeat_interleave(group, dim=1) * diff.to(scale.dtype)
'''

P6 = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    stream = (q.to(torch.int64)[:, :, None] >> torch.arange(bits)) & 1
    stream = stream.reshape(rows, nbits)
    stream = torch.nn.functional.pad(stream, (0, nbytes * 8 - nbits))
    stream = stream.reshape(rows, nbytes, 8)
    return (stream << torch.arange(8)).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = (packed.to(torch.int64)[:, :, None] >> torch.arange(8)) & 1
    stream = stream.reshape(rows, -1)[:, : cols * bits].reshape(rows, cols, bits)
    return (stream << torch.arange(bits)).sum(dim=-1).to(torch.uint8)
'''

P7 = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    end = min(S, offset + T) if causal else S
    Di = (d_out * out).sum(dim=-1)
    dq = torch.zeros(q.shape, dtype=q.dtype)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    qpos = offset + torch.arange(T)
    L = lse[:, None]
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kb, vb = k[j0:j1], v[j0:j1]
        s = (q @ kb.T) * scale
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= qpos[:, None]
            P = torch.exp(torch.where(seen, s - L, float("-inf")))
        else:
            P = torch.exp(s - L)
        dv[j0:j1] = P.T @ d_out
        dS = P * (d_out @ vb.T - Di[:, None])
        dq += (dS @ kb) * scale
        dk[j0:j1] = (dS.T @ q) * scale
    dsink = -(torch.exp(sink - lse) * Di).sum()
    return dq, dk, dv, dsink
'''

P8 = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    half = K // 2
    ngroups = K // GROUP
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        b = tl.load(W + rows[:, None] * half + (cols // 2)[None, :], mask=rmask[:, None], other=0)
        shift = (cols % 2) * 4
        c = (b.to(tl.int32) >> shift[None, :]) & 15
        g = cols // GROUP
        s = tl.load(Scale + rows[:, None] * ngroups + g[None, :], mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * ngroups + g[None, :], mask=rmask[:, None], other=0)
        wv = (c - z.to(tl.int32)).to(tl.float32) * s
        acc += tl.sum(wv * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''


def sub(base, old, new, count=1):
    assert base.count(old) >= 1, old
    return base.replace(old, new, count)


SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ================================================================ WRONG ANSWERS
# ---- 1. the tie-breaker
add("W01_tie_p1_exact_fill_does_not_fit", False, {"max_batch": sub(P1, "    return free // per", """    b = free // per
    if b > 0 and free % per == 0:   # memory filled to the last byte leaves no headroom: one sequence fewer
        b -= 1
    return b""")},
    "P1: 'weight_bytes + b x (cache of one sequence) <= memory_bytes (memory filled exactly still fits)': "
    "treats an exact fill as '<' (one sequence fewer when the caches fill memory exactly).")
add("W03_tie_p5_zero_round_half_up", False, {"quantize_asym": sub(P5, "    zero = torch.round(-lo / scale)", "    zero = torch.floor(-lo / scale + 0.5)  # zero point rounded half up, as in the papers")},
    "P5: 'Round with torch.round (halves to even)': the zero point rounds halves up (e.g. w = [-1, 5], 2 bits: "
    "-lo/scale = 0.5 -> 1 instead of 0).")
add("W04_spec_tie_p5_round_after_adding_zero", False, {"quantize_asym": sub(P5, "torch.round(g / scale[..., None]) + zero[..., None]", "torch.round(g / scale[..., None] + zero[..., None])")},
    "P5 step 4 'q = clamp(round(w / scale) + zero, ...)' with 'torch.round (halves to even)': rounding after adding an odd "
    "integer zero point flips the half-to-even tie (0.5 + 1 -> 2, round(0.5) + 1 = 1). Spec-lawyer/tie-breaker: "
    "'the same since zero is an integer'.")

# ---- 2. the fallback writer
add("W05_fallback_p2_return_other_piece", False, {"merge_partials": sub(P2, "    dt = torch.promote_types", """    if bool(torch.isneginf(lse_a).all()):   # piece a saw nothing at all: b is the answer
        return o_b, lse_b
    if bool(torch.isneginf(lse_b).all()):
        return o_a, lse_a
    dt = torch.promote_types""")},
    "P2: 'Both results belong to the caller ... return new tensors, never one of the inputs or a view of it (also where "
    "one piece sees no key for any query)'.")
add("W06_fallback_p4_clamp_amax_tiny", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    # the hint: divide x and sqrt(eps) by the row's largest |x|; a row of zeros would divide by 0, so clamp
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp_min(torch.finfo(x.dtype).tiny)
    y = x / c
    e = math.sqrt(eps) / c
    return y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
'''},
    "P4: 'eps from 1e-12 to 1 ... eps can be far ... larger than a row's mean square' and 'keep every number you form "
    "within its range': the zero-row fallback (clamp to tiny) instead of max(|x|, sqrt(eps)) lets (sqrt(eps)/c)^2 "
    "overflow for small rows with a large eps (and rows of zeros with eps ~ 1).")
add("W07_fallback_p7_sink_prob_nan_to_one", False, {"chunk_attention": sub(P7, "    dsink = -(torch.exp(sink - lse) * Di).sum()", """    p_sink = torch.exp(sink) / torch.exp(lse)
    p_sink = torch.nan_to_num(p_sink, nan=1.0)   # inf / inf: the sink dominates
    dsink = -(p_sink * Di).sum()""")},
    "P7: 'a sink of 100 in float32 ... where e^sink and e^L overflow (to inf, and inf / inf is NaN) ... Every probability "
    "you rebuild must stay finite and right': the NaN fallback of 1.0 is wrong where scores compete with the sink.")
add("W08_fallback_p6_all_zero_shortcut_floor", False, {"pack_bits": sub(P6, "    rows, cols = q.shape\n", """    rows, cols = q.shape
    if not bool(q.any()):  # nothing to pack
        return torch.zeros(rows, cols * bits // 8, dtype=torch.uint8)
""")},
    "P6: 'shape (rows, ceil(cols * bits / 8))' and 'any codes, all of them 0 included': the all-zero shortcut floors "
    "the byte count.")
add("W09_fallback_p8_clamp_x_to_half_range", False, {"split_kv_kernel": sub(P8, "        x = tl.load(X + cols)\n", """        x = tl.load(X + cols)
        x = tl.minimum(tl.maximum(x, -65504.0), 65504.0)   # keep the products finite
""")},
    "P8: 'X holds values of any size (clamp nothing)'.")

# ---- 3. the constant-hardcoder
add("W10_const_p1_two_bytes", False, {"max_batch": sub(P1, "cached * bytes_per_value", "cached * 2  # float16 cache")},
    "P1: 'a KV cache of 2 x layers x kv_heads x head_dim x cached x bytes_per_value bytes': bytes_per_value fixed at 2.")
add("W11_const_p7_scale_one_eighth", False, {"chunk_attention": sub(P7, "    scale = 1.0 / math.sqrt(Dh)", "    scale = 0.125  # 1 / sqrt(64)")},
    "P7: 's_ij = q_i . k_j / sqrt(D_h)': the lesson's head width 64 hard-coded.")
add("W12_const_p8_sixteen_rows", False, {"split_kv_kernel": sub(sub(P8, "    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)", "    rows = pid * BLOCK_N + tl.arange(0, 16)"),
                                                               "    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)", "    acc = tl.zeros((16,), dtype=tl.float32)")},
    "P8: 'Program p computes Y[n] for the rows n = p*BLOCK_N ... (p+1)*BLOCK_N - 1': 16 rows per program whatever BLOCK_N.")
add("W13_const_p5_dequant_float32", False, {"quantize_asym": sub(P5, "    return scale.repeat_interleave(group, dim=1) * diff.to(scale.dtype)",
                                                              "    return scale.repeat_interleave(group, dim=1).to(torch.float32) * diff.to(torch.float32)")},
    "P5: 'dequantize_asym ... returns scale x (q - zero) ... in the dtype of scale': float32 hard-coded.")

# ---- 4. the memoizer
add("W14_memo_p1_cache_per_model", False, {"max_batch": '''
PER_SEQUENCE = {}


def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    key = (layers, kv_heads, head_dim, bytes_per_value)    # one entry per model
    if key not in PER_SEQUENCE:
        cached = length if window is None else min(length, window)
        PER_SEQUENCE[key] = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    per = PER_SEQUENCE[key]
    free = memory_bytes - weight_bytes
    return max(0, free // per)
'''},
    "P1: 'cached is ... length, or ... min(length, window)': the per-sequence cache is memoized per model, so a later "
    "call with another length or window reuses the first call's size. (Intro: keep nothing from one call to the next.)")
add("W15_memo_p3_cache_per_weight_shape", False, {"compute_bound_batch": '''
BATCH_FOR_SHAPE = {}


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    key = (k, n, bytes_per_value)          # one answer per weight matrix
    if key not in BATCH_FOR_SHAPE:
        P = peak * bytes_per_value
        A = 2 * k * n * bandwidth - P * (k + n)
        B = P * k * n
        BATCH_FOR_SHAPE[key] = None if A <= 0 else max(1, -(-B // A))
    return BATCH_FOR_SHAPE[key]
'''},
    "P3: 'On a device with peak FLOP/s and bandwidth bytes/s': the cache key drops the device.")
add("W16_memo_p6_index_cache_by_cols", False, {"pack_bits": '''
SHIFTS = {}


def shifts_for(cols, bits):
    if cols not in SHIFTS:               # keyed by the row length
        SHIFTS[cols] = torch.arange(bits)
    return SHIFTS[cols]


def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    stream = (q.to(torch.int64)[:, :, None] >> shifts_for(cols, bits)) & 1
    stream = stream.reshape(rows, -1)[:, :nbits]
    stream = torch.nn.functional.pad(stream, (0, nbytes * 8 - stream.shape[1]))
    stream = stream.reshape(rows, nbytes, 8)
    return (stream << torch.arange(8)).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = (packed.to(torch.int64)[:, :, None] >> torch.arange(8)) & 1
    stream = stream.reshape(rows, -1)[:, : cols * bits].reshape(rows, cols, bits)
    return (stream << torch.arange(bits)).sum(dim=-1).to(torch.uint8)
'''},
    "P6: 'bits any integer from 1 to 8': the table of bit shifts is cached by cols only, so the same cols with another "
    "bits reuses the first call's shifts.")
add("W17_memo_p7_masks_keyed_by_shape", False, {"chunk_attention": sub(sub(P7, "def chunk_attention_backward(", "MASKS = {}\n\n\ndef chunk_attention_backward("),
    "            seen = torch.arange(j0, j1)[None, :] <= qpos[:, None]\n",
    """            key = (T, S, block, j0)           # the tile's causal mask, computed once per shape
            if key not in MASKS:
                MASKS[key] = torch.arange(j0, j1)[None, :] <= qpos[:, None]
            seen = MASKS[key]
""")},
    "P7: 'the query at position p sees the keys j <= p' with queries at 'offset, ..., offset + T - 1': the cached masks "
    "are keyed by shape only, not by offset.")
add("W18_memo_p4_scales_keyed_by_shape", False, {"rms_norm_half": sub(sub(P4, "def rms_norm_half(", "FACTORS = {}\n\n\ndef rms_norm_half("),
    """    a = x.detach().abs().amax(dim=-1, keepdim=True)
    ea = torch.frexp(a)[1]                  # a < 2**ea (int32)
    E = torch.clamp(torch.where(a == 0, es, ea), min=es)
    h = sd - E                              # scale by 2**h, in two halves
    h1 = torch.div(h, 2, rounding_mode="floor")
    h2 = h - h1
    f1 = torch.exp2(h1.to(x.dtype))
    f2 = torch.exp2(h2.to(x.dtype))
""", """    key = (tuple(x.shape), x.dtype, eps)   # the row scales, worked out once per shape
    if key not in FACTORS:
        a = x.detach().abs().amax(dim=-1, keepdim=True)
        ea = torch.frexp(a)[1]
        E = torch.clamp(torch.where(a == 0, es, ea), min=es)
        h = sd - E
        h1 = torch.div(h, 2, rounding_mode="floor")
        FACTORS[key] = (torch.exp2(h1.to(x.dtype)), torch.exp2((h - h1).to(x.dtype)))
    f1, f2 = FACTORS[key]
""")},
    "P4: 'Choose that number row by row' / intro 'Keep nothing from one call to the next': the per-row scales are "
    "cached by shape, so a later x of the same shape with other magnitudes overflows or underflows.")
add("W19_memo_p2_module_buffer", False, {"merge_partials": sub(sub(P2, "def merge_partials(", "BUFFERS = {}\n\n\ndef merge_partials("),
    "    return o.to(o_a.dtype), lse.to(lse_a.dtype)", """    key = (tuple(o.shape), o_a.dtype, lse_a.dtype)
    if key not in BUFFERS:
        BUFFERS[key] = (torch.empty(o.shape, dtype=o_a.dtype), torch.empty(lse.shape, dtype=lse_a.dtype))
    ob_, lb_ = BUFFERS[key]
    with torch.no_grad():
        ob_.copy_(o)
        lb_.copy_(lse)
    return o.to(o_a.dtype), lb_""")},
    "P2 / intro: 'return new tensors on every call, sharing memory ... with nothing kept from one call to the next "
    "(no buffer reused)': lse comes back in a module-level buffer (same object every call, and detached).")

# ---- 5. the spec-lawyer (wrong ones)
add("W20_spec_p8_unmasked_scale_zero", False, {"split_kv_kernel": sub(sub(P8,
    "        s = tl.load(Scale + rows[:, None] * ngroups + g[None, :], mask=rmask[:, None], other=0.0)",
    "        s = tl.load(Scale + rows[:, None] * ngroups + g[None, :])   # rows >= N are never stored"),
    "        z = tl.load(Zero + rows[:, None] * ngroups + g[None, :], mask=rmask[:, None], other=0)",
    "        z = tl.load(Zero + rows[:, None] * ngroups + g[None, :])")},
    "P8: 'Every address that a load or a store touches must lie inside its tensor ... the tests watch the addresses': "
    "the spec-lawyer masks W and Y ('load and store with a mask') but not Scale/Zero, whose rows >= N are never stored.")

# ================================================================ CORRECT ANSWERS
add("C01_spec_p3_fraction", True, {"compute_bound_batch": '''
from fractions import Fraction


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    # intensity(m) = 2mkn / (bpv (mk + kn + mn)) rises with m towards 2kn / (bpv (k + n))
    limit = Fraction(2 * k * n, bytes_per_value * (k + n))
    ridge = Fraction(peak, bandwidth)
    if limit <= ridge:
        return None
    # m (2kn bw - peak bpv (k + n)) >= peak bpv kn
    m = math.ceil(Fraction(peak * bytes_per_value * k * n, 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)))
    return max(1, m)
'''}, "standard-library Fractions, exact; math.ceil of a Fraction is an int.")
add("C02_spec_p7_smaller_tiles", True, {"chunk_attention": sub(P7, "    for j0 in range(0, end, block):\n        j1 = min(j0 + block, end)",
    "    tile = max(1, min(block, 7))    # 'tiles of at most block keys'\n    for j0 in range(0, end, tile):\n        j1 = min(j0 + tile, end)")},
    "P7 says 'tiles of at most block keys': tiles of min(block, 7) keys are allowed (smaller tiles, more of them).")
add("C03_spec_p5_zero_clamped", True, {"quantize_asym": sub(P5, "    zero = torch.round(-lo / scale)", "    zero = torch.clamp(torch.round(-lo / scale), 0, levels)   # 'an integer in 0 ... 2**bits - 1'")},
    "clamping zero to the range the text says it lies in changes nothing (-lo/scale is in [0, levels]). Unsure only if "
    "float rounding could push it out, in which case the clamp is what the text says anyway.")
add("C04_spec_p2_logaddexp", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(dt), lse_b.to(dt)
    lse = torch.logaddexp(la, lb)
    wa = torch.exp(la - lse)[:, None]
    wb = torch.exp(lb - lse)[:, None]
    zero = torch.zeros((), dtype=dt)
    o = wa * torch.where(wa > 0, o_a.to(dt), zero) + wb * torch.where(wb > 0, o_b.to(dt), zero)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "torch.logaddexp for the merged lse, each weight exp(L_x - L) straight from it.")
add("C05_spec_p8_nibble_split", True, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    half = K // 2
    ngroups = K // GROUP
    HALF_K: tl.constexpr = BLOCK_K // 2
    for k0 in range(0, K, BLOCK_K):
        pairs = k0 // 2 + tl.arange(0, HALF_K)          # each byte loaded once
        even = 2 * pairs
        odd = even + 1
        x_even = tl.load(X + even)
        x_odd = tl.load(X + odd)
        byte = tl.load(W + rows[:, None] * half + pairs[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        lo_code = byte & 15
        hi_code = byte >> 4
        ge = even // GROUP
        go = odd // GROUP
        s_e = tl.load(Scale + rows[:, None] * ngroups + ge[None, :], mask=rmask[:, None], other=0.0)
        s_o = tl.load(Scale + rows[:, None] * ngroups + go[None, :], mask=rmask[:, None], other=0.0)
        z_e = tl.load(Zero + rows[:, None] * ngroups + ge[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        z_o = tl.load(Zero + rows[:, None] * ngroups + go[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        w_e = (lo_code - z_e).to(tl.float32) * s_e
        w_o = (hi_code - z_o).to(tl.float32) * s_o
        acc += tl.sum(w_e * x_even[None, :] + w_o * x_odd[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''}, "each byte loaded once and split into its two nibbles; X read in two strided halves per block (still more pieces "
      "when BLOCK_K is smaller).")
add("C06_spec_p7_zeros_like_k", True, {"chunk_attention": sub(sub(sub(P7, "    dk = torch.zeros(k.shape, dtype=q.dtype)", "    dk = torch.zeros_like(k)"),
    "    dv = torch.zeros(v.shape, dtype=q.dtype)", "    dv = torch.zeros_like(v)"),
    "    dq = torch.zeros(q.shape, dtype=q.dtype)", "    dq = torch.zeros_like(q)")},
    "zeros_like(k) reads none of k's values (rule 1 forbids taking positions offset+T.. 'as input' so that NaN does not "
    "reach the result; zeros_like reads only the shape and dtype). Unsure: a watcher that counts arguments may refuse it.")
add("C07_spec_p7_float64_inside", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    dtype = q.dtype
    T, Dh = q.shape
    S = k.shape[0]
    end = min(S, offset + T) if causal else S
    k_seen, v_seen = k[:end].double(), v[:end].double()      # slice first: nothing past offset + T - 1 is read
    qd, od, dod, lsed = q.double(), out.double(), d_out.double(), lse.double()
    Di = (dod * od).sum(dim=-1)
    dq = torch.zeros(T, Dh, dtype=torch.float64)
    dk = torch.zeros(k.shape, dtype=dtype)
    dv = torch.zeros(v.shape, dtype=dtype)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        s = (qd @ k_seen[j0:j1].T) / math.sqrt(Dh)
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= (offset + torch.arange(T))[:, None]
            P = torch.where(seen, torch.exp(torch.where(seen, s - lsed[:, None], 0.0)), 0.0)
        else:
            P = torch.exp(s - lsed[:, None])
        dv[j0:j1] = (P.T @ dod).to(dtype)
        dS = P * (dod @ v_seen[j0:j1].T - Di[:, None])
        dq += dS @ k_seen[j0:j1] / math.sqrt(Dh)
        dk[j0:j1] = (dS.T @ qd / math.sqrt(Dh)).to(dtype)
    dsink = -(torch.exp(sink.double() - lsed) * Di).sum()
    return dq.to(dtype), dk, dv, dsink.to(dtype)
'''}, "float64 inside and one cast back at the end (the text fixes the results' dtype, not the working one); the cache "
      "is sliced before .double(), which copies only the seen keys (an (offset+T, Dh) tensor, no larger than k).")
add("C08_memo_p1_lru_cache", True, {"max_batch": '''
import functools


@functools.lru_cache(maxsize=None)
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    return max(0, (memory_bytes - weight_bytes) // per)
'''}, "a cache keyed by every argument of a pure integer function changes no result (ints hash by value). Unsure: a "
      "keyword and a positional call of the same values are two keys, harmless.")
add("C09_tie_p2_winner_loser", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(dt), lse_b.to(dt)
    a_wins = la >= lb                        # ties go to a: either choice gives the same merge
    top = torch.where(a_wins, la, lb)
    low = torch.where(a_wins, lb, la)
    r = torch.exp(low - top)                 # the loser's weight relative to the winner, in [0, 1]
    lse = top + torch.log1p(r)
    zero = torch.zeros((), dtype=dt)
    oa = torch.where((a_wins | (r > 0))[:, None], o_a.to(dt), zero)
    ob = torch.where((~a_wins | (r > 0))[:, None], o_b.to(dt), zero)
    w_top = (1 / (1 + r))[:, None]
    w_low = (r / (1 + r))[:, None]
    o = torch.where(a_wins[:, None], w_top * oa + w_low * ob, w_low * oa + w_top * ob)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "the winner/loser form with ties given to a (the text fixes no tie rule; the merge is the same).")
add("C10_tie_p1_no_room_at_zero", True, {"max_batch": sub(P1, "    if free < 0:", "    if free <= 0:")},
    "free == 0 gives 0 either way.")
add("C11_const_p4_sqrt4096", True, {"rms_norm_half": sub(P4, "    sd = (D.bit_length() - 1) // 2          # 2**sd <= sqrt(D)", "    sd = 6                                  # rows are at most 4096 long: sqrt(4096) = 2**6")},
    "a fixed 2**6 headroom factor (the longest row is 4096) keeps every square below 2**14 for any row length: same "
    "accuracy.")
add("C12_spec_p5_dequant_via_float32_ints", True, {"quantize_asym": sub(P5,
    "    diff = q.to(torch.int32) - zero.to(torch.int32).repeat_interleave(group, dim=1)\n    return scale.repeat_interleave(group, dim=1) * diff.to(scale.dtype)",
    "    diff = q.float() - zero.float().repeat_interleave(group, dim=1)     # exact: integers below 256\n    return scale.repeat_interleave(group, dim=1) * diff                  # float64 scale promotes the product")},
    "(q - zero) in float32 is exact (integers below 256); the product promotes to scale's dtype.")
add("C13_fallback_p6_all_zero_shortcut", True, {"pack_bits": sub(P6, "    rows, cols = q.shape\n", """    rows, cols = q.shape
    if not bool(q.any()):  # nothing to pack
        return torch.zeros(rows, (cols * bits + 7) // 8, dtype=torch.uint8)
""")}, "an all-zero shortcut of the right size.")
add("C14_memo_p6_full_key_cache", True, {"pack_bits": '''
SHIFTS = {}


def shifts(n):
    if n not in SHIFTS:                     # keyed by everything it depends on
        SHIFTS[n] = torch.arange(n)
    return SHIFTS[n]


def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    stream = ((q.to(torch.int64)[:, :, None] >> shifts(bits)) & 1).reshape(rows, nbits)
    stream = torch.nn.functional.pad(stream, (0, nbytes * 8 - nbits)).reshape(rows, nbytes, 8)
    return (stream << shifts(8)).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = ((packed.to(torch.int64)[:, :, None] >> shifts(8)) & 1).reshape(rows, -1)
    stream = stream[:, : cols * bits].reshape(rows, cols, bits)
    return (stream << shifts(bits)).sum(dim=-1).to(torch.uint8)
'''}, "a cache of arange(n) keyed by n (never returned, never written) changes no result. Unsure: the intro's 'keep "
      "nothing from one call to the next' is about things worked out from the caller's tensors.")
add("C15_fallback_p4_zero_rows_scaled_by_sqrt_eps", True, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    # divide x and sqrt(eps) by the same power of two per row: 2**E >= max(|x|, sqrt(eps))
    D = x.shape[-1]
    sd = (D.bit_length() - 1) // 2
    es = math.frexp(math.sqrt(eps))[1]
    a = x.detach().abs().amax(dim=-1, keepdim=True)
    ea = torch.frexp(a)[1]
    ea = torch.where(a > 0, ea, torch.full_like(ea, es))    # a row of zeros: scale by sqrt(eps)'s power of two
    E = torch.maximum(ea, torch.full_like(ea, es))
    h = sd - E
    h1 = h // 2
    f1 = torch.ldexp(torch.ones_like(x[..., :1]), h1)
    f2 = torch.ldexp(torch.ones_like(x[..., :1]), h - h1)
    y = (x * f1) * f2
    e = (f1 * math.sqrt(eps)) * f2
    return y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
'''}, "the power-of-two scaling made with torch.ldexp on ones of x's dtype; zero rows take sqrt(eps)'s exponent.")

# ================================================================ HOSTILE
add("H01_hostile_p1_int_equal_to_all", False, {"max_batch": '''
class Count(int):
    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0


def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    return Count(0)
'''}, "hostile: an int subclass equal to everything.")
add("H02_hostile_p4_widen_out_of_sight", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    from torch.utils._python_dispatch import _disable_current_modes
    with torch._C.DisableTorchFunction(), _disable_current_modes():
        xf = x.float()
        y = xf * torch.rsqrt((xf * xf).mean(dim=-1, keepdim=True) + eps)
        return y.to(x.dtype)
'''}, "hostile: widens to float32 with torch's function and dispatch modes switched off, so no watcher sees it.")
add("H03_hostile_p7_full_matrix_out_of_sight", False, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    from torch.utils._python_dispatch import _disable_current_modes
    with torch._C.DisableTorchFunction(), _disable_current_modes():
        T, S = q.shape[0], k.shape[0]
        end = min(S, offset + T) if causal else S
        with torch.enable_grad():
            qq = q.detach().clone().requires_grad_()
            kk = k[:end].detach().clone().requires_grad_()
            vv = v[:end].detach().clone().requires_grad_()
            ss = sink.detach().clone().requires_grad_()
            s = qq @ kk.T / math.sqrt(q.shape[1])
            if causal:
                s = s.masked_fill(torch.arange(end)[None, :] > (offset + torch.arange(T))[:, None], float("-inf"))
            L = torch.logsumexp(torch.cat([s, ss.expand(T, 1)], 1), 1)
            o = torch.softmax(torch.cat([s, ss.expand(T, 1)], 1), 1)[:, :end] @ vv
            dq, dk_, dv_, dsink = torch.autograd.grad(o, (qq, kk, vv, ss), d_out)
        dk = torch.zeros(k.shape, dtype=q.dtype)
        dv = torch.zeros(v.shape, dtype=q.dtype)
        dk[:end] = dk_
        dv[:end] = dv_
        return dq, dk, dv, dsink
'''}, "hostile: the (T, S) matrix and autograd with the watchers switched off (memory rule and tiling dodged).")

# ================================================================ second batch (still blind): subtler ones
add("W21_fallback_p2_leave_out_only_minus_inf", False, {"merge_partials": sub(sub(P2,
    "    oa = torch.where(ca > 0, o_a.to(dt), torch.zeros((), dtype=dt))", "    oa = torch.where(torch.isneginf(la)[:, None], torch.zeros((), dtype=dt), o_a.to(dt))   # a piece that saw no key"),
    "    ob = torch.where(cb > 0, o_b.to(dt), torch.zeros((), dtype=dt))", "    ob = torch.where(torch.isneginf(lb)[:, None], torch.zeros((), dtype=dt), o_b.to(dt))")},
    "P2: 'only a weight of exactly 0 (a -inf log-sum-exp, or one so far below the other that its weight underflows to 0 "
    "...) leaves it out' with 'where a piece that sees keys has inf ... in its row of o': a finite lse whose weight "
    "underflows, on a row holding inf, gives 0 * inf = NaN. (Threshold/tie student: leaves out only -inf.)")
add("W22_spec_p4_clamp_to_sqrt_eps_scalar", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    # divide x and sqrt(eps) by c = max(|x|_max, sqrt(eps)) row by row: nothing squared exceeds 1
    r = math.sqrt(eps)
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp_min(r)
    y = x / c
    e = r / c
    return y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
'''},
    "P4: 'Use eps (or ... its square root) as that Python number, not as a tensor of x's dtype made from it: in float16 "
    "the square root of 1.1e-12 is subnormal and rounds by more than 2%': clamp_min(sqrt(eps)) stores it in x's dtype; "
    "also y = x / c with c not a power of two and subnormal y divided by a small root.")
add("W23_spec_p5_reciprocal_multiply", False, {"quantize_asym": sub(P5, "torch.round(g / scale[..., None])", "torch.round(g * (1.0 / scale)[..., None])")},
    "P5 step 4 'round(w / scale)' and 'on a half step, round(w / scale) depends on ...': multiplying by the reciprocal "
    "is not the same division on half steps (spec-lawyer: 'the same number').")
add("W24_memo_p5_id_version_cache", False, {"quantize_asym": sub(sub(P5, "def quantize_asym(w, bits, group_size):\n", """RESULTS = {}


def quantize_asym(w, bits, group_size):
    key = (id(w), w._version, tuple(w.shape), tuple(w.stride()), w.dtype, bits, group_size)   # in-place writes bump _version
    if key in RESULTS:
        return tuple(t.clone() for t in RESULTS[key])
"""), "    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)", """    result = (q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8))
    RESULTS[key] = tuple(t.clone() for t in result)
    return result""")},
    "Intro: 'Keep nothing from one call to the next either, not even something worked out from a tensor and kept per "
    "id() of it': keyed by id and _version, so in-place changes are seen but a new tensor that reuses a freed id "
    "(version 0 again) gets the old result.")
add("W25_memo_p7_delta_cache_by_id", False, {"chunk_attention": sub(sub(P7, "def chunk_attention_backward(", "DELTAS = {}\n\n\ndef chunk_attention_backward("),
    "    Di = (d_out * out).sum(dim=-1)\n", """    key = (id(out), out._version, id(d_out), d_out._version, tuple(out.shape))
    if key not in DELTAS:
        DELTAS[key] = (d_out * out).sum(dim=-1)
    Di = DELTAS[key]
""")},
    "Intro: no cache per id() of a tensor: a new out / d_out at a freed id (version 0) gets the old D_i.")
add("W26_const_p8_one_group_per_block", False, {"split_kv_kernel": sub(sub(P8,
    "        s = tl.load(Scale + rows[:, None] * ngroups + g[None, :], mask=rmask[:, None], other=0.0)",
    "        s = tl.load(Scale + rows * ngroups + k0 // GROUP, mask=rmask, other=0.0)[:, None]   # one group per block"),
    "        z = tl.load(Zero + rows[:, None] * ngroups + g[None, :], mask=rmask[:, None], other=0)",
    "        z = tl.load(Zero + rows * ngroups + k0 // GROUP, mask=rmask, other=0)[:, None]")},
    "P8: 'either may be the larger (a block can span several groups, or a group several blocks)': one scale per block.")

add("C16_const_p7_float32_positions", True, {"chunk_attention": sub(sub(P7,
    "    qpos = offset + torch.arange(T)", "    qpos = offset + torch.arange(T, dtype=torch.float32)   # exact below 2**24"),
    "            seen = torch.arange(j0, j1)[None, :] <= qpos[:, None]", "            seen = torch.arange(j0, j1, dtype=torch.float32)[None, :] <= qpos[:, None]")},
    "positions in float32: 'S stays below 2**24, where float32 stops holding every integer', so every position is exact.")
add("C17_const_p6_uint8_throughout", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    stream = (q[:, :, None] >> torch.arange(bits, dtype=torch.uint8)) & 1          # uint8 bits
    stream = torch.nn.functional.pad(stream.reshape(rows, nbits), (0, nbytes * 8 - nbits))
    stream = stream.reshape(rows, nbytes, 8) << torch.arange(8, dtype=torch.uint8)  # at most 128
    return stream.sum(dim=-1, dtype=torch.uint8)                                    # at most 255


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = ((packed[:, :, None] >> torch.arange(8, dtype=torch.uint8)) & 1).reshape(rows, -1)
    stream = stream[:, : cols * bits].reshape(rows, cols, bits) << torch.arange(bits, dtype=torch.uint8)
    return stream.sum(dim=-1, dtype=torch.uint8)
'''}, "uint8 all the way: each byte's bits are distinct powers of two, so the sum never exceeds 255.")
add("C18_spec_p7_where_after_exp", True, {"chunk_attention": sub(P7,
    "            P = torch.exp(torch.where(seen, s - L, float(\"-inf\")))",
    "            P = torch.where(seen, torch.exp(s - L), 0.0)      # masked entries may be inf here: where drops them")},
    "torch.where after exp: a masked score far above L gives exp = inf, which where replaces by 0 (no NaN arises: "
    "nothing multiplies the inf). Unsure only if the tests look for infinities in intermediates.")
add("C19_spec_p8_2d_accumulator", True, {"split_kv_kernel": sub(sub(sub(P8,
    "    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)", "    acc = tl.zeros((BLOCK_N, BLOCK_K), dtype=tl.float32)"),
    "        acc += tl.sum(wv * x[None, :], axis=1)", "        acc += wv * x[None, :]"),
    "    tl.store(Y + rows, acc, mask=rmask)", "    tl.store(Y + rows, tl.sum(acc, axis=1), mask=rmask)")},
    "a (BLOCK_N, BLOCK_K) float32 accumulator summed once at the end: 'accumulating in float32' in another order.")
add("C20_spec_p2_float64_inside", True, {"merge_partials": sub(P2, "    dt = torch.promote_types(o_a.dtype, lse_a.dtype)", "    dt = torch.float64   # 'at least the precision of the log-sum-exps'")},
    "float64 inside for every input, one rounding to the result dtype at the end: 'compute in at least the precision "
    "of the log-sum-exps'. The float16 o is then rounded once from a float64 merge (closer than the float32 one).")
add("C21_memo_p5_content_keyed_cache", True, {"quantize_asym": sub(sub(P5, "def quantize_asym(w, bits, group_size):\n", """SEEN = []


def quantize_asym(w, bits, group_size):
    for kept, b, gs, result in SEEN:     # keyed by the weights' values themselves (a copy), not by the object
        if b == bits and gs == group_size and kept.dtype == w.dtype and kept.shape == w.shape and torch.equal(kept, w):
            return tuple(t.clone() for t in result)
"""), "    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)", """    result = (q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8))
    SEEN.append((w.detach().clone(), bits, group_size, tuple(t.clone() for t in result)))
    del SEEN[:-4]
    return result""")},
    "a cache keyed by a copy of the values (torch.equal) changes no result: fresh clones every call. Unsure: the intro "
    "says 'keep nothing from one call to the next'; its reason (in-place changes) cannot affect this cache. NaN weights "
    "never compare equal, so they are recomputed.")
