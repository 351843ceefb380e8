"""Notebook kernels that talk over Unix sockets, not TCP ports: `make test` (conftest.py) and
`make notebooks` (tools/execute_notebook.py) start theirs this way.

A TCP kernel's ports are picked by its client, released, and only bound again by the kernel a second
later. When several kernels start at once (two test workers, `make notebooks -j`, the browser test's
Jupyter servers), another process can take a port in that gap; the kernel then dies on "Address
already in use", and the test reports "Kernel died before replying to kernel_info". A socket file in
a folder of our own cannot be taken.
"""
from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

from jupyter_client.manager import KernelManager

_SOCKET_FOLDER: Path | None = None


def socket_folder() -> Path:
    """A private folder for this process's kernel sockets, removed when the process exits."""
    global _SOCKET_FOLDER
    if _SOCKET_FOLDER is None:
        _SOCKET_FOLDER = Path(tempfile.mkdtemp(prefix="kernels-"))
        atexit.register(shutil.rmtree, _SOCKET_FOLDER, ignore_errors=True)
    return _SOCKET_FOLDER


def ipc_kernel_manager(manager_class: type[KernelManager] = KernelManager, **traits) -> KernelManager:
    """A `manager_class(**traits)` whose kernel listens on socket files with absolute paths.

    The path is absolute so that client and kernel agree even when the kernel runs in another
    working directory (jupyter_client's default, "kernel-ipc", is relative); it is short so that it
    stays under the 104-byte limit of a socket path on macOS. Windows has no such sockets for ZeroMQ:
    there the kernel keeps its TCP ports.
    """
    if sys.platform == "win32":
        return manager_class(**traits)
    return manager_class(transport="ipc", ip=str(socket_folder() / uuid.uuid4().hex[:12]), **traits)


def patch_nbval() -> None:
    """Make nbval start its kernels on socket files, and say why a kernel died instead of hiding it.

    nbval sends the kernel's stderr to /dev/null, so a kernel that dies while starting leaves only
    "Kernel died before replying to kernel_info"; its stderr now goes to a file whose end is added
    to that error.
    """
    import nbval.kernel

    nbval.kernel.KernelManager = ipc_kernel_manager
    start = nbval.kernel.start_new_kernel

    def start_new_kernel(*args, stderr=None, **kwargs):
        if stderr is not None:
            stderr.close()  # nbval's /dev/null, replaced by the log below
        log = tempfile.TemporaryFile()
        try:
            return start(*args, stderr=log, **kwargs)
        except RuntimeError as error:
            log.seek(0)
            tail = log.read().decode(errors="replace")[-3000:]
            raise RuntimeError(f"{error}; the kernel's stderr ended with:\n{tail}") from error

    nbval.kernel.start_new_kernel = start_new_kernel
