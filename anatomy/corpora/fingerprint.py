"""Which texts made a shipped file: a fingerprint of a corpus, recorded without committing the text.

Taught in: 16_pretraining (section 4). The series commits no corpus: its texts come from packages at install
time, and one of them, the standard library's docstrings, changes with the Python version. So a file made
from the texts (notebook 16's tokenizer and model) records, per source, how many texts there were and the
SHA-256 of them, and the Python whose docstrings they were. A notebook that reproduces something from the
texts compares exactly when the running texts have the same fingerprint, and says which source differs when not.
"""
from __future__ import annotations

import hashlib
import platform
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from anatomy.checks import check_texts, check_type


def source_fingerprint(texts: list[str], name: str = "texts") -> dict[str, Any]:
    """{'texts': how many, 'sha256': of every text's UTF-8 followed by a NUL byte}: order and boundaries count."""
    digest = hashlib.sha256()
    for text in check_texts(texts, name, allow_empty=True):
        digest.update(text.encode("utf-8") + b"\0")
    return {"texts": len(texts), "sha256": digest.hexdigest()}


def texts_record(texts: Mapping[str, list[str]]) -> dict[str, Any]:
    """What a file made from `texts` (source name -> its texts) records: this Python's version and each
    source's fingerprint. tools/pretrain.py writes it into training_log.json as 'texts_record'."""
    check_type("texts", texts, Mapping, what="a dict of source name -> list of texts")
    if not texts:
        raise ValueError("texts is empty: expected at least one source (name -> list of texts)")
    return {"python": platform.python_version(),
            "sources": {name: source_fingerprint(part, f"texts[{name!r}]") for name, part in texts.items()}}


@dataclass(frozen=True)
class TextsMatch:
    """How the running texts compare with a record: `differing` names the sources whose texts are not the
    recorded ones (a source on one side only differs too)."""
    differing: tuple[str, ...]
    recorded_python: str
    running_python: str

    @property
    def same(self) -> bool:
        return not self.differing

    def describe(self) -> str:
        """One line: the same texts, or which source differs and the two Pythons."""
        recorded, running = (".".join(version.split(".")[:2]) for version in (self.recorded_python, self.running_python))
        if self.same:
            return f"the texts are those the shipped files were made from (Python {recorded}): reproduced exactly"
        if recorded == running:  # the same minor version: only the full versions tell them apart
            recorded, running = self.recorded_python, self.running_python
        return (f"the {', '.join(self.differing)} differ from those the shipped files were made from: "
                f"Python {running} vs {recorded}")


def compare_texts(record: Mapping[str, Any], texts: Mapping[str, list[str]]) -> TextsMatch:
    """The running `texts` (source name -> texts) against `record` (what texts_record wrote)."""
    check_type("record", record, Mapping, what="the dict texts_record returned (with 'python' and 'sources')")
    if not isinstance(record.get("python"), str) or not isinstance(record.get("sources"), Mapping):
        raise ValueError(f"record must hold 'python' (a version string) and 'sources' (name -> fingerprint), as "
                         f"texts_record writes it, got the keys {sorted(record)}")
    running = texts_record(texts)
    names = sorted(set(record["sources"]) | set(running["sources"]))
    differing = tuple(name for name in names if record["sources"].get(name) != running["sources"].get(name))
    return TextsMatch(differing, record["python"], running["python"])
