"""Comparison training of a tapered linear evaluation with 2-tuple networks, after
``related-comparison-training-ntuple.md`` (Tseng, Chen, Wu).

The evaluation is ``alpha(s) w_o . phi(s) + (1 - alpha(s)) w_e . phi(s)`` (document Eq. 2):
``phi`` White's linear terms and 2-tuple table entries (:func:`extract`), ``alpha`` the
tapered phase (:func:`chessmoe.phases.tapered_alpha`). :func:`train_comparison` learns the
weights from :func:`start_weights` with the document's averaged-perceptron comparison update
(:func:`comparison_update`) against Stockfish's moves; :class:`NtupleEvaluator` plays with the
integer weights. The d-ply search is passed in as ``leaf_search`` (:mod:`chessmoe.search` is a
layer above): :mod:`chessmoe.nets.related.train_ntuple` runs the training with the one its
caller gives, :func:`chessmoe.search.alphabeta.principal_leaf`.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

import chess
import numpy as np
import numpy.typing as npt

from chessmoe._io.errors import KitError, error_cause
from chessmoe._io.fsutil import atomic_path, atomic_write_json
from chessmoe._io.jsonl import JsonlLog
from chessmoe.nets.related import pesto, read_config
from chessmoe.phases import tapered_alpha

__all__ = [
    "CP_PER_UNIT",
    "INITIAL_MATERIAL",
    "LINEAR_FEATURES",
    "N_TUPLES",
    "STARTS",
    "TUPLE_SIZE",
    "AgreementOnTest",
    "Averager",
    "ComparisonStats",
    "Features",
    "LabelledPosition",
    "LeafLike",
    "LeafSearch",
    "NtupleEvaluator",
    "NtupleTrainConfig",
    "NtupleWeights",
    "TrainOutcome",
    "Update",
    "agreement_on_test",
    "comparison_update",
    "config_record",
    "evaluate_agreement",
    "extract",
    "label_positions",
    "load_weights",
    "run_fingerprint",
    "sample_positions",
    "sample_test_positions",
    "save_weights",
    "self_pair_index",
    "start_weights",
    "train_comparison",
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


_WEIGHT_KEYS: Final = ("open_linear", "end_linear", "open_tuple", "end_tuple")


def save_weights(run_dir: Path, weights: NtupleWeights, config: dict[str, object]) -> None:
    """``weights.npz`` (float32, compressed; the feature names beside them) and
    ``config.json``, each written atomically (weights first: config marks a complete run)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    arrays = {key: getattr(weights, key).astype(np.float32) for key in _WEIGHT_KEYS}
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
            arrays = [np.asarray(data[key], dtype=np.float64) for key in _WEIGHT_KEYS]
    except KitError:
        raise
    except Exception as error:  # not an npz, cut short, object arrays, a missing array
        raise KitError(f"{path} cannot be loaded as n-tuple weights "
                       f"({error_cause(error)})") from None
    for key, array, size in zip(_WEIGHT_KEYS, arrays, (N_LINEAR, N_LINEAR, TUPLE_SIZE,
                                                       TUPLE_SIZE), strict=True):
        if array.shape != (size,) or not np.all(np.isfinite(array)):
            raise KitError(f"{path}: {key} has shape {array.shape} or non-finite values")
    return NtupleWeights(*arrays), config


# --- comparison training -------------------------------------------------------------------


@dataclass(frozen=True)
class Update:
    """One perceptron step: dense linear deltas (N_LINEAR,) per phase and sparse tuple
    deltas at ``tuple_index`` (M,) per phase."""

    open_linear: F64
    end_linear: F64
    tuple_index: I64
    open_tuple: F64
    end_tuple: F64


def _phase_factors(alpha: float) -> tuple[float, float]:
    norm = alpha * alpha + (1.0 - alpha) * (1.0 - alpha)
    return alpha / norm, (1.0 - alpha) / norm


def comparison_update(best: Features, better: Sequence[Features], side: float) -> Update:
    """The document's tapered update for one position (its Eq. 3 and section 3.1): with
    ``S`` the moves whose principal leaf ``l_i`` scores better for the side to move than the
    desired move's leaf ``l_best``, ``w_o += 1/|S| sum (phi_o(l_best) - phi_o(l_i))`` and
    the same for ``w_e``, where ``phi_o = alpha / (alpha^2 + (1 - alpha)^2) phi`` and
    ``phi_e = (1 - alpha) / (...) phi``; times ``side`` (+1 White to move, -1 Black) because
    ``phi`` is White's view and the comparison is the side to move's."""
    if not better:
        raise ValueError("no move scored better than the desired one: nothing to update")
    scale = side / len(better)
    n = float(len(better))
    bo, be = _phase_factors(best.alpha)
    open_linear = n * bo * best.linear
    end_linear = n * be * best.linear
    index = [best.tuple_index]
    open_values = [n * bo * best.tuple_sign]
    end_values = [n * be * best.tuple_sign]
    for other in better:
        fo, fe = _phase_factors(other.alpha)
        open_linear = open_linear - fo * other.linear
        end_linear = end_linear - fe * other.linear
        index.append(other.tuple_index)
        open_values.append(-fo * other.tuple_sign)
        end_values.append(-fe * other.tuple_sign)
    all_index = np.concatenate(index)
    unique, inverse = np.unique(all_index, return_inverse=True)
    open_tuple = np.bincount(inverse, weights=np.concatenate(open_values), minlength=len(unique))
    end_tuple = np.bincount(inverse, weights=np.concatenate(end_values), minlength=len(unique))
    return Update(scale * open_linear, scale * end_linear, unique.astype(np.int64),
                  (scale * open_tuple).astype(np.float64),
                  (scale * end_tuple).astype(np.float64))


class Averager:
    """Averaged perceptron: current weights ``w`` and ``u = sum_t t * delta_t``, so the mean
    of ``w(0) .. w(t)`` is ``w - u / (t + 1)`` without storing the history."""

    def __init__(self, start: NtupleWeights, learning_rate: float = 1.0) -> None:
        self.current = start.copy()
        self.weighted = NtupleWeights(np.zeros(N_LINEAR), np.zeros(N_LINEAR),
                                      np.zeros(TUPLE_SIZE), np.zeros(TUPLE_SIZE))
        self.steps = 0
        self.learning_rate = learning_rate

    def step(self, update: Update | None) -> None:
        """Advance one training position (``None``: the desired move already won)."""
        self.steps += 1
        if update is None:
            return
        t, lr = float(self.steps), self.learning_rate
        for name in ("open_linear", "end_linear"):
            delta = lr * getattr(update, name)
            getattr(self.current, name)[:] += delta
            getattr(self.weighted, name)[:] += t * delta
        for name in ("open_tuple", "end_tuple"):
            delta = lr * getattr(update, name)
            getattr(self.current, name)[update.tuple_index] += delta
            getattr(self.weighted, name)[update.tuple_index] += t * delta

    def average(self) -> NtupleWeights:
        c = float(self.steps + 1)
        return NtupleWeights(*(getattr(self.current, k) - getattr(self.weighted, k) / c
                               for k in _WEIGHT_KEYS))


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


@dataclass(frozen=True)
class LabelledPosition:
    """A training position (FEN) and its desired move (UCI), Stockfish's best move."""

    fen: str
    move: str


@dataclass(frozen=True)
class ComparisonStats:
    """One pass over positions: how often the desired move's leaf scored best (a tie of k
    moves counts 1/k), how many updates were made and how many positions were skipped (the
    desired move's leaf is terminal or the position has no comparable move)."""

    positions: int
    agree: float
    updates: int
    skipped: int

    @property
    def agreement(self) -> float:
        return self.agree / self.positions if self.positions else math.nan


def _compare(position: LabelledPosition, weights: NtupleWeights, config: NtupleTrainConfig,
             leaf_search: LeafSearch) -> tuple[float, Update | None, bool]:
    """``(agreement credit, update or None, skipped)`` for one position, comparing every
    move's principal leaf after a ``depth - 1``-ply + quiescence search.

    The credit is 1 when the desired move's leaf alone scores best, ``1/k`` when it ties with
    ``k - 1`` others (the chance a tie-break picks it), 0 when a move scores better."""
    board = chess.Board(position.fen)
    desired = chess.Move.from_uci(position.move)
    side = 1.0 if board.turn == chess.WHITE else -1.0
    tuples = config.tuples

    def evaluate(b: chess.Board) -> float:
        value = weights.white_eval(extract(b, tuples=tuples))
        return value if b.turn == chess.WHITE else -value

    leaves: list[tuple[chess.Move, float, LeafLike]] = []
    for move in board.legal_moves:
        board.push(move)
        leaf = leaf_search(board, evaluate, config.depth - 1)
        board.pop()
        leaves.append((move, -leaf.value, leaf))
    best = next((item for item in leaves if item[0] == desired), None)
    if best is None:
        raise KitError(f"label {position.move} is not legal in {position.fen}")
    better = [item for item in leaves if item[0] != desired and item[1] > best[1]]
    tied = [item for item in leaves if item[0] != desired and item[1] == best[1]]
    credit = 0.0 if better else 1.0 / (1 + len(tied))
    if config.ties_update:
        better += tied
    if not better:
        return credit, None, False
    comparable = [extract(item[2].board, tuples=tuples) for item in better
                  if not item[2].terminal]
    if best[2].terminal or not comparable:
        return credit, None, True
    update = comparison_update(extract(best[2].board, tuples=tuples), comparable, side)
    return credit, update, False


def evaluate_agreement(positions: Sequence[LabelledPosition], weights: NtupleWeights,
                       config: NtupleTrainConfig, leaf_search: LeafSearch, *,
                       progress: bool = False, desc: str = "held out") -> ComparisonStats:
    """Agreement with the desired moves under ``weights`` (no update; ties share credit)."""
    from tqdm import tqdm

    agree = 0.0
    skipped = 0
    for position in tqdm(positions, desc=desc, disable=not progress):
        credit, _, skip = _compare(position, weights, config, leaf_search)
        agree += credit
        skipped += skip
    return ComparisonStats(len(positions), agree, 0, skipped)


# --- data: positions and Stockfish labels -------------------------------------------------


@dataclass(frozen=True)
class NtupleTrainConfig:
    """A comparison-training run. ``depth`` is the document's d (1..4): each move is
    compared through the leaf of a (d-1)-ply + quiescence search of its child (the
    document's best result is d = 4; the kit's committed run is d = 1). ``start`` names the
    starting weights (:func:`start_weights`): ``material`` or ``pesto``."""

    positions: int = 3000
    held_out: int = 400
    depth: int = 1
    iterations: int = 4
    patience: int = 1
    learning_rate: float = 1.0
    tuples: bool = True
    # S takes the moves scoring better than the desired one, and (ties_update) those scoring
    # the same: from material-only weights most quiet moves tie, and the document's strict
    # "better" alone would learn nothing from them
    ties_update: bool = True
    label_nodes: int = 20000  # Stockfish nodes per label (the document: 200,000)
    min_ply: int = 8  # positions from this ply of a game on
    per_game: int = 4  # at most this many positions per game
    held_out_every: int = 10  # every n-th game gives held-out positions
    seed: int = 0
    start: str = "material"  # the starting weights: material (Table I) or pesto
    # a test set apart from training and selection: positions of another source's games
    # (default: the embedded Stockfish self-play sample), scored once after training
    test_positions: int = 0
    test_source: str = "sample"

    def __post_init__(self) -> None:
        if self.start not in STARTS:
            raise KitError(f"unknown n-tuple start {self.start!r}: one of {', '.join(STARTS)}")
        if not 1 <= self.depth <= 4:
            raise KitError(f"training depth d must be 1..4, got {self.depth}")
        if self.positions < 1 or self.held_out < 1 or self.iterations < 0:
            raise KitError("positions and held_out must be positive, iterations >= 0")
        if self.test_positions < 0:
            raise KitError("test_positions must be >= 0")


def sample_positions(games: Iterator[tuple[int, list[str]]], config: NtupleTrainConfig
                     ) -> tuple[list[str], list[str]]:
    """FENs for training and held-out positions from ``(game ordinal, FEN after each ply)``:
    up to ``per_game`` random plies >= ``min_ply`` per game with at least two legal moves,
    games split by ordinal (every ``held_out_every``-th game is held out)."""
    rng = random.Random(config.seed)
    train: list[str] = []
    held: list[str] = []
    for ordinal, fens in games:
        if len(train) >= config.positions and len(held) >= config.held_out:
            break
        target = held if ordinal % config.held_out_every == 0 else train
        wanted = config.held_out if target is held else config.positions
        plies = list(range(config.min_ply, len(fens)))
        rng.shuffle(plies)
        taken: list[int] = []
        for k in plies:
            if len(taken) >= config.per_game or len(target) + len(taken) >= wanted:
                break
            board = chess.Board(fens[k])
            if not board.is_game_over() and board.legal_moves.count() >= 2:
                taken.append(k)
        target.extend(fens[k] for k in sorted(taken))
    return train, held


def sample_test_positions(games: Iterator[tuple[int, list[str]]], config: NtupleTrainConfig
                          ) -> list[str]:
    """``config.test_positions`` FENs of a test set: up to ``per_game`` random plies
    >= ``min_ply`` of each game, every game used (the source is apart from the training
    and held-out games), drawn with their own seed."""
    rng = random.Random(config.seed + 7919)
    out: list[str] = []
    for _, fens in games:
        if len(out) >= config.test_positions:
            break
        plies = list(range(config.min_ply, len(fens)))
        rng.shuffle(plies)
        taken: list[int] = []
        for k in plies:
            if len(taken) >= config.per_game or len(out) + len(taken) >= config.test_positions:
                break
            board = chess.Board(fens[k])
            if not board.is_game_over() and board.legal_moves.count() >= 2:
                taken.append(k)
        out.extend(fens[k] for k in sorted(taken))
    return out


@dataclass(frozen=True)
class AgreementOnTest:
    """Agreement with the desired moves on a test set, for the start and the trained
    weights on the same positions: each with a 95 % interval, and their paired difference
    (position by position) with its own."""

    positions: int
    start_agreement: float
    start_half_width: float
    trained_agreement: float
    trained_half_width: float
    difference: float
    difference_half_width: float

    def to_json(self) -> dict[str, float]:
        return asdict(self)


def _mean_and_half_width(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def agreement_on_test(positions: Sequence[LabelledPosition], start: NtupleWeights,
                   trained: NtupleWeights, config: NtupleTrainConfig, leaf_search: LeafSearch,
                   *, progress: bool = False) -> AgreementOnTest:
    """Both weight sets on the same test positions (a tie's credit shared as in training)."""
    from tqdm import tqdm

    if not positions:
        raise KitError("no test positions: the test source gave none")
    before = [_compare(p, start, config, leaf_search)[0]
              for p in tqdm(positions, desc="test set, start weights", disable=not progress)]
    after = [_compare(p, trained, config, leaf_search)[0]
             for p in tqdm(positions, desc="test set, trained weights", disable=not progress)]
    s_mean, s_half = _mean_and_half_width(before)
    t_mean, t_half = _mean_and_half_width(after)
    d_mean, d_half = _mean_and_half_width([a - b for a, b in zip(after, before, strict=True)])
    return AgreementOnTest(len(positions), s_mean, s_half, t_mean, t_half, d_mean, d_half)



def label_positions(fens: Sequence[str], cache: Path, *, stockfish: Path, nodes: int,
                    progress: bool = True) -> dict[str, str]:
    """Stockfish's best move for each FEN at ``nodes`` nodes, cached in ``cache`` (JSONL,
    one record per FEN and node count) so a rerun labels only what is missing."""
    import chess.engine
    from tqdm import tqdm

    with JsonlLog(cache, key="key") as log:  # one labelling run a cache at a time
        labels = {r["fen"]: r["move"] for r in log if r.get("nodes") == nodes}
        missing = [fen for fen in dict.fromkeys(fens) if fen not in labels]
        if missing:
            engine = chess.engine.SimpleEngine.popen_uci(str(stockfish))
            try:
                for fen in tqdm(missing, desc="stockfish labels", disable=not progress):
                    result = engine.play(chess.Board(fen), chess.engine.Limit(nodes=nodes),
                                         game=object())
                    if result.move is None:
                        raise KitError(f"Stockfish gave no move for {fen}")
                    labels[fen] = result.move.uci()
                    log.append({"key": f"{nodes}:{fen}", "fen": fen, "nodes": nodes,
                                "move": labels[fen]})
            finally:
                engine.quit()
    return {fen: labels[fen] for fen in fens}


# --- the training loop ---------------------------------------------------------------------


@dataclass
class TrainOutcome:
    """The weights kept (best held-out agreement) and the per-iteration metrics."""

    weights: NtupleWeights
    metrics: list[dict[str, float]] = field(default_factory=list)
    best_iteration: int = 0


CHECKPOINT_VERSION: Final = 1
TEST_FIELDS: Final = ("test_positions", "test_source")


def run_fingerprint(train_set: Sequence[LabelledPosition],
                    held_out: Sequence[LabelledPosition], config: NtupleTrainConfig) -> str:
    """sha256 of the config and every labelled position (train, then held out): a
    checkpoint resumes only the run it was written by."""
    # the test set is scored after training and does not change it
    settings = {k: v for k, v in asdict(config).items() if k not in TEST_FIELDS}
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    for name, positions in (("train", train_set), ("held_out", held_out)):
        digest.update(name.encode())
        for position in positions:
            digest.update(f"{position.fen}|{position.move}\n".encode())
    return digest.hexdigest()


@dataclass
class _TrainState:
    """Everything a training run needs to continue exactly where it stopped: the averaged
    perceptron, the shuffle's random state, the pass in progress (``done`` positions of
    ``order`` with its running counts) and the best weights so far."""

    averager: Averager
    rng_state: object
    metrics: list[dict[str, float]]
    best: float
    best_weights: NtupleWeights
    best_iteration: int
    stale: int
    iteration: int = 0  # the pass in progress (0: none yet)
    order: list[int] = field(default_factory=list)
    done: int = 0
    agree: float = 0.0
    updates: int = 0
    skipped: int = 0
    elapsed: float = 0.0  # seconds of training before this process
    finished: bool = False


def _save_checkpoint(path: Path, state: _TrainState, fingerprint: str, elapsed: float
                     ) -> None:
    """The state (``elapsed`` seconds of training so far) as one ``.npz`` (float64
    weights, no pickles), written atomically."""
    meta = {"version": CHECKPOINT_VERSION, "fingerprint": fingerprint,
            "rng_state": state.rng_state, "metrics": state.metrics, "best": state.best,
            "best_iteration": state.best_iteration, "stale": state.stale,
            "iteration": state.iteration, "done": state.done, "agree": state.agree,
            "updates": state.updates, "skipped": state.skipped, "elapsed": elapsed,
            "finished": state.finished, "steps": state.averager.steps,
            "learning_rate": state.averager.learning_rate}
    arrays: dict[str, Any] = {  # Any: savez's keyword arguments are loosely typed
        "meta": np.asarray(json.dumps(meta)), "order": np.asarray(state.order, dtype=np.int64)}
    for key in _WEIGHT_KEYS:
        arrays[f"current_{key}"] = getattr(state.averager.current, key)
        arrays[f"weighted_{key}"] = getattr(state.averager.weighted, key)
        arrays[f"best_{key}"] = getattr(state.best_weights, key)
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        np.savez(handle, allow_pickle=False, **arrays)


def _load_checkpoint(path: Path, fingerprint: str) -> _TrainState:
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            order = [int(k) for k in data["order"]]
            weights = {f"{prefix}_{key}": np.array(data[f"{prefix}_{key}"], dtype=np.float64)
                       for prefix in ("current", "weighted", "best") for key in _WEIGHT_KEYS}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        raise KitError(f"{path}: unreadable training checkpoint ({error}); delete it to "
                       "start the run again") from None
    if meta.get("version") != CHECKPOINT_VERSION or meta.get("fingerprint") != fingerprint:
        raise KitError(f"{path}: checkpoint of a different run (other settings, positions or "
                       "labels); delete it to start again, or rerun with the same settings")

    def record(prefix: str) -> NtupleWeights:
        return NtupleWeights(*(weights[f"{prefix}_{key}"] for key in _WEIGHT_KEYS))

    averager = Averager(record("current"), float(meta["learning_rate"]))
    averager.current = record("current")
    averager.weighted = record("weighted")
    averager.steps = int(meta["steps"])
    rng_state = meta["rng_state"]
    return _TrainState(averager=averager,
                       rng_state=(rng_state[0], tuple(rng_state[1]), rng_state[2]),
                       metrics=list(meta["metrics"]), best=float(meta["best"]),
                       best_weights=record("best"), best_iteration=int(meta["best_iteration"]),
                       stale=int(meta["stale"]), iteration=int(meta["iteration"]), order=order,
                       done=int(meta["done"]), agree=float(meta["agree"]),
                       updates=int(meta["updates"]), skipped=int(meta["skipped"]),
                       elapsed=float(meta["elapsed"]), finished=bool(meta["finished"]))


def train_comparison(train_set: Sequence[LabelledPosition],
                     held_out: Sequence[LabelledPosition], config: NtupleTrainConfig,
                     leaf_search: LeafSearch, *,
                     on_iteration: Callable[[dict[str, float]], None] | None = None,
                     progress: bool = True, checkpoint: Path | None = None,
                     checkpoint_every: int = 250) -> TrainOutcome:
    """Comparison training from ``config.start``'s weights; iteration 0 is the start's
    agreement.

    Every iteration passes over ``train_set`` in a seeded order, updating after each
    position; its averaged weights are scored on ``held_out`` and the best are kept; training
    stops after ``patience`` iterations without a better held-out agreement.

    With ``checkpoint`` (a ``.npz`` path) the whole state is saved atomically every
    ``checkpoint_every`` training positions and after every held-out score, and a run that
    finds a checkpoint of the same run (:func:`run_fingerprint`) continues from it: an
    interrupted run ends with exactly the weights and metrics of an uninterrupted one (the
    ``seconds`` column aside). ``on_iteration`` is called for each iteration's record, the
    ones already in the checkpoint included, in order."""
    from tqdm import tqdm

    fingerprint = run_fingerprint(train_set, held_out, config)
    began = time.monotonic()
    if checkpoint is not None and checkpoint.is_file():
        state = _load_checkpoint(checkpoint, fingerprint)
    else:
        start = start_weights(config.start)
        rng = random.Random(config.seed)
        base = evaluate_agreement(held_out, start, config, leaf_search, progress=progress,
                                  desc="held out, start weights")
        state = _TrainState(averager=Averager(start, config.learning_rate),
                            rng_state=rng.getstate(),
                            metrics=[{"iteration": 0, "held_out_agreement": base.agreement,
                                      "held_out": base.positions, "seconds": 0.0}],
                            best=base.agreement, best_weights=start.copy(), best_iteration=0,
                            stale=0)
        if checkpoint is not None:
            _save_checkpoint(checkpoint, state, fingerprint, 0.0)
    if on_iteration:
        for record in state.metrics:
            on_iteration(record)

    def elapsed() -> float:
        return state.elapsed + time.monotonic() - began

    def save() -> None:
        if checkpoint is not None:
            _save_checkpoint(checkpoint, state, fingerprint, elapsed())

    averager = state.averager
    while not state.finished:
        if state.iteration == 0 or state.done >= len(state.order):
            if state.iteration >= config.iterations:
                break
            rng = random.Random()
            rng.setstate(state.rng_state)  # type: ignore[arg-type]
            # each pass reshuffles the previous pass's order (the first: 0 .. n-1)
            order = list(state.order) if state.order else list(range(len(train_set)))
            rng.shuffle(order)
            state.rng_state = rng.getstate()
            state.iteration += 1
            state.order, state.done = order, 0
            state.agree, state.updates, state.skipped = 0.0, 0, 0
        bar = tqdm(total=len(state.order), initial=state.done,
                   desc=f"iteration {state.iteration}", disable=not progress)
        while state.done < len(state.order):
            k = state.order[state.done]
            ok, update, skip = _compare(train_set[k], averager.current, config, leaf_search)
            averager.step(update)
            state.agree += ok
            state.updates += update is not None
            state.skipped += skip
            state.done += 1
            bar.update(1)
            if state.done % checkpoint_every == 0 and state.done < len(state.order):
                save()
        bar.close()
        averaged = averager.average()
        held = evaluate_agreement(held_out, averaged, config, leaf_search, progress=progress,
                                  desc=f"held out, iteration {state.iteration}")
        record = {"iteration": state.iteration,
                  "train_agreement": state.agree / len(train_set),
                  "updates": state.updates, "skipped": state.skipped,
                  "held_out_agreement": held.agreement, "held_out": held.positions,
                  "gamma": averaged.gamma(), "seconds": round(elapsed(), 2)}
        state.metrics.append(record)
        if on_iteration:
            on_iteration(record)
        if held.agreement > state.best:
            state.best, state.best_weights = held.agreement, averaged
            state.best_iteration, state.stale = state.iteration, 0
        else:
            state.stale += 1
            if state.stale >= config.patience:
                state.finished = True
        if state.iteration >= config.iterations:
            state.finished = True
        save()
    return TrainOutcome(state.best_weights, state.metrics, state.best_iteration)


def config_record(config: NtupleTrainConfig, **extra: object) -> dict[str, object]:
    """``config.json`` of a run: the training config, the feature layout and ``extra``."""
    return {"kind": "ntuple", "train": asdict(config), "linear_features": list(LINEAR_FEATURES),
            "tuples": {"count": N_TUPLES, "size": TUPLE_SIZE,
                       "layout": "(own type a, own/opp x type b, first square folded to 32 "
                                 "by left-right mirror, second square 64)"},
            "cp_per_unit": CP_PER_UNIT, **extra}
