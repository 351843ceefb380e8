"""The sandbox's own pieces, tested where they act (issue #34, item 1): everything a child's uid runs
ends with the child, whether or not it left the child's process group; what the uid left in a
world-writable folder goes when no mount namespace gave the child fresh ones."""
import os
import subprocess
import time

import pytest

from anatomy_grading import sandbox, uids

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="the grader keeps a uid per child only when it runs as root")


def alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@ROOT_ONLY
def test_every_process_of_a_childs_uid_ends_with_it_even_outside_its_process_group():
    uid = uids.FIRST_UID + uids.UIDS - 1  # the last of the grader's uids: no grading process here holds it
    sleepers = [subprocess.Popen(["sleep", "600"], user=uid, group=uid, start_new_session=True)  # a session of its own
                for _ in range(3)]
    bystander = subprocess.Popen(["sleep", "600"])
    try:
        time.sleep(0.5)
        assert all(alive(p.pid) for p in sleepers)
        uids.end_uid(uid)
        deadline = time.monotonic() + 10
        while any(p.poll() is None for p in sleepers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(alive(p.pid) for p in sleepers), "a process of the child's uid outlived it"
        assert alive(bystander.pid), "ending one uid killed a process of another"
    finally:
        for p in (*sleepers, bystander):
            p.kill()
            p.wait()


@ROOT_ONLY
def test_without_a_mount_namespace_what_the_uid_left_in_a_shared_folder_is_deleted(tmp_path, monkeypatch):
    uid = uids.FIRST_UID + uids.UIDS - 2
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o1777)
    left, other = shared / "left-by-the-child", shared / "someone-elses"
    left.write_text("a message for the next submission")
    other.write_text("not the child's")
    os.chown(left, uid, uid)
    monkeypatch.setattr(sandbox, "namespaces", lambda: ())
    monkeypatch.setattr(sandbox, "fresh_folders", lambda: [str(shared)])
    uids.end_uid(uid)
    assert not left.exists() and other.exists()
