"""Game-phase statistics figures: paper Fig. 2, 8-13 (Tables 3-4 come from the datasets).

Every function reads a :class:`PhaseStats` (the frames of one ``results/stats/<name>/``
directory), draws or tabulates one paper artefact, saves it under the paper's
numbering and returns an :class:`~chessmoe.report.figures.style.Artefact`.

Labelling conventions (see ``docs/phases.md``):

* *position-only* phase (``phase_T``): the Lichess phase of each position alone,
  the label the phase datasets use (Fig. 13 b);
* *division* phase (``division_T``): the forward-only split of each whole game, used
  for the phase start moves (Fig. 2, 11) and for games reaching a phase;
* a phase *start move* is the full-move number of the first board of that phase.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from chessmoe import paper
from chessmoe.games.stats import TABLE_COLUMNS, load
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
    "PhaseStats",
    "fig02_phase_distribution",
    "fig08_mixedness",
    "fig09_pieces",
    "fig10_sparse_backrank",
    "fig11_phase_starts",
    "fig12_results_by_phase",
    "fig13_phase_coverage",
    "figure_splits",
    "label_agreement",
    "label_agreement_table",
    "load_stats",
    "paper_comparison",
    "readable_columns",
    "summary_metrics",
]



@dataclass
class PhaseStats:
    """The frames of one statistics directory, with split-aware views."""

    directory: Path
    positions: pd.DataFrame
    games: pd.DataFrame
    manifest: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.manifest["source"]["name"])

    @property
    def description(self) -> str:
        return str(self.manifest["source"]["description"])

    @cached_property
    def _split_of_position(self) -> np.ndarray:
        split_by_game = self.games.set_index("game")["split"]
        lookup = np.empty(int(self.games["game"].max()) + 1, dtype=object)
        lookup[split_by_game.index.to_numpy()] = split_by_game.to_numpy()
        split: np.ndarray = lookup[self.positions["game"].to_numpy()]
        return split

    def positions_in(self, split: str = "all") -> pd.DataFrame:
        """Positions of games in ``split`` (``"all"`` for every kept game)."""
        if split == "all":
            return self.positions
        self._check_split(split)
        return self.positions[self._split_of_position == split]

    def games_in(self, split: str = "all") -> pd.DataFrame:
        if split == "all":
            return self.games
        self._check_split(split)
        return self.games[self.games["split"] == split]

    def _check_split(self, split: str) -> None:
        known = sorted(set(self.games["split"]))
        if split not in known:
            raise ValueError(f"split {split!r} not in {self.directory} (has {known})")


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


def load_stats(directory: str | os.PathLike[str]) -> PhaseStats:
    """Load a statistics directory written by :mod:`chessmoe.games.stats` (checksums verified)."""
    positions, games, manifest = load(directory)
    return PhaseStats(Path(directory), positions, games, manifest)


def _col(table: str) -> str:
    try:
        return TABLE_COLUMNS[table]
    except KeyError:
        raise ValueError(f"unknown mixedness table {table!r}; known: "
                         f"{', '.join(TABLE_COLUMNS)}") from None


def _source_note(stats: PhaseStats, split: str) -> str:
    where = "all kept games" if split == "all" else f"{split} split"
    return f"{stats.description} — {where}"


def _starts(games: pd.DataFrame, table: str) -> tuple[pd.Series, pd.Series]:
    col = _col(table)
    middle = games.loc[games[f"middle_{col}"] >= 0, f"middle_move_{col}"]
    end = games.loc[games[f"end_{col}"] >= 0, f"end_move_{col}"]
    return middle, end


# --- Fig. 2 ---------------------------------------------------------------------------------


def fig02_phase_distribution(stats: PhaseStats, out_dir: str | os.PathLike[str], *,
                             table: str = "lichess", split: str = "all",
                             max_move: int = 80) -> Artefact:
    """Share of positions in each (position-only) phase per move number, with the mean
    division start moves of the middlegame and endgame marked."""
    col = _col(table)
    positions = stats.positions_in(split)
    counts = pd.crosstab(positions["move_number"], positions[f"phase_{col}"])
    counts = counts.reindex(columns=range(3), fill_value=0)
    counts = counts[counts.index <= max_move]
    shares = counts.div(counts.sum(axis=1), axis=0) * 100
    middle, end = _starts(stats.games_in(split), table)

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
    col = _col(table)
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
    middle, end = _starts(stats.games_in(split), table)
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


def _games_reaching(stats: PhaseStats, split: str, table: str) -> pd.DataFrame:
    """Per game: whether it contributes a position to each (position-only) phase."""
    col = _col(table)
    positions = stats.positions_in(split)
    reach = pd.crosstab(positions["game"], positions[f"phase_{col}"]).reindex(
        columns=range(3), fill_value=0) > 0
    games = stats.games_in(split).set_index("game")
    return reach.reindex(games.index, fill_value=False)


def fig12_results_by_phase(stats: PhaseStats, out_dir: str | os.PathLike[str], *,
                           table: str = "lichess", split: str = "train") -> Artefact:
    """Result shares of the games reaching each phase (every game reaches the opening)."""
    reach = _games_reaching(stats, split, table)
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
    col = _col(table)
    reach = _games_reaching(stats, split, table)
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


# --- teaching helpers -------------------------------------------------------------------


def summary_metrics(stats: PhaseStats, *, table: str = "lichess",
                    split: str = "all") -> dict[str, float]:
    """The paper's KingBase statistics (``paper.KINGBASE_STATS`` keys) for this data."""
    col = _col(table)
    games = stats.games_in(split)
    positions = stats.positions_in(split)
    middle, end = _starts(games, table)
    reach = _games_reaching(stats, split, table)
    phase_share = positions[f"phase_{col}"].value_counts(normalize=True).reindex(
        range(3), fill_value=0) * 100
    results = games.set_index("game")["result"]

    def draws(mask: pd.Series) -> float:
        subset = results[mask]
        return float((subset == "1/2-1/2").mean() * 100) if len(subset) else float("nan")

    return {
        "middlegame_start_mean": float(middle.mean()),
        "middlegame_start_std": float(middle.std()),
        "endgame_start_mean": float(end.mean()),
        "endgame_start_std": float(end.std()),
        "games_reaching_middlegame_pct": float(reach[1].mean() * 100),
        "games_reaching_endgame_pct": float(reach[2].mean() * 100),
        "positions_opening_pct": float(phase_share[0]),
        "positions_middlegame_pct": float(phase_share[1]),
        "positions_endgame_pct": float(phase_share[2]),
        "white_wins_pct": float((results == "1-0").mean() * 100),
        "draws_pct": float((results == "1/2-1/2").mean() * 100),
        "black_wins_pct": float((results == "0-1").mean() * 100),
        "draws_reaching_middlegame_pct": draws(reach[1]),
        "draws_reaching_endgame_pct": draws(reach[2]),
    }


def paper_comparison(stats_list: list[PhaseStats], *, table: str = "lichess",
                     split: str = "all") -> pd.DataFrame:
    """The paper's KingBase numbers beside the same statistics of each source."""
    columns: dict[str, pd.Series] = {"paper (KingBase)": pd.Series(paper.KINGBASE_STATS)}
    for stats in stats_list:
        columns[stats.name] = pd.Series(summary_metrics(stats, table=table, split=split))
    frame = pd.DataFrame(columns)
    frame.index.name = "statistic"
    return frame.round(2)


def label_agreement(stats: PhaseStats, split: str = "all") -> pd.DataFrame:
    """Per mixedness table: share of positions whose position-only phase differs from
    the division phase, and each labelling's phase shares."""
    positions = stats.positions_in(split)
    rows = {}
    for table, col in TABLE_COLUMNS.items():
        phase, division = positions[f"phase_{col}"], positions[f"division_{col}"]
        row = {"differ_pct": float((phase != division).mean() * 100)}
        for p, label in enumerate(PHASE_LABELS):
            row[f"{label}_pct_position_only"] = float((phase == p).mean() * 100)
            row[f"{label}_pct_division"] = float((division == p).mean() * 100)
        rows[table] = row
    frame = pd.DataFrame(rows).T
    frame.index.name = "table"
    return frame.round(2)


def label_agreement_table(stats_list: list[PhaseStats], split: str = "all") -> pd.DataFrame:
    """:func:`label_agreement` of several sources, one row per (source, table)."""
    frames = []
    for stats in stats_list:
        frame = label_agreement(stats, split)
        frame.index = [f"{stats.name} / {table}" for table in frame.index]
        frames.append(frame)
    table = pd.concat(frames)
    table.index.name = "source / table"
    return table


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
