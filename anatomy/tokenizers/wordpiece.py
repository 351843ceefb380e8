"""A from-scratch BERT WordPiece tokenizer: basic split, then greedy longest-match-first.

Taught in: 01_tokenization. The basic split lives in anatomy.tokenizers.basic_tokenizer. Checked against the
Hugging Face tokenizer in tests/test_wordpiece.py.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from anatomy.checks import check_type
from anatomy.tokenizers.basic_tokenizer import normalize, split_punctuation

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
SPECIAL_PATTERN = re.compile("(" + "|".join(map(re.escape, SPECIAL_TOKENS)) + ")")
MAX_CHARS_PER_WORD = 100


def as_id_list(ids) -> list[int]:
    """A list of ints from a list, tuple, or 1-D torch tensor / numpy array of integers."""
    if hasattr(ids, "tolist") and hasattr(ids, "dtype"):  # torch.Tensor or numpy.ndarray
        if len(ids.shape) != 1 or not str(ids.dtype).removeprefix("torch.").startswith(("int", "uint")):
            raise ValueError(f"ids must be one sequence: a 1-D integer tensor, got shape {tuple(ids.shape)} "
                             f"and dtype {ids.dtype}; for a batch, decode each row")
        ids = ids.tolist()
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
        raise TypeError(f"ids must be a list of ints or a 1-D integer tensor, got {type(ids).__name__}")
    wrong = [index for index in ids if not isinstance(index, int) or isinstance(index, bool)]
    if wrong:
        raise TypeError(f"ids must be ints, got {wrong[:5]} (for a batch, decode each row)")
    return list(ids)


class WordPieceTokenizer:
    """Text -> WordPiece tokens -> ids, with [CLS]/[SEP] and token_type_ids, as BERT expects."""

    def __init__(self, vocab: dict[str, int], lowercase: bool = True) -> None:
        check_type("vocab", vocab, Mapping, what="a dict of token -> id")
        missing = [token for token in SPECIAL_TOKENS if token not in vocab]
        if missing:
            raise ValueError(f"vocab lacks the special tokens {missing}")
        self.vocab = vocab
        self.id_to_token = {index: token for token, index in vocab.items()}
        self.lowercase = lowercase

    @classmethod
    def from_vocab_file(cls, path: str | os.PathLike, lowercase: bool = True) -> WordPieceTokenizer:
        tokens = Path(path).read_text(encoding="utf-8").splitlines()
        return cls({token: index for index, token in enumerate(tokens)}, lowercase)

    @classmethod
    def from_pretrained(cls, checkpoint: str | os.PathLike | None = None) -> WordPieceTokenizer:
        """Read vocab.txt from a local checkpoint folder (default: the bundled model)."""
        from anatomy.checkpoints.pretrained import resolve_checkpoint

        folder = resolve_checkpoint(checkpoint)
        if not isinstance(folder, Path):
            raise ValueError(f"from_pretrained needs a local folder with vocab.txt, got {folder!r}")
        return cls.from_vocab_file(folder / "vocab.txt")

    def basic_tokenize(self, text: str) -> list[str]:
        return [piece for word in normalize(text, self.lowercase).split()
                for piece in split_punctuation(word)]

    def wordpiece(self, word: str) -> list[str]:
        """Greedy longest-match-first: 'tokenization' -> ['token', '##ization']."""
        if len(word) > MAX_CHARS_PER_WORD:
            return ["[UNK]"]
        pieces, start = [], 0
        while start < len(word):
            for end in range(len(word), start, -1):
                candidate = ("##" if start else "") + word[start:end]
                if candidate in self.vocab:
                    pieces.append(candidate)
                    start = end
                    break
            else:  # no prefix of the rest is in the vocabulary
                return ["[UNK]"]
        return pieces

    def tokenize(self, text: str) -> list[str]:
        """A special token written in the text, exactly as in the vocabulary ("[SEP]", not "[sep]"),
        stays one token, as in the Hugging Face tokenizer; the text around it is split as usual."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        tokens = []
        for part in SPECIAL_PATTERN.split(text):
            if part in SPECIAL_TOKENS:
                tokens.append(part)
            else:
                tokens += [piece for word in self.basic_tokenize(part) for piece in self.wordpiece(word)]
        return tokens

    def convert_tokens_to_ids(self, tokens: list[str]) -> list[int]:
        return [self.vocab.get(token, self.vocab["[UNK]"]) for token in tokens]

    def convert_ids_to_tokens(self, ids: Sequence[int]) -> list[str]:
        """Accepts a list of ints or a 1-D tensor/array of integers."""
        ids = as_id_list(ids)
        unknown = [index for index in ids if index not in self.id_to_token]
        if unknown:
            raise ValueError(f"ids {unknown} are outside the vocabulary of {len(self.vocab)} tokens")
        return [self.id_to_token[index] for index in ids]

    def encode(self, text: str, pair: str | None = None,
               add_special_tokens: bool = True) -> dict[str, list[int]]:
        """{'input_ids', 'token_type_ids'}: [CLS] A [SEP] B [SEP], types 0...0 1...1."""
        first = self.convert_tokens_to_ids(self.tokenize(text))
        second = self.convert_tokens_to_ids(self.tokenize(pair)) if pair is not None else []
        if add_special_tokens:
            cls, sep = self.vocab["[CLS]"], self.vocab["[SEP]"]
            first = [cls, *first, sep]
            second = [*second, sep] if pair is not None else []
        return {"input_ids": first + second, "token_type_ids": [0] * len(first) + [1] * len(second)}

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        tokens = self.convert_ids_to_tokens(ids)
        if skip_special_tokens:
            tokens = [token for token in tokens if token not in SPECIAL_TOKENS]
        return " ".join(tokens).replace(" ##", "")
