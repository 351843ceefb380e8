"""A GPT: decoder-only = our pre-LN layers + a causal mask + an LM head tied to the token embedding.

Taught in: 11_gpt.  Shapes: B batch, H heads, T new tokens, Tk all tokens (cached + new), D model
width, V vocabulary.
Nothing here is new except the wiring: the layers are 05's TransformerEncoderLayer with
norm_first=True, the masks are 03's causal and padding masks, the LM head is 06's tied projection.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from safetensors.torch import load_model, save_model
from torch import nn

from anatomy.embeddings import check_token_ids
from anatomy.encoder import TransformerEncoderLayer
from anatomy.kv_cache import KVCache
from anatomy.masks import causal_mask, padding_mask


@dataclass
class GPTConfig:
    """Defaults are GPT-2 small (124M parameters)."""
    vocab_size: int = 50257
    hidden_size: int = 768
    num_attention_heads: int = 12
    num_hidden_layers: int = 12
    intermediate_size: int = 3072
    max_position_embeddings: int = 1024  # the context window
    hidden_act: str = "gelu_new"  # GPT-2's tanh approximation of GELU
    layer_norm_eps: float = 1e-5
    hidden_dropout_prob: float = 0.0
    attention_probs_dropout_prob: float = 0.0


@dataclass
class CausalLMOutput:
    logits: torch.Tensor  # (B, T, V)
    attentions: tuple[torch.Tensor, ...] | None = None  # one (B, H, T, Tk) per layer


def positions_from_padding(attention_mask: torch.Tensor) -> torch.Tensor:
    """(B, T) 1/0 mask -> (B, T) position ids counting real tokens only, so that a left-padded
    prompt starts at position 0 like an unpadded one (padding gets 0; it is never attended to)."""
    return (attention_mask.long().cumsum(dim=-1) - 1).clamp(min=0)  # (B, T)


def decoder_mask(num_new: int, attention_mask: torch.Tensor | None, num_keys: int,
                 device: torch.device) -> torch.Tensor:
    """True where new token i may attend to key j: j is not in its future and j is a real token.
    Returns (T, Tk) without an attention_mask, else (B, 1, T, Tk)."""
    causal = causal_mask(num_new, num_keys, device=device)  # (T, Tk), aligned at the end
    return causal if attention_mask is None else causal & padding_mask(attention_mask)  # (B, 1, T, Tk)


class GPT(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.config = config
        self.token_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)  # 02's, no LayerNorm
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.layers = nn.ModuleList(TransformerEncoderLayer(config, norm_first=True)
                                    for _ in range(config.num_hidden_layers))
        self.final_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)  # pre-LN needs one
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.lm_head.weight = self.token_embeddings.weight  # tied: one (V, D) matrix reads and writes tokens
        self.apply(self.init_weights)

    @staticmethod
    def init_weights(module: nn.Module) -> None:
        """GPT-2's initialisation: N(0, 0.02) matrices and embeddings, zero biases."""
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def new_cache(self) -> KVCache:
        return KVCache(self.config.num_hidden_layers)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                position_ids: torch.Tensor | None = None, cache: KVCache | None = None,
                output_attentions: bool = False) -> CausalLMOutput:
        """Next-token logits at every new position. `attention_mask` (B, Tk) covers the cached
        tokens and the new ones (1 = real, 0 = padding); position ids default to counting real tokens."""
        if input_ids.dim() != 2:
            raise ValueError(f"input_ids must be (B, T), got shape {tuple(input_ids.shape)}")
        check_token_ids(input_ids, self.config.vocab_size)
        past = 0 if cache is None else cache.length
        num_keys = past + input_ids.size(1)
        if attention_mask is not None and attention_mask.shape != (input_ids.size(0), num_keys):
            raise ValueError(f"attention_mask must be (B, cached + new tokens) = {(input_ids.size(0), num_keys)}, "
                             f"got {tuple(attention_mask.shape)}")
        if position_ids is None:
            position_ids = (torch.arange(past, num_keys, device=input_ids.device).expand_as(input_ids)
                            if attention_mask is None else positions_from_padding(attention_mask)[:, past:])
        if num_keys > self.config.max_position_embeddings:
            raise ValueError(f"{num_keys} tokens do not fit the context window of "
                             f"{self.config.max_position_embeddings} (max_position_embeddings)")
        mask = decoder_mask(input_ids.size(1), attention_mask, num_keys, input_ids.device)
        x = self.dropout(self.token_embeddings(input_ids) + self.position_embeddings(position_ids))  # (B, T, D)
        attentions = []
        for i, layer in enumerate(self.layers):
            x, weights = layer(x, mask, cache=None if cache is None else cache[i])  # (B, T, D)
            attentions.append(weights)
        logits = self.lm_head(self.final_norm(x))  # (B, T, V)
        return CausalLMOutput(logits, tuple(attentions) if output_attentions else None)

    def save_pretrained(self, folder: str | Path) -> None:
        """config.json and model.safetensors (the tied matrix stored once)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config.json").write_text(json.dumps(asdict(self.config), indent=2) + "\n")
        save_model(self, str(folder / "model.safetensors"))

    @classmethod
    def from_pretrained(cls, folder: str | Path) -> GPT:
        folder = Path(folder)
        model = cls(GPTConfig(**json.loads((folder / "config.json").read_text())))
        load_model(model, str(folder / "model.safetensors"))
        return model.eval()
