"""Attention at scale, measured: python benchmarks/efficient.py (part of make bench).

  E1  tiled (flash-style) attention vs naive attention, 1 sequence, 12 heads x 64, T = 4096:
      peak memory ratio (goal <= 1/20), time ratio (reported as it is: Python loops over tiles),
      the time of PyTorch's fused F.scaled_dot_product_attention beside both (notebook 13's appendix),
      and the output's largest difference from F.scaled_dot_product_attention (goal <= 1e-5).
  E2  product-key top-k vs brute-force top-k over all N = 65,536 keys, 1,024 queries of width 256,
      k = 32: time and peak-memory ratios, and how often both found the same keys.
Times are medians of calls timed alternately (bench.paired_ratio); peak memory is replayed from
torch.profiler's allocation events (growth.cpu_peak_bytes), the method of growth.py. Never a timed test.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from anatomy.layers.attention import scaled_dot_product_attention
from anatomy.efficient.product_keys import all_product_keys, product_key_top_k
from anatomy.efficient.tiled_attention import tiled_attention
from bench import paired_ratio
from growth import cpu_peak_bytes

HEADS, HEAD_DIM, LENGTH, BLOCK = 12, 64, 4096, 128
NUM_KEYS, QUERY_DIM, NUM_QUERIES, TOP_K = 65_536, 256, 1024, 32


def peak_mib(run, *inputs) -> float:
    return cpu_peak_bytes(lambda *args: run(*args), *inputs) / 2**20


def e1() -> None:
    q, k, v = torch.randn(3, 1, HEADS, LENGTH, HEAD_DIM).unbind(0)  # each (1, H, T, Dh)
    naive = lambda q, k, v: scaled_dot_product_attention(q, k, v)[0]  # noqa: E731
    tiled = lambda q, k, v: tiled_attention(q, k, v, block_size=BLOCK)[0]  # noqa: E731
    difference = (tiled(q, k, v) - F.scaled_dot_product_attention(q, k, v)).abs().max().item()
    ratio, tiled_s, naive_s = paired_ratio(lambda: tiled(q, k, v), lambda: naive(q, k, v), repeats=5)
    fused_ratio, _, fused_s = paired_ratio(lambda: tiled(q, k, v), lambda: F.scaled_dot_product_attention(q, k, v),
                                           repeats=5)
    tiled_mib, naive_mib = peak_mib(tiled, q, k, v), peak_mib(naive, q, k, v)
    memory_ratio = tiled_mib / naive_mib
    print(f"E1 tiled / naive attention, 1 x {HEADS} heads x {HEAD_DIM}, T = {LENGTH}, block {BLOCK}")
    print(f"   peak memory  tiled {tiled_mib:8.1f} MiB  naive {naive_mib:8.1f} MiB  ratio 1/{1 / memory_ratio:.0f}"
          f"  goal <= 1/20 {'met' if memory_ratio <= 1 / 20 else 'MISSED'}")
    print(f"   time         tiled {tiled_s * 1e3:8.1f} ms   naive {naive_s * 1e3:8.1f} ms   ratio {ratio:.2f}")
    print(f"   fused        F.scaled_dot_product_attention {fused_s * 1e3:8.1f} ms   tiled / fused {fused_ratio:.1f}")
    print(f"   max |tiled - F.scaled_dot_product_attention| = {difference:.1e}"
          f"  goal <= 1e-5 {'met' if difference <= 1e-5 else 'MISSED'}")


def e2() -> None:
    num_sub_keys = int(NUM_KEYS ** 0.5)
    sub_keys_1, sub_keys_2 = torch.randn(2, num_sub_keys, QUERY_DIM // 2)
    all_keys = all_product_keys(sub_keys_1, sub_keys_2)  # (N, Dq), stored as brute force needs them
    queries = torch.randn(NUM_QUERIES, QUERY_DIM)
    product = lambda q: product_key_top_k(q, sub_keys_1, sub_keys_2, TOP_K)  # noqa: E731
    brute = lambda q: (q @ all_keys.T).topk(TOP_K, dim=-1)  # noqa: E731
    (product_scores, product_keys), (brute_scores, brute_keys) = product(queries), brute(queries)
    same_keys = (product_keys.sort(-1).values == brute_keys.sort(-1).values).all(-1).float().mean().item()
    score_difference = (product_scores - brute_scores).abs().max().item()
    ratio, product_s, brute_s = paired_ratio(lambda: product(queries), lambda: brute(queries), repeats=7)
    product_mib = cpu_peak_bytes(lambda q, *_: product(q), queries, None, None) / 2**20
    brute_mib = cpu_peak_bytes(lambda q, *_: brute(q), queries, None, None) / 2**20
    stored_ratio = (sub_keys_1.numel() + sub_keys_2.numel()) / all_keys.numel()
    print(f"E2 product-key / brute-force top-{TOP_K}, N = {NUM_KEYS:,} keys of width {QUERY_DIM}, "
          f"{NUM_QUERIES:,} queries")
    print(f"   time         product {product_s * 1e3:7.1f} ms   brute {brute_s * 1e3:8.1f} ms   ratio 1/{1 / ratio:.0f}")
    print(f"   peak memory  product {product_mib:7.1f} MiB  brute {brute_mib:8.1f} MiB  ratio 1/{brute_mib / product_mib:.0f}"
          f"  (stored keys: 1/{1 / stored_ratio:.0f})")
    print(f"   same top-{TOP_K} key set as brute force for {same_keys:.1%} of queries; max |score difference| "
          f"{score_difference:.1e} (float32 rounding can swap near-ties at rank {TOP_K})")


def main() -> None:
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, device cpu, inference mode\n")
    with torch.inference_mode():
        e1()
        e2()


if __name__ == "__main__":
    main()
