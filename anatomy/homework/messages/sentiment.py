"""Homework 2's messages (notebook 10, anatomy.homework.sentiment), questions 1-3: the named mistakes of
the head, of predict and of the training step, with the numbers they measured (question 4's run:
sentiment_run.py). Part of the catalogue, anatomy.homework.messages.
"""
from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    # question 1: the head
    "st_no_head": {"en": "not yet implemented: Question 1, self.head is None (create nn.Linear(D, 1) in __init__)",
                   "ko": "아직 구현되지 않았습니다: 문제 1의 self.head가 None입니다 (__init__에서 nn.Linear(D, 1)을 만드세요)"},
    "st_head_type": {"en": "self.head must be an nn.Linear; yours is {got}", "ko": "self.head는 nn.Linear여야 하는데 {got}입니다"},
    "st_head_shape": {"en": "self.head maps the [CLS] vector (D = {size}) to one logit, so its weight is ({one}, {size}); "
                            "yours is {got}",
                      "ko": "self.head는 [CLS] 벡터(D = {size})를 로짓 하나로 바꾸므로 가중치 모양은 ({one}, {size})입니다. "
                            "지금은 {got}입니다"},
    # a verdict on predict's probabilities or training_step's loss
    "st_shape": {"en": "{where}: your {what} has shape {got}, expected {expected}",
                 "ko": "{where}: {what}의 모양이 {got}인데, 기대한 모양은 {expected}입니다"},
    "st_named": {"en": "{where}: {name} (your {what} {shown} equal exactly that; expected {expected})",
                 "ko": "{where}: {name} ({what}({shown})이 이 실수로 나오는 값과 정확히 같습니다. 기대한 값: {expected})"},
    "st_named_one": {"en": "{where}: {name} (your {what} {shown} equals exactly that; expected {expected})",
                     "ko": "{where}: {name} ({what}({shown})이 이 실수로 나오는 값과 정확히 같습니다. 기대한 값: "
                           "{expected})"},
    "st_differs": {"en": "{where}: your {what} {shown} differs from the expected value by up to {gap:.3g}",
                   "ko": "{where}: {what}({shown})이 기대한 값과 최대 {gap:.3g}만큼 다릅니다"},
    "st_not_probabilities": {"en": "predict must return a tensor of probabilities, got {got}",
                             "ko": "predict는 확률 텐서를 반환해야 하는데 {got}을(를) 반환했습니다"},
    # question 2: predict's named mistakes
    "st_last": {"en": "read from the last token instead of [CLS] (position 0)",
                "ko": "[CLS](위치 0) 대신 마지막 토큰에서 읽었습니다"},
    "st_last_real": {"en": "read from the last real token (before the padding) instead of [CLS] (position 0)",
                     "ko": "[CLS](위치 0) 대신 (패딩 앞의) 마지막 실제 토큰에서 읽었습니다"},
    "st_mean": {"en": "read from the mean of the states instead of [CLS]", "ko": "[CLS] 대신 은닉 상태의 평균에서 읽었습니다"},
    "st_mean_all": {"en": "read from the mean of all states, padding included, instead of [CLS]",
                    "ko": "[CLS] 대신 패딩까지 포함한 모든 은닉 상태의 평균에서 읽었습니다"},
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
                   "ko": "손실의 requires_grad가 False여서 아무것도 학습할 수 없습니다: autograd를 켠 채로 계산하세요"},
    "st_no_grad_name": {"en": "the loss does not require grad", "ko": "손실의 requires_grad가 False입니다"},
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
}
