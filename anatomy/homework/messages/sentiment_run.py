"""Homework 2's messages for question 4 (notebook 10, anatomy.homework.sentiment.run_checks, diagnosis,
scoring): why a fine-tuning run missed, with the numbers it measured. Part of the catalogue,
anatomy.homework.messages.
"""
from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "st_q4_needs_head": {"en": "not yet implemented: Question 4 needs the head of question 1 first",
                         "ko": "아직 구현되지 않았습니다: 문제 4에는 먼저 문제 1의 헤드가 필요합니다"},
    "st_q4_head_wrong": {"en": "question 4 needs the head of question 1 first: {feedback}",
                         "ko": "문제 4에는 먼저 문제 1의 헤드가 필요합니다: {feedback}"},
    "st_used_correct": {"en": "{feedback} (this run used a correct {methods} in place of yours, which an earlier question "
                              "marks wrong)",
                        "ko": "{feedback} (앞 문제에서 틀린 것으로 채점된 {methods} 대신 올바른 것을 써서 이 학습을 "
                              "실행했습니다)"},
    "st_train_mode": {"en": "evaluation ran in training mode (the check hands evaluate the model in training mode, as a "
                            "training loop may leave it): call model.eval() first, or dropout keeps switching off random "
                            "features and the accuracy changes from run to run",
                      "ko": "평가가 학습 모드에서 실행되었습니다 (학습 루프가 끝난 뒤처럼, 확인은 학습 모드인 모델을 "
                            "evaluate에 넘깁니다): 먼저 model.eval()을 호출하세요. 그러지 않으면 드롭아웃이 계속 무작위로 "
                            "일부 값을 0으로 만들어 실행할 때마다 정확도가 달라집니다"},
    "st_train_mode_name": {"en": "evaluation ran in training mode", "ko": "평가가 학습 모드에서 실행되었습니다"},
    "st_autograd_on": {"en": "evaluation ran with autograd on: wrap it in torch.no_grad(), or every forward pass keeps its "
                             "activations for a backward pass that never comes",
                       "ko": "autograd를 켠 채로 평가했습니다: torch.no_grad()로 감싸세요. 그러지 않으면 모든 순전파가 "
                             "오지 않을 역전파를 위해 활성값을 붙들고 있습니다"},
    "st_autograd_on_name": {"en": "evaluation ran with autograd on", "ko": "autograd를 켠 채로 평가했습니다"},
    "st_evaluate_wrong": {"en": "evaluate returned {got!r}; the share of correct predictions on the {count} batches it "
                                "was handed is {expected:.3f}",
                          "ko": "evaluate가 {got!r}을(를) 반환했습니다. 건네받은 배치 {count}개에서 맞게 예측한 비율은 "
                                "{expected:.3f}입니다"},
    "st_evaluate_wrong_name": {"en": "evaluate returned the wrong number", "ko": "evaluate가 잘못된 값을 반환했습니다"},
    "st_weights_misfit": {"en": "your classifier's weights do not fit an encoder plus an nn.Linear(D, 1) head, so the check "
                                "cannot score them: {error}",
                          "ko": "분류기의 가중치가 인코더와 nn.Linear(D, 1) 헤드에 맞지 않아 확인에서 점수를 매길 수 "
                                "없습니다: {error}"},
    "st_head_alone": {"en": "your classifier is not the fine-tuned network: the head alone classifies: on the encoder as it "
                            "was before the run it already scores {alone:.1%} (your whole classifier: {accuracy:.1%}), so "
                            "the accuracy comes from the head (a linear probe, or a head trained elsewhere), not from "
                            "fine-tuning the encoder; train every weight together on the batches you are handed",
                      "ko": "분류기가 미세 조정된 네트워크가 아닙니다: 헤드 혼자 분류합니다. 학습 전의 인코더 위에서 이미 "
                            "{alone:.1%}를 기록합니다 (분류기 전체: {accuracy:.1%}). 그러니 정확도는 인코더의 미세 조정이 "
                            "아니라 헤드(선형 프로브나 다른 곳에서 학습한 헤드)에서 나옵니다. 건네받은 배치로 모든 "
                            "가중치를 함께 학습하세요"},
    "st_head_alone_name": {"en": "not the fine-tuned network: the head alone classifies",
                           "ko": "미세 조정된 네트워크가 아닙니다: 헤드 혼자 분류합니다"},
    "st_lr_high": {"en": "the learning rate is too high: {why} (fine-tuning a pre-trained encoder with AdamW wants about "
                         "5e-5 to 3e-4)",
                   "ko": "학습률이 너무 높습니다: {why} (사전 학습된 인코더를 AdamW로 미세 조정할 때는 5e-5에서 3e-4 "
                         "정도가 알맞습니다)"},
    "st_lr_high_name": {"en": "the learning rate is too high", "ko": "학습률이 너무 높습니다"},
    "st_frozen": {"en": "the encoder was left frozen (its weights changed by 0): the question asks for full fine-tuning, so "
                        "give the optimizer every parameter and keep requires_grad on",
                  "ko": "인코더가 동결된 채로 남았습니다 (가중치 변화가 0): 이 문제는 전체 미세 조정을 요구하므로, "
                        "옵티마이저에 모든 매개변수를 넘기고 requires_grad를 켜 두세요"},
    "st_frozen_name": {"en": "the encoder was left frozen", "ko": "인코더가 동결된 채로 남았습니다"},
    "st_diverged": {"en": "the loss diverged to {value}", "ko": "손실이 {value}(으)로 발산했습니다"},
    "st_missed": {"en": "test accuracy {accuracy:.1%}, below the required {bar:.0%}",
                  "ko": "테스트 정확도가 {accuracy:.1%}로, 기준 {bar:.0%}보다 낮습니다"},
    "st_no_zero_grad": {"en": "no optimizer.zero_grad(): gradients accumulate: the head's gradient after the run is "
                              "{growth:.0f} times one batch's, so every step added its gradient to all the earlier ones; "
                              "call optimizer.zero_grad() each step ({missed})",
                        "ko": "optimizer.zero_grad()가 없어 그래디언트가 누적됩니다: 학습 후 헤드의 그래디언트가 배치 하나의 "
                              "{growth:.0f}배이므로, 매 스텝이 이전의 모든 그래디언트에 자기 그래디언트를 더했습니다. "
                              "매 스텝 optimizer.zero_grad()를 호출하세요 ({missed})"},
    "st_no_zero_grad_name": {"en": "no optimizer.zero_grad(): gradients accumulate",
                             "ko": "optimizer.zero_grad()가 없어 그래디언트가 누적됩니다"},
    "st_moved": {"en": "the encoder's weights changed by {relative:.1e} of their size",
                 "ko": "인코더의 가중치가 상대적으로 {relative:.1e}만큼 (자기 크기 대비) 바뀌었습니다"},
    "st_trend": {"en": "the loss went from {first:.3f} over the first 8 steps to {last:.3f} over the last 8",
                 "ko": "손실이 처음 8스텝의 {first:.3f}에서 마지막 8스텝의 {last:.3f}(으)로 바뀌었습니다"},
    "st_few_losses": {"en": "the run reported fewer than 16 losses", "ko": "학습이 보고한 손실이 16개보다 적습니다"},
    "st_lr_low": {"en": "the learning rate is too low: {moved} (the rates that pass move them by about 4e-3 or more) and "
                        "{trend} ({missed}); fine-tuning with AdamW wants about 5e-5 to 3e-4",
                  "ko": "학습률이 너무 낮습니다: {moved} (통과하는 학습률에서는 가중치가 약 4e-3 이상 바뀝니다). 또한 {trend} "
                        "({missed}). AdamW로 미세 조정할 때는 5e-5에서 3e-4 정도가 알맞습니다"},
    "st_lr_low_name": {"en": "the learning rate is too low", "ko": "학습률이 너무 낮습니다"},
    "st_never_below_chance": {"en": "{trend}, never clearly below chance (ln 2 = 0.693), while {moved} ({missed})",
                              "ko": "{trend}. 손실이 우연 수준(ln 2 = 0.693)보다 뚜렷이 낮아진 적이 없고, {moved} ({missed})"},
    "st_missed_why": {"en": "{missed}: {trend} and {moved}", "ko": "{missed}: {trend}. 또한 {moved}"},
}
