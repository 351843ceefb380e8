"""anatomy.display.plots: the tokens label both axes, a colour bar explains the colours, bad shapes say what was wrong."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import anatomy  # noqa: E402

TOKENS = ["time", "flies", "like"]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def tick_labels(axis):
    return [label.get_text() for label in axis.get_ticklabels()]


def colour_bars(fig):
    return [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]


def test_heatmap_labels_both_axes_and_has_a_colour_bar():
    weights = torch.softmax(torch.randn(3, 3), dim=-1)
    ax = anatomy.attention_heatmap(weights, TOKENS, TOKENS, title="t")
    assert tick_labels(ax.xaxis) == TOKENS and tick_labels(ax.yaxis) == TOKENS
    assert ax.get_xlabel().startswith("key") and ax.get_ylabel() == "query"
    assert len(colour_bars(ax.figure)) == 1
    assert (ax.images[0].get_array() == weights.numpy()).all()  # the matrix drawn is the one given, not transposed


def test_heatmap_rectangular_cross_attention():
    ax = anatomy.attention_heatmap(torch.rand(2, 3), ["a", "b"], TOKENS)
    assert tick_labels(ax.yaxis) == ["a", "b"] and tick_labels(ax.xaxis) == TOKENS


def test_grid_of_heads_shares_one_colour_bar_and_labels_outer_axes():
    fig = anatomy.attention_heatmaps(torch.rand(6, 3, 3), TOKENS, TOKENS, titles=[f"head {h}" for h in range(6)],
                                     ncols=4)
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>" and ax.images]
    assert len(panels) == 6 and len(colour_bars(fig)) == 1
    assert tick_labels(panels[0].yaxis) == TOKENS and tick_labels(panels[5].xaxis) == TOKENS
    assert [ax.get_title() for ax in panels] == [f"head {h}" for h in range(6)]


def test_mask_plot_says_which_colour_may_attend():
    ax = anatomy.mask_plot(anatomy.causal_mask(3), TOKENS, TOKENS)
    (bar,) = colour_bars(ax.figure)
    labels = tick_labels(bar.yaxis)
    assert labels == ["blocked (False)", "may attend (True)"]
    drawn = ax.images[0].get_array()
    assert drawn[0, 0] == 1 and drawn[0, 2] == 0  # True drawn with the "may attend" colour


@pytest.mark.parametrize("call, message", [
    (lambda: anatomy.attention_heatmap(torch.rand(1, 3, 3)), r"weights \(Tq, Tk\) must have 2 dimensions, got shape \(1, 3, 3\)"),
    (lambda: anatomy.attention_heatmap(torch.rand(3, 4), TOKENS, TOKENS), r"key axis \(columns\) has 4 positions but 3 labels"),
    (lambda: anatomy.attention_heatmap(torch.rand(2, 3), TOKENS, TOKENS), r"query axis \(rows\) has 2 positions but 3 labels"),
    (lambda: anatomy.attention_heatmaps(torch.rand(3, 3)), r"weights \(N, Tq, Tk\) must have 3 dimensions, got shape \(3, 3\)"),
    (lambda: anatomy.attention_heatmaps(torch.rand(2, 3, 3), titles=["one"]), "got 2 heat-maps but 1 titles"),
    (lambda: anatomy.attention_heatmaps(torch.rand(2, 3, 3), ncols=0), "ncols must be an integer >= 1, got 0"),
    (lambda: anatomy.mask_plot(torch.ones(3, 3)), r"mask must be boolean \(True = may attend\), got dtype torch.float32"),
    (lambda: anatomy.mask_plot(anatomy.padding_mask(torch.ones(2, 3))), r"mask \(Tq, Tk\) must have 2 dimensions"),
])
def test_bad_input_names_what_was_expected(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_nan_weights_and_settings_out_of_range_are_named():
    weights = torch.rand(3, 3)
    weights[1, 1] = float("nan")
    with pytest.raises(ValueError, match=r"weights \(Tq, Tk\) hold NaN or inf: those cells would be drawn blank"):
        anatomy.attention_heatmap(weights)
    with pytest.raises(ValueError, match=r"must have 3 dimensions, got shape \(1, 2, 3, 3\); for one example of a "
                                         r"batch pass weights\[0\]"):
        anatomy.attention_heatmaps(torch.rand(1, 2, 3, 3))
    with pytest.raises(ValueError, match="vmax must be a finite number > 0, got 0"):
        anatomy.attention_heatmap(torch.rand(3, 3), vmax=0)
    with pytest.raises(ValueError, match="ncols must be an integer >= 1, got 2.5"):
        anatomy.attention_heatmaps(torch.rand(2, 3, 3), ncols=2.5)
    plt.close("all")
