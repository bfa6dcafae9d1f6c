"""The comparison-trained n-tuple engine (``related-comparison-training-ntuple.md``) as a
player.

:func:`build_searcher` joins the tapered linear + 2-tuple evaluation
(:mod:`chessmoe.nets.related.ntuple`), or the PeSTO tables, with the alpha-beta search
(:mod:`chessmoe.search.alphabeta`), set up by :data:`OPTIONS` (UCI options of ``chessmoe uci
--player ntuple``, ``PlayerSpec.options`` of a match). The training runs are in
:mod:`chessmoe.nets.related.train_ntuple`; the d-ply search they compare each move through is
:data:`SEARCH_STEPS`, which the caller (``chessmoe related train``) passes to them. This
module never imports the trainer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess

from chessmoe.nets.related.ntuple import LeafSearch, NtupleEvaluator, load_weights, start_weights
from chessmoe.nets.related.pesto import PestoEvaluator
from chessmoe.play.engine import Searcher
from chessmoe.play.players import ENGINE_OPTIONS, EngineOption, run_files, weights_note
from chessmoe.search.alphabeta import AlphaBeta, principal_leaf
from chessmoe.search.mcts import Limits, SearchResult

__all__ = ["OPTIONS", "SEARCH_STEPS", "NtupleSearcher", "build_searcher"]

OPTIONS: tuple[EngineOption, ...] = ENGINE_OPTIONS["ntuple"]  # declared beside the others


@dataclass
class NtupleSearcher:
    """Alpha-beta over the n-tuple (or PeSTO) evaluation (no state kept between moves);
    ``loaded`` says which weights or tables it evaluates with."""

    evaluator: Callable[[chess.Board], float]
    description: str = ""
    depth: int = 64
    loaded: str = field(default="")
    quiescence: bool = True

    def __post_init__(self) -> None:
        self.search = AlphaBeta(self.evaluator, max_depth=self.depth,
                                quiescence=self.quiescence)

    def play(self, board: chess.Board, limits: Limits, stop: threading.Event | None = None,
             on_progress: Callable[[SearchResult], None] | None = None) -> SearchResult:
        return self.search.play(board, limits, stop=stop, on_progress=on_progress)

    def new_game(self) -> None:
        pass


def build_searcher(model_dir: Path | None, *, threads: int = 1,
                   options: Mapping[str, Any] | None = None) -> Searcher:
    """The engine set up by ``options`` (:data:`OPTIONS`): with ``Evaluation=weights`` the
    weights of ``model_dir`` (none there, or ``model_dir`` ``None``: a :class:`KitError`,
    never a stand-in evaluation), else the PeSTO tables or the Table I material whatever
    ``model_dir`` is. ``threads`` is accepted for the common interface; the search is
    single-threaded."""
    del threads
    values = {o.name: o.default for o in OPTIONS} | dict(options or {})
    depth = int(values["Depth"])
    evaluation = str(values["Evaluation"])
    quiet = bool(values["Quiescence"])
    flat = "" if quiet else ", no quiescence"
    if evaluation == "pesto":
        return NtupleSearcher(PestoEvaluator(), "pesto", depth,
                              f"evaluation pesto (the kit's PeSTO tables, no weights file){flat}",
                              quiet)
    if evaluation == "material":
        return NtupleSearcher(NtupleEvaluator(start_weights("material")), "untrained", depth,
                              f"evaluation material (Table I start, no weights file){flat}",
                              quiet)
    run = run_files("ntuple", model_dir, "weights.npz", "config.json")[0].parent
    weights, config = load_weights(run)
    train_config = config.get("train")
    tuples = bool(train_config.get("tuples", True)) if isinstance(train_config, dict) else True
    return NtupleSearcher(NtupleEvaluator(weights, tuples=tuples), str(run), depth,
                          weights_note(run / "weights.npz") + flat, quiet)


SEARCH_STEPS: LeafSearch = principal_leaf
"""What :func:`chessmoe.nets.related.train_ntuple.train` is given as ``search``: the
principal leaf of a d-ply alpha-beta + quiescence search."""
