"""The trusted grader's pieces on their own: the wire carries data only and within its caps, the static
rules find forbidden names in answer code (not in the template or in unrelated cells), the plan reads
the master's cases, the child refuses every attention operator the installed torch has, and the
grading code's imports form no cycle. (test_isolated_grading.py grades whole notebooks.)"""
import ast
import json
import math
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest
import torch

from anatomy.homework.messages import say
from anatomy_grading import plan, static, wire

ROOT = Path(__file__).parent.parent


def round_trip(value):
    tensors: dict = {}
    data = wire.encode(value, tensors, lambda v: (_ for _ in ()).throw(wire.WireError(type(v).__name__)))
    message, received = wire.unpack(*_split(wire.pack({"v": data}, tensors)))
    return wire.decode(message["v"], received, lambda d: (_ for _ in ()).throw(wire.WireError(d["t"])))


def _split(frame: bytes):
    body, blob = wire.lengths(frame[:wire.HEADER.size])
    rest = frame[wire.HEADER.size:]
    return rest[:body], rest[body:body + blob]


def test_the_wire_round_trips_plain_data_and_tensors():
    from anatomy.tasks.sentiment_batches import SentimentBatch

    value = {"a": (1, 2.5, float("nan"), None, True, "x"), 3: [torch.arange(6).view(2, 3), torch.float16],
             "ns": SimpleNamespace(hidden_size=8), "batch": SentimentBatch(torch.ones(2, 3), torch.ones(2, 3), torch.tensor([0, 1]))}
    back = round_trip(value)
    assert back["a"][:2] == (1, 2.5) and math.isnan(back["a"][2]) and back["a"][3:] == (None, True, "x")
    assert torch.equal(back[3][0], value[3][0]) and back[3][1] is torch.float16 and back["ns"].hidden_size == 8
    assert isinstance(back["batch"], SentimentBatch) and torch.equal(back["batch"].labels, torch.tensor([0, 1]))


def test_the_wire_refuses_what_is_not_plain_data():
    with pytest.raises(wire.WireError, match="function"):
        round_trip(lambda: 0)
    with pytest.raises(wire.WireError, match="not a data class the wire carries"):
        wire.decode({"t": "data", "c": "os.system", "v": {}}, {}, None)
    with pytest.raises(wire.WireError, match="over the limits"):
        wire.lengths(wire.HEADER.pack(wire.MAGIC, wire.MAX_JSON + 1, 0))
    with pytest.raises(wire.WireError, match="not a grading frame"):
        wire.lengths(b"\x80\x04pickle" + bytes(wire.HEADER.size - 8))


TEMPLATE = ["import torch\nimport torch.nn.functional as F", "def scores(q, k):\n    raise NotImplementedError",
            "x = getattr(config, 'eps', 1e-5)"]
RULES = {"q1": {"symbols": ["scores"], "forbidden": ["scaled_dot_product"], "why": "write it yourself",
               "zero": say("answer_uses", "en", what="{what}", cell="{cell}", why="write it yourself")}}  # as plan.question_rules


def test_a_forbidden_name_in_the_answer_or_a_helper_it_uses_scores_zero():
    helper = "def helper(q, k):\n    return F.scaled_dot_product_attention(q, k, k)\n"
    zero, _ = static.review(TEMPLATE[:1] + [helper, "def scores(q, k):\n    return helper(q, k)"] + TEMPLATE[2:], TEMPLATE, RULES)
    assert zero == {"q1": "your answer uses scaled_dot_product_attention (cell 1): write it yourself, so this question scores 0"}
    unrelated, _ = static.review(TEMPLATE[:1] + [helper, "def scores(q, k):\n    return q @ k.mT"], TEMPLATE, RULES)
    assert unrelated == {}, "a scratch cell the answer does not use costs nothing"


def test_dynamic_constructs_beyond_the_templates_own_are_flagged_for_review():
    _, flags = static.review(TEMPLATE + ["import sys\nsys.modules['x'] = getattr(torch, 'nn')"], TEMPLATE, RULES)
    assert flags == ["cell 3 uses getattr", "cell 3 uses modules"], flags
    completed = TEMPLATE[:2] + [TEMPLATE[2] + "\ny = x * 2"]  # the student's own cell, with the template's getattr
    assert static.review(completed, TEMPLATE, RULES) == ({}, []), "the template's own getattr is not flagged"
    methods = static.review(TEMPLATE + ["model = torch.nn.Linear(2, 2)\nmodel.eval()", "out = eval('1')"], TEMPLATE, RULES)
    assert methods[1] == ["cell 4 uses eval"], "model.eval() is a method, not the builtin eval"


def test_grader_cells_and_ipython_lines_never_reach_the_child(tmp_path):
    notebook = {"cells": [{"cell_type": "code", "source": ["%matplotlib inline\n", "x = 1"]},
                          {"cell_type": "code", "source": "grader.check('q1')"}, {"cell_type": "markdown", "source": "hi"}]}
    (tmp_path / "n.ipynb").write_text(json.dumps(notebook))
    assert static.code_cells(tmp_path / "n.ipynb") == ["pass  # an IPython line, not run by the grader\nx = 1"]
    (tmp_path / "bad.ipynb").write_text("{not json")
    with pytest.raises(static.NotebookError) as raised:
        static.code_cells(tmp_path / "bad.ipynb")
    assert "not a Jupyter notebook" in say(raised.value.key, "en", **raised.value.fields)  # the grader's words
    assert "Jupyter 노트북이 아닙니다" in say(raised.value.key, "ko", **raised.value.fields)


def test_the_plan_reads_every_case_of_the_master():
    found = plan.plan_from_master(ROOT / "instructor" / "08_homework_cross_attention.ipynb",
                                  ROOT / "notebooks" / "08_homework_cross_attention.ipynb")
    assert {q: (spec["points"], [c["hidden"] for c in spec["cases"]]) for q, spec in found["questions"].items()} == {
        q: (p, [False, True]) for q, p in {"q1": 2, "q2": 3, "q3": 4, "q4": 3, "q5": 3}.items()}
    assert found["questions"]["q5"]["cases"][1] == {"check": "check_translations", "hidden": True, "kwargs": {"count": 300, "seed": 4242},
                                                    "args": [{"answer": "swap_in"}, {"answer": "MyDecoderLayer"}, {"answer": "CrossAttention"}]}


def test_the_child_refuses_every_attention_operator_of_the_installed_torch():
    from anatomy_grading import grader

    names = {n for n in torch._C._dispatch_get_all_op_names() if n.startswith("aten::") and ("attention" in n or "multi_head" in n)}
    group = plan.HOMEWORKS["08_homework_cross_attention"].groups[0]
    runner = grader.Runner(group, [], grader.Result(), 5, 1, grader.hidden_paths([]))
    try:
        poisoned = set(runner.ready().child.poisoned)
    finally:
        runner.close()
    assert len(names) >= 20 and names <= poisoned, sorted(names - poisoned)
    assert {"F.multi_head_attention_forward", "nn.MultiheadAttention", "anatomy.MultiHeadAttention",
            "anatomy.scaled_dot_product_attention", "anatomy.efficient.tiled_attention.tiled_attention"} <= poisoned


def test_the_poisoning_reads_no_attribute_of_what_it_does_not_poison():
    """transformers 5.20 (the newest on Python 3.10) keeps alias modules whose __getattr__ imports torchvision:
    asking such a module for its __module__ stopped the grading child from starting. Only functions and
    classes are poisoned, so nothing else is asked anything; what must be poisoned still is."""
    from anatomy_grading import poison

    asked = []
    lazy = ModuleType("fake_library.image_processing_fast")
    lazy.__getattr__ = lambda name: asked.append(name) or (_ for _ in ()).throw(ModuleNotFoundError("torchvision"))
    library = ModuleType("fake_library")

    def fused_attention(q, k, v):
        return q
    fused_attention.__module__ = "fake_library"
    library.image_processing_fast, library.fused_attention = lazy, fused_attention
    assert poison.poison_module(library, "attention") == ["fake_library.fused_attention"] and asked == []
    with pytest.raises(RuntimeError, match="the grader refused fake_library.fused_attention"):
        fused_attention(1, 2, 3)


def imports(path: Path, modules: dict) -> set[str]:
    """The modules `path` imports (`from package import module` imports the module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            inner = {f"{node.module}.{a.name}" for a in node.names} & set(modules)
            found |= inner or {node.module}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def test_the_grading_code_imports_form_no_cycle_and_its_modules_stay_small():
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
               for folder in ("anatomy/homework", "anatomy_grading") for p in (ROOT / folder).rglob("*.py")}
    graph = {name: {m for m in imports(path, modules) if m in modules and m != name} for name, path in modules.items()}

    def visit(name, trail):
        assert name not in trail, f"import cycle: {' -> '.join(trail + [name])}"
        for other in graph[name]:
            visit(other, trail + [name])
    for name in graph:
        visit(name, [])
    assert "anatomy_grading" not in str({m for name in graph if name.startswith("anatomy.homework") for m in graph[name]})
    assert {p.name: len(p.read_text().splitlines()) for p in modules.values() if len(p.read_text().splitlines()) > 160} == {}


REACH_PREAMBLE = "import math, torch, anatomy\nimport torch.nn.functional as F\nfrom torch import nn\n"
HONEST_ATTENTION = """def attend(x, memory, key_mask):
    layer, drop = nn.Linear(x.size(-1), x.size(-1)), nn.Dropout(0.1).eval()
    scores = layer(x) @ memory.transpose(-2, -1) / math.sqrt(x.size(-1))
    scores = scores.masked_fill(~key_mask[:, None, :], float("-inf"))
    weights = drop(F.softmax(scores, dim=-1))
    print(weights[0, 0])
    return torch.einsum("bqs,bsd->bqd", weights, memory), torch.softmax(scores, -1)
"""
REACHED = [  # (what the record names, a route to library attention that no list of forbidden names held)
    ("torch.ao.nn.quantizable.modules.activation.MultiheadAttention.__init__", "def attend(x, memory, key_mask):\n"
     "    import torch.ao.nn.quantizable as q\n    return q.MultiheadAttention(x.size(-1), 2, batch_first=True)(x, memory, memory)\n"),
    ("nn.MultiheadAttention.forward", "layer = nn.MultiheadAttention(8, 2, batch_first=True)\n"
     "def attend(x, memory, key_mask):\n    return layer(x, memory, memory)\n"),
    ("F.scaled_dot_product_attention", "def attend(x, memory, key_mask):\n"
     "    return F.scaled_dot_product_attention(x, memory, memory), None\n"),
    ("scaled_dot_product_attention (code compiled at run time from 'copy.py')", "source = open(anatomy.__file__.replace("
     "'__init__.py', '../anatomy/layers/attention.py')).read()\ncopy = {}\nexec(compile(source, 'copy.py', 'exec'), copy)\n"
     "def attend(x, memory, key_mask):\n    return copy['scaled_dot_product_attention'](x, memory, memory)\n"),
    ("torch.ops.aten._scaled_dot_product_attention_math", "def attend(x, memory, key_mask):\n"
     "    return torch.ops.aten._scaled_dot_product_attention_math(x, memory, memory)\n"),
]


def refused_for(route: str, policy: str = "attention") -> tuple[list, list]:
    """(what anatomy_grading.reach records, what it reports as refused) while `route`'s attend runs, in
    this process, as the child runs it around each graded call."""
    import sys

    from anatomy_grading import blocks, reach
    scope, refused = {}, []
    for source in (REACH_PREAMBLE, route):
        code = compile(source, "<cell 1>", "exec")
        blocks.Student.register(code)
        exec(code, scope)
    x, memory = torch.randn(2, 3, 8), torch.randn(2, 5, 8)
    sys.addaudithook(lambda event, args: refused.append(args[0]) if event == "grading.refused" else None)
    with reach.recording(policy) as reached, torch.no_grad():
        scope["attend"](x, memory, torch.ones(2, 5, dtype=torch.bool))
    return reached, refused


@pytest.mark.parametrize("label, route", [(None, HONEST_ATTENTION)] + REACHED, ids=["honest"] + [r[0][:40] for r in REACHED])
def test_the_record_names_what_the_students_code_reaches_beyond_the_building_blocks(label, route):
    """Issue #34: the honest attention (Linear, Dropout, softmax, einsum, masking, printing) reaches
    nothing to record; each route to library attention is named."""
    reached, refused = refused_for(route)
    assert (label in refused) if label else (reached == [] and refused == []), (reached, refused)


def test_what_a_building_block_runs_inside_is_not_the_students_call():
    """For the layer questions anatomy's MultiHeadAttention is a building block (the template uses it);
    with need_weights=False it runs F.scaled_dot_product_attention itself, which costs the student nothing."""
    route = ("layer = anatomy.MultiHeadAttention(types.SimpleNamespace(hidden_size=8, num_attention_heads=2))\n"
             "def attend(x, memory, key_mask):\n    return layer(x, memory, need_weights=False)\n")
    assert refused_for("import types\n" + route, "layers") == ([], [])
    assert "F.scaled_dot_product_attention" in refused_for("import types\n" + route.replace(
        "return layer(", "F.scaled_dot_product_attention(x, x, x)\n    return layer("), "layers")[1]
