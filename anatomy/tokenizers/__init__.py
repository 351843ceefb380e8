"""Text to token ids: BERT's WordPiece and a byte-level BPE written from scratch, with their references.

Taught in: 01_tokenization (basic split, WordPiece),
15_byte_level_bpe (byte level, BPE training, levels, GPT-2's vocabulary).

bpe_reference imports a heavy library (Hugging Face tokenizers), so its names load when first used, not with
`import anatomy`.
"""
import importlib

from anatomy.tokenizers.basic_tokenizer import (is_whitespace, is_control, is_punctuation, is_cjk, normalize,
                                                split_punctuation)
from anatomy.tokenizers.bpe import apply_merges, ByteLevelBPE
from anatomy.tokenizers.bpe_encoding import merge_by_rank
from anatomy.tokenizers.bpe_levels import CharacterBPE, readable, smaller, bytes_per_token, plot_compression
from anatomy.tokenizers.bpe_training import (check_special_tokens, check_vocab_and_merges, check_vocab_size, count_words, merge_word,
                                             count_pairs, learn_merges)
from anatomy.tokenizers.byte_level import (bytes_to_unicode, split_words, to_byte_chars, from_byte_chars, pre_tokenize,
                                           random_text)
from anatomy.tokenizers.gpt2_vocab import ranks_path, fetch_gpt2_ranks, gpt2_ranks, recover_merges, gpt2_tokenizer
from anatomy.tokenizers.wordpiece import as_id_list, WordPieceTokenizer

LAZY = dict.fromkeys(("train_hf_byte_level_bpe", "train_hf_character_bpe", "hf_merges", "hf_vocab", "hf_fast_tokenizer"),
                     "bpe_reference")  # name -> its module


def __getattr__(name: str):
    """The names of bpe_reference, imported when first asked for."""
    if name in LAZY:
        return getattr(importlib.import_module(f"{__name__}.{LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
