"""Greedy decoding: write the output one token at a time, always taking the most likely next token.

Taught in: 06_decoder (and used in 07_training).  Shapes: B batch, Ts source tokens, T tokens so far, V vocabulary.
"""
from __future__ import annotations

import torch

from anatomy.checks import check_integer, check_padding_side, check_scores
from anatomy.models.transformer import Transformer


def check_generation(model: Transformer, max_length: int, caller: str = "greedy_decode",
                     src_mask: torch.Tensor | None = None) -> None:
    """Raise unless `model` is an encoder-decoder with encode()/decode() and token ids in its config
    (our Transformer, or notebook 00's GRUSeq2Seq), max_length fits the decoder's positions (the
    last step reads BOS + max_length - 1 tokens), and no source row is all padding."""
    if not (callable(getattr(model, "encode", None)) and callable(getattr(model, "decode", None))
            and hasattr(getattr(model, "config", None), "bos_token_id")):
        hint = ("; it looks decoder-only: use anatomy.generate(model, input_ids)" if callable(getattr(model, "new_cache", None))
                else "")
        raise TypeError(f"{caller} needs model to be an anatomy.Transformer (encoder-decoder: encode, decode and a config "
                        f"with bos/eos/pad ids), got {type(model).__name__}{hint}")
    check_integer("max_length", max_length)
    positions = getattr(model.config, "max_position_embeddings", None)  # an RNN has no position limit
    if positions is not None and max_length > positions:
        raise ValueError(f"max_length ({max_length}) must be at most the model's max_position_embeddings "
                         f"({positions}): the decoder has no positions beyond that")
    if isinstance(src_mask, torch.Tensor):
        check_padding_side(src_mask, None, "src_mask")  # a source of only padding: nothing to translate


@torch.no_grad()
def greedy_decode(model: Transformer, src_ids: torch.Tensor, src_mask: torch.Tensor | None = None,
                  max_length: int = 32) -> torch.Tensor:
    """Start from BOS, append the most likely next token until every row has produced EOS
    (or max_length tokens). The encoder runs once. Returns (B, <= max_length) ids without BOS,
    padded after EOS."""
    check_generation(model, max_length, src_mask=src_mask)
    config = model.config
    memory, _ = model.encode(src_ids, src_mask)  # (B, Ts, D)
    generated = torch.full((src_ids.size(0), 1), config.bos_token_id, device=src_ids.device)  # (B, 1)
    finished = torch.zeros(src_ids.size(0), dtype=torch.bool, device=src_ids.device)  # (B,)
    for _ in range(max_length):
        logits = model.decode(generated, memory, src_mask).logits[:, -1]  # (B, V): the newest position
        check_scores(logits)  # never pick "the most likely token" from NaN
        next_ids = logits.argmax(dim=-1).masked_fill(finished, config.pad_token_id)  # (B,)
        generated = torch.cat([generated, next_ids[:, None]], dim=1)  # (B, T + 1)
        finished |= next_ids == config.eos_token_id
        if finished.all():
            break
    return generated[:, 1:]
