"""Writing output token by token: greedy decoding, sampling, beam search, text generation with a KV cache,
speculative decoding, and the G-test that checks a sampler's distribution.

Taught in: 06_decoder (greedy), 11_gpt (sampling, beam search, text generation, testing samplers).
"""
from anatomy.generation.beam_search import Hypothesis, beam_search, best_live_score
from anatomy.generation.goodness_of_fit import GTest, chi_square_sf, g_test
from anatomy.generation.greedy import check_generation, greedy_decode
from anatomy.generation.sampling import (check_sampling, choose_next, filtered_probs, next_token_distribution, pick_next,
                                         top_k_filter, top_p_filter)
from anatomy.generation.speculative import SpeculativeOutput, check_speculative_call, forward_last, speculative_generate, verify
from anatomy.generation.text_generation import check_generate_call, generate
