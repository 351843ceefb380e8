"""The homework checker: right answers pass, each classic mistake is named, stubs say "not yet implemented"."""
import math
import re

import pytest
import torch
from torch import nn

from anatomy import homework, homework_model
from anatomy.decoder import TransformerDecoderLayer
from anatomy.multihead import MultiHeadAttention
from anatomy.mistakes import MISTAKES


def scores(q, k, scale=True):
    s = q @ k.transpose(-2, -1)
    return s / math.sqrt(q.size(-1)) if scale else s


def attention(q, k, v, key_mask, mistake=None):
    s = scores(q, k, scale=mistake != "no_scaling")
    if mistake != "no_mask":
        s = s.masked_fill(~key_mask[:, None, :], float("-inf"))
    if mistake == "causal":
        s = s.masked_fill(torch.ones(s.shape[-2:]).tril() == 0, float("-inf"))
    weights = torch.softmax(s, dim=-2 if mistake == "softmax_dim" else -1)
    if mistake == "unnormalised":
        weights = weights * 0.9
    return weights @ v, weights


class CrossAttention(nn.Module):
    mistake = None

    def __init__(self, config):
        super().__init__()
        d = config.hidden_size
        self.heads = config.num_attention_heads
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x, memory, key_mask):
        if self.mistake == "swapped":
            x, memory = memory, x
        b, tq, d = x.shape
        split = lambda t: t.view(b, t.size(1), self.heads, d // self.heads).transpose(1, 2)  # noqa: E731
        q, k, v = split(self.q_proj(x)), split(self.k_proj(memory)), split(self.v_proj(memory))
        s = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        if self.mistake != "no_mask" and key_mask is not None:
            s = s.masked_fill(~key_mask[:, None, None, :], float("-inf"))
        if self.mistake == "causal":
            s = s.masked_fill(torch.ones(s.shape[-2:]).tril() == 0, float("-inf"))
        weights = torch.softmax(s, dim=-1)
        attended = weights @ v  # (B, H, Tq, Dh)
        merged = attended.reshape(b, tq, d) if self.mistake == "merge" else attended.transpose(1, 2).reshape(b, tq, d)
        return self.out_proj(merged), weights


def with_mistake(name):
    return type(f"CrossAttention_{name}", (CrossAttention,), {"mistake": name})


SEEDS = [0, 1234]  # the public tests' seed, and a hidden one


@pytest.mark.parametrize("seed", SEEDS)
def test_right_answers_pass(seed):
    homework.check_scores(scores, seed)
    homework.check_masked_attention(attention, seed, queries=4, sources=6)
    homework.check_cross_attention_module(CrossAttention, seed, heads=4, width=16)


@pytest.mark.parametrize("mistake", ["no_scaling", "softmax_dim", "no_mask", "causal"])
def test_attention_mistakes_are_named(mistake):
    with pytest.raises(AssertionError, match=re.escape(MISTAKES[mistake])):
        homework.check_masked_attention(lambda q, k, v, m: attention(q, k, v, m, mistake))


def test_weights_that_do_not_sum_to_one_are_named():
    with pytest.raises(AssertionError, match=r"weights don't sum to 1 .* from 0\.900 to 0\.900"):
        homework.check_masked_attention(lambda q, k, v, m: attention(q, k, v, m, "unnormalised"))


def test_scores_mistakes_are_named_with_the_shape():
    with pytest.raises(AssertionError, match=re.escape(MISTAKES["no_scaling"])):
        homework.check_scores(lambda q, k: scores(q, k, scale=False))
    with pytest.raises(AssertionError, match=r"took Q from the encoder .* have shape \(2, 5, 3\), expected \(2, 3, 5\)"):
        homework.check_scores(lambda q, k: scores(k, q))


@pytest.mark.parametrize("mistake", ["swapped", "no_mask", "causal", "merge"])
def test_module_mistakes_are_named(mistake):
    with pytest.raises(AssertionError, match=re.escape(MISTAKES[mistake])):
        homework.check_cross_attention_module(with_mistake(mistake), heads=2, width=8)


def test_hard_coding_the_public_answer_fails_the_hidden_test():
    public = homework.inputs(0)
    memorised = scores(public[0], public[1])
    homework.check_scores(lambda q, k: memorised, seed=0)
    with pytest.raises(AssertionError):
        homework.check_scores(lambda q, k: memorised, seed=1234, queries=4)


def test_unanswered_questions_say_not_yet_implemented():
    def stub(*args):
        raise NotImplementedError("Question 1")
    with pytest.raises(AssertionError, match="not yet implemented: Question 1"):
        homework.check_scores(stub)


def test_decoder_layer_check_accepts_the_package_layer_and_rejects_pre_ln():
    homework_model.check_decoder_layer(TransformerDecoderLayer)
    with pytest.raises(AssertionError, match=r"differs from the expected values by up to .*post-LN means x = norm\(x \+ sublayer\(x\)\)"):
        homework_model.check_decoder_layer(lambda config: TransformerDecoderLayer(config, norm_first=True))


def test_translation_check_needs_a_swapped_in_layer():
    with pytest.raises(AssertionError, match="still holds anatomy.TransformerDecoderLayer"):
        homework_model.check_translations(lambda model: model)


def test_wrapping_the_package_attention_is_refused():
    class Wrapper(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.inner = MultiHeadAttention(config)

        def forward(self, x, memory, key_mask=None):
            return self.inner(x, memory, mask=None if key_mask is None else key_mask[:, None, None, :])
    with pytest.raises(AssertionError, match="write the attention yourself"):
        homework.check_cross_attention_module(Wrapper)


@pytest.mark.parametrize("mistake, evidence", [
    ("no_scaling", r"your weights peak at \d\.\d{3}, expected \d\.\d{3}: too sharp"),
    ("softmax_dim", r"your rows sum to \d\.\d{3} \.\.\. \d\.\d{3} instead of 1"),
    ("no_mask", r"your weights reach 0\.\d{3} on padded source tokens"),
    ("causal", r"your weights are 0 above the diagonal, where they should reach 0\.\d{3}"),
])
def test_feedback_shows_the_value_that_gave_the_mistake_away(mistake, evidence):
    with pytest.raises(AssertionError, match=evidence):
        homework.check_masked_attention(lambda q, k, v, m: attention(q, k, v, m, mistake))
