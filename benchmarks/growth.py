"""What attention costs as the sequence grows: python benchmarks/growth.py (part of make bench).

Naive attention (anatomy.scaled_dot_product_attention, which materialises the (T, T) weights) vs
PyTorch's fused F.scaled_dot_product_attention, for one sequence with 12 heads of width 64, at
T = 128 ... 4096. Times are medians of calls timed alternately (bench.paired_ratio), so a noisy
machine slows both alike. Peak memory is the largest total of live tensors during one call: on CPU replayed from
torch.profiler's allocation events, on GPU torch.cuda.max_memory_allocated (GPU columns appear
only when a GPU exists). The slope of log(time) and log(memory) against log(T), fitted over
T >= 512, is the growth exponent: 2 means quadratic.

Writes build/bench/attention_growth.csv and .png (nothing tracked); `make bench-images` (this script
with --out images) replaces the committed figure that notebook 04 shows. Never a timed test.
"""
from __future__ import annotations

import argparse
import csv
import os
from contextlib import contextmanager
from pathlib import Path

import matplotlib
import numpy as np
import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from anatomy.layers.attention import scaled_dot_product_attention
from bench import paired_ratio  # the same alternating timer as P1-P3

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LENGTHS = [128, 256, 512, 1024, 2048, 4096]
HEADS, HEAD_DIM, FIT_FROM = 12, 64, 512
ROOT = Path(__file__).resolve().parent.parent
IMPLEMENTATIONS = {
    "naive": lambda q, k, v: scaled_dot_product_attention(q, k, v)[0],
    "fused": lambda q, k, v: F.scaled_dot_product_attention(q, k, v),
}


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


@contextmanager
def quiet_c_stderr():
    """The profiler's C++ side writes two log lines per run to file descriptor 2; hide them."""
    saved = os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def cpu_peak_bytes(attend, q, k, v) -> int:
    """Replay every allocation and free that torch.profiler saw during one call; return the peak."""
    with quiet_c_stderr(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        attend(q, k, v)
    events = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    live = peak = 0
    for event in sorted(events, key=lambda e: e.start_ns()):
        live += event.nbytes()
        peak = max(peak, live)
    return peak


def gpu_peak_bytes(attend, q, k, v) -> int:
    torch.cuda.synchronize()
    baseline = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    attend(q, k, v)
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - baseline


def measure(device: torch.device) -> list[dict]:
    rows = []
    for length in LENGTHS:
        q, k, v = torch.randn(3, 1, HEADS, length, HEAD_DIM, device=device).unbind(0)  # each (1, H, T, Dh)
        timed = {name: lambda attend=attend: (attend(q, k, v), synchronize(device))  # GPU work counts
                 for name, attend in IMPLEMENTATIONS.items()}
        repeats = 25 if length <= 512 else 9 if length <= 1024 else 3
        _, naive_seconds, fused_seconds = paired_ratio(timed["naive"], timed["fused"], repeats)
        seconds = {"naive": naive_seconds, "fused": fused_seconds}
        peak = cpu_peak_bytes if device.type == "cpu" else gpu_peak_bytes
        for name, attend in IMPLEMENTATIONS.items():
            rows.append({"device": device.type, "implementation": name, "T": length,
                         "ms": seconds[name] * 1e3, "peak_MiB": peak(attend, q, k, v) / 2**20})
    return rows


def exponent(rows: list[dict], key: str) -> float:
    """The slope of log(key) against log(T) over T >= FIT_FROM."""
    points = [(np.log(r["T"]), np.log(r[key])) for r in rows if r["T"] >= FIT_FROM and r[key] > 0]
    return float(np.polyfit(*zip(*points), 1)[0])


def report(rows: list[dict]) -> None:
    for device in dict.fromkeys(r["device"] for r in rows):
        print(f"\nattention growth on {device}: 1 sequence x {HEADS} heads x {HEAD_DIM} dims")
        print(f"{'T':>6} {'naive ms':>10} {'fused ms':>10} {'time ratio':>11} {'naive MiB':>10} "
              f"{'fused MiB':>10} {'memory ratio':>13}")
        naive = [r for r in rows if r["device"] == device and r["implementation"] == "naive"]
        fused = [r for r in rows if r["device"] == device and r["implementation"] == "fused"]
        for n, f in zip(naive, fused):
            print(f"{n['T']:>6} {n['ms']:>10.2f} {f['ms']:>10.2f} {n['ms'] / f['ms']:>11.2f} "
                  f"{n['peak_MiB']:>10.1f} {f['peak_MiB']:>10.1f} {n['peak_MiB'] / f['peak_MiB']:>13.1f}")
        print(f"growth exponent (fit over T >= {FIT_FROM}): time naive {exponent(naive, 'ms'):.2f}, "
              f"fused {exponent(fused, 'ms'):.2f}; memory naive {exponent(naive, 'peak_MiB'):.2f}, "
              f"fused {exponent(fused, 'peak_MiB'):.2f}")


def plot(rows: list[dict], path: Path) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for key, ax, label in [("ms", axes[0], "time per call (ms)"), ("peak_MiB", axes[1], "peak memory (MiB)")]:
        for device in dict.fromkeys(r["device"] for r in rows):
            for name, style in [("naive", "o-"), ("fused", "s--")]:
                points = [r for r in rows if r["device"] == device and r["implementation"] == name]
                ax.loglog([r["T"] for r in points], [r[key] for r in points], style, base=2,
                          label=f"{name} ({device}), slope {exponent(points, key):.2f}")
        ax.set_xlabel("sequence length T")
        ax.set_ylabel(label)
        ax.legend(fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_title("time: both grow as T²")
    axes[1].set_title("memory: the (T, T) weights are the difference")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "bench", help="folder for the CSV and the figure")
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    devices = [torch.device("cpu")] + ([torch.device("cuda")] if torch.cuda.is_available() else [])
    with torch.inference_mode():
        rows = [row for device in devices for row in measure(device)]
    report(rows)
    with open(out / "attention_growth.csv", "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({**r, "ms": f"{r['ms']:.3f}", "peak_MiB": f"{r['peak_MiB']:.2f}"} for r in rows)
    plot(rows, out / "attention_growth.png")
    print(f"wrote {out / 'attention_growth.csv'} and {out / 'attention_growth.png'}")


if __name__ == "__main__":
    main()
