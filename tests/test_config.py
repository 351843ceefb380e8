from types import SimpleNamespace

import pytest

from anatomy.config import check_divisible, require


def test_require_names_every_missing_field():
    config = SimpleNamespace(hidden_size=8)
    with pytest.raises(ValueError, match=r"\['vocab_size', 'max_position_embeddings'\]"):
        require(config, "vocab_size", "hidden_size", "max_position_embeddings")
    require(config, "hidden_size")


def test_check_divisible():
    assert check_divisible(384, 12) == 32
    with pytest.raises(ValueError, match=r"hidden_size \(10\) must be divisible by num_attention_heads \(3\)"):
        check_divisible(10, 3)
