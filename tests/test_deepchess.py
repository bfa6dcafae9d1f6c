"""The DeepChess engine (related-deepchess.md): the 773-bit encoding, Pos2Vec and the siamese
comparator, alpha-beta over positions, training and the UCI player."""

from __future__ import annotations

import functools
import itertools
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest
import torch

from chessmoe._io.errors import KitError
from chessmoe.games.pgn import PgnGame, iter_games
from chessmoe.games.sources import sample_path
from chessmoe.nets.related import train_deepchess
from chessmoe.nets.related.deepchess import (
    COMPARATOR_SCHEDULE,
    DISTILLED,
    INPUT_BITS,
    PIECE_BITS,
    POS2VEC_SCHEDULE,
    SIDE_TO_MOVE_BIT,
    Comparator,
    DeepChessNet,
    PairBatch,
    PositionSet,
    Shape,
    comparator_epoch,
    encode,
    encode_batch,
    extract_positions,
    load_weights,
    material_pair_accuracy,
    pair_accuracy,
    pair_probabilities,
    piece_bit,
    pretrain_layer,
    random_pairs,
    split_by_game,
)
from chessmoe.nets.related.mais import naive_eval
from chessmoe.nets.related.train_deepchess import PROFILES, DeepChessTrainConfig
from chessmoe.play.players.deepchess import SEARCH_STEPS, build_searcher
from chessmoe.search.alphabeta_compare import CompareAlphaBeta, Outcome
from chessmoe.search.mcts import Limits
from tests.helpers import uci_script


def train_run(out_dir: Path, config: DeepChessTrainConfig, **given: Any) -> Path:
    """A training run timing the player's search, as ``chessmoe related train`` runs it."""
    return train_deepchess.train_run(out_dir, config, search=SEARCH_STEPS, **given)


# --- the 773 bits ---------------------------------------------------------------------------

_FENS = [
    chess.STARTING_FEN,
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    "8/8/4k3/8/2P5/8/5K2/8 b - - 0 60",
    "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 3 30",
]


def test_piece_bits_are_the_pieces() -> None:
    for fen in _FENS:
        board = chess.Board(fen)
        bits = encode(board)
        assert bits.shape == (INPUT_BITS,)
        assert bits.dtype == np.uint8
        assert int(bits[:PIECE_BITS].sum()) == len(board.piece_map())
        for square, piece in board.piece_map().items():
            assert bits[piece_bit(piece.color, piece.piece_type, square)] == 1


def test_piece_bit_layout_by_hand() -> None:
    bits = encode(chess.Board())
    assert bits[0 * 384 + 0 * 64 + chess.E2] == 1  # white pawn e2
    assert bits[0 * 384 + 5 * 64 + chess.E1] == 1  # white king e1
    assert bits[1 * 384 + 4 * 64 + chess.D8] == 1  # black queen d8
    assert bits[1 * 384 + 1 * 64 + chess.G8] == 1  # black knight g8
    assert bits[0 * 384 + 0 * 64 + chess.E4] == 0


def test_side_to_move_bit() -> None:
    board = chess.Board()
    assert encode(board)[SIDE_TO_MOVE_BIT] == 1
    board.push_san("e4")
    assert encode(board)[SIDE_TO_MOVE_BIT] == 0
    board.push_san("e5")
    assert encode(board)[SIDE_TO_MOVE_BIT] == 1


def _castling(board: chess.Board) -> list[int]:
    return [int(b) for b in encode(board)[SIDE_TO_MOVE_BIT + 1:]]


def test_castling_bits_follow_the_rights() -> None:
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert _castling(board) == [1, 1, 1, 1]
    board.push_san("Ke2")  # a king move clears both White rights
    assert not board.has_castling_rights(chess.WHITE)
    assert _castling(board) == [0, 0, 1, 1]
    board.push_san("Rh7")  # the h8 rook leaves: Black keeps queen side only
    assert _castling(board) == [0, 0, 0, 1]
    assert _castling(chess.Board("r3k2r/8/8/8/8/8/8/R3K2R b Kq - 3 30")) == [1, 0, 0, 1]
    for fen in _FENS:
        b = chess.Board(fen)
        expected = [b.has_kingside_castling_rights(chess.WHITE),
                    b.has_queenside_castling_rights(chess.WHITE),
                    b.has_kingside_castling_rights(chess.BLACK),
                    b.has_queenside_castling_rights(chess.BLACK)]
        assert _castling(b) == [int(e) for e in expected]


def test_batch_equals_single() -> None:
    boards = [chess.Board(fen) for fen in _FENS]
    batch = encode_batch(boards)
    assert batch.shape == (len(_FENS), INPUT_BITS)
    for row, board in zip(batch, boards, strict=True):
        assert np.array_equal(row, encode(board))
    assert encode_batch([]).shape == (0, INPUT_BITS)


# --- positions, pairs, split ------------------------------------------------------------------


def test_extract_positions_skips_the_opening_and_captures() -> None:
    every: list[PgnGame[Any]] = list(iter_games(sample_path(), max_games=40))
    games = [g for g in every if g.result in ("1-0", "0-1")]
    games = games[:6]
    expected_bits = []
    for game in games:
        board = chess.Board()
        for ply, move in enumerate(game.moves, start=1):
            capture = board.is_capture(move)
            board.push(move)
            if ply >= 10 and not capture:
                expected_bits.append(encode(board))
    everything = extract_positions(sample_path(), games=6, per_game=10_000, seed=1)
    assert len(everything) == len(expected_bits)
    assert np.array_equal(everything.bits, np.stack(expected_bits))
    assert everything.games == 6
    for game_id, game in enumerate(games):
        wins = everything.white_won[everything.game == game_id]
        assert wins.all() if game.result == "1-0" else not wins.any()
    some = extract_positions(sample_path(), games=6, per_game=3, seed=1)
    assert len(some) == 18 and np.bincount(some.game).tolist() == [3] * 6
    rows = {row.tobytes() for row in everything.bits}
    assert all(row.tobytes() in rows for row in some.bits)


def _rows(positions: PositionSet) -> list[tuple[int, bool, bytes]]:
    """The positions of a set as (game, White won, bits) rows, in the set's order."""
    return list(zip(positions.game.tolist(), positions.white_won.tolist(),
                    (row.tobytes() for row in positions.bits), strict=True))


def test_split_is_by_game_and_pairs_hold_one_win_each() -> None:
    positions = extract_positions(sample_path(), games=30, per_game=5, seed=2)
    train, held = split_by_game(positions, 0.2, seed=3)
    assert sorted(_rows(train) + _rows(held)) == sorted(_rows(positions))  # each on one side
    assert not set(train.game.tolist()) & set(held.game.tolist())
    won = dict(zip(positions.game.tolist(), positions.white_won.tolist(), strict=True))
    n_won = sum(won.values())  # a fifth of the games of each result are held out
    assert held.games == round(0.2 * n_won) + round(0.2 * (len(won) - n_won))
    assert held.white_won.any() and (~held.white_won).any()
    pairs = random_pairs(train, 50, np.random.default_rng(4))
    assert len(pairs.label) == 100 and pairs.label.sum() == 50
    white_first = train.white_won[pairs.first]
    assert np.array_equal(white_first, pairs.label == 0)
    assert np.array_equal(train.white_won[pairs.second], pairs.label == 1)


# --- networks and training --------------------------------------------------------------------


@functools.cache
def _toy_positions(count: int, seed: int) -> PositionSet:
    """Random-play positions labelled by material: "White won" when White is ahead."""
    rng = np.random.default_rng(seed)
    values = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    boards: list[chess.Board] = []
    white: list[bool] = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(int(rng.integers(20, 60))):
            moves = list(board.legal_moves)
            if not moves:
                break
            captures = [m for m in moves if board.is_capture(m)]
            pool = captures if captures and rng.random() < 0.7 else moves
            board.push(pool[int(rng.integers(len(pool)))])
        balance = sum(v * (len(board.pieces(t, chess.WHITE)) - len(board.pieces(t, chess.BLACK)))
                      for t, v in values.items())
        if balance != 0:
            boards.append(board)
            white.append(balance > 0)
    return PositionSet(encode_batch(boards), np.arange(count, dtype=np.int32),
                       np.asarray(white))


def test_shapes_full_and_distilled() -> None:
    net = DeepChessNet()
    sizes = [layer.out_features for layer in net.tower.layers]
    assert sizes == [600, 400, 200, 100]
    head = [m.out_features for m in net.head if isinstance(m, torch.nn.Linear)]
    assert head == [400, 200, 100, 2]
    assert net.head[0].in_features == 200
    small = DeepChessNet(DISTILLED)
    assert [layer.out_features for layer in small.tower.layers] == [100, 100, 100]
    assert [m.out_features for m in small.head if isinstance(m, torch.nn.Linear)] == [100, 100, 2]
    x = torch.from_numpy(encode_batch([chess.Board()] * 3).astype(np.float32))
    assert net(x, x).shape == (3, 2)
    assert POS2VEC_SCHEDULE.rate(2) == 0.005 * 0.98 ** 2
    assert COMPARATOR_SCHEDULE.rate(1) == 0.01 * 0.99


@pytest.mark.slow
def test_layerwise_pretraining_reduces_reconstruction_loss() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    positions = _toy_positions(300, seed=6)
    net = DeepChessNet(Shape(pos2vec=(INPUT_BITS, 32, 16), head=(16,)))
    gen = torch.Generator().manual_seed(0)
    for layer, width in enumerate((32, 16)):
        encoder = net.tower.layers[layer]
        assert isinstance(encoder, torch.nn.Linear)
        inputs = encoder.in_features
        decoder = torch.nn.Linear(width, inputs)
        before = [p.detach().clone() for p in net.tower.layers[:layer].parameters()]
        params = list(net.tower.layers[layer].parameters()) + list(decoder.parameters())
        opt = torch.optim.SGD(params, lr=0.05, momentum=0.9)
        losses = [pretrain_layer(net.tower, layer, positions.bits, decoder, opt,
                                 POS2VEC_SCHEDULE, epoch, gen) for epoch in range(8)]
        assert losses[-1] < 0.7 * losses[0]
        after = list(net.tower.layers[:layer].parameters())
        assert all(torch.equal(a, b) for a, b in zip(before, after, strict=True))


@pytest.mark.slow
def test_comparator_learns_and_is_nearly_antisymmetric() -> None:
    torch.manual_seed(1)
    torch.set_num_threads(1)
    train = _toy_positions(800, seed=6)
    held = _toy_positions(100, seed=7)
    net = DeepChessNet(Shape(pos2vec=(INPUT_BITS, 32, 16), head=(16,)))
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    gen = torch.Generator().manual_seed(1)
    rng = np.random.default_rng(1)
    probe = random_pairs(held, 200, np.random.default_rng(9))
    first_accuracy = pair_accuracy(net, held, probe)
    schedule = replace(COMPARATOR_SCHEDULE, lr=0.05, batch_size=32)
    for epoch in range(30):
        comparator_epoch(net, train, random_pairs(train, 600, rng), opt, schedule, epoch, gen)
    accuracy = pair_accuracy(net, held, probe)
    assert accuracy > 0.75 and accuracy > first_accuracy + 0.2
    p = pair_probabilities(net, held, probe)
    swapped = pair_probabilities(net, held, PairBatch(probe.second, probe.first,
                                                      1 - probe.label))
    assert float(np.mean(np.abs(p - (1.0 - swapped)))) < 0.05
    comparator = Comparator(net)
    a_board = chess.Board("4k3/8/8/8/8/8/4Q3/4K3 w - - 0 1")  # White a queen up
    b_board = chess.Board("4k3/4q3/8/8/8/8/8/4K3 w - - 0 1")  # Black a queen up
    pa = comparator.probability(a_board, b_board)
    assert pa == 1.0 - comparator.probability(b_board, a_board)
    assert comparator.better(a_board, b_board) and not comparator.better(b_board, a_board)
    assert comparator.embeddings == 2 and comparator.evaluations == 1


# --- alpha-beta over positions ----------------------------------------------------------------


def _numeric_better(a: chess.Board, b: chess.Board) -> bool:
    return naive_eval(a) > naive_eval(b)


def _minimax(board: chess.Board, depth: int) -> float:
    """Plain minimax of the naive evaluation (White's view), no pruning; mates and draws as
    the evaluation scores them."""
    if depth == 0 or board.is_game_over():
        return naive_eval(board)
    values = []
    for move in board.legal_moves:
        board.push(move)
        values.append(_minimax(board, depth - 1))
        board.pop()
    return max(values) if board.turn == chess.WHITE else min(values)


def _game_positions() -> list[chess.Board]:
    out = []
    every: list[PgnGame[Any]] = list(iter_games(sample_path(), max_games=12))
    for game, ply in zip(every[:6], (12, 20, 26, 34, 15, 41), strict=False):
        board = chess.Board()
        for move in game.moves[:ply]:
            board.push(move)
        if not board.is_game_over():
            out.append(board)
    return out


@pytest.mark.slow
def test_compare_search_chooses_like_plain_minimax_at_depth_2() -> None:
    positions = _game_positions()
    assert len(positions) >= 5
    for board in positions:
        search = CompareAlphaBeta(_numeric_better, max_depth=2)
        result = search.play(board, Limits())
        assert result.move is not None and result.depth == 2
        scores = {}
        for move in board.legal_moves:
            board.push(move)
            scores[move] = _minimax(board, 1)
            board.pop()
        side = 1.0 if board.turn == chess.WHITE else -1.0
        best = max(side * v for v in scores.values())
        assert side * scores[result.move] == best, board.fen()
        if sum(side * v == best for v in scores.values()) == 1:
            assert result.move == max(scores, key=lambda m: side * scores[m])
        value, line = search.search_depth(board, 2)
        assert value.board is not None and naive_eval(value.board) == _minimax(board, 2)
        assert line[0] in scores and len(line) == 2
        full = sum(1 for _ in _leaves(board, 2))
        assert 0 < result.nodes < full  # pruning happened




@pytest.mark.slow
def test_compare_search_with_quiescence_finds_the_numeric_quiescence_value() -> None:
    """With quiescence the comparison search's principal leaf is worth exactly what the
    numeric negamax with quiescence (:mod:`chessmoe.search.alphabeta`, another code path,
    delta pruning off) finds over the same evaluation, at depths 1 and 2 on positions of
    real games; without it the value differs on at least one of them (the test can tell)."""
    from chessmoe.search.alphabeta import AlphaBeta

    def mover_eval(board: chess.Board) -> float:
        return naive_eval(board) if board.turn == chess.WHITE else -naive_eval(board)

    positions = _game_positions()
    differs = 0
    for board in positions:
        side = 1.0 if board.turn == chess.WHITE else -1.0
        for depth in (1, 2):
            numeric = AlphaBeta(mover_eval, quiescence=True, delta_margin=None)
            expected, _, terminal = numeric.search_depth(board, depth)
            assert not terminal
            search = CompareAlphaBeta(_numeric_better, max_depth=depth, quiescence=True)
            value, line = search.search_depth(board, depth)
            assert value.kind == "position" and value.board is not None
            assert side * naive_eval(value.board) == expected, (board.fen(), depth)
            assert len(line) >= depth
            flat, _ = CompareAlphaBeta(_numeric_better, max_depth=depth).search_depth(board,
                                                                                       depth)
            assert flat.board is not None
            differs += side * naive_eval(flat.board) != expected
    assert differs > 0

def test_quiescence_sees_the_recapture_past_the_horizon() -> None:
    """Qxd5 wins a pawn at depth 1 and loses the queen to exd5 one ply later: the flat search
    takes, the search with quiescence keeps its pawn less and never plays Qxd5."""
    board = chess.Board("6k1/8/4p3/3p4/8/8/8/3Q2K1 w - - 0 1")
    take = chess.Move.from_uci("d1d5")
    assert CompareAlphaBeta(_numeric_better, max_depth=1).play(board, Limits()).move == take
    quiet = CompareAlphaBeta(_numeric_better, max_depth=1, quiescence=True)
    assert quiet.play(board, Limits()).move != take
    flat_value, _ = CompareAlphaBeta(_numeric_better, max_depth=1).search_depth(board, 1)
    value, line = quiet.search_depth(board, 1)
    assert flat_value.board is not None and value.board is not None
    assert naive_eval(flat_value.board) > naive_eval(value.board)  # the pawn it gave up on
    assert take not in line
    black = board.mirror()  # the same trap for Black: the minimising side stands pat too
    assert CompareAlphaBeta(_numeric_better, max_depth=1, quiescence=True).play(
        black, Limits()).move != chess.Move.from_uci("d8d4")

def _leaves(board: chess.Board, depth: int) -> Iterator[None]:
    if depth == 0 or board.is_game_over():
        yield None
        return
    for move in list(board.legal_moves):
        board.push(move)
        yield from _leaves(board, depth - 1)
        board.pop()


def test_mate_in_one_is_found_whatever_the_comparator_says() -> None:
    def perverse(a: chess.Board, b: chess.Board) -> bool:
        return naive_eval(a) < naive_eval(b)

    for fen, mate in (("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8"),
                      ("r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1", "a8a1"),
                      ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
                       "h5f7")):
        for depth in (1, 2, 3):
            result = CompareAlphaBeta(perverse, max_depth=depth).play(chess.Board(fen),
                                                                       Limits())
            assert result.move == chess.Move.from_uci(mate)
            assert result.value == 1.0


def test_terminal_positions_and_draw_comparison() -> None:
    search = CompareAlphaBeta(_numeric_better, max_depth=2)
    mated = search.play(chess.Board("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"), Limits())
    assert mated.move is None and mated.value == -1.0
    stalemate = search.play(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), Limits())
    assert stalemate.move is None and stalemate.value == 0.0
    up = Outcome("position", 2, chess.Board("4k3/8/8/8/8/8/4Q3/4K3 w - - 0 1"))
    down = Outcome("position", 2, chess.Board("4k3/4q3/8/8/8/8/8/4K3 w - - 0 1"))
    draw = Outcome("draw", 1)
    assert search.gt(up, draw) and search.gt(draw, down) and not search.gt(draw, up)
    assert search.gt(Outcome("white_mates", 1), Outcome("white_mates", 3))
    assert search.gt(Outcome("black_mates", 4), Outcome("black_mates", 2))
    assert search.gt(down, Outcome("black_mates", 9)) and search.gt(Outcome("white_mates", 9), up)


def test_compare_search_honours_nodes_movetime_and_stop() -> None:
    board = _game_positions()[1]
    search = CompareAlphaBeta(_numeric_better, max_depth=4)
    limited = search.play(board, Limits(nodes=60))
    assert limited.nodes == 60 and limited.move in list(board.legal_moves)
    assert limited.depth >= 1

    def slow(a: chess.Board, b: chess.Board) -> bool:
        time.sleep(0.002)
        return _numeric_better(a, b)

    tick = time.monotonic()
    timed = CompareAlphaBeta(slow, max_depth=6).play(board, Limits(movetime_ms=150))
    assert time.monotonic() - tick < 0.6 and timed.move in list(board.legal_moves)
    stop = threading.Event()
    stop.set()
    stopped = CompareAlphaBeta(_numeric_better, max_depth=6).play(board, Limits(), stop=stop)
    assert stopped.move in list(board.legal_moves) and stopped.nodes == 0
    later = threading.Event()
    threading.Timer(0.2, later.set).start()
    tick = time.monotonic()
    CompareAlphaBeta(slow, max_depth=8).play(board, Limits(), stop=later)
    assert time.monotonic() - tick < 0.8


def test_network_comparator_plugs_in_with_embedding_cache() -> None:
    torch.manual_seed(3)
    comparator = Comparator(DeepChessNet(Shape(pos2vec=(INPUT_BITS, 16, 8), head=(8,))))
    search = CompareAlphaBeta(comparator.better, max_depth=2, confidence=comparator.probability,
                              prepare=comparator.prepare)
    board = _game_positions()[0]
    result = search.play(board, Limits())
    assert result.move in list(board.legal_moves) and result.pv[0] == result.move
    assert comparator.embeddings > 0
    again = comparator.embeddings
    search.play(board, Limits())
    assert comparator.embeddings == again  # every position met again was cached
    # the value is the network's confidence in the principal leaf against its mirror,
    # 2 p - 1 from the side to move's view
    leaf = board.copy()
    for move in result.pv:
        leaf.push(move)
    p = comparator.probability(leaf, leaf.mirror())
    side = 1.0 if board.turn == chess.WHITE else -1.0
    assert result.value == pytest.approx(side * (2.0 * p - 1.0), abs=1e-6)
    assert 0.0 < p < 1.0 and result.value != 0.0


def test_a_full_embedding_cache_starts_over_without_losing_the_positions_asked_for() -> None:
    """A batch that overflows the cache while some of its positions are cached: the cache
    starts over and embeds all of them (a match crashed here with a KeyError once the
    200,000-entry cache filled mid-game), with the answers of a cache that never fills."""
    torch.manual_seed(4)
    net = DeepChessNet(Shape(pos2vec=(INPUT_BITS, 16, 8), head=(8,)))
    small, roomy = Comparator(net, cache_size=3), Comparator(net)
    first, *others = _game_positions()[:4]
    small.prepare([first, others[0]])
    small.prepare([first, others[1], others[2]])  # 2 cached + 2 new > 3
    assert small.embeddings == 5  # the two first, then all three of the second batch
    for a, b in ((first, others[1]), (others[2], first), (others[0], others[1])):
        assert small.probability(a, b) == pytest.approx(roomy.probability(a, b), abs=1e-6)


# --- training and the player ------------------------------------------------------------------


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("deepchess") / "run"
    config = replace(PROFILES["smoke"], comparator_epochs=1)
    train_run(out, config, source=sample_path(), progress=False)
    return out


def _records(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


def test_training_writes_a_loadable_run_and_resumes(smoke_run: Path) -> None:
    first = _records(smoke_run)
    # 2 tower layers x 1 autoencoder epoch, then 1 comparator epoch
    assert [(r["phase"], r.get("layer")) for r in first] == [
        ("pos2vec", 1), ("pos2vec", 2), ("comparator", None)]
    assert first[-1]["lr"] == pytest.approx(0.01) and first[0]["lr"] == pytest.approx(0.005)
    shape = Shape(pos2vec=(INPUT_BITS, 24, 12), head=(12,))
    # the held-out accuracies are the saved network's and the material comparator's on the
    # run's fixed pairs of held-out games. (The smoke network, one epoch in, calls the first
    # position of every pair the better one, and each pair is drawn in both orders: it scores
    # exactly 0.5 on any pairs. The material comparator, on the same pairs, does not.)
    from chessmoe.nets.related.train_deepchess import _evaluation_sets, _positions

    smoke = replace(PROFILES["smoke"], comparator_epochs=1)  # the positions are saved: no source
    sets = _evaluation_sets(_positions(smoke_run, smoke, None), smoke)  # type: ignore[arg-type]
    trained = load_weights(smoke_run / "weights.pt", shape)
    assert len(sets.held_pairs.label) == smoke.eval_pairs // 2 * 2
    assert first[-1]["held_out_accuracy"] == pytest.approx(
        pair_accuracy(trained, sets.held, sets.held_pairs), abs=1e-12)
    material = json.loads((smoke_run / "summary.json").read_text())
    assert material["material_held_out_accuracy"] == pytest.approx(
        material_pair_accuracy(sets.held, sets.held_pairs), abs=1e-12)
    assert material["material_held_out_position_accuracy"] == pytest.approx(
        material_pair_accuracy(sets.unseen, sets.unseen_pairs), abs=1e-12)
    assert material["material_held_out_accuracy"] != 0.5
    before = trained.state_dict()
    train_run(smoke_run, PROFILES["smoke"], source=sample_path(), progress=False)
    second = _records(smoke_run)
    assert second[:3] == first and [r["step"] for r in second] == [1, 2, 3, 4]
    assert second[3]["lr"] == pytest.approx(0.01 * 0.99)
    written = {name: (smoke_run / name).read_bytes()
               for name in ("summary.json", "provenance.json", "weights.pt")}
    train_run(smoke_run, PROFILES["smoke"], source=sample_path(), progress=False)
    assert _records(smoke_run) == second
    # a finished run is left as it was: no new speed measurement, date or commit
    assert all((smoke_run / name).read_bytes() == data for name, data in written.items())
    after = load_weights(smoke_run / "weights.pt", shape).state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in after)
    config = json.loads((smoke_run / "config.json").read_text())
    summary = json.loads((smoke_run / "summary.json").read_text())
    assert config["pos2vec"] == [INPUT_BITS, 24, 12] and config["split"].startswith("by game")
    assert config["reduced"]
    assert summary["document_train_accuracy"] == 0.982 and summary["nps"] > 0
    assert summary["comparator_epochs"] == 2 and summary["games"] == 40
    assert summary["held_out_games"] == 8 and summary["train_games"] == 32
    assert (smoke_run / "provenance.json").exists()
    assert (smoke_run / ".gitignore").read_text() == "state/\n"
    with pytest.raises(KitError):
        train_run(smoke_run, replace(PROFILES["smoke"], positions_per_game=3),
                  source=sample_path(), progress=False)
    player = build_searcher(smoke_run)
    board = chess.Board()
    result = player.play(board, Limits(nodes=80))
    assert result.move in list(board.legal_moves) and result.nodes <= 80


def test_a_finished_run_gains_its_paired_material_comparison(smoke_run: Path) -> None:
    from chessmoe.nets.related.train_deepchess import MATERIAL_FILE

    train_run(smoke_run, PROFILES["smoke"], source=sample_path(), progress=False)  # finished
    path = smoke_run / MATERIAL_FILE
    made = json.loads(path.read_text())
    summary = json.loads((smoke_run / "summary.json").read_text())
    # the very pairs of summary.json: the same accuracies, now row by row
    assert made["by_game"]["network"] == pytest.approx(summary["held_out_accuracy_last"])
    assert made["by_game"]["material"] == pytest.approx(summary["material_held_out_accuracy"])
    assert made["by_position"]["network"] == pytest.approx(
        summary["held_out_position_accuracy_last"])
    assert made["by_game"]["rows"] == PROFILES["smoke"].eval_pairs
    assert made["weights_sha256"] and made["provenance"]["git"]
    summary_bytes = (smoke_run / "summary.json").read_bytes()
    path.unlink()  # a run finished before the comparison existed
    train_run(smoke_run, PROFILES["smoke"], source=sample_path(), progress=False)
    again = json.loads(path.read_text())
    assert {k: again[k] for k in ("by_game", "by_position")} == {
        k: made[k] for k in ("by_game", "by_position")}
    assert (smoke_run / "summary.json").read_bytes() == summary_bytes
    # made under another interval rule: written again under today's
    again["interval_rule"]["min_clusters"] = 1
    path.write_text(json.dumps(again))
    train_run(smoke_run, PROFILES["smoke"], source=sample_path(), progress=False)
    assert json.loads(path.read_text())["interval_rule"] == made["interval_rule"]
    # made when its description said otherwise (the files written before the interval
    # clustered by game kept an older sentence): written again with today's
    stale = json.loads(path.read_text())
    stale["what"] = "the 95 % half-width treats one unordered pair of positions as a cluster"
    path.write_text(json.dumps(stale))
    train_run(smoke_run, PROFILES["smoke"], source=sample_path(), progress=False)
    rewritten = json.loads(path.read_text())
    assert rewritten["what"] == made["what"] and "clusters the rows by game" in made["what"]
    assert rewritten["by_game"] == made["by_game"]
    current = path.read_bytes()  # and a current one is left as it is
    train_run(smoke_run, PROFILES["smoke"], source=sample_path(), progress=False)
    assert path.read_bytes() == current


def test_uci_every_go_ends_in_one_bestmove(smoke_run: Path) -> None:
    text, _ = uci_script("deepchess", smoke_run)
    # every info line carries a score: the comparator's confidence as cp until the search
    # proves the mate, then the mate
    infos = [ln for ln in text.splitlines() if ln.startswith("info depth")]
    assert all(" score " in ln for ln in infos)
    first_mate = next(i for i, ln in enumerate(infos) if "score mate" in ln)
    assert infos[first_mate].split("score ")[1].split()[:2] == ["mate", "1"]  # Rd8#
    assert all("score cp" in ln for ln in infos[:first_mate]) and first_mate > 0


@pytest.mark.parametrize("fen", [
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "7k/8/5K2/8/8/8/8/R7 w - - 0 1",  # a mate in 2: terminal leaves too
])
@pytest.mark.parametrize("limit", [1, 7, 60, 250])
def test_compare_search_under_a_node_limit_asks_about_no_more_positions(fen: str,
                                                                        limit: int) -> None:
    """The node limit bounds the whole search (every iteration together): the comparator is
    shown at most ``limit`` different positions (a position and its colour mirror, which
    draws and the reported value are compared with, count once)."""
    board = chess.Board(fen)
    shown: set[str] = set()
    calls = {"n": 0}

    def counting(a: chess.Board, b: chess.Board) -> bool:
        calls["n"] += 1
        shown.update(min(x.fen(), x.mirror().fen()) for x in (a, b))
        return _numeric_better(a, b)

    result = CompareAlphaBeta(counting, max_depth=4).play(board, Limits(nodes=limit))
    assert result.move in list(board.legal_moves)
    assert result.nodes <= limit
    assert len(shown) <= limit, len(shown)
    assert result.simulations <= calls["n"] <= result.simulations + 1  # + the value's


# --- issue 22: by-game and by-position held-out accuracy, the material comparator, curves --


def test_material_comparator_by_hand() -> None:
    from chessmoe.nets.related.deepchess import (
        PairBatch,
        encode_batch,
        material_balance,
        material_pair_accuracy,
    )

    boards = [chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1"),  # White +9
              chess.Board("4k3/8/8/8/8/8/8/3RK3 w - - 0 1"),  # White +5
              chess.Board("3rk3/8/8/8/8/8/8/4K3 w - - 0 1")]  # White -5
    positions = PositionSet(encode_batch(boards), np.arange(3, dtype=np.int32),
                            np.array([True, False, False]))
    assert material_balance(positions.bits).tolist() == [9.0, 5.0, -5.0]
    # pair (0 White win, 1): right; (2 Black win first, 0): label 1, material picks 0: right;
    # (1, 2) labelled "1 is the White win": material picks 1: right; (1, 1): a tie, one half
    pairs = PairBatch(np.array([0, 2, 1, 1]), np.array([1, 0, 2, 1]), np.array([0, 1, 0, 1]))
    assert material_pair_accuracy(positions, pairs) == pytest.approx(3.5 / 4)
    wrong = PairBatch(np.array([2]), np.array([0]), np.array([0]))  # "2 is the White win"
    assert material_pair_accuracy(positions, wrong) == 0.0


def _paired_positions() -> PositionSet:
    queen, rook = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "4k3/8/8/8/8/8/8/3RK3 w - - 0 1"
    down = "3rk3/8/8/8/8/8/8/4K3 w - - 0 1"  # White -5
    fens = [queen, rook, down, rook, down, down.replace(" w ", " b "), queen, rook, down, rook]
    games = [0, 1, 2, 3, 4, 5, 0, 7, 8, 9]  # position 6 is another position of game 0
    white_won = [True, False, True, False, True, False, True, False, True, False]
    return PositionSet(encode_batch([chess.Board(f) for f in fens]),
                       np.array(games, dtype=np.int32), np.array(white_won))


def test_paired_comparison_with_material_by_hand() -> None:
    from chessmoe.nets.related.deepchess import paired_with_material

    positions = _paired_positions()
    # rows (first, second, label; the network's P(first is the White win)):
    #   (0,1) 0 p.8: network right, material right (9 > 5)  d  0   } games {0,1}
    #   (1,0) 1 p.6: network wrong, material right          d -1   }
    #   (2,3) 0 p.7: network right, material wrong (-5 < 5) d +1   } games {2,3}
    #   (3,2) 1 p.3: network right, material wrong          d +1   }
    #   (4,5) 0 p.5: network wrong (<= .5 picks 5), tie .5  d -.5  } games {4,5}
    #   (5,4) 1 p.2: network right, tie .5                  d +.5  }
    first, second = np.array([0, 1, 2, 3, 4, 5]), np.array([1, 0, 3, 2, 5, 4])
    label, p = np.array([0, 1, 0, 1, 0, 1]), np.array([.8, .6, .7, .3, .5, .2])
    result = paired_with_material(p, positions, PairBatch(first, second, label))
    assert (result.rows, result.units) == (6, 3)
    assert result.network == pytest.approx(4 / 6) and result.material == pytest.approx(3 / 6)
    assert result.difference == pytest.approx(1 / 6)
    # cluster sums of d - 1/6: -4/3, 5/3, -1/3; variance (16 + 25 + 1) / 9 / 36 * 3 / 2 = 7/36
    assert result.half_width == pytest.approx(1.959963984540054 * 7 ** 0.5 / 6)
    assert (result.network_only, result.material_only) == (3, 1)
    assert result.largest_cluster == 2
    # three clusters are too few for a clustered interval: nothing is decided
    assert not result.estimable and not result.decided
    assert result.to_json()["decided"] is False
    # a pair (6, 7) whose position 6 comes from game 0 joins the first cluster: 4 pairs, 3
    # clusters; d sums 1 in 8 rows, cluster sums of d - 1/8: -1.5, 1.75, -0.25
    joined = PairBatch(np.append(first, [6, 7]), np.append(second, [7, 6]),
                       np.append(label, [0, 1]))
    more = paired_with_material(np.append(p, [.9, .1]), positions, joined)
    assert (more.rows, more.units, more.difference) == (8, 3, 1 / 8)
    assert more.half_width == pytest.approx(
        1.959963984540054 * ((1.5 ** 2 + 1.75 ** 2 + 0.25 ** 2) / 64 * 3 / 2) ** 0.5)
    assert more.largest_cluster == 4  # games 0, 1 and 7
    with pytest.raises(ValueError):
        paired_with_material(np.zeros(0), positions, PairBatch(*(np.zeros(0, int),) * 3))


def test_a_paired_comparison_needs_many_clusters_none_dominant() -> None:
    from chessmoe.nets.related.deepchess import MIN_CLUSTERS, paired_with_material

    n = 40  # pairs, each (White down a rook but won, White up a rook but lost), both orders
    down, up = "3rk3/8/8/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/8/8/3RK3 w - - 0 1"
    bits = encode_batch([chess.Board(f) for f in [down, up] * n])
    white_won = np.tile([True, False], n)
    first = np.concatenate([np.arange(0, 2 * n, 2), np.arange(1, 2 * n, 2)])
    second = np.concatenate([np.arange(1, 2 * n, 2), np.arange(0, 2 * n, 2)])
    pairs = PairBatch(first, second, np.repeat([0, 1], n))
    right = np.repeat([0.9, 0.1], n)  # the network right on every row, material wrong

    def compare(games: list[int]) -> Any:
        positions = PositionSet(bits, np.array(games, dtype=np.int32), white_won)
        return paired_with_material(right, positions, pairs)

    apart = compare(list(range(2 * n)))  # every pair its own two games
    assert (apart.units, apart.largest_cluster, apart.difference) == (n, 2, 1.0)
    assert apart.half_width == 0.0 and apart.estimable and apart.decided
    assert n >= MIN_CLUSTERS
    # every White win from one game: one cluster, no interval
    one = compare([0 if k % 2 == 0 else k for k in range(2 * n)])
    assert (one.units, one.largest_cluster) == (1, 2 * n) and not one.decided
    # 8 of the 40 pairs share a game: 33 clusters, but one holds 16 of 80 rows (> 10 %)
    games = [0 if k % 2 == 0 and k < 16 else k for k in range(2 * n)]
    dominant = compare(games)
    assert (dominant.units, dominant.largest_cluster) == (33, 16)
    assert not dominant.estimable and not dominant.decided
    # 4 of them share a game: 8 of 80 rows, exactly 10 %: estimable
    assert compare([0 if k % 2 == 0 and k < 8 else k for k in range(2 * n)]).decided


def test_position_split_and_first_games() -> None:
    from chessmoe.nets.related.deepchess import first_games, split_positions

    positions = extract_positions(sample_path(), games=20, per_game=5, seed=3)
    kept, unseen = split_positions(positions, 0.2, seed=4)
    assert sorted(_rows(kept) + _rows(unseen)) == sorted(_rows(positions))  # each on one side
    assert len(unseen) == round(0.2 * len(positions))
    assert set(np.unique(unseen.game)) <= set(np.unique(positions.game))
    first = first_games(positions, 4)
    assert first.games == 4 and set(first.game.tolist()) == set(np.unique(positions.game)[:4])
    assert first_games(positions, 0) is positions


def test_learning_curve_records_each_count_on_the_same_held_out_games(tmp_path: Path) -> None:
    from chessmoe.nets.related.train_deepchess import learning_curve

    config = replace(PROFILES["smoke"], comparator_epochs=1, learning_curve=(20, 6),
                     held_out_positions=0.3,
                     nps_positions=1, nps_nodes=20)
    learning_curve(tmp_path, config, source=sample_path(), progress=False, search=SEARCH_STEPS)
    curve = json.loads((tmp_path / "learning_curve.json").read_text())
    rows = curve["rows"]
    assert [r["games_asked"] for r in rows] == [6, 20]
    assert [r["train_games"] for r in rows] == [6, 20]
    assert rows[0]["held_out_games"] == rows[1]["held_out_games"] == 8
    for row in rows:
        for key in ("held_out_accuracy_last", "held_out_position_accuracy_last",
                    "material_held_out_accuracy", "material_held_out_position_accuracy"):
            assert 0.0 <= row[key] <= 1.0, key
    # the material comparator is scored on the very pairs of the by-game held-out set
    assert rows[0]["material_held_out_accuracy"] == rows[1]["material_held_out_accuracy"]
    for row in rows:
        paired = row["material_paired_by_game"]
        assert paired["network"] == pytest.approx(row["held_out_accuracy_last"])
        assert paired["difference"] == pytest.approx(
            row["held_out_accuracy_last"] - row["material_held_out_accuracy"])
    records = _records(tmp_path / "games-6")
    assert "held_out_position_accuracy" in records[-1]


def test_positions_from_several_files_are_those_of_the_files_read_in_order(
        tmp_path: Path) -> None:
    """A self-play run's shards are read as one PGN: the sample cut into two files gives the
    positions of the whole, the first N decided games crossing the cut."""
    import gzip

    text = gzip.decompress(sample_path().read_bytes()).decode()
    games = text.split("\n\n[Event ")
    cut = 25
    first = tmp_path / "shard-0.pgn"
    second = tmp_path / "shard-1.pgn"
    first.write_text("\n\n[Event ".join(games[:cut]) + "\n\n")
    second.write_text("[Event " + "\n\n[Event ".join(games[cut:]))
    whole = extract_positions(sample_path(), games=60, per_game=3, seed=4)
    parts = extract_positions([first, second], games=60, per_game=3, seed=4)
    assert parts.games == whole.games == 60
    assert np.array_equal(parts.bits, whole.bits) and np.array_equal(parts.game, whole.game)
    assert np.array_equal(parts.white_won, whole.white_won)
    only_first = extract_positions([first], games=60, per_game=3, seed=4)
    assert only_first.games < 60  # the cut is inside the first 60 decided games


def test_a_run_reads_a_named_source_and_records_it(tmp_path: Path) -> None:
    """config.source names the games by a source spec (here the embedded sample, as
    'selfplay:RUN' names a self-play run); config.json and provenance.json record the spec
    and the checksum of every file; a source file and a spec together are refused."""
    from chessmoe._io.fsutil import sha256_file

    config = replace(PROFILES["smoke"], comparator_epochs=1, pos2vec_epochs=1,
                     source="sample")
    train_run(tmp_path / "run", config, progress=False)
    recorded = json.loads((tmp_path / "run" / "config.json").read_text())
    assert recorded["source"] == "selfplay-sample" and recorded["source_spec"] == "sample"
    provenance = json.loads((tmp_path / "run" / "provenance.json").read_text())
    assert provenance["source"] == "sample"
    assert provenance["source_files"] == [{"file": sample_path().name,
                                           "bytes": sample_path().stat().st_size,
                                           "sha256": sha256_file(sample_path())}]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["source"] == "selfplay-sample" and summary["games"] == 40
    with pytest.raises(KitError, match="name the games once"):
        train_run(tmp_path / "other", config, source=sample_path(), progress=False)
    with pytest.raises(KitError, match=r"self-play run .* not found"):
        train_run(tmp_path / "none", replace(config, source="selfplay:no-such-run"),
                  data_dir=tmp_path, progress=False)


def test_the_large_profile_trains_on_90k_engine_games() -> None:
    large = PROFILES["large"]
    assert large.source == "selfplay:stockfish-n1000"
    assert round(large.games * (1 - large.held_out_games)) == 90_000


def _doubled_pgn(path: Path, games: int) -> Path:
    """The sample's first ``games`` games, every other one written twice in a row (an exact
    copy follows it)."""
    import gzip
    import re

    text = gzip.decompress(sample_path().read_bytes()).decode()
    chunks = re.split(r"\n\s*\n(?=\[Event )", text.strip())[:games]
    path.write_text("".join(f"{c}\n\n" * (2 if i % 2 == 0 else 1)
                            for i, c in enumerate(chunks)))
    return path


def test_level_material_compares_where_material_cannot_decide(tmp_path: Path) -> None:
    """Issue 43: the held-out pairs split by material (where the balances tie, material
    scores one half), a larger draw of tied pairs, and by game without the held-out games
    that copy a training game -- read again from the source and checked against the run."""
    from chessmoe.cli import main
    from chessmoe.nets.related.train_deepchess import LEVEL_FILE, level_material

    pgn = _doubled_pgn(tmp_path / "doubled.pgn", 200)
    config = replace(PROFILES["smoke"], games=240, comparator_epochs=1, unique_games=False)
    run = tmp_path / "run"
    train_run(run, config, source=pgn, progress=False)
    out = level_material(run, source=pgn, level_pairs=150, progress=False)
    assert json.loads((run / LEVEL_FILE).read_text())["by_game"] == out["by_game"]
    paired = json.loads((run / "material-paired.json").read_text())
    for held in ("by_game", "by_position"):
        parts = out[held]
        assert parts["all"] == paired[held]  # the run's own pairs, read again
        assert parts["material_tied"]["material"] == 0.5  # a tie is half by its rule
        assert parts["material_tied"]["rows"] + parts["material_differs"]["rows"] == \
            parts["all"]["rows"]
        if parts["both_level"] is not None:
            assert parts["both_level"]["rows"] <= parts["material_tied"]["rows"]
        drawn = parts["level_draw"]
        assert 0 < drawn["rows"] <= 300 and drawn["material"] == 0.5
        assert drawn["largest_cluster"] == 2  # no game in two pairs: a pair, both orders
    assert (run / "state" / "game-keys.json").is_file()  # read once, then from state/
    assert level_material(run, source=tmp_path / "absent.pgn", level_pairs=150,
                          progress=False)["by_game"] == out["by_game"]
    copies = out["by_game_without_copies"]
    assert copies["held_out_games_copying_a_training_game"] > 0  # half the games doubled
    assert copies["rows_dropped"] + copies["all"]["rows"] == out["by_game"]["all"]["rows"]

    deduplicated = tmp_path / "unique"
    train_run(deduplicated, replace(config, unique_games=True), source=pgn, progress=False)
    again = level_material(deduplicated, source=pgn, level_pairs=150, progress=False)
    assert again["by_game_without_copies"]["held_out_games_copying_a_training_game"] == 0
    assert json.loads((deduplicated / "config.json").read_text())["unique_games"] is True
    assert "unique_games" not in json.loads((run / "config.json").read_text())
    assert main(["related", "level-material", "--run", str(tmp_path / "none")]) == 2


def test_the_comparator_answers_as_the_network_does() -> None:
    """Issue 43: the comparator's per-pair work runs in numpy on precomputed halves of the
    head's first layer; its answers are the network's own (both orders averaged) within
    1e-6, for a head of several layers, and a pair asked again is answered from the cache."""
    torch.manual_seed(5)
    net = DeepChessNet(Shape(pos2vec=(INPUT_BITS, 32, 16), head=(12, 8))).eval()
    comparator = Comparator(net)
    boards = _game_positions()
    for a, b in itertools.permutations(boards[:5], 2):
        with torch.no_grad():
            codes = net.tower(torch.from_numpy(encode_batch([a, b]).astype(np.float32)))
            p = torch.softmax(net.compare(codes[[0, 1]], codes[[1, 0]]), dim=1)[:, 0]
        expected = 0.5 * (float(p[0]) + 1.0 - float(p[1]))
        assert comparator.probability(a, b) == pytest.approx(expected, abs=1e-6)
    assert comparator.evaluations == 10  # (a, b) answered (b, a) too
