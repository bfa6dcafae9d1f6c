"""The comparison-trained n-tuple engine (``related-comparison-training-ntuple.md``) as a player.

:func:`build_searcher` joins the tapered linear + 2-tuple evaluation
(:mod:`chessmoe.nets.related.ntuple`, integer play weights under the material constraint)
with the alpha-beta search (:mod:`chessmoe.search.alphabeta`). :func:`train` samples
positions from the Lichess excerpt, labels them with Stockfish's best move (cached), and
runs the document's d-ply comparison training with the search's principal leaves, writing a
run directory: ``weights.npz`` + ``config.json`` (the trained weights), ``untrained/`` (the
document's start: material only, for the trained-vs-untrained match), ``metrics.jsonl``
(held-out agreement with Stockfish's move per iteration) and ``provenance.json``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import chess

from chessmoe._io.errors import KitError
from chessmoe._io.external import StockfishNotFound, find_stockfish
from chessmoe._io.fsutil import atomic_write_json, sha256_file
from chessmoe._io.jsonl import append_record
from chessmoe._io.provenance import provenance
from chessmoe.games.pgn import PgnFilters, iter_games
from chessmoe.nets.related.ntuple import (
    LabelledPosition,
    NtupleEvaluator,
    NtupleWeights,
    TrainConfig,
    config_record,
    label_positions,
    load_weights,
    sample_positions,
    save_weights,
    train_comparison,
)
from chessmoe.play.engine import Searcher
from chessmoe.search.alphabeta import AlphaBeta, principal_leaf
from chessmoe.search.mcts import Limits, SearchResult

__all__ = ["PROFILES", "NtupleSearcher", "build_searcher", "find_excerpt", "train"]


PROFILES: dict[str, TrainConfig] = {
    "smoke": TrainConfig(positions=12, held_out=6, depth=1, iterations=1, label_nodes=500,
                         per_game=3),
    "small": TrainConfig(positions=2000, held_out=300, depth=1, iterations=3,
                         label_nodes=20000),
}


@dataclass
class NtupleSearcher:
    """Alpha-beta over the n-tuple evaluation (no state kept between moves)."""

    evaluator: NtupleEvaluator
    description: str = ""

    def __post_init__(self) -> None:
        self.search = AlphaBeta(self.evaluator)

    def play(self, board: chess.Board, limits: Limits, stop: threading.Event | None = None,
             on_progress: Callable[[SearchResult], None] | None = None) -> SearchResult:
        return self.search.play(board, limits, stop=stop, on_progress=on_progress)

    def new_game(self) -> None:
        pass


def build_searcher(model_dir: Path | None, *, threads: int = 1) -> Searcher:
    """The engine with the weights of ``model_dir`` (``None``: the document's untrained
    start, material only). ``threads`` is accepted for the common interface; the search
    is single-threaded."""
    del threads
    if model_dir is None:
        return NtupleSearcher(NtupleEvaluator(NtupleWeights.initial()), "untrained")
    weights, config = load_weights(Path(model_dir))
    train_config = config.get("train")
    tuples = bool(train_config.get("tuples", True)) if isinstance(train_config, dict) else True
    return NtupleSearcher(NtupleEvaluator(weights, tuples=tuples), str(model_dir))


def find_excerpt(data_dir: Path | None) -> Path:
    """The Lichess excerpt: under ``data_dir``, else in the data directory (``data/``), else
    (no ``data_dir`` named) the kit's embedded self-play sample, as the other engines do."""
    from chessmoe.games.sources import lichess_excerpt

    return lichess_excerpt(data_dir, or_sample=True)


def _games(path: Path) -> Iterator[tuple[int, list[str]]]:
    filters = PgnFilters(require_termination=False)
    for game in iter_games(path, filters=filters, extract=lambda b: b.fen()):
        yield game.ordinal, game.boards


def train(out_dir: Path, *, profile: str, data_dir: Path | None) -> Path:
    """Comparison training at ``profile`` ("smoke": seconds; "small": CPU minutes) into
    ``out_dir``; Stockfish labels are cached in ``out_dir/labels.jsonl``."""
    if profile not in PROFILES:
        raise KitError(f"unknown profile {profile!r}: one of {', '.join(PROFILES)}")
    config = PROFILES[profile]
    try:
        stockfish = find_stockfish()
    except StockfishNotFound as error:
        raise KitError(f"n-tuple training labels positions with Stockfish: {error}") from None
    excerpt = find_excerpt(data_dir)
    progress = profile != "smoke"
    out_dir.mkdir(parents=True, exist_ok=True)
    train_fens, held_fens = sample_positions(_games(excerpt), config)
    labels = label_positions(train_fens + held_fens, out_dir / "labels.jsonl",
                             stockfish=stockfish, nodes=config.label_nodes,
                             progress=progress)
    train_set = [LabelledPosition(fen, labels[fen]) for fen in train_fens]
    held_out = [LabelledPosition(fen, labels[fen]) for fen in held_fens]
    metrics_path = out_dir / "metrics.jsonl"
    metrics_path.unlink(missing_ok=True)  # one run's metrics (labels stay cached)

    def log(record: dict[str, float]) -> None:
        append_record(metrics_path, record)
        if progress:
            print(f"ntuple: {record}", flush=True)

    outcome = train_comparison(train_set, held_out, config, principal_leaf,
                               on_iteration=log, progress=progress)
    data = {"file": excerpt.name, "sha256": sha256_file(excerpt),
            "train_positions": len(train_set), "held_out_positions": len(held_out),
            "labels": f"Stockfish ({stockfish}) best move at {config.label_nodes} nodes"}
    save_weights(out_dir / "untrained", NtupleWeights.initial(),
                 config_record(replace(config, iterations=0), profile=profile,
                               note="the document's start: Table I material, all else 0"))
    save_weights(out_dir, outcome.weights,
                 config_record(config, profile=profile, best_iteration=outcome.best_iteration,
                               data=data))
    atomic_write_json(out_dir / "provenance.json",
                      provenance(profile=profile, config=asdict(config), data=data,
                                 stockfish=str(stockfish)))
    return out_dir
