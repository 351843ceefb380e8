"""Grading a folder of submissions: each notebook in a worker process of its own, `jobs` at a time,
each worker with a uid of its own for its children (where the grader runs as root: uids.py).
`python -m anatomy_grading grade` runs grade_folder; report.py writes what it found.

No submission can stop the batch: a worker that dies, crashes or runs past the submission's time
limit (and a grace period) costs that submission only: every question 0, with the reason, and a
flag for review; the others are graded as usual. Every child sees none of the batch: the folders
and files given, the output folder and the grader's scratch are hidden from it (sandbox.py).
Notebooks are named after their student (`submissions`); two that name the same student, or a
notebook named like a student inside another student's folder, are reported, never merged.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

PLAN = "grading_plan.json"
GRACE = 120.0  # seconds a worker gets beyond the submission's own limit before it is killed


def plan_path(autograder: Path, scratch: Path) -> Path:
    if autograder.suffix == ".zip":
        with zipfile.ZipFile(autograder) as archive:
            archive.extract(PLAN, scratch)
        return scratch / PLAN
    return autograder / PLAN if autograder.is_dir() else autograder


def submissions(paths: list[Path], assignment: str) -> tuple[dict[str, Path], dict[str, list[str]]]:
    """({student: notebook}, {student: notes for review}). A notebook is named after its stem, or after
    its folder when it keeps the assignment's name. A folder holding the assignment's notebook is one
    student's: the other notebooks in it are that student's extra files (noted, not graded), never
    another student's. Two notebooks naming the same student get a row each (name#1, name#2), noted."""
    roots = {p.resolve() for p in paths}
    found = [n for p in paths for n in (sorted(p.rglob("*.ipynb")) if p.is_dir() else [p])
             if ".ipynb_checkpoints" not in n.parts]
    owners = {n.parent.resolve() for n in found if n.stem == assignment and n.parent.resolve() not in roots}
    named: dict[str, list[Path]] = {}
    notes: dict[str, list[str]] = {}
    for notebook in found:
        if notebook.stem == assignment:
            named.setdefault(notebook.parent.name, []).append(notebook)
        elif notebook.parent.resolve() in owners:
            notes.setdefault(notebook.parent.name, []).append(
                f"{notebook} lies in this student's folder beside the assignment's notebook: not graded, not anyone's")
        else:
            named.setdefault(notebook.stem, []).append(notebook)
    students: dict[str, Path] = {}
    for name, notebooks in named.items():
        if len(notebooks) == 1:
            students[name] = notebooks[0]
            continue
        for number, notebook in enumerate(notebooks, 1):
            students[f"{name}#{number}"] = notebook
            notes.setdefault(f"{name}#{number}", []).append(
                f"{len(notebooks)} notebooks name the student {name} ({', '.join(map(str, notebooks))}): each is graded "
                f"in a row of its own ({name}#1, {name}#2, ...); decide which counts")
    return students, notes


def grade_in_worker(notebook: Path, plan: Path, scratch: Path, options: dict) -> object:
    """Grade one notebook in a worker process of its own (`python -m anatomy_grading worker`); what it
    cannot report (it died, or ran past the limit) becomes an ungraded result."""
    from anatomy_grading.grader import Result, TOTAL, ungraded

    out = Path(tempfile.mkdtemp(dir=scratch)) / "result.json"
    total = options["total"] or TOTAL.get(json.loads(plan.read_text())["assignment"], 300.0)
    command = [sys.executable, "-m", "anatomy_grading", "worker", "--plan", plan, "--threads", str(options["threads"]),
               "--total", str(total), "--result", out, notebook]
    command += [a for p in options["hide"] for a in ("--hide", str(p))]
    command += [a for k in ("call_timeout", "cell_timeout") if options[k] for a in (f"--{k.replace('_', '-')}", str(options[k]))]
    worker = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, errors = worker.communicate(timeout=total + GRACE)
    except subprocess.TimeoutExpired:  # its children die with it (sandbox: parent-death signal, uid sweep)
        os.killpg(worker.pid, signal.SIGKILL)
        _, errors = worker.communicate()
    if worker.returncode == 0 and out.exists():
        return Result(**json.loads(out.read_text()))
    return ungraded(plan, "worker_stopped", f"the grader's worker stopped (exit code {worker.returncode}): "
                                            f"{errors.decode(errors='replace')[-600:]}", notebook, code=worker.returncode)


def grade_folder(autograder: Path, paths: list[Path], out: Path, jobs: int = 0, call_timeout: float | None = None,
                 cell_timeout: float | None = None, total: float | None = None) -> None:
    """Grade every notebook under `paths`, `jobs` at a time (default: one per core), into `out`."""
    from tqdm import tqdm

    from anatomy_grading import report

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        plan = plan_path(autograder, Path(scratch))
        students, notes = submissions(paths, json.loads(plan.read_text())["assignment"])
        workers = max(1, min(jobs or os.cpu_count() or 1, len(students)))
        options = {"threads": max(1, (os.cpu_count() or 1) // workers), "call_timeout": call_timeout,
                   "cell_timeout": cell_timeout, "total": total,
                   "hide": sorted({str(p.resolve()) for p in paths} | {str(out.resolve()), str(Path(scratch).resolve())})}
        results = {}
        with ThreadPoolExecutor(workers) as pool:
            futures = {pool.submit(grade_in_worker, path, plan, Path(scratch), options): name
                       for name, path in students.items()}
            for future in tqdm(as_completed(futures), total=len(futures), desc="grading", unit="notebook", file=sys.stdout):
                name = futures[future]
                result = results[name] = future.result()
                result.flags += notes.pop(name, [])
                tqdm.write(f"{name}: {result.score():g}" + (" (flagged for review)" if result.flags else ""))
        for name, left in notes.items():  # a folder's extra notebooks, where two notebooks name its student
            for row in [r for r in results if r.startswith(f"{name}#")]:
                results[row].flags += left
    report.write_all(results, out)
    print(f"graded {len(results)} notebooks, {workers} at a time, in {time.perf_counter() - start:.0f} s")
    print(f"gradebook: {out / 'gradebook.csv'}; feedback: {out / 'feedback'}; review: {out / 'review.md'}")
