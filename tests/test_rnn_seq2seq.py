"""anatomy.models.rnn_seq2seq: the additive attention against a brute-force loop, the decoder's GRU cell
stepped by hand against torch's nn.GRU over the whole sequence, and the bad inputs."""
import math

import pytest
import torch

from anatomy.generation.greedy import greedy_decode
from anatomy.models.rnn_seq2seq import AdditiveAttention, GRUSeq2Seq, RNNConfig


def test_additive_attention_matches_a_brute_force_loop():
    torch.manual_seed(0)
    attention = AdditiveAttention(query_size=5, key_size=6, attention_size=4)
    query, keys = torch.randn(3, 5), torch.randn(3, 7, 6)
    mask = torch.ones(3, 7, dtype=torch.bool)
    mask[1, 4:] = False
    mask[2, 1:] = False
    context, weights = attention(query, keys, mask)
    W_q, W_k, b_k = attention.q_proj.weight.tolist(), attention.k_proj.weight.tolist(), attention.k_proj.bias.tolist()
    v = attention.score_proj.weight[0].tolist()
    for b in range(3):
        scores = []
        for j in range(7):
            if not mask[b, j]:
                continue
            total = 0.0
            for a in range(4):
                pre = sum(W_q[a][i] * query[b, i].item() for i in range(5))
                pre += sum(W_k[a][i] * keys[b, j, i].item() for i in range(6)) + b_k[a]
                total += v[a] * math.tanh(pre)
            scores.append((j, total))
        norm = sum(math.exp(s) for _, s in scores)
        expected = [0.0] * 7
        for j, s in scores:
            expected[j] = math.exp(s) / norm
        torch.testing.assert_close(weights[b], torch.tensor(expected), atol=1e-6, rtol=0)
        expected_context = sum(expected[j] * keys[b, j] for j in range(7))
        torch.testing.assert_close(context[b], expected_context, atol=1e-6, rtol=0)


def test_fixed_context_decoder_is_torch_gru_over_the_sequence():
    """Our step-by-step GRUCell loop equals nn.GRU run over [token; context] in one call."""
    torch.manual_seed(0)
    config = RNNConfig(vocab_size=11, attention=False)
    model = GRUSeq2Seq(config).eval()
    src, tgt = torch.randint(3, 11, (4, 9)), torch.randint(3, 11, (4, 6))
    reference = torch.nn.GRU(config.embedding_size + config.hidden_size, config.hidden_size, batch_first=True)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(reference, f"{name}_l0").copy_(getattr(model.decoder_cell, name))
        _, last = model.encoder_rnn(model.embeddings(src))  # torch's GRU: the encoder
        context = last[0]  # (B, Dh): the last state is the context vector
        steps = torch.cat([model.embeddings(tgt), context[:, None].expand(-1, 6, -1)], dim=-1)
        outputs, _ = reference(steps, context[None])  # (B, Tt, Dh)
        expected = model.lm_head(torch.cat([outputs, context[:, None].expand(-1, 6, -1)], dim=-1))
        torch.testing.assert_close(model(src, tgt).logits, expected)


def test_context_vector_ignores_right_padding():
    torch.manual_seed(0)
    model = GRUSeq2Seq(RNNConfig(vocab_size=11, attention=False)).eval()
    short = torch.tensor([[5, 6, 7]])
    padded = torch.tensor([[5, 6, 7, 0, 0], [8, 9, 10, 4, 3]])
    tgt = torch.tensor([[1, 5], [1, 8]])
    with torch.no_grad():
        alone = model(short, tgt[:1]).logits
        in_batch = model(padded, tgt, src_mask=padded != 0).logits[:1]
    torch.testing.assert_close(in_batch, alone)


def test_bidirectional_encoder_is_two_torch_grus_one_reading_backwards():
    """Bahdanau's annotations: h_j = [forward GRU state at j; backward GRU state at j], checked against two
    one-way torch GRUs (the second run on the reversed source), each row at its own length (right padding)."""
    torch.manual_seed(0)
    model = GRUSeq2Seq(RNNConfig(vocab_size=11, bidirectional=True)).eval()
    src = torch.tensor([[5, 6, 7, 0, 0], [8, 9, 10, 4, 3]])
    forward, backward = (torch.nn.GRU(32, 64, batch_first=True) for _ in range(2))
    with torch.no_grad():
        for name in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"):
            getattr(forward, name).copy_(getattr(model.encoder_rnn, name))
            getattr(backward, name).copy_(getattr(model.encoder_rnn, f"{name}_reverse"))
        memory, _ = model.encode(src, src_mask=src != 0)  # (B, Ts, 2 Dh)
        assert memory.shape == (2, 5, 128)
        for row, length in enumerate([3, 5]):
            embedded = model.embeddings(src[row:row + 1, :length])  # (1, L, E): the real letters only
            ahead, _ = forward(embedded)
            behind, last = backward(embedded.flip(1))
            torch.testing.assert_close(memory[row, :length], torch.cat([ahead, behind.flip(1)], dim=-1)[0])
            assert not memory[row, length:].any()  # padding: zeros (and masked by the attention anyway)
            first = torch.tanh(last[0] @ model.init_proj.weight.T)  # (1, Dh): Bahdanau's s_0 = tanh(W_s h_1 backward)
            torch.testing.assert_close(model.context_vector(memory[row:row + 1], None), first)


def test_bidirectional_model_ignores_right_padding():
    torch.manual_seed(0)
    model = GRUSeq2Seq(RNNConfig(vocab_size=11, bidirectional=True)).eval()
    padded = torch.tensor([[5, 6, 7, 0, 0], [8, 9, 10, 4, 3]])
    tgt = torch.tensor([[1, 5, 6], [1, 8, 9]])
    with torch.no_grad():
        alone = model(padded[:1, :3], tgt[:1]).logits
        in_batch = model(padded, tgt, src_mask=padded != 0).logits[:1]
    torch.testing.assert_close(in_batch, alone)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_attention_weights_avoid_padding_and_sum_to_one(bidirectional):
    torch.manual_seed(0)
    model = GRUSeq2Seq(RNNConfig(vocab_size=11, bidirectional=bidirectional)).eval()
    src = torch.tensor([[5, 6, 7, 0, 0], [8, 9, 10, 4, 3]])
    with torch.no_grad():
        out = model(src, torch.tensor([[1, 5, 6], [1, 8, 9]]), src_mask=src != 0, output_attentions=True)
    (alignment,) = out.cross_attentions
    assert alignment.shape == (2, 1, 3, 5)
    torch.testing.assert_close(alignment.sum(-1), torch.ones(2, 1, 3))
    assert alignment[0, 0, :, 3:].abs().max() == 0


@pytest.mark.parametrize("attention, bidirectional", [(False, False), (True, False), (True, True)])
def test_greedy_decoding_agrees_with_teacher_forcing_on_its_own_output(attention, bidirectional):
    """greedy_decode re-runs decode on each prefix; feeding its output back must give the same argmaxes."""
    torch.manual_seed(0)
    model = GRUSeq2Seq(RNNConfig(vocab_size=11, attention=attention, bidirectional=bidirectional)).eval()
    with torch.no_grad():
        model.lm_head.bias[model.config.eos_token_id] = -1e9  # never stop early: compare all 6 steps
    src = torch.randint(3, 11, (3, 8))
    generated = greedy_decode(model, src, max_length=6)  # (B, 6)
    tgt = torch.cat([torch.full((3, 1), model.config.bos_token_id), generated[:, :-1]], dim=1)
    with torch.no_grad():
        assert torch.equal(model(src, tgt).logits.argmax(-1), generated)


def test_source_longer_than_the_model_was_built_for():
    model = GRUSeq2Seq(RNNConfig(vocab_size=11, max_length=8))
    with pytest.raises(ValueError, match=r"src_ids has 9 tokens, more than max_length \(8\)"):
        model(torch.ones(2, 9, dtype=torch.long), torch.ones(2, 3, dtype=torch.long))


def test_source_of_the_wrong_rank():
    model = GRUSeq2Seq(RNNConfig(vocab_size=11))
    with pytest.raises(ValueError, match=r"src_ids must be \(B, T\), got shape \(5,\)"):
        model(torch.ones(5, dtype=torch.long), torch.ones(1, 3, dtype=torch.long))


def test_mask_of_the_wrong_shape():
    model = GRUSeq2Seq(RNNConfig(vocab_size=11))
    with pytest.raises(ValueError, match="src_mask must have the shape of src_ids"):
        model(torch.ones(2, 5, dtype=torch.long), torch.ones(2, 3, dtype=torch.long),
              src_mask=torch.ones(2, 4, dtype=torch.bool))


def test_a_left_padded_or_empty_source_is_refused():
    model = GRUSeq2Seq(RNNConfig(vocab_size=11))
    src, tgt = torch.tensor([[0, 0, 5, 6], [5, 6, 7, 8]]), torch.tensor([[1, 5], [1, 8]])
    with pytest.raises(ValueError, match=r"row\(s\) \[0\] of src_mask are not padded on the right: the GRU reads left "
                                         r"to right .*pad the source on the right"):
        model(src, tgt, src_mask=src != 0)
    with pytest.raises(ValueError, match=r"row\(s\) \[0\] of src_mask are all padding"):
        model(src, tgt, src_mask=torch.tensor([[0, 0, 0, 0], [1, 1, 1, 1]]))


def test_ids_outside_the_vocabulary_and_a_bad_config():
    model = GRUSeq2Seq(RNNConfig(vocab_size=11))
    with pytest.raises(ValueError, match=r"src_ids must lie in \[0, 11\), got values from 1 to 11"):
        model(torch.tensor([[1, 11]]), torch.tensor([[1]]))
    with pytest.raises(ValueError, match=r"tgt_ids must lie in \[0, 11\), got values from -1 to 1"):
        model(torch.tensor([[1, 2]]), torch.tensor([[1, -1]]))
    with pytest.raises(ValueError, match="src_ids and tgt_ids batch sizes differ: 1 vs 2"):
        model(torch.tensor([[1, 2]]), torch.tensor([[1], [1]]))
    with pytest.raises(ValueError, match=r"eos_token_id must be an integer in \[0, 10\], got 11 \(a token id\)"):
        RNNConfig(vocab_size=11, eos_token_id=11)
    with pytest.raises(ValueError, match="config field hidden_size must be an integer >= 1, got 0"):
        RNNConfig(hidden_size=0)
    with pytest.raises(ValueError, match=r"bidirectional=True needs attention=True: .*pass bidirectional=False"):
        RNNConfig(attention=False, bidirectional=True)


@pytest.mark.parametrize("argument, value", [("query_size", -1), ("key_size", 2.5), ("attention_size", None)])
def test_additive_attention_refuses_a_size_that_is_not_a_count(argument, value):
    # torch refused these itself ("negative dimension -1", "empty(): argument 'size'"), naming no argument
    with pytest.raises((TypeError, ValueError), match=argument):
        AdditiveAttention(**{"query_size": 8, "key_size": 8, "attention_size": 4, argument: value})


@pytest.mark.parametrize("config", [None, {"vocab_size": 11}])
def test_gru_seq2seq_names_a_config_that_is_no_rnn_config(config):
    # None raised AttributeError: 'NoneType' object has no attribute 'vocab_size' (found by the sweep, #37)
    with pytest.raises(TypeError, match=f"config must be RNNConfig, got {type(config).__name__}"):
        GRUSeq2Seq(config)
