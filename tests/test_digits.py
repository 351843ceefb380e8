"""anatomy.digits: the fixed split of scikit-learn's digits, the shifts, the MLP baseline."""
import torch
from sklearn.datasets import load_digits

import pytest
import torch.nn.functional as F

from anatomy.digits import load_digits_split, pixel_mlp, shift_randomly, training_batches


def test_split_is_fixed_stratified_and_covers_every_image_once():
    split, again = load_digits_split(), load_digits_split()
    assert split.train_images.shape == (1437, 1, 8, 8) and split.test_images.shape == (360, 1, 8, 8)
    assert torch.equal(split.test_images, again.test_images)
    assert split.train_images.max() == 1.0 and split.train_images.min() == 0.0
    assert torch.bincount(split.test_labels).min() >= 35  # stratified: every digit about 36 times
    everything = torch.cat([split.train_images, split.test_images]).flatten(1) * 16  # (1797, 64)
    original = torch.tensor(load_digits().data, dtype=torch.float32)  # (1797, 64)
    assert sorted(map(tuple, everything.tolist())) == sorted(map(tuple, original.tolist()))


def test_shift_moves_each_image_by_at_most_one_pixel_with_zero_fill():
    images = torch.rand(50, 1, 8, 8)
    shifted = shift_randomly(images, torch.Generator().manual_seed(0))
    for image, moved in zip(images, shifted):
        candidates = []
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                expected = torch.zeros_like(image)
                rows, cols = slice(max(dy, 0), 8 + min(dy, 0)), slice(max(dx, 0), 8 + min(dx, 0))
                source_rows, source_cols = slice(max(-dy, 0), 8 + min(-dy, 0)), slice(max(-dx, 0), 8 + min(-dx, 0))
                expected[:, rows, cols] = image[:, source_rows, source_cols]
                candidates.append(torch.equal(moved, expected))
        assert sum(candidates) == 1


@pytest.mark.parametrize("max_shift, channels", [(1, 1), (2, 3)])
def test_shift_of_the_whole_batch_equals_shifting_image_by_image(max_shift, channels):
    """The one-gather version against a plain loop that slices each padded image, same draws."""
    images = torch.rand(200, channels, 8, 8)
    shifted = shift_randomly(images, torch.Generator().manual_seed(1), max_shift)
    generator = torch.Generator().manual_seed(1)
    offsets = torch.randint(0, 2 * max_shift + 1, (200, 2), generator=generator)
    padded = F.pad(images, [max_shift] * 4)
    for image, moved, (dy, dx) in zip(padded, shifted, offsets.tolist()):
        assert torch.equal(moved, image[:, dy:dy + 8, dx:dx + 8])
    assert len(set(map(tuple, offsets.tolist()))) == (2 * max_shift + 1) ** 2  # every shift was drawn


def test_batches_are_reproducible_and_labelled():
    split = load_digits_split()
    first = next(training_batches(split, batch_size=16, seed=3, augment=False))
    again = next(training_batches(split, batch_size=16, seed=3, augment=False))
    assert torch.equal(first[0], again[0]) and torch.equal(first[1], again[1])
    for image, label in zip(*first):
        index = (split.train_images == image).flatten(1).all(1).nonzero()[0]
        assert split.train_labels[index].item() == label.item()


def test_mlp_baseline_shape_and_size():
    mlp = pixel_mlp(hidden_size=280)
    assert mlp(torch.zeros(3, 1, 8, 8)).shape == (3, 10)
    assert sum(p.numel() for p in mlp.parameters()) == 64 * 280 + 280 + 280 * 280 + 280 + 280 * 10 + 10
