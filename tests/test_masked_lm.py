"""Our masked-LM head against Hugging Face's BertForMaskedLM (random weights from a tiny BertConfig, no hub):
logits and loss on copied weights, both directions of saving; the tied decoder; the bundled MiniLM."""
import json

import pytest
import torch
import transformers
from torch import nn
from transformers import BertConfig, BertForMaskedLM

from anatomy.models.encoder import TransformerEncoder
from anatomy.models.masked_lm import MLM_HEAD, MaskedLMHead, TransformerForMaskedLM, bert_init_
from anatomy.models.mlm_masking import mask_tokens

transformers.logging.set_verbosity_error()
V = 60


def tiny_config():
    return BertConfig(vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                      max_position_embeddings=40, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                      attn_implementation="eager")


def hf_model(seed=0):
    """BertForMaskedLM with every parameter random (biases and LayerNorms too, so that none is trivially 0 or 1)."""
    torch.manual_seed(seed)
    model = BertForMaskedLM(tiny_config()).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.normal_(0, 0.3)
    return model


def masked_batch(seed=1):
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, V, (3, 12), generator=generator)
    ids[:, 0], ids[:, -1] = 1, 2  # [CLS] ... [SEP]
    attention_mask = torch.ones_like(ids)
    attention_mask[1, 8:] = 0
    ids[1, 8:] = 0  # padding
    inputs, labels = mask_tokens(ids, 3, V, {0, 1, 2, 3}, generator, mlm_probability=0.3)
    return inputs, attention_mask, labels


def compare(ours, theirs):
    inputs, attention_mask, labels = masked_batch()
    with torch.no_grad():
        mine = ours(inputs, attention_mask, labels=labels)
        hf = theirs(input_ids=inputs, attention_mask=attention_mask, labels=labels)
    real = attention_mask.bool()
    torch.testing.assert_close(mine.logits[real], hf.logits[real], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(mine.loss, hf.loss, atol=1e-5, rtol=1e-5)


def test_hugging_face_checkpoint_loads_into_ours(tmp_path):
    theirs = hf_model()
    theirs.save_pretrained(tmp_path)
    ours = TransformerForMaskedLM.from_pretrained(tmp_path)
    assert ours.missing_keys == []
    compare(ours, theirs)


def test_our_checkpoint_loads_into_hugging_face(tmp_path):
    ours = TransformerForMaskedLM(tiny_config())
    with torch.no_grad():
        for parameter in ours.parameters():
            parameter.normal_(0, 0.3)
    ours.eval().save_pretrained(tmp_path)
    theirs, info = BertForMaskedLM.from_pretrained(tmp_path, output_loading_info=True, attn_implementation="eager")
    assert not info["missing_keys"] and not info["unexpected_keys"], info
    compare(ours, theirs.eval())


def test_decoder_is_tied_to_the_word_embeddings():
    model = TransformerForMaskedLM(tiny_config()).eval()
    embedding = model.encoder.embeddings.token_embeddings.weight
    assert model.head.decoder_weight is embedding
    assert sum(p.numel() for p in model.parameters()) == sum(p.numel() for p in model.encoder.parameters()) \
        + sum(p.numel() for name, p in model.head.named_parameters())  # no second (V, D) matrix
    hidden = torch.randn(1, 1, 32)
    before = model.head(hidden)
    with torch.no_grad():
        embedding[7] += torch.randn(32)  # changing the embedding changes the decoder's row 7, and only that logit
    after = model.head(hidden)
    assert not torch.allclose(before[..., 7], after[..., 7])
    torch.testing.assert_close(before[..., :7], after[..., :7])
    inputs, attention_mask, labels = masked_batch()
    model(inputs, attention_mask, labels=labels).loss.backward()
    assert embedding.grad is not None and embedding.grad[labels[labels >= 0]].abs().sum() > 0


def test_bert_initialisation():
    model = TransformerForMaskedLM(tiny_config())
    assert 0.015 < model.encoder.embeddings.token_embeddings.weight.std() < 0.025
    assert model.head.bias.abs().sum() == 0 and model.head.layer_norm.weight.eq(1).all()


def test_minilm_ships_no_masked_lm_head():
    with pytest.raises(ValueError, match=r"no masked-LM head: missing .*cls\.predictions\.bias.*allow_missing_head=True"):
        TransformerForMaskedLM.from_pretrained()
    model = TransformerForMaskedLM.from_pretrained(allow_missing_head=True)
    assert model.missing_keys == sorted(MLM_HEAD.values())
    encoder = TransformerEncoder.from_pretrained()
    for (name, ours), (_, theirs) in zip(model.encoder.state_dict().items(), encoder.state_dict().items()):
        assert torch.equal(ours, theirs), name


def test_labels_must_fit():
    model = TransformerForMaskedLM(tiny_config())
    ids = torch.tensor([[1, 7, 2]])
    with pytest.raises(ValueError, match="labels are all -100"):
        model(ids, labels=torch.full_like(ids, -100))
    with pytest.raises(ValueError, match=r"labels must have input_ids' shape \(1, 3\)"):
        model(ids, labels=torch.tensor([7]))


def test_an_untied_decoder_is_refused_naming_the_field(tmp_path):
    """HF's BertForMaskedLM with tie_word_embeddings=False keeps a decoder of its own: its logits are not
    what our tied head computes, so the loader refuses it instead of dropping that matrix."""
    torch.manual_seed(0)
    config = tiny_config()
    config.tie_word_embeddings = False
    theirs = BertForMaskedLM(config).eval()
    with torch.no_grad():
        theirs.cls.predictions.decoder.weight.normal_(0, 0.3)
    theirs.save_pretrained(tmp_path)
    with pytest.raises(ValueError, match=r"tie_word_embeddings=False \(our MaskedLMHead decodes with the word-embedding"):
        TransformerForMaskedLM.from_pretrained(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    del config["tie_word_embeddings"]  # the same weights, the field gone: the decoder itself gives it away
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=r"cls.predictions.decoder.weight is not its word-embedding matrix"):
        TransformerForMaskedLM.from_pretrained(tmp_path)


@pytest.mark.parametrize("token_types", [True, False])
def test_a_dict_config_saves_and_loads(tmp_path, token_types):
    """A plain dict config, with or without type_vocab_size (without: no token-type embedding; saved as BERT's
    one type with a zero vector, which adds nothing)."""
    fields = {k: v for k, v in tiny_config().to_dict().items() if token_types or k != "type_vocab_size"}
    ours = TransformerForMaskedLM(fields).eval()
    with torch.no_grad():
        for parameter in ours.parameters():
            parameter.normal_(0, 0.3)
    ours.save_pretrained(tmp_path)
    compare(ours, BertForMaskedLM.from_pretrained(tmp_path, attn_implementation="eager").eval())


@pytest.mark.parametrize("labels, message", [
    (torch.tensor([[1.0, 7.0, 2.0]]), r"labels must be an integer tensor of token ids, got a torch.float32 tensor"),
    (torch.tensor([[-100, 60, -100]]), r"labels must hold ids in \[0, 59\] \(vocab_size 60\) or \[-100\], got \[60\]"),
    (torch.tensor([[-100, -1, -100]]), r"labels must hold ids in \[0, 59\].*got \[-1\]"),
    ([[1, 7, 2]], r"labels must have input_ids' shape \(1, 3\).*got list"),
])
def test_labels_of_the_wrong_dtype_or_range_are_refused(labels, message):
    with pytest.raises(ValueError, match=message):
        TransformerForMaskedLM(tiny_config())(torch.tensor([[1, 7, 2]]), labels=labels)


@pytest.mark.parametrize("embedding, got", [(nn.Embedding(V, 16), r"\(60, 16\)"), (nn.Embedding(V + 1, 32), r"\(61, 32\)"),
                                            (nn.Linear(32, V), "Linear")])
def test_the_tied_matrix_must_be_vocab_by_width(embedding, got):
    with pytest.raises(ValueError, match=rf"word_embeddings must be an nn.Embedding of shape .* = \(60, 32\).*got {got}"):
        MaskedLMHead(tiny_config(), embedding)


@pytest.mark.parametrize("std", [float("nan"), float("inf"), 0, -0.02, None])
def test_bert_init_refuses_a_std_that_is_not_positive(std):
    with pytest.raises(ValueError, match=r"std must be a finite number > 0, got"):
        bert_init_(nn.Linear(2, 2), std)
