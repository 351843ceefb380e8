"""Before the Transformer: a GRU encoder-decoder, with a fixed context vector or with additive attention.

Taught in: 00_before_transformers.  Shapes: B batch, Ts source / Tt target tokens, E embedding,
Dh state, Dm memory (Dh, or 2 Dh bidirectional), A attention width, V vocabulary.
Sutskever et al. (2014) and Cho et al. (2014) squeeze the source into the encoder's last state, the
context vector. Bahdanau et al. (2015) let each decoder step average all encoder states with its own
weights, and read the source both ways: h_j = [forward state; backward state] at letter j knows the
letters on both sides of j, and the decoder starts from tanh(W_s h_1 backward) (their appendix A.2.2).
As in their paper, the fixed-context model reads one way (their RNNencdec) and the attention model
both ways (RNNsearch); embeddings, widths and the decoder cell are the same.
The models speak the Transformer's interface (encode, decode, forward -> Seq2SeqOutput), so the
same loss, training loop and anatomy.greedy_decode serve all three.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from anatomy.checks import check_integer, check_padding_side, check_type
from anatomy.layers.config import require
from anatomy.layers.embeddings import check_token_ids
from anatomy.models.transformer import Seq2SeqOutput, check_padding


@dataclass
class RNNConfig:
    vocab_size: int = 29
    embedding_size: int = 32  # E
    hidden_size: int = 64  # Dh, the encoder's and decoder's state (and the fixed context vector)
    attention_size: int = 32  # A, the width of the additive attention's hidden layer
    max_length: int = 64  # the longest source the model is built (and trained) for
    attention: bool = True  # False: Sutskever's fixed context vector; True: Bahdanau's attention
    bidirectional: bool = False  # True: Bahdanau's encoder, forward and backward states side by side
    pad_token_id: int = 0
    bos_token_id: int = 1
    eos_token_id: int = 2

    def __post_init__(self) -> None:
        require(self, "vocab_size", "embedding_size", "hidden_size", "attention_size", "max_length")
        for name in ("pad_token_id", "bos_token_id", "eos_token_id"):
            check_integer(name, getattr(self, name), least=0, most=self.vocab_size - 1, hint=" (a token id)")
        if self.bidirectional and not self.attention:
            raise ValueError("bidirectional=True needs attention=True: the fixed context vector is the forward "
                             "encoder's last state; pass bidirectional=False for Sutskever's and Cho's model")


class AdditiveAttention(nn.Module):
    """Bahdanau's score: score(s, h_j) = v · tanh(W_q s + W_k h_j), a one-hidden-layer network,
    softmax over the source positions j, then the weighted sum of the h_j."""

    def __init__(self, query_size: int, key_size: int, attention_size: int) -> None:
        super().__init__()
        for name, size in (("query_size", query_size), ("key_size", key_size), ("attention_size", attention_size)):
            check_integer(name, size)
        self.q_proj = nn.Linear(query_size, attention_size, bias=False)
        self.k_proj = nn.Linear(key_size, attention_size)
        self.score_proj = nn.Linear(attention_size, 1, bias=False)  # Bahdanau's v

    def forward(self, query: torch.Tensor, keys: torch.Tensor, mask: torch.Tensor | None = None,
                projected_keys: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """query (B, Dq): the decoder's state; keys (B, Tk, Dk): every encoder state; mask (B, Tk),
        True = may attend; projected_keys: k_proj(keys), if the caller computed it once for all
        decoder steps. Returns (context (B, Dk), weights (B, Tk))."""
        projected_keys = self.k_proj(keys) if projected_keys is None else projected_keys  # (B, Tk, A)
        hidden = torch.tanh(self.q_proj(query)[:, None] + projected_keys)  # (B, Tk, A)
        scores = self.score_proj(hidden).squeeze(-1)  # (B, Tk)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = scores.softmax(dim=-1)  # (B, Tk)
        return torch.bmm(weights[:, None], keys).squeeze(1), weights  # (B, Dk), (B, Tk)


class GRUSeq2Seq(nn.Module):
    """Embeddings -> encoder GRU over the source -> decoder GRU, one step per target token. At
    each step the decoder reads [previous token; context] and predicts from [its state; context].
    The context is the encoder's last state (fixed) or an attention average (config.attention)."""

    def __init__(self, config: RNNConfig) -> None:
        super().__init__()
        self.config = check_type("config", config, RNNConfig)
        self.embeddings = nn.Embedding(config.vocab_size, config.embedding_size, padding_idx=config.pad_token_id)
        hidden, memory = config.hidden_size, config.hidden_size * (2 if config.bidirectional else 1)  # Dh, Dm
        self.encoder_rnn = nn.GRU(config.embedding_size, hidden, batch_first=True, bidirectional=config.bidirectional)
        self.init_proj = nn.Linear(hidden, hidden, bias=False) if config.bidirectional else None  # Bahdanau's W_s
        self.decoder_cell = nn.GRUCell(config.embedding_size + memory, hidden)
        self.attention = AdditiveAttention(hidden, memory, config.attention_size) if config.attention else None
        self.lm_head = nn.Linear(hidden + memory, config.vocab_size)

    def check_ids(self, ids: torch.Tensor, name: str) -> None:
        if not isinstance(ids, torch.Tensor) or ids.dim() != 2:
            raise ValueError(f"{name} must be (B, T), got shape {tuple(getattr(ids, 'shape', ()))}")
        check_token_ids(ids, self.config.vocab_size, name)
        if ids.size(1) > self.config.max_length:
            raise ValueError(f"{name} has {ids.size(1)} tokens, more than max_length "
                             f"({self.config.max_length}) the model was built and trained for")

    def encode(self, src_ids: torch.Tensor, src_mask: torch.Tensor | None = None,
               output_attentions: bool = False) -> tuple[torch.Tensor, None]:
        """Returns (every encoder state (B, Ts, Dm), None). Padding is on the right: the forward GRU
        meets it after the real tokens; the backward one skips it (packed), so it never sees it."""
        self.check_ids(src_ids, "src_ids")
        check_padding(src_mask, src_ids, "src_mask", "src_ids")
        if src_mask is not None:
            check_padding_side(src_mask, "right", "src_mask", "the GRU reads left to right and the context vector "
                               "is its state after the last real token, so pad the source on the right")
        embedded = self.embeddings(src_ids)  # (B, Ts, E)
        if not self.config.bidirectional or src_mask is None or bool(src_mask.all()):
            return self.encoder_rnn(embedded)[0], None  # (B, Ts, Dm)
        packed = nn.utils.rnn.pack_padded_sequence(embedded, src_mask.long().sum(1).cpu(), batch_first=True,
                                                   enforce_sorted=False)  # each row read to its own length
        states = nn.utils.rnn.pad_packed_sequence(self.encoder_rnn(packed)[0], batch_first=True,
                                                  total_length=src_ids.size(1))[0]  # (B, Ts, Dm), 0 at padding
        return states, None

    def context_vector(self, memory: torch.Tensor, src_mask: torch.Tensor | None) -> torch.Tensor:
        """The decoder's first state (B, Dh): the encoder's state after the last real source token,
        or, bidirectional, tanh(W_s h_1 backward): the backward GRU's state after reading it all."""
        if self.init_proj is not None:
            return torch.tanh(self.init_proj(memory[:, 0, self.config.hidden_size:]))  # (B, Dh)
        if src_mask is None:
            return memory[:, -1]
        last = src_mask.long().sum(dim=1) - 1  # (B,)
        return memory[torch.arange(memory.size(0), device=memory.device), last]  # (B, Dh)

    def decode(self, tgt_ids: torch.Tensor, memory: torch.Tensor, src_mask: torch.Tensor | None = None,
               tgt_mask: torch.Tensor | None = None, output_attentions: bool = False) -> Seq2SeqOutput:
        """Logits for the next token at every target position (teacher forcing). The decoder starts
        from context_vector; with attention it looks back at `memory` at every step."""
        check_padding(tgt_mask, tgt_ids, "tgt_mask", "tgt_ids")
        embedded = self.embeddings(tgt_ids)  # (B, Tt, E)
        context = state = self.context_vector(memory, src_mask)  # (B, Dh): the first state; fixed: the context
        projected_keys = None if self.attention is None else self.attention.k_proj(memory)  # (B, Ts, A)
        if src_mask is not None and bool(src_mask.all()):
            src_mask = None  # no padding to hide: skip masking at every step
        states, contexts, weights = [], [], []
        for t in range(tgt_ids.size(1)):  # T sequential steps: step t needs the state of step t - 1
            if self.attention is not None:
                context, step_weights = self.attention(state, memory, src_mask, projected_keys)  # (B, Dm), (B, Ts)
                weights.append(step_weights)
            state = self.decoder_cell(torch.cat([embedded[:, t], context], dim=-1), state)  # (B, Dh)
            states.append(state)
            contexts.append(context)
        features = torch.cat([torch.stack(states, 1), torch.stack(contexts, 1)], dim=-1)  # (B, Tt, Dh + Dm)
        alignment = (torch.stack(weights, dim=1)[:, None],) if weights and output_attentions else None
        return Seq2SeqOutput(self.lm_head(features), cross_attentions=alignment)  # (B, Tt, V); (B, 1, Tt, Ts)

    def forward(self, src_ids: torch.Tensor, tgt_ids: torch.Tensor, src_mask: torch.Tensor | None = None,
                tgt_mask: torch.Tensor | None = None, output_attentions: bool = False) -> Seq2SeqOutput:
        memory, _ = self.encode(src_ids, src_mask)
        check_token_ids(tgt_ids, self.config.vocab_size, "tgt_ids")  # no length limit: a GRU has no positions
        if tgt_ids.size(0) != src_ids.size(0):
            raise ValueError(f"src_ids and tgt_ids batch sizes differ: {src_ids.size(0)} vs {tgt_ids.size(0)}")
        return self.decode(tgt_ids, memory, src_mask, tgt_mask, output_attentions)
