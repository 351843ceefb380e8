from types import SimpleNamespace

import pytest
import torch
from transformers import BertConfig, BertModel

import anatomy
from anatomy import (FeedForward, PerHeadMultiHeadAttention, TransformerEncoder, TransformerEncoderLayer,
                     TransformerForSequenceClassification)
from anatomy.weights.bert_weights import copy_weights, encoder_name_map, read_state_dict

TINY = SimpleNamespace(vocab_size=50, hidden_size=16, num_attention_heads=4, num_hidden_layers=2,
                       intermediate_size=32, max_position_embeddings=32, type_vocab_size=2,
                       hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, num_labels=3)


@pytest.fixture(scope="module")
def encoder():
    return TransformerEncoder.from_pretrained()


@pytest.fixture(scope="module")
def unseen_batch(pretrained):
    """Sentences the notebook never uses, of different lengths, padded, with a sentence pair."""
    tokenizer, _ = pretrained
    sentences = anatomy.stdlib_sentences(400)[-6:]
    return tokenizer(sentences[:3], sentences[3:], padding=True, truncation=True, max_length=96,
                     return_tensors="pt")


def max_differences(ours, theirs, batch):
    real = batch.attention_mask.bool()
    hidden = (ours.last_hidden_state - theirs.last_hidden_state)[real].abs().max().item()
    attention = [(a - b).abs().max().item() for a, b in zip(ours.attentions, theirs.attentions)]
    return hidden, attention


def test_reproduces_bert_on_unseen_padded_sentences(encoder, pretrained, unseen_batch):
    _, model = pretrained
    assert unseen_batch.attention_mask.min() == 0, "the batch must contain padding"
    with torch.no_grad():
        ours = encoder(**unseen_batch, output_attentions=True)
        theirs = model(**unseen_batch, output_attentions=True)
        fast = encoder(**unseen_batch)
    hidden, attention = max_differences(ours, theirs, unseen_batch)
    assert hidden < 1e-5 and max(attention) < 1e-5, (hidden, attention)
    assert len(attention) == 6
    real = unseen_batch.attention_mask.bool()
    torch.testing.assert_close(fast.last_hidden_state[real], theirs.last_hidden_state[real], atol=1e-5, rtol=0)
    assert fast.attentions is None


def break_layer_norm(model):  # swap the two norms of layer 3
    layer = model.layers[3]
    layer.layer_norm_1, layer.layer_norm_2 = layer.layer_norm_2, layer.layer_norm_1


def break_transpose(model):  # copy one projection transposed
    with torch.no_grad():
        model.layers[5].self_attn.q_proj.weight.copy_(model.layers[5].self_attn.q_proj.weight.T.clone())


@pytest.mark.parametrize("breakage", [break_layer_norm, break_transpose])
def test_the_comparison_catches_one_broken_piece(pretrained, unseen_batch, breakage):
    _, model = pretrained
    broken = TransformerEncoder.from_pretrained()
    breakage(broken)
    with torch.no_grad():
        hidden, _ = max_differences(broken(**unseen_batch, output_attentions=True),
                                    model(**unseen_batch, output_attentions=True), unseen_batch)
    assert hidden > 1e-2


def test_per_head_attention_loads_the_pretrained_slices(encoder, pretrained, unseen_batch):
    fused = encoder.layers[0].self_attn
    per_head = PerHeadMultiHeadAttention(encoder.config).load_fused(fused).eval()
    with torch.no_grad():
        x = encoder.embeddings(unseen_batch.input_ids, unseen_batch.token_type_ids)
        mask = anatomy.padding_mask(unseen_batch.attention_mask)
        torch.testing.assert_close(per_head(x, mask=mask)[0], fused(x, mask=mask)[0], atol=1e-5, rtol=1e-5)


def test_random_init_parameter_count_matches_bert_base():
    config = BertConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                        intermediate_size=3072, max_position_embeddings=512, type_vocab_size=2)
    with torch.device("meta"):
        ours = sum(p.numel() for p in TransformerEncoder(config).parameters())
        theirs = sum(p.numel() for p in BertModel(config, add_pooling_layer=False).parameters())
    assert ours == theirs == 108_891_648  # bert-base without its pooler (109,482,240 with it)


def test_feed_forward_is_position_wise():
    torch.manual_seed(0)
    ff = FeedForward(TINY).eval()
    x = torch.randn(2, 5, 16)
    per_token = torch.stack([ff(x[:, t]) for t in range(5)], dim=1)
    torch.testing.assert_close(ff(x), per_token)


def test_unknown_activation():
    with pytest.raises(ValueError, match="hidden_act 'swish' is not one of"):
        FeedForward(SimpleNamespace(**{**vars(TINY), "hidden_act": "swish"}))


@pytest.mark.parametrize("norm_first", [False, True])
def test_layer_is_permutation_equivariant(norm_first):
    torch.manual_seed(0)
    layer = TransformerEncoderLayer(TINY, norm_first=norm_first).eval()
    x, permutation = torch.randn(1, 6, 16), torch.randperm(6)
    with torch.no_grad():
        torch.testing.assert_close(layer(x[:, permutation])[0], layer(x)[0][:, permutation])


def test_pre_and_post_ln_differ_and_pre_ln_has_a_final_norm():
    torch.manual_seed(0)
    post, pre = TransformerEncoder(TINY).eval(), TransformerEncoder(TINY, norm_first=True).eval()
    pre.load_state_dict(post.state_dict(), strict=False)
    ids = torch.randint(0, 50, (2, 7))
    assert not torch.allclose(post(ids).last_hidden_state, pre(ids).last_hidden_state)
    assert isinstance(pre.final_norm, torch.nn.LayerNorm) and isinstance(post.final_norm, torch.nn.Identity)


def test_classifier_gives_num_labels_logits():
    model = TransformerForSequenceClassification(TINY).eval()
    logits = model(torch.randint(0, 50, (4, 9)), attention_mask=torch.ones(4, 9, dtype=torch.long))
    assert logits.shape == (4, 3)


def test_classifier_needs_num_labels():
    with pytest.raises(ValueError, match="num_labels"):
        TransformerForSequenceClassification(SimpleNamespace(**{k: v for k, v in vars(TINY).items()
                                                                if k != "num_labels"}))


def test_attention_mask_of_the_wrong_shape(encoder):
    with pytest.raises(ValueError, match=r"attention_mask shape \(1, 4\) must equal input_ids shape \(1, 5\)"):
        encoder(torch.ones(1, 5, dtype=torch.long), attention_mask=torch.ones(1, 4, dtype=torch.long))


def test_token_type_ids_outside_the_type_vocabulary(encoder):
    with pytest.raises(ValueError, match=r"token_type_ids must lie in \[0, 2\)"):
        encoder(torch.ones(1, 3, dtype=torch.long), token_type_ids=torch.tensor([[0, 1, 2]]))


def test_checkpoint_that_is_not_bert_like(tmp_path):
    from safetensors.torch import save_file

    state = {k: v for k, v in read_state_dict().items() if "layer.2." not in k}
    save_file(state, tmp_path / "model.safetensors")
    model = TransformerEncoder(anatomy.load_config())
    with pytest.raises(ValueError, match=r"not BERT-like: missing keys \['encoder.layer.2.attention.self.query"):
        copy_weights(model, read_state_dict(tmp_path), encoder_name_map(6))


def test_missing_config_field():
    with pytest.raises(ValueError, match=r"missing field\(s\) \['num_hidden_layers'\]"):
        TransformerEncoder(SimpleNamespace(**{k: v for k, v in vars(TINY).items() if k != "num_hidden_layers"}))


def test_encoder_layer_refuses_a_3d_mask_that_could_be_misread():
    layer = TransformerEncoderLayer(TINY).eval()  # 4 heads
    x = torch.randn(4, 5, 16)  # B == H == 4: a (B, T, T) mask would be read as (H, T, T)
    with pytest.raises(ValueError, match=r"mask has shape \(4, 5, 5\).*accepted mask shapes.*ambiguous"):
        layer(x, torch.ones(4, 5, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"got dtype torch.int64; .*padding_mask"):
        layer(x, torch.ones(4, 1, 1, 5, dtype=torch.long))


def test_encoder_from_a_dict_config_equals_the_namespace_one():
    torch.manual_seed(0)
    ours = TransformerEncoder(vars(TINY)).eval()
    torch.manual_seed(0)
    reference = TransformerEncoder(TINY).eval()
    ids = torch.randint(0, 50, (2, 6))
    torch.testing.assert_close(ours(ids).last_hidden_state, reference(ids).last_hidden_state)
    logits = TransformerForSequenceClassification(vars(TINY))(ids)
    assert logits.shape == (2, 3)


def test_feed_forward_and_encoder_name_bad_inputs():
    feed_forward = FeedForward(TINY)
    with pytest.raises(ValueError, match=r"x must be a floating-point \(\.\.\., 16\) tensor, got shape \(2, 5, 8\)"):
        feed_forward(torch.randn(2, 5, 8))
    with pytest.raises(ValueError, match=r"got shape \(2, 5, 16\), dtype torch.int64"):
        feed_forward(torch.ones(2, 5, 16, dtype=torch.long))
    encoder = TransformerEncoder(TINY)
    with pytest.raises(TypeError, match=r"attention_mask must be a \(B, T\) tensor of 1s and 0s, got list"):
        encoder(torch.ones(1, 3, dtype=torch.long), attention_mask=[[1, 1, 0]])
    with pytest.raises(ValueError, match=r"input_ids must be \(B, T\) with at least one token, got shape \(1, 0\)"):
        encoder(torch.ones(1, 0, dtype=torch.long))


def test_hugging_faces_argument_order_encoder_ids_mask(encoder, pretrained):
    tokenizer, model = pretrained
    batch = tokenizer(["A short one.", "A somewhat longer sentence than that."], padding=True, return_tensors="pt")
    with torch.no_grad():
        ours = encoder(batch.input_ids, batch.attention_mask).last_hidden_state
        theirs = model(batch.input_ids, batch.attention_mask).last_hidden_state
    real = batch.attention_mask.bool()
    assert (ours - theirs)[real].abs().max() < 1e-4
