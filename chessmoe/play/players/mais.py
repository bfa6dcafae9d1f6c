"""The MAIS 202 engine (``related-selfplay-value-search.md``) as a player: a self-play value
network steering a best-first search.

:func:`build_searcher` joins the network (:mod:`chessmoe.nets.related.mais`) and the
best-first search (:mod:`chessmoe.search.bestfirst`), set up by :data:`OPTIONS`. The
self-play training runs are in :mod:`chessmoe.nets.related.train_mais`; what they need of the
search (its settings, recorded in a run's config, and its speed, in its summary) is
:data:`SEARCH_STEPS`, which the caller (``chessmoe related train``) passes to them. This
module never imports the trainer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import chess

from chessmoe.nets.related import RELATED_WEIGHTS
from chessmoe.nets.related.mais import MaisNet, load_weights, predict
from chessmoe.play.engine import Searcher
from chessmoe.play.players import ENGINE_OPTIONS, EngineOption, weights_note
from chessmoe.search.bestfirst import BestFirst, BestFirstConfig
from chessmoe.search.mcts import Limits, SearchResult

__all__ = ["OPTIONS", "SEARCH_STEPS", "MaisPlayer", "TrainingSearch", "build_searcher"]

WEIGHTS = RELATED_WEIGHTS["mais"]
OPTIONS: tuple[EngineOption, ...] = ENGINE_OPTIONS["mais"]  # declared beside the others


# --- the player -----------------------------------------------------------------------------


class MaisPlayer:
    """The document's engine: best-first search over the trained network (one batch per
    expansion)."""

    def __init__(self, model: MaisNet, config: BestFirstConfig | None = None, *,
                 loaded: str = "") -> None:
        self.model = model
        self.loaded = loaded
        self.search = BestFirst(lambda boards: predict(model, boards), config)

    def play(self, board: chess.Board, limits: Limits, stop: threading.Event | None = None,
             on_progress: Callable[[SearchResult], None] | None = None) -> SearchResult:
        return self.search.search(board, limits, stop=stop, on_progress=on_progress)

    def new_game(self) -> None:
        self.search.new_game()


def build_searcher(model_dir: Path | None, *, threads: int = 1,
                   options: Mapping[str, Any] | None = None) -> Searcher:
    """A :class:`MaisPlayer` with the weights of ``model_dir`` (a run directory), its search's
    delta ``options["Delta_Percent"] / 100``."""
    import torch

    from chessmoe.play.players import run_files

    (path,) = run_files("mais", model_dir, WEIGHTS)
    torch.set_num_threads(max(1, threads))
    delta = int((options or {}).get("Delta_Percent", 30)) / 100.0
    return MaisPlayer(load_weights(path), BestFirstConfig(delta=delta), loaded=weights_note(path))


# --- what training needs of the search ------------------------------------------------------


class TrainingSearch:
    """The training's search steps (:class:`chessmoe.nets.related.train_mais.SearchSteps`):
    the best-first search's default settings and its speed with a network in training."""

    def settings(self) -> dict[str, Any]:
        return asdict(BestFirstConfig())

    def speed(self, model: MaisNet, boards: Sequence[chess.Board], *,
              nodes: int) -> dict[str, Any]:
        """Positions evaluated per second over ``boards``, ``nodes`` nodes a search, one
        player for them all, on one thread."""
        player = MaisPlayer(model)
        evaluated = 0
        seconds = 0.0
        for board in boards:
            result = player.play(board, Limits(nodes=nodes))
            evaluated += result.nodes
            seconds += result.seconds
        return {"nps": evaluated / seconds if seconds > 0 else 0.0,
                "nps_positions": len(boards), "nps_nodes_per_search": nodes,
                "nps_threads": 1}


SEARCH_STEPS = TrainingSearch()
"""What :func:`chessmoe.nets.related.train_mais.train` is given as ``search``."""
