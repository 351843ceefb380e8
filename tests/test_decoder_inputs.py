"""One forward call of a decoder-only model (our GPT and Llama) is checked before it runs: ids, mask,
positions, the context window and the cache. A reused cache must never attend to another prompt."""
import pytest
import torch

from anatomy.models.decoder_inputs import positions_from_padding
from anatomy.models.gpt import GPT, GPTConfig
from anatomy.models.llama import Llama, LlamaConfig


def tiny_gpt(positions=16, layers=2):
    torch.manual_seed(0)
    return GPT(GPTConfig(vocab_size=30, hidden_size=16, num_attention_heads=2, num_hidden_layers=layers,
                         intermediate_size=32, max_position_embeddings=positions)).eval()


def tiny_llama(positions=16, kv_heads=1):
    torch.manual_seed(0)
    return Llama(LlamaConfig(vocab_size=30, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                             num_attention_heads=2, num_key_value_heads=kv_heads,
                             max_position_embeddings=positions)).eval()


MODELS = [tiny_gpt, tiny_llama]


@pytest.mark.parametrize("make", MODELS)
def test_past_the_context_window(make):
    model = make(positions=16)
    with pytest.raises(ValueError, match=r"0 cached \+ 40 new tokens do not fit the context window of 16"):
        model(torch.ones(1, 40, dtype=torch.long))
    cache = model.new_cache()
    model(torch.ones(1, 10, dtype=torch.long), cache=cache)
    with pytest.raises(ValueError, match=r"10 cached \+ 7 new tokens do not fit the context window of 16"):
        model(torch.ones(1, 7, dtype=torch.long), torch.ones(1, 17, dtype=torch.long), cache=cache)


@pytest.mark.parametrize("make", MODELS)
def test_explicit_positions_are_checked(make):
    model, ids = make(positions=16), torch.ones(2, 4, dtype=torch.long)
    with pytest.raises(ValueError, match=r"position_ids must lie in \[0, 16\) \(max_position_embeddings\), got values "
                                         r"from 20 to 23"):
        model(ids, position_ids=torch.arange(20, 24))
    with pytest.raises(ValueError, match=r"position_ids must be an integer tensor \(B, T\) = \(2, 4\) or \(T,\), got \(3,\)"):
        model(ids, position_ids=torch.arange(3))
    with pytest.raises(ValueError, match=r"position_ids must be an integer tensor .*got \(4,\) torch.float32"):
        model(ids, position_ids=torch.arange(4.0))
    torch.testing.assert_close(model(ids, position_ids=torch.arange(4)).logits, model(ids).logits)


@pytest.mark.parametrize("make", MODELS)
def test_ids_and_masks_are_checked(make):
    model = make()
    with pytest.raises(ValueError, match=r"input_ids must be \(B, T\) .*got shape \(5,\); for one sequence pass "
                                         r"input_ids\[None\]"):
        model(torch.ones(5, dtype=torch.long))
    with pytest.raises(ValueError, match=r"input_ids must lie in \[0, 30\), got values from 1 to 30"):
        model(torch.tensor([[1, 30]]))
    with pytest.raises(ValueError, match=r"attention_mask must be a \(B, cached \+ new tokens\) = \(1, 3\) tensor"):
        model(torch.ones(1, 3, dtype=torch.long), torch.ones(1, 2))
    with pytest.raises(ValueError, match=r"attention_mask must hold only 1s \(real tokens\) and 0s"):
        model(torch.ones(1, 3, dtype=torch.long), torch.tensor([[0, 1, 2]]))


@pytest.mark.parametrize("make", MODELS)
def test_a_cache_holding_a_text_refuses_a_new_prompt(make):
    model, generator = make(), torch.Generator().manual_seed(1)
    first, second = torch.randint(1, 30, (1, 5), generator=generator), torch.randint(1, 30, (1, 4), generator=generator)
    cache = model.new_cache()
    model(first, cache=cache)
    with pytest.raises(ValueError, match=r"the cache already holds 5 tokens of a text and got 4 new tokens at once: "
                                         r"to start a new prompt use a new cache \(model.new_cache\(\)\)"):
        model(second, cache=cache)
    # continuing the text, said so with a mask over cached + new tokens, is allowed and exact
    continued = model(second, torch.ones(1, 9, dtype=torch.long), cache=cache).logits
    torch.testing.assert_close(continued, model(torch.cat([first, second], 1)).logits[:, 5:], atol=1e-5, rtol=0)


def test_a_cache_of_another_model_is_refused():
    three_layers, two_layers = tiny_gpt(layers=3), tiny_gpt(layers=2)
    with pytest.raises(ValueError, match="this cache has 3 layers but the model has 2: it was made for another model"):
        two_layers(torch.ones(1, 2, dtype=torch.long), cache=three_layers.new_cache())
    with pytest.raises(TypeError, match=r"cache must be an anatomy.KVCache \(model.new_cache\(\)\), got list"):
        two_layers(torch.ones(1, 2, dtype=torch.long), cache=[])
    one_kv_head, two_kv_heads = tiny_llama(kv_heads=1), tiny_llama(kv_heads=2)
    cache = one_kv_head.new_cache()
    one_kv_head(torch.ones(1, 2, dtype=torch.long), cache=cache)
    with pytest.raises(ValueError, match=r"this KV cache holds \(key-value heads, head width, dtype\) = \(1, 8, "
                                         r"torch.float32\) on cpu, got \(2, 8, torch.float32\) on cpu: it was filled by another model"):
        two_kv_heads(torch.ones(1, 1, dtype=torch.long), cache=cache)


def test_positions_count_real_tokens_only():
    mask = torch.tensor([[0, 0, 1, 1], [1, 1, 1, 1]])
    assert positions_from_padding(mask).tolist() == [[0, 0, 0, 1], [0, 1, 2, 3]]


def test_positions_from_padding_names_a_mask_that_is_no_2d_tensor():
    # None raised AttributeError: 'NoneType' object has no attribute 'long' (found by the sweep, #37)
    with pytest.raises(TypeError, match=r"attention_mask must be a \(B, T\) 1/0 tensor, got NoneType"):
        positions_from_padding(None)
    with pytest.raises(ValueError, match=r"attention_mask must be a \(B, T\) 1/0 tensor, got a torch.int64 tensor of shape \(3,\)"):
        positions_from_padding(torch.tensor([0, 1, 1]))
