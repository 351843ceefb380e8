"""SwiGLU: the gated feed-forward network of Llama, in place of 05's GELU MLP.

Taught in: 12_modern_block.  Shapes: B batch, T tokens, D model width, F intermediate width.
down_proj( silu(gate_proj(x)) * up_proj(x) ): one projection decides, per hidden unit, how much of
the other passes. Three (D, F) matrices instead of two, so Llama picks F ~ 8D/3 to keep the count.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from anatomy.checks import check_integer
from anatomy.layers.feedforward import check_hidden_states


class SwiGLU(nn.Module):
    def __init__(self, hidden_size: int, intermediate_size: int) -> None:
        super().__init__()
        check_integer("hidden_size", hidden_size)
        check_integer("intermediate_size", intermediate_size)
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_hidden_states(x, self.gate_proj.in_features)
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))  # (B, T, F) -> (B, T, D)
