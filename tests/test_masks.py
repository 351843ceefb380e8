import pytest
import torch

from anatomy import causal_mask, padding_mask, scaled_dot_product_attention
from anatomy.masks import causal_padding_mask
from anatomy.masks import check_mask, local_mask, strided_mask


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


def brute_force_mask(length, allowed):
    return torch.tensor([[allowed(i, j) for j in range(length)] for i in range(length)])


def test_local_and_strided_masks_equal_their_definitions():
    for length, size in [(9, 1), (9, 3), (10, 4), (5, 7)]:
        assert torch.equal(local_mask(length, size), brute_force_mask(length, lambda i, j: abs(i - j) < size))
        assert torch.equal(local_mask(length, size, causal=True),
                           brute_force_mask(length, lambda i, j: 0 <= i - j < size))
        assert torch.equal(strided_mask(length, size), brute_force_mask(length, lambda i, j: (i - j) % size == 0))
        assert torch.equal(strided_mask(length, size, causal=True),
                           brute_force_mask(length, lambda i, j: j <= i and (i - j) % size == 0))


def test_a_window_covering_the_sequence_is_full_attention():
    q, k, v = torch.randn(3, 2, 4, 12, 8)
    full = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    causal = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    for window in [12, 13, 100]:
        torch.testing.assert_close(scaled_dot_product_attention(q, k, v, local_mask(12, window))[0], full)
        torch.testing.assert_close(scaled_dot_product_attention(q, k, v, local_mask(12, window, causal=True))[0], causal)
    narrow = scaled_dot_product_attention(q, k, v, local_mask(12, 11))[0]
    assert not torch.allclose(narrow, full)  # one key fewer for the first and last query already shows


def test_local_plus_strided_reaches_every_earlier_key_in_two_hops():
    length, stride = 16, 4
    local, strided = local_mask(length, stride, causal=True), strided_mask(length, stride, causal=True)
    two_hops = (local.int() @ strided.int() > 0) | (strided.int() @ local.int() > 0)
    assert torch.equal(two_hops, causal_mask(length))
    assert (local | strided).sum(-1).max() < 2 * stride  # keys per query: O(√T) when stride ≈ √T


@pytest.mark.parametrize("make", [local_mask, strided_mask])
def test_window_and_stride_below_one_are_errors(make):
    with pytest.raises(ValueError, match="must be at least 1, got 0"):
        make(5, 0)
