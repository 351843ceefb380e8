"""Encoding one word with BPE merges in n log n: a heap of pair ranks over a linked list of symbols.

Taught in: 15_byte_level_bpe (section 3 shows the rule, anatomy.tokenizers.bpe.apply_merges). No shapes: a list
of token strings in, a shorter one out. ByteLevelBPE.encode and CharacterBPE.tokenize use this.

apply_merges rescans every adjacent pair after each merge: fine for words of ten bytes, quadratic for
one long word (a base64 blob, a minified line: 90 kB took minutes). Same result, as Hugging Face
`tokenizers` does it (Word::merge_all, tokenizers/src/models/bpe/word.rs):
1. the symbols form a doubly linked list (prev/next indices), so a merge is O(1);
2. a heap holds (rank, position) for every adjacent pair that is a merge: the lowest rank comes out
   first, and among equal ranks the lowest position, i.e. the leftmost (a merged symbol keeps its left
   part's position, so positions stay in text order);
3. an entry whose pair has changed since it was pushed (a neighbour merged first) is skipped when it
   comes out; each merge pushes at most two new pairs (with its left and right neighbour).
"""
from __future__ import annotations

import heapq


def merge_by_rank(parts: list[str], ranks: dict[tuple[str, str], int]) -> list[str]:
    """apply_merges(parts, ranks), in O(n log n) for n parts: "l o w e r" -> "low er"."""
    if not isinstance(parts, (list, tuple)) or not isinstance(ranks, dict):
        raise TypeError(f"parts must be a list of token strings and ranks a dict {{(left, right): rank}}, got "
                        f"{type(parts).__name__} and {type(ranks).__name__}")
    symbols: list[str | None] = list(parts)
    following = [*range(1, len(symbols)), -1]  # next alive symbol, -1: none
    preceding = list(range(-1, len(symbols) - 1))  # previous alive symbol, -1: none

    def push(left: int) -> None:
        right = following[left]
        if left >= 0 and right >= 0 and (rank := ranks.get((symbols[left], symbols[right]))) is not None:
            heapq.heappush(heap, (rank, left))

    heap: list[tuple[int, int]] = []
    for left in range(len(symbols) - 1):
        push(left)
    while heap:
        rank, left = heapq.heappop(heap)
        right = following[left]
        if symbols[left] is None or right < 0 or ranks.get((symbols[left], symbols[right])) != rank:
            continue  # stale: this pair no longer stands here (each pair has one rank)
        symbols[left] += symbols[right]
        symbols[right] = None
        following[left] = following[right]
        if following[left] >= 0:
            preceding[following[left]] = left
        push(preceding[left])
        push(left)
    return [symbol for symbol in symbols if symbol is not None]
