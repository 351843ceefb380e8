"""Loading Hugging Face's ViTForImageClassification into our VisionTransformer: a name table, and
HF's Conv2d patch kernel (D, C, P, P) flattened into our (D, C*P*P) linear layer.

Taught in: 14_vision_transformer.  Shapes: D model width, C channels, P patch side.
Before copying, the loader refuses a config our ViT does not compute (e.g. no q/k/v biases) and a
state dict with weights the model has no place for (e.g. a third layer for a two-layer model).
"""
from __future__ import annotations

from typing import Any

import torch

from anatomy.weights.bert_weights import copy_weights
from anatomy.layers.feedforward import ACTIVATIONS
from anatomy.checkpoints.loader_checks import check_config_fields
from anatomy.models.vit import VisionTransformer

VIT_FIELDS = {"model_type": ("vit", "vit_from_hf reads ViT checkpoints only"),
              "hidden_act": (tuple(ACTIVATIONS), "the activations our feed-forward implements"),
              "qkv_bias": (True, "our q/k/v projections always have biases")}
HF_LAYER = {"layer_norm_1": "layernorm_before", "self_attn.q_proj": "attention.q_proj",
            "self_attn.k_proj": "attention.k_proj", "self_attn.v_proj": "attention.v_proj",
            "self_attn.out_proj": "attention.o_proj", "layer_norm_2": "layernorm_after",
            "feed_forward.linear_1": "mlp.fc1", "feed_forward.linear_2": "mlp.fc2"}


def hf_vit_name_map(num_layers: int) -> dict[str, str]:
    """Our VisionTransformer's parameter names -> transformers 5's ViTForImageClassification's."""
    name_map = {"cls_token": "vit.embeddings.cls_token",
                "position_embeddings": "vit.embeddings.position_embeddings",
                "patch_embeddings.projection.weight": "vit.embeddings.patch_embeddings.projection.weight",
                "patch_embeddings.projection.bias": "vit.embeddings.patch_embeddings.projection.bias",
                "final_norm.weight": "vit.layernorm.weight", "final_norm.bias": "vit.layernorm.bias",
                "classifier.weight": "classifier.weight", "classifier.bias": "classifier.bias"}
    for i in range(num_layers):
        for ours, theirs in HF_LAYER.items():
            for kind in ("weight", "bias"):
                name_map[f"layers.{i}.{ours}.{kind}"] = f"vit.layers.{i}.{theirs}.{kind}"
    return name_map


def load_hf_vit_weights(model: VisionTransformer, hf_state_dict: dict[str, torch.Tensor]) -> VisionTransformer:
    """Copy a ViTForImageClassification's state dict into `model`: every weight, each of the model's
    shape, and none left over (a checkpoint with more layers than the model is refused)."""
    if not isinstance(model, VisionTransformer) or not isinstance(hf_state_dict, dict):
        raise TypeError(f"load_hf_vit_weights(model, hf_model.state_dict()) needs our VisionTransformer and a dict of "
                        f"tensors, got {type(model).__name__} and {type(hf_state_dict).__name__}")
    check_config_fields(model.config, VIT_FIELDS, "ViT")  # an HF ViTConfig the model was built from
    state = dict(hf_state_dict)
    conv = "vit.embeddings.patch_embeddings.projection.weight"
    if conv in state:
        state[conv] = state[conv].flatten(1)  # (D, C, P, P) -> (D, C*P*P)
    copy_weights(model, state, hf_vit_name_map(len(model.layers)), complete=True, source="ViTForImageClassification")
    return model


def vit_from_hf(hf_model: Any) -> VisionTransformer:
    """Our VisionTransformer built from a transformers.ViTForImageClassification's config and holding its
    weights, in eval mode."""
    if not hasattr(hf_model, "config") or not callable(getattr(hf_model, "state_dict", None)):
        raise TypeError(f"vit_from_hf needs a transformers.ViTForImageClassification, got {type(hf_model).__name__}")
    check_config_fields(hf_model.config, VIT_FIELDS, "ViT")
    return load_hf_vit_weights(VisionTransformer(hf_model.config), hf_model.state_dict()).eval()
