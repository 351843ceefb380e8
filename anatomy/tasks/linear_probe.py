"""The linear-probe baseline of notebook 09: freeze the encoder, read one vector per sentence (its
[CLS] vector, the mean of its real tokens' vectors, or their maximum in each dimension), train one
nn.Linear on them. What fine-tuning
the whole encoder is compared with.

Taught in: 09_fine_tuning.  Shapes: N sentences, T tokens, D model width.
"""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from anatomy.checks import check_batches, check_integer, check_labels, check_number, check_texts, check_type
from anatomy.tasks.sentiment import classification_loss
from anatomy.tasks.sentiment_batches import batches_by_length
from anatomy.tasks.training import train


@torch.no_grad()
def sentence_vectors(encoder: nn.Module, tokenizer, texts: Sequence[str], max_length: int = 64,
                     batch_size: int = 128) -> dict[str, torch.Tensor]:
    """{"cls": (N, D) last-layer [CLS] vectors, "mean": (N, D) means of the real tokens' last-layer
    vectors (mean pooling, padding left out), "max": (N, D) their maximum in each dimension (max-over-time
    pooling, padding left out)} of a frozen encoder, in the order of `texts`."""
    texts = check_texts(texts, allow_empty=True)
    check_type("encoder", encoder, nn.Module).eval()
    vectors = {pooling: torch.empty(len(texts), encoder.config.hidden_size) for pooling in ("cls", "mean", "max")}
    for rows, batch in batches_by_length(tokenizer, texts, max_length, batch_size, next(encoder.parameters()).device):
        hidden = encoder(batch.input_ids, attention_mask=batch.attention_mask).last_hidden_state  # (B, T, D)
        real = batch.attention_mask[..., None].to(hidden.dtype)  # (B, T, 1): 1 at real tokens
        vectors["cls"][rows] = hidden[:, 0].cpu()
        vectors["mean"][rows] = ((hidden * real).sum(1) / real.sum(1)).cpu()
        vectors["max"][rows] = hidden.masked_fill(real == 0, float("-inf")).amax(1).cpu()  # padding never wins
    return vectors


def train_probe(vectors: torch.Tensor, labels: Sequence[int], num_labels: int = 2, steps: int = 500,
                batch_size: int = 256, peak_lr: float = 3e-2, seed: int = 0) -> nn.Linear:
    """A linear probe: one nn.Linear trained on fixed vectors (the encoder never changes); `seed` fixes its
    starting weights and its batches, so two probes of one seed differ only in their vectors."""
    if not isinstance(vectors, torch.Tensor) or vectors.dim() != 2 or not vectors.is_floating_point():
        raise ValueError(f"vectors must be a floating-point (N, D) tensor, got {type(vectors).__name__} "
                         f"{tuple(getattr(vectors, 'shape', ()))}")
    check_batches(len(vectors), batch_size, "the probe's training vectors")
    check_number("peak_lr", peak_lr, above=0)
    generator, targets = torch.Generator().manual_seed(seed), torch.tensor(list(labels))
    check_labels(targets, len(vectors), check_integer("num_labels", num_labels))
    with torch.random.fork_rng(devices=[]):  # the seed draws the starting weights too; the global stream stays
        torch.manual_seed(seed)
        probe = nn.Linear(vectors.size(1), num_labels)
    batches = (torch.randint(len(vectors), (batch_size,), generator=generator) for _ in range(steps))
    train(probe, batches, lambda model, rows: classification_loss(model(vectors[rows]), targets[rows]),
          steps, optimizer=torch.optim.AdamW(probe.parameters(), lr=peak_lr), warmup_steps=steps // 10, progress=False)
    return probe
