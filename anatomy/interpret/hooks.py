"""Hook points: read, or replace, what each part of a model computes, during its ordinary forward pass.

Taught in: 17_interpretability.  Shapes: B batch, T tokens, Tk keys, H heads, Dh head width, D model width.
Every activation has one name, "<block>.<point>" (TransformerLens's idea), e.g. "blocks.1.pattern" in a
GPT or Llama, "encoder.0.resid_post" and "decoder.1.cross_z" in the encoder-decoder Transformer. Each
point is a PyTorch forward hook on a module the model already has, so no forward code is copied here.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import torch
from torch import nn

# point: (attribute of the block that computes it, "pre" = its input or "post" = its output, what it is)
POINTS = {
    "resid_pre": ("", "pre", "the residual stream entering the block (B, T, D)"),
    "attn_out": ("self_attn", "post", "the attention sublayer's output (B, T, D), before the residual add"),
    "pattern": ("self_attn", "post", "the attention weights (B, H, T, Tk); read-only"),
    "z": ("self_attn.out_proj", "pre", "each head's output (B, T, H, Dh), before out_proj mixes the heads"),
    "mlp_out": ("feed_forward", "post", "the feed-forward sublayer's output (B, T, D)"),
    "resid_post": ("", "post", "the residual stream leaving the block (B, T, D)"),
}
CROSS_POINTS = {f"cross_{name}": (where.replace("self_attn", "cross_attn"), when,
                                  what.replace("attention", "cross-attention"))
                for name, (where, when, what) in POINTS.items() if where.startswith("self_attn")}
DECODER_POINTS = {name: where for name, where in [*list(POINTS.items())[:-2], *CROSS_POINTS.items(),
                                                  *list(POINTS.items())[-2:]]}  # in forward order
Edit = Callable[[torch.Tensor], "torch.Tensor | None"]  # the activation in; a replacement, or None to keep it


def blocks(model: nn.Module) -> dict[str, nn.Module]:
    """The model's blocks by name: "blocks.i" for a GPT, Llama or encoder; "encoder.i" and "decoder.i"
    for the encoder-decoder Transformer."""
    if hasattr(model, "encoder_layers") and hasattr(model, "decoder"):
        return {**{f"encoder.{i}": layer for i, layer in enumerate(model.encoder_layers)},
                **{f"decoder.{i}": layer for i, layer in enumerate(model.decoder.layers)}}
    if isinstance(getattr(model, "layers", None), nn.ModuleList):
        return {f"blocks.{i}": layer for i, layer in enumerate(model.layers)}
    raise TypeError(f"model: hooks know the blocks of anatomy's GPT, Llama, TransformerEncoder and Transformer; "
                    f"{type(model).__name__} has neither .layers nor .encoder_layers and .decoder")


def points_of(block: nn.Module) -> dict[str, tuple[str, str, str]]:
    """The points one block has: cross-attention points only in a decoder block."""
    return DECODER_POINTS if hasattr(block, "cross_attn") else POINTS


def hook_names(model: nn.Module) -> list[str]:
    """Every hook point of `model`, block by block, in the order the forward pass reaches them."""
    return [f"{name}.{point}" for name, block in blocks(model).items() for point in points_of(block)]


def resolve(model: nn.Module, name: str, argument: str = "name") -> tuple[nn.Module, str, str, nn.Module]:
    """(module to hook, "pre" or "post", point, its block) for `name`, or a ValueError listing what exists."""
    all_blocks = blocks(model)
    block_name, _, point = name.rpartition(".") if isinstance(name, str) else ("", "", "")
    if block_name not in all_blocks or point not in points_of(all_blocks[block_name]):
        first = next(iter(all_blocks))
        raise ValueError(f"{argument}: no hook point {name!r} in this {type(model).__name__}: its blocks are "
                         f"{', '.join(all_blocks)}; a block's points are {', '.join(points_of(all_blocks[first]))}; "
                         f"pass e.g. {first + '.resid_post'!r} (anatomy.hook_names(model) lists them all)")
    where, when, _ = points_of(all_blocks[block_name])[point]
    module = all_blocks[block_name].get_submodule(where) if where else all_blocks[block_name]
    return module, when, point, all_blocks[block_name]


def check_edit(name: str, old: torch.Tensor, new: torch.Tensor) -> torch.Tensor:
    if not isinstance(new, torch.Tensor) or new.shape != old.shape:
        got = tuple(new.shape) if isinstance(new, torch.Tensor) else type(new).__name__
        raise ValueError(f"the edit of {name!r} returned {got}, but the activation there is {tuple(old.shape)}: "
                         f"return a tensor of that shape (e.g. a patch from a run on inputs of the same length)")
    return new.to(old.dtype)


class Hooks:
    """A context manager: `with Hooks(model, record=[...], edit={name: fn}) as cache: model(...)`.

    `record` names the points to store (detached) in `cache`, or "all". `edit` maps a point to a function
    that receives the activation and returns its replacement (same shape), or None to leave it. The
    hooks are removed on leaving the block, even after an error.
    """

    def __init__(self, model: nn.Module, record: Iterable[str] | str = (), edit: Mapping[str, Edit] | None = None):
        if edit is not None and not isinstance(edit, Mapping):
            raise TypeError(f"edit must be a dict {{hook point: function}}, got {type(edit).__name__}")
        if isinstance(record, bytes) or not isinstance(record, (str, Iterable)) or not all(
                isinstance(name, str) for name in ([record] if isinstance(record, str) else record)):
            raise TypeError(f"record must be a hook point name, a list of them, or 'all', got {record!r}")
        self.model, self.edit = model, dict(edit or {})
        blocks(model)  # a model without blocks is refused even when nothing is named
        self.record = hook_names(model) if record == "all" else list([record] if isinstance(record, str) else record)
        for name in {*self.record, *self.edit}:
            resolve(model, name, "record" if name in self.record else "edit")
        for name, fn in self.edit.items():
            if name.endswith("pattern"):
                raise ValueError(f"{name!r} is read-only: the attention output is already computed from the weights when "
                                 f"the hook sees them; edit {name[:-len('pattern')] + 'z'!r} (the heads' outputs) instead")
            if not callable(fn):
                raise TypeError(f"edit[{name!r}] must be a function activation -> replacement, got {type(fn).__name__}")
        self.cache: dict[str, torch.Tensor] = {}
        self.handles: list[torch.utils.hooks.RemovableHandle] = []

    def __enter__(self) -> dict[str, torch.Tensor]:
        if self.handles:  # leaving the inner block would remove the outer block's hooks too
            raise RuntimeError("this Hooks object is already active (entered, not yet left): it cannot be entered "
                               "again inside itself; nest a second Hooks(model, ...) object instead")
        self.cache.clear()
        try:
            for name in dict.fromkeys([*self.record, *self.edit]):
                module, when, point, block = resolve(self.model, name)
                if when == "pre":  # z: the attention module (out_proj's owner) knows H
                    attention = DECODER_POINTS[point][0].rpartition(".")[0]
                    heads = block.get_submodule(attention).num_heads if point.endswith("z") else 0
                    self.handles.append(module.register_forward_pre_hook(self._pre_hook(name, heads)))
                else:
                    self.handles.append(module.register_forward_hook(self._post_hook(name, point)))
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self.cache

    def __exit__(self, *exc) -> None:
        for handle in self.handles:
            handle.remove()
        self.handles.clear()

    def _visit(self, name: str, activation: torch.Tensor) -> torch.Tensor | None:
        """Edit, then record what the rest of the forward pass will see; None = unchanged."""
        new = self.edit[name](activation) if name in self.edit else None
        new = None if new is None else check_edit(name, activation, new)
        if name in self.record:
            self.cache[name] = (activation if new is None else new).detach()
        return new

    def _pre_hook(self, name: str, heads: int):
        def hook(_, args):
            x = args[0]  # (B, T, D) or, for z, (B, T, H x Dh): the heads side by side
            if heads:
                new = self._visit(name, x.unflatten(-1, (heads, -1)))  # (B, T, H, Dh)
                return None if new is None else (new.flatten(-2), *args[1:])
            new = self._visit(name, x)
            return None if new is None else (new, *args[1:])
        return hook

    def _post_hook(self, name: str, point: str):
        def hook(_, args, output):
            if point == "mlp_out":
                return self._visit(name, output)
            index = 1 if point.endswith("pattern") else 0
            if output[index] is None:
                raise ValueError(f"{name!r}: this forward pass computed no attention weights; call the model with "
                                 f"output_attentions=True to record them")
            new = self._visit(name, output[index])
            return None if new is None else (*output[:index], new, *output[index + 1:])
        return hook
