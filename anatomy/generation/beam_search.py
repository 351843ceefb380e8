"""Beam search: keep the k most likely partial outputs at each step instead of only the best one.

Taught in: 11_gpt (on notebook 07's dates translator).  Shapes: K beams, Ts source tokens,
T tokens so far, V vocabulary.
A finished hypothesis (one that produced EOS) is scored by its log-probability divided by
length ** length_penalty, so that longer outputs are not punished for having more factors below 1.
The search keeps the `beam_width` best finished hypotheses and stops only when the best live one no
longer beats the worst of them under that score (as HF's default beam stopping rule: the live one's
log-probability can only fall from here), or after max_length tokens. Stopping at the first k endings
instead would let early, short, unlikely endings win. Width 1 stays greedy decoding.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from anatomy.checks import check_integer, check_number, check_scores
from anatomy.generation.greedy import check_generation
from anatomy.models.transformer import Transformer


@dataclass
class Hypothesis:
    tokens: list[int]  # generated tokens, without BOS; ends with EOS unless cut at max_length
    log_prob: float  # sum of the tokens' log-probabilities

    def score(self, length_penalty: float) -> float:
        return self.log_prob / len(self.tokens) ** length_penalty


@torch.no_grad()
def beam_search(model: Transformer, src_ids: torch.Tensor, src_mask: torch.Tensor | None = None,
                beam_width: int = 4, max_length: int = 32, length_penalty: float = 1.0) -> Hypothesis:
    """The best hypothesis for ONE source sequence, src_ids (1, Ts). Width 1 is greedy decoding."""
    check_generation(model, max_length, "beam_search", src_mask)
    check_integer("beam_width", beam_width)
    check_number("length_penalty", length_penalty)
    if not isinstance(src_ids, torch.Tensor) or src_ids.dim() != 2 or src_ids.size(0) != 1:
        raise ValueError(f"beam_search reads one source at a time: src_ids must be (1, Ts), got "
                         f"{tuple(getattr(src_ids, 'shape', ())) or type(src_ids).__name__}; for one row of a batch pass ids[i:i + 1]")
    config = model.config
    memory, _ = model.encode(src_ids, src_mask)  # (1, Ts, D)
    alive, finished = [Hypothesis([], 0.0)], []
    for _ in range(max_length):
        ids = torch.tensor([[config.bos_token_id, *h.tokens] for h in alive], device=src_ids.device)  # (K, T)
        memory_mask = None if src_mask is None else src_mask.expand(len(alive), -1)
        logits = model.decode(ids, memory.expand(len(alive), -1, -1), memory_mask).logits[:, -1]  # (K, V)
        check_scores(logits)  # never rank beams by NaN
        log_probs = logits.log_softmax(dim=-1)
        totals = torch.tensor([h.log_prob for h in alive], device=logits.device)[:, None] + log_probs  # (K, V)
        candidates = min(2 * beam_width, totals.numel())  # enough to refill k beams after EOS
        values, indices = totals.flatten().topk(candidates)
        next_alive = []
        for rank, (value, index) in enumerate(zip(values.tolist(), indices.tolist())):
            beam, token = divmod(index, logits.size(-1))
            hypothesis = Hypothesis(alive[beam].tokens + [token], value)
            if token != config.eos_token_id:
                next_alive.append(hypothesis)
            elif rank < beam_width:  # an ending counts only if it is among the k best continuations
                finished.append(hypothesis)
        finished = sorted(finished, key=lambda h: h.score(length_penalty), reverse=True)[:beam_width]
        alive = next_alive[:beam_width]
        if not alive or (len(finished) == beam_width and
                         finished[-1].score(length_penalty) >= best_live_score(alive, length_penalty)):
            break
    # Cut at max_length, live ones compete too; after an early stop none of them beats finished[0].
    return max(finished + alive, key=lambda h: h.score(length_penalty))


def best_live_score(alive: list[Hypothesis], length_penalty: float) -> float:
    """The best live hypothesis's score at its current length: what the search hopes to still beat."""
    return max(h.log_prob for h in alive) / len(alive[0].tokens) ** length_penalty
