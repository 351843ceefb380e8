"""tools/outputs.py: notebook outputs compared for what they teach, not float noise (nbval and `make notebooks`)."""
from __future__ import annotations

import configparser
import re
from pathlib import Path

import pytest

from tools.outputs import NumericText, last_place, same_cell_outputs, same_output, same_text

SANITIZE = Path(__file__).parent / "nbval_sanitize.cfg"


@pytest.mark.parametrize("expected, got", [
    ("max |Δ| 0.686", "max |Δ| 0.687"),                          # a rounding boundary flips the last digit
    ("loss 1.950 after 600 steps.", "loss 1.949 after 600 steps."),  # a full stop after the number
    ("weight 2.0145e-06 on [SEP]", "weight 2.0151e-06 on [SEP]"),  # tiny values: relative tolerance
    ("[[0.1491, 0.0188], [0.1576, 0.0407]]", "[[0.1492, 0.0188], [0.1576, 0.0406]]"),
    ("cosine -0.002", "cosine -0.003"),
    ("85.5 %", "85.4 %"),
    ("0.3333333", "0.3333336"),                                  # many digits: REL_TOL
])
def test_float_noise_is_the_same_text(expected, got):
    assert same_text(expected, got)
    assert NumericText(expected) == NumericText(got) and not NumericText(expected) != NumericText(got)


@pytest.mark.parametrize("expected, got", [
    ("4 of 5 answers", "3 of 5 answers"),            # integers are counts: equal or different
    ("shape (2, 12, 7, 7)", "shape (2, 12, 7, 8)"),
    ("loss 1.950", "loss 1.947"),                    # three units of the last digit: a real change
    ("loss 1.950", "loss 1.9"),                      # ... and 0.05 is not noise of '1.9' either
    ("weight 2.0145e-06", "weight 2.0145e-05"),      # another exponent
    ("accuracy 85.5 %", "accuracy 95.5 %"),
    ("layer5 head 11", "layer6 head 11"),            # digits inside a name are text
    ("transformers 5.23.0", "transformers 5.24.0"),  # versions are text
    ("nan", "0.5"), ("0.5", "nan"), ("inf", "1e308"),
    ("the model", "the mode1"),
    ("0.5 0.5", "0.5"),                              # a missing number
])
def test_real_changes_are_not(expected, got):
    assert not same_text(expected, got)
    assert NumericText(expected) != NumericText(got)


def test_last_place_reads_the_printed_precision():
    assert last_place("0.686") == pytest.approx(1e-3)
    assert last_place("2.0145e-06") == pytest.approx(1e-10)
    assert last_place("12") == 1
    assert last_place("3.5E+02") == pytest.approx(10)


def test_nested_outputs_compare_their_texts_and_keep_other_values_exact():
    committed = {"output_type": "stream", "name": "stdout", "text": ["loss 0.686\n", "done\n"]}
    assert same_output(committed, {"output_type": "stream", "name": "stdout", "text": ["loss 0.687\n", "done\n"]})
    assert not same_output(committed, {"output_type": "stream", "name": "stderr", "text": ["loss 0.686\n", "done\n"]})
    assert not same_output({"execution_count": 3}, {"execution_count": 4})


def bertviz_sanitizer() -> tuple[re.Pattern, str]:
    config = configparser.ConfigParser()
    config.read(SANITIZE)
    return re.compile(config["bertviz-weights"]["regex"]), config["bertviz-weights"]["replace"]


def test_the_view_sanitizer_hides_weight_arrays_and_nothing_else():
    pattern, replace = bertviz_sanitizer()
    page = 'const params = {"attention": [{"name": "All", "attn": [[[[0.1491, 2.0145e-06], [0.1, 0.9]]]], ' \
           '"left_text": ["[CLS]", "it"]}], "default_filter": "0"};'
    cleaned = pattern.sub(replace.replace("\\1", r"\1"), page)
    assert '"attn": [...]' in cleaned and "0.1491" not in cleaned
    assert '"left_text": ["[CLS]", "it"]' in cleaned and '"default_filter": "0"' in cleaned


def png(values) -> str:
    import base64
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 2), dpi=50)
    ax.imshow([values], vmin=0, vmax=1)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def test_figures_compare_by_eye_not_by_bytes():
    committed = {"output_type": "display_data", "data": {"image/png": png([0.2, 0.5, 0.8])}, "metadata": {}}
    noise = {"output_type": "display_data", "data": {"image/png": png([0.2, 0.5, 0.8001])}, "metadata": {"x": 1}}
    other = {"output_type": "display_data", "data": {"image/png": png([0.8, 0.5, 0.2])}, "metadata": {}}
    assert same_cell_outputs([committed], [noise])
    assert not same_cell_outputs([committed], [other])
    assert not same_cell_outputs([committed], [committed, committed])


def test_cell_outputs_are_sanitized_as_nbval_does():
    view = '<div id="bertviz-{}"></div><script>const params = {{"attn": [[{}]]}};</script>'
    committed = {"output_type": "display_data", "data": {"text/html": view.format("a" * 32, "0.1491, 0.0188")}}
    other_cpu = {"output_type": "display_data", "data": {"text/html": view.format("b" * 32, "0.1493, 0.0190")}}
    other_text = {"output_type": "display_data", "data": {"text/html": view.format("b" * 32, "0.1491") + "!"}}
    assert same_cell_outputs([committed], [other_cpu])
    assert not same_cell_outputs([committed], [other_text])


def stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def test_a_gpu_run_compares_as_the_cpu_run_that_made_the_file():
    """07 prints where it trains; on a GPU (Colab, the device check of 2026-11-26) that cell said 'on cuda'."""
    committed = stream("171,904 parameters on cpu\n")
    assert same_cell_outputs([committed], [stream("171,904 parameters on cuda\n")])
    assert same_cell_outputs([committed], [stream("171,904 parameters on cuda:0\n")])
    assert not same_cell_outputs([committed], [stream("171,905 parameters on cuda\n")])  # the count still counts
    assert not same_cell_outputs([stream("the CPU is busy")], [stream("the GPU is busy")])  # only 'on <device>'
