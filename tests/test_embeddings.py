from types import SimpleNamespace

import pytest
import torch

from anatomy import Embeddings, SinusoidalEmbeddings, pick_device, position_shift_matrix, sinusoidal_positions


@pytest.fixture(scope="module")
def embeddings():
    return Embeddings.from_pretrained()


def test_reproduces_hugging_face_embedding_layer_exactly(embeddings, pretrained):
    tokenizer, model = pretrained
    batch = tokenizer(["time flies like an arrow", "fruit flies"], ["a pair", "of sentences here"],
                      padding=True, return_tensors="pt")
    with torch.no_grad():
        ours = embeddings(batch.input_ids, batch.token_type_ids)
        theirs = model.embeddings(input_ids=batch.input_ids, token_type_ids=batch.token_type_ids)
    assert torch.equal(ours, theirs)


def test_random_init_shapes_and_dropout_in_train_mode():
    config = SimpleNamespace(vocab_size=50, hidden_size=8, max_position_embeddings=16, type_vocab_size=2)
    layer = Embeddings(config)
    ids = torch.randint(0, 50, (3, 7))
    assert layer(ids).shape == (3, 7, 8)
    assert layer.token_type_embeddings.num_embeddings == 2


def test_without_token_types():
    layer = Embeddings(SimpleNamespace(vocab_size=10, hidden_size=4, max_position_embeddings=8))
    assert layer.token_type_embeddings is None
    assert layer(torch.tensor([[1, 2]])).shape == (1, 2, 4)
    with pytest.raises(ValueError, match="no type_vocab_size"):
        layer(torch.tensor([[1, 2]]), torch.tensor([[0, 0]]))


def test_too_long_input(embeddings):
    with pytest.raises(ValueError, match=r"513 tokens, more than max_position_embeddings \(512\)"):
        embeddings(torch.zeros(1, 513, dtype=torch.long))


@pytest.mark.parametrize("ids, message", [
    (torch.tensor([[1.0, 2.0]]), "integer tensor, got dtype torch.float32"),
    (torch.tensor([[5, -1]]), r"must lie in \[0, 30522\), got values from -1"),
    (torch.tensor([[5, 30522]]), r"must lie in \[0, 30522\)"),
    (torch.tensor([1, 2]), r"must be \(B, T\) with at least one token, got shape \(2,\)"),
])
def test_bad_token_ids(embeddings, ids, message):
    with pytest.raises(ValueError, match=message):
        embeddings(ids)


def test_bad_token_type_ids(embeddings):
    ids = torch.tensor([[1, 2, 3]])
    with pytest.raises(ValueError, match=r"token_type_ids must lie in \[0, 2\)"):
        embeddings(ids, torch.tensor([[0, 1, 2]]))
    with pytest.raises(ValueError, match="token_type_ids shape"):
        embeddings(ids, torch.tensor([[0, 1]]))


def test_config_missing_a_field():
    with pytest.raises(ValueError, match=r"missing field\(s\) \['max_position_embeddings'\]"):
        Embeddings(SimpleNamespace(vocab_size=10, hidden_size=4))


@pytest.mark.skipif(pick_device().type == "cpu", reason="needs a GPU (cuda or mps) to check devices")
def test_runs_on_the_accelerator(embeddings, pretrained):
    device = pick_device()
    ids = torch.tensor([[2051, 10029, 2066]])
    on_device = Embeddings.from_pretrained().to(device)(ids.to(device))
    assert on_device.device.type == device.type
    torch.testing.assert_close(on_device.cpu(), embeddings(ids), atol=1e-5, rtol=1e-5)


def test_sinusoidal_matches_the_paper_formula():
    encoding = sinusoidal_positions(20, 8)
    p, i = 7, 2
    angle = torch.tensor(p / 10000 ** (2 * i / 8))
    torch.testing.assert_close(encoding[p, 2 * i], torch.sin(angle))
    torch.testing.assert_close(encoding[p, 2 * i + 1], torch.cos(angle))


@pytest.mark.parametrize("offset", [1, 5, 17])
def test_shift_is_a_fixed_linear_map(offset):
    encoding = sinusoidal_positions(64, 32)
    shift = position_shift_matrix(offset, 32)
    torch.testing.assert_close(encoding[:-offset] @ shift.T, encoding[offset:], atol=1e-5, rtol=0)


def test_sinusoidal_needs_even_width():
    with pytest.raises(ValueError, match="positive even number, got 7"):
        sinusoidal_positions(4, 7)
    with pytest.raises(ValueError, match=r"positive even number, got 7"):
        position_shift_matrix(1, 7)
    with pytest.raises(ValueError, match="num_positions must be an integer >= 0, got -5"):
        sinusoidal_positions(-5, 8)


def test_a_list_of_ids_says_to_ask_the_tokenizer_for_tensors(embeddings):
    with pytest.raises(TypeError, match=r"input_ids must be a \(B, T\) tensor, got list; .*return_tensors='pt'"):
        embeddings([[101, 7592, 102]])
    with pytest.raises(TypeError, match=r"src_ids must be a \(B, T\) tensor, got list"):
        SinusoidalEmbeddings(SimpleNamespace(vocab_size=10, hidden_size=4, max_position_embeddings=8))([[1, 2]], "src_ids")


def test_config_as_a_dict_and_impossible_sizes():
    assert Embeddings({"vocab_size": 10, "hidden_size": 4, "max_position_embeddings": 8}).vocab_size == 10
    with pytest.raises(ValueError, match="config field vocab_size must be an integer >= 1, got -10"):
        Embeddings({"vocab_size": -10, "hidden_size": 4, "max_position_embeddings": 8})


@pytest.mark.parametrize("argument, value", [("offset", float("nan")), ("offset", None), ("base", 1.0),
                                             ("base", -1.0), ("base", float("inf"))])
def test_position_shift_matrix_refuses_an_offset_or_base_it_cannot_rotate_by(argument, value):
    # a NaN offset or base gave a matrix of NaN; base <= 1 a math domain error naming nothing
    kwargs = {"offset": 2, "dim": 6, "base": 10000.0, argument: value}
    with pytest.raises((TypeError, ValueError), match=argument):
        position_shift_matrix(**kwargs)
