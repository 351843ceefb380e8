"""llama_from_hf refuses every Llama variant our Llama does not compute, one test per field, each built
from a real transformers.LlamaConfig (tiny, random weights); what it accepts matches HF's logits."""
import pytest
import torch
import transformers
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, LlamaModel

from anatomy.weights.llama_weights import llama_from_hf

transformers.logging.set_verbosity_error()


def tiny(model_class=LlamaForCausalLM, **overrides):
    torch.manual_seed(0)
    settings = dict(vocab_size=60, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, max_position_embeddings=32, initializer_range=0.2, pad_token_id=0,
                    bos_token_id=1, eos_token_id=None, attn_implementation="eager")
    config = LlamaConfig(**(settings | overrides))
    return model_class(config).eval()


@pytest.mark.parametrize("overrides, refused", [
    ({"rope_scaling": {"rope_type": "linear", "factor": 2.0}}, r"rope_parameters=\{'rope_type': 'linear'"),
    ({"rope_parameters": {"rope_type": "dynamic", "factor": 2.0, "rope_theta": 10000.0}},
     r"rope_parameters=\{'rope_type': 'dynamic'.*our RoPE is unscaled"),
    ({"attention_bias": True}, r"attention_bias=True \(our q/k/v/o projections have no bias"),
    ({"mlp_bias": True}, r"mlp_bias=True \(our SwiGLU's projections have no bias"),
    ({"hidden_act": "gelu"}, r"hidden_act='gelu' \(our SwiGLU gates with SiLU; supported: 'silu'\)"),
    ({"head_dim": 16}, r"head_dim=16 \(our head width is hidden_size / num_attention_heads; supported: \(None, 8\)\)"),
])
def test_each_unsupported_field_is_refused_by_name_and_value(overrides, refused):
    with pytest.raises(ValueError, match=f"this Llama is not supported: {refused}"):
        llama_from_hf(tiny(**overrides))


def test_another_architecture_is_refused_by_its_model_type():
    gpt2 = GPT2LMHeadModel(GPT2Config(n_embd=32, n_head=4, n_layer=1, n_positions=16, vocab_size=50))
    with pytest.raises(ValueError, match=r"model_type='gpt2' \(llama_from_hf reads Llama checkpoints only"):
        llama_from_hf(gpt2)
    with pytest.raises(TypeError, match="llama_from_hf needs a transformers.LlamaForCausalLM, got str"):
        llama_from_hf("meta-llama/Llama-2-7b")


def test_missing_weights_are_named():
    with pytest.raises(ValueError, match=r"missing weights \['lm_head.weight', 'model.embed_tokens.weight'.*"
                                         r"unexpected weights \['embed_tokens.weight'.*pass a transformers.LlamaForCausalLM"):
        llama_from_hf(tiny(LlamaModel))


@pytest.mark.parametrize("overrides", [{"tie_word_embeddings": True}, {"rope_theta": 500.0}, {"rms_norm_eps": 1e-3},
                                       {"num_key_value_heads": 1}])
def test_what_is_accepted_computes_what_hugging_face_computes(overrides):
    hf = tiny(**overrides)
    ids = torch.randint(0, 60, (2, 9), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        assert (llama_from_hf(hf)(ids).logits - hf(ids).logits).abs().max() < 1e-5
