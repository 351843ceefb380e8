"""The dates translator of notebook 07: its model size, its training recipe, and how it is scored.

Taught in: 07_training (and loaded by 08's homework).  Shapes: B batch, Tt target characters, V vocabulary.
The data lives in anatomy.tasks.dates and the loop in anatomy.tasks.training; this module joins them. The
trained weights ship inside the package (DATES_MODEL_DIR), so a `pip install` can load them too.
"""
from __future__ import annotations

from collections.abc import Iterator
from itertools import count
from pathlib import Path

import torch
from torch import nn

from anatomy.checks import check_integer, check_texts, check_type
from anatomy.tasks.dates import CharVocabulary, TranslationBatch, date_pairs, make_batch
from anatomy.generation.greedy import greedy_decode
from anatomy.tasks.training import TrainingRun, token_cross_entropy, train
from anatomy.models.transformer import Transformer, TransformerConfig

DATES_MODEL_DIR = Path(__file__).resolve().parent.parent / "data" / "dates_transformer"


def dates_config(vocab: CharVocabulary) -> TransformerConfig:
    """A Transformer small enough to train in well under a minute on two CPU cores. No dropout:
    every step sees fresh pairs, so there is nothing to memorise."""
    check_type("vocab", vocab, CharVocabulary)
    return TransformerConfig(vocab_size=len(vocab), hidden_size=64, num_attention_heads=4,
                             intermediate_size=128, num_encoder_layers=2, num_decoder_layers=2,
                             hidden_dropout_prob=0.0, max_position_embeddings=64,
                             pad_token_id=vocab.pad_id, bos_token_id=vocab.bos_id, eos_token_id=vocab.eos_id)


def training_batches(vocab: CharVocabulary, batch_size: int = 128, seed: int = 0,
                     device: torch.device | str | None = None) -> Iterator[TranslationBatch]:
    """Fresh training-split pairs forever; batch `step` of run `seed` is always the same."""
    check_type("vocab", vocab, CharVocabulary)
    check_integer("batch_size", batch_size)
    check_integer("seed", seed, least=0)
    return (make_batch(date_pairs(batch_size, "train", seed=seed * 1_000_003 + step), vocab, device)
            for step in count())


def translation_loss(model: Transformer, batch: TranslationBatch, label_smoothing: float = 0.1) -> torch.Tensor:
    """Label-smoothed cross-entropy of the next character, over real target characters only."""
    check_type("model", model, nn.Module)
    check_type("batch", batch, TranslationBatch)
    logits = model(batch.src_ids, batch.tgt_ids, batch.src_mask, batch.tgt_mask).logits  # (B, Tt, V)
    return token_cross_entropy(logits, batch.labels, model.config.pad_token_id, label_smoothing)


def train_dates(model: Transformer, vocab: CharVocabulary, steps: int, batch_size: int = 128,
                peak_lr: float = 5e-3, warmup_steps: int = 100, label_smoothing: float = 0.1,
                seed: int = 0, progress: bool = True) -> TrainingRun:
    """Notebook 07's recipe: Adam with the warm-up schedule, fresh pairs every step."""
    device = next(model.parameters()).device
    return train(model, training_batches(vocab, batch_size, seed, device),
                 lambda m, batch: translation_loss(m, batch, label_smoothing),
                 steps, peak_lr=peak_lr, warmup_steps=warmup_steps, progress=progress)


@torch.no_grad()
def translate(model: Transformer, texts: list[str], vocab: CharVocabulary, batch_size: int = 500) -> list[str]:
    """Greedy translations of `texts`, in batches."""
    if isinstance(texts, str):
        raise TypeError(f"texts must be a list of strings; for one date pass [{texts!r}]")
    texts = check_texts(texts, allow_empty=True)
    check_type("model", model, nn.Module)
    check_type("vocab", vocab, CharVocabulary)
    check_integer("batch_size", batch_size)
    device, outputs = next(model.parameters()).device, []
    for i in range(0, len(texts), batch_size):
        batch = make_batch([(text, "") for text in texts[i:i + batch_size]], vocab, device)
        generated = greedy_decode(model, batch.src_ids, batch.src_mask, max_length=16)  # (B, <= 16)
        outputs += [vocab.decode(row) for row in generated.cpu()]
    return outputs


def exact_match(model: Transformer, pairs: list[tuple[str, str]], vocab: CharVocabulary) -> float:
    """The fraction of pairs whose whole translation is right, character for character."""
    if not pairs:
        raise ValueError("pairs must hold at least one (source, target) pair: the fraction of none is undefined")
    predictions = translate(model, [source for source, _ in pairs], vocab)
    return sum(p == target for p, (_, target) in zip(predictions, pairs)) / len(pairs)
