"""RoPE against Hugging Face's Llama rotary code, and the property it exists for: q·k depends on m - n only."""
import pytest
import torch
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

from anatomy.layers.embeddings import position_shift_matrix
from anatomy.layers.rotary import apply_rotary, pairs_from_halves, rotary_frequencies


def test_rotated_dot_products_depend_only_on_the_distance():
    torch.manual_seed(0)
    q, k = torch.randn(1, 1, 1, 16, dtype=torch.float64), torch.randn(1, 1, 1, 16, dtype=torch.float64)
    def score(m, n):
        return (apply_rotary(q, torch.tensor([m])) * apply_rotary(k, torch.tensor([n]))).sum().item()
    for distance in (0, 1, 5, 17):
        scores = [score(n + distance, n) for n in (0, 3, 40, 211)]
        assert max(scores) - min(scores) < 1e-4, (distance, scores)
    assert abs(score(5, 0) - score(6, 0)) > 1e-3, "different distances should give different scores"


def test_the_rotation_is_notebook_02s_position_shift():
    """02's shift matrix M moves PE[p] to PE[p + k]; on (sin, cos) pairs it is RoPE's rotation by -k."""
    x = torch.randn(1, 1, 1, 8, dtype=torch.float64)
    shifted = x[0, 0, 0].float() @ position_shift_matrix(3, 8).T
    torch.testing.assert_close(apply_rotary(x, torch.tensor([-3]))[0, 0, 0].float(), shifted, atol=1e-5, rtol=0)


def test_matches_hugging_face_llama_after_reordering_the_pairs():
    torch.manual_seed(0)
    heads, head_dim = 3, 8
    config = LlamaConfig(hidden_size=heads * head_dim, num_attention_heads=heads, max_position_embeddings=64)
    weight, x = torch.randn(heads * head_dim, 24), torch.randn(2, 5, 24)
    positions = torch.tensor([[0, 1, 2, 3, 4], [0, 0, 7, 8, 9]])
    cos, sin = LlamaRotaryEmbedding(config)(x, positions)
    theirs = (x @ weight.T).view(2, 5, heads, head_dim).transpose(1, 2)  # HF's layout: halves
    theirs, _ = apply_rotary_pos_emb(theirs, theirs, cos, sin)
    ours = (x @ pairs_from_halves(weight, heads).T).view(2, 5, heads, head_dim).transpose(1, 2)
    ours = apply_rotary(ours, positions)
    back_to_halves = ours.unflatten(-1, (head_dim // 2, 2)).transpose(-1, -2).flatten(-2)  # pair i -> (i, i + Dh/2)
    torch.testing.assert_close(back_to_halves, theirs, atol=1e-5, rtol=0)


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="head_dim must be a positive even number, got 7"):
        rotary_frequencies(7)
    with pytest.raises(ValueError, match=r"one entry per token, \(T,\) = \(4,\) or \(B, T\) = \(1, 4\), got shape \(1, 3\)"):
        apply_rotary(torch.zeros(1, 1, 4, 8), torch.arange(3))


def test_a_3d_tensor_or_float_positions_are_refused_not_broadcast():
    with pytest.raises(ValueError, match=r"x must be a floating-point \(B, H, T, Dh\) tensor, got shape \(2, 4, 8\); "
                                         r"split \(B, T, D\) hidden states into heads first"):
        apply_rotary(torch.zeros(2, 4, 8), torch.arange(4))  # would have made B copies of the batch
    with pytest.raises(ValueError, match="positions must be an integer tensor"):
        apply_rotary(torch.zeros(1, 1, 4, 8), torch.arange(4.0))
    with pytest.raises(ValueError, match=r"\(B, T\) = \(2, 4\), got shape \(3, 4\)"):
        apply_rotary(torch.zeros(2, 1, 4, 8), torch.zeros(3, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="base must be a finite number > 0, got 0"):
        rotary_frequencies(8, base=0)
    with pytest.raises(ValueError, match=r"weight must be \(H x Dh, D\) with H = 3 heads"):
        pairs_from_halves(torch.zeros(8, 4), 3)
