"""Pretrained weights from Hugging Face copied into our models, by explicit name maps, and ours copied
into torch.nn.Transformer.

Taught in: 05_encoder (BERT), 06_decoder (torch.nn.Transformer), 11_gpt (GPT-2), 12_modern_block (Llama),
14_vision_transformer (ViT).
"""
from anatomy.weights.bert_weights import encoder_name_map, load_config, read_state_dict, copy_weights
from anatomy.weights.gpt2_weights import gpt2_weight_names, config_from_gpt2, check_gpt2, gpt_from_gpt2
from anatomy.weights.llama_weights import unscaled_rope, llama_fields, their_name, llama_from_hf
from anatomy.weights.torch_reference import copy_attention, copy_sublayers, to_torch_transformer
from anatomy.weights.vit_weights import hf_vit_name_map, load_hf_vit_weights, vit_from_hf
