"""One CPU thread for every test and every notebook kernel that pytest starts.

Float sums come out in a different order with a different number of threads, so a notebook
re-executed with 8 threads prints other last digits than the committed one (made with 1). With one
thread each, the committed outputs are what any machine computes, and `make test` can run two test
workers side by side (pytest-xdist) without them fighting over the cores.
tools/execute_notebook.py (`make notebooks`) sets the same.

nbval's kernels listen on socket files rather than TCP ports (tools/kernels.py): with two workers and
the browser test's Jupyter servers starting kernels at once, a port could be taken before its kernel
bound it, and the kernel died.

Notebook 07's train_dates calls run once per run, though three kernels run 07 (tools/training_cache.py):
the Jupyter kernels started here inherit an IPython startup file (IPYTHONDIR, a folder of this run's) that
shares train_dates' results between them; the folder is removed when the run ends.

nbval compares outputs for what they teach, not float noise (tools/outputs.py): integers exactly,
other numbers within one unit of their last printed digit.
"""
import os
import shutil
import tempfile
from pathlib import Path

# The Korean notebooks (notebooks/ko/) are copies of the English ones' code and outputs (tools/korean_build.py);
# nbval runs the English ones, and tests/test_korean_edition.py checks that the copies are the same.
collect_ignore = ["notebooks/ko"]

os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = "1"  # inherited by notebook kernels


def pytest_configure(config):
    import torch

    from tools import training_cache

    from tools.kernels import patch_nbval
    from tools.outputs import patch_nbval_comparison

    torch.set_num_threads(1)
    patch_nbval()
    patch_nbval_comparison()
    if not {training_cache.FOLDER_VARIABLE, "IPYTHONDIR"} <= set(os.environ):  # the run's first process (workers inherit)
        config._training_cache = folder = Path(tempfile.mkdtemp(prefix="anatomy-training-cache-"))
        startup = folder / "ipython" / "profile_default" / "startup"
        startup.mkdir(parents=True)
        (startup / "00-training-cache.py").write_text(
            training_cache.KERNEL_STARTUP.format(path=str(Path(training_cache.__file__).resolve())))
        os.environ[training_cache.FOLDER_VARIABLE], os.environ["IPYTHONDIR"] = str(folder), str(folder / "ipython")


def pytest_terminal_summary(terminalreporter, config):
    folder = getattr(config, "_training_cache", None)
    if folder is not None:
        from tools import training_cache
        found = training_cache.counts(folder)
        if any(found.values()):
            terminalreporter.write_line(f"notebook 07's train_dates calls (tools/training_cache.py): {found['trained']} "
                                        f"trained, {found['reused']} reused")


def pytest_unconfigure(config):
    folder = getattr(config, "_training_cache", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


# The slowest files first (a run's wall time is set by whichever worker finishes last); with
# --no-loadscope-reorder (make test), xdist hands out files in this order, cells of a notebook together.
# Notebook 07 comes second: the other worker's nbval then trains its translators while the live test (first) runs 03
# and 04, and the live pages' Run All of 07 reuse them (tools/training_cache.py) instead of training in turn.
SLOWEST_FIRST = ("tests/test_viz_live_jupyter.py", "notebooks/07_training.ipynb", "tests/test_homework_sentiment.py",
                 "tests/test_isolated_grading.py", "notebooks/09_fine_tuning.ipynb", "notebooks/00_before_transformers.ipynb",
                 "notebooks/11_gpt.ipynb")


def pytest_collection_modifyitems(items):
    rank = {path: place for place, path in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # stable: cells keep their order
