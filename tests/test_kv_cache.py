"""The KV cache changes the cost of generation, never its tokens."""
import pytest
import torch
import transformers
from transformers import GPT2Config, GPT2LMHeadModel

from anatomy.weights.gpt2_weights import gpt_from_gpt2
from anatomy.layers.kv_cache import KVCache, cache_memory_bytes
from anatomy.generation.text_generation import generate

transformers.logging.set_verbosity_error()


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    config = GPT2Config(n_embd=32, n_head=4, n_layer=3, n_positions=256, vocab_size=40, initializer_range=0.3)
    return gpt_from_gpt2(GPT2LMHeadModel(config).eval())


def left_padded_prompts(batch_size, seed):
    generator = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, 12, (batch_size,), generator=generator)
    ids = torch.zeros(batch_size, int(lengths.max()), dtype=torch.long)
    for row, length in enumerate(lengths):
        ids[row, ids.size(1) - length:] = torch.randint(1, 40, (int(length),), generator=generator)
    return ids, (ids != 0).long()


@pytest.mark.parametrize("batch_size, seed", [(1, 0), (2, 1), (4, 2), (7, 3)])
def test_cached_generation_is_token_identical_to_uncached(model, batch_size, seed):
    ids, mask = left_padded_prompts(batch_size, seed)
    cached = generate(model, ids, mask, max_new_tokens=200, use_cache=True)
    uncached = generate(model, ids, mask, max_new_tokens=200, use_cache=False)
    assert torch.equal(cached, uncached)


def test_sampling_with_the_cache_draws_the_same_tokens(model):
    ids, mask = left_padded_prompts(3, 9)
    runs = [generate(model, ids, mask, 50, use_cache=use_cache, do_sample=True, top_k=10, top_p=0.9,
                     generator=torch.Generator().manual_seed(0)) for use_cache in (True, False)]
    assert torch.equal(*runs)


def test_the_cache_holds_what_the_formula_says(model):
    cache = model.new_cache()
    ids = torch.randint(0, 40, (5, 9))
    model(ids, cache=cache)
    model(ids[:, :1], cache=cache)
    assert cache.length == 10
    assert cache.memory_bytes() == cache_memory_bytes(3, 4, 8, tokens=10, batch_size=5) == 3 * 2 * 5 * 10 * 32 * 4
    assert cache.reserved_bytes() == cache.memory_bytes()  # with gradients: concatenated, nothing reserved


def test_reserved_bytes_count_the_room_held_ahead(model):
    cache = model.new_cache()
    ids = torch.randint(0, 40, (5, 9))
    with torch.no_grad():
        model(ids, cache=cache)  # 9 tokens: buffers for 18
        model(ids[:, :1], cache=cache)
    assert cache.memory_bytes() == cache_memory_bytes(3, 4, 8, tokens=10, batch_size=5)
    assert cache.reserved_bytes() == cache_memory_bytes(3, 4, 8, tokens=18, batch_size=5)
    cache.crop(2)  # the buffers stay: more than twice what the 2 cached tokens need
    assert cache.reserved_bytes() == cache_memory_bytes(3, 4, 8, tokens=18, batch_size=5) > 2 * cache.memory_bytes()
    assert KVCache(3).reserved_bytes() == 0


def test_a_cache_reused_with_another_batch_size_raises(model):
    cache = KVCache(3)
    model(torch.zeros(2, 4, dtype=torch.long), cache=cache)
    with pytest.raises(ValueError, match="holds a batch of 2 sequences, got a batch of 3"):
        model(torch.zeros(3, 1, dtype=torch.long), cache=cache)


def test_a_layer_cache_refuses_keys_of_another_shape():
    cache = KVCache(1)
    cache[0].update(torch.zeros(2, 4, 3, 8), torch.zeros(2, 4, 3, 8))
    with pytest.raises(ValueError, match=r"holds \(key-value heads, head width, dtype\) = \(4, 8, torch.float32\) on "
                                         r"cpu, got \(2, 8, torch.float32\) on cpu: it was filled by another model"):
        cache[0].update(torch.zeros(2, 2, 1, 8), torch.zeros(2, 2, 1, 8))
    with pytest.raises(ValueError, match=r"got \(4, 16, torch.float32\)"):
        cache[0].update(torch.zeros(2, 4, 1, 16), torch.zeros(2, 4, 1, 16))
    with pytest.raises(ValueError, match=r"got \(4, 8, torch.float64\)"):
        cache[0].update(torch.zeros(2, 4, 1, 8, dtype=torch.float64), torch.zeros(2, 4, 1, 8, dtype=torch.float64))
    assert cache.length == 3


def test_a_cache_needs_a_whole_number_of_layers():
    with pytest.raises(ValueError, match="num_layers must be an integer >= 0, got 2.5"):
        KVCache(2.5)


def test_crop_rolls_the_cache_back_to_what_a_fresh_forward_computes(model):
    ids = torch.randint(0, 40, (2, 12), generator=torch.Generator().manual_seed(0))
    cache = model.new_cache()
    model(ids[:, :10], cache=cache)
    cache.crop(7)  # forget tokens 7..9, then read 7..11 again: as if 7..9 had never been read
    assert cache.length == 7 and cache.memory_bytes() == cache_memory_bytes(3, 4, 8, tokens=7, batch_size=2)
    continued = model(ids[:, 7:], torch.ones(2, 12, dtype=torch.long), cache=cache).logits
    torch.testing.assert_close(continued, model(ids).logits[:, 7:])
    with pytest.raises(ValueError, match=r"length must be an integer in \[0, 12\], got 13 \(the cache holds 12 tokens"):
        cache.crop(13)


def test_the_cache_writes_in_place_when_generating_and_keeps_autograd_working_when_training(model):
    ids = torch.randint(0, 40, (2, 9), generator=torch.Generator().manual_seed(1))
    cache = model.new_cache()
    with torch.no_grad():
        model(ids[:, :5], cache=cache)
        buffer = cache[0].buffers[0]
        for i in range(5, 9):  # room for 10 was reserved: no new buffer, no copy of the cache
            model(ids[:, i:i + 1], cache=cache)
        assert cache[0].buffers[0] is buffer and cache[0].keys.data_ptr() == buffer.data_ptr()
        model(ids[:, :3], torch.ones(2, 12, dtype=torch.long), cache=cache)  # 12 > 10: a larger buffer
        assert cache[0].buffers[0].size(-2) == 24 and cache.length == 12
    cache = model.new_cache()
    first = model(ids[:, :5], cache=cache).logits
    second = model(ids[:, 5:], torch.ones(2, 9, dtype=torch.long), cache=cache).logits
    (first.sum() + second.sum()).backward()  # would fail if a later step overwrote a tensor autograd saved
    torch.testing.assert_close(torch.cat([first, second], dim=1), model(ids).logits)
    model.zero_grad()


def test_a_cached_forward_computes_attention_weights_only_when_asked(model):
    ids = torch.randint(0, 40, (2, 6), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        fused = model(ids, cache=model.new_cache())
        asked = model(ids, cache=model.new_cache(), output_attentions=True)
        uncached = model(ids)
    assert fused.attentions is None and len(asked.attentions) == 3 and asked.attentions[0].shape == (2, 4, 6, 6)
    torch.testing.assert_close(asked.attentions[0].sum(-1), torch.ones(2, 4, 6))
    torch.testing.assert_close(fused.logits, uncached.logits)
    torch.testing.assert_close(asked.logits, uncached.logits)


@pytest.mark.parametrize("use_cache", [True, False])
def test_a_left_padded_batch_writes_what_each_prompt_writes_alone(model, use_cache):
    ids, mask = left_padded_prompts(5, 4)
    batch = generate(model, ids, mask, max_new_tokens=30, use_cache=use_cache)
    for row, row_mask in zip(range(len(ids)), mask.bool()):
        alone = generate(model, ids[row, row_mask][None], max_new_tokens=30, use_cache=use_cache)
        assert torch.equal(batch[row, ids.size(1):], alone[0, int(row_mask.sum()):]), row
