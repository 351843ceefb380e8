"""The copy task of notebook 00: write back a random string of letters, 1 to 60 long.

Taught in: 00_before_transformers.  Shapes: B batch, Ts source letters, Tt target letters.
A task where only the input's length makes it hard: the model must carry every letter, in order,
from the source to the output. Strings are generated on the fly from a seed (no download). The
three models (fixed context vector, additive attention, Transformer) train here with one recipe,
the same number of steps on the same batches, through anatomy.tasks.training.train.
"""
from __future__ import annotations

import random
import string
from collections.abc import Iterator
from itertools import count
from typing import Any

import torch
from torch import nn

from anatomy.checks import check_integer, check_type
from anatomy.tasks.dates import CharVocabulary, TranslationBatch, make_batch
from anatomy.tasks.dates_translator import translation_loss
from anatomy.generation.greedy import greedy_decode
from anatomy.models.rnn_seq2seq import GRUSeq2Seq, RNNConfig
from anatomy.tasks.training import TrainingRun, train
from anatomy.models.transformer import Transformer, TransformerConfig

LETTERS = string.ascii_lowercase
MAX_LENGTH = 60  # the longest string the models train and are tested on
MODEL_NAMES = ("GRU, fixed context", "GRU + attention", "Transformer")
TRAINING_STEPS = 800  # the one budget, the same for every model (make bench: each trains in <= 60 s on 2 cores)


def copy_vocabulary() -> CharVocabulary:
    return CharVocabulary(LETTERS)  # <pad>, <bos>, <eos>, a-z: 29 tokens


def copy_pairs(count: int, seed: int, lengths: tuple[int, int] = (1, MAX_LENGTH)) -> list[tuple[str, str]]:
    """`count` (string, the same string) pairs, each length drawn uniformly from `lengths` (inclusive)."""
    check_integer("count", count, least=0)
    if not isinstance(lengths, (tuple, list)) or len(lengths) != 2:
        raise ValueError(f"lengths must be (low, high) integers with 1 <= low <= high, got {lengths!r}")
    low, high = lengths
    if not all(isinstance(n, int) for n in lengths) or not 1 <= low <= high:
        raise ValueError(f"lengths must be (low, high) integers with 1 <= low <= high, got {lengths}")
    rng = random.Random(seed)
    texts = ["".join(rng.choices(LETTERS, k=rng.randint(low, high))) for _ in range(count)]
    return [(text, text) for text in texts]


def training_batches(vocab: CharVocabulary, batch_size: int = 32, seed: int = 0,
                     device: torch.device | str | None = None) -> Iterator[TranslationBatch]:
    """Fresh strings forever, all of one length per batch (no padding to pay for), the length drawn
    uniformly from 1 to MAX_LENGTH. Batch `step` of run `seed` is the same for every model."""
    check_type("vocab", vocab, CharVocabulary)
    check_integer("batch_size", batch_size)
    return _batches(vocab, batch_size, check_integer("seed", seed, least=0), device)


def _batches(vocab: CharVocabulary, batch_size: int, seed: int, device) -> Iterator[TranslationBatch]:
    for step in count():
        length = random.Random(seed * 1_000_003 + step).randint(1, MAX_LENGTH)
        pairs = copy_pairs(batch_size, seed=seed * 1_000_003 + step, lengths=(length, length))
        yield make_batch(pairs, vocab, device)


def build_model(name: str, vocab: CharVocabulary) -> nn.Module:
    """One of MODEL_NAMES, able to read MAX_LENGTH letters: the GRUs 64 wide (about 55,000 parameters
    with a fixed context, about 100,000 with attention and the bidirectional encoder), the Transformer
    64 wide with 2 + 2 layers (about 170,000)."""
    check_type("vocab", vocab, CharVocabulary)
    specials = dict(pad_token_id=vocab.pad_id, bos_token_id=vocab.bos_id, eos_token_id=vocab.eos_id)
    if name == "Transformer":
        return Transformer(TransformerConfig(vocab_size=len(vocab), hidden_size=64, num_attention_heads=4,
                                             intermediate_size=128, num_encoder_layers=2, num_decoder_layers=2,
                                             hidden_dropout_prob=0.0, max_position_embeddings=MAX_LENGTH + 1,
                                             **specials))
    if name in MODEL_NAMES:
        return build_rnn(vocab, attention=name == "GRU + attention", bidirectional=name == "GRU + attention")
    raise ValueError(f"model name must be one of {MODEL_NAMES}, got {name!r}")


def build_rnn(vocab: CharVocabulary, **settings: Any) -> GRUSeq2Seq:
    """A GRU encoder-decoder for the copy task, reading up to MAX_LENGTH letters; `settings` are other
    RNNConfig fields (attention, bidirectional, hidden_size, ...), e.g. for exercise 1 or `make bench` C1/C3."""
    check_type("vocab", vocab, CharVocabulary)
    return GRUSeq2Seq(RNNConfig(vocab_size=len(vocab), max_length=MAX_LENGTH, pad_token_id=vocab.pad_id,
                                bos_token_id=vocab.bos_id, eos_token_id=vocab.eos_id, **settings))


def train_copy(model: nn.Module, vocab: CharVocabulary, steps: int = TRAINING_STEPS, batch_size: int = 32,
               peak_lr: float = 5e-3, warmup_steps: int = 50, seed: int = 0, progress: bool = True) -> TrainingRun:
    """The one recipe for all three models: Adam with warm-up, gradient clipping (RNNs need it),
    plain cross-entropy of the next letter."""
    device = next(model.parameters()).device
    return train(model, training_batches(vocab, batch_size, seed, device),
                 lambda m, batch: translation_loss(m, batch, label_smoothing=0.0), steps,
                 peak_lr=peak_lr, warmup_steps=warmup_steps, max_grad_norm=1.0, progress=progress)


@torch.no_grad()
def accuracy_by_length(model: nn.Module, vocab: CharVocabulary, lengths: list[int], count: int = 100,
                       seed: int = 1) -> dict[int, tuple[float, float]]:
    """For each length, `count` unseen strings of exactly that length, copied greedily:
    {length: (letters in the right place, whole strings right)}, as fractions."""
    device, results = next(model.parameters()).device, {}
    check_integer("count", count)
    for length in lengths:
        check_integer("each length", length, most=MAX_LENGTH, hint=" (the models read at most MAX_LENGTH letters)")
    for length in lengths:
        pairs = copy_pairs(count, seed=seed * 1_000_003 + length, lengths=(length, length))
        batch = make_batch(pairs, vocab, device)
        generated = greedy_decode(model, batch.src_ids, batch.src_mask, max_length=length + 1).cpu()  # (B, <= L+1)
        outputs = [vocab.decode(row) for row in generated]
        letters = sum(sum(a == b for a, b in zip(out, text)) for out, (text, _) in zip(outputs, pairs))
        exact = sum(out == text for out, (text, _) in zip(outputs, pairs))
        results[length] = (letters / (count * length), exact / count)
    return results
