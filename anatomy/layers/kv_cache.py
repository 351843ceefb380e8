"""The KV cache: keep each layer's keys and values, so that generating token t+1 only computes token t+1.

Taught in: 11_gpt (and 12_modern_block, where grouped-query attention makes it smaller).
Shapes: B batch, Hkv key-value heads, T tokens cached so far, Dh head width.
One design serves every decoder-only model here: attention hands its new keys and values to
`LayerCache.update` and attends over what it gets back.
"""
from __future__ import annotations

import torch

from anatomy.checks import check_integer


class LayerCache:
    """One layer's keys and values so far, each (B, Hkv, T, Dh).

    Without gradients (generation) they live in buffers reserved ahead, twice the length needed each time
    one fills up: a new token is written in place, where concatenating would copy the whole cache at every
    step. With gradients (a training step that reads a cache) each update concatenates, as autograd needs
    tensors that later steps do not overwrite. `keys` and `values` are always views of the cached tokens.
    """

    def __init__(self) -> None:
        self.keys: torch.Tensor | None = None
        self.values: torch.Tensor | None = None
        self.buffers: tuple[torch.Tensor, torch.Tensor] | None = None  # (B, Hkv, capacity, Dh) each

    def update(self, keys: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Append the new (B, Hkv, Tnew, Dh) keys and values; return all of them, (B, Hkv, T + Tnew, Dh)."""
        length = 0 if self.keys is None else self.keys.size(-2)
        if self.keys is not None:
            self.check_fits(keys, values)
        if torch.is_grad_enabled() and (keys.requires_grad or values.requires_grad):
            self.buffers = None
            if self.keys is None:
                self.keys, self.values = keys, values
            else:
                self.keys = torch.cat([self.keys, keys], dim=-2)  # (B, Hkv, T + Tnew, Dh)
                self.values = torch.cat([self.values, values], dim=-2)
            return self.keys, self.values
        end = length + keys.size(-2)
        if self.buffers is None or end > self.buffers[0].size(-2):
            capacity = 2 * end
            self.buffers = tuple(new.new_empty(*new.shape[:2], capacity, new.size(-1)) for new in (keys, values))
            if length:
                self.buffers[0][:, :, :length] = self.keys
                self.buffers[1][:, :, :length] = self.values
        self.buffers[0][:, :, length:end] = keys  # written in place
        self.buffers[1][:, :, length:end] = values
        self.keys, self.values = self.buffers[0][:, :, :end], self.buffers[1][:, :, :end]  # views
        return self.keys, self.values

    def crop(self, length: int) -> None:
        """Forget every token after the first `length` (speculative decoding drops rejected drafts);
        the next update writes over them."""
        if self.keys is not None:
            self.keys, self.values = self.keys[:, :, :length], self.values[:, :, :length]

    def check_fits(self, keys: torch.Tensor, values: torch.Tensor) -> None:
        """New keys and values must be the batch, heads, width, dtype and device the cache already holds."""
        if keys.size(0) != self.keys.size(0):
            raise ValueError(f"this KV cache holds a batch of {self.keys.size(0)} sequences, got a batch of "
                             f"{keys.size(0)}; start a new cache (model.new_cache()) for a new batch")
        held, new = (self.keys.size(1), self.keys.size(-1), self.keys.dtype), (keys.size(1), keys.size(-1), keys.dtype)
        if held != new or values.shape[:2] != keys.shape[:2] or keys.device != self.keys.device:
            raise ValueError(f"this KV cache holds (key-value heads, head width, dtype) = {held} on {self.keys.device}, "
                             f"got {new} on {keys.device}: it was filled by another model; start one for this "
                             "model with model.new_cache()")


class KVCache:
    """A LayerCache per layer: `cache[i]` goes to layer i."""

    def __init__(self, num_layers: int) -> None:
        self.layers = [LayerCache() for _ in range(check_integer("num_layers", num_layers, least=0))]

    def __getitem__(self, index: int) -> LayerCache:
        return self.layers[index]

    def __len__(self) -> int:
        return len(self.layers)

    @property
    def length(self) -> int:
        """How many tokens are cached (0 before the first forward)."""
        first = self.layers[0].keys
        return 0 if first is None else first.size(-2)

    def crop(self, length: int) -> None:
        """Keep only the first `length` cached tokens in every layer: the rollback of tokens a model read
        but the text did not keep (rejected drafts in speculative decoding, 11_gpt)."""
        check_integer("length", length, least=0, most=self.length,
                      hint=f" (the cache holds {self.length} tokens; it can only be shortened)")
        for layer in self.layers:
            layer.crop(length)

    def memory_bytes(self) -> int:
        """Bytes the cached tokens take: layers x 2 (keys and values) x B x Hkv x T x Dh x bytes per number
        (the room reserved ahead for the next tokens is not counted)."""
        return sum(t.numel() * t.element_size() for layer in self.layers
                   for t in (layer.keys, layer.values) if t is not None)

    def reserved_bytes(self) -> int:
        """Bytes the cache holds: the buffers, room reserved ahead for the next tokens included (with
        gradients there are no buffers, and it is memory_bytes())."""
        held = [layer.buffers or (layer.keys, layer.values) for layer in self.layers]
        return sum(t.numel() * t.element_size() for pair in held for t in pair if t is not None)


def cache_memory_bytes(num_layers: int, num_kv_heads: int, head_dim: int, tokens: int,
                       batch_size: int = 1, bytes_per_number: int = 4) -> int:
    """The formula: layers x 2 x B x T x (Hkv x Dh). With Hkv = H it is layers x 2 x B x T x D."""
    for name, value in (("num_layers", num_layers), ("num_kv_heads", num_kv_heads), ("head_dim", head_dim),
                        ("tokens", tokens), ("batch_size", batch_size), ("bytes_per_number", bytes_per_number)):
        check_integer(name, value, least=0)
    return num_layers * 2 * batch_size * tokens * num_kv_heads * head_dim * bytes_per_number
