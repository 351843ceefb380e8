"""Sliding-window and strided masks, checked against their definitions and against full attention."""
import pytest
import torch

from anatomy import scaled_dot_product_attention
from anatomy.efficient.local_masks import local_mask, strided_mask
from anatomy.layers.masks import causal_mask


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
    with pytest.raises(ValueError, match=r"(window|stride) must be an integer >= 1, got 0"):
        make(5, 0)


@pytest.mark.parametrize("make, message", [
    (lambda: strided_mask(8, 2.5), "stride must be an integer >= 1, got 2.5"),
    (lambda: local_mask(8, 2.5), "window must be an integer >= 1, got 2.5"),
    (lambda: local_mask(-1, 2), "length must be an integer >= 0, got -1"),
    (lambda: strided_mask(8.0, 2), "length must be an integer >= 0, got 8.0"),
])
def test_non_integer_sizes_are_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()
