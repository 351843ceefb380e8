"""Writing output token by token: greedy decoding, sampling, beam search, text generation with a KV cache.

Taught in: 06_decoder (greedy), 11_gpt (sampling, beam search, text generation).
"""
from anatomy.generation.beam_search import Hypothesis, beam_search, best_live_score
from anatomy.generation.greedy import check_generation, greedy_decode
from anatomy.generation.sampling import check_sampling, top_k_filter, top_p_filter, next_token_distribution, choose_next
from anatomy.generation.text_generation import check_generate_call, generate
