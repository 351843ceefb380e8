"""Induction heads: a two-layer attention-only model learns to copy from earlier in its context.

Taught in: 17_interpretability.  Shapes: B batch, L layers, H heads, N half length, T = 2N + 1 tokens.
The task (Olsson et al. 2022): a start token, N random tokens, the same N again. The first half cannot be
predicted; the second half can, by a previous-token head (layer 0) and an induction head (layer 1)
that together attend to "the token after the last time this token appeared".
The model is 12's Llama without feed-forward sublayers: rotary positions are relative, so a previous-token
head is quick to learn (with 11's learned absolute positions it takes far longer).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from anatomy.checks import check_tensor, check_type
from anatomy.checks import check_integer
from anatomy.interpret.hooks import Edit, Hooks, blocks
from anatomy.models.llama import Llama, LlamaConfig
from anatomy.tasks.training import token_cross_entropy, train

START = 0  # the start-of-sequence token; random tokens are 1 .. V-1


class NoFeedForward(nn.Module):
    """Adds nothing to the residual stream: x + 0. Makes a layer attention-only."""
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.zeros_like(x)


def attention_only_model(vocab_size: int = 32, half: int = 12, heads: int = 4, seed: int = 0) -> Llama:
    """Two layers of rotary attention, no feed-forward (and no norm before it): every layer only attends."""
    check_integer("half", half, least=2)
    torch.manual_seed(check_integer("seed", seed, least=0))
    model = Llama(LlamaConfig(vocab_size=vocab_size, hidden_size=64, num_attention_heads=heads,
                              num_key_value_heads=heads, num_hidden_layers=2, intermediate_size=1,
                              max_position_embeddings=2 * half + 1))
    for layer in model.layers:
        layer.feed_forward, layer.post_attention_norm = NoFeedForward(), nn.Identity()
    return model


def repeated_tokens(batch_size: int, half: int, vocab_size: int, generator: torch.Generator,
                    lengths: torch.Tensor | None = None) -> torch.Tensor:
    """(B, 2N + 1): START, N random tokens from 1 .. V-1, the same N again. With `lengths` (B,), row b
    repeats only its last lengths[b] tokens: START, 2(N - n) filler tokens, n tokens, the same n again."""
    for name, value, least in (("batch_size", batch_size, 1), ("half", half, 2), ("vocab_size", vocab_size, 3)):
        check_integer(name, value, least)
    n = torch.full((batch_size,), half) if lengths is None else lengths
    if not isinstance(n, torch.Tensor) or n.shape != (batch_size,) or n.is_floating_point() or not ((n >= 1) & (n <= half)).all():
        raise ValueError(f"lengths must be a ({batch_size},) integer tensor in 1 .. half ({half}), got {lengths!r}")
    ids = torch.randint(1, vocab_size, (batch_size, 2 * half + 1), generator=generator)  # (B, T)
    ids[:, 0] = START
    source = torch.arange(2 * half + 1) - n[:, None]  # (B, T): copy the token n places back ...
    repeat = torch.arange(2 * half + 1) > 2 * half - n[:, None]  # ... in the last n places
    return torch.where(repeat, ids.gather(1, source.clamp(min=0)), ids)


def half_losses(logits: torch.Tensor, ids: torch.Tensor, lengths: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean next-token loss on each copy without its unpredictable first token; `lengths` as in repeated_tokens."""
    length = check_tensor("ids", ids, 2, floating=False, shape="(B, T)").size(1)
    check_tensor("logits", logits, 3, floating=True, shape="(B, T, V)")
    n = torch.full((ids.size(0), 1), (length - 1) // 2) if lengths is None else check_tensor("lengths", lengths, 1)[:, None]
    target = torch.arange(1, length)  # the position each loss predicts
    first = (target > length - 2 * n) & (target < length - n)  # (B, T - 1)
    second = target > length - n
    if logits.shape[:2] != ids.shape or not first.any(1).all() or not second.any(1).all():
        raise ValueError(f"ids must be (B, 2N + 1) with halves (lengths) of >= 2 tokens, logits (B, T, V) for them; got ids {tuple(ids.shape)}, lengths {lengths}, logits {tuple(logits.shape)}")
    losses = F.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none")  # (B, T - 1)
    return losses[first].mean(), losses[second].mean()


@dataclass
class InductionRun:
    first_half: list[float] = field(default_factory=list)  # per step
    second_half: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def phase_change_step(self) -> int | None:
        """The first step whose second-half loss is below half the first-half loss, or None."""
        return next((i for i, (a, b) in enumerate(zip(self.first_half, self.second_half)) if b < a / 2), None)


def train_induction(model: Llama, steps: int = 1000, batch_size: int = 32, peak_lr: float = 5e-3,
                    seed: int = 0, progress: bool = False) -> InductionRun:
    """Adam on fresh sequences, each repeating its last n tokens (n from 8 to N per row: with one fixed n, "copy from
    n - 1 back" is a positional rule one layer learns); logs the loss on the first copy and on the repeat."""
    log, generator = InductionRun(), torch.Generator().manual_seed(seed)
    half, vocab = (model.config.max_position_embeddings - 1) // 2, model.config.vocab_size

    def batches():
        while True:
            lengths = torch.randint(min(8, half), half + 1, (batch_size,), generator=generator)
            yield repeated_tokens(batch_size, half, vocab, generator, lengths), lengths

    def loss_fn(m: Llama, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        logits = m(batch[0]).logits
        first, second = half_losses(logits, *batch)
        log.first_half.append(first.item())
        log.second_half.append(second.item())
        return token_cross_entropy(logits[:, :-1], batch[0][:, 1:], ignore_id=-100)

    log.seconds = train(model, batches(), loss_fn, steps, peak_lr=peak_lr, warmup_steps=20, progress=progress).seconds
    return log


def patterns(model: Llama, ids: torch.Tensor) -> torch.Tensor:
    """Every layer's attention weights on `ids`: (L, B, H, T, T)."""
    names = [f"{name}.pattern" for name in blocks(model)]
    with torch.no_grad(), Hooks(model, record=names) as cache:
        model(ids)
    return torch.stack([cache[name] for name in names])


def previous_token_scores(pattern: torch.Tensor) -> torch.Tensor:
    """(L, H): the mean weight each head puts on the token just before the query (Olsson et al. 2022)."""
    pattern = check_tensor("pattern", pattern, rank=5, floating=True, shape="(L, B, H, T, T)")
    return pattern.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(1, -1))  # (L, B, H, T-1) -> (L, H)


def induction_scores(pattern: torch.Tensor) -> torch.Tensor:
    """(L, H): on repeated sequences, the mean weight a second-half query puts on the token right after
    the earlier copy of itself, N - 1 positions back (Olsson et al. 2022)."""
    half = (check_tensor("pattern", pattern, floating=True).size(-1) - 1) // 2
    if pattern.dim() != 5 or pattern.size(-1) != pattern.size(-2) or half < 2 or pattern.size(-1) % 2 == 0:
        raise ValueError(f"pattern must be (L, B, H, T, T) weights on repeated sequences, T = 2N + 1 >= 5, got {tuple(pattern.shape)}")
    return pattern.diagonal(offset=-(half - 1), dim1=-2, dim2=-1)[..., 2:].mean(dim=(1, -1))  # queries N+1..2N


def ablate_heads(heads: int | list[int], means: torch.Tensor | None = None) -> Edit:
    """An edit for "blocks.i.z": the heads' outputs replaced by zeros, or by `means` (T, H, Dh) if given."""
    heads = [heads] if isinstance(heads, int) else list(check_type("heads", heads, list, tuple, range))

    def edit(z: torch.Tensor) -> torch.Tensor:  # (B, T, H, Dh)
        if not all(0 <= h < z.size(2) for h in heads):
            raise ValueError(f"heads must be in 0 .. {z.size(2) - 1}, got {heads}")
        z = z.clone()
        z[:, :, heads] = 0.0 if means is None else means[:, heads].to(z)
        return z
    return edit


@torch.no_grad()
def head_means(model: Llama, ids: torch.Tensor, layer: int) -> torch.Tensor:
    """(T, H, Dh): each head's output at each position, averaged over a batch (for mean ablation)."""
    check_integer("layer", layer, least=0, most=len(blocks(model)) - 1)
    with Hooks(model, record=[f"blocks.{layer}.z"]) as cache:
        model(ids)
    return cache[f"blocks.{layer}.z"].mean(dim=0)


@torch.no_grad()
def in_context_gain(model: Llama, ids: torch.Tensor, edit: dict[str, Edit] | None = None) -> float:
    """First-half loss minus second-half loss (nats): what seeing the sequence once is worth."""
    with Hooks(model, edit=edit):
        first, second = half_losses(model(ids).logits, ids)
    return (first - second).item()
