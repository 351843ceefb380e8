import torch

import anatomy


def test_setup_notebook_seeds_and_reports(capsys):
    device = anatomy.setup_notebook(seed=123)
    first = torch.rand(3)
    anatomy.setup_notebook(seed=123)
    assert torch.equal(first, torch.rand(3))
    out = capsys.readouterr().out
    assert f"device: {device}" in out
    assert f"torch {torch.__version__}" in out
    assert device == anatomy.pick_device()
    if device.type == "cpu":
        assert "No GPU found" in out
