"""A fresh clone's `make test`, two commits side by side: python3 benchmarks/suite_time.py BEFORE AFTER
(`make bench-suite`; about an hour on two cores, so not part of `make bench`, and never a timed test).

For each commit (BEFORE first, e.g. the main a change started from; AFTER, e.g. HEAD) it clones this
repository at that commit into build/suite_time/<commit>, runs `make install` there (timed apart: the
install is not the suite) and then `make test`, and keeps the end of its output (pytest's summary and
the slowest durations `make test` prints) in build/suite_time/<commit>.log. Prints each commit's wall
time, the test ids each collected and passed (a faster suite that checks less is no gain) and the
ratio AFTER / BEFORE (goal <= 0.60). Run it alone on the machine: the suite uses every core, and two
runs at once would each take longer. --keep leaves the clones (each holds a 2.2 GB venv).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL = 0.60
SUMMARY = re.compile(r"=+ (.*\d+ passed.*) in [\d.]+s")


def run(command: list[str], cwd: Path, log: Path) -> tuple[float, int]:
    """Run `command` in `cwd`, appending its output to `log`; (seconds, exit status)."""
    start = time.perf_counter()
    with open(log, "a") as out:
        status = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT).returncode
    return time.perf_counter() - start, status


def collected(clone: Path) -> int:
    """How many test ids `make test`'s arguments collect in `clone` (nbval cells included)."""
    result = subprocess.run([clone / ".venv" / "bin" / "python", "-m", "pytest", "--collect-only", "-q", "--nbval",
                             "--nbval-current-env", "-p", "no:cacheprovider", "tests", "notebooks", "instructor"],
                            cwd=clone, capture_output=True, text=True)
    found = re.search(r"(\d+) tests? collected", result.stdout)
    return int(found.group(1)) if found else -1


def time_commit(commit: str, scratch: Path, keep: bool) -> dict:
    sha = subprocess.run(["git", "rev-parse", "--short", commit], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.strip()
    clone, log = scratch / sha, scratch / f"{sha}.log"
    shutil.rmtree(clone, ignore_errors=True)
    log.write_text("")
    subprocess.run(["git", "clone", "-q", "--no-checkout", ROOT, clone], check=True)
    subprocess.run(["git", "checkout", "-q", sha], cwd=clone, check=True)
    install, status = run(["make", "install"], clone, log)
    if status:
        sys.exit(f"{sha}: make install failed (exit {status}); see {log}")
    ids = collected(clone)
    seconds, status = run(["make", "test"], clone, log)
    summary = SUMMARY.findall(log.read_text())
    if not keep:
        shutil.rmtree(clone, ignore_errors=True)
    return {"commit": sha, "install": install, "test": seconds, "status": status, "ids": ids,
            "summary": summary[-1] if summary else "no pytest summary (see the log)"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="the commit to compare against (e.g. main)")
    parser.add_argument("after", nargs="?", default="HEAD", help="the commit measured (default HEAD)")
    parser.add_argument("--keep", action="store_true", help="keep the clones in build/suite_time")
    args = parser.parse_args()
    scratch = ROOT / "build" / "suite_time"
    scratch.mkdir(parents=True, exist_ok=True)
    rows = [time_commit(commit, scratch, args.keep) for commit in (args.before, args.after)]
    for row in rows:
        print(f"{row['commit']}: make install {row['install']:6.0f} s, make test {row['test']:6.0f} s "
              f"(exit {row['status']}), {row['ids']} test ids collected; {row['summary']}")
    before, after = rows
    ratio = after["test"] / before["test"]
    print(f"make test: {after['commit']} / {before['commit']} = {ratio:.2f} (goal <= {GOAL:.2f}: "
          f"{'met' if ratio <= GOAL else 'NOT met'}); test ids {before['ids']} -> {after['ids']}"
          f"{'' if after['ids'] >= before['ids'] else ' (FEWER: the faster suite checks less)'}; "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
