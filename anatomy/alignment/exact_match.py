"""Asking a model: chat prompts in, greedy answers out, scored by exact match per task.

Taught in: 20_instruction_tuning.  Shapes: B prompts, T prompt tokens (left-padded), N new tokens.
Each prompt is one user turn rendered with the chat template and the generation prompt `<|assistant|>`;
the model writes greedily until it writes `<|end|>` or has written max_new_tokens. Its answer is the text
before `<|end|>` (all of it if it never ends the turn); exact match means that text equals the right answer,
nothing more and nothing less. Checks run once per call, before generating.
"""
from __future__ import annotations

import re

import torch

from anatomy.alignment.base_corpus import PAD, CharTokenizer
from anatomy.alignment.chat_template import END_OF_TURN, encode_chat
from anatomy.alignment.instruction_data import TASKS, sentiment_examples, task_examples
from anatomy.checks import check_integer, check_texts, check_type
from anatomy.corpora.sentiment_data import load_reviews
from anatomy.generation.text_generation import generate
from anatomy.models.gpt import GPT

SENTIMENT_MAX_CHARACTERS = 100  # reviews this short keep a sentiment prompt inside the base model's context
# the form of an answer to each task, right or wrong: an ISO date, letters a-f, a number, a sentiment word
ANSWER_FORMS = {"dates": r"\d{4}-\d{2}-\d{2}", "reverse": r"[a-f]+", "count": r"\d+", "sentiment": r"positive|negative"}


def prompt_ids(tokenizer: CharTokenizer, prompts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
    """input_ids (B, T) and attention_mask (B, T) of the rendered user turns, padded on the left."""
    check_type("tokenizer", tokenizer, CharTokenizer)
    encoded = [encode_chat(tokenizer.encode, [{"role": "user", "content": p}], add_generation_prompt=True)[0]
               for p in check_texts(prompts, "prompts")]
    width, pad = max(len(ids) for ids in encoded), tokenizer.token_to_id(PAD)
    input_ids = torch.tensor([[pad] * (width - len(ids)) + ids for ids in encoded])  # (B, T)
    attention_mask = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for ids in encoded])  # (B, T)
    return input_ids, attention_mask


def answer(model: GPT, tokenizer: CharTokenizer, prompts: list[str], max_new_tokens: int = 24,
           batch_size: int = 64) -> list[str]:
    """The model's greedy answer to each prompt: what it writes before `<|end|>`, in batches of batch_size."""
    check_type("model", model, GPT)
    check_type("tokenizer", tokenizer, CharTokenizer)
    prompts = check_texts(prompts, "prompts")
    check_integer("max_new_tokens", max_new_tokens)
    check_integer("batch_size", batch_size)
    if tokenizer.vocab_size != model.config.vocab_size:
        raise ValueError(f"tokenizer has {tokenizer.vocab_size} ids but model.config.vocab_size is "
                         f"{model.config.vocab_size}: they come from different runs (load both with load_base_gpt)")
    end, pad = tokenizer.token_to_id(END_OF_TURN), tokenizer.token_to_id(PAD)
    answers = []
    for start in range(0, len(prompts), batch_size):
        input_ids, attention_mask = prompt_ids(tokenizer, prompts[start:start + batch_size])
        written = generate(model.eval(), input_ids, attention_mask, max_new_tokens, eos_token_id=end,
                           pad_token_id=pad)[:, input_ids.size(1):]  # (B, <= N)
        for row in written.tolist():
            answers.append(tokenizer.decode(row[:row.index(end)] if end in row else row))
    return answers


def exact_match(answers: list[str], rights: list[str]) -> float:
    """The fraction of answers equal to their right answer, character for character."""
    answers, rights = check_texts(answers, "answers"), check_texts(rights, "rights")
    if len(answers) != len(rights):
        raise ValueError(f"answers and rights must pair one to one, got {len(answers)} answers and {len(rights)} rights")
    return sum(a == r for a, r in zip(answers, rights)) / len(answers)


def held_out_tasks(count: int, seed: int = 0) -> dict[str, list[tuple[str, str, str]]]:
    """`count` held-out (prompt, right, wrong) examples per task: TASKS from their generators' held-out split,
    and 'sentiment' from 09's test reviews of at most SENTIMENT_MAX_CHARACTERS characters (the first `count`)."""
    count = check_integer("count", count)
    tasks = {task: task_examples(task, count, "held_out", seed=seed) for task in TASKS}
    reviews = load_reviews("test")
    short = [(text, label) for text, label in zip(reviews.texts, reviews.labels)
             if len(text) <= SENTIMENT_MAX_CHARACTERS][:count]
    if len(short) < count:
        raise ValueError(f"count must be at most {len(short)} (the short test reviews), got {count}")
    tasks["sentiment"] = sentiment_examples([t for t, _ in short], [y for _, y in short])
    return tasks


def held_out_scores(model: GPT, tokenizer: CharTokenizer, count: int = 200, max_new_tokens: int = 24
                    ) -> dict[str, dict[str, float]]:
    """Per task of held_out_tasks(count): the fractions of greedy answers that are exact matches, that ended
    the turn within max_new_tokens, and that have the task's ANSWER_FORMS form (right or wrong)."""
    scores = {}
    for task, examples in held_out_tasks(check_integer("count", count)).items():
        answers = answer(model, tokenizer, [p for p, _, _ in examples], max_new_tokens=max_new_tokens)
        scores[task] = {
            "exact_match": exact_match(answers, [r for _, r, _ in examples]),
            "ended": sum(len(tokenizer.encode(a)) < max_new_tokens for a in answers) / len(answers),  # <|end|> came
            "well_formed": sum(re.fullmatch(ANSWER_FORMS[task], a) is not None for a in answers) / len(answers)}
    return scores
