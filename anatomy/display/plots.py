"""Attention heat-maps and mask plots with the tokens on both axes and a colour bar.

Taught in: 03_attention (first use); used by every notebook that draws attention (03, 04, 06, 07).
Shapes: N heads (or panels), Tq queries (rows), Tk keys (columns).
The idea of one plotting helper for all attention maps follows d2l's `show_heatmaps`.
"""
from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from anatomy.checks import check_integer, check_number

MASK_COLOURS = ListedColormap(["#eeeeee", "#2e7d32"])  # grey = blocked, green = may attend


def _as_array(values, dims: int, name: str) -> np.ndarray:
    array = torch.as_tensor(values).detach().cpu()
    if array.dim() != dims:
        hint = "; for one example of a batch pass weights[0]" if array.dim() == dims + 1 else ""
        raise ValueError(f"{name} must have {dims} dimensions, got shape {tuple(array.shape)}{hint}")
    if array.is_floating_point() and not torch.isfinite(array).all():
        raise ValueError(f"{name} hold NaN or inf: those cells would be drawn blank, as if nothing were there; "
                         "find where they come from (e.g. a row whose keys are all masked)")
    return array.numpy()


def _check_labels(labels: Sequence[str] | None, size: int, axis: str) -> None:
    if labels is not None and len(labels) != size:
        raise ValueError(f"{axis} has {size} positions but {len(labels)} labels were given: {list(labels)}")


def _label_axes(ax: Axes, queries: Sequence[str] | None, keys: Sequence[str] | None,
                rows: int, columns: int, fontsize: float | None) -> None:
    ax.set_xlabel("key (attended to)")
    ax.set_ylabel("query")
    if keys is not None:
        ax.set_xticks(range(columns), list(keys), rotation=90, fontsize=fontsize)
    if queries is not None:
        ax.set_yticks(range(rows), list(queries), fontsize=fontsize)


def attention_heatmap(weights, queries: Sequence[str] | None = None, keys: Sequence[str] | None = None,
                      ax: Axes | None = None, title: str | None = None, vmax: float = 1.0,
                      colorbar: bool = True, fontsize: float | None = None) -> Axes:
    """One (Tq, Tk) attention matrix: queries label the rows, keys the columns, a colour bar the weights."""
    array = _as_array(weights, 2, "weights (Tq, Tk)")
    check_number("vmax", vmax, above=0)
    _check_labels(queries, array.shape[0], "the query axis (rows)")
    _check_labels(keys, array.shape[1], "the key axis (columns)")
    ax = ax if ax is not None else plt.subplots(figsize=(1 + 0.35 * array.shape[1], 1 + 0.35 * array.shape[0]))[1]
    image = ax.imshow(array, cmap="Blues", vmin=0, vmax=vmax, aspect="auto")
    _label_axes(ax, queries, keys, *array.shape, fontsize)
    if title:
        ax.set_title(title, fontsize=10)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label="attention weight")
    return ax


def attention_heatmaps(weights, queries: Sequence[str] | None = None, keys: Sequence[str] | None = None,
                       titles: Sequence[str] | None = None, ncols: int = 4, suptitle: str | None = None,
                       panel_size: float = 2.6, vmax: float = 1.0, fontsize: float | None = 7) -> Figure:
    """A grid of (N, Tq, Tk) attention matrices (e.g. the heads of one layer) with one shared colour bar.

    Tokens label the left column's rows and the bottom row's columns.
    """
    array = _as_array(weights, 3, "weights (N, Tq, Tk)")
    count, rows, columns = array.shape
    check_number("vmax", vmax, above=0)
    _check_labels(queries, rows, "the query axis (rows)")
    _check_labels(keys, columns, "the key axis (columns)")
    if titles is not None and len(titles) != count:
        raise ValueError(f"got {count} heat-maps but {len(titles)} titles")
    check_integer("ncols", ncols)
    check_number("panel_size", panel_size, above=0)
    ncols = min(ncols, count)
    nrows = -(-count // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel_size * ncols + 1, panel_size * nrows),
                             squeeze=False, constrained_layout=True)
    for index, ax in enumerate(axes.flat):
        if index >= count:
            ax.axis("off")
            continue
        image = ax.imshow(array[index], cmap="Blues", vmin=0, vmax=vmax, aspect="auto")
        row, column = divmod(index, ncols)
        bottom = index + ncols >= count
        _label_axes(ax, queries if column == 0 else None, keys if bottom else None, rows, columns, fontsize)
        if column != 0:
            ax.set(yticks=[], ylabel="")
        if not bottom:
            ax.set(xticks=[], xlabel="")
        if titles is not None:
            ax.set_title(titles[index], fontsize=9)
    fig.colorbar(image, ax=axes, label="attention weight", shrink=0.8)
    if suptitle:
        fig.suptitle(suptitle)
    return fig


def mask_plot(mask, queries: Sequence[str] | None = None, keys: Sequence[str] | None = None,
              ax: Axes | None = None, title: str | None = None, fontsize: float | None = None) -> Axes:
    """A boolean (Tq, Tk) mask, True = may attend: green cells may attend, grey ones are blocked.

    The colour bar says so in words.
    """
    tensor = torch.as_tensor(mask)
    if tensor.dtype != torch.bool:
        raise ValueError(f"mask must be boolean (True = may attend), got dtype {tensor.dtype}")
    array = _as_array(tensor, 2, "mask (Tq, Tk)").astype(int)
    _check_labels(queries, array.shape[0], "the query axis (rows)")
    _check_labels(keys, array.shape[1], "the key axis (columns)")
    ax = ax if ax is not None else plt.subplots(figsize=(1.5 + 0.35 * array.shape[1], 1 + 0.35 * array.shape[0]))[1]
    image = ax.imshow(array, cmap=MASK_COLOURS, vmin=-0.5, vmax=1.5, aspect="auto")
    _label_axes(ax, queries, keys, *array.shape, fontsize)
    if title:
        ax.set_title(title, fontsize=10)
    colour_bar = ax.figure.colorbar(image, ax=ax, ticks=[0, 1])
    colour_bar.ax.set_yticklabels(["blocked (False)", "may attend (True)"])
    return ax
