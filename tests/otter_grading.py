"""Helpers shared by the homework tests that grade through otter (test_homework_assign.py for
homework 1, test_homework_sentiment_assign.py for homework 2): build a homework's versions from its
master, grade a notebook with the autograder, and write a submission with some answers redefined."""
import json
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).parent.parent


def assign(master: Path, out: Path) -> Path:
    """otter assign (through instructor/assign.py) into `out`; returns the build folder."""
    subprocess.run([sys.executable, ROOT / "instructor" / "assign.py", master, "--out", out / "build",
                    "--student-dir", out], check=True, capture_output=True, timeout=300)
    return out / "build"


def grade(assigned: Path, notebook: Path, tmp_path: Path, python=sys.executable) -> dict[str, dict]:
    """otter run with the build's autograder zip; the autograded questions' results by name."""
    zip_path = next((assigned / "autograder").glob("*.zip"))
    subprocess.run([python, "-m", "otter", "run", "-a", zip_path, "-o", tmp_path, notebook], check=True, capture_output=True,
                   timeout=600, cwd=notebook.parent)
    tests = json.loads((tmp_path / "results.json").read_text())["tests"]
    return {t["name"]: t for t in tests if t["name"].startswith("q")}


def submission(notebook_path: Path, answers: dict[str, str], tmp_path: Path, plays: dict[str, str],
               after_imports: str = "") -> Path:
    """The notebook with question q's answer redefined by `plays[q]` (in a cell right after the cell
    that starts with `answers[q]`), and `after_imports` run right after the import cell."""
    notebook = nbformat.read(notebook_path, as_version=4)
    cells = []
    for cell in notebook.cells:
        cells.append(cell)
        if cell.cell_type == "code" and "grader = otter.Notebook" in cell.source and after_imports:
            cells.append(nbformat.v4.new_code_cell(after_imports))
        for question, start in answers.items():
            if cell.cell_type == "code" and cell.source.startswith(start) and question in plays:
                cells.append(nbformat.v4.new_code_cell(plays[question]))
    notebook.cells = cells
    path = tmp_path / notebook_path.name
    nbformat.write(notebook, path)
    return path
