"""Positions to tensors: the 52-plane input (paper Table 6) and the 4864 policy map.

Three ways to get planes, all equal: :func:`board_to_planes` (one ``chess.Board``, its move
stack giving the history and repetition planes), :func:`records_to_planes` (compact
fixed-size records, :data:`RECORD_DTYPE`, expanded in vectorised numpy) and
:func:`records_to_planes_torch` (the same expansion in torch, on CPU or GPU).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import chess
import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import torch

__all__ = [
    "N_PLANES",
    "PLANES",
    "POLICY_SIZE",
    "RECORD_DTYPE",
    "PlaneSpec",
    "board_to_planes",
    "board_to_record",
    "castling_bits",
    "legal_ep_square",
    "legal_policy_indices",
    "move_to_policy_index",
    "policy_index_to_move",
    "policy_indices",
    "record_board",
    "records_to_planes",
    "records_to_planes_torch",
    "table6",
]

N_PLANES: Final = 52
POLICY_PLANES: Final = 76
POLICY_SIZE: Final = POLICY_PLANES * 64  # 4864
"""76 planes x 64 from-squares: ``index = plane * 64 + from_square``, the move mirrored first
when Black is to move."""
HALFMOVE_SCALE: Final = 50.0
MATERIAL_SCALE: Final = 8.0
NO_SQUARE: Final = 64  # "no move" / "no en-passant square" in records


# --- the plane specification (single source of truth) ---------------------------------------


@dataclass(frozen=True)
class PlaneSpec:
    """One input plane: index, name, type (``bool``/``int``), whether it is a constant
    (scalar) plane, the normalising divisor, and the Table 6 feature it belongs to."""

    index: int
    name: str
    kind: str
    constant: bool
    scale: float
    feature: str
    comment: str


def _build_planes() -> tuple[PlaneSpec, ...]:
    pieces = ("pawn", "knight", "bishop", "rook", "queen", "king")
    order = "order: {PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING}"
    rows: list[tuple[str, str, bool, float, str, str]] = []
    rows += [(f"P1 {p}", "bool", False, 1.0, "P1 pieces", order) for p in pieces]
    rows += [(f"P2 {p}", "bool", False, 1.0, "P2 pieces", order) for p in pieces]
    rows += [("repetition >= 1", "bool", True, 1.0, "Repetitions",
              "how often the board position has occurred before"),
             ("repetition >= 2", "bool", True, 1.0, "Repetitions",
              "how often the board position has occurred before")]
    rows += [("en-passant square", "bool", False, 1.0, "En-passant square",
              "the square where an en-passant capture is legal")]
    castling = "binary plane, order: {KING_SIDE, QUEEN_SIDE}"
    rows += [("P1 castling king side", "bool", True, 1.0, "P1 castling", castling),
             ("P1 castling queen side", "bool", True, 1.0, "P1 castling", castling),
             ("P2 castling king side", "bool", True, 1.0, "P2 castling", castling),
             ("P2 castling queen side", "bool", True, 1.0, "P2 castling", castling)]
    rows += [("no-progress count", "int", True, HALFMOVE_SCALE, "No-progress count",
              "the no-progress counter (FEN halfmove clock), / 50 when normalised")]
    for k in range(8):
        for end in ("from", "to"):
            rows.append((f"last move {k + 1} {end}", "bool", False, 1.0, "Last Moves",
                         "origin and target squares of the last eight moves, most recent "
                         "first"))
    rows += [("is960", "bool", True, 1.0, "is960", "if the 960 variant is active")]
    rows += [("P1 occupancy", "bool", False, 1.0, "P1 pieces (all)",
              "grouped mask of all P1 pieces"),
             ("P2 occupancy", "bool", False, 1.0, "P2 pieces (all)",
              "grouped mask of all P2 pieces")]
    rows += [("checkerboard", "bool", False, 1.0, "Checkerboard",
              "chess board pattern, (rank + file) mod 2, never mirrored")]
    material = "order: {PAWN, KNIGHT, BISHOP, ROOK, QUEEN}, / 8 when normalised"
    rows += [(f"material difference {p}", "int", True, MATERIAL_SCALE,
              "P1 Material difference", material) for p in pieces[:5]]
    rows += [("opposite-coloured bishops", "bool", True, 1.0, "Opposite color bishops",
              "each side has exactly one bishop, on different square colours")]
    rows += [("checkers", "bool", False, 1.0, "Checkers", "all pieces giving check")]
    rows += [(f"P1 material {p}", "int", True, MATERIAL_SCALE, "P1 material count",
              material) for p in pieces[:5]]
    return tuple(PlaneSpec(i, *row) for i, row in enumerate(rows))


PLANES: Final = _build_planes()
"""The single source of truth of the plane layout (it renders the paper's Table 6). Planes
are ``[plane, rank, file]`` with rank 0 = rank 1, seen by the side to move (P1): when Black
is to move every square plane is mirrored vertically (rank ``r -> 7 - r``), which on a
bitboard is a byte swap."""
assert len(PLANES) == N_PLANES

_SCALES: Final = np.array([p.scale for p in PLANES], dtype=np.float32)


def table6() -> list[tuple[str, int, str, str]]:
    """Paper Table 6: ``(feature, planes, type, comment)`` in plane order; a ``*`` marks
    constant (scalar) planes."""
    rows: list[tuple[str, int, str, str]] = []
    for spec in PLANES:
        label = spec.feature + ("*" if spec.constant else "")
        if rows and rows[-1][0] == label:
            feature, count, kind, comment = rows[-1]
            rows[-1] = (feature, count + 1, kind, comment)
        else:
            rows.append((label, 1, spec.kind, spec.comment))
    return rows


# --- the compact record ----------------------------------------------------------------------

RECORD_DTYPE: Final = np.dtype([
    ("white", "<u8"), ("black", "<u8"),
    ("pawns", "<u8"), ("knights", "<u8"), ("bishops", "<u8"), ("rooks", "<u8"),
    ("queens", "<u8"), ("kings", "<u8"),
    ("checkers", "<u8"),
    ("last_moves", "u1", (8, 2)),  # absolute (from, to), most recent first; 64 = none
    ("ep_square", "u1"),  # absolute square of a *legal* en-passant capture; 64 = none
    ("castling", "u1"),  # bits: 1 white king side, 2 white queen side, 4 black k, 8 black q
    ("turn", "u1"),  # 1 = White to move
    ("repetition", "u1"),  # times the position occurred before (capped at 2)
    ("is960", "u1"),
    ("halfmove", "<u2"),
    ("fullmove", "<u2"),
])
"""One position, 97 bytes, absolute colours (perspective is applied on expansion)."""


def _repetitions(board: chess.Board) -> int:
    if board.is_repetition(3):
        return 2
    if board.is_repetition(2):
        return 1
    return 0


def legal_ep_square(board: chess.Board) -> int:
    """The en-passant square when a capture there is legal, else :data:`NO_SQUARE`."""
    return board.ep_square if board.ep_square is not None and board.has_legal_en_passant() \
        else NO_SQUARE


def castling_bits(board: chess.Board) -> int:
    """Castling rights as record bits: 1 White king side, 2 White queen side, 4 and 8 Black."""
    if not board.castling_rights:
        return 0
    return (int(board.has_kingside_castling_rights(chess.WHITE))
            | int(board.has_queenside_castling_rights(chess.WHITE)) << 1
            | int(board.has_kingside_castling_rights(chess.BLACK)) << 2
            | int(board.has_queenside_castling_rights(chess.BLACK)) << 3)


def _last_moves(board: chess.Board) -> list[tuple[int, int]]:
    moves: list[tuple[int, int]] = []
    for move in reversed(board.move_stack[-8:]):
        moves.append((move.from_square, move.to_square) if move else (NO_SQUARE, NO_SQUARE))
    moves += [(NO_SQUARE, NO_SQUARE)] * (8 - len(moves))
    return moves


def board_record_tuple(board: chess.Board, repetition: int | None = None) -> tuple[Any, ...]:
    """The record fields of ``board`` as a tuple in :data:`RECORD_DTYPE` order.

    ``repetition`` may be passed by callers that track positions themselves
    (the dataset builder); otherwise it is computed from the move stack.
    """
    return (board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.pawns,
            board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.checkers_mask(), _last_moves(board), legal_ep_square(board), castling_bits(board),
            int(board.turn), _repetitions(board) if repetition is None else repetition,
            int(board.chess960), min(board.halfmove_clock, 65535),
            min(board.fullmove_number, 65535))


def record_board(record: Any) -> chess.Board:
    """The python-chess board of one record (no move stack: history fields are not kept).
    Standard chess only; the en-passant square is the record's (a legal capture)."""
    board = chess.Board(None)
    board.occupied_co[chess.WHITE] = int(record["white"])
    board.occupied_co[chess.BLACK] = int(record["black"])
    board.pawns = int(record["pawns"])
    board.knights = int(record["knights"])
    board.bishops = int(record["bishops"])
    board.rooks = int(record["rooks"])
    board.queens = int(record["queens"])
    board.kings = int(record["kings"])
    board.occupied = board.occupied_co[chess.WHITE] | board.occupied_co[chess.BLACK]
    board.promoted = chess.BB_EMPTY
    board.turn = bool(record["turn"])
    bits = int(record["castling"])
    rights = 0
    for bit, square in ((1, chess.H1), (2, chess.A1), (4, chess.H8), (8, chess.A8)):
        if bits & bit:
            rights |= chess.BB_SQUARES[square]
    board.castling_rights = rights
    ep = int(record["ep_square"])
    board.ep_square = None if ep >= NO_SQUARE else ep
    board.halfmove_clock = int(record["halfmove"])
    board.fullmove_number = int(record["fullmove"])
    return board


def board_to_record(board: chess.Board) -> np.ndarray:
    """The compact record of one board (a 0-d structured array)."""
    return np.array(board_record_tuple(board), dtype=RECORD_DTYPE)


# --- vectorised expansion (numpy) --------------------------------------------------------------

_CHECKERBOARD: Final = np.array([(sq // 8 + sq % 8) % 2 for sq in range(64)], dtype=np.float32)
_LIGHT: Final = np.array([(chess.BB_LIGHT_SQUARES >> sq) & 1 for sq in range(64)],
                         dtype=np.float32)


def _bits(bitboards: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint8]:
    """(..., k) uint64 -> (..., k, 64) uint8 bits, square 0 (a1) first."""
    as_bytes = np.ascontiguousarray(bitboards).view(np.uint8).reshape(*bitboards.shape, 8)
    return np.unpackbits(as_bytes, axis=-1, bitorder="little")


def _check_records(records: npt.ArrayLike) -> npt.NDArray[Any]:
    array = np.asarray(records)
    missing = [n for n in RECORD_DTYPE.names or () if n not in (array.dtype.names or ())]
    if missing:
        raise TypeError(f"records lack the field(s) {missing} of RECORD_DTYPE")
    return array.reshape(-1)


def records_to_planes(records: npt.NDArray[Any], normalize: bool = True,
                      out: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
    """Expand N records to ``(N, 52, 8, 8)`` float32 planes (vectorised numpy).

    ``records`` is any structured array with the fields of :data:`RECORD_DTYPE`
    (e.g. dataset samples, which carry more).
    """
    records = _check_records(records)
    n = records.shape[0]
    planes = np.zeros((n, N_PLANES, 64), dtype=np.float32) if out is None else out.reshape(
        n, N_PLANES, 64)
    if out is not None:
        planes.fill(0.0)
    white_to_move = records["turn"].astype(bool)
    us = np.where(white_to_move, records["white"], records["black"])
    them = np.where(white_to_move, records["black"], records["white"])
    kinds = np.stack([records[k] for k in ("pawns", "knights", "bishops", "rooks", "queens",
                                           "kings")], axis=1)  # (n, 6)
    boards = np.empty((n, 16), dtype=np.uint64)
    boards[:, 0:6] = kinds & us[:, None]
    boards[:, 6:12] = kinds & them[:, None]
    boards[:, 12] = us
    boards[:, 13] = them
    boards[:, 14] = records["checkers"]
    ep = records["ep_square"].astype(np.int64)
    has_ep = ep < 64
    boards[:, 15] = np.where(has_ep, np.left_shift(np.uint64(1), np.where(
        has_ep, ep, 0).astype(np.uint64)), np.uint64(0))
    black = ~white_to_move
    boards[black] = boards[black].byteswap()  # vertical mirror for Black to move
    bits = _bits(boards)
    planes[:, 0:12] = bits[:, 0:12]
    planes[:, 14] = bits[:, 15]
    planes[:, 37] = bits[:, 12]
    planes[:, 38] = bits[:, 13]
    planes[:, 46] = bits[:, 14]

    repetition = records["repetition"]
    planes[:, 12] = (repetition >= 1)[:, None]
    planes[:, 13] = (repetition >= 2)[:, None]
    castling = records["castling"].astype(np.int64)
    own_shift = np.where(white_to_move, 0, 2)
    their_shift = np.where(white_to_move, 2, 0)
    planes[:, 15] = ((castling >> own_shift) & 1)[:, None]
    planes[:, 16] = ((castling >> (own_shift + 1)) & 1)[:, None]
    planes[:, 17] = ((castling >> their_shift) & 1)[:, None]
    planes[:, 18] = ((castling >> (their_shift + 1)) & 1)[:, None]
    halfmove_scale = np.float32(HALFMOVE_SCALE if normalize else 1.0)
    material_scale = np.float32(MATERIAL_SCALE if normalize else 1.0)
    planes[:, 19] = (records["halfmove"].astype(np.float32) / halfmove_scale)[:, None]

    moves = records["last_moves"].astype(np.int64).reshape(n, 16)  # (from, to) x 8
    valid = moves < 64
    squares = np.where(black[:, None], moves ^ 56, moves)
    rows, cols = np.nonzero(valid)
    planes[rows, 20 + cols, squares[rows, cols]] = 1.0

    planes[:, 36] = records["is960"][:, None]
    planes[:, 39] = _CHECKERBOARD
    own_counts = np.bitwise_count(kinds[:, :5] & us[:, None]).astype(np.float32)
    their_counts = np.bitwise_count(kinds[:, :5] & them[:, None]).astype(np.float32)
    planes[:, 40:45] = ((own_counts - their_counts) / material_scale)[:, :, None]
    bishops_us = records["bishops"] & us
    bishops_them = records["bishops"] & them
    light = np.uint64(chess.BB_LIGHT_SQUARES)
    opposite = ((np.bitwise_count(bishops_us) == 1) & (np.bitwise_count(bishops_them) == 1)
                & (((bishops_us & light) != 0) != ((bishops_them & light) != 0)))
    planes[:, 45] = opposite[:, None]
    planes[:, 47:52] = (own_counts / material_scale)[:, :, None]
    return planes.reshape(n, N_PLANES, 8, 8)


def board_to_planes(board: chess.Board, normalize: bool = True) -> npt.NDArray[np.float32]:
    """The ``(52, 8, 8)`` planes of one board, written out plane by plane from python-chess
    queries (an independent path from the record expansion, used to cross-check it)."""
    planes = np.zeros((N_PLANES, 8, 8), dtype=np.float32)
    us, them = board.turn, not board.turn

    def put(index: int, squares: chess.SquareSet | int) -> None:
        for square in chess.SquareSet(squares):
            square = square if us == chess.WHITE else chess.square_mirror(square)
            planes[index, chess.square_rank(square), chess.square_file(square)] = 1.0

    for offset, color in ((0, us), (6, them)):
        for piece_type in chess.PIECE_TYPES:
            put(offset + piece_type - 1, board.pieces_mask(piece_type, color))
    planes[12] = float(board.is_repetition(2))
    planes[13] = float(board.is_repetition(3))
    if board.ep_square is not None and board.has_legal_en_passant():
        put(14, chess.BB_SQUARES[board.ep_square])
    planes[15] = float(board.has_kingside_castling_rights(us))
    planes[16] = float(board.has_queenside_castling_rights(us))
    planes[17] = float(board.has_kingside_castling_rights(them))
    planes[18] = float(board.has_queenside_castling_rights(them))
    planes[19] = float(board.halfmove_clock)
    for k, move in enumerate(reversed(board.move_stack[-8:])):
        if move:
            put(20 + 2 * k, chess.BB_SQUARES[move.from_square])
            put(21 + 2 * k, chess.BB_SQUARES[move.to_square])
    planes[36] = float(board.chess960)
    put(37, board.occupied_co[us])
    put(38, board.occupied_co[them])
    for rank in range(8):
        for file in range(8):
            planes[39, rank, file] = (rank + file) % 2
    for k, piece_type in enumerate(chess.PIECE_TYPES[:5]):
        own = len(board.pieces(piece_type, us))
        planes[40 + k] = own - len(board.pieces(piece_type, them))
        planes[47 + k] = own
    our_bishops, their_bishops = board.pieces(chess.BISHOP, us), board.pieces(chess.BISHOP,
                                                                                them)
    if len(our_bishops) == 1 and len(their_bishops) == 1:
        a, b = next(iter(our_bishops)), next(iter(their_bishops))
        planes[45] = float(bool(chess.BB_LIGHT_SQUARES & chess.BB_SQUARES[a])
                           != bool(chess.BB_LIGHT_SQUARES & chess.BB_SQUARES[b]))
    put(46, board.checkers_mask())
    if normalize:
        planes /= _SCALES[:, None, None]
    return planes


# --- vectorised expansion (torch) ---------------------------------------------------------


def records_to_planes_torch(records: npt.NDArray[Any] | dict[str, torch.Tensor],
                            normalize: bool = True, device: str | torch.device | None = None
                            ) -> torch.Tensor:
    """The torch twin of :func:`records_to_planes`: ``(N, 52, 8, 8)`` float32 on ``device``.

    ``records`` is a RECORD_DTYPE array (moved to ``device``) or a dict of its columns as
    tensors already there (bitboards as int64 holding the same 64 bits).
    """
    import torch

    cols = records_to_torch(records, device) if isinstance(records, np.ndarray) else records
    dev = cols["white"].device
    n = cols["white"].shape[0]
    white_to_move = cols["turn"].to(torch.bool)
    us = torch.where(white_to_move, cols["white"], cols["black"])
    them = torch.where(white_to_move, cols["black"], cols["white"])
    kinds = torch.stack([cols[k] for k in ("pawns", "knights", "bishops", "rooks", "queens",
                                           "kings")], dim=1)
    ep = cols["ep_square"].to(torch.int64)
    has_ep = ep < 64
    ep_board = torch.where(has_ep, torch.ones_like(ep) << torch.where(has_ep, ep, 0),
                           torch.zeros_like(ep))
    boards = torch.cat([kinds & us[:, None], kinds & them[:, None], us[:, None],
                        them[:, None], cols["checkers"][:, None], ep_board[:, None]], dim=1)
    # int64 -> 8 little-endian bytes; reversing the bytes mirrors the ranks for Black.
    as_bytes = boards.contiguous().view(torch.uint8).reshape(n, 16, 8)
    as_bytes = torch.where(white_to_move[:, None, None], as_bytes, as_bytes.flip(-1))
    shifts = torch.arange(8, device=dev, dtype=torch.uint8)
    bits = ((as_bytes[..., None] >> shifts) & 1).reshape(n, 16, 64).to(torch.float32)
    planes = torch.zeros((n, N_PLANES, 64), dtype=torch.float32, device=dev)
    planes[:, 0:12] = bits[:, 0:12]
    planes[:, 14] = bits[:, 15]
    planes[:, 37] = bits[:, 12]
    planes[:, 38] = bits[:, 13]
    planes[:, 46] = bits[:, 14]
    repetition = cols["repetition"].to(torch.int64)
    planes[:, 12] = (repetition >= 1).to(torch.float32)[:, None]
    planes[:, 13] = (repetition >= 2).to(torch.float32)[:, None]
    castling = cols["castling"].to(torch.int64)
    own = torch.where(white_to_move, 0, 2)
    their = torch.where(white_to_move, 2, 0)
    for plane, shift in ((15, own), (16, own + 1), (17, their), (18, their + 1)):
        planes[:, plane] = ((castling >> shift) & 1).to(torch.float32)[:, None]
    halfmove_scale = HALFMOVE_SCALE if normalize else 1.0
    material_scale = MATERIAL_SCALE if normalize else 1.0
    planes[:, 19] = (cols["halfmove"].to(torch.float32) / halfmove_scale)[:, None]
    moves = cols["last_moves"].to(torch.int64).reshape(n, 16)
    valid = moves < 64
    squares = torch.where(white_to_move[:, None], moves, moves ^ 56)
    rows, slots = torch.nonzero(valid, as_tuple=True)
    planes[rows, 20 + slots, squares[rows, slots]] = 1.0
    planes[:, 36] = cols["is960"].to(torch.float32)[:, None]
    planes[:, 39] = torch.as_tensor(_CHECKERBOARD, device=dev)
    own_counts = bits[:, 0:5].sum(dim=-1)
    their_counts = bits[:, 6:11].sum(dim=-1)
    planes[:, 40:45] = ((own_counts - their_counts) / material_scale)[:, :, None]
    # Opposite-coloured bishops: one bishop each, on squares of different colours (the
    # mirror flips both colours alike, so the comparison is unaffected).
    light = torch.as_tensor(_LIGHT, device=dev)
    our_light = (bits[:, 2] * light).sum(dim=-1) > 0
    their_light = (bits[:, 8] * light).sum(dim=-1) > 0
    opposite = (own_counts[:, 2] == 1) & (their_counts[:, 2] == 1) & (our_light != their_light)
    planes[:, 45] = opposite.to(torch.float32)[:, None]
    planes[:, 47:52] = (own_counts / material_scale)[:, :, None]
    return planes.reshape(n, N_PLANES, 8, 8)


_TORCH_FIELDS: Final = ("white", "black", "pawns", "knights", "bishops", "rooks", "queens",
                        "kings", "checkers")


def records_to_torch(records: npt.NDArray[Any], device: str | torch.device | None = None
                     ) -> dict[str, torch.Tensor]:
    """RECORD_DTYPE columns as tensors (bitboards reinterpreted as int64, same bits)."""
    import torch

    records = _check_records(records)
    cols: dict[str, torch.Tensor] = {}
    for name in _TORCH_FIELDS:
        cols[name] = torch.from_numpy(records[name].view(np.int64).copy()).to(device)
    for name in ("last_moves", "ep_square", "castling", "turn", "repetition", "is960"):
        cols[name] = torch.from_numpy(np.ascontiguousarray(records[name])).to(device)
    for name in ("halfmove", "fullmove"):
        cols[name] = torch.from_numpy(records[name].astype(np.int32)).to(device)
    return cols


# --- the policy map ------------------------------------------------------------------------

# Queen-like directions as (d_rank, d_file): N, NE, E, SE, S, SW, W, NW.
_DIRECTIONS: Final = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
_KNIGHT: Final = ((2, 1), (1, 2), (-1, 2), (-2, 1), (-2, -1), (-1, -2), (1, -2), (2, -1))
_PROMO_PIECES: Final = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)

_DELTA_TO_PLANE: Final[dict[tuple[int, int], int]] = {
    **{(dr * d, df * d): i * 7 + d - 1 for i, (dr, df) in enumerate(_DIRECTIONS)
       for d in range(1, 8)},
    **{delta: 56 + i for i, delta in enumerate(_KNIGHT)},
}
_PLANE_TO_DELTA: Final[dict[int, tuple[int, int]]] = {v: k for k, v in _DELTA_TO_PLANE.items()}


def _castling_target(board: chess.Board, move: chess.Move) -> chess.Move:
    """A castling move as the king's two-square step (python-chess may give king-takes-rook)."""
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        file = 6 if board.is_kingside_castling(move) else 2
        return chess.Move(move.from_square, chess.square(file, rank))
    return move


def move_to_policy_index(move: chess.Move, board: chess.Board) -> int:
    """Index of ``move`` (legal in ``board``) in the 4864 policy vector."""
    move = _castling_target(board, move)
    from_sq, to_sq = move.from_square, move.to_square
    if board.turn == chess.BLACK:
        from_sq, to_sq = chess.square_mirror(from_sq), chess.square_mirror(to_sq)
    d_rank = chess.square_rank(to_sq) - chess.square_rank(from_sq)
    d_file = chess.square_file(to_sq) - chess.square_file(from_sq)
    if move.promotion is not None:
        if d_rank != 1 or abs(d_file) > 1:
            raise ValueError(f"not a promotion step: {move.uci()}")
        plane = 64 + 3 * _PROMO_PIECES.index(move.promotion) + d_file + 1
    else:
        try:
            plane = _DELTA_TO_PLANE[(d_rank, d_file)]
        except KeyError:
            raise ValueError(f"{move.uci()} is not a queen-like or knight move") from None
    return plane * 64 + from_sq


def policy_index_to_move(index: int, board: chess.Board) -> chess.Move:
    """The move of policy ``index`` in ``board`` (inverse of :func:`move_to_policy_index`;
    not necessarily legal). Castling comes back as the king's two-square step."""
    if not 0 <= index < POLICY_SIZE:
        raise ValueError(f"policy index {index} outside 0..{POLICY_SIZE - 1}")
    plane, from_sq = divmod(index, 64)
    promotion: int | None = None
    if plane >= 64:
        piece, step = divmod(plane - 64, 3)
        d_rank, d_file, promotion = 1, step - 1, _PROMO_PIECES[piece]
    else:
        d_rank, d_file = _PLANE_TO_DELTA[plane]
    rank = chess.square_rank(from_sq) + d_rank
    file = chess.square_file(from_sq) + d_file
    if not (0 <= rank < 8 and 0 <= file < 8):
        raise ValueError(f"policy index {index} leaves the board")
    to_sq = chess.square(file, rank)
    if board.turn == chess.BLACK:
        from_sq, to_sq = chess.square_mirror(from_sq), chess.square_mirror(to_sq)
    move = chess.Move(from_sq, to_sq, promotion=promotion)
    if board.chess960 and board.piece_type_at(from_sq) == chess.KING:
        for legal in board.generate_castling_moves():
            if _castling_target(board, legal) == move:
                return legal
    return move


def _policy_plane_lut() -> npt.NDArray[np.int16]:
    lut = np.full((64, 64), -1, dtype=np.int16)
    for from_sq in range(64):
        for (d_rank, d_file), plane in _DELTA_TO_PLANE.items():
            rank = chess.square_rank(from_sq) + d_rank
            file = chess.square_file(from_sq) + d_file
            if 0 <= rank < 8 and 0 <= file < 8:
                lut[from_sq, chess.square(file, rank)] = plane
    return lut


_PLANE_LUT: Final = _policy_plane_lut()
_PROMO_INDEX: Final = np.array([-1, -1, 0, 1, 2, 3, -1], dtype=np.int64)  # by piece type


def policy_indices(from_sq: npt.ArrayLike, to_sq: npt.ArrayLike, promotion: npt.ArrayLike,
                   white_to_move: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Vectorised :func:`move_to_policy_index` for standard chess (castling as the king's
    two-square step, as python-chess writes it): absolute squares, promotion piece type
    (0 for none) and the mover's colour in; policy indices out (-1 for an impossible move).
    """
    white = np.asarray(white_to_move, dtype=bool)
    src = np.asarray(from_sq, dtype=np.int64)
    dst = np.asarray(to_sq, dtype=np.int64)
    src = np.where(white, src, src ^ 56)
    dst = np.where(white, dst, dst ^ 56)
    promo = np.asarray(promotion, dtype=np.int64)
    plane = _PLANE_LUT[src, dst].astype(np.int64)
    promo_plane = 64 + 3 * _PROMO_INDEX[promo] + (dst % 8 - src % 8) + 1
    is_promo = promo > 0
    plane = np.where(is_promo, promo_plane, plane)
    valid = (plane >= 0) & (~is_promo | ((dst // 8 - src // 8 == 1) & (_PROMO_INDEX[promo] >= 0)))
    return np.where(valid, plane * 64 + src, -1)


def legal_policy_indices(board: chess.Board) -> tuple[list[chess.Move],
                                                      npt.NDArray[np.int64]]:
    """The legal moves of ``board`` and their policy indices (same order)."""
    moves = list(board.legal_moves)
    return moves, np.array([move_to_policy_index(m, board) for m in moves], dtype=np.int64)


def legal_mask(boards: Sequence[chess.Board]) -> npt.NDArray[np.bool_]:
    """``(N, 4864)`` mask of the legal moves of each board."""
    mask = np.zeros((len(boards), POLICY_SIZE), dtype=np.bool_)
    for row, board in enumerate(boards):
        mask[row, legal_policy_indices(board)[1]] = True
    return mask
