"""The numba board's position layout and what its rules are computed with: precomputed
attack, ray and castling tables, Zobrist keys, and the bit and attack helpers (compiled; the
tables are built once at import and frozen into the compiled code).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, cast

import chess
import numpy as np
import numpy.typing as npt
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from chessmoe.search.native.jit import compiled, inlined

__all__ = [
    "ALL",
    "BETWEEN",
    "BISHOPS",
    "BLACK",
    "CASTLING",
    "CASTLING_KEEP",
    "DARK",
    "EP",
    "FULLMOVE",
    "HALFMOVE",
    "KEY",
    "KINGS",
    "KING_ATTACKS",
    "KNIGHTS",
    "KNIGHT_ATTACKS",
    "LEGAL_EP",
    "LIGHT",
    "LINE_THROUGH",
    "MAX_MOVES",
    "NO_SQUARE",
    "ONE",
    "PAWNS",
    "PAWN_ATTACKS",
    "POS_WORDS",
    "QUEENS",
    "RANK_4",
    "RANK_5",
    "ROOKS",
    "SHIFT_8",
    "SQUARE_BB",
    "TURN",
    "WHITE",
    "ZERO",
    "ZOBRIST_SEED",
    "Z_CASTLE",
    "Z_EP",
    "Z_PIECE",
    "Z_TURN",
    "Int",
    "Moves",
    "Pos",
    "attack_map",
    "attackers",
    "bishop_attacks",
    "lsb",
    "msb",
    "popcount",
    "rook_attacks",
]

Pos = npt.NDArray[np.uint64]
Moves = npt.NDArray[np.int32]  # move codes (below), room for MAX_MOVES
Int = int | np.int64  # a square or count inside compiled code (numba types both as int64)

# LLVM's cttz / ctlz; numba's stubs type intrinsics by their typing-time signature.
_ctz = cast(Callable[[np.uint64], np.uint64], trailing_zeros)
_clz = cast(Callable[[np.uint64], np.uint64], leading_zeros)


# --- layout ----------------------------------------------------------------------------------
#
# A position is a 1-D ``np.uint64`` array of POS_WORDS words:
# * words 0..7 -- bitboards ``white, black, pawns, knights, bishops, rooks, queens, kings``
#   (the order of chessmoe.encoding.RECORD_DTYPE's first eight fields; the word of a piece
#   type is python-chess's piece type + 1);
# * TURN (1 = White to move), CASTLING (bits 1 White king side, 2 White queen side, 4 Black
#   king side, 8 Black queen side: python-chess's *clean* rights), EP (the raw en-passant
#   square as python-chess stores ``board.ep_square``: set after every double pawn push,
#   64 = none), LEGAL_EP (the same square only when an en-passant capture is legal, else
#   64), HALFMOVE, FULLMOVE and KEY (the Zobrist key of ``board._transposition_key()``).
#
# A move is an ``int32``: ``from | to << 6 | promo << 12`` with ``promo`` python-chess's
# piece type of the promotion (0 none, 2 knight .. 5 queen); castling is the king's
# two-square step (``e1g1``), as python-chess writes it for standard chess.

WHITE: Final = 0
BLACK: Final = 1
PAWNS: Final = 2
KNIGHTS: Final = 3
BISHOPS: Final = 4
ROOKS: Final = 5
QUEENS: Final = 6
KINGS: Final = 7
TURN: Final = 8
CASTLING: Final = 9
EP: Final = 10
LEGAL_EP: Final = 11
HALFMOVE: Final = 12
FULLMOVE: Final = 13
KEY: Final = 14
POS_WORDS: Final = 15

NO_SQUARE: Final = 64
MAX_MOVES: Final = 256  # more than the 218 legal moves a standard position can have


# --- tables (built once at import; numba freezes them into the compiled code) -----------------

ONE: Final = np.uint64(1)
ZERO: Final = np.uint64(0)
ALL: Final = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
_TOP: Final = np.uint64(0x8000_0000_0000_0000)
_FILE_A: Final = np.uint64(0x0101_0101_0101_0101)
_FILE_H: Final = np.uint64(0x8080_8080_8080_8080)
RANK_4: Final = np.uint64(0xFF << 24)
RANK_5: Final = np.uint64(0xFF << 32)
DARK: Final = np.uint64(0xAA55_AA55_AA55_AA55)
LIGHT: Final = np.uint64(0x55AA_55AA_55AA_55AA)
_S7: Final = np.uint64(7)
SHIFT_8: Final = np.uint64(8)
_S9: Final = np.uint64(9)
_M1: Final = np.uint64(0x5555_5555_5555_5555)
_M2: Final = np.uint64(0x3333_3333_3333_3333)
_M4: Final = np.uint64(0x0F0F_0F0F_0F0F_0F0F)
_H01: Final = np.uint64(0x0101_0101_0101_0101)
_S56: Final = np.uint64(56)
_S1: Final = np.uint64(1)
_S2: Final = np.uint64(2)
_S4: Final = np.uint64(4)

_KNIGHT_STEPS: Final = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_KING_STEPS: Final = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
# The four line orientations, each walked towards higher square indices: rank, file,
# diagonal (a1-h8) and anti-diagonal (h1-a8), as (file step, rank step).
_LINES: Final = ((1, 0), (0, 1), (1, 1), (-1, 1))


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


def _step_table(steps: tuple[tuple[int, int], ...]) -> npt.NDArray[np.uint64]:
    table = np.zeros(64, dtype=np.uint64)
    for sq in range(64):
        bb = 0
        for df, dr in steps:
            f, r = sq % 8 + df, sq // 8 + dr
            if _on_board(f, r):
                bb |= 1 << (r * 8 + f)
        table[sq] = bb
    return table


def _walk(sq: int, df: int, dr: int) -> list[int]:
    """The squares from ``sq`` (excluded) to the board's edge in direction (df, dr)."""
    out = []
    f, r = sq % 8 + df, sq // 8 + dr
    while _on_board(f, r):
        out.append(r * 8 + f)
        f, r = f + df, r + dr
    return out


def _build_tables() -> dict[str, npt.NDArray[np.uint64]]:
    square_bb = np.array([1 << sq for sq in range(64)], dtype=np.uint64)
    pawn = np.zeros((2, 64), dtype=np.uint64)
    for sq in range(64):
        for color, dr in ((WHITE, 1), (BLACK, -1)):
            bb = 0
            for df in (-1, 1):
                f, r = sq % 8 + df, sq // 8 + dr
                if _on_board(f, r):
                    bb |= 1 << (r * 8 + f)
            pawn[color, sq] = bb
    lower = np.zeros((4, 64), dtype=np.uint64)
    upper = np.zeros((4, 64), dtype=np.uint64)
    for d, (df, dr) in enumerate(_LINES):
        for sq in range(64):
            upper[d, sq] = sum(1 << s for s in _walk(sq, df, dr))
            lower[d, sq] = sum(1 << s for s in _walk(sq, -df, -dr))
    between = np.zeros((64, 64), dtype=np.uint64)
    line = np.zeros((64, 64), dtype=np.uint64)
    for d, (df, dr) in enumerate(_LINES):
        for sq in range(64):
            full = int(lower[d, sq]) | int(upper[d, sq]) | 1 << sq
            for sign in (1, -1):
                inside = 0
                for target in _walk(sq, sign * df, sign * dr):
                    between[sq, target] = inside
                    line[sq, target] = full
                    inside |= 1 << target
    # Castling-rights masks: a move from or to a square keeps these rights (a rook leaving or
    # captured on its corner, the king leaving e1 / e8; python-chess's push).
    keep = np.full(64, 15, dtype=np.uint64)
    keep[chess.H1], keep[chess.A1], keep[chess.E1] = 15 ^ 1, 15 ^ 2, 15 ^ 3
    keep[chess.H8], keep[chess.A8], keep[chess.E8] = 15 ^ 4, 15 ^ 8, 15 ^ 12
    return {"square": square_bb, "knight": _step_table(_KNIGHT_STEPS),
            "king": _step_table(_KING_STEPS), "pawn": pawn, "lower": lower, "upper": upper,
            "linemask": lower | upper, "between": between, "line": line, "keep": keep}


_T = _build_tables()
SQUARE_BB: Final = _T["square"]
KNIGHT_ATTACKS: Final = _T["knight"]
KING_ATTACKS: Final = _T["king"]
PAWN_ATTACKS: Final = _T["pawn"]  # [color word, square]: the squares a pawn of that colour attacks
_LOWER: Final = _T["lower"]
_UPPER: Final = _T["upper"]
_LINEMASK: Final = _T["linemask"]
BETWEEN: Final = _T["between"]
LINE_THROUGH: Final = _T["line"]
CASTLING_KEEP: Final = _T["keep"]
del _T

# Zobrist keys from a fixed seed: [colour word][piece word][square], castling rights (16
# values), the en-passant square of a legal capture (index 64 = none = 0) and White to move.
ZOBRIST_SEED: Final = 20240611
_rng = np.random.default_rng(ZOBRIST_SEED)
_U64_MAX: Final = int(np.iinfo(np.uint64).max)
Z_PIECE: Final = _rng.integers(0, _U64_MAX, size=(2, 8, 64), dtype=np.uint64, endpoint=True)
Z_CASTLE: Final = _rng.integers(0, _U64_MAX, size=16, dtype=np.uint64, endpoint=True)
Z_EP: Final = np.concatenate([
    _rng.integers(0, _U64_MAX, size=64, dtype=np.uint64, endpoint=True),
    np.zeros(1, dtype=np.uint64)])
Z_TURN: Final = np.uint64(_rng.integers(0, _U64_MAX, dtype=np.uint64, endpoint=True))
del _rng


# --- bit helpers -------------------------------------------------------------------------------


@inlined
def lsb(b: np.uint64) -> np.int64:
    return np.int64(_ctz(b))


@inlined
def msb(b: np.uint64) -> np.int64:
    return np.int64(63) - np.int64(_clz(b))


@inlined
def popcount(b: np.uint64) -> np.int64:
    b = b - ((b >> _S1) & _M1)
    b = (b & _M2) + ((b >> _S2) & _M2)
    b = (b + (b >> _S4)) & _M4
    return np.int64((b * _H01) >> _S56)


@inlined
def _line_attacks(occ: np.uint64, d: Int, sq: Int) -> np.uint64:
    # Obstruction difference: from the nearest blocker below sq up to the nearest above.
    lower = _LOWER[d, sq] & occ
    upper = _UPPER[d, sq] & occ
    ms1b = _TOP >> _clz(lower | ONE)
    return np.uint64(_LINEMASK[d, sq] & (upper ^ (upper - ms1b)))


@inlined
def rook_attacks(sq: Int, occ: np.uint64) -> np.uint64:
    return _line_attacks(occ, 0, sq) | _line_attacks(occ, 1, sq)


@inlined
def bishop_attacks(sq: Int, occ: np.uint64) -> np.uint64:
    return _line_attacks(occ, 2, sq) | _line_attacks(occ, 3, sq)


@compiled
def attackers(pos: Pos, them: Int, sq: Int, occ: np.uint64, enemy: np.uint64) -> np.uint64:
    """Pieces in ``enemy`` (of colour word ``them``) attacking ``sq`` through ``occ``."""
    rq = pos[ROOKS] | pos[QUEENS]
    bq = pos[BISHOPS] | pos[QUEENS]
    att = (KNIGHT_ATTACKS[sq] & pos[KNIGHTS]) | (KING_ATTACKS[sq] & pos[KINGS]) \
        | (PAWN_ATTACKS[1 - them, sq] & pos[PAWNS]) \
        | (rook_attacks(sq, occ) & rq) | (bishop_attacks(sq, occ) & bq)
    return np.uint64(att & enemy)


@compiled
def attack_map(pos: Pos, them: Int, occ: np.uint64) -> np.uint64:
    """Every square colour word ``them`` attacks through ``occ``."""
    enemy = pos[them]
    pawns = pos[PAWNS] & enemy
    if them == WHITE:
        att = ((pawns << _S7) & ~_FILE_H) | ((pawns << _S9) & ~_FILE_A)
    else:
        att = ((pawns >> _S9) & ~_FILE_H) | ((pawns >> _S7) & ~_FILE_A)
    b = pos[KNIGHTS] & enemy
    while b:
        sq = lsb(b)
        b &= b - ONE
        att |= KNIGHT_ATTACKS[sq]
    b = (pos[BISHOPS] | pos[QUEENS]) & enemy
    while b:
        sq = lsb(b)
        b &= b - ONE
        att |= bishop_attacks(sq, occ)
    b = (pos[ROOKS] | pos[QUEENS]) & enemy
    while b:
        sq = lsb(b)
        b &= b - ONE
        att |= rook_attacks(sq, occ)
    b = pos[KINGS] & enemy
    if b:
        att |= KING_ATTACKS[lsb(b)]
    return np.uint64(att)
