"""Real English to test tokenizers on: sentences from the Python standard library's docstrings.

Taught in: 01_tokenization (the match-rate check against the Hugging Face tokenizer).
"""
from __future__ import annotations

import ast
import re
import sysconfig
from pathlib import Path

SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _docstrings(source: str) -> list[str]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    nodes = [tree, *(node for node in ast.walk(tree) if isinstance(
        node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))]
    return [doc for node in nodes if (doc := ast.get_docstring(node))]


def stdlib_sentences(count: int = 2000, min_chars: int = 20, max_chars: int = 300) -> list[str]:
    """The first `count` distinct prose sentences, in a fixed order, from stdlib docstrings."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    sentences: dict[str, None] = {}
    for path in sorted(stdlib.glob("*.py")) + sorted(stdlib.glob("*/*.py")):
        for doc in _docstrings(path.read_text(encoding="utf-8", errors="replace")):
            for paragraph in doc.split("\n\n"):
                text = " ".join(paragraph.split())
                for sentence in SENTENCE_END.split(text):
                    if min_chars <= len(sentence) <= max_chars and sentence[-1] in ".!?":
                        sentences[sentence] = None
                if len(sentences) >= count:
                    return list(sentences)[:count]
    raise ValueError(f"found only {len(sentences)} sentences, fewer than {count}")
