"""A saved model folder (config.json + model.safetensors), read with errors that say which file,
what is wrong with it and what to do: a truncated file, or weights of another model's size.

Taught in: 07_training (the translator is saved and loaded) and 11_gpt (the GPT is).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from safetensors import SafetensorError
from safetensors.torch import load_file
from torch import Tensor, nn

from anatomy.layers.config import from_fields
from anatomy.checkpoints.loader_checks import listed


def read_config(config_class: type, folder: str | Path, hint: str) -> Any:
    """`config_class` built from folder/config.json; `hint` says how to make the files (e.g. which notebook)."""
    folder = Path(folder)
    if not (folder / "config.json").is_file() or not (folder / "model.safetensors").is_file():
        raise FileNotFoundError(f"{folder} needs config.json and model.safetensors; {hint}")
    path = folder / "config.json"
    try:
        fields = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is not valid JSON ({error}): the file is damaged; {hint}") from None
    return from_fields(config_class, fields, str(path))


def unreadable(path: str | Path, error: Exception, hint: str) -> ValueError:
    return ValueError(f"{path} is not a readable safetensors file ({error}): it is truncated or damaged "
                      f"(a copy or download that stopped early?); {hint}")


def read_safetensors(path: str | Path, hint: str) -> dict[str, Tensor]:
    """The tensors of a .safetensors file, or an error that names the file and what to do."""
    try:
        return load_file(str(path))
    except (SafetensorError, OSError) as error:
        raise unreadable(path, error, hint) from None


def load_weights_file(model: nn.Module, folder: str | Path, hint: str) -> None:
    """Copy folder/model.safetensors into `model`, once the file is readable and holds exactly the
    model's tensors at the model's shapes. A tied matrix may be stored once, under either name."""
    path = Path(folder) / "model.safetensors"
    tensors = read_safetensors(path, hint)
    expected = model.state_dict()
    stored = {expected[name].data_ptr() for name in tensors if name in expected}
    missing = [name for name, tensor in expected.items() if name not in tensors and tensor.data_ptr() not in stored]
    resized = [f"{name} is {tuple(tensor.shape)} in the file, {tuple(expected[name].shape)} in the model"
               for name, tensor in tensors.items() if name in expected and tensor.shape != expected[name].shape]
    problems = [text for text in (listed("missing weights", missing),
                                  listed("unexpected weights", set(tensors) - set(expected)),
                                  listed("weights of another size:", resized, shown=3)) if text]
    if problems:
        raise ValueError(f"{path} does not fit config.json: {'; '.join(problems)}. The two files must come from "
                         f"one save_pretrained of one model; {hint}")
    model.load_state_dict(tensors, strict=False)
