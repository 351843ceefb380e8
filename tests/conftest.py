import os

import pytest

os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def pretrained():
    """(tokenizer, model): the bundled all-MiniLM-L6-v2, loaded once for the whole run."""
    from anatomy import load_pretrained
    from anatomy.display.notebook import quiet_libraries

    quiet_libraries()
    return load_pretrained()


@pytest.fixture(autouse=True)
def seeded():
    """Every test starts from the same random state: its random inputs are the same on every run,
    so a tolerance that holds once holds always (a flaky test is a defect)."""
    import random

    import numpy
    import torch

    random.seed(0)
    numpy.random.seed(0)
    torch.manual_seed(0)


@pytest.fixture(autouse=True)
def english_edition(monkeypatch):
    """No test leaves the Korean edition recorded in this worker's environment (setup_notebook run in a
    notebooks/ko/ folder sets ANATOMY_EDITION=ko): the notebooks nbval runs later in the same worker start
    kernels that inherit it, and an English notebook's checks would print Korean."""
    monkeypatch.setenv("ANATOMY_EDITION", "en")  # recorded, so whatever a test sets is undone after it
