from types import SimpleNamespace

import pytest

from anatomy.layers.config import check_divisible, require


def test_require_names_every_missing_field():
    config = SimpleNamespace(hidden_size=8)
    with pytest.raises(ValueError, match=r"\['vocab_size', 'max_position_embeddings'\]"):
        require(config, "vocab_size", "hidden_size", "max_position_embeddings")
    require(config, "hidden_size")


def test_check_divisible():
    assert check_divisible(384, 12) == 32
    with pytest.raises(ValueError, match=r"hidden_size \(10\) must be divisible by num_attention_heads \(3\)"):
        check_divisible(10, 3)


def test_require_accepts_a_dict_and_returns_attribute_access():
    config = require({"hidden_size": 8, "vocab_size": 10}, "hidden_size")
    assert config.hidden_size == 8 and config.vocab_size == 10
    with pytest.raises(ValueError, match=r"dict config is missing field\(s\) \['num_labels'\]"):
        require({"hidden_size": 8}, "num_labels")
    with pytest.raises(TypeError, match="a config dict needs string keys"):
        require({1: 8}, "hidden_size")


@pytest.mark.parametrize("value", [0, -1, 2.5, "8", True])
def test_required_sizes_must_be_positive_integers(value):
    with pytest.raises(ValueError, match=rf"config field hidden_size must be an integer >= 1, got {value!r}"):
        require(SimpleNamespace(hidden_size=value), "hidden_size")
    assert require(SimpleNamespace(num_hidden_layers=0), "num_hidden_layers").num_hidden_layers == 0


def test_from_fields_names_a_config_class_that_is_no_dataclass():
    # None raised "must be called with a dataclass type or instance", naming no argument (found by the sweep, #37)
    from anatomy.layers.config import from_fields
    from anatomy.models.transformer_config import TransformerConfig

    for config_class in (None, dict, TransformerConfig(vocab_size=20, hidden_size=16, num_attention_heads=2,
                                                       intermediate_size=32)):
        with pytest.raises(TypeError, match="config_class must be a dataclass config class"):
            from_fields(config_class, {"hidden_size": 16})
    assert from_fields(TransformerConfig, {"hidden_size": 16, "vocab_size": 20}).hidden_size == 16


@pytest.mark.parametrize("changes, message", [
    ({"hidden_act": "swish"}, r"hidden_act must be one of \['gelu', 'relu'\], got 'swish'"),
    ({"hidden_act": ["gelu"]}, r"hidden_act must be one of \['gelu', 'relu'\], got \['gelu'\]"),
    ({"layer_norm_eps": float("nan")}, "layer_norm_eps must be a finite number > 0, got nan"),
    ({"hidden_dropout_prob": None}, "hidden_dropout_prob must be a finite number >= 0 and <= 1, got None"),
    ({"attention_probs_dropout_prob": 1.5}, "attention_probs_dropout_prob must be a finite number >= 0 and <= 1, got 1.5"),
])
def test_check_layer_settings_names_the_field_the_configs_share(changes, message):
    # one check for what GPTConfig, TransformerConfig and VisionTransformerConfig each checked in their own words
    from anatomy.layers.config import check_layer_settings

    settings = {"hidden_act": "gelu", "layer_norm_eps": 1e-5, "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.0}
    check_layer_settings(SimpleNamespace(**settings), {"gelu": None, "relu": None})
    with pytest.raises(ValueError, match=message):
        check_layer_settings(SimpleNamespace(**{**settings, **changes}), {"gelu": None, "relu": None})
