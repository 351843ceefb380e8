"""Token + position (+ token type) embeddings, and the paper's sinusoidal positions.

Taught in: 02_embeddings (SinusoidalEmbeddings: 06_decoder; LearnedPositionEmbeddings: 07_training).  Shapes: B batch, T tokens, D model width.
"""
from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from anatomy.checks import check_number
from anatomy.layers.config import require


def check_token_ids(input_ids: torch.Tensor, vocab_size: int, name: str = "input_ids") -> None:
    """Raise unless `input_ids` is a (B, T) tensor of integers in [0, vocab_size)."""
    if not isinstance(input_ids, torch.Tensor):
        raise TypeError(f"{name} must be a (B, T) tensor, got {type(input_ids).__name__}; "
                        "from a tokenizer use tokenizer(texts, return_tensors='pt')")
    if input_ids.dim() != 2 or input_ids.size(1) == 0:
        hint = f"; for one sequence pass {name}[None], shape (1, T)" if input_ids.dim() == 1 else ""
        raise ValueError(f"{name} must be (B, T) with at least one token, got shape {tuple(input_ids.shape)}{hint}")
    if input_ids.dtype.is_floating_point or input_ids.dtype.is_complex or input_ids.dtype == torch.bool:
        raise ValueError(f"{name} must be an integer tensor, got dtype {input_ids.dtype}")
    if input_ids.numel() and (input_ids.min() < 0 or input_ids.max() >= vocab_size):
        raise ValueError(f"{name} must lie in [0, {vocab_size}), got values from "
                         f"{int(input_ids.min())} to {int(input_ids.max())}")


class Embeddings(nn.Module):
    """BERT's input layer: token + learned position + token type, then LayerNorm and dropout."""

    def __init__(self, config: Any) -> None:
        super().__init__()
        config = require(config, "vocab_size", "hidden_size", "max_position_embeddings")
        self.vocab_size = config.vocab_size
        self.max_positions = config.max_position_embeddings
        self.type_vocab_size = getattr(config, "type_vocab_size", 0) or 0
        self.token_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = (nn.Embedding(self.type_vocab_size, config.hidden_size)
                                      if self.type_vocab_size else None)
        self.layer_norm = nn.LayerNorm(config.hidden_size, eps=getattr(config, "layer_norm_eps", 1e-12))
        self.dropout = nn.Dropout(getattr(config, "hidden_dropout_prob", 0.1))

    @classmethod
    def from_pretrained(cls, checkpoint: str | None = None) -> Embeddings:
        """The embedding layer of a BERT checkpoint (default: the bundled model), in eval mode."""
        from anatomy.weights.bert_weights import EMBEDDINGS, copy_weights, load_config, read_state_dict

        embeddings = cls(load_config(checkpoint))
        copy_weights(embeddings, read_state_dict(checkpoint), EMBEDDINGS)
        return embeddings.eval()

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor | None = None) -> torch.Tensor:
        check_token_ids(input_ids, self.vocab_size)
        seq_len = input_ids.size(1)
        if seq_len > self.max_positions:
            raise ValueError(f"input has {seq_len} tokens, more than max_position_embeddings "
                             f"({self.max_positions}); truncate it (tokenizer(..., truncation=True))")
        x = self.token_embeddings(input_ids)  # (B, T, D)
        if self.token_type_embeddings is not None:
            if token_type_ids is None:
                token_type_ids = torch.zeros_like(input_ids)
            if token_type_ids.shape != input_ids.shape:
                raise ValueError(f"token_type_ids shape {tuple(token_type_ids.shape)} must equal "
                                 f"input_ids shape {tuple(input_ids.shape)}")
            check_token_ids(token_type_ids, self.type_vocab_size, "token_type_ids")
            x = x + self.token_type_embeddings(token_type_ids)
        elif token_type_ids is not None:
            raise ValueError("token_type_ids given, but the config has no type_vocab_size")
        position_ids = torch.arange(seq_len, device=input_ids.device)  # (T,) on the input's device
        x = x + self.position_embeddings(position_ids)  # (B, T, D)
        return self.dropout(self.layer_norm(x))  # (B, T, D)


def check_even_width(dim: int) -> None:
    if not isinstance(dim, int) or dim <= 0 or dim % 2:
        raise ValueError(f"dim must be a positive even number, got {dim!r}")


def sinusoidal_positions(num_positions: int, dim: int, base: float = 10000.0) -> torch.Tensor:
    """PE[p, 2i] = sin(p / base^(2i/D)), PE[p, 2i+1] = cos(p / base^(2i/D)); shape (T, D)."""
    check_even_width(dim)
    if not isinstance(num_positions, int) or num_positions < 0:
        raise ValueError(f"num_positions must be an integer >= 0, got {num_positions!r}")
    check_number("base", base, above=0)
    position = torch.arange(num_positions, dtype=torch.float64).unsqueeze(1)  # (T, 1)
    frequency = torch.exp(-math.log(base) * torch.arange(0, dim, 2, dtype=torch.float64) / dim)  # (D/2,)
    encoding = torch.zeros(num_positions, dim, dtype=torch.float64)
    encoding[:, 0::2] = torch.sin(position * frequency)
    encoding[:, 1::2] = torch.cos(position * frequency)
    return encoding.float()  # (T, D)


def position_shift_matrix(offset: int, dim: int, base: float = 10000.0) -> torch.Tensor:
    """The fixed (D, D) matrix M with PE[p + offset] = M @ PE[p] for every p: a rotation per pair."""
    check_even_width(dim)
    check_number("offset", offset)
    check_number("base", base, above=1.0)
    frequency = torch.exp(-math.log(base) * torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    cos, sin = torch.cos(offset * frequency), torch.sin(offset * frequency)
    matrix = torch.zeros(dim, dim, dtype=torch.float64)
    matrix[0::2, 0::2] = torch.diag(cos)
    matrix[0::2, 1::2] = torch.diag(sin)
    matrix[1::2, 0::2] = torch.diag(-sin)
    matrix[1::2, 1::2] = torch.diag(cos)
    return matrix.float()


class SinusoidalEmbeddings(nn.Module):
    """The paper's input layer (section 3.4): token embedding x sqrt(D) + fixed sinusoidal positions,
    then dropout. No learned positions, no token types, no LayerNorm."""

    BEYOND = ("; sinusoids exist for every position: a config with a larger max_position_embeddings "
              "loads the same weights (the table is not saved)")

    def __init__(self, config: Any) -> None:
        super().__init__()
        config = require(config, "vocab_size", "hidden_size", "max_position_embeddings")
        self.vocab_size = config.vocab_size
        self.scale = math.sqrt(config.hidden_size)
        self.token_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        positions = sinusoidal_positions(config.max_position_embeddings, config.hidden_size)
        self.register_buffer("positions", positions, persistent=False)  # (max T, D), moves with .to()
        self.dropout = nn.Dropout(getattr(config, "hidden_dropout_prob", 0.1))

    def forward(self, input_ids: torch.Tensor, name: str = "input_ids") -> torch.Tensor:
        check_token_ids(input_ids, self.vocab_size, name)
        if input_ids.size(1) > len(self.positions):
            raise ValueError(f"{name} has {input_ids.size(1)} tokens, more than max_position_embeddings "
                             f"({len(self.positions)}){self.BEYOND}")
        x = self.token_embeddings(input_ids) * self.scale  # (B, T, D)
        return self.dropout(x + self.positions[: input_ids.size(1)])  # (B, T, D)


class LearnedPositionEmbeddings(SinusoidalEmbeddings):
    """The paper's Table 3, row E: the same input layer with a trained (max T, D) position table in place
    of the sinusoids. A row that no training input reached keeps its initial random values, and there
    is no row past max_position_embeddings."""

    BEYOND = "; a learned position table has no row past its last one: shorten the input or train a longer table"

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        del self.positions  # the sinusoid buffer, replaced by a parameter of the same shape
        self.positions = nn.Parameter(torch.empty(config.max_position_embeddings, config.hidden_size))
        self.reset_parameters()

    @torch.no_grad()
    def reset_parameters(self) -> None:
        """N(0, 1/2): entries as large on average as a sinusoid's (root mean square 1/sqrt(2))."""
        nn.init.normal_(self.positions, std=0.5 ** 0.5)
