"""The homework as instructors use it: otter assign builds the versions from the master in
instructor/, otter run grades them. Each route around the work in issue #12's table scores 0 on its
question; each named mistake appears in the autograder's feedback; a mistake costs only its own
question; the solution earns full marks, from the repo and from a wheel installed outside it.
Plays for different questions share a submission (the questions are graded independently), and
all the otter runs are graded up front, two at a time (tests/otter_grading.py)."""
import math
import re
import subprocess
from pathlib import Path

import nbformat
import pytest
import torch

import anatomy
from anatomy.homework import cross_attention as hw
from otter_grading import Gradings, assign, assign_script, check_assigned, venv_from_wheel
from otter_grading import submission as otter_submission

ROOT = Path(__file__).parent.parent
MASTER = ROOT / "instructor" / "08_homework_cross_attention.ipynb"
NAME = MASTER.name
ANSWERS = {"q1": "def cross_attention_scores", "q2": "def masked_cross_attention", "q3": "class CrossAttention",
           "q4": "class MyDecoderLayer", "q5": "def swap_in"}
FULL = {"q1": 2, "q2": 3, "q3": 4, "q4": 3, "q5": 3}


@pytest.fixture(scope="session")
def assigned(tmp_path_factory):
    return assign(MASTER, tmp_path_factory.mktemp("homework"))


def submission(assigned, tmp_path, plays: dict[str, str], base="autograder", after_imports: str = ""):
    """The solution (or the student version) with each question's answer redefined by `plays[q]`."""
    return otter_submission(assigned / base / NAME, ANSWERS, tmp_path, plays, after_imports)


SCORES = "def cross_attention_scores(q, k):\n    return {}\n"
ATTENTION = """def masked_cross_attention(q, k, v, key_mask):
    scores = {scores}
    scores = scores.masked_fill({mask}, float("-inf"))
    {extra}
    weights = {softmax}
    return {output}, weights
"""
MODULE = """class CrossAttention(CrossAttention):
    def forward(self, x, memory, key_mask=None):
        {swap}
        b, t, d, h = x.size(0), x.size(1), x.size(2), self.num_heads
        split = lambda s: {split}
        q, k, v = split(self.q_proj(x)), split(self.k_proj(memory)), split(self.{v_proj}(memory))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // h)
        if key_mask is not None:
            scores = scores.masked_fill(~key_mask[:, None, None, :], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        merged = ({dropout}weights @ v).{merge}
        return {out}, weights
"""
GOOD_MODULE = dict(swap="", split="s.view(b, s.size(1), h, d // h).transpose(1, 2)", v_proj="v_proj", dropout="",
                   merge="transpose(1, 2).reshape(b, t, d)", out="self.out_proj(merged)")
GOOD_ATTENTION = dict(scores="q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))", mask="~key_mask[:, None, :]",
                      extra="", softmax="torch.softmax(scores, dim=-1)", output="weights @ v")
LAYER = """class MyDecoderLayer(MyDecoderLayer):
    def forward(self, x, memory, self_mask=None, memory_mask=None, need_weights=True):
        key_mask = None if memory_mask is None else memory_mask[:, 0, 0, :]
        {body}
"""
PRE_LN = """a, sw = self.self_attn(self.layer_norm_1(x), mask=self_mask)
        x = x + a
        a, cw = self.cross_attn(self.layer_norm_2(x), memory, key_mask)
        x = x + a
        return x + self.feed_forward(self.layer_norm_3(x)), sw, cw"""
NO_RESIDUAL = """a, sw = self.self_attn(x, mask=self_mask)
        x = self.layer_norm_1(x + a)
        a, cw = self.cross_attn(x, memory, key_mask)
        x = self.layer_norm_2(a)
        return self.layer_norm_3(x + self.feed_forward(x)), sw, cw"""
CROSS_FIRST = """a, cw = self.cross_attn(x, memory, key_mask)
        x = self.layer_norm_1(x + a)
        a, sw = self.self_attn(x, mask=self_mask)
        x = self.layer_norm_2(x + a)
        return self.layer_norm_3(x + self.feed_forward(x)), sw, cw"""


def module(**changes):
    return MODULE.format(**{**GOOD_MODULE, **changes})


def attention(**changes):
    return ATTENTION.format(**{**GOOD_ATTENTION, **changes})


MISTAKE_PLAYS = [  # (question, mistake's name in the feedback, the wrong answer)
    ("q1", "forgot the 1/√d scaling", SCORES.format("q @ k.transpose(-2, -1)")),
    ("q1", "divided by d instead of √d", SCORES.format("q @ k.transpose(-2, -1) / q.size(-1)")),
    ("q1", "took Q from the encoder and K/V from the decoder", SCORES.format("k @ q.transpose(-2, -1) / math.sqrt(q.size(-1))")),
    ("q2", "softmax over the wrong dimension", attention(softmax="torch.softmax(scores, dim=1)")),
    ("q2", "used log_softmax instead of softmax", attention(softmax="torch.log_softmax(scores, dim=-1)")),
    ("q2", "ignored the source padding mask", attention(mask="torch.zeros_like(scores, dtype=torch.bool)")),
    ("q2", "inverted the mask", attention(mask="key_mask[:, None, :]")),
    ("q2", "applied a causal mask to cross-attention", attention(extra="scores = scores.masked_fill(torch.ones_like(scores).tril() == 0, float('-inf'))")),
    ("q2", "added the weights to V instead of multiplying", attention(output="(weights[..., None] + v[:, None]).sum(-2)")),
    ("q3", "did not merge the heads back correctly", module(merge="reshape(b, t, d)")),
    ("q3", "split the heads with view but no transpose", module(split="s.view(b, h, s.size(1), d // h)")),
    ("q3", "used one projection for both K and V", module(v_proj="k_proj")),
    ("q3", "left out the output projection", module(out="merged")),
    ("q3", "left dropout active at evaluation", module(dropout="torch.nn.functional.dropout(weights, 0.3, training=True) @ v if True else ")),
    ("q3", "took Q from the encoder and K/V from the decoder", module(swap="x, memory = memory, x")),
    ("q4", "normalised before each sublayer (pre-LN)", LAYER.format(body=PRE_LN)),
    ("q4", "left out a residual connection", LAYER.format(body=NO_RESIDUAL)),
    ("q4", "ran cross-attention before masked self-attention", LAYER.format(body=CROSS_FIRST)),
]
SUBCLASS = "class MyDecoderLayer(anatomy.TransformerDecoderLayer):\n    pass\n"
WRAP = """class Wrapper(torch.nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, *args, **kwargs):
        return self.inner(*args, **kwargs)


def swap_in(model):
    for i, old in enumerate(model.decoder.layers):
        model.decoder.layers[i] = Wrapper(old)
    return model
"""
ROUTE_PLAYS = [  # (question, words in the feedback, the shortcut)
    ("q2", "uses F.scaled_dot_product_attention", "import torch.nn.functional as F\n\n\ndef masked_cross_attention(q, k, v, key_mask):\n"
     "    w = torch.softmax((q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).masked_fill(~key_mask[:, None, :], float('-inf')), -1)\n"
     "    return F.scaled_dot_product_attention(q, k, v, key_mask[:, None, :]), w\n"),
    ("q2", "uses anatomy.scaled_dot_product_attention", "def masked_cross_attention(q, k, v, key_mask):\n"
     "    return anatomy.scaled_dot_product_attention(q, k, v, key_mask[:, None, :])\n"),
    ("q3", "uses nn.MultiheadAttention", module(out="self.mha(x, memory, memory, key_padding_mask=None if key_mask is None else ~key_mask, average_attn_weights=False)[0]").replace(
        "class CrossAttention(CrossAttention):", "class CrossAttention(CrossAttention):\n    @property\n    def mha(self):\n"
        "        return torch.nn.MultiheadAttention(self.q_proj.in_features, self.num_heads, batch_first=True)\n")),
    ("q3", "uses F.multi_head_attention_forward", module(out="torch.nn.functional.multi_head_attention_forward(x.transpose(0, 1), memory.transpose(0, 1), memory.transpose(0, 1), d, h, None, None, None, None, False, 0.0, self.out_proj.weight, self.out_proj.bias, use_separate_proj_weight=True, q_proj_weight=self.q_proj.weight, k_proj_weight=self.k_proj.weight, v_proj_weight=self.v_proj.weight)[0].transpose(0, 1)")),
    ("q3", "uses anatomy.MultiHeadAttention", module(out="anatomy.MultiHeadAttention(type('C', (), {'hidden_size': d, 'num_attention_heads': h}))(x, memory)[0]")),
    ("q4", "subclasses anatomy.TransformerDecoderLayer", SUBCLASS),
    ("q5", "subclasses anatomy.TransformerDecoderLayer", SUBCLASS),  # shares its submission with q4's subclass
    ("q5", "is a Wrapper, not your MyDecoderLayer", WRAP),
]


def batches(plays):
    """Group plays into submissions, at most one play per question in each."""
    groups: list[dict[str, tuple[str, str]]] = []
    for question, words, code in plays:
        group = next((g for g in groups if question not in g), None)
        if group is None:
            groups.append(group := {})
        group[question] = (words, code)
    return groups


def check_plays(results, group):
    for question, (words, _) in group.items():
        assert words in results[question]["output"], (question, words, results[question]["output"][-600:])
        assert results[question]["score"] == 0, (question, words, results[question])
    for question in set(FULL) - set(group):  # a mistake costs only its own question
        assert results[question]["score"] == FULL[question], (group.keys(), question, results[question]["output"][-600:])


E2E_MISTAKES = [("q1", "forgot the 1/√d scaling"), ("q1", "divided by d instead of √d"),
                ("q1", "took Q from the encoder and K/V from the decoder"), ("q2", "inverted the mask"),
                ("q4", "normalised before each sublayer (pre-LN)"), ("q4", "left out a residual connection")]
TAMPERS = {
    "rebind-checks": "hw.check_scores = hw.check_masked_attention = hw.check_cross_attention_module = lambda *a, **k: None",
    "rebind-hw": "from types import SimpleNamespace\nhw = SimpleNamespace(**{n: (lambda *a, **k: None) for n in "
    "['check_scores', 'check_masked_attention', 'check_cross_attention_module', 'check_decoder_layer', 'check_translations']})",
    "patch-allclose": "torch.allclose = lambda *a, **k: True\ntorch.testing.assert_close = lambda *a, **k: None",
}
ZERO_ANSWERS = {"q1": "def cross_attention_scores(q, k):\n    return torch.zeros(q.size(0), q.size(1), k.size(1))\n",
                "q2": "def masked_cross_attention(q, k, v, key_mask):\n    return torch.zeros_like(q), torch.zeros(q.size(0), q.size(1), k.size(1))\n"}


def e2e_plays():
    """Every route of issue #12's table, and a few named mistakes in the questions the routes leave free."""
    return ROUTE_PLAYS + [p for p in MISTAKE_PLAYS if p[:2] in E2E_MISTAKES]


@pytest.fixture(scope="session")
def wheel_python(tmp_path_factory):
    """(python, site-packages) of a venv outside the repo with the package installed from a wheel."""
    return venv_from_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="session")
def graded(assigned, wheel_python, tmp_path_factory):
    """Every otter run of this file, graded two at a time when the first test needs one."""
    runs = Gradings(assigned, tmp_path_factory.mktemp("graded"))
    runs.add("solution", lambda folder: assigned / "autograder" / NAME)
    runs.add("untouched", lambda folder: assigned / "student" / NAME)
    for i, group in enumerate(batches(e2e_plays())):
        runs.add(f"plays_{i}", lambda folder, group=group: submission(assigned, folder, {q: c for q, (_, c) in group.items()}))
    for name, tamper in TAMPERS.items():
        runs.add(name, lambda folder, tamper=tamper: submission(assigned, folder, ZERO_ANSWERS, base="student",
                                                                after_imports=tamper))

    def outside_the_repo(folder):
        (folder / NAME).write_bytes((assigned / "autograder" / NAME).read_bytes())
        return folder / NAME

    runs.add("wheel", outside_the_repo, python=wheel_python[0])
    return runs.grade()


def test_assign_writes_student_solution_and_autograder(assigned):
    check_assigned(assigned, NAME)


def test_committed_student_version_has_stubs_public_tests_and_no_solutions_or_hidden_tests():
    text = (ROOT / "notebooks" / NAME).read_text() + (ROOT / "notebooks" / NAME).with_suffix(".py").read_text()
    assert 'raise NotImplementedError(\\"Question 3: CrossAttention.forward\\")' in text
    assert "masked_fill(~key_mask" not in text and "transpose(1, 2).reshape" not in text and "**Solution.**" not in text
    assert "seed=0" in text, "public tests stay in the student version"
    assert not re.search(r"seed=(1234|99|7|5|4242)\b", text), "hidden tests must not reach students"


def test_solution_earns_full_marks(graded):
    assert {q: t["score"] for q, t in graded["solution"].items()} == FULL, graded["solution"]


def answers_namespace():
    """The master's answers to q1–q4 defined as in the notebook, without running its model cells."""
    namespace = {"math": math, "torch": torch, "nn": torch.nn, "anatomy": anatomy}
    for cell in nbformat.read(MASTER, as_version=4).cells:
        if cell.cell_type == "code" and any(cell.source.startswith(ANSWERS[q]) for q in ("q1", "q2", "q3", "q4")):
            exec(cell.source, namespace)
    return namespace


@pytest.mark.parametrize("question, words, code", MISTAKE_PLAYS, ids=[w for _, w, _ in MISTAKE_PLAYS])
def test_each_named_mistake_appears_in_its_graded_checks_feedback(question, words, code):
    """In-process: the student's wrong answer, defined over the solution's, through the graded check."""
    namespace = answers_namespace()
    exec(code, namespace)
    checks = {"q1": lambda: hw.check_scores.feedback(namespace["cross_attention_scores"], seed=0),
              "q2": lambda: hw.check_masked_attention.feedback(namespace["masked_cross_attention"], seed=0),
              "q3": lambda: hw.check_cross_attention_module.feedback(namespace["CrossAttention"], seed=0, heads=2),
              "q4": lambda: hw.check_decoder_layer.feedback(namespace["MyDecoderLayer"], namespace["CrossAttention"], seed=0)}
    feedback = checks[question]()
    assert feedback is not None and words in feedback, (question, words, feedback)


def test_library_shortcuts_and_some_named_mistakes_score_zero_only_on_their_question(graded):
    """End to end through otter: the routes and mistakes of e2e_plays(), in three submissions."""
    groups = batches(e2e_plays())
    assert len(groups) == 3, groups
    for i, group in enumerate(groups):
        check_plays(graded[f"plays_{i}"], group)


@pytest.mark.parametrize("tamper", TAMPERS)
def test_switching_the_checks_off_scores_zero(graded, tamper):
    assert all(t["score"] == 0 for t in graded[tamper].values()), {q: t["score"] for q, t in graded[tamper].items()}


def test_untouched_student_version_scores_zero_readably(graded):
    for name, test in graded["untouched"].items():
        assert test["score"] == 0 and f"not yet implemented: Question {name[1]}" in test["output"], test["output"][-300:]
        assert "Traceback" not in test["output"], "feedback never shows the checker's source lines"


def test_solution_earns_full_marks_from_a_wheel_outside_the_repo(graded, wheel_python, tmp_path):
    """The Gradescope route: pip install the package (weights included), no repo."""
    python, site = wheel_python
    where = subprocess.run([python, "-c", "import anatomy.homework, anatomy.dates_translator as d; "
                            "print(anatomy.__file__); print(d.DATES_MODEL_DIR)"], check=True, capture_output=True,
                           text=True, cwd=tmp_path).stdout.split()
    assert all(path.startswith(site) for path in where), where
    assert {q: t["score"] for q, t in graded["wheel"].items()} == FULL, graded["wheel"]


def test_a_secret_reseeds_the_hidden_tests_only():
    reseeded = assign_script().reseeded
    original, secret = nbformat.read(MASTER, as_version=4), reseeded(MASTER, "s3cret")
    changed = [new.source for old, new in zip(original.cells, secret.cells) if old.source != new.source]
    assert len(changed) == 5 and all(source.startswith("# HIDDEN") for source in changed), changed
    assert not re.search(r"seed=(1234|99|7|5|4242)\b", "".join(changed))
    assert reseeded(MASTER, "s3cret").cells[13].source == secret.cells[13].source, "the same secret, the same seeds"
