"""Homework 2: the solution passes every check, and each classic mistake is named in the feedback."""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from anatomy.homework import sentiment as hw
from anatomy.homework.sentiment import checks, run_checks
from anatomy.training import train


class Solution(nn.Module):
    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(encoder.config.hidden_size, 1)

    def forward(self, input_ids, attention_mask):
        return self.encoder(input_ids, attention_mask=attention_mask).last_hidden_state

    def logits(self, batch):
        return self.head(self(batch.input_ids, batch.attention_mask)[:, 0]).squeeze(-1)

    def predict(self, input_ids, attention_mask):
        return torch.sigmoid(self.head(self(input_ids, attention_mask)[:, 0])).squeeze(-1)

    def training_step(self, batch):
        return F.binary_cross_entropy_with_logits(self.logits(batch), batch.labels.float())


def fine_tune_run(classifier, batches, steps, lr=1e-4):
    optimizer = torch.optim.AdamW(classifier.parameters(), lr=lr, weight_decay=0.01)
    return train(classifier, batches, lambda m, b: m.training_step(b), steps, optimizer=optimizer,
                 warmup_steps=steps // 10, progress=False)


def evaluate(classifier, batches, eval_mode=True, no_grad=True):
    classifier.eval() if eval_mode else classifier.train()
    correct = 0
    with torch.set_grad_enabled(not no_grad):
        for b in batches:
            correct += ((classifier.predict(b.input_ids, b.attention_mask) > 0.5).long() == b.labels).sum().item()
    return correct / sum(len(b.labels) for b in batches)


def variant(**methods):
    return type("Mistake", (Solution,), methods)


class WrongHeadShape(Solution):
    def __init__(self, encoder):
        super().__init__(encoder)
        self.head = nn.Linear(encoder.config.hidden_size, 2)


PREDICT_MISTAKES = {
    "last token": lambda self, i, m: torch.sigmoid(self.head(self(i, m)[:, -1])).squeeze(-1),
    "mean of the states instead": lambda self, i, m: torch.sigmoid(
        self.head((self(i, m) * m[..., None]).sum(1) / m.sum(1, keepdim=True))).squeeze(-1),
    "padding included": lambda self, i, m: torch.sigmoid(self.head(self(i, m).mean(1))).squeeze(-1),
    "no sigmoid": lambda self, i, m: self.head(self(i, m)[:, 0]).squeeze(-1),
    "sigmoid applied twice": lambda self, i, m: torch.sigmoid(torch.sigmoid(self.head(self(i, m)[:, 0]))).squeeze(-1),
    "shape (4, 1)": lambda self, i, m: torch.sigmoid(self.head(self(i, m)[:, 0])),
}

STEP_MISTAKES = {
    "sigmoid applied before a loss that already applies it":
        lambda self, b: F.binary_cross_entropy_with_logits(torch.sigmoid(self.logits(b)), b.labels.float()),
    "labels of the wrong dtype": lambda self, b: F.binary_cross_entropy_with_logits(self.logits(b), b.labels),
    "labels of the wrong shape: the loss needs":
        lambda self, b: F.binary_cross_entropy_with_logits(self.logits(b), b.labels.float()[:, None]),
    "labels of the wrong shape: (B, 1) labels against (B,) logits":
        lambda self, b: (-(b.labels.float()[:, None] * F.logsigmoid(self.logits(b)[None, :])
                           + (1 - b.labels.float()[:, None]) * F.logsigmoid(-self.logits(b)[None, :]))).mean(),
    "the sum over the batch": lambda self, b: F.binary_cross_entropy_with_logits(self.logits(b), b.labels.float(),
                                                                                reduction="sum"),
    "last token instead of [CLS]": lambda self, b: F.binary_cross_entropy_with_logits(
        self.head(self(b.input_ids, b.attention_mask)[:, -1]).squeeze(-1), b.labels.float()),
    "does not require grad": lambda self, b: F.binary_cross_entropy_with_logits(self.logits(b), b.labels.float()).detach(),
}


@pytest.mark.parametrize("seed, extra", [(0, {}), (17, {"size": 5, "tokens": 9})])
def test_solution_passes_questions_1_to_3(seed, extra):
    assert hw.check_head.feedback(Solution, seed) is None
    assert hw.check_predict.feedback(Solution, seed, **extra) is None
    assert hw.check_training_step.feedback(Solution, seed, **extra) is None


def test_untouched_stubs_say_not_yet_implemented():
    stub = variant(predict=lambda self, i, m: (_ for _ in ()).throw(NotImplementedError("Question 2: predict")))
    assert "not yet implemented: Question 2" in hw.check_predict.feedback(stub, 0)
    headless = type("Stub", (Solution,), {"__init__": lambda self, e: (nn.Module.__init__(self), setattr(self, "encoder", e),
                                                                       setattr(self, "head", None))[0]})
    assert "not yet implemented: Question 1, self.head is None" in hw.check_head.feedback(headless, 0)


def test_head_of_the_wrong_width():
    assert "its weight is (1, 16); yours is (2, 16)" in hw.check_head.feedback(WrongHeadShape, 0)


@pytest.mark.parametrize("name", PREDICT_MISTAKES)
def test_predict_mistakes_are_named(name):
    assert name in (hw.check_predict.feedback(variant(predict=PREDICT_MISTAKES[name]), 0) or "passed")


@pytest.mark.parametrize("name", STEP_MISTAKES)
def test_training_step_mistakes_are_named(name):
    assert name in (hw.check_training_step.feedback(variant(training_step=STEP_MISTAKES[name]), 0) or "passed")


def test_solution_reaches_the_required_accuracy():
    accuracy = run_checks.check_fine_tuning(Solution, fine_tune_run, evaluate, seed=0)
    print(f"question 4, solution: {accuracy:.1%} test accuracy")
    assert accuracy >= hw.REQUIRED_ACCURACY


def frozen_run(classifier, batches, steps):
    classifier.encoder.requires_grad_(False)
    return fine_tune_run(classifier, batches, steps)


@pytest.mark.parametrize("tune, score, message", [
    (frozen_run, evaluate, "the encoder was left frozen"),
    (lambda c, b, s: fine_tune_run(c, b, s, lr=5e-2), evaluate, "the learning rate is too high: the loss diverged or never went down"),
    (fine_tune_run, lambda c, b: evaluate(c, b, eval_mode=False), "evaluation ran in training mode"),
    (fine_tune_run, lambda c, b: evaluate(c, b, no_grad=False), "evaluation ran with autograd on"),
], ids=["frozen", "diverging", "no_eval", "no_grad"])
def test_run_mistakes_are_named(tune, score, message):
    assert message in (hw.check_fine_tuning.feedback(Solution, tune, score, seed=0) or "passed")


def test_student_version_has_stubs_and_no_solutions_or_hidden_tests():
    from pathlib import Path

    root = Path(__file__).parent.parent
    student = (root / "notebooks" / "10_homework_sentiment.py").read_text()
    master = (root / "instructor" / "10_homework_sentiment.py").read_text()
    assert 'raise NotImplementedError("Question 3: training_step")' in student
    assert "binary_cross_entropy_with_logits(logits" in master
    assert "binary_cross_entropy_with_logits(logits" not in student and "lr=1e-4" not in student
    assert "seed=2718" in master and "seed=2718" not in student and "seed=23" not in student
    assert "Rubric" not in student and "hw.check_predict(SentimentClassifier, seed=0)" in student
