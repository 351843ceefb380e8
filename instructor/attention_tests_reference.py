"""Homework 3 (notebook 19_homework_attention_tests): the instructor's reference test suite. It
catches every real mutant of anatomy.homework.attention_tests and fails no equivalent one, using
references nobody here wrote (F.scaled_dot_product_attention, nn.MultiheadAttention) and properties
(causality, padded memory ignored, cached == uncached). SUITE: {question: [its tests]}.
"""
import math
import torch
import torch.nn.functional as F
from torch import nn


# q1: attention(query, key, value, mask=None) -> (output, weights)
def test_attention_matches_pytorch(impl):
    q, k, v = torch.randn(2, 3, 4, 8), torch.randn(2, 3, 5, 8), torch.randn(2, 3, 5, 6)
    out, weights = impl.attention(q, k, v)
    assert torch.allclose(out, F.scaled_dot_product_attention(q, k, v), atol=1e-5)
    assert torch.allclose(weights, torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(8), -1), atol=1e-6)


def test_attention_mask_matches_pytorch(impl):
    q, k, v = torch.randn(2, 4, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 6)
    mask = torch.tensor([[True, True, True, False, False]]).expand(4, 5)
    out, weights = impl.attention(q, k, v, mask)
    assert torch.allclose(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), atol=1e-5)
    assert torch.all(weights[..., 3:] == 0) and torch.allclose(weights.sum(-1), torch.ones(2, 4))


def test_fully_masked_row_is_zero(impl):
    q, k, v = torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 4)
    mask = torch.tensor([[True, True, False], [False, False, False]])
    out, weights = impl.attention(q, k, v, mask)
    assert torch.isfinite(out).all() and torch.all(weights[0, 1] == 0) and torch.all(out[0, 1] == 0)


# q2: causal_mask(num_queries, num_keys=None)
def test_causal_mask_square(impl):
    assert torch.equal(impl.causal_mask(4), torch.ones(4, 4, dtype=torch.bool).tril())


def test_causal_mask_queries_are_last(impl):
    expected = torch.tensor([[True, True, True, False], [True, True, True, True]])
    assert torch.equal(impl.causal_mask(2, 4), expected)


# q3: MultiHeadAttention(d_model, num_heads) against nn.MultiheadAttention with the same weights
def reference_mha(mha, d_model, num_heads):
    ref = nn.MultiheadAttention(d_model, num_heads, batch_first=True)
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([mha.q_proj.weight, mha.k_proj.weight, mha.v_proj.weight]))
        ref.in_proj_bias.copy_(torch.cat([mha.q_proj.bias, mha.k_proj.bias, mha.v_proj.bias]))
        ref.out_proj.weight.copy_(mha.out_proj.weight)
        ref.out_proj.bias.copy_(mha.out_proj.bias)
    return ref


def test_mha_matches_pytorch(impl):
    mha = impl.MultiHeadAttention(16, 4)
    ref = reference_mha(mha, 16, 4)
    x, memory = torch.randn(2, 3, 16), torch.randn(2, 5, 16)
    out, weights = mha(x, memory, memory)
    expected, expected_weights = ref(x, memory, memory, average_attn_weights=False)
    assert out.shape == (2, 3, 16) and weights.shape == (2, 4, 3, 5)
    assert torch.allclose(out, expected, atol=1e-5) and torch.allclose(weights, expected_weights, atol=1e-6)


# q4: DecoderLayer(d_model, num_heads, d_ff)(x, memory, memory_mask)
def test_decoder_is_causal(impl):
    layer = impl.DecoderLayer(16, 4, 32).eval()
    x, memory = torch.randn(2, 4, 16), torch.randn(2, 6, 16)
    changed = x.clone()
    changed[:, 2:] = torch.randn(2, 2, 16)
    assert torch.allclose(layer(x, memory)[:, :2], layer(changed, memory)[:, :2], atol=1e-6)


def test_decoder_ignores_padded_memory(impl):
    layer = impl.DecoderLayer(16, 4, 32).eval()
    x, memory = torch.randn(2, 4, 16), torch.randn(2, 6, 16)
    mask = torch.ones(2, 6, dtype=torch.bool)
    mask[1, 4:] = False
    changed = memory.clone()
    changed[1, 4:] = torch.randn(2, 16)
    assert torch.allclose(layer(x, memory, mask), layer(x, changed, mask), atol=1e-6)
    assert torch.allclose(layer(x, memory, mask)[1:], layer(x[1:], memory[1:, :4]), atol=1e-5)


def test_decoder_reads_every_source_token(impl):
    layer = impl.DecoderLayer(16, 4, 32).eval()
    x, memory = torch.randn(1, 4, 16), torch.randn(1, 6, 16)
    changed = memory.clone()
    changed[:, -1] += 1.0
    assert not torch.allclose(layer(x, memory)[:, 0], layer(x, changed)[:, 0], atol=1e-4)


# q5: MultiHeadAttention with a KVCache equals uncached causal self-attention
def test_cache_matches_full(impl):
    mha = impl.MultiHeadAttention(16, 4)
    x = torch.randn(2, 7, 16)
    full, _ = mha(x, mask=impl.causal_mask(7))
    cache = impl.KVCache()
    steps = [mha(x[:, :3], cache=cache)[0]]  # a prompt of 3, then one token at a time
    steps += [mha(x[:, t:t + 1], cache=cache)[0] for t in range(3, 5)]
    steps += [mha(x[:, 5:], cache=cache)[0]]  # then a chunk of 2
    assert len(cache) == 7
    assert torch.allclose(torch.cat(steps, 1), full, atol=1e-5)


SUITE = {"q1": [test_attention_matches_pytorch, test_attention_mask_matches_pytorch, test_fully_masked_row_is_zero],
         "q2": [test_causal_mask_square, test_causal_mask_queries_are_last],
         "q3": [test_mha_matches_pytorch],
         "q4": [test_decoder_is_causal, test_decoder_ignores_padded_memory, test_decoder_reads_every_source_token],
         "q5": [test_cache_matches_full]}
