"""The Transformer encoder: embeddings, then N layers of self-attention and feed-forward.

Taught in: 05_encoder.  Shapes: B batch, H heads, T tokens, D model width.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from anatomy.layers.config import require
from anatomy.layers.embeddings import Embeddings
from anatomy.layers.feedforward import FeedForward
from anatomy.layers.kv_cache import LayerCache
from anatomy.layers.masks import padding_mask
from anatomy.layers.multihead import MultiHeadAttention


class TransformerEncoderLayer(nn.Module):
    """Self-attention and feed-forward, each wrapped in a residual connection and a LayerNorm.

    norm_first=False is post-LN (the paper, BERT): x = norm(x + sublayer(x)).
    norm_first=True is pre-LN (GPT-2; Tunstall et al. 2022, ch. 3): x = x + sublayer(norm(x)).
    """

    def __init__(self, config: Any, norm_first: bool = False) -> None:
        super().__init__()
        config = require(config, "hidden_size", "num_attention_heads", "intermediate_size")
        eps = getattr(config, "layer_norm_eps", 1e-12)
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(config)
        self.layer_norm_1 = nn.LayerNorm(config.hidden_size, eps=eps)
        self.feed_forward = FeedForward(config)
        self.layer_norm_2 = nn.LayerNorm(config.hidden_size, eps=eps)
        self.dropout = nn.Dropout(getattr(config, "hidden_dropout_prob", 0.1))

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = True,
                cache: LayerCache | None = None) -> tuple[torch.Tensor, torch.Tensor | None]:
        """`cache` (11_gpt): this layer's keys and values from earlier tokens, for self-attention."""
        if self.norm_first:
            attended, weights = self.self_attn(self.layer_norm_1(x), mask=mask, need_weights=need_weights,
                                               cache=cache)
            x = x + self.dropout(attended)
            return x + self.feed_forward(self.layer_norm_2(x)), weights  # (B, T, D)
        attended, weights = self.self_attn(x, mask=mask, need_weights=need_weights, cache=cache)
        x = self.layer_norm_1(x + self.dropout(attended))
        return self.layer_norm_2(x + self.feed_forward(x)), weights  # (B, T, D)


@dataclass
class EncoderOutput:
    last_hidden_state: torch.Tensor  # (B, T, D)
    attentions: tuple[torch.Tensor, ...] | None = None  # one (B, H, T, T) per layer


class TransformerEncoder(nn.Module):
    """Embeddings + N encoder layers; with norm_first, a final LayerNorm as pre-LN models need."""

    def __init__(self, config: Any, norm_first: bool = False) -> None:
        super().__init__()
        config = require(config, "num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size")
        self.config = config
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList(TransformerEncoderLayer(config, norm_first)
                                    for _ in range(config.num_hidden_layers))
        self.final_norm = (nn.LayerNorm(config.hidden_size, eps=getattr(config, "layer_norm_eps", 1e-12))
                           if norm_first else nn.Identity())

    @classmethod
    def from_pretrained(cls, checkpoint: str | None = None) -> TransformerEncoder:
        """Our encoder holding a BERT checkpoint's weights (default: the bundled MiniLM), in eval mode."""
        from anatomy.weights.bert_weights import copy_weights, encoder_name_map, load_config, read_state_dict

        config = load_config(checkpoint)
        encoder = cls(config)
        copy_weights(encoder, read_state_dict(checkpoint), encoder_name_map(config.num_hidden_layers), complete=True)
        return encoder.eval()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                token_type_ids: torch.Tensor | None = None, output_attentions: bool = False) -> EncoderOutput:
        """Hugging Face's argument order (BertModel): encoder(input_ids, attention_mask) reads the mask as a mask."""
        x = self.embeddings(input_ids, token_type_ids)  # (B, T, D)
        mask = None
        if attention_mask is not None:
            if not isinstance(attention_mask, torch.Tensor):
                raise TypeError(f"attention_mask must be a (B, T) tensor of 1s and 0s, got {type(attention_mask).__name__}")
            if attention_mask.shape != input_ids.shape:
                raise ValueError(f"attention_mask shape {tuple(attention_mask.shape)} must equal "
                                 f"input_ids shape {tuple(input_ids.shape)}")
            mask = padding_mask(attention_mask)  # (B, 1, 1, T)
        attentions = []
        for layer in self.layers:
            x, weights = layer(x, mask, need_weights=output_attentions)
            attentions.append(weights)
        return EncoderOutput(self.final_norm(x), tuple(attentions) if output_attentions else None)
