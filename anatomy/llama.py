"""A Llama-style decoder: RMSNorm, rotary positions, grouped-query attention, SwiGLU; loads HF's LlamaForCausalLM.

Taught in: 12_modern_block.  Shapes: B batch, T new tokens, Tk all tokens, D model width, V vocabulary.
The wiring is 11's GPT (pre-norm residual blocks, causal + padding mask, the same KV cache and
generate); what changed is inside each block, and that positions are rotations, not an embedding.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from anatomy.gpt import CausalLMOutput, decoder_mask, positions_from_padding
from anatomy.gqa import GroupedQueryAttention
from anatomy.kv_cache import KVCache
from anatomy.rmsnorm import RMSNorm
from anatomy.rotary import pairs_from_halves
from anatomy.swiglu import SwiGLU


@dataclass
class LlamaConfig:
    vocab_size: int = 32000
    hidden_size: int = 4096
    intermediate_size: int = 11008
    num_hidden_layers: int = 32
    num_attention_heads: int = 32
    num_key_value_heads: int = 32  # fewer than num_attention_heads = grouped-query attention
    max_position_embeddings: int = 4096  # the context window (RoPE itself has no table to run out of)
    rms_norm_eps: float = 1e-6
    rope_theta: float = 10000.0


class LlamaBlock(nn.Module):
    """x = x + attention(norm(x)); x = x + swiglu(norm(x)): pre-norm, as in 11's GPT."""

    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.input_norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.self_attn = GroupedQueryAttention(config.hidden_size, config.num_attention_heads,
                                               config.num_key_value_heads, config.rope_theta)
        self.post_attention_norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.feed_forward = SwiGLU(config.hidden_size, config.intermediate_size)

    def forward(self, x, positions, mask=None, cache=None) -> tuple[torch.Tensor, torch.Tensor]:
        attended, weights = self.self_attn(self.input_norm(x), positions, mask, cache)
        x = x + attended
        return x + self.feed_forward(self.post_attention_norm(x)), weights  # (B, T, D)


class Llama(nn.Module):
    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.config = config
        self.token_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)  # no position table
        self.layers = nn.ModuleList(LlamaBlock(config) for _ in range(config.num_hidden_layers))
        self.final_norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    def new_cache(self) -> KVCache:
        return KVCache(self.config.num_hidden_layers)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                position_ids: torch.Tensor | None = None, cache: KVCache | None = None,
                output_attentions: bool = False) -> CausalLMOutput:
        """The same interface as anatomy.gpt.GPT: attention_mask (B, Tk) covers cached and new tokens."""
        past = 0 if cache is None else cache.length
        num_keys = past + input_ids.size(1)
        if attention_mask is not None and attention_mask.shape != (input_ids.size(0), num_keys):
            raise ValueError(f"attention_mask must be (B, cached + new tokens) = {(input_ids.size(0), num_keys)}, "
                             f"got {tuple(attention_mask.shape)}")
        if position_ids is None:
            position_ids = (torch.arange(past, num_keys, device=input_ids.device).expand_as(input_ids)
                            if attention_mask is None else positions_from_padding(attention_mask)[:, past:])
        mask = decoder_mask(input_ids.size(1), attention_mask, num_keys, input_ids.device)
        x = self.token_embeddings(input_ids)  # (B, T, D)
        attentions = []
        for i, layer in enumerate(self.layers):
            x, weights = layer(x, position_ids, mask, None if cache is None else cache[i])
            attentions.append(weights)
        logits = self.lm_head(self.final_norm(x))  # (B, T, V)
        return CausalLMOutput(logits, tuple(attentions) if output_attentions else None)


@torch.no_grad()
def llama_from_hf(hf_model: Any) -> Llama:
    """Our Llama holding the weights of a transformers.LlamaForCausalLM; q/k rows reordered for our RoPE pairs."""
    hf = hf_model.config
    config = LlamaConfig(hf.vocab_size, hf.hidden_size, hf.intermediate_size, hf.num_hidden_layers,
                         hf.num_attention_heads, hf.num_key_value_heads, hf.max_position_embeddings,
                         hf.rms_norm_eps, hf.rope_parameters["rope_theta"])
    model, source = Llama(config), hf_model.state_dict()
    renames = {"token_embeddings": "model.embed_tokens", "final_norm": "model.norm", "lm_head": "lm_head",
               "input_norm": "input_layernorm", "post_attention_norm": "post_attention_layernorm",
               "self_attn.out_proj": "self_attn.o_proj", "feed_forward": "mlp", "layers": "model.layers"}
    for name, parameter in model.named_parameters():
        theirs = name
        for ours, hf_name in renames.items():
            theirs = theirs.replace(ours, hf_name)
        weight = source[theirs]
        if name.endswith(("q_proj.weight", "k_proj.weight")):
            heads = config.num_attention_heads if "q_proj" in name else config.num_key_value_heads
            weight = pairs_from_halves(weight, heads)
        parameter.copy_(weight)
    return model.eval()
