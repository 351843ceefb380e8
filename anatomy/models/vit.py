"""The Vision Transformer (Dosovitskiy et al., 2021): an image read as a sentence of patches.

Taught in: 14_vision_transformer.  Shapes: B batch, C channels, S image side (pixels), P patch
side, N = (S / P)^2 patches, D model width, L labels.
Image -> patches -> linear patch embeddings -> [CLS] + learned positions -> our pre-LN encoder
layers -> a final LayerNorm -> a linear classifier on [CLS]. Names follow Hugging Face's
ViTForImageClassification closely enough that loading its weights is a short table (anatomy.weights.vit_weights).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from anatomy.checks import check_tensor
from anatomy.checks import check_integer
from anatomy.layers.config import check_divisible, check_layer_settings, require
from anatomy.models.encoder import TransformerEncoderLayer
from anatomy.layers.feedforward import ACTIVATIONS

SIZES = ("image_size", "patch_size", "num_channels", "hidden_size", "num_hidden_layers", "num_attention_heads",
         "intermediate_size", "num_labels")


@dataclass
class VisionTransformerConfig:
    """Defaults: the ViT of notebook 14 for scikit-learn's 8 x 8 digits (HF's ViTConfig works too)."""
    image_size: int = 8  # side S of the square image, in pixels
    patch_size: int = 2  # side P of a square patch: 16 patches of 2 x 2 pixels
    num_channels: int = 1  # 1 for greyscale, 3 for RGB
    hidden_size: int = 64
    num_hidden_layers: int = 3
    num_attention_heads: int = 4
    intermediate_size: int = 128
    hidden_act: str = "gelu"
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.0
    layer_norm_eps: float = 1e-12  # HF's ViTConfig default, so its weights load unchanged
    num_labels: int = 10

    def __post_init__(self) -> None:
        require(self, *SIZES)
        check_divisible(self.hidden_size, self.num_attention_heads)
        if self.image_size % self.patch_size:
            raise ValueError(f"image_size ({self.image_size}) must be divisible by patch_size ({self.patch_size})")
        check_layer_settings(self, ACTIVATIONS)


def image_to_patches(images: torch.Tensor, patch_size: int) -> torch.Tensor:
    """(B, C, S, S) -> (B, N, C*P*P): patches in reading order (row by row), each flattened
    channel-first, the order a Conv2d's (D, C, P, P) kernel is stored in."""
    batch, channels, height, width = check_tensor("images", images, rank=4, floating=True, shape="(B, C, S, S)").shape
    if check_integer("patch_size", patch_size) > min(height, width) or height % patch_size or width % patch_size:
        raise ValueError(f"patch_size ({patch_size}) must divide the image sides ({height} x {width})")
    rows, cols = height // patch_size, width // patch_size
    patches = images.reshape(batch, channels, rows, patch_size, cols, patch_size)  # (B, C, S/P, P, S/P, P)
    patches = patches.permute(0, 2, 4, 1, 3, 5)  # (B, S/P, S/P, C, P, P)
    return patches.reshape(batch, rows * cols, channels * patch_size * patch_size)  # (B, N, C*P*P)


class PatchEmbedding(nn.Module):
    """Cut the image into P x P patches and map each to a D-wide vector with one shared linear layer
    (the same thing as a Conv2d with kernel = stride = P)."""

    def __init__(self, image_size: int, patch_size: int, num_channels: int, hidden_size: int) -> None:
        super().__init__()
        for name, size in (("image_size", image_size), ("patch_size", patch_size), ("num_channels", num_channels),
                           ("hidden_size", hidden_size)):
            check_integer(name, size)
        if patch_size < 1 or image_size % patch_size != 0:
            raise ValueError(f"image_size ({image_size}) must be divisible by patch_size ({patch_size})")
        self.image_size, self.patch_size, self.num_channels = image_size, patch_size, num_channels
        self.num_patches = (image_size // patch_size) ** 2
        self.projection = nn.Linear(num_channels * patch_size * patch_size, hidden_size)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        self.check_images(images)
        return self.projection(image_to_patches(images, self.patch_size))  # (B, N, D)

    def check_images(self, images: torch.Tensor) -> None:
        expected = (self.num_channels, self.image_size, self.image_size)
        if images.dim() != 4:
            raise ValueError(f"images must be a batch (B, C, S, S) = (B, {', '.join(map(str, expected))}), "
                             f"got {images.dim()} dims, shape {tuple(images.shape)}")
        if images.size(1) != self.num_channels:
            raise ValueError(f"images must have {self.num_channels} channel(s) (dim 1 of (B, C, S, S)), "
                             f"got {images.size(1)}, shape {tuple(images.shape)}")
        if tuple(images.shape[1:]) != expected:
            raise ValueError(f"images must be (B, {', '.join(map(str, expected))}), got shape {tuple(images.shape)}")


@dataclass
class ImageClassifierOutput:
    logits: torch.Tensor  # (B, L)
    attentions: tuple[torch.Tensor, ...] | None = None  # one (B, H, 1 + N, 1 + N) per layer


class VisionTransformer(nn.Module):
    """Patch embeddings, [CLS] + learned positions, pre-LN encoder layers, classifier on [CLS]."""

    def __init__(self, config: Any) -> None:
        super().__init__()
        require(config, *SIZES)
        self.config = config
        self.patch_embeddings = PatchEmbedding(config.image_size, config.patch_size, config.num_channels,
                                               config.hidden_size)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, config.hidden_size))  # (1, 1, D)
        self.position_embeddings = nn.Parameter(  # (1, 1 + N, D): one learned vector per place
            torch.zeros(1, 1 + self.patch_embeddings.num_patches, config.hidden_size))
        self.dropout = nn.Dropout(getattr(config, "hidden_dropout_prob", 0.0))
        self.layers = nn.ModuleList(TransformerEncoderLayer(config, norm_first=True)
                                    for _ in range(config.num_hidden_layers))
        self.final_norm = nn.LayerNorm(config.hidden_size, eps=getattr(config, "layer_norm_eps", 1e-12))
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        nn.init.trunc_normal_(self.position_embeddings, std=0.02)

    def forward(self, images: torch.Tensor, output_attentions: bool = False) -> ImageClassifierOutput:
        """images (B, C, S, S) -> logits (B, L); with output_attentions, each layer's weights."""
        patches = self.patch_embeddings(images)  # (B, N, D)
        cls = self.cls_token.expand(patches.size(0), -1, -1)  # (B, 1, D)
        x = self.dropout(torch.cat([cls, patches], dim=1) + self.position_embeddings)  # (B, 1 + N, D)
        attentions = []
        for layer in self.layers:
            x, weights = layer(x, need_weights=output_attentions)  # (B, 1 + N, D)
            attentions.append(weights)
        logits = self.classifier(self.final_norm(x)[:, 0])  # (B, L): read from [CLS] only
        return ImageClassifierOutput(logits, tuple(attentions) if output_attentions else None)
