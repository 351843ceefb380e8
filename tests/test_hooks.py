"""anatomy.interpret.hooks against a reference nobody here wrote: PyTorch forward hooks on Hugging Face's GPT2LMHeadModel
and LlamaForCausalLM (tiny random configs), whose weights our GPT and Llama hold (gpt_from_gpt2, llama_from_hf).
TransformerLens 4.3.0 was tried first: it no longer has HookedTransformer and needs 25 more packages (notebook 17)."""
import pytest
import torch
import transformers
from test_gpt import hf_gpt2
from transformers import LlamaConfig, LlamaForCausalLM

from anatomy.tasks.dates import CharVocabulary
from anatomy.tasks.dates_translator import dates_config
from anatomy.weights.gpt2_weights import gpt_from_gpt2
from anatomy.interpret.hooks import Hooks, hook_names
from anatomy.weights.llama_weights import llama_from_hf
from anatomy.models.transformer import Transformer

transformers.logging.set_verbosity_error()


def tiny_gpt2(layers=3):
    """A tiny random HF GPT-2 (test_gpt.hf_gpt2, with weights large enough to move activations) and ours."""
    hf = hf_gpt2(layers=layers, positions=16, std=0.2)
    return hf, gpt_from_gpt2(hf)


def hf_record(hf, blocks, ids, **kwargs):
    """HF's activations, by forward hooks on HF's own modules: block outputs, attention and MLP outputs, and
    the heads' outputs as the input of the attention's output projection."""
    seen, handles = {}, []
    for i, block in enumerate(blocks):
        attn, mlp, proj = (block.attn, block.mlp, block.attn.c_proj) if hasattr(block, "attn") else \
            (block.self_attn, block.mlp, block.self_attn.o_proj)
        handles += [block.register_forward_pre_hook(lambda m, a, kw, i=i: seen.__setitem__(f"{i}.resid_pre", a[0] if a else kw["hidden_states"]), with_kwargs=True),
                    block.register_forward_hook(lambda m, a, o, i=i: seen.__setitem__(f"{i}.resid_post", o[0] if isinstance(o, tuple) else o)),
                    attn.register_forward_hook(lambda m, a, o, i=i: seen.__setitem__(f"{i}.attn_out", o[0])),
                    mlp.register_forward_hook(lambda m, a, o, i=i: seen.__setitem__(f"{i}.mlp_out", o)),
                    proj.register_forward_pre_hook(lambda m, a, i=i: seen.__setitem__(f"{i}.z", a[0]))]
    try:
        with torch.no_grad():
            out = hf(ids, output_attentions=True, **kwargs)
    finally:
        for handle in handles:
            handle.remove()
    for i, weights in enumerate(out.attentions):
        seen[f"{i}.pattern"] = weights
    return seen, out.logits


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_every_recorded_activation_equals_hugging_faces(kind):
    if kind == "gpt2":
        hf, ours = tiny_gpt2()
        blocks = hf.transformer.h
    else:
        torch.manual_seed(0)
        hf = LlamaForCausalLM(LlamaConfig(vocab_size=60, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                          num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32,
                                          initializer_range=0.2, attn_implementation="eager")).eval()
        ours, blocks = llama_from_hf(hf), hf.model.layers
    ids = torch.randint(0, 50, (2, 9), generator=torch.Generator().manual_seed(1))
    theirs, logits = hf_record(hf, blocks, ids)
    with torch.no_grad(), Hooks(ours, record="all") as cache:
        our_logits = ours(ids).logits
    assert set(cache) == set(hook_names(ours)) == {f"blocks.{key}" for key in theirs}
    for key, value in theirs.items():
        mine = cache[f"blocks.{key}"]
        if key.endswith(".z"):
            value = value.unflatten(-1, (4, 8))  # HF's (B, T, H x Dh): head h is columns h*Dh:(h+1)*Dh
        torch.testing.assert_close(mine, value, atol=1e-5, rtol=1e-4, msg=key)
    torch.testing.assert_close(our_logits, logits, atol=1e-5, rtol=1e-4)


def test_an_edit_changes_the_forward_pass_as_the_same_edit_does_in_hugging_face():
    hf, ours = tiny_gpt2()
    ids = torch.randint(0, 50, (2, 9), generator=torch.Generator().manual_seed(1))
    zero_head_2 = lambda z: z.index_fill(2, torch.tensor([2]), 0.0)  # noqa: E731  (B, T, H, Dh)
    handle = hf.transformer.h[1].attn.c_proj.register_forward_pre_hook(
        lambda m, a: (zero_head_2(a[0].unflatten(-1, (4, 8))).flatten(-2),))
    with torch.no_grad():
        expected = hf(ids).logits
        handle.remove()
        plain = hf(ids).logits
        with Hooks(ours, record=["blocks.1.z"], edit={"blocks.1.z": zero_head_2}) as cache:
            edited = ours(ids).logits
        after = ours(ids).logits
    torch.testing.assert_close(edited, expected, atol=1e-5, rtol=1e-4)
    assert (edited - plain).abs().max() > 1e-3  # the edit did something
    assert (cache["blocks.1.z"][:, :, 2] == 0).all() and cache["blocks.1.z"][:, :, 1].abs().sum() > 0  # recorded as edited
    torch.testing.assert_close(after, plain, atol=1e-5, rtol=1e-4)  # and leaving the block removed it


def test_the_encoder_decoder_transformer_has_encoder_and_decoder_points_with_cross_attention():
    vocab = CharVocabulary()
    model = Transformer(dates_config(vocab)).eval()
    src, tgt = torch.randint(3, len(vocab), (2, 7)), torch.randint(3, len(vocab), (2, 5))
    with torch.no_grad(), Hooks(model, record="all") as cache:
        out = model(src, tgt, output_attentions=True)
    assert cache["encoder.1.resid_post"].shape == (2, 7, 64)
    assert cache["decoder.0.cross_z"].shape == (2, 5, 4, 16)
    torch.testing.assert_close(cache["decoder.1.cross_pattern"], out.cross_attentions[1])
    torch.testing.assert_close(cache["encoder.0.pattern"], out.encoder_attentions[0])
    torch.testing.assert_close(model.lm_head(cache["decoder.1.resid_post"]), out.logits)  # post-LN: no final norm


def test_bad_hook_points_and_bad_edits_are_named():
    _, ours = tiny_gpt2()
    ids = torch.randint(0, 50, (1, 5))
    with pytest.raises(ValueError, match=r"no hook point 'blocks.3.resid_post' in this GPT: its blocks are blocks.0, "
                                         r"blocks.1, blocks.2; .* pass e.g. 'blocks.0.resid_post'"):
        Hooks(ours, record=["blocks.3.resid_post"])
    with pytest.raises(ValueError, match="no hook point 'blocks.0.attention'"):
        Hooks(ours, edit={"blocks.0.attention": lambda x: x})
    with pytest.raises(ValueError, match=r"'blocks.0.pattern' is read-only.*edit 'blocks.0.z'"):
        Hooks(ours, edit={"blocks.0.pattern": lambda x: x})
    with pytest.raises(ValueError, match=r"the edit of 'blocks.1.resid_post' returned \(1, 4, 32\), but the activation "
                                         r"there is \(1, 5, 32\)"):
        with Hooks(ours, edit={"blocks.1.resid_post": lambda x: x[:, :4]}):
            ours(ids)
    assert not ours.layers[1]._forward_hooks  # removed even after the error
    with pytest.raises(ValueError, match=r"'encoder.0.pattern': this forward pass computed no attention weights; "
                                         r"call the model with output_attentions=True"):
        model = Transformer(dates_config(CharVocabulary()))
        with Hooks(model, record=["encoder.0.pattern"]):
            model(torch.ones(1, 3, dtype=torch.long), torch.ones(1, 2, dtype=torch.long))
    with pytest.raises(TypeError, match="hooks know the blocks of anatomy's GPT, Llama"):
        Hooks(torch.nn.Linear(2, 2))


def test_the_same_hooks_object_cannot_be_entered_inside_itself():
    """Before the refusal, the inner exit removed the outer hooks: nothing recorded, the edit silently dropped."""
    _, ours = tiny_gpt2()
    ids = torch.randint(0, 50, (1, 5))
    hooks = Hooks(ours, record=["blocks.1.resid_post"], edit={"blocks.0.attn_out": torch.zeros_like})
    with torch.no_grad(), hooks as cache:
        with pytest.raises(RuntimeError, match=r"already active .*nest a second Hooks\(model, \.\.\.\) object"):
            with hooks:
                pass
        edited = ours(ids).logits
        assert "blocks.1.resid_post" in cache  # the outer hooks are still there
    with torch.no_grad():
        assert not torch.allclose(edited, ours(ids).logits)  # the edit was applied, and is gone now
    assert not any(layer._forward_hooks for layer in ours.layers)


@pytest.mark.parametrize("outer_records", [True, False])
def test_two_hooks_objects_nest_outer_and_inner_record_and_edit(outer_records):
    _, ours = tiny_gpt2()
    ids = torch.randint(0, 50, (1, 5))
    record, edit = ["blocks.1.resid_post"], {"blocks.0.attn_out": torch.zeros_like}
    with torch.no_grad(), Hooks(ours, record=record, edit=edit) as expected:
        ours(ids)
    outer, inner = (Hooks(ours, record=record), Hooks(ours, edit=edit)) if outer_records else \
        (Hooks(ours, edit=edit), Hooks(ours, record=record))
    with torch.no_grad(), outer as outer_cache:
        with inner as inner_cache:
            ours(ids)
        cache = outer_cache if outer_records else inner_cache
        torch.testing.assert_close(cache["blocks.1.resid_post"], expected["blocks.1.resid_post"])
        ours(ids)  # the inner exit left the outer hooks in place
        if outer_records:
            assert not torch.allclose(outer_cache["blocks.1.resid_post"], expected["blocks.1.resid_post"])
    assert not any(layer._forward_hooks for layer in ours.layers)


@pytest.mark.parametrize("record, edit, message", [
    (b"blocks.0.z", None, r"record must be a hook point name, a list of them, or 'all', got b'blocks.0.z'"),
    (None, None, r"record must be a hook point name, a list of them, or 'all', got None"),
    ([0], None, r"record must be .*got \[0\]"),
    ((), ["blocks.0.z"], r"edit must be a dict \{hook point: function\}, got list"),
])
def test_records_and_edits_of_the_wrong_type_are_named(record, edit, message):
    _, ours = tiny_gpt2()
    with pytest.raises(TypeError, match=message):
        Hooks(ours, record=record, edit=edit)
