"""Screenshots of the three BertViz views, rendered offline: python images/make_screenshots.py

Needs `make install` (local scripts) and Chromium. Writes images/bertviz_{head,model,neuron}_view.png.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import torch

import anatomy
from anatomy.display import viz

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for tools/
from tools.headless import render_offline  # noqa: E402

IMAGES = Path(__file__).resolve().parent
NOTEBOOKS = IMAGES.parent / "notebooks"


def main() -> None:
    anatomy.setup_notebook(seed=0)
    os.chdir(NOTEBOOKS)  # build the views as the notebooks do
    tokenizer, model = anatomy.load_pretrained()
    pair = tokenizer("time flies like an arrow", "fruit flies like a banana", return_tensors="pt")
    with torch.no_grad():
        attention = model(**pair, output_attentions=True).attentions
    tokens = tokenizer.convert_ids_to_tokens(pair.input_ids[0])
    start = pair.token_type_ids[0].tolist().index(1)
    views = {"head_view": (viz.head_view(attention, tokens, start), "700,520"),
             "model_view": (viz.model_view(attention, tokens, start, include_layers=[0, 1]), "1300,640"),
             "neuron_view": (viz.neuron_view("the cat sat", "it slept"), "1100,520")}
    for name, (view, size) in views.items():
        target = IMAGES / f"bertviz_{name}.png"
        render_offline(view.data, NOTEBOOKS, f"--screenshot={target}", f"--window-size={size}", name=f"_shot_{name}")
        print("wrote", target.relative_to(IMAGES.parent))


if __name__ == "__main__":
    main()
