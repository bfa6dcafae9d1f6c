"""The Elo explorer's numbers: one match result in, one typed record out.

The user picks a *mode*: the match's W/D/L counts (trinomial, what cutechess prints) or its game
pair counts (pentanomial, what fastchess prints). The other model is shown beside it only where it
can be had for the same match, and the record says where each number came from:

* pentanomial counts can never be derived from W/D/L (W/D/L does not record which games were
  paired); they appear in W/D/L mode only when the pairs of the same match were recorded too
  (a committed tournament summary holds both);
* W/D/L follow from pairs except that a ``WL+DD`` pair is either a win and a loss or two draws:
  they are derived when no such pair occurred, taken as recorded when given, else left out.

Every interval uses one multiplier ``z`` (:func:`chessmoe.elo.confidence_z` of the level) for the
bounds, the margin and the text alike. The formulas are in ``docs/elo.md``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from chessmoe import elo

__all__ = [
    "EloExplorerResult",
    "Estimate",
    "Mode",
    "Preset",
    "SprtPath",
    "WhatIf",
    "committed_presets",
    "explore",
    "presets",
    "verdict",
]

Mode = Literal["wdl", "pentanomial"]
PAIR_NAMES = ("LL", "LD", "WL+DD", "WD", "WW")


@dataclass(frozen=True)
class Estimate:
    """One model's Elo estimate of the match, with the counts it came from.

    ``model``: "trinomial (cutechess)" or "pentanomial (fastchess)"; ``source``: how its counts
    were obtained ("entered", "recorded with the same match", "derived from the pairs").
    ``[low, high]`` is the interval at ``z``, ``margin`` half its width (infinite bounds give an
    infinite margin), ``los`` the likelihood of superiority in percent.
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

    def text(self, level: float) -> str:
        """``+53.9 +/- 53.3 Elo, 95 % interval [+1.6, +107.2]`` (one multiplier throughout)."""
        return (f"{_signed(self.elo)} +/- {_unsigned(self.margin)} Elo, {level * 100:g} % "
                f"interval [{_signed(self.low)}, {_signed(self.high)}]")


@dataclass(frozen=True)
class SprtPath:
    """The SPRT's log-likelihood ratio after each game (or pair) of a match with the result's
    proportions (the order of the games is not recorded, so the path is the proportional one).

    ``games[i]`` games played give ``llr[i]``; ``decided_at`` is the first number of games where
    the path leaves ``(lower, upper)`` (None if it never does), ``state`` the decision at the
    match's own length.
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


@dataclass(frozen=True)
class WhatIf:
    """The primary estimate at another number of games with the same score proportions."""

    games: int
    estimate: Estimate
    verdict: str


@dataclass(frozen=True)
class EloExplorerResult:
    """Everything the explorer shows for one match result."""

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

    @property
    def primary(self) -> Estimate:
        """The estimate of the chosen mode."""
        chosen = self.trinomial if self.mode == "wdl" else self.pentanomial
        assert chosen is not None
        return chosen


def _signed(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.1f}"


def _unsigned(x: float) -> str:
    return "inf" if math.isinf(x) else "nan" if math.isnan(x) else f"{x:.1f}"


def _check(counts: Sequence[int], names: Sequence[str]) -> None:
    if any(isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in counts):
        shown = ", ".join(f"{n} {c}" for n, c in zip(names, counts, strict=True))
        raise ValueError(f"counts must be whole numbers >= 0, got {shown}")
    if sum(counts) == 0:
        raise ValueError(f"no games: give at least one of {', '.join(names)}")


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


def _estimate(model: str, source: str, counts: str, est: elo.EloEstimate) -> Estimate:
    return Estimate(model=model, source=source, counts=counts, elo=est.elo, low=est.low,
                    high=est.high, margin=(est.high - est.low) / 2.0, los=est.los,
                    games=est.games)


def _wdl_text(w: int, d: int, l_: int) -> str:
    return f"W {w}, D {d}, L {l_}"


def _pairs_text(p: Sequence[int]) -> str:
    return ", ".join(f"{n} {c}" for n, c in zip(PAIR_NAMES, p, strict=True))


def _pairs_fit_wdl(p: Sequence[int], w: int, d: int, l_: int) -> bool:
    """Can pairs ``p`` and W/D/L describe the same games? (a WL+DD pair splits either way)"""
    ll, ld, mixed, wd, ww = p
    if 2 * sum(p) != w + d + l_:
        return False
    # k of the WL+DD pairs are one win and one loss, the rest two draws
    return any(w == wd + 2 * ww + k and l_ == 2 * ll + ld + k and d == ld + wd + 2 * (mixed - k)
               for k in range(mixed + 1))


def _scaled(counts: Sequence[int], games: int, per: int) -> list[int]:
    """Counts with the same proportions over ``games`` games (``per`` games per count unit)."""
    total = sum(counts)
    units = max(1, round(games / per))
    raw = [c * units / total for c in counts]
    out = [math.floor(r) for r in raw]
    for i in sorted(range(len(raw)), key=lambda i: out[i] - raw[i])[:units - sum(out)]:
        out[i] += 1
    return out


def _sprt_path(mode: Mode, counts: Sequence[int], *, elo0: float, elo1: float, alpha: float,
               beta: float, until: int, points: int = 120) -> SprtPath:
    per = 1 if mode == "wdl" else 2
    played = sum(counts) * per
    steps = sorted({*(max(per, round(x)) for x in _geom(per, max(until, played), points)),
                    played})
    steps = [s - s % per for s in steps if s - s % per >= per]
    steps = sorted(set(steps))
    path: list[float] = []
    lower = upper = math.nan
    for games in steps:
        scaled = _scaled(counts, games, per)
        if mode == "wdl":
            w, d, l_ = scaled
            test = elo.sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, wins=w, draws=d,
                            losses=l_)
        else:
            test = elo.sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, pentanomial=scaled)
        path.append(test.llr)
        lower, upper = test.lower, test.upper
    if mode == "wdl":
        w, d, l_ = counts
        now = elo.sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, wins=w, draws=d, losses=l_)
    else:
        now = elo.sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, pentanomial=list(counts))
    decided_at, decision = None, "the path stays between the bounds: continue"
    for games, llr in zip(steps, path, strict=True):
        if llr >= upper or llr <= lower:
            decided_at = games
            decision = (f"H1 (elo {elo1:g}) accepted after about {games} games" if llr >= upper
                        else f"H0 (elo {elo0:g}) accepted after about {games} games")
            break
    return SprtPath(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, lower=lower, upper=upper,
                    games=tuple(steps), llr=tuple(path), llr_now=now.llr, state=now.state,
                    decided_at=decided_at, decision=decision)


def _five(counts: Sequence[int]) -> tuple[int, int, int, int, int]:
    a, b, c, d, e = counts
    return (a, b, c, d, e)


def _geom(start: int, stop: int, points: int) -> list[float]:
    if stop <= start:
        return [float(start)]
    ratio = (stop / start) ** (1.0 / (points - 1))
    return [start * ratio**i for i in range(points)]


def explore(mode: Mode, *, wins: int = 0, draws: int = 0, losses: int = 0,
            pairs: Sequence[int] | None = None, level: float = 0.95, elo0: float = 0.0,
            elo1: float = 10.0, alpha: float = 0.05, beta: float = 0.05,
            what_if_games: int | None = None) -> EloExplorerResult:
    """The explorer's record of one match.

    ``mode="wdl"`` reads ``wins``/``draws``/``losses`` (``pairs``, if given, must describe the
    same games and adds the pentanomial estimate); ``mode="pentanomial"`` reads ``pairs``
    ``(LL, LD, WL+DD, WD, WW)`` (W/D/L, if given, must fit them). ``what_if_games`` (default:
    ten times the match) rescales the chosen counts to that many games. Raises ``ValueError``
    naming the counts in the order shown (W, D, L or LL ... WW).
    """
    if mode not in ("wdl", "pentanomial"):
        raise ValueError(f"mode must be 'wdl' or 'pentanomial', got {mode!r}")
    z = elo.confidence_z(level)
    notes: list[str] = []
    wdl_given = (wins, draws, losses) != (0, 0, 0)
    pair_counts = tuple(int(c) for c in pairs) if pairs is not None and sum(pairs) > 0 else None
    if pair_counts is not None and len(pair_counts) != 5:
        raise ValueError(f"pair counts are ({', '.join(PAIR_NAMES)}), got {list(pair_counts)}")
    tri: Estimate | None = None
    pen: Estimate | None = None
    wdl: tuple[int, int, int] | None = None
    if mode == "wdl":
        _check((wins, draws, losses), ("W", "D", "L"))
        wdl = (wins, draws, losses)
        tri = _estimate("trinomial (cutechess)", "entered", _wdl_text(*wdl),
                        elo.trinomial(wins, losses, draws, z=z))
        if pair_counts is None:
            notes.append("Pentanomial: not derivable from W/D/L (W/D/L does not record which "
                         "games were paired); enter the pairs to see it.")
        elif _pairs_fit_wdl(pair_counts, wins, draws, losses):
            pen = _estimate("pentanomial (fastchess)", "recorded with the same match",
                            _pairs_text(pair_counts), elo.pentanomial(list(pair_counts), z=z))
            notes.append("Pentanomial: from the pairs recorded with the same match.")
        else:
            raise ValueError(f"the pairs ({_pairs_text(pair_counts)}) do not describe the same "
                             f"games as {_wdl_text(wins, draws, losses)}")
    else:
        if pair_counts is None:
            raise ValueError(f"no games: give at least one of {', '.join(PAIR_NAMES)}")
        _check(pair_counts, PAIR_NAMES)
        pen = _estimate("pentanomial (fastchess)", "entered", _pairs_text(pair_counts),
                        elo.pentanomial(list(pair_counts), z=z))
        ll, ld, mixed, wd, ww = pair_counts
        if wdl_given:
            if not _pairs_fit_wdl(pair_counts, wins, draws, losses):
                raise ValueError(f"{_wdl_text(wins, draws, losses)} do not describe the same "
                                 f"games as the pairs ({_pairs_text(pair_counts)})")
            wdl, source = (wins, draws, losses), "recorded with the same match"
        elif mixed == 0:
            wdl, source = (wd + 2 * ww, ld + wd, 2 * ll + ld), "derived from the pairs"
        else:
            source = ""
            notes.append(f"Trinomial: W/D/L cannot be derived from the pairs ({mixed} WL+DD "
                         "pairs are each a win and a loss or two draws); enter the match's "
                         "W/D/L to see it.")
        if wdl is not None:
            tri = _estimate("trinomial (cutechess)", source, _wdl_text(*wdl),
                            elo.trinomial(wdl[0], wdl[2], wdl[1], z=z))
            notes.append(f"Trinomial: W/D/L {source}.")
    primary = tri if mode == "wdl" else pen
    assert primary is not None
    counts: tuple[int, ...] = wdl if mode == "wdl" and wdl is not None else pair_counts or ()
    played = primary.games
    target = what_if_games if what_if_games is not None else 10 * played
    if target < (1 if mode == "wdl" else 2):
        raise ValueError(f"the 'what if' number of games must be >= 1, got {target}")
    per = 1 if mode == "wdl" else 2
    scaled = _scaled(counts, target, per)
    if mode == "wdl":
        w, d, l_ = scaled
        scaled_est = _estimate("trinomial (cutechess)", "same proportions",
                               _wdl_text(w, d, l_), elo.trinomial(w, l_, d, z=z))
    else:
        scaled_est = _estimate("pentanomial (fastchess)", "same proportions",
                               _pairs_text(scaled), elo.pentanomial(scaled, z=z))
    what_if = WhatIf(games=scaled_est.games, estimate=scaled_est,
                     verdict=verdict(scaled_est.low, scaled_est.high, level))
    path = _sprt_path(mode, counts, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
                      until=max(target, played))
    return EloExplorerResult(mode=mode, level=level, z=z, wdl=wdl,
                             pairs=_five(pair_counts) if pair_counts else None,
                             trinomial=tri, pentanomial=pen, notes=tuple(notes),
                             verdict=verdict(primary.low, primary.high, level), sprt=path,
                             what_if=what_if)


# --- presets -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Preset:
    """A starting point of the explorer: a label and the counts it sets."""

    label: str
    mode: Mode
    wins: int
    draws: int
    losses: int
    pairs: tuple[int, int, int, int, int]


def committed_presets(results_dir: str | os.PathLike[str]) -> list[Preset]:
    """One preset per match of every committed ``results/tournaments/*/summary.json``."""
    out = []
    for summary in sorted(Path(results_dir).glob("tournaments/*/summary.json")):
        data = json.loads(summary.read_text(encoding="utf-8"))
        for match in data.get("matches", []):
            penta = tuple(int(c) for c in match.get("pentanomial") or (0, 0, 0, 0, 0))
            out.append(Preset(f"{summary.parent.name}: {match['name']} ({match['games']} games)",
                              "wdl", int(match["wins"]), int(match["draws"]),
                              int(match["losses"]), penta))  # type: ignore[arg-type]
    return out


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
           Preset("kit-sized match: 12 games as 6 pairs, +29 Elo (W 4, D 5, L 3)", "wdl",
                  4, 5, 3, (0, 1, 3, 2, 0))]
    return own + (committed_presets(results_dir) if results_dir is not None else [])
