"""Speculative decoding: a small draft model writes k tokens, the target checks all k in one forward.

Taught in: 11_gpt.  Shapes: B rows checked at once (1 when generating), k drafted tokens, V vocabulary.
Leviathan et al. (2023, arXiv:2211.17192) and Chen et al. (2023, arXiv:2302.01318). The draft proposes
x1..xk with probabilities q; one target forward over [last token, x1..xk] gives the target's
probabilities p at all k + 1 positions. Draft i is accepted with probability min(1, p(xi) / q(xi)); at
the first rejection the token is drawn from norm(max(0, p - q)) instead, and the round ends; if all k
are accepted, a bonus token is drawn from the target's last p. Every emitted token is then distributed
exactly as the target alone would draw it; greedy (accept while the draft's token is the target's
argmax) writes the target's greedy text. Both models keep a KV cache; rejected drafts are cropped out.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from anatomy.checks import check_integer, check_scores
from anatomy.generation.sampling import check_sampling, filtered_probs
from anatomy.generation.text_generation import check_generate_call


@dataclass
class SpeculativeOutput:
    sequence: torch.Tensor  # (1, T + N): the prompt, then N new tokens
    target_calls: int  # target forwards: one per round (the first also reads the prompt)
    drafted: int  # tokens the draft proposed
    accepted: int  # of those, kept
    rejections: int = 0  # rounds that ended in a rejection (the others accepted all their drafts)

    @property
    def acceptance_rate(self) -> float:
        """Accepted / drafted: counts the drafts after a round's first rejection, which the target never judged."""
        return self.accepted / max(self.drafted, 1)

    @property
    def examined_acceptance_rate(self) -> float:
        """alpha: accepted / the drafts the target examined (accepted + the one rejection ending a round)."""
        return self.accepted / max(self.accepted + self.rejections, 1)


def verify(target_scores: torch.Tensor, draft_probs: torch.Tensor | None, drafts: torch.Tensor,
           do_sample: bool, generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(accepted (B,), next token (B,)): how many leading drafts each row keeps, and the token after them.
    target_scores (B, k + 1, V): the target's probabilities (do_sample) or logits (greedy) at the k drafted
    positions and one more; draft_probs (B, k, V): the draft's q (unused when greedy); drafts (B, k)."""
    k = drafts.size(1)
    if not do_sample:  # keep drafts while they are the target's argmax; then take the target's argmax
        best = target_scores.argmax(dim=-1)  # (B, k + 1)
        accepted = (drafts == best[:, :k]).long().cumprod(dim=-1).sum(dim=-1)  # (B,)
        return accepted, best.gather(1, accepted[:, None]).squeeze(1)
    p = target_scores.gather(2, drafts[..., None]).squeeze(2)  # (B, k): p(x_i)
    q = draft_probs.gather(2, drafts[..., None]).squeeze(2)  # (B, k): q(x_i) > 0, the draft drew it
    u = torch.rand(drafts.shape, generator=generator, dtype=p.dtype, device=p.device)  # (B, k)
    accepted = (u * q < p).long().cumprod(dim=-1).sum(dim=-1)  # accept with probability min(1, p / q)
    q_after = torch.cat([draft_probs, torch.zeros_like(draft_probs[:, :1])], dim=1)  # (B, k + 1, V); 0 for the bonus
    at = accepted[:, None, None].expand(-1, 1, target_scores.size(-1))  # (B, 1, V)
    residual = (target_scores.gather(1, at) - q_after.gather(1, at)).clamp(min=0).squeeze(1)  # (B, V)
    empty = residual.sum(dim=-1, keepdim=True) <= 0  # p == q there: a rejection cannot happen; p is the answer
    residual = torch.where(empty, target_scores.gather(1, at).squeeze(1), residual)
    return accepted, torch.multinomial(residual, 1, generator=generator).squeeze(1)  # multinomial normalises


def check_speculative_call(target: Any, draft: Any, input_ids: torch.Tensor, max_new_tokens: int, k: int,
                           eos_token_id: int | None) -> None:
    for name, model in (("target", target), ("draft", draft)):
        try:
            check_generate_call(model, input_ids, None, max_new_tokens, eos_token_id, 0)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{name}: {error}") from None
    if draft.config.vocab_size != target.config.vocab_size:
        raise ValueError(f"draft must share the target's vocabulary: the draft has {draft.config.vocab_size} tokens, "
                         f"the target {target.config.vocab_size}; a draft token must mean the same to both")
    if input_ids.size(0) != 1:
        raise ValueError(f"speculative_generate writes one sequence at a time: input_ids must be (1, T), got "
                         f"{tuple(input_ids.shape)}; rows would accept different numbers of drafts")
    check_integer("k", k, hint=" (the number of tokens the draft proposes per round)")


def forward_last(model: Any, tokens: torch.Tensor, cache: Any, cached: int, last: int) -> torch.Tensor:
    """The model's logits (last, V) for the last `last` of `tokens` (1, T), after `cached` cached tokens;
    logits holding NaN or +inf, or a row of only -inf, are refused (check_scores)."""
    several = cached > 0 and tokens.size(1) > 1  # then the model wants a mask over cached + new tokens
    mask = torch.ones(1, cached + tokens.size(1), dtype=torch.long, device=tokens.device) if several else None
    logits = model(tokens, mask, cache=cache).logits[0, -last:]  # (last, V)
    check_scores(logits)
    return logits


@torch.no_grad()
def speculative_generate(target: Any, draft: Any, input_ids: torch.Tensor, max_new_tokens: int = 20, k: int = 4,
                         do_sample: bool = False, temperature: float = 1.0, top_k: int | None = None,
                         top_p: float | None = None, eos_token_id: int | None = None,
                         generator: torch.Generator | None = None) -> SpeculativeOutput:
    """The target's text for the prompt input_ids (1, T), written k drafted tokens at a time: the target's
    greedy text token for token, or a sample from the target's (filtered) distribution."""
    check_sampling(temperature, top_k, top_p, getattr(getattr(target, "config", None), "vocab_size", None))
    check_speculative_call(target, draft, input_ids, max_new_tokens, k, eos_token_id)
    settings = (temperature, top_k, top_p)
    target_cache, draft_cache = target.new_cache(), draft.new_cache()
    sequence, prompt_length = input_ids, input_ids.size(1)
    in_target = in_draft = 0  # tokens of `sequence` each cache holds
    calls = drafted = accepted_total = rejections = 0
    while sequence.size(1) - prompt_length < max_new_tokens:
        length = sequence.size(1)
        k_round = min(k, prompt_length + max_new_tokens - length)  # never read past the last position asked for
        drafts, draft_probs = [], []
        step_input = sequence[:, in_draft:]
        for _ in range(k_round):  # the draft writes k_round tokens, one forward each
            logits = forward_last(draft, step_input, draft_cache, in_draft, 1)  # (1, V)
            in_draft += step_input.size(1)
            if do_sample:
                draft_probs.append(filtered_probs(logits, *settings))  # (1, V); settings checked once, above
                step_input = torch.multinomial(draft_probs[-1], 1, generator=generator)  # (1, 1)
            else:
                step_input = logits.argmax(dim=-1, keepdim=True)  # (1, 1)
            drafts.append(step_input)
        drafts = torch.cat(drafts, dim=1)  # (1, k)
        block = torch.cat([sequence[:, in_target:], drafts], dim=1)  # what the target has not read yet
        scores = forward_last(target, block, target_cache, in_target, k_round + 1)  # (k + 1, V)
        calls, in_target = calls + 1, in_target + block.size(1)
        if do_sample:
            scores = filtered_probs(scores, *settings)  # (k + 1, V)
        accepted, next_token = verify(scores[None], torch.cat(draft_probs)[None] if do_sample else None,
                                      drafts, do_sample, generator)
        kept = int(accepted)  # read once per round: how far the text moves
        drafted, accepted_total, rejections = drafted + k_round, accepted_total + kept, rejections + (kept < k_round)
        sequence = torch.cat([sequence, drafts[:, :kept], next_token[None]], dim=1)
        in_target = length + kept  # the rollback: forget the rejected drafts (next_token is read next round)
        in_draft = min(in_draft, in_target)
        target_cache.crop(in_target)
        draft_cache.crop(in_draft)
        if eos_token_id is not None and (sequence[0, length:] == eos_token_id).any():
            sequence = sequence[:, :length + int((sequence[0, length:] == eos_token_id).nonzero()[0]) + 1]
            break
    return SpeculativeOutput(sequence[:, :prompt_length + max_new_tokens], calls, drafted, accepted_total, rejections)
