"""anatomy.interpret.cross_attention and path_patching on notebook 07's shipped dates translator, checked
against libraries nobody here wrote: the same ablations and patches made with nnsight on the same modules,
and with forward hooks on torch.nn.Transformer carrying our weights; the fields' source spans against
Python's datetime; bad heads, layers, fields and pairs named."""
import copy
import dataclasses
from datetime import date

import pytest
import torch
from nnsight import NNsight
from torch import nn

from anatomy.interpret.cross_attention import (FIELDS, ORDER, ablate, all_heads, attention_to_fields, check_field,
                                               check_heads, cross_head_means, field_accuracy, held_out_examples,
                                               source_spans)
from anatomy.interpret.hooks import Hooks
from anatomy.interpret.patching import restored_fraction
from anatomy.interpret.path_patching import date_pair, field_metric, head_patching, path_patching
from anatomy.layers.masks import causal_mask
from anatomy.models.transformer import Transformer
from anatomy.tasks.dates import MONTHS, CharVocabulary, make_batch
from anatomy.tasks.dates_translator import DATES_MODEL_DIR
from anatomy.weights.torch_reference import to_torch_transformer

VOCAB = CharVocabulary()
MONTH, HEADS = 6, [(1, 1), (0, 2)]  # target position 6 writes the month's second digit


@pytest.fixture(scope="module")
def model():
    return Transformer.from_pretrained(DATES_MODEL_DIR)


@pytest.fixture(scope="module")
def examples():
    return held_out_examples(2, seed=3)


@pytest.fixture(scope="module")
def month_pair():
    clean, corrupted = date_pair("Mar 3 2021", "May 3 2021", "2021-03-03", VOCAB)
    return clean, corrupted, field_metric("month", "2021-03-03", "2021-05-03", VOCAB)


def batch_of(examples):
    return make_batch([(e.text, e.iso) for e in examples], VOCAB)


def test_source_spans_hold_the_dates_fields_as_datetime_reads_them(examples):
    for e in held_out_examples(5, seed=1) + examples:
        day = date.fromisoformat(e.iso)
        read = {field: e.text[span.start:span.stop] for field, span in e.spans.items()}
        assert int(read["day"]) == day.day, e
        assert int(read["year"]) % 100 == day.year % 100 and len(read["year"]) in (2, 4), e
        month = int(read["month"]) if read["month"].isdigit() else [m[:3].lower() for m in MONTHS].index(
            read["month"][:3].lower()) + 1
        assert month == day.month, e
    assert {e.format for e in examples} == set(ORDER) and len(examples) == 2 * len(ORDER)


# --- nnsight: the same modules, edited by an interpretability library nobody here wrote ---

def nnsight_logits(model, batch, edits=None, record=None):
    """Logits with each decoder layer's cross-attention head outputs (out_proj's input) edited by nnsight."""
    traced, dh = NNsight(model), model.config.hidden_size // model.config.num_attention_heads
    with traced.trace(batch.src_ids, batch.tgt_ids, batch.src_mask, batch.tgt_mask):
        for (layer, head), value in sorted((edits or {}).items()):  # nnsight: in forward order
            z = traced.decoder.layers[layer].cross_attn.out_proj.input
            z[:, :, head * dh:(head + 1) * dh] = value
        logits = traced.output.logits.save()
    return logits


@pytest.mark.parametrize("kind", ["zero", "mean"])
def test_ablation_equals_nnsights(model, examples, kind):
    batch = batch_of(examples)
    means = cross_head_means(model, held_out_examples(3, seed=5), VOCAB) if kind == "mean" else None
    with Hooks(model, edit=ablate(HEADS, means)):
        ours = model(batch.src_ids, batch.tgt_ids, batch.src_mask, batch.tgt_mask).logits
    edits = {(l, h): 0.0 if means is None else means[l][:batch.tgt_ids.size(1), h] for l, h in HEADS}
    theirs = nnsight_logits(model, batch, edits)
    torch.testing.assert_close(ours, theirs, atol=1e-6, rtol=0)
    plain = model(batch.src_ids, batch.tgt_ids, batch.src_mask, batch.tgt_mask).logits
    assert (plain - ours).abs().max() > 1e-2  # the ablation changed something


def test_recorded_head_outputs_equal_nnsights(model, examples):
    batch, traced = batch_of(examples), NNsight(model)
    with Hooks(model, record=["decoder.0.cross_z", "decoder.1.cross_z"]) as cache:
        model(batch.src_ids, batch.tgt_ids, batch.src_mask, batch.tgt_mask)
    theirs = []
    with traced.trace(batch.src_ids, batch.tgt_ids, batch.src_mask, batch.tgt_mask):
        for layer in traced.decoder.layers:
            theirs.append(layer.cross_attn.out_proj.input.save())
    for layer in range(2):
        torch.testing.assert_close(cache[f"decoder.{layer}.cross_z"].flatten(-2), theirs[layer], atol=1e-6, rtol=0)


def nnsight_fraction(model, clean, corrupted, metric, patch):
    """(metric(patched) - metric(corrupted)) / (metric(clean) - metric(corrupted)), `patch(traced, saved)` run by nnsight."""
    traced = NNsight(model)
    saved = {"enc": [], "k": [], "v": [], "z": [], "dec": []}
    with traced.trace(*clean):
        for layer in traced.encoder_layers:
            saved["enc"].append(layer.output[0].save())
        for layer in traced.decoder.layers:  # nnsight reads in forward order
            for key, value in (("k", layer.cross_attn.k_proj.output), ("v", layer.cross_attn.v_proj.output),
                               ("z", layer.cross_attn.out_proj.input), ("dec", layer.output[0])):
                saved[key].append(value.save())
    high, low = metric(model(*clean)), metric(model(*corrupted))
    with traced.trace(*corrupted):
        patch(traced, saved)
        patched = traced.output.save()
    return ((metric(patched) - low) / (high - low)).item()


def test_encoder_and_decoder_patching_grids_equal_nnsights(model, month_pair):
    clean, corrupted, metric = month_pair
    for part, blocks in (("enc", lambda t, l: t.encoder_layers[l]), ("dec", lambda t, l: t.decoder.layers[l])):
        names = [f"{'encoder' if part == 'enc' else 'decoder'}.{l}.resid_post" for l in range(2)]
        ours = restored_fraction(model, names, clean, corrupted, metric)
        for layer in range(2):
            for t in range(ours.size(1)):
                def paste(traced, saved, layer=layer, t=t):
                    blocks(traced, layer).output[0][:, t] = saved[part][layer][:, t]
                theirs = nnsight_fraction(model, clean, corrupted, metric, paste)
                assert abs(ours[layer, t].item() - theirs) < 1e-6, (part, layer, t)
    assert ours[1, MONTH] > 0.9  # the month's digit is written where it is predicted


def test_head_patching_equals_nnsights(model, month_pair):
    clean, corrupted, metric = month_pair
    ours, dh = head_patching(model, clean, corrupted, metric), model.config.hidden_size // model.config.num_attention_heads
    for layer, head in all_heads(model):
        def paste(traced, saved, layer=layer, head=head):
            columns = slice(head * dh, (head + 1) * dh)
            traced.decoder.layers[layer].cross_attn.out_proj.input[:, :, columns] = saved["z"][layer][:, :, columns]
        assert abs(ours[layer, head].item() - nnsight_fraction(model, clean, corrupted, metric, paste)) < 1e-6
    assert ours.abs().max() > 0.1


@pytest.mark.parametrize("routes", [("key", "value"), ("key",), ("value",)])
def test_path_patching_equals_nnsights(model, month_pair, routes):
    clean, corrupted, metric = month_pair
    dh = model.config.hidden_size // model.config.num_attention_heads
    for layer, head in [(1, 1), (1, 3), (0, 2)]:
        def paste(traced, saved, layer=layer, head=head):
            columns = slice(head * dh, (head + 1) * dh)
            for route in routes:
                projection = getattr(traced.decoder.layers[layer].cross_attn, f"{route[0]}_proj")
                projection.output[..., columns] = saved[route[0]][layer][..., columns]
        theirs = nnsight_fraction(model, clean, corrupted, metric, paste)
        assert abs(path_patching(model, layer, head, clean, corrupted, metric, routes) - theirs) < 1e-6, (layer, head)


# --- torch.nn.Transformer with our weights: its own attention weights, read and edited by forward hooks ---

def torch_reference(model):
    """nn.Transformer (float64) with the translator's weights; the translator has no final norms, so neither has it."""
    with_norms = Transformer(dataclasses.replace(model.config, final_norm=True))
    with_norms.load_state_dict(model.state_dict(), strict=False)
    reference = to_torch_transformer(with_norms).double()
    reference.encoder.norm, reference.decoder.norm = nn.Identity(), nn.Identity()
    return reference


def torch_run(model, reference, batch, ablated=(), means=None):
    """Logits and each decoder layer's per-head cross-attention weights (B, H, Tt, Ts), from PyTorch's own
    MultiheadAttention; `ablated` heads removed by subtracting z_h W_o,h (z_h = weights_h @ values_h) in a hook."""
    weights, handles, dh = {}, [], model.config.hidden_size // model.config.num_attention_heads

    def ask_for_weights(module, args, kwargs):
        return args, {**kwargs, "need_weights": True, "average_attn_weights": False}

    def hook(layer):
        def edit(module, args, kwargs, output):
            out, w = output  # (B, Tt, D), (B, H, Tt, Ts)
            weights[layer] = w
            values = args[2] @ module.in_proj_weight[2 * module.embed_dim:].T + module.in_proj_bias[2 * module.embed_dim:]
            for l, h in ablated:
                if l == layer:
                    columns = slice(h * dh, (h + 1) * dh)
                    z = w[:, h] @ values[..., columns]  # (B, Tt, Dh)
                    new = 0.0 if means is None else means[l][:z.size(1), h].double()
                    out = out + (new - z) @ module.out_proj.weight[:, columns].T
            return out, w
        return edit
    for layer, block in enumerate(reference.decoder.layers):
        handles.append(block.multihead_attn.register_forward_pre_hook(ask_for_weights, with_kwargs=True))
        handles.append(block.multihead_attn.register_forward_hook(hook(layer), with_kwargs=True))
    try:
        with torch.no_grad():
            hidden = reference(model.src_embeddings(batch.src_ids), model.tgt_embeddings(batch.tgt_ids),
                               tgt_mask=~causal_mask(batch.tgt_ids.size(1)), src_key_padding_mask=~batch.src_mask,
                               tgt_key_padding_mask=~batch.tgt_mask, memory_key_padding_mask=~batch.src_mask)
    finally:
        for handle in handles:
            handle.remove()
    return model.lm_head(hidden), weights


@pytest.fixture(scope="module")
def double_model(model):
    return copy.deepcopy(model).double()


def test_attention_to_fields_equals_a_summary_of_torch_transformers_own_weights(model, double_model, examples):
    _, weights = torch_run(double_model, torch_reference(double_model), batch_of(examples))
    expected = torch.zeros(2, model.config.num_attention_heads, 3)
    for f, (field, where) in enumerate(FIELDS.items()):  # positions writing the field, weight on its span
        for layer in range(2):
            per_example = [weights[layer][b, :, where][..., list(e.spans[field])].sum(-1).mean(-1)
                           for b, e in enumerate(examples)]
            expected[layer, :, f] = torch.stack(per_example).mean(0)
    torch.testing.assert_close(attention_to_fields(model, examples, VOCAB), expected, atol=1e-6, rtol=0)


@pytest.mark.parametrize("kind", ["zero", "mean"])
def test_ablation_equals_torch_transformers_with_hooks(double_model, examples, kind):
    batch = batch_of(examples)
    means = cross_head_means(double_model, held_out_examples(3, seed=5), VOCAB) if kind == "mean" else None
    with Hooks(double_model, edit=ablate(HEADS, means)), torch.no_grad():
        ours = double_model(batch.src_ids, batch.tgt_ids, batch.src_mask, batch.tgt_mask).logits
    theirs, _ = torch_run(double_model, torch_reference(double_model), batch, HEADS, means)
    torch.testing.assert_close(ours, theirs, atol=1e-6, rtol=0)


def torch_patched_logits(model, reference, clean, corrupted, layer, head, routes):
    """Logits of the corrupted run of `reference` (torch.nn.Transformer) with one cross-attention head patched
    from the clean run, in forward hooks on its own MultiheadAttention. routes None: the head's output
    z_h = weights_h @ values_h pasted; else the clean encoder output reaches head h only through `routes`:
    PyTorch's attention recomputes head h's weights with the clean memory as keys ("key"), and/or head h
    reads the clean memory's values ("value"). The change enters as (z_new - z_old) W_o,h."""
    dh, state, handles = model.config.hidden_size // model.config.num_attention_heads, {"busy": False}, []
    columns, clean_memory, clean_z = slice(head * dh, (head + 1) * dh), {}, {}

    def values_of(module, memory):  # (B, Ts, D)
        return memory @ module.in_proj_weight[2 * module.embed_dim:].T + module.in_proj_bias[2 * module.embed_dim:]

    def ask_for_weights(module, args, kwargs):
        return args, {**kwargs, "need_weights": True, "average_attn_weights": False}

    def edit(module, args, kwargs, output):
        if state["busy"]:
            return output
        out, w = output  # (B, Tt, D), (B, H, Tt, Ts)
        z = w[:, head] @ values_of(module, args[2])[..., columns]  # (B, Tt, Dh)
        if state["run"] == "clean":
            clean_z[module] = z
            return output
        if routes is None:
            new = clean_z[module]
        else:
            weights = w[:, head]
            if "key" in routes:
                state["busy"] = True
                _, mixed = module(args[0], clean_memory["memory"], args[2], need_weights=True, average_attn_weights=False)
                state["busy"] = False
                weights = mixed[:, head]
            memory = clean_memory["memory"] if "value" in routes else args[2]
            new = weights @ values_of(module, memory)[..., columns]
        return out + (new - z) @ module.out_proj.weight[:, columns].T, w

    def run(ids, name):
        state["run"] = name
        src, tgt = ids
        with torch.no_grad():
            hidden = reference(model.src_embeddings(src), model.tgt_embeddings(tgt), tgt_mask=~causal_mask(tgt.size(1)))
        return model.lm_head(hidden)
    block = reference.decoder.layers[layer].multihead_attn
    handles += [block.register_forward_pre_hook(ask_for_weights, with_kwargs=True),
                block.register_forward_hook(edit, with_kwargs=True),
                reference.encoder.register_forward_hook(
                    lambda m, a, o: clean_memory.setdefault("memory", o) if state["run"] == "clean" else None)]
    try:
        run(clean, "clean")
        return run(corrupted, "corrupted")
    finally:
        for handle in handles:
            handle.remove()


def torch_fraction(model, reference, month_pair, layer, head, routes):
    clean, corrupted, metric = month_pair
    logits = {}
    with torch.no_grad():
        for name, ids in (("clean", clean), ("corrupted", corrupted)):
            src, tgt = ids
            hidden = reference(model.src_embeddings(src), model.tgt_embeddings(tgt), tgt_mask=~causal_mask(tgt.size(1)))
            logits[name] = model.lm_head(hidden)
    patched = torch_patched_logits(model, reference, clean, corrupted, layer, head, routes)
    high, low, value = (metric(dataclasses.make_dataclass("Out", ["logits"])(x)) for x in
                        (logits["clean"], logits["corrupted"], patched))
    return ((value - low) / (high - low)).item()


def test_head_patching_equals_torch_transformers_with_hooks(double_model, month_pair):
    ours, reference = head_patching(double_model, *month_pair), torch_reference(double_model)
    for layer, head in all_heads(double_model):
        theirs = torch_fraction(double_model, reference, month_pair, layer, head, None)
        assert abs(ours[layer, head].item() - theirs) < 1e-6, (layer, head)
    assert ours.abs().max() > 0.1


@pytest.mark.parametrize("routes", [("key", "value"), ("key",), ("value",)])
def test_path_patching_equals_torch_transformers_with_hooks(double_model, month_pair, routes):
    reference = torch_reference(double_model)
    for layer, head in [(1, 1), (1, 0), (0, 2)]:
        ours = path_patching(double_model, layer, head, *month_pair, routes)
        theirs = torch_fraction(double_model, reference, month_pair, layer, head, routes)
        assert abs(ours - theirs) < 1e-6, (layer, head)


def test_the_translator_writes_every_field_of_held_out_dates(model, examples):
    accuracy = field_accuracy(model, examples, VOCAB)
    assert set(accuracy) == set(FIELDS) and min(accuracy.values()) >= 0.95
    assert field_accuracy(model, examples, VOCAB, all_heads(model)[4:])["year"] < 0.5  # all of layer 1's heads


# --- bad inputs ---

def test_bad_heads_layers_fields_and_pairs_are_named(model, month_pair):
    clean, corrupted, metric = month_pair
    with pytest.raises(ValueError, match=r"heads: \(2, 0\) does not exist: the decoder has layers 0 \.\. 1"):
        check_heads(model, [(2, 0)])
    with pytest.raises(ValueError, match=r"heads: \(1, 4\) does not exist.*heads 0 \.\. 3"):
        field_accuracy(model, held_out_examples(1), VOCAB, [(1, 4)])
    with pytest.raises(ValueError, match=r"layer must be an integer in \[0, 1\], got -1"):
        path_patching(model, -1, 0, clean, corrupted, metric)
    with pytest.raises(ValueError, match=r"head must be an integer in \[0, 3\], got 4"):
        path_patching(model, 1, 4, clean, corrupted, metric)
    with pytest.raises(TypeError, match=r"heads must be \(layer, head\) pairs of integers, got 3"):
        check_heads(model, [3])
    with pytest.raises(ValueError, match=r"field must be one of 'year', 'month', 'day', got 'weekday'"):
        check_field("weekday")
    with pytest.raises(ValueError, match=r"field must be one of .*got 'months'"):
        field_metric("months", "2021-03-03", "2021-05-03", VOCAB)
    with pytest.raises(ValueError, match=r"'2021-03-03' and '2021-05-03' have the same day"):
        field_metric("day", "2021-03-03", "2021-05-03", VOCAB)
    with pytest.raises(ValueError, match=r"same length.*'March 3 2021' \(12 characters\) and 'May 3 2021' \(10\)"):
        date_pair("March 3 2021", "May 3 2021", "2021-03-03", VOCAB)
    with pytest.raises(ValueError, match=r"routes must be a non-empty list from \('key', 'value'\), got \['query'\]"):
        path_patching(model, 1, 1, clean, corrupted, metric, ["query"])
    with pytest.raises(ValueError, match=r"nothing to restore"):
        head_patching(model, clean, clean, metric)
    with pytest.raises(ValueError, match=r"format_name must be a key"):
        source_spans("Mar 3 2021", "3/3")
    assert check_field("day") == "day"
    assert not any(module._forward_hooks or module._forward_pre_hooks for module in model.modules())
