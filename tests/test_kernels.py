"""The kernels that `make test` and `make notebooks` start (tools/kernels.py): socket files, no TCP ports.

A CI run once lost notebook 09 to "Kernel died before replying to kernel_info" while another worker
started kernels too; nbval had hidden the kernel's stderr.
"""
from __future__ import annotations

import json
import sys

import nbval.kernel
import pytest
from jupyter_client.manager import AsyncKernelManager

from tools.kernels import ipc_kernel_manager


needs_unix_sockets = pytest.mark.skipif(sys.platform == "win32", reason="ZeroMQ has no ipc transport on Windows")


@needs_unix_sockets
def test_nbval_kernels_listen_on_socket_files_with_absolute_paths(tmp_path):
    kernel = nbval.kernel.RunningKernel(nbval.kernel.CURRENT_ENV_KERNEL_NAME, cwd=str(tmp_path))
    try:
        info = kernel.km.get_connection_info()
        assert info["transport"] == "ipc", info
        assert info["ip"].startswith("/"), f"a relative socket path depends on the working directory: {info['ip']}"
        assert kernel.execute_cell_input("6 * 7", allow_stdin=False) is not None  # it answers over the sockets
        reply = kernel.get_message(stream="shell", timeout=30)
        assert reply["content"]["status"] == "ok", reply["content"]
        assert not list(tmp_path.iterdir()), "the kernel's sockets must not land in the notebook's folder"
    finally:
        kernel.stop()


@needs_unix_sockets
def test_notebook_runs_get_their_own_sockets():
    first, second = (ipc_kernel_manager(AsyncKernelManager, kernel_name="python3") for _ in range(2))
    assert first.transport == second.transport == "ipc"
    assert first.ip != second.ip


def test_a_kernel_that_dies_while_starting_says_why(tmp_path, monkeypatch):
    spec = tmp_path / "kernels" / "dies"
    spec.mkdir(parents=True)
    crash = "import sys; sys.stderr.write('ZMQError: Address already in use'); sys.exit(1)"
    (spec / "kernel.json").write_text(json.dumps({"argv": [sys.executable, "-c", crash, "{connection_file}"],
                                                  "display_name": "dies", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match="(?s)Kernel died.*stderr ended with:.*Address already in use"):
        nbval.kernel.RunningKernel("dies", startup_timeout=30)
