"""`make test-portable`'s settings really change this machine's float results: the proof that the
suite passes on outputs computed with other last bits (what another CPU does), not only where they
were made. The settings are read from the Makefile, where `make test-portable` takes them.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

MAKEFILE = Path(__file__).resolve().parent.parent / "Makefile"
# Softmax, LayerNorm, GELU, exp and a Linear layer, as a notebook uses them; one thread, fixed inputs.
PROBE = """
import hashlib, torch
torch.set_num_threads(1)
g = torch.Generator().manual_seed(0)
x = torch.randn(4, 40, 384, generator=g)
w = torch.randn(384, 384, generator=g) / 20
outputs = [torch.softmax(x @ x.transpose(1, 2) / 19.6, -1), torch.nn.functional.layer_norm(x, (384,)),
           torch.nn.functional.gelu(x), x.exp(), x @ w]
print(" ".join(hashlib.sha1(o.numpy().tobytes()).hexdigest()[:8] for o in outputs))
"""


def portable_settings() -> dict[str, str]:
    line = re.search(r"^PORTABLE := (.+)$", MAKEFILE.read_text(), re.MULTILINE)
    assert line, "the Makefile should define PORTABLE := NAME=value ..."
    return dict(pair.split("=", 1) for pair in line.group(1).split())


def digests(extra_env: dict[str, str]) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in portable_settings()} | {"OMP_NUM_THREADS": "1"} | extra_env
    return subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                          check=True).stdout.split()


@pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() == "DEFAULT", reason="this CPU has no vector kernels to switch off")
def test_the_portable_settings_change_the_last_bits_of_most_operations():
    plain, portable = digests({}), digests(portable_settings())
    changed = sum(a != b for a, b in zip(plain, portable))
    assert changed >= 3, f"only {changed} of {len(plain)} results changed under {portable_settings()}"


def test_the_same_settings_give_the_same_bits():
    assert digests({}) == digests({})


# `make test-portable` also nudges every optimizer step in a notebook kernel (tools/portable/sitecustomize.py),
# so that a cell comparing the digits of a trained model's figures fails here as on another CPU.
PORTABLE_SITE = MAKEFILE.parent / "tools" / "portable" / "sitecustomize.py"


def portable_site():
    import importlib.util

    spec = importlib.util.spec_from_file_location("portable_sitecustomize", PORTABLE_SITE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not a kernel: imports nothing, installs nothing
    return module


def trained_weights() -> torch.Tensor:
    """The weights after a seeded 40-step Adam run, as a notebook's training loop takes it; asserts that the
    embedding rows 5-9, which no input uses, did not move."""
    generator = torch.Generator().manual_seed(0)
    ids, y = torch.randint(0, 5, (64,), generator=generator), torch.randn(64, 4, generator=generator)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(10, 16), torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 4))
    unused_before = model[0].weight[5:].detach().clone()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(40):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(ids), y).backward()
        optimizer.step()
    assert torch.equal(model[0].weight[5:], unused_before), "rows without a gradient must not move (Adam leaves them)"
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def test_the_training_nudge_changes_the_trained_bits_but_keeps_runs_reproducible():
    plain = trained_weights()
    handle = portable_site().install(1e-6)
    try:
        nudged, again = trained_weights(), trained_weights()  # each asserts that unused rows stay put
    finally:
        handle.remove()
    assert torch.equal(nudged, again), "the nudge depends only on the weights: the same seed gives the same bits"
    assert (nudged != plain).float().mean() > 0.5, "most trained weights should differ in their last bits"
    assert (nudged - plain).abs().max() < 1e-3, "but only by float noise, not by another training"
    assert torch.equal(trained_weights(), plain), "removed, the nudge leaves training as it was"


def test_only_notebook_kernels_are_nudged():
    site = portable_site()
    assert site.in_kernel(["/venv/bin/python", "-m", "ipykernel_launcher", "-f", "/tmp/kernel.json"])
    assert not site.in_kernel(["/venv/bin/python", "-m", "pytest", "tests"])
    env = os.environ | {site.SCALE_VARIABLE: "1e-6", "PYTHONPATH": str(PORTABLE_SITE.parent)}
    loaded = subprocess.run([sys.executable, "-c", "import sys; print('sitecustomize' in sys.modules, 'torch' in sys.modules)"],
                            env=env, capture_output=True, text=True, check=True).stdout.split()
    assert loaded == ["True", "False"], "outside a kernel the nudge is found but imports and changes nothing"


def test_make_test_portable_nudges_training():
    text = MAKEFILE.read_text()
    training = re.search(r"^PORTABLE_TRAINING := (.+)$", text, re.MULTILINE)
    assert training and "ANATOMY_FLOAT_JITTER=" in training.group(1) and "tools/portable" in training.group(1)
    recipe = re.search(r"^test-portable:.*\n\t(.+)$", text, re.MULTILINE).group(1)
    assert "$(PORTABLE)" in recipe and "$(PORTABLE_TRAINING)" in recipe
