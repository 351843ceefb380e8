"""Homework 1 (notebook 08) graded as instructors grade it: `make homework` builds the autograder, the
trusted grader (`python -m anatomy_grading grade`) grades a folder of submissions, each in confined
children. Every route of issue #23's table (our own instances of them) scores 0 on the question it
targets, the solution earns full marks from the repo and from a wheel installed outside it, honest
variants (another dtype, q3 without biases, q3 and q4 in float64) keep their marks, named mistakes
appear in the feedback, and a hanging answer costs only its question. Issue #34's routes score 0 on
what they forged: modules that compute no attention, a date table, library attention reached through
routes no list names (the feedback names what was reached). All gradings run up front, two at a time."""
import re
from pathlib import Path

import pytest

from forged_answers import DATE_TABLE, NO_ATTENTION_LAYER, NO_ATTENTION_MODULE
from grading_helpers import (assign, assign_script, by_question, check_assigned, grade_folder, gradebook, korean_edition,
                             submission,
                             venv_from_wheel)

ROOT = Path(__file__).parent.parent
MASTER = ROOT / "instructor" / "08_homework_cross_attention.ipynb"
NAME = MASTER.name
ANSWERS = {"q1": "def cross_attention_scores", "q2": "def masked_cross_attention", "q3": "class CrossAttention",
           "q4": "class MyDecoderLayer", "q5": "def swap_in"}
FULL = {"q1": 2, "q2": 3, "q3": 4, "q4": 3, "q5": 3}
SCORES_64 = "def cross_attention_scores(q, k):\n    return q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.size(-1))\n"
ATTENTION_16 = """def masked_cross_attention(q, k, v, key_mask):
    scores = cross_attention_scores(q, k).half().masked_fill(~key_mask[:, None, :], float("-inf"))
    weights = torch.softmax(scores.float(), dim=-1).half()
    return weights @ v.half(), weights
"""
NO_BIAS = """class CrossAttention(CrossAttention):
    def __init__(self, config):
        super().__init__(config)
        for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
            setattr(self, name, nn.Linear(config.hidden_size, config.hidden_size, bias=False))
"""
SILENCED = {  # issue route 1: each stub silences stdout before it raises
    "q1": "import io, sys\ndef cross_attention_scores(q, k):\n    sys.stdout = io.StringIO()\n    raise NotImplementedError('Question 1')\n",
    "q2": "def masked_cross_attention(q, k, v, key_mask):\n    sys.stdout = io.StringIO()\n    raise NotImplementedError('Question 2')\n",
    "q3": "class CrossAttention(nn.Module):\n    def __init__(self, config):\n        super().__init__()\n"
          "        sys.stdout = io.StringIO()\n        raise NotImplementedError('Question 3')\n",
    "q4": "class MyDecoderLayer(nn.Module):\n    def __init__(self, config):\n        super().__init__()\n"
          "        sys.stdout = io.StringIO()\n        raise NotImplementedError('Question 4')\n",
    "q5": "def swap_in(model):\n    sys.stdout = io.StringIO()\n    raise NotImplementedError('Question 5')\n"}
TAMPER_FIRST = """import glob, os, sys, types
os.makedirs("tests", exist_ok=True)
for q in range(1, 6):  # issue route 2: otter's test files, rewritten to pass
    open(f"tests/q{q}.py", "w").write("OK_FORMAT = True\\ntest = {'name': 'q%d', 'points': 9, 'suites': []}" % q)
for path in glob.glob("/autograder/source/*") + glob.glob("../**/grading_plan.json", recursive=True) + [PLAN]:
    try:  # issue route 3: the hidden inputs, read from the grader's files
        print("LEAKED", path, open(path).read()[:40])
    except OSError as error:
        print("unreadable:", path, type(error).__name__)
"""
TAMPER_AFTER = """import torch, otter, anatomy.homework.cross_attention as hw  # with silenced stubs: all must stay 0
sys.modules["anatomy.homework.cross_" + "attention"] = types.SimpleNamespace(**{n: (lambda *a, **k: None) for n in dir(hw)})
hw.check_scores = hw.check_masked_attention = lambda *a, **k: None  # issue route 6: the graders' state
torch.allclose = lambda *a, **k: True
try:  # issue route 4: otter's results marked as passed
    import otter.execute
    for result in otter.execute.Checker.get_results():
        result.passed = True
except Exception as error:
    print("no otter here:", error)
"""
OBFUSCATED = 'getattr(torch.nn.functional, "scaled_dot_" + "product_attention")'
PREAMBLE = "import math, torch, anatomy\nimport torch.nn.functional as F\nfrom torch import nn\n"
IN_CHILD = [  # (words in the feedback, the route, as a masked_cross_attention): each refused at run time
    ("uses F.scaled_dot_product_attention", "import functools\n"
     f"def masked_cross_attention(q, k, v, key_mask):\n    attend = functools.partial({OBFUSCATED}, q)\n"
     "    w = torch.softmax((q @ k.transpose(-2, -1)).masked_fill(~key_mask[:, None, :], float('-inf')), -1)\n"
     "    return attend(k, v, key_mask[:, None, :]), w\n"),
    ("uses F.scaled_dot_product_attention", "def masked_cross_attention(q, k, v, key_mask):\n"
     f"    out = list(map({OBFUSCATED}, [q], [k], [v], [key_mask[:, None, :]]))[0]\n    return out, None\n"),
    ("uses torch.ops.aten._scaled_dot_product_attention_math", "def masked_cross_attention(q, k, v, key_mask):\n"
     "    op = getattr(torch.ops.aten, '_scaled_dot_product_' + 'attention_math')\n"
     "    bias = torch.zeros(key_mask.shape).masked_fill(~key_mask, float('-inf'))[:, None, :]\n"
     "    return tuple(op(q, k, v, bias))\n"),
    ("uses anatomy.efficient.tiled_attention", "def masked_cross_attention(q, k, v, key_mask):\n"
     "    return getattr(anatomy, 'tiled_' + 'attention')(q, k, v, key_mask[:, None, :])\n"),
    ("uses anatomy.scaled_dot_product_attention", "import types, anatomy.layers.attention as A\n"
     "clone = types.FunctionType(getattr(A, 'scaled_dot_product_' + 'attention').__code__.replace(), vars(A))\n"
     "def masked_cross_attention(q, k, v, key_mask):\n    return clone(q, k, v, key_mask[:, None, :])\n"),
    ("is switched off in the grader", "import inspect, anatomy.layers.attention as A\ndef masked_cross_attention(q, k, v, key_mask):\n"
     "    scope = {}\n    exec(compile('\\n' + inspect.getsource(A), 'again.py', 'exec'), scope)\n"
     "    return scope['scaled_dot_' + 'product_attention'](q, k, v, key_mask[:, None, :])\n"),
    ("uses F.multi_head_attention_forward", "def masked_cross_attention(q, k, v, key_mask):\n"
     "    mha = getattr(F, 'multi_head_' + 'attention_forward')\n    d = q.size(-1)\n"
     "    eye = torch.eye(d)\n    out, w = mha(q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1), d, 1, None, None, None, None,\n"
     "                 False, 0.0, eye, None, use_separate_proj_weight=True, q_proj_weight=eye, k_proj_weight=eye,\n"
     "                 v_proj_weight=eye, key_padding_mask=~key_mask)\n    return out.transpose(0, 1), w\n"),
    ("gc.get_objects is switched off", "import gc\ndef masked_cross_attention(q, k, v, key_mask):\n"
     "    for handle in gc.get_objects():\n        if type(handle).__name__ == 'Library':\n            handle._destroy()\n"
     f"    return {OBFUSCATED}(q, k, v, key_mask[:, None, :]), None\n"),
    ("subprocess.Popen is switched off", "import subprocess, sys\ndef masked_cross_attention(q, k, v, key_mask):\n"
     "    subprocess.run([sys.executable, '-c', 'import torch'], check=True)\n"),
    ("importing _xxsubinterpreters is switched off", "def masked_cross_attention(q, k, v, key_mask):\n"
     "    import _xxsubinterpreters  # another interpreter: neither poisoned nor recorded\n"),
    ("writing native code (attend.so) is switched off", "def masked_cross_attention(q, k, v, key_mask):\n"
     "    open('attend.so', 'wb').write(b'\\x7fELF')  # a library the record could not see into\n"),
    ("is switched off in the grader", "import importlib\ndef masked_cross_attention(q, k, v, key_mask):\n"
     f"    importlib.reload(F)\n    return {OBFUSCATED}(q, k, v, key_mask[:, None, :]), None\n"),
]
LIBRARY = [  # (question, words in its feedback, the route): graded end to end, one route per question and submission
    ("q2", "uses F.scaled_dot_product_attention", IN_CHILD[0][1]),
    ("q2", "your answer uses homework", "from anatomy.homework.cross_attention.variants import attention\n"
     "def masked_cross_attention(q, k, v, key_mask):\n    return attention(q, k, v, key_mask)\n"),
    ("q3", "uses nn.MultiheadAttention", "import threading\nclass CrossAttention(CrossAttention):\n"
     "    def forward(self, x, memory, key_mask=None):\n        box = []\n"
     "        def work():\n            box.append(getattr(nn, 'Multihead' + 'Attention')(x.size(-1), self.num_heads, batch_first=True)(x, memory, memory))\n"
     "        thread = threading.Thread(target=work)\n        thread.start()\n        thread.join()\n        return box[0]\n"),
    ("q4", "uses anatomy.TransformerDecoderLayer", "import threading\nclass MyDecoderLayer(MyDecoderLayer):\n"
     "    def __init__(self, config):\n        super().__init__(config)\n        self.settings = config\n\n"
     "    def forward(self, x, memory, self_mask=None, memory_mask=None, need_weights=True):\n"
     "        box, layer = [], getattr(anatomy, 'Transformer' + 'Decoder' + 'Layer')(self.settings)\n"
     "        thread = threading.Thread(target=lambda: box.append(layer(x, memory, self_mask, memory_mask)))\n"
     "        thread.start()\n        thread.join()\n        return box[0]\n"),
    ("q4", "must return (x, self-attention weights, cross-attention weights)", "import importlib\n"
     "reference = importlib.import_module('anatomy.home' + 'work.cross_attention.variants')\n"
     "class MyDecoderLayer(MyDecoderLayer):\n    def forward(self, x, memory, self_mask=None, memory_mask=None, need_weights=True):\n"
     "        return reference.decoder_layer(self, x, memory, self_mask, memory_mask, None)\n"),
    ("q4", "your answer uses TransformerDecoderLayer", "class MyDecoderLayer(anatomy.TransformerDecoderLayer):\n    pass\n"),
    ("q3", "uses nn.MultiheadAttention: this question asks you to write the attention yourself", "class CrossAttention(CrossAttention):  # quantizable attention: its base class refuses first\n"
     "    def forward(self, x, memory, key_mask=None):\n        import torch.ao.nn.quantizable as quantizable\n"
     "        layer = getattr(quantizable, 'Multihead' + 'Attention')(x.size(-1), self.num_heads, batch_first=True)\n"
     "        return layer(x, memory, memory, key_padding_mask=None if key_mask is None else ~key_mask)\n"),
    ("q4", "DecoderLayer.forward (code compiled at run time", "import anatomy  # anatomy's layer, re-run from its source\n"
     "source = open(anatomy.__file__.replace('__init__.py', '../anatomy/models/decoder.py')).read()\ncopy = {}\n"
     "exec(compile(source, 'decoder_copy.py', 'exec'), copy)\n\n"
     "class MyDecoderLayer([v for k, v in copy.items() if k.endswith('rLayer')][0]):\n    pass\n"),
    ("q5", "is a Wrapper, not your MyDecoderLayer", "class Wrapper(torch.nn.Module):\n    def __init__(self, inner):\n"
     "        super().__init__()\n        self.inner = inner\n\n    def forward(self, *args, **kwargs):\n"
     "        return self.inner(*args, **kwargs)\n\n\ndef swap_in(model):\n"
     "    for i, old in enumerate(model.decoder.layers):\n        model.decoder.layers[i] = Wrapper(old)\n    return model\n"),
]
ALSO = {  # routes that cost another question too, with the words there: swap_in puts the library layer in the model
    "your answer uses TransformerDecoderLayer": ("q5", "subclasses anatomy.TransformerDecoderLayer"),
    "DecoderLayer.forward (code compiled at run time": ("q5", "DecoderLayer.__init__ (code compiled at run time")}
NAMED = [  # (question, the name in the feedback of its public and hidden case, the mistake)
    ("q1", "forgot the 1/√d scaling", "def cross_attention_scores(q, k):\n    return q @ k.transpose(-2, -1)\n"),
    ("q2", "filled the padded scores with 0 instead of -inf", "def masked_cross_attention(q, k, v, key_mask):\n"
     "    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # not q1's: its mistake is another play\n"
     "    w = torch.softmax(scores.masked_fill(~key_mask[:, None, :], 0), -1)\n    return w @ v, w\n"),
    ("q3", "scaled by √D, the model width, instead of √(D/H)", "class CrossAttention(CrossAttention):\n"
     "    def forward(self, x, memory, key_mask=None):\n        b, t, d = x.shape\n"
     "        split = lambda s: s.view(b, s.size(1), self.num_heads, d // self.num_heads).transpose(1, 2)\n"
     "        q, k, v = split(self.q_proj(x)), split(self.k_proj(memory)), split(self.v_proj(memory))\n"
     "        scores = q @ k.transpose(-2, -1) / math.sqrt(d)\n        if key_mask is not None:\n"
     "            scores = scores.masked_fill(~key_mask[:, None, None, :], float('-inf'))\n"
     "        weights = torch.softmax(scores, dim=-1)\n"
     "        return self.out_proj((weights @ v).transpose(1, 2).reshape(b, t, d)), weights\n"),
    ("q5", "swap_in forgot to return the model", "def swap_in(model):\n    for i, old in enumerate(model.decoder.layers):\n"
     "        mine = MyDecoderLayer(model.config)\n        mine.load_state_dict(old.state_dict())\n        model.decoder.layers[i] = mine\n"),
]
DOUBLE = {  # honest: the module and the layer computed in float64 (the check loads its weights in their dtype)
    "q3": "class CrossAttention(CrossAttention):\n    def __init__(self, config):\n        super().__init__(config)\n"
          "        self.double()\n\n    def forward(self, x, memory, key_mask=None):\n"
          "        return super().forward(x.double(), memory.double(), key_mask)\n",
    "q4": "class MyDecoderLayer(MyDecoderLayer):\n    def __init__(self, config):\n        super().__init__(config)\n"
          "        self.double()\n\n    def forward(self, x, memory, self_mask=None, memory_mask=None, need_weights=True):\n"
          "        return super().forward(x.double(), memory.double(), self_mask, memory_mask, need_weights)\n"}
HANG = "def swap_in(model):\n    while True:\n        pass\n"
EDITIONS = {"q1": NAMED[0][2], "q5": HANG}  # a named mistake and a time limit, graded from both editions
BUILTINS = "import builtins\nbuiltins.abs = lambda x: x\nbuiltins.max = lambda *a, **k: 0\n"


def groups(plays):
    """At most one play per question in each submission."""
    found: list[dict[str, tuple[str, str]]] = []
    for question, words, code in plays:
        group = next((g for g in found if question not in g), None)
        if group is None:
            found.append(group := {})
        group[question] = (words, code)
    return found


@pytest.fixture(scope="session")
def assigned(tmp_path_factory):
    return assign(MASTER, tmp_path_factory.mktemp("homework"), secret="test secret")


@pytest.fixture(scope="session")
def wheel_python(tmp_path_factory):
    return venv_from_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="session")
def graded(assigned, tmp_path_factory):
    """Every submission of this file, graded by one run of the grader's command."""
    folder = tmp_path_factory.mktemp("submissions")
    solution, student = assigned / "autograder" / NAME, assigned / "student" / NAME
    plan = assigned / "autograder" / "grading_plan.json"
    write = lambda name, base, plays, **extra: submission(base, ANSWERS, folder / name / NAME, plays, **extra)  # noqa: E731
    (folder / "solution").mkdir()
    (folder / "solution" / NAME).write_bytes(solution.read_bytes())
    (folder / "untouched").mkdir()
    (folder / "untouched" / NAME).write_bytes(student.read_bytes())
    write("tampered", student, SILENCED, first=TAMPER_FIRST.replace("PLAN", repr(str(plan))), after_imports=TAMPER_AFTER)
    write("honest", solution, {"q1": SCORES_64, "q2": ATTENTION_16, "q3": NO_BIAS})
    write("hang", solution, {"q5": HANG}, after_imports=BUILTINS)
    write("no_attention", solution, {"q3": NO_ATTENTION_MODULE, "q4": NO_ATTENTION_LAYER})
    write("date_table", solution, {"q5": DATE_TABLE})
    write("table_beside_forged_layer", solution, {"q4": NO_ATTENTION_LAYER, "q5": DATE_TABLE})
    write("double", solution, DOUBLE)
    for i, group in enumerate(groups(LIBRARY)):
        write(f"library_{i}", solution, {q: code for q, (_, code) in group.items()})
    for i, group in enumerate(groups(NAMED)):
        write(f"named_{i}", solution, {q: code for q, (_, code) in group.items()})
    write("en_mistakes", solution, EDITIONS)  # the same mistakes, from either edition
    korean_edition(write("ko_mistakes", solution, EDITIONS))
    out = tmp_path_factory.mktemp("graded") / "out"
    return grade_folder(assigned, folder, out, call_timeout=10, cell_timeout=30), out


def scores(results):
    return {q: entry["score"] for q, entry in by_question(results).items()}


def test_assign_builds_the_trusted_autograder_without_otters_test_files(assigned):
    import zipfile
    check_assigned(assigned, NAME)
    with zipfile.ZipFile(next((assigned / "autograder").glob("*.zip"))) as archive:
        names = archive.namelist()
        script = archive.read("run_autograder").decode()
    assert "grading_plan.json" in names and not [n for n in names if n.startswith("tests/") or n == "run_otter.py"]
    assert "python -m anatomy_grading gradescope /autograder" in script and "run_otter" not in script


def test_solution_earns_full_marks_and_the_instructor_outputs_are_written(graded):
    results, out = graded
    assert scores(results["solution"]) == FULL, results["solution"]
    book = gradebook(out)
    assert float(book["solution"]["total"]) == 15 and book["untouched"]["total"] == "0"
    assert (out / "feedback" / "solution.md").read_text().startswith("# solution: 15 / 15")
    assert "## tampered" in (out / "review.md").read_text(), "sys.modules and getattr flag a notebook for review"


def test_untouched_and_silenced_stubs_score_zero_readably(graded):
    for name in ("untouched", "tampered"):  # tampered: each stub silences stdout before it raises
        for question, entry in by_question(graded[0][name]).items():
            assert entry["score"] == 0 and f"not yet implemented: Question {question[1]}" in entry["output"], (name, entry)
            assert "Traceback" not in entry["output"]


def test_tampering_with_otter_the_tests_or_the_checks_changes_nothing(graded):
    results, out = graded
    assert all(score == 0 for score in scores(results["tampered"]).values()), results["tampered"]
    log = (out / "log" / "tampered.txt").read_text()
    assert "LEAKED" not in log and "unreadable:" in log, log[-2000:]


@pytest.mark.parametrize("question, words", [(q, w) for q, w, _ in LIBRARY], ids=[f"{q}-{w[:40]}" for q, w, _ in LIBRARY])
def test_library_attention_and_the_graders_own_code_score_zero_on_their_question(graded, question, words):
    i, group = next((i, g) for i, g in enumerate(groups(LIBRARY)) if g.get(question, ("",))[0] == words)
    entry = by_question(graded[0][f"library_{i}"])[question]
    assert entry["score"] == 0 and words in entry["output"], entry
    also = {q: w for plays in group.values() for q, w in [ALSO.get(plays[0], (None, None))] if q}
    for other in set(FULL) - set(group) - set(also):  # a route costs only its own question (and ALSO's)
        assert by_question(graded[0][f"library_{i}"])[other]["score"] == FULL[other], (other, group.keys())
    for other, other_words in also.items():
        assert by_question(graded[0][f"library_{i}"])[other]["score"] == 0, (other, group.keys())
        assert other_words in by_question(graded[0][f"library_{i}"])[other]["output"], (other, group.keys())


@pytest.fixture(scope="module")
def attention_child():
    """One child as the grader starts it for questions 1-3 (attention refused), with no notebook."""
    from anatomy_grading import grader, plan

    group = plan.HOMEWORKS["08_homework_cross_attention"].groups[0]
    runner = grader.Runner(group, [PREAMBLE], grader.Result(), 1, 1, grader.hidden_paths([]))
    yield runner.ready()
    runner.close()


@pytest.mark.parametrize("words, code", IN_CHILD, ids=[f"{i}-{w[:30]}" for i, (w, _) in enumerate(IN_CHILD)])
def test_each_route_to_library_attention_is_refused_in_the_child(attention_child, words, code):
    from anatomy.homework import cross_attention as hw

    name = f"route_{abs(hash(code))}"
    attention_child.send("exec", source=code.replace("def masked_cross_attention", f"def {name}"), index=0)
    verdict = hw.check_masked_attention.verdict(attention_child.answer(name), seed=0)
    assert verdict is not None and words in str(verdict), verdict


def test_honest_variants_keep_their_marks_and_a_wrong_cross_attention_costs_only_question_3(graded):
    assert scores(graded[0]["honest"]) == FULL | {"q3": 0}, graded[0]["honest"]


def test_modules_that_compute_no_attention_score_zero_on_questions_3_and_4(graded):
    """Issue #34's first route: zero weights make attention a constant; the checks load their own weights."""
    results = graded[0]["no_attention"]
    assert scores(results) == FULL | {"q3": 0, "q4": 0}, results
    assert "layer output" in by_question(results)["q4"]["output"], results


def test_a_table_of_dates_scores_zero_on_question_5(graded):
    """The model the student's swap_in returns translates from a table; the check translates with its own
    model, calling only the student's layers (untrained here, though they report the trained weights)."""
    results = graded[0]["date_table"]
    assert scores(results) == FULL | {"q5": 0}, results
    assert "held-out dates are translated wrongly" in by_question(results)["q5"]["output"], results


def test_a_table_of_dates_scores_zero_on_question_5_also_when_question_4_is_forged(graded):
    """With question 4 wrong, question 5 once graded only what the swap reported; the forged layers report
    the trained weights. Each layer now runs a known-good forward over what it really holds."""
    results = graded[0]["table_beside_forged_layer"]
    assert scores(results) == FULL | {"q4": 0, "q5": 0}, results
    assert "held-out dates are translated wrongly" in by_question(results)["q5"]["output"], results


def test_a_module_and_a_layer_in_float64_keep_full_marks(graded):
    assert scores(graded[0]["double"]) == FULL, graded[0]["double"]


def test_a_hanging_answer_costs_only_its_question(graded):
    entry = by_question(graded[0]["hang"])["q5"]
    assert entry["score"] == 0 and "did not finish within 10 s" in entry["output"], entry


def test_named_mistakes_appear_in_public_and_hidden_feedback(graded):
    for i, group in enumerate(groups(NAMED)):
        tests = {t["name"]: t for t in graded[0][f"named_{i}"]["tests"]}
        for question, (words, _) in group.items():
            public, hidden = tests[f"{question} - public"], tests[f"{question} - hidden 1"]
            assert public["score"] == 0 and words in public["output"], public
            assert hidden["output"].startswith("failed") and words in hidden["output"], hidden
            assert "seed" not in hidden["output"] and "[" not in hidden["output"], "hidden cases show a name only"


def test_a_submission_from_the_korean_edition_gets_korean_feedback_and_the_same_score(graded):
    results, out = graded
    english, korean = results["en_mistakes"], results["ko_mistakes"]
    assert [(t["name"], t["score"]) for t in korean["tests"]] == [(t["name"], t["score"]) for t in english["tests"]]
    assert scores(korean) == FULL | {"q1": 0, "q2": 0, "q5": 0}, korean  # the solution's q2 calls q1's scores
    en, ko = ({t["name"]: t["output"] for t in r["tests"]} for r in (english, korean))
    assert en["q1 - public"].startswith("forgot the 1/√d scaling (your scores are") and en["q4 - public"] == "passed"
    assert ko["q1 - public"].startswith("1/√d 스케일링을 빠뜨렸습니다 (점수 값이 기대한 값의") and ko["q4 - public"] == "통과"
    assert en["q1 - hidden 1"] == "failed: forgot the 1/√d scaling"
    assert ko["q1 - hidden 1"] == "실패: 1/√d 스케일링을 빠뜨렸습니다"
    assert "did not finish within 10 s" in en["q5 - public"]
    assert ko["q5 - public"] == "이 확인이 실행되는 동안 코드가 10초 안에 끝나지 않았으므로 이 문제는 0점입니다"
    assert not [text for text in ko.values() if re.search(r"\b(your|the|passed|failed)\b", text)], ko
    assert "신뢰할 수 있는 채점기가 채점했습니다" in (out / "feedback" / "ko_mistakes.md").read_text()
    assert korean["output"].startswith("신뢰할 수 있는") and english["output"].startswith("Graded by the trusted grader")


def test_solution_earns_full_marks_from_a_wheel_outside_the_repo(assigned, wheel_python, tmp_path):
    python, site = wheel_python
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / NAME).write_bytes((assigned / "autograder" / NAME).read_bytes())
    results = grade_folder(assigned, tmp_path / "subs", tmp_path / "out", python=python)
    assert scores(results["subs"]) == FULL, results


def test_the_gradescope_command_grades_a_folder_laid_out_like_autograder(assigned, tmp_path):
    """What the zip's run_autograder runs: source/ holds the plan, submission/ the notebook; results.json."""
    import json
    import os
    import subprocess
    import sys
    import zipfile
    with zipfile.ZipFile(next((assigned / "autograder").glob("*.zip"))) as archive:
        archive.extract("grading_plan.json", tmp_path / "source")
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "mine.ipynb").write_bytes((assigned / "autograder" / NAME).read_bytes())
    subprocess.run([sys.executable, "-m", "anatomy_grading", "gradescope", tmp_path], check=True, capture_output=True,
                   timeout=600, env=os.environ | {"OMP_NUM_THREADS": "1"})
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    assert scores(results) == FULL and results["score"] == 15, results
    assert all(t["name"].startswith("q") and "visibility" in t for t in results["tests"]), results["tests"]


def test_committed_student_version_has_stubs_public_tests_and_no_solutions_or_hidden_tests():
    text = (ROOT / "notebooks" / NAME).read_text() + (ROOT / "notebooks" / NAME).with_suffix(".py").read_text()
    assert 'raise NotImplementedError(\\"Question 3: CrossAttention.forward\\")' in text
    assert "masked_fill(~key_mask" not in text and "transpose(1, 2).reshape" not in text and "**Solution.**" not in text
    assert "seed=0" in text, "public tests stay in the student version"
    assert not re.search(r"seed=(1234|99|7|5|4242)\b", text), "hidden tests must not reach students"


def test_a_secret_reseeds_the_hidden_tests_only():
    reseeded = assign_script().reseeded
    import nbformat
    original, secret = nbformat.read(MASTER, as_version=4), reseeded(MASTER, "s3cret")
    changed = [new.source for old, new in zip(original.cells, secret.cells) if old.source != new.source]
    assert len(changed) == 5 and all(source.startswith("# HIDDEN") for source in changed), changed
    assert not re.search(r"seed=(1234|99|7|5|4242)\b", "".join(changed))


def test_the_cached_build_is_keyed_on_every_input_of_assign(tmp_path, monkeypatch):
    """grading_helpers.assign reuses a build only while the master, the secret, instructor/assign.py and the
    packages it runs are unchanged: any change names another cache entry."""
    import grading_helpers

    master = tmp_path / "master.ipynb"
    master.write_bytes(MASTER.read_bytes())
    key = grading_helpers.assign_key(master, "a secret")
    assert key == grading_helpers.assign_key(master, "a secret") and key.startswith("master-")
    assert grading_helpers.assign_key(master, "another secret") != key
    master.write_bytes(MASTER.read_bytes() + b" ")
    assert grading_helpers.assign_key(master, "a secret") != key
    master.write_bytes(MASTER.read_bytes())
    root = tmp_path / "root"
    for name in grading_helpers.ASSIGN_INPUTS[:1] + ("anatomy_grading/plan.py",):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x = 1\n")
    monkeypatch.setattr(grading_helpers, "ROOT", root)
    key = grading_helpers.assign_key(master, "")
    (root / "anatomy_grading" / "plan.py").write_text("x = 2\n")
    assert grading_helpers.assign_key(master, "") != key, "a changed module of the grader builds anew"
    (root / "instructor" / "assign.py").write_text("y = 1\n")
    assert grading_helpers.assign_key(master, "") != key
