import time
from pathlib import Path

import pytest
import torch

import anatomy
from anatomy.pretrained import HubUnreachableError


def test_default_model_is_the_bundled_minilm(pretrained):
    tokenizer, model = pretrained
    assert anatomy.DEFAULT_CHECKPOINT == "sentence-transformers/all-MiniLM-L6-v2"
    assert model.config.model_type == "bert"
    assert (model.config.num_hidden_layers, model.config.num_attention_heads,
            model.config.hidden_size) == (6, 12, 384)
    assert not model.training
    assert tokenizer("time flies like an arrow", add_special_tokens=False).input_ids == \
        [2051, 10029, 2066, 2019, 8612]


def test_default_model_gives_real_attention_weights(pretrained):
    tokenizer, model = pretrained
    outputs = model(**tokenizer("time flies", return_tensors="pt"), output_attentions=True)
    assert len(outputs.attentions) == 6
    assert outputs.attentions[0].shape == (1, 12, 4, 4)
    torch.testing.assert_close(outputs.attentions[0].sum(-1), torch.ones(1, 12, 4))


def test_resolve_checkpoint_reads_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv(anatomy.pretrained.CHECKPOINT_ENV, raising=False)
    assert anatomy.resolve_checkpoint() == anatomy.default_model_dir()
    assert (anatomy.default_model_dir() / "model.safetensors").is_file()
    monkeypatch.setenv(anatomy.pretrained.CHECKPOINT_ENV, "bert-base-uncased")
    assert anatomy.resolve_checkpoint() == "bert-base-uncased"
    assert anatomy.resolve_checkpoint(tmp_path) == Path(tmp_path)


@pytest.mark.parametrize("offline", [{"HF_HUB_OFFLINE": "1"}, {"HF_ENDPOINT": "http://127.0.0.1:9"}])
def test_hub_checkpoint_offline_fails_fast_with_advice(monkeypatch, offline):
    for name, value in offline.items():
        monkeypatch.setenv(name, value)
    start = time.monotonic()
    with pytest.raises(HubUnreachableError, match="checkpoint=None"):
        anatomy.load_pretrained("anatomy-tests/not-cached-anywhere")
    assert time.monotonic() - start < 10


def test_mistyped_local_path_gets_the_same_advice(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(HubUnreachableError, match="not a local folder"):
        anatomy.load_pretrained("../no/such/folder")


def test_environment_variable_selects_the_hub_checkpoint(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv(anatomy.pretrained.CHECKPOINT_ENV, "anatomy-tests/not-cached-anywhere")
    with pytest.raises(HubUnreachableError, match="anatomy-tests/not-cached-anywhere"):
        anatomy.load_pretrained()


def test_folder_without_safetensors_is_refused(tmp_path):
    (tmp_path / "pytorch_model.bin").write_bytes(b"not loaded")
    with pytest.raises(ValueError, match="never loads pickled"):
        anatomy.read_state_dict(tmp_path)
