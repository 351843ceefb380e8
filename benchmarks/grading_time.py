"""How long the trusted grader takes for one submission: python benchmarks/grading_time.py (part of make bench).

Builds the three homeworks' autograders (instructor/assign.py, into a temporary folder), then grades each
master's solution alone, as Gradescope would (`python -m anatomy_grading grade`, one submission, so
its children get every core as threads), and prints the wall time and the score. Goals on 2 cores:
homework 1 <= 30 s, homework 2 <= 120 s, homework 3 <= 60 s (its
solution's tests run against the correct implementation and every mutant). Then a batch of 20 copies of homework 1's solution, two
workers (`-j 2`), as an instructor grades a class: its wall time and every score. Never a timed test.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOALS = {"08_homework_cross_attention": 30, "10_homework_sentiment": 120, "19_homework_attention_tests": 60}
BATCH = 20


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        for name, goal in GOALS.items():
            build = Path(scratch) / name
            subprocess.run([sys.executable, ROOT / "instructor" / "assign.py", ROOT / "instructor" / f"{name}.ipynb",
                            "--out", build / "build", "--student-dir", build, "--secret", "benchmark"],
                           check=True, capture_output=True)
            submissions = build / "submissions"
            submissions.mkdir()
            (submissions / f"{name}.ipynb").write_bytes((build / "build" / "autograder" / f"{name}.ipynb").read_bytes())
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "anatomy_grading", "grade", "-a", build / "build" / "autograder",
                            "-o", build / "out", submissions], check=True, capture_output=True)
            seconds = time.perf_counter() - start
            result = json.loads((build / "out" / "results" / "submissions.json").read_text())
            print(f"{name}: {seconds:5.1f} s for one submission (goal <= {goal} s), score {result['score']:g}, "
                  f"in the grader's own children: {result['extra_data']['seconds']} s", flush=True)
        batch_of_twenty(Path(scratch) / "08_homework_cross_attention")


def batch_of_twenty(build: Path) -> None:
    """A class's worth of homework 1 submissions (the solution, 20 times), graded with two workers."""
    name = build.name
    batch = build / "batch"
    batch.mkdir()
    for student in range(BATCH):
        (batch / f"student{student:02d}.ipynb").write_bytes((build / "build" / "autograder" / f"{name}.ipynb").read_bytes())
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "anatomy_grading", "grade", "-a", build / "build" / "autograder",
                    "-o", build / "batch_out", "-j", "2", batch], check=True, capture_output=True)
    seconds = time.perf_counter() - start
    scores = sorted({json.loads(path.read_text())["score"] for path in (build / "batch_out" / "results").glob("*.json")})
    print(f"{name}: a batch of {BATCH} submissions with 2 workers: {seconds:5.1f} s ({seconds / BATCH:.1f} s each), "
          f"scores {scores}")


if __name__ == "__main__":
    main()
