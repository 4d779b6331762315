"""KV cache size, incremental decoding with a cache, and the paged allocator (chapter 7)."""

import pytest
import torch
import torch.nn.functional as F

from attnlab.kvcache import MODEL_SHAPES, KVCache, PagedKVAllocator, kv_cache_bytes, waste_fraction


def test_kv_cache_bytes_of_llama2_7b_at_4k_is_2_gib_in_fp16():
    llama = next(m for m in MODEL_SHAPES if m.name == "Llama 2 7B")
    # 2 (K, V) x 32 layers x 32 heads x 128 dims x 4096 tokens x 2 bytes = 2 GiB
    assert kv_cache_bytes(llama.layers, llama.kv_heads, llama.head_dim, 4096) == 2 * 2**30
    assert kv_cache_bytes(1, 1, 1, 1, batch=3, bytes_per_value=4) == 24
    with pytest.raises(ValueError):
        kv_cache_bytes(1, 1, 1, -1)


def test_grouped_query_attention_shrinks_the_cache_by_heads_over_kv_heads():
    m = next(m for m in MODEL_SHAPES if "70B" in m.name)
    full = kv_cache_bytes(m.layers, m.heads, m.head_dim, 100)
    assert full / kv_cache_bytes(m.layers, m.kv_heads, m.head_dim, 100) == m.heads / m.kv_heads == 8


def test_a_sliding_window_model_caches_at_most_its_window_and_no_model_runs_past_its_context():
    mistral = next(m for m in MODEL_SHAPES if m.name.startswith("Mistral"))
    assert mistral.cached_tokens(1000) == 1000 and mistral.cached_tokens(mistral.context) == mistral.window == 4096
    llama = next(m for m in MODEL_SHAPES if m.name == "Llama 2 7B")
    assert llama.cached_tokens(llama.context) == llama.context == 4096
    with pytest.raises(ValueError, match="trained for 4096 tokens"):
        llama.cached_tokens(4097)


def test_decoding_with_the_cache_equals_full_causal_attention():
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 6, 4) for _ in range(3))
    cache, outs = KVCache(), []
    for t in range(6):
        keys, values = cache.append(k[:, :, t:t + 1], v[:, :, t:t + 1])
        outs.append(F.scaled_dot_product_attention(q[:, :, t:t + 1], keys, values))
    assert len(cache) == 6
    torch.testing.assert_close(torch.cat(outs, dim=2), F.scaled_dot_product_attention(q, k, v, is_causal=True))


def test_paged_allocator_maps_positions_and_reuses_freed_blocks():
    alloc = PagedKVAllocator(num_blocks=4, block_size=2)
    slots = [alloc.append_token("a") for _ in range(3)]
    assert slots[0][0] == slots[1][0] != slots[2][0] and [s[1] for s in slots] == [0, 1, 0]
    assert alloc.slot_of("a", 2) == slots[2]
    assert alloc.reserved_tokens() == 4 and alloc.used_tokens() == 3
    alloc.append_token("b"), alloc.append_token("b"), alloc.append_token("b")
    with pytest.raises(MemoryError):
        alloc.append_token("c")
    alloc.release("a")
    assert alloc.append_token("c")[0] in {s[0] for s in slots}
    with pytest.raises(IndexError):
        alloc.slot_of("c", 1)


def test_paged_waste_is_below_one_block_per_request_and_below_contiguous():
    lengths = [5, 100, 33, 64, 1]
    paged = waste_fraction(lengths, 128, block_size=16)
    assert paged < len(lengths) * 16 / sum(lengths) and paged < waste_fraction(lengths, 128)
    assert waste_fraction([128], 128) == 0.0 and waste_fraction([16, 32], 128, block_size=16) == 0.0
    with pytest.raises(ValueError):
        waste_fraction([200], 128)
