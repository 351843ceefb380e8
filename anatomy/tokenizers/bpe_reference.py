"""The reference nobody here wrote: Hugging Face `tokenizers`' byte-level BPE, set up as ours is.

Taught in: 15_byte_level_bpe (the equality cell), 20_instruction_tuning (hf_fast_tokenizer); used by tests/test_bpe.py
and benchmarks/bpe.py.
No shapes: text in, ids out.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from anatomy.tokenizers.byte_level import GPT2_SPLIT_PATTERN


def train_hf_byte_level_bpe(texts: Iterable[str], vocab_size: int, special_tokens: Sequence[str] = ()) -> Tokenizer:
    """HF's BpeTrainer on GPT-2's split (ByteLevel, no prefix space), all 256 byte characters in the
    alphabet, no minimum frequency: the same recipe as anatomy.tokenizers.bpe.ByteLevelBPE.train."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(special_tokens),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train_from_iterator(texts, trainer)
    return tokenizer


def train_hf_character_bpe(texts: Iterable[str], vocab_size: int, jamo: bool = False,
                           alphabet: Sequence[str] = ()) -> Tokenizer:
    """HF's BpeTrainer on characters (NFD first if `jamo`, `alphabet` always kept), GPT-2's split without
    bytes, [UNK] for an unseen character: anatomy.tokenizers.bpe_levels.CharacterBPE's recipe. [UNK] takes id 0,
    so HF's vocabulary holds one token more than ours for the same merges."""
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(GPT2_SPLIT_PATTERN), behavior="isolated")
    if jamo:
        tokenizer.normalizer = normalizers.NFD()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size + 1, special_tokens=["[UNK]"], initial_alphabet=list(alphabet),
                                  show_progress=False)
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


def hf_fast_tokenizer(bpe, pad_token: str | None = None, eos_token: str | None = None, chat_template: str | None = None):
    """A transformers PreTrainedTokenizerFast holding our ByteLevelBPE's vocabulary, merges and special tokens
    (HF's BPE model, GPT-2's ByteLevel split without a prefix space): the reference for 20's chat template."""
    from transformers import PreTrainedTokenizerFast
    tokenizer = Tokenizer(models.BPE(vocab={bpe.id_to_token(i): i for i in range(bpe.vocab_size)}, merges=bpe.merges))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.add_special_tokens(list(bpe.special_tokens))
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token=pad_token, eos_token=eos_token)
    fast.chat_template = chat_template
    return fast
