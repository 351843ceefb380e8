"""The messages between a homework-3 test and the process that holds its implementation (server.py), for
notebook 19_homework_attention_tests: JSON plus a safetensors blob, so that reading one runs no code (no pickle).

`to_data(value, tensors, handle)` turns what a call returns or takes into JSON-able data: None, bools,
numbers, strings, lists, tuples, dicts, dtypes, devices, tensors (copied into `tensors`, detached, on the CPU); anything
else becomes `handle(value)` ({"t": "handle", "id": n}). `from_data` undoes it. A frame (`pack`, `read_frame`)
is b"HW3F", the JSON and blob lengths (8 bytes each), the JSON, the blob. In the grader the same message
dicts and tensors travel inside the grader's own frames (anatomy_grading.wire) between child and parent.
"""
from __future__ import annotations

import json
import struct
from typing import Any, Callable

import torch
from safetensors.torch import load as load_tensors
from safetensors.torch import save as save_tensors

MAGIC, HEADER, MAX_BYTES = b"HW3F", struct.Struct(">4sQQ"), 512 << 20


def to_data(value: Any, tensors: dict[str, torch.Tensor], handle: Callable[[Any], dict]) -> Any:
    again = lambda v: to_data(v, tensors, handle)  # noqa: E731
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, torch.Tensor):
        key = f"t{len(tensors)}"
        tensors[key] = torch.Tensor.detach(value).clone().cpu().contiguous().as_subclass(torch.Tensor)
        return {"t": "tensor", "k": key, "grad": bool(value.requires_grad)}
    if isinstance(value, (list, tuple)):  # torch.Size too
        return {"t": "tuple" if isinstance(value, tuple) else "list", "v": [again(v) for v in value]}
    if isinstance(value, dict):  # a state_dict
        return {"t": "dict", "v": [[again(k), again(v)] for k, v in value.items()]}
    if isinstance(value, torch.dtype):  # layer.to(torch.float64), torch.zeros(2, dtype=...) inside
        return {"t": "dtype", "v": str(value).removeprefix("torch.")}
    if isinstance(value, torch.device):
        return {"t": "device", "v": str(value)}
    return handle(value)


def from_data(data: Any, tensors: dict[str, torch.Tensor], handle: Callable[[dict], Any]) -> Any:
    again = lambda d: from_data(d, tensors, handle)  # noqa: E731
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if not isinstance(data, dict):
        raise TypeError(f"malformed data: {str(data)[:60]}")
    if data.get("t") == "tensor":
        tensor = tensors[str(data["k"])]
        return tensor.requires_grad_() if data.get("grad") and tensor.is_floating_point() else tensor
    if data.get("t") in ("list", "tuple"):
        items = [again(v) for v in data["v"]]
        return tuple(items) if data["t"] == "tuple" else items
    if data.get("t") == "dict":
        return {again(k): again(v) for k, v in data["v"]}
    if data.get("t") == "dtype":
        dtype = getattr(torch, str(data["v"]), None)
        if not isinstance(dtype, torch.dtype):
            raise TypeError(f"not a dtype: {str(data['v'])[:40]}")
        return dtype
    if data.get("t") == "device":
        return torch.device(str(data["v"])[:40])
    return handle(data)


def pack(message: dict, tensors: dict[str, torch.Tensor]) -> bytes:
    body, blob = json.dumps(message).encode(), save_tensors(tensors) if tensors else b""
    return HEADER.pack(MAGIC, len(body), len(blob)) + body + blob


def read_frame(read: Callable[[int], bytes]) -> tuple[dict, dict[str, torch.Tensor]]:
    """One frame, read with `read(n)` (exactly n bytes); ValueError when it is not one or is too big."""
    magic, body, blob = HEADER.unpack(read(HEADER.size))
    if magic != MAGIC or body + blob > MAX_BYTES:
        raise ValueError("not a homework-3 frame, or too big")
    message = json.loads(read(body))
    if not isinstance(message, dict):
        raise ValueError("a frame's JSON must be an object")
    return message, (load_tensors(read(blob)) if blob else {})
