"""PUCT search: scores, determinism (golden tree), mates, draws, limits, tree reuse."""

from __future__ import annotations

import json
import math

import chess
import numpy as np
import pytest

from chessmoe.search.mcts import (
    MCTS,
    Evaluation,
    LeafBatch,
    Limits,
    Node,
    RootChild,
    SearchConfig,
    UniformEvaluator,
    choose_child,
    exploration,
    puct_scores,
)
from tests.golden.regenerate import GOLDEN, HashEvaluator
from tests.golden.regenerate import run as golden_run


def test_exploration_constant_closed_form() -> None:
    assert exploration(0) == pytest.approx(math.log(19653 / 19652) + 2.5)
    assert exploration(19652) == pytest.approx(math.log((2 * 19652 + 1) / 19652) + 2.5)


def test_puct_scores_and_selection_match_the_closed_form() -> None:
    search = MCTS(UniformEvaluator())
    node = Node(chess.Board(), None, None, 0)
    node.moves = list(node.board.legal_moves)[:4]
    node.priors = [0.4, 0.3, 0.2, 0.1]
    node.child_n = [10, 5, 0, 0]
    node.child_w = [2.0, 3.0, 0.0, 0.0]
    node.children = [None] * 4
    node.visits = 16
    c = (math.log((16 + 19652 + 1) / 19652) + 2.5) * 4.0
    expected = [0.2 + c * 0.4 / 11, 0.6 + c * 0.3 / 6, -1 + c * 0.2, -1 + c * 0.1]
    assert puct_scores(node, search.config) == pytest.approx(expected)
    assert search._select(node) == int(np.argmax(expected))
    node.child_w[1] = -4.0  # Q of the second child drops to -0.8
    scores = puct_scores(node, search.config)
    assert search._select(node) == int(np.argmax(scores))


def _visits(result_children: list[RootChild]) -> dict[str, int]:
    return {c.move.uci(): c.visits for c in result_children if c.visits}


def test_seeded_search_is_deterministic_and_matches_the_golden_tree() -> None:
    """The golden file carries its input (position, seed, config); `python -m
    tests.golden.regenerate` rewrites it -- only when the search is meant to change."""
    golden = json.loads(GOLDEN.read_text())
    first, second = golden_run(golden["input"]), golden_run(golden["input"])
    assert first == second
    assert first == golden["output"], "the search changed: regenerate the golden file only " \
        "on purpose"


def test_mate_in_one_with_a_uniform_evaluator() -> None:
    result = MCTS(UniformEvaluator()).search(chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"),
                                             Limits(nodes=200))
    assert result.move == chess.Move.from_uci("a1a8")
    assert result.value == pytest.approx(1.0)


@pytest.mark.slow
@pytest.mark.parametrize("batch_size", [1, 8])
def test_mate_in_two_with_a_uniform_evaluator(batch_size: int) -> None:
    board = chess.Board("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1")  # 1.Ra6! bxa6 2.b7#
    result = MCTS(UniformEvaluator(), SearchConfig(batch_size=batch_size)).search(
        board, Limits(nodes=3000))
    assert result.move == chess.Move.from_uci("a1a6")
    assert result.value > 0.8


def test_stalemate_and_threefold_are_draws() -> None:
    # Qb6?? stalemates the black king on a8 (Qb7# would mate instead).
    search = MCTS(UniformEvaluator())
    board = chess.Board("k7/8/2K5/8/8/8/8/1Q6 w - - 0 1")
    search.search(board, Limits(nodes=400))
    root = search.root
    assert root is not None
    stalemate = root.children[root.moves.index(chess.Move.from_uci("b1b6"))]
    assert stalemate is not None and stalemate.terminal and stalemate.terminal_value == 0.0
    mate = root.children[root.moves.index(chess.Move.from_uci("b1b7"))]
    assert mate is not None and mate.terminal and mate.terminal_value == -1.0
    assert root.q(root.moves.index(chess.Move.from_uci("b1b6"))) == 0.0
    # Threefold: the position after Ng1 has occurred twice before in the game.
    game = chess.Board()
    for san in ("Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6"):
        game.push_san(san)
    search = MCTS(UniformEvaluator())
    search.search(game, Limits(nodes=100))
    root = search.root
    assert root is not None
    repeat = root.children[root.moves.index(chess.Move.from_uci("f3g1"))]
    assert repeat is not None and repeat.terminal and repeat.terminal_value == 0.0
    fresh = root.children[root.moves.index(chess.Move.from_uci("e2e4"))]
    assert fresh is None or not fresh.terminal
    # Twice is not enough: after four plies fewer, Ng1 only repeats once.
    short = chess.Board()
    for san in ("Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6"):
        short.push_san(san)
    search = MCTS(UniformEvaluator())
    search.search(short, Limits(nodes=100))
    assert search.root is not None
    once = search.root.children[search.root.moves.index(chess.Move.from_uci("f3g1"))]
    assert once is not None and not once.terminal


def test_fifty_move_rule_and_insufficient_material_are_draws() -> None:
    search = MCTS(UniformEvaluator())
    search.search(chess.Board("8/8/4k3/8/8/3K4/8/6R1 w - - 99 80"), Limits(nodes=40))
    root = search.root
    assert root is not None
    visited = [c for c in root.children if c is not None]
    assert visited and all(c.terminal and c.terminal_value == 0.0 for c in visited)
    search = MCTS(UniformEvaluator())
    search.search(chess.Board("8/8/4k3/8/8/3K4/8/6n1 w - - 0 1"), Limits(nodes=20))
    root = search.root
    assert root is not None
    # Kxn1 is impossible here; every child keeps K+N vs K or K vs K: insufficient material
    # only after the knight is taken, so check the children that are K vs K
    for move, child in zip(root.moves, root.children, strict=True):
        if child is None:
            continue
        board = root.board.copy(stack=False)
        board.push(move)
        assert child.terminal == board.is_insufficient_material()
        if child.terminal:
            assert child.terminal_value == 0.0
    lone = MCTS(UniformEvaluator())
    lone.search(chess.Board("8/8/4k3/8/3n4/3K4/8/8 w - - 0 1"), Limits(nodes=30))
    assert lone.root is not None
    takes = lone.root.moves.index(chess.Move.from_uci("d3d4"))
    child = lone.root.children[takes]
    assert child is not None and child.terminal and child.terminal_value == 0.0


@pytest.mark.parametrize("batch_size", [1, 8, 64])
def test_node_and_simulation_limits(batch_size: int) -> None:
    config = SearchConfig(batch_size=batch_size)
    result = MCTS(HashEvaluator(), config).search(chess.Board(), Limits(nodes=250))
    assert result.nodes == 250
    result = MCTS(HashEvaluator(), config).search(chess.Board(), Limits(simulations=100))
    assert result.simulations == 100


def test_batches_are_filled_up_to_the_batch_size() -> None:
    evaluator = HashEvaluator()
    MCTS(evaluator, SearchConfig(batch_size=16)).search(chess.Board(), Limits(nodes=321))
    assert evaluator.calls[0] == 1  # the root alone
    assert max(evaluator.calls) == 16 and sum(evaluator.calls) == 321


class SlowEvaluator(UniformEvaluator):
    """Takes 20 ms per batch, so a time limit is met by counting batches, not by timing."""

    def evaluate(self, batch: LeafBatch) -> Evaluation:
        import time

        time.sleep(0.02)
        return super().evaluate(batch)


def test_time_limit_is_respected() -> None:
    result = MCTS(SlowEvaluator(), SearchConfig(batch_size=4)).search(
        chess.Board(), Limits(movetime_ms=100))
    assert result.seconds >= 0.1
    assert 1 <= result.batches <= 5  # 100 ms / 20 ms per batch, the root's call included


def test_tree_reuse_keeps_the_subtree() -> None:
    search = MCTS(HashEvaluator(seed=3), SearchConfig(batch_size=8))
    board = chess.Board()
    first = search.search(board, Limits(nodes=600))
    assert not first.reused
    root = search.root
    assert root is not None and first.move is not None
    child = root.children[root.moves.index(first.move)]
    assert child is not None and child.expanded
    reply_index = max(range(len(child.moves)), key=lambda i: child.child_n[i])
    reply = child.moves[reply_index]
    grandchild = child.children[reply_index]
    assert grandchild is not None
    kept = grandchild.subtree_size()
    board.push(first.move)
    board.push(reply)
    second = search.search(board, Limits(nodes=100))
    assert second.reused
    assert second.tree_nodes == kept + 100
    assert search.root is grandchild and search.root.depth == 0
    # A position outside the tree starts afresh.
    third = search.search(chess.Board("8/8/4k3/8/8/3K4/4P3/8 w - - 0 1"), Limits(nodes=20))
    assert not third.reused and third.tree_nodes == 20


def test_q_veto_prefers_a_clearly_better_child() -> None:
    search = MCTS(UniformEvaluator())
    root = Node(chess.Board(), None, None, 0)
    root.moves = list(root.board.legal_moves)[:3]
    root.priors = [0.5, 0.3, 0.2]
    root.child_n = [100, 40, 5]
    root.child_w = [10.0, 30.0, 1.0]  # Q = 0.1, 0.75, 0.2
    root.children = [None] * 3
    assert search._choose(root) == 1  # 0.75 - 0.1 > 0.4 with more than one visit
    root.child_w = [10.0, 16.0, 1.0]  # Q = 0.1, 0.4: no veto, runner-up boosted
    assert search._choose(root) == 0  # 40 + 0.3 * 100 = 70 < 100
    root.child_w = [-20.0, 12.0, 1.0]  # Q = -0.2, 0.3: veto (0.5 > 0.4)
    assert search._choose(root) == 1
    root.child_n = [100, 80, 5]
    root.child_w = [10.0, 32.0, 1.0]  # Q = 0.1, 0.4: 80 + 0.3 * 100 = 110 > 100
    assert search._choose(root) == 1


def test_q_veto_needs_more_than_one_visit() -> None:
    """A child seen once cannot take over, however good its single value looks."""
    search = MCTS(UniformEvaluator())
    root = Node(chess.Board(), None, None, 0)
    root.moves = list(root.board.legal_moves)[:3]
    root.priors = [0.5, 0.3, 0.2]
    root.children = [None] * 3
    root.child_n = [100, 1, 5]
    root.child_w = [10.0, 1.0, 1.0]  # Q = 0.1, 1.0 (one visit), 0.2
    assert search._choose(root) == 0
    root.child_n = [100, 2, 5]
    root.child_w = [10.0, 2.0, 1.0]  # the same Q with two visits: the veto applies
    assert search._choose(root) == 1


@pytest.mark.parametrize("delta", [0.25, 0.4])
def test_q_veto_takes_over_only_above_its_threshold(delta: float) -> None:
    """A Q lead of exactly ``q_veto_delta`` is no veto (the most visited move stays, its
    runner-up boosted to 4 + delta x 10 < 10); any more and the better child takes over."""
    assert choose_child([10, 4], [0.0, 4 * delta], delta) == 0  # Q = 0, delta: equal, no veto
    assert choose_child([10, 4], [0.0, 4 * delta + 0.01], delta) == 1
    assert choose_child([10, 4], [-0.01, 4 * delta], delta) == 1
    # the same through the search's own choice
    search = MCTS(UniformEvaluator(), SearchConfig(q_veto_delta=delta))
    root = Node(chess.Board(), None, None, 0)
    root.moves = list(root.board.legal_moves)[:2]
    root.priors = [0.6, 0.4]
    root.children = [None] * 2
    root.child_n = [10, 4]
    root.child_w = [0.0, 4 * delta]
    assert search._choose(root) == 0


def test_the_default_simulation_cap_is_twice_the_node_limit() -> None:
    assert Limits(nodes=100).max_simulations == 200
    assert Limits(nodes=1).max_simulations == 2
    assert Limits(nodes=100, simulations=7).max_simulations == 7
    assert Limits(simulations=30).max_simulations == 30
    assert Limits(movetime_ms=5).max_simulations is None


def test_runner_up_boost_is_q_difference_times_best_visits() -> None:
    """The runner-up's visits grow by (Q2 - Q1) * n_best: with n = (100, 71), Q = (0.1,
    0.5) it gets 71 + 0.4 x 100 = 111 > 100 and wins; a boost of (Q2 - Q1) * n_runner_up
    (28.4) or a plain visit count would keep the first move."""
    search = MCTS(UniformEvaluator(), SearchConfig(q_veto_delta=0.45))
    root = Node(chess.Board(), None, None, 0)
    root.moves = list(root.board.legal_moves)[:2]
    root.priors = [0.6, 0.4]
    root.children = [None] * 2
    root.child_n = [100, 71]
    root.child_w = [10.0, 35.5]  # Q = 0.1, 0.5: difference 0.4 < 0.45, no veto
    assert search._choose(root) == 1
    root.child_n = [100, 59]
    root.child_w = [10.0, 29.5]  # 59 + 40 = 99 < 100
    assert search._choose(root) == 0


def test_the_leaf_record_is_the_encoders_record() -> None:
    """The network must see in play what it saw in training: a leaf's compact record, built
    by the search from its tree and the game history, equals the encoder's record of the
    same board with the same move stack (history, repetitions, castling, en passant)."""
    from chessmoe.encoding import board_record_tuple

    class Capture:
        def __init__(self) -> None:
            self.batches: list[LeafBatch] = []

        def evaluate(self, batch: LeafBatch) -> Evaluation:
            self.batches.append(batch)
            return UniformEvaluator().evaluate(batch)

    game = chess.Board()
    for san in ("Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "e4", "d5"):  # a repetition too
        game.push_san(san)
    capture = Capture()
    search = MCTS(capture, SearchConfig(batch_size=4))
    search.search(game, Limits(nodes=60))
    checked = 0
    for batch in capture.batches:
        for board, record in zip(batch.boards, batch.records, strict=True):
            path: list[chess.Move] = []
            node = next((n for n in _nodes(search.root) if n.board is board), None)
            assert node is not None
            while node.move is not None:
                path.append(node.move)
                node = node.parent
            full = game.copy()
            for move in reversed(path):
                full.push(move)
            expected = np.array([board_record_tuple(full)], dtype=record.dtype)[0]
            assert record.tobytes() == expected.tobytes(), full.fen()
            checked += 1
    assert checked >= 40


def _nodes(root: Node | None) -> list[Node]:
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if node is not None:
            out.append(node)
            stack.extend(node.children)
    return out


def test_search_refuses_a_finished_game() -> None:
    with pytest.raises(ValueError, match="no legal move"):
        MCTS(UniformEvaluator()).search(chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"),
                                        Limits(nodes=10))


def test_leaf_records_after_tree_reuse_equal_the_encoders() -> None:
    """After a reused subtree, every leaf sent to the network carries the record the encoder
    makes from the whole game (the game's new moves, the search path, repetitions)."""
    from chessmoe.encoding import RECORD_DTYPE, board_record_tuple

    class KnightShuffler:
        """Value 0, priors ten times higher for knight moves: the search shuffles knights
        back and forth, so its leaves repeat positions of the game."""

        def __init__(self) -> None:
            self.batches: list[LeafBatch] = []

        def evaluate(self, batch: LeafBatch) -> Evaluation:
            self.batches.append(batch)
            priors = []
            for b, moves in zip(batch.boards, batch.moves, strict=True):
                p = np.array([10.0 if b.piece_type_at(m.from_square) == chess.KNIGHT else 1.0
                              for m in moves], dtype=np.float32)
                priors.append(p / p.sum())
            return Evaluation(np.zeros(len(batch), dtype=np.float32), priors)

    evaluator = KnightShuffler()
    search = MCTS(evaluator, SearchConfig(batch_size=8))
    board = chess.Board()
    for san in ("Nf3", "Nf6"):
        board.push_san(san)
    search.search(board, Limits(nodes=400))
    # the game goes on with Ng1 Ng8, both in the tree: the start position comes back, and
    # its knight moves lead to positions the game has already seen
    root = search.root
    assert root is not None
    back, home = chess.Move.from_uci("f3g1"), chess.Move.from_uci("f6g8")
    child = root.children[root.moves.index(back)]
    assert child is not None and child.expanded and child.children[child.moves.index(home)]
    board.push(back)
    board.push(home)
    evaluator.batches.clear()
    second = search.search(board, Limits(nodes=120))
    assert second.reused
    # the path from the new root to every node, by the identity of its board (a node not
    # yet expanded has moves but no children)
    paths: dict[int, list[chess.Move]] = {}
    stack: list[tuple[Node, list[chess.Move]]] = [(search.root, [])]  # type: ignore[list-item]
    while stack:
        node, path = stack.pop()
        paths[id(node.board)] = path
        stack.extend((c, [*path, m]) for c, m in zip(node.children, node.moves, strict=False)
                     if c is not None)
    leaves = [(b, r) for batch in evaluator.batches
              for b, r in zip(batch.boards, batch.records, strict=True)]
    assert len(leaves) >= 100
    repeated = 0
    for leaf, record in leaves:
        game = board.copy()
        for move in paths[id(leaf)]:
            game.push(move)
        expected = np.array(board_record_tuple(game), dtype=RECORD_DTYPE)
        repeated += int(expected["repetition"]) > 0
        for name in RECORD_DTYPE.names:
            assert np.array_equal(record[name], expected[name]), (name, game.fen())
    assert repeated >= 2  # leaves that repeat the game's positions were sent
