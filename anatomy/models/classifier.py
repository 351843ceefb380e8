"""A sequence classifier as BERT builds it: [CLS] vector -> pooler (linear + tanh) -> dropout -> linear.

Taught in: 05_encoder (built) and 09_fine_tuning (trained).  Shapes: B batch, T tokens, D model width, L labels.
"""
from __future__ import annotations

from typing import Any

import torch
from torch import nn

from anatomy.layers.config import require
from anatomy.models.encoder import TransformerEncoder

POOLER = {"pooler.weight": "pooler.dense.weight", "pooler.bias": "pooler.dense.bias"}


class TransformerForSequenceClassification(nn.Module):
    def __init__(self, config: Any) -> None:
        super().__init__()
        config = require(config, "num_labels")
        self.config = config
        self.encoder = TransformerEncoder(config)
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(getattr(config, "hidden_dropout_prob", 0.1))
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    @classmethod
    def from_pretrained(cls, checkpoint: str | None = None, num_labels: int = 2) -> TransformerForSequenceClassification:
        """Encoder and pooler from a BERT checkpoint (default: the bundled MiniLM), a fresh head
        initialised as BERT does (normal, std initializer_range; zero bias). Returned in eval mode."""
        from anatomy.weights.bert_weights import copy_weights, encoder_name_map, load_config, read_state_dict

        config = load_config(checkpoint)
        config.num_labels = num_labels
        model = cls(config)
        state_dict = read_state_dict(checkpoint)
        copy_weights(model.encoder, state_dict, encoder_name_map(config.num_hidden_layers))
        copy_weights(model, state_dict, POOLER)
        nn.init.normal_(model.classifier.weight, std=getattr(config, "initializer_range", 0.02))
        nn.init.zeros_(model.classifier.bias)
        return model.eval()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                token_type_ids: torch.Tensor | None = None) -> torch.Tensor:
        """Hugging Face's argument order: model(input_ids, attention_mask) works as with BertForSequenceClassification."""
        hidden = self.encoder(input_ids, attention_mask, token_type_ids).last_hidden_state  # (B, T, D)
        pooled = torch.tanh(self.pooler(hidden[:, 0]))  # (B, D): read from [CLS] at position 0
        return self.classifier(self.dropout(pooled))  # (B, L)
