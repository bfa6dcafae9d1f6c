"""DeepChess (related-deepchess.md): the 773-bit position, Pos2Vec and the siamese comparator.

What the document fixes, and where it lives here:

* input: 773 bits per position (:func:`encode`, :func:`encode_batch`): 768 piece bits (two
  sides x six piece types x 64 squares), one side-to-move bit (White to move = 1) and four
  castling bits (White king side, White queen side, Black king side, Black queen side). The
  piece bit of colour ``c`` (White 0, Black 1), type ``t`` (pawn 1 .. king 6) on python-chess
  square ``s`` (a1 = 0 .. h8 = 63) is at index ``c * 384 + (t - 1) * 64 + s``
  (:func:`piece_bit`). The bits are read from python-chess' 64-bit bitboards with one
  ``numpy.unpackbits`` per batch, not square by square.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np

__all__ = [
    "CASTLING_BITS",
    "INPUT_BITS",
    "PIECE_BITS",
    "SIDE_TO_MOVE_BIT",
    "encode",
    "encode_batch",
    "piece_bit",
]

PIECE_BITS = 768
SIDE_TO_MOVE_BIT = 768
CASTLING_BITS: tuple[chess.Bitboard, ...] = (chess.BB_H1, chess.BB_A1, chess.BB_H8, chess.BB_A8)
"""The rook squares whose castling right sets bits 769..772, in that order."""
INPUT_BITS = 773

_COLORS = (chess.WHITE, chess.BLACK)


def piece_bit(color: chess.Color, piece_type: chess.PieceType, square: chess.Square) -> int:
    """Index of the bit that is set when ``color``'s ``piece_type`` stands on ``square``."""
    return (0 if color == chess.WHITE else 1) * 384 + (piece_type - 1) * 64 + square


def _words(board: chess.Board) -> list[int]:
    """The 12 piece bitboards in encoding order, then the side to move and castling as a word."""
    words = [board.pieces_mask(piece_type, color)
             for color in _COLORS for piece_type in chess.PIECE_TYPES]
    state = 1 if board.turn == chess.WHITE else 0
    rights = board.castling_rights
    for index, rook in enumerate(CASTLING_BITS):
        if rights & rook:
            state |= 2 << index
    words.append(state)
    return words


def encode_batch(boards: Sequence[chess.Board]) -> np.ndarray:
    """The 773 bits of each board, ``uint8 [N, 773]`` (0 or 1)."""
    words = np.array([_words(board) for board in boards], dtype=np.uint64).reshape(-1, 13)
    # little-endian bytes, little-endian bit order: bit k of word w lands at column 64 w + k
    raw = words.astype("<u8").view(np.uint8).reshape(len(words), 13 * 8)
    bits = np.unpackbits(raw, axis=1, bitorder="little")
    return np.ascontiguousarray(bits[:, :INPUT_BITS])


def encode(board: chess.Board) -> np.ndarray:
    """The 773 bits of one board, ``uint8 [773]``."""
    return encode_batch([board])[0]
