"""The images of notebook 14: scikit-learn's 8 x 8 handwritten digits, a fixed split, and the recipe.

Taught in: 14_vision_transformer.  Shapes: B batch, C = 1 channel, S = 8 pixels a side, L = 10 labels.
1,797 greyscale digits ship inside scikit-learn's wheel (no download). A stratified 80/20 split with
a fixed seed gives 1,437 training and 360 test images. The ViT (anatomy.models.vit) and a same-size MLP
baseline train here with one recipe through anatomy.tasks.training.train.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import count

import torch
import torch.nn.functional as F
from torch import nn

from anatomy.checks import (check_batches, check_device, check_integer, check_labels, check_number, check_scores,
                            check_tensor, check_type)
from anatomy.tasks.training import TrainingRun, train

SPLIT_SEED = 0


@dataclass
class DigitsSplit:
    train_images: torch.Tensor  # (1437, 1, 8, 8), pixel values scaled to [0, 1]
    train_labels: torch.Tensor  # (1437,)
    test_images: torch.Tensor  # (360, 1, 8, 8)
    test_labels: torch.Tensor  # (360,)


def load_digits_split(device: torch.device | str | None = None) -> DigitsSplit:
    device = check_device(device)
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    images = torch.tensor(digits.images, dtype=torch.float32)[:, None] / 16.0  # (1797, 1, 8, 8)
    labels = torch.tensor(digits.target)
    train_idx, test_idx = train_test_split(range(len(labels)), test_size=0.2, random_state=SPLIT_SEED,
                                           stratify=digits.target)
    parts = images[train_idx], labels[train_idx], images[test_idx], labels[test_idx]
    return DigitsSplit(*(part.to(device) for part in parts))


def shift_randomly(images: torch.Tensor, generator: torch.Generator, max_shift: int = 1) -> torch.Tensor:
    """Move each image by up to `max_shift` pixels up/down and left/right, filling with 0 (paper).
    The zero-padded image holds (2m + 1)^2 windows of S x S pixels, one per shift; each image
    picks one, for the whole batch at once."""
    check_integer("max_shift", max_shift, least=0)
    if not isinstance(images, torch.Tensor) or images.dim() != 4:
        raise ValueError(f"images must be a batch (B, C, S, S), got shape {tuple(getattr(images, 'shape', ()))}")
    size = images.size(-1)
    padded = F.pad(images, [max_shift] * 4)  # (B, C, S + 2m, S + 2m)
    windows = padded.unfold(2, size, 1).unfold(3, size, 1)  # (B, C, 2m + 1, 2m + 1, S, S): views, no copy
    offsets = torch.randint(0, 2 * max_shift + 1, (images.size(0), 2), generator=generator).to(images.device)
    picked = torch.arange(images.size(0), device=images.device)  # (B,)
    return windows[picked, :, offsets[:, 0], offsets[:, 1]]  # (B, C, S, S)


def training_batches(split: DigitsSplit, batch_size: int = 128, seed: int = 0,
                     augment: bool = True) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """Shuffled (images, labels) batches forever, a new order each epoch, each image shifted by up to
    one pixel when `augment` (cheap data: 1,437 images are few for a Transformer). A split smaller
    than one batch is refused at once: it would loop forever without a batch to yield."""
    check_batches(len(check_type("split", split, DigitsSplit).train_labels), batch_size, "the training split")
    return _batches(split, batch_size, torch.Generator().manual_seed(check_integer("seed", seed, least=0)), augment)


def _batches(split: DigitsSplit, batch_size: int, generator: torch.Generator,
             augment: bool) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    for _ in count():
        order = torch.randperm(len(split.train_labels), generator=generator).to(split.train_labels.device)
        for start in range(0, len(order) - batch_size + 1, batch_size):
            picked = order[start:start + batch_size]
            images = split.train_images[picked]
            yield (shift_randomly(images, generator) if augment else images), split.train_labels[picked]


def logits_of(model: nn.Module, images: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """(B, L) logits of `images`, once `labels` is one class in 0..L-1 per image, (B,)."""
    check_tensor("images", images, rank=4, floating=True, shape="(B, C, S, S)")
    output = check_type("model", model, nn.Module)(images)
    logits = output.logits if hasattr(output, "logits") else output  # (B, L)
    check_labels(labels, logits.size(0), logits.size(-1))
    return logits


def classification_loss(model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    if len(check_type("batch", batch, tuple, list, what="an (images, labels) pair")) != 2:
        raise ValueError(f"batch must be an (images, labels) pair, got {len(batch)} item(s)")
    images, labels = batch
    return F.cross_entropy(logits_of(model, images, labels), labels)


def train_digits(model: nn.Module, split: DigitsSplit, steps: int = 800, batch_size: int = 128,
                 peak_lr: float = 3e-3, warmup_steps: int = 100, weight_decay: float = 0.05,
                 seed: int = 0, augment: bool = True, progress: bool = True) -> TrainingRun:
    """Notebook 14's recipe for the ViT and the MLP alike: AdamW with warm-up then linear decay."""
    batches = training_batches(split, batch_size, seed, augment)  # checks batch_size against the split first
    optimizer = torch.optim.AdamW(model.parameters(), lr=check_number("peak_lr", peak_lr, above=0),
                                  weight_decay=check_number("weight_decay", weight_decay, at_least=0))
    return train(model, batches, classification_loss, steps, optimizer=optimizer, warmup_steps=warmup_steps,
                 progress=progress)


@torch.no_grad()
def accuracy(model: nn.Module, images: torch.Tensor, labels: torch.Tensor) -> float:
    """The fraction of `images` whose predicted class is their (B,) label."""
    check_type("model", model, nn.Module).eval()
    logits = logits_of(model, images, labels)
    check_scores(logits)  # an argmax of NaN logits is no prediction
    return (logits.argmax(-1) == labels).float().mean().item()


def pixel_mlp(hidden_size: int, num_layers: int = 2, pixels: int = 64, num_labels: int = 10) -> nn.Sequential:
    """The baseline: flattened pixels -> `num_layers` hidden GELU layers -> labels. It sees the image
    as 64 unrelated numbers: no patches, no notion of which pixels are neighbours."""
    for name, value in (("hidden_size", hidden_size), ("pixels", pixels), ("num_labels", num_labels)):
        check_integer(name, value)
    check_integer("num_layers", num_layers, least=0)
    layers: list[nn.Module] = [nn.Flatten()]
    width = pixels
    for _ in range(num_layers):
        layers += [nn.Linear(width, hidden_size), nn.GELU()]
        width = hidden_size
    return nn.Sequential(*layers, nn.Linear(width, num_labels))
