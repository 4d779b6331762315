"""Chapter 2 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently that must keep full marks."""

CHAPTER = "02-scaled-attention"
FULL_MARKS = 16.0

# Common wrong answers: name -> (the graded test that must lose points, {answer cell: code}).
MUTANTS = {
    "raw_scores_2d_transpose": ("test_raw_scores", {"raw_scores": """
def raw_scores(q, k):
    return q @ k.transpose(0, 1)
"""}),
    "without_scaling": ("test_attention_weights", {"attention_weights": """
def attention_weights(q, k):
    return torch.softmax(raw_scores(q, k), dim=-1)
"""}),
    "scaled_by_dk_not_sqrt": ("test_attention_weights", {"attention_weights": """
def attention_weights(q, k):
    return torch.softmax(raw_scores(q, k) / q.shape[-1], dim=-1)
"""}),
    "softmax_over_queries": ("test_attention_weights", {"attention_weights": """
def attention_weights(q, k):
    return torch.softmax(raw_scores(q, k) / math.sqrt(q.shape[-1]), dim=-2)
"""}),
    "causal_mask_inverted": ("test_causal_mask", {"causal_mask": """
def causal_mask(t):
    return torch.ones(t, t, dtype=torch.bool).triu()
"""}),
    "causal_mask_off_by_one": ("test_causal_mask", {"causal_mask": """
def causal_mask(t):
    return torch.ones(t, t, dtype=torch.bool).tril(diagonal=-1)
"""}),
    "causal_mask_as_float": ("test_causal_mask", {"causal_mask": """
def causal_mask(t):
    return torch.ones(t, t).tril()
"""}),
    "padding_mask_off_by_one": ("test_padding_mask", {"padding_mask": """
def padding_mask(lengths, s):
    return torch.arange(s)[None, :] <= lengths[:, None]
"""}),
    "masked_fill_minus_1e9": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    scores = raw_scores(q, k) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores.masked_fill(~allowed, -1e9), dim=-1)
    return weights @ v, weights
"""}),
    "masked_fill_inf_gives_nan_rows": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    scores = raw_scores(q, k) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return weights @ v, weights
"""}),
    "mask_inverted": ("test_masked_attention", {"masked_attention": """
def masked_attention(q, k, v, allowed):
    scores = raw_scores(q, k) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(allowed, float("-inf"))
    has_key = (~allowed).any(dim=-1, keepdim=True)
    weights = torch.softmax(scores.masked_fill(~has_key, 0.0), dim=-1).masked_fill(~has_key, 0.0)
    return weights @ v, weights
"""}),
    "variance_scaled_by_dk": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scaled, generator=None):
    q = torch.randn(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
    return (dots / d_k if scaled else dots).var().item()

predicted_variance_512 = 512
"""}),
    "variance_prediction_is_std": ("test_variance_experiment", {"variance_experiment": """
def dot_product_variance(d_k, n, scaled, generator=None):
    q = torch.randn(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()

predicted_variance_512 = math.sqrt(512)
"""}),
    "fix_keeps_the_bug": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x):
        return super().forward(x)
"""}),
    "fix_scales_after_softmax": ("test_fixed_self_attention", {"fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x):
        return super().forward(x) / math.sqrt(x.shape[-1])
"""}),
    "masking_answer_nan": ("test_answer_masking", {"mc_answers": 'answer_masking = "a"\nanswer_doubling = "b"'}),
    "doubling_answer_two": ("test_answer_doubling", {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "a"'}),
}

# Correct answers that differ from the model answers: einsum, explicit loops, nan_to_num, numpy.
DIFFERENT_BUT_CORRECT = {
    "raw_scores": """
def raw_scores(q, k):
    return torch.einsum("...td,...sd->...ts", q, k)
""",
    "attention_weights": """
def attention_weights(q, k):
    scores = raw_scores(q * q.shape[-1] ** -0.5, k)
    scores = scores - scores.max(dim=-1, keepdim=True).values
    e = scores.exp()
    return e / e.sum(dim=-1, keepdim=True)
""",
    "causal_mask": """
def causal_mask(t):
    i = torch.arange(t)
    return i.unsqueeze(1) >= i.unsqueeze(0)
""",
    "padding_mask": """
def padding_mask(lengths, s):
    rows = []
    for n in lengths.tolist():
        rows.append([j < n for j in range(s)])
    return torch.tensor(rows, dtype=torch.bool).reshape(len(rows), s)
""",
    "masked_attention": """
def masked_attention(q, k, v, allowed):
    allowed = allowed.expand(*q.shape[:-1], k.shape[-2])
    scores = torch.einsum("...td,...sd->...ts", q, k) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    weights = torch.nan_to_num(weights, nan=0.0)
    return torch.einsum("...ts,...sv->...tv", weights, v), weights
""",
    "variance_experiment": """
import numpy as np

def dot_product_variance(d_k, n, scaled, generator=None):
    pairs = torch.randn(2, n, d_k, generator=generator, dtype=torch.float64)
    dots = torch.einsum("nd,nd->n", pairs[0], pairs[1]).numpy()
    if scaled:
        dots = dots / np.sqrt(d_k)
    return float(np.var(dots, ddof=1))

predicted_variance_512 = 512.0
""",
    "fixed_self_attention": """
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x):
        q = self.query(x) / math.sqrt(x.shape[-1])
        return SeedSelfAttention.forward(_Scaled(self, q), x)

class _Scaled(nn.Module):
    '''Reuse the seed's forward with pre-scaled queries.'''
    def __init__(self, layer, q):
        super().__init__()
        self.key, self.value = layer.key, layer.value
        self._q = q
    def query(self, x):
        return self._q
""",
    "mc_answers": 'answer_doubling = "b"\nanswer_masking = "c"',
}

# Written by a tester who saw only the student notebook: torch.where instead of masked_fill.
INDEPENDENT_MASKED_ATTENTION = {"masked_attention": """
def masked_attention(q, k, v, allowed):
    scores = raw_scores(q, k) / math.sqrt(q.shape[-1])
    neg_inf = torch.tensor(float("-inf"), dtype=scores.dtype)
    zero = torch.zeros((), dtype=scores.dtype)
    scores = torch.where(allowed, scores, neg_inf)
    has_any = allowed.any(dim=-1, keepdim=True)
    weights = torch.softmax(torch.where(has_any, scores, zero), dim=-1)
    weights = torch.where(allowed, weights, zero)
    return weights @ v, weights
"""}

CORRECT_VARIANTS = {
    "einsum_loops_nan_to_num_numpy": DIFFERENT_BUT_CORRECT,
    "independent_masked_attention": INDEPENDENT_MASKED_ATTENTION,
}

# Mutants of independent parts graded together, one submission per batch (python tests/mutant_batches.py
# 02-scaled-attention found them: no member breaks another member's graded test); the others alone.
MUTANT_BATCHES = [
    ["raw_scores_2d_transpose", "causal_mask_inverted", "padding_mask_off_by_one", "variance_scaled_by_dk", "fix_keeps_the_bug", "masking_answer_nan"],
    ["without_scaling", "causal_mask_off_by_one", "masked_fill_minus_1e9", "variance_prediction_is_std", "fix_scales_after_softmax", "doubling_answer_two"],
    ["scaled_by_dk_not_sqrt", "causal_mask_as_float", "masked_fill_inf_gives_nan_rows"],
    ["softmax_over_queries", "mask_inverted"],
]
