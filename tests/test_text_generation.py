"""generate refuses what would make it write nonsense without a word: another kind of model, right
padding, an all-padding row, a negative length, NaN logits, a prompt past the context window."""
import pytest
import torch
from transformers import GPT2Config, GPT2LMHeadModel

from anatomy.models.gpt import GPT, GPTConfig
from anatomy.models.llama import Llama, LlamaConfig
from anatomy.generation.text_generation import generate
from anatomy.models.transformer import Transformer, TransformerConfig


@pytest.fixture(scope="module")
def gpt():
    torch.manual_seed(0)
    return GPT(GPTConfig(vocab_size=30, hidden_size=16, num_attention_heads=2, num_hidden_layers=1,
                         intermediate_size=32, max_position_embeddings=16)).eval()


PROMPT = torch.tensor([[3, 4, 5], [6, 7, 8]])


def test_another_kind_of_model_is_refused(gpt):
    transformer = Transformer(TransformerConfig(vocab_size=30, hidden_size=16, num_attention_heads=2,
                                                intermediate_size=32, num_encoder_layers=1, num_decoder_layers=1))
    with pytest.raises(TypeError, match=r"Transformer is an encoder-decoder: use anatomy.greedy_decode\(model, src_ids\)"):
        generate(transformer, PROMPT)
    hf = GPT2LMHeadModel(GPT2Config(n_embd=16, n_head=2, n_layer=1, n_positions=16, vocab_size=30))
    with pytest.raises(TypeError, match=r"got GPT2LMHeadModel; for a Hugging Face GPT-2 or Llama convert it first"):
        generate(hf, PROMPT)


def test_padding_must_be_on_the_left_and_every_row_needs_a_token(gpt):
    with pytest.raises(ValueError, match=r"row\(s\) \[1\] of attention_mask are not padded on the left: .*"
                                         r"tokenizer.padding_side = 'left'"):
        generate(gpt, PROMPT, torch.tensor([[1, 1, 1], [1, 1, 0]]), max_new_tokens=5)
    with pytest.raises(ValueError, match=r"row\(s\) \[0\] of attention_mask are all padding \(0s\)"):
        generate(gpt, PROMPT, torch.tensor([[0, 0, 0], [1, 1, 1]]), max_new_tokens=5)
    with pytest.raises(ValueError, match=r"attention_mask must be \(2, 3\), the prompt's shape, got \(2, 2\)"):
        generate(gpt, PROMPT, torch.ones(2, 2), max_new_tokens=5)
    assert generate(gpt, PROMPT, torch.tensor([[0, 1, 1], [1, 1, 1]]), max_new_tokens=2).shape == (2, 5)


@pytest.mark.parametrize("kwargs, message", [
    ({"max_new_tokens": -3}, "max_new_tokens must be an integer >= 0, got -3"),
    ({"max_new_tokens": 2.5}, "max_new_tokens must be an integer >= 0, got 2.5"),
    ({"max_new_tokens": 14}, r"the prompt \(3 tokens\) \+ max_new_tokens \(14\) exceed the context window \(16"),
    ({"eos_token_id": 30}, r"eos_token_id must be an integer in \[0, 29\], got 30"),
    ({"pad_token_id": -1}, r"pad_token_id must be an integer in \[0, 29\], got -1"),
    ({"do_sample": True, "top_k": 2.5}, r"top_k must be an integer in \[1, 30\], got 2.5"),
    ({"do_sample": True, "top_k": 31}, r"top_k must be an integer in \[1, 30\], got 31 \(or None for no cut; the vocabulary has 30"),
])
def test_settings_out_of_range(gpt, kwargs, message):
    with pytest.raises(ValueError, match=message):
        generate(gpt, PROMPT, **kwargs)


def test_zero_new_tokens_return_the_prompt_and_a_1d_prompt_is_named(gpt):
    assert torch.equal(generate(gpt, PROMPT, max_new_tokens=0), PROMPT)
    with pytest.raises(ValueError, match=r"input_ids must be \(B, T\).*for one sequence pass input_ids\[None\]"):
        generate(gpt, PROMPT[0])
    with pytest.raises(ValueError, match="the prompt has 17 tokens, longer than the context window"):
        generate(gpt, torch.ones(1, 17, dtype=torch.long))


@pytest.mark.parametrize("do_sample", [False, True])
def test_nan_logits_are_never_picked_from(do_sample):
    torch.manual_seed(0)
    model = Llama(LlamaConfig(vocab_size=30, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                              num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=16)).eval()
    with torch.no_grad():
        model.lm_head.weight[5] = float("nan")  # one broken row of the LM head: NaN logits for token 5
    with pytest.raises(ValueError, match=r"logits hold NaN, \+inf, or only -inf in row\(s\) \[0, 1\]: nothing can be picked"):
        generate(model, PROMPT, max_new_tokens=5, do_sample=do_sample)


def test_generate_names_model_when_it_is_none():
    # the message named the interface but not the argument, so a None left the student searching
    with pytest.raises(TypeError, match="needs model to have our decoder-only interface.*got NoneType"):
        generate(None, torch.tensor([[1, 2]]))
