"""Transformer Anatomy: the Transformer built piece by piece, each piece checked against a reference.

Each module names the notebook that teaches it. Later notebooks import earlier pieces from here.
"""
from anatomy.adaptive_span import AdaptiveSpan, span_mask
from anatomy.attention import scaled_dot_product_attention
from anatomy.bert_weights import copy_weights, load_config, read_state_dict
from anatomy.config import require
from anatomy.corpus import stdlib_sentences
from anatomy.decoder import DecoderOutput, TransformerDecoder, TransformerDecoderLayer
from anatomy.classifier import TransformerForSequenceClassification
from anatomy.embeddings import Embeddings, SinusoidalEmbeddings, position_shift_matrix, sinusoidal_positions
from anatomy.encoder import EncoderOutput, TransformerEncoder, TransformerEncoderLayer
from anatomy.feedforward import FeedForward
from anatomy.generation import greedy_decode
from anatomy.local_masks import local_mask, strided_mask
from anatomy.masks import causal_mask, causal_padding_mask, padding_mask
from anatomy.multihead import AttentionHead, MultiHeadAttention, PerHeadMultiHeadAttention
from anatomy.notebook import pick_device, seed_everything, setup_notebook, show_source
from anatomy.persistent_memory import PersistentMemoryAttention, feedforward_as_attention
from anatomy.plots import attention_heatmap, attention_heatmaps, mask_plot
from anatomy.pretrained import (DEFAULT_CHECKPOINT, HubUnreachableError, default_model_dir,
                                load_pretrained, resolve_checkpoint)
from anatomy.product_keys import ProductKeyMemory, product_key_top_k
from anatomy.rnn_seq2seq import AdditiveAttention, GRUSeq2Seq, RNNConfig
from anatomy.tiled_attention import tiled_attention
from anatomy.transformer import Seq2SeqOutput, Transformer, TransformerConfig
from anatomy.vit import PatchEmbedding, VisionTransformer, VisionTransformerConfig
from anatomy.wordpiece import WordPieceTokenizer
from anatomy.beam_search import beam_search
from anatomy.gpt import GPT, GPTConfig
from anatomy.gqa import GroupedQueryAttention
from anatomy.kv_cache import KVCache
from anatomy.llama import Llama, LlamaConfig
from anatomy.rmsnorm import RMSNorm
from anatomy.rotary import apply_rotary
from anatomy.swiglu import SwiGLU
from anatomy.text_generation import generate
from anatomy.masked_lm import TransformerForMaskedLM
from anatomy.masking import mask_tokens
from anatomy.bpe import ByteLevelBPE
from anatomy.hooks import Hooks, hook_names
from anatomy.logit_lens import lens_ranks, load_char_gpt
from anatomy.patching import restored_fraction

__version__ = "0.1.0"
