import pytest

from anatomy import WordPieceTokenizer, stdlib_sentences
from anatomy.wordpiece import split_punctuation


@pytest.fixture(scope="module")
def ours():
    return WordPieceTokenizer.from_pretrained()


def test_seed_sentence_ids(ours):
    assert ours.encode("time flies like an arrow", add_special_tokens=False)["input_ids"] == \
        [2051, 10029, 2066, 2019, 8612]


def test_matches_hugging_face_on_2000_real_sentences(ours, pretrained):
    hf, _ = pretrained
    sentences = stdlib_sentences(2000)
    assert len(sentences) == 2000
    matches = sum(hf(s).input_ids == ours.encode(s)["input_ids"] for s in sentences)
    print(f"WordPiece match rate vs Hugging Face: {matches}/{len(sentences)} = {matches / len(sentences):.2%}")
    assert matches == len(sentences)


@pytest.mark.parametrize("text", [
    "Tokenization isn't trivial!", "Café naïve résumé", "東京 is big", "tabs\tand\nnewlines",
    "x" * 150, "emoji 🙂 here", "C3PO's 2,000 dollars", "",
])
def test_matches_hugging_face_on_edge_cases(ours, pretrained, text):
    hf, _ = pretrained
    assert ours.tokenize(text) == hf.tokenize(text)
    assert ours.encode(text)["input_ids"] == hf(text).input_ids


def test_sentence_pairs_match_token_type_ids(ours, pretrained):
    hf, _ = pretrained
    first, second = "time flies like an arrow", "fruit flies like a banana"
    expected = hf(first, second)
    encoded = ours.encode(first, second)
    assert encoded["input_ids"] == expected.input_ids
    assert encoded["token_type_ids"] == expected.token_type_ids


def test_greedy_longest_match_and_decode(ours):
    assert ours.wordpiece("tokenization") == ["token", "##ization"]
    ids = ours.encode("Tokenization rocks")["input_ids"]
    assert ours.decode(ids) == "[CLS] tokenization rocks [SEP]"
    assert ours.decode(ids, skip_special_tokens=True) == "tokenization rocks"


def test_split_punctuation():
    assert split_punctuation("arrow!?") == ["arrow", "!", "?"]
    assert split_punctuation("don't") == ["don", "'", "t"]


def test_unknown_ids_are_refused(ours):
    with pytest.raises(ValueError, match=r"outside the vocabulary of 30522"):
        ours.decode([5, 30522])


def test_vocabulary_needs_special_tokens():
    with pytest.raises(ValueError, match=r"special tokens \['\[PAD\]'"):
        WordPieceTokenizer({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "[MASK]": 3})


def test_from_pretrained_needs_a_local_folder(monkeypatch):
    with pytest.raises(ValueError, match="vocab.txt"):
        WordPieceTokenizer.from_pretrained("bert-base-uncased")
