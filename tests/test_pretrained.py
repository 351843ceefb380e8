import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
import torch

import anatomy
from anatomy.checkpoints.pretrained import HubUnreachableError


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
    monkeypatch.delenv(anatomy.checkpoints.pretrained.CHECKPOINT_ENV, raising=False)
    assert anatomy.resolve_checkpoint() == anatomy.default_model_dir()
    assert (anatomy.default_model_dir() / "model.safetensors").is_file()
    monkeypatch.setenv(anatomy.checkpoints.pretrained.CHECKPOINT_ENV, "bert-base-uncased")
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


@pytest.mark.parametrize("path", ["../no/such/folder", "./minilm", "~/models/minilm", "/no/such/folder",
                                  "C:\\models\\minilm", "models/v1/minilm"])
def test_mistyped_local_path_says_the_folder_does_not_exist(monkeypatch, path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match="checkpoint folder .* does not exist"):
        anatomy.load_pretrained(path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        anatomy.resolve_checkpoint(Path(path))


def test_a_file_is_not_a_checkpoint_folder():
    file = anatomy.default_model_dir() / "config.json"
    with pytest.raises(NotADirectoryError, match=r"is a file, not a folder.*model.safetensors"):
        anatomy.load_pretrained(str(file))
    with pytest.raises(TypeError, match="folder path or a hub name"):
        anatomy.load_pretrained(42)


def test_hub_shaped_name_that_is_no_folder_says_both(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(HubUnreachableError, match=r"not a local folder \(there is no .*my_models\)"):
        anatomy.load_pretrained("my_models")


@pytest.fixture
def silent_server():
    """A server on 127.0.0.1 that accepts connections and never answers."""
    server = socket.create_server(("127.0.0.1", 0))
    server.listen(16)
    accepted = []
    thread = threading.Thread(target=lambda: accepted.extend(iter_accept(server)), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}", accepted
    server.close()
    for connection in accepted:
        connection.close()


def iter_accept(server):
    while True:
        try:
            yield server.accept()[0]
        except OSError:  # closed by the fixture
            return


def test_hub_that_accepts_and_never_replies_fails_within_30_s(monkeypatch, silent_server):
    endpoint, accepted = silent_server
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    start = time.monotonic()
    with pytest.raises(HubUnreachableError, match="checkpoint=None"):
        anatomy.load_pretrained("bert-base-uncased")
    assert time.monotonic() - start < 30
    assert accepted, "the probe never connected: the test did not exercise a silent server"


def test_checkpoint_with_missing_weights_is_refused(tmp_path):
    from safetensors.torch import load_file, save_file

    source = anatomy.default_model_dir()
    for file in source.iterdir():
        if file.is_file() and file.name != "model.safetensors":
            shutil.copy(file, tmp_path / file.name)
    tensors = load_file(source / "model.safetensors")
    save_file({k: v for k, v in tensors.items() if not k.startswith("encoder.layer.5.")},
              tmp_path / "model.safetensors")
    with pytest.raises(ValueError, match=r"missing weights \['encoder\.layer\.5\..*and 8 more"):
        anatomy.load_pretrained(tmp_path)
    with pytest.raises(ValueError, match=r"missing keys \['encoder\.layer\.5\."):
        anatomy.TransformerEncoder.from_pretrained(tmp_path)
    extra = {**tensors, "encoder.layer.6.output.dense.bias": tensors["encoder.layer.5.output.dense.bias"].clone()}
    save_file(extra, tmp_path / "model.safetensors")
    with pytest.raises(ValueError, match=r"unexpected weights \['encoder\.layer\.6\.output\.dense\.bias'\]"):
        anatomy.load_pretrained(tmp_path)
    with pytest.raises(ValueError, match=r"unexpected keys \['encoder\.layer\.6\.output\.dense\.bias'\]"):
        anatomy.TransformerEncoder.from_pretrained(tmp_path)
    heads = {**tensors, "cls.predictions.bias": torch.zeros(3)}  # a task head is not the model's: fine
    save_file(heads, tmp_path / "model.safetensors")
    anatomy.load_pretrained(tmp_path)


def test_environment_variable_selects_the_hub_checkpoint(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv(anatomy.checkpoints.pretrained.CHECKPOINT_ENV, "anatomy-tests/not-cached-anywhere")
    with pytest.raises(HubUnreachableError, match="anatomy-tests/not-cached-anywhere"):
        anatomy.load_pretrained()


def test_folder_without_safetensors_is_refused(tmp_path):
    (tmp_path / "pytorch_model.bin").write_bytes(b"not loaded")
    with pytest.raises(ValueError, match="never loads pickled"):
        anatomy.read_state_dict(tmp_path)


def test_a_device_this_machine_lacks_is_named_before_anything_loads(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(anatomy.checkpoints.pretrained, "resolve_checkpoint", lambda *a: pytest.fail("nothing should load"))
    with pytest.raises(ValueError, match=r"device='cuda' was asked for, but torch finds no cuda device on this machine "
                                         r".*pass device='cpu', or anatomy.pick_device\(\)"):
        anatomy.load_pretrained(device="cuda")


def test_a_truncated_checkpoint_names_the_file(tmp_path):
    source = anatomy.default_model_dir()
    for file in source.iterdir():
        if file.is_file():
            shutil.copy(file, tmp_path / file.name)
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100_000])
    for load in (anatomy.load_pretrained, anatomy.TransformerEncoder.from_pretrained):
        with pytest.raises(ValueError, match=rf"{weights} is not a readable safetensors file \(.*\): it is truncated "
                                             r"or damaged .*download the checkpoint again"):
            load(tmp_path)


def test_looks_like_a_path_names_a_checkpoint_name_that_is_no_string():
    # None raised AttributeError: 'NoneType' object has no attribute 'startswith' (found by the sweep, #37)
    from anatomy.checkpoints.pretrained import looks_like_a_path

    with pytest.raises(TypeError, match="name must be str, got NoneType"):
        looks_like_a_path(None)
    assert looks_like_a_path("./models/bert") and not looks_like_a_path("sentence-transformers/all-MiniLM-L6-v2")
