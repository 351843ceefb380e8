"""Command line: grade a folder of submissions, grade on Gradescope, or write a homework's plan.

    python -m anatomy_grading grade -a AUTOGRADER [-o results] [-j WORKERS] SUBMISSIONS...
    python -m anatomy_grading gradescope [/autograder]       (what the autograder zip's run_autograder runs)
    python -m anatomy_grading plan MASTER STUDENT -o grading_plan.json

AUTOGRADER is the folder `make homework` writes (build/homework/autograder), its zip, or a
grading_plan.json. SUBMISSIONS are notebooks or folders of them; a student is named after the
notebook, or after its folder when the notebook keeps the assignment's name.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

PLAN = "grading_plan.json"


def gradescope(root: Path) -> None:
    """Grade /autograder/submission's notebook with /autograder/source's plan into results/results.json."""
    from anatomy_grading import report, sandbox
    from anatomy_grading.grader import grade, hidden_paths

    source, results = root / "source", root / "results"
    assignment = json.loads((source / PLAN).read_text())["assignment"]
    notebooks = sorted((root / "submission").rglob("*.ipynb"), key=lambda n: n.stem != assignment)
    results.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:  # the child runs as another uid: it must not read the plan, nor write the results
        os.chmod(source, 0o700)
        os.chmod(results, 0o700)
        sandbox.lock_down(hidden_paths([source, results, root / "submission"]))
    if not notebooks:
        (results / "results.json").write_text(json.dumps({"score": 0, "output": "no .ipynb file in the submission"}))
        return
    result = grade(notebooks[0], source / PLAN, threads=os.cpu_count() or 1, hide=[root / "submission", results])
    (results / "results.json").write_text(json.dumps(report.gradescope(result), indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m anatomy_grading", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("grade", help="grade notebooks into a gradebook, feedback and a review report")
    one.add_argument("-a", "--autograder", type=Path, required=True)
    one.add_argument("-o", "--out", type=Path, default=Path("grading_results"))
    one.add_argument("-j", "--jobs", type=int, default=0, help="children at once (default: one per core)")
    one.add_argument("--call-timeout", type=float, default=None, help="seconds per call (default: the homework's)")
    one.add_argument("--cell-timeout", type=float, default=None, help="seconds per notebook cell (default: 120)")
    one.add_argument("submissions", type=Path, nargs="+")
    scope = commands.add_parser("gradescope", help="grade on Gradescope (run_autograder calls this)")
    scope.add_argument("root", type=Path, nargs="?", default=Path("/autograder"))
    plan = commands.add_parser("plan", help="write a homework's grading plan from its master")
    plan.add_argument("master", type=Path)
    plan.add_argument("student", type=Path)
    plan.add_argument("-o", "--out", type=Path, default=Path(PLAN))
    args = parser.parse_args()
    if args.command == "grade":
        from anatomy_grading.batch import grade_folder

        grade_folder(args.autograder, args.submissions, args.out, args.jobs, args.call_timeout, args.cell_timeout)
    elif args.command == "gradescope":
        gradescope(args.root)
    else:
        from anatomy_grading.plan import plan_from_master

        args.out.write_text(json.dumps(plan_from_master(args.master, args.student), indent=1))


if __name__ == "__main__":
    main()
