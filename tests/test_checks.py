"""The shared checkers: each refuses what it must and names it; each lets the good values through."""
import pytest
import torch

from anatomy.checks import (check_batches, check_device, check_integer, check_labels, check_number,
                            check_padding_side, check_scores)


def test_integers_refuse_floats_bools_and_out_of_range_values():
    assert check_integer("n", 3) == 3 and check_integer("n", 0, least=0) == 0
    for bad, message in ((2.5, r"n must be an integer >= 1, got 2.5"), (True, "got True"), (0, "got 0"),
                         ("3", "got '3'")):
        with pytest.raises(ValueError, match=message):
            check_integer("n", bad)
    with pytest.raises(ValueError, match=r"n must be an integer in \[0, 4\], got 5 \(a hint\)"):
        check_integer("n", 5, least=0, most=4, hint=" (a hint)")


def test_numbers_refuse_nan_inf_bools_and_out_of_range_values():
    assert check_number("x", 0.5, above=0, below=1) == 0.5 and check_number("x", 2) == 2.0
    for bad in (float("nan"), float("inf"), True, None, "0.1"):
        with pytest.raises(ValueError, match=f"x must be a finite number, got {bad!r}"):
            check_number("x", bad)
    with pytest.raises(ValueError, match=r"x must be a finite number > 0 and < 1, got 1.5"):
        check_number("x", 1.5, above=0, below=1)
    with pytest.raises(ValueError, match=r"x must be a finite number >= 0 and <= 1, got -0.1"):
        check_number("x", -0.1, at_least=0, at_most=1)


def test_scores_with_nothing_to_pick_are_refused():
    check_scores(torch.tensor([[0.0, float("-inf"), 2.0]]))  # -inf is a masked-out choice: fine
    for row in ([float("nan"), 1.0], [float("inf"), 1.0], [float("-inf"), float("-inf")]):
        with pytest.raises(ValueError, match=r"logits hold NaN, \+inf, or only -inf in row\(s\) \[1\]"):
            check_scores(torch.tensor([[0.0, 1.0], row]))
    with pytest.raises(ValueError, match="logits must be a floating-point"):
        check_scores(torch.tensor([[1, 2]]))


def test_labels_must_be_one_integer_per_example():
    check_labels(torch.tensor([0, 2, 1]), 3, num_classes=3)
    with pytest.raises(ValueError, match=r"labels must be a \(3,\) integer tensor.*got shape \(3, 1\).*labels.flatten\(\)"):
        check_labels(torch.tensor([[0], [2], [1]]), 3)
    with pytest.raises(ValueError, match=r"got shape \(3,\) and dtype torch.float32"):
        check_labels(torch.tensor([0.0, 1.0, 1.0]), 3)
    with pytest.raises(ValueError, match="labels must lie in 0..1, got values from 0 to 2"):
        check_labels(torch.tensor([0, 2, 1]), 3, num_classes=2)
    with pytest.raises(TypeError, match=r"labels must be a \(3,\) integer tensor, got list"):
        check_labels([0, 1, 1], 3)


def test_padding_sides():
    check_padding_side(torch.tensor([[0, 1, 1], [1, 1, 1]]), "left", "mask")
    check_padding_side(torch.tensor([[1, 1, 0], [1, 1, 1]]), "right", "mask")
    with pytest.raises(ValueError, match=r"row\(s\) \[0\] of mask are not padded on the left: why"):
        check_padding_side(torch.tensor([[1, 0, 1], [1, 1, 1]]), "left", "mask", "why")
    with pytest.raises(ValueError, match=r"row\(s\) \[1\] of mask are not padded on the right"):
        check_padding_side(torch.tensor([[1, 1, 0], [0, 1, 1]]), "right", "mask")
    with pytest.raises(ValueError, match=r"row\(s\) \[1\] of mask are all padding"):
        check_padding_side(torch.tensor([[1, 1], [0, 0]]), None, "mask")
    with pytest.raises(ValueError, match=r"mask must be a \(B, T\) mask of 1s .*values \[0, 1, 2\]"):
        check_padding_side(torch.tensor([[1, 2], [0, 1]]), None, "mask")


def test_batches_need_one_full_batch():
    assert check_batches(10, 10, "the set") == 10
    with pytest.raises(ValueError, match=r"the set is empty \(0 examples\): there is nothing to batch"):
        check_batches(0, 4, "the set")
    with pytest.raises(ValueError, match=r"batch_size \(2000\) is larger than the 1437 examples of the set.*<= 1437"):
        check_batches(1437, 2000, "the set")
    with pytest.raises(ValueError, match="batch_size must be an integer >= 1, got 0"):
        check_batches(10, 0, "the set")


def test_devices_that_this_machine_lacks(monkeypatch):
    assert check_device(None) == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match=r"device='cuda' was asked for, but torch finds no cuda device on this "
                                         r"machine .*pass device='cpu', or anatomy.pick_device\(\)"):
        check_device("cuda")
    with pytest.raises(ValueError, match=r"device must be 'cpu', 'cuda', 'cuda:0', 'mps' or a torch.device, got 'gpu'"):
        check_device("gpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(ValueError, match=r"device='cuda:3' was asked for, but this machine has 1 CUDA device"):
        check_device("cuda:3")


def test_check_padding_side_names_a_mask_that_is_no_tensor():
    # None raised AttributeError: 'NoneType' object has no attribute 'dim' (found by the sweep, #37)
    with pytest.raises(TypeError, match="attention_mask must be a tensor, got NoneType"):
        check_padding_side(None, "left", "attention_mask")
    with pytest.raises(TypeError, match="src_mask must be a tensor, got list"):
        check_padding_side([[1, 1, 0]], "right", "src_mask")
