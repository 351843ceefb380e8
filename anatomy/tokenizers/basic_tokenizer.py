"""BERT's basic tokenizer, the step before WordPiece: drop control characters, unify whitespace,
space out CJK characters, lower-case, strip accents, and split every punctuation mark off.

Taught in: 01_tokenization (used by anatomy.tokenizers.wordpiece). Checked against the Hugging Face tokenizer
in tests/test_wordpiece.py.
"""
from __future__ import annotations

import unicodedata


def is_whitespace(char: str) -> bool:
    return char in " \t\n\r" or unicodedata.category(char) == "Zs"


def is_control(char: str) -> bool:
    return char not in "\t\n\r" and unicodedata.category(char).startswith("C")


def is_punctuation(char: str) -> bool:
    cp = ord(char)  # all non-alphanumeric ASCII counts as punctuation, as in BERT
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def is_cjk(char: str) -> bool:
    cp = ord(char)
    return any(low <= cp <= high for low, high in (
        (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
        (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)))


def normalize(text: str, lowercase: bool = True) -> str:
    """Drop control characters, unify whitespace, space out CJK characters, lower-case, strip accents."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    chars = []
    for char in text:
        if ord(char) in (0, 0xFFFD) or is_control(char):
            continue
        chars.append(" " if is_whitespace(char) else f" {char} " if is_cjk(char) else char)
    text = "".join(chars)
    if lowercase:
        text = unicodedata.normalize("NFD", text.lower())
        text = "".join(char for char in text if unicodedata.category(char) != "Mn")
    return text


def split_punctuation(word: str) -> list[str]:
    """'arrow!' -> ['arrow', '!']: every punctuation character becomes its own piece."""
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, got {type(word).__name__}")
    pieces: list[str] = []
    start_new = True
    for char in word:
        if is_punctuation(char):
            pieces.append(char)
            start_new = True
        else:
            if start_new:
                pieces.append("")
            pieces[-1] += char
            start_new = False
    return pieces
