"""Loading a Hugging Face GPT-2 into our GPT: the names differ, and GPT-2's Conv1D stores weights transposed.

Taught in: 11_gpt.  Shapes: D model width, F intermediate width.
HF's `Conv1D` computes x @ W + b with W of shape (in, out); nn.Linear computes x @ W.T + b with W
of shape (out, in). So every Conv1D weight is transposed on the way in, and the fused query-key-value
projection c_attn (D, 3D) is cut into our q_proj, k_proj and v_proj.
"""
from __future__ import annotations

from typing import Any

import torch

from anatomy.gpt import GPT, GPTConfig


def config_from_gpt2(hf_config: Any) -> GPTConfig:
    """Our GPTConfig with the sizes of a transformers.GPT2Config."""
    return GPTConfig(vocab_size=hf_config.vocab_size, hidden_size=hf_config.n_embd,
                     num_attention_heads=hf_config.n_head, num_hidden_layers=hf_config.n_layer,
                     intermediate_size=hf_config.n_inner or 4 * hf_config.n_embd,
                     max_position_embeddings=hf_config.n_positions,
                     hidden_act=hf_config.activation_function, layer_norm_eps=hf_config.layer_norm_epsilon,
                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)


@torch.no_grad()
def gpt_from_gpt2(hf_model: Any) -> GPT:
    """Our GPT holding the weights of a transformers.GPT2LMHeadModel, in eval mode."""
    source = hf_model.state_dict()
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
        pairs = {"self_attn.out_proj": "attn.c_proj", "feed_forward.linear_1": "mlp.c_fc",
                 "feed_forward.linear_2": "mlp.c_proj"}
        for ours, theirs in pairs.items():
            linear = layer.get_submodule(ours)
            linear.weight.copy_(source[prefix + theirs + ".weight"].t())  # Conv1D (in, out) -> Linear (out, in)
            linear.bias.copy_(source[prefix + theirs + ".bias"])
        for ours, theirs in (("layer_norm_1", "ln_1"), ("layer_norm_2", "ln_2")):
            getattr(layer, ours).weight.copy_(source[prefix + theirs + ".weight"])
            getattr(layer, ours).bias.copy_(source[prefix + theirs + ".bias"])
    return model.eval()
