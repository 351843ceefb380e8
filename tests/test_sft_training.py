"""Notebook 20's SFT run (anatomy/alignment/sft_training.py, tools/train_sft_gpt.py): the two arms' batches
differ only in their labels, which equal trl's rule (tests/test_alignment.py) on the assistant's tokens; a
batch's length groups give the loss of the one padded batch (sft_loss, checked against trl) for less work; the
shipped fine-tuned model loads and reproduces its recorded exact match (a tolerance of a few prompts: another
CPU can flip a near tie); the record's paired comparisons follow from its per-seed figures; a short run
lowers the held-out assistant loss; every bad input is named. Needs the reviews (make install).
"""
from __future__ import annotations

import copy
import re
import shutil

import pytest
import torch

from anatomy.alignment import (END_OF_TURN, IGNORE_INDEX, PAD, chat, chat_batch, encode_chat, held_out_tasks,
                               load_base_gpt, sft_labels, sft_loss)
from anatomy.alignment.exact_match import ANSWER_FORMS, held_out_scores
from anatomy.alignment.sft_training import (SFT_GPT_DIR, TRAINING_EXAMPLES, batch_loss, fine_tune, length_groups,
                                            load_sft_gpt, sft_batches, training_examples)
from anatomy.tasks.arms import compare_arms

PROMPTS_OF_SLACK = 3  # per task, of 200: greedy answers that a near tie on another CPU may flip


@pytest.fixture(scope="module")
def base():
    model, tokenizer, _ = load_base_gpt()
    return model, tokenizer


@pytest.fixture(scope="module")
def shipped():
    return load_sft_gpt()


def rows(groups):
    """Each chat of a batch's length groups: (its ids, its labels), padding dropped."""
    return [(ids[:int(mask.sum())].tolist(), labels[:int(mask.sum())].tolist())
            for input_ids, attention_mask, group_labels in groups
            for ids, mask, labels in zip(input_ids, attention_mask, group_labels)]


def test_the_two_arms_draw_the_same_chats_and_differ_only_in_their_labels(base):
    _, tokenizer = base
    examples = training_examples(seed=0)
    assistant_groups = next(sft_batches(tokenizer, examples, 8, "assistant", seed=3))
    every_groups = next(sft_batches(tokenizer, examples, 8, "every token", seed=3))
    for _, attention_mask, labels in assistant_groups + every_groups:  # padding is never a label
        assert (labels[attention_mask == 0] == IGNORE_INDEX).all()
    assistant, every = rows(assistant_groups), rows(every_groups)
    assert [ids for ids, _ in assistant] == [ids for ids, _ in every] and len(assistant) == 8
    end = tokenizer.token_to_id(END_OF_TURN)
    for (ids, labels), (_, every_labels) in zip(assistant, every):
        answer_text = tokenizer.decode(ids).split("<|assistant|>")[1]  # the right answer and its <|end|>
        trained = [t for t in labels if t != IGNORE_INDEX]
        assert tokenizer.decode(trained) == answer_text and trained[-1] == end
        assert labels == [IGNORE_INDEX] * (len(ids) - len(trained)) + ids[-len(trained):]  # the answer ends the chat
        assert every_labels == ids  # every real token is a label; padding was dropped by rows()


def test_the_length_groups_give_the_loss_of_one_padded_batch(base):
    model, tokenizer = base
    groups = next(sft_batches(tokenizer, training_examples(seed=0), 64, "assistant", seed=0))
    assert len(groups) == 2 and groups[0][0].size(1) < groups[1][0].size(1) / 2  # dates and the like; reviews
    chats = rows(groups)
    width = max(len(ids) for ids, _ in chats)
    input_ids = torch.tensor([ids + [tokenizer.token_to_id(PAD)] * (width - len(ids)) for ids, _ in chats])
    labels = torch.tensor([labels + [IGNORE_INDEX] * (width - len(labels)) for _, labels in chats])
    attention_mask = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids, _ in chats])
    with torch.no_grad():
        one_batch = sft_loss(model(input_ids, attention_mask=attention_mask).logits, labels)
        assert batch_loss(model, groups).item() == pytest.approx(one_batch.item(), abs=1e-6)
    cells = sum(ids.numel() for ids, _, _ in groups)
    assert cells < 0.7 * input_ids.numel(), (cells, input_ids.numel())


def test_length_groups_cut_where_the_padding_is_least():
    short, long = ([1] * 5, [True] * 5), ([1] * 50, [True] * 50)
    assert [ids.shape for ids, _, _ in length_groups([long, short, short], 0)] == [(2, 5), (1, 50)]
    assert [ids.shape for ids, _, _ in length_groups([short, short], 0)] == [(2, 5)]  # nothing to save: one group


def test_the_training_pool_has_each_task_in_its_share_and_no_held_out_prompt():
    pool = training_examples(seed=0)
    assert len(pool) == sum(TRAINING_EXAMPLES.values())
    held_out = {prompt for examples in held_out_tasks(200).values() for prompt, _, _ in examples}
    assert not held_out & {prompt for prompt, _, _ in pool}
    assert sum(prompt.startswith("Sentiment") for prompt, _, _ in pool) == TRAINING_EXAMPLES["sentiment"]


def test_the_shipped_model_reproduces_its_recorded_scores(base, shipped):
    model, record = shipped
    _, tokenizer = base
    measured = held_out_scores(model, tokenizer, record["held_out_per_task"])
    for task, scores in measured.items():  # seed 0's assistant-only run from the base GPT is the model shipped
        for key, recorded in (("exact_match", record["after"]), ("ended", record["ended"]), ("well_formed", record["well_formed"])):
            assert abs(scores[key] - recorded["assistant"][0][task]) <= PROMPTS_OF_SLACK / record["held_out_per_task"], \
                (task, key, scores[key], recorded["assistant"][0][task])


def test_the_records_comparisons_follow_from_its_runs(shipped):
    _, record = shipped
    assert all(len(record["after"][arm]) == record["seeds"] >= 2 for arm in record["arms"])
    for name, (a, b) in {"assistant_minus_every_token": ("every token", "assistant"),
                         "base_minus_random_weights": ("assistant, from random weights", "assistant")}.items():
        for task, saved in record[name].items():
            comparison = compare_arms([s[task] for s in record["after"][a]], [s[task] for s in record["after"][b]])
            assert (comparison.mean, comparison.half_width) == pytest.approx((saved["mean"], saved["half_width"]))


def test_an_answer_is_in_form_when_it_has_its_tasks_shape():
    right = {"dates": "2021-03-03", "reverse": "cba", "count": "12", "sentiment": "negative"}
    wrong = {"dates": "2021-3-3", "reverse": "cbA", "count": "one", "sentiment": "ne"}
    assert all(re.fullmatch(ANSWER_FORMS[task], text) for task, text in right.items())
    assert not any(re.fullmatch(ANSWER_FORMS[task], text) for task, text in wrong.items())


def test_a_short_run_lowers_the_held_out_assistant_loss(base):
    model, tokenizer = base
    model = copy.deepcopy(model)
    held_out = [example for examples in held_out_tasks(16).values() for example in examples]
    input_ids, attention_mask, assistant_mask = chat_batch(
        [encode_chat(tokenizer.encode, chat(p, r)) for p, r, _ in held_out], tokenizer.token_to_id(PAD))

    def loss() -> float:
        with torch.no_grad():
            return sft_loss(model(input_ids, attention_mask=attention_mask).logits, sft_labels(input_ids, assistant_mask)).item()

    before = loss()
    fine_tune(model, tokenizer, training_examples(seed=0), seed=0, steps=30, batch_size=16)
    assert loss() < before - 1.0, (before, loss())


@pytest.mark.parametrize("call, message", [
    (lambda m, t, e: next(sft_batches(t, e, 4, "prompt", seed=0)), "loss_on must be one of"),
    (lambda m, t, e: next(sft_batches(t, [], 4, "assistant", seed=0)), "non-empty list of"),
    (lambda m, t, e: next(sft_batches(t, [("a", "b")], 4, "assistant", seed=0)), "triples"),
    (lambda m, t, e: next(sft_batches(t, e, 0, "assistant", seed=0)), "batch_size"),
    (lambda m, t, e: next(sft_batches(t, e, 4, "assistant", seed=-1)), "seed"),
    (lambda m, t, e: fine_tune(m, type(t)(t.characters[:-1]), e, steps=1), "different runs"),
    (lambda m, t, e: fine_tune(m, t, e, steps=0), "steps"),
    (lambda m, t, e: fine_tune(m, t, e, steps=1, peak_lr=0), "peak_lr"),
    (lambda m, t, e: held_out_scores(m, t, 0), "count"),
])
def test_bad_inputs_are_named(base, call, message):
    model, tokenizer = base
    with pytest.raises((ValueError, TypeError), match=message):
        call(copy.deepcopy(model), tokenizer, training_examples(seed=0)[:5])


def test_a_missing_or_partial_folder_says_how_to_make_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="make sft-gpt"):
        load_sft_gpt(tmp_path / "nothing")
    folder = tmp_path / "sft_gpt"
    shutil.copytree(SFT_GPT_DIR, folder)
    (folder / "sft_runs.json").unlink()
    with pytest.raises(FileNotFoundError, match="sft_runs.json"):
        load_sft_gpt(folder)
