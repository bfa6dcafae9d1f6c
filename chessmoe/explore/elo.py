"""The Elo explorer's numbers: one match result in, one typed record out (:func:`explore`,
:class:`EloExplorerResult`). The user picks a *mode*: the match's W/D/L counts (trinomial, what
cutechess prints) or its game pair counts (pentanomial, what fastchess prints); each mode reads
only its own counts, and the record says where each number came from. Settings are read as typed
(:func:`parse_number`, :func:`parse_count`). The formulas are in ``docs/elo.md``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from chessmoe import elo, sequential
from chessmoe.records import TournamentSummary

__all__ = [
    "DECISIVE_TOURNAMENTS",
    "EXAMPLES",
    "FIELDS",
    "MIN_POINTS",
    "EloExplorerResult",
    "Estimate",
    "MatchSpread",
    "Mode",
    "Preset",
    "PresetTest",
    "SprtModel",
    "SprtPath",
    "WhatIf",
    "as_typed",
    "bound_text",
    "check_sprt",
    "committed_presets",
    "explore",
    "find_presets",
    "likelihood_of_superiority",
    "match_spread",
    "parse_count",
    "parse_number",
    "preset_groups",
    "presets",
    "verdict",
]

Mode = Literal["wdl", "pentanomial"]
SprtModel = Literal["normalized", "logistic"]
PAIR_NAMES = ("LL", "LD", "WL+DD", "WD", "WW")
WDL_NAMES = ("W", "D", "L")
GAME_SCORES = (0.0, 0.5, 1.0)  # loss, draw, win
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: What the SPRT bounds are called in each model.
SPRT_UNITS = {"normalized": "nElo", "logistic": "Elo"}
#: The explorer's name of each setting, used by the widget's labels and every error message.
FIELDS = {"level": "confidence", "what_if_games": "what if: games",
          "precision": "games for +/- Elo", "elo0": "H0", "elo1": "H1", "alpha": "alpha",
          "beta": "beta"}
#: Fewer points than this on either side of the score (won or lost, a draw half a point) make a
#: match "tiny": the normal interval is replaced by the exact one (the textbook n p >= 5 rule).
MIN_POINTS = 5.0
#: The group of the kit's own presets (the committed matches are grouped by tournament).
EXAMPLES = "examples"


@dataclass(frozen=True)
class Estimate:
    """One model's Elo estimate of the match, with the counts it came from.

    ``model``: "trinomial (cutechess)" or "pentanomial (fastchess)"; ``source``: how its counts
    were obtained ("entered", "recorded with the same match", "derived from the pairs", "same
    proportions"). ``[low, high]`` is the interval (``method`` "normal" at ``z``, or "exact":
    Clopper-Pearson at the level), ``margin`` half its width (infinite when a bound is),
    ``note`` why the exact interval is used ("" if it is not). ``los``: the likelihood of
    superiority in percent from the games' W and L (:func:`likelihood_of_superiority`), nan when
    ``WL+DD`` pairs leave W + L unknown; ``los_range`` is then its lowest and highest value over
    the possible splits of those pairs.
    """

    model: str
    source: str
    counts: str
    elo: float
    low: float
    high: float
    margin: float
    los: float
    games: int
    method: str = "normal"
    note: str = ""
    los_range: tuple[float, float] | None = None

    def text(self, level: float) -> str:
        """``+53.9 +/- 53.3 Elo, 95 % interval [+1.9, +108.4]``; an infinite bound is named:
        ``+inf Elo, 95 % exact (Clopper-Pearson) interval [-71.9, no upper bound]: every game
        won (...)``. Bounds or a margin near 0 get the decimals that show them as nonzero
        (:func:`bound_text`), so the printed interval agrees with the verdict."""
        kind = "exact (Clopper-Pearson) interval" if self.method == "exact" else "interval"
        d = max(_decimals(x) for x in (self.low, self.high, self.margin))  # 1 unless tiny
        low = "no lower bound" if self.low == -math.inf else bound_text(self.low, d)
        high = "no upper bound" if self.high == math.inf else bound_text(self.high, d)
        elo_ = f"{self.elo:+.{d}f}" if math.isfinite(self.elo) else _signed(self.elo)
        head = (f"{elo_} +/- {self.margin:.{d}f} Elo" if math.isfinite(self.margin)
                else f"{elo_} Elo")
        text = f"{head}, {level * 100:g} % {kind} [{low}, {high}]"
        return f"{text}: {self.note}" if self.note else text

    def los_text(self) -> str:
        """``92.1 %``, or ``84.1 to 92.1 %`` where WL+DD pairs leave W + L unknown."""
        if self.los_range is not None:
            low, high = self.los_range
            return f"{low:.1f} %" if f"{low:.1f}" == f"{high:.1f}" else (
                f"{low:.1f} to {high:.1f} %")
        return f"{self.los:.1f} %"


@dataclass(frozen=True)
class SprtPath:
    """The SPRT's log-likelihood ratio after each game (or pair) of a match with the result's
    proportions (the order of the games is not recorded, so the path is the proportional one:
    the exact LLR grows in proportion to the games at fixed proportions).

    ``model``: how ``elo0``/``elo1`` are read ("normalized": nElo, "logistic": Elo); ``unit``
    its name. ``games[i]`` games played give ``llr[i]``; ``decided_at`` is the first number of
    games where the path leaves ``(lower, upper)`` (None if it never does), ``state`` the
    decision at the match's own length. ``outlooks``: Wald's pass probability and expected
    length at H0, at H1 and at the match's own estimate (in the bounds' model).
    """

    elo0: float
    elo1: float
    alpha: float
    beta: float
    lower: float
    upper: float
    games: tuple[int, ...]
    llr: tuple[float, ...]
    llr_now: float
    state: str
    decided_at: int | None
    decision: str
    model: str = "normalized"
    unit: str = "nElo"
    outlooks: tuple[elo.SprtOutlook, ...] = ()


@dataclass(frozen=True)
class WhatIf:
    """The primary estimate at another number of games with the same score proportions."""

    games: int
    estimate: Estimate
    verdict: str


@dataclass(frozen=True)
class MatchSpread:
    """How the match's games spread, the numbers that show why pairs narrow the interval:
    ``draw_ratio`` (draws over games, nan without W/D/L), ``pair_ratio`` (fastchess's
    PairsRatio: pairs won, WW + WD, over pairs lost, LL + LD; nan without pairs, inf with no
    pair lost), the per-game score variances of the two models (``game_variance`` from W/D/L,
    ``pair_variance`` of a pair's mean score, so ``2 * pair_variance`` per game) and
    ``variance_ratio`` = 2 pair_variance / game_variance: below 1 the pairs' interval is
    narrower by its square root (the colours and openings cancel), above 1 wider."""

    draw_ratio: float
    pair_ratio: float
    game_variance: float
    pair_variance: float
    variance_ratio: float


def _moments_of(cells: Sequence[float], scores: Sequence[float]) -> tuple[float, float]:
    n = float(sum(cells))
    mu = sum(c * s for c, s in zip(cells, scores, strict=True)) / n
    return mu, sum(c * (s - mu) ** 2 for c, s in zip(cells, scores, strict=True)) / n


def match_spread(wdl: Sequence[float] | None, pairs: Sequence[float] | None) -> MatchSpread:
    """The :class:`MatchSpread` of a match's W/D/L and pairs (either may be None)."""
    nan = math.nan
    draw_ratio = game_variance = pair_variance = pair_ratio = nan
    if wdl is not None and sum(wdl) > 0:
        w, d, l_ = wdl
        draw_ratio = d / (w + d + l_)
        game_variance = _moments_of([l_, d, w], GAME_SCORES)[1]
    if pairs is not None and sum(pairs) > 0:
        ll, ld, _, wd, ww = pairs
        won, lost = ww + wd, ll + ld
        pair_ratio = won / lost if lost else (math.inf if won else nan)
        pair_variance = _moments_of(list(pairs), PAIR_SCORES)[1]
    ratio = 2.0 * pair_variance / game_variance if game_variance > 0.0 else nan
    return MatchSpread(draw_ratio, pair_ratio, game_variance, pair_variance, ratio)


@dataclass(frozen=True)
class EloExplorerResult:
    """Everything the explorer shows for one match result.

    ``nelo``/``nelo_margin``: the match's normalised Elo (fastchess) and its margin, nan where
    the games show no spread; ``precision``/``games_needed``: about how many games an interval
    of +/- ``precision`` Elo needs at this score and spread (nan where it cannot be told).
    """

    mode: Mode
    level: float
    z: float
    wdl: tuple[int, int, int] | None  # (W, D, L) used by the trinomial estimate
    pairs: tuple[int, int, int, int, int] | None  # (LL, LD, WL+DD, WD, WW)
    trinomial: Estimate | None
    pentanomial: Estimate | None
    notes: tuple[str, ...]  # which estimate comes from which counts, and what is missing
    verdict: str
    sprt: SprtPath
    what_if: WhatIf
    nelo: float = math.nan
    nelo_margin: float = math.nan
    precision: float = 10.0
    games_needed: float = math.nan
    spread: MatchSpread | None = None
    stopped: sequential.StoppedEstimate | None = None  # the Elo read as stopped by the test

    @property
    def primary(self) -> Estimate:
        """The estimate of the chosen mode."""
        chosen = self.trinomial if self.mode == "wdl" else self.pentanomial
        assert chosen is not None
        return chosen


def _signed(x: float) -> str:
    if math.isnan(x):
        return "undefined"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.1f}"


def _decimals(x: float) -> int:
    """The decimals (at least 1) it takes to print a finite nonzero ``x`` as nonzero."""
    if not math.isfinite(x) or x == 0.0:
        return 1
    return next((d for d in range(1, 17) if float(f"{x:.{d}f}") != 0.0), 16)


def bound_text(x: float, decimals: int | None = None) -> str:
    """An interval bound with ``decimals`` decimals (default and at least: as many as it takes
    to show its sign), so ``+0.04`` is never printed ``+0.0`` and the verdict ("excludes 0")
    agrees with the printed interval; an exact 0 has no sign."""
    if not math.isfinite(x):
        return _signed(x)
    d = max(decimals or 1, _decimals(x))
    return f"{0.0:.{d}f}" if x == 0.0 else f"{x:+.{d}f}"


def as_typed(x: float) -> str:
    """A number as a person would type it back (0.05, 1000, -3), exactly."""
    text = f"{x:g}"
    return text if float(text) == x else repr(x)


def parse_count(name: str, text: str | int) -> int:
    """A count as typed: a whole number >= 0, else ``ValueError`` naming the field (no digit is
    dropped or added: "2.5" and "1e3" are refused, not read as 25 or 13)."""
    raw = str(text).strip()
    body = raw[1:] if raw[:1] in "+-" else raw
    if not body or not body.isascii() or not body.isdigit():
        raise ValueError(f"{name} must be a whole number of games, got {raw!r}")
    value = int(raw)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def parse_number(name: str, text: str | float) -> float:
    """A setting as typed: a decimal number ("0.05", "-3", "1e-3"), else ``ValueError`` naming
    the field. Nothing is guessed: a decimal comma ("0,05"), a blank, "nan" or "inf" are refused,
    never read as another number. Ranges are checked by :func:`explore`."""
    raw = str(text).strip()
    if "," in raw and _DECIMAL.fullmatch(raw.replace(",", ".")):
        raise ValueError(f"{name} must be a number with a decimal point (0.05, not 0,05), "
                         f"got {raw!r}")
    if not _DECIMAL.fullmatch(raw):
        raise ValueError(f"{name} must be a number, got {raw!r}")
    value = float(raw)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {raw!r}")
    return value


def _check(counts: Sequence[int], names: Sequence[str]) -> None:
    for name, c in zip(names, counts, strict=True):
        if isinstance(c, bool) or not isinstance(c, int):
            raise ValueError(f"{name} must be a whole number of games, got {c!r}")
        if c < 0:
            raise ValueError(f"{name} must be >= 0, got {c}")
    if sum(counts) == 0:
        raise ValueError(f"no games: give at least one of {', '.join(names)}")


def _check_settings(*, level: float, precision: float, elo0: float, elo1: float, alpha: float,
                    beta: float, unit: str) -> None:
    """Refuse a setting out of range, naming its field as the explorer shows it."""
    f = FIELDS
    if not 0.0 < level < 1.0:
        raise ValueError(f"{f['level']} must lie strictly between 0 and 1 (0.95 for 95 %), "
                         f"got {as_typed(level)}")
    if not precision > 0.0:
        raise ValueError(f"{f['precision']} must be > 0, got {as_typed(precision)}")
    check_sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, unit=unit)


def check_sprt(*, elo0: float, elo1: float, alpha: float, beta: float, unit: str) -> None:
    """Refuse SPRT settings out of range, naming the field as the explorer shows it."""
    f = FIELDS
    for name, value in ((f["alpha"], alpha), (f["beta"], beta)):
        if not 0.0 < value < 1.0:
            raise ValueError(f"{name} must lie strictly between 0 and 1, got {as_typed(value)}")
    if not alpha + beta < 1.0:
        raise ValueError(f"{f['alpha']} + {f['beta']} must be below 1, got {as_typed(alpha)} + "
                         f"{as_typed(beta)}")
    if not elo0 < elo1:
        raise ValueError(f"{f['elo1']} must be above {f['elo0']} ({unit}), got "
                         f"{f['elo0']} {as_typed(elo0)}, {f['elo1']} {as_typed(elo1)}")


def verdict(low: float, high: float, level: float) -> str:
    """One sentence: does the interval exclude 0?"""
    pct = f"{level * 100:g} %"
    if math.isnan(low) or math.isnan(high):
        return f"The interval is undefined: no verdict at {pct}."
    if low > 0:
        return f"The interval excludes 0: significant at {pct} (the engine under test is stronger)."
    if high < 0:
        return f"The interval excludes 0: significant at {pct} (the engine under test is weaker)."
    return f"The interval contains 0: undecided at {pct}."


def likelihood_of_superiority(wins: float, losses: float) -> float:
    """LOS in percent, one model for both modes: the decisive-game model. Draws say nothing
    about which engine is stronger; each decisive game is a win with chance p, and LOS is
    P(p > 1/2) in the normal approximation cutechess prints, 1/2 + 1/2 erf((W - L) /
    sqrt(2 (W + L))); 50 % without a decisive game. Pairs are read through the W and L of their
    games, so a match's pairs and its W/D/L give the same LOS (one WW pair: 92.1 %, as W 2)."""
    return elo.likelihood_of_superiority([losses, 0.0, wins], GAME_SCORES)


def _pair_los(pairs: Sequence[float], wdl: Sequence[float] | None
              ) -> tuple[float, tuple[float, float] | None]:
    """LOS of pairs from their games' W and L: the recorded or derived W/D/L when known, else
    the range over the WL+DD pairs' splits (each a win and a loss, or two draws: W - L is fixed,
    W + L is not, and LOS moves monotonically between the two ends)."""
    if wdl is not None:
        return likelihood_of_superiority(wdl[0], wdl[2]), None
    ll, ld, mixed, wd, ww = pairs
    wins, losses = wd + 2 * ww, ld + 2 * ll
    if mixed == 0:
        return likelihood_of_superiority(wins, losses), None
    ends = (likelihood_of_superiority(wins, losses),
            likelihood_of_superiority(wins + mixed, losses + mixed))
    return math.nan, (min(ends), max(ends))


@dataclass(frozen=True)
class _Interval:
    elo: float
    low: float
    high: float
    method: str
    note: str


def _interval(cells: Sequence[float], scores: Sequence[float], *, level: float, z: float,
              unit: str) -> _Interval:
    """The normal interval mu -+ z sigma of the unit (game or pair) scores, or, for a tiny or
    lopsided match, the exact Clopper-Pearson interval of the points over the units: each unit
    (the model's independent trial: a game, or a pair) read as a win-or-loss trial worth its
    score (a draw half a point). Exact when every unit is won or lost; with draws it spreads the
    points as widely as a score allows. Used where the normal interval has no width (every unit
    scored the same), reaches a perfect score, or the match's games hold fewer than
    :data:`MIN_POINTS` points on either side (points won or lost, counted in games so that the
    same games are tiny in both modes)."""
    n = float(sum(cells))
    points = float(sum(c * s for c, s in zip(cells, scores, strict=True)))
    per = 2 if unit == "pair" else 1
    mu = points / n
    var = sum(c * (s - mu) ** 2 for c, s in zip(cells, scores, strict=True)) / n
    sd = math.sqrt(var / n)
    lo, hi = mu - z * sd, mu + z * sd
    if mu == 1.0:
        reason = f"every {unit} won" + (" both games" if unit == "pair" else "")
    elif mu == 0.0:
        reason = f"every {unit} lost" + (" both games" if unit == "pair" else "")
    elif var == 0.0:
        reason = f"every {unit} scored the same, so the normal interval has no width"
    elif not lo > 0.0 or not hi < 1.0:
        reason = "the normal interval reaches a score of 0 or 1"
    elif min(points, n - points) * per < MIN_POINTS:
        reason = (f"fewer than {MIN_POINTS:g} points on one side ({_num(per * points)} won, "
                  f"{_num(per * (n - points))} lost)")
    else:
        return _Interval(elo.elo_from_score(mu), elo.elo_from_score(lo),
                         elo.elo_from_score(hi), "normal", "")
    low, high = elo.clopper_pearson_interval(points, n, level)
    trials = f"1 {unit} read as a win-or-loss trial" if n == 1 else (
        f"{_num(n)} {unit}s read as win-or-loss trials")
    note = f"{reason}; exact over {trials}"
    return _Interval(elo.elo_from_score(mu), elo.elo_from_score(low), elo.elo_from_score(high),
                     "exact", note)


def _estimate(model: str, source: str, counts_text: str, counts: Sequence[float],
              level: float, z: float, wdl: Sequence[float] | None = None) -> Estimate:
    """An estimate of game counts (W, D, L) or pair counts (LL ... WW), fractional allowed;
    ``wdl``: the W/D/L of the same games, when known, for the pairs' LOS."""
    pairs = len(counts) == 5
    cells = list(counts) if pairs else [counts[2], counts[1], counts[0]]  # (L, D, W)
    scores = PAIR_SCORES if pairs else GAME_SCORES
    interval = _interval(cells, scores, level=level, z=z, unit="pair" if pairs else "game")
    margin = (interval.high - interval.low) / 2.0
    games = round(sum(counts) * (2 if pairs else 1))
    if pairs:
        los, los_range = _pair_los(counts, wdl)
    else:
        los, los_range = likelihood_of_superiority(counts[0], counts[2]), None
    return Estimate(model=model, source=source, counts=counts_text, elo=interval.elo,
                    low=interval.low, high=interval.high, margin=margin, los=los, games=games,
                    method=interval.method, note=interval.note, los_range=los_range)


def _num(x: float) -> str:
    return str(round(x)) if abs(x - round(x)) < 1e-9 else f"{x:.1f}"


def _wdl_text(w: float, d: float, l_: float) -> str:
    return f"W {_num(w)}, D {_num(d)}, L {_num(l_)}"


def _pairs_text(p: Sequence[float]) -> str:
    return ", ".join(f"{n} {_num(c)}" for n, c in zip(PAIR_NAMES, p, strict=True))


def _pairs_fit_wdl(p: Sequence[int], w: int, d: int, l_: int) -> bool:
    """Can pairs ``p`` and W/D/L describe the same games? (a WL+DD pair splits either way)"""
    ll, ld, mixed, wd, ww = p
    if 2 * sum(p) != w + d + l_:
        return False
    # k of the WL+DD pairs are one win and one loss, the rest two draws
    return any(w == wd + 2 * ww + k and l_ == 2 * ll + ld + k and d == ld + wd + 2 * (mixed - k)
               for k in range(mixed + 1))


def _geom(start: int, stop: int, points: int) -> list[float]:
    if stop <= start:
        return [float(start)]
    ratio = (stop / start) ** (1.0 / (points - 1))
    return [start * ratio**i for i in range(points)]


def _sprt(mode: Mode, counts: Sequence[int], *, elo0: float, elo1: float, alpha: float,
          beta: float, model: SprtModel) -> elo.SprtResult:
    if mode == "wdl":
        w, d, l_ = counts
        return elo.sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, wins=w, draws=d,
                        losses=l_, model=model, exact=True)
    return elo.sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, pentanomial=list(counts),
                    model=model, exact=True)


def _sprt_path(mode: Mode, counts: Sequence[int], *, elo0: float, elo1: float, alpha: float,
               beta: float, model: SprtModel, until: int, own: float,
               points: int = 120) -> SprtPath:
    """The proportional path of the exact LLR, its decision and Wald's outlooks (at H0, H1 and
    the match's own estimate ``own`` in the bounds' model, when finite)."""
    per = 1 if mode == "wdl" else 2
    played = sum(counts) * per
    steps = sorted({*(max(per, round(x)) for x in _geom(per, max(until, played), points)),
                    played})
    steps = sorted({s - s % per for s in steps if s - s % per >= per})
    now = _sprt(mode, counts, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, model=model)
    rate = now.llr / played  # the exact LLR is N times a function of the proportions
    path = [rate * games for games in steps]
    unit = SPRT_UNITS[model]
    decided_at, decision = None, "the path stays between the bounds: continue"
    for games, llr in zip(steps, path, strict=True):
        if llr >= now.upper or llr <= now.lower:
            decided_at = games
            decision = (f"H1 ({unit} {elo1:g}) accepted after about {games} games"
                        if llr >= now.upper
                        else f"H0 ({unit} {elo0:g}) accepted after about {games} games")
            break
    # the variance of a unit's score over fastchess's regularised cells (never 0)
    cells = [float(c) if c else 1e-3 for c in
             (counts if mode == "pentanomial" else (counts[2], counts[1], counts[0]))]
    scores = PAIR_SCORES if mode == "pentanomial" else GAME_SCORES
    n = sum(cells)
    mu = sum(c * s for c, s in zip(cells, scores, strict=True)) / n
    var = sum(c * (s - mu) ** 2 for c, s in zip(cells, scores, strict=True)) / n
    targets = [elo0, elo1] + ([own] if math.isfinite(own) else [])
    outlooks = tuple(elo.sprt_outlook(t, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
                                      variance=var, model=model, per=per) for t in targets)
    return SprtPath(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, lower=now.lower,
                    upper=now.upper, games=tuple(steps), llr=tuple(path), llr_now=now.llr,
                    state=now.state, decided_at=decided_at, decision=decision, model=model,
                    unit=unit, outlooks=outlooks)


def _five(counts: Sequence[int]) -> tuple[int, int, int, int, int]:
    a, b, c, d, e = counts
    return (a, b, c, d, e)


def explore(mode: Mode, *, wins: int = 0, draws: int = 0, losses: int = 0,
            pairs: Sequence[int] | None = None, level: float = 0.95, elo0: float = 0.0,
            elo1: float = 10.0, alpha: float = 0.05, beta: float = 0.05,
            sprt_model: SprtModel = "normalized", what_if_games: int | None = None,
            precision: float = 10.0) -> EloExplorerResult:
    """The explorer's record of one match.

    ``mode="wdl"`` reads ``wins``/``draws``/``losses`` (``pairs``, if given, must describe the
    same games and adds the pentanomial estimate); ``mode="pentanomial"`` reads ``pairs``
    ``(LL, LD, WL+DD, WD, WW)`` (W/D/L, if given, must fit them). ``sprt_model``: the SPRT
    bounds ``elo0``/``elo1`` are normalised Elo ("normalized", fastchess's default) or logistic
    Elo ("logistic"). ``what_if_games`` (default: ten times the match) rescales the chosen
    counts' proportions to that many games; ``precision``: the +/- Elo whose games are
    estimated. Raises ``ValueError`` naming the offending field.

    The other model is shown beside the chosen one only where it can be had for the same match:
    pentanomial counts can never be derived from W/D/L (W/D/L does not record which games were
    paired), so they appear in W/D/L mode only when the pairs of the same match were recorded too (a
    committed tournament summary holds both); W/D/L follow from pairs except that a ``WL+DD`` pair
    is either a win and a loss or two draws: they are derived when no such pair occurred, taken as
    recorded when given, else left out.

    Intervals: the normal one at ``z`` (:func:`chessmoe.elo.confidence_z` of the level), except for
    tiny or lopsided matches (:func:`_interval`). LOS is one model in both modes
    (:func:`likelihood_of_superiority`). The "what if" match keeps the score (fractional counts).
    The SPRT uses the exact generalized LLR of fishtest and fastchess (``chessmoe elo --sprt``
    computes the same); a test decided at the match's length also gets the Elo read as stopped there
    (:func:`chessmoe.sequential.stopped_estimate`). The spread of the match is on the record
    (:func:`match_spread`).
    """
    if mode not in ("wdl", "pentanomial"):
        raise ValueError(f"mode must be 'wdl' or 'pentanomial', got {mode!r}")
    if sprt_model not in SPRT_UNITS:
        raise ValueError(f"the SPRT model must be 'normalized' or 'logistic', got {sprt_model!r}")
    _check_settings(level=level, precision=precision, elo0=elo0, elo1=elo1, alpha=alpha,
                    beta=beta, unit=SPRT_UNITS[sprt_model])
    z = elo.confidence_z(level)
    notes: list[str] = []
    if pairs is not None and len(pairs) not in (0, 5):
        raise ValueError(f"pair counts are ({', '.join(PAIR_NAMES)}), got {list(pairs)}")
    if pairs is not None and len(pairs) == 5:
        for name, c in zip(PAIR_NAMES, pairs, strict=True):  # name a bad count before summing
            if isinstance(c, bool) or not isinstance(c, int):
                raise ValueError(f"{name} must be a whole number of pairs, got {c!r}")
            if c < 0:
                raise ValueError(f"{name} must be >= 0, got {c}")
    pair_counts = (_five(pairs) if pairs is not None and len(pairs) == 5
                   and any(c != 0 for c in pairs) else None)
    wdl_given = (wins, draws, losses) != (0, 0, 0)
    tri: Estimate | None = None
    pen: Estimate | None = None
    wdl: tuple[int, int, int] | None = None
    if mode == "wdl":
        _check((wins, draws, losses), WDL_NAMES)
        wdl = (wins, draws, losses)
        tri = _estimate("trinomial (cutechess)", "entered", _wdl_text(*wdl), wdl, level, z)
        if pair_counts is None:
            notes.append("Pentanomial: not derivable from W/D/L (W/D/L does not record which "
                         "games were paired); switch to game pairs to enter them.")
        elif _pairs_fit_wdl(pair_counts, wins, draws, losses):
            pen = _estimate("pentanomial (fastchess)", "recorded with the same match",
                            _pairs_text(pair_counts), pair_counts, level, z, wdl)
            notes.append("Pentanomial: from the pairs recorded with the same match.")
        else:
            raise ValueError(f"the pairs ({_pairs_text(pair_counts)}) do not describe the same "
                             f"games as {_wdl_text(wins, draws, losses)}")
    else:
        if pair_counts is None:
            raise ValueError(f"no games: give at least one of {', '.join(PAIR_NAMES)}")
        ll, ld, mixed, wd, ww = pair_counts
        source = ""
        if wdl_given:
            _check((wins, draws, losses), WDL_NAMES)
            if not _pairs_fit_wdl(pair_counts, wins, draws, losses):
                raise ValueError(f"{_wdl_text(wins, draws, losses)} do not describe the same "
                                 f"games as the pairs ({_pairs_text(pair_counts)})")
            wdl, source = (wins, draws, losses), "recorded with the same match"
        elif mixed == 0:
            wdl, source = (wd + 2 * ww, ld + wd, 2 * ll + ld), "derived from the pairs"
        else:
            each = "pair is" if mixed == 1 else "pairs are each"
            notes.append(f"Trinomial: W/D/L cannot be derived from the pairs ({mixed} WL+DD "
                         f"{each} a win and a loss or two draws).")
        # the pairs' LOS comes from the W and L of the same games (recorded or derived)
        pen = _estimate("pentanomial (fastchess)", "entered", _pairs_text(pair_counts),
                        pair_counts, level, z, wdl)
        if wdl is not None:
            tri = _estimate("trinomial (cutechess)", source, _wdl_text(*wdl), wdl, level, z)
            notes.append(f"Trinomial: W/D/L {source}.")
    primary = tri if mode == "wdl" else pen
    assert primary is not None
    counts: tuple[int, ...] = wdl if mode == "wdl" and wdl is not None else pair_counts or ()
    per = 1 if mode == "wdl" else 2
    played = primary.games
    target = what_if_games if what_if_games is not None else 10 * played
    if isinstance(target, bool) or not isinstance(target, int) or target < per:
        raise ValueError(f"{FIELDS['what_if_games']} must be a whole number >= {per}, "
                         f"got {target!r}")
    scale = target / played  # the same proportions, fractional counts: the score is kept
    scaled = [c * scale for c in counts]
    if mode == "wdl":
        scaled_est = _estimate("trinomial (cutechess)", "same proportions",
                               _wdl_text(*scaled), scaled, level, z)
    else:
        scaled_wdl = [c * scale for c in wdl] if wdl is not None else None
        scaled_est = _estimate("pentanomial (fastchess)", "same proportions",
                               _pairs_text(scaled), scaled, level, z, scaled_wdl)
    what_if = WhatIf(games=target, estimate=scaled_est,
                     verdict=verdict(scaled_est.low, scaled_est.high, level))
    scores: tuple[float, ...]
    if mode == "wdl":
        w, d, l_ = counts
        nelo, nelo_margin = elo.normalized_elo_trinomial(w, l_, d, z=z)
        cells, scores = [float(l_), float(d), float(w)], GAME_SCORES
    else:
        nelo, nelo_margin = elo.normalized_elo_pentanomial(list(counts), z=z)
        cells, scores = [float(c) for c in counts], PAIR_SCORES
    if not (math.isfinite(nelo) and math.isfinite(nelo_margin)):
        nelo = nelo_margin = math.nan
    n_units = sum(cells)
    mu = sum(c * s for c, s in zip(cells, scores, strict=True)) / n_units
    var = sum(c * (s - mu) ** 2 for c, s in zip(cells, scores, strict=True)) / n_units
    needed = elo.games_for_margin(mu, per * var, precision, z)
    own = nelo if sprt_model == "normalized" else primary.elo
    path = _sprt_path(mode, counts, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
                      model=sprt_model, until=max(target, played), own=own)
    stopped = None
    if path.state != "continue" and var > 0.0:
        stopped = sequential.stopped_estimate(
            elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, model=sprt_model, variance=var,
            per=per, units=n_units, accepted=path.state.split()[0], level=level,
            fixed_length=sequential.value_of_score(mu, model=sprt_model, variance=var,
                                                   per=per))
    return EloExplorerResult(mode=mode, level=level, z=z, wdl=wdl, pairs=pair_counts,
                             trinomial=tri, pentanomial=pen, notes=tuple(notes),
                             verdict=verdict(primary.low, primary.high, level), sprt=path,
                             what_if=what_if, nelo=nelo, nelo_margin=nelo_margin,
                             precision=precision, games_needed=needed,
                             spread=match_spread(wdl, pair_counts), stopped=stopped)


# --- presets -------------------------------------------------------------------------------

#: The tournaments whose matches decide the kit's answers: their full-length matches open the
#: preset menu (with every SPRT match); the rest are found by searching.
DECISIVE_TOURNAMENTS = ("powered", "matched", "converged")


@dataclass(frozen=True)
class PresetTest:
    """The sequential test a committed match ran to (its bounds, error rates and model)."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: SprtModel


@dataclass(frozen=True)
class Preset:
    """A starting point of the explorer: a label, the counts it sets, its group (the
    tournament of a committed match, :data:`EXAMPLES` for the kit's own), whether it is one of
    the decisive matches the menu opens with, and the SPRT it ran to (None for a fixed-length
    match). A preset with pairs opens in pairs mode."""

    label: str
    mode: Mode
    wins: int
    draws: int
    losses: int
    pairs: tuple[int, int, int, int, int]
    group: str = EXAMPLES
    decisive: bool = False
    test: PresetTest | None = None

    @property
    def name(self) -> str:
        """``powered / staged-b8-n100 (400 games)``: the label with its tournament."""
        return self.label if self.group == EXAMPLES else f"{self.group} / {self.label}"


def committed_presets(results_dir: str | os.PathLike[str]) -> list[Preset]:
    """One preset per played match of every committed ``results/tournaments/*/summary.json``,
    grouped by its tournament (the folder's name), labelled by the match's name and length, in
    pairs mode whenever its pairs describe its games, with its SPRT when it ran to one. The
    decisive ones: the longest matches of :data:`DECISIVE_TOURNAMENTS` and every SPRT match."""
    out = []
    for path in sorted(Path(results_dir).glob("tournaments/*/summary.json")):
        group = path.parent.name
        matches = [m for m in TournamentSummary.read(path).matches
                   if any((m.summary.wins, m.summary.draws, m.summary.losses))]
        longest = max((m.summary.games for m in matches), default=0)
        for match in matches:
            result = match.summary
            penta = result.pentanomial
            wdl = result.wins, result.draws, result.losses
            note = ""
            if any(penta) and not _pairs_fit_wdl(penta, *wdl):
                # a match still being played can end on half a pair: its pairs cover fewer
                # games than its W/D/L, so the preset keeps the W/D/L and drops the pairs
                penta, note = (0, 0, 0, 0, 0), f", {2 * sum(result.pentanomial)} in pairs"
            test = None
            if match.sprt is not None and match.sprt.model in SPRT_UNITS:
                t = match.sprt
                test = PresetTest(t.elo0, t.elo1, t.alpha, t.beta,
                                  "logistic" if t.model == "logistic" else "normalized")
            decisive = test is not None or (group in DECISIVE_TOURNAMENTS
                                            and result.games == longest)
            out.append(Preset(f"{match.name} ({result.games} games{note})",
                              "pentanomial" if any(penta) else "wdl", *wdl, penta,
                              group=group, decisive=decisive, test=test))
    return out


def preset_groups(choices: Sequence[Preset]) -> list[tuple[str, list[int]]]:
    """The presets' groups in order of first appearance, each with its presets' indices."""
    groups: dict[str, list[int]] = {}
    for i, preset in enumerate(choices):
        groups.setdefault(preset.group, []).append(i)
    return list(groups.items())


def find_presets(choices: Sequence[Preset], query: str = "") -> list[int]:
    """The indices the preset menu shows for a search: with none, the kit's examples and the
    decisive matches; else every preset whose name (tournament / match) holds each word of
    ``query`` (case ignored), in order."""
    words = query.lower().split()
    if not words:
        return [i for i, p in enumerate(choices) if p.group == EXAMPLES or p.decisive]
    return [i for i, p in enumerate(choices) if all(w in p.name.lower() for w in words)]


def presets(results_dir: str | os.PathLike[str] | None = None, *, mode: str = "wdl",
            wins: int = 60, draws: int = 30, losses: int = 40,
            pairs: Sequence[int] = ()) -> list[Preset]:
    """The parameters cell's counts, the paper's 1000-game match size, the kit's small matches
    (12 games) and every committed match under ``results_dir``."""
    given = tuple(pairs) if len(pairs) == 5 else (0, 0, 0, 0, 0)
    if mode not in ("wdl", "pentanomial"):
        raise ValueError(f"mode must be 'wdl' or 'pentanomial', got {mode!r}")
    own = [Preset("parameters cell", mode, wins, draws, losses, given),  # type: ignore[arg-type]
           Preset("paper-sized match: 1000 games, +17 Elo (W 300, D 450, L 250)", "wdl",
                  300, 450, 250, (0, 0, 0, 0, 0)),
           Preset("kit-sized match: 12 games as 6 pairs, +29 Elo (W 4, D 5, L 3)",
                  "pentanomial", 4, 5, 3, (0, 1, 3, 2, 0))]
    return own + (committed_presets(results_dir) if results_dir is not None else [])
