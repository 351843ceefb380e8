"""The homework as instructors use it: otter assign builds the versions, otter run grades them."""
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).parent.parent
MASTER = ROOT / "notebooks" / "08_homework_cross_attention.ipynb"
NAME = MASTER.name
OTTER = Path(sys.executable).parent / "otter"


@pytest.fixture(scope="module")
def assigned(tmp_path_factory):
    out = tmp_path_factory.mktemp("homework")
    subprocess.run([OTTER, "assign", MASTER, out], check=True, capture_output=True, timeout=300)
    return out


def grade(assigned, notebook, tmp_path):
    zip_path = next((assigned / "autograder").glob("*.zip"))
    subprocess.run([OTTER, "run", "-a", zip_path, "-o", tmp_path, notebook], check=True, capture_output=True,
                   timeout=300, cwd=notebook.parent)
    tests = json.loads((tmp_path / "results.json").read_text())["tests"]
    return {t["name"]: t for t in tests if t["name"].startswith("q")}


def test_assign_writes_student_solution_and_autograder(assigned):
    assert (assigned / "student" / NAME).exists()
    assert (assigned / "autograder" / NAME).exists()
    assert len(list((assigned / "autograder").glob("*-autograder_*.zip"))) == 1


def test_student_version_has_stubs_public_tests_and_no_solutions_or_hidden_tests(assigned):
    text = (assigned / "student" / NAME).read_text()
    assert 'raise NotImplementedError(\\"Question 3: CrossAttention.forward\\")' in text
    assert "masked_fill(~key_mask" not in text and "transpose(1, 2).reshape" not in text
    assert "seed=0" in text, "public tests stay in the student version"
    assert "seed=1234" not in text and "seed=4242" not in text, "hidden tests must not reach students"


def test_solution_passes_every_public_and_hidden_test(assigned, tmp_path):
    results = grade(assigned, assigned / "autograder" / NAME, tmp_path)
    assert sorted(results) == ["q1", "q2", "q3", "q4", "q5"]
    assert all(t["score"] == t["max_score"] > 0 for t in results.values()), results


def test_untouched_student_version_fails_readably_without_crashing(assigned, tmp_path):
    student = assigned / "student" / NAME
    results = grade(assigned, student, tmp_path)
    assert all(t["score"] == 0 for t in results.values())
    for name, test in results.items():
        assert f"not yet implemented: Question {name[1]}" in test["output"], test["output"][-300:]
    executed = tmp_path / "executed.ipynb"
    subprocess.run([Path(sys.executable).parent / "jupyter", "nbconvert", "--to", "notebook", "--execute",
                    "--output", executed, student], check=True, capture_output=True, timeout=300, cwd=student.parent)
    outputs = [o for c in nbformat.read(executed, 4).cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"], "the student notebook must run top to bottom"
