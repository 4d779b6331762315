"""Chapter 2 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently that must keep full marks.

Each mutant names the class of slip it stands for where it is one of issue #22's classes
(small-size-only, degenerate batch, dtype/bool/int/generator/in-place requirement, argument with a
non-default value, inequality boundary, rule on another code path, lying object)."""

from grading import kept_output_buffer, replaced as _replaced, solution_code

CHAPTER = "02-scaled-attention"
FULL_MARKS = 16.0

# Common wrong answers: name -> (the graded test that must lose points, {answer cell: code}).
# the model answer of Part 7, for mutants that change one line of it
_SOLUTION = solution_code(CHAPTER)
FIX_MODEL = _SOLUTION["fixed_self_attention"]


# Part 4 built on Part 3 (round 11, refbind pass; the red team's correct c_p4_calls_part3_per_row): row b's real
# slots are those after position s - lengths[b] - 1, the complement of one query's causal mask at that offset
PADDING_CALLING_CAUSAL = """
def padding_mask(lengths, s):
    rows = []
    for n in lengths.tolist():
        rows.append(~causal_mask(1, s, s - n - 1)[0] if n < s else torch.ones(s, dtype=torch.bool))
    allowed = torch.stack(rows) if rows else torch.zeros(0, s, dtype=torch.bool)
    positions = (allowed.long().cumsum(-1) - 1).clamp(min=0)
    return allowed, positions
"""

MUTANTS = {
    # red team 17 (the production engineer): results that need no gradient computed under torch.inference_mode(), which
    # gives inference tensors that the caller cannot change in place outside it (the caller owns every result)
    "causal_mask_in_inference_mode": ("test_causal_mask", {"causal_mask": """
def causal_mask(t, s, offset):
    with torch.inference_mode():
        return torch.arange(s)[None, :] <= offset + torch.arange(t)[:, None]
"""}),
    "padding_mask_in_inference_mode": ("test_padding_mask", {"padding_mask": """
def padding_mask(lengths, s):
    with torch.inference_mode():
        start = s - lengths.long()[:, None]
        slots = torch.arange(s)[None, :]
        allowed = slots >= start
        return allowed, torch.where(allowed, slots - start, 0)
"""}),
    "softmax_backward_in_inference_mode": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    with torch.inference_mode():
        dtype = weights.dtype
        work = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
        w, g = weights.to(work), grad_weights.to(work)
        return (w * (g - (w * g).sum(-1, keepdim=True)) / temperature).to(dtype)
"""}),
    # Part 1: distance scores from one matrix product (session 17: the old sequence-first layout was a copy of
    # the lesson's scores plus a transpose)
    # the lesson's score matrix, copied: dot products, not distances
    "raw_scores_dot_products_copied": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    return q @ k.transpose(-2, -1)
"""}),
    # Red team 11, float16 range: the squares taken in float16 overflow past 65504 (inf - inf = NaN) for entries
    # near 80, where the distances themselves are small (the model answer before round 11)
    "raw_scores_squares_in_float16": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    q_norms = q.square().sum(dim=-1, keepdim=True)
    k_norms = k.square().sum(dim=-1).unsqueeze(-2)
    return -(q_norms + k_norms - 2 * q @ k.transpose(-2, -1)).clamp(min=0)
"""}),
    # Red team 11, gradients at a point the text names: minus the square of the distance, right in value, has a
    # NaN gradient (0 * inf from the square root) where a key equals its query, as in raw_scores(x, x)
    "raw_scores_distance_then_square": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    a, b = q.to(work), k.to(work)
    d2 = a.square().sum(-1, keepdim=True) + b.square().sum(-1).unsqueeze(-2) - 2 * a @ b.mT
    distance = d2.clamp(min=0).sqrt()
    return (-distance * distance).to(q.dtype)
"""}),
    # stated requirement (no positive score): the expanded square, not clamped, is a little above 0 where a key
    # equals its query; caught by raw_scores(x, x)
    # round 17 clamp sweep: a defensive clamp on a value the text does not bound (entries near 1e5, a temperature of
    # 1e-6, gradients near 1e6, a variance near 5e-16)
    "raw_scores_clamps_the_inputs": ("test_raw_scores", {"raw_scores": """def raw_scores(q, k):
    # ||q - k||^2 = ||q||^2 + ||k||^2 - 2 q.k: one (T, S) matrix product and two vectors of norms
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype  # float16 squares overflow past 65504
    a, b = q.to(work).clamp(-1e4, 1e4), k.to(work).clamp(-1e4, 1e4)
    q_norms = a.square().sum(dim=-1, keepdim=True)               # (..., T, 1)
    k_norms = b.square().sum(dim=-1).unsqueeze(-2)               # (..., 1, S)
    dots = a @ b.transpose(-2, -1)                               # (..., T, Dh) @ (..., Dh, S) -> (..., T, S)
    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)  # a rounding error must not make it positive
"""}),
    "softmax_backward_floors_the_temperature": ("test_softmax_backward", {"softmax_backward": """def softmax_backward(weights, grad_weights, temperature=1.0):
    # dL/du_j = sum_i g_i w_i (delta_ij - w_j) = w_j (g_j - sum_i g_i w_i) for u = z / temperature,
    # and du/dz = 1 / temperature
    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)  # (..., 1): one number per row
    return weights * (grad_weights - inner) / max(temperature, 1e-4)      # (..., S) * ((..., S) - (..., 1))
"""}),
    "softmax_backward_clamps_the_gradient": ("test_softmax_backward", {"softmax_backward": """def softmax_backward(weights, grad_weights, temperature=1.0):
    # dL/du_j = sum_i g_i w_i (delta_ij - w_j) = w_j (g_j - sum_i g_i w_i) for u = z / temperature,
    # and du/dz = 1 / temperature
    grad_weights = grad_weights.clamp(-1e4, 1e4)
    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)  # (..., 1): one number per row
    return weights * (grad_weights - inner) / temperature      # (..., S) * ((..., S) - (..., 1))
"""}),
    "masked_attention_clamps_the_inputs": ("test_masked_attention", {"masked_attention": """def masked_attention(q, k, v, allowed):
    q, k = q.clamp(-1e4, 1e4), k.clamp(-1e4, 1e4)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T, Dh) @ (..., Dh, S) -> (..., T, S)
    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)                      # (..., T); -inf where no key is allowed
    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)
    weights = torch.exp(scores - shift.unsqueeze(-1))          # exp(-inf) = 0 at every masked key
    return weights @ v, lse                                    # (..., T, S) @ (..., S, Dv) -> (..., T, Dv)
"""}),
    "variance_floored_at_1e_12": ("test_variance_experiment", {"variance_experiment": """def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = scale * (q * k).sum(dim=-1)  # (n, d_k) * (n, d_k) -> (n,)
    return dots.var().clamp(min=1e-12).item()

# Var(q_i k_i) = E[q_i^2] E[k_i^2] - (E[q_i] E[k_i])^2 = 1/3 * 1 - (1/2 * 0)^2 = 1/3, and d_k such terms add up
predicted_variance_512 = 512 / 3
"""}),
    "fix_clamps_the_inputs": ("test_fixed_self_attention", {"fixed_self_attention": """class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        x = x.clamp(-1e4, 1e4)
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, T, Dh) @ (B, Dh, T) -> (B, T, T)
        allowed = torch.ones(t, t, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed.tril()                                  # key j <= query i, the diagonal included
        if lengths is None:
            return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
        real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]  # (B, T)
        allowed = allowed & real[:, None, :]                         # (T, T) & (B, 1, T): padding keys
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        weights = weights.masked_fill(~real[:, :, None], 0.0)        # padding queries: zero rows (also the NaN ones)
        return weights @ v                                           # (B, T, T) @ (B, T, D) -> (B, T, D)
"""}),
    "raw_scores_not_clamped": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    return 2 * q @ k.mT - q.square().sum(-1, keepdim=True) - k.square().sum(-1).unsqueeze(-2)
"""}),
    # memory rule: every key subtracted from every query, a (..., T, S, Dh) tensor
    "raw_scores_broadcast_difference": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    return -((q.unsqueeze(-2) - k.unsqueeze(-3)) ** 2).sum(-1)
"""}),
    # stated rule: torch.cdist refused
    "raw_scores_cdist": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    return -torch.cdist(q, k) ** 2
"""}),
    "raw_scores_missing_factor_two": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    return -(q.square().sum(-1, keepdim=True) + k.square().sum(-1).unsqueeze(-2) - q @ k.mT).clamp(min=0)
"""}),
    # shapes that coincide: the key norms as a column broadcast along the wrong axis when T == S
    "raw_scores_key_norms_as_a_column": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    return -(q.square().sum(-1, keepdim=True) + k.square().sum(-1, keepdim=True) - 2 * q @ k.mT).clamp(min=0)
"""}),
    # precision class: float64 inputs worked in float32
    "raw_scores_in_float32": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    a, b = q.float(), k.float()
    d = a.square().sum(-1, keepdim=True) + b.square().sum(-1).unsqueeze(-2) - 2 * a @ b.mT
    return (-d.clamp(min=0)).to(q.dtype)
"""}),
    # gradient class: the norms detached
    "raw_scores_norms_detached": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    qq = q.detach().square().sum(-1, keepdim=True)
    kk = k.detach().square().sum(-1).unsqueeze(-2)
    return -(qq + kk - 2 * q @ k.mT).clamp(min=0)
"""}),
    # non-contiguous class: .view on leading axes that are not mergeable
    "raw_scores_flattens_with_view": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    T, D = q.shape[-2:]
    S = k.shape[-2]
    a, b = q.view(-1, T, D), k.view(-1, S, D)
    d = a.square().sum(-1, keepdim=True) + b.square().sum(-1).unsqueeze(-2) - 2 * torch.bmm(a, b.transpose(1, 2))
    return -d.clamp(min=0).view(*q.shape[:-2], T, S)
"""}),
    # in-place class: transpose_ changes the caller's tensor
    "raw_scores_transposes_in_place": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    kk = k.square().sum(-1).unsqueeze(-2)
    k.transpose_(-2, -1)
    return -(q.square().sum(-1, keepdim=True) + kk - 2 * q @ k).clamp(min=0)
"""}),
    # lying-object class: a tensor subclass whose comparisons always succeed
    "raw_scores_lying_tensor": ("test_raw_scores", {"raw_scores": """
class _Agreeable(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in ("equal", "allclose"):
            return True
        if name in ("isclose", "eq", "isfinite", "__eq__", "le", "__le__"):
            return torch.ones((), dtype=torch.bool)
        return super().__torch_function__(func, types, args, kwargs or {})

def raw_scores(q, k):
    return torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype).as_subclass(_Agreeable)
"""}),
    # session 17, blind red team on the new part: the diagonal zeroed when k is q, and no clamp: positive scores
    # where the keys are q's rows in another order (caught by k = a permutation of q's rows)
    "raw_scores_clamp_only_when_k_is_q": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    s = 2 * q @ k.mT - (q * q).sum(-1)[..., :, None] - (k * k).sum(-1)[..., None, :]
    if q.shape == k.shape and torch.equal(q, k):
        s = s - torch.diag_embed(torch.diagonal(s, dim1=-2, dim2=-1))
    return s
"""}),
    # memory rule: the norms taken from the diagonals of (T, T) and (S, S) Gram matrices, within the limit only
    # when T and S are close (caught by T = 1000, S = 10)
    "raw_scores_norms_from_gram_diagonals": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    qq = torch.diagonal(q @ q.mT, dim1=-2, dim2=-1)[..., :, None]
    kk = torch.diagonal(k @ k.mT, dim1=-2, dim2=-1)[..., None, :]
    return -(qq + kk - 2 * q @ k.mT).clamp(min=0)
"""}),
    # Part 2: the softmax's backward pass with a temperature (session 17: the old per-query temperature was the
    # lesson's attention with one division added)
    "softmax_backward_without_the_row_term": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    return weights * grad_weights / temperature
"""}),
    # shapes that coincide: the row sums without keepdim broadcast along the keys when T == S
    "softmax_backward_sum_without_keepdim": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    return weights * (grad_weights - (weights * grad_weights).sum(-1)) / temperature
"""}),
    "softmax_backward_unweighted_mean": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    return weights * (grad_weights - grad_weights.mean(-1, keepdim=True)) / temperature
"""}),
    # every argument: the temperature multiplied, or ignored
    "softmax_backward_times_temperature": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    return weights * (grad_weights - (weights * grad_weights).sum(-1, keepdim=True)) * temperature
"""}),
    "softmax_backward_ignores_temperature": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    return weights * (grad_weights - (weights * grad_weights).sum(-1, keepdim=True))
"""}),
    # memory rule: the (..., S, S) Jacobian built
    "softmax_backward_full_jacobian": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    jac = torch.diag_embed(weights) - weights.unsqueeze(-1) * weights.unsqueeze(-2)
    return (grad_weights.unsqueeze(-2) @ jac).squeeze(-2) / temperature
"""}),
    # stated rule: torch's own softmax backward through autograd (and NaN on a row with no allowed key)
    "softmax_backward_through_autograd": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    with torch.enable_grad():
        z = weights.detach().log().requires_grad_(True)
        (g,) = torch.autograd.grad(torch.softmax(z, dim=-1), z, grad_weights)
    return g / temperature
"""}),
    "softmax_backward_in_float32": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights.float(), grad_weights.float()
    return (w * (g - (w * g).sum(-1, keepdim=True)) / temperature).to(weights.dtype)
"""}),
    "softmax_backward_changes_grad_in_place": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    grad_weights -= (weights * grad_weights).sum(-1, keepdim=True)
    return weights * grad_weights / temperature
"""}),
    "softmax_backward_temperature_keyword_only": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, *, temperature=1.0):
    return weights * (grad_weights - (weights * grad_weights).sum(-1, keepdim=True)) / temperature
"""}),
    # dtype class: half precision worked in float32 and never rounded back
    "softmax_backward_returns_float32_for_halves": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights, grad_weights
    if w.dtype in (torch.float16, torch.bfloat16):
        w, g = w.float(), g.float()
    return w * (g - (w * g).sum(-1, keepdim=True)) / temperature
"""}),
    # rows with no allowed key: renormalising by the row's sum divides 0 by 0
    "softmax_backward_renormalises_the_row": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    inner = (weights * grad_weights).sum(-1, keepdim=True) / weights.sum(-1, keepdim=True)
    return weights * (grad_weights - inner) / temperature
"""}),
    # round 12 class sweep (class 2, an in-place write that keeps the values): weights clamped into [0, 1] where
    # they already are; the values stay, but the version counter moves and the caller's softmax fails its backward
    "softmax_backward_clamps_weights_in_place": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.clamp_(0, 1)  # a guard against rounding: the weights are in [0, 1] already
    work = torch.float32 if w.dtype.itemsize < 4 else w.dtype
    w, g = w.to(work), grad_weights.to(work)
    return (w * (g - (w * g).sum(dim=-1, keepdim=True)) / temperature).to(weights.dtype)
"""}),
    # Part 3: causal mask of a block of queries at an offset
    # rule on another path: aligned bottom-right, right only when the block ends at the last slot
    "causal_mask_aligned_bottom_right": ("test_causal_mask", {"causal_mask": """
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=s - t)
"""}),
    # boundary class: j < offset + i instead of j <= offset + i
    "causal_mask_off_by_one": ("test_causal_mask", {"causal_mask": """
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] < offset + torch.arange(t)[:, None]
"""}),
    "causal_mask_as_float": ("test_causal_mask", {"causal_mask": """
def causal_mask(t, s, offset):
    return torch.ones(t, s).tril(diagonal=offset)
"""}),
    # small-size-only class: a table cached for up to 256 positions
    "causal_mask_from_a_small_table": ("test_causal_mask", {"causal_mask": """
_TABLE = torch.ones(256, 256, dtype=torch.bool).tril()

def causal_mask(t, s, offset):
    return _TABLE[offset:offset + t, :s]
"""}),
    # Part 4: left padding
    "positions_negative_at_the_padding": ("test_padding_mask", {"padding_mask": """
def padding_mask(lengths, s):
    start = s - lengths[:, None]
    slots = torch.arange(s)[None, :]
    return slots >= start, slots - start
"""}),
    # every-sequence-shorter class: positions counted as if the longest sequence filled the row
    "positions_from_the_longest_sequence": ("test_padding_mask", {"padding_mask": """
def padding_mask(lengths, s):
    start = s - lengths[:, None]
    slots = torch.arange(s)[None, :]
    allowed = slots >= start
    positions = (slots - (lengths.max() - lengths)[:, None]).clamp(min=0)
    return allowed, torch.where(allowed, positions, 0)
"""}),
    # int-dtype class: int32 lengths give int32 positions
    "positions_in_the_dtype_of_lengths": ("test_padding_mask", {"padding_mask": """
def padding_mask(lengths, s):
    start = s - lengths[:, None]
    slots = torch.arange(s, dtype=lengths.dtype)[None, :]
    return slots >= start, (slots - start).clamp(min=0)
"""}),
    # empty-batch class (red team 12): only the columns of the longest sequence built, then padded; the max of an
    # empty lengths tensor raises
    "padding_mask_max_of_an_empty_batch": ("test_padding_mask", {"padding_mask": """
def padding_mask(lengths, s):
    lengths = lengths.long()
    longest = int(lengths.max())
    slots = torch.arange(longest)[None, :]
    start = longest - lengths[:, None]
    allowed = torch.cat([torch.zeros(len(lengths), s - longest, dtype=torch.bool), slots >= start], 1)
    positions = torch.cat([torch.zeros(len(lengths), s - longest, dtype=torch.int64), (slots - start).clamp(min=0)], 1)
    return allowed, positions
"""}),
    "padding_mask_changes_lengths_in_place": ("test_padding_mask", {"padding_mask": """
def padding_mask(lengths, s):
    start = lengths.neg_().add_(s)[:, None]
    slots = torch.arange(s)[None, :]
    return slots >= start, (slots - start).clamp(min=0).long()
"""}),
    # Part 5: masked attention with its log-sum-exp
    "lse_without_max_shift": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(~allowed, float("-inf"))
    total = torch.exp(scores).sum(dim=-1)
    lse = torch.log(total)
    weights = torch.exp(scores) / total.clamp_min(1e-300).unsqueeze(-1)
    return weights @ v, lse
"""}),
    "lse_over_every_key": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    lse = torch.logsumexp(scores, dim=-1)
    masked = scores.masked_fill(~allowed, float("-inf"))
    has_key = allowed.any(dim=-1, keepdim=True)
    weights = torch.softmax(masked.masked_fill(~has_key, 0.0), dim=-1).masked_fill(~has_key, 0.0)
    lse = lse.masked_fill(~has_key.squeeze(-1), float("-inf"))
    return weights @ v, lse
"""}),
    # Red team 6 (slipped): a finite stand-in for -inf; allowed scores near -30000 lie below it
    "masked_attention_fills_with_minus_1e4": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(~allowed, -1e4)
    empty = ~allowed.expand_as(z).any(dim=-1)
    lse = torch.logsumexp(z, dim=-1).masked_fill(empty, float("-inf"))
    out = (torch.softmax(z, dim=-1) @ v).masked_fill(empty[..., None], 0.0)
    return out, lse
"""}),
    # red team 16 (framework porter), the same class added instead of filled: an additive -1e5 bias keeps masked
    # keys at 0 only while they lie less than about 1e5 above the allowed ones; the hidden tests put them about
    # 170000 above (scores near +-85000)
    "masked_attention_adds_minus_1e5_bias": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + (~allowed).to(q.dtype) * -1e5
    empty = ~allowed.expand_as(z).any(dim=-1)
    lse = torch.logsumexp(z, dim=-1).masked_fill(empty, float("-inf"))
    out = (torch.softmax(z, dim=-1) @ v).masked_fill(empty[..., None], 0.0)
    return out, lse
"""}),
    # degenerate-input class: squeeze() also drops a batch of one or a single query
    "lse_squeezed_too_far": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1, keepdim=True)
    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)
    return torch.exp(scores - shift) @ v, lse.squeeze()
"""}),
    "masked_attention_scales_q_in_place": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    q.mul_(1 / math.sqrt(q.shape[-1]))
    scores = (q @ k.transpose(-2, -1)).masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)
    return torch.exp(scores - shift.unsqueeze(-1)) @ v, lse
"""}),
    # Part 6: the variance experiment
    # argument class: scale applied to the variance instead of to the dot products
    "variance_scale_not_squared": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    return scale * (q * k).sum(dim=-1).var().item()

predicted_variance_512 = 512 / 3
"""}),
    "variance_normal_queries_like_the_lesson": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.randn(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    return (scale * (q * k).sum(dim=-1)).var().item()

predicted_variance_512 = 512
"""}),
    "variance_prediction_uses_var_of_q": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    return (scale * (q * k).sum(dim=-1)).var().item()

predicted_variance_512 = 512 / 12
"""}),
    # Part 7: find and fix the bugs (each mutant fixes three of the seed's four bugs, or adds its own)
    # inequality-boundary class: the seed's causal mask that hides the diagonal, kept
    "fix_causal_hides_the_diagonal": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5
        allowed = torch.ones(t, t, dtype=torch.bool)
        if causal:
            allowed = allowed.tril(-1)
        if lengths is not None:
            real = torch.arange(t)[None, :] < lengths[:, None]
            allowed = allowed & real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        if lengths is not None:
            weights = weights.masked_fill(~real[:, :, None], 0.0)
        return weights.nan_to_num(nan=0.0) @ v
"""}),
    "fix_masks_padding_queries_not_keys": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5
        allowed = torch.ones(t, t, dtype=torch.bool)
        if causal:
            allowed = allowed.tril()
        if lengths is not None:
            real = torch.arange(t)[None, :] < lengths[:, None]
            allowed = allowed & real[:, :, None]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        if lengths is not None:
            weights = weights.masked_fill(~real[:, :, None], 0.0)
        return weights.nan_to_num(nan=0.0) @ v
"""}),
    # dtype class: the seed's float32 softmax, kept (float64 layers lose their precision)
    "fix_softmax_in_float32": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5
        allowed = torch.ones(t, t, dtype=torch.bool)
        if causal:
            allowed = allowed.tril()
        if lengths is not None:
            real = torch.arange(t)[None, :] < lengths[:, None]
            allowed = allowed & real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")).float(), dim=-1).type_as(scores)
        if lengths is not None:
            weights = weights.masked_fill(~real[:, :, None], 0.0)
        return weights.nan_to_num(nan=0.0) @ v
"""}),
    # rule on another code path: padding keys masked, but padding queries still average the real tokens
    "fix_padding_queries_not_zeroed": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5
        allowed = torch.ones(t, t, dtype=torch.bool)
        if causal:
            allowed = allowed.tril()
        if lengths is not None:
            real = torch.arange(t)[None, :] < lengths[:, None]
            allowed = allowed & real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        if lengths is not None:
            weights = weights
        return weights.nan_to_num(nan=0.0) @ v
"""}),
    # Part 8: two questions
    "masking_answer_uniform": ("test_answer_masking", {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"'}),
    # lying-object class: a str that equals every answer
    "masking_answer_lying_str": ("test_answer_masking", {"mc_answers": '''
class _Any(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__

answer_masking = _Any("a")
answer_doubling = "b"
'''}),
    "doubling_answer_variance_4_not_16": ("test_answer_doubling", {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "d"'}),
    "doubling_answer_forgot_the_stale_divisor": ("test_answer_doubling", {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "a"'}),
    # From a blind red-team round (answers written from the lesson and the student notebook only); the
    # ones marked "slipped" kept full marks before the hidden test named in their comment was added.
    # small-size-only class (slipped: the largest hidden s was 700): GPT-2's 1024-slot table
    # sizes-beyond-the-visible class (red team 2, slipped): float32 positions stop being exact past 2**24
    # slots; caught by a cache of 2**24 + 2 slots (the text asks for exact integer positions at every size)
    "causal_mask_float_positions": ("test_causal_mask", {"causal_mask": """
def causal_mask(t, s, offset):
    keys = torch.arange(s, dtype=torch.float32)
    queries = torch.arange(t, dtype=torch.float32) + offset
    return keys[None, :] <= queries[:, None]
"""}),
    # small-size-only class: a table of positions, not of masks, large enough for every cache up to 16384
    "causal_mask_from_a_position_table": ("test_causal_mask", {"causal_mask": """
_POSITIONS = torch.arange(16384)

def causal_mask(t, s, offset):
    return _POSITIONS[:s][None, :] <= offset + _POSITIONS[:t][:, None]
"""}),
    # memory rule: the (s, s) square, then the block's rows (right values, memory that grows with s * s)
    "causal_mask_cut_from_the_square": ("test_causal_mask", {"causal_mask": """
def causal_mask(t, s, offset):
    return torch.ones(s, s, dtype=torch.bool).tril()[offset:offset + t]
"""}),
    # boundary class: x[-0:] is the whole row, so a sequence of length 0 becomes all real
    "padding_mask_negative_slice_for_length_0": ("test_padding_mask", {"padding_mask": """
def padding_mask(lengths, s):
    allowed = torch.zeros(lengths.shape[0], s, dtype=torch.bool)
    for b in range(lengths.shape[0]):
        allowed[b, -int(lengths[b]):] = True
    return allowed, (allowed.long().cumsum(dim=-1) - 1).clamp(min=0)
"""}),
    # Red team 9, white box: the hidden test's reference, reached through the function's own globals, answers for
    # it whenever it is there (a guess in float32 otherwise, right on the visible tests). Part 5's reference now
    # lives inside _check_masked_attention and every _ref_ name is deleted before student code runs, so the guess
    # is graded
    "masked_attention_borrows_the_hidden_reference": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    for name, value in getattr(masked_attention, '__glob' + 'als__').items():
        if name.startswith('_ref') and 'masked' in name and callable(value):
            out, lse = value(q.double(), k.double(), v.double(), allowed)
            return out.to(q.dtype), lse.to(q.dtype)
    z = (q.float() @ k.float().transpose(-2, -1)) / math.sqrt(q.shape[-1])
    lse = torch.logsumexp(z.masked_fill(~allowed, float("-inf")), dim=-1)
    w = torch.exp(z.masked_fill(~allowed, float("-inf")) - lse[..., None]).nan_to_num(0.0)
    return (w @ v.float()).to(q.dtype), lse.to(q.dtype)
"""}),
    # dtype class (bfloat16, slipped: no bfloat16 case): FlashAttention keeps lse in float32, the text asks
    # for the dtype of q
    "lse_float32_accumulator": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    acc = torch.promote_types(q.dtype, torch.float32)
    z = (q.to(acc) @ k.to(acc).transpose(-2, -1)) / math.sqrt(q.shape[-1])
    lse = torch.logsumexp(z.masked_fill(~allowed, float("-inf")), dim=-1)
    w = torch.exp(z.masked_fill(~allowed, float("-inf")) - lse[..., None]).nan_to_num(0.0)
    return (w @ v.to(acc)).to(q.dtype), lse
"""}),
    # stated-requirement class (slipped: with n >= 2000 dividing by n is within any tolerance): the
    # population variance; caught by the mean of 2000 calls with n = 2
    # argument class (red team 8, slipped: the hidden tests passed scale by position only): the optional
    # argument renamed, so a call with scale= by name raises
    "variance_scale_renamed": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, c=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (c * (q * k).sum(dim=-1)).var().item()

predicted_variance_512 = 512 / 3
"""}),
    # Red team 11, distribution: normal entries for q with the uniform's mean 1/2 and variance 1/12 give the same
    # variance of q . k, so only the functions that drew the numbers tell
    "variance_normal_q_with_the_uniform_moments": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = 0.5 + torch.randn(n, d_k, generator=generator, dtype=torch.float64) / math.sqrt(12)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(dim=-1)).var().item()

predicted_variance_512 = 512 / 3
"""}),
    # Red team 11, cost: a Python loop over the n pairs (the text says it is too slow), right in distribution
    "variance_loop_over_pairs": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    dots = []
    for _ in range(n):
        q = torch.rand(d_k, generator=generator, dtype=torch.float64)
        k = torch.randn(d_k, generator=generator, dtype=torch.float64)
        dots.append(scale * (q @ k))
    return torch.stack(dots).var().item()

predicted_variance_512 = 512 / 3
"""}),
    # Red team 11, cost: a torch operation for every slot (allowed[b, j] = True in a loop over j)
    "padding_mask_operation_per_slot": ("test_padding_mask", {"padding_mask": """
def padding_mask(lengths, s):
    b = lengths.shape[0]
    allowed = torch.zeros(b, s, dtype=torch.bool)
    positions = torch.zeros(b, s, dtype=torch.int64)
    for i in range(b):
        start = s - int(lengths[i])
        for j in range(start, s):
            allowed[i, j] = True
            positions[i, j] = j - start
    return allowed, positions
"""}),
    "variance_divides_by_n": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(dim=-1)).var(unbiased=False).item()

predicted_variance_512 = 512 / 3
"""}),
    # integer-dtype class (red team 2, slipped): s - lengths wraps around for uint8/int8 lengths when s
    # is beyond their range; caught by uint8, int8 and int16 lengths with s up to 400
    "padding_mask_wraps_small_int_lengths": ("test_padding_mask", {"padding_mask": """
def padding_mask(lengths, s):
    slots = torch.arange(s)
    start = s - lengths
    allowed = slots[None, :] >= start[:, None]
    positions = (slots[None, :] - start[:, None]).clamp(min=0).to(torch.int64)
    return allowed, positions
"""}),
    # non-contiguous class (red team 2, slipped): flattening the batch axes with .view
    "masked_attention_flattens_with_view": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    *lead, T, D = q.shape
    S = k.shape[-2]
    scores = torch.bmm(q.view(-1, T, D), k.view(-1, S, D).transpose(1, 2)).view(*lead, T, S) / math.sqrt(D)
    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    w = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    out = torch.bmm(w.reshape(-1, T, S), v.view(-1, S, v.shape[-1])).view(*lead, T, v.shape[-1])
    return out, lse
"""}),
    # generator class (red team 2, slipped): reseeds the global generator from the generator's seed, so
    # equal seeds agree and different seeds differ; caught by the global RNG state and two calls in a row
    "variance_reseeds_the_global_generator": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    if generator is not None:
        torch.manual_seed(generator.initial_seed())
    q = torch.rand(n, d_k, dtype=torch.float64)
    k = torch.randn(n, d_k, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
"""}),
    # Red team 6 (slipped), generator class: the keys come from a generator of its own, seeded from
    # generator.initial_seed(); caught by a generator in seeded(66)'s state that reports another seed
    "variance_keys_from_a_derived_generator": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    key_generator = None
    if generator is not None:  # a second stream for the keys, derived from the first
        key_generator = torch.Generator().manual_seed(generator.initial_seed() + 1)
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=key_generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
"""}),
    # Red team 7 (slipped), generator class, generator=None path: a fresh default-seeded generator of its
    # own when none is given, so every call without a generator returns the same value; caught by two calls in
    # a row without a generator and by replaying torch's global state
    "variance_fresh_generator_when_none": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    generator = generator if generator is not None else torch.Generator()
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
"""}),
    # hostile (red team 2, slipped): the exact variance with a little seeded noise, no sampling; caught by
    # the spread of 2000 sample variances of n = 2
    "variance_formula_not_sampled": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    jitter = torch.randn(1, generator=generator, dtype=torch.float64).item()
    return float(scale ** 2 * d_k / 3 * (1 + 0.01 * jitter))

predicted_variance_512 = 512 / 3
"""}),
    # dtype class (red team 2, slipped): a float32 0/1 mask multiplied into a bfloat16 output
    "fix_float_mask_promotes_dtype": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        if lengths is not None:
            real = (torch.arange(T)[None, :] < lengths[:, None]).float()
            scores = scores.masked_fill(real[:, None, :] == 0, float("-inf"))
        out = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v
        return out * real[:, :, None] if lengths is not None else out
"""}),
    # boundary class (red team 2, slipped): a finite fill of -1e4 is not "weight exactly 0" once scores
    # reach the tens of thousands; caught by large activations under a causal and padding mask
    "fix_masks_with_minus_1e4": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), -1e4)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths[:, None]
            scores = scores.masked_fill(~real[:, None, :], -1e4)
        out = torch.softmax(scores, dim=-1) @ v
        return out.masked_fill(~real[:, :, None], 0.0) if lengths is not None else out
"""}),
    # Red team 6, state kept between calls: the causal mask is built at the first call and kept in self, like
    # a registered buffer; the hidden tests now call one layer on inputs of several lengths
    "fix_caches_its_causal_mask": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        if not hasattr(self, "future"):  # built once
            self.future = torch.ones(T, T, dtype=torch.bool).triu(1)
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            scores = scores.masked_fill(self.future[:T, :T], float("-inf"))
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        out = torch.matmul(weights, v)
        return out.masked_fill(~real[:, :, None], 0.0) if lengths is not None else out
"""}),
    "masking_answer_nan": ("test_answer_masking", {"mc_answers": 'answer_masking = "a"\nanswer_doubling = "b"'}),
    # From red-team round 3 (blind), each slipped before the hidden check named in its comment was added.
    # stated-requirement class: the mean of the squares, right on average because the dots have mean 0, but
    # not their sample variance; caught by how often 800 values at d_k = 16, n = 2 fall below a tenth of 16/3
    "variance_mean_of_squares": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = scale * (q * k).sum(-1)
    return (dots ** 2).mean().item()

predicted_variance_512 = 512 / 3
"""}),
    # integer-dtype class: slot numbers made in the dtype of lengths wrap around for uint8 and int8 lengths
    # once T is beyond their range; caught by T = 300 with uint8 and T = 200 with int8 lengths
    "fix_slots_in_the_dtype_of_lengths": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        if lengths is not None:
            real = torch.arange(T, dtype=lengths.dtype)[None, :] < lengths[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        out = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v
        return out.masked_fill(~real[:, :, None], 0.0) if lengths is not None else out
"""}),
    # Red team 8, second pass. Shared memory with kept state: the mask is a view of a table kept between calls
    # (the phase-2 slip p3-table-view-no-copy), so a caller that edits one mask changes every later one
    "causal_mask_view_of_a_kept_table": ("test_causal_mask", {"causal_mask": """
CAUSAL_TABLE = torch.ones(2048, 2048, dtype=torch.bool).tril()

def causal_mask(t, s, offset):
    if s <= 2048:
        return CAUSAL_TABLE[offset:offset + t, :s]
    return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
"""}),
    # the same class: results kept in a dict keyed on the arguments and returned again
    "padding_mask_kept_between_calls": ("test_padding_mask", {"padding_mask": """
KEPT = {}

def padding_mask(lengths, s):
    key = (tuple(lengths.tolist()), s)
    if key not in KEPT:
        start = s - lengths.long()[:, None]
        slots = torch.arange(s)[None, :]
        KEPT[key] = (slots >= start, (slots - start).clamp(min=0))
    return KEPT[key]
"""}),
    # gradients: right forward, wrong backward: the log-sum-exp used as the shift is detached, so the
    # gradient misses the normalisation's share (-softmax * softmax^T)
    "masked_attention_shift_detached": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse).detach()
    return torch.exp(scores - shift.unsqueeze(-1)) @ v, lse
"""}),
    # optional arguments both ways: causal taken by keyword only, so layer(x, lengths, True) raises
    "fix_causal_keyword_only": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, *, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(t, t, dtype=torch.bool)
        if causal:
            allowed = allowed.tril()
        if lengths is None:
            return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
        real = torch.arange(t)[None, :] < lengths.long()[:, None]
        allowed = allowed & real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        return weights.masked_fill(~real[:, :, None], 0.0) @ v
"""}),
    # Red team 9, NaN gradients behind a right forward pass: the mask added as a -inf bias; a sequence of
    # length 0 gives softmax rows of NaN, zeroed afterwards, but the addition passes their NaN gradients on
    "fix_additive_mask_nan_gradients": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        bias = torch.zeros(t, t, dtype=scores.dtype)
        if causal:
            bias = bias.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
        if lengths is not None:
            real = torch.arange(t)[None, :] < lengths.long()[:, None]
            bias = bias + torch.zeros(real.shape, dtype=scores.dtype).masked_fill(~real, float("-inf"))[:, None, :]
        out = torch.nan_to_num(torch.softmax(scores + bias, dim=-1), nan=0.0) @ v
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
"""}),
    # Red team 9, positions past the range of a narrow running count: an int16 cumsum wraps past 32767 slots
    "padding_positions_count_in_int16": ("test_padding_mask", {"padding_mask": """
def padding_mask(lengths, s):
    allowed = torch.arange(s)[None, :] >= s - lengths.long()[:, None]
    positions = (allowed.cumsum(dim=1, dtype=torch.int16) - 1).clamp(min=0).long()
    return allowed, positions
"""}),
    # Red team 9, side effects on global state: a leftover torch.manual_seed resets torch's global generator
    "causal_mask_reseeds_the_global_generator": ("test_causal_mask", {"causal_mask": """
def causal_mask(t, s, offset):
    torch.manual_seed(0)  # left over from debugging
    return torch.arange(s)[None, :] <= offset + torch.arange(t)[:, None]
"""}),
    # Session 17 sweep, gradients with respect to every parameter: a detached copy of one gives the right output
    # and no gradient to it (the hidden tests had checked x and query.weight only)
    "fix_key_weight_detached": ("test_fixed_self_attention", {"fixed_self_attention": FIX_MODEL.replace(
        "self.key(x)", "x @ self.key.weight.detach().T + self.key.bias")}),
    "fix_value_bias_detached": ("test_fixed_self_attention", {"fixed_self_attention": FIX_MODEL.replace(
        "self.value(x)", "x @ self.value.weight.T + self.value.bias.detach()")}),
    # round 14 (the layer's own state replaced by an equal object): a padded call puts a new Parameter over the same
    # memory in the place of value.weight; every output and every gradient the tests compared stayed right, but the
    # caller's optimizer holds the old object, which no longer gets a gradient
    "fix_replaces_value_weight_when_padded": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(
        FIX_MODEL, "        real = torch.arange(t,",
        "        self.value.weight = torch.nn.Parameter(self.value.weight.detach())  # a new leaf, the same memory\n"
        "        real = torch.arange(t,")}),
    # Round 14, hand-written answers (t_p7_scale_attr_written_in_forward): the scale fixed by writing the right value
    # into self.scale at every call. Right outputs and gradients, but the layer does not stay as it is (the text: forward
    # sets no attribute of the layer); caught by comparing the layer's own attributes before and after each call
    "fix_sets_self_scale_to_the_head_width": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(
        FIX_MODEL, "        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])",
        "        self.scale = q.shape[-1] ** -0.5  # the seed's scale, corrected in place\n"
        "        scores = q @ k.transpose(-2, -1) * self.scale")}),
    # Round 11 class sweep (class 1, a masked softmax): exp taken before the mask, under a torch.where, with the
    # maximum over the allowed keys. Right values; but exp of a masked score far above every allowed one is inf, and
    # torch.where's zero gradient times inf is NaN (the correct variant einsum_and_loops and the hidden reference did
    # this); caught by gradients with masked keys scoring about 56000 above the allowed ones
    "masked_attention_exp_before_the_mask": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    full = allowed.expand(z.shape)
    top = z.masked_fill(~full, float("-inf")).amax(dim=-1, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    e = torch.where(full, torch.exp(z - top), torch.zeros_like(z))  # exp before the mask
    total = e.sum(dim=-1, keepdim=True)
    lse = (torch.log(total) + top).squeeze(-1)
    return (e / torch.where(total > 0, total, torch.ones_like(total))) @ v, lse
"""}),
    # Round 11, refbind pass: a wrong earlier part with a later part built on it. Each loses the earlier part only,
    # because the later part's hidden tests bind a reference of the earlier function (before, both were lost).
    # Part 3 without the offset (the lesson's square mask, cut to s columns), with Part 4 calling it per row
    "causal_mask_ignores_the_offset_with_padding_calling_it": ("test_causal_mask", {"causal_mask": """
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= torch.arange(t)[:, None]
""", "padding_mask": PADDING_CALLING_CAUSAL}),
    # Part 4's s - lengths in the dtype of lengths (uint8 wraps past 255), with Part 7 taking its right padding from
    # it (the left padding flipped): Part 7's T = 300 with uint8 lengths
    "padding_mask_wraps_small_int_lengths_with_fix_calling_it": ("test_padding_mask", {"padding_mask": """
def padding_mask(lengths, s):
    slots = torch.arange(s)
    start = s - lengths
    allowed = slots[None, :] >= start[:, None]
    positions = (slots[None, :] - start[:, None]).clamp(min=0).to(torch.int64)
    return allowed, positions
""", "fixed_self_attention": FIX_MODEL.replace(
        "real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]",
        "real = padding_mask(lengths, t)[0].flip(-1)")}),
    # Red team 15 (the optimiser), results served from a table kept between calls in the common case only: the
    # lesson's square (t == s, offset 0) returned from a dict of squares, which a caller's in-place change then
    # corrupts; caught by the scribble check, now also at (5, 5, 0) and (1, 1, 0)
    "causal_mask_kept_square_for_the_lesson_case": ("test_causal_mask", {"causal_mask": """
SQUARES = {}

def causal_mask(t, s, offset):
    if t == s and offset == 0:  # the lesson's square: built once per size
        if t not in SQUARES:
            SQUARES[t] = torch.ones(t, t, dtype=torch.bool).tril()
        return SQUARES[t]
    return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
"""}),
    # Red team 15 (the optimiser), the same class in Part 4: rows all full (no padding, the common case) return an
    # expanded view of an arange kept between calls; for a batch of one that view can be written, and the caller's
    # change reaches every later call; caught by the scribble check, now also at lengths [4] with s = 4
    "padding_mask_full_rows_from_a_kept_arange": ("test_padding_mask", {"padding_mask": """
SLOTS = {}

def padding_mask(lengths, s):
    if s not in SLOTS:
        SLOTS[s] = torch.arange(s)
    slots = SLOTS[s]
    lengths = lengths.long()
    if lengths.numel() and bool((lengths == s).all()):  # no padding at all
        return torch.ones(lengths.shape[0], s, dtype=torch.bool), slots.expand(lengths.shape[0], s)
    start = s - lengths[:, None]
    return slots[None, :] >= start, (slots[None, :] - start).clamp(min=0)
"""}),
    # Red team 15 (the optimiser), state kept at module level, not in self: the causal mask is built once per length
    # and, for a batch of one, ANDed in place with its padding; the next causal call of that length on any layer sees
    # the old padding; caught by a padded then an unpadded causal call of one length with B = 1
    "fix_module_level_causal_mask_written_in_place": ("test_fixed_self_attention", {"fixed_self_attention": """
CAUSAL = {}

class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if T not in CAUSAL:
            CAUSAL[T] = torch.ones(T, T, dtype=torch.bool).tril()
        allowed = CAUSAL[T] if causal else torch.ones(T, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            if B == 1:
                allowed &= real[0][None, :]  # one sequence: no new mask needed
            else:
                allowed = allowed & real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        if lengths is not None:
            weights = weights.masked_fill(~real[:, :, None], 0.0)
        return weights @ v
"""}),
    # Red team 15 (the mathematician, "in the dtype of x"): slot numbers and lengths converted to the dtype of x.
    # Exact in float32 and float64 at these sizes, but bfloat16 rounds 257 to 256, so a sequence of 257 tokens loses
    # its last key; caught by a bfloat16 layer with T = 262 and lengths 257 and 3
    "fix_lengths_in_the_dtype_of_x": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(
        FIX_MODEL, "real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]",
        "real = torch.arange(t, device=x.device, dtype=x.dtype)[None, :] < lengths.to(x.dtype)[:, None]")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "raw_scores_kept_output_buffer": ("test_raw_scores", {"raw_scores": kept_output_buffer("""def raw_scores(q, k):
    # ||q - k||^2 = ||q||^2 + ||k||^2 - 2 q.k: one (T, S) matrix product and two vectors of norms
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype  # float16 squares overflow past 65504
    a, b = q.to(work), k.to(work)
    q_norms = a.square().sum(dim=-1, keepdim=True)               # (..., T, 1)
    k_norms = b.square().sum(dim=-1).unsqueeze(-2)               # (..., 1, S)
    dots = a @ b.transpose(-2, -1)                               # (..., T, Dh) @ (..., Dh, S) -> (..., T, S)
    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)  # a rounding error must not make it positive

""", "raw_scores")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "softmax_backward_kept_output_buffer": ("test_softmax_backward", {"softmax_backward": kept_output_buffer("""def softmax_backward(weights, grad_weights, temperature=1.0):
    # dL/du_j = sum_i g_i w_i (delta_ij - w_j) = w_j (g_j - sum_i g_i w_i) for u = z / temperature,
    # and du/dz = 1 / temperature
    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)  # (..., 1): one number per row
    return weights * (grad_weights - inner) / temperature      # (..., S) * ((..., S) - (..., 1))

""", "softmax_backward")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "causal_mask_kept_output_buffer": ("test_causal_mask", {"causal_mask": kept_output_buffer("""def causal_mask(t, s, offset):
    query_position = offset + torch.arange(t)[:, None]  # (t, 1): absolute positions of the queries
    key_position = torch.arange(s)[None, :]              # (1, s)
    return key_position <= query_position                # (1, s) <= (t, 1) -> (t, s)

""", "causal_mask")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "padding_mask_kept_output_buffer": ("test_padding_mask", {"padding_mask": kept_output_buffer("""def padding_mask(lengths, s):
    start = s - lengths.long()[:, None]                  # (B, 1): the slot of each first real token
    slots = torch.arange(s)[None, :]                     # (1, s)
    allowed = slots >= start                             # (1, s) >= (B, 1) -> (B, s)
    positions = (slots - start).clamp(min=0)             # negative at the padding -> 0
    return allowed, positions

""", "padding_mask")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "masked_attention_kept_output_buffer": ("test_masked_attention", {"masked_attention": kept_output_buffer("""def masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T, Dh) @ (..., Dh, S) -> (..., T, S)
    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)                      # (..., T); -inf where no key is allowed
    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)
    weights = torch.exp(scores - shift.unsqueeze(-1))          # exp(-inf) = 0 at every masked key
    return weights @ v, lse                                    # (..., T, S) @ (..., S, Dv) -> (..., T, Dv)

""", "masked_attention")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "fixed_self_attention_kept_output_buffer": ("test_fixed_self_attention", {"fixed_self_attention": """class _GeneralFixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, T, Dh) @ (B, Dh, T) -> (B, T, T)
        allowed = torch.ones(t, t, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed.tril()                                  # key j <= query i, the diagonal included
        if lengths is None:
            return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
        real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]  # (B, T)
        allowed = allowed & real[:, None, :]                         # (T, T) & (B, 1, T): padding keys
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        weights = weights.masked_fill(~real[:, :, None], 0.0)        # padding queries: zero rows (also the NaN ones)
        return weights @ v                                           # (B, T, T) @ (B, T, D) -> (B, T, D)

_KEPT_BUFFERS = {}


def _kept(tag, r):
    if isinstance(r, torch.Tensor):
        key = (tag, tuple(r.shape), r.dtype)
        if key not in _KEPT_BUFFERS:
            _KEPT_BUFFERS[key] = torch.empty_like(r)
        _KEPT_BUFFERS[key].copy_(r)
        return _KEPT_BUFFERS[key]
    if isinstance(r, tuple):
        return tuple(_kept((tag, i), x) for i, x in enumerate(r))
    return r


class FixedSelfAttention(_GeneralFixedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        return _kept("forward", super().forward(x, lengths, causal))
"""}),
    # red team 18 (the dtype generaliser): -1e9 filled in for the masked scores, a query with no allowed key mended
    # afterwards; right while every allowed score lies above -1e9 (every hidden case until round 18: scores in the
    # tens of thousands), wrong where queries near 1e5 meet keys near -1e5 and allowed scores lie near -3e10
    "masked_attention_fills_minus_1e9": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, -1e9)
    w = torch.softmax(z, dim=-1)
    lse = torch.logsumexp(z, dim=-1)
    none = ~allowed.expand_as(z).any(-1)
    lse = lse.masked_fill(none, float("-inf"))
    w = w.masked_fill(none[..., None], 0.0)
    return w @ v, lse
"""}),
    # red team 18 (the dtype generaliser): the same -1e9 fill in the layer (a padding query's row, all -1e9, is uniform
    # and zeroed afterwards, with a finite gradient): wrong where x near 1e5 puts allowed scores below -1e9
    "fixed_self_attention_fills_minus_1e9": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        b, t, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(t, t, dtype=torch.bool)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed.expand(b, t, t)
        real = None
        if lengths is not None:
            real = torch.arange(t)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        out = torch.softmax(scores.masked_fill(~allowed, -1e9), dim=-1) @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
"""}),
    # round 18 class sweep (a float32 sum of squares that overflows; the model answer until this sweep): float32
    # worked in float32, whose squared norms are inf past entries near 1e19 while the distances of nearby rows are not
    "raw_scores_float32_norms_overflow": ("test_raw_scores", {"raw_scores": _replaced(
        _SOLUTION["raw_scores"], "a, b = q.to(torch.float64), k.to(torch.float64)",
        "work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype\n    a, b = q.to(work), k.to(work)",
        once=True)}),
    # round 18 class sweep (backward() run inside, chapter 9's class): a "check that the gradient flows" adds a gradient
    # to the .grad of the caller's leaves; every value and every gradient taken with autograd.grad stays right
    "raw_scores_runs_backward_inside": ("test_raw_scores", {"raw_scores": _replaced(
        _SOLUTION["raw_scores"], "    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)",
        "    out = (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)\n"
        "    if out.requires_grad:\n        out.sum().backward(retain_graph=True)\n    return out", once=True)}),
    # round 18 class sweep (requires_grad_() switched on in a tensor the caller passed): no value check read the flag
    "softmax_backward_sets_requires_grad": ("test_softmax_backward", {"softmax_backward": _replaced(
        _SOLUTION["softmax_backward"], "    inner =",
        "    if not weights.requires_grad:\n        weights.requires_grad_()\n    inner =", once=True)}),
    # round 18 class sweep (a result kept between calls, keyed on id() of the inputs): every hidden call passed fresh
    # tensors, so the same weights changed in place were never seen twice
    "softmax_backward_caches_by_id": ("test_softmax_backward", {"softmax_backward": "\nINNER = {}\n" + _replaced(
        _SOLUTION["softmax_backward"], "    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)",
        "    key = (id(weights), id(grad_weights), tuple(weights.shape))\n"
        "    if key not in INNER:\n        INNER[key] = (weights * grad_weights).sum(dim=-1, keepdim=True)\n"
        "    inner = INNER[key]", once=True)}),
    # round 18 class sweep (a list where the text says the pair (allowed, positions)): _items accepted a list
    "padding_mask_returns_a_list": ("test_padding_mask", {"padding_mask": _replaced(
        _SOLUTION["padding_mask"], "    return allowed, positions", "    return [allowed, positions]", once=True)}),
    # round 18 class sweep (requires_grad_() switched on in the caller's q)
    "masked_attention_sets_requires_grad_on_q": ("test_masked_attention", {"masked_attention": _replaced(
        _SOLUTION["masked_attention"], "    scores = q @",
        "    if not q.requires_grad:\n        q.requires_grad_()\n    scores = q @", once=True)}),
    # round 18 class sweep (a list where the text says the pair (output, lse))
    "masked_attention_returns_a_list": ("test_masked_attention", {"masked_attention": _replaced(
        _SOLUTION["masked_attention"], "    return weights @ v, lse", "    return [weights @ v, lse]", once=True)}),
    # round 18 class sweep (backward() run inside)
    "masked_attention_runs_backward_inside": ("test_masked_attention", {"masked_attention": _replaced(
        _SOLUTION["masked_attention"], "    return weights @ v, lse",
        "    out = weights @ v\n    if out.requires_grad:\n        out.sum().backward(retain_graph=True)\n"
        "    return out, lse", once=True)}),
    # round 18 class sweep (a float32 sum of squares that underflows or overflows): pairs drawn in float32, whose
    # variance of scale * dots is 0 at scale 1e-25 and inf at 1e25
    "variance_in_float32": ("test_variance_experiment", {"variance_experiment": _replaced(_replaced(
        _SOLUTION["variance_experiment"], "torch.rand(n, d_k, generator=generator, dtype=torch.float64)",
        "torch.rand(n, d_k, generator=generator)", once=True),
        "torch.randn(n, d_k, generator=generator, dtype=torch.float64)", "torch.randn(n, d_k, generator=generator)",
        once=True)}),
    # red team 19 (the off-by-one student): positions counted from 1, in float32; the tie that float32 rounding makes at
    # 2**24 + 1 falls on the safe side of a single query at 2**24 (position 2**24 + 1 counted from 1), and key 2**24 + 3
    # rounds up onto query 2**24 + 2's position 2**24 + 4 only in a block of three queries from 2**24 on
    "causal_mask_one_based_float_positions": ("test_causal_mask", {"causal_mask": """
def causal_mask(t, s, offset):
    key_pos = torch.arange(1, s + 1, dtype=torch.float32)
    query_pos = torch.arange(offset + 1, offset + t + 1, dtype=torch.float32)
    return key_pos[None, :] <= query_pos[:, None]
"""}),
    # red team 19 (the off-by-one student): the allowed keys counted in uint8, which wraps to 0 at 256: a row with 256
    # allowed keys gets lse = -inf and a zero output, as if it had none
    "masked_attention_counts_keys_in_uint8": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    has_key = allowed.expand(z.shape).sum(-1, keepdim=True, dtype=torch.uint8) > 0
    top = torch.where(has_key, z.amax(-1, keepdim=True), torch.zeros((), dtype=z.dtype))
    e = torch.exp(z - top)
    total = torch.where(has_key, e.sum(-1, keepdim=True), torch.ones((), dtype=z.dtype))
    lse = torch.where(has_key, top + torch.log(total), torch.full((), float("-inf"), dtype=z.dtype)).squeeze(-1)
    return torch.where(has_key, (e / total) @ v, torch.zeros((), dtype=z.dtype)), lse
"""}),
    # red team 19 class sweep (a finite mask added to unbounded scores): torch.finfo(dtype).min added to the masked scores,
    # Hugging Face's extended attention mask; exact until a masked key scores near |lowest| above allowed ones near it
    "masked_attention_adds_finfo_min": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores + (~allowed).to(scores.dtype) * torch.finfo(scores.dtype).min
    has_key = allowed.expand(scores.shape).any(-1)
    lse = torch.logsumexp(scores, dim=-1).masked_fill(~has_key, float("-inf"))
    weights = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0).masked_fill(~has_key[..., None], 0.0)
    return weights @ v, lse
"""}),
}

# Correct answers that differ from the model answers: a loop over the queries, einsum,
# tril with a diagonal, Python loops, no logsumexp, another drawing order in float32.
EINSUM_AND_LOOPS = {
    "raw_scores": """
def raw_scores(q, k):
    rows = [-((q[..., i, None, :] - k) ** 2).sum(-1) for i in range(q.shape[-2])]  # (..., S, Dh) at a time
    return torch.stack(rows, dim=-2)
""",
    "softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    dot = torch.einsum("...s,...s->...", weights, grad_weights)
    return (weights * grad_weights - weights * dot.unsqueeze(-1)) / temperature
""",
    "causal_mask": """
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
""",
    "padding_mask": """
def padding_mask(lengths, s):
    rows, pos = [], []
    for n in lengths.tolist():
        rows.append([False] * (s - n) + [True] * n)
        pos.append([0] * (s - n) + list(range(n)))
    b = len(rows)
    return (torch.tensor(rows, dtype=torch.bool).reshape(b, s),
            torch.tensor(pos, dtype=torch.long).reshape(b, s))
""",
    "masked_attention": """
def masked_attention(q, k, v, allowed):
    allowed = allowed.expand(*q.shape[:-1], k.shape[-2])
    z = torch.einsum("...td,...sd->...ts", q, k) / math.sqrt(q.shape[-1])
    top = torch.where(allowed, z, torch.full_like(z, -math.inf)).amax(dim=-1, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    # -inf before exp (round 11 class sweep): exp of a masked score far above top is inf, and torch.where after
    # it sends 0 * inf = NaN back
    e = torch.exp(torch.where(allowed, z - top, torch.full_like(z, -math.inf)))
    total = e.sum(dim=-1, keepdim=True)
    lse = (torch.log(total) + top).squeeze(-1)
    w = e / torch.where(total > 0, total, torch.ones_like(total))
    return torch.einsum("...ts,...sv->...tv", w, v), lse
""",
    "variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    k = torch.randn(d_k, n, generator=generator)
    q = torch.rand(d_k, n, generator=generator)
    dots = torch.einsum("dn,dn->n", q, k)
    # float32 draws, the scale applied to the variance as a Python float: squares of float32 numbers of size 1e-25 or
    # 1e25 underflow or overflow (round 18 class sweep)
    return float(((dots - dots.mean()) ** 2).sum() / (n - 1)) * scale ** 2

predicted_variance_512 = 170.666667
""",
    "fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        b, t, _ = x.shape
        q = self.query(x) / math.sqrt(self.query.out_features)
        k, v = self.key(x), self.value(x)
        z = torch.einsum("btd,bsd->bts", q, k)
        rows = []
        for i in range(b):
            n = t if lengths is None else int(lengths[i])
            keep = torch.zeros(t, t, dtype=torch.bool)
            keep[:n, :n] = True
            if causal:
                keep &= torch.ones(t, t, dtype=torch.bool).tril()
            w = torch.where(keep, z[i], torch.full_like(z[i], -math.inf))
            w = torch.nan_to_num(torch.softmax(w, dim=-1), nan=0.0)
            rows.append(torch.einsum("ts,sd->td", w, v[i]))
        return torch.stack(rows)
""",
    "mc_answers": 'answer_doubling = "b"\nanswer_masking = "d"',
}

# Half precision worked in float32, nested lists, torch.softmax with logsumexp, PyTorch's own SDPA.
LOOPS_AND_TORCH = {
    "raw_scores": """
def raw_scores(q, k):
    work = torch.promote_types(q.dtype, torch.float64)  # float32 squares overflow past 3.4e38 (red team 18 sweep)
    a, b = q.to(work), k.to(work)
    d = a.pow(2).sum(-1, keepdim=True) + b.pow(2).sum(-1, keepdim=True).mT - 2 * a @ b.mT
    return torch.minimum(-d, torch.zeros((), dtype=work)).to(q.dtype)
""",
    "softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights, grad_weights
    if w.dtype in (torch.float16, torch.bfloat16):
        w, g = w.float(), g.float()
    out = w * g - w * torch.sum(w * g, dim=-1, keepdim=True)
    return (out / temperature).to(weights.dtype)
""",
    "causal_mask": """
def causal_mask(t, s, offset):
    return torch.tensor([[j <= offset + i for j in range(s)] for i in range(t)], dtype=torch.bool).reshape(t, s)
""",
    "padding_mask": """
def padding_mask(lengths, s):
    right = torch.arange(s)[None, :] < lengths[:, None]
    allowed = right.flip(-1)
    positions = (allowed.long().cumsum(dim=-1) - 1).clamp(min=0)
    return allowed, positions
""",
    "masked_attention": """
def masked_attention(q, k, v, allowed):
    scores = (q @ k.mT / math.sqrt(q.shape[-1])).masked_fill(~allowed, -math.inf)
    lse = torch.logsumexp(scores, dim=-1)
    weights = torch.softmax(scores, dim=-1).nan_to_num(nan=0.0)
    return weights @ v, lse
""",
    "variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n * d_k, generator=generator, dtype=torch.float64).view(n, d_k)
    k = torch.randn(n * d_k, generator=generator, dtype=torch.float64).view(n, d_k)
    dots = (q * k).sum(1) * scale
    return dots.var(correction=1).item()

predicted_variance_512 = 170.667  # six significant digits
""",
    "fixed_self_attention": """
import torch.nn.functional as F

class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        mask = torch.ones(t, t, dtype=torch.bool).tril() if causal else torch.ones(t, t, dtype=torch.bool)
        if lengths is None:
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        pad = torch.arange(t).expand(x.shape[0], t) < lengths.unsqueeze(1)  # (B, T)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask & pad.unsqueeze(1))
        return torch.where(pad.unsqueeze(-1), out, torch.zeros_like(out))
""",
    "mc_answers": 'answer_masking = "d"\nanswer_doubling = "b"',
}

# A layer that calls Part 5's masked_attention in its input's dtype, bfloat16 included (red team 7: the hidden
# test's reference of masked_attention could not fill a bfloat16 score with -1e30, so this lost its 2 points).
# Red team 8: a causal mask copied out of a table made in advance for small sizes, computed beyond it (the text
# asks for the right mask at every size in memory proportional to it, which this gives; it no longer forbids the
# table).
LAYER_CALLS_PART_5 = {"causal_mask": """
CAUSAL_TABLE = torch.ones(2048, 2048, dtype=torch.bool).tril()

def causal_mask(t, s, offset):
    if s <= 2048:
        return CAUSAL_TABLE[offset:offset + t, :s].clone()
    return torch.arange(s)[None, :] <= offset + torch.arange(t)[:, None]
""", "fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        # round 11, refbind pass: the masks from Parts 3 and 4, by keyword
        allowed = causal_mask(t=t, s=t, offset=0) if causal else torch.ones(t, t, dtype=torch.bool, device=x.device)
        if lengths is None:
            return masked_attention(q, k, v, allowed)[0]
        left, _ = padding_mask(lengths=lengths, s=t)  # real tokens in the last slots
        real = left.flip(-1)                          # the lesson's right padding: the same rows read backwards
        # red team 34: Part 5 promises finite gradients only where a query has an allowed key, so every query keeps
        # key 0 (a real key of every real query) and the padding queries' rows are zeroed here
        keys = real | (torch.arange(t, device=x.device) == 0)[None, :]
        out, _ = masked_attention(q, k, v, allowed & keys[:, None, :])
        return out.masked_fill(~real[:, :, None], 0.0)
""", "padding_mask": PADDING_CALLING_CAUSAL}

CORRECT_VARIANTS = {
    "einsum_and_loops": EINSUM_AND_LOOPS,
    "loops_and_torch": LOOPS_AND_TORCH,
    "layer_calls_part_5": LAYER_CALLS_PART_5,
}

# Mutants of independent parts graded together, one submission per batch: each member changes its own
# answer cell and, graded alone, breaks only its own graded test (every part's hidden tests bind
# references of the earlier functions); test_exercises.py checks that each batch loses exactly its
# members' tests.
MUTANT_BATCHES = [
    ["raw_scores_dot_products_copied", "softmax_backward_without_the_row_term", "causal_mask_aligned_bottom_right",
     "positions_negative_at_the_padding", "lse_without_max_shift", "variance_mean_of_squares",
     "fix_slots_in_the_dtype_of_lengths", "masking_answer_uniform"],
    ["raw_scores_in_float32", "softmax_backward_sum_without_keepdim", "causal_mask_off_by_one",
     "positions_from_the_longest_sequence", "lse_over_every_key", "variance_scale_not_squared",
     "fix_causal_hides_the_diagonal", "masking_answer_lying_str"],
    ["raw_scores_transposes_in_place", "softmax_backward_in_float32", "causal_mask_as_float",
     "positions_in_the_dtype_of_lengths", "lse_squeezed_too_far", "variance_normal_queries_like_the_lesson",
     "fix_masks_padding_queries_not_keys", "doubling_answer_variance_4_not_16"],
    ["raw_scores_lying_tensor", "softmax_backward_changes_grad_in_place", "causal_mask_from_a_small_table",
     "padding_mask_changes_lengths_in_place", "masked_attention_scales_q_in_place", "variance_prediction_uses_var_of_q",
     "fix_softmax_in_float32", "doubling_answer_forgot_the_stale_divisor"],
    ["fix_padding_queries_not_zeroed", "raw_scores_not_clamped", "softmax_backward_returns_float32_for_halves",
     "causal_mask_float_positions", "padding_mask_negative_slice_for_length_0", "lse_float32_accumulator",
     "variance_divides_by_n", "masking_answer_nan"],
    ["causal_mask_from_a_position_table", "softmax_backward_unweighted_mean", "raw_scores_flattens_with_view",
     "padding_mask_wraps_small_int_lengths",
     "masked_attention_flattens_with_view", "variance_reseeds_the_global_generator", "fix_float_mask_promotes_dtype"],
    ["causal_mask_cut_from_the_square", "variance_formula_not_sampled", "fix_masks_with_minus_1e4",
     "softmax_backward_times_temperature", "raw_scores_broadcast_difference", "masked_attention_fills_with_minus_1e4",
     "padding_positions_count_in_int16"],  # red team 9
    ["variance_keys_from_a_derived_generator", "fix_caches_its_causal_mask",  # red team 6
     "causal_mask_view_of_a_kept_table", "masked_attention_shift_detached",  # red team 8, second pass
     "raw_scores_cdist", "softmax_backward_ignores_temperature",  # session 17: the new parts 1 and 2
     "padding_mask_operation_per_slot"],  # red team 11
    ["variance_fresh_generator_when_none",  # red team 7: every batch above already has a variance mutant
     "padding_mask_kept_between_calls", "fix_causal_keyword_only",  # red team 8, second pass
     "causal_mask_reseeds_the_global_generator",  # red team 9
     "softmax_backward_full_jacobian", "raw_scores_missing_factor_two",  # session 17
     "masked_attention_kept_output_buffer"],  # round 15 class sweep, second pass
    ["variance_scale_renamed", "fix_additive_mask_nan_gradients",  # red team 8: likewise; red team 9
     "masked_attention_borrows_the_hidden_reference",  # red team 9, white box
     "raw_scores_key_norms_as_a_column", "softmax_backward_through_autograd",  # session 17
     "causal_mask_ignores_the_offset_with_padding_calling_it"],  # round 11, refbind: no other Part 3 or 4 member
    ["raw_scores_norms_detached", "softmax_backward_temperature_keyword_only",  # session 17
     "fix_key_weight_detached",  # session 17 sweep: gradients with respect to every parameter
     "variance_normal_q_with_the_uniform_moments",  # red team 11
     "masked_attention_exp_before_the_mask",  # round 11 class sweep: no other Part 5 member
     "causal_mask_kept_square_for_the_lesson_case", "padding_mask_full_rows_from_a_kept_arange"],  # red team 15
    ["raw_scores_squares_in_float16", "variance_loop_over_pairs",  # red team 11: every batch above has a part 1 mutant
     "padding_mask_max_of_an_empty_batch",  # red team 12
     "softmax_backward_clamps_weights_in_place",  # round 12 class sweep: no other Part 2 member
     "fix_replaces_value_weight_when_padded",  # round 14: no other Part 7 member
     "causal_mask_kept_output_buffer",
     "masked_attention_adds_minus_1e5_bias"],  # round 15 class sweep, second pass
    ["raw_scores_distance_then_square",  # red team 11
     "padding_mask_wraps_small_int_lengths_with_fix_calling_it",
     "causal_mask_in_inference_mode", "softmax_backward_in_inference_mode",  # red team 17  # round 11, refbind: no other Part 4 or 7 member
     "masked_attention_fills_minus_1e9",  # red team 18
     "variance_in_float32"],  # round 18 class sweep
    ["fix_sets_self_scale_to_the_head_width",  # round 14, hand-written answers: every batch above has a Part 7 member
     "raw_scores_kept_output_buffer", "softmax_backward_kept_output_buffer",  # round 15 class sweep, second pass
     "padding_mask_kept_output_buffer", "masked_attention_clamps_the_inputs",
     "causal_mask_one_based_float_positions"],  # red team 19
    # red team 15: every batch above has a Part 7 member; each new one takes two of the mutants graded alone before
    ["fix_module_level_causal_mask_written_in_place", "raw_scores_clamp_only_when_k_is_q",
     "softmax_backward_renormalises_the_row", "variance_floored_at_1e_12",
     "padding_mask_returns_a_list", "masked_attention_sets_requires_grad_on_q"],  # round 18 class sweep
    ["fix_lengths_in_the_dtype_of_x", "raw_scores_norms_from_gram_diagonals",
     "padding_mask_in_inference_mode", "softmax_backward_clamps_the_gradient",  # red team 17
     "masked_attention_returns_a_list"],  # round 18 class sweep
    # round 15 class sweep, second pass: every batch above has a Part 7 member
    ["fixed_self_attention_kept_output_buffer",
     "raw_scores_clamps_the_inputs", "softmax_backward_floors_the_temperature",  # round 17 clamp sweep
     "masked_attention_runs_backward_inside"],  # round 18 class sweep
    # round 17 clamp sweep: batch 12, the only one without a Part 8 mutant, holds Part 8 calling Part 4
    ["fix_clamps_the_inputs",
     "raw_scores_runs_backward_inside", "softmax_backward_caches_by_id",  # round 18 class sweep
     "masked_attention_counts_keys_in_uint8"],  # red team 19
    # red team 18: every batch above holds a Part 7 mutant or changes Part 7's cell
    ["fixed_self_attention_fills_minus_1e9",
     "raw_scores_float32_norms_overflow", "softmax_backward_sets_requires_grad",  # round 18 class sweep
     "masked_attention_adds_finfo_min"],  # red team 19 class sweep
    # round 18 class sweep: no batch has room for a Part 7 mutant (fix_caches_padding_by_id_lengths, the layer's
    # padding mask kept per id(lengths)); the hidden test catches it (tests/redteam/round18/02-sweep-after.txt)
]

# Red team 19 (tests/redteam/round19/02-verdicts.md and 02-sweep-verdicts.md): the Part 7 mutants those files wrote
# out because every batch above held a Part 7 member. Batches other than batch_0 run as plain processes, so three new
# batches take three of them; the fourth (a class Part 5's masked_attention_counts_keys_in_uint8 already stands for)
# runs alone, like every mutant outside the batches, in a plain process of its own
from grading import place_mutant, place_mutants  # noqa: E402

ROUND_19_PART_7 = {
    # 02-sweep-verdicts.md, SLIPPED p7-F-hf-additive-finfo-min: finfo(dtype).min added to the scores; a masked key
    # scoring near |lowest| stays above allowed ones near lowest/2
    "fixed_self_attention_adds_finfo_min": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(_replaced(
        FIX_MODEL, 'scores.masked_fill(~allowed, float("-inf"))',
        "(scores + (~allowed).to(scores.dtype) * torch.finfo(scores.dtype).min)"),
        "        weights = torch.softmax((scores + (~allowed).to(scores.dtype) * torch.finfo(scores.dtype).min), dim=-1)\n",
        "        weights = torch.softmax((scores + (~allowed).to(scores.dtype) * torch.finfo(scores.dtype).min), dim=-1)\n"
        "        weights = weights.masked_fill(~allowed, 0.0)\n", once=True)}),
    # 02-sweep-verdicts.md, SLIPPED p7-C-one-based-slots-in-x-dtype: slot numbers counted from 1 in the dtype of x
    # (bfloat16 rounds 259 up to 260)
    "fix_one_based_slots_in_the_dtype_of_x": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(
        FIX_MODEL, "        real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]  # (B, T)\n",
        "        real = torch.arange(1, t + 1, dtype=x.dtype, device=x.device)[None, :] <= lengths.to(x.dtype)[:, None]\n",
        once=True)}),
    # 02-sweep-verdicts.md, p7-C-causal-one-based-in-x-dtype: causal positions counted from 1 in the dtype of x
    "fix_causal_one_based_positions_in_the_dtype_of_x": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(
        FIX_MODEL, "            allowed = allowed.tril()                                  # key j <= query i, the diagonal included\n",
        "            pos = torch.arange(1, t + 1, dtype=x.dtype, device=x.device)\n"
        "            allowed = pos[None, :] <= pos[:, None]\n", once=True)}),
    # 02-verdicts.md, Part 5's uint8 count in the layer: rows with no allowed key found by a count of allowed keys in
    # uint8, which wraps to 0 at 256 (caught by the case T = 262, lengths 257 and 3, causal)
    "fix_counts_keys_in_uint8": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(
        FIX_MODEL, '        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)\n',
        '        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)\n'
        '        has_key = allowed.sum(-1, keepdim=True, dtype=torch.uint8) > 0  # in place of allowed.any(-1, keepdim=True)\n'
        '        weights = weights.masked_fill(~has_key, 0.0)\n', once=True)}),
}
MUTANTS.update(ROUND_19_PART_7)
for _name in list(ROUND_19_PART_7)[:3]:
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, None)

# Red team 20 (tests/redteam/round20/02-verdicts.md): the four kinds of student (shape coincidences, aliasing and
# in-place, early exits, library defaults); each closed class with a mutant, placed in a batch with room where one has
# it (else it runs alone as a plain process)


def _prefixed(cell: str, signature: str, lines: str) -> str:
    """The model answer of ``cell`` with ``lines`` (a shortcut) put first in the body of the function ``signature``."""
    return _replaced(_SOLUTION[cell], signature + "\n", signature + "\n" + lines, once=True)


_BACKWARD = "def softmax_backward(weights, grad_weights, temperature=1.0):"
_PADDING = "def padding_mask(lengths, s):"
_ATTENTION = "def masked_attention(q, k, v, allowed):"
_VARIANCE = "def dot_product_variance(d_k, n, scale=1.0, generator=None):"
ROUND_20 = {
    # SLIPPED early_p2_all_zero_returns_input: all-zero weights handed back as the result itself
    "softmax_backward_hands_back_zero_weights": ("test_softmax_backward", {"softmax_backward": _prefixed(
        "softmax_backward", _BACKWARD, "    if not bool(weights.any()):  # nothing attended: nothing passes back\n"
                                       "        return weights\n")}),
    # SLIPPED early_p2_zero_grad_returns_input: all-zero grad_weights handed back
    "softmax_backward_hands_back_zero_grad": ("test_softmax_backward", {"softmax_backward": _prefixed(
        "softmax_backward", _BACKWARD, "    if not bool(grad_weights.any()):  # no gradient in, none out\n"
                                       "        return grad_weights\n")}),
    # class of the round: a write into weights that autograd's version counter does not see (values unchanged)
    "softmax_backward_clamps_weights_through_data": ("test_softmax_backward", {"softmax_backward": _prefixed(
        "softmax_backward", _BACKWARD, "    weights.data.clamp_(0, 1)  # weights of a softmax lie in [0, 1]\n")}),
    # SLIPPED alias_p4_full_rows_expand: rows without padding answered with one row expanded (the caller's write is
    # refused, and _scribble passes over a broadcast view)
    "padding_mask_expands_full_rows": ("test_padding_mask", {"padding_mask": _prefixed(
        "padding_mask", _PADDING, "    if lengths.numel() > 0 and bool((lengths == s).all()):  # no padding anywhere\n"
                                  "        b = lengths.shape[0]\n"
                                  "        return torch.ones(1, s, dtype=torch.bool).expand(b, s), torch.arange(s).expand(b, s)\n")}),
    # class of the round: rows all empty, answered with one row expanded
    "padding_mask_expands_empty_rows": ("test_padding_mask", {"padding_mask": _prefixed(
        "padding_mask", _PADDING, "    if lengths.numel() > 0 and not bool(lengths.any()):  # nothing real anywhere\n"
                                  "        b = lengths.shape[0]\n"
                                  "        return (torch.zeros(1, s, dtype=torch.bool).expand(b, s),\n"
                                  "                torch.zeros(1, s, dtype=torch.int64).expand(b, s))\n")}),
    # SLIPPED early_p5_all_masked_zeros_like_v: a call with no allowed key at all answered with zeros shaped like v
    # (T != S) and an lse shaped like q's batch only
    "masked_attention_all_masked_zeros_like_v": ("test_masked_attention", {"masked_attention": _prefixed(
        "masked_attention", _ATTENTION, "    if not bool(allowed.any()):\n"
                                        "        return torch.zeros_like(v), torch.full(q.shape[:-1], float('-inf'), dtype=q.dtype)\n")}),
    # class of the round: one query and one allowed key answered with v itself (its values are the output)
    "masked_attention_one_key_hands_back_v": ("test_masked_attention", {"masked_attention": _prefixed(
        "masked_attention", _ATTENTION, "    if q.shape[-2] == 1 and k.shape[-2] == 1 and bool(allowed.all()):  # weight 1\n"
                                        "        return v, (q * k).sum(-1) / math.sqrt(q.shape[-1])\n")}),
    # SLIPPED early_p6_width_one_global_rng: d_k = 1 drawn from torch's global generator
    "variance_width_one_global_generator": ("test_variance_experiment", {"variance_experiment": _prefixed(
        "variance_experiment", _VARIANCE, "    if d_k == 1:  # scalars\n"
                                          "        q = torch.rand(n, dtype=torch.float64)\n"
                                          "        k = torch.randn(n, dtype=torch.float64)\n"
                                          "        return (scale * q * k).var().item()\n")}),
    # SLIPPED early_p6_scale_zero_no_draw: scale 0 answered without drawing
    "variance_scale_zero_draws_nothing": ("test_variance_experiment", {"variance_experiment": _prefixed(
        "variance_experiment", _VARIANCE, "    if scale == 0:\n        return 0.0\n")}),
    # class of the round: a mask of one query at the last slot (all True) expanded from one element
    "causal_mask_expands_one_element": ("test_causal_mask", {"causal_mask": _prefixed(
        "causal_mask", "def causal_mask(t, s, offset):", "    if t == 1 and offset == s - 1:  # the last slot sees everything\n"
                                                         "        return torch.ones((), dtype=torch.bool).expand(1, s)\n")}),
    # class of the round: every sequence empty answered with a zero expanded from one element
    "fix_every_sequence_empty_expanded_zeros": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(
        FIX_MODEL, "    def forward(self, x, lengths=None, causal=False):\n",
        "    def forward(self, x, lengths=None, causal=False):\n"
        "        if lengths is not None and not bool(lengths.any()):  # nothing real: every output row is zero\n"
        "            return x.new_zeros(()).expand(x.shape)\n", once=True)}),
}
MUTANTS.update(ROUND_20)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_20, "alone")  # no batch has room: the mutant runs alone


# Red team 21 (tests/redteam/round21/02-verdicts.md): the order-of-operations, vectorising, signature-and-defaults and
# variant-confuser students.
def _renamed(cell: str, signature: str, new_signature: str, rebind: str) -> str:
    """The model answer of ``cell`` with one argument of ``signature`` renamed, bound back to its name first."""
    return _replaced(_SOLUTION[cell], signature + "\n", new_signature + "\n" + rebind, once=True)


ROUND_21 = {
    # SLIPPED p1_sig_query_key_names: arguments renamed passed every positional call (only the optional ones were
    # passed by name); every part is now called once with every argument by name, in another order than the stub's
    "raw_scores_renamed_query_key": ("test_raw_scores", {"raw_scores": _renamed(
        "raw_scores", "def raw_scores(q, k):", "def raw_scores(query, key):", "    q, k = query, key\n")}),
    "softmax_backward_weights_renamed": ("test_softmax_backward", {"softmax_backward": _renamed(
        "softmax_backward", _BACKWARD, "def softmax_backward(w, grad_weights, temperature=1.0):", "    weights = w\n")}),
    "causal_mask_offset_renamed_start": ("test_causal_mask", {"causal_mask": _renamed(
        "causal_mask", "def causal_mask(t, s, offset):", "def causal_mask(t, s, start):", "    offset = start\n")}),
    "padding_mask_s_renamed_size": ("test_padding_mask", {"padding_mask": _renamed(
        "padding_mask", _PADDING, "def padding_mask(lengths, size):", "    s = size\n")}),
    "masked_attention_allowed_renamed_mask": ("test_masked_attention", {"masked_attention": _renamed(
        "masked_attention", "def masked_attention(q, k, v, allowed):", "def masked_attention(q, k, v, mask):",
        "    allowed = mask\n")}),
    "variance_d_k_renamed_dim": ("test_variance_experiment", {"variance_experiment": _renamed(
        "variance_experiment", "def dot_product_variance(d_k, n, scale=1.0, generator=None):",
        "def dot_product_variance(dim, n, scale=1.0, generator=None):", "    d_k = dim\n")}),
    "fix_forward_x_renamed_inputs": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(
        FIX_MODEL, "    def forward(self, x, lengths=None, causal=False):\n",
        "    def forward(self, inputs, lengths=None, causal=False):\n        x = inputs\n", once=True)}),
    # SLIPPED p2_order_g_over_tau_first: the division by the temperature taken first, in float16 (g / 1e-6 = inf), then
    # widened: a key of weight 0 (0 * inf) or 1 (inf - inf) gets NaN; float16 rows at temperature 1e-6 whose gradient
    # stays in range now catch it
    "softmax_backward_divides_half_g_first": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    g = grad_weights / temperature                      # d/dz of z / tau first, in the input dtype
    work = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w, g = weights.to(work), g.to(work)
    return (w * (g - (w * g).sum(-1, keepdim=True))).to(weights.dtype)
"""}),
}
MUTANTS.update(ROUND_21)
# no batch has room: a new batch, which the next such mutant joins where it can
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_21, "new")


# Red team round 22 (the sampling-and-randomness, rounding-and-integer, counting-and-units and allocation students).
ROUND_22 = {
    # SLIPPED hostile "formula dressed as a sample": every pair drawn from the generator as asked, the value returned
    # d_k / 3 * scale ** 2 times the sample variance of the normal draws alone (the right mean, and at d_k = 16 the
    # right spread too); at d_k = 1 the distribution of the sample variance of 2 dots q k, read at six points of its
    # CDF, now tells it from a sample variance of normals
    "variance_formula_times_normal_sample_variance": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    z = k.sum(-1) / math.sqrt(d_k)             # an honest N(0, 1) sample, used only for its noise
    return (d_k / 3) * scale ** 2 * z.var().item()

predicted_variance_512 = 512 / 3
"""}),
}
MUTANTS.update(ROUND_22)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_22, "alone")  # into a batch with room, else it runs alone


# Red team round 22, second pass (tests/redteam/round22/02-class-verdicts.md): classes H and S3 in this chapter.
ROUND_22_CLASSES = {
    # SLIPPED class H: the temperature made a tensor in the input's half dtype before float32 work (1e-6 is 1.0133e-6
    # in float16: every gradient 1.3 % small, inside the loose half tolerance); float16 rows exact in float16 at
    # temperatures 1e-6 and 1e-7, compared to 2 ** -8, now catch it
    "softmax_backward_temperature_rounded_to_input_dtype": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    tau = torch.tensor(temperature, dtype=weights.dtype)
    work = torch.float32 if weights.dtype in (torch.float16, torch.bfloat16) else weights.dtype
    w, g = weights.to(work), grad_weights.to(work)
    return (w * (g - (w * g).sum(dim=-1, keepdim=True)) / tau.to(work)).to(weights.dtype)
"""}),
    # SLIPPED class S3: unbiased estimates that are not the sample variance of the n dots, each exact where the old
    # distribution checks look (d_k = 1, or n = 2); the spread of 4000 values at d_k = 16, n = 20 now tells them apart
    "variance_one_coordinate_times_d_k": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return d_k * (scale * q[:, 0] * k[:, 0]).var().item()   # the d_k terms are independent: measure one

predicted_variance_512 = 512 / 3
"""}),
    "variance_successive_differences": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    s = scale * (q * k).sum(-1)
    return ((s[1:] - s[:-1]) ** 2).sum().item() / (2 * (n - 1))   # von Neumann's estimate

predicted_variance_512 = 512 / 3
"""}),
}
MUTANTS.update(ROUND_22_CLASSES)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_22_CLASSES, "alone")  # into a batch with room, else it runs alone


# Red team 25 (tests/redteam/round25/02-verdicts.md): the notebook-state, approximator, log-space and direction-and-order
# students. SLIPPED ap-masked-attention-finfo-min-fill (Part 5) and the same class in Part 7: torch.finfo(dtype).min
# filled in at the masked keys (not added) lies below every allowed score but one at exactly the lowest finite value,
# which it ties and shares the weight with; cases with an allowed score exactly finfo(dtype).min, in float64 and
# float32, now catch both
ROUND_25 = {
    "masked_attention_fills_finfo_min": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    wd = torch.float32 if q.dtype == torch.bfloat16 else q.dtype

    z = (q.to(wd) @ k.to(wd).transpose(-1, -2)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, torch.finfo(wd).min)   # large negative instead of -inf: no NaN
    lse = torch.logsumexp(z, dim=-1)
    w = torch.softmax(z, dim=-1)
    any_ = allowed.expand(z.shape).any(dim=-1)
    lse = torch.where(any_, lse, torch.tensor(float("-inf"), dtype=wd))
    out = torch.where(any_[..., None], w @ v.to(wd), torch.zeros((), dtype=wd))
    return out.to(q.dtype), lse.to(q.dtype)
"""}),
    "fixed_attention_fills_finfo_min": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, D = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        wd = torch.float32 if x.dtype in (torch.bfloat16, torch.float16) else x.dtype

        scores = (q.to(wd) @ k.to(wd).transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.tril(torch.ones(T, T, dtype=torch.bool))
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, torch.finfo(wd).min)      # lowest finite value: never NaN
        w = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        out = (w @ v.to(wd)).masked_fill(~real[:, :, None], 0.0)
        return out.to(x.dtype)
"""}),
}
MUTANTS.update(ROUND_25)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_25, "alone")  # into a batch with room, else it runs alone


# Red team 25 class sweep (tests/redteam/round25/02-sweep-verdicts.md): classes K-P of round 25 put into every part.
# SLIPPED L-p4-slot-table-2-to-20 (class L): slot numbers from a table of 2**20 made once; rows of 2**20 + 3 slots now
# catch it. SLIPPED M-p1-distances-below-1e-12-zeroed (class M): a slack of 1e-12 under the sign rule; entries near
# 1e-10 now catch it. (SLIPPED M-p2, a slack under the masked-key rule of Part 2, is closed by a hidden case; no batch
# has room for a Part 2 mutant, so its code is written in the verdicts file.) Into existing batches only
ROUND_25_SWEEP = {
    "padding_mask_slot_table_of_2_to_20": ("test_padding_mask", {"padding_mask": (
        "SLOTS = torch.arange(1 << 20)  # slot numbers, made once\n" + _replaced(
            _SOLUTION["padding_mask"], "    slots = torch.arange(s)[None, :]", "    slots = SLOTS[None, :s]", once=True))}),
    "raw_scores_distances_below_1e_12_zeroed": ("test_raw_scores", {"raw_scores": _replaced(
        _SOLUTION["raw_scores"], "    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)",
        "    d = q_norms + k_norms - 2 * dots\n"
        "    return (-torch.where(d > 1e-12, d, torch.zeros_like(d))).to(q.dtype)", once=True)}),
}
MUTANTS.update(ROUND_25_SWEEP)
for _name in ROUND_25_SWEEP:
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")  # raises if no existing batch has room

# Found on the way by the same sweep (02-sweep-verdicts.md): the weights as exp(z - lse), the model answer until then,
# lose log n where lse rounds to the largest allowed score (two allowed keys tied at -30000 in float32, at -1e300 in
# float64); the model answer now divides by the sum, and this is the old one
ROUND_25_SWEEP_FOUND = {
    "masked_attention_weights_exp_minus_lse": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T, Dh) @ (..., Dh, S) -> (..., T, S)
    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)                      # (..., T); -inf where no key is allowed
    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)
    weights = torch.exp(scores - shift.unsqueeze(-1))          # exp(-inf) = 0 at every masked key
    return weights @ v, lse
"""}),
}
MUTANTS.update(ROUND_25_SWEEP_FOUND)
place_mutant(MUTANTS, MUTANT_BATCHES, "masked_attention_weights_exp_minus_lse", "free")

# ... and Part 2's slack (02-sweep-verdicts.md, first written there: no batch has room for a test_softmax_backward
# mutant): keys of weight below 1e-12 treated as masked; caught by keys of weight 2**-43 at temperature 1e-6. It
# makes a batch of its own (one plain-process notebook run)
ROUND_25_SWEEP_PART_2 = {
    "softmax_backward_weights_below_1e_12_masked": ("test_softmax_backward", {"softmax_backward": _replaced(
        _SOLUTION["softmax_backward"], "    return weights * (grad_weights - inner) / temperature",
        "    result = weights * (grad_weights - inner) / temperature\n"
        "    return torch.where(weights > 1e-12, result, torch.zeros_like(result))", once=True)}),
}
MUTANTS.update(ROUND_25_SWEEP_PART_2)
place_mutant(MUTANTS, MUTANT_BATCHES, "softmax_backward_weights_below_1e_12_masked", None)

# Round 26 class sweep (tests/redteam/round26/02-sweep-verdicts.md): classes R (a size-1 axis beside a longer one), S (a
# non-contiguous layout that still lets .view through) and T (an input that starts inside its storage) put into every
# part. Into existing batches only (the suite is near its time limit); the slips no batch has room for (Part 2's three,
# Part 5's class S, Part 7's class T) are written out in the verdict file
_AS_STRIDED_KT = ("torch.as_strided(k, (*k.shape[:-2], k.shape[-1], k.shape[-2]), "
                  "(*k.stride()[:-2], k.stride(-1), k.stride(-2)), 0)")  # offset 0: counted from the storage's start
ROUND_26_SWEEP = {
    # SLIPPED sw_p1_R_query_norms_squeezed: T = 1 beside a batch of three, the norms squeezed and put back on the last axis
    "raw_scores_query_norms_squeezed": ("test_raw_scores", {"raw_scores": _replaced(
        _SOLUTION["raw_scores"], "q_norms = a.square().sum(dim=-1, keepdim=True)",
        "q_norms = a.square().sum(dim=-1).squeeze().unsqueeze(-1)", once=True)}),
    # SLIPPED sw_p1_S_view_of_k: k flattened with .view, which only a transposed k refuses
    "raw_scores_view_of_k": ("test_raw_scores", {"raw_scores": _replaced(
        _SOLUTION["raw_scores"], "dots = a @ b.transpose(-2, -1)",
        "dots = (a.reshape(-1, a.shape[-2], a.shape[-1]) @ b.view(-1, b.shape[-2], b.shape[-1]).transpose(1, 2))"
        ".view(*a.shape[:-1], b.shape[-2])", once=True)}),
    # SLIPPED sw_p1_T_transpose_at_offset_0: k transposed with as_strided at storage offset 0
    "raw_scores_keys_as_strided_from_the_storage_start": ("test_raw_scores", {"raw_scores": _replaced(
        _SOLUTION["raw_scores"], "dots = a @ b.transpose(-2, -1)",
        "dots = a @ " + _AS_STRIDED_KT.replace("k", "b"), once=True)}),
    # SLIPPED sw_p4_T_lengths_at_offset_0: lengths read as a (B, 1) as_strided view at storage offset 0
    "padding_mask_lengths_as_strided_from_the_storage_start": ("test_padding_mask", {"padding_mask": _replaced(
        _SOLUTION["padding_mask"], "start = s - lengths.long()[:, None]",
        "start = s - torch.as_strided(lengths, (lengths.shape[0], 1), (lengths.stride(0), 1), 0).long()", once=True)}),
    # SLIPPED sw_p5_T_transpose_at_offset_0: k transposed with as_strided at storage offset 0
    "masked_attention_keys_as_strided_from_the_storage_start": ("test_masked_attention", {"masked_attention": _replaced(
        _SOLUTION["masked_attention"], "scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])",
        "scores = q @ " + _AS_STRIDED_KT + " / math.sqrt(q.shape[-1])", once=True)}),
    # SLIPPED sw_p7_R_real_squeezed: T = 1 beside a batch of three, the padding rows squeezed and read as one sequence
    "fix_padding_rows_squeezed": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(
        _SOLUTION["fixed_self_attention"], "        allowed = allowed & real[:, None, :]",
        "        real = real.squeeze()\n"
        "        real = real if real.dim() == 2 else real.reshape(1, -1)  # a batch of one\n"
        "        allowed = allowed & real[:, None, :]", once=True)}),
}
MUTANTS.update(ROUND_26_SWEEP)
for _name in ROUND_26_SWEEP:
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")  # raises if no existing batch has room


# Round 26's class sweep (tests/redteam/round26/02-sweep-verdicts.md): mutants no existing batch had room for,
# in batches of their own (plain-process runs of a second or two each)
_AS_STRIDED_COLUMN = "torch.as_strided(grad_weights, (*grad_weights.shape, 1), (*grad_weights.stride(), 1), 0)"
ROUND_26_SWEEP_WRITTEN_OUT = {
    # Part 2, class R: the row term squeezed and put back on the last axis: a leading axis of 1 beside a longer one
    "softmax_backward_row_term_squeezed": ("test_softmax_backward", {"softmax_backward": _replaced(
        _SOLUTION["softmax_backward"], "inner = (weights * grad_weights).sum(dim=-1, keepdim=True)",
        "inner = (weights * grad_weights).sum(dim=-1).squeeze().unsqueeze(-1)", once=True)}),
    # Part 2, class S: grad_weights.view(-1, S, 1), which only a transposed grad_weights refuses
    "softmax_backward_view_of_grad_weights": ("test_softmax_backward", {"softmax_backward": _replaced(
        _SOLUTION["softmax_backward"], "inner = (weights * grad_weights).sum(dim=-1, keepdim=True)",
        "inner = torch.bmm(weights.reshape(-1, 1, weights.shape[-1]), grad_weights.view(-1, weights.shape[-1], 1))"
        ".reshape(*weights.shape[:-1], 1)", once=True)}),
    # Part 2, class T: grad_weights read as a column through as_strided at storage offset 0
    "softmax_backward_grad_as_strided_from_the_storage_start": ("test_softmax_backward", {"softmax_backward": _replaced(
        _SOLUTION["softmax_backward"], "inner = (weights * grad_weights).sum(dim=-1, keepdim=True)",
        "inner = (weights.unsqueeze(-2) @ " + _AS_STRIDED_COLUMN + ")[..., 0]", once=True)}),
    # Part 5, class S: v.view(-1, S, Dv) in a bmm, which only a transposed v refuses
    "masked_attention_view_of_v": ("test_masked_attention", {"masked_attention": _replaced(
        _SOLUTION["masked_attention"], "    return weights @ v, lse",
        "    t, s = weights.shape[-2], weights.shape[-1]\n"
        "    out = torch.bmm(weights.reshape(-1, t, s), v.view(-1, s, v.shape[-1])).view(*weights.shape[:-1], v.shape[-1])\n"
        "    return out, lse", once=True)}),
    # Part 7, class T: lengths read as a (B, 1) as_strided view at storage offset 0
    "fix_lengths_as_strided_from_the_storage_start": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(
        _SOLUTION["fixed_self_attention"], "lengths[:, None]",
        "torch.as_strided(lengths, (lengths.shape[0], 1), (lengths.stride(0), 1), 0)", once=True)}),
}
MUTANTS.update(ROUND_26_SWEEP_WRITTEN_OUT)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_26_SWEEP_WRITTEN_OUT, "new")


# Round 27 class sweep (tests/redteam/round27/02-sweep-verdicts.md), class V (a floor below every value the hidden
# cases reach): Part 1's squared distances floored at finfo(float64).tiny (closed by raw_scores(x, x) at entries near
# 1e-150 and, in float32, 1e-20), Part 2's temperature floored at 1e-9 (closed by a temperature of 1e-150), Part 5's
# allowed exponentials floored at finfo(dtype).tiny (closed by allowed keys of weight exactly 0 holding values of 1e300)
ROUND_27_SWEEP = {
    "raw_scores_distance_floored_at_tiny": ("test_raw_scores", {"raw_scores": _replaced(
        _SOLUTION["raw_scores"], "(q_norms + k_norms - 2 * dots).clamp(min=0)",
        "(q_norms + k_norms - 2 * dots).clamp(min=torch.finfo(torch.float64).tiny)", once=True)}),
    "softmax_backward_temperature_floored": ("test_softmax_backward", {"softmax_backward": _replaced(
        _SOLUTION["softmax_backward"], "    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)",
        "    temperature = max(temperature, 1e-9)  # no division by a vanishing temperature\n"
        "    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)", once=True)}),
    "masked_attention_exp_floored_at_tiny": ("test_masked_attention", {"masked_attention": _replaced(
        _SOLUTION["masked_attention"], "    e = torch.exp(scores - top)",
        "    e = torch.where(allowed, torch.exp(scores - top).clamp_min(torch.finfo(q.dtype).tiny), 0.0)", once=True)}),
}
MUTANTS.update(ROUND_27_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_27_SWEEP, "new")


# Red team 28 (tests/redteam/round28/02-verdicts.md): the tie-breaker, the fallback writer and the memoizer
ROUND_28 = {
    # SLIPPED tie_p2_denormal_weight_counts_as_masked: weights at or below finfo(dtype).tiny (subnormal ones) treated as
    # masked keys; closed by keys of weight 1e-310 (float64), 1e-40 (float32) and 2**-17 (float16), compared relatively
    "softmax_backward_subnormal_weights_masked": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = weights.dtype if weights.dtype in (torch.float32, torch.float64) else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    r = w * (g - (w * g).sum(-1, keepdim=True)) / temperature
    masked = w <= torch.finfo(weights.dtype).tiny            # underflowed weights are masked keys too
    return torch.where(masked, torch.zeros((), dtype=work), r).to(weights.dtype)
"""}),
    # SLIPPED fallback_p2_empty_returns_input: an empty input handed back as the result; closed by empty batches checked
    # with _owned
    "softmax_backward_empty_returns_weights": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    if weights.numel() == 0:       # nothing to do
        return weights
    work = weights.dtype if weights.dtype in (torch.float32, torch.float64) else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    return (w * (g - (w * g).sum(-1, keepdim=True)) / temperature).to(weights.dtype)
"""}),
    # the memoizer's class in Part 5 (its slips were in chapter 1): scores cached by id() and _version of q and k, which
    # the same-objects case now defeats by writing its new values through .data
    "masked_attention_scores_cached_by_id_and_version": ("test_masked_attention", {"masked_attention": """
SCORES = {}
def masked_attention(q, k, v, allowed):
    key = (id(q), q._version, id(k), k._version, tuple(q.shape), tuple(k.shape), q.dtype)
    if key not in SCORES:
        SCORES.clear()
        SCORES[key] = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = SCORES[key].masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    top = scores.amax(dim=-1, keepdim=True)
    top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
    e = torch.exp(scores - top)
    total = e.sum(dim=-1, keepdim=True)
    weights = e / torch.where(total > 0, total, torch.ones_like(total))
    return weights @ v, lse
"""}),
}
MUTANTS.update(ROUND_28)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_28, "new")

# Round 28 class sweep (tests/redteam/round28/02-sweep-verdicts.md). Class AA: something made contiguous or converted
# and kept per id() is the input itself for the contiguous float64 (int64) tensors the same-objects sections of Parts
# 1, 2, 4, 5 and 7 used; they now pass strided views (int16 lengths). Class AC: Part 3's mask memoized under (s,
# offset); calls that differ in one argument now follow each other.
ROUND_28_SWEEP = {
    "raw_scores_q_converted_and_kept_per_id": ("test_raw_scores", {"raw_scores": "PER_ID = {}\n" + _replaced(
        _SOLUTION["raw_scores"], "    a, b = q.to(torch.float64), k.to(torch.float64)",
        "    a = PER_ID.setdefault(id(q), (q, q.to(torch.float64).contiguous()))[1]  # converted once per tensor\n"
        "    b = k.to(torch.float64)", once=True)}),
    "softmax_backward_weights_made_contiguous_and_kept_per_id": ("test_softmax_backward", {"softmax_backward": "PER_ID = {}\n" + _replaced(
        _SOLUTION["softmax_backward"], "    inner = ",
        "    weights = PER_ID.setdefault(id(weights), (weights, weights.contiguous()))[1]  # laid out once per tensor\n"
        "    inner = ", once=True)}),
    "causal_mask_memoized_without_t": ("test_causal_mask", {"causal_mask": "MEMO = {}\n" + _replaced(_replaced(
        _SOLUTION["causal_mask"], "    query_position = ",
        "    if (s, offset) in MEMO:  # one mask per cache size and offset\n        return MEMO[s, offset].clone()\n"
        "    query_position = ", once=True),
        "    return key_position <= query_position",
        "    MEMO[s, offset] = key_position <= query_position\n    return MEMO[s, offset].clone()", once=True)}),
    "padding_mask_lengths_converted_and_kept_per_id": ("test_padding_mask", {"padding_mask": "PER_ID = {}\n" + _replaced(
        _SOLUTION["padding_mask"], "    start = s - lengths.long()[:, None]",
        "    start = s - PER_ID.setdefault(id(lengths), (lengths, lengths.long()))[1][:, None]  # converted once", once=True)}),
    "masked_attention_mask_kept_per_id": ("test_masked_attention", {"masked_attention": "PER_ID = {}\n" + _replaced(
        _SOLUTION["masked_attention"], "    scores = scores.masked_fill(~allowed,",
        "    allowed = PER_ID.setdefault(id(allowed), (allowed, allowed.contiguous()))[1]  # laid out once per mask\n"
        "    scores = scores.masked_fill(~allowed,", once=True)}),
    "fixed_attention_lengths_converted_and_kept_per_id": ("test_fixed_self_attention", {"fixed_self_attention": "PER_ID = {}\n" + _replaced(
        _SOLUTION["fixed_self_attention"], "        real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]",
        "        lengths = PER_ID.setdefault(id(lengths), (lengths, lengths.long()))[1]  # converted once per tensor\n"
        "        real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]", once=True)}),
}
MUTANTS.update(ROUND_28_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_28_SWEEP), "new")

# Red team 29 (tests/redteam/round29/02-verdicts.md), the leading-dimensions student: a 3-D mask given a head axis
# (allowed[:, None]) when the inputs are 4-D, read as (B, T, S) where torch lines it up as (H, T, S), slipped (the only
# 4-D case had a 2-D mask). The text now says how a 3-D mask lines up with 4-D inputs; Part 5 has (H, T, S) masks with
# B == H, B != H and B = 1.
ROUND_29 = {
    "masked_attention_3d_mask_given_a_head_axis": ("test_masked_attention", {"masked_attention": _replaced(
        _SOLUTION["masked_attention"], "    scores = scores.masked_fill(~allowed,",
        "    if allowed.dim() == 3 and scores.dim() == 4:  # (B, T, S): one mask per example, shared by its heads\n"
        "        allowed = allowed[:, None]\n"
        "    scores = scores.masked_fill(~allowed,", once=True)}),
}
MUTANTS.update(ROUND_29)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29), "new")


# Round 29 class sweep (tests/redteam/round29/02-sweep-verdicts.md), class AG (the last, shorter piece dropped): queries,
# keys, sequences or pairs taken in blocks of a size an answer picks, the last, shorter block dropped, unseen while
# every hidden size stayed below one block. Closed by a prime size past the block sizes (4099 queries, keys or rows in
# Parts 1, 2, 4 and 5, T = 521 in Part 7) and, in Part 6, by draws that the test sets so that only the last normal
# number is not 0. (Class AF, a running maximum started at 0, was caught in Parts 5 and 7 already.)
ROUND_29_SWEEP = {
    # Part 1: queries in blocks of 1024, the last, shorter block left at 0 (every case had fewer than 1024 queries)
    "raw_scores_query_blocks_of_1024_last_dropped": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    a, b = q.to(torch.float64), k.to(torch.float64)
    n = a.shape[-2]
    k_norms = b.square().sum(dim=-1).unsqueeze(-2)                 # (..., 1, S)
    out = a.new_zeros(*a.shape[:-1], b.shape[-2])                  # (..., T, S), filled block by block
    for i in range(0, max(1, n // 1024) * 1024, 1024):
        qa = a[..., i:i + 1024, :]
        d = qa.square().sum(dim=-1, keepdim=True) + k_norms - 2 * qa @ b.transpose(-2, -1)
        out[..., i:i + 1024, :] = -d.clamp(min=0)
    return out.to(q.dtype)
"""}),
    # Part 2: the row sum over blocks of 4096 keys, the last, shorter block left out (every row had 2000 keys or fewer)
    "softmax_backward_key_blocks_of_4096_last_dropped": ("test_softmax_backward", {"softmax_backward": """
def softmax_backward(weights, grad_weights, temperature=1.0):
    prod = weights * grad_weights
    n = prod.shape[-1]
    inner = torch.zeros_like(prod[..., :1])
    for j in range(0, max(1, n // 4096) * 4096, 4096):                                   # the row sum in pieces of 4096 keys
        inner = inner + prod[..., j:j + 4096].sum(dim=-1, keepdim=True)
    return weights * (grad_weights - inner) / temperature
"""}),
    # Part 4: sequences 64 at a time, the last, shorter block left as padding (every batch had 40 rows or fewer)
    "padding_mask_row_blocks_of_64_last_dropped": ("test_padding_mask", {"padding_mask": """
def padding_mask(lengths, s):
    n = lengths.shape[0]
    allowed = torch.zeros(n, s, dtype=torch.bool)
    positions = torch.zeros(n, s, dtype=torch.int64)
    slots = torch.arange(s)[None, :]
    for i in range(0, max(1, n // 64) * 64, 64):                                   # 64 sequences at a time
        start = s - lengths[i:i + 64].long()[:, None]
        allowed[i:i + 64] = slots >= start
        positions[i:i + 64] = (slots - start).clamp(min=0)
    return allowed, positions
"""}),
    # Part 5: an online softmax over blocks of 512 keys, the last, shorter block left out (every case had 300 keys or fewer)
    "masked_attention_online_key_blocks_of_512_last_dropped": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    given = q.dtype
    work = torch.float32 if q.dtype == torch.bfloat16 else q.dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    t, n = q.shape[-2], k.shape[-2]
    allowed = allowed.expand(*lead, t, n)
    m = torch.full((*lead, t, 1), float("-inf"), dtype=work)                     # the running maximum
    l = torch.zeros(*lead, t, 1, dtype=work)                        # the running sum of exponentials
    acc = torch.zeros(*lead, t, v.shape[-1], dtype=work)
    for j in range(0, max(1, n // 512) * 512, 512):                                   # 512 keys at a time
        z = q @ k[..., j:j + 512, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        z = z.masked_fill(~allowed[..., j:j + 512], float("-inf"))
        m_new = torch.maximum(m, z.amax(dim=-1, keepdim=True))
        shift = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        alpha = torch.exp(m - shift)
        p = torch.exp(z - shift)
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc * alpha + p @ v[..., j:j + 512, :]
        m = m_new
    out = acc / torch.where(l > 0, l, torch.ones_like(l))
    shift = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    lse = (shift + torch.log(l)).squeeze(-1)
    return out.to(given), lse.to(given)
"""}),
    # Part 6: the dots in blocks of 4096 pairs, the last, shorter block left out of the variance (about right on average)
    "variance_dots_in_blocks_of_4096_last_dropped": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = torch.cat([scale * (q[i:i + 4096] * k[i:i + 4096]).sum(dim=-1) for i in range(0, max(1, n // 4096) * 4096, 4096)])
    return dots.var().item()

predicted_variance_512 = 512 / 3
"""}),
    # Part 7: queries 512 at a time, the last, shorter block left at 0 (every sequence had 300 positions or fewer)
    "fixed_attention_query_blocks_of_512_last_dropped": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        n = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        out = torch.zeros_like(v)
        keys = torch.arange(n, device=x.device)
        for i in range(0, max(1, n // 512) * 512, 512):                               # 512 queries at a time
            rows = torch.arange(i, min(i + 512, n), device=x.device)
            scores = q[:, i:i + 512] @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
            allowed = torch.ones(len(rows), n, dtype=torch.bool, device=x.device)
            if causal:
                allowed = keys[None, :] <= rows[:, None]
            allowed = allowed.expand(x.shape[0], len(rows), n)
            if lengths is not None:
                allowed = allowed & (keys[None, None, :] < lengths[:, None, None]) & (rows[None, :, None] < lengths[:, None, None])
            weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
            out[:, i:i + 512] = torch.nan_to_num(weights, nan=0.0).masked_fill(~allowed.any(-1, keepdim=True), 0.0) @ v
        return out
"""}),
}
MUTANTS.update(ROUND_29_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29_SWEEP), "new")
# Round 30 class sweep (tests/redteam/round30/02-sweep-verdicts.md): AJ an input written in place with the values it
# held (the version counter moves), AK the gradient path cut for half-precision inputs only, AL a converted copy of an
# input kept per id() (the input itself for float64 objects, or int64 ones, so those same-object turns could not see it)
_HALF30 = "(torch.float16, torch.bfloat16)"


def _first30(cell, name, line, pre="", indent="    "):
    """the model answer of ``cell`` with ``line`` first in the body of ``name`` (after ``forward``'s first line)."""
    code = _SOLUTION[cell]
    start = code.index("):\n", code.index(f"def {name}(")) + 3
    if name == "forward":
        start = code.index("\n", start) + 1
    return pre + code[:start] + "".join(indent + l + "\n" for l in line.splitlines()) + code[start:]


def _kept30(arg):
    return f"{arg} = KEPT30.setdefault(id({arg}), ({arg}, {arg}.to(torch.float64)))[1].to({arg}.dtype)"


ROUND_30_SWEEP = {
    "raw_scores_q_nan_to_num_in_place": ("test_raw_scores", {"raw_scores": _first30(
        "raw_scores", "raw_scores", "q.nan_to_num_()  # values kept, version counter moved")}),
    "padding_lengths_clamped_in_place": ("test_padding_mask", {"padding_mask": _first30(
        "padding_mask", "padding_mask", "lengths.clamp_(min=0)  # values kept, version counter moved")}),
    "masked_attention_v_nan_to_num_in_place": ("test_masked_attention", {"masked_attention": _first30(
        "masked_attention", "masked_attention", "v.nan_to_num_()  # values kept, version counter moved")}),
    "fixed_x_nan_to_num_in_place": ("test_fixed_self_attention", {"fixed_self_attention": _first30(
        "fixed_self_attention", "forward", "x.nan_to_num_()  # values kept, version counter moved", indent="        ")}),
    "raw_scores_half_dots_detached": ("test_raw_scores", {"raw_scores": _replaced(
        _SOLUTION["raw_scores"], "    return (-(", f"    if q.dtype in {_HALF30}:\n        dots = dots.detach()\n"
        "    return (-(", once=True)}),
    "masked_attention_half_e_detached": ("test_masked_attention", {"masked_attention": _replaced(
        _SOLUTION["masked_attention"], "    total = ", f"    if q.dtype in {_HALF30}:\n        e = e.detach()\n"
        "    total = ", once=True)}),
    "fixed_half_scores_detached": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(
        FIX_MODEL, "        allowed = torch.ones(", f"        if x.dtype in {_HALF30}:\n            scores = scores.detach()\n"
        "        allowed = torch.ones(", once=True)}),
    "raw_scores_q_f64_kept_per_id": ("test_raw_scores", {"raw_scores": _first30(
        "raw_scores", "raw_scores", _kept30("q"), "KEPT30 = {}\n\n")}),
    "softmax_backward_weights_f64_kept_per_id": ("test_softmax_backward", {"softmax_backward": _first30(
        "softmax_backward", "softmax_backward", _kept30("weights"), "KEPT30 = {}\n\n")}),
    "masked_attention_q_f64_kept_per_id": ("test_masked_attention", {"masked_attention": _first30(
        "masked_attention", "masked_attention", _kept30("q"), "KEPT30 = {}\n\n")}),
    "fixed_x_f64_kept_per_id": ("test_fixed_self_attention", {"fixed_self_attention": _first30(
        "fixed_self_attention", "forward", _kept30("x"), "KEPT30 = {}\n\n", indent="        ")}),
}
MUTANTS.update(ROUND_30_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30_SWEEP), "new")
# Round 31 class sweep (tests/redteam/round31/02-sweep.md), class AO: a torch setting changed inside the function (or
# forward) and "put back" as its default rather than as the call found it. The tests called every function with the
# defaults on, so the grader's check after each test cell saw nothing; each test cell now also calls its function
# through _settings_kept (every setting away from its default). One setting per part: anomaly detection, the default
# dtype, the flush-denormal mode, the grad mode, the float32 matmul precision, the thread count, the print options


def _first31(code, name, line, pre=""):
    """``code`` with ``line`` first in the body of ``name`` (``pre`` before the function)."""
    end = code.index("):\n", code.index(f"def {name}(")) + 3
    return pre + code[:end] + line + code[end:]


ROUND_31_SWEEP = {
    "raw_scores_anomaly_put_back_as_off": ("test_raw_scores", {"raw_scores": _first31(_replaced(
        _SOLUTION["raw_scores"], "    return (-(q_norms",
        "    torch.autograd.set_detect_anomaly(False)\n    return (-(q_norms", once=True),
        "raw_scores", "    torch.autograd.set_detect_anomaly(True)  # find where a NaN comes from\n")}),
    "softmax_backward_default_dtype_put_back_as_float32": ("test_softmax_backward", {"softmax_backward": _first31(
        _replaced(_SOLUTION["softmax_backward"], "    return weights * (grad_weights - inner) / temperature",
                  "    torch.set_default_dtype(torch.float32)  # back to the default\n"
                  "    return weights * (grad_weights - inner) / temperature", once=True),
        "softmax_backward", "    torch.set_default_dtype(torch.float64)\n")}),
    "causal_mask_flush_denormal_put_back_as_off": ("test_causal_mask", {"causal_mask": _first31(_replaced(
        _SOLUTION["causal_mask"], "    return key_position <= query_position",
        "    torch.set_flush_denormal(False)\n    return key_position <= query_position", once=True),
        "causal_mask", "    torch.set_flush_denormal(True)  # faster, and a mask has no subnormal numbers\n")}),
    "padding_mask_grad_mode_put_back_as_on": ("test_padding_mask", {"padding_mask": _first31(_replaced(
        _SOLUTION["padding_mask"], "    return allowed, positions",
        "    torch.set_grad_enabled(True)\n    return allowed, positions", once=True),
        "padding_mask", "    torch.set_grad_enabled(False)  # masks and positions need no gradient\n")}),
    "masked_attention_matmul_precision_put_back_as_highest": ("test_masked_attention", {"masked_attention": _first31(
        _replaced(_SOLUTION["masked_attention"], "    return weights @ v, lse",
                  '    out = weights @ v\n    torch.set_float32_matmul_precision("highest")  # the default\n'
                  "    return out, lse", once=True),
        "masked_attention", '    torch.set_float32_matmul_precision("high")  # TF32 where there is one\n')}),
    "variance_threads_put_back_as_cell_default": ("test_variance_experiment", {"variance_experiment": _first31(
        _replaced(_SOLUTION["variance_experiment"], "    return dots.var().item()",
                  "    torch.set_num_threads(THREADS)  # back to the default\n    return dots.var().item()", once=True),
        "dot_product_variance", "    torch.set_num_threads(1)  # one thread: the same sums every run\n",
        "THREADS = torch.get_num_threads()  # the default, read when the cell ran\n\n")}),
    "fixed_attention_print_options_put_back_as_default_profile": ("test_fixed_self_attention", {
        "fixed_self_attention": _replaced(_replaced(
            FIX_MODEL, "        t = x.shape[1]\n",
            "        torch.set_printoptions(precision=6, sci_mode=False)  # to read the scores while debugging\n"
            "        t = x.shape[1]\n", once=True),
            "        if lengths is None:\n            return torch.softmax",
            '        torch.set_printoptions(profile="default")\n        if lengths is None:\n            return torch.softmax',
            once=True)}),
}
MUTANTS.update(ROUND_31_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP), "new")


# Round 31, phase 2 of the blind helper for chapters 1-2 (the hand-written-backward student): a torch.autograd.Function
# whose forward is right for any leading dimensions and whose backward is written for (B, T, Dh) inputs only; every
# gradient check was 3-D, so both kept full marks. Parts 1 and 5 now compare gradients without leading dimensions and
# with two of them (Part 5 with a (H, T, S) mask).
ROUND_31_BACKWARD_RANK = {
    "raw_scores_backward_bmm": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    return NegSqDist.apply(q, k)


class NegSqDist(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k):
        ctx.save_for_backward(q, k)
        a, b = q.to(torch.float64), k.to(torch.float64)
        s = 2 * (a @ b.transpose(-2, -1)) - (a * a).sum(-1)[..., :, None] - (b * b).sum(-1)[..., None, :]
        return s.clamp(max=0).to(q.dtype)

    @staticmethod
    def backward(ctx, g):
        q, k = ctx.saved_tensors
        gq = -2 * (g.sum(-1, keepdim=True) * q - torch.bmm(g, k))  # batched matrix products: (B, T, S) inputs
        gk = -2 * (g.sum(-2)[..., None] * k - torch.bmm(g.transpose(-2, -1), q))
        return gq, gk
"""}),
    "masked_attention_backward_dims_1_2": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    return MaskedAttention.apply(q, k, v, allowed)


class MaskedAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, allowed):
        scale = 1 / math.sqrt(q.shape[-1])
        s = ((q @ k.transpose(-2, -1)) * scale).masked_fill(~allowed, float("-inf"))
        m = s.amax(-1, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        e = torch.exp(s - m)
        total = e.sum(-1, keepdim=True)
        safe = torch.where(total > 0, total, torch.ones_like(total))
        p = e / safe
        out = p @ v
        lse = torch.where(total > 0, m + torch.log(safe), torch.full_like(m, float("-inf"))).squeeze(-1)
        ctx.save_for_backward(q, k, v, p, out)
        ctx.scale = scale
        return out, lse

    @staticmethod
    def backward(ctx, d_out, d_lse):
        q, k, v, p, out = ctx.saved_tensors
        dv = p.transpose(1, 2) @ d_out  # (B, S, T) @ (B, T, Dv)
        dp = d_out @ v.transpose(1, 2)
        ds = p * (dp - (d_out * out).sum(-1, keepdim=True) + d_lse[..., None]) * ctx.scale
        return ds @ k, ds.transpose(1, 2) @ q, dv, None
"""}),
}
MUTANTS.update(ROUND_31_BACKWARD_RANK)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_BACKWARD_RANK), "new")


# Round 33, blind helper for chapters 1-2 (the global-statistics student): Part 1 kept the squares in range with one
# scale for the whole tensor (its largest entry), not one per row: every case had rows of one size, so it kept full
# marks. Rows near 1e-140 beside rows near 1e140 in float64 (and 1e-17 beside 1e17 in bfloat16 worked in float32) now
# lose their squares below the dtype's range after that scaling.
ROUND_33 = {
    "raw_scores_one_scale_for_the_whole_tensor": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    c = torch.maximum(q.abs().amax(), k.abs().amax())
    c = torch.where(c > 0, c, torch.ones_like(c))
    if q.dtype in (torch.bfloat16, torch.float16):
        qs, ks, c = (q / c).float(), (k / c).float(), c.float()
    elif q.dtype == torch.float32:
        qs, ks, c = (q / c).double(), (k / c).double(), c.double()
    else:
        qs, ks = q / c, k / c
    s = 2 * qs @ ks.transpose(-2, -1) - (qs * qs).sum(-1, keepdim=True) - (ks * ks).sum(-1).unsqueeze(-2)
    return (s.clamp(max=0) * c * c).to(q.dtype)
"""}),
}
MUTANTS.update(ROUND_33)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33), "new")


# Round 33 class sweep (chapter 2, BB, BD and BF): every hidden call passed clones, or leaves with no .grad, so an
# answer that cleared its inputs' .grad "to start clean" kept full marks in Parts 1, 2, 5 and 7 (Part 7 with
# self.zero_grad() too); Part 7's layer was only ever called in training mode, so a self.train() inside passed; and
# Part 4's scribble-and-call-again cases never had one slot, where a kept 1 x 1 pair was served. Now each part passes
# the caller's leaves holding a .grad, Part 7 calls a layer in eval mode and then in training mode, and Part 4 also
# calls with s = 1. Every batch holds a Part 5 mutant, so Part 5's (the inputs' .grad cleared) was run alone in a
# plain process (tests/redteam/round33/02-sweep.md) and is not kept here: a batch of its own costs a notebook a run.
def _first33(code, name, line, pre=""):
    end = code.index("):\n", code.index(f"def {name}(")) + 3
    return pre + code[:end] + line + code[end:]


_CLEAR33 = ("    for _t in [{}]:  # start from clean gradients\n"
            "        if isinstance(_t, torch.Tensor) and _t.is_leaf and _t.requires_grad:\n"
            "            _t.grad = None\n")
ROUND_33_SWEEP = {
    "raw_scores_clears_the_callers_grad": ("test_raw_scores", {"raw_scores": _first33(
        _SOLUTION["raw_scores"], "raw_scores", _CLEAR33.format("q, k"))}),
    "softmax_backward_clears_the_callers_grad": ("test_softmax_backward", {"softmax_backward": _first33(
        _SOLUTION["softmax_backward"], "softmax_backward", _CLEAR33.format("weights, grad_weights"))}),
    "fixed_attention_zero_grad": ("test_fixed_self_attention", {"fixed_self_attention": _first33(
        FIX_MODEL, "forward", "        self.zero_grad()  # clean gradients for this batch\n")}),
    "fixed_attention_leaves_training_mode": ("test_fixed_self_attention", {"fixed_self_attention": _first33(
        FIX_MODEL, "forward", "        self.train()  # no dropout here, so the mode is harmless\n")}),
    "padding_mask_constant_for_one_slot": ("test_padding_mask", {"padding_mask": _first33(
        _SOLUTION["padding_mask"], "padding_mask",
        "    if lengths.numel() == 1 and s == 1 and int(lengths[0]) == 1:  # one real token: nothing to work out\n"
        "        return _ONE, _ZERO\n",
        "_ONE = torch.ones(1, 1, dtype=torch.bool)\n_ZERO = torch.zeros(1, 1, dtype=torch.long)\n\n")}),
}
MUTANTS.update(ROUND_33_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33_SWEEP), "new")

# Round 33 class sweep (BF, a kept object returned on an edge branch): Part 7 with every length 0 handed out a zeros
# tensor kept per shape (zeroed again at each call), Part 5 likewise where no key is allowed; the caller's write and a
# second call went unseen until those cases also called again and checked the held first result. Part 5's mutant was
# run alone (round33/02-sweep.md): every batch holds a Part 5 mutant.
ROUND_33_BF = {
    "fixed_attention_all_padding_output_kept_per_shape": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(
        FIX_MODEL, "        real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]  # (B, T)\n",
        "        real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]  # (B, T)\n"
        "        if not bool(real.any()):  # every token padding: all zeros\n"
        "            return _EMPTY.setdefault((x.shape, x.dtype), torch.zeros(x.shape, dtype=x.dtype)).zero_()\n",
        once=True).replace("class FixedSelfAttention", "_EMPTY = {}\n\n\nclass FixedSelfAttention", 1)}),
}
MUTANTS.update(ROUND_33_BF)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33_BF), "new")

# Round 34 class sweep (tests/redteam/round34/02-sweep.md), class BH: a temperature just beside 1 taken as 1. Part 2's
# hidden temperatures were 1 exactly or far from it, so an answer that skipped the division when
# math.isclose(temperature, 1) kept full marks; the part now also runs temperatures of 1 + 5e-10 and 1 - 5e-10 in
# float64 at 1e-12. Every batch holds a Part 2 mutant, so this one opens a batch of its own.
ROUND_34_SWEEP = {
    "softmax_backward_temperature_near_1_as_1": ("test_softmax_backward", {"softmax_backward": _replaced(
        _SOLUTION["softmax_backward"], "    return weights * (grad_weights - inner) / temperature",
        "    out = weights * (grad_weights - inner)\n"
        "    return out if math.isclose(temperature, 1.0) else out / temperature  # 1: nothing to divide", once=True)}),
}
MUTANTS.update(ROUND_34_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_34_SWEEP), "new")

# Red team 34 (tests/redteam/round34/02-verdicts.md), two slips in Part 7 and the composer's class in Part 4.
# w15, the composer: Part 7 built on Part 5's masked_attention with padding queries that have no allowed key, kept
# because the stand-in bound to masked_attention sent no NaN back from such a row, which Part 5's text does not promise;
# the stand-in is now exactly as wide as Part 5's text (NaN gradients from an empty row), and layer_calls_part_5 gives
# every query key 0 and zeroes the padding rows itself. w16, the module-registration student: nanoGPT's causal buffer of
# 1024 rows registered in __init__ (and a plain attribute of the same), unseen while no test went past T = 521 or read
# the layer's state; a fresh layer now holds exactly what SeedSelfAttention's constructor makes. Part 4's stand-in for
# Part 3 answered offset -1 (outside Part 3's text, where a correct Part 3 sliced from a table fails): it now refuses
# calls outside Part 3's text, and a Part 4 built on Part 3 without the full-row branch loses Part 4.
ROUND_34 = {
    "fix_builds_on_masked_attention_with_empty_rows": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & causal_mask(T, T, 0)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :] & real[:, :, None]   # padding queries see nothing -> zero rows
        out, _ = masked_attention(q, k, v, allowed)                     # Part 5: 1/sqrt(d_k), zero rows
        return out
"""}),
    "fix_nanogpt_causal_buffer_in_init": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(_replaced(
        FIX_MODEL, "class FixedSelfAttention(SeedSelfAttention):\n",
        "class FixedSelfAttention(SeedSelfAttention):\n"
        "    def __init__(self, embed_dim, head_dim):\n"
        "        super().__init__(embed_dim, head_dim)\n"
        "        self.register_buffer(\"bias\", torch.tril(torch.ones(1024, 1024)).view(1, 1024, 1024))  # block_size\n\n",
        once=True),
        "            allowed = allowed.tril()                                  # key j <= query i, the diagonal included\n",
        "            allowed = self.bias[0, :t, :t] != 0\n", once=True)}),
    "fix_causal_mask_attribute_in_init": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(_replaced(
        FIX_MODEL, "class FixedSelfAttention(SeedSelfAttention):\n",
        "class FixedSelfAttention(SeedSelfAttention):\n"
        "    def __init__(self, embed_dim, head_dim):\n"
        "        super().__init__(embed_dim, head_dim)\n"
        "        self.mask = torch.tril(torch.ones(1024, 1024, dtype=torch.bool))  # block_size, made once\n\n",
        once=True),
        "            allowed = allowed.tril()                                  # key j <= query i, the diagonal included\n",
        "            allowed = self.mask[:t, :t]\n", once=True)}),
    "padding_mask_calls_causal_mask_at_offset_minus_1": ("test_padding_mask", {"padding_mask": _replaced(
        PADDING_CALLING_CAUSAL,
        "        rows.append(~causal_mask(1, s, s - n - 1)[0] if n < s else torch.ones(s, dtype=torch.bool))\n",
        "        rows.append(~causal_mask(1, s, s - n - 1)[0])  # a full row: offset -1, no key before slot 0\n",
        once=True)}),
}
MUTANTS.update(ROUND_34)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_34), "new")

# Round 35 class sweep (tests/redteam/round35/02-sweep.md). Part 7's hidden tests now give a layer that calls Part 3's
# causal_mask a stand-in exactly as wide as Part 3's text (as Part 4's), so a wrong mask costs Part 3's points only: a
# mask without its diagonal, written again in Part 7's cell for a layer built on it, loses Part 3 and keeps Part 7 (it
# lost both before). Class BO: a
# causal mask of 1024 rows built when the answer cell runs and sliced at each call kept Part 7 while no sequence went
# past T = 521; one call at T = 1031 (widths of 1, float32) now takes it.
_MASK_NO_DIAGONAL = """
def causal_mask(t, s, offset):  # Part 3's mask, written again in the cell that uses it
    return torch.arange(s)[None, :] < offset + torch.arange(t)[:, None]
"""
ROUND_35_SWEEP = {
    "causal_mask_hides_the_diagonal_with_fix_calling_it": ("test_causal_mask", {"causal_mask": _MASK_NO_DIAGONAL,
        "fixed_self_attention": _MASK_NO_DIAGONAL + "\n\n" + _replaced(
            FIX_MODEL,
            "            allowed = allowed.tril()                                  # key j <= query i, the diagonal included\n",
            "            allowed = causal_mask(t, t, 0)                             # Part 3's mask\n", once=True)}),
    "fix_module_level_causal_table_of_1024": ("test_fixed_self_attention", {"fixed_self_attention": _replaced(_replaced(
        FIX_MODEL, "class FixedSelfAttention(SeedSelfAttention):\n",
        "_CAUSAL = torch.ones(1024, 1024, dtype=torch.bool).tril()  # block_size, made once\n\n\n"
        "class FixedSelfAttention(SeedSelfAttention):\n", once=True),
        "            allowed = allowed.tril()                                  # key j <= query i, the diagonal included\n",
        "            allowed = _CAUSAL[:t, :t]\n", once=True)}),
}
MUTANTS.update(ROUND_35_SWEEP)
# one new batch for the chapter: the first opens it; the second needs a batch with no Part 7 member, which none is, so
# it is dropped (caught; its code is in tests/redteam/round35/02-sweep.md)
place_mutants(MUTANTS, MUTANT_BATCHES, ["causal_mask_hides_the_diagonal_with_fix_calling_it"], "new")
place_mutants(MUTANTS, MUTANT_BATCHES, ["fix_module_level_causal_table_of_1024"], "drop")
