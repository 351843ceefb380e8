"""Grading a folder of submissions in parallel: one worker process per core, each grading one notebook
at a time with children of its own (a uid of its own per worker, where the grader runs as root).
`python -m anatomy_grading grade` runs grade_folder; report.py writes what it found.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import sys
import tempfile
import zipfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

PLAN = "grading_plan.json"


def plan_path(autograder: Path, scratch: Path) -> Path:
    if autograder.suffix == ".zip":
        with zipfile.ZipFile(autograder) as archive:
            archive.extract(PLAN, scratch)
        return scratch / PLAN
    return autograder / PLAN if autograder.is_dir() else autograder


def submissions(paths: list[Path], assignment: str) -> dict[str, Path]:
    found = [n for p in paths for n in (sorted(p.rglob("*.ipynb")) if p.is_dir() else [p])
             if ".ipynb_checkpoints" not in n.parts]
    return {(n.parent.name if n.stem == assignment else n.stem): n for n in found}


_slot = 0


def take_slot(slots) -> None:
    global _slot
    _slot = slots.get()


def grade_one(notebook: Path, plan: Path, threads: int, call_timeout: float | None, cell_timeout: float | None):
    from anatomy_grading.grader import grade

    return grade(notebook, plan, slot=_slot, threads=threads, call_timeout=call_timeout, cell_timeout=cell_timeout)


def grade_folder(autograder: Path, paths: list[Path], out: Path, jobs: int = 0, call_timeout: float | None = None,
                 cell_timeout: float | None = None) -> None:
    """Grade every notebook under `paths`, `jobs` at a time (default: one per core), into `out`."""
    from tqdm import tqdm

    from anatomy_grading import report

    with tempfile.TemporaryDirectory() as scratch:
        plan = plan_path(autograder, Path(scratch))
        students = submissions(paths, json.loads(plan.read_text())["assignment"])
        workers = max(1, min(jobs or os.cpu_count() or 1, len(students)))
        threads = max(1, (os.cpu_count() or 1) // workers)
        context = multiprocessing.get_context("spawn")
        slots = context.Queue()
        for slot in range(workers):
            slots.put(slot)
        results = {}
        with ProcessPoolExecutor(workers, mp_context=context, initializer=take_slot, initargs=(slots,)) as pool:
            futures = {pool.submit(grade_one, path, plan, threads, call_timeout, cell_timeout): name for name, path in students.items()}
            for future in tqdm(as_completed(futures), total=len(futures), desc="grading", unit="notebook", file=sys.stdout):
                name = futures[future]
                results[name] = future.result()
                tqdm.write(f"{name}: {results[name].score():g}" + (" (flagged for review)" if results[name].flags else ""))
    report.write_all(results, out)
    print(f"gradebook: {out / 'gradebook.csv'}; feedback: {out / 'feedback'}; review: {out / 'review.md'}")


