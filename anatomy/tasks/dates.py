"""A toy translation task with visible alignment: dates written many ways -> ISO 8601, per character.

Taught in: 07_training.  Shapes: B batch, Ts source characters, Tt target characters.
"Wednesday, March 3, 2021", "03/03/21", "3.3.2021", ... -> "2021-03-03". Pairs are generated on the
fly (no download). One date in ten never appears in training, in any form: that is the held-out split.
"""
from __future__ import annotations

import calendar
import random
import string
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

import torch

from anatomy.checks import check_type

FIRST_DAY, LAST_DAY = date(1950, 1, 1), date(2049, 12, 31)  # two-digit years are unambiguous: 50-99 -> 19xx
HELD_OUT_SEED = 2017
MONTHS = calendar.month_name[1:]
SUFFIXES = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}

FORMATS = {
    "3 March 2021": lambda d: f"{d.day} {MONTHS[d.month - 1]} {d.year}",
    "March 3, 2021": lambda d: f"{MONTHS[d.month - 1]} {d.day}, {d.year}",
    "03/03/21 (US)": lambda d: d.strftime("%m/%d/%y"),
    "3.3.2021": lambda d: f"{d.day}.{d.month}.{d.year}",
    "Mar 3 2021": lambda d: f"{MONTHS[d.month - 1][:3]} {d.day} {d.year}",
    "Wednesday, March 3, 2021": lambda d: f"{calendar.day_name[d.weekday()]}, {MONTHS[d.month - 1]} {d.day}, {d.year}",
    "3rd of march, 2021": lambda d: f"{d.day}{SUFFIXES.get(d.day, 'th')} of {MONTHS[d.month - 1].lower()}, {d.year}",
    "MARCH 3 2021": lambda d: f"{MONTHS[d.month - 1].upper()} {d.day} {d.year}",
    "03-Mar-2021": lambda d: f"{d.day:02d}-{MONTHS[d.month - 1][:3]}-{d.year}",
    "2021/3/3": lambda d: f"{d.year}/{d.month}/{d.day}",
}


def all_dates() -> list[date]:
    return [FIRST_DAY + timedelta(days=i) for i in range((LAST_DAY - FIRST_DAY).days + 1)]


@cache
def split_dates(split: str) -> tuple[date, ...]:
    """"train" (90% of the days from 1950 to 2049) or "held_out" (the other 10%, fixed by a seed)."""
    days = all_dates()
    held_out = set(random.Random(HELD_OUT_SEED).sample(days, k=len(days) // 10))
    if split == "train":
        return tuple(d for d in days if d not in held_out)
    if split == "held_out":
        return tuple(d for d in days if d in held_out)
    raise ValueError(f"split must be 'train' or 'held_out', got {split!r}")


def date_pairs(count: int, split: str = "train", seed: int = 0) -> list[tuple[str, str]]:
    """`count` (written date, ISO date) pairs from `split`, each in a random format."""
    if not isinstance(count, int) or count < 0:
        raise ValueError(f"count must be an integer >= 0, got {count!r}")
    rng, days, formats = random.Random(seed), split_dates(split), list(FORMATS.values())
    picked = [rng.choice(days) for _ in range(count)]
    return [(rng.choice(formats)(d), d.isoformat()) for d in picked]


class CharVocabulary:
    """Characters <-> ids. 0, 1, 2 are <pad>, <bos>, <eos>; source and target share the vocabulary."""
    SPECIALS = ("<pad>", "<bos>", "<eos>")

    def __init__(self, characters: str = string.ascii_letters + string.digits + " ,./-") -> None:
        check_type("characters", characters, str, what="a string of the characters to know")
        self.tokens = list(self.SPECIALS) + sorted(set(characters))
        self.ids = {token: i for i, token in enumerate(self.tokens)}
        self.pad_id, self.bos_id, self.eos_id = 0, 1, 2

    def __len__(self) -> int:
        return len(self.tokens)

    def encode(self, text: str) -> list[int]:
        unknown = sorted({c for c in text if c not in self.ids})
        if unknown:
            raise ValueError(f"characters {unknown} are not in the vocabulary (letters, digits, ' ,./-')")
        return [self.ids[c] for c in text]

    def decode(self, ids: list[int] | torch.Tensor) -> str:
        """Characters up to the first <eos>, skipping <pad> and <bos>."""
        ids = ids.tolist() if isinstance(ids, torch.Tensor) else list(ids)
        unknown = [i for i in ids if not isinstance(i, int) or not 0 <= i < len(self.tokens)]
        if unknown:
            raise ValueError(f"decode takes one sequence of ids in [0, {len(self.tokens)}), got {unknown[:5]} "
                             "(for a batch, decode each row)")
        ids = ids[: ids.index(self.eos_id)] if self.eos_id in ids else ids
        return "".join(self.tokens[i] for i in ids if i >= len(self.SPECIALS))


@dataclass
class TranslationBatch:
    src_ids: torch.Tensor  # (B, Ts) characters, right-padded
    src_mask: torch.Tensor  # (B, Ts) True at real characters
    tgt_ids: torch.Tensor  # (B, Tt) <bos> + target: what the decoder reads
    labels: torch.Tensor  # (B, Tt) target + <eos>: what it must predict, one step ahead
    tgt_mask: torch.Tensor  # (B, Tt)


def pad(rows: list[list[int]], value: int) -> torch.Tensor:
    if not isinstance(rows, (list, tuple)) or not rows or isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"rows must be a non-empty list of id lists and value an integer id, got {rows!r} and {value!r}")
    width = max(len(row) for row in rows)
    return torch.tensor([row + [value] * (width - len(row)) for row in rows])


def make_batch(pairs: list[tuple[str, str]], vocab: CharVocabulary,
               device: torch.device | str | None = None) -> TranslationBatch:
    if isinstance(pairs, (str, tuple)) or not pairs or not all(
            isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(s, str) for s in pair)
            for pair in pairs):
        raise ValueError(f"pairs must be a non-empty list of (source, target) string pairs, got {str(pairs)[:60]!r}")
    sources = [check_type("vocab", vocab, CharVocabulary).encode(source) for source, _ in pairs]
    targets = [vocab.encode(target) for _, target in pairs]
    src_ids = pad(sources, vocab.pad_id)
    tgt_ids = pad([[vocab.bos_id] + t for t in targets], vocab.pad_id)
    labels = pad([t + [vocab.eos_id] for t in targets], vocab.pad_id)
    batch = TranslationBatch(src_ids, src_ids != vocab.pad_id, tgt_ids, labels, tgt_ids != vocab.pad_id)
    return TranslationBatch(*(t.to(device) for t in vars(batch).values()))
