"""The kit's MCTS player and the score convention shared by the UCI engine and matches.

:class:`Player` turns positions into moves with :class:`~chessmoe.search.mcts.MCTS` and keeps the
tree between moves; :func:`build_evaluator` turns the UCI options into an evaluator.

Scores: a search value ``v`` in [-1, 1] (side to move) is reported as centipawns
``cp = round(111.714640912 * tan(1.5620688421 * v))``, clipped to +-10000 (the mapping Lc0
uses; monotonic, 0 at 0, about 100 cp at v = 0.5).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import chess

from chessmoe.search.mcts import (
    MCTS,
    Evaluator,
    Limits,
    SearchConfig,
    SearchResult,
    UniformEvaluator,
)

if TYPE_CHECKING:
    from chessmoe.play.uci import EngineOptions

__all__ = ["Player", "build_evaluator", "cp_to_value", "value_to_cp"]

_CP_SCALE = 111.714640912
_CP_SHAPE = 1.5620688421


def value_to_cp(value: float) -> int:
    """Centipawns of a search value in [-1, 1] (monotonic, clipped to +-10000)."""
    value = max(-1.0, min(1.0, value))
    return int(max(-10000, min(10000, round(_CP_SCALE * math.tan(_CP_SHAPE * value)))))


def cp_to_value(cp: float) -> float:
    """Inverse of :func:`value_to_cp` (within rounding)."""
    return math.atan(cp / _CP_SCALE) / _CP_SHAPE


# --- player -------------------------------------------------------------------------------


@dataclass
class Player:
    """Chooses moves with MCTS; remembers its tree across the moves of one game."""

    evaluator: Evaluator
    config: SearchConfig = field(default_factory=SearchConfig)
    search: MCTS = field(init=False)

    def __post_init__(self) -> None:
        self.search = MCTS(self.evaluator, self.config)

    def play(self, board: chess.Board, limits: Limits, stop: threading.Event | None = None,
             on_progress: Callable[[SearchResult], None] | None = None) -> SearchResult:
        return self.search.search(board, limits, stop=stop, on_progress=on_progress)

    def new_game(self) -> None:
        self.search.new_game()


def build_evaluator(options: EngineOptions) -> tuple[Evaluator, str]:
    """The evaluator the options describe, and a line saying what was loaded."""
    import torch

    from chessmoe.search.experts import default_bundles, mixture_from_bundle, network_from_dir

    torch.set_num_threads(options.Threads)  # small search batches: more threads only contend
    if options.Uniform:
        return UniformEvaluator(), "evaluator: uniform (no network: value 0, uniform priors)"
    experts = options.Model_Directory
    baseline = options.Baseline_Directory or None
    if not experts:
        default_experts, default_baseline = default_bundles()
        if default_experts is None:
            return UniformEvaluator(), ("evaluator: uniform (no --experts given and the kit's "
                                        "committed small experts are not in this checkout)")
        experts = str(default_experts)
        baseline = baseline or (str(default_baseline) if default_baseline else None)
    path = Path(experts)
    if (path / "manifest.json").exists():
        import json

        manifest = json.loads((path / "manifest.json").read_text())
        if manifest.get("regime") == "regular":
            net = network_from_dir(path, device=options.Device,
                                   backend=options.Backend,  # type: ignore[arg-type]
                                   threads=options.Threads)
            return net, f"evaluator: single network {path}"
    single = options.Single_Expert if options.Single_Expert >= 0 else None
    mixture = mixture_from_bundle(path, routing=options.Routing,
                                  gate=options.Phase_Definition or None,
                                  single_expert=single, baseline=baseline,
                                  device=options.Device,
                                  backend=options.Backend,  # type: ignore[arg-type]
                                  threads=options.Threads)
    what = (f"evaluator: mixture of {len(mixture.experts)} experts from {path} "
            f"(gate {mixture.definition.name}, routing {mixture.routing}"
            + (f", only phase {single}'s expert, baseline elsewhere" if single is not None
               else "") + ")")
    return mixture, what


