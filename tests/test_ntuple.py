"""The comparison-training n-tuple engine: tapered blend, 2-tuple symmetry, the perceptron
update, the alpha-beta search against plain minimax, limits, training and UCI."""

from __future__ import annotations

import io
import math
import threading
import time
from pathlib import Path

import chess
import numpy as np
import pytest

from chessmoe._io.errors import KitError
from chessmoe.nets.related.ntuple import (
    N_LINEAR,
    TUPLE_SIZE,
    Features,
    NtupleEvaluator,
    NtupleWeights,
    extract,
    load_weights,
    save_weights,
    tuple_indices,
)
from chessmoe.nets.related.ntuple_comparison import (
    Averager,
    LabelledPosition,
    NtupleTrainConfig,
    _compare,
    comparison_update,
)
from chessmoe.phases import tapered_alpha
from chessmoe.search.alphabeta import MATE_SCORE, MAX_CHECK_PLIES, AlphaBeta, principal_leaf
from chessmoe.search.mcts import Limits

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9"
TACTICAL = "r2qk2r/ppp2ppp/2n1bn2/2bpp3/4P3/2NP1N2/PPP1BPPP/R1BQ1RK1 w kq - 0 7"
SPARSE = "4k3/1p3pp1/2n5/3r4/4P3/2N2B2/5PPP/3R2K1 b - - 0 30"


def _random_weights(seed: int = 1) -> NtupleWeights:
    rng = np.random.default_rng(seed)
    return NtupleWeights(rng.normal(0, 50, N_LINEAR), rng.normal(0, 50, N_LINEAR),
                         rng.normal(0, 20, TUPLE_SIZE), rng.normal(0, 20, TUPLE_SIZE))


def _phase_eval(weights: NtupleWeights, f: Features, phase: str) -> float:
    lin, tup = ((weights.open_linear, weights.open_tuple) if phase == "open"
                else (weights.end_linear, weights.end_tuple))
    return float(lin @ f.linear + f.tuple_sign @ tup[f.tuple_index])


# --- evaluation -----------------------------------------------------------------------------


def test_tapered_blend_is_pure_opening_at_alpha_1_and_pure_endgame_at_alpha_0() -> None:
    w = _random_weights()
    start = extract(chess.Board(MIDDLEGAME))  # NPM 16488 - 2 x 826 >= 15258: alpha 1
    assert start.alpha == 1.0
    assert w.white_eval(start) == pytest.approx(_phase_eval(w, start, "open"))
    assert w.white_eval(start) != pytest.approx(_phase_eval(w, start, "end"))
    ending = extract(chess.Board("8/5k2/8/3RP3/8/8/5K2/8 w - - 0 1"))  # NPM 1282: alpha 0
    assert ending.alpha == 0.0
    assert w.white_eval(ending) == pytest.approx(_phase_eval(w, ending, "end"))
    assert w.white_eval(ending) != pytest.approx(_phase_eval(w, ending, "open"))
    middle = extract(chess.Board(SPARSE))  # NPM 3 x 764... in between
    a = tapered_alpha(chess.Board(SPARSE))
    assert 0.0 < middle.alpha == a < 1.0
    assert w.white_eval(middle) == pytest.approx(
        a * _phase_eval(w, middle, "open") + (1 - a) * _phase_eval(w, middle, "end"))


def test_initial_evaluation_is_material_in_centipawns_for_the_side_to_move() -> None:
    evaluator = NtupleEvaluator(NtupleWeights.initial())
    board = chess.Board("4k3/8/8/8/8/8/4P3/4K2R w - - 0 1")  # White: rook + pawn
    gamma = NtupleWeights.initial().gamma()
    assert gamma == pytest.approx(16488 / 17000)
    expected = (round(gamma * 1300) + round(gamma * 200)) * 0.5
    assert evaluator(board) == pytest.approx(expected)
    board.turn = chess.BLACK
    assert evaluator(board) == pytest.approx(-expected)


def test_two_tuples_share_entries_between_a_position_and_its_left_right_mirror() -> None:
    for fen in (SPARSE, "8/2k5/1p6/8/5N2/8/1K4Q1/8 w - - 0 1"):
        board = chess.Board(fen)
        mirrored = board.transform(chess.flip_horizontal)
        index, sign = tuple_indices(board)
        m_index, m_sign = tuple_indices(mirrored)
        assert sorted(zip(index.tolist(), sign.tolist(), strict=True)) == sorted(
            zip(m_index.tolist(), m_sign.tolist(), strict=True))
        w = _random_weights(3)
        assert w.white_eval(extract(board)) == pytest.approx(w.white_eval(extract(mirrored)))
        # colours swapped (board flipped vertically): the same entries with the other sign
        c_index, c_sign = tuple_indices(board.mirror())
        assert sorted(zip(c_index.tolist(), (-c_sign).tolist(), strict=True)) == sorted(
            zip(index.tolist(), sign.tolist(), strict=True))
        assert w.white_eval(extract(board.mirror())) == pytest.approx(
            -w.white_eval(extract(board)))


def test_two_tuples_tell_apart_positions_that_are_not_mirrors() -> None:
    board = chess.Board("8/2k5/8/8/5N2/8/1K6/8 w - - 0 1")
    moved = chess.Board("8/2k5/8/8/8/5N2/1K6/8 w - - 0 1")  # the knight one rank lower
    assert sorted(tuple_indices(board)[0].tolist()) != sorted(tuple_indices(moved)[0].tolist())
    n = 3
    assert len(tuple_indices(board)[0]) == n * n  # every ordered pair, self pairs included


# --- comparison training ------------------------------------------------------------------


def _features(linear: dict[int, float], index: list[int], sign: list[float],
              alpha: float) -> Features:
    vector = np.zeros(N_LINEAR)
    for k, v in linear.items():
        vector[k] = v
    return Features(vector, np.asarray(index, dtype=np.int64), np.asarray(sign), alpha)


def test_comparison_update_has_the_documents_tapered_deltas() -> None:
    best = _features({0: 1.0}, [5], [1.0], alpha=1.0)
    other = _features({1: 1.0}, [5, 7], [1.0, -1.0], alpha=0.5)
    # phi_o = alpha / (alpha^2 + (1-alpha)^2) phi: 1 for best, 0.5/0.5 = 1 for other
    # phi_e = (1-alpha) / (...) phi: 0 for best, 1 for other
    up = comparison_update(best, [other], side=1.0)
    assert up.open_linear[:3].tolist() == [1.0, -1.0, 0.0]
    assert up.end_linear[:3].tolist() == [0.0, -1.0, 0.0]
    assert up.tuple_index.tolist() == [5, 7]
    assert up.open_tuple.tolist() == [0.0, 1.0]
    assert up.end_tuple.tolist() == [-1.0, 1.0]
    # two moves in S, Black to move: the mean of the differences, sign flipped
    third = _features({2: 2.0}, [], [], alpha=0.0)
    up2 = comparison_update(best, [other, third], side=-1.0)
    assert up2.open_linear[:3].tolist() == [-1.0, 0.5, 0.0]
    assert up2.end_linear[:3].tolist() == [0.0, 0.5, 1.0]  # third: phi_e = 1 * 2, halved
    assert up2.open_tuple.tolist() == [-0.5, -0.5] and up2.end_tuple.tolist() == [0.5, -0.5]


def test_averaged_perceptron_is_the_mean_of_every_intermediate_weight_vector() -> None:
    start = NtupleWeights.initial()
    avg = Averager(start)
    best = _features({0: 1.0}, [3], [1.0], alpha=1.0)
    other = _features({1: 1.0}, [4], [1.0], alpha=1.0)
    update = comparison_update(best, [other], 1.0)
    history = [start.open_linear.copy()]
    for step in (update, None, update):
        avg.step(step)
        history.append(avg.current.open_linear.copy())
    assert np.allclose(avg.average().open_linear, np.mean(history, axis=0))
    assert avg.average().open_tuple[3] == pytest.approx((0 + 1 + 1 + 2) / 4)


def test_one_training_update_raises_the_desired_move_against_the_preferred_one() -> None:
    weights = NtupleWeights.initial()
    config = NtupleTrainConfig(depth=1)
    # material-only: Nf3 and a3 score the same; Stockfish's move is Nf3
    position = LabelledPosition(chess.STARTING_FEN, "g1f3")
    board = chess.Board()

    def leaf_value(w: NtupleWeights, move: str) -> float:
        def evaluate(b: chess.Board) -> float:
            v = w.white_eval(extract(b))
            return v if b.turn else -v
        board.push_uci(move)
        leaf = principal_leaf(board, evaluate, 0)
        board.pop()
        return -leaf.value

    before = leaf_value(weights, "g1f3") - leaf_value(weights, "a2a3")
    assert before == 0.0
    credit, update, skipped = _compare(position, weights, config, principal_leaf)
    assert update is not None and not skipped and credit == pytest.approx(1 / 20)
    averager = Averager(weights)
    averager.step(update)
    after = leaf_value(averager.current, "g1f3") - leaf_value(averager.current, "a2a3")
    assert after > before
    credit_after, _, _ = _compare(position, averager.current, config, principal_leaf)
    assert credit_after == 1.0  # Nf3 alone scores best now


def test_weights_round_trip_and_bad_files_are_refused(tmp_path: Path) -> None:
    w = _random_weights(2)
    save_weights(tmp_path, w, {"train": {"tuples": True}})
    loaded, config = load_weights(tmp_path)
    assert config == {"train": {"tuples": True}}
    assert np.allclose(loaded.open_tuple, w.open_tuple.astype(np.float32))
    np.savez(tmp_path / "weights.npz", linear_features=np.asarray(["x"]),
             open_linear=np.zeros(1), end_linear=np.zeros(1), open_tuple=np.zeros(1),
             end_tuple=np.zeros(1))
    from chessmoe._io.errors import KitError

    with pytest.raises(KitError):
        load_weights(tmp_path)


# --- alpha-beta -----------------------------------------------------------------------------


def _toy_eval(board: chess.Board) -> float:
    """Material plus a square-dependent term (few ties), side to move."""
    values = {1: 100, 2: 300, 3: 320, 4: 500, 5: 900, 6: 0}
    score = 0.0
    for square, piece in board.piece_map().items():
        v = values[piece.piece_type] + ((square * 7 + piece.piece_type * 13) % 11)
        score += v if piece.color else -v
    return score if board.turn else -score


def _minimax(board: chess.Board, depth: int, ply: int, evaluate) -> float:  # type: ignore[no-untyped-def]
    moves = list(board.legal_moves)
    if not moves:
        return -(MATE_SCORE - ply) if board.is_check() else 0.0
    if board.halfmove_clock >= 100 or board.is_insufficient_material():
        return 0.0
    if depth == 0:
        return float(evaluate(board))
    best = -math.inf
    for move in moves:
        board.push(move)
        best = max(best, -_minimax(board, depth - 1, ply + 1, evaluate))
        board.pop()
    return best


def _qminimax(board: chess.Board, ply: int, checks: int, evaluate) -> float:  # type: ignore[no-untyped-def]
    """Quiescence without pruning, same rules as the search's."""
    if board.is_check() and checks < MAX_CHECK_PLIES:
        moves = list(board.legal_moves)
        if not moves:
            return -(MATE_SCORE - ply)
        best = -math.inf
    else:
        if board.is_check() and not any(board.legal_moves):
            return -(MATE_SCORE - ply)
        if board.is_insufficient_material():
            return 0.0
        best = float(evaluate(board))
        moves = [m for m in board.legal_moves if board.is_capture(m) or m.promotion]
    in_check = board.is_check()
    for move in moves:
        board.push(move)
        best = max(best, -_qminimax(board, ply + 1, checks + in_check, evaluate))
        board.pop()
    return best


def _full(board: chess.Board, depth: int, ply: int, evaluate) -> float:  # type: ignore[no-untyped-def]
    if depth == 0:
        return _qminimax(board, ply, 0, evaluate)
    moves = list(board.legal_moves)
    if not moves:
        return -(MATE_SCORE - ply) if board.is_check() else 0.0
    best = -math.inf
    for move in moves:
        board.push(move)
        best = max(best, -_full(board, depth - 1, ply + 1, evaluate))
        board.pop()
    return best


@pytest.mark.slow
@pytest.mark.parametrize(("fen", "depth"), [(MIDDLEGAME, 2), (TACTICAL, 2), (SPARSE, 3)])
def test_alpha_beta_equals_plain_minimax(fen: str, depth: int) -> None:
    board = chess.Board(fen)
    search = AlphaBeta(_toy_eval, quiescence=False)
    value, pv, _ = search.search_depth(board, depth)
    assert value == _minimax(board.copy(), depth, 0, _toy_eval)
    assert len(pv) == depth
    # the PV really reaches the value
    end = board.copy()
    for move in pv:
        end.push(move)
    assert _toy_eval(end) * (1 if depth % 2 == 0 else -1) == value
    # pruning visits fewer nodes than the full tree
    assert search.nodes < sum(1 for _ in board.legal_moves) ** depth


def test_alpha_beta_with_quiescence_equals_unpruned_quiescence_minimax() -> None:
    evaluator = NtupleEvaluator(_random_weights(4))
    for fen in ("4k3/8/4p3/3p4/8/8/3Q4/4K3 w - - 0 1", "r3k3/8/8/3n4/4P3/2B5/8/4K2R w - - 0 1",
                "4k3/1p3pp1/2n5/3r4/4P3/2N5/5PPP/3R2K1 b - - 0 30"):
        board = chess.Board(fen)
        value, _, _ = AlphaBeta(evaluator, delta_margin=None).search_depth(board, 1)
        assert value == pytest.approx(_full(board.copy(), 1, 0, evaluator))


def test_quiescence_takes_a_hanging_piece_and_leaves_a_defended_one() -> None:
    hanging = chess.Board("4k3/8/8/3r4/8/8/3Q4/4K3 w - - 0 1")  # Qxd5 wins a rook
    material = NtupleEvaluator(NtupleWeights.initial())
    result = AlphaBeta(material).play(hanging, Limits(nodes=400))
    assert result.move == chess.Move.from_uci("d2d5")
    # the pawn on d5 is defended by the e6 pawn: taking it loses the queen
    defended = chess.Board("4k3/8/4p3/3p4/8/8/3Q4/4K3 w - - 0 1")
    greedy, _, _ = AlphaBeta(material, quiescence=False).search_depth(defended, 1)
    quiet, pv, _ = AlphaBeta(material).search_depth(defended, 1)
    assert greedy > 0  # depth 1 without quiescence thinks Qxd5 wins a pawn
    assert pv[0] != chess.Move.from_uci("d2d5") and quiet < greedy
    # the principal leaf of Qxd5 is after the recapture
    board = defended.copy()
    board.push_uci("d2d5")
    leaf = principal_leaf(board, material, 0)
    assert leaf.pv == (chess.Move.from_uci("e6d5"),) and not leaf.board.queens


def test_finds_mate_in_one() -> None:
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    result = AlphaBeta(NtupleEvaluator(NtupleWeights.initial())).play(board, Limits(nodes=3000))
    assert result.move == chess.Move.from_uci("a1a8")
    assert result.value == 1.0
    assert result.children[0].move == result.move


def test_honours_the_node_limit_and_movetime() -> None:
    evaluator = NtupleEvaluator(NtupleWeights.initial())
    board = chess.Board(MIDDLEGAME)
    for nodes in (1, 50, 300):
        result = AlphaBeta(evaluator).play(board, Limits(nodes=nodes))
        assert result.nodes <= nodes and result.move in board.legal_moves
    began = time.monotonic()
    result = AlphaBeta(evaluator).play(board, Limits(movetime_ms=300))
    assert time.monotonic() - began < 1.5 and result.move in board.legal_moves
    assert result.depth >= 1


def test_a_stop_event_ends_the_search_promptly() -> None:
    evaluator = NtupleEvaluator(NtupleWeights.initial())
    board = chess.Board(MIDDLEGAME)
    stop = threading.Event()
    stop.set()
    result = AlphaBeta(evaluator).play(board, Limits(movetime_ms=60_000), stop=stop)
    assert result.nodes == 0 and result.move in board.legal_moves
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    began = time.monotonic()
    result = AlphaBeta(evaluator).play(board, Limits(movetime_ms=60_000), stop=stop)
    assert time.monotonic() - began < 2.0 and result.move in board.legal_moves


# --- training and play ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory: pytest.TempPathFactory, stockfish: Path) -> Path:
    from chessmoe.nets.related.train_ntuple import train
    from chessmoe.play.players.ntuple import SEARCH_STEPS

    # the Lichess excerpt where the data folder has it, else the embedded sample (a clean clone)
    out = tmp_path_factory.mktemp("ntuple")
    return train(out / "run", profile="smoke", data_dir=None, search=SEARCH_STEPS)


@pytest.mark.slow
@pytest.mark.stockfish
def test_train_smoke_writes_a_loadable_run(smoke_run: Path) -> None:
    import json

    from chessmoe.nets.related.train_ntuple import PROFILES, train
    from chessmoe.play.players import build_searcher
    from chessmoe.play.players.ntuple import SEARCH_STEPS

    for name in ("weights.npz", "config.json", "metrics.jsonl", "provenance.json",
                 "labels.jsonl", "untrained/weights.npz"):
        assert (smoke_run / name).is_file(), name
    assert not (smoke_run / "checkpoint.npz").exists()  # removed once the run is complete
    weights, config = load_weights(smoke_run)
    assert config["profile"] == "smoke"
    metrics = [json.loads(line) for line in (smoke_run / "metrics.jsonl").read_text().splitlines()]
    assert [m["iteration"] for m in metrics] == [0, 1]
    assert metrics[1]["updates"] > 0
    assert not np.allclose(weights.open_linear, NtupleWeights.initial().open_linear)
    untrained, _ = load_weights(smoke_run / "untrained")
    assert np.array_equal(untrained.open_linear, NtupleWeights.initial().open_linear)
    # labels.jsonl lists the training, held-out and test positions in the order they were
    # labelled: the held-out agreements are the start's (iteration 0) and the kept weights'
    # (iteration 1, the best) on the held-out six, recomputed here
    from chessmoe.nets.related.ntuple_comparison import agreement_on_test, evaluate_agreement

    smoke = PROFILES["smoke"]
    labelled = [LabelledPosition(r["fen"], r["move"]) for r in map(
        json.loads, (smoke_run / "labels.jsonl").read_text().splitlines())]
    held = labelled[smoke.positions:smoke.positions + smoke.held_out]
    assert config["best_iteration"] == 1
    assert [m["held_out_agreement"] for m in metrics] == [
        evaluate_agreement(held, w, smoke, principal_leaf).agreement
        for w in (untrained, weights)]
    board = chess.Board(MIDDLEGAME)
    result = build_searcher("ntuple", smoke_run).play(board, Limits(nodes=100))
    assert result.move in board.legal_moves and result.nodes <= 100
    # a rerun labels nothing again: the cache is reused as it is
    labels = (smoke_run / "labels.jsonl").read_bytes()
    assert len(labels.splitlines()) == smoke.positions + smoke.held_out + smoke.test_positions
    # the test set: positions of the embedded sample's games, scored once after training
    test = json.loads((smoke_run / "test.json").read_text())
    assert test["positions"] == smoke.test_positions and test["source"] == "sample"
    assert test["start_weights"] == "material" and test["source_files"][0]["sha256"]
    tested = agreement_on_test(labelled[smoke.positions + smoke.held_out:], untrained,
                               weights, smoke, principal_leaf)
    assert {k: test[k] for k in tested.to_json()} == tested.to_json()
    train(smoke_run, profile="smoke", data_dir=None, search=SEARCH_STEPS)
    assert (smoke_run / "labels.jsonl").read_bytes() == labels


@pytest.mark.stockfish
def test_uci_dialogue_with_the_ntuple_player(smoke_run: Path) -> None:
    from chessmoe.play.uci import EngineOptions, UciEngine
    from tests.helpers import wait_until

    out = io.StringIO()
    engine = UciEngine(EngineOptions(Model_Directory=str(smoke_run), Nodes=200), out=out,
                       engine="ntuple")

    def bestmoves() -> list[str]:
        return [ln for ln in out.getvalue().splitlines() if ln.startswith("bestmove")]

    engine.handle("uci")
    assert out.getvalue().splitlines()[0].startswith("id name chessmoe ntuple ")
    engine.handle("isready")
    assert out.getvalue().splitlines()[-1] == "readyok"
    gos = ["go nodes 150", "go movetime 200", "go", "go infinite"]
    for count, go in enumerate(gos, start=1):
        engine.handle("position startpos moves e2e4 e7e5")
        engine.handle(go)
        if go == "go infinite":
            wait_until(lambda: "info depth" in out.getvalue(),
                       "the infinite search's first info line", 10.0,
                       context=lambda: out.getvalue()[-300:])
            time.sleep(0.2)
            assert len(bestmoves()) == count - 1
            engine.handle("stop")
        wait_until(lambda n=count: len(bestmoves()) >= n, f"bestmove number {count} ({go})",
                   20.0, context=lambda: out.getvalue()[-300:])
        engine._wait()
        assert len(bestmoves()) == count
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    for line in bestmoves():
        assert chess.Move.from_uci(line.split()[1]) in board.legal_moves
    assert not any("error" in ln for ln in out.getvalue().splitlines())


def test_versus_plays_paired_openings_and_summarises(tmp_path: Path) -> None:
    import json

    from chessmoe.play.match import Adjudication, PlayerSpec
    from chessmoe.play.versus import Headline, searcher_speed, versus

    save_weights(tmp_path / "w", NtupleWeights.initial(), {"train": {"tuples": True}})
    first = PlayerSpec(name="a", kind="ntuple", experts=str(tmp_path / "w"), nodes=20)
    second = PlayerSpec(name="b", kind="ntuple", experts=str(tmp_path / "w"), nodes=20)
    summary = versus(first, second, tmp_path / "m", pairs=1, seed=3,
                     headline=Headline("x", 0.6525), rules=Adjudication(max_plies=60))
    assert summary.games == 2 and summary.wins + summary.draws + summary.losses == 2
    assert sum(summary.terminations.values()) == 2
    assert summary.mean_nodes_first is not None and summary.mean_nodes_first <= 20
    data = json.loads((tmp_path / "m" / "summary.json").read_text())
    assert data["document"]["score"] == 0.6525 and data["openings"]["pairs"] == 1
    # the summary names the rules the games were played under
    assert data["adjudication"]["max_plies"] == 60
    assert data["adjudication"]["draw_rules"] == "cutechess"
    # resuming under other draw rules would mix two rule sets under one summary: refused
    with pytest.raises(ValueError, match=r"other draw rules \(cutechess\) than this match's "
                                         r"\(claim\)"):
        versus(first, second, tmp_path / "m", pairs=1, seed=3,
               rules=Adjudication(max_plies=60, draw_rules="claim"))
    again = versus(first, second, tmp_path / "m", pairs=1, seed=3,
                   rules=Adjudication(max_plies=60))  # same rules: resumes, plays nothing
    assert again.games == 2
    assert (tmp_path / "m" / "games.pgn").read_text().count("[Event ") == 2
    speed = searcher_speed("ntuple", tmp_path / "w", [MIDDLEGAME], nodes=50)
    assert speed["nodes"] == 50 and speed["nodes_per_second"] > 0


def test_a_training_update_with_black_to_move_raises_blacks_desired_move() -> None:
    board = chess.Board()
    board.push_uci("e2e4")
    position = LabelledPosition(board.fen(), "g8f6")
    weights = NtupleWeights.initial()
    config = NtupleTrainConfig(depth=1)
    credit, update, _ = _compare(position, weights, config, principal_leaf)
    assert update is not None and credit < 1.0
    averager = Averager(weights)
    averager.step(update)
    assert _compare(position, averager.current, config, principal_leaf)[0] == 1.0


def test_linear_features_and_the_tapered_eval_by_hand() -> None:
    """Every linear term of two concrete positions, counted by hand (White minus Black).

    2r3k1/1p5p/8/3P4/5B2/P7/P3BPPP/1N1R2K1 w: White Kg1 Rd1 Nb1 Be2 Bf4, pawns a2 a3 d5 f2 g2
    h2; Black Kg8 Rc8, pawns b7 h7.
    White: doubled 1 (a-file), isolated 3 (a2, a3, d5), passed 2 (d5: nothing on c-e ahead;
    f2: nothing on e-g ahead) advancing 3 + 0; mobility N 2 (c3, d2), B 8 (Be2: d3 c4 b5 a6
    f3 g4 h5 f1) + 10 (Bf4: e5 d6 c7 b8 g5 h6 e3 d2 c1 g3), R 6 (c1 e1 f1 d2 d3 d4); the
    rook's file holds d5 (neither open nor half-open); shield f2 g2 h2 = 3.
    Black: isolated 2 (b7, h7), passed 0 (a-pawns and g2/h2 ahead), R mobility 12 (a8 b8 d8
    e8 f8, c7..c1), rook on an open file, shield h7 = 1.
    Non-pawn material 764 + 2 x 826 + 2 x 1282 = 4980: alpha = (4980 - 3915) / 11343."""
    board = chess.Board("2r3k1/1p5p/8/3P4/5B2/P7/P3BPPP/1N1R2K1 w - - 0 1")
    #           P  N  B  R  Q pair dbl iso pass adv  Nm  Bm  Rm Qm open half shield
    expected = [4, 1, 2, 0, 0, 1, 1, 1, 2, 3, 2, 18, -6, 0, -1, 0, 2]
    features = extract(board, tuples=False)
    assert features.linear.tolist() == expected
    alpha = 1065 / 11343
    assert features.alpha == pytest.approx(alpha)
    # the tapered blend with every opening weight 1 and Table I material as endgame weights:
    # alpha x (sum of the terms, 30) + (1 - alpha) x (200 x 4 + 800 x 1 + 850 x 2 = 3300)
    material = NtupleWeights.initial().end_linear
    weights = NtupleWeights(np.ones(N_LINEAR), material, np.zeros(TUPLE_SIZE),
                            np.zeros(TUPLE_SIZE))
    white = alpha * 30 + (1 - alpha) * 3300
    assert weights.white_eval(features) == pytest.approx(white)
    evaluator = NtupleEvaluator(weights, tuples=False, constrained=False)
    assert evaluator(board) == pytest.approx(white / 2)  # centipawns, White to move
    board.turn = chess.BLACK
    assert evaluator(board) == pytest.approx(-white / 2)
    # Black's passed pawn and advance, a half-open file: 4k3/8/8/8/8/2p5/8/2R1K3 w:
    # the c3 pawn is passed, 6 - 2 = 4 ranks advanced, and isolated; Rc1 sees b1 a1 d1 c2
    # c3 (5) on a file with a Black pawn only; alpha 0 (non-pawn material 1282)
    lone = extract(chess.Board("4k3/8/8/8/8/2p5/8/2R1K3 w - - 0 1"), tuples=False)
    assert lone.linear.tolist() == [-1, 0, 0, 1, 0, 0, 0, -1, -1, -4, 0, 0, 5, 0, 0, 1, 0]
    assert lone.alpha == 0.0


def test_the_mate_distance_is_found_before_the_horizon() -> None:
    """Kf6 and Ra1 against Kh8: mate in 2 (Kf7 Kh7 Rh1#). At depth 3 the search scores it
    MATE_SCORE - 3; deeper horizons keep the same distance (the shortest mate, not one at
    the horizon); iterative deepening stops at the depth that found it."""
    evaluate = NtupleEvaluator(NtupleWeights.initial())
    board = chess.Board("7k/8/5K2/8/8/8/8/R7 w - - 0 1")
    for depth in (1, 2):
        value, _, _ = AlphaBeta(evaluate).search_depth(board, depth)
        assert value < MATE_SCORE - 1000  # no mate within two plies
    for depth in (3, 4, 5):
        value, pv, terminal = AlphaBeta(evaluate).search_depth(board, depth)
        assert value == MATE_SCORE - 3 and terminal, depth
        assert [m.uci() for m in pv] == ["f6f7", "h8h7", "a1h1"]
    # Black, to move after Kf7, is mated in 2 plies whatever it does
    board.push_uci("f6f7")
    value, _, _ = AlphaBeta(evaluate).search_depth(board, 4)
    assert value == -(MATE_SCORE - 2)
    board.pop()
    result = AlphaBeta(evaluate).play(board, Limits(nodes=20000))
    assert result.depth == 3 and result.value == 1.0
    assert [m.uci() for m in result.pv] == ["f6f7", "h8h7", "a1h1"]


# --- the PeSTO baseline (issue 22: a tuned linear start, not material only) ----------------


def test_pesto_tapered_eval_by_hand_on_two_positions() -> None:
    """Expected values worked out by hand from the PeSTO tables (rows rank 8 .. rank 1)."""
    from chessmoe.nets.related.pesto import pesto_eval, pesto_phase, pesto_terms

    # 1. K+P vs K: Kg1 Pe4 (White) v Kg8. phase 0 -> pure endgame.
    # eg: pawn 94 + eg_pawn[e4] (rank-4 row, file e: -7) + eg_king[g1] (rank-1 row, file g:
    # -24) - (eg_king[g8 seen by Black = g1] -24) = 94 - 7 = 87; mg: 82 + 17 = 99 + 24 - 24.
    board = chess.Board("6k1/8/8/8/4P3/8/8/6K1 w - - 0 1")
    assert pesto_terms(board) == (99, 87, 0)
    assert pesto_eval(board) == 87.0
    # 2. White Kg1 Qd1 Nf3 v Black Kg8 Rd8, Black to move. phase = 4 + 1 + 2 = 7.
    # mg White: Q 1025 + mg_queen[d1] 10; N 337 + mg_knight[f3] 17; K mg_king[g1] 24 -> 1413
    # mg Black (mirrored: d8 -> d1, g8 -> g1): R 477 + mg_rook[d1] 17; K 24 -> 518; mg = 895
    # eg White: Q 936 + eg_queen[d1] -43; N 281 + eg_knight[f3] -3; K eg_king[g1] -24 -> 1147
    # eg Black: R 512 + eg_rook[d1] -1; K -24 -> 487; eg = 660
    # eval = (7 * 895 + 17 * 660) / 24 = (6265 + 11220) / 24 = 728.5416...
    board = chess.Board("3r2k1/8/8/8/8/5N2/8/3Q2K1 b - - 0 1")
    assert pesto_phase(board) == 7
    assert pesto_terms(board) == (895, 660, 7)
    assert pesto_eval(board) == pytest.approx(17485 / 24)
    from chessmoe.nets.related.pesto import PestoEvaluator

    assert PestoEvaluator()(board) == pytest.approx(-17485 / 24)  # Black to move


def test_pesto_phase_is_capped_at_the_opening() -> None:
    """A promoted queen beside the full set (phase 24 + 4 = 28) is still phase 24: the eval
    is the pure middlegame sum, never extrapolated past it. The starting position with the
    a2 pawn a queen: mg = 1025 + mg_queen[a2] (-35) - 82 - mg_pawn[a2] (-35) = 943, eg = 936 +
    eg_queen[a2] (-22) - 94 - eg_pawn[a2] (13) = 807."""
    from chessmoe.nets.related.pesto import pesto_eval, pesto_phase, pesto_terms

    board = chess.Board("rnbqkbnr/pppppppp/8/8/8/8/QPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert pesto_phase(board) == 24
    assert pesto_terms(board) == (943, 807, 24)
    assert pesto_eval(board) == 943.0


def test_pesto_is_colour_symmetric_and_zero_at_the_start() -> None:
    from chessmoe.nets.related.pesto import pesto_eval

    assert pesto_eval(chess.Board()) == 0.0
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    assert pesto_eval(board.mirror()) == pytest.approx(-pesto_eval(board))


def test_the_pesto_start_weights_are_the_mirror_averaged_tables() -> None:
    """At the start weights, a lone White knight's self-pair entry holds the mean of its
    square and the mirrored one (internal units = cp / CP_PER_UNIT), material its value."""
    from chessmoe.nets.related import pesto
    from chessmoe.nets.related.ntuple import CP_PER_UNIT, extract, start_weights

    weights = start_weights("pesto")
    material = start_weights("material")
    assert weights.open_linear[0] == pytest.approx(82 / CP_PER_UNIT)
    assert material.open_linear[0] == 200.0  # Table I
    board = chess.Board("6k1/8/8/8/8/8/8/1N4K1 w - - 0 1")
    f = extract(board)
    # endgame blend (alpha 0): knight 281 + mean(eg_knight b1 -51, g1 -50) + kings cancel
    # (g1 and mirrored g8 both read eg_king g1, averaged with b1: same for both sides)
    expected = (281 + (-51 - 50) / 2) / CP_PER_UNIT
    assert f.alpha == 0.0
    assert weights.white_eval(f) == pytest.approx(expected)
    assert pesto.EG_TABLES[chess.KNIGHT][7][1] == -51


def test_ntuple_training_config_takes_depth_and_start() -> None:
    cfg = NtupleTrainConfig(depth=2, start="pesto")
    assert (cfg.depth, cfg.start) == (2, "pesto")
    with pytest.raises(KitError, match="unknown n-tuple start"):
        NtupleTrainConfig(start="stockfish")
    from chessmoe._io.overrides import parse_overrides

    assert parse_overrides(NtupleTrainConfig, ["depth=2", "start=pesto"]) == {"depth": 2,
                                                                        "start": "pesto"}


def test_a_trained_vs_pesto_match_is_two_ntuple_players() -> None:
    from chessmoe.play.match import PlayerSpec
    from chessmoe.play.players import build_searcher
    from chessmoe.search.mcts import Limits

    player = build_searcher("ntuple", None, options={"Evaluation": "pesto", "Depth": 2})
    assert "pesto" in player.loaded  # type: ignore[attr-defined]
    result = player.play(chess.Board(), Limits(nodes=300))
    assert result.move in chess.Board().legal_moves
    spec = PlayerSpec(name="pesto", kind="ntuple", options=(("Evaluation", "pesto"),), nodes=50)
    built = spec.build()
    assert "pesto" in built.searcher.loaded  # type: ignore[attr-defined]
    with pytest.raises(KitError, match="must be one of"):
        build_searcher("ntuple", None, options={"Evaluation": "stockfish"})



def test_quiescence_off_stops_the_material_search_at_its_horizon() -> None:
    """Qxd5 wins a pawn at depth 1 but the pawn on e6 takes the queen back: with quiescence
    the material engine sees the recapture and leaves the pawn, with ``Quiescence`` off it
    scores the position after Qxd5 and takes (DeepChess's search shape)."""
    from chessmoe.play.match import PlayerSpec
    from chessmoe.play.players import build_searcher, engine_options
    from chessmoe.search.mcts import Limits

    board = chess.Board("6k1/8/4p3/3p4/8/8/8/3Q2K1 w - - 0 1")
    take = chess.Move.from_uci("d1d5")
    options = {"Evaluation": "material", "Depth": 1}
    deep = build_searcher("ntuple", None, options=options)
    flat = build_searcher("ntuple", None, options=options | {"Quiescence": "false"})
    assert deep.play(board, Limits()).move != take
    assert flat.play(board, Limits()).move == take
    assert "no quiescence" in flat.loaded and "quiescence" not in deep.loaded  # type: ignore
    assert {o.name: o.default for o in engine_options("ntuple")}["Quiescence"] is True
    spec = PlayerSpec(name="material-flat", kind="ntuple", nodes=None,
                      options=(("Evaluation", "material"), ("Depth", 1), ("Quiescence", False)))
    assert spec.build().move(board).move == take

# --- the fast paths against plain references, and exact resume -------------------------------

# en passant (white and black), promotions with and without capture, a pinned capturer, a
# side in check with a capture and a promotion as evasions, a bare-kings ending
EDGE_FENS = (
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "rnbqkbnr/pppp1ppp/8/8/3PpP2/8/PPP1P1PP/RNBQKBNR b KQkq f3 0 3",
    "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1",
    "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R b KQkq - 0 1",
    "4k3/8/8/1b6/8/3N4/4K3/8 w - - 0 1",
    "4k3/8/8/8/8/8/3q4/R3K3 w Q - 0 1",
    "3rk3/2P5/8/8/8/8/8/4K3 w - - 0 1",
    "8/8/4k3/8/8/4K3/8/8 w - - 0 1",
    "4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 2",
)


def _playout(seed: int, plies: int) -> chess.Board:
    import random

    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        # prefer captures and pawn pushes now and then: promotions and bare endings appear
        noisy = [m for m in moves if board.is_capture(m) or m.promotion
                 or board.piece_type_at(m.from_square) == chess.PAWN]
        board.push(rng.choice(noisy if noisy and rng.random() < 0.6 else moves))
    return board


def _check_fast_against_reference(board: chess.Board) -> None:
    from chessmoe.search.alphabeta import noisy_moves
    from tests.ntuple_reference import reference_linear, reference_noisy_moves, reference_tuples

    features = extract(board)
    index, sign = reference_tuples(board)
    assert features.tuple_index.tolist() == index
    assert features.tuple_sign.tolist() == sign
    assert features.linear.tolist() == reference_linear(board).tolist()
    assert noisy_moves(board) == reference_noisy_moves(board)


@pytest.mark.parametrize("fen", EDGE_FENS)
def test_fast_features_and_noisy_moves_equal_the_references_on_edge_positions(fen: str) -> None:
    _check_fast_against_reference(chess.Board(fen))


@pytest.mark.slow
def test_fast_features_and_noisy_moves_equal_the_references_on_random_games() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(st.integers(0, 2**32 - 1), st.integers(0, 300))
    def check(seed: int, plies: int) -> None:
        _check_fast_against_reference(_playout(seed, plies))

    check()


def _resume_positions() -> tuple[list[LabelledPosition], list[LabelledPosition]]:
    """Positions with a fixed 'desired' move (the last legal one: no Stockfish needed)."""
    boards = [_playout(seed, 12 + 3 * seed) for seed in range(14)]
    labelled = [LabelledPosition(b.fen(), list(b.legal_moves)[-1].uci()) for b in boards
                if b.legal_moves.count() >= 2]
    return labelled[:10], labelled[10:]


class _Killed(Exception):
    pass


@pytest.mark.slow
def test_an_interrupted_training_run_resumes_to_exactly_the_same_weights(tmp_path: Path
                                                                         ) -> None:
    from chessmoe.nets.related.ntuple_comparison import train_comparison

    train_set, held_out = _resume_positions()
    config = NtupleTrainConfig(depth=1, iterations=3, patience=3, start="pesto", seed=5)
    whole = train_comparison(train_set, held_out, config, principal_leaf, progress=False)

    calls = 0

    def dying_search(board: chess.Board, evaluate: object, depth: int) -> object:
        nonlocal calls
        calls += 1
        if calls == 400:  # mid-way through the second pass, like a kill
            raise _Killed
        return principal_leaf(board, evaluate, depth)  # type: ignore[arg-type]

    checkpoint = tmp_path / "checkpoint.npz"
    with pytest.raises(_Killed):
        train_comparison(train_set, held_out, config, dying_search,  # type: ignore[arg-type]
                         progress=False, checkpoint=checkpoint, checkpoint_every=3)
    assert checkpoint.is_file()
    seen: list[dict[str, float]] = []
    resumed = train_comparison(train_set, held_out, config, principal_leaf, progress=False,
                               checkpoint=checkpoint, checkpoint_every=3,
                               on_iteration=seen.append)

    def strip(metrics: list[dict[str, float]]) -> list[dict[str, float]]:
        return [{k: v for k, v in m.items() if k != "seconds"} for m in metrics]

    assert strip(resumed.metrics) == strip(whole.metrics) == strip(seen)
    assert [m["iteration"] for m in whole.metrics] == [0, 1, 2, 3]
    assert resumed.best_iteration == whole.best_iteration
    for key in ("open_linear", "end_linear", "open_tuple", "end_tuple"):
        assert np.array_equal(getattr(resumed.weights, key), getattr(whole.weights, key)), key
    # a finished run's checkpoint returns the same outcome without searching again
    again = train_comparison(train_set, held_out, config, dying_search,  # type: ignore[arg-type]
                             progress=False, checkpoint=checkpoint)
    assert strip(again.metrics) == strip(whole.metrics)


def test_a_checkpoint_of_another_run_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    from chessmoe.nets.related.ntuple_comparison import train_comparison

    train_set, held_out = _resume_positions()
    config = NtupleTrainConfig(depth=1, iterations=1, patience=1, start="pesto")
    checkpoint = tmp_path / "checkpoint.npz"
    train_comparison(train_set[:3], held_out[:2], config, principal_leaf, progress=False,
                     checkpoint=checkpoint)
    with pytest.raises(KitError, match="checkpoint of a different run"):
        train_comparison(train_set[:3], held_out[:2], NtupleTrainConfig(
            depth=1, iterations=2, patience=1, start="pesto"), principal_leaf,
            progress=False, checkpoint=checkpoint)
    with pytest.raises(KitError, match="checkpoint of a different run"):
        train_comparison(train_set[:4], held_out[:2], config, principal_leaf, progress=False,
                         checkpoint=checkpoint)
    checkpoint.write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(KitError, match="unreadable training checkpoint"):
        train_comparison(train_set[:3], held_out[:2], config, principal_leaf, progress=False,
                         checkpoint=checkpoint)


@pytest.mark.slow
def test_the_test_set_is_apart_scored_by_position_and_outside_the_fingerprint() -> None:
    """Test positions come from their own games with their own seed; the same weights on
    both sides differ by exactly 0; the test fields do not enter the run's fingerprint (a
    checkpoint resumes when only the test set changes)."""
    from chessmoe.nets.related.ntuple import start_weights
    from chessmoe.nets.related.ntuple_comparison import (
        agreement_on_test,
        run_fingerprint,
        sample_test_positions,
    )

    games = [(k, [b.fen() for b in _game_boards(k)]) for k in range(6)]
    config = NtupleTrainConfig(test_positions=9, per_game=2, min_ply=4)
    fens = sample_test_positions(iter(games), config)
    assert len(fens) == 9 and fens == sample_test_positions(iter(games), config)
    game_fens = {fen for _, g in games for fen in g[4:]}
    assert set(fens) <= game_fens
    train, held = _resume_positions()
    assert run_fingerprint(train, held, config) == run_fingerprint(
        train, held, NtupleTrainConfig(test_positions=0, per_game=2, min_ply=4, test_source="x"))
    assert run_fingerprint(train, held, config) != run_fingerprint(
        train, held, NtupleTrainConfig(test_positions=9, per_game=3, min_ply=4))
    pesto = start_weights("pesto")
    # By hand: exd5 takes a hanging queen (credit 1 when it is the label), Ke2 leaves it
    # (credit 0): agreement 0.5 with a half-width of 1.96 sqrt(0.5 / 2); the same weights on
    # both sides agree position by position, so their difference is 0 with no spread.
    hung = "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1"
    hand = [LabelledPosition(hung, "e4d5"), LabelledPosition(hung, "e1e2")]
    same = agreement_on_test(hand, pesto, pesto, NtupleTrainConfig(depth=1), principal_leaf)
    assert (same.positions, same.start_agreement, same.trained_agreement) == (2, 0.5, 0.5)
    assert same.start_half_width == pytest.approx(1.96 * math.sqrt(0.5 / 2))
    assert (same.difference, same.difference_half_width) == (0.0, 0.0)
    material = start_weights("material")
    other = agreement_on_test(held, material, pesto, NtupleTrainConfig(depth=1), principal_leaf)
    assert other.difference == pytest.approx(other.trained_agreement - other.start_agreement)


def _game_boards(seed: int) -> list[chess.Board]:
    board = _playout(seed, 0)
    out = [board.copy()]
    playout = _playout(seed, 30)
    for move in playout.move_stack:
        board.push(move)
        out.append(board.copy())
    return out


@pytest.mark.slow
def test_vs_stockfish_plays_the_run_against_skill_level_0_and_refuses_bad_input(
        tmp_path: Path, stockfish: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`chessmoe related vs-stockfish`: the run's engine at its own nodes (n-tuple 400)
    against Stockfish Skill Level 0 at 200 nodes, into RUN/vs-stockfish with provenance; a
    run without weights, an unknown engine and zero pairs are one-line errors that play
    nothing."""
    import json

    from chessmoe.cli import main
    from chessmoe.play.versus import vs_stockfish

    run = tmp_path / "ntuple-run"
    save_weights(run, NtupleWeights.initial(), {"train": {"tuples": True}})
    assert main(["related", "vs-stockfish", "ntuple", "--run", str(run), "--pairs", "1",
                 "--stockfish", str(stockfish)]) == 0
    assert "vs Stockfish Skill Level 0: " in capsys.readouterr().out
    data = json.loads((run / "vs-stockfish" / "summary.json").read_text())
    assert data["games"] == 2 and data["openings"]["pairs"] == 1
    assert data["players"]["first"]["kind"] == "ntuple"
    assert data["players"]["first"]["nodes"] == 400
    assert data["players"]["second"]["nodes"] == 200
    assert data["players"]["second"]["options"] == {"Skill Level": 0}
    assert data["provenance"]["git"]["commit"]  # where the games came from
    # resuming plays nothing new
    assert vs_stockfish("ntuple", run, pairs=1, stockfish=stockfish).games == 2

    empty = tmp_path / "untrained"
    empty.mkdir()
    assert main(["related", "vs-stockfish", "mais", "--run", str(empty)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no weights.pt" in err
    assert not (empty / "vs-stockfish").exists()
    with pytest.raises(KitError, match="unknown related engine 'moe'"):
        vs_stockfish("moe", run)
    with pytest.raises(KitError, match="pairs=0"):
        vs_stockfish("ntuple", run, pairs=0)
