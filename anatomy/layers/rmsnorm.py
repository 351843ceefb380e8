"""RMSNorm: LayerNorm without the mean and without the bias, as in Llama.

Taught in: 12_modern_block.  Shapes: B batch, T tokens, D model width.
LayerNorm: (x - mean) / std x weight + bias.  RMSNorm: x / sqrt(mean(x^2) + eps) x weight.
Cheaper (one statistic, not two) and, in practice, just as stable.
"""
from __future__ import annotations

import torch
from torch import nn

from anatomy.checks import check_integer, check_number
from anatomy.layers.feedforward import check_hidden_states


class RMSNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float = 1e-6) -> None:
        super().__init__()
        check_integer("hidden_size", hidden_size)
        check_number("eps", eps, above=0, hint=" (it keeps x / rms(x) finite when x is all zeros; 1e-6 is usual)")
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_hidden_states(x, self.weight.numel())
        root_mean_square = x.pow(2).mean(dim=-1, keepdim=True).add(self.eps).sqrt()  # (B, T, 1)
        return self.weight * (x / root_mean_square)  # (B, T, D)
