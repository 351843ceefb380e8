"""Known-good parts for homework 1 (notebook 08): what a check puts in place of a wrong earlier answer,
so a mistake costs only its own question. The trusted grader sends this module to its child as
source; it must import only torch and the course package (never anatomy.homework).
"""
from __future__ import annotations

from anatomy.layers.masks import padding_mask
from anatomy.layers.multihead import MultiHeadAttention


class KnownGoodCrossAttention(MultiHeadAttention):
    """anatomy's tested attention behind question 3's signature: forward(x, memory, key_mask=None)."""

    def __init__(self, config) -> None:
        super().__init__(config)
        self.config = config

    def forward(self, x, memory, key_mask=None, need_weights=True):
        return super().forward(x, memory, mask=None if key_mask is None else padding_mask(key_mask))


def known_good_layer_forward(self, x, memory, self_mask=None, memory_mask=None, need_weights=True):
    """Question 4's post-LN step over the layer's own modules and weights: what question 5's check runs in
    place of a wrong forward, so the swap is graded on the weights it really put in each layer."""
    key_mask = None if memory_mask is None else memory_mask[:, 0, 0, :]  # (B, Ts)
    attended, self_weights = self.self_attn(x, mask=self_mask)
    x = self.layer_norm_1(x + attended)
    attended, cross_weights = self.cross_attn(x, memory, key_mask)
    x = self.layer_norm_2(x + attended)
    return self.layer_norm_3(x + self.feed_forward(x)), self_weights, cross_weights
