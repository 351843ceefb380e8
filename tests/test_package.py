"""The package's house rules (README, "The package"): each course module names the notebook that
teaches it, none is over about 150 lines, every module sits in a subpackage, the subpackages import
in teaching order, and README's map lists exactly the modules there are."""
import ast
import importlib
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


# The layout (README, "The package"). The teaching order of the subpackages, defined here only: a subpackage
# imports at import time only from itself, from the ones before it and from checks.py, so no import cycle can form.
TEACHING_ORDER = ("corpora", "tokenizers", "layers", "efficient", "checkpoints", "models", "weights", "generation",
                  "tasks", "interpret", "alignment", "display")
TOP_LEVEL = {"__init__.py", "checks.py"}  # the package's front door and the argument checks every subpackage shares
OUTSIDE_THE_ORDER = {"homework", "data", "static"}  # the homeworks' checks (loaded on request), shipped files


def subpackage_modules() -> dict[str, list[Path]]:
    return {name: sorted(p for p in (ROOT / "anatomy" / name).glob("*.py") if p.name != "__init__.py")
            for name in TEACHING_ORDER}


def test_every_module_sits_in_a_subpackage_of_the_teaching_order():
    stray = sorted(p.name for p in (ROOT / "anatomy").glob("*.py") if p.name not in TOP_LEVEL)
    assert not stray, f"anatomy/{stray} sit at the top: move each into the subpackage of what it is ({TEACHING_ORDER})"
    folders = {p.name for p in (ROOT / "anatomy").iterdir() if p.is_dir() and p.name != "__pycache__"}
    unknown = sorted(folders - set(TEACHING_ORDER) - OUTSIDE_THE_ORDER)
    assert not unknown, f"anatomy/{unknown} is not in tests/test_package.py's TEACHING_ORDER: place it there"
    for name in TEACHING_ORDER:
        assert (ROOT / "anatomy" / name / "__init__.py").is_file(), f"anatomy/{name}/ needs an __init__.py"
        nested = sorted(str(p.relative_to(ROOT / "anatomy")) for p in (ROOT / "anatomy" / name).glob("*/*.py"))
        assert not nested, f"{nested}: one level of subpackages only, so the folder names are the whole map"


def import_time_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, anatomy subpackage or top-level module) of each import that runs when the module is imported:
    everything outside function bodies (an import inside a function runs when called, and forms no cycle)."""
    found, pending = [], list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] == "anatomy":
                found += [(node.lineno, parts[1])] if len(parts) > 1 else [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name.split(".")[1]) for a in node.names
                      if a.name.startswith("anatomy.")]
        pending.extend(ast.iter_child_nodes(node))
    return found


@pytest.mark.parametrize("name", TEACHING_ORDER)
def test_a_subpackage_imports_only_from_earlier_ones(name):
    rank = TEACHING_ORDER.index(name)
    for path in sorted((ROOT / "anatomy" / name).glob("*.py")):
        for line, target in import_time_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if target in TEACHING_ORDER:
                assert TEACHING_ORDER.index(target) <= rank, (
                    f"anatomy/{name}/{path.name}:{line} imports anatomy.{target}, which comes later in the teaching "
                    f"order {TEACHING_ORDER}: the two would import each other. Move the piece, or import it inside "
                    "the function that needs it")
            else:
                assert f"{target}.py" in TOP_LEVEL, f"anatomy/{name}/{path.name}:{line} imports anatomy.{target}"


@pytest.mark.parametrize("name", TEACHING_ORDER)
def test_each_subpackage_re_exports_its_public_names(name):
    package = importlib.import_module(f"anatomy.{name}")
    defined: dict[str, list[str]] = {}
    for path in subpackage_modules()[name]:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                defined.setdefault(node.name, []).append(path.stem)
    for public, modules in defined.items():
        if len(modules) > 1:  # e.g. tasks' training_batches: one per task, imported from its module
            continue
        module = importlib.import_module(f"anatomy.{name}.{modules[0]}")
        assert getattr(package, public, None) is getattr(module, public), \
            f"anatomy/{name}/__init__.py should re-export {public} from anatomy.{name}.{modules[0]}"


def readme_map() -> dict[str, list[str]]:
    """README's module map: subpackage -> the modules its table lists, in README order."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## The package\n")[1].split("\n## ")[0]
    listed: dict[str, list[str]] = {}
    parts = re.split(r"^\*\*`anatomy/(\w+)/`\*\*", section, flags=re.M)
    for name, table in zip(parts[1::2], parts[2::2]):
        listed[name] = re.findall(r"^\| `(\w+)\.py` \|", table, flags=re.M)
    return listed


def test_the_readme_map_lists_every_module_and_no_other():
    listed, actual = readme_map(), {name: [p.stem for p in paths] for name, paths in subpackage_modules().items()}
    assert list(listed) == list(TEACHING_ORDER), \
        f"README's map should have one table per subpackage in the teaching order {TEACHING_ORDER}, has {list(listed)}"
    for name in TEACHING_ORDER:
        missing, extra = sorted(set(actual[name]) - set(listed[name])), sorted(set(listed[name]) - set(actual[name]))
        assert not missing and not extra, \
            f"README's anatomy/{name}/ table: add {missing}, remove {extra} (no such module)"
        assert len(listed[name]) == len(set(listed[name])), f"README's anatomy/{name}/ table lists a module twice"
