"""Adaptive attention span (Sukhbaatar et al., 2019): each head learns how far back it looks.

Taught in: 13_efficient_attention.  Shapes: ... leading (batch) dims, H heads, Tq queries, Tk keys.

A head's span z is a learned number of positions. The soft mask m_z(x) = clamp((R + z − x) / R, 0, 1)
is 1 for keys up to z positions away, falls linearly to 0 over the next R (the ramp), and is 0
beyond z + R, so z gets a gradient from the keys on the ramp. An L1 penalty on the spans pays each
head to look no further than it must; keys beyond every head's z + R need never be computed.
"""
from __future__ import annotations

import torch
from torch import nn

from anatomy.checks import check_integer, check_number, check_tensor


def _clamp_unit(x: torch.Tensor) -> torch.Tensor:
    """clamp(x, 0, 1) whose gradient is 1 on the bounds too (0 only outside them), on every torch: 2.15's clamp
    passes none at a bound, so a span that starts at max_span (fraction exactly 1) would never move."""
    inside = (x >= 0) & (x <= 1)
    return torch.where(inside, x, x.detach().clamp(0.0, 1.0))


def span_mask(distance: torch.Tensor, span: torch.Tensor, ramp: float) -> torch.Tensor:
    """m_z(x) = clamp((R + z − x) / R, 0, 1), for distances x and spans z that broadcast together."""
    check_number("ramp", ramp, above=0, hint=" (R, the positions over which the mask falls to 0)")
    check_tensor("distance", distance)
    check_tensor("span", span)
    return _clamp_unit((ramp + span - distance) / ramp)


class AdaptiveSpan(nn.Module):
    """A learnable span per head, applied to attention weights (..., H, Tq, Tk).

    forward(weights) multiplies each head's weights by its soft mask and renormalises the rows, which
    equals a softmax over m_z(x)·exp(score), the paper's definition. penalty() is Σ_h z_h, to add to
    the loss times a small coefficient. The span is stored as a fraction of max_span (the paper's
    parametrisation), so one learning rate suits spans of 2 and of 2,000.
    """

    def __init__(self, num_heads: int, max_span: int, ramp: float = 32.0,
                 initial_span: float | None = None) -> None:
        super().__init__()
        check_integer("num_heads", num_heads)
        check_integer("max_span", max_span)
        check_number("ramp", ramp, above=0, hint=" (R, the positions over which the mask falls to 0)")
        initial_span = max_span if initial_span is None else check_number("initial_span", initial_span, at_least=0,
                                                                           at_most=max_span)
        self.max_span, self.ramp = max_span, ramp
        self.span_fraction = nn.Parameter(torch.full((num_heads,), initial_span / max_span))  # (H,)

    @property
    def spans(self) -> torch.Tensor:
        """(H,) the learned spans z, in positions, within [0, max_span]."""
        return self.max_span * _clamp_unit(self.span_fraction)

    def mask(self, num_queries: int, num_keys: int) -> torch.Tensor:
        """(H, Tq, Tk) soft masks; the distance is |i − j| with queries aligned to the last keys."""
        device = self.span_fraction.device
        query_pos = torch.arange(num_keys - num_queries, num_keys, device=device)  # (Tq,)
        distance = (query_pos[:, None] - torch.arange(num_keys, device=device)[None, :]).abs()  # (Tq, Tk)
        return span_mask(distance, self.spans[:, None, None], self.ramp)  # (H, Tq, Tk)

    def forward(self, weights: torch.Tensor) -> torch.Tensor:
        if not isinstance(weights, torch.Tensor) or weights.dim() < 3 or weights.size(-3) != self.span_fraction.numel():
            raise ValueError(f"weights must be (..., H={self.span_fraction.numel()}, Tq, Tk), "
                             f"got shape {tuple(weights.shape)}")
        masked = weights * self.mask(weights.size(-2), weights.size(-1))  # (..., H, Tq, Tk)
        return masked / masked.sum(dim=-1, keepdim=True).clamp_min(1e-12)  # rows sum to 1 again

    def penalty(self) -> torch.Tensor:
        """Σ_h z_h, the L1 norm of the spans (they are never negative)."""
        return self.spans.sum()
