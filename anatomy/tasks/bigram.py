"""Notebook 11's baseline: the bigram model of a character corpus, P(next | current) counted on its training text.

Taught in: 11_gpt (section 3's baseline, and section 10's draft for speculative decoding).  Shapes: B batch,
T characters, V vocabulary. The corpus is an anatomy.tasks.char_corpus.CharCorpus.
"""
from __future__ import annotations

from types import SimpleNamespace

import torch
from torch import nn

from anatomy.checks import check_integer, check_number, check_type
from anatomy.layers.embeddings import check_token_ids
from anatomy.models.gpt import CausalLMOutput
from anatomy.tasks.char_corpus import CharCorpus


def bigram_log_probs(corpus: CharCorpus, smoothing: float = 1.0) -> torch.Tensor:
    """(V, V) log P(next | current), row = current character, counted on the training text with
    add-`smoothing` (every pair gets that many extra counts, so no pair is impossible)."""
    check_type("corpus", corpus, CharCorpus)
    check_number("smoothing", smoothing, above=0, hint=" (1.0 is add-one smoothing)")
    vocab = len(corpus.characters)
    counts = torch.full((vocab, vocab), float(smoothing))
    counts.index_put_((corpus.train_ids[:-1], corpus.train_ids[1:]), torch.ones(len(corpus.train_ids) - 1),
                      accumulate=True)
    return (counts / counts.sum(dim=1, keepdim=True)).log()  # (V, V)


class BigramLM(nn.Module):
    """The bigram baseline as a decoder-only model, logits (B, T, V) = log P(next | current): with
    GPT's interface (config, new_cache, forward) it can be speculative decoding's draft (11_gpt)."""

    def __init__(self, corpus: CharCorpus, max_position_embeddings: int = 64, smoothing: float = 1.0) -> None:
        super().__init__()
        self.register_buffer("log_probs", bigram_log_probs(corpus, smoothing))  # (V, V)
        self.config = SimpleNamespace(vocab_size=len(corpus.characters), max_position_embeddings=check_integer(
            "max_position_embeddings", max_position_embeddings))

    def new_cache(self) -> BigramCache:
        return BigramCache()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                cache: BigramCache | None = None) -> CausalLMOutput:
        check_token_ids(input_ids, self.config.vocab_size)
        return CausalLMOutput(self.log_probs[input_ids])  # (B, T, V): the masks and the cache change nothing


class BigramCache:
    """A bigram reads only the current token: nothing to keep, nothing to roll back."""

    def crop(self, length: int) -> None:
        check_integer("length", length, least=0)


def bigram_loss(corpus: CharCorpus, smoothing: float = 1.0) -> float:
    """The baseline: P(next | current) counted on the training text (add-`smoothing`), scored on held-out text."""
    log_probs = bigram_log_probs(corpus, smoothing)  # (V, V)
    ids = corpus.validation_ids
    return -log_probs[ids[:-1], ids[1:]].mean().item()
