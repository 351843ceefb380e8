"""BERT's masked-language-model head on our encoder: transform (dense + activation + LayerNorm), then a
decoder tied to the word embeddings, plus a bias of its own.

Taught in: 16_pretraining.  Shapes: B batch, T tokens, D model width, V vocabulary.
Parameter names map one to one onto Hugging Face's BertForMaskedLM (MLM_HEAD), so a checkpoint saved
here loads there and back. Initialised as BERT is: normal(0, initializer_range) weights, zero biases.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from anatomy.checks import check_type, check_vocabulary_ids
from anatomy.checks import check_number
from anatomy.layers.config import require
from anatomy.models.encoder import TransformerEncoder
from anatomy.layers.feedforward import ACTIVATIONS
from anatomy.checkpoints.loader_checks import check_config_fields
from anatomy.models.mlm_masking import IGNORE_INDEX

MLM_HEAD = {"head.dense.weight": "cls.predictions.transform.dense.weight",
            "head.dense.bias": "cls.predictions.transform.dense.bias",
            "head.layer_norm.weight": "cls.predictions.transform.LayerNorm.weight",
            "head.layer_norm.bias": "cls.predictions.transform.LayerNorm.bias",
            "head.bias": "cls.predictions.bias"}
# Each BertForMaskedLM config field beyond the encoder's (anatomy.weights.bert_weights.BERT_FIELDS) our head depends on.
MLM_FIELDS = {"tie_word_embeddings": (True, "our MaskedLMHead decodes with the word-embedding matrix itself; an "
                                            "untied checkpoint's own cls.predictions.decoder.weight would be dropped")}


@torch.no_grad()
def bert_init_(module: nn.Module, std: float = 0.02) -> nn.Module:
    """BERT's initialisation, in place: Linear and Embedding weights ~ N(0, std), biases 0, LayerNorm (1, 0)."""
    check_number("std", std, above=0, hint=" (BERT's initializer_range is 0.02)")
    check_type("module", module, nn.Module)
    for part in module.modules():
        if isinstance(part, (nn.Linear, nn.Embedding)):
            nn.init.normal_(part.weight, std=std)
        if isinstance(part, nn.LayerNorm):
            nn.init.ones_(part.weight)
        if isinstance(getattr(part, "bias", None), torch.Tensor):
            nn.init.zeros_(part.bias)
    return module


class MaskedLMHead(nn.Module):
    """hidden (B, T, D) -> dense -> activation -> LayerNorm -> x @ E^T + bias: logits (B, T, V)."""

    def __init__(self, config: Any, word_embeddings: nn.Embedding) -> None:
        super().__init__()
        config = require(config, "hidden_size", "vocab_size")
        if not isinstance(word_embeddings, nn.Embedding) or word_embeddings.weight.shape != (config.vocab_size,
                                                                                             config.hidden_size):
            got = tuple(word_embeddings.weight.shape) if isinstance(word_embeddings, nn.Embedding) else type(word_embeddings).__name__
            raise ValueError(f"word_embeddings must be an nn.Embedding of shape (vocab_size, hidden_size) = "
                             f"({config.vocab_size}, {config.hidden_size}) to tie the decoder to, got {got}")
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.activation = ACTIVATIONS[getattr(config, "hidden_act", "gelu")]()
        self.layer_norm = nn.LayerNorm(config.hidden_size, eps=getattr(config, "layer_norm_eps", 1e-12))
        self.word_embeddings = [word_embeddings]  # a list: the tied matrix is the encoder's, not a second copy
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))

    @property
    def decoder_weight(self) -> torch.Tensor:
        return self.word_embeddings[0].weight  # (V, D): the very tensor the encoder embeds tokens with

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        x = self.layer_norm(self.activation(self.dense(hidden)))  # (B, T, D)
        return F.linear(x, self.decoder_weight, self.bias)  # (B, T, V)


@dataclass
class MaskedLMOutput:
    logits: torch.Tensor  # (B, T, V)
    loss: torch.Tensor | None = None  # mean cross-entropy over the chosen tokens (labels != -100)


class TransformerForMaskedLM(nn.Module):
    """Our TransformerEncoder (05) + MaskedLMHead; labels (B, T) with -100 where nothing is predicted."""

    def __init__(self, config: Any) -> None:
        super().__init__()
        self.config = config = require(config, "num_hidden_layers")  # a dict becomes attribute access
        self.encoder = TransformerEncoder(config)
        self.head = MaskedLMHead(config, self.encoder.embeddings.token_embeddings)
        bert_init_(self, getattr(config, "initializer_range", 0.02))

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                token_type_ids: torch.Tensor | None = None, labels: torch.Tensor | None = None) -> MaskedLMOutput:
        hidden = self.encoder(input_ids, attention_mask, token_type_ids).last_hidden_state  # (B, T, D)
        logits = self.head(hidden)  # (B, T, V)
        if labels is None:
            return MaskedLMOutput(logits)
        if not isinstance(labels, torch.Tensor) or labels.shape != input_ids.shape:
            got = tuple(labels.shape) if isinstance(labels, torch.Tensor) else type(labels).__name__
            raise ValueError(f"labels must have input_ids' shape {tuple(input_ids.shape)} (-100 where nothing is "
                             f"predicted), got {got}")
        check_vocabulary_ids("labels", labels, logits.size(-1), allowed=(IGNORE_INDEX,))
        if not (labels != IGNORE_INDEX).any():
            raise ValueError("labels are all -100: no token to predict, the loss would be an empty mean (NaN); "
                             "mask the batch with anatomy.models.mlm_masking.mask_tokens")
        loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=IGNORE_INDEX)  # (B*T, V)
        return MaskedLMOutput(logits, loss)

    def name_map(self) -> dict[str, str]:
        """Our parameter names -> BertForMaskedLM's (the tied decoder is the word embedding, stored once)."""
        from anatomy.weights.bert_weights import encoder_name_map

        encoder = {f"encoder.{ours}": f"bert.{theirs}"
                   for ours, theirs in encoder_name_map(self.config.num_hidden_layers).items()}
        return encoder | MLM_HEAD

    def save_pretrained(self, folder: str | Path) -> None:
        """config.json + model.safetensors in BertForMaskedLM's names: Hugging Face loads the folder too."""
        from safetensors.torch import save_file

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        config = self.config.to_dict() if hasattr(self.config, "to_dict") else dict(vars(self.config))
        config |= {"model_type": "bert", "architectures": ["BertForMaskedLM"]}
        config.pop("transformers_version", None)
        ours, types = self.state_dict(), "encoder.embeddings.token_type_embeddings.weight"
        if types not in ours:  # no token types: BERT's one type with a zero vector adds nothing, the same model
            ours[types], config["type_vocab_size"] = torch.zeros(1, self.config.hidden_size), 1
        (folder / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
        save_file({theirs: ours[name].contiguous() for name, theirs in self.name_map().items()},
                  str(folder / "model.safetensors"))

    @classmethod
    def from_pretrained(cls, checkpoint: str | Path | None = None, allow_missing_head: bool = False) -> TransformerForMaskedLM:
        """A BERT checkpoint folder (default: the bundled MiniLM), in eval mode. A checkpoint without the
        MLM head (MiniLM ships none) is refused unless allow_missing_head: then the head keeps BERT's
        initialisation and `missing_keys` names what was not in the checkpoint."""
        from anatomy.weights.bert_weights import copy_weights, load_config, read_state_dict

        config = load_config(checkpoint)
        check_config_fields(config, MLM_FIELDS, "BertForMaskedLM checkpoint")
        model = cls(config)
        state_dict = {f"bert.{key}" if not key.startswith("cls.") else key: value
                      for key, value in read_state_dict(checkpoint).items()}  # read_state_dict drops "bert."
        decoder = state_dict.get("cls.predictions.decoder.weight")  # absent, or the word embeddings again
        if decoder is not None and not torch.equal(decoder, state_dict["bert.embeddings.word_embeddings.weight"]):
            raise ValueError("the checkpoint's cls.predictions.decoder.weight is not its word-embedding matrix (an untied "
                             "decoder, whatever its config says): our tied MaskedLMHead would drop it")
        head = {ours: theirs for ours, theirs in model.name_map().items() if ours.startswith("head.")}
        model.missing_keys = sorted(theirs for theirs in head.values() if theirs not in state_dict)
        if model.missing_keys and not allow_missing_head:
            raise ValueError(f"the checkpoint has no masked-LM head: missing {model.missing_keys}. Pass "
                             "allow_missing_head=True to load the encoder and keep a freshly initialised head")
        copy_weights(model, state_dict, {o: t for o, t in model.name_map().items() if t not in model.missing_keys})
        return model.eval()
