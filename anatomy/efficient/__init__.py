"""Attention that costs less: tiled (flash-style), local and strided masks, adaptive span, persistent
memory, product keys.

Taught in: 13_efficient_attention.
"""
from anatomy.efficient.adaptive_span import span_mask, AdaptiveSpan
from anatomy.efficient.local_masks import key_offsets, local_mask, strided_mask
from anatomy.efficient.persistent_memory import feedforward_as_attention, PersistentMemoryAttention
from anatomy.efficient.product_keys import (check_top_k, check_product_keys, product_key_top_k, all_product_keys,
                                            ProductKeyMemory)
from anatomy.efficient.tiled_attention import tile_positions, online_softmax_step, tiled_attention
