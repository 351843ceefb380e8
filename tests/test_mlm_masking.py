"""BERT's 80/10/10 masking against Hugging Face's DataCollatorForLanguageModeling: the same masks from the same
seed, and the same statistics over many independent draws (binomial intervals), plus its bad inputs."""
import math

import pytest
import torch
from scipy.stats import chisquare
from transformers import AutoTokenizer, DataCollatorForLanguageModeling

from anatomy.corpora.stdlib_docstrings import stdlib_sentences
from anatomy.models.mlm_masking import IGNORE_INDEX, mask_tokens
from anatomy.checkpoints.pretrained import default_model_dir

Z = 4.5  # a seeded test: a 4.5-sigma interval would fail by chance about once in 150,000 seeds


@pytest.fixture(scope="module")
def tokenizer():
    return AutoTokenizer.from_pretrained(default_model_dir())


@pytest.fixture(scope="module")
def batch(tokenizer):
    """64 real sentences, right-padded, with [CLS], [SEP] and [PAD]: (64, T)."""
    return tokenizer(stdlib_sentences(64), padding=True, truncation=True, max_length=48,
                     return_tensors="pt")["input_ids"]


def ours(tokenizer, ids, seed, p=0.15):
    return mask_tokens(ids, tokenizer.mask_token_id, len(tokenizer), tokenizer.all_special_ids,
                       torch.Generator().manual_seed(seed), mlm_probability=p)


def theirs(tokenizer, ids, seed, p=0.15):
    collator = DataCollatorForLanguageModeling(tokenizer, mlm_probability=p)
    collator.generator = torch.Generator().manual_seed(seed)
    special = torch.tensor([tokenizer.get_special_tokens_mask(row, already_has_special_tokens=True)
                            for row in ids.tolist()])
    return collator.torch_mask_tokens(ids.clone(), special_tokens_mask=special)


def test_same_seed_same_masks_as_hugging_face(tokenizer, batch):
    for seed in range(5):
        (inputs, labels), (their_inputs, their_labels) = ours(tokenizer, batch, seed), theirs(tokenizer, batch, seed)
        assert torch.equal(labels, their_labels) and torch.equal(inputs, their_inputs)


def counts(tokenizer, ids, draw, seeds):
    """Totals over `seeds` draws: maskable tokens, chosen, [MASK]ed, randomised, kept; and the random ids."""
    maskable = (~torch.isin(ids, torch.tensor(tokenizer.all_special_ids))).sum().item() * len(seeds)
    chosen = masked = randomised = kept = 0
    random_ids = []
    for seed in seeds:
        inputs, labels = draw(tokenizer, ids, seed)
        picked = labels != IGNORE_INDEX
        chosen += picked.sum().item()
        masked += (picked & (inputs == tokenizer.mask_token_id)).sum().item()
        changed = picked & (inputs != tokenizer.mask_token_id) & (inputs != ids)
        randomised += changed.sum().item()
        kept += (picked & (inputs == ids)).sum().item()
        random_ids.append(inputs[changed])
    return maskable, chosen, masked, randomised, kept, torch.cat(random_ids)


def test_proportions_match_hugging_face_and_bert(tokenizer, batch):
    mine = counts(tokenizer, batch, ours, range(300))
    hf = counts(tokenizer, batch, theirs, range(1000, 1300))  # independent draws
    assert mine[0] == hf[0]
    for index, target in ((1, 0.15), (2, 0.8), (3, 0.1), (4, 0.1)):
        n_a, n_b = (mine[0], hf[0]) if index == 1 else (mine[1], hf[1])  # chosen / maskable, the rest / chosen
        p_a, p_b = mine[index] / n_a, hf[index] / n_b
        sd = math.sqrt(target * (1 - target) / n_a)
        assert abs(p_a - target) < Z * sd, (index, p_a, target)
        assert abs(p_b - target) < Z * sd, (index, p_b, target)
        assert abs(p_a - p_b) < Z * sd * math.sqrt(2), (index, p_a, p_b)
    assert mine[2] + mine[3] + mine[4] == mine[1]  # every chosen token is masked, randomised or kept


def test_random_tokens_are_uniform_over_the_vocabulary(tokenizer, batch):
    """Ten equal bins of the 30,522 ids: a chi-square test for ours and for Hugging Face's."""
    for draw, seeds in ((ours, range(300)), (theirs, range(300))):
        random_ids = counts(tokenizer, batch, draw, seeds)[5]
        bins = torch.bincount(random_ids * 10 // len(tokenizer), minlength=10)
        assert chisquare(bins.tolist()).pvalue > 1e-4


def test_small_vocabulary_random_ids_cover_it_uniformly():
    ids = torch.randint(4, 20, (256, 32), generator=torch.Generator().manual_seed(0))
    drawn = []
    for seed in range(40):
        inputs, labels = mask_tokens(ids, 3, 20, {0, 1, 2, 3}, torch.Generator().manual_seed(seed))
        drawn.append(inputs[(labels != IGNORE_INDEX) & (inputs != 3) & (inputs != ids)])
    per_id = torch.bincount(torch.cat(drawn), minlength=20)
    assert per_id[:3].min() > 0  # special ids too, as Hugging Face draws them ([MASK], 3, is not told apart here)
    assert chisquare(per_id[:3].tolist()).pvalue > 1e-4
    assert chisquare(per_id[4:].tolist()).pvalue > 1e-4  # ordinary ids (a draw equal to the original looks kept)


def test_special_and_padding_never_chosen_and_input_untouched(tokenizer, batch):
    before = batch.clone()
    inputs, labels = ours(tokenizer, batch, 0, p=0.9)
    special = torch.isin(batch, torch.tensor(tokenizer.all_special_ids))
    assert torch.equal(batch, before)
    assert (labels[special] == IGNORE_INDEX).all() and torch.equal(inputs[special], batch[special])
    chosen = labels != IGNORE_INDEX
    assert torch.equal(labels[chosen], batch[chosen])


def test_a_draw_that_chooses_nothing_chooses_one_token():
    ids = torch.tensor([[1, 7, 2, 0, 0]])
    inputs, labels = mask_tokens(ids, 3, 10, {0, 1, 2, 3}, torch.Generator().manual_seed(0), mlm_probability=1e-9)
    assert labels.tolist() == [[-100, 7, -100, -100, -100]]


@pytest.mark.parametrize("p", [0, 1, -0.1, 1.5, float("nan"), True, "0.15"])
def test_probability_outside_zero_one_is_refused(p):
    with pytest.raises(ValueError, match=r"strictly between 0 and 1, got .*BERT uses 0.15"):
        mask_tokens(torch.tensor([[1, 7, 2]]), 3, 10, {0, 1, 2, 3}, mlm_probability=p)


def test_batch_with_no_maskable_token_is_refused():
    with pytest.raises(ValueError, match=r"no token can be masked: every one of the 6 tokens is padding or a special"):
        mask_tokens(torch.tensor([[1, 2, 0], [1, 2, 0]]), 3, 10, {0, 1, 2, 3})


def test_other_bad_inputs():
    with pytest.raises(ValueError, match="must include mask_id"):
        mask_tokens(torch.tensor([[1, 7, 2]]), 3, 10, {0, 1, 2})
    with pytest.raises(ValueError, match="int64 tensor"):
        mask_tokens(torch.tensor([[1.0, 7.0]]), 3, 10, {0, 1, 2, 3})
    with pytest.raises(ValueError, match="mask_id must be an integer in"):
        mask_tokens(torch.tensor([[1, 7, 2]]), 10, 10, {0, 1, 2, 10})


def test_after_a_draw_that_chooses_nothing_the_generator_stays_in_step_with_hugging_face(tokenizer, batch):
    """A one-token sentence at p = 0.01 chooses nothing for most seeds: we still choose one token (HF none),
    but the same generator then masks the next batch exactly as Hugging Face's does."""
    short = tokenizer(["word"], return_tensors="pt")["input_ids"]  # [CLS] word [SEP]
    collator = DataCollatorForLanguageModeling(tokenizer, mlm_probability=0.01)
    fallbacks = 0
    for seed in range(6):
        mine, hers = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
        _, labels = mask_tokens(short, tokenizer.mask_token_id, len(tokenizer), tokenizer.all_special_ids, mine, 0.01)
        collator.generator = hers
        special = torch.tensor([tokenizer.get_special_tokens_mask(row, already_has_special_tokens=True)
                                for row in short.tolist()])
        _, their_labels = collator.torch_mask_tokens(short.clone(), special_tokens_mask=special)
        fallbacks += int((their_labels == IGNORE_INDEX).all())
        assert (labels != IGNORE_INDEX).sum() >= 1
        next_ours = mask_tokens(batch, tokenizer.mask_token_id, len(tokenizer), tokenizer.all_special_ids, mine)
        collator.mlm_probability = 0.15
        next_theirs = collator.torch_mask_tokens(batch.clone(), special_tokens_mask=torch.tensor(
            [tokenizer.get_special_tokens_mask(row, already_has_special_tokens=True) for row in batch.tolist()]))
        collator.mlm_probability = 0.01
        assert all(torch.equal(a, b) for a, b in zip(next_ours, next_theirs)), seed
    assert fallbacks >= 4


@pytest.mark.parametrize("ids, message", [
    ([[1, 7, 10]], r"input_ids must hold ids in \[0, 9\] \(vocab_size 10\), got \[10\]"),
    ([[1, -100, 2]], r"input_ids must hold ids in \[0, 9\] \(vocab_size 10\), got \[-100\]"),
])
def test_ids_outside_the_vocabulary_are_refused(ids, message):
    with pytest.raises(ValueError, match=message):
        mask_tokens(torch.tensor(ids), 3, 10, {0, 1, 2, 3})


@pytest.mark.parametrize("special_ids", [None, "0123", 3, [0, 1.5, 3]])
def test_special_ids_must_be_a_collection_of_ids(special_ids):
    with pytest.raises(TypeError, match=r"special_ids must be a collection of integer ids .*got"):
        mask_tokens(torch.tensor([[1, 7, 2]]), 3, 10, special_ids)
