"""PUCT Monte-Carlo tree search over an :class:`Evaluator` (paper sec. 2 and App. E.1): the
Python reference (:class:`MCTS`), the oracle the compiled tree (:mod:`chessmoe.search.native`)
is tested against, with the records both share (:class:`SearchConfig`, :class:`Limits`,
:class:`SearchResult`).
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import chess
import numpy as np
import numpy.typing as npt

from chessmoe.encoding import (
    NO_SQUARE,
    RECORD_DTYPE,
    castling_bits,
    legal_ep_square,
    policy_index_to_move,
    policy_indices,
    record_board,
)
from chessmoe.search import puct
from chessmoe.search.proof import tree_mate
from chessmoe.search.puct import exploration
from chessmoe.search.stops import mate_reached, reported_depth

__all__ = [
    "MCTS",
    "Evaluation",
    "Evaluator",
    "LeafBatch",
    "Limits",
    "Node",
    "RootChild",
    "SearchConfig",
    "SearchResult",
    "SearchSteps",
    "TreeSearch",
    "UniformEvaluator",
    "choose_child",
    "drive",
    "exploration",
    "join_flat",
    "leaf_batch",
    "puct_scores",
    "split_flat",
]


# --- configuration and the evaluator protocol ----------------------------------------------


@dataclass(frozen=True)
class SearchConfig:
    """Search constants (defaults: ClassicAra's, as the paper's matches used)."""

    batch_size: int = 8
    c_init: float = 2.5
    c_base: float = 19652.0
    prior_temperature: float = 1.7
    unvisited_q: float = -1.0
    virtual_visits: int = 1
    q_veto_delta: float = 0.4
    reuse_tree: bool = True
    max_collisions: int | None = None  # descents that may hit a pending leaf per batch

    def __post_init__(self) -> None:
        if not 1 <= self.batch_size <= 4096:
            raise ValueError("batch_size must be in 1..4096")
        if self.prior_temperature <= 0:
            raise ValueError("prior_temperature must be positive")


@dataclass(frozen=True)
class Limits:
    """When a search stops: whichever limit is reached first (``None`` = no limit)."""

    nodes: int | None = None  # new nodes evaluated in this search
    simulations: int | None = None  # descents backed up (default with nodes: 2 x nodes)
    movetime_ms: float | None = None
    depth: int | None = None  # the reported depth to reach (chessmoe.search.stops)
    mate: int | None = None  # stop once a mate in this many moves is proven (search.stops)

    @property
    def max_simulations(self) -> int | None:
        """The simulation cap: as given, else twice the node limit (as the paper's matches
        set it), so descents into decided lines cannot run forever."""
        if self.simulations is not None:
            return self.simulations
        return 2 * self.nodes if self.nodes is not None else None

    def __post_init__(self) -> None:
        for name in ("nodes", "simulations", "movetime_ms", "depth", "mate"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive (or None for no limit)")


class LeafBatch:
    """New leaves to evaluate: their compact records (``[N]`` :data:`RECORD_DTYPE`, with the
    game/search history the encoder needs) and each leaf's legal moves as policy indices, in
    the order the priors must follow: a list (``policy_indices[i]``: ``[moves_i]`` int64) or
    flat (``policy``, leaf i's at ``offsets[i]:offsets[i + 1]``); either is built from the
    other on first use.

    ``boards`` (python-chess boards without history) and ``moves`` (``chess.Move`` lists)
    are built from the records on first use when the search did not pass them: evaluators
    need only the records and the policy indices.
    """

    __slots__ = ("_boards", "_moves", "_offsets", "_policy", "_split", "records")

    def __init__(self, *, records: npt.NDArray[Any],
                 policy_indices: list[npt.NDArray[np.int64]] | None = None,
                 policy: npt.NDArray[np.int64] | None = None,
                 offsets: npt.NDArray[np.int64] | None = None,
                 boards: list[chess.Board] | None = None,
                 moves: list[list[chess.Move]] | None = None) -> None:
        if (policy_indices is None) == (policy is None or offsets is None):
            raise ValueError("a leaf batch takes policy_indices or policy with offsets")
        self.records = records
        self._split = policy_indices
        self._policy = policy
        self._offsets = offsets
        self._boards = boards
        self._moves = moves

    @property
    def policy_indices(self) -> list[npt.NDArray[np.int64]]:
        if self._split is None:
            assert self._policy is not None and self._offsets is not None
            self._split = split_flat(self._policy, self._offsets)
        return self._split

    @property
    def policy(self) -> npt.NDArray[np.int64]:
        if self._policy is None:
            self._policy, self._offsets = join_flat(self.policy_indices, np.int64)
        return self._policy

    @property
    def offsets(self) -> npt.NDArray[np.int64]:
        if self._offsets is None:
            self._policy, self._offsets = join_flat(self.policy_indices, np.int64)
        return self._offsets

    def policy_of(self, rows: npt.NDArray[np.int64]
                  ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The flat policy indices and offsets of the leaves ``rows`` (increasing)."""
        if len(rows) == len(self):
            return self.policy, self.offsets
        return join_flat([self.policy_indices[int(i)] for i in rows], np.int64)

    @property
    def boards(self) -> list[chess.Board]:
        if self._boards is None:
            self._boards = [record_board(r) for r in self.records]
        return self._boards

    @property
    def moves(self) -> list[list[chess.Move]]:
        if self._moves is None:
            self._moves = [[policy_index_to_move(int(i), board) for i in index]
                           for board, index in zip(self.boards, self.policy_indices,
                                                   strict=True)]
        return self._moves

    def __len__(self) -> int:
        return len(self.records)


class Evaluation:
    """Evaluator output: values from the side to move, priors over each leaf's moves: a list
    (``priors[i]``) or flat (``flat``, leaf i's at ``offsets[i]:offsets[i + 1]``, the
    offsets of its :class:`LeafBatch`); either is built from the other on first use."""

    __slots__ = ("_flat", "_offsets", "_priors", "values")

    def __init__(self, values: npt.NDArray[np.float32],
                 priors: list[npt.NDArray[np.float32]] | None = None, *,
                 flat: npt.NDArray[np.float32] | None = None,
                 offsets: npt.NDArray[np.int64] | None = None) -> None:
        if (priors is None) == (flat is None or offsets is None):
            raise ValueError("an evaluation takes priors or flat priors with offsets")
        self.values = values
        self._priors = priors
        self._flat = flat
        self._offsets = offsets

    @property
    def priors(self) -> list[npt.NDArray[np.float32]]:
        if self._priors is None:
            assert self._flat is not None and self._offsets is not None
            self._priors = split_flat(self._flat, self._offsets)
        return self._priors

    def flat_priors(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        """The priors flat, with each leaf's offsets."""
        if self._flat is None or self._offsets is None:
            self._flat, self._offsets = join_flat(self.priors, np.float32)
        return self._flat, self._offsets


_A = TypeVar("_A", bound=np.generic)


def split_flat(flat: npt.NDArray[_A], offsets: npt.NDArray[np.int64]) -> list[npt.NDArray[_A]]:
    """``flat`` cut at ``offsets`` (part i: ``flat[offsets[i]:offsets[i + 1]]``, views)."""
    return [flat[lo:hi] for lo, hi in itertools.pairwise(offsets.tolist())]


def join_flat(parts: Sequence[npt.NDArray[Any]], dtype: type[_A]
              ) -> tuple[npt.NDArray[_A], npt.NDArray[np.int64]]:
    """``parts`` end to end, with the offsets that :func:`split_flat` cuts them at."""
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in parts], out=offsets[1:])
    flat = np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)
    return flat, offsets


class Evaluator(Protocol):
    """Anything that scores a batch of leaves (a network, a mixture of experts, a test stub)."""

    def evaluate(self, batch: LeafBatch) -> Evaluation: ...


class UniformEvaluator:
    """Value 0 and uniform priors: search speed and logic without a network."""

    def evaluate(self, batch: LeafBatch) -> Evaluation:
        return Evaluation(np.zeros(len(batch), dtype=np.float32),
                          [np.full(len(m), 1.0 / len(m), dtype=np.float32)
                           for m in batch.policy_indices])


_MOVES_CACHE_LIMIT = 200_000  # positions whose legal moves a search remembers (~60 MB)


# --- the tree ----------------------------------------------------------------------------------


class Node:
    """One position in the tree, with the statistics of its outgoing edges."""

    __slots__ = ("board", "child_n", "child_w", "children", "depth", "expanded", "key",
                 "move", "moves", "parent", "pending", "policy", "priors", "terminal",
                 "terminal_value", "visits")

    def __init__(self, board: chess.Board, move: chess.Move | None, parent: Node | None,
                 depth: int) -> None:
        self.board = board
        self.move = move
        self.parent = parent
        self.depth = depth
        self.key = board._transposition_key()
        self.moves: list[chess.Move] = []
        self.policy: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.priors: list[float] = []
        self.child_n: list[int] = []
        self.child_w: list[float] = []
        self.children: list[Node | None] = []
        self.visits = 0
        self.expanded = False
        self.pending = False
        self.terminal = False
        self.terminal_value = 0.0

    def q(self, i: int) -> float:
        return self.child_w[i] / self.child_n[i] if self.child_n[i] else math.nan

    def subtree_size(self) -> int:
        return 1 + sum(c.subtree_size() for c in self.children if c is not None)


def puct_scores(node: Node, config: SearchConfig) -> list[float]:
    """PUCT score of every child of ``node`` (:func:`chessmoe.search.puct.score`; for tests
    and inspection): the child :meth:`MCTS._select` picks has the highest."""
    c = puct.scale(node.visits, config.c_init, config.c_base)
    return [puct.score(node.child_w[i], node.child_n[i], p, c, config.unvisited_q)
            for i, p in enumerate(node.priors)]


@dataclass(frozen=True)
class RootChild:
    """One root move after a search: its visits, mean value ``q`` (the root side's view;
    ``None`` when unvisited) and sharpened prior."""

    move: chess.Move
    visits: int
    q: float | None
    prior: float


@dataclass
class SearchResult:
    """The outcome of one search."""

    move: chess.Move | None
    value: float  # root value (side to move), from the chosen child's Q
    pv: list[chess.Move]
    nodes: int  # new nodes this search
    simulations: int
    tree_nodes: int  # nodes in the tree after the search (reused ones included)
    seconds: float
    depth: float  # mean depth of the leaves expanded this search
    seldepth: int
    batches: int
    collisions: int
    children: list[RootChild]  # every root move, most visited first
    reused: bool
    mate: int | None = None  # a proven mate in plies (+ side to move mates; search.stops)

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


def choose_child(child_n: Sequence[int], child_w: Sequence[float], q_veto_delta: float) -> int:
    """The root child to play: most visits, with the Q-veto (a child whose Q beats the most
    visited one's by more than ``q_veto_delta`` with more than one visit takes over; otherwise
    the runner-up's visits are raised by ``(Q2 - Q1) * n_best`` when its Q is higher). Both
    searches choose with this function."""
    n = [int(x) for x in child_n]
    w = [float(x) for x in child_w]

    def q(i: int) -> float:
        return w[i] / n[i] if n[i] else math.nan

    visits = [float(x) for x in n]
    best = max(range(len(visits)), key=lambda i: visits[i])
    q_best = q(best)
    visited = [i for i in range(len(visits)) if n[i] > 1]
    if visited:
        best_q = max(visited, key=q)
        if best_q != best and q(best_q) - q_best > q_veto_delta:
            return best_q
    order = sorted(range(len(visits)), key=lambda i: -visits[i])
    if len(order) > 1:
        second = order[1]
        q_second = q(second)
        if n[second] and q_second > q_best:
            visits[second] += (q_second - q_best) * visits[best]
    return max(range(len(visits)), key=lambda i: visits[i])


# --- search ---------------------------------------------------------------------------------


class MCTS:
    """A PUCT search that keeps its tree between moves.

    Selection (:mod:`chessmoe.search.puct`, shared with the compiled tree): ``Q + c(N) * P * sqrt(N)
    / (1 + n)`` with ``c(N) = ln((N + c_base + 1) / c_base) + c_init`` (2.5, 19652); an unvisited
    child has ``Q = -1``; priors are sharpened by a temperature (``P ** (1 / 1.7)``, renormalised).
    Mini-batches: a search collects up to ``batch_size`` new leaves, each descent adding a virtual
    visit (counted as a loss) along its path so the next descent looks elsewhere, then evaluates
    them in one :meth:`Evaluator.evaluate` call and backs the values up. Terminal positions (mate,
    stalemate, threefold repetition counting the game history and the search path, the fifty-move
    rule, insufficient material) are scored without the evaluator. Limits: new nodes, simulations,
    move time, or an external stop; the tree is reused between moves when the new position is in it.
    The move: most visits, with the Q-veto (a child whose Q beats the most visited one's by more
    than 0.4 with more than one visit takes over; otherwise the runner-up's visits are raised by
    ``(Q2 - Q1) * n_best`` when its Q is higher).

    Values are from the side to move at a node; each edge stores the visits and value sum of its
    child as seen by the parent's side to move. Children are kept in descending prior order, which
    makes the visited children a prefix: the best unvisited child is always the first one, so
    selection scans only the visited ones.
    """

    name = "python"

    def __init__(self, evaluator: Evaluator, config: SearchConfig | None = None) -> None:
        self.evaluator = evaluator
        self.config = config or SearchConfig()
        self.root: Node | None = None
        self._history: Counter[Any] = Counter()  # transposition keys of the game so far
        self._history_moves: list[chess.Move] = []
        self._last_history: list[tuple[int, int]] = []  # the game's last 8 moves
        self._moves_cache: dict[Any, tuple[chess.Move, ...]] = {}
        # scratch state of the mini-batch in flight
        self._paths: dict[int, list[tuple[Node, int]]] = {}
        self._leaf_value: dict[int, float] = {}

    # -- the public entry points --
    def search(self, board: chess.Board, limits: Limits,
               stop: threading.Event | None = None,
               on_progress: Callable[[SearchResult], None] | None = None,
               progress_every: float = 1.0) -> SearchResult:
        """Search ``board`` (with its move stack: the game history) until a limit."""
        return drive(self.search_steps(board, limits, stop, on_progress, progress_every),
                     self.evaluator.evaluate)

    def search_steps(self, board: chess.Board, limits: Limits,
                     stop: threading.Event | None = None,
                     on_progress: Callable[[SearchResult], None] | None = None,
                     progress_every: float = 1.0) -> SearchSteps:
        """:meth:`search` as a generator: it yields each mini-batch to evaluate and expects
        its :class:`Evaluation` back through ``send`` (so one worker can interleave many
        searches and evaluate their mini-batches together); it returns the result."""
        if board.is_game_over(claim_draw=False) and not any(board.legal_moves):
            raise ValueError(f"no legal move in {board.fen()}")
        start = time.monotonic()
        deadline = start + limits.movetime_ms / 1000 if limits.movetime_ms else None
        max_simulations = limits.max_simulations
        reused = self._prepare_root(board)
        root = self.root
        assert root is not None
        nodes = simulations = batches = collisions = 0
        depth_sum = seldepth = 0
        if not root.expanded:
            yield from self._evaluate_steps([root])
            self._leaf_value.pop(id(root), None)
            root.visits += 1
            nodes += 1
        next_report = start + progress_every
        while True:
            if limits.nodes is not None and nodes >= limits.nodes:
                break
            if max_simulations is not None and simulations >= max_simulations:
                break
            if deadline is not None and time.monotonic() >= deadline:
                break
            if stop is not None and stop.is_set():
                break
            if batches and self._reached(root, limits, depth_sum / max(nodes - 1, 1)):
                break
            if all(root.children[i] is not None and root.children[i].terminal  # type: ignore[union-attr]
                   for i in range(len(root.moves))) and root.visits > 4 * len(root.moves):
                break  # every root move is decided: nothing left to search
            want = self.config.batch_size
            if limits.nodes is not None:
                want = min(want, limits.nodes - nodes)
            if max_simulations is not None:
                want = min(want, max_simulations - simulations)
            leaves, done, hits = self._collect(root, want)
            simulations += done
            collisions += hits
            if leaves:
                yield from self._evaluate_steps(leaves)
                for leaf in leaves:
                    self._backup(leaf, leaf.terminal_value if leaf.terminal
                                 else self._leaf_value.pop(id(leaf)))
                nodes += len(leaves)
                simulations += len(leaves)
                batches += 1
                depth_sum += sum(leaf.depth - root.depth for leaf in leaves)
                seldepth = max(seldepth, *(leaf.depth - root.depth for leaf in leaves))
            elif done == 0:
                break  # only collisions: the tree cannot grow with this batch size
            if on_progress is not None and time.monotonic() >= next_report:
                next_report = time.monotonic() + progress_every
                on_progress(self._result(root, nodes, simulations, start, depth_sum,
                                         seldepth, batches, collisions, reused))
        return self._result(root, nodes, simulations, start, depth_sum, seldepth, batches,
                            collisions, reused)

    def _reached(self, root: Node, limits: Limits, mean_depth: float) -> bool:
        """``go depth``/``go mate`` reached (:mod:`chessmoe.search.stops`)."""
        if limits.depth is not None and reported_depth(mean_depth) >= limits.depth:
            return True
        return limits.mate is not None and mate_reached(
            tree_mate(None, root, self._choose(root), 2 * limits.mate), limits.mate)

    # -- tree reuse --
    def _prepare_root(self, board: chess.Board) -> bool:
        """Point the root at ``board``, reusing a subtree when the game continued from the
        previous search's root; return whether a subtree was reused."""
        history = list(board.move_stack)
        reused = False
        root = self.root
        if (self.config.reuse_tree and root is not None
                and history[:len(self._history_moves)] == self._history_moves):
            node: Node | None = root
            for move in history[len(self._history_moves):]:
                if node is None or not node.expanded or move not in node.moves:
                    node = None
                    break
                node = node.children[node.moves.index(move)]
            # only an expanded node: an unexpanded one is a terminal node (a repetition or
            # fifty-move draw by the path) whose edges were never made
            if node is not None and node.expanded and node.key == board._transposition_key():
                node.parent, node.move = None, None
                self._rebase(node, 0)
                self.root = node
                reused = True
        if not reused:
            self.root = self._new_node(board.copy(stack=False), None, None, 0)
            self.root.terminal = False  # a move must be chosen whatever the position
        self._history_moves = history
        self._history = Counter()
        replay = board.copy()
        while replay.move_stack:  # count every earlier position of the game
            replay.pop()
            self._history[replay._transposition_key()] += 1
        self._last_history = [(m.from_square, m.to_square) for m in reversed(history[-8:])]
        return reused

    def _rebase(self, node: Node, depth: int) -> None:
        stack = [(node, depth)]
        while stack:
            current, d = stack.pop()
            current.depth = d
            stack.extend((c, d + 1) for c in current.children if c is not None)

    def new_game(self) -> None:
        """Forget the tree (e.g. on ``ucinewgame``)."""
        self.root = None
        self._history_moves = []
        self._moves_cache.clear()

    # -- one mini-batch --
    def _collect(self, root: Node, want: int) -> tuple[list[Node], int, int]:
        """Up to ``want`` descents: each ends at a new leaf (left pending for evaluation) or
        at a terminal node (backed up at once). Returns the leaves, the terminal descents
        and the collisions (descents that met a pending leaf and were undone)."""
        leaves: list[Node] = []
        terminal = collisions = 0
        limit = self.config.max_collisions
        if limit is None:
            limit = max(1, want)
        vv = self.config.virtual_visits
        while len(leaves) + terminal < want and collisions < limit:
            node = root
            path: list[tuple[Node, int]] = []
            while node.expanded and not node.terminal:
                i = self._select(node)
                path.append((node, i))
                node.child_n[i] += vv
                node.child_w[i] -= vv  # a virtual loss for the side choosing this edge
                node.visits += vv
                child = node.children[i]
                if child is None:
                    board = node.board.copy(stack=False)
                    board.push(node.moves[i])
                    child = self._new_node(board, node.moves[i], node, node.depth + 1)
                    node.children[i] = child
                node = child
            if node.terminal:
                self._undo_virtual(path)
                self._backup(node, node.terminal_value)
                terminal += 1
                if not path:  # the root itself is terminal
                    break
                continue
            if node.pending:
                self._undo_virtual(path)
                collisions += 1
                continue
            node.pending = True
            self._paths[id(node)] = path
            leaves.append(node)
        return leaves, terminal, collisions

    def _undo_virtual(self, path: list[tuple[Node, int]]) -> None:
        vv = self.config.virtual_visits
        for node, i in path:
            node.child_n[i] -= vv
            node.child_w[i] += vv
            node.visits -= vv

    def _select(self, node: Node) -> int:
        """The child maximising PUCT (:func:`chessmoe.search.puct.select`, the rule the
        compiled tree compiles)."""
        config = self.config
        return puct.select(node.child_n, node.child_w, node.priors, 0, len(node.child_n),
                           node.visits, config.c_init, config.c_base, config.unvisited_q)

    def _backup(self, leaf: Node, value: float) -> None:
        """Back up ``value`` (leaf's side to move), removing the descent's virtual visits."""
        path = self._paths.pop(id(leaf), None)
        if path is None:  # a terminal hit: rebuild its path from the parents
            path = []
            node = leaf
            while node.parent is not None:
                parent = node.parent
                path.append((parent, parent.children.index(node)))
                node = parent
            path.reverse()
            vv = 0
        else:
            vv = self.config.virtual_visits
        leaf.visits += 1
        v = -value  # as seen by the parent's side to move
        for node, i in reversed(path):
            node.child_n[i] += 1 - vv
            node.child_w[i] += v + vv
            node.visits += 1 - vv
            v = -v

    # -- nodes and evaluation --
    def _new_node(self, board: chess.Board, move: chess.Move | None, parent: Node | None,
                  depth: int) -> Node:
        node = Node(board, move, parent, depth)
        # Legal moves depend only on the transposition key (pieces, side, castling rights,
        # legal en passant): generated once per position and game, shared by transpositions
        # (10-35 % of a search's new nodes) and by positions met again on later moves.
        cache = self._moves_cache
        known = cache.get(node.key)
        if known is None:
            if len(cache) >= _MOVES_CACHE_LIMIT:
                cache.clear()
            known = cache[node.key] = tuple(board.generate_legal_moves())
        moves = list(known)
        node.moves = moves
        if not moves:
            node.terminal = True
            node.terminal_value = -1.0 if board.is_check() else 0.0
        elif board.halfmove_clock >= 100 or (
                not (board.pawns | board.rooks | board.queens)  # cheap pre-check
                and board.is_insufficient_material()):
            node.terminal = True
        elif parent is not None and self._repetitions(node) >= 2:
            node.terminal = True  # threefold: draw
        return node

    def _repetitions(self, node: Node) -> int:
        """Earlier occurrences of ``node``'s position in the game and the search path."""
        count = self._history.get(node.key, 0)
        ancestor = node.parent
        while ancestor is not None and count < 2:
            if ancestor.key == node.key:
                count += 1
            if ancestor.board.halfmove_clock == 0:
                break  # nothing before an irreversible move can repeat
            ancestor = ancestor.parent
        return count

    def _record(self, node: Node) -> tuple[Any, ...]:
        board = node.board
        last: list[tuple[int, int]] = []
        ancestor: Node | None = node
        while ancestor is not None and ancestor.move is not None and len(last) < 8:
            last.append((ancestor.move.from_square, ancestor.move.to_square))
            ancestor = ancestor.parent
        last += self._last_history[: 8 - len(last)]
        last += [(NO_SQUARE, NO_SQUARE)] * (8 - len(last))
        return (board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.pawns,
                board.knights, board.bishops, board.rooks, board.queens, board.kings,
                board.checkers_mask(), last, legal_ep_square(board), castling_bits(board),
                int(board.turn),
                min(self._repetitions(node), 2), int(board.chess960),
                min(board.halfmove_clock, 65535), min(board.fullmove_number, 65535))

    def _evaluate_steps(self, leaves: list[Node]) -> Generator[LeafBatch, Evaluation, None]:
        """Evaluate new leaves and expand them (terminal ones need no evaluation), as a
        generator: yields the leaves' batch, receives its scores."""
        live = [leaf for leaf in leaves if not leaf.terminal]
        if live:
            counts = [len(leaf.moves) for leaf in live]
            flat = [m for leaf in live for m in leaf.moves]
            turns = np.repeat(np.array([leaf.board.turn for leaf in live]), counts)
            index = policy_indices([m.from_square for m in flat], [m.to_square for m in flat],
                                   [m.promotion or 0 for m in flat], turns)
            split = np.split(index, np.cumsum(counts)[:-1])
            batch = LeafBatch(boards=[leaf.board for leaf in live],
                              records=np.array([self._record(leaf) for leaf in live],
                                               dtype=RECORD_DTYPE),
                              moves=[leaf.moves for leaf in live], policy_indices=split)
            result = yield batch
            for leaf, value, priors, policy in zip(live, result.values, result.priors, split,
                                                   strict=True):
                self._expand(leaf, priors, policy)
                self._leaf_value[id(leaf)] = float(value)
        for leaf in leaves:
            leaf.pending = False

    def _expand(self, node: Node, priors: npt.NDArray[np.float32],
                policy: npt.NDArray[np.int64]) -> None:
        sharpened = np.power(np.maximum(priors.astype(np.float64), 0.0),
                             1.0 / self.config.prior_temperature)
        total = sharpened.sum()
        sharpened = sharpened / total if total > 0 else np.full(len(priors), 1 / len(priors))
        order = np.argsort(-sharpened, kind="stable")
        node.moves = [node.moves[i] for i in order]
        node.policy = policy[order]
        node.priors = sharpened[order].tolist()
        node.child_n = [0] * len(order)
        node.child_w = [0.0] * len(order)
        node.children = [None] * len(order)
        node.expanded = True

    # -- the answer --
    def _choose(self, root: Node) -> int:
        """Most visits, with the Q-veto."""
        return choose_child(root.child_n, root.child_w, self.config.q_veto_delta)

    def _result(self, root: Node, nodes: int, simulations: int, start: float, depth_sum: int,
                seldepth: int, batches: int, collisions: int, reused: bool) -> SearchResult:
        if not root.moves:
            return SearchResult(None, root.terminal_value, [], nodes, simulations, 1,
                                time.monotonic() - start, 0.0, 0, batches, collisions, [],
                                reused)
        best = self._choose(root) if root.expanded else 0
        pv = [root.moves[best]]
        node = root.children[best]
        while node is not None and node.expanded and any(node.child_n):
            i = max(range(len(node.child_n)), key=lambda k: node.child_n[k])  # type: ignore[union-attr]
            pv.append(node.moves[i])
            node = node.children[i]
        q = root.q(best)
        children = [RootChild(m, n, (w / n if n else None), p)
                    for m, n, w, p in zip(root.moves, root.child_n, root.child_w,
                                          root.priors or [0.0] * len(root.moves),
                                          strict=False)]
        children.sort(key=lambda c: -c.visits)
        return SearchResult(
            move=root.moves[best], value=0.0 if math.isnan(q) else q, pv=pv, nodes=nodes,
            simulations=simulations, tree_nodes=root.subtree_size(),
            seconds=time.monotonic() - start,
            depth=depth_sum / max(nodes - 1, 1), seldepth=seldepth, batches=batches,
            collisions=collisions, children=children, reused=reused,
            mate=tree_mate(None, root, best) if root.expanded else None)


SearchSteps = Generator[LeafBatch, Evaluation, SearchResult]
"""A search in progress: yields mini-batches, is sent their evaluations, returns the result."""


class TreeSearch(Protocol):
    """What plays a move: :class:`MCTS` (the Python reference) or the compiled
    :class:`~chessmoe.search.native.search.NativeMCTS`, interchangeable."""

    evaluator: Evaluator
    config: SearchConfig

    def search(self, board: chess.Board, limits: Limits,
               stop: threading.Event | None = None,
               on_progress: Callable[[SearchResult], None] | None = None,
               progress_every: float = 1.0) -> SearchResult: ...

    def search_steps(self, board: chess.Board, limits: Limits,
                     stop: threading.Event | None = None,
                     on_progress: Callable[[SearchResult], None] | None = None,
                     progress_every: float = 1.0) -> SearchSteps: ...

    def new_game(self) -> None: ...

_T = TypeVar("_T")


def drive(steps: Generator[LeafBatch, Evaluation, _T],
          evaluate: Callable[[LeafBatch], Evaluation]) -> _T:
    """Run a stepwise search to its end, evaluating each mini-batch with ``evaluate``."""
    try:
        batch = next(steps)
        while True:
            batch = steps.send(evaluate(batch))
    except StopIteration as finished:
        return finished.value  # type: ignore[no-any-return]


def leaf_batch(boards: list[chess.Board]) -> LeafBatch:
    """A :class:`LeafBatch` of boards with their move stacks (tests, analysis tools)."""
    from chessmoe.encoding import board_record_tuple

    moves = [list(b.legal_moves) for b in boards]
    index = [policy_indices([m.from_square for m in ms], [m.to_square for m in ms],
                            [m.promotion or 0 for m in ms], [b.turn] * len(ms))
             for b, ms in zip(boards, moves, strict=True)]
    return LeafBatch(boards=[b.copy(stack=False) for b in boards],
                     records=np.array([board_record_tuple(b) for b in boards],
                                      dtype=RECORD_DTYPE),
                     moves=moves, policy_indices=index)
