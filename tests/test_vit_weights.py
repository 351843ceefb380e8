"""The ViT loaders refuse a config our ViT does not compute and a state dict that does not fit the model,
each case built from a real transformers.ViTConfig (tiny, random weights)."""
import pytest
import torch
from transformers import ViTConfig, ViTForImageClassification, ViTModel

from anatomy.models.vit import VisionTransformer, VisionTransformerConfig
from anatomy.weights.vit_weights import load_hf_vit_weights, vit_from_hf


def tiny(model_class=ViTForImageClassification, **overrides):
    torch.manual_seed(0)
    settings = dict(image_size=8, patch_size=2, num_channels=1, hidden_size=32, num_hidden_layers=2,
                    num_attention_heads=4, intermediate_size=64, num_labels=10, attn_implementation="eager")
    return model_class(ViTConfig(**(settings | overrides))).eval()


@pytest.mark.parametrize("overrides, refused", [
    ({"qkv_bias": False}, r"qkv_bias=False \(our q/k/v projections always have biases"),
    ({"hidden_act": "silu"}, r"hidden_act='silu' \(the activations our feed-forward implements"),
])
def test_each_unsupported_field_is_refused_by_name_and_value(overrides, refused):
    hf = tiny(**overrides)
    with pytest.raises(ValueError, match=f"this ViT is not supported: {refused}"):
        vit_from_hf(hf)
    if "hidden_act" not in overrides:  # our model cannot even be built with an unknown activation
        with pytest.raises(ValueError, match=f"this ViT is not supported: {refused}"):
            load_hf_vit_weights(VisionTransformer(hf.config), hf.state_dict())


def test_a_deeper_checkpoint_is_refused_not_cut():
    three_layers = tiny(num_hidden_layers=3)
    two_layer_model = VisionTransformer(tiny().config)
    with pytest.raises(ValueError, match=r"ViTForImageClassification checkpoint has weights our model has no place "
                                         r"for: unexpected keys \['vit.layers.2."):
        load_hf_vit_weights(two_layer_model, three_layers.state_dict())


def test_a_shallower_checkpoint_or_a_headless_one_is_refused():
    three_layer_model = VisionTransformer(tiny(num_hidden_layers=3).config)
    with pytest.raises(ValueError, match=r"not ViTForImageClassification-like: missing keys \['vit.layers.2."):
        load_hf_vit_weights(three_layer_model, tiny().state_dict())
    with pytest.raises(ValueError, match=r"missing keys \['vit.embeddings.cls_token'"):
        load_hf_vit_weights(VisionTransformer(tiny().config), tiny(ViTModel).state_dict())


def test_a_wider_checkpoint_names_the_shapes():
    with pytest.raises(ValueError, match=r"vit.embeddings.cls_token has shape \(1, 1, 48\), but cls_token expects \(1, 1, 32\)"):
        load_hf_vit_weights(VisionTransformer(tiny().config), tiny(hidden_size=48).state_dict())


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match=r"needs our VisionTransformer and a dict of tensors, got VisionTransformer and "
                                        r"ViTForImageClassification"):
        load_hf_vit_weights(VisionTransformer(VisionTransformerConfig()), tiny())
    with pytest.raises(TypeError, match="vit_from_hf needs a transformers.ViTForImageClassification, got dict"):
        vit_from_hf({})


def test_vit_from_hf_matches_hugging_face():
    hf = tiny(hidden_act="gelu_new")
    with torch.no_grad():  # HF starts biases and the [CLS] token at zero: make every weight count
        for parameter in hf.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    images = torch.randn(3, 1, 8, 8, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        assert (vit_from_hf(hf)(images).logits - hf(pixel_values=images).logits).abs().max() < 1e-5
