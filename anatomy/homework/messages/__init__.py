"""Every message a homework grader shows a student, in English and Korean (one catalogue, one module
per homework), and the language a submission gets: Korean for a notebook made from the Korean edition.

Taught with: the homework notebooks 08, 10 and 19. A check never writes a sentence itself: it raises
Feedback("key", **fields) (anatomy.homework.feedback), a Message that keeps its key and fields, so the
language is chosen once, where the words are shown: by the trusted grader from the notebook
(`language_of`), in a student's own notebook from its edition (the setup cell of a notebook in
notebooks/ko/ records it, `current()`; `speak("ko")` chooses it anywhere else, e.g. on Colab). tests/test_messages.py fails when a key lacks a language, when
the two languages fill different {fields}, and when a check builds a message from a literal.
"""
from __future__ import annotations

import os
from string import Formatter

from anatomy.homework.messages import attention_tests, common, cross_attention, sentiment, sentiment_run

LANGUAGES = ("en", "ko")
MODULES = (common, cross_attention, sentiment, sentiment_run, attention_tests)
CATALOGUE: dict[str, dict[str, str]] = {}
for _module in MODULES:
    if clash := CATALOGUE.keys() & _module.MESSAGES.keys():
        raise ValueError(f"message keys must be unique across the catalogue, got {sorted(clash)} twice")
    CATALOGUE |= _module.MESSAGES
_current: list[str | None] = [None]  # the language speak() chose; None: the notebook's edition


def speak(language: str | None) -> None:
    """Word the checks' feedback in `language` from now on ("en" or "ko"), whatever the edition (None:
    the edition's again)."""
    if language is not None and language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, got {language!r}")
    _current[0] = language


def current() -> str:
    """The language a Message is worded in when shown as a str: speak()'s, else the edition the notebook's
    setup recorded (ANATOMY_EDITION=ko when a notebook of notebooks/ko/ runs, anatomy.setup_notebook), else "en"."""
    edition = os.environ.get("ANATOMY_EDITION", "en")
    return _current[0] or (edition if edition in LANGUAGES else "en")


def fields_of(template: str) -> set[tuple[str, str, str]]:
    """The {name!conversion:format} a template fills, e.g. {("count", "", ""), ("seconds", "", "g")}."""
    return {(name, conversion or "", spec or "") for _, name, spec, conversion in Formatter().parse(template)
            if name is not None}


def say(key: str, language: str | None = None, **fields: object) -> str:
    """The message `key` in `language` (default: the current one), its {fields} filled in; a field that
    is a Message, or a tuple of them (joined), is worded in the same language."""
    language = current() if language is None else language
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, got {language!r}")
    if key not in CATALOGUE:
        raise KeyError(f"no message {key!r} in the catalogue")
    def worded(value: object) -> object:
        if isinstance(value, Message):
            return value.text(language)
        if isinstance(value, tuple) and all(isinstance(v, Message) for v in value):
            return "".join(v.text(language) for v in value)
        return value
    return CATALOGUE[key][language].format(**{name: worded(value) for name, value in fields.items()})


class Message(str):
    """A catalogue message: a str worded in the current language that keeps its key and fields, so
    `.text(language)` words it in the other one."""
    key: str
    fields: dict[str, object]

    def __new__(cls, key: str, /, **fields: object) -> "Message":
        made = super().__new__(cls, say(key, None, **fields))
        made.key, made.fields = key, fields
        return made

    def text(self, language: str) -> str:
        return say(self.key, language, **self.fields)

    def __reduce__(self):
        return _rebuilt, (self.key, self.fields)


class Together(Message):
    """Messages (or text already worded) one after the other, each worded in the same language."""

    def __new__(cls, *parts: str, sep: str = "") -> "Together":
        made = str.__new__(cls, sep.join(text_of(part, current()) for part in parts))
        made.key, made.fields, made.parts, made.sep = "together", {}, parts, sep
        return made

    def text(self, language: str) -> str:
        return self.sep.join(text_of(part, language) for part in self.parts)

    def __reduce__(self):
        return _together, (self.parts, self.sep)


def _together(parts: tuple, sep: str) -> Together:
    return Together(*parts, sep=sep)


def _rebuilt(key: str, fields: dict[str, object]) -> Message:
    return Message(key, **fields)


def as_message(value: str) -> Message:
    """A Message as it is; a catalogue key as its Message."""
    return value if isinstance(value, Message) else Message(value)


def text_of(value: object, language: str) -> str:
    """A Message worded in `language`; anything else (a proxy's text) as str."""
    return value.text(language) if isinstance(value, Message) else str(value)


def language_of(notebook: dict) -> str:
    """"ko" for a notebook built from the Korean edition (its markdown is Korean), else "en"."""
    text = "".join("".join(c.get("source", "")) for c in notebook.get("cells", []) if c.get("cell_type") == "markdown")
    hangul = sum("\uac00" <= ch <= "\ud7a3" for ch in text)
    return "ko" if hangul > 0.1 * max(1, sum(ch.isalpha() for ch in text)) else "en"
