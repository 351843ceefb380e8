"""Reading HF-style configs: fail early, and say which field is missing.

Taught in: every notebook that builds a module from a config (02 onwards).
"""
from __future__ import annotations

from typing import Any


def require(config: Any, *fields: str) -> None:
    """Raise ValueError naming every field in `fields` that `config` lacks."""
    missing = [name for name in fields if getattr(config, name, None) is None]
    if missing:
        raise ValueError(
            f"{type(config).__name__} is missing field(s) {missing}; "
            f"an HF-style config such as transformers.BertConfig has them."
        )


def check_divisible(hidden_size: int, num_heads: int) -> int:
    """Return the head width hidden_size // num_heads, or raise if it does not divide."""
    if num_heads <= 0 or hidden_size % num_heads != 0:
        raise ValueError(
            f"hidden_size ({hidden_size}) must be divisible by num_attention_heads ({num_heads})."
        )
    return hidden_size // num_heads
