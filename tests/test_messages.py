"""The homeworks' message catalogue (anatomy.homework.messages): every key in English and Korean with the
same {fields}, and no student-facing message of homeworks 1-3 or the grader built outside it.

The structural test walks the source of anatomy/homework/ and anatomy_grading/: wherever a message is made
(Feedback, PartialCredit, Mistake, Message, NotebookError, say, ungraded, a case's "output"), its words must
be a catalogue key, never a literal sentence or an f-string, so an English-only message cannot slip in.
"""
from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path

import pytest
import torch

from anatomy.homework import messages
from anatomy.homework.feedback import Feedback, compare
from anatomy.homework.messages import CATALOGUE, LANGUAGES, Message, Together, fields_of, say, speak

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*(ROOT / "anatomy" / "homework").rglob("*.py"), *(ROOT / "anatomy_grading").glob("*.py")])
SOURCES = [p for p in SOURCES if "messages" not in p.relative_to(ROOT).parts]  # the catalogue itself holds the words
# a call that makes a message -> the positions of its arguments that must be catalogue keys
MAKERS = {"Feedback": (0, 1), "PartialCredit": (0,), "Mistake": (0, 1), "Message": (0,), "NotebookError": (0,),
          "say": (0,), "ungraded": (1,), "Together": range(99)}
HANGUL = re.compile("[\uac00-\ud7a3]")


@pytest.mark.parametrize("key", sorted(CATALOGUE))
def test_every_message_has_both_languages_with_the_same_fields(key):
    texts = CATALOGUE[key]
    assert set(texts) == set(LANGUAGES), f"{key}: languages {sorted(texts)}"
    assert fields_of(texts["en"]) == fields_of(texts["ko"]), f"{key}: the two languages fill different fields"
    words = re.sub(r"\{[^}]*\}", "", texts["en"])
    if re.search(r"\b[a-z]{3,}\b[^()]*\b[a-z]{3,}\b", words):  # English words (not only code names): Korean ones too
        assert HANGUL.search(texts["ko"]), f"{key}: the Korean entry is not translated: {texts['ko']!r}"


def message_arguments(tree: ast.AST):
    """(line, maker, the argument node) for every argument of a message maker that must be a key."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            for position in MAKERS.get(name, ()):
                if position < len(node.args):
                    yield node.lineno, name, node.args[position]
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant)
                                                and t.slice.value == "output" for t in node.targets):
            yield node.lineno, "output", node.value


def words_not_keys(source: str) -> list[str]:
    """Where a message is made from a literal that is no catalogue key, an f-string, or text put together."""
    found = []
    for line, maker, argument in message_arguments(ast.parse(source)):
        if isinstance(argument, ast.Starred) or (isinstance(argument, ast.Constant) and argument.value is None):
            continue
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            if argument.value not in CATALOGUE and re.search("[^\\W\\d_]", argument.value):  # separators may be literal
                found.append(f"line {line}: {maker}({argument.value[:50]!r}) is no catalogue key")
        elif isinstance(argument, (ast.JoinedStr, ast.BinOp)) or (
                isinstance(argument, ast.Call) and getattr(argument.func, "attr", None) in ("format", "join")):
            found.append(f"line {line}: {maker}(...) is built from text ({type(argument).__name__}), not a catalogue key")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_message_is_built_outside_the_catalogue(path):
    assert words_not_keys(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("planted", [
    'raise Feedback(f"your weights are {x}")',
    'raise Feedback("your weights are wrong")',
    'Mistake("forgot the scaling", "no_scaling")',
    'test["output"] = "the grader could not check this case"',
    'raise Feedback("ca_weights_sum" + " (really)")',
    'return ungraded(plan, "every case is 0, sorry", flag)',
    'raise Feedback(Together(found.message, " (and more)"))',
    'raise PartialCredit(Together("; ".join(lines)), share)',
])
def test_the_structural_test_fails_on_an_english_only_message(planted):
    assert words_not_keys(planted), "a message written as text must be found"


def test_the_structural_test_accepts_keys_names_and_messages():
    assert words_not_keys('raise Feedback("ca_weights_sum", low=1.0, high=2.0)\n'
                          'raise Feedback(Together(feedback.message, *note), feedback.name)\n'
                          'MISTAKES = {n: Mistake(*keys, evidence) for n, keys in MISTAKE_KEYS.items()}\n'
                          'test["output"] = messages.say("passed", language)') == []


def test_a_message_is_worded_once_in_either_language():
    scores = Message("what_scores")
    note = Message("ca_substituted")
    made = Together(Message("ca_ratio", what=scores, ratio=2.8284), note)
    assert made == made.text("en") == "your scores are 2.828 times the expected ones" + note.text("en")
    assert made.text("ko") == "점수 값이 기대한 값의 2.828배입니다" + note.text("ko")
    assert pickle.loads(pickle.dumps(made)).text("ko") == made.text("ko")


def test_feedback_carries_its_key_so_the_grader_chooses_the_language():
    found = Feedback("ca_weights_sum", low=0.5, high=1.5)
    assert found.message.key == "ca_weights_sum" and found.name is None
    assert str(found) == "your weights don't sum to 1 over the source tokens: row sums range from 0.500 to 1.500"
    assert found.text("ko") == "가중치의 합이 소스 토큰에 대해 1이 아닙니다: 행의 합이 0.500부터 1.500까지입니다"
    with pytest.raises(Feedback) as raised:
        compare(torch.zeros(2), torch.ones(2), "what_weights")
    assert "가중치[0]의 값이 0.000인데, 기대한 값은 1.000입니다" in raised.value.text("ko")


def test_speak_sets_the_notebooks_language_and_refuses_others():
    try:
        speak("ko")
        assert str(Feedback("st_no_grad")) == CATALOGUE["st_no_grad"]["ko"]
        assert say("passed") == "통과"
    finally:
        speak(None)
    assert str(Feedback("st_no_grad")) == CATALOGUE["st_no_grad"]["en"]
    with pytest.raises(ValueError, match=r"language must be one of \('en', 'ko'\), got 'fr'"):
        speak("fr")
    with pytest.raises(KeyError, match="no message 'no_such_key' in the catalogue"):
        Feedback("no_such_key")


def test_numbers_are_formatted_alike_in_both_languages():
    for key, texts in CATALOGUE.items():
        specs = {lang: sorted(spec for _, _, spec in fields_of(texts[lang])) for lang in LANGUAGES}
        assert specs["en"] == specs["ko"], key
    assert "{:.1%}".format(0.8125) in say("st_missed", "ko", accuracy=0.8125, bar=0.8)
    assert "81.2%" in say("st_missed", "en", accuracy=0.8125, bar=0.8)
    assert messages.current() == "en"


def test_a_check_cell_of_the_korean_edition_prints_korean(tmp_path, monkeypatch, capsys):
    """A student runs notebooks/ko/08_...ipynb there: its setup records the edition, and the homework's
    check (the one otter's check cell calls) prints its feedback in Korean; the English edition's in English."""
    from anatomy.display.notebook import enter_the_english_folder
    from anatomy.homework import cross_attention as hw

    def scores(q, k):  # question 1 without the 1/√d
        return q @ k.transpose(-2, -1)

    monkeypatch.setenv("ANATOMY_EDITION", "en")  # restored after the test
    (tmp_path / "notebooks" / "ko").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "notebooks")
    enter_the_english_folder()
    hw.check_scores(scores, seed=0)
    assert capsys.readouterr().out.startswith("forgot the 1/√d scaling (your scores are 2.828 times the expected ones)")
    monkeypatch.chdir(tmp_path / "notebooks" / "ko")
    enter_the_english_folder()
    assert messages.current() == "ko" and "the Korean edition runs where" in capsys.readouterr().out
    hw.check_scores(scores, seed=0)
    assert capsys.readouterr().out.startswith("1/√d 스케일링을 빠뜨렸습니다 (점수 값이 기대한 값의 2.828배입니다). "
                                              "고치는 방법: 점수를 쿼리/키의 너비 d의 제곱근 √d로 나누세요.")


def test_the_grader_words_each_case_in_the_submissions_language():
    """grader.grade_case: the verdict, the mistake's name (all a hidden case shows), "passed" and a child's
    failure, each in the language grade() read from the notebook; the score does not depend on it."""
    from types import SimpleNamespace

    from anatomy.homework.cross_attention.mistakes import MISTAKES
    from anatomy_grading.connection import ChildFailed
    from anatomy_grading.grader import Result, grade_case

    class Runner:
        def ready(self):
            return SimpleNamespace(answer=lambda name: name)

        def close(self):
            pass

    def verdict(answer, seed=0):
        if answer == "hangs":
            raise ChildFailed("did not finish within 10 s")
        wrong = answer == "unscaled"
        return MISTAKES["no_scaling"].feedback(torch.full((2,), 2.0), torch.ones(2), "what_scores") if wrong else None

    checks = SimpleNamespace(check_scores=SimpleNamespace(verdict=verdict))
    graded = {}
    for language in LANGUAGES:
        for answer in ("unscaled", "right", "hangs"):
            test = {"question": answer, "max_score": 2.0, "score": 0.0, "case": {"check": "check_scores", "args": [{"answer": answer}],
                                                                  "kwargs": {}}}
            grade_case(test, {}, Runner(), checks, Result(), language)
            graded[language, answer] = test
    assert graded["en", "unscaled"]["output"].startswith("forgot the 1/√d scaling (your scores are 2.000 times")
    assert graded["ko", "unscaled"]["output"].startswith("1/√d 스케일링을 빠뜨렸습니다 (점수 값이 기대한 값의 2.000배입니다)")
    assert (graded["en", "unscaled"]["mistake"], graded["ko", "unscaled"]["mistake"]) == (
        "forgot the 1/√d scaling", "1/√d 스케일링을 빠뜨렸습니다")
    assert (graded["en", "right"]["output"], graded["ko", "right"]["output"]) == ("passed", "통과")
    assert graded["ko", "hangs"]["output"] == "이 확인이 실행되는 동안 코드가 10초 안에 끝나지 않았으므로 이 문제는 0점입니다"
    assert all(graded["en", a]["score"] == graded["ko", a]["score"] for a in ("unscaled", "right", "hangs"))
    assert [graded["ko", a]["score"] for a in ("unscaled", "right", "hangs")] == [0.0, 2.0, 0.0]
