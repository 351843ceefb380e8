"""Learning BPE merges from word counts, fast: pair counts kept up to date, never recounted.

Taught in: 15_byte_level_bpe. anatomy.tokenizers.bpe.ByteLevelBPE.train calls learn_merges.
No shapes: words are lists of token ids.

The slow way recounts every adjacent pair of the whole corpus after each merge (karpathy/minbpe's
`RegexTokenizer.train` does exactly that: plain, and fine for a lesson). Here, as in Hugging Face
`tokenizers`' BpeTrainer (tokenizers/src/models/bpe/trainer.rs):
1. count each distinct word once (the corpus is a bag of words: merges never cross a word boundary);
2. count pairs once, remembering which words hold each pair (pair -> word indices);
3. after a merge, visit only the words that held the pair, and apply the changes to the counts:
   in "l o w e r" merging (w, e): (o, w) and (e, r) lose the word's count, (o, we) and (we, r) gain it.

Which pair is merged next: the most frequent; **a tie in counts goes to the pair whose ids are
smallest, (left id, then right id)**, exactly as trainer.rs orders its heap (`Ord for Merge`: count,
then `other.pair.cmp(&self.pair)`). Ids number the vocabulary as HF's trainer does: special tokens
first, then the 256 byte characters in code-point order, then each new token as it is made; a merge
whose string already exists (from another pair) reuses that id. A stale heap entry (its count fell
since it was pushed) is pushed back with its current count, as trainer.rs does.
"""
from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from itertools import count as counter

from anatomy.tokenizers.byte_level import pre_tokenize
from anatomy.checks import check_texts

Pair = tuple[int, int]


def check_special_tokens(special_tokens: Sequence[str]) -> list[str]:
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a list of strings, got the string {special_tokens!r}; "
                        f"pass [{special_tokens!r}]")
    if special_tokens is None or not hasattr(special_tokens, "__iter__"):
        raise TypeError(f"special_tokens must be a list of strings (or () for none), got {special_tokens!r}")
    tokens = list(special_tokens)
    wrong = [token for token in tokens if not isinstance(token, str) or not token]
    if wrong or len(set(tokens)) != len(tokens):
        raise ValueError(f"special_tokens must be distinct non-empty strings, got {tokens!r}")
    return tokens


def check_vocab_and_merges(vocab: Sequence[str], merges: Sequence[tuple[str, str]], vocab_name: str = "vocab"
                           ) -> tuple[list[str], list]:
    """vocab and merges as lists, or a TypeError/ValueError naming which one is not a list of what."""
    for name, value, what in ((vocab_name, vocab, "token strings"), ("merges", merges, "(left, right) pairs")):
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise TypeError(f"{name} must be a list of {what}, got {type(value).__name__}")
    merges = list(merges)
    for position, pair in enumerate(merges):
        if isinstance(pair, str) or len(pair) != 2 or not all(isinstance(part, str) for part in pair):
            raise ValueError(f"merges must be (left, right) pairs of token strings, got {pair!r} at position {position}"
                             + (": Hugging Face's merges.txt writes \"a b\"; pass [tuple(m.split(' ', 1)) for m in "
                                "merges]" if isinstance(pair, str) else ""))
    return list(vocab), [tuple(pair) for pair in merges]


def check_vocab_size(vocab_size: int, base: int, special: int, alphabet: str = "the 256 byte tokens") -> None:
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < base:
        raise ValueError(f"vocab_size must be an integer >= {base} ({alphabet} + {special} special "
                         f"token(s)), got {vocab_size!r}; pass e.g. vocab_size={base + 256}")


def count_words(texts: Iterable[str], split: Callable[[str], list[str]] = pre_tokenize) -> Counter[str]:
    """How often each word occurs in `texts`, words as `split` cuts them (GPT-2's split, in byte characters)."""
    texts = check_texts(texts, allow_empty=True)
    word_counts: Counter[str] = Counter()
    for text in texts:
        word_counts.update(split(text))
    if not word_counts:
        raise ValueError(f"the corpus is empty: expected at least one text with a character in it, got texts of "
                         f"{len(texts)} string(s) and no characters; pass e.g. anatomy.stdlib_sentences() or a list of lines")
    return word_counts


def merge_word(word: list[int], left: int, right: int, new: int) -> list[tuple[Pair, int]]:
    """Replace each (left, right) in `word` by `new`, left to right, in place; return the pair-count
    changes: (pair, +1 or -1) per occurrence (HF's Word::merge, without a maximum token length)."""
    changes = []
    i = 0
    while i < len(word) - 1:
        if word[i] == left and word[i + 1] == right:
            if i > 0:
                changes += [((word[i - 1], left), -1), ((word[i - 1], new), 1)]
            word[i:i + 2] = [new]
            if i < len(word) - 1:
                changes += [((right, word[i + 1]), -1), ((new, word[i + 1]), 1)]
        i += 1
    return changes


def count_pairs(words: list[list[int]], counts: list[int]) -> tuple[dict[Pair, int], dict[Pair, set[int]]]:
    """How often each adjacent pair occurs (weighted by word counts), and in which words."""
    pair_counts: dict[Pair, int] = defaultdict(int)
    where: dict[Pair, set[int]] = defaultdict(set)
    for index, (word, n) in enumerate(zip(words, counts)):
        for pair in zip(word, word[1:]):
            pair_counts[pair] += n
            where[pair].add(index)
    return pair_counts, where


def learn_merges(word_counts: dict[str, int], tokens: list[str], vocab_size: int) -> list[tuple[Pair, int]]:
    """Merge until `tokens` (the vocabulary so far, id order; extended in place) holds `vocab_size`
    entries or no pair is left. Each word of `word_counts` is written in characters that are tokens.
    Returns the merges in order: ((left id, right id), id of the merged token)."""
    token_id = {token: index for index, token in enumerate(tokens)}
    words = [[token_id[char] for char in word] for word in word_counts]
    counts = list(word_counts.values())
    pair_counts, where = count_pairs(words, counts)
    ticket = counter()  # equal (count, pair) entries: first pushed, first out (trainer.rs leaves it open)
    heap = [(-n, pair, next(ticket), where[pair]) for pair, n in pair_counts.items() if n > 0]
    heapq.heapify(heap)  # min-heap on (-count, left id, right id): most frequent, then smallest ids
    merges: list[tuple[Pair, int]] = []
    while len(token_id) < vocab_size and heap:
        negative, pair, _, positions = heapq.heappop(heap)
        if -negative != pair_counts[pair]:  # stale: its count changed since it was pushed
            heapq.heappush(heap, (-pair_counts[pair], pair, next(ticket), positions))
            continue
        if -negative < 1:
            break
        merged = tokens[pair[0]] + tokens[pair[1]]
        new = token_id.setdefault(merged, len(tokens))
        if new == len(tokens):
            tokens.append(merged)
        merges.append((pair, new))
        grown: dict[Pair, set[int]] = defaultdict(set)
        for index in positions:
            for changed, sign in merge_word(words[index], pair[0], pair[1], new):
                pair_counts[changed] = pair_counts.get(changed, 0) + sign * counts[index]
                if sign > 0:
                    grown[changed].add(index)
        for changed, indices in grown.items():
            if pair_counts[changed] > 0:
                heapq.heappush(heap, (-pair_counts[changed], changed, next(ticket), indices))
    return merges
