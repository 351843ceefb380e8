"""Checks for questions 1-3 of homework 2, sentiment fine-tuning (notebook 10): the head, predict, training_step.

Each runs the student's SentimentClassifier around a tiny random BERT on seeded inputs (public tests
use one seed, hidden tests others drawn from the instructor's secret) and raises Feedback naming the
classic mistake and the value that gave it away. The expected values come from the check's own
encoder and a copy of the student's head, never from the student's classifier.
Shapes: B batch, T tokens, D model width.
"""
from __future__ import annotations

import re
from types import SimpleNamespace

import torch
import torch.nn.functional as F

from anatomy.models.encoder import TransformerEncoder
from anatomy.homework.feedback import Feedback, call, type_of
from anatomy.tasks.sentiment_batches import SentimentBatch

TINY = dict(vocab_size=60, hidden_size=16, num_attention_heads=4, num_hidden_layers=2, intermediate_size=32,
            max_position_embeddings=32, type_vocab_size=2, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)


def batch(seed: int, size: int = 4, tokens: int = 7) -> SentimentBatch:
    """Random ids, a mask whose last row ends in padding, and labels 0/1 as int64 (B,)."""
    generator = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(1, TINY["vocab_size"], (size, tokens), generator=generator)
    attention_mask = torch.ones(size, tokens, dtype=torch.long)
    attention_mask[-1, tokens - 3:] = 0
    input_ids[attention_mask == 0] = 0
    return SentimentBatch(input_ids, attention_mask, torch.arange(size) % 2)


def built(classifier_class, seed: int, hidden_size: int = 16):
    """(the student's classifier around a tiny random encoder, that encoder); the head must be nn.Linear(D, 1)."""
    torch.manual_seed(seed)
    encoder = TransformerEncoder(SimpleNamespace(**(TINY | {"hidden_size": hidden_size}))).eval()
    classifier = call(classifier_class, encoder)
    head = getattr(classifier, "head", None)
    if head is None:
        raise Feedback("not yet implemented: Question 1, self.head is None (create nn.Linear(D, 1) in __init__)")
    if not isinstance(head, torch.nn.Linear):
        raise Feedback(f"self.head must be an nn.Linear; yours is {type_of(head).__name__}")
    if tuple(head.weight.shape) != (1, hidden_size):
        raise Feedback(f"self.head maps the [CLS] vector (D = {hidden_size}) to one logit, so its weight is "
                       f"(1, {hidden_size}); yours is {tuple(head.weight.shape)}")
    return classifier.eval(), encoder


def check_head(classifier_class, seed: int, hidden_size: int = 16) -> None:
    built(classifier_class, seed, hidden_size)


def logits_from(encoder, head, data: SentimentBatch, where: str = "cls") -> torch.Tensor:
    """The head's (B,) logits read from [CLS], or from the places the classic mistakes read."""
    mask = None if where == "no_mask" else data.attention_mask
    hidden = encoder(data.input_ids, attention_mask=mask).last_hidden_state  # (B, T, D)
    real = data.attention_mask[..., None].float()  # (B, T, 1)
    last_real = hidden[torch.arange(hidden.size(0)), data.attention_mask.sum(1) - 1]  # (B, D)
    states = {"cls": lambda: hidden[:, 0], "no_mask": lambda: hidden[:, 0], "last": lambda: hidden[:, -1],
              "last_real": lambda: last_real, "mean": lambda: (hidden * real).sum(1) / real.sum(1),
              "mean_all": lambda: hidden.mean(1)}[where]()
    return head(states).squeeze(-1)  # (B,)


def verdict(got: torch.Tensor, expected: torch.Tensor, mistakes: dict[str, torch.Tensor], what: str, where: str) -> Feedback:
    if got.shape != expected.shape:
        return Feedback(f"{where}: your {what} has shape {tuple(got.shape)}, expected {tuple(expected.shape)}")
    shown = [round(v, 4) for v in got.flatten()[:3].tolist()]
    for name, value in mistakes.items():
        if torch.allclose(got, value, atol=1e-5):
            return Feedback(f"{where}: {name} (your {what} {shown} equal{'' if what.endswith('s') else 's'} exactly that; expected "
                            f"{[round(v, 4) for v in expected.flatten()[:3].tolist()]})", name)
    return Feedback(f"{where}: your {what} {shown} differs from the expected value by up to {(got - expected).abs().max().item():.3g}")


@torch.no_grad()
def check_predict(classifier_class, seed: int, size: int = 4, tokens: int = 7) -> None:
    (classifier, encoder), data = built(classifier_class, seed), batch(seed, size, tokens)
    got = call(classifier.predict, data.input_ids, data.attention_mask)
    if not torch.is_tensor(got):
        raise Feedback(f"predict must return a tensor of probabilities, got {type_of(got).__name__}")
    head = classifier.head
    cls = logits_from(encoder, head, data)
    expected = torch.sigmoid(cls)  # (B,)
    if got.shape == expected.shape and torch.allclose(got.double(), expected.double(), atol=1e-5):
        return
    read = lambda where: torch.sigmoid(logits_from(encoder, head, data, where))  # noqa: E731
    mistakes = {"read from the last token instead of [CLS] (position 0)": read("last"),
                "read from the last real token (before the padding) instead of [CLS] (position 0)": read("last_real"),
                "read from the mean of the states instead of [CLS]": read("mean"),
                "read from the mean of all states, padding included, instead of [CLS]": read("mean_all"),
                "called the encoder without its attention mask, so [CLS] attends to the padding": read("no_mask"),
                "softmax over the batch instead of a sigmoid per sentence (the probabilities sum to 1 over the batch)":
                    torch.softmax(cls, dim=0),
                "no sigmoid: these are logits, not probabilities between 0 and 1": cls,
                "sigmoid applied twice (all values squeezed between 0.5 and 0.73)": torch.sigmoid(expected)}
    raise verdict(got.float(), expected, mistakes, "probabilities", "predict")


def step_error(error: Exception, data: SentimentBatch, size: int) -> Feedback:
    """What a crash in training_step says about the loss the student chose."""
    text = str(error)
    if "between 0 and 1" in text:
        return Feedback("no sigmoid where the loss needs one: F.binary_cross_entropy (nn.BCELoss) takes probabilities, so "
                        f"either apply torch.sigmoid first or hand the logits to F.binary_cross_entropy_with_logits. Torch said: {text}",
                        "no sigmoid where the loss needs one")
    if "out of bounds" in text:
        return Feedback("F.cross_entropy on the one-logit head: cross-entropy wants one logit per class, so label 1 has no "
                        f"logit; with one logit use F.binary_cross_entropy_with_logits. Torch said: {text}",
                        "F.cross_entropy on the one-logit head")
    sizes = re.findall(r"torch\.Size\(\[([\d, ]*)\]\)", text)
    if len(sizes) == 2 and sizes[0].count(",") < sizes[1].count(","):  # Target size (B,) vs input size (B, 1)
        return Feedback(f"the head's (B, 1) = ({size}, 1) logits against (B,) labels: squeeze(-1) the logits so both are (B,). "
                        f"Torch said: {text}", "(B, 1) logits against (B,) labels")
    if "Long" in text or "dtype" in text or "Float" in text:
        return Feedback("labels of the wrong dtype: binary cross-entropy needs float labels (labels.float()); the batch holds "
                        f"{data.labels.dtype}. Torch said: {text}", "labels of the wrong dtype")
    if "size" in text or "shape" in text:
        return Feedback(f"labels of the wrong shape: the loss needs labels shaped like the (B,) = ({size},) logits. "
                        f"Torch said: {text}", "labels of the wrong shape")
    return Feedback(f"your code raised {type(error).__name__}: {text}")


def check_training_step(classifier_class, seed: int, size: int = 4, tokens: int = 7) -> str:
    """Returns how the loss reduces over the batch: "mean" or "sum", both accepted (with Adam or AdamW they
    train alike, benchmarks/homework_fine_tuning.py --sum; question 4's diagnosis reads a sum per sentence)."""
    (classifier, encoder), data = built(classifier_class, seed), batch(seed, size, tokens)
    classifier.train()
    try:
        got = classifier.training_step(data)
    except NotImplementedError as error:
        raise Feedback(f"not yet implemented: {error}") from None
    except Exception as error:  # any crash in the student's code is feedback, never a grader error
        raise step_error(error, data, size) from None
    if not torch.is_tensor(got) or got.dim() != 0:
        raise Feedback(f"training_step must return one scalar tensor, got {getattr(got, 'shape', type_of(got).__name__)}")
    if not got.requires_grad:
        raise Feedback("the loss does not require grad, so nothing can learn: compute it with autograd on",
                       "the loss does not require grad")
    with torch.no_grad():
        logits, labels = logits_from(encoder, classifier.head, data), data.labels.float()
        expected = F.binary_cross_entropy_with_logits(logits, labels)
        accepted = {"mean": expected, "sum": F.binary_cross_entropy_with_logits(logits, labels, reduction="sum")}
        mistakes = {"sigmoid applied before a loss that already applies it (BCE-with-logits of probabilities)":
                    F.binary_cross_entropy_with_logits(torch.sigmoid(logits), labels),
                    "labels of the wrong shape: (B, 1) labels against (B,) logits broadcast to a (B, B) loss":
                    F.binary_cross_entropy_with_logits(logits[None, :].expand(size, size), labels[:, None].expand(size, size)),
                    "read from the last token instead of [CLS]":
                    F.binary_cross_entropy_with_logits(logits_from(encoder, classifier.head, data, "last"), labels),
                    "F.cross_entropy on the one-logit head (it read the batch as one sentence with B classes)":
                    F.cross_entropy(logits, labels)}
        if ((logits > 0) & (logits < 1)).all():  # then F.binary_cross_entropy accepts the logits without a word
            mistakes["no sigmoid where the loss needs one (F.binary_cross_entropy of logits)"] = F.binary_cross_entropy(logits, labels)
    for reduction, value in accepted.items():
        if abs(got.item() - value.item()) <= 1e-5:
            return reduction
    raise verdict(got.detach().reshape(1).float(), expected.reshape(1), {k: v.reshape(1) for k, v in mistakes.items()},
                  "loss", "training_step")
