"""The Elo explorer in the browser (JupyterLab and the Voila page of
``notebooks/07_elo_explorer.ipynb``): :class:`EloExplorerWidget` shows
:func:`chessmoe.explore.elo.explore`'s record as text (:func:`result_html`) and the figure of
:func:`result_figure` as a PNG image widget, which renders in any browser.
"""

from __future__ import annotations

import html
import io
import math
import os
from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from chessmoe.explore import elo as explore_elo
from chessmoe.explore.elo import EloExplorerResult
from chessmoe.report.figures.style import new_figure

__all__ = ["TYPED", "EloExplorerWidget", "explorer_widget", "figure_png", "result_figure",
           "result_html"]


def result_figure(result: EloExplorerResult) -> Figure:
    """(a) each estimate's interval drawn as [low, high] (a missing bound as an arrow to the
    edge) with the 'what if' interval; (b) the SPRT log-likelihood path against its bounds.
    Each interval's text sits on its own line above its bar; the legend sits below the axes."""
    fig = new_figure(10, 4.6)
    left, right = fig.subplots(1, 2, width_ratios=(1.1, 1))
    rows = [(f"{e.model}\n{e.counts}", e, "#1f78b4" if i == 0 else "#33a02c")
            for i, e in enumerate(x for x in (result.trinomial, result.pentanomial)
                                  if x is not None)]
    what = result.what_if.estimate
    rows.append((f"what if {result.what_if.games} games\n(same proportions)", what, "#999999"))
    finite = [v for _, e, _ in rows for v in (e.low, e.high, e.elo) if math.isfinite(v)]
    span = max([abs(v) for v in finite] + [50.0]) * 1.25
    for y, (_label, est, color) in enumerate(rows):
        low = est.low if math.isfinite(est.low) else -span
        high = est.high if math.isfinite(est.high) else span
        left.plot([low, high], [y, y], color=color, lw=6, solid_capstyle="butt")
        if math.isfinite(est.elo):
            left.plot([est.elo], [y], "o", color="black", ms=5)
        for bound, edge in ((est.low, -span), (est.high, span)):
            if math.isinf(bound):
                left.annotate("", xy=(edge, y), xytext=(edge * 0.85, y),
                              arrowprops={"arrowstyle": "->", "color": color})
        shown = est.text(result.level).split(": ")[0]  # the note is in the text above
        left.text(0.01, y - 0.1, shown, ha="left", va="bottom", fontsize=7.5,
                  transform=left.get_yaxis_transform())
    left.axvline(0, color="black", lw=0.8)
    left.set_xlim(-span, span)
    left.locator_params(axis="x", nbins=5)  # wide spans (exact intervals) kept legible
    left.set_ylim(-0.75, len(rows) - 0.5)
    left.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=8)
    left.invert_yaxis()
    left.set_xlabel(f"Elo difference ({result.level * 100:g} % interval [low, high])")
    left.set_title("(a) the intervals", fontsize=9)
    fig.suptitle(result.verdict, fontsize=10)
    path = result.sprt
    unit = path.unit
    right.plot(path.games, path.llr, color="black", lw=1.5, label="LLR (same proportions)")
    right.axhline(path.upper, color="#33a02c", ls="--", lw=1.2,
                  label=f"accept H1 ({unit} {path.elo1:g}): {path.upper:.2f}")
    right.axhline(path.lower, color="#e31a1c", ls="--", lw=1.2,
                  label=f"accept H0 ({unit} {path.elo0:g}): {path.lower:.2f}")
    right.axvline(result.primary.games, color="#d95f02", ls=":", lw=1.2,
                  label=f"this match ({result.primary.games} games)")
    right.set_xscale("log")
    right.set_xlabel("games")
    right.set_ylabel("log-likelihood ratio")
    right.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2,
                 frameon=False)
    right.set_title(f"(b) SPRT path ({unit} bounds), alpha {path.alpha:g}, beta {path.beta:g}",
                    fontsize=9)
    return fig


def figure_png(fig: Figure, dpi: int = 80) -> bytes:
    """The figure as PNG bytes (what the browser page shows in an image widget)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def _games(x: float) -> str:
    return f"{x:,.0f}" if math.isfinite(x) else "unknown"


_NOWRAP = "style='white-space:nowrap'"  # short cells keep their line; the interval wraps


def result_html(result: EloExplorerResult) -> str:
    """The explorer's text: verdict, each estimate with its source, nElo, the notes, the SPRT
    (exact LLR, Wald's pass probability and expected length), the games needed for a margin
    and the 'what if' match."""
    rows = "".join(
        f"<tr><td {_NOWRAP}>{html.escape(e.model)}</td><td>{html.escape(e.counts)}</td>"
        f"<td {_NOWRAP}>{html.escape(e.source)}</td><td>{html.escape(e.text(result.level))}</td>"
        f"<td {_NOWRAP}>{html.escape(e.los_text())}</td></tr>"
        for e in (result.trinomial, result.pentanomial) if e is not None)
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in result.notes)
    sprt = result.sprt
    what = result.what_if
    unit = sprt.unit
    nelo = (f"{result.nelo:+.1f} +/- {result.nelo_margin:.1f} nElo"
            if math.isfinite(result.nelo) else "undefined (the games show no spread)")
    names = [f"H0 ({unit} {sprt.elo0:g})", f"H1 ({unit} {sprt.elo1:g})",
             f"this match's estimate ({unit} {sprt.outlooks[-1].elo:+.1f})"
             if len(sprt.outlooks) == 3 else ""]
    outlook = "".join(
        f"<tr><td>{html.escape(name)}</td><td>{o.pass_probability * 100:.1f} %</td>"
        f"<td>{_games(o.expected_games)}</td></tr>"
        for name, o in zip(names, sprt.outlooks, strict=False))
    needed = ("cannot be told from this match (a perfect score or no spread)"
              if not math.isfinite(result.games_needed) else "fewer than one game"
              if result.games_needed < 1.0 else f"about {_games(result.games_needed)} games")
    ranged = any(e.los_range is not None for e in (result.trinomial, result.pentanomial)
                 if e is not None)
    los = ("<p>LOS (likelihood of superiority), the same model in both modes: the chance that "
           "the engine under test is the stronger from its wins and losses alone (draws say "
           "nothing about it), 1/2 + 1/2 erf((W - L) / sqrt(2 (W + L))) as cutechess prints it; "
           "pairs count through the W and L of their games"
           + (", a range where WL+DD pairs leave W + L unknown" if ranged else "") + ".</p>")
    return (f"<p><b>{html.escape(result.verdict)}</b></p>"
            "<table><tr><th>model</th><th>counts (in the order shown)</th><th>counts are</th>"
            f"<th>Elo (z = {result.z:.4f})</th><th>LOS</th></tr>{rows}</table>{los}"
            f"<p>Normalised Elo of the match (fastchess): {html.escape(nelo)}.</p>"
            f"<ul>{notes}</ul>"
            f"<p>SPRT of H0 {unit} {sprt.elo0:g} against H1 {unit} {sprt.elo1:g} "
            f"(bounds in {'normalised Elo' if unit == 'nElo' else 'logistic Elo'}; alpha "
            f"{sprt.alpha:g}, beta {sprt.beta:g}): exact LLR {sprt.llr_now:.3f} in "
            f"[{sprt.lower:.3f}, {sprt.upper:.3f}] -> {html.escape(sprt.state)}; at the same "
            f"proportions {html.escape(sprt.decision)}.</p>"
            "<table><tr><th>if the truth were</th><th>SPRT passes (Wald)</th>"
            f"<th>expected length (games)</th></tr>{outlook}</table>"
            f"<p>Games needed for +/- {result.precision:g} Elo at {result.level * 100:g} % "
            f"(this score and spread): {html.escape(needed)}.</p>"
            f"<p>What if {what.games} games at the same score "
            f"({html.escape(what.estimate.counts)}): "
            f"{html.escape(what.estimate.text(result.level))}. {html.escape(what.verdict)}</p>")


_WRAP = {"display": "flex", "flex_flow": "row wrap", "width": "100%"}
#: The match menu's neutral entry: shown once a count is typed by hand.
TYPED = "(counts typed by hand)"


class EloExplorerWidget:
    """The browser explorer: presets (a group, then one of its matches), mode, counts, level,
    SPRT settings and 'what if' games in; the text (:attr:`text`) and the figure as PNG
    (:attr:`image`) out.

    Each mode owns its inputs: W/D/L mode shows and reads only W, D, L; pairs mode only the
    five pair counts. A preset also records the other mode's counts of the same match, shown
    beside the estimate until a count is edited; editing a count also sets the match menu to
    :data:`TYPED`. Every number is a text field read exactly as typed -- counts by
    :func:`chessmoe.explore.elo.parse_count`, settings by
    :func:`chessmoe.explore.elo.parse_number` -- and never rewritten: a value that cannot
    be read or lies out of range is refused with the field's name in one line of red text (the
    plot hidden). Every control is an attribute so tests can drive the callbacks headlessly;
    :attr:`box` is what a notebook displays. Initial values come from the notebook's parameters.
    """

    def __init__(self, *, mode: str = "wdl", wins: int = 60, draws: int = 30, losses: int = 40,
                 pairs: Sequence[int] = (), level: float = 0.95, elo0: float = 0.0,
                 elo1: float = 10.0, alpha: float = 0.05, beta: float = 0.05,
                 sprt_model: str = "normalized", what_if_games: int = 1000,
                 precision: float = 10.0, results_dir: str | os.PathLike[str] | None = None
                 ) -> None:
        import ipywidgets as widgets

        given = list(pairs) if len(pairs) == 5 else [0] * 5
        self.presets = explore_elo.presets(results_dir, mode=mode, wins=wins, draws=draws,
                                           losses=losses, pairs=given)
        self.groups = dict(explore_elo.preset_groups(self.presets))
        first = self.presets[0]
        self.preset_group = widgets.Dropdown(
            options=[(g if g == explore_elo.EXAMPLES else
                      f"tournament {g} ({len(members)} matches)", g)
                     for g, members in self.groups.items()],
            value=first.group, description="presets", layout={"width": "100%",
                                                                "max_width": "420px"})
        self.preset = widgets.Dropdown(options=self._match_options(first.group), value=0,
                                       description="match",
                                       layout={"width": "100%", "max_width": "640px"})
        self.mode = widgets.ToggleButtons(options=[("W/D/L (cutechess)", "wdl"),
                                                   ("game pairs (fastchess)", "pentanomial")],
                                          value=first.mode, description="counts from",
                                          style={"button_width": "180px"})

        def field(value: str, label: str, width: str, *, wide: bool = False) -> Any:
            style = {"description_width": "initial"} if wide else {}
            return widgets.Text(value=value, description=label, continuous_update=False,
                                style=style, layout={"width": width})

        self.wins = field(str(wins), "W (wins)", "190px")
        self.draws = field(str(draws), "D (draws)", "190px")
        self.losses = field(str(losses), "L (losses)", "190px")
        self.pairs = [field(str(v), name, "150px")
                      for name, v in zip(explore_elo.PAIR_NAMES, given, strict=True)]
        names = explore_elo.FIELDS
        typed = explore_elo.as_typed
        self.level = field(typed(level), names["level"], "190px")
        self.what_if = field(str(what_if_games), names["what_if_games"], "210px", wide=True)
        self.precision = field(typed(precision), names["precision"], "210px", wide=True)
        self.sprt_model = widgets.ToggleButtons(
            options=[("normalised Elo (nElo)", "normalized"), ("logistic Elo", "logistic")],
            value=sprt_model, description="SPRT bounds", style={"button_width": "170px"})
        self.elo0 = field(typed(elo0), names["elo0"], "190px")
        self.elo1 = field(typed(elo1), names["elo1"], "190px")
        self.alpha = field(typed(alpha), names["alpha"], "190px")
        self.beta = field(typed(beta), names["beta"], "190px")
        self.text = widgets.HTML()
        self.image = widgets.Image(format="png", layout={"width": "100%", "max_width": "800px"})
        self.result: EloExplorerResult | None = None
        self._loading = False
        # the other mode's counts of the same match (from a preset or the parameters cell)
        self.recorded: tuple[tuple[int, int, int], tuple[int, ...]] | None = (
            ((first.wins, first.draws, first.losses), first.pairs)
            if sum(first.pairs) and sum((first.wins, first.draws, first.losses)) else None)
        self.wdl_box = widgets.HBox([self.wins, self.draws, self.losses], layout=_WRAP)
        self.pairs_box = widgets.HBox(self.pairs, layout=_WRAP)
        self.preset_group.observe(self._new_group, names="value")
        self.preset.observe(self._load_preset, names="value")
        for control in (self.wins, self.draws, self.losses, *self.pairs):
            control.observe(self._edited, names="value")
        for control in (self.mode, self.level, self.elo0, self.elo1, self.alpha, self.beta,
                        self.what_if, self.precision, self.sprt_model):
            control.observe(self.update, names="value")
        self.box = widgets.VBox([
            widgets.HBox([self.preset_group, self.preset], layout=_WRAP),
            self.mode, self.wdl_box, self.pairs_box,
            widgets.HBox([self.level, self.what_if, self.precision], layout=_WRAP),
            self.sprt_model,
            widgets.HBox([self.elo0, self.elo1, self.alpha, self.beta], layout=_WRAP),
            self.text, self.image], layout={"width": "100%", "max_width": "1100px"})
        self.update()

    def _match_options(self, group: str) -> list[tuple[str, int]]:
        return [(TYPED, -1)] + [(self.presets[i].label, i) for i in self.groups[group]]

    def choose_preset(self, index: int) -> None:
        """Load preset ``index`` of :attr:`presets` (its group first, then the match)."""
        self.preset_group.value = self.presets[index].group
        self.preset.value = index

    def _new_group(self, *_: Any) -> None:
        """A group chosen: its matches fill the match menu and its first match is loaded."""
        members = self.groups[self.preset_group.value]
        self._loading = True
        try:
            self.preset.options = self._match_options(self.preset_group.value)
            self.preset.value = -1
        finally:
            self._loading = False
        self.preset.value = members[0]

    def _load_preset(self, *_: Any) -> None:
        if self._loading or self.preset.value is None or self.preset.value < 0:
            return  # the neutral entry keeps the counts as they are
        chosen = self.presets[self.preset.value]
        self._loading = True
        try:
            self.mode.value = chosen.mode
            self.wins.value, self.draws.value, self.losses.value = (
                str(chosen.wins), str(chosen.draws), str(chosen.losses))
            for control, value in zip(self.pairs, chosen.pairs, strict=True):
                control.value = str(value)
            wdl = (chosen.wins, chosen.draws, chosen.losses)
            self.recorded = (wdl, chosen.pairs) if sum(chosen.pairs) and sum(wdl) else None
        finally:
            self._loading = False
        self.update()

    def _edited(self, *_: Any) -> None:
        """A count typed by hand: no longer the preset's match, so the other mode's recorded
        counts no longer describe it and the match menu says so."""
        if self._loading:
            return
        self.recorded = None
        self._loading = True
        try:
            self.preset.value = -1
        finally:
            self._loading = False
        self.update()

    def _show(self, message: str, colour: str) -> None:
        self.result = None
        self.text.value = f"<p style='color:{colour}'>{html.escape(message)}</p>"
        self.image.layout.display = "none"

    def update(self, *_: Any) -> None:
        """Recompute the record, the text and the PNG from the controls."""
        if self._loading:
            return
        mode = self.mode.value
        unit = explore_elo.SPRT_UNITS.get(self.sprt_model.value, "nElo")
        self.elo0.description = f"{explore_elo.FIELDS['elo0']}: {unit}"
        self.elo1.description = f"{explore_elo.FIELDS['elo1']}: {unit}"
        self.wdl_box.layout.display = "none" if mode == "pentanomial" else "flex"
        self.pairs_box.layout.display = "flex" if mode == "pentanomial" else "none"
        names = explore_elo.FIELDS
        number = explore_elo.parse_number
        try:
            if mode == "wdl":
                w, d, l_ = (explore_elo.parse_count(c.description, c.value)
                            for c in (self.wins, self.draws, self.losses))
                pairs = list(self.recorded[1]) if self.recorded else None
            else:
                pairs = [explore_elo.parse_count(c.description, c.value) for c in self.pairs]
                w, d, l_ = self.recorded[0] if self.recorded else (0, 0, 0)
            level = number(names["level"], self.level.value)
            what_if = explore_elo.parse_count(names["what_if_games"], self.what_if.value)
            precision = number(names["precision"], self.precision.value)
            elo0 = number(names["elo0"], self.elo0.value)
            elo1 = number(names["elo1"], self.elo1.value)
            alpha = number(names["alpha"], self.alpha.value)
            beta = number(names["beta"], self.beta.value)
            if mode == "wdl" and w + d + l_ == 0:
                self._show("No games yet: enter the match's W, D and L.", "#555")
                return
            if mode == "pentanomial" and sum(pairs or ()) == 0:
                self._show("No pairs yet: enter the match's game pairs (LL, LD, WL+DD, WD, "
                           "WW); they cannot be derived from W/D/L.", "#555")
                return
            result = explore_elo.explore(
                mode, wins=w, draws=d, losses=l_, pairs=pairs, level=level, elo0=elo0,
                elo1=elo1, alpha=alpha, beta=beta, sprt_model=self.sprt_model.value,
                what_if_games=what_if, precision=precision)
        except ValueError as error:
            self._show(f"error: {error}", "#b00")
            return
        self.result = result
        self.text.value = result_html(result)
        self.image.value = figure_png(result_figure(result))
        self.image.layout.display = ""


def explorer_widget(**initial: Any) -> Any:
    """The explorer's widget box (see :class:`EloExplorerWidget` for the arguments)."""
    return EloExplorerWidget(**initial).box
