"""`make pretrain`: notebook 16's masked-LM pre-training run, once, then the fine-tuning comparison.

Writes anatomy/data/mlm_pretrained/: tokenizer.json (our byte-level BPE), config.json + model.safetensors
(the pre-trained TransformerForMaskedLM, in BertForMaskedLM's names), training_log.json (the loss per step;
the Python whose docstrings were read and each source's fingerprint, 'texts_record'; the count of every token id
in the pre-training sequences, 'unigram_counts', so that notebook 16's baselines need not recount them) and fine_tuning_comparison.json: test accuracy fine-tuned from random weights (the run's step 0) and from the
pre-trained weights, each arm with its own recipe (learning rate and steps picked from the same four trials on
held-out sentences), on 100, 250, 500 and 1,000 labels, eight seeds each. The labelled sentences come from the
validation split, which pre-training never reads: the labels carry nothing pre-training saw.
Seeded: the same command on the same machine writes the same numbers. About 1.5 + 9 minutes on two cores.

    python -m tools.pretrain [--steps 1400] [--seeds 8] [--out anatomy/data/mlm_pretrained]
                             [--no-comparison | --comparison-only | --record-texts]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from anatomy.corpora.fingerprint import texts_record
from anatomy.models.masked_lm import TransformerForMaskedLM
from anatomy.tasks.mlm_pretraining import (PRETRAINED_DIR, masked_batches, pretrain, pretraining_sequences,
                                           pretraining_texts, small_bert_config, train_tokenizer, unigram_entropy,
                                           SentenceTokenizer)
from anatomy.tasks.pretraining_payoff import COMPARISON_FILE, payoff
from anatomy.tokenizers.bpe import ByteLevelBPE
from anatomy.corpora.sentiment_data import Reviews, load_reviews

STEPS = 1400
BATCH_SIZE = 64
PEAK_LR = 2e-3
SEED = 0
LABEL_SIZES = (100, 250, 500, 1000)  # the first n sentences of the validation split, labelled
TUNING_SENTENCES = 1000  # the last 1,000 training sentences score each arm's recipe trials (never the test split)


def comparison(model: TransformerForMaskedLM, tokenizer: SentenceTokenizer, pretrained_steps: int,
               seeds: int, out: Path) -> None:
    """Random weights (the pre-training run's step 0: seed SEED) against `model`'s encoder, written to out."""
    start = time.perf_counter()
    torch.manual_seed(SEED)
    initial = TransformerForMaskedLM(model.config).encoder.state_dict()
    trained = {name.removeprefix("encoder."): value for name, value in model.state_dict().items()
               if name.startswith("encoder.")}
    train_split = load_reviews("train")
    tuning = Reviews(*(column[-TUNING_SENTENCES:] for column in (train_split.texts, train_split.labels, train_split.ratings)))
    result = payoff(model.config, {"0": initial, str(pretrained_steps): trained}, tokenizer,
                    load_reviews("validation"), tuning, load_reviews("test"), LABEL_SIZES, range(seeds),
                    log=lambda line: print(line, flush=True))
    result = {"pretraining_steps": pretrained_steps, "label_pool": "validation",
              "seconds": round(time.perf_counter() - start), **result}
    target = out / COMPARISON_FILE.name
    target.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {target}: {result['seconds']} s for {2 * len(LABEL_SIZES) * seeds} fine-tuning runs and the tuning")


def texts_metadata(texts: dict[str, list[str]], tokenizer: SentenceTokenizer, sequences: list[list[int]]) -> dict:
    """What training_log.json records about the text: counts, its fingerprint, every token id's count."""
    counts = [0] * len(tokenizer)
    for ids in sequences:
        for token in ids:
            counts[token] += 1
    return {"sequences": len(sequences), "tokens": sum(map(len, sequences)),
            "texts": {name: len(part) for name, part in texts.items()}, "texts_record": texts_record(texts),
            "unigram_entropy": unigram_entropy(sequences, tokenizer.all_special_ids), "unigram_counts": counts}


def record_texts(out: Path) -> None:
    """Add texts_metadata to the training_log.json in `out`, made before the log recorded it: only if the running
    texts rebuild the shipped tokenizer and the logged counts exactly (else they are not the texts that made it)."""
    texts = pretraining_texts()
    every_text = [text for part in texts.values() for text in part]
    shipped = SentenceTokenizer(ByteLevelBPE.load(out / "tokenizer.json"))
    if train_tokenizer(every_text).bpe.merges != shipped.bpe.merges:
        raise SystemExit(f"the running texts do not rebuild {out / 'tokenizer.json'}: they are not the texts that made "
                         "it (another Python's docstrings?); nothing written")
    metadata = texts_metadata(texts, shipped, pretraining_sequences(shipped, every_text))
    log_file = out / "training_log.json"
    log = json.loads(log_file.read_text())
    for key in ("sequences", "tokens", "texts", "unigram_entropy"):
        if log[key] != metadata[key]:
            raise SystemExit(f"{log_file}'s {key} is {log[key]!r}, the running texts give {metadata[key]!r}; nothing written")
    log_file.write_text(json.dumps({**log, **metadata}, indent=1) + "\n")
    print(f"recorded in {log_file}: {metadata['texts_record']}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--seeds", type=int, default=8, help="fine-tuning seeds per arm and number of labels")
    parser.add_argument("--out", type=Path, default=PRETRAINED_DIR)
    parser.add_argument("--no-comparison", action="store_true", help="pre-train only")
    parser.add_argument("--comparison-only", action="store_true", help="compare with the weights already in --out")
    parser.add_argument("--record-texts", action="store_true",
                        help="add the texts' record to a training_log.json made before it was written")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.comparison_only:
        model = TransformerForMaskedLM.from_pretrained(args.out)
        steps = json.loads((args.out / "training_log.json").read_text())["steps"]
        comparison(model, SentenceTokenizer(ByteLevelBPE.load(args.out / "tokenizer.json")), steps, args.seeds, args.out)
        return
    if args.record_texts:
        return record_texts(args.out)

    texts = pretraining_texts()
    every_text = [text for part in texts.values() for text in part]
    tokenizer = train_tokenizer(every_text)
    tokenizer.bpe.save(args.out / "tokenizer.json")
    sequences = pretraining_sequences(tokenizer, every_text)
    torch.manual_seed(SEED)
    model = TransformerForMaskedLM(small_bert_config(len(tokenizer)))
    batches = masked_batches(sequences, tokenizer, BATCH_SIZE, seed=SEED)
    run, _ = pretrain(model, batches, args.steps, peak_lr=PEAK_LR)
    model.save_pretrained(args.out)
    log = {"steps": args.steps, "batch_size": BATCH_SIZE, "peak_lr": PEAK_LR, "seed": SEED,
           **texts_metadata(texts, tokenizer, sequences), "losses": [round(loss, 4) for loss in run.losses]}
    (args.out / "training_log.json").write_text(json.dumps(log, indent=1) + "\n")
    print(f"pre-trained {args.steps} steps in {run.seconds:.0f} s; final loss {sum(run.losses[-50:]) / 50:.2f} "
          f"(unigram {log['unigram_entropy']:.2f}); wrote {args.out}", flush=True)
    if args.no_comparison:
        return
    comparison(model, tokenizer, args.steps, args.seeds, args.out)


if __name__ == "__main__":
    sys.exit(main())
