"""The building blocks every model here is made of: attention, masks, heads, feed-forward, embeddings,
and the modern block's RoPE, RMSNorm, SwiGLU, grouped-query attention and KV cache.

Taught in: 02_embeddings, 03_attention, 04_multi_head_attention, 05_encoder, 11_gpt (KV cache), 12_modern_block.
"""
from anatomy.layers.attention import check_qkv, scaled_dot_product_attention
from anatomy.layers.config import require, check_divisible, from_fields, check_model_sizes, check_layer_settings
from anatomy.layers.embeddings import (check_token_ids, Embeddings, check_even_width, sinusoidal_positions,
                                       position_shift_matrix, SinusoidalEmbeddings, LearnedPositionEmbeddings)
from anatomy.layers.feedforward import check_hidden_states, FeedForward
from anatomy.layers.gqa import GroupedQueryAttention
from anatomy.layers.kv_cache import LayerCache, KVCache, cache_memory_bytes
from anatomy.layers.masks import causal_mask, padding_mask, causal_padding_mask, accepted_mask_shapes, check_mask
from anatomy.layers.multihead import (check_attention_inputs, AttentionHead, PerHeadMultiHeadAttention,
                                      MultiHeadAttention)
from anatomy.layers.rmsnorm import RMSNorm
from anatomy.layers.rotary import rotary_frequencies, apply_rotary, check_rotary_inputs, pairs_from_halves
from anatomy.layers.swiglu import SwiGLU
