"""The submission as JSON, and the static rules for its answer cells: the grader reads them, never runs them.

- code_cells: a notebook's code cells, without IPython's % and ! lines and without the cells that
  call otter's grader (those run the formative checks, which the grader replaces).
- review: per question, a reason to score 0 (a forbidden name in the question's answer code: the
  statements the student wrote that define the question's symbols, and those defining the globals they
  read, anatomy/homework/answers.py) and, for the whole notebook, flags for a person to review (dynamic constructs such as getattr,
  exec, importlib, gc, ctypes, threading, sys.modules, in any cell the student wrote or changed).
A cell that is the assignment's template cell, unchanged, is not the student's and is not judged.
review.py runs both in a process of its own, with a time and a memory limit.
"""
from __future__ import annotations

import ast
import json
import re
from collections import Counter
from pathlib import Path

from anatomy_grading.words import hits_of, reviewer, rules_module, words

_answers = rules_module("anatomy.homework.answers")  # by path: the review's process imports no anatomy (torch)
answer_code, defined, normalized, parsed = _answers.answer_code, _answers.defined, _answers.normalized, _answers.parsed

MAX_BYTES, MAX_CODE = 50 << 20, 2_000_000  # a notebook's bytes, its characters of code: no more is reviewed or run
LARGE_CODE = 200_000  # characters of code that may carry data or weights: flagged
GRADER_CALL = re.compile(r"\bgrader\s*\.\s*(check|check_all|export|to_pdf|run_plugin)\s*\(")
DYNAMIC = {"getattr", "setattr", "delattr", "globals", "vars", "locals", "eval", "exec", "compile", "__import__",
           "importlib", "gc", "ctypes", "inspect", "threading", "multiprocessing", "subprocess", "concurrent",
           "_getframe", "__dict__", "__code__", "__globals__", "__builtins__", "__subclasses__", "__closure__",
           "builtins", "marshal", "pickle", "dill", "socket", "open", "library", "ops", "_C", "setprofile",
           "settrace", "system", "modules", "f_back", "f_globals", "tb_frame"}
BUILTINS_ONLY = {"eval", "exec", "compile", "open", "vars", "globals", "locals", "getattr", "setattr", "delattr"}
GRADING_INTERNALS = {"anatomy_grading", "mistakes", "variants", "substitutes", "model_checks", "run_checks", "diagnosis",
                     "reference_predict", "reference_training_step", "KnownGoodCrossAttention", "translations"}


class NotebookError(ValueError):
    """The submission is not a notebook the grader can read: a catalogue key and its fields, which the
    grader words in the submission's language (anatomy.homework.messages; this module stays free of
    torch, for the review's small process)."""

    def __init__(self, key: str, **fields: object) -> None:
        super().__init__(key, fields)
        self.key, self.fields = key, fields


def code_cells(path: Path) -> list[str]:
    if path.stat().st_size > MAX_BYTES:
        raise NotebookError("notebook_too_big", size=path.stat().st_size >> 20, limit=MAX_BYTES >> 20)
    try:
        notebook = json.loads(path.read_bytes())
        cells = notebook["cells"] if isinstance(notebook, dict) else None
        if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
            raise TypeError("its cells are not a list of objects")
        sources = [c.get("source", "") for c in cells if c.get("cell_type") == "code"]
        sources = [s if isinstance(s, str) else "".join(s) for s in sources]  # a list of non-text: TypeError
    except (ValueError, KeyError, TypeError, RecursionError) as error:
        raise NotebookError("not_a_notebook", error=f"{type(error).__name__}: {str(error)[:80]}") from None
    if sum(map(len, sources)) > MAX_CODE:
        raise NotebookError("too_much_code", count=sum(map(len, sources)), limit=MAX_CODE)
    return [runnable(s) for s in sources if not GRADER_CALL.search(s)]


def runnable(source: str) -> str:
    """IPython's %magic and !shell lines become `pass` (plain Python runs the rest)."""
    return "\n".join(re.sub(r"^(\s*)[%!].*$", r"\1pass  # an IPython line, not run by the grader", line)
                     for line in source.splitlines())


def dynamic(tree: ast.AST) -> Counter:
    """The DYNAMIC words of the code; BUILTINS_ONLY ones not as an attribute (model.eval() is not eval)."""
    found = Counter(w for w in words(tree) if w in DYNAMIC)
    found.subtract(n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in BUILTINS_ONLY)
    return +found


def review(cells: list[str], template: list[str], questions: dict[str, dict]) -> tuple[dict[str, str], list[str]]:
    """({question: why it scores 0}, [flags for review]). questions: {q: {"symbols": [...], "forbidden": [...], "why": ...}}."""
    known = {normalized(t) for t in template}
    mine = {i: c for i, c in enumerate(cells) if normalized(c) not in known}
    trees = {i: t for i, c in mine.items() if (t := parsed(c)) is not None}
    flags = [f"cell {i} does not parse as Python" for i in mine if i not in trees]
    expected = sum((dynamic(tree) for t in template if (tree := parsed(t))), Counter())
    used = sum((dynamic(tree) for c in cells if (tree := parsed(c))), Counter())
    flags += [f"cell {i} uses {w}" for i, tree in trees.items() for w in sorted(dynamic(tree))
              if used[w] > expected[w]]  # more than the template's own (its setup cell reads sys.modules)
    if sum(len(c) for c in cells) > LARGE_CODE:
        flags.append(f"the notebook holds {sum(len(c) for c in cells):,} characters of code (data or weights inside?)")
    statements = [(i, node) for i, tree in trees.items() for node in tree.body]
    everything = [tree for c in cells if (tree := parsed(c)) is not None]
    own = {name for _, node in statements for name in defined(node)}  # the student's cells' names
    imported = {n for tree in everything for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
                for n in defined(node)}  # a call on a module (torch.add) changes nothing of the student's
    zero, judged = {}, set()
    for question, rules in questions.items():
        extra = reviewer(rules["review"], everything, own) if rules.get("review") else None
        scoped = {"modules": imported} if rules.get("review") else {"follow": words, "changes": False}  # 1, 2: every word
        answer = answer_code(statements, set(rules["symbols"]), **scoped)
        judged |= {id(node) for _, node in answer}  # judged as the answer, though the first refusal ends it
        for i, node in answer:
            if hits := hits_of(node, rules, extra):
                zero[question] = rules["zero"].format(what=hits[0], cell=i)  # plan.question_rules worded it
                if rules.get("flag"):
                    flags.append(f"{question}: cell {i} uses {hits[0]} ({rules['why']})")
                break
    for rules in {r["review"]: r for r in questions.values() if r.get("review")}.values():  # outside any answer
        extra = reviewer(rules["review"], everything, own)
        flags += [f"cell {i} uses {hit} outside the answers" for i, node in statements if id(node) not in judged
                  for hit in hits_of(node, rules, extra)[:1]]
    for i, tree in trees.items():
        if hits := sorted(set(words(tree)) & GRADING_INTERNALS):
            flags.append(f"cell {i} refers to {hits[0]} (the grading code)")
    return zero, flags

