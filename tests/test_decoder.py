"""The decoder layer and stack, checked against torch.nn.TransformerDecoderLayer / TransformerDecoder."""
from types import SimpleNamespace

import pytest
import torch
from torch import nn

from anatomy.models.decoder import TransformerDecoder, TransformerDecoderLayer
from anatomy.layers.masks import causal_mask, causal_padding_mask, padding_mask
from anatomy.weights.torch_reference import copy_sublayers

CONFIG = SimpleNamespace(hidden_size=16, num_attention_heads=4, intermediate_size=32, num_decoder_layers=2,
                         hidden_act="relu", hidden_dropout_prob=0.0, layer_norm_eps=1e-5)
B, TT, TS = 3, 5, 7


@pytest.fixture
def inputs():
    torch.manual_seed(0)
    source_padding = torch.ones(B, TS, dtype=torch.bool)
    source_padding[1, 4:] = False
    return torch.randn(B, TT, 16), torch.randn(B, TS, 16), source_padding


def torch_layer(ours, norm_first):
    theirs = nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0, batch_first=True, norm_first=norm_first)
    copy_sublayers(ours, theirs, {"self_attn": "self_attn", "cross_attn": "multihead_attn"}, norms=3)
    return theirs.eval()


@pytest.mark.parametrize("norm_first", [False, True])
def test_layer_equals_torch_decoder_layer(inputs, norm_first):
    x, memory, source_padding = inputs
    ours = TransformerDecoderLayer(CONFIG, norm_first).eval()
    theirs = torch_layer(ours, norm_first)
    out, self_weights, cross_weights = ours(x, memory, causal_mask(TT), padding_mask(source_padding))
    expected = theirs(x, memory, tgt_mask=~causal_mask(TT), memory_key_padding_mask=~source_padding)
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)
    assert self_weights.shape == (B, 4, TT, TT) and cross_weights.shape == (B, 4, TT, TS)


def test_a_mistake_in_cross_attention_is_caught(inputs):
    """The parity check can fail: keys and values swapped in cross-attention."""
    x, memory, source_padding = inputs
    ours = TransformerDecoderLayer(CONFIG).eval()
    theirs = torch_layer(ours, norm_first=False)
    with torch.no_grad():
        ours.cross_attn.k_proj.weight, ours.cross_attn.v_proj.weight = (ours.cross_attn.v_proj.weight,
                                                                        ours.cross_attn.k_proj.weight)
    out, _, _ = ours(x, memory, causal_mask(TT), padding_mask(source_padding))
    expected = theirs(x, memory, tgt_mask=~causal_mask(TT), memory_key_padding_mask=~source_padding)
    assert (out - expected).abs().max() > 1e-2


def test_cross_attention_is_rectangular_and_ignores_source_padding(inputs):
    x, memory, source_padding = inputs
    _, _, cross = TransformerDecoderLayer(CONFIG).eval()(x, memory, causal_mask(TT), padding_mask(source_padding))
    assert cross.shape == (B, 4, TT, TS)
    torch.testing.assert_close(cross.sum(-1), torch.ones(B, 4, TT))
    assert cross[1, :, :, 4:].abs().max() == 0, "padded source tokens must get zero weight"
    assert (cross[1, :, :, :4] > 0).all()


def test_self_attention_weights_are_lower_triangular(inputs):
    x, memory, _ = inputs
    _, self_weights, _ = TransformerDecoderLayer(CONFIG).eval()(x, memory, causal_mask(TT))
    above_diagonal = ~causal_mask(TT)
    assert self_weights[..., above_diagonal].abs().max() == 0


def test_stack_equals_torch_decoder_with_final_norm(inputs):
    x, memory, source_padding = inputs
    ours = TransformerDecoder(CONFIG, final_norm=True).eval()
    theirs = nn.TransformerDecoder(nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0, batch_first=True), 2,
                                   norm=nn.LayerNorm(16)).eval()
    for our_layer, their_layer in zip(ours.layers, theirs.layers):
        their_layer.load_state_dict(torch_layer(our_layer, False).state_dict())
    theirs.norm.load_state_dict(ours.final_norm.state_dict())
    tgt_padding = torch.ones(B, TT, dtype=torch.bool)
    tgt_padding[2, 3:] = False
    out = ours(x, memory, causal_padding_mask(tgt_padding), padding_mask(source_padding), output_attentions=True)
    expected = theirs(x, memory, tgt_mask=~causal_mask(TT), tgt_key_padding_mask=~tgt_padding,
                      memory_key_padding_mask=~source_padding)
    torch.testing.assert_close(out.last_hidden_state, expected, atol=1e-5, rtol=1e-5)
    assert len(out.self_attentions) == len(out.cross_attentions) == 2


def test_decoder_without_memory_is_a_clear_error(inputs):
    x, _, _ = inputs
    with pytest.raises(ValueError, match=r"needs the encoder's output `memory` .* got None"):
        TransformerDecoderLayer(CONFIG)(x, None)
    with pytest.raises(ValueError, match=r"needs the encoder's output `memory`"):
        TransformerDecoder(CONFIG)(x, None)


def test_memory_of_the_wrong_shape_is_a_clear_error(inputs):
    x, memory, _ = inputs
    with pytest.raises(ValueError, match=r"memory must be \(B, Ts, D\) = \(3, Ts, 16\), got shape \(2, 7, 16\)"):
        TransformerDecoderLayer(CONFIG)(x, memory[:2])
    with pytest.raises(ValueError, match=r"got shape \(3, 7, 8\)"):
        TransformerDecoderLayer(CONFIG)(x, memory[..., :8])


def test_cross_attention_mask_of_the_wrong_shape_is_a_clear_error(inputs):
    x, memory, _ = inputs
    with pytest.raises(ValueError, match=r"mask shape \(5, 5\) does not broadcast to the attention scores. shape \(3, 4, 5, 7\)"):
        TransformerDecoderLayer(CONFIG)(x, memory, causal_mask(TT), causal_mask(TT))


def test_decoder_needs_its_layer_count():
    config = SimpleNamespace(**{k: v for k, v in vars(CONFIG).items() if k != "num_decoder_layers"})
    with pytest.raises(ValueError, match=r"missing field\(s\) \['num_decoder_layers'\]"):
        TransformerDecoder(config)


def test_decoder_layer_refuses_3d_masks_that_could_be_misread(inputs):
    layer = TransformerDecoderLayer(CONFIG).eval()  # 4 heads; B = 3
    x, memory, _ = inputs
    x, memory = x.repeat(2, 1, 1)[:4], memory.repeat(2, 1, 1)[:4]  # B == H == 4
    with pytest.raises(ValueError, match=r"mask has shape \(4, 5, 5\).*ambiguous"):
        layer(x, memory, torch.ones(4, TT, TT, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"mask has shape \(4, 5, 7\).*ambiguous"):
        layer(x, memory, causal_mask(TT), torch.ones(4, TT, TS, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"mask shape \(4, 7\) does not broadcast .* \(4, 4, 5, 7\)"):
        layer(x, memory, causal_mask(TT), torch.ones(4, TS, dtype=torch.bool))  # (B, Ts): use padding_mask


def test_decoder_stack_checks_its_inputs(inputs):
    decoder = TransformerDecoder(vars(CONFIG)).eval()  # a plain dict config works too
    x, memory, _ = inputs
    with pytest.raises(ValueError, match=r"the decoder's input x must be a \(B, Tt, D\) tensor, got \(5, 16\)"):
        decoder(x[0], memory)
    with pytest.raises(ValueError, match=r"memory must be \(B, Ts, D\) = \(3, Ts, 16\), got shape \(4, 7, 16\)"):
        decoder(x, torch.randn(4, TS, 16))
