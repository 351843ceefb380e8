"""anatomy.tasks.digits: the fixed split of scikit-learn's digits, the shifts, the MLP baseline."""
import torch
from sklearn.datasets import load_digits

import pytest
import torch.nn.functional as F

from anatomy.tasks.digits import load_digits_split, pixel_mlp, shift_randomly, training_batches


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


def test_batching_a_split_smaller_than_one_batch_raises_at_once_instead_of_spinning():
    from anatomy.tasks.digits import train_digits

    split = load_digits_split()
    with pytest.raises(ValueError, match=r"batch_size \(2000\) is larger than the 1437 examples of the training split"):
        training_batches(split, batch_size=2000)  # refused when asked for: no next() needed
    with pytest.raises(ValueError, match=r"batch_size \(2000\) is larger than the 1437 examples"):
        train_digits(pixel_mlp(8), split, batch_size=2000)  # used to loop forever
    with pytest.raises(ValueError, match="batch_size must be an integer >= 1, got 0"):
        training_batches(split, batch_size=0)  # refused when called, not at the first next()
    empty = type(split)(split.train_images[:0], split.train_labels[:0], split.test_images, split.test_labels)
    with pytest.raises(ValueError, match=r"the training split is empty \(0 examples\)"):
        training_batches(empty)


def test_recipe_settings_out_of_range():
    from anatomy.tasks.digits import train_digits

    split = load_digits_split()
    with pytest.raises(ValueError, match="peak_lr must be a finite number > 0, got -0.001"):
        train_digits(pixel_mlp(8), split, peak_lr=-1e-3)
    with pytest.raises(ValueError, match="max_shift must be an integer >= 0, got 1.5"):
        shift_randomly(split.train_images[:2], torch.Generator(), max_shift=1.5)
    with pytest.raises(ValueError, match="hidden_size must be an integer >= 1, got 0"):
        pixel_mlp(0)


def test_accuracy_refuses_labels_that_would_broadcast_and_nan_logits():
    from anatomy.tasks.digits import accuracy

    split, mlp = load_digits_split(), pixel_mlp(8)
    images, labels = split.test_images[:5], split.test_labels[:5]
    with pytest.raises(ValueError, match=r"labels must be a \(5,\) integer tensor, one class per example, got shape "
                                         r"\(5, 1\).*labels.flatten\(\)"):
        accuracy(mlp, images, labels[:, None])  # would compare 5 x 5 pairs
    with pytest.raises(ValueError, match=r"labels must be a \(5,\) integer tensor.*got shape \(4,\)"):
        accuracy(mlp, images, labels[:4])
    with torch.no_grad():
        mlp[-1].bias[3] = float("nan")
    with pytest.raises(ValueError, match=r"logits hold NaN"):
        accuracy(mlp, images, labels)


def test_a_device_this_machine_lacks_is_named(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="device='cuda' was asked for, but torch finds no cuda device"):
        load_digits_split("cuda")


@pytest.mark.parametrize("argument, value", [("split", None), ("seed", 2.5), ("seed", float("nan"))])
def test_training_batches_names_a_wrong_split_or_seed(argument, value):
    # None raised an AttributeError; a float seed torch's "manual_seed expected a long"
    from anatomy.tasks.digits import DigitsSplit
    images = torch.rand(4, 1, 8, 8)
    kwargs = {"split": DigitsSplit(images, torch.arange(4), images, torch.arange(4)), "batch_size": 2, "seed": 0, argument: value}
    with pytest.raises((TypeError, ValueError), match=argument):
        training_batches(**kwargs)


def test_logits_accuracy_and_loss_name_a_wrong_model_images_or_batch():
    # a None model raised "'NoneType' object is not callable" or AttributeError ('eval'); (1, B, C, S, S) or
    # integer images reached torch's matmul ("mat1 and mat2 shapes cannot be multiplied"); an empty batch
    # "not enough values to unpack" (found by the sweep, #37)
    from anatomy.tasks.digits import accuracy, classification_loss, logits_of

    model, images, labels = pixel_mlp(8).eval(), torch.rand(4, 1, 8, 8), torch.tensor([0, 1, 2, 3])
    wrong_images = r"images must be a floating-point \(B, C, S, S\) tensor, got a torch.(float32|int64) tensor of shape"
    for call, message in [(lambda: logits_of(None, images, labels), "model must be Module, got NoneType"),
                          (lambda: accuracy(None, images, labels), "model must be Module, got NoneType"),
                          (lambda: logits_of(model, images[None], labels), wrong_images),
                          (lambda: accuracy(model, (images * 16).long(), labels), wrong_images),
                          (lambda: logits_of(model, None, labels), "images must be a floating-point"),
                          (lambda: classification_loss(model, None), r"batch must be an \(images, labels\) pair, got NoneType"),
                          (lambda: classification_loss(model, ()), r"batch must be an \(images, labels\) pair, got 0 item"),
                          (lambda: classification_loss(None, (images, labels)), "model must be Module, got NoneType")]:
        with pytest.raises((TypeError, ValueError), match=message):
            call()
    assert classification_loss(model, (images, labels)).isfinite()
