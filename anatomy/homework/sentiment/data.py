"""Question 4's data for homework 2 (notebook 10): the seed picks which training and test sentences
a fine-tuning run sees, so public checks and hidden tests use different ones.

Shapes: B batch, T tokens. The run is small: STEPS steps of BATCH_SIZE sentences, each batch half
positive and half negative (and each half of similar lengths, so little is padding): batches all of
one label make a short run at a high learning rate collapse to one answer.
"""
from __future__ import annotations

import functools
import random

from anatomy.tasks.sentiment_batches import SentimentBatch, batches_by_length, pad_batch, tokenize
from anatomy.corpora.sentiment_data import load_reviews

STEPS, BATCH_SIZE, MAX_LENGTH, TEST_SENTENCES = 64, 16, 40, 200


@functools.lru_cache(maxsize=1)
def bundled_tokenizer():
    from transformers import AutoTokenizer

    from anatomy.checkpoints.pretrained import default_model_dir

    return AutoTokenizer.from_pretrained(default_model_dir())


def balanced_batches(token_ids: list[list[int]], labels: list[int], rng: random.Random, pad_id: int) -> list[SentimentBatch]:
    """Batches of BATCH_SIZE // 2 negative and BATCH_SIZE // 2 positive sentences, in random order."""
    half, halves = BATCH_SIZE // 2, []
    for label in (0, 1):
        rows = sorted((i for i, y in enumerate(labels) if y == label), key=lambda i: len(token_ids[i]))
        halves.append([rows[i:i + half] for i in range(0, len(rows), half)])
    pairs = list(zip(*halves))  # the k-th shortest negatives with the k-th shortest positives
    rng.shuffle(pairs)
    return [pad_batch([token_ids[i] for i in rows], [labels[i] for i in rows], pad_id) for pair in pairs
            for rows in [pair[0] + pair[1]]]


def run_data(seed: int):
    """Training batches (STEPS balanced batches of BATCH_SIZE sentences) and test batches, both drawn by `seed`."""
    rng, tokenizer = random.Random(seed), bundled_tokenizer()
    train_split, test_split = load_reviews("train"), load_reviews("test")
    rows = [r for label in (0, 1) for r in rng.sample([i for i, y in enumerate(train_split.labels) if y == label],
                                                      STEPS * BATCH_SIZE // 2)]
    train_ids = tokenize(tokenizer, [train_split.texts[i] for i in rows], MAX_LENGTH)
    batches = balanced_batches(train_ids, [train_split.labels[i] for i in rows], rng, tokenizer.pad_token_id)
    test_rows = rng.sample(range(len(test_split)), TEST_SENTENCES)
    test_batches = batches_by_length(tokenizer, [test_split.texts[i] for i in test_rows], MAX_LENGTH, 50,
                                     labels=[test_split.labels[i] for i in test_rows])
    return batches, [batch for _, batch in test_batches]
