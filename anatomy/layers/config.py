"""Reading HF-style configs: fail early, and say which field is missing.

Taught in: every notebook that builds a module from a config (02 onwards).
A config is any object with the fields as attributes (transformers.BertConfig, SimpleNamespace,
anatomy.TransformerConfig) or a plain dict of them.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from types import SimpleNamespace
from typing import Any

from anatomy.checks import check_number


def require(config: Any, *fields: str) -> Any:
    """Return `config` with attribute access (a dict becomes a SimpleNamespace). Raise ValueError
    naming every field in `fields` that it lacks; the fields are sizes, so each must be a positive
    integer (a layer count may be 0)."""
    kind = type(config).__name__
    if isinstance(config, Mapping):
        if not all(isinstance(name, str) for name in config):
            raise TypeError(f"a config dict needs string keys, got {sorted(map(repr, config))}")
        config = SimpleNamespace(**config)
    missing = [name for name in fields if getattr(config, name, None) is None]
    if missing:
        raise ValueError(f"{kind} config is missing field(s) {missing}; an HF-style config such as "
                         f"transformers.BertConfig (or a dict) has them.")
    for name in fields:
        value, least = getattr(config, name), 0 if name.endswith("_layers") else 1
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise ValueError(f"config field {name} must be an integer >= {least}, got {value!r}")
    return config


def check_divisible(hidden_size: int, num_heads: int) -> int:
    """Return the head width hidden_size // num_heads, or raise if it does not divide."""
    for name, value in (("hidden_size", hidden_size), ("num_attention_heads (num_heads)", num_heads)):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if hidden_size % num_heads != 0:
        raise ValueError(
            f"hidden_size ({hidden_size}) must be divisible by num_attention_heads ({num_heads})."
        )
    return hidden_size // num_heads


def from_fields(config_class: type, fields: Mapping[str, Any], source: str = "") -> Any:
    """`config_class(**fields)` for a dataclass config; unknown field names are refused by name."""
    if not (isinstance(config_class, type) and dataclasses.is_dataclass(config_class)):
        raise TypeError(f"config_class must be a dataclass config class such as TransformerConfig, "
                        f"got {config_class!r}")
    if not isinstance(fields, Mapping):
        raise ValueError(f"{source or config_class.__name__} must hold a dict of config fields, got {type(fields).__name__}")
    known = [f.name for f in dataclasses.fields(config_class)]
    unknown = sorted(set(fields) - set(known))
    if unknown:
        raise ValueError(f"{config_class.__name__} has no field(s) {unknown}"
                         f"{f' (in {source})' if source else ''}; its fields are {known}")
    return config_class(**fields)


def check_model_sizes(config: Any, *extra: str) -> None:
    """The sizes of a decoder-only config (GPT, Llama) and `extra` ones: positive integers (a layer
    count may be 0), with num_attention_heads dividing hidden_size."""
    require(config, "vocab_size", "hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size",
            "max_position_embeddings", *extra)
    check_divisible(config.hidden_size, config.num_attention_heads)


def check_layer_settings(config: Any, activations: Collection[str]) -> None:
    """The settings a config of LayerNorm'd blocks shares (GPT, the Transformer, ViT): hidden_act one of
    `activations`, layer_norm_eps > 0 (NaN there makes every LayerNorm output NaN), dropouts in [0, 1]."""
    if not isinstance(config.hidden_act, str) or config.hidden_act not in activations:
        raise ValueError(f"hidden_act must be one of {sorted(activations)}, got {config.hidden_act!r}")
    check_number("layer_norm_eps", config.layer_norm_eps, above=0)
    for name in ("hidden_dropout_prob", "attention_probs_dropout_prob"):
        check_number(name, getattr(config, name), at_least=0, at_most=1)
