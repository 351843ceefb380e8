"""A homework's grading plan: its questions, points and test cases, read from its master's test cells,
and the policies of this package for it (which child runs which questions, what each may not use).

`plan_from_master(master, student)` reads the (reseeded) master: every `hw.check_x(answer, seed=...)`
call in a question's test cells becomes a case {"check", "args" (an answer's name or a constant),
"kwargs", "hidden"}; the student version's code cells become the template (what the student did not
write). instructor/assign.py writes the result as grading_plan.json into the autograder; it holds
the hidden cases, so it stays with the instructor (Gradescope: /autograder/source, root only).
"""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path

import nbformat


@dataclass(frozen=True)
class Group:
    """Questions graded in one child, under one poisoning policy."""
    policy: str
    questions: tuple[str, ...]
    preload: tuple[str, ...] = ()
    substitutes: tuple[str, ...] = ()
    call_timeout: float = 30.0
    sealed: bool = False  # its child writes no file (seal.py): homework 3, whose tests run once per trial


@dataclass(frozen=True)
class Homework:
    module: str
    groups: tuple[Group, ...]
    rules: dict = field(default_factory=dict)  # question -> {"forbidden": [...], "why": a catalogue key, "zero": one}
    localized: bool = False  # its checks take language= ("en" or "ko", the submission's edition)


ATTENTION = {"forbidden": ["scaled_dot_product", "multi_head_attention", "multiheadattention", "attentionhead",
                           "tiled_attention", "flex_attention", "eager_attention", "sdpa", "homework", "anatomy_grading"],
             "why": "why_attention"}
LAYER = {"forbidden": ["TransformerDecoder", "homework", "anatomy_grading"],
         "why": "why_layer"}
OWN = {"forbidden": ["homework", "anatomy_grading"], "why": "why_own"}
DATA = {"forbidden": ["homework", "anatomy_grading", "load_reviews", "sentiment_data", "fetch_reviews"],
        "why": "why_data"}
SUITE = {"forbidden": [],  # the names no answer may hold are review.py's NAMES: the check cell applies them too
         "why": "why_rules", "zero": "forbidden_answer",
         "names": True, "flag": True, "review": "anatomy.homework.attention_tests.review"}  # whole names; + review.py
HOMEWORKS = {
    "08_homework_cross_attention": Homework("anatomy.homework.cross_attention", (
        Group("attention", ("q1", "q2", "q3")),
        Group("layers", ("q4", "q5"), substitutes=("anatomy.homework.cross_attention.substitutes",))),
        {"q1": ATTENTION, "q2": ATTENTION, "q3": ATTENTION, "q4": LAYER, "q5": OWN}),
    "10_homework_sentiment": Homework("anatomy.homework.sentiment", (
        Group("plain", ("q1", "q2", "q3"), preload=("transformers",)),
        Group("plain", ("q4",), preload=("transformers",), substitutes=("anatomy.homework.sentiment.substitutes",),
              call_timeout=240.0)),
        {"q1": OWN, "q2": OWN, "q3": OWN, "q4": DATA}),
    "19_homework_attention_tests": Homework("anatomy.homework.attention_tests", (
        Group("plain", ("q1", "q2", "q3", "q4", "q5"),
              substitutes=tuple(f"anatomy.homework.attention_tests.{m}" for m in ("frames", "state", "clock", "fork_state", "trial",
                                                                                    "stand_in")),
              call_timeout=15.0, sealed=True),),
        {q: SUITE for q in ("q1", "q2", "q3", "q4", "q5")}, localized=True),
}


def case_of(source: str) -> dict:
    """The check call of a test cell: {"check": "check_scores", "args": [...], "kwargs": {...}}."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.startswith("check_"):
            args = [{"answer": a.id} if isinstance(a, ast.Name) else ast.literal_eval(a) for a in node.args]
            kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            return {"check": node.func.attr, "args": args, "kwargs": kwargs}
    raise ValueError(f"no hw.check_...(...) call in the test cell {source[:80]!r}")


def plan_from_master(master: Path | nbformat.NotebookNode, student: Path) -> dict:
    notebook = master if isinstance(master, nbformat.NotebookNode) else nbformat.read(master, as_version=4)
    questions: dict[str, dict] = {}
    question, in_tests = None, False
    for cell in notebook.cells:
        text = cell.source.strip()
        if cell.cell_type == "raw" and text.startswith("# BEGIN QUESTION"):
            fields = dict(line.split(":", 1) for line in text.splitlines()[1:] if ":" in line)
            question = fields["name"].strip()
            if fields.get("manual", "").strip() != "true":
                questions[question] = {"points": float(fields["points"]), "cases": []}
        elif cell.cell_type == "raw" and text in ("# BEGIN TESTS", "# END TESTS"):
            in_tests = text == "# BEGIN TESTS"
        elif cell.cell_type == "code" and in_tests and question in questions:
            questions[question]["cases"].append(case_of(cell.source) | {"hidden": text.startswith("# HIDDEN")})
    template = [c.source for c in nbformat.read(student, as_version=4).cells if c.cell_type == "code"]
    name = Path(student).stem
    if name not in HOMEWORKS:
        raise ValueError(f"no grading policy for {name}: add it to anatomy_grading.plan.HOMEWORKS")
    return {"assignment": name, "questions": questions, "template": template}


def load(path: Path) -> tuple[dict, Homework]:
    plan = json.loads(Path(path).read_text())
    return plan, HOMEWORKS[plan["assignment"]]


def question_rules(plan: dict, homework: Homework, language: str = "en") -> dict[str, dict]:
    """{question: {"symbols": the answers its cases name, "forbidden", "why", "zero", "seen"}} for static.review,
    the reason to score 0 ("why", and "zero" with {what} and {cell} left to fill) and the templates of what a
    homework's own review refuses ("seen": {key: template}) in the submission's `language`."""
    def localized(rules: dict) -> dict:
        from anatomy.homework.messages import CATALOGUE, say
        from anatomy_grading.words import rules_module
        why = say(rules["why"], language)
        seen = {k: CATALOGUE[k][language] for k in rules_module(rules["review"]).KEYS} if rules.get("review") else {}
        return rules | {"why": why, "zero": say(rules.get("zero", "answer_uses"), language, what="{what}", cell="{cell}",
                                                why=why), "seen": seen}  # the words for what the review refuses
    return {q: localized(homework.rules[q]) | {"symbols": sorted({a["answer"] for c in spec["cases"] for a in c["args"]
                                                                  if isinstance(a, dict)})}
            for q, spec in plan["questions"].items()}
