"""Sentence batches for notebook 09's fine-tuning: padding, tokenising, and batches bucketed by length.

Taught in: 09_fine_tuning (and graded in homework 10).  Shapes: B batch, T tokens.
Training draws from bucketed_batches, an endless stream that refuses, before it starts, a set it
could never fill a batch from; inference reads batches_by_length, once over the texts.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import torch

from anatomy.checks import check_batches, check_integer, check_texts, check_type

TOKENIZER = "a tokenizer called on a list of texts (a SentenceTokenizer or a Hugging Face tokenizer)"


@dataclass
class SentimentBatch:
    input_ids: torch.Tensor  # (B, T)
    attention_mask: torch.Tensor  # (B, T), 1 = real token
    labels: torch.Tensor  # (B,) int64


def pad_batch(token_ids: Sequence[Sequence[int]], labels: Sequence[int], pad_id: int = 0,
              device: torch.device | str | None = None) -> SentimentBatch:
    """Right-pad already tokenised sentences to the longest one in the batch."""
    _check_sentences(token_ids, labels)
    if len(token_ids) == 0:
        raise ValueError("token_ids is an empty batch: expected at least one sentence, got 0")
    check_integer("pad_id", pad_id, least=0)
    width = max(len(ids) for ids in token_ids)
    input_ids = torch.full((len(token_ids), width), pad_id, dtype=torch.long)
    for row, ids in enumerate(token_ids):
        input_ids[row, :len(ids)] = torch.tensor(ids)
    return SentimentBatch(input_ids.to(device), (input_ids != pad_id).long().to(device),
                          torch.tensor(list(labels), dtype=torch.long, device=device))


def _check_sentences(token_ids: Sequence[Sequence[int]], labels: Sequence[int]) -> None:
    """Token-id lists and labels, one label per sentence."""
    check_type("token_ids", token_ids, Sequence, what="a list of token-id lists")
    if len(check_type("labels", labels, Sequence, torch.Tensor, what="a list of class ids")) != len(token_ids):
        raise ValueError(f"labels and token_ids differ in length: expected one label per sentence ({len(token_ids)}), "
                         f"got {len(labels)}")


def tokenize(tokenizer, texts: Sequence[str], max_length: int) -> list[list[int]]:
    """Token ids with [CLS] ... [SEP], cut to max_length tokens."""
    if isinstance(texts, str):
        raise TypeError("texts must be a list of sentences, got one string: wrap it in a list")
    texts = check_texts(texts, allow_empty=True)
    check_integer("max_length", max_length, least=3, hint=" (room for [CLS], one token and [SEP])")
    check_type("tokenizer", tokenizer, Callable, what=TOKENIZER)
    return tokenizer(texts, truncation=True, max_length=max_length)["input_ids"] if texts else []  # HF fails on []


def bucketed_batches(token_ids: list[list[int]], labels: Sequence[int], batch_size: int, seed: int = 0,
                     pad_id: int = 0, device: torch.device | str | None = None) -> Iterator[SentimentBatch]:
    """Endless epochs of batches whose sentences have similar lengths (little padding), in random order.
    Each epoch: shuffle, cut into pools of 50 batches, sort each pool by length, shuffle the batches."""
    _check_sentences(token_ids, labels)
    check_batches(len(token_ids), batch_size, "the training set (token_ids)")
    check_integer("pad_id", pad_id, least=0)
    return _bucketed(token_ids, labels, batch_size, random.Random(seed), pad_id, device)


def _bucketed(token_ids, labels, batch_size, rng, pad_id, device) -> Iterator[SentimentBatch]:
    pool = 50 * batch_size
    while True:
        order = list(range(len(token_ids)))
        rng.shuffle(order)
        batches = []
        for start in range(0, len(order), pool):
            chunk = sorted(order[start:start + pool], key=lambda i: len(token_ids[i]))
            batches += [chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size)]
        rng.shuffle(batches)
        for batch in batches:
            yield pad_batch([token_ids[i] for i in batch], [labels[i] for i in batch], pad_id, device)


def batches_by_length(tokenizer, texts: Sequence[str], max_length: int, batch_size: int,
                      device: torch.device | str | None = None,
                      labels: Sequence[int] | None = None) -> Iterator[tuple[list[int], SentimentBatch]]:
    """(rows, batch) over `texts` shortest first, so that a batch pads little; `rows` are the places
    in `texts` of the batch's sentences. Without `labels` (inference) every label is 0. Checked at the first next()."""
    check_integer("batch_size", batch_size)
    token_ids = tokenize(tokenizer, texts, max_length)
    if labels is not None and len(labels) != len(texts):
        raise ValueError(f"labels and texts differ in length: expected one label per text ({len(texts)}), "
                         f"got {len(labels)}")
    order = sorted(range(len(token_ids)), key=lambda i: len(token_ids[i]))
    for start in range(0, len(order), batch_size):
        rows = order[start:start + batch_size]
        batch_labels = [0] * len(rows) if labels is None else [labels[i] for i in rows]
        yield rows, pad_batch([token_ids[i] for i in rows], batch_labels, tokenizer.pad_token_id, device)
