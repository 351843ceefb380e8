"""Copying a BERT checkpoint's tensors into our modules, by an explicit name map.

Taught in: 02_embeddings (embeddings) and 05_encoder (every layer).
Weights are read from safetensors only: nothing is ever unpickled.
"""
from __future__ import annotations

import os

import torch
from torch import nn

from anatomy.layers.feedforward import ACTIVATIONS
from anatomy.checkpoints.loader_checks import check_config_fields

EMBEDDINGS = {
    "token_embeddings.weight": "embeddings.word_embeddings.weight",
    "position_embeddings.weight": "embeddings.position_embeddings.weight",
    "token_type_embeddings.weight": "embeddings.token_type_embeddings.weight",
    "layer_norm.weight": "embeddings.LayerNorm.weight",
    "layer_norm.bias": "embeddings.LayerNorm.bias",
}


LAYER = {
    "self_attn.q_proj": "attention.self.query",
    "self_attn.k_proj": "attention.self.key",
    "self_attn.v_proj": "attention.self.value",
    "self_attn.out_proj": "attention.output.dense",
    "layer_norm_1": "attention.output.LayerNorm",
    "feed_forward.linear_1": "intermediate.dense",
    "feed_forward.linear_2": "output.dense",
    "layer_norm_2": "output.LayerNorm",
}


def encoder_name_map(num_layers: int) -> dict[str, str]:
    """Our TransformerEncoder's parameter names -> BertModel's, for every weight and bias."""
    name_map = {f"embeddings.{ours}": theirs for ours, theirs in EMBEDDINGS.items()}
    for i in range(num_layers):
        for ours, theirs in LAYER.items():
            for kind in ("weight", "bias"):
                name_map[f"layers.{i}.{ours}.{kind}"] = f"encoder.layer.{i}.{theirs}.{kind}"
    return name_map


BERT_FIELDS = {"model_type": ("bert", "our encoder loads BERT-architecture checkpoints"),
               "position_embedding_type": ("absolute", "our embeddings add one learned vector per position"),
               "is_decoder": (False, "our encoder lets every token attend both ways"),
               "add_cross_attention": (False, "our encoder layers have no cross-attention"),
               "hidden_act": (tuple(ACTIVATIONS), "the activations our feed-forward implements")}


def load_config(checkpoint: str | os.PathLike | None = None):
    """The HF config (a transformers.BertConfig) of `checkpoint`, once every field is one our
    encoder implements (BERT_FIELDS)."""
    from transformers import AutoConfig

    from anatomy.checkpoints.pretrained import checkpoint_folder

    config = AutoConfig.from_pretrained(checkpoint_folder(checkpoint, "config.json"))
    check_config_fields(config, BERT_FIELDS, "BERT checkpoint")
    return config


def read_state_dict(checkpoint: str | os.PathLike | None = None) -> dict[str, torch.Tensor]:
    """The tensors of a local checkpoint folder's model.safetensors (default: the bundled model).
    Keys are normalised to BertModel's ('bert.' prefixes of task heads are dropped)."""
    from anatomy.checkpoints.checkpoint_files import read_safetensors
    from anatomy.checkpoints.pretrained import checkpoint_folder

    source = checkpoint_folder(checkpoint, "model.safetensors")
    files = sorted(source.glob("*.safetensors"))
    if not files:
        raise ValueError(f"no .safetensors file in {source}; this project never loads pickled weights")
    tensors: dict[str, torch.Tensor] = {}
    for file in files:
        tensors.update(read_safetensors(file, "download the checkpoint again (or re-save it)"))
    return {key.removeprefix("bert."): value for key, value in tensors.items()}


def copy_weights(module: nn.Module, state_dict: dict[str, torch.Tensor],
                 name_map: dict[str, str], prefix: str = "", complete: bool = False, source: str = "BERT") -> None:
    """For each (ours, theirs) in `name_map`, copy state_dict[prefix + theirs] into module's `ours`.
    Raise ValueError naming every checkpoint key that is missing or has the wrong shape, and, if
    `complete`, every weight under the map's top-level parts (e.g. 'encoder.') that it leaves out."""
    ours = dict(module.state_dict())
    missing = [prefix + theirs for theirs in name_map.values() if prefix + theirs not in state_dict]
    if missing:
        raise ValueError(f"checkpoint is not {source}-like: missing keys {missing[:8]}"
                         + (f" and {len(missing) - 8} more" if len(missing) > 8 else ""))
    if complete:
        parts = tuple(f"{prefix}{theirs.split('.')[0]}." for theirs in name_map.values())
        known = {prefix + theirs for theirs in name_map.values()}
        unexpected = sorted(key for key, value in state_dict.items() if key.startswith(parts)
                            and key not in known and value.is_floating_point())  # not id buffers
        if unexpected:
            raise ValueError(f"{source} checkpoint has weights our model has no place for: unexpected keys "
                             f"{unexpected[:8]}; does its config fit our model's (e.g. num_hidden_layers)?")
    with torch.no_grad():
        for our_name, their_name in name_map.items():
            source, target = state_dict[prefix + their_name], ours[our_name]
            if source.shape != target.shape:
                raise ValueError(f"{prefix + their_name} has shape {tuple(source.shape)}, "
                                 f"but {our_name} expects {tuple(target.shape)}")
            target.copy_(source)
