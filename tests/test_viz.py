import json
import re
from importlib.metadata import version
from pathlib import Path

import bertviz
import pytest
import torch

from anatomy.display import bertviz_offline as offline
from anatomy.display import viz


@pytest.fixture(scope="module")
def attention(pretrained):
    tokenizer, model = pretrained
    batch = tokenizer("time flies like an arrow", return_tensors="pt")
    with torch.no_grad():
        attentions = model(**batch, output_attentions=True).attentions
    return attentions, tokenizer.convert_ids_to_tokens(batch.input_ids[0])


def test_views_carry_the_local_scripts_then_the_cdn(attention):
    scripts = offline.vendor_scripts()
    assert scripts is not None, "run `make install` to fetch the local scripts"
    for view in (viz.head_view, viz.model_view):
        html = view(*attention).data
        assert offline.REQUIRE_TAG not in html
        assert json.dumps(scripts["d3"]).replace("</", "<\\/") in html  # the d3 source travels with the view
        assert "anatomyVendor(\"d3\", 'https://cdnjs.cloudflare.com/ajax/libs/d3/5.7.0/d3.min')" in html
        assert "anatomyWithRequire(function ()" in html
        assert "../anatomy" not in html and "/files/" not in html  # no address that depends on the page


def test_offline_html_without_local_copies_keeps_only_the_cdn(attention):
    html = offline.offline_html(bertviz.head_view(*attention, html_action="return").data, scripts=None)
    assert "})({});" in html and "anatomyVendor(\"d3\", 'https://cdnjs" in html


def test_view_ids_follow_the_content(attention):
    tokens = attention[1]
    offline._issued_ids.clear()  # as in a fresh kernel
    first = offline.offline_html(bertviz.head_view(*attention, html_action="return").data)
    again = offline.offline_html(bertviz.head_view(*attention, html_action="return").data)
    other = offline.offline_html(bertviz.head_view(attention[0], tokens[:-1] + ["x"], html_action="return").data)
    [first_id], [again_id], [other_id] = ({*offline.VIEW_ID.findall(h)} for h in (first, again, other))
    assert first_id != again_id, "two identical views in one notebook still need distinct ids"
    assert first_id != other_id
    offline._issued_ids.clear()  # the next fresh kernel gives the same view the same id again
    assert {*offline.VIEW_ID.findall(offline.offline_html(bertviz.head_view(*attention, html_action="return").data))} \
        == {first_id}


def test_saved_view_says_to_run_the_cell_until_it_draws(attention):
    html = viz.head_view(*attention).data
    [view_id] = {*offline.VIEW_ID.findall(html)}
    assert f'<div id="{view_id}-note"' in html and "Run this cell to draw the interactive view" in html
    assert f'getElementById("{view_id}-note"); if (note) note.remove();' in html


def test_offline_html_refuses_other_html():
    with pytest.raises(ValueError, match="not a BertViz 1.4.1 view: expected the tag <script src="):
        offline.offline_html("<p>hello</p>")


@pytest.mark.parametrize("change, expected", [
    (lambda h: h.replace("https://cdnjs.cloudflare.com/ajax/libs/d3/5.7.0/d3.min", "https://cdn.example/d3"),
     "expected the d3 address"),
    (lambda h: h.replace("require.js/2.3.6/require.min.js", "require.js/2.3.7/require.min.js"), "expected the tag"),
    (lambda h: h.replace("bertviz-", "vis-"), "expected one view id"),
    (lambda h: h[:h.rindex("</script>")], "expected a final view script"),
])
def test_offline_html_fails_loudly_if_bertviz_html_changes(attention, change, expected):
    html = bertviz.head_view(*attention, html_action="return").data
    with pytest.raises(ValueError, match=f"{expected}.*bertviz=={offline.BERTVIZ_VERSION}; bertviz "
                                         f"{version('bertviz')} is installed"):
        offline.offline_html(change(html))


def test_bertviz_is_pinned_to_the_version_the_rewrite_knows():
    requirements = (Path(__file__).parent.parent / "requirements.txt").read_text()
    assert re.search(rf"^bertviz=={re.escape(offline.BERTVIZ_VERSION)}\s", requirements, re.M)
    assert version("bertviz") == offline.BERTVIZ_VERSION


def test_neuron_model_matches_hugging_face(pretrained):
    tokenizer, model = pretrained
    neuron, neuron_tokenizer = viz.neuron_model()
    ids = tokenizer("time flies like an arrow", return_tensors="pt").input_ids
    assert neuron_tokenizer.convert_tokens_to_ids(neuron_tokenizer.tokenize("time flies like an arrow")) == \
        ids[0, 1:-1].tolist()
    with torch.no_grad():
        ours = neuron(ids)[0]
        theirs = model(ids).last_hidden_state
    torch.testing.assert_close(ours, theirs, atol=1e-4, rtol=1e-4)


def test_neuron_view_renders(pretrained):
    html = viz.neuron_view("the cat sat", "the dog ran").data
    assert "bertviz_params" in html and "anatomyWithRequire" in html


def test_views_embed_the_models_weights_at_display_precision(attention):
    """nbval does not compare the views' weight arrays (tests/nbval_sanitize.cfg): this test does,
    against the model, within the 4 decimals the view keeps."""
    attentions, tokens = attention
    html = viz.head_view(attentions, tokens).data
    embedded = json.loads(re.search(r'"attn": (\[[-+\d.e\[\], ]*\])', html).group(1))
    expected = torch.stack([layer[0] for layer in attentions])  # (layers, H, T, T)
    got = torch.tensor(embedded).reshape(expected.shape)
    torch.testing.assert_close(got, expected, atol=1e-4, rtol=1e-3)
    assert not torch.equal(got, expected), "the view should carry rounded weights, a third of the size"


def test_views_refuse_attention_that_does_not_fit_the_tokens(attention):
    attentions, tokens = attention
    batch_of_two = tuple(layer.expand(2, -1, -1, -1) for layer in attentions)
    with pytest.raises(ValueError, match=r"attention must be one \(1, H, Tq, Tk\) tensor per layer \(Tq = 7, Tk = 7, "
                                         r"the numbers of tokens\), got \[\(2, 12, 7, 7\).*layer\[i:i \+ 1\]"):
        viz.head_view(batch_of_two, tokens)
    with pytest.raises(ValueError, match=r"attention must be one \(1, H, Tq, Tk\) tensor per layer \(Tq = 6"):
        viz.model_view(attentions, tokens[:-1])
    decoder = tuple(layer[..., :6, :6] for layer in attentions)
    with pytest.raises(ValueError, match=r"cross_attention must be one \(1, H, Tq, Tk\) tensor per layer \(Tq = 6, Tk = 7"):
        viz.head_view(encoder_attention=attentions, decoder_attention=decoder, cross_attention=attentions,
                      encoder_tokens=tokens, decoder_tokens=tokens[:-1])
