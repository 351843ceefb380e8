"""Our Transformer's weights copied into torch.nn.Transformer, to check ours against PyTorch's.

Taught in: 06_decoder.  Shapes: D model width, F feed-forward width.
torch.nn.Transformer keeps Q, K and V in one (3D, D) in_proj_weight; ours are three (D, D) Linears.
"""
from __future__ import annotations

import warnings

import torch
from torch import nn

from anatomy.layers.multihead import MultiHeadAttention
from anatomy.models.transformer import Transformer

TORCH_ACTIVATIONS = {"relu": "relu", "gelu": "gelu"}


@torch.no_grad()
def copy_attention(ours: MultiHeadAttention, theirs: nn.MultiheadAttention) -> None:
    theirs.in_proj_weight.copy_(torch.cat([ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight]))  # (3D, D)
    theirs.in_proj_bias.copy_(torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias]))  # (3D,)
    theirs.out_proj.load_state_dict(ours.out_proj.state_dict())


def copy_sublayers(ours: nn.Module, theirs: nn.Module, attentions: dict[str, str], norms: int) -> None:
    for our_name, their_name in attentions.items():
        copy_attention(getattr(ours, our_name), getattr(theirs, their_name))
    theirs.linear1.load_state_dict(ours.feed_forward.linear_1.state_dict())
    theirs.linear2.load_state_dict(ours.feed_forward.linear_2.state_dict())
    for i in range(1, norms + 1):
        getattr(theirs, f"norm{i}").load_state_dict(getattr(ours, f"layer_norm_{i}").state_dict())


def to_torch_transformer(model: Transformer) -> nn.Transformer:
    """An nn.Transformer (in eval mode) with `model`'s layer weights and settings. It has no
    embeddings or output projection: feed it our embeddings, then apply our lm_head.
    `model` must have final norms (config.final_norm or norm_first), as nn.Transformer always does."""
    config = model.config
    if not (config.final_norm or config.norm_first):
        raise ValueError("torch.nn.Transformer always ends each stack with a LayerNorm; build the model "
                         "with TransformerConfig(final_norm=True) to compare it")
    if config.hidden_act not in TORCH_ACTIVATIONS:
        raise ValueError(f"nn.Transformer supports activations {sorted(TORCH_ACTIVATIONS)}, "
                         f"got {config.hidden_act!r}")
    with warnings.catch_warnings():  # torch warns that pre-LN disables its nested-tensor fast path
        warnings.filterwarnings("ignore", message="enable_nested_tensor is True")
        reference = nn.Transformer(
            d_model=config.hidden_size, nhead=config.num_attention_heads,
            num_encoder_layers=config.num_encoder_layers, num_decoder_layers=config.num_decoder_layers,
            dim_feedforward=config.intermediate_size, dropout=0.0, activation=TORCH_ACTIVATIONS[config.hidden_act],
            layer_norm_eps=config.layer_norm_eps, batch_first=True, norm_first=config.norm_first)
    reference.encoder.use_nested_tensor = False  # keep padded positions as real rows, as ours are
    for ours, theirs in zip(model.encoder_layers, reference.encoder.layers):
        copy_sublayers(ours, theirs, {"self_attn": "self_attn"}, norms=2)
    for ours, theirs in zip(model.decoder.layers, reference.decoder.layers):
        copy_sublayers(ours, theirs, {"self_attn": "self_attn", "cross_attn": "multihead_attn"}, norms=3)
    reference.encoder.norm.load_state_dict(model.encoder_norm.state_dict())
    reference.decoder.norm.load_state_dict(model.decoder.final_norm.state_dict())
    return reference.to(next(model.parameters()).device).eval()
