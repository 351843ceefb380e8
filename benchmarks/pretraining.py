"""Notebook 16's runs, timed: python benchmarks/pretraining.py (part of make bench).

The masked-LM pre-training run `make pretrain` ships (goal: <= 120 s on two CPU cores), then one
fine-tuning run of the comparison from random weights and one from the pre-trained weights (goal:
<= 60 s each, training only). Writes nothing: the pre-training goes to a temporary folder. Never a timed test.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tools/ is maintainer tooling

from anatomy.tokenizers.bpe import ByteLevelBPE
from anatomy.models.masked_lm import TransformerForMaskedLM
from anatomy.tasks.mlm_pretraining import PRETRAINED_DIR, SentenceTokenizer
from anatomy.tasks.pretraining_payoff import RECIPE, fine_tuned_accuracy
from anatomy.corpora.sentiment_data import load_reviews
from tools import pretrain as pretraining_run  # noqa: E402


def main() -> None:
    print(f"P1 masked-LM pre-training ({torch.get_num_threads()} threads), {pretraining_run.STEPS} steps of "
          f"{pretraining_run.BATCH_SIZE} sequences; goal <= 120 s")
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        pretraining_run.main(["--no-comparison", "--out", folder])
        print(f"P1 pre-training run, tokenizer and data included: {time.perf_counter() - start:.0f} s")
        model = TransformerForMaskedLM.from_pretrained(Path(folder))
        tokenizer = SentenceTokenizer(ByteLevelBPE.load(Path(folder) / "tokenizer.json"))
    encoder_state = {name.removeprefix("encoder."): value for name, value in model.state_dict().items()
                     if name.startswith("encoder.")}
    train_split, test_split = load_reviews("train"), load_reviews("test")
    print(f"P2 fine-tuning, {RECIPE}; goal <= 60 s each")
    for name, state in (("from random weights", None), ("from pre-training", encoder_state)):
        torch.manual_seed(0)
        fresh_state = state if state is not None else TransformerForMaskedLM(model.config).encoder.state_dict()
        score, seconds = fine_tuned_accuracy(model.config, fresh_state, tokenizer, train_split, test_split, seed=0)
        print(f"P2 {name:<20} {seconds:5.1f} s training, test accuracy {score:.1%}")
    print(f"(the shipped weights in {PRETRAINED_DIR} came from `make pretrain` on the maintainers' machine)")


if __name__ == "__main__":
    main()
