"""Does the answer survive scale? The scale design's reading: Elo of each mixture
against the regular network of its size, by parameters, beside the paper's network, with a
weighted trend; and Table 1's no-phases loss per size.

The estimates come from :func:`chessmoe.designs.scale.size_estimates` (pooled over the seed
pairings, and with both sides' seeds random), the trend from
:func:`chessmoe.estimates.elo_trend`, the losses from the bundles' ``evaluation.json``
(:func:`chessmoe.nets.bundles.bundle_losses`).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from chessmoe import paper
from chessmoe.designs import scale
from chessmoe.designs.powered import PAPER_TABLE2
from chessmoe.designs.scale import SizeEstimate
from chessmoe.estimates import ArmEstimate, EloTrend, elo_trend
from chessmoe.nets.bundles import BundleLoss, bundle_losses, paired_loss
from chessmoe.nets.names import (
    HEAD1X1_PARAMETERS,
    REGULAR_HEAD1X1,
    SCALE_METHODS,
    SCALE_PARAMETERS,
    SCALE_SEEDS,
    scale_bundle,
    train_command,
)
from chessmoe.report import stems
from chessmoe.report.figures.claims import estimates_frame
from chessmoe.report.figures.style import Artefact, new_figure, save_figure, save_table

__all__ = ["NOT_TRAINED", "fig_scale", "head_shape_note", "table_scale_losses"]

#: A loss cell whose networks have no evaluation yet.
NOT_TRAINED = "not trained yet"
_COLOURS = {"staged": "#1f77b4", "trunk": "#9467bd"}
_NUDGE = {"staged": 0.95, "trunk": 1.05}  # side by side at each size (a log axis)
_POOLED = "pooled over these seeds (openings the clusters), t(G-1), 95 %"
_RANDOM = "both sides' seeds random (t over the seed pairings' means), 95 %"
_TREND = ("weighted least squares on log10(parameters), staged's pooled intervals as known "
          "standard errors, normal 95 %")


def _trend_estimate(trend: EloTrend, parameters: float, name: str) -> ArmEstimate:
    elo, low, high = trend.at(parameters)
    return ArmEstimate(name, 0, 0, math.nan, elo, low, high)


def _frame(played: list[SizeEstimate]) -> tuple[pd.DataFrame, EloTrend | None]:
    """The numbers :func:`fig_scale` draws (``scale.csv``): per size and mixture played so far
    its pooled and seeds-random estimates, then staged's trend at each kit size and at the
    paper's network (an extrapolation), and the paper's value (no interval); and the trend."""
    rows: list[tuple[ArmEstimate, str, str, int, str]] = []
    for e in played:
        assert e.pooled is not None
        rows.append((e.pooled, e.label, e.mixture, e.parameters, _POOLED))
        if e.seeds_random is not None:
            rows.append((e.seeds_random, e.label, e.mixture, e.parameters, _RANDOM))
    trend = elo_trend([(e.parameters, e.pooled) for e in played
                       if e.mixture == "staged" and e.pooled is not None])
    if trend is not None:
        for size in scale.by_parameters():
            rows.append((_trend_estimate(trend, SCALE_PARAMETERS[size], "staged trend"),
                         scale.PARAMETERS[size], "staged", SCALE_PARAMETERS[size], _TREND))
        rows.append((_trend_estimate(trend, paper.NETWORK_PARAMETERS,
                                     "staged trend, extrapolated"),
                     "5.8 M", "staged", paper.NETWORK_PARAMETERS, f"{_TREND}; extrapolation"))
    if played:
        rows.append((ArmEstimate("paper, Table 2", 0, 0, math.nan, PAPER_TABLE2["staged"],
                                 math.nan, math.nan), "5.8 M", "staged",
                     paper.NETWORK_PARAMETERS, "the paper's mean over its 55 settings; "
                                               "no interval printed"))
    frame = estimates_frame([r[0] for r in rows], size=[r[1] for r in rows],
                            mixture=[r[2] for r in rows], parameters=[r[3] for r in rows])
    return frame.assign(interval=[r[4] for r in rows]), trend


def _segment(ax: Axes, x: float, low: float, high: float, colour: str, width: float) -> None:
    if math.isfinite(low) and math.isfinite(high):
        ax.plot([x, x], [low, high], color=colour, lw=width,
                solid_capstyle="butt")


def _draw_trend(ax: Axes, trend: EloTrend) -> None:
    low_n, high_n = min(SCALE_PARAMETERS.values()), max(SCALE_PARAMETERS.values())
    for start, end, style, alpha, label in (
            (low_n, high_n, "-", 0.18, f"staged trend ({trend.slope:+.0f} Elo per tenfold; "
                                       "95 % band, seeds fixed)"),
            (high_n, paper.NETWORK_PARAMETERS, "--", 0.08, "the trend extrapolated")):
        xs = np.geomspace(start, end, 40)
        fits = np.array([trend.at(float(x)) for x in xs])
        ax.plot(xs, fits[:, 0], color=_COLOURS["staged"], lw=1,
                ls=style, label=label)
        ax.fill_between(xs, fits[:, 1], fits[:, 2],
                        color=_COLOURS["staged"], alpha=alpha, lw=0)
    elo = trend.at(paper.NETWORK_PARAMETERS)[0]
    ax.annotate("extrapolation", (paper.NETWORK_PARAMETERS, elo),
                xytext=(-6, 10), textcoords="offset points", ha="right", fontsize=8,
                color=_COLOURS["staged"], style="italic")


def fig_scale(tournament_dir: str | os.PathLike[str], experts_dir: str | os.PathLike[str],
              out_dir: str | os.PathLike[str]) -> Artefact:
    """Elo of staged and of the shared-trunk mixture against the regular network of their
    size, by the regular network's parameters (log scale; each of staged's experts has as
    many): a thick line is the interval pooled over the size's seed pairings (these seeds),
    a thin one the interval with both sides' seeds random; the paper's staged +121 at its
    5.76 M-parameter network (no interval printed) as a star; staged's weighted trend with
    its 95 % band over the kit's sizes, continued dashed to the paper's size and labelled an
    extrapolation. An unbounded interval (a score of 0 or 1 at a bound) is not drawn; the
    numbers, bounds and trend included, are in ``scale.csv``. ``experts_dir`` names the
    networks' directory in the title. Nothing played yet: the panel says so."""
    played = [e for e in scale.size_estimates(tournament_dir) if e.pooled is not None]
    frame, trend = _frame(played)
    fig = new_figure(6.8, 4.4)
    ax = fig.subplots()
    ax.set_title(f"'{Path(tournament_dir).name}' tournament, networks of "
                 f"experts/{Path(experts_dir).name} (early-stopped)", fontsize=9)
    if not played:
        ax.text(0.5, 0.5, "not played yet", ha="center", va="center", transform=ax.transAxes,
                color="#666666")
        ax.set_xticks([])
        ax.set_yticks([])
    else:
        for mixture in scale.MIXTURES:
            mine = [e for e in played if e.mixture == mixture]
            if not mine:
                continue
            for e in mine:
                assert e.pooled is not None
                x = e.parameters * _NUDGE[mixture]
                _segment(ax, x, e.pooled.low, e.pooled.high, _COLOURS[mixture], 3.5)
                if e.seeds_random is not None:
                    _segment(ax, x, e.seeds_random.low, e.seeds_random.high,
                             _COLOURS[mixture], 1.0)
            ax.plot([e.parameters * _NUDGE[mixture] for e in mine],
                    [e.pooled.elo for e in mine if e.pooled is not None], marker="o", ms=5,
                    ls="none", color=_COLOURS[mixture],
                    label=f"{mixture} (thick: pooled over seeds; thin: seeds random)")
        if trend is not None:
            _draw_trend(ax, trend)
        ax.plot([paper.NETWORK_PARAMETERS], [PAPER_TABLE2["staged"]], marker="*", ms=13,
                ls="none", color="#d62728",
                label=f"paper: staged +{PAPER_TABLE2['staged']:.0f} at 5.8 M (Table 2 mean, "
                      "fixed epochs)")
        ax.axhline(0, color="#999999", lw=0.8)
        ax.set_xscale("log")
        ticks = [*sorted(SCALE_PARAMETERS.values()), paper.NETWORK_PARAMETERS]
        ax.set_xticks(ticks, [f"{n / 1000:.0f} k" if n < 10**6 else f"{n / 1e6:.2f} M"
                              for n in ticks])
        ax.minorticks_off()
        ax.set_xlim(min(ticks) * 0.7, max(ticks) * 1.4)
        ax.set_xlabel("parameters of the regular network (each of staged's experts as many)")
        ax.set_ylabel("Elo, mixture minus regular (95 % intervals)")
        ax.legend(fontsize=6.5, loc="best")
    fig.suptitle("Does the answer survive scale? The mixtures against one network, by size",
                 fontsize=10)
    return Artefact(stems.SCALE, save_figure(fig, out_dir, stems.SCALE, frame), figure=fig)


def _loss_cell(losses: list[float], seeds: int) -> str:
    if not losses:
        return NOT_TRAINED
    mean = sum(losses) / len(losses)
    spread = (f" [{min(losses):.4f}, {max(losses):.4f}]" if len(losses) > 1 else "")
    return f"{mean:.4f}{spread} ({len(losses)} of {seeds} seeds)"


def _terms(entry: BundleLoss) -> str:
    terms = [f"{name} {value:.4f}" for name, value in (("policy cross-entropy", entry.policy_ce),
                                                       ("value MSE", entry.value_mse))
             if value is not None]
    return f"{entry.loss:.4f}" + (f" ({', '.join(terms)})" if terms else "")


def head_shape_note(experts_dir: str | os.PathLike[str]) -> str:
    """What the head-shape control says about the shared-trunk mixture's loss at 201 k, seed 9
    (``regular-head1x1``, :func:`chessmoe.nets.controls.head1x1_config`): the three networks'
    no-phases test losses with their two terms, and the mixture's excess over the regular
    network split into the head's shape (the control minus regular) and the phase heads (the
    mixture minus the control); which networks are not evaluated yet otherwise."""
    root = Path(experts_dir)
    regular, trunk = scale_bundle("regular", "201k", 9), scale_bundle("trunk", "201k", 9)
    head = (f"Head shape ({REGULAR_HEAD1X1}: one expert of the 201 k shared-trunk mixture, its "
            f"1x1 policy output included, as a single network on every position, "
            f"{HEAD1X1_PARAMETERS:,} parameters, seed 9, this recipe)")
    found = {b: table["no-phases"] for b in (regular, REGULAR_HEAD1X1, trunk)
             if (table := bundle_losses(root / b)) is not None and "no-phases" in table}
    if len(found) < 3:
        missing = [b for b in (regular, REGULAR_HEAD1X1, trunk) if b not in found]
        return (f"{head}: {', '.join(missing)} not evaluated yet ('"
                f"{train_command(REGULAR_HEAD1X1, root.name)}' trains the control).")
    r, h, t = found[regular], found[REGULAR_HEAD1X1], found[trunk]
    pairs = {(trunk, regular): t.loss - r.loss, (REGULAR_HEAD1X1, regular): h.loss - r.loss,
             (trunk, REGULAR_HEAD1X1): t.loss - h.loss}
    paired = {pair: paired_loss(root, *pair) for pair in pairs}

    def part(pair: tuple[str, str]) -> str:
        measured = paired[pair]
        if measured is None:
            return f"{pairs[pair]:+.4f}"
        low, high = measured.interval()
        return f"{measured.difference:+.4f} [{low:+.4f}, {high:+.4f}]"

    if all(v is not None for v in paired.values()):
        errors = ("paired on the same test positions, 95 % intervals from standard errors "
                  "clustered by game ('chessmoe compare')")
    else:
        missing = [f"'chessmoe compare {a} {b}'" for (a, b), v in paired.items() if v is None]
        errors = (f"each loss's standard error is at most "
                  f"{max(x.se or 0.0 for x in (r, h, t)):.4f}; the three are scored on the same "
                  f"test positions, and a difference's standard error is not measured yet ("
                  f"{', '.join(missing)})")
    return (f"{head}: no-phases test loss {_terms(h)}, against {_terms(r)} for the regular "
            f"network and {_terms(t)} for the shared-trunk mixture, seed 9 each. The "
            f"mixture's {part((trunk, regular))} over the regular network is the head shape's "
            f"{part((REGULAR_HEAD1X1, regular))} ({REGULAR_HEAD1X1} minus regular) plus the "
            f"phase heads' {part((trunk, REGULAR_HEAD1X1))} (the mixture minus "
            f"{REGULAR_HEAD1X1}); {errors}.")


def table_scale_losses(experts_dir: str | os.PathLike[str],
                       out_dir: str | os.PathLike[str]) -> Artefact:
    """Table 1 at each of the scale design's sizes: the no-phases test loss of each method
    (the mean over the seeds evaluated so far, their range in brackets), "not trained yet"
    where no seed is evaluated."""
    root = Path(experts_dir)
    records: list[list[object]] = []
    for size in scale.by_parameters():
        seeds = SCALE_SEEDS[size]
        cells = []
        for method in SCALE_METHODS:
            losses = [table["no-phases"].loss for seed in seeds
                      if (table := bundle_losses(root / scale_bundle(method, size, seed)))
                      is not None and "no-phases" in table]
            cells.append(_loss_cell(losses, len(seeds)))
        records.append([scale.PARAMETERS[size], f"{SCALE_PARAMETERS[size]:,}", *cells])
    frame = pd.DataFrame(records, columns=["size", "parameters", *SCALE_METHODS]
                         ).set_index("size")
    notes = [f"From experts/{root.name}/scale-<size>-<method>-seed<N>/evaluation.json, every "
             "network early-stopped on one recipe (the scale design).",
             "No-Phases test loss: 0.01 x value MSE + 0.99 x policy cross-entropy; a mixture "
             "scores each test position with its own phase's expert (the shared-trunk mixture "
             "with its own phase's head).",
             "Each cell: the mean over the training seeds evaluated so far, [min, max] over "
             "them: a range over seeds, not a confidence interval. Parameters: the regular "
             "network's; each of staged's experts has as many, the shared-trunk mixture within "
             "10 %.",
             head_shape_note(root)]
    paths = save_table(frame, out_dir, stems.EXTRAS_TABLE1_SIZES,
                       "Table 1 by network size: the no-phases test loss", notes)
    return Artefact(stems.EXTRAS_TABLE1_SIZES, paths, table=frame)
