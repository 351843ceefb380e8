"""Homework grading for Transformer Anatomy: a shared framework, and one subpackage per homework.

`import anatomy` never loads this package; a homework notebook imports it explicitly, and importing
it takes the integrity snapshot (so import it before any student code runs, e.g. in the import cell).

The framework (for a homework's author):
- `graded`: decorate each public check `check_x(answer, seed=0, **shape)`; it prints the feedback
  (nothing when right), so otter shows plain words, never a traceback through the checker.
  `check_x.feedback(...)` returns the text instead (for tests).
- `Feedback`, `call`, `compare`, `Mistake`: a check raises Feedback; `call(answer, *args)` runs the
  student's code (stubs -> "not yet implemented"); `compare(got, expected, what, [(Mistake, tensor)])`
  names the classic mistake whose tensor the student's equals, with the value that gave it away.
- `forbid(functions, aten)` + `methods(*classes)`: record library calls made while the student's code
  runs (write-it-yourself questions); `require_intact()` (run by `graded`) fails a question when the
  notebook replaced a library or grading function; `freeze(__name__)` at the end of each grading
  module makes it read-only; `watch(label, namespace)` / `watch_package("anatomy")` snapshot more.
- `hidden_seed(secret, label)`: hidden tests' seeds from the instructor's secret (see secrets.py).

Homeworks: `anatomy.homework.cross_attention` (notebook 08), `anatomy.homework.sentiment` (notebook 10).
Add yours as a sibling subpackage and follow their shape: checks (and mistakes.py, wrong-on-purpose
implementations, where a mistake is easier written than detected), an __init__ that exports the
graded checks and calls freeze. Limits: grading runs in the student's interpreter (otter's
model); code that rewrites sys.modules, module dictionaries or otter itself is out of reach of
in-process checks (the instructor README's integrity note says what to do about that).
"""
from anatomy.homework.feedback import Feedback, Mistake, call, compare, feedback_of, first_difference, graded, same
from anatomy.homework.integrity import freeze, replaced, require_intact, watch, watch_package
from anatomy.homework.tracing import forbid, methods
from anatomy.homework.secrets import hidden_seed

__all__ = ["Feedback", "Mistake", "call", "compare", "feedback_of", "first_difference", "graded", "same",
           "forbid", "freeze", "methods", "replaced", "require_intact", "watch", "watch_package", "hidden_seed"]

watch_package("anatomy")
