"""Notebook 07's translator trains once per `make test`, not once per kernel that runs 07.

Three kernels run notebook 07 in one suite: nbval's, and the live JupyterLab and Notebook 7 pages of
tests/test_viz_live_jupyter.py (Run All, to see the attention view drawn again). Each trained the same
two translators from the same weights and the same random state, about 100 s of CPU apiece.

conftest.py gives every kernel that `make test` starts (nbval's, and the live Jupyter servers') an
IPython startup file (KERNEL_STARTUP) that wraps anatomy.tasks.dates_translator.train_dates when a
cell imports it. The wrapper keys a call by everything its result depends on: the model's weights,
buffers and class, the vocabulary, every argument, torch's version and the random state of torch,
numpy and Python (`key`). The first kernel to make a call trains and saves the trained weights, the
run's record and the random state training left behind; a later call with the same key loads them,
so the kernel continues exactly as if it had trained, and prints the same figures. Another key
(other weights, another seed, another random state) trains. The folder lives for one suite run only
(conftest.py removes it), so every `make test` trains each translator once. A model on a GPU is never
cached. The trained/reused counts are in the suite's summary.
"""
from __future__ import annotations

import fcntl
import hashlib
import importlib.abc
import importlib.util
import pickle
import random
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


def random_state() -> tuple:
    """The state of every random generator a cell may draw from next: torch's, numpy's and Python's."""
    import numpy
    import torch

    return torch.get_rng_state(), numpy.random.get_state(), random.getstate()


def set_random_state(state: tuple) -> None:
    import numpy
    import torch

    torch.set_rng_state(state[0])
    numpy.random.set_state(state[1])
    random.setstate(state[2])


def key(model, vocab, arguments: dict) -> str:
    """SHA-256 of what train_dates' result depends on: the model's class, config and every tensor of its
    state (name, dtype, shape, bytes), the vocabulary, the arguments, torch's version and the random state."""
    import torch

    digest = hashlib.sha256()
    digest.update(f"{type(model).__module__}.{type(model).__qualname__}|{getattr(model, 'config', None)!r}".encode())
    for name, tensor in model.state_dict().items():
        tensor = tensor.detach().cpu().contiguous()
        digest.update(f"|{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(tensor.view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    digest.update(pickle.dumps((type(vocab).__qualname__, vocab.tokens, sorted(arguments.items()),
                                torch.__version__)))
    torch_state, numpy_state, python_state = random_state()
    digest.update(torch_state.numpy().tobytes() + pickle.dumps((numpy_state[0], numpy_state[1].tobytes(),
                                                                numpy_state[2:], python_state)))
    return digest.hexdigest()


def cached(train_dates, folder: Path):
    """train_dates, each call made once across every process that shares `folder`."""
    import functools
    import inspect

    import torch

    signature = inspect.signature(train_dates)

    @functools.wraps(train_dates)
    def train_once(model, vocab, *args, **kwargs):
        if next(model.parameters()).device.type != "cpu" or not isinstance(getattr(vocab, "tokens", None), list):
            return train_dates(model, vocab, *args, **kwargs)  # a GPU's run, or a vocabulary the key cannot read
        bound = signature.bind(model, vocab, *args, **kwargs)
        bound.apply_defaults()
        arguments = {k: v for k, v in bound.arguments.items() if k not in ("model", "vocab", "progress")}
        name = key(model, vocab, arguments)
        path = folder / f"{name}.pt"
        with open(folder / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # a second kernel with this key waits for the first to save
            if path.exists():
                saved = torch.load(path, weights_only=False)
                model.load_state_dict(saved["state"])
                model.eval()
                set_random_state(saved["random"])
                _count(folder, "reused")
                return saved["run"]
            run = train_dates(model, vocab, *args, **kwargs)
            state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            torch.save({"state": state, "run": run, "random": random_state()}, path.with_suffix(".part"))
            path.with_suffix(".part").rename(path)
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
        module.train_dates = cached(module.train_dates, self.folder)
        sys.meta_path.remove(self)


def install(folder: str | Path) -> None:
    """Cache train_dates in this process from now on, in `folder` (created by conftest.py)."""
    folder = Path(folder)
    if MODULE in sys.modules:
        module = sys.modules[MODULE]
        module.train_dates = cached(module.train_dates, folder)
    else:
        sys.meta_path.insert(0, _Wrapper(folder))
