"""Homework 2 (notebook 10): each named mistake is caught and named by its graded check (in-process,
over the master's own solution); question 4's runs, made in the trusted grader's child as in a real
grading, are named from what they leave behind (too low, too high, no zero_grad, frozen encoder) and
a mistake in questions 2-3 costs only its own question; and the homework as instructors grade it
(`python -m anatomy_grading grade`): the solution earns full marks, the untouched student version
scores 0 readably, the routes of issue #23 (the graders' reference code, tampering, a label lookup,
other review data) score 0 on their question, a secret reseeds only hidden tests."""
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from anatomy.models.encoder import TransformerEncoder
from anatomy.homework import sentiment as hw
from anatomy.homework.sentiment import checks
from anatomy.tasks.training import train
from grading_helpers import ONE_THREAD, assign, assign_script, by_question, check_assigned, korean_edition, submission

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
NO_ZERO_GRAD = """def fine_tune_run(classifier, batches, steps):
    optimizer = torch.optim.AdamW(classifier.parameters(), lr=1e-4, weight_decay=0.01)
    classifier.train()
    losses = []
    for _ in range(steps):
        loss = classifier.training_step(next(batches))
        loss.backward()  # no optimizer.zero_grad(): every step adds to the earlier gradients
        optimizer.step()
        losses.append(loss.item())
    return types.SimpleNamespace(losses=losses)
"""
MISTAKE_PLAYS = [  # (question, words in the feedback, the student's wrong answer over the solution)
    ("q1", "its weight is (1, 16); yours is (2, 16)", "class SentimentClassifier(SentimentClassifier):\n"
     "    def __init__(self, encoder):\n        super().__init__(encoder)\n"
     "        self.head = nn.Linear(encoder.config.hidden_size, 2)\n"),
    ("q2", "read from the last token instead of [CLS]", predict("torch.sigmoid(self.head(states[:, -1])).squeeze(-1)")),
    ("q2", "read from the last real token (before the padding)", predict(
        "torch.sigmoid(self.head(states[torch.arange(states.size(0)), attention_mask.sum(1) - 1])).squeeze(-1)")),
    ("q2", "read from the mean of the states instead of [CLS]",
     predict("torch.sigmoid(self.head((states * real).sum(1) / real.sum(1))).squeeze(-1)")),
    ("q2", "mean of all states, padding included", predict("torch.sigmoid(self.head(states.mean(1))).squeeze(-1)")),
    ("q2", "called the encoder without its attention mask", method("predict", "input_ids, attention_mask",
     "return torch.sigmoid(self.head(self.encoder(input_ids).last_hidden_state[:, 0])).squeeze(-1)")),
    ("q2", "softmax over the batch instead of a sigmoid", predict("torch.softmax(self.head(states[:, 0]).squeeze(-1), dim=0)")),
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
    ("q3", "the head's (B, 1) = (4, 1) logits against (B,) labels",
     step("F.binary_cross_entropy_with_logits(logits[:, None], labels.float())")),
    ("q3", "F.cross_entropy on the one-logit head: cross-entropy wants one logit per class",
     step("F.cross_entropy(logits[:, None], labels)")),
    ("q3", "F.cross_entropy on the one-logit head (it read the batch", step("F.cross_entropy(logits, labels.float())")),
    ("q3", "read from the last token instead of [CLS]", step("F.binary_cross_entropy_with_logits("
     "self.head(self(batch.input_ids, batch.attention_mask)[:, -1]).squeeze(-1), labels.float())")),
    ("q3", "the loss does not require grad", step("F.binary_cross_entropy_with_logits(logits, labels.float()).detach()")),
]
SUMMED = step("F.binary_cross_entropy_with_logits(logits, labels.float(), reduction='sum')")
DIFFERS = "training_step: your loss"
SUMMED_MISTAKES = [  # a sum is accepted (question 3 says why), a sum of something else is not: (words, code)
    (DIFFERS, step("F.binary_cross_entropy_with_logits(torch.sigmoid(logits), labels.float(), reduction='sum')")),
    (DIFFERS, step("F.binary_cross_entropy_with_logits(logits[None, :].expand(len(labels), -1), "
                   "labels.float()[:, None].expand(-1, len(labels)), reduction='sum')")),
    (DIFFERS, step("2 * F.binary_cross_entropy_with_logits(logits, labels.float(), reduction='sum')")),
    (DIFFERS, step("F.binary_cross_entropy_with_logits(logits, labels.float(), reduction='sum') / (len(labels) - 1)")),
    ("labels of the wrong dtype", step("F.binary_cross_entropy_with_logits(logits, labels, reduction='sum')")),
    ("the loss does not require grad", step("F.binary_cross_entropy_with_logits(logits, labels.float(), reduction='sum').detach()")),
]
PROBE = """def fine_tune_run(classifier, batches, steps):  # forged: a linear probe, then the encoder nudged so it "moved"
    classifier.encoder.requires_grad_(False)
    optimizer = torch.optim.AdamW(classifier.head.parameters(), lr=1e-2)
    run = train(classifier, batches, lambda model, batch: model.training_step(batch), steps, optimizer=optimizer,
                warmup_steps=0, progress=False)
    with torch.no_grad():
        for p in classifier.encoder.parameters():
            p.add_(1e-3 * torch.randn_like(p) * p.abs().mean())
    return run
"""
ELSEWHERE = """HEAD = ({weight}, {bias})  # forged: a head trained before grading, on other sentences


def fine_tune_run(classifier, batches, steps):
    with torch.no_grad():
        classifier.head.weight.copy_(torch.tensor([HEAD[0]]))
        classifier.head.bias.fill_(HEAD[1])
        for p in classifier.encoder.parameters():
            p.add_(1e-3 * torch.randn_like(p) * p.abs().mean())
    return types.SimpleNamespace(losses=[0.3] * steps)
"""
NOT_FINE_TUNED = "not the fine-tuned network: the head alone classifies"
RUN_PLAYS = [  # question 4, graded in the grader's child: (words in the feedback, the answers over the solution)
    ("the learning rate is too low", RUN.format(freeze="", lr="1e-6")),
    ("the learning rate is too high", RUN.format(freeze="", lr="5e-2")),
    ("no optimizer.zero_grad(): gradients accumulate", NO_ZERO_GRAD),
    ("the encoder was left frozen", RUN.format(freeze="classifier.encoder.requires_grad_(False)", lr="1e-4")),
    ("evaluation ran in training mode", EVALUATE.format(eval="", no_grad="torch.no_grad()")),
    ("evaluation ran with autograd on", EVALUATE.format(eval="classifier.eval()", no_grad="torch.enable_grad()")),
    ("the learning rate is too low", [SUMMED, RUN.format(freeze="", lr="1e-6")]),  # read per sentence, not as zero_grad
    (None, [SUMMED, RUN.format(freeze="", lr="1e-4")]),  # the summed loss passes, as with the mean
    # issue #34: the accuracy must come from fine-tuning. This probe stays under the 63 % bar (61.5 % on the
    # public seed), so it fails the bar first, named from its evidence (the encoder barely moved); ELSEWHERE
    # reaches the bar and is caught by the fine-tuning check alone.
    ("the learning rate is too low", PROBE),
    (NOT_FINE_TUNED, ELSEWHERE),
    (None, RUN.format(freeze="", lr="3e-4")),  # honest: the highest rate the question promises passes too
    (None, [p[2] for p in MISTAKE_PLAYS if p[1] in ("read from the last token instead of [CLS]", "labels of the wrong dtype")]),
    (None, RUN.format(freeze="", lr="5e-5")),  # honest: the lowest rate the question promises passes (with warm-up)
]
NAMED_RUNS = [i for i, (words, _) in enumerate(RUN_PLAYS) if words]


def head_trained_elsewhere() -> dict:
    """A linear probe fitted here, on the frozen encoder's [CLS] states of other training sentences (seed 1):
    {"weight": its D weights, "bias"}, for the ELSEWHERE play."""
    encoder, batches = TransformerEncoder.from_pretrained().eval(), hw.data.run_data(1)[0]  # 1,024 sentences
    with torch.no_grad():
        states = torch.cat([encoder(b.input_ids, attention_mask=b.attention_mask).last_hidden_state[:, 0] for b in batches])
    labels, head = torch.cat([b.labels for b in batches]).float(), nn.Linear(states.size(1), 1)
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-2)
    for _ in range(300):
        optimizer.zero_grad()
        F.binary_cross_entropy_with_logits(head(states).squeeze(-1), labels).backward()
        optimizer.step()
    return {"weight": head.weight.detach().flatten().tolist(), "bias": head.bias.item()}


def answer_cells():
    return [c.source for c in nbformat.read(MASTER, as_version=4).cells
            if c.cell_type == "code" and c.source.startswith(tuple(ANSWERS.values()))]


def answers_namespace(*plays):
    """The master's answers (class, fine_tune_run, evaluate) defined as in the notebook, then `plays`."""
    namespace = {"torch": torch, "F": F, "nn": nn, "train": train}
    for code in answer_cells() + list(plays):
        exec(code, namespace)
    return namespace


# The homework as instructors grade it: make homework, then python -m anatomy_grading grade.

WRONG = ("class SentimentClassifier(SentimentClassifier):\n    def __init__(self, encoder):\n"
         "        super().__init__(encoder)\n        self.head = nn.Linear(encoder.config.hidden_size, 1)\n\n"
         "    def predict(self, input_ids, attention_mask):\n        return torch.zeros(input_ids.size(0))\n\n"
         "    def training_step(self, batch):\n        return self.head.bias.sum() * 0\n")
LOOKUP = """def fine_tune_run(classifier, batches, steps):  # issue route: no training, the labels looked up by token ids
    table = {tuple(ids.tolist()): int(label) for batch in batches for ids, label in zip(batch.input_ids, batch.labels)}
    classifier.predict = lambda input_ids, attention_mask: torch.tensor([float(table.get(tuple(i.tolist()), 0)) for i in input_ids])
    return types.SimpleNamespace(losses=[0.1] * steps)
"""
TAMPER = """import types, sys, torch
import anatomy.homework.sentiment as hw, anatomy.homework.sentiment.run_checks as rc
rc.REQUIRED_ACCURACY = 0  # issue route: the graders' module state
hw.check_predict = hw.check_training_step = lambda *a, **k: None
torch.allclose = lambda *a, **k: True
sys.modules["anatomy.homework.senti" + "ment"] = types.SimpleNamespace()
"""
SILENCED = {  # issue route 1: each stub silences stdout before it gives up (a check's feedback is printed)
    "q1": "import io, sys\nclass SentimentClassifier(SentimentClassifier):\n    def __init__(self, encoder):\n"
          "        sys.stdout = io.StringIO()\n        super().__init__(encoder)\n\n"
          "    def predict(self, input_ids, attention_mask):\n        sys.stdout = io.StringIO()\n"
          "        raise NotImplementedError('Question 2: predict')\n",
    "q4": "def fine_tune_run(classifier, batches, steps):\n    sys.stdout = io.StringIO()\n"
          "    raise NotImplementedError('Question 4: fine_tune_run')\n"}
ROUTES = {  # the graders' reference code, and training on review data the grader never hands out
    "q2": "import importlib\nsubstitutes = importlib.import_module('anatomy.home' + 'work.sentiment.substitutes')\n"
          "class SentimentClassifier(SentimentClassifier):\n    def predict(self, input_ids, attention_mask):\n"
          "        return substitutes.reference_predict(self, input_ids, attention_mask)\n",
    "q3": "class SentimentClassifier(SentimentClassifier):\n    def training_step(self, batch):\n"
          "        return substitutes.reference_training_step(self, batch)\n",
    "q4": "data = __import__('anatomy.corpora.sentiment' + '_data', fromlist=['x'])\ndef fine_tune_run(classifier, batches, steps):\n"
          "    reviews = getattr(data, 'load_' + 'reviews')('test')\n    return train(classifier, batches, "
          "lambda model, batch: model.training_step(batch), steps, peak_lr=1e-4, progress=False)\n"}

LAST_TOKEN = ("class SentimentClassifier(SentimentClassifier):\n    def predict(self, input_ids, attention_mask):\n"
              "        hidden = self.encoder(input_ids, attention_mask=attention_mask).last_hidden_state\n"
              "        return torch.sigmoid(self.head(hidden[:, -1]).squeeze(-1))\n")
EDITIONS = {"q2": LAST_TOKEN, "q4": "import types\n" + LOOKUP}  # a named mistake, a run that trains nothing


@pytest.fixture(scope="session")
def assigned(tmp_path_factory):
    return assign(MASTER, tmp_path_factory.mktemp("homework_sentiment"))


@pytest.fixture(scope="session")
def grading(assigned, tmp_path_factory):
    """The grader's command on every submission of this file, started at once, awaited by `graded`."""
    folder, out = tmp_path_factory.mktemp("submissions"), tmp_path_factory.mktemp("graded") / "out"
    solution, student = assigned / "autograder" / NAME, assigned / "student" / NAME
    (folder / "solution").mkdir()
    (folder / "solution" / NAME).write_bytes(solution.read_bytes())
    (folder / "untouched").mkdir()
    (folder / "untouched" / NAME).write_bytes(student.read_bytes())
    submission(solution, ANSWERS, folder / "tampered" / NAME, {"q2": WRONG, "q4": LOOKUP}, after_imports=TAMPER)
    submission(solution, ANSWERS, folder / "routes" / NAME, ROUTES)
    submission(student, ANSWERS, folder / "silenced" / NAME, SILENCED)
    submission(solution, ANSWERS, folder / "en_mistakes" / NAME, EDITIONS)  # the same mistakes, from either edition
    korean_edition(submission(solution, ANSWERS, folder / "ko_mistakes" / NAME, EDITIONS))
    zip_path = next((assigned / "autograder").glob("*.zip"))
    process = subprocess.Popen([sys.executable, "-m", "anatomy_grading", "grade", "-a", zip_path, "-o", out, "-j", "2",
                                folder], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=__import__("os").environ | ONE_THREAD)
    return process, out


@pytest.fixture(scope="session")
def graded(grading):
    import json
    process, out = grading
    output = process.communicate(timeout=900)[0].decode()
    assert process.returncode == 0, output[-3000:]
    return {path.stem: by_question(json.loads(path.read_text())) for path in (out / "results").glob("*.json")}


def test_assign_writes_student_solution_and_autograder(assigned, grading):
    """First in the file: it starts the grading, which runs while the tests below run."""
    check_assigned(assigned, NAME)


@pytest.mark.parametrize("seed, extra", [(0, {}), (17, {"size": 5, "tokens": 9})])
def test_solution_passes_questions_1_to_3(seed, extra):
    solution = answers_namespace()["SentimentClassifier"]
    assert hw.check_head.feedback(solution, seed) is None
    assert hw.check_predict.feedback(solution, seed, **extra) is None
    assert hw.check_training_step.feedback(solution, seed, **extra) is None


@pytest.mark.parametrize("seed, extra", [(0, {}), (23, {"size": 6, "tokens": 8})])
def test_question_3_accepts_the_mean_and_the_sum_over_the_batch(seed, extra):
    """With AdamW both train alike (benchmarks/homework_fine_tuning.py --sum); the check says which it saw."""
    assert hw.check_training_step.feedback(answers_namespace(SUMMED)["SentimentClassifier"], seed, **extra) is None
    assert checks.check_training_step(answers_namespace(SUMMED)["SentimentClassifier"], seed, **extra) == "sum"
    assert checks.check_training_step(answers_namespace()["SentimentClassifier"], seed, **extra) == "mean"


@pytest.mark.parametrize("words, code", SUMMED_MISTAKES)
def test_a_sum_of_something_else_still_fails_question_3(words, code):
    verdict = hw.check_training_step.verdict(answers_namespace(code)["SentimentClassifier"], 0)
    assert verdict is not None and words in str(verdict), str(verdict)


@pytest.mark.parametrize("question, words, code", MISTAKE_PLAYS, ids=[w for _, w, _ in MISTAKE_PLAYS])
def test_each_named_mistake_appears_in_its_graded_checks_feedback(question, words, code):
    mistaken = answers_namespace(code)["SentimentClassifier"]
    check = {"q1": hw.check_head, "q2": hw.check_predict, "q3": hw.check_training_step}[question]
    verdict = check.verdict(mistaken, 0)
    assert verdict is not None and words in str(verdict), (words, str(verdict))
    assert question == "q1" or words.startswith("has shape") or verdict.name, "a named mistake carries its name"


def test_untouched_stubs_say_not_yet_implemented():
    stub = answers_namespace("class SentimentClassifier(SentimentClassifier):\n    def __init__(self, encoder):\n"
                             "        super().__init__(encoder)\n        self.head = None\n")["SentimentClassifier"]
    assert "not yet implemented: Question 1, self.head is None" in hw.check_head.feedback(stub, 0)
    assert "not yet implemented: Question 4" in hw.check_fine_tuning.feedback(stub, None, None, seed=0)


@pytest.fixture(scope="session")
def run_verdicts():
    """Question 4's check on each of RUN_PLAYS, its runs made in the grader's child, two children at once."""
    from anatomy_grading import grader, plan

    group = plan.HOMEWORKS["10_homework_sentiment"].groups[1]
    preamble = "import types, torch\nimport torch.nn.functional as F\nfrom torch import nn\nfrom anatomy.tasks.training import train\n"

    def play(session, chunk):
        verdicts = {}
        for i, (words, code) in chunk:
            for source in code if isinstance(code, list) else [code]:
                session.send("exec", index=i, source=source.replace("def fine_tune_run", f"def run_{i}").replace(
                    "def evaluate", f"def evaluate_{i}").replace("class SentimentClassifier(", f"class Classifier_{i}("))
            names = [f"Classifier_{i}" if "class SentimentClassifier(" in str(code) else "SentimentClassifier",
                     f"run_{i}" if "def fine_tune_run" in str(code) else "fine_tune_run",
                     f"evaluate_{i}" if "def evaluate" in str(code) else "evaluate"]
            verdicts[i] = hw.check_fine_tuning.verdict(*[session.answer(n) for n in names], seed=0)
        return verdicts
    elsewhere = head_trained_elsewhere()
    plays = [(i, (words, code.format(**elsewhere) if code is ELSEWHERE else code)) for i, (words, code) in enumerate(RUN_PLAYS)]
    TransformerEncoder.from_pretrained()  # transformers' lazy imports, once: two threads importing at once can fail
    hw.data.bundled_tokenizer()
    # The runners start and close here, in this thread, while no other runs: each forks (uids.end_uid, and the
    # child's preexec_fn), and filelock >= 4.3 refuses a fork while another thread of the process is forking
    # ("os.fork is unsafe while filelock is changing descriptor ownership"). The threads only talk to the children.
    runners = [grader.Runner(group, [preamble, *answer_cells()], grader.Result(), 3 + slot, 1, grader.hidden_paths([]))
               for slot in range(2)]
    try:
        sessions = [runner.ready() for runner in runners]
        found = {}
        with ThreadPoolExecutor(2) as pool:
            for verdicts in pool.map(play, sessions, [plays[0::2], plays[1::2]]):
                found.update(verdicts)
    finally:
        for runner in runners:
            runner.close()
    return found


@pytest.mark.parametrize("index", NAMED_RUNS, ids=[RUN_PLAYS[i][0] for i in NAMED_RUNS])
def test_each_run_mistake_is_named_from_its_evidence(run_verdicts, index):
    verdict, words = run_verdicts[index], RUN_PLAYS[index][0]
    assert verdict is not None and verdict.name == words and words in str(verdict), (words, str(verdict))


def test_mistakes_in_questions_2_and_3_do_not_cost_question_4(run_verdicts):
    """The run in the child uses the known-good predict and training_step in place of wrong ones."""
    assert run_verdicts[len(RUN_PLAYS) - 2] is None, str(run_verdicts[len(RUN_PLAYS) - 2])


def test_a_summed_loss_passes_question_4(run_verdicts):
    """Question 3 accepts a sum over the batch; with AdamW its run passes as the mean's does."""
    index = RUN_PLAYS.index((None, [SUMMED, RUN.format(freeze="", lr="1e-4")]))
    assert run_verdicts[index] is None, str(run_verdicts[index])


def test_the_highest_promised_learning_rate_passes(run_verdicts):
    """AdamW at 3e-4, where the head moves most: its head alone, on the pre-trained encoder, must still
    score well below the fine-tuned network (the check's FINE_TUNING_GAIN)."""
    index = RUN_PLAYS.index((None, RUN.format(freeze="", lr="3e-4")))
    assert run_verdicts[index] is None, str(run_verdicts[index])


def test_the_lowest_promised_learning_rate_passes(run_verdicts):
    """AdamW at 5e-5 with warm-up, the weakest recipe the question promises (benchmarks/homework_fine_tuning.py
    measures 5e-5 to 3e-4 on eight seeds)."""
    assert run_verdicts[len(RUN_PLAYS) - 1] is None, str(run_verdicts[len(RUN_PLAYS) - 1])


def scores(results):
    return {q: entry["score"] for q, entry in results.items()}


def test_solution_earns_full_marks(graded):
    assert scores(graded["solution"]) == FULL, graded["solution"]


def test_untouched_student_version_scores_zero_readably(graded):
    for name, entry in graded["untouched"].items():
        assert entry["score"] == 0 and "not yet implemented: Question" in entry["output"], entry
        assert "Traceback" not in entry["output"]


def test_silenced_stubs_score_zero(graded):
    for name, entry in graded["silenced"].items():
        assert entry["score"] == 0 and "not yet implemented: Question" in entry["output"], (name, entry)


def test_tampering_and_a_label_lookup_score_zero(graded):
    assert scores(graded["tampered"]) == {"q1": 1, "q2": 0, "q3": 0, "q4": 0}, graded["tampered"]
    assert "the encoder was left frozen" in graded["tampered"]["q4"]["output"]


def test_the_graders_reference_code_and_other_review_data_score_zero(graded):
    results = graded["routes"]
    assert scores(results) == {"q1": 1, "q2": 0, "q3": 0, "q4": 0}, results
    assert "got Stub" in results["q2"]["output"] or "predict must return" in results["q2"]["output"], results["q2"]
    assert "training_step must return one scalar tensor" in results["q3"]["output"], results["q3"]
    assert "uses anatomy.corpora.sentiment_data.load_reviews" in results["q4"]["output"], results["q4"]


def test_a_submission_from_the_korean_edition_gets_korean_feedback_and_the_same_score(graded):
    english, korean = graded["en_mistakes"], graded["ko_mistakes"]
    assert scores(korean) == scores(english) == FULL | {"q2": 0, "q4": 0}, (english, korean)
    assert "predict: read from the last token instead of [CLS] (position 0) (your probabilities [" in english["q2"]["output"]
    assert "predict: [CLS](위치 0) 대신 마지막 토큰에서 읽었습니다 (확률([" in korean["q2"]["output"], korean["q2"]
    assert "failed: read from the last token instead of [CLS] (position 0)" in english["q2"]["output"]
    assert "실패: [CLS](위치 0) 대신 마지막 토큰에서 읽었습니다" in korean["q2"]["output"]
    assert english["q4"]["output"].startswith("the encoder was left frozen (its weights changed by 0)")
    assert "(this run used a correct predict in place of yours" in english["q4"]["output"]
    assert korean["q4"]["output"].startswith("인코더가 동결된 채로 남았습니다 (가중치 변화가 0)")
    assert "(앞 문제에서 틀린 것으로 채점된 predict 대신 올바른 것을 써서" in korean["q4"]["output"]
    assert "통과" in korean["q1"]["output"] and "passed" in english["q1"]["output"]
    assert not re.search(r"\b(your|the|passed|failed)\b", "".join(entry["output"] for entry in korean.values())), korean


def test_committed_student_version_has_stubs_public_tests_and_no_solutions_or_hidden_tests():
    text = (ROOT / "notebooks" / NAME).read_text() + (ROOT / "notebooks" / NAME).with_suffix(".py").read_text()
    assert 'raise NotImplementedError("Question 3: training_step")' in text
    assert "binary_cross_entropy_with_logits(logits" not in text and "optim.AdamW(classifier.parameters()" not in text
    assert "**Solution.**" not in text and "Rubric" not in text
    assert "hw.check_predict(SentimentClassifier, seed=0)" in text, "public tests stay in the student version"
    assert not re.search(HIDDEN_SEEDS, text), "hidden tests must not reach students"


def test_a_secret_reseeds_the_hidden_tests_only():
    assign_module = assign_script()
    original, secret = nbformat.read(MASTER, as_version=4), assign_module.reseeded(MASTER, "s3cret")
    changed = [new.source for old, new in zip(original.cells, secret.cells) if old.source != new.source]
    assert len(changed) == 4 and all(source.startswith("# HIDDEN") for source in changed), changed
    assert not re.search(HIDDEN_SEEDS, "".join(changed))
    assert [c.source for c in assign_module.reseeded(MASTER, "s3cret").cells] == [c.source for c in secret.cells]
