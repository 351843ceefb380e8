"""Homework 2's question 4, measured: which learning rates pass the bar, and what failing runs leave behind.

    python benchmarks/homework_fine_tuning.py [--steps 64] [--lrs 5e-5,1e-4,3e-4] [--workers 2]

Fine-tunes the bundled MiniLM as the check does (anatomy.homework.sentiment: run_data, the check's
own classifier copy, its accuracy on the held-out test sentences) with AdamW at each learning rate,
with and without warm-up, on the public seed (0), the master's hidden seed (2718) and the hidden
seeds that three example secrets draw; plus the failing recipes the check must name (too low, too
high, no zero_grad). With --sum, the passing runs use a training_step that sums the BCE over the
batch instead of averaging it (question 3 accepts both; this measures that the sum passes too).
Prints one line per run: accuracy, mean loss per sentence of the first and last 8 steps, the encoder's relative change, the head-gradient growth, seconds. Each worker uses one thread.
The instructor README's table of question 4 comes from this script; never a timed test.
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECRETS = ("s3cret", "classA", "2026fall")


def hidden_seeds(secrets: tuple[str, ...] = SECRETS) -> dict[str, int]:
    """The seed of question 4's hidden test: the master's own, and the ones three secrets draw."""
    spec = importlib.util.spec_from_file_location("assign", ROOT / "instructor" / "assign.py")
    assign = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(assign)
    master = ROOT / "instructor" / "10_homework_sentiment.ipynb"
    seeds = {"public": 0, "master": 2718}
    for secret in secrets:
        cells = [c.source for c in assign.reseeded(master, secret).cells if c.source.startswith("# HIDDEN")]
        seeds[secret] = int(re.search(r"check_fine_tuning\(.*seed=(\d+)", [c for c in cells if "fine_tuning" in c][0]).group(1))
    return seeds


def one_run(job: tuple) -> str:
    lr, warmup, mode, steps, label, seed = job
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.set_num_threads(1)
    from anatomy.models.encoder import TransformerEncoder
    from anatomy.homework.sentiment import data, diagnosis, run_checks
    from anatomy.tasks.training import train

    reduction = "sum" if mode == "sum" else "mean"

    class Classifier(nn.Module):
        def __init__(self, encoder):
            super().__init__()
            self.encoder, self.head = encoder, nn.Linear(encoder.config.hidden_size, 1)

        def training_step(self, batch):
            cls = self.encoder(batch.input_ids, attention_mask=batch.attention_mask).last_hidden_state[:, 0]
            return F.binary_cross_entropy_with_logits(self.head(cls).squeeze(-1), batch.labels.float(), reduction=reduction)

    pretrained = TransformerEncoder.from_pretrained()
    before = {k: v.clone() for k, v in pretrained.state_dict().items()}
    torch.manual_seed(seed)
    model = Classifier(pretrained)
    train_batches, test_batches = data.run_data(seed)
    start = time.perf_counter()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    if mode == "no_zero_grad":
        model.train()
        losses = []
        for batch in train_batches[:steps]:
            loss = model.training_step(batch)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    else:
        losses = train(model, iter(train_batches), lambda m, b: m.training_step(b), steps, optimizer=optimizer,
                       warmup_steps=warmup, progress=False).losses
    seconds = time.perf_counter() - start
    mine = run_checks.own_copy(model, pretrained.config)
    accuracy = run_checks.correct_share(mine, test_batches)
    per_sentence = len(train_batches[0].labels) if mode == "sum" else 1  # losses and growth per sentence either way
    _, relative = diagnosis.encoder_change(mine, before)
    growth = diagnosis.gradient_growth(model, mine, train_batches[steps - 1], per_sentence)
    first, last = sum(losses[:8]) / 8 / per_sentence, sum(losses[-8:]) / 8 / per_sentence
    return (f"{lr:8.0e} {warmup:6d} {mode:13s} {label:9s} {seed:10d} {accuracy:7.1%} {first:6.3f} {last:6.3f} "
            f"{relative:9.2e} {growth or 0:7.1f} {seconds:5.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--lrs", default="5e-5,1e-4,2e-4,3e-4")
    parser.add_argument("--failing", default="1e-6,5e-2", help="learning rates that must fail, named")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seeds", default="", help="a comma-separated subset of: public,master," + ",".join(SECRETS))
    parser.add_argument("--secrets", default=",".join(SECRETS), help="the example secrets whose hidden seeds to try")
    parser.add_argument("--no-failing", action="store_true", help="only the learning rates that must pass")
    parser.add_argument("--sum", action="store_true", help="the passing runs with the BCE summed over the batch, not averaged")
    parser.add_argument("--warmups", default="both", choices=("both", "none", "some"), help="warm-up: 0, steps // 10, or both")
    args = parser.parse_args()
    from anatomy.homework.sentiment import data

    steps, seeds = args.steps or data.STEPS, hidden_seeds(tuple(args.secrets.split(",")))
    if args.seeds:
        seeds = {k: v for k, v in seeds.items() if k in args.seeds.split(",")}
    warmups = {"both": (0, steps // 10), "none": (0,), "some": (steps // 10,)}[args.warmups]
    mode = "sum" if args.sum else "train"
    jobs = [(float(lr), warmup, mode, steps, label, seed) for lr in args.lrs.split(",") if lr
            for warmup in warmups for label, seed in seeds.items()]
    if not args.no_failing:
        jobs += [(float(lr), steps // 10, "train", steps, label, seed) for lr in args.failing.split(",") if lr
                 for label, seed in list(seeds.items())[:2]]
        jobs += [(1e-4, 0, "no_zero_grad", steps, label, seed) for label, seed in list(seeds.items())[:2]]
    print(f"{steps} steps of {data.BATCH_SIZE}; accuracy on {data.TEST_SENTENCES} held-out sentences")
    print(f"{'lr':>8s} {'warmup':>6s} {'mode':13s} {'seed':9s} {'':10s} {'acc':>7s} {'first':>6s} {'last':>6s} "
          f"{'moved':>9s} {'growth':>7s} {'s':>5s}", flush=True)
    with ProcessPoolExecutor(args.workers) as pool:
        for line in pool.map(one_run, jobs):
            print(line, flush=True)


if __name__ == "__main__":
    main()
