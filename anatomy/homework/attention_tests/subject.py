"""The attention pieces homework 3 (notebook 19_homework_attention_tests) asks students to test, as one code
base in which any one planted bug (a mutant, mutants.py) can be switched on. Taught in: 03_attention (attention,
masks), 04_multi_head_attention, 06_decoder (cross-attention), 11_gpt (the KV cache). `build(bug)` returns the
Implementation a student's test receives; `build(None)` is the correct one. Masks are boolean, True = may attend.
Shapes: B batch, H heads, Tq queries, Tk keys, D model width, Dh = D / H.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import torch
from torch import nn


def causal_mask(num_queries: int, num_keys: int | None = None, bug: str | None = None) -> torch.Tensor:
    """(Tq, Tk) boolean, True = may attend; the queries are the last Tq of the Tk positions."""
    num_keys = num_queries if num_keys is None else num_keys
    for name, value in (("num_queries", num_queries), ("num_keys", num_keys)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if num_keys < num_queries:
        raise ValueError(f"num_keys must be at least num_queries ({num_queries}), got {num_keys}")
    offset = 0 if bug == "causal_no_offset" else num_keys - num_queries
    if bug == "eq_causal_arange":
        return torch.arange(num_keys)[None, :] <= torch.arange(num_queries)[:, None] + offset  # (Tq, Tk)
    ones = torch.ones(num_queries, num_keys, dtype=torch.bool)
    if bug == "causal_transposed":
        return ones.triu(offset)  # (Tq, Tk)
    return ones.tril(offset + {"causal_excludes_self": -1, "causal_sees_next": 1}.get(bug, 0))  # (Tq, Tk)


def attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask: torch.Tensor | None = None,
              bug: str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(Q Kᵀ / √Dh) V -> (output (..., Tq, Dv), weights (..., Tq, Tk)); a fully masked row: zeros."""
    width = query.size(-1)
    if bug == "eq_scale_query_first":
        scores = (query / math.sqrt(width)) @ key.transpose(-2, -1)  # (..., Tq, Tk)
    else:
        scale = {"no_scale": 1.0, "scale_by_d": float(width), "scale_by_keys": math.sqrt(key.size(-2))}
        scores = query @ key.transpose(-2, -1) / scale.get(bug, math.sqrt(width))  # (..., Tq, Tk)
    masked = mask is not None and bug != "mask_ignored"
    if masked:
        allowed = ~mask if bug == "mask_inverted" else mask
        fill = {"mask_fill_zero": 0.0, "eq_mask_finfo_min": torch.finfo(scores.dtype).min}.get(bug, float("-inf"))
        scores = scores.masked_fill(~allowed, fill)
    weights = torch.softmax(scores, dim=-2 if bug == "softmax_dim" else -1)  # (..., Tq, Tk)
    if masked and bug != "padded_rows_nan":
        weights = weights.masked_fill(~allowed, 0.0)  # a row with no allowed key: NaN -> 0
    return weights @ (key if bug == "values_are_keys" else value), weights


class KVCache:
    """Keys and values (B, H, T, Dh) of the tokens seen so far; `update` appends and returns all."""

    _bug: str | None = None  # set on the class build() makes per mutant, never on an instance
    def __init__(self) -> None:
        self.keys: torch.Tensor | None = None
        self.values: torch.Tensor | None = None

    def __len__(self) -> int:
        return 0 if self.keys is None else self.keys.size(-2)

    def update(self, keys: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self._bug == "cache_values_are_keys":
            values = keys
        if self.keys is None or self._bug == "cache_overwrites":
            self.keys, self.values = keys, values
        else:
            axis = 1 if self._bug == "cache_wrong_axis" else -2
            self.keys = torch.cat([self.keys, keys], dim=axis)  # (B, H, T, Dh)
            self.values = torch.cat([self.values, values], dim=axis)
        return self.keys, self.values


class MultiHeadAttention(nn.Module):
    """Four D x D projections (q_proj, k_proj, v_proj, out_proj, with biases), H heads of width D / H."""

    _bug: str | None = None  # set on the class build() makes per mutant, never on an instance
    def __init__(self, d_model: int, num_heads: int) -> None:
        super().__init__()
        if num_heads < 1 or d_model % num_heads:
            raise ValueError(f"d_model ({d_model}) must be a multiple of num_heads, got num_heads={num_heads}")
        self.num_heads, self.head_dim = num_heads, d_model // num_heads
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(d_model, d_model) for _ in range(4))

    def split(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, D) -> (B, H, T, Dh)
        batch, length, _ = x.shape
        if self._bug == "split_no_transpose":
            return x.reshape(batch, self.num_heads, length, self.head_dim)
        return x.view(batch, length, self.num_heads, self.head_dim).transpose(1, 2)

    def merge(self, x: torch.Tensor) -> torch.Tensor:  # (B, H, T, Dh) -> (B, T, D)
        batch, _, length, _ = x.shape
        if self._bug == "merge_no_transpose":
            return x.reshape(batch, length, -1)
        if self._bug == "eq_merge_permute":
            return x.permute(0, 2, 1, 3).flatten(2)
        return x.transpose(1, 2).reshape(batch, length, -1)

    def forward(self, query: torch.Tensor, key: torch.Tensor | None = None, value: torch.Tensor | None = None,
                mask: torch.Tensor | None = None, cache: KVCache | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """-> (output (B, Tq, D), weights (B, H, Tq, Tk)). With a cache, query = key = value are the new
        tokens of a causal self-attention: they attend to every cached token and causally to each other."""
        key = query if key is None else key
        value = key if value is None else value
        bug = self._bug
        q = self.split(self.q_proj(query))  # (B, H, Tq, Dh)
        k = self.split((self.q_proj if bug == "key_uses_query_projection" else self.k_proj)(key))  # (B, H, Tk, Dh)
        v = self.split(self.v_proj(value))  # (B, H, Tk, Dh)
        if cache is not None:
            past = len(cache)
            k, v = cache.update(k, v)  # (B, H, past + Tq, Dh)
            past = len(cache) if bug == "cache_length_after_update" else past
            mask = torch.arange(k.size(-2))[None, :] <= torch.arange(q.size(-2))[:, None] + past  # (Tq, Tk)
        if bug == "scale_by_d_model":
            q = q / math.sqrt(self.num_heads)  # with attention's 1/√Dh: 1/√D in all
        out, weights = attention(q, k, v, mask, bug)  # (B, H, Tq, Dh), (B, H, Tq, Tk)
        out = self.merge(out)  # (B, Tq, D)
        return (out if bug == "no_output_projection" else self.out_proj(out)), weights


class DecoderLayer(nn.Module):
    """Post-LN decoder layer: causal self-attention, cross-attention over the encoder's memory, a ReLU MLP."""

    _bug, _attention = None, MultiHeadAttention  # build() makes a class per mutant: (bug, its attention)

    def __init__(self, d_model: int, num_heads: int, d_ff: int) -> None:
        super().__init__()
        self.self_attention = self._attention(d_model, num_heads)
        self.cross_attention = self._attention(d_model, num_heads)
        self.feed_forward = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
        self.norm1, self.norm2, self.norm3 = (nn.LayerNorm(d_model) for _ in range(3))

    def forward(self, x: torch.Tensor, memory: torch.Tensor, memory_mask: torch.Tensor | None = None) -> torch.Tensor:
        """x (B, Tq, D), memory (B, Ts, D), memory_mask (B, Ts) True = a real source token -> (B, Tq, D)."""
        bug, length = self._bug, x.size(1)
        self_mask = None if bug == "self_not_causal" else causal_mask(length)  # (Tq, Tq)
        x = self.norm1(x + self.self_attention(x, mask=self_mask)[0])
        cross_mask = None if memory_mask is None or bug == "cross_mask_ignored" else memory_mask[:, None, None, :]
        if bug == "cross_causal":  # (B, 1, Tq, Ts)
            causal = causal_mask(length, max(length, memory.size(1)))[:, -memory.size(1):]
            cross_mask = causal if cross_mask is None else cross_mask & causal
        source = x if bug == "cross_from_x" else memory
        x = self.norm2(x + self.cross_attention(x, source, source, mask=cross_mask)[0])
        return self.norm3(x + self.feed_forward(x))


def build(bug: str | None = None) -> SimpleNamespace:
    """impl.attention, .causal_mask, .MultiHeadAttention(d_model, num_heads), .DecoderLayer(d_model, num_heads,
    d_ff), .KVCache(); the bug lives in closures and on classes made per call, never on an object a test receives."""
    made = lambda base, **extra: type(base.__name__, (base,), {"_bug": bug, "__qualname__": base.__qualname__, **extra})
    heads, cache = made(MultiHeadAttention), made(KVCache)
    layer = made(DecoderLayer, _attention=heads)
    return SimpleNamespace(
        attention=lambda query, key, value, mask=None: attention(query, key, value, mask, bug),
        causal_mask=lambda num_queries, num_keys=None: causal_mask(num_queries, num_keys, bug),
        MultiHeadAttention=lambda d_model, num_heads: heads(d_model, num_heads),
        DecoderLayer=lambda d_model, num_heads, d_ff: layer(d_model, num_heads, d_ff),
        KVCache=lambda: cache())
