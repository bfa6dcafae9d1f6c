"""Game phases: the Lichess definition (the paper's gate), move-count phases, tapered phase,
following ``docs/phases.md``: :func:`lichess_phase` labels one position, :func:`lichess_division`
splits a whole game forward-only (as scalachess's ``Divider``), :func:`movecount_phase` is the
2-5 phase rule of the paper's Fig. 7, :func:`tapered_alpha` a Stockfish-style continuous phase,
and :func:`phase_definition` the registry by name that datasets, search and figures use.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import chess
import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import chess.pgn

__all__ = [
    "MIXEDNESS_TABLES",
    "PHASE_DEFINITIONS",
    "BoardBatch",
    "Division",
    "LichessPhases",
    "MoveCountPhases",
    "Phase",
    "PhaseDefinition",
    "WindowScore",
    "backrank_sparse",
    "division_batch",
    "lichess_division",
    "lichess_phase",
    "lichess_phase_batch",
    "majors_minors",
    "middlegame_trigger",
    "mixedness",
    "mixedness_batch",
    "mixedness_tables",
    "movecount_boundaries",
    "movecount_phase",
    "phase_definition",
    "tapered_alpha",
    "tapered_alpha_batch",
    "window_scores",
]

U64 = npt.NDArray[np.uint64]
I8 = npt.NDArray[np.int8]
I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]


class Phase(enum.IntEnum):
    """The three classical phases; the value is the phase id used everywhere."""

    OPENING = 0
    MIDDLEGAME = 1
    ENDGAME = 2


# --- constants of the Lichess definition -------------------------------------------------

ENDGAME_MAX_PIECES: Final = 6  # m <= 6 -> endgame
MIDDLEGAME_MAX_PIECES: Final = 10  # m <= 10 -> middlegame trigger
MIXEDNESS_THRESHOLD: Final = 150  # mixedness > 150 (strict) -> middlegame trigger
BACKRANK_MIN_PIECES: Final = 4  # fewer than 4 own pieces on the back rank -> sparse

MIXEDNESS_TABLES: Final = ("lichess", "lichess-2025", "engine")


def _score_lichess(w: int, b: int, y: int) -> int:
    """Window score of the table in force 2017 - June 2025 (scalachess ``Divider``)."""
    if (w, b) == (1, 0):
        return 9 - y
    if (w, b) == (2, 0):
        return y if y > 2 else 0
    if (w, b) in ((3, 0), (4, 0)):
        return y + 2 if y > 1 else 0
    if (w, b) == (0, 1):
        return 1 + y
    if (w, b) == (0, 2):
        return 8 - y if y < 6 else 0
    if (w, b) in ((0, 3), (0, 4)):
        return 10 - y if y < 7 else 0
    if (w, b) == (1, 1):
        return 5 + abs(3 - y)
    if (w, b) == (2, 1):
        return 4 + y
    if (w, b) == (3, 1):
        return 5 + y
    if (w, b) == (1, 2):
        return 10 - y
    if (w, b) == (2, 2):
        return 7
    if (w, b) == (1, 3):
        return 11 - y
    return 0


def _score_lichess_2025(w: int, b: int, y: int) -> int:
    """scalachess since 2025-06-03: the mixed windows made colour-symmetric."""
    mixed = {(1, 1): 5 + abs(4 - y), (2, 1): 3 + y, (3, 1): 4 + y, (1, 2): 11 - y,
             (1, 3): 12 - y}
    return mixed.get((w, b), _score_lichess(w, b, y))


def _score_engine(w: int, b: int, y: int) -> int:
    """The authors' C++ engine: a failed rank guard gives the base constant, not 0."""
    if (w, b) == (2, 0) and y <= 2:
        return 2
    if (w, b) in ((3, 0), (4, 0)) and y == 1:
        return 3
    if (w, b) == (0, 2) and y >= 6:
        return 2
    if (w, b) in ((0, 3), (0, 4)) and y == 7:
        return 3
    return _score_lichess(w, b, y)


_SCORERS: dict[str, Callable[[int, int, int], int]] = {
    "lichess": _score_lichess,
    "lichess-2025": _score_lichess_2025,
    "engine": _score_engine,
}

# 49 windows: lower-left corner on files a-g, ranks 1-7. Window k = 7 * rank + file.
_WINDOW_MASKS: Final[tuple[int, ...]] = tuple(
    0x303 << (8 * rank + file) for rank in range(7) for file in range(7))
_WINDOW_ROW: Final = np.repeat(np.arange(7), 7)  # rank index (y - 1) of window k
_WINDOW_MASKS_NP: Final = np.array(_WINDOW_MASKS, dtype=np.uint64)


def _lut(table: str) -> npt.NDArray[np.int16]:
    scorer = _SCORERS[table]
    return np.array([[[scorer(w, b, y + 1) for b in range(5)] for w in range(5)]
                     for y in range(7)], dtype=np.int16)


_LUT: Final[dict[str, npt.NDArray[np.int16]]] = {t: _lut(t) for t in MIXEDNESS_TABLES}
# Per-window flat score rows (index 5 * w + b) for the scalar path.
_LUT_ROWS: Final[dict[str, tuple[tuple[int, tuple[int, ...]], ...]]] = {
    t: tuple((mask, tuple(int(v) for v in _LUT[t][k // 7].reshape(-1)))
             for k, mask in enumerate(_WINDOW_MASKS))
    for t in MIXEDNESS_TABLES
}
# Window-flat LUT for the vectorised path: index (k * 25 + 5 * w + b).
_LUT_FLAT: Final[dict[str, npt.NDArray[np.int16]]] = {
    t: _LUT[t][_WINDOW_ROW].reshape(-1) for t in MIXEDNESS_TABLES}


def _check_table(table: str) -> None:
    if table not in _LUT:
        raise ValueError(f"unknown mixedness table {table!r}; known: {', '.join(_LUT)}")


def mixedness_tables(table: str) -> tuple[U64, npt.NDArray[np.int16]]:
    """What :func:`mixedness_batch` reads of ``table``, for a compiled copy of it: the 49
    window masks and the window-flat scores (index ``k * 25 + 5 * w + b``)."""
    _check_table(table)
    return _WINDOW_MASKS_NP, _LUT_FLAT[table]


# --- per-board features --------------------------------------------------------------------


def mixedness(board: chess.BaseBoard, table: str = "lichess") -> int:
    """Lichess mixedness: sum of window scores over the 49 overlapping 2x2 windows."""
    _check_table(table)
    white = board.occupied_co[chess.WHITE]
    black = board.occupied_co[chess.BLACK]
    occupied = white | black
    total = 0
    for mask, row in _LUT_ROWS[table]:
        if occupied & mask:
            total += row[5 * (white & mask).bit_count() + (black & mask).bit_count()]
    return total


@dataclass(frozen=True)
class WindowScore:
    """One 2x2 window of the mixedness sum: its lower-left square (``file`` 0-6 = a-g,
    ``rank`` 1-7 = the window's ``y``), its white and black pieces and its score."""

    file: int
    rank: int
    white: int
    black: int
    score: int

    @property
    def squares(self) -> tuple[int, int, int, int]:
        """The window's four squares (python-chess square indices)."""
        low = chess.square(self.file, self.rank - 1)
        return (low, low + 1, low + 8, low + 9)

    @property
    def name(self) -> str:
        """``e4-f5``: the window's lower-left and upper-right squares."""
        low, _, _, high = self.squares
        return f"{chess.square_name(low)}-{chess.square_name(high)}"


def window_scores(board: chess.BaseBoard, table: str = "lichess") -> list[WindowScore]:
    """The 49 windows of :func:`mixedness` with their scores (empty windows score 0); their
    scores sum to the mixedness. For teaching: which windows make the number."""
    _check_table(table)
    white = board.occupied_co[chess.WHITE]
    black = board.occupied_co[chess.BLACK]
    out = []
    for k, mask in enumerate(_WINDOW_MASKS):
        w, b = (white & mask).bit_count(), (black & mask).bit_count()
        rank = k // 7 + 1
        score = int(_LUT[table][rank - 1, w, b]) if w + b else 0
        out.append(WindowScore(file=k % 7, rank=rank, white=w, black=b, score=score))
    return out


def majors_minors(board: chess.BaseBoard) -> int:
    """``m``: queens, rooks, bishops and knights of both colours."""
    return (board.knights | board.bishops | board.rooks | board.queens).bit_count()


def backrank_sparse(board: chess.BaseBoard) -> bool:
    """White has < 4 own pieces on rank 1, or Black < 4 own pieces on rank 8."""
    return ((board.occupied_co[chess.WHITE] & chess.BB_RANK_1).bit_count() < BACKRANK_MIN_PIECES
            or (board.occupied_co[chess.BLACK] & chess.BB_RANK_8).bit_count()
            < BACKRANK_MIN_PIECES)


def middlegame_trigger(board: chess.BaseBoard, table: str = "lichess") -> bool:
    """``m <= 10`` or a sparse back rank or mixedness > 150 (true in endgames too)."""
    return (majors_minors(board) <= MIDDLEGAME_MAX_PIECES or backrank_sparse(board)
            or mixedness(board, table) > MIXEDNESS_THRESHOLD)


def lichess_phase(board: chess.BaseBoard, table: str = "lichess") -> Phase:
    """The Lichess phase of one position (the paper's gate; Markov, "position-only"):
    endgame if the majors+minors count ``m <= 6``; middlegame if ``m <= 10`` or a back rank
    is sparse or the mixedness exceeds 150; else opening."""
    if majors_minors(board) <= ENDGAME_MAX_PIECES:
        return Phase.ENDGAME
    if middlegame_trigger(board, table):
        return Phase.MIDDLEGAME
    return Phase.OPENING


# --- whole-game division -------------------------------------------------------------------


@dataclass(frozen=True)
class Division:
    """A forward-only split of a game: opening ``[0, middle)``, middlegame
    ``[middle, end)``, endgame ``[end, plies]`` (indices = plies played).

    ``middle`` is ``None`` when no middlegame trigger fires or when it fires at
    the same index as the endgame; ``end`` is ``None`` when the game never reaches
    ``m <= 6``. ``plies`` is the number of moves played (boards = plies + 1).
    """

    middle: int | None
    end: int | None
    plies: int

    def phase_at(self, index: int) -> Phase:
        """The division phase of the board after ``index`` plies."""
        if not 0 <= index <= self.plies:
            raise IndexError(f"index {index} outside 0..{self.plies}")
        if self.end is not None and index >= self.end:
            return Phase.ENDGAME
        if self.middle is not None and index >= self.middle:
            return Phase.MIDDLEGAME
        return Phase.OPENING

    def labels(self) -> list[Phase]:
        """The division phase of every board, start position included."""
        return [self.phase_at(i) for i in range(self.plies + 1)]


def _game_boards(game_or_boards: chess.pgn.Game | Iterable[chess.BaseBoard]
                 ) -> Iterable[chess.BaseBoard]:
    import chess.pgn

    if isinstance(game_or_boards, chess.pgn.GameNode):
        board = game_or_boards.board()
        yield board.copy(stack=False)
        for move in game_or_boards.mainline_moves():
            board.push(move)
            yield board.copy(stack=False)
    else:
        yield from game_or_boards


def lichess_division(game_or_boards: chess.pgn.Game | Iterable[chess.BaseBoard],
                     table: str = "lichess") -> Division:
    """Divide a game (a ``chess.pgn.Game`` or its boards, start position first)."""
    _check_table(table)
    middle: int | None = None
    end: int | None = None
    count = 0
    for index, board in enumerate(_game_boards(game_or_boards)):
        count = index + 1
        if middle is None and middlegame_trigger(board, table):
            middle = index
        if end is None and majors_minors(board) <= ENDGAME_MAX_PIECES:
            end = index
    if count == 0:
        raise ValueError("a game needs at least its starting position")
    if middle is not None and end is not None and middle >= end:
        middle = None
    return Division(middle=middle, end=end, plies=count - 1)


# --- move count and tapered phase --------------------------------------------------------

AVERAGE_GAME_LENGTH: Final = 42.85  # full moves, the paper's fixed constant


def movecount_phase_length(n_phases: int) -> int:
    """Full moves per phase: ``round(42.85 / n_phases)``."""
    if not 1 <= n_phases <= 42:
        raise ValueError(f"n_phases must be in 1..42, got {n_phases}")
    return round(AVERAGE_GAME_LENGTH / n_phases)


def movecount_phase(board: chess.Board, n_phases: int) -> int:
    """``min(moves_completed // round(42.85 / n), n - 1)``, moves_completed = fullmove - 1."""
    length = movecount_phase_length(n_phases)
    return min((board.fullmove_number - 1) // length, n_phases - 1)


def movecount_boundaries(n_phases: int) -> list[tuple[int, int | None]]:
    """Completed-move ranges of each phase, e.g. ``[(0, 13), (14, 27), (28, None)]``."""
    length = movecount_phase_length(n_phases)
    return [(i * length, (i + 1) * length - 1 if i < n_phases - 1 else None)
            for i in range(n_phases)]


NPM_MIN: Final = 3915  # Stockfish's endgame limit (non-pawn material)
NPM_MAX: Final = 15258  # Stockfish's middlegame limit
PIECE_NPM: Final = {chess.KNIGHT: 764, chess.BISHOP: 826, chess.ROOK: 1282, chess.QUEEN: 2500}


def tapered_alpha(board: chess.BaseBoard) -> float:
    """Continuous phase in [0, 1]: 1 with full material, 0 once NPM <= 3915."""
    npm = (764 * board.knights.bit_count() + 826 * board.bishops.bit_count()
           + 1282 * board.rooks.bit_count() + 2500 * board.queens.bit_count())
    return (min(max(npm, NPM_MIN), NPM_MAX) - NPM_MIN) / (NPM_MAX - NPM_MIN)


# --- vectorised (batch) features -------------------------------------------------------


@dataclass(frozen=True)
class BoardBatch:
    """Bitboards of N positions as ``uint64`` arrays (absolute colours) plus the
    full-move number: everything the phase definitions need, vectorised (the ``*_batch``
    functions count bits with ``np.bitwise_count``; the per-board ones with Python integer
    popcounts)."""

    white: U64
    black: U64
    pawns: U64
    knights: U64
    bishops: U64
    rooks: U64
    queens: U64
    kings: U64
    fullmove: I32

    FIELDS = ("white", "black", "pawns", "knights", "bishops", "rooks", "queens", "kings")

    def __len__(self) -> int:
        return int(self.white.shape[0])

    @classmethod
    def from_boards(cls, boards: Sequence[chess.BaseBoard]) -> BoardBatch:
        """Pack python-chess boards (``fullmove`` is 1 for a ``BaseBoard``)."""
        cols: dict[str, Any] = {
            "white": [b.occupied_co[chess.WHITE] for b in boards],
            "black": [b.occupied_co[chess.BLACK] for b in boards],
            **{name: [getattr(b, name) for b in boards] for name in cls.FIELDS[2:]},
        }
        arrays = {k: np.array(v, dtype=np.uint64).reshape(-1) for k, v in cols.items()}
        fullmove = np.array([getattr(b, "fullmove_number", 1) for b in boards],
                            dtype=np.int32).reshape(-1)
        return cls(fullmove=fullmove, **arrays)

    @classmethod
    def from_columns(cls, columns: Any) -> BoardBatch:
        """From anything indexable by field name (numpy structured array, DataFrame, dict)."""
        arrays = {k: np.asarray(columns[k], dtype=np.uint64) for k in cls.FIELDS}
        return cls(fullmove=np.asarray(columns["fullmove"], dtype=np.int32), **arrays)

    def take(self, index: npt.NDArray[np.intp] | slice) -> BoardBatch:
        """A sub-batch (positions selected by ``index``)."""
        return BoardBatch(fullmove=self.fullmove[index],
                          **{k: getattr(self, k)[index] for k in self.FIELDS})


def _popcount(x: U64) -> npt.NDArray[np.uint8]:
    return np.bitwise_count(x)


def majors_minors_batch(batch: BoardBatch) -> npt.NDArray[np.uint8]:
    return _popcount(batch.knights | batch.bishops | batch.rooks | batch.queens)


def backrank_sparse_batch(batch: BoardBatch) -> npt.NDArray[np.bool_]:
    rank1 = np.uint64(chess.BB_RANK_1)
    rank8 = np.uint64(chess.BB_RANK_8)
    return ((_popcount(batch.white & rank1) < BACKRANK_MIN_PIECES)
            | (_popcount(batch.black & rank8) < BACKRANK_MIN_PIECES))


def mixedness_batch(white: U64, black: U64, table: str = "lichess",
                    chunk: int = 65536) -> I16:
    """Mixedness of N positions from their colour bitboards (chunked, vectorised)."""
    _check_table(table)
    lut = _LUT_FLAT[table]
    offsets = (np.arange(49, dtype=np.int32) * 25)[None, :]
    white = np.asarray(white, dtype=np.uint64)
    black = np.asarray(black, dtype=np.uint64)
    out = np.empty(white.shape[0], dtype=np.int16)
    for start in range(0, white.shape[0], chunk):
        w = _popcount(white[start:start + chunk, None] & _WINDOW_MASKS_NP[None, :])
        b = _popcount(black[start:start + chunk, None] & _WINDOW_MASKS_NP[None, :])
        index = offsets + 5 * w.astype(np.int32) + b.astype(np.int32)
        out[start:start + chunk] = lut[index].sum(axis=1, dtype=np.int32)
    return out


def middlegame_trigger_batch(batch: BoardBatch, table: str = "lichess",
                             mix: I16 | None = None) -> npt.NDArray[np.bool_]:
    mix = mixedness_batch(batch.white, batch.black, table) if mix is None else mix
    return ((majors_minors_batch(batch) <= MIDDLEGAME_MAX_PIECES)
            | backrank_sparse_batch(batch) | (mix > MIXEDNESS_THRESHOLD))


def lichess_phase_batch(batch: BoardBatch, table: str = "lichess",
                        mix: I16 | None = None) -> I8:
    """Lichess phase ids of N positions."""
    phase = np.where(middlegame_trigger_batch(batch, table, mix), np.int8(1), np.int8(0))
    phase[majors_minors_batch(batch) <= ENDGAME_MAX_PIECES] = 2
    return phase.astype(np.int8)


def movecount_phase_batch(fullmove: I32, n_phases: int) -> I8:
    length = movecount_phase_length(n_phases)
    completed = np.maximum(np.asarray(fullmove, dtype=np.int64) - 1, 0)
    result: I8 = np.minimum(completed // length, n_phases - 1).astype(np.int8)
    return result


def tapered_alpha_batch(batch: BoardBatch) -> npt.NDArray[np.float64]:
    npm = (764 * _popcount(batch.knights).astype(np.int64)
           + 826 * _popcount(batch.bishops).astype(np.int64)
           + 1282 * _popcount(batch.rooks).astype(np.int64)
           + 2500 * _popcount(batch.queens).astype(np.int64))
    alpha: npt.NDArray[np.float64] = (np.clip(npm, NPM_MIN, NPM_MAX) - NPM_MIN) / (
        NPM_MAX - NPM_MIN)
    return alpha


def division_batch(batch: BoardBatch, game_starts: npt.NDArray[np.intp],
                   table: str = "lichess", mix: I16 | None = None
                   ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], I8]:
    """Forward-only division of many games at once.

    ``batch`` holds the boards of consecutive games, each in ply order starting
    with its initial position; ``game_starts`` are the offsets of each game's first
    board (increasing, first 0). Returns per game ``middle`` and ``end`` (ply index,
    -1 for none) and per position the division phase id.
    """
    n = len(batch)
    starts = np.asarray(game_starts, dtype=np.intp)
    if n == 0:
        empty = np.zeros(0, dtype=np.int32)
        return empty, empty.copy(), np.zeros(0, dtype=np.int8)
    if starts.size == 0 or starts[0] != 0 or np.any(np.diff(starts) <= 0) or starts[-1] >= n:
        raise ValueError("game_starts must be increasing offsets starting at 0")
    game_of = np.repeat(np.arange(starts.size), np.diff(np.append(starts, n)))
    ply = np.arange(n) - starts[game_of]
    big = np.iinfo(np.int32).max
    trig = middlegame_trigger_batch(batch, table, mix)
    endg = majors_minors_batch(batch) <= ENDGAME_MAX_PIECES
    mid = np.minimum.reduceat(np.where(trig, ply, big), starts)
    end = np.minimum.reduceat(np.where(endg, ply, big), starts)
    mid = np.where(mid >= end, big, mid)  # dropped when equal to end (mid <= end always)
    phase = np.zeros(n, dtype=np.int8)
    phase[ply >= mid[game_of]] = 1
    phase[ply >= end[game_of]] = 2
    middle = np.where(mid == big, -1, mid).astype(np.int32)
    endgame = np.where(end == big, -1, end).astype(np.int32)
    return middle, endgame, phase


# --- the registry ------------------------------------------------------------------------


class PhaseDefinition(abc.ABC):
    """A named way to assign a phase id ``0..n_phases-1`` to a position."""

    name: str
    n_phases: int
    phase_names: tuple[str, ...]
    description: str

    @abc.abstractmethod
    def phase(self, board: chess.Board) -> int:
        """Phase id of one position."""

    @abc.abstractmethod
    def phases(self, batch: BoardBatch) -> I8:
        """Phase ids of N positions (vectorised; equal to :meth:`phase` per position)."""

    def __repr__(self) -> str:
        return f"<PhaseDefinition {self.name!r}: {', '.join(self.phase_names)}>"


class LichessPhases(PhaseDefinition):
    """Lichess position-only phases with a selectable mixedness table."""

    def __init__(self, table: str = "lichess") -> None:
        _check_table(table)
        self.table = table
        self.name = table
        self.n_phases = 3
        self.phase_names = ("opening", "middlegame", "endgame")
        self.description = (f"Lichess phase per position, mixedness table {table!r}: endgame "
                            "if m <= 6; middlegame if m <= 10, sparse back rank or "
                            "mixedness > 150; else opening")

    def phase(self, board: chess.Board) -> int:
        return int(lichess_phase(board, self.table))

    def phases(self, batch: BoardBatch) -> I8:
        return lichess_phase_batch(batch, self.table)


class MoveCountPhases(PhaseDefinition):
    """``n`` phases by completed full moves (the paper's Fig. 7 experiment)."""

    def __init__(self, n_phases: int) -> None:
        if not 2 <= n_phases <= 5:
            raise ValueError("the kit registers move-count definitions for 2..5 phases")
        self.n_phases = n_phases
        self.name = f"movecount{n_phases}"
        self.boundaries = movecount_boundaries(n_phases)
        self.phase_names = tuple(
            f"moves {lo}-{hi}" if hi is not None else f"moves {lo}+"
            for lo, hi in self.boundaries)
        self.description = (f"{n_phases} phases by completed full moves, "
                            f"{movecount_phase_length(n_phases)} moves each, last open-ended")

    def phase(self, board: chess.Board) -> int:
        return movecount_phase(board, self.n_phases)

    def phases(self, batch: BoardBatch) -> I8:
        return movecount_phase_batch(batch.fullmove, self.n_phases)


_REGISTRY: Final[dict[str, Callable[[], PhaseDefinition]]] = {
    "lichess": lambda: LichessPhases("lichess"),
    "lichess-2025": lambda: LichessPhases("lichess-2025"),
    "engine": lambda: LichessPhases("engine"),
    **{f"movecount{n}": (lambda n=n: MoveCountPhases(n)) for n in range(2, 6)},  # type: ignore[misc]
}
PHASE_DEFINITIONS: Final = tuple(_REGISTRY)


def phase_definition(name: str) -> PhaseDefinition:
    """The phase definition registered under ``name``."""
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown phase definition {name!r}; known: "
                         f"{', '.join(PHASE_DEFINITIONS)}") from None
    return factory()
