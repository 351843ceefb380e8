"""BertViz views that draw anywhere, offline too (how: anatomy.display.bertviz_offline).

Taught in: 03_attention (neuron_view), 04_multi_head_attention (head_view, model_view) and
07_training (head_view and model_view of an encoder-decoder: encoder_attention, decoder_attention,
cross_attention, with encoder_tokens and decoder_tokens).
"""
from __future__ import annotations

import bertviz
import torch
from IPython.display import HTML

from anatomy.display.bertviz_offline import offline_html, vendor_scripts
from anatomy.checks import check_integer


def check_layers(name: str, layers, queries: list | None, keys: list | None) -> None:
    """Raise unless `layers` is one (1, H, Tq, Tk) tensor per layer with Tq, Tk = the token counts given."""
    rows, columns = (None if tokens is None else len(tokens) for tokens in (queries, keys))
    shapes = [tuple(getattr(layer, "shape", ())) for layer in layers] if isinstance(layers, (tuple, list)) else None
    if not shapes or any(len(shape) != 4 or shape[0] != 1 or shape[1] != shapes[0][1]
                         or (rows is not None and shape[2] != rows) or (columns is not None and shape[3] != columns)
                         for shape in shapes):
        raise ValueError(f"{name} must be one (1, H, Tq, Tk) tensor per layer (Tq = {rows}, Tk = {columns}, the "
                         f"numbers of tokens), got {shapes or type(layers).__name__}; for example i of a batch "
                         f"pass tuple(layer[i:i + 1] for layer in attentions)")


def check_views(attention, tokens, kwargs: dict) -> None:
    """The layers a BertViz view is given, each against the tokens that label it."""
    if attention is not None:
        check_layers("attention", attention, tokens, tokens)
    encoder, decoder = kwargs.get("encoder_tokens"), kwargs.get("decoder_tokens")
    for name, queries, keys in (("encoder_attention", encoder, encoder), ("decoder_attention", decoder, decoder),
                                ("cross_attention", decoder, encoder)):
        if kwargs.get(name) is not None:
            check_layers(name, kwargs[name], queries, keys)


def head_view(attention=None, tokens=None, sentence_b_start=None, **kwargs) -> HTML:
    """bertviz.head_view, rendered offline. `attention` is a tuple of (1, H, T, T) per layer; for an
    encoder-decoder pass encoder_attention=, decoder_attention=, cross_attention= instead."""
    check_views(attention, tokens, kwargs)
    view = bertviz.head_view(attention, tokens, sentence_b_start, html_action="return", **kwargs)
    return HTML(offline_html(view.data, vendor_scripts()))


def model_view(attention=None, tokens=None, sentence_b_start=None, **kwargs) -> HTML:
    """bertviz.model_view (every layer and head), rendered offline."""
    check_views(attention, tokens, kwargs)
    view = bertviz.model_view(attention, tokens, sentence_b_start, html_action="return", **kwargs)
    return HTML(offline_html(view.data, vendor_scripts()))


def neuron_model(checkpoint: str | None = None):
    """(model, tokenizer) of BertViz's own BERT fork, which neuron_view needs, holding the weights
    of a BERT checkpoint (default: the bundled model). The weights are read from safetensors and
    loaded with load_state_dict: no pytorch_model.bin, nothing unpickled."""
    from bertviz.transformers_neuron_view import BertConfig, BertModel, BertTokenizer

    from anatomy.weights.bert_weights import load_config, read_state_dict
    from anatomy.checkpoints.pretrained import checkpoint_folder

    config = BertConfig.from_dict(load_config(checkpoint).to_dict())
    config.output_attentions = True
    model = BertModel(config)
    wanted = model.state_dict().keys()
    model.load_state_dict({k: v for k, v in read_state_dict(checkpoint).items() if k in wanted}, strict=True)
    vocab = checkpoint_folder(checkpoint, "vocab.txt") / "vocab.txt"
    tokenizer = BertTokenizer(str(vocab), do_lower_case=True)
    return model.eval(), tokenizer


def neuron_view(sentence_a: str, sentence_b: str | None = None, layer: int = 0, head: int = 0,
                checkpoint: str | None = None, display_mode: str = "light") -> HTML:
    """bertviz's neuron_view (how queries and keys produce each score), rendered offline."""
    from bertviz import neuron_view as bertviz_neuron_view

    model, tokenizer = neuron_model(checkpoint)
    check_integer("layer", layer, least=0, most=model.config.num_hidden_layers - 1)
    check_integer("head", head, least=0, most=model.config.num_attention_heads - 1)
    with torch.no_grad():
        view = bertviz_neuron_view.show(model, "bert", tokenizer, sentence_a, sentence_b,
                                        display_mode=display_mode, layer=layer, head=head,
                                        html_action="return")
    return HTML(offline_html(view.data, vendor_scripts()))
