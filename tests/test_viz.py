import pytest
import torch

from anatomy import viz


@pytest.fixture(scope="module")
def attention(pretrained):
    tokenizer, model = pretrained
    batch = tokenizer("time flies like an arrow", return_tensors="pt")
    with torch.no_grad():
        attentions = model(**batch, output_attentions=True).attentions
    return attentions, tokenizer.convert_ids_to_tokens(batch.input_ids[0])


def test_views_load_local_scripts_then_the_cdn(attention):
    for view in (viz.head_view, viz.model_view):
        html = view(*attention).data
        assert "cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js\"></script>" not in html
        local = viz.local_script_dir()
        assert local is not None, "run `make install` to fetch the local scripts"
        assert f'anatomyVendor("d3", "{local}/d3.min"' in html
        assert "'https://cdnjs.cloudflare.com/ajax/libs/d3/5.7.0/d3.min')" in html
        assert "anatomyWithRequire(function ()" in html


def test_offline_html_without_local_copies_keeps_only_the_cdn(attention):
    import bertviz

    html = viz.offline_html(bertviz.head_view(*attention, html_action="return").data, local_dir=None)
    assert 'anatomyVendor("d3", null,' in html


def test_offline_html_refuses_other_html():
    with pytest.raises(ValueError, match="not a BertViz view"):
        viz.offline_html("<p>hello</p>")


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
