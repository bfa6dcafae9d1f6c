"""What the evidence decides: the claims table and the powered tournament's forest plot.

Both read a tournament directory's game records (``<match>/games-*.jsonl``) and the experts'
``evaluation.json`` files through :mod:`chessmoe.report.verdicts`; every verdict is computed
from them, none is typed by hand. Estimates use game pairs (one opening, both colours) as the
unit, so the two games of an opening are never counted as independent.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pandas as pd

from chessmoe.report import stems, verdicts
from chessmoe.report.figures.style import Artefact, new_figure, save_figure, save_table

__all__ = ["fig_powered_arms", "table_claims"]



def table_claims(tournament_dir: str | os.PathLike[str], experts_dir: str | os.PathLike[str],
                 out_dir: str | os.PathLike[str]) -> Artefact:
    """Every claim the committed tournament and training controls speak to, with our
    estimate, its 95 % interval and the verdict."""
    rows = verdicts.claims(tournament_dir, experts_dir)
    frame = pd.DataFrame([{"Topic": c.topic, "The paper says": c.paper,
                           "We measure (95 % interval)": c.ours, "Verdict": c.verdict,
                           "Note": c.note} for c in rows],
                         columns=["Topic", "The paper says", "We measure (95 % interval)",
                                  "Verdict", "Note"])
    games = sum(len(r) for r in verdicts.load_arms(tournament_dir).values()) \
        if Path(tournament_dir).exists() else 0
    planned = verdicts.planned_games(tournament_dir)
    played = (f"{games} games" if planned is None else f"{games} games, complete"
              if games >= planned else f"{games} of {planned} planned games: in progress")
    notes = [f"Source: {Path(tournament_dir).name} tournament ({played}) and "
             f"{Path(experts_dir).name} experts' evaluations.",
             "supports / contradicts: the 95 % interval lies wholly on the paper's / the "
             "other side of zero; undecided at this scale: it contains zero.",
             "Arms compared with each other were played on the same openings; their "
             "difference is taken opening by opening (a paired design)."]
    if not rows:
        notes.insert(0, "No claim can be assessed yet: the tournament has no complete pair.")
    paths = save_table(frame.set_index("Topic"), out_dir, stems.CLAIMS,
                       "What the committed evidence decides (computed, not typed)", notes)
    return Artefact(stems.CLAIMS, paths, table=frame)


def fig_powered_arms(tournament_dir: str | os.PathLike[str],
                     out_dir: str | os.PathLike[str]) -> Artefact:
    """Every arm of the tournament against the regular network: Elo with its pentanomial
    95 % interval [low, high], game pairs per arm, and the paper's Table 2 value where it
    has one."""
    arms = verdicts.load_arms(tournament_dir) if Path(tournament_dir).exists() else {}
    estimates = [verdicts.arm_estimate(name, records) for name, records in sorted(arms.items())]
    fig = new_figure(7.5, 0.9 + 0.32 * max(len(estimates), 3))
    ax = fig.subplots()
    name = Path(tournament_dir).name
    if not estimates:
        ax.text(0.5, 0.5, f"no game pairs in the '{name}' tournament yet", ha="center",
                va="center", transform=ax.transAxes, color="#666666")
        ax.set_xticks([])
        ax.set_yticks([])
    reach = 400.0
    for y, e in enumerate(estimates):
        if not math.isfinite(e.elo):
            ax.plot([0.0], [y], marker=">" if e.elo > 0 else "<", color="black")
            continue
        for bound, sign in ((e.low, -1.0), (e.high, 1.0)):
            finite = math.isfinite(bound)
            end = bound if finite else e.elo + sign * reach
            ax.plot([e.elo, end], [y, y], color="#1f4e79", lw=1.4, ls="-" if finite else "--")
        ax.plot([e.elo], [y], marker="o", color="#1f4e79", ms=4)
        method = e.name.rsplit("-b", 1)[0]
        paper = verdicts.PAPER_TABLE2.get(method)
        if paper is not None:
            ax.plot([paper], [y], marker="x", color="#c00000", ms=7,
                    label="paper, Table 2" if method == "separated" else None)
        ax.annotate(f"{2 * e.pairs} games", (1.0, y), xycoords=("axes fraction", "data"),
                    xytext=(4, -3), textcoords="offset points", fontsize=6.5, color="#444444")
    if estimates:
        ax.set_yticks(range(len(estimates)), [e.name for e in estimates], fontsize=7)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_xlabel("Elo against the regular network (pairs of games, 95 % interval)")
        ax.invert_yaxis()
        if any(e.name.startswith("separated-b") for e in estimates):
            ax.legend(fontsize=7, loc="upper right")
    ax.set_title(f"Every arm of the '{name}' tournament against one network", fontsize=10)
    return Artefact(stems.POWERED_ARMS, save_figure(fig, out_dir, stems.POWERED_ARMS), figure=fig)
