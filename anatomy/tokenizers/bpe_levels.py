"""What BPE starts from: characters (Korean syllables), jamo, or bytes; and how well each compresses.

Taught in: 15_byte_level_bpe. No shapes: text in, token strings out.
A character-level BPE (Sennrich et al. 2016) starts from the characters its corpus holds: for Korean,
the syllables (좋, 아, 해). A character it never saw is unknown ([UNK]). Decomposing syllables into
jamo first (Unicode NFD: 좋 -> ᄌ ᅩ ᇂ) gives an alphabet of 67 jamo that writes all 11,172 modern
syllables. Starting from bytes (anatomy.tokenizers.bpe.ByteLevelBPE) covers every string there is.
Merges are learned the same way in all three (anatomy.tokenizers.bpe_training.learn_merges).
"""
from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from anatomy.tokenizers.bpe import ByteLevelBPE
from anatomy.tokenizers.bpe_encoding import merge_by_rank
from anatomy.tokenizers.bpe_training import check_vocab_and_merges, check_vocab_size, count_words, learn_merges
from anatomy.tokenizers.byte_level import split_words
from anatomy.checks import check_texts, check_type

UNKNOWN = "[UNK]"
# The 19 leading consonants, 21 vowels and 27 trailing consonants NFD writes every modern syllable with.
JAMO = [chr(c) for c in (*range(0x1100, 0x1113), *range(0x1161, 0x1176), *range(0x11A8, 0x11C3))]


class CharacterBPE:
    """BPE over characters, or over jamo when `jamo` (NFD first, all 67 jamo in the alphabet);
    a character outside the alphabet is [UNK]."""

    def __init__(self, alphabet: Sequence[str], merges: Sequence[tuple[str, str]], jamo: bool = False):
        alphabet, merges = check_vocab_and_merges(alphabet, merges, "alphabet")
        self.alphabet, self.merges, self.jamo = set(alphabet), merges, jamo
        self.vocab_size = len(self.alphabet) + len({left + right for left, right in self.merges})
        self._ranks = {pair: rank for rank, pair in enumerate(self.merges)}

    def normalize(self, text: str) -> str:
        return unicodedata.normalize("NFD", text) if self.jamo else text

    @classmethod
    def train(cls, texts: Iterable[str], vocab_size: int, jamo: bool = False) -> CharacterBPE:
        """Alphabet: every character of the (normalised) texts, in code-point order; then the merges."""
        texts = [unicodedata.normalize("NFD", text) if jamo else text for text in check_texts(texts)]
        word_counts = count_words(texts, split=split_words)
        tokens = sorted({char for word in word_counts for char in word} | (set(JAMO) if jamo else set()))
        alphabet = list(tokens)
        check_vocab_size(vocab_size, len(alphabet), 0, f"the {len(alphabet)} {'jamo' if jamo else 'characters'} "
                                                       "of the corpus' alphabet")
        merges = learn_merges(word_counts, tokens, vocab_size)  # extends `tokens` with the merged ones
        return cls(alphabet, [(tokens[left], tokens[right]) for (left, right), _ in merges], jamo)

    def tokenize(self, text: str) -> list[str]:
        out = []
        for word in split_words(self.normalize(text)):
            out += [part if len(part) > 1 or part in self.alphabet else UNKNOWN
                    for part in merge_by_rank(list(word), self._ranks)]
        return out


def readable(tokenizer: ByteLevelBPE, text: str) -> list[str]:
    """encode(text)'s tokens as text: each token's bytes read as UTF-8, a cut character shown as \\x.. bytes."""
    check_type("tokenizer", tokenizer, ByteLevelBPE)
    return [tokenizer.token_bytes(index).decode("utf-8", errors="backslashreplace") for index in tokenizer.encode(text)]


def smaller(tokenizer: ByteLevelBPE, vocab_size: int) -> ByteLevelBPE:
    """The tokenizer trained to `vocab_size` on the same corpus: training is greedy, so its merges are
    the first ones of a larger vocabulary's (each merge adds one token when no token string repeats)."""
    base = check_type("tokenizer", tokenizer, ByteLevelBPE).vocab_size - len(tokenizer.merges)
    check_vocab_size(vocab_size, base, len(tokenizer.special_tokens))
    vocab = [tokenizer.id_to_token(index) for index in range(min(vocab_size, tokenizer.vocab_size))]
    return ByteLevelBPE(vocab, tokenizer.merges[:len(vocab) - base], tokenizer.special_tokens)


def bytes_per_token(tokenizer: ByteLevelBPE, texts: Sequence[str]) -> float:
    """UTF-8 bytes of `texts` over the tokens encode makes of them: how much one token carries."""
    texts, _ = check_texts(texts), check_type("tokenizer", tokenizer, ByteLevelBPE)
    tokens = sum(len(tokenizer.encode(text)) for text in texts)
    if tokens == 0:
        raise ValueError(f"texts must hold at least one character to count bytes per token, got {texts[:3]!r}")
    return sum(len(text.encode("utf-8")) for text in texts) / tokens


def plot_compression(curves: dict[str, tuple[Sequence[int], Sequence[float]]]) -> Figure:
    """Bytes per token against vocabulary size, one line per {label: (vocab sizes, bytes per token)}."""
    figure, ax = plt.subplots(figsize=(6, 3.5))
    for label, (sizes, values) in curves.items():
        ax.plot(sizes, values, marker="o", label=label)
    ax.set_xscale("log")
    ticks = sorted({size for sizes, _ in curves.values() for size in sizes})
    ax.set_xticks(ticks, [f"{size:,}" for size in ticks], rotation=45, fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel("vocabulary size (log scale)")
    ax.set_ylabel("UTF-8 bytes per token")
    ax.set_title("Compression of held-out text")
    ax.grid(alpha=0.3)
    ax.legend()
    figure.tight_layout()
    return figure
