"""Notebook 07's train_dates calls run once per `make test`, not once per kernel that runs 07.

Three kernels run notebook 07 in one suite: nbval's, and the live JupyterLab and Notebook 7 pages of
tests/test_viz_live_jupyter.py (Run All, to see the attention view drawn again). Each made the same three
train_dates calls (a 12-step check and the two translators, about 100 s of CPU apiece) from the same
weights and random state.

conftest.py gives the Jupyter kernels that `make test` starts (nbval's, and the live Jupyter servers'; they
inherit pytest's environment) an IPython startup file (KERNEL_STARTUP) that wraps
anatomy.tasks.dates_translator.train_dates when a cell imports it. The wrapper keys a call by what its result
depends on and this run's kernels could differ in (`key`, in tools/training_state.py). The first kernel to
make a call trains and saves every parameter, buffer and gradient, the run's record and the random state
training left behind; a later call with the same key loads them, so the kernel goes on with the same weights,
gradients, record and random state as one that trained (the record's `seconds` are the first kernel's, and no
progress bar is drawn; 07 prints neither). Another key trains. The folder lives for one suite run only
(conftest.py removes it), so every `make test` makes each call once, in whichever kernel reaches it first. A
model on a GPU, or with hooks, is never cached. The suite's summary says how many calls trained and how many
reused a saved run.
"""
from __future__ import annotations

import fcntl
import functools
import importlib.abc
import importlib.util
import sys
from pathlib import Path

FOLDER_VARIABLE = "ANATOMY_TRAINING_CACHE"
MODULE = "anatomy.tasks.dates_translator"
KERNEL_STARTUP = """\
import importlib.util, os
_spec = importlib.util.spec_from_file_location("anatomy_training_cache", {path!r})
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
_module.install(os.environ[_module.FOLDER_VARIABLE])
del importlib, os, _spec, _module
"""


def _load_sibling(name: str):
    """tools/<name>.py, loaded by its path: the kernels load this file by its path too (KERNEL_STARTUP), where
    `tools` is not importable."""
    spec = importlib.util.spec_from_file_location(f"anatomy_{name}", Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_state = _load_sibling("training_state")
key, random_state, set_random_state, restore, tensors_of = (
    _state.key, _state.random_state, _state.set_random_state, _state.restore, _state.tensors_of)


def cached(train_dates, folder: Path, training_batches=None):
    """train_dates, each call made once across every process that shares `folder`; `training_batches`
    (anatomy.tasks.dates_translator's) gives the first batch the key reads."""
    import inspect

    import torch

    signature = inspect.signature(train_dates)

    @functools.wraps(train_dates)
    def train_once(model, vocab, *args, **kwargs):
        try:
            bound = signature.bind(model, vocab, *args, **kwargs)
        except TypeError:
            return train_dates(model, vocab, *args, **kwargs)  # its own error message
        hooked = any(m._forward_hooks or m._forward_pre_hooks or m._backward_hooks for m in model.modules())
        if (next(model.parameters()).device.type != "cpu" or not isinstance(getattr(vocab, "tokens", None), list)
                or hooked):
            return train_dates(model, vocab, *args, **kwargs)  # a GPU's run, a vocabulary or hooks the key cannot read
        bound.apply_defaults()
        arguments = {k: v for k, v in bound.arguments.items() if k not in ("model", "vocab", "progress")}
        state = random_state()
        first = None if training_batches is None else next(
            training_batches(vocab, arguments["batch_size"], arguments["seed"]))
        set_random_state(state)
        name = key(model, vocab, arguments, first)
        path = folder / f"{name}.pt"
        with open(folder / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # a second kernel with this key waits for the first to save
            if path.exists():
                saved = torch.load(path, weights_only=False)
                restore(model, saved["tensors"])
                model.eval()
                set_random_state(saved["random"])
                _count(folder, "reused")
                return saved["run"]
            run = train_dates(model, vocab, *args, **kwargs)
            try:
                torch.save({"tensors": tensors_of(model), "run": run, "random": random_state()}, path.with_suffix(".part"))
                path.with_suffix(".part").rename(path)
            except OSError:  # a full disk: the run stands, uncached
                return run
            _count(folder, "trained")
            return run

    return train_once


def _count(folder: Path, event: str) -> None:
    with open(folder / "events.txt", "a") as log:
        log.write(event + "\n")


def counts(folder: Path) -> dict[str, int]:
    """How many calls trained and how many reused a saved result, in the processes sharing `folder`."""
    lines = (folder / "events.txt").read_text().split() if (folder / "events.txt").exists() else []
    return {event: lines.count(event) for event in ("trained", "reused")}


class _Wrapper(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Wraps MODULE's train_dates as the module is imported, so that a kernel that never imports it
    pays nothing (not even torch's import)."""

    def __init__(self, folder: Path):
        self.folder = folder

    def find_spec(self, name, path=None, target=None):
        if name != MODULE:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return None
        self.loader, spec.loader = spec.loader, self
        return spec

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _wrap(module, self.folder)
        sys.meta_path.remove(self)


def _wrap(module, folder: Path) -> None:
    """MODULE's train_dates, replaced by its cached twin (the key reads the module's training_batches)."""
    module.train_dates = cached(module.train_dates, folder, module.training_batches)


def install(folder: str | Path) -> None:
    """Cache train_dates in this process from now on, in `folder` (created by conftest.py)."""
    folder = Path(folder)
    if MODULE in sys.modules:
        _wrap(sys.modules[MODULE], folder)
    else:
        sys.meta_path.insert(0, _Wrapper(folder))
