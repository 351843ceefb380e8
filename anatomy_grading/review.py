"""The static review (static.py) of one notebook, in a process of its own: whatever the notebook is
(thousands of chained lines, nesting too deep, a file that is not JSON), the grading process waits
at most REVIEW_SECONDS for it and reads a bounded answer; the review's process may use
REVIEW_MEMORY of address space and REVIEW_SECONDS of CPU.
"""
from __future__ import annotations

import json
from pathlib import Path

from anatomy_grading.static import NotebookError, code_cells, review

REVIEW_SECONDS, REVIEW_MEMORY = 60, 2 << 30
REASONS = {"notebook_too_big", "not_a_notebook", "too_much_code", "review_failed"}  # the keys its process may answer


def reviewed(path: Path, template: list[str], questions: dict[str, dict]) -> tuple[list[str], dict[str, str], list[str]]:
    """(code cells, zero, flags) of the notebook at `path`, worked out in a process of its own under
    REVIEW_SECONDS and REVIEW_MEMORY: whatever the notebook is, the grading process only waits that
    long and reads a bounded answer. Raises NotebookError when the review fails or runs out of time."""
    import os
    import resource
    import subprocess
    import sys

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (REVIEW_MEMORY, REVIEW_MEMORY))
        resource.setrlimit(resource.RLIMIT_CPU, (REVIEW_SECONDS, REVIEW_SECONDS))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    here = str(Path(__file__).resolve().parent.parent)
    boot = f"import sys; sys.path.insert(0, {here!r}); from anatomy_grading.review import main; main()"
    request = json.dumps({"path": str(Path(path).resolve()), "template": template, "questions": questions})
    try:
        done = subprocess.run([sys.executable, "-I", "-c", boot], input=request.encode(), capture_output=True,
                              timeout=REVIEW_SECONDS, preexec_fn=limited, env={"PATH": os.environ.get("PATH", "")})
    except subprocess.TimeoutExpired:
        raise NotebookError("review_timeout", seconds=REVIEW_SECONDS) from None
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        answer = {}
    if done.returncode != 0 or "error" in answer:
        error = answer.get("error")
        if isinstance(error, dict) and error.get("key") in REASONS and isinstance(error.get("fields"), dict):
            raise NotebookError(error["key"], **error["fields"])
        raise NotebookError("review_stopped", code=done.returncode)
    return answer["cells"], answer["zero"], answer["flags"]


def main() -> None:
    """The review's own process (see reviewed): a request as JSON on stdin, the answer on stdout."""
    import sys

    request = json.loads(sys.stdin.buffer.read())
    try:
        cells = code_cells(Path(request["path"]))
        zero, flags = review(cells, request["template"], request["questions"])
        answer: dict = {"cells": cells, "zero": zero, "flags": flags}
    except NotebookError as error:
        answer = {"error": {"key": error.key, "fields": error.fields}}
    except (RecursionError, MemoryError) as error:
        answer = {"error": {"key": "review_failed", "fields": {"error": type(error).__name__}}}
    sys.stdout.write(json.dumps(answer))
