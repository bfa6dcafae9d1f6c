"""The SPRT planner's figure and its panel on the Elo explorer's page.

:func:`planner_figure` draws :class:`chessmoe.explore.sprt.PlannerView` as two curves
against the true Elo: (a) the chance the test passes (accepts H1), (b) the expected number of
games until it stops. :class:`SprtPlannerPanel` holds the planner's own controls (where the
spread comes from, a draw ratio, a pair variance) and shows the text and the figure; the Elo
explorer calls :meth:`SprtPlannerPanel.update` with its SPRT settings and its match.
"""

from __future__ import annotations

import html
import math
from typing import Any

from matplotlib.figure import Figure

from chessmoe.explore import sprt as explore_sprt
from chessmoe.explore.elo import EloExplorerResult, as_typed
from chessmoe.explore.sprt import PlannerView
from chessmoe.report.figures.style import figure_png, new_figure

__all__ = ["SprtPlannerPanel", "planner_figure"]


def planner_figure(view: PlannerView) -> Figure:
    """(a) pass probability and (b) expected games against the true Elo, the bounds dashed,
    ``alpha`` and ``1 - beta`` marked, the match's estimate dotted where there is one."""
    plan = view.plan
    fig = new_figure(10, 3.6)
    left, right = fig.subplots(1, 2)
    elos = list(plan.elos)
    left.plot(elos, [p * 100 for p in plan.pass_probability], color="#1f78b4", lw=1.8)
    right.plot(elos, list(plan.expected_games), color="#33a02c", lw=1.8)
    unit = plan.unit
    for ax in (left, right):
        ax.axvline(plan.elo0, color="#e31a1c", ls="--", lw=1,
                   label=f"H0 ({unit} {as_typed(plan.elo0)})")
        ax.axvline(plan.elo1, color="#33a02c", ls="--", lw=1,
                   label=f"H1 ({unit} {as_typed(plan.elo1)})")
        if math.isfinite(view.estimate) and elos[0] <= view.estimate <= elos[-1]:
            ax.axvline(view.estimate, color="#d95f02", ls=":", lw=1.4,
                       label=f"the match's estimate ({view.estimate:+.1f})")
        ax.set_xlabel(f"true {unit}")
    left.axhline(plan.alpha * 100, color="#999999", lw=0.8)
    left.axhline((1 - plan.beta) * 100, color="#999999", lw=0.8)
    left.set_ylim(-2, 102)
    left.set_ylabel("the test passes (%)")
    left.set_title(f"(a) pass probability: {plan.alpha * 100:g} % at H0, "
                   f"{(1 - plan.beta) * 100:g} % at H1", fontsize=9)
    right.set_ylim(0, max(plan.expected_games) * 1.08)
    right.set_ylabel("expected games until it stops")
    right.set_title("(b) expected length", fontsize=9)
    left.legend(fontsize=7, loc="upper left")
    return fig


class SprtPlannerPanel:
    """The planner's controls (:attr:`source`, :attr:`draw_ratio`, :attr:`pair_variance`),
    text (:attr:`text`) and figure (:attr:`image`, CSS class ``sprt-planner``) in
    :attr:`box`. A bad value gives one red line naming its field and hides the figure."""

    def __init__(self, *, draw_ratio: float = 0.6, pair_variance: float = 0.05) -> None:
        import ipywidgets as widgets

        self.source = widgets.ToggleButtons(
            options=[("this match", "match"), ("a draw ratio", "draw ratio"),
                     ("a pair variance", "pair variance")],
            value="match", description="spread from", style={"button_width": "130px"})
        names = explore_sprt.FIELDS
        self.draw_ratio = widgets.Text(value=as_typed(draw_ratio),
                                       description=names["draw_ratio"],
                                       continuous_update=False,
                                       style={"description_width": "initial"},
                                       layout={"width": "230px"})
        self.pair_variance = widgets.Text(value=as_typed(pair_variance),
                                          description=names["pair_variance"],
                                          continuous_update=False,
                                          style={"description_width": "initial"},
                                          layout={"width": "250px"})
        self.text = widgets.HTML()
        self.image = widgets.Image(format="png", layout={"width": "100%", "max_width": "800px"})
        self.image.add_class("sprt-planner")
        self.view: PlannerView | None = None
        self.box = widgets.VBox([
            widgets.HTML("<h4>SPRT planner: what would this test do?</h4>"),
            self.source,
            widgets.HBox([self.draw_ratio, self.pair_variance],
                         layout={"display": "flex", "flex_flow": "row wrap"}),
            self.text, self.image])
        self._settings: dict[str, Any] | None = None
        self._result: EloExplorerResult | None = None
        for control in (self.source, self.draw_ratio, self.pair_variance):
            control.observe(self._redraw, names="value")

    def update(self, settings: dict[str, Any] | None, result: EloExplorerResult | None,
               error: str = "") -> None:
        """Redraw for the explorer's SPRT ``settings`` (elo0, elo1, alpha, beta, model; None
        with ``error`` when they cannot be read) and its match ``result`` (None without one)."""
        self._settings, self._result, self._error = settings, result, error
        self._redraw()

    def _show_error(self, message: str, *, note: bool = False) -> None:
        self.view = None
        self.text.value = (f"<p style='color:#555'>{html.escape(message)}</p>" if note else
                           f"<p style='color:#b00'>error: {html.escape(message)}</p>")
        self.image.layout.display = "none"

    def _redraw(self, *_: Any) -> None:
        self.draw_ratio.layout.display = "" if self.source.value == "draw ratio" else "none"
        self.pair_variance.layout.display = ("" if self.source.value == "pair variance"
                                             else "none")
        if self._settings is None:
            self._show_error(getattr(self, "_error", "") or "the SPRT settings are missing")
            return
        try:
            view = explore_sprt.planner_view(
                source=self.source.value, draw_ratio=self.draw_ratio.value,
                pair_variance=self.pair_variance.value, result=self._result,
                **self._settings)
        except explore_sprt.NoSpread as note:
            words = str(note)
            self._show_error(f"{words[:1].upper()}{words[1:]}.", note=True)
            return
        except ValueError as error:
            self._show_error(str(error))
            return
        self.view = view
        self.text.value = explore_sprt.planner_html(view)
        self.image.value = figure_png(planner_figure(view))
        self.image.layout.display = ""
