"""LoRA: a frozen linear layer plus a trainable low-rank update, W x + (alpha / r) B A x.

Taught in: 20_instruction_tuning (Hu et al. 2021).  Shapes: B batch, T tokens, I in features, O out features, r rank.
A (r, I) starts random and B (O, r) at zero, so a freshly wrapped model computes exactly what it did; only
A and B train: r (I + O) numbers per layer instead of I O. merge() folds (alpha / r) B A into W (no extra
cost at inference), unmerge() takes it out again. Names and initialisation follow peft's LoraConfig
(tests/test_alignment.py compares outputs, merged weights and trainable parameters with peft).
"""
from __future__ import annotations

import math

import torch
from torch import nn

from anatomy.checks import check_integer, check_number, check_type


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r: int, alpha: float, dropout: float = 0.0) -> None:
        super().__init__()
        self.base = check_type("base", base, nn.Linear)
        self.r = check_integer("r", r, least=1, most=min(base.in_features, base.out_features),
                               hint=f" (a rank above min(in, out) = min({base.in_features}, {base.out_features}) "
                                    "adds parameters and no expressive power)")
        self.alpha = check_number("alpha", alpha, above=0)
        self.scaling = self.alpha / self.r
        self.dropout = nn.Dropout(check_number("dropout", dropout, at_least=0, below=1))
        like = {"dtype": base.weight.dtype, "device": base.weight.device}  # the base layer's precision and device
        self.lora_A = nn.Parameter(torch.empty(self.r, base.in_features, **like))  # (r, I)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, self.r, **like))  # (O, r): zero, so nothing changes at first
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))  # peft's default, as nn.Linear's own weight
        base.weight.requires_grad_(False)
        if base.bias is not None:
            base.bias.requires_grad_(False)
        self.merged = False

    @property
    def weight(self) -> torch.Tensor:
        """The base weight (O, I): code that reads a layer's weight, e.g. for its dtype and device, still finds it."""
        return self.base.weight

    @property
    def in_features(self) -> int:
        return self.base.in_features

    @property
    def out_features(self) -> int:
        return self.base.out_features

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.base(x)  # (B, T, O)
        if self.merged:
            return out
        return out + (self.dropout(x) @ self.lora_A.T @ self.lora_B.T) * self.scaling  # (B, T, I) -> (B, T, r) -> (B, T, O)

    def delta_weight(self) -> torch.Tensor:
        return (self.lora_B @ self.lora_A) * self.scaling  # (O, I)

    @torch.no_grad()
    def merge(self) -> None:
        if self.merged:
            raise ValueError("this LoRA layer is already merged: merging again would add the update twice; "
                             "call unmerge() first")
        self.base.weight += self.delta_weight()
        self.merged = True

    @torch.no_grad()
    def unmerge(self) -> None:
        if not self.merged:
            raise ValueError("this LoRA layer is not merged: there is nothing to unmerge; call merge() first")
        self.base.weight -= self.delta_weight()
        self.merged = False


def add_lora(model: nn.Module, target_modules: list[str], r: int, alpha: float, dropout: float = 0.0) -> nn.Module:
    """Freeze every parameter of `model`, then replace each nn.Linear whose name ends with one of
    `target_modules` (e.g. ["self_attn.out_proj"], as peft matches names) by a LoRALinear around it. In place."""
    check_type("model", model, nn.Module)
    if isinstance(target_modules, str) or not isinstance(target_modules, (list, tuple)) or not target_modules:
        raise TypeError(f"target_modules must be a non-empty list of module names, got {target_modules!r}")
    linears = [name for name, module in model.named_modules() if isinstance(module, nn.Linear)
               and not isinstance(module, LoRALinear)]

    def matches(name: str, target: str) -> bool:
        return name == target or name.endswith("." + target)
    unmatched = [target for target in target_modules if not any(matches(name, target) for name in linears)]
    if unmatched:
        suffixes = sorted({_layer_free(name) for name in linears})
        raise ValueError(f"target_modules {unmatched} name no linear layer of this {type(model).__name__}; "
                         f"its linear layers end with {suffixes}")
    chosen = [name for name in linears if any(matches(name, target) for target in target_modules)]
    smallest = min(min(model.get_submodule(name).in_features, model.get_submodule(name).out_features) for name in chosen)
    check_integer("r", r, least=1, most=smallest, hint=f" (the smallest targeted layer has min(in, out) = {smallest})")
    check_number("alpha", alpha, above=0)
    check_number("dropout", dropout, at_least=0, below=1)
    model.requires_grad_(False)  # every setting checked: nothing changes before an error
    for name in chosen:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, LoRALinear(getattr(parent, child), r, alpha, dropout))
    return model


def _layer_free(name: str) -> str:
    """'layers.3.self_attn.q_proj' -> 'self_attn.q_proj': the name without the layer number, as targets are written."""
    parts = name.split(".")
    numbered = [i for i, part in enumerate(parts) if part.isdigit()]
    return ".".join(parts[numbered[-1] + 1:]) if numbered else name


def lora_layers(model: nn.Module) -> list[LoRALinear]:
    """Every LoRALinear in `model`; an error if add_lora never ran on it."""
    layers = [module for module in check_type("model", model, nn.Module).modules() if isinstance(module, LoRALinear)]
    if not layers:
        raise ValueError(f"this {type(model).__name__} has no LoRA layer: call add_lora(model, target_modules, r, alpha) first")
    return layers


def merge_lora(model: nn.Module) -> nn.Module:
    """Fold every LoRA update into its base weight (each layer refuses a second merge)."""
    for layer in lora_layers(model):
        layer.merge()
    return model


def unmerge_lora(model: nn.Module) -> nn.Module:
    for layer in lora_layers(model):
        layer.unmerge()
    return model
