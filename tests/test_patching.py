"""anatomy.interpret.patching: one patching grid checked against the same patches made with forward hooks on Hugging
Face's GPT2LMHeadModel (same weights); the dates translator's month lives where the differing letter is;
bad pairs and bad patches are named."""
import pytest
import torch
import transformers
from test_hooks import tiny_gpt2

from anatomy.tasks.dates import CharVocabulary, make_batch
from anatomy.tasks.dates_translator import DATES_MODEL_DIR
from anatomy.interpret.hooks import Hooks
from anatomy.interpret.patching import logit_difference, patch, restored_fraction
from anatomy.models.transformer import Transformer

transformers.logging.set_verbosity_error()


def test_a_patching_grid_equals_the_one_made_with_hooks_on_hugging_faces_gpt2():
    hf, ours = tiny_gpt2(layers=2)
    clean = torch.tensor([[5, 9, 13, 7, 21, 3]])
    corrupted = clean.clone()
    corrupted[0, 2] = 40
    metric = logit_difference(-1, good=11, bad=17)
    grid = restored_fraction(ours, ["blocks.0.resid_post", "blocks.1.resid_post"], (clean,), (corrupted,), metric)
    value = lambda logits: logits[0, -1, 11] - logits[0, -1, 17]  # noqa: E731
    with torch.no_grad():
        low, high = value(hf(corrupted).logits), value(hf(clean).logits)
        for layer, block in enumerate(hf.transformer.h):  # HF's own block outputs, recorded and pasted by hooks
            clean_stream = []
            handle = block.register_forward_hook(lambda m, a, o: clean_stream.append(o[0] if isinstance(o, tuple) else o))
            hf(clean)
            handle.remove()
            for t in range(clean.size(1)):
                def paste(module, args, output, t=t):
                    stream = (output[0] if isinstance(output, tuple) else output).clone()
                    stream[:, t] = clean_stream[0][:, t]
                    return (stream, *output[1:]) if isinstance(output, tuple) else stream
                handle = block.register_forward_hook(paste)
                expected = (value(hf(corrupted).logits) - low) / (high - low)
                handle.remove()
                torch.testing.assert_close(grid[layer, t], expected, atol=1e-4, rtol=1e-4)
    assert grid[:, :2].abs().max() < 1e-6 and grid.abs().max() > 0.1  # causal: before position 2 nothing differs


def dates_pair():
    vocab = CharVocabulary()
    model = Transformer.from_pretrained(DATES_MODEL_DIR)
    clean = make_batch([("Mar 3 2021", "2021-03-03")], vocab)
    corrupted = make_batch([("May 3 2021", "2021-05-03")], vocab)
    month = 6  # the target position whose label is the month's second digit
    metric = logit_difference(month, clean.labels[0, month].item(), corrupted.labels[0, month].item())
    return model, clean, corrupted, metric


def test_the_dates_translator_reads_the_month_from_the_differing_letter():
    model, clean, corrupted, metric = dates_pair()
    grid = restored_fraction(model, ["encoder.0.resid_pre", "encoder.1.resid_post"], (clean.src_ids, clean.tgt_ids),
                             (corrupted.src_ids, clean.tgt_ids), metric)
    assert grid[0, 2] > 0.99 and grid[0].sum() - grid[0, 2] < 0.01  # the embedding: only 'r' vs 'y' matters
    assert grid[1].max() > 0.5  # after the encoder the month is still readable at some position


def test_without_the_patch_nothing_is_restored():
    model, clean, corrupted, metric = dates_pair()
    with torch.no_grad(), Hooks(model, edit={"encoder.0.resid_pre": lambda x: None}):
        same = metric(model(corrupted.src_ids, clean.tgt_ids))
        base = metric(model(corrupted.src_ids, clean.tgt_ids))
    assert same == base


def test_bad_pairs_and_bad_patches_are_named():
    model, clean, corrupted, metric = dates_pair()
    longer = make_batch([("March 3 2021", "2021-03-03")], CharVocabulary())
    with pytest.raises(ValueError, match=r"argument 0 of the clean and corrupted runs must have one shape, got "
                                         r"\(1, 10\) and \(1, 12\).*two prompts of the same length"):
        restored_fraction(model, ["encoder.0.resid_post"], (clean.src_ids, clean.tgt_ids),
                          (longer.src_ids, clean.tgt_ids), metric)
    with pytest.raises(ValueError, match=r"the patch for 'encoder.0.resid_post' has shape \(1, 12, 64\), but the "
                                         r"activation there is \(1, 10, 64\)"):
        with Hooks(model, edit={"encoder.0.resid_post": patch("encoder.0.resid_post", torch.zeros(1, 12, 64))}):
            model(clean.src_ids, clean.tgt_ids)
    with pytest.raises(ValueError, match="position 10 is outside the 10 positions"):
        with Hooks(model, edit={"encoder.0.resid_post": patch("encoder.0.resid_post", torch.zeros(1, 10, 64), 10)}):
            model(clean.src_ids, clean.tgt_ids)
    with pytest.raises(ValueError, match="the metric is .* on both runs: nothing to restore"):
        restored_fraction(model, ["encoder.0.resid_post"], (clean.src_ids, clean.tgt_ids),
                          (clean.src_ids, clean.tgt_ids), metric)


def test_a_metric_that_gives_nan_and_bad_names_are_refused():
    model, clean, corrupted, metric = dates_pair()
    pair = (clean.src_ids, clean.tgt_ids), (corrupted.src_ids, clean.tgt_ids)
    with pytest.raises(ValueError, match=r"metric must return one finite number \(a 0-dim tensor\), got tensor\(nan\) "
                                         r"on the clean run"):
        restored_fraction(model, ["encoder.0.resid_post"], *pair, lambda output: torch.tensor(float("nan")))
    for names in ("encoder.0.resid_post", []):
        with pytest.raises(ValueError, match=r"names must be a non-empty list of hook points"):
            restored_fraction(model, names, *pair, metric)
    calls = []

    def nan_when_patched(output):  # finite on the clean and corrupted runs, NaN once a patch is in
        calls.append(1)
        return metric(output) if len(calls) <= 2 else torch.tensor(float("nan"))
    with pytest.raises(ValueError, match=r"metric gave NaN on the patched run at \(point, position\) \[0, 0\]"):
        restored_fraction(model, ["encoder.0.resid_post"], *pair, nan_when_patched)


@pytest.mark.parametrize("source, position, message", [
    (None, None, r"source must be the activation recorded on the clean run \(a tensor\), got NoneType"),
    (torch.zeros(1, 3, 4), 1.5, r"position must be an integer position \(or None for all\), got 1.5"),
])
def test_a_patch_of_the_wrong_kind_is_refused_when_made(source, position, message):
    with pytest.raises(TypeError, match=message):
        patch("blocks.0.resid_post", source, position)
