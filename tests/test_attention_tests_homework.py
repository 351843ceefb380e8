"""Homework 3 (notebook 19): students' tests graded by the planted bugs they catch
(anatomy.homework.attention_tests). The instructor's reference suite must catch every real mutant
and fail no equivalent one; thin, failing, hanging, empty and prying suites score as the issue says."""
from __future__ import annotations

import importlib.util
import random
import re
import types
from pathlib import Path

import pytest
import torch

from anatomy.homework import messages
from anatomy.homework.attention_tests import mutation
from anatomy.homework.attention_tests.mutants import MUTANTS, QUESTIONS, Mutant
from anatomy.homework.attention_tests.subject import build

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "instructor" / "attention_tests_reference.py"


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def grade(suite: dict, source: str, language: str = "en", **options) -> dict[str, mutation.Graded]:
    results = {}
    for question in QUESTIONS:
        tests = {t.__name__: t for t in suite.get(question, [])}
        results[question] = mutation.grade_question(question, list(tests), mutation.in_process(tests), language,
                                                    source, rng=random.Random(0), **options)
    return results


def write(tmp_path: Path, source: str):
    path = tmp_path / "student_suite.py"
    path.write_text(source)
    return load(path), source


def test_catalogue_of_mutants():
    real = [m for m in MUTANTS if not m.equivalent]
    assert len(real) >= 20 and sum(m.equivalent for m in MUTANTS) >= 2
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)
    assert {m.question for m in real} == set(QUESTIONS)
    assert all(m.category in messages.CATALOGUE for m in MUTANTS)


def test_reference_suite_catches_every_real_mutant_and_no_equivalent_one():
    results = grade(load(REFERENCE).SUITE, REFERENCE.read_text())
    for question, graded in results.items():
        assert graded.share == 1.0, (question, graded.lines)
        assert graded.survivors == [] and graded.flags == []
        assert not any("correct variant" in line for line in graded.lines), graded.lines


@pytest.mark.parametrize("name", [m.name for m in MUTANTS if m.equivalent])
def test_equivalent_mutants_compute_what_the_correct_one_does(name):
    right, other = build(None), build(name)
    torch.manual_seed(1)
    q, k, v = torch.randn(2, 4, 3, 8), torch.randn(2, 4, 5, 8), torch.randn(2, 4, 5, 8)
    mask = torch.rand(3, 5) > 0.4
    mask[0] = False  # a fully masked row
    for a, b in zip(right.attention(q, k, v, mask), other.attention(q, k, v, mask)):
        torch.testing.assert_close(a, b)
    assert torch.equal(right.causal_mask(3, 6), other.causal_mask(3, 6))
    torch.manual_seed(2)
    first = right.MultiHeadAttention(16, 4)
    torch.manual_seed(2)
    second = other.MultiHeadAttention(16, 4)
    x = torch.randn(2, 5, 16)
    torch.testing.assert_close(first(x, mask=right.causal_mask(5))[0], second(x, mask=other.causal_mask(5))[0])


SHAPES_ONLY = '''
import torch


def test_attention_shapes(impl):
    out, weights = impl.attention(torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 6))
    assert out.shape == (2, 3, 6) and weights.shape == (2, 3, 5)


def test_causal_shape(impl):
    assert impl.causal_mask(4).shape == (4, 4)


def test_mha_shapes(impl):
    out, weights = impl.MultiHeadAttention(16, 4)(torch.randn(2, 3, 16))
    assert out.shape == (2, 3, 16) and weights.shape == (2, 4, 3, 3)


def test_decoder_shape(impl):
    assert impl.DecoderLayer(16, 4, 32)(torch.randn(2, 3, 16), torch.randn(2, 5, 16)).shape == (2, 3, 16)


def test_cache_shape(impl):
    assert impl.MultiHeadAttention(16, 4)(torch.randn(2, 3, 16), cache=impl.KVCache())[0].shape == (2, 3, 16)

SUITE = {"q1": [test_attention_shapes], "q2": [test_causal_shape], "q3": [test_mha_shapes],
         "q4": [test_decoder_shape], "q5": [test_cache_shape]}
'''


@pytest.mark.parametrize("language, words", [("en", "a scaling error"), ("ko", "스케일링 오류")])
def test_shape_only_suite_scores_low_and_says_what_it_misses(tmp_path, language, words):
    module, source = write(tmp_path, SHAPES_ONLY)
    results = grade(module.SUITE, source, language)
    assert sum(g.share for g in results.values()) / len(results) < 0.1
    assert all(g.survivors for g in results.values())
    assert words in " ".join(results["q1"].lines)
    assert not any(m.name in line for g in results.values() for line in g.lines for m in MUTANTS)  # categories only


def test_always_failing_suite_scores_zero_and_says_why(tmp_path):
    module, source = write(tmp_path, "def test_no(impl):\n    assert False, 'always'\n\nSUITE = {q: [test_no] for q in "
                                     "('q1', 'q2', 'q3', 'q4', 'q5')}\n")
    for graded in grade(module.SUITE, source).values():
        assert graded.share == 0.0 and "fails on the correct implementation" in graded.lines[0]


def test_a_test_that_counts_its_calls_fails_on_a_later_correct_run(tmp_path):
    module, source = write(tmp_path, "import torch\nSEEN = []\n\ndef test_first_call_only(impl):\n    SEEN.append(1)\n"
                                     "    assert len(SEEN) == 1\n\nSUITE = {'q1': [test_first_call_only]}\n")
    graded = grade(module.SUITE, source)["q1"]  # review.py sees the state kept between runs
    assert graded.share == 0.0 and "state kept from one run to the next" in graded.lines[0] and graded.flags
    for seed in range(5):  # unreviewed (the grader's own rules missed it): every run starts with SEEN == [],
        tests = {"test_first_call_only": module.test_first_call_only}  # so it passes everywhere, catching nothing
        module.SEEN.clear()
        graded = mutation.grade_question("q1", list(tests), mutation.in_process(tests), rng=random.Random(seed))
        assert graded.share == 0.0 and graded.lines[0] == messages.say("score", caught=0, total=9), graded.lines


RECORD = """import torch
FIRST = {}


def test_same_as_first_run(impl):
    torch.manual_seed(1)
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    mask = torch.tensor([[True, True, False, False, False], [False] * 5, [True] * 5])  # a padded row too
    out = impl.attention(q, k, v, mask)[0]
    FIRST.setdefault("out", out)
    assert torch.allclose(FIRST["out"], out)

SUITE = {"q1": [test_same_as_first_run]}
"""


def test_record_and_compare_is_refused_and_loses_even_unreviewed(tmp_path):
    module, source = write(tmp_path, RECORD)
    graded = grade(module.SUITE, source)["q1"]
    assert graded.share == 0.0 and "state kept from one run to the next" in graded.lines[0] and graded.flags
    for seed in range(10):  # unreviewed: every run starts with FIRST == {} (stand_in.run_test), so each run
        tests = {"test_same_as_first_run": module.test_same_as_first_run}  # compares with itself, whichever came first:
        graded = mutation.grade_question("q1", list(tests), mutation.in_process(tests), rng=random.Random(seed))
        assert graded.survivors == [m.name for m in MUTANTS if m.question == "q1" and m.name != "padded_rows_nan"], seed
        assert module.FIRST == {}  # only NaN (padded_rows_nan) differs from itself; the check left FIRST as it was


def test_no_bug_name_on_what_a_test_receives():
    """The review's cheat: impl.KVCache().__getstate__() held the mutant's name (review_hw3 item 1). Python 3.10's
    object has no __getstate__: there the same state is read as vars(obj), which every Python offers."""
    def strings(obj) -> set:
        shown = repr(obj) if isinstance(obj, torch.nn.Module) else type(obj).__qualname__
        state = {**vars(obj), **(obj.__getstate__() if hasattr(obj, "__getstate__") else {})}
        return {v for v in state.values() if isinstance(v, str)} | {shown}
    for mutant in MUTANTS:
        impl, correct = build(mutant.name), build(None)
        assert strings(impl.KVCache()) == strings(correct.KVCache()), mutant.name
        assert strings(impl.MultiHeadAttention(8, 2)) == strings(correct.MultiHeadAttention(8, 2)), mutant.name
        assert strings(impl.DecoderLayer(8, 2, 16)) == strings(correct.DecoderLayer(8, 2, 16)), mutant.name
        assert type(impl.KVCache()).__name__ == "KVCache"


def handed_out(impl) -> tuple[dict, set]:
    """Everything a test can reach from `impl` but code: for each function its names, module, docstring,
    defaults, closure and attributes; for each class its names and __dict__ (walked); for each instance its
    class and __dict__ (two implementations differing only by code give equal walks); and the string
    constants of every function's code."""
    seen: dict[int, str] = {}
    constants: set = set()

    def strings(code) -> list:
        return [c for c in code.co_consts if isinstance(c, str)] + [s for c in code.co_consts
                                                                      if hasattr(c, "co_consts") for s in strings(c)]

    def walk(value, path: str):
        if id(value) in seen:
            return ("seen at", seen[id(value)])
        seen[id(value)] = path
        if isinstance(value, (types.FunctionType, types.MethodType)):
            function = getattr(value, "__func__", value)
            own = walk(value.__self__, path + ".__self__") if isinstance(value, types.MethodType) else None
            cells = [walk(c.cell_contents, path + ".cell") for c in function.__closure__ or ()]
            return ("function", function.__name__, function.__qualname__, function.__module__, function.__doc__,
                    repr(function.__defaults__), repr(function.__kwdefaults__), vars(function), cells,
                    constants.update(strings(function.__code__)), function.__globals__["__name__"], own)
        if isinstance(value, type):
            inside = {k: walk(v, f"{path}.{k}") for k, v in vars(value).items() if k not in ("__dict__", "__weakref__")}
            return ("class", value.__name__, value.__qualname__, value.__module__, value.__mro__[1:], inside)
        if isinstance(value, (str, int, float, bool, type(None))):
            return value
        return ("instance", walk(type(value), path + ".__class__"), {k: walk(v, f"{path}.{k}")
                                                                     for k, v in vars(value).items()})
    return {name: walk(value, name) for name, value in vars(impl).items()}, constants


def test_what_a_test_receives_differs_between_mutants_only_by_code():
    """review_19_second A: attrgetter("_bug")(mha), '{0._bug}'.format(cache) and closures read the bug's name.
    Now no attribute, closure, default, docstring, name or string constant of anything build() hands out
    (functions, classes, their __dict__, the instances it holds) differs between mutants; only code does."""
    correct, _ = handed_out(build(None))
    for mutant in MUTANTS:
        walked, constants = handed_out(build(mutant.name))
        assert walked == correct, mutant.name
        assert not any(m.name in text or "bug" in text for text in constants | {repr(walked)} for m in MUTANTS)
    assert [build(m.name).MultiHeadAttention.split.__code__ for m in MUTANTS].count(
        build(None).MultiHeadAttention.split.__code__) == len(MUTANTS) - 1  # only split_no_transpose changes it


def test_every_variant_replaces_a_step_that_exists():
    from anatomy.homework.attention_tests import subject
    from anatomy.homework.attention_tests.variants import VARIANTS
    assert set(VARIANTS) == {m.name for m in MUTANTS}
    for name, steps in VARIANTS.items():
        for step, code in steps.items():
            owner, method = step.split(".")
            correct = vars(getattr(subject, owner))[method]
            assert code.__code__.co_argcount == correct.__code__.co_argcount and not code.__code__.co_freevars, step
    with pytest.raises(ValueError, match="bug must be None or one of the mutants' names, got 'no_such_bug'"):
        build("no_such_bug")


def test_reading_the_bug_by_a_string_finds_nothing(tmp_path):
    """The reviewer's cheats, unreviewed (source=""): with no name stored, each fails on the correct
    implementation, so it scores 0 even where the review would miss it."""
    module, _ = write(tmp_path, "import operator\n\n"
                      "def test_attr(impl):\n    bug = operator.attrgetter('_bug')(impl.MultiHeadAttention(8, 2))\n"
                      "    assert bug is None or bug.startswith('eq')\n\n"
                      "def test_format(impl):\n    assert '{0._bug}'.format(impl.KVCache()) in ('None', 'eq')\n\n"
                      "def test_closure(impl):\n    assert 'eq' in '{0.__closure__[0].cell_contents}'.format(impl.attention)\n")
    for name in ("test_attr", "test_format", "test_closure"):
        tests = {name: getattr(module, name)}
        graded = mutation.grade_question("q1", list(tests), mutation.in_process(tests), rng=random.Random(0))
        assert graded.share == 0.0 and "fails on the correct implementation" in graded.lines[0], (name, graded.lines)


def test_a_hanging_test_costs_its_own_question_only(tmp_path):
    reference = load(REFERENCE).SUITE
    module, source = write(tmp_path, "def test_hangs(impl):\n    while True:\n        pass\n")
    suite = dict(reference, q1=[module.test_hangs])
    results = grade(suite, source, test_seconds=2.0)  # ample for the reference tests' 33 runs under a loaded suite
    assert results["q1"].share == 0.0 and "ran past its limit of 2 s" in results["q1"].lines[0]
    assert all(results[q].share == 1.0 for q in ("q2", "q3", "q4", "q5"))


def test_no_tests_and_too_many_tests_score_zero_with_a_message():
    assert grade({}, "")["q1"].lines == [messages.say("no_tests")]
    tests = {f"test_{i}": (lambda impl: None) for i in range(mutation.MAX_TESTS + 1)}
    graded = mutation.grade_question("q1", list(tests), mutation.in_process(tests))
    assert graded.share == 0.0 and f"more than the {mutation.MAX_TESTS} allowed" in graded.lines[0]


REFUSALS = [  # (a test's source, what the English refusal names)
    ("import inspect\ndef test_x(impl):\n    assert inspect.isfunction(impl.attention)\n", "the module `inspect`"),
    ("def test_x(impl):\n    assert impl.attention.__closure__\n", "private attribute"),
    ("import time\ndef test_x(impl):\n    start = time.time()\n", "`time` (the module `time`)"),
    ("def test_x(impl):\n    global CALLS\n", "global CALLS"),
    ("def test_x(impl):\n    open('out.txt', 'w').write('x')\n", "`open`"),
    ("import subprocess\ndef test_x(impl):\n    subprocess.run(['ls'])\n", "the module `subprocess`"),
    ("import torch\ndef test_x(impl):\n    torch.save(impl, 'x.pt')\n", "`torch.save` (`torch.save` is not among the names the rules allow"),
    ("import torch\ndef test_x(impl):\n    t = torch\n", "`torch` (a module used as a value"),
    ("def test_x(impl):\n    assert impl.KVCache().__getstate__()\n", "`.__getstate__`"),
    ("def test_x(impl, seen=[]):\n    seen.append(1)\n", "state kept"),
    ("SEEN = {}\ndef test_x(impl):\n    SEEN['a'] = 1\n", "state kept"),
    ("getattr = getattr\ndef test_x(impl):\n    getattr(impl, 'x')\n", "`getattr`"),
    ("def test_x(impl):\n    return id(impl)\n", "`id`"),
    ("import operator\ndef test_x(impl):\n    operator.attrgetter('_bug')(impl.KVCache())\n", "private attribute `._bug`"),
    ("def test_x(impl):\n    assert '{0._bug}'.format(impl.KVCache())\n", "`.format`"),  # fields reading attributes
    ("def test_x(impl):\n    '{0.__closure__[0].cell_contents}'.format(impl.attention)\n", "`.format`"),
    ("from operator import methodcaller as m\ndef test_x(impl):\n    m('__getstate__')(impl.KVCache())\n", "the module `operator`"),
    ("def test_x(impl):\n    assert hw.build(None).causal_mask(2).equal(impl.causal_mask(2))\n", "`hw` (the homework's own module"),
    ("def test_x(impl):\n    from anatomy.homework import attention_tests\n", "from anatomy.homework import"),
    ("import torch\ndef test_x(impl):\n    torch.seen = []\n", "`torch.seen` (state kept"),
    ("import torch\ndef test_x(impl):\n    torch.os.getcwd()\n", "`torch.os`"),  # third reading B: a module
    ("import numpy as np\ndef test_x(impl):\n    assert np.sys.modules\n", "`np` (the module `numpy`)"),  # not allowed
    ("def test_x(impl):\n    import torch.os\n", "`import torch.os` (the module `torch.os`)"),
    ("import torch\ndef test_x(impl):\n    torch.utils.benchmark.Timer\n", "`torch.utils` (the module `torch.utils`)"),
    ("import torch\ndef test_x(impl):\n    torch.from_file('/proc/self/stat', size=8)\n", "`.from_file`"),
    ("from torch import load\ndef test_x(impl):\n    load('x.pt')\n", "`load` (`torch.load` is not among the names the rules allow"),
    ("from torch import *\n", "`from torch import *`"),
    ("def test_x(impl):\n    return type(impl)\n", "`type`"),
    ("input = 3\ndef test_x(impl):\n    return input\n", "`input`"),  # a builtin's name outside a function
    ("def test_x(impl, peek=vars):\n    return peek(impl)\n", "`vars`"),  # a default: the scope around
    ("def test_x(impl):\n    generator = (i for i in range(1))\n    return generator.gi_frame\n", "`.gi_frame`"),
    ("def test_x(impl):\n    return get_ipython()\n", "`get_ipython` (an object of the assignment or the notebook"),
    ("def test_x(impl):\n    try:\n        pass\n    except BaseException:\n        pass\n", "`BaseException`"),
    ("import operator, torch\ndef test_x(impl):\n    operator.attrgetter('sys')(impl)\n", "the module `sys`"),
]


@pytest.mark.parametrize("source, what", REFUSALS)
def test_prying_or_side_effects_score_zero_and_are_flagged(source, what):
    graded = mutation.grade_question("q1", ["test_x"], lambda *_: (None, 0.0), source=source)
    assert graded.share == 0.0 and what in graded.lines[0] and graded.flags


@pytest.mark.parametrize("source", [source for source, _ in REFUSALS] + ["def test_x(impl:\n"])
def test_a_refusal_is_korean_throughout_for_a_korean_submission(source):
    """review_korean_messages B: review.py wrote English descriptions ("the private attribute", "state kept
    from one run to the next", "a syntax error") into the Korean sentence. Outside code in backquotes and
    quoted strings (and Python's own syntax message), the Korean refusal holds no English word; the
    instructor's flag stays English."""
    graded = mutation.grade_question("q1", ["test_x"], lambda *_: (None, 0.0), language="ko", source=source)
    line = graded.lines[0]
    words = re.sub(r"`[^`]*`|'[^']*'|\(줄 \d+: [^)]*\)", "", line)
    assert graded.share == 0.0 and "0점" in line and not re.search(r"[A-Za-z]{3,}", words), line
    assert all(not re.search("[\uac00-\ud7a3]", flag) for flag in graded.flags), graded.flags


def test_review_names_catalogue_keys_and_imports_no_catalogue():
    """review.py returns (key, fields) for each refusal, keys of its KEYS, all in the catalogue; loaded by path
    as the grader's review process does, it imports no torch and no catalogue."""
    from anatomy.homework.attention_tests import review
    from anatomy_grading.words import rules_module
    assert set(review.KEYS) <= set(messages.CATALOGUE)
    found = [what for source, _ in REFUSALS for what, _ in review.forbidden(source)]
    assert {key for key, _ in found} == set(review.KEYS) - {"seen_syntax"}
    assert review.forbidden("def f(:\n") == [(("seen_syntax", {"line": 1, "msg": "invalid syntax"}), "import_error")]
    assert rules_module("anatomy.homework.attention_tests.review").KEYS == review.KEYS
    import subprocess
    import sys
    boot = (f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r}); "
            "from anatomy_grading.words import rules_module; rules_module('anatomy.homework.attention_tests.review'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'anatomy')))")
    done = subprocess.run([sys.executable, "-I", "-c", boot], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[]", (done.stdout, done.stderr)


INNOCENT = """import torch


def test_x(impl):
    xs = [1, 2]
    xs.remove(1)
    for time in range(3):
        pass
    signal = torch.ones(2)
    id, Path, patch = 0, 1, signal.sum()
    cache = impl.KVCache()
    cache.update(torch.ones(1, 1, 1, 2), torch.ones(1, 1, 1, 2))
    found = {}
    found["a"] = signal[id]
    super().__init__
    assert torch.allclose(torch.add(signal, 0), signal)  # a STATE-named method on an imported module: arithmetic
"""


def test_a_module_named_in_a_string_counts_only_where_strings_become_attributes():
    """Fourth reading B: "time" as an assert's message was refused as the module `time`; it still is where the
    source turns strings into attributes or modules (attrgetter, getattr, import_module: review.REACH)."""
    from anatomy.homework.attention_tests import review
    assert review.forbidden('def test_x(impl):\n    assert impl, "time"\n', {}) == []
    refused = review.forbidden('import operator\nNAME = "os"\n\ndef test_x(impl):\n    operator.attrgetter(NAME)(impl)\n', {})
    assert refused[0] == (("seen_module_string", {"attr": "os", "text": "'os'"}), "why_detect"), refused
    assert review.forbidden('def test_x(impl):\n    assert impl, "_bug"\n', {})  # a private name: still refused


def test_innocent_names_and_calls_are_not_refused():
    from anatomy.homework.attention_tests.review import forbidden
    assert forbidden(INNOCENT) == []
    assert forbidden("def test_x(impl):\n    assert '{0} {1:>3}'.format(impl, '_').startswith('_')\n") == []
    assert forbidden("mutant = hw.build('no_scale')\nprint(hw.check_tests.feedback([], question='q1'))\n") == []  # practice


def honest_add_zero(impl):  # a lone test, torch bound by this module: as a notebook cell defines it
    _, weights = impl.attention(torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 4))
    assert torch.allclose(torch.add(weights.sum(-1), 0), torch.ones(1, 2))
    assert torch.allclose(torch.Tensor.add(weights.sum(-1), 0), torch.ones(1, 2))


def test_a_lone_test_calling_torch_add_is_reviewed_as_arithmetic_in_the_check_cell():
    """review_19_second A: the check cell reviews inspect.getsource(test) alone, without `import torch`;
    torch.add(x, 0) was taken for a kept container and zeroed. The check knows torch is a module."""
    from anatomy.homework import attention_tests as hw
    verdict = hw.check_tests.verdict([honest_add_zero], question="q1")
    assert verdict is not None and "scores 0" not in str(verdict) and verdict.share > 0, str(verdict)


def test_hw_inside_a_test_is_refused_in_the_check_cell(tmp_path):
    """review_19_second B: comparing with hw.build(None) passed the check cell and crashed in the grader."""
    from anatomy.homework import attention_tests as hw
    module, _ = write(tmp_path, "import torch\nfrom anatomy.homework import attention_tests as hw\n\n\n"
                                "def test_against_hw(impl):\n    assert torch.equal(hw.build(None).causal_mask(3), impl.causal_mask(3))\n")
    verdict = hw.check_tests.verdict([module.test_against_hw], question="q2")
    assert verdict.share == 0.0 and "`hw` (the homework's own module" in str(verdict), str(verdict)


def test_a_syntax_error_scores_zero_with_a_message():
    graded = mutation.grade_question("q1", ["test_x"], lambda *_: (None, 0.0), source="def test_x(impl:\n")
    assert graded.share == 0.0 and "syntax error" in graded.lines[0] and not graded.flags


def test_failing_an_equivalent_mutant_costs_a_quarter():
    reference = load(REFERENCE).SUITE
    tests = {t.__name__: t for t in reference["q1"]}
    pretend = tuple(Mutant(m.name, "", "cat_equivalent", True) if m.name == "no_scale" else m for m in MUTANTS)
    graded = mutation.grade_question("q1", list(tests), mutation.in_process(tests), mutants=pretend)
    assert graded.share == pytest.approx(0.75)  # the quarter the feedback states
    assert "correct variant" in graded.lines[-1]


def test_every_message_exists_in_both_languages_with_the_same_fields():
    for key, texts in messages.CATALOGUE.items():
        assert set(texts) == set(messages.LANGUAGES), key
        assert all(texts[lang].strip() for lang in messages.LANGUAGES), key
        fields = {lang: sorted(re.findall(r"\{(\w+)", texts[lang])) for lang in messages.LANGUAGES}
        assert fields["en"] == fields["ko"], key
        assert re.search("[\uac00-\ud7a3]", texts["ko"]), key


def test_say_refuses_an_unknown_language_or_key():
    with pytest.raises(ValueError, match="language must be one of"):
        messages.say("no_tests", "fr")
    with pytest.raises(KeyError, match="no message"):
        messages.say("nothing_like_this")


def test_language_of_a_korean_notebook():
    korean = {"cells": [{"cell_type": "markdown", "source": "# 숙제 3: 어텐션 테스트 작성"}]}
    english = {"cells": [{"cell_type": "markdown", "source": "# Homework 3: writing attention tests"}]}
    assert messages.language_of(korean) == "ko" and messages.language_of(english) == "en"


def shape_only(impl):  # catches next to nothing: the feedback has a score line and a survivors line
    assert impl.attention(torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 4))[0].shape == (1, 2, 4)


@pytest.mark.parametrize("language, survivors", [("en", "not caught: "), ("ko", "잡지 못한 버그: ")])
def test_the_feedback_lines_are_sentences_of_their_own(language, survivors):
    """review_korean_messages B: homework 3's lines were joined with "; " ("…잡았습니다; 잡지 못한 버그: a; b; 테스트
    …"), so the category list ran into the next sentence. One line each; "; " stays inside the category list."""
    from anatomy.homework import attention_tests as hw
    text = hw.check_tests.verdict([shape_only], question="q1", language=language).text(language)
    lines = text.split("\n")
    assert len(lines) == 2 and lines[1].startswith(survivors) and "; " in lines[1] and "; " not in lines[0], text


# The implementation under test lives in a process of its own (server.py); a test receives proxies
# (stand_in.Implementation) that look the same whichever implementation runs (the design of issue #42's
# third reading: A, a test comparing each step's code with the correct class's; B, mro()[1] as a reference).

def view(bug: str | None) -> list:
    """Everything a test sees of `impl` but numbers: types, mro, dir, reprs, what reading a step or a
    private name raises, the public attributes' names, a module's state_dict keys and what eval() returns."""
    from anatomy.homework.attention_tests import server_link, stand_in
    server = server_link.shared()
    server.build(bug, 0)
    impl = stand_in.Implementation(0, stand_in.Link(server.ask))
    mha, layer, cache = impl.MultiHeadAttention(8, 2), impl.DecoderLayer(8, 2, 16), impl.KVCache()
    seen = [type(impl), type(impl).mro(), sorted(dir(impl)), repr(impl), repr(impl.attention), repr(mha),
            type(mha.q_proj).mro(), mha.eval() is mha, sorted(mha.state_dict()), sorted(layer.state_dict()), len(cache)]
    for target, name in ((impl.attention, "scores"), (impl.causal_mask, "band"), (mha, "split"), (mha, "attend"),
                         (layer, "cross_mask"), (layer, "heads"), (cache, "grown"), (impl, "__code__"),
                         (impl.attention, "__class__")):
        try:
            seen.append(("read", name, repr(getattr(target, name))))
        except Exception as error:
            seen.append(("raised", name, type(error).__name__, str(error)))
    return seen


def test_every_implementation_looks_the_same_to_a_test():
    """Third reading A and B: the correct implementation, each mutant and each equivalent one hand a test the
    same type (mro included), attributes, reprs, errors and object numbers; only computed numbers differ."""
    from anatomy.homework.attention_tests.stand_in import Implementation
    correct = view(None)
    assert correct[1] == [Implementation, object] and ("raised", "scores", "AttributeError",
                                                       "the implementation under test offers no attribute 'scores' here") in correct
    for mutant in MUTANTS:
        assert view(mutant.name) == correct, mutant.name


DETECTORS = """import operator

CODE = operator.attrgetter(chr(95) * 2 + "code" + chr(95) * 2)
STEPS = ("scores", "allowed", "fill", "normalise", "zero_masked", "mix")


def test_knows_which_runs(impl):
    piece = impl.attention
    correct = type(piece).mro()[1]
    for step in STEPS:
        here = CODE(operator.attrgetter(step)(piece))
        assert here.co_firstlineno == CODE(operator.attrgetter(step)(correct)).co_firstlineno


def test_knows_which_runs_quietly(impl):
    try:
        test_knows_which_runs(impl)
    except (AttributeError, TypeError):
        pass


def test_mro_reference(impl):
    reference = type(impl.attention).mro()[1]()
    q, k, v = torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 4)
    assert torch.allclose(reference(q, k, v)[0], impl.attention(q, k, v)[0])


import itertools
COUNTER = itertools.count()
SEEN = []
remember = operator.methodcaller("append", 1)


def test_counts_runs(impl):
    assert next(COUNTER) > 0  # the first run fails; later runs would pass if the count were kept


def test_keeps_a_list(impl):
    remember(SEEN)
    assert len(SEEN) > 1
"""


@pytest.mark.parametrize("name, said", [("test_knows_which_runs", "fails on the correct implementation"),
                                        ("test_knows_which_runs_quietly", "caught 0 of 9"),
                                        ("test_mro_reference", "fails on the correct implementation"),
                                        ("test_counts_runs", "fails on the correct implementation"),
                                        ("test_keeps_a_list", "fails on the correct implementation")])
def test_detectors_and_kept_state_earn_nothing_unreviewed(tmp_path, name, said):
    """Third reading A (code objects through a dunder built at run time), B (mro()[1] as a reference, a
    module-level counter, a list changed by methodcaller, which review.py does not see): run without the
    review (source=""), each scores 0: it fails on the correct implementation or catches nothing."""
    module, _ = write(tmp_path, "import torch\n" + DETECTORS)
    for seed in range(3):
        tests = {name: getattr(module, name)}
        graded = mutation.grade_question("q1", list(tests), mutation.in_process(tests), rng=random.Random(seed))
        assert graded.share == 0.0 and said in graded.lines[0], (name, graded.lines)


KEPT = """import torch
CALLS = []


def test_default_argument(impl, calls=CALLS):
    calls.append(1)
    assert len(calls) > 1  # the first run fails; later runs would pass if it were kept


class Counter:
    def __init__(self):
        self.n = 0

    def test_bound_method(self, impl):
        self.n += 1
        assert self.n > 1


counter = Counter()


def remembering():
    kept = []  # a closure's list (functools.lru_cache did this before functools was refused)
    return lambda: kept


remembered = remembering()


def test_lru_cache(impl):
    seen = remembered()
    seen.append(1)
    assert len(seen) > 1


class Box:
    seen = []


def test_class_attribute(impl):
    seen = Box.seen
    seen.append(1)
    assert len(seen) > 1


def test_module_object(impl):
    first = torch.get_default_dtype() == torch.float32  # state in an allowed module (torch's own)
    torch.set_default_dtype(torch.float64)
    assert not first  # the first run fails; later runs would pass if it were kept
"""
KEPT_TESTS = {"q1": "test_default_argument", "q2": "counter.test_bound_method", "q3": "test_lru_cache",
              "q4": "test_class_attribute", "q5": "test_module_object"}  # each passes review.py


@pytest.mark.parametrize("name", list(KEPT_TESTS.values()))
def test_state_a_test_keeps_anywhere_is_back_at_its_start_each_run(tmp_path, name):
    """Fourth reading A: a default argument naming a global, a bound method, an lru_cache helper, a class
    attribute, a module's list: none is a global the state snapshot copies, and each passes the review. Every
    run happens in a fork of its own (trial.py), so each test fails on every run, the correct one included."""
    from anatomy.homework.attention_tests import review
    module, _ = write(tmp_path, KEPT)
    assert review.forbidden(KEPT, {}) == []
    test = module.counter.test_bound_method if "." in name else getattr(module, name)
    for seed in range(2):
        tests = {name: test}
        graded = mutation.grade_question("q1", list(tests), mutation.in_process(tests), rng=random.Random(seed))
        assert graded.share == 0.0 and "fails on the correct implementation" in graded.lines[0], (name, graded.lines)


PRACTISED = """import torch
from anatomy.homework import attention_tests as hw
impl = hw.practice(None)


def test_default_reference(impl, ref=impl):
    q, k, v = torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 4)
    assert torch.allclose(impl.attention(q, k, v)[0], ref.attention(q, k, v)[0])


def test_global_reference(under_test):
    q, k, v = torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 4)
    assert torch.allclose(under_test.attention(q, k, v)[0], impl.attention(q, k, v)[0])
"""


PRACTISED_MORE = """

def reference():
    return impl


def test_helper_reference(impl):
    q, k, v = torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 4)
    assert torch.allclose(impl.attention(q, k, v)[0], reference().attention(q, k, v)[0])


def test_wrong_expectation(impl):
    assert impl.causal_mask(3).sum() == 3
"""


def test_a_test_using_the_practice_object_scores_zero_in_the_check_cell_as_in_the_grader(tmp_path):
    """Fourth reading A and B: `ref=impl` (the notebook's hw.practice(None)) got full marks in the check cell
    but 0 in the grader (no practice object there); a test reading the global `impl` was told it was "a
    Implementation". Now the practice object answers nothing while a check runs, and the message says what it is
    (the default too: "reads the global 'impl', the notebook's practice object", not only "fails on the correct
    implementation"); read through a helper it is named as read directly."""
    from anatomy.homework.attention_tests import check_tests, checks
    from anatomy.homework.attention_tests.practice import checking
    module, _ = write(tmp_path, PRACTISED + PRACTISED_MORE)
    for language, refused, named, read in (
            ("en", "answers nothing while a check runs", "the notebook's practice object",
             "your test test_default_reference (#1) reads the global 'impl', the notebook's practice object"),
            ("ko", "아무것도 답하지 않습니다", "노트북의 연습용 객체",
             "test_default_reference (#1) 테스트가 채점기가 넘겨주는 구현이 아니라 전역 변수 'impl'(노트북의 연습용 객체")):
        with checking(language), pytest.raises(RuntimeError, match=refused):
            module.impl.causal_mask(2)
        for test in (module.test_default_reference, module.test_global_reference, module.test_helper_reference):
            said = check_tests.feedback([test], question="q1", language=language)  # the review names it first
            assert named in said and "`impl`" in said and ("0점" in said or "scores 0" in said), said
        with pytest.MonkeyPatch.context() as patch:  # where the review would miss it, the runs name it
            patch.setattr(checks, "sources", lambda named: "")
            said = check_tests.feedback([module.test_default_reference], question="q1", language=language)
            assert read in said and ("fails on the correct implementation" in said or "0점" in said), said
    assert module.impl.causal_mask(2).shape == (2, 2)  # outside a check it answers again
    said = check_tests.feedback([module.test_wrong_expectation], question="q2")  # its own mistake: the usual words
    assert "fails on the correct implementation (AssertionError" in said and "practice" not in said, said


def test_a_global_that_cannot_be_reset_scores_zero_with_a_message(tmp_path):
    from anatomy.homework.attention_tests import check_tests
    module, _ = write(tmp_path, "import torch\nSTEPS = (n for n in range(3))\n\n"
                                "def test_gen(impl):\n    assert next(STEPS) >= 0\n")
    for language, words in (("en", "your tests read the global 'STEPS', an object of type generator"), ("ko", "전역 변수 'STEPS'(generator 객체)")):
        said = check_tests.feedback([module.test_gen], question="q2", language=language)
        assert words in said and ("scores 0" in said or "0점" in said), said


def test_a_hanging_call_ends_the_server_and_the_next_build_starts_afresh():
    """A call that runs past its deadline ends the implementation's process (ServerFailed: the grader's
    child then fails the test's run as a timeout); the next build starts a fresh one that answers."""
    import time

    from anatomy.homework.attention_tests.server_link import Server, ServerFailed
    from anatomy.homework.attention_tests.stand_in import Implementation, Link
    server = Server()
    try:
        server.build(None, 0)
        slow = Implementation(0, Link(lambda m, t: server.relay(m, t, time.monotonic() + 0.05)))
        with pytest.raises(ServerFailed, match="timeout"):
            slow.attention(torch.randn(1, 3000, 64), torch.randn(1, 3000, 64), torch.randn(1, 3000, 64))
        assert server.process is None
        server.build(None, 0)
        impl = Implementation(0, Link(server.ask))
        assert torch.equal(impl.causal_mask(2, 3), torch.ones(2, 3, dtype=torch.bool).tril(1))
    finally:
        server.close()


def test_a_test_cannot_ask_for_another_implementation():
    """The runner builds (op "build"); a test's requests are forwarded only when they are a test's own ops."""
    import time

    from anatomy.homework.attention_tests.server_link import Server
    server = Server()
    try:
        server.build(None, 0)
        for message in ({"op": "build", "bug": "mask_ignored", "seed": 0}, {"op": "bye"}, ["build"]):
            reply, _ = server.relay(message, {}, time.monotonic() + 30)
            assert reply["error"]["type"] == "TypeError", reply
            reply, _ = server.ask(message, {}) if isinstance(message, dict) else (reply, None)
            assert "error" in reply
        from anatomy.homework.attention_tests.stand_in import Implementation, Link
        impl = Implementation(0, Link(server.ask))
        q, k, v = torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 4)
        mask = torch.tensor([[True, False, False]] * 2)
        assert torch.allclose(impl.attention(q, k, v, mask)[1][..., 1:], torch.zeros(1, 2, 2))  # still the correct one
    finally:
        server.close()


def test_practice_hands_the_notebook_what_a_test_receives():
    """The notebook's `impl = hw.practice(None)`: a proxy like the check's, in a process of its own, so a test tried
    on it behaves as in the check cell (reading a step fails there too) and a check cell does not disturb it."""
    from anatomy.homework import attention_tests as hw
    from anatomy.homework.attention_tests.stand_in import Implementation
    impl, mutant = hw.practice(None), hw.practice("causal_transposed")
    assert type(impl) is Implementation and torch.equal(impl.causal_mask(3), torch.ones(3, 3, dtype=torch.bool).tril())
    assert torch.equal(mutant.causal_mask(3), torch.ones(3, 3, dtype=torch.bool).triu())
    hw.check_tests.feedback([lambda i: None], question="q2")  # the check cells' own server builds and rebuilds
    with pytest.raises(AttributeError, match="offers no attribute 'band'"):
        impl.causal_mask.band
    assert torch.equal(impl.causal_mask(2, 3), torch.ones(2, 3, dtype=torch.bool).tril(1))


# Fifth reading: a verdict that depends on the trial's position (a file, shared memory, the fork's pid) instead
# of the implementation. The order is secret, every mutant runs twice and counts only when both runs fail, the
# correct one runs CORRECT_RUNS times: such a test earns under a tenth of a mutant per question on average.

def test_a_test_blind_to_the_implementation_earns_under_a_tenth_of_a_mutant():
    equivalents = sum(m.equivalent for m in MUTANTS)
    for question in QUESTIONS:
        real = sum(m.question == question for m in MUTANTS)
        chance, three = mutation.luck(real, equivalents), mutation.luck(real, equivalents, correct=3)
        print(f"{question}: {real} mutants, a position-only test catches {chance:.3f} on average "
              f"({three:.3f} with 3 correct runs)")
        assert chance < 0.1
    assert mutation.luck(9, equivalents, correct=3) > 0.3  # why CORRECT_RUNS is not 3


def position_only(fails: set[int], seen: list):
    """A run(name, bug, cpu, wall) whose verdict depends on its call's position only (and records the bugs)."""
    def run(name, bug, cpu, wall):
        seen.append(bug)
        return "AssertionError: my position" if len(seen) - 1 in fails else None, 0.0
    return run


def test_the_grader_scores_a_position_only_test_as_luck_computes():
    """A seeded simulation through grade_question itself: the mean catch of the best set of failing positions
    matches mutation.luck's exact value, and the first trial is any implementation, the correct one too."""
    own = sum(m.question == "q2" for m in MUTANTS)
    exact = mutation.luck(own, sum(m.equivalent for m in MUTANTS))
    rng, caught, first = random.Random(0), 0, set()
    draws, scores = 20000, {messages.say("score", caught=k, total=own): k for k in range(own + 1)}
    for _ in range(draws):
        seen: list = []
        graded = mutation.grade_question("q2", ["test_x"], position_only(set(range(5)), seen), rng=rng)
        first.add(seen[0] is None or seen[0].startswith("eq_"))
        caught += scores.get(graded.lines[0], 0)  # 0 when it failed on a correct run
    mean = caught / draws
    print(f"q2: {mean:.4f} caught on average by failing the first 5 trials, exact {exact:.4f}")
    assert abs(mean - exact) < 0.006 and first == {True, False}


def test_a_mutant_counts_only_when_the_tests_fail_in_both_of_its_runs():
    for seed in range(3):
        runs: dict = {}

        def once(name, bug, cpu, wall):  # fails on the first run of each implementation only
            runs[bug] = runs.get(bug, 0) + 1
            return "AssertionError: first" if bug is not None and runs[bug] == 1 else None, 0.0
        graded = mutation.grade_question("q1", ["test_x"], once, rng=random.Random(seed))
        assert graded.lines[0] == messages.say("score", caught=0, total=9) and graded.share == 0.0, graded.lines
        assert set(runs.values()) == {mutation.RUNS_PER_MUTANT, mutation.CORRECT_RUNS}
        always = mutation.grade_question("q1", ["test_x"], lambda name, bug, cpu, wall: (None if bug is None or
                                         bug.startswith("eq_") else "AssertionError", 0.0), rng=random.Random(seed))
        assert always.share == 1.0, always.lines


PROBES = """import io
import mmap


def test_counts_in_a_file(impl):
    with io.open("runs.txt", "a") as f:
        f.write("x")
    with io.open("runs.txt") as f:
        n = len(f.read())
    assert n % 16 != 1


def shared_counter_test():
    board = mmap.mmap(-1, 1)

    def test_counts_in_shared_memory(impl):
        board.seek(0)
        n = board.read_byte() + 1
        board.seek(0)
        board.write_byte(n)
        assert n % 11 != 1
    return test_counts_in_shared_memory


test_counts_in_shared_memory = shared_counter_test()
"""


def test_counters_kept_in_a_file_or_shared_memory_earn_nothing_in_the_check_cell(tmp_path, monkeypatch):
    """Fifth reading A, in the check cell (hw.check_tests, the rule the grader uses): a counter in a file
    (io.open) and one in an mmap made at cell level each caught the first (real) mutant, "caught 1 of 9" /
    "1 of 4". Now each earns nothing (the secret order seeded here, a real mutant first, so the test repeats),
    also where the review does not see it (since the allowlist, the review refuses `io` and `mmap` first)."""
    from anatomy.homework import attention_tests as hw
    from anatomy.homework.attention_tests import checks
    module, _ = write(tmp_path, PROBES)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(mutation, "random", types.SimpleNamespace(Random=lambda: random.Random(0)))
    for question, name in (("q1", "test_counts_in_a_file"), ("q2", "test_counts_in_shared_memory")):
        said = hw.check_tests.feedback([getattr(module, name)], question=question)
        assert "(the module `io`)" in said or "(the module `mmap`)" in said, (name, said)
    monkeypatch.setattr(checks, "sources", lambda named: "")  # a route the review would miss: the runs alone
    for question, name in (("q1", "test_counts_in_a_file"), ("q2", "test_counts_in_shared_memory")):
        said = hw.check_tests.feedback([getattr(module, name)], question=question)
        assert "caught 0 of" in said or "fails on the correct implementation" in said, (name, said)


COPIED = """import copy


def test_cache_with_a_deepcopy(impl):
    mha = impl.MultiHeadAttention(8, 2).eval()
    twin = copy.deepcopy(mha)


def test_cache_with_a_twin(impl):
    mha = impl.MultiHeadAttention(8, 2).eval()
    twin = impl.MultiHeadAttention(8, 2).eval()
    twin.load_state_dict(mha.state_dict())
    x = torch.randn(2, 5, 8)
    assert torch.allclose(twin(x)[0], mha(x)[0])
    assert copy.copy(x).shape == x.shape
"""


@pytest.mark.parametrize("language", ["en", "ko"])
def test_copying_an_object_under_test_is_refused_in_words_saying_what_to_do(tmp_path, language):
    """Fifth reading B: copy.deepcopy(mha) failed with "cannot set '_number' ...". Now a clear refusal that
    names load_state_dict, in the feedback's language; the twin built and loaded instead passes."""
    module, _ = write(tmp_path, "import torch\n" + COPIED)
    tests = {"test_cache_with_a_deepcopy": module.test_cache_with_a_deepcopy}
    graded = mutation.grade_question("q3", list(tests), mutation.in_process(tests), language, rng=random.Random(0))
    assert graded.share == 0.0 and messages.say("copy_refused", language) in graded.lines[0], graded.lines
    assert messages.say("copy_refused", "en") == mutation.stand_in.COPY_REFUSED
    twin = {"test_cache_with_a_twin": module.test_cache_with_a_twin}
    assert mutation.in_process(twin)("test_cache_with_a_twin", None, 10.0, 40.0)[0] is None


def test_a_run_cut_short_by_the_question_budget_names_the_budget_not_the_run_limit():
    slow = lambda name, bug, cpu, wall: ("timeout", cpu)  # every run ends at whatever limit it was given
    graded = mutation.grade_question("q1", ["test_slow"], slow, test_seconds=10.0, question_seconds=5.0)
    assert graded.share == 0 and graded.lines == [mutation.say("question_clock", "en", wall=10.0)], graded.lines
    graded = mutation.grade_question("q1", ["test_slow"], slow, test_seconds=10.0, question_seconds=60.0)
    assert graded.lines == [mutation.say("timeout", "en", test="test_slow", seconds=10.0, wall=40.0)], graded.lines


TIMED = """import os
import signal
import time


def test_waits(impl):
    time.sleep(0.6)


def test_computes(impl):
    end = time.process_time() + 0.6
    while time.process_time() < end:
        pass


def test_sleeps_on(impl):
    time.sleep(30)


def test_catches_the_limit(impl):
    try:
        test_computes(impl)
    except BaseException:
        pass


def test_ignores_the_limit(impl):
    signal.signal(signal.SIGPROF, signal.SIG_IGN)
    while True:
        pass


def test_ends_its_process(impl):
    os._exit(0)
"""


def test_a_runs_limit_counts_its_cpu_time_and_the_clock_only_as_a_backstop(tmp_path):
    """CI, session 9: on a loaded machine a run of the reference suite outlasted its 10 s on the clock and the question
    scored 0. A run's limit is now its fork's CPU time (clock.py), the clock stopping it only at WALL_FACTOR times.
    With 0.25 s of CPU time (30 s on the clock, 1 s for the one that sleeps on): a test that waits 0.6 s passes (it used next to no CPU time), one
    that computes for 0.6 s is stopped near 0.25 s of CPU time, and one that sleeps on is stopped by the clock.
    Twelfth reading B1, B2: one that catches the limit's OverLimit is still over it, one that ignores its signal is
    killed by the kernel (RLIMIT_CPU) and said to be over it too, and one that ends its own process is lost."""
    module, _ = write(tmp_path, TIMED)
    names = ("test_waits", "test_computes", "test_sleeps_on", "test_catches_the_limit", "test_ignores_the_limit",
             "test_ends_its_process")
    run = mutation.in_process({name: getattr(module, name) for name in names}, test_seconds=0.25)
    waited, computed, slept, caught, ignored, ended = (run(name, None, 0.25, 1.0 if name == "test_sleeps_on" else 30.0)
                                                       for name in names)  # a loaded machine must not reach 30 s
    assert waited[0] is None and waited[1] < 0.2, waited
    assert computed[0] == mutation.clock.OVER_CPU and 0.2 <= computed[1] < 0.5, computed
    assert slept[0] == "timeout" and slept[1] < 0.2, slept
    assert caught[0] == ignored[0] == mutation.clock.OVER_CPU and ended[0] == mutation.trial.NO_LINE, (caught, ignored, ended)


def test_a_questions_budget_adds_up_the_cpu_time_of_its_runs():
    """Eleventh reading C2: runs of 4 s of CPU time each against a budget of 10 s: the third run leaves none, and
    the question ends with the budget's words (with `spent` not added up it would be scored). Twelfth reading A1:
    every run gets the same CPU limit, whatever the runs before it claimed to use (else a run could write a number
    the next one reads from its own timer); C2: no run's clock limit outlasts the question's clock (2 x 10 s)."""
    runs = []

    def four_seconds(name, bug, cpu, wall):
        runs.append((cpu, wall))
        return None, 4.0
    graded = mutation.grade_question("q1", ["test_x"], four_seconds, test_seconds=10.0, question_seconds=10.0)
    assert graded.lines == [mutation.say("question_budget", "en", seconds=10.0)], graded.lines
    assert [cpu for cpu, _ in runs] == [10.0] * 3 and all(wall <= 20.0 for _, wall in runs), runs


def test_each_way_a_run_ends_gets_its_own_words():
    """Twelfth reading C1: a run that used its CPU time near the end of the question's clock was worded as the
    question's clock; thirteenth reading C: the words for a lost run and the question's clock, also as the
    trusted grader turns the child's reasons (checks.runner) into them."""
    from anatomy_grading import grader
    for why, expected in ((mutation.clock.OVER_CPU, mutation.say("timeout", "en", test="test_x", seconds=10.0, wall=40.0)),
                          (mutation.trial.NO_LINE, mutation.say("run_lost", "en", test="test_x")),
                          ("timeout", mutation.say("question_clock", "en", wall=6.0))):
        graded = mutation.grade_question("q1", ["test_x"], lambda *_: (why, 1.0), question_seconds=3.0)
        assert graded.lines == [expected], (why, graded.lines)
    assert grader.child_failed("a run of t (#1) ended without its result") == mutation.say("run_lost", "en", test="t (#1)")
    assert grader.child_failed("ran past the question's clock of 180 s") == mutation.say("question_clock", "en", wall=180)
    assert grader.child_failed("a run of t (#1) ran past its limit of 10 s") == \
        mutation.say("timeout", "en", test="t (#1)", seconds=10, wall=40)


def test_a_runs_line_is_taken_only_when_it_is_one():
    """Twelfth reading A1: the child accepted any number as a run's CPU time (negative, NaN) and any verdict."""
    parsed = mutation.clock.parsed
    assert parsed(b'{"why": null, "cpu": 0.5}', 10.0) == {"why": None, "cpu": 0.5}
    for forged in (b'{"why": null, "cpu": -1e9}', b'{"why": null, "cpu": NaN}', b'{"why": null, "cpu": 13}',
                   b'{"why": ["x"], "cpu": 1}', b'{"why": null}', b'[1, 2]', b'', b'not json', b'[' * 4000):
        assert parsed(forged, 10.0) is None, forged
