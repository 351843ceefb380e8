"""Homework 3, attention tests (notebook 19_homework_attention_tests): students write the tests,
graded by the planted bugs (mutants) they catch.

    def test_rows_sum_to_one(impl):          # every test takes the implementation under test
        out, weights = impl.attention(q, k, v)
        assert torch.allclose(weights.sum(-1), torch.ones(...))

`impl` offers attention(query, key, value, mask=None) -> (output, weights), causal_mask(Tq, Tk=None),
MultiHeadAttention(d_model, num_heads) (q_proj, k_proj, v_proj, out_proj; forward(query, key, value,
mask, cache)), DecoderLayer(d_model, num_heads, d_ff)(x, memory, memory_mask) and KVCache()
(subject.py; `build(None)` is the correct one, `build("no_scale")` a mutant). A test never holds one:
each is built in a process apart from the tests, rebuilt for every run (server.py, started by server_link.py) and the test's `impl` is a
stand_in.Implementation proxy, the same for every implementation; each run starts from the same globals,
in a secret order in which every mutant runs twice (mutation.py).
`practice(bug)` (practice.py) hands the notebook one such proxy to try tests on; it answers nothing while a check runs.
mutants.py lists the mutants by question and category (public: students may practise on them; a test
is not told which one runs), variants.py holds their code; checks.py holds the graded check `check_tests(tests, question=...)`;
mutation.py grades a question's tests against them; review.py refuses tests that pry at which
implementation runs or reach outside the test; anatomy.homework.messages holds its messages in English
and Korean.
"""
from anatomy.homework import graded
from anatomy.homework.attention_tests import checks, review, suite_source
from anatomy.homework.attention_tests.checks import PartialCredit
from anatomy.homework.messages import language_of, say, speak
from anatomy.homework.attention_tests.mutants import MUTANTS, QUESTIONS
from anatomy.homework.attention_tests.mutation import Graded, grade_question, in_process
from anatomy.homework.attention_tests.practice import practice
from anatomy.homework.attention_tests.subject import build

check_tests = graded(suite_source.knowing_modules(checks.check_tests))  # its review knows the tests' modules

__all__ = ["MUTANTS", "QUESTIONS", "Graded", "PartialCredit", "check_tests", "build", "grade_question", "in_process", "language_of",
           "practice", "say", "speak"]
