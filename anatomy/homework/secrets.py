"""Hidden inputs drawn from an instructor's secret, so a public master cannot be used to hard-code them.

Part of the homework framework (see anatomy.homework). `instructor/assign.py` (run by
`make homework SECRET=...`) rewrites each hidden test's `seed=N` into `hidden_seed(secret, label)`
before otter assign; without a secret the master's own seeds are kept (self-study).
"""
from __future__ import annotations

import hashlib
import re

HIDDEN_SEED = re.compile(r"\bseed=(\d+)")


def hidden_seed(secret: str, label: str) -> int:
    """A seed in [0, 2**31) that only someone who knows `secret` can predict."""
    if not isinstance(secret, str) or not secret:
        raise ValueError(f"secret must be a non-empty string, got {secret!r}")
    return int.from_bytes(hashlib.sha256(f"{secret}\0{label}".encode()).digest()[:4], "big") >> 1


def reseed(source: str, secret: str, label: str) -> str:
    """A hidden test cell's source with every `seed=N` replaced by a seed drawn from the secret."""
    return HIDDEN_SEED.sub(lambda m: f"seed={hidden_seed(secret, f'{label}/{m.group(1)}')}", source)
