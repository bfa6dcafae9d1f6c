"""Alpha-beta search whose bounds are positions, for an evaluation that only compares.

DeepChess (``related-deepchess.md``) has no numeric evaluation: its network says which of two
positions is better, so the document's search keeps whole positions as the bounds
``alpha_pos`` and ``beta_pos``. :class:`CompareAlphaBeta` is that search, generic over a
comparator ``better(a, b)``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import chess

from chessmoe.search.alphabeta import MAX_CHECK_PLIES, noisy_moves, ordered_moves
from chessmoe.search.mcts import Limits, RootChild, SearchResult
from chessmoe.search.stops import last_iteration

__all__ = [
    "Better",
    "CompareAlphaBeta",
    "Outcome",
    "OutcomeKind",
    "lazily_ordered",
]

Better = Callable[[chess.Board, chess.Board], bool]
"""``better(a, b)``: is position ``a`` better for White than position ``b``."""

OutcomeKind = Literal["position", "white_mates", "black_mates", "draw"]
_CATEGORY = {"black_mates": -2, "draw": 0, "position": 0, "white_mates": 2}


def lazily_ordered(board: chess.Board) -> Iterator[chess.Move]:
    """``ordered_moves(board, list(board.legal_moves))``, each move made only when asked for
    (a node that is cut off stops early): the captures and promotions first, by MVV-LVA
    (every one of them scores above zero, a quiet move zero), then the quiet moves in
    generation order (the sort is stable). ``board`` may be pushed and popped between
    moves."""
    yield from ordered_moves(board, noisy_moves(board))
    for move in board.generate_legal_moves():
        if move.promotion is None and not board.is_capture(move):
            yield move


class _Aborted(Exception):
    """A limit (nodes, time, stop) was reached inside the search."""


@dataclass(frozen=True)
class Outcome:
    """A node's minimax value: the horizon position reached (``board``), or a terminal
    result ``ply`` plies below the searched position."""

    kind: OutcomeKind
    ply: int
    board: chess.Board | None = None


class CompareAlphaBeta:
    """One search at a time over ``better(a, b) -> bool``, whether ``a`` is better *for White*
    than ``b`` (White maximises, Black minimises; no negation exists for a comparison, so the
    search is minimax rather than negamax). A position better than ``alpha_pos`` becomes the
    new ``alpha_pos``, and a node whose value is better than ``beta_pos`` is pruned.

    * a node's value is a :class:`Outcome`: the position at the end of the line (a leaf at the
      search horizon), or a terminal result met on the way -- checkmate, stalemate and draws by
      rule (insufficient material, the fifty-move rule, a repetition inside the game or the line)
      are decided before the comparator is asked. A mate for White is better for White than any
      position (the sooner the better), a mate for Black worse than any; a draw is compared with
      a position through the position's colour mirror (:meth:`chess.Board.mirror`, the same
      position with the roles swapped, which is neither side's advantage): the position beats the
      draw for White exactly when ``better(position, mirror)``;
    * fail-soft alpha-beta to a fixed depth, iterated from depth 1 up to ``max_depth``; the
      previous iteration's best move is searched first, the others in MVV-LVA order
      (:func:`chessmoe.search.alphabeta.ordered_moves`); a root move searched in an unfinished
      iteration replaces the last finished iteration's choice once it beats this iteration's
      first (previous best) move;
    * ``quiescence=True`` (off by default: the document describes none) extends the horizon as
      the numeric search (:mod:`chessmoe.search.alphabeta`) does: a horizon node's own position
      stands pat as a leaf and only its captures and promotions are searched further, every
      legal move while in check for the first ``MAX_CHECK_PLIES`` checks; the stand-pat
      position cuts off or raises the bound like any value (no delta pruning: a comparison has
      no margin);
    * before the leaves below a node of depth 1 are compared, an optional ``prepare(boards)``
      hook receives them all at once (the network embeds them in one batch);
    * limits: :class:`~chessmoe.search.mcts.Limits` ``nodes`` counts *leaves* (horizon positions
      and terminal results: what the evaluation is asked about), ``movetime_ms`` and a ``stop``
      event are checked at every node; ``depth`` is the last iteration (in place of
      ``max_depth``), ``mate`` allows iterations up to ``2 mate - 1``
      (:mod:`chessmoe.search.stops`); at least one move is always returned when one is legal.

    :class:`~chessmoe.search.mcts.SearchResult` fields: ``nodes`` = leaves, ``simulations`` = calls
    of ``better`` made by the search, ``tree_nodes`` = every node visited, ``depth`` = the deepest
    finished iteration, ``value`` (side to move's view, in [-1, 1]): +-1 for a mate found, 0 for a
    draw, and otherwise ``2 p - 1`` with ``p = confidence(leaf, mirror(leaf))``, the comparator's
    probability that the principal leaf is better for White than its mirror (negated for Black to
    move): a monotone map of the comparator's confidence that the line favours the side to move.
    Without a ``confidence`` callable ``p`` is 0.75 or 0.25 by ``better``."""

    def __init__(self, better: Better, *, max_depth: int = 3,
                 confidence: Callable[[chess.Board, chess.Board], float] | None = None,
                 prepare: Callable[[Sequence[chess.Board]], None] | None = None,
                 quiescence: bool = False) -> None:
        if max_depth < 1:
            raise ValueError("max_depth is at least 1")
        self.better = better
        self.quiescence = quiescence
        self.confidence = confidence
        self.prepare = prepare
        self.max_depth = max_depth
        self.leaves = 0
        self.visited = 0
        self.comparisons = 0
        self.seldepth = 0
        self._node_limit: int | None = None
        self._deadline: float | None = None
        self._stop: threading.Event | None = None

    def new_game(self) -> None:
        """Nothing is kept between searches; here for the ``Searcher`` protocol."""

    # -- comparing outcomes --

    def _favours_white(self, board: chess.Board) -> bool:
        self.comparisons += 1
        return self.better(board, board.mirror())

    def gt(self, x: Outcome, y: Outcome) -> bool:
        """Is ``x`` strictly better for White than ``y``."""
        if x.kind == "position" and y.kind == "position":
            assert x.board is not None and y.board is not None
            self.comparisons += 1
            return self.better(x.board, y.board)
        if x.kind == "position" and y.kind == "draw":
            assert x.board is not None
            return self._favours_white(x.board)
        if x.kind == "draw" and y.kind == "position":
            assert y.board is not None
            return not self._favours_white(y.board)
        cx, cy = _CATEGORY[x.kind], _CATEGORY[y.kind]
        if cx != cy:
            return cx > cy
        if x.kind == "white_mates":
            return x.ply < y.ply
        if x.kind == "black_mates":
            return x.ply > y.ply
        return False

    # -- limits --

    def _arm(self, limits: Limits | None, stop: threading.Event | None) -> None:
        self.leaves = self.visited = self.comparisons = self.seldepth = 0
        self._stop = stop
        self._node_limit = limits.nodes if limits is not None else None
        self._deadline = (time.monotonic() + limits.movetime_ms / 1000.0
                          if limits is not None and limits.movetime_ms is not None else None)

    def _check(self, ply: int) -> None:
        if self._stop is not None and self._stop.is_set():
            raise _Aborted
        if self._deadline is not None and time.monotonic() >= self._deadline:
            raise _Aborted
        self.visited += 1
        self.seldepth = max(self.seldepth, ply)

    def _leaf(self, outcome: Outcome) -> Outcome:
        if self._node_limit is not None and self.leaves >= self._node_limit:
            raise _Aborted
        self.leaves += 1
        return outcome

    # -- the recursive search --

    def _terminal(self, board: chess.Board, ply: int) -> Outcome | None:
        if not any(board.legal_moves):
            if board.is_check():
                return Outcome("black_mates" if board.turn == chess.WHITE else "white_mates",
                               ply)
            return Outcome("draw", ply)
        if board.halfmove_clock >= 100 or board.is_insufficient_material():
            return Outcome("draw", ply)
        # a position recurs no sooner than 4 reversible plies later (python-chess's test, which
        # scans the whole game, answers no there)
        if ply > 0 and board.halfmove_clock >= 4 and board.is_repetition(2):
            return Outcome("draw", ply)
        return None

    def _bound(self, white: bool, best: Outcome, alpha: Outcome | None,
               beta: Outcome | None) -> tuple[Outcome | None, Outcome | None, bool]:
        """The mover's best so far raises its own bound (White's ``alpha``, Black's ``beta``);
        ``True``: it is better for the mover than the other side allows, so the node is cut
        (the other side avoids it)."""
        if white:
            if alpha is None or self.gt(best, alpha):
                alpha = best
            return alpha, beta, beta is not None and self.gt(best, beta)
        if beta is None or self.gt(beta, best):
            beta = best
        return alpha, beta, alpha is not None and self.gt(alpha, best)

    def _prepare_children(self, board: chess.Board, moves: Sequence[chess.Move]) -> None:
        if self.prepare is None or not moves:
            return
        children = []
        for move in moves:
            board.push(move)
            children.append(board.copy(stack=False))
            board.pop()
        self.prepare(children)

    def _quiesce(self, board: chess.Board, alpha: Outcome | None, beta: Outcome | None,
                 ply: int, checks: int) -> tuple[Outcome, list[chess.Move]]:
        """The horizon extended by captures and promotions (see the module doc)."""
        self._check(ply)
        terminal = self._terminal(board, ply)
        if terminal is not None:
            return self._leaf(terminal), []
        white = board.turn == chess.WHITE
        in_check = board.is_check()
        best: Outcome | None = None
        if in_check and checks < MAX_CHECK_PLIES:
            moves = ordered_moves(board, list(board.legal_moves))
        else:
            best = self._leaf(Outcome("position", ply, board.copy(stack=False)))
            alpha, beta, cutoff = self._bound(white, best, alpha, beta)
            if cutoff:
                return best, []
            moves = ordered_moves(board, noisy_moves(board))
        self._prepare_children(board, moves)
        best_pv: list[chess.Move] = []
        for move in moves:
            board.push(move)
            try:
                value, pv = self._quiesce(board, alpha, beta, ply + 1,
                                          checks + (1 if in_check else 0))
            finally:
                board.pop()
            if best is None or (self.gt(value, best) if white else self.gt(best, value)):
                best, best_pv = value, [move, *pv]
                alpha, beta, cutoff = self._bound(white, best, alpha, beta)
                if cutoff:
                    break
        assert best is not None  # in check with moves: the terminal test found none missing
        return best, best_pv

    def _search(self, board: chess.Board, depth: int, alpha: Outcome | None,
                beta: Outcome | None, ply: int) -> tuple[Outcome, list[chess.Move]]:
        """Minimax value of ``board`` within ``(alpha, beta)`` (White's bounds: ``alpha`` the
        best White is sure of, ``beta`` the best Black is sure of) and its line."""
        if depth <= 0 and self.quiescence:
            return self._quiesce(board, alpha, beta, ply, 0)
        self._check(ply)
        terminal = self._terminal(board, ply)
        if terminal is not None:
            return self._leaf(terminal), []
        if depth <= 0:
            return self._leaf(Outcome("position", ply, board.copy(stack=False))), []
        moves: Iterable[chess.Move]
        if depth == 1 and self.prepare is not None:
            moves = ordered_moves(board, list(board.legal_moves))
            self._prepare_children(board, moves)
        else:
            moves = lazily_ordered(board)
        white = board.turn == chess.WHITE
        best: Outcome | None = None
        best_pv: list[chess.Move] = []
        for move in moves:
            board.push(move)
            try:
                value, pv = self._search(board, depth - 1, alpha, beta, ply + 1)
            finally:
                board.pop()
            if best is None or (self.gt(value, best) if white else self.gt(best, value)):
                best, best_pv = value, [move, *pv]
                alpha, beta, cutoff = self._bound(white, best, alpha, beta)
                if cutoff:
                    break
        assert best is not None
        return best, best_pv

    # -- entry points --

    def search_depth(self, board: chess.Board, depth: int, *, limits: Limits | None = None,
                     stop: threading.Event | None = None) -> tuple[Outcome, list[chess.Move]]:
        """One full-window search of ``board`` to ``depth``: ``(value, principal line)``.
        Raises ``RuntimeError`` when a limit stops it."""
        self._arm(limits, stop)
        try:
            return self._search(board.copy(stack=True), depth, None, None, 0)
        except _Aborted:
            raise RuntimeError("search stopped by a limit") from None

    def play(self, board: chess.Board, limits: Limits, stop: threading.Event | None = None,
             on_progress: Callable[[SearchResult], None] | None = None) -> SearchResult:
        """Iterative deepening to ``max_depth`` within ``limits`` (see the module doc)."""
        start = time.monotonic()
        self._arm(limits, stop)
        work = board.copy(stack=True)
        white = work.turn == chess.WHITE
        ranking = ordered_moves(work, list(work.legal_moves))
        if not ranking:
            terminal = self._terminal(work, 0) or Outcome("draw", 0)
            return self._result(work, None, terminal, [], 0, ranking, start)
        best_move, best_value, best_pv, done = ranking[0], None, [ranking[0]], 0
        complete = True  # whether best_value weighs every root move (a loss is proven then)
        try:
            for depth in range(1, last_iteration(self.max_depth, limits) + 1):
                complete = False
                bound: Outcome | None = None
                line: list[chess.Move] = []
                searched: list[chess.Move] = []
                if depth == 1 and self.prepare is not None:
                    children = []
                    for move in ranking:
                        work.push(move)
                        children.append(work.copy(stack=False))
                        work.pop()
                    self.prepare(children)
                for move in ranking:
                    work.push(move)
                    try:
                        value, pv = self._search(work, depth - 1,
                                                 bound if white else None,
                                                 None if white else bound, 1)
                    finally:
                        work.pop()
                    searched.append(move)
                    if bound is None or (self.gt(value, bound) if white
                                         else self.gt(bound, value)):
                        bound, line = value, [move, *pv]
                        best_value, best_move, best_pv = bound, move, line
                ranking = [line[0]] + [m for m in ranking if m != line[0]]
                done, complete = depth, True
                if on_progress is not None and best_value is not None:
                    on_progress(self._result(work, best_move, best_value, best_pv, done,
                                             ranking, start))
                mine = "white_mates" if white else "black_mates"
                if best_value is not None and best_value.kind == mine:
                    break  # a forced mate: deeper iterations cannot improve on it
        except _Aborted:
            pass
        if best_value is None:  # not even one move searched: its own position stands in
            after = work.copy(stack=False)
            after.push(best_move)
            best_value = Outcome("position", 1, after)
        return self._result(work, best_move, best_value, best_pv, done, ranking, start,
                            complete)

    # -- the answer --

    def value_of(self, board: chess.Board, outcome: Outcome) -> float:
        """The module doc's value of ``outcome`` in [-1, 1], from ``board``'s side to move."""
        if outcome.kind == "draw":
            white_value = 0.0
        elif outcome.kind == "white_mates":
            white_value = 1.0
        elif outcome.kind == "black_mates":
            white_value = -1.0
        else:
            assert outcome.board is not None
            if self.confidence is not None:
                p = float(self.confidence(outcome.board, outcome.board.mirror()))
            else:
                p = 0.75 if self.better(outcome.board, outcome.board.mirror()) else 0.25
            white_value = 2.0 * p - 1.0
        return white_value if board.turn == chess.WHITE else -white_value

    def _result(self, board: chess.Board, move: chess.Move | None, outcome: Outcome,
                pv: list[chess.Move], depth: int, ranking: list[chess.Move],
                start: float, complete: bool = True) -> SearchResult:
        mate = None
        if outcome.kind in ("white_mates", "black_mates"):
            mine = outcome.kind == ("white_mates" if board.turn == chess.WHITE
                                    else "black_mates")
            if mine or complete:  # a loss is proven only when every move was weighed
                mate = outcome.ply if mine else -outcome.ply
        n = len(ranking)
        children = [RootChild(move=m, visits=n - k, q=None, prior=0.0)
                    for k, m in enumerate(ranking)]
        if move is not None and ranking and ranking[0] != move:
            order = [move] + [m for m in ranking if m != move]
            children = [RootChild(move=m, visits=n - k, q=None, prior=0.0)
                        for k, m in enumerate(order)]
        return SearchResult(move=move, value=self.value_of(board, outcome), pv=list(pv),
                            nodes=self.leaves, simulations=self.comparisons,
                            tree_nodes=self.visited, seconds=time.monotonic() - start,
                            depth=float(depth), seldepth=self.seldepth, batches=0,
                            collisions=0, children=children, reused=False, mate=mate)
