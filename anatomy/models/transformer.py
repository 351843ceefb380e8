"""The whole Transformer of "Attention Is All You Need": encoder, decoder, and a projection to the
vocabulary, saved and loaded as safetensors (decoding lives in anatomy.generation.greedy).

Taught in: 06_decoder (built, checked against torch.nn.Transformer) and 07_training (trained).
Shapes: B batch, H heads, Ts source tokens, Tt target tokens, D model width, V vocabulary.
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import save_file
from torch import nn

from anatomy.checkpoints.checkpoint_files import load_weights_file, read_config
from anatomy.models.decoder import TransformerDecoder
from anatomy.layers.embeddings import LearnedPositionEmbeddings, SinusoidalEmbeddings
from anatomy.models.encoder import TransformerEncoderLayer
from anatomy.layers.masks import causal_padding_mask, padding_mask
from anatomy.models.transformer_config import TransformerConfig


@dataclass
class Seq2SeqOutput:
    logits: torch.Tensor  # (B, Tt, V)
    encoder_attentions: tuple[torch.Tensor, ...] | None = None  # (B, H, Ts, Ts) per layer
    decoder_attentions: tuple[torch.Tensor, ...] | None = None  # (B, H, Tt, Tt) per layer
    cross_attentions: tuple[torch.Tensor, ...] | None = None  # (B, H, Tt, Ts) per layer


def check_padding(mask: torch.Tensor | None, ids: torch.Tensor, name: str, ids_name: str) -> None:
    if mask is not None and not isinstance(mask, torch.Tensor):
        raise TypeError(f"{name} must be a (B, T) tensor (True = real token), got {type(mask).__name__}")
    if mask is not None and mask.shape != ids.shape:
        raise ValueError(f"{name} must have the shape of {ids_name}, (B, T) = {tuple(ids.shape)} "
                         f"(True = real token), got {tuple(mask.shape)}")


class Transformer(nn.Module):
    def __init__(self, config: TransformerConfig | Mapping[str, Any]) -> None:
        super().__init__()
        if isinstance(config, Mapping):
            config = TransformerConfig.from_dict(config)
        if not isinstance(config, TransformerConfig):
            raise TypeError(f"config must be an anatomy.TransformerConfig (or a dict of its fields), "
                            f"got {type(config).__name__}")
        self.config = config
        embeddings = LearnedPositionEmbeddings if config.position_embedding == "learned" else SinusoidalEmbeddings
        self.src_embeddings = embeddings(config)
        self.tgt_embeddings = self.src_embeddings if config.tie_embeddings else embeddings(config)
        self.encoder_layers = nn.ModuleList(TransformerEncoderLayer(config, config.norm_first)
                                            for _ in range(config.num_encoder_layers))
        self.encoder_norm = (nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
                             if config.final_norm or config.norm_first else nn.Identity())
        self.decoder = TransformerDecoder(config, config.norm_first, config.final_norm or config.norm_first)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        if config.tie_embeddings:
            self.lm_head.weight = self.tgt_embeddings.token_embeddings.weight
        self.init_weights()

    @torch.no_grad()
    def init_weights(self) -> None:
        """Xavier-uniform matrices (as torch.nn.Transformer does); embeddings N(0, 1/D), so that after
        the x sqrt(D) scaling a token vector is about as large as its sinusoidal position vector
        (a learned position table: see LearnedPositionEmbeddings.reset_parameters)."""
        for name, parameter in self.named_parameters():
            if parameter.dim() > 1 and "_embeddings." not in name:
                nn.init.xavier_uniform_(parameter)
        for embeddings in dict.fromkeys([self.src_embeddings, self.tgt_embeddings]):  # one when tied, in order
            nn.init.normal_(embeddings.token_embeddings.weight, std=self.config.hidden_size ** -0.5)
            if isinstance(embeddings, LearnedPositionEmbeddings):
                embeddings.reset_parameters()

    def encode(self, src_ids: torch.Tensor, src_mask: torch.Tensor | None = None,
               output_attentions: bool = False) -> tuple[torch.Tensor, tuple[torch.Tensor, ...] | None]:
        """Returns (memory (B, Ts, D), encoder self-attention weights per layer or None)."""
        x = self.src_embeddings(src_ids, "src_ids")  # (B, Ts, D)
        check_padding(src_mask, src_ids, "src_mask", "src_ids")
        mask = None if src_mask is None else padding_mask(src_mask)  # (B, 1, 1, Ts)
        attentions = []
        for layer in self.encoder_layers:
            x, weights = layer(x, mask, need_weights=output_attentions)
            attentions.append(weights)
        return self.encoder_norm(x), tuple(attentions) if output_attentions else None

    def decode(self, tgt_ids: torch.Tensor, memory: torch.Tensor | None, src_mask: torch.Tensor | None = None,
               tgt_mask: torch.Tensor | None = None, output_attentions: bool = False) -> Seq2SeqOutput:
        """Logits for the next token at every target position; each position sees only earlier ones."""
        x = self.tgt_embeddings(tgt_ids, "tgt_ids")  # (B, Tt, D)
        check_padding(tgt_mask, tgt_ids, "tgt_mask", "tgt_ids")
        if tgt_mask is None:
            tgt_mask = torch.ones_like(tgt_ids, dtype=torch.bool)
        self_mask = causal_padding_mask(tgt_mask)  # (B, 1, Tt, Tt)
        if memory is not None and src_mask is not None and src_mask.shape != memory.shape[:2]:
            raise ValueError(f"src_mask must be (B, Ts) = {tuple(memory.shape[:2])}, the memory's first "
                             f"two dims, got {tuple(src_mask.shape)}")
        memory_mask = None if src_mask is None else padding_mask(src_mask)  # (B, 1, 1, Ts): no causal mask
        out = self.decoder(x, memory, self_mask, memory_mask, output_attentions)
        return Seq2SeqOutput(self.lm_head(out.last_hidden_state), None,  # (B, Tt, V)
                             out.self_attentions, out.cross_attentions)

    def forward(self, src_ids: torch.Tensor, tgt_ids: torch.Tensor, src_mask: torch.Tensor | None = None,
                tgt_mask: torch.Tensor | None = None, output_attentions: bool = False) -> Seq2SeqOutput:
        """src_mask (B, Ts) and tgt_mask (B, Tt) mark real tokens (True/1) and padding (False/0);
        the decoder's causal mask is always applied."""
        if (isinstance(src_ids, torch.Tensor) and isinstance(tgt_ids, torch.Tensor) and src_ids.dim() == 2
                and tgt_ids.dim() == 2 and src_ids.size(0) != tgt_ids.size(0)):
            raise ValueError(f"src_ids and tgt_ids batch sizes differ: {src_ids.size(0)} vs {tgt_ids.size(0)}")
        memory, encoder_attentions = self.encode(src_ids, src_mask, output_attentions)
        output = self.decode(tgt_ids, memory, src_mask, tgt_mask, output_attentions)
        output.encoder_attentions = encoder_attentions
        return output

    def save_pretrained(self, folder: str | Path) -> None:
        """Write config.json and model.safetensors; a tied matrix is stored once, under its first name,
        so the same weights always give the same bytes. Each file is replaced whole (written aside,
        then renamed), so a reader never sees half a file."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config.json.tmp").write_text(json.dumps(asdict(self.config), indent=2) + "\n")
        unique, seen = {}, set()
        for name, tensor in self.state_dict().items():
            if tensor.data_ptr() not in seen:
                seen.add(tensor.data_ptr())
                unique[name] = tensor.detach().cpu().contiguous()
        save_file(unique, str(folder / "model.safetensors.tmp"))
        for name in ("config.json", "model.safetensors"):
            os.replace(folder / f"{name}.tmp", folder / name)

    @classmethod
    def from_pretrained(cls, folder: str | Path) -> Transformer:
        """The model saved in `folder`; a missing, damaged or mismatched file is named
        (anatomy.checkpoints.checkpoint_files)."""
        hint = "run notebooks/07_training.ipynb to train and save the model again"
        model = cls(read_config(TransformerConfig, folder, hint))
        load_weights_file(model, folder, hint)
        return model.eval()
