"""The Korean edition's text: one plain-text file per notebook, beside its English pair.

notebooks/NN_topic.ko.md holds one entry per markdown cell of notebooks/NN_topic.ipynb, in the same order:

    <!-- en 1a2b3c4d5e6f -->
    (the cell in Korean markdown)

The hex after `en` is the start of the SHA-256 of the English cell's source: the text this entry translates.
When the English cell changes, its hash no longer matches and the entry is stale.

    python -m tools.korean skeleton notebooks/03_attention.ipynb
writes (or completes) the file: every entry is kept (a stale one too, for you to update), every new cell gets
its English text as a placeholder to translate, entries of deleted cells are dropped.

    python -m tools.korean build [notebooks...]      (make korean)
writes notebooks/ko/NN_topic.ipynb for every notebook (or those named) that has a .ko.md (tools/korean_build.py);

    python -m tools.korean check [notebooks...]
lists every cell whose translation is missing or stale (the test tests/test_korean_edition.py runs);

    python -m tools.korean retranslated notebooks/03_attention.ipynb 7
records, after you re-translated the entry of a changed cell (7: its index among all cells), that it
translates the cell's current text.
"""
from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

MARKER = re.compile(r"^<!-- en ([0-9a-f]{12}) -->$", re.MULTILINE)


@dataclass
class Entry:
    english_hash: str
    text: str


def english_hash(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:12]


def cell_source(cell: dict) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def markdown_cells(notebook: dict) -> list[tuple[int, str]]:
    """(index among all cells, source) of each markdown cell."""
    return [(index, cell_source(cell)) for index, cell in enumerate(notebook["cells"])
            if cell["cell_type"] == "markdown"]


def translation_path(notebook: Path) -> Path:
    return notebook.with_suffix(".ko.md")


def parse(text: str) -> list[Entry]:
    """The entries of a .ko.md file, in order."""
    markers = list(MARKER.finditer(text))
    if text[: markers[0].start() if markers else len(text)].strip():
        raise ValueError("expected the file to start with a `<!-- en <12 hex> -->` line; got text before it")
    ends = [marker.start() for marker in markers[1:]] + [len(text)]
    return [Entry(marker.group(1), text[marker.end():end].strip("\n")) for marker, end in zip(markers, ends)]


def render(entries: list[Entry]) -> str:
    return "\n\n".join(f"<!-- en {entry.english_hash} -->\n{entry.text}" for entry in entries) + "\n"


def align(entries: list[Entry], sources: list[str]) -> tuple[dict[int, Entry], list[Entry]]:
    """{markdown cell number: the entry that translates it (or an older text of it)}, and the entries
    whose English cell no longer exists. Equal hashes are matched first; in a replaced stretch the
    entries pair with the cells one to one, in order."""
    hashes = [english_hash(source) for source in sources]
    matcher = difflib.SequenceMatcher(None, [entry.english_hash for entry in entries], hashes, autojunk=False)
    paired, orphans = {}, []
    for _, i1, i2, j1, j2 in matcher.get_opcodes():
        for offset in range(max(i2 - i1, j2 - j1)):
            if offset < i2 - i1 and offset < j2 - j1:
                paired[j1 + offset] = entries[i1 + offset]
            elif offset < i2 - i1:
                orphans.append(entries[i1 + offset])
    return paired, orphans


def skeleton(notebook: Path) -> Path:
    """Write (or complete) the .ko.md of `notebook`: an entry for each English cell, in order. A cell's entry
    is kept as it is, even a stale one (its Korean stays for you to update; `check` names it); a new cell gets
    its English text as the placeholder; an entry whose cell is gone is dropped."""
    path = translation_path(notebook)
    sources = [source for _, source in markdown_cells(json.loads(notebook.read_text(encoding="utf-8")))]
    paired, _ = align(parse(path.read_text(encoding="utf-8")) if path.exists() else [], sources)
    entries = [paired.get(number) or Entry(english_hash(source), source) for number, source in enumerate(sources)]
    path.write_text(render(entries), encoding="utf-8")
    return path


def main() -> int:
    from tools import korean_build

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["skeleton", "build", "check", "retranslated"])
    parser.add_argument("notebooks", nargs="*", help="skeleton: required; build, check: default all; "
                        "retranslated: one notebook and a cell index")
    arguments = parser.parse_args()
    if arguments.command == "retranslated":
        try:
            notebook, index = arguments.notebooks
            korean_build.retranslated(Path(notebook), int(index))
        except ValueError as error:
            parser.error(f"retranslated: expected a notebook and a markdown cell's index: {error}")
        return 0
    arguments.notebooks = [Path(notebook) for notebook in arguments.notebooks]
    if arguments.command == "skeleton":
        if not arguments.notebooks:
            parser.error("skeleton: name the English notebooks, e.g. notebooks/03_attention.ipynb")
        for notebook in arguments.notebooks:
            print(skeleton(notebook))
    elif arguments.command == "build":
        built = korean_build.build_all(arguments.notebooks or None)
        if not arguments.notebooks:
            print(f"built {len(built)} Korean notebooks in notebooks/ko/")
    else:
        found = [problem for notebook in arguments.notebooks or korean_build.english_notebooks()
                 for problem in korean_build.problems(notebook)]
        print("\n".join(found) or "every Korean entry is present and current")
        return 1 if found else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
