"""Playing-strength figures and tables: paper Table 2 and Fig. 5, 6, 7, 26-29.

Everything is read from a tournament's ``summary.json``
(:class:`chessmoe.records.TournamentSummary`): one entry per match with its labels (method,
batch size, nodes or move time, ablated expert, phase definition) and its cutechess Elo
estimate of the first engine against the regular network, with the interval's ends.
Intervals are drawn as they are, ``[low, high]`` (the Elo of the score's 95 % bounds:
asymmetric), not as ``elo +- margin``; a bound that is infinite (a score bound beyond 0 or
1, common in small matches) is drawn dashed up to the panel's edge with an arrow, and every
point says how many games it rests on. A panel whose matches were not played in the
tournament says so instead of drawing nothing.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from chessmoe import paper
from chessmoe.records import TournamentSummary
from chessmoe.report import stems
from chessmoe.report.figures.style import (
    PHASE_COLORS,
    Artefact,
    new_figure,
    save_figure,
    save_table,
)

__all__ = [
    "draw_intervals",
    "fig05_separated_nodes",
    "fig06_ablation",
    "fig07_definitions",
    "fig_method",
    "load_tournament",
    "matches_frame",
    "table2_elo",
]

METHOD_NAMES = {"separated": "Separated Learning", "staged": "Staged Learning",
                "weighted-a4": "Weighted Learning (a = 4)",
                "weighted-a10": "Weighted Learning (a = 10)"}
BATCH_COLORS = {1: "#1b9e77", 8: "#d95f02", 16: "#7570b3", 32: "#e7298a", 64: "#66a61e"}


class TournamentMissing(FileNotFoundError):
    """A tournament summary the figures need is absent."""


def load_tournament(directory: str | os.PathLike[str]) -> TournamentSummary:
    path = Path(directory) / "summary.json"
    if not path.exists():
        raise TournamentMissing(f"{path} is missing: run 'make tournament PROFILE=...'")
    return TournamentSummary.read(path)


def matches_frame(summary: TournamentSummary) -> pd.DataFrame:
    """One row per match: labels, games, W/D/L, Elo, margin and the interval [low, high]
    (cutechess's, as the summary stores it: :class:`chessmoe.records.MatchSummary`)."""
    rows = []
    for match in summary.matches:
        result = match.summary
        rows.append({"name": match.name, **dict(match.labels), "games": result.games,
                     "wins": result.wins, "draws": result.draws, "losses": result.losses,
                     "elo": result.elo, "margin": result.margin, "los": result.los,
                     "low": result.low, "high": result.high})
    frame = pd.DataFrame(rows)
    for column in ("nodes", "movetime", "batch_size", "phase"):
        if column not in frame:
            frame[column] = pd.NA
    return frame


def _finite(value: Any) -> bool:
    return value is not None and not pd.isna(value) and math.isfinite(float(value))


PER_GAME_INTERVAL = "per game (trinomial, as cutechess), 95 %"


def plotted(rows: pd.DataFrame) -> pd.DataFrame:
    """The numbers a strength figure draws, one row per match: its labels, W/D/L, the Elo
    estimate and its interval (written beside the figure as ``<stem>.csv``)."""
    data = rows.reset_index() if rows.index.name else rows
    keep = [c for c in ("name", "kind", "method", "expert", "definition", "batch_size",
                        "nodes", "movetime", "games", "wins", "draws", "losses", "elo",
                        "low", "high", "margin") if c in data]
    return data[keep].assign(interval=PER_GAME_INTERVAL).reset_index(drop=True)


def _not_played(ax: Axes, what: str, profile: str) -> None:
    ax.text(0.5, 0.5, f"{what}\nnot played in the '{profile}' tournament\n(see "
            "REPRODUCING.md for the paper profile)", ha="center", va="center", fontsize=9,
            transform=ax.transAxes, color="#666666")
    ax.set_xticks([])
    ax.set_yticks([])


UNBOUNDED_REACH = 400.0  # Elo drawn beyond a point for an infinite bound (dashed, with an arrow)


def draw_intervals(ax: Axes, xs: list[float], rows: pd.DataFrame, color: str,
                   label: str | None, *, bars: bool = False, width: float = 0.6) -> None:
    """Points (or bars) at each row's Elo with its [low, high] interval; infinite bounds
    dashed to +-:data:`UNBOUNDED_REACH` with an arrow; ``n=`` games beside each."""
    for k, (x, (_, row)) in enumerate(zip(xs, rows.iterrows(), strict=True)):
        y = float(row["elo"]) if _finite(row["elo"]) else math.nan
        if bars:
            ax.bar([x], [y if math.isfinite(y) else 0.0], width=width, color=color,
                   edgecolor="black", label=label if k == 0 else None)
        if not math.isfinite(y):  # a perfect or zero score: no finite estimate
            mark = "^" if y == math.inf else "v"
            ax.plot([x], [0.0], marker=mark, color=color, ms=7, ls="none",
                    label=None if bars or k else label)
            ax.annotate(f"{'+' if y > 0 else '-'}inf, n={int(row['games'])}", (x, 0.0),
                        textcoords="offset points", xytext=(4, 4), fontsize=6, color=color)
            continue
        for bound, sign in ((row["low"], -1.0), (row["high"], 1.0)):
            finite = _finite(bound)
            end = float(bound) if finite else y + sign * UNBOUNDED_REACH
            ax.plot([x, x], [y, end], color="black" if bars else color, lw=1.2,
                    ls="-" if finite else "--")
            ax.plot([x], [end], marker="_" if finite else ("^" if sign > 0 else "v"),
                    color="black" if bars else color, ms=7 if finite else 5)
        if not bars:
            ax.plot([x], [y], marker="o", color=color, ms=4, ls="none",
                    label=label if k == 0 else None)
        ax.annotate(f"n={int(row['games'])}", (x, y), textcoords="offset points",
                    xytext=(4, -9), fontsize=6, color="#444444")
    if not bars and len(xs) > 1:
        line = [(x, float(v)) for x, v in zip(xs, rows["elo"], strict=True) if _finite(v)]
        if line:
            ax.plot([p[0] for p in line], [p[1] for p in line], color=color, lw=1.0,
                    alpha=0.6)


def _elo_panel(ax: Axes, frame: pd.DataFrame, x: str, group: str, colors: dict[Any, str],
               label_fmt: str, profile: str, what: str) -> None:
    data = frame[frame[x].notna()] if len(frame) else frame
    if not len(data):
        _not_played(ax, what, profile)
        return
    offsets = {g: (k - (data[group].nunique() - 1) / 2) * 0.04
               for k, g in enumerate(sorted(data[group].unique()))}
    for value, rows in data.groupby(group):
        rows = rows.sort_values(x)
        xs = [float(v) * (2 ** offsets[value]) for v in rows[x]]
        draw_intervals(ax, xs, rows, colors.get(value, "black"), label_fmt.format(value))
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xscale("log", base=2)
    ticks = sorted(float(v) for v in data[x].unique())
    ax.set_xticks(ticks, [f"{int(t)}" for t in ticks])
    ax.set_xlabel("nodes per move" if x == "nodes" else "move time (ms)")
    ax.set_ylabel("Elo gain vs. regular (95 % CI)")
    ax.legend(fontsize=8)


def _method_rows(summary: TournamentSummary, method: str) -> pd.DataFrame:
    frame = matches_frame(summary)
    if "kind" not in frame:
        return frame.iloc[0:0]
    return frame[(frame["kind"] == "method") & (frame.get("method") == method)]


def fig_method(summary: TournamentSummary, out_dir: str | os.PathLike[str], number: int,
               methods: list[str]) -> Artefact:
    """Fig. 26-28: a method's Elo gain by batch size, (a) by nodes, (b) by move time; one
    row per method (Fig. 28: a = 4 and a = 10)."""
    profile = summary.tournament
    fig = new_figure(10, 3.8 * len(methods))
    axes = fig.subplots(len(methods), 2, squeeze=False)
    letters = iter("abcd")
    drawn = []
    for row, method in enumerate(methods):
        rows = _method_rows(summary, method)
        drawn.append(plotted(rows))
        name = METHOD_NAMES.get(method, method)
        for col, x in enumerate(("nodes", "movetime")):
            ax = axes[row, col]
            _elo_panel(ax, rows, x, "batch_size", BATCH_COLORS, "batch {}", profile,
                       f"{name}, {'nodes' if x == 'nodes' else 'move time'}")
            reference = paper.TABLE2_ELO.get(method)
            if reference is not None and len(rows[rows[x].notna()]):
                ax.axhline(reference[-1], color="black", lw=1, ls=":",
                           label=f"paper average {reference[-1]:.0f}")
                ax.legend(fontsize=8)
            ax.set_title(f"({next(letters)}) {name}", fontsize=10)
    fig.suptitle(f"Fig. {number} — Relative Elo gain over the regular network "
                 f"('{profile}' tournament)", fontsize=10)
    stem = stems.METHOD_FIGURES[number]
    return Artefact(stem, save_figure(fig, out_dir, stem, pd.concat(drawn, ignore_index=True)),
                    figure=fig)


def fig05_separated_nodes(summary: TournamentSummary, out_dir: str | os.PathLike[str]
                          ) -> Artefact:
    """Fig. 5: separated-learning experts against the regular network, by nodes per move
    and batch size."""
    profile = summary.tournament
    fig = new_figure(7.5, 4.2)
    ax = fig.subplots()
    rows = _method_rows(summary, "separated")
    _elo_panel(ax, rows, "nodes", "batch_size", BATCH_COLORS, "batch {}", profile,
               "Separated learning by nodes")
    ax.axhline(150, color="#999999", lw=1, ls="--", label="paper: up to 150")
    ax.legend(fontsize=8)
    ax.set_title(f"Fig. 5 — MoE (separated learning) vs. one network in MCTS "
                 f"('{profile}' tournament)", fontsize=10)
    return Artefact(stems.FIG05_MOE_VS_SINGLE,
                    save_figure(fig, out_dir, stems.FIG05_MOE_VS_SINGLE,
                                plotted(rows[rows["nodes"].notna()])), figure=fig)


def fig06_ablation(summary: TournamentSummary, out_dir: str | os.PathLike[str], *,
                   x: str = "nodes", number: int = 6) -> Artefact:
    """Fig. 6 (nodes) and Fig. 29 (move time): one phase expert at a time, baseline for
    the other phases, batch 64."""
    profile = summary.tournament
    frame = matches_frame(summary)
    rows = frame[frame["kind"] == "ablation"] if "kind" in frame else frame.iloc[0:0]
    colors = dict(zip(("opening", "middlegame", "endgame"), PHASE_COLORS, strict=True))
    fig = new_figure(7.5, 4.2)
    ax = fig.subplots()
    _elo_panel(ax, rows, x, "expert", colors, "only the {} expert", profile,
               f"The single-expert ablation by {'nodes' if x == 'nodes' else 'move time'}")
    batch = int(rows["batch_size"].iloc[0]) if len(rows) else 64
    ax.set_title(f"Fig. {number} — One separated-learning expert, the regular network "
                 f"elsewhere\n(batch {batch}, '{profile}' tournament)", fontsize=10)
    stem = stems.FIG06_SINGLE_EXPERT_NODES if number == 6 else stems.FIG29_SINGLE_EXPERT_MOVETIME
    return Artefact(stem, save_figure(fig, out_dir, stem, plotted(rows[rows[x].notna()])),
                    figure=fig)


def fig07_definitions(summary: TournamentSummary, out_dir: str | os.PathLike[str]) -> Artefact:
    """Fig. 7: separated experts under move-count (2-5 phases) and Lichess definitions."""
    profile = summary.tournament
    frame = matches_frame(summary)
    rows = frame[frame["kind"] == "definition"] if "kind" in frame else frame.iloc[0:0]
    fig = new_figure(7.5, 4.2)
    ax = fig.subplots()
    if not len(rows):
        _not_played(ax, "The phase-definition comparison", profile)
    else:
        order = sorted(rows["definition"], key=lambda d: (d == "lichess", d))
        rows = rows.set_index("definition").loc[order]
        xs = list(range(len(rows)))
        for k, d in enumerate(rows.index):
            draw_intervals(ax, [float(xs[k])], rows.iloc[[k]],
                           "#999999" if d.startswith("movecount") else PHASE_COLORS[1], None,
                           bars=True)
        labels = [f"{d[-1]} phases\n(move count)" if d.startswith("movecount")
                  else "3 phases\n(Lichess)" for d in rows.index]
        ax.set_xticks(list(xs), labels, fontsize=8)
        ax.axhline(0, color="black", lw=0.8)
        ax.set_ylabel("Elo gain vs. regular (95 % CI)")
        first = rows.iloc[0]
        ax.set_xlabel(f"batch {int(first['batch_size'])}, "
                      + (f"{int(first['nodes'])} nodes" if _finite(first["nodes"])
                         else f"{int(first['movetime'])} ms"))
        ax.text(0.01, 0.02, "Each expert trains 2 epochs on its phase's share of the data: with "
                "k phases each gets about 1/k of the\nregular network's iterations, so 'more "
                "phases' and 'less training per expert' are confounded here.",
                transform=ax.transAxes, fontsize=6.5, color="#444444", va="bottom")
    ax.set_title(f"Fig. 7 — Phase definitions: separated experts vs. one network "
                 f"('{profile}' tournament)", fontsize=10)
    return Artefact(stems.FIG07_PHASE_DEFINITIONS,
                    save_figure(fig, out_dir, stems.FIG07_PHASE_DEFINITIONS, plotted(rows)),
                    figure=fig)


def table2_elo(summary: TournamentSummary, out_dir: str | os.PathLike[str],
               tournament_dir: str | os.PathLike[str] | None = None) -> Artefact:
    """Table 2: each method's mean Elo gain per batch size (over the node and time
    settings played) and over all its settings, beside the paper's. With the tournament's
    directory, a pooled estimate over all of a method's game pairs, clustered by opening
    (the same opening replayed at several settings is not independent evidence)."""
    from chessmoe import played
    from chessmoe.estimates import pooled_estimate

    arms = played.load_arms(tournament_dir) if tournament_dir is not None else {}
    frame = matches_frame(summary)
    rows = frame[frame["kind"] == "method"] if "kind" in frame else frame.iloc[0:0]
    batches = sorted(int(b) for b in rows["batch_size"].dropna().unique())
    table: dict[str, dict[str, Any]] = {}
    for method, name in METHOD_NAMES.items():
        mine = rows[rows["method"] == method] if "method" in rows else rows.iloc[0:0]
        if not len(mine):
            continue
        finite = mine[mine["elo"].map(_finite)]
        entry: dict[str, Any] = {
            f"batch {b}": round(float(finite[finite["batch_size"] == b]["elo"].mean()), 2)
            for b in batches}
        entry["Average"] = round(float(finite["elo"].mean()), 2)
        entry["settings"] = len(mine)
        entry["games"] = int(mine["games"].sum())
        wins, draws, losses = (int(mine[k].sum()) for k in ("wins", "draws", "losses"))
        entry["pooled W/D/L"] = f"{wins}/{draws}/{losses}"
        if arms:
            pooled = pooled_estimate(method, [arms[m] for m in mine["name"]
                                                       if m in arms])
            entry["pooled Elo, clustered (95 %)"] = (
                f"{pooled.elo:+.1f} [{pooled.low:+.1f}, {pooled.high:+.1f}] "
                f"({pooled.pairs} pairs, {pooled.openings} openings)")
        table[name] = entry
    ours = pd.DataFrame.from_dict(table, orient="index")
    ours.index.name = "Approach"
    reference = pd.DataFrame({METHOD_NAMES[m]: dict(zip(
        ["batch 1", "batch 8", "batch 16", "batch 32", "batch 64", "Average"], v,
        strict=True)) for m, v in paper.TABLE2_ELO.items()}).T
    reference.index.name = "Approach"
    settings = sorted({("nodes " + str(int(n))) if _finite(n) else f"{int(t)} ms"
                       for n, t in zip(rows["nodes"], rows["movetime"], strict=True)})
    rules = played.rules_named(dict(summary.adjudication))
    notes = [f"Tournament '{summary.tournament}' ({rules} draw rules): settings played "
             + ", ".join(settings) + f"; openings: {summary.openings}.",
             "Each value is the mean of cutechess Elo estimates of the method against the "
             "regular network over those settings (infinite estimates left out), as the "
             "paper averages; with few games per setting the means are noisy. The pooled "
             "estimate uses every game pair (one opening, both colours) of the method, with a "
             "cluster-robust 95 % interval by opening: pairs that replay an opening at "
             "several settings are not independent (the column says how many distinct "
             "openings the pairs drew).",
             "Paper (KingBase experts, 55 settings x 1000 games): see extras/table2-paper."]
    paths = save_table(ours, out_dir, stems.TABLE2_ELO_GAINS,
                       "Table 2 — Mean Elo gain of each MoE method over the regular network",
                       notes, floatfmt=".2f")
    paths += save_table(reference, out_dir, stems.EXTRAS_TABLE2_PAPER,
                        "Table 2 as printed in the paper", ["Not computed here."],
                        floatfmt=".2f")
    return Artefact(stems.TABLE2_ELO_GAINS, paths, table=ours)
