"""Pre-train and save notebook 20's base GPT: python -m tools.train_base_gpt (`make base-gpt`; 3 min 54 s
measured alone on two CPU cores, 224 s of it training). With --rescore it trains nothing: it re-evaluates
the shipped weights (held-out losses, n-gram baselines, characters scored) and rewrites only those figures
of pretraining.json, keeping the record of the training run (steps, seconds, threads, Python).

A character GPT (anatomy.alignment.base_gpt: 4 layers, width 128, a context of 192) pre-trained on the
standard library's docstrings, 09's training reviews and 15's Korean training text, then written with its
characters and the record of the run (held-out loss per source, the n-gram baselines, the seconds it took)
to anatomy/data/base_gpt, which notebook 20 and tests/test_base_gpt.py load. The corpus text is never saved.
"""
from __future__ import annotations

import json
import sys
from typing import Any

from anatomy.alignment.base_gpt import BASE_GPT_DIR, evaluate_base_gpt, load_base_gpt, pretrain_base_gpt, save_base_gpt


def rescore() -> dict[str, Any]:
    """Re-evaluate the shipped base GPT without retraining it and rewrite the figures of its pretraining.json."""
    model, tokenizer, record = load_base_gpt()
    record.update(evaluate_base_gpt(model, tokenizer))
    (BASE_GPT_DIR / "pretraining.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n",
                                                   encoding="utf-8")
    return record


def main(arguments: list[str]) -> None:
    if arguments not in ([], ["--rescore"]):
        raise SystemExit(f"usage: python -m tools.train_base_gpt [--rescore], got {arguments}")
    if arguments:
        record = rescore()
    else:
        model, tokenizer, record = pretrain_base_gpt()
        save_base_gpt(model, tokenizer, record)
        print(f"{record['steps']} steps in {record['seconds']:.0f} s on {record['threads']} threads; "
              f"{tokenizer.vocab_size} ids ({len(tokenizer.characters)} characters + 6 reserved)")
    for name, loss in record["held_out_loss"].items():
        print(f"{name:10} held-out loss {loss:.3f} nats per character on {record['held_out_characters'][name]:,} "
              f"characters (unigram {record['unigram_loss'][name]:.3f}, add-one trigram {record['trigram_loss'][name]:.3f})")


if __name__ == "__main__":
    main(sys.argv[1:])
