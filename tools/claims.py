"""Claims that cannot drift: every figure a notebook's prose quotes must be one its own outputs print.

    python -m tools.claims [notebooks...]      (default: every notebook, English and Korean)

A *figure* is a number with a decimal point in a markdown cell (6.46, 74.4 %, −2.3): the kind of number
prose copies from an output. It is supported when
- some number the notebook's outputs print, rounded to the figure's decimals, gives it (as printed, or as a
  percentage of a printed share: 0.744 → 74.4; the sign may differ: "costs 2.3" quotes −2.3); or
- it is an input: it occurs in the notebook's code (`peak_lr=5e-4`, `0.15`); or
- notebooks/external_figures.toml lists it for that notebook, with the reason (a paper's figure, a number
  derived from printed ones, a constant of nature).
Not figures: text in `code spans`, link targets, version numbers (4.3.0), the References section.
The Korean edition is checked against the same outputs (tests/test_claims.py runs both).
"""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomllib is 3.11's; tomli is the same parser (requirements.txt installs it there)
    import tomli as tomllib

from tools import korean

ROOT = Path(__file__).resolve().parent.parent
EXTERNAL = ROOT / "notebooks" / "external_figures.toml"
FIGURE = re.compile(r"(?<![\w.])([-−]?\d+(?:,\d{3})*\.\d+)(?![\w.]*\d)(\s?%)?")
NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?")
SKIPPED_SECTIONS = re.compile(r"^#+ (References|참고 문헌)\b.*?(?=^#{1,2} |\Z)", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK_TARGET = re.compile(r"\]\([^)]*\)")


def prose_figures(markdown: str) -> list[str]:
    """The figures of a markdown text, as written (sign normalised to '-'), in order."""
    text = LINK_TARGET.sub("]", CODE_SPAN.sub(" ", SKIPPED_SECTIONS.sub("", markdown)))
    return [match.group(1).replace("−", "-") + ("%" if match.group(2) else "") for match in FIGURE.finditer(text)]


def output_text(cell: dict) -> str:
    parts = []
    for output in cell.get("outputs", []):
        text = output.get("text") or output.get("data", {}).get("text/plain", "")
        parts.append(text if isinstance(text, str) else "".join(text))
    return "\n".join(parts)


def printed_numbers(notebook: dict) -> list[float]:
    texts = [output_text(cell) for cell in notebook["cells"] if cell["cell_type"] == "code"]
    return [float(number.replace(",", "")) for text in texts for number in NUMBER.findall(text)]


def code_text(notebook: dict) -> str:
    return "\n".join(korean.cell_source(cell) for cell in notebook["cells"] if cell["cell_type"] == "code")


def external_figures(stem: str) -> dict[str, str]:
    table = tomllib.loads(EXTERNAL.read_text(encoding="utf-8")) if EXTERNAL.exists() else {}
    return {str(figure): reason for figure, reason in table.get(stem, {}).items()}


def supported(figure: str, numbers: list[float], code: str) -> bool:
    written = figure.rstrip("%")
    decimals = len(written.split(".")[1])
    value = abs(float(written.replace(",", "")))
    if written.lstrip("-") in code or written.replace(",", "").lstrip("-") in code:
        return True
    for number in numbers:
        for candidate in (abs(number), abs(number) * 100, abs(number) / 1e6):  # as printed, a percentage, millions
            if round(candidate, decimals) == round(value, decimals) or f"{candidate:.{decimals}f}" == f"{value:.{decimals}f}":
                return True
    return False


def unsupported(notebook_path: Path, language: str = "en") -> list[str]:
    """The figures of `notebook_path`'s prose (English, or its Korean entry file) that its outputs do not print."""
    notebook = json.loads(notebook_path.read_text(encoding="utf-8"))
    if language == "en":
        markdown = "\n\n".join(source for _, source in korean.markdown_cells(notebook))
    else:
        entries = korean.parse(korean.translation_path(notebook_path).read_text(encoding="utf-8"))
        markdown = "\n\n".join(entry.text for entry in entries)
    numbers, code = printed_numbers(notebook), code_text(notebook)
    allowed = external_figures(notebook_path.stem)
    found = []
    for figure in prose_figures(markdown):
        bare = figure.rstrip("%")
        if bare in allowed or bare.lstrip("-") in allowed or supported(figure, numbers, code):
            continue
        if figure not in found:
            found.append(figure)
    return found


def notebooks() -> list[Path]:
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    arguments = parser.parse_args()
    problems = 0
    for path in arguments.notebooks or notebooks():
        for language in ("en", "ko"):
            if language == "ko" and not korean.translation_path(path).exists():
                continue
            figures = unsupported(path, language)
            problems += len(figures)
            if figures:
                print(f"{path.name} ({language}): {', '.join(figures)}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
