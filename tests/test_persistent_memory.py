from types import SimpleNamespace

import pytest
import torch
from torch import nn

from anatomy import FeedForward, MultiHeadAttention, causal_mask
from anatomy.efficient.persistent_memory import PersistentMemoryAttention, feedforward_as_attention


def config(**overrides):
    fields = dict(hidden_size=24, num_attention_heads=4, intermediate_size=96, hidden_act="relu",
                  hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    return SimpleNamespace(**{**fields, **overrides})


def test_a_relu_feedforward_is_attention_over_fixed_keys_and_values():
    feedforward = FeedForward(config()).eval()
    x = torch.randn(2, 7, 24)
    output, weights = feedforward_as_attention(x, feedforward)
    torch.testing.assert_close(output, feedforward(x))
    assert weights.shape == (2, 7, 96) and (weights >= 0).all()
    key_3, value_3 = feedforward.linear_1.weight[3], feedforward.linear_2.weight[:, 3]  # row of W1, column of W2
    torch.testing.assert_close(weights[..., 3], torch.relu(x @ key_3 + feedforward.linear_1.bias[3]))
    with pytest.raises(ValueError, match="holds for a ReLU feed-forward, got GELU"):
        feedforward_as_attention(x, FeedForward(config(hidden_act="gelu")))


def test_persistent_vectors_act_like_extra_tokens_every_query_sees():
    """With persistent keys/values set to the projections of M extra tokens, the layer must equal
    torch's nn.MultiheadAttention whose keys and values are the tokens followed by those extras."""
    torch.manual_seed(0)
    layer = PersistentMemoryAttention(config(), num_persistent=5).eval()
    reference = nn.MultiheadAttention(24, 4, batch_first=True).eval()
    with torch.no_grad():
        reference.in_proj_weight.copy_(torch.cat([layer.q_proj.weight, layer.k_proj.weight, layer.v_proj.weight]))
        reference.in_proj_bias.copy_(torch.cat([layer.q_proj.bias, layer.k_proj.bias, layer.v_proj.bias]))
        reference.out_proj.load_state_dict(layer.out_proj.state_dict())
        extras = torch.randn(1, 5, 24)
        layer.persistent_keys.copy_(layer.split_heads(layer.k_proj(extras))[0])  # (H, N, Dh)
        layer.persistent_values.copy_(layer.split_heads(layer.v_proj(extras))[0])
    x = torch.randn(3, 6, 24)
    memory = torch.cat([x, extras.expand(3, -1, -1)], dim=1)  # (B, T + N, D)
    mask = causal_mask(6)
    output, weights = layer(x, mask=mask)
    allowed = torch.cat([mask, torch.ones(6, 5, dtype=torch.bool)], dim=-1)  # torch: True = masked out
    expected, expected_weights = reference(x, memory, memory, attn_mask=~allowed, average_attn_weights=False)
    torch.testing.assert_close(output, expected, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(weights, expected_weights, atol=1e-5, rtol=1e-5)
    assert weights.shape == (3, 4, 6, 11) and (weights[..., 6:] > 0).all()  # persistent keys always seen


def test_parameter_counts_against_the_layers_it_replaces():
    c = config()
    all_attention = PersistentMemoryAttention(c, num_persistent=24)
    attention_and_ffn = sum(p.numel() for layer in (MultiHeadAttention(c), FeedForward(c)) for p in layer.parameters())
    d, n = c.hidden_size, 24
    assert sum(p.numel() for p in all_attention.parameters()) == 4 * (d * d + d) + 2 * n * d
    assert attention_and_ffn == 4 * (d * d + d) + 2 * d * c.intermediate_size + c.intermediate_size + d


def test_bad_inputs():
    with pytest.raises(ValueError, match="num_persistent must be an integer >= 1, got 0"):
        PersistentMemoryAttention(config(), 0)
    layer = PersistentMemoryAttention(config(), 2)
    with pytest.raises(ValueError, match=r"query must be \(B, T, 24\), got shape \(2, 5, 8\)"):
        layer(torch.randn(2, 5, 8))
    with pytest.raises(ValueError, match="mask must be boolean"):
        layer(torch.randn(2, 5, 24), mask=torch.ones(5, 5))


def test_non_integer_sizes_and_a_wrong_width_for_the_identity():
    config = SimpleNamespace(hidden_size=24, num_attention_heads=4, intermediate_size=48, hidden_act="relu")
    with pytest.raises(ValueError, match="num_persistent must be an integer >= 1, got 2.5"):
        PersistentMemoryAttention(config, num_persistent=2.5)
    with pytest.raises(ValueError, match=r"x must be a floating-point \(\.\.\., 24\) tensor, got shape \(2, 5, 8\)"):
        feedforward_as_attention(torch.zeros(2, 5, 8), FeedForward(config))


def test_feedforward_as_attention_names_what_is_no_feedforward():
    # None raised AttributeError: 'NoneType' object has no attribute 'linear_1' (found by the sweep, #37)
    with pytest.raises(TypeError, match="feedforward must be FeedForward, got NoneType"):
        feedforward_as_attention(torch.randn(2, 3, 16), None)
    with pytest.raises(TypeError, match="feedforward must be FeedForward, got Linear"):
        feedforward_as_attention(torch.randn(2, 3, 16), nn.Linear(16, 16))
