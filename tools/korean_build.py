"""The Korean notebooks: notebooks/ko/NN_topic.ipynb, built from the English .ipynb and its .ko.md.

    python -m tools.korean build      (make korean)

The English notebook stays the source of code and outputs: the Korean one is a copy of it (cells, ids,
outputs, metadata) whose markdown cells carry the Korean entries instead, each cell's metadata recording
the English hash its text translates (`"korean": {"english_hash": ...}`). Link targets are rewritten for
notebooks/ko/ (`rewrite_links`). Only the notebook's jupytext pairing is dropped: a Korean notebook has
no .py twin, and Jupyter would otherwise write one beside it on save.

Entries are matched to English cells in order by hash (`tools.korean.align`), so an inserted English cell
shows up as one untranslated cell rather than shifting every entry after it. `problems()` names each cell
whose entry is missing or stale; the build never fails on them (a maintainer who edits English prose
can still run `make notebooks`), it keeps the stale Korean text or the English one and warns, and
tests/test_korean_edition.py fails until the cell is translated again.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat

from tools.korean import align, english_hash, markdown_cells, parse, render, translation_path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
# A markdown link or image target: ](target) or src="target" / href="target".
TARGET = re.compile(r'(\]\(|(?:src|href)=")([^)"\s]+)')
COLAB = re.compile(r"(colab\.research\.google\.com/github/[\w.-]+/[\w.-]+/blob/main/notebooks/)(?=\d\d_[\w.-]*\.ipynb)")
SIBLING = re.compile(r"\d\d_[\w-]+\.ipynb(#.*)?")


def english_notebooks(root: Path = ROOT) -> list[Path]:
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def korean_path(notebook: Path) -> Path:
    return notebook.parent / "ko" / notebook.name


def rewrite_target(target: str) -> str:
    """A link target of notebooks/NN_x.ipynb, as notebooks/ko/NN_x.ipynb must write it."""
    if re.match(r"[a-z][a-z0-9+.-]*:|#|/", target):  # a URL, an anchor in this notebook, an absolute path
        return target
    if target.startswith("ko/"):  # the twin link: from the Korean notebook, its English twin
        return "../" + target.removeprefix("ko/")
    if SIBLING.fullmatch(target):  # another notebook of the series: its Korean sibling
        return target
    return "../" + target  # ../images/x.png, korean_terms.toml, ...: one folder further up


def rewrite_links(text: str) -> str:
    text = TARGET.sub(lambda match: match.group(1) + rewrite_target(match.group(2)), text)
    return COLAB.sub(r"\1ko/", text)


def first_line(source: str) -> str:
    line = next((line for line in source.splitlines() if line.strip()), "")
    return line if len(line) <= 80 else line[:77] + "..."


def problems(notebook: Path) -> list[str]:
    """What keeps the Korean edition of `notebook` from being complete and current, one line each."""
    english = json.loads(notebook.read_text(encoding="utf-8"))
    path, name = translation_path(notebook), f"notebooks/{notebook.name}"
    if not path.exists():
        return [f"{name} has no Korean translation: run `python -m tools.korean skeleton {name}` and translate "
                f"{path.name}"]
    cells = markdown_cells(english)
    paired, orphans = align(parse(path.read_text(encoding="utf-8")), [source for _, source in cells])
    found = []
    for number, (index, source) in enumerate(cells):
        entry, where = paired.get(number), f"{name}: cell {index} ({first_line(source)!r})"
        if entry is None:
            found.append(f"{where} is not translated: run `python -m tools.korean skeleton {name}` and translate "
                         "its new entry")
        elif entry.english_hash != english_hash(source):
            found.append(f"{where} changed since it was translated (the entry translates en {entry.english_hash}, "
                         f"the cell is now en {english_hash(source)}): re-translate it in {path.name} (`git log -p "
                         f"{name}` shows what changed), then record that with `python -m tools.korean "
                         f"retranslated {name} {index}`")
    found += [f"{name}: the entry en {entry.english_hash} ({first_line(entry.text)!r}) translates a cell that no "
              f"longer exists: delete it from {path.name}" for entry in orphans]
    return found


def retranslated(notebook: Path, index: int) -> None:
    """Record that the entry of cell `index` (its index among all cells) now translates the cell's current text."""
    english = json.loads(notebook.read_text(encoding="utf-8"))
    cells = markdown_cells(english)
    number = next((number for number, (at, _) in enumerate(cells) if at == index), None)
    if number is None:
        raise ValueError(f"expected the index of a markdown cell of {notebook.name} "
                         f"({', '.join(str(at) for at, _ in cells)}), got {index}")
    path = translation_path(notebook)
    entries = parse(path.read_text(encoding="utf-8"))
    entry = align(entries, [source for _, source in cells])[0].get(number)
    if entry is None:
        raise ValueError(f"cell {index} of {notebook.name} has no entry yet: "
                         "run `python -m tools.korean skeleton` first")
    entry.english_hash = english_hash(cells[number][1])
    path.write_text(render(entries), encoding="utf-8")


def build(notebook: Path) -> str:
    """The Korean notebook, as the text of its .ipynb file."""
    korean = nbformat.read(notebook, as_version=4)
    korean.metadata.pop("jupytext", None)
    entries = parse(translation_path(notebook).read_text(encoding="utf-8"))
    cells = [cell for cell in korean.cells if cell.cell_type == "markdown"]
    paired, _ = align(entries, [cell.source for cell in cells])
    for number, cell in enumerate(cells):
        entry = paired.get(number)
        cell.source = rewrite_links(entry.text if entry else cell.source)
        cell.metadata["korean"] = {"english_hash": entry.english_hash if entry else None}
    text = nbformat.writes(korean)
    return text if text.endswith("\n") else text + "\n"  # as nbformat.write ends the file


def build_all(notebooks: list[Path] | None = None) -> list[Path]:
    """Write notebooks/ko/NN_topic.ipynb for every English notebook (or each of `notebooks`) that has a .ko.md;
    return them."""
    written = []
    for notebook in english_notebooks() if notebooks is None else notebooks:
        if notebook.parent.resolve() != NOTEBOOKS or not translation_path(notebook).exists():
            continue
        for problem in problems(notebook):
            print(f"warning: {problem}")
        target = korean_path(notebook)
        target.parent.mkdir(exist_ok=True)
        text = build(notebook)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        written.append(target)
    return written
