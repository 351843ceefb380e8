"""The full Transformer: parity with torch.nn.Transformer, the paper's parameter counts, decoding, saving."""
import math

import pytest
import torch
from torch import nn

from anatomy.layers.embeddings import sinusoidal_positions
from anatomy.generation.greedy import greedy_decode
from anatomy.layers.masks import causal_mask
from anatomy.weights.torch_reference import to_torch_transformer
from anatomy.models.transformer import Transformer, TransformerConfig

TINY = dict(vocab_size=40, hidden_size=32, num_attention_heads=4, intermediate_size=64,
            num_encoder_layers=2, num_decoder_layers=2, hidden_dropout_prob=0.0, max_position_embeddings=64)
PAPER = {"base": (TransformerConfig(), 65e6),
         "big": (TransformerConfig(hidden_size=1024, num_attention_heads=16, intermediate_size=4096), 213e6)}


def tiny_model(**settings):
    torch.manual_seed(0)
    return Transformer(TransformerConfig(**{**TINY, **settings})).double().eval()


def model_and_reference(**settings):
    model = tiny_model(**settings)
    return model, to_torch_transformer(model).double()


@pytest.fixture
def batch():
    torch.manual_seed(1)
    src, tgt = torch.randint(3, 40, (3, 9)), torch.randint(3, 40, (3, 6))
    src_mask, tgt_mask = torch.ones_like(src, dtype=torch.bool), torch.ones_like(tgt, dtype=torch.bool)
    src_mask[1, 6:], src_mask[2, 3:], tgt_mask[2, 4:] = False, False, False
    return src, tgt, src_mask, tgt_mask


def reference_logits(model, reference, src, tgt, src_mask, tgt_mask):
    hidden = reference(model.src_embeddings(src), model.tgt_embeddings(tgt), tgt_mask=~causal_mask(tgt.size(1)),
                       src_key_padding_mask=~src_mask, tgt_key_padding_mask=~tgt_mask,
                       memory_key_padding_mask=~src_mask)
    return model.lm_head(hidden)  # (B, Tt, V)


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_equals_torch_transformer_with_masks(batch, norm_first, activation):
    model, reference = model_and_reference(final_norm=True, norm_first=norm_first, hidden_act=activation)
    ours = model(*batch).logits
    torch.testing.assert_close(ours, reference_logits(model, reference, *batch), atol=1e-5, rtol=0)
    memory, _ = model.encode(batch[0], batch[2])
    src_hidden = reference.encoder(model.src_embeddings(batch[0]), src_key_padding_mask=~batch[2])
    torch.testing.assert_close(memory, src_hidden, atol=1e-5, rtol=0)


def test_the_parity_check_can_fail(batch):
    model, reference = model_and_reference(final_norm=True)
    with torch.no_grad():  # a classic bug: cross-attention queries taken from the encoder's side
        model.decoder.layers[1].cross_attn.q_proj.weight.copy_(model.decoder.layers[1].cross_attn.k_proj.weight)
    difference = (model(*batch).logits - reference_logits(model, reference, *batch)).abs().max()
    assert difference > 1e-2


def test_torch_reference_needs_final_norms():
    with pytest.raises(ValueError, match=r"TransformerConfig\(final_norm=True\)"):
        to_torch_transformer(Transformer(TransformerConfig(**TINY)))


@pytest.mark.parametrize("size", PAPER)
def test_parameter_count_matches_the_paper(size):
    """Vaswani et al. 2017, Table 3: base 65M, big 213M, with a shared ~37,000-token BPE vocabulary
    and one matrix shared by both embeddings and the pre-softmax projection (section 3.4)."""
    config, published = PAPER[size]
    with torch.device("meta"):
        ours = sum(p.numel() for p in Transformer(config).parameters())
        torch_layers = nn.Transformer(config.hidden_size, config.num_attention_heads,
                                      dim_feedforward=config.intermediate_size, batch_first=True)
    torch_count = sum(p.numel() for p in torch_layers.parameters())
    final_norms = 2 * 2 * config.hidden_size
    assert ours == torch_count - final_norms + config.vocab_size * config.hidden_size
    assert abs(ours / published - 1) < 0.035, f"{ours:,} vs the paper's {published:,.0f}"


def test_untied_embeddings_add_two_matrices():
    tied = sum(p.numel() for p in Transformer(TransformerConfig(**TINY)).parameters())
    untied = sum(p.numel() for p in Transformer(TransformerConfig(**TINY, tie_embeddings=False)).parameters())
    assert untied - tied == 2 * 40 * 32


def test_a_later_target_token_never_changes_earlier_logits(batch):
    model = tiny_model()
    src, tgt, src_mask, _ = batch
    changed = tgt.clone()
    changed[:, 3:] = torch.randint(3, 40, changed[:, 3:].shape)
    before, after = model(src, tgt, src_mask).logits, model(src, changed, src_mask).logits
    torch.testing.assert_close(before[:, :3], after[:, :3])
    assert (before[:, 3:] - after[:, 3:]).abs().max() > 1e-3


def test_all_attention_weights_on_request(batch):
    model = tiny_model()
    out = model(*batch, output_attentions=True)
    assert [w.shape for w in out.encoder_attentions] == [(3, 4, 9, 9)] * 2
    assert [w.shape for w in out.decoder_attentions] == [(3, 4, 6, 6)] * 2
    assert [w.shape for w in out.cross_attentions] == [(3, 4, 6, 9)] * 2
    assert model(*batch).cross_attentions is None


@pytest.mark.parametrize("which, shape, message", [
    ("src", (3, 8), r"src_mask must have the shape of src_ids, \(B, T\) = \(3, 9\) \(True = real token\), got \(3, 8\)"),
    ("tgt", (3, 1, 6), r"tgt_mask must have the shape of tgt_ids, \(B, T\) = \(3, 6\) \(True = real token\), got \(3, 1, 6\)"),
])
def test_masks_of_the_wrong_shape_are_clear_errors(batch, which, shape, message):
    model = tiny_model()
    src, tgt, src_mask, tgt_mask = batch
    masks = {"src_mask": src_mask, "tgt_mask": tgt_mask, f"{which}_mask": torch.ones(shape, dtype=torch.bool)}
    with pytest.raises(ValueError, match=message):
        model(src, tgt, **masks)


def test_decode_with_a_mask_that_does_not_fit_the_memory(batch):
    model = tiny_model()
    memory, _ = model.encode(batch[0])
    with pytest.raises(ValueError, match=r"src_mask must be \(B, Ts\) = \(3, 9\), the memory's .* got \(3, 5\)"):
        model.decode(batch[1], memory, src_mask=torch.ones(3, 5, dtype=torch.bool))


def test_decode_without_memory_is_a_clear_error(batch):
    model = tiny_model()
    with pytest.raises(ValueError, match=r"Run the encoder first: memory = model.encode\(src_ids\)"):
        model.decode(batch[1], None)


@pytest.mark.parametrize("which", ["src_ids", "tgt_ids"])
def test_ids_outside_the_vocabulary_are_clear_errors(batch, which):
    model = tiny_model()
    ids = {"src_ids": batch[0].clone(), "tgt_ids": batch[1].clone()}
    ids[which][0, 0] = 40
    with pytest.raises(ValueError, match=rf"{which} must lie in \[0, 40\), got values from \d+ to 40"):
        model(**ids)


def test_batch_sizes_must_agree(batch):
    model = tiny_model()
    with pytest.raises(ValueError, match="src_ids and tgt_ids batch sizes differ: 3 vs 2"):
        model(batch[0], batch[1][:2])


def forced_model(token):
    """A decoder whose output is always `token`: the final norm emits a constant vector that
    only `token`'s output row points along."""
    model = Transformer(TransformerConfig(**TINY, final_norm=True, tie_embeddings=False)).eval()
    with torch.no_grad():
        model.decoder.final_norm.weight.zero_()
        model.decoder.final_norm.bias.fill_(1.0)
        model.lm_head.weight.zero_()
        model.lm_head.weight[token] = 1.0
    return model


def test_greedy_decoding_stops_at_eos(batch):
    model = forced_model(TransformerConfig.eos_token_id)
    assert greedy_decode(model, batch[0], batch[2]).tolist() == [[2], [2], [2]]


def test_greedy_decoding_without_eos_stops_at_max_length(batch):
    assert greedy_decode(forced_model(7), batch[0], max_length=5).tolist() == [[7] * 5] * 3


def test_save_and_load_round_trip(tmp_path, batch):
    model = tiny_model()
    model = model.float()
    model.save_pretrained(tmp_path / "saved")
    assert sorted(path.name for path in (tmp_path / "saved").iterdir()) == ["config.json", "model.safetensors"]
    loaded = Transformer.from_pretrained(tmp_path / "saved")
    assert loaded.lm_head.weight is loaded.src_embeddings.token_embeddings.weight, "tying must survive loading"
    torch.testing.assert_close(loaded(*batch).logits, model(*batch).logits, atol=0, rtol=0)


def test_saving_twice_gives_the_same_bytes(tmp_path, batch):
    model = tiny_model().float()
    model.save_pretrained(tmp_path / "a")
    model.save_pretrained(tmp_path / "b")
    assert (tmp_path / "a" / "model.safetensors").read_bytes() == (tmp_path / "b" / "model.safetensors").read_bytes()


def test_weights_that_do_not_fit_the_config_are_a_clear_error(tmp_path):
    tiny_model().float().save_pretrained(tmp_path)
    config = (tmp_path / "config.json").read_text().replace('"num_decoder_layers": 2', '"num_decoder_layers": 3')
    (tmp_path / "config.json").write_text(config)
    with pytest.raises(ValueError, match=r"model.safetensors does not fit config.json: missing weights \['decoder.layers.2"):
        Transformer.from_pretrained(tmp_path)


def test_loading_from_an_empty_folder_says_what_to_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="run notebooks/07_training.ipynb"):
        Transformer.from_pretrained(tmp_path)


def test_greedy_decode_max_length_beyond_the_positions_names_max_length(batch):
    model = tiny_model()  # max_position_embeddings = 64
    with pytest.raises(ValueError, match=r"max_length \(65\) must be at most the model's max_position_embeddings \(64\)"):
        greedy_decode(model, batch[0], max_length=65)
    assert greedy_decode(forced_model(7), batch[0], max_length=64).shape == (3, 64)  # the limit itself works
    for bad in (0, -1, 2.5):
        with pytest.raises(ValueError, match=rf"max_length must be an integer >= 1, got {bad}"):
            greedy_decode(model, batch[0], max_length=bad)


@pytest.mark.parametrize("field", ["pad_token_id", "bos_token_id", "eos_token_id"])
@pytest.mark.parametrize("value", [40, -1, 1.0])
def test_special_token_ids_must_be_in_the_vocabulary(field, value):
    with pytest.raises(ValueError, match=rf"{field} must be a token id in \[0, vocab_size\) = \[0, 40\), got {value}"):
        TransformerConfig(**TINY, **{field: value})


@pytest.mark.parametrize("settings, message", [
    (dict(num_attention_heads=5), r"hidden_size \(32\) must be divisible by num_attention_heads \(5\)"),
    (dict(vocab_size=-5), "config field vocab_size must be an integer >= 1, got -5"),
    (dict(num_encoder_layers=-1), "config field num_encoder_layers must be an integer >= 0, got -1"),
    (dict(max_position_embeddings=0), "config field max_position_embeddings must be an integer >= 1, got 0"),
    (dict(hidden_act="tanh"), r"hidden_act must be one of \['gelu', 'gelu_new', 'relu'\], got 'tanh'"),
    (dict(hidden_dropout_prob=2.0), r"hidden_dropout_prob must be a finite number >= 0 and <= 1, got 2.0"),
    (dict(attention_probs_dropout_prob=math.nan), r"attention_probs_dropout_prob must be a finite number >= 0 and <= 1"),
    (dict(layer_norm_eps=0.0), r"layer_norm_eps must be a finite number > 0, got 0.0"),
    (dict(position_embedding="rotary"), r"position_embedding must be one of \['sinusoidal', 'learned'\], "
                                        r"got 'rotary': 'sinusoidal' for the paper's fixed sinusoids, 'learned'"),
])
def test_config_refuses_impossible_settings(settings, message):
    with pytest.raises(ValueError, match=message):
        TransformerConfig(**{**TINY, **settings})


def test_config_as_a_dict(batch):
    torch.manual_seed(0)
    from_dict = Transformer(dict(TINY)).double().eval()
    torch.testing.assert_close(from_dict(*batch).logits, tiny_model()(*batch).logits)
    with pytest.raises(ValueError, match=r"TransformerConfig has no field\(s\) \['num_layers'\]"):
        Transformer({**TINY, "num_layers": 2})
    with pytest.raises(TypeError, match="config must be an anatomy.TransformerConfig .*got SimpleNamespace"):
        from types import SimpleNamespace
        Transformer(SimpleNamespace(**TINY))


def test_generation_and_empty_targets_are_named(batch):
    model = tiny_model()
    with pytest.raises(ValueError, match=r"tgt_ids must be \(B, T\) with at least one token, got shape \(3, 0\)"):
        model(batch[0], batch[1][:, :0])
    with pytest.raises(TypeError, match="greedy_decode needs model to be an anatomy.Transformer .*got Linear"):
        greedy_decode(nn.Linear(2, 2), batch[0])
    with pytest.raises(ValueError, match=r"src_ids must be \(B, T\) with at least one token, got shape \(9,\)"):
        greedy_decode(model, batch[0][0])
    with pytest.raises(TypeError, match=r"src_mask must be a \(B, T\) tensor \(True = real token\), got list"):
        model(batch[0], batch[1], [[1] * 9] * 3)


def test_greedy_decode_refuses_nan_logits_and_an_all_padding_source(batch):
    model = tiny_model()
    with pytest.raises(ValueError, match=r"row\(s\) \[1\] of src_mask are all padding"):
        greedy_decode(model, batch[0], torch.stack([batch[2][0], torch.zeros_like(batch[2][1]), batch[2][2]]))
    with torch.no_grad():
        model.lm_head.weight[4] = float("nan")
    with pytest.raises(ValueError, match=r"logits hold NaN, \+inf, or only -inf in row\(s\) \[0, 1, 2\]"):
        greedy_decode(model, batch[0], batch[2], max_length=5)


def test_learned_positions_are_a_trained_table_added_to_the_scaled_tokens(batch):
    model = tiny_model(position_embedding="learned")
    table = model.src_embeddings.positions
    assert isinstance(table, nn.Parameter) and table.shape == (64, 32)
    assert model.tgt_embeddings is model.src_embeddings and "src_embeddings.positions" in model.state_dict()
    assert 0.6 < table.std().item() < 0.8  # about as large as a sinusoid's entries (RMS 1/sqrt(2))
    src = batch[0]
    expected = model.src_embeddings.token_embeddings(src) * 32 ** 0.5 + table[: src.size(1)]  # by hand
    torch.testing.assert_close(model.src_embeddings(src), expected)
    before = model(*batch).logits
    with torch.no_grad():
        table[2] += 1.0  # a position row the batch uses changes the logits
    assert not torch.allclose(model(*batch).logits, before)
    sinusoidal = tiny_model()
    assert "src_embeddings.positions" not in sinusoidal.state_dict()  # a fixed buffer, never saved
    torch.testing.assert_close(sinusoidal.src_embeddings.positions, sinusoidal_positions(64, 32).double())


def test_learned_positions_past_the_inputs_stay_as_initialised(batch):
    model = tiny_model(position_embedding="learned").train()
    table, start = model.src_embeddings.positions, model.src_embeddings.positions.detach().clone()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    model(*batch).logits.logsumexp(-1).mean().backward()
    optimizer.step()
    longest = max(batch[0].size(1), batch[1].size(1))  # 9 source positions
    assert not torch.equal(table[:longest], start[:longest])
    torch.testing.assert_close(table[longest:], start[longest:], rtol=0, atol=0)


def test_learned_positions_save_and_load(tmp_path, batch):
    model = tiny_model(position_embedding="learned")
    model.save_pretrained(tmp_path)
    reloaded = Transformer.from_pretrained(tmp_path).double()
    assert reloaded.config.position_embedding == "learned"
    torch.testing.assert_close(reloaded(*batch).logits, model(*batch).logits)


def test_past_the_table_sinusoids_go_on_and_learned_positions_end(batch):
    src, tgt = torch.randint(3, 40, (1, 70)), batch[1][:1]
    with pytest.raises(ValueError, match=r"src_ids has 70 tokens, more than max_position_embeddings \(64\); a learned "
                                         r"position table has no row past its last one"):
        tiny_model(position_embedding="learned")(src, tgt)
    sinusoidal = tiny_model()
    with pytest.raises(ValueError, match=r"src_ids has 70 tokens, more than max_position_embeddings \(64\); sinusoids "
                                         r"exist for every position: a config with a larger max_position_embeddings"):
        sinusoidal(src, tgt)
    longer = Transformer(TransformerConfig(**{**TINY, "max_position_embeddings": 128})).double().eval()
    longer.load_state_dict(sinusoidal.state_dict())  # the same weights: the sinusoids are not saved
    torch.testing.assert_close(longer(*batch).logits, sinusoidal(*batch).logits)
    assert longer(src, tgt).logits.shape == (1, tgt.size(1), 40)


def test_greedy_decode_names_model_when_it_is_none():
    # the message named the interface but not the argument
    with pytest.raises(TypeError, match="greedy_decode needs model to be an anatomy.Transformer.*got NoneType"):
        greedy_decode(None, torch.tensor([[1, 2]]))


@pytest.mark.parametrize("field, value", [("layer_norm_eps", float("nan")), ("layer_norm_eps", 0.0),
                                          ("hidden_dropout_prob", None), ("attention_probs_dropout_prob", 1.5)])
def test_config_refuses_an_epsilon_or_dropout_it_cannot_use(field, value):
    # a NaN layer_norm_eps built a model whose every output was NaN; a None dropout raised a bare comparison TypeError
    with pytest.raises(ValueError, match=field):
        TransformerConfig(vocab_size=20, hidden_size=16, num_attention_heads=2, **{field: value})
