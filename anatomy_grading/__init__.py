"""The trusted grader of the homework notebooks: grades nobody can forge from inside a notebook.

The student's notebook runs in an untrusted child process; this package, in the grading process,
never imports, unpickles or execs anything from the submission. It reads the notebook as JSON,
checks the answer cells statically, starts the child, sends it inputs and reads its answers (JSON
and safetensors only), and computes every score and feedback line itself with the homework's own
check functions (anatomy.homework), the same ones the notebook's formative grader.check uses.

Modules, from the wire up:
- wire.py: frames and values on the pipe (no pickle). shipping.py: modules sent by value.
- poison.py, child.py: what runs in the child (sent to it as source): poisoning, tripwires, the loop;
  blocks.py, reach.py, qualname.py: what a student's code reached, named by qualified name (also on 3.10).
- sandbox.py, connection.py: how the child is started and confined, and the pipe with its deadlines (and
  the child's questions mid-call, which `relay` answers: homework 3's tests reach their implementation so).
- proxies.py, remote_module.py: the child's objects as functions, classes and nn.Modules here.
- static.py: the notebook as JSON, and the AST rules for answer cells.
- plan.py: a homework's questions, cases and policies, read from its master's test cells.
- grader.py: one submission graded; report.py: results.json, gradebook, feedback, review report.
- __main__.py: `python -m anatomy_grading ...` (see the instructor README).
"""
