"""Notebook 20's base model (anatomy/alignment/base_corpus.py, base_gpt.py, exact_match.py): the shipped
file loads and reproduces its recorded held-out loss (a loose tolerance, not digit for digit: another CPU
moves the last digits) and n-gram baselines, scored on held-out lines that never occur in training;
the n-gram table equals a direct count; the character vocabulary keeps the chat
template's tokens as reserved ids; greedy answers stop at `<|end|>`; every bad input is named.
Needs the reviews and the Korean corpus (make install), as notebooks 09, 15 and 16 do.
"""
from __future__ import annotations

import json
import math
import platform
import shutil

import pytest
import torch
import torch.nn.functional as F

from anatomy.alignment import (BASE_GPT_DIR, BASELINES, END_OF_TURN, RESERVED, SOURCES, SPECIAL_TOKENS, CharTokenizer,
                               answer, base_config, base_texts, build_tokenizer, chat, evaluate_base_gpt, exact_match,
                               held_out_losses, held_out_tasks, load_base_gpt, mixed_windows, ngram_loss, render_chat,
                               source_ids)
from anatomy.corpora.korean_corpus import korean_lines
from anatomy.corpora.sentiment_data import load_reviews
from anatomy.models.gpt import GPT, GPTConfig

TOLERANCE = 0.03  # nats per character: far above another CPU's rounding, far below what a wrong model or text gives


@pytest.fixture(scope="module")
def shipped():
    return load_base_gpt()


def test_the_shipped_base_gpt_reproduces_its_recorded_figures(shipped):
    model, tokenizer, record = shipped
    figures = evaluate_base_gpt(model, tokenizer)  # what `python -m tools.train_base_gpt --rescore` records
    assert sorted(figures) == sorted(["held_out_characters", "held_out_loss", *BASELINES])
    for name in SOURCES:
        loss = figures["held_out_loss"][name]
        assert loss < min(record[key][name] for key in ("unigram_loss", "bigram_loss", "trigram_loss")), (name, loss)
        if name == "docstrings" and platform.python_version_tuple()[:2] != tuple(record["python"].split(".")[:2]):
            continue  # the running Python's docstrings: another version holds other held-out sentences
        assert figures["held_out_characters"][name] == record["held_out_characters"][name]
        assert abs(figures["held_out_loss"][name] - record["held_out_loss"][name]) < TOLERANCE, (name, figures, record)
        for key in BASELINES:  # counts, not a trained model: only the last digits of a float64 log may move
            assert figures[key][name] == pytest.approx(record[key][name], abs=1e-9), (key, name)


def test_no_held_out_line_occurs_in_training_and_no_line_writes_a_template_token():
    train, held_out = base_texts(), base_texts(held_out=True)
    for name in SOURCES:
        assert len(held_out[name]) > 400 and not set(held_out[name]) & set(train[name]), name
        assert not any(token in line for line in train[name] + held_out[name] for token in SPECIAL_TOKENS), name
    # notebook 20 says so: the bills' boilerplate drops 165 of the 605 held-out Korean lines, one review goes
    assert (len(korean_lines(held_out=True)), len(held_out["korean"])) == (605, 440)
    assert len(load_reviews("validation").texts) - len(held_out["reviews"]) == 1


def direct_ngram_loss(train: str, held_out: str, vocabulary: str, order: int, alpha: float) -> float:
    """The add-alpha n-gram loss by counting substrings one by one (str.count misses overlaps)."""
    def count(text: str, gram: str) -> int:
        return sum(text.startswith(gram, i) for i in range(len(text)))
    total = 0.0
    for i in range(order - 1, len(held_out)):
        context = held_out[i - order + 1:i]
        # a context counts where a character follows it: not at the very end of the training text
        seen = len(train) if order == 1 else count(train[:-1], context)
        total -= math.log((count(train, context + held_out[i]) + alpha) / (seen + alpha * len(vocabulary)))
    return total / (len(held_out) - order + 1)


@pytest.mark.parametrize("order, alpha", [(1, 1.0), (2, 1.0), (3, 1.0), (3, 0.01), (4, 0.5)])
def test_the_ngram_baseline_equals_a_direct_count(order, alpha):
    vocabulary = "abcr d"
    train, held_out = "abracadabra abba cab bad", "cabra dab abc"
    tokenize = lambda text: torch.tensor([vocabulary.index(c) for c in text])  # noqa: E731
    ours = ngram_loss(tokenize(train), tokenize(held_out), len(vocabulary), order, alpha)
    assert ours == pytest.approx(direct_ngram_loss(train, held_out, vocabulary, order, alpha), rel=1e-9)


def test_the_ngram_baseline_refuses_a_text_shorter_than_its_order_and_a_smoothing_of_zero():
    with pytest.raises(ValueError, match="held_out_ids must hold at least order = 3 ids"):
        ngram_loss(torch.arange(5), torch.tensor([1, 2]), 5, 3)
    with pytest.raises(ValueError, match="alpha must be a finite number > 0"):
        ngram_loss(torch.arange(5), torch.arange(5), 5, 2, 0.0)
    with pytest.raises(ValueError, match="order must be an integer >= 1"):
        ngram_loss(torch.arange(5), torch.arange(5), 5, 0)


def test_the_held_out_loss_is_torch_cross_entropy_on_consecutive_windows(shipped):
    model, tokenizer, _ = shipped
    held_out = {name: lines[:40] for name, lines in base_texts(held_out=True).items()}
    ids = source_ids(tokenizer, held_out["korean"])
    length = model.config.max_position_embeddings
    usable = (len(ids) - 1) // length * length
    with torch.no_grad():
        logits = model(ids[:usable].view(-1, length)).logits
    reference = F.cross_entropy(logits.reshape(-1, logits.size(-1)), ids[1:usable + 1]).item()
    assert held_out_losses(model, tokenizer, held_out)["korean"] == pytest.approx(reference, abs=1e-5)


def test_the_shipped_files_are_small_and_hold_no_text():
    assert (BASE_GPT_DIR / "model.safetensors").stat().st_size < 5_000_000
    assert sorted(p.name for p in BASE_GPT_DIR.iterdir()) == ["characters.txt", "config.json", "model.safetensors",
                                                               "pretraining.json"]
    assert len((BASE_GPT_DIR / "characters.txt").read_text(encoding="utf-8")) < 1000  # a vocabulary, not a corpus


def test_the_vocabulary_covers_the_tasks_and_reserves_the_chat_tokens(shipped):
    _, tokenizer, _ = shipped
    assert [tokenizer.token_to_id(token) for token in RESERVED] == list(range(len(RESERVED)))
    assert set(SPECIAL_TOKENS) <= set(RESERVED)
    rendered = render_chat(chat("Write this date as YYYY-MM-DD: 2021년 3월 3일 수요일", "2021-03-03"))
    ids = tokenizer.encode(rendered)
    assert [i for i in ids if i < len(RESERVED)] == [tokenizer.token_to_id(t) for t in
                                                      ("<|user|>", END_OF_TURN, "<|assistant|>", END_OF_TURN)]
    assert tokenizer.decode(ids) == rendered
    unknown = tokenizer.token_to_id("<|unk|>")
    for examples in held_out_tasks(20, seed=1).values():
        for prompt, right, wrong in examples:
            assert unknown not in tokenizer.encode(prompt + right + wrong), prompt
    assert tokenizer.encode("\u2603") == [unknown]  # a snowman is in no source: unknown, not an error
    assert min(tokenizer.encode("<|user|x")) >= len(RESERVED)  # an incomplete token is just characters


def test_a_built_vocabulary_puts_the_line_separator_first_and_each_character_once():
    tokenizer = build_tokenizer({"docstrings": ["Return x.", "좋아"], "korean": ["좋아해\n"]})
    assert tokenizer.characters[0] == "\n" and len(set(tokenizer.characters)) == len(tokenizer.characters)
    assert {"좋", "아", "해", "년", "0"} <= set(tokenizer.characters)


def constant_gpt(tokenizer: CharTokenizer, token: str) -> GPT:
    """A GPT whose every next token is `token`: the final norm's output is a fixed vector that only `token`'s
    (tied) embedding row matches."""
    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=tokenizer.vocab_size, hidden_size=16, num_attention_heads=2, num_hidden_layers=1,
                          intermediate_size=32, max_position_embeddings=64)).eval()
    with torch.no_grad():
        model.final_norm.weight.zero_()
        model.final_norm.bias.zero_()
        model.final_norm.bias[0] = 1.0
        model.token_embeddings.weight[tokenizer.token_to_id(token), 0] = 10.0
    return model


def test_an_answer_is_what_the_model_writes_before_the_end_of_turn_token():
    tokenizer = CharTokenizer("\nabcx")
    prompts = ["abc", "a", "cab"]
    assert answer(constant_gpt(tokenizer, END_OF_TURN), tokenizer, prompts) == ["", "", ""]
    assert answer(constant_gpt(tokenizer, "x"), tokenizer, prompts, max_new_tokens=5) == ["xxxxx"] * 3


def test_batched_answers_equal_one_at_a_time(shipped):
    model, tokenizer, _ = shipped
    prompts = [prompt for examples in held_out_tasks(3, seed=2).values() for prompt, _, _ in examples]
    alone = [answer(model, tokenizer, [prompt], max_new_tokens=12)[0] for prompt in prompts]
    assert answer(model, tokenizer, prompts, max_new_tokens=12, batch_size=5) == alone


def test_exact_match_is_equality_of_the_whole_answer():
    assert exact_match(["2021-03-03", "cba", "2"], ["2021-03-03", "cb", "2"]) == pytest.approx(2 / 3)
    assert exact_match(["2021-03-03 and more"], ["2021-03-03"]) == 0.0


def test_windows_come_from_every_source_and_are_context_long():
    texts = {name: torch.full((50,), i) for i, name in enumerate(SOURCES)}
    batch = next(mixed_windows(texts, 60, 8, torch.Generator().manual_seed(0)))
    assert batch.shape == (60, 9) and set(batch[:, 0].tolist()) == {0, 1, 2}
    assert all(len(set(row)) == 1 for row in batch.tolist())  # a window never crosses sources


def test_the_unigram_baseline_is_the_entropy_of_the_counted_frequencies():
    train_ids, held_out_ids = torch.tensor([0, 0, 1, 2]), torch.tensor([0, 1])
    # add-one counts: 3, 2, 2 of 7
    assert ngram_loss(train_ids, held_out_ids, 3, order=1) == pytest.approx(-(torch.tensor(3 / 7).log() + torch.tensor(2 / 7).log()).item() / 2)


def test_bad_inputs_are_named(shipped, tmp_path):
    model, tokenizer, _ = shipped
    with pytest.raises(ValueError, match="characters must list distinct characters"):
        CharTokenizer("abc")
    with pytest.raises(ValueError, match="characters must list distinct"):
        CharTokenizer("\naa")
    with pytest.raises(TypeError, match="text must be str"):
        tokenizer.encode(3)
    with pytest.raises(ValueError, match=r"ids must be in \[0, "):
        tokenizer.decode([tokenizer.vocab_size])
    with pytest.raises(ValueError, match="token must be one of RESERVED"):
        tokenizer.token_to_id("<|bot|>")
    with pytest.raises(ValueError, match="vocab_size must be an integer >= 7"):
        base_config(3)
    with pytest.raises(ValueError, match="tokenizer has .* ids but model.config.vocab_size"):
        answer(model, CharTokenizer("\nab"), ["a"])
    with pytest.raises(TypeError, match="prompts must be a list of texts"):
        answer(model, tokenizer, "Reverse the letters: abc")
    with pytest.raises(ValueError, match="answers and rights must pair one to one"):
        exact_match(["a"], ["a", "b"])
    with pytest.raises(ValueError, match="count must be an integer >= 1"):
        held_out_tasks(0)
    with pytest.raises(ValueError, match="texts must be a dict with one 1-D id tensor per source"):
        mixed_windows({"docstrings": torch.arange(50)}, 2, 8, torch.Generator())
    with pytest.raises(FileNotFoundError, match="make base-gpt"):
        load_base_gpt(tmp_path / "nothing")


def test_a_shipped_folder_with_a_wrong_or_missing_file_is_named(tmp_path):
    folder = tmp_path / "base_gpt"
    shutil.copytree(BASE_GPT_DIR, folder)
    characters = (folder / "characters.txt").read_text(encoding="utf-8")
    (folder / "characters.txt").write_text(characters[:-1], encoding="utf-8")
    with pytest.raises(ValueError, match="characters.txt must hold vocab_size - 6 reserved ids"):
        load_base_gpt(folder)
    (folder / "characters.txt").write_text(characters, encoding="utf-8")
    record = json.loads((folder / "pretraining.json").read_text(encoding="utf-8"))
    del record["held_out_loss"]["korean"]
    (folder / "pretraining.json").write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(ValueError, match="must record a held_out_loss for each of"):
        load_base_gpt(folder)
    (folder / "pretraining.json").unlink()
    with pytest.raises(FileNotFoundError, match="needs pretraining.json"):
        load_base_gpt(folder)
