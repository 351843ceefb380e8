"""Training a Transformer on the dates task: warm-up schedule, label-smoothed loss, greedy evaluation.

Taught in: 07_training.  Shapes: B batch, Tt target tokens, V vocabulary.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm.auto import tqdm

from anatomy.dates import CharVocabulary, date_pairs, make_batch
from anatomy.generation import greedy_decode
from anatomy.transformer import Transformer, TransformerConfig

DATES_MODEL_DIR = Path(__file__).resolve().parent.parent / "notebooks" / "artifacts" / "dates_transformer"


def dates_config(vocab: CharVocabulary) -> TransformerConfig:
    """A Transformer small enough to train in well under a minute on two CPU cores. No dropout:
    every step sees fresh pairs, so there is nothing to memorise."""
    return TransformerConfig(vocab_size=len(vocab), hidden_size=64, num_attention_heads=4,
                             intermediate_size=128, num_encoder_layers=2, num_decoder_layers=2,
                             hidden_dropout_prob=0.0, max_position_embeddings=64,
                             pad_token_id=vocab.pad_id, bos_token_id=vocab.bos_id, eos_token_id=vocab.eos_id)


def warmup_then_decay(step: int, warmup_steps: int, total_steps: int) -> float:
    """The learning-rate multiplier: grows linearly for warmup_steps (as in the paper, section 5.3),
    then falls linearly to 0 at total_steps (the paper decays as 1/sqrt(step) over a much longer run)."""
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    return max(0.0, (total_steps - step) / (total_steps - warmup_steps))


def translation_loss(logits: torch.Tensor, labels: torch.Tensor, pad_id: int,
                     label_smoothing: float = 0.0) -> torch.Tensor:
    """Mean cross-entropy over real target tokens; padding does not count."""
    return F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=pad_id,  # (B*Tt, V), (B*Tt,)
                           label_smoothing=label_smoothing)


@dataclass
class TrainingRun:
    losses: list[float] = field(default_factory=list)
    learning_rates: list[float] = field(default_factory=list)
    seconds: float = 0.0


def train(model: Transformer, vocab: CharVocabulary, steps: int, batch_size: int = 128,
          peak_lr: float = 5e-3, warmup_steps: int = 100, label_smoothing: float = 0.1,
          seed: int = 0, progress: bool = True) -> TrainingRun:
    """Adam with the warm-up schedule, on fresh training-split pairs every step (batch `step` of
    run `seed` is always the same). The model stays on its device; returns losses and timings."""
    device = next(model.parameters()).device
    optimizer = torch.optim.Adam(model.parameters(), lr=peak_lr, betas=(0.9, 0.98), eps=1e-9)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: warmup_then_decay(step, warmup_steps, steps))
    run, start = TrainingRun(), time.perf_counter()
    model.train()
    for step in tqdm(range(steps), disable=not progress, file=sys.stdout, mininterval=5, ncols=80):
        batch = make_batch(date_pairs(batch_size, "train", seed=seed * 1_000_003 + step), vocab, device)
        logits = model(batch.src_ids, batch.tgt_ids, batch.src_mask, batch.tgt_mask).logits  # (B, Tt, V)
        loss = translation_loss(logits, batch.labels, vocab.pad_id, label_smoothing)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        run.losses.append(loss.item())
        run.learning_rates.append(schedule.get_last_lr()[0])
        schedule.step()
    run.seconds = time.perf_counter() - start
    model.eval()
    return run


@torch.no_grad()
def translate(model: Transformer, texts: list[str], vocab: CharVocabulary, batch_size: int = 500) -> list[str]:
    """Greedy translations of `texts`, in batches."""
    device, outputs = next(model.parameters()).device, []
    for i in range(0, len(texts), batch_size):
        batch = make_batch([(text, "") for text in texts[i:i + batch_size]], vocab, device)
        generated = greedy_decode(model, batch.src_ids, batch.src_mask, max_length=16)  # (B, <= 16)
        outputs += [vocab.decode(row) for row in generated.cpu()]
    return outputs


def exact_match(model: Transformer, pairs: list[tuple[str, str]], vocab: CharVocabulary) -> float:
    """The fraction of pairs whose whole translation is right, character for character."""
    predictions = translate(model, [source for source, _ in pairs], vocab)
    return sum(p == target for p, (_, target) in zip(predictions, pairs)) / len(pairs)

