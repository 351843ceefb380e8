"""One CPU thread for every test and every notebook kernel that pytest starts.

Float sums come out in a different order with a different number of threads, so a notebook
re-executed with 8 threads prints other last digits than the committed one (made with 1). With one
thread each, the committed outputs are what any machine computes, and `make test` can run two test
workers side by side (pytest-xdist) without them fighting over the cores.
tools/execute_notebook.py (`make notebooks`) sets the same.

nbval's kernels listen on socket files rather than TCP ports (tools/kernels.py): with two workers and
the browser test's Jupyter servers starting kernels at once, a port could be taken before its kernel
bound it, and the kernel died.

nbval compares outputs for what they teach, not float noise (tools/outputs.py): integers exactly,
other numbers within one unit of their last printed digit.
"""
import os

# The Korean notebooks (notebooks/ko/) are copies of the English ones' code and outputs (tools/korean_build.py);
# nbval runs the English ones, and tests/test_korean_edition.py checks that the copies are the same.
collect_ignore = ["notebooks/ko"]

os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = "1"  # inherited by notebook kernels


def pytest_configure(config):
    import torch

    from tools.kernels import patch_nbval
    from tools.outputs import patch_nbval_comparison

    torch.set_num_threads(1)
    patch_nbval()
    patch_nbval_comparison()


# The slowest files first (a run's wall time is set by whichever worker finishes last); with
# --no-loadscope-reorder (make test), xdist hands out files in this order, cells of a notebook together.
SLOWEST_FIRST = ("tests/test_viz_live_jupyter.py", "tests/test_homework_sentiment.py", "tests/test_isolated_grading.py",
                 "notebooks/09_fine_tuning.ipynb", "notebooks/00_before_transformers.ipynb", "notebooks/11_gpt.ipynb")


def pytest_collection_modifyitems(items):
    rank = {path: place for place, path in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # stable: cells keep their order
