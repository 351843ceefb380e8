"""anatomy.interpret.induction_control: the English rows, the local score on hand-made patterns (brute force),
per-row gains and losses against the whole-batch functions of anatomy.interpret.induction and a row-by-row
reference, and the refusals. The lesson itself (a control in layer 1) is asserted by notebook 17's run."""
import functools

import pytest
import torch
import torch.nn.functional as F

from anatomy.corpora import stdlib_sentences
from anatomy.interpret.induction import ablate_heads, attention_only_model, in_context_gain, repeated_tokens
from anatomy.interpret.induction_control import (folded_text, local_scores, row_gains, row_losses, text_rows,
                                                 train_mixed)


@functools.cache
def text() -> torch.Tensor:
    return folded_text(32, 300)


def test_folded_text_gives_each_character_one_id_and_the_most_frequent_ids_1_upwards():
    raw = " ".join(stdlib_sentences(300)).lower()
    ids = text()
    assert ids.shape == (len(raw),) and ids.min() >= 1 and ids.max() <= 31
    assert torch.equal(ids == 1, torch.tensor([c == " " for c in raw]))  # the space is English's commonest character
    first_id = {}
    for c, i in zip(raw, ids.tolist()):
        assert first_id.setdefault(c, i) == i  # one id per character
    common = [c for c, i in first_id.items() if i < 31]
    assert sorted(first_id[c] for c in common) == list(range(1, 31))  # 30 characters with ids of their own
    counts = {c: raw.count(c) for c in first_id}
    assert all(counts[c] >= counts[d] for c in common for d in first_id if first_id[d] == 31)


def test_text_rows_are_windows_of_the_text_after_a_start_token():
    source = torch.arange(1, 41)  # every id tells its place
    rows = text_rows(5, source, 7, torch.Generator().manual_seed(0))
    assert rows.shape == (5, 7) and (rows[:, 0] == 0).all()
    for row in rows:
        start = int(row[1]) - 2  # row[1:] = source[start + 1 : start + 7]
        assert 0 <= start <= 33 and torch.equal(row[1:], source[start + 1:start + 7])
    with pytest.raises(ValueError, match=r"text must hold at least length \(7\) ids, got 6"):
        text_rows(2, source[:6], 7, torch.Generator())


def test_local_scores_weigh_the_current_and_the_previous_token_on_hand_made_patterns():
    T = 6
    current, previous = torch.eye(T), torch.eye(T).roll(-1, dims=1).tril()
    previous[0, 0] = 1.0
    uniform = torch.tril(torch.ones(T, T)) / torch.arange(1, T + 1)[:, None]
    start = torch.zeros(T, T)
    start[:, 0] = 1.0
    pattern = torch.stack([current, previous, uniform, start])[None, None].expand(1, 2, 4, T, T)  # (L, B, H, T, T)
    expected = torch.tensor([[1.0, 1.0, sum(2 / (t + 1) for t in range(1, T)) / (T - 1), 1 / (T - 1)]])
    torch.testing.assert_close(local_scores(pattern), expected)
    with pytest.raises(ValueError, match="pattern"):
        local_scores(pattern[0])


@pytest.fixture(scope="module")
def model_and_ids():
    torch.manual_seed(0)
    model = attention_only_model(heads=8).eval()
    return model, repeated_tokens(6, 12, 32, torch.Generator().manual_seed(1))


def test_row_gains_average_to_in_context_gain_and_each_row_stands_alone(model_and_ids):
    model, ids = model_and_ids
    for edit in (None, {"blocks.1.z": ablate_heads([0, 5])}):
        gains = row_gains(model, ids, edit)
        assert len(gains) == 6 and len(set(gains)) == 6
        assert sum(gains) / 6 == pytest.approx(in_context_gain(model, ids, edit), abs=1e-5)
        assert [row_gains(model, ids[i:i + 1], edit)[0] for i in range(6)] == pytest.approx(gains, abs=1e-5)
    assert row_gains(model, ids, {"blocks.1.z": ablate_heads([0, 5])}) != pytest.approx(row_gains(model, ids), abs=1e-3)
    with pytest.raises(ValueError, match=r"ids must be repeated rows \(B, 2N \+ 1\) with N >= 3, got \(2, 6\)"):
        row_gains(model, ids[:2, :6])


def test_row_losses_are_each_rows_mean_next_token_loss(model_and_ids):
    model, ids = model_and_ids
    losses = row_losses(model, ids)
    with torch.no_grad():
        reference = [F.cross_entropy(model(ids[i:i + 1]).logits[0, :-1], ids[i, 1:]).item() for i in range(6)]
    assert losses == pytest.approx(reference, abs=1e-5)


def test_train_mixed_trains_on_both_kinds_of_row_and_refuses_what_it_cannot_use():
    model = attention_only_model(heads=8)
    before = row_losses(model, text_rows(16, text(), 25, torch.Generator().manual_seed(3)))
    run = train_mixed(model, text(), steps=40, seed=0)
    after = row_losses(model, text_rows(16, text(), 25, torch.Generator().manual_seed(3)))
    assert len(run.losses) == 40 and sum(after) < sum(before) - 16 * 0.5  # English is learnt: half a nat per row
    with pytest.raises(ValueError, match=r"text_share \(1.0\) must leave at least one repeated row in each batch of 32"):
        train_mixed(model, text(), steps=1, text_share=1.0)
    with pytest.raises(ValueError, match=r"text must hold at least 25 ids, all below the model's vocab_size \(32\); "
                                         r"got 40 ids, the largest 40"):
        train_mixed(model, torch.arange(1, 41), steps=1)
    with pytest.raises(TypeError, match="model"):
        train_mixed(None, text(), steps=1)
