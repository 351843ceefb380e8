"""Build the homework's versions from its master: `make homework [SECRET=...]` runs this.

otter assign writes build/homework/student (the student version) and build/homework/autograder
(the solution and the autograder zip, with the hidden tests). With a secret, every hidden test's
`seed=N` is first replaced by a seed drawn from it (anatomy.homework.hidden_seed), so the public
master does not reveal the hidden inputs. The student version is copied to notebooks/, paired with
a jupytext .py (its otter metadata, the public tests, travels in the .py header).
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from anatomy.homework.secrets import reseed

ROOT = Path(__file__).resolve().parent.parent


def reseeded(master: Path, secret: str) -> nbformat.NotebookNode:
    notebook, question = nbformat.read(master, as_version=4), "?"
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "raw" and "BEGIN QUESTION" in cell.source:
            question = next(line.split(":", 1)[1].strip() for line in cell.source.splitlines() if line.startswith("name:"))
        if cell.cell_type == "code" and cell.source.lstrip().startswith("# HIDDEN"):
            cell.source = reseed(cell.source, secret, f"{master.stem}/{question}/{index}")
    return notebook


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
    student = args.student_dir / args.master.name
    notebook = nbformat.read(args.out / "student" / args.master.name, as_version=4)
    notebook.metadata["jupytext"] = {"formats": "ipynb,py:percent", "notebook_metadata_filter": "otter"}
    nbformat.write(notebook, student)
    subprocess.run([bin_dir / "jupytext", "--sync", "-q", student], check=True)
    print(f"student version: {student} (+ .py); autograder: {next((args.out / 'autograder').glob('*.zip'))}"
          + ("; hidden inputs drawn from the secret" if args.secret else ""))


if __name__ == "__main__":
    main()
