"""Homework 2, sentiment fine-tuning (notebook 10): the graded checks a master notebook's test cells call.

    from anatomy.homework import sentiment as hw
    hw.check_head(SentimentClassifier, seed=0)                                 # q1
    hw.check_predict(SentimentClassifier, seed=0)                              # q2
    hw.check_training_step(SentimentClassifier, seed=0)                        # q3
    hw.check_fine_tuning(SentimentClassifier, fine_tune_run, evaluate, seed=0)  # q4

Each prints its feedback (nothing when right); `.feedback(...)` returns it, `.verdict(...)` the
Feedback with the mistake's name. `run_data(seed)` gives question 4's training and test batches;
`wrong_predictions(seed)` some test sentences that the classifier its check fine-tuned gets wrong
(question 5).
"""
from anatomy.homework import graded
from anatomy.homework.sentiment import checks, run_checks
from anatomy.homework.sentiment.data import BATCH_SIZE, STEPS, run_data
from anatomy.homework.sentiment.run_checks import REQUIRED_ACCURACY, wrong_predictions

check_head = graded(checks.check_head)
check_predict = graded(checks.check_predict)
check_training_step = graded(checks.check_training_step)
check_fine_tuning = graded(run_checks.check_fine_tuning)

__all__ = ["BATCH_SIZE", "REQUIRED_ACCURACY", "STEPS", "check_fine_tuning", "check_head", "check_predict",
           "check_training_step", "run_data", "wrong_predictions"]
