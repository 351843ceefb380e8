"""Text to learn from, all installable offline: Python docstrings, movie reviews, Korean law.

Taught in: 01_tokenization (standard-library sentences), 09_fine_tuning (reviews), 15_byte_level_bpe (Korean),
16_pretraining (a corpus's fingerprint).
"""
from anatomy.corpora.korean_corpus import corpus_dir, fetch_korean_corpus, korean_documents, korean_lines
from anatomy.corpora.sentiment_data import (Reviews, data_dir, reviews_path, fetch_reviews, what_is_wrong,
                                            check_reviews_file, read_rated_sentences, binary_label, load_reviews)
from anatomy.corpora.stdlib_docstrings import stdlib_sentences
from anatomy.corpora.fingerprint import TextsMatch, compare_texts, source_fingerprint, texts_record
