"""The building blocks a student may reach while writing attention or a decoder layer (reach.py records
the rest). Sent to the child as source (connection.SHIPPED).

Python: files of torch that hold building blocks (tensor operators and printing, Linear, LayerNorm,
Dropout, Embedding, init, no_grad...), the activations of torch.nn and F.softmax and its kin by name,
anatomy's masks (and, for the questions that write a layer, anatomy's MultiHeadAttention and
FeedForward, which the template uses). ATen: an operator is a building block when it is pointwise, a
reduction, a view, computes no tensor (a query), or is one of BLOCKS (matmuls, softmax, layer norm,
dropout, masking, creation); fused attention kernels and transformer layers are none of these.
Whose code is whose: the student's (the code objects the notebook's cells compiled to) and the
grader's own (its shipped modules and substitutes), registered by identity.
"""
from __future__ import annotations

import os
import sysconfig
import types

import torch

from anatomy_grading.qualname import qualname

TORCH = os.path.dirname(torch.__file__) + os.sep
STDLIB = sysconfig.get_paths()["stdlib"] + os.sep
SITE = {sysconfig.get_paths()["purelib"] + os.sep, sysconfig.get_paths()["platlib"] + os.sep}
MACHINERY = {"nn/modules/module.py", "nn/modules/container.py"}  # their callees are watched too
TORCH_BLOCKS = {"_tensor.py", "_tensor_str.py", "functional.py", "nn/init.py", "nn/parameter.py", "random.py",
                "autograd/grad_mode.py", "utils/_contextlib.py", "utils/_python_dispatch.py", "utils/hooks.py",
                "_utils.py", "storage.py", "overrides.py", "_jit_internal.py", "nn/modules/linear.py",
                "nn/modules/normalization.py", "nn/modules/dropout.py", "nn/modules/sparse.py", "nn/modules/flatten.py",
                "_VF.py", "serialization.py"}
ACTIVATIONS = {"ReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "LeakyReLU", "ELU", "Mish"}
F_BLOCKS = {"softmax", "log_softmax", "dropout", "layer_norm", "relu", "gelu", "silu", "tanh", "sigmoid", "pad",
            "embedding", "normalize", "leaky_relu", "elu", "mish", "linear", "one_hot"}
WATCHED = ("attention", "layers")  # the policies whose questions ask the student to write attention or a layer
ANATOMY_BLOCKS = {"attention": {"layers/masks.py", "checks.py"},
                  "layers": {"layers/masks.py", "layers/multihead.py", "layers/feedforward.py", "layers/config.py",
                             "layers/kv_cache.py", "layers/attention.py", "checks.py",
                             "tasks/dates.py"}}  # q5's swap may use the translator's data helpers
BLOCKS = {"mm", "bmm", "addmm", "baddbmm", "matmul", "dot", "mv", "linear", "softmax", "_softmax", "log_softmax",
          "_log_softmax", "_safe_softmax", "native_layer_norm", "layer_norm", "native_dropout", "dropout", "bernoulli",
          "uniform", "normal", "fill", "zero", "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones",
          "ones_like", "full", "full_like", "arange", "scalar_tensor", "eye", "tril", "triu", "cat", "stack", "clone",
          "_to_copy", "copy", "lift_fresh", "lift_fresh_copy", "_local_scalar_dense", "_unsafe_view", "index",
          "index_select", "gather", "masked_fill", "cumsum", "logsumexp", "topk", "sort", "argmax", "argmin", "max",
          "min", "amax", "amin", "repeat", "embedding", "flip", "roll", "new_empty", "new_empty_strided", "new_zeros",
          "new_ones", "new_full", "contiguous", "reshape", "tensor", "split", "split_with_sizes", "unbind", "chunk",
          "rand", "randn", "randint", "randperm", "var", "std", "var_mean", "std_mean", "mean", "sum", "any", "all",
          "diag", "diag_embed", "equal", "allclose", "isclose", "is_nonzero", "repeat_interleave", "_unsafe_index",
          "nonzero", "masked_select", "_softmax_backward_data", "_log_softmax_backward_data", "native_layer_norm_backward",
          "native_dropout_backward", "embedding_dense_backward", "count_nonzero", "set_", "_reshape_copy", "resize_",
          "as_strided", "select_backward", "slice_backward", "expand_backward", "sum_to_size", "addmv", "addbmm",
          "einsum", "tensordot", "outer", "broadcast_to", "multinomial", "_assert_async", "item", "result_type", "pad",
          "constant_pad_nd", "conj", "_conj", "resolve_conj", "resolve_neg", "_neg_view", "masked_scatter", "index_put",
          "scatter", "scatter_add", "cumprod", "prod", "norm", "linalg_vector_norm", "frobenius_norm", "renorm"}
_ops: dict[str, bool] = {}
_bases: set[str] = set()


def building_block(name: str) -> bool:
    """Whether the ATen operator `name` (aten::x.overload, or a torch function's name) is of the
    building-block kind; a name that is no operator computes nothing of its own and passes."""
    if not _bases:
        _bases.update(n.split("::")[-1].split(".")[0] for n in torch._C._dispatch_get_all_op_names() if n.startswith("aten::"))
    base = name.split("::")[-1].split(".")[0]
    if base not in _ops:
        names = [n for n in dict.fromkeys((base, base.rstrip("_"))) if n in _bases]
        _ops[base] = not names or any(n in BLOCKS or n.rstrip("_") in BLOCKS or any(
            torch.Tag.pointwise in o.tags or torch.Tag.reduction in o.tags or  # a view, or no tensor computed:
            any(r.alias_info is not None for r in o._schema.returns) or not any("Tensor" in str(r.type) for r in o._schema.returns)
            for o in (getattr(getattr(torch.ops.aten, n), overload) for overload in getattr(torch.ops.aten, n).overloads()))
            for n in names)
    return _ops[base]


def torch_file(rel: str, code: types.CodeType) -> str | None:
    """None (allowed) or the label of a function in torch's own files."""
    if rel in TORCH_BLOCKS or rel.startswith(("utils/_", "_dynamo/", "_logging/", "fx/", "_subclasses/", "_library/",
                                               "_compile.py")):
        return None
    if rel == "nn/modules/activation.py" and qualname(code).split(".")[0] in ACTIVATIONS:
        return None
    if rel == "nn/functional.py" and (code.co_name in F_BLOCKS or code.co_name.startswith("_")):
        return None
    if rel == "_ops.py":
        return "torch.ops"  # torch.ops.aten.x(...): the hook names the operator
    module = "torch." + rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    return f"{module}.{qualname(code)}"


def torch_label(function) -> str | None:
    """None (allowed) or the label of a torch function (one the student's code called, or that reached
    torch's function dispatch with the student's code on the stack)."""
    name, owner = getattr(function, "__name__", ""), getattr(function, "__self__", None)
    module = str(getattr(function, "__module__", None) or getattr(owner, "__name__", "") or "")
    if isinstance(owner, torch.Tensor) or hasattr(function, "__objclass__"):
        module = "torch.Tensor"
    if not module.startswith("torch") or building_block(name):
        return None
    return f"torch.ops.{module[11:]}.{name}" if module.startswith("torch._ops.") else f"{'F' if module.endswith('_nn') else 'torch'}.{name}"


class Student:
    """The code objects the notebook's cells compiled to (registered when each cell runs)."""
    codes: dict[int, types.CodeType] = {}

    @classmethod
    def register(cls, code: types.CodeType, into: dict | None = None) -> None:
        into = cls.codes if into is None else into
        into[id(code)] = code
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                cls.register(const, into)


def trust(*modules: types.ModuleType) -> None:
    """Register the code of the grader's own modules (shipped as source, or the substitutes): code with
    their file names is allowed only when it is theirs, not a copy compiled under a borrowed name."""
    def walk(value, depth=0):
        code = getattr(value, "__code__", None)
        if isinstance(code, types.CodeType):
            Student.register(code, Trusted.codes)
        elif isinstance(value, type) and depth < 2:
            for inner in vars(value).values():
                walk(getattr(inner, "__func__", inner), depth + 1)
    for module in modules:
        for value in vars(module).values():
            walk(value)


class Trusted:
    codes: dict[int, types.CodeType] = {}
