"""A numba bitboard chess board that agrees exactly with python-chess (standard chess only).

:func:`gen_legal` writes the legal moves in exactly the order of python-chess's
``Board.generate_legal_moves()`` (a search that breaks prior ties by generation order plays
the same moves with either board); :func:`make_move` is copy-make with ``Board.push``'s
semantics; check, material, keys and perft, and conversion to and from python-chess. The
position's layout and tables: :mod:`chessmoe.search.native.bitboards`. Everything hot is
``numba.njit(cache=True)`` and allocates nothing.
"""

from __future__ import annotations

from typing import Final

import chess
import numpy as np

from chessmoe.search.native.bitboards import (
    ALL,
    BETWEEN,
    BISHOPS,
    BLACK,
    CASTLING,
    CASTLING_KEEP,
    DARK,
    EP,
    FULLMOVE,
    HALFMOVE,
    KEY,
    KING_ATTACKS,
    KINGS,
    KNIGHT_ATTACKS,
    KNIGHTS,
    LEGAL_EP,
    LIGHT,
    LINE_THROUGH,
    MAX_MOVES,
    NO_SQUARE,
    ONE,
    PAWN_ATTACKS,
    PAWNS,
    POS_WORDS,
    QUEENS,
    RANK_4,
    RANK_5,
    ROOKS,
    SHIFT_8,
    SQUARE_BB,
    TURN,
    WHITE,
    Z_CASTLE,
    Z_EP,
    Z_PIECE,
    Z_TURN,
    ZERO,
    Int,
    Moves,
    Pos,
    attack_map,
    attackers,
    bishop_attacks,
    lsb,
    msb,
    popcount,
    rook_attacks,
)
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

_njit = compiled
_inline = inlined
_helper = compiled  # a larger helper, called (inlining it everywhere doubles the compile time)


@_inline
def _emit(out: Moves, n: Int, frm: Int, targets: np.uint64) -> Int:
    """Append ``frm`` to each target, highest target square first (python-chess's order)."""
    while targets:
        to = msb(targets)
        targets ^= SQUARE_BB[to]
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
    occ = ((pos[WHITE] | pos[BLACK]) ^ SQUARE_BB[frm] ^ SQUARE_BB[captured]) | SQUARE_BB[ep]
    enemy = pos[them] ^ SQUARE_BB[captured]
    return bool(attackers(pos, them, ksq, occ, enemy) == ZERO)


@_helper
def _legal_ep(pos: Pos) -> Int:
    """The raw ep square when some en-passant capture there is legal, else 64."""
    ep = np.int64(pos[EP])
    if ep == NO_SQUARE:
        return NO_SQUARE
    if (pos[WHITE] | pos[BLACK]) & SQUARE_BB[ep]:
        return NO_SQUARE
    us = WHITE if pos[TURN] == ONE else BLACK
    them = 1 - us
    own = pos[us]
    if us == WHITE:
        capturers = pos[PAWNS] & own & PAWN_ATTACKS[BLACK, ep] & RANK_5
        captured = ep - 8
    else:
        capturers = pos[PAWNS] & own & PAWN_ATTACKS[WHITE, ep] & RANK_4
        captured = ep + 8
    if not capturers or not (pos[PAWNS] & pos[them] & SQUARE_BB[captured]):
        return NO_SQUARE
    kings = pos[KINGS] & own
    if not kings:
        return ep
    ksq = lsb(kings)
    while capturers:
        frm = lsb(capturers)
        capturers &= capturers - ONE
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
    us = WHITE if pos[TURN] == ONE else BLACK
    kings = pos[KINGS] & pos[us]
    if not kings:
        return ZERO
    them = 1 - us
    return attackers(pos, them, lsb(kings), pos[WHITE] | pos[BLACK], pos[them])


@_njit
def is_check(pos: Pos) -> bool:
    return bool(checkers(pos) != ZERO)


@_helper
def _has_insufficient(pos: Pos, color: Int) -> bool:
    own = pos[color]
    if own & (pos[PAWNS] | pos[ROOKS] | pos[QUEENS]):
        return False
    if own & pos[KNIGHTS]:
        return bool(popcount(own) <= 2 and not (pos[1 - color] & ~pos[KINGS] & ~pos[QUEENS]))
    if own & pos[BISHOPS]:
        bishops = pos[BISHOPS]
        same_color = not (bishops & DARK) or not (bishops & LIGHT)
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
    us = WHITE if pos[TURN] == ONE else BLACK
    them = 1 - us
    own = pos[us]
    opp = pos[them]
    occ = own | opp
    pawns = pos[PAWNS]
    kings = pos[KINGS] & own
    ksq = lsb(kings)
    king_bb = SQUARE_BB[ksq]
    rq = (pos[ROOKS] | pos[QUEENS]) & opp
    bq = (pos[BISHOPS] | pos[QUEENS]) & opp

    check = attackers(pos, them, ksq, occ, opp)
    # Pinned: our pieces standing alone between the king and an enemy slider.
    pinned = ZERO
    snipers = (rook_attacks(ksq, ZERO) & rq) | (bishop_attacks(ksq, ZERO) & bq)
    while snipers:
        s = lsb(snipers)
        snipers &= snipers - ONE
        b = BETWEEN[ksq, s] & occ
        if b and not (b & (b - ONE)):
            pinned |= b & own
    # Squares the king may not step to (attacked with the king itself lifted off the board).
    danger = attack_map(pos, them, occ ^ king_bb)

    n: Int = 0
    target = ALL
    pieces = own & ~pawns
    if check:
        # Evasions: king steps first, then (single check) captures and blocks.
        n = _emit(out, n, ksq, KING_ATTACKS[ksq] & ~own & ~danger)
        if check & (check - ONE):
            return int(n)
        checker = lsb(check)
        target = BETWEEN[ksq, checker] | check
        pieces &= ~king_bb
    movable = ~own & target

    # Piece moves (king included when not in check), highest from-square first.
    bishops = pos[BISHOPS]
    rooks = pos[ROOKS]
    queens = pos[QUEENS]
    knights = pos[KNIGHTS]
    while pieces:
        frm = msb(pieces)
        bit = SQUARE_BB[frm]
        pieces ^= bit
        if bit & knights:
            tg = KNIGHT_ATTACKS[frm] & movable
        elif bit & bishops:
            tg = bishop_attacks(frm, occ) & movable
        elif bit & rooks:
            tg = rook_attacks(frm, occ) & movable
        elif bit & queens:
            tg = (bishop_attacks(frm, occ) | rook_attacks(frm, occ)) & movable
        else:  # our king, not in check
            n = _emit(out, n, frm, KING_ATTACKS[frm] & ~own & ~danger)
            continue
        if bit & pinned:
            tg &= LINE_THROUGH[ksq, frm]
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
        frm = msb(b)
        bit = SQUARE_BB[frm]
        b ^= bit
        tg = PAWN_ATTACKS[us, frm] & capture_targets
        if bit & pinned:
            tg &= LINE_THROUGH[ksq, frm]
        while tg:
            to = msb(tg)
            tg ^= SQUARE_BB[to]
            n = _emit_pawn(out, n, frm, to)
    # Single then double pushes, highest target square first.
    empty = ~occ
    if us == WHITE:
        single = (own_pawns << SHIFT_8) & empty
        double = (single << SHIFT_8) & empty & RANK_4
        step = 8
    else:
        single = (own_pawns >> SHIFT_8) & empty
        double = (single >> SHIFT_8) & empty & RANK_5
        step = -8
    single &= target
    double &= target
    while single:
        to = msb(single)
        single ^= SQUARE_BB[to]
        frm = to - step
        if SQUARE_BB[frm] & pinned and not (LINE_THROUGH[ksq, frm] & SQUARE_BB[to]):
            continue
        n = _emit_pawn(out, n, frm, to)
    while double:
        to = msb(double)
        double ^= SQUARE_BB[to]
        frm = to - 2 * step
        if SQUARE_BB[frm] & pinned and not (LINE_THROUGH[ksq, frm] & SQUARE_BB[to]):
            continue
        out[n] = frm | to << 6
        n += 1
    # En passant last, highest capturer first.
    ep = np.int64(pos[EP])
    if ep != NO_SQUARE and not (occ & SQUARE_BB[ep]):
        captured = ep - step
        if not check or (SQUARE_BB[ep] & target) or SQUARE_BB[captured] == check:
            if us == WHITE:
                capturers = own_pawns & PAWN_ATTACKS[BLACK, ep] & RANK_5
            else:
                capturers = own_pawns & PAWN_ATTACKS[WHITE, ep] & RANK_4
            while capturers:
                frm = msb(capturers)
                capturers ^= SQUARE_BB[frm]
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
    us = WHITE if pos[TURN] == ONE else BLACK
    them = 1 - us
    fb = SQUARE_BB[frm]
    tb = SQUARE_BB[to]
    k = pos[KEY] ^ Z_EP[pos[LEGAL_EP]] ^ Z_CASTLE[pos[CASTLING]] ^ Z_TURN
    clock = pos[HALFMOVE] + ONE

    if pos[them] & tb:  # capture
        cw = _piece_word(pos, tb)
        out[them] ^= tb
        out[cw] ^= tb
        k ^= Z_PIECE[them, cw, to]
        clock = ZERO
    pw = _piece_word(pos, fb)
    out[us] ^= fb | tb
    out[pw] ^= fb
    k ^= Z_PIECE[us, pw, frm]
    nw = promo + 1 if promo else pw
    out[nw] ^= tb
    k ^= Z_PIECE[us, nw, to]

    new_ep = NO_SQUARE
    if pw == PAWNS:
        clock = ZERO
        diff = to - frm
        if diff == 16 or diff == -16:
            new_ep = (frm + to) >> 1
        elif to == np.int64(pos[EP]) and diff != 8 and diff != -8 and not (pos[them] & tb):
            captured = to - 8 if us == WHITE else to + 8
            cb = SQUARE_BB[captured]
            out[them] ^= cb
            out[PAWNS] ^= cb
            k ^= Z_PIECE[them, PAWNS, captured]
    elif pw == KINGS and (to - frm == 2 or frm - to == 2):
        # Castling: the rook jumps over the king.
        if to > frm:
            rfrom, rto = frm + 3, frm + 1
        else:
            rfrom, rto = frm - 4, frm - 1
        rb = SQUARE_BB[rfrom] | SQUARE_BB[rto]
        out[us] ^= rb
        out[ROOKS] ^= rb
        k ^= Z_PIECE[us, ROOKS, rfrom] ^ Z_PIECE[us, ROOKS, rto]

    rights = pos[CASTLING] & CASTLING_KEEP[frm] & CASTLING_KEEP[to]
    out[CASTLING] = rights
    out[HALFMOVE] = clock
    if us == BLACK:
        out[FULLMOVE] = pos[FULLMOVE] + ONE
        out[TURN] = ONE
    else:
        out[TURN] = ZERO
    out[EP] = np.uint64(new_ep)
    legal = _legal_ep(out) if new_ep != NO_SQUARE else NO_SQUARE
    out[LEGAL_EP] = np.uint64(legal)
    out[KEY] = k ^ Z_CASTLE[rights] ^ Z_EP[legal]


# --- keys and perft --------------------------------------------------------------------------


@_njit
def _full_key(pos: Pos) -> np.uint64:
    """The Zobrist key computed from scratch (pieces, turn, castling, legal ep square)."""
    k = ZERO
    for color in range(2):
        for word in range(PAWNS, KINGS + 1):
            b = pos[color] & pos[word]
            while b:
                sq = lsb(b)
                b &= b - ONE
                k ^= Z_PIECE[color, word, sq]
    if pos[TURN] == ONE:
        k ^= Z_TURN
    return np.uint64(k ^ Z_CASTLE[pos[CASTLING]] ^ Z_EP[pos[LEGAL_EP]])


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
