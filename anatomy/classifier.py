"""A sequence classifier: the encoder's [CLS] vector -> dropout -> linear -> num_labels logits.

Taught in: 05_encoder.  Shapes: B batch, T tokens, D model width, L labels.
"""
from __future__ import annotations

from typing import Any

import torch
from torch import nn

from anatomy.config import require
from anatomy.encoder import TransformerEncoder


class TransformerForSequenceClassification(nn.Module):
    def __init__(self, config: Any) -> None:
        super().__init__()
        config = require(config, "num_labels")
        self.encoder = TransformerEncoder(config)
        self.dropout = nn.Dropout(getattr(config, "hidden_dropout_prob", 0.1))
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor | None = None,
                attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        hidden = self.encoder(input_ids, token_type_ids, attention_mask).last_hidden_state  # (B, T, D)
        return self.classifier(self.dropout(hidden[:, 0]))  # (B, L): read from [CLS] at position 0
