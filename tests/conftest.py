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
