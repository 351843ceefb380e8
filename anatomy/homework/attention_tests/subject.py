"""The attention pieces homework 3 (notebook 19_homework_attention_tests) asks students to test. Taught in:
03_attention (attention, masks), 04_multi_head_attention, 06_decoder (cross-attention), 11_gpt (the KV cache).
Each piece is written as small steps (methods); a planted bug (a mutant, mutants.py) replaces one step's code
(variants.py). `build(bug)` returns the implementation (`build(None)` the correct one), which server.py builds
in a process apart from the tests; a student's test receives proxies of it (stand_in.py). Masks are boolean, True = may attend. Shapes: B batch, H heads, Tq queries, Tk keys, D width, Dh = D / H.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import torch
from torch import nn

from anatomy.homework.attention_tests.variants import VARIANTS, made


class Attention:
    """softmax(Q Kᵀ / √Dh) V -> (output (..., Tq, Dv), weights (..., Tq, Tk)); a fully masked row: zeros.
    Each step is a method (one line where it can be) that a mutant may replace (variants.py)."""

    def scores(self, query: torch.Tensor, key: torch.Tensor) -> torch.Tensor:  # (..., Tq, Tk)
        return query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    def allowed(self, mask: torch.Tensor) -> torch.Tensor | None: return mask
    def fill(self, scores: torch.Tensor) -> float: return float("-inf")
    def normalise(self, scores: torch.Tensor) -> torch.Tensor: return torch.softmax(scores, dim=-1)
    def zero_masked(self, weights: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:  # a fully masked row: NaN -> 0
        return weights.masked_fill(~allowed, 0.0)
    def mix(self, weights: torch.Tensor, key: torch.Tensor, value: torch.Tensor) -> torch.Tensor: return weights @ value

    def __call__(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                 mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        scores = self.scores(query, key)  # (..., Tq, Tk)
        allowed = None if mask is None else self.allowed(mask)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, self.fill(scores))
        weights = self.normalise(scores)
        if allowed is not None:
            weights = self.zero_masked(weights, allowed)
        return self.mix(weights, key, value), weights


class CausalMask:
    """(Tq, Tk) boolean, True = may attend; the queries are the last Tq of the Tk positions."""

    def band(self, num_queries: int, num_keys: int, offset: int) -> torch.Tensor:
        return torch.ones(num_queries, num_keys, dtype=torch.bool).tril(offset)  # (Tq, Tk)

    def __call__(self, num_queries: int, num_keys: int | None = None) -> torch.Tensor:
        num_keys = num_queries if num_keys is None else num_keys
        for name, value in (("num_queries", num_queries), ("num_keys", num_keys)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if num_keys < num_queries:
            raise ValueError(f"num_keys must be at least num_queries ({num_queries}), got {num_keys}")
        return self.band(num_queries, num_keys, num_keys - num_queries)


class KVCache:
    """Keys and values (B, H, T, Dh) of the tokens seen so far; `update` appends and returns all."""

    def __init__(self) -> None:
        self.keys: torch.Tensor | None = None
        self.values: torch.Tensor | None = None

    def __len__(self) -> int: return 0 if self.keys is None else self.keys.size(-2)

    def stored(self, keys: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]: return keys, values
    def grown(self, held: torch.Tensor, new: torch.Tensor) -> torch.Tensor: return torch.cat([held, new], dim=-2)

    def update(self, keys: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        keys, values = self.stored(keys, values)
        if self.keys is None:
            self.keys, self.values = keys, values
        else:
            self.keys, self.values = self.grown(self.keys, keys), self.grown(self.values, values)
        return self.keys, self.values


class MultiHeadAttention(nn.Module):
    """Four D x D projections (q_proj, k_proj, v_proj, out_proj, with biases), H heads of width D / H."""

    attend = Attention()  # build() gives each implementation its own

    def __init__(self, d_model: int, num_heads: int) -> None:
        super().__init__()
        if num_heads < 1 or d_model % num_heads:
            raise ValueError(f"d_model ({d_model}) must be a multiple of num_heads, got num_heads={num_heads}")
        self.num_heads, self.head_dim = num_heads, d_model // num_heads
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(d_model, d_model) for _ in range(4))

    def split(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, D) -> (B, H, T, Dh)
        batch, length, _ = x.shape
        return x.view(batch, length, self.num_heads, self.head_dim).transpose(1, 2)

    def merge(self, x: torch.Tensor) -> torch.Tensor:  # (B, H, T, Dh) -> (B, T, D)
        batch, _, length, _ = x.shape
        return x.transpose(1, 2).reshape(batch, length, -1)

    def key_projection(self) -> nn.Linear: return self.k_proj
    def scaled_query(self, q: torch.Tensor) -> torch.Tensor: return q  # attention divides the scores by √Dh
    def past_of(self, past: int, cache: KVCache) -> int: return past  # the tokens held before this update
    def projected(self, out: torch.Tensor) -> torch.Tensor: return self.out_proj(out)
    def forward(self, query: torch.Tensor, key: torch.Tensor | None = None, value: torch.Tensor | None = None,
                mask: torch.Tensor | None = None, cache: KVCache | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """-> (output (B, Tq, D), weights (B, H, Tq, Tk)). With a cache, query = key = value are the new
        tokens of a causal self-attention: they attend to every cached token and causally to each other."""
        key = query if key is None else key
        value = key if value is None else value
        q = self.split(self.q_proj(query))  # (B, H, Tq, Dh)
        k = self.split(self.key_projection()(key))  # (B, H, Tk, Dh)
        v = self.split(self.v_proj(value))  # (B, H, Tk, Dh)
        if cache is not None:
            past = len(cache)
            k, v = cache.update(k, v)  # (B, H, past + Tq, Dh)
            past = self.past_of(past, cache)
            mask = torch.arange(k.size(-2))[None, :] <= torch.arange(q.size(-2))[:, None] + past  # (Tq, Tk)
        out, weights = self.attend(self.scaled_query(q), k, v, mask)  # (B, H, Tq, Dh), (B, H, Tq, Tk)
        return self.projected(self.merge(out)), weights  # (B, Tq, D)


class DecoderLayer(nn.Module):
    """Post-LN decoder layer: causal self-attention, cross-attention over the encoder's memory, a ReLU MLP."""

    heads, causal = MultiHeadAttention, CausalMask()  # build() gives each implementation its own heads

    def __init__(self, d_model: int, num_heads: int, d_ff: int) -> None:
        super().__init__()
        self.self_attention = self.heads(d_model, num_heads)
        self.cross_attention = self.heads(d_model, num_heads)
        self.feed_forward = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
        self.norm1, self.norm2, self.norm3 = (nn.LayerNorm(d_model) for _ in range(3))

    def self_mask(self, length: int) -> torch.Tensor | None:
        return self.causal(length)  # (Tq, Tq)

    def cross_mask(self, memory_mask: torch.Tensor | None, length: int, sources: int) -> torch.Tensor | None:
        return None if memory_mask is None else memory_mask[:, None, None, :]  # (B, 1, 1, Ts)

    def source(self, x: torch.Tensor, memory: torch.Tensor) -> torch.Tensor: return memory  # what cross-attention reads

    def forward(self, x: torch.Tensor, memory: torch.Tensor, memory_mask: torch.Tensor | None = None) -> torch.Tensor:
        """x (B, Tq, D), memory (B, Ts, D), memory_mask (B, Ts) True = a real source token -> (B, Tq, D)."""
        x = self.norm1(x + self.self_attention(x, mask=self.self_mask(x.size(1)))[0])
        source = self.source(x, memory)
        cross_mask = self.cross_mask(memory_mask, x.size(1), memory.size(1))
        x = self.norm2(x + self.cross_attention(x, source, source, mask=cross_mask)[0])
        return self.norm3(x + self.feed_forward(x))


def build(bug: str | None = None) -> SimpleNamespace:
    """impl.attention(query, key, value, mask=None), .causal_mask(num_queries, num_keys=None), and the classes
    .MultiHeadAttention(d_model, num_heads), .DecoderLayer(d_model, num_heads, d_ff), .KVCache(). Which bug runs
    is recorded only in the code of their steps: no attribute, closure, default or name holds it."""
    if bug is not None and bug not in VARIANTS:
        raise ValueError(f"bug must be None or one of the mutants' names, got {bug!r}")
    attention = made(Attention, bug)()
    heads = made(MultiHeadAttention, bug, attend=attention)
    return SimpleNamespace(attention=attention, causal_mask=made(CausalMask, bug)(), MultiHeadAttention=heads,
                           DecoderLayer=made(DecoderLayer, bug, heads=heads), KVCache=made(KVCache, bug))
