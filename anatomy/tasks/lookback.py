"""A task whose answer is known, to train adaptive spans on: head h must copy the token seen
lookbacks[h] positions earlier, so head h needs a span of exactly lookbacks[h].

Taught in: 13_efficient_attention.  Shapes: B batch, T tokens, H heads (one per lookback),
Dh head width, V vocabulary.
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from anatomy.efficient.adaptive_span import AdaptiveSpan
from anatomy.checks import check_integer, check_number, check_scores, check_tensor, check_type
from anatomy.layers.embeddings import check_token_ids
from anatomy.efficient.local_masks import key_offsets
from anatomy.layers.masks import causal_mask


@dataclass
class LookbackConfig:
    lookbacks: tuple[int, ...] = (1, 2, 4, 8, 16, 32)  # the span each head needs, one head each
    vocab_size: int = 16  # random tokens 0..V-1
    length: int = 64  # T, tokens per sequence
    head_dim: int = 16  # Dh
    max_span: int = 48  # spans start here and may only shrink below it
    ramp: float = 4.0  # R, positions over which each soft mask falls to 0
    span_penalty: float = 2e-3  # coefficient of the L1 penalty on the spans, per head
    batch_size: int = 16

    def __post_init__(self) -> None:
        for name in ("vocab_size", "length", "head_dim", "max_span", "batch_size"):
            check_integer(name, getattr(self, name))
        if not self.lookbacks or not all(isinstance(d, int) and 1 <= d < self.length for d in self.lookbacks):
            raise ValueError(f"lookbacks must be a non-empty tuple of integers in [1, length = {self.length}), "
                             f"one per head, got {self.lookbacks!r}")
        check_number("ramp", self.ramp, above=0)
        check_number("span_penalty", self.span_penalty, at_least=0)


def lookback_batches(config: LookbackConfig, seed: int = 0) -> Iterator[torch.Tensor]:
    """Endless (B, T) batches of uniformly random tokens."""
    check_type("config", config, LookbackConfig)
    return _lookback_batches(config, torch.Generator().manual_seed(check_integer("seed", seed, least=0)))


def _lookback_batches(config: LookbackConfig, generator: torch.Generator) -> Iterator[torch.Tensor]:
    while True:
        yield torch.randint(config.vocab_size, (config.batch_size, config.length), generator=generator)


class LookbackModel(nn.Module):
    """One causal attention layer, H heads, no mixing between heads: head h's output alone predicts
    target h. Scores are content (q·k / √Dh) plus a learned score per head and distance."""

    def __init__(self, config: LookbackConfig) -> None:
        super().__init__()
        check_type("config", config, LookbackConfig)
        heads, width = len(config.lookbacks), len(config.lookbacks) * config.head_dim
        self.config, self.num_heads = config, heads
        self.embedding = nn.Embedding(config.vocab_size, width)
        self.q_proj, self.k_proj, self.v_proj = (nn.Linear(width, width) for _ in range(3))
        self.distance_scores = nn.Parameter(torch.zeros(heads, config.length))  # (H, T): per offset i − j
        self.span = AdaptiveSpan(heads, config.max_span, config.ramp)
        self.readout = nn.Parameter(torch.randn(heads, config.head_dim, config.vocab_size) / math.sqrt(config.head_dim))

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape
        return x.view(batch, length, self.num_heads, -1).transpose(1, 2)  # (B, H, T, Dh)

    def forward(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, T) tokens -> (logits (B, H, T, V), weights (B, H, T, T)); T at most config.length."""
        check_token_ids(tokens, self.config.vocab_size, "tokens")
        if tokens.size(1) > self.config.length:
            raise ValueError(f"tokens has {tokens.size(1)} positions, more than config.length ({self.config.length}), "
                             "the distances the model has scores for")
        x = self.embedding(tokens)  # (B, T, H*Dh)
        q, k, v = (self.split_heads(proj(x)) for proj in (self.q_proj, self.k_proj, self.v_proj))
        length = tokens.size(1)
        offsets = key_offsets(length, tokens.device).clamp_min(0)  # (T, T)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)) + self.distance_scores[:, offsets]  # (B, H, T, T)
        scores = scores.masked_fill(~causal_mask(length, device=tokens.device), float("-inf"))
        weights = self.span(torch.softmax(scores, dim=-1))  # (B, H, T, T)
        logits = torch.einsum("bhtd,hdv->bhtv", weights @ v, self.readout)  # (B, H, T, V)
        return logits, weights


def lookback_targets(tokens: torch.Tensor, lookbacks: tuple[int, ...]) -> tuple[torch.Tensor, slice]:
    """(B, H, T') targets: token t − lookbacks[h], for the positions t that have one for every head."""
    check_type("lookbacks", lookbacks, tuple, list, what="a tuple of lookbacks, one per head")
    if not lookbacks or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in lookbacks):
        raise ValueError(f"lookbacks must be a non-empty tuple of integers >= 1, one per head, got {lookbacks!r}")
    start = max(lookbacks)
    if check_tensor("tokens", tokens, floating=False).dim() != 2 or tokens.size(1) <= start:
        raise ValueError(f"tokens must be (B, T) with T > the longest lookback ({start}), got shape {tuple(tokens.shape)}")
    return torch.stack([tokens[:, start - d:tokens.size(1) - d] for d in lookbacks], dim=1), slice(start, None)


def lookback_loss(model: LookbackModel, tokens: torch.Tensor) -> torch.Tensor:
    """Cross-entropy summed over the heads, plus the span penalty."""
    logits, _ = check_type("model", model, LookbackModel)(tokens)
    targets, positions = lookback_targets(tokens, model.config.lookbacks)  # (B, H, T')
    loss = F.cross_entropy(logits[:, :, positions].flatten(0, 2), targets.flatten(), reduction="mean")
    return loss * model.num_heads + model.config.span_penalty * model.span.penalty()


@torch.no_grad()
def lookback_accuracy(model: LookbackModel, tokens: torch.Tensor) -> torch.Tensor:
    """(H,) fraction of targets each head gets right."""
    logits, _ = check_type("model", model, LookbackModel)(tokens)
    targets, positions = lookback_targets(tokens, model.config.lookbacks)
    check_scores(logits)  # an argmax of NaN is no answer
    return (logits[:, :, positions].argmax(-1) == targets).float().mean(dim=(0, 2))
