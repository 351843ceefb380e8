"""Every exercise of every notebook has a worked answer in instructor/exercise_solutions.md (README promises
one): the section "## NN · ..." holds one numbered entry per numbered exercise of the notebook."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(ROOT.joinpath("notebooks").glob("[0-9][0-9]_*.py"))
SOLUTIONS = ROOT / "instructor" / "exercise_solutions.md"


def numbered(lines: list[str]) -> list[int]:
    return [int(match.group(1)) for line in lines if (match := re.match(r"(\d+)\. ", line))]


def exercises(notebook: Path) -> list[int]:
    """The numbers of the exercises in the notebook's "## Exercises" section (its jupytext source)."""
    text = "\n".join(line[2:] if line.startswith("# ") else line.lstrip("#") for line in notebook.read_text().splitlines())
    match = re.search(r"^## Exercises\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return numbered(match.group(1).splitlines()) if match else []


def solutions(number: str, text: str) -> list[int]:
    match = re.search(rf"^## {number} · [^\n]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return numbered(match.group(1).splitlines()) if match else []


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_exercise_has_a_worked_answer(notebook):
    asked = exercises(notebook)
    answered = solutions(notebook.name[:2], SOLUTIONS.read_text(encoding="utf-8"))
    missing = [number for number in asked if number not in answered]
    assert not missing, (f"{notebook.name}: exercise(s) {missing} have no entry in the '## {notebook.name[:2]} · …' "
                         f"section of instructor/exercise_solutions.md")


def test_the_parsers_find_what_they_should():
    assert exercises(ROOT / "notebooks" / "00_before_transformers.py") == [1, 2, 3, 4]
    assert solutions("99", "## 98 · a\n1. x\n## 99 · b\n1. y\n   2. not an entry\n2. z\n## 100 · c\n3. w") == [1, 2]
