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
from anatomy.homework.messages import Message
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
        raise Feedback("st_no_head")
    if not isinstance(head, torch.nn.Linear):
        raise Feedback("st_head_type", got=type_of(head).__name__)
    if tuple(head.weight.shape) != (1, hidden_size):
        raise Feedback("st_head_shape", size=hidden_size, one=1, got=tuple(head.weight.shape))
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
    """The Feedback on `got` (`what`: a "what_..." key; `mistakes`: a named mistake's key -> its value)."""
    what = Message(what)
    if got.shape != expected.shape:
        return Feedback("st_shape", where=where, what=what, got=tuple(got.shape), expected=tuple(expected.shape))
    shown = [round(v, 4) for v in got.flatten()[:3].tolist()]
    for key, value in mistakes.items():
        if torch.allclose(got, value, atol=1e-5):
            name = Message(key)
            return Feedback("st_named" if what.key.endswith("s") else "st_named_one", name, where=where, name=name,
                            what=what, shown=shown, expected=[round(v, 4) for v in expected.flatten()[:3].tolist()])
    return Feedback("st_differs", where=where, what=what, shown=shown, gap=(got - expected).abs().max().item())


@torch.no_grad()
def check_predict(classifier_class, seed: int, size: int = 4, tokens: int = 7) -> None:
    (classifier, encoder), data = built(classifier_class, seed), batch(seed, size, tokens)
    got = call(classifier.predict, data.input_ids, data.attention_mask)
    if not torch.is_tensor(got):
        raise Feedback("st_not_probabilities", got=type_of(got).__name__)
    head = classifier.head
    cls = logits_from(encoder, head, data)
    expected = torch.sigmoid(cls)  # (B,)
    if got.shape == expected.shape and torch.allclose(got.double(), expected.double(), atol=1e-5):
        return
    read = lambda where: torch.sigmoid(logits_from(encoder, head, data, where))  # noqa: E731
    mistakes = {"st_last": read("last"), "st_last_real": read("last_real"), "st_mean": read("mean"),
                "st_mean_all": read("mean_all"), "st_no_mask": read("no_mask"),
                "st_softmax_batch": torch.softmax(cls, dim=0), "st_no_sigmoid": cls,
                "st_sigmoid_twice": torch.sigmoid(expected)}  # each a named mistake's catalogue key
    raise verdict(got.float(), expected, mistakes, "what_probabilities", "predict")


def step_error(error: Exception, data: SentimentBatch, size: int) -> Feedback:
    """What a crash in training_step says about the loss the student chose."""
    text = str(error)
    if "between 0 and 1" in text:
        return Feedback("st_needs_sigmoid", "st_needs_sigmoid_name", error=text)
    if "out of bounds" in text:
        return Feedback("st_cross_entropy", "st_cross_entropy_name", error=text)
    sizes = re.findall(r"torch\.Size\(\[([\d, ]*)\]\)", text)
    if len(sizes) == 2 and sizes[0].count(",") < sizes[1].count(","):  # Target size (B,) vs input size (B, 1)
        return Feedback("st_logit_shape", "st_logit_shape_name", size=size, error=text)
    if "Long" in text or "dtype" in text or "Float" in text:
        return Feedback("st_label_dtype", "st_label_dtype_name", dtype=str(data.labels.dtype), error=text)
    if "size" in text or "shape" in text:
        return Feedback("st_label_shape", "st_label_shape_name", size=size, error=text)
    return Feedback("code_raised", error_type=type(error).__name__, error=text)


def check_training_step(classifier_class, seed: int, size: int = 4, tokens: int = 7) -> str:
    """Returns how the loss reduces over the batch: "mean" or "sum", both accepted (with Adam or AdamW they
    train alike, benchmarks/homework_fine_tuning.py --sum; question 4's diagnosis reads a sum per sentence)."""
    (classifier, encoder), data = built(classifier_class, seed), batch(seed, size, tokens)
    classifier.train()
    try:
        got = classifier.training_step(data)
    except NotImplementedError as error:
        raise Feedback("not_implemented", error=str(error)) from None
    except Exception as error:  # any crash in the student's code is feedback, never a grader error
        raise step_error(error, data, size) from None
    if not torch.is_tensor(got) or got.dim() != 0:
        raise Feedback("st_not_scalar", got=getattr(got, "shape", type_of(got).__name__))
    if not got.requires_grad:
        raise Feedback("st_no_grad", "st_no_grad_name")
    with torch.no_grad():
        logits, labels = logits_from(encoder, classifier.head, data), data.labels.float()
        expected = F.binary_cross_entropy_with_logits(logits, labels)
        accepted = {"mean": expected, "sum": F.binary_cross_entropy_with_logits(logits, labels, reduction="sum")}
        mistakes = {"st_sigmoid_before": F.binary_cross_entropy_with_logits(torch.sigmoid(logits), labels),
                    "st_broadcast_labels": F.binary_cross_entropy_with_logits(logits[None, :].expand(size, size),
                                                                              labels[:, None].expand(size, size)),
                    "st_last_loss": F.binary_cross_entropy_with_logits(logits_from(encoder, classifier.head, data, "last"),
                                                                       labels),
                    "st_cross_entropy_batch": F.cross_entropy(logits, labels)}  # each a named mistake's catalogue key
        if ((logits > 0) & (logits < 1)).all():  # then F.binary_cross_entropy accepts the logits without a word
            mistakes["st_bce_of_logits"] = F.binary_cross_entropy(logits, labels)
    for reduction, value in accepted.items():
        if abs(got.item() - value.item()) <= 1e-5:
            return reduction
    raise verdict(got.detach().reshape(1).float(), expected.reshape(1), {k: v.reshape(1) for k, v in mistakes.items()},
                  "what_loss", "training_step")
