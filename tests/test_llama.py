"""Our Llama against Hugging Face's LlamaForCausalLM (random weights, tiny config with 2 key-value heads)."""
import pytest
import torch
import transformers
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.models.llama.modeling_llama import LlamaMLP, LlamaRMSNorm

from anatomy.models.decoder_inputs import positions_from_padding
from anatomy.weights.llama_weights import llama_from_hf
from anatomy.layers.rmsnorm import RMSNorm
from anatomy.layers.swiglu import SwiGLU
from anatomy.generation.text_generation import generate

transformers.logging.set_verbosity_error()


def hf_llama(seed=0, std=0.2):
    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=60, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                         initializer_range=std, pad_token_id=0, bos_token_id=1, eos_token_id=None,
                         attn_implementation="eager")
    return LlamaForCausalLM(config).eval()


def left_padded(seed=1):
    ids = torch.randint(1, 60, (3, 10), generator=torch.Generator().manual_seed(seed))
    mask = torch.ones(3, 10, dtype=torch.long)
    mask[1, :4] = 0
    mask[2, :7] = 0
    return ids * mask, mask


def test_rmsnorm_and_swiglu_match_hugging_face():
    torch.manual_seed(0)
    x = torch.randn(2, 5, 32)
    theirs_norm, ours_norm = LlamaRMSNorm(32, eps=1e-6), RMSNorm(32, eps=1e-6)
    torch.nn.init.normal_(theirs_norm.weight)
    ours_norm.load_state_dict(theirs_norm.state_dict())
    torch.testing.assert_close(ours_norm(x), theirs_norm(x))
    config = LlamaConfig(hidden_size=32, intermediate_size=64, hidden_act="silu")
    theirs_mlp, ours_mlp = LlamaMLP(config), SwiGLU(32, 64)
    ours_mlp.load_state_dict(theirs_mlp.state_dict())
    torch.testing.assert_close(ours_mlp(x), theirs_mlp(x))


@pytest.mark.parametrize("seed", [0, 1])
def test_logits_match_llama_on_a_padded_batch(seed):
    hf = hf_llama(seed)
    ids, mask = left_padded(seed)
    with torch.no_grad():
        theirs = hf(ids, attention_mask=mask, position_ids=positions_from_padding(mask)).logits
        ours = llama_from_hf(hf)(ids, mask).logits
    assert (ours - theirs)[mask.bool()].abs().max() < 1e-5


def test_cached_greedy_generation_matches_llama_generate():
    hf = hf_llama(2)
    ids, mask = left_padded(3)
    theirs = hf.generate(ids, attention_mask=mask, max_new_tokens=50, do_sample=False, pad_token_id=0)
    ours = generate(llama_from_hf(hf), ids, mask, max_new_tokens=50, use_cache=True)
    assert torch.equal(ours, theirs)
    assert torch.equal(ours, generate(llama_from_hf(hf), ids, mask, max_new_tokens=50, use_cache=False))
    assert len(set(ours[:, 10:].flatten().tolist())) > 5


@pytest.mark.parametrize("overrides, message", [
    ({"rms_norm_eps": 0.0}, "rms_norm_eps must be a finite number > 0, got 0.0"),
    ({"rope_theta": -1.0}, "rope_theta must be a finite number > 0, got -1.0"),
    ({"num_key_value_heads": 3}, r"num_key_value_heads \(3\) must divide num_attention_heads \(4\)"),
    ({"hidden_size": 12}, r"the head width hidden_size / num_attention_heads = 12 / 4 must be even"),
    ({"num_hidden_layers": 1.5}, "config field num_hidden_layers must be an integer >= 0, got 1.5"),
])
def test_a_config_out_of_range_is_refused_where_it_is_made(overrides, message):
    from anatomy.models.llama import LlamaConfig as OurLlamaConfig

    settings = dict(vocab_size=60, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
                    num_key_value_heads=2, max_position_embeddings=16)
    with pytest.raises(ValueError, match=message):
        OurLlamaConfig(**(settings | overrides))


def test_rmsnorm_and_swiglu_refuse_bad_settings_and_inputs():
    with pytest.raises(ValueError, match=r"eps must be a finite number > 0, got 0 \(it keeps x / rms\(x\) finite"):
        RMSNorm(8, eps=0)
    with pytest.raises(ValueError, match="hidden_size must be an integer >= 1, got 8.0"):
        RMSNorm(8.0)
    with pytest.raises(ValueError, match=r"x must be a floating-point \(\.\.\., 8\) tensor, got shape \(2, 4\)"):
        RMSNorm(8)(torch.zeros(2, 4))
    with pytest.raises(ValueError, match="intermediate_size must be an integer >= 1, got 0"):
        SwiGLU(8, 0)
    with pytest.raises(ValueError, match=r"x must be a floating-point \(\.\.\., 8\) tensor, got shape \(2, 5, 6\)"):
        SwiGLU(8, 16)(torch.zeros(2, 5, 6))


def test_generation_past_the_llama_window_is_named():
    model = llama_from_hf(hf_llama())  # 128 positions
    with pytest.raises(ValueError, match=r"the prompt \(10 tokens\) \+ max_new_tokens \(119\) exceed the context window \(128"):
        generate(model, torch.ones(1, 10, dtype=torch.long), max_new_tokens=119)


@pytest.mark.parametrize("config", [None, LlamaConfig(vocab_size=20, hidden_size=16, intermediate_size=32,
                                                      num_hidden_layers=1, num_attention_heads=2)])
def test_llama_and_its_block_name_a_config_that_is_not_ours(config):
    # None raised AttributeError: 'NoneType' object has no attribute 'vocab_size' (found by the sweep, #37);
    # Hugging Face's LlamaConfig has other field names (rope_parameters): convert it with llama_from_hf
    from anatomy.models.llama import Llama, LlamaBlock

    for model_class in (Llama, LlamaBlock):
        with pytest.raises(TypeError, match=f"config must be LlamaConfig, got {type(config).__name__}"):
            model_class(config)
