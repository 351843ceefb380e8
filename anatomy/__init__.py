"""Transformer Anatomy: the Transformer built piece by piece, each piece checked against a reference.

Each module names the notebook that teaches it. The subpackages, in teaching order (README, "The package"):
corpora, tokenizers, layers, efficient, checkpoints, models, weights, generation, tasks, interpret, alignment, display;
checks.py, the argument checks they share, sits here at the top. Later notebooks import earlier pieces by the short
names below (anatomy.MultiHeadAttention) or from their subpackage (from anatomy.layers import MultiHeadAttention).
"""
from anatomy.corpora import stdlib_sentences
from anatomy.tokenizers import ByteLevelBPE, WordPieceTokenizer
from anatomy.layers import (AttentionHead, Embeddings, FeedForward, GroupedQueryAttention, KVCache, MultiHeadAttention,
                            PerHeadMultiHeadAttention, RMSNorm, SinusoidalEmbeddings, SwiGLU, apply_rotary,
                            causal_mask, causal_padding_mask, padding_mask, position_shift_matrix, require,
                            scaled_dot_product_attention, sinusoidal_positions)
from anatomy.efficient import (AdaptiveSpan, PersistentMemoryAttention, ProductKeyMemory, feedforward_as_attention,
                               local_mask, product_key_top_k, span_mask, strided_mask, tiled_attention)
from anatomy.checkpoints import HubUnreachableError, default_model_dir, load_pretrained, resolve_checkpoint
from anatomy.checkpoints.pretrained import DEFAULT_CHECKPOINT
from anatomy.models import (GPT, AdditiveAttention, DecoderOutput, EncoderOutput, GPTConfig, GRUSeq2Seq, Llama,
                            LlamaConfig, PatchEmbedding, RNNConfig, Seq2SeqOutput, Transformer, TransformerConfig,
                            TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer,
                            TransformerForMaskedLM, TransformerForSequenceClassification, VisionTransformer,
                            VisionTransformerConfig, mask_tokens)
from anatomy.weights import copy_weights, load_config, read_state_dict
from anatomy.generation import beam_search, generate, greedy_decode
from anatomy.interpret import Hooks, hook_names, lens_ranks, load_char_gpt, restored_fraction
from anatomy.display import (attention_heatmap, attention_heatmaps, mask_plot, pick_device, seed_everything,
                             setup_notebook, show_source)

__version__ = "0.1.0"
