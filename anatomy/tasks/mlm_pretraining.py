"""Notebook 16's pre-training task: a small BERT trained from random weights with the masked-LM loss, on CPU.

Taught in: 16_pretraining.  Shapes: B batch, T tokens, D model width, V vocabulary, N chosen tokens.
The text: the review sentences without their labels (the training split and the neutral ones no split
uses: never a validation or test sentence), stdlib docstrings, and the Korean constitution and bills.
The tokenizer is our byte-level BPE (15) trained on that text. The loop is anatomy.tasks.training.train;
the weights the package ships (PRETRAINED_DIR) come from `make pretrain` (tools/pretrain.py).
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from transformers import BertConfig

from anatomy.tokenizers.bpe import ByteLevelBPE
from anatomy.checks import check_texts, check_type
from anatomy.checks import check_batches, check_integer, check_scores
from anatomy.models.masked_lm import TransformerForMaskedLM
from anatomy.models.mlm_masking import IGNORE_INDEX, check_special_ids, mask_tokens
from anatomy.tasks.sentiment_batches import bucketed_batches
from anatomy.tasks.training import TrainingRun, train

PRETRAINED_DIR = Path(__file__).resolve().parent.parent / "data" / "mlm_pretrained"
SPECIAL_TOKENS = ("[PAD]", "[CLS]", "[SEP]", "[MASK]")  # ids 0, 1, 2, 3
VOCAB_SIZE = 4000
MAX_LENGTH = 64  # tokens per pre-training sequence, [CLS] and [SEP] included; longer lines are cut in pieces


def pretraining_texts(docstrings: int = 6000) -> dict[str, list[str]]:
    """{'reviews': ..., 'docstrings': ..., 'korean': ...}: every text pre-training reads, fetched offline."""
    from anatomy.corpora.stdlib_docstrings import stdlib_sentences
    from anatomy.corpora.korean_corpus import korean_lines
    from anatomy.corpora.sentiment_data import binary_label, load_reviews, read_rated_sentences, reviews_path

    train_split = load_reviews("train").texts
    neutral = [text for text, rating in read_rated_sentences(reviews_path()) if binary_label(rating) is None]
    return {"reviews": train_split + neutral, "docstrings": stdlib_sentences(docstrings), "korean": korean_lines()}


class SentenceTokenizer:
    """Our BPE as 09's helpers call a tokenizer: tokenizer(texts, truncation=True, max_length=L)['input_ids']
    gives [CLS] ... [SEP] per text, and pad_token_id / mask_token_id / all_special_ids are there."""

    def __init__(self, bpe: ByteLevelBPE) -> None:
        self.bpe = check_type("bpe", bpe, ByteLevelBPE)
        self.all_special_ids = [bpe.token_to_id(token) for token in SPECIAL_TOKENS]
        self.pad_token_id, self.cls_token_id, self.sep_token_id, self.mask_token_id = self.all_special_ids

    def __len__(self) -> int:
        return self.bpe.vocab_size

    def __call__(self, texts: Sequence[str], truncation: bool = True, max_length: int = MAX_LENGTH) -> dict:
        texts = check_texts(texts, allow_empty=True)
        check_integer("max_length", max_length, least=3, hint=" ([CLS] and [SEP] take two)")
        rows = [self.bpe.encode(text)[:max_length - 2 if truncation else None] for text in texts]
        return {"input_ids": [[self.cls_token_id, *row, self.sep_token_id] for row in rows]}


def train_tokenizer(texts: Sequence[str], vocab_size: int = VOCAB_SIZE) -> SentenceTokenizer:
    return SentenceTokenizer(ByteLevelBPE.train(texts, vocab_size, special_tokens=SPECIAL_TOKENS))


def pretraining_sequences(tokenizer: SentenceTokenizer, texts: Sequence[str], max_length: int = MAX_LENGTH) -> list[list[int]]:
    """[CLS] piece [SEP] for every text, a long text cut into pieces of max_length - 2 tokens (nothing is dropped)."""
    texts, _ = check_texts(texts), check_type("tokenizer", tokenizer, SentenceTokenizer)
    body = check_integer("max_length", max_length, least=3, hint=" ([CLS] and [SEP] take two)") - 2
    return [[tokenizer.cls_token_id, *ids[start:start + body], tokenizer.sep_token_id]
            for ids in (tokenizer.bpe.encode(text) for text in texts) for start in range(0, len(ids), body)]


def small_bert_config(vocab_size: int) -> BertConfig:
    """Small enough to pre-train in two minutes on two CPU cores: 2 layers, 4 heads, width 128."""
    return BertConfig(vocab_size=check_integer("vocab_size", vocab_size, least=len(SPECIAL_TOKENS) + 1), hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=512, max_position_embeddings=MAX_LENGTH, type_vocab_size=1, pad_token_id=0)


@dataclass
class MaskedBatch:
    input_ids: torch.Tensor  # (B, T) with the chosen tokens replaced 80/10/10
    attention_mask: torch.Tensor  # (B, T), 1 = real token
    labels: torch.Tensor  # (B, T), the original token where chosen, -100 elsewhere


def masked_batches(sequences: list[list[int]], tokenizer: SentenceTokenizer, batch_size: int = 64,
                   seed: int = 0) -> Iterator[MaskedBatch]:
    """Endless length-bucketed batches (09's bucketed_batches), masked anew each time: dynamic masking."""
    check_batches(len(check_type("sequences", sequences, list, tuple, what="a list of id lists")), batch_size, "sequences")
    generator = torch.Generator().manual_seed(check_integer("seed", seed, least=0))
    pad = check_type("tokenizer", tokenizer, SentenceTokenizer).pad_token_id
    for batch in bucketed_batches(sequences, [0] * len(sequences), batch_size, seed, pad):
        inputs, labels = mask_tokens(batch.input_ids, tokenizer.mask_token_id, len(tokenizer),
                                     tokenizer.all_special_ids, generator)
        yield MaskedBatch(inputs, batch.attention_mask, labels)


def masked_lm_loss(model: TransformerForMaskedLM, batch: MaskedBatch) -> torch.Tensor:
    """model(...).loss, with the head run only at the chosen tokens (15 %): the same number, far less work."""
    chosen = check_type("batch", batch, MaskedBatch).labels != IGNORE_INDEX  # (B, T)
    if not chosen.any():
        raise ValueError("batch.labels are all -100: no token to predict, the loss would be an empty mean (NaN)")
    hidden = check_type("model", model, TransformerForMaskedLM).encoder(batch.input_ids, batch.attention_mask).last_hidden_state  # (B, T, D)
    return F.cross_entropy(model.head(hidden[chosen]), batch.labels[chosen])  # (N, V) against (N,)


def pretrain(model: TransformerForMaskedLM, batches: Iterator[MaskedBatch], steps: int, peak_lr: float = 1e-3,
             snapshot_steps: Sequence[int] = (), progress: bool = True) -> tuple[TrainingRun, dict[int, dict]]:
    """AdamW (weight decay 0.01, as BERT) with warm-up over the first 6 % of steps, then linear decay.
    Returns the run and, for each of `snapshot_steps`, a copy of the encoder's weights after that many steps."""
    snapshots: dict[int, dict] = {}

    def watched() -> Iterator[MaskedBatch]:
        for step, batch in enumerate(batches):
            if step in snapshot_steps:
                snapshots[step] = {k: v.clone() for k, v in model.encoder.state_dict().items()}
            yield batch

    optimizer = torch.optim.AdamW(model.parameters(), lr=peak_lr, weight_decay=0.01)
    run = train(model, watched(), masked_lm_loss, steps, optimizer=optimizer, warmup_steps=int(0.06 * steps),
                max_grad_norm=1.0, progress=progress)
    if steps in snapshot_steps:
        snapshots[steps] = {k: v.clone() for k, v in model.encoder.state_dict().items()}
    return run, snapshots


def unigram_entropy(sequences: list[list[int]], special_ids: Sequence[int]) -> float:
    """The entropy (nats) of the token distribution: the loss of a model that ignores context and always
    predicts each token's overall frequency."""
    special = set(check_special_ids(special_ids))
    counts = Counter(token for ids in check_type("sequences", sequences, list, tuple, what="a list of id lists")
                     for token in ids if token not in special)
    total = sum(counts.values())
    if total == 0:
        raise ValueError(f"sequences must hold at least one token that is not special, got {len(sequences)} sequence(s) without one")
    return -sum(n / total * math.log(n / total) for n in counts.values())


@torch.no_grad()
def blank_log_probs(model: TransformerForMaskedLM, tokenizer: SentenceTokenizer, text: str) -> torch.Tensor:
    """(V,) log-probabilities of each token at the one [MASK] in `text`. A BPE token carries its leading
    space, so the space before [MASK] belongs to the hidden token: 'it is [MASK] .' asks for ' good'."""
    if not isinstance(text, str) or text.count("[MASK]") != 1:
        raise ValueError(f"text must be a str holding exactly one [MASK], got {text!r}")
    left, _, right = text.partition("[MASK]")
    left_ids = check_type("tokenizer", tokenizer, SentenceTokenizer).bpe.encode(left.rstrip())
    ids = [tokenizer.cls_token_id, *left_ids, tokenizer.mask_token_id, *tokenizer.bpe.encode(right), tokenizer.sep_token_id]
    return check_type("model", model, TransformerForMaskedLM).eval()(torch.tensor([ids])).logits[0, 1 + len(left_ids)].log_softmax(-1)  # (V,) at the [MASK]


def fill_in_blank(model: TransformerForMaskedLM, tokenizer: SentenceTokenizer, text: str, k: int = 5) -> list[str]:
    """The k likeliest tokens for the one [MASK] in `text`, best first."""
    log_probs = blank_log_probs(model, tokenizer, text)  # (V,)
    check_integer("k", k, most=log_probs.numel())
    check_scores(log_probs, "the log-probabilities at [MASK]")
    return [tokenizer.bpe.decode([int(i)]) for i in log_probs.topk(k).indices]
