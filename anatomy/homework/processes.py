"""Ending a helper process and its whole process group (the homework graders' children).

Part of the homework framework (see anatomy.homework). Homework 3's implementation servers
(attention_tests/server_link.py, notebook 19_homework_attention_tests) and the trusted grader's
sandboxed children (anatomy_grading/connection.py) are started with `start_new_session=True`, so each
leads a process group of its own; `end_process_group` kills that group (whatever the process started
with it ends too), reaps the process and closes the caller's ends of its pipes.
"""
from __future__ import annotations

import os
import signal
import subprocess
from typing import IO, Iterable


def end_process_group(process: subprocess.Popen, streams: Iterable[IO | int | None] = ()) -> None:
    """SIGKILL `process`'s process group unless it has ended, wait for it, then close each of `streams`
    (file objects, or raw file descriptors, closed with os.close; None is skipped). A process already gone
    and a stream already closed are fine, so calling it twice is too; a raw descriptor, once closed, is
    the caller's to forget (its number may be reused by the next file opened)."""
    if not isinstance(process, subprocess.Popen):
        raise TypeError(f"process must be a subprocess.Popen, got {type(process).__name__}")
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # the process leads its group (start_new_session=True)
        except ProcessLookupError:  # it ended between poll() and here
            pass
    process.wait()
    for stream in streams:
        try:
            if isinstance(stream, int):
                os.close(stream)
            elif stream is not None:
                stream.close()
        except OSError:
            pass
