"""Notebook 17's goals, measured in one run: python benchmarks/interpretability.py (or make bench).
  I1  training the attention-only induction model exactly as notebook 17 does: seconds, and whether the
      phase change happened (loss on the repeat < half the loss on the first copy)     (goal <= 60 s)
  I2  hooks on every hook point of the character GPT, each seeing its activation and recording nothing,
      vs a plain forward pass, side by side                                           (goal <= 5 % slower)
  I3  recording every activation (Hooks(record="all")) vs a plain forward pass        (reported)
"""
from __future__ import annotations

import torch

from anatomy import induction
from anatomy.hooks import Hooks, hook_names
from anatomy.logit_lens import load_char_gpt
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
    model, _ = load_char_gpt()
    ids = torch.randint(1, model.config.vocab_size, (8, model.config.max_position_embeddings),
                        generator=torch.Generator().manual_seed(0))
    names = hook_names(model)

    def plain():
        with torch.no_grad():
            model(ids)

    def hooked(**kwargs):
        def run():
            with torch.no_grad(), Hooks(model, **kwargs):
                model(ids)
        return run

    ratio, on_s, plain_s = paired_ratio(hooked(edit={name: lambda a: None for name in names}), plain, repeats=50)
    print(f"I2  hooks on, recording nothing ({len(names)} points): {on_s * 1e3:.2f} ms vs {plain_s * 1e3:.2f} ms plain, "
          f"{ratio - 1:+.1%} (goal <= +5%)")
    ratio, all_s, plain_s = paired_ratio(hooked(record="all"), plain, repeats=50)
    print(f"I3  recording all {len(names)} activations: {all_s * 1e3:.2f} ms vs {plain_s * 1e3:.2f} ms plain, "
          f"{ratio - 1:+.1%}")


if __name__ == "__main__":
    torch.set_num_threads(2)
    i1()
    i2_i3()
