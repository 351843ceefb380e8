"""Loading Hugging Face's LlamaForCausalLM into our Llama: a rename table, and q/k rows reordered for our RoPE pairs.

Taught in: 12_modern_block.  Shapes: H heads, Hkv key-value heads, Dh head width, D model width.
Before copying, the loader refuses every Llama variant our Llama does not compute: scaled RoPE,
biases, another activation, a head width of its own (anatomy.checkpoints.loader_checks).
"""
from __future__ import annotations

from typing import Any

import torch

from anatomy.models.llama import Llama, LlamaConfig
from anatomy.checkpoints.loader_checks import check_config_fields, check_weight_names
from anatomy.layers.rotary import pairs_from_halves

RENAMES = {"token_embeddings": "model.embed_tokens", "final_norm": "model.norm", "lm_head": "lm_head",
           "input_norm": "input_layernorm", "post_attention_norm": "post_attention_layernorm",
           "self_attn.out_proj": "self_attn.o_proj", "feed_forward": "mlp", "layers": "model.layers"}


def unscaled_rope(parameters: Any) -> bool:
    return parameters is None or (isinstance(parameters, dict) and parameters.get("rope_type", "default") == "default")


def llama_fields(hf_config: Any) -> dict[str, tuple[Any, str]]:
    """Each LlamaConfig field our Llama depends on: (the values it implements, why)."""
    head_dim = hf_config.hidden_size // hf_config.num_attention_heads
    return {"model_type": ("llama", "llama_from_hf reads Llama checkpoints only"),
            "hidden_act": ("silu", "our SwiGLU gates with SiLU"),
            "attention_bias": (False, "our q/k/v/o projections have no bias"),
            "mlp_bias": (False, "our SwiGLU's projections have no bias"),
            # transformers 5 reads an old config's rope_scaling into rope_parameters; check whichever is there
            "rope_parameters" if hasattr(hf_config, "rope_parameters") else "rope_scaling":
                (unscaled_rope, "our RoPE is unscaled, rope_type 'default': angle = position x rope_theta^(-2i/Dh)"),
            "head_dim": ((None, head_dim), "our head width is hidden_size / num_attention_heads")}


def their_name(ours: str) -> str:
    for name, hf_name in RENAMES.items():
        ours = ours.replace(name, hf_name)
    return ours


@torch.no_grad()
def llama_from_hf(hf_model: Any) -> Llama:
    """Our Llama holding the weights of a transformers.LlamaForCausalLM, in eval mode."""
    if not hasattr(hf_model, "config") or not callable(getattr(hf_model, "state_dict", None)):
        raise TypeError(f"llama_from_hf needs a transformers.LlamaForCausalLM, got {type(hf_model).__name__}")
    hf = hf_model.config
    check_config_fields(hf, llama_fields(hf), "Llama")
    config = LlamaConfig(hf.vocab_size, hf.hidden_size, hf.intermediate_size, hf.num_hidden_layers,
                         hf.num_attention_heads, hf.num_key_value_heads, hf.max_position_embeddings,
                         hf.rms_norm_eps, hf.rope_parameters["rope_theta"])
    model, source = Llama(config), hf_model.state_dict()
    names = {name: their_name(name) for name, _ in model.named_parameters()}
    check_weight_names(source, names.values(), "Llama", "; pass a transformers.LlamaForCausalLM (a LlamaModel "
                       "has no lm_head and no 'model.' prefix)", ignore=lambda name: name.endswith("rotary_emb.inv_freq"))
    for name, parameter in model.named_parameters():
        weight = source[names[name]]
        if name.endswith(("q_proj.weight", "k_proj.weight")):
            heads = config.num_attention_heads if "q_proj" in name else config.num_key_value_heads
            weight = pairs_from_halves(weight, heads)
        parameter.copy_(weight)
    return model.eval()
