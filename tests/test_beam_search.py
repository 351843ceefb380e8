"""Beam search against exhaustive search on a tiny vocabulary, and against greedy decoding at width 1."""
from itertools import product
from types import SimpleNamespace

import pytest
import torch

from anatomy.generation.beam_search import beam_search
from anatomy.tasks.dates import CharVocabulary, date_pairs, make_batch
from anatomy.tasks.dates_translator import DATES_MODEL_DIR
from anatomy.generation.greedy import greedy_decode
from anatomy.models.transformer import Transformer, TransformerConfig

PAD, BOS, EOS = 0, 1, 2
WORDS = tuple(range(5))  # every token a tiny model can write


def tiny_model(seed):
    torch.manual_seed(seed)
    config = TransformerConfig(vocab_size=5, hidden_size=16, num_attention_heads=2, intermediate_size=32,
                               num_encoder_layers=1, num_decoder_layers=1, hidden_dropout_prob=0.0,
                               max_position_embeddings=16)
    return Transformer(config).eval()


@torch.no_grad()
def exhaustive_best(model, src_ids, max_length, length_penalty, words=WORDS):
    """Score every possible output (EOS only at its end, or cut at max_length) with teacher forcing."""
    memory, _ = model.encode(src_ids)
    best, best_score = None, float("-inf")
    for length in range(1, max_length + 1):
        for tokens in product(words, repeat=length):
            if EOS in tokens[:-1]:
                continue
            logits = model.decode(torch.tensor([[BOS, *tokens[:-1]]]), memory).logits[0]  # (T, V)
            log_prob = logits.log_softmax(-1).gather(-1, torch.tensor(tokens)[:, None]).sum().item()
            ends = tokens[-1] == EOS or length == max_length
            if ends and log_prob / length ** length_penalty > best_score:
                best, best_score = list(tokens), log_prob / length ** length_penalty
    return best, best_score


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("length_penalty", [0.0, 1.0])
def test_a_wide_enough_beam_finds_the_exhaustive_best(seed, length_penalty):
    model = tiny_model(seed)
    src_ids = torch.randint(3, 5, (1, 4), generator=torch.Generator().manual_seed(seed))
    best, score = exhaustive_best(model, src_ids, 3, length_penalty)
    found = beam_search(model, src_ids, beam_width=5 ** 3, max_length=3, length_penalty=length_penalty)
    assert found.tokens == best
    assert found.score(length_penalty) == pytest.approx(score, abs=1e-5)


def test_width_one_is_greedy_on_the_trained_translator():
    model, vocab = Transformer.from_pretrained(DATES_MODEL_DIR), CharVocabulary()
    batch = make_batch(date_pairs(40, "held_out", seed=5), vocab)
    greedy = greedy_decode(model, batch.src_ids, batch.src_mask, max_length=16)
    for row in range(40):
        real = batch.src_mask[row].bool()
        found = beam_search(model, batch.src_ids[row:row + 1, real], beam_width=1, max_length=16)
        assert found.tokens == greedy[row, :len(found.tokens)].tolist()
        assert found.tokens[-1] == vocab.eos_id


@pytest.mark.parametrize("seed", range(4))
def test_width_one_is_greedy_on_random_models(seed):
    model = tiny_model(seed)
    src_ids = torch.randint(3, 5, (1, 6), generator=torch.Generator().manual_seed(seed))
    greedy = greedy_decode(model, src_ids, max_length=8)[0].tolist()
    found = beam_search(model, src_ids, beam_width=1, max_length=8).tokens
    assert found == greedy[:len(found)] and (found[-1] == EOS or len(found) == 8)


def test_bad_widths_and_batches_raise():
    model = tiny_model(0)
    with pytest.raises(ValueError, match=r"beam_width must be an integer >= 1, got 0"):
        beam_search(model, torch.ones(1, 3, dtype=torch.long), beam_width=0, max_length=8)
    with pytest.raises(ValueError, match=r"src_ids must be \(1, Ts\)"):
        beam_search(model, torch.ones(2, 3, dtype=torch.long), max_length=8)


A, B = 3, 4
NEXT_TOKEN = {(): {EOS: 0.5, A: 0.3, B: 0.2}, (A,): {A: 0.98}, (B,): {EOS: 0.9}, (A, A): {EOS: 0.98}}


class TableModel:
    """A hand-built decoder: the next-token probabilities depend only on the tokens written so far
    (NEXT_TOKEN; the leftover probability is shared by the other tokens, everything else is uniform).
    Ending at once (<eos>, score log 0.5 = -0.69) is the likeliest first step, but A A <eos> scores
    (log 0.3 + 2 log 0.98) / 3 = -0.41 under length normalisation and ends only at step 3."""

    config = SimpleNamespace(bos_token_id=BOS, eos_token_id=EOS)

    def encode(self, src_ids, src_mask=None):
        return torch.zeros(1, 1, 1), None

    def decode(self, ids, memory, memory_mask=None):
        rows = [[self.next_token_probs(tuple(row[1:t + 1])) for t in range(len(row))] for row in ids.tolist()]
        return SimpleNamespace(logits=torch.tensor(rows).log())  # (K, T, V)

    @staticmethod
    def next_token_probs(written):
        listed = NEXT_TOKEN.get(written, {})
        leftover = max(1.0 - sum(listed.values()), 0.01) / (len(WORDS) - len(listed))
        return [listed.get(token, leftover) for token in WORDS]


def test_an_early_unlikely_ending_does_not_stop_the_search():
    """Regression: stopping as soon as k hypotheses had ended returned [<eos>] here (two endings by step 2)."""
    model, src_ids = TableModel(), torch.zeros(1, 1, dtype=torch.long)
    best, score = exhaustive_best(model, src_ids, 4, 1.0)
    assert best == [A, A, EOS]
    found = beam_search(model, src_ids, beam_width=2, max_length=4, length_penalty=1.0)
    assert found.tokens == best
    assert found.score(1.0) == pytest.approx(score, abs=1e-6)


def test_a_decoder_only_model_is_refused():
    from anatomy.models.gpt import GPT, GPTConfig

    gpt = GPT(GPTConfig(vocab_size=5, hidden_size=16, num_attention_heads=2, num_hidden_layers=1,
                        intermediate_size=32, max_position_embeddings=16))
    with pytest.raises(TypeError, match=r"beam_search needs model to be an anatomy.Transformer .*got GPT; it looks decoder-only: "
                                        r"use anatomy.generate\(model, input_ids\)"):
        beam_search(gpt, torch.ones(1, 3, dtype=torch.long))


def test_past_the_window_nan_logits_and_bad_settings_are_refused():
    model, src = tiny_model(0), torch.ones(1, 3, dtype=torch.long)
    with pytest.raises(ValueError, match=r"max_length \(32\) must be at most the model's max_position_embeddings \(16\)"):
        beam_search(model, src)
    with pytest.raises(ValueError, match="length_penalty must be a finite number, got nan"):
        beam_search(model, src, max_length=8, length_penalty=float("nan"))
    with pytest.raises(ValueError, match=r"beam_width must be an integer >= 1, got 2.5"):
        beam_search(model, src, max_length=8, beam_width=2.5)
    with pytest.raises(ValueError, match=r"row\(s\) \[0\] of src_mask are all padding"):
        beam_search(model, src, torch.zeros(1, 3, dtype=torch.bool), max_length=8)
    with torch.no_grad():
        model.lm_head.weight[3] = float("nan")
    with pytest.raises(ValueError, match=r"logits hold NaN, \+inf, or only -inf in row\(s\) \[0\]"):
        beam_search(model, src, max_length=8)
