"""BertViz views that render offline: require.js, d3 and jQuery come from local copies first.

Taught in: 03_attention (neuron_view), 04_multi_head_attention (head_view, model_view) and
07_training (head_view and model_view of an encoder-decoder: encoder_attention, decoder_attention,
cross_attention, with encoder_tokens and decoder_tokens).

BertViz loads its scripts from a CDN, so its views are blank offline. These wrappers return the
same views, rewritten to try, in order: the local copies that `make install` fetches from npm into
anatomy/static/vendor/ (never committed), served by Jupyter's /files/ route or by a path relative
to the notebook (for exported HTML); then the CDN.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import bertviz
import torch
from IPython.display import HTML

VENDOR_DIR = Path(__file__).parent / "static" / "vendor"
CDN = {
    "require": "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min",
    "d3": "https://cdnjs.cloudflare.com/ajax/libs/d3/5.7.0/d3.min",
    "jquery": "https://cdnjs.cloudflare.com/ajax/libs/jquery/2.0.0/jquery.min",
}
LOCAL_FILES = {"require": "require", "d3": "d3.min", "jquery": "jquery.min"}  # + ".js"
REQUIRE_TAG = re.compile(r'<script src="https://cdnjs\.cloudflare\.com/ajax/libs/require\.js/[^"]+"></script>')
LONG_FLOAT = re.compile(r"(\d\.\d{4})\d+")
VIEW_SCRIPT = '<script type="text/javascript">'
LOADER = """<script>
window.anatomyVendor = window.anatomyVendor || function (name, local, cdn) {
  var urls = [], config = document.getElementById("jupyter-config-data");
  var page = window.location.pathname.match(/\\/tree\\/(.*)\\/[^\\/]*$/);
  if (local && config && page) urls.push(JSON.parse(config.textContent).baseUrl + "files/" + page[1] + "/" + local);
  if (local) urls.push(local);
  urls.push(cdn);
  return urls;
};
window.anatomyWithRequire = window.anatomyWithRequire || function (callback) {
  if (window.requirejs) return callback();
  var waiting = window.anatomyRequireQueue = window.anatomyRequireQueue || [];
  waiting.push(callback);
  if (waiting.length > 1) return;
  var sources = anatomyVendor("require", REQUIRE_LOCAL, REQUIRE_CDN);
  (function load(i) {
    var tag = document.createElement("script");
    tag.src = sources[i] + ".js";
    tag.onload = function () { while (waiting.length) waiting.shift()(); };
    tag.onerror = function () { if (i + 1 < sources.length) load(i + 1); };
    document.head.appendChild(tag);
  })(0);
};
</script>"""


def local_script_dir() -> str | None:
    """The vendor folder relative to the notebook's working directory, or None if not installed."""
    if not all((VENDOR_DIR / f"{name}.js").is_file() for name in LOCAL_FILES.values()):
        return None
    return Path(os.path.relpath(VENDOR_DIR, Path.cwd())).as_posix()


def offline_html(html: str, local_dir: str | None = None) -> str:
    """Rewrite a BertViz page (html_action='return') to load its scripts locally first.
    Floats are cut to 4 decimals: the view looks the same, and the page is a third of the size."""
    def local(name: str) -> str:
        return json.dumps(f"{local_dir}/{LOCAL_FILES[name]}" if local_dir else None)

    html = LONG_FLOAT.sub(r"\1", html)
    start = html.rfind(VIEW_SCRIPT)  # the last script draws the view; earlier ones set params
    if start < 0 or not REQUIRE_TAG.search(html):
        raise ValueError("not a BertViz view: no require.js tag or view script found")
    script = html[start + len(VIEW_SCRIPT):html.rindex("</script>")]
    for name in ("d3", "jquery"):
        script = script.replace(f"'{CDN[name]}'", f"anatomyVendor({json.dumps(name)}, {local(name)}, '{CDN[name]}')")
    loader = LOADER.replace("REQUIRE_LOCAL", local("require")).replace("REQUIRE_CDN", json.dumps(CDN["require"]))
    page = REQUIRE_TAG.sub(loader, html[:start])
    return page + f'<script type="text/javascript">\nanatomyWithRequire(function () {{\n{script}\n}});\n</script>'


def head_view(attention=None, tokens=None, sentence_b_start=None, **kwargs) -> HTML:
    """bertviz.head_view, rendered offline. `attention` is a tuple of (1, H, T, T) per layer; for an
    encoder-decoder pass encoder_attention=, decoder_attention=, cross_attention= instead."""
    view = bertviz.head_view(attention, tokens, sentence_b_start, html_action="return", **kwargs)
    return HTML(offline_html(view.data, local_script_dir()))


def model_view(attention=None, tokens=None, sentence_b_start=None, **kwargs) -> HTML:
    """bertviz.model_view (every layer and head), rendered offline."""
    view = bertviz.model_view(attention, tokens, sentence_b_start, html_action="return", **kwargs)
    return HTML(offline_html(view.data, local_script_dir()))


def neuron_model(checkpoint: str | None = None):
    """(model, tokenizer) of BertViz's own BERT fork, which neuron_view needs, holding the weights
    of a BERT checkpoint (default: the bundled model). The weights are read from safetensors and
    loaded with load_state_dict: no pytorch_model.bin, nothing unpickled."""
    from bertviz.transformers_neuron_view import BertConfig, BertModel, BertTokenizer

    from anatomy.bert_weights import load_config, read_state_dict
    from anatomy.pretrained import checkpoint_folder

    config = BertConfig.from_dict(load_config(checkpoint).to_dict())
    config.output_attentions = True
    model = BertModel(config)
    wanted = model.state_dict().keys()
    model.load_state_dict({k: v for k, v in read_state_dict(checkpoint).items() if k in wanted}, strict=True)
    vocab = checkpoint_folder(checkpoint, "vocab.txt") / "vocab.txt"
    tokenizer = BertTokenizer(str(vocab), do_lower_case=True)
    return model.eval(), tokenizer


def neuron_view(sentence_a: str, sentence_b: str | None = None, layer: int = 0, head: int = 0,
                checkpoint: str | None = None, display_mode: str = "light") -> HTML:
    """bertviz's neuron_view (how queries and keys produce each score), rendered offline."""
    from bertviz import neuron_view as bertviz_neuron_view

    model, tokenizer = neuron_model(checkpoint)
    with torch.no_grad():
        view = bertviz_neuron_view.show(model, "bert", tokenizer, sentence_a, sentence_b,
                                        display_mode=display_mode, layer=layer, head=head,
                                        html_action="return")
    return HTML(offline_html(view.data, local_script_dir()))
