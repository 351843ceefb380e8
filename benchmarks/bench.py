"""Side-by-side speed ratios, measured in one run: python benchmarks/bench.py (or make bench).

Every figure is a ratio of two implementations timed alternately on the same inputs, so that a
noisy machine slows both alike. A ratio below 1 means ours is faster. Never a timed test.
  P1  our fused MultiHeadAttention vs torch.nn.MultiheadAttention, B=8 T=512 D=384  (goal <= 1.10)
  P2  our TransformerEncoder vs HF BertModel, default weights, B=8 T=128            (goal <= 1.00)
  P3  the per-head ModuleList teaching version vs our fused MultiHeadAttention (the price of clarity)
"""
from __future__ import annotations

import statistics
import time

import torch
from torch import nn

import anatomy
from anatomy.weights.torch_reference import copy_attention


def paired_ratio(ours, reference, repeats: int = 15) -> tuple[float, float, float]:
    """(median ours/reference ratio, median ours seconds, median reference seconds)."""
    ours(), reference()  # warm-up
    ratios, ours_times, reference_times = [], [], []
    for _ in range(repeats):
        start = time.perf_counter()
        ours()
        middle = time.perf_counter()
        reference()
        end = time.perf_counter()
        ours_times.append(middle - start)
        reference_times.append(end - middle)
        ratios.append((middle - start) / (end - middle))
    return statistics.median(ratios), statistics.median(ours_times), statistics.median(reference_times)


def multi_head_pair(batch: int, length: int, width: int = 384, heads: int = 12):
    config = anatomy.load_config()
    config.hidden_size, config.num_attention_heads = width, heads
    fused = anatomy.MultiHeadAttention(config).eval()
    reference = nn.MultiheadAttention(width, heads, batch_first=True).eval()
    copy_attention(fused, reference)
    x = torch.randn(batch, length, width)
    return fused, reference, x


def p1() -> tuple[float, float, float]:
    fused, reference, x = multi_head_pair(8, 512)
    return paired_ratio(lambda: fused(x, need_weights=False), lambda: reference(x, x, x, need_weights=False))


def p2() -> tuple[float, float, float]:
    tokenizer, model = anatomy.load_pretrained()
    ours = anatomy.TransformerEncoder.from_pretrained()
    ids = torch.randint(1000, 20000, (8, 128))
    mask = torch.ones_like(ids)
    mask[::2, 100:] = 0  # half the batch padded, as real batches are
    return paired_ratio(lambda: ours(ids, attention_mask=mask), lambda: model(input_ids=ids, attention_mask=mask))


def p3() -> tuple[float, float, float]:
    fused, _, x = multi_head_pair(8, 128)
    per_head = anatomy.PerHeadMultiHeadAttention(anatomy.load_config()).load_fused(fused).eval()
    return paired_ratio(lambda: per_head(x), lambda: fused(x, need_weights=False))


BENCHMARKS = {
    "P1 fused MHA / nn.MultiheadAttention (B=8,T=512,D=384)": (p1, 1.10),
    "P2 TransformerEncoder / HF BertModel (B=8,T=128)": (p2, 1.00),
    "P3 per-head ModuleList / fused MHA (B=8,T=128)": (p3, None),
}


def main() -> None:
    anatomy.display.notebook.quiet_libraries()
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, device cpu, inference mode\n")
    print(f"{'benchmark':<58}{'ours ms':>9}{'ref ms':>9}{'ratio':>8}  goal")
    with torch.inference_mode():
        for name, (run, goal) in BENCHMARKS.items():
            ratio, ours, reference = run()
            verdict = "-" if goal is None else f"<= {goal:.2f} {'met' if ratio <= goal else 'MISSED'}"
            print(f"{name:<58}{ours * 1e3:9.1f}{reference * 1e3:9.1f}{ratio:8.2f}  {verdict}")


if __name__ == "__main__":
    main()
