"""What the evidence decides: the claims table and the powered tournament's forest plot.

Both read a tournament directory's game records (``<match>/games-*.jsonl``) and the experts'
``evaluation.json`` files (:mod:`chessmoe.report.verdicts` over the registered designs,
:mod:`chessmoe.estimates`); every verdict is computed
from them, none is typed by hand. Estimates use game pairs (one opening, both colours) as the
unit, so the two games of an opening are never counted as independent.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from chessmoe import paper, played, replay
from chessmoe.designs import registry, replicated, seeds_long, settings
from chessmoe.designs.powered import PAPER_TABLE2
from chessmoe.designs.seeds import seed_arms
from chessmoe.estimates import (
    Z95,
    ArmEstimate,
    PairedDifference,
    arm_estimate,
    elo_interval,
    paired_difference,
    pooled_estimate,
    seed_level_estimate,
)
from chessmoe.nets.bundles import BundleLoss, bundle_losses, bundle_steps
from chessmoe.nets.names import BALANCED_SUFFIX, REGULAR_LONG
from chessmoe.paper import BATCH_SIZES
from chessmoe.report import stems, verdicts
from chessmoe.report.figures.strength import draw_intervals
from chessmoe.report.figures.style import Artefact, new_figure, save_figure, save_table

__all__ = ["COMPUTE_ARMS", "DRAW_RULES_COUNTS", "PAIR_INTERVAL", "ComputePoint",
           "compute_points", "compute_ticks", "estimates_frame", "fig_compute_gap",
           "fig_powered_arms", "fig_seed_grid", "fig_settings", "settings_frame",
           "table_claims", "table_contrasts", "table_draw_rules"]

PAIR_INTERVAL = "per game pair (pentanomial), 95 %"

#: The count columns of the draw-rules table (:func:`table_draw_rules`), in order.
DRAW_RULES_COUNTS: tuple[str, ...] = (
    "games", "same moves", "played on", "ended sooner", "diverged", "rescored",
    "results changed", "toward the arm", "toward its opponent")

#: The bundles of the equal-compute comparison, as the tournaments name their arms.
COMPUTE_ARMS: tuple[str, ...] = ("regular-long", "separated", "separated-long", "staged",
                                 "weighted-a4", "weighted-a10",
                                 f"weighted-a10{BALANCED_SUFFIX}")



@dataclass(frozen=True)
class ComputePoint:
    """One bundle at one scale: its training steps (its own experts' optimiser steps, all
    phases together) in units of the regular network's, and its Elo against the regular
    network at the tournament's setting."""

    scale: str
    bundle: str
    compute: float
    estimate: ArmEstimate


def estimates_frame(estimates: Sequence[ArmEstimate],
                    **columns: Sequence[object]) -> pd.DataFrame:
    """The numbers a figure of arm estimates draws (``<stem>.csv`` beside it): per arm its
    pairs, openings, score, Elo with its interval and p, after any extra ``columns``."""
    frame = pd.DataFrame({**{k: list(v) for k, v in columns.items()},
                          "arm": [e.name for e in estimates],
                          "games": [2 * e.pairs for e in estimates],
                          "pairs": [e.pairs for e in estimates],
                          "openings": [e.openings for e in estimates],
                          "score": [e.score for e in estimates],
                          "elo": [e.elo for e in estimates],
                          "low": [e.low for e in estimates],
                          "high": [e.high for e in estimates],
                          "p": [e.p for e in estimates]})
    return frame.assign(interval=PAIR_INTERVAL)


def compute_points(scale: str, tournament_dir: str | os.PathLike[str],
                   experts_dir: str | os.PathLike[str], setting: str = "b8-n100"
                   ) -> list[ComputePoint]:
    """The regular network (1x, 0 Elo by definition) and every :data:`COMPUTE_ARMS` bundle
    that is trained and has played its arm ``<bundle>-<setting>`` in the tournament."""
    experts = Path(experts_dir)
    regular = bundle_steps(experts / "regular")
    tournament = Path(tournament_dir)
    if regular is None or not tournament.exists():
        return []
    arms = played.load_arms(tournament)
    points = [ComputePoint(scale, "regular", 1.0, ArmEstimate(
        "regular", 0, 0, 0.5, 0.0, 0.0, 0.0))]
    for bundle in COMPUTE_ARMS:
        steps, records = bundle_steps(experts / bundle), arms.get(f"{bundle}-{setting}")
        if steps is None or not records:
            continue
        estimate = arm_estimate(bundle, records)
        if estimate.pairs >= 2:
            points.append(ComputePoint(scale, bundle, steps / regular, estimate))
    return points


# The medium profile's bundles (more and other data, the same network), in the order the
# equal-compute question reads them.
SCALE_BUNDLES = ("regular", "staged", "weighted-a10", REGULAR_LONG,
                 f"weighted-a10{BALANCED_SUFFIX}", "separated")
_LOSS_SETS = (("No-Phases", "no-phases"), ("Opening", "opening"),
              ("Middlegame", "middlegame"), ("Endgame", "endgame"))


def table_losses_at_scale(experts_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str],
                          scale: str = "medium",
                          bundles: Sequence[str] = SCALE_BUNDLES) -> Artefact:
    """Table 1 at the medium profile: each bundle's test losses with 95 % intervals from their
    standard errors, and the no-phases difference from the regular network. A bundle not
    yet evaluated is listed as such, so the table shows how far the scale has got."""
    root = Path(experts_dir)
    losses = {b: bundle_losses(root / b) for b in bundles}
    regular = losses.get("regular")

    def cell(entry: BundleLoss | None) -> str:
        if entry is None:
            return ""
        if entry.se is None:
            return f"{entry.loss:.4f} (no SE recorded)"
        return f"{entry.loss:.4f} +- {Z95 * entry.se:.4f}"

    records: list[list[object]] = []
    for bundle, table in losses.items():
        if table is None:
            records.append([bundle, "not evaluated", "", *("" for _ in _LOSS_SETS), ""])
            continue
        mine = table["no-phases"]
        gap = ""
        if regular is not None and bundle != "regular":
            base = regular["no-phases"]
            gap = f"{mine.loss - base.loss:+.4f}"
            if mine.se is not None and base.se is not None:
                gap += f" +- {Z95 * math.hypot(mine.se, base.se):.4f}"
        records.append([bundle, "mixture" if mine.mixture else "single network",
                        f"{mine.n:,}", *(cell(table.get(key)) for _, key in _LOSS_SETS), gap])
    frame = pd.DataFrame(records, columns=["bundle", "evaluated as", "test positions",
                                           *(name for name, _ in _LOSS_SETS),
                                           "minus regular (No-Phases)"]).set_index("bundle")
    evaluated = [b for b, t in losses.items() if t is not None]
    notes = [f"From experts/{root.name}/<bundle>/evaluation.json; {len(evaluated)} of "
             f"{len(bundles)} bundles evaluated.",
             "Loss: 0.01 x value MSE + 0.99 x policy cross-entropy (the validation loss); a "
             "mixture evaluates every test position with the expert of its own phase.",
             "+- is 1.96 standard errors of the mean over the test positions (95 %): the "
             "sampling error of these positions as a sample of the test split, treating "
             "positions as independent (positions of one game are not), and saying nothing "
             "of how another training seed would land (the claims table's Table 1 row shows "
             "the small scale's spread over seeds).",
             "The difference's interval treats the two means as independent; every bundle is "
             "read on the same positions, whose losses are expected to be positively "
             "correlated, which would make the paired interval narrower. Either way a loss "
             "difference is descriptive: the tournament decides strength."]
    paths = save_table(frame, out_dir, stems.EXTRAS_TABLE1_SCALE,
                       f"Table 1 at the {scale} scale", notes)
    return Artefact(stems.EXTRAS_TABLE1_SCALE, paths, table=frame)


def compute_ticks(computes: Sequence[float]) -> list[float]:
    """The compute axis's ticks: each distinct compute rounded to two decimals, so bundles
    whose step counts differ by a rounding of the epoch (staged's 3 x 8,201 steps against
    regular-long's 3 x 8,199: 3.0007x and 3x) share one tick instead of overprinting."""
    return sorted({round(c, 2) for c in computes})


def _regular_epochs(experts: Path) -> float | None:
    """The epochs the profile's regular network trained (its ``config.json``); ``None``
    where that is not recorded (a run of fixed iterations, or none)."""
    try:
        config = json.loads((experts / "regular" / "baseline" / "config.json").read_text())
        epochs = config["train"]["epochs"]
        return None if config["train"].get("iterations") is not None else float(epochs)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def fig_compute_gap(scales: Sequence[tuple[str, str | os.PathLike[str],
                                           str | os.PathLike[str]]],
                    out_dir: str | os.PathLike[str]) -> Artefact:
    """Elo against the regular network by training compute, one panel per scale
    (``(label, tournament_dir, experts_dir)``): the single network trained longer
    (regular-long) beside the mixtures at the same total steps, so whether the equal-compute
    finding holds at the medium profile is read off the panels. A scale not yet played says so."""
    fig = new_figure(4.2 * max(len(scales), 1), 3.8)
    axes = fig.subplots(1, max(len(scales), 1), squeeze=False)[0]
    colours = {"regular": "#000000", "regular-long": "#000000", "separated": "#d62728",
               "separated-long": "#ff9896", "staged": "#1f77b4", "weighted-a4": "#2ca02c",
               "weighted-a10": "#98df8a", f"weighted-a10{BALANCED_SUFFIX}": "#17becf"}
    drawn: list[ComputePoint] = []
    for ax, (label, tournament, experts) in zip(axes, scales, strict=False):
        points = compute_points(label, tournament, experts)
        drawn += points if len(points) >= 2 else []
        epochs = _regular_epochs(Path(experts))
        ax.set_title(f"{label}: '{Path(tournament).name}' tournament"
                     + (f"\nthe regular network: {epochs:g} epochs of its data"
                        if epochs is not None else ""), fontsize=9)
        if len(points) < 2:
            ax.text(0.5, 0.5, "not played yet", ha="center", va="center",
                    transform=ax.transAxes, color="#666666")
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        single = sorted((p for p in points if p.bundle.startswith("regular")),
                        key=lambda p: p.compute)
        ax.plot([p.compute for p in single], [p.estimate.elo for p in single], color="black",
                lw=1, ls="--", label="one network, trained longer")
        for i, p in enumerate(points):
            e = p.estimate
            x = p.compute * (1 + 0.04 * (i % 3 - 1)) if p.bundle != "regular" else p.compute
            if p.bundle != "regular" and math.isfinite(e.low) and math.isfinite(e.high):
                ax.plot([x, x], [e.low, e.high], color=colours.get(p.bundle, "#444444"),
                        lw=1.4)
            ax.plot([x], [e.elo], marker="s" if p.bundle.startswith("regular") else "o",
                    color=colours.get(p.bundle, "#444444"), ms=5, ls="none",
                    label=p.bundle)
        ax.axhline(0, color="#999999", lw=0.8)
        ax.set_xscale("log", base=2)
        ticks = compute_ticks([p.compute for p in points])
        ax.set_xticks(ticks, [f"{t:g}x" for t in ticks])
        ax.set_xlabel("training steps (x the regular network's)")
        ax.set_ylabel("Elo against the regular network (95 % interval)")
        ax.legend(fontsize=6.5, loc="best")
    fig.suptitle("Equal training compute: the mixtures beside one network trained as long",
                 fontsize=10)
    stem = stems.COMPUTE_GAP
    data = estimates_frame([p.estimate for p in drawn], scale=[p.scale for p in drawn],
                           bundle=[p.bundle for p in drawn],
                           compute=[p.compute for p in drawn])
    return Artefact(stem, save_figure(fig, out_dir, stem, data), figure=fig)


def _played(tournament_dir: Path) -> str:
    games = (sum(len(r) for r in played.load_arms(tournament_dir).values())
             if tournament_dir.exists() else 0)
    planned = played.planned_games(tournament_dir)
    rules = played.draw_rules(tournament_dir)
    state = (f"{games} games" if planned is None else f"{games} games, complete"
             if games >= planned else f"{games} of {planned} planned games: in progress")
    return f"{state}{f', {rules} draw rules' if rules else ''}"


def _p(x: float) -> str:
    return "" if math.isnan(x) else "<0.0001" if x < 1e-4 else f"{x:.4f}"


def table_claims(tournament_dir: str | os.PathLike[str], experts_dir: str | os.PathLike[str],
                 out_dir: str | os.PathLike[str],
                 **tournaments: str | os.PathLike[str] | None) -> Artefact:
    """Every claim the committed tournaments and training controls speak to, with our
    estimate, its interval, its p-values (raw and Holm-adjusted over the table) and the
    verdict (:func:`verdicts.claims`: ``tournaments`` are the other registered designs'
    directories by keyword); a registered design's rows from before its first game."""
    found = verdicts.evidence(tournament_dir, experts_dir, tournaments)
    rows = verdicts.claims_of(found)
    columns = ["Topic", "Kind", "The paper says", "We measure (95 % interval unless stated)",
               "p", "p (Holm)", "Verdict", "Note"]
    frame = pd.DataFrame([{"Topic": c.topic, "Kind": c.kind, "The paper says": c.paper,
                           "We measure (95 % interval unless stated)": c.ours,
                           "p": _p(c.p), "p (Holm)": _p(c.p_holm), "Verdict": c.verdict,
                           "Note": c.note} for c in rows], columns=columns)
    tested = sum(1 for c in rows if not math.isnan(c.p_holm))
    designs = registry.REGISTERED
    sources = "; ".join(f"{where.name} tournament ({_played(where)})"
                        + (f" for the {what}" if what else "")
                        for design in designs for where, what in design.read_sources(found))
    notes = [f"Source: {sources}; {Path(experts_dir).name} experts' evaluations.",
             f"Verdicts from games: the two-sided p-value of no effect (a z-test on game-pair "
             f"scores, the interval's standard error) adjusted by Holm's procedure over the "
             f"{tested} game-decided rows, so the chance of any false verdict among those "
             f"{tested} is at most 5 % (the family includes post-hoc rows added after the "
             "powered results were seen; rows outside it are not covered): supports / "
             "contradicts where the adjusted p is below 0.05 on the side the 'paper says' "
             "column states / the other side (for post-hoc and exploratory rows that column "
             "states the hypothesis tested); undecided at this scale otherwise. Where the "
             "paper gives a size, a verdict on its side reads 'supports' only when that size "
             "lies inside our interval, else 'sign agrees, size differs'. Intervals are "
             "unadjusted 95 %. A row whose match is still being played says 'in progress', "
             "carries no p and is not in the family until its own match has played its "
             "planned games (deciding as the sample grows would inflate the error).",
             "Every interval takes a game pair (one opening, both colours) as its unit "
             "(pentanomial); a per-game (trinomial, cutechess) interval of the same games "
             "would differ.",
             "Points: score percentage points, 100 x the difference of two mean pair scores, "
             "each against the arm's own opponent; near 50 % one point is about 7 Elo. Arms "
             "compared with each other were played on the same openings; their difference "
             "is taken opening by opening (a paired design).",
             "Kind: post-hoc controls were designed after the powered results were seen; "
             "exploratory rows test questions the paper does not ask.",
             *(d.notes.registration for d in designs if d.notes.registration),
             *(d.notes.regime(Path(experts_dir)) for d in designs if d.notes.regime),
             *(d.notes.source for d in designs if d.notes.source),
             "Table 1 rows compare ranges over training seeds (min to max), not confidence "
             "intervals: their words (below / overlaps / above the seed range) describe, they "
             "do not test, and they are not in the Holm family."]
    if not rows:
        notes.insert(0, "No claim can be assessed yet: the tournament has no complete pair.")
    paths = save_table(frame.set_index("Topic"), out_dir, stems.CLAIMS,
                       "What the committed evidence decides (computed, not typed)", notes)
    return Artefact(stems.CLAIMS, paths, table=frame)


def fig_seed_grid(replicated_dir: str | os.PathLike[str] | None,
                  out_dir: str | os.PathLike[str],
                  seeds_long_dir: str | os.PathLike[str] | None = None) -> Artefact:
    """Staged and weighted a=10 under each training seed against the regular network under
    each of its seeds (the replicated tournament's seed grid): Elo with its pair interval per
    pairing, the pooled estimate over every pairing (clustered by opening: these seeds) and,
    for a complete grid, the estimate with the seeds of both sides random
    (:func:`~chessmoe.estimates.seed_level_estimate`). With ``seeds_long_dir``, the same for
    staged's seeds against regular-long's (:func:`~chessmoe.designs.seeds_long.seeds_long_arms`),
    as far as played."""
    arms = (played.load_arms(replicated_dir) if replicated_dir is not None
            and Path(replicated_dir).exists() else {})
    grids = {f"{m} vs regular": seed_arms(arms, m) for m in ("staged", "weighted-a10")}
    if seeds_long_dir is not None:
        long_arms = (played.load_arms(seeds_long_dir) if Path(seeds_long_dir).is_dir()
                     else {})
        grids["staged vs regular-long"] = seeds_long.seeds_long_arms(long_arms, arms)
    rows: list[tuple[str, ArmEstimate, bool]] = []
    for label, grid in grids.items():
        method = label.split()[0]
        rows += [(f"{a} vs {b}", arm_estimate(a, r), False)
                 for (a, b), r in sorted(grid.items())]
        if len(grid) >= 2:
            rows.append((f"{label}: pooled over {len(grid)}",
                         pooled_estimate(method, list(grid.values())), True))
        level = seed_level_estimate(method, grid)
        if level is not None:
            rows.append((f"{label}: seeds random ({level.df:.1f} df)", level.estimate, True))
    fig = new_figure(7.5, 0.9 + 0.3 * max(len(rows), 3))
    ax = fig.subplots()
    if not rows:
        ax.text(0.5, 0.5, "no seed pairings played yet", ha="center", va="center",
                transform=ax.transAxes, color="#666666")
        ax.set_xticks([])
        ax.set_yticks([])
    for y, (_, e, pooled) in enumerate(rows):
        colour = "#c05000" if pooled else "#1f4e79"
        if math.isfinite(e.low) and math.isfinite(e.high):
            ax.plot([e.low, e.high], [y, y], color=colour, lw=2.2 if pooled else 1.4)
        if math.isfinite(e.elo):
            ax.plot([e.elo], [y], marker="D" if pooled else "o", color=colour, ms=4)
        ax.annotate(f"{2 * e.pairs} games", (1.0, y), xycoords=("axes fraction", "data"),
                    xytext=(4, -3), textcoords="offset points", fontsize=6.5, color="#444444")
    if rows:
        ax.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=7)
        ax.axvline(0, color="black", lw=0.8)
        ax.invert_yaxis()
        ax.set_xlabel("Elo of the first named against the second (pairs of games, 95 % "
                      "interval)")
    title = ("Training seeds of both sides (no replicated tournament)" if replicated_dir is None
             else f"Training seeds of both sides ('{Path(replicated_dir).name}':\n"
                  f"{_played(Path(replicated_dir))})")
    if seeds_long_dir is not None:
        title += (f"\nstaged vs regular-long's seeds: '{Path(seeds_long_dir).name}'\n"
                  f"({_played(Path(seeds_long_dir))})\nand the replicated "
                  "staged-vs-regular-long arm")
    ax.set_title(title, fontsize=9)
    data = estimates_frame([r[1] for r in rows], row=[r[0] for r in rows],
                           pooled=[r[2] for r in rows])
    return Artefact(stems.SEED_GRID, save_figure(fig, out_dir, stems.SEED_GRID, data),
                    figure=fig)


#: The colour of each opponent in the settings figure.
_OPPONENT_COLOURS = {"regular": "#1f77b4", REGULAR_LONG: "#000000"}


def settings_frame(settings_dir: str | os.PathLike[str]) -> pd.DataFrame:
    """Every match the settings design registers (:data:`~chessmoe.designs.settings.SETTINGS`
    x opponents), played or not: its Elo with the pair interval, the games played and
    planned, and its state (``complete``, ``in progress`` or ``not played``)."""
    directory = Path(settings_dir)
    arms = settings.settings_arms(directory)
    planned = played.planned_pairs(directory, settings.PAIRS)
    estimates: list[ArmEstimate] = []
    columns: dict[str, list[object]] = {k: [] for k in ("opponent", "batch_size", "nodes",
                                                        "games_played", "planned_games",
                                                        "state")}
    for batch, nodes in settings.SETTINGS:
        for opponent in settings.OPPONENTS:
            name = settings.match_name(opponent, batch, nodes)
            records = arms.get((opponent, batch, nodes), [])
            wanted = 2 * planned.get(name, settings.PAIRS)
            estimates.append(arm_estimate(name, records))
            for key, value in (("opponent", opponent), ("batch_size", batch),
                               ("nodes", nodes), ("games_played", len(records)),
                               ("planned_games", wanted),
                               ("state", "not played" if not records else "complete"
                                if len(records) >= wanted else "in progress")):
                columns[key].append(value)
    return estimates_frame(estimates, **columns)


def _settings_tick(rows: pd.DataFrame, x: str, value: float) -> str:
    """A setting's tick label: its value, and whether its matches are not all complete."""
    states = set(rows[rows[x] == value]["state"])
    return f"{int(value)}" + ("\nnot played" if states == {"not played"}
                              else "" if states == {"complete"} else "\nin progress")


def fig_settings(settings_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str]
                 ) -> Artefact:
    """Staged against the regular network and against regular-long by nodes per move (batch
    8) and by batch size (400 nodes), each point its match's Elo with its pair interval, a
    match not complete drawn hollow with its games so far and one not played named on the
    axis; beside them what the paper prints: Table 2's staged means at batch 1, 8 and 32
    (each over that batch's 11 node and time limits) and Fig. 5's 'up to 150' (separated
    learning). The paper's per-node values are drawn only as plots, so none is drawn here."""
    frame = settings_frame(settings_dir)
    name = Path(settings_dir).name
    fig = new_figure(10.5, 4.8)
    left, right = fig.subplots(1, 2, sharey=True)
    staged = paper.TABLE2_ELO["staged"]
    panels = ((left, "nodes", frame[frame["batch_size"] == 8], "nodes per move (batch 8)"),
              (right, "batch_size", frame[frame["nodes"] == 400],
               "batch size (400 nodes)"))
    for ax, x, rows, label in panels:
        missing = []
        for k, opponent in enumerate(settings.OPPONENTS):
            mine = rows[rows["opponent"] == opponent].sort_values(x)
            colour = _OPPONENT_COLOURS[opponent]
            shift = 2 ** (0.06 * (k - 0.5))
            played = mine[mine["state"] != "not played"]
            xs = [float(v) * shift for v in played[x]]
            if len(played):
                draw_intervals(ax, xs, played, colour, f"staged vs {opponent}")
            for xv, (_, row) in zip(xs, played.iterrows(), strict=True):
                if row["state"] == "in progress" and math.isfinite(row["elo"]):
                    ax.plot([xv], [row["elo"]], marker="o", ms=7, mfc="white", mec=colour,
                            ls="none")
                    ax.annotate(f"{row['games_played']} of {row['planned_games']}",
                                (xv, row["elo"]), textcoords="offset points",
                                xytext=(4, 4), fontsize=6, color=colour)
            absent = [f"{int(v)}" for v in mine[mine["state"] == "not played"][x]]
            if absent:
                missing.append(f"vs {opponent}: {', '.join(absent)}")
        if x == "batch_size":
            batches = sorted(frame["batch_size"].unique())
            ax.plot(batches, [staged[BATCH_SIZES.index(b)] for b in batches], marker="x",
                    color="#c00000", ms=7, ls=":", lw=1,
                    label="paper, Table 2: staged, mean of 11 limits")
        else:
            ax.axhline(staged[BATCH_SIZES.index(8)], color="#c00000", lw=1, ls=":",
                       label="paper, Table 2: staged at batch 8, mean of 11 limits")
            ax.axhline(150, color="#999999", lw=1, ls="--",
                       label="paper, Fig. 5: 'up to 150' (separated)")
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xscale("log", base=2)
        ticks = sorted(float(v) for v in rows[x].unique())
        ax.set_xticks(ticks, [_settings_tick(rows, x, t) for t in ticks])
        ax.set_xlim(ticks[0] / 1.6, ticks[-1] * 1.6)
        ax.set_xlabel(label)
        if missing:
            ax.set_title("not played yet: " + "; ".join(missing), fontsize=7,
                         color="#666666")
    handles: dict[str, Any] = {}
    for ax in (left, right):
        for handle, text in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(text, handle)
    fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncol=3,
               fontsize=7)
    left.set_ylabel("Elo of staged (pairs of games, 95 % interval)")
    fig.suptitle(f"Staged beyond one setting: against the regular network and regular-long "
                 f"('{name}': {_played(Path(settings_dir))})", fontsize=10)
    return Artefact(stems.SETTINGS, save_figure(fig, out_dir, stems.SETTINGS, frame),
                    figure=fig)


def fig_powered_arms(tournament_dir: str | os.PathLike[str],
                     out_dir: str | os.PathLike[str]) -> Artefact:
    """Every arm of the tournament's powered design against the regular network
    (:func:`~chessmoe.designs.replicated.baseline_arms`: a replicated tournament's seed grid
    and head-to-head matches are left out): Elo with its pentanomial 95 % interval [low,
    high], game pairs per arm, and the paper's Table 2 value where it has one."""
    arms = replicated.baseline_arms(tournament_dir)
    estimates = [arm_estimate(name, records) for name, records in sorted(arms.items())]
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
        paper = PAPER_TABLE2.get(method)
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
    data = estimates_frame(estimates, tournament=[name] * len(estimates))
    return Artefact(stems.POWERED_ARMS, save_figure(fig, out_dir, stems.POWERED_ARMS, data),
                    figure=fig)


def table_contrasts(tournament_dir: str | os.PathLike[str],
                    out_dir: str | os.PathLike[str]) -> Artefact:
    """Every pair of the tournament's powered-design arms (:func:`replicated.baseline_arms`)
    compared opening by opening (each arm against the same opponent, the regular network):
    arm a minus arm b in score points a pair with its 95 % interval and unadjusted p. A
    lookup table for comparisons the claims table does not make: none of its rows is a
    planned test."""
    from itertools import combinations

    arms = replicated.baseline_arms(tournament_dir)
    rows = []
    for a, b in combinations(sorted(arms), 2):
        d = paired_difference(arms[a], arms[b])
        if d.openings >= 2:
            rows.append({"arm a": a, "arm b": b, "a minus b (points a pair)": d.diff,
                         "low": d.low, "high": d.high, "shared openings": d.openings,
                         "p (unadjusted)": _p(d.p)})
    columns = ["arm a", "arm b", "a minus b (points a pair)", "low", "high",
               "shared openings", "p (unadjusted)"]
    frame = pd.DataFrame(rows, columns=columns).set_index("arm a")
    name = Path(tournament_dir).name
    notes = [f"Tournament '{name}' ({_played(Path(tournament_dir))}); every arm played the "
             "regular network, arms of one opening group on the same openings.",
             "Points: 100 x (arm a's mean pair score - arm b's) over the openings both "
             "played; 95 % interval from the spread of the per-opening differences "
             "(normal approximation); near 50 % one point is about 7 Elo.",
             f"{len(frame)} comparisons, none adjusted for multiplicity and none planned: "
             "at 95 % about one in twenty excludes zero by chance. The planned tests are "
             "the claims table's."]
    paths = save_table(frame, out_dir, stems.EXTRAS_CONTRASTS,
                       f"Every pair of arms of the '{name}' tournament, opening by opening "
                       "(post hoc, unadjusted)", notes, floatfmt=".2f")
    return Artefact(stems.EXTRAS_CONTRASTS, paths, table=frame)


def table_draw_rules(before_dir: str | os.PathLike[str], after_dir: str | os.PathLike[str],
                     out_dir: str | os.PathLike[str]) -> Artefact:
    """What changing the draw rules did: every arm both tournaments played (the committed
    one and its replay under other rules, same openings), compared game by game
    (:mod:`chessmoe.replay`), with the arm's Elo under each rule set on the pairs both
    played and the shift between them. The last row adds up the games of every arm."""
    rows = replay.replay_tournament(before_dir, after_dir)
    before_rules = played.draw_rules(before_dir) or "unknown"
    after_rules = played.draw_rules(after_dir) or "unknown"

    def points(d: PairedDifference) -> str:
        return "" if math.isnan(d.diff) else f"{d.diff:+.1f} [{d.low:+.1f}, {d.high:+.1f}]"

    def counts(r: replay.RuleReplay) -> list[int]:
        return [r.games, r.same_moves, r.played_on, r.ended_sooner, r.diverged, r.rescored,
                r.changed, r.to_first, r.to_second]

    columns = ["arm", *DRAW_RULES_COUNTS, "Elo, original rules", "Elo, replay rules",
               "shift (points a pair)"]
    records: list[list[object]] = [
        [r.arm, *counts(r), elo_interval(r.before), elo_interval(r.after),
         points(r.shift)] for r in rows]
    if rows:
        records.append(["all arms", *(sum(col) for col in zip(*(counts(r) for r in rows),
                                                               strict=True)), "", "", ""])
    frame = pd.DataFrame(records, columns=columns).set_index("arm")
    games = sum(r.games for r in rows)
    changed = sum(r.changed for r in rows)
    moved = sum(r.played_on + r.ended_sooner for r in rows)
    before_name, after_name = Path(before_dir).name, Path(after_dir).name
    notes = [f"Original: '{before_name}' ({_played(Path(before_dir))}); replay: "
             f"'{after_name}' ({_played(Path(after_dir))}). Every game of a pair both "
             "played completely, matched by pair and colours (same opening and position).",
             "With node-limited searches and no noise a replayed game is expected to repeat "
             "the original move for move until one rule set ends it. 'same moves': both "
             f"ended at the same ply; 'played on': the {before_rules} rules ended the "
             "original earlier; 'ended sooner': the reverse; 'diverged': the moves differ "
             "before either ended, which the rules do not do. 'rescored': the moves both "
             "games share carry a different search score somewhere (the two runs' arithmetic "
             "differed; the original records predate per-game provenance, so whether machines "
             "or library versions differed is not recorded).",
             (f"{games:,} games: {games - sum(r.diverged for r in rows):,} repeat the original "
              f"until a rule set ended one of them ({moved:,} of these ended at another ply), "
              f"{sum(r.rescored for r in rows):,} with a different score somewhere; "
              f"{changed:,} ({100.0 * changed / games:.1f} %) changed result "
              f"({sum(r.to_first for r in rows):,} toward the arm, "
              f"{sum(r.to_second for r in rows):,} toward its opponent), "
              f"{sum(r.changed_diverged for r in rows):,} of them in diverged games."
              if games else "No game pair was played completely by both yet."),
             "Elo: the arm against its opponent on the pairs both played, per game pair "
             "(pentanomial), 95 %. Shift: replay minus original, 100 x the mean difference of "
             "pair scores, paired by opening, 95 % (normal approximation); unadjusted, not in "
             "the claims table's Holm family."]
    paths = save_table(frame, out_dir, stems.EXTRAS_DRAW_RULES,
                       f"What the draw rules changed: '{before_name}' ({before_rules} draw "
                       f"rules) replayed as '{after_name}' ({after_rules} draw rules)", notes,
                       floatfmt=".0f")
    return Artefact(stems.EXTRAS_DRAW_RULES, paths, table=frame)
