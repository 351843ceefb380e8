"""A byte-level BPE tokenizer (Sennrich et al. 2016; GPT-2's byte level, Radford et al. 2019) from scratch.

Taught in: 15_byte_level_bpe. Pieces: anatomy.tokenizers.byte_level (split, byte table), anatomy.tokenizers.bpe_training
(learning merges). Checked token for token against Hugging Face `tokenizers` in tests/test_bpe.py.
No shapes: text in, lists of ids out.

    tok = ByteLevelBPE.train(texts, vocab_size=1000, special_tokens=["[MASK]"])
    tok.encode("좋아해 [MASK]") -> ids;  tok.decode(ids) -> the same text, byte for byte
"""
from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from anatomy.tokenizers.bpe_encoding import merge_by_rank
from anatomy.tokenizers.bpe_training import check_special_tokens, check_vocab_and_merges, check_vocab_size, count_words, learn_merges
from anatomy.tokenizers.byte_level import ALPHABET, CHAR_TO_BYTE, from_byte_chars, split_words, to_byte_chars
from anatomy.tokenizers.wordpiece import as_id_list

FILE_KIND = "anatomy.ByteLevelBPE"


def apply_merges(parts: list[str], ranks: dict[tuple[str, str], int]) -> list[str]:
    """Merge, again and again, the adjacent pair of lowest rank (the earliest learned), the leftmost
    if it occurs twice, until no adjacent pair has a rank: "l o w e r" -> "low er"."""
    parts = list(parts)
    while len(parts) > 1:
        found = [ranks.get(pair, math.inf) for pair in zip(parts, parts[1:])]
        best = min(range(len(found)), key=found.__getitem__)
        if found[best] == math.inf:
            break
        parts[best:best + 2] = [parts[best] + parts[best + 1]]
    return parts


class ByteLevelBPE:
    """Vocabulary (id -> token string), merges in rank order, and special tokens kept whole."""

    def __init__(self, vocab: Sequence[str], merges: Sequence[tuple[str, str]], special_tokens: Sequence[str] = ()):
        vocab, self._merges = check_vocab_and_merges(vocab, merges)
        self._tokens = vocab
        self._ids = {token: index for index, token in enumerate(self._tokens)}
        if len(self._ids) != len(self._tokens):
            twice = [token for token, n in Counter(self._tokens).items() if n > 1]
            raise ValueError(f"vocab must list each token once, got {twice[:5]} more than once")
        self.special_tokens = check_special_tokens(special_tokens)
        missing = [token for token in (*ALPHABET, *self.special_tokens) if token not in self._ids]
        if missing:
            raise ValueError(f"vocab must hold the 256 byte characters and every special token, lacks {missing[:5]}")
        unknown = [pair for pair in self._merges if not all(t in self._ids for t in (*pair, pair[0] + pair[1]))]
        if unknown:
            raise ValueError(f"each merge (a, b) needs a, b and a+b in vocab, got {unknown[:3]}")
        self._ranks = {pair: rank for rank, pair in enumerate(self._merges)}  # a repeated pair: its last rank
        self._special = set(self.special_tokens)
        longest_first = sorted(self.special_tokens, key=len, reverse=True)
        self._special_split = re.compile("(" + "|".join(map(re.escape, longest_first)) + ")") if longest_first else None
        self._cache: dict[str, list[int]] = {}

    @classmethod
    def train(cls, texts: Iterable[str], vocab_size: int, special_tokens: Sequence[str] = ()) -> ByteLevelBPE:
        """Learn merges from `texts` until the vocabulary (special tokens + 256 bytes + merges) has
        `vocab_size` tokens, or no pair occurs any more. Special-token strings inside the texts are
        trained on as ordinary text, as Hugging Face's trainer does."""
        special_tokens = check_special_tokens(special_tokens)
        base = list(dict.fromkeys([*special_tokens, *ALPHABET]))
        check_vocab_size(vocab_size, len(base), len(special_tokens))
        word_counts = count_words(texts)
        merges = learn_merges(word_counts, base, vocab_size)  # extends `base` with the merged tokens
        return cls(base, [(base[left], base[right]) for (left, right), _ in merges], special_tokens)

    @property
    def vocab_size(self) -> int:
        return len(self._tokens)

    @property
    def merges(self) -> list[tuple[str, str]]:
        return list(self._merges)

    def token_to_id(self, token: str) -> int:
        if token not in self._ids:
            raise KeyError(f"{token!r} is not in the vocabulary (tokens are written in byte characters: "
                           f"{to_byte_chars(' the')!r} for ' the'; see anatomy.tokenizers.byte_level.to_byte_chars)")
        return self._ids[token]

    def id_to_token(self, index: int) -> str:
        return self._tokens[self._check_ids([index])[0]]

    def token_bytes(self, index: int) -> bytes:
        """The bytes a token stands for (a special token: its UTF-8 text)."""
        token = self.id_to_token(index)
        return token.encode("utf-8") if token in self._special else from_byte_chars(token)

    def bpe(self, chars: str) -> list[str]:
        """Apply the merges to one pre-tokenised word: apply_merges' rule, in n log n (anatomy.tokenizers.bpe_encoding)."""
        return merge_by_rank(list(chars), self._ranks)

    def _word_ids(self, word: str) -> list[int]:
        ids = self._cache.get(word)
        if ids is None:
            ids = self._cache[word] = [self._ids[token] for token in self.bpe(to_byte_chars(word))]
        return ids

    def encode(self, text: str) -> list[int]:
        """Text -> ids. A special token written in the text becomes its one id."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}; for many texts, encode each")
        pieces = self._special_split.split(text) if self._special_split else [text]
        ids: list[int] = []
        for piece in pieces:
            if piece in self._special:
                ids.append(self._ids[piece])
            else:
                for word in split_words(piece):
                    ids += self._word_ids(word)
        return ids

    def tokenize(self, text: str) -> list[str]:
        """The token strings encode(text) stands for (written in byte characters)."""
        return [self._tokens[index] for index in self.encode(text)]

    def decode(self, ids: Sequence[int]) -> str:
        """Ids -> text: the tokens' bytes joined and read as UTF-8 (a cut character becomes U+FFFD)."""
        out, pending = [], bytearray()
        for index in self._check_ids(ids):
            token = self._tokens[index]
            if token in self._special:
                out += [pending.decode("utf-8", errors="replace"), token]
                pending = bytearray()
            else:
                pending += bytes(CHAR_TO_BYTE[char] for char in token)
        return "".join(out) + pending.decode("utf-8", errors="replace")

    def _check_ids(self, ids: Sequence[int]) -> list[int]:
        ids = as_id_list(ids)
        outside = [(position, index) for position, index in enumerate(ids) if not 0 <= index < len(self._tokens)]
        if outside:
            raise ValueError(f"ids must be in [0, {len(self._tokens) - 1}] (this vocabulary has {len(self._tokens)} "
                             f"tokens), got (position, id) {outside[:5]}; pass ids this tokenizer's encode made")
        return ids

    def save(self, path: str | os.PathLike) -> None:
        """One JSON file: the vocabulary in id order, the merges in rank order, the special tokens."""
        state = {"kind": FILE_KIND, "vocab": self._tokens, "merges": self._merges, "special_tokens": self.special_tokens}
        Path(path).write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: str | os.PathLike) -> ByteLevelBPE:
        state = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(state, dict) or state.get("kind") != FILE_KIND:
            raise ValueError(f"{path} is not a file ByteLevelBPE.save wrote (expected \"kind\": \"{FILE_KIND}\")")
        return cls(state["vocab"], [tuple(pair) for pair in state["merges"]], state["special_tokens"])
