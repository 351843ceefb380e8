"""Homework 1's messages (notebook 08, anatomy.homework.cross_attention): the classic mistakes' names and
hints (cross_attention_mistakes.py), the evidence that gave a mistake away, and the checks' own
feedback. Part of the catalogue, anatomy.homework.messages.
"""
from __future__ import annotations

from anatomy.homework.messages.cross_attention_mistakes import MISTAKE_KEYS, MISTAKE_WORDS

__all__ = ["MESSAGES", "MISTAKE_KEYS"]
MESSAGES: dict[str, dict[str, str]] = {key: text for name, (words, hint) in MISTAKE_WORDS.items()
                                       for key, text in ((f"ca_{name}", words), (f"ca_{name}_hint", hint))}
MESSAGES |= {
    # the evidence a mistake shows
    "ca_peak": {"en": "your {what} peak at {got:.3f}, expected {expected:.3f}",
                "ko": "{what}의 최댓값이 {got:.3f}인데, 기대한 값은 {expected:.3f}입니다"},
    "ca_ratio": {"en": "your {what} are {ratio:.3f} times the expected ones", "ko": "{what} 값이 기대한 값의 {ratio:.3f}배입니다"},
    "ca_row_sums": {"en": "your rows sum to {low:.3f} ... {high:.3f} instead of 1",
                    "ko": "행의 합이 1이 아니라 {low:.3f}~{high:.3f}입니다"},
    "ca_head_sums": {"en": "your {what} sum to 1 over the {heads} heads (dim 1), and to {low:.3f} ... {high:.3f} over "
                           "the source tokens",
                     "ko": "{what}의 합이 {heads}개 헤드(dim 1)에 대해서는 1이고, 소스 토큰에 대해서는 "
                           "{low:.3f}~{high:.3f}입니다"},
    "ca_negative": {"en": "your {what} go down to {low:.3f}; a probability is never negative",
                    "ko": "{what} 값이 {low:.3f}까지 내려갑니다. 확률은 음수가 될 수 없습니다"},
    "ca_on_padding": {"en": "your {what} reach {high:.3f} on padded source tokens",
                      "ko": "패딩된 소스 토큰에서 {what} 값이 {high:.3f}에 이릅니다"},
    "ca_on_real": {"en": "your {what} reach {high:.3f} on padded source tokens and at most {real:.3f} on real ones",
                   "ko": "{what} 값이 패딩된 소스 토큰에서 {high:.3f}에 이르고, 실제 토큰에서는 최대 {real:.3f}입니다"},
    "ca_above_diagonal": {"en": "your {what} are 0 above the diagonal, where they should reach {expected:.3f}",
                          "ko": "{what} 값이 대각선 위에서 0인데, 그곳의 값은 {expected:.3f}에 이르러야 합니다"},
    "ca_same_rows": {"en": "all {queries} queries get the same {what} row (rows differ by at most {spread:.1e})",
                     "ko": "쿼리 {queries}개가 모두 같은 {what} 행을 받습니다 (행 사이의 차이가 최대 {spread:.1e})"},
    "ca_empty_rows": {"en": "{empty} whole query rows of your {what} are 0 (or NaN) with {size} queries and source tokens",
                      "ko": "쿼리와 소스 토큰이 {size}개일 때 {what}의 쿼리 행 {empty}개 전체가 0(또는 NaN)입니다"},
    "ca_between_calls": {"en": "two calls on the same inputs in eval mode give {what}s that differ by up to {gap:.3f}",
                         "ko": "평가 모드에서 같은 입력으로 두 번 호출하면 {what} 값이 최대 {gap:.3f}만큼 달라집니다"},
    # the checks
    "ca_uses_library": {"en": "uses {name}: this question asks you to write the attention yourself",
                        "ko": "{name}을(를) 사용합니다. 이 문제는 어텐션을 직접 작성하라고 요구합니다"},
    "ca_crashed_square": {"en": "{found} (your code crashed on the test's shapes and gave this on square ones)",
                          "ko": "{found} (코드가 테스트의 모양에서는 오류를 냈고, 정사각형 모양에서는 이 결과를 냈습니다)"},
    "ca_weights_sum": {"en": "your weights don't sum to 1 over the source tokens: row sums range from {low:.3f} to {high:.3f}",
                       "ko": "가중치의 합이 소스 토큰에 대해 1이 아닙니다: 행의 합이 {low:.3f}부터 {high:.3f}까지입니다"},
    "ca_not_pair": {"en": "{what} must return a tuple (output, weights), got {got}",
                    "ko": "{what}은(는) 튜플 (output, weights)를 반환해야 하는데 {got}을(를) 반환했습니다"},
    "ca_not_module": {"en": "{what}(config) must build an nn.Module, got {got}",
                      "ko": "{what}(config)은(는) nn.Module을 만들어야 하는데 {got}을(를) 만들었습니다"},
    "ca_needs_linears": {"en": "CrossAttention needs nn.Linear(D, D) layers named {missing}",
                         "ko": "CrossAttention에는 이름이 {missing}인 nn.Linear(D, D) 층이 필요합니다"},
    "ca_post_ln_hint": {"en": "; post-LN is x = norm(x + sublayer(x)): masked self-attention, cross-attention, feed-forward",
                        "ko": ". post-LN은 x = norm(x + sublayer(x))이고, 하위 층 순서는 마스크된 셀프 어텐션, 교차 어텐션, "
                              "피드포워드입니다"},
    "ca_subclasses": {"en": "{what} subclasses {short}: this question asks for your own decoder layer",
                      "ko": "{what} 클래스가 {short}을(를) 상속합니다. 이 문제는 직접 작성한 디코더 층을 요구합니다"},
    "ca_uses_layer": {"en": "uses {name}: this question asks for your own decoder layer",
                      "ko": "{name}을(를) 사용합니다. 이 문제는 직접 작성한 디코더 층을 요구합니다"},
    "ca_wraps_layer": {"en": "MyDecoderLayer wraps anatomy.TransformerDecoderLayer: write the layer yourself",
                       "ko": "MyDecoderLayer가 anatomy.TransformerDecoderLayer를 감싸고 있습니다. 층을 직접 작성하세요"},
    "ca_layer_names": {"en": "use TransformerDecoderLayer's names: missing {missing}, unexpected {unexpected}",
                       "ko": "TransformerDecoderLayer의 이름을 쓰세요: 빠진 이름 {missing}, 예상하지 못한 이름 {unexpected}"},
    "ca_layer_triple": {"en": "forward must return (x, self-attention weights, cross-attention weights){note}",
                        "ko": "forward는 (x, 셀프 어텐션 가중치, 교차 어텐션 가중치)를 반환해야 합니다{note}"},
    "ca_substituted": {"en": " (your CrossAttention, question 3, is not right yet, so this used a known-good "
                             "cross-attention in its place)",
                       "ko": " (문제 3의 CrossAttention이 아직 올바르지 않아, 그 자리에 검증된 교차 어텐션을 썼습니다)"},
    "ca_layer_substituted": {"en": " (your MyDecoderLayer, question 4, is not right yet, so each of your layers ran a "
                                   "known-good forward over its own modules and weights)",
                             "ko": " (문제 4의 MyDecoderLayer가 아직 올바르지 않아, 각 층이 자신의 모듈과 가중치로 "
                                   "검증된 forward를 실행했습니다)"},
    "ca_translator_triple": {"en": "in the translator, your layer must return (x {shape}, self-attention weights, "
                                   "cross-attention weights)",
                             "ko": "번역기 안에서 층은 (x {shape}, 셀프 어텐션 가중치, 교차 어텐션 가중치)를 "
                                   "반환해야 합니다"},
    "ca_no_return": {"en": "swap_in forgot to return the model: it returned None; end it with `return model`",
                     "ko": "swap_in이 모델을 반환하지 않았습니다(None 반환). 마지막에 `return model`을 쓰세요"},
    "ca_no_return_name": {"en": "swap_in forgot to return the model", "ko": "swap_in이 모델을 반환하지 않았습니다"},
    "ca_layer_class": {"en": "model.decoder.layers[{i}] is a {got}, not your MyDecoderLayer",
                       "ko": "model.decoder.layers[{i}]의 클래스가 MyDecoderLayer가 아니라 {got}입니다"},
    "ca_still_library": {"en": "model.decoder.layers[{i}] still holds anatomy.TransformerDecoderLayer: swap in your own class",
                         "ko": "model.decoder.layers[{i}]에 아직 anatomy.TransformerDecoderLayer가 있습니다. 직접 만든 "
                               "클래스로 바꾸세요"},
    "ca_not_trained": {"en": "model.decoder.layers[{i}] does not hold the trained weights: load_state_dict(old.state_dict())",
                       "ko": "model.decoder.layers[{i}]에 학습된 가중치가 없습니다: load_state_dict(old.state_dict())"},
    "ca_layer_count": {"en": "the decoder must keep its {expected} layers, found {got}",
                       "ko": "디코더는 층 {expected}개를 그대로 유지해야 하는데 {got}개가 있습니다"},
    "ca_translation_example": {"en": "{sep}{source!r} -> {got!r} (expected {expected})",
                               "ko": "{sep}{source!r} -> {got!r} (기대한 값 {expected})"},
    "ca_wrong_dates": {"en": "{wrong} of {count} held-out dates are translated wrongly, e.g. {examples}{note}",
                       "ko": "홀드아웃 날짜 {count}개 중 {wrong}개가 잘못 번역되었습니다. 예: {examples}{note}"},
}
