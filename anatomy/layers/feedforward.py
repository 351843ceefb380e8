"""The position-wise feed-forward network: the same two-layer MLP applied to every token.

Taught in: 05_encoder.  Shapes: B batch, T tokens, D model width, F intermediate width.
"""
from __future__ import annotations

from typing import Any

import torch
from torch import nn

from anatomy.layers.config import require

ACTIVATIONS = {"gelu": nn.GELU, "gelu_new": lambda: nn.GELU(approximate="tanh"), "relu": nn.ReLU}


def check_hidden_states(x: torch.Tensor, width: int, rank: int | None = None) -> None:
    """Raise unless `x` is a floating-point (..., D) tensor with D = `width` (and `rank` dims, if given)."""
    wanted = f"(B, T, {width})" if rank == 3 else f"(..., {width})"
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a {wanted} tensor, got {type(x).__name__}")
    if not x.is_floating_point() or x.dim() == 0 or x.size(-1) != width or (rank is not None and x.dim() != rank):
        raise ValueError(f"x must be a floating-point {wanted} tensor, got shape {tuple(x.shape)}, dtype {x.dtype}")


class FeedForward(nn.Module):
    """linear_1 (D -> F) -> activation -> linear_2 (F -> D) -> dropout."""

    def __init__(self, config: Any) -> None:
        super().__init__()
        config = require(config, "hidden_size", "intermediate_size")
        activation = getattr(config, "hidden_act", "gelu")
        if activation not in ACTIVATIONS:
            raise ValueError(f"hidden_act {activation!r} is not one of {sorted(ACTIVATIONS)}")
        self.linear_1 = nn.Linear(config.hidden_size, config.intermediate_size)
        self.activation = ACTIVATIONS[activation]()
        self.linear_2 = nn.Linear(config.intermediate_size, config.hidden_size)
        self.dropout = nn.Dropout(getattr(config, "hidden_dropout_prob", 0.1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_hidden_states(x, self.linear_1.in_features)
        hidden = self.activation(self.linear_1(x))  # (B, T, F)
        return self.dropout(self.linear_2(hidden))  # (B, T, D)
