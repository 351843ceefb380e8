"""Claims that cannot drift: each figure a notebook's prose quotes (English and Korean) is one of its own
outputs, an input in its code, or listed with a reason in notebooks/external_figures.toml (tools/claims.py)."""
import json

import pytest

from tools import claims, korean

NOTEBOOKS = claims.notebooks()


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_prose_quotes_only_figures_its_outputs_print(path, language):
    if language == "ko" and not korean.translation_path(path).exists():
        pytest.skip("no Korean edition")
    found = claims.unsupported(path, language)
    assert not found, (f"{path.name} ({language}): the prose quotes {found}, which no output of this notebook prints "
                       f"(rounded as printed). Re-execute it and update the prose (both editions), or list a figure "
                       f"from a paper, a benchmark or a derivation in notebooks/external_figures.toml with its reason")


def notebook_with(tmp_path, prose: str, printed: str, korean_prose: str) -> "Path":  # noqa: F821
    cells = [{"cell_type": "markdown", "metadata": {}, "source": prose},
             {"cell_type": "code", "metadata": {}, "source": "print(accuracy)", "execution_count": 1,
              "outputs": [{"output_type": "stream", "name": "stdout", "text": printed}]}]
    path = tmp_path / "99_planted.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    hash_ = korean.english_hash(prose)
    korean.translation_path(path).write_text(f"<!-- en {hash_} -->\n{korean_prose}\n", encoding="utf-8")
    return path


def test_a_planted_drift_is_caught_in_both_editions(tmp_path):
    prose = "Pre-training costs 2.3 ± 2.1 points: 74.4 % against 76.7 %, a loss of 6.08 nats."
    ko = "사전 학습은 2.3 ± 2.1%p 손해다. 74.4 % 대 76.7 %, 손실 6.08나트."
    printed = "gain -0.023 ± 0.021\npre-trained 0.744, random 0.767\nloss 6.078\n"
    path = notebook_with(tmp_path, prose, printed, ko)
    assert claims.unsupported(path, "en") == [] and claims.unsupported(path, "ko") == []
    drifted = notebook_with(tmp_path, prose, printed.replace("0.744", "0.731").replace("6.078", "6.21"), ko)
    assert claims.unsupported(drifted, "en") == ["74.4%", "6.08"]
    assert claims.unsupported(drifted, "ko") == ["74.4%", "6.08"]


def test_what_is_not_a_figure():
    text = ("Version 4.3.0, `lr=5e-4` and `0.15` in code, [a link](https://x.org/v1.2), 30 points, "
            "see §3.4.\n## References\n- Paper (2019), 12.5 pages.\n## Exercises\n1. Costs −1.5 nats.")
    assert claims.prose_figures(text) == ["3.4", "-1.5"]
