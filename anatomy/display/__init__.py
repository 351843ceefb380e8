"""Seeing what a model does: attention heat-maps, BertViz views that draw offline, and the setup call
every notebook makes.

Taught in: 03_attention (plots, BertViz), 18_cross_attention_circuits (a head view with its heads named),
every notebook (setup_notebook, show_source).

viz imports a heavy library (BertViz), so its names load when first used, not with `import anatomy`.
"""
import importlib

from anatomy.display.bertviz_offline import vendor_scripts, offline_html
from anatomy.display.notebook import (pick_device, seed_everything, quiet_libraries, enter_the_english_folder,
                                      setup_notebook, show_source)
from anatomy.display.plots import attention_heatmap, attention_heatmaps, mask_plot

LAZY = (dict.fromkeys(("check_layers", "check_views", "head_view", "model_view", "neuron_model", "neuron_view"),
                   "viz")
        | dict.fromkeys(("head_color", "view_grid", "check_names", "legend_text", "legend_html", "NamedHeadView",
                         "named_head_view"), "head_names"))  # name -> its module


def __getattr__(name: str):
    """The names of viz, imported when first asked for."""
    if name in LAZY:
        return getattr(importlib.import_module(f"{__name__}.{LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
