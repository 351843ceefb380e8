"""Check for question 4 of homework 2 (notebook 10): a short fine-tuning run, scored on held-out reviews.

Shapes: B batch, T tokens, D model width.
The student's fine_tune_run trains a fresh classifier on the sentences data.run_data(seed) draws;
the check then loads the fine-tuned weights into its own classifier (strictly: an encoder and an
nn.Linear(D, 1) head), and measures that one on the test sentences, which the student's code never
sees; and it measures the returned head on the encoder as it was before the run, which must score
well below: the accuracy must come from fine-tuning (a linear probe, or a head trained elsewhere, fails). evaluate is checked on its own, on batches the check chooses. A mistake in question 2 or 3
costs only its own question: the run then uses a correct predict or training_step in their place.
When the accuracy misses the bar, diagnosis.py names why from what the run left behind.
"""
from __future__ import annotations

import contextlib
import types

import torch
from torch import nn

from anatomy.models.encoder import TransformerEncoder
from anatomy.homework.feedback import Feedback, call
from anatomy.homework.messages import Message
from anatomy.homework.sentiment.checks import built, check_predict, check_training_step
from anatomy.homework.sentiment.diagnosis import explain_miss, require_encoder_moved, require_finite
from anatomy.homework.sentiment.scoring import correct_share, own_copy, predicted_logits, require_fine_tuned
from anatomy.homework.sentiment.data import BATCH_SIZE, STEPS, bundled_tokenizer, run_data
from anatomy.homework.sentiment.substitutes import reference_predict, reference_training_step

REQUIRED_ACCURACY = 0.63  # on data.TEST_SENTENCES held-out sentences; see the instructor README
FINE_TUNING_GAIN = 0.05  # the returned network over its head on the pre-trained encoder; see the instructor README
EVALUATE_BATCHES = 6  # evaluate is checked on the first training batches: data the check chooses
_fine_tuned: dict[int, nn.Module] = {}  # seed -> the check's copy of the classifier it fine-tuned last


def wrong_methods(classifier_class, seed: int) -> tuple[list[str], int]:
    """(the methods among predict and training_step that questions 2 and 3 mark wrong, the sentences
    one loss of the run sums over: BATCH_SIZE for a training_step that sums, which question 3 accepts, else 1)."""
    wrong, per_loss = [], 1
    for name, check in [("predict", check_predict), ("training_step", check_training_step)]:
        try:
            reduction = check(classifier_class, seed)
        except Feedback:
            wrong.append(name)
        else:
            per_loss = BATCH_SIZE if reduction == "sum" else per_loss
    return wrong, per_loss


def check_fine_tuning(classifier_class, fine_tune_run, evaluate, seed: int = 0) -> float:
    """Fine-tune a fresh classifier around the pre-trained encoder with the student's run, check the
    student's evaluate (handed the model in training mode, as a loop may leave it) against the
    check's own count, and require REQUIRED_ACCURACY. Returns the accuracy."""
    try:
        built(classifier_class, seed)
    except Feedback as feedback:
        if feedback.message.key in ("not_implemented", "st_no_head"):
            raise Feedback("st_q4_needs_head") from None
        raise Feedback("st_q4_head_wrong", feedback=feedback.message) from None
    wrong, per_loss = wrong_methods(classifier_class, seed)
    pretrained = TransformerEncoder.from_pretrained()
    before = {k: v.clone() for k, v in pretrained.state_dict().items()}
    torch.manual_seed(seed)
    classifier = call(classifier_class, pretrained)
    references = {"predict": reference_predict, "training_step": reference_training_step}
    for name in wrong:  # a mistake in question 2 or 3 costs only its own question
        setattr(classifier, name, types.MethodType(references[name], classifier))
    try:
        return fine_tuned_accuracy(classifier, fine_tune_run, evaluate, seed, pretrained.config, before, per_loss)
    except Feedback as feedback:
        if not wrong:
            raise
        raise Feedback("st_used_correct", feedback.name, feedback=feedback.message, methods=", ".join(wrong)) from None


def evaluated(classifier, evaluate, batches):
    """The student's evaluate, handed the model in training mode (as a training loop may leave it);
    Feedback if it evaluated in training mode or with autograd on."""
    log: list[tuple[bool, bool]] = []
    classifier.train()
    handle = classifier.encoder.register_forward_pre_hook(lambda m, args: log.append((m.training, torch.is_grad_enabled())))
    try:
        got = call(evaluate, classifier, batches)
    finally:
        handle.remove()
    if any(training for training, _ in log):
        raise Feedback("st_train_mode", "st_train_mode_name")
    if any(grad for _, grad in log):
        raise Feedback("st_autograd_on", "st_autograd_on_name")
    return got


@contextlib.contextmanager
def denormals_flushed():
    """A diverging run fills the weights with denormal numbers, which a CPU computes many times slower
    than normal ones; flushed to zero, a too-high learning rate no longer doubles the check's time."""
    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_flush_denormal(False)


def fine_tuned_accuracy(classifier, fine_tune_run, evaluate, seed: int, config, before: dict, per_loss: int = 1) -> float:
    train_batches, test_batches = run_data(seed)
    chosen = train_batches[:EVALUATE_BATCHES]
    evaluated(classifier, evaluate, chosen[:1])  # before training too: these mistakes cost seconds, not a run
    with denormals_flushed():
        run = call(fine_tune_run, classifier, iter(train_batches), STEPS)
    mine = _fine_tuned[seed] = own_copy(classifier, config)
    losses = [float(x) / per_loss for x in getattr(run, "losses", [])]  # per sentence, a summed loss too
    require_encoder_moved(mine, before)
    require_finite(losses)
    got, expected = evaluated(classifier, evaluate, chosen), correct_share(mine, chosen)
    if not isinstance(got, float) or abs(got - expected) > 1e-6:
        raise Feedback("st_evaluate_wrong", "st_evaluate_wrong_name", got=got, count=len(chosen), expected=expected)
    accuracy = correct_share(mine, test_batches)
    if accuracy < REQUIRED_ACCURACY:
        explain_miss(accuracy, REQUIRED_ACCURACY, losses, mine, before, classifier, train_batches[STEPS - 1], per_loss)
    require_fine_tuned(mine, before, config, test_batches, accuracy, FINE_TUNING_GAIN)
    return accuracy


def wrong_predictions(seed: int = 0, count: int = 8) -> list[tuple[int, float, str]]:
    """(label, P(positive), sentence) for `count` test sentences that the classifier question 4's
    check fine-tuned on `seed` gets wrong ([] before that check ran): question 5 reads them."""
    classifier, wrong = _fine_tuned.get(seed), []
    if classifier is None:
        return wrong
    for batch in run_data(seed)[1]:
        with torch.no_grad():
            probability = torch.sigmoid(predicted_logits(classifier, batch))  # (B,)
        for i in ((probability > 0.5).long() != batch.labels).nonzero().flatten().tolist():
            text = bundled_tokenizer().decode(batch.input_ids[i], skip_special_tokens=True)
            wrong.append((batch.labels[i].item(), probability[i].item(), text))
    return wrong[::max(1, len(wrong) // count)][:count]  # spread over short and long sentences
