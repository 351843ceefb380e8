"""Grouped-query attention: Hkv = H is multi-head attention, the cache shrinks by H / Hkv, bad groupings raise."""
import pytest
import torch

from anatomy.layers.attention import scaled_dot_product_attention
from anatomy.layers.gqa import GroupedQueryAttention
from anatomy.layers.kv_cache import KVCache, cache_memory_bytes
from anatomy.layers.masks import causal_mask


def test_each_key_value_head_serves_its_group_of_query_heads():
    """Brute force: head h attends with key-value head h // (H / Hkv), one head at a time, no RoPE."""
    torch.manual_seed(0)
    attention = GroupedQueryAttention(24, num_heads=6, num_kv_heads=2)
    x, zero = torch.randn(2, 5, 24), torch.zeros(2, 5, dtype=torch.long)  # all positions 0: no rotation
    output, _ = attention(x, zero, causal_mask(5))
    q = attention.q_proj(x).view(2, 5, 6, 4)
    k, v = attention.k_proj(x).view(2, 5, 2, 4), attention.v_proj(x).view(2, 5, 2, 4)
    heads = [scaled_dot_product_attention(q[:, :, h], k[:, :, h // 3], v[:, :, h // 3], causal_mask(5))[0]
             for h in range(6)]
    torch.testing.assert_close(output, attention.out_proj(torch.cat(heads, dim=-1)))


@pytest.mark.parametrize("kv_heads", [1, 2, 4])
def test_the_cache_keeps_only_the_key_value_heads(kv_heads):
    attention, cache = GroupedQueryAttention(32, 4, kv_heads), KVCache(1)
    attention(torch.randn(3, 7, 32), torch.arange(7).expand(3, -1), cache=cache[0])
    assert cache.memory_bytes() == cache_memory_bytes(1, kv_heads, 8, tokens=7, batch_size=3)
    assert cache[0].keys.shape == (3, kv_heads, 7, 8)


@pytest.mark.parametrize("heads, kv_heads", [(4, 3), (4, 0), (6, 4)])
def test_kv_heads_that_do_not_divide_the_heads_raise(heads, kv_heads):
    with pytest.raises(ValueError, match=rf"num_kv_heads \({kv_heads}\) must divide num_heads \({heads}\)"):
        GroupedQueryAttention(24, heads, kv_heads)


def test_bad_settings_and_inputs_are_named():
    with pytest.raises(ValueError, match="rope_base must be a finite number > 0, got 0"):
        GroupedQueryAttention(16, 4, 2, rope_base=0)
    attention = GroupedQueryAttention(16, 4, 2)
    with pytest.raises(ValueError, match=r"x must be a floating-point \(B, T, 16\) tensor, got shape \(5, 16\)"):
        attention(torch.zeros(5, 16), torch.arange(5))
