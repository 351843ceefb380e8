"""Choosing the next token from the logits: greedy, temperature, top-k, top-p (nucleus).

Taught in: 11_gpt.  Shapes: B batch, V vocabulary.
Each filter sets the logits of the tokens it removes to -inf, so the softmax gives them 0; they
compose in Hugging Face's order: temperature, then top-k, then top-p.
"""
from __future__ import annotations

import torch

from anatomy.checks import check_tensor
from anatomy.checks import check_integer, check_number, check_scores


def check_sampling(temperature: float, top_k: int | None, top_p: float | None, vocab_size: int | None = None) -> None:
    """Raise unless temperature > 0, top_k in [1, vocab_size] (or None), top_p in (0, 1] (or None)."""
    check_number("temperature", temperature, above=0, hint=" (for 'temperature 0' use greedy decoding, do_sample=False)")
    if top_k is not None:
        check_integer("top_k", top_k, most=vocab_size, hint=" (or None for no cut)" if vocab_size is None else
                      f" (or None for no cut; the vocabulary has {vocab_size} tokens)")
    if top_p is not None:
        check_number("top_p", top_p, above=0, at_most=1, hint=" (or None for no cut)")


def top_k_filter(logits: torch.Tensor, top_k: int) -> torch.Tensor:
    """Keep the k largest logits of each row (ties with the k-th are kept too)."""
    check_tensor("logits", logits, floating=True, shape="(B, V)")
    check_integer("top_k", top_k, most=logits.size(-1), hint=" (the number of logits per row)")
    kth_largest = logits.topk(top_k, dim=-1).values[..., -1:]  # (B, 1)
    return logits.masked_fill(logits < kth_largest, float("-inf"))  # (B, V)


def top_p_filter(logits: torch.Tensor, top_p: float) -> torch.Tensor:
    """Keep the smallest set of most likely tokens whose probabilities sum to at least top_p."""
    check_tensor("logits", logits, floating=True, shape="(B, V)")
    check_number("top_p", top_p, above=0, at_most=1)
    sorted_logits, order = logits.sort(dim=-1, descending=True)  # (B, V)
    probs = sorted_logits.softmax(dim=-1)
    mass_before = probs.cumsum(dim=-1) - probs  # (B, V): the mass of the strictly more likely tokens
    remove_sorted = mass_before >= top_p  # the set already had enough mass without this token
    remove = remove_sorted.scatter(-1, order, remove_sorted)  # back to vocabulary order
    return logits.masked_fill(remove, float("-inf"))  # (B, V)


def next_token_distribution(logits: torch.Tensor, temperature: float = 1.0, top_k: int | None = None,
                            top_p: float | None = None) -> torch.Tensor:
    """The probabilities sampling draws from, (B, V)."""
    check_tensor("logits", logits, floating=True, shape="(B, V)")
    check_sampling(temperature, top_k, top_p, logits.size(-1))
    return filtered_probs(logits, temperature, top_k, top_p)


def filtered_probs(logits: torch.Tensor, temperature: float, top_k: int | None, top_p: float | None) -> torch.Tensor:
    """next_token_distribution without its checks, for callers that ran them once (generate, per token)."""
    logits = logits / temperature  # < 1 sharpens, > 1 flattens
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:
        logits = top_p_filter(logits, top_p)
    return logits.softmax(dim=-1)  # (B, V)


def choose_next(logits: torch.Tensor, do_sample: bool = False, temperature: float = 1.0,
                top_k: int | None = None, top_p: float | None = None,
                generator: torch.Generator | None = None) -> torch.Tensor:
    """(B, V) logits -> (B,) token ids: the argmax (greedy), or a draw from the filtered distribution.
    Logits holding NaN are refused: argmax and sampling would pick from them without a word."""
    check_tensor("logits", logits, rank=2, floating=True, shape="(B, V)")
    check_sampling(temperature, top_k, top_p, logits.size(-1))  # checked either way, though greedy ignores them
    return pick_next(logits, do_sample, temperature, top_k, top_p, generator)


def pick_next(logits: torch.Tensor, do_sample: bool, temperature: float, top_k: int | None, top_p: float | None,
              generator: torch.Generator | None) -> torch.Tensor:
    """choose_next once its settings are checked (generate checks them once per call; this runs per token).
    The logits are new at every step, so they are checked here."""
    check_scores(logits)
    if not do_sample:
        return logits.argmax(dim=-1)  # (B,)
    probs = filtered_probs(logits, temperature, top_k, top_p)  # (B, V)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)  # (B,)
