"""Multi-head attention: the per-head teaching version, and the fused version real models use.

Taught in: 04_multi_head_attention.  Shapes: B batch, H heads, Tq queries, Tk keys, D model
width, Dh = D / H head width.
"""
from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from anatomy.checks import check_integer
from anatomy.layers.attention import scaled_dot_product_attention
from anatomy.layers.config import check_divisible, require
from anatomy.layers.kv_cache import LayerCache
from anatomy.layers.masks import check_mask


def check_attention_inputs(module: nn.Module, query: torch.Tensor, key: torch.Tensor,
                           value: torch.Tensor, mask: torch.Tensor | None) -> None:
    """The input checks both multi-head versions share: query (B, Tq, D), key and value (B, Tk, D)
    in the module's dtype and on its device; mask as check_mask accepts for (B, H, Tq, Tk)."""
    weight = module.out_proj.weight
    for name, x in (("query", query), ("key", key), ("value", value)):
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor (B, T, {module.embed_dim}), got {type(x).__name__}")
        if x.dim() != 3 or x.size(-1) != module.embed_dim:
            raise ValueError(f"{name} must be (B, T, {module.embed_dim}), got shape {tuple(x.shape)}")
        autocast = torch.is_autocast_enabled(x.device.type)  # mixed precision casts inputs itself
        if x.device != weight.device or (x.dtype != weight.dtype and not autocast):
            raise ValueError(f"{name} is {x.dtype} on {x.device}, but the module's weights are {weight.dtype} "
                             f"on {weight.device}: use {name}.to(...) or module.to(...) so they match")
    if key.shape[:2] != value.shape[:2]:
        raise ValueError(f"key and value must have the same (B, Tk), got {tuple(key.shape[:2])} "
                         f"and {tuple(value.shape[:2])}")
    if query.size(0) != key.size(0):
        raise ValueError(f"query and key batch sizes differ: {query.size(0)} vs {key.size(0)}")
    if mask is not None:
        check_mask(mask, (query.size(0), module.num_heads, query.size(1), key.size(1)), query.device)


class AttentionHead(nn.Module):
    """One head: its own small q/k/v projections D -> Dh, then scaled dot-product attention."""

    def __init__(self, embed_dim: int, head_dim: int) -> None:
        super().__init__()
        for name, size in (("embed_dim", embed_dim), ("head_dim", head_dim)):
            check_integer(name, size)
        self.q_proj = nn.Linear(embed_dim, head_dim)
        self.k_proj = nn.Linear(embed_dim, head_dim)
        self.v_proj = nn.Linear(embed_dim, head_dim)

    def forward(self, query, key, value, mask=None) -> tuple[torch.Tensor, torch.Tensor]:
        return scaled_dot_product_attention(self.q_proj(query), self.k_proj(key), self.v_proj(value), mask)


class PerHeadMultiHeadAttention(nn.Module):
    """The teaching version of Tunstall et al. (2022, ch. 3): a ModuleList of heads, concatenated, then out_proj."""

    def __init__(self, config: Any) -> None:
        super().__init__()
        config = require(config, "hidden_size", "num_attention_heads")
        head_dim = check_divisible(config.hidden_size, config.num_attention_heads)
        self.embed_dim, self.num_heads = config.hidden_size, config.num_attention_heads
        self.heads = nn.ModuleList(AttentionHead(config.hidden_size, head_dim)
                                   for _ in range(config.num_attention_heads))
        self.out_proj = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, query, key=None, value=None, mask=None) -> tuple[torch.Tensor, torch.Tensor]:
        key = query if key is None else key
        value = key if value is None else value
        check_attention_inputs(self, query, key, value, mask)
        if mask is not None and mask.dim() == 4:  # (B, 1 or H, Tq, Tk): give head h its own slice
            masks = mask.expand(-1, len(self.heads), -1, -1).unbind(dim=1)
        else:
            masks = [mask] * len(self.heads)
        outputs, weights = zip(*(head(query, key, value, m) for head, m in zip(self.heads, masks)))
        merged = torch.cat(outputs, dim=-1)  # H x (B, Tq, Dh) -> (B, Tq, D)
        return self.out_proj(merged), torch.stack(weights, dim=1)  # (B, Tq, D), (B, H, Tq, Tk)

    @torch.no_grad()
    def load_fused(self, fused: MultiHeadAttention) -> PerHeadMultiHeadAttention:
        """Copy a fused module's weights in: head h owns rows h*Dh:(h+1)*Dh of each projection."""
        head_dim = fused.head_dim
        for h, head in enumerate(self.heads):
            rows = slice(h * head_dim, (h + 1) * head_dim)
            for name in ("q_proj", "k_proj", "v_proj"):
                getattr(head, name).weight.copy_(getattr(fused, name).weight[rows])
                getattr(head, name).bias.copy_(getattr(fused, name).bias[rows])
        self.out_proj.load_state_dict(fused.out_proj.state_dict())
        return self


class MultiHeadAttention(nn.Module):
    """Fused multi-head attention: one D -> D projection each for Q, K and V serves all heads.

    forward(query, key=None, value=None, mask=None): key and value default to the query
    (self-attention); pass the encoder output as key for cross-attention. With a `cache`
    (11_gpt), the new keys and values join the cached ones and the query attends over all of them.
    """

    def __init__(self, config: Any) -> None:
        super().__init__()
        config = require(config, "hidden_size", "num_attention_heads")
        self.num_heads = config.num_attention_heads
        self.head_dim = check_divisible(config.hidden_size, config.num_attention_heads)
        self.embed_dim = config.hidden_size
        self.q_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.k_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.v_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.out_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout_p = getattr(config, "attention_probs_dropout_prob", 0.0) or 0.0

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape
        return x.view(batch, length, self.num_heads, self.head_dim).transpose(1, 2)  # (B, H, T, Dh)

    def merge_heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, _, length, _ = x.shape
        return x.transpose(1, 2).reshape(batch, length, self.embed_dim)  # (B, T, D)

    def forward(self, query: torch.Tensor, key: torch.Tensor | None = None,
                value: torch.Tensor | None = None, mask: torch.Tensor | None = None,
                need_weights: bool = True, cache: LayerCache | None = None,
                ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Returns (output (B, Tq, D), weights (B, H, Tq, Tk), or None if not need_weights)."""
        key = query if key is None else key
        value = key if value is None else value
        check_attention_inputs(self, query, key, value, mask=None)  # the mask is checked once the cache adds its keys
        q = self.split_heads(self.q_proj(query))  # (B, H, Tq, Dh)
        k = self.split_heads(self.k_proj(key))  # (B, H, Tk, Dh)
        v = self.split_heads(self.v_proj(value))  # (B, H, Tk, Dh)
        if cache is not None:
            k, v = cache.update(k, v)  # (B, H, Tcached + Tk, Dh)
        if mask is not None:
            check_mask(mask, (query.size(0), self.num_heads, query.size(1), k.size(-2)), query.device)
        dropout_p = self.dropout_p if self.training else 0.0
        if need_weights:
            attended, weights = scaled_dot_product_attention(q, k, v, mask, dropout_p)  # (B, H, Tq, Dh)
        else:  # PyTorch's fused kernel: never materialises the (Tq, Tk) weights
            attended, weights = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p), None
        return self.out_proj(self.merge_heads(attended)), weights  # (B, Tq, D)
