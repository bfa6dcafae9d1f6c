"""The DeepChess engine (related-deepchess.md): the 773-bit encoding, Pos2Vec and the siamese
comparator, alpha-beta over positions, training and the UCI player."""

from __future__ import annotations

import chess
import numpy as np

from chessmoe.nets.related.deepchess import (
    INPUT_BITS,
    PIECE_BITS,
    SIDE_TO_MOVE_BIT,
    encode,
    encode_batch,
    piece_bit,
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
