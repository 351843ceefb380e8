"""Question 4's own measurements (homework 2, notebook 10): the check's classifier, loaded strictly
with the student's fine-tuned weights, and what it predicts. Nothing here runs the student's code.
Shapes: B batch, T tokens, D model width.
"""
from __future__ import annotations

import torch
from torch import nn

from anatomy.models.encoder import TransformerEncoder
from anatomy.homework.feedback import Feedback
from anatomy.homework.sentiment.substitutes import cls_logits


class OwnClassifier(nn.Module):
    """The check's own classifier: an encoder and a one-logit head, nothing else."""

    def __init__(self, config) -> None:
        super().__init__()
        self.encoder, self.head = TransformerEncoder(config), nn.Linear(config.hidden_size, 1)


def predicted_logits(classifier, data) -> torch.Tensor:
    """The head's (B,) logits on [CLS], computed here (not by the student's predict)."""
    return cls_logits(classifier, data.input_ids, data.attention_mask)


def own_copy(classifier, config) -> OwnClassifier:
    """The student's fine-tuned weights, loaded strictly into the check's own classifier (eval mode)."""
    mine = OwnClassifier(config)
    try:
        mine.load_state_dict(classifier.state_dict(), strict=True)
    except RuntimeError as error:
        raise Feedback("st_weights_misfit", error=str(error).splitlines()[0][:300]) from None
    return mine.eval()


def correct_share(classifier, batches) -> float:
    with torch.no_grad():
        right = sum(((predicted_logits(classifier, b) > 0).long() == b.labels).sum().item() for b in batches)
    return right / sum(len(b.labels) for b in batches)


def head_on_pretrained(mine: OwnClassifier, before: dict, config) -> OwnClassifier:
    """The fine-tuned head on the encoder as it was before the run (eval mode)."""
    probe = OwnClassifier(config)
    probe.encoder.load_state_dict(before)
    probe.head.load_state_dict(mine.head.state_dict())
    return probe.eval()


def require_fine_tuned(mine: OwnClassifier, before: dict, config, batches, accuracy: float, gain: float) -> None:
    """The accuracy must come from fine-tuning: the returned head on the encoder as it was before the run
    scores at least `gain` less than the returned network. A linear probe (a head trained on the frozen
    encoder, the encoder then nudged so that it "moved") or a head trained elsewhere classifies as well
    on the pre-trained encoder; a fine-tuned head does not, as it learnt with the encoder that moved."""
    alone = correct_share(head_on_pretrained(mine, before, config), batches)
    if accuracy - alone < gain:
        raise Feedback("st_head_alone", "st_head_alone_name", alone=alone, accuracy=accuracy)
