"""RMSNorm: LayerNorm without the mean and without the bias, as in Llama.

Taught in: 12_modern_block.  Shapes: B batch, T tokens, D model width.
LayerNorm: (x - mean) / std x weight + bias.  RMSNorm: x / sqrt(mean(x^2) + eps) x weight.
Cheaper (one statistic, not two) and, in practice, just as stable.
"""
from __future__ import annotations

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        root_mean_square = x.pow(2).mean(dim=-1, keepdim=True).add(self.eps).sqrt()  # (B, T, 1)
        return self.weight * (x / root_mean_square)  # (B, T, D)
