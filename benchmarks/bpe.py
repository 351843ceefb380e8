"""Notebook 15's tokenizer, measured: python benchmarks/bpe.py (part of make bench).

The 1 MB corpus (UTF-8 bytes): 400 kB of standard-library docstring sentences, 400 kB of the
movie-review sentences (Hutto & Gilbert 2014), 200 kB of the Korean corpus (KoNLPy's constitution and
bills, about 150 kB, repeated to fill its share), line by line, interleaved.
Goals (issue #26): training on 1 MB <= 30 s on one core; encoding within 20x of Hugging Face
`tokenizers` (Rust; one thread, TOKENIZERS_PARALLELISM=false) on the same text, printed as that ratio,
line by line (HF: encode_batch) and as one string. Ours starts each run with an empty word cache.
Both trainers are checked equal (merges) on the way. Never a timed test.
Goal (issue #37): encoding one long word (the corpus' letters run together, no space: what a base64
blob or a minified line is to the split) grows like n log n, not n^2; printed at 6k/12k/24k/90k
characters with the growth exponent between sizes (n log n between 6k and 90k: about 1.1; the old
rescanning encoder: 2); a 90 kB word <= 1 s.
"""
from __future__ import annotations

import math
import os
import re
import time
from itertools import cycle

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from anatomy import stdlib_sentences  # noqa: E402
from anatomy.tokenizers.bpe import ByteLevelBPE  # noqa: E402
from anatomy.tokenizers.bpe_reference import hf_merges, train_hf_byte_level_bpe  # noqa: E402
from anatomy.corpora.korean_corpus import korean_lines  # noqa: E402
from anatomy.corpora.sentiment_data import read_rated_sentences, reviews_path  # noqa: E402

SHARES = {"docstrings": 400_000, "reviews": 400_000, "korean": 200_000}  # bytes of UTF-8
VOCAB_SIZES = (1_000, 5_000, 10_000, 30_000)
WORD_LENGTHS = (6_000, 12_000, 24_000, 90_000)  # characters of one word


def long_word_growth(ours: ByteLevelBPE, theirs, lines: list[str]) -> None:
    """Encoding time of one word of each length in WORD_LENGTHS (best of 3, empty word cache each time)."""
    letters = re.sub(r"[^A-Za-z]", "", " ".join(lines))
    print(f"   one long word (the corpus' letters, no space), V={ours.vocab_size:,}: best of 3")
    times = []
    for n in WORD_LENGTHS:
        word = letters[:n]
        runs = []
        for _ in range(3):
            fresh = ByteLevelBPE([ours.id_to_token(i) for i in range(ours.vocab_size)], ours.merges)
            start = time.perf_counter()
            ids = fresh.encode(word)
            runs.append(time.perf_counter() - start)
        start = time.perf_counter()
        same = ids == theirs.encode(word).ids
        hf_seconds = time.perf_counter() - start
        times.append(min(runs))
        growth = (f"exponent since {WORD_LENGTHS[len(times) - 2]:,}: "
                  f"{math.log(times[-1] / times[-2]) / math.log(n / WORD_LENGTHS[len(times) - 2]):.2f}"
                  if len(times) > 1 else "")
        print(f"      {n:>6,} chars: ours {times[-1]:6.3f} s  HF {hf_seconds:6.3f} s  ids equal: {same}   {growth}")
    first, last = WORD_LENGTHS[0], WORD_LENGTHS[-1]
    exponent = math.log(times[-1] / times[0]) / math.log(last / first)
    n_log_n = math.log(last * math.log(last) / (first * math.log(first))) / math.log(last / first)
    print(f"      growth exponent {first:,} -> {last:,}: {exponent:.2f} (n log n: {n_log_n:.2f}, n^2: 2)   "
          f"goal < 1.5 {'met' if exponent < 1.5 else 'MISSED'}   90 kB <= 1 s {'met' if times[-1] <= 1 else 'MISSED'}")


def take(lines: list[str], budget: int) -> list[str]:
    """Lines in order (repeating from the start if needed) until `budget` UTF-8 bytes are reached."""
    taken, size = [], 0
    for line in cycle(lines):
        if size >= budget:
            return taken
        taken.append(line)
        size += len(line.encode("utf-8")) + 1


def one_megabyte() -> list[str]:
    sources = {"docstrings": stdlib_sentences(12_000), "reviews": [text for text, _ in read_rated_sentences(reviews_path())],
               "korean": korean_lines() + korean_lines(held_out=True)}
    parts = [take(sources[name], budget) for name, budget in SHARES.items()]
    longest = max(map(len, parts))
    return [part[i] for i in range(longest) for part in parts if i < len(part)]


def main() -> None:
    lines = one_megabyte()
    size = sum(len(line.encode("utf-8")) + 1 for line in lines)
    print(f"B15 byte-level BPE on {size / 1e6:.2f} MB ({len(lines):,} lines: docstrings, reviews, Korean), one thread")
    for vocab_size in VOCAB_SIZES:
        start = time.perf_counter()
        ours = ByteLevelBPE.train(lines, vocab_size)
        seconds = time.perf_counter() - start
        start = time.perf_counter()
        theirs = train_hf_byte_level_bpe(lines, vocab_size)
        hf_seconds = time.perf_counter() - start
        same = ours.merges == hf_merges(theirs)
        print(f"   train V={vocab_size:>6,}  ours {seconds:5.1f} s  goal <= 30 s {'met' if seconds <= 30 else 'MISSED'}"
              f"   HF {hf_seconds:4.2f} s   merges equal: {same}")

    text = "\n".join(lines)
    for how, ours_run, hf_run in [
            ("line by line", lambda tok: [tok.encode(line) for line in lines],
             lambda: [encoding.ids for encoding in theirs.encode_batch(lines)]),
            ("as one string", lambda tok: tok.encode(text), lambda: theirs.encode(text).ids)]:
        fresh = ByteLevelBPE([ours.id_to_token(i) for i in range(ours.vocab_size)], ours.merges)  # empty word cache
        start = time.perf_counter()
        ids = ours_run(fresh)
        ours_seconds = time.perf_counter() - start
        start = time.perf_counter()
        hf_ids = hf_run()
        hf_seconds = time.perf_counter() - start
        ratio = ours_seconds / hf_seconds
        print(f"   encode V={vocab_size:,} {how}: ours {size / ours_seconds / 1e6:.2f} MB/s, HF {size / hf_seconds / 1e6:.2f} "
              f"MB/s: time ours / HF = {ratio:.1f}x   goal <= 20x {'met' if ratio <= 20 else 'MISSED'}   ids equal: {ids == hf_ids}")
    long_word_growth(ours, theirs, lines)


if __name__ == "__main__":
    main()
