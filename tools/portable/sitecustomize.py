"""`make test-portable`'s stand-in for another CPU in training runs: a tiny, deterministic change of
the float path of every optimizer step taken in a notebook kernel.

Another CPU rounds the last bits of a few operations differently; a training run amplifies those
differences over hundreds of steps, so a trained model's loss, accuracy or sampled text differs in
its printed digits (notebook 11 once printed a held-out loss of 1.950 where the committed output
said 1.953). The kernel settings of `make test-portable` (ATEN_CPU_CAPABILITY, MKL_CBWR, ...) change
last bits too, but too few to show this. With ANATOMY_FLOAT_JITTER=<scale> in the environment and this
folder on PYTHONPATH, every torch optimizer step in an IPython kernel ends by multiplying each
entry p that the step updated by 1 + scale * sin(10_000 * p): a relative change of at most `scale`
(1e-6 is about sixteen float32 roundings), that depends only on the weights' values. The seeds, the data and the
order of the batches stay the same, and two runs from the same seed still give the same bits (a
notebook's "the same seed draws the same text" asserts hold), but the weights are not the ones this
CPU trains. A cell that prints figures of a trained model then shows whether it compares their
digits (it should not: tools/outputs.py) or asserts what training must reach.

Only kernels are perturbed (`make test` re-executes notebooks in them); pytest's own processes and
every other Python program started with this folder on the path run unchanged.
"""
from __future__ import annotations

import os
import sys

SCALE_VARIABLE = "ANATOMY_FLOAT_JITTER"


def perturb(optimizer, scale: float) -> None:
    """Multiply each entry of `optimizer`'s parameters that had a gradient by 1 + scale * sin(10_000 * p).
    Entries without one (frozen weights, an unused embedding row) stay as they were, as on any CPU."""
    import torch

    with torch.no_grad():
        for group in optimizer.param_groups:
            for parameter in group["params"]:
                if parameter.grad is not None and parameter.is_floating_point():
                    nudge = scale * torch.sin(parameter * 10_000) * (parameter.grad != 0)
                    parameter.mul_(1 + nudge)


def install(scale: float):
    """Perturb every optimizer step of this process from now on; returns the hook's handle (.remove())."""
    from torch.optim.optimizer import register_optimizer_step_post_hook

    return register_optimizer_step_post_hook(lambda optimizer, args, kwargs: perturb(optimizer, scale))


def in_kernel(argv: list[str] | None = None) -> bool:
    """True in an IPython kernel (`python -m ipykernel_launcher -f ...`, as Jupyter and nbval start it)."""
    return any(arg.endswith("ipykernel_launcher") for arg in (sys.orig_argv if argv is None else argv))


if os.environ.get(SCALE_VARIABLE) and in_kernel():
    install(float(os.environ[SCALE_VARIABLE]))
