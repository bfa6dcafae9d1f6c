"""go depth and go mate in every search, and the mates each proves: the depth a
search stops at is the depth it reports, a proven mate is a real forced mate (checked against a
brute-force solver), a proof needs every defence, and a loss is claimed only when every move
was weighed."""

from __future__ import annotations

from dataclasses import dataclass, field

import chess
import numpy as np
import pytest

from chessmoe.nets.related.pesto import PestoEvaluator
from chessmoe.search.alphabeta import AlphaBeta
from chessmoe.search.alphabeta_compare import CompareAlphaBeta
from chessmoe.search.bestfirst import BestFirst
from chessmoe.search.kinds import make_search
from chessmoe.search.mcts import Limits, SearchConfig, UniformEvaluator
from chessmoe.search.native import mates as mates_native
from chessmoe.search.native import tree
from chessmoe.search.proof import prove, tree_mate
from chessmoe.search.stops import last_iteration, mate_reached, reported_depth

MATE_IN_1 = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"  # Ra8#
MATED_IN_1 = "8/8/8/8/8/1k6/2q4P/K7 w - - 0 1"  # h3 or h4, then Qb2# (or Qc1#)
MATES_IN_2 = ["Q7/6K1/8/8/4R3/8/8/3k4 w - - 0 1", "7k/2R5/8/4K3/8/8/8/4Q3 w - - 0 1",
              "8/8/8/8/8/1R3R2/2k5/5K2 w - - 0 1"]  # found by brute force; none mates in 1


def solve(board: chess.Board, plies: int) -> int | None:
    """Brute force: the shortest forced mate within ``plies`` plies, signed for the side to
    move (+: it mates, -: it is mated), or None."""
    if board.is_checkmate():
        return 0
    if plies <= 0 or board.is_game_over(claim_draw=False):
        return None
    best_win: int | None = None
    worst_loss = 0
    all_lose = True
    for move in list(board.legal_moves):
        board.push(move)
        answer = solve(board, plies - 1)
        board.pop()
        if answer is not None and answer <= 0:  # the reply is mated (now or later)
            distance = -answer + 1
            best_win = distance if best_win is None else min(best_win, distance)
        if answer is None or answer <= 0:
            all_lose = False
        else:
            worst_loss = max(worst_loss, answer + 1)
    if best_win is not None:
        return best_win
    return -worst_loss if all_lose else None


def test_the_brute_force_solver_reads_the_test_positions() -> None:
    assert solve(chess.Board(MATE_IN_1), 1) == 1
    assert solve(chess.Board(MATED_IN_1), 2) == -2
    for fen in MATES_IN_2:
        assert solve(chess.Board(fen), 2) is None and solve(chess.Board(fen), 3) == 3


def test_golden_values() -> None:
    assert [reported_depth(d) for d in (0.0, 0.4, 1.49, 2.5, 2.51, 7.0)] == [1, 1, 1, 2, 3, 7]
    assert last_iteration(64, Limits(depth=3)) == 3
    assert last_iteration(3, Limits(depth=9)) == 9  # go depth is the iteration, past Depth
    assert last_iteration(3, Limits(mate=2)) == 3 and last_iteration(3, Limits(mate=4)) == 7
    assert last_iteration(64, Limits(depth=2, mate=4)) == 2
    assert last_iteration(5, Limits(nodes=10)) == 5 and last_iteration(5, None) == 5
    assert [mate_reached(m, 2) for m in (None, 1, 3, 5, -2, -8)] == [
        False, True, True, False, True, True]


# --- the tree proof ----------------------------------------------------------------------


@dataclass
class FakeNode:
    terminal: bool = False
    terminal_value: float = 0.0
    expanded: bool = True
    children: list[FakeNode | None] = field(default_factory=list)


MATED = FakeNode(terminal=True, terminal_value=-1.0, expanded=False)
DRAWN = FakeNode(terminal=True, terminal_value=0.0, expanded=False)


def test_a_win_needs_one_lost_child_and_a_loss_needs_every_child_won() -> None:
    assert prove(None, MATED, 5) == -1  # checkmated now: lost in 0 plies
    assert prove(None, DRAWN, 5) == 0
    mates = FakeNode(children=[None, MATED])  # one move mates, another is unexplored
    assert prove(None, mates, 5) == 1
    cornered = FakeNode(children=[mates, FakeNode(children=[MATED, None])])
    assert prove(None, cornered, 5) == -3  # every move lets the opponent mate: lost in 2 plies
    assert prove(None, FakeNode(children=[mates, None]), 5) == 0  # one defence never looked at
    assert prove(None, FakeNode(children=[mates, DRAWN]), 5) == 0  # a draw is no mate
    assert prove(None, FakeNode(children=[mates, FakeNode(expanded=False)]), 5) == 0
    root = FakeNode(children=[FakeNode(children=[None]), cornered])
    assert prove(None, root, 5) == 3 and tree_mate(None, root, 1) == 3
    assert tree_mate(None, root, 0) is None
    assert prove(None, root, 2) == 0  # a mate in 3 plies is beyond a proof 2 plies deep
    lost_root = FakeNode(children=[mates, mates])
    assert tree_mate(None, lost_root, 0) == -2 and prove(None, lost_root, 5) == -3
    assert tree_mate(None, FakeNode(children=[mates, None]), 0) is None  # the other move: unknown


def as_arrays(root: FakeNode) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray],
                                       dict[int, int]]:
    """``root``'s tree as the compiled search's arrays ``(ni, nv, ei)``, and each node's row."""
    rows: dict[int, int] = {}
    order: list[FakeNode] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) not in rows:
            rows[id(node)] = len(order)
            order.append(node)
            stack.extend(c for c in node.children if c is not None)
    ni = np.zeros((len(order), tree.NI), dtype=np.int64)
    nv = np.array([n.terminal_value for n in order])
    ei = np.full((sum(len(n.children) for n in order), tree.EI), -1, dtype=np.int64)
    edge = 0
    for row, node in enumerate(order):
        ni[row, tree.FIRST], ni[row, tree.COUNT] = edge, len(node.children)
        ni[row, tree.FLAGS] = ((tree.TERMINAL if node.terminal else 0)
                               | (tree.EXPANDED if node.expanded else 0))
        for child in node.children:
            ei[edge, tree.E_CHILD] = -1 if child is None else rows[id(child)]
            edge += 1
    return (ni, nv, ei), rows


def test_the_compiled_proof_is_the_python_proof() -> None:
    mates = FakeNode(children=[None, MATED])
    cornered = FakeNode(children=[mates, FakeNode(children=[MATED, None])])
    roots = [FakeNode(children=[FakeNode(children=[None]), cornered]),
             FakeNode(children=[mates, mates]), FakeNode(children=[mates, DRAWN, cornered]),
             FakeNode(children=[cornered, FakeNode(expanded=False), MATED])]
    answers = set()
    for root in roots:
        arrays, rows = as_arrays(root)
        stack = [root]
        while stack:
            node = stack.pop()
            stack.extend(c for c in node.children if c is not None)
            for plies in range(6):
                answer = prove(None, node, plies)
                assert mates_native.prove(arrays, rows[id(node)], plies) == answer
                answers.add(answer)
        for best in range(len(root.children)):
            for plies in (2, 3, 5):
                assert (mates_native.tree_mate(*arrays, rows[id(root)], best, plies)
                        == tree_mate(None, root, best, plies))
    assert answers == {-3, -1, 0, 1, 3}  # wins, losses and unknowns were all compared


@pytest.mark.parametrize(("kind", "fen"), [
    *[(kind, fen) for kind in ("python", "native") for fen in (MATE_IN_1, MATED_IN_1)],
    *[("native", fen) for fen in MATES_IN_2], ("python", MATES_IN_2[2]),
    *[pytest.param("python", fen, marks=pytest.mark.slow) for fen in MATES_IN_2[:2]]])
def test_a_proven_mate_is_a_forced_mate(kind: str, fen: str) -> None:
    board = chess.Board(fen)
    result = make_search(UniformEvaluator(), SearchConfig(), kind).search(
        board, Limits(mate=2, nodes=60_000))
    assert result.mate is not None and result.move is not None
    if result.mate > 0:  # the move played mates by force within that many plies
        board.push(result.move)
        assert solve(board, result.mate - 1) == -(result.mate - 1)
    else:
        assert fen == MATED_IN_1 and result.mate == -2
    assert result.mate == (1 if fen == MATE_IN_1 else -2 if fen == MATED_IN_1 else 3)


def test_both_tree_searches_prove_the_same_mates() -> None:
    for fen in (MATE_IN_1, MATED_IN_1, *MATES_IN_2):
        for nodes in (50, 400, 1500):
            mates = [make_search(UniformEvaluator(), SearchConfig(), kind).search(
                chess.Board(fen), Limits(nodes=nodes)).mate for kind in ("python", "native")]
            assert mates[0] == mates[1], (fen, nodes, mates)


# --- go depth -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["python", "native"])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_mcts_stops_at_the_first_batch_whose_mean_depth_reaches_the_limit(
        kind: str, depth: int) -> None:
    config = SearchConfig(batch_size=1)  # one leaf a batch: the search before is a prefix
    board = chess.Board()
    result = make_search(UniformEvaluator(), config, kind).search(
        board, Limits(depth=depth, nodes=3000))  # the depth stops it long before
    assert reported_depth(result.depth) == depth
    shorter = make_search(UniformEvaluator(), config, kind).search(
        board, Limits(nodes=result.nodes - 1))
    assert reported_depth(shorter.depth) < depth or shorter.nodes <= 2


def test_alpha_beta_depth_is_the_iteration_and_mate_bounds_it() -> None:
    search = AlphaBeta(PestoEvaluator())  # max_depth 64; the node caps only bound a failure
    assert search.play(chess.Board(), Limits(depth=2, nodes=50_000)).depth == 2.0
    shallow = AlphaBeta(PestoEvaluator(), max_depth=1)
    assert shallow.play(chess.Board(), Limits(depth=3, nodes=50_000)).depth == 3.0
    none = search.play(chess.Board(), Limits(mate=1, nodes=50_000))
    assert none.depth == 1.0 and none.mate is None  # no mate in 1: one iteration is proof
    for fen in MATES_IN_2:
        found = search.play(chess.Board(fen), Limits(mate=2, nodes=200_000))
        assert found.mate == 3 and found.depth <= 3.0
    assert search.play(chess.Board(MATED_IN_1), Limits(depth=4)).mate == -2
    assert search.play(chess.Board(MATE_IN_1), Limits(depth=4)).mate == 1


def test_alpha_beta_claims_a_loss_only_from_an_iteration_that_weighed_every_move() -> None:
    board = chess.Board(MATED_IN_1)
    full = AlphaBeta(PestoEvaluator()).play(board, Limits(depth=2))
    assert full.mate == -2
    for nodes in range(1, full.nodes + 1):  # stopped anywhere, a loss claimed is proven
        result = AlphaBeta(PestoEvaluator()).play(board, Limits(nodes=nodes, depth=2))
        if result.mate is not None:
            assert result.mate == -2 and result.depth == 2.0, nodes


def _pesto_better() -> CompareAlphaBeta:
    pesto = PestoEvaluator()

    def white(board: chess.Board) -> float:
        value = pesto(board)
        return value if board.turn == chess.WHITE else -value

    return CompareAlphaBeta(lambda a, b: white(a) > white(b), max_depth=3)


def test_the_comparison_search_depth_and_mates() -> None:
    search = _pesto_better()
    assert search.play(chess.Board(), Limits(depth=2)).depth == 2.0
    assert search.play(chess.Board(), Limits(depth=4, nodes=400)).depth <= 4.0
    assert search.play(chess.Board(MATE_IN_1), Limits(mate=1)).mate == 1
    assert search.play(chess.Board(MATED_IN_1), Limits(depth=2)).mate == -2
    for fen in MATES_IN_2:
        assert search.play(chess.Board(fen), Limits(mate=2)).mate == 3
    loss = search.play(chess.Board(MATED_IN_1), Limits(depth=2))
    for nodes in range(1, loss.nodes + 1):
        result = _pesto_better().play(chess.Board(MATED_IN_1), Limits(nodes=nodes, depth=2))
        if result.mate is not None:
            assert result.mate == -2 and result.depth == 2.0, nodes


def _material(boards: list[chess.Board]) -> list[float]:
    pesto = PestoEvaluator()
    return [pesto(b) if b.turn == chess.WHITE else -pesto(b) for b in boards]


def test_best_first_depth_and_mates() -> None:
    search = BestFirst(_material)  # type: ignore[arg-type]
    result = search.search(chess.Board(), Limits(depth=2, nodes=3000))
    # the root's expansion (mean 0 + 1), then one at depth 1 (mean 0.5 + 1 = 1.5 -> 2)
    assert reported_depth(result.depth) == 2 and result.simulations == 2
    assert search.search(chess.Board(MATED_IN_1), Limits(nodes=2000)).mate == -2
    for fen in MATES_IN_2[1:]:  # the mate stops it within 4,100 positions
        found = search.search(chess.Board(fen), Limits(mate=2, nodes=12_000))
        assert found.mate == 3 and found.nodes < 4100, fen


@pytest.mark.parametrize("kind", ["python", "native"])
def test_go_mate_stops_the_tree_search_once_the_mate_is_proven(kind: str) -> None:
    cases = [(MATE_IN_1, 1), (MATED_IN_1, 1)] + ([(MATES_IN_2[2], 2)] if kind == "native" else [])
    for fen, moves in cases:
        unbounded = make_search(UniformEvaluator(), SearchConfig(), kind).search(
            chess.Board(fen), Limits(nodes=6000))
        stopped = make_search(UniformEvaluator(), SearchConfig(), kind).search(
            chess.Board(fen), Limits(mate=moves, nodes=6000))
        assert mate_reached(stopped.mate, moves) and stopped.nodes < unbounded.nodes, fen
        if stopped.nodes > 9:  # the batch before had not proven it
            shorter = make_search(UniformEvaluator(), SearchConfig(), kind).search(
                chess.Board(fen), Limits(nodes=stopped.nodes - 8))
            assert not mate_reached(shorter.mate, moves), fen
