"""Notebook 17's control section (cells 27 and 29) for several seeds, as a maintainer's check on another machine.

For each seed: train the 8-head model on the mixed rows, score layer 1's heads, say whether the seed rule of
cell 27 accepts it, take the lowest-scoring head as the control anyway, run cell 29's five ablations and
evaluate every assert of cells 27 and 29 from the recorded figures. One JSON line per seed, with the
machine, Python and torch that made it (and make test-portable's float settings when they are set), to standard output; append them to instructor/17_control_seeds.jsonl
to keep the record. About 30 s per seed on 2 threads; seeds run in parallel with --jobs.

    python -m tools.control_seeds [--seeds 0 1 2 3 4] [--jobs 1] [--threads 2]
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import platform

import torch

from anatomy.interpret import induction
from anatomy.interpret import induction_control as control
from anatomy.tasks.arms import compare_arms

PORTABLE = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "ONEDNN_MAX_CPU_ISA", "ANATOMY_FLOAT_JITTER")  # the Makefile's


def machine() -> dict:
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor() or platform.machine()) if platform.system() == "Linux" else platform.processor()
    settings = {name: os.environ[name] for name in PORTABLE if name in os.environ}  # make test-portable's
    return {"date": datetime.date.today().isoformat(), "cpu": cpu, "cores": os.cpu_count(),
            "python": platform.python_version(), "torch": torch.__version__} | ({"settings": settings} if settings else {})


def checks(record: dict) -> dict[str, bool]:
    """Cells 27 and 29's asserts, evaluated from a record's figures (each figure is [mean, half width])."""
    scores, local, f, gain = record["induction"], record["local"], record["figures"], record["gain"]
    control_head, heads = scores.index(min(scores)), [h for h, s in enumerate(scores) if s > 0.4]
    top = lambda name: f[name][0] + f[name][1]  # the top of the interval
    shown = lambda name: abs(f[name][0]) > f[name][1]
    return {"seed rule": record["qualifies"],
            "both kinds": bool(heads) and local[control_head] > 0.5,
            "control nearer": bool(heads) and local[control_head] > sum(local[h] for h in heads) / len(heads),
            "keep": f["keep"][0] - f["keep"][1] > -0.1 * gain,
            "English rises": shown("rise") and f["rise"][0] > 0,
            "drop": top("drop") < -0.1 * gain,
            "English barely": abs(f["english_induction"][0]) + f["english_induction"][1] < 0.25 * f["rise"][0],
            "by gain": top("by_gain") < -0.1 * gain,
            "by English": shown("by_english") and f["by_english"][0] < 0,
            "all but": record["all_but_gain"] < 0.25 * gain}


def one_seed(seed: int, threads: int) -> dict:
    torch.set_num_threads(threads)
    test_ids = induction.repeated_tokens(64, 12, 32, torch.Generator().manual_seed(1))  # cell 14's rows
    text = control.folded_text()
    split = int(0.9 * len(text))
    model = induction.attention_only_model(heads=8, seed=seed)
    control.train_mixed(model, text[:split], seed=seed)
    scores = induction.induction_scores(induction.patterns(model, test_ids))[1]  # (H,): layer 1
    lowest, next_lowest = scores.sort().values[:2].tolist()
    control_head = int(scores.argmin())
    text_ids = control.text_rows(256, text[split:], 25, torch.Generator().manual_seed(2))
    local = control.local_scores(induction.patterns(model, text_ids))[1]
    fresh_ids = induction.repeated_tokens(256, 12, 32, torch.Generator().manual_seed(3))
    heads = {"nothing": [], "control": [control_head], "strongest": [int(scores.argmax())],
             "all but": [h for h in range(8) if h != control_head]}
    gains, losses = {}, {}
    for arm, removed in heads.items():
        edit = {"blocks.1.z": induction.ablate_heads(removed)} if removed else None
        gains[arm] = control.row_gains(model, fresh_ids, edit)
        losses[arm] = control.row_losses(model, text_ids, edit)
    pairs = {"keep": (gains, "nothing", "control"), "rise": (losses, "nothing", "control"),
             "drop": (gains, "nothing", "strongest"), "english_induction": (losses, "nothing", "strongest"),
             "by_gain": (gains, "control", "strongest"), "by_english": (losses, "control", "strongest")}
    figures = {name: [compare_arms(rows[a], rows[b]).mean, compare_arms(rows[a], rows[b]).half_width]
               for name, (rows, a, b) in pairs.items()}  # b - a, row by row
    exact = {"induction": scores.tolist(), "local": local.tolist(), "qualifies": lowest < 0.1 and next_lowest - lowest >= 0.05,
             "gain": sum(gains["nothing"]) / 256, "all_but_gain": sum(gains["all but"]) / 256, "figures": figures}
    rounded = {key: round(value, 4) if isinstance(value, float) else value for key, value in exact.items()} | {
        "induction": [round(s, 4) for s in exact["induction"]], "local": [round(s, 4) for s in exact["local"]],
        "figures": {name: [round(x, 4) for x in pair] for name, pair in figures.items()}}
    return {"seed": seed, **machine(), "threads": threads} | rounded | {"checks": checks(exact)}  # checked unrounded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for record in pool.map(one_seed, args.seeds, [args.threads] * len(args.seeds)):
            print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
