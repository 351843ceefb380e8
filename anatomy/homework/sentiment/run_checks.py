"""Check for question 4 of homework 2 (notebook 10): a short fine-tuning run, scored on held-out reviews.

Shapes: B batch, T tokens.
The seed picks which training and test sentences the run sees (public checks use one seed, hidden
tests others), so nobody can hard-code the answer. The run is small: 48 steps of 16 sentences.
"""
from __future__ import annotations

import functools
import math
import random

import torch

from anatomy.encoder import TransformerEncoder
from anatomy.homework.feedback import Feedback, call
from anatomy.sentiment import pad_batch, tokenize
from anatomy.sentiment_data import load_reviews

REQUIRED_ACCURACY = 0.70  # on 200 held-out test sentences
STEPS, BATCH_SIZE, MAX_LENGTH, TEST_SENTENCES = 48, 16, 40, 200


@functools.lru_cache(maxsize=1)
def bundled_tokenizer():
    from transformers import AutoTokenizer

    from anatomy.pretrained import default_model_dir

    return AutoTokenizer.from_pretrained(default_model_dir())


def run_data(seed: int):
    """Training batches (STEPS x BATCH_SIZE sentences) and test batches, both drawn by `seed`."""
    rng, tokenizer = random.Random(seed), bundled_tokenizer()
    train_split, test_split = load_reviews("train"), load_reviews("test")
    train_rows = rng.sample(range(len(train_split)), STEPS * BATCH_SIZE)
    test_rows = rng.sample(range(len(test_split)), TEST_SENTENCES)

    def batches(reviews, rows, size):
        ids = tokenize(tokenizer, [reviews.texts[i] for i in rows], MAX_LENGTH)
        return [pad_batch(ids[i:i + size], [reviews.labels[j] for j in rows[i:i + size]], tokenizer.pad_token_id)
                for i in range(0, len(rows), size)]

    return batches(train_split, train_rows, BATCH_SIZE), batches(test_split, test_rows, 50)


def predicted_logits(classifier, data) -> torch.Tensor:
    """The head's (B,) logits on [CLS], computed here (not by the student's predict)."""
    hidden = classifier.encoder(data.input_ids, attention_mask=data.attention_mask).last_hidden_state  # (B, T, D)
    return classifier.head(hidden[:, 0]).squeeze(-1)


def spy_on(module: torch.nn.Module, log: list[tuple[bool, bool]]):
    """Record (training mode, grad enabled) at every forward call of `module`."""
    return module.register_forward_pre_hook(lambda m, args: log.append((m.training, torch.is_grad_enabled())))


def check_fine_tuning(classifier_class, fine_tune_run, evaluate, seed: int = 0) -> float:
    """Fine-tune a fresh classifier around the pre-trained encoder with the student's run, check the
    student's evaluate against ours, and require REQUIRED_ACCURACY. Returns the accuracy."""
    torch.manual_seed(seed)
    classifier = call(classifier_class, TransformerEncoder.from_pretrained())
    before = [p.detach().clone() for p in classifier.encoder.parameters()]
    train_batches, test_batches = run_data(seed)
    run = call(fine_tune_run, classifier, iter(train_batches), STEPS)
    losses = list(getattr(run, "losses", []))
    moved = max((p.detach() - b).abs().max().item() for p, b in zip(classifier.encoder.parameters(), before))
    if moved == 0:
        raise Feedback("the encoder was left frozen (its weights changed by 0): the question asks for full "
                       "fine-tuning, so give the optimizer every parameter and keep requires_grad on")
    first, last = sum(losses[:8]) / 8, sum(losses[-8:]) / 8
    if losses and (not all(math.isfinite(x) for x in losses) or last > first - 0.05):
        raise Feedback(f"the learning rate is too high: the loss diverged or never went down, from {first:.3f} "
                       f"over the first 8 steps to {last:.3f} over the last 8 (fine-tuning needs about 1e-5 to 1e-4)")
    log: list[tuple[bool, bool]] = []
    handle = spy_on(classifier.encoder, log)
    got = call(evaluate, classifier, test_batches)
    handle.remove()
    if any(training for training, _ in log):
        raise Feedback("evaluation ran in training mode: call model.eval() first, or dropout keeps "
                             "switching off random features and the accuracy changes from run to run")
    if any(grad for _, grad in log):
        raise Feedback("evaluation ran with autograd on: wrap it in torch.no_grad(), or every forward pass "
                             "keeps its activations for a backward pass that never comes")
    with torch.no_grad():
        correct = sum(((predicted_logits(classifier, b) > 0).long() == b.labels).sum().item() for b in test_batches)
    expected = correct / TEST_SENTENCES
    if not isinstance(got, float) or abs(got - expected) > 1e-6:
        raise Feedback(f"evaluate returned {got!r}; the share of correct predictions is {expected:.3f}")
    if expected < REQUIRED_ACCURACY:
        raise Feedback(f"test accuracy {expected:.1%} is below the required {REQUIRED_ACCURACY:.0%}")
    return expected
