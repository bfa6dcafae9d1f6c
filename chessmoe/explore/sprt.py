"""The SPRT planner of the Elo explorer: what a test with given bounds, ``alpha`` and ``beta``
would do at every true Elo, with or without a match.

The spread of a game's score (which sets how many games a test needs) comes from the match on
the page (its own per-game variance in W/D/L mode, its pair variance in pairs mode), from a
draw ratio ``d`` (a game between equals: variance (1 - d) / 4, as fishtest's calculator) or from
a pair variance typed in. :func:`planner_view` turns those into
:class:`chessmoe.sequential.SprtPlan` curves (Wald's approximations) and the bounds in three
units; :func:`planner_html` is its text. Values are read as typed and refused with their
field's name (:data:`FIELDS`), as the explorer's other settings are.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Literal

from chessmoe import elo, sequential
from chessmoe.explore.elo import EloExplorerResult, as_typed, parse_number

__all__ = ["FIELDS", "SOURCES", "NoSpread", "PlannerView", "SpreadSource", "planner_html",
           "planner_view"]

SpreadSource = Literal["match", "draw ratio", "pair variance"]
#: Where the planner's spread can come from.
SOURCES: tuple[SpreadSource, ...] = ("match", "draw ratio", "pair variance")
#: The planner's fields as the page names them (every error message uses these).
FIELDS = {"draw_ratio": "planner: draw ratio", "pair_variance": "planner: pair variance"}


class NoSpread(ValueError):
    """The match gives the planner no spread (no match, or every unit scored the same): not a
    mistyped value, so the page says it as a note, not an error."""


@dataclass(frozen=True)
class PlannerView:
    """The planner's record: the curves and bounds (``plan``), where the spread came from
    (``source``, in words), and the match's own estimate in the bounds' model with its outlook
    (nan and None without a match)."""

    plan: sequential.SprtPlan
    source: str
    estimate: float = math.nan
    estimate_outlook: elo.SprtOutlook | None = None


def _spread(source: str, draw_ratio: str | float, pair_variance: str | float,
            result: EloExplorerResult | None) -> tuple[float, int, str]:
    """(variance, per, words) of the chosen source, or ``ValueError`` naming the field."""
    if source == "match":
        if result is None or result.spread is None:
            raise NoSpread("the planner has no match to take the spread from: enter its "
                           "counts, or plan from a draw ratio or a pair variance")
        sp = result.spread
        if result.mode == "pentanomial":
            variance, per = sp.pair_variance, 2
            words = (f"the match's pairs: variance {variance:.4f} of a pair's mean score "
                     f"({2 * variance:.4f} a game)")
        else:
            variance, per = sp.game_variance, 1
            words = (f"the match's games: variance {variance:.4f} of a game's score (draw "
                     f"ratio {sp.draw_ratio:.3f})")
        if not variance > 0.0:
            raise NoSpread("the match shows no spread (every game or pair scored the "
                           "same): plan from a draw ratio or a pair variance")
        return variance, per, words
    if source == "draw ratio":
        d = parse_number(FIELDS["draw_ratio"], draw_ratio)
        if not 0.0 <= d < 1.0:
            raise ValueError(f"{FIELDS['draw_ratio']} must lie in [0, 1) (0.6 for 60 % "
                             f"draws), got {as_typed(d)}")
        variance = sequential.draw_ratio_variance(d)
        return variance, 1, (f"a draw ratio of {as_typed(d)}: variance (1 - d) / 4 = "
                             f"{variance:.4f} of a game between equals (fishtest's calculator)")
    if source == "pair variance":
        v = parse_number(FIELDS["pair_variance"], pair_variance)
        if not 0.0 < v <= 0.25:
            raise ValueError(f"{FIELDS['pair_variance']} must lie in (0, 0.25] (the variance "
                             f"of a pair's mean score), got {as_typed(v)}")
        return v, 2, (f"a pair variance of {as_typed(v)} ({2 * v:.4f} a game, as fastchess's "
                      "pentanomial model reads it)")
    raise ValueError(f"the planner's spread comes from one of {', '.join(SOURCES)}, "
                     f"got {source!r}")


def planner_view(*, source: str, draw_ratio: str | float = 0.6,
                 pair_variance: str | float = 0.05, elo0: float, elo1: float, alpha: float,
                 beta: float, model: str, result: EloExplorerResult | None = None
                 ) -> PlannerView:
    """The planner's record for a spread ``source`` and the SPRT settings (bounds in
    ``model``: "normalized" nElo or "logistic" Elo). ``result`` is the match on the page
    (needed for ``source="match"``; its estimate is marked on the curves). Raises
    ``ValueError`` naming the field."""
    variance, per, words = _spread(source, draw_ratio, pair_variance, result)
    estimate = math.nan
    if result is not None:
        estimate = result.nelo if model == "normalized" else result.primary.elo
    # the curves span a bound width either side of the bounds, and reach the match's estimate
    # when it lies within four widths of them
    width = elo1 - elo0
    low, high = elo0 - width, elo1 + width
    if math.isfinite(estimate) and elo0 - 4 * width <= estimate <= elo1 + 4 * width:
        low, high = min(low, estimate - width / 4), max(high, estimate + width / 4)
    plan = sequential.plan_sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, model=model,
                                variance=variance, per=per, span=(low, high))
    outlook = plan.at(estimate) if math.isfinite(estimate) else None
    return PlannerView(plan, words, estimate, outlook)


def _games(x: float) -> str:
    return f"{x:,.0f}" if math.isfinite(x) else "unknown"


def _cell(x: float, spec: str) -> str:
    return f"{x:{spec}}" if math.isfinite(x) else "outside the scores"


def planner_html(view: PlannerView) -> str:
    """The planner's text: the spread's source, the bounds as logistic Elo, nElo and score,
    and the pass probability and expected games at H0, H1 and the match's estimate."""
    plan = view.plan
    unit = plan.unit
    rows = "".join(
        f"<tr><td>{r.name} ({unit} {as_typed(v)})</td><td>{_cell(r.logistic, '+.2f')}</td>"
        f"<td>{_cell(r.nelo, '+.2f')}</td><td>{_cell(r.score, '.4f')}</td></tr>"
        for r, v in zip(plan.bounds, (plan.elo0, plan.elo1), strict=True))
    points = [(f"H0 ({unit} {as_typed(plan.elo0)})", plan.at(plan.elo0)),
              (f"H1 ({unit} {as_typed(plan.elo1)})", plan.at(plan.elo1))]
    if view.estimate_outlook is not None:
        points.append((f"the match's estimate ({unit} {view.estimate:+.1f})",
                       view.estimate_outlook))
    outlook = "".join(
        f"<tr><td>{html.escape(name)}</td><td>{o.pass_probability * 100:.1f} %</td>"
        f"<td>{_games(o.expected_games)}</td></tr>" for name, o in points)
    return (f"<p>SPRT planner: spread from {html.escape(view.source)}. Curves: Wald's "
            "approximations as fishtest's SPRT calculator draws them (the spread held at every "
            "Elo, no overshoot at the bounds).</p>"
            "<table class='sprt-bounds'><tr><th>hypothesis</th><th>logistic Elo</th>"
            f"<th>nElo</th><th>score</th></tr>{rows}</table>"
            "<table><tr><th>if the truth were</th><th>the test passes</th>"
            f"<th>expected games</th></tr>{outlook}</table>")
