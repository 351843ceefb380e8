"""Check for question 4 of homework 2 (notebook 10): a short fine-tuning run, scored on held-out reviews.

Shapes: B batch, T tokens.
The run trains on the sentences that data.run_data(seed) draws and is scored on its test sentences
(public checks use one seed, hidden tests others), so nobody can hard-code the answer.
A mistake in question 2 or 3 costs only its own question: the run then uses a correct predict or
training_step in place of the student's, and says so if question 4 fails too.
"""
from __future__ import annotations

import contextlib
import math
import types

import torch
import torch.nn.functional as F

from anatomy.encoder import TransformerEncoder
from anatomy.homework.feedback import Feedback, call
from anatomy.homework.sentiment import checks
from anatomy.homework.sentiment.data import STEPS, TEST_SENTENCES, bundled_tokenizer, run_data

REQUIRED_ACCURACY = 0.71  # on 200 held-out test sentences
_fine_tuned: dict[int, torch.nn.Module] = {}  # seed -> the classifier its check fine-tuned last


def predicted_logits(classifier, data) -> torch.Tensor:
    """The head's (B,) logits on [CLS], computed here (not by the student's predict)."""
    hidden = classifier.encoder(data.input_ids, attention_mask=data.attention_mask).last_hidden_state  # (B, T, D)
    return classifier.head(hidden[:, 0]).squeeze(-1)


def spy_on(module: torch.nn.Module, log: list[tuple[bool, bool]]):
    """Record (training mode, grad enabled) at every forward call of `module`."""
    return module.register_forward_pre_hook(lambda m, args: log.append((m.training, torch.is_grad_enabled())))


def reference_predict(classifier, input_ids, attention_mask):
    hidden = classifier.encoder(input_ids, attention_mask=attention_mask).last_hidden_state  # (B, T, D)
    return torch.sigmoid(classifier.head(hidden[:, 0])).squeeze(-1)  # (B,)


def reference_training_step(classifier, batch):
    return F.binary_cross_entropy_with_logits(predicted_logits(classifier, batch), batch.labels.float())


def wrong_methods(classifier_class, seed: int) -> list[str]:
    """The methods among predict and training_step that questions 2 and 3 mark wrong."""
    wrong = []
    for name, check in [("predict", checks.check_predict), ("training_step", checks.check_training_step)]:
        try:
            check(classifier_class, seed)
        except Feedback:
            wrong.append(name)
    return wrong


def check_fine_tuning(classifier_class, fine_tune_run, evaluate, seed: int = 0) -> float:
    """Fine-tune a fresh classifier around the pre-trained encoder with the student's run, check the
    student's evaluate (handed the model in training mode, as a loop may leave it) against ours, and
    require REQUIRED_ACCURACY. Returns the accuracy."""
    try:
        checks.built(classifier_class, seed)
    except Feedback as feedback:
        if str(feedback).startswith("not yet implemented"):
            raise Feedback("not yet implemented: Question 4 needs the head of question 1 first") from None
        raise Feedback(f"question 4 needs the head of question 1 first: {feedback}") from None
    wrong = wrong_methods(classifier_class, seed)
    torch.manual_seed(seed)
    classifier = call(classifier_class, TransformerEncoder.from_pretrained())
    references = {"predict": reference_predict, "training_step": reference_training_step}
    for name in wrong:  # a mistake in question 2 or 3 costs only its own question
        setattr(classifier, name, types.MethodType(references[name], classifier))
    try:
        return fine_tuned_accuracy(classifier, fine_tune_run, evaluate, seed)
    except Feedback as feedback:
        if not wrong:
            raise
        raise Feedback(f"{feedback} (this run used a correct {' and '.join(wrong)} in place of yours, "
                       "which an earlier question marks wrong)") from None


def evaluated(classifier, evaluate, test_batches):
    """The student's evaluate, handed the model in training mode (as a training loop may leave it);
    Feedback if it evaluated in training mode or with autograd on."""
    log: list[tuple[bool, bool]] = []
    classifier.train()
    handle = spy_on(classifier.encoder, log)
    try:
        got = call(evaluate, classifier, test_batches)
    finally:
        handle.remove()
    if any(training for training, _ in log):
        raise Feedback("evaluation ran in training mode (the check hands evaluate the model in training mode, "
                       "as a training loop may leave it): call model.eval() first, or dropout keeps switching "
                       "off random features and the accuracy changes from run to run")
    if any(grad for _, grad in log):
        raise Feedback("evaluation ran with autograd on: wrap it in torch.no_grad(), or every forward pass "
                       "keeps its activations for a backward pass that never comes")
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


def fine_tuned_accuracy(classifier, fine_tune_run, evaluate, seed: int) -> float:
    train_batches, test_batches = run_data(seed)
    evaluated(classifier, evaluate, test_batches)  # before training too: these mistakes cost seconds, not a run
    before = [p.detach().clone() for p in classifier.encoder.parameters()]
    with denormals_flushed():
        run = call(fine_tune_run, classifier, iter(train_batches), STEPS)
    _fine_tuned[seed] = classifier
    losses = list(getattr(run, "losses", []))
    moved = max((p.detach() - b).abs().max().item() for p, b in zip(classifier.encoder.parameters(), before))
    if moved == 0:
        raise Feedback("the encoder was left frozen (its weights changed by 0): the question asks for full "
                       "fine-tuning, so give the optimizer every parameter and keep requires_grad on")
    first, last = sum(losses[:8]) / 8, sum(losses[-8:]) / 8
    too_high = (f"the learning rate is too high: the loss diverged or never went down below chance (ln 2 = 0.693), "
                f"from {first:.3f} over the first 8 steps to {last:.3f} over the last 8 (a pre-trained model "
                "fine-tunes with about 1e-5 to 3e-4)")
    if not all(math.isfinite(x) for x in losses):
        raise Feedback(too_high)
    got = evaluated(classifier, evaluate, test_batches)
    with torch.no_grad():
        correct = sum(((predicted_logits(classifier, b) > 0).long() == b.labels).sum().item() for b in test_batches)
    expected = correct / TEST_SENTENCES
    if not isinstance(got, float) or abs(got - expected) > 1e-6:
        raise Feedback(f"evaluate returned {got!r}; the share of correct predictions is {expected:.3f}")
    if expected < REQUIRED_ACCURACY and losses and (last > first - 0.05 or last > 0.65):
        raise Feedback(f"{too_high}; test accuracy {expected:.1%}, below the required {REQUIRED_ACCURACY:.0%}")
    if expected < REQUIRED_ACCURACY:
        raise Feedback(f"test accuracy {expected:.1%} is below the required {REQUIRED_ACCURACY:.0%}")
    return expected


def wrong_predictions(seed: int = 0, count: int = 8) -> list[tuple[int, float, str]]:
    """(label, P(positive), sentence) for `count` test sentences that the classifier question 4's
    check fine-tuned on `seed` gets wrong ([] before that check ran): question 5 reads them."""
    classifier, wrong = _fine_tuned.get(seed), []
    if classifier is None:
        return wrong
    classifier.eval()
    for batch in run_data(seed)[1]:
        with torch.no_grad():
            probability = torch.sigmoid(predicted_logits(classifier, batch))  # (B,)
        for i in ((probability > 0.5).long() != batch.labels).nonzero().flatten().tolist():
            text = bundled_tokenizer().decode(batch.input_ids[i], skip_special_tokens=True)
            wrong.append((batch.labels[i].item(), probability[i].item(), text))
    return wrong[::max(1, len(wrong) // count)][:count]  # spread over short and long sentences
