"""The MAIS engine (related-selfplay-value-search.md): the search priority, best-first search
with minimax over expanded children, the network's input and targets, self-play training
(resumable) and the UCI player."""

from __future__ import annotations

import itertools
import json
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest

from chessmoe.nets.related import train_mais
from chessmoe.nets.related.mais import (
    MATE_SCORE,
    PIECE_VALUES,
    encode,
    encode_batch,
    load_weights,
    naive_eval,
    predict,
    predict_planes,
    q_targets,
)
from chessmoe.nets.related.train_mais import (
    PROFILES,
    MaisTrainConfig,
    exploration_rf,
    mirror_planes,
    self_play_game,
)
from chessmoe.play.players.mais import SEARCH_STEPS, build_searcher
from chessmoe.search.bestfirst import BestFirst, priority, priority_f, priority_h
from chessmoe.search.mcts import Limits
from tests.helpers import uci_script


def train_run(out_dir: Path, config: MaisTrainConfig, **given: Any) -> Path:
    """A training run with the player's search steps, as ``chessmoe related train`` runs it."""
    return train_mais.train_run(out_dir, config, search=SEARCH_STEPS, **given)

# --- the priority ---------------------------------------------------------------------------


def test_priority_values_by_hand() -> None:
    assert priority_f(0.0) == pytest.approx(-1.0)  # -exp(ln 1)
    assert priority_f(1.0) == pytest.approx(-0.5)  # -exp(-ln 2)
    assert priority_f(-1.0) == pytest.approx(-2.0)  # -exp(ln 2)
    assert priority_f(-4.0) == pytest.approx(-5.0)
    # P = f(y * (-1)**w) * 0.3**d; w = 1 when White chooses the move into the node
    assert priority(1.0, False, 0) == pytest.approx(-0.5)
    assert priority(1.0, True, 0) == pytest.approx(-2.0)
    assert priority(0.0, True, 1) == pytest.approx(-0.3)
    assert priority(-1.0, False, 2) == pytest.approx(-2.0 * 0.09)
    assert priority(-1.0, True, 2) == pytest.approx(-0.5 * 0.09)


def test_priority_is_increasing_in_x_and_in_depth() -> None:
    xs = np.linspace(-2000, 2000, 4001)
    fs = [priority_f(float(x)) for x in xs]
    assert all(a < b for a, b in itertools.pairwise(fs))
    assert all(f < 0 for f in fs)
    for y in (-300.0, -1.0, 0.0, 2.5, 800.0):
        for white in (True, False):
            ps = [priority(y, white, d) for d in range(6)]
            assert all(a < b for a, b in itertools.pairwise(ps)), (y, white)
    # White expands its best-looking move first, Black its own (lowest y) first
    assert priority(100.0, True, 1) < priority(-100.0, True, 1)
    assert priority(-100.0, False, 1) < priority(100.0, False, 1)


def test_h_is_odd_and_continuous_at_zero() -> None:
    assert priority_h(0.0) == 0.0
    for x in (1e-12, 0.3, 1.0, 7.5, 1e6):
        assert priority_h(-x) == pytest.approx(-priority_h(x))
        assert priority_h(x) == pytest.approx(math.log(x + 1))
    assert abs(priority_h(1e-12)) < 1e-11 and abs(priority_h(-1e-12)) < 1e-11


# --- the search -----------------------------------------------------------------------------


def material(boards: Sequence[chess.Board]) -> list[float]:
    """A toy value function: material, White's view."""
    out = []
    for board in boards:
        score = 0.0
        for piece in board.piece_map().values():
            value = PIECE_VALUES.get(piece.piece_type, 0.0)
            score += value if piece.color == chess.WHITE else -value
        out.append(score)
    return out


def _mate_in_one(board: chess.Board) -> bool:
    for move in board.legal_moves:
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return True
    return False


@pytest.mark.parametrize("fen", ["6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
                                 "3r2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1"])
def test_mate_in_one_is_always_played(fen: str) -> None:
    def hates_mate(boards: Sequence[chess.Board]) -> list[float]:
        # rates every position as excellent for the side that did not just move
        return [5000.0 if b.turn == chess.WHITE else -5000.0 for b in boards]

    board = chess.Board(fen)
    result = BestFirst(hates_mate).search(board, Limits(nodes=500))
    assert result.move is not None
    board.push(result.move)
    assert board.is_checkmate()
    assert result.value == 1.0


def test_best_first_finds_a_mate_in_two() -> None:
    board = chess.Board("7k/8/5K2/8/8/8/8/R7 w - - 0 1")
    assert not _mate_in_one(board)
    result = BestFirst(material).search(board, Limits(nodes=3000))
    assert result.move is not None and result.value == 1.0
    board.push(result.move)
    for reply in list(board.legal_moves):  # every defence meets a mate in 1
        board.push(reply)
        assert _mate_in_one(board), reply
        board.pop()


def test_minimax_chooses_only_among_expanded_children() -> None:
    e4 = chess.E4

    def lure(boards: Sequence[chess.Board]) -> list[float]:
        # 1.e4 looks best (expanded first) but every reply refutes it; the rest look level
        out = []
        for b in boards:
            pawn = b.piece_at(e4) == chess.Piece(chess.PAWN, chess.WHITE)
            out.append((10.0 if b.turn == chess.BLACK else -100.0) if pawn else 0.0)
        return out

    # the root's 20 children and e4's 20 replies fit; the next expansion does not
    result = BestFirst(lure).search(chess.Board(), Limits(nodes=45))
    assert result.nodes == 40 and result.simulations == 2
    assert result.move == chess.Move.from_uci("e2e4")  # the only expanded root child
    expanded = [c for c in result.children if c.visits > 0]
    assert [c.move.uci() for c in expanded] == ["e2e4"]
    assert result.value < 0  # its minimax value: the refutation


def test_without_any_expanded_child_every_child_is_a_candidate() -> None:
    result = BestFirst(material).search(chess.Board(), Limits(nodes=20))
    assert result.nodes == 20 and result.move in chess.Board().legal_moves


@pytest.mark.parametrize("nodes", [5, 30, 100, 400])
def test_the_node_limit_is_honoured(nodes: int) -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    result = BestFirst(material).search(board, Limits(nodes=nodes))
    if nodes < 27:  # the root (27 moves) is always expanded, and only the root
        assert result.nodes == 27 and result.simulations == 1
        return
    assert result.nodes <= nodes
    assert result.nodes > nodes - 45  # stopped only when the next expansion would not fit
    assert result.move in board.legal_moves


def test_stop_and_movetime_end_the_search() -> None:
    stop = threading.Event()
    calls = []

    def slow(boards: Sequence[chess.Board]) -> list[float]:
        calls.append(len(boards))
        if len(calls) == 3:
            stop.set()
        return material(boards)

    result = BestFirst(slow).search(chess.Board(), Limits(), stop=stop)
    assert len(calls) == 3 and result.move in chess.Board().legal_moves

    def sleepy(boards: Sequence[chess.Board]) -> list[float]:
        time.sleep(0.02)
        return material(boards)

    start = time.perf_counter()
    result = BestFirst(sleepy).search(chess.Board(), Limits(movetime_ms=150))
    assert time.perf_counter() - start < 0.6 and result.batches >= 2


# --- input, evaluation and targets ----------------------------------------------------------


def _random_positions(count: int, seed: int = 3) -> list[chess.Board]:
    rng = np.random.default_rng(seed)
    out = []
    board = chess.Board()
    while len(out) < count:
        if board.is_game_over():
            board = chess.Board()
        moves = list(board.legal_moves)
        board.push(moves[int(rng.integers(len(moves)))])
        out.append(board.copy())
    return out


def test_one_hot_input_signs_and_planes() -> None:
    planes = encode(chess.Board())
    assert planes.shape == (6, 8, 8)
    assert (planes[0, 1] == 1).all() and (planes[0, 6] == -1).all()  # pawns, ranks 2 and 7
    assert planes[5, 0, 4] == 1 and planes[5, 7, 4] == -1  # kings on e1 / e8
    assert planes[4, 0, 3] == 1 and planes[4, 7, 3] == -1  # queens on d1 / d8
    for board in _random_positions(60):
        x = encode(board)
        for square in chess.SQUARES:
            cell = x[:, chess.square_rank(square), chess.square_file(square)]
            piece = board.piece_at(square)
            if piece is None:
                assert not cell.any()
            else:
                assert np.count_nonzero(cell) == 1
                assert cell[piece.piece_type - 1] == (1 if piece.color == chess.WHITE else -1)
    boards = _random_positions(10)
    assert np.array_equal(encode_batch(boards), np.stack([encode(b) for b in boards]))


def test_mirroring_invariants() -> None:
    for board in _random_positions(80, seed=5):
        mirrored = board.mirror()
        assert np.array_equal(encode(mirrored), mirror_planes(encode(board)[None])[0])
        assert naive_eval(mirrored) == pytest.approx(-naive_eval(board))


def test_the_king_takes_its_late_table_at_12_non_king_pieces() -> None:
    """Material and piece-square values cancel (Black mirrors White) but the kings stand on
    h1 and e8: with 12 non-king pieces the late table gives h1 -50 against e8 (e1 mirrored)
    -30, so -20; two more pawns (14 pieces) give the early table's h1 20 against 0, so +20."""
    endgame = chess.Board("rnb1k3/ppp5/8/8/8/8/PPP5/RNB4K w - - 0 1")
    assert len(endgame.piece_map()) - 2 == 12
    assert naive_eval(endgame) == -20.0
    assert naive_eval(chess.Board("rnb1k3/ppp4p/8/8/8/8/PPP4P/RNB4K w - - 0 1")) == 20.0


def test_naive_eval_and_q_targets_of_a_three_position_game() -> None:
    board = chess.Board()
    naive = []
    for san in ("e4", "e5", "Qh5"):
        board.push_san(san)
        naive.append(naive_eval(board))
    # e2-e4: pawn table -25 -> +25; e7-e5 mirrors it; Qd1-h5: queen table 0 -> -5 (rank 5)
    assert naive == [50.0, 0.0, -5.0]
    q = q_targets(naive, 0.9)
    assert q == pytest.approx([50 + 0.9 * (0 + 0.9 * -5), 0 + 0.9 * -5, -5])
    assert q == pytest.approx([45.95, -4.5, -5.0])
    mate = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    mate.push_san("Rd8#")
    assert naive_eval(mate) == MATE_SCORE


def test_exploration_noise_by_game_number() -> None:
    assert exploration_rf(1) == 2.0
    assert exploration_rf(2) == pytest.approx(1 / math.log(2))
    assert exploration_rf(3) == pytest.approx(0.9102, abs=1e-4)
    assert exploration_rf(300) == pytest.approx(0.1753, abs=1e-4)
    with pytest.raises(ValueError):
        exploration_rf(0)


def test_self_play_plays_mate_in_one_and_labels_positions() -> None:
    # a value function that only likes material never aims for mate; the rule still mates
    game = self_play_game(lambda b: np.asarray(material(b)), 5, np.random.default_rng(0),
                          max_plies=40)
    assert len(game.moves) == len(game.targets) == len(game.planes) == len(game.naive)
    assert game.targets == pytest.approx(q_targets(game.naive, 0.9))
    board = chess.Board()
    mates = 0
    for uci in game.moves:
        assert not board.is_game_over()
        if _mate_in_one(board):  # whenever a mate in 1 exists, it is the move played
            assert _gives_mate(board, chess.Move.from_uci(uci))
            mates += 1
        board.push_uci(uci)
    assert mates == (1 if board.is_checkmate() else 0)


def _gives_mate(board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    mate = board.is_checkmate()
    board.pop()
    return mate


# --- training and the player ----------------------------------------------------------------


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # validation positions: the Lichess excerpt when present, else the embedded sample
    out = tmp_path_factory.mktemp("mais") / "run"
    train_run(out, replace(PROFILES["smoke"], games=2), progress=False)
    return out


def test_training_writes_a_loadable_run_and_resumes(smoke_run: Path) -> None:
    def records() -> list[dict[str, float]]:
        lines = (smoke_run / "metrics.jsonl").read_text().splitlines()
        return [json.loads(line) for line in lines]

    first = records()
    assert [r["batch"] for r in first] == [0, 1] and first[1]["games"] == 2
    assert all(r["val_mae"] > 0 and -1 <= r["val_corr"] <= 1 for r in first)
    assert first[1]["positions_new"] == 2 * 2 * 16  # 2 games capped at 16 plies, mirrored
    weights_before = load_weights(smoke_run / "weights.pt").state_dict()
    train_run(smoke_run, PROFILES["smoke"], progress=False)
    second = records()
    assert [r["batch"] for r in second] == [0, 1, 2] and second[2]["games"] == 4
    assert second[:2] == first  # batch 1 was not played again
    train_run(smoke_run, PROFILES["smoke"], progress=False)
    assert records() == second  # nothing left to play
    weights_after = load_weights(smoke_run / "weights.pt").state_dict()
    assert any(not np.allclose(weights_before[k], weights_after[k]) for k in weights_after)
    config = json.loads((smoke_run / "config.json").read_text())
    summary = json.loads((smoke_run / "summary.json").read_text())
    assert config["games_per_batch"] == 2 and config["reduced"]
    assert summary["games"] == 4 and summary["nps"] > 0
    assert (smoke_run / "provenance.json").exists()
    assert (smoke_run / ".gitignore").read_text() == "state/\n"
    player = build_searcher(smoke_run)
    board = chess.Board()
    result = player.play(board, Limits(nodes=100))
    assert result.move in board.legal_moves and result.pv[0] == result.move
    # the value is the network's Q of the principal leaf (White's view; White is to move),
    # on the kit's scale: atan(0.1 Q / 111.7146) / 1.5620688
    leaf = board.copy()
    for move in result.pv:
        leaf.push(move)
    assert not leaf.is_game_over()
    q = float(predict(load_weights(smoke_run / "weights.pt"), [leaf])[0])
    assert result.value == pytest.approx(math.atan(0.1 * q / 111.7146) / 1.5620688, abs=1e-6)


def test_uci_every_go_ends_in_one_bestmove(smoke_run: Path) -> None:
    from chessmoe._io.fsutil import sha256_file

    text, _ = uci_script("mais", smoke_run)
    weights = smoke_run / "weights.pt"  # the line names the file loaded
    assert (f"info string mais weights {weights} sha256 {sha256_file(weights)[:12]}"
            in text.splitlines())


def test_naive_eval_with_a_side_in_check_by_hand() -> None:
    """Kg1 Re1 against Ke8 (Black in check): rook 500 + its table's e1 value 10; one piece
    each, so both kings use the late table: Kg1 -30, Ke8 (mirrored to e1) -30 for Black,
    +30 for White; and 50 for the checking rook: 510 - 30 + 30 + 50 = 560."""
    assert naive_eval(chess.Board("4k3/8/8/8/8/8/8/4R1K1 b - - 0 1")) == 560.0
    # the same without the check (king on d8, mirrored d1: -30 as well): 50 less
    assert naive_eval(chess.Board("3k4/8/8/8/8/8/8/4R1K1 b - - 0 1")) == 510.0
    # Black giving check counts against White
    assert naive_eval(chess.Board("4r1k1/8/8/8/8/8/8/4K3 w - - 0 1")) == -560.0
    # a double check (Re1 and Nd6) is two bonuses: knight 320 + d6's 15, 510 + 335 + 100
    assert naive_eval(chess.Board("4k3/8/3N4/8/8/8/8/4R1K1 b - - 0 1")) == 945.0


def test_best_first_prefers_the_shorter_mate() -> None:
    """Kf6 and Ra1 against Kh8 (material as the value): with 6000 positions the tree holds
    both the mate in 2 (Kf7 Kh7 Rh1#) and, after Kf7 Kh7, longer mates such as Ra6 Kh8 Rh6#;
    a mate scores mate_value - depth, so the principal variation is the mate in 2."""
    board = chess.Board("7k/8/5K2/8/8/8/8/R7 w - - 0 1")
    result = BestFirst(material).search(board, Limits(nodes=6000))
    assert [m.uci() for m in result.pv] == ["f6f7", "h8h7", "a1h1"]
    assert result.value == 1.0
    for move in result.pv:
        board.push(move)
    assert board.is_checkmate()


# --- issue 22: the document's validation split (self-play games, by game) and baselines --


def test_selfplay_validation_baselines_by_hand() -> None:
    from chessmoe.nets.related.train_mais import selfplay_validation

    y = np.array([100.0, -50.0, 10.0, 0.0])
    naive = np.array([20.0, -10.0, 4.0, 1.0])
    out = selfplay_validation(None, np.zeros((4, 6, 8, 8), dtype=np.int8), y, naive, 5.0)
    assert out["selfplay_zero_mae"] == pytest.approx(160 / 4)
    # 5 x naive: 100, -50, 20, 5 -> errors 0, 0, 10, 5
    assert out["selfplay_naive_mae"] == pytest.approx(15 / 4)
    assert "selfplay_val_mae" not in out and out["selfplay_val_positions"] == 4
    assert selfplay_validation(None, np.zeros((0, 6, 8, 8)), np.zeros(0), np.zeros(0), 5) == {}


@pytest.mark.slow
def test_every_kth_selfplay_game_is_validation_only(tmp_path: Path) -> None:
    config = replace(PROFILES["smoke"], games=4, selfplay_holdout_every=2)
    train_run(tmp_path, config, progress=False)
    records = [json.loads(line) for line in
               (tmp_path / "metrics.jsonl").read_text().splitlines()][1:]
    assert [(r["games"], r["games_trained"], r["games_held_out"]) for r in records] == [
        (2, 1, 1), (4, 1, 1)]
    # the MAEs by hand from the validation split the run keeps (each held-out game's
    # positions, then their mirrors: targets and naive evaluations negated) and its weights
    with np.load(tmp_path / "state" / "selfplay_val.npz") as held:
        x, y, naive = held["x"], held["y"], held["naive"]
    assert len(y) == records[1]["selfplay_val_positions"]
    for r in records:
        # trained positions come from the one trained game only (mirrored)
        assert r["positions_new"] == 2 * (r["positions_new"] // 2)
        n = int(r["selfplay_val_positions"])
        assert r["selfplay_zero_mae"] == pytest.approx(np.mean(np.abs(y[:n])), rel=1e-12)
        assert r["selfplay_naive_mae"] == pytest.approx(np.mean(np.abs(y[:n] - 5 * naive[:n])),
                                                        rel=1e-12)
        assert r["selfplay_zero_mae"] > 0 and r["selfplay_naive_mae"] > 0
    first = int(records[0]["selfplay_val_positions"])
    assert np.array_equal(y[first // 2:first], -y[:first // 2])  # the mirrored half
    model = load_weights(tmp_path / "weights.pt")
    assert records[1]["selfplay_val_mae"] == pytest.approx(
        float(np.mean(np.abs(predict_planes(model, x) - y))), rel=1e-6)
    assert records[1]["selfplay_val_positions"] > records[0]["selfplay_val_positions"]
    assert records[0]["pool"] == records[0]["positions_new"]  # held-out games never pooled
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [row["games"] for row in summary["selfplay_mae_curve"]] == [2, 4]
    assert summary["selfplay_naive_multiple"] == 5.0


@pytest.mark.slow
def test_a_snapshot_keeps_the_weights_after_its_game_count(tmp_path: Path) -> None:
    """``snapshots=(2,)``: after the batch that ends at game 2, ``at-2-games/weights.pt``
    holds the weights of that moment (equal to the run's weights then, different from the
    end's), and a player loads it as a run directory of its own."""
    import torch

    from chessmoe.nets.related.train_mais import snapshot_dir

    def weights(path: Path) -> dict[str, Any]:
        return torch.load(path, weights_only=True)

    def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
        return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)

    config = replace(PROFILES["smoke"], games=2, snapshots=(2,), selfplay_holdout_every=2)
    train_run(tmp_path, config, progress=False)
    at_two = weights(tmp_path / "weights.pt")
    snap = snapshot_dir(tmp_path, 2)
    assert same(weights(snap / "weights.pt"), at_two)
    assert json.loads((snap / "snapshot.json").read_text())["games"] == 2
    # growing the run to 4 games leaves the snapshot as it was
    train_run(tmp_path, replace(config, games=4), progress=False)
    assert same(weights(snap / "weights.pt"), at_two)
    assert not same(weights(tmp_path / "weights.pt"), at_two)
    result = build_searcher(snap).play(chess.Board(), Limits(nodes=20))
    assert result.move in chess.Board().legal_moves
    # both networks scored on the same final split: the final one's MAE is the curve's last
    # point (same weights, same positions); the snapshot's differs from its own curve point,
    # which was measured on the smaller split of its time
    fixed = json.loads((tmp_path / "fixed-split.json").read_text())
    records = [json.loads(line) for line in
               (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [(row["weights"], row["games"]) for row in fixed["networks"]] == [
        ("at-2-games/weights.pt", 2), ("weights.pt", 4)]
    assert fixed["networks"][1]["mae"] == pytest.approx(records[-1]["selfplay_val_mae"])
    assert fixed["split"]["positions"] == records[-1]["selfplay_val_positions"]
    assert fixed["zero_mae"] == pytest.approx(records[-1]["selfplay_zero_mae"])
    assert records[-1]["selfplay_val_positions"] > records[1]["selfplay_val_positions"]
    from chessmoe._io.errors import KitError
    from chessmoe.nets.related.train_mais import score_on_final_split

    with pytest.raises(KitError, match="no self-play validation split"):
        score_on_final_split(tmp_path, tmp_path / "elsewhere")


def test_the_holdout_split_is_recomputed_from_the_committed_game_record(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 43: fixed-split.json needs no state/ -- the held-out games' moves (written as
    they are played) give back exactly the positions, targets and naive values the run
    pooled, and ``chessmoe related fixed-split`` writes the file with its real command."""
    import shutil

    from chessmoe.cli import main
    from chessmoe.nets.related.train_mais import HOLDOUT_GAMES, holdout_split

    config = replace(PROFILES["smoke"], games=2, snapshots=(2,), selfplay_holdout_every=2)
    train_run(tmp_path, config, progress=False)
    train_run(tmp_path, replace(config, games=4), progress=False)  # grown: one record a game
    games = [json.loads(line) for line in (tmp_path / HOLDOUT_GAMES).read_text().splitlines()]
    assert [(g["game"], g["batch"]) for g in games] == [(2, 1), (4, 2)]
    x, y, naive, record = holdout_split(tmp_path)
    with np.load(tmp_path / "state" / "selfplay_val.npz") as pooled:
        assert np.array_equal(x, pooled["x"]) and x.dtype == pooled["x"].dtype
        assert np.array_equal(y, pooled["y"]) and np.array_equal(naive, pooled["naive"])
    assert record["games"] == 2 and record["every"] == 2
    before = json.loads((tmp_path / "fixed-split.json").read_text())
    shutil.rmtree(tmp_path / "state")
    (tmp_path / "fixed-split.json").unlink()
    command = ["related", "fixed-split", "--run", str(tmp_path)]
    monkeypatch.setattr("sys.argv", ["chessmoe", *command])  # as the console script sees it
    assert main(command) == 0
    after = json.loads((tmp_path / "fixed-split.json").read_text())
    assert [r["mae"] for r in after["networks"]] == pytest.approx(
        [r["mae"] for r in before["networks"]])
    assert after["split"]["name"] == "every-2nd-game"
    assert after["split"]["file"] == HOLDOUT_GAMES
    assert after["provenance"]["argv"] == ["chessmoe", *command]
    assert main(["related", "fixed-split", "--run", str(tmp_path / "none")]) == 2


def test_related_train_hands_the_trainer_the_players_search(tmp_path: Path) -> None:
    """``chessmoe related train mais`` runs the trainer (nets) with the player's search steps
    (play): the best-first settings in config.json, the search's speed in summary.json."""
    from dataclasses import asdict

    from chessmoe.cli import main
    from chessmoe.search.bestfirst import BestFirstConfig

    run = tmp_path / "run"
    assert main(["related", "train", "mais", "--profile", "smoke", "--out", str(run),
                 "--set", "games=2"]) == 0
    assert json.loads((run / "config.json").read_text())["search"] == asdict(BestFirstConfig())
    summary = json.loads((run / "summary.json").read_text())
    assert summary["nps"] > 0 and summary["nps_document"] == 750.0
