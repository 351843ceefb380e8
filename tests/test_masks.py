import pytest
import torch

from anatomy import causal_mask, padding_mask, scaled_dot_product_attention
from anatomy.layers.masks import causal_padding_mask, check_mask


def test_causal_mask_is_lower_triangular():
    assert causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]
    assert causal_mask(2, 4).tolist() == [[True, True, True, False], [True, True, True, True]]


def test_padding_mask_shape_and_values():
    mask = padding_mask(torch.tensor([[1, 1, 0], [1, 0, 0]]))
    assert mask.shape == (2, 1, 1, 3) and mask.dtype == torch.bool
    assert mask[1, 0, 0].tolist() == [True, False, False]


def test_padding_mask_needs_2d():
    with pytest.raises(ValueError, match=r"attention_mask must be \(B, Tk\), got shape \(3,\)"):
        padding_mask(torch.tensor([1, 1, 0]))


def test_check_mask_errors():
    with pytest.raises(ValueError, match="must be boolean"):
        check_mask(torch.ones(3, 3), (2, 3, 3))
    with pytest.raises(ValueError, match=r"mask shape \(4, 3\) does not broadcast"):
        check_mask(torch.ones(4, 3, dtype=torch.bool), (2, 3, 3))
    check_mask(torch.ones(3, 3, dtype=torch.bool), (2, 4, 3, 3))


def test_causal_padding_mask_combines_both():
    mask = causal_padding_mask(torch.tensor([[1, 1, 1], [1, 1, 0]]))
    assert mask.shape == (2, 1, 3, 3)
    assert mask[0, 0].tolist() == causal_mask(3).tolist()
    assert mask[1, 0].tolist() == [[True, False, False], [True, True, False], [True, True, False]]


def test_causal_padding_mask_with_a_fully_masked_row_gives_zeros_not_nan():
    mask = causal_padding_mask(torch.tensor([[0, 1, 1]]))  # left padding: query 0 may attend nothing
    assert not mask[0, 0, 0].any()
    q = k = v = torch.randn(1, 1, 3, 4)
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert not out.isnan().any() and out[0, 0, 0].abs().sum() == 0
    assert torch.allclose(weights[0, 0, 1:].sum(-1), torch.ones(2))


@pytest.mark.parametrize("shape", [(5,), (1, 5), (4, 5), (2, 1, 1, 5), (2, 3, 4, 5), (1, 3, 1, 5), (2, 1, 4, 5)])
def test_every_accepted_mask_shape_equals_torch_sdpa(shape):
    torch.manual_seed(0)
    q, k = torch.randn(2, 3, 4, 8), torch.randn(2, 3, 5, 8)
    mask = torch.rand(shape) > 0.3
    mask[..., 0] = True  # every query keeps a key: torch gives NaN for a fully masked row
    output, _ = scaled_dot_product_attention(q, k, k, mask)
    torch.testing.assert_close(output, torch.nn.functional.scaled_dot_product_attention(
        q, k, k, attn_mask=mask.expand(2, 3, 4, 5)))  # the full (B, H, Tq, Tk) mask: nothing left to misread


def test_a_3d_mask_for_4d_scores_is_refused_not_misread():
    # B == H == 2: a (B, Tq, Tk) padding mask would silently be read as (H, Tq, Tk).
    q = torch.randn(2, 2, 3, 4)  # (B, H, Tq, Dh)
    mask = torch.ones(2, 3, 3, dtype=torch.bool)  # (B, Tq, Tk)
    mask[1, :, 2] = False  # sentence 1 has a padded key
    with pytest.raises(ValueError, match=r"mask has shape \(2, 3, 3\).*\(2, 2, 3, 3\).*accepted mask shapes: "
                                         r"\(Tk,\), \(1, Tk\) or \(Tq, Tk\).*\(B or 1, H or 1, Tq or 1, Tk\)"
                                         r".*ambiguous.*mask\[:, None\]"):
        scaled_dot_product_attention(q, q, q, mask)
    _, weights = scaled_dot_product_attention(q, q, q, mask[:, None])  # what the hint says
    assert torch.equal(weights[1, :, :, 2], torch.zeros(2, 3)) and weights[0, :, :, 2].min() > 0


def test_mask_type_rank_and_device_errors():
    scores = (2, 4, 3, 3)
    with pytest.raises(TypeError, match="mask must be a boolean torch.Tensor.*got list"):
        check_mask([[True] * 3] * 3, scores)
    with pytest.raises(ValueError, match=r"got dtype torch.int64; .*anatomy.padding_mask"):
        check_mask(torch.ones(3, 3, dtype=torch.long), scores)
    with pytest.raises(ValueError, match=r"mask has shape \(1, 2, 4, 3, 3\)"):
        check_mask(torch.ones(1, 2, 4, 3, 3, dtype=torch.bool), scores)
    with pytest.raises(ValueError, match=r"mask has shape \(\)"):
        check_mask(torch.tensor(True), scores)
    with pytest.raises(ValueError, match="mask is on meta, but the attention inputs are on cpu"):
        check_mask(torch.ones(3, 3, dtype=torch.bool, device="meta"), scores, torch.device("cpu"))
    with pytest.raises(ValueError, match="mask has 1 key positions, but there are 3 keys"):
        check_mask(torch.ones(3, 1, dtype=torch.bool), scores)


def test_mask_builders_refuse_bad_sizes():
    with pytest.raises(ValueError, match="num_queries must be an integer >= 0, got -3"):
        causal_mask(-3)
    with pytest.raises(ValueError, match=r"num_keys must be an integer >= 0, got 2.5"):
        causal_mask(2, 2.5)
    with pytest.raises(TypeError, match=r"attention_mask must be a \(B, Tk\) tensor of 1s and 0s, got list"):
        padding_mask([[1, 1, 0]])
    with pytest.raises(ValueError, match=r"attention_mask must be \(B, Tk\), got shape \(1, 1, 3\)"):
        causal_padding_mask(torch.ones(1, 1, 3))


@pytest.mark.parametrize("attention_mask", [None, torch.ones(2, 1, 3)])
def test_causal_padding_mask_refuses_what_is_not_a_b_by_t_mask(attention_mask):
    # None raised an AttributeError; a (B, 1, T) mask broadcast to a wrong shape
    with pytest.raises((TypeError, ValueError), match="attention_mask"):
        causal_padding_mask(attention_mask)
