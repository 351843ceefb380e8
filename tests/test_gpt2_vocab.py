"""anatomy.tokenizers.gpt2_vocab: GPT-2's real vocabulary in our ByteLevelBPE equals OpenAI's tiktoken GPT-2 encoder."""
import random

import pytest
import tiktoken

from anatomy import stdlib_sentences
from anatomy.tokenizers.byte_level import GPT2_SPLIT_PATTERN, random_text
from anatomy.tokenizers.gpt2_vocab import END_OF_TEXT, gpt2_ranks, gpt2_tokenizer, recover_merges
from anatomy.corpora.korean_corpus import korean_lines
from anatomy.corpora.sentiment_data import load_reviews


@pytest.fixture(scope="module")
def ours():
    return gpt2_tokenizer()


@pytest.fixture(scope="module")
def tiktoken_gpt2():
    return tiktoken.Encoding(name="gpt2", pat_str=GPT2_SPLIT_PATTERN, mergeable_ranks=gpt2_ranks(),
                             special_tokens={END_OF_TEXT: 50256})


def test_well_known_ids(ours):
    assert ours.vocab_size == 50257
    assert ours.encode("Hello world") == [15496, 995]  # GPT-2's ids, as every GPT-2 tutorial prints them
    assert ours.encode(END_OF_TEXT) == [50256]


def test_equals_tiktoken_on_english_and_korean_text(ours, tiktoken_gpt2):
    texts = stdlib_sentences(2000) + load_reviews("test").texts + korean_lines(held_out=True)
    for text in texts:
        assert ours.encode(text) == tiktoken_gpt2.encode(text), text
    joined = "\n\n".join(texts[:300]) + END_OF_TEXT + "  tail  "
    assert ours.encode(joined) == tiktoken_gpt2.encode(joined, allowed_special="all")
    assert ours.decode(ours.encode(joined)) == joined


def test_equals_tiktoken_on_random_unicode(ours, tiktoken_gpt2):
    rng = random.Random(50257)
    for _ in range(1000):
        text = random_text(rng, rng.randrange(1, 40))
        assert ours.encode(text) == tiktoken_gpt2.encode(text, disallowed_special=()), repr(text)


def test_recovered_merges_rebuild_every_token(ours):
    merges = recover_merges(gpt2_ranks())
    assert len(merges) == 50256 - 256
    assert all(ours.token_bytes(ours.token_to_id(left + right)) == ours.token_bytes(ours.token_to_id(left)) +
               ours.token_bytes(ours.token_to_id(right)) for left, right in ours.merges)
    assert ours.merges[0] == ("Ġ", "t")  # GPT-2's first merge: a space and "t"


def test_a_token_no_lower_tokens_make_is_refused():
    with pytest.raises(ValueError, match="is not made by merging lower-ranked tokens"):
        recover_merges({b"a": 0, b"b": 1, b"c": 2, b"abc": 3})


@pytest.mark.parametrize("ranks, error, message", [
    ({b"a": 0, b"ab": 1}, ValueError, r"ranks lacks the single byte\(s\) \[b'b'\] of token b'ab' \(rank 1\)"),
    ({b"a": 0, b"b": 1, b"abc": 2, b"ab": 3}, ValueError, r"lacks the single byte\(s\) \[b'c'\]"),
    ({"a": 0}, TypeError, r"ranks must be a dict \{token bytes: rank\}"),
    (None, TypeError, r"ranks must be a dict \{token bytes: rank\} \(gpt2_ranks\(\)\), got NoneType"),
])
def test_recover_merges_refuses_a_table_without_its_bytes(ranks, error, message):
    with pytest.raises(error, match=message):
        recover_merges(ranks)
