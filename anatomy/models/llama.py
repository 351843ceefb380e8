"""A Llama-style decoder: RMSNorm, rotary positions, grouped-query attention, SwiGLU.

Taught in: 12_modern_block.  Shapes: B batch, T new tokens, Tk all tokens, D model width, V vocabulary.
The wiring is 11's GPT (pre-norm residual blocks, causal + padding mask, the same KV cache and
generate); what changed is inside each block, and that positions are rotations, not an embedding.
Loading HF's LlamaForCausalLM: anatomy.weights.llama_weights.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from anatomy.checks import check_number, check_type
from anatomy.layers.config import check_model_sizes
from anatomy.models.decoder_inputs import check_decoder_call, decoder_mask
from anatomy.models.gpt import CausalLMOutput
from anatomy.layers.gqa import GroupedQueryAttention
from anatomy.layers.kv_cache import KVCache
from anatomy.layers.rmsnorm import RMSNorm
from anatomy.layers.swiglu import SwiGLU


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

    def __post_init__(self) -> None:
        check_model_sizes(self, "num_key_value_heads")
        if self.num_attention_heads % self.num_key_value_heads:
            raise ValueError(f"num_key_value_heads ({self.num_key_value_heads}) must divide num_attention_heads "
                             f"({self.num_attention_heads}): each key-value head serves a whole group of query heads")
        if self.hidden_size // self.num_attention_heads % 2:
            raise ValueError(f"the head width hidden_size / num_attention_heads = {self.hidden_size} / "
                             f"{self.num_attention_heads} must be even: RoPE rotates pairs of coordinates")
        check_number("rms_norm_eps", self.rms_norm_eps, above=0)
        check_number("rope_theta", self.rope_theta, above=0)


class LlamaBlock(nn.Module):
    """x = x + attention(norm(x)); x = x + swiglu(norm(x)): pre-norm, as in 11's GPT."""

    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        check_type("config", config, LlamaConfig)
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
        self.config = check_type("config", config, LlamaConfig)
        self.token_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)  # no position table
        self.layers = nn.ModuleList(LlamaBlock(config) for _ in range(config.num_hidden_layers))
        self.final_norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    def new_cache(self) -> KVCache:
        return KVCache(self.config.num_hidden_layers)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                position_ids: torch.Tensor | None = None, cache: KVCache | None = None,
                output_attentions: bool = False) -> CausalLMOutput:
        """The same interface as anatomy.models.gpt.GPT: attention_mask (B, Tk) covers cached and new tokens."""
        past, position_ids = check_decoder_call(self.config, input_ids, attention_mask, position_ids, cache)
        num_keys = past + input_ids.size(1)
        mask = decoder_mask(input_ids.size(1), attention_mask, num_keys, input_ids.device)
        x = self.token_embeddings(input_ids)  # (B, T, D)
        attentions = []
        for i, layer in enumerate(self.layers):
            x, weights = layer(x, position_ids, mask, None if cache is None else cache[i])
            attentions.append(weights)
        logits = self.lm_head(self.final_norm(x))  # (B, T, V)
        return CausalLMOutput(logits, tuple(attentions) if output_attentions else None)
