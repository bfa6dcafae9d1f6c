"""Streaming PGN reading with the paper's filters and counted skips.

* Sources: ``.pgn``, ``.pgn.gz``, ``.pgn.bz2``, ``.pgn.zst`` and ``.zip`` archives of
  PGN files (KingBase ships one), read as streams: memory stays flat however
  large the file.
* Text: each line is decoded as UTF-8, falling back to Latin-1 (KingBase files
  are Latin-1), so player names come out right and no byte is lost.
* Filters (paper App. E.1): at least ``min_full_moves`` full moves (``2 * n``
  plies), a decided result (not ``*``), standard chess only.
* Every game that is not kept is counted by reason in a :class:`SkipCounter`
  with a few examples naming file, byte offset and problem. Nothing in a game
  can stop the stream; an unreadable compressed stream stops only that file.
* Games are parsed once with python-chess's own parser through a lean visitor
  (no game tree is built); an ``extract`` callback sees every main-line board,
  so callers get per-position values without replaying the game.
"""

from __future__ import annotations

import bisect
import bz2
import gzip
import io
import os
import typing
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Generic, TextIO, TypeVar

import chess
import chess.pgn

__all__ = [
    "SKIP_REASONS",
    "GameRecord",
    "PgnFilters",
    "PgnStreamError",
    "SkipCounter",
    "SourcePiece",
    "game_offsets",
    "iter_games",
    "open_streams",
    "plan_pieces",
    "split_ranges",
    "zip_members",
]

T = TypeVar("T")

SKIP_REASONS: dict[str, str] = {
    "too_short": "fewer full moves than the minimum",
    "unfinished": "result '*' (game not finished) or no Result header",
    "variant": "not standard chess (Variant header or Chess960 castling)",
    "bad_fen": "FEN/SetUp header that python-chess cannot load",
    "illegal_move": "a main-line move that is illegal or unparsable",
    "missing_termination": "movetext does not end with a result token (truncated game?)",
    "result_mismatch": "movetext result token differs from the Result header",
    "no_moves": "no moves in the main line",
    "parse_error": "any other error raised while parsing the game",
    "stream_error": "a compressed stream or archive member could not be read to its end",
}

_STANDARD_VARIANTS = {"", "standard", "chess", "normal", "std", "chess standard"}
_RESULTS = {"1-0", "0-1", "1/2-1/2"}


class PgnStreamError(RuntimeError):
    """A source file could not be opened at all (missing file, unknown format)."""


@dataclass(frozen=True)
class PgnFilters:
    """The paper's game filters; every field can be relaxed."""

    min_full_moves: int = 5
    require_decided: bool = True
    standard_only: bool = True
    require_termination: bool = True

    @property
    def min_plies(self) -> int:
        return 2 * self.min_full_moves


@dataclass
class SkipCounter:
    """Kept and skipped games, counted by reason, with a few located examples."""

    kept: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    latin1_lines: int = 0
    max_examples: int = 5

    def skip(self, reason: str, where: str, detail: str = "") -> None:
        if reason not in SKIP_REASONS:
            raise ValueError(f"unknown skip reason {reason!r}")
        self.skipped[reason] += 1
        examples = self.examples.setdefault(reason, [])
        if len(examples) < self.max_examples:
            examples.append(f"{where}: {detail}" if detail else where)

    @property
    def seen(self) -> int:
        return self.kept + sum(self.skipped.values())

    def merge(self, other: SkipCounter) -> None:
        self.kept += other.kept
        self.skipped.update(other.skipped)
        self.latin1_lines += other.latin1_lines
        for reason, items in other.examples.items():
            mine = self.examples.setdefault(reason, [])
            mine.extend(items[: max(0, self.max_examples - len(mine))])

    def to_dict(self) -> dict[str, Any]:
        return {"seen": self.seen, "kept": self.kept,
                "skipped": dict(sorted(self.skipped.items())),
                "examples": {k: list(v) for k, v in sorted(self.examples.items())},
                "latin1_lines": self.latin1_lines}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SkipCounter:
        return cls(kept=int(data["kept"]), skipped=Counter(data.get("skipped", {})),
                   examples={k: list(v) for k, v in data.get("examples", {}).items()},
                   latin1_lines=int(data.get("latin1_lines", 0)))

    def report(self) -> str:
        """A few human-readable lines: kept, skipped by reason, first examples."""
        lines = [f"games seen {self.seen}, kept {self.kept}, skipped "
                 f"{sum(self.skipped.values())}"]
        for reason, count in sorted(self.skipped.items(), key=lambda kv: -kv[1]):
            lines.append(f"  {reason:<20} {count:>8}  ({SKIP_REASONS[reason]})")
            for example in self.examples.get(reason, [])[:2]:
                lines.append(f"      e.g. {example}")
        if self.latin1_lines:
            lines.append(f"  ({self.latin1_lines} lines were not UTF-8 and were read as "
                         "Latin-1)")
        return "\n".join(lines)


@dataclass
class GameRecord(Generic[T]):
    """One kept game: where it came from, its headers, moves and extracted boards."""

    source: str  # file name, or "archive.zip/member.pgn"
    offset: int  # byte offset of the game's first line in its (decompressed) stream
    ordinal: int  # 0-based position of the game in its stream/range, skipped games included
    headers: dict[str, str]
    start_fen: str | None  # None for the standard starting position
    moves: list[chess.Move]
    result: str
    boards: list[T]  # extract(board) for the start position and after every move

    @property
    def plies(self) -> int:
        return len(self.moves)


# --- opening streams ----------------------------------------------------------------------


def _open_binary(path: Path) -> IO[bytes]:
    name = path.name.lower()
    if name.endswith(".gz"):
        return typing.cast(IO[bytes], gzip.open(path, "rb"))
    if name.endswith(".bz2"):
        return bz2.open(path, "rb")
    if name.endswith(".zst"):
        import zstandard

        raw = open(path, "rb")  # noqa: SIM115 - closed by the wrapper below
        reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
        return io.BufferedReader(reader, buffer_size=1 << 20)
    return open(path, "rb")


def zip_members(path: str | os.PathLike[str]) -> list[str]:
    """Names of the PGN members of a zip archive, in name order."""
    try:
        with zipfile.ZipFile(path) as archive:
            return sorted(n for n in archive.namelist()
                          if n.lower().endswith(".pgn") and not n.endswith("/"))
    except zipfile.BadZipFile as error:
        raise PgnStreamError(f"{path} is not a readable zip archive: {error}") from error


def open_streams(path: str | os.PathLike[str], member: str | None = None
                 ) -> Iterator[tuple[str, IO[bytes]]]:
    """Yield ``(label, binary stream)`` for a PGN file or each PGN member of a zip
    (only ``member`` when given).

    Zip members are read in name order, never extracted; members that are not
    PGN (by extension) are ignored. Raises :class:`PgnStreamError` for a missing
    file or a damaged zip directory.
    """
    path = Path(path)
    if not path.exists():
        raise PgnStreamError(f"PGN source {path} does not exist")
    if path.is_dir():
        raise PgnStreamError(f"PGN source {path} is a directory; pass its files")
    if path.name.lower().endswith(".zip"):
        try:
            archive = zipfile.ZipFile(path)
        except zipfile.BadZipFile as error:
            raise PgnStreamError(f"{path} is not a readable zip archive: {error}") from error
        with archive:
            members = sorted(n for n in archive.namelist()
                             if n.lower().endswith(".pgn") and not n.endswith("/"))
            if member is not None:
                if member not in members:
                    raise PgnStreamError(f"{path} has no PGN member {member!r}")
                members = [member]
            for name in members:
                with archive.open(name) as handle:
                    yield f"{path.name}/{name}", handle
        return
    with _open_binary(path) as handle:
        yield path.name, handle


class _Lines:
    """``readline()`` over a binary stream: UTF-8 with Latin-1 fallback, byte offsets,
    one line of push-back, and an optional byte limit for game starts."""

    def __init__(self, stream: IO[bytes], start: int = 0) -> None:
        self._stream = stream
        self.offset = start  # offset of the next unread byte
        self._pending: tuple[str, int] | None = None
        self.latin1 = 0

    def _raw(self) -> tuple[str, int]:
        data = self._stream.readline()
        where = self.offset
        self.offset += len(data)
        try:
            return data.decode("utf-8"), where
        except UnicodeDecodeError:
            self.latin1 += 1
            return data.decode("latin-1"), where

    def readline(self) -> str:
        if self._pending is not None:
            line, _ = self._pending
            self._pending = None
            return line
        return self._raw()[0]

    def next_game_start(self) -> int | None:
        """Skip blank lines; return the offset of the next non-blank line (kept
        pending) or ``None`` at the end of the stream."""
        while True:
            line, where = self._pending if self._pending is not None else self._raw()
            self._pending = None
            if not line:
                return None
            if not line.isspace():
                self._pending = (line, where)
                return where


# --- the visitor --------------------------------------------------------------------------


class _Visitor(chess.pgn.BaseVisitor[None], Generic[T]):
    def __init__(self, extract: Callable[[chess.Board], T] | None,
                 filters: PgnFilters) -> None:
        self.extract = extract
        self.filters = filters
        self.headers: dict[str, str] = {}
        self.moves: list[chess.Move] = []
        self.boards: list[T] = []
        self.errors: list[str] = []
        self.token: str | None = None
        self.skip_reason: str | None = None
        self.board_seen = False

    def begin_game(self) -> None:
        self.headers = {}
        self.moves = []
        self.boards = []
        self.errors = []
        self.token = None
        self.skip_reason = None
        self.board_seen = False

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def end_headers(self) -> chess.pgn.SkipType | None:
        variant = self.headers.get("Variant", "").strip().lower()
        if self.filters.standard_only and variant not in _STANDARD_VARIANTS:
            self.skip_reason = "variant"
            return chess.pgn.SKIP
        if self.filters.require_decided and self.headers.get("Result", "*") not in _RESULTS:
            self.skip_reason = "unfinished"
            return chess.pgn.SKIP
        return None

    def begin_variation(self) -> chess.pgn.SkipType:
        return chess.pgn.SKIP

    def visit_board(self, board: chess.Board) -> None:
        if self.errors:
            return  # python-chess revisits the unchanged board after a bad move
        if not self.board_seen:
            self.board_seen = True
            if self.filters.standard_only and board.chess960:
                self.skip_reason = self.skip_reason or "variant"
        if self.extract is not None:
            self.boards.append(self.extract(board))

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if not self.errors:
            self.moves.append(move)

    def visit_result(self, result: str) -> None:
        self.token = result

    def handle_error(self, error: Exception) -> None:
        self.errors.append(f"{type(error).__name__}: {error}")

    def result(self) -> None:
        return None


def _classify(visitor: _Visitor[Any], filters: PgnFilters) -> tuple[str | None, str]:
    """The skip reason of a parsed game (``None`` to keep it) and a detail text."""
    if visitor.skip_reason is not None:
        return visitor.skip_reason, visitor.headers.get("Variant", visitor.headers.get(
            "Result", ""))
    if visitor.errors:
        text = visitor.errors[0]
        if "variant" in text.lower():
            return "variant", text
        if not visitor.board_seen:
            return ("bad_fen" if "FEN" in visitor.headers else "parse_error"), text
        return "illegal_move", f"after {len(visitor.moves)} plies: {text}"
    if not visitor.board_seen:
        return "bad_fen", visitor.headers.get("FEN", "")
    if not visitor.moves:
        return "no_moves", ""
    header = visitor.headers.get("Result", "*")
    if filters.require_termination and visitor.token is None:
        return "missing_termination", f"{len(visitor.moves)} plies, Result {header}"
    if visitor.token is not None and visitor.token != header and header in _RESULTS:
        return "result_mismatch", f"header {header}, movetext {visitor.token}"
    if filters.require_decided and header not in _RESULTS:
        return "unfinished", header
    if len(visitor.moves) < filters.min_plies:
        return "too_short", f"{len(visitor.moves)} plies"
    return None, ""


def iter_games(path: str | os.PathLike[str], *, filters: PgnFilters | None = None,
               skips: SkipCounter | None = None,
               extract: Callable[[chess.Board], T] | None = None,
               byte_range: tuple[int, int | None] | None = None,
               member: str | None = None,
               max_games: int | None = None) -> Iterator[GameRecord[T]]:
    """Stream the kept games of one source file (every member of a zip).

    ``byte_range=(start, end)`` (plain ``.pgn`` only) reads the games whose first
    line starts at a byte offset in ``[start, end)``, so disjoint ranges split a
    file between workers without losing or repeating a game. ``max_games`` stops
    after that many games *seen* (kept or skipped). ``member`` reads one member
    of a zip archive.
    """
    filters = filters or PgnFilters()
    skips = skips if skips is not None else SkipCounter()
    path = Path(path)
    if byte_range is not None:
        if path.suffix.lower() != ".pgn":
            raise PgnStreamError(f"byte ranges need an uncompressed .pgn file, not {path}")
        start, end = byte_range
        with open(path, "rb") as raw:
            raw.seek(start)
            yield from _iter_stream(path.name, raw, start, end, filters, skips, extract,
                                    max_games)
        return
    seen = 0
    for label, stream in open_streams(path, member):
        budget = None if max_games is None else max_games - seen
        if budget is not None and budget <= 0:
            return
        before = skips.seen
        yield from _iter_stream(label, stream, 0, None, filters, skips, extract, budget)
        seen += skips.seen - before


def _iter_stream(label: str, stream: IO[bytes], start: int, end: int | None,
                 filters: PgnFilters, skips: SkipCounter,
                 extract: Callable[[chess.Board], T] | None,
                 max_games: int | None) -> Iterator[GameRecord[T]]:
    lines = _Lines(stream, start)
    visitor: _Visitor[T] = _Visitor(extract, filters)
    ordinal = 0
    try:
        while max_games is None or ordinal < max_games:
            offset = lines.next_game_start()
            if offset is None or (end is not None and offset >= end):
                break
            where = f"{label}@{offset}"
            try:
                chess.pgn.read_game(typing.cast(TextIO, lines), Visitor=lambda: visitor)
            except _stream_errors():
                raise
            except Exception as error:
                skips.skip("parse_error", where, f"{type(error).__name__}: {error}")
                ordinal += 1
                continue
            reason, detail = _classify(visitor, filters)
            if reason is not None:
                skips.skip(reason, where, detail)
            else:
                skips.kept += 1
                yield GameRecord(source=label, offset=offset, ordinal=ordinal,
                                 headers=dict(visitor.headers),
                                 start_fen=visitor.headers.get("FEN"),
                                 moves=list(visitor.moves),
                                 result=visitor.headers["Result"],
                                 boards=list(visitor.boards))
            ordinal += 1
    except _stream_errors() as error:
        # A damaged compressed stream: count it, keep what was read, go on with the next.
        skips.skip("stream_error", f"{label}@{lines.offset}", f"{type(error).__name__}: "
                   f"{error}")
    finally:
        skips.latin1_lines += lines.latin1


def _stream_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that mean the byte stream itself is damaged (not one game)."""
    errors: list[type[BaseException]] = [OSError, EOFError, zipfile.BadZipFile]
    try:
        import zstandard

        errors.append(zstandard.ZstdError)
    except ImportError:  # pragma: no cover - zstandard is a dependency
        pass
    return tuple(errors)


def game_offsets(path: str | os.PathLike[str]) -> Iterator[int]:
    """Byte offsets of game starts in a plain ``.pgn`` file: a header line (``[``)
    at the start of the file or after a blank line."""
    with open(path, "rb") as raw:
        offset = 0
        previous_blank = True
        for line in raw:
            if previous_blank and line.startswith(b"["):
                yield offset
            previous_blank = not line.strip()
            offset += len(line)


def split_ranges(path: str | os.PathLike[str], parts: int) -> list[tuple[int, int | None]]:
    """Split a plain ``.pgn`` into at most ``parts`` byte ranges of similar size,
    cut at game starts.

    The ranges cover the file without gap or overlap, so with
    ``iter_games(path, byte_range=r)`` every game is read by exactly one range.
    """
    size = Path(path).stat().st_size
    offsets = list(game_offsets(path))
    if parts <= 1 or len(offsets) < 2:
        return [(0, None)]
    cuts = [0]
    for i in range(1, parts):
        target = size * i // parts
        lo = bisect.bisect_left(offsets, target)  # first game start at or after target
        if lo < len(offsets) and offsets[lo] > cuts[-1]:
            cuts.append(offsets[lo])
    return [(cuts[i], cuts[i + 1] if i + 1 < len(cuts) else None) for i in range(len(cuts))]


@dataclass(frozen=True)
class SourcePiece:
    """The part of a source one worker reads: a file, or one member of a zip, or one
    byte range of a plain ``.pgn``. ``id`` is stable and orders the pieces."""

    id: str
    path: str
    member: str | None = None
    byte_range: tuple[int, int | None] | None = None

    def games(self, **kwargs: Any) -> Iterator[GameRecord[Any]]:
        """:func:`iter_games` over this piece (keyword arguments passed on)."""
        return iter_games(self.path, member=self.member, byte_range=self.byte_range, **kwargs)


def plan_pieces(files: Sequence[str | os.PathLike[str]], parts: int | None = None, *,
                workers: int = 1, whole: bool = False) -> list[SourcePiece]:
    """Cut source files into pieces for parallel passes: zip archives by member, plain
    ``.pgn`` files into ``parts`` byte ranges (default: four per worker, one without
    workers), compressed files whole (``whole``: no cut)."""
    if parts is None:
        parts = 4 * workers if workers > 1 else 1
    pieces: list[SourcePiece] = []
    for index, path in enumerate(map(Path, files)):
        name = path.name.lower()
        cuts: list[tuple[str | None, tuple[int, int | None] | None]]
        if whole:
            cuts = [(None, None)]
        elif name.endswith(".zip"):
            cuts = [(member, None) for member in zip_members(path)]
        elif name.endswith(".pgn") and parts > 1:
            cuts = [(None, r) for r in split_ranges(path, parts)]
        else:
            cuts = [(None, None)]
        pieces += [SourcePiece(f"{index:03d}-{part:04d}", str(path), member, byte_range)
                   for part, (member, byte_range) in enumerate(cuts)]
    return pieces
