"""The related documents' engines next to their documents: learning curves and one table.

The kit trains three engines of related documents (``chessmoe related train <kind>``), each
into ``results/related/<kind>/``: DeepChess (``related-deepchess.md``), the comparison-trained
n-tuple engine with tapered evaluation (``related-comparison-training-ntuple.md``) and the
self-play value network with best-first search, "MAIS" (``related-selfplay-value-search.md``).
This module reads those committed runs into typed records (every number comes from the files),
draws their learning curves and tabulates each engine against the number its document
publishes for the same quantity. The documents' published numbers live in :data:`DOCUMENTS`
only. An engine whose folder is absent is reported as "not trained".
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from chessmoe._io.errors import KitError
from chessmoe._io.jsonl import read_records
from chessmoe.report import stems
from chessmoe.report.figures.style import Artefact, new_figure, save_figure, save_table

__all__ = [
    "DOCUMENTS",
    "DeepChessEpoch",
    "DeepChessRun",
    "DocumentNumbers",
    "MaisBatch",
    "MaisRun",
    "NtupleIteration",
    "NtupleRun",
    "VsStockfish",
    "fig_related_learning_curves",
    "load_deepchess",
    "load_mais",
    "load_ntuple",
    "related_rows",
    "table_related_engines",
]


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


@dataclass(frozen=True)
class VsStockfish:
    """A short match of the engine against Stockfish, from the engine's point of view."""

    wins: int
    draws: int
    losses: int
    games: int
    score: float
    engine_nodes: int | None
    stockfish: str  # the Stockfish settings, in words


@dataclass(frozen=True)
class DeepChessEpoch:
    epoch: int
    train_accuracy: float
    held_out_accuracy: float


@dataclass(frozen=True)
class DeepChessRun:
    games: int
    train_positions: int
    comparator_epochs: int
    pos2vec_epochs: int
    epochs: tuple[DeepChessEpoch, ...]
    nps: float  # leaves per second of the alpha-beta search
    vs_stockfish: VsStockfish | None


@dataclass(frozen=True)
class NtupleIteration:
    iteration: int
    train_agreement: float | None  # None at iteration 0 (the untrained weights)
    held_out_agreement: float


@dataclass(frozen=True)
class NtupleRun:
    train_positions: int
    held_out_positions: int
    max_iterations: int  # allowed; training stops early when held-out agreement stalls
    best_iteration: int  # the iteration whose weights were kept
    iterations: tuple[NtupleIteration, ...]
    vs_untrained: VsStockfish  # trained (first) vs untrained weights
    nps: float | None  # nodes per second of the trained engine (speed.json)
    vs_stockfish: VsStockfish | None


@dataclass(frozen=True)
class MaisBatch:
    batch: int
    games: int
    val_mae: float
    fresh_mae: float | None  # None before the first batch of self-play


@dataclass(frozen=True)
class MaisRun:
    games: int
    batches: tuple[MaisBatch, ...]  # batch 0 = before training
    zero_predictor_mae: float
    nps: float
    vs_stockfish: VsStockfish | None


# --- reading --------------------------------------------------------------------------------


def _json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise KitError(f"{path}: missing (train with `chessmoe related train ...`)")
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise KitError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise KitError(f"{path}: expected a JSON object")
    return value


def _metrics(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise KitError(f"{path}: missing")
    report = read_records(path)
    if report.bad_lines:
        raise KitError(f"{path}: unreadable line(s) {report.bad_lines} (cut or corrupt log; "
                       "retrain or repair the file)")
    return report.records


def _settings(player: dict[str, Any]) -> str:
    parts = [f"{k} {v}" for k, v in sorted(player.get("options", {}).items())]
    if player.get("nodes") is not None:
        parts.append(f"{player['nodes']} nodes")
    if player.get("movetime_ms") is not None:
        parts.append(f"{player['movetime_ms']} ms")
    return ", ".join(parts)


def _vs(path: Path) -> VsStockfish | None:
    """A match summary; MAIS writes its own field names (``mais_wins`` ...)."""
    if not path.is_file():
        return None
    d = _json(path)
    if "mais_wins" in d:
        return VsStockfish(int(d["mais_wins"]), int(d["draws"]), int(d["mais_losses"]),
                           int(d["games"]), float(d["mais_score"]), d["mais"].get("nodes"),
                           _settings(d["stockfish"]))
    return VsStockfish(int(d["wins"]), int(d["draws"]), int(d["losses"]), int(d["games"]),
                       float(d["score"]), d["players"]["first"].get("nodes"),
                       _settings(d["players"]["second"]))


def load_deepchess(run_dir: str | os.PathLike[str]) -> DeepChessRun | None:
    """DeepChess's run, or None when its folder does not exist."""
    root = Path(run_dir)
    if not root.is_dir():
        return None
    cfg, summary = _json(root / "config.json"), _json(root / "summary.json")
    epochs = tuple(DeepChessEpoch(int(r["epoch"]), float(r["train_accuracy"]),
                                  float(r["held_out_accuracy"]))
                   for r in _metrics(root / "metrics.jsonl") if r.get("phase") == "comparator")
    return DeepChessRun(int(summary["games"]), int(summary["train_positions"]),
                        int(cfg["comparator_epochs"]), int(cfg["pos2vec_epochs"]), epochs,
                        float(summary["nps"]), _vs(root / "vs-stockfish" / "summary.json"))


def load_ntuple(run_dir: str | os.PathLike[str]) -> NtupleRun | None:
    """The n-tuple engine's run, or None when its folder does not exist."""
    root = Path(run_dir)
    if not root.is_dir():
        return None
    cfg = _json(root / "config.json")
    its = tuple(NtupleIteration(int(r["iteration"]),
                                None if r.get("train_agreement") is None
                                else float(r["train_agreement"]),
                                float(r["held_out_agreement"]))
                for r in _metrics(root / "metrics.jsonl"))
    vs_untrained = _vs(root / "trained-vs-untrained" / "summary.json")
    if vs_untrained is None:
        raise KitError(f"{root / 'trained-vs-untrained' / 'summary.json'}: missing")
    speed_path = root / "trained-vs-untrained" / "speed.json"
    nps = (float(_json(speed_path)["trained"]["nodes_per_second"])
           if speed_path.is_file() else None)
    return NtupleRun(int(cfg["data"]["train_positions"]), int(cfg["data"]["held_out_positions"]),
                     int(cfg["train"]["iterations"]), int(cfg["best_iteration"]), its,
                     vs_untrained, nps,
                     _vs(root / "vs-stockfish" / "summary.json"))


def load_mais(run_dir: str | os.PathLike[str]) -> MaisRun | None:
    """MAIS's run, or None when its folder does not exist."""
    root = Path(run_dir)
    if not root.is_dir():
        return None
    summary = _json(root / "summary.json")
    batches = tuple(MaisBatch(int(r["batch"]), int(r["games"]), float(r["val_mae"]),
                              None if r.get("fresh_mae") is None else float(r["fresh_mae"]))
                    for r in _metrics(root / "metrics.jsonl"))
    return MaisRun(int(summary["games"]), batches, float(summary["val_mae_zero_predictor"]),
                   float(summary["nps"]), _vs(root / "vs-stockfish" / "summary.json"))


# --- the figure -----------------------------------------------------------------------------


def _not_trained(ax: Any, title: str) -> None:
    ax.text(0.5, 0.5, "not trained", ha="center", va="center", transform=ax.transAxes,
            color="#666666")
    ax.set_title(title, fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])


def fig_related_learning_curves(related_dir: str | os.PathLike[str],
                                out_dir: str | os.PathLike[str]) -> Artefact:
    """Three panels: MAIS's MAE, the n-tuple engine's move agreement, DeepChess's accuracy."""
    root = Path(related_dir)
    mais, ntuple, deep = (load_mais(root / "mais"), load_ntuple(root / "ntuple"),
                          load_deepchess(root / "deepchess"))
    fig = new_figure(12.0, 3.8)
    ax_m, ax_n, ax_d = fig.subplots(1, 3)
    if mais is None:
        _not_trained(ax_m, "MAIS (self-play value network)")
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
        ax_m.set_title("MAIS: value error vs games", fontsize=9)
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
                  label=f"held out ({ntuple.held_out_positions} positions)")
        ax_n.set_xlabel("training iteration (0 = untrained weights)")
        ax_n.set_ylabel("agreement with Stockfish's move (%)")
        ax_n.set_xticks([i.iteration for i in ntuple.iterations])
        ax_n.set_title("n-tuple: agreement with Stockfish", fontsize=9)
        ax_n.legend(fontsize=7)
    if deep is None:
        _not_trained(ax_d, "DeepChess comparator")
    else:
        ax_d.plot([e.epoch for e in deep.epochs], [100 * e.train_accuracy for e in deep.epochs],
                  marker="o", ms=3, label="train")
        ax_d.plot([e.epoch for e in deep.epochs],
                  [100 * e.held_out_accuracy for e in deep.epochs], marker="s", ms=3,
                  label="held out (unseen games)")
        ax_d.axhline(100 * DOCUMENTS["deepchess"].value, color="#1f77b4", ls="--", lw=1,
                     label=f"document train {100 * DOCUMENTS['deepchess'].value:.1f} %")
        ax_d.axhline(100 * DEEPCHESS_DOCUMENT_VALIDATION, color="#ff7f0e", ls=":", lw=1.2,
                     label=f"document validation {100 * DEEPCHESS_DOCUMENT_VALIDATION:.1f} %")
        ax_d.set_xlabel("comparator epoch")
        ax_d.set_ylabel("comparator accuracy (%)")
        ax_d.set_title("DeepChess: which position is better", fontsize=9)
        ax_d.legend(fontsize=7, loc="center right")
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
            f"{vs.games} games vs Stockfish 15.1 ({vs.stockfish}){nodes}")


def _row(engine: str, document: DocumentNumbers, trained: str, ours: str, theirs: str,
         vs: str, speed: str) -> dict[str, str]:
    return {"Engine": engine, "Document": document.document, "Trained on": trained,
            "Quantity": document.headline, "Ours": ours, "Document's": theirs,
            "Vs Stockfish": vs, "Speed (ours vs document)": speed}


def related_rows(related_dir: str | os.PathLike[str]) -> list[dict[str, str]]:
    """One row per engine (strings, as tabulated)."""
    root = Path(related_dir)
    rows = []
    doc = DOCUMENTS["deepchess"]
    deep = load_deepchess(root / "deepchess")
    if deep is None:
        rows.append(_row("DeepChess", doc, "not trained", "not trained", "", "", ""))
    else:
        last = deep.epochs[-1]
        rows.append(_row(
            "DeepChess", doc,
            f"{deep.games} games, {deep.train_positions} training positions; "
            f"{deep.pos2vec_epochs} Pos2Vec epochs/layer, {deep.comparator_epochs} "
            "comparator epochs",
            f"{_pct(last.train_accuracy)} / {_pct(last.held_out_accuracy)} (last epoch)",
            f"{_pct(doc.value)} / {_pct(DEEPCHESS_DOCUMENT_VALIDATION)}",
            _vs_cell(deep.vs_stockfish), f"{deep.nps:.0f} leaves/s (document: none given)"))
    doc = DOCUMENTS["ntuple"]
    nt = load_ntuple(root / "ntuple")
    if nt is None:
        rows.append(_row("n-tuple (comparison training)", doc, "not trained", "not trained",
                         "", "", ""))
    else:
        vs = nt.vs_untrained
        rows.append(_row(
            "n-tuple (comparison training)", doc,
            f"{nt.train_positions} positions labelled by Stockfish, "
            f"{len(nt.iterations) - 1} of {nt.max_iterations} iterations run"
            f"{' (stopped early)' if len(nt.iterations) - 1 < nt.max_iterations else ''}, "
            f"weights of iteration {nt.best_iteration} kept",
            f"{_pct(vs.score)} ({vs.wins}-{vs.draws}-{vs.losses}, {vs.games} games at "
            f"{vs.engine_nodes} nodes)", _pct(doc.value, 2), _vs_cell(nt.vs_stockfish),
            "n/a" if nt.nps is None else f"{nt.nps:.0f} nodes/s (document: none given)"))
    doc = DOCUMENTS["mais"]
    mais = load_mais(root / "mais")
    if mais is None:
        rows.append(_row("MAIS (self-play value + best-first)", doc, "not trained",
                         "not trained", "", "", ""))
    else:
        best = min(mais.batches, key=lambda b: b.val_mae)
        end = mais.batches[-1]
        speed = doc.speed or math.nan
        rows.append(_row(
            "MAIS (self-play value + best-first)", doc,
            f"{mais.games} self-play games in {len(mais.batches) - 1} batches",
            f"best validation MAE {best.val_mae:.0f} after {best.games} games; "
            f"{end.val_mae:.0f} after {end.games} (zero predictor "
            f"{mais.zero_predictor_mae:.0f})",
            f"flattens after about {doc.value:.0f} games",
            _vs_cell(mais.vs_stockfish),
            f"{mais.nps:.0f} vs {speed:.0f} {doc.speed_unit}"))
    return rows


def table_related_engines(related_dir: str | os.PathLike[str],
                          out_dir: str | os.PathLike[str]) -> Artefact:
    frame = pd.DataFrame(related_rows(related_dir))
    notes = ["Every number of the 'Ours' columns is read from results/related/<kind>/ "
             "(config.json, metrics.jsonl, summary.json, vs-stockfish/summary.json); the "
             "document's numbers are the published ones. The runs are far smaller than the "
             "documents' (see each config.json's 'reduced' list), and the matches are short: "
             "read them as smoke-level evidence, not ratings."]
    stem = stems.RELATED_ENGINES
    paths = save_table(frame.set_index("Engine"), out_dir, stem,
                       "The related documents' engines as trained by the kit, vs the documents",
                       notes)
    return Artefact(stem, paths, table=frame)
