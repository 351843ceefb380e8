"""Notebook 11's held-out loss on another Python's docstrings: the figures its section 3 quotes.

Each Python's standard library has its own docstrings, so notebook 11's corpus, and the loss its
character GPT reaches, depend on the Python that runs it. To tell the text from the interpreter,
write one Python's sentences to a file and train on them under another:

    .venv-py3.10/bin/python -m tools.docstring_loss dump build/docstrings-3.10.json
    .venv/bin/python -m tools.docstring_loss train build/docstrings-3.10.json   # 3.10's text, this Python
    .venv/bin/python -m tools.docstring_loss train                              # this Python's own text
    .venv/bin/python -m tools.docstring_loss train --seed 1                     # another random start

`train` repeats section 3's recipe with the notebook's own calls (800 steps, on one thread as the
notebook runs: about a minute); the seed (0, the notebook's) sets both the initial weights and the
windows drawn.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

import anatomy
from anatomy.models.gpt import GPT
from anatomy.tasks import docstring_lm


def held_out_loss(sentences: list[str] | None = None, seed: int = 0) -> tuple[float, float]:
    """(the character GPT's held-out loss, the bigram's) on `sentences`, or this Python's docstrings."""
    corpus = docstring_lm.docstring_corpus() if sentences is None else docstring_lm.sentence_corpus(sentences[:6000])
    torch.manual_seed(seed)
    model = GPT(docstring_lm.docstring_config(corpus))
    docstring_lm.train_docstring_gpt(model, corpus, seed=seed, progress=False)
    return docstring_lm.validation_loss(model, corpus.validation_ids), docstring_lm.bigram_loss(corpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["dump", "train"])
    parser.add_argument("file", nargs="?", help="dump: where to write; train: the sentences (default: this Python's)")
    parser.add_argument("--seed", type=int, default=0, help="train: the initial weights' and the windows' seed")
    args = parser.parse_args()
    if args.command == "dump":
        if not args.file:
            parser.error("dump needs a file to write")
        Path(args.file).parent.mkdir(parents=True, exist_ok=True)
        with open(args.file, "w", encoding="utf-8") as f:
            json.dump(docstring_lm.stdlib_sentences(6000), f)
        return
    anatomy.setup_notebook(seed=0)
    torch.set_num_threads(1)  # as `make notebooks` and `make test` run the notebook: the last digits depend on it
    sentences = None
    if args.file:
        with open(args.file, encoding="utf-8") as f:
            sentences = json.load(f)
    gpt, bigram = held_out_loss(sentences, args.seed)
    print(f"Python {sys.version.split()[0]}, text {args.file or 'its own docstrings'}, seed {args.seed}: held-out loss {gpt:.3f} "
          f"nats per character vs bigram {bigram:.3f}")


if __name__ == "__main__":
    main()
