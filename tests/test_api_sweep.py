"""The sweep (issue #37): every public function and class of `anatomy` (outside anatomy.homework), called
with one argument at a time replaced by a common mistake. The rule: a TypeError or ValueError whose
message names the argument, or a result without NaN (a documented valid result).

Modules are found by walking the package (pkgutil), so a new module is swept without being named here:
each public callable it defines must have a valid example call in EXAMPLES, or a reason in UNCALLABLE
(test_every_public_callable_has_an_example_or_a_reason fails otherwise). The mistakes, per argument,
follow its valid value: None (unless None is a documented value), an empty sequence, one string where
a list of strings goes, 0, -1, NaN, inf, a float where an int goes, a tensor of one more dimension
or of the other dtype (float <-> int64).
"""
from __future__ import annotations

import functools
import importlib
import inspect
import math
import pkgutil
import random
import signal
from contextlib import contextmanager
from dataclasses import fields, is_dataclass

import pytest
import torch
from transformers import BertConfig

import anatomy

PACKAGE, LEFT_OUT = anatomy, ("anatomy.homework",)  # the sandboxed grader's package has sweeps of its own
SECONDS_PER_CALL = 5
# torch.broadcast_shapes imports sympy on its first call (seconds on a busy machine). Done here, untimed: a time
# limit that fired inside that import left sympy half imported, and every later call failed with
# "module 'sympy' has no attribute 'printing'".
torch.broadcast_shapes((1,), (1,))


def public_callables() -> dict[str, object]:
    """'module.name' -> every function and class a module of the package defines under a public name."""
    found = {}
    for info in pkgutil.walk_packages(PACKAGE.__path__, PACKAGE.__name__ + "."):
        if info.name.startswith(LEFT_OUT):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (not name.startswith("_") and (inspect.isfunction(obj) or inspect.isclass(obj))
                    and obj.__module__ == module.__name__):
                found[f"{module.__name__}.{name}"] = obj
    return found


# --- small valid inputs, built once -------------------------------------------------------------------
SPECIALS = ["[PAD]", "[CLS]", "[SEP]", "[MASK]"]


@functools.cache
def bpe():
    from anatomy.tokenizers.bpe import ByteLevelBPE
    return ByteLevelBPE.train(["low lower lowest newer wider", "좋아해 싫어해"], 290, SPECIALS)


def sentence_tokenizer():
    from anatomy.tasks.mlm_pretraining import SentenceTokenizer
    return SentenceTokenizer(bpe())


def bert_config():
    return BertConfig(vocab_size=bpe().vocab_size, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                      intermediate_size=32, max_position_embeddings=16, type_vocab_size=1, pad_token_id=0)


@functools.cache
def mlm():
    from anatomy.models.masked_lm import TransformerForMaskedLM
    torch.manual_seed(0)
    return TransformerForMaskedLM(bert_config()).eval()


@functools.cache
def gpt():
    from anatomy.models.gpt import GPT, GPTConfig
    torch.manual_seed(0)
    return GPT(GPTConfig(vocab_size=20, hidden_size=16, num_attention_heads=2, num_hidden_layers=2,
                         intermediate_size=32, max_position_embeddings=16)).eval()


@functools.cache
def induction_model():
    from anatomy.interpret.induction import attention_only_model
    return attention_only_model(vocab_size=12, half=4, heads=2).eval()


def ids(vocab=20, shape=(2, 7)):
    return torch.randint(1, vocab, shape, generator=torch.Generator().manual_seed(0))


def repeated():
    from anatomy.interpret.induction import repeated_tokens
    return repeated_tokens(2, 4, 12, torch.Generator().manual_seed(0))


def pattern():
    return torch.softmax(torch.randn(2, 1, 2, 9, 9, generator=torch.Generator().manual_seed(0)), -1)


def masked_batch():
    from anatomy.tasks.mlm_pretraining import masked_batches, pretraining_sequences
    sequences = pretraining_sequences(sentence_tokenizer(), ["low lower lowest", "newer wider", "좋아해"], 8)
    return next(masked_batches(sequences, sentence_tokenizer(), batch_size=2))


def comparison():
    return {"seeds": [0, 1, 2], "runs": {"0": {"accuracy": [0.6, 0.62, 0.61]}, "10": {"accuracy": [0.65, 0.66, 0.6]}}}


def call(*args, **kwargs):
    return args, kwargs


def logit_difference_metric():
    from anatomy.interpret.patching import logit_difference
    return logit_difference(-1, 3, 4)


def tiny_config(**changes):
    from anatomy.models.transformer_config import TransformerConfig
    return TransformerConfig(**{**dict(vocab_size=20, hidden_size=16, num_attention_heads=2, intermediate_size=32,
                                       num_encoder_layers=1, num_decoder_layers=1, max_position_embeddings=16), **changes})


@functools.cache
def transformer():
    from anatomy.models.transformer import Transformer
    torch.manual_seed(0)
    return Transformer(tiny_config()).eval()


@functools.cache
def translator():
    from anatomy.models.transformer import Transformer
    from anatomy.tasks.dates_translator import DATES_MODEL_DIR
    return Transformer.from_pretrained(DATES_MODEL_DIR)


def dates_examples():
    from anatomy.interpret.cross_attention import held_out_examples
    return held_out_examples(1, seed=0)


def month_pair():
    from anatomy.interpret.path_patching import date_pair, field_metric
    return (*date_pair("Mar 3 2021", "May 3 2021", "2021-03-03", char_vocabulary()),
            field_metric("month", "2021-03-03", "2021-05-03", char_vocabulary()))


@functools.cache
def head_names():
    return {(layer, head): f"head {layer}.{head}" for layer in range(2) for head in range(4)}


def char_vocabulary():
    from anatomy.tasks.dates import CharVocabulary
    return CharVocabulary()


@functools.cache
def dates_model():
    from anatomy.models.transformer import Transformer
    from anatomy.tasks.dates_translator import dates_config
    torch.manual_seed(0)
    config = dates_config(char_vocabulary())
    config.hidden_size, config.intermediate_size, config.num_encoder_layers, config.num_decoder_layers = 16, 32, 1, 1
    config.num_attention_heads = 2
    return Transformer(config).eval()


def dates_batch():
    from anatomy.tasks.dates import date_pairs, make_batch
    return make_batch(date_pairs(2, "train", 0), char_vocabulary())


def char_corpus():
    from anatomy.tasks.docstring_lm import CharCorpus
    return CharCorpus("\nabcde", torch.tensor([1, 2, 3, 0, 4, 5, 1, 0, 2, 3]), torch.tensor([1, 2, 0, 3, 4]))


def digits_split():
    from anatomy.tasks.digits import DigitsSplit
    images, labels = torch.rand(6, 1, 8, 8, generator=torch.Generator().manual_seed(0)), torch.tensor([0, 1, 2, 3, 4, 5])
    return DigitsSplit(images, labels, images[:4], labels[:4])


@functools.cache
def digits_model():
    from anatomy.tasks.digits import pixel_mlp
    torch.manual_seed(0)
    return pixel_mlp(8).eval()


@functools.cache
def classifier():
    from anatomy.models.classifier import TransformerForSequenceClassification
    torch.manual_seed(0)
    config = bert_config()
    config.num_labels = 2
    return TransformerForSequenceClassification(config).eval()


def sentiment_batch():
    from anatomy.tasks.sentiment_batches import pad_batch
    return pad_batch([[1, 5, 6, 2], [1, 7, 2]], [1, 0])


def reviews():
    from anatomy.corpora.sentiment_data import Reviews
    return Reviews(["low lower", "newer wider"], [1, 0], [2.0, -1.5])


def lookback_config():
    from anatomy.tasks.lookback import LookbackConfig
    return LookbackConfig(lookbacks=(1, 2), vocab_size=6, length=8, head_dim=4, max_span=6, batch_size=2)


@functools.cache
def lookback_model():
    from anatomy.tasks.lookback import LookbackModel
    torch.manual_seed(0)
    return LookbackModel(lookback_config()).eval()


def lookback_tokens():
    return ids(6, (2, 8))


def llama_config():
    from anatomy.models.llama import LlamaConfig
    return LlamaConfig(vocab_size=20, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                       num_key_value_heads=1, max_position_embeddings=16)


def vit_config():
    from anatomy.models.vit import VisionTransformerConfig
    return VisionTransformerConfig(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32)


def feedforward():
    from anatomy.layers.feedforward import FeedForward
    torch.manual_seed(0)
    return FeedForward(tiny_config()).eval()


def chat():
    return [{"role": "system", "content": "One word."}, {"role": "user", "content": "low?"},
            {"role": "assistant", "content": "lower"}]


def answer_mask():
    return torch.tensor([[False, False, True, True, False], [False, True, True, True, True]])


def fresh_gpt():
    """A GPT of its own (gpt() is shared): add_lora and merging change the model they get."""
    from anatomy.models.gpt import GPT
    torch.manual_seed(1)
    return GPT(gpt().config).eval()


def lora_gpt():
    from anatomy.alignment import add_lora
    return add_lora(fresh_gpt(), ["self_attn.q_proj"], 2, 4.0)


@functools.cache
def char_tokenizer():
    from anatomy.alignment.base_corpus import CharTokenizer
    return CharTokenizer("\nlowerabc?")


def char_gpt():
    from anatomy.models.gpt import GPT, GPTConfig
    torch.manual_seed(0)
    return GPT(GPTConfig(vocab_size=char_tokenizer().vocab_size, hidden_size=16, num_attention_heads=2, num_hidden_layers=1,
                         intermediate_size=32, max_position_embeddings=16)).eval()


def pair_side():
    return ids(shape=(2, 5)), torch.ones(2, 5, dtype=torch.long), answer_mask()


# 'module.name' (or 'module.Class.method') -> a function returning (args, kwargs) of one valid call, or
# (the callable, args, kwargs) for a method of an object built there.
EXAMPLES = {
    # 15: byte-level BPE
    "anatomy.tokenizers.bpe_encoding.merge_by_rank": lambda: call(list("lower"), {("l", "o"): 0, ("lo", "w"): 1}),
    "anatomy.tokenizers.bpe.ByteLevelBPE": lambda: call([bpe().id_to_token(i) for i in range(bpe().vocab_size)], bpe().merges, SPECIALS),
    "anatomy.tokenizers.bpe.ByteLevelBPE.train": lambda: (type(bpe()).train, *call(["low lower lowest"], 260, SPECIALS)),
    "anatomy.tokenizers.bpe.ByteLevelBPE.encode": lambda: (bpe().encode, *call("lower 좋아 [MASK]")),
    "anatomy.tokenizers.bpe.ByteLevelBPE.decode": lambda: (bpe().decode, *call([5, 70, 280])),
    "anatomy.tokenizers.bpe_levels.CharacterBPE": lambda: call(list("abl"), [("a", "b")]),
    "anatomy.tokenizers.bpe_levels.CharacterBPE.train": lambda: (__import__("anatomy.tokenizers.bpe_levels").tokenizers.bpe_levels.CharacterBPE.train,
                                                      *call(["좋아해 싫어해", "좋아"], 12)),
    "anatomy.tokenizers.bpe_levels.readable": lambda: call(bpe(), "lower 좋아"),
    "anatomy.tokenizers.bpe_levels.smaller": lambda: call(bpe(), 265),
    "anatomy.tokenizers.bpe_levels.bytes_per_token": lambda: call(bpe(), ["lower", "좋아해"]),
    "anatomy.tokenizers.bpe_training.check_special_tokens": lambda: call(SPECIALS),
    "anatomy.tokenizers.bpe_training.check_vocab_and_merges": lambda: call(["a", "b", "ab"], [("a", "b")]),
    "anatomy.tokenizers.bpe_training.count_words": lambda: call(["low lower", "newer"]),
    "anatomy.tokenizers.byte_level.bytes_to_unicode": lambda: call(),
    "anatomy.tokenizers.byte_level.split_words": lambda: call("Hi  there!"),
    "anatomy.tokenizers.byte_level.to_byte_chars": lambda: call(" 좋"),
    "anatomy.tokenizers.byte_level.from_byte_chars": lambda: call("Ġì¢ĭ"),
    "anatomy.tokenizers.byte_level.pre_tokenize": lambda: call("Hi  there!"),
    "anatomy.tokenizers.byte_level.random_text": lambda: call(random.Random(0), 10),
    "anatomy.tokenizers.gpt2_vocab.recover_merges": lambda: call({b"a": 0, b"b": 1, b"ab": 2, b"abb": 3}),
    # 16: masking, the masked-LM head, pre-training
    "anatomy.models.mlm_masking.check_special_ids": lambda: call([0, 1, 2, 3]),
    "anatomy.models.mlm_masking.mask_tokens": lambda: call(ids(), 3, 20, [0, 1, 2, 3], torch.Generator().manual_seed(0), 0.3),
    "anatomy.models.masked_lm.bert_init_": lambda: call(torch.nn.Linear(3, 3), 0.02),
    "anatomy.models.masked_lm.MaskedLMHead": lambda: call(bert_config(), torch.nn.Embedding(bpe().vocab_size, 16)),
    "anatomy.models.masked_lm.TransformerForMaskedLM": lambda: call(bert_config()),
    "anatomy.models.masked_lm.TransformerForMaskedLM.forward": lambda: (mlm(), *call(ids(bpe().vocab_size),
                                                                              labels=torch.full((2, 7), -100).index_fill_(1, torch.tensor([2]), 7))),
    "anatomy.models.masked_lm.MaskedLMOutput": lambda: call(torch.zeros(1, 2, 3)),
    "anatomy.tasks.mlm_pretraining.SentenceTokenizer": lambda: call(bpe()),
    "anatomy.tasks.mlm_pretraining.SentenceTokenizer.__call__": lambda: (sentence_tokenizer(), *call(["lower", "좋아해"], max_length=5)),
    "anatomy.tasks.mlm_pretraining.train_tokenizer": lambda: call(["low lower lowest"], 270),
    "anatomy.tasks.mlm_pretraining.pretraining_sequences": lambda: call(sentence_tokenizer(), ["low lower lowest newer"], 5),
    "anatomy.tasks.mlm_pretraining.small_bert_config": lambda: call(300),
    "anatomy.corpora.fingerprint.source_fingerprint": lambda: call(["Return the number.", "난 너를 좋아해"]),
    "anatomy.corpora.fingerprint.texts_record": lambda: call({"docstrings": ["Return the number."], "korean": ["좋아해"]}),
    "anatomy.corpora.fingerprint.compare_texts": lambda: call(
        {"python": "3.11.7", "sources": {"docstrings": {"texts": 1, "sha256": "0" * 64}}}, {"docstrings": ["Return it."]}),
    "anatomy.tasks.mlm_pretraining.MaskedBatch": lambda: call(ids(), torch.ones(2, 7, dtype=torch.long), ids()),
    "anatomy.tasks.mlm_pretraining.masked_batches": lambda: call([[1, 5, 6, 2], [1, 7, 2]], sentence_tokenizer(), 2, 0),
    "anatomy.tasks.mlm_pretraining.masked_lm_loss": lambda: call(mlm(), masked_batch()),
    "anatomy.tasks.mlm_pretraining.unigram_entropy": lambda: call([[1, 5, 6, 2], [1, 7, 5, 2]], [0, 1, 2, 3]),
    "anatomy.tasks.mlm_pretraining.blank_log_probs": lambda: call(mlm(), sentence_tokenizer(), "the [MASK] lower"),
    "anatomy.tasks.mlm_pretraining.fill_in_blank": lambda: call(mlm(), sentence_tokenizer(), "the [MASK] lower", 3),
    "anatomy.tasks.arms.mean_interval": lambda: call([0.6, 0.62, 0.65], 0.95),
    "anatomy.tasks.arms.compare_arms": lambda: call([0.6, 0.62, 0.61], [0.65, 0.66, 0.6], 0.95),
    "anatomy.tasks.pretraining_payoff.gain_over_random": lambda: call(comparison(), 10),
    "anatomy.tasks.pretraining_payoff.paired_gain": lambda: call(comparison(), 10),
    "anatomy.tasks.pretraining_payoff.classifier_from": lambda: call(bert_config(), None, 0),
    "anatomy.tasks.pretraining_payoff.recipe_for": lambda: call(1e-3, 40, 250),
    # 17: hooks, induction, logit lens, patching
    "anatomy.interpret.hooks.blocks": lambda: call(gpt()),
    "anatomy.interpret.hooks.points_of": lambda: call(gpt().layers[0]),
    "anatomy.interpret.hooks.hook_names": lambda: call(gpt()),
    "anatomy.interpret.hooks.resolve": lambda: call(gpt(), "blocks.1.z"),
    "anatomy.interpret.hooks.Hooks": lambda: call(gpt(), ["blocks.0.resid_post"], {"blocks.1.z": torch.zeros_like}),
    "anatomy.interpret.induction.attention_only_model": lambda: call(12, 4, 2, 0),
    "anatomy.interpret.induction.repeated_tokens": lambda: call(2, 4, 12, torch.Generator().manual_seed(0), torch.tensor([2, 4])),
    "anatomy.interpret.induction.half_losses": lambda: call(torch.randn(2, 9, 12), repeated(), torch.tensor([4, 3])),
    "anatomy.interpret.induction.previous_token_scores": lambda: call(pattern()),
    "anatomy.interpret.induction.induction_scores": lambda: call(pattern()),
    "anatomy.interpret.induction.ablate_heads": lambda: call([0, 1], None),
    "anatomy.interpret.induction.head_means": lambda: call(induction_model(), repeated(), 1),
    "anatomy.interpret.induction.in_context_gain": lambda: call(induction_model(), repeated(), None),
    "anatomy.interpret.induction.patterns": lambda: call(induction_model(), repeated()),
    "anatomy.interpret.induction_control.folded_text": lambda: call(32, 50),
    "anatomy.interpret.induction_control.text_rows": lambda: call(2, torch.arange(1, 12), 9, torch.Generator().manual_seed(0)),
    "anatomy.interpret.induction_control.local_scores": lambda: call(pattern()),
    "anatomy.interpret.induction_control.row_losses": lambda: call(induction_model(), repeated(), None),
    "anatomy.interpret.induction_control.row_gains": lambda: call(induction_model(), repeated(), None),
    "anatomy.interpret.logit_lens.residual_streams": lambda: call(gpt(), ids()),
    "anatomy.interpret.logit_lens.logit_lens": lambda: call(gpt(), ids()),
    "anatomy.interpret.logit_lens.lens_ranks": lambda: call(torch.randn(3, 2, 7, 20).log_softmax(-1), ids()),
    "anatomy.interpret.patching.patch": lambda: call("blocks.0.resid_post", torch.zeros(2, 7, 16), 1),
    "anatomy.interpret.patching.check_pair": lambda: call((ids(),), (ids() + 0,)),
    "anatomy.interpret.patching.restored_fraction": lambda: call(gpt(), ["blocks.0.resid_post"], (ids(shape=(1, 5)),),
                                                       (ids(shape=(1, 5)).flip(1),), logit_difference_metric()),
    "anatomy.interpret.patching.logit_difference": lambda: call(-1, 3, 4, 0),
    "anatomy.interpret.cross_attention.source_spans": lambda: call("Mar 3 2021", "Mar 3 2021"),
    "anatomy.interpret.cross_attention.held_out_examples": lambda: call(1, 0),
    "anatomy.interpret.cross_attention.check_run": lambda: call(translator(), dates_examples(), char_vocabulary()),
    "anatomy.interpret.cross_attention.all_heads": lambda: call(translator()),
    "anatomy.interpret.cross_attention.attention_to_fields": lambda: call(translator(), dates_examples(), char_vocabulary()),
    "anatomy.interpret.cross_attention.ablate": lambda: call([(1, 1)], None),
    "anatomy.interpret.cross_attention.cross_head_means": lambda: call(translator(), dates_examples(), char_vocabulary()),
    "anatomy.interpret.cross_attention.field_accuracy": lambda: call(translator(), dates_examples(), char_vocabulary(),
                                                                     [(1, 1)], None),
    "anatomy.interpret.path_patching.date_pair": lambda: call("Mar 3 2021", "May 3 2021", "2021-03-03", char_vocabulary()),
    "anatomy.interpret.path_patching.field_metric": lambda: call("month", "2021-03-03", "2021-05-03", char_vocabulary()),
    "anatomy.interpret.path_patching.patch_heads": lambda: call("decoder.1.cross_z", torch.zeros(1, 11, 4, 16), [1]),
    "anatomy.interpret.path_patching.head_patching": lambda: call(translator(), *month_pair()),
    "anatomy.interpret.path_patching.path_patching": lambda: call(translator(), 1, 1, *month_pair(), ["key", "value"]),
    "anatomy.display.head_names.head_color": lambda: call(1),
    "anatomy.display.head_names.check_names": lambda: call(head_names(), [0, 1], 4),
    "anatomy.display.head_names.named_head_view": lambda: call(head_names(), "heads", cross_attention=[
        torch.rand(1, 4, 11, 10).softmax(-1) for _ in range(2)], encoder_tokens=list("Mar 3 2021"),
        decoder_tokens=["<bos>", *"2021-03-03"]),
    # 00-14: the pieces that take numbers, tensors and texts
    "anatomy.layers.attention.scaled_dot_product_attention": lambda: call(torch.randn(2, 3, 4), torch.randn(2, 5, 4),
                                                                   torch.randn(2, 5, 4), torch.ones(3, 5, dtype=torch.bool)),
    "anatomy.layers.masks.causal_mask": lambda: call(3, 5),
    "anatomy.layers.masks.padding_mask": lambda: call(torch.tensor([[1, 1, 0]])),
    "anatomy.layers.masks.causal_padding_mask": lambda: call(torch.tensor([[1, 1, 0]])),
    "anatomy.efficient.local_masks.local_mask": lambda: call(6, 2, True),
    "anatomy.efficient.local_masks.strided_mask": lambda: call(6, 2, True),
    "anatomy.layers.embeddings.sinusoidal_positions": lambda: call(8, 6, 10000.0),
    "anatomy.layers.embeddings.position_shift_matrix": lambda: call(2, 6, 10000.0),
    "anatomy.layers.rotary.rotary_frequencies": lambda: call(8, 10000.0),
    "anatomy.layers.rotary.apply_rotary": lambda: call(torch.randn(1, 2, 5, 8), torch.arange(5), 10000.0),
    "anatomy.generation.sampling.top_k_filter": lambda: call(torch.randn(2, 10), 3),
    "anatomy.generation.sampling.top_p_filter": lambda: call(torch.randn(2, 10), 0.9),
    "anatomy.generation.sampling.next_token_distribution": lambda: call(torch.randn(2, 10), 0.7, 5, 0.9),
    "anatomy.generation.sampling.choose_next": lambda: call(torch.randn(2, 10), True, 0.7, 5, 0.9, torch.Generator().manual_seed(0)),
    "anatomy.efficient.product_keys.product_key_top_k": lambda: call(torch.randn(2, 8), torch.randn(4, 4), torch.randn(4, 4), 3),
    "anatomy.efficient.tiled_attention.tiled_attention": lambda: call(torch.randn(1, 6, 4), torch.randn(1, 6, 4), torch.randn(1, 6, 4), 2, True),
    "anatomy.tasks.training.warmup_then_decay": lambda: call(5, 10, 100),
    "anatomy.tasks.training.token_cross_entropy": lambda: call(torch.randn(2, 3, 5), torch.tensor([[1, 2, 0], [4, 0, 0]]), 0, 0.1),
    "anatomy.models.vit.image_to_patches": lambda: call(torch.randn(2, 1, 8, 8), 2),
    "anatomy.tokenizers.basic_tokenizer.normalize": lambda: call("Héllo", True),
    "anatomy.tokenizers.basic_tokenizer.split_punctuation": lambda: call("hi!"),
    "anatomy.efficient.local_masks.key_offsets": lambda: call(5),
    "anatomy.layers.rotary.pairs_from_halves": lambda: call(torch.randn(8, 8), 2),
    "anatomy.generation.sampling.check_sampling": lambda: call(0.7, 5, 0.9),
    "anatomy.efficient.product_keys.check_top_k": lambda: call(3, 4),
    "anatomy.efficient.product_keys.all_product_keys": lambda: call(torch.randn(4, 4), torch.randn(4, 4)),
    "anatomy.corpora.sentiment_data.binary_label": lambda: call(1.5),
    "anatomy.layers.config.check_divisible": lambda: call(8, 2),
    "anatomy.tasks.dates.pad": lambda: call([[1, 2, 3], [4]], 0),
    "anatomy.tasks.copy_task.copy_pairs": lambda: call(3, 0, (1, 5)),
    "anatomy.tasks.dates.date_pairs": lambda: call(3, "train", 0),
    "anatomy.layers.kv_cache.cache_memory_bytes": lambda: call(2, 4, 16, 100, 1, 2),
    "anatomy.tasks.docstring_lm.perplexity": lambda: call(2.0),
    "anatomy.tokenizers.wordpiece.as_id_list": lambda: call([1, 2, 3]),
    # 00-14: layers, models and tasks built from small configs
    "anatomy.efficient.adaptive_span.span_mask": lambda: call(torch.arange(6.0), torch.tensor([[2.0], [4.0]]), 2.0),
    "anatomy.efficient.adaptive_span.AdaptiveSpan": lambda: call(2, 8, 2.0, 4.0),
    "anatomy.layers.attention.check_qkv": lambda: call(torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 4)),
    "anatomy.generation.beam_search.beam_search": lambda: call(transformer(), ids(shape=(1, 5)), None, 2, 6, 1.0),
    "anatomy.checks.check_device": lambda: call("cpu"),
    "anatomy.checks.check_labels": lambda: call(torch.tensor([0, 1, 1]), 3, 2, "labels"),
    "anatomy.checks.check_padding_side": lambda: call(torch.tensor([[1, 1, 0]]), "right", "attention_mask"),
    "anatomy.checks.check_batches": lambda: call(10, 4, "reviews"),
    "anatomy.models.classifier.TransformerForSequenceClassification": lambda: call(classifier().config),
    "anatomy.layers.config.require": lambda: call(tiny_config(), "hidden_size", "vocab_size"),
    "anatomy.layers.config.from_fields": lambda: call(type(tiny_config()), {"hidden_size": 16, "vocab_size": 20}, "a test"),
    "anatomy.layers.config.check_model_sizes": lambda: call(gpt().config, "intermediate_size"),
    "anatomy.tasks.copy_task.copy_vocabulary": lambda: call(),
    "anatomy.tasks.copy_task.training_batches": lambda: call(char_vocabulary(), 4, 0, "cpu"),
    "anatomy.tasks.copy_task.build_model": lambda: call("GRU, fixed context", __import__("anatomy.tasks.copy_task").tasks.copy_task.copy_vocabulary()),
    "anatomy.tasks.copy_task.build_rnn": lambda: call(__import__("anatomy.tasks.copy_task").tasks.copy_task.copy_vocabulary(), hidden_size=8),
    "anatomy.tasks.dates.CharVocabulary": lambda: call("abc 12"),
    "anatomy.tasks.dates.make_batch": lambda: call([("1 may 2020", "2020-05-01")], char_vocabulary(), "cpu"),
    "anatomy.tasks.dates_translator.dates_config": lambda: call(char_vocabulary()),
    "anatomy.tasks.dates_translator.training_batches": lambda: call(char_vocabulary(), 4, 0, "cpu"),
    "anatomy.tasks.dates_translator.translation_loss": lambda: call(dates_model(), dates_batch(), 0.1),
    "anatomy.tasks.dates_translator.translate": lambda: call(dates_model(), ["1 may 2020", "2 june 1999"], char_vocabulary(), 2),
    "anatomy.tasks.dates_translator.exact_match": lambda: call(dates_model(), [("1 may 2020", "2020-05-01")], char_vocabulary()),
    "anatomy.models.decoder.check_memory": lambda: call(torch.randn(2, 5, 16), torch.randn(2, 3, 16)),
    "anatomy.models.decoder.TransformerDecoderLayer": lambda: call(tiny_config(), False),
    "anatomy.models.decoder.TransformerDecoder": lambda: call(tiny_config(), False, None),
    "anatomy.models.decoder_inputs.positions_from_padding": lambda: call(torch.tensor([[0, 1, 1], [1, 1, 1]])),
    "anatomy.models.decoder_inputs.decoder_mask": lambda: call(3, torch.tensor([[0, 1, 1], [1, 1, 1]]), 3, torch.device("cpu")),
    "anatomy.models.decoder_inputs.check_cache": lambda: call(__import__("anatomy.layers.kv_cache").layers.kv_cache.KVCache(2), 2),
    "anatomy.models.decoder_inputs.check_decoder_call": lambda: call(gpt().config, ids(), torch.ones(2, 7, dtype=torch.long), None, None),
    "anatomy.tasks.digits.shift_randomly": lambda: call(torch.rand(2, 1, 8, 8), torch.Generator().manual_seed(0), 1),
    "anatomy.tasks.digits.training_batches": lambda: call(digits_split(), 2, 0, True),
    "anatomy.tasks.digits.logits_of": lambda: call(digits_model(), digits_split().test_images, digits_split().test_labels),
    "anatomy.tasks.digits.classification_loss": lambda: call(digits_model(), (digits_split().test_images, digits_split().test_labels)),
    "anatomy.tasks.digits.accuracy": lambda: call(digits_model(), digits_split().test_images, digits_split().test_labels),
    "anatomy.tasks.digits.pixel_mlp": lambda: call(8, 2, 64, 10),
    "anatomy.tasks.docstring_lm.docstring_config": lambda: call(char_corpus()),
    "anatomy.tasks.docstring_lm.sentence_corpus": lambda: call(["ab c", "cd", "e f", "ba"], 0.5),
    "anatomy.tasks.docstring_lm.windows": lambda: call(torch.arange(20) % 6, 2, 5, torch.Generator().manual_seed(0)),
    "anatomy.tasks.docstring_lm.next_character_loss": lambda: call(gpt(), ids()),
    "anatomy.tasks.docstring_lm.validation_loss": lambda: call(gpt(), ids(shape=(40,))),
    "anatomy.tasks.bigram.bigram_log_probs": lambda: call(char_corpus(), 1.0),
    "anatomy.tasks.bigram.bigram_loss": lambda: call(char_corpus(), 1.0),
    "anatomy.layers.embeddings.check_token_ids": lambda: call(ids(), 20, "input_ids"),
    "anatomy.layers.embeddings.Embeddings": lambda: call(tiny_config()),
    "anatomy.layers.embeddings.check_even_width": lambda: call(8),
    "anatomy.layers.embeddings.SinusoidalEmbeddings": lambda: call(tiny_config()),
    "anatomy.layers.embeddings.LearnedPositionEmbeddings": lambda: call(tiny_config()),
    "anatomy.models.encoder.TransformerEncoderLayer": lambda: call(tiny_config(), False),
    "anatomy.models.encoder.TransformerEncoder": lambda: call(bert_config(), False),
    "anatomy.layers.feedforward.check_hidden_states": lambda: call(torch.randn(2, 3, 16), 16, 3),
    "anatomy.layers.feedforward.FeedForward": lambda: call(tiny_config()),
    "anatomy.generation.greedy.check_generation": lambda: call(transformer(), 6, "greedy_decode", None),
    "anatomy.generation.greedy.greedy_decode": lambda: call(transformer(), ids(shape=(2, 5)), None, 6),
    "anatomy.models.gpt.GPTConfig": lambda: call(20, 16, 2, 1, 32, 16),
    "anatomy.models.gpt.GPT": lambda: call(gpt().config),
    "anatomy.layers.gqa.GroupedQueryAttention": lambda: call(16, 4, 2, 10000.0),
    "anatomy.layers.kv_cache.KVCache": lambda: call(2),
    "anatomy.tasks.linear_probe.sentence_vectors": lambda: call(mlm().encoder, sentence_tokenizer(), ["low lower", "좋아해"], 8, 2),
    "anatomy.models.llama.LlamaConfig": lambda: call(**vars(llama_config())),
    "anatomy.models.llama.LlamaBlock": lambda: call(llama_config()),
    "anatomy.models.llama.Llama": lambda: call(llama_config()),
    "anatomy.tasks.lookback.LookbackConfig": lambda: call(**vars(lookback_config())),
    "anatomy.tasks.lookback.lookback_batches": lambda: call(lookback_config(), 0),
    "anatomy.tasks.lookback.LookbackModel": lambda: call(lookback_config()),
    "anatomy.tasks.lookback.lookback_targets": lambda: call(lookback_tokens(), (1, 2)),
    "anatomy.tasks.lookback.lookback_loss": lambda: call(lookback_model(), lookback_tokens()),
    "anatomy.tasks.lookback.lookback_accuracy": lambda: call(lookback_model(), lookback_tokens()),
    "anatomy.layers.masks.accepted_mask_shapes": lambda: call(3),
    "anatomy.layers.masks.check_mask": lambda: call(torch.ones(3, 5, dtype=torch.bool), (2, 3, 5), None),
    "anatomy.layers.multihead.check_attention_inputs": lambda: call(__import__("anatomy.layers.multihead").layers.multihead.MultiHeadAttention(tiny_config()),
                                                                    torch.randn(2, 3, 16), torch.randn(2, 5, 16), torch.randn(2, 5, 16), None),
    "anatomy.layers.multihead.AttentionHead": lambda: call(16, 8),
    "anatomy.layers.multihead.PerHeadMultiHeadAttention": lambda: call(tiny_config()),
    "anatomy.layers.multihead.MultiHeadAttention": lambda: call(tiny_config()),
    "anatomy.efficient.persistent_memory.feedforward_as_attention": lambda: call(torch.randn(2, 3, 16), feedforward()),
    "anatomy.efficient.persistent_memory.PersistentMemoryAttention": lambda: call(tiny_config(), 4),
    "anatomy.checkpoints.pretrained.looks_like_a_path": lambda: call("./models/bert"),
    "anatomy.efficient.product_keys.check_product_keys": lambda: call(torch.randn(2, 8), torch.randn(4, 4), torch.randn(4, 4)),
    "anatomy.efficient.product_keys.ProductKeyMemory": lambda: call(8, 16, 6, 3),
    "anatomy.layers.rmsnorm.RMSNorm": lambda: call(16, 1e-6),
    "anatomy.models.rnn_seq2seq.RNNConfig": lambda: call(20, 8, 8, 8, 16),
    "anatomy.models.rnn_seq2seq.AdditiveAttention": lambda: call(8, 8, 4),
    "anatomy.models.rnn_seq2seq.GRUSeq2Seq": lambda: call(__import__("anatomy.models.rnn_seq2seq").models.rnn_seq2seq.RNNConfig(20, 8, 8, 8, 16)),
    "anatomy.layers.rotary.check_rotary_inputs": lambda: call(torch.randn(1, 2, 5, 8), torch.arange(5)),
    "anatomy.tasks.sentiment.FineTuningRecipe": lambda: call(16, 2, 1e-4, 0.01, 0.1, 0.5, 0),
    "anatomy.tasks.sentiment.classification_loss": lambda: call(torch.randn(2, 2), torch.tensor([1, 0])),
    "anatomy.tasks.sentiment.sentiment_loss": lambda: call(classifier(), sentiment_batch()),
    "anatomy.tasks.sentiment.predict_probabilities": lambda: call(classifier(), sentence_tokenizer(), ["low lower", "좋아해"], 8, 2),
    "anatomy.tasks.sentiment.accuracy": lambda: call(classifier(), sentence_tokenizer(), reviews(), 8),
    "anatomy.tasks.sentiment.Analyser": lambda: call(classifier(), sentence_tokenizer(), 8),
    "anatomy.tasks.sentiment_batches.pad_batch": lambda: call([[1, 5, 6, 2], [1, 7, 2]], [1, 0], 0, "cpu"),
    "anatomy.tasks.sentiment_batches.tokenize": lambda: call(sentence_tokenizer(), ["low lower", "좋아해"], 8),
    "anatomy.tasks.sentiment_batches.bucketed_batches": lambda: call([[1, 5, 6, 2], [1, 7, 2], [1, 2]], [1, 0, 1], 2, 0, 0, "cpu"),
    "anatomy.tasks.sentiment_batches.batches_by_length": lambda: call(sentence_tokenizer(), ["low lower", "좋아해"], 8, 2, "cpu", [1, 0]),
    "anatomy.corpora.sentiment_data.what_is_wrong": lambda: call(b"<html>not found</html>"),
    "anatomy.layers.swiglu.SwiGLU": lambda: call(16, 32),
    "anatomy.generation.goodness_of_fit.g_test": lambda: call(torch.tensor([30, 50, 20]), torch.tensor([0.3, 0.5, 0.2], dtype=torch.float64), 5.0),
    "anatomy.generation.goodness_of_fit.chi_square_sf": lambda: call(3.0, 2),
    "anatomy.tasks.bigram.BigramLM": lambda: call(char_corpus(), 16, 1.0),
    "anatomy.generation.speculative.speculative_generate": lambda: call(gpt(), gpt(), ids(shape=(1, 4)), 5, 2, True, 0.7, 5, 0.9, None,
                                                                       torch.Generator().manual_seed(0)),
    "anatomy.generation.speculative.check_speculative_call": lambda: call(gpt(), gpt(), ids(shape=(1, 4)), 5, 2, None),
    "anatomy.generation.text_generation.check_generate_call": lambda: call(gpt(), ids(), torch.ones(2, 7, dtype=torch.long), 3, None, 0),
    "anatomy.generation.text_generation.generate": lambda: call(gpt(), ids(shape=(2, 4)), None, 3, True, True, 0.7, 5, 0.9, None, 0,
                                                                torch.Generator().manual_seed(0)),
    "anatomy.efficient.tiled_attention.online_softmax_step": lambda: call(torch.randn(1, 3, 2), torch.randn(1, 2, 4), torch.full((1, 3, 1), -math.inf),
                                                                          torch.zeros(1, 3, 1), torch.zeros(1, 3, 4)),
    "anatomy.models.transformer.check_padding": lambda: call(torch.tensor([[True, True, False]]), ids(shape=(1, 3)), "src_mask", "src_ids"),
    "anatomy.models.transformer.Transformer": lambda: call(tiny_config()),
    "anatomy.models.transformer_config.TransformerConfig": lambda: call(**vars(tiny_config())),
    "anatomy.models.vit.VisionTransformerConfig": lambda: call(**vars(vit_config())),
    "anatomy.models.vit.PatchEmbedding": lambda: call(8, 2, 1, 16),
    "anatomy.models.vit.VisionTransformer": lambda: call(vit_config()),
    "anatomy.tokenizers.wordpiece.WordPieceTokenizer": lambda: call({"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "low": 5, "##er": 6}, True),
    "anatomy.checkpoints.checkpoint_files.unreadable": lambda: call("model.safetensors", OSError("truncated"), "download it again"),
    # 20: instruction tuning
    "anatomy.alignment.chat_template.check_messages": lambda: call(chat()),
    "anatomy.alignment.chat_template.chat_segments": lambda: call(chat(), True),
    "anatomy.alignment.chat_template.render_chat": lambda: call(chat(), False),
    "anatomy.alignment.chat_template.encode_chat": lambda: call(bpe().encode, chat(), True),
    "anatomy.alignment.sft_loss.sft_labels": lambda: call(ids(shape=(2, 5)), answer_mask()),
    "anatomy.alignment.sft_loss.sft_loss": lambda: call(torch.randn(2, 5, 20), ids(shape=(2, 5)).masked_fill(~answer_mask(), -100)),
    "anatomy.alignment.sft_loss.chat_batch": lambda: call([([3, 4, 5], [False, True, True]), ([6, 7], [False, True])], 0),
    "anatomy.alignment.lora.LoRALinear": lambda: call(torch.nn.Linear(8, 6), 2, 4.0, 0.1),
    "anatomy.alignment.lora.add_lora": lambda: call(fresh_gpt(), ["self_attn.q_proj", "feed_forward.linear_1"], 2, 4.0, 0.1),
    "anatomy.alignment.lora.lora_layers": lambda: call(lora_gpt()),
    "anatomy.alignment.lora.merge_lora": lambda: call(lora_gpt()),
    "anatomy.alignment.lora.unmerge_lora": lambda: call(__import__("anatomy.alignment").alignment.merge_lora(lora_gpt())),
    "anatomy.alignment.dpo.frozen_reference": lambda: call(gpt()),
    "anatomy.alignment.dpo.answer_logprobs": lambda: call(torch.randn(2, 5, 20), ids(shape=(2, 5)), answer_mask()),
    "anatomy.alignment.dpo.dpo_loss": lambda: call(*torch.randn(4, 3).unbind(), 0.1),
    "anatomy.alignment.dpo.check_pairs": lambda: call(["<|user|>a", "<|user|>b"], ["<|user|>a", "<|user|>b"]),
    "anatomy.alignment.instruction_data.task_examples": lambda: call("count", 3, "held_out", 1),
    "anatomy.alignment.instruction_data.sentiment_examples": lambda: call(["A fine film.", "Dull."], [1, 0]),
    "anatomy.alignment.instruction_data.check_split": lambda: call("train"),
    "anatomy.alignment.instruction_data.chat": lambda: call("Reverse the letters: abc", "cba"),
    "anatomy.alignment.dpo.preference_loss": lambda: call(gpt(), fresh_gpt(), pair_side(), pair_side(), 0.1),
    "anatomy.alignment.base_corpus.CharTokenizer": lambda: call("\nlower"),
    "anatomy.alignment.base_corpus.build_tokenizer": lambda: call({"docstrings": ["low lower"], "korean": ["좋아해"]}),
    "anatomy.alignment.base_corpus.source_ids": lambda: call(char_tokenizer(), ["low", "lower?"]),
    "anatomy.alignment.base_gpt.base_config": lambda: call(40),
    "anatomy.alignment.base_gpt.mixed_windows": lambda: call({name: ids(9, (30,)) for name in ("docstrings", "reviews", "korean")},
                                                             2, 8, torch.Generator().manual_seed(0)),
    "anatomy.alignment.ngram_baseline.ngram_loss": lambda: call(ids(9, (30,)), ids(9, (10,)), 9, 3, 0.5),
    "anatomy.alignment.exact_match.prompt_ids": lambda: call(char_tokenizer(), ["low?", "lower?"]),
    "anatomy.alignment.exact_match.answer": lambda: call(char_gpt(), char_tokenizer(), ["low?", "lower?"], 3, 1),
    "anatomy.alignment.exact_match.exact_match": lambda: call(["2021-03-03", "cba"], ["2021-03-03", "abc"]),
    "anatomy.alignment.sft_training.check_loss_on": lambda: call("every token"),
    "anatomy.alignment.sft_training.sft_batches": lambda: call(char_tokenizer(), [("low?", "lower", "low"), ("abc?", "cba", "abc")],
                                                               2, "assistant", 1),
}


def reason(text):
    return lambda names: {name: text for name in names}


# 'module.name' -> why the sweep does not call it (every public callable is in EXAMPLES or here).
UNCALLABLE = {
    **reason("a frozen record of what compare_arms computed (its fields come from compare_arms, which checks them)")([
        "anatomy.tasks.arms.ArmComparison"]),
    **reason("a check helper: its `name` argument is the caller's argument, which its message names (tests/test_checks.py)")([
        "anatomy.checks.check_integer", "anatomy.checks.check_number", "anatomy.checks.check_scores",
        "anatomy.models.mlm_masking.check_probability", "anatomy.checks.check_type", "anatomy.checks.check_tensor",
        "anatomy.checks.check_texts", "anatomy.checks.check_vocabulary_ids", "anatomy.interpret.hooks.check_edit",
        "anatomy.interpret.cross_attention.check_field", "anatomy.interpret.cross_attention.check_heads",
        "anatomy.tokenizers.bpe_training.check_vocab_size"]),
    **reason("a config's own check, called from its __post_init__ with itself and its module's ACTIVATIONS "
             "(tests/test_config.py); the configs that call it are swept")(["anatomy.layers.config.check_layer_settings"]),
    **reason("one step of a checked caller, fed only what the caller built (ByteLevelBPE.train, mask_tokens)")([
        "anatomy.tokenizers.bpe_training.count_pairs", "anatomy.tokenizers.bpe_training.learn_merges", "anatomy.tokenizers.bpe_training.merge_word",
        "anatomy.models.mlm_masking.maskable_positions", "anatomy.generation.speculative.verify",
        "anatomy.generation.speculative.forward_last", "anatomy.generation.sampling.pick_next",
        "anatomy.generation.sampling.filtered_probs"]),
    **reason("a per-character predicate (or per-tile, per-beam step) called in a loop by a caller that checks its input once (or per batch: an SFT step)")([
        "anatomy.tokenizers.basic_tokenizer.is_whitespace", "anatomy.tokenizers.basic_tokenizer.is_control", "anatomy.tokenizers.basic_tokenizer.is_punctuation",
        "anatomy.tokenizers.basic_tokenizer.is_cjk", "anatomy.efficient.tiled_attention.tile_positions", "anatomy.generation.beam_search.best_live_score",
        "anatomy.alignment.sft_training.length_groups", "anatomy.alignment.sft_training.batch_loss"]),
    **reason("the rule as notebook 15 shows it (its source is the lesson); encode uses merge_by_rank, swept")([
        "anatomy.tokenizers.bpe.apply_merges"]),
    **reason("Hugging Face's trainer set up for tests and notebook 15's equality cell; HF reports its own errors")([
        "anatomy.tokenizers.bpe_reference.train_hf_byte_level_bpe", "anatomy.tokenizers.bpe_reference.train_hf_character_bpe"]),
    **reason("wraps our tokenizer in Hugging Face's, the reference for tests/test_alignment.py; HF reports its own errors")([
        "anatomy.tokenizers.bpe_reference.hf_fast_tokenizer"]),
    **reason("a result container (dataclass or exception): its fields are filled by our own code")([
        "anatomy.generation.beam_search.Hypothesis", "anatomy.tasks.dates.TranslationBatch", "anatomy.models.decoder.DecoderOutput",
        "anatomy.tasks.digits.DigitsSplit", "anatomy.tasks.char_corpus.CharCorpus", "anatomy.models.encoder.EncoderOutput",
        "anatomy.models.gpt.CausalLMOutput", "anatomy.interpret.induction.InductionRun", "anatomy.tasks.sentiment_batches.SentimentBatch",
        "anatomy.corpora.sentiment_data.Reviews", "anatomy.tasks.training.TrainingRun", "anatomy.models.transformer.Seq2SeqOutput",
        "anatomy.models.vit.ImageClassifierOutput", "anatomy.checkpoints.pretrained.HubUnreachableError", "anatomy.interpret.induction.NoFeedForward",
        "anatomy.layers.kv_cache.LayerCache", "anatomy.generation.goodness_of_fit.GTest",
        "anatomy.generation.speculative.SpeculativeOutput", "anatomy.tasks.bigram.BigramCache",
        "anatomy.interpret.cross_attention.Example", "anatomy.corpora.fingerprint.TextsMatch"]),
    **reason("reads or fetches files or the package index (its errors name the file and the command to run)")([
        "anatomy.weights.bert_weights.load_config", "anatomy.weights.bert_weights.read_state_dict", "anatomy.checkpoints.checkpoint_files.read_config",
        "anatomy.checkpoints.checkpoint_files.read_safetensors", "anatomy.checkpoints.checkpoint_files.load_weights_file",
        "anatomy.tokenizers.gpt2_vocab.ranks_path", "anatomy.tokenizers.gpt2_vocab.fetch_gpt2_ranks", "anatomy.tokenizers.gpt2_vocab.gpt2_ranks",
        "anatomy.tokenizers.gpt2_vocab.gpt2_tokenizer", "anatomy.corpora.korean_corpus.corpus_dir", "anatomy.corpora.korean_corpus.fetch_korean_corpus",
        "anatomy.corpora.korean_corpus.korean_documents", "anatomy.corpora.korean_corpus.korean_lines", "anatomy.interpret.logit_lens.load_char_gpt",
        "anatomy.interpret.logit_lens.save_char_gpt", "anatomy.checkpoints.pretrained.default_model_dir", "anatomy.checkpoints.pretrained.resolve_checkpoint",
        "anatomy.checkpoints.pretrained.ensure_available", "anatomy.checkpoints.pretrained.checkpoint_folder", "anatomy.checkpoints.pretrained.load_pretrained",
        "anatomy.tasks.mlm_pretraining.pretraining_texts", "anatomy.corpora.sentiment_data.data_dir", "anatomy.corpora.sentiment_data.reviews_path",
        "anatomy.corpora.sentiment_data.fetch_reviews", "anatomy.corpora.sentiment_data.check_reviews_file",
        "anatomy.corpora.sentiment_data.read_rated_sentences", "anatomy.corpora.sentiment_data.load_reviews", "anatomy.tasks.digits.load_digits_split",
        "anatomy.corpora.stdlib_docstrings.stdlib_sentences", "anatomy.tasks.docstring_lm.docstring_corpus", "anatomy.display.viz.neuron_model",
        "anatomy.display.viz.neuron_view", "anatomy.tasks.dates.all_dates", "anatomy.alignment.base_corpus.base_texts",
        "anatomy.alignment.base_gpt.held_out_losses", "anatomy.alignment.base_gpt.evaluate_base_gpt", "anatomy.alignment.base_gpt.save_base_gpt",
        "anatomy.alignment.base_gpt.load_base_gpt", "anatomy.alignment.exact_match.held_out_tasks",
        "anatomy.alignment.sft_training.training_examples", "anatomy.alignment.sft_training.training_tasks", "anatomy.alignment.exact_match.held_out_scores",
        "anatomy.alignment.sft_training.save_sft_gpt", "anatomy.alignment.sft_training.load_sft_gpt"]),
    **reason("sets up or displays a notebook (no argument to get wrong, or a figure/HTML to look at)")([
        "anatomy.display.notebook.pick_device", "anatomy.display.notebook.seed_everything", "anatomy.display.notebook.quiet_libraries",
        "anatomy.display.notebook.enter_the_english_folder", "anatomy.display.notebook.setup_notebook", "anatomy.display.notebook.show_source",
        "anatomy.display.plots.attention_heatmap", "anatomy.display.plots.attention_heatmaps", "anatomy.display.plots.mask_plot",
        "anatomy.tokenizers.bpe_levels.plot_compression", "anatomy.display.viz.head_view", "anatomy.display.viz.model_view", "anatomy.display.viz.check_layers",
        "anatomy.display.viz.check_views", "anatomy.display.bertviz_offline.offline_html"]),
    **reason("one step of named_head_view (swept), fed the keyword arguments it was given or the names it checked "
             "(tests/test_head_names.py)")([
        "anatomy.display.head_names.view_grid", "anatomy.display.head_names.legend_text",
        "anatomy.display.head_names.legend_html", "anatomy.display.head_names.NamedHeadView"]),
    **reason("trains for seconds to minutes: its arguments are checked by anatomy.tasks.training.train and tests of its own")([
        "anatomy.tasks.copy_task.train_copy", "anatomy.tasks.dates_translator.train_dates", "anatomy.tasks.digits.train_digits",
        "anatomy.tasks.docstring_lm.train_docstring_gpt", "anatomy.tasks.mlm_pretraining.pretrain", "anatomy.tasks.training.train",
        "anatomy.tasks.sentiment.fine_tune", "anatomy.tasks.pretraining_payoff.fine_tuned_accuracy", "anatomy.interpret.induction.train_induction", "anatomy.tasks.pretraining_payoff.tune_recipe",
        "anatomy.interpret.induction_control.train_mixed",
        "anatomy.tasks.pretraining_payoff.payoff",
        "anatomy.tasks.linear_probe.train_probe", "anatomy.tasks.copy_task.accuracy_by_length",
        "anatomy.alignment.base_gpt.pretrain_base_gpt", "anatomy.alignment.sft_training.fine_tune"]),
    **reason("converts a Hugging Face or torch model (tests/test_*_weights.py and the loader tables check these)")([
        "anatomy.weights.gpt2_weights.gpt2_weight_names", "anatomy.weights.gpt2_weights.config_from_gpt2", "anatomy.weights.gpt2_weights.check_gpt2",
        "anatomy.weights.gpt2_weights.gpt_from_gpt2", "anatomy.weights.llama_weights.unscaled_rope", "anatomy.weights.llama_weights.llama_fields",
        "anatomy.weights.llama_weights.their_name", "anatomy.weights.llama_weights.llama_from_hf", "anatomy.weights.vit_weights.hf_vit_name_map",
        "anatomy.weights.vit_weights.load_hf_vit_weights", "anatomy.weights.vit_weights.vit_from_hf", "anatomy.weights.bert_weights.encoder_name_map",
        "anatomy.weights.bert_weights.copy_weights", "anatomy.weights.torch_reference.copy_attention", "anatomy.weights.torch_reference.copy_sublayers",
        "anatomy.weights.torch_reference.to_torch_transformer", "anatomy.checkpoints.pretrained.check_loading_info",
        "anatomy.tokenizers.bpe_reference.hf_merges", "anatomy.tokenizers.bpe_reference.hf_vocab", "anatomy.checkpoints.loader_checks.is_supported",
        "anatomy.checkpoints.loader_checks.check_config_fields", "anatomy.checkpoints.loader_checks.listed", "anatomy.checkpoints.loader_checks.check_weight_names"]),
}


# Arguments the sweep does not vary, with why: a check helper's reference values (the width, size or count it
# checks against) come from the calling code's model or config, never from a user; the value it checks is swept.
FROM_CALLER = {
    **{name: "the size it checks against (or ids, a module, a config the caller checked first) comes from the caller" for name in [
        "anatomy.checks.check_labels.size", "anatomy.checks.check_labels.num_classes", "anatomy.checks.check_batches.size",
        "anatomy.layers.feedforward.check_hidden_states.width", "anatomy.layers.feedforward.check_hidden_states.rank",
        "anatomy.models.decoder_inputs.check_cache.num_layers", "anatomy.layers.embeddings.check_token_ids.vocab_size",
        "anatomy.layers.masks.check_mask.scores_shape", "anatomy.layers.masks.accepted_mask_shapes.rank",
        "anatomy.models.decoder_inputs.decoder_mask.num_new", "anatomy.models.decoder_inputs.decoder_mask.num_keys",
        "anatomy.models.transformer.check_padding.ids", "anatomy.layers.multihead.check_attention_inputs.module",
        "anatomy.models.decoder_inputs.check_decoder_call.config", "anatomy.generation.greedy.check_generation.caller",
        "anatomy.display.head_names.check_names.layers", "anatomy.display.head_names.check_names.heads"]},
}


# --- the rule -------------------------------------------------------------------------------------------
@contextmanager
def time_limit(seconds):
    def stop(*_):
        raise TimeoutError(f"no answer within {seconds} s (a hang, or quadratic work on a small input)")
    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def none_is_documented(parameter: inspect.Parameter) -> bool:
    return parameter.default is None or "None" in str(parameter.annotation)


def mistakes(value, parameter):
    """(label, wrong value) pairs for one argument whose valid value is `value`."""
    found = [] if value is None or none_is_documented(parameter) else [("None", None)]
    if isinstance(value, bool) or callable(value) and not isinstance(value, torch.Tensor):
        return found
    if isinstance(value, (list, tuple)):
        found.append(("an empty sequence", type(value)()))
        if value and all(isinstance(item, str) for item in value):
            found.append(("one str for a list of str", "a text"))
    elif isinstance(value, int):
        found += [("0", 0), ("-1", -1), ("NaN", math.nan), ("inf", math.inf), ("a float for an int", 2.5)]
    elif isinstance(value, float):
        found += [("0", 0.0), ("-1", -1.0), ("NaN", math.nan), ("inf", math.inf)]
    elif isinstance(value, torch.Tensor):
        found += [("one dimension more", value[None]),
                  ("the other dtype", value.long() if value.is_floating_point() else value.float())]
    return found


def has_nan(result, depth=0) -> bool:
    if depth > 4:
        return False
    if isinstance(result, torch.Tensor):
        return bool(result.is_floating_point() and result.isnan().any())
    if isinstance(result, float):
        return math.isnan(result)
    if isinstance(result, dict):
        return any(has_nan(item, depth + 1) for item in result.values())
    if isinstance(result, (list, tuple)):
        return any(has_nan(item, depth + 1) for item in result[:1000])
    if is_dataclass(result) and not isinstance(result, type):
        return any(has_nan(getattr(result, f.name), depth + 1) for f in fields(result))
    return False


def resolve(name: str):
    module_name, _, rest = name.partition(".")
    module = importlib.import_module(module_name)
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:split]))
            break
        except ImportError:
            continue
    obj = module
    for attribute in parts[split:]:
        obj = getattr(obj, attribute)
    return obj


def example(name):
    built = EXAMPLES[name]()
    if len(built) == 3:
        return built
    return resolve(name), *built


def outcome(fn, args, kwargs, argument: str | None) -> str | None:
    """None if the call keeps the rule, else what went wrong. argument=None: the valid call, which must not raise."""
    try:
        with time_limit(SECONDS_PER_CALL), torch.no_grad():
            result = fn(*args, **kwargs)
            if inspect.isgenerator(result):
                result = next(result)
    except (TypeError, ValueError) as error:
        return (None if argument is not None and argument in str(error)
                else f"{type(error).__name__} not naming {argument!r}: {str(error)[:200]}")
    except Exception as error:  # noqa: BLE001 - the sweep reports every other kind
        return f"{type(error).__name__} (not a TypeError or ValueError): {str(error)[:200]}"
    return "a result holding NaN" if has_nan(result) else None


def test_every_public_callable_has_an_example_or_a_reason():
    found = set(public_callables())
    missing = sorted(found - {*EXAMPLES, *UNCALLABLE})
    assert not missing, f"public callables without a valid example call in EXAMPLES or a reason in UNCALLABLE: {missing}"
    stale = sorted(entry for entry in {*EXAMPLES, *UNCALLABLE}
                   if not any(entry == name or entry.startswith(name + ".") for name in found))
    assert not stale, f"entries for callables that no longer exist: {stale}"
    assert not set(EXAMPLES) & set(UNCALLABLE), sorted(set(EXAMPLES) & set(UNCALLABLE))
    unknown = sorted(entry for entry in FROM_CALLER if entry.rpartition(".")[0] not in EXAMPLES)
    assert not unknown, f"FROM_CALLER entries for callables without an example: {unknown}"


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_mistake_is_refused_by_name_or_gives_a_valid_result(name):
    fn, args, kwargs = example(name)
    valid = outcome(fn, args, kwargs, None)
    assert valid is None, f"the valid example call of {name} itself fails: {valid}"
    target = fn.__init__ if inspect.isclass(fn) else fn.forward if isinstance(fn, torch.nn.Module) else fn
    signature = inspect.signature(target)
    bound = signature.bind(*([None] if inspect.isclass(fn) and "self" in signature.parameters else []), *args, **kwargs)
    problems = []
    for argument, value in bound.arguments.items():
        if (argument == "self" or signature.parameters[argument].kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
                or f"{name}.{argument}" in FROM_CALLER):
            continue
        for label, wrong in mistakes(value, signature.parameters[argument]):
            fn, args, kwargs = example(name)  # fresh: a call may change its inputs in place
            call_bound = signature.bind(*([None] if "self" in signature.parameters and inspect.isclass(fn) else []),
                                        *args, **kwargs)
            call_bound.arguments[argument] = wrong
            call_args = call_bound.args[1:] if inspect.isclass(fn) and "self" in signature.parameters else call_bound.args
            problem = outcome(fn, call_args, call_bound.kwargs, argument)
            if problem:
                problems.append(f"{argument}={label}: {problem}")
    assert not problems, f"{name}:\n  " + "\n  ".join(problems)
