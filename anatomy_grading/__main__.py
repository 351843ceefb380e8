"""Command line: grade a folder of submissions, grade on Gradescope, or write a homework's plan.

    python -m anatomy_grading grade -a AUTOGRADER [-o results] [-j WORKERS] SUBMISSIONS...
    python -m anatomy_grading worker --plan PLAN --result OUT.json NOTEBOOK   (one notebook; what `grade` runs)
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
    from anatomy.homework.messages import LANGUAGES, say
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
        (results / "results.json").write_text(json.dumps({"score": 0, "output": "\n".join(say("no_notebook", language) for language in LANGUAGES)}))
        return
    try:
        result = grade(notebooks[0], source / PLAN, threads=os.cpu_count() or 1, hide=[root / "submission", results])
    except Exception as error:  # the grader's own failure: 0, with the reason, never a traceback for the student
        from anatomy_grading.grader import ungraded
        result = ungraded(source / PLAN, "not_graded", f"the grader failed: {type(error).__name__}: {str(error)[:300]}",
                          notebooks[0])
    (results / "results.json").write_text(json.dumps(report.gradescope(result), indent=1))


def work(args: argparse.Namespace) -> None:
    """One notebook graded into args.result (JSON of grader.Result); anything the grader raises is that
    submission's 0, with the reason, never the batch's end."""
    import dataclasses
    import traceback

    from anatomy_grading.grader import grade, ungraded

    try:
        result = grade(args.notebook, args.plan, threads=args.threads, hide=args.hide,
                       call_timeout=args.call_timeout, cell_timeout=args.cell_timeout, total=args.total)
    except Exception as error:
        result = ungraded(args.plan, "not_graded_zero", f"the grader failed: {type(error).__name__}: {str(error)[:300]}",
                          args.notebook)
        result.log.append(traceback.format_exc()[-4000:])
    args.result.write_text(json.dumps(dataclasses.asdict(result)))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m anatomy_grading", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("grade", help="grade notebooks into a gradebook, feedback and a review report")
    one.add_argument("-a", "--autograder", type=Path, required=True)
    one.add_argument("-o", "--out", type=Path, default=Path("grading_results"))
    one.add_argument("-j", "--jobs", type=int, default=0, help="children at once (default: one per core)")
    one.add_argument("--call-timeout", type=float, default=None, help="seconds per call (default: the homework's)")
    one.add_argument("--cell-timeout", type=float, default=None, help="seconds per notebook cell (default: 120)")
    one.add_argument("--total-timeout", type=float, default=None,
                     help="seconds for one whole submission (default: the homework's: 300, 900 or 1980)")
    one.add_argument("submissions", type=Path, nargs="+")
    worker = commands.add_parser("worker", help="grade one notebook into a result file (what `grade` runs per notebook)")
    worker.add_argument("--plan", type=Path, required=True)
    worker.add_argument("--result", type=Path, required=True)
    worker.add_argument("--threads", type=int, default=1)
    worker.add_argument("--total", type=float, default=None)
    worker.add_argument("--call-timeout", type=float, default=None)
    worker.add_argument("--cell-timeout", type=float, default=None)
    worker.add_argument("--hide", type=Path, action="append", default=[])
    worker.add_argument("notebook", type=Path)
    scope = commands.add_parser("gradescope", help="grade on Gradescope (run_autograder calls this)")
    scope.add_argument("root", type=Path, nargs="?", default=Path("/autograder"))
    plan = commands.add_parser("plan", help="write a homework's grading plan from its master")
    plan.add_argument("master", type=Path)
    plan.add_argument("student", type=Path)
    plan.add_argument("-o", "--out", type=Path, default=Path(PLAN))
    args = parser.parse_args()
    if args.command == "grade":
        from anatomy_grading.batch import grade_folder

        grade_folder(args.autograder, args.submissions, args.out, args.jobs, args.call_timeout, args.cell_timeout,
                     args.total_timeout)
    elif args.command == "worker":
        work(args)
    elif args.command == "gradescope":
        gradescope(args.root)
    else:
        from anatomy_grading.plan import plan_from_master

        args.out.write_text(json.dumps(plan_from_master(args.master, args.student), indent=1))


if __name__ == "__main__":
    main()
