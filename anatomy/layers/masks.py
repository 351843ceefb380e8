"""Boolean attention masks: True means "may attend", as in F.scaled_dot_product_attention.

Taught in: 03_attention (causal and padding masks) and 06_decoder (combining them).
Shapes: B batch, H heads, Tq queries, Tk keys.
"""
from __future__ import annotations

import torch


def causal_mask(num_queries: int, num_keys: int | None = None,
                device: torch.device | str | None = None) -> torch.Tensor:
    """(Tq, Tk) lower-triangular mask: query i may attend to keys 0..i (aligned at the end if Tk > Tq)."""
    num_keys = num_queries if num_keys is None else num_keys
    for name, size in (("num_queries", num_queries), ("num_keys", num_keys)):
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {size!r}")
    ones = torch.ones(num_queries, num_keys, dtype=torch.bool, device=device)
    return torch.tril(ones, diagonal=num_keys - num_queries)  # (Tq, Tk)


def padding_mask(attention_mask: torch.Tensor) -> torch.Tensor:
    """A tokenizer's (B, Tk) attention_mask of 1s and 0s -> (B, 1, 1, Tk) boolean key mask."""
    if not isinstance(attention_mask, torch.Tensor):
        raise TypeError(f"attention_mask must be a (B, Tk) tensor of 1s and 0s, got {type(attention_mask).__name__}")
    if attention_mask.dim() != 2:
        raise ValueError(f"attention_mask must be (B, Tk), got shape {tuple(attention_mask.shape)}")
    return attention_mask.bool()[:, None, None, :]  # (B, 1, 1, Tk): broadcasts over heads and queries


def causal_padding_mask(attention_mask: torch.Tensor) -> torch.Tensor:
    """A decoder's self-attention mask: (B, T) attention_mask -> (B, 1, T, T), True where query i
    may attend to key j, i.e. j <= i (causal) and j is a real token (padding)."""
    padding = padding_mask(attention_mask)  # (B, 1, 1, T), and attention_mask checked
    return causal_mask(attention_mask.size(-1), device=attention_mask.device) & padding  # (T, T) & ... -> (B, 1, T, T)


def accepted_mask_shapes(rank: int) -> str:
    """In words, the mask shapes check_mask accepts for attention scores of `rank` dims."""
    shared = "(Tk,), (1, Tk) or (Tq, Tk), shared by everything"
    if rank <= 2:
        return shared
    full = {3: "(B or 1, Tq or 1, Tk)", 4: "(B or 1, H or 1, Tq or 1, Tk), e.g. padding_mask's (B, 1, 1, Tk)"}
    return f"{shared}; or {full.get(rank, f'{rank}-D, each dim 1 or equal to the scores')}"


def check_mask(mask: torch.Tensor, scores_shape: torch.Size | tuple[int, ...],
               device: torch.device | None = None) -> None:
    """Raise unless `mask` is a boolean tensor (on `device`, if given) whose shape cannot be misread:
    1-D (Tk,) or 2-D (Tq or 1, Tk), shared by all; or exactly the scores' rank, each dim 1 or equal. A 3-D mask
    for 4-D (B, H, Tq, Tk) scores could mean (B, Tq, Tk) or (H, Tq, Tk), so it is refused."""
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"mask must be a boolean torch.Tensor (True = may attend), got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise ValueError(f"mask must be boolean (True = may attend), got dtype {mask.dtype}; "
                         "for a tokenizer's 0/1 attention_mask use anatomy.padding_mask(attention_mask)")
    expected = tuple(scores_shape)
    if mask.dim() not in (1, 2, len(expected)):
        hint = (" A 3-D mask is ambiguous here: (B, Tq, Tk) or (H, Tq, Tk)? For one mask per batch row "
                "pass mask[:, None], shape (B, 1, Tq, Tk)." if mask.dim() == 3 and len(expected) == 4 else "")
        raise ValueError(f"mask has shape {tuple(mask.shape)}, but the attention scores are {expected} "
                         f"(..., Tq, Tk); accepted mask shapes: {accepted_mask_shapes(len(expected))}.{hint}")
    if any(m not in (1, s) for m, s in zip(reversed(mask.shape), reversed(expected))):
        raise ValueError(f"mask shape {tuple(mask.shape)} does not broadcast to the attention scores' shape "
                         f"{expected} (..., Tq, Tk); accepted mask shapes: {accepted_mask_shapes(len(expected))}")
    if mask.shape[-1] != expected[-1]:
        raise ValueError(f"mask has {mask.shape[-1]} key positions, but there are {expected[-1]} keys")
    if device is not None and mask.device != device:
        raise ValueError(f"mask is on {mask.device}, but the attention inputs are on {device}: "
                         f"move it with mask.to({str(device)!r})")
