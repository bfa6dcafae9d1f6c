"""Negamax alpha-beta with quiescence and iterative deepening, over any evaluation callable.

The comparison-training document (``related-comparison-training-ntuple.md``) plays and
trains a linear evaluation inside a classical game-tree search: :class:`AlphaBeta` is that
search, generic over ``evaluate(board) -> centipawns`` from the side to move (no network, no
tree kept), and :func:`principal_leaf` the leaf its d-ply comparison training compares.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import chess

from chessmoe.search.mcts import Limits, RootChild, SearchResult
from chessmoe.search.stops import last_iteration

__all__ = [
    "MATE_SCORE",
    "MAX_CHECK_PLIES",
    "AlphaBeta",
    "Evaluate",
    "Leaf",
    "SearchAborted",
    "cp_to_value",
    "noisy_moves",
    "ordered_moves",
    "principal_leaf",
]

Evaluate = Callable[[chess.Board], float]
"""Static evaluation: centipawns from the side to move's point of view."""

MATE_SCORE = 100_000.0  # a mate in n plies scores MATE_SCORE - n (side to move: negative)
MAX_CHECK_PLIES = 2  # quiescence plies in which a side in check searches all evasions
DELTA_MARGIN = 200.0  # centipawns: delta pruning's safety margin
_CP_VALUE = {chess.PAWN: 100.0, chess.KNIGHT: 300.0, chess.BISHOP: 300.0, chess.ROOK: 500.0,
             chess.QUEEN: 900.0, chess.KING: 0.0}
_CP_SCALE = 111.714640912  # chessmoe.play.engine's mapping (Lc0's), repeated here
_CP_SHAPE = 1.5620688421
_PIECE_ORDER = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5,
                chess.QUEEN: 9, chess.KING: 10}


def cp_to_value(cp: float) -> float:
    """Centipawns -> value in [-1, 1] (inverse of ``chessmoe.play.engine.value_to_cp``)."""
    return max(-1.0, min(1.0, math.atan(cp / _CP_SCALE) / _CP_SHAPE))


class SearchAborted(Exception):
    """A limit (nodes, time, stop) was reached inside a search."""


@dataclass(frozen=True)
class Leaf:
    """The end of a principal variation: its position, the moves that reach it from the
    searched position and the negamax value (centipawns, the searched position's side to
    move). ``terminal`` when the leaf is mate or a draw by rule (its value is a constant,
    not the evaluation's)."""

    board: chess.Board
    pv: tuple[chess.Move, ...]
    value: float
    terminal: bool


def _victim_value(board: chess.Board, move: chess.Move) -> int:
    if board.is_en_passant(move):
        return _PIECE_ORDER[chess.PAWN]
    piece = board.piece_type_at(move.to_square)
    return _PIECE_ORDER[piece] if piece else 0


def ordered_moves(board: chess.Board, moves: list[chess.Move],
                  first: chess.Move | None = None) -> list[chess.Move]:
    """``moves`` with ``first`` (a PV move) in front, then captures by MVV-LVA (victim value
    x 16 minus attacker value), promotions, then the rest in generation order."""
    def key(move: chess.Move) -> int:
        if move == first:
            return -1_000_000
        score = 0
        if board.is_capture(move):
            attacker = board.piece_type_at(move.from_square) or chess.PAWN
            score += 1000 + 16 * _victim_value(board, move) - _PIECE_ORDER[attacker]
        if move.promotion:
            score += 500 + _PIECE_ORDER.get(move.promotion, 0)
        return -score
    return sorted(moves, key=key)


def _gain(board: chess.Board, move: chess.Move) -> float:
    """The nominal material a capture or promotion wins (centipawns)."""
    if board.is_en_passant(move):
        gain = _CP_VALUE[chess.PAWN]
    else:
        victim = board.piece_type_at(move.to_square)
        gain = _CP_VALUE[victim] if victim else 0.0
    if move.promotion:
        gain += _CP_VALUE[move.promotion] - _CP_VALUE[chess.PAWN]
    return gain


def _noisy(board: chess.Board, move: chess.Move) -> bool:
    return board.is_capture(move) or move.promotion is not None


def noisy_moves(board: chess.Board) -> list[chess.Move]:
    """The legal captures and promotions of ``board``, in legal-move generation order:
    ``[m for m in board.legal_moves if capture or promotion]``, but generated only towards
    squares a capture or promotion can reach (the opponent's pieces, the en-passant square,
    the last rank when a pawn stands one step before it), which python-chess yields as the
    same subsequence."""
    if board.turn == chess.WHITE:
        last, before = chess.BB_RANK_8, chess.BB_RANK_7
    else:
        last, before = chess.BB_RANK_1, chess.BB_RANK_2
    targets = board.occupied_co[not board.turn]
    if board.pawns & board.occupied_co[board.turn] & before:
        targets |= last
    if board.ep_square is not None:
        targets |= chess.BB_SQUARES[board.ep_square]
    return [m for m in board.generate_legal_moves(chess.BB_ALL, targets) if _noisy(board, m)]


class AlphaBeta:
    """One search at a time over ``evaluate``; ``quiescence=False`` scores depth-0 nodes
    with the static evaluation directly (tests compare it with plain minimax).

    * negamax alpha-beta (fail-soft) to a nominal depth, then a quiescence search: stand pat
      on the static evaluation, then captures and promotions only; a side in check may not
      stand pat and searches every evasion (at most :data:`MAX_CHECK_PLIES` such plies deep);
    * iterative deepening with the previous iteration's principal variation searched first,
      other moves ordered by MVV-LVA (captures, most valuable victim / least valuable
      attacker), promotions, then quiet moves;
    * terminal scores: mate ``-(MATE_SCORE - ply)`` for the side to move, draws 0 for
      stalemate, insufficient material, the fifty-move rule and a repetition inside the game
      or the search line;
    * limits: :class:`~chessmoe.search.mcts.Limits` ``nodes`` (every visited node counts, the
      quiescence ones included), ``movetime_ms`` and a ``stop`` event, checked at every node;
      ``depth`` (the last iteration, in place of ``max_depth``) and ``mate`` (iterations up to
      ``2 mate - 1``; :mod:`chessmoe.search.stops`); a mate found ends the deepening;
      the answer is the best move of the deepest iteration finished (or of the unfinished one
      when it already improved on it).

    ``delta_margin`` (centipawns; ``None``: off) is delta pruning in the quiescence search:
    a capture is skipped when the stand-pat score plus the captured piece's nominal value
    (100/300/300/500/900; a promotion adds the new piece less a pawn) plus the margin
    cannot reach alpha."""

    def __init__(self, evaluate: Evaluate, *, quiescence: bool = True,
                 delta_margin: float | None = DELTA_MARGIN, max_depth: int = 64) -> None:
        self.evaluate = evaluate
        self.quiescence = quiescence
        self.delta_margin = delta_margin
        self.max_depth = max_depth
        self.nodes = 0
        self.seldepth = 0
        self._node_limit: int | None = None
        self._deadline: float | None = None
        self._stop: threading.Event | None = None

    # -- limits --

    def _count(self, ply: int) -> None:
        if self._node_limit is not None and self.nodes >= self._node_limit:
            raise SearchAborted
        if self._stop is not None and self._stop.is_set():
            raise SearchAborted
        if self._deadline is not None and (self.nodes & 15) == 0 \
                and time.monotonic() >= self._deadline:
            raise SearchAborted
        self.nodes += 1
        if ply > self.seldepth:
            self.seldepth = ply

    def _arm(self, limits: Limits | None, stop: threading.Event | None) -> None:
        self.nodes = 0
        self.seldepth = 0
        self._stop = stop
        self._node_limit = limits.nodes if limits is not None else None
        self._deadline = (time.monotonic() + limits.movetime_ms / 1000.0
                          if limits is not None and limits.movetime_ms is not None else None)

    # -- the recursive searches --

    @staticmethod
    def _rule_draw(board: chess.Board, ply: int) -> bool:
        if board.halfmove_clock >= 100 or board.is_insufficient_material():
            return True
        return ply > 0 and board.is_repetition(2)

    def _qsearch(self, board: chess.Board, alpha: float, beta: float, ply: int,
                 checks: int) -> tuple[float, list[chess.Move], bool]:
        """Quiescence: ``(value, pv, terminal)`` from the side to move."""
        self._count(ply)
        in_check = board.is_check()
        best_pv: list[chess.Move] = []
        if in_check and checks < MAX_CHECK_PLIES:
            moves = list(board.legal_moves)
            if not moves:
                return -(MATE_SCORE - ply), [], True
            best, best_terminal = -math.inf, False
        else:
            if in_check and not any(board.legal_moves):
                return -(MATE_SCORE - ply), [], True
            if board.is_insufficient_material():
                return 0.0, [], True
            stand = float(self.evaluate(board))
            if stand >= beta:
                return stand, [], False
            best, best_terminal = stand, False
            alpha = max(alpha, stand)
            moves = noisy_moves(board)
            if self.delta_margin is not None:
                floor = alpha - stand - self.delta_margin
                moves = [m for m in moves if _gain(board, m) > floor]
        for move in ordered_moves(board, moves):
            board.push(move)
            try:
                value, pv, terminal = self._qsearch(board, -beta, -alpha, ply + 1,
                                                    checks + (1 if in_check else 0))
            finally:
                board.pop()
            value = -value
            if value > best:
                best, best_pv, best_terminal = value, [move, *pv], terminal
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best, best_pv, best_terminal

    def _negamax(self, board: chess.Board, depth: int, alpha: float, beta: float, ply: int,
                 pv_hint: list[chess.Move]) -> tuple[float, list[chess.Move], bool]:
        """Alpha-beta to ``depth`` then quiescence: ``(value, pv, terminal)``."""
        if depth <= 0:
            if self.quiescence:
                return self._qsearch(board, alpha, beta, ply, 0)
            self._count(ply)
            if not any(board.legal_moves):
                return (-(MATE_SCORE - ply) if board.is_check() else 0.0), [], True
            if self._rule_draw(board, ply):
                return 0.0, [], True
            return float(self.evaluate(board)), [], False
        self._count(ply)
        moves = list(board.legal_moves)
        if not moves:
            return (-(MATE_SCORE - ply) if board.is_check() else 0.0), [], True
        if self._rule_draw(board, ply):
            return 0.0, [], True
        best, best_pv, best_terminal = -math.inf, [], False
        hint = pv_hint[0] if pv_hint else None
        for move in ordered_moves(board, moves, hint):
            board.push(move)
            try:
                value, pv, terminal = self._negamax(
                    board, depth - 1, -beta, -alpha, ply + 1,
                    pv_hint[1:] if move == hint else [])
            finally:
                board.pop()
            value = -value
            if value > best:
                best, best_pv, best_terminal = value, [move, *pv], terminal
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best, best_pv, best_terminal

    # -- entry points --

    def search_depth(self, board: chess.Board, depth: int, *, limits: Limits | None = None,
                     stop: threading.Event | None = None,
                     pv_hint: list[chess.Move] | None = None
                     ) -> tuple[float, list[chess.Move], bool]:
        """One full-window search of ``board`` to ``depth`` (0: quiescence only):
        ``(value in centipawns, principal variation, whether its leaf is terminal)``.
        Raises :class:`SearchAborted` when a limit is reached."""
        self._arm(limits, stop)
        work = board.copy(stack=True)
        return self._negamax(work, depth, -math.inf, math.inf, 0, pv_hint or [])

    def play(self, board: chess.Board, limits: Limits, stop: threading.Event | None = None,
             on_progress: Callable[[SearchResult], None] | None = None) -> SearchResult:
        """Iterative deepening within ``limits``; the best move of the deepest finished
        iteration (a move is always returned when one is legal)."""
        start = time.monotonic()
        self._arm(limits, stop)
        work = board.copy(stack=True)
        moves = list(work.legal_moves)
        if not moves:
            value = -MATE_SCORE if work.is_check() else 0.0
            return self._result(None, value, [], 0, moves, start)
        # the root's own loop, so an unfinished iteration still ranks the moves it searched
        ranking: list[chess.Move] = ordered_moves(work, moves)
        best_move, best_value, best_pv, done_depth = ranking[0], -math.inf, [ranking[0]], 0
        complete = True  # whether best_value weighs every root move (a loss is proven then)
        try:
            for depth in range(1, last_iteration(self.max_depth, limits) + 1):
                complete = False
                scored: list[tuple[float, chess.Move, list[chess.Move]]] = []
                alpha = -math.inf
                for move in ranking:
                    work.push(move)
                    try:
                        hint = best_pv[1:] if move == best_pv[0] else []
                        value, pv, _ = self._negamax(work, depth - 1, -math.inf, -alpha, 1,
                                                     hint)
                    finally:
                        work.pop()
                    value = -value
                    scored.append((value, move, [move, *pv]))
                    alpha = max(alpha, value)
                    # the previous best is searched first: once it is done, this iteration's
                    # best so far is better informed than the last finished iteration's
                    top = max(scored, key=lambda item: item[0])
                    best_value, best_move, best_pv = top[0], top[1], top[2]
                # stable sort: ties keep the previous order (PV first)
                order = sorted(range(len(scored)), key=lambda i: -scored[i][0])
                ranking = [scored[i][1] for i in order]
                done_depth, complete = depth, True
                if on_progress is not None:
                    on_progress(self._result(best_move, best_value, best_pv, done_depth,
                                             ranking, start))
                if abs(best_value) >= MATE_SCORE - 1000:  # a forced mate: no deeper
                    break
        except SearchAborted:
            pass
        if best_value == -math.inf:  # not even one move searched
            best_value = float(self.evaluate(work))
        return self._result(best_move, best_value, best_pv, done_depth, ranking, start,
                            complete)

    def _result(self, move: chess.Move | None, value: float, pv: list[chess.Move],
                depth: int, ranking: list[chess.Move], start: float,
                complete: bool = True) -> SearchResult:
        mate = None
        if abs(value) >= MATE_SCORE - 1000 and (value > 0 or complete):
            plies = round(MATE_SCORE - abs(value))
            mate = plies if value > 0 else -plies
        n = len(ranking)
        children = [RootChild(move=m, visits=n - k, q=None, prior=0.0)
                    for k, m in enumerate(ranking)]
        if move is not None and ranking and ranking[0] != move:  # best move first
            children.sort(key=lambda c: c.move != move)
            children = [RootChild(c.move, n - k, None, 0.0) for k, c in enumerate(children)]
        return SearchResult(move=move, value=cp_to_value(value), pv=list(pv), nodes=self.nodes,
                            simulations=self.nodes, tree_nodes=0,
                            seconds=time.monotonic() - start, depth=float(depth),
                            seldepth=self.seldepth, batches=0, collisions=0,
                            children=children, reused=False, mate=mate)


def principal_leaf(board: chess.Board, evaluate: Evaluate, depth: int) -> Leaf:
    """The leaf of the principal variation of a ``depth``-ply alpha-beta + quiescence
    search of ``board`` (``depth`` 0: quiescence only), for d-ply comparison training."""
    search = AlphaBeta(evaluate)
    value, pv, terminal = search.search_depth(board, depth)
    leaf = board.copy(stack=False)
    for move in pv:
        leaf.push(move)
    return Leaf(board=leaf, pv=tuple(pv), value=value, terminal=terminal)
