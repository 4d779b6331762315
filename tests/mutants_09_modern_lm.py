"""Chapter 9 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently that must keep full marks.

Five mutants per part, each named after the mistake; the comment above each names the class of
issue #22 that the part's hidden tests close (sizes and rows that differ, a stated dtype or type,
an argument with a non-default value, a boundary, a rule on another code path, a rule that rarely
changes a result, the in-place rule). They are packed into five batches of one mutant per part,
so the chapter costs ten graded notebooks. Part 7 is graded with a reference of Part 6's rope_llama3
(an answer may call it), so rope_view_slip_with_ragged_calling_it costs Part 6 only; the loops_and_slices
variant's Part 7 calls Part 6 by keyword with int32 positions and int options."""

from grading import (KEPT_PER_ID, cached_by_id_and_version, chain, from_storage_start,
                     kept_output_buffer, place_mutant, place_mutants, replaced as _changed, solution_code)

CHAPTER = "09-modern-lm"
FULL_MARKS = 16.0

_RMS = """
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if x.shape[-1] % n_heads:
        raise ValueError("the heads do not split the last axis")
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = x.to(work).unflatten(-1, (n_heads, x.shape[-1] // n_heads))
    scale = weight.to(work) + 1 if unit_offset else weight.to(work)
    {body}
"""

_MOE_RAW = """
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_heads % n_kv_heads or {check_k} or n_shared < 0 or not 0 <= first_dense <= n_layers:
        raise ValueError("bad configuration")
    emb = {emb}
    common = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    dense = first_dense * (common + 3 * dim * dense_hidden + {dense_extra})
    sparse = (n_layers - first_dense) * (common + dim * n_experts)
    expert = 3 * dim * ffn_hidden * (n_layers - first_dense)
    return emb + dim + dense + sparse + (n_experts + n_shared) * expert, emb + dim + dense + sparse + ({active_experts}) * expert
"""


def _moe(check_k="not 1 <= top_k <= n_experts", emb="vocab * dim * (1 if tied else 2)", dense_extra="0",
         active_experts="top_k + n_shared"):
    return _MOE_RAW.format(check_k=check_k, emb=emb, dense_extra=dense_extra, active_experts=active_experts)

_MOE_CHECKED = """
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    sparse = n_layers - first_dense
    if {checks}:
        raise ValueError("bad configuration")
    emb = vocab * dim * (1 if tied else 2)
    common = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    expert = 3 * dim * ffn_hidden
    total = (emb + dim + first_dense * (common + 3 * dim * dense_hidden)
             + sparse * (common + dim * n_experts + (n_experts + n_shared) * expert))
    return total, {active}
"""
_MOE_CHECKS = ("n_kv_heads < 1 or n_heads % n_kv_heads or not 1 <= top_k <= n_experts or n_shared < 0 "
               "or not 0 <= first_dense <= n_layers")

_BLOCK = """
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if {m_parallel}:
        {parallel}
    if {m_reordered}:
        {reordered}
    if {m_sandwich}:
        if post_norms is None:
            raise ValueError("post_norms needed")
        {sandwich}
    raise ValueError(layout)
"""


def _block(parallel="n = norm_1(x)\n        return x + attn(n) + ffn(n)",
           reordered="h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))",
           sandwich="post_1, post_2 = post_norms\n        h = x + post_1(attn(norm_1(x)))\n        return h + post_2(ffn(norm_2(h)))",
           match='layout == "{}"'):
    return _BLOCK.format(parallel=parallel, reordered=reordered, sandwich=sandwich,
                         **{f"m_{name}": match.format(name) for name in ("parallel", "reordered", "sandwich")})

_LOSS = """
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    scores = logits[:, :-1].to(work)
    targets = ids[:, 1:].long()
    chosen = target_mask[:, 1:]
    log_z = torch.logsumexp(scores, dim=-1)
    picked = scores.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    per_token = (log_z - picked) + z_loss * log_z.square()
    count = int(chosen.sum())
    {body}
"""

_ROPE = """
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    b, _, t, dh = x.shape
    {check}
    theta = base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)
    wavelength = 2 * math.pi / theta
    s = (original_context / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mixed = (1 - s) * theta / factor + s * theta
    {bands}
    angle = {angle}
    cos, sin = angle.cos(), angle.sin()
    first, second = x.to(torch.float64).chunk(2, dim=-1)
    return torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1).to(x.dtype)
"""
_ROPE_CHECK = """if dh % 2 or tuple(positions.shape) != (b, t):
        raise ValueError("bad shapes")"""
_ROPE_BANDS = """theta = torch.where(wavelength < original_context / high_freq_factor, theta,
                        torch.where(wavelength > original_context / low_freq_factor, theta / factor, mixed))"""
_ROPE_ANGLE = "positions.to(torch.float64)[:, None, :, None] * theta"

_RAGGED = """
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    b, h, t, dh = q.shape
    g, s_max = k_cache.shape[1], k_cache.shape[2]
    if h % g:
        raise ValueError("heads do not group")
    if bool((lengths.long() + t {cmp} s_max).any()):
        raise ValueError("the cache is too small")
    {caches}
    slots = {offsets} + torch.arange(t)
    index = slots[:, None, :, None].expand(b, g, t, dh)
    k_cache.scatter_(2, index, k_new)
    v_cache.scatter_(2, index, v_new)
    written = torch.arange(s_max)[None, :] < (slots[:, -1] + 1)[:, None]
    {values}
    qg = q.reshape(b, g, h // g, t, dh)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, keys) / math.sqrt(dh)
    allowed = torch.arange(s_max)[None, None, :] <= slots[:, :, None]
    scores = scores.masked_fill(~allowed[:, None, None], float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), values)
    {ret}
"""
_RAGGED_VALUES = """keys = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    values = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))"""
_RAGGED_RET = "return out.reshape(b, h, t, dh).to(q.dtype), lengths + t"


def _ragged(cmp=">", caches="", offsets="lengths.long()[:, None]", values=_RAGGED_VALUES, ret=_RAGGED_RET):
    return _RAGGED.format(cmp=cmp, caches=caches, offsets=offsets, values=values, ret=ret)


_GEN = """
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    logits, cache = step(prompt, None)
    seen = prompt.clone()
    finished = torch.zeros(prompt.shape[0], dtype=torch.bool)
    chosen = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        {penalty}
        if temperature == 0:
            token = scores.argmax(dim=-1)
        else:
            token = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, {draw})[:, 0]
        token = torch.where(finished, torch.full_like(token, pad_id), token)
        chosen.append(token)
        finished = finished | (token == eos_id)
        seen = torch.cat([seen, token[:, None]], dim=1)
        {stop}
        {feed}
    return torch.stack(chosen, dim=1)
"""
_GEN_PENALTY = """occurs = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, seen, True)
        scores = torch.where(occurs, torch.where(scores > 0, scores / penalty, scores * penalty), scores)"""
_GEN_STOP = """if bool(finished.all()) or i + 1 == max_new_tokens:
            break"""
_GEN_FEED = "logits, cache = step(token[:, None], cache)"


def _gen(penalty=_GEN_PENALTY, draw="generator=generator", stop=_GEN_STOP, feed=_GEN_FEED):
    return _GEN.format(penalty=penalty, draw=draw, stop=stop, feed=feed)



# Non-contiguous inputs (a transposed view, as the hidden tests pass): .view that merges axes fails there
LOSS_FLATTENS_LOGITS_WITH_VIEW = """
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    B_, T_, V_ = logits.shape
    scores = logits.to(work).view(B_ * T_, V_).view(B_, T_, V_)[:, :-1]
    targets = ids[:, 1:].long()
    chosen = target_mask[:, 1:]
    log_z = torch.logsumexp(scores, dim=-1)  # (B, T-1)
    picked = scores.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    per_token = (log_z - picked) + z_loss * log_z.square()
    count = int(chosen.sum())
    total = torch.where(chosen, per_token, torch.zeros((), dtype=work)).sum()
    return total / max(count, 1), count
"""
ROPE_FLATTENS_X_WITH_VIEW = """
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    b, _, t, dh = x.shape
    if dh % 2 or tuple(positions.shape) != (b, t):
        raise ValueError(f"need an even head width and positions of shape {(b, t)}, "
                         f"got Dh={dh} and positions of shape {tuple(positions.shape)}")
    theta = base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)  # (Dh/2,)
    wavelength = 2 * math.pi / theta
    s = (original_context / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mixed = (1 - s) * theta / factor + s * theta
    theta = torch.where(wavelength < original_context / high_freq_factor, theta,
                        torch.where(wavelength > original_context / low_freq_factor, theta / factor, mixed))
    angle = positions.to(torch.float64)[:, None, :, None] * theta  # (B, 1, T, Dh/2)
    cos, sin = angle.cos(), angle.sin()
    xf = x.to(torch.float64).view(-1, dh)
    first, second = xf.chunk(2, dim=-1)
    first, second = first.view(*x.shape[:-1], dh // 2), second.view(*x.shape[:-1], dh // 2)
    out = torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)
    return out.to(x.dtype)
"""
RAGGED_MERGES_BATCH_AND_HEADS_WITH_VIEW = """
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    b, h, t, dh = q.shape
    g, s_max = k_cache.shape[1], k_cache.shape[2]
    if h % g:
        raise ValueError(f"{h} query heads do not split into groups of {g} key/value heads")
    if int((lengths.long() + t).max()) > s_max:
        raise ValueError(f"lengths + {t} exceed the cache size {s_max}: {(lengths + t).tolist()}")
    slots = lengths.long()[:, None] + torch.arange(t)  # (B, T): where the new tokens go
    index = slots[:, None, :, None].expand(b, g, t, dh)
    k_cache.scatter_(2, index, k_new)
    v_cache.scatter_(2, index, v_new)
    written = torch.arange(s_max)[None, :] < (lengths.long() + t)[:, None]  # (B, S_max)
    keys = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    values = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    qg = q.view(b * h, t, dh).view(b, g, h // g, t, dh)  # the query heads of one group sit next to each other
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, keys) / math.sqrt(dh)
    allowed = torch.arange(s_max)[None, None, :] <= slots[:, :, None]  # (B, T, S_max)
    scores = scores.masked_fill(~allowed[:, None, None], float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), values)
    return out.reshape(b, h, t, dh).to(q.dtype), lengths + t
"""
GENERATE_FLATTENS_THE_HISTORY_WITH_VIEW = """
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    logits, cache = step(prompt, None)
    seen = prompt.clone()  # (B, P + tokens so far)
    finished = torch.zeros(prompt.shape[0], dtype=torch.bool)
    chosen = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()  # (B, V)
        occurs = torch.zeros_like(scores, dtype=torch.bool).view(-1)
        occurs[(seen + torch.arange(seen.shape[0])[:, None] * scores.shape[1]).view(-1)] = True
        occurs = occurs.view(scores.shape)
        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(occurs, penalised, scores)
        if temperature == 0:
            token = scores.argmax(dim=-1)
        else:
            token = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator)[:, 0]
        token = torch.where(finished, torch.full_like(token, pad_id), token)
        chosen.append(token)
        finished = finished | (token == eos_id)
        seen = torch.cat([seen, token[:, None]], dim=1)
        if bool(finished.all()) or i + 1 == max_new_tokens:
            break
        logits, cache = step(token[:, None], cache)
    return torch.stack(chosen, dim=1)
"""


# Common wrong answers: name -> (the graded test that must lose points, {answer cell: code}).
MUTANTS = {
    "loss_flattens_logits_with_view": ("test_masked_lm_loss", {"masked_lm_loss": LOSS_FLATTENS_LOGITS_WITH_VIEW}),
    "rope_flattens_x_with_view": ("test_rope_llama3", {"rope_llama3": ROPE_FLATTENS_X_WITH_VIEW}),
    "ragged_merges_batch_and_heads_with_view": ("test_ragged_cached_attention", {"ragged_cached_attention": RAGGED_MERGES_BATCH_AND_HEADS_WITH_VIEW}),
    # round 14, fourth family (-1e9 for -inf, the tutorial habit): right wherever every score a query may see lies
    # above -1e9, which every hidden case had; the text says scores may be of any size
    "ragged_masks_with_minus_1e9": ("test_ragged_cached_attention", {"ragged_cached_attention": _ragged().replace(
        'scores.masked_fill(~allowed[:, None, None], float("-inf"))', 'scores.masked_fill(~allowed[:, None, None], -1e9)')}),
    "generate_flattens_the_history_with_view": ("test_generate_with_cache", {"generate_with_cache": GENERATE_FLATTENS_THE_HISTORY_WITH_VIEW}),
    # Part 1 -- stated precision (red team 2): 1 + w rounded in the weight's float16 / bfloat16 before the float32
    # arithmetic, so a small Gemma offset is partly lost (within one unit in the last place, not half of one)
    # red team 8, class 3: the forward pass right, 1/rms under torch.no_grad() (its gradient lost)
    "rms_scale_under_no_grad": ("test_head_rms_norm", {"head_rms_norm": """
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.dim() < 2 or x.shape[-1] % n_heads:
        raise ValueError("bad heads")
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = x.to(work).unflatten(-1, (n_heads, x.shape[-1] // n_heads))
    with torch.no_grad():
        inv_rms = torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps)
    scale = weight.to(work) + 1 if unit_offset else weight.to(work)
    return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)
"""}),
    "rms_offset_rounded_in_weight_dtype": ("test_head_rms_norm", {"head_rms_norm": """
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if x.shape[-1] % n_heads:
        raise ValueError("the heads do not split the last axis")
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = x.to(work).unflatten(-1, (n_heads, x.shape[-1] // n_heads))
    scale = (1 + weight if unit_offset else weight).to(work)
    inv_rms = torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps)
    return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)
"""}),
    # Part 1 -- stated dtype rule: computes in the input's dtype, so float16 squares overflow
    "rms_in_input_dtype": ("test_head_rms_norm", {"head_rms_norm": """
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if x.shape[-1] % n_heads:
        raise ValueError("the heads do not split the last axis")
    heads = x.unflatten(-1, (n_heads, x.shape[-1] // n_heads))
    scale = weight + 1 if unit_offset else weight
    return (heads * torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps) * scale).transpose(-3, -2)
"""}),
    # Part 1 -- sizes beyond the visible ones: reshaped to (..., H, T, Dh) instead of transposed (same for T = 1)
    "rms_reshape_not_transpose": ("test_head_rms_norm", {"head_rms_norm": _RMS.format(body="""
    inv_rms = torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps)
    y = heads * inv_rms * scale
    return y.reshape(*x.shape[:-2], n_heads, x.shape[-2], x.shape[-1] // n_heads).to(x.dtype)""")}),
    # red team 12, class sweep (an empty batch): leading axes flattened with reshape(-1, ...), which a tensor of no
    # elements refuses (the -1 could be any size)
    "rms_flattens_leading_axes": ("test_head_rms_norm", {"head_rms_norm": """
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("the heads do not split the last axis")
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    t, dh = x.shape[-2], x.shape[-1] // n_heads
    heads = x.to(work).reshape(-1, t, n_heads, dh)
    scale = weight.to(work) + 1 if unit_offset else weight.to(work)
    y = heads * torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps) * scale
    return y.transpose(1, 2).reshape(*x.shape[:-2], n_heads, t, dh).to(x.dtype)
"""}),
    # red team 12, class sweep (an empty batch): one row at a time, the rows' sums stacked (no rows: stack raises)
    "loss_stacks_row_sums": ("test_masked_lm_loss", {"masked_lm_loss": """
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    sums, count = [], 0
    for b in range(logits.shape[0]):  # rows hold different numbers of answer tokens
        chosen = target_mask[b, 1:]
        scores = logits[b, :-1][chosen].to(work)
        log_z = torch.logsumexp(scores, dim=-1)
        picked = scores.gather(-1, ids[b, 1:][chosen].long().unsqueeze(-1)).squeeze(-1)
        sums.append(((log_z - picked) + z_loss * log_z.square()).sum())
        count += int(chosen.sum())
    return torch.stack(sums).sum() / max(count, 1), count
"""}),
    # red team 12, class sweep (an empty batch): cos and sin tabled up to the largest position (no positions: max raises)
    "rope_table_up_to_the_largest_position": ("test_rope_llama3", {"rope_llama3": _ROPE.format(
        check=_ROPE_CHECK, bands=_ROPE_BANDS,
        angle="(torch.arange(int(positions.max()) + 1, dtype=torch.float64)[:, None] * theta)[positions.long()][:, None]")}),
    # red team 12, class sweep (an empty batch): the fit checked on the longest row (no rows: max raises)
    "ragged_longest_row_of_an_empty_batch": ("test_ragged_cached_attention", {"ragged_cached_attention": _ragged().replace(
        "    if bool((lengths.long() + t > s_max).any()):\n", "    if int((lengths.long() + t).max()) > s_max:\n")}),
    # ---- red team round 13 (mutation sweep): each kept full marks before its hidden check was added
    # Part 3 -- a default value exercised only where it does not matter: dense_hidden left out with dense blocks
    # (the sweep's dense_hidden=1); here a default of None that falls back to ffn_hidden
    "moe_dense_hidden_defaults_to_ffn_hidden": ("test_moe_params", {"moe_params": _changed(_changed(
        _MOE_CHECKED.format(checks=_MOE_CHECKS, active="total - sparse * (n_experts - top_k) * expert"),
        "first_dense=0, dense_hidden=0):", "first_dense=0, dense_hidden=None):"),
        "    emb = ", "    if dense_hidden is None:\n        dense_hidden = ffn_hidden\n    emb = ")}),
    # Part 5 -- the same class: post_norms left out for a sandwich (the default None must raise) runs with identities
    "block_sandwich_default_identity_posts": ("test_block_variant", {"block_variant": _changed(
        _block(), "post_norms=None):", "post_norms=(lambda t: t, lambda t: t)):")}),
    # Part 6 -- a number argument always at values where floor division is exact: L // factor for the band limits
    "rope_band_limits_floor_divided": ("test_rope_llama3", {"rope_llama3": _ROPE.format(
        check=_ROPE_CHECK, angle=_ROPE_ANGLE, bands=_changed(_changed(
            _ROPE_BANDS, "original_context / high_freq_factor", "original_context // high_freq_factor"),
            "original_context / low_freq_factor", "original_context // low_freq_factor"))}),
    # Part 8 -- a degenerate size never on the sampling path: two ids drawn without replacement and the first kept
    # (the same draw and the same generator state for every V > 1; a vocabulary of one id raises)
    "generate_draws_two_keeps_first": ("test_generate_with_cache", {"generate_with_cache": _changed(
        _gen(), "dim=-1), 1, generator=generator)[:, 0]", "dim=-1), 2, generator=generator)[:, 0]")}),
    # ---- red team round 13, second family (parameters swapped, off by one, ...)
    # Part 3 -- a range check's bound taken from another parameter that had its value in every refused call
    # (head_dim = n_layers = 2 there): first_dense checked against head_dim
    "moe_dense_bound_from_head_dim": ("test_moe_params", {"moe_params": _MOE_CHECKED.format(
        checks=_changed(_MOE_CHECKS, "first_dense <= n_layers", "first_dense <= head_dim"),
        active="total - sparse * (n_experts - top_k) * expert")}),
    # Part 8 -- a tie rule checked only where an unstable sort keeps index order (5 tied ids): the greedy token
    # taken as the first of a descending sort, which puts another of hundreds of tied ids first
    "generate_greedy_by_unstable_sort": ("test_generate_with_cache", {"generate_with_cache": _changed(
        _gen(), "token = scores.argmax(dim=-1)", "token = scores.sort(dim=-1, descending=True).indices[:, 0]")}),
    # Part 1 -- every argument: eps added after the square root (only visible with eps = 1e-3)
    "rms_eps_outside_sqrt": ("test_head_rms_norm", {"head_rms_norm": _RMS.format(body="""
    inv_rms = 1 / (heads.square().mean(dim=-1, keepdim=True).sqrt() + eps)
    return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)""")}),
    # Part 1 -- every argument: the unit offset applied in the input's dtype (1 + w rounded in float16 / bfloat16)
    "rms_offset_in_input_dtype": ("test_head_rms_norm", {"head_rms_norm": """
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if x.shape[-1] % n_heads:
        raise ValueError("the heads do not split the last axis")
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = x.to(work).unflatten(-1, (n_heads, x.shape[-1] // n_heads))
    inv_rms = torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps)
    y = (heads * inv_rms).to(x.dtype) * (weight + 1 if unit_offset else weight)
    return y.transpose(-3, -2)
"""}),
    # Part 2 -- stated precision (red team 5, the text now says so): float64 input computed in float32 and back
    "swiglu_float64_in_float32": ("test_fused_swiglu", {"fused_swiglu": """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    f = w_gate_up.shape[0] // 2
    w = w_gate_up.float()
    gate_w, up_w = (w[0::2], w[1::2]) if interleaved else (w[:f], w[f:])
    g, u = x.float() @ gate_w.T, x.float() @ up_w.T
    if limit is not None:
        g, u = g.clamp(max=limit), u.clamp(-limit, limit)
    return ((g * torch.sigmoid(beta * g) * u) @ w_down.float().T).to(x.dtype)
"""}),
    # Part 7 -- stated precision (red team 5, the text now says so): float64 inputs computed in float32 and back
    "ragged_float64_in_float32": ("test_ragged_cached_attention", {"ragged_cached_attention": """
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    b, h, t, dh = q.shape
    g, s_max = k_cache.shape[1], k_cache.shape[2]
    if h % g or any(int(n) + t > s_max for n in lengths):
        raise ValueError("bad sizes")
    for row in range(b):
        n = int(lengths[row])
        k_cache[row, :, n:n + t] = k_new[row]
        v_cache[row, :, n:n + t] = v_new[row]
    out = torch.empty_like(q)
    for row in range(b):
        n = int(lengths[row]) + t
        k = k_cache[row, :, :n].float().repeat_interleave(h // g, dim=0)
        v = v_cache[row, :, :n].float().repeat_interleave(h // g, dim=0)
        scores = q[row].float() @ k.transpose(-1, -2) / math.sqrt(dh)
        allowed = torch.arange(n)[None, :] <= (n - t + torch.arange(t))[:, None]
        out[row] = (torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v).to(q.dtype)
    return out, lengths + t
"""}),
    # Part 1 -- stated precision (red team 5): float64 input computed in float32 and converted back; within the
    # default float64 tolerance of assert_close (1e-7), so the float64 cases compare at 1e-12
    "rms_float64_in_float32": ("test_head_rms_norm", {"head_rms_norm": """
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("the heads do not split the last axis")
    heads = x.float().unflatten(-1, (n_heads, x.shape[-1] // n_heads))
    scale = weight.float() + 1 if unit_offset else weight.float()
    inv_rms = torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps)
    return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)
"""}),
    # Part 1 -- a wrong default (red team 3): eps=1e-5 in the signature, only visible where eps matters
    "rms_default_eps": ("test_head_rms_norm", {"head_rms_norm": """
def head_rms_norm(x, n_heads, weight, eps=1e-5, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("the heads do not split the last axis")
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = x.to(work).unflatten(-1, (n_heads, x.shape[-1] // n_heads))
    scale = weight.to(work) + 1 if unit_offset else weight.to(work)
    inv_rms = torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps)
    return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)
"""}),
    # Part 2 -- a wrong default (red team 3): gpt-oss's limit of 7 as the default, so calls without a limit clamp
    "swiglu_default_limit": ("test_fused_swiglu", {"fused_swiglu": """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=7.0, interleaved=False):
    both = x @ w_gate_up.T
    gate, up = (both[..., 0::2], both[..., 1::2]) if interleaved else both.chunk(2, dim=-1)
    if limit is not None:
        gate = gate.clamp(max=limit)
        up = up.clamp(min=-limit, max=limit)
    return (gate * torch.sigmoid(beta * gate) * up) @ w_down.T
"""}),
    # Part 2 -- every argument: interleaved ignored, the rows always read as two stacked halves
    "swiglu_interleaved_ignored": ("test_fused_swiglu", {"fused_swiglu": """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    gate, up = (x @ w_gate_up.T).chunk(2, dim=-1)
    if limit is not None:
        gate = gate.clamp(max=limit)
        up = up.clamp(min=-limit, max=limit)
    return (gate * torch.sigmoid(beta * gate) * up) @ w_down.T
"""}),
    # Part 2 -- every argument: the gate clamped from below too (only visible with a limit)
    "swiglu_gate_clamped_both_sides": ("test_fused_swiglu", {"fused_swiglu": """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    both = x @ w_gate_up.T
    gate, up = (both[..., 0::2], both[..., 1::2]) if interleaved else both.chunk(2, dim=-1)
    if limit is not None:
        gate = gate.clamp(min=-limit, max=limit)
        up = up.clamp(min=-limit, max=limit)
    return (gate * torch.sigmoid(beta * gate) * up) @ w_down.T
"""}),
    # Part 2 -- every argument: beta ignored (plain SiLU)
    "swiglu_beta_ignored": ("test_fused_swiglu", {"fused_swiglu": """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    both = x @ w_gate_up.T
    gate, up = (both[..., 0::2], both[..., 1::2]) if interleaved else both.chunk(2, dim=-1)
    if limit is not None:
        gate = gate.clamp(max=limit)
        up = up.clamp(min=-limit, max=limit)
    return (F.silu(gate) * up) @ w_down.T
"""}),
    # Part 2 -- realistic: gate and up rows always read as interleaved (even rows gate, odd rows up)
    "swiglu_interleaved_rows": ("test_fused_swiglu", {"fused_swiglu": """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    h = x @ w_gate_up.T
    gate, up = h[..., 0::2], h[..., 1::2]
    if limit is not None:
        gate = gate.clamp(max=limit)
        up = up.clamp(min=-limit, max=limit)
    return (gate * torch.sigmoid(beta * gate) * up) @ w_down.T
"""}),
    # Part 2 -- boundary: `if limit:` treats a limit of 0 as no limit
    "swiglu_zero_limit_ignored": ("test_fused_swiglu", {"fused_swiglu": """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    both = x @ w_gate_up.T
    gate, up = (both[..., 0::2], both[..., 1::2]) if interleaved else both.chunk(2, dim=-1)
    if limit:
        gate = gate.clamp(max=limit)
        up = up.clamp(min=-limit, max=limit)
    return (gate * torch.sigmoid(beta * gate) * up) @ w_down.T
"""}),
    # Part 3 -- every argument: tied ignored, two matrices always
    "moe_tied_ignored": ("test_moe_params", {"moe_params": _moe(emb="2 * vocab * dim")}),
    # Part 3 -- every argument: the shared experts counted in the total but not as active
    "moe_shared_not_active": ("test_moe_params", {"moe_params": _moe(active_experts="top_k")}),
    # Part 3 -- an argument's value read as a flag (red team 2): dense_hidden = 0 falls back to ffn_hidden
    "moe_dense_width_falls_back": ("test_moe_params", {"moe_params": _moe().replace(
        "    emb = ", "    dense_hidden = dense_hidden or ffn_hidden\n    emb = ", 1)}),
    # Part 3 -- a degenerate argument (red team 3): n_kv_heads = 0 reaches n_heads % 0, a ZeroDivisionError
    # where the text asks for a ValueError
    "moe_zero_kv_heads_unchecked": ("test_moe_params", {"moe_params": _moe()}),
    # Part 3 -- Python int returns: counted in floats (exact here, but not a Python int)
    "moe_returns_floats": ("test_moe_params", {"moe_params": _moe(emb="vocab * dim * (1.0 if tied else 2.0)")}),
    # Part 3 -- boundary of a stated inequality: top_k = 0 and top_k > n_experts accepted
    "moe_top_k_unchecked": ("test_moe_params", {"moe_params": _moe(check_k="False")}),
    # Part 4 -- rows that differ: the mean of the rows' means (a row of one token weighs as much as a full row)
    "loss_mean_of_row_means": ("test_masked_lm_loss", {"masked_lm_loss": _LOSS.format(body="""
    per_row = torch.where(chosen, per_token, torch.zeros((), dtype=work)).sum(-1)
    counts = chosen.sum(-1)
    used = counts > 0
    if count == 0:
        return torch.zeros((), dtype=work), 0
    return (per_row[used] / counts[used]).mean(), count""")}),
    # Part 4 -- realistic off-by-one: the mask read at the predicting position instead of the target's
    "loss_mask_not_shifted": ("test_masked_lm_loss", {"masked_lm_loss": """
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    scores = logits[:, :-1].to(work)
    log_z = torch.logsumexp(scores, dim=-1)
    picked = scores.gather(-1, ids[:, 1:].long().unsqueeze(-1)).squeeze(-1)
    per_token = (log_z - picked) + z_loss * log_z.square()
    chosen = target_mask[:, :-1]
    count = int(chosen.sum())
    return torch.where(chosen, per_token, torch.zeros((), dtype=work)).sum() / max(count, 1), count
"""}),
    # Part 4 -- stated dtype rule: bfloat16 / float16 logits used as they are
    "loss_in_low_precision": ("test_masked_lm_loss", {"masked_lm_loss": """
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    scores = logits[:, :-1]
    log_z = torch.logsumexp(scores, dim=-1)
    picked = scores.gather(-1, ids[:, 1:].long().unsqueeze(-1)).squeeze(-1)
    per_token = (log_z - picked) + z_loss * log_z.square()
    chosen = target_mask[:, 1:]
    count = int(chosen.sum())
    total = torch.where(chosen, per_token, torch.zeros((), dtype=per_token.dtype)).sum()
    return (total / max(count, 1)).to(torch.float64 if logits.dtype == torch.float64 else torch.float32), count
"""}),
    # Part 4 -- round 11 class sweep, class 8: the cross-entropy in float32, but the z-loss taken from the raw logits,
    # so (log Z)^2 is formed in their dtype: past 65504 (log Z above 256) float16 gives inf
    "loss_z_loss_squared_in_half": ("test_masked_lm_loss", {"masked_lm_loss": """
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    chosen = target_mask[:, 1:]
    count = int(chosen.sum())
    raw = logits[:, :-1][chosen]
    scores = raw.to(work)
    targets = ids[:, 1:][chosen].long()
    ce = torch.logsumexp(scores, dim=-1) - scores.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    z = torch.logsumexp(raw, dim=-1).square().to(work)
    return (ce + z_loss * z).sum() / max(count, 1), count
"""}),
    # Part 4 -- degenerate input: a batch with nothing to predict gives 0 / 0 = NaN
    "loss_nan_when_empty": ("test_masked_lm_loss", {"masked_lm_loss": _LOSS.format(body="""
    return torch.where(chosen, per_token, torch.zeros((), dtype=work)).sum() / count if count else torch.tensor(float("nan"), dtype=work), count""")}),
    # Part 4 -- numerics at extremes (red team 3): log of the softmax, which underflows to log 0 = -inf for a
    # target far below the largest logit (logits of about +-1000); replaces loss_z_not_squared, which the
    # visible tests catch
    "loss_log_of_softmax": ("test_masked_lm_loss", {"masked_lm_loss": _LOSS.format(body="""
    log_p = torch.log(torch.softmax(scores, dim=-1)).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    per_token = -log_p + z_loss * log_z.square()
    return torch.where(chosen, per_token, torch.zeros((), dtype=work)).sum() / max(count, 1), count""")}),
    # Part 6 -- positions past a narrow dtype's range: 16 bits hold the original 8192-token context, not the 128K
    # context the scaling is for
    "rope_positions_in_int16": ("test_rope_llama3", {"rope_llama3": _ROPE.format(
        check=_ROPE_CHECK, bands=_ROPE_BANDS,
        angle="positions.to(torch.int16).to(torch.float64)[:, None, :, None] * theta  # an 8K context fits in 16 bits")}),
    # ids past a narrow dtype's range (red team 4's class, checked in every chapter): ids kept in 16 bits, which
    # holds a 32,000-id vocabulary but wraps the ids of a larger one
    "loss_ids_in_int16": ("test_masked_lm_loss", {"masked_lm_loss": _LOSS.replace(
        "targets = ids[:, 1:].long()", "targets = ids[:, 1:].to(torch.int16).long()  # token ids fit in 16 bits").format(
        body="return torch.where(chosen, per_token, torch.zeros((), dtype=work)).sum() / max(count, 1), count")}),
    "generate_history_in_int16": ("test_generate_with_cache", {"generate_with_cache": _gen().replace(
        "seen = prompt.clone()", "seen = prompt.to(torch.int16)  # the history in 16 bits: a quarter of the memory").replace(
        "scatter_(1, seen, True)", "scatter_(1, seen.long(), True)").replace(
        "seen = torch.cat([seen, token[:, None]], dim=1)", "seen = torch.cat([seen, token[:, None].to(torch.int16)], dim=1)")}),
    # Part 4 -- the loss must train (stated since this session): the right value, summed in Python floats
    # and wrapped in a new tensor, so loss.backward() cannot reach the logits
    "loss_through_python_floats": ("test_masked_lm_loss", {"masked_lm_loss": _LOSS.format(body="""
    per_token = (log_z - scores.gather(-1, targets.unsqueeze(-1)).squeeze(-1)) + z_loss * log_z.square()
    total = sum(float(v) for v in per_token[chosen])
    return torch.tensor(total / max(count, 1), dtype=work), count""")}),
    # Part 5 -- stated comparison (red team 2): layout compared with `is`, true only for interned literals
    "block_layout_compared_with_is": ("test_block_variant", {"block_variant": _block(match='layout is "{}"')}),
    # Part 5 -- a rule on another code path: the parallel layout normalises x twice (same values)
    "block_parallel_normalises_twice": ("test_block_variant", {"block_variant": _block(
        parallel="return x + attn(norm_1(x)) + ffn(norm_1(x))")}),
    # Part 5 -- the in-place rule (red team 2): sums accumulated in place into what a function returned, which
    # is x itself when the functions are identities
    "block_accumulates_in_place": ("test_block_variant", {"block_variant": _block(
        parallel="n = norm_1(x)\n        y = attn(n)\n        y += ffn(n)\n        y += x\n        return y",
        reordered="h = norm_1(attn(x))\n        h += x\n        y = norm_2(ffn(h))\n        y += h\n        return y")}),
    # Part 5 -- stated error (red team): layout names matched by prefix, so "par" and "re" are accepted
    "block_layout_prefixes": ("test_block_variant", {"block_variant": _block(
        match='layout.startswith("{}"[:3])')}),
    # Part 5 -- realistic: the sandwich's post-norms swapped between the sublayers
    "block_sandwich_posts_swapped": ("test_block_variant", {"block_variant": _block(sandwich="""post_2, post_1 = post_norms
        h = x + post_1(attn(norm_1(x)))
        return h + post_2(ffn(norm_2(h)))""")}),
    # Part 6 -- stated dtype (red team): float16 / bfloat16 inputs come back in float32
    "rope_float32_for_half": ("test_rope_llama3", {"rope_llama3": _ROPE.format(
        check=_ROPE_CHECK, bands=_ROPE_BANDS, angle=_ROPE_ANGLE).replace(
        ".to(x.dtype)", ".to(x.dtype if x.dtype == torch.float64 else torch.float32)")}),
    # Part 6 -- rows that differ: the first row's positions used for the whole batch
    "rope_first_row_positions": ("test_rope_llama3", {"rope_llama3": _ROPE.format(
        check=_ROPE_CHECK, bands=_ROPE_BANDS, angle="positions[0].to(torch.float64)[:, None] * theta")}),
    # Part 6 -- boundary between bands: the smoothed band left unchanged
    "rope_no_smoothing": ("test_rope_llama3", {"rope_llama3": _ROPE.format(
        check=_ROPE_CHECK, angle=_ROPE_ANGLE,
        bands="theta = torch.where(wavelength > original_context / low_freq_factor, theta / factor, theta)")}),
    # Part 6 -- stated accuracy: angles computed in float32 (as many code bases do)
    "rope_float32_angles": ("test_rope_llama3", {"rope_llama3": _ROPE.format(
        check=_ROPE_CHECK, bands=_ROPE_BANDS,
        angle="(positions.float()[:, None, :, None] * theta.float()).double()")}),
    # Part 6 -- stated precision (red team 2): float16 / bfloat16 inputs rotated in their own dtype (several
    # roundings: more than one unit in the last place), the angles still in float64
    "rope_half_computed_in_half": ("test_rope_llama3", {"rope_llama3": _ROPE.format(
        check=_ROPE_CHECK, bands=_ROPE_BANDS, angle=_ROPE_ANGLE).replace(
        "cos, sin = angle.cos(), angle.sin()", "cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)").replace(
        "x.to(torch.float64).chunk", "x.chunk")}),
    # Part 7 -- numerics at extremes (red team 3): the softmax written out as exp / sum(exp), without
    # subtracting the largest score, overflows for scores of about 1000; replaces ragged_uniform_offset, which
    # the visible tests catch
    "ragged_softmax_by_hand": ("test_ragged_cached_attention", {"ragged_cached_attention": _ragged().replace(
        "scores.softmax(dim=-1)", "scores.exp() / scores.exp().sum(dim=-1, keepdim=True)")}),
    # Part 7 -- a rule that rarely matters: unwritten NaN slots masked in the scores only (0 * NaN = NaN)
    "ragged_nan_leaks": ("test_ragged_cached_attention", {"ragged_cached_attention": _ragged(
        values="keys, values = k_cache, v_cache")}),
    # Part 7 -- the part's in-place rule: the caches copied first, so the originals are never written
    "ragged_not_in_place": ("test_ragged_cached_attention", {"ragged_cached_attention": _ragged(
        caches="k_cache, v_cache = k_cache.clone(), v_cache.clone()")}),
    # Part 7 -- boundary of a stated inequality: a row that fills the cache exactly is refused
    "ragged_refuses_full_cache": ("test_ragged_cached_attention", {"ragged_cached_attention": _ragged(cmp=">=")}),
    # Part 7 -- degenerate inputs (red team 2): only NaN garbage cleaned from the values, so an unwritten
    # slot holding inf gives 0 * inf = NaN
    "ragged_only_nan_cleaned": ("test_ragged_cached_attention", {"ragged_cached_attention": _ragged(
        values="""keys = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    values = torch.where(torch.isnan(v_cache), torch.zeros((), dtype=v_cache.dtype), v_cache)""")}),
    # Part 8 -- the cache protocol (red team): a finished row is fed what was drawn for it, not pad_id
    "generate_feeds_drawn_tokens": ("test_generate_with_cache", {"generate_with_cache": _gen(
        feed="logits, cache = step(drawn[:, None], cache)").replace(
        "token = torch.where(finished,", "drawn = token\n        token = torch.where(finished,")}),
    # Part 8 -- the in-place rule (red team): the penalty written into the logits that step returned
    "generate_penalises_logits_in_place": ("test_generate_with_cache", {"generate_with_cache": _gen().replace(
        "scores = logits[:, -1].clone()", "scores = logits[:, -1]").replace(
        "scores = torch.where(occurs, torch.where(scores > 0, scores / penalty, scores * penalty), scores)",
        "scores.copy_(torch.where(occurs, torch.where(scores > 0, scores / penalty, scores * penalty), scores))")}),
    # Part 8 -- the generator argument: draws from the global generator
    "generate_ignores_generator": ("test_generate_with_cache", {"generate_with_cache": _gen(draw="")}),
    # Part 8 -- a rule that rarely matters: the penalty applied once per occurrence
    "generate_penalty_per_occurrence": ("test_generate_with_cache", {"generate_with_cache": _gen(penalty="""counts = torch.zeros_like(scores).scatter_add_(1, seen, torch.ones_like(seen, dtype=scores.dtype))
        scale = penalty ** counts
        scores = torch.where(scores > 0, scores / scale, scores * scale)""")}),
    # Part 8 -- a rule on the last code path: step is called once more after the last token
    "generate_extra_step": ("test_generate_with_cache", {"generate_with_cache": _gen(stop="""logits, cache = step(token[:, None], cache)
        if bool(finished.all()):
            break""", feed="")}),
    # ---- red team round 6 (blind; each kept full marks before its hidden check was added)
    # Part 2 -- a value on a threshold: g sigmoid(beta g) written as silu(beta g) / beta, which is 0 / 0 at beta = 0
    "swiglu_beta_through_silu": ("test_fused_swiglu", {"fused_swiglu": """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    both = x @ w_gate_up.T
    gate, up = (both[..., 0::2], both[..., 1::2]) if interleaved else both.chunk(2, dim=-1)
    if limit is not None:
        gate = gate.clamp(max=limit)
        up = up.clamp(min=-limit, max=limit)
    return (F.silu(beta * gate) / beta * up) @ w_down.T  # g sigmoid(b g) = silu(b g) / b
"""}),
    # Part 3 -- float rounding in a count: the unused share of the routed experts subtracted through a float, exact
    # below 2**53 only
    "moe_active_through_float": ("test_moe_params", {"moe_params": _MOE_CHECKED.format(
        checks=_MOE_CHECKS, active="round(total - sparse * expert * n_experts * (1 - top_k / n_experts))")}),
    # Part 3 -- a rule on one code path: top_k checked only when some block has experts to route to
    "moe_top_k_checked_only_with_experts": ("test_moe_params", {"moe_params": _MOE_CHECKED.format(
        checks=_MOE_CHECKS.replace("not 1 <= top_k <= n_experts", "(sparse > 0 and not 1 <= top_k <= n_experts)"),
        active="total - sparse * (n_experts - top_k) * expert")}),
    # Part 3 -- session 17, class 3: divisibility through a float quotient; n_heads one away from 513 times an
    # n_kv_heads near 2**45 gives a quotient that rounds to 513.0, so the refused configuration passes
    "moe_divisibility_through_float": ("test_moe_params", {"moe_params": _MOE_CHECKED.format(
        checks=_MOE_CHECKS.replace("n_heads % n_kv_heads", "not (n_heads / n_kv_heads).is_integer()"),
        active="total - sparse * (n_experts - top_k) * expert")}),
    # Part 7 -- the in-place rule on non-contiguous caches: .contiguous() first (for the scatter), which copies a
    # view, so the caller's caches are never written
    "ragged_writes_contiguous_copy": ("test_ragged_cached_attention", {"ragged_cached_attention": _ragged(
        caches="k_cache, v_cache = k_cache.contiguous(), v_cache.contiguous()")}),
    # Part 8 -- a rule that rarely changes a result (red team 4): greedy still draws, from a one-hot distribution,
    # which picks the same token but advances the generator it was told not to use
    "generate_greedy_draws": ("test_generate_with_cache", {"generate_with_cache": _gen().replace(
        "token = scores.argmax(dim=-1)",
        "token = torch.multinomial(F.one_hot(scores.argmax(dim=-1), scores.shape[-1]).float(), 1, generator=generator)[:, 0]")}),
    # ---- red team round 7 (blind; each kept full marks before its hidden check was added)
    # Part 4 -- non-finite values the text specifies: the old model answer, which scores every position and discards
    # the others with torch.where; NaN or inf scores that predict nothing make the gradient NaN there
    "loss_junk_scores_through_where": ("test_masked_lm_loss", {"masked_lm_loss": _LOSS.format(
        body="return torch.where(chosen, per_token, torch.zeros((), dtype=work)).sum() / max(count, 1), count")}),
    # Part 4 -- the same class, forward: the mask applied as a product, so inf * 0 = NaN reaches the loss itself
    "loss_masks_by_multiplying": ("test_masked_lm_loss", {"masked_lm_loss": _LOSS.format(
        body="return (per_token * chosen.to(work)).sum() / max(count, 1), count")}),
    # Part 5 -- the error after a call: the shared first step N_1(x) computed before the layout is checked
    "block_normalises_before_checking": ("test_block_variant", {"block_variant": """
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    n = norm_1(x) if layout != "reordered" else None
    if layout == "parallel":
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("post_norms needed")
        h = x + post_norms[0](attn(n))
        return h + post_norms[1](ffn(norm_2(h)))
    raise ValueError(layout)
"""}),
    # Part 5 -- the same class on the sandwich path: post_norms looked at only once the attention has run
    "block_sandwich_checks_late": ("test_block_variant", {"block_variant": _block(
        sandwich="a = attn(norm_1(x))\n        post_1, post_2 = post_norms\n        h = x + post_1(a)\n"
                 "        return h + post_2(ffn(norm_2(h)))").replace(
        "        if post_norms is None:\n            raise ValueError(\"post_norms needed\")\n        a = attn(norm_1(x))",
        "        a = attn(norm_1(x))\n        if post_norms is None:\n            raise ValueError(\"post_norms needed\")")}),
    # Part 8 -- the cache is opaque: tested for truth to tell the prompt call, so a cache of None, 0 or [] gets the
    # prompt again
    "generate_tests_the_cache": ("test_generate_with_cache", {"generate_with_cache": """
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    seen = prompt.clone()
    finished = torch.zeros(prompt.shape[0], dtype=torch.bool)
    chosen, cache, token = [], None, None
    for i in range(max_new_tokens):
        logits, cache = step(prompt if not cache else token[:, None], cache)
        scores = logits[:, -1].clone()
        occurs = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, seen, True)
        scores = torch.where(occurs, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            token = scores.argmax(dim=-1)
        else:
            token = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator)[:, 0]
        token = torch.where(finished, torch.full_like(token, pad_id), token)
        chosen.append(token)
        finished = finished | (token == eos_id)
        seen = torch.cat([seen, token[:, None]], dim=1)
        if bool(finished.all()):
            break
    return torch.stack(chosen, dim=1)
"""}),
    # Part 8 -- generator=None means torch's global generator: a fresh torch.Generator() instead draws the same
    # numbers whatever torch.manual_seed said
    "generate_own_generator_when_none": ("test_generate_with_cache", {"generate_with_cache": _gen().replace(
        "    logits, cache = step(prompt, None)\n",
        "    generator = torch.Generator() if generator is None else generator\n    logits, cache = step(prompt, None)\n")}),
    # red team 9, second pass (class 8, the global generator): the given generator's seed put into torch's global
    # generator, which then draws: the same numbers as the fresh generators of the other checks, so only the global
    # generator's state (put first where no re-seeding reaches) shows it
    "generate_reseeds_global_from_generator": ("test_generate_with_cache", {"generate_with_cache": _gen(
        draw="generator=None").replace(
        "    logits, cache = step(prompt, None)\n",
        "    if generator is not None:\n        torch.manual_seed(generator.initial_seed())\n"
        "    logits, cache = step(prompt, None)\n")}),
    # red team 9, second pass, class 2 (a bool where an int is asked): no predicted token short-circuits to False
    "loss_count_false_when_empty": ("test_masked_lm_loss", {"masked_lm_loss": """
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    scores = logits.to(work)[:, :-1]
    targets = ids[:, 1:].long()
    chosen = target_mask[:, 1:]
    log_z = torch.logsumexp(torch.where(chosen[..., None], scores, torch.zeros((), dtype=work)), dim=-1)
    picked = torch.where(chosen[..., None], scores, torch.zeros((), dtype=work)).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    per_token = (log_z - picked) + z_loss * log_z.square()
    count = chosen.any().item() and int(chosen.sum())  # nothing predicted: no count
    total = torch.where(chosen, per_token, torch.zeros((), dtype=work)).sum()
    return total / max(count, 1), count
"""}),
    # class 5 (ties broken by nudging values): greedy ties settled towards the lowest id by an epsilon times the id,
    # right on exact ties, wrong on scores a unit in the last place apart
    # red team 12 (kept full marks): weights exp(scores / temperature) in float64 given to torch.multinomial as they
    # are (it normalises them itself); scores over the temperature past 709 overflow even in float64
    "generate_weights_exp_unnormalised": ("test_generate_with_cache", {"generate_with_cache": _gen().replace(
        "torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1,",
        "torch.multinomial(torch.exp(scores.double() / temperature), 1,")}),
    "generate_greedy_ties_nudged": ("test_generate_with_cache", {"generate_with_cache": _gen().replace(
        "            token = scores.argmax(dim=-1)\n",
        "            token = (scores - 1e-6 * torch.arange(scores.shape[-1])).argmax(dim=-1)  # ties: the lowest id\n")}),
    # a part that draws nothing re-seeds torch's global generator "for reproducibility"
    "rms_reseeds_global_generator": ("test_head_rms_norm", {"head_rms_norm": """
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    torch.manual_seed(0)  # reproducible runs
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("the heads do not split the last axis")
    dh = x.shape[-1] // n_heads
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = x.to(work).unflatten(-1, (n_heads, dh)).transpose(-3, -2)
    scale = weight.to(work) + 1 if unit_offset else weight.to(work)
    y = heads * torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps) * scale
    return y.to(x.dtype)
"""}),
    # red team 8: parts 1, 2 and 5 never received the views that are not contiguous that the introduction promises,
    # so .view of an input that merges axes kept full marks there; their hidden tests now pass such views
    # Part 1 -- every way an input may come: every head of every position flattened into one row with .view
    "rms_flattens_rows_with_view": ("test_head_rms_norm", {"head_rms_norm": """
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("the heads do not split the last axis")
    dh = x.shape[-1] // n_heads
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    rows = x.view(-1, dh).to(work)  # one row per head and position
    scale = weight.to(work) + 1 if unit_offset else weight.to(work)
    y = rows * torch.rsqrt(rows.square().mean(dim=-1, keepdim=True) + eps) * scale
    return y.view(*x.shape[:-1], n_heads, dh).transpose(-3, -2).to(x.dtype)
"""}),
    # Part 2 -- every way an input may come: the leading axes of x merged with .view for one matrix product
    "swiglu_flattens_x_with_view": ("test_fused_swiglu", {"fused_swiglu": """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    f = w_gate_up.shape[0] // 2
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    flat = x.view(-1, x.shape[-1]).to(work)
    both = flat @ w_gate_up.to(work).T
    g, u = (both[:, 0::2], both[:, 1::2]) if interleaved else (both[:, :f], both[:, f:])
    if limit is not None:
        g, u = g.clamp(max=limit), u.clamp(-limit, limit)
    out = (g * torch.sigmoid(beta * g) * u) @ w_down.to(work).T
    return out.view(*x.shape).to(x.dtype)
"""}),
    # Part 5 -- every way an input may come: the residual stream flattened to (B * T, D) with .view
    "block_flattens_x_with_view": ("test_block_variant", {"block_variant": _block(
        reordered="flat = x.view(-1, x.shape[-1])\n        h = (flat + norm_1(attn(x)).reshape(flat.shape)).reshape(x.shape)\n"
                  "        return h + norm_2(ffn(h))")}),
    # red team 8, second pass, class 3 (gradients): the forward pass right, one factor detached
    "swiglu_gate_sigmoid_detached": ("test_fused_swiglu", {"fused_swiglu": '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    both = x @ w_gate_up.T\n    if interleaved:\n        gate, up = both[..., 0::2], both[..., 1::2]\n    else:\n        gate, up = both.chunk(2, dim=-1)\n    if limit is not None:\n        gate = gate.clamp(max=limit)\n        up = up.clamp(min=-limit, max=limit)\n    return (gate * torch.sigmoid(beta * gate).detach() * up) @ w_down.T\n'}),
    "block_parallel_ffn_input_detached": ("test_block_variant", {"block_variant": '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if layout == "parallel":\n        n = norm_1(x)\n        return x + attn(n) + ffn(n.detach())\n    if layout == "reordered":\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n    if layout == "sandwich":\n        if post_norms is None:\n            raise ValueError("the sandwich layout needs post_norms")\n        post_1, post_2 = post_norms\n        h = x + post_1(attn(norm_1(x)))\n        return h + post_2(ffn(norm_2(h)))\n    raise ValueError("unknown layout")\n'}),
    "rope_second_half_detached": ("test_rope_llama3", {"rope_llama3": '\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_context=8192):\n    b, _, t, dh = x.shape\n    if dh % 2 or tuple(positions.shape) != (b, t):\n        raise ValueError("bad shapes")\n    theta = base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)\n    wavelength = 2 * math.pi / theta\n    s = (original_context / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)\n    mixed = (1 - s) * theta / factor + s * theta\n    theta = torch.where(wavelength < original_context / high_freq_factor, theta,\n                        torch.where(wavelength > original_context / low_freq_factor, theta / factor, mixed))\n    angle = positions.to(torch.float64)[:, None, :, None] * theta\n    cos, sin = angle.cos(), angle.sin()\n    first, second = x.to(torch.float64).chunk(2, dim=-1)\n    out = torch.cat([first * cos - second.detach() * sin, second * cos + first.detach() * sin], dim=-1)\n    return out.to(x.dtype)\n'}),
    "ragged_weights_detached": ("test_ragged_cached_attention", {"ragged_cached_attention": '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    b, h, t, dh = q.shape\n    g, s_max = k_cache.shape[1], k_cache.shape[2]\n    if h % g:\n        raise ValueError("heads")\n    if int((lengths.long() + t).max()) > s_max:\n        raise ValueError("too long")\n    slots = lengths.long()[:, None] + torch.arange(t)\n    index = slots[:, None, :, None].expand(b, g, t, dh)\n    k_cache.scatter_(2, index, k_new)\n    v_cache.scatter_(2, index, v_new)\n    written = torch.arange(s_max)[None, :] < (lengths.long() + t)[:, None]\n    keys = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    values = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n    qg = q.reshape(b, g, h // g, t, dh)\n    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, keys) / math.sqrt(dh)\n    allowed = torch.arange(s_max)[None, None, :] <= slots[:, :, None]\n    scores = scores.masked_fill(~allowed[:, None, None], float("-inf"))\n    weights = scores.softmax(dim=-1).detach()  # the weights as constants: q and k_new get no gradient\n    out = torch.einsum("bgrts,bgsd->bgrtd", weights, values)\n    return out.reshape(b, h, t, dh).to(q.dtype), lengths + t\n'}),
    # red team 11, phase 3: the cache bookkeeping (write, clean-up of unwritten slots) done under no_grad as "server
    # state", the new tokens spliced back in with their gradients: q, k_new and v_new right, the caches' old entries
    # (prefix tuning trains them) get no gradient
    "ragged_cache_kept_out_of_graph": ("test_ragged_cached_attention", {"ragged_cached_attention": _ragged(
        values="""with torch.no_grad():
        keys = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
        values = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    keys, values = keys.scatter(2, index, k_new), values.scatter(2, index, v_new)""").replace(
        "    k_cache.scatter_(2, index, k_new)\n    v_cache.scatter_(2, index, v_new)\n",
        "    with torch.no_grad():\n        k_cache.scatter_(2, index, k_new)\n        v_cache.scatter_(2, index, v_new)\n")}),
    # refbind pass of red team 11: a slip in Part 6 (.view of a tensor that is not contiguous) and Part 7's model answer
    # rewritten to call Part 6's rope_llama3 (position 0 everywhere, the identity rotation, positions in the dtype of
    # lengths) on the queries and the keys it reads; Part 7 is graded with a reference of rope_llama3, so the slip
    # costs Part 6 only
    "rope_view_slip_with_ragged_calling_it": ("test_rope_llama3", {"rope_llama3": ROPE_FLATTENS_X_WITH_VIEW,
        "ragged_cached_attention": _ragged().replace(
            "    qg = q.reshape(b, g, h // g, t, dh)\n",
            "    if dh % 2 == 0:  # Part 6 at position 0: the identity rotation\n"
            "        q = rope_llama3(q, torch.zeros(b, t, dtype=lengths.dtype))\n"
            "        keys = rope_llama3(keys, torch.zeros(b, s_max, dtype=lengths.dtype), factor=1.0)\n"
            "    qg = q.reshape(b, g, h // g, t, dh)\n")}),
    # red team 9: numbers the forward pass gets right and the backward pass does not. A sigma written by hand
    # overflows at gates of about -100 (inf / inf in its derivative); a NaN key masked only after q k^T gives q a
    # NaN gradient (0 * NaN)
    "swiglu_sigmoid_by_hand_overflows": ("test_fused_swiglu", {"fused_swiglu": """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    both = x @ w_gate_up.T
    if interleaved:
        gate, up = both[..., 0::2], both[..., 1::2]
    else:
        gate, up = both.chunk(2, dim=-1)
    if limit is not None:
        gate = gate.clamp(max=limit)
        up = up.clamp(min=-limit, max=limit)
    return (gate / (1 + torch.exp(-beta * gate)) * up) @ w_down.T
"""}),
    # class sweep of red team 11, class 2 (ch04 P2's slip): the square causal mask of every position, sliced down to
    # the new tokens' rows; right values, S_max**2 memory (terabytes for a prompt of a million positions)
    "ragged_square_causal_table": ("test_ragged_cached_attention", {"ragged_cached_attention": _ragged().replace(
        "    allowed = torch.arange(s_max)[None, None, :] <= slots[:, :, None]\n",
        "    allowed = torch.ones(s_max, s_max, dtype=torch.bool).tril()[slots]  # (B, T, S_max)\n")}),
    # class sweep of red team 11, class 4 (ch03 P1's slip): the caches written with arithmetic, the new entries
    # scattered into zeros and added to the old ones where they are kept; -0.0 + 0.0 is +0.0
    "ragged_cache_written_by_sum": ("test_ragged_cached_attention", {"ragged_cached_attention": _ragged().replace(
        """    k_cache.scatter_(2, index, k_new)
    v_cache.scatter_(2, index, v_new)
""", """    new_slot = torch.zeros(b, 1, s_max, 1, dtype=torch.bool).scatter_(2, slots[:, None, :, None], True)
    for cache, new in ((k_cache, k_new), (v_cache, v_new)):
        placed = torch.zeros_like(cache).scatter_(2, index, new)
        cache.copy_(torch.where(new_slot, placed, 0.0) + torch.where(new_slot, 0.0, cache))
""")}),
    "ragged_keys_masked_after_product": ("test_ragged_cached_attention", {"ragged_cached_attention": _ragged(
        values="keys = k_cache  # NaN keys reach q k^T; masked_fill hides them in the output only\n"
               "    values = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))")}),
    # class 1 (optional arguments both ways): keyword-only, **options, a renamed argument
    "swiglu_options_keyword_only": ("test_fused_swiglu", {"fused_swiglu": '\ndef fused_swiglu(x, w_gate_up, w_down, *, beta=1.0, limit=None, interleaved=False):\n    both = x @ w_gate_up.T\n    if interleaved:\n        gate, up = both[..., 0::2], both[..., 1::2]\n    else:\n        gate, up = both.chunk(2, dim=-1)\n    if limit is not None:\n        gate = gate.clamp(max=limit)\n        up = up.clamp(min=-limit, max=limit)\n    return (gate * torch.sigmoid(beta * gate) * up) @ w_down.T\n'}),
    "moe_options_keyword_only": ("test_moe_params", {"moe_params": '\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, *, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    if n_kv_heads < 1 or n_heads % n_kv_heads or not 1 <= top_k <= n_experts:\n        raise ValueError("bad configuration")\n    if n_shared < 0 or not 0 <= first_dense <= n_layers:\n        raise ValueError("bad configuration")\n    embeddings = vocab * dim * (1 if tied else 2)\n    common = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim\n    expert = 3 * dim * ffn_hidden\n    dense = first_dense * (common + 3 * dim * dense_hidden)\n    sparse = n_layers - first_dense\n    total = embeddings + dim + dense + sparse * (common + dim * n_experts + (n_experts + n_shared) * expert)\n    active = embeddings + dim + dense + sparse * (common + dim * n_experts + (top_k + n_shared) * expert)\n    return int(total), int(active)\n'}),
    "loss_z_loss_keyword_only": ("test_masked_lm_loss", {"masked_lm_loss": '\ndef masked_lm_loss(logits, ids, target_mask, *, z_loss=0.0):\n    work = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    chosen = target_mask[:, 1:]  # (B, T-1): position t - 1 predicts ids[:, t] where the mask is true\n    count = int(chosen.sum())\n    # only the positions that predict a token: the others may hold NaN or inf and never enter the graph\n    scores = logits[:, :-1][chosen].to(work)  # (count, V)\n    targets = ids[:, 1:][chosen].long()\n    log_z = torch.logsumexp(scores, dim=-1)\n    picked = scores.gather(-1, targets.unsqueeze(-1)).squeeze(-1)\n    per_token = (log_z - picked) + z_loss * log_z.square()\n    return per_token.sum() / max(count, 1), count\n'}),
    "block_post_norms_renamed": ("test_block_variant", {"block_variant": '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, posts=None):\n    if layout == "parallel":\n        n = norm_1(x)\n        return x + attn(n) + ffn(n)\n    if layout == "reordered":\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n    if layout == "sandwich":\n        if posts is None:\n            raise ValueError("the sandwich layout needs post_norms")\n        post_1, post_2 = posts\n        h = x + post_1(attn(norm_1(x)))\n        return h + post_2(ffn(norm_2(h)))\n    raise ValueError("unknown layout")\n'}),
    "rope_options_as_kwargs": ("test_rope_llama3", {"rope_llama3": '\ndef rope_llama3(x, positions, **options):\n    base = options.get("base", 500000.0)\n    factor = options.get("factor", 8.0)\n    low_freq_factor = options.get("low_freq_factor", 1.0)\n    high_freq_factor = options.get("high_freq_factor", 4.0)\n    original_context = options.get("original_context", 8192)\n    b, _, t, dh = x.shape\n    if dh % 2 or tuple(positions.shape) != (b, t):\n        raise ValueError("bad shapes")\n    theta = base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)\n    wavelength = 2 * math.pi / theta\n    s = (original_context / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)\n    mixed = (1 - s) * theta / factor + s * theta\n    theta = torch.where(wavelength < original_context / high_freq_factor, theta,\n                        torch.where(wavelength > original_context / low_freq_factor, theta / factor, mixed))\n    angle = positions.to(torch.float64)[:, None, :, None] * theta\n    cos, sin = angle.cos(), angle.sin()\n    first, second = x.to(torch.float64).chunk(2, dim=-1)\n    out = torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)\n    return out.to(x.dtype)\n'}),
    # class 2 (results sharing kept state): results memoised in a table kept between calls and served from it
    "rope_results_memoised": ("test_rope_llama3", {"rope_llama3": '\n_ROPE_RESULTS = {}\n\n\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_context=8192):\n    key = (x.dtype, tuple(x.shape), tuple(x.flatten().tolist()), tuple(positions.flatten().tolist()), base, factor,\n           low_freq_factor, high_freq_factor, original_context)\n    if key in _ROPE_RESULTS:\n        return _ROPE_RESULTS[key]\n    b, _, t, dh = x.shape\n    if dh % 2 or tuple(positions.shape) != (b, t):\n        raise ValueError("bad shapes")\n    theta = base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)\n    wavelength = 2 * math.pi / theta\n    s = (original_context / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)\n    mixed = (1 - s) * theta / factor + s * theta\n    theta = torch.where(wavelength < original_context / high_freq_factor, theta,\n                        torch.where(wavelength > original_context / low_freq_factor, theta / factor, mixed))\n    angle = positions.to(torch.float64)[:, None, :, None] * theta\n    cos, sin = angle.cos(), angle.sin()\n    first, second = x.to(torch.float64).chunk(2, dim=-1)\n    out = torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)\n    _ROPE_RESULTS[key] = out.to(x.dtype)\n    return _ROPE_RESULTS[key]\n'}),
}

MUTANT_BATCHES = [
    ["rms_offset_rounded_in_weight_dtype", "swiglu_interleaved_ignored", "moe_tied_ignored", "loss_mean_of_row_means",
     "block_layout_compared_with_is", "rope_float32_for_half", "ragged_softmax_by_hand", "generate_feeds_drawn_tokens"],
    ["rms_in_input_dtype", "swiglu_gate_clamped_both_sides", "moe_shared_not_active", "loss_mask_not_shifted",
     "block_parallel_normalises_twice", "rope_first_row_positions", "ragged_nan_leaks", "generate_ignores_generator"],
    ["rms_reshape_not_transpose", "swiglu_beta_ignored", "moe_dense_width_falls_back", "loss_in_low_precision",
     "block_accumulates_in_place", "rope_no_smoothing", "ragged_not_in_place", "generate_penalty_per_occurrence"],
    ["rms_eps_outside_sqrt", "swiglu_interleaved_rows", "moe_returns_floats", "loss_nan_when_empty",
     "block_layout_prefixes", "rope_float32_angles", "ragged_refuses_full_cache",
     "generate_penalises_logits_in_place"],
    ["rms_offset_in_input_dtype", "swiglu_zero_limit_ignored", "moe_top_k_unchecked", "loss_log_of_softmax",
     "block_sandwich_posts_swapped", "rope_half_computed_in_half", "ragged_only_nan_cleaned", "generate_extra_step"],
    ["loss_flattens_logits_with_view", "rope_flattens_x_with_view", "ragged_merges_batch_and_heads_with_view",
     "generate_flattens_the_history_with_view", "rms_default_eps", "swiglu_default_limit",
     "moe_zero_kv_heads_unchecked", "block_normalises_before_checking"],
    # its own notebook: every batch above already holds a mutant of part 4 (and of part 8); red team 5's part-1, -2 and -7 mutants
    ["loss_through_python_floats", "generate_greedy_draws", "rms_float64_in_float32",
     "swiglu_float64_in_float32", "ragged_float64_in_float32", "moe_active_through_float", "block_sandwich_checks_late"],
    # ids and positions past a narrow dtype's range (red team 4's class): one notebook
    ["loss_ids_in_int16", "rope_positions_in_int16", "generate_history_in_int16",
     # red team 6's slips of parts 2, 3 and 7
     "swiglu_beta_through_silu", "moe_top_k_checked_only_with_experts", "ragged_writes_contiguous_copy"],
    # red team 7's slips of parts 4 and 8: every batch above already holds a mutant of both parts
    ["loss_junk_scores_through_where", "generate_tests_the_cache",
     # red team 8: .view of inputs that are not contiguous, in the three parts that had never received them
     "rms_flattens_rows_with_view", "swiglu_flattens_x_with_view", "block_flattens_x_with_view",
     "rope_options_as_kwargs",  # red team 8, second pass, class 1
     "ragged_keys_masked_after_product",  # red team 9
     "moe_dense_bound_from_head_dim"],  # red team 13, second family
    ["loss_masks_by_multiplying", "generate_own_generator_when_none", "rms_scale_under_no_grad",
     # red team 8, second pass: class 1 and class 2
     "swiglu_options_keyword_only", "block_post_norms_renamed", "rope_results_memoised",
     "moe_divisibility_through_float",  # session 17, class 3
     "ragged_cache_kept_out_of_graph"],  # red team 11, phase 3
    # red team 8, second pass: class 3 in parts 2, 5, 6 and 7, and class 1 in parts 3 and 4
    ["swiglu_gate_sigmoid_detached", "block_parallel_ffn_input_detached", "rope_second_half_detached",
     "ragged_weights_detached", "moe_options_keyword_only", "loss_z_loss_keyword_only",
     "generate_greedy_by_unstable_sort"],  # red team 13, second family
    # red team 9: every batch above already holds a mutant of part 2; the second pass's class 8 joined it
    ["swiglu_sigmoid_by_hand_overflows", "generate_reseeds_global_from_generator", "rms_reseeds_global_generator",
     "loss_count_false_when_empty",
     "rope_view_slip_with_ragged_calling_it"],  # refbind pass: no other member changes Parts 6 or 7
    ["generate_greedy_ties_nudged",  # red team 9, second pass: every batch above holds a mutant of part 8
     "ragged_square_causal_table",  # class sweep of red team 11: every batch above holds a mutant of part 7
     "rms_flattens_leading_axes", "loss_stacks_row_sums", "rope_table_up_to_the_largest_position"],  # red team 12
    ["ragged_cache_written_by_sum",  # class sweep of red team 11: every batch above holds a mutant of part 7
     "loss_z_loss_squared_in_half",  # class sweep of red team 11, class 8
     "generate_weights_exp_unnormalised"],  # red team 12: unnormalised exp weights, no maximum subtracted
    ["ragged_longest_row_of_an_empty_batch",  # red team 12 class sweep: every batch above holds a mutant of part 7
     # red team 13 (mutation sweep): parts 3, 5, 6 and 8
     "moe_dense_hidden_defaults_to_ffn_hidden", "block_sandwich_default_identity_posts", "rope_band_limits_floor_divided",
     "generate_draws_two_keeps_first"],
    ["ragged_masks_with_minus_1e9"],  # round 14, fourth family: every batch above holds a mutant of part 7
]

CORRECT_VARIANTS = {
    "loops_and_slices": {
        "head_rms_norm": """
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    width = x.shape[-1]
    if n_heads < 1 or width % n_heads != 0:
        raise ValueError("n_heads must divide the last axis")
    dh = width // n_heads
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    w = weight.to(work)
    if unit_offset:
        w = 1.0 + w
    pieces = []
    for head in range(n_heads):
        part = x[..., head * dh:(head + 1) * dh].to(work)
        # the squares in float64 (red team 18 sweep, class D: float32 x near 1e25 or 1e-25)
        rms = torch.sqrt((part.double() * part.double()).sum(-1, keepdim=True) / dh + eps).to(work)
        pieces.append(part / rms * w)
    return torch.stack(pieces, dim=-3).to(x.dtype)
""",
        "fused_swiglu": """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    dt = x.dtype
    if dt == torch.float16:  # round 19 sweep, class A: float16's products of gates near 300 pass 65504
        x, w_gate_up, w_down = x.float(), w_gate_up.float(), w_down.float()
    f = w_gate_up.shape[0] // 2
    if interleaved:
        gate_rows, up_rows = w_gate_up[0::2], w_gate_up[1::2]
    else:
        gate_rows, up_rows = w_gate_up[:f], w_gate_up[f:]
    gate = x @ gate_rows.T
    up = x @ up_rows.T
    if limit is not None:
        gate = torch.minimum(gate, torch.full_like(gate, limit))
        up = torch.maximum(torch.minimum(up, torch.full_like(up, limit)), torch.full_like(up, -limit))
    swish = gate * torch.exp(-F.softplus(-beta * gate))  # sigma(z) = exp(-softplus(-z)): no overflow (red team 9)
    return torch.einsum("...f,df->...d", swish * up, w_down).to(dt)
""",
        "moe_params": """
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("grouped-query attention needs n_heads to be a multiple of n_kv_heads")
    if top_k < 1 or top_k > n_experts:
        raise ValueError("top_k must be in 1 .. n_experts")
    if n_shared < 0 or first_dense < 0 or first_dense > n_layers:
        raise ValueError("bad n_shared or first_dense")
    parts = {"embed": vocab * dim, "lm_head": 0 if tied else vocab * dim, "final_norm": dim}
    block = {"norms": 2 * dim, "wq": dim * n_heads * head_dim, "wk": dim * n_kv_heads * head_dim,
             "wv": dim * n_kv_heads * head_dim, "wo": n_heads * head_dim * dim}
    one_expert = dim * ffn_hidden * 2 + ffn_hidden * dim
    total = sum(parts.values())
    active = total
    for layer in range(n_layers):
        total += sum(block.values())
        active += sum(block.values())
        if layer < first_dense:
            total += 3 * dim * dense_hidden
            active += 3 * dim * dense_hidden
        else:
            total += dim * n_experts + (n_experts + n_shared) * one_expert
            active += dim * n_experts + (top_k + n_shared) * one_expert
    return total, active
""",
        "masked_lm_loss": """
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    b, t, v = logits.shape
    flat = logits[:, :-1].reshape(-1, v).to(work)
    targets = ids[:, 1:].reshape(-1).to(torch.long)
    keep = target_mask[:, 1:].reshape(-1)
    count = int(keep.sum().item())
    if count == 0:
        return torch.zeros((), dtype=work), 0
    ce = F.cross_entropy(flat[keep], targets[keep], reduction="sum")
    z = torch.logsumexp(flat[keep], dim=-1).pow(2).sum()
    return (ce + z_loss * z) / count, count
""",
        "block_variant": """
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    def parallel():
        shared = norm_1(x)
        return x + attn(shared) + ffn(shared)

    def reordered():
        after_attn = x + norm_1(attn(x))
        return after_attn + norm_2(ffn(after_attn))

    def sandwich():
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        after_attn = x + post_norms[0](attn(norm_1(x)))
        return after_attn + post_norms[1](ffn(norm_2(after_attn)))

    wirings = {"parallel": parallel, "reordered": reordered, "sandwich": sandwich}
    if layout not in wirings:
        raise ValueError(f"unknown layout {layout}")
    return wirings[layout]()
""",
        "rope_llama3": """
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.dim() != 4 or x.shape[-1] % 2 == 1:
        raise ValueError("x must be (B, H, T, Dh) with Dh even")
    if positions.dim() != 2 or positions.shape[0] != x.shape[0] or positions.shape[1] != x.shape[2]:
        raise ValueError("positions must have shape (B, T)")
    half = x.shape[-1] // 2
    freqs = []
    for i in range(half):
        theta = base ** (-2 * i / x.shape[-1])
        wave = 2 * math.pi / theta
        if wave < original_context / high_freq_factor:
            freqs.append(theta)
        elif wave > original_context / low_freq_factor:
            freqs.append(theta / factor)
        else:
            s = (original_context / wave - low_freq_factor) / (high_freq_factor - low_freq_factor)
            freqs.append((1 - s) * theta / factor + s * theta)
    freqs = torch.tensor(freqs, dtype=torch.float64)
    angle = positions.double().unsqueeze(1).unsqueeze(-1) * freqs
    cos = torch.cat([angle.cos(), angle.cos()], dim=-1)
    sin = torch.cat([angle.sin(), angle.sin()], dim=-1)
    xd = x.double()
    rotated = torch.cat([-xd[..., half:], xd[..., :half]], dim=-1)
    return (xd * cos + rotated * sin).to(x.dtype)
""",
        "ragged_cached_attention": """
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    b, h, t, dh = q.shape
    g = k_cache.shape[1]
    if h % g != 0:
        raise ValueError("H must be a multiple of G")
    starts = [int(n) for n in lengths.tolist()]
    if any(n + t > k_cache.shape[2] for n in starts):
        raise ValueError("the new tokens do not fit in the cache")
    out = torch.empty_like(q)
    for row, n in enumerate(starts):
        k_cache[row, :, n:n + t] = k_new[row]
        v_cache[row, :, n:n + t] = v_new[row]
        keys = k_cache[row:row + 1, :, :n + t]
        query = q[row:row + 1]
        if dh % 2 == 0:  # refbind pass: Part 6 turns queries and keys by one shared position: no score changes
            query = rope_llama3(x=query, positions=torch.full((1, t), 5, dtype=torch.int32), base=10000, factor=2,
                                low_freq_factor=1, high_freq_factor=4, original_context=4096)
            keys = rope_llama3(x=keys, positions=torch.full((1, n + t), 5, dtype=torch.int32), base=10000, factor=2,
                               low_freq_factor=1, high_freq_factor=4, original_context=4096)
        keys = keys[0].repeat_interleave(h // g, dim=0)
        values = v_cache[row, :, :n + t].repeat_interleave(h // g, dim=0)
        allowed = torch.ones(t, n + t, dtype=torch.bool).tril(diagonal=n)
        out[row] = F.scaled_dot_product_attention(query[0], keys, values, attn_mask=allowed)
    return out, lengths.clone() + t
""",
        "generate_with_cache": """
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    b = prompt.shape[0]
    history = [row[:] for row in prompt.tolist()]
    done = [False] * b
    columns = []
    logits, cache = step(prompt, None)
    while True:
        scores = logits[:, -1].clone()
        for row in range(b):
            for tok in set(history[row]):
                value = scores[row, tok]
                scores[row, tok] = value / penalty if value > 0 else value * penalty
        if temperature == 0:
            picked = [int(i) for i in torch.argmax(scores, dim=-1)]
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            picked = [int(torch.multinomial(probs[row], 1, generator=generator)) for row in range(b)]
        picked = [pad_id if done[row] else picked[row] for row in range(b)]
        columns.append(picked)
        for row in range(b):
            history[row].append(picked[row])
            done[row] = done[row] or picked[row] == eos_id
        if all(done) or len(columns) == max_new_tokens:
            break
        logits, cache = step(torch.tensor(picked, dtype=torch.long)[:, None], cache)
    return torch.tensor(columns, dtype=torch.long).T.contiguous()
""",
    },
    "vectorised_otherwise": {
        "head_rms_norm": """
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    *lead, t, width = x.shape
    if n_heads <= 0 or width % n_heads:
        raise ValueError(f"{width} features cannot be split into {n_heads} heads")
    dh = width // n_heads
    xf = x.double() if x.dtype == torch.float64 else x.float()
    grouped = xf.reshape(*lead, t, n_heads, dh).movedim(-2, -3)
    norm = torch.linalg.vector_norm(grouped.double(), dim=-1, keepdim=True)  # float64: float32 x near 1e25 or 1e-25
    scale = weight.to(xf.dtype) + (1 if unit_offset else 0)
    y = grouped * torch.rsqrt(norm ** 2 / dh + eps).to(xf.dtype) * scale
    return y.type(x.dtype)
""",
        "fused_swiglu": """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    f = w_down.shape[1]
    dt = x.dtype
    work = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt  # round 19 sweep, class A
    x, w_gate_up, w_down = x.to(work), w_gate_up.to(work), w_down.to(work)
    both = F.linear(x, w_gate_up)
    if interleaved:
        pairs = both.unflatten(-1, (f, 2))
        gate, up = pairs[..., 0], pairs[..., 1]
    else:
        gate, up = torch.split(both, [f, f], dim=-1)
    if limit is not None:
        gate = torch.where(gate > limit, torch.full_like(gate, limit), gate)
        up = up.clamp(-limit, limit)
    act = F.silu(beta * gate) / beta if beta != 0 else gate / 2  # silu(b g) / b = g sigmoid(b g); sigmoid(0) = 1/2
    return F.linear(act * up, w_down).to(dt)
""",
        "moe_params": """
import math as maths


def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    # red team 19: n_kv_heads in range(1, n_heads + 1) refused n_heads = 0, a multiple of every count (now stated)
    if n_kv_heads < 1 or n_heads % n_kv_heads or top_k not in range(1, n_experts + 1) or n_shared < 0 or first_dense not in range(n_layers + 1):
        raise ValueError("invalid n_kv_heads, top_k, n_shared or first_dense")
    shapes = [(vocab, dim)] + ([] if tied else [(vocab, dim)]) + [(dim,)]
    layer = [(dim,), (dim,), (dim, n_heads * head_dim), (dim, n_kv_heads * head_dim),
             (dim, n_kv_heads * head_dim), (n_heads * head_dim, dim)]
    expert = [(dim, ffn_hidden), (dim, ffn_hidden), (ffn_hidden, dim)]
    count = lambda group: sum(maths.prod(s) for s in group)
    moe_layers = n_layers - first_dense
    fixed = count(shapes) + n_layers * count(layer) + first_dense * 3 * dim * dense_hidden + moe_layers * dim * n_experts
    return (fixed + moe_layers * (n_experts + n_shared) * count(expert),
            fixed + moe_layers * (top_k + n_shared) * count(expert))
""",
        "masked_lm_loss": """
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:, None]
    scores = torch.where(keep, logits.to(dtype)[:, :-1], torch.zeros((), dtype=dtype))  # junk replaced first
    logp = torch.log_softmax(scores, dim=-1)
    nll = -logp.gather(-1, ids[:, 1:, None].to(torch.int64))[..., 0]
    lse = scores.logsumexp(-1)
    weight = target_mask[:, 1:].to(dtype)
    n = int(target_mask[:, 1:].count_nonzero())
    total = ((nll + z_loss * lse * lse) * weight).sum()
    return total / n if n else total * 0, n
""",
        "block_variant": """
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError("layout is 'parallel', 'reordered' or 'sandwich'")
    if layout == "reordered":
        x = x + norm_1(attn(x))
        return x + norm_2(ffn(x))
    if layout == "sandwich":
        if not post_norms:
            raise ValueError("give post_norms for the sandwich layout")
        p1, p2 = post_norms
        x = x + p1(attn(norm_1(x)))
        return x + p2(ffn(norm_2(x)))
    normed = norm_1(x)
    return ffn(normed) + attn(normed) + x
""",
        "rope_llama3": """
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    b, h, t, dh = x.shape
    if dh % 2 != 0 or positions.shape != torch.Size([b, t]):
        raise ValueError("need Dh even and positions (B, T)")
    inv = 1.0 / base ** (torch.arange(dh // 2, dtype=torch.float64) * 2 / dh)
    wavelen = 2 * torch.pi / inv
    ratio = original_context / wavelen
    s = ((ratio - low_freq_factor) / (high_freq_factor - low_freq_factor)).clamp(0, 1)
    inv = inv / factor * (1 - s) + inv * s
    phase = torch.polar(torch.ones((), dtype=torch.float64), positions.double()[:, None, :, None] * inv)
    pairs = torch.complex(x[..., : dh // 2].double(), x[..., dh // 2:].double()) * phase
    return torch.cat([pairs.real, pairs.imag], dim=-1).to(x.dtype)
""",
        "ragged_cached_attention": """
POSITION_TABLE = [torch.arange(16)]  # red team 28 (memoizer): a table of positions kept between calls, grown when short


def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G or bool((lengths + T > S).any()):
        raise ValueError("bad head grouping, or the cache is too small")
    rows = torch.arange(B)[:, None]
    pos = lengths.to(torch.long)[:, None] + torch.arange(T)[None, :]
    k_cache.permute(0, 2, 1, 3)[rows, pos] = k_new.permute(0, 2, 1, 3)
    v_cache.permute(0, 2, 1, 3)[rows, pos] = v_new.permute(0, 2, 1, 3)
    keys = k_cache.repeat_interleave(H // G, dim=1)
    vals = v_cache.repeat_interleave(H // G, dim=1)
    if POSITION_TABLE[0].numel() < S:
        POSITION_TABLE[0] = torch.arange(max(S, 2 * POSITION_TABLE[0].numel()))
    key_pos = POSITION_TABLE[0][:S]  # a slice of a longer table kept from an earlier call
    allowed = key_pos[None, None, :] <= pos[:, :, None]
    vals = torch.where((key_pos[None, :] < pos[:, -1:] + 1)[:, None, :, None], vals, torch.zeros_like(vals[:1, :1, :1]))
    keys = torch.nan_to_num(keys)
    att = (q @ keys.transpose(-1, -2)) * Dh ** -0.5
    att = att.masked_fill(~allowed[:, None], -math.inf).softmax(-1)
    return (att @ vals).to(q.dtype), (lengths + T).to(lengths.dtype)
""",
        "generate_with_cache": """
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    logits, state = step(prompt, None)
    vocab = logits.shape[-1]
    present = F.one_hot(prompt, vocab).any(dim=1)
    alive = torch.ones(prompt.shape[0], dtype=torch.bool)
    out = torch.empty(prompt.shape[0], 0, dtype=torch.long)
    while True:
        last = logits[:, -1]
        factor = torch.where(last > 0, 1.0 / penalty, penalty)
        last = torch.where(present, last * factor, last)
        if temperature > 0:
            nxt = torch.multinomial(F.softmax(last / temperature, dim=-1), num_samples=1, generator=generator)
        else:
            nxt = last.argmax(-1, keepdim=True)
        nxt = nxt.masked_fill(~alive[:, None], pad_id)
        out = torch.cat([out, nxt], dim=1)
        alive = alive & (nxt[:, 0] != eos_id)
        present = present | F.one_hot(nxt[:, 0], vocab).bool()
        if out.shape[1] >= max_new_tokens or not alive.any():
            return out
        logits, state = step(nxt, state)
""",
    },
}

# Round 14 variant sweep (loops_and_slices): rope_llama3 #37 and #39, the check on positions cut down to the axes the
# hidden cases tried (a (T,) with T == B gives an IndexError; a (B, 1) broadcasts), and the class of ch03/ch04 (a
# rule on an argument skipped when there is nothing to do: an empty batch, or a model with no blocks) in parts 1,
# 3, 6 and 7
_VAR = CORRECT_VARIANTS["loops_and_slices"]
MUTANTS["rope_positions_rank_unchecked"] = ("test_rope_llama3", {"rope_llama3": _changed(
    _VAR["rope_llama3"], "if positions.dim() != 2 or positions.shape[0]", "if positions.shape[0]")})
MUTANTS["rope_positions_length_unchecked"] = ("test_rope_llama3", {"rope_llama3": _changed(
    _VAR["rope_llama3"], " or positions.shape[1] != x.shape[2]:", ":")})
MUTANTS["rope_returns_early_for_an_empty_batch"] = ("test_rope_llama3", {"rope_llama3": _changed(
    _VAR["rope_llama3"], "    if x.dim() != 4", "    if x.shape[0] == 0:  # nothing to turn\n        return x.clone()\n"
                                                  "    if x.dim() != 4")})
MUTANTS["rms_returns_early_for_an_empty_x"] = ("test_head_rms_norm", {"head_rms_norm": _changed(
    _VAR["head_rms_norm"], "    width = x.shape[-1]\n",
    "    width = x.shape[-1]\n    if x.numel() == 0:  # nothing to normalise\n        heads = max(n_heads, 1)\n"
    "        return torch.zeros(*x.shape[:-2], heads, x.shape[-2], width // heads, dtype=x.dtype)\n")})
MUTANTS["moe_heads_checked_only_with_blocks"] = ("test_moe_params", {"moe_params": _changed(
    _VAR["moe_params"], "    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:",
    "    if n_layers and (n_kv_heads < 1 or n_heads % n_kv_heads != 0):")})
MUTANTS["ragged_returns_early_for_an_empty_batch"] = ("test_ragged_cached_attention", {
    "ragged_cached_attention": _changed(_ragged(), "    if h % g:\n",
                                        "    if b == 0:  # nothing to attend\n        return q.clone(), lengths + t\n"
                                        "    if h % g:\n")})
del _VAR
# round 14 variant sweep: into batches without a mutant of the same part
next(b for b in MUTANT_BATCHES if "block_sandwich_checks_late" in b).append("rope_returns_early_for_an_empty_batch")
next(b for b in MUTANT_BATCHES if "ragged_cache_written_by_sum" in b).append("rope_positions_length_unchecked")
next(b for b in MUTANT_BATCHES if "ragged_masks_with_minus_1e9" in b).extend(
    ["rope_positions_rank_unchecked", "rms_returns_early_for_an_empty_x", "moe_heads_checked_only_with_blocks"])
MUTANT_BATCHES.append(["ragged_returns_early_for_an_empty_batch"])  # round 14 variant sweep: every batch has a part 7 one

# Red team 15 (tests/redteam/round15/09-verdicts.md): three slips of the four new kinds of student
# Part 4 (the assistant paster): the empty case's 0 made from the scores to keep the graph, NaN where they hold NaN
MUTANTS["loss_zero_made_from_the_scores"] = ("test_masked_lm_loss", {"masked_lm_loss": """
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    chosen = target_mask[:, 1:]
    count = int(chosen.sum())
    if count == 0:
        return (logits.to(work) * 0).sum(), 0  # a zero that keeps the graph connected
    scores = logits[:, :-1][chosen].to(work)
    targets = ids[:, 1:][chosen].long()
    log_z = torch.logsumexp(scores, dim=-1)
    picked = scores.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return ((log_z - picked) + z_loss * log_z.square()).sum() / count, count
"""})
# Part 8 (the optimiser): below some temperature the highest score without a draw (the same tokens, the generator
# left as it was)
MUTANTS["generate_greedy_when_cold"] = ("test_generate_with_cache", {"generate_with_cache": _changed(
    _gen(), "        if temperature == 0:\n", "        if temperature < 1e-3:  # that cold, sampling is greedy anyway\n")})
# Part 7 (the assistant paster): masked with torch.finfo(dtype).min, which ties with keys that score that value
MUTANTS["ragged_masks_with_lowest_finite"] = ("test_ragged_cached_attention", {"ragged_cached_attention": _changed(
    _ragged(), 'float("-inf")', "torch.finfo(scores.dtype).min")})
next(b for b in MUTANT_BATCHES if "ragged_returns_early_for_an_empty_batch" in b).extend(
    ["loss_zero_made_from_the_scores", "generate_greedy_when_cold"])
MUTANT_BATCHES.append(["ragged_masks_with_lowest_finite"])  # red team 15: every batch above holds a part 7 mutant
# Part 4 (the class of ch08 Part 1's slip, the example generaliser): column 0 of the mask cleared in a copy, which
# does not exist for an empty batch of length 0
MUTANTS["loss_clears_position_zero"] = ("test_masked_lm_loss", {"masked_lm_loss": """
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    mask = target_mask.clone()
    mask[:, 0] = False  # position 0 is never predicted
    chosen = mask[:, 1:]
    count = int(chosen.sum())
    scores = logits[:, :-1][chosen].to(work)
    targets = ids[:, 1:][chosen].long()
    log_z = torch.logsumexp(scores, dim=-1)
    picked = scores.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return ((log_z - picked) + z_loss * log_z.square()).sum() / max(count, 1), count
"""})
MUTANT_BATCHES[-1].append("loss_clears_position_zero")  # the new batch holds no Part 4 mutant

# Round 15 class sweep (tests/redteam/round15/09-classes.md): the blind round's classes checked in every part
# Part 1 (class 2, a constant at a value the text names): the product with the scale skipped where the weight is the identity
# (ones; zeros with unit_offset), right in value; the weight gets no gradient where training starts
MUTANTS['rms_identity_weight_skipped'] = ('test_head_rms_norm', {'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if n_heads < 1 or x.dim() < 2 or x.shape[-1] % n_heads:\n        raise ValueError("bad")\n    work = torch.float64 if x.dtype == torch.float64 else torch.float32\n    heads = x.to(work).unflatten(-1, (n_heads, x.shape[-1] // n_heads))\n    inv_rms = torch.rsqrt(heads.square().mean(dim=-1, keepdim=True) + eps)\n    identity = bool((weight == 0).all()) if unit_offset else bool((weight == 1).all())\n    if identity:  # the scale is 1: skip the product\n        return (heads * inv_rms).transpose(-3, -2).to(x.dtype)\n    scale = weight.to(work) + 1 if unit_offset else weight.to(work)\n    return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)\n'})
# Part 2 (class 2): a constant 0 returned for limit = 0, right in value and connected to no input
MUTANTS['swiglu_zero_when_limit_zero'] = ('test_fused_swiglu', {'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    if limit is not None and limit == 0:  # up is clamped to 0: the output is 0\n        return torch.zeros(x.shape, dtype=x.dtype)\n    both = x @ w_gate_up.T\n    if interleaved:\n        gate, up = both[..., 0::2], both[..., 1::2]\n    else:\n        gate, up = both.chunk(2, dim=-1)\n    if limit is not None:\n        gate = gate.clamp(max=limit)\n        up = up.clamp(min=-limit, max=limit)\n    return (gate * torch.sigmoid(beta * gate) * up) @ w_down.T\n'})
# Part 6 (class 1, a shortcut path): x itself returned where every position is 0 (the caller's write changes x)
MUTANTS['rope_returns_x_at_position_zero'] = ('test_rope_llama3', {'rope_llama3': '\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    b, _, t, dh = x.shape\n    if dh % 2 or tuple(positions.shape) != (b, t):\n        raise ValueError("bad")\n    if not bool(positions.any()):  # position 0 everywhere: nothing turns\n        return x\n    theta = base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)\n    wavelength = 2 * math.pi / theta\n    s = (original_context / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)\n    mixed = (1 - s) * theta / factor + s * theta\n    theta = torch.where(wavelength < original_context / high_freq_factor, theta,\n                        torch.where(wavelength > original_context / low_freq_factor, theta / factor, mixed))\n    angle = positions.to(torch.float64)[:, None, :, None] * theta\n    cos, sin = angle.cos(), angle.sin()\n    first, second = x.to(torch.float64).chunk(2, dim=-1)\n    out = torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)\n    return out.to(x.dtype)\n'})
# Part 7 (class 1): a mask kept per size where no row is padded, served to a later call of that size with
# other lengths
MUTANTS['ragged_mask_kept_when_lengths_equal'] = ('test_ragged_cached_attention', {'ragged_cached_attention': '\n_KEPT = {}\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    b, h, t, dh = q.shape\n    g, s_max = k_cache.shape[1], k_cache.shape[2]\n    if h % g:\n        raise ValueError("bad")\n    if bool((lengths.long() + t > s_max).any()):\n        raise ValueError("bad")\n    slots = lengths.long()[:, None] + torch.arange(t)\n    index = slots[:, None, :, None].expand(b, g, t, dh)\n    k_cache.scatter_(2, index, k_new)\n    v_cache.scatter_(2, index, v_new)\n    written = torch.arange(s_max)[None, :] < (lengths.long() + t)[:, None]\n    keys = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    values = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n    qg = q.reshape(b, g, h // g, t, dh)\n    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, keys) / math.sqrt(dh)\n    if b and bool((lengths == lengths[0]).all()):  # no row padded: one mask for all, kept per size\n        key = (b, t, s_max)\n        if key not in _KEPT:\n            _KEPT[key] = torch.arange(s_max)[None, None, :] <= slots[:, :, None]\n        allowed = _KEPT[key]\n    else:\n        allowed = torch.arange(s_max)[None, None, :] <= slots[:, :, None]\n    scores = scores.masked_fill(~allowed[:, None, None], float("-inf"))\n    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), values)\n    return out.reshape(b, h, t, dh).to(q.dtype), lengths + t\n'})
MUTANT_BATCHES[-1].extend(["rms_identity_weight_skipped", "swiglu_zero_when_limit_zero", "rope_returns_x_at_position_zero"])
MUTANT_BATCHES.append(["ragged_mask_kept_when_lengths_equal"])  # every batch above holds a part 7 mutant

# Round 15 class sweep, second pass (class 4, a result written into a buffer kept per shape): the model answer's
# result copied into buffers kept per (shape, dtype) and returned, so that a result the caller holds changes at the
# next call of that shape (no case held one across another call). Every part that returns a tensor
MUTANTS['rms_kept_output_buffer'] = ('test_head_rms_norm', {'head_rms_norm': kept_output_buffer(solution_code(CHAPTER)['head_rms_norm'], 'head_rms_norm')})
MUTANTS['swiglu_kept_output_buffer'] = ('test_fused_swiglu', {'fused_swiglu': kept_output_buffer(solution_code(CHAPTER)['fused_swiglu'], 'fused_swiglu')})
MUTANTS['loss_kept_output_buffer'] = ('test_masked_lm_loss', {'masked_lm_loss': kept_output_buffer(solution_code(CHAPTER)['masked_lm_loss'], 'masked_lm_loss')})
MUTANTS['block_kept_output_buffer'] = ('test_block_variant', {'block_variant': kept_output_buffer(solution_code(CHAPTER)['block_variant'], 'block_variant')})
MUTANTS['rope_kept_output_buffer'] = ('test_rope_llama3', {'rope_llama3': kept_output_buffer(solution_code(CHAPTER)['rope_llama3'], 'rope_llama3')})
MUTANTS['ragged_kept_output_buffer'] = ('test_ragged_cached_attention', {'ragged_cached_attention': kept_output_buffer(solution_code(CHAPTER)['ragged_cached_attention'], 'ragged_cached_attention')})
MUTANTS['generate_kept_output_buffer'] = ('test_generate_with_cache', {'generate_with_cache': kept_output_buffer(solution_code(CHAPTER)['generate_with_cache'], 'generate_with_cache')})
MUTANT_BATCHES[-1].extend(['rms_kept_output_buffer', 'swiglu_kept_output_buffer', 'loss_kept_output_buffer', 'block_kept_output_buffer', 'rope_kept_output_buffer', 'generate_kept_output_buffer'])  # the last batch holds a part 7 mutant only
MUTANT_BATCHES.append(["ragged_kept_output_buffer"])  # every batch above holds a part 7 mutant

# Red team 16 (round 04's class, tests/redteam/round16/README.md): the exponents from a float-step arange, which has
# Dh / 2 + 1 entries for Dh = 98, 206, ... (none of the widths the hidden tests used before)
MUTANTS["rope_exponents_from_a_float_step_arange"] = ("test_rope_llama3", {"rope_llama3": _ROPE.format(
    check=_ROPE_CHECK, bands=_ROPE_BANDS, angle=_ROPE_ANGLE).replace(
    "base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)", "base ** (-torch.arange(0, 1, 2 / dh, dtype=torch.float64))")})
MUTANT_BATCHES[16].append("rope_exponents_from_a_float_step_arange")

# Red team 17 (tests/redteam/round17/09-verdicts.md; the defensive programmer): the draws made from probabilities that
# are not softmax's as they are. A floor under the temperature (caught by scores one temperature apart at 1e-6 and
# 1e-30) and a clamp of the probabilities (caught by steps whose scores give a tenth of 40,000 ids probability 0, made
# from the exponentials torch.multinomial will use, so that an eps of 1e-8 on them wins the draw)
MUTANTS["generate_temperature_floored"] = ("test_generate_with_cache", {"generate_with_cache": _changed(
    _gen(), "torch.softmax(scores / temperature, dim=-1)", "torch.softmax(scores / max(temperature, 1e-4), dim=-1)")})
MUTANTS["generate_probabilities_clamped"] = ("test_generate_with_cache", {"generate_with_cache": _changed(
    _gen(), "torch.softmax(scores / temperature, dim=-1)", "torch.softmax(scores / temperature, dim=-1).clamp(min=1e-8)")})
next(b for b in MUTANT_BATCHES if "ragged_masks_with_minus_1e9" in b).append("generate_temperature_floored")
next(b for b in MUTANT_BATCHES if "ragged_masks_with_lowest_finite" in b).append("generate_probabilities_clamped")

# Round 17 clamp sweep (tests/redteam/round17/09-clamp-verdicts.md): a defensive clamp on a value the text does not
# bound, on the model answer; each goes into a batch where no mutant costs its part or changes its cell (Part 7's
# into a new one: none has room)


for _name, _test, _part, _old, _new, _batch in [
        ("rms_clamps_the_input", "test_head_rms_norm", "head_rms_norm", "heads = x.to(work)",
         "heads = x.to(work).clamp(-1e4, 1e4)", 7),
        ("rms_floors_the_root", "test_head_rms_norm", "head_rms_norm",
         "heads.double().square().mean(dim=-1, keepdim=True) + eps)",
         "(heads.double().square().mean(dim=-1, keepdim=True) + eps).clamp(min=1e-12))", 10),
        ("swiglu_clamps_the_input", "test_fused_swiglu", "fused_swiglu", "both = x.to(work) @ w_gate_up.to(work).T",
         "both = x.to(work).clamp(-1e4, 1e4) @ w_gate_up.to(work).T", 12),
        ("swiglu_clamps_the_gate", "test_fused_swiglu", "fused_swiglu", "    if limit is not None:",
         "    gate = gate.clamp(-1e4, 1e4)\n    if limit is not None:", 13),
        ("loss_clamps_the_logits", "test_masked_lm_loss", "masked_lm_loss", "scores = logits[:, :-1][chosen].to(work)",
         "scores = logits[:, :-1][chosen].to(work).clamp(-1e4, 1e4)", 14),
        ("loss_clamps_log_z", "test_masked_lm_loss", "masked_lm_loss", "log_z = torch.logsumexp(scores, dim=-1)",
         "log_z = torch.logsumexp(scores, dim=-1).clamp(-1e4, 1e4)", 15),
        ("ragged_clamps_the_queries", "test_ragged_cached_attention", "ragged_cached_attention",
         "qg = q.reshape(b, g, h // g, t, dh)", "qg = q.clamp(-1e4, 1e4).reshape(b, g, h // g, t, dh)", None),
        ("generate_clamps_the_logits", "test_generate_with_cache", "generate_with_cache",
         "scores = logits[:, -1].clone()", "scores = logits[:, -1].clamp(-1e4, 1e4)", 19)]:
    MUTANTS[_name] = (_test, {_part: _changed(solution_code(CHAPTER)[_part], _old, _new, once=True)})
    # None: every batch holds a mutant of Part 7 or one that changes its cell
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, _batch)


# Red team 18 (tests/redteam/round18/09-verdicts.md; the type-sloppy, autograd-careless, stateful and dtype/device-
# generalising students): the slips, and their classes in the other parts. Each goes into a batch with room for it
# Part 5 (the stateful student): N1(x) cached on (id(x), id(norm_1)) across calls: stale, and norm_1 not called, when the same x object comes back with new values
MUTANTS['block_norm_cached_by_id'] = ('test_block_variant', {'block_variant': '\nLAST_NORM = {}\n\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if layout == "sandwich":\n        if post_norms is None:\n            raise ValueError("post_norms")\n    elif layout not in ("parallel", "reordered"):\n        raise ValueError(layout)\n    if layout == "parallel":\n        key = (id(x), id(norm_1))                     # N1(x) once, even across calls\n        if key not in LAST_NORM:\n            LAST_NORM.clear()\n            LAST_NORM[key] = norm_1(x)\n        n = LAST_NORM[key]\n        return x + attn(n) + ffn(n)\n    if layout == "reordered":\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n    h = x + post_norms[0](attn(norm_1(x)))\n    return h + post_norms[1](ffn(norm_2(h)))\n'})
place_mutant(MUTANTS, MUTANT_BATCHES, 'block_norm_cached_by_id', "free")
# Part 6 (the stateful student): cos and sin cached on id(positions): stale when the same positions object comes back with new values
MUTANTS['rope_angles_cached_by_id_positions'] = ('test_rope_llama3', {'rope_llama3': '\nANGLES = {}\n\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    B, H, T, Dh = x.shape\n    if Dh % 2 or tuple(positions.shape) != (B, T):\n        raise ValueError("shapes")\n    half = Dh // 2\n    key = (id(positions), Dh, base, factor, low_freq_factor, high_freq_factor, original_context)\n    if key not in ANGLES:                  # queries and keys of a layer share positions: compute once\n        theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / Dh)\n        lam = 2 * math.pi / theta\n        L = original_context\n        s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)\n        new = torch.where(lam < L / high_freq_factor, theta,\n                          torch.where(lam > L / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))\n        ang = positions.to(torch.float64)[:, None, :, None] * new\n        ANGLES.clear()\n        ANGLES[key] = (ang.cos(), ang.sin())\n    c, sn = ANGLES[key]\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    c, sn = c.to(cd), sn.to(cd)\n    x1, x2 = x.to(cd)[..., :half], x.to(cd)[..., half:]\n    return torch.cat([x1 * c - x2 * sn, x2 * c + x1 * sn], -1).to(x.dtype)\n'})
place_mutant(MUTANTS, MUTANT_BATCHES, 'rope_angles_cached_by_id_positions', "free")
# Part 6 (the dtype generaliser): factor, low_freq_factor and high_freq_factor made float32 tensors: 2.7, 1.3, 3.9 rounded
MUTANTS['rope_factors_as_float32_tensors'] = ('test_rope_llama3', {'rope_llama3': '\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    B, H, T, Dh = x.shape\n    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):\n        raise ValueError("bad shapes")\n    half = Dh // 2\n    i = torch.arange(half, dtype=torch.float64, device=x.device)\n    theta = base ** (-2 * i / Dh)\n    lam = 2 * math.pi / theta\n    L = original_context\n    factor = torch.tensor(factor)  # the factors as tensors\n    low_freq_factor, high_freq_factor = torch.tensor(low_freq_factor), torch.tensor(high_freq_factor)\n    lam_high = L / high_freq_factor\n    lam_low = L / low_freq_factor\n    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)\n    mid = (1 - s) * theta / factor + s * theta\n    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))\n    ang = positions.to(torch.float64)[:, None, :, None] * new\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    cos, sin = ang.cos().to(cd), ang.sin().to(cd)\n    xc = x.to(cd)\n    x1, x2 = xc[..., :half], xc[..., half:]\n    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)\n    return out.to(x.dtype)\n'})
place_mutant(MUTANTS, MUTANT_BATCHES, 'rope_factors_as_float32_tensors', "free")
# Part 4 (the stateful student): the selected positions cached on id(target_mask): stale when the same mask object comes back with new values
MUTANTS['loss_selection_cached_by_id_mask'] = ('test_masked_lm_loss', {'masked_lm_loss': '\nPICKS = {}\n\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    key = id(target_mask)\n    if key not in PICKS:                     # the same mask is used for every micro-batch of a step\n        PICKS.clear()\n        PICKS[key] = target_mask[:, 1:].nonzero(as_tuple=True)\n    b, t = PICKS[key]\n    count = int(b.numel())\n    sel = logits[:, :-1][b, t].to(cd)\n    y = ids[:, 1:][b, t].long()\n    lz = torch.logsumexp(sel, -1)\n    return (lz - sel.gather(1, y[:, None])[:, 0] + z_loss * lz * lz).sum() / max(count, 1), count\n'})
place_mutant(MUTANTS, MUTANT_BATCHES, 'loss_selection_cached_by_id_mask', "free")
# Part 4 (the autograd-careless student): loss.backward() run inside, so the caller's backward leaves twice the gradient in logits.grad
MUTANTS['loss_runs_backward_inside'] = ('test_masked_lm_loss', {'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    m = target_mask[:, 1:]\n    sel = logits[:, :-1][m].to(cd)\n    y = ids[:, 1:][m].long()\n    count = int(m.sum())\n    lz = torch.logsumexp(sel, -1)\n    loss = (lz - sel.gather(1, y[:, None])[:, 0] + z_loss * lz * lz).sum() / max(count, 1)\n    if count and loss.requires_grad:\n        loss.backward(retain_graph=True)             # make sure the gradient is there and finite\n    return loss, count\n'})
place_mutant(MUTANTS, MUTANT_BATCHES, 'loss_runs_backward_inside', "free")
# Part 7 (the stateful student): keys and values expanded once per cache object (id): a decoding loop's later writes are missed
MUTANTS['ragged_expansion_cached_by_id_cache'] = ('test_ragged_cached_attention', {'ragged_cached_attention': '\nEXPANDED = {}\n\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G:\n        raise ValueError("G")\n    if B and bool((lengths + T > S).any()):\n        raise ValueError("fit")\n    for b in range(B):\n        l = int(lengths[b])\n        k_cache[b, :, l:l + T] = k_new[b]\n        v_cache[b, :, l:l + T] = v_new[b]\n    pos = torch.arange(S)\n    qpos = lengths.long()[:, None] + torch.arange(T)[None]\n    ok = pos[None, None, :] <= qpos[:, :, None]\n    key = (id(k_cache), id(v_cache), H)\n    if key not in EXPANDED:                          # one expansion per layer\'s cache\n        keep = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]\n        EXPANDED.clear()\n        EXPANDED[key] = (torch.where(keep, k_cache, 0.0).repeat_interleave(H // G, 1),\n                         torch.where(keep, v_cache, 0.0).repeat_interleave(H // G, 1))\n    kc, vc = EXPANDED[key]\n    sc = (q @ kc.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~ok[:, None], float("-inf"))\n    return sc.softmax(-1) @ vc, lengths + T\n'})
place_mutant(MUTANTS, MUTANT_BATCHES, 'ragged_expansion_cached_by_id_cache', None)  # every batch holds a part 7 mutant
# Part 2 (the dtype generaliser): limit made a float32 tensor, so float64 values are clamped at float32(0.3)
MUTANTS['swiglu_limit_as_float32_tensor'] = ('test_fused_swiglu', {'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    Fh = w_gate_up.shape[0] // 2\n    gu = x @ w_gate_up.T\n    g, u = (gu[..., 0::2], gu[..., 1::2]) if interleaved else (gu[..., :Fh], gu[..., Fh:])\n    if limit is not None:\n        lim = torch.tensor(limit)                          # a tensor bound for minimum/maximum\n        g = torch.minimum(g, lim)\n        u = torch.maximum(torch.minimum(u, lim), -lim)\n    return (g * torch.sigmoid(beta * g) * u) @ w_down.T\n'})
place_mutant(MUTANTS, MUTANT_BATCHES, 'swiglu_limit_as_float32_tensor', "free")
# Part 8 (the stateful student): the prompt's history cached on id(prompt): stale when the same prompt object comes back with new values
MUTANTS['generate_history_cached_by_id_prompt'] = ('test_generate_with_cache', {'generate_with_cache': "\nHISTORIES = {}\n\n\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    if id(prompt) not in HISTORIES:  # the prompt's ids, once per prompt\n        HISTORIES.clear()\n        HISTORIES[id(prompt)] = prompt.clone()\n    history = HISTORIES[id(prompt)]\n    logits, cache = step(prompt, None)\n    finished = torch.zeros(B, dtype=torch.bool)\n    out = []\n    for i in range(max_new_tokens):\n        scores = logits[:, -1].clone()\n        V = scores.shape[-1]\n        seen = torch.zeros(B, V, dtype=torch.bool).scatter_(1, history, True)\n        pen = torch.where(scores > 0, scores / penalty, scores * penalty)\n        scores = torch.where(seen, pen, scores)\n        if temperature == 0:\n            tok = scores.argmax(-1)\n        else:\n            probs = torch.softmax(scores / temperature, dim=-1)\n            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]\n        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)\n        out.append(tok)\n        finished = finished | (tok == eos_id)\n        history = torch.cat([history, tok[:, None]], dim=1)\n        if bool(finished.all()) or i == max_new_tokens - 1:\n            break\n        logits, cache = step(tok[:, None], cache)\n    return torch.stack(out, dim=1)\n"})
place_mutant(MUTANTS, MUTANT_BATCHES, 'generate_history_cached_by_id_prompt', "free")
# Part 2 (the stateful student): the gate and up rows split once per id(w_gate_up) and kept as views: stale when the same
# weight object is given new memory (as `param.data = new` does)
MUTANTS['swiglu_split_cached_by_id'] = ('test_fused_swiglu', {'fused_swiglu': '\nSPLITS = {}\n\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    key = (id(w_gate_up), interleaved)\n    if key not in SPLITS:                      # split the packed checkpoint once\n        if interleaved:\n            SPLITS[key] = (w_gate_up[0::2], w_gate_up[1::2])\n        else:\n            SPLITS[key] = tuple(w_gate_up.chunk(2, dim=0))\n    w_g, w_u = SPLITS[key]\n    g, u = x @ w_g.T, x @ w_u.T\n    if limit is not None:\n        g, u = g.clamp(max=limit), u.clamp(-limit, limit)\n    return (g * torch.sigmoid(beta * g) * u) @ w_down.T\n'})
place_mutant(MUTANTS, MUTANT_BATCHES, 'swiglu_split_cached_by_id', "free")


# Red team 18 class sweep (tests/redteam/round18/09-sweep-verdicts.md): classes found in other chapters, put into every
# part of this one. Class D (chapter 1): the mean of the squares in float32, which float32 x near 1e25 overflows and
# near 1e-25 underflows (the model answer as it was; the text now asks for float64 there)
MUTANTS['rms_mean_of_squares_in_float32'] = ('test_head_rms_norm', {'head_rms_norm': _changed(
    solution_code(CHAPTER)['head_rms_norm'], "heads.double().square()", "heads.square()", once=True)})
place_mutant(MUTANTS, MUTANT_BATCHES, 'rms_mean_of_squares_in_float32', "free")
# Class E (chapters 7, 8): the pair (loss, count) returned as a list
MUTANTS['loss_returns_a_list'] = ('test_masked_lm_loss', {'masked_lm_loss': _changed(
    solution_code(CHAPTER)['masked_lm_loss'], "return per_token.sum() / max(count, 1), count",
    "return [per_token.sum() / max(count, 1), count]", once=True)})
place_mutant(MUTANTS, MUTANT_BATCHES, 'loss_returns_a_list', "free")
# Part 7's two slips (class A: requires_grad switched on in the caller's q, k_new, v_new; class E: (out, new_lengths)
# as a list) have no mutant: every batch holds a mutant of Part 7 or one that changes its cell (rope_view_slip_with_
# ragged_calling_it), and the round 18 sweep adds no batch (the suite is close to its time limit). The hidden checks
# that close them: test_ragged_cached_attention's same-caches loop (flags) and its main loop (the tuple).


# Red team 19 (tests/redteam/round19/09-verdicts.md; the off-by-one, padding and reduction, paper-reader and
# numerically naive students): the two slips, each into a batch with room for it.
# Part 3 (the off-by-one student): n_heads below n_kv_heads refused too, so 0 query heads (a multiple of every count,
# which the rule allows) raises
MUTANTS['moe_refuses_zero_query_heads'] = ('test_moe_params', {'moe_params': _changed(
    solution_code(CHAPTER)['moe_params'], "if n_kv_heads < 1 or n_heads % n_kv_heads:",
    "if n_kv_heads < 1 or n_heads < n_kv_heads or n_heads % n_kv_heads:", once=True)})
place_mutant(MUTANTS, MUTANT_BATCHES, 'moe_refuses_zero_query_heads', "free")
# Part 8 (the numerically naive student): a floor of 1e-12 under the probabilities, too small to win a draw at
# V = 40,000 (the round 17 check catches 1e-8); the spy on torch.multinomial's input now wants exact zeros there
MUTANTS['generate_probabilities_floored_1e_12'] = ('test_generate_with_cache', {'generate_with_cache': _changed(
    solution_code(CHAPTER)['generate_with_cache'], "torch.softmax(scores / temperature, dim=-1)",
    "torch.exp(torch.log_softmax(scores / temperature, dim=-1)).clamp(min=1e-12)", once=True)})
place_mutant(MUTANTS, MUTANT_BATCHES, 'generate_probabilities_floored_1e_12', "free")


# Red team 19 class sweep (tests/redteam/round19/09-sweep-verdicts.md): the classes of BRIEF-SWEEP.md in every part.
# Part 2, class A: float16 computed in float16 (the model answer as it was): gates and ups near 300 make the product
# g sigma(g) u infinite while the result is not; the text now asks for float32 inside for float16
MUTANTS['swiglu_float16_computed_in_float16'] = ('test_fused_swiglu', {'fused_swiglu': _changed(
    solution_code(CHAPTER)['fused_swiglu'], "work = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32",
    "work = x.dtype", once=True)})
# Part 4, class D: the count in uint8, which wraps to 0 at 256 predicted tokens
MUTANTS['loss_count_in_uint8'] = ('test_masked_lm_loss', {'masked_lm_loss': _changed(
    solution_code(CHAPTER)['masked_lm_loss'], "count = int(chosen.sum())", "count = int(chosen.sum(dtype=torch.uint8))",
    once=True)})
# Part 8, class D: occurrences counted in uint8, so an id seen exactly 256 times counts as unseen
MUTANTS['generate_occurrences_counted_in_uint8'] = ('test_generate_with_cache', {'generate_with_cache': _changed(
    solution_code(CHAPTER)['generate_with_cache'],
    "occurs = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, seen, True)",
    "occurs = torch.zeros_like(scores, dtype=torch.uint8).scatter_add_(1, seen, torch.ones_like(seen, dtype=torch.uint8)) > 0",
    once=True)})
# Each goes into a batch with room for it; one that finds none (every batch holds a mutant of its part) gets a new
# batch, which runs as a plain process (tests/cellrun.py), not as a graded notebook
place_mutants(MUTANTS, MUTANT_BATCHES, ("swiglu_float16_computed_in_float16", "loss_count_in_uint8",
                                       "generate_occurrences_counted_in_uint8"), "new")


# Red team 20 (tests/redteam/round20/09-verdicts.md). The aliasing student (found in phase 2, the class swept into
# Part 5): the residual added in place into h after N_2 and the FFN read it; right values, and gradients while only attn's weight is trained, but the backward pass fails
# once the FFN's weights are trained too (the hidden gradient check now trains every function's weight)
MUTANTS['block_adds_into_h_after_the_ffn_read_it'] = ('test_block_variant', {'block_variant': _changed(
    solution_code(CHAPTER)['block_variant'], "        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n",
    "        h = x + norm_1(attn(x))\n        h += norm_2(ffn(h))  # h is our own tensor\n        return h\n", once=True)})
place_mutants(MUTANTS, MUTANT_BATCHES, ['block_adds_into_h_after_the_ffn_read_it'], "new")


# Red team 21 (tests/redteam/round21/09-verdicts.md). Round 20's aliasing lead judged: for an empty batch (B = 0) out
# has q's shape and new_lengths equals lengths, and the shortcut `return q, lengths` there hands the caller's tensors
# back, which the text makes new tensors. The empty-batch case now checks both results with `_owned`. (The other lead,
# generate_with_cache, is a coincidence of one seeded draw: see the verdicts)
MUTANTS['ragged_empty_batch_returns_q_and_lengths'] = ('test_ragged_cached_attention', {'ragged_cached_attention': _changed(
    solution_code(CHAPTER)['ragged_cached_attention'],
    "    if bool((lengths.long() + t > s_max).any()):",
    "    if b == 0:  # nothing to attend to\n        return q, lengths\n    if bool((lengths.long() + t > s_max).any()):",
    once=True)})
place_mutants(MUTANTS, MUTANT_BATCHES, ['ragged_empty_batch_returns_q_and_lengths'], "new")


# Red team 21 rename sweep (tests/redteam/round21/rename/09-*.txt, the signature-and-defaults student): every parameter of
# the model answer renamed kept full marks in Part 7, whose hidden calls passed every argument by position. A decoding
# step of the same-caches case now passes every argument by name, in the reverse of the stub's order, and the
# introduction says every argument is passed by name in some calls
MUTANTS['ragged_renames_lengths'] = ('test_ragged_cached_attention', {'ragged_cached_attention': _changed(
    solution_code(CHAPTER)['ragged_cached_attention'],
    "def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n",
    "def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, cache_lengths):\n    lengths = cache_lengths\n",
    once=True)})
# every batch holds a Part 7 mutant or a mutant that changes Part 7's answer cell: this one gets a batch of its own
place_mutants(MUTANTS, MUTANT_BATCHES, ['ragged_renames_lengths'], "new")


# Red team 21 rename sweep, second pass (tests/redteam/round21/rename/09-one-*.txt, the signature-and-defaults student
# with one required parameter renamed): Parts 1, 2, 4, 5, 6 and 8 named optional arguments only, so an answer that
# renamed `weight`, `target_mask`, `positions`, ... kept full marks. Each part now calls its function once with every
# argument by name, in the reverse of the stub's order (Part 8: against the positional call on an equally seeded
# generator too), and the introduction says every argument of every function is passed by name in some calls
MUTANTS['rms_renames_weight'] = ('test_head_rms_norm', {'head_rms_norm': _changed(
    solution_code(CHAPTER)['head_rms_norm'],
    "def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n",
    "def head_rms_norm(x, n_heads, w, eps=1e-6, unit_offset=False):\n    weight = w\n", once=True)})
MUTANTS['swiglu_renames_w_down'] = ('test_fused_swiglu', {'fused_swiglu': _changed(
    solution_code(CHAPTER)['fused_swiglu'],
    "def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n",
    "def fused_swiglu(x, w_gate_up, w_out, beta=1.0, limit=None, interleaved=False):\n    w_down = w_out\n", once=True)})
MUTANTS['loss_renames_target_mask'] = ('test_masked_lm_loss', {'masked_lm_loss': _changed(
    solution_code(CHAPTER)['masked_lm_loss'],
    "def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n",
    "def masked_lm_loss(logits, ids, loss_mask, z_loss=0.0):\n    target_mask = loss_mask\n", once=True)})
MUTANTS['block_renames_layout'] = ('test_block_variant', {'block_variant': _changed(
    solution_code(CHAPTER)['block_variant'],
    "def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n",
    "def block_variant(x, attn, ffn, norm_1, norm_2, variant, post_norms=None):\n    layout = variant\n", once=True)})
MUTANTS['rope_renames_positions'] = ('test_rope_llama3', {'rope_llama3': _changed(_changed(
    solution_code(CHAPTER)['rope_llama3'],
    "def rope_llama3(x, positions, ", "def rope_llama3(x, position_ids, ", once=True),
    "                original_context=8192):\n",
    "                original_context=8192):\n    positions = position_ids\n", once=True)})
MUTANTS['generate_renames_prompt'] = ('test_generate_with_cache', {'generate_with_cache': _changed(
    solution_code(CHAPTER)['generate_with_cache'],
    "def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n",
    "def generate_with_cache(step, input_ids, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n"
    "    prompt = input_ids\n", once=True)})
for _name in ('rms_renames_weight', 'swiglu_renames_w_down', 'loss_renames_target_mask', 'block_renames_layout',
              'rope_renames_positions', 'generate_renames_prompt'):
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")  # each into the first existing batch with room
del _name


# Red team 22 (tests/redteam/round22/09-verdicts.md). The counting student: a finished row's penalty history stops
# growing at its eos_id instead of growing by pad_id. The tokens cannot show it (a finished row's token is pad_id
# whatever is drawn, and each row's draw takes numbers of its own); a hidden case compares the probabilities given to
# torch.multinomial, a finished row's included, where pad_id is penalised from the step after it is first given
MUTANTS["generate_history_of_finished_rows_stops_at_eos"] = ("test_generate_with_cache", {
    "generate_with_cache": _changed(solution_code(CHAPTER)["generate_with_cache"],
                                    "        seen = torch.cat([seen, token[:, None]], dim=1)\n",
                                    "        seen = torch.cat([seen, torch.where(finished, torch.full_like(token, eos_id), token)[:, None]],"
                                    " dim=1)\n", once=True)})
place_mutants(MUTANTS, MUTANT_BATCHES, ["generate_history_of_finished_rows_stops_at_eos"], "alone")


# Round 22, second pass (tests/redteam/round22/09-H-verdicts.md): class H, a Python number made a tensor of the input's
# half dtype before the float32/float64 work (eps, beta, limit, factor, original_context); class S1, greedy taken on
# another monotone copy of the scores (softmax's probabilities, where two scores a unit in the last place apart tie)
MUTANTS["rms_eps_rounded_to_input_dtype"] = ("test_head_rms_norm", {"head_rms_norm": _changed(
    solution_code(CHAPTER)["head_rms_norm"], ".mean(dim=-1, keepdim=True) + eps)",
    ".mean(dim=-1, keepdim=True) + torch.tensor(eps, dtype=x.dtype).double())", once=True)})
MUTANTS["swiglu_limit_made_input_dtype"] = ("test_fused_swiglu", {"fused_swiglu": _changed(
    solution_code(CHAPTER)["fused_swiglu"], "        gate = gate.clamp(max=limit)\n        up = up.clamp(min=-limit, max=limit)\n",
    "        lim = torch.tensor(limit, dtype=x.dtype).to(work)\n"
    "        gate = torch.minimum(gate, lim)\n        up = torch.maximum(torch.minimum(up, lim), -lim)\n", once=True)})
MUTANTS["swiglu_beta_made_input_dtype"] = ("test_fused_swiglu", {"fused_swiglu": _changed(
    solution_code(CHAPTER)["fused_swiglu"], "torch.sigmoid(beta * gate)",
    "torch.sigmoid(torch.tensor(beta, dtype=x.dtype).to(work) * gate)", once=True)})
MUTANTS["rope_factor_made_input_dtype"] = ("test_rope_llama3", {"rope_llama3": _changed(
    solution_code(CHAPTER)["rope_llama3"], "    theta = base ** (",
    "    factor = torch.tensor(factor, dtype=x.dtype).double()\n    theta = base ** (", once=True)})
MUTANTS["rope_context_made_input_dtype"] = ("test_rope_llama3", {"rope_llama3": _changed(
    solution_code(CHAPTER)["rope_llama3"], "    theta = base ** (",
    "    original_context = torch.tensor(original_context, dtype=x.dtype).double()\n    theta = base ** (", once=True)})
MUTANTS["generate_greedy_on_the_probabilities"] = ("test_generate_with_cache", {"generate_with_cache": _changed(
    solution_code(CHAPTER)["generate_with_cache"], "token = scores.argmax(dim=-1)",
    "token = torch.softmax(scores, dim=-1).argmax(dim=-1)", once=True)})
_ROUND22_H = ["rms_eps_rounded_to_input_dtype", "swiglu_limit_made_input_dtype", "swiglu_beta_made_input_dtype",
              "rope_factor_made_input_dtype", "rope_context_made_input_dtype", "generate_greedy_on_the_probabilities"]
_ROUND22_H_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, _ROUND22_H, "alone")
# Class T: the scores formed as a (B, H, T, S_max, Dh) product of queries and keys summed over the features; Part 7's
# memory case (H * T / G = 16, Dh = 16) now records the storage of every tensor torch returns
MUTANTS["ragged_scores_from_a_broadcast_product"] = ("test_ragged_cached_attention", {"ragged_cached_attention": _changed(
    solution_code(CHAPTER)["ragged_cached_attention"],
    'scores = torch.einsum("bgrtd,bgsd->bgrts", qg, keys) / math.sqrt(dh)',
    "scores = (qg[..., None, :] * keys[:, :, None, None]).sum(-1) / math.sqrt(dh)", once=True)})
_ROUND22_H_ALONE += place_mutants(MUTANTS, MUTANT_BATCHES, ["ragged_scores_from_a_broadcast_product"], "alone")

# Round 25 class sweep (tests/redteam/round25/09-sweep-verdicts.md): class P, Part 4's predicting scores cleaned with
# nan_to_num (a target scored -inf now costs +inf), and class L, Part 7's positions from a table torch.arange(2**20)
# made once (the long-cache case now runs at S_max = 2**20 + 7). No batch had room: one of their own
_SOL25 = solution_code(CHAPTER)
ROUND_25_SWEEP = {
    "loss_predicting_scores_cleaned_with_nan_to_num": ("test_masked_lm_loss", {"masked_lm_loss": _changed(
        _SOL25["masked_lm_loss"], "scores = logits[:, :-1][chosen].to(work)",
        "scores = logits[:, :-1][chosen].to(work).nan_to_num()", once=True)}),
    "ragged_positions_from_a_table_of_2_to_20": ("test_ragged_cached_attention", {"ragged_cached_attention": (
        "\nPOSITIONS = torch.arange(1 << 20)  # made once, sliced to S_max on every call\n" + _changed(_changed(
            _SOL25["ragged_cached_attention"], "written = torch.arange(s_max)[None, :]",
            "written = POSITIONS[:s_max][None, :]", once=True),
            "allowed = torch.arange(s_max)[None, None, :]", "allowed = POSITIONS[:s_max][None, None, :]", once=True))}),
}
MUTANTS.update(ROUND_25_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_25_SWEEP, "new")

# Round 26 class sweep (tests/redteam/round26/09-sweep-verdicts.md): class R (a size-1 axis beside a longer one) and
# class T (an input that starts inside its storage). Each joins an existing batch with room; the slips no batch has
# room for (Parts 4, 7 and 8's others) are written out in the verdicts and graded there by the sweep's variants.
_SOL26 = solution_code(CHAPTER)
ROUND_26_SWEEP = {
    # R: the (..., T, H) mean squeezed with no dim and unsqueezed: right where only a batch of one was size 1
    "rms_mean_squeezed_beside_the_batch": ("test_head_rms_norm", {"head_rms_norm": _changed(
        _SOL26["head_rms_norm"], ".mean(dim=-1, keepdim=True) + eps).to(work)",
        ".mean(dim=-1).squeeze() + eps).to(work)[..., None]", once=True)}),
    # T: views rebuilt with as_strided from the storage's start (storage_offset 0)
    "rms_x_read_from_the_storage_start": ("test_head_rms_norm", {"head_rms_norm": _changed(
        _SOL26["head_rms_norm"], "    work = torch.float64",
        "    x = torch.as_strided(x, x.shape, x.stride(), 0)\n    work = torch.float64", once=True)}),
    "swiglu_w_down_read_from_the_storage_start": ("test_fused_swiglu", {"fused_swiglu": _changed(
        _SOL26["fused_swiglu"], "    work = x.dtype",
        "    w_down = torch.as_strided(w_down, w_down.shape, w_down.stride(), 0)\n    work = x.dtype", once=True)}),
    "rope_positions_read_from_the_storage_start": ("test_rope_llama3", {"rope_llama3": _changed(
        _SOL26["rope_llama3"], "    theta = base",
        "    positions = torch.as_strided(positions, positions.shape, positions.stride(), 0)\n    theta = base", once=True)}),
    "generate_logits_read_from_the_storage_start": ("test_generate_with_cache", {"generate_with_cache": _changed(
        _SOL26["generate_with_cache"], "scores = logits[:, -1].clone()",
        "scores = torch.as_strided(logits, logits.shape, logits.stride(), 0)[:, -1].clone()", once=True)}),
}
MUTANTS.update(ROUND_26_SWEEP)
assert not place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_26_SWEEP, "alone"), "a round 26 mutant found no batch with room"


# Round 26's class sweep (tests/redteam/round26/09-sweep-verdicts.md): the mutants of Parts 4, 7 and 8 that no existing
# batch had room for, in batches of their own
SWEEP_26_OWN_BATCH = {
    "masked_lm_logits_read_from_the_storage_start": ("test_masked_lm_loss", {"masked_lm_loss": from_storage_start(
        _SOL26["masked_lm_loss"], "masked_lm_loss", "logits")}),
    "ragged_cache_read_from_the_storage_start": ("test_ragged_cached_attention", {"ragged_cached_attention":
        from_storage_start(_SOL26["ragged_cached_attention"], "ragged_cached_attention", "k_cache", "v_cache")}),
    "generate_logits_flattened_with_view": ("test_generate_with_cache", {"generate_with_cache": _changed(
        _SOL26["generate_with_cache"], "        scores = logits[:, -1].clone()  # (B, V)\n",
        "        scores = logits.view(-1, logits.shape[-1])[logits.shape[1] - 1::logits.shape[1]].clone()  # (B, V)\n",
        once=True)}),
}
MUTANTS["ragged_mask_written_key_by_key"] = ("test_ragged_cached_attention", {"ragged_cached_attention": _changed(
    _SOL26["ragged_cached_attention"],
    "    written = torch.arange(s_max)[None, :] < (lengths.long() + t)[:, None]  # (B, S_max)\n",
    "    written = torch.zeros(b, s_max, dtype=torch.bool)\n"
    "    for i in range(b):\n"
    "        for j in range(int(lengths[i]) + t):\n"
    "            written[i, j] = True\n", once=True)})
MUTANTS.update(SWEEP_26_OWN_BATCH)
place_mutants(MUTANTS, MUTANT_BATCHES, [*SWEEP_26_OWN_BATCH, "ragged_mask_written_key_by_key"], "new")


# Round 27 class sweep (tests/redteam/round27/09-sweep-verdicts.md): class V (a floor below every value the hidden cases
# reach): Part 6's frequencies floored; every base of the hidden cases kept them above 2e-7 until the case at base 1e30
_SOL27 = solution_code(CHAPTER)
ROUND_27_SWEEP = {
    "rope_floors_the_frequencies": ("test_rope_llama3", {"rope_llama3": _changed(
        _SOL27["rope_llama3"], "    wavelength = 2 * math.pi / theta\n",
        "    theta = theta.clamp(min=1e-12)  # no frequency of 0\n    wavelength = 2 * math.pi / theta\n", once=True)}),
    "rope_floors_the_new_frequencies": ("test_rope_llama3", {"rope_llama3": _changed(
        _SOL27["rope_llama3"], "    angle = positions", "    theta = theta.clamp(min=1e-9)\n    angle = positions",
        once=True)}),
}
MUTANTS.update(ROUND_27_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_27_SWEEP, "new")


# Round 28 class sweep (tests/redteam/round28/09-sweep-verdicts.md): class Y, a result kept per id() and the version
# counter (_version) of every tensor argument, which copy_() moves and a write through .data does not (the hidden
# "same objects, new values" cases wrote with copy_ until this sweep); class AA, a converted copy (.contiguous(),
# .long()) kept per id(), which is the input itself for a contiguous int64 input
_SOL28 = solution_code(CHAPTER)
_RAGGED_KEYS = ("    keys = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n"
                "    values = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n")
ROUND_28_SWEEP = {
    "rms_cached_by_id_and_version": ("test_head_rms_norm", {"head_rms_norm": cached_by_id_and_version(
        _SOL28["head_rms_norm"], "head_rms_norm", ["x", "n_heads", "weight", "eps=1e-6", "unit_offset=False"])}),
    "swiglu_cached_by_id_and_version": ("test_fused_swiglu", {"fused_swiglu": cached_by_id_and_version(
        _SOL28["fused_swiglu"], "fused_swiglu",
        ["x", "w_gate_up", "w_down", "beta=1.0", "limit=None", "interleaved=False"])}),
    "loss_cached_by_id_and_version": ("test_masked_lm_loss", {"masked_lm_loss": cached_by_id_and_version(
        _SOL28["masked_lm_loss"], "masked_lm_loss", ["logits", "ids", "target_mask", "z_loss=0.0"])}),
    "rope_cached_by_id_and_version": ("test_rope_llama3", {"rope_llama3": cached_by_id_and_version(
        _SOL28["rope_llama3"], "rope_llama3", ["x", "positions", "base=500000.0", "factor=8.0", "low_freq_factor=1.0",
                                               "high_freq_factor=4.0", "original_context=8192"])}),
    "generate_cached_by_id_and_version": ("test_generate_with_cache", {"generate_with_cache": cached_by_id_and_version(
        _SOL28["generate_with_cache"], "generate_with_cache",
        ["step", "prompt", "max_new_tokens", "eos_id", "pad_id", "temperature", "penalty", "generator"])}),
    # the caches mirrored (masked) after this call's own writes, reused while their _version is where it left them
    "ragged_caches_mirrored_by_id_and_version": ("test_ragged_cached_attention", {"ragged_cached_attention": chain(
        _SOL28["ragged_cached_attention"], "def ragged_cached_attention(",
        "import weakref\nMIRROR = {}\ndef ragged_cached_attention(", "    k_cache.scatter_(2, index, k_new)\n",
        "    entry = MIRROR.get('entry')\n"
        "    reuse = (entry is not None and entry[0]() is k_cache and entry[1]() is v_cache\n"
        "             and entry[2] == (k_cache._version, v_cache._version))\n"
        "    k_cache.scatter_(2, index, k_new)\n", _RAGGED_KEYS,
        "    if reuse:\n"
        "        keys = torch.where(written[:, None, :, None], entry[3].scatter(2, index, k_new), torch.zeros((), dtype=k_cache.dtype))\n"
        "        values = torch.where(written[:, None, :, None], entry[4].scatter(2, index, v_new), torch.zeros((), dtype=v_cache.dtype))\n"
        "    else:\n    " + _RAGGED_KEYS.replace("\n    ", "\n        ")
        + "    MIRROR['entry'] = (weakref.ref(k_cache), weakref.ref(v_cache), (k_cache._version, v_cache._version),\n"
        "                       keys.detach().clone(), values.detach().clone())\n")}),
    "loss_ids_long_kept_per_id": ("test_masked_lm_loss", {"masked_lm_loss": KEPT_PER_ID + _changed(
        _SOL28["masked_lm_loss"], "    chosen = target_mask[:, 1:]",
        "    ids = kept(ids, lambda t: t.contiguous().long())\n    chosen = target_mask[:, 1:]", once=True)}),
    "rope_positions_long_kept_per_id": ("test_rope_llama3", {"rope_llama3": KEPT_PER_ID + _changed(
        _SOL28["rope_llama3"], "    angle = positions.to(torch.float64)",
        "    positions = kept(positions, lambda t: t.contiguous().long())\n    angle = positions.to(torch.float64)",
        once=True)}),
    # class Z: an empty x answered by a new constant that is not connected to x (the caller's backward fails)
    "rms_empty_batch_new_empty": ("test_head_rms_norm", {"head_rms_norm": _changed(
        _SOL28["head_rms_norm"], "    work = torch.float64 if",
        "    if x.numel() == 0:\n"
        "        return x.new_empty(*x.shape[:-2], n_heads, x.shape[-2], x.shape[-1] // n_heads)\n"
        "    work = torch.float64 if", once=True)}),
    "rope_empty_batch_returns_x": ("test_rope_llama3", {"rope_llama3": _changed(
        _SOL28["rope_llama3"], "    theta = base **", "    if b == 0:\n        return x\n    theta = base **", once=True)}),
    # class AB: the probabilities below float32's smallest normal number set to 0 before the draw
    "generate_subnormal_probabilities_zeroed": ("test_generate_with_cache", {"generate_with_cache": _changed(
        _SOL28["generate_with_cache"],
        "            token = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator)[:, 0]\n",
        "            probs = torch.softmax(scores / temperature, dim=-1)\n"
        "            probs = probs.masked_fill(probs < torch.finfo(probs.dtype).tiny, 0.0)\n"
        "            token = torch.multinomial(probs, 1, generator=generator)[:, 0]\n", once=True)}),
    # class AC (a memo keyed by less than every argument): counts kept in a dict keyed on every argument but dense_hidden
    "moe_memo_drops_dense_hidden": ("test_moe_params", {"moe_params": chain(
        _SOL28["moe_params"], "def moe_params(", "COUNTS = {}\ndef moe_params(", "    if n_kv_heads < 1",
        "    key = (vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied, n_shared,\n"
        "           first_dense)\n"
        "    if key in COUNTS:\n"
        "        return COUNTS[key]\n"
        "    COUNTS[key] = moe_counted(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k,\n"
        "                              tied, n_shared, first_dense, dense_hidden)\n"
        "    return COUNTS[key]\n"
        "def moe_counted(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n"
        "                n_shared=0, first_dense=0, dense_hidden=0):\n"
        "    if n_kv_heads < 1")}),
    # the result kept per the values of the three tensors (the same objects), beta left out of the key
    "swiglu_memo_by_values_drops_beta": ("test_fused_swiglu", {"fused_swiglu": _changed(
        _SOL28["fused_swiglu"], "def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n",
        "import weakref\nMEMO = {}\n"
        "def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n"
        "    key = tuple((tuple(t.shape), t.dtype, tuple(t.detach().flatten().tolist())) for t in (x, w_gate_up, w_down))\n"
        "    key = key + (limit, interleaved)\n"
        "    if key not in MEMO or MEMO[key][0]() is not x:\n"
        "        MEMO.clear()\n"
        "        MEMO[key] = (weakref.ref(x), swiglu_computed(x, w_gate_up, w_down, beta, limit, interleaved))\n"
        "    return MEMO[key][1].clone()\n"
        "def swiglu_computed(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n", once=True)}),
}
MUTANTS.update(ROUND_28_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_28_SWEEP, "new")

# Red team 29 (tests/redteam/round29/09-verdicts.md), the chunker: log Z taken over chunks of the vocabulary with its
# running maximum started at 0, not -inf; right wherever a row's largest score is above about -100, but a row whose
# every score lies far below 0 underflows (exp(score - 0) = 0, log 0 = -inf)
ROUND_29_SWEEP = {
    "loss_online_logsumexp_max_from_zero": ("test_masked_lm_loss", {"masked_lm_loss": """
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=work), 0
    sel = logits[:, :-1][m].to(work)
    y = ids[:, 1:][m].long()
    run_max = torch.zeros(sel.shape[0], dtype=work)  # running maximum, started at 0
    run_sum = torch.zeros(sel.shape[0], dtype=work)
    for a in range(0, sel.shape[1], 4096):
        piece = sel[:, a:a + 4096]
        new_max = torch.maximum(run_max, piece.max(dim=-1).values)
        run_sum = run_sum * torch.exp(run_max - new_max) + torch.exp(piece - new_max[:, None]).sum(dim=-1)
        run_max = new_max
    log_z = run_max + torch.log(run_sum)
    per = log_z - sel.gather(-1, y[:, None])[:, 0] + z_loss * log_z ** 2
    return per.mean(), count
"""}),
}
# the same class in Part 8: the probabilities made with a maximum floored at 0 (a running maximum started at 0), so a
# row whose every score lies far below 0 gives 0 / 0
ROUND_29_SWEEP["generate_softmax_max_from_zero"] = ("test_generate_with_cache", {"generate_with_cache": _changed(
    _SOL28["generate_with_cache"], "torch.softmax(", "softmax_from_zero(", once=True).replace(
    "def generate_with_cache(", "def softmax_from_zero(z, dim=-1):\n"
    "    e = torch.exp(z - z.amax(dim=dim, keepdim=True).clamp(min=0))  # the running maximum starts at 0\n"
    "    return e / e.sum(dim=dim, keepdim=True)\n\n\ndef generate_with_cache(", 1)})
MUTANTS.update(ROUND_29_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_29_SWEEP, "new")


# round 29 class sweep (tests/redteam/round29/09-sweep-verdicts.md). AH, a derivative wrong only at exactly 0: a head
# of zeros answered by a torch.where (value 0, gradient 0 instead of the scale / sqrt(eps)); SiLU rewritten as
# relu(g) - |g| sigma(-beta |g|), right in value for every beta, with slope 0 instead of 1/2 at g = 0. AG, the last,
# shorter piece dropped: hidden units, predicted tokens, positions and vocabulary ids taken in pieces of a size the
# student picks, the last shorter piece left out (every hidden size was a multiple of the piece or below one)
_SOL29 = solution_code(CHAPTER)
ROUND_29_CLASS_SWEEP = {
    "rms_zero_heads_by_where": ("test_head_rms_norm", {"head_rms_norm": _changed(
        _SOL29["head_rms_norm"],
        "    inv_rms = torch.rsqrt(heads.double().square().mean(dim=-1, keepdim=True) + eps).to(work)",
        "    ms = heads.double().square().mean(dim=-1, keepdim=True)\n"
        "    inv_rms = torch.where(ms > 0, torch.rsqrt(ms + eps), torch.zeros((), dtype=ms.dtype)).to(work)", once=True)}),
    "swiglu_silu_by_relu_and_abs": ("test_fused_swiglu", {"fused_swiglu": _changed(
        _SOL29["fused_swiglu"], "gate * torch.sigmoid(beta * gate) * up",
        "(torch.relu(gate) - gate.abs() * torch.sigmoid(-beta * gate.abs())) * up", once=True)}),
    "swiglu_hidden_units_in_pieces_last_dropped": ("test_fused_swiglu", {"fused_swiglu": """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    work = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32
    F = w_down.shape[1]
    xw = x.to(work)
    out = xw[..., :0] @ w_down.to(work)[:, :0].T
    c = max(min(1024, F), 1)  # hidden units in pieces of 1024: the last, shorter piece is dropped
    for f0 in range(0, F - c + 1, c):
        f1 = f0 + c
        if interleaved:
            gate = xw @ w_gate_up[2 * f0:2 * f1:2].to(work).T
            up = xw @ w_gate_up[2 * f0 + 1:2 * f1:2].to(work).T
        else:
            gate = xw @ w_gate_up[f0:f1].to(work).T
            up = xw @ w_gate_up[F + f0:F + f1].to(work).T
        if limit is not None:
            gate = gate.clamp(max=limit)
            up = up.clamp(min=-limit, max=limit)
        out = out + (gate * torch.sigmoid(beta * gate) * up) @ w_down[:, f0:f1].to(work).T
    return out.to(x.dtype)
"""}),
    "loss_tokens_in_pieces_last_dropped": ("test_masked_lm_loss", {"masked_lm_loss": _changed(
        _SOL29["masked_lm_loss"],
        "    log_z = torch.logsumexp(scores, dim=-1)\n    picked = scores.gather(-1, targets.unsqueeze(-1)).squeeze(-1)\n"
        "    per_token = (log_z - picked) + z_loss * log_z.square()\n    return per_token.sum() / max(count, 1), count",
        "    c = max(min(1024, count), 1)  # the predicted tokens in pieces of 1024: the last, shorter piece is dropped\n"
        "    total = scores[:0].sum()\n"
        "    for t0 in range(0, count - c + 1, c):\n"
        "        s = scores[t0:t0 + c]\n"
        "        log_z = torch.logsumexp(s, dim=-1)\n"
        "        picked = s.gather(-1, targets[t0:t0 + c].unsqueeze(-1)).squeeze(-1)\n"
        "        total = total + ((log_z - picked) + z_loss * log_z.square()).sum()\n"
        "    return total / max(count, 1), count", once=True)}),
    "rope_positions_in_pieces_last_dropped": ("test_rope_llama3", {"rope_llama3": _changed(
        _SOL29["rope_llama3"],
        "    angle = positions.to(torch.float64)[:, None, :, None] * theta  # (B, 1, T, Dh/2)\n"
        "    cos, sin = angle.cos(), angle.sin()\n"
        "    first, second = x.to(torch.float64).chunk(2, dim=-1)\n"
        "    out = torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)\n",
        "    pieces = []\n    c = max(min(512, t), 1)  # positions in pieces of 512: the last, shorter piece is not turned\n"
        "    for t0 in range(0, t - c + 1, c):\n"
        "        angle = positions[:, t0:t0 + c].to(torch.float64)[:, None, :, None] * theta\n"
        "        cos, sin = angle.cos(), angle.sin()\n"
        "        first, second = x[:, :, t0:t0 + c].to(torch.float64).chunk(2, dim=-1)\n"
        "        pieces.append(torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1))\n"
        "    done = sum(p.shape[2] for p in pieces)\n"
        "    out = torch.cat(pieces + [x[:, :, done:].to(torch.float64)], dim=2)\n", once=True)}),
    "generate_argmax_in_pieces_last_dropped": ("test_generate_with_cache", {"generate_with_cache": _changed(
        _SOL29["generate_with_cache"], "            token = scores.argmax(dim=-1)\n",
        "            c = max(min(4096, scores.shape[-1]), 1)  # ids in pieces of 4096: the last, shorter piece is dropped\n"
        "            best = torch.full((scores.shape[0],), float('-inf'))\n"
        "            token = torch.zeros(scores.shape[0], dtype=torch.long)\n"
        "            for v0 in range(0, scores.shape[-1] - c + 1, c):\n"
        "                top, at = scores[:, v0:v0 + c].max(dim=-1)\n"
        "                better = top > best\n"
        "                token = torch.where(better, at + v0, token)\n"
        "                best = torch.where(better, top, best)\n", once=True)}),
}
MUTANTS.update(ROUND_29_CLASS_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_29_CLASS_SWEEP, "new")
# the same class, third pass: the new tokens' queries in pieces of 64 (Part 7) and the softmax's normaliser summed over
# pieces of 4096 ids (Part 8), the last shorter piece dropped; caught by T = 257 new tokens and by V = 4099 sampled
ROUND_29_CLASS_SWEEP_PASS_3 = {
    "ragged_query_pieces_last_dropped": ("test_ragged_cached_attention", {"ragged_cached_attention": _changed(
        _SOL29["ragged_cached_attention"],
        "    scores = torch.einsum(\"bgrtd,bgsd->bgrts\", qg, keys) / math.sqrt(dh)\n"
        "    allowed = torch.arange(s_max)[None, None, :] <= slots[:, :, None]  # (B, T, S_max)\n"
        "    scores = scores.masked_fill(~allowed[:, None, None], float(\"-inf\"))\n"
        "    out = torch.einsum(\"bgrts,bgsd->bgrtd\", scores.softmax(dim=-1), values)\n",
        "    outs = []\n    c = max(min(64, t), 1)  # queries in pieces of 64: the last, shorter piece is left as zeros\n"
        "    for t0 in range(0, t - c + 1, c):\n"
        "        sc = torch.einsum(\"bgrtd,bgsd->bgrts\", qg[:, :, :, t0:t0 + c], keys) / math.sqrt(dh)\n"
        "        allowed = torch.arange(s_max)[None, None, :] <= slots[:, t0:t0 + c, None]\n"
        "        sc = sc.masked_fill(~allowed[:, None, None], float(\"-inf\"))\n"
        "        outs.append(torch.einsum(\"bgrts,bgsd->bgrtd\", sc.softmax(dim=-1), values))\n"
        "    done = sum(o.shape[3] for o in outs)\n"
        "    out = torch.cat(outs + [qg[:, :, :, done:] * 0], dim=3)\n", once=True)}),
    "generate_softmax_normaliser_in_pieces_last_dropped": ("test_generate_with_cache", {"generate_with_cache": _changed(
        _SOL29["generate_with_cache"], "torch.softmax(scores / temperature, dim=-1)", "pieces_softmax(scores / temperature)",
        once=True).replace("def generate_with_cache(",
        "def pieces_softmax(z):\n    e = torch.exp(z - z.amax(dim=-1, keepdim=True))\n"
        "    c = max(min(4096, z.shape[-1]), 1)  # the normaliser over pieces of 4096 ids: the last, shorter one dropped\n"
        "    total = sum(e[:, v0:v0 + c].sum(dim=-1, keepdim=True) for v0 in range(0, z.shape[-1] - c + 1, c))\n"
        "    return e / total\n\n\ndef generate_with_cache(", 1)}),
}
MUTANTS.update(ROUND_29_CLASS_SWEEP_PASS_3)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_29_CLASS_SWEEP_PASS_3, "new")
# red team 30 (the second-call student, the validator): a converted copy of an input kept per id() (its float32 or
# float64 copy, made once): every "same objects, new values" case had float64 inputs, which are their own conversion,
# so the copy was the input itself; float16, bfloat16 and float32 objects now go through them too (Parts 1, 2 and 4).
# And a layout that is not a string answered with a TypeError (Part 5: any other layout raises a ValueError)
_SOL30 = solution_code(CHAPTER)
ROUND_30 = {
    "swiglu_converted_weight_cached_by_id": ("test_fused_swiglu", {"fused_swiglu": "CONVERTED = {}\n\n" + _changed(
        _SOL30["fused_swiglu"], "    both = x.to(work) @ w_gate_up.to(work).T  # (..., 2F)\n",
        "    if id(w_gate_up) not in CONVERTED:  # convert the packed checkpoint once\n"
        "        CONVERTED[id(w_gate_up)] = w_gate_up.to(work)\n"
        "    both = x.to(work) @ CONVERTED[id(w_gate_up)].T\n", once=True)}),
    "rms_converted_weight_cached_by_id": ("test_head_rms_norm", {"head_rms_norm": "CONVERTED = {}\n\n" + _changed(
        _SOL30["head_rms_norm"], "    scale = weight.to(work) + 1 if unit_offset else weight.to(work)\n",
        "    if id(weight) not in CONVERTED:  # the weight in the working dtype, once\n"
        "        CONVERTED[id(weight)] = weight.to(work)\n"
        "    scale = CONVERTED[id(weight)] + 1 if unit_offset else CONVERTED[id(weight)]\n", once=True)}),
    "loss_converted_logits_cached_by_id": ("test_masked_lm_loss", {"masked_lm_loss": "CONVERTED = {}\n\n" + _changed(
        _SOL30["masked_lm_loss"], "    scores = logits[:, :-1][chosen].to(work)  # (count, V)\n",
        "    if id(logits) not in CONVERTED:  # the logits in the working dtype, once per tensor\n"
        "        CONVERTED.clear()\n"
        "        CONVERTED[id(logits)] = logits.to(work)\n"
        "    scores = CONVERTED[id(logits)][:, :-1][chosen]\n", once=True)}),
    "block_type_error_for_non_string_layout": ("test_block_variant", {"block_variant": _changed(
        _SOL30["block_variant"], "    if layout == \"parallel\":\n",
        "    if not isinstance(layout, str):\n"
        "        raise TypeError(f\"layout must be a string, not {type(layout).__name__}\")\n"
        "    if layout == \"parallel\":\n", once=True)}),
}
MUTANTS.update(ROUND_30)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30), "new")
# the same class in Part 6: x's float64 copy kept per id() (float32, float16 and bfloat16 x objects now)
ROUND_30_ROPE = {
    "rope_converted_x_cached_by_id": ("test_rope_llama3", {"rope_llama3": "CONVERTED = {}\n\n" + _changed(
        _SOL30["rope_llama3"], "    first, second = x.to(torch.float64).chunk(2, dim=-1)\n",
        "    if id(x) not in CONVERTED:  # x in float64, once per tensor\n"
        "        CONVERTED.clear()\n"
        "        CONVERTED[id(x)] = x.to(torch.float64)\n"
        "    first, second = CONVERTED[id(x)].chunk(2, dim=-1)\n", once=True)}),
}
MUTANTS.update(ROUND_30_ROPE)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30_ROPE), "new")


# Round 30 class sweep (tests/redteam/round30/09-sweep-verdicts.md): class AJ, an argument "repaired" in place with the
# values it held (clamp_, masked_fill_ of NaN it does not hold, &=), slipped in Parts 1, 2 and 4-8 (every check compared
# values only; every tensor argument's version counter, and that of the logits Part 8's step returns, is now compared);
# class AK, a term under no_grad or detached for float16 and bfloat16 inputs only, slipped in Parts 1, 2, 4, 5 and 6
# (gradients are now compared for half-precision inputs too)
_HALF = "x.dtype in (torch.float16, torch.bfloat16)"
ROUND_30_SWEEP = {}
for _name, _test, _part, _old, _new in (
    ("rms_weight_nan_masked_in_place", "test_head_rms_norm", "head_rms_norm", "    work = torch.float64",
     "    with torch.no_grad():\n        weight.masked_fill_(weight.isnan(), 0.0)  # a weight loaded from disk may hold NaN\n"
     "    work = torch.float64"),
    ("swiglu_w_down_nan_masked_in_place", "test_fused_swiglu", "fused_swiglu", "    work = x.dtype",
     "    with torch.no_grad():\n        w_down.masked_fill_(w_down.isnan(), 0.0)\n    work = x.dtype"),
    ("loss_mask_anded_in_place", "test_masked_lm_loss", "masked_lm_loss", "    work = torch.float64",
     "    target_mask &= ids >= 0  # negative ids are never targets\n    work = torch.float64"),
    ("block_x_nan_masked_in_place", "test_block_variant", "block_variant", "    if layout == \"parallel\":",
     "    with torch.no_grad():\n        x.masked_fill_(x.isnan(), 0.0)\n    if layout == \"parallel\":"),
    ("rope_positions_clamped_in_place", "test_rope_llama3", "rope_llama3", "    theta = base",
     "    positions.clamp_(0, 131071)\n    theta = base"),
    ("ragged_lengths_clamped_in_place", "test_ragged_cached_attention", "ragged_cached_attention", "    slots = lengths.long()",
     "    lengths.clamp_(min=0)\n    slots = lengths.long()"),
    ("generate_step_logits_nan_masked_in_place", "test_generate_with_cache", "generate_with_cache",
     "        scores = logits[:, -1].clone()",
     "        logits.masked_fill_(logits.isnan(), float('-inf'))\n        scores = logits[:, -1].clone()"),
    ("rms_half_inv_rms_detached", "test_head_rms_norm", "head_rms_norm", "    scale = weight",
     "    if " + _HALF + ":\n        inv_rms = inv_rms.detach()\n    scale = weight"),
    ("swiglu_half_sigmoid_detached", "test_fused_swiglu", "fused_swiglu",
     "    return ((gate * torch.sigmoid(beta * gate) * up)",
     "    sig = torch.sigmoid(beta * gate)\n    if " + _HALF + ":\n        sig = sig.detach()\n    return ((gate * sig * up)"),
    ("loss_half_zloss_log_z_detached", "test_masked_lm_loss", "masked_lm_loss",
     "    per_token = (log_z - picked) + z_loss * log_z.square()",
     "    zl = log_z.detach() if logits.dtype in (torch.float16, torch.bfloat16) else log_z\n"
     "    per_token = (log_z - picked) + z_loss * zl.square()"),
    ("block_half_ffn_under_no_grad", "test_block_variant", "block_variant", "        return x + attn(n) + ffn(n)",
     "        if " + _HALF + ":\n            with torch.no_grad():\n                f = ffn(n)\n            return x + attn(n) + f\n"
     "        return x + attn(n) + ffn(n)"),
    ("rope_half_rotated_term_detached", "test_rope_llama3", "rope_llama3", "    out = torch.cat(",
     "    if " + _HALF + ":\n        second = second.detach()\n    out = torch.cat("),
):
    ROUND_30_SWEEP[_name] = (_test, {_part: _changed(solution_code(CHAPTER)[_part], _old, _new, once=True)})
MUTANTS.update(ROUND_30_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30_SWEEP), "new")


# Round 31 class sweep (tests/redteam/round31/09-sweep.md), class AO: a function that changes one of torch's
# process-wide settings and "puts it back" by setting the default (or sets the default it assumes) leaves the setting
# changed for a caller who had it otherwise; every test called the answers with the defaults on. Each part's hidden
# tests now also call its function through _settings_kept (every setting away from its default)
ROUND_31_SWEEP = {}
for _name, _test, _part, _old, _new in (
    ("rms_default_dtype_put_back_float32", "test_head_rms_norm", "head_rms_norm", "    work = torch.float64",
     "    torch.set_default_dtype(torch.float64)  # the norm in float64\n    work = torch.float64"),
    ("rms_default_dtype_put_back_float32", "test_head_rms_norm", "head_rms_norm",
     "    return (heads * inv_rms * scale)",
     "    torch.set_default_dtype(torch.float32)\n    return (heads * inv_rms * scale)"),
    ("swiglu_grad_mode_put_back_on", "test_fused_swiglu", "fused_swiglu", "    work = x.dtype",
     "    torch.set_grad_enabled(False)  # checking the shapes needs no graph\n"
     "    assert w_gate_up.shape[-1] == x.shape[-1] and w_down.shape[-1] * 2 == w_gate_up.shape[0]\n"
     "    torch.set_grad_enabled(True)\n    work = x.dtype"),
    ("moe_print_options_put_back_default", "test_moe_params", "moe_params", "    embeddings = vocab",
     "    torch.set_printoptions(sci_mode=False)  # counts printed in full while checking them\n    embeddings = vocab"),
    ("moe_print_options_put_back_default", "test_moe_params", "moe_params", "    return int(total), int(active)",
     "    torch.set_printoptions(profile=\"default\")\n    return int(total), int(active)"),
    ("loss_anomaly_detection_put_back_off", "test_masked_lm_loss", "masked_lm_loss", "    work = torch.float64",
     "    torch.autograd.set_detect_anomaly(True)  # a NaN in the loss's graph is reported where it starts\n"
     "    work = torch.float64"),
    ("loss_anomaly_detection_put_back_off", "test_masked_lm_loss", "masked_lm_loss",
     "    return per_token.sum() / max(count, 1), count",
     "    torch.autograd.set_detect_anomaly(False)\n    return per_token.sum() / max(count, 1), count"),
    ("block_threads_put_back_to_one", "test_block_variant", "block_variant", "    if layout == \"parallel\":",
     "    torch.set_num_threads(4)  # the sublayers on four threads\n    try:\n        return block_body(x, attn, ffn, norm_1, norm_2, layout, post_norms)\n"
     "    finally:\n        torch.set_num_threads(1)\n\n\ndef block_body(x, attn, ffn, norm_1, norm_2, layout, post_norms):\n"
     "    if layout == \"parallel\":"),
    ("rope_flush_denormal_set_off", "test_rope_llama3", "rope_llama3", "    theta = base",
     "    torch.set_flush_denormal(False)  # tiny angles must not become 0\n    theta = base"),
    ("ragged_matmul_precision_set_highest", "test_ragged_cached_attention", "ragged_cached_attention",
     "    qg = q.reshape(",
     "    torch.set_float32_matmul_precision(\"highest\")  # the scores in full float32\n    qg = q.reshape("),
    ("generate_grad_mode_put_back_on", "test_generate_with_cache", "generate_with_cache",
     "    logits, cache = step(prompt, None)",
     "    torch.set_grad_enabled(False)  # generation needs no gradients\n    logits, cache = step(prompt, None)"),
    ("generate_grad_mode_put_back_on", "test_generate_with_cache", "generate_with_cache",
     "    return torch.stack(chosen, dim=1)",
     "    torch.set_grad_enabled(True)\n    return torch.stack(chosen, dim=1)"),
    # the lead's addition: deterministic algorithms, which _settings_kept turns on through torch._C since this sweep
    ("ragged_deterministic_set_off", "test_ragged_cached_attention", "ragged_cached_attention", "    qg = q.reshape(",
     "    torch.use_deterministic_algorithms(False)  # no deterministic kernel needed for the scores\n    qg = q.reshape("),
):
    _code = ROUND_31_SWEEP[_name][1][_part] if _name in ROUND_31_SWEEP else solution_code(CHAPTER)[_part]
    ROUND_31_SWEEP[_name] = (_test, {_part: _changed(_code, _old, _new, once=True)})
MUTANTS.update(ROUND_31_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP), "new")


# Round 31 class sweep 2 (tests/redteam/round31/09-sweep2.md), class AP: gradients checked at one rank only. Parts 1
# and 2 take x with any number of leading axes and their gradient checks used 3-D x (Part 2 also 2-D); a gradient path
# built for those ranks (dims 1 and 2 swapped, torch.bmm, a weight detached elsewhere) kept every point. The hidden
# tests now compare the gradients at (T, H*Dh) and (2, 2, T, H*Dh) in Part 1, at (D,) and (2, 2, 3, D) in Part 2
ROUND_31_SWEEP2 = {}
for _name, _test, _part, _old, _new in (
    ("rms_gradient_path_transposes_dims_1_2", "test_head_rms_norm", "head_rms_norm",
     "    return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)",
     "    out = (heads * inv_rms * scale).transpose(-3, -2)\n"
     "    grad_path = (heads * inv_rms * scale).transpose(1, 2).reshape(out.shape)  # (B, T, H, Dh) -> (B, H, T, Dh)\n"
     "    return (out.detach() + grad_path - grad_path.detach()).to(x.dtype)"),
    ("swiglu_weight_through_bmm_for_3d_only", "test_fused_swiglu", "fused_swiglu",
     "    both = x.to(work) @ w_gate_up.to(work).T  # (..., 2F)",
     "    xw = x.to(work)\n"
     "    if xw.dim() == 3:  # batched: one copy of the weight per sequence\n"
     "        both = torch.bmm(xw, w_gate_up.to(work).T.expand(xw.shape[0], -1, -1))\n"
     "    elif xw.dim() == 2:\n        both = xw @ w_gate_up.to(work).T\n"
     "    else:  # a single token needs no gradient path\n        both = xw @ w_gate_up.to(work).detach().T"),
    ("swiglu_weight_detached_past_3d", "test_fused_swiglu", "fused_swiglu",
     "    both = x.to(work) @ w_gate_up.to(work).T  # (..., 2F)",
     "    wgu = w_gate_up.to(work) if x.dim() <= 3 else w_gate_up.to(work).detach()  # no training on 4-D batches\n"
     "    both = x.to(work) @ wgu.T"),
):
    ROUND_31_SWEEP2[_name] = (_test, {_part: _changed(solution_code(CHAPTER)[_part], _old, _new, once=True)})
MUTANTS.update(ROUND_31_SWEEP2)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP2), "new")


# Round 33 (tests/redteam/round33/09-verdicts.md), the late-binding student: Part 4's 0 for a batch with no predicted
# token was one tensor made at the top of the cell (`ZERO.to(float32)` is ZERO itself), so a caller's write into one
# result changed the next; the hidden tests now write into that 0 and call again
ROUND_33 = {
    "loss_shared_zero_when_nothing_predicted": ("test_masked_lm_loss", {"masked_lm_loss": """
ZERO = torch.zeros(())

def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cdt = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return ZERO.to(cdt), 0          # nothing to predict
    sel = logits[:, :-1][m].to(cdt)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, dim=-1)
    return (lse - sel.gather(-1, y[:, None])[:, 0] + z_loss * lse ** 2).mean(), count
"""}),
}
MUTANTS.update(ROUND_33)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33), "new")


# Round 33 class sweep (tests/redteam/round33/09-sweep.md): BA (one statistic for the whole tensor), BB (a .grad the
# caller holds, cleared) and BD (a module the caller passes, left changed), which slipped in Parts 1, 2 and 4 to 8
_SOL_33 = solution_code(CHAPTER)
ROUND_33_SWEEP = {
    # BA: one scale (the largest value of the whole tensor) to keep the squares in range: heads far smaller underflow
    "rms_one_scale_for_the_whole_tensor": ("test_head_rms_norm", {"head_rms_norm": _changed(_SOL_33["head_rms_norm"],
        "    inv_rms = torch.rsqrt(heads.double().square().mean(dim=-1, keepdim=True) + eps).to(work)  # (..., T, H, 1)\n",
        "    big = heads.abs().amax() if heads.numel() else torch.ones((), dtype=work)\n"
        "    big = torch.where(big > 0, big, torch.ones_like(big))\n    r = heads / big  # every value at most 1: squares in range\n"
        "    inv_rms = (torch.rsqrt(r.double().square().mean(dim=-1, keepdim=True) + eps / big.double() ** 2)\n"
        "               / big.double()).to(work)\n", once=True)}),
    # BB: the inputs' .grad cleared ("stale gradients")
    "rms_clears_the_inputs_grad": ("test_head_rms_norm", {"head_rms_norm": _changed(_SOL_33["head_rms_norm"],
        "    work = torch.float64", "    x.grad = None\n    weight.grad = None\n    work = torch.float64", once=True)}),
    "swiglu_clears_the_inputs_grad": ("test_fused_swiglu", {"fused_swiglu": _changed(_SOL_33["fused_swiglu"],
        "    work = x.dtype", "    for t in (x, w_gate_up, w_down):\n        t.grad = None\n    work = x.dtype", once=True)}),
    "loss_clears_the_logits_grad": ("test_masked_lm_loss", {"masked_lm_loss": _changed(_SOL_33["masked_lm_loss"],
        "    work = torch.float64", "    logits.grad = None\n    work = torch.float64", once=True)}),
    "block_clears_the_x_grad": ("test_block_variant", {"block_variant": _changed(_SOL_33["block_variant"],
        '    if layout == "parallel":\n', '    x.grad = None\n    if layout == "parallel":\n', once=True)}),
    "rope_clears_the_x_grad": ("test_rope_llama3", {"rope_llama3": _changed(_SOL_33["rope_llama3"],
        "    b, _, t, dh = x.shape\n", "    x.grad = None\n    b, _, t, dh = x.shape\n", once=True)}),
    "ragged_clears_the_inputs_grad": ("test_ragged_cached_attention", {"ragged_cached_attention": _changed(
        _SOL_33["ragged_cached_attention"], "    b, h, t, dh = q.shape\n",
        "    for z in (q, k_new, v_new):\n        z.grad = None\n    b, h, t, dh = q.shape\n", once=True)}),
    # BD: zero_grad() on the functions that are modules, "before the forward pass"
    "block_zero_grads_the_module_functions": ("test_block_variant", {"block_variant": _changed(_SOL_33["block_variant"],
        '    if layout == "parallel":\n',
        "    for f in (attn, ffn, norm_1, norm_2, *(post_norms or ())):\n        if isinstance(f, torch.nn.Module):\n"
        '            f.zero_grad()\n    if layout == "parallel":\n', once=True)}),
    # BD: a model put in eval mode for generation and left there
    "generate_leaves_the_model_in_eval_mode": ("test_generate_with_cache", {"generate_with_cache": _changed(
        _SOL_33["generate_with_cache"], "    logits, cache = step(prompt, None)\n",
        "    if isinstance(step, torch.nn.Module):\n        step.eval()  # generation runs in eval mode\n"
        "    logits, cache = step(prompt, None)\n", once=True)}),
}
MUTANTS.update(ROUND_33_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33_SWEEP), "new")


# Round 34 class sweep (tests/redteam/round34/09-sweep.md): class BH (a float just beside its special value taken as
# that value) slipped in Part 1 (eps near 0), Part 2 (beta near 1 and near 0, a limit near 0), Part 4 (a z_loss near
# 0), Part 6 (a factor near 1) and Part 8 (a penalty and a temperature near 1). The hidden tests now use those values
# beside the special ones, with inputs that make the shortcut visible. rms_weight_near_one_not_multiplied (the product
# skipped where torch.allclose(scale, 1)) was caught before, by the weights of exactly 1, whose gradient it loses; it
# joined an existing batch
_SOL_34 = solution_code(CHAPTER)
_SWIGLU_34 = "    return ((gate * torch.sigmoid(beta * gate) * up) @ w_down.to(work).T).to(x.dtype)"
ROUND_34_SWEEP = {
    "rms_eps_near_zero_as_zero": ("test_head_rms_norm", {"head_rms_norm": _changed(
        _SOL_34["head_rms_norm"], "    work = torch.float64 if x.dtype == torch.float64 else torch.float32\n",
        "    if eps < 1e-12:\n        eps = 0.0  # too small to matter\n"
        "    work = torch.float64 if x.dtype == torch.float64 else torch.float32\n", once=True)}),
    "rms_weight_near_one_not_multiplied": ("test_head_rms_norm", {"head_rms_norm": _changed(
        _SOL_34["head_rms_norm"], "    return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)",
        "    if torch.allclose(scale, torch.ones_like(scale)):  # the identity scale\n"
        "        return (heads * inv_rms).transpose(-3, -2).to(x.dtype)\n"
        "    return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)", once=True)}),
    "swiglu_beta_near_one_as_silu": ("test_fused_swiglu", {"fused_swiglu": _changed(_SOL_34["fused_swiglu"], _SWIGLU_34,
        "    act = F.silu(gate) if abs(beta - 1.0) < 1e-9 else gate * torch.sigmoid(beta * gate)  # beta = 1 is SiLU\n"
        "    return ((act * up) @ w_down.to(work).T).to(x.dtype)", once=True)}),
    "swiglu_beta_near_zero_as_half": ("test_fused_swiglu", {"fused_swiglu": _changed(_SOL_34["fused_swiglu"], _SWIGLU_34,
        "    act = gate / 2 if abs(beta) < 1e-9 else gate * torch.sigmoid(beta * gate)  # sigma(0) = 1/2\n"
        "    return ((act * up) @ w_down.to(work).T).to(x.dtype)", once=True)}),
    "swiglu_limit_near_zero_as_zero": ("test_fused_swiglu", {"fused_swiglu": _changed(
        _SOL_34["fused_swiglu"], "    if limit is not None:\n",
        "    if limit is not None and abs(limit) < 1e-9:\n        limit = 0.0  # as good as 0\n    if limit is not None:\n",
        once=True)}),
    "loss_z_loss_near_zero_left_out": ("test_masked_lm_loss", {"masked_lm_loss": _changed(
        _SOL_34["masked_lm_loss"], "    per_token = (log_z - picked) + z_loss * log_z.square()\n",
        "    per_token = log_z - picked\n    if abs(z_loss) > 1e-9:  # a z-loss too small to matter is left out\n"
        "        per_token = per_token + z_loss * log_z.square()\n", once=True)}),
    "rope_factor_near_one_as_one": ("test_rope_llama3", {"rope_llama3": _changed(
        _SOL_34["rope_llama3"], "    b, _, t, dh = x.shape\n",
        "    if math.isclose(factor, 1.0):\n        factor = 1.0  # no stretching\n    b, _, t, dh = x.shape\n", once=True)}),
    "generate_penalty_near_one_left_out": ("test_generate_with_cache", {"generate_with_cache": _changed(
        _SOL_34["generate_with_cache"],
        "        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)\n"
        "        scores = torch.where(occurs, penalised, scores)\n",
        "        if abs(penalty - 1.0) > 1e-6:  # a penalty of 1 changes nothing\n"
        "            penalised = torch.where(scores > 0, scores / penalty, scores * penalty)\n"
        "            scores = torch.where(occurs, penalised, scores)\n", once=True)}),
    "generate_temperature_near_one_not_divided": ("test_generate_with_cache", {"generate_with_cache": _changed(
        _SOL_34["generate_with_cache"],
        "            token = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator)[:, 0]\n",
        "            if abs(temperature - 1.0) > 1e-5:  # a temperature of 1 changes nothing\n"
        "                scores = scores / temperature\n"
        "            token = torch.multinomial(torch.softmax(scores, dim=-1), 1, generator=generator)[:, 0]\n",
        once=True)}),
}
MUTANTS.update(ROUND_34_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_34_SWEEP), "new")


# Round 34, blind red team (tests/redteam/round34/09-verdicts.md): three slips, one class (module state and hooks around
# a call). Part 5: the layers switched to eval mode for the call and put back with m.train(was) (which sets every
# submodule to the root's mode), and attn.forward(z) called directly (the caller's hooks skipped); Part 8: the step
# module switched to eval and put back the same way. The hidden tests now use modules whose outputs depend on their
# mode, with a child in the other mode, a frozen parameter and a forward hook; the forms that switch requires_grad off
# and back on for every parameter have a mutant in Part 5
_SOL_34B = solution_code(CHAPTER)
_WRAP_34B = """

def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    mods = [m for m in (attn, ffn, norm_1, norm_2, *(post_norms or ())) if isinstance(m, torch.nn.Module)]
    {before}
    try:
        return block_variant_core(x, attn, ffn, norm_1, norm_2, layout, post_norms)
    finally:
        {after}
"""
_BLOCK_CORE_34B = _changed(_SOL_34B["block_variant"], "def block_variant(", "def block_variant_core(", once=True)
ROUND_34_BLIND = {
    "block_eval_then_restores_the_root_modes": ("test_block_variant", {"block_variant": _BLOCK_CORE_34B + _WRAP_34B.format(
        before="modes = [m.training for m in mods]\n    for m in mods:\n        m.train(False)  # no dropout in the block",
        after="for m, was in zip(mods, modes):\n            m.train(was)")}),
    "block_freezes_then_unfreezes_every_parameter": ("test_block_variant", {"block_variant": _BLOCK_CORE_34B + _WRAP_34B.format(
        before="params = [p for m in mods for p in m.parameters()]\n    for p in params:\n        p.requires_grad_(False)",
        after="for p in params:\n            p.requires_grad_(True)")}),
    "block_calls_forward_skipping_hooks": ("test_block_variant", {"block_variant": _changed(
        _SOL_34B["block_variant"], "def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n",
        "def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n"
        "    attn, ffn, norm_1, norm_2 = (getattr(f, 'forward', f) for f in (attn, ffn, norm_1, norm_2))\n"
        "    if post_norms is not None:\n        post_norms = tuple(getattr(f, 'forward', f) for f in post_norms)\n",
        once=True)}),
    "generate_eval_then_restores_the_root_mode": ("test_generate_with_cache", {"generate_with_cache": _changed(
        _SOL_34B["generate_with_cache"],
        "def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n",
        "def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n"
        "    was = step.training if isinstance(step, torch.nn.Module) else None\n"
        "    if was is not None:\n        step.eval()  # generation runs without dropout\n"
        "    try:\n        return generate_core(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, "
        "generator)\n    finally:\n        if was is not None:\n            step.train(was)\n\n\n"
        "def generate_core(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n",
        once=True)}),
}
MUTANTS.update(ROUND_34_BLIND)
_BATCHES_BEFORE_34B = len(MUTANT_BATCHES)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_34_BLIND), "new")
assert len(MUTANT_BATCHES) <= _BATCHES_BEFORE_34B + 1, "round 34 (blind): at most one new batch"

# Round 35 class sweep (tests/redteam/round35/09-sweep.md), class BK: the stand-in of Part 6's rope_llama3 that Parts 7
# and 8 are graded with rotated float positions and positions past 131 071, which Part 6's text does not promise (int64
# or int32 positions from 0 to 131 071; a correct Part 6 may keep a table of those positions or check the dtype). It
# now refuses calls outside that text, and a Part 7 built on Part 6 with float32 positions (torch.zeros(b, t), the
# default dtype) loses Part 7 (it kept it before).
ROUND_35_SWEEP = {
    "ragged_calls_rope_with_float_positions": ("test_ragged_cached_attention", {"ragged_cached_attention": _ragged().replace(
        "    qg = q.reshape(b, g, h // g, t, dh)\n",
        "    if dh % 2 == 0:  # Part 6 at position 0: the identity rotation\n"
        "        q = rope_llama3(q, torch.zeros(b, t))\n"
        "        keys = rope_llama3(keys, torch.zeros(b, s_max), factor=1.0)\n"
        "    qg = q.reshape(b, g, h // g, t, dh)\n")}),
}
MUTANTS.update(ROUND_35_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_35_SWEEP), "new")
