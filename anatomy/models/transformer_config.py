"""The settings of the paper's Transformer, checked when they are made.

Taught in: 06_decoder (and 07_training, which picks a small one).  Sizes: D = hidden_size model
width, H heads, F = intermediate_size feed-forward width, V = vocab_size.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from anatomy.layers.config import check_divisible, check_layer_settings, from_fields, require
from anatomy.layers.feedforward import ACTIVATIONS

POSITION_EMBEDDINGS = ("sinusoidal", "learned")  # the paper's fixed sinusoids; a trained table (Table 3, row E)


@dataclass
class TransformerConfig:
    """Defaults are the paper's base model (Table 3) with its shared 37,000-token BPE vocabulary."""
    vocab_size: int = 37000
    hidden_size: int = 512
    num_attention_heads: int = 8
    intermediate_size: int = 2048
    num_encoder_layers: int = 6
    num_decoder_layers: int = 6
    hidden_act: str = "relu"
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.0
    layer_norm_eps: float = 1e-5
    max_position_embeddings: int = 512
    position_embedding: str = "sinusoidal"  # or "learned" (notebook 07 compares them)
    norm_first: bool = False
    final_norm: bool = False  # torch.nn.Transformer always ends both stacks with one; the paper does not
    tie_embeddings: bool = True  # source, target and output projection share one (V, D) matrix
    pad_token_id: int = 0
    bos_token_id: int = 1
    eos_token_id: int = 2

    def __post_init__(self) -> None:
        require(self, "vocab_size", "hidden_size", "num_attention_heads", "intermediate_size",
                "num_encoder_layers", "num_decoder_layers", "max_position_embeddings")
        check_divisible(self.hidden_size, self.num_attention_heads)
        check_layer_settings(self, ACTIVATIONS)
        if self.position_embedding not in POSITION_EMBEDDINGS:
            raise ValueError(f"position_embedding must be one of {list(POSITION_EMBEDDINGS)}, got "
                             f"{self.position_embedding!r}: 'sinusoidal' for the paper's fixed sinusoids, "
                             "'learned' for a trained table")
        for name in ("pad_token_id", "bos_token_id", "eos_token_id"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 0 <= value < self.vocab_size:
                raise ValueError(f"{name} must be a token id in [0, vocab_size) = [0, {self.vocab_size}), "
                                 f"got {value!r}")

    @classmethod
    def from_dict(cls, fields: Mapping[str, Any]) -> TransformerConfig:
        """A TransformerConfig from a dict of its fields; unknown field names are refused by name."""
        return from_fields(cls, fields)
