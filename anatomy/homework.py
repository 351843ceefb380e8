"""Checks for the cross-attention homework that explain what went wrong, in plain words.

Taught in: 08_homework_cross_attention (questions 1-3; 4 and 5 in anatomy.homework_model).
Each check_* runs a student's answer on fresh random inputs
(the seed picks them: public tests use one, hidden tests others) and raises AssertionError with
feedback. A wrong answer is compared with each classic mistake in anatomy.mistakes; the one it
equals is named, with the shape or value that gave it away.
Shapes: B batch, H heads, Tq decoder (query) tokens, Ts encoder (source) tokens, D model width.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import torch

from anatomy import mistakes
from anatomy.attention import scaled_dot_product_attention
from anatomy.masks import padding_mask
from anatomy.multihead import MultiHeadAttention

HINTS = {
    "no_scaling": "divide the scores by √d, the query/key width, so the softmax does not saturate",
    "softmax_dim": "take the softmax over the last dimension (the source tokens), so each query's row sums to 1",
    "swapped": "queries come from the decoder (x), keys and values from the encoder memory",
    "no_mask": "set the scores of padded source tokens to -inf before the softmax",
    "causal": "the whole source is known before decoding: cross-attention masks padding only, never the future",
    "merge": "transpose (B, H, Tq, Dh) to (B, Tq, H, Dh) first, then reshape to (B, Tq, D)",
}


def inputs(seed: int, batch: int = 2, queries: int = 3, sources: int = 5, width: int = 8):
    """Random decoder states (B, Tq, D), memory (B, Ts, D), and a (B, Ts) mask whose last row is padded."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, queries, width, generator=generator)
    memory = torch.randn(batch, sources, width, generator=generator)
    key_mask = torch.ones(batch, sources, dtype=torch.bool)
    key_mask[-1, sources - 2:] = False
    return x, memory, key_mask


def call(answer, *args):
    try:
        return answer(*args)
    except NotImplementedError as error:
        raise AssertionError(f"not yet implemented: {error}") from None
    except (RuntimeError, IndexError, TypeError) as error:
        raise AssertionError(f"your code raised {type(error).__name__}: {error}") from None


def same(a, b) -> bool:
    return a.shape == b.shape and torch.allclose(a.nan_to_num(), b.nan_to_num(), atol=1e-5)


def evidence(name: str, got: torch.Tensor, expected: torch.Tensor, what: str) -> str:
    """The shape or value that gives mistake `name` away, in words."""
    got, expected = got.nan_to_num(), expected.nan_to_num()
    if got.shape != expected.shape:
        return f"your {what} have shape {tuple(got.shape)}, expected {tuple(expected.shape)}"
    if name == "no_scaling" and what == "weights":
        return f"your weights peak at {got.max().item():.3f}, expected {expected.max().item():.3f}: too sharp"
    if name == "no_scaling":
        return f"your {what} are {(got.norm() / expected.norm()).item():.2f} times too large"
    if name == "softmax_dim":
        sums = got.sum(-1)
        return f"your rows sum to {sums.min().item():.3f} ... {sums.max().item():.3f} instead of 1"
    if name == "no_mask":
        return f"your weights reach {got[expected == 0].abs().max().item():.3f} on padded source tokens"
    if name == "causal":
        return f"your weights are 0 above the diagonal, where they should reach {expected[got == 0].max().item():.3f}"
    return f"your {what} differ by up to {(got - expected).abs().max().item():.3g} though the shape is right"


def explain(got, expected: torch.Tensor, variants: dict[str, torch.Tensor], what: str,
            other_checks=lambda: None, hint: str = "") -> None:
    """Raise AssertionError unless got == expected, naming the mistake whose output `got` equals;
    if none does, run other_checks, then report the largest difference."""
    if not isinstance(got, torch.Tensor):
        raise AssertionError(f"{what} must be a torch.Tensor, got {type(got).__name__}")
    if same(got, expected):
        return
    for name, wrong in variants.items():
        if same(got, wrong):
            raise AssertionError(f"{mistakes.MISTAKES[name]} ({evidence(name, got, expected, what)}): {HINTS[name]}.")
    if got.shape != expected.shape:
        raise AssertionError(f"{what} has shape {tuple(got.shape)}, expected {tuple(expected.shape)}")
    other_checks()
    raise AssertionError(f"{what} differs from the expected values by up to "
                         f"{(got - expected).abs().nan_to_num(float('inf')).max().item():.3g}{hint}")


def check_weights(weights: torch.Tensor, key_mask: torch.Tensor) -> None:
    sums = weights.sum(-1)
    if not torch.allclose(sums, torch.ones_like(sums), atol=1e-5):
        raise AssertionError(f"weights don't sum to 1 over the source tokens: row sums range from "
                             f"{sums.min().item():.3f} to {sums.max().item():.3f}")
    padded = (~key_mask.bool()).view(key_mask.size(0), *[1] * (weights.dim() - 2), key_mask.size(1))
    leaked = weights[padded.expand_as(weights)].abs()
    if leaked.numel() and leaked.max() > 0:
        raise AssertionError(f"{mistakes.MISTAKES['no_mask']}: padded source tokens get weight up to "
                             f"{leaked.max().item():.3f}; {HINTS['no_mask']}.")


def check_scores(answer, seed: int = 0, **shape) -> None:
    """Question 1: cross_attention_scores(q (B, Tq, d), k (B, Ts, d)) -> (B, Tq, Ts)."""
    q, k, _ = inputs(seed, **shape)
    expected = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (B, Tq, Ts)
    got = call(answer, q, k)
    explain(got, expected, {"no_scaling": q @ k.transpose(-2, -1), "swapped": expected.transpose(-2, -1)}, "scores")


def check_masked_attention(answer, seed: int = 0, **shape) -> None:
    """Question 2: masked_cross_attention(q, k, v, key_mask) -> (output (B, Tq, d), weights (B, Tq, Ts))."""
    q, memory, key_mask = inputs(seed, **shape)
    result = call(answer, q, memory, memory, key_mask)
    if not isinstance(result, tuple) or len(result) != 2:
        raise AssertionError("return a tuple (output, weights)")
    expected = scaled_dot_product_attention(q, memory, memory, padding_mask(key_mask)[:, 0])  # anatomy's tested attention
    variants = {name: mistakes.attention(q, memory, memory, key_mask, name)
                for name in ("no_scaling", "softmax_dim", "no_mask", "causal")}
    explain(result[1], expected[1], {name: v[1] for name, v in variants.items()}, "weights",
            lambda: check_weights(result[1], key_mask))
    explain(result[0], expected[0], {name: v[0] for name, v in variants.items()}, "output")


def check_cross_attention_module(module_class, seed: int = 0, heads: int = 2, **shape) -> None:
    """Question 3: CrossAttention(config) with q_proj, k_proj, v_proj, out_proj;
    forward(x, memory, key_mask) -> (output (B, Tq, D), weights (B, H, Tq, Ts))."""
    x, memory, key_mask = inputs(seed, **shape)
    config = SimpleNamespace(hidden_size=x.size(-1), num_attention_heads=heads)
    torch.manual_seed(seed)
    theirs = call(module_class, config).eval()
    reference = MultiHeadAttention(config).eval()
    if any(isinstance(module, MultiHeadAttention) for module in theirs.modules()):
        raise AssertionError("CrossAttention wraps anatomy.MultiHeadAttention: write the attention yourself")
    missing = {"q_proj", "k_proj", "v_proj", "out_proj"} - {name for name, _ in theirs.named_children()}
    if missing:
        raise AssertionError(f"CrossAttention needs nn.Linear(D, D) layers named {sorted(missing)}")
    reference.load_state_dict(theirs.state_dict(), strict=False)
    for mask in (None, key_mask):  # without padding first: a swap of Q and K/V shows in the shape
        with torch.no_grad():
            result = call(theirs, x, memory, mask)
            expected = reference(x, memory, mask=None if mask is None else padding_mask(mask))
            variants = {name: mistakes.multi_head(reference, x, memory, mask, name) for name in HINTS}
        if not isinstance(result, tuple) or len(result) != 2:
            raise AssertionError("forward must return a tuple (output, weights)")
        explain(result[1], expected[1], {name: v[1] for name, v in variants.items()}, "weights",
                lambda: check_weights(result[1], key_mask if mask is not None else torch.ones_like(key_mask)))
        explain(result[0], expected[0], {name: v[0] for name, v in variants.items()}, "output")
