"""Direct preference optimisation: learn from (prompt, chosen, rejected) without a reward model.

Taught in: 20_instruction_tuning (Rafailov et al. 2023).  Shapes: B pairs, T tokens, V vocabulary.
The policy's implicit reward of an answer is beta times how much more likely the policy makes it than the
frozen reference does: r = beta (log pi(y|x) - log pi_ref(y|x)). The loss -log sigmoid(r_chosen - r_rejected)
raises the chosen answer against the rejected one, while beta keeps the policy near the reference (small
beta: far; large beta: near). The reference never trains: frozen_reference copies the policy once, before.
tests/test_alignment.py checks loss, rewards and gradients against trl's DPOTrainer on one batch.
"""
from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import nn

from anatomy.checks import check_number, check_tensor, check_texts, check_type, check_vocabulary_ids


def frozen_reference(policy: nn.Module) -> nn.Module:
    """A copy of `policy` that never trains: eval mode (no dropout), no parameter requires a gradient."""
    reference = copy.deepcopy(check_type("policy", policy, nn.Module)).eval()
    return reference.requires_grad_(False)


def answer_logprobs(logits: torch.Tensor, input_ids: torch.Tensor, answer_mask: torch.Tensor) -> torch.Tensor:
    """(B,) the log-probability of each sequence's answer: sum over answer tokens t of log p(token t | tokens < t).
    logits (B, T, V) come from input_ids (B, T); answer_mask (B, T) is True on the answer's tokens."""
    logits = check_tensor("logits", logits, rank=3, floating=True, shape="(B, T, V)")
    input_ids = check_tensor("input_ids", input_ids, rank=2, floating=False, shape="(B, T)")
    answer_mask = check_tensor("answer_mask", answer_mask, rank=2, shape="(B, T)")
    if answer_mask.dtype != torch.bool:
        raise TypeError(f"answer_mask must be a bool tensor (True = the answer's token), got {answer_mask.dtype}")
    if input_ids.shape != logits.shape[:2] or answer_mask.shape != input_ids.shape:
        raise ValueError(f"logits (B, T, V), input_ids (B, T) and answer_mask (B, T) must agree in B and T, got "
                         f"{tuple(logits.shape)}, {tuple(input_ids.shape)}, {tuple(answer_mask.shape)}")
    check_vocabulary_ids("input_ids", input_ids, logits.size(-1))
    logprobs = torch.log_softmax(logits[:, :-1].float(), dim=-1)  # (B, T - 1, V): position t predicts t + 1
    picked = logprobs.gather(-1, input_ids[:, 1:, None]).squeeze(-1)  # (B, T - 1)
    return (picked * answer_mask[:, 1:].to(picked.dtype)).sum(dim=1)  # (B,)


def dpo_loss(policy_chosen: torch.Tensor, policy_rejected: torch.Tensor, reference_chosen: torch.Tensor,
             reference_rejected: torch.Tensor, beta: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(loss, chosen_rewards (B,), rejected_rewards (B,)) from the four (B,) answer log-probabilities.
    The rewards are detached (they are what is measured, not trained)."""
    beta = check_number("beta", beta, above=0, hint=" (beta scales the log-ratios; 0.1 is usual)")
    shape = policy_chosen.shape if isinstance(policy_chosen, torch.Tensor) else None
    for name, value in (("policy_chosen", policy_chosen), ("policy_rejected", policy_rejected),
                        ("reference_chosen", reference_chosen), ("reference_rejected", reference_rejected)):
        check_tensor(name, value, rank=1, floating=True, shape="(B,)")
        if value.shape != shape:
            raise ValueError(f"{name} must have policy_chosen's shape {tuple(shape)}, got {tuple(value.shape)}")
    chosen_ratio = policy_chosen - reference_chosen  # (B,) log pi/pi_ref on the chosen answer
    rejected_ratio = policy_rejected - reference_rejected
    loss = -F.logsigmoid(beta * (chosen_ratio - rejected_ratio)).mean()
    return loss, beta * chosen_ratio.detach(), beta * rejected_ratio.detach()


def check_pairs(prompts_chosen: list[str], prompts_rejected: list[str]) -> None:
    """A preference pair compares two answers to ONE prompt: refuse pairs whose prompts (rendered) differ."""
    prompts_chosen, prompts_rejected = check_texts(prompts_chosen, "prompts_chosen"), check_texts(prompts_rejected, "prompts_rejected")
    if len(prompts_chosen) != len(prompts_rejected):
        raise ValueError(f"prompts_chosen and prompts_rejected must pair up, got {len(prompts_chosen)} and "
                         f"{len(prompts_rejected)}")
    differ = [i for i, (a, b) in enumerate(zip(prompts_chosen, prompts_rejected)) if a != b]
    if differ:
        i = differ[0]
        raise ValueError(f"pairs {differ[:5]} have different prompts for the chosen and the rejected answer "
                         f"(pair {i}: {prompts_chosen[i]!r} vs {prompts_rejected[i]!r}): DPO compares two answers "
                         "to the same prompt")


def preference_loss(policy: nn.Module, reference: nn.Module, chosen: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
                    rejected: tuple[torch.Tensor, torch.Tensor, torch.Tensor], beta: float
                    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """dpo_loss for one batch of pairs: `chosen` and `rejected` are chat_batch's (input_ids, attention_mask,
    answer_mask) (B, T) each, the same prompts in the same order. The reference runs without gradients."""
    check_type("policy", policy, nn.Module)
    check_type("reference", reference, nn.Module)
    if reference is policy:
        raise ValueError("reference is the policy itself: DPO needs a frozen copy made before training; "
                         "pass frozen_reference(policy)")

    for name, batch in (("chosen", chosen), ("rejected", rejected)):
        if (not isinstance(batch, (tuple, list)) or len(batch) != 3
                or not all(isinstance(t, torch.Tensor) and t.dim() == 2 for t in batch)):
            raise ValueError(f"{name} must be chat_batch's (input_ids, attention_mask, answer_mask), three (B, T) "
                             f"tensors, got {type(batch).__name__} {batch!r:.60}")
    if chosen[0].size(0) != rejected[0].size(0):
        raise ValueError(f"chosen and rejected must hold the same pairs, got {chosen[0].size(0)} and {rejected[0].size(0)} rows")

    def logprobs(model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor, torch.Tensor]) -> torch.Tensor:
        input_ids, attention_mask, answer_mask = batch
        return answer_logprobs(model(input_ids, attention_mask=attention_mask).logits, input_ids, answer_mask)
    with torch.no_grad():
        reference_chosen, reference_rejected = logprobs(reference, chosen), logprobs(reference, rejected)
    return dpo_loss(logprobs(policy, chosen), logprobs(policy, rejected), reference_chosen, reference_rejected, beta)
