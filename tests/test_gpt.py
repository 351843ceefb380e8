"""Our GPT against Hugging Face's GPT2LMHeadModel (random weights from a tiny GPT2Config): logits and greedy text."""
import pytest
import torch
import transformers
from transformers import GPT2Config, GPT2LMHeadModel

from anatomy.models.decoder_inputs import positions_from_padding
from anatomy.models.gpt import GPT, GPTConfig
from anatomy.weights.gpt2_weights import gpt_from_gpt2
from anatomy.generation.text_generation import generate

transformers.logging.set_verbosity_error()
V = 50


def hf_gpt2(seed=0, layers=2, positions=64, std=0.02):
    torch.manual_seed(seed)
    config = GPT2Config(n_embd=32, n_head=4, n_layer=layers, n_positions=positions, vocab_size=V,
                        bos_token_id=1, eos_token_id=None, pad_token_id=0, attn_implementation="eager",
                        initializer_range=std)
    return GPT2LMHeadModel(config).eval()


def padded_batch(seed=1, length=10):
    """Three prompts: full, left-padded by 4, right-padded by 3."""
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, V, (3, length), generator=generator)
    mask = torch.ones(3, length, dtype=torch.long)
    mask[1, :4] = 0
    mask[2, length - 3:] = 0
    return ids * mask, mask


def test_logits_match_gpt2_on_a_padded_batch():
    hf = hf_gpt2()
    ids, mask = padded_batch()
    with torch.no_grad():
        ours = gpt_from_gpt2(hf)(ids, mask).logits  # (B, T, V)
        theirs = hf(ids, attention_mask=mask, position_ids=positions_from_padding(mask)).logits
    real = mask.bool()
    assert (ours[real] - theirs[real]).abs().max() < 1e-5


def test_greedy_generation_matches_gpt2_generate_token_for_token():
    hf = hf_gpt2(seed=3, layers=3, positions=128, std=0.2)
    ids, mask = padded_batch(seed=4)
    mask[2] = 1  # generation needs left padding: the next token must go at the same column in every row
    mask[0, :2] = 0
    ids = ids * mask
    theirs = hf.generate(ids, attention_mask=mask, max_new_tokens=60, do_sample=False, pad_token_id=0)
    ours = generate(gpt_from_gpt2(hf), ids, mask, max_new_tokens=60)
    assert torch.equal(ours, theirs)
    assert len(set(ours[:, 10:].flatten().tolist())) > 5, "the continuation should not be one repeated token"


def test_left_padding_does_not_change_the_continuation():
    model = gpt_from_gpt2(hf_gpt2(seed=5, std=0.2))
    prompt = torch.randint(1, V, (1, 6), generator=torch.Generator().manual_seed(0))
    alone = generate(model, prompt, max_new_tokens=20)
    padded = torch.cat([torch.zeros(1, 3, dtype=torch.long), prompt], dim=1)
    mask = (padded != 0).long()
    assert torch.equal(generate(model, padded, mask, max_new_tokens=20)[:, 3:], alone)


def test_the_lm_head_is_the_token_embedding():
    model = GPT(GPTConfig(vocab_size=V, hidden_size=16, num_attention_heads=2, num_hidden_layers=1,
                          intermediate_size=32, max_position_embeddings=8))
    assert model.lm_head.weight is model.token_embeddings.weight


def test_save_and_load_round_trip(tmp_path):
    model = gpt_from_gpt2(hf_gpt2())
    model.save_pretrained(tmp_path)
    loaded = GPT.from_pretrained(tmp_path)
    ids = torch.randint(0, V, (2, 7))
    torch.testing.assert_close(loaded(ids).logits, model(ids).logits, rtol=0, atol=0)
    assert loaded.lm_head.weight is loaded.token_embeddings.weight


def test_bad_inputs_say_what_was_expected():
    model = gpt_from_gpt2(hf_gpt2(positions=16))
    with pytest.raises(ValueError, match="longer than the context window"):
        generate(model, torch.ones(1, 17, dtype=torch.long), max_new_tokens=1)
    with pytest.raises(ValueError, match="exceed the context window"):
        generate(model, torch.ones(1, 10, dtype=torch.long), max_new_tokens=7)
    with pytest.raises(ValueError, match="context window of 16"):
        model(torch.ones(1, 17, dtype=torch.long))
    with pytest.raises(ValueError, match=r"input_ids must be \(B, T\)"):
        model(torch.ones(17, dtype=torch.long))
    with pytest.raises(ValueError, match="attention_mask must be"):
        model(torch.ones(2, 5, dtype=torch.long), torch.ones(2, 4))


@pytest.mark.parametrize("overrides, message", [
    ({"hidden_size": 30}, r"hidden_size \(30\) must be divisible by num_attention_heads \(4\)"),
    ({"vocab_size": 0}, "config field vocab_size must be an integer >= 1, got 0"),
    ({"max_position_embeddings": 2.5}, "config field max_position_embeddings must be an integer >= 1, got 2.5"),
    ({"layer_norm_eps": 0.0}, "layer_norm_eps must be a finite number > 0, got 0.0"),
    ({"hidden_act": "swish"}, r"hidden_act must be one of \['gelu', 'gelu_new', 'relu'\], got 'swish'"),
    ({"hidden_dropout_prob": 1.5}, "hidden_dropout_prob must be a finite number >= 0 and <= 1, got 1.5"),
])
def test_a_config_out_of_range_is_refused_where_it_is_made(overrides, message):
    settings = dict(vocab_size=V, hidden_size=32, num_attention_heads=4, num_hidden_layers=1, intermediate_size=64,
                    max_position_embeddings=16)
    with pytest.raises(ValueError, match=message):
        GPTConfig(**(settings | overrides))


@pytest.mark.parametrize("config", [None, {"vocab_size": 20}])
def test_gpt_names_a_config_that_is_no_gpt_config(config):
    # None raised AttributeError: 'NoneType' object has no attribute 'vocab_size' (found by the sweep, #37)
    with pytest.raises(TypeError, match=f"config must be GPTConfig, got {type(config).__name__}"):
        GPT(config)
