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
from safetensors.torch import save_model
from torch import nn

from anatomy.checkpoints.checkpoint_files import load_weights_file, read_config
from anatomy.checks import check_type
from anatomy.layers.config import check_layer_settings, check_model_sizes
from anatomy.models.decoder_inputs import check_decoder_call, decoder_mask
from anatomy.models.encoder import TransformerEncoderLayer
from anatomy.layers.feedforward import ACTIVATIONS
from anatomy.layers.kv_cache import KVCache


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

    def __post_init__(self) -> None:
        check_model_sizes(self)
        check_layer_settings(self, ACTIVATIONS)


@dataclass
class CausalLMOutput:
    logits: torch.Tensor  # (B, T, V)
    attentions: tuple[torch.Tensor, ...] | None = None  # one (B, H, T, Tk) per layer


class GPT(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.config = check_type("config", config, GPTConfig)
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
        tokens and the new ones (1 = real, 0 = padding); position ids default to counting real tokens.
        With a cache, attention weights are computed only if output_attentions asks (hooks record them
        on a forward without a cache): materialising them would cost a generation step more than its attention."""
        past, position_ids = check_decoder_call(self.config, input_ids, attention_mask, position_ids, cache)
        num_keys = past + input_ids.size(1)
        one_new = attention_mask is None and input_ids.size(1) == 1  # a cached step: it may attend to every key
        mask = None if one_new else decoder_mask(input_ids.size(1), attention_mask, num_keys, input_ids.device)
        x = self.dropout(self.token_embeddings(input_ids) + self.position_embeddings(position_ids))  # (B, T, D)
        attentions = []
        need_weights = output_attentions or cache is None  # a cached step (generation) runs the fused kernel
        for i, layer in enumerate(self.layers):
            x, weights = layer(x, mask, need_weights=need_weights, cache=None if cache is None else cache[i])
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
        """The GPT saved in `folder`; a missing, damaged or mismatched file is named
        (anatomy.checkpoints.checkpoint_files)."""
        hint = "save the model again with model.save_pretrained(folder)"
        model = cls(read_config(GPTConfig, folder, hint))
        load_weights_file(model, folder, hint)
        return model.eval()
