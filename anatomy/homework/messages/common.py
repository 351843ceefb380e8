"""The homework framework's and the trusted grader's messages (anatomy.homework.feedback, tracing,
anatomy_grading): what every homework's feedback is built from. Part of the catalogue,
anatomy.homework.messages; taught with the homework notebooks 08, 10 and 19.
"""
from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    # what a check compares ("your {what} ...")
    "what_scores": {"en": "scores", "ko": "점수"},
    "what_weights": {"en": "weights", "ko": "가중치"},
    "what_output": {"en": "output", "ko": "출력"},
    "what_result": {"en": "result", "ko": "결과"},
    "what_layer_output": {"en": "layer output", "ko": "층 출력"},
    "what_cross_weights": {"en": "cross-attention weights", "ko": "교차 어텐션 가중치"},
    "what_probabilities": {"en": "probabilities", "ko": "확률"},
    "what_loss": {"en": "loss", "ko": "손실"},
    # anatomy.homework.feedback
    "code_raised": {"en": "your code raised {error_type}: {error}", "ko": "코드에서 {error_type} 예외가 발생했습니다: {error}"},
    "not_a_tensor": {"en": "your {what} must be a torch.Tensor, got {got}",
                     "ko": "{what} 값은 torch.Tensor여야 하는데 {got}입니다"},
    "wrong_dtype": {"en": "your {what} are {got}; return the input's dtype, {expected}",
                    "ko": "{what}의 dtype이 {got}입니다. 입력의 dtype인 {expected}(으)로 반환하세요"},
    "dtype_note": {"en": " (and they are {got}: return the input's dtype, {expected})",
                   "ko": " (또한 dtype이 {got}입니다. 입력의 dtype인 {expected}(으)로 반환하세요)"},
    "shape_differs": {"en": "your {what} have shape {got}, expected {expected}",
                      "ko": "{what}의 모양이 {got}인데, 기대한 모양은 {expected}입니다"},
    "entry_differs": {"en": "your {what}{index} is {got:.3f} where {expected:.3f} was expected",
                      "ko": "{what}{index}의 값이 {got:.3f}인데, 기대한 값은 {expected:.3f}입니다"},
    "mistake": {"en": "{words} ({evidence}): {hint}.", "ko": "{words} ({evidence}). 고치는 방법: {hint}."},
    "weight_shape": {"en": "{name} is {got}; this layer's {name} is {expected}",
                     "ko": "{name}의 모양이 {got}인데, 이 층의 {name}은(는) {expected}입니다"},
    "tracing_off": {"en": "your code switched off the grader's tracing (sys.setprofile): this question scores 0",
                    "ko": "코드가 채점기의 추적(sys.setprofile)을 껐으므로 이 문제는 0점입니다"},
    # anatomy_grading: the grader's own words
    "passed": {"en": "passed", "ko": "통과"},
    "failed": {"en": "failed", "ko": "실패"},
    "failed_named": {"en": "failed: {mistake}", "ko": "실패: {mistake}"},
    "header": {"en": "Graded by the trusted grader: your notebook ran in a separate, confined process; the grades "
                     "come from the checks run outside it.",
               "ko": "신뢰할 수 있는 채점기가 채점했습니다. 노트북은 격리된 별도 프로세스에서 실행되었고, 점수는 그 "
                     "밖에서 실행한 확인에서 나옵니다."},
    "grader_failed_case": {"en": "the grader could not check this case; your instructor will look at it",
                           "ko": "채점기가 이 케이스를 확인하지 못했습니다. 강사가 살펴볼 것입니다"},
    "every_question_zero": {"en": "{error}: every question scores 0", "ko": "{error}: 모든 문제가 0점입니다"},
    "answer_uses": {"en": "your answer uses {what} (cell {cell}): {why}, so this question scores 0",
                    "ko": "답이 {what}을(를) 사용합니다({cell}번 셀). {why}. 그래서 이 문제는 0점입니다"},
    "why_attention": {"en": "this question asks you to write the attention yourself",
                      "ko": "이 문제는 어텐션을 직접 작성하라고 요구합니다"},
    "why_layer": {"en": "this question asks for your own decoder layer",
                  "ko": "이 문제는 직접 작성한 디코더 층을 요구합니다"},
    "why_own": {"en": "the answer may not use the grading code", "ko": "답에서 채점 코드를 사용할 수 없습니다"},
    "why_data": {"en": "the run trains on the batches it is handed, never on other review data",
                 "ko": "학습은 건네받은 배치로만 해야 하며, 다른 영화 리뷰 데이터를 쓰면 안 됩니다"},
    "notebook_too_big": {"en": "the notebook is {size} MiB, over the grader's {limit} MiB",
                         "ko": "노트북이 {size} MiB로, 채점기의 한도 {limit} MiB를 넘습니다"},
    "not_a_notebook": {"en": "the file is not a Jupyter notebook ({error})",
                       "ko": "이 파일은 Jupyter 노트북이 아닙니다 ({error})"},
    "too_much_code": {"en": "the notebook holds {count:,} characters of code, over the grader's {limit:,}",
                      "ko": "노트북의 코드가 {count:,}자로, 채점기의 한도 {limit:,}자를 넘습니다"},
    "review_timeout": {"en": "the grader's review of your notebook's code ran past its {seconds} s limit",
                       "ko": "채점기의 노트북 코드 검토가 제한 시간 {seconds}초를 넘겼습니다"},
    "review_stopped": {"en": "the grader's review of your notebook's code stopped (exit code {code})",
                       "ko": "채점기의 노트북 코드 검토가 중단되었습니다 (종료 코드 {code})"},
    "review_failed": {"en": "the grader could not review your notebook's code ({error})",
                      "ko": "채점기가 노트북 코드를 검토하지 못했습니다 ({error})"},
    "not_graded": {"en": "the grader could not grade this notebook; your instructor will look at it",
                   "ko": "채점기가 이 노트북을 채점하지 못했습니다. 강사가 살펴볼 것입니다"},
    "not_graded_zero": {"en": "the grader could not grade this notebook, so every question scores 0; your instructor "
                              "will look at it",
                        "ko": "채점기가 이 노트북을 채점하지 못해 모든 문제가 0점입니다. 강사가 살펴볼 것입니다"},
    "worker_stopped": {"en": "the grader stopped while grading this notebook (exit code {code}), so every question "
                             "scores 0; your instructor will look at it",
                       "ko": "이 노트북을 채점하는 동안 채점기가 멈췄으므로(종료 코드 {code}) 모든 문제가 0점입니다. "
                             "강사가 살펴볼 것입니다"},
    "why_no_data": {"en": "the grader has no review data: train on the batches you are handed",
                    "ko": "채점기에는 영화 리뷰 데이터가 없습니다: 건네받은 배치로 학습하세요"},
    "why_forbidden": {"en": "a library function the question forbids", "ko": "이 문제가 금지한 라이브러리 함수입니다"},
    "refused": {"en": "uses {name}: {why}", "ko": "{name}을(를) 사용합니다: {why}"},
    "no_notebook": {"en": "no .ipynb file in the submission", "ko": "제출물에 .ipynb 파일이 없습니다"},
    "child_exit": {"en": "your code stopped (exit code {code}) while this check ran, so this question scores 0",
                   "ko": "이 확인이 실행되는 동안 코드가 멈췄으므로(종료 코드 {code}) 이 문제는 0점입니다"},
    "child_tampered": {"en": "your test changed the grader's process itself (its limits, priority, CPUs or pending "
                             "signals) or left a message in its channel to the grader, through which one run could tell "
                             "the next what it saw, so this question scores 0",
                       "ko": "테스트가 채점기의 프로세스 자체(제한, 우선순위, CPU, 대기 중인 시그널)를 바꾸었거나 채점기와의 "
                             "통신 채널에 메시지를 남겼습니다. 그렇게 하면 한 실행이 본 것을 다음 실행에 전할 수 있으므로 "
                             "이 문제는 0점입니다"},
    "child_malformed": {"en": "your code's process sent the grader a malformed reply ({error}) while this check ran, "
                              "so this question scores 0",
                        "ko": "이 확인이 실행되는 동안 코드의 프로세스가 채점기에 잘못된 형식의 응답({error})을 "
                              "보냈으므로 이 문제는 0점입니다"},
}
