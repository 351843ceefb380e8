"""A control inside layer 1: induction heads beside heads of the same layer that do other work.

Taught in: 17_interpretability.  Shapes: B batch, L layers, H heads, N half length, T = 2N + 1 tokens.
Trained on repeated random tokens alone, every head of layer 1 becomes an induction head, so ablating "the
induction heads" removes all of layer 1. Here a share of the rows is English (Python's docstrings, its
characters folded into the same ids as the random tokens), where predicting the next character pays for
looking at the last few characters: with eight heads per layer, some heads of layer 1 do that instead.
"""
from __future__ import annotations

import collections

import torch
import torch.nn.functional as F

from anatomy.checks import check_integer, check_number, check_tensor, check_type
from anatomy.corpora import stdlib_sentences
from anatomy.interpret.hooks import Edit, Hooks
from anatomy.interpret.induction import START, repeated_tokens
from anatomy.models.llama import Llama
from anatomy.tasks.training import TrainingRun, token_cross_entropy, train


def folded_text(vocab_size: int = 32, sentences: int = 2000) -> torch.Tensor:
    """Docstring sentences, lower-cased, joined by spaces, as ids: the V - 2 most frequent characters get ids
    1 .. V - 2 (most frequent first), every other character V - 1; id 0 (START) is left to the start token."""
    check_integer("vocab_size", vocab_size, least=3)
    text = " ".join(stdlib_sentences(check_integer("sentences", sentences, least=1))).lower()
    ids = {c: i + 1 for i, (c, _) in enumerate(collections.Counter(text).most_common(vocab_size - 2))}
    return torch.tensor([ids.get(c, vocab_size - 1) for c in text])  # (characters,)


def text_rows(batch_size: int, text: torch.Tensor, length: int, generator: torch.Generator) -> torch.Tensor:
    """(B, length): START, then length - 1 consecutive ids of `text` from a random place."""
    check_integer("batch_size", batch_size, least=1)
    check_integer("length", length, least=2)
    if check_tensor("text", text, 1, floating=False, shape="(characters,)").numel() < length:
        raise ValueError(f"text must hold at least length ({length}) ids, got {text.numel()}")
    starts = torch.randint(0, text.numel() - length + 1, (batch_size,), generator=generator)
    rows = text[starts[:, None] + torch.arange(length)]  # (B, length)
    rows[:, 0] = START
    return rows


def train_mixed(model: Llama, text: torch.Tensor, steps: int = 2000, text_share: float = 0.4, batch_size: int = 32,
                peak_lr: float = 5e-3, seed: int = 0, progress: bool = False) -> TrainingRun:
    """Adam on batches whose first rows repeat random tokens (as train_induction: each repeats its last n tokens,
    n from 8 to N) and whose last round(text_share * B) rows are English; the loss is every next token's."""
    check_type("model", model, Llama)
    check_integer("steps", steps)
    texts = round(check_number("text_share", text_share, at_least=0, at_most=1) * check_integer("batch_size", batch_size))
    if texts >= batch_size:
        raise ValueError(f"text_share ({text_share}) must leave at least one repeated row in each batch of {batch_size}")
    generator = torch.Generator().manual_seed(check_integer("seed", seed, least=0))
    length, vocab = model.config.max_position_embeddings, model.config.vocab_size
    half = (length - 1) // 2
    if check_tensor("text", text, 1, floating=False, shape="(characters,)").numel() < length or int(text.max()) >= vocab:
        raise ValueError(f"text must hold at least {length} ids, all below the model's vocab_size ({vocab}); "
                         f"got {text.numel()} ids, the largest {int(text.max()) if text.numel() else None}")

    def batches():
        while True:
            lengths = torch.randint(min(8, half), half + 1, (batch_size - texts,), generator=generator)
            yield torch.cat([repeated_tokens(batch_size - texts, half, vocab, generator, lengths),
                             text_rows(texts, text, length, generator)]) if texts else \
                repeated_tokens(batch_size, half, vocab, generator, lengths)  # (B, T)

    def loss_fn(m: Llama, ids: torch.Tensor) -> torch.Tensor:
        return token_cross_entropy(m(ids).logits[:, :-1], ids[:, 1:], ignore_id=-100)

    return train(model, batches(), loss_fn, steps, peak_lr=peak_lr, warmup_steps=min(20, steps), progress=progress)


def local_scores(pattern: torch.Tensor) -> torch.Tensor:
    """(L, H): the mean weight a head puts on the current token and the one before it together (queries 1 ..)."""
    pattern = check_tensor("pattern", pattern, rank=5, floating=True, shape="(L, B, H, T, T)")
    current = pattern.diagonal(dim1=-2, dim2=-1)[..., 1:]  # (L, B, H, T - 1): query 0 has only itself
    return (current + pattern.diagonal(offset=-1, dim1=-2, dim2=-1)).mean(dim=(1, -1))


@torch.no_grad()
def row_losses(model: Llama, ids: torch.Tensor, edit: dict[str, Edit] | None = None) -> list[float]:
    """Each row's mean next-token loss (nats): one number per row, for a paired comparison over rows."""
    check_tensor("ids", ids, 2, floating=False, shape="(B, T)")
    with Hooks(model, edit=edit):
        logits = model(ids).logits  # (B, T, V)
    return F.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none").mean(1).tolist()


@torch.no_grad()
def row_gains(model: Llama, ids: torch.Tensor, edit: dict[str, Edit] | None = None) -> list[float]:
    """Each repeated row's in-context gain (first copy's loss minus the repeat's, each without its first
    token, as in_context_gain): their mean is in_context_gain(model, ids, edit)."""
    length = check_tensor("ids", ids, 2, floating=False, shape="(B, T)").size(1)
    half = (length - 1) // 2
    if half < 3 or length % 2 == 0:
        raise ValueError(f"ids must be repeated rows (B, 2N + 1) with N >= 3, got {tuple(ids.shape)}")
    with Hooks(model, edit=edit):
        logits = model(ids).logits  # (B, T, V)
    losses = F.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none")  # (B, T - 1)
    target = torch.arange(1, length)  # the position each loss predicts
    first, repeat = losses[:, (target > 1) & (target <= half)], losses[:, target > half + 1]
    return (first.mean(1) - repeat.mean(1)).tolist()

