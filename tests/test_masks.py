import pytest
import torch

from anatomy import causal_mask, padding_mask, scaled_dot_product_attention
from anatomy.masks import causal_padding_mask
from anatomy.masks import check_mask


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
