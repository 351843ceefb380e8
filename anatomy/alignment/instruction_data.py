"""Instruction data made offline from the series' own generators: prompts with one right answer each.

Taught in: 20_instruction_tuning.  No shapes: chats (lists of {'role', 'content'}) in and out.
Generated data is enough to teach the mechanism: every answer is checkable exactly (exact match), and the
held-out split is disjoint by construction, so a held-out score measures following the instruction, not
recall. Tasks: a date written in English (07's ten formats) or in Korean (2021년 3월 3일) to ISO, on 07's
held-out days; a letter string reversed; a letter counted (the answer needs the prompt's content);
a review's sentiment in one word (09's sentences, passed in with their split). Preference pairs put the
right answer against a plausible wrong one (a neighbouring day, the string not reversed, a count off by
one, the other label), for DPO.
"""
from __future__ import annotations

import random
import string
import zlib
from datetime import timedelta

from anatomy.checks import check_integer, check_texts
from anatomy.tasks.dates import FORMATS, split_dates

SPLITS = ("train", "held_out")
TASKS = ("dates", "reverse", "count")
KOREAN_WEEKDAYS = "월화수목금토일"
KOREAN_FORMATS = {
    "2021년 3월 3일": lambda d: f"{d.year}년 {d.month}월 {d.day}일",
    "2021년 3월 3일 수요일": lambda d: f"{d.year}년 {d.month}월 {d.day}일 {KOREAN_WEEKDAYS[d.weekday()]}요일",
    "2021. 3. 3.": lambda d: f"{d.year}. {d.month}. {d.day}.",
}


def check_split(split: str) -> str:
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    return split


def _letters_in_split(split: str, rng: random.Random) -> str:
    """A random string of 3-8 letters from a-f whose checksum puts it in `split` (one in ten is held out)."""
    while True:
        text = "".join(rng.choice(string.ascii_lowercase[:6]) for _ in range(rng.randint(3, 8)))
        if (zlib.crc32(text.encode()) % 10 == 0) == (split == "held_out"):
            return text


def chat(prompt: str, answer: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": prompt}, {"role": "assistant", "content": answer}]


def task_examples(task: str, count: int, split: str = "train", seed: int = 0) -> list[tuple[str, str, str]]:
    """`count` (prompt, right answer, plausible wrong answer) triples of `task` from `split`."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS} (sentiment: sentiment_examples), got {task!r}")
    count, split, rng = check_integer("count", count, least=0), check_split(split), random.Random(seed)
    examples = []
    for _ in range(count):
        if task == "dates":
            day = rng.choice(split_dates(split))
            written = rng.choice([*FORMATS.values(), *KOREAN_FORMATS.values()])(day)
            wrong = day + timedelta(days=rng.choice([-1, 1]))  # a neighbouring day: one digit or so off
            examples.append((f"Write this date as YYYY-MM-DD: {written}", day.isoformat(), wrong.isoformat()))
        elif task == "reverse":
            text = _letters_in_split(split, rng)
            while text == text[::-1]:  # a palindrome's copy would be right too
                text = _letters_in_split(split, rng)
            examples.append((f"Reverse the letters: {text}", text[::-1], text))
        else:
            text = _letters_in_split(split, rng)
            letter = rng.choice(text)
            right = text.count(letter)
            examples.append((f"How many times does '{letter}' occur in {text}?", str(right), str(right + 1)))
    return examples


def sentiment_examples(texts: list[str], labels: list[int]) -> list[tuple[str, str, str]]:
    """(prompt, right word, wrong word) per review: 09's sentences with their 0/1 labels, split as loaded."""
    texts = check_texts(texts)
    if not isinstance(labels, (list, tuple)) or len(labels) != len(texts) or any(label not in (0, 1) for label in labels):
        raise ValueError(f"labels must hold one 0 (negative) or 1 (positive) per text ({len(texts)}), got {labels!r:.80}")
    words = ("negative", "positive")
    return [(f"Sentiment of this review in one word: {text}", words[label], words[1 - label])
            for text, label in zip(texts, labels)]
