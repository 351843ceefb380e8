"""anatomy_grading.qualname: the grader names reached code by its qualified name on Python 3.10 too,
where code objects have no co_qualname (3.11 added it). The 3.10 route is checked here on any Python,
against co_qualname where this Python has it, else against the functions' own __qualname__."""
import types

import pytest
import torch

from anatomy_grading import qualname as q
from anatomy_grading.blocks import torch_file


def lookup(code: types.CodeType) -> str:
    """The 3.10 route: the name found in the code's file."""
    return q.names_in_file(code.co_filename).get(code, code.co_name)


FUNCTIONS = [torch.nn.MultiheadAttention.forward, torch.nn.MultiheadAttention.__init__, torch.nn.GELU.forward,
             torch.nn.functional.scaled_dot_product_attention, torch.nn.Module.__call__, torch.nn.Linear.forward]


@pytest.mark.parametrize("function", [f for f in FUNCTIONS if hasattr(f, "__code__")], ids=lambda f: f.__qualname__)
def test_the_310_route_finds_the_same_name_as_co_qualname(function):
    code = function.__code__
    assert lookup(code) == getattr(code, "co_qualname", function.__qualname__) == function.__qualname__
    assert q.qualname(code) == function.__qualname__


def test_a_method_is_named_with_its_class_where_the_grader_needs_it(monkeypatch):
    """blocks.torch_file lets an activation module's code through by its class's name."""
    monkeypatch.setattr(q, "qualname", lookup)
    monkeypatch.setattr("anatomy_grading.blocks.qualname", lookup)
    assert torch_file("nn/modules/activation.py", torch.nn.GELU.forward.__code__) is None
    assert torch_file("nn/modules/activation.py", torch.nn.MultiheadAttention.forward.__code__) is not None
    layer = torch.nn.TransformerEncoderLayer.forward.__code__
    assert torch_file("nn/modules/transformer.py", layer) == "torch.nn.modules.transformer.TransformerEncoderLayer.forward"


def test_code_compiled_at_run_time_keeps_its_name():
    code = compile("def made_here():\n    pass\n", "<cell>", "exec").co_consts[0]
    assert lookup(code) == "made_here"


def test_code_compiled_at_run_time_is_named_from_the_globals_it_runs_with():
    """A student's copy of a library layer, exec'd from its source into a dict: the grader's words say
    which class's forward it reached (`TransformerDecoderLayer.forward`), on 3.10 as on 3.11."""
    copy: dict = {}
    exec(compile("class Outer:\n    class Layer:\n        def forward(self):\n            pass\n\n"
                 "def helper():\n    pass\n", "decoder_copy.py", "exec"), copy)
    forward, helper = copy["Outer"].Layer.forward.__code__, copy["helper"].__code__
    names = q.names_in_namespace(copy, "decoder_copy.py")
    assert names == {forward: "Outer.Layer.forward", helper: "helper"}
    assert names[forward] == getattr(forward, "co_qualname", "Outer.Layer.forward")
    assert q.qualname(forward, copy) == "Outer.Layer.forward" and q.names_in_namespace(copy, "other.py") == {}
    import anatomy  # noqa: F401  (the classifier finds anatomy's folder)
    from anatomy_grading.reach import Classifier
    assert Classifier("attention").kind(forward, copy) == (
        "record", "Outer.Layer.forward (code compiled at run time from 'decoder_copy.py')")


def test_qualname_refuses_what_is_not_code():
    with pytest.raises(TypeError, match="qualname: code must be a code object, got function"):
        q.qualname(test_code_compiled_at_run_time_keeps_its_name)


def test_a_property_made_of_builtins_is_skipped(tmp_path, monkeypatch):
    """A class may hold property(fget=<a C function>): it has no code of its own to name (3.10 crashed on it)."""
    import sys
    module = tmp_path / "with_builtin_property.py"
    module.write_text("class Holder:\n    size = property(len)\n\n    def method(self):\n        return 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import with_builtin_property
    names = q.names_in_file(str(module))
    assert names[with_builtin_property.Holder.method.__code__] == "Holder.method"
    sys.modules.pop("with_builtin_property")
