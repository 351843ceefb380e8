"""Loading a Hugging Face GPT-2 into our GPT: the names differ, and GPT-2's Conv1D stores weights transposed.

Taught in: 11_gpt.  Shapes: D model width, F intermediate width.
HF's `Conv1D` computes x @ W + b with W of shape (in, out); nn.Linear computes x @ W.T + b with W
of shape (out, in). So every Conv1D weight is transposed on the way in, and the fused query-key-value
projection c_attn (D, 3D) is cut into our q_proj, k_proj and v_proj. Before copying, the loader
refuses every GPT-2 variant our GPT does not compute (anatomy.checkpoints.loader_checks).
"""
from __future__ import annotations

from typing import Any

import torch

from anatomy.layers.feedforward import ACTIVATIONS
from anatomy.models.gpt import GPT, GPTConfig
from anatomy.checkpoints.loader_checks import check_config_fields, check_weight_names

GPT2_FIELDS = {
    "model_type": ("gpt2", "gpt_from_gpt2 reads GPT-2 checkpoints only"),
    "scale_attn_weights": (True, "our attention always divides the scores by √Dh"),
    "scale_attn_by_inverse_layer_idx": (False, "our layers never divide the scores by the layer number"),
    "add_cross_attention": (False, "our GPT is decoder-only: it has no cross-attention"),
    "tie_word_embeddings": (True, "our lm_head is tied to the token embedding matrix"),
    "activation_function": (tuple(ACTIVATIONS), "the activations our feed-forward implements"),
}
CONV1D = {"self_attn.out_proj": "attn.c_proj", "feed_forward.linear_1": "mlp.c_fc",
          "feed_forward.linear_2": "mlp.c_proj"}  # ours -> GPT-2's, each weight transposed on the way in
NORMS = {"layer_norm_1": "ln_1", "layer_norm_2": "ln_2"}


def gpt2_weight_names(num_layers: int) -> set[str]:
    """Every weight of a GPT2LMHeadModel with `num_layers` blocks, by its state_dict name."""
    names = {"transformer.wte.weight", "transformer.wpe.weight", "lm_head.weight"}
    for part in ("transformer.ln_f", *(f"transformer.h.{i}.{part}" for i in range(num_layers)
                                       for part in ("attn.c_attn", *CONV1D.values(), *NORMS.values()))):
        names |= {f"{part}.weight", f"{part}.bias"}
    return names


def config_from_gpt2(hf_config: Any) -> GPTConfig:
    """Our GPTConfig with the sizes of a transformers.GPT2Config."""
    return GPTConfig(vocab_size=hf_config.vocab_size, hidden_size=hf_config.n_embd,
                     num_attention_heads=hf_config.n_head, num_hidden_layers=hf_config.n_layer,
                     intermediate_size=hf_config.n_inner or 4 * hf_config.n_embd,
                     max_position_embeddings=hf_config.n_positions,
                     hidden_act=hf_config.activation_function, layer_norm_eps=hf_config.layer_norm_epsilon,
                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)


def check_gpt2(hf_model: Any) -> dict[str, torch.Tensor]:
    """The state dict of `hf_model`, once every field and every weight is one our GPT implements."""
    if not hasattr(hf_model, "config") or not callable(getattr(hf_model, "state_dict", None)):
        raise TypeError(f"gpt_from_gpt2 needs a transformers.GPT2LMHeadModel, got {type(hf_model).__name__}")
    check_config_fields(hf_model.config, GPT2_FIELDS, "GPT-2")
    source = hf_model.state_dict()
    check_weight_names(source, gpt2_weight_names(hf_model.config.n_layer), "GPT-2",
                       "; pass a transformers.GPT2LMHeadModel (a GPT2Model has no lm_head and no 'transformer.' prefix)",
                       ignore=lambda name: not source[name].is_floating_point())  # e.g. old causal-mask buffers
    if not torch.equal(source["lm_head.weight"], source["transformer.wte.weight"]):
        raise ValueError("this GPT-2's lm_head.weight differs from transformer.wte.weight: an untied LM head is not "
                         "supported (our lm_head is the token embedding matrix); load a GPT-2 with tied weights")
    return source


@torch.no_grad()
def gpt_from_gpt2(hf_model: Any) -> GPT:
    """Our GPT holding the weights of a transformers.GPT2LMHeadModel, in eval mode."""
    source = check_gpt2(hf_model)
    model = GPT(config_from_gpt2(hf_model.config))
    model.token_embeddings.weight.copy_(source["transformer.wte.weight"])
    model.position_embeddings.weight.copy_(source["transformer.wpe.weight"])
    model.final_norm.weight.copy_(source["transformer.ln_f.weight"])
    model.final_norm.bias.copy_(source["transformer.ln_f.bias"])
    for i, layer in enumerate(model.layers):
        prefix = f"transformer.h.{i}."
        q, k, v = source[prefix + "attn.c_attn.weight"].t().chunk(3, dim=0)  # (3D, D) -> 3 x (D, D)
        q_bias, k_bias, v_bias = source[prefix + "attn.c_attn.bias"].chunk(3)
        for linear, weight, bias in ((layer.self_attn.q_proj, q, q_bias), (layer.self_attn.k_proj, k, k_bias),
                                     (layer.self_attn.v_proj, v, v_bias)):
            linear.weight.copy_(weight)
            linear.bias.copy_(bias)
        for ours, theirs in CONV1D.items():
            linear = layer.get_submodule(ours)
            linear.weight.copy_(source[prefix + theirs + ".weight"].t())  # Conv1D (in, out) -> Linear (out, in)
            linear.bias.copy_(source[prefix + theirs + ".bias"])
        for ours, theirs in NORMS.items():
            getattr(layer, ours).weight.copy_(source[prefix + theirs + ".weight"])
            getattr(layer, ours).bias.copy_(source[prefix + theirs + ".bias"])
    return model.eval()
