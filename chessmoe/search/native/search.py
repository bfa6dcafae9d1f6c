"""The compiled PUCT search: :class:`NativeMCTS`, a drop-in for :class:`~chessmoe.search.mcts.MCTS`.

Same constructor, ``search``/``search_steps``/``new_game`` and :class:`SearchResult`; the tree,
move generation, terminal rules, selection, backup, the leaves' records and policy indices,
and the sum and order of the sharpened priors run in numba
(:mod:`chessmoe.search.native.tree`), two compiled calls a mini-batch, its leaves sent flat
(:class:`~chessmoe.search.mcts.LeafBatch` ``policy``/``offsets``). Python keeps the evaluator
call, numpy's power of the priors (the reference's own), limits and the final move choice.
With :class:`~chessmoe.search.mcts.UniformEvaluator` whole runs of mini-batches stay compiled
(the tree-speed benchmark).
"""

from __future__ import annotations

import functools
import math
import threading
import time
from collections.abc import Callable, Generator
from typing import Any

import chess
import numpy as np
import numpy.typing as npt

from chessmoe.encoding import _PLANE_LUT, NO_SQUARE, RECORD_DTYPE
from chessmoe.search.mcts import (
    Evaluation,
    Evaluator,
    LeafBatch,
    Limits,
    RootChild,
    SearchConfig,
    SearchResult,
    SearchSteps,
    UniformEvaluator,
    choose_child,
    drive,
)
from chessmoe.search.native import board as nb
from chessmoe.search.native import tree as nt
from chessmoe.search.native.mates import tree_mate
from chessmoe.search.proof import MATE_PROOF_PLIES
from chessmoe.search.stops import mate_reached, reported_depth

__all__ = ["NativeMCTS", "uniform_priors", "warm_up"]

_INITIAL_NODES = 512  # a new tree's nodes (edges: 40 a node); it grows by doubling
_CHUNK_BATCHES = 64  # compiled mini-batches between checks of the clock and the stop flag

assert RECORD_DTYPE.itemsize == nt.RECORD_SIZE


@functools.lru_cache(maxsize=8)
def uniform_priors(temperature: float) -> npt.NDArray[np.float64]:
    """``[n]``: each move's sharpened prior when n moves share a uniform prior, computed as the
    Python search computes it (float32 ``1/n``, the power in float64, numpy's sum)."""
    table = np.zeros(nt.MAX_MOVES + 1, dtype=np.float64)
    for n in range(1, nt.MAX_MOVES + 1):
        priors = np.full(n, 1.0 / n, dtype=np.float32)
        sharp = np.power(np.maximum(priors.astype(np.float64), 0.0), 1.0 / temperature)
        total = sharp.sum()
        table[n] = (sharp / total)[0] if total > 0 else 1 / n
    return table


class _Tree:
    """The arrays of one tree (:class:`chessmoe.search.native.tree.Tree`, replaced by a new
    record when an array grows)."""

    def __init__(self, nodes: int, edges: int | None = None) -> None:
        edges = nodes * 40 if edges is None else edges
        # np.zeros, never zeros_like: fresh zero pages cost nothing until written
        self.t = nt.Tree(np.zeros((nodes, nt.NI), dtype=np.int64),
                         np.zeros(nodes, dtype=np.float64),
                         np.zeros((nodes, nb.POS_WORDS), dtype=np.uint64),
                         np.zeros((edges, nt.EI), dtype=np.int64),
                         np.zeros((edges, 2), dtype=np.float64), np.zeros(4, dtype=np.int64))

    ni = property(lambda self: self.t.ni)
    nv = property(lambda self: self.t.nv)
    pos = property(lambda self: self.t.pos)
    ei = property(lambda self: self.t.ei)
    ef = property(lambda self: self.t.ef)
    st = property(lambda self: self.t.st)

    @property
    def nodes(self) -> int:
        return int(self.st[nt.S_NODES])

    @property
    def root(self) -> int:
        return int(self.st[nt.S_ROOT])

    def ensure(self, room_nodes: int, room_edges: int,
               stop: threading.Event | None = None) -> bool:
        """Grow (doubling) so that ``room_nodes`` nodes and ``room_edges`` edges fit. A grown
        array is copied in slices with ``stop`` checked between them: a copy of tens of MB
        takes about 100 ms, too long for a UCI ``stop``. Interrupted, the tree keeps its old
        arrays (whole and consistent) and the answer is False."""
        need_n = int(self.st[nt.S_NODES]) + room_nodes
        need_e = int(self.st[nt.S_EDGES]) + room_edges
        if need_n > len(self.ni):
            size = max(need_n, 2 * len(self.ni))
            ni, nv, pos = (_grow(a, size, stop) for a in (self.ni, self.nv, self.pos))
            if ni is None or nv is None or pos is None:
                return False
            self.t = self.t._replace(ni=ni, nv=nv, pos=pos)
        if need_e > len(self.ei):
            size = max(need_e, 2 * len(self.ei))
            ei, ef = (_grow(a, size, stop) for a in (self.ei, self.ef))
            if ei is None or ef is None:
                return False
            self.t = self.t._replace(ei=ei, ef=ef)
        return True


_GROW_SLICE_BYTES = 2 << 20  # copy a growing array 2 MB at a time, checking ``stop`` between


def _grow(array: npt.NDArray[Any], size: int, stop: threading.Event | None = None
          ) -> npt.NDArray[Any] | None:
    """``array`` in a zero-filled array of ``size`` rows; None when ``stop`` was set first."""
    grown = np.zeros((size, *array.shape[1:]), dtype=array.dtype)
    row_bytes = max(1, array.itemsize * int(np.prod(array.shape[1:], dtype=np.int64)))
    step = max(1, _GROW_SLICE_BYTES // row_bytes)
    for begin in range(0, len(array), step):
        if stop is not None and stop.is_set():
            return None
        end = min(begin + step, len(array))
        grown[begin:end] = array[begin:end]
    return grown


class NativeMCTS:
    """A PUCT search in compiled code that keeps its tree between moves (see the module doc)."""

    name = "native"

    def __init__(self, evaluator: Evaluator, config: SearchConfig | None = None) -> None:
        self.evaluator = evaluator
        self.config = config or SearchConfig()
        self._tree: _Tree | None = None
        self._history_moves: list[chess.Move] = []
        self._game = nt.Game(np.zeros(0, dtype=np.uint64),
                             np.full((8, 2), NO_SQUARE, dtype=np.int64), _PLANE_LUT)
        config = self.config
        self._params = nt.Params(float(config.c_init), float(config.c_base),
                                 float(config.unvisited_q), int(config.virtual_visits),
                                 int(config.batch_size), int(config.max_collisions or 0))
        self._uniform = uniform_priors(config.prior_temperature)
        self._buf = np.empty(nt.MAX_MOVES, dtype=np.int32)
        self._inv_t = 1.0 / config.prior_temperature

    # -- the public entry points --
    def search(self, board: chess.Board, limits: Limits,
               stop: threading.Event | None = None,
               on_progress: Callable[[SearchResult], None] | None = None,
               progress_every: float = 1.0) -> SearchResult:
        """Search ``board`` (with its move stack: the game history) until a limit."""
        return drive(self.search_steps(board, limits, stop, on_progress, progress_every),
                     self.evaluator.evaluate)

    def new_game(self) -> None:
        """Forget the tree (e.g. on ``ucinewgame``)."""
        self._tree = None
        self._history_moves = []

    def search_steps(self, board: chess.Board, limits: Limits,
                     stop: threading.Event | None = None,
                     on_progress: Callable[[SearchResult], None] | None = None,
                     progress_every: float = 1.0) -> SearchSteps:
        """:meth:`search` as a generator of mini-batches (see
        :meth:`chessmoe.search.mcts.MCTS.search_steps`)."""
        if not any(board.legal_moves):
            raise ValueError(f"no legal move in {board.fen()}")
        start = time.monotonic()
        deadline = start + limits.movetime_ms / 1000 if limits.movetime_ms else None
        max_simulations = limits.max_simulations
        reused = self._prepare_root(board)
        tree = self._tree
        assert tree is not None
        config = self.config
        counters = np.zeros(6, dtype=np.int64)  # nodes, sims, batches, collisions, depth, seldepth
        root = tree.root
        if not tree.ni[root, nt.FLAGS] & nt.EXPANDED:
            yield from self._evaluate_steps(np.array([root], dtype=np.int64), back_up=False)
            tree.ni[root, nt.VISITS] += 1
            counters[0] += 1
        node_limit = limits.nodes if limits.nodes is not None else -1
        sim_limit = max_simulations if max_simulations is not None else -1
        # go depth/mate are checked after each mini-batch: not the all-compiled uniform runs
        uniform = (type(self.evaluator) is UniformEvaluator and limits.depth is None
                   and limits.mate is None)
        next_report = start + progress_every
        leaves = np.empty(config.batch_size, dtype=np.int64)
        out = np.zeros(3, dtype=np.int64)
        while True:
            if deadline is not None and time.monotonic() >= deadline:
                break
            if stop is not None and stop.is_set():
                break
            if counters[2] and self._reached(limits, counters):
                break
            if uniform:
                status = nt.uniform_run(tree.t, self._params, self._game, self._uniform,
                                        node_limit, sim_limit, _CHUNK_BATCHES, counters)
                if status == 0:
                    break
                if status == 1:
                    room = 2 * config.batch_size + 2
                    if not tree.ensure(room, room * nt.MAX_MOVES, stop):
                        break
            else:
                if node_limit >= 0 and counters[0] >= node_limit:
                    break
                if sim_limit >= 0 and counters[1] >= sim_limit:
                    break
                if nt.root_decided(tree.t, root):
                    break
                want = config.batch_size
                if node_limit >= 0:
                    want = min(want, node_limit - int(counters[0]))
                if sim_limit >= 0:
                    want = min(want, sim_limit - int(counters[1]))
                room = 2 * want + 2
                if not tree.ensure(room, room * nt.MAX_MOVES, stop):
                    break
                nt.collect(tree.t, want, self._params, self._game, leaves, out)
                nleaves, done, hits = int(out[0]), int(out[1]), int(out[2])
                counters[1] += done
                counters[3] += hits
                if nleaves:
                    depth = yield from self._evaluate_steps(leaves[:nleaves].copy(),
                                                            back_up=True)
                    counters[0] += nleaves
                    counters[1] += nleaves
                    counters[2] += 1
                    counters[4] += depth[0]
                    counters[5] = max(int(counters[5]), int(depth[1]))
                elif done == 0:
                    break
            if on_progress is not None and time.monotonic() >= next_report:
                next_report = time.monotonic() + progress_every
                on_progress(self._result(counters, start, reused))
        return self._result(counters, start, reused)

    def _reached(self, limits: Limits, counters: npt.NDArray[np.int64]) -> bool:
        """``go depth``/``go mate`` reached (:mod:`chessmoe.search.stops`)."""
        if limits.depth is not None and reported_depth(
                int(counters[4]) / max(int(counters[0]) - 1, 1)) >= limits.depth:
            return True
        if limits.mate is None:
            return False
        tree = self._tree
        assert tree is not None
        root = tree.root
        first, count = int(tree.ni[root, nt.FIRST]), int(tree.ni[root, nt.COUNT])
        best = choose_child(tree.ei[first:first + count, nt.E_N].tolist(),
                            tree.ef[first:first + count, nt.E_W].tolist(),
                            self.config.q_veto_delta)
        return mate_reached(tree_mate(tree.ni, tree.nv, tree.ei, root, best, 2 * limits.mate),
                            limits.mate)

    # -- one mini-batch through the evaluator --
    def _evaluate_steps(self, leaves: npt.NDArray[np.int64], back_up: bool
                        ) -> Generator[LeafBatch, Evaluation, npt.NDArray[np.int64]]:
        tree = self._tree
        assert tree is not None
        n = len(leaves)
        records = np.zeros((n, nt.RECORD_SIZE), dtype=np.uint8)
        policy = np.empty(n * nt.MAX_MOVES, dtype=np.int64)
        offsets = np.empty(n + 1, dtype=np.int64)
        size = nt.write_batch(tree.t, leaves, n, self._game, records, policy, offsets)
        batch = LeafBatch(records=np.frombuffer(records, dtype=RECORD_DTYPE),
                          policy=policy[:size], offsets=offsets)
        result = yield batch
        flat, got = result.flat_priors()
        if got is not offsets and not np.array_equal(got, offsets):
            raise ValueError(f"the evaluator returned priors for {np.diff(got).tolist()} "
                             f"moves; the leaves have {np.diff(offsets).tolist()} legal moves")
        # the reference's arithmetic (chessmoe.search.mcts.MCTS._expand): the power in numpy
        # (element by element, as the reference's per-leaf calls), the sum and the stable
        # order in compiled code that repeats numpy's pairwise sum
        powered = np.power(np.maximum(flat.astype(np.float64), 0.0), self._inv_t)
        values = np.asarray(result.values).astype(np.float64)  # float(value), as the reference
        depth = np.zeros(2, dtype=np.int64)
        nt.finish_batch(tree.t, leaves, n, values, powered, offsets, self._params.vv, back_up,
                        depth)
        return depth

    # -- tree reuse --
    def _prepare_root(self, board: chess.Board) -> bool:
        """Point the root at ``board``, reusing a subtree when the game continued from the
        previous search's root; return whether a subtree was reused."""
        history = list(board.move_stack)
        tree = self._tree
        reused = False
        current = nb.pos_from_board(board)
        if (self.config.reuse_tree and tree is not None
                and history[:len(self._history_moves)] == self._history_moves):
            node = tree.root
            for move in history[len(self._history_moves):]:
                if node < 0 or not tree.ni[node, nt.FLAGS] & nt.EXPANDED:
                    node = -1
                    break
                code = nb.encode_move(move)
                first, count = tree.ni[node, nt.FIRST], tree.ni[node, nt.COUNT]
                hits = np.flatnonzero(tree.ei[first:first + count, nt.E_MOVE] == code)
                node = int(tree.ei[first + hits[0], nt.E_CHILD]) if len(hits) else -1
            if (node >= 0 and tree.ni[node, nt.FLAGS] & nt.EXPANDED
                    and nb.key(tree.pos[node]) == nb.key(current)):
                # as large as the old tree's used part, which holds the subtree
                fresh = _Tree(max(_INITIAL_NODES, tree.nodes),
                              max(_INITIAL_NODES * 40, int(tree.st[nt.S_EDGES])))
                nt.compact(tree.t, node, fresh.t)
                self._tree = fresh
                reused = True
        self._history_moves = history
        start = nb.pos_from_board(board.root())
        codes = np.array([nb.encode_move(m) for m in history], dtype=np.int32)
        hist = np.zeros(len(codes), dtype=np.uint64)
        nt.game_keys(start, codes, hist)
        last = np.full((8, 2), NO_SQUARE, dtype=np.int64)
        for k, move in enumerate(reversed(history[-8:])):
            last[k] = (move.from_square, move.to_square)
        self._game = nt.Game(hist, last, _PLANE_LUT)
        if not reused:
            tree = _Tree(_INITIAL_NODES)
            tree.pos[0] = current
            nt.new_node(tree.t, -1, -1, -1, self._game, self._buf)
            tree.ni[0, nt.FLAGS] &= ~nt.TERMINAL  # a move must be chosen whatever the position
            tree.ni[0, nt.MOVE] = -1
            self._tree = tree
        return reused

    # -- the answer --
    def _result(self, counters: npt.NDArray[np.int64], start: float, reused: bool
                ) -> SearchResult:
        tree = self._tree
        assert tree is not None
        root = tree.root
        first, count = int(tree.ni[root, nt.FIRST]), int(tree.ni[root, nt.COUNT])
        edges = slice(first, first + count)
        codes = tree.ei[edges, nt.E_MOVE]
        n = tree.ei[edges, nt.E_N]
        w = tree.ef[edges, nt.E_W]
        expanded = bool(tree.ni[root, nt.FLAGS] & nt.EXPANDED)
        priors = tree.ef[edges, nt.E_PRIOR] if expanded else np.zeros(count)
        moves = [nb.decode_move(int(c)) for c in codes]
        best = choose_child(n.tolist(), w.tolist(), self.config.q_veto_delta) if expanded else 0
        pv = [moves[best]]
        node = int(tree.ei[first + best, nt.E_CHILD])
        while node >= 0 and tree.ni[node, nt.FLAGS] & nt.EXPANDED:
            f, c = int(tree.ni[node, nt.FIRST]), int(tree.ni[node, nt.COUNT])
            child_n = tree.ei[f:f + c, nt.E_N]
            if not child_n.any():
                break
            i = int(np.argmax(child_n))
            pv.append(nb.decode_move(int(tree.ei[f + i, nt.E_MOVE])))
            node = int(tree.ei[f + i, nt.E_CHILD])
        q = w[best] / n[best] if n[best] else math.nan
        children = [RootChild(m, int(k), (float(s) / int(k) if k else None), float(p))
                    for m, k, s, p in zip(moves, n, w, priors, strict=True)]
        children.sort(key=lambda c: -c.visits)
        nodes = int(counters[0])
        return SearchResult(
            move=moves[best], value=0.0 if math.isnan(q) else float(q), pv=pv, nodes=nodes,
            simulations=int(counters[1]), tree_nodes=tree.nodes,
            seconds=time.monotonic() - start, depth=int(counters[4]) / max(nodes - 1, 1),
            seldepth=int(counters[5]), batches=int(counters[2]),
            collisions=int(counters[3]), children=children, reused=reused,
            mate=tree_mate(tree.ni, tree.nv, tree.ei, root, best, MATE_PROOF_PLIES)
            if expanded else None)


class _WarmEvaluator:
    """Uniform priors through the per-batch path (not the all-compiled uniform loop)."""

    def evaluate(self, batch: LeafBatch) -> Evaluation:
        return Evaluation(np.zeros(len(batch), dtype=np.float32),
                          [np.full(len(p), 1.0 / len(p), dtype=np.float32)
                           for p in batch.policy_indices])


def warm_up() -> None:
    """Compile (or load from numba's cache) every function a search uses: a few tiny searches
    through both paths, with a reused tree, and the per-batch glue of a network evaluation."""
    from chessmoe.phases import phase_definition
    from chessmoe.search.native import glue

    records = np.zeros(2, dtype=RECORD_DTYPE)
    glue.planes(records)
    glue.gate(records, phase_definition("lichess"))
    offsets = np.array([0, 1], dtype=np.int64)
    glue.legal_softmax_flat(np.zeros((1, 4864), dtype=np.float32),
                            np.zeros(1, dtype=np.int64), offsets)
    glue.chain_offsets(np.concatenate([offsets, offsets]), np.ones(2, dtype=np.int64))
    board = chess.Board()
    for evaluator in (UniformEvaluator(), _WarmEvaluator()):
        search = NativeMCTS(evaluator, SearchConfig(batch_size=4))
        search.search(board, Limits(nodes=40))
        board.push(chess.Move.from_uci("e2e4"))
        search.search(board, Limits(nodes=40))
        board.pop()
