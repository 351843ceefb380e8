"""anatomy.corpora.fingerprint: the record of which texts made notebook 16's shipped files, and the decision
the notebook takes from it (the same texts: reproduce exactly; others: say which source differs)."""
import hashlib
import json
import platform
from collections import Counter

import pytest

from anatomy.corpora.fingerprint import compare_texts, source_fingerprint, texts_record
from anatomy.tasks.mlm_pretraining import PRETRAINED_DIR

TEXTS = {"reviews": ["a fine film .", "dull ."], "docstrings": ["Return the number of items.", "Close the file."],
         "korean": ["난 너를 좋아해"]}


@pytest.fixture
def record_on_311(monkeypatch):
    monkeypatch.setattr(platform, "python_version", lambda: "3.11.7")
    record = texts_record(TEXTS)
    monkeypatch.setattr(platform, "python_version", lambda: "3.12.1")
    return record


def test_the_fingerprint_is_sha256_of_the_texts_each_ended_by_a_nul_byte():
    expected = hashlib.sha256("Return the number of items.\0Close the file.\0".encode()).hexdigest()
    assert source_fingerprint(TEXTS["docstrings"]) == {"texts": 2, "sha256": expected}
    assert source_fingerprint([]) == {"texts": 0, "sha256": hashlib.sha256(b"").hexdigest()}
    assert source_fingerprint(["난"])["sha256"] == hashlib.sha256("난".encode("utf-8") + b"\0").hexdigest()


def test_order_and_boundaries_count():
    assert source_fingerprint(["ab", "c"]) != source_fingerprint(["a", "bc"])
    assert source_fingerprint(["a", "b"]) != source_fingerprint(["b", "a"])


def test_the_same_texts_take_the_exact_path(record_on_311):
    match = compare_texts(record_on_311, {name: list(part) for name, part in TEXTS.items()})
    assert match.same and match.differing == ()
    assert match.describe() == "the texts are those the shipped files were made from (Python 3.11): reproduced exactly"


def test_one_changed_text_takes_the_other_path_and_names_its_source(record_on_311):
    changed = {**TEXTS, "docstrings": ["Return the number of items.", "Close the file!"]}
    match = compare_texts(record_on_311, changed)
    assert not match.same and match.differing == ("docstrings",)
    assert match.describe() == ("the docstrings differ from those the shipped files were made from: "
                                "Python 3.12 vs 3.11")
    both = compare_texts(record_on_311, {**changed, "korean": []})
    assert both.differing == ("docstrings", "korean")


def test_a_patch_release_with_other_docstrings_names_both_full_versions(record_on_311, monkeypatch):
    monkeypatch.setattr(platform, "python_version", lambda: "3.11.9")
    match = compare_texts(record_on_311, {**TEXTS, "docstrings": ["Close the file."]})
    assert match.describe() == ("the docstrings differ from those the shipped files were made from: "
                                "Python 3.11.9 vs 3.11.7")


def test_a_source_on_one_side_only_differs(record_on_311):
    assert compare_texts(record_on_311, {**TEXTS, "extra": ["more"]}).differing == ("extra",)
    assert compare_texts(record_on_311, {"reviews": TEXTS["reviews"], "korean": TEXTS["korean"]}).differing == ("docstrings",)


def test_the_record_is_json_and_names_this_python():
    record = texts_record(TEXTS)
    assert json.loads(json.dumps(record)) == record
    assert record["python"] == platform.python_version()
    assert {name: entry["texts"] for name, entry in record["sources"].items()} == {"reviews": 2, "docstrings": 2, "korean": 1}


def test_bad_inputs_name_the_argument():
    with pytest.raises(TypeError, match="record must be the dict texts_record returned"):
        compare_texts(["python", "sources"], TEXTS)
    with pytest.raises(ValueError, match=r"record must hold 'python'.*got the keys \['reviews'\]"):
        compare_texts({"reviews": {}}, TEXTS)
    with pytest.raises(TypeError, match="texts must be a dict of source name -> list of texts, got list"):
        texts_record(["a text"])
    with pytest.raises(ValueError, match="texts is empty"):
        texts_record({})
    with pytest.raises(TypeError, match=r"texts\['korean'\] must be a list of texts, got one str"):
        texts_record({"korean": "난 너를 좋아해"})


def test_the_shipped_log_records_the_texts_that_made_it():
    """training_log.json: the record's counts are the logged ones, and unigram_counts add up to the tokens."""
    log = json.loads((PRETRAINED_DIR / "training_log.json").read_text())
    record = log["texts_record"]
    assert record["python"].startswith("3.11.") and set(record["sources"]) == {"reviews", "docstrings", "korean"}
    assert {name: entry["texts"] for name, entry in record["sources"].items()} == log["texts"]
    assert len(log["unigram_counts"]) == 4000 and sum(log["unigram_counts"]) == log["tokens"]


def test_only_the_docstrings_depend_on_the_python():
    """The reviews and the Korean are the recorded ones on any Python; the docstrings are on the Python that made
    the shipped files (elsewhere notebook 16 takes the other path)."""
    from anatomy.tasks.mlm_pretraining import pretraining_texts

    log = json.loads((PRETRAINED_DIR / "training_log.json").read_text())
    match = compare_texts(log["texts_record"], pretraining_texts())
    same_python = platform.python_version().rsplit(".", 1)[0] == log["texts_record"]["python"].rsplit(".", 1)[0]
    assert match.differing == (() if same_python else ("docstrings",))


def test_texts_metadata_counts_every_token_id():
    from tools.pretrain import texts_metadata
    from anatomy.tasks.mlm_pretraining import pretraining_sequences, train_tokenizer

    every_text = [text for part in TEXTS.values() for text in part]
    tokenizer = train_tokenizer(every_text, vocab_size=280)
    sequences = pretraining_sequences(tokenizer, every_text)
    metadata = texts_metadata(TEXTS, tokenizer, sequences)
    counts = Counter(token for ids in sequences for token in ids)
    assert metadata["unigram_counts"] == [counts[i] for i in range(len(tokenizer))]
    assert metadata["tokens"] == sum(metadata["unigram_counts"]) and metadata["texts"] == {"reviews": 2, "docstrings": 2, "korean": 1}
    assert metadata["texts_record"] == texts_record(TEXTS)
