"""The tapered linear evaluation with 2-tuple networks of ``related-comparison-training-ntuple.md``
(Tseng, Chen, Wu): features, weights and the evaluator that plays with them.

The evaluation is ``alpha(s) w_o . phi(s) + (1 - alpha(s)) w_e . phi(s)`` (document Eq. 2):
``phi`` White's linear terms and 2-tuple table entries (:func:`extract`), ``alpha`` the
tapered phase (:func:`chessmoe.phases.tapered_alpha`). :class:`NtupleEvaluator` plays with the
integer weights; :mod:`chessmoe.nets.related.ntuple_comparison` learns them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

import chess
import numpy as np
import numpy.typing as npt

from chessmoe._io.errors import KitError, error_cause
from chessmoe._io.fsutil import atomic_path, atomic_write_json
from chessmoe.nets.related import pesto, read_config
from chessmoe.phases import tapered_alpha

__all__ = [
    "CP_PER_UNIT",
    "INITIAL_MATERIAL",
    "LINEAR_FEATURES",
    "N_LINEAR",
    "N_TUPLES",
    "STARTS",
    "TUPLE_SIZE",
    "WEIGHT_KEYS",
    "Features",
    "LeafLike",
    "LeafSearch",
    "NtupleEvaluator",
    "NtupleWeights",
    "extract",
    "load_weights",
    "save_weights",
    "self_pair_index",
    "start_weights",
    "tuple_indices",
]

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

LINEAR_FEATURES: Final = (
    "pawn", "knight", "bishop", "rook", "queen",
    "bishop_pair", "doubled_pawns", "isolated_pawns", "passed_pawns", "passed_pawn_advance",
    "knight_mobility", "bishop_mobility", "rook_mobility", "queen_mobility",
    "rook_open_file", "rook_half_open_file", "king_pawn_shield",
)
N_LINEAR: Final = len(LINEAR_FEATURES)
INITIAL_MATERIAL: Final = {"queen": 2600.0, "rook": 1300.0, "bishop": 850.0, "knight": 800.0,
                           "pawn": 200.0}  # document Table I
NPM_CONSTANT: Final = 16488.0  # document 3.3: Stockfish's non-pawn material of both sides
CP_PER_UNIT: Final = 0.5  # internal units -> centipawns (a pawn of 200 is 100 cp)
N_TUPLES: Final = 6 * 12  # own piece type x (own/opponent x piece type)
TUPLE_SIZE: Final = N_TUPLES * 32 * 64  # 147,456 entries per phase


# --- features ------------------------------------------------------------------------------


_BASE: Final = np.arange(6)[:, None] * (12 * 32 * 64) + (
    ((np.arange(64) >> 3) * 4 + np.minimum(np.arange(64) & 7, 7 - (np.arange(64) & 7))) * 64
)[None, :]  # [a, s1] -> table row offset of X's piece type a on (seen) square s1
_SECOND: Final = np.where(((np.arange(64) & 7) >= 4)[:, None], np.arange(64)[None, :] ^ 7,
                          np.arange(64)[None, :])  # [s1, s2] -> column (mirrored with s1)


def _cell_tables() -> tuple[I64, I64, I64, F64]:
    """Look-up tables over a piece's cell ``c = 64 * p + square`` (``p`` = colour x 6 + type,
    White first, square a1 = 0) for :func:`tuple_indices`:

    * ``first[c]``: the table row offset of the piece as the pair's first piece X;
    * ``view[c]``: ``64 * colour + seen square``, the first piece's point of view;
    * ``pair[view, c2]``: the kind and second-square offset of piece ``c2`` seen from
      ``view`` (the second square mirrored with the first one);
    * ``sign[c]``: +1 for White's pieces, -1 for Black's."""
    cells = np.arange(12 * 64)
    p, square = cells // 64, cells % 64
    black = p >= 6
    piece_type = p % 6
    seen = square ^ np.where(black, 56, 0)
    first = _BASE[piece_type, seen]
    view = black * 64 + seen
    view_black = (np.arange(128) >= 64)[:, None]  # [view, c2]
    view_seen = (np.arange(128) % 64)[:, None]
    kind = (black[None, :] != view_black) * 6 + piece_type[None, :]
    second_seen = square[None, :] ^ np.where(view_black, 56, 0)
    pair = kind * (32 * 64) + _SECOND[view_seen, second_seen]
    sign = np.where(black, -1.0, 1.0)
    return (first.astype(np.int64), view.astype(np.int64), pair.astype(np.int64), sign)


_FIRST, _VIEW, _PAIR, _SIGN = _cell_tables()
_BYTE_BITS: Final = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1,
                                  bitorder="little").astype(bool)


def _cells(board: chess.BaseBoard) -> I64:
    """The cells ``64 * (colour x 6 + type) + square`` of every piece, White's first, then
    by piece type and square (the order ``scan_forward`` gives per bitboard): the twelve
    bitboards as little-endian bytes (byte k holds squares 8k .. 8k + 7), unpacked."""
    black, white = board.occupied_co  # indexed by colour: BLACK = 0, WHITE = 1
    masks = (board.pawns, board.knights, board.bishops, board.rooks, board.queens,
             board.kings)
    raw = b"".join([(m & white).to_bytes(8, "little") for m in masks]
                   + [(m & black).to_bytes(8, "little") for m in masks])
    return np.flatnonzero(_BYTE_BITS[np.frombuffer(raw, dtype=np.uint8)])


def tuple_indices(board: chess.BaseBoard) -> tuple[I64, F64]:
    """The 2-tuple entries a position uses: ``(index (n*n,), sign (n*n,))`` for its n pieces:
    every ordered pair (X's piece i, piece j) seen from X = i's colour (Black's board
    flipped vertically), +1 for White's pieces, -1 for Black's, so a colour-flipped position
    evaluates to minus the original. One table per pair (X's piece type, own/opponent x type
    of the other): 6 x 12 = 72 tables (document 3.4). Left-right symmetry shares entries:
    with the first piece on files e-h both squares are mirrored, so the first square takes 32
    values and the second 64. The pair of a piece with itself lands in the column of its own
    square, which no two-piece pair uses: a left-right-symmetric piece-square table
    (Stockfish's ``psq`` term) for free.

    Pieces are taken White's first, then by type (pawn .. king) and square; the entries of
    one position are computed from the precomputed tables of :func:`_cell_tables`."""
    cells = _cells(board)
    n = len(cells)
    if not n:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    index = _FIRST[cells][:, None] + _PAIR[_VIEW[cells][:, None], cells[None, :]]
    return index.ravel(), np.repeat(_SIGN[cells], n)


def _forward_masks() -> tuple[list[list[int]], list[list[int]]]:
    """Per colour and square: the passed-pawn span (own file and both neighbours, every rank
    ahead) and the king's pawn shield (the king's file and neighbours, two ranks ahead)."""
    passed: list[list[int]] = [[0] * 64, [0] * 64]
    shield: list[list[int]] = [[0] * 64, [0] * 64]
    for color in (chess.WHITE, chess.BLACK):
        for square in range(64):
            file, rank = chess.square_file(square), chess.square_rank(square)
            ahead = range(rank + 1, 8) if color else range(rank - 1, -1, -1)
            near = [r for r in ((rank + 1, rank + 2) if color else (rank - 1, rank - 2))
                    if 0 <= r < 8]
            for f in (file - 1, file, file + 1):
                if 0 <= f < 8:
                    for r in ahead:
                        passed[color][square] |= chess.BB_SQUARES[chess.square(f, r)]
                    for r in near:
                        shield[color][square] |= chess.BB_SQUARES[chess.square(f, r)]
    return passed, shield


_PASSED, _SHIELD = _forward_masks()
_FILE_A: Final = chess.BB_FILE_A


def _files_of(bitboard: int) -> int:
    """The files (bit f for file f) with at least one square of ``bitboard``."""
    bitboard |= bitboard >> 32
    bitboard |= bitboard >> 16
    bitboard |= bitboard >> 8
    return bitboard & 0xFF


def _side_terms(board: chess.BaseBoard, color: chess.Color) -> list[float]:
    """The linear terms of one side (``LINEAR_FEATURES`` order): the pawn-structure counts
    by file bit tricks (a pawn on a file with others counts as doubled beyond the first; a
    pawn is isolated when neither neighbouring file holds one of its pawns)."""
    us = board.occupied_co[color]
    pawns = board.pawns & us
    their_pawns = board.pawns & board.occupied_co[not color]
    bishops = board.bishops & us
    out = [float(pawns.bit_count()), float((board.knights & us).bit_count()),
           float(bishops.bit_count()), float((board.rooks & us).bit_count()),
           float((board.queens & us).bit_count())]
    out.append(1.0 if out[2] >= 2 else 0.0)
    files = _files_of(pawns)
    doubled = pawns.bit_count() - files.bit_count()
    lonely = files & ~((files << 1) | (files >> 1))
    isolated = (pawns & (lonely * _FILE_A)).bit_count()
    passed = advance = 0
    spans = _PASSED[color]
    for square in chess.scan_forward(pawns):
        if not their_pawns & spans[square]:
            passed += 1
            rank = square >> 3
            advance += (rank - 1) if color else (6 - rank)
    out += [float(doubled), float(isolated), float(passed), float(advance)]
    free = ~us
    attacks = board.attacks_mask
    for pieces in (board.knights, bishops, board.rooks, board.queens):
        total = 0
        for square in chess.scan_forward(pieces & us):
            total += (attacks(square) & free).bit_count()
        out.append(float(total))
    open_files = half_open = 0
    their_files = _files_of(their_pawns)
    for square in chess.scan_forward(board.rooks & us):
        file_bit = 1 << (square & 7)
        if not files & file_bit:
            if their_files & file_bit:
                half_open += 1
            else:
                open_files += 1
    out += [float(open_files), float(half_open)]
    king = board.king(color)
    out.append(float((pawns & _SHIELD[color][king]).bit_count()) if king is not None else 0.0)
    return out


@dataclass(frozen=True)
class Features:
    """phi(s) of one position, White's point of view: ``linear`` (N_LINEAR,) dense terms,
    ``tuple_index`` (K,) entries of the 2-tuple tables with ``tuple_sign`` (K,) +-1, and the
    tapered phase ``alpha`` (1 = opening)."""

    linear: F64
    tuple_index: I64
    tuple_sign: F64
    alpha: float


def extract(board: chess.BaseBoard, *, tuples: bool = True) -> Features:
    """The features of ``board`` (``tuples=False``: no 2-tuple entries), White's terms minus
    Black's: material (P, N, B, R, Q) and the document's "basic" Stockfish terms of
    :data:`LINEAR_FEATURES` (bishop pair, doubled / isolated / passed pawns and the passed
    pawns' advance, mobility of N, B, R, Q as attacked squares not held by own pieces, rooks on
    open / half-open files, the king's pawn shield), and the 2-tuple entries
    (:func:`tuple_indices`)."""
    linear = np.array([w - b for w, b in zip(_side_terms(board, chess.WHITE),
                                             _side_terms(board, chess.BLACK), strict=True)])
    if tuples:
        index, sign = tuple_indices(board)
    else:
        index, sign = np.zeros(0, dtype=np.int64), np.zeros(0)
    return Features(linear, index, sign, tapered_alpha(board))


# --- weights -------------------------------------------------------------------------------


@dataclass(frozen=True)
class NtupleWeights:
    """Opening and endgame weights: ``*_linear`` (N_LINEAR,), ``*_tuple`` (TUPLE_SIZE,)."""

    open_linear: F64
    end_linear: F64
    open_tuple: F64
    end_tuple: F64

    @staticmethod
    def initial() -> NtupleWeights:
        """The document's start: Table I material in both phases, every other weight 0."""
        linear = np.zeros(N_LINEAR)
        for name, value in INITIAL_MATERIAL.items():
            linear[LINEAR_FEATURES.index(name)] = value
        return NtupleWeights(linear.copy(), linear.copy(), np.zeros(TUPLE_SIZE),
                             np.zeros(TUPLE_SIZE))

    def copy(self) -> NtupleWeights:
        return NtupleWeights(self.open_linear.copy(), self.end_linear.copy(),
                             self.open_tuple.copy(), self.end_tuple.copy())

    def white_eval(self, f: Features) -> float:
        """alpha * w_o . phi + (1 - alpha) * w_e . phi (internal units, White's view)."""
        opening = float(self.open_linear @ f.linear)
        endgame = float(self.end_linear @ f.linear)
        if len(f.tuple_index):
            opening += float(f.tuple_sign @ self.open_tuple[f.tuple_index])
            endgame += float(f.tuple_sign @ self.end_tuple[f.tuple_index])
        return f.alpha * opening + (1.0 - f.alpha) * endgame

    def gamma(self) -> float:
        """The document's material constraint 16488 / (2 Q_o + 4 R_o + 4 B_o + 4 N_o)."""
        w = {name: self.open_linear[LINEAR_FEATURES.index(name)]
             for name in ("queen", "rook", "bishop", "knight")}
        total = 2 * w["queen"] + 4 * (w["rook"] + w["bishop"] + w["knight"])
        if not total > 0:
            raise KitError("n-tuple weights: non-positive opening material, no scale")
        return NPM_CONSTANT / float(total)

    def for_play(self) -> NtupleWeights:
        """round(gamma * w) for every weight (the document's integer weights in search)."""
        g = self.gamma()
        return NtupleWeights(*(np.round(g * a) for a in (
            self.open_linear, self.end_linear, self.open_tuple, self.end_tuple)))


def self_pair_index(piece_type: int, seen_square: int) -> int:
    """The 2-tuple entry of a piece paired with itself: ``piece_type`` 0 (pawn) .. 5 (king)
    on ``seen_square`` (a1 = 0, seen from its own side: Black's square mirrored vertically).
    Squares mirrored left-right share the entry (a piece-square table of 32 values)."""
    return int(_BASE[piece_type, seen_square] + piece_type * (32 * 64)
               + _SECOND[seen_square, seen_square])


def _pesto_weights() -> NtupleWeights:
    """PeSTO's values and tables as n-tuple weights (internal units): piece values in the
    linear material weights, each table averaged over left-right mirrored squares in the
    self-pair entries. Opening = PeSTO's middlegame, endgame = its endgame; the n-tuple
    blend uses ``alpha`` (Stockfish's non-pawn material), not PeSTO's 24-step phase."""
    open_linear, end_linear = np.zeros(N_LINEAR), np.zeros(N_LINEAR)
    for k, piece_type in enumerate((chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK,
                                    chess.QUEEN)):
        assert LINEAR_FEATURES[k] == chess.piece_name(piece_type)
        open_linear[k] = pesto.MG_VALUE[piece_type] / CP_PER_UNIT
        end_linear[k] = pesto.EG_VALUE[piece_type] / CP_PER_UNIT
    open_tuple, end_tuple = np.zeros(TUPLE_SIZE), np.zeros(TUPLE_SIZE)
    for piece_type in chess.PIECE_TYPES:
        for square in range(64):
            index = self_pair_index(piece_type - 1, square)
            for target, tables in ((open_tuple, pesto.MG_TABLES), (end_tuple, pesto.EG_TABLES)):
                table = tables[piece_type]
                mean = (pesto.table_value(table, chess.WHITE, square)
                        + pesto.table_value(table, chess.WHITE, square ^ 7)) / 2
                target[index] = mean / CP_PER_UNIT
    return NtupleWeights(open_linear, end_linear, open_tuple, end_tuple)


STARTS: Final = ("material", "pesto")


def start_weights(start: str) -> NtupleWeights:
    """The starting weights named ``start``: ``"material"`` (the document's Table I material,
    Q 2600, R 1300, B 850, N 800, P 200 in both phases, all else 0: weaker than the
    document's start, Stockfish's tuned linear evaluation, its ORI2) or ``"pesto"`` (the
    PeSTO piece values and tables, :func:`_pesto_weights`: a tuned linear start)."""
    if start == "material":
        return NtupleWeights.initial()
    if start == "pesto":
        return _pesto_weights()
    raise KitError(f"unknown n-tuple start {start!r}: one of {', '.join(STARTS)}")


class NtupleEvaluator:
    """``board -> centipawns`` for the side to move, with the integer play weights
    (:meth:`NtupleWeights.for_play`: scaled by the document's material constraint and
    rounded, 3.3) converted by :data:`CP_PER_UNIT`."""

    def __init__(self, weights: NtupleWeights, *, tuples: bool = True,
                 constrained: bool = True) -> None:
        self.weights = weights.for_play() if constrained else weights
        self.tuples = tuples
        self.calls = 0

    def __call__(self, board: chess.Board) -> float:
        self.calls += 1
        value = self.weights.white_eval(extract(board, tuples=self.tuples)) * CP_PER_UNIT
        return value if board.turn == chess.WHITE else -value


WEIGHT_KEYS: Final = ("open_linear", "end_linear", "open_tuple", "end_tuple")


def save_weights(run_dir: Path, weights: NtupleWeights, config: dict[str, object]) -> None:
    """``weights.npz`` (float32, compressed; the feature names beside them) and
    ``config.json``, each written atomically (weights first: config marks a complete run)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    arrays = {key: getattr(weights, key).astype(np.float32) for key in WEIGHT_KEYS}
    with atomic_path(run_dir / "weights.npz") as tmp, open(tmp, "wb") as handle:
        np.savez_compressed(handle, linear_features=np.asarray(LINEAR_FEATURES), **arrays)
    atomic_write_json(run_dir / "config.json", config)


def load_weights(run_dir: Path) -> tuple[NtupleWeights, dict[str, object]]:
    """Weights and config of a run directory (no pickles; shapes and names checked)."""
    path = run_dir / "weights.npz"
    if not path.is_file() or not (run_dir / "config.json").is_file():
        raise KitError(f"{run_dir}: no n-tuple weights (weights.npz and config.json); train "
                       "with 'chessmoe related train ntuple'")
    config = read_config(run_dir / "config.json")
    try:
        with np.load(path, allow_pickle=False) as data:
            names = tuple(str(x) for x in data["linear_features"])
            if names != LINEAR_FEATURES:
                raise KitError(f"{path}: features {names} differ from this kit's "
                               f"{LINEAR_FEATURES}")
            arrays = [np.asarray(data[key], dtype=np.float64) for key in WEIGHT_KEYS]
    except KitError:
        raise
    except Exception as error:  # not an npz, cut short, object arrays, a missing array
        raise KitError(f"{path} cannot be loaded as n-tuple weights "
                       f"({error_cause(error)})") from None
    for key, array, size in zip(WEIGHT_KEYS, arrays, (N_LINEAR, N_LINEAR, TUPLE_SIZE,
                                                       TUPLE_SIZE), strict=True):
        if array.shape != (size,) or not np.all(np.isfinite(array)):
            raise KitError(f"{path}: {key} has shape {array.shape} or non-finite values")
    return NtupleWeights(*arrays), config


# --- the search a comparison is made through -----------------------------------------------


class LeafLike(Protocol):
    """What the trainer needs of a principal leaf (:class:`chessmoe.search.alphabeta.Leaf`)."""

    @property
    def board(self) -> chess.Board: ...
    @property
    def value(self) -> float: ...
    @property
    def terminal(self) -> bool: ...


LeafSearch = Callable[[chess.Board, Callable[[chess.Board], float], int], LeafLike]
"""``(board, evaluate, depth) -> principal leaf`` of a depth-ply + quiescence search."""
