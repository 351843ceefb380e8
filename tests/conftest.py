import os

import pytest

os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def pretrained():
    """(tokenizer, model): the bundled all-MiniLM-L6-v2, loaded once for the whole run."""
    from anatomy import load_pretrained
    from anatomy.notebook import quiet_libraries

    quiet_libraries()
    return load_pretrained()
