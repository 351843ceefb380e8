"""How long the trusted grader takes for one submission: python benchmarks/grading_time.py (part of make bench).

Builds both homeworks' autograders (instructor/assign.py, into a temporary folder), then grades each
master's solution alone, as Gradescope would (`python -m anatomy_grading grade`, one submission, so
its children get every core as threads), and prints the wall time and the score. Goals on 2 cores:
homework 1 <= 30 s, homework 2 <= 120 s. Never a timed test.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOALS = {"08_homework_cross_attention": 30, "10_homework_sentiment": 120}


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
                  f"in the grader's own children: {result['extra_data']['seconds']} s")


if __name__ == "__main__":
    main()
