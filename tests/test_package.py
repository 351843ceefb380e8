"""The package's house rules (README, "The package"): each course module names the notebook that
teaches it, and none is over about 150 lines."""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
NOTEBOOKS = {path.stem for path in (ROOT / "notebooks").glob("*.ipynb")}
COURSE_MODULES = sorted(path for path in [*(ROOT / "anatomy").glob("*.py"), *(ROOT / "anatomy").glob("*/*.py")]
                        if path.name != "__init__.py" and path.parent.name != "homework")
ALL_MODULES = sorted((ROOT / "anatomy").rglob("*.py"))
MAX_LINES = 160  # "about 150"


@pytest.mark.parametrize("path", COURSE_MODULES, ids=lambda path: path.name)
def test_each_course_module_names_the_notebook_that_teaches_it(path):
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    named = set(re.findall(r"\b\d\d_[a-z0-9_]*[a-z0-9]", docstring)) & NOTEBOOKS
    assert named or "every notebook" in docstring, \
        f"{path.name}: its docstring should name the notebook that teaches it (e.g. 03_attention), names none"


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda path: str(path.relative_to(ROOT / "anatomy")))
def test_no_module_is_over_about_150_lines(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.name} has {lines} lines: split it by concept (at most {MAX_LINES})"
