"""Flash-style tiled attention: exact softmax attention without ever holding the (Tq, Tk) matrix.

Taught in: 13_efficient_attention.  Shapes: ... any leading (batch, head) dims, Tq queries,
Tk keys, Dh width, Bq / Bk the rows / columns of one tile (block_size, the last tile may be smaller).

The idea of FlashAttention (Dao et al., 2022), in plain PyTorch loops: walk over the keys one block
at a time and keep, per query, a running maximum m, a running sum l of exp(score − m) and a running
weighted sum of values. When a new block raises the maximum, the old sums are rescaled by
exp(m_old − m_new). After the last block, output = weighted sum / l: the same numbers as a softmax
over all keys at once, but the largest score matrix alive is one (Bq, Bk) tile.
"""
from __future__ import annotations

import math

import torch

from anatomy.layers.attention import check_qkv
from anatomy.checks import check_integer, check_tensor


def tile_positions(start: int, size: int, device: torch.device) -> torch.Tensor:
    return torch.arange(start, start + size, device=device)


def online_softmax_step(scores: torch.Tensor, values: torch.Tensor, running_max: torch.Tensor,
                        running_sum: torch.Tensor, running_output: torch.Tensor
                        ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Fold one tile of scores (..., Bq, Bk) and its values (..., Bk, Dv) into the running
    (max (..., Bq), sum (..., Bq), output (..., Bq, Dv)). Scores of -inf are masked-out keys."""
    for name, tensor in (("scores", scores), ("values", values), ("running_max", running_max),
                         ("running_sum", running_sum), ("running_output", running_output)):
        if check_tensor(name, tensor, floating=True).dtype != scores.dtype:
            raise ValueError(f"{name} must have the dtype of scores ({scores.dtype}), got {tensor.dtype}")
    new_max = torch.maximum(running_max, scores.amax(dim=-1))  # (..., Bq)
    safe_max = new_max.masked_fill(new_max == float("-inf"), 0.0)  # a row with nothing allowed yet
    exp_scores = torch.exp(scores - safe_max.unsqueeze(-1))  # (..., Bq, Bk), masked keys -> 0
    rescale = torch.exp(running_max - safe_max)  # (..., Bq): how much the old sums shrink
    running_sum = running_sum * rescale + exp_scores.sum(dim=-1)  # (..., Bq)
    running_output = running_output * rescale.unsqueeze(-1) + exp_scores @ values  # (..., Bq, Dv)
    return new_max, running_sum, running_output


def tiled_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                    block_size: int = 128, causal: bool = False) -> tuple[torch.Tensor, None]:
    """softmax(Q Kᵀ / √Dh) V computed tile by tile. Returns (output (..., Tq, Dv), None).

    Like anatomy.scaled_dot_product_attention it returns a pair, but the weights are always None:
    the whole point is that the (Tq, Tk) weights never exist. `causal` uses anatomy.causal_mask's
    convention (query i sees keys 0 .. i + Tk − Tq); a query with no key to see gets zeros.
    `block_size` tiles both the queries and the keys and need not divide T.
    """
    check_integer("block_size", block_size)
    check_qkv(query, key, value)  # the checks of 03's attention: same dtype and device, widths and lengths agree
    num_queries, num_keys = query.size(-2), key.size(-2)
    query = query / math.sqrt(query.size(-1))  # scale once, not once per tile
    output = query.new_empty(*query.shape[:-1], value.size(-1))  # (..., Tq, Dv)
    for q_start in range(0, num_queries, block_size):
        q_tile = query[..., q_start:q_start + block_size, :]  # (..., Bq, Dh)
        rows = q_tile.size(-2)
        running_max = q_tile.new_full(q_tile.shape[:-1], float("-inf"))  # (..., Bq)
        running_sum = q_tile.new_zeros(q_tile.shape[:-1])  # (..., Bq)
        running_output = q_tile.new_zeros(*q_tile.shape[:-1], value.size(-1))  # (..., Bq, Dv)
        last_visible_key = q_start + rows - 1 + num_keys - num_queries  # of this tile's last query
        for k_start in range(0, num_keys, block_size):
            if causal and k_start > last_visible_key:
                break  # every later tile lies above the diagonal
            k_tile = key[..., k_start:k_start + block_size, :]  # (..., Bk, Dh)
            scores = q_tile @ k_tile.transpose(-2, -1)  # (..., Bq, Bk): the only scores alive
            if causal:
                query_pos = tile_positions(q_start + num_keys - num_queries, rows, query.device)
                key_pos = tile_positions(k_start, k_tile.size(-2), query.device)
                scores = scores.masked_fill(key_pos[None, :] > query_pos[:, None], float("-inf"))
            running_max, running_sum, running_output = online_softmax_step(
                scores, value[..., k_start:k_start + block_size, :], running_max, running_sum, running_output)
        safe_sum = running_sum.masked_fill(running_sum == 0, 1.0)  # no visible key: output stays 0
        output[..., q_start:q_start + rows, :] = running_output / safe_sum.unsqueeze(-1)
    return output, None
