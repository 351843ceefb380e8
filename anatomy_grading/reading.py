"""The grader's reading of what a grading child sends (connection.py): one frame by a deadline, and what a
pipe still holds.

A frame's lengths are checked against the reply caps (wire.MAX_REPLY_JSON, MAX_REPLY_BLOB) before its body
is read, and the buffer grows only with the bytes that actually arrive, never to the announced size.
"""
from __future__ import annotations

import array
import fcntl
import os
import select
import termios
import time

import torch

from anatomy_grading import wire


class Late(Exception):
    """The deadline passed before the whole frame arrived."""


def frame(source: int, deadline: float) -> tuple[dict, dict[str, torch.Tensor]]:
    """The next frame on pipe `source`, whole, by `deadline` (time.monotonic()): Late past it, EOFError when
    the pipe closed, wire.WireError (or json's, safetensors' error) when it breaks the wire's rules."""
    def read(size: int) -> bytes:
        data = bytearray()
        while len(data) < size:
            if not select.select([source], [], [], max(0.0, deadline - time.monotonic()))[0]:
                raise Late()
            chunk = os.read(source, min(size - len(data), 1 << 20))
            if not chunk:
                raise EOFError("the child closed the pipe")
            data += chunk
        return bytes(data)
    body, blob = wire.lengths(read(wire.HEADER.size), wire.MAX_REPLY_JSON, wire.MAX_REPLY_BLOB)
    return wire.unpack(read(body), read(blob))


def unread(fd: int) -> int:
    """Bytes waiting in the pipe `fd` is an end of (FIONREAD answers on either end)."""
    count = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, count)
    return count[0]
