import pytest
import torch
import torch.nn.functional as F

from anatomy import scaled_dot_product_attention


def random_case(generator, dtype):
    lead = tuple(int(n) for n in torch.randint(1, 4, (int(torch.randint(0, 3, (1,), generator=generator)),),
                                               generator=generator))
    tq, tk, dh, dv = (int(n) for n in torch.randint(1, 9, (4,), generator=generator))
    q = torch.randn(*lead, tq, dh, generator=generator, dtype=dtype)
    k = torch.randn(*lead, tk, dh, generator=generator, dtype=dtype)
    v = torch.randn(*lead, tk, dv, generator=generator, dtype=dtype)
    mask = torch.rand(*lead, tq, tk, generator=generator) > 0.3
    return q, k, v, mask


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("seed", range(20))
def test_equals_torch_sdpa(dtype, seed):
    q, k, v, mask = random_case(torch.Generator().manual_seed(seed), dtype)
    for m in (None, mask):
        ours, weights = scaled_dot_product_attention(q, k, v, m)
        theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
        torch.testing.assert_close(ours, theirs)
        assert weights.shape == (*q.shape[:-1], k.shape[-2])


def test_weights_rows_sum_to_one_and_shapes():
    q, k, v = torch.randn(2, 4, 8), torch.randn(2, 6, 8), torch.randn(2, 6, 5)
    output, weights = scaled_dot_product_attention(q, k, v)
    assert output.shape == (2, 4, 5) and weights.shape == (2, 4, 6)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 4))


def test_fully_masked_row_gives_zeros_not_nan():
    q = torch.randn(1, 3, 4)
    mask = torch.tensor([[True, False, False], [False, False, False], [True, True, True]])
    output, weights = scaled_dot_product_attention(q, q, q, mask)
    assert not output.isnan().any() and not weights.isnan().any()
    assert torch.equal(output[0, 1], torch.zeros(4)) and torch.equal(weights[0, 1], torch.zeros(3))
    torch.testing.assert_close(output, F.scaled_dot_product_attention(q, q, q, attn_mask=mask))


def test_masked_keys_get_zero_weight():
    q = torch.randn(2, 3, 4)
    mask = torch.tensor([True, True, False])
    _, weights = scaled_dot_product_attention(q, q, q, mask)
    assert torch.equal(weights[..., 2], torch.zeros(2, 3))


def test_values_may_be_wider_or_narrower_than_keys():
    """Only queries and keys meet in a dot product; the output takes the values' width (torch agrees)."""
    torch.manual_seed(0)
    q, k = torch.randn(2, 3, 4, 8), torch.randn(2, 3, 6, 8)
    for width in (3, 20):
        v = torch.randn(2, 3, 6, width)
        output, weights = scaled_dot_product_attention(q, k, v)
        assert output.shape == (2, 3, 4, width) and weights.shape == (2, 3, 4, 6)
        torch.testing.assert_close(output, F.scaled_dot_product_attention(q, k, v))


def test_bad_inputs():
    q, k = torch.randn(1, 3, 4), torch.randn(1, 5, 4)
    with pytest.raises(ValueError, match="same length, got 5 and 4"):
        scaled_dot_product_attention(q, k, torch.randn(1, 4, 4))
    with pytest.raises(ValueError, match="query width 4 must equal key width 3: .* project both to one width"):
        scaled_dot_product_attention(q, torch.randn(1, 5, 3), torch.randn(1, 5, 3))
    with pytest.raises(ValueError, match="must be boolean"):
        scaled_dot_product_attention(q, k, k, torch.ones(3, 5))
    with pytest.raises(ValueError, match=r"does not broadcast"):
        scaled_dot_product_attention(q, k, k, torch.ones(3, 4, dtype=torch.bool))


def test_bad_tensors_are_named():
    q = torch.randn(1, 3, 4)
    with pytest.raises(TypeError, match="key must be a torch.Tensor .*got list"):
        scaled_dot_product_attention(q, q.tolist(), q)
    with pytest.raises(ValueError, match=r"query must be a floating-point tensor .*got shape \(1, 3, 4\) and dtype torch.int64"):
        scaled_dot_product_attention(q.long(), q.long(), q.long())
    with pytest.raises(ValueError, match=r"value must be a floating-point tensor .*got shape \(4,\)"):
        scaled_dot_product_attention(q, q, torch.randn(4))
    with pytest.raises(ValueError, match="query is torch.float32 on cpu but key is torch.float64 on cpu"):
        scaled_dot_product_attention(q, q.double(), q)
    with pytest.raises(ValueError, match="query is torch.float32 on cpu but value is torch.float32 on meta"):
        scaled_dot_product_attention(q, q, q.to("meta"))
    with pytest.raises(ValueError, match=r"dropout_p must be a probability in \[0, 1\], got 10"):
        scaled_dot_product_attention(q, q, q, dropout_p=10)


def test_leading_dims_that_do_not_broadcast_are_named():
    with pytest.raises(ValueError, match=r"leading \(batch, head\) dims, got shapes \(2, 3, 4\), \(3, 3, 4\) and \(3, 3, 4\)"):
        scaled_dot_product_attention(torch.randn(2, 3, 4), torch.randn(3, 3, 4), torch.randn(3, 3, 4))
