"""What a cached train_dates call is keyed by, and the state it saves and restores (tools/training_cache.py).

The key reads everything train_dates' result depends on that the kernels of one `make test` could differ in;
the saved state is every parameter, buffer and gradient of the model, and the random generators a cell draws from.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
import random
from pathlib import Path

ENVIRONMENT = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "ONEDNN_MAX_CPU_ISA", "ANATOMY_FLOAT_JITTER", "OMP_NUM_THREADS")


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


def key(model, vocab, arguments: dict, first_batch=None) -> str:
    """SHA-256 of what train_dates' result depends on and this run's kernels could differ in: the model's class and
    config, every parameter (with requires_grad) and buffer (persistent or not), the vocabulary, the arguments, the
    first training batch (the data: 07's exercise changes the formats), the package's source, torch's version, its
    default dtype, deterministic flag and thread count, the float settings of the environment and the random state."""
    import torch

    digest = hashlib.sha256()
    digest.update(f"{type(model).__module__}.{type(model).__qualname__}|{getattr(model, 'config', None)!r}".encode())
    tensors = [(f"p:{n}:{t.requires_grad}", t) for n, t in model.named_parameters()]
    for name, tensor in tensors + [(f"b:{n}", t) for n, t in model.named_buffers()] + [
            (f"batch:{i}", t) for i, t in enumerate(vars(first_batch).values() if first_batch is not None else [])
            if isinstance(t, torch.Tensor)]:
        tensor = tensor.detach().cpu().contiguous().reshape(-1)
        digest.update(f"|{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(tensor.view(torch.uint8).numpy().tobytes())
    settings = (torch.__version__, str(torch.get_default_dtype()), torch.are_deterministic_algorithms_enabled(),
                torch.get_num_threads(), [os.environ.get(v) for v in ENVIRONMENT], package_source())
    digest.update(pickle.dumps((type(vocab).__qualname__, vocab.tokens, sorted(arguments.items()), settings)))
    torch_state, numpy_state, python_state = random_state()
    digest.update(torch_state.numpy().tobytes() + pickle.dumps((numpy_state[0], numpy_state[1].tobytes(),
                                                                numpy_state[2:], python_state)))
    return digest.hexdigest()


@functools.cache
def package_source() -> str:
    """SHA-256 of every .py file of the anatomy package this kernel imports (an edit during the run changes it)."""
    import anatomy

    digest = hashlib.sha256()
    for path in sorted(Path(anatomy.__file__).parent.rglob("*.py")):
        digest.update(str(path).encode() + path.read_bytes())
    return digest.hexdigest()


def tensors_of(model) -> dict:
    """Every parameter and buffer (persistent or not) of `model`, and each parameter's gradient."""
    found = {f"p:{n}": t for n, t in model.named_parameters()} | {f"b:{n}": t for n, t in model.named_buffers()}
    return {name: tensor.detach().clone() for name, tensor in found.items()} | {
        f"g:{n}": p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}


def restore(model, saved: dict) -> None:
    import torch

    with torch.no_grad():
        for name, tensor in [(f"p:{n}", t) for n, t in model.named_parameters()] + [
                (f"b:{n}", t) for n, t in model.named_buffers()]:
            tensor.copy_(saved[name])
        for name, parameter in model.named_parameters():
            parameter.grad = saved.get(f"g:{name}")
