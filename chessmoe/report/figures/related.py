"""The related documents' engines next to their documents: learning curves and one table.

The kit trains three engines of related documents (``chessmoe related train <kind>``), each
into ``results/related/<kind>/``: DeepChess (``related-deepchess.md``), the comparison-trained
n-tuple engine with tapered evaluation (``related-comparison-training-ntuple.md``) and the
self-play value network with best-first search, "MAIS" (``related-selfplay-value-search.md``).
This module draws their learning curves from those committed runs
(:mod:`chessmoe.nets.related.runs` reads them) and tabulates each engine against the number
its document publishes for the same quantity. The documents' published numbers live in
:data:`DOCUMENTS` only. An engine whose folder is absent is reported as "not trained".
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from chessmoe.elo import elo_from_score
from chessmoe.nets.related.runs import (
    MaterialComparison,
    NtupleRun,
    RelatedMatch,
    VsStockfish,
    finished_ntuple,
    load_deepchess,
    load_deepchess_curve,
    load_mais,
    load_ntuple,
    load_related_matches,
    ntuple_curve,
    paired_comparison,
    read_json,
)
from chessmoe.report import stems
from chessmoe.report.figures.style import Artefact, new_figure, save_figure, save_table

__all__ = ["DOCUMENTS", "DocumentNumbers", "fig_related_learning_curves", "related_rows",
           "table_related_engines"]


@dataclass(frozen=True)
class DocumentNumbers:
    """What one related document publishes (the only typed-in numbers of this module)."""

    document: str  # file in the paper folder
    headline: str  # the quantity
    value: float
    speed: float | None = None  # positions per second, where the document gives one
    speed_unit: str = ""


#: The documents' published numbers, by engine kind.
DOCUMENTS: dict[str, DocumentNumbers] = {
    "deepchess": DocumentNumbers(
        "related-deepchess.md", "comparator accuracy, train / validation", 0.982),
    "ntuple": DocumentNumbers(
        "related-comparison-training-ntuple.md",
        "trained vs untrained score (CT8 vs ORI2, 2,000 games at 100,000 nodes)", 0.6525),
    "mais": DocumentNumbers(
        "related-selfplay-value-search.md",
        "validation MAE stops decreasing after about 300 games", 300.0,
        speed=750.0, speed_unit="positions/s"),
}
#: DeepChess's validation accuracy (the document gives train 98.2 %, validation 98.0 %).
DEEPCHESS_DOCUMENT_VALIDATION = 0.980


def _rules_words(rules: str | None) -> str:
    return f"{rules} draw rules" if rules else "draw rules not recorded"


def _agreement_words(run: NtupleRun) -> list[str]:
    """A run's agreement with Stockfish's move: held out (where the kept iteration was
    chosen, so optimistic) and, where scored, on the test set apart with its intervals."""
    start = run.iterations[0].held_out_agreement
    kept = next(i for i in run.iterations if i.iteration == run.best_iteration)
    words = [f"held-out agreement with Stockfish's move {start:.3f} (start) -> "
             f"{kept.held_out_agreement:.3f} (iteration {kept.iteration}, chosen on it)"]
    if run.test is not None:
        t = run.test
        words.append(f"on a test set apart ({t.positions} positions of {t.source}): "
                     f"start {t.start:.3f} +- {t.start_half_width:.3f}, trained "
                     f"{t.trained:.3f} +- {t.trained_half_width:.3f}, difference "
                     f"{t.difference:+.3f} +- {t.difference_half_width:.3f} (95 %, by position)")
    return words


# --- the figure -----------------------------------------------------------------------------


def _not_trained(ax: Any, title: str) -> None:
    ax.text(0.5, 0.5, "not trained", ha="center", va="center", transform=ax.transAxes,
            color="#666666")
    ax.set_title(title, fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])


def fig_related_learning_curves(related_dir: str | os.PathLike[str],
                                out_dir: str | os.PathLike[str]) -> Artefact:
    """Four panels: MAIS's MAE by games (on the document's self-play split where the run has
    it, beside the zero and naive predictors), the n-tuple engine's move agreement,
    DeepChess's accuracy by epoch (with the material comparator on the same pairs) and by
    training games (``deepchess-curve/``, when its learning curve was run)."""
    root = Path(related_dir)
    mais, ntuple, deep = (load_mais(root / "mais"), load_ntuple(root / "ntuple"),
                          load_deepchess(root / "deepchess"))
    curve = load_deepchess_curve(root / "deepchess-curve")
    fig = new_figure(16.0, 3.9)
    ax_m, ax_n, ax_d, ax_c = fig.subplots(1, 4)
    if mais is None:
        _not_trained(ax_m, "MAIS (self-play value network)")
    elif mais.selfplay:
        held = mais.selfplay
        games = [b.games for b in held]
        ax_m.plot(games, [b.selfplay_val_mae for b in held], marker="o", ms=2,
                  label="network, held-out self-play games")
        ax_m.plot(games, [b.selfplay_zero_mae for b in held], color="#444444", ls="--",
                  lw=1, label="zero predictor (same positions)")
        multiple = f"{mais.naive_multiple:g} x " if mais.naive_multiple else ""
        ax_m.plot(games, [b.selfplay_naive_mae for b in held], color="#2ca02c", ls=":",
                  lw=1.2, label=f"{multiple}naive evaluation (same positions)")
        ax_m.axvline(float(DOCUMENTS["mais"].value), color="#999999", lw=0.8)
        ax_m.set_xlabel("self-play games played (grey: the document's ~300)")
        ax_m.set_ylabel("MAE of Q (naive evaluation's centipawns)")
        ax_m.set_title("MAIS: value error on the 10 % self-play split", fontsize=9)
        ax_m.legend(fontsize=7)
    else:
        ax_m.plot([b.games for b in mais.batches], [b.val_mae for b in mais.batches],
                  marker="o", ms=3, label="validation MAE (real games)")
        fresh = [b for b in mais.batches if b.fresh_mae is not None]
        ax_m.plot([b.games for b in fresh], [b.fresh_mae for b in fresh], marker="s", ms=3,
                  label="fresh self-play MAE (before fitting)")
        ax_m.axhline(mais.zero_predictor_mae, color="#444444", ls="--", lw=1,
                     label="zero predictor (validation)")
        ax_m.set_xlabel("self-play games played")
        ax_m.set_ylabel("MAE of Q (naive evaluation's centipawns)")
        ax_m.set_title("MAIS: value error vs games (human positions)", fontsize=9)
        ax_m.legend(fontsize=7)
    if ntuple is None:
        _not_trained(ax_n, "n-tuple comparison training")
    else:
        trained = [i for i in ntuple.iterations if i.train_agreement is not None]
        ax_n.plot([i.iteration for i in trained], [100 * (i.train_agreement or 0.0)
                                                   for i in trained],
                  marker="o", label=f"train ({ntuple.train_positions} positions)")
        ax_n.plot([i.iteration for i in ntuple.iterations],
                  [100 * i.held_out_agreement for i in ntuple.iterations], marker="s",
                  label=f"held out ({ntuple.held_out_positions} positions), d = {ntuple.depth}")
        if ntuple.test is not None:
            test = ntuple.test
            ax_n.errorbar([0, ntuple.best_iteration], [100 * test.start, 100 * test.trained],
                          yerr=[100 * test.start_half_width, 100 * test.trained_half_width],
                          marker="D", ls=":", color="#2ca02c", capsize=3,
                          label=f"test set apart ({test.positions} positions of "
                                f"{test.source}), 95 %")
        deeper = ntuple_curve(root / "ntuple-d2")
        if deeper:
            ax_n.plot([i for i, _ in deeper], [100 * a for _, a in deeper], marker="^",
                      color="#9467bd", label="held out, d = 2 run (same positions)")
        finished = finished_ntuple(root / "ntuple-d2")
        if finished is not None and finished.test is not None:
            test = finished.test
            ax_n.errorbar([0, finished.best_iteration], [100 * test.start, 100 * test.trained],
                          yerr=[100 * test.start_half_width, 100 * test.trained_half_width],
                          marker="v", ls=":", color="#9467bd", capsize=3,
                          label="test set apart, d = 2 run, 95 %")
        ax_n.set_xlabel("training iteration (0 = the start weights)")
        ax_n.set_ylabel("agreement with Stockfish's move (%)")
        ax_n.set_xticks(sorted({i.iteration for i in ntuple.iterations}
                               | {i for i, _ in deeper}))
        ax_n.set_title("n-tuple: agreement with Stockfish", fontsize=9)
        low, high = ax_n.get_ylim()
        ax_n.set_ylim(low - 0.45 * (high - low), high)  # room for the legend below the data
        ax_n.legend(fontsize=7, loc="lower right")
    if deep is None:
        _not_trained(ax_d, "DeepChess comparator")
    else:
        ax_d.plot([e.epoch for e in deep.epochs], [100 * e.train_accuracy for e in deep.epochs],
                  marker="o", ms=3, label="train")
        ax_d.plot([e.epoch for e in deep.epochs],
                  [100 * e.held_out_accuracy for e in deep.epochs], marker="s", ms=3,
                  label="held out (unseen games)")
        if deep.held_out_position_accuracy is not None:
            ax_d.plot([deep.epochs[-1].epoch], [100 * deep.held_out_position_accuracy],
                      marker="D", ls="none", color="#9467bd",
                      label="held out (unseen positions), last epoch")
        if deep.material_held_out_accuracy is not None:
            ax_d.axhline(100 * deep.material_held_out_accuracy, color="#2ca02c", ls="-.",
                         lw=1.2, label="material only, same unseen-game pairs")
        ax_d.axhline(100 * DEEPCHESS_DOCUMENT_VALIDATION, color="#ff7f0e", ls=":", lw=1.2,
                     label=f"document validation {100 * DEEPCHESS_DOCUMENT_VALIDATION:.1f} %")
        ax_d.set_xlabel("comparator epoch")
        ax_d.set_ylabel("comparator accuracy (%)")
        ax_d.set_title("DeepChess: which position is better", fontsize=9)
        low, high = ax_d.get_ylim()
        ax_d.set_ylim(low, max(high, min(100.5, high + 0.55 * (high - low))))  # legend room
        ax_d.legend(fontsize=7, loc="upper left")
    if not curve:
        ax_c.text(0.5, 0.5, "learning curve not run\n(chessmoe related train deepchess\n"
                  "--set learning_curve=5000,20000,60000,90000)", ha="center", va="center",
                  transform=ax_c.transAxes, color="#666666", fontsize=8)
        ax_c.set_title("DeepChess: accuracy by training games", fontsize=9)
        ax_c.set_xticks([])
        ax_c.set_yticks([])
    else:
        games = [p.train_games for p in curve]
        ax_c.plot(games, [100 * p.held_out_accuracy for p in curve], marker="s",
                  label="unseen games" + (" (numbers: minus material, same pairs, 95 %)"
                                          if any(p.paired_by_game for p in curve) else ""))
        by_position = [(p.train_games, p.held_out_position_accuracy) for p in curve
                       if p.held_out_position_accuracy is not None]
        if by_position:
            ax_c.plot([g for g, _ in by_position], [100 * (a or 0.0) for _, a in by_position],
                      marker="D", label="unseen positions")
        material = [(p.train_games, p.material_held_out_accuracy) for p in curve
                    if p.material_held_out_accuracy is not None]
        if material:
            ax_c.plot([g for g, _ in material], [100 * (a or 0.0) for _, a in material],
                      color="#2ca02c", ls="-.", label="material only, unseen games")
        for point in curve:  # network minus material on the same pairs, 95 %
            if point.paired_by_game is not None:
                ax_c.annotate(f"{100 * point.paired_by_game.difference:+.1f}"
                              f"\u00b1{100 * point.paired_by_game.half_width:.1f}",
                              (point.train_games, 100 * point.held_out_accuracy),
                              textcoords="offset points", xytext=(0, 6), ha="center",
                              fontsize=6, color="#1f77b4")
        ax_c.set_xscale("log")
        ax_c.set_xlabel("training games")
        ax_c.set_ylabel("held-out accuracy (%)")
        ax_c.set_title("DeepChess: accuracy by training games", fontsize=9)
        low, high = ax_c.get_ylim()
        ax_c.set_ylim(low - 0.35 * (high - low), high)  # room for the legend below the data
        ax_c.legend(fontsize=7, loc="lower right")
    fig.suptitle("Related documents' engines: learning curves of the committed runs",
                 fontsize=10)
    stem = stems.RELATED_LEARNING_CURVES
    return Artefact(stem, save_figure(fig, out_dir, stem), figure=fig)


# --- the table ------------------------------------------------------------------------------


def _pct(x: float, digits: int = 1) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:.{digits}f} %"


def _vs_cell(vs: VsStockfish | None) -> str:
    if vs is None:
        return "not played"
    nodes = f", engine {vs.engine_nodes} nodes" if vs.engine_nodes is not None else ""
    return (f"{vs.wins}-{vs.draws}-{vs.losses} (W-D-L), score {_pct(vs.score)} over "
            f"{vs.games} games vs Stockfish 15.1 ({vs.stockfish}){nodes}; "
            f"{_rules_words(vs.draw_rules)}")


def _row(engine: str, document: DocumentNumbers, trained: str, ours: str, theirs: str,
         vs: str, speed: str, baseline: str = "", against: str = "") -> dict[str, str]:
    return {"Engine": engine, "Document": document.document, "Trained on": trained,
            "Quantity": document.headline, "Ours": ours, "Document's": theirs,
            "Baselines": baseline, "Against its baseline (related tournament)": against,
            "Vs Stockfish": vs, "Speed (ours vs document)": speed}


START_NAMES = {"material": "Table I material only", "pesto": "PeSTO's tuned tables"}

#: The ``related`` tournament's matches of each engine with the kit's target score.
RELATED_TARGETS: dict[str, tuple[tuple[str, str, float | None], ...]] = {
    "deepchess": (("deepchess-vs-material", "material alpha-beta, depth 3 (its quiescence "
                   "resolves captures past it, DeepChess's search does not)", 0.55),
                  ("deepchess-vs-material-flat", "material alpha-beta, depth 3, no quiescence "
                   "(both stop at the same horizon)", 0.55),
                  ("deepchess-quiet-vs-material", "material alpha-beta, depth 3, with "
                   "DeepChess's quiescence too", 0.55),
                  ("deepchess-d4-vs-material-flat", "material alpha-beta, both to depth 4, "
                   "no quiescence (the flat match one ply deeper)", 0.55)),
    "ntuple": (("ntuple-vs-pesto", "PeSTO, 400 nodes", None),
               ("ntuple-d2-vs-pesto", "PeSTO, 400 nodes (d = 2 run)", None),
               ("ntuple-d2-vs-ntuple", "the d = 1 engine, 400 nodes (d = 2 run, shared "
                "openings)", None)),
    "mais": (("mais-vs-mais-at-200", "its own net after 200 games", 0.55),
             ("mais-vs-mais-at-200-sprt", "its own net after 200 games, on openings of "
              "their own until a sequential test decides", 0.55)),
}


#: Matches that repeat one of a document's own experiments, with the document's score (the
#: first player's): the cell says whether it lies inside the match's interval instead of
#: naming a target the kit did not set.
DOCUMENT_SCORES: dict[str, tuple[float, str]] = {
    "ntuple-d2-vs-ntuple": (0.5765, "2-ply vs 1-ply training, Table IX"),
}


def _target_verdict(m: RelatedMatch, target: float) -> str:
    """A score target against the match's 95 % interval: met where the whole interval lies
    at or above it, not met where it lies below, else not decided (the point score alone
    decides nothing). A sequential test's decision is about strength, not the score: its
    H1 accepted says the first player is the stronger, H0 accepted that it is not shown
    stronger; the target is still read from the score's interval."""
    low, high = m.score_bounds()  # the score's own interval, not the Elo margin converted
    interval = f"score interval {_pct(low)}-{_pct(high)}"
    verdict = (f"met, decided ({interval})" if low >= target
               else f"not met, decided ({interval})" if high < target
               else f"not decided ({interval})")
    if m.sprt_state == "H1 accepted":
        verdict += "; the SPRT accepts H1: stronger"
    elif m.sprt_state == "H0 accepted":
        verdict += "; the SPRT accepts H0: not shown stronger"
    return verdict


def match_verdicts(kind: str, matches: dict[str, RelatedMatch]) -> dict[str, str]:
    """Each played match of engine ``kind`` against its baseline, in the words of the
    related table (what every document that states the match must say)."""
    cells: dict[str, str] = {}
    for name, opponent, target in RELATED_TARGETS[kind]:
        m = matches.get(name)
        if m is None:
            continue
        low = m.elo - m.margin
        if name in DOCUMENT_SCORES:
            score, what = DOCUMENT_SCORES[name]
            elo = elo_from_score(score)
            place = "inside" if low <= elo <= m.elo + m.margin else "outside"
            verdict = ("not decided" if low <= 0 <= m.elo + m.margin else "decided") \
                + f"; the document's {100 * score:.2f} % ({elo:+.0f} Elo) lies {place} " \
                "the interval"
            goal = f"document, {what}"
        elif target is None:
            verdict = "met" if low > 0 else "not met"
            goal = "target: interval above 50 %"
        else:
            verdict = _target_verdict(m, target)
            goal = f"target {100 * target:.0f} %"
        if m.partial:
            verdict = (f"undecided, {m.games} games played so far, at most {m.planned}"
                       if m.sprt_state else
                       f"undecided, {m.games} of {m.planned} games played so far")
        test = f"; {m.sprt_words}" if m.sprt_words else ""
        stop = ""
        if m.stopped is not None:  # the per-game interval is a fixed-length one
            e = m.stopped
            stop = (f" at fixed length, biased by the stop (read as stopped at {e.accepted}: "
                    f"{e.elo:+.0f} [{e.low:+.0f}, {e.high:+.0f}] {e.unit})")
        cells[name] = (f"vs {opponent}: {m.wins}-{m.draws}-{m.losses}, {_pct(m.score)} over "
                       f"{m.games} games, {m.elo:+.0f} +/- {m.margin:.0f} Elo per game{stop} "
                       f"({goal}: {verdict}{test})")
    return cells


def _against(kind: str, matches: dict[str, RelatedMatch]) -> str:
    """The engine's matches against its baselines (:func:`match_verdicts`): W-D-L, score,
    Elo with its 95 % interval and whether the target is met (a score target by the score's
    interval, with the decision of the sequential test a match runs to beside it; a score
    above 50 % means the
    interval's lower end is above 0 Elo), or, for a match that repeats a document's
    experiment (:data:`DOCUMENT_SCORES`), whether it decides and whether the document's
    score lies in its interval."""
    cells = match_verdicts(kind, matches)
    return "; ".join(cells.values()) if cells else "not played"


def _level_words(path: Path) -> str:
    """DeepChess where material is level (``level-material.json``): the network against
    material (50 % by its rule there) on held-out rows whose two material balances are
    equal, on the summary's own pairs and on the larger draw of such pairs."""
    if not path.is_file():
        return ""
    data = read_json(path)
    parts = []
    for held, words in (("by_game", "by game"), ("by_position", "by position")):
        block = data.get(held) or {}
        cells = []
        for key, what in (("material_tied", "the summary's pairs"),
                          ("level_draw", "a larger draw")):
            part = block.get(key)
            paired = paired_comparison(part)
            if part and paired:
                cells.append(f"{_pct(float(part['network']))} on {int(part['rows']):,} rows of "
                             f"{what} (network minus material {paired.words()})")
        if cells:
            parts.append(f"{words} " + ", ".join(cells))
    if not parts:
        return ""
    return ("where material is level (the two positions' balances equal; material scores "
            "50 % there): " + "; ".join(parts))


def related_rows(related_dir: str | os.PathLike[str],
                 tournament_dir: str | os.PathLike[str] | None = None) -> list[dict[str, str]]:
    """One row per engine (strings, as tabulated); ``tournament_dir``: the ``related``
    tournament (default ``results/tournaments/related`` beside ``related_dir``)."""
    root = Path(related_dir)
    matches = load_related_matches(tournament_dir if tournament_dir is not None
                                   else root.parent / "tournaments" / "related")
    rows = []
    doc = DOCUMENTS["deepchess"]
    deep = load_deepchess(root / "deepchess")
    if deep is None:
        rows.append(_row("DeepChess", doc, "not trained", "not trained", "", "", ""))
    else:
        last = deep.epochs[-1]
        ours = f"{_pct(last.train_accuracy)} / {_pct(last.held_out_accuracy)} (last epoch; " \
               "held out by game)"
        if deep.held_out_position_accuracy is not None:
            ours += f"; {_pct(deep.held_out_position_accuracy)} on unseen positions"
        baseline = "material-only comparator on the same pairs"
        if deep.material_held_out_accuracy is not None:
            baseline += f": {_pct(deep.material_held_out_accuracy)} by game"
            if deep.material_held_out_position_accuracy is not None:
                baseline += f", {_pct(deep.material_held_out_position_accuracy)} by position"
            for part, paired in (("by game", deep.paired_by_game),
                                 ("by position", deep.paired_by_position)):
                if paired is not None:
                    baseline += f"; network minus material {part}: {paired.words()}"
        else:
            baseline += " (not measured by this run)"
        level = _level_words(root / "deepchess" / "level-material.json")
        if level:
            baseline += "; " + level
        rows.append(_row(
            "DeepChess", doc,
            f"{deep.games} games, {deep.train_positions} training positions; "
            f"{deep.pos2vec_epochs} Pos2Vec epochs/layer, {deep.comparator_epochs} "
            "comparator epochs",
            ours, f"{_pct(doc.value)} / {_pct(DEEPCHESS_DOCUMENT_VALIDATION)}",
            _vs_cell(deep.vs_stockfish), f"{deep.nps:.0f} leaves/s (document: none given)",
            baseline, _against("deepchess", matches)))
    doc = DOCUMENTS["ntuple"]
    nt = load_ntuple(root / "ntuple")
    if nt is None:
        rows.append(_row("n-tuple (comparison training)", doc, "not trained", "not trained",
                         "", "", ""))
    else:
        vs = nt.vs_untrained
        parts = _agreement_words(nt)
        deeper = finished_ntuple(root / "ntuple-d2")
        if deeper is not None:
            parts.append(f"the d = {deeper.depth} run (ntuple-d2, same start and positions, "
                         f"{len(deeper.iterations) - 1} of {deeper.max_iterations} passes): "
                         + ", ".join(_agreement_words(deeper)))
        if vs is not None:
            parts.append(
                f"{_pct(vs.score, 2)} ({vs.wins}-{vs.draws}-{vs.losses}, {vs.games} games at "
                f"{vs.engine_nodes} nodes, {_rules_words(vs.draw_rules)}) against its "
                "untrained start"
                + (f", {vs.pair_elo:+.0f} Elo +- {vs.pair_margin:.0f} (95 %, by game pairs"
                   + (f", {vs.pairs} pairs" if vs.pairs else "") + ")"
                   if vs.pair_elo is not None and vs.pair_margin is not None else ""))
        rows.append(_row(
            "n-tuple (comparison training)", doc,
            f"{nt.train_positions} positions labelled by Stockfish, "
            f"{len(nt.iterations) - 1} of {nt.max_iterations} iterations run"
            f"{' (stopped early)' if len(nt.iterations) - 1 < nt.max_iterations else ''}, "
            f"weights of iteration {nt.best_iteration} kept",
            "; ".join(parts),
            _pct(doc.value, 2),
            _vs_cell(nt.vs_stockfish),
            "n/a" if nt.nps is None else f"{nt.nps:.0f} nodes/s (document: none given)",
            f"training starts from {START_NAMES.get(nt.start, nt.start)}"
            + (" (averaged over mirrored squares: close to, not equal to, PeSTO's evaluation)"
               if nt.start == "pesto" else "")
            + f", d = {nt.depth}; the related tournament's baseline is PeSTO's own evaluation; "
            "the document's: a tuned linear evaluation (Stockfish's, ORI2) at d = 4",
            _against("ntuple", matches)))
    doc = DOCUMENTS["mais"]
    mais = load_mais(root / "mais")
    if mais is None:
        rows.append(_row("MAIS (self-play value + best-first)", doc, "not trained",
                         "not trained", "", "", ""))
    else:
        best = min(mais.batches, key=lambda b: b.val_mae)
        end = mais.batches[-1]
        speed = doc.speed or math.nan
        if mais.selfplay:
            held = mais.selfplay
            low = min(held, key=lambda b: b.selfplay_val_mae or math.inf)
            last_held = held[-1]
            ours = (f"self-play validation MAE {last_held.selfplay_val_mae:.0f} after "
                    f"{last_held.games} games (lowest {low.selfplay_val_mae:.0f} after "
                    f"{low.games}, on the split as it grew)"
                    + (f"; on the one final split ({mais.fixed_split_positions:,} positions) "
                       + ", ".join(f"{mae:.0f} after {games:,} games"
                                   for games, mae in mais.fixed_split)
                       if mais.fixed_split else "")
                    + f"; on human positions {end.val_mae:.0f}")
            multiple = f"{mais.naive_multiple:g} x " if mais.naive_multiple else ""
            baseline = (f"on the same self-play positions: zero predictor "
                        f"{last_held.selfplay_zero_mae:.0f}, {multiple}naive evaluation "
                        f"{last_held.selfplay_naive_mae:.0f}")
        else:
            ours = (f"best validation MAE {best.val_mae:.0f} after {best.games} games; "
                    f"{end.val_mae:.0f} after {end.games} (human positions)")
            baseline = f"zero predictor {mais.zero_predictor_mae:.0f} (human positions)"
        rows.append(_row(
            "MAIS (self-play value + best-first)", doc,
            f"{mais.games} self-play games in {len(mais.batches) - 1} batches",
            ours, f"flattens after about {doc.value:.0f} games",
            _vs_cell(mais.vs_stockfish),
            f"{mais.nps:.0f} vs {speed:.0f} {doc.speed_unit}",
            baseline, _against("mais", matches)))
    return rows


def deepchess_curve_rows(curve_dir: str | os.PathLike[str]) -> list[dict[str, str]]:
    """One row per run of the DeepChess learning curve: held-out accuracy by game and by
    position, the material-only comparator on the same pairs, and the network minus material
    pair by pair with its 95 % interval (where the run's ``material-paired.json`` exists)."""
    def paired(value: MaterialComparison | None) -> str:
        if value is None:
            return "not scored"
        if not value.estimable:
            return f"{value.interval()}; undecided"
        return f"{value.interval()} ({'decided' if value.decided else 'undecided'}; " \
               f"{value.units:,} clusters)"

    rows = []
    for point in load_deepchess_curve(curve_dir):
        rows.append({
            "Training games": f"{point.train_games:,}",
            "By game": _pct(point.held_out_accuracy),
            "Material, same pairs": _pct(point.material_held_out_accuracy)
            if point.material_held_out_accuracy is not None else "not measured",
            "Network minus material, by game (points, 95 %)": paired(point.paired_by_game),
            "By position": _pct(point.held_out_position_accuracy)
            if point.held_out_position_accuracy is not None else "not measured",
            "Material, same pairs (by position)": _pct(point.material_held_out_position_accuracy)
            if point.material_held_out_position_accuracy is not None else "not measured",
            "Network minus material, by position (points, 95 %)":
                paired(point.paired_by_position)})
    return rows


def table_deepchess_curve(curve_dir: str | os.PathLike[str],
                          out_dir: str | os.PathLike[str]) -> Artefact:
    """The DeepChess learning curve as a table (:func:`deepchess_curve_rows`)."""
    rows = deepchess_curve_rows(curve_dir)
    frame = pd.DataFrame(rows) if rows else pd.DataFrame(
        [{"Training games": "learning curve not run (chessmoe related train deepchess "
                            "--set learning_curve=5000,20000,60000,90000)"}])
    notes = ["Read from results/related/deepchess-curve/ (learning_curve.json and each run's "
             "material-paired.json). Every run is evaluated on the same 5,000 rows of pairs "
             "of held-out games (by game); the by-position pairs come from each run's own "
             "set-aside positions of its training games.",
             "Network minus material: the two comparators on the very same rows; the 95 % "
             "interval (normal approximation) clusters the rows by game, since positions of "
             "one game, and a pair's two orders, are not independent. Where the clusters are "
             "too few or one holds too many of the rows (a few games sampled many times link "
             "into one; the rule each material-paired.json records), no interval is given "
             "and nothing is decided. The intervals are not adjusted for their number."]
    stem = stems.DEEPCHESS_CURVE
    paths = save_table(frame.set_index("Training games"), out_dir, stem,
                       "DeepChess: held-out accuracy by training games, against material on "
                       "the same pairs", notes)
    return Artefact(stem, paths, table=frame)


def table_related_engines(related_dir: str | os.PathLike[str],
                          out_dir: str | os.PathLike[str],
                          tournament_dir: str | os.PathLike[str] | None = None) -> Artefact:
    frame = pd.DataFrame(related_rows(related_dir, tournament_dir))
    notes = ["Every number of the 'Ours' columns is read from results/related/<kind>/ "
             "(config.json, metrics.jsonl, summary.json where the run writes one, "
             "test.json (a test set apart) for the n-tuple engine, "
             "vs-stockfish/summary.json); the "
             "document's numbers are the published ones. The runs are smaller than the "
             "documents' (see each config.json's 'reduced' list).",
             "Baselines are named: each engine is compared with a simple predictor or engine "
             "on the same data where its run measured one (the 'Baselines' column says "
             "'not measured by this run' otherwise), and is to play its document's baseline "
             "in the 'related' tournament (chessmoe tournament --profile related; cutechess "
             "draw rules; Elo with its 95 % interval as cutechess computes it; 'not played' "
             "until then). The 10-game matches against Stockfish only show complete games; "
             "they are not ratings."]
    stem = stems.RELATED_ENGINES
    paths = save_table(frame.set_index("Engine"), out_dir, stem,
                       "The related documents' engines as trained by the kit, vs the documents",
                       notes)
    return Artefact(stem, paths, table=frame)
