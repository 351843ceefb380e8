"""Notebook 11's language-modelling task: a character-level GPT trained on the standard library's docstrings.

Taught in: 11_gpt.  Shapes: B batch, T characters per window, V vocabulary (characters).
Characters, not WordPiece: the vocabulary is ~100 symbols, every string can be written, and a tiny
model trained for a minute learns spelling and punctuation we can read. The split is by sentence:
the last tenth is held out, and the bigram baseline (anatomy.tasks.bigram) is counted on the same training part.
"""
from __future__ import annotations

import math
from collections.abc import Iterator

import torch
from torch import nn

from anatomy.checks import check_integer, check_number, check_tensor, check_texts, check_type
from anatomy.corpora.stdlib_docstrings import stdlib_sentences
from anatomy.models.gpt import GPT, GPTConfig
from anatomy.tasks.char_corpus import CharCorpus
from anatomy.tasks.training import TrainingRun, token_cross_entropy, train
from anatomy.tasks.bigram import BigramCache, BigramLM, bigram_log_probs, bigram_loss  # noqa: F401  (section 3's baseline)


def docstring_corpus(count: int = 6000, held_out: float = 0.1) -> CharCorpus:
    """`count` of this Python's docstring sentences, the last `held_out` fraction kept for validation."""
    check_integer("count", count, least=2)
    _check_held_out(held_out)  # before the standard library is read
    return sentence_corpus(stdlib_sentences(count), held_out)


def sentence_corpus(sentences: list[str], held_out: float = 0.1) -> CharCorpus:
    """A character corpus of any `sentences` (another Python's docstrings: tools/docstring_loss.py), the last
    `held_out` fraction kept for validation; the vocabulary is their characters, "\n" (the separator) first."""
    sentences = check_texts(sentences, "sentences")
    _check_held_out(held_out)
    broken = [i for i, sentence in enumerate(sentences) if "\n" in sentence]
    if broken:
        raise ValueError(f"sentences must not hold \"\\n\", the separator between sentences; got it at positions {broken[:5]}")
    cut = int(len(sentences) * (1 - held_out))
    if not 0 < cut < len(sentences):
        raise ValueError(f"held_out={held_out} of {_count(len(sentences))} leaves {cut} for training and "
                         f"{len(sentences) - cut} for validation; both need at least one")
    characters = "\n" + "".join(sorted(set("".join(sentences))))
    index = {c: i for i, c in enumerate(characters)}
    encode = lambda part: torch.tensor([index[c] for c in "\n".join(part) + "\n"])  # noqa: E731
    return CharCorpus(characters, encode(sentences[:cut]), encode(sentences[cut:]))


def _check_held_out(held_out: float) -> None:
    check_number("held_out", held_out, above=0, below=1, hint=" (the fraction of sentences kept for validation)")


def _count(n: int) -> str:
    return f"{n} sentence" + ("" if n == 1 else "s")


def docstring_config(corpus: CharCorpus) -> GPTConfig:
    """Small enough to train in about a minute on two CPU cores."""
    return GPTConfig(vocab_size=len(check_type("corpus", corpus, CharCorpus).characters), hidden_size=128, num_attention_heads=4,
                     num_hidden_layers=2, intermediate_size=512, max_position_embeddings=64)


def windows(ids: torch.Tensor, batch_size: int, length: int, generator: torch.Generator) -> Iterator[torch.Tensor]:
    """Random (B, length + 1) windows of the text, forever: inputs are [:, :-1], labels [:, 1:]."""
    check_integer("batch_size", batch_size)
    check_integer("length", length)
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1 or len(ids) < length + 2:
        raise ValueError(f"ids must be a 1-D text of at least length + 2 = {length + 2} tokens, to hold a window of "
                         f"length + 1, got shape {tuple(getattr(ids, 'shape', ()))}")
    return _windows(ids, batch_size, length, generator)


def _windows(ids: torch.Tensor, batch_size: int, length: int, generator: torch.Generator) -> Iterator[torch.Tensor]:
    while True:
        starts = torch.randint(0, len(ids) - length - 1, (batch_size,), generator=generator)
        yield torch.stack([ids[s:s + length + 1] for s in starts.tolist()])  # (B, T + 1)


def next_character_loss(model: GPT, window: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of each next character of (B, T + 1) windows: inputs [:, :-1], labels [:, 1:]."""
    if check_tensor("window", window, rank=2, floating=False, shape="(B, T + 1)").size(1) < 2:
        raise ValueError(f"window must hold at least 2 tokens per row (an input and its next), "
                         f"got shape {tuple(window.shape)}")
    logits = check_type("model", model, nn.Module)(window[:, :-1]).logits  # (B, T, V)
    return token_cross_entropy(logits, window[:, 1:], ignore_id=-100)


def train_docstring_gpt(model: GPT, corpus: CharCorpus, steps: int = 800, batch_size: int = 16,
                        seed: int = 0, progress: bool = True) -> TrainingRun:
    """Windows as long as the context: every position embedding gets trained."""
    length = model.config.max_position_embeddings
    batches = windows(corpus.train_ids, batch_size, length, torch.Generator().manual_seed(seed))
    return train(model, batches, next_character_loss, steps, peak_lr=5e-3, warmup_steps=50,
                 max_grad_norm=1.0, progress=progress)


@torch.no_grad()
def validation_loss(model: GPT, ids: torch.Tensor) -> float:
    """Mean next-character cross-entropy (nats) over the held-out text, in consecutive context-long windows."""
    length = check_type("model", model, GPT).config.max_position_embeddings
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1 or len(ids) < length + 1:
        raise ValueError(f"ids must be a 1-D text of at least one context window + 1 = {length + 1} tokens, got "
                         f"shape {tuple(getattr(ids, 'shape', ()))}")
    usable = (len(ids) - 1) // length * length
    inputs = ids[:usable].view(-1, length)  # (N, T)
    labels = ids[1:usable + 1].view(-1, length)
    return token_cross_entropy(model(inputs).logits, labels, ignore_id=-100).item()


def perplexity(loss: float) -> float:
    check_number("loss", loss, at_least=0, hint=" (a mean cross-entropy in nats)")
    return math.exp(loss) if loss < 700 else math.inf  # e^700 is already beyond any vocabulary
