"""tools/training_cache.py: notebook 07's train_dates calls run once per `make test`, and a kernel that reuses
the saved run goes on as one that trained: the same weights, buffers, gradients, record and random state.
The reference is the uncached train_dates, run from the same weights and random state."""
from __future__ import annotations

import copy
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy
import pytest
import torch

from anatomy.models.transformer import Transformer
from anatomy.tasks.dates import CharVocabulary
from anatomy.tasks.dates_translator import dates_config, train_dates
from anatomy.tasks.training import TrainingRun
from tools import training_cache

SMALL = {"steps": 3, "batch_size": 8, "warmup_steps": 1}


def model_and_vocab(seed: int = 0) -> tuple[Transformer, CharVocabulary]:
    vocab = CharVocabulary()
    torch.manual_seed(seed)
    return Transformer(dates_config(vocab)), vocab


def same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))


def test_a_reused_run_is_the_trained_one(tmp_path):
    model, vocab = model_and_vocab()
    state = training_cache.random_state()
    trained = copy.deepcopy(model)
    run = train_dates(trained, vocab, progress=False, **SMALL)
    once = training_cache.cached(train_dates, tmp_path)
    for expected in ({"trained": 1, "reused": 0}, {"trained": 1, "reused": 1}):
        training_cache.set_random_state(state)
        again = copy.deepcopy(model)
        got = once(again, vocab, progress=False, **SMALL)
        assert training_cache.counts(tmp_path) == expected
        assert same_weights(again, trained) and got.losses == run.losses and got.learning_rates == run.learning_rates
        assert all(torch.equal(a.grad, b.grad) for a, b in zip(again.parameters(), trained.parameters(), strict=True))
        assert all(torch.equal(a, b) for a, b in zip(again.buffers(), trained.buffers(), strict=True))
        assert not again.training, "train hands the model back in eval mode; a reused run must too"


def draws_while_training(model, vocab, steps: int, seed: int = 0, progress: bool = True) -> TrainingRun:
    """A stand-in for train_dates whose training draws from every random generator, as a run with dropout would."""
    with torch.no_grad():
        next(model.parameters()).add_(torch.rand(1).item() + numpy.random.rand() + random.random())
    return TrainingRun(losses=[float(steps)])


def test_a_reused_run_leaves_the_random_state_training_left(tmp_path):
    model, vocab = model_and_vocab()
    before = training_cache.random_state()
    direct = copy.deepcopy(model)
    draws_while_training(direct, vocab, steps=2)
    after = (torch.rand(3), numpy.random.rand(3), random.random())
    once = training_cache.cached(draws_while_training, tmp_path)
    for _ in range(2):
        training_cache.set_random_state(before)
        again = copy.deepcopy(model)
        once(again, vocab, steps=2)
        assert same_weights(again, direct)
        following = (torch.rand(3), numpy.random.rand(3), random.random())
        assert torch.equal(following[0], after[0]) and (following[1] == after[1]).all() and following[2] == after[2]
    assert training_cache.counts(tmp_path) == {"trained": 1, "reused": 1}


def changed_weight(model, vocab, arguments):
    with torch.no_grad():
        next(model.parameters()).view(-1)[0] += 1e-7
    return model, vocab, arguments


def frozen_embedding(model, vocab, arguments):
    model.src_embeddings.token_embeddings.weight.requires_grad_(False)
    return model, vocab, arguments


def changed_buffer(model, vocab, arguments):
    """The sinusoid table is a buffer that state_dict leaves out (persistent=False)."""
    model.src_embeddings.positions.mul_(1.0001)
    return model, vocab, arguments


def another_first_batch(model, vocab, arguments):
    from anatomy.tasks.dates_translator import training_batches
    return model, vocab, arguments, next(training_batches(vocab, 4, 1))


CHANGES = {
    "one weight by 1e-7": changed_weight,
    "a frozen parameter": frozen_embedding,
    "a buffer state_dict leaves out": changed_buffer,
    "the data's first batch": another_first_batch,
    "the thread count": lambda m, v, a: (torch.set_num_threads(2), (m, v, a))[1],
    "another vocabulary": lambda m, v, a: (m, CharVocabulary("0123456789-"), a),
    **{f"{name}": (lambda name, value: lambda m, v, a: (m, v, a | {name: value}))(name, value)
       for name, value in [("steps", 4), ("batch_size", 16), ("peak_lr", 1e-3), ("warmup_steps", 2),
                           ("label_smoothing", 0.0), ("seed", 1)]},
    "torch's random state": lambda m, v, a: (torch.rand(1), (m, v, a))[1],
    "numpy's random state": lambda m, v, a: (numpy.random.rand(), (m, v, a))[1],
    "Python's random state": lambda m, v, a: (random.random(), (m, v, a))[1],
}


@pytest.mark.parametrize("change", CHANGES)
def test_the_key_follows_each_input(change):
    model, vocab = model_and_vocab()
    arguments = {"batch_size": 128, "peak_lr": 5e-3, "warmup_steps": 100, "label_smoothing": 0.1, "seed": 0, "steps": 3}
    from anatomy.tasks.dates_translator import training_batches
    first, state, threads = next(training_batches(vocab, 4, 0)), training_cache.random_state(), torch.get_num_threads()
    base = training_cache.key(model, vocab, arguments, first)
    training_cache.set_random_state(state)
    assert training_cache.key(copy.deepcopy(model), CharVocabulary(), dict(arguments), first) == base, "the same inputs"
    try:
        changed = CHANGES[change](copy.deepcopy(model), vocab, dict(arguments))
        assert training_cache.key(*changed, *([first] if len(changed) == 3 else [])) != base, f"{change}: another key"
    finally:
        torch.set_num_threads(threads)


def test_a_kernel_that_imports_train_dates_gets_the_cached_one(tmp_path):
    """The startup file conftest.py writes, run as IPython runs it, before the module is imported."""
    startup = training_cache.KERNEL_STARTUP.format(path=str(Path(training_cache.__file__).resolve()))
    probe = (startup + "import sys\nassert 'anatomy.tasks.dates_translator' not in sys.modules\n"
             "from anatomy.tasks.dates_translator import train_dates\n"
             "import anatomy.tasks.dates_translator as m\n"
             "print(m.train_dates is train_dates, train_dates.__wrapped__.__module__)\n")
    env = os.environ | {training_cache.FOLDER_VARIABLE: str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.split() == ["True", "anatomy.tasks.dates_translator"], result


SLOW_TRAINING = """
import random, sys, time
from pathlib import Path
import numpy
sys.path.insert(0, {root!r})
import torch
from tools import training_cache
from anatomy.tasks.training import TrainingRun
def slow(model, vocab, steps):
    time.sleep(2)  # the other process asks while this one trains
    with torch.no_grad():
        model.weight.add_(steps)
    return TrainingRun(losses=[float(steps)])
class Vocab:
    tokens = ["a"]
torch.manual_seed(0), numpy.random.seed(0), random.seed(0)  # the key reads all three, as a seeded notebook sets them
model = torch.nn.Linear(2, 2)
training_cache.cached(slow, Path({folder!r}))(model, Vocab(), steps=3)
print(model.weight.sum().item())
"""


def test_two_processes_asking_at_once_train_once(tmp_path):
    """The lock: the second process waits for the first to save, then reuses its run."""
    script = SLOW_TRAINING.format(root=str(Path(__file__).resolve().parent.parent), folder=str(tmp_path))
    both = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    outputs = [process.communicate(timeout=120) for process in both]
    assert all(process.returncode == 0 for process in both), outputs
    assert outputs[0][0] == outputs[1][0] and training_cache.counts(tmp_path) == {"trained": 1, "reused": 1}


def test_a_jupyter_kernel_of_this_run_has_the_cached_train_dates():
    """A real IPython kernel started with this run's environment, as nbval and the live servers start theirs."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    try:
        found = []
        client.execute_interactive("from anatomy.tasks.dates_translator import train_dates\n"
                                   "print(train_dates.__wrapped__.__module__)", timeout=60,
                                   output_hook=lambda m: found.append(m["content"].get("text", "")))
        assert "".join(found).split() == ["anatomy.tasks.dates_translator"], found
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_this_runs_kernels_get_the_startup_file():
    """conftest.py: a folder for this run, the startup file in its IPython profile, both named in the environment."""
    folder = Path(os.environ[training_cache.FOLDER_VARIABLE])
    startup = Path(os.environ["IPYTHONDIR"]) / "profile_default" / "startup" / "00-training-cache.py"
    assert folder.is_dir() and startup.read_text().startswith("import importlib.util, os")
    assert startup.is_relative_to(folder), "removed with the folder when the run ends"
