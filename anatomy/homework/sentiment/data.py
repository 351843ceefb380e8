"""Question 4's data for homework 2 (notebook 10): the seed picks which training and test sentences
a fine-tuning run sees, so public checks and hidden tests use different ones.

Shapes: B batch, T tokens. The run is small: STEPS steps of BATCH_SIZE sentences.
"""
from __future__ import annotations

import functools
import random

from anatomy.sentiment_batches import batches_by_length, bucketed_batches, tokenize
from anatomy.sentiment_data import load_reviews

STEPS, BATCH_SIZE, MAX_LENGTH, TEST_SENTENCES = 64, 16, 40, 200


@functools.lru_cache(maxsize=1)
def bundled_tokenizer():
    from transformers import AutoTokenizer

    from anatomy.pretrained import default_model_dir

    return AutoTokenizer.from_pretrained(default_model_dir())


def run_data(seed: int):
    """Training batches (STEPS x BATCH_SIZE sentences, bucketed by length so little is padding) and
    test batches, both drawn by `seed`."""
    rng, tokenizer = random.Random(seed), bundled_tokenizer()
    train_split, test_split = load_reviews("train"), load_reviews("test")
    train_rows = rng.sample(range(len(train_split)), STEPS * BATCH_SIZE)
    test_rows = rng.sample(range(len(test_split)), TEST_SENTENCES)
    train_ids = tokenize(tokenizer, [train_split.texts[i] for i in train_rows], MAX_LENGTH)
    batches = bucketed_batches(train_ids, [train_split.labels[i] for i in train_rows], BATCH_SIZE, seed,
                               tokenizer.pad_token_id)
    test_batches = batches_by_length(tokenizer, [test_split.texts[i] for i in test_rows], MAX_LENGTH, 50,
                                     labels=[test_split.labels[i] for i in test_rows])
    return [next(batches) for _ in range(STEPS)], [batch for _, batch in test_batches]
