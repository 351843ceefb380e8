"""A sealed grading child writes no file (anatomy_grading/seal.py, homework 3): the kernel layer (Landlock)
refuses every write, creation, removal, rename and truncation, in native code too and in every fork, while
descriptors opened before stay usable; the tripwire layer refuses what Landlock does not cover (times, mode)
and the same writes where a kernel has no Landlock. Each played in a process of its own (both are for life)."""
import json
import subprocess
import sys
import textwrap

import pytest

from anatomy.homework.messages import say
from anatomy_grading import seal

LANDLOCK = '''
import ctypes, json, os, sys
from anatomy_grading import seal
folder = sys.argv[1]
old = os.path.join(folder, "old.txt")
with open(old, "w") as f:
    f.write("kept")
log = open(os.path.join(folder, "log.txt"), "w")  # opened before the seal: stays writable
ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS, as child.confine sets it
held = seal.landlock()
tries = {
    "create": lambda: open(os.path.join(folder, "new.txt"), "w"),
    "append": lambda: open(old, "a"),
    "os.open O_CREAT": lambda: os.open(os.path.join(folder, "n2"), os.O_RDONLY | os.O_CREAT),
    "mkdir": lambda: os.mkdir(os.path.join(folder, "d")),
    "remove": lambda: os.remove(old),
    "rename": lambda: os.rename(old, os.path.join(folder, "moved.txt")),
    "truncate": lambda: os.truncate(old, 0),
    "symlink": lambda: os.symlink(old, os.path.join(folder, "link")),
    "mkfifo": lambda: os.mkfifo(os.path.join(folder, "fifo")),
    "/dev/shm": lambda: open("/dev/shm/anatomy-seal-probe", "w"),
}
refused = {}
for name, attempt in tries.items():
    try:
        attempt()
        refused[name] = False
    except PermissionError:
        refused[name] = True
r, w = os.pipe()
pid = os.fork()
if pid == 0:  # a fork is sealed too
    try:
        open(os.path.join(folder, "from_fork.txt"), "w")
        os.write(w, b"0")
    except PermissionError:
        os.write(w, b"1")
    os._exit(0)
os.waitpid(pid, 0)
refused["in a fork"] = os.read(r, 1) == b"1"
log.write("still writable")
log.flush()
print(json.dumps({"held": held, "refused": refused, "read": open(old).read()}))
'''


def run(code: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_landlock_refuses_every_write_in_native_code_and_forks_but_not_open_descriptors(tmp_path):
    found = run(LANDLOCK, str(tmp_path))
    if not found["held"].startswith("no file writes"):
        pytest.skip(found["held"])  # a kernel without Landlock: the tripwire layer alone (tested below)
    assert found["refused"] == dict.fromkeys(found["refused"], True), found
    assert found["read"] == "kept" and (tmp_path / "log.txt").read_text() == "still writable"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.txt", "old.txt"]


TRIPWIRE = '''
import json, mmap, os, sys, tempfile
from anatomy_grading import seal, tripwires
folder = sys.argv[1]
old = os.path.join(folder, "old.txt")
open(old, "w").write("kept")
seal._sealed.append(True)  # the tripwire layer alone, as on a kernel without Landlock
sys.addaudithook(tripwires.tripwire)
tries = {
    "create": lambda: open(os.path.join(folder, "new.txt"), "w"),
    "os.open O_CREAT": lambda: os.open(os.path.join(folder, "n2"), os.O_RDONLY | os.O_CREAT),
    "utime": lambda: os.utime(old, ns=(1, 2)),
    "chmod": lambda: os.chmod(old, 0o600),
    "mkstemp": lambda: tempfile.mkstemp(dir=folder),
    "mkdir": lambda: os.mkdir(os.path.join(folder, "d")),
    "rename": lambda: os.rename(old, os.path.join(folder, "moved.txt")),
    "file mmap": lambda: mmap.mmap(os.open(old, os.O_RDONLY), 0, access=mmap.ACCESS_READ),
    "shared mmap": lambda: mmap.mmap(-1, 16),
}
refused = {}
for name, attempt in tries.items():
    try:
        attempt()
        refused[name] = "done"
    except RuntimeError as error:
        refused[name] = str(error)
allowed = [open(old).read(), os.write(1, b"")]
print(json.dumps({"refused": refused, "allowed": allowed}))
'''


def test_the_tripwire_refuses_writes_and_metadata_changes_with_the_catalogues_words(tmp_path):
    found = run(TRIPWIRE, str(tmp_path))
    assert found["refused"] == dict.fromkeys(found["refused"], say("files_sealed", "en")), found
    assert found["allowed"] == ["kept", 0]  # reading, writing to a descriptor opened before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.txt"]


def test_an_unsealed_child_refuses_nothing_and_the_words_exist_in_both_languages():
    assert not seal.refuses("open", ("x.txt", "w", 0o1101)) and not seal.refuses("os.utime", ("x", None, None, None))
    assert seal.MESSAGE == say("files_sealed", "en") and say("files_sealed", "ko") != seal.MESSAGE


def test_a_sealed_process_writes_no_bytecode_and_its_forks_cannot_signal_it():
    """Seventh reading B2 (a sealed child importing a module without a .pyc tried to write one) and the fork's
    scope: after seal(), a fork that called in_fork cannot signal its parent, where Landlock has ABI 6."""
    found = run('''
import ctypes, json, os, sys
from anatomy_grading import seal
ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)
held = seal.seal(False)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    seal.in_fork()
    try:
        os.kill(os.getppid(), 0)
        os.write(w, b"0")
    except PermissionError:
        os.write(w, b"1")
    os._exit(0)
os.waitpid(pid, 0)
print(json.dumps({"held": held, "bytecode": sys.dont_write_bytecode, "refused": os.read(r, 1) == b"1"}))
''')
    assert found["bytecode"] is True
    if "no signal out of a trial" not in found["held"]:
        pytest.skip(found["held"])
    assert found["refused"], found


def test_the_forks_words_are_the_catalogues():
    from anatomy.homework.attention_tests import fork_state, trial
    from anatomy_grading import grader
    assert f'"RuntimeError: {say("handlers_refused", "en")}"' in open(trial.__file__).read()
    assert trial.THREAD_LEFT.format(threads="keeper") == say("thread_left", "en", threads="keeper")
    assert seal.KERNEL == say("kernel_refused", "en") and seal.MESSAGE == say("files_sealed", "en")
    assert grader.child_failed(f"stopped (exit code {fork_state.TAMPERED})") == say("child_tampered", "en")
    assert grader.child_failed("tampered") == say("child_tampered", "en")
    assert grader.child_failed("stopped (exit code 3)") == say("child_exit", "en", code=3)


def test_a_threads_cpus_count_as_the_childs_state():
    """Eighth reading A1: a trial changed idle threads' CPU sets, which process_state did not compare (the
    cell's own threads: test_a_thread_of_the_cell_* in test_grading_attention_tests.py)."""
    found = run('''
import json, os, _thread
from anatomy.homework.attention_tests import fork_state
lock = _thread.allocate_lock()
lock.acquire()
_thread.start_new_thread(lock.acquire, ())  # an idle thread (a library's, say)
before = fork_state.process_state()
tid = max(int(t) for t in os.listdir("/proc/self/task"))
os.sched_setaffinity(tid, {min(os.sched_getaffinity(0))})
print(json.dumps({"changed": fork_state.changed(before, fork_state.process_state())}))
''')
    assert found == {"changed": True}, found


@pytest.mark.parametrize("pidfd", [True, False])
def test_the_child_waits_once_for_a_run_and_the_kernel_counts_its_cpu_time(pidfd):
    """Tenth reading A4: where pidfd_open is missing (Linux < 5.3, an older seccomp profile) `ended` raised, the
    child exited 70, and every question of every student scored 0; it now polls. CI, session 9: a run's limit was
    the clock's; it is now the fork's CPU time, counted by the kernel (clock.limit_cpu), and the child waits once on
    the clock (eleventh reading A1: waking every 50 ms to look, it let its own counters count a run's length). With
    0.2 s of CPU time, with a pidfd and without: a fork that sleeps 0.5 s ends; one that computes ends itself at
    0.2 s of CPU time (OverLimit); one that ignores the signal is killed by the kernel (RLIMIT_CPU, a second or two
    later), each within 30 s on the clock; one that sleeps on is killed at 0.8 s on the clock. Each is gone after."""
    found = run('''
import json, os, signal, sys, time
from anatomy.homework.attention_tests import clock

def pidfd_open(pid):
    raise OSError(38, "Function not implemented")
if sys.argv[1] == "no":
    os.pidfd_open = pidfd_open
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
results = []
for kind in ("nap", "spin", "stubborn", "sleep"):
    pid = os.fork()
    if pid == 0:
        clock.limit_cpu(0.2)
        if kind == "stubborn":
            signal.signal(signal.SIGPROF, signal.SIG_IGN)
        try:
            while kind in ("spin", "stubborn"):
                pass
            time.sleep(0.5 if kind == "nap" else 30)
        except clock.OverLimit:
            os._exit(3)
        os._exit(0)
    start = time.monotonic()
    results.append([clock.ended(pid, 0.8 if kind == "sleep" else 30.0), round(time.monotonic() - start, 1)])
    try:
        os.kill(pid, 0)
        results[-1].append("alive")
    except ProcessLookupError:
        results[-1].append("gone")
print(json.dumps(results))
''', "yes" if pidfd else "no")
    nap, spin, stubborn, sleep = found  # clock times only as lower bounds: a loaded machine stretches them
    assert nap[0] is True and nap[2] == "gone", found
    assert spin[0] is True and spin[1] >= 0.2 and spin[2] == "gone", found  # within 30 s: it ended itself
    assert stubborn[0] is True and stubborn[1] >= 0.9 and stubborn[2] == "gone", found  # the kernel's kill
    assert sleep[0] is False and sleep[1] >= 0.8 and sleep[2] == "gone", found
