"""gpt_from_gpt2 refuses every GPT-2 variant our GPT does not compute, one test per field, each built
from a real transformers.GPT2Config (tiny, random weights); what it accepts matches HF's logits."""
import pytest
import torch
import transformers
from transformers import GPT2Config, GPT2DoubleHeadsModel, GPT2LMHeadModel, GPT2Model, LlamaConfig, LlamaForCausalLM

from anatomy.weights.gpt2_weights import gpt_from_gpt2

transformers.logging.set_verbosity_error()


def tiny(model_class=GPT2LMHeadModel, **overrides):
    torch.manual_seed(0)
    config = GPT2Config(n_embd=32, n_head=4, n_layer=2, n_positions=16, vocab_size=50, bos_token_id=1,
                        eos_token_id=2, initializer_range=0.2, attn_implementation="eager", **overrides)
    return model_class(config).eval()


@pytest.mark.parametrize("overrides, refused", [
    ({"scale_attn_weights": False}, r"scale_attn_weights=False \(our attention always divides the scores by √Dh"),
    ({"scale_attn_by_inverse_layer_idx": True}, r"scale_attn_by_inverse_layer_idx=True \(our layers never divide"),
    ({"tie_word_embeddings": False}, r"tie_word_embeddings=False \(our lm_head is tied to the token embedding"),
    ({"add_cross_attention": True}, r"add_cross_attention=True \(our GPT is decoder-only"),
    ({"activation_function": "silu"}, r"activation_function='silu' \(the activations our feed-forward implements; "
                                      r"supported: \('gelu', 'gelu_new', 'relu'\)\)"),
])
def test_each_unsupported_field_is_refused_by_name_and_value(overrides, refused):
    with pytest.raises(ValueError, match=f"this GPT-2 is not supported: {refused}"):
        gpt_from_gpt2(tiny(**overrides))


def test_another_architecture_is_refused_by_its_model_type():
    llama = LlamaForCausalLM(LlamaConfig(vocab_size=50, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                         num_attention_heads=4, max_position_embeddings=16))
    with pytest.raises(ValueError, match=r"model_type='llama' \(gpt_from_gpt2 reads GPT-2 checkpoints only"):
        gpt_from_gpt2(llama)
    with pytest.raises(TypeError, match="gpt_from_gpt2 needs a transformers.GPT2LMHeadModel, got dict"):
        gpt_from_gpt2({})


def test_missing_and_unexpected_weights_are_named():
    with pytest.raises(ValueError, match=r"missing weights \['lm_head.weight', 'transformer.h.0.attn.c_attn.bias'.*"
                                         r"unexpected weights \['h.0.attn.c_attn.bias'.*pass a transformers.GPT2LMHeadModel"):
        gpt_from_gpt2(tiny(GPT2Model))  # no LM head, no 'transformer.' prefix
    with pytest.raises(ValueError, match=r"unexpected weights \['multiple_choice_head.summary.bias', "
                                         r"'multiple_choice_head.summary.weight'\]"):
        gpt_from_gpt2(tiny(GPT2DoubleHeadsModel))  # a head our GPT has no place for


def test_an_lm_head_that_is_not_the_embedding_is_refused():
    hf = tiny()
    hf.lm_head.weight = torch.nn.Parameter(hf.lm_head.weight.detach() + 0.1)  # the config still says tied
    with pytest.raises(ValueError, match="lm_head.weight differs from transformer.wte.weight: an untied LM head"):
        gpt_from_gpt2(hf)


@pytest.mark.parametrize("overrides", [{"reorder_and_upcast_attn": True}, {"activation_function": "relu"},
                                       {"n_inner": 48}, {"layer_norm_epsilon": 1e-3}])
def test_what_is_accepted_computes_what_hugging_face_computes(overrides):
    """reorder_and_upcast_attn only changes float16 rounding (it upcasts to float32): in float32 it is ours."""
    hf = tiny(**overrides)
    ids = torch.randint(0, 50, (2, 9), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        assert (gpt_from_gpt2(hf)(ids).logits - hf(ids).logits).abs().max() < 1e-5
