"""What every decoder-only forward (our GPT and Llama) shares: position ids that skip padding, the
causal + padding mask, and the checks of one call (ids, mask, positions, cache, context window).

Taught in: 11_gpt (and 12_modern_block).  Shapes: B batch, T new tokens, Tk all tokens (cached + new).
"""
from __future__ import annotations

from typing import Any

import torch

from anatomy.checks import check_tensor
from anatomy.layers.embeddings import check_token_ids
from anatomy.layers.kv_cache import KVCache
from anatomy.layers.masks import causal_mask, padding_mask


def positions_from_padding(attention_mask: torch.Tensor) -> torch.Tensor:
    """(B, T) 1/0 mask -> (B, T) position ids counting real tokens only, so that a left-padded
    prompt starts at position 0 like an unpadded one (padding gets 0; it is never attended to)."""
    check_tensor("attention_mask", attention_mask, rank=2, shape="(B, T) 1/0")
    return (attention_mask.long().cumsum(dim=-1) - 1).clamp(min=0)  # (B, T)


def decoder_mask(num_new: int, attention_mask: torch.Tensor | None, num_keys: int,
                 device: torch.device) -> torch.Tensor:
    """True where new token i may attend to key j: j is not in its future and j is a real token.
    Returns (T, Tk) without an attention_mask, else (B, 1, T, Tk)."""
    causal = causal_mask(num_new, num_keys, device=device)  # (T, Tk), aligned at the end
    return causal if attention_mask is None else causal & padding_mask(attention_mask)  # (B, 1, T, Tk)


def check_cache(cache: Any, num_layers: int) -> int:
    """The number of tokens `cache` holds, once it is a KVCache with one entry per layer."""
    if not isinstance(cache, KVCache):
        raise TypeError(f"cache must be an anatomy.KVCache (model.new_cache()), got {type(cache).__name__}")
    if len(cache) != num_layers:
        raise ValueError(f"this cache has {len(cache)} layers but the model has {num_layers}: it was made for "
                         "another model; start one for this model with model.new_cache()")
    return cache.length


def check_decoder_call(config: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor | None,
                       position_ids: torch.Tensor | None, cache: KVCache | None) -> tuple[int, torch.Tensor]:
    """(tokens already cached, position ids (B, T)) for one forward call, or a clear error: ids out of
    the vocabulary, a mask that does not cover cached + new tokens, positions past the context window,
    a cache of another model, or a cache that already holds a text being handed a new prompt."""
    check_token_ids(input_ids, config.vocab_size)
    (batch, new), window = input_ids.shape, config.max_position_embeddings
    past = 0 if cache is None else check_cache(cache, config.num_hidden_layers)
    if past + new > window:
        raise ValueError(f"{past} cached + {new} new tokens do not fit the context window of {window} "
                         f"(max_position_embeddings); keep the text to at most {window} tokens")
    if attention_mask is None and past and new > 1:
        raise ValueError(f"the cache already holds {past} tokens of a text and got {new} new tokens at once: to start "
                         f"a new prompt use a new cache (model.new_cache()); to continue the text, pass an "
                         f"attention_mask of shape (B, {past} + {new}) covering cached and new tokens")
    if attention_mask is not None:
        if not isinstance(attention_mask, torch.Tensor) or attention_mask.shape != (batch, past + new):
            got = getattr(attention_mask, "shape", type(attention_mask).__name__)
            raise ValueError(f"attention_mask must be a (B, cached + new tokens) = {(batch, past + new)} tensor "
                             f"of 1s and 0s, got {tuple(got) if isinstance(got, torch.Size) else got}")
        if not ((attention_mask == 0) | (attention_mask == 1)).all():
            raise ValueError("attention_mask must hold only 1s (real tokens) and 0s (padding)")
    if position_ids is None:
        position_ids = (torch.arange(past, past + new, device=input_ids.device).expand_as(input_ids)
                        if attention_mask is None else positions_from_padding(attention_mask)[:, past:])
    elif (not isinstance(position_ids, torch.Tensor) or position_ids.is_floating_point()
          or position_ids.dtype == torch.bool or position_ids.shape not in ((new,), (1, new), (batch, new))):
        got = getattr(position_ids, "shape", type(position_ids).__name__)
        raise ValueError(f"position_ids must be an integer tensor (B, T) = {(batch, new)} or (T,), got "
                         f"{tuple(got) if isinstance(got, torch.Size) else got} {getattr(position_ids, 'dtype', '')}")
    elif position_ids.numel() and not 0 <= int(position_ids.min()) <= int(position_ids.max()) < window:
        raise ValueError(f"position_ids must lie in [0, {window}) (max_position_embeddings), got values from "
                         f"{int(position_ids.min())} to {int(position_ids.max())}")
    return past, position_ids.expand(batch, new)
