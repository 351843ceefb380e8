"""Looking inside a trained model: hook points, induction heads, the logit lens, activation patching,
cross-attention heads and path patching.

Taught in: 17_interpretability, 18_cross_attention_circuits.
"""
from anatomy.interpret.hooks import blocks, points_of, hook_names, resolve, check_edit, Hooks
from anatomy.interpret.induction import (NoFeedForward, attention_only_model, repeated_tokens, half_losses,
                                         InductionRun, train_induction, patterns, previous_token_scores,
                                         induction_scores, ablate_heads, head_means, in_context_gain)
from anatomy.interpret.induction_control import folded_text, text_rows, train_mixed, local_scores, row_losses, row_gains
from anatomy.interpret.logit_lens import residual_streams, logit_lens, lens_ranks, save_char_gpt, load_char_gpt
from anatomy.interpret.patching import patch, check_pair, restored_fraction, logit_difference
from anatomy.interpret.cross_attention import (FIELDS, Example, check_field, source_spans, held_out_examples, check_run,
                                               check_heads, all_heads, attention_to_fields, ablate, cross_head_means,
                                               field_accuracy)
from anatomy.interpret.path_patching import date_pair, field_metric, patch_heads, head_patching, path_patching
