"""The DeepChess engine (related-deepchess.md): the 773-bit encoding, Pos2Vec and the siamese
comparator, alpha-beta over positions, training and the UCI player."""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

import chess
import numpy as np
import torch

from chessmoe.games.pgn import GameRecord, iter_games
from chessmoe.games.sources import sample_path
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
    pair_accuracy,
    pair_probabilities,
    piece_bit,
    pretrain_layer,
    random_pairs,
    split_by_game,
)

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
    every: list[GameRecord[Any]] = list(iter_games(sample_path(), max_games=40))
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


def test_split_is_by_game_and_pairs_hold_one_win_each() -> None:
    positions = extract_positions(sample_path(), games=30, per_game=5, seed=2)
    train, held = split_by_game(positions, 0.2, seed=3)
    assert len(train) + len(held) == len(positions)
    assert not set(train.game.tolist()) & set(held.game.tolist())
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
