from types import SimpleNamespace

import pytest
import torch
from torch import nn

import anatomy
from anatomy import MultiHeadAttention, PerHeadMultiHeadAttention, causal_mask, padding_mask
from anatomy.weights.torch_reference import copy_attention

CONFIG = SimpleNamespace(hidden_size=32, num_attention_heads=4, attention_probs_dropout_prob=0.0)


def torch_mha_with_our_weights(ours: MultiHeadAttention) -> nn.MultiheadAttention:
    reference = nn.MultiheadAttention(ours.embed_dim, ours.num_heads, batch_first=True)
    copy_attention(ours, reference)
    return reference.eval()


@pytest.fixture
def fused():
    torch.manual_seed(0)
    return MultiHeadAttention(CONFIG).eval()


@pytest.mark.parametrize("cross", [False, True], ids=["self", "cross"])
@pytest.mark.parametrize("masked", [False, True], ids=["no-mask", "mask"])
def test_equals_nn_multihead_attention(fused, cross, masked):
    x = torch.randn(3, 5, 32)
    memory = torch.randn(3, 7, 32) if cross else x
    tk = memory.size(1)
    mask = None
    if masked:  # padding on the keys, plus causal for self-attention
        keep = torch.ones(3, tk, dtype=torch.long)
        keep[1, -2:] = 0
        mask = padding_mask(keep) & (causal_mask(5) if not cross else torch.ones(5, tk, dtype=torch.bool))
    reference = torch_mha_with_our_weights(fused)
    torch_mask = None if mask is None else (~mask).expand(3, 4, 5, tk).reshape(12, 5, tk)
    expected, expected_weights = reference(x, memory, memory, attn_mask=torch_mask, average_attn_weights=False)
    with torch.no_grad():
        output, weights = fused(x, memory if cross else None, mask=mask)
        fast, none = fused(x, memory if cross else None, mask=mask, need_weights=False)
    torch.testing.assert_close(output, expected)
    torch.testing.assert_close(weights, expected_weights)
    torch.testing.assert_close(fast, expected)
    assert none is None


def test_per_head_version_loads_the_fused_weights(fused):
    per_head = PerHeadMultiHeadAttention(CONFIG).load_fused(fused).eval()
    x = torch.randn(2, 6, 32)
    mask = causal_mask(6)
    with torch.no_grad():
        torch.testing.assert_close(per_head(x, mask=mask)[0], fused(x, mask=mask)[0])
        torch.testing.assert_close(per_head(x, mask=mask)[1], fused(x, mask=mask)[1])


def test_split_then_merge_is_identity(fused):
    x = torch.randn(2, 6, 32)
    split = fused.split_heads(x)
    assert split.shape == (2, 4, 6, 8)
    torch.testing.assert_close(split[:, 1], x[..., 8:16])
    assert torch.equal(fused.merge_heads(split), x)


def test_dropout_only_in_training():
    layer = MultiHeadAttention(SimpleNamespace(hidden_size=8, num_attention_heads=2,
                                               attention_probs_dropout_prob=0.5))
    x = torch.randn(1, 4, 8)
    layer.eval()
    torch.testing.assert_close(layer(x)[0], layer(x)[0])
    layer.train()
    torch.manual_seed(1)
    assert not torch.allclose(layer(x)[0], layer(x)[0])


def test_hidden_size_not_divisible():
    with pytest.raises(ValueError, match=r"hidden_size \(30\) must be divisible by num_attention_heads \(4\)"):
        MultiHeadAttention(SimpleNamespace(hidden_size=30, num_attention_heads=4))
    with pytest.raises(ValueError, match="divisible"):
        PerHeadMultiHeadAttention(SimpleNamespace(hidden_size=30, num_attention_heads=4))


def test_missing_config_field():
    with pytest.raises(ValueError, match="num_attention_heads"):
        MultiHeadAttention(SimpleNamespace(hidden_size=32))


def test_key_value_length_mismatch(fused):
    with pytest.raises(ValueError, match=r"key and value must have the same \(B, Tk\), got \(1, 7\) and \(1, 6\)"):
        fused(torch.randn(1, 5, 32), torch.randn(1, 7, 32), torch.randn(1, 6, 32))


def test_wrong_mask_shape(fused):
    with pytest.raises(ValueError, match=r"mask shape \(5, 4\) does not broadcast .* \(1, 4, 5, 5\)"):
        fused(torch.randn(1, 5, 32), mask=torch.ones(5, 4, dtype=torch.bool))


def test_wrong_width_and_batch(fused):
    with pytest.raises(ValueError, match=r"query must be \(B, T, 32\), got shape \(1, 5, 16\)"):
        fused(torch.randn(1, 5, 16))
    with pytest.raises(ValueError, match="batch sizes differ: 2 vs 1"):
        fused(torch.randn(2, 5, 32), torch.randn(1, 5, 32))


@pytest.mark.parametrize("cls", [MultiHeadAttention, PerHeadMultiHeadAttention])
def test_both_versions_share_the_input_checks(cls):
    attention = cls(CONFIG)
    x = torch.randn(4, 5, 32)  # B == H == 4
    with pytest.raises(ValueError, match=r"query must be \(B, T, 32\), got shape \(1, 5, 16\)"):
        attention(torch.randn(1, 5, 16))
    with pytest.raises(ValueError, match=r"query must be \(B, T, 32\), got shape \(5, 32\)"):
        attention(torch.randn(5, 32))
    with pytest.raises(TypeError, match=r"query must be a torch.Tensor \(B, T, 32\), got list"):
        attention([[0.0] * 32])
    with pytest.raises(ValueError, match="batch sizes differ: 4 vs 1"):
        attention(x, torch.randn(1, 5, 32))
    with pytest.raises(ValueError, match=r"key and value must have the same \(B, Tk\)"):
        attention(x, x, torch.randn(4, 6, 32))
    with pytest.raises(ValueError, match="query is torch.float64 on cpu, but the module's weights are torch.float32"):
        attention(x.double())
    with pytest.raises(ValueError, match=r"mask has shape \(4, 5, 5\).*ambiguous"):
        attention(x, mask=torch.ones(4, 5, 5, dtype=torch.bool))  # (B, Tq, Tk) or (H, Tq, Tk)?
    with pytest.raises(ValueError, match="must be boolean"):
        attention(x, mask=torch.ones(4, 1, 1, 5))


def test_per_head_version_takes_every_accepted_mask_like_the_fused_one(fused):
    per_head = PerHeadMultiHeadAttention(CONFIG).load_fused(fused).eval()
    x = torch.randn(3, 5, 32)
    for mask in (causal_mask(5), torch.tensor([True] * 4 + [False]), padding_mask(torch.tensor([[1] * 5, [1] * 3 + [0] * 2, [1] * 5])),
                 torch.rand(3, 4, 5, 5) > 0.5):
        mask[..., 0] = True
        with torch.no_grad():
            torch.testing.assert_close(per_head(x, mask=mask)[0], fused(x, mask=mask)[0], atol=1e-5, rtol=1e-5)


def test_config_as_a_plain_dict_is_accepted():
    as_dict = {"hidden_size": 32, "num_attention_heads": 4}
    torch.manual_seed(0)
    from_dict = MultiHeadAttention(as_dict)
    torch.manual_seed(0)
    from_namespace = MultiHeadAttention(SimpleNamespace(**as_dict))
    x = torch.randn(2, 3, 32)
    torch.testing.assert_close(from_dict(x)[0], from_namespace(x)[0])
    PerHeadMultiHeadAttention(as_dict)
    with pytest.raises(ValueError, match=r"dict config is missing field\(s\) \['num_attention_heads'\]"):
        MultiHeadAttention({"hidden_size": 32})


@pytest.mark.parametrize("heads, message", [(0, "num_attention_heads must be an integer >= 1, got 0"),
                                            (-4, "num_attention_heads must be an integer >= 1, got -4"),
                                            (4.0, "num_attention_heads must be an integer >= 1, got 4.0")])
def test_heads_must_be_a_positive_integer(heads, message):
    with pytest.raises(ValueError, match=message):
        MultiHeadAttention(SimpleNamespace(hidden_size=32, num_attention_heads=heads))
    with pytest.raises(ValueError, match="hidden_size must be an integer >= 1, got -32"):
        MultiHeadAttention(SimpleNamespace(hidden_size=-32, num_attention_heads=4))


def test_mixed_precision_inputs_pass_under_autocast(fused):
    x = torch.randn(2, 3, 32, dtype=torch.bfloat16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert fused(x)[0].dtype == torch.bfloat16


@pytest.mark.parametrize("argument, value", [("embed_dim", 2.5), ("embed_dim", -1), ("head_dim", float("nan"))])
def test_attention_head_refuses_a_size_that_is_not_a_count(argument, value):
    # torch refused these itself, in words about empty() that named neither argument
    with pytest.raises((TypeError, ValueError), match=argument):
        anatomy.AttentionHead(**{"embed_dim": 16, "head_dim": 8, argument: value})
