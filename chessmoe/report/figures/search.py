"""Search figures: Fig. 1 (MoE inside MCTS, a diagram drawn by code) and Fig. 3 (mini-batches
and the majority vote, drawn from recorded searches), plus the batch-purity table."""

from __future__ import annotations

import os

import pandas as pd
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

from chessmoe.report import stems
from chessmoe.report.figures.style import (
    PHASE_COLORS,
    PHASE_LABELS,
    Artefact,
    new_figure,
    save_figure,
    save_table,
)
from chessmoe.search.gating import purity_table

__all__ = ["fig01_moe_in_mcts", "fig03_minibatches", "table_batch_purity"]


def _box(ax: object, x: float, y: float, w: float, h: float, text: str, color: str,
         size: int = 9) -> None:
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02", fc=color,  # type: ignore[attr-defined]
                                ec="black", lw=1))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size)  # type: ignore[attr-defined]


def _arrow(ax: object, start: tuple[float, float], end: tuple[float, float]) -> None:
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=12, lw=1.2,  # type: ignore[attr-defined]
                                 color="black"))


def fig01_moe_in_mcts(out_dir: str | os.PathLike[str]) -> Artefact:
    """Fig. 1: selection, expansion, phase gate, expert evaluation, backpropagation."""
    fig = new_figure(10, 4.2)
    ax = fig.subplots()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 4.2)
    ax.axis("off")
    steps = [("1. Selection\nPUCT down the tree", "#e8e8e8"),
             ("2. Expansion\nnew leaf,\nlegal moves", "#e8e8e8"),
             ("3. Gate\nLichess phase of the\nleaf; a mini-batch:\nmajority vote",
              "#fff3c4"),
             ("4. Evaluation\nthe chosen expert's\nvalue and policy", "#d9ead3"),
             ("5. Backpropagation\nvalue up the path", "#e8e8e8")]
    for k, (text, color) in enumerate(steps):
        _box(ax, 0.1 + 2.0 * k, 1.9, 1.7, 1.3, text, color)
        if k:
            _arrow(ax, (2.0 * k - 0.2, 2.55), (2.0 * k + 0.1, 2.55))
    ax.plot([8.95, 8.95, 0.95], [3.25, 3.75, 3.75], color="#666666", lw=1.1)
    _arrow(ax, (0.95, 3.75), (0.95, 3.27))
    ax.text(5.0, 3.85, "next simulation", ha="center", fontsize=8, color="#666666")
    for p, (label, color) in enumerate(zip(PHASE_LABELS, PHASE_COLORS, strict=True)):
        _box(ax, 4.3, 0.1 + 0.5 * (2 - p), 3.4, 0.38, f"{label} expert (RISEv3.3)", color,
             size=8)
    _arrow(ax, (4.95, 1.88), (4.95, 1.52))
    _arrow(ax, (7.05, 1.52), (7.05, 1.88))
    ax.text(4.85, 1.7, "picks", ha="right", va="center", fontsize=8, color="#444444")
    ax.text(7.15, 1.7, "answers", ha="left", va="center", fontsize=8, color="#444444")
    ax.set_title("Fig. 1 — A mixture of phase experts inside MCTS: the gate picks which "
                 "network evaluates new leaves", fontsize=10)
    return Artefact(stems.FIG01_MOE_IN_MCTS, save_figure(fig, out_dir, stems.FIG01_MOE_IN_MCTS),
                    figure=fig)


def fig03_minibatches(batches: pd.DataFrame, out_dir: str | os.PathLike[str], *,
                      batch_size: int = 8, columns: int = 14) -> Artefact:
    """Fig. 3 from data: consecutive mini-batches of a recorded search (each square a new
    leaf coloured by its phase, the chosen expert on top), and purity vs batch size."""
    chosen = batches[(batches["batch_size"] == batch_size) & (batches["size"] == batch_size)]
    mixed = chosen.groupby("position")["purity"].apply(lambda p: (p < 1).sum())
    position = int(mixed.idxmax()) if len(mixed) else int(chosen["position"].iloc[0])
    run = chosen[chosen["position"] == position].head(columns)
    fig = new_figure(11, 4.4)
    left, right = fig.subplots(1, 2, width_ratios=[2.2, 1])
    for col, (_, row) in enumerate(run.iterrows()):
        phases = [p for p, n in enumerate(row["counts"]) for _ in range(n)]
        for k, phase in enumerate(phases):
            left.add_patch(Rectangle((col, k), 0.9, 0.9, fc=PHASE_COLORS[phase], ec="black",
                                     lw=0.5))
        left.add_patch(Rectangle((col - 0.05, -0.05), 1.0, len(phases), fill=False,
                                 ec=PHASE_COLORS[row["phase"]], lw=2.5))
        left.text(col + 0.45, len(phases) + 0.3, PHASE_LABELS[row["phase"]][:3], ha="center",
                  fontsize=8, rotation=90, va="bottom")
    left.set_xlim(-0.3, max(len(run), 1))
    left.set_ylim(-0.3, batch_size + 2.6)
    left.set_xlabel("mini-batch (in search order)")
    left.set_ylabel("new leaves in the mini-batch")
    left.set_title(f"(a) mini-batches of {batch_size} leaves around a phase change "
                   f"({run['where'].iloc[0] if len(run) else ''}); frame and label: the "
                   "expert chosen by majority", fontsize=9)
    for label, color in zip(PHASE_LABELS, PHASE_COLORS, strict=True):
        left.bar(0, 0, color=color, label=label)
    left.legend(fontsize=8, loc="upper right", ncols=3)
    table = purity_table(batches)
    right.plot(table.index, table["mean purity %"], "o-", color="black", label="mean purity")
    right.plot(table.index, 100 - table["leaves off their phase %"], "s--", color="#777777",
               label="leaves evaluated by their own phase's expert")
    right.set_xscale("log", base=2)
    right.set_xticks(list(table.index), [str(i) for i in table.index])
    right.set_xlabel("batch size")
    right.set_ylabel("%")
    right.set_ylim(50, 101)
    right.legend(fontsize=8, loc="lower left")
    right.set_title("(b) purity of mini-batches", fontsize=9)
    fig.suptitle("Fig. 3 — Majority-vote gating of MCTS mini-batches (recorded searches with "
                 "the committed small experts)", fontsize=10)
    return Artefact(stems.FIG03_MINIBATCH_GATING,
                    save_figure(fig, out_dir, stems.FIG03_MINIBATCH_GATING), figure=fig)


def table_batch_purity(batches: pd.DataFrame, out_dir: str | os.PathLike[str]) -> Artefact:
    """How pure mini-batches are, per batch size, and which experts evaluated them."""
    table = purity_table(batches)
    paths = save_table(table, out_dir, stems.EXTRAS_BATCH_PURITY,
                       "Mini-batch purity and expert usage by batch size (recorded searches)",
                       ["Purity: the share of a mini-batch's new leaves in the phase whose "
                        "expert evaluated it (majority vote).",
                        "Positions: chosen 4 plies before, at and 4 plies after the "
                        "middlegame and endgame starts (Lichess division) of the embedded "
                        "sample's games, i.e. deliberately near a phase change, where "
                        "mini-batches mix phases most; searches from positions deep inside a "
                        "phase would show purer batches, so the off-phase shares are an upper "
                        "range, not the average over a game."], floatfmt=".2f")
    return Artefact(stems.EXTRAS_BATCH_PURITY, paths, table=table)
