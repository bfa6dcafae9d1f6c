"""A numba bitboard chess board that agrees exactly with python-chess (standard chess only).

A position is a 1-D ``np.uint64`` array of :data:`POS_WORDS` words:

* words 0..7 -- bitboards ``white, black, pawns, knights, bishops, rooks, queens, kings``
  (the order of :data:`chessmoe.encoding.RECORD_DTYPE`'s first eight fields; the word of a
  piece type is ``python-chess piece type + 1``);
* :data:`TURN` (1 = White to move), :data:`CASTLING` (bits 1 White king side, 2 White queen
  side, 4 Black king side, 8 Black queen side: python-chess's *clean* rights),
  :data:`EP` (the raw en-passant square as python-chess stores ``board.ep_square``: set after
  every double pawn push, 64 = none), :data:`LEGAL_EP` (the same square only when an
  en-passant capture is legal, else 64), :data:`HALFMOVE`, :data:`FULLMOVE` and :data:`KEY`
  (the Zobrist key of python-chess's ``board._transposition_key()``).

A move is an ``int32``: ``from | to << 6 | promo << 12`` with ``promo`` python-chess's piece
type of the promotion (0 none, 2 knight .. 5 queen); castling is the king's two-square step
(``e1g1``), as python-chess writes it for standard chess.

:func:`gen_legal` writes the legal moves in exactly the order of python-chess's
``Board.generate_legal_moves()``: a search that breaks prior ties by generation order plays
the same moves with either board. :func:`make_move` is copy-make with the semantics of
``Board.push``. Everything hot is ``numba.njit(cache=True)`` and allocates nothing.
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
    "BISHOPS",
    "BLACK",
    "CASTLING",
    "EP",
    "FULLMOVE",
    "HALFMOVE",
    "KEY",
    "KINGS",
    "KNIGHTS",
    "LEGAL_EP",
    "MAX_MOVES",
    "NO_SQUARE",
    "PAWNS",
    "POS_WORDS",
    "QUEENS",
    "ROOKS",
    "TURN",
    "WHITE",
    "board_from_pos",
    "castling",
    "checkers",
    "decode_move",
    "encode_move",
    "ep_square",
    "fullmove",
    "gen_legal",
    "halfmove",
    "insufficient_material",
    "is_check",
    "key",
    "legal_ep_square",
    "make_move",
    "move_from",
    "move_promo",
    "move_to",
    "new_moves",
    "new_pos",
    "perft",
    "pos_from_board",
    "turn",
]

Pos = npt.NDArray[np.uint64]
Moves = npt.NDArray[np.int32]
Int = int | np.int64  # a square or count inside compiled code (numba types both as int64)

# LLVM's cttz / ctlz; numba's stubs type intrinsics by their typing-time signature.
_ctz = cast(Callable[[np.uint64], np.uint64], trailing_zeros)
_clz = cast(Callable[[np.uint64], np.uint64], leading_zeros)

# --- layout ----------------------------------------------------------------------------------

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

_njit = compiled
_inline = inlined
_helper = compiled  # a larger helper, called (inlining it everywhere doubles the compile time)


# --- tables (built once at import; numba freezes them into the compiled code) -----------------

_ONE: Final = np.uint64(1)
_ZERO: Final = np.uint64(0)
_ALL: Final = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
_TOP: Final = np.uint64(0x8000_0000_0000_0000)
_FILE_A: Final = np.uint64(0x0101_0101_0101_0101)
_FILE_H: Final = np.uint64(0x8080_8080_8080_8080)
_RANK_4: Final = np.uint64(0xFF << 24)
_RANK_5: Final = np.uint64(0xFF << 32)
_DARK: Final = np.uint64(0xAA55_AA55_AA55_AA55)
_LIGHT: Final = np.uint64(0x55AA_55AA_55AA_55AA)
_S7: Final = np.uint64(7)
_S8: Final = np.uint64(8)
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
_SQ: Final = _T["square"]
_KNIGHT: Final = _T["knight"]
_KING: Final = _T["king"]
_PAWN: Final = _T["pawn"]  # [color word, square]: the squares a pawn of that colour attacks
_LOWER: Final = _T["lower"]
_UPPER: Final = _T["upper"]
_LINEMASK: Final = _T["linemask"]
_BETWEEN: Final = _T["between"]
_LINE: Final = _T["line"]
_KEEP: Final = _T["keep"]
del _T

# Zobrist keys from a fixed seed: [colour word][piece word][square], castling rights (16
# values), the en-passant square of a legal capture (index 64 = none = 0) and White to move.
ZOBRIST_SEED: Final = 20240611
_rng = np.random.default_rng(ZOBRIST_SEED)
_U64_MAX: Final = int(np.iinfo(np.uint64).max)
_Z_PIECE: Final = _rng.integers(0, _U64_MAX, size=(2, 8, 64), dtype=np.uint64, endpoint=True)
_Z_CASTLE: Final = _rng.integers(0, _U64_MAX, size=16, dtype=np.uint64, endpoint=True)
_Z_EP: Final = np.concatenate([
    _rng.integers(0, _U64_MAX, size=64, dtype=np.uint64, endpoint=True),
    np.zeros(1, dtype=np.uint64)])
_Z_TURN: Final = np.uint64(_rng.integers(0, _U64_MAX, dtype=np.uint64, endpoint=True))
del _rng


# --- bit helpers -------------------------------------------------------------------------------


@_inline
def _lsb(b: np.uint64) -> np.int64:
    return np.int64(_ctz(b))


@_inline
def _msb(b: np.uint64) -> np.int64:
    return np.int64(63) - np.int64(_clz(b))


@_inline
def _popcount(b: np.uint64) -> np.int64:
    b = b - ((b >> _S1) & _M1)
    b = (b & _M2) + ((b >> _S2) & _M2)
    b = (b + (b >> _S4)) & _M4
    return np.int64((b * _H01) >> _S56)


@_inline
def _line_attacks(occ: np.uint64, d: Int, sq: Int) -> np.uint64:
    # Obstruction difference: from the nearest blocker below sq up to the nearest above.
    lower = _LOWER[d, sq] & occ
    upper = _UPPER[d, sq] & occ
    ms1b = _TOP >> _clz(lower | _ONE)
    return np.uint64(_LINEMASK[d, sq] & (upper ^ (upper - ms1b)))


@_inline
def _rook_attacks(sq: Int, occ: np.uint64) -> np.uint64:
    return _line_attacks(occ, 0, sq) | _line_attacks(occ, 1, sq)


@_inline
def _bishop_attacks(sq: Int, occ: np.uint64) -> np.uint64:
    return _line_attacks(occ, 2, sq) | _line_attacks(occ, 3, sq)


@_helper
def _attackers(pos: Pos, them: Int, sq: Int, occ: np.uint64, enemy: np.uint64) -> np.uint64:
    """Pieces in ``enemy`` (of colour word ``them``) attacking ``sq`` through ``occ``."""
    rq = pos[ROOKS] | pos[QUEENS]
    bq = pos[BISHOPS] | pos[QUEENS]
    att = (_KNIGHT[sq] & pos[KNIGHTS]) | (_KING[sq] & pos[KINGS]) \
        | (_PAWN[1 - them, sq] & pos[PAWNS]) \
        | (_rook_attacks(sq, occ) & rq) | (_bishop_attacks(sq, occ) & bq)
    return np.uint64(att & enemy)


@_helper
def _attack_map(pos: Pos, them: Int, occ: np.uint64) -> np.uint64:
    """Every square colour word ``them`` attacks through ``occ``."""
    enemy = pos[them]
    pawns = pos[PAWNS] & enemy
    if them == WHITE:
        att = ((pawns << _S7) & ~_FILE_H) | ((pawns << _S9) & ~_FILE_A)
    else:
        att = ((pawns >> _S9) & ~_FILE_H) | ((pawns >> _S7) & ~_FILE_A)
    b = pos[KNIGHTS] & enemy
    while b:
        sq = _lsb(b)
        b &= b - _ONE
        att |= _KNIGHT[sq]
    b = (pos[BISHOPS] | pos[QUEENS]) & enemy
    while b:
        sq = _lsb(b)
        b &= b - _ONE
        att |= _bishop_attacks(sq, occ)
    b = (pos[ROOKS] | pos[QUEENS]) & enemy
    while b:
        sq = _lsb(b)
        b &= b - _ONE
        att |= _rook_attacks(sq, occ)
    b = pos[KINGS] & enemy
    if b:
        att |= _KING[_lsb(b)]
    return np.uint64(att)


@_inline
def _emit(out: Moves, n: Int, frm: Int, targets: np.uint64) -> Int:
    """Append ``frm`` to each target, highest target square first (python-chess's order)."""
    while targets:
        to = _msb(targets)
        targets ^= _SQ[to]
        out[n] = frm | to << 6
        n += 1
    return n


@_helper
def _emit_pawn(out: Moves, n: Int, frm: Int, to: Int) -> Int:
    if to >= 56 or to < 8:
        base = frm | to << 6
        out[n] = base | 5 << 12
        out[n + 1] = base | 4 << 12
        out[n + 2] = base | 3 << 12
        out[n + 3] = base | 2 << 12
        return n + 4
    out[n] = frm | to << 6
    return n + 1


@_helper
def _ep_is_legal(pos: Pos, us: Int, ksq: Int, frm: Int, ep: Int, captured: Int) -> bool:
    """True when the en-passant capture ``frm`` x ``ep`` (taking the pawn on ``captured``)
    leaves our king unattacked."""
    them = 1 - us
    occ = ((pos[WHITE] | pos[BLACK]) ^ _SQ[frm] ^ _SQ[captured]) | _SQ[ep]
    enemy = pos[them] ^ _SQ[captured]
    return bool(_attackers(pos, them, ksq, occ, enemy) == _ZERO)


@_helper
def _legal_ep(pos: Pos) -> Int:
    """The raw ep square when some en-passant capture there is legal, else 64."""
    ep = np.int64(pos[EP])
    if ep == NO_SQUARE:
        return NO_SQUARE
    if (pos[WHITE] | pos[BLACK]) & _SQ[ep]:
        return NO_SQUARE
    us = WHITE if pos[TURN] == _ONE else BLACK
    them = 1 - us
    own = pos[us]
    if us == WHITE:
        capturers = pos[PAWNS] & own & _PAWN[BLACK, ep] & _RANK_5
        captured = ep - 8
    else:
        capturers = pos[PAWNS] & own & _PAWN[WHITE, ep] & _RANK_4
        captured = ep + 8
    if not capturers or not (pos[PAWNS] & pos[them] & _SQ[captured]):
        return NO_SQUARE
    kings = pos[KINGS] & own
    if not kings:
        return ep
    ksq = _lsb(kings)
    while capturers:
        frm = _lsb(capturers)
        capturers &= capturers - _ONE
        if _ep_is_legal(pos, us, ksq, frm, ep, captured):
            return ep
    return NO_SQUARE


# --- accessors -------------------------------------------------------------------------------


@_njit
def turn(pos: Pos) -> int:
    """1 when White is to move, else 0."""
    return int(pos[TURN])


@_njit
def castling(pos: Pos) -> int:
    """Clean castling rights: 1 White king side, 2 White queen side, 4 and 8 Black."""
    return int(pos[CASTLING])


@_njit
def ep_square(pos: Pos) -> int:
    """The raw en-passant square (python-chess's ``board.ep_square``), 64 when none."""
    return int(pos[EP])


@_njit
def legal_ep_square(pos: Pos) -> int:
    """The en-passant square when a capture there is legal, else 64."""
    return int(pos[LEGAL_EP])


@_njit
def halfmove(pos: Pos) -> int:
    return int(pos[HALFMOVE])


@_njit
def fullmove(pos: Pos) -> int:
    return int(pos[FULLMOVE])


@_njit
def key(pos: Pos) -> np.uint64:
    """The Zobrist key of python-chess's ``board._transposition_key()``."""
    return np.uint64(pos[KEY])


@_njit
def move_from(m: int) -> int:
    return m & 63


@_njit
def move_to(m: int) -> int:
    return (m >> 6) & 63


@_njit
def move_promo(m: int) -> int:
    """python-chess's piece type of the promotion: 0 none, 2 knight, 3 bishop, 4 rook, 5 queen."""
    return (m >> 12) & 7


# --- check and material ------------------------------------------------------------------------


@_njit
def checkers(pos: Pos) -> np.uint64:
    """The pieces giving check (python-chess's ``board.checkers_mask()``)."""
    us = WHITE if pos[TURN] == _ONE else BLACK
    kings = pos[KINGS] & pos[us]
    if not kings:
        return _ZERO
    them = 1 - us
    return _attackers(pos, them, _lsb(kings), pos[WHITE] | pos[BLACK], pos[them])


@_njit
def is_check(pos: Pos) -> bool:
    return bool(checkers(pos) != _ZERO)


@_helper
def _has_insufficient(pos: Pos, color: Int) -> bool:
    own = pos[color]
    if own & (pos[PAWNS] | pos[ROOKS] | pos[QUEENS]):
        return False
    if own & pos[KNIGHTS]:
        return bool(_popcount(own) <= 2 and not (pos[1 - color] & ~pos[KINGS] & ~pos[QUEENS]))
    if own & pos[BISHOPS]:
        bishops = pos[BISHOPS]
        same_color = not (bishops & _DARK) or not (bishops & _LIGHT)
        return bool(same_color and not pos[PAWNS] and not pos[KNIGHTS])
    return True


@_njit
def insufficient_material(pos: Pos) -> bool:
    """python-chess's ``board.is_insufficient_material()`` (the same rules)."""
    return _has_insufficient(pos, WHITE) and _has_insufficient(pos, BLACK)


# --- move generation -------------------------------------------------------------------------


@_njit
def gen_legal(pos: Pos, out: Moves) -> int:
    """Write the legal moves into ``out`` (``int32``, length >= 256) in python-chess's
    ``generate_legal_moves()`` order and return how many there are."""
    us = WHITE if pos[TURN] == _ONE else BLACK
    them = 1 - us
    own = pos[us]
    opp = pos[them]
    occ = own | opp
    pawns = pos[PAWNS]
    kings = pos[KINGS] & own
    ksq = _lsb(kings)
    king_bb = _SQ[ksq]
    rq = (pos[ROOKS] | pos[QUEENS]) & opp
    bq = (pos[BISHOPS] | pos[QUEENS]) & opp

    check = _attackers(pos, them, ksq, occ, opp)
    # Pinned: our pieces standing alone between the king and an enemy slider.
    pinned = _ZERO
    snipers = (_rook_attacks(ksq, _ZERO) & rq) | (_bishop_attacks(ksq, _ZERO) & bq)
    while snipers:
        s = _lsb(snipers)
        snipers &= snipers - _ONE
        b = _BETWEEN[ksq, s] & occ
        if b and not (b & (b - _ONE)):
            pinned |= b & own
    # Squares the king may not step to (attacked with the king itself lifted off the board).
    danger = _attack_map(pos, them, occ ^ king_bb)

    n: Int = 0
    target = _ALL
    pieces = own & ~pawns
    if check:
        # Evasions: king steps first, then (single check) captures and blocks.
        n = _emit(out, n, ksq, _KING[ksq] & ~own & ~danger)
        if check & (check - _ONE):
            return int(n)
        checker = _lsb(check)
        target = _BETWEEN[ksq, checker] | check
        pieces &= ~king_bb
    movable = ~own & target

    # Piece moves (king included when not in check), highest from-square first.
    bishops = pos[BISHOPS]
    rooks = pos[ROOKS]
    queens = pos[QUEENS]
    knights = pos[KNIGHTS]
    while pieces:
        frm = _msb(pieces)
        bit = _SQ[frm]
        pieces ^= bit
        if bit & knights:
            tg = _KNIGHT[frm] & movable
        elif bit & bishops:
            tg = _bishop_attacks(frm, occ) & movable
        elif bit & rooks:
            tg = _rook_attacks(frm, occ) & movable
        elif bit & queens:
            tg = (_bishop_attacks(frm, occ) | _rook_attacks(frm, occ)) & movable
        else:  # our king, not in check
            n = _emit(out, n, frm, _KING[frm] & ~own & ~danger)
            continue
        if bit & pinned:
            tg &= _LINE[ksq, frm]
        n = _emit(out, n, frm, tg)

    # Castling (never out of check): king side, then queen side.
    if not check:
        rights = pos[CASTLING]
        if us == WHITE:
            if rights & np.uint64(1) and not (occ & np.uint64(0x60)) \
                    and not (danger & np.uint64(0x60)):
                out[n] = 4 | 6 << 6
                n += 1
            if rights & np.uint64(2) and not (occ & np.uint64(0x0E)) \
                    and not (danger & np.uint64(0x0C)):
                out[n] = 4 | 2 << 6
                n += 1
        else:
            if rights & np.uint64(4) and not (occ & np.uint64(0x60 << 56)) \
                    and not (danger & np.uint64(0x60 << 56)):
                out[n] = 60 | 62 << 6
                n += 1
            if rights & np.uint64(8) and not (occ & np.uint64(0x0E << 56)) \
                    and not (danger & np.uint64(0x0C << 56)):
                out[n] = 60 | 58 << 6
                n += 1

    own_pawns = pawns & own
    if not own_pawns:
        return int(n)
    # Pawn captures, highest from-square first, highest target first, promotions Q R B N.
    b = own_pawns
    capture_targets = opp & target
    while b:
        frm = _msb(b)
        bit = _SQ[frm]
        b ^= bit
        tg = _PAWN[us, frm] & capture_targets
        if bit & pinned:
            tg &= _LINE[ksq, frm]
        while tg:
            to = _msb(tg)
            tg ^= _SQ[to]
            n = _emit_pawn(out, n, frm, to)
    # Single then double pushes, highest target square first.
    empty = ~occ
    if us == WHITE:
        single = (own_pawns << _S8) & empty
        double = (single << _S8) & empty & _RANK_4
        step = 8
    else:
        single = (own_pawns >> _S8) & empty
        double = (single >> _S8) & empty & _RANK_5
        step = -8
    single &= target
    double &= target
    while single:
        to = _msb(single)
        single ^= _SQ[to]
        frm = to - step
        if _SQ[frm] & pinned and not (_LINE[ksq, frm] & _SQ[to]):
            continue
        n = _emit_pawn(out, n, frm, to)
    while double:
        to = _msb(double)
        double ^= _SQ[to]
        frm = to - 2 * step
        if _SQ[frm] & pinned and not (_LINE[ksq, frm] & _SQ[to]):
            continue
        out[n] = frm | to << 6
        n += 1
    # En passant last, highest capturer first.
    ep = np.int64(pos[EP])
    if ep != NO_SQUARE and not (occ & _SQ[ep]):
        captured = ep - step
        if not check or (_SQ[ep] & target) or _SQ[captured] == check:
            if us == WHITE:
                capturers = own_pawns & _PAWN[BLACK, ep] & _RANK_5
            else:
                capturers = own_pawns & _PAWN[WHITE, ep] & _RANK_4
            while capturers:
                frm = _msb(capturers)
                capturers ^= _SQ[frm]
                if _ep_is_legal(pos, us, ksq, frm, ep, captured):
                    out[n] = frm | ep << 6
                    n += 1
    return int(n)


# --- make move -------------------------------------------------------------------------------


@_helper
def _piece_word(pos: Pos, bit: np.uint64) -> int:
    if bit & pos[PAWNS]:
        return PAWNS
    if bit & pos[KNIGHTS]:
        return KNIGHTS
    if bit & pos[BISHOPS]:
        return BISHOPS
    if bit & pos[ROOKS]:
        return ROOKS
    if bit & pos[QUEENS]:
        return QUEENS
    return KINGS


@_njit
def make_move(pos: Pos, move: int, out: Pos) -> None:
    """Copy ``pos`` into ``out`` and play the legal ``move`` there (python-chess's ``push``).

    ``out`` must be another buffer than ``pos`` (``pos`` is read while ``out`` is written).
    """
    for i in range(POS_WORDS):
        out[i] = pos[i]
    frm = move & 63
    to = (move >> 6) & 63
    promo = (move >> 12) & 7
    us = WHITE if pos[TURN] == _ONE else BLACK
    them = 1 - us
    fb = _SQ[frm]
    tb = _SQ[to]
    k = pos[KEY] ^ _Z_EP[pos[LEGAL_EP]] ^ _Z_CASTLE[pos[CASTLING]] ^ _Z_TURN
    clock = pos[HALFMOVE] + _ONE

    if pos[them] & tb:  # capture
        cw = _piece_word(pos, tb)
        out[them] ^= tb
        out[cw] ^= tb
        k ^= _Z_PIECE[them, cw, to]
        clock = _ZERO
    pw = _piece_word(pos, fb)
    out[us] ^= fb | tb
    out[pw] ^= fb
    k ^= _Z_PIECE[us, pw, frm]
    nw = promo + 1 if promo else pw
    out[nw] ^= tb
    k ^= _Z_PIECE[us, nw, to]

    new_ep = NO_SQUARE
    if pw == PAWNS:
        clock = _ZERO
        diff = to - frm
        if diff == 16 or diff == -16:
            new_ep = (frm + to) >> 1
        elif to == np.int64(pos[EP]) and diff != 8 and diff != -8 and not (pos[them] & tb):
            captured = to - 8 if us == WHITE else to + 8
            cb = _SQ[captured]
            out[them] ^= cb
            out[PAWNS] ^= cb
            k ^= _Z_PIECE[them, PAWNS, captured]
    elif pw == KINGS and (to - frm == 2 or frm - to == 2):
        # Castling: the rook jumps over the king.
        if to > frm:
            rfrom, rto = frm + 3, frm + 1
        else:
            rfrom, rto = frm - 4, frm - 1
        rb = _SQ[rfrom] | _SQ[rto]
        out[us] ^= rb
        out[ROOKS] ^= rb
        k ^= _Z_PIECE[us, ROOKS, rfrom] ^ _Z_PIECE[us, ROOKS, rto]

    rights = pos[CASTLING] & _KEEP[frm] & _KEEP[to]
    out[CASTLING] = rights
    out[HALFMOVE] = clock
    if us == BLACK:
        out[FULLMOVE] = pos[FULLMOVE] + _ONE
        out[TURN] = _ONE
    else:
        out[TURN] = _ZERO
    out[EP] = np.uint64(new_ep)
    legal = _legal_ep(out) if new_ep != NO_SQUARE else NO_SQUARE
    out[LEGAL_EP] = np.uint64(legal)
    out[KEY] = k ^ _Z_CASTLE[rights] ^ _Z_EP[legal]


# --- keys and perft --------------------------------------------------------------------------


@_njit
def _full_key(pos: Pos) -> np.uint64:
    """The Zobrist key computed from scratch (pieces, turn, castling, legal ep square)."""
    k = _ZERO
    for color in range(2):
        for word in range(PAWNS, KINGS + 1):
            b = pos[color] & pos[word]
            while b:
                sq = _lsb(b)
                b &= b - _ONE
                k ^= _Z_PIECE[color, word, sq]
    if pos[TURN] == _ONE:
        k ^= _Z_TURN
    return np.uint64(k ^ _Z_CASTLE[pos[CASTLING]] ^ _Z_EP[pos[LEGAL_EP]])


@_njit
def perft(pos: Pos, depth: int) -> int:
    """The number of leaf positions ``depth`` plies below ``pos`` (iterative: numba's cache
    cannot hold recursive functions safely)."""
    if depth <= 0:
        return 1
    moves = np.empty((depth, MAX_MOVES), dtype=np.int32)
    if depth == 1:
        return gen_legal(pos, moves[0])
    stack = np.empty((depth, POS_WORDS), dtype=np.uint64)
    count = np.zeros(depth, dtype=np.int64)
    index = np.zeros(depth, dtype=np.int64)
    stack[0] = pos
    count[0] = gen_legal(stack[0], moves[0])
    total = 0
    ply = 0
    while ply >= 0:
        if index[ply] == count[ply]:
            ply -= 1
            continue
        make_move(stack[ply], moves[ply, index[ply]], stack[ply + 1])
        index[ply] += 1
        if ply + 2 == depth:  # the child's moves are the leaves: count them
            total += gen_legal(stack[ply + 1], moves[ply + 1])
        else:
            ply += 1
            count[ply] = gen_legal(stack[ply], moves[ply])
            index[ply] = 0
    return total


# --- Python side -------------------------------------------------------------------------------


def new_pos() -> Pos:
    """An uninitialised position buffer."""
    return np.empty(POS_WORDS, dtype=np.uint64)


def new_moves() -> Moves:
    """A move buffer large enough for any position."""
    return np.empty(MAX_MOVES, dtype=np.int32)


_CORNERS: Final = ((chess.H1, 1), (chess.A1, 2), (chess.H8, 4), (chess.A8, 8))


def pos_from_board(board: chess.Board) -> Pos:
    """The position of a standard ``chess.Board`` (its move stack is not kept).

    Refuses (``ValueError``) a Chess960 board, a variant board and a board python-chess
    itself calls invalid (``board.status() != chess.STATUS_VALID``).
    """
    if type(board) is not chess.Board:
        raise ValueError(f"not a standard chess board ({type(board).__name__}): "
                         f"{board.fen(en_passant='fen')}")
    if board.chess960:
        raise ValueError(f"Chess960 boards are not supported: {board.fen(en_passant='fen')}")
    status = board.status()
    if status != chess.STATUS_VALID:  # the raw ep square in the FEN: it may be what is wrong
        raise ValueError(f"invalid position (python-chess status {status!r}): "
                         f"{board.fen(en_passant='fen')}")
    pos = np.zeros(POS_WORDS, dtype=np.uint64)
    pos[WHITE] = board.occupied_co[chess.WHITE]
    pos[BLACK] = board.occupied_co[chess.BLACK]
    for piece_type, bb in ((chess.PAWN, board.pawns), (chess.KNIGHT, board.knights),
                           (chess.BISHOP, board.bishops), (chess.ROOK, board.rooks),
                           (chess.QUEEN, board.queens), (chess.KING, board.kings)):
        pos[piece_type + 1] = bb
    pos[TURN] = int(board.turn)
    clean = board.clean_castling_rights()
    pos[CASTLING] = sum(bit for square, bit in _CORNERS if clean & chess.BB_SQUARES[square])
    pos[EP] = NO_SQUARE if board.ep_square is None else board.ep_square
    pos[HALFMOVE] = board.halfmove_clock
    pos[FULLMOVE] = board.fullmove_number
    pos[LEGAL_EP] = _legal_ep(pos)
    pos[KEY] = _full_key(pos)
    return pos


def board_from_pos(pos: Pos) -> chess.Board:
    """A ``chess.Board`` of the position (no move stack; its raw ep square kept)."""
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            bit = np.uint64(1 << (rank * 8 + file))
            symbol = ""
            for word, letter in ((PAWNS, "p"), (KNIGHTS, "n"), (BISHOPS, "b"), (ROOKS, "r"),
                                 (QUEENS, "q"), (KINGS, "k")):
                if pos[word] & bit:
                    symbol = letter.upper() if pos[WHITE] & bit else letter
            if symbol:
                row += (str(empty) if empty else "") + symbol
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    rights = int(pos[CASTLING])
    castle = "".join(c for c, bit in (("K", 1), ("Q", 2), ("k", 4), ("q", 8)) if rights & bit)
    ep = int(pos[EP])
    fen = " ".join(["/".join(rows), "w" if int(pos[TURN]) else "b", castle or "-",
                    chess.SQUARE_NAMES[ep] if ep != NO_SQUARE else "-",
                    str(int(pos[HALFMOVE])), str(int(pos[FULLMOVE]))])
    return chess.Board(fen)


def encode_move(move: chess.Move) -> int:
    """``from | to << 6 | promo << 12`` of a python-chess move (standard castling e1g1)."""
    return move.from_square | move.to_square << 6 | (move.promotion or 0) << 12


def decode_move(m: int) -> chess.Move:
    promo = (m >> 12) & 7
    return chess.Move(m & 63, (m >> 6) & 63, promo or None)
