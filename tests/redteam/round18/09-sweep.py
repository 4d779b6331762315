# Red team round 18, class sweep, chapter 09-modern-lm: classes A (requires_grad_ switched on in a caller's tensor),
# C (a finite stand-in for -inf), D (a float32 sum of squares that under/overflows), E (a list for a tuple), each put
# one at a time into the model answer of every part where it applies. (B and F were closed in this chapter by its
# own round 18 helper.)
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

RMS = r'''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.dim() < 2 or x.shape[-1] % n_heads:
        raise ValueError("heads")
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = x.to(work).unflatten(-1, (n_heads, x.shape[-1] // n_heads))
    inv_rms = torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps)
    scale = weight.to(work) + 1 if unit_offset else weight.to(work)
    return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)
'''
SWIGLU = r'''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    both = x @ w_gate_up.T
    if interleaved:
        gate, up = both[..., 0::2], both[..., 1::2]
    else:
        gate, up = both.chunk(2, dim=-1)
    if limit is not None:
        gate = gate.clamp(max=limit)
        up = up.clamp(min=-limit, max=limit)
    return (gate * torch.sigmoid(beta * gate) * up) @ w_down.T
'''
MOE = r'''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("heads")
    if not 1 <= top_k <= n_experts:
        raise ValueError("top_k")
    if n_shared < 0 or not 0 <= first_dense <= n_layers:
        raise ValueError("shared/dense")
    embeddings = vocab * dim * (1 if tied else 2)
    attention = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    common = 2 * dim + attention
    expert = 3 * dim * ffn_hidden
    dense = first_dense * (common + 3 * dim * dense_hidden)
    sparse = n_layers - first_dense
    total = embeddings + dim + dense + sparse * (common + dim * n_experts + (n_experts + n_shared) * expert)
    active = embeddings + dim + dense + sparse * (common + dim * n_experts + (top_k + n_shared) * expert)
    return int(total), int(active)
'''
LOSS = r'''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    chosen = target_mask[:, 1:]
    count = int(chosen.sum())
    scores = logits[:, :-1][chosen].to(work)
    targets = ids[:, 1:][chosen].long()
    log_z = torch.logsumexp(scores, dim=-1)
    picked = scores.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    per_token = (log_z - picked) + z_loss * log_z.square()
    return per_token.sum() / max(count, 1), count
'''
BLOCK = r'''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("post_norms")
        post_1, post_2 = post_norms
        h = x + post_1(attn(norm_1(x)))
        return h + post_2(ffn(norm_2(h)))
    raise ValueError("layout")
'''
ROPE = r'''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    b, _, t, dh = x.shape
    if dh % 2 or tuple(positions.shape) != (b, t):
        raise ValueError("shapes")
    theta = base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)
    wavelength = 2 * math.pi / theta
    s = (original_context / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mixed = (1 - s) * theta / factor + s * theta
    theta = torch.where(wavelength < original_context / high_freq_factor, theta,
                        torch.where(wavelength > original_context / low_freq_factor, theta / factor, mixed))
    angle = positions.to(torch.float64)[:, None, :, None] * theta
    cos, sin = angle.cos(), angle.sin()
    first, second = x.to(torch.float64).chunk(2, dim=-1)
    out = torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)
    return out.to(x.dtype)
'''
RAGGED = r'''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    b, h, t, dh = q.shape
    g, s_max = k_cache.shape[1], k_cache.shape[2]
    if h % g:
        raise ValueError("groups")
    if bool((lengths.long() + t > s_max).any()):
        raise ValueError("fit")
    slots = lengths.long()[:, None] + torch.arange(t)
    index = slots[:, None, :, None].expand(b, g, t, dh)
    k_cache.scatter_(2, index, k_new)
    v_cache.scatter_(2, index, v_new)
    written = torch.arange(s_max)[None, :] < (lengths.long() + t)[:, None]
    keys = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    values = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    qg = q.reshape(b, g, h // g, t, dh)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, keys) / math.sqrt(dh)
    allowed = torch.arange(s_max)[None, None, :] <= slots[:, :, None]
    scores = scores.masked_fill(~allowed[:, None, None], float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), values)
    return out.reshape(b, h, t, dh).to(q.dtype), lengths + t
'''

def sub(src, old, new, count=1):
    assert src.count(old) == count, (old, src.count(old))
    return src.replace(old, new)

def grad_on(name):  # the class A habit: "make sure gradients flow" on a caller's float tensor
    return (f"    if {name}.is_leaf and {name}.dtype.is_floating_point and not {name}.requires_grad:\n"
            f"        {name}.requires_grad_(True)\n")

# ---------------------------------------------------------------- class A: requires_grad_() on a caller's tensor
def first_body_line(src):
    head, rest = src.split("):\n", 1)
    return head + "):\n", rest

def with_grad_on(src, names):
    head, rest = first_body_line(src)
    return head + "".join(grad_on(n) for n in names) + rest

add("A-p1-x-requires-grad", False, {"head_rms_norm": with_grad_on(RMS, ["x"])},
    "Part 1 / intro: 'Your functions must not change the tensors they are given': x's requires_grad switched on.")
add("A-p1-weight-requires-grad", False, {"head_rms_norm": with_grad_on(RMS, ["weight"])},
    "Part 1 / intro: the in-place rule: weight's requires_grad switched on (a trainable weight, the student thinks).")
add("A-p2-x-requires-grad", False, {"fused_swiglu": with_grad_on(SWIGLU, ["x"])},
    "Part 2 / intro: the in-place rule: x's requires_grad switched on.")
add("A-p2-weights-requires-grad", False, {"fused_swiglu": with_grad_on(SWIGLU, ["w_gate_up", "w_down"])},
    "Part 2 / intro: the in-place rule: the weights' requires_grad switched on.")
add("A-p4-logits-requires-grad", False, {"masked_lm_loss": with_grad_on(LOSS, ["logits"])},
    "Part 4: 'the loss ... must stay differentiable' read as: switch requires_grad on in the caller's logits.")
add("A-p5-x-requires-grad", False, {"block_variant": with_grad_on(BLOCK, ["x"])},
    "Part 5 / intro: the in-place rule: x's requires_grad switched on.")
add("A-p6-x-requires-grad", False, {"rope_llama3": with_grad_on(ROPE, ["x"])},
    "Part 6 / intro: the in-place rule: x's requires_grad switched on.")
add("A-p7-q-requires-grad", False, {"ragged_cached_attention": with_grad_on(RAGGED, ["q", "k_new", "v_new"])},
    "Part 7: 'Do not change lengths, q, k_new, v_new': their requires_grad switched on.")
add("A-p7-caches-requires-grad-after-write", False, {"ragged_cached_attention": sub(RAGGED,
    "    written = torch.arange(s_max)",
    grad_on("k_cache") + grad_on("v_cache") + "    written = torch.arange(s_max)")},
    "Part 7: 'change the two caches, and nothing else in them': requires_grad switched on in them after the write "
    "(the caller's next in-place write into the caches then fails).")

# ---------------------------------------------------------------- class C: a finite stand-in for -inf
add("C-p7-mask-minus-1e9", False, {"ragged_cached_attention": sub(RAGGED, 'float("-inf")', "-1e9")},
    "Part 7: 'Scores may be of any size, below -1e9 too (so mask with -inf, not with a large negative number)'.")
add("C-p7-mask-finfo-min", False, {"ragged_cached_attention": sub(RAGGED, 'float("-inf")', "torch.finfo(scores.dtype).min")},
    "Part 7: 'not even the dtype's lowest finite value torch.finfo(dtype).min'.")
add("C-p7-mask-minus-1e4", False, {"ragged_cached_attention": sub(RAGGED, 'float("-inf")', "-1e4")},
    "Part 7: 'mask with -inf, not with a large negative number' (the Hugging Face -1e4).")
add("C-p7-mask-added-minus-1e9", False, {"ragged_cached_attention": sub(RAGGED,
    'scores = scores.masked_fill(~allowed[:, None, None], float("-inf"))',
    "scores = scores + (~allowed[:, None, None]).to(scores.dtype) * -1e9")},
    "Part 7: an additive -1e9 mask: 'a key that a query may not see ... may score 1000 or more above every key it may see'.")

# ---------------------------------------------------------------- class D: a float32 sum of squares
add("D-p1-float32-mean-of-squares", False, {"head_rms_norm": RMS},
    "Part 1: 'x may hold values of any size and eps may be 0 ... clamp nothing': in float32, squares of x near 1e25 "
    "overflow (the result becomes 0) and of x near 1e-25 underflow (0 / 0 with eps = 0). (The model answer as it was.)")
add("D-p1-F-rms-norm-float32", False, {"head_rms_norm": sub(RMS,
    "    inv_rms = torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps)\n"
    "    scale = weight.to(work) + 1 if unit_offset else weight.to(work)\n"
    "    return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)\n",
    "    scale = weight.to(work) + 1 if unit_offset else weight.to(work)\n"
    "    return F.rms_norm(heads, (heads.shape[-1],), scale, eps=eps).transpose(-3, -2).to(x.dtype)\n")},
    "Part 1: values of any size: F.rms_norm in float32 squares in float32 too.")
add("D-p1-vector-norm-float32", False, {"head_rms_norm": sub(RMS,
    "    inv_rms = torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps)\n",
    "    n = heads.shape[-1]\n"
    "    rms = torch.linalg.vector_norm(heads, dim=-1, keepdim=True) / math.sqrt(n)\n"
    "    inv_rms = torch.rsqrt(rms.square() + eps)\n")},
    "Part 1: values of any size: a norm in float32, squared again.")

# ---------------------------------------------------------------- class E: a list where the text says a tuple
add("E-p3-returns-list", False, {"moe_params": sub(MOE, "return int(total), int(active)", "return [int(total), int(active)]")},
    "Part 3: 'returning (total, active), two exact Python ints'; intro: 'or a tuple of them'.")
add("E-p4-returns-list", False, {"masked_lm_loss": sub(LOSS, "return per_token.sum() / max(count, 1), count",
                                                       "return [per_token.sum() / max(count, 1), count]")},
    "Part 4: 'Return (loss, count)'; intro: 'or a tuple of them'.")
add("E-p7-returns-list", False, {"ragged_cached_attention": sub(RAGGED,
    "return out.reshape(b, h, t, dh).to(q.dtype), lengths + t", "return [out.reshape(b, h, t, dh).to(q.dtype), lengths + t]")},
    "Part 7: 'Return (out, new_lengths)'; intro: 'or a tuple of them'.")

# ---------------------------------------------------------------- correct: what the closing checks must keep
add("OK-p1-float64-squares", True, {"head_rms_norm": sub(RMS,
    "    inv_rms = torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps)\n",
    "    inv_rms = torch.rsqrt(heads.double().square().mean(dim=-1, keepdim=True) + eps).to(work)\n")},
    "Part 1: the mean of squares in float64, the rest in float32: neither overflows nor underflows.")
add("OK-p1-float64-throughout", True, {"head_rms_norm": sub(RMS,
    "    work = torch.float64 if x.dtype == torch.float64 else torch.float32\n", "    work = torch.float64\n")},
    "Part 1: 'float64 for every input dtype is accepted too'.")
add("OK-p4-tuple-built-from-list", True, {"masked_lm_loss": sub(LOSS, "return per_token.sum() / max(count, 1), count",
                                                               "return tuple([per_token.sum() / max(count, 1), count])")},
    "Part 4: a tuple, however it was built.")
add("OK-p7-requires-grad-on-own-copy", True, {"ragged_cached_attention": sub(RAGGED,
    "    qg = q.reshape(b, g, h // g, t, dh)",
    "    q = q.detach().clone().requires_grad_(q.requires_grad) if not q.requires_grad else q\n"
    "    qg = q.reshape(b, g, h // g, t, dh)")},
    "Part 7: requires_grad touched only on its own copy (a no-op flag), the caller's q untouched.")
