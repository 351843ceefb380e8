"""anatomy.interpret.logit_lens against Hugging Face's GPT2LMHeadModel with the same weights (its hidden states, put through
its own ln_f and lm_head); the last row is the model's output; the shipped character GPT loads and reads."""
import pytest
import torch
import transformers
from test_hooks import tiny_gpt2

from anatomy.interpret.logit_lens import CHAR_GPT_DIR, lens_ranks, load_char_gpt, logit_lens
from anatomy.models.transformer import Transformer, TransformerConfig

transformers.logging.set_verbosity_error()


def test_the_logit_lens_equals_hugging_faces_hidden_states_through_ln_f_and_lm_head():
    hf, ours = tiny_gpt2()
    ids = torch.randint(0, 50, (2, 8), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        out = hf(ids, output_hidden_states=True)
        # HF's hidden_states: the input of each block, then the last block's output *after* ln_f
        theirs = [hf.lm_head(hf.transformer.ln_f(h)) for h in out.hidden_states[:-1]] + [out.logits]
    lens = logit_lens(ours, ids)
    assert lens.shape == (4, 2, 8, 50)
    torch.testing.assert_close(lens, torch.stack(theirs).log_softmax(-1), atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(lens[-1], ours(ids).logits.log_softmax(-1))
    assert (lens[0] - lens[-1]).abs().max() > 0.1  # the layers do change the guess


def test_ranks_count_the_guesses_above_the_true_next_token():
    log_probs = torch.tensor([[0.1, 0.5, 0.2, 0.2], [0.7, 0.1, 0.1, 0.1]]).log()[None, None]  # (1, 1, 2, 4)
    assert lens_ranks(log_probs, torch.tensor([[3, 1]])).tolist() == [[[0]]]  # position 0 guesses 1 first: rank 0
    assert lens_ranks(log_probs, torch.tensor([[0, 2]])).tolist() == [[[1]]]  # next token 2: one guess above it
    with pytest.raises(ValueError, match=r"log_probs must be \(L \+ 1, B, T, V\) for input_ids \(B, T\) = \(1, 3\)"):
        lens_ranks(log_probs, torch.tensor([[0, 2, 1]]))


def test_the_lens_refuses_a_model_it_cannot_read():
    model = Transformer(TransformerConfig(vocab_size=10, hidden_size=8, num_attention_heads=2, intermediate_size=8,
                                          num_encoder_layers=1, num_decoder_layers=1))
    with pytest.raises(TypeError, match="the logit lens reads a decoder-only model"):
        logit_lens(model, torch.ones(1, 3, dtype=torch.long))


@pytest.mark.skipif(not (CHAR_GPT_DIR / "model.safetensors").exists(), reason="make char-gpt has not been run")
def test_the_shipped_character_gpt_loads_and_its_last_layer_knows_more_than_its_embedding():
    model, vocab = load_char_gpt()
    ids = vocab.encode("Return the number of items in the list.")[None]
    ranks = lens_ranks(logit_lens(model, ids), ids)  # (L + 1, 1, T - 1)
    assert ranks[-1].float().mean() < ranks[0].float().mean()
    assert vocab.decode(ids[0]) == "Return the number of items in the list."


def test_the_lens_on_a_post_ln_encoder_names_what_it_lacks():
    from transformers import BertConfig

    from anatomy.models.encoder import TransformerEncoder
    encoder = TransformerEncoder(BertConfig(vocab_size=10, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                                            intermediate_size=8, max_position_embeddings=8))
    with pytest.raises(TypeError, match=r"model: the logit lens reads a decoder-only model .*got TransformerEncoder, "
                                        r"which has no final norm or no lm_head"):
        logit_lens(encoder, torch.ones(1, 3, dtype=torch.long))


def test_ranks_refuse_nan_log_probs_and_ids_outside_the_vocabulary():
    log_probs = torch.tensor([[0.1, 0.5, 0.2, 0.2], [0.7, 0.1, 0.1, 0.1]]).log()[None, None]  # (1, 1, 2, 4)
    broken = log_probs.clone()
    broken[0, 0, 0, 2] = float("nan")
    with pytest.raises(ValueError, match=r"log_probs hold NaN, \+inf, or only -inf in row\(s\) \[0\]"):
        lens_ranks(broken, torch.tensor([[0, 2]]))
    with pytest.raises(ValueError, match=r"input_ids must hold ids in \[0, 3\] \(vocab_size 4\), got \[4\]"):
        lens_ranks(log_probs, torch.tensor([[0, 4]]))
    with pytest.raises(ValueError, match=r"input_ids must be an integer tensor of token ids, got a torch.float32"):
        lens_ranks(log_probs, torch.tensor([[0.0, 2.0]]))


def test_a_vocabulary_that_does_not_fit_the_weights_is_refused(tmp_path):
    from anatomy.tasks.docstring_lm import CharCorpus
    from anatomy.models.gpt import GPT, GPTConfig
    from anatomy.interpret.logit_lens import save_char_gpt
    model = GPT(GPTConfig(vocab_size=40, hidden_size=8, num_attention_heads=2, num_hidden_layers=1,
                          intermediate_size=8, max_position_embeddings=8))
    empty = torch.zeros(0, dtype=torch.long)
    save_char_gpt(model, CharCorpus("abcde", empty, empty), tmp_path)
    with pytest.raises(ValueError, match=r"characters.txt must list the model's 40 characters once each .*got 5 "
                                         r"\(5 distinct\).*make char-gpt"):
        load_char_gpt(tmp_path)
