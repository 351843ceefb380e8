"""The one setup call every notebook makes: device, seeds, quiet logs, versions.

Taught in: 01_tokenization (the setup cell is identical in every notebook).
"""
from __future__ import annotations

import os
import platform
import random
import warnings
from pathlib import Path

import numpy as np
import torch

COLAB_GPU_HINT = "On Colab: Runtime > Change runtime type > T4 GPU."


def pick_device() -> torch.device:
    """cuda > mps > cpu."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def seed_everything(seed: int) -> None:
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**32:
        raise ValueError(f"seed must be an integer in [0, 2**32), got {seed!r}")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # also seeds every CUDA device


def quiet_libraries() -> None:
    """Keep stderr clean: no hub progress bars, no tokenizer fork warnings, no info logs."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm without ipywidgets
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()


def enter_the_english_folder() -> None:
    """A Korean notebook (notebooks/ko/NN_x.ipynb) runs in notebooks/, as its English twin does (and as the
    setup cell does on Colab), so a path in a code cell, such as ../images/, means the same in both. It
    records the edition (ANATOMY_EDITION=ko), so the homework checks word their feedback in Korean
    (anatomy.homework.messages.current)."""
    here = Path.cwd()
    if here.name == "ko" and here.parent.name == "notebooks":
        os.environ["ANATOMY_EDITION"] = "ko"
        os.chdir(here.parent)
        print(f"working folder: {here.parent} (the Korean edition runs where the English one does)")


def setup_notebook(seed: int = 0) -> torch.device:
    """Quiet the libraries, seed everything, print versions and return the device to use."""
    enter_the_english_folder()
    quiet_libraries()
    seed_everything(seed)
    device = pick_device()
    import transformers

    import anatomy

    print(f"python {platform.python_version()} | torch {torch.__version__} | "
          f"transformers {transformers.__version__} | anatomy {anatomy.__version__}")
    print(f"device: {device}  (seed {seed})")
    if device.type == "cpu":
        print("No GPU found: that is fine, every notebook runs on a CPU in seconds. "
              f"For the training notebook a GPU is faster. {COLAB_GPU_HINT}")
    return device


def show_source(obj: object):
    """Display the package's own code for `obj` (never a pasted copy that could go stale)."""
    import inspect

    from IPython.display import Code

    return Code(inspect.getsource(obj), language="python")
