"""Scaled dot-product attention, written out so that the weights can be looked at.

Taught in: 03_attention.  Shapes: ... any leading (batch, head) dims, Tq queries, Tk keys, Dh width.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from anatomy.masks import check_mask


def scaled_dot_product_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                                 mask: torch.Tensor | None = None,
                                 dropout_p: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(Q Kᵀ / √Dh) V. Returns (output (..., Tq, Dv), weights (..., Tq, Tk)).

    `mask` is boolean, True = may attend, broadcastable to (..., Tq, Tk). A query whose keys are
    all masked out gets zero weights and a zero output (not NaN). Dropout, if any, is applied to
    the weights used for the output; the returned weights are the ones before dropout.
    """
    if query.size(-1) != key.size(-1):
        raise ValueError(f"query width {query.size(-1)} must equal key width {key.size(-1)}")
    if key.size(-2) != value.size(-2):
        raise ValueError(f"key and value must have the same length, got {key.size(-2)} and {value.size(-2)}")
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))  # (..., Tq, Tk)
    if mask is not None:
        check_mask(mask, scores.shape)
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # (..., Tq, Tk), each row sums to 1
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # rows with no allowed key: NaN -> 0
    attended = F.dropout(weights, dropout_p) if dropout_p > 0 else weights
    return attended @ value, weights  # (..., Tq, Dv), (..., Tq, Tk)
