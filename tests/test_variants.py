"""Chapter 6 package: GQA/MQA, sparse and linear attention, MoE, speculative decoding, sampling,
pre-training objectives, vision windows and the selective scan."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

import attnlab
from attnlab import causal_mask, scaled_dot_product_attention
from attnlab.multihead import MultiHeadAttention
from attnlab.variants import gqa, linear_attention as la, moe, objectives, sampling, sparse, speculative, ssm, vision


# --- GQA / MQA -------------------------------------------------------------------------------
def test_gqa_with_as_many_groups_as_heads_equals_multihead_attention():
    attnlab.set_seed(0)
    mha = MultiHeadAttention(32, 8).double()
    x = torch.randn(2, 7, 32, dtype=torch.float64)
    allowed = causal_mask(7)
    g = gqa.GroupedQueryAttention.from_mha(mha, num_kv_heads=8)
    torch.testing.assert_close(g(x, allowed), mha(x, allowed=allowed)[0])


def test_gqa_matches_torch_sdpa_with_enable_gqa():
    attnlab.set_seed(1)
    g = gqa.GroupedQueryAttention(32, 8, 2).double()
    x = torch.randn(2, 5, 32, dtype=torch.float64)
    q = g.q_proj(x).view(2, 5, 8, 4).transpose(1, 2)
    k = g.k_proj(x).view(2, 5, 2, 4).transpose(1, 2)
    v = g.v_proj(x).view(2, 5, 2, 4).transpose(1, 2)
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    ref = g.out_proj(ref.transpose(1, 2).reshape(2, 5, 32))
    torch.testing.assert_close(g(x, causal_mask(5)), ref)


def test_one_group_is_multi_query_attention():
    attnlab.set_seed(2)
    g = gqa.GroupedQueryAttention(16, 4, 1).double()
    x = torch.randn(1, 6, 16, dtype=torch.float64)
    k = g.k_proj(x)  # (1, 6, Dh): one key head
    v = g.v_proj(x)
    q = g.q_proj(x).view(1, 6, 4, 4).transpose(1, 2)
    heads = [scaled_dot_product_attention(q[:, h], k, v)[0] for h in range(4)]  # every head reads the same K, V
    ref = g.out_proj(torch.cat(heads, dim=-1))
    torch.testing.assert_close(g(x), ref)


def test_repeat_kv_assigns_consecutive_heads_to_a_group():
    x = torch.arange(2.0).view(1, 2, 1, 1)
    assert gqa.repeat_kv(x, 4).flatten().tolist() == [0, 0, 1, 1]
    with pytest.raises(ValueError, match="multiple"):
        gqa.repeat_kv(x, 3)


def test_gqa_cache_holds_group_heads_only_and_matches_full_pass():
    attnlab.set_seed(3)
    g = gqa.GroupedQueryAttention(32, 8, 2).double()
    x = torch.randn(1, 6, 32, dtype=torch.float64)
    full = g(x, causal_mask(6))
    cache = {}
    steps = [g(x[:, i:i + 1], None, cache) for i in range(6)]
    torch.testing.assert_close(torch.cat(steps, dim=1), full)
    assert gqa.tensor_bytes(cache) == gqa.kv_cache_bytes(1, 2, 4, 6, 1, bytes_per_number=8)


def test_kv_cache_bytes_and_parameter_count_formulas():
    assert gqa.kv_cache_bytes(12, 12, 64, 1024) == 2 * 12 * 12 * 64 * 1024 * 2
    assert gqa.attention_parameter_count(768, 12, 12) == 4 * 768 * 768 + 4 * 768
    assert gqa.attention_parameter_count(768, 12, 3, bias=False) == 2 * 768 * 768 + 2 * 768 * 192
    with pytest.raises(ValueError):
        gqa.GroupedQueryAttention(32, 8, 3)


# --- sparse -----------------------------------------------------------------------------------
def test_sparse_patterns_on_a_small_grid():
    assert sparse.sliding_window_mask(4, 1).int().tolist() == [[1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 1], [0, 0, 1, 1]]
    assert sparse.sliding_window_mask(3, 1, causal=True).int().tolist() == [[1, 0, 0], [1, 1, 0], [0, 1, 1]]
    assert sparse.dilated_mask(5, 1, 2)[0].int().tolist() == [1, 0, 1, 0, 0]
    assert sparse.block_sparse_mask(4, 2).int().tolist() == [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]
    big = sparse.bigbird_mask(16, 1, 2, 3, torch.Generator().manual_seed(0))
    assert big[:2].all() and big[:, :2].all() and (big.sum(1) >= 3).all()
    with pytest.raises(ValueError):
        sparse.sliding_window_mask(4, -1)


def test_lsh_puts_parallel_vectors_in_one_bucket():
    g = torch.Generator().manual_seed(0)
    base = torch.randn(3, 8, generator=g)
    x = torch.cat([base, 2.5 * base])  # same directions, different lengths
    b = sparse.lsh_buckets(x, 8, g)
    assert b[:3].tolist() == b[3:].tolist()
    assert sparse.lsh_mask(b)[0, 3]


def test_sliding_window_attention_equals_masked_dense():
    attnlab.set_seed(4)
    q, k, v = (torch.randn(2, 3, 11, 8, dtype=torch.float64) for _ in range(3))
    for w in (0, 2, 20):
        ref, _ = scaled_dot_product_attention(q, k, v, sparse.sliding_window_mask(11, w))
        torch.testing.assert_close(sparse.sliding_window_attention(q, k, v, w), ref)


def test_block_topk_attention_selects_own_and_past_blocks_only():
    attnlab.set_seed(5)
    q, k, v = (torch.randn(1, 2, 16, 8, dtype=torch.float64) for _ in range(3))
    out, allowed = sparse.block_topk_attention(q, k, v, block=4, top_k=2)
    assert not (allowed & ~causal_mask(16)).any()
    assert allowed[..., 12:, 12:].tril().sum() == 2 * 10  # own block always in
    assert (allowed.sum(-1) <= 2 * 4).all()
    full, _ = sparse.block_topk_attention(q, k, v, block=4, top_k=4)
    ref, _ = scaled_dot_product_attention(q, k, v, causal_mask(16))
    torch.testing.assert_close(full, ref)


# --- linear attention -------------------------------------------------------------------------
def test_causal_prefix_sum_form_equals_masked_quadratic_form():
    attnlab.set_seed(6)
    q, k, v = (torch.randn(2, 3, 9, 5, dtype=torch.float64) for _ in range(3))
    torch.testing.assert_close(la.causal_linear_attention(q, k, v), la.causal_linear_attention_quadratic(q, k, v))
    # the last position sees everything: it equals the non-causal form's last row
    torch.testing.assert_close(la.causal_linear_attention(q, k, v)[..., -1, :], la.linear_attention(q, k, v)[..., -1, :])


def test_performer_error_shrinks_with_more_features():
    g = torch.Generator().manual_seed(7)
    q, k, v = (0.5 * torch.randn(64, 16, generator=g, dtype=torch.float64) for _ in range(3))
    exact, _ = scaled_dot_product_attention(q, k, v)
    errors = []
    for m in (8, 512):
        runs = [(la.performer_attention(q, k, v, la.orthogonal_gaussian(m, 16, g, torch.float64)) - exact).norm()
                for _ in range(5)]
        errors.append(sum(runs) / 5)
    assert errors[1] < errors[0] / 3


def test_orthogonal_features_are_orthogonal_within_a_block():
    w = la.orthogonal_gaussian(16, 8, torch.Generator().manual_seed(0), torch.float64)
    block = w[:8] / w[:8].norm(dim=1, keepdim=True)
    torch.testing.assert_close(block @ block.T, torch.eye(8, dtype=torch.float64))


def test_linformer_with_identity_projection_is_softmax_attention():
    attnlab.set_seed(8)
    q, k, v = (torch.randn(2, 6, 4, dtype=torch.float64) for _ in range(3))
    eye = torch.eye(6, dtype=torch.float64)
    torch.testing.assert_close(la.linformer_attention(q, k, v, eye, eye), scaled_dot_product_attention(q, k, v)[0])
    assert la.linformer_attention(q, k, v, eye[:3], eye[:3]).shape == (2, 6, 4)


# --- mixture of experts -----------------------------------------------------------------------
def test_routing_respects_capacity_in_token_order():
    logits = torch.tensor([[5.0, 0.0], [4.0, 0.0], [3.0, 0.0], [0.0, 2.0]])
    r = moe.route_top_k(logits, top_k=1, capacity=2)
    assert r.expert.flatten().tolist() == [0, 0, 0, 1]
    assert r.kept.flatten().tolist() == [True, True, False, True]
    assert r.dropped == 1
    torch.testing.assert_close(r.gate.flatten(), torch.softmax(logits, -1).max(-1).values)
    assert moe.expert_capacity(10, 4, 1.0) == 3 and moe.expert_capacity(10, 4, 1.25, top_k=2) == 7


def test_top2_routing_fills_first_choices_before_second_choices():
    logits = torch.tensor([[3.0, 2.0, 0.0], [3.0, 0.0, 2.0], [0.0, 3.0, 2.0]])
    r = moe.route_top_k(logits, top_k=2, capacity=1)
    # first choices 0, 0, 1: token 1 finds expert 0 full; then second choices 1, 2, 2
    assert r.kept.tolist() == [[True, False], [False, True], [True, False]]
    torch.testing.assert_close(r.gate.sum(-1), torch.ones(3))


def test_load_balancing_loss_matches_switch_formula():
    g = torch.Generator().manual_seed(9)
    probs = torch.softmax(torch.randn(50, 4, generator=g), -1)
    expert = probs.argmax(-1)
    f = torch.tensor([(expert == i).float().mean() for i in range(4)])
    expected = 4 * sum(f[i] * probs[:, i].mean() for i in range(4))
    torch.testing.assert_close(moe.load_balancing_loss(probs, expert), expected)
    uniform = torch.full((8, 4), 0.25)
    torch.testing.assert_close(moe.load_balancing_loss(uniform, torch.arange(8) % 4), torch.tensor(1.0))
    collapsed = torch.tensor([[0.97, 0.01, 0.01, 0.01]]).repeat(8, 1)
    assert moe.load_balancing_loss(collapsed, torch.zeros(8, dtype=torch.long)) > 3.8


def test_moe_layer_output_is_gated_expert_output_and_dropped_tokens_get_zero():
    attnlab.set_seed(10)
    layer = moe.MoEFeedForward(8, 16, num_experts=2, top_k=1, capacity_factor=0.5).double()
    x = torch.randn(1, 6, 8, dtype=torch.float64)
    out, r = layer(x)
    tokens = x[0]
    for n in range(6):
        e = int(r.expert[n, 0])
        expected = r.gate[n, 0] * layer.experts[e](tokens[n]) if r.kept[n, 0] else torch.zeros(8, dtype=torch.float64)
        torch.testing.assert_close(out[0, n], expected)
    assert r.dropped >= 1


# --- speculative decoding ---------------------------------------------------------------------
def test_verify_output_distribution_equals_target_exactly():
    """Enumerate: P(next = x) = q(x)·min(1, p/q) + P(reject)·residual(x) must equal p(x)."""
    g = torch.Generator().manual_seed(11)
    for _ in range(5):
        p = torch.softmax(2 * torch.randn(5, generator=g, dtype=torch.float64), -1)
        q = torch.softmax(2 * torch.randn(5, generator=g, dtype=torch.float64), -1)
        accept = torch.minimum(torch.ones_like(p), p / q)
        total = q * accept + (1 - (q * accept).sum()) * speculative.residual_distribution(p, q)
        torch.testing.assert_close(total, p)


def test_verify_accepts_and_rejects_by_the_ratio():
    p = torch.tensor([[0.5, 0.5], [0.9, 0.1], [0.2, 0.8]])
    q = torch.tensor([[0.25, 0.75], [0.5, 0.5]])
    n, nxt = speculative.verify(p, q, torch.tensor([0, 1]), torch.tensor([0.99, 0.3]))  # ratio 2 (accept), 0.2 (reject)
    assert n == 1
    torch.testing.assert_close(nxt, torch.tensor([1.0, 0.0]))
    n, nxt = speculative.verify(p, q, torch.tensor([0, 1]), torch.tensor([0.5, 0.19]))
    assert n == 2
    torch.testing.assert_close(nxt, p[2])


def _bigram(table):
    return lambda tokens: table[tokens[-1]]


def test_speculative_sequences_follow_the_target_distribution_chi_square():
    g = torch.Generator().manual_seed(12)
    target = torch.softmax(1.5 * torch.randn(3, 3, generator=g, dtype=torch.float64), -1)
    draft = torch.softmax(1.5 * torch.randn(3, 3, generator=g, dtype=torch.float64), -1)
    counts = torch.zeros(3, 3)
    n = 3000
    for _ in range(n):
        out, _ = speculative.speculative_generate(_bigram(target), _bigram(draft), [0], 2, gamma=2, generator=g)
        counts[out[1], out[2]] += 1
    expected = n * target[0][:, None] * target  # P(a, b) = p(a | 0) p(b | a)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 20.1  # 99th percentile of chi-square with 8 degrees of freedom
    # the draft's own distribution is far from it: the same statistic for the draft is large
    wrong = n * draft[0][:, None] * draft
    assert float(((counts - wrong) ** 2 / wrong).sum()) > 100


def test_identical_draft_is_always_accepted():
    table = torch.softmax(torch.randn(4, 4, generator=torch.Generator().manual_seed(13)), -1)
    _, stats = speculative.speculative_generate(_bigram(table), _bigram(table), [0], 12, 3, torch.Generator().manual_seed(0))
    assert stats["accepted"] == stats["proposed"]
    torch.testing.assert_close(speculative.expected_acceptance(table[0], table[0]), torch.tensor(1.0))


# --- sampling ---------------------------------------------------------------------------------
def test_top_p_keeps_the_smallest_set_reaching_p():
    logits = torch.log(torch.tensor([0.1, 0.5, 0.15, 0.25]))
    kept = lambda p: torch.isfinite(sampling.top_p_filter(logits, p)).nonzero().flatten().tolist()  # noqa: E731
    assert kept(0.5) == [1]  # 0.5 alone reaches 0.5
    assert kept(0.51) == [1, 3]
    assert kept(0.9) == [1, 2, 3]
    assert kept(0.95) == [0, 1, 2, 3]
    assert kept(1.0) == [0, 1, 2, 3]
    assert kept(1e-6) == [1]
    ties = torch.zeros(4)
    assert torch.isfinite(sampling.top_p_filter(ties, 0.5)).tolist() == [True, True, False, False]
    with pytest.raises(ValueError):
        sampling.top_p_filter(logits, 0.0)


def test_top_k_temperature_and_sampling():
    logits = torch.tensor([[1.0, 3.0, 2.0, 0.0]])
    assert torch.isfinite(sampling.top_k_filter(logits, 2)).tolist() == [[False, True, True, False]]
    torch.testing.assert_close(sampling.apply_temperature(logits, 0.5), 2 * logits)
    g = torch.Generator().manual_seed(0)
    draws = [int(sampling.sample_next(logits, 1.0, top_k=2, generator=g)) for _ in range(200)]
    assert set(draws) == {1, 2}
    draws = [int(sampling.sample_next(logits, 0.05, generator=g)) for _ in range(20)]
    assert set(draws) == {1}
    with pytest.raises(ValueError):
        sampling.apply_temperature(logits, 0)


def test_decoder_only_kv_cache_equals_recomputation():
    attnlab.set_seed(14)
    model = objectives.TinyDecoderLM(11, d_model=16, num_heads=2, num_layers=2).double().eval()
    tokens = torch.randint(11, (2, 7))
    full = model(tokens)
    cache = [{} for _ in model.blocks]
    pieces = [model(tokens[:, :3], cache, 0)] + [model(tokens[:, i:i + 1], cache, i) for i in range(3, 7)]
    torch.testing.assert_close(torch.cat(pieces, 1), full)
    prompt = tokens[:, :2]
    assert torch.equal(model.generate(prompt, 5, use_cache=True), model.generate(prompt, 5, use_cache=False))


# --- objectives -------------------------------------------------------------------------------
def test_bert_mask_proportions_80_10_10():
    g = torch.Generator().manual_seed(15)
    tokens = torch.randint(5, 1000, (200, 100), generator=g)
    special = torch.zeros_like(tokens, dtype=torch.bool)
    special[:, 0] = True
    inputs, labels = objectives.bert_mask(tokens, mask_id=1, vocab_size=1000, special=special, generator=g)
    chosen = labels != objectives.IGNORE
    assert not chosen[:, 0].any()
    assert abs(chosen.float().mean().item() - 0.15 * 0.99) < 0.01
    assert torch.equal(labels[chosen], tokens[chosen])
    assert torch.equal(inputs[~chosen], tokens[~chosen])
    masked = (inputs[chosen] == 1).float().mean().item()
    same = (inputs[chosen] == tokens[chosen]).float().mean().item()
    assert abs(masked - 0.8) < 0.02 and abs(same - 0.1) < 0.02  # the rest (≈10 %) are random tokens


def test_span_corruption_round_trips():
    g = torch.Generator().manual_seed(16)
    tokens = list(range(10, 40))
    sentinels = [100, 101, 102, 103, 104, 105]
    inputs, targets = objectives.span_corruption(tokens, sentinels, 0.2, 2.0, g)
    # put the hidden spans back where their sentinels are
    spans, current = {}, None
    for t in targets:
        if t in sentinels:
            current = t
            spans[t] = []
        else:
            spans[current].append(t)
    restored = [x for t in inputs for x in (spans[t] if t in sentinels else [t])]
    assert restored == tokens
    assert sum(len(s) for s in spans.values()) == 6
    assert targets[-1] in sentinels and not spans[targets[-1]]


# --- vision and SSM ---------------------------------------------------------------------------
def test_patch_embed_is_a_linear_map_per_patch():
    attnlab.set_seed(17)
    pe = vision.PatchEmbed(8, 4, 3, 5).double()
    img = torch.randn(2, 3, 8, 8, dtype=torch.float64)
    out = pe(img)
    assert out.shape == (2, 4, 5)
    patch = img[:, :, 4:8, 0:4].reshape(2, -1)  # patch in row 1, column 0 -> token 2
    torch.testing.assert_close(out[:, 2], patch @ pe.proj.weight.reshape(5, -1).T + pe.proj.bias)


def test_window_partition_round_trip_and_window_attention_is_local():
    x = torch.randn(2, 4, 4, 3)
    torch.testing.assert_close(vision.window_reverse(vision.window_partition(x, 2), 2, 4, 4), x)
    attnlab.set_seed(18)
    wa = vision.WindowAttention(8, 2, window=2).double()
    x = torch.randn(1, 4, 4, 8, dtype=torch.float64)
    y = x.clone()
    y[0, 3, 3] += 1.0  # change a token in the bottom-right window only
    changed = (wa(x) - wa(y)).abs().sum(-1)[0] > 1e-12
    assert changed[2:, 2:].all() and changed.sum() == 4


def test_shifted_window_mask_separates_wrapped_regions():
    m = vision.shifted_window_allowed(4, 4, 2, 1)
    assert m.shape == (4, 4, 4)
    assert m[0].all()  # top-left window holds one region
    assert m[3].sum() == 4  # bottom-right window: four tokens from four different corners
    attnlab.set_seed(19)
    wa = vision.WindowAttention(8, 2, window=2, shift=1).double()
    x = torch.randn(1, 4, 4, 8, dtype=torch.float64)
    y = x.clone()
    y[0, 0, 0] += 1.0  # top-left corner wraps into the bottom-right window with nothing it may see
    changed = (wa(x) - wa(y)).abs().sum(-1)[0] > 1e-12
    assert changed.sum() == 1


def test_selective_scan_matches_closed_form_for_constant_inputs():
    x = torch.ones(1, 3, 1, dtype=torch.float64)
    delta = torch.full((1, 3, 1), 0.5, dtype=torch.float64)
    a = torch.tensor([[-1.0]], dtype=torch.float64)
    b = torch.ones(1, 3, 1, dtype=torch.float64)
    c = torch.ones(1, 3, 1, dtype=torch.float64)
    y = ssm.selective_scan(x, delta, a, b, c).flatten()
    d = math.exp(-0.5)
    torch.testing.assert_close(y, torch.tensor([0.5, 0.5 * (1 + d), 0.5 * (1 + d + d * d)], dtype=torch.float64))
    layer = ssm.SelectiveSSM(4, 3)
    assert layer(torch.randn(2, 5, 4)).shape == (2, 5, 4)
    # causal: the future does not change the past
    z = torch.randn(1, 6, 4)
    z2 = z.clone()
    z2[0, 4:] += 1
    torch.testing.assert_close(layer(z)[0, :4], layer(z2)[0, :4])
