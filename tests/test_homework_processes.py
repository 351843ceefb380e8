"""anatomy.homework.processes.end_process_group: what homework 3's implementation servers and the trusted
grader's children end with. It kills the whole process group (what the process started ends too), a
process that is already gone is fine, and a second call is too."""
from __future__ import annotations

import os
import subprocess
import time

import pytest

from anatomy.homework import processes
from anatomy.homework.processes import end_process_group


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its new parent to reap it counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def test_it_kills_the_whole_group_and_closes_the_streams():
    process = subprocess.Popen(["sh", "-c", "sleep 60 & echo $!; sleep 60 & echo $!; wait"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, start_new_session=True)
    grandchildren = [int(process.stdout.readline()) for _ in range(2)]
    assert all(alive(pid) for pid in grandchildren)
    end_process_group(process, (process.stdin, process.stdout))
    assert process.returncode == -9 and process.stdin.closed and process.stdout.closed
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in grandchildren) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in grandchildren), "a process the child started outlived it"


def test_a_process_already_gone_is_fine(monkeypatch):
    done = subprocess.Popen(["true"], start_new_session=True)
    done.wait()
    end_process_group(done)
    assert done.returncode == 0

    def gone(pid, sig):  # the process ended between poll() and killpg
        raise ProcessLookupError(pid)
    monkeypatch.setattr(processes.os, "killpg", gone)
    ending = subprocess.Popen(["sleep", "0.2"], start_new_session=True)
    end_process_group(ending)
    assert ending.returncode == 0


def test_closing_twice_is_fine_raw_descriptors_included():
    process = subprocess.Popen(["sleep", "60"], stdin=subprocess.PIPE, start_new_session=True)
    read_end, write_end = os.pipe()
    os.close(write_end)
    streams = (read_end, process.stdin, None)
    end_process_group(process, streams)
    with pytest.raises(OSError):
        os.fstat(read_end)  # closed
    end_process_group(process, streams)  # the descriptor is already closed (EBADF): nothing to do
    assert process.returncode == -9 and process.stdin.closed


def test_a_bad_process_says_what_it_got():
    with pytest.raises(TypeError, match="process must be a subprocess.Popen, got int"):
        end_process_group(1234)
