"""Write anatomy/homework/attention_tests/template.py: the SHA-256 of each code cell of homework 3's student
notebook, as the grader reads it (anatomy_grading.static.code_cells, normalized), so the check cell can skip the
template's cells as the grader does. Run by `make homework`; tests/test_attention_tests_allowlist.py checks it.

    python -m tools.template_cells notebooks/19_homework_attention_tests.ipynb
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from anatomy_grading.static import code_cells, normalized

TARGET = Path(__file__).resolve().parent.parent / "anatomy" / "homework" / "attention_tests" / "template.py"
HEAD = '''"""The code cells of homework 3's template (notebook 19_homework_attention_tests, the student version), each as the
SHA-256 of its normalized text (anatomy_grading.static.normalized): the check cell skips a cell of the kernel's
history that is one of them, as the grader skips a template cell the student left unchanged. Written by
`python -m tools.template_cells notebooks/19_homework_attention_tests.ipynb` (make homework); a test checks it.
"""
'''


def digests(notebook: Path) -> list[str]:
    return sorted({hashlib.sha256(normalized(cell).encode()).hexdigest() for cell in code_cells(notebook)})


def main(notebook: str) -> None:
    lines = "".join(f'    "{digest}",\n' for digest in digests(Path(notebook)))
    TARGET.write_text(f"{HEAD}\nCELLS = frozenset({{\n{lines}}})\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
