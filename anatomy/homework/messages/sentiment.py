"""Homework 2's messages (notebook 10, anatomy.homework.sentiment): the named mistakes of the head, of
predict, of the training step and of the fine-tuning run, with the numbers they measured. Part of the
catalogue, anatomy.homework.messages.
"""
from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    # question 1: the head
    "st_no_head": {"en": "not yet implemented: Question 1, self.head is None (create nn.Linear(D, 1) in __init__)",
                   "ko": "아직 구현되지 않았습니다: 문항 1의 self.head가 None입니다 (__init__에서 nn.Linear(D, 1)을 만드세요)"},
    "st_head_type": {"en": "self.head must be an nn.Linear; yours is {got}", "ko": "self.head는 nn.Linear여야 하는데 {got}입니다"},
    "st_head_shape": {"en": "self.head maps the [CLS] vector (D = {size}) to one logit, so its weight is ({one}, {size}); "
                            "yours is {got}",
                      "ko": "self.head는 [CLS] 벡터(D = {size})를 로짓 하나로 바꾸므로 가중치가 ({one}, {size})여야 하는데 "
                            "{got}입니다"},
    # a verdict on predict's probabilities or training_step's loss
    "st_shape": {"en": "{where}: your {what} has shape {got}, expected {expected}",
                 "ko": "{where}: {what}의 모양이 {got}인데, {expected}여야 합니다"},
    "st_named": {"en": "{where}: {name} (your {what} {shown} equal exactly that; expected {expected})",
                 "ko": "{where}: {name} ({what} {shown}: 정확히 그 값과 같습니다. 기대값 {expected})"},
    "st_named_one": {"en": "{where}: {name} (your {what} {shown} equals exactly that; expected {expected})",
                     "ko": "{where}: {name} ({what} {shown}: 정확히 그 값과 같습니다. 기대값 {expected})"},
    "st_differs": {"en": "{where}: your {what} {shown} differs from the expected value by up to {gap:.3g}",
                   "ko": "{where}: {what} {shown}: 기대값과 최대 {gap:.3g}만큼 다릅니다"},
    "st_not_probabilities": {"en": "predict must return a tensor of probabilities, got {got}",
                             "ko": "predict는 확률 텐서를 반환해야 하는데 {got}을(를) 반환했습니다"},
    # question 2: predict's named mistakes
    "st_last": {"en": "read from the last token instead of [CLS] (position 0)",
                "ko": "[CLS](위치 0) 대신 마지막 토큰에서 읽었습니다"},
    "st_last_real": {"en": "read from the last real token (before the padding) instead of [CLS] (position 0)",
                     "ko": "[CLS](위치 0) 대신 (패딩 앞의) 마지막 실제 토큰에서 읽었습니다"},
    "st_mean": {"en": "read from the mean of the states instead of [CLS]", "ko": "[CLS] 대신 상태들의 평균에서 읽었습니다"},
    "st_mean_all": {"en": "read from the mean of all states, padding included, instead of [CLS]",
                    "ko": "[CLS] 대신 패딩까지 포함한 모든 상태의 평균에서 읽었습니다"},
    "st_no_mask": {"en": "called the encoder without its attention mask, so [CLS] attends to the padding",
                   "ko": "어텐션 마스크 없이 인코더를 호출해서 [CLS]가 패딩에 어텐션합니다"},
    "st_softmax_batch": {"en": "softmax over the batch instead of a sigmoid per sentence (the probabilities sum to 1 over "
                               "the batch)",
                         "ko": "문장마다 시그모이드를 적용하지 않고 배치 전체에 소프트맥스를 적용했습니다 (확률의 합이 배치에 "
                               "대해 1이 됩니다)"},
    "st_no_sigmoid": {"en": "no sigmoid: these are logits, not probabilities between 0 and 1",
                      "ko": "시그모이드가 없습니다: 이것은 0과 1 사이의 확률이 아니라 로짓입니다"},
    "st_sigmoid_twice": {"en": "sigmoid applied twice (all values squeezed between 0.5 and 0.73)",
                         "ko": "시그모이드를 두 번 적용했습니다 (모든 값이 0.5와 0.73 사이로 눌립니다)"},
    # question 3: training_step
    "st_needs_sigmoid": {"en": "no sigmoid where the loss needs one: F.binary_cross_entropy (nn.BCELoss) takes "
                               "probabilities, so either apply torch.sigmoid first or hand the logits to "
                               "F.binary_cross_entropy_with_logits. Torch said: {error}",
                         "ko": "손실에 필요한 시그모이드가 없습니다: F.binary_cross_entropy(nn.BCELoss)는 확률을 받으므로, "
                               "먼저 torch.sigmoid를 적용하거나 로짓을 F.binary_cross_entropy_with_logits에 넘기세요. "
                               "torch의 메시지: {error}"},
    "st_needs_sigmoid_name": {"en": "no sigmoid where the loss needs one", "ko": "손실에 필요한 시그모이드가 없습니다"},
    "st_cross_entropy": {"en": "F.cross_entropy on the one-logit head: cross-entropy wants one logit per class, so label 1 "
                               "has no logit; with one logit use F.binary_cross_entropy_with_logits. Torch said: {error}",
                         "ko": "로짓이 하나인 헤드에 F.cross_entropy를 썼습니다: 교차 엔트로피는 클래스마다 로짓이 하나씩 "
                               "필요하므로 레이블 1에는 로짓이 없습니다. 로짓이 하나라면 "
                               "F.binary_cross_entropy_with_logits를 쓰세요. torch의 메시지: {error}"},
    "st_cross_entropy_name": {"en": "F.cross_entropy on the one-logit head", "ko": "로짓이 하나인 헤드에 F.cross_entropy를 썼습니다"},
    "st_logit_shape": {"en": "the head's (B, 1) = ({size}, 1) logits against (B,) labels: squeeze(-1) the logits so both "
                             "are (B,). Torch said: {error}",
                       "ko": "헤드의 (B, 1) = ({size}, 1) 로짓을 (B,) 레이블과 비교했습니다: 로짓에 squeeze(-1)을 적용해 "
                             "둘 다 (B,)로 만드세요. torch의 메시지: {error}"},
    "st_logit_shape_name": {"en": "(B, 1) logits against (B,) labels", "ko": "(B, 1) 로짓과 (B,) 레이블"},
    "st_label_dtype": {"en": "labels of the wrong dtype: binary cross-entropy needs float labels (labels.float()); the "
                             "batch holds {dtype}. Torch said: {error}",
                       "ko": "레이블의 dtype이 잘못되었습니다: 이진 교차 엔트로피에는 float 레이블(labels.float())이 "
                             "필요한데, 배치에는 {dtype}가 들어 있습니다. torch의 메시지: {error}"},
    "st_label_dtype_name": {"en": "labels of the wrong dtype", "ko": "레이블의 dtype이 잘못되었습니다"},
    "st_label_shape": {"en": "labels of the wrong shape: the loss needs labels shaped like the (B,) = ({size},) logits. "
                             "Torch said: {error}",
                       "ko": "레이블의 모양이 잘못되었습니다: 손실에는 (B,) = ({size},) 로짓과 같은 모양의 레이블이 "
                             "필요합니다. torch의 메시지: {error}"},
    "st_label_shape_name": {"en": "labels of the wrong shape", "ko": "레이블의 모양이 잘못되었습니다"},
    "st_not_scalar": {"en": "training_step must return one scalar tensor, got {got}",
                      "ko": "training_step은 스칼라 텐서 하나를 반환해야 하는데 {got}을(를) 반환했습니다"},
    "st_no_grad": {"en": "the loss does not require grad, so nothing can learn: compute it with autograd on",
                   "ko": "손실이 grad를 요구하지 않아 아무것도 학습할 수 없습니다: autograd를 켠 채로 계산하세요"},
    "st_no_grad_name": {"en": "the loss does not require grad", "ko": "손실이 grad를 요구하지 않습니다"},
    "st_sigmoid_before": {"en": "sigmoid applied before a loss that already applies it (BCE-with-logits of probabilities)",
                          "ko": "이미 시그모이드를 적용하는 손실 앞에 시그모이드를 또 적용했습니다 (확률에 BCE-with-logits)"},
    "st_broadcast_labels": {"en": "labels of the wrong shape: (B, 1) labels against (B,) logits broadcast to a (B, B) loss",
                            "ko": "레이블의 모양이 잘못되었습니다: (B, 1) 레이블과 (B,) 로짓이 (B, B) 손실로 "
                                  "브로드캐스트됩니다"},
    "st_last_loss": {"en": "read from the last token instead of [CLS]", "ko": "[CLS] 대신 마지막 토큰에서 읽었습니다"},
    "st_cross_entropy_batch": {"en": "F.cross_entropy on the one-logit head (it read the batch as one sentence with B classes)",
                               "ko": "로짓이 하나인 헤드에 F.cross_entropy를 썼습니다 (배치를 클래스가 B개인 문장 하나로 "
                                     "읽었습니다)"},
    "st_bce_of_logits": {"en": "no sigmoid where the loss needs one (F.binary_cross_entropy of logits)",
                         "ko": "손실에 필요한 시그모이드가 없습니다 (로짓에 F.binary_cross_entropy)"},
    # question 4: the fine-tuning run
    "st_q4_needs_head": {"en": "not yet implemented: Question 4 needs the head of question 1 first",
                         "ko": "아직 구현되지 않았습니다: 문항 4에는 먼저 문항 1의 헤드가 필요합니다"},
    "st_q4_head_wrong": {"en": "question 4 needs the head of question 1 first: {feedback}",
                         "ko": "문항 4에는 먼저 문항 1의 헤드가 필요합니다: {feedback}"},
    "st_used_correct": {"en": "{feedback} (this run used a correct {methods} in place of yours, which an earlier question "
                              "marks wrong)",
                        "ko": "{feedback} (앞 문항에서 틀린 것으로 채점된 {methods} 대신 올바른 것을 써서 이 학습을 "
                              "실행했습니다)"},
    "st_train_mode": {"en": "evaluation ran in training mode (the check hands evaluate the model in training mode, as a "
                            "training loop may leave it): call model.eval() first, or dropout keeps switching off random "
                            "features and the accuracy changes from run to run",
                      "ko": "평가가 학습 모드에서 실행되었습니다 (학습 루프가 남겨 둘 수 있듯이, 검사는 evaluate에 학습 "
                            "모드의 모델을 건넵니다): 먼저 model.eval()을 호출하세요. 그러지 않으면 드롭아웃이 계속 무작위 "
                            "특성을 꺼서 실행할 때마다 정확도가 달라집니다"},
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
                          "ko": "분류기의 가중치가 인코더와 nn.Linear(D, 1) 헤드에 맞지 않아 검사가 점수를 매길 수 "
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
                  "ko": "인코더가 고정된 채로 남았습니다 (가중치 변화가 0): 이 문항은 전체 미세 조정을 요구하므로, "
                        "옵티마이저에 모든 파라미터를 넘기고 requires_grad를 켜 두세요"},
    "st_frozen_name": {"en": "the encoder was left frozen", "ko": "인코더가 고정된 채로 남았습니다"},
    "st_diverged": {"en": "the loss diverged to {value}", "ko": "손실이 {value}(으)로 발산했습니다"},
    "st_missed": {"en": "test accuracy {accuracy:.1%}, below the required {bar:.0%}",
                  "ko": "테스트 정확도 {accuracy:.1%}, 요구되는 {bar:.0%}보다 낮습니다"},
    "st_no_zero_grad": {"en": "no optimizer.zero_grad(): gradients accumulate: the head's gradient after the run is "
                              "{growth:.0f} times one batch's, so every step added its gradient to all the earlier ones; "
                              "call optimizer.zero_grad() each step ({missed})",
                        "ko": "optimizer.zero_grad()가 없어 기울기가 누적됩니다: 학습 후 헤드의 기울기가 배치 하나의 "
                              "{growth:.0f}배이므로, 매 단계가 이전의 모든 기울기에 자기 기울기를 더했습니다. 매 단계 "
                              "optimizer.zero_grad()를 호출하세요 ({missed})"},
    "st_no_zero_grad_name": {"en": "no optimizer.zero_grad(): gradients accumulate",
                             "ko": "optimizer.zero_grad()가 없어 기울기가 누적됩니다"},
    "st_moved": {"en": "the encoder's weights changed by {relative:.1e} of their size",
                 "ko": "인코더의 가중치가 크기 대비 {relative:.1e}만큼 바뀌었습니다"},
    "st_trend": {"en": "the loss went from {first:.3f} over the first 8 steps to {last:.3f} over the last 8",
                 "ko": "손실이 처음 8단계의 {first:.3f}에서 마지막 8단계의 {last:.3f}(으)로 바뀌었습니다"},
    "st_few_losses": {"en": "the run reported fewer than 16 losses", "ko": "학습이 보고한 손실이 16개보다 적습니다"},
    "st_lr_low": {"en": "the learning rate is too low: {moved} (the rates that pass move them by about 4e-3 or more) and "
                        "{trend} ({missed}); fine-tuning with AdamW wants about 5e-5 to 3e-4",
                  "ko": "학습률이 너무 낮습니다: {moved} (통과하는 학습률은 약 4e-3 이상 바꿉니다). 또한 {trend} "
                        "({missed}). AdamW로 미세 조정할 때는 5e-5에서 3e-4 정도가 알맞습니다"},
    "st_lr_low_name": {"en": "the learning rate is too low", "ko": "학습률이 너무 낮습니다"},
    "st_never_below_chance": {"en": "{trend}, never clearly below chance (ln 2 = 0.693), while {moved} ({missed})",
                              "ko": "{trend}. 우연 수준(ln 2 = 0.693)보다 뚜렷이 낮아진 적이 없고, {moved} ({missed})"},
    "st_missed_why": {"en": "{missed}: {trend} and {moved}", "ko": "{missed}: {trend}. 그리고 {moved}"},
}
