"""The dates task: formats, the held-out split, the character vocabulary and batches."""
from datetime import date

import pytest
import torch

from anatomy.tasks.dates import FORMATS, CharVocabulary, date_pairs, make_batch, split_dates


def test_every_format_writes_the_example_its_name_shows():
    example = date(2021, 3, 3)
    for name, write in FORMATS.items():
        assert write(example) == name.removesuffix(" (US)")


def test_two_digit_years_and_ordinals():
    assert FORMATS["03/03/21 (US)"](date(1999, 12, 25)) == "12/25/99"
    assert [FORMATS["3rd of march, 2021"](date(2021, 1, d)).split(" ")[0] for d in (1, 2, 3, 4, 11, 22, 31)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "22nd", "31st"]


def test_held_out_days_never_appear_in_training():
    train, held_out = set(split_dates("train")), set(split_dates("held_out"))
    assert not train & held_out
    assert len(held_out) == (len(train) + len(held_out)) // 10
    assert {target for _, target in date_pairs(2000, "train", seed=3)}.isdisjoint(d.isoformat() for d in held_out)
    assert {target for _, target in date_pairs(500, "held_out", seed=3)} <= {d.isoformat() for d in held_out}


def test_pairs_are_reproducible_and_seeds_differ():
    assert date_pairs(20, seed=5) == date_pairs(20, seed=5)
    assert date_pairs(20, seed=5) != date_pairs(20, seed=6)


def test_unknown_split_is_a_clear_error():
    with pytest.raises(ValueError, match="split must be 'train' or 'held_out', got 'test'"):
        split_dates("test")


def test_vocabulary_round_trip_and_unknown_characters():
    vocab = CharVocabulary()
    assert vocab.decode(vocab.encode("Wednesday, March 3, 2021")) == "Wednesday, March 3, 2021"
    assert vocab.decode([vocab.bos_id] + vocab.encode("2021") + [vocab.eos_id] + vocab.encode("99")) == "2021"
    with pytest.raises(ValueError, match=r"characters \['年'\] are not in the vocabulary"):
        vocab.encode("2021年")


def test_batch_shifts_the_target_by_one_and_masks_padding():
    vocab = CharVocabulary()
    batch = make_batch([("3.3.2021", "2021-03-03"), ("Wednesday, March 3, 2021", "2021-03-03")], vocab)
    assert batch.src_ids.shape == (2, 24) and batch.src_mask[0].sum() == 8
    assert torch.equal(batch.src_mask, batch.src_ids != vocab.pad_id)
    assert batch.tgt_ids[0, 0] == vocab.bos_id and batch.labels[0, -1] == vocab.eos_id
    assert torch.equal(batch.tgt_ids[:, 1:], batch.labels[:, :-1]), "labels are the decoder input, one step ahead"


def test_bad_batches_and_ids_are_named():
    vocab = CharVocabulary()
    with pytest.raises(ValueError, match="pairs must be a non-empty list of \\(source, target\\) string pairs"):
        make_batch([], vocab)
    with pytest.raises(ValueError, match="pairs must be a non-empty list"):
        make_batch("March 3, 2021", vocab)  # a string, not a list of pairs
    with pytest.raises(ValueError, match="pairs must be a non-empty list"):
        make_batch([("March 3, 2021", 20210303)], vocab)
    with pytest.raises(ValueError, match=r"decode takes one sequence of ids in \[0, 70\), got \[500\]"):
        vocab.decode([4, 500])
    with pytest.raises(ValueError, match=r"got \[\[4, 5\]\].*decode each row"):
        vocab.decode(torch.tensor([[4, 5]]))
    with pytest.raises(ValueError, match="count must be an integer >= 0, got -3"):
        date_pairs(-3)


def test_translate_wants_a_list_of_texts():
    from anatomy.tasks.dates_translator import dates_config, translate
    from anatomy.models.transformer import Transformer

    vocab = CharVocabulary()
    with pytest.raises(TypeError, match=r"texts must be a list of strings; for one date pass \['March 3, 2021'\]"):
        translate(Transformer(dates_config(vocab)), "March 3, 2021", vocab)


def test_vocabulary_and_batches_name_a_vocab_or_characters_that_is_wrong():
    # CharVocabulary(None) raised "'NoneType' object is not iterable", make_batch(..., None) an AttributeError (#37)
    with pytest.raises(TypeError, match="characters must be a string of the characters to know, got NoneType"):
        CharVocabulary(None)
    with pytest.raises(TypeError, match="vocab must be CharVocabulary, got NoneType"):
        make_batch([("1 may 2020", "2020-05-01")], None)
