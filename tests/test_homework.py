"""The cross-attention homework's checks: right answers pass, each of the 17 classic mistakes is named
with its evidence, library shortcuts and tampering score 0, a mistake costs only its own question.
The student-like implementations here are written independently of anatomy.homework's own."""
import math
import re
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import anatomy
from anatomy.models.decoder import TransformerDecoderLayer
from anatomy.homework import cross_attention as hw
from anatomy.homework import hidden_seed
from anatomy.homework.cross_attention import MISTAKES
from anatomy.homework.secrets import reseed
from forged_answers import DATE_TABLE, NO_ATTENTION_LAYER, NO_ATTENTION_MODULE


def scores(q, k, divide_by=None):
    return q @ k.transpose(-2, -1) / (divide_by or math.sqrt(q.size(-1)))


def attention(q, k, v, key_mask, mistake=None, scale=None):
    s = q @ k.transpose(-2, -1)
    s = s if mistake == "no_scaling" else s / (q.size(-1) if mistake == "scaled_by_d" else scale or math.sqrt(q.size(-1)))
    pad = ~key_mask.bool()
    while pad.dim() < s.dim():
        pad = pad.unsqueeze(-2)  # (B, 1, Ts), or (B, 1, 1, Ts) with heads
    if mistake == "mask_over_queries":
        pad = ~key_mask.bool()[:, :, None]
    if mistake == "inverted_mask":
        s = s.masked_fill(~pad, float("-inf"))
    elif mistake == "additive_inverted":
        s = s + (~pad).float() * -1e9
    elif mistake == "fill_zero":
        s = s.masked_fill(pad, 0.0)
    elif mistake != "no_mask":
        s = s.masked_fill(pad, float("-inf"))
    if mistake == "causal":
        s = s.masked_fill(torch.ones(s.shape[-2:]).tril() == 0, float("-inf"))
    if mistake == "log_softmax":
        weights = F.log_softmax(s, dim=-1)
    else:
        weights = s.softmax(dim=-2 if mistake == "softmax_dim" else 1 if mistake == "softmax_heads" else -1)
    if mistake == "unnormalised":
        weights = weights * 0.9
    if mistake == "added_values":  # the weighted sum written with + where * belongs
        return weights.sum(-1, keepdim=True) + v.sum(-2, keepdim=True), weights
    return weights @ v, weights


class CrossAttention(nn.Module):
    mistake = None

    def __init__(self, config):
        super().__init__()
        d = config.hidden_size
        self.heads = config.num_attention_heads
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x, memory, key_mask=None):
        if self.mistake == "swapped":
            x, memory = memory, x
        if self.mistake == "self_attention":
            memory, key_mask = x, None
        b, tq, d = x.shape
        if self.mistake == "split_no_transpose":
            split = lambda t: t.view(b, self.heads, t.size(1), d // self.heads)  # noqa: E731
        else:
            split = lambda t: t.view(b, t.size(1), self.heads, d // self.heads).transpose(1, 2)  # noqa: E731
        q, k = split(self.q_proj(x)), split(self.k_proj(memory))
        v = split(self.k_proj(memory) if self.mistake == "shared_kv" else self.v_proj(memory))
        if key_mask is None:
            key_mask = torch.ones(b, k.size(2), dtype=torch.bool)
        scale = math.sqrt(d) if self.mistake == "scaled_by_width" else None
        attended, weights = attention(q, k, v, key_mask, self.mistake, scale)  # (B, H, Tq, Dh)
        if self.mistake == "dropout_in_eval":
            attended = F.dropout(weights, 0.5, training=True) @ v
        merged = attended.reshape(b, tq, d) if self.mistake == "merge" else attended.transpose(1, 2).reshape(b, tq, d)
        return (merged if self.mistake == "no_out_proj" else self.out_proj(merged)), weights


def with_mistake(name):
    return type(f"CrossAttention_{name}", (CrossAttention,), {"mistake": name})


class DecoderLayer(nn.Module):
    """A post-LN decoder layer written from the paper, with TransformerDecoderLayer's names."""
    mistake = None

    def __init__(self, config, cross_attention=CrossAttention):
        super().__init__()
        d = config.hidden_size
        self.self_attn = anatomy.MultiHeadAttention(config)
        self.cross_attn = cross_attention(config)
        self.feed_forward = anatomy.FeedForward(config)
        self.layer_norm_1, self.layer_norm_2, self.layer_norm_3 = (nn.LayerNorm(d, eps=1e-5) for _ in range(3))

    def forward(self, x, memory, self_mask=None, memory_mask=None, need_weights=True):
        key_mask = None if memory_mask is None else memory_mask[:, 0, 0, :]
        steps = [("self", self.layer_norm_1), ("cross", self.layer_norm_2), ("ffn", self.layer_norm_3)]
        if self.mistake == "cross_before_self":
            steps[:2] = steps[1::-1]
        if self.mistake == "one_norm":  # one LayerNorm reused for the three sublayers
            steps = [(kind, self.layer_norm_2) for kind, _ in steps]
        weights = {}
        for i, (kind, norm) in enumerate(steps):
            h = norm(x) if self.mistake == "pre_ln" else x
            if kind == "self":
                out, weights["self"] = self.self_attn(h, mask=None if self.mistake == "no_causal" else self_mask)
            elif kind == "cross":
                out, weights["cross"] = self.cross_attn(h, h if self.mistake == "memory_is_x" else memory, key_mask)
            else:
                out = self.feed_forward(h)
            if self.mistake == "pre_ln":
                x = x + out
            elif self.mistake == "norm_outside":
                x = x + norm(out)
            else:
                x = norm(out if self.mistake == f"no_residual_{i}" else x + out)
        return x, weights["self"], weights["cross"]


def layer_with(mistake=None, cross_attention=CrossAttention):
    cls = type(f"DecoderLayer_{mistake}", (DecoderLayer,), {"mistake": mistake})
    return type(cls.__name__, (cls,), {"__init__": lambda self, c: DecoderLayer.__init__(self, c, cross_attention)})


def swap_in_with(layer_class):
    def swap_in(model):
        for i, old in enumerate(model.decoder.layers):
            mine = layer_class(model.config)
            mine.load_state_dict(old.state_dict())
            model.decoder.layers[i] = mine
        return model
    return swap_in


@pytest.mark.parametrize("seed", [0, 1234])
def test_right_answers_pass(seed):
    assert hw.check_scores.feedback(scores, seed) is None
    assert hw.check_masked_attention.feedback(attention, seed, queries=4, sources=6) is None
    assert hw.check_cross_attention_module.feedback(CrossAttention, seed, heads=4, width=16) is None
    assert hw.check_decoder_layer.feedback(DecoderLayer, CrossAttention, seed, heads=4, width=16) is None


def test_the_package_layer_itself_scores_zero_on_question_4():
    feedback = hw.check_decoder_layer.feedback(lambda config: TransformerDecoderLayer(config))
    assert feedback == "uses anatomy.TransformerDecoderLayer: this question asks for your own decoder layer", feedback


MISTAKE_CASES = {  # mistake -> (check, answer, the evidence the feedback must show)
    "no_scaling": (hw.check_scores, lambda q, k: scores(q, k, divide_by=1), r"scores are 2\.828 times"),
    "scaled_by_d": (hw.check_scores, lambda q, k: scores(q, k, divide_by=q.size(-1)), r"scores are 0\.354 times"),
    "swapped": (hw.check_scores, lambda q, k: scores(k, q), r"shape \(2, 5, 3\), expected \(2, 3, 5\)"),
    "softmax_dim": (hw.check_masked_attention, lambda *a: attention(*a, "softmax_dim"), r"rows sum to \d\.\d{3} \.\.\. \d\.\d{3} instead of 1"),
    "log_softmax": (hw.check_masked_attention, lambda *a: attention(*a, "log_softmax"), r"go down to -\d+\.\d{3}; a probability is never negative"),
    "no_mask": (hw.check_masked_attention, lambda *a: attention(*a, "no_mask"), r"reach 0\.\d{3} on padded source tokens"),
    "inverted_mask": (hw.check_masked_attention, lambda *a: attention(*a, "inverted_mask"), r"on padded source tokens and at most 0\.000 on real ones"),
    "causal": (hw.check_masked_attention, lambda *a: attention(*a, "causal"), r"0 above the diagonal, where they should reach 0\.\d{3}"),
    "added_values": (hw.check_masked_attention, lambda *a: attention(*a, "added_values"), r"all 3 queries get the same output row"),
    "merge": (hw.check_cross_attention_module, with_mistake("merge"), r"your output\[\d, \d, \d\] is -?\d\.\d{3} where -?\d\.\d{3} was expected"),
    "split_no_transpose": (hw.check_cross_attention_module, with_mistake("split_no_transpose"), r"your weights\[[\d, ]+\] is"),
    "shared_kv": (hw.check_cross_attention_module, with_mistake("shared_kv"), r"your output\[[\d, ]+\] is"),
    "no_out_proj": (hw.check_cross_attention_module, with_mistake("no_out_proj"), r"your output\[[\d, ]+\] is"),
    "dropout_in_eval": (hw.check_cross_attention_module, with_mistake("dropout_in_eval"), r"two calls on the same inputs in eval mode give outputs that differ by up to \d\.\d{3}"),
    "pre_ln": (hw.check_decoder_layer, layer_with("pre_ln"), r"your layer output\[[\d, ]+\] is"),
    "no_residual": (hw.check_decoder_layer, layer_with("no_residual_1"), r"your layer output\[[\d, ]+\] is"),
    "cross_before_self": (hw.check_decoder_layer, layer_with("cross_before_self"), r"your layer output\[[\d, ]+\] is"),
    "k_T_3d": (hw.check_scores, lambda q, k: q @ k.T / math.sqrt(q.size(-1)),
               r"crashed on the test's shapes"),
    "fill_zero": (hw.check_masked_attention, lambda *a: attention(*a, "fill_zero"), r"reach 0\.\d{3} on padded source tokens"),
    "additive_inverted": (hw.check_masked_attention, lambda *a: attention(*a, "additive_inverted"), r"on padded source tokens and at most"),
    "mask_over_queries": (hw.check_masked_attention, lambda *a: attention(*a, "mask_over_queries"), r"whole query rows .* are 0"),
    "scaled_by_width": (hw.check_cross_attention_module, with_mistake("scaled_by_width"), r"weights peak at 0\.\d{3}, expected"),
    "softmax_heads": (hw.check_cross_attention_module, with_mistake("softmax_heads"), r"sum to 1 over the 2 heads"),
    "self_attention": (hw.check_cross_attention_module, with_mistake("self_attention"), r"shape \(2, 2, 3, 3\), expected \(2, 2, 3, 5\)"),
    "norm_outside": (hw.check_decoder_layer, layer_with("norm_outside"), r"your layer output\[[\d, ]+\] is"),
    "one_norm": (hw.check_decoder_layer, layer_with("one_norm"), r"your layer output\[[\d, ]+\] is"),
    "no_causal": (hw.check_decoder_layer, layer_with("no_causal"), r"your layer output\[[\d, ]+\] is"),
    "memory_is_x": (hw.check_decoder_layer, layer_with("memory_is_x"), r"crashed on the test's shapes"),
}


def test_at_least_twenty_seven_named_mistakes_each_with_a_case():
    assert len(MISTAKES) >= 27 and set(MISTAKE_CASES) == set(MISTAKES)


@pytest.mark.filterwarnings("ignore:The use of `x.T`")
@pytest.mark.parametrize("mistake", sorted(MISTAKE_CASES))
def test_each_mistake_is_named_with_its_evidence(mistake):
    check, answer, evidence = MISTAKE_CASES[mistake]
    feedback = check.feedback(answer)
    assert feedback is not None and feedback.startswith(MISTAKES[mistake].words), feedback
    assert re.search(evidence, feedback), feedback
    assert "File " not in feedback and "line " not in feedback, "feedback never shows the checker's source"


@pytest.mark.parametrize("skip", [0, 2])
def test_every_missing_residual_is_named(skip):
    assert MISTAKES["no_residual"].words in hw.check_decoder_layer.feedback(layer_with(f"no_residual_{skip}"))


def test_weights_that_do_not_sum_to_one_are_reported():
    feedback = hw.check_masked_attention.feedback(lambda *a: attention(*a, "unnormalised"))
    assert re.search(r"weights don't sum to 1 .* from 0\.900 to 0\.900", feedback), feedback


def test_unanswered_questions_say_not_yet_implemented_and_print(capsys):
    def stub(*args):
        raise NotImplementedError("Question 1")
    hw.check_scores(stub)
    assert capsys.readouterr().out == "not yet implemented: Question 1\n"
    hw.check_scores(scores)
    assert capsys.readouterr().out == "", "a right answer prints nothing (otter expects no output)"


def test_hard_coding_the_public_answer_fails_the_hidden_test():
    public = hw.inputs(0)
    memorised = scores(public[0], public[1])
    assert hw.check_scores.feedback(lambda q, k: memorised, seed=0) is None
    assert hw.check_scores.feedback(lambda q, k: memorised, seed=1234, queries=4) is not None


@pytest.mark.parametrize("answer, used", [
    (lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m[:, None, :]), "F.scaled_dot_product_attention"),
    (lambda q, k, v, m: anatomy.scaled_dot_product_attention(q, k, v, m[:, None, :]), "anatomy.scaled_dot_product_attention"),
])
def test_library_attention_scores_zero_on_question_2(answer, used):
    assert hw.check_masked_attention.feedback(answer) == f"uses {used}: this question asks you to write the attention yourself"


class TorchMHA(CrossAttention):
    def forward(self, x, memory, key_mask=None):
        mha = nn.MultiheadAttention(x.size(-1), self.heads, batch_first=True)
        return mha(x, memory, memory, key_padding_mask=None if key_mask is None else ~key_mask)


class FunctionalMHA(CrossAttention):
    def forward(self, x, memory, key_mask=None):
        d = x.size(-1)
        out, w = F.multi_head_attention_forward(
            x.transpose(0, 1), memory.transpose(0, 1), memory.transpose(0, 1), d, self.heads, None, None, None, None,
            False, 0.0, self.out_proj.weight, self.out_proj.bias, use_separate_proj_weight=True,
            q_proj_weight=self.q_proj.weight, k_proj_weight=self.k_proj.weight, v_proj_weight=self.v_proj.weight,
            key_padding_mask=None if key_mask is None else ~key_mask, average_attn_weights=False)
        return out.transpose(0, 1), w


class PackageMHAInsideForward(CrossAttention):
    def forward(self, x, memory, key_mask=None):
        inner = anatomy.MultiHeadAttention(type("C", (), {"hidden_size": x.size(-1), "num_attention_heads": self.heads}))
        inner.load_state_dict(self.state_dict())
        return inner(x, memory, mask=None if key_mask is None else key_mask[:, None, None, :])


@pytest.mark.parametrize("module, used", [(TorchMHA, "nn.MultiheadAttention"),
                                          (FunctionalMHA, "F.multi_head_attention_forward"),
                                          (PackageMHAInsideForward, "anatomy.MultiHeadAttention")])
def test_library_attention_scores_zero_on_question_3(module, used):
    feedback = hw.check_cross_attention_module.feedback(module)
    assert feedback == f"uses {used}: this question asks you to write the attention yourself", feedback


def test_subclassing_or_wrapping_the_package_layer_scores_zero_on_questions_4_and_5():
    class Subclass(TransformerDecoderLayer):
        pass
    assert "subclasses anatomy.TransformerDecoderLayer" in hw.check_decoder_layer.feedback(Subclass)
    assert "subclasses anatomy.TransformerDecoderLayer" in hw.check_translations.feedback(swap_in_with(Subclass), Subclass)

    class Wrapper(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, *args, **kwargs):
            return self.inner(*args, **kwargs)
    feedback = hw.check_translations.feedback(lambda m: [m.decoder.layers.__setitem__(i, Wrapper(old)) for i, old in
                                                         enumerate(m.decoder.layers)] and m, DecoderLayer, CrossAttention)
    assert feedback == "model.decoder.layers[0] is a Wrapper, not your MyDecoderLayer", feedback


def test_a_wrong_cross_attention_costs_only_question_3():
    wrong = with_mistake("no_mask")
    assert hw.check_cross_attention_module.feedback(wrong) is not None
    assert hw.check_decoder_layer.feedback(layer_with(None, wrong), wrong) is None
    feedback = hw.check_decoder_layer.feedback(layer_with("pre_ln", wrong), wrong)
    assert "known-good cross-attention" in feedback and MISTAKES["pre_ln"].words in feedback, feedback
    layer = layer_with(None, wrong)
    assert hw.check_translations.feedback(swap_in_with(layer), layer, wrong, count=50) is None


def test_a_wrong_layer_costs_only_question_4_when_the_swap_is_right():
    layer = layer_with("pre_ln")
    assert hw.check_translations.feedback(swap_in_with(layer), layer, CrossAttention, count=50) is None
    assert "does not hold the trained weights" in hw.check_translations.feedback(
        lambda m: [m.decoder.layers.__setitem__(i, layer(m.config)) for i in range(len(m.decoder.layers))] and m,
        layer, CrossAttention)


def test_right_layer_translates_held_out_dates():
    layer = layer_with(None)
    assert hw.check_translations.feedback(swap_in_with(layer), layer, CrossAttention, count=50) is None


def forged(source, **names):
    """A forged answer of forged_answers.py, run on top of this file's honest classes."""
    scope = {"torch": torch, "nn": nn, **names}
    exec(source, scope)
    return scope


def test_modules_that_compute_no_attention_fail_questions_3_and_4():
    """Zero weights make attention a constant: the checks load their own random weights, so the
    constant no longer matches (both forgeries passed before)."""
    module = forged(NO_ATTENTION_MODULE, CrossAttention=CrossAttention)["CrossAttention"]
    assert hw.check_cross_attention_module.verdict(module, seed=0) is not None
    layer = forged(NO_ATTENTION_LAYER, MyDecoderLayer=layer_with(None))["MyDecoderLayer"]
    feedback = hw.check_decoder_layer.feedback(layer, CrossAttention, seed=0)
    assert feedback is not None and "layer output" in feedback, feedback


def test_a_table_of_dates_fails_question_5():
    """Untrained layers that report the trained weights, and a model that translates from a table:
    the check translates with its own model around the layers, so the table is never asked."""
    layer = layer_with(None)
    swap_in = forged(DATE_TABLE, MyDecoderLayer=layer)["swap_in"]
    feedback = hw.check_translations.feedback(swap_in, layer, CrossAttention, count=50)
    assert feedback is not None and "of 50 held-out dates are translated wrongly" in feedback, feedback


def test_a_table_of_dates_fails_question_5_also_beside_a_wrong_layer():
    """With question 4 wrong, the check used to grade only what swap_in reported (a state_dict the forged
    layers answer with the trained weights): each layer now runs a known-good forward over the modules
    and weights it really holds, so the forged swap translates nothing and the honest swap still does."""
    forged_layer = forged(NO_ATTENTION_LAYER, MyDecoderLayer=layer_with(None))["MyDecoderLayer"]
    swap_in = forged(DATE_TABLE, MyDecoderLayer=forged_layer)["swap_in"]
    feedback = hw.check_translations.feedback(swap_in, forged_layer, CrossAttention, count=50)
    assert feedback is not None and "of 50 held-out dates are translated wrongly" in feedback, feedback
    assert "known-good forward over its own modules" in feedback, feedback
    assert hw.check_translations.feedback(swap_in_with(forged_layer), forged_layer, CrossAttention, count=50) is None


def test_a_module_and_a_layer_in_float64_keep_their_marks():
    class Double(CrossAttention):
        def __init__(self, config):
            super().__init__(config)
            self.double()

        def forward(self, x, memory, key_mask=None):
            return super().forward(x.double(), memory.double(), key_mask)
    assert hw.check_cross_attention_module.feedback(Double) is None
    layer = type("Double64", (DecoderLayer,), {"__init__": lambda self, c: (DecoderLayer.__init__(self, c), self.double())[0],
                                                "forward": lambda self, x, m, *a, **k: DecoderLayer.forward(
                                                    self, x.double(), m.double(), *a, **k)})
    assert hw.check_decoder_layer.feedback(layer, CrossAttention) is None
    assert hw.check_translations.feedback(swap_in_with(layer), layer, CrossAttention, count=50) is None


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_right_values_in_another_dtype_are_accepted(dtype):
    """Right values pass in float64, float16 or bfloat16 (checked at that dtype's precision)."""
    assert hw.check_scores.feedback(lambda q, k: scores(q.to(dtype), k.to(dtype))) is None
    assert hw.check_masked_attention.feedback(lambda q, k, v, m: tuple(t.to(dtype) for t in attention(q, k, v, m))) is None


def test_integer_results_are_named_with_the_dtype_to_return():
    feedback = hw.check_scores.feedback(lambda q, k: scores(q, k).long())
    assert feedback == "your scores are torch.int64; return the input's dtype, torch.float32", feedback
    wrong = hw.check_scores.feedback(lambda q, k: scores(q, k).double() + 1)
    assert "(and they are torch.float64: return the input's dtype, torch.float32)" in wrong, wrong


def test_a_named_mistake_carries_its_name_for_hidden_tests():
    verdict = hw.check_scores.verdict(lambda q, k: scores(q, k, divide_by=1))
    assert verdict.name == MISTAKES["no_scaling"].words and str(verdict).startswith(verdict.name)


def test_switching_off_the_tracing_scores_zero():
    def sneaky(q, k, v, m):
        sys.setprofile(None)
        return F.scaled_dot_product_attention(q, k, v, m[:, None, :])
    assert "switched off the grader's tracing" in hw.check_masked_attention.feedback(sneaky)


def test_import_anatomy_does_not_load_the_grading_code():
    code = "import sys, anatomy; assert not [m for m in sys.modules if m.startswith('anatomy.homework')]"
    subprocess.run([sys.executable, "-c", code], check=True)
    code = ("import sys, anatomy.homework.cross_attention, anatomy.homework.sentiment; "
            "assert not [m for m in sys.modules if m.startswith('anatomy_grading')]")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_hidden_seeds_come_from_the_secret():
    assert hidden_seed("s3cret", "q1/0") == hidden_seed("s3cret", "q1/0") != hidden_seed("other", "q1/0")
    assert 0 <= hidden_seed("s3cret", "q1/0") < 2**31
    source = "# HIDDEN\nhw.check_scores(f, seed=1234, batch=3)"
    assert reseed(source, "s3cret", "q1") == f"# HIDDEN\nhw.check_scores(f, seed={hidden_seed('s3cret', 'q1/1234')}, batch=3)"
    with pytest.raises(ValueError, match="secret must be a non-empty string, got ''"):
        hidden_seed("", "q1")
