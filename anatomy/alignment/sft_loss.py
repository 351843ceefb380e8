"""Supervised fine-tuning's loss: next-token cross-entropy on the assistant's tokens only.

Taught in: 20_instruction_tuning.  Shapes: B batch, T tokens, V vocabulary.
The prompt is given, not predicted: its labels are IGNORE_INDEX (-100, PyTorch's and Hugging Face's
convention), so the mean runs over the assistant's tokens alone. tests/test_alignment.py checks this loss
against trl's SFTTrainer with assistant_only_loss=True on one batch.
"""
from __future__ import annotations

import torch

from anatomy.checks import check_integer, check_tensor, check_vocabulary_ids
from anatomy.tasks.training import token_cross_entropy

IGNORE_INDEX = -100


def sft_labels(input_ids: torch.Tensor, assistant_mask: torch.Tensor) -> torch.Tensor:
    """Labels (B, T): the token id where the assistant wrote it, IGNORE_INDEX elsewhere (prompt, padding)."""
    input_ids = check_tensor("input_ids", input_ids, rank=2, floating=False, shape="(B, T)")
    assistant_mask = check_tensor("assistant_mask", assistant_mask, rank=2, shape="(B, T)")
    if assistant_mask.dtype != torch.bool:
        raise TypeError(f"assistant_mask must be a bool tensor (True = the assistant's token), got {assistant_mask.dtype}")
    if assistant_mask.shape != input_ids.shape:
        raise ValueError(f"assistant_mask must have input_ids' shape {tuple(input_ids.shape)}, "
                         f"got {tuple(assistant_mask.shape)}")
    return input_ids.masked_fill(~assistant_mask, IGNORE_INDEX)  # (B, T)


def sft_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of logits[:, t] against labels[:, t + 1] over the positions not IGNORE_INDEX."""
    logits = check_tensor("logits", logits, rank=3, floating=True, shape="(B, T, V)")
    labels = check_tensor("labels", labels, rank=2, floating=False, shape="(B, T)")
    if labels.shape != logits.shape[:2]:
        raise ValueError(f"labels must have shape (B, T) = {tuple(logits.shape[:2])} like logits, got {tuple(labels.shape)}")
    check_vocabulary_ids("labels", labels, logits.size(-1), allowed=(IGNORE_INDEX,))
    targets = labels[:, 1:]  # (B, T - 1): position t predicts token t + 1
    if not (targets != IGNORE_INDEX).any():
        raise ValueError("labels hold no trained token after the first position (all are IGNORE_INDEX): "
                         "the batch has no assistant answer to learn; check the assistant mask")
    return token_cross_entropy(logits[:, :-1].float(), targets, IGNORE_INDEX)  # the series' token loss, shifted by one


def chat_batch(encoded: list[tuple[list[int], list[bool]]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """encode_chat's (ids, assistant mask) pairs, right-padded with pad_id into input_ids (B, T) long,
    attention_mask (B, T) long (1 = real token) and assistant_mask (B, T) bool (False on padding)."""
    if not isinstance(encoded, (list, tuple)) or not encoded:
        raise ValueError(f"encoded must be a non-empty list of encode_chat's (ids, mask) pairs, got {encoded!r:.80}")
    pad_id = check_integer("pad_id", pad_id, least=0)
    width = max(len(ids) for ids, _ in encoded)
    rows = []
    for i, (ids, mask) in enumerate(encoded):
        if len(ids) != len(mask) or not ids:
            raise ValueError(f"encoded[{i}] must hold ids and a mask of one non-zero length, got {len(ids)} and {len(mask)}")
        padding = width - len(ids)
        rows.append((list(ids) + [pad_id] * padding, [1] * len(ids) + [0] * padding, list(mask) + [False] * padding))
    ids, attention, assistant = zip(*rows)
    return torch.tensor(ids), torch.tensor(attention), torch.tensor(assistant, dtype=torch.bool)
