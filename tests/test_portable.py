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
