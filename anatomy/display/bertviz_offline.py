"""How anatomy.display.viz makes a BertViz page draw anywhere, offline too: require.js, d3 and jQuery
travel inside the view.

Used in: 03_attention, 04_multi_head_attention and 07_training, through anatomy.display.viz.

BertViz loads its scripts from a CDN, so its views are blank offline. Where should local copies
come from? An address computed from the page's URL breaks whenever JupyterLab restores a tab and
in Notebook 7; Jupyter's /files/ route only reaches files under the server's root; a server
extension works only when the server runs in the course's environment (not in Colab, VS Code or a
system-wide Jupyter). So the views of anatomy.display.viz carry the scripts `make install` fetches from npm
(anatomy/static/vendor/, never committed) inside each output and hand them to require.js as
blob: URLs, with the CDN as fallback. The view then needs no address at all: it draws in
JupyterLab, Notebook 7, Colab, VS Code and exported HTML, after a reload, a reopen, "Trust" or a
kernel restart. The price is size: about 410 kB of script per view (measured: 409,743 bytes).

A saved output runs no scripts until the notebook is trusted, so each view starts with a one-line
note ("Run this cell...") that its script removes once the view has drawn. Each view's id is
derived from its content, so re-running a notebook reproduces its outputs byte for byte. The
rewrite depends on the HTML of one BertViz version (BERTVIZ_VERSION, pinned in requirements.txt):
any other HTML raises ValueError.
"""
from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path

BERTVIZ_VERSION = "1.4.1"
VENDOR_DIR = Path(__file__).parent.parent / "static" / "vendor"  # anatomy/static/vendor
CDN = {
    "require": "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min",
    "d3": "https://cdnjs.cloudflare.com/ajax/libs/d3/5.7.0/d3.min",
    "jquery": "https://cdnjs.cloudflare.com/ajax/libs/jquery/2.0.0/jquery.min",
}
LOCAL_FILES = {"require": "require.js", "d3": "d3.min.js", "jquery": "jquery.min.js"}
REQUIRE_TAG = f'<script src="{CDN["require"]}.js"></script>'
VIEW_ID = re.compile(r"bertviz-[0-9a-f]{32}")
LONG_FLOAT = re.compile(r"(\d\.\d{4})\d+")
VIEW_SCRIPT = '<script type="text/javascript">'
RUN_NOTE = ('<div id="{view_id}-note" style="color:#555;font-style:italic">Run this cell to draw the interactive '
            'view (a saved output cannot run scripts until the notebook is trusted).</div>')
LOADER = """<script>
(function (sources) {
  var urls = window.anatomyScripts = window.anatomyScripts || {};
  for (var name in sources) if (!urls[name])
    urls[name] = URL.createObjectURL(new Blob([sources[name]], {type: "text/javascript"}));
})(SOURCES);
window.anatomyVendor = window.anatomyVendor || function (name, cdn) {
  return window.anatomyScripts[name] ? [window.anatomyScripts[name], cdn] : [cdn];
};
window.anatomyWithRequire = window.anatomyWithRequire || function (callback) {
  if (window.requirejs) return callback();
  var waiting = window.anatomyRequireQueue = window.anatomyRequireQueue || [];
  waiting.push(callback);
  if (waiting.length > 1) return;
  var sources = anatomyVendor("require", REQUIRE_CDN + ".js");
  (function load(i) {
    var tag = document.createElement("script");
    tag.src = sources[i];
    tag.onload = function () { while (waiting.length) waiting.shift()(); };
    tag.onerror = function () { if (i + 1 < sources.length) load(i + 1); };
    document.head.appendChild(tag);
  })(0);
};
</script>"""
DRAWN = """
requirejs(["jquery", "d3"], function () {
  var note = document.getElementById(NOTE); if (note) note.remove();
}, function (error) {
  var note = document.getElementById(NOTE);
  if (note) note.textContent = "The view could not load its scripts (" + error.requireModules + "): " +
    "run `make install` for local copies, or go online for the CDN.";
});"""
_issued_ids: dict[str, int] = {}


@lru_cache(maxsize=1)
def vendor_scripts() -> dict[str, str] | None:
    """The local require.js, d3 and jQuery sources (name -> text), or None if not installed."""
    paths = {name: VENDOR_DIR / file for name, file in LOCAL_FILES.items()}
    if not all(path.is_file() for path in paths.values()):
        return None
    return {name: path.read_text(encoding="utf-8") for name, path in paths.items()}


def _changed(what: str) -> ValueError:
    return ValueError(f"not a BertViz {BERTVIZ_VERSION} view: expected {what}. anatomy.display.viz rewrites the HTML "
                      f"of bertviz=={BERTVIZ_VERSION}; bertviz {version('bertviz')} is installed "
                      f"(pip install bertviz=={BERTVIZ_VERSION})")


def _content_id(html: str) -> str:
    """A view id derived from the view's content (BertViz draws a random one), unique in this kernel."""
    digest = hashlib.sha1(VIEW_ID.sub("bertviz-ID", html).encode()).hexdigest()[:32]  # same view, same id
    _issued_ids[digest] = _issued_ids.get(digest, 0) + 1
    if _issued_ids[digest] > 1:
        digest = hashlib.sha1(f"{digest}{_issued_ids[digest]}".encode()).hexdigest()[:32]
    return f"bertviz-{digest}"


def offline_html(html: str, scripts: dict[str, str] | None = None) -> str:
    """Rewrite a BertViz page (html_action='return') to carry `scripts` (see vendor_scripts), the CDN
    as fallback. Floats are cut to 4 decimals: the view looks the same, and the page is a third of the size."""
    html = LONG_FLOAT.sub(r"\1", html)
    if REQUIRE_TAG not in html:
        raise _changed(f"the tag {REQUIRE_TAG}")
    ids = set(VIEW_ID.findall(html))
    if len(ids) != 1:
        raise _changed(f"one view id bertviz-<32 hex digits>, found {len(ids)}")
    html = VIEW_ID.sub(_content_id(html), html)
    view_id = VIEW_ID.search(html).group()
    start = html.rfind(VIEW_SCRIPT)  # the last script draws the view; earlier ones set params
    if start < 0 or not html.rstrip().endswith("</script>"):
        raise _changed(f"a final view script {VIEW_SCRIPT}...</script>")
    script = html[start + len(VIEW_SCRIPT):html.rindex("</script>")]
    for name in ("d3", "jquery"):
        if f"'{CDN[name]}'" not in script:
            raise _changed(f"the {name} address '{CDN[name]}' in the view script")
        script = script.replace(f"'{CDN[name]}'", f"anatomyVendor({json.dumps(name)}, '{CDN[name]}')")
    sources = json.dumps(scripts or {}).replace("</", "<\\/")
    loader = LOADER.replace("REQUIRE_CDN", json.dumps(CDN["require"])).replace("SOURCES", sources)
    page = RUN_NOTE.format(view_id=view_id) + html[:start].replace(REQUIRE_TAG, loader)
    drawn = DRAWN.replace("NOTE", json.dumps(f"{view_id}-note"))
    return page + f'<script type="text/javascript">\nanatomyWithRequire(function () {{\n{script}\n{drawn}\n}});\n</script>'
