"""What grading writes: Gradescope's results.json, per-student feedback, the gradebook and the review report.

Public cases show the check's full feedback; hidden cases show only "passed", or "failed" with the
named mistake, so what leaks across submissions is a mistake's name, never a hidden input or value;
and the public feedback cannot carry a hidden input either, since every public case is graded in
children that never received one (grader.py).
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

from anatomy.homework.messages import say
from anatomy_grading.grader import Result


def shown(test: dict, language: str = "en") -> str:
    """What the student sees of a case, in the submission's language (the output already is)."""
    if not test["hidden"] or test["score"] == test["max_score"]:
        return test["output"] if not test["hidden"] else say("passed", language)
    return say("failed_named", language, mistake=test["mistake"]) if test["mistake"] else say("failed", language)


def gradescope(result: Result) -> dict:
    """Gradescope's results.json (tests named "qN - public" / "qN - hidden k", as otter names them)."""
    tests = [{"name": t["name"], "score": round(t["score"], 4), "max_score": round(t["max_score"], 4),
              "output": shown(t, result.language), "visibility": "visible"} for t in result.tests]
    return {"score": round(result.score(), 4), "tests": tests, "output": say("header", result.language), "stdout_visibility": "hidden",
            "extra_data": {"needs_review": result.flags, "containment": result.held, "seconds": round(result.seconds, 1)}}


def questions(result: Result) -> list[str]:
    return list(dict.fromkeys(t["question"] for t in result.tests))


def feedback(student: str, result: Result) -> str:
    lines = [f"# {student}: {result.score():g} / {sum(t['max_score'] for t in result.tests):g}", "",
             say("header", result.language), ""]
    for test in result.tests:
        lines.append(f"- **{test['name']}** ({test['score']:g} / {test['max_score']:g}): {shown(test, result.language)}")
    return "\n".join(lines) + "\n"


def write_all(results: dict[str, Result], out: Path) -> None:
    """gradebook.csv, feedback/<student>.md, review.md (flagged submissions and why), log/<student>.txt."""
    out.mkdir(parents=True, exist_ok=True)
    for folder in ("feedback", "log", "results"):
        (out / folder).mkdir(exist_ok=True)
    names = questions(next(iter(results.values()))) if results else []
    with open(out / "gradebook.csv", "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["student", *names, "total", "needs_review", "seconds"])
        for student, result in sorted(results.items()):
            writer.writerow([student, *[f"{result.score(q):g}" for q in names], f"{result.score():g}",
                             "yes" if result.flags else "", f"{result.seconds:.1f}"])
    review = ["# Submissions to review", "", "The grader flags code it cannot judge (dynamic constructs, references to the "
              "grading code, very large notebooks), its own failures, and notebooks it could not match to one "
              "student. A flag costs no points; read the cells named.", ""]
    for student, result in sorted(results.items()):
        (out / "feedback" / f"{student}.md").write_text(feedback(student, result))
        (out / "log" / f"{student}.txt").write_text("\n".join(result.held + [""] + result.log) + "\n")
        (out / "results" / f"{student}.json").write_text(json.dumps(gradescope(result), indent=1))
        if result.flags:
            review += [f"## {student}", *[f"- {flag}" for flag in result.flags], ""]
    if len(review) == 4:
        review.append("Nothing flagged.")
    (out / "review.md").write_text("\n".join(review) + "\n")
