import pytest

from anatomy import WordPieceTokenizer, stdlib_sentences
from anatomy.tokenizers.basic_tokenizer import split_punctuation


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


SPECIAL_TEXTS = ["hello [CLS] world [SEP]", "a [cls] b [Cls] c [SEP]x", "[MASK]ed [PAD] [UNK]", "x[CLS]y",
                 "[ CLS ]", "[CLS][SEP]", "Café [MASK] [mask] [MASK ]", "[[CLS]]", "  [SEP]  ", "[SEP",
                 "I said [UNK] and [unk]!"]


@pytest.mark.parametrize("text", SPECIAL_TEXTS)
def test_special_tokens_in_the_text_match_hugging_face(ours, pretrained, text):
    hf, _ = pretrained
    assert ours.tokenize(text) == hf.tokenize(text)
    assert ours.encode(text)["input_ids"] == hf(text).input_ids
    assert ours.encode(text, text)["input_ids"] == hf(text, text).input_ids


def test_special_tokens_stay_whole_but_casing_variants_do_not(ours):
    assert ours.tokenize("hello [CLS] world") == ["hello", "[CLS]", "world"]
    assert ours.tokenize("[cls]") == ["[", "cl", "##s", "]"]  # HF matches special tokens case-sensitively


def test_decode_accepts_a_1d_tensor_and_says_what_it_takes(ours):
    import numpy as np
    import torch

    ids = ours.encode("Tokenization rocks")["input_ids"]
    assert ours.decode(torch.tensor(ids)) == ours.decode(ids) == ours.decode(np.array(ids)) == ours.decode(tuple(ids))
    with pytest.raises(ValueError, match=r"a 1-D integer tensor, got shape \(1, 5\).*decode each row"):
        ours.decode(torch.tensor([ids]))
    with pytest.raises(ValueError, match=r"got shape \(1,\) and dtype torch.float32"):
        ours.decode(torch.tensor([101.0]))
    with pytest.raises(TypeError, match="ids must be a list of ints or a 1-D integer tensor, got str"):
        ours.decode("101 102")
    with pytest.raises(TypeError, match=r"ids must be ints, got \[\[101, 102\]\]"):
        ours.decode([[101, 102]])
    with pytest.raises(ValueError, match=r"ids \[-1\] are outside the vocabulary of 30522"):
        ours.convert_ids_to_tokens([-1])


def test_text_must_be_a_string(ours):
    with pytest.raises(TypeError, match="text must be a str, got NoneType"):
        ours.encode(None)
    with pytest.raises(TypeError, match="text must be a str, got list"):
        ours.tokenize(["hello", "world"])


def test_a_vocab_that_is_no_dict_is_named():
    # None raised "argument of type 'NoneType' is not iterable" (found by the sweep, #37)
    with pytest.raises(TypeError, match="vocab must be a dict of token -> id, got NoneType"):
        WordPieceTokenizer(None)
    with pytest.raises(ValueError, match=r"vocab lacks the special tokens \['\[MASK\]'\]"):
        WordPieceTokenizer({"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3})
