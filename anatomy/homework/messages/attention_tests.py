"""Homework 3's messages (notebook 19, anatomy.homework.attention_tests): the mutant categories, the
score and survivors, the reasons a question scores 0. Part of the catalogue, anatomy.homework.messages.
"""
from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "cat_scaling": {"en": "a scaling error (the scores' 1/√d)", "ko": "스케일링 오류 (점수의 1/√d)"},
    "cat_masking": {"en": "a masking error", "ko": "마스킹 오류"},
    "cat_padded_rows": {"en": "a query whose keys are all masked (NaN instead of zeros)",
                        "ko": "키가 모두 마스킹된 쿼리 (0 대신 NaN)"},
    "cat_cross_causal": {"en": "cross-attention made causal over the source", "ko": "소스에 인과 마스크를 건 교차 어텐션"},
    "cat_padded_source": {"en": "padded source tokens (memory_mask) not ignored",
                          "ko": "패딩된 소스 토큰(memory_mask)을 무시하지 않음"},
    "cat_softmax_axis": {"en": "a softmax over the wrong axis", "ko": "잘못된 축에 대한 소프트맥스"},
    "cat_values": {"en": "an error in what the weights average (the values)", "ko": "가중치가 평균하는 값(value)의 오류"},
    "cat_causal": {"en": "a causal-mask error", "ko": "인과 마스크 오류"},
    "cat_position_offset": {"en": "a position offset error (queries that are the last of the keys)",
                            "ko": "위치 오프셋 오류 (키의 마지막 위치에 있는 쿼리)"},
    "cat_heads": {"en": "an error splitting or merging the heads", "ko": "헤드를 나누거나 합치는 오류"},
    "cat_projection": {"en": "a projection error (which weights make Q, K, V or the output)",
                       "ko": "투영 오류 (Q, K, V나 출력을 만드는 가중치)"},
    "cat_cross_source": {"en": "cross-attention reading the wrong source", "ko": "잘못된 소스를 읽는 교차 어텐션"},
    "cat_cache": {"en": "a KV-cache error", "ko": "KV 캐시 오류"},
    "cat_equivalent": {"en": "a change that keeps the behaviour", "ko": "동작이 같은 변경"},
    "score": {"en": "your tests caught {caught} of {total} planted bugs", "ko": "심어 둔 버그 {total}개 중 테스트가 {caught}개를 잡았습니다"},
    "survivors": {"en": "not caught: {categories}", "ko": "잡지 못한 버그: {categories}"},
    "equivalent_failed": {"en": "your tests failed on {count} correct variant(s) (the same behaviour, written differently): "
                                "{tests}; each costs a quarter of this question's points; compare floats with a "
                                "tolerance (torch.testing.assert_close), not equality or allclose's defaults",
                          "ko": "테스트가 올바른 변형(동작은 같고 쓰는 방식만 다른 동등 뮤턴트) {count}개를 실패로 "
                                "판정했습니다: {tests}. 변형 하나마다 이 문제 점수의 4분의 1을 잃습니다. 부동소수점은 같음(==)이나 allclose의 "
                                "기본값이 아니라 허용 오차(torch.testing.assert_close)로 비교하세요"},
    "correct_fails": {"en": "your test {test} fails on the correct implementation ({why}), so this question scores 0: "
                            "a test that fails everything catches every bug and proves nothing",
                      "ko": "{test} 테스트가 올바른 구현에서 실패하므로({why}) 이 문제는 0점입니다. 모든 것을 실패시키는 "
                            "테스트는 모든 버그를 잡지만 아무것도 증명하지 못합니다"},
    "writes_file": {"en": "your test {test} writes a file ({why}), so this question scores 0: a file would outlive the "
                          "run, and what one run keeps must not reach the next",
                    "ko": "{test} 테스트가 파일을 쓰므로({why}) 이 문제는 0점입니다. 파일은 실행이 끝나도 남으므로, "
                          "한 실행이 남긴 것이 다음 실행에 닿으면 안 됩니다"},
    "files_sealed": {"en": "writing files is switched off in the grader", "ko": "채점기에서는 파일 쓰기가 꺼져 있습니다"},
    "kernel_refused": {"en": "this call is switched off in the grader: it leaves a mark in the kernel that a later run "
                             "could read",
                       "ko": "채점기에서는 이 호출이 꺼져 있습니다. 이 호출은 나중 실행이 읽을 수 있는 흔적을 커널에 "
                             "남깁니다"},
    "thread_left": {"en": "a thread your notebook started is still running in the grader ({threads}), and a cell must "
                          "leave none running",
                    "ko": "노트북이 시작한 스레드가 채점기에서 아직 실행 중이며({threads}), 셀은 실행 중인 스레드를 남기면 "
                          "안 됩니다"},
    "handlers_refused": {"en": "signal handlers are switched off in the grader",
                         "ko": "채점기에서는 시그널 처리기가 꺼져 있습니다"},
    "no_tests": {"en": "no test functions (def test_...(impl)) for this question, so it scores 0",
                 "ko": "이 문제에 테스트 함수(def test_...(impl))가 없으므로 0점입니다"},
    "too_many": {"en": "{count} tests for this question, more than the {limit} allowed, so it scores 0",
                 "ko": "이 문제의 테스트가 {count}개로 허용된 {limit}개보다 많으므로 0점입니다"},
    "state_kept": {"en": "your tests read the global {name}, an object of type {kind} whose state cannot be reset between "
                         "runs (every run starts from the same globals), so this question scores 0: create it inside the test",
                   "ko": "테스트가 읽는 전역 변수 {name}({kind} 객체)는 실행 사이에 상태를 되돌릴 수 없으므로(모든 실행은 같은 "
                         "전역 상태에서 시작합니다) 이 문제는 0점입니다. 테스트 안에서 만드세요"},
    "practice_global": {"en": "your tests read the global {name}, the notebook's practice object (hw.practice(...)), so "
                              "this question scores 0: a test uses only its parameter `impl`, the implementation under test",
                        "ko": "테스트가 전역 변수 {name}을(를) 읽는데, 이것은 노트북의 연습용 객체(hw.practice(...))이므로 이 "
                              "문제는 0점입니다. 테스트는 매개변수 `impl`(테스트 대상 구현)만 써야 합니다"},
    "practice_read": {"en": "your test {test} reads the global {name}, the notebook's practice object (hw.practice(...)), "
                            "not the implementation the grader passes it, so it fails on the correct implementation and "
                            "this question scores 0: use only the test's parameter (def test_...(impl): impl.attention(...))",
                      "ko": "{test} 테스트가 채점기가 넘겨주는 구현이 아니라 전역 변수 {name}(노트북의 연습용 객체 "
                            "hw.practice(...))을(를) 읽으므로 올바른 구현에서 실패하고 이 문제는 0점입니다. 테스트의 "
                            "매개변수만 쓰세요(def test_...(impl): impl.attention(...))"},
    "practice_in_check": {"en": "the notebook's practice object (hw.practice(...)) answers nothing while a check runs: "
                                "a test uses only its parameter `impl`, never the practice object",
                          "ko": "확인이 실행되는 동안 노트북의 연습용 객체(hw.practice(...))는 아무것도 답하지 않습니다. "
                                "테스트는 매개변수 `impl`만 쓰고, 연습용 객체는 쓰지 않습니다"},
    "timeout": {"en": "your test {test} ran past its limit of {seconds:g} s of CPU time in one run ({wall:g} s on the "
                      "clock), so this question scores 0",
                "ko": "{test} 테스트가 한 번 실행의 제한인 CPU 시간 {seconds:g}초(시계로는 {wall:g}초)를 넘겼으므로 이 문제는 "
                      "0점입니다"},
    "run_lost": {"en": "a run of your test {test} ended without its result (it ended its own process, crashed, or spent "
                       "its CPU time inside one long call), so this question scores 0",
                 "ko": "{test} 테스트의 한 실행이 결과 없이 끝났습니다(프로세스를 스스로 끝냈거나, 비정상 종료되었거나, 한 번의 긴 호출 "
                       "안에서 CPU 시간을 다 썼습니다). 그래서 이 문제는 0점입니다"},
    "implementation_failed": {"en": "the implementation your test called stopped while answering it ({why}): a request "
                                    "it cannot hold (a huge tensor, say) stops it, so this question scores 0",
                              "ko": "테스트가 호출한 구현이 요청에 답하다가 멈췄습니다({why}). 감당할 수 없는 요청(예: 아주 큰 "
                                    "텐서)은 구현을 멈추게 하므로 이 문제는 0점입니다"},
    "question_budget": {"en": "this question's tests ran past {seconds:g} s of CPU time in all, so it scores 0",
                        "ko": "이 문제의 테스트가 모두 합쳐 CPU 시간 {seconds:g}초를 넘겼으므로 0점입니다"},
    "question_clock": {"en": "this question's runs ran past {wall:g} s on the clock in all (the tests' own CPU time, "
                             "the implementation's answers and the grader's work together), so it scores 0",
                       "ko": "이 문제의 실행들이 시계로 모두 합쳐 {wall:g}초를 넘겼습니다(테스트 자신의 CPU 시간, 구현의 응답, "
                             "채점기의 작업을 모두 합친 시간). 그래서 이 문제는 0점입니다"},
    "forbidden": {"en": "your tests use {what} ({why}), so this question scores 0 and is flagged for your instructor",
                  "ko": "테스트가 {what}을(를) 사용합니다. {why}. 그래서 이 문제는 0점이며, 강사가 검토하도록 "
                        "표시되었습니다"},
    # what review.py refused (its KEYS), worded here: review.py itself imports the standard library only
    "seen_code": {"en": "{code}", "ko": "코드 {code}"},  # code in backquotes: `import inspect`, `open`, `.save`, `global n`
    "seen_private": {"en": "the private attribute `.{attr}`", "ko": "비공개 속성 `.{attr}`"},
    "seen_private_string": {"en": "the private attribute `.{attr}` in the string {text}",
                            "ko": "문자열 {text} 안의 비공개 속성 `.{attr}`"},
    "seen_module_string": {"en": "the module `{attr}` named in the string {text}", "ko": "문자열 {text} 안의 모듈 `{attr}`"},
    "seen_state": {"en": "`{code}` (state kept from one run to the next)", "ko": "`{code}` (실행과 실행 사이에 남는 상태)"},
    "seen_homework": {"en": "`{name}` (the homework's own module: tests may not use it)",
                      "ko": "`{name}` (과제 자체 모듈: 테스트에서 쓸 수 없음)"},
    "seen_syntax": {"en": "a syntax error (line {line}: {msg})", "ko": "문법 오류(줄 {line}: {msg})"},
    "seen_module": {"en": "`{code}` (the module `{module}`)", "ko": "`{code}` (모듈 `{module}`)"},
    "seen_name": {"en": "`{name}` (an object of the assignment or the notebook, such as the notebook's practice object "
                        "`impl`: a test reads only the `impl` it receives)",
                  "ko": "`{name}` (노트북의 연습용 객체 `impl`처럼 과제나 노트북 자체의 객체: 테스트는 자기가 받은 `impl`만 "
                        "읽습니다)"},
    "seen_torch": {"en": "`{code}` (`{module}` is not among the names the rules allow: of `torch` its tensor functions, "
                         "`dtype`s and the names listed, of `copy` `copy.copy` and `copy.deepcopy`)",
                   "ko": "`{code}` (`{module}`은(는) 규칙이 허용한 이름이 아닙니다: `torch`에서는 텐서 함수, `dtype`, 나열한 이름, "
                         "`copy`에서는 `copy.copy`와 `copy.deepcopy`만 됩니다)"},
    "seen_word": {"en": "`{code}` (a name of the grading code or its planted bugs, which no answer may hold)",
                  "ko": "`{code}` (채점 코드나 심어 둔 버그의 이름: 답안에 담을 수 없음)"},
    "seen_module_value": {"en": "`{code}` (a module used as a value: write `{code}.name` where you use it; if "
                                "`{code}` is a variable of yours, give it a name no `import` in the notebook uses)",
                          "ko": "`{code}` (값으로 쓴 모듈: 쓰는 곳에서 `{code}.name`처럼 쓰세요. `{code}`가 직접 만든 "
                                "변수라면 노트북의 `import`가 쓰지 않는 이름을 붙이세요)"},
    "why_allowed": {"en": "a test may use only `torch` (its tensor functions and `dtype`s, with `torch.nn`, "
                          "`torch.nn.functional`, `torch.nn.init`, `torch.testing`, `torch.linalg`, `torch.special`, "
                          "`torch.fft`), `math`, `itertools`, `collections` (with `collections.abc`), `copy`, Python's "
                          "plain built-ins and the names your own cells define",
                    "ko": "테스트는 `torch`(텐서 함수와 `dtype`, 그리고 `torch.nn`, `torch.nn.functional`, `torch.nn.init`, "
                          "`torch.testing`, `torch.linalg`, `torch.special`, `torch.fft`), `math`, `itertools`, "
                          "`collections`(`collections.abc` 포함), `copy`, 파이썬의 기본 내장 함수, 그리고 여러분의 셀이 "
                          "정의한 이름만 쓸 수 있습니다"},
    "why_detect": {"en": "a test may look only at what the implementation computes, never at which one runs",
                   "ko": "테스트는 구현이 계산한 결과만 볼 수 있으며, 어떤 구현이 실행되는지 알아내려 하면 안 됩니다"},
    "why_side_effects": {"en": "tests may not write files or start processes", "ko": "테스트는 파일을 쓰거나 프로세스를 시작할 수 없습니다"},
    "forbidden_answer": {"en": "your tests use {what} (cell {cell}): {why}, so this question scores 0 and is flagged "
                               "for your instructor",
                         "ko": "테스트가 {what}을(를) 사용합니다({cell}번 셀). {why}. 그래서 이 문제는 0점이며, 강사가 "
                               "검토하도록 표시되었습니다"},
    "why_rules": {"en": "a test may use only the allowed modules and Python's plain built-ins, look only at what "
                        "the implementation computes, never at which one runs, and may not write files or start processes",
                  "ko": "테스트는 허용된 모듈과 파이썬의 기본 내장 함수만 쓸 수 있고, 구현이 계산한 결과만 볼 수 있으며, "
                        "어떤 구현이 실행되는지 알아내거나 파일을 쓰거나 프로세스를 시작하면 안 됩니다"},
    "not_a_list": {"en": "the tests must be a list of functions [test_a, test_b, ...], got {got}",
                   "ko": "테스트는 함수의 리스트 [test_a, test_b, ...]여야 하는데 {got}을(를) 받았습니다"},
    "not_a_function": {"en": "item {number} of the list is not a function, got {got}",
                       "ko": "리스트의 {number}번째 항목이 함수가 아니라 {got}입니다"},
    "not_implemented": {"en": "not yet implemented: {error}", "ko": "아직 구현되지 않았습니다: {error}"},
    "child_timeout": {"en": "your code did not finish within {seconds} s while this check ran, so this question scores 0",
                      "ko": "이 확인이 실행되는 동안 코드가 {seconds}초 안에 끝나지 않았으므로 이 문제는 0점입니다"},
    "child_notebook_limit": {"en": "your code ran past the grader's limit of {seconds} s for one notebook while this "
                                   "check ran, so this question scores 0",
                             "ko": "이 확인이 실행되는 동안 코드가 노트북 하나에 주어진 채점 제한 시간 {seconds}초를 "
                                   "넘겼으므로 이 문제는 0점입니다"},
    "child_stopped": {"en": "your code stopped while this check ran, so this question scores 0",
                      "ko": "이 확인이 실행되는 동안 코드가 멈췄으므로 이 문제는 0점입니다"},
    "child_failed": {"en": "your code {why} while this check ran, so this question scores 0",
                     "ko": "이 확인이 실행되는 동안 코드가 실패했으므로({why}) 이 문제는 0점입니다"},
    "import_error": {"en": "your test cell has a syntax error (line {line}: {msg}), so this question scores 0",
                     "ko": "테스트 셀에 문법 오류가 있어(줄 {line}: {msg}) 이 문제는 0점입니다"},
    "copy_refused": {"en": "objects of the implementation under test cannot be copied: build another and load the "
                           "weights, twin.load_state_dict(mha.state_dict())",
                     "ko": "테스트 대상 구현의 객체는 복사할 수 없습니다. 하나 더 만들고 가중치를 불러오세요: "
                           "twin.load_state_dict(mha.state_dict())"},
}
