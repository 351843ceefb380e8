"""Train and save notebook 11's character GPT for notebook 17's logit lens: python -m tools.train_char_gpt
(`make char-gpt`; about a minute on two CPU cores).

Notebook 11 trains its own copy in place and keeps no file; this one uses 11's recipe (docstring_lm,
seed 0, 800 steps) and is written to anatomy/data/char_gpt with its characters, so 17 can load it.
"""
from __future__ import annotations

import torch

from anatomy.tasks.docstring_lm import docstring_config, docstring_corpus, train_docstring_gpt, validation_loss
from anatomy.models.gpt import GPT
from anatomy.interpret.logit_lens import save_char_gpt


def main() -> None:
    torch.manual_seed(0)  # as notebook 11 does before building its model
    corpus = docstring_corpus()
    char_gpt = GPT(docstring_config(corpus))
    train_docstring_gpt(char_gpt, corpus, progress=False)
    save_char_gpt(char_gpt, corpus)
    print(f"character GPT: held-out loss {validation_loss(char_gpt, corpus.validation_ids):.3f} nats per character")


if __name__ == "__main__":
    main()
