"""The BERT loaders (TransformerEncoder / TransformerForSequenceClassification.from_pretrained) refuse a
checkpoint whose config our encoder does not compute, built from a real transformers.BertConfig."""
import pytest
import torch
from transformers import BertConfig, BertModel

from anatomy import TransformerEncoder, TransformerForSequenceClassification


def saved_bert(folder, **overrides):
    torch.manual_seed(0)
    settings = dict(vocab_size=40, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                    max_position_embeddings=16)
    BertModel(BertConfig(**(settings | overrides))).save_pretrained(folder)
    return folder


@pytest.mark.parametrize("overrides, refused", [
    ({"is_decoder": True}, r"is_decoder=True \(our encoder lets every token attend both ways"),
    ({"add_cross_attention": True, "is_decoder": True},  # HF builds cross-attention only into a decoder
     r"is_decoder=True .*; add_cross_attention=True \(our encoder layers have no cross-attention"),
    ({"hidden_act": "silu"}, r"hidden_act='silu' \(the activations our feed-forward implements"),
    ({"position_embedding_type": "relative_key"}, r"position_embedding_type='relative_key' \(our embeddings add one"),
])
def test_each_unsupported_field_is_refused_by_name_and_value(tmp_path, overrides, refused):
    folder = saved_bert(tmp_path, **overrides)
    for load in (TransformerEncoder.from_pretrained, TransformerForSequenceClassification.from_pretrained):
        with pytest.raises(ValueError, match=f"this BERT checkpoint is not supported: {refused}"):
            load(str(folder))


def test_a_supported_checkpoint_loads_and_matches(tmp_path):
    folder = saved_bert(tmp_path)
    ids = torch.randint(0, 40, (2, 7), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ours = TransformerEncoder.from_pretrained(str(folder))(ids).last_hidden_state
        theirs = BertModel.from_pretrained(folder).eval()(ids).last_hidden_state
    assert (ours - theirs).abs().max() < 1e-5
