"""BERT's masking for masked-language-model pre-training: choose 15 % of the tokens, then 80/10/10.

Taught in: 16_pretraining.  Shapes: B batch, T tokens, V vocabulary.
Devlin et al. (2019), section 3.1: each real token is chosen with probability 0.15; a chosen token is
replaced by [MASK] 80 % of the time, by a random token 10 % of the time, and kept 10 % of the time;
the model is scored only on the chosen tokens (label -100 everywhere else, which cross-entropy skips).
The draws are made in the order Hugging Face's DataCollatorForLanguageModeling makes them, from one
torch.Generator, so the same seed gives the same masks. Called once per batch, it masks each epoch
anew ("dynamic masking", Liu et al. 2019) instead of fixing one mask per sentence ahead of time.
"""
from __future__ import annotations

from collections.abc import Collection

import torch

from anatomy.checks import check_vocabulary_ids
from anatomy.checks import check_integer

IGNORE_INDEX = -100  # the label cross-entropy skips (torch's ignore_index default)
MLM_PROBABILITY = 0.15  # the share of tokens chosen for prediction
MASK_FRACTION = 0.8  # of the chosen: replaced by [MASK]
RANDOM_FRACTION = 0.1  # of the chosen: replaced by a random token (the rest, 0.1, is kept)


def check_probability(name: str, value: object) -> float:
    """A probability strictly between 0 and 1: 0 chooses nothing to learn from, 1 hides every token."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {value!r}; BERT uses "
                         f"{MLM_PROBABILITY} (0 would choose no token to predict, 1 would hide the whole text)")
    return float(value)


def check_special_ids(special_ids: Collection[int]) -> list[int]:
    if isinstance(special_ids, (str, bytes, torch.Tensor)) or not isinstance(special_ids, Collection) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in special_ids):
        raise TypeError(f"special_ids must be a collection of integer ids (tokenizer.all_special_ids: [PAD], [CLS], "
                        f"[SEP], [MASK] ...), got {special_ids!r}")
    return sorted(set(special_ids))


def maskable_positions(input_ids: torch.Tensor, special_ids: Collection[int]) -> torch.Tensor:
    """(B, T) bool, True where the token may be chosen: not padding, [CLS], [SEP], [MASK] (any of `special_ids`)."""
    special = torch.tensor(sorted(set(int(i) for i in special_ids)), dtype=input_ids.dtype, device=input_ids.device)
    return ~torch.isin(input_ids, special)  # (B, T)


def mask_tokens(input_ids: torch.Tensor, mask_id: int, vocab_size: int, special_ids: Collection[int],
                generator: torch.Generator | None = None,
                mlm_probability: float = MLM_PROBABILITY) -> tuple[torch.Tensor, torch.Tensor]:
    """Return (inputs, labels): `input_ids` with the chosen tokens replaced 80/10/10, and labels equal to
    the original token where chosen, IGNORE_INDEX elsewhere. `input_ids` itself is left unchanged.

    Random replacements are drawn uniformly from the whole vocabulary [0, vocab_size), special tokens
    included, as Hugging Face does. If the draw happens to choose no token at all (a short batch), one
    maskable token is chosen, so that the loss is never an empty mean (NaN): Hugging Face returns no
    label then. Which one is read from the random ids already drawn, so the generator stays in step
    with Hugging Face's and every later batch gets Hugging Face's masks again."""
    if not isinstance(input_ids, torch.Tensor) or input_ids.dim() != 2 or input_ids.dtype != torch.long:
        got = (f"{input_ids.dtype} of shape {tuple(input_ids.shape)}" if isinstance(input_ids, torch.Tensor)
               else type(input_ids).__name__)
        raise ValueError(f"input_ids must be a (B, T) int64 tensor of token ids, got {got}")
    mlm_probability = check_probability("mlm_probability", mlm_probability)
    check_integer("vocab_size", vocab_size, least=2)
    check_integer("mask_id", mask_id, least=0, most=vocab_size - 1, hint=f" (an id of the vocabulary of {vocab_size})")
    check_vocabulary_ids("input_ids", input_ids, vocab_size)
    special_ids = check_special_ids(special_ids)
    if int(mask_id) not in special_ids:
        raise ValueError(f"special_ids must include mask_id ({mask_id}): a [MASK] already in the text is never "
                         f"chosen again; got {sorted(special_ids)}")
    maskable = maskable_positions(input_ids, special_ids)  # (B, T)
    if not maskable.any():
        raise ValueError(f"no token can be masked: every one of the {input_ids.numel()} tokens is padding or a "
                         f"special token (ids {sorted(special_ids)}); pass sentences with at least one real token")
    labels = input_ids.clone()
    probabilities = torch.full(input_ids.shape, mlm_probability).masked_fill_(~maskable.cpu(), 0.0)
    chosen = torch.bernoulli(probabilities, generator=generator).bool().to(input_ids.device)  # (B, T)
    to_mask = torch.bernoulli(torch.full(input_ids.shape, MASK_FRACTION), generator=generator).bool()
    random_share = RANDOM_FRACTION / (1 - MASK_FRACTION)  # 0.5 of the chosen tokens not masked
    to_random = torch.bernoulli(torch.full(input_ids.shape, random_share), generator=generator).bool()
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator).to(input_ids.device)  # (B, T)
    if not chosen.any():  # no draw of its own: pick with the first random id
        candidates = maskable.flatten().nonzero().squeeze(1)  # (N,)
        chosen.view(-1)[candidates[random_ids.view(-1)[0] % len(candidates)]] = True
    labels[~chosen] = IGNORE_INDEX
    inputs = input_ids.clone()
    to_mask = to_mask.to(input_ids.device) & chosen
    inputs[to_mask] = mask_id
    to_random = to_random.to(input_ids.device) & chosen & ~to_mask
    inputs[to_random] = random_ids[to_random]
    return inputs, labels  # (B, T), (B, T)
