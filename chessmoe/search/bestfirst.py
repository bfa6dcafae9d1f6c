"""Best-first search over a value function, then minimax (related-selfplay-value-search.md):
the MAIS engine's search (:class:`BestFirst`), its expansion priority (:func:`priority`) and
its value mapping (:meth:`BestFirst.to_unit`)."""

from __future__ import annotations

import heapq
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import chess
import numpy as np
import numpy.typing as npt

from chessmoe.search.mcts import Limits, RootChild, SearchResult
from chessmoe.search.stops import mate_reached, reported_depth

__all__ = [
    "BestFirst",
    "BestFirstConfig",
    "ValueFn",
    "game_end",
    "priority",
    "priority_f",
    "priority_h",
]

ValueFn = Callable[[Sequence[chess.Board]], "Sequence[float] | npt.NDArray[np.float64]"]
"""Boards -> one value each, White's point of view (one call per expansion: a batch)."""

_CP_SCALE = 111.714640912
_CP_SHAPE = 1.5620688421


def priority_h(x: float) -> float:
    """``h(x) = ln(x + 1)`` for ``x >= 0``, ``-ln(-x + 1)`` for ``x < 0`` (odd, continuous)."""
    return math.log1p(x) if x >= 0 else -math.log1p(-x)


def priority_f(x: float) -> float:
    """``f(x) = -exp(h(-x))``: increasing, negative (``x - 1`` at or below 0, ``-1/(x+1)``
    above)."""
    return -math.exp(priority_h(-x))


def priority(y: float, white_chooses: bool, depth: int, delta: float = 0.3) -> float:
    """A position's priority in the min-heap, ``P = f(y * (-1)**w) * delta**d``; smaller is
    expanded first.

    * ``y``: the value function's estimate of the position (White's point of view, the
      document's convention; for the MAIS network, Q in centipawns).
    * ``w``: 1 when White is to move in the position where the move into the node is chosen
      (the node's parent, ``white_chooses``), else 0. So White's candidate moves are ranked by
      ``-y`` (the best for White first) and Black's by ``y`` -- the document's "moves that are
      good for itself when it is its turn to play, and the opponent's best moves when it is
      not".
    * ``d``: the node's depth in the tree (the root is 0, its children 1), ``delta`` 0.3:
      deeper nodes get a priority nearer 0, i.e. later in the min-heap.
    * ``f`` is :func:`priority_f`, an increasing map of the reals onto the negative reals.
    """
    x = -y if white_chooses else y
    return priority_f(x) * delta ** depth


def game_end(board: chess.Board) -> tuple[bool, bool]:
    """``(finished, checkmate)``: whether the game ends in ``board`` by checkmate, stalemate
    or insufficient material (``is_checkmate() or is_stalemate() or
    is_insufficient_material()``, for standard chess), and whether by checkmate. One search
    for a legal move answers both; the check is tested only when there is none."""
    stuck = not any(board.generate_legal_moves())  # checkmate or stalemate
    checkmate = stuck and board.is_check()
    return stuck or board.is_insufficient_material(), checkmate


@dataclass(frozen=True)
class BestFirstConfig:
    """The search's constants (the document's delta; the value mapping's scale)."""

    delta: float = 0.3
    cp_per_unit: float = 0.1  # centipawns per network unit (1 - gamma, see BestFirst)
    mate_value: float = 1e9  # a checkmate in the tree, above any network estimate


class _Node:
    __slots__ = ("board", "children", "depth", "expanded", "move", "parent", "terminal",
                 "value")

    def __init__(self, board: chess.Board, move: chess.Move | None, parent: int, depth: int,
                 value: float, terminal: bool) -> None:
        self.board = board
        self.move = move
        self.parent = parent
        self.depth = depth
        self.value = value  # estimate, White's view; exact when terminal
        self.terminal = terminal
        self.children: list[int] = []
        self.expanded = False


class BestFirst:
    """The document's best-first search with minimax over a batched value function.

    The document's search keeps a tree and a min-heap: each position reached is in the heap
    with its :func:`priority` and the position with the smallest is expanded next (all its
    children evaluated, in one batch here).

    The move: minimax over the expanded tree (leaves keep their estimate, finished games
    their exact score), choosing only among root children that were themselves expanded --
    the document plays no move it did not look into -- or that checkmate. A mate in 1 is
    played at once. With a budget too small to expand any root child, every child is a
    candidate.

    Budget: ``Limits.nodes`` counts positions evaluated (children created); an expansion
    that would pass it is not started, except the root's. ``movetime_ms``, the ``stop``
    event, ``depth`` (the reported depth: one more than the mean depth of the expanded
    positions) and ``mate`` (a mate proven by the minimax; :mod:`chessmoe.search.stops`) are
    checked between expansions."""

    def __init__(self, value_fn: ValueFn, config: BestFirstConfig | None = None) -> None:
        self.value_fn = value_fn
        self.config = config or BestFirstConfig()

    def new_game(self) -> None:
        """Nothing is kept between moves (a fresh tree each search)."""

    def to_unit(self, y_white: float, white_to_move: bool) -> float:
        """A value on the network's scale (White's view) as [-1, 1] for the side to move.

        The Q of a steady advantage of ``c`` centipawns is about ``c / (1 - gamma)``, so
        ``cp = cp_per_unit * y_stm`` (``cp_per_unit`` = 1 - gamma = 0.1) and ``v = atan(cp /
        111.7146) / 1.5620688`` (the inverse of the kit's centipawn mapping, so UCI scores read
        as the naive evaluation's centipawns). A forced mate found in the tree is exactly +-1.
        """
        y = y_white if white_to_move else -y_white
        if abs(y) >= self.config.mate_value / 2:
            return 1.0 if y > 0 else -1.0
        cp = y * self.config.cp_per_unit
        return max(-1.0, min(1.0, math.atan(cp / _CP_SCALE) / _CP_SHAPE))

    # -- the search --
    def search(self, board: chess.Board, limits: Limits, stop: threading.Event | None = None,
               on_progress: Callable[[SearchResult], None] | None = None) -> SearchResult:
        """Search ``board`` within ``limits``; the move and the tree's minimax value."""
        start = time.perf_counter()
        deadline = (start + limits.movetime_ms / 1000.0 if limits.movetime_ms is not None
                    else None)
        nodes: list[_Node] = [_Node(board.copy(stack=False), None, -1, 0, 0.0,
                                    board.is_game_over())]
        state = {"evaluated": 0, "batches": 0}
        if nodes[0].terminal or not any(board.legal_moves):
            return self._result(board, nodes, state, start, expansions=0)
        heap: list[tuple[float, int]] = []
        self._expand(nodes, 0, list(board.legal_moves), heap, state)
        expansions = 1
        mate = next((i for i in nodes[0].children if nodes[i].terminal
                     and nodes[i].board.is_checkmate()), None)
        if mate is not None:  # a mate in 1 is always played
            return self._result(board, nodes, state, start, expansions, forced=mate)
        last_report = start
        depth_sum = 0  # of the expanded nodes (the root's is 0): go depth's mean
        while heap:
            if stop is not None and stop.is_set():
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            if (limits.depth is not None
                    and reported_depth(depth_sum / expansions + 1) >= limits.depth):
                break
            _, index = heap[0]
            moves = list(nodes[index].board.legal_moves)  # generated once: counted, expanded
            if limits.nodes is not None and state["evaluated"] + len(moves) > limits.nodes:
                break
            heapq.heappop(heap)
            mates = self._expand(nodes, index, moves, heap, state)
            expansions += 1
            depth_sum += nodes[index].depth
            if mates and limits.mate is not None and mate_reached(
                    self._result(board, nodes, state, start, expansions).mate, limits.mate):
                break  # a mate is proven only where an expansion creates a checkmate
            if on_progress is not None and time.perf_counter() - last_report > 0.5:
                last_report = time.perf_counter()
                on_progress(self._result(board, nodes, state, start, expansions))
        return self._result(board, nodes, state, start, expansions)

    def _expand(self, nodes: list[_Node], index: int, moves: list[chess.Move],
                heap: list[tuple[float, int]], state: dict[str, int]) -> bool:
        """Create a child for each of ``moves`` (the parent's legal moves, in python-chess's
        order), score the finished games exactly and the others in one value-function batch;
        whether a child is checkmate.

        A child is finished when it is checkmate, stalemate or insufficient material
        (:func:`game_end`)."""
        mates = False
        parent = nodes[index]
        parent.expanded = True
        white_chooses = parent.board.turn == chess.WHITE
        depth = parent.depth + 1
        fresh: list[int] = []
        for move in moves:
            child = parent.board.copy(stack=False)
            child.push(move)
            terminal, checkmate = game_end(child)
            value = 0.0
            if checkmate:  # the side that just moved wins
                score = self.config.mate_value - depth
                value = score if white_chooses else -score
                mates = True
            nodes.append(_Node(child, move, index, depth, value, terminal))
            parent.children.append(len(nodes) - 1)
            if not terminal:
                fresh.append(len(nodes) - 1)
        state["evaluated"] += len(parent.children)
        if fresh:
            values = self.value_fn([nodes[i].board for i in fresh])
            state["batches"] += 1
            for i, y in zip(fresh, values, strict=True):
                nodes[i].value = float(y)
                heapq.heappush(heap, (priority(float(y), white_chooses, depth,
                                               self.config.delta), i))
        return mates

    def _minimax(self, nodes: list[_Node]) -> list[float]:
        """Every node's minimax value (White's view); children come after their parent."""
        values = [n.value for n in nodes]
        for index in range(len(nodes) - 1, -1, -1):
            node = nodes[index]
            if node.children and not node.terminal:
                child_values = [values[c] for c in node.children]
                values[index] = (max(child_values) if node.board.turn == chess.WHITE
                                 else min(child_values))
        return values

    def _result(self, board: chess.Board, nodes: list[_Node], state: dict[str, int],
                start: float, expansions: int, forced: int | None = None) -> SearchResult:
        root = nodes[0]
        white = board.turn == chess.WHITE
        values = self._minimax(nodes)
        sign = 1.0 if white else -1.0
        candidates = [c for c in root.children
                      if nodes[c].expanded or (nodes[c].terminal
                                               and nodes[c].board.is_checkmate())]
        if not candidates:
            candidates = list(root.children)
        if forced is not None:
            candidates = [forced]
        best = max(candidates, key=lambda c: sign * values[c]) if candidates else None
        pv: list[chess.Move] = []
        cursor = best
        while cursor is not None:
            node = nodes[cursor]
            if node.move is not None:
                pv.append(node.move)
            if not node.children or node.terminal:
                break
            turn_white = node.board.turn == chess.WHITE
            cursor = max(node.children,
                         key=lambda c: (values[c] if turn_white else -values[c]))
        subtree = [1] * len(nodes)
        for index in range(len(nodes) - 1, 0, -1):
            subtree[nodes[index].parent] += subtree[index]
        children: list[RootChild] = []
        for c in root.children:
            move = nodes[c].move
            if move is not None:
                children.append(RootChild(
                    move=move, visits=subtree[c] - 1 if nodes[c].expanded else 0,
                    q=self.to_unit(values[c], white), prior=1.0 / len(root.children)))
        children.sort(key=lambda child: (-child.visits, -(child.q or 0.0)))
        expanded_depths = [n.depth for n in nodes if n.expanded]
        mate = None
        if best is not None:
            value = self.to_unit(values[best], white)
            y = values[best] if white else -values[best]
            if abs(y) >= self.config.mate_value / 2:  # forced: every reply of the tree mated
                plies = round(self.config.mate_value - abs(y))
                mate = plies if y > 0 else -plies
        elif root.terminal and board.is_checkmate():
            value = -1.0
        else:
            value = 0.0
        return SearchResult(
            move=nodes[best].move if best is not None else None,
            value=value, pv=pv, nodes=state["evaluated"], simulations=expansions,
            tree_nodes=len(nodes), seconds=time.perf_counter() - start,
            depth=(sum(expanded_depths) / len(expanded_depths) + 1) if expanded_depths
            else 0.0,
            seldepth=max((n.depth for n in nodes), default=0), batches=state["batches"],
            collisions=0, children=children, reused=False, mate=mate)
