"""The compiled search plays exactly like the Python reference (moves, visits, batches, games),
writes the same leaf planes, and stops, grows and refuses cleanly."""

from __future__ import annotations

import random
import threading
import time

import chess
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessmoe.encoding import RECORD_DTYPE, board_to_planes, records_to_planes
from chessmoe.search import native
from chessmoe.search.kinds import SEARCH_KINDS, check_search_kind, make_search
from chessmoe.search.mcts import MCTS, Limits, Node, SearchConfig, UniformEvaluator
from chessmoe.search.native import search as native_search
from chessmoe.search.native import tree as nt
from chessmoe.search.native.parity import compare_searches, parity_positions
from chessmoe.search.native.search import NativeMCTS, uniform_priors
from tests.golden.regenerate import HashEvaluator
from tests.helpers import RULE_EDGES, rule_edge_board, rule_edge_boards

MATE_IN_TWO = "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1"  # 1.Ra6! bxa6 2.b7#


def _root_view(result: object) -> list[tuple[str, int, float | None]]:
    return [(c.move.uci(), c.visits, c.q) for c in result.children]  # type: ignore[attr-defined]


@pytest.mark.parametrize("batch_size", [1, 8, 64])
def test_same_moves_visits_and_batches_as_the_python_search(batch_size: int) -> None:
    boards = parity_positions(24, seed=batch_size)
    result = compare_searches(boards, lambda: HashEvaluator(seed=5), label="hash",
                              batch_size=batch_size, nodes=120)
    assert result.positions == 24
    assert result.exact, result.mismatches


@pytest.mark.parametrize("batch_size", [1, 8])
def test_whole_games_with_tree_reuse_match_the_python_search(batch_size: int) -> None:
    """Both searches play the same game move for move, reusing their trees, with the same
    root visits, PV and depth statistics (history and repetitions included)."""
    python = MCTS(HashEvaluator(seed=11), SearchConfig(batch_size=batch_size))
    compiled = NativeMCTS(HashEvaluator(seed=11), SearchConfig(batch_size=batch_size))
    board = chess.Board()
    rng = random.Random(batch_size)
    for _ in range(4):
        board.push(rng.choice(list(board.legal_moves)))
    reused = 0
    while not board.is_game_over(claim_draw=True) and board.ply() < 60:
        a = python.search(board, Limits(nodes=80))
        b = compiled.search(board, Limits(nodes=80))
        assert (a.move, _root_view(a), a.pv, a.reused, a.tree_nodes, a.depth, a.seldepth,
                a.simulations, a.collisions) == (b.move, _root_view(b), b.pv, b.reused,
                                                 b.tree_nodes, b.depth, b.seldepth,
                                                 b.simulations, b.collisions)
        reused += b.reused
        assert a.move is not None
        board.push(a.move)
    assert reused > 10  # the trees really were reused


def test_uniform_search_is_the_python_search_and_finds_the_mate() -> None:
    for batch_size in (1, 8):
        board = chess.Board(MATE_IN_TWO)
        a = MCTS(UniformEvaluator(), SearchConfig(batch_size=batch_size)).search(
            board, Limits(nodes=3000))
        b = NativeMCTS(UniformEvaluator(), SearchConfig(batch_size=batch_size)).search(
            board, Limits(nodes=3000))
        assert b.move == chess.Move.from_uci("a1a6")
        assert _root_view(a) == _root_view(b)
        assert (a.simulations, a.tree_nodes) == (b.simulations, b.tree_nodes)


def test_uniform_prior_table_is_the_reference_arithmetic() -> None:
    table = uniform_priors(1.7)
    for n in (1, 2, 20, 35, 218):
        priors = np.full(n, 1.0 / n, dtype=np.float32)
        sharp = np.power(priors.astype(np.float64), 1 / 1.7)
        assert table[n] == (sharp / sharp.sum())[0]
    assert table[1] == 1.0


@pytest.mark.parametrize(("fen", "value"), [
    ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 0.0),  # stalemate
    ("8/8/8/8/8/2k5/8/K1N5 w - - 0 1", 0.0),  # insufficient material
])
def test_terminal_children_score_as_the_rules_say(fen: str, value: float) -> None:
    board = chess.Board(fen)
    if not any(board.legal_moves):
        with pytest.raises(ValueError, match="no legal move"):
            NativeMCTS(UniformEvaluator()).search(board, Limits(nodes=10))
        return
    result = NativeMCTS(UniformEvaluator()).search(board, Limits(nodes=200))
    assert result.value == pytest.approx(value)


def test_leaf_records_expand_to_the_planes_of_the_game_board() -> None:
    """Every node of a searched tree (deep ones, repeated ones) writes the record whose planes
    are python-chess's for the board with the whole game and path as its move stack."""
    board = chess.Board()
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8") * 2:
        board.push_uci(uci)  # the root's position occurred twice before
    search = NativeMCTS(HashEvaluator(seed=2), SearchConfig(batch_size=4))
    search.search(board, Limits(nodes=300))
    tree = search._tree
    assert tree is not None
    nodes = np.arange(tree.nodes, dtype=np.int64)
    records = np.zeros((len(nodes), nt.RECORD_SIZE), dtype=np.uint8)
    counts = tree.ni[nodes, nt.COUNT]
    policy = np.empty(int(counts.sum()), dtype=np.int64)
    offsets = np.empty(len(nodes) + 1, dtype=np.int64)
    nt.write_batch(tree.t, nodes, len(nodes), search._game, records, policy, offsets)
    planes = records_to_planes(records.view(RECORD_DTYPE).reshape(len(nodes)))
    repeated = [0, 0]
    for node in nodes:
        path = []
        x = int(node)
        while tree.ni[x, nt.PARENT] >= 0:
            path.append(native.board.decode_move(int(tree.ni[x, nt.MOVE])))
            x = int(tree.ni[x, nt.PARENT])
        game = board.copy()
        for move in reversed(path):
            game.push(move)
        np.testing.assert_array_equal(planes[node], board_to_planes(game), err_msg=game.fen())
        repeated[0] += game.is_repetition(2)
        repeated[1] += game.is_repetition(3)
    assert min(repeated) > 0  # both repetition planes were exercised


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 60),
       batch_size=st.sampled_from([1, 3, 8]))
def test_random_games_search_alike(seed: int, plies: int, batch_size: int) -> None:
    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    if not any(board.legal_moves):
        return
    result = compare_searches([board], lambda: HashEvaluator(seed=seed), label="fuzz",
                              batch_size=batch_size, nodes=40)
    assert result.exact


def test_a_tree_that_outgrows_its_arrays_grows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native_search, "_INITIAL_NODES", 8)
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    for evaluator in (UniformEvaluator(), HashEvaluator(seed=1)):
        a = MCTS(evaluator, SearchConfig(batch_size=8)).search(board, Limits(nodes=500))
        b = NativeMCTS(evaluator, SearchConfig(batch_size=8)).search(board, Limits(nodes=500))
        assert _root_view(a) == _root_view(b)
        assert b.tree_nodes > 8


def test_a_stop_mid_search_answers_within_100_ms(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled uniform search returns to Python every few mini-batches to look at the
    stop flag (room for the whole search, so no growth of the tree interrupts it instead)."""
    monkeypatch.setattr(native_search, "_INITIAL_NODES", 150_000)
    stop = threading.Event()
    search = NativeMCTS(UniformEvaluator())
    search.search(chess.Board(), Limits(nodes=200))  # compiled and warm
    stopped_at: list[float] = []

    def stop_now() -> None:  # the clock starts when the flag is set, not when it was due
        stopped_at.append(time.monotonic())
        stop.set()

    timer = threading.Timer(0.2, stop_now)
    timer.start()
    result = search.search(chess.Board(), Limits(nodes=50_000_000), stop=stop)
    late = time.monotonic() - stopped_at[0]
    timer.cancel()
    assert result.move in chess.Board().legal_moves
    assert late < 0.1, f"stopped {late * 1000:.0f} ms after the stop"


def test_a_stop_during_the_growth_of_the_tree_keeps_it_whole(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Growing copies tens of MB (about 100 ms): a stop set meanwhile abandons the copy, the
    tree keeps its old arrays, and the search answers with the move found so far."""
    tree = native_search._Tree(64, 64 * 40)
    tree.st[nt.S_NODES], tree.st[nt.S_EDGES] = 60, 2000
    tree.ni[:] = np.arange(tree.ni.size).reshape(tree.ni.shape)
    before = tree.ni
    stop = threading.Event()
    stop.set()
    assert tree.ensure(10, 10, stop) is False and tree.ni is before and len(tree.ni) == 64
    assert tree.ensure(10, 10) is True and len(tree.ni) == 128
    assert np.array_equal(tree.ni[:64], before) and not tree.ni[64:].any()
    grown = native_search._grow(np.arange(10**6, dtype=np.int64).reshape(-1, 4), 500_000)
    assert grown is not None and np.array_equal(grown[:250_000].ravel(), np.arange(10**6))

    search = NativeMCTS(UniformEvaluator())
    search.search(chess.Board(), Limits(nodes=200))  # compiled and warm
    calls = []

    def grow_then_stop(array: np.ndarray, size: int, stop: threading.Event | None = None
                       ) -> np.ndarray | None:
        calls.append(size)
        if len(calls) == 3:
            assert stop is not None
            stop.set()  # arrives in the middle of a growth
        return real(array, size, stop)

    real = native_search._grow
    monkeypatch.setattr(native_search, "_grow", grow_then_stop)
    result = search.search(chess.Board(), Limits(nodes=50_000_000), stop=threading.Event())
    assert len(calls) == 3 and result.move in chess.Board().legal_moves
    tree = search._tree
    assert tree is not None and len(tree.ni) < calls[-1]  # the growth was abandoned
    assert tree.nodes <= len(tree.ni)


def test_movetime_limits_the_compiled_search() -> None:
    search = NativeMCTS(UniformEvaluator())
    search.search(chess.Board(), Limits(nodes=100))
    result = search.search(chess.Board(), Limits(movetime_ms=150))
    assert 0.1 < result.seconds < 0.4
    assert result.nodes > 100


def test_boards_the_compiled_search_cannot_take_are_refused_in_one_line() -> None:
    board = chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                        chess960=True)
    with pytest.raises(ValueError) as error:
        NativeMCTS(UniformEvaluator()).search(board, Limits(nodes=10))
    assert "\n" not in str(error.value)
    # the Python reference still takes it
    assert MCTS(UniformEvaluator()).search(board, Limits(nodes=10)).move is not None


def test_search_kinds_are_named_once() -> None:
    assert SEARCH_KINDS == ("native", "python")
    assert isinstance(make_search(UniformEvaluator()), NativeMCTS)
    assert isinstance(make_search(UniformEvaluator(), kind="python"), MCTS)
    with pytest.raises(ValueError, match="unknown search 'cython'; known: native, python"):
        check_search_kind("cython")


def test_a_position_the_tree_had_scored_as_a_repetition_is_searched_afresh() -> None:
    """The game reaches a node the previous search created as a threefold (terminal, never
    expanded): the search starts a new tree there instead of reusing it (the Python search
    used to index past its empty edge list)."""
    moves = "g1h3 g8h6 h3g5 h8g8 g5h7 g8h8 h7f8 h8g8 f8h7 g8h8 h7f8 h8g8 f8h7 g8h8 h7f8"
    searches = [make_search(UniformEvaluator(), SearchConfig(batch_size=1), k)
                for k in SEARCH_KINDS]
    board = chess.Board()
    results = []
    for uci in [*moves.split(), None]:
        results = [s.search(board, Limits(nodes=30)) for s in searches]
        a, b = results
        assert (a.move, _root_view(a), a.reused) == (b.move, _root_view(b), b.reused)
        if uci is not None:
            board.push_uci(uci)
    assert not any(r.reused for r in results)  # the terminal node was not reused


def test_prior_arithmetic_is_numpys_bit_for_bit() -> None:
    """The compiled sum and stable order repeat numpy's (pairwise summation, argsort of the
    negated priors), on random priors of every length up to 260 and with ties."""
    rng = np.random.default_rng(3)
    sizes = [*range(1, 261), 7, 8, 9, 127, 128, 129, 255, 256, 257, 500, 777, 960]
    parts = [rng.gamma(0.5, size=n).astype(np.float32) for n in sizes]
    parts[5] = np.full(6, 0.25, dtype=np.float32)  # ties keep generation order
    parts[6] = np.zeros(7, dtype=np.float32)  # no positive prior: uniform
    offsets = np.concatenate(([0], np.cumsum([len(p) for p in parts]))).astype(np.int64)
    powered = np.power(np.maximum(np.concatenate(parts).astype(np.float64), 0.0), 1 / 1.7)
    sharp = np.empty(len(powered))
    order = np.empty(len(powered), dtype=np.int64)
    nt.sharpen(powered, offsets, len(parts), sharp, order)
    for i, priors in enumerate(parts):
        ref = np.power(np.maximum(priors.astype(np.float64), 0.0), 1 / 1.7)
        total = ref.sum()
        ref = ref / total if total > 0 else np.full(len(priors), 1 / len(priors))
        rank = np.argsort(-ref, kind="stable")
        lo, hi = offsets[i], offsets[i + 1]
        assert nt.pairwise_sum(powered, lo, hi - lo) == np.power(
            np.maximum(priors.astype(np.float64), 0.0), 1 / 1.7).sum()
        np.testing.assert_array_equal(order[lo:hi], rank)
        np.testing.assert_array_equal(sharp[lo:hi], ref[rank])


# --- positions at the edges of the rules --------------------------------------------------------


def _rules_end(game: chess.Board, root: bool) -> float | None:
    """What the rules make of ``game`` (its move stack is the game and the search path) as a
    node of a search: -1 mated, 0 drawn (stalemate; and below the root the fifty-move rule,
    insufficient material, a third occurrence), None when play goes on."""
    if not any(game.generate_legal_moves()):
        return -1.0 if game.is_check() else 0.0
    if root:
        return None  # the root is searched whatever it is: a move must be chosen
    if game.halfmove_clock >= 100 or game.is_insufficient_material() or game.is_repetition(3):
        return 0.0
    return None


def _python_tree_ends(search: MCTS, board: chess.Board) -> list[tuple[str, float | None]]:
    """(path, terminal value or None) of every node of the Python search's tree."""
    assert search.root is not None
    found = []
    stack: list[tuple[object, list[chess.Move]]] = [(search.root, [])]
    while stack:
        node, path = stack.pop()
        assert isinstance(node, Node)
        found.append((" ".join(m.uci() for m in path),
                      node.terminal_value if node.terminal else None))
        stack.extend((child, [*path, move])
                     for move, child in zip(node.moves, node.children, strict=False)
                     if child is not None)
    return sorted(found, key=lambda x: x[0])


def _native_tree_ends(search: NativeMCTS) -> list[tuple[str, float | None]]:
    """(path, terminal value or None) of every node of the compiled search's tree."""
    tree = search._tree
    assert tree is not None
    found = []
    for node in range(tree.nodes):
        path = []
        x = node
        while tree.ni[x, nt.PARENT] >= 0:
            path.append(native.board.decode_move(int(tree.ni[x, nt.MOVE])).uci())
            x = int(tree.ni[x, nt.PARENT])
        terminal = bool(tree.ni[node, nt.FLAGS] & nt.TERMINAL)
        found.append((" ".join(reversed(path)), float(tree.nv[node]) if terminal else None))
    return sorted(found, key=lambda x: x[0])


@pytest.mark.parametrize("name", [edge[0] for edge in RULE_EDGES])
def test_every_node_ends_exactly_where_the_rules_end_play(name: str) -> None:
    """In both trees, on positions at the fifty-move limit, with bare minor pieces, promotions
    and repetition histories, a node is terminal exactly when python-chess's rules end play
    there (with the game history), with the rules' value; and the two trees hold the same
    nodes. A fifty-move draw one half-move late, or bare material searched on, fails here."""
    board = rule_edge_board(name)
    python = MCTS(HashEvaluator(seed=4), SearchConfig(batch_size=4))
    compiled = NativeMCTS(HashEvaluator(seed=4), SearchConfig(batch_size=4))
    python.search(board, Limits(nodes=300))
    compiled.search(board, Limits(nodes=300))
    ends = _native_tree_ends(compiled)
    assert ends == _python_tree_ends(python, board)
    ended = 0
    for path, value in ends:
        game = board.copy()
        for uci in path.split():
            game.push_uci(uci)
        assert value == _rules_end(game, root=not path), (name, path, game.fen())
        ended += value is not None
    assert ended > 0, name  # the rule at this edge was met inside the tree


@pytest.mark.slow
@pytest.mark.parametrize("batch_size", [1, 8])
def test_positions_at_the_edges_of_the_rules_search_alike(batch_size: int) -> None:
    boards = rule_edge_boards()
    result = compare_searches(boards, lambda: HashEvaluator(seed=9), label="edges",
                              batch_size=batch_size, nodes=200)
    assert result.positions == len(RULE_EDGES)
    assert result.exact, result.mismatches
    for board in boards:  # the all-compiled uniform loop too
        a = MCTS(UniformEvaluator(), SearchConfig(batch_size=batch_size)).search(
            board, Limits(nodes=200))
        b = NativeMCTS(UniformEvaluator(), SearchConfig(batch_size=batch_size)).search(
            board, Limits(nodes=200))
        assert (a.move, _root_view(a), a.simulations, a.tree_nodes) == (
            b.move, _root_view(b), b.simulations, b.tree_nodes), board.fen()


@pytest.mark.parametrize("name", ["fifty: every move draws", "bare: K v K+N, every move draws",
                                  "bare: K+N v K in the corner",
                                  "bare: a single move, and it draws"])
def test_a_root_whose_every_move_is_decided_stops_at_four_visits_a_move(name: str) -> None:
    """Every root move ends the game (here in a draw): nothing is evaluated past the root,
    and the search stops once every move has been opened and the root has more than four
    visits a move, far below its simulation cap (2 x 1000); both searches alike, through
    both compiled paths (the uniform loop and the per-batch one)."""
    board = rule_edge_board(name)
    moves = board.legal_moves.count()
    for batch_size in (1, 8):
        for evaluator in (UniformEvaluator(), HashEvaluator(seed=1)):
            simulations = set()
            for kind in SEARCH_KINDS:
                search = make_search(evaluator, SearchConfig(batch_size=batch_size), kind)
                result = search.search(board, Limits(nodes=1000))
                assert result.nodes == 1, (name, kind)  # the root alone: all children end
                assert result.value == 0.0
                assert sum(c.visits for c in result.children) == result.simulations
                simulations.add(result.simulations)
            assert len(simulations) == 1, (name, batch_size, simulations)
            # the hash priors of the 22 moves at the fifty-move limit leave some move
            # unopened within the cap; everywhere else the rule stops the search first
            opened = moves <= 6 or isinstance(evaluator, UniformEvaluator)
            assert (max(simulations) < 2000) == opened, (name, batch_size, simulations)
            if moves == 1 or (isinstance(evaluator, UniformEvaluator) and moves <= 6):
                # every move is opened early (uniform priors, or a single move): the stop
                # comes at 4 x moves + 1 root visits (the first batch past it, batches of 8)
                assert simulations == {4 * moves if batch_size == 1
                                       else 8 * -(-4 * moves // 8)}, (name, batch_size)


@pytest.mark.parametrize("kind", SEARCH_KINDS)
def test_the_simulation_cap_defaults_to_twice_the_node_limit(kind: str) -> None:
    """A mate in one: descents keep ending on the mate (terminal, no new node), so the node
    limit is never reached and the search stops at 2 x nodes simulations."""
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    for batch_size in (1, 8):
        for evaluator in (UniformEvaluator(), HashEvaluator(seed=1)):
            search = make_search(evaluator, SearchConfig(batch_size=batch_size), kind)
            result = search.search(board, Limits(nodes=100))
            assert result.move == chess.Move.from_uci("a1a8")
            assert result.nodes < 100 and result.simulations == 200, (kind, batch_size)
