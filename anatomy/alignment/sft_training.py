"""Supervised fine-tuning, run: the base GPT trained on the instruction tasks' chats, then asked held-out prompts.

Taught in: 20_instruction_tuning.  Shapes: B chats per batch, T tokens (right-padded).
One run is notebook 07's loop as 11 uses it (Adam, warm-up then decay, clipped gradients) on batches drawn from the
whole pool (TRAINING_EXAMPLES per task), so a batch mixes the tasks. Each chat is one user turn and the right
answer; the loss falls on the assistant's tokens (LOSS_ON[0]) or, for comparison, on every real token, prompt
included (LOSS_ON[1]). A chat with a review is about twice as long as a date's and three times a reversal's,
so a batch padded to its longest chat is about half padding; each batch goes through the model as two length
groups instead (`length_groups`). With right padding and the causal mask no real token sees padding, and
`batch_loss` is the mean over both groups' trained tokens: the loss, and so the step, of the one padded batch,
for about 60 % of its positions. `make sft-gpt` (tools/train_sft_gpt.py) runs the arms over several seeds
and ships one model and the record.
"""
from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch

from anatomy.alignment.base_corpus import PAD, CharTokenizer
from anatomy.alignment.chat_template import encode_chat
from anatomy.alignment.exact_match import SENTIMENT_MAX_CHARACTERS
from anatomy.alignment.instruction_data import TASKS, chat, sentiment_examples, task_examples
from anatomy.alignment.sft_loss import IGNORE_INDEX, chat_batch, sft_labels, sft_loss
from anatomy.checkpoints.checkpoint_files import load_weights_file, read_config
from anatomy.checks import check_integer, check_number, check_type
from anatomy.corpora.sentiment_data import load_reviews
from anatomy.models.gpt import GPT, GPTConfig
from anatomy.tasks.training import TrainingRun, train

LOSS_ON = ("assistant", "every token")
# examples per task in the training pool; the dates get the largest share
TRAINING_EXAMPLES = {"dates": 7000, "reverse": 1000, "count": 1000, "sentiment": 1000}
SFT_GPT_DIR = Path(__file__).resolve().parent.parent / "data" / "sft_gpt"
HINT = "run `make sft-gpt` to fine-tune and save it again"
RECIPE = {"steps": 800, "batch_size": 24, "peak_lr": 3e-3, "warmup_steps": 30, "max_grad_norm": 1.0}


def training_tasks(seed: int = 0) -> dict[str, list[tuple[str, str, str]]]:
    """The training pool by task: TRAINING_EXAMPLES[task] (prompt, right, wrong) triples each, from the
    generators' training split, and the first reviews of 09's training split short enough for the context."""
    tasks = {task: task_examples(task, TRAINING_EXAMPLES[task], "train", seed=seed) for task in TASKS}
    reviews = load_reviews("train")
    short = [(text, label) for text, label in zip(reviews.texts, reviews.labels)
             if len(text) <= SENTIMENT_MAX_CHARACTERS][:TRAINING_EXAMPLES["sentiment"]]
    tasks["sentiment"] = sentiment_examples([t for t, _ in short], [y for _, y in short])
    return tasks


def training_examples(seed: int = 0) -> list[tuple[str, str, str]]:
    """training_tasks' pool as one list, the tasks one after another."""
    return [example for examples in training_tasks(seed).values() for example in examples]


def check_loss_on(loss_on: str) -> str:
    if loss_on not in LOSS_ON:
        raise ValueError(f"loss_on must be one of {LOSS_ON} (the assistant's tokens, or every real token), got {loss_on!r}")
    return loss_on


def sft_batches(tokenizer: CharTokenizer, examples: list[tuple[str, str, str]], batch_size: int, loss_on: str,
                seed: int) -> Iterator[list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]]:
    """Endless batches of chats drawn at random, each as its length groups: (input_ids, attention_mask, labels),
    each (B_group, T_group)."""
    check_type("tokenizer", tokenizer, CharTokenizer)
    if not isinstance(examples, list) or not examples or not all(isinstance(e, tuple) and len(e) == 3 for e in examples):
        raise ValueError(f"examples must be a non-empty list of (prompt, right, wrong) triples, got {examples!r:.80}")
    batch_size, loss_on = check_integer("batch_size", batch_size), check_loss_on(loss_on)
    return _batches(tokenizer, examples, batch_size, loss_on, random.Random(check_integer("seed", seed, least=0)))


def length_groups(encoded: list[tuple[list[int], list[bool]]], pad_id: int
                  ) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """encode_chat's pairs sorted by length and cut in two where the padded cells (rows x width, summed) are
    fewest; each group padded as chat_batch does. One group when cutting saves nothing."""
    ordered = sorted(encoded, key=lambda pair: len(pair[0]))
    lengths, rows = [len(ids) for ids, _ in ordered], len(ordered)
    cells = [k * lengths[k - 1] + (rows - k) * lengths[-1] for k in range(1, rows + 1)]  # cut after row k
    cut = 1 + cells.index(min(cells))  # the first of equal cuts
    if cells[cut - 1] == cells[-1]:
        cut = rows  # cutting saves nothing: one group
    return [chat_batch(group, pad_id) for group in (ordered[:cut], ordered[cut:]) if group]


def _batches(tokenizer: CharTokenizer, examples: list[tuple[str, str, str]], batch_size: int, loss_on: str,
             rng: random.Random) -> Iterator[list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]]:
    pad = tokenizer.token_to_id(PAD)
    while True:
        picked = [examples[rng.randrange(len(examples))] for _ in range(batch_size)]
        groups = length_groups([encode_chat(tokenizer.encode, chat(prompt, right)) for prompt, right, _ in picked], pad)
        yield [(input_ids, attention_mask, sft_labels(input_ids, assistant_mask if loss_on == "assistant"
                                                      else attention_mask.bool()))  # labels (B, T)
               for input_ids, attention_mask, assistant_mask in groups]


def batch_loss(model: GPT, batch: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]) -> torch.Tensor:
    """sft_loss over the trained tokens of all of a batch's length groups, as if they were one padded batch."""
    total, count = torch.zeros(()), 0
    for input_ids, attention_mask, labels in batch:
        trained = int((labels[:, 1:] != IGNORE_INDEX).sum())  # what sft_loss averages over
        total = total + sft_loss(model(input_ids, attention_mask=attention_mask).logits, labels) * trained
        count += trained
    return total / count


def fine_tune(model: GPT, tokenizer: CharTokenizer, examples: list[tuple[str, str, str]], loss_on: str = "assistant",
              seed: int = 0, steps: int = RECIPE["steps"], batch_size: int = RECIPE["batch_size"],
              peak_lr: float = RECIPE["peak_lr"]) -> TrainingRun:
    """Fine-tune `model` in place (every weight trains) on chats of `examples`; seed fixes the batches."""
    check_type("model", model, GPT)
    if check_type("tokenizer", tokenizer, CharTokenizer).vocab_size != model.config.vocab_size:
        raise ValueError(f"tokenizer has {tokenizer.vocab_size} ids but model.config.vocab_size is "
                         f"{model.config.vocab_size}: they come from different runs (load both with load_base_gpt)")
    steps, peak_lr = check_integer("steps", steps), check_number("peak_lr", peak_lr, above=0)
    batches = sft_batches(tokenizer, examples, batch_size, loss_on, seed)
    torch.manual_seed(seed)  # dropout, where a config has it
    return train(model, batches, batch_loss, steps, peak_lr=peak_lr, warmup_steps=min(RECIPE["warmup_steps"], steps),
                 max_grad_norm=RECIPE["max_grad_norm"], progress=False)


def save_sft_gpt(model: GPT, record: dict[str, Any], folder: str | Path = SFT_GPT_DIR) -> None:
    """config.json + model.safetensors and sft_runs.json (the record of every run); the characters are the base's."""
    check_type("model", model, GPT).save_pretrained(folder)
    (Path(folder) / "sft_runs.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def load_sft_gpt(folder: str | Path = SFT_GPT_DIR) -> tuple[GPT, dict[str, Any]]:
    """The shipped fine-tuned GPT (eval mode; the base GPT's tokenizer reads it) and the record of the runs."""
    folder = Path(check_type("folder", folder, str, Path))
    model = GPT(read_config(GPTConfig, folder, HINT))
    load_weights_file(model, folder, HINT)
    if not (folder / "sft_runs.json").is_file():
        raise FileNotFoundError(f"{folder} needs sft_runs.json next to the weights; {HINT}")
    return model.eval(), json.loads((folder / "sft_runs.json").read_text(encoding="utf-8"))
