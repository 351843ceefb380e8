import pytest
import torch
from transformers import BertForSequenceClassification

import anatomy
from anatomy import TransformerForSequenceClassification
from anatomy.weights.bert_weights import encoder_name_map
from anatomy.models.classifier import POOLER
from anatomy.tasks.sentiment import classification_loss


@pytest.fixture(scope="module")
def twins(pretrained):
    """Our classifier and HF's BertForSequenceClassification holding the same weights, dropout off."""
    theirs = BertForSequenceClassification.from_pretrained(anatomy.default_model_dir(), num_labels=2,
                                                           hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                                                           attn_implementation="eager")
    ours = TransformerForSequenceClassification(theirs.config)
    names = {f"encoder.{k}": f"bert.{v}" for k, v in encoder_name_map(ours.config.num_hidden_layers).items()}
    names |= {k: f"bert.{v}" for k, v in POOLER.items()}
    names |= {"classifier.weight": "classifier.weight", "classifier.bias": "classifier.bias"}
    torch.manual_seed(0)
    torch.nn.init.normal_(theirs.classifier.weight, std=0.02)
    their_params = dict(theirs.named_parameters())
    with torch.no_grad():
        for mine, param in ours.named_parameters():
            param.copy_(their_params[names[mine]])
    assert set(names) == {name for name, _ in ours.named_parameters()}
    return ours, theirs, names


def test_one_training_step_matches_hf_bert_for_sequence_classification(twins, pretrained):
    ours, theirs, names = twins
    tokenizer, _ = pretrained
    sentences = anatomy.stdlib_sentences(300)[-4:]
    batch = tokenizer(sentences, padding=True, truncation=True, max_length=40, return_tensors="pt")
    assert batch.attention_mask.min() == 0, "the batch must contain padding"
    labels = torch.tensor([0, 1, 1, 0])
    ours.train(), theirs.train()
    our_loss = classification_loss(ours(batch.input_ids, batch.attention_mask, batch.token_type_ids), labels)
    their_loss = theirs(**batch, labels=labels).loss
    our_loss.backward(), their_loss.backward()
    torch.testing.assert_close(our_loss, their_loss, atol=1e-5, rtol=0)
    their_params = dict(theirs.named_parameters())
    worst = max((p.grad - their_params[names[n]].grad).abs().max().item() for n, p in ours.named_parameters())
    assert worst < 1e-5, f"largest gradient difference {worst:.2e}"
    assert ours.classifier.weight.grad.abs().max() > 1e-3, "the step must produce real gradients"
    print(f"loss |Δ| {(our_loss - their_loss).abs().item():.1e}, largest gradient |Δ| {worst:.1e}")


def test_from_pretrained_loads_the_pooler():
    model = TransformerForSequenceClassification.from_pretrained(num_labels=3)
    state = anatomy.read_state_dict()
    torch.testing.assert_close(model.pooler.weight, state["pooler.dense.weight"], atol=0, rtol=0)
    assert model.classifier.out_features == 3 and not model.training


def test_text_longer_than_the_positions_without_truncation(pretrained):
    tokenizer, _ = pretrained
    model = TransformerForSequenceClassification.from_pretrained()
    ids = tokenizer(" ".join(["word"] * 600), return_tensors="pt").input_ids
    with pytest.raises(ValueError, match=r"more than max_position_embeddings \(512\); truncate it"):
        model(ids)


def test_hugging_faces_argument_order_model_ids_mask(twins, pretrained):
    """model(ids, mask) reads the 0/1 mask as a mask, as BertForSequenceClassification(ids, mask) does,
    never as token_type_ids (which would also be valid 0s and 1s: a silent wrong answer)."""
    ours, theirs, _ = twins
    batch = pretrained[0](["A fine film.", "Dull, dull, dull and far too long."], padding=True, return_tensors="pt")
    ours.eval(), theirs.eval()
    with torch.no_grad():
        positional = ours(batch.input_ids, batch.attention_mask)
        torch.testing.assert_close(positional, ours(batch.input_ids, attention_mask=batch.attention_mask))
        torch.testing.assert_close(positional, theirs(batch.input_ids, batch.attention_mask).logits, atol=1e-5, rtol=0)
