"""The Elo explorer's static figure: what a match result says, and how the interval shrinks
with games.

:func:`describe` turns W/D/L (or pentanomial pair counts) and a confidence level into the
cutechess line, the interval, LOS, normalised Elo and an SPRT verdict; :func:`interval_curve`
scales the same result to other numbers of games; :func:`explorer_figure` draws both for a
notebook or a file (``make figures``). The browser explorer is :mod:`chessmoe.explore`'s.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from chessmoe import elo
from chessmoe.report import stems
from chessmoe.report.figures.style import Artefact, new_figure, save_figure

__all__ = ["describe", "explorer_figure", "interval_curve"]


def _estimate(wins: int, draws: int, losses: int, pentanomial: Sequence[int] | None,
              z: float) -> elo.EloEstimate:
    if pentanomial is not None and sum(pentanomial) > 0:
        return elo.pentanomial(list(pentanomial), z=z)
    return elo.trinomial(wins, losses, draws, z=z)


def describe(wins: int, draws: int, losses: int, *, level: float = 0.95,
             pentanomial: Sequence[int] | None = None, elo0: float = 0.0,
             elo1: float = 10.0, alpha: float = 0.05, beta: float = 0.05) -> dict[str, Any]:
    """Everything the explorer prints for one result."""
    z = elo.confidence_z(level)
    estimate = _estimate(wins, draws, losses, pentanomial, z)
    low, high = estimate.elo - estimate.margin, estimate.elo + estimate.margin
    if pentanomial is not None and sum(pentanomial) > 0:
        nelo, nmargin = elo.normalized_elo_pentanomial(list(pentanomial))
        test = elo.sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
                        pentanomial=list(pentanomial))
    else:
        nelo, nmargin = elo.normalized_elo_trinomial(wins, losses, draws)
        test = elo.sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, wins=wins,
                        losses=losses, draws=draws)
    return {"line": elo.trinomial(wins, losses, draws).line(), "elo": estimate.elo,
            "margin": estimate.margin, "low": low, "high": high, "level": level,
            "los": estimate.los, "draw_ratio": estimate.draw_ratio, "games": estimate.games,
            "normalized_elo": nelo, "normalized_margin": nmargin,
            "sprt": {"llr": test.llr, "lower": test.lower, "upper": test.upper,
                     "state": test.state, "elo0": elo0, "elo1": elo1}}


def interval_curve(wins: int, draws: int, losses: int, *, level: float = 0.95,
                   points: int = 40, max_games: int | None = None) -> pd.DataFrame:
    """The interval of the same W/D/L proportions at other numbers of games."""
    total = wins + draws + losses
    if total == 0:
        raise ValueError("no games: give at least one win, draw or loss")
    top = max_games or max(10 * total, 1000)
    games = np.unique(np.geomspace(10, top, points).astype(int))
    z = elo.confidence_z(level)
    rows = []
    for n in games:
        scale = n / total
        w, d = round(wins * scale), round(draws * scale)
        l_ = max(0, int(n) - w - d)
        estimate = elo.trinomial(w, l_, d, z=z)
        rows.append({"games": int(n), "elo": estimate.elo, "margin": estimate.margin,
                     "low": estimate.elo - estimate.margin,
                     "high": estimate.elo + estimate.margin, "los": estimate.los})
    return pd.DataFrame(rows)


def explorer_figure(wins: int, draws: int, losses: int, *, level: float = 0.95,
                    out_dir: str | os.PathLike[str] | None = None,
                    stem: str = stems.EXTRAS_ELO_EXPLORER) -> Artefact:
    """(a) Elo and its interval as the same result is scaled to more games; (b) LOS."""
    curve = interval_curve(wins, draws, losses, level=level)
    info = describe(wins, draws, losses, level=level)
    fig = new_figure(10, 3.8)
    left, right = fig.subplots(1, 2)
    finite = curve[np.isfinite(curve["low"]) & np.isfinite(curve["high"])]
    left.fill_between(finite["games"], finite["low"], finite["high"], color="#9ecae1",
                      label=f"{level:.0%} interval")
    left.plot(curve["games"], curve["elo"], color="black", lw=1.5, label="Elo estimate")
    total = wins + draws + losses
    left.axvline(total, color="#d95f02", ls="--", lw=1.2, label=f"this result ({total} games)")
    left.axhline(0, color="black", lw=0.6)
    left.set_xscale("log")
    left.set_xlabel("games (same win/draw/loss proportions)")
    left.set_ylabel("Elo difference")
    left.legend(fontsize=8)
    left.set_title(f"(a) W {wins}, D {draws}, L {losses}: "
                   f"{info['elo']:+.1f} +/- {info['margin']:.1f}", fontsize=10)
    right.plot(curve["games"], curve["los"], color="#1b9e77", lw=1.5)
    right.set_xscale("log")
    right.set_ylim(-2, 102)
    right.set_xlabel("games")
    right.set_ylabel("likelihood of superiority (%)")
    right.set_title(f"(b) LOS; SPRT [{info['sprt']['elo0']:g}, {info['sprt']['elo1']:g}]: "
                    f"{info['sprt']['state']}", fontsize=10)
    fig.suptitle(info["line"], fontsize=10)
    paths = save_figure(fig, out_dir, stem) if out_dir is not None else []
    return Artefact(stem, paths, figure=fig)
