"""BertViz views that draw anywhere, offline too (how: anatomy.bertviz_offline).

Taught in: 03_attention (neuron_view), 04_multi_head_attention (head_view, model_view) and
07_training (head_view and model_view of an encoder-decoder: encoder_attention, decoder_attention,
cross_attention, with encoder_tokens and decoder_tokens).
"""
from __future__ import annotations

import bertviz
import torch
from IPython.display import HTML

from anatomy.bertviz_offline import offline_html, vendor_scripts


def head_view(attention=None, tokens=None, sentence_b_start=None, **kwargs) -> HTML:
    """bertviz.head_view, rendered offline. `attention` is a tuple of (1, H, T, T) per layer; for an
    encoder-decoder pass encoder_attention=, decoder_attention=, cross_attention= instead."""
    view = bertviz.head_view(attention, tokens, sentence_b_start, html_action="return", **kwargs)
    return HTML(offline_html(view.data, vendor_scripts()))


def model_view(attention=None, tokens=None, sentence_b_start=None, **kwargs) -> HTML:
    """bertviz.model_view (every layer and head), rendered offline."""
    view = bertviz.model_view(attention, tokens, sentence_b_start, html_action="return", **kwargs)
    return HTML(offline_html(view.data, vendor_scripts()))


def neuron_model(checkpoint: str | None = None):
    """(model, tokenizer) of BertViz's own BERT fork, which neuron_view needs, holding the weights
    of a BERT checkpoint (default: the bundled model). The weights are read from safetensors and
    loaded with load_state_dict: no pytorch_model.bin, nothing unpickled."""
    from bertviz.transformers_neuron_view import BertConfig, BertModel, BertTokenizer

    from anatomy.bert_weights import load_config, read_state_dict
    from anatomy.pretrained import checkpoint_folder

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
    with torch.no_grad():
        view = bertviz_neuron_view.show(model, "bert", tokenizer, sentence_a, sentence_b,
                                        display_mode=display_mode, layer=layer, head=head,
                                        html_action="return")
    return HTML(offline_html(view.data, vendor_scripts()))
