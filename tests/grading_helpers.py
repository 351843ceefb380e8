"""Helpers for the tests that grade homework notebooks as instructors do: build a homework with
instructor/assign.py, write submissions with some answers redefined, grade a folder of them with the
trusted grader's command (`python -m anatomy_grading grade`, one child per core, each on one thread),
and install the package from a wheel into a venv outside the repo (the Gradescope route).
Used by test_isolated_grading.py (homework 1) and test_homework_sentiment.py (homework 2)."""
from __future__ import annotations

import csv
import fcntl
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).parent.parent
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


# What instructor/assign.py's output depends on: the master, the script, the packages it imports and runs
# the master with, the locked libraries (otter) and this Python. A change to any of them builds anew.
ASSIGN_INPUTS = ("instructor/assign.py", "anatomy", "anatomy_grading", "requirements.lock", "pyproject.toml")
ASSIGN_CACHE = ROOT / "build" / "test-cache" / "assign"


def assign_key(master: Path, secret: str) -> str:
    """A hash of everything assign(master, secret) reads: its cache entry's name."""
    digest = hashlib.sha256(f"{sys.version}\0{secret}\0".encode() + Path(master).read_bytes())
    for name in ASSIGN_INPUTS:
        top = ROOT / name
        for path in sorted([top] if top.is_file() else top.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    return f"{Path(master).stem}-{digest.hexdigest()[:16]}"


def assign(master: Path, out: Path, secret: str = "") -> Path:
    """Build `master` into out/build/{student,autograder}; the student copy goes to `out` itself.

    instructor/assign.py runs the whole master (homework 2's fine-tunes a model), and two test files
    need homework 1's build: the first caller builds it into build/test-cache/assign/<hash of its inputs>,
    under a file lock, and every caller (another xdist worker, a later run) copies that build."""
    ASSIGN_CACHE.mkdir(parents=True, exist_ok=True)
    entry = ASSIGN_CACHE / assign_key(master, secret)
    with open(ASSIGN_CACHE / f"{entry.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second worker waits for the first's build
        if not (entry / "done").exists():
            shutil.rmtree(entry, ignore_errors=True)
            subprocess.run([sys.executable, ROOT / "instructor" / "assign.py", master, "--out", entry / "build",
                            "--student-dir", entry / "student", "--secret", secret],
                           check=True, capture_output=True, timeout=300)
            (entry / "done").touch()
    shutil.copytree(entry / "build", out / "build")
    for path in (entry / "student").iterdir():
        (shutil.copytree if path.is_dir() else shutil.copy2)(path, out / path.name)
    return out / "build"


def assign_script():
    """instructor/assign.py imported as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("assign", ROOT / "instructor" / "assign.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def submission(notebook_path: Path, answers: dict[str, str], path: Path, plays: dict[str, str],
               after_imports: str = "", first: str = "") -> Path:
    """The notebook with question q's answer redefined by `plays[q]` (in a cell right after the cell
    that starts with `answers[q]`), `after_imports` run right after the import cell and `first` as
    the very first cell; written to `path`."""
    notebook = nbformat.read(notebook_path, as_version=4)
    cells = [nbformat.v4.new_code_cell(first)] if first else []
    imports = [cell for cell in notebook.cells if cell.cell_type == "code" and "grader = notebook_grader(" in cell.source]
    if after_imports and len(imports) != 1:
        raise AssertionError(f"{notebook_path.name}: {len(imports)} import cells (grader = notebook_grader(...)) to put "
                             f"after_imports after, expected 1")
    for cell in notebook.cells:
        cells.append(cell)
        if after_imports and cell is imports[0]:
            cells.append(nbformat.v4.new_code_cell(after_imports))
        for question, start in answers.items():
            if cell.cell_type == "code" and cell.source.startswith(start) and question in plays:
                cells.append(nbformat.v4.new_code_cell(plays[question]))
    notebook.cells = cells
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    return path


def korean_edition(path: Path) -> Path:
    """The submission at `path` as made from the Korean edition: its markdown cells carry the Korean
    text of notebooks/NN_x.ko.md (as tools/korean_build.py builds notebooks/ko/), its code stays. In place."""
    from tools.korean import align, parse, translation_path

    notebook = nbformat.read(path, as_version=4)
    entries = parse(translation_path(ROOT / "notebooks" / path.name).read_text(encoding="utf-8"))
    cells = [cell for cell in notebook.cells if cell.cell_type == "markdown"]
    paired, _ = align(entries, [cell.source for cell in cells])
    for number, cell in enumerate(cells):
        if number in paired:
            cell.source = paired[number].text
    nbformat.write(notebook, path)
    return path


def grade_folder(assigned: Path, folder: Path, out: Path, python: Path | str = sys.executable,
                 call_timeout: float | None = None, cell_timeout: float | None = None) -> dict[str, dict]:
    """The trusted grader's command on every notebook in `folder`: {student: results.json}; the
    gradebook, feedback and review report stay in `out`."""
    zip_path = next((assigned / "autograder").glob("*.zip"))
    command = [python, "-m", "anatomy_grading", "grade", "-a", zip_path, "-o", out, "-j", "2", folder]
    command += ["--call-timeout", str(call_timeout)] if call_timeout else []
    command += ["--cell-timeout", str(cell_timeout)] if cell_timeout else []
    subprocess.run(command, check=True, capture_output=True, timeout=900, cwd=out.parent, env=os.environ | ONE_THREAD)
    return {path.stem: json.loads(path.read_text()) for path in (out / "results").glob("*.json")}


def by_question(results: dict) -> dict[str, dict]:
    """{question: {"score": its total, "output": its cases' outputs joined}} of one results.json."""
    questions: dict[str, dict] = {}
    for test in results["tests"]:
        entry = questions.setdefault(test["name"].split(" ")[0], {"score": 0.0, "output": ""})
        entry["score"] += test["score"]
        entry["output"] += test["output"] + "\n"
    return questions


def gradebook(out: Path) -> dict[str, dict]:
    with open(out / "gradebook.csv") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


def check_assigned(assigned: Path, name: str) -> None:
    """instructor/assign.py wrote the student and autograder notebooks, one autograder zip and the plan."""
    assert (assigned / "student" / name).exists() and (assigned / "autograder" / name).exists()
    assert len(list((assigned / "autograder").glob("*-autograder_*.zip"))) == 1
    assert (assigned / "autograder" / "grading_plan.json").exists()


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
