"""`make pretrain`: notebook 16's masked-LM pre-training run, once, then the fine-tuning comparison.

Writes anatomy/data/mlm_pretrained/: tokenizer.json (our byte-level BPE), config.json + model.safetensors
(the pre-trained TransformerForMaskedLM, in BertForMaskedLM's names), training_log.json (the loss per step)
and fine_tuning_comparison.json (test accuracy from random weights and from pre-training snapshots, per seed,
fine-tuned on all 8,057 labelled training sentences and on 2,000 of them).
Seeded: the same command on the same machine writes the same numbers. About 1.5 + 7 minutes on two cores.

    python -m tools.pretrain [--steps 1500] [--seeds 5] [--out anatomy/data/mlm_pretrained] [--no-comparison]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

from anatomy.models.masked_lm import TransformerForMaskedLM
from anatomy.tasks.mlm_pretraining import (PRETRAINED_DIR, masked_batches, pretrain, pretraining_sequences,
                                           pretraining_texts, small_bert_config, train_tokenizer, unigram_entropy)
from anatomy.tasks.pretraining_payoff import COMPARISON_FILE, compare
from anatomy.corpora.sentiment_data import load_reviews

STEPS = 1400
BATCH_SIZE = 64
PEAK_LR = 2e-3
SEED = 0
FEW_LABELS = 2000  # the second comparison: fine-tuning on the first 2,000 training sentences only


def snapshot_steps(steps: int) -> tuple[int, ...]:
    """Random weights (0), then a tenth, a third and all of the run."""
    return tuple(sorted({0, steps // 10, steps // 3, steps}))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--seeds", type=int, default=5, help="fine-tuning seeds per snapshot")
    parser.add_argument("--out", type=Path, default=PRETRAINED_DIR)
    parser.add_argument("--no-comparison", action="store_true", help="pre-train only")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    texts = pretraining_texts()
    every_text = [text for part in texts.values() for text in part]
    tokenizer = train_tokenizer(every_text)
    tokenizer.bpe.save(args.out / "tokenizer.json")
    sequences = pretraining_sequences(tokenizer, every_text)
    torch.manual_seed(SEED)
    model = TransformerForMaskedLM(small_bert_config(len(tokenizer)))
    batches = masked_batches(sequences, tokenizer, BATCH_SIZE, seed=SEED)
    run, snapshots = pretrain(model, batches, args.steps, peak_lr=PEAK_LR, snapshot_steps=snapshot_steps(args.steps))
    model.save_pretrained(args.out)
    log = {"steps": args.steps, "batch_size": BATCH_SIZE, "peak_lr": PEAK_LR, "seed": SEED,
           "sequences": len(sequences), "tokens": sum(map(len, sequences)),
           "texts": {name: len(part) for name, part in texts.items()},
           "unigram_entropy": unigram_entropy(sequences, tokenizer.all_special_ids),
           "losses": [round(loss, 4) for loss in run.losses]}
    (args.out / "training_log.json").write_text(json.dumps(log, indent=1) + "\n")
    print(f"pre-trained {args.steps} steps in {run.seconds:.0f} s; final loss {sum(run.losses[-50:]) / 50:.2f} "
          f"(unigram {log['unigram_entropy']:.2f}); wrote {args.out}", flush=True)
    if args.no_comparison:
        return
    train_split, test_split = load_reviews("train"), load_reviews("test")
    result = {"pretraining_steps": args.steps, "by_training_size": {}}
    for size in (len(train_split), FEW_LABELS):  # every labelled sentence, then a quarter of them
        print(f"fine-tuning on {size:,} labelled sentences", flush=True)
        result["by_training_size"][str(size)] = compare(snapshots, model.config, tokenizer, train_split.subset(size),
                                                        test_split, range(args.seeds), log=lambda line: print(line, flush=True))
    target = args.out / COMPARISON_FILE.name
    target.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    sys.exit(main())
