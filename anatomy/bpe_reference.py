"""The reference nobody here wrote: Hugging Face `tokenizers`' byte-level BPE, set up as ours is.

Taught in: 15_byte_level_bpe (the equality cell); used by tests/test_bpe.py and benchmarks/bpe.py.
No shapes: text in, ids out.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers


def train_hf_byte_level_bpe(texts: Iterable[str], vocab_size: int, special_tokens: Sequence[str] = ()) -> Tokenizer:
    """HF's BpeTrainer on GPT-2's split (ByteLevel, no prefix space), all 256 byte characters in the
    alphabet, no minimum frequency: the same recipe as anatomy.bpe.ByteLevelBPE.train."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(special_tokens),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train_from_iterator(texts, trainer)
    return tokenizer


def hf_merges(tokenizer: Tokenizer) -> list[tuple[str, str]]:
    """A trained HF BPE tokenizer's merges, in rank order, as (left, right) token strings."""
    merges = json.loads(tokenizer.to_str())["model"]["merges"]
    return [tuple(merge) if isinstance(merge, list) else tuple(merge.split(" ", 1)) for merge in merges]


def hf_vocab(tokenizer: Tokenizer) -> list[str]:
    """Its vocabulary in id order (special tokens included)."""
    vocab = tokenizer.get_vocab(with_added_tokens=True)
    return sorted(vocab, key=vocab.__getitem__)
