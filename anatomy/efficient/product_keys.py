"""Product-key memory (Lample et al., 2019): find the best k of N = n² keys while scoring only 2n.

Taught in: 13_efficient_attention.  Shapes: ... any leading dims of queries, Dq query width
(split into two halves of Dq/2), n = √N sub-keys per half, k the top-k, Dv value width.

Every full key is a pair (a sub-key from set 1, a sub-key from set 2) glued end to end, so its score
with a query is score₁(first half) + score₂(second half). The best k full keys can only use
sub-keys that are in the top k of their own half, so scoring the k × k pairs of those suffices:
2n + k² scores instead of N = n², and the result is exactly the brute-force top k.
"""
from __future__ import annotations

import math

import torch
from torch import nn

from anatomy.checks import check_tensor
from anatomy.checks import check_integer, check_scores


def check_top_k(top_k: int, num_sub_keys: int) -> None:
    check_integer("num_sub_keys", num_sub_keys)
    if not isinstance(top_k, int) or isinstance(top_k, bool) or not 1 <= top_k <= num_sub_keys:
        raise ValueError(f"top_k must be an integer between 1 and the {num_sub_keys} sub-keys per half "
                         f"(the candidates each half offers), got {top_k!r}")


def check_product_keys(query: torch.Tensor, sub_keys_1: torch.Tensor, sub_keys_2: torch.Tensor) -> None:
    """Two (n, Dq/2) sub-key sets of one shape, and queries (..., Dq) whose halves fit them."""
    check_tensor("sub_keys_1", sub_keys_1, rank=2, floating=True, shape="(n, Dq/2)")
    check_tensor("sub_keys_2", sub_keys_2, rank=2, floating=True, shape="(n, Dq/2)")
    if sub_keys_1.shape != sub_keys_2.shape:
        raise ValueError(f"sub_keys_1 and sub_keys_2 must have one shape (n, Dq/2), got {tuple(sub_keys_1.shape)} and "
                         f"{tuple(sub_keys_2.shape)}")
    check_tensor("query", query, floating=True)
    if query.dim() == 0 or query.size(-1) != 2 * sub_keys_1.size(1):
        raise ValueError(f"query must be (..., Dq) with Dq = 2 x the sub-key width = {2 * sub_keys_1.size(1)}, "
                         f"got shape {tuple(getattr(query, 'shape', ()))}")


def product_key_top_k(query: torch.Tensor, sub_keys_1: torch.Tensor, sub_keys_2: torch.Tensor,
                      top_k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(..., Dq) queries against (n, Dq/2) sub-key sets -> (scores (..., k), indices (..., k)) of the
    best k full keys, best first; full key i·n + j is sub_keys_1[i] glued to sub_keys_2[j]."""
    check_product_keys(query, sub_keys_1, sub_keys_2)
    num_sub_keys = sub_keys_1.size(0)
    check_top_k(top_k, num_sub_keys)
    query_1, query_2 = query.chunk(2, dim=-1)  # (..., Dq/2) each
    scores_1, best_1 = (query_1 @ sub_keys_1.T).topk(top_k, dim=-1)  # (..., k) of n
    scores_2, best_2 = (query_2 @ sub_keys_2.T).topk(top_k, dim=-1)  # (..., k) of n
    candidates = (scores_1[..., :, None] + scores_2[..., None, :]).flatten(-2)  # (..., k*k)
    check_scores(candidates, "the product-key scores")  # never pick the "best" keys from NaN
    scores, best = candidates.topk(top_k, dim=-1)  # (..., k) of k*k
    indices = best_1.gather(-1, best // top_k) * num_sub_keys + best_2.gather(-1, best % top_k)
    return scores, indices  # (..., k), (..., k)


def all_product_keys(sub_keys_1: torch.Tensor, sub_keys_2: torch.Tensor) -> torch.Tensor:
    """The N = n² full keys (N, Dq) that the sub-key sets stand for; row i·n + j = [sub_keys_1[i], sub_keys_2[j]]."""
    n = check_tensor("sub_keys_1", sub_keys_1, rank=2, floating=True, shape="(n, Dq/2)").size(0)
    check_tensor("sub_keys_2", sub_keys_2, rank=2, floating=True, shape="(n, Dq/2)")
    return torch.cat([sub_keys_1.repeat_interleave(n, dim=0), sub_keys_2.repeat(n, 1)], dim=-1)  # (N, Dq)


class ProductKeyMemory(nn.Module):
    """A memory of N = n² learned values, read through product keys: the top-k values, weighted by
    the softmax of their scores. forward(query (..., Dq)) -> (output (..., Dv), weights (..., k), indices (..., k))."""

    def __init__(self, query_dim: int, num_keys: int, value_dim: int, top_k: int = 32) -> None:
        super().__init__()
        for name, value in (("query_dim", query_dim), ("num_keys", num_keys), ("value_dim", value_dim)):
            check_integer(name, value)
        num_sub_keys = math.isqrt(num_keys)
        if num_sub_keys ** 2 != num_keys:
            raise ValueError(f"num_keys must be a perfect square (n sub-keys per half, n² keys), got {num_keys}")
        if query_dim % 2:
            raise ValueError(f"query_dim must be even (two halves), got {query_dim}")
        check_top_k(top_k, num_sub_keys)
        self.top_k = top_k
        self.sub_keys_1 = nn.Parameter(torch.randn(num_sub_keys, query_dim // 2) / math.sqrt(query_dim))
        self.sub_keys_2 = nn.Parameter(torch.randn(num_sub_keys, query_dim // 2) / math.sqrt(query_dim))
        self.values = nn.Embedding(num_keys, value_dim)  # (N, Dv); the paper uses a sparse EmbeddingBag

    def forward(self, query: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        scores, indices = product_key_top_k(query, self.sub_keys_1, self.sub_keys_2, self.top_k)  # (..., k)
        weights = torch.softmax(scores, dim=-1)  # (..., k)
        output = (weights.unsqueeze(-1) * self.values(indices)).sum(dim=-2)  # (..., Dv)
        return output, weights, indices
