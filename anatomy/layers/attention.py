"""Scaled dot-product attention, written out so that the weights can be looked at.

Taught in: 03_attention.  Shapes: ... any leading (batch, head) dims, Tq queries, Tk keys, Dh width.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from anatomy.layers.masks import check_mask


def check_qkv(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor) -> None:
    """Raise unless query, key and value are floating-point tensors (..., T, Dh) of one dtype on one
    device, query and key of one width, key and value of one length."""
    for name, x in (("query", query), ("key", key), ("value", value)):
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor (..., T, Dh), got {type(x).__name__}")
        if x.dim() < 2 or not x.dtype.is_floating_point:
            raise ValueError(f"{name} must be a floating-point tensor (..., T, Dh), got shape "
                             f"{tuple(x.shape)} and dtype {x.dtype}")
        if x.device != query.device or x.dtype != query.dtype:
            raise ValueError(f"query is {query.dtype} on {query.device} but {name} is {x.dtype} on {x.device}; "
                             f"use one dtype and one device (e.g. {name}.to(query))")
    try:
        torch.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    except RuntimeError:
        raise ValueError(f"query, key and value must agree in their leading (batch, head) dims, got shapes "
                         f"{tuple(query.shape)}, {tuple(key.shape)} and {tuple(value.shape)}") from None
    if query.size(-1) != key.size(-1):
        raise ValueError(f"query width {query.size(-1)} must equal key width {key.size(-1)}: a score is the dot "
                         f"product q·k; project both to one width (the values may have another)")
    if key.size(-2) != value.size(-2):
        raise ValueError(f"key and value must have the same length, got {key.size(-2)} and {value.size(-2)}")


def scaled_dot_product_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                                 mask: torch.Tensor | None = None,
                                 dropout_p: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(Q Kᵀ / √Dh) V. Returns (output (..., Tq, Dv), weights (..., Tq, Tk)).

    `mask` is boolean, True = may attend: (Tk,) or (Tq, Tk) shared by all, or the scores' rank
    with each dim 1 or equal, e.g. (B, 1, 1, Tk); never a shape that could be misread (see
    check_mask). A query whose keys are all masked out gets zero weights and a zero output (not NaN). Dropout, if any, is applied to
    the weights used for the output; the returned weights are the ones before dropout.
    """
    check_qkv(query, key, value)
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout_p must be a probability in [0, 1], got {dropout_p}")
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))  # (..., Tq, Tk)
    if mask is not None:
        check_mask(mask, scores.shape, scores.device)
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # (..., Tq, Tk), each row sums to 1
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # rows with no allowed key: NaN -> 0
    attended = F.dropout(weights, dropout_p) if dropout_p > 0 else weights
    return attended @ value, weights  # (..., Tq, Dv), (..., Tq, Tk)
