"""Helpers for the homework tests that grade through otter (test_homework_assign.py for homework 1,
test_homework_sentiment.py for homework 2): build a homework with instructor/assign.py, write a
submission with some answers redefined, grade submissions with `otter run`, and install the package
from a wheel into a venv outside the repo (the Gradescope route).

`grade_all` runs its gradings two at a time, each on one thread (OMP_NUM_THREADS=1): two
single-threaded processes fill the machine's 2 cores without fighting over them, so a dozen
gradings cost about half their sum. Scores do not depend on the thread count."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

ROOT = Path(__file__).parent.parent
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def assign(master: Path, out: Path, secret: str = "") -> Path:
    """Build `master` into out/build/{student,autograder}; the student copy goes to `out` itself."""
    subprocess.run([sys.executable, ROOT / "instructor" / "assign.py", master, "--out", out / "build",
                    "--student-dir", out, "--secret", secret], check=True, capture_output=True, timeout=300)
    return out / "build"


def assign_script():
    """instructor/assign.py imported as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("assign", ROOT / "instructor" / "assign.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def submission(notebook_path: Path, answers: dict[str, str], folder: Path, plays: dict[str, str],
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
    path = folder / notebook_path.name
    nbformat.write(notebook, path)
    return path


def grade(assigned: Path, notebook: Path, out: Path, python: Path | str = sys.executable) -> dict[str, dict]:
    """otter run's results for `notebook`, per question: {"q1": {"score": ..., "output": ...}, ...}."""
    zip_path = next((assigned / "autograder").glob("*.zip"))
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run([python, "-m", "otter", "run", "-a", zip_path, "-o", out, notebook], check=True, capture_output=True,
                   timeout=600, cwd=notebook.parent, env=os.environ | ONE_THREAD)
    tests = json.loads((out / "results.json").read_text())["tests"]
    return {t["name"]: t for t in tests if t["name"].startswith("q")}


def grade_all(jobs: dict[str, tuple]) -> dict[str, dict[str, dict]]:
    """{name: grade(*arguments)} for {name: arguments}, two gradings at a time."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(grade, *arguments) for name, arguments in jobs.items()}
        return {name: future.result() for name, future in futures.items()}


class Gradings:
    """The otter runs of one test file, graded together: each gets its own folder under `root`."""

    def __init__(self, assigned: Path, root: Path) -> None:
        self.assigned, self.root, self.jobs = assigned, root, {}

    def add(self, name: str, notebook_in: Callable[[Path], Path], python: Path | str = sys.executable) -> None:
        """Grade, as `name`, the notebook that `notebook_in(folder)` writes into its folder or names."""
        folder = self.root / name
        folder.mkdir()
        self.jobs[name] = (self.assigned, notebook_in(folder), folder, python)

    def grade(self) -> dict[str, dict[str, dict]]:
        return grade_all(self.jobs)


def check_assigned(assigned: Path, name: str) -> None:
    """instructor/assign.py wrote the student and autograder notebooks and one autograder zip."""
    assert (assigned / "student" / name).exists() and (assigned / "autograder" / name).exists()
    assert len(list((assigned / "autograder").glob("*-autograder_*.zip"))) == 1


def venv_from_wheel(tmp_path: Path) -> tuple[Path, str]:
    """A fresh venv holding only our package, installed from a wheel built here (torch & co. come from
    the course venv through a .pth file). Returns (its python, its site-packages)."""
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", wheels, ROOT],
                   check=True, capture_output=True, timeout=300)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=120)
    python = venv / "bin" / "python"
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = subprocess.run([python, "-c", purelib], check=True, capture_output=True, text=True).stdout.strip()
    deps = subprocess.run([sys.executable, "-c", purelib], check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "course_dependencies.pth").write_text(deps + "\n")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", next(wheels.glob("*.whl"))],
                   check=True, capture_output=True, timeout=300)
    return python, site
