"""Character n-gram baselines for the base model's held-out loss: count in the training text, smooth, score.

Taught in: 20_instruction_tuning.  Shapes: N training ids, M held-out ids (both 1-D), V vocabulary.
An order-n table predicts a character from the n - 1 characters before it, by counting in the training
text how often each character followed that context, plus one count for every character of the vocabulary
(add-α smoothing, so nothing is impossible; α = 1 is add-one):
P(c | context) = (count(context + c) + α) / (count(context) + α V).
Order 1 is the unigram baseline (frequencies alone), order 2 a bigram table, order 3 a trigram table.
Notebook 20 prints them beside the GPT's held-out loss: a model that does not beat the trigram table
predicts held-out text no better than such a table.
"""
from __future__ import annotations

import torch

from anatomy.checks import check_integer, check_number, check_tensor, check_vocabulary_ids


def _context_codes(ids: torch.Tensor, vocab_size: int, length: int) -> torch.Tensor:
    """(N - length + 1,) one integer per run of `length` consecutive ids: the run read as a base-V number."""
    codes = torch.zeros(len(ids) - length + 1, dtype=torch.int64)
    for k in range(length):
        codes = codes * vocab_size + ids[k:len(ids) - length + 1 + k]
    return codes


def _count_of(table: tuple[torch.Tensor, torch.Tensor], codes: torch.Tensor) -> torch.Tensor:
    """How often each code occurs, looked up in a (sorted unique codes, counts) table; 0 for a code never seen."""
    known, counts = table
    where = torch.searchsorted(known, codes).clamp(max=len(known) - 1)
    return torch.where(known[where] == codes, counts[where], 0)


def ngram_loss(train_ids: torch.Tensor, held_out_ids: torch.Tensor, vocab_size: int, order: int = 1,
               alpha: float = 1.0) -> float:
    """Mean -log P (nats) of the held-out ids from position order - 1 on (those with a full context), under the
    order-`order` table counted on `train_ids` with add-`alpha` smoothing (1: add-one). The first order - 1
    held-out ids are context only."""
    vocab_size, order = check_integer("vocab_size", vocab_size), check_integer("order", order)
    alpha = check_number("alpha", alpha, above=0, hint=" (1.0 is add-one smoothing)")
    for name, ids in (("train_ids", train_ids), ("held_out_ids", held_out_ids)):
        check_tensor(name, ids, rank=1, floating=False, shape="(N,)")
        check_vocabulary_ids(name, ids, vocab_size)
        if ids.numel() < order:
            raise ValueError(f"{name} must hold at least order = {order} ids (a context and a character), "
                             f"got {ids.numel()}")
    train_ids, held_out_ids = train_ids.long(), held_out_ids.long()
    grams = torch.unique(_context_codes(train_ids, vocab_size, order), return_counts=True)  # context + character
    together = _count_of(grams, _context_codes(held_out_ids, vocab_size, order)).double()  # (M - order + 1,)
    if order == 1:
        contexts = torch.full_like(together, float(len(train_ids)))  # the empty context occurs everywhere
    else:
        # a context is counted where a character follows it in the training text (its last position has none)
        before = torch.unique(_context_codes(train_ids[:-1], vocab_size, order - 1), return_counts=True)
        contexts = _count_of(before, _context_codes(held_out_ids[:-1], vocab_size, order - 1)).double()
    return -((together + alpha) / (contexts + alpha * vocab_size)).log().mean().item()
