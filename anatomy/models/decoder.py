"""The Transformer decoder: masked self-attention, cross-attention to the encoder, feed-forward.

Taught in: 06_decoder.  Shapes: B batch, H heads, Tt target tokens, Ts source tokens, D model width.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from anatomy.layers.config import require
from anatomy.layers.feedforward import FeedForward
from anatomy.layers.multihead import MultiHeadAttention


def check_memory(memory: torch.Tensor | None, x: torch.Tensor) -> None:
    if not isinstance(x, torch.Tensor) or x.dim() != 3:
        raise ValueError(f"the decoder's input x must be a (B, Tt, D) tensor, got "
                         f"{tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__}")
    if memory is None:
        raise ValueError("the decoder needs the encoder's output `memory` (B, Ts, D) for its "
                         "cross-attention; got None. Run the encoder first: memory = model.encode(src_ids)")
    if memory.dim() != 3 or memory.size(0) != x.size(0) or memory.size(-1) != x.size(-1):
        raise ValueError(f"memory must be (B, Ts, D) = ({x.size(0)}, Ts, {x.size(-1)}), "
                         f"got shape {tuple(memory.shape)}")


class TransformerDecoderLayer(nn.Module):
    """Masked self-attention, then cross-attention (queries from the decoder, keys and values from
    the encoder's memory), then feed-forward; each with a residual connection and a LayerNorm.

    norm_first=False is post-LN (the paper): x = norm(x + sublayer(x)).
    norm_first=True is pre-LN: x = x + sublayer(norm(x)).
    """

    def __init__(self, config: Any, norm_first: bool = False) -> None:
        super().__init__()
        config = require(config, "hidden_size", "num_attention_heads", "intermediate_size")
        eps = getattr(config, "layer_norm_eps", 1e-12)
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(config)
        self.layer_norm_1 = nn.LayerNorm(config.hidden_size, eps=eps)
        self.cross_attn = MultiHeadAttention(config)
        self.layer_norm_2 = nn.LayerNorm(config.hidden_size, eps=eps)
        self.feed_forward = FeedForward(config)
        self.layer_norm_3 = nn.LayerNorm(config.hidden_size, eps=eps)
        self.dropout = nn.Dropout(getattr(config, "hidden_dropout_prob", 0.1))

    def forward(self, x: torch.Tensor, memory: torch.Tensor, self_mask: torch.Tensor | None = None,
                memory_mask: torch.Tensor | None = None, need_weights: bool = True
                ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        """x (B, Tt, D), memory (B, Ts, D); self_mask broadcasts to (B, H, Tt, Tt) and should be
        causal; memory_mask to (B, H, Tt, Ts). Returns (x, self weights, cross weights)."""
        check_memory(memory, x)
        if self.norm_first:
            attended, self_weights = self.self_attn(self.layer_norm_1(x), mask=self_mask,
                                                    need_weights=need_weights)
            x = x + self.dropout(attended)
            attended, cross_weights = self.cross_attn(self.layer_norm_2(x), memory, mask=memory_mask,
                                                      need_weights=need_weights)
            x = x + self.dropout(attended)
            return x + self.feed_forward(self.layer_norm_3(x)), self_weights, cross_weights
        attended, self_weights = self.self_attn(x, mask=self_mask, need_weights=need_weights)
        x = self.layer_norm_1(x + self.dropout(attended))  # (B, Tt, D)
        attended, cross_weights = self.cross_attn(x, memory, mask=memory_mask, need_weights=need_weights)
        x = self.layer_norm_2(x + self.dropout(attended))  # (B, Tt, D): one row per target token
        return self.layer_norm_3(x + self.feed_forward(x)), self_weights, cross_weights


@dataclass
class DecoderOutput:
    last_hidden_state: torch.Tensor  # (B, Tt, D)
    self_attentions: tuple[torch.Tensor, ...] | None = None  # one (B, H, Tt, Tt) per layer
    cross_attentions: tuple[torch.Tensor, ...] | None = None  # one (B, H, Tt, Ts) per layer


class TransformerDecoder(nn.Module):
    """N decoder layers, then a final LayerNorm if final_norm (pre-LN models need it;
    torch.nn.Transformer always has one)."""

    def __init__(self, config: Any, norm_first: bool = False, final_norm: bool | None = None) -> None:
        super().__init__()
        config = require(config, "num_decoder_layers", "hidden_size", "num_attention_heads", "intermediate_size")
        self.layers = nn.ModuleList(TransformerDecoderLayer(config, norm_first)
                                    for _ in range(config.num_decoder_layers))
        final_norm = norm_first if final_norm is None else final_norm
        self.final_norm = (nn.LayerNorm(config.hidden_size, eps=getattr(config, "layer_norm_eps", 1e-12))
                           if final_norm else nn.Identity())

    def forward(self, x: torch.Tensor, memory: torch.Tensor, self_mask: torch.Tensor | None = None,
                memory_mask: torch.Tensor | None = None, output_attentions: bool = False) -> DecoderOutput:
        self_attentions, cross_attentions = [], []
        for layer in self.layers:
            x, self_weights, cross_weights = layer(x, memory, self_mask, memory_mask,
                                                   need_weights=output_attentions)
            self_attentions.append(self_weights)
            cross_attentions.append(cross_weights)
        if not output_attentions:
            return DecoderOutput(self.final_norm(x))
        return DecoderOutput(self.final_norm(x), tuple(self_attentions), tuple(cross_attentions))
