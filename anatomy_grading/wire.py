"""The wire between the trusted grader and the untrusted child: JSON plus safetensors, nothing else.

A frame is b"AGW1", the JSON length and the blob length (8 bytes each, big-endian), the JSON, then
a safetensors blob holding every tensor the JSON refers to. Both lengths are capped, the JSON can
only describe data (tagged lists, tuples, dicts, numbers, strings, tensors by key, and a few
dataclasses named in ALLOWED_DATA), and safetensors holds raw tensor bytes, so reading a frame never
runs code from the other side (no pickle). Whatever else a side needs to send (a handle to an object
that stays in the child, a module shipped by value) goes through the `other` hooks of encode/decode.

This module is sent to the child as source (see child.py), so it imports only torch and safetensors.
"""
from __future__ import annotations

import dataclasses
import importlib
import io
import json
import math
import os
import struct
from types import SimpleNamespace
from typing import Any, Callable

import torch
from safetensors.torch import load as load_tensors
from safetensors.torch import save as save_tensors

MAGIC = b"AGW1"
HEADER = struct.Struct(">4sQQ")
MAX_JSON, MAX_BLOB, MAX_DEPTH = 16 << 20, 768 << 20, 40
MAX_REPLY_JSON, MAX_REPLY_BLOB = 8 << 20, 256 << 20  # what the parent reads from a child (homework 2's weights: 90 MB)
ALLOWED_DATA = ("anatomy.tasks.sentiment_batches.SentimentBatch", "anatomy.models.encoder.EncoderOutput", "anatomy.models.decoder.DecoderOutput",
                "anatomy.models.transformer.Seq2SeqOutput", "anatomy.tasks.training.TrainingRun",
                "anatomy.models.transformer_config.TransformerConfig")


class WireError(ValueError):
    """A frame or a value that breaks the wire's rules (too large, malformed, not plain data)."""


def pack(message: dict, tensors: dict[str, torch.Tensor]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode()
    blob = save_tensors(tensors) if tensors else b""
    if len(body) > MAX_JSON or len(blob) > MAX_BLOB:
        raise WireError(f"a message of {len(body)} + {len(blob)} bytes is over the wire's limits")
    return HEADER.pack(MAGIC, len(body), len(blob)) + body + blob


def lengths(prefix: bytes, max_json: int = MAX_JSON, max_blob: int = MAX_BLOB) -> tuple[int, int]:
    """The JSON and blob lengths a frame's first HEADER.size bytes announce (checked against the caps)."""
    magic, body, blob = HEADER.unpack(prefix)
    if magic != MAGIC or body > max_json or blob > max_blob:
        raise WireError(f"not a grading frame, or over the limits ({body} + {blob} bytes)")
    return body, blob


def unpack(body: bytes, blob: bytes) -> tuple[dict, dict[str, torch.Tensor]]:
    message = json.loads(body)
    if not isinstance(message, dict):
        raise WireError("a frame's JSON must be an object")
    return message, (load_tensors(blob) if blob else {})


def send(fd: int, message: dict, tensors: dict[str, torch.Tensor] | None = None) -> None:
    data = memoryview(pack(message, tensors or {}))
    while data:
        data = data[os.write(fd, data):]


def reader(fd: int, at_end: Callable[[], None]) -> Callable[[], tuple[dict, dict[str, torch.Tensor]]]:
    """The next frame from `fd` (the child's end); `at_end()` when the grader closed it, then EOFError."""
    stream = io.FileIO(fd, "rb", closefd=False)

    def read(size: int) -> bytes:
        chunks = []
        while size:
            chunks.append(stream.read(size) or at_end() or b"")
            if not chunks[-1]:
                raise EOFError("the grader closed the channel")
            size -= len(chunks[-1])
        return b"".join(chunks)
    return lambda: (lambda body, blob: unpack(read(body), read(blob)))(*lengths(read(HEADER.size)))


def data_class(name: str) -> type:
    if name not in ALLOWED_DATA:
        raise WireError(f"{name} is not a data class the wire carries")
    module, _, qualname = name.rpartition(".")
    return getattr(importlib.import_module(module), qualname)


def data_name(value: Any) -> str | None:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = f"{type(value).__module__}.{type(value).__qualname__}"
        return name if name in ALLOWED_DATA else None
    return None


def encode(value: Any, tensors: dict[str, torch.Tensor], other: Callable[[Any], Any], depth: int = 0) -> Any:
    """`value` as JSON-able data; tensors go into `tensors` (copied, detached, on the CPU)."""
    if depth > MAX_DEPTH:
        raise WireError("a value nested too deeply for the wire")
    again = lambda v: encode(v, tensors, other, depth + 1)  # noqa: E731
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2 ** 53 else {"t": "int", "v": str(value)}
    if isinstance(value, float):
        return value if math.isfinite(value) else {"t": "float", "v": repr(value)}
    if isinstance(value, torch.Tensor):
        key = f"t{len(tensors)}"
        tensors[key] = torch.Tensor.clone(torch.Tensor.detach(value)).cpu().contiguous().as_subclass(torch.Tensor)
        return {"t": "tensor", "k": key, "grad": bool(value.requires_grad)}
    if isinstance(value, (torch.dtype, torch.device)):
        return {"t": type(value).__name__, "v": str(value)}
    if isinstance(value, list):
        return {"t": "list", "v": [again(v) for v in value]}
    if isinstance(value, tuple):  # torch.Size and named tuples too
        return {"t": "tuple", "v": [again(v) for v in value]}
    if isinstance(value, dict):
        return {"t": "dict", "v": [[again(k), again(v)] for k, v in value.items()]}
    if isinstance(value, SimpleNamespace):
        return {"t": "ns", "v": {k: again(v) for k, v in vars(value).items()}}
    if (name := data_name(value)) is not None:
        return {"t": "data", "c": name, "v": {f.name: again(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    return other(value)


def decode(data: Any, tensors: dict[str, torch.Tensor], other: Callable[[dict], Any], depth: int = 0) -> Any:
    """The value `data` describes; tagged objects the wire does not know go to `other`."""
    if depth > MAX_DEPTH:
        raise WireError("a value nested too deeply for the wire")
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if not isinstance(data, dict) or not isinstance(data.get("t"), str):
        raise WireError(f"malformed value on the wire: {str(data)[:80]}")
    again = lambda v: decode(v, tensors, other, depth + 1)  # noqa: E731
    tag, body = data["t"], data.get("v")
    if tag == "tensor":
        tensor = tensors[data["k"]]
        return tensor.requires_grad_() if data.get("grad") and tensor.is_floating_point() else tensor
    if tag in ("int", "float"):
        return {"int": int, "float": float}[tag](body)
    if tag == "dtype":
        dtype = getattr(torch, str(body).removeprefix("torch."), None)
        if not isinstance(dtype, torch.dtype):
            raise WireError(f"unknown dtype {body!r}")
        return dtype
    if tag == "device":
        return torch.device(body)
    if tag in ("list", "tuple", "iter"):
        items = [again(v) for v in body]
        return {"list": list, "tuple": tuple, "iter": iter}[tag](items)
    if tag == "dict":
        return {again(k): again(v) for k, v in body}
    if tag == "ns":
        return SimpleNamespace(**{str(k): again(v) for k, v in body.items()})
    if tag == "data":
        return data_class(data["c"])(**{str(k): again(v) for k, v in body.items()})
    return other(data)
