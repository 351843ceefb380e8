import pytest
import torch
import torch.nn.functional as F

from anatomy import causal_mask, scaled_dot_product_attention
from anatomy.efficient.tiled_attention import tiled_attention


@pytest.mark.parametrize("causal", [False, True])
def test_equals_torch_sdpa_over_random_shapes_and_blocks(causal):
    generator = torch.Generator().manual_seed(0)
    for _ in range(25):
        batch, heads, width, value_width = (int(n) for n in torch.randint(1, 5, (4,), generator=generator) * torch.tensor([1, 1, 8, 4]))
        num_queries, num_keys = (int(n) for n in torch.randint(1, 70, (2,), generator=generator))
        if causal:
            num_keys = max(num_keys, num_queries)  # every query sees at least one key, as SDPA needs
        block_size = int(torch.randint(1, 40, (1,), generator=generator))  # mostly not dividing T
        q = torch.randn(batch, heads, num_queries, width, generator=generator)
        k = torch.randn(batch, heads, num_keys, width, generator=generator)
        v = torch.randn(batch, heads, num_keys, value_width, generator=generator)
        mask = causal_mask(num_queries, num_keys) if causal else None
        output, weights = tiled_attention(q, k, v, block_size=block_size, causal=causal)
        assert weights is None
        torch.testing.assert_close(output, F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
                                   atol=1e-5, rtol=1e-5)


def test_block_sizes_that_do_not_divide_and_larger_than_t():
    q, k, v = torch.randn(3, 2, 4, 50, 16)
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    for block_size in [1, 7, 49, 50, 51, 1000]:
        torch.testing.assert_close(tiled_attention(q, k, v, block_size, causal=True)[0], expected, atol=1e-5, rtol=1e-5)


def test_large_scores_do_not_overflow():
    q, k, v = torch.randn(3, 1, 1, 40, 8)
    q = q * 100  # scores in the thousands: exp() would overflow without the running max
    output = tiled_attention(q, k, v, block_size=8)[0]
    assert torch.isfinite(output).all()
    # A score of size s is rounded to within s·eps, and a weight exp(score - max) inherits that error,
    # so two correct implementations agree to a few eps times the largest score, not to 1e-5.
    tolerance = 4 * torch.finfo(q.dtype).eps * (q @ k.transpose(-2, -1)).abs().max().item()
    torch.testing.assert_close(output, F.scaled_dot_product_attention(q, k, v), atol=tolerance, rtol=tolerance)


def test_causal_with_fewer_keys_than_queries_gives_zeros_like_our_attention():
    q, k, v = torch.randn(6, 4), torch.randn(3, 4), torch.randn(3, 4)  # queries 0-2 see no key
    expected, _ = scaled_dot_product_attention(q, k, v, causal_mask(6, 3))
    torch.testing.assert_close(tiled_attention(q, k, v, block_size=2, causal=True)[0], expected)


def test_gradients_match_sdpa():
    q, k, v = (torch.randn(1, 2, 20, 8, requires_grad=True) for _ in range(3))
    tiled_attention(q, k, v, block_size=6, causal=True)[0].square().sum().backward()
    tiled = [t.grad.clone() for t in (q, k, v)]
    for t in (q, k, v):
        t.grad = None
    F.scaled_dot_product_attention(q, k, v, is_causal=True).square().sum().backward()
    for ours, reference in zip(tiled, (q.grad, k.grad, v.grad)):
        torch.testing.assert_close(ours, reference, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("block_size", [0, -3, 2.5])
def test_block_size_below_one_is_an_error(block_size):
    q = torch.randn(4, 8)
    with pytest.raises(ValueError, match=rf"block_size must be an integer >= 1, got {block_size}"):
        tiled_attention(q, q, q, block_size=block_size)


def test_shape_errors():
    with pytest.raises(ValueError, match="query width 8 must equal key width 4"):
        tiled_attention(torch.randn(3, 8), torch.randn(3, 4), torch.randn(3, 4))
    with pytest.raises(ValueError, match="same length, got 3 and 5"):
        tiled_attention(torch.randn(3, 8), torch.randn(3, 8), torch.randn(5, 8))


def test_inputs_are_checked_as_03s_attention_checks_them():
    q = torch.randn(1, 4, 8)
    with pytest.raises(ValueError, match=r"block_size must be an integer >= 1, got 2.5"):
        tiled_attention(q, q, q, block_size=2.5)
    with pytest.raises(ValueError, match=r"query is torch.float32 on cpu but key is torch.float64 on cpu"):
        tiled_attention(q, q.double(), q.double())
    with pytest.raises(ValueError, match="query must be a floating-point tensor"):
        tiled_attention(torch.ones(1, 4, 8, dtype=torch.long), q, q)


@pytest.mark.parametrize("argument", ["scores", "values", "running_max", "running_sum", "running_output"])
def test_online_softmax_step_names_a_state_that_is_no_tensor_of_the_scores_dtype(argument):
    # None raised AttributeError ('amax') or "unsupported operand type(s)", integer values torch's "expected
    # scalar type Float but found Long" (found by the sweep, #37)
    from anatomy.efficient.tiled_attention import online_softmax_step

    state = {"scores": torch.randn(1, 3, 2), "values": torch.randn(1, 2, 4), "running_max": torch.full((1, 3), -torch.inf),
             "running_sum": torch.zeros(1, 3), "running_output": torch.zeros(1, 3, 4)}
    with pytest.raises(TypeError, match=f"{argument} must be a floating-point tensor, got NoneType"):
        online_softmax_step(**{**state, argument: None})
    if argument != "scores":
        with pytest.raises(ValueError, match=f"{argument} must have the dtype of scores \\(torch.float32\\), got torch.float64"):
            online_softmax_step(**{**state, argument: state[argument].double()})
