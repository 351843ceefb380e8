"""anatomy.models.vit against Hugging Face's ViTForImageClassification (random weights, tiny config)."""
from types import SimpleNamespace

import pytest
import torch
from transformers import ViTConfig, ViTForImageClassification

from anatomy.models.vit import PatchEmbedding, VisionTransformer, VisionTransformerConfig, image_to_patches
from anatomy.weights.vit_weights import load_hf_vit_weights


def tiny_hf_config(**overrides):
    settings = dict(image_size=8, patch_size=2, num_channels=3, hidden_size=32, num_hidden_layers=2,
                    num_attention_heads=4, intermediate_size=64, num_labels=10,
                    hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, attn_implementation="eager")
    return ViTConfig(**(settings | overrides))


@pytest.mark.parametrize("overrides", [{}, {"num_channels": 1, "patch_size": 4, "image_size": 16}])
def test_logits_and_attentions_match_hugging_face(overrides):
    torch.manual_seed(0)
    config = tiny_hf_config(**overrides)
    reference = ViTForImageClassification(config).eval()
    with torch.no_grad():  # HF starts biases and the [CLS] token at zero: make every weight count
        for parameter in reference.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    ours = load_hf_vit_weights(VisionTransformer(config).eval(), reference.state_dict())
    images = torch.randn(5, config.num_channels, config.image_size, config.image_size)
    with torch.no_grad():
        expected = reference(pixel_values=images, output_attentions=True)
        got = ours(images, output_attentions=True)
    torch.testing.assert_close(got.logits, expected.logits, atol=1e-5, rtol=0)
    for mine, theirs in zip(got.attentions, expected.attentions, strict=True):
        torch.testing.assert_close(mine, theirs, atol=1e-5, rtol=0)


def test_patch_embedding_is_a_strided_convolution():
    torch.manual_seed(0)
    embed = PatchEmbedding(image_size=8, patch_size=2, num_channels=3, hidden_size=16)
    conv = torch.nn.Conv2d(3, 16, kernel_size=2, stride=2)
    with torch.no_grad():
        conv.weight.copy_(embed.projection.weight.view(16, 3, 2, 2))
        conv.bias.copy_(embed.projection.bias)
    images = torch.randn(4, 3, 8, 8)
    expected = conv(images).flatten(2).transpose(1, 2)  # (B, N, D), patches row by row
    torch.testing.assert_close(embed(images), expected)


def test_patches_in_reading_order():
    image = torch.arange(16.0).view(1, 1, 4, 4)
    patches = image_to_patches(image, 2)  # (1, 4, 4)
    assert patches[0].tolist() == [[0, 1, 4, 5], [2, 3, 6, 7], [8, 9, 12, 13], [10, 11, 14, 15]]


def test_our_config_defaults_build_the_digits_model():
    model = VisionTransformer(VisionTransformerConfig())
    assert model(torch.zeros(2, 1, 8, 8)).logits.shape == (2, 10)
    assert model.position_embeddings.shape == (1, 17, 64)


def test_image_size_not_divisible_by_patch():
    with pytest.raises(ValueError, match=r"image_size \(8\) must be divisible by patch_size \(3\)"):
        VisionTransformer(VisionTransformerConfig(patch_size=3))


def test_wrong_number_of_channels():
    model = VisionTransformer(VisionTransformerConfig())
    with pytest.raises(ValueError, match=r"1 channel\(s\).*got 3"):
        model(torch.zeros(2, 3, 8, 8))


@pytest.mark.parametrize("shape", [(8, 8), (1, 8, 8), (1, 1, 1, 8, 8)])
def test_wrong_batch_rank(shape):
    model = VisionTransformer(VisionTransformerConfig())
    with pytest.raises(ValueError, match=r"must be a batch \(B, C, S, S\) = \(B, 1, 8, 8\), got"):
        model(torch.zeros(shape))


def test_wrong_image_size():
    model = VisionTransformer(VisionTransformerConfig())
    with pytest.raises(ValueError, match=r"must be \(B, 1, 8, 8\), got shape \(2, 1, 16, 16\)"):
        model(torch.zeros(2, 1, 16, 16))


def test_missing_config_field():
    incomplete = SimpleNamespace(**vars(VisionTransformerConfig()) | {"patch_size": None})
    with pytest.raises(ValueError, match=r"missing field\(s\) \['patch_size'\]"):
        VisionTransformer(incomplete)


@pytest.mark.parametrize("overrides, message", [
    ({"hidden_size": 30}, r"hidden_size \(30\) must be divisible by num_attention_heads \(4\)"),
    ({"num_labels": 0}, "config field num_labels must be an integer >= 1, got 0"),
    ({"layer_norm_eps": -1.0}, "layer_norm_eps must be a finite number > 0, got -1.0"),
    ({"hidden_act": "tanh"}, r"hidden_act must be one of .*got 'tanh'"),
    ({"attention_probs_dropout_prob": -0.1}, "attention_probs_dropout_prob must be a finite number >= 0 and <= 1"),
])
def test_a_config_out_of_range_is_refused_where_it_is_made(overrides, message):
    with pytest.raises(ValueError, match=message):
        VisionTransformerConfig(**overrides)


@pytest.mark.parametrize("argument, value", [("num_channels", -1), ("hidden_size", 2.5), ("patch_size", None),
                                             ("image_size", float("nan"))])
def test_patch_embedding_refuses_a_size_that_is_not_a_count(argument, value):
    # torch refused these itself, or Python's `%` and `<` on None, naming no argument
    with pytest.raises((TypeError, ValueError), match=argument):
        PatchEmbedding(**{"image_size": 8, "patch_size": 2, "num_channels": 1, "hidden_size": 16, argument: value})
