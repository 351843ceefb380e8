"""Homework 3's review as an allowlist (anatomy/homework/attention_tests/allowed.py, review.py): a test may use the
modules of ALLOWED, Python's plain built-ins and the names the student's cells define; everything else is refused,
with no list of what is refused to keep up to date. Checked against the installed torch's own folder and source."""
from __future__ import annotations

import ast
import importlib.util
import itertools
import linecache
import re
from pathlib import Path

import pytest
import torch

from anatomy.homework import messages
from anatomy.homework.attention_tests import allowed, review
from anatomy_grading.static import code_cells, review as static_review, runnable as static_runnable

ROOT = Path(__file__).resolve().parent.parent
TORCH = Path(importlib.util.find_spec("torch").origin).parent


def test_every_module_of_torch_outside_the_allowlist_is_refused_and_every_allowed_one_passes():
    """Read off torch's folder itself (not from allowed.py): every public submodule of torch, torch.nn and
    torch.nn.functional's package that ALLOWED does not name is refused, whatever torch version is installed."""
    assert all(allowed.refused_module(name) is None for name in allowed.ALLOWED)
    found = {f"torch.{entry.name.removesuffix('.py')}" for entry in TORCH.iterdir()
             if (entry / "__init__.py").is_file() or entry.suffix == ".py"}
    found |= {f"torch.nn.{entry.name.removesuffix('.py')}" for entry in (TORCH / "nn").iterdir()
              if (entry / "__init__.py").is_file() or entry.suffix == ".py"}
    found -= {"torch.__init__", "torch.nn.__init__"}
    assert len(found) > 60 and {"torch.utils", "torch.profiler", "torch.hub", "torch.nn.modules"} <= found
    for name in sorted(found - set(allowed.ALLOWED)):
        assert allowed.refused_module(f"{name}.anything") == name, name
        assert review.forbidden(f"import torch\ndef test_x(impl):\n    return {name}.anything\n", {}), name


def test_the_standard_library_torch_imports_is_refused_through_torch():
    """torch/__init__.py imports os, sys, inspect, threading...: torch.os is a module of the standard library,
    read off torch's source (the top-level imports), and refused; torch.select and torch.chunk are functions."""
    tree = ast.parse((TORCH / "__init__.py").read_text())
    imported = {a.asname or a.name.split(".")[0] for n in tree.body if isinstance(n, ast.Import) for a in n.names}
    assert {"os", "sys"} <= imported
    for name in sorted(imported - {"torch"}):
        assert allowed.refused_module(f"torch.{name}.x") == f"torch.{name}", name
    for function in ("select", "chunk", "trace", "softmax", "allclose"):
        assert allowed.refused_module(f"torch.{function}") is None and callable(getattr(torch, function))


def test_builtins_are_refused_unless_allowed():
    import builtins
    refused = {name for name in dir(builtins) if allowed.builtin_refused(name)}
    assert not refused & {"hex", "oct", "bin", "ascii", "bytearray", "ValueError"}
    assert {"open", "getattr", "hasattr", "setattr", "type", "id", "hash", "vars", "dir", "eval", "exec", "compile",
            "input", "globals", "locals", "breakpoint", "help", "memoryview", "__import__", "BaseException",
            "KeyboardInterrupt", "SystemExit", "GeneratorExit", "exit", "quit"} <= refused
    assert not refused & (allowed.BUILTINS | {"ValueError", "AssertionError", "RuntimeError", "Exception", "StopIteration"})


HONEST = """import copy
import math
import itertools
from collections import Counter
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn import functional
from torch.testing import assert_close


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, -1) @ v


def test_honest(impl):
    input = torch.randn(2, 3, 8)
    id, type, hash = 1, 2, 3
    layer = nn.Linear(8, 8)
    nn.init.zeros_(layer.bias)
    for a, b in itertools.product(range(2), repeat=2):
        assert Counter([a, b])[a] >= 1
    out, weights = impl.attention(input, input, input)
    assert_close(out, reference(input, input, input), atol=1e-5, rtol=0)
    assert_close(out, F.scaled_dot_product_attention(input, input, input), atol=1e-5, rtol=0)
    assert torch.linalg.norm(weights.sum(-1) - 1) < 1e-5 and functional.relu(torch.ones(1)).item() == 1
    assert torch.select(weights, 0, 0).shape == (3, 3) and isinstance(out, torch.Tensor)
    check = lambda x: copy.deepcopy(x)
    assert isinstance([1], Sequence) and hex(16) == "0x10" and f"{weights.shape[-1]:d}" == "3"
    assert "{} {0:.1f}".format(1.0) and torch.float32 in (torch.float32, torch.float64) and torch.pi > 3
    try:
        impl.causal_mask(-1)
    except (ValueError, RuntimeError):
        pass
    print(id, type, hash, check, torch.special.expit(torch.zeros(1)), torch.fft.fft(torch.ones(2)))
    super
"""


def test_an_honest_suite_using_what_is_allowed_is_not_refused():
    assert review.forbidden(HONEST, {}) == []
    modules = {"torch": "torch", "os": "os", "sys": "sys", "hw": "anatomy.homework.attention_tests"}  # the template's
    assert review.forbidden(HONEST, modules) == []  # `impl` the parameter, not the global


TEMPLATE = ["import torch\nfrom anatomy.homework import attention_tests as hw\n"
            "from anatomy.homework.otter_grader import notebook_grader\n"
            "grader = notebook_grader('19.ipynb')\nimpl = hw.practice(None)\n"]
QUESTIONS = {"q1": {"symbols": ["q1_tests"], "forbidden": [], "names": True, "flag": True, "zero": "{what} (cell {cell})",
                    "review": "anatomy.homework.attention_tests.review", "why": "why_rules",
                    "seen": {key: messages.CATALOGUE[key]["en"] for key in review.KEYS}}}


@pytest.mark.parametrize("cell, zero", [
    ("def test_x(impl):\n    assert grader is not None\n", "`grader` (an object of the assignment or the notebook"),
    ("def test_x(ours):\n    assert impl.causal_mask(2).equal(ours.causal_mask(2))\n", "`impl` (an object of the assignment"),
    ("import numpy as np\ndef test_x(impl):\n    assert np.ones(1)\n", "`np` (the module `numpy`)"),
    ("def test_x(impl):\n    assert impl.causal_mask(2).all()\n", None),
])
def test_the_grader_refuses_what_the_assignment_binds_inside_a_test(cell, zero):
    """The grader's static review (static.review with plan.SUITE's review): names the template's cells bind
    (`grader`, `impl`) are not a test's; practice with them at a cell's top level is not refused nor flagged."""
    practice = "mutant = hw.build('no_scale')\nprint(impl.causal_mask(2), mutant)\n"
    cells = TEMPLATE + [practice, cell + "\nq1_tests = [test_x]\n"]
    found, flags = static_review(cells, TEMPLATE, QUESTIONS)
    assert (found.get("q1") is None) if zero is None else zero in found["q1"], found
    assert not [f for f in flags if "cell 1" in f], flags


def test_the_check_cell_reviews_helpers_and_what_the_tests_module_binds(tmp_path):
    """The check cell (hw.check_tests) reads the tests' helpers (as the grader does) and knows what a global
    from another module names: `Path` is pathlib's, a helper that reads the clock is refused."""
    from anatomy.homework import attention_tests as hw
    source = ("import time\nfrom pathlib import Path\nimport torch\n\n\ndef clock():\n    return time.monotonic()\n\n\n"
              "def test_helper(impl):\n    assert clock() >= 0 and impl.causal_mask(2).all()\n\n\n"
              "def test_path(impl):\n    assert Path('.') and impl.causal_mask(2).all()\n")
    path = tmp_path / "probe_allowlist.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("probe_allowlist", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    said = hw.check_tests.feedback([module.test_helper], question="q2")
    assert "scores 0" in said and ("`.monotonic`" in said or "the module `time`" in said), said
    said = hw.check_tests.feedback([module.test_path], question="q2")
    assert "`Path` (the module `pathlib`)" in said, said
    from anatomy.homework.attention_tests import suite_source  # a library class's code is not the student's
    assert suite_source.sources({"test_path": module.test_path}).strip() == source[source.index("def test_path"):].strip()


def test_the_rules_in_the_notebook_and_the_message_name_every_allowed_module():
    """Claims that cannot drift: notebook 19's rules (both editions) and the refusal's words (both languages)
    name each module of allowed.ALLOWED, and no module the allowlist refuses."""
    english = (ROOT / "instructor" / "19_homework_attention_tests.py").read_text()
    korean = (ROOT / "notebooks" / "19_homework_attention_tests.ko.md").read_text()
    texts = {"notebook": english, "Korean notebook": korean, **{f"message {lang}": messages.CATALOGUE["why_allowed"][lang]
                                                                for lang in messages.LANGUAGES}}
    for where, text in texts.items():
        named = set(re.findall(r"`([\w.]+)`", text))
        for module in set(allowed.ALLOWED) - {"__future__"}:
            assert module in named, (where, module)
    message = messages.CATALOGUE["why_allowed"]["en"]
    assert all(allowed.refused_module(name) is None for name in re.findall(r"`([\w.]+)`", message) if name != "dtype")
    for where, text in (("notebook", english), ("Korean notebook", korean)):
        named = set(re.findall(r"`([\w.]+)`", text))
        assert {f"torch.{name}" for name in allowed.TORCH} <= named, (where, {f"torch.{n}" for n in allowed.TORCH} - named)
    plain = english[english.index("Python's plain built-ins ("):]
    plain = plain[:plain.index("though a")]
    yes, no = plain.split("; not ")
    assert all(not allowed.builtin_refused(n) for n in re.findall(r"`(\w+)`", yes)), yes
    assert all(allowed.builtin_refused(n) for n in re.findall(r"`(\w+)`", no)), no
    for name in ("save", "load", "compile"):  # named as refused
        assert f"`torch.{name}`" in english and allowed.refused_module(f"torch.{name}")


MODULES = {"torch": "torch", "F": "torch.nn.functional", "nn": "torch.nn", "os": "os", "sys": "sys", "subprocess": "subprocess",
           "time": "time", "math": "math", "hw": "anatomy.homework.attention_tests"}  # as the template's cells bind them
ROUTES = {  # the fourteenth reading's routes past the first allowlist (review_19_fourteenth A1-A8), each refused now
    "alias": ("def test_x(impl):\n    t = torch\n    return t.os.listdir('/proc/self')\n", "seen_module_value"),
    "alias at the top": ("T = torch\ndef test_x(impl):\n    print(T.os.getcwd())\n", "seen_module_value"),
    "a module passed": ("def test_x(impl):\n    return (lambda m: m.os)(torch.nn)\n", "seen_module_value"),
    "__builtins__": ("def test_x(impl):\n    return __builtins__.open('/proc/self/stat').read()\n", "seen_private"),
    "a comprehension's open": ("def test_x(impl):\n    [0 for open in ()]\n    return open('/proc/self/stat')\n", "seen_code"),
    "a first iterable": ("def test_x(impl):\n    return [open for open in open('/proc/self/stat')]\n", "seen_code"),
    "a class body's getattr": ("def test_x(impl):\n    class Shadow:\n        getattr = None\n    return getattr(impl, 'x')\n",
                               "seen_code"),
    "a method's type": ("def test_x(impl):\n    class C:\n        type = int\n        def m(self, obj):\n"
                        "            return type(obj)\n    return C().m(impl)\n", "seen_code"),
    "a lambda's os": ("def test_x(impl):\n    (lambda os, time: None)\n    return os.listdir('/proc'), time.time_ns()\n",
                      "seen_module"),
    "a lambda's impl": ("def test_x(ours):\n    (lambda impl: 0)\n    return impl.causal_mask(2)\n", "seen_name"),
    "typing": ("import typing\ndef test_x(impl):\n    typing.get_type_hints(test_x)\n", "seen_module"),
    "functools": ("import functools\ndef test_x(impl):\n    functools.update_wrapper({}, impl, assigned=('x',))\n",
                  "seen_module"),
    "match": ("def test_x(impl):\n    match test_x:\n        case object(__globals__=scope):\n            return scope\n",
              "seen_code"),
    "format fields": ("def test_x(impl):\n    g = (i for i in [1])\n    return '{0.gi_frame.f_back}'.format(g)\n", "seen_code"),
    "format built": ("def test_x(impl):\n    return ('{0' + '.x}').format(impl)\n", "seen_code"),
    "CompilationUnit": ("def test_x(impl):\n    return torch.CompilationUnit('def f(x: int) -> int:\\n    return x')\n",
                        "seen_torch"),
    "numpy": ("def test_x(impl):\n    torch.ones(3).numpy()\n", "seen_code"),
    "a dunder method": ("class Spy(torch.Tensor):\n    def __torch_function__(cls, *args):\n        pass\n", "seen_private"),
    "grader": ("def test_x(impl):\n    return grader\n", "seen_name"),
    # the fifteenth reading's (review_19_fifteenth A1-A6)
    "a class body's eval": ("def test_x(impl):\n    eval = None\n    class C:\n        clock = eval('1')\n        eval = None\n"
                            "    return C.clock\n", "seen_code"),
    "F.grad": ("def test_x(impl):\n    g = F.grad\n    return g.torch.os.times()\n", "seen_module"),
    "two format fields": ("def test_x(impl):\n    def walk():\n        yield '{0.gi_frame.f_back.f_locals}{0.__name__}'.format(step)\n"
                          "    step = walk()\n    return next(step)\n", "seen_code"),
    "a format field from __init__": ("def test_x(impl):\n    return '{0.__init__.__globals__}'.format(impl)\n", "seen_code"),
    "a walrus's open": ("F2 = [lambda: open for _ in [0] if True or (open := 0)]\ndef test_x(impl):\n    return F2[0]()\n",
                        "seen_code"),
    "Module.compile": ("def test_x(impl):\n    nn.Linear(2, 2).compile(backend=print)\n", "seen_code"),
    "Module.share_memory": ("def test_x(impl):\n    nn.Linear(2, 2).share_memory()\n", "seen_code"),
    "from torch import from_file": ("from torch import from_file\n", "seen_code"),
    "nonlocal": ("def test_x(impl):\n    n = 0\n    def f():\n        nonlocal n\n    f()\n", "seen_code"),
    "display": ("def test_x(impl):\n    display(impl)\n", "seen_name"),
    "Out": ("def test_x(impl):\n    return Out\n", "seen_name"),
    # the sixteenth reading's (review_19_sixteenth A1, A2): every way a class body binds a name, .mro(), copy's others
    "a class body's except-as": ("def test_x(impl):\n    open = None\n    class C:\n        r = open('/x')\n        try:\n"
                                 "            pass\n        except ValueError as open:\n            pass\n", "seen_code"),
    "a class body's del": ("def test_x(impl):\n    eval = None\n    class C:\n        r = eval('1')\n        del eval\n", "seen_code"),
    "a class body's def": ("def test_x(impl):\n    open = None\n    class C:\n        r = open('/x')\n        def open(self):\n"
                           "            pass\n", "seen_code"),
    "a class body's class": ("def test_x(impl):\n    eval = None\n    class C:\n        r = eval('1')\n        class eval:\n"
                             "            pass\n", "seen_code"),
    ".mro()": ("def test_x(impl):\n    try:\n        pass\n    except ValueError.mro()[-2]:\n        pass\n", "seen_code"),
    "copy.dispatch_table": ("import copy\ndef test_x(impl):\n    return copy.dispatch_table\n", "seen_torch"),
}


@pytest.mark.parametrize("attribute", ["numpy", "storage", "untyped_storage", "share_memory_", "share_memory", "tofile",
                                       "from_file", "compile", "f_back", "f_globals", "f_locals", "tb_frame", "tb_next",
                                       "gi_frame", "cr_frame", "ag_frame", "co_code", "gi_code"])
def test_a_tensor_s_ways_out_and_frames_are_refused_on_any_value(attribute):
    assert review.forbidden(f"def test_x(impl):\n    return torch.ones(1).{attribute}\n", MODULES), attribute


def test_a_name_the_student_s_own_cell_binds_is_theirs_in_the_grader():
    """`own` through the grader's static review: the student's cell binds `grader`, a test may read it."""
    cells = TEMPLATE + ["grader = 3\n\ndef test_x(impl):\n    assert grader == 3 and impl.causal_mask(2).all()\n\nq1_tests = [test_x]\n"]
    found, _ = static_review(cells, TEMPLATE, QUESTIONS)
    assert "q1" not in found, found
    found, _ = static_review(TEMPLATE + ["def test_x(impl):\n    assert grader\n\nq1_tests = [test_x]\n"], TEMPLATE, QUESTIONS)
    assert "q1" in found, found


@pytest.mark.parametrize("route", list(ROUTES))
def test_each_route_the_fourteenth_reading_found_is_refused(route):
    source, key = ROUTES[route]
    found = review.forbidden(source, MODULES)
    assert key in {k for (k, _), _ in found}, found


def test_the_course_s_own_device_and_a_student_s_redefinition_are_not_refused():
    """Fourteenth reading A7: `device` (the template's setup binds it, every notebook uses it) is data, not the
    assignment's object; a student who binds `grader` in their own cell owns the name."""
    assert review.forbidden("def test_x(impl):\n    return torch.ones(2, device=device)\n", MODULES) == []
    assert review.forbidden("def test_x(impl):\n    return grader\n", MODULES, own={"grader"}) == []


def test_the_review_fails_closed_where_a_module_s_source_cannot_be_read(monkeypatch):
    """Fourteenth reading B2: without torch's files, nothing inside torch is allowed (before: everything)."""
    monkeypatch.setattr(allowed, "source_of", lambda dotted: None)
    allowed.submodules.cache_clear()
    allowed.torch_names.cache_clear()
    try:
        assert allowed.refused_module("torch.utils.x") == "torch.utils" and allowed.refused_module("torch.randn")
        assert allowed.refused_module("copy.weakref.ref") == "copy.weakref"  # a pure-Python module's, unread
        assert allowed.refused_module("math.sqrt") is None  # compiled: no Python source, no submodule
    finally:
        allowed.submodules.cache_clear()
        allowed.torch_names.cache_clear()


def test_torch_s_own_names_are_its_tensor_functions_read_off_its_stubs():
    """torch.X is allowed where torch's own stub lists X as a tensor function, or X is a dtype or allowed.TORCH:
    checked against the live torch (dir(torch)), so a name bound by `from ... import` in torch is judged too."""
    names = allowed.torch_names()
    for name in ("randn", "softmax", "allclose", "tril", "einsum", "cat", "float32", "bool", "Tensor", "no_grad"):
        assert name in names and allowed.refused_module(f"torch.{name}") is None, name
    for name in ("save", "load", "compile", "CompilationUnit", "Event", "Generator", "set_rng_state", "jit", "ops",
                 "classes", "cpp", "library", "hub", "from_dlpack", "UntypedStorage"):
        assert hasattr(torch, name) and allowed.refused_module(f"torch.{name}.x"), name
    live = {n for n in dir(torch) if not n.startswith("_")}
    assert len(live & names) > 600 and len(live - names) > 200  # most of torch is tensor functions; much is not


def test_a_hook_filling_a_list_its_own_test_made_keeps_no_state():
    """Fifteenth reading A8: a nested forward hook appending to a list the test itself made was refused as state
    kept between runs; the list is made anew on every run. A list outside every function still is state kept."""
    hook = ("def test_x(impl):\n    captured = []\n    def hook(module, args, output):\n        captured.append(output)\n"
            "    layer = nn.Linear(2, 2)\n    layer.register_forward_hook(hook)\n    layer(torch.ones(1, 2))\n"
            "    assert len(captured) == 1\n")
    assert review.forbidden(hook, MODULES) == []
    kept = "CAPTURED = []\ndef test_x(impl):\n    def hook(module, args, output):\n        CAPTURED.append(output)\n"
    assert any(key == "seen_state" for (key, _), _ in review.forbidden(kept, MODULES))


KERNEL_ROUTES = {  # sixteenth reading A7-2 and A7-3: what the grader refuses at a notebook's top level; each test
    # passes the correct implementation, so only the review can score it 0
    "a global from torch.cuda": ("DEV = 'cuda' if torch.cuda.is_available() else 'cpu'\n",
                                 "def test_x(impl):\n    assert impl.causal_mask(2).all() and DEV\n", "[test_x]",
                                 "`torch.cuda`"),
    "a torch.Generator": ("G = torch.Generator().manual_seed(0)\n",
                          "def test_x(impl):\n    assert impl.causal_mask(2).all() and G is not None\n", "[test_x]",
                          "`torch.Generator`"),
    "a partial of open": ("import functools\nclose = functools.partial(lambda p, impl: open(p) and impl.causal_mask(2).all(), "
                          "'/proc/self/stat')\n", "def test_x(impl):\n    assert impl.causal_mask(2).all()\n",
                          "[test_x, close]", "`functools`"),
    "a list holding open": ("R = [open]\n", "def test_x(impl):\n    assert R[0] and impl.causal_mask(2).all()\n", "[test_x]",
                            "`open`"),
    "a top-level walrus": ("W = [lambda: open for _ in [0] if True or (open := 0)]\n",
                           "def test_x(impl):\n    assert W[0]() and impl.causal_mask(2).all()\n", "[test_x]", "`open`"),
    "a variable named F": ("B, T, D, H, F = 2, 3, 8, 2, 32\n",
                           "def test_x(impl):\n    assert impl.causal_mask(F).shape == (F, F)\n", "[test_x]",
                           "`F` (a module used as a value"),
}
NOTEBOOK_TOP = "import torch\nimport torch.nn.functional as F\nfrom anatomy.homework import attention_tests as hw\n"


STUDENT_NOTEBOOK = ROOT / "notebooks" / "19_homework_attention_tests.ipynb"
TEMPLATE_CELLS = code_cells(STUDENT_NOTEBOOK)  # the student notebook's code cells, as the grader reads them


def kernel(cells: list[str]) -> dict:
    """A kernel's namespace after the template's imports and `cells`, with IPython's history (`In`): the template's
    cells (whose setup is stood in for: `device`, the imports), then `cells`."""
    namespace = {"__name__": "__main__", "In": [""] + TEMPLATE_CELLS + cells, "device": torch.device("cpu")}
    shell = type("Shell", (), {"run_cell_magic": lambda self, name, line, body: exec(body, namespace)})()
    namespace["get_ipython"] = lambda: shell  # what a `%%time` cell, as IPython keeps it, calls
    for cell in [NOTEBOOK_TOP] + cells:  # each cell kept in linecache, as IPython keeps it: inspect.getsource reads it
        name = f"<ipython-input-{next(CELL_NUMBERS)}>"
        linecache.cache[name] = (len(cell), None, cell.splitlines(True), name)
        exec(compile(cell, name, "exec"), namespace)
    return namespace


CELL_NUMBERS = itertools.count()


def check_cell_view(namespace: dict) -> tuple[dict, str]:
    """What the check cell's review knows of a kernel (suite_source.kernel_view, as knowing_modules calls it):
    ({name: module}, the answer's statements in force) for its `q1_tests`."""
    from anatomy.homework.attention_tests import suite_source
    tests = namespace["q1_tests"]
    return suite_source.kernel_view(tests, list(tests))


@pytest.mark.parametrize("route", list(KERNEL_ROUTES))
def test_the_check_cell_and_the_grader_refuse_the_same_top_level_statements(route):
    """The check cell reads the kernel's top-level statements that define the tests and what they read (IPython's
    history, chosen as the grader chooses a question's answer code), and the names the kernel's imports bound: what
    the grader zeroes, the check cell says scores 0 (before, it passed all six routes and the grader zeroed them)."""
    from anatomy.homework import attention_tests as hw
    helper, test, listed, refused = KERNEL_ROUTES[route]
    cells = [helper, test, f"q1_tests = {listed}\n"]
    said = hw.check_tests.feedback(kernel(cells)["q1_tests"], question="q1")
    found, _ = static_review(TEMPLATE_CELLS + cells, TEMPLATE_CELLS, QUESTIONS)
    assert said.startswith("your tests use") and refused in said and "scores 0" in said, said
    assert refused in found["q1"], found


def test_the_check_cell_reads_the_latest_run_of_each_name_only():
    """A helper rewritten after a refusal: the kernel's history still holds its first version, which the grader
    never sees (the notebook holds the latest); the check cell reviews the latest statement defining each name."""
    from anatomy.homework.attention_tests import suite_source
    cells = ["SIZE = len(open('/proc/self/stat').read())\n", "SIZE = 4\n",
             "def test_x(impl):\n    assert impl.causal_mask(SIZE).shape == (SIZE, SIZE)\n", "q1_tests = [test_x]\n"]
    known, source = check_cell_view(kernel(cells))
    assert "SIZE = 4" in source and "open" not in source, source
    assert review.forbidden(source, known) == []
    assert suite_source.history(suite_source.namespace([lambda impl: None])) == ([], [])  # plain Python: no history


def test_the_check_cell_knows_the_template_s_cells_as_the_grader_does():
    """template.CELLS, the digests the check cell skips, are the student notebook's code cells as the grader reads
    them (make homework writes them; a template cell changed in the master and not rewritten fails here)."""
    from anatomy.homework.attention_tests import template
    from tools.template_cells import digests
    assert template.CELLS == frozenset(digests(STUDENT_NOTEBOOK))


def test_the_template_s_cells_and_a_test_s_locals_are_not_the_student_s_answer():
    """Lecturer's reading A1: the check cell took the setup cell (`device = anatomy.setup_notebook(...)`) into a test
    that reads `device`, and both reviews followed a test's local `m` to a top-level `for m in hw.MUTANTS` (the
    grader scored it 0 for `MUTANTS`). Now the template's cells are skipped by both, and only the globals a statement
    reads are followed (symtable)."""
    practice = "for m in hw.MUTANTS:\n    print(m.name)\n"
    test = ("def test_x(impl):\n    out = torch.ones(2, device=device)\n    for m in range(2):\n"
            "        assert impl.causal_mask(m + 1).all() and out.sum() == 2\n")
    cells = [practice, test, "q1_tests = [test_x]\n"]
    found, flags = static_review(TEMPLATE_CELLS + cells, TEMPLATE_CELLS, QUESTIONS)
    assert "q1" not in found and any("MUTANTS" in f and "outside the answers" in f for f in flags), (found, flags)
    known, source = check_cell_view(kernel(cells))
    assert "setup_notebook" not in source and "MUTANTS" not in source and "def test_x" in source, source
    assert review.forbidden(source, known) == []


@pytest.mark.parametrize("cells, refused", [
    (["class Box:\n    pass\n", "Box.read = open\n", "def test_x(impl):\n    assert Box.read and impl.causal_mask(2).all()\n"],
     "`open`"),
    (["NAMES = [m.name for m in hw.MUTANTS]\n", "def test_x(impl):\n    assert NAMES and impl.causal_mask(2).all()\n"],
     "`MUTANTS`"),
])
def test_a_change_to_a_global_and_the_grader_s_names_count_in_both_reviews(cells, refused):
    """A top-level statement that changes an object a test reads (`Box.read = open`) is part of its definition, and
    the check cell applies the grader's whole-name rule (plan.SUITE: `mutants`): both score 0 (the check cell
    passed both, and the grader only flagged the first)."""
    from anatomy.homework import attention_tests as hw
    cells = cells + ["q1_tests = [test_x]\n"]
    said = hw.check_tests.feedback(kernel(cells)["q1_tests"], question="q1")
    found, _ = static_review(TEMPLATE_CELLS + cells, TEMPLATE_CELLS, QUESTIONS)
    assert said.startswith("your tests use") and refused in said, said
    assert "q1" in found and refused.strip("`") in found["q1"], found


@pytest.mark.parametrize("defined", [
    "def test_x(impl):\n    assert np.ones(1) and impl.causal_mask(2).all()\n",
    "SIZE = int(np.int64(2))\n\n\ndef test_x(impl):\n    assert impl.causal_mask(SIZE).any()\n",  # the statement's reads
])
def test_a_list_built_by_append_is_the_answer_in_both_reviews(defined):
    """Second lecturer reading A2: `q1_tests.append(test_x)` changes the list in place; the grader took only
    `q1_tests = []` as the answer, so a test using numpy was flagged, not scored 0. Both now score it 0, also where
    numpy is in a global the test reads (tenth reading C5: the check cell reads the test's own source too)."""
    from anatomy.homework import attention_tests as hw
    cells = ["import numpy as np\n", defined, "q1_tests = []\n", "q1_tests.append(test_x)\n"]
    said = hw.check_tests.feedback(kernel(cells)["q1_tests"], question="q1")
    found, _ = static_review(TEMPLATE_CELLS + cells, TEMPLATE_CELLS, QUESTIONS)
    assert said.startswith("your tests use") and "`np`" in said, said
    assert "q1" in found and "`np`" in found["q1"], found


@pytest.mark.parametrize("decorator, after, said_first", [
    ("@q1_tests.append\n", [], "`np`"),
    ("", ["def _r(x=q1_tests.append(test_x)):\n    pass\n"], "`_r(... = q1_tests"),  # a default runs where its def is
    ("", ["@print(q1_tests.append(test_x)) or (lambda f: f)\ndef _r():\n    pass\n"], "`q1_tests.append"),  # a decorator too
])
def test_a_test_registered_by_a_list_s_method_as_decorator_is_the_answer_in_both_reviews(decorator, after, said_first):
    """Seventh lecturer check B1: `@q1_tests.append` changes the list as `q1_tests.append(test_x)` does, but the
    def was not seen as changing it, so a global the test read (SIZE, built with numpy) passed both reviews; nor
    was a change in another def's default or decorator (ninth reading C2), which run where that def is."""
    from anatomy.homework import attention_tests as hw
    cells = ["import numpy as np\n", "SIZE = int(np.int64(2))\n", "q1_tests = []\n",
             decorator + "def test_x(impl):\n    assert impl.causal_mask(SIZE).any()\n"] + after
    said = hw.check_tests.feedback(kernel(cells)["q1_tests"], question="q1")
    found, _ = static_review(TEMPLATE_CELLS + cells, TEMPLATE_CELLS, QUESTIONS)
    assert said.startswith(f"your tests use {said_first}"), said  # the check cell names its first refusal
    assert "q1" in found and "`np`" in found["q1"], found


REG = "def reg(f):\n    q1_tests.append(f)\n    return f\n\n"


@pytest.mark.parametrize("cells", [
    ["CASES = []\n", "def add_case(n):\n    CASES.append(torch.randn(2, n))\n", "for n in (2, 3):\n    add_case(n)\n",
     "def test_x(impl):\n    assert all(impl.causal_mask(c.shape[1]).any() for c in CASES)\n", "q1_tests = [test_x]\n"],
    ["REFS = {}\n", "def ref(n):\n    REFS[n] = torch.ones(n, n).tril().bool()\n", "ref(3)\n",
     "def test_x(impl):\n    assert torch.equal(impl.causal_mask(3), REFS[3])\n", "q1_tests = [test_x]\n"],
    ["q1_tests = []\n", REG + "@reg\ndef test_x(impl):\n    assert impl.causal_mask(3).any()\n"],
    ["q1_tests = []\n", REG, "def test_x(impl):\n    assert impl.causal_mask(3).any()\n", "reg(test_x)\n"],
])
def test_a_helper_called_at_the_top_level_to_fill_a_global_is_not_refused(cells):
    """Eighth lecturer reading B1: following what a called function changes made its def part of the answer, whose
    `CASES.append(...)` the review refuses as state kept from one run to the next, though it ran once, before any
    run: honest helpers scored 0 in both reviews. A call's changes inside the function are not followed."""
    from anatomy.homework import attention_tests as hw
    said = hw.check_tests.feedback(kernel(cells)["q1_tests"], question="q1")
    found, flags = static_review(TEMPLATE_CELLS + cells, TEMPLATE_CELLS, QUESTIONS)
    assert said.startswith("your tests caught") and "q1" not in found, (said, found)
    assert any("(state kept" in f and "outside the answers" in f for f in flags), flags  # the README: flagged


def test_a_helper_changing_what_it_is_given_is_neither_refused_nor_flagged():
    """The README: a change to what a helper is given (`register(helpers)`) is not seen, so not flagged."""
    from anatomy.homework import attention_tests as hw
    cells = ["helpers = []\n", "def register(h):\n    h.append(torch.ones(1))\n", "register(helpers)\n",
             "def test_x(impl):\n    assert impl.causal_mask(3).any() and len(helpers)\n", "q1_tests = [test_x]\n"]
    said = hw.check_tests.feedback(kernel(cells)["q1_tests"], question="q1")
    found, flags = static_review(TEMPLATE_CELLS + cells, TEMPLATE_CELLS, QUESTIONS)
    assert said.startswith("your tests caught") and "q1" not in found and flags == [], (said, found, flags)


@pytest.mark.parametrize("cells", [
    [REG + "@reg\ndef test_x(impl):\n    assert impl.causal_mask(int(np.int64(3))).any()\n"],
    [REG, "def test_x(impl):\n    assert impl.causal_mask(int(np.int64(3))).any()\n", "reg(test_x)\n"],
])
def test_a_test_registered_by_a_call_is_refused_by_the_check_cell_and_flagged_by_the_grader(cells):
    """What the README says of `@reg` and `reg(test_x)`: the check cell reads every test in the list (its own source,
    which IPython keeps), the grader's answer code starts from the statements that bind or change `q1_tests`."""
    from anatomy.homework import attention_tests as hw
    cells = ["import numpy as np\n", "q1_tests = []\n"] + cells
    said = hw.check_tests.feedback(kernel(cells)["q1_tests"], question="q1")
    found, flags = static_review(TEMPLATE_CELLS + cells, TEMPLATE_CELLS, QUESTIONS)
    assert said.startswith("your tests use `np`"), said
    assert "q1" not in found and any("`np`" in f and "outside the answers" in f for f in flags), (found, flags)


@pytest.mark.parametrize("cells, refused", [
    (["CASES = []\n", "def add_case(n):\n    CASES.append(torch.randn(2, n))\n    return CASES[-1]\n",
      "FIRST = add_case(3)\n"], "`CASES.append"),  # cell 0: a helper whose result binds a global is the answer
    (["def make_case(n):\n    return torch.randn(2, n)\n", "CASES = [make_case(n) for n in (2, 3)]\n",
      "FIRST = make_case(3)\n"], None),  # cell 0's way: a helper that only returns
])
def test_a_helper_whose_result_binds_a_global_the_tests_read_is_reviewed_as_a_test(cells, refused):
    """Cell 0: a helper a statement of the answer calls is reviewed as a test is, so `FIRST = add_case(3)`, where
    add_case also appends to a list, scores 0 in both reviews; built from a helper that only returns, it passes
    both, unflagged."""
    from anatomy.homework import attention_tests as hw
    test = "def test_x(impl):\n    assert impl.causal_mask(FIRST.shape[1]).any() and len(CASES)\n"
    cells = cells + [test, "q1_tests = [test_x]\n"]
    said = hw.check_tests.feedback(kernel(cells)["q1_tests"], question="q1")
    found, flags = static_review(TEMPLATE_CELLS + cells, TEMPLATE_CELLS, QUESTIONS)
    if refused:
        assert said.startswith(f"your tests use {refused}") and refused in found.get("q1", ""), (said, found)
    else:
        assert said.startswith("your tests caught") and "q1" not in found and flags == [], (said, found, flags)


def test_every_statement_of_a_refused_answer_is_judged_as_the_answer():
    """Eighth lecturer reading C2: the grader stopped at the answer's first refusal and then flagged the rest of
    the answer (a second refused global) as "outside the answers"."""
    cells = ["import numpy as np\nimport time\n", "SIZE = int(np.int64(2))\n", "START = int(time.time()) % 2 + 2\n",
             "def test_x(impl):\n    assert impl.causal_mask(SIZE).any() and impl.causal_mask(START).any()\n",
             "q1_tests = [test_x]\n"]
    found, flags = static_review(TEMPLATE_CELLS + cells, TEMPLATE_CELLS, QUESTIONS)
    assert "q1" in found and not any("outside the answers" in f for f in flags), (found, flags)


def test_ipython_s_output_names_and_a_change_run_again_are_not_the_answer():
    """Second lecturer reading C3: a cell ending in `q1_tests` binds IPython's `_` to the list, which pulled in any
    statement binding `_`; a change run again (`Box.n = 2` after `Box.n = len(hw.MUTANTS)`) kept the first."""
    cells = ["class Box:\n    n = 0\n", "Box.n = len(hw.MUTANTS)\n", "Box.n = 2\n",
             "for bug in hw.MUTANTS[:2]:\n    out, _ = bug, 0\n",
             "def test_x(impl):\n    assert impl.causal_mask(Box.n).all()\n", "q1_tests = [test_x]\n"]
    namespace = kernel(cells)
    namespace["_"] = namespace["_6"] = namespace["q1_tests"]  # what IPython binds after a cell ending in `q1_tests`
    _, source = check_cell_view(namespace)
    assert "Box.n = 2" in source and "MUTANTS" not in source, source


@pytest.mark.parametrize("cells, kept, dropped", [
    (["SIZES = [len(open('/proc/self/stat').read()) % 3 + 1]\nSIZES += [3]\n"], "open", None),  # read, then changed
    (["class Box:\n    n = 1\n", "Box.n = len(hw.MUTANTS)\n", "Box.n += 1\n"], "MUTANTS", None),
    (["SIZE = len(open('/proc/self/stat').read())\n", "SIZE = 4\n"], "SIZE = 4", "open"),  # rebound, unread: replaced
    (["SIZE = len(open('/proc/self/stat').read())\n", "SIZES = [SIZE]\n", "SIZE = 4\n"], "open", None),  # read first
    (["import numpy as np\n", "def test_np(impl):\n    assert np.ones(1)\n", "q1_tests = []\n",
      "q1_tests.append(test_np)\n"], "q1_tests = [test_x]", "test_np"),  # the list rebuilt later: the append is gone
])
def test_the_check_cell_drops_only_what_a_later_statement_replaced_unread(cells, kept, dropped):
    """Third lecturer reading A1, B1: the check cell dropped every statement whose names a later one bound again
    (`SIZES += [3]` hid `SIZES = [...open...]`, `Box.n += 1` hid `Box.n = len(hw.MUTANTS)`), and kept an append the
    list was later rebuilt without. A statement counts unless a later one rebinds all it touched before anything
    read it (answers.in_force)."""
    test = "def test_x(impl):\n    assert impl.causal_mask(4).all() and SIZES and SIZE and Box\n"
    cells = ["SIZES, SIZE = [1], 1\nclass Box:\n    n = 1\n"] + cells + [test, "q1_tests = [test_x]\n"]
    _, source = check_cell_view(kernel(cells))
    assert kept in source and (dropped is None or dropped not in source), source


def test_a_call_on_a_module_in_a_practice_loop_is_not_the_answer():
    """Third lecturer reading B2: `torch.add(...)` in a loop over hw.MUTANTS counted as changing `torch` (`add` is
    a container's method name), so the loop became every question's answer and scored 0 for `MUTANTS`."""
    practice = "for m in hw.MUTANTS:\n    torch.add(torch.ones(1), 1)\n"
    cells = [practice, "def test_x(impl):\n    assert impl.causal_mask(2).all() and torch.ones(1).sum() == 1\n",
             "q1_tests = [test_x]\n"]
    found, flags = static_review(TEMPLATE_CELLS + cells, TEMPLATE_CELLS, QUESTIONS)
    assert "q1" not in found and any("outside the answers" in f for f in flags), (found, flags)
    _, source = check_cell_view(kernel(cells))
    assert "MUTANTS" not in source, source


@pytest.mark.parametrize("cells, zero", [
    (["CASES = []\nfor m in range(3):\n    CASES.append(torch.randn(2, m + 1))\n", "for m in hw.MUTANTS:\n    print(m.name)\n",
      "def test_x(impl):\n    assert CASES and impl.causal_mask(2).all()\n"], None),  # a loop's variable is bound first
    (["A = torch.cuda.is_available()\n", "def make():\n    return [A]\n", "X = make()\n", "A = 4\n",
      "def test_x(impl):\n    assert X is not None and impl.causal_mask(2).all()\n"], "`torch.cuda`"),  # read by a call
    (["%%time\nimport numpy as np\ndef test_x(impl):\n    assert np.ones(1) and impl.causal_mask(2).all()\n"], "`np`"),
    (["import time\ndef test_x(impl):\n    assert impl.causal_mask(2).all()\n", "q1_tests = [test_x]\nfor t in q1_tests:\n"
      "    start = time.time()\n"], None),  # a loop over the list is not the list
])
def test_the_check_cell_and_the_grader_choose_the_same_statements(cells, zero):
    """Fourth and fifth lecturer readings: a loop's variable pulled another cell's loop into the answer; a refused
    value read by a call survived its global's rebinding; a `%%time` cell was invisible to the check cell; a loop
    `for t in q1_tests` made `t` a name of the answer. Both reviews now agree on each."""
    from anatomy.homework import attention_tests as hw
    cells = cells + ["q1_tests = [test_x]\n"]
    kernel_cells = [c if not c.startswith("%%time\n") else
                    f"get_ipython().run_cell_magic('time', '', {c[len('%%time' + chr(10)):]!r})\n" for c in cells]
    found, _ = static_review(TEMPLATE_CELLS + [static_runnable(c) for c in cells], TEMPLATE_CELLS, QUESTIONS)
    if zero is None:
        assert "q1" not in found and check_cell_refusals(kernel_cells) == [], found
    else:
        said = hw.check_tests.feedback(kernel(kernel_cells)["q1_tests"], question="q1")
        assert said.startswith("your tests use") and zero in said, said
        assert "q1" in found and zero in found["q1"], found


def check_cell_refusals(cells: list[str]) -> list:
    """What the check cell's review refuses, for a kernel that ran `cells` (no grading run): the tests' and their
    helpers' own source, then the answer's statements in force, as check_tests reads them."""
    from anatomy.homework.attention_tests import suite_source
    from anatomy.homework.attention_tests.checks import names_of
    namespace = kernel(cells)
    known, notebook = check_cell_view(namespace)
    token = suite_source.NOTEBOOK.set(notebook)
    try:
        return review.forbidden(suite_source.sources(names_of(list(namespace["q1_tests"]))), known)
    finally:
        suite_source.NOTEBOOK.reset(token)


def test_a_global_replaced_in_the_kernel_but_kept_in_the_notebook_is_judged_by_the_grader():
    """What cell 0 says differs: the check cell reads the statements in force in the kernel (a repaired global's
    cell run again clears it, even with the test's cell not run again), the grader every statement of the saved
    notebook, so a global defined twice there (one line replaced by the next) is judged in both."""
    refused, repaired = "DEV = 'cuda' if torch.cuda.is_available() else 'cpu'\n", "DEV = 'cpu'\n"
    test = "def test_x(impl):\n    assert DEV and impl.causal_mask(2).all()\n\n\nq1_tests = [test_x]\n"
    assert check_cell_refusals([refused, test, repaired]) == []  # the global's cell repaired and run again
    assert check_cell_refusals([refused + repaired, test]) == []
    found, _ = static_review(TEMPLATE_CELLS + [refused + repaired, test], TEMPLATE_CELLS, QUESTIONS)
    assert "`torch.cuda`" in found["q1"], found  # both lines saved: the grader judges both
    found, _ = static_review(TEMPLATE_CELLS + [repaired, test], TEMPLATE_CELLS, QUESTIONS)
    assert "q1" not in found, found  # the line replaced in the saved notebook: nothing to judge
