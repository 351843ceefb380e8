"""From a language model to an assistant: a base model, a chat template, the assistant-only SFT loss and a run of it,
LoRA, DPO.

Taught in: 20_instruction_tuning.
"""
from anatomy.alignment.base_corpus import PAD, RESERVED, SOURCES, UNKNOWN, CharTokenizer, base_texts, build_tokenizer, source_ids
from anatomy.alignment.base_gpt import (BASE_GPT_DIR, BASELINES, base_config, evaluate_base_gpt, held_out_losses,
                                        load_base_gpt, mixed_windows, pretrain_base_gpt, save_base_gpt)
from anatomy.alignment.chat_template import (CHAT_TEMPLATE, END_OF_TURN, ROLES, SPECIAL_TOKENS, chat_segments,
                                             check_messages, encode_chat, render_chat)
from anatomy.alignment.dpo import answer_logprobs, check_pairs, dpo_loss, frozen_reference, preference_loss
from anatomy.alignment.exact_match import ANSWER_FORMS, answer, exact_match, held_out_scores, held_out_tasks, prompt_ids
from anatomy.alignment.instruction_data import (KOREAN_FORMATS, SPLITS, TASKS, chat, check_split,
                                                sentiment_examples, task_examples)
from anatomy.alignment.ngram_baseline import ngram_loss
from anatomy.alignment.lora import LoRALinear, add_lora, lora_layers, merge_lora, unmerge_lora
from anatomy.alignment.sft_loss import IGNORE_INDEX, chat_batch, sft_labels, sft_loss
from anatomy.alignment.sft_training import (LOSS_ON, SFT_GPT_DIR, TRAINING_EXAMPLES, batch_loss, check_loss_on, fine_tune,
                                            length_groups, load_sft_gpt, save_sft_gpt,
                                            sft_batches, training_examples, training_tasks)

__all__ = ["BASE_GPT_DIR", "BASELINES", "evaluate_base_gpt", "ngram_loss", "PAD", "RESERVED", "SOURCES", "UNKNOWN", "CharTokenizer", "answer", "base_config", "base_texts",
           "build_tokenizer", "exact_match", "held_out_losses", "held_out_tasks", "load_base_gpt", "mixed_windows",
           "pretrain_base_gpt", "prompt_ids", "save_base_gpt", "source_ids",
           "CHAT_TEMPLATE", "END_OF_TURN", "IGNORE_INDEX", "KOREAN_FORMATS", "ROLES", "SPECIAL_TOKENS", "SPLITS", "TASKS",
           "chat", "check_split", "sentiment_examples", "task_examples", "LoRALinear", "add_lora",
           "answer_logprobs", "chat_batch", "chat_segments", "check_messages", "check_pairs", "dpo_loss", "encode_chat",
           "frozen_reference", "lora_layers", "merge_lora", "preference_loss", "render_chat", "sft_labels", "sft_loss", "unmerge_lora",
           "LOSS_ON", "SFT_GPT_DIR", "TRAINING_EXAMPLES", "batch_loss", "check_loss_on", "fine_tune", "ANSWER_FORMS", "held_out_scores", "length_groups",
           "load_sft_gpt", "save_sft_gpt", "sft_batches", "training_examples", "training_tasks"]
