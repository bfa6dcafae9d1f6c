"""Game-phase statistics figures: paper Fig. 2, 8-13 (Tables 3-4 come from the datasets).

Every function reads a :class:`~chessmoe.games.stats.PhaseStats`, draws or tabulates one paper
artefact, saves it under the paper's numbering and returns an
:class:`~chessmoe.report.figures.style.Artefact`."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from chessmoe import paper
from chessmoe.games.stats import PhaseStats, games_reaching, phase_starts, table_column
from chessmoe.report import stems
from chessmoe.report.figures.style import (
    PHASE_COLORS,
    PHASE_LABELS,
    RESULT_COLORS,
    Artefact,
    new_figure,
    save_figure,
)

__all__ = [
    "FigureSplits",
    "fig02_phase_distribution",
    "fig08_mixedness",
    "fig09_pieces",
    "fig10_sparse_backrank",
    "fig11_phase_starts",
    "fig12_results_by_phase",
    "fig13_phase_coverage",
    "figure_splits",
    "readable_columns",
]



@dataclass(frozen=True)
class FigureSplits:
    """The split each figure of notebook 01 reads: ``positions`` for Fig. 8-11, ``games`` for
    Fig. 12-13, ``distribution`` for Fig. 2."""

    positions: str
    games: str
    distribution: str

    def describe(self) -> str:
        if len({self.positions, self.games, self.distribution}) == 1:
            where = "all kept games" if self.positions == "all" else f"the {self.positions} split"
            return f"every figure reads {where}"
        return (f"the paper's splits: Fig. 2 {self.distribution}, Fig. 8-11 {self.positions}, "
                f"Fig. 12-13 {self.games}")


def figure_splits(split: str = "all", *, paper: bool = False) -> FigureSplits:
    """One split for every figure (the notebook's default, so all figures describe the same
    games), or with ``paper`` the paper's: the test games for the per-move figures and the
    start moves (Fig. 8-11), the training games for results and coverage (Fig. 12-13)."""
    if paper:
        return FigureSplits(positions="test", games="train", distribution="all")
    return FigureSplits(split, split, split)




def _source_note(stats: PhaseStats, split: str) -> str:
    where = "all kept games" if split == "all" else f"{split} split"
    return f"{stats.description} — {where}"


# --- Fig. 2 ---------------------------------------------------------------------------------


def fig02_phase_distribution(stats: PhaseStats, out_dir: str | os.PathLike[str], *,
                             table: str = "lichess", split: str = "all",
                             max_move: int = 80) -> Artefact:
    """Share of positions in each (position-only) phase per move number, with the mean
    division start moves of the middlegame and endgame marked."""
    col = table_column(table)
    positions = stats.positions_in(split)
    counts = pd.crosstab(positions["move_number"], positions[f"phase_{col}"])
    counts = counts.reindex(columns=range(3), fill_value=0)
    counts = counts[counts.index <= max_move]
    shares = counts.div(counts.sum(axis=1), axis=0) * 100
    middle, end = phase_starts(stats.games_in(split), table)

    fig = new_figure(8, 5)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[1, 3])
    top.bar(counts.index, counts.sum(axis=1), width=0.9, color="#999999")
    top.set_ylabel("positions")
    top.set_title("Positions per move number")
    x = shares.index.to_numpy()
    bottom.stackplot(x, *(shares[p].to_numpy() for p in range(3)), labels=PHASE_LABELS,
                     colors=PHASE_COLORS, alpha=0.85)
    for values, name, ref in ((middle, "middlegame", "middlegame_start"),
                              (end, "endgame", "endgame_start")):
        if len(values):
            bottom.axvline(values.mean(), color="black", lw=1.5)
            bottom.text(values.mean(), 102, f"{name} starts\n{values.mean():.2f} "
                        f"(sd {values.std():.2f})", ha="center", va="bottom", fontsize=8)
        bottom.axvline(paper.KINGBASE_STATS[f"{ref}_mean"], color="black", lw=1, ls=":")
    bottom.plot([], [], color="black", lw=1, ls=":", label="paper means (KingBase)")
    bottom.set_xlim(1, max_move)
    bottom.set_ylim(0, 100)
    bottom.set_xlabel("move number")
    bottom.set_ylabel("share of positions (%)")
    bottom.legend(loc="center right", framealpha=0.9)
    fig.suptitle(f"Fig. 2 — Lichess phases by move number ({table} table)\n"
                 f"{_source_note(stats, split)}", fontsize=10)
    return Artefact(stems.FIG02_PHASE_DISTRIBUTION,
                    save_figure(fig, out_dir, stems.FIG02_PHASE_DISTRIBUTION), figure=fig)


# --- Fig. 8, 9, 10: per-move-number features --------------------------------------------


def _by_move(positions: pd.DataFrame, column: str, max_move: int) -> pd.DataFrame:
    sub = positions[positions["move_number"] <= max_move]
    grouped = sub[column].astype(np.float64).groupby(sub["move_number"])
    return pd.DataFrame({"mean": grouped.mean(), "std": grouped.std(),
                         "q25": grouped.quantile(0.25), "median": grouped.median(),
                         "q75": grouped.quantile(0.75), "n": grouped.size()})


def fig08_mixedness(stats: PhaseStats, out_dir: str | os.PathLike[str], *,
                    table: str = "lichess", split: str = "test",
                    max_move: int = 80) -> Artefact:
    """Mixedness by move number: mean, median and inter-quartile band; threshold 150."""
    col = table_column(table)
    frame = _by_move(stats.positions_in(split), f"mixedness_{col}", max_move)
    fig = new_figure(7, 4)
    ax = fig.subplots()
    x = frame.index.to_numpy()
    ax.fill_between(x, frame["q25"], frame["q75"], color=PHASE_COLORS[0], alpha=0.25,
                    label="inter-quartile range")
    ax.plot(x, frame["median"], color=PHASE_COLORS[0], lw=1, ls="--", label="median")
    ax.plot(x, frame["mean"], color=PHASE_COLORS[0], lw=2, label="mean")
    ax.axhline(150, color="black", lw=1, ls=":", label="middlegame threshold (> 150)")
    ax.set_xlabel("move number")
    ax.set_ylabel(f"mixedness ({table} table)")
    ax.set_xlim(1, max_move)
    ax.legend()
    ax.set_title(f"Fig. 8 — Mixedness by move number\n{_source_note(stats, split)}",
                 fontsize=10)
    return Artefact(stems.FIG08_MIXEDNESS, save_figure(fig, out_dir, stems.FIG08_MIXEDNESS),
                    figure=fig)


def fig09_pieces(stats: PhaseStats, out_dir: str | os.PathLike[str], *, split: str = "test",
                 max_move: int = 80) -> Artefact:
    """Average number of major and minor pieces by move number; thresholds 10 and 6."""
    frame = _by_move(stats.positions_in(split), "majors_minors", max_move)
    fig = new_figure(7, 4)
    ax = fig.subplots()
    x = frame.index.to_numpy()
    ax.fill_between(x, frame["mean"] - frame["std"], frame["mean"] + frame["std"],
                    color="#666666", alpha=0.2, label="± 1 std")
    ax.plot(x, frame["mean"], color="black", lw=2, label="mean")
    ax.axhline(10, color=PHASE_COLORS[1], ls=":", lw=1.2, label="middlegame trigger (≤ 10)")
    ax.axhline(6, color=PHASE_COLORS[2], ls=":", lw=1.2, label="endgame (≤ 6)")
    ax.set_xlabel("move number")
    ax.set_ylabel("major + minor pieces")
    ax.set_xlim(1, max_move)
    ax.set_ylim(0, 14.5)
    ax.legend()
    ax.set_title(f"Fig. 9 — Major and minor pieces by move number\n"
                 f"{_source_note(stats, split)}", fontsize=10)
    return Artefact(stems.FIG09_PIECES, save_figure(fig, out_dir, stems.FIG09_PIECES), figure=fig)


def fig10_sparse_backrank(stats: PhaseStats, out_dir: str | os.PathLike[str], *,
                          split: str = "test", max_move: int = 80) -> Artefact:
    """Share of positions with a sparse back rank by move number."""
    frame = _by_move(stats.positions_in(split), "backrank_sparse", max_move)
    fig = new_figure(7, 4)
    ax = fig.subplots()
    ax.plot(frame.index, frame["mean"] * 100, color=PHASE_COLORS[1], lw=2)
    ax.set_xlabel("move number")
    ax.set_ylabel("positions with a sparse back rank (%)")
    ax.set_xlim(1, max_move)
    ax.set_ylim(0, 101)
    ax.set_title(f"Fig. 10 — Sparse back rank by move number\n{_source_note(stats, split)}",
                 fontsize=10)
    return Artefact(stems.FIG10_SPARSE_BACKRANK,
                    save_figure(fig, out_dir, stems.FIG10_SPARSE_BACKRANK), figure=fig)


# --- Fig. 11: phase start moves ------------------------------------------------------------


def fig11_phase_starts(stats: PhaseStats, out_dir: str | os.PathLike[str], *,
                       table: str = "lichess", split: str = "test",
                       max_move: int = 80) -> Artefact:
    """Distribution of the (division) start moves of the middlegame and endgame."""
    middle, end = phase_starts(stats.games_in(split), table)
    fig = new_figure(7, 4)
    ax = fig.subplots()
    bins = [b + 0.5 for b in range(max_move + 1)]
    for values, name, color, ref in ((middle, "middlegame", PHASE_COLORS[1],
                                      "middlegame_start"),
                                     (end, "endgame", PHASE_COLORS[2], "endgame_start")):
        ax.hist(values.clip(upper=max_move), bins=bins, color=color, alpha=0.6,
                label=f"{name} start (n={len(values)})")
        if len(values):
            ax.axvline(values.mean(), color=color, lw=2,
                       label=f"mean {values.mean():.2f} (sd {values.std():.2f})")
        ax.axvline(paper.KINGBASE_STATS[f"{ref}_mean"], color=color, lw=1, ls=":",
                   label=f"paper mean {paper.KINGBASE_STATS[f'{ref}_mean']:.2f}")
    ax.set_xlabel("move number of the first board of the phase")
    ax.set_ylabel("games")
    ax.set_xlim(0, max_move)
    ax.legend(fontsize=8)
    ax.set_title(f"Fig. 11 — Phase start moves (Lichess division, {table} table)\n"
                 f"{_source_note(stats, split)}", fontsize=10)
    return Artefact(stems.FIG11_PHASE_STARTS, save_figure(fig, out_dir, stems.FIG11_PHASE_STARTS),
                    figure=fig)


# --- Fig. 12, 13 and Tables 3, 4: phase coverage -------------------------------------------


def fig12_results_by_phase(stats: PhaseStats, out_dir: str | os.PathLike[str], *,
                           table: str = "lichess", split: str = "train") -> Artefact:
    """Result shares of the games reaching each phase (every game reaches the opening)."""
    reach = games_reaching(stats, split, table)
    results = stats.games_in(split).set_index("game")["result"]
    names = {"1-0": "White wins", "1/2-1/2": "Draw", "0-1": "Black wins"}
    rows = {}
    for phase, label in enumerate(PHASE_LABELS):
        subset = results[reach[phase]]
        shares = subset.map(names).value_counts(normalize=True) * 100
        rows[f"{label}\n(n={len(subset)})"] = shares.reindex(list(RESULT_COLORS),
                                                             fill_value=0.0)
    frame = pd.DataFrame(rows).T
    fig = new_figure(8, 4)
    ax = fig.subplots()
    left = np.zeros(len(frame))
    for outcome, color in RESULT_COLORS.items():
        values = frame[outcome].to_numpy()
        ax.barh(frame.index, values, left=left, color=color, edgecolor="black", lw=0.6,
                label=outcome)
        for y, (x0, v) in enumerate(zip(left, values, strict=True)):
            if v >= 7:
                ax.text(x0 + v / 2, y, f"{v:.1f}%", ha="center", va="center", fontsize=8,
                        color="white" if outcome == "Black wins" else "black")
        left += values
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of games (%)")
    ax.legend(ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    ref = paper.KINGBASE_STATS
    ax.set_title(f"Fig. 12 — Results of games reaching each phase\n"
                 f"{_source_note(stats, split)}\ndraws here "
                 + " / ".join(f"{v:.1f}" for v in frame["Draw"])
                 + f" %; paper (KingBase) {ref['draws_pct']:.2f} / "
                 f"{ref['draws_reaching_middlegame_pct']:.2f} / "
                 f"{ref['draws_reaching_endgame_pct']:.2f} %", fontsize=9)
    return Artefact(stems.FIG12_RESULTS_BY_PHASE,
                    save_figure(fig, out_dir, stems.FIG12_RESULTS_BY_PHASE), figure=fig,
                    table=frame)


def fig13_phase_coverage(stats: PhaseStats, out_dir: str | os.PathLike[str], *,
                         table: str = "lichess", split: str = "train") -> Artefact:
    """(a) Share of games reaching each phase; (b) share of positions per phase, with
    position-only and division labels, beside the paper's KingBase shares."""
    col = table_column(table)
    reach = games_reaching(stats, split, table)
    positions = stats.positions_in(split)
    ref = paper.KINGBASE_STATS
    games_pct = reach.mean().to_numpy() * 100
    pos_only = positions[f"phase_{col}"].value_counts(normalize=True).reindex(
        range(3), fill_value=0).to_numpy() * 100
    division = positions[f"division_{col}"].value_counts(normalize=True).reindex(
        range(3), fill_value=0).to_numpy() * 100
    paper_games = [100.0, ref["games_reaching_middlegame_pct"],
                   ref["games_reaching_endgame_pct"]]
    paper_pos = [ref["positions_opening_pct"], ref["positions_middlegame_pct"],
                 ref["positions_endgame_pct"]]
    fig = new_figure(9, 3.8)
    left, right = fig.subplots(1, 2)
    x = np.arange(3)
    width = 0.38
    left.bar(x - width / 2, games_pct, width, color=PHASE_COLORS, edgecolor="black",
             label="this data")
    left.bar(x + width / 2, paper_games, width, color="white", edgecolor="black",
             hatch="//", label="paper (KingBase)")
    left.set_title("(a) games reaching the phase", fontsize=10)
    left.set_ylabel("% of games")
    width = 0.27
    right.bar(x - width, pos_only, width, color=PHASE_COLORS, edgecolor="black",
              label="position-only (datasets)")
    right.bar(x, division, width, color=PHASE_COLORS, edgecolor="black", alpha=0.5,
              label="game division")
    right.bar(x + width, paper_pos, width, color="white", edgecolor="black", hatch="//",
              label="paper (KingBase)")
    right.set_title("(b) positions per phase", fontsize=10)
    right.set_ylabel("% of positions")
    for ax, values in ((left, games_pct), (right, pos_only)):
        ax.set_xticks(x, PHASE_LABELS)
        ax.legend(fontsize=8, loc="upper right", ncols=1)
        ax.set_ylim(0, 125)
        for xi, v in zip(x, values, strict=True):
            ax.text(xi - (0.19 if ax is left else 0.27), v + 1, f"{v:.1f}", ha="center",
                    fontsize=7)
    fig.suptitle(f"Fig. 13 — Games and positions across phases ({table} table)\n"
                 f"{_source_note(stats, split)}", fontsize=10)
    frame = pd.DataFrame({"games_pct": games_pct, "positions_pct_position_only": pos_only,
                          "positions_pct_division": division, "paper_games_pct": paper_games,
                          "paper_positions_pct": paper_pos}, index=list(PHASE_LABELS))
    return Artefact(stems.FIG13_PHASE_COVERAGE,
                    save_figure(fig, out_dir, stems.FIG13_PHASE_COVERAGE), figure=fig,
                    table=frame)


def readable_columns(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with human column names for display (``differ_pct`` -> ``Phases differ (%)``,
    ``opening_pct_position_only`` -> ``Opening, position only (%)``); the saved artefact keeps
    its machine-readable names."""
    def name(column: str) -> str:
        if column == "differ_pct":
            return "Phases differ (%)"
        phase, _, labelling = column.partition("_pct_")
        if labelling:
            return f"{phase.capitalize()}, {labelling.replace('_', ' ')} (%)"
        return column.replace("_", " ")
    out = table.rename(columns=name)
    if out.index.name:
        out.index.name = out.index.name.capitalize()
    return out
