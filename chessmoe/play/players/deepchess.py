"""The DeepChess engine (``related-deepchess.md``) as a player: a position comparator steering
an alpha-beta search over positions.

:func:`build_searcher` joins the network (:mod:`chessmoe.nets.related.deepchess`) and the
comparison alpha-beta (:mod:`chessmoe.search.alphabeta_compare`), set up by :data:`OPTIONS`.
The training runs are in :mod:`chessmoe.nets.related.train_deepchess`; their one step that
searches (the search's speed in a run's summary) is :data:`SEARCH_STEPS`, which the caller
(``chessmoe related train``) passes to them. This module never imports the trainer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import chess

from chessmoe._io.errors import KitError, error_cause
from chessmoe.nets.related import RELATED_WEIGHTS, read_config
from chessmoe.nets.related.deepchess import DeepChessNet, Shape, load_weights
from chessmoe.nets.related.deepchess_fast import FastComparator
from chessmoe.play.engine import Searcher
from chessmoe.play.players import ENGINE_OPTIONS, EngineOption, weights_note
from chessmoe.search.alphabeta_compare import CompareAlphaBeta
from chessmoe.search.mcts import Limits, SearchResult

__all__ = ["OPTIONS", "SEARCH_STEPS", "DeepChessPlayer", "TrainingSearch", "build_searcher"]

WEIGHTS = RELATED_WEIGHTS["deepchess"]
OPTIONS: tuple[EngineOption, ...] = ENGINE_OPTIONS["deepchess"]  # declared beside the others


# --- the player -----------------------------------------------------------------------------


class DeepChessPlayer:
    """The document's engine: alpha-beta over positions, leaves compared by the network
    (:class:`~chessmoe.nets.related.deepchess_fast.FastComparator`: in numpy, a position
    embedded when first compared, embeddings and answers cached per position).

    Its values are a comparator's confidence, not a calibrated evaluation
    (``scores_calibrated``), so in in-process matches it records no score except for a mate it
    found: no resignation or draw adjudication ever rests on its numbers. The UCI front end
    alone reports the confidence, as its logistic Elo
    (:func:`~chessmoe.play.engine.confidence_to_cp`), because managers expect a score."""

    scores_calibrated = False

    def __init__(self, net: DeepChessNet, *, depth: int = 3, loaded: str = "",
                 quiescence: bool = False) -> None:
        self.loaded = loaded
        self.comparator = FastComparator(net)
        self.search = CompareAlphaBeta(self.comparator.better, max_depth=depth,
                                       confidence=self.comparator.probability,
                                       prepare=self.comparator.prepare, quiescence=quiescence)

    def play(self, board: chess.Board, limits: Limits, stop: threading.Event | None = None,
             on_progress: Callable[[SearchResult], None] | None = None) -> SearchResult:
        return self.search.play(board, limits, stop=stop, on_progress=on_progress)

    def new_game(self) -> None:
        self.comparator.clear()


def build_searcher(model_dir: Path | None, *, threads: int = 1,
                   options: Mapping[str, Any] | None = None) -> Searcher:
    """A :class:`DeepChessPlayer` with the weights and shape of ``model_dir`` (a run), its
    search as deep as ``options["Depth"]`` (0: the run's ``search_depth``)."""
    import torch

    from chessmoe.play.players import resolve_options, run_files

    path, config_path = run_files("deepchess", model_dir, WEIGHTS, "config.json")
    config = read_config(config_path)
    try:
        shape = Shape(pos2vec=tuple(config["pos2vec"]), head=tuple(config["head"]))
        search_depth = int(config["search_depth"])
    except (KeyError, TypeError, ValueError) as error:
        raise KitError(f"{config_path} does not describe a DeepChess run "
                       f"({error_cause(error)})") from None
    torch.set_num_threads(max(1, threads))
    values = resolve_options("deepchess", options)
    depth = int(values["Depth"]) or search_depth
    quiescence = bool(values["Quiescence"])
    note = weights_note(path) + (", quiescence" if quiescence else "")
    return DeepChessPlayer(load_weights(path, shape), depth=depth, loaded=note,
                           quiescence=quiescence)


# --- what training needs of the search ------------------------------------------------------


class TrainingSearch:
    """The training's search step (:class:`chessmoe.nets.related.train_deepchess.SearchSteps`):
    the player's speed with a network in training."""

    def speed(self, net: DeepChessNet, boards: Sequence[chess.Board], *, depth: int,
              nodes: int) -> dict[str, Any]:
        """Leaves per second over ``boards``, each searched afresh with ``nodes`` leaves
        at most ``depth`` plies deep, on one thread."""
        player = DeepChessPlayer(net, depth=depth)
        leaves = comparisons = 0
        seconds = finished_depth = 0.0
        for board in boards:
            player.new_game()
            result = player.play(board, Limits(nodes=nodes))
            leaves += result.nodes
            comparisons += result.simulations
            seconds += result.seconds
            finished_depth += result.depth
        return {"nps": leaves / seconds if seconds > 0 else 0.0,
                "comparisons_per_second": comparisons / seconds if seconds > 0 else 0.0,
                "nps_unit": "leaves (horizon positions and terminal results) per second",
                "nps_positions": len(boards), "nps_nodes_per_search": nodes,
                "nps_mean_finished_depth": finished_depth / max(1, len(boards)),
                "nps_threads": 1}


SEARCH_STEPS = TrainingSearch()
"""What :func:`chessmoe.nets.related.train_deepchess.train` is given as ``search``."""
