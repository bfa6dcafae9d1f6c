"""The Elo explorer in the browser (JupyterLab and the Voila page of
``notebooks/07_elo_explorer.ipynb``): :class:`EloExplorerWidget` shows
:func:`chessmoe.explore.elo.explore`'s record as text (:func:`result_html`), the figure of
:func:`result_figure` as a PNG image widget, which renders in any browser, the SPRT planner
(:mod:`chessmoe.explore.sprt_planner`) and the record as plain text to copy
(:func:`result_block`).
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from chessmoe.explore import elo as explore_elo
from chessmoe.explore.elo import EloExplorerResult
from chessmoe.explore.elo import as_typed as _typed
from chessmoe.explore.sprt_planner import SprtPlannerPanel
from chessmoe.report.figures.style import figure_png, new_figure

__all__ = ["TYPED", "EloExplorerWidget", "explorer_widget", "figure_png", "result_block",
           "result_figure", "result_html"]


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
    spread = _spread_html(result)
    stopped = ""
    if result.stopped is not None:
        stopped = (f"<p class='sprt-stopped'>If the match was stopped by this test at its "
                   f"decision, its {html.escape(result.stopped.unit)} read as stopped there is "
                   f"<b>{html.escape(result.stopped.text())}</b>; the fixed-length "
                   f"{html.escape(result.stopped.unit)} "
                   f"{result.stopped.fixed_length:+.1f} and the intervals above are biased by "
                   "the stop (a test stops early when its games ran lucky).</p>")
    los = ("<p>LOS (likelihood of superiority), the same model in both modes: the chance that "
           "the engine under test is the stronger from its wins and losses alone (draws say "
           "nothing about it), 1/2 + 1/2 erf((W - L) / sqrt(2 (W + L))) as cutechess prints it; "
           "pairs count through the W and L of their games"
           + (", a range where WL+DD pairs leave W + L unknown" if ranged else "") + ".</p>")
    return (f"<p><b>{html.escape(result.verdict)}</b></p>"
            "<table><tr><th>model</th><th>counts (in the order shown)</th><th>counts are</th>"
            f"<th>Elo (z = {result.z:.4f})</th><th>LOS</th></tr>{rows}</table>{los}"
            f"<p>Normalised Elo of the match (fastchess): {html.escape(nelo)}.</p>{spread}"
            f"<ul>{notes}</ul>"
            f"<p>SPRT of H0 {unit} {sprt.elo0:g} against H1 {unit} {sprt.elo1:g} "
            f"(bounds in {'normalised Elo' if unit == 'nElo' else 'logistic Elo'}; alpha "
            f"{sprt.alpha:g}, beta {sprt.beta:g}): exact LLR {sprt.llr_now:.3f} in "
            f"[{sprt.lower:.3f}, {sprt.upper:.3f}] -> {html.escape(sprt.state)}; at the same "
            f"proportions {html.escape(sprt.decision)}.</p>{stopped}"
            "<table><tr><th>if the truth were</th><th>SPRT passes (Wald)</th>"
            f"<th>expected length (games)</th></tr>{outlook}</table>"
            f"<p>Games needed for +/- {result.precision:g} Elo at {result.level * 100:g} % "
            f"(this score and spread): {html.escape(needed)}.</p>"
            f"<p>What if {what.games} games at the same score "
            f"({html.escape(what.estimate.counts)}): "
            f"{html.escape(what.estimate.text(result.level))}. {html.escape(what.verdict)}</p>")


def _ratio(x: float, spec: str = ".3f") -> str:
    return f"{x:{spec}}" if math.isfinite(x) else ("inf" if x == math.inf else "")


def _spread_html(result: EloExplorerResult) -> str:
    """Draw ratio, pair ratio and the pentanomial/trinomial variance ratio, where known."""
    sp = result.spread
    if sp is None:
        return ""
    parts = []
    if math.isfinite(sp.draw_ratio):
        parts.append(f"draw ratio {sp.draw_ratio:.3f} (draws over games)")
    if _ratio(sp.pair_ratio):
        parts.append(f"pair ratio {_ratio(sp.pair_ratio)} (pairs won, WW + WD, over pairs "
                     "lost, LL + LD; fastchess's PairsRatio)")
    if math.isfinite(sp.variance_ratio):
        parts.append(f"variance per game {2 * sp.pair_variance:.4f} from the pairs against "
                     f"{sp.game_variance:.4f} from W/D/L: ratio {sp.variance_ratio:.3f} "
                     + ("(the pairs' interval is narrower by its square root, "
                        f"{math.sqrt(sp.variance_ratio):.3f}: playing each opening with both "
                        "colours cancels part of the openings' luck)"
                        if sp.variance_ratio < 1 else
                        "(the pairs' interval is no narrower: the colours did not cancel)"))
    return (f"<p class='match-spread'>The match's spread: {html.escape('; '.join(parts))}.</p>"
            if parts else "")


def _fmt(x: float, spec: str = ".3f") -> str:
    return f"{x:{spec}}" if math.isfinite(x) else ("inf" if x == math.inf else "n/a")


def result_block(result: EloExplorerResult) -> str:
    """The record as plain text to copy: the counts, each estimate, the spread, the SPRT (and
    the Elo read as stopped, when it stopped), and the ``chessmoe elo`` command giving the
    same Elo lines and LLR."""
    lines = [f"Elo explorer ({'W/D/L' if result.mode == 'wdl' else 'game pairs'} mode), "
             f"{result.level * 100:g} % intervals"]
    for e in (result.trinomial, result.pentanomial):
        if e is not None:
            lines.append(f"{e.model}: {e.counts} ({e.source}): {e.text(result.level)}; "
                         f"LOS {e.los_text()}")
    lines.append(f"verdict: {result.verdict}")
    if math.isfinite(result.nelo):
        lines.append(f"nElo: {result.nelo:+.1f} +/- {result.nelo_margin:.1f}")
    if result.spread is not None:
        sp = result.spread
        lines.append(f"draw ratio {_fmt(sp.draw_ratio)}, pair ratio {_fmt(sp.pair_ratio)}, "
                     f"variance per game {_fmt(sp.game_variance, '.4f')} (W/D/L), "
                     f"{_fmt(2 * sp.pair_variance, '.4f')} (pairs), ratio "
                     f"{_fmt(sp.variance_ratio)}")
    t = result.sprt
    lines.append(f"SPRT H0 {t.unit} {_typed(t.elo0)}, H1 {t.unit} {_typed(t.elo1)}, alpha "
                 f"{_typed(t.alpha)}, beta {_typed(t.beta)}: exact LLR {t.llr_now:.2f} in "
                 f"[{t.lower:.2f}, {t.upper:.2f}]: {t.state}")
    if result.stopped is not None:
        lines.append(f"read as stopped at this decision: {result.stopped.text()}")
    command = ["chessmoe elo"]
    if result.wdl is not None:
        w, d, l_ = result.wdl
        command.append(f"--wins {w} --draws {d} --losses {l_}")
    if result.pairs is not None and (result.mode == "pentanomial" or result.pentanomial):
        command.append("--pentanomial " + " ".join(str(c) for c in result.pairs))
    command.append(f"--sprt {_typed(t.elo0)} {_typed(t.elo1)} --alpha {_typed(t.alpha)} "
                   f"--beta {_typed(t.beta)} --model {t.model}")
    lines.append("same Elo lines and LLR: " + " ".join(command))
    return "\n".join(lines)


_WRAP = {"display": "flex", "flex_flow": "row wrap", "width": "100%"}
#: The match menu's neutral entry: shown once a count is typed by hand.
TYPED = "(counts typed by hand)"


class EloExplorerWidget:
    """The browser explorer: a preset (the menu opens with the kit's examples and the decisive
    matches; typing in :attr:`preset_search` finds any committed match), mode, counts, level,
    SPRT settings and 'what if' games in; the text (:attr:`text`), the figure as PNG
    (:attr:`image`), the SPRT planner (:attr:`planner`) and the record as text to copy
    (:attr:`block`) out.

    Each mode owns its inputs: W/D/L mode shows and reads only W, D, L; pairs mode only the
    five pair counts. A preset with pairs opens in pairs mode; it also records the other
    mode's counts of the same match, shown beside the estimate until a count is edited, and
    a match that ran to an SPRT sets the SPRT settings to its own. Editing a count sets the
    match menu to :data:`TYPED`. Every number is a text field read exactly as typed -- counts
    by :func:`chessmoe.explore.elo.parse_count`, settings by
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
        first = self.presets[0]
        self.preset_search = widgets.Text(
            value="", description="find a match", placeholder="a tournament or match name",
            continuous_update=False, style={"description_width": "initial"},
            layout={"width": "100%", "max_width": "420px"})
        self.preset = widgets.Dropdown(options=self._options(""), value=0,
                                       description="match",
                                       layout={"width": "100%", "max_width": "640px"})
        self.preset_note = widgets.HTML(self._note(""))
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
        self.planner = SprtPlannerPanel()
        self.block = widgets.Textarea(value="", description="copy",
                                      layout={"width": "100%", "max_width": "1000px",
                                              "height": "170px"})
        self.block.add_class("result-block")
        self.result: EloExplorerResult | None = None
        self._loading = False
        # the other mode's counts of the same match (from a preset or the parameters cell)
        self.recorded: tuple[tuple[int, int, int], tuple[int, ...]] | None = (
            ((first.wins, first.draws, first.losses), first.pairs)
            if sum(first.pairs) and sum((first.wins, first.draws, first.losses)) else None)
        self.wdl_box = widgets.HBox([self.wins, self.draws, self.losses], layout=_WRAP)
        self.pairs_box = widgets.HBox(self.pairs, layout=_WRAP)
        self.preset_search.observe(self._search, names="value")
        self.preset.observe(self._load_preset, names="value")
        for control in (self.wins, self.draws, self.losses, *self.pairs):
            control.observe(self._edited, names="value")
        for control in (self.mode, self.level, self.elo0, self.elo1, self.alpha, self.beta,
                        self.what_if, self.precision, self.sprt_model):
            control.observe(self.update, names="value")
        self.box = widgets.VBox([
            widgets.HBox([self.preset_search, self.preset], layout=_WRAP), self.preset_note,
            self.mode, self.wdl_box, self.pairs_box,
            widgets.HBox([self.level, self.what_if, self.precision], layout=_WRAP),
            self.sprt_model,
            widgets.HBox([self.elo0, self.elo1, self.alpha, self.beta], layout=_WRAP),
            self.text, self.image, self.planner.box,
            widgets.HTML("<h4>The result as text to copy</h4>"), self.block],
            layout={"width": "100%", "max_width": "1100px"})
        self.update()

    #: At most this many matches in the menu at once (a search narrows them).
    SHOWN = 60

    def _options(self, query: str) -> list[tuple[str, int]]:
        found = explore_elo.find_presets(self.presets, query)[:self.SHOWN]
        return [(TYPED, -1)] + [(self.presets[i].name, i) for i in found]

    def _note(self, query: str) -> str:
        found = len(explore_elo.find_presets(self.presets, query))
        if not query.strip():
            committed = [p for p in self.presets if p.group != explore_elo.EXAMPLES]
            return (f"<small>The menu holds the kit's examples and the "
                    f"{sum(p.decisive for p in committed)} decisive matches of the "
                    f"{len(committed)} committed; type a tournament or a match name (e.g. "
                    "<i>small separated</i>) to find any other.</small>")
        if not found:
            return f"<small>No match holds every word of '{html.escape(query)}'.</small>"
        shown = min(found, self.SHOWN)
        return (f"<small>{found} matches hold '{html.escape(query)}'"
                + (f", the first {shown} shown: add a word to narrow them" if found > shown
                   else "") + ".</small>")

    def _search(self, *_: Any) -> None:
        """A search typed: the menu holds its matches (the current one kept if it fits)."""
        query = self.preset_search.value
        current = self.preset.value
        self._loading = True
        try:
            options = self._options(query)
            self.preset.options = options
            self.preset.value = current if any(v == current for _, v in options) else -1
        finally:
            self._loading = False
        self.preset_note.value = self._note(query)

    def choose_preset(self, index: int) -> None:
        """Load preset ``index`` of :attr:`presets` (searching for it if the menu lacks it)."""
        if not any(v == index for _, v in self.preset.options):
            chosen = self.presets[index]
            self.preset_search.value = chosen.name.split(" (")[0]
        self.preset.value = index

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
            if chosen.test is not None:  # the test the match ran to
                t = chosen.test
                self.sprt_model.value = t.model
                typed = explore_elo.as_typed
                self.elo0.value, self.elo1.value = typed(t.elo0), typed(t.elo1)
                self.alpha.value, self.beta.value = typed(t.alpha), typed(t.beta)
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
        self.block.value = ""

    def _settings(self) -> dict[str, Any]:
        """The SPRT settings as read (``ValueError`` naming a bad one)."""
        names = explore_elo.FIELDS
        number = explore_elo.parse_number
        return {"elo0": number(names["elo0"], self.elo0.value),
                "elo1": number(names["elo1"], self.elo1.value),
                "alpha": number(names["alpha"], self.alpha.value),
                "beta": number(names["beta"], self.beta.value),
                "model": self.sprt_model.value}

    def update(self, *_: Any) -> None:
        """Recompute the record, the text, the PNG, the planner and the block."""
        if self._loading:
            return
        self._update_match()
        try:
            settings: dict[str, Any] | None = self._settings()
            assert settings is not None
            explore_elo.check_sprt(elo0=settings["elo0"], elo1=settings["elo1"],
                                   alpha=settings["alpha"], beta=settings["beta"],
                                   unit=explore_elo.SPRT_UNITS[settings["model"]])
            error = ""
        except ValueError as problem:
            settings, error = None, str(problem)
        self.planner.update(settings, self.result, error)

    def _update_match(self) -> None:
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
            settings = self._settings()
            if mode == "wdl" and w + d + l_ == 0:
                self._show("No games yet: enter the match's W, D and L.", "#555")
                return
            if mode == "pentanomial" and sum(pairs or ()) == 0:
                self._show("No pairs yet: enter the match's game pairs (LL, LD, WL+DD, WD, "
                           "WW); they cannot be derived from W/D/L.", "#555")
                return
            result = explore_elo.explore(
                mode, wins=w, draws=d, losses=l_, pairs=pairs, level=level,
                elo0=settings["elo0"], elo1=settings["elo1"], alpha=settings["alpha"],
                beta=settings["beta"], sprt_model=settings["model"], what_if_games=what_if,
                precision=precision)
        except ValueError as error:
            self._show(f"error: {error}", "#b00")
            return
        self.result = result
        self.text.value = result_html(result)
        self.image.value = figure_png(result_figure(result))
        self.image.layout.display = ""
        self.block.value = result_block(result)


def explorer_widget(**initial: Any) -> Any:
    """The explorer's widget box (see :class:`EloExplorerWidget` for the arguments)."""
    return EloExplorerWidget(**initial).box
