"""Checks for questions 1-3 of homework 2, sentiment fine-tuning (notebook 10): the head, predict, training_step.

Each runs the student's SentimentClassifier around a tiny random BERT on seeded inputs (public tests
use one seed, hidden tests others drawn from the instructor's secret) and raises Feedback naming the
classic mistake and the value that gave it away. Shapes: B batch, T tokens, D model width.
"""
from __future__ import annotations

from types import SimpleNamespace

import torch
import torch.nn.functional as F

from anatomy.encoder import TransformerEncoder
from anatomy.homework.feedback import Feedback, call
from anatomy.sentiment_batches import SentimentBatch

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
    """The student's classifier around a tiny random encoder; its head must be nn.Linear(D, 1)."""
    torch.manual_seed(seed)
    encoder = TransformerEncoder(SimpleNamespace(**(TINY | {"hidden_size": hidden_size}))).eval()
    classifier = call(classifier_class, encoder)
    head = getattr(classifier, "head", None)
    if head is None:
        raise Feedback("not yet implemented: Question 1, self.head is None (create nn.Linear(D, 1) in __init__)")
    if not isinstance(head, torch.nn.Linear):
        raise Feedback(f"self.head must be an nn.Linear; yours is {type(head).__name__}")
    if tuple(head.weight.shape) != (1, hidden_size):
        raise Feedback(f"self.head maps the [CLS] vector (D = {hidden_size}) to one logit, so its weight is "
                             f"(1, {hidden_size}); yours is {tuple(head.weight.shape)}")
    return classifier.eval()


def check_head(classifier_class, seed: int, hidden_size: int = 16) -> None:
    built(classifier_class, seed, hidden_size)


def logits_from(classifier, data: SentimentBatch, where: str = "cls") -> torch.Tensor:
    """The head's (B,) logits read from [CLS], or from the places the classic mistakes read."""
    hidden = classifier.encoder(data.input_ids, attention_mask=data.attention_mask).last_hidden_state  # (B, T, D)
    real = data.attention_mask[..., None].float()  # (B, T, 1)
    states = {"cls": lambda: hidden[:, 0], "last": lambda: hidden[:, -1],
              "mean": lambda: (hidden * real).sum(1) / real.sum(1), "mean_all": lambda: hidden.mean(1)}[where]()
    return classifier.head(states).squeeze(-1)  # (B,)


def verdict(got: torch.Tensor, expected: torch.Tensor, mistakes: dict[str, torch.Tensor], what: str) -> str:
    if got.shape != expected.shape:
        return f"your {what} has shape {tuple(got.shape)}, expected {tuple(expected.shape)}"
    shown = [round(v, 4) for v in got.flatten()[:3].tolist()]
    for name, value in mistakes.items():
        if torch.allclose(got, value, atol=1e-5):
            return f"{name} (your {what} {shown} equals exactly that; expected {[round(v, 4) for v in expected.flatten()[:3].tolist()]})"
    return f"your {what} {shown} differs from the expected value by up to {(got - expected).abs().max().item():.3g}"


@torch.no_grad()
def check_predict(classifier_class, seed: int, size: int = 4, tokens: int = 7) -> None:
    classifier, data = built(classifier_class, seed), batch(seed, size, tokens)
    got = call(classifier.predict, data.input_ids, data.attention_mask)
    if not torch.is_tensor(got):
        raise Feedback(f"predict must return a tensor of probabilities, got {type(got).__name__}")
    cls = logits_from(classifier, data)
    expected = torch.sigmoid(cls)  # (B,)
    if got.shape == expected.shape and torch.allclose(got.float(), expected, atol=1e-5):
        return
    mistakes = {"read from the last token instead of [CLS] (position 0)": torch.sigmoid(logits_from(classifier, data, "last")),
                "read from the mean of the states instead of [CLS]": torch.sigmoid(logits_from(classifier, data, "mean")),
                "read from the mean of all states, padding included, instead of [CLS]":
                    torch.sigmoid(logits_from(classifier, data, "mean_all")),
                "no sigmoid: these are logits, not probabilities between 0 and 1": cls,
                "sigmoid applied twice (all values squeezed between 0.5 and 0.73)": torch.sigmoid(expected)}
    raise Feedback("predict: " + verdict(got.float(), expected, mistakes, "probabilities"))


def check_training_step(classifier_class, seed: int, size: int = 4, tokens: int = 7) -> None:
    classifier, data = built(classifier_class, seed), batch(seed, size, tokens)
    classifier.train()
    try:
        got = classifier.training_step(data)
    except NotImplementedError as error:
        raise Feedback(f"not yet implemented: {error}") from None
    except (RuntimeError, ValueError) as error:
        text = str(error)
        if "between 0 and 1" in text:
            raise Feedback("no sigmoid where the loss needs one: F.binary_cross_entropy (nn.BCELoss) takes "
                           "probabilities, so either apply torch.sigmoid first or hand the logits to "
                           f"F.binary_cross_entropy_with_logits. Torch said: {text}") from None
        if "Long" in text or "dtype" in text or "Float" in text:
            raise Feedback("labels of the wrong dtype: binary cross-entropy needs float labels (labels.float()); "
                                 f"the batch holds {data.labels.dtype}. Torch said: {text}") from None
        if "size" in text or "shape" in text:
            raise Feedback(f"labels of the wrong shape: the loss needs labels shaped like the (B,) = ({size},) "
                                 f"logits. Torch said: {text}") from None
        raise Feedback(f"your code raised {type(error).__name__}: {text}") from None
    except Exception as error:  # any crash in the student's code is feedback, never a grader error
        raise Feedback(f"your code raised {type(error).__name__}: {error}") from None
    if not torch.is_tensor(got) or got.dim() != 0:
        raise Feedback(f"training_step must return one scalar tensor, got {getattr(got, 'shape', type(got))}")
    if not got.requires_grad:
        raise Feedback("the loss does not require grad, so nothing can learn: compute it with autograd on")
    with torch.no_grad():
        logits, labels = logits_from(classifier, data), data.labels.float()
        expected = F.binary_cross_entropy_with_logits(logits, labels)
        mistakes = {"sigmoid applied before a loss that already applies it (BCE-with-logits of probabilities)":
                    F.binary_cross_entropy_with_logits(torch.sigmoid(logits), labels),
                    "the sum over the batch instead of the mean": F.binary_cross_entropy_with_logits(logits, labels, reduction="sum"),
                    "labels of the wrong shape: (B, 1) labels against (B,) logits broadcast to a (B, B) loss":
                    F.binary_cross_entropy_with_logits(logits[None, :].expand(size, size), labels[:, None].expand(size, size)),
                    "read from the last token instead of [CLS]":
                    F.binary_cross_entropy_with_logits(logits_from(classifier, data, "last"), labels)}
        if ((logits > 0) & (logits < 1)).all():  # then F.binary_cross_entropy accepts the logits without a word
            mistakes["no sigmoid where the loss needs one (F.binary_cross_entropy of logits)"] = \
                F.binary_cross_entropy(logits, labels)
    if abs(got.item() - expected.item()) > 1e-5:
        raise Feedback("training_step: " + verdict(got.detach().reshape(1), expected.reshape(1),
                                                         {k: v.reshape(1) for k, v in mistakes.items()}, "loss"))
