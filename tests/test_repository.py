"""The series' address lives in one place (pyproject.toml); badges, setup cells, the autograder and the
README agree with it, and `make repository` (tools/repository.py) rewrites all of them."""
import re
import shutil
import subprocess
import sys

import pytest
from test_notebooks import cells

from tools import repository
from tools.korean_build import build

ROOT = repository.ROOT
ADDRESS = repository.address()
# The places where the series points at itself: Colab links, setup-cell clones, pip installs from git.
SELF_REFERENCE = re.compile(r'(?:colab\.research\.google\.com/github/|"clone", "-q", "https://github\.com/|'
                            r'git\+https://github\.com/)([\w.-]+/[\w.-]+?)(?:/blob/|"|$|\s)', re.M)


def first_cell(path):
    return cells(path)[0].source


@pytest.mark.parametrize("folder", ["notebooks", "instructor", "notebooks/ko"])
def test_every_notebook_opens_with_the_badge_of_the_address(folder):
    for path in sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb")):
        in_notebooks = path.relative_to(ROOT / "notebooks").as_posix() if folder == "notebooks/ko" else path.name
        assert first_cell(path).startswith(repository.colab_badge(ADDRESS, in_notebooks)), (
            f"{folder}/{path.name}: expected its first cell to start with the Colab badge of {ADDRESS}; "
            "run `make repository URL=...` rather than editing badges by hand")


def test_every_file_written_from_the_address_names_only_it():
    for path in repository.written_from_it():
        named = set(SELF_REFERENCE.findall(path.read_text(encoding="utf-8")))
        assert named <= {repository.slug(ADDRESS)}, f"{path.relative_to(ROOT)} names {named - {repository.slug(ADDRESS)}}"
    assert ADDRESS in (ROOT / "README.md").read_text(encoding="utf-8")
    assert ADDRESS in (ROOT / "README.ko.md").read_text(encoding="utf-8")
    assert f"git+{ADDRESS}" in (ROOT / "instructor" / "assign.py").read_text(encoding="utf-8")
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py")):
        assert f'"git", "clone", "-q", "{ADDRESS}"' in path.read_text(encoding="utf-8"), path.name


@pytest.fixture
def copy_of_the_series(tmp_path):
    for folder in ("notebooks", "instructor"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("README.md", "README.ko.md", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def test_set_address_rewrites_every_place_and_nothing_else(copy_of_the_series):
    root, new = copy_of_the_series, "https://github.com/some-course/anatomy-2027"
    before = {path: path.read_text(encoding="utf-8") for path in repository.written_from_it(root)}
    changed = repository.set_address(new, root)
    assert repository.address(root) == new
    assert set(changed) == {path for path, text in before.items() if repository.slug(ADDRESS) in text}
    for path, text in before.items():
        expected = text.replace(repository.slug(ADDRESS), "some-course/anatomy-2027")
        assert path.read_text(encoding="utf-8") == expected, path.name
    assert first_cell(root / "notebooks" / "03_attention.ipynb").startswith(
        repository.colab_badge(new, "03_attention.ipynb"))
    korean = sorted((root / "notebooks").glob("*.ko.md"))
    assert korean and {path.parent.name for path in changed} >= {"notebooks", "ko", "instructor"}
    for path in korean:  # the Korean edition built from the rewritten files is the rewritten Korean edition
        english = path.with_name(path.name.replace(".ko.md", ".ipynb"))
        assert build(english) == (path.parent / "ko" / english.name).read_text(encoding="utf-8"), english.name


@pytest.mark.parametrize("bad", ["github.com/owner/name", "https://gitlab.com/owner/name",
                                 "https://github.com/owner", "https://github.com/owner/name/tree/main"])
def test_an_address_that_colab_cannot_open_is_refused(copy_of_the_series, bad):
    with pytest.raises(ValueError, match=r"expected a GitHub repository address like https://github.com/<owner>/<name>.*got"):
        repository.set_address(bad, copy_of_the_series)
    assert repository.address(copy_of_the_series) == ADDRESS, "a refused address must change nothing"


def test_make_repository_without_url_says_how_to_call_it():
    done = subprocess.run(["make", "-s", "repository"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode != 0 and "usage: make repository URL=https://github.com/<owner>/<name>" in done.stdout


def test_the_command_line_reports_a_bad_address_without_a_traceback():
    # refused before anything is written, so it runs on the real tree
    done = subprocess.run([sys.executable, "-m", "tools.repository", "not-an-address"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2 and "make repository: expected a GitHub" in done.stderr
    assert "Traceback" not in done.stderr
