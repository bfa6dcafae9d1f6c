"""The rating list of the ratings tournament: a table and a figure with intervals.

Ratings are maximum-likelihood logistic Elo (:func:`chessmoe.games.ratings.rating_table`)
from every game of the tournament, anchored to the Stockfish player named by
:data:`chessmoe.nets.names.RATING_ANCHOR`; intervals are 95 %. Players the results cannot
place (a perfect or zero score against the rest) are drawn as arrows at the edge, not
as points.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pandas as pd

from chessmoe.games.ratings import RatingRow, rating_table, tournament_results
from chessmoe.nets.names import RATING_CHECK
from chessmoe.report import stems
from chessmoe.report.figures.style import Artefact, new_figure, save_figure, save_table

__all__ = ["check_note", "fig_rating_list", "rating_rows", "source_note", "table_rating_list"]


def rating_rows(tournament_dir: str | os.PathLike[str], anchor: str, anchor_elo: float
                ) -> list[RatingRow]:
    """The list, best first (empty while no game has been played or the anchor has none)."""
    matches = tournament_results(tournament_dir)
    names = {n for m in matches for n in (m.first, m.second)}
    if anchor not in names:
        return []
    return rating_table(matches, anchor=anchor, anchor_elo=anchor_elo)


def _fmt(x: float) -> str:
    return "n/a" if math.isnan(x) else ("+inf" if x == math.inf else "-inf"
                                        if x == -math.inf else f"{x:.0f}")


def check_note(rows: list[RatingRow], check: tuple[str, float]) -> str | None:
    """Where the list puts a second Stockfish UCI_Elo level beside its nominal rating (a
    check on the anchor's scale), or None while that player has no games."""
    name, nominal = check
    row = next((r for r in rows if r.name == name), None)
    if row is None:
        return None
    inside = row.low <= nominal <= row.high
    return (f"Scale check: {name} (nominal UCI_Elo {nominal:.0f}) is placed at {_fmt(row.elo)} "
            f"[{_fmt(row.low)}, {_fmt(row.high)}] over {row.games} games: its nominal rating is "
            + ("inside the interval, so Stockfish's own scale is not contradicted between the "
               "two levels at 100 ms a move." if inside else
               "outside the interval, so at 100 ms a move Stockfish's UCI_Elo steps do not "
               "keep their nominal size on this list."))


def source_note(tournament_dir: str | os.PathLike[str]) -> str:
    """The tournament the list is made of: its games, distinct openings and draw rules."""
    from chessmoe import played

    path = Path(tournament_dir)
    arms = played.load_arms(path) if path.is_dir() else {}
    games = sum(len(records) for records in arms.values())
    openings = len({r.opening for records in arms.values() for r in records
                    if r.opening is not None})
    rules = played.draw_rules(path) or "unknown"
    return (f"Tournament '{path.name}': {games} games from {openings} distinct openings, "
            f"{rules} draw rules.")


def table_rating_list(tournament_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str],
                      anchor: str, anchor_elo: float,
                      check: tuple[str, float] | None = RATING_CHECK) -> Artefact:
    rows = rating_rows(tournament_dir, anchor, anchor_elo)
    frame = pd.DataFrame([{"Rank": r.rank, "Player": r.name, "Rating": _fmt(r.elo),
                           "95 % interval": f"[{_fmt(r.low)}, {_fmt(r.high)}]",
                           "Points": f"{r.points:g}", "Games": r.games} for r in rows],
                         columns=["Rank", "Player", "Rating", "95 % interval", "Points",
                                  "Games"])
    notes = [source_note(tournament_dir),
             f"Maximum-likelihood logistic Elo from every game of the round robin, anchored "
             f"at {anchor} = {anchor_elo:.0f}. Stockfish calibrates UCI_Elo at a time control "
             "(not at 100 ms or a node count) on its own scale: the anchor puts the list on a "
             "recognisable scale, it does not make these human ratings.",
             f"Same list from the PGNs: chessmoe ratings results/tournaments/"
             f"{Path(tournament_dir).name}/*/games.pgn --anchor {anchor}={anchor_elo:.0f}"]
    checked = check_note(rows, check) if check else None
    if checked:
        notes.append(checked)
    if not rows:
        notes.insert(0, "No games with the anchor yet.")
    paths = save_table(frame.set_index("Rank"), out_dir, stems.RATING_LIST_TABLE,
                       "A rating list of the kit's engines anchored to Stockfish 15.1", notes)
    return Artefact(stems.RATING_LIST_TABLE, paths, table=frame)


def fig_rating_list(tournament_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str],
                    anchor: str, anchor_elo: float) -> Artefact:
    rows = rating_rows(tournament_dir, anchor, anchor_elo)
    fig = new_figure(7.0, 0.9 + 0.4 * max(len(rows), 3))
    ax = fig.subplots()
    if not rows:
        ax.text(0.5, 0.5, "no rated games yet", ha="center", va="center",
                transform=ax.transAxes, color="#666666")
        ax.set_xticks([])
        ax.set_yticks([])
    finite = [r for r in rows if math.isfinite(r.elo)]
    span = ([min(r.low for r in finite if math.isfinite(r.low)),
             max(r.high for r in finite if math.isfinite(r.high))] if finite else [0.0, 1.0])
    for y, r in enumerate(rows):
        color = "#c00000" if r.name.startswith("sf-") else "#1f4e79"
        if not math.isfinite(r.elo):
            edge = span[1] if r.elo > 0 else span[0]
            ax.plot([edge], [y], marker=">" if r.elo > 0 else "<", color=color, ms=8)
            continue
        ax.plot([r.low, r.high], [y, y], color=color, lw=1.6)
        ax.plot([r.elo], [y], marker="o", color=color, ms=5)
        ax.annotate(f"{r.games} games", (1.0, y), xycoords=("axes fraction", "data"),
                    xytext=(4, -3), textcoords="offset points", fontsize=7, color="#444444")
    if rows:
        ax.set_yticks(range(len(rows)), [r.name for r in rows], fontsize=8)
        ax.invert_yaxis()
        ax.axvline(anchor_elo, color="#999999", lw=0.8, ls=":")
        ax.set_xlabel(f"Elo (maximum likelihood, 95 % interval), {anchor} = {anchor_elo:.0f}")
    ax.set_title("The kit's engines and Stockfish anchors in one rating list", fontsize=10)
    return Artefact(stems.RATING_LIST, save_figure(fig, out_dir, stems.RATING_LIST), figure=fig)
