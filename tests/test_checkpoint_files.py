"""A saved model folder that is not what it claims is named with the file, what is wrong and what to do:
a truncated model.safetensors, weights of another size, a damaged config.json (Transformer and GPT)."""
import json
import re

import pytest
import torch

from anatomy.models.gpt import GPT, GPTConfig
from anatomy.models.transformer import Transformer, TransformerConfig


def tiny_transformer(hidden_size=16):
    torch.manual_seed(0)
    return Transformer(TransformerConfig(vocab_size=20, hidden_size=hidden_size, num_attention_heads=2,
                                         intermediate_size=32, num_encoder_layers=1, num_decoder_layers=1))


def tiny_gpt(hidden_size=16):
    torch.manual_seed(0)
    return GPT(GPTConfig(vocab_size=20, hidden_size=hidden_size, num_attention_heads=2, num_hidden_layers=1,
                         intermediate_size=32, max_position_embeddings=8))


MODELS = [(Transformer, tiny_transformer, "run notebooks/07_training.ipynb"), (GPT, tiny_gpt, "save_pretrained")]


@pytest.mark.parametrize("model_class, make, what_to_do", MODELS)
def test_a_truncated_weights_file(tmp_path, model_class, make, what_to_do):
    make().save_pretrained(tmp_path)
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.raises(ValueError, match=rf"model.safetensors is not a readable safetensors file \(.*\): it is "
                                         rf"truncated or damaged .*{what_to_do}"):
        model_class.from_pretrained(tmp_path)


@pytest.mark.parametrize("model_class, make, what_to_do", MODELS)
def test_weights_of_another_size_give_a_short_message(tmp_path, model_class, make, what_to_do):
    make(hidden_size=32).save_pretrained(tmp_path / "wide")
    make(hidden_size=16).save_pretrained(tmp_path / "narrow")
    (tmp_path / "wide" / "model.safetensors").replace(tmp_path / "narrow" / "model.safetensors")
    with pytest.raises(ValueError) as error:
        model_class.from_pretrained(tmp_path / "narrow")
    message = str(error.value)
    assert re.search(r"does not fit config.json: weights of another size: \['[\w.]+ is \(32,?.*\) in the file, "
                     r"\(16,?.*\) in the model', .*\] and \d+ more\. The two files must come from one save_pretrained",
                     message), message
    assert len(message) < 800, "a short message, not torch's dump of every mismatch"


@pytest.mark.parametrize("model_class, make, what_to_do", MODELS)
def test_a_damaged_or_foreign_config(tmp_path, model_class, make, what_to_do):
    make().save_pretrained(tmp_path)
    (tmp_path / "config.json").write_text("<html><body>502 Bad Gateway</body></html>")
    with pytest.raises(ValueError, match=rf"config.json is not valid JSON \(.*\): the file is damaged; .*{what_to_do}"):
        model_class.from_pretrained(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"n_embd": 16}))
    with pytest.raises(ValueError, match=rf"{model_class.__name__}Config has no field\(s\) \['n_embd'\] \(in .*config.json\)"):
        model_class.from_pretrained(tmp_path)


@pytest.mark.parametrize("model_class, make, what_to_do", MODELS)
def test_an_empty_folder(tmp_path, model_class, make, what_to_do):
    with pytest.raises(FileNotFoundError, match=f"needs config.json and model.safetensors; .*{what_to_do}"):
        model_class.from_pretrained(tmp_path)
