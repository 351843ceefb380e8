"""One CPU thread for every test and every notebook kernel that pytest starts.

Float sums come out in a different order with a different number of threads, so a notebook
re-executed with 8 threads prints other last digits than the committed one (made with 1). With one
thread each, the committed outputs are what any machine computes, and `make test` can run two test
workers side by side (pytest-xdist) without them fighting over the cores.
tools/execute_notebook.py (`make notebooks`) sets the same.
"""
import os

os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = "1"  # inherited by notebook kernels


def pytest_configure(config):
    import torch

    torch.set_num_threads(1)
