"""What every loader of Hugging Face weights checks before it copies anything: each config field whose
value our module does not implement (named, with its value and the reason), and each weight the
copy would leave random (missing) or drop (unexpected).

Taught in: 11_gpt (GPT-2), 12_modern_block (Llama), 14_vision_transformer (ViT); 05_encoder's BERT too.
A loader that skipped these checks would return a model whose outputs differ from the checkpoint's,
without a word: the worst kind of bug, since everything runs.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

# field -> (the value our module implements, a tuple of such values, or a predicate; why)
Supported = dict[str, tuple[Any, str]]


def is_supported(value: Any, allowed: Any) -> bool:
    if callable(allowed):
        return bool(allowed(value))
    return any(value == choice for choice in (allowed if isinstance(allowed, tuple) else (allowed,)))


def check_config_fields(config: Any, supported: Supported, source: str) -> None:
    """Raise naming every field of `config` (an HF config, or our own) whose value is not supported.
    A field the config does not have is skipped: its library default is the supported one."""
    problems = []
    for field, (allowed, why) in supported.items():
        if hasattr(config, field) and not is_supported(value := getattr(config, field), allowed):
            wanted = "" if callable(allowed) else f"; supported: {allowed!r}"
            problems.append(f"{field}={value!r} ({why}{wanted})")
    if problems:
        raise ValueError(f"this {source} is not supported: {'; '.join(problems)}. Our model would compute "
                         f"something else than the checkpoint; load one whose config has the supported values")


def listed(kind: str, names: Iterable[str], shown: int = 8) -> str:
    """'missing weights [a, b, ...] and 12 more' (empty string for no names)."""
    names = sorted(names)
    if not names:
        return ""
    return f"{kind} {names[:shown]}" + (f" and {len(names) - shown} more" if len(names) > shown else "")


def check_weight_names(available: Iterable[str], expected: Iterable[str], source: str, hint: str = "",
                       ignore: Callable[[str], bool] = lambda name: False) -> None:
    """Raise naming the weights `expected` that are not `available` (they would stay random) and the
    ones available but not expected (they would be dropped), except those `ignore` accepts."""
    available, expected = set(available), set(expected)
    problems = [text for text in (listed("missing weights", expected - available),
                                  listed("unexpected weights", {n for n in available - expected if not ignore(n)}))
                if text]
    if problems:
        raise ValueError(f"the {source} weights do not fit our model: {'; '.join(problems)}{hint}")
