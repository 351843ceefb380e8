"""Speculative decoding is exact: the target's greedy text token for token, and the target's distribution
when sampling (G-tests as in test_sampler_distribution); a broken acceptance rule fails the same tests."""
import pytest
import torch

import test_sampler_distribution as reference  # the plain-Python distributions and the seeds
from anatomy.generation import speculative
from anatomy.generation.goodness_of_fit import g_test
from anatomy.generation.speculative import speculative_generate, verify
from anatomy.generation.text_generation import generate
from anatomy.models.gpt import GPT, GPTConfig
from anatomy.models.transformer import Transformer, TransformerConfig
from anatomy.tasks.docstring_lm import BigramLM, CharCorpus, bigram_log_probs

ALPHA = reference.ALPHA


def tiny_gpt(seed, vocab_size=20, scale=4.0, layers=2):
    torch.manual_seed(seed)
    model = GPT(GPTConfig(vocab_size=vocab_size, hidden_size=32, num_attention_heads=2, num_hidden_layers=layers,
                          intermediate_size=64, max_position_embeddings=64)).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.mul_(scale)  # spread the logits: GPT-2's N(0, 0.02) gives nearly uniform ones
    return model


def perturbed(model, seed, noise):
    """A draft that agrees with the target often, not always: its weights plus noise."""
    draft = tiny_gpt(seed, model.config.vocab_size, layers=model.config.num_hidden_layers)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for mine, theirs in zip(draft.parameters(), model.parameters()):
            mine.copy_(theirs + noise * theirs.std() * torch.randn(theirs.shape, generator=generator))
    return draft


@pytest.fixture(scope="module")
def pair():
    target = tiny_gpt(0)
    return target, perturbed(target, 1, noise=0.3)


def test_greedy_is_the_targets_greedy_text_on_200_prompts(pair):
    target, draft = pair
    generator = torch.Generator().manual_seed(0)
    prompts = {length: torch.randint(0, 20, (25, length), generator=generator) for length in range(1, 9)}  # 8 x 25
    drafted = accepted = bonus_rounds = 0
    for length, rows in prompts.items():
        expected = generate(target, rows, max_new_tokens=12)  # the target alone, 25 prompts at once
        for i, prompt in enumerate(rows):
            k = 1 + (length + i) % 6
            ours = speculative_generate(target, draft, prompt[None], max_new_tokens=12, k=k)
            assert torch.equal(ours.sequence[0], expected[i]), (length, i, k)
            drafted, accepted = drafted + ours.drafted, accepted + ours.accepted
            assert ours.accepted + ours.rejections <= ours.drafted and ours.rejections <= ours.target_calls
            if k == 1:  # a round drafts one token: it ends in a rejection exactly when it keeps none
                assert ours.rejections == ours.target_calls - ours.accepted, (length, i)
            bonus_rounds += ours.target_calls < 12 / k  # fewer calls than rounds of k: some rounds kept all k
    assert 0.2 < accepted / drafted < 0.95, "both paths taken: drafts accepted and drafts rejected"
    assert bonus_rounds > 0


def test_a_perfect_draft_is_always_accepted_and_an_unrelated_one_still_gives_the_targets_text(pair):
    target, _ = pair
    prompt = torch.tensor([[1, 2, 3]])
    same = speculative_generate(target, target, prompt, max_new_tokens=30, k=4)
    assert same.acceptance_rate == 1 and same.target_calls == 6  # 5 tokens per call: 4 drafts + the bonus
    assert same.rejections == 0 and same.examined_acceptance_rate == 1
    unrelated = speculative_generate(target, tiny_gpt(7), prompt, max_new_tokens=30, k=4)
    assert torch.equal(unrelated.sequence, same.sequence) and unrelated.acceptance_rate < 0.5
    assert unrelated.examined_acceptance_rate == unrelated.accepted / (unrelated.accepted + unrelated.rejections)
    assert unrelated.acceptance_rate <= unrelated.examined_acceptance_rate < 1


def test_eos_stops_and_the_cache_rollback_is_what_a_fresh_forward_computes(pair):
    target, draft = pair
    prompt = torch.tensor([[4, 5]])
    full = generate(target, prompt, max_new_tokens=20)
    eos = int(full[0, 8])
    first = int((full[0, 2:] == eos).nonzero()[0]) + 2
    out = speculative_generate(target, draft, prompt, max_new_tokens=20, k=3, eos_token_id=eos).sequence
    assert torch.equal(out, full[:, :first + 1])


# The acceptance rule alone, many rows at once: the first emitted token must follow p, whatever q is.
P = torch.tensor([[0.40, 0.30, 0.15, 0.10, 0.05, 0.00], [0.1, 0.1, 0.2, 0.2, 0.2, 0.2], [0.5, 0.1, 0.1, 0.1, 0.1, 0.1]],
                 dtype=torch.float64)  # the target's p at drafted positions 1, 2 and the bonus position
Q = torch.tensor([[0.05, 0.10, 0.30, 0.25, 0.20, 0.10], [0.3, 0.3, 0.1, 0.1, 0.1, 0.1]], dtype=torch.float64)


def first_tokens(seed, rows=20000):
    generator = torch.Generator().manual_seed(seed)
    drafts = torch.stack([torch.multinomial(q, rows, replacement=True, generator=generator) for q in Q], dim=1)
    accepted, next_token = speculative.verify(P.expand(rows, -1, -1), Q.expand(rows, -1, -1), drafts, True, generator)
    return torch.where(accepted > 0, drafts[:, 0], next_token)  # (rows,)


def accept_always(target_scores, draft_probs, drafts, do_sample, generator=None):
    return torch.full((drafts.size(0),), drafts.size(1)), torch.multinomial(target_scores[:, -1], 1).squeeze(1)


def resample_from_p(target_scores, draft_probs, drafts, do_sample, generator=None):
    right = verify(target_scores, draft_probs, drafts, do_sample, generator)[0]
    at = right[:, None, None].expand(-1, 1, target_scores.size(-1))
    return right, torch.multinomial(target_scores.gather(1, at).squeeze(1), 1, generator=generator).squeeze(1)


def test_the_rule_emits_the_targets_distribution_on_20_seeds():
    p_values = [g_test(torch.bincount(first_tokens(seed), minlength=6), P[0]).p_value for seed in reference.SEEDS]
    assert sum(p < ALPHA for p in p_values) <= reference.ALLOWED_REJECTIONS, p_values  # one of 20 may reject


@pytest.mark.parametrize("broken", [accept_always, resample_from_p])
def test_a_broken_rule_is_rejected_on_every_seed(monkeypatch, broken):
    monkeypatch.setattr(speculative, "verify", broken)
    for seed in reference.SEEDS:
        assert g_test(torch.bincount(first_tokens(seed), minlength=6), P[0]).rejects(ALPHA), seed


# The whole loop, draft and target GPTs with their caches: the first two tokens it writes, as pairs.
RULE = {"temperature": 0.9, "top_k": 5}


def two_token_counts(target, draft, seed, runs=1000):
    generator, prompt = torch.Generator().manual_seed(seed), torch.tensor([[1, 2]])
    counts = torch.zeros(36, dtype=torch.long)
    for _ in range(runs):
        first, second = speculative_generate(target, draft, prompt, max_new_tokens=2, k=2, do_sample=True,
                                             generator=generator, **RULE).sequence[0, 2:].tolist()
        counts[6 * first + second] += 1
    return counts


def exact_two_tokens(target):
    """P(x1, x2) = p(x1 | prompt) p(x2 | prompt, x1), each from the plain-Python reference."""
    with torch.no_grad():
        logits = target(torch.tensor([[1, 2, x] for x in range(6)])).logits.double()  # (6, 3, V)
    first = reference.reference_distribution(logits[0, 1].tolist(), **RULE)
    return torch.cat([first[x] * reference.reference_distribution(logits[x, 2].tolist(), **RULE) for x in range(6)])


@pytest.fixture(scope="module")
def small_pair():
    target = tiny_gpt(3, vocab_size=6, scale=3.0, layers=1)
    return target, perturbed(target, 4, noise=1.0)


def test_the_loop_writes_the_targets_two_token_distribution(small_pair):
    target, draft = small_pair
    for seed in range(2):  # 2 tests: a right loop fails here with probability 0.2 %; no rejection allowed
        assert not g_test(two_token_counts(target, draft, seed), exact_two_tokens(target)).rejects(ALPHA), seed


def test_the_loop_with_a_broken_rule_is_rejected(small_pair, monkeypatch):
    monkeypatch.setattr(speculative, "verify", accept_always)
    target, draft = small_pair
    assert g_test(two_token_counts(target, draft, 0), exact_two_tokens(target)).rejects(ALPHA)


@pytest.mark.parametrize("kwargs, message", [
    ({"k": 0}, r"k must be an integer >= 1, got 0 \(the number of tokens the draft proposes"),
    ({"k": -2}, "k must be an integer >= 1, got -2"), ({"k": 2.5}, "k must be an integer >= 1, got 2.5"),
    ({"do_sample": True, "temperature": 0.0}, "temperature must be a finite number > 0, got 0.0"),
    ({"do_sample": True, "temperature": -1.0}, "temperature must be a finite number > 0, got -1.0"),
    ({"do_sample": True, "top_p": 0.0}, "top_p must be a finite number > 0 and <= 1, got 0.0"),
    ({"do_sample": True, "top_p": 1.01}, "top_p must be a finite number > 0 and <= 1, got 1.01"),
    ({"do_sample": True, "top_k": 0}, r"top_k must be an integer in \[1, 20\], got 0"),
    ({"do_sample": True, "top_k": 21}, r"top_k must be an integer in \[1, 20\], got 21 .*the vocabulary has 20"),
    ({"max_new_tokens": 70}, r"target: the prompt \(2 tokens\) \+ max_new_tokens \(70\) exceed the context window"),
    ({"eos_token_id": 20}, r"target: eos_token_id must be an integer in \[0, 19\], got 20")])
def test_bad_settings_are_named(pair, kwargs, message):
    target, draft = pair
    with pytest.raises(ValueError, match=message):
        speculative_generate(target, draft, torch.tensor([[1, 2]]), **kwargs)


def test_bad_models_and_prompts_are_named(pair):
    target, draft = pair
    with pytest.raises(ValueError, match="draft must share the target's vocabulary: the draft has 21 tokens, the target 20"):
        speculative_generate(target, tiny_gpt(0, vocab_size=21), torch.tensor([[1, 2]]))
    with pytest.raises(ValueError, match=r"one sequence at a time: input_ids must be \(1, T\), got \(2, 2\)"):
        speculative_generate(target, draft, torch.tensor([[1, 2], [3, 4]]))
    with pytest.raises(ValueError, match=r"draft: input_ids must be a \(B, T\) tensor of token ids in \[0, 8\)|draft: .*8"):
        speculative_generate(target, tiny_gpt(0, vocab_size=8), torch.tensor([[1, 12]]))
    seq2seq = Transformer(TransformerConfig(vocab_size=20, hidden_size=16, num_attention_heads=2, intermediate_size=32,
                                            num_encoder_layers=1, num_decoder_layers=1))
    with pytest.raises(TypeError, match="draft: generate writes with decoder-only models"):
        speculative_generate(target, seq2seq, torch.tensor([[1, 2]]))


def test_a_bigram_draft_has_the_models_interface_and_gives_the_targets_text():
    corpus = CharCorpus("\nabcde", torch.tensor([1, 2, 3, 0, 4, 5, 1, 0, 2, 3, 1, 2]), torch.tensor([1, 2, 0]))
    bigram = BigramLM(corpus, max_position_embeddings=64)
    ids = torch.tensor([[1, 2, 3], [4, 0, 5]])
    torch.testing.assert_close(bigram(ids).logits, bigram_log_probs(corpus)[ids])
    target = tiny_gpt(5, vocab_size=6)
    for start in range(6):
        prompt = torch.tensor([[start, (start + 1) % 6]])
        out = speculative_generate(target, bigram, prompt, max_new_tokens=20, k=3)
        assert torch.equal(out.sequence, generate(target, prompt, max_new_tokens=20))
    with pytest.raises(ValueError, match=r"input_ids must .*\[0, 6\)|input_ids.*6"):
        bigram(torch.tensor([[7]]))
