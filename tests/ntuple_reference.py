"""Plain, slow reference implementations of the n-tuple features and the quiescence move
list, written from their definitions (one piece, one file, one move at a time), for the
differential tests of :mod:`chessmoe.nets.related.ntuple` and :mod:`chessmoe.search.alphabeta`
and for ``benchmarks/bench.py`` (the fast code's speed-up is measured against these)."""

from __future__ import annotations

import chess
import numpy as np
import numpy.typing as npt

__all__ = ["reference_linear", "reference_noisy_moves", "reference_tuples"]


def reference_tuples(board: chess.BaseBoard) -> tuple[list[int], list[float]]:
    """Every ordered pair (i, j) of pieces, i's pieces White first then by type and square:
    entry ``type_i x (12 x 32 x 64) + kind x (32 x 64) + folded(s1) x 64 + s2``, where the
    squares are seen from i's side (Black's flipped vertically), mirrored left-right when
    s1 stands on files e-h, ``folded(s1) = rank x 4 + file`` and ``kind`` = (j is i's
    opponent) x 6 + type_j; sign +1 for White's i, -1 for Black's."""
    pieces = [(square, piece_type - 1, color)
              for color in (chess.WHITE, chess.BLACK) for piece_type in chess.PIECE_TYPES
              for square in sorted(board.pieces(piece_type, color))]
    index: list[int] = []
    sign: list[float] = []
    for square_i, type_i, color_i in pieces:
        for square_j, type_j, color_j in pieces:
            s1 = square_i if color_i == chess.WHITE else chess.square_mirror(square_i)
            s2 = square_j if color_i == chess.WHITE else chess.square_mirror(square_j)
            if chess.square_file(s1) >= 4:
                s1 = chess.square(7 - chess.square_file(s1), chess.square_rank(s1))
                s2 = chess.square(7 - chess.square_file(s2), chess.square_rank(s2))
            kind = (6 if color_j != color_i else 0) + type_j
            folded = chess.square_rank(s1) * 4 + chess.square_file(s1)
            index.append(type_i * 12 * 32 * 64 + kind * 32 * 64 + folded * 64 + s2)
            sign.append(1.0 if color_i == chess.WHITE else -1.0)
    return index, sign


def _side(board: chess.BaseBoard, color: chess.Color) -> list[float]:
    us = board.occupied_co[color]
    own_pawns = board.pieces(chess.PAWN, color)
    their_pawns = board.pieces(chess.PAWN, not color)
    material = [len(board.pieces(t, color)) for t in (chess.PAWN, chess.KNIGHT, chess.BISHOP,
                                                      chess.ROOK, chess.QUEEN)]
    pair = 1 if material[2] >= 2 else 0
    by_file = [sum(1 for s in own_pawns if chess.square_file(s) == f) for f in range(8)]
    doubled = sum(max(0, n - 1) for n in by_file)
    isolated = sum(n for f, n in enumerate(by_file)
                   if n and not any(0 <= g < 8 and by_file[g] for g in (f - 1, f + 1)))
    passed = advance = 0
    for square in own_pawns:
        file, rank = chess.square_file(square), chess.square_rank(square)
        ahead = range(rank + 1, 8) if color == chess.WHITE else range(0, rank)
        blocked = any(chess.square_file(t) in (file - 1, file, file + 1)
                      and chess.square_rank(t) in ahead for t in their_pawns)
        if not blocked:
            passed += 1
            advance += rank - 1 if color == chess.WHITE else 6 - rank
    mobility = [sum(len(board.attacks(s) & ~chess.SquareSet(us))
                    for s in board.pieces(t, color))
                for t in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)]
    open_files = half_open = 0
    for square in board.pieces(chess.ROOK, color):
        file = chess.square_file(square)
        if not by_file[file]:
            if any(chess.square_file(t) == file for t in their_pawns):
                half_open += 1
            else:
                open_files += 1
    king = board.king(color)
    shield = 0
    if king is not None:
        file, rank = chess.square_file(king), chess.square_rank(king)
        ranks = (rank + 1, rank + 2) if color == chess.WHITE else (rank - 1, rank - 2)
        shield = sum(1 for s in own_pawns
                     if abs(chess.square_file(s) - file) <= 1 and chess.square_rank(s) in ranks)
    return [float(x) for x in (*material, pair, doubled, isolated, passed, advance, *mobility,
                               open_files, half_open, shield)]


def reference_linear(board: chess.BaseBoard) -> npt.NDArray[np.float64]:
    """The linear terms (``LINEAR_FEATURES`` order), White's minus Black's."""
    white, black = _side(board, chess.WHITE), _side(board, chess.BLACK)
    return np.array([w - b for w, b in zip(white, black, strict=True)], dtype=np.float64)


def reference_noisy_moves(board: chess.Board) -> list[chess.Move]:
    """Every legal capture or promotion, in ``board.legal_moves`` order."""
    return [m for m in board.legal_moves if board.is_capture(m) or m.promotion is not None]
