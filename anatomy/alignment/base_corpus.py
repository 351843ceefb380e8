"""The base model's text and vocabulary: characters, with reserved ids for the chat template's tokens.

Taught in: 20_instruction_tuning.  Shapes: N characters of text (1-D ids).
The instruction tasks read dates written in Korean (2021년 3월 3일) and reverse or count letters, so the
base GPT reads characters (as notebook 11's does), from three offline sources: the standard library's
docstrings (11), the training split of 09's review sentences and the training part of 15's Korean corpus.
Each source keeps a held-out part the model never trains on, less any line that also occurs in training.
The chat template's tokens get reserved ids 2-5 (RESERVED also holds <|pad|> 0 and <|unk|> 1): no text
encodes to them unless it writes the token itself, so a base model never sees them in pre-training and,
before any tuning, cannot know what `<|assistant|>` asks or when to write `<|end|>`. A character outside
the vocabulary (a rare Hangul syllable of the held-out bills) becomes `<|unk|>`.
"""
from __future__ import annotations

import re
import string
from dataclasses import dataclass

import torch

from anatomy.alignment.chat_template import SPECIAL_TOKENS
from anatomy.alignment.instruction_data import KOREAN_WEEKDAYS
from anatomy.checks import check_texts, check_type
from anatomy.corpora.korean_corpus import korean_lines
from anatomy.corpora.sentiment_data import load_reviews
from anatomy.corpora.stdlib_docstrings import stdlib_sentences

PAD, UNKNOWN = "<|pad|>", "<|unk|>"
RESERVED = (PAD, UNKNOWN, *SPECIAL_TOKENS)  # ids 0-5: <|pad|>, <|unk|>, <|system|>, <|user|>, <|assistant|>, <|end|>
SOURCES = ("docstrings", "reviews", "korean")
# Every character an instruction prompt or answer can hold, in the vocabulary even if the text lacks one.
TASK_CHARACTERS = string.ascii_letters + string.digits + string.punctuation + " " + "년월일요" + KOREAN_WEEKDAYS


@dataclass(frozen=True)
class CharTokenizer:
    """Id i < len(RESERVED) is RESERVED[i]; id len(RESERVED) + j is characters[j]."""
    characters: str  # the text's vocabulary, "\n" (the line separator) first

    def __post_init__(self) -> None:
        check_type("characters", self.characters, str)
        if len(set(self.characters)) != len(self.characters) or not self.characters.startswith("\n"):
            raise ValueError("characters must list distinct characters, the line separator '\\n' first, "
                             f"got {len(self.characters)} characters ({len(set(self.characters))} distinct), "
                             f"starting with {self.characters[:1]!r}")

    @property
    def vocab_size(self) -> int:
        return len(RESERVED) + len(self.characters)

    def token_to_id(self, token: str) -> int:
        if token in RESERVED:
            return RESERVED.index(token)
        if len(token) == 1 and token in self.characters:
            return len(RESERVED) + self.characters.index(token)
        raise ValueError(f"token must be one of RESERVED {RESERVED} or a character of the vocabulary, got {token!r}")

    def encode(self, text: str) -> list[int]:
        """Ids of `text`; a reserved token written in the text (as the chat template writes them) is one id."""
        check_type("text", text, str)
        index = {c: len(RESERVED) + i for i, c in enumerate(self.characters)}
        unknown = RESERVED.index(UNKNOWN)
        ids: list[int] = []
        for piece in re.split(f"({'|'.join(map(re.escape, RESERVED))})", text):
            ids += [RESERVED.index(piece)] if piece in RESERVED else [index.get(c, unknown) for c in piece]
        return ids

    def decode(self, ids: list[int] | torch.Tensor) -> str:
        words = RESERVED + tuple(self.characters)
        ids = [int(i) for i in ids]
        bad = [i for i in ids if not 0 <= i < len(words)]
        if bad:
            raise ValueError(f"ids must be in [0, {len(words) - 1}] (the vocabulary), got {bad[:5]}")
        return "".join(words[i] for i in ids)


def base_texts(held_out: bool = False) -> dict[str, list[str]]:
    """Lines of each source: the training part, or the held-out part (docstrings' last tenth, the reviews'
    validation split, the two held-out bills) less every line that also occurs in the training part (the
    bills' boilerplate, such as 의안 번호 or 제안이유, recurs in the training bills; one review line
    recurs). Needs the reviews and the Korean corpus (make install)."""
    docstrings = stdlib_sentences(6000)
    cut = int(len(docstrings) * 0.9)  # as notebook 11 splits them
    train = {"docstrings": docstrings[:cut], "reviews": load_reviews("train").texts, "korean": korean_lines()}
    if not held_out:
        return train
    held = {"docstrings": docstrings[cut:], "reviews": load_reviews("validation").texts,
            "korean": korean_lines(held_out=True)}
    seen = {name: set(lines) for name, lines in train.items()}
    return {name: [line for line in held[name] if line not in seen[name]] for name in SOURCES}


def build_tokenizer(texts: dict[str, list[str]]) -> CharTokenizer:
    """The characters of the training texts and of the instruction tasks, "\\n" first, then sorted."""
    seen = set(TASK_CHARACTERS)
    for name, lines in check_type("texts", texts, dict, what="a dict of source name -> list of lines").items():
        seen.update("".join(check_texts(lines, f"texts[{name!r}]")))
    return CharTokenizer("\n" + "".join(sorted(seen - {"\n"})))


def source_ids(tokenizer: CharTokenizer, lines: list[str]) -> torch.Tensor:
    """(N,) ids of the lines joined by "\\n", one text per source."""
    check_type("tokenizer", tokenizer, CharTokenizer)
    return torch.tensor(tokenizer.encode("\n".join(check_texts(lines, "lines")) + "\n"))
