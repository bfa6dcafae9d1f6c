"""The phase explorer's games: read from a file, pasted text or an upload (:class:`GameSet`:
each skipped game named with its number and reason), and what every phase definition makes of
them (:func:`definition_strips`, :func:`game_phases`, :func:`phase_summary`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import chess

from chessmoe import phases
from chessmoe.games import pgn
from chessmoe.phases import Phase

__all__ = [
    "DEFAULT_GAMES",
    "EXPLORER_FILTERS",
    "TRIGGERS",
    "GamePhases",
    "GameSet",
    "PhaseSummary",
    "SampleGame",
    "SkippedGame",
    "StripRow",
    "default_games_path",
    "definition_strips",
    "game_phases",
    "load_games",
    "phase_summary",
    "read_pgn_bytes",
    "read_pgn_text",
]

#: The kit's human games (the first 100 of Lichess January 2013, CC0), in chessmoe/data.
DEFAULT_GAMES = "lichess-2013-01-first100.pgn"
#: What the explorer reads: any standard game with at least one move.
EXPLORER_FILTERS = pgn.PgnFilters(min_full_moves=0, require_decided=False,
                                  require_termination=False)
#: At most this many bytes of a pasted or uploaded PGN are read (a few thousand games).
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
PHASE_NAMES = {Phase.OPENING: "opening", Phase.MIDDLEGAME: "middlegame",
               Phase.ENDGAME: "endgame"}


def default_games_path() -> Path:
    """The kit's 100 human Lichess games (``chessmoe/data/lichess``)."""
    path = Path(str(resources.files("chessmoe") / "data" / "lichess" / DEFAULT_GAMES))
    if not path.exists():
        raise FileNotFoundError(f"the kit's Lichess games {path} are missing from this install")
    return path


@dataclass(frozen=True)
class SampleGame:
    """A game to replay: its number in its file (from 1), a label, its start and moves."""

    number: int
    label: str
    start_fen: str | None
    moves: tuple[chess.Move, ...]

    def boards(self) -> list[chess.Board]:
        """The start position and the board after every move."""
        board = chess.Board(self.start_fen) if self.start_fen else chess.Board()
        out = [board.copy(stack=False)]
        for move in self.moves:
            board.push(move)
            out.append(board.copy(stack=False))
        return out


@dataclass(frozen=True)
class SkippedGame:
    """A game the explorer could not read: its number in the file and why."""

    number: int
    reason: str  # a key of chessmoe.games.pgn.SKIP_REASONS
    detail: str = ""

    def text(self) -> str:
        """``game 2: not standard chess (Variant header or Chess960 castling): Chess960``."""
        why = pgn.SKIP_REASONS.get(self.reason, self.reason)
        return f"game {self.number}: {why}" + (f": {self.detail}" if self.detail else "")


@dataclass(frozen=True)
class GameSet:
    """The games read from one source (``source``: in words), kept and skipped.

    Each kept game has its number in the file, counting from 1 with skipped games included; a
    skipped game carries its reason (a Chess960 game: not standard chess). The explorer reads any
    standard game with a move (:data:`EXPLORER_FILTERS`): the paper's dataset filters (5 full moves,
    decided games) are not a teaching page's.
    """

    source: str
    games: tuple[SampleGame, ...]
    skipped: tuple[SkippedGame, ...] = ()

    @property
    def seen(self) -> int:
        return len(self.games) + len(self.skipped)

    def numbers(self) -> list[int]:
        return [g.number for g in self.games]

    def game(self, number: int) -> SampleGame:
        """The game with this number in the file, or ``ValueError`` in one line saying why
        there is none (skipped, and why; or beyond the games read)."""
        for g in self.games:
            if g.number == number:
                return g
        for s in self.skipped:
            if s.number == number:
                raise ValueError(f"{s.text()}, so it cannot be replayed")
        first, last = (self.games[0].number, self.games[-1].number) if self.games else (0, 0)
        raise ValueError(f"game {number} is not among the games read from {self.source} "
                         f"(games {first} to {last})")

    def report(self) -> str:
        """``97 of 100 games read from ...; skipped: game 1: ...; game 2: ...``."""
        head = f"{len(self.games)} of {self.seen} games read from {self.source}"
        return head + ("; skipped: " + "; ".join(s.text() for s in self.skipped)
                       if self.skipped else "")


@dataclass
class _Ledger(pgn.SkipCounter):
    """A skip counter that also keeps every skipped game's number (its place in the file)."""

    log: list[SkippedGame] = field(default_factory=list)

    def skip(self, reason: str, where: str, detail: str = "") -> None:
        super().skip(reason, where, detail)
        self.log.append(SkippedGame(self.seen, reason, detail))


def _label(record: pgn.PgnGame[chess.Board]) -> str:
    h = record.headers
    return (f"game {record.ordinal + 1}: {h.get('White', '?')} - {h.get('Black', '?')} "
            f"{record.result}, {len(record.moves)} plies")


def _read(path: Path, source: str, count: int) -> GameSet:
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"games must be a whole number from 1, got {count!r}")
    ledger = _Ledger()
    records: Iterable[pgn.PgnGame[chess.Board]] = pgn.iter_games(
        path, filters=EXPLORER_FILTERS, skips=ledger, max_games=count)
    games = tuple(SampleGame(r.ordinal + 1, _label(r), r.start_fen, tuple(r.moves))
                  for r in records)
    return GameSet(source, games, tuple(ledger.log))


def load_games(path: str | os.PathLike[str] | None = None, *, count: int = 100) -> GameSet:
    """The first ``count`` games of a PGN file (default: the kit's Lichess games). A file
    that cannot be read raises ``FileNotFoundError`` or :class:`chessmoe.games.pgn.PgnStreamError`
    with the path."""
    if path is None:
        target = default_games_path()
        return _read(target, "the kit's 100 Lichess games (January 2013, CC0)", count)
    target = Path(path)
    if not target.is_file():
        raise FileNotFoundError(f"no PGN file at {str(path)!r}")
    return _read(target, f"{target.name}", count)


def read_pgn_bytes(data: bytes, filename: str = "upload.pgn", *, count: int = 500,
                   source: str = "") -> GameSet:
    """The games of an uploaded PGN (``filename`` says its compression: ``.pgn``, ``.gz``,
    ``.bz2``, ``.zst``, ``.zip``). Raises ``ValueError`` for an empty or oversized upload."""
    if not data.strip():
        raise ValueError("the PGN is empty: paste or upload at least one game")
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"the PGN is {len(data):,} bytes; the explorer reads at most "
                         f"{MAX_UPLOAD_BYTES:,} (cut the file into smaller ones)")
    name = Path(filename).name or "upload.pgn"
    if not name.lower().endswith((".pgn", ".gz", ".bz2", ".zst", ".zip")):
        name += ".pgn"
    with tempfile.TemporaryDirectory(prefix="chessmoe-pgn-") as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        try:
            return _read(path, source or name, count)
        except pgn.PgnStreamError as error:
            raise ValueError(str(error).replace(str(path), name)) from None


def read_pgn_text(text: str, *, count: int = 500) -> GameSet:
    """The games of PGN text pasted into the page."""
    return read_pgn_bytes(text.encode("utf-8"), "pasted.pgn", count=count,
                          source="the pasted PGN")


# --- every definition at once ---------------------------------------------------------------


@dataclass(frozen=True)
class StripRow:
    """One definition's phase at every board of a game: ``labels[i]`` names the phase of board
    ``i`` (``group`` says which colour set draws it: "lichess", "movecount" or "tapered");
    the tapered row also carries its value in [0, 1] (1: all the material, middlegame)."""

    name: str
    group: str
    labels: tuple[str, ...]
    values: tuple[float, ...] = ()


def definition_strips(game: SampleGame) -> list[StripRow]:
    """The game under every definition: each mixedness table position by position and as a
    whole-game division, move-count phases for 2 to 5 phases, the tapered phase."""
    boards = game.boards()
    rows = []
    for table in phases.MIXEDNESS_TABLES:
        rows.append(StripRow(f"{table} table, position only", "lichess",
                             tuple(PHASE_NAMES[phases.lichess_phase(b, table)] for b in boards)))
        division = phases.lichess_division(boards, table)
        rows.append(StripRow(f"{table} table, whole-game division", "lichess",
                             tuple(PHASE_NAMES[p] for p in division.labels())))
    for n in range(2, 6):
        definition = phases.phase_definition(f"movecount{n}")
        rows.append(StripRow(f"move count, {n} phases", "movecount",
                             tuple(definition.phase_names[definition.phase(b)]
                                   for b in boards)))
    alphas = tuple(phases.tapered_alpha(b) for b in boards)
    rows.append(StripRow("tapered (Stockfish's material weight)", "tapered",
                         tuple(f"{a:.2f}" for a in alphas), alphas))
    return rows


# --- phase lengths and what starts the middlegame ---------------------------------------------

#: Which rule starts a game's middlegame (the division's first middlegame board), in the order
#: the page lists them.
TRIGGERS = ("mixedness alone", "back rank alone", "material alone", "several at once", "never")


@dataclass(frozen=True)
class GamePhases:
    """One game's whole-game division: plies in each phase (boards, the start position
    included) and what started its middlegame (:data:`TRIGGERS`)."""

    number: int
    plies: int
    middle: int | None
    end: int | None
    trigger: str
    opening: int
    middlegame: int
    endgame: int


def game_phases(game: SampleGame, table: str = "lichess") -> GamePhases:
    """The division of ``game`` under ``table``: phase lengths and the middlegame's trigger
    ("never" when the division has no middlegame)."""
    boards = game.boards()
    division = phases.lichess_division(boards, table)
    boards_n = len(boards)
    middle, end = division.middle, division.end
    first_later = min(x for x in (middle, end, boards_n) if x is not None)
    opening = first_later
    middlegame = ((end if end is not None else boards_n) - middle) if middle is not None else 0
    endgame = boards_n - end if end is not None else 0
    trigger = "never"
    if middle is not None:
        board = boards[middle]
        fired = [name for name, hit in (
            ("mixedness alone", phases.mixedness(board, table) > phases.MIXEDNESS_THRESHOLD),
            ("back rank alone", phases.backrank_sparse(board)),
            ("material alone", phases.majors_minors(board) <= phases.MIDDLEGAME_MAX_PIECES))
            if hit]
        trigger = fired[0] if len(fired) == 1 else "several at once"
    return GamePhases(game.number, len(game.moves), middle, end, trigger, opening, middlegame,
                      endgame)


@dataclass(frozen=True)
class PhaseSummary:
    """Phase lengths (in plies, per game reaching the phase) and middlegame triggers over a
    set of games under one mixedness table."""

    table: str
    games: tuple[GamePhases, ...]

    def trigger_counts(self) -> dict[str, int]:
        return {t: sum(g.trigger == t for g in self.games) for t in TRIGGERS}

    def trigger_shares(self) -> dict[str, float]:
        n = len(self.games)
        return {t: (c / n if n else 0.0) for t, c in self.trigger_counts().items()}

    def lengths(self, phase: str) -> list[int]:
        """Plies spent in ``phase`` by each game that reaches it."""
        return [getattr(g, phase) for g in self.games if getattr(g, phase) > 0]


def phase_summary(games: Sequence[SampleGame], table: str = "lichess") -> PhaseSummary:
    """:func:`game_phases` of every game."""
    if table not in phases.MIXEDNESS_TABLES:
        raise ValueError(f"table must be one of {', '.join(phases.MIXEDNESS_TABLES)}, "
                         f"got {table!r}")
    return PhaseSummary(table, tuple(game_phases(g, table) for g in games))
