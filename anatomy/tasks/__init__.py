"""Each notebook's task: its data, its batches, its training recipe and its score; and the one training
loop they share.

Taught in: 00_before_transformers (copy), 07_training (dates), 09_fine_tuning (reviews), 11_gpt (docstrings),
13_efficient_attention (look-back), 14_vision_transformer (digits), 16_pretraining (masked-LM pre-training).

Names that more than one module here defines (accuracy, classification_loss, training_batches) are imported from
their module, e.g. anatomy.tasks.digits.accuracy.

mlm_pretraining and pretraining_payoff import a heavy library (transformers), so their names load when first used,
not with `import anatomy`.
"""
import importlib

from anatomy.tasks.arms import ArmComparison, compare_arms, mean_interval
from anatomy.tasks.copy_task import copy_vocabulary, copy_pairs, build_model, build_rnn, train_copy, accuracy_by_length
from anatomy.tasks.dates import all_dates, split_dates, date_pairs, CharVocabulary, TranslationBatch, pad, make_batch
from anatomy.tasks.dates_translator import dates_config, translation_loss, train_dates, translate, exact_match
from anatomy.tasks.digits import DigitsSplit, load_digits_split, shift_randomly, logits_of, train_digits, pixel_mlp
from anatomy.tasks.char_corpus import CharCorpus
from anatomy.tasks.docstring_lm import (docstring_corpus, sentence_corpus, docstring_config, windows,
                                        next_character_loss, train_docstring_gpt, validation_loss, perplexity)
from anatomy.tasks.bigram import bigram_log_probs, bigram_loss, BigramLM, BigramCache
from anatomy.tasks.linear_probe import sentence_vectors, train_probe
from anatomy.tasks.lookback import (LookbackConfig, lookback_batches, LookbackModel, lookback_targets, lookback_loss,
                                    lookback_accuracy)
from anatomy.tasks.sentiment import FineTuningRecipe, sentiment_loss, fine_tune, predict_probabilities, Analyser
from anatomy.tasks.sentiment_batches import SentimentBatch, pad_batch, tokenize, bucketed_batches, batches_by_length
from anatomy.tasks.training import warmup_then_decay, token_cross_entropy, TrainingRun, train

LAZY = (dict.fromkeys(("pretraining_texts", "SentenceTokenizer", "train_tokenizer", "pretraining_sequences",
                   "small_bert_config", "MaskedBatch", "masked_batches", "masked_lm_loss", "pretrain",
                   "unigram_entropy", "blank_log_probs", "fill_in_blank"), "mlm_pretraining")
        | dict.fromkeys(("classifier_from", "fine_tuned_accuracy", "recipe_for", "tune_recipe", "payoff", "paired_gain",
                         "gain_over_random"),
                   "pretraining_payoff"))  # name -> its module


def __getattr__(name: str):
    """The names of mlm_pretraining and pretraining_payoff, imported when first asked for."""
    if name in LAZY:
        return getattr(importlib.import_module(f"{__name__}.{LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
