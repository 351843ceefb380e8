"""Draw the Transformer family tree (three branches, well-known models, which notebook builds each):
python images/make_family_tree.py  ->  images/family_tree.png.  Our own drawing; no published figure is copied."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).parent
BRANCHES = [  # (branch, colour, notebook that builds it, [(model, year)])
    ("Encoder-only", "#c9e4f6", "05, 09-10, 14 vision",
     [("BERT", 2018), ("RoBERTa", 2019), ("DistilBERT", 2019), ("MiniLM", 2020), ("DeBERTa", 2020), ("ViT", 2020)]),
    ("Encoder-decoder", "#fde2b5", "06 decoder, 07 training",
     [("Transformer", 2017), ("T5", 2019), ("BART", 2019), ("mT5", 2020), ("Whisper", 2022)]),
    ("Decoder-only", "#f7c9c9", "11 GPT, 12 modern block",
     [("GPT", 2018), ("GPT-2", 2019), ("GPT-3", 2020), ("LLaMA", 2023), ("Mistral", 2023)]),
]


def main() -> None:
    fig, ax = plt.subplots(figsize=(10, 5.5))
    root = (5.0, 0.6)
    ax.text(*root, "Transformer (2017)\nAttention Is All You Need", ha="center", va="center", fontsize=11,
            bbox=dict(boxstyle="round", fc="#e6e6e6"))
    for column, (branch, colour, notebooks, models) in enumerate(BRANCHES):
        x = 1.6 + column * 3.4
        ax.annotate("", xy=(x, 1.6), xytext=(root[0], root[1] + 0.4), arrowprops=dict(arrowstyle="->", color="#555"))
        ax.text(x, 1.9, f"{branch}\n(notebooks {notebooks})", ha="center", va="center", fontsize=10,
                fontweight="bold", bbox=dict(boxstyle="round", fc=colour))
        for row, (model, year) in enumerate(models):
            ax.text(x, 2.8 + row * 0.55, f"{model} ({year})", ha="center", va="center", fontsize=9.5,
                    bbox=dict(boxstyle="round", fc="white", ec=colour, lw=2))
    ax.set_xlim(0, 10)
    ax.set_ylim(6, 0)  # time runs down the page
    ax.axis("off")
    ax.set_title("The Transformer family tree: three branches, and where this series builds each")
    fig.tight_layout()
    fig.savefig(HERE / "family_tree.png", dpi=110)


if __name__ == "__main__":
    main()
