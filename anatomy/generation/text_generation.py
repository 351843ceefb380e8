"""Generating text with a decoder-only model, with or without the KV cache.

Taught in: 11_gpt (and 12_modern_block).  Shapes: B batch, T prompt tokens, N new tokens, V vocabulary.
Any model with forward(input_ids, attention_mask, cache=...) -> .logits (B, T, V), new_cache() and
config.max_position_embeddings works: our GPT and our Llama. Pad prompts on the LEFT, so that every
row's next token goes at the same column; the models count positions over real tokens only.
"""
from __future__ import annotations

from typing import Any

import torch

from anatomy.checks import check_integer, check_padding_side
from anatomy.layers.embeddings import check_token_ids
from anatomy.generation.sampling import check_sampling, pick_next


def check_generate_call(model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor | None,
                        max_new_tokens: int, eos_token_id: int | None, pad_token_id: int) -> torch.Tensor:
    """The (B, T) 0/1 attention mask to start from, once `model` is decoder-only, the prompt fits its
    vocabulary and context window and is padded on the left, and the settings are in range."""
    if callable(getattr(model, "encode", None)):
        raise TypeError(f"generate writes with decoder-only models (our GPT, Llama); {type(model).__name__} is an "
                        "encoder-decoder: use anatomy.greedy_decode(model, src_ids) or anatomy.generation.beam_search")
    if not callable(getattr(model, "new_cache", None)) or not hasattr(getattr(model, "config", None), "max_position_embeddings"):
        raise TypeError(f"generate needs model to have our decoder-only interface (forward(input_ids, attention_mask, cache=...), "
                        f"new_cache(), config.max_position_embeddings), got {type(model).__name__}; for a Hugging Face "
                        "GPT-2 or Llama convert it first (anatomy.weights.gpt2_weights.gpt_from_gpt2, "
                        "anatomy.weights.llama_weights.llama_from_hf)")
    vocab, context = model.config.vocab_size, model.config.max_position_embeddings
    check_token_ids(input_ids, vocab)
    check_integer("max_new_tokens", max_new_tokens, least=0)
    check_integer("pad_token_id", pad_token_id, least=0, most=vocab - 1)
    if eos_token_id is not None:
        check_integer("eos_token_id", eos_token_id, least=0, most=vocab - 1, hint=" (or None: never stop early)")
    if input_ids.size(1) > context:
        raise ValueError(f"the prompt has {input_ids.size(1)} tokens, longer than the context window ({context})")
    if input_ids.size(1) + max_new_tokens > context:
        raise ValueError(f"the prompt ({input_ids.size(1)} tokens) + max_new_tokens ({max_new_tokens}) exceed the "
                         f"context window ({context}, max_position_embeddings); shorten one of them")
    if attention_mask is None:
        return torch.ones_like(input_ids)
    if not isinstance(attention_mask, torch.Tensor) or attention_mask.shape != input_ids.shape:
        raise ValueError(f"attention_mask must be {tuple(input_ids.shape)}, the prompt's shape, got "
                         f"{tuple(getattr(attention_mask, 'shape', ())) or type(attention_mask).__name__}")
    check_padding_side(attention_mask, "left", "attention_mask", "each new token goes after the last column, so "
                       "pad prompts on the left (tokenizer.padding_side = 'left')")
    return attention_mask.long()


@torch.no_grad()
def generate(model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
             max_new_tokens: int = 20, use_cache: bool = True, do_sample: bool = False,
             temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None,
             eos_token_id: int | None = None, pad_token_id: int = 0,
             generator: torch.Generator | None = None) -> torch.Tensor:
    """Returns (B, T + N) ids: the prompt, then N new tokens (rows that produced EOS get padding after it).
    Without the cache every step re-reads the whole sequence; with it, only the newest token."""
    check_sampling(temperature, top_k, top_p, getattr(getattr(model, "config", None), "vocab_size", None))
    attention_mask = check_generate_call(model, input_ids, attention_mask, max_new_tokens, eos_token_id, pad_token_id)
    (batch, length), total = input_ids.shape, input_ids.size(1) + max_new_tokens
    sequence = input_ids.new_full((batch, total), pad_token_id)  # (B, T + N), written column by column
    sequence[:, :length] = input_ids
    padded = not bool(attention_mask.all())  # without padding the model needs no mask: it counts positions itself
    if padded:
        mask = attention_mask.new_ones(batch, total)  # every new token is real
        mask[:, :length] = attention_mask
    cache = model.new_cache() if use_cache else None
    finished = torch.zeros(batch, dtype=torch.bool, device=input_ids.device)  # (B,)
    for step in range(max_new_tokens):
        end = length + step  # tokens so far
        step_input = sequence[:, end - 1:end] if use_cache and step else sequence[:, :end]  # with the cache, only the newest
        logits = model(step_input, mask[:, :end] if padded else None, cache=cache).logits[:, -1]  # (B, V)
        next_ids = pick_next(logits, do_sample, temperature, top_k, top_p, generator)  # (B,)
        sequence[:, end] = next_ids.masked_fill(finished, pad_token_id)
        if eos_token_id is not None:
            finished |= next_ids == eos_token_id
            if finished.all():
                return sequence[:, :end + 1]
    return sequence
