"""A record of what the student's code reaches during each graded call: allow building blocks, record the rest.

Sent to the child as source (connection.SHIPPED). For the questions that ask the student to write
attention ("attention") or a decoder layer ("layers"), while the child answers a call, `recording`
watches the calling thread and the threads it starts (sys.setprofile, threading.setprofile):
- every Python function called from the student's own code (the code objects its cells compiled
  to), or run as a module's forward by torch's module machinery: building blocks (blocks.py), the
  standard library and the grader's own code are allowed; anything else is recorded: torch.ao's
  quantizable attention, a transformer block of torch or transformers, anatomy's attention or
  decoder layer, code compiled at run time that the notebook's cells did not define (a copy of a library);
- every torch function the student's code calls, and every one that reaches torch's function
  dispatch on the calling thread while the student's code is on the stack (TorchFunctionMode: through
  functools.partial, map, a library's Python code), looked up as an ATen operator: recorded unless a
  building block (the fused attention kernels, a transformer layer's are none).
What is recorded is reported through the refusal channel (sys.audit("grading.refused", label)): the
question scores 0 and the feedback names it. What the record cannot see (another interpreter, native
code) the tripwires refuse; the poisoning (poison.py) stays as a second line.
"""
from __future__ import annotations

import os
import sys
import threading
import types
from contextlib import contextmanager
from typing import Iterator

from torch.overrides import TorchFunctionMode

from anatomy_grading.blocks import (ANATOMY_BLOCKS, MACHINERY, SITE, STDLIB, TORCH, WATCHED, Student, Trusted,
                                     building_block, torch_file, torch_label)
from anatomy_grading.poison import short
from anatomy_grading.qualname import qualname

GRADER = os.path.dirname(os.path.abspath(__file__)) + os.sep if "__file__" in globals() else "<grading "  # run in place


class Classifier:
    def __init__(self, policy: str) -> None:
        self.anatomy = os.path.dirname(sys.modules["anatomy"].__file__) + os.sep
        self.allowed_anatomy = ANATOMY_BLOCKS[policy]
        self.kinds: dict[int, tuple[str, str | None]] = {}  # id(code) -> (kind, label)
        self.seen: list[types.CodeType] = []  # keeps each classified code alive, so its id stays its own

    def kind(self, code: types.CodeType, namespace: dict | None = None) -> tuple[str, str | None]:
        """("watch" (the student's: callees are looked at) | "machinery" (torch's Module.__call__ and
        containers: the forward they run is looked at) | "allow" | "record", label)."""
        found = self.kinds.get(id(code))
        if found is None:
            found = self.kinds[id(code)] = self._kind(code, namespace)
            self.seen.append(code)
        return found

    def _kind(self, code: types.CodeType, namespace: dict | None) -> tuple[str, str | None]:
        if id(code) in Student.codes:
            return "watch", None
        path = code.co_filename
        if (id(code) in Trusted.codes or path.startswith(("<frozen ", GRADER)) or code.co_name == "<module>" or
                (path == "<grader refusal>" and "grading.refused" in code.co_consts)):
            return "allow", None
        if path.startswith(TORCH):
            rel = path[len(TORCH):].replace(os.sep, "/")
            if rel in MACHINERY:
                return "machinery", None
            label = torch_file(rel, code)
            return ("allow", None) if label is None else ("record", label)
        if path.startswith(self.anatomy):
            rel = path[len(self.anatomy):]
            if rel in self.allowed_anatomy:
                return "allow", None
            return "record", f"anatomy.{rel.removesuffix('.py').replace(os.sep, '.')}.{qualname(code)}"
        if any(path.startswith(site) for site in SITE):
            rel = path[len(next(s for s in SITE if path.startswith(s))):]
            return "record", f"{rel.removesuffix('.py').replace(os.sep, '.')}.{qualname(code)}"
        if path.startswith(STDLIB) and os.path.exists(path):
            return "allow", None
        if code.co_name == "<lambda>":
            return "watch", None
        return "record", f"{qualname(code, namespace)} (code compiled at run time from {os.path.basename(path)[:60]!r})"


class TorchRecord(TorchFunctionMode):
    """Every torch function that runs on this thread for the student's code, even one called from C
    (functools.partial, map) or from a library's Python code the record names; not what a building
    block runs inside (anatomy's MultiHeadAttention may use F.scaled_dot_product_attention)."""

    def __init__(self, reached: list[str], classify: Classifier) -> None:
        super().__init__()
        self.reached, self.classify = reached, classify

    def __torch_function__(self, func, types, args=(), kwargs=None):
        label = torch_label(func)
        if label and self.for_student():
            self.reached.append(label)
        return func(*args, **(kwargs or {}))

    def for_student(self) -> bool:
        """Whether the nearest caller that is not plumbing (the grader's, torch's machinery, what the
        record names) is the student's code, rather than a building block or the grader's request."""
        frame = sys._getframe(2)
        while frame is not None:
            kind = self.classify.kind(frame.f_code, frame.f_globals)[0]
            if kind == "watch":
                return True
            if kind == "allow" and id(frame.f_code) not in Trusted.codes and not frame.f_code.co_filename.startswith(GRADER):
                return False
            frame = frame.f_back
        return False


@contextmanager
def recording(policy: str) -> Iterator[list[str]]:
    """Record, while the block runs, what the student's code reaches outside the building blocks;
    each label is also reported as refused (tripwires.py passes it on to the grader)."""
    classify, reached = Classifier(policy), []

    def hook(frame, event, arg):
        if event == "call":
            caller = frame.f_back
            watcher = "" if caller is None else classify.kind(caller.f_code, caller.f_globals)[0]
            if watcher not in ("watch", "machinery"):
                return
            kind, label = classify.kind(frame.f_code, frame.f_globals)  # torch's machinery is followed into forward only
            if kind == "record" and label == "torch.ops":
                operator = str(frame.f_locals.get("self", ""))
                label = None if building_block(operator.replace(".", "::", 1)) else f"torch.ops.{operator}"
            if label and kind == "record" and (watcher == "watch" or frame.f_code.co_name == "forward"):
                reached.append(label)
        elif event == "c_call":
            label = torch_label(arg) if id(frame.f_code) in Student.codes else None
            if label:
                reached.append(label)

    previous, previous_threads = sys.getprofile(), threading.getprofile()
    sys.setprofile(hook)
    threading.setprofile(hook)
    try:
        with TorchRecord(reached, classify):
            yield reached
        if sys.getprofile() is not hook or threading.getprofile() is not hook:
            reached.append("sys.setprofile (it switched off the grader's record)")
    finally:
        sys.setprofile(previous)
        threading.setprofile(previous_threads)
        for label in dict.fromkeys(reached):
            sys.audit("grading.refused", short(label))
