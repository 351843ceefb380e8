"""Homework checks for Transformer Anatomy: a shared framework, and one subpackage per homework.

`import anatomy` never loads this package; a homework notebook imports it explicitly. The same
checks serve twice: in the student's notebook, `grader.check("q1")` runs them as formative
feedback (student code can fool those, and only fools itself); the trusted grader
(anatomy_grading) runs them in its own process against the answers of an untrusted child process,
which is where grades come from.

The framework (for a homework's author):
- `graded`: decorate each public check `check_x(answer, seed=0, **shape)`; it prints the feedback
  (nothing when right), so otter shows plain words, never a traceback through the checker.
  `check_x.feedback(...)` returns the text instead, `check_x.verdict(...)` the Feedback itself.
- `Feedback`, `call`, `compare`, `Mistake`: a check raises Feedback; `call(answer, *args)` runs the
  student's code (stubs -> "not yet implemented"); `compare(got, expected, what, [(Mistake, tensor)])`
  names the classic mistake whose tensor the student's equals, with the value that gave it away.
  `type_of(x)` is type(x), or the class a grader's proxy reports. `load_check_weights(module, state)`
  loads the check's own weights into the student's module (by name, in its dtype), so that a check
  compares computations, not weights the student chose.
- `forbid(functions, aten)` + `methods(*classes)`: record library calls made while the student's code
  runs (formative feedback for write-it-yourself questions; the grader's child refuses them outright).
- `hidden_seed(secret, label)`: hidden tests' seeds from the instructor's secret (see secrets.py).
- `processes.end_process_group(process, streams)`: end a helper process's whole group and close its pipes
  (homework 3's implementation servers, the trusted grader's children).
- Messages: every text a check shows is a key of the catalogue (anatomy.homework.messages, English and
  Korean): raise Feedback("key", **fields); `speak("ko")` words the feedback in Korean (a notebook of
  notebooks/ko/ does that itself); the grader words it in the submission's language.

Homeworks: `anatomy.homework.cross_attention` (notebook 08), `anatomy.homework.sentiment` (notebook 10),
`anatomy.homework.attention_tests` (notebook 19).
Every homework's import cell builds otter's `grader` with `anatomy.homework.otter_grader.notebook_grader`.
Add yours as a sibling subpackage and follow their shape: checks (and mistakes.py, wrong-on-purpose
implementations, where a mistake is easier written than detected), substitutes.py (known-good parts a
check may put in place of a wrong earlier answer; the grader sends it to its child), an __init__
that exports the graded checks. The checks must only call, read and compare the answers (no `type()`,
`isinstance` against a student's class), so that they work on the grader's proxies too.
"""
from anatomy.homework.feedback import (Feedback, Mistake, call, compare, feedback_of, first_difference, graded,
                                       load_check_weights, same, type_of, verdict_of)
from anatomy.homework.messages import speak
from anatomy.homework.secrets import hidden_seed
from anatomy.homework.tracing import forbid, methods

__all__ = ["Feedback", "Mistake", "call", "compare", "feedback_of", "first_difference", "graded", "load_check_weights",
           "same", "type_of", "verdict_of", "forbid", "methods", "hidden_seed", "speak"]
