"""Homework 2 (notebook 10): each named mistake is caught and named by its graded check (in-process,
over the master's own solution), and the homework as instructors use it, through otter: the solution
earns full marks, the untouched student version scores 0 readably, a submission with several mistakes
loses exactly those questions, switching the checks off scores 0, a secret reseeds only hidden tests."""
import re
from pathlib import Path

import nbformat
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from anatomy.homework import sentiment as hw
from anatomy.training import train
from otter_grading import Gradings, assign, assign_script, check_assigned, submission

ROOT = Path(__file__).parent.parent
MASTER = ROOT / "instructor" / "10_homework_sentiment.ipynb"
NAME = MASTER.name
ANSWERS = {"q1": "class SentimentClassifier", "q2": "class SentimentClassifier", "q3": "class SentimentClassifier",
           "q4": "def fine_tune_run"}
FULL = {"q1": 1, "q2": 3, "q3": 3, "q4": 4}
HIDDEN_SEEDS = r"seed=(31|17|23|2718)\b"


def method(name, args, body):
    return f"class SentimentClassifier(SentimentClassifier):\n    def {name}(self, {args}):\n        {body}\n"


def predict(body):
    return method("predict", "input_ids, attention_mask", "states = self(input_ids, attention_mask)  # (B, T, D)\n"
                  "        real = attention_mask[..., None].float()\n        return " + body)


def step(body):
    return method("training_step", "batch", "logits = self.head(self(batch.input_ids, batch.attention_mask)[:, 0]).squeeze(-1)\n"
                  "        labels = batch.labels\n        return " + body)


EVALUATE = """def evaluate(classifier, batches):
    {eval}
    correct = 0
    with {no_grad}:
        for batch in batches:
            correct += ((classifier.predict(batch.input_ids, batch.attention_mask) > 0.5).long() == batch.labels).sum().item()
    return correct / sum(len(batch.labels) for batch in batches)
"""
RUN = """def fine_tune_run(classifier, batches, steps):
    {freeze}
    optimizer = torch.optim.AdamW(classifier.parameters(), lr={lr}, weight_decay=0.01)
    return train(classifier, batches, lambda model, batch: model.training_step(batch), steps,
                 optimizer=optimizer, warmup_steps=steps // 10, progress=False)
"""
MISTAKE_PLAYS = [  # (question, words in the feedback, the student's wrong answer over the solution)
    ("q1", "its weight is (1, 16); yours is (2, 16)", "class SentimentClassifier(SentimentClassifier):\n"
     "    def __init__(self, encoder):\n        super().__init__(encoder)\n"
     "        self.head = nn.Linear(encoder.config.hidden_size, 2)\n"),
    ("q2", "read from the last token instead of [CLS]", predict("torch.sigmoid(self.head(states[:, -1])).squeeze(-1)")),
    ("q2", "read from the mean of the states instead of [CLS]",
     predict("torch.sigmoid(self.head((states * real).sum(1) / real.sum(1))).squeeze(-1)")),
    ("q2", "mean of all states, padding included", predict("torch.sigmoid(self.head(states.mean(1))).squeeze(-1)")),
    ("q2", "no sigmoid: these are logits", predict("self.head(states[:, 0]).squeeze(-1)")),
    ("q2", "sigmoid applied twice", predict("torch.sigmoid(torch.sigmoid(self.head(states[:, 0]))).squeeze(-1)")),
    ("q2", "has shape (4, 1), expected (4,)", predict("torch.sigmoid(self.head(states[:, 0]))")),
    ("q3", "sigmoid applied before a loss that already applies it",
     step("F.binary_cross_entropy_with_logits(torch.sigmoid(logits), labels.float())")),
    ("q3", "no sigmoid where the loss needs one", step("F.binary_cross_entropy(logits, labels.float())")),
    ("q3", "labels of the wrong dtype", step("F.binary_cross_entropy_with_logits(logits, labels)")),
    ("q3", "labels of the wrong shape: the loss needs labels shaped like",
     step("F.binary_cross_entropy_with_logits(logits, labels.float()[:, None])")),
    ("q3", "labels of the wrong shape: (B, 1) labels against (B,) logits broadcast", step(
        "-(labels.float()[:, None] * F.logsigmoid(logits) + (1 - labels.float()[:, None]) * F.logsigmoid(-logits)).mean()")),
    ("q3", "the sum over the batch instead of the mean",
     step("F.binary_cross_entropy_with_logits(logits, labels.float(), reduction='sum')")),
    ("q3", "read from the last token instead of [CLS]", step("F.binary_cross_entropy_with_logits("
     "self.head(self(batch.input_ids, batch.attention_mask)[:, -1]).squeeze(-1), labels.float())")),
    ("q3", "the loss does not require grad", step("F.binary_cross_entropy_with_logits(logits, labels.float()).detach()")),
]
RUN_PLAYS = [  # question 4: each costs a real fine-tuning run, so they are graded in-process only
    ("the encoder was left frozen", RUN.format(freeze="classifier.encoder.requires_grad_(False)", lr="1e-4")),
    ("the learning rate is too high: the loss diverged or never went down", RUN.format(freeze="", lr="5e-2")),
    ("evaluation ran in training mode", EVALUATE.format(eval="", no_grad="torch.no_grad()")),
    ("evaluation ran with autograd on", EVALUATE.format(eval="classifier.eval()", no_grad="torch.enable_grad()")),
]


def answers_namespace(*plays):
    """The master's answers (class, fine_tune_run, evaluate) defined as in the notebook, then `plays`."""
    namespace = {"torch": torch, "F": F, "nn": nn, "train": train}
    for cell in nbformat.read(MASTER, as_version=4).cells:
        if cell.cell_type == "code" and cell.source.startswith(tuple(ANSWERS.values())):
            exec(cell.source, namespace)
    for code in plays:
        exec(code, namespace)
    return namespace


def fine_tuning_feedback(namespace, seed=0):
    return hw.check_fine_tuning.feedback(namespace["SentimentClassifier"], namespace["fine_tune_run"],
                                         namespace["evaluate"], seed=seed)


@pytest.mark.parametrize("seed, extra", [(0, {}), (17, {"size": 5, "tokens": 9})])
def test_solution_passes_questions_1_to_3(seed, extra):
    solution = answers_namespace()["SentimentClassifier"]
    assert hw.check_head.feedback(solution, seed) is None
    assert hw.check_predict.feedback(solution, seed, **extra) is None
    assert hw.check_training_step.feedback(solution, seed, **extra) is None


@pytest.mark.parametrize("question, words, code", MISTAKE_PLAYS, ids=[w for _, w, _ in MISTAKE_PLAYS])
def test_each_named_mistake_appears_in_its_graded_checks_feedback(question, words, code):
    mistaken = answers_namespace(code)["SentimentClassifier"]
    check = {"q1": hw.check_head, "q2": hw.check_predict, "q3": hw.check_training_step}[question]
    feedback = check.feedback(mistaken, 0)
    assert feedback is not None and words in feedback, (words, feedback)


@pytest.mark.parametrize("words, code", RUN_PLAYS, ids=["frozen", "diverging", "no_eval", "no_grad"])
def test_each_run_mistake_is_named(words, code):
    feedback = fine_tuning_feedback(answers_namespace(code))
    assert feedback is not None and words in feedback, (words, feedback)


def test_mistakes_in_questions_2_and_3_do_not_cost_question_4():
    """q4 fine-tunes with a correct predict and training_step in place of wrong ones (and passes)."""
    wrong = [code for _, words, code in MISTAKE_PLAYS if words in ("read from the last token instead of [CLS]",
                                                                   "sigmoid applied before a loss that already applies it")]
    assert len(wrong) == 3
    assert fine_tuning_feedback(answers_namespace(wrong[0], wrong[2])) is None
    shown = hw.wrong_predictions(seed=0)  # question 5 reads the classifier that this check fine-tuned
    assert len(shown) == 8 and all(label in (0, 1) and (probability > 0.5) != label for label, probability, _ in shown)


def test_untouched_stubs_say_not_yet_implemented():
    stub = answers_namespace("class SentimentClassifier(SentimentClassifier):\n    def __init__(self, encoder):\n"
                             "        super().__init__(encoder)\n        self.head = None\n")["SentimentClassifier"]
    assert "not yet implemented: Question 1, self.head is None" in hw.check_head.feedback(stub, 0)
    assert "not yet implemented: Question 4" in hw.check_fine_tuning.feedback(stub, None, None, seed=0)


def test_a_patched_library_scores_zero_in_process(monkeypatch):
    wrong = answers_namespace(WRONG_ANSWERS["q2"])["SentimentClassifier"]
    assert "predict" in hw.check_predict.feedback(wrong, 0)
    monkeypatch.setattr(torch, "allclose", lambda *a, **k: True)  # would pass the zeros if the checks trusted it
    assert "your notebook replaced torch.allclose" in hw.check_predict.feedback(wrong, 0)


# The homework as instructors use it: otter assign + otter run.

@pytest.fixture(scope="session")
def assigned(tmp_path_factory):
    return assign(MASTER, tmp_path_factory.mktemp("homework_sentiment"))


def scores(results):
    return {q: t["score"] for q, t in results.items()}


def test_assign_writes_student_solution_and_autograder(assigned):
    check_assigned(assigned, NAME)


def test_committed_student_version_has_stubs_public_tests_and_no_solutions_or_hidden_tests():
    text = (ROOT / "notebooks" / NAME).read_text() + (ROOT / "notebooks" / NAME).with_suffix(".py").read_text()
    assert 'raise NotImplementedError("Question 3: training_step")' in text
    assert "binary_cross_entropy_with_logits(logits" not in text and "optim.AdamW(classifier.parameters()" not in text
    assert "**Solution.**" not in text and "Rubric" not in text
    assert "hw.check_predict(SentimentClassifier, seed=0)" in text, "public tests stay in the student version"
    assert not re.search(HIDDEN_SEEDS, text), "hidden tests must not reach students"


WRONG_ANSWERS = {"q2": "class SentimentClassifier(SentimentClassifier):\n    def __init__(self, encoder):\n"
                 "        super().__init__(encoder)\n        self.head = nn.Linear(encoder.config.hidden_size, 1)\n\n"
                 "    def predict(self, input_ids, attention_mask):\n        return torch.zeros(input_ids.size(0))\n\n"
                 "    def training_step(self, batch):\n        return self.head.bias.sum() * 0\n"}
TAMPERS = {  # each would give the wrong answers above full marks on q2 and q3 if it worked
    "rebind": "hw.check_predict = hw.check_training_step = lambda *a, **k: None\n",
    "rebind-hw": "from types import SimpleNamespace\nhw = SimpleNamespace(**{n: (lambda *a, **k: None) for n in "
                 "['check_head', 'check_predict', 'check_training_step', 'check_fine_tuning']})\n",
    "patch-allclose": "torch.allclose = lambda *a, **k: True\ntorch.testing.assert_close = lambda *a, **k: None\n",
}
TAMPER_RUNS = {"rebind-checks-and-hw": (("rebind", "rebind-hw"), {"q1": 1, "q2": 0, "q3": 0, "q4": 0}),  # the head is right
               "patch-allclose": (("patch-allclose",), {"q1": 0, "q2": 0, "q3": 0, "q4": 0})}  # fails every question
SEVERAL_MISTAKES = {("q2", "read from the last token instead of [CLS]"), ("q3", "labels of the wrong dtype")}


def several_mistakes():
    """A q2, a q3 and a q4 mistake in one submission."""
    plays = {q: code for q, words, code in MISTAKE_PLAYS if (q, words) in SEVERAL_MISTAKES}
    assert set(plays) == {"q2", "q3"}
    plays["q4"] = dict((w, c) for w, c in RUN_PLAYS)["evaluation ran in training mode"]
    return plays


@pytest.fixture(scope="session")
def graded(assigned, tmp_path_factory):
    """Every otter run of this file, graded two at a time when the first test needs one."""
    runs = Gradings(assigned, tmp_path_factory.mktemp("graded_sentiment"))
    runs.add("solution", lambda folder: assigned / "autograder" / NAME)
    runs.add("untouched", lambda folder: assigned / "student" / NAME)
    runs.add("several_mistakes", lambda folder: submission(assigned / "autograder" / NAME, ANSWERS, folder,
                                                           several_mistakes()))
    for name, (tampers, _) in TAMPER_RUNS.items():
        tamper = "\n".join(f"try:\n    exec({TAMPERS[t]!r})\nexcept Exception as error:\n    print(error)" for t in tampers)
        runs.add(name, lambda folder, tamper=tamper: submission(assigned / "student" / NAME, ANSWERS, folder,
                                                                WRONG_ANSWERS, after_imports=tamper))
    return runs.grade()


def test_solution_earns_full_marks(graded):
    assert scores(graded["solution"]) == FULL, graded["solution"]


def test_untouched_student_version_scores_zero_readably(graded):
    results = graded["untouched"]
    assert set(results) == set(FULL)
    for name, test in results.items():
        assert test["score"] == 0 and "not yet implemented: Question" in test["output"], test["output"][-300:]
        assert "Traceback" not in test["output"], "feedback never shows the checker's source lines"


def test_several_mistakes_cost_exactly_their_questions(graded):
    """One submission with a q2, a q3 and a q4 mistake: 0 on those three, q1 keeps its mark."""
    results = graded["several_mistakes"]
    assert scores(results) == FULL | {"q2": 0, "q3": 0, "q4": 0}, results
    assert "read from the last token instead of [CLS]" in results["q2"]["output"]
    assert "labels of the wrong dtype" in results["q3"]["output"]
    assert "evaluation ran in training mode" in results["q4"]["output"]


@pytest.mark.parametrize("name", TAMPER_RUNS)
def test_switching_the_checks_off_scores_zero(graded, name):
    results, expected = graded[name], TAMPER_RUNS[name][1]
    assert scores(results) == expected, {q: t["output"][-300:] for q, t in results.items()}


def test_a_secret_reseeds_the_hidden_tests_only():
    assign_module = assign_script()
    original, secret = nbformat.read(MASTER, as_version=4), assign_module.reseeded(MASTER, "s3cret")
    changed = [new.source for old, new in zip(original.cells, secret.cells) if old.source != new.source]
    assert len(changed) == 4 and all(source.startswith("# HIDDEN") for source in changed), changed
    assert not re.search(HIDDEN_SEEDS, "".join(changed))
    assert [c.source for c in assign_module.reseeded(MASTER, "s3cret").cells] == [c.source for c in secret.cells]
