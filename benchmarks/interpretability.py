"""Notebook 17's goals, measured in one run: python benchmarks/interpretability.py (or make bench).
  I1  training the attention-only induction model exactly as notebook 17 does: seconds, and whether the
      phase change happened (loss on the repeat < half the loss on the first copy)     (goal <= 60 s)
  I2  a forward pass of the character GPT (8 x 64 characters) with hooks on every editable hook point, each
      seeing its activation and changing and recording nothing (an edit that returns None), vs a plain
      forward pass, side by side                                                      (goal <= 5 % slower)
  I3  the same, recording every activation (Hooks(record="all"))                       (reported)
Entering and leaving the `with` block (registering and removing the hooks) is paid once per block, not per pass.
"""
from __future__ import annotations

import copy

import torch

from anatomy.interpret import induction
from anatomy.interpret.hooks import Hooks, hook_names
from anatomy.interpret.logit_lens import load_char_gpt
from bench import paired_ratio  # the same alternating timer as P1-P3


def i1() -> None:
    model = induction.attention_only_model()
    run = induction.train_induction(model)
    last = slice(-50, None)
    first, second = sum(run.first_half[last]) / 50, sum(run.second_half[last]) / 50
    print(f"I1  induction heads: trained in {run.seconds:.1f} s (goal <= 60 s); phase change at step "
          f"{run.phase_change_step()}; last 50 steps: first copy {first:.2f}, repeat {second:.2f} nats "
          f"(phase change {'seen' if second < first / 2 else 'NOT seen'})")


def i2_i3() -> None:
    """Two copies of one model side by side: one with the hooks switched on (the `with` block entered once,
    as a notebook does around many forward passes), one plain; calls alternate (paired_ratio)."""
    plain_model, _ = load_char_gpt()
    hooked_model = copy.deepcopy(plain_model)
    ids = torch.randint(1, plain_model.config.vocab_size, (8, plain_model.config.max_position_embeddings),
                        generator=torch.Generator().manual_seed(0))
    names = hook_names(hooked_model)
    editable = [name for name in names if not name.endswith("pattern")]  # the weights are read-only

    def forward(model):
        def run():
            with torch.no_grad():
                model(ids)
        return run

    with Hooks(hooked_model, edit={name: lambda a: None for name in editable}):
        ratio, on_s, plain_s = paired_ratio(forward(hooked_model), forward(plain_model), repeats=100)
    print(f"I2  hooks on, recording nothing ({len(editable)} points): {on_s * 1e3:.2f} ms vs {plain_s * 1e3:.2f} ms "
          f"plain per forward pass, {ratio - 1:+.1%} (goal <= +5%)")
    with Hooks(hooked_model, record="all"):
        ratio, all_s, plain_s = paired_ratio(forward(hooked_model), forward(plain_model), repeats=100)
    print(f"I3  recording all {len(names)} activations: {all_s * 1e3:.2f} ms vs {plain_s * 1e3:.2f} ms plain, "
          f"{ratio - 1:+.1%}")


if __name__ == "__main__":
    torch.set_num_threads(2)
    i1()
    i2_i3()
