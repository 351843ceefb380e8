import pytest
import torch

from anatomy import scaled_dot_product_attention
from anatomy.efficient.adaptive_span import AdaptiveSpan, span_mask


def test_span_mask_is_one_inside_zero_beyond_and_linear_between():
    distance = torch.arange(0, 30, 0.25)
    span, ramp = torch.tensor(10.0), 4.0
    mask = span_mask(distance, span, ramp)
    assert (mask[distance <= span] == 1).all()
    assert (mask[distance >= span + ramp] == 0).all()
    on_ramp = (distance > span) & (distance < span + ramp)
    expected = 1 - (distance[on_ramp] - span) / ramp  # the straight line from (z, 1) to (z + R, 0)
    torch.testing.assert_close(mask[on_ramp], expected)
    assert (mask[on_ramp] > 0).all() and (mask[on_ramp] < 1).all()


def test_gradient_reaches_the_span_only_through_the_ramp():
    span = torch.tensor(10.0, requires_grad=True)
    span_mask(torch.tensor([11.0, 12.5]), span, ramp=4.0).sum().backward()
    torch.testing.assert_close(span.grad, torch.tensor(2 / 4.0))  # each ramp key: d m / d z = 1 / R
    span.grad = None
    span_mask(torch.tensor([3.0, 20.0]), span, ramp=4.0).sum().backward()  # inside and beyond: flat
    assert span.grad == 0


def test_module_equals_the_papers_masked_softmax_and_trains_its_span():
    heads, length = 3, 20
    span = AdaptiveSpan(heads, max_span=16, ramp=4.0, initial_span=6.0)
    scores = torch.randn(2, heads, length, length)
    weights = span(torch.softmax(scores, dim=-1))
    positions = torch.arange(length)
    distance = (positions[:, None] - positions[None, :]).abs()
    mask = span_mask(distance, torch.full((heads, 1, 1), 6.0), 4.0)  # (H, T, T)
    expected = mask * scores.exp() / (mask * scores.exp()).sum(-1, keepdim=True)  # Sukhbaatar et al., eq. 3
    torch.testing.assert_close(weights, expected)
    assert (weights[..., distance >= 10] == 0).all()
    (weights * torch.randn_like(weights)).sum().backward()  # (rows sum to 1, so not weights.sum())
    assert span.span_fraction.grad.abs().min() > 0  # every head's span gets a gradient


def test_a_span_on_its_bounds_still_learns_on_every_torch():
    """Spans start at max_span, a fraction of exactly 1, and torch 2.15's clamp passes no gradient on a bound:
    every span of notebook 13 stayed at 48 on Colab. The gradient reaches a span on either bound, not beyond."""
    span = AdaptiveSpan(3, max_span=48, ramp=4.0)
    assert span.span_fraction.tolist() == [1.0, 1.0, 1.0]
    with torch.no_grad():
        span.span_fraction.copy_(torch.tensor([1.0, 0.0, 1.5]))
    span.penalty().backward()
    torch.testing.assert_close(span.span_fraction.grad, torch.tensor([48.0, 48.0, 0.0]))
    assert span.spans.tolist() == [48.0, 0.0, 48.0]
    z = torch.tensor(10.0, requires_grad=True)
    span_mask(torch.tensor([10.0, 14.0]), z, ramp=4.0).sum().backward()  # the ramp's two ends: 1 and 0
    torch.testing.assert_close(z.grad, torch.tensor(2 / 4.0))


def test_a_span_covering_everything_changes_nothing_and_penalty_is_the_sum():
    span = AdaptiveSpan(2, max_span=50, ramp=2.0, initial_span=50.0)
    q, k, v = torch.randn(3, 1, 2, 10, 4)
    _, weights = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(span(weights), weights)
    torch.testing.assert_close(span.penalty(), torch.tensor(100.0))


@pytest.mark.parametrize("ramp", [0.0, -1.0])
def test_ramp_must_be_positive(ramp):
    with pytest.raises(ValueError, match=rf"ramp must be a finite number > 0, got {ramp} \(R, the positions"):
        span_mask(torch.arange(3.0), torch.tensor(1.0), ramp)
    with pytest.raises(ValueError, match=rf"ramp must be a finite number > 0, got {ramp} \(R, the positions"):
        AdaptiveSpan(2, 8, ramp=ramp)


def test_bad_module_inputs():
    with pytest.raises(ValueError, match="max_span must be an integer >= 1, got 0"):
        AdaptiveSpan(2, 0)
    with pytest.raises(ValueError, match=r"weights must be \(..., H=2, Tq, Tk\), got shape \(1, 3, 4, 4\)"):
        AdaptiveSpan(2, 8)(torch.ones(1, 3, 4, 4))


def test_settings_out_of_range_are_refused_where_they_are_made():
    with pytest.raises(ValueError, match=r"initial_span must be a finite number >= 0 and <= 8, got 12"):
        AdaptiveSpan(2, max_span=8, initial_span=12)
    with pytest.raises(ValueError, match="num_heads must be an integer >= 1, got 2.5"):
        AdaptiveSpan(2.5, max_span=8)
    with pytest.raises(ValueError, match="max_span must be an integer >= 1, got 8.5"):
        AdaptiveSpan(2, max_span=8.5)
    assert AdaptiveSpan(2, max_span=8, initial_span=8).spans.tolist() == [8.0, 8.0]


@pytest.mark.parametrize("argument", ["distance", "span"])
def test_span_mask_names_a_distance_or_span_that_is_no_tensor(argument):
    # None raised "unsupported operand type(s) for -: 'Tensor' and 'NoneType'" (found by the sweep, #37)
    arguments = {"distance": torch.arange(6.0), "span": torch.tensor([[2.0], [4.0]]), argument: None}
    with pytest.raises(TypeError, match=f"{argument} must be a tensor, got NoneType"):
        span_mask(arguments["distance"], arguments["span"], 2.0)
