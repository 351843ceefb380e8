from pathlib import Path

import pytest
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


@pytest.mark.parametrize("seed", ["0", -1, 2**32, 1.5])
def test_seed_must_be_a_numpy_compatible_integer(seed):
    from anatomy import seed_everything

    with pytest.raises(ValueError, match=r"seed must be an integer in \[0, 2\*\*32\)"):
        seed_everything(seed)


def test_a_korean_notebook_runs_in_the_english_folder(tmp_path, monkeypatch, capsys):
    """A student runs notebooks/ko/NN_x.ipynb there: the setup moves to notebooks/, so the code cells' paths
    (../images/...) mean what they mean in the English twin. Any other folder named ko stays put."""
    korean = tmp_path / "notebooks" / "ko"
    korean.mkdir(parents=True)
    monkeypatch.chdir(korean)
    anatomy.setup_notebook(seed=0)
    assert Path.cwd() == tmp_path / "notebooks"
    assert "the Korean edition runs where the English one does" in capsys.readouterr().out
    elsewhere = tmp_path / "other" / "ko"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    anatomy.setup_notebook(seed=0)
    assert Path.cwd() == elsewhere
