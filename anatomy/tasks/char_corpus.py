"""A character corpus: the vocabulary (its characters, id = position) and a text split into training and held-out ids.

Taught in: 11_gpt (the docstring corpus, anatomy.tasks.docstring_lm) and 17_interpretability (the shipped
character GPT's vocabulary).  Shapes: N training characters, M held-out characters.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class CharCorpus:
    characters: str  # the vocabulary, id = position; id 0 is "\n", the sentence separator
    train_ids: torch.Tensor  # (N,) the training sentences, joined by "\n"
    validation_ids: torch.Tensor  # (M,) the held-out sentences

    def encode(self, text: str) -> torch.Tensor:
        unknown = sorted(set(text) - set(self.characters))
        if unknown:
            raise ValueError(f"characters {unknown} are not in the vocabulary")
        return torch.tensor([self.characters.index(c) for c in text])

    def decode(self, ids: torch.Tensor | list[int]) -> str:
        return "".join(self.characters[int(i)] for i in ids)
