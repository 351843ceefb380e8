"""Where the series is published, kept in one place: `Repository` under `[project.urls]` in pyproject.toml.

Every notebook's Open in Colab badge, the clone in every setup cell, the autograder's install line
(instructor/assign.py) and the README are written from it, and so are the Korean edition's texts
(notebooks/NN_x.ko.md), its built notebooks (notebooks/ko/) and README.ko.md. A course that publishes its own copy runs

    make repository URL=https://github.com/<owner>/<name>

which sets the address and rewrites those files; tests/test_repository.py checks that they agree.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = "pyproject.toml"
ADDRESS_LINE = re.compile(r'^Repository = "([^"]*)"$', re.M)
GITHUB = re.compile(r"https://github\.com/([A-Za-z0-9][A-Za-z0-9-]*)/([A-Za-z0-9._-]+)")
# Where an address is written: after "github.com/" (clones, pip installs) or "/github/" (Colab's links).
PLACES = r"(?<=github\.com/)|(?<=colab\.research\.google\.com/github/)"


def written_from_it(root: Path = ROOT) -> list[Path]:
    """The files that carry the address."""
    notebooks = [path for folder in ("notebooks", "instructor", "notebooks/ko") for suffix in ("py", "ipynb", "ko.md")
                 for path in sorted((root / folder).glob(f"[0-9][0-9]_*.{suffix}"))]
    readmes = [path for path in (root / "README.md", root / "README.ko.md") if path.exists()]
    return notebooks + [root / "instructor" / "assign.py"] + readmes


def address(root: Path = ROOT) -> str:
    found = ADDRESS_LINE.search((root / PYPROJECT).read_text(encoding="utf-8"))
    if not found:
        raise ValueError(f'{root / PYPROJECT} has no `Repository = "https://github.com/<owner>/<name>"` line '
                         "under [project.urls]")
    return check_address(found.group(1))


def check_address(url: str) -> str:
    if not GITHUB.fullmatch(url):
        raise ValueError(f"expected a GitHub repository address like https://github.com/<owner>/<name> "
                         f"(Colab opens notebooks from GitHub), got {url!r}")
    return url


def slug(url: str) -> str:
    """'https://github.com/owner/name' -> 'owner/name'."""
    return url.removeprefix("https://github.com/")


def colab_badge(url: str, notebook: str) -> str:
    """The badge a notebook's first cell starts with; `notebook` is a file name in notebooks/."""
    return ("[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
            f"(https://colab.research.google.com/github/{slug(url)}/blob/main/notebooks/{notebook})")


def set_address(url: str, root: Path = ROOT) -> list[Path]:
    """Write `url` into pyproject.toml and every file written from it; return the files changed."""
    new, old = slug(check_address(url)), slug(address(root))
    pyproject = root / PYPROJECT
    pyproject.write_text(ADDRESS_LINE.sub(f'Repository = "{url}"', pyproject.read_text(encoding="utf-8")),
                         encoding="utf-8")
    changed = []
    for path in written_from_it(root):
        text = path.read_text(encoding="utf-8")
        rewritten = re.sub(rf"(?:{PLACES}){re.escape(old)}(?![\w-])(?!\.\w)", new, text)
        if rewritten != text:
            path.write_text(rewritten, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str]) -> int:
    if not argv:
        print(address())
        return 0
    try:
        changed = set_address(argv[0])
    except ValueError as error:
        print(f"make repository: {error}", file=sys.stderr)
        return 2
    print(f"Repository = {argv[0]}: rewrote {len(changed)} files; commit them with pyproject.toml.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
