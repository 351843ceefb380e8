"""The logit lens: read the residual stream after every layer as if it were the last.

Taught in: 17_interpretability.  Shapes: L layers, B batch, T tokens, D model width, V vocabulary.
nostalgebraist (2020): push each layer's residual stream through the model's own final norm and
unembedding (lm_head) and see which next token it already favours. Row 0 is the embedding alone;
row L is exactly the model's output.
"""
from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from anatomy.checkpoints.checkpoint_files import load_weights_file, read_config
from anatomy.checks import check_vocabulary_ids
from anatomy.checks import check_scores
from anatomy.tasks.docstring_lm import CharCorpus
from anatomy.models.gpt import GPT, GPTConfig
from anatomy.interpret.hooks import Hooks, blocks

CHAR_GPT_DIR = Path(__file__).resolve().parent.parent / "data" / "char_gpt"


def residual_streams(model: nn.Module, input_ids: torch.Tensor) -> torch.Tensor:
    """(L + 1, B, T, D): the stream entering layer 0, then leaving each layer, of a GPT or Llama."""
    names = list(blocks(model))
    if not names[0].startswith("blocks.") or getattr(model, "final_norm", None) is None or not hasattr(model, "lm_head"):
        raise TypeError(f"model: the logit lens reads a decoder-only model (anatomy GPT or Llama) with a final_norm and an "
                        f"lm_head; got {type(model).__name__}, which has no final norm or no lm_head (a post-LN encoder "
                        "has no norm after its last layer, and predicts no next token)")
    points = [f"{names[0]}.resid_pre", *(f"{name}.resid_post" for name in names)]
    with torch.no_grad(), Hooks(model, record=points) as cache:
        model(input_ids)
    return torch.stack([cache[point] for point in points])


@torch.no_grad()
def logit_lens(model: nn.Module, input_ids: torch.Tensor) -> torch.Tensor:
    """(L + 1, B, T, V) log-probabilities of the next token, read from each layer's residual stream."""
    stream = residual_streams(model, input_ids)  # (L + 1, B, T, D)
    return model.lm_head(model.final_norm(stream)).log_softmax(dim=-1)


def lens_ranks(log_probs: torch.Tensor, input_ids: torch.Tensor) -> torch.Tensor:
    """(L + 1, B, T - 1): each layer's rank of the true next token (0 = its top guess)."""
    if not isinstance(log_probs, torch.Tensor) or not isinstance(input_ids, torch.Tensor) or log_probs.dim() != 4 \
            or log_probs.shape[1:3] != input_ids.shape:
        raise ValueError(f"log_probs must be (L + 1, B, T, V) for input_ids (B, T) = {tuple(getattr(input_ids, 'shape', ()))}, "
                         f"got {tuple(getattr(log_probs, 'shape', ()))}")
    check_scores(log_probs, "log_probs")
    check_vocabulary_ids("input_ids", input_ids, log_probs.size(-1))
    nxt = input_ids[:, 1:]  # (B, T - 1)
    true = log_probs[:, :, :-1].gather(-1, nxt.expand(log_probs.size(0), -1, -1)[..., None])  # (L + 1, B, T - 1, 1)
    return (log_probs[:, :, :-1] > true).sum(dim=-1)


def save_char_gpt(model: GPT, corpus: CharCorpus, folder: str | Path = CHAR_GPT_DIR) -> None:
    """The weights and the vocabulary (the characters, in id order) of notebook 11's character GPT."""
    model.save_pretrained(folder)
    (Path(folder) / "characters.txt").write_text(corpus.characters, encoding="utf-8")


def load_char_gpt(folder: str | Path = CHAR_GPT_DIR) -> tuple[GPT, CharCorpus]:
    """Notebook 11's character GPT, trained by `make char-gpt` with 11's recipe, and its
    vocabulary (a CharCorpus without text: encode and decode work)."""
    hint = "run `make char-gpt` to train and save it again"
    model = GPT(read_config(GPTConfig, folder, hint))
    load_weights_file(model, folder, hint)
    characters = (Path(folder) / "characters.txt").read_text(encoding="utf-8")
    if len(characters) != model.config.vocab_size or len(set(characters)) != len(characters):
        raise ValueError(f"{Path(folder) / 'characters.txt'} must list the model's {model.config.vocab_size} characters "
                         f"once each (config.json's vocab_size), got {len(characters)} ({len(set(characters))} distinct): "
                         f"the weights and the vocabulary come from different runs; {hint}")
    empty = torch.zeros(0, dtype=torch.long)
    return model.eval(), CharCorpus(characters, empty, empty)
