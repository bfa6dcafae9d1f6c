"""The kit's MCTS player and the score convention shared by the UCI engine and matches.

:class:`Player` turns positions into moves with a tree search (the compiled one by default,
:mod:`chessmoe.search.kinds`) and keeps the tree between moves; its evaluator comes from an
:class:`~chessmoe.search.evaluators.EvaluatorSpec`.

Scores: a search value ``v`` in [-1, 1] (side to move) is reported as centipawns
``cp = round(111.714640912 * tan(1.5620688421 * v))``, clipped to +-10000 (the mapping Lc0
uses; monotonic, 0 at 0, about 100 cp at v = 0.5). A comparator's confidence (DeepChess) is no
such value: the UCI front end alone reports it through :func:`confidence_to_cp`, the logistic
Elo of the confidence, which is not an evaluation comparable to the others'.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import chess

from chessmoe.elo import elo_from_score
from chessmoe.search.kinds import DEFAULT_SEARCH, make_search
from chessmoe.search.mcts import (
    Evaluator,
    Limits,
    SearchConfig,
    SearchResult,
    TreeSearch,
)

__all__ = ["CP_BOUND", "Player", "Searcher", "confidence_to_cp", "cp_to_value", "value_to_cp"]

CP_BOUND = 10000
"""The largest ``score cp`` reported, either way (a proven mate is ``score mate``)."""
_CP_SCALE = 111.714640912
_CP_SHAPE = 1.5620688421


def value_to_cp(value: float) -> int:
    """Centipawns of a search value in [-1, 1] (monotonic, clipped to +-10000)."""
    value = max(-1.0, min(1.0, value))
    return int(max(-CP_BOUND, min(CP_BOUND, round(_CP_SCALE * math.tan(_CP_SHAPE * value)))))


def confidence_to_cp(value: float) -> int:
    """The ``score cp`` of a comparator's value ``v = 2 p - 1`` in [-1, 1] (DeepChess:
    ``p`` is the comparator's confidence that the principal leaf favours the side to move,
    :class:`~chessmoe.search.alphabeta_compare.CompareAlphaBeta`): the logistic Elo of ``p``,
    ``-400 log10(1/p - 1)`` (:func:`chessmoe.elo.elo_from_score`), rounded and clipped to
    +-:data:`CP_BOUND`. Monotonic, 0 at an even confidence, +-191 at p = 0.75 / 0.25; a
    confidence, not an evaluation comparable to :func:`value_to_cp`'s."""
    p = (1.0 + max(-1.0, min(1.0, value))) / 2.0
    return int(max(-CP_BOUND, min(CP_BOUND, round(max(-1e9, min(1e9, elo_from_score(p)))))))


def cp_to_value(cp: float) -> float:
    """Inverse of :func:`value_to_cp` (within rounding)."""
    return math.atan(cp / _CP_SCALE) / _CP_SHAPE


# --- player -------------------------------------------------------------------------------


class Searcher(Protocol):
    """What the UCI front end and matches ask of any engine: a move for a position within
    limits, stoppable, reporting progress; state (a tree, a cache) may live across the moves
    of one game until :meth:`new_game`. :class:`Player` (the paper's MCTS) is one; the
    related documents' engines (:mod:`chessmoe.play.players`) are the others."""

    def play(self, board: chess.Board, limits: Limits, stop: threading.Event | None = None,
             on_progress: Callable[[SearchResult], None] | None = None) -> SearchResult: ...

    def new_game(self) -> None: ...


@dataclass
class Player:
    """Chooses moves with MCTS (``search_kind``: ``native``, the compiled search, or
    ``python``, the reference); remembers its tree across the moves of one game."""

    evaluator: Evaluator
    config: SearchConfig = field(default_factory=SearchConfig)
    search_kind: str = DEFAULT_SEARCH
    search: TreeSearch = field(init=False)

    def __post_init__(self) -> None:
        self.search = make_search(self.evaluator, self.config, self.search_kind)

    def play(self, board: chess.Board, limits: Limits, stop: threading.Event | None = None,
             on_progress: Callable[[SearchResult], None] | None = None) -> SearchResult:
        return self.search.search(board, limits, stop=stop, on_progress=on_progress)

    def new_game(self) -> None:
        self.search.new_game()
