"""The base model notebook 20 loads (pre-trained only): a character GPT trained on docstrings, reviews and Korean.

Taught in: 20_instruction_tuning.  Shapes: B batch, T characters per window, V vocabulary.
`make base-gpt` (tools/train_base_gpt.py) pre-trains it with notebook 11's recipe (Adam, warm-up then
decay, clipped gradients) on windows drawn from the three sources of base_corpus in fixed shares, and
ships it in anatomy/data/base_gpt: the weights, its characters and a record of the run (held-out loss per
source next to character n-gram baselines, BASELINES). Notebook 20 loads it; it is pre-trained only, never tuned.
"""
from __future__ import annotations

import json
import math
import platform
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch

from anatomy.alignment.base_corpus import RESERVED, SOURCES, CharTokenizer, base_texts, build_tokenizer, source_ids
from anatomy.alignment.ngram_baseline import ngram_loss
from anatomy.checkpoints.checkpoint_files import load_weights_file, read_config
from anatomy.checks import check_integer, check_tensor, check_type
from anatomy.models.gpt import GPT, GPTConfig
from anatomy.tasks.docstring_lm import next_character_loss, validation_loss
from anatomy.tasks.training import train

BASE_GPT_DIR = Path(__file__).resolve().parent.parent / "data" / "base_gpt"
SHARES = {"docstrings": 0.4, "reviews": 0.4, "korean": 0.2}  # of each batch's windows; Korean is the smallest text
HELD_OUT_CHARACTERS = 20_000  # the held-out loss reads at most this many characters of each source (a fixed prefix)
# record key -> (order, add-alpha smoothing) of the n-gram tables counted on the training text; alpha 0.01 is the
# best of 1, 0.1, 0.01, 0.001 on the held-out English text, or within 0.01 nats of it (chosen there, so optimistic)
BASELINES = {"unigram_loss": (1, 1.0), "bigram_loss": (2, 1.0), "trigram_loss": (3, 1.0),
             "trigram_add_0.01_loss": (3, 0.01), "4-gram_add_0.01_loss": (4, 0.01)}
HINT = "run `make base-gpt` to pre-train and save it again"


def base_config(vocab_size: int) -> GPTConfig:
    """Four layers of width 128 and a context of 192 characters: a chat prompt with a review fits."""
    return GPTConfig(vocab_size=check_integer("vocab_size", vocab_size, least=len(RESERVED) + 1), hidden_size=128,
                     num_attention_heads=4, num_hidden_layers=4, intermediate_size=512, max_position_embeddings=192)


def mixed_windows(texts: dict[str, torch.Tensor], batch_size: int, length: int,
                  generator: torch.Generator) -> Iterator[torch.Tensor]:
    """Endless (B, length + 1) windows, row i from a source drawn with SHARES' probabilities."""
    if not isinstance(texts, dict) or sorted(texts) != sorted(SHARES):
        raise ValueError(f"texts must be a dict with one 1-D id tensor per source {tuple(SHARES)}, got "
                         f"{sorted(texts) if isinstance(texts, dict) else type(texts).__name__}")
    batch_size, length = check_integer("batch_size", batch_size), check_integer("length", length)
    for name, ids in texts.items():
        if check_tensor(f"texts[{name!r}]", ids, rank=1, floating=False, shape="(N,)").numel() < length + 2:
            raise ValueError(f"texts[{name!r}] must hold at least length + 2 = {length + 2} ids, got {ids.numel()}")
    return _mixed_windows(texts, batch_size, length, check_type("generator", generator, torch.Generator))


def _mixed_windows(texts: dict[str, torch.Tensor], batch_size: int, length: int,
                   generator: torch.Generator) -> Iterator[torch.Tensor]:
    names = list(SHARES)
    shares = torch.tensor([SHARES[name] for name in names])
    while True:
        rows = []
        for pick in torch.multinomial(shares, batch_size, replacement=True, generator=generator).tolist():
            ids = texts[names[pick]]
            start = int(torch.randint(0, len(ids) - length - 1, (1,), generator=generator))
            rows.append(ids[start:start + length + 1])
        yield torch.stack(rows)  # (B, length + 1)


def held_out_losses(model: GPT, tokenizer: CharTokenizer, held_out: dict[str, list[str]] | None = None) -> dict[str, float]:
    """Mean next-character loss (nats) on the first HELD_OUT_CHARACTERS of each source's held-out text."""
    held_out = base_texts(held_out=True) if held_out is None else held_out
    return {name: validation_loss(model, source_ids(tokenizer, held_out[name])[:HELD_OUT_CHARACTERS])
            for name in SOURCES}


def evaluate_base_gpt(model: GPT, tokenizer: CharTokenizer) -> dict[str, Any]:
    """The record's figures per source: the characters the GPT's held-out loss scores (whole context windows),
    that loss, and each BASELINES table's loss on the same held-out text (its first order - 1 ids are context)."""
    texts, held_out = base_texts(), base_texts(held_out=True)
    length = check_type("model", model, GPT).config.max_position_embeddings
    record: dict[str, Any] = {"held_out_characters": {}, "held_out_loss": {}}
    for name in SOURCES:
        ids = source_ids(tokenizer, held_out[name])[:HELD_OUT_CHARACTERS]  # as held_out_losses reads them
        record["held_out_loss"][name] = validation_loss(model, ids)
        scored = (len(ids) - 1) // length * length  # as validation_loss: the ids after the first, in whole windows
        record["held_out_characters"][name] = scored
        train_ids = source_ids(tokenizer, texts[name])
        for key, (order, alpha) in BASELINES.items():
            record.setdefault(key, {})[name] = ngram_loss(train_ids, ids[:scored + 1], tokenizer.vocab_size, order, alpha)
    return record


def pretrain_base_gpt(steps: int = 640, batch_size: int = 24, seed: int = 0) -> tuple[GPT, CharTokenizer, dict[str, Any]]:
    """Pre-train a fresh base GPT; returns it, its tokenizer and the record that save_base_gpt writes."""
    texts = base_texts()
    tokenizer = build_tokenizer(texts)
    ids = {name: source_ids(tokenizer, lines) for name, lines in texts.items()}
    torch.manual_seed(seed)
    model = GPT(base_config(tokenizer.vocab_size))
    length = model.config.max_position_embeddings
    run = train(model, mixed_windows(ids, batch_size, length, torch.Generator().manual_seed(seed)), next_character_loss,
                check_integer("steps", steps), peak_lr=3e-3, warmup_steps=min(100, steps), max_grad_norm=1.0,
                progress=False)
    record = {"python": platform.python_version(), "steps": steps, "batch_size": batch_size, "seed": seed,
              "seconds": round(run.seconds, 1), "threads": torch.get_num_threads(), "shares": SHARES,
              **evaluate_base_gpt(model.eval(), tokenizer)}
    return model, tokenizer, record


def save_base_gpt(model: GPT, tokenizer: CharTokenizer, record: dict[str, Any], folder: str | Path = BASE_GPT_DIR) -> None:
    """config.json + model.safetensors, characters.txt (ids len(RESERVED) and up) and pretraining.json."""
    check_type("model", model, GPT).save_pretrained(folder)
    (Path(folder) / "characters.txt").write_text(check_type("tokenizer", tokenizer, CharTokenizer).characters, encoding="utf-8")
    (Path(folder) / "pretraining.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def load_base_gpt(folder: str | Path = BASE_GPT_DIR) -> tuple[GPT, CharTokenizer, dict[str, Any]]:
    """The shipped base GPT (eval mode), its tokenizer and the record of its pre-training run."""
    folder = Path(check_type("folder", folder, str, Path))
    model = GPT(read_config(GPTConfig, folder, HINT))
    load_weights_file(model, folder, HINT)
    for name in ("characters.txt", "pretraining.json"):
        if not (folder / name).is_file():
            raise FileNotFoundError(f"{folder} needs {name} next to the weights; {HINT}")
    characters = (folder / "characters.txt").read_text(encoding="utf-8")
    if len(RESERVED) + len(characters) != model.config.vocab_size:
        raise ValueError(f"{folder / 'characters.txt'} must hold vocab_size - {len(RESERVED)} reserved ids = "
                         f"{model.config.vocab_size - len(RESERVED)} characters (config.json), got {len(characters)}: "
                         f"the weights and the vocabulary come from different runs; {HINT}")
    record = json.loads((folder / "pretraining.json").read_text(encoding="utf-8"))
    if not all(math.isfinite(record.get("held_out_loss", {}).get(name, math.nan)) for name in SOURCES):
        raise ValueError(f"{folder / 'pretraining.json'} must record a held_out_loss for each of {SOURCES}; {HINT}")
    return model.eval(), CharTokenizer(characters), record
