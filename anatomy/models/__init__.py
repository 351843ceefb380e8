"""Whole models built from the layers: encoder, decoder, the Transformer, BERT's heads, GPT, Llama, ViT,
and the GRU encoder-decoder that came before.

Taught in: 00_before_transformers, 05_encoder, 06_decoder, 09_fine_tuning, 11_gpt, 12_modern_block,
14_vision_transformer, 16_pretraining.
"""
from anatomy.models.classifier import TransformerForSequenceClassification
from anatomy.models.decoder import check_memory, TransformerDecoderLayer, DecoderOutput, TransformerDecoder
from anatomy.models.decoder_inputs import positions_from_padding, decoder_mask, check_cache, check_decoder_call
from anatomy.models.encoder import TransformerEncoderLayer, EncoderOutput, TransformerEncoder
from anatomy.models.gpt import GPTConfig, CausalLMOutput, GPT
from anatomy.models.llama import LlamaConfig, LlamaBlock, Llama
from anatomy.models.masked_lm import bert_init_, MaskedLMHead, MaskedLMOutput, TransformerForMaskedLM
from anatomy.models.mlm_masking import check_probability, check_special_ids, maskable_positions, mask_tokens
from anatomy.models.rnn_seq2seq import RNNConfig, AdditiveAttention, GRUSeq2Seq
from anatomy.models.transformer import Seq2SeqOutput, check_padding, Transformer
from anatomy.models.transformer_config import TransformerConfig
from anatomy.models.vit import (VisionTransformerConfig, image_to_patches, PatchEmbedding, ImageClassifierOutput,
                                VisionTransformer)
