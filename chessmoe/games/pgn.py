"""Streaming PGN reading with the paper's filters and counted skips.

:func:`iter_games` reads a source's blocks (:mod:`chessmoe.games.streams`), cuts them into
game chunks by a rule that looks at two lines only (:func:`_chunks`: the result never depends
on how a file is split between workers) and parses each chunk with python-chess through a
lean visitor. It keeps the games the paper's filters keep (App. E.1, :class:`PgnFilters`) and
counts every other game by reason in a :class:`SkipCounter`; nothing in a game stops the
stream, and a damaged compressed stream ends only its file or member (``stream_error``).
"""

from __future__ import annotations

import bisect
import os
import re
import typing
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Generic, TextIO, TypeVar

import chess
import chess.pgn

from chessmoe._io.errors import KitError
from chessmoe.games.streams import (
    PgnStreamError,
    TruncatedStream,
    file_blocks,
    open_streams,
    read_blocks,
    sniff_encoding,
    stream_errors,
    with_encoding,
    zip_members,
    zst_blocks,
)

__all__ = [
    "MAX_FULLMOVE",
    "MAX_GAME_BYTES",
    "SKIP_REASONS",
    "PgnFilters",
    "PgnGame",
    "PgnStreamError",
    "SkipCounter",
    "SourcePiece",
    "TruncatedStream",
    "game_offsets",
    "iter_games",
    "no_games_error",
    "open_streams",
    "plan_pieces",
    "probe_positions",
    "split_ranges",
    "zip_members",
    "zst_blocks",
]

T = TypeVar("T")

MAX_GAME_BYTES: Final = 16 * 1024 * 1024
"""A game chunk larger than this is counted as ``oversized`` and not parsed (the longest
real games with annotations are a few hundred kB)."""

SKIP_REASONS: dict[str, str] = {
    "too_short": "fewer full moves than the minimum",
    "unfinished": "result '*' (game not finished) or no Result header",
    "variant": "not standard chess (Variant header or Chess960 castling)",
    "bad_fen": "FEN/SetUp header that python-chess cannot load or that is out of range",
    "illegal_move": "a main-line move that is illegal or unparsable",
    "missing_termination": "movetext does not end with a result token (truncated game?)",
    "result_mismatch": "movetext result token differs from the Result header",
    "no_moves": "no moves in the main line",
    "headers_only": "a header block with no movetext (game cut off after its headers)",
    "unterminated": "a { comment or ( variation still open where the next game starts",
    "oversized": f"a game over {MAX_GAME_BYTES >> 20} MiB (not parsed)",
    "parse_error": "any other error raised while parsing the game",
    "stream_error": "a compressed stream or archive member could not be read to its end",
}

MAX_FULLMOVE: Final = 1_000_000_000
"""FEN full-move numbers above this are refused as ``bad_fen``: every move-number column
(int32) then holds the game's numbers exactly."""

_PIECE: Final = 1024  # longest movetext line handed to python-chess (its comment handling
# copies the rest of the line per comment: quadratic in the line length)
_STANDARD_VARIANTS = {"", "standard", "chess", "normal", "std", "chess standard"}
_RESULTS = {"1-0", "0-1", "1/2-1/2"}
_TAG_START = re.compile(rb'\[[A-Za-z0-9][A-Za-z0-9_+#=:-]*\s+"')
_BLANK_RUN = re.compile(rb"(?:[ \t\x0b\x0c]*\n)+")
_PARTIAL_BLANK = re.compile(rb"[ \t\x0b\x0c]*\Z")
_BRACKETS = re.compile(rb"[{}();]")
_MAY_OPEN = re.compile(rb"[{(;]")
# CR and NUL end lines; CRLF becomes " LF" so byte offsets stay those of the file.
_LINE_ENDS = bytes.maketrans(b"\r\x00", b"\n\n")


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
        """Games met in the input, kept or skipped (a stream error is counted as one: the
        game it cut off)."""
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

    def summary(self) -> str:
        """One line: games seen and the skip reasons with counts (for error messages)."""
        reasons = ", ".join(f"{reason} {count}" for reason, count in
                            sorted(self.skipped.items(), key=lambda kv: -kv[1]))
        return f"{self.seen} games seen, {self.kept} kept" + (f"; skipped: {reasons}"
                                                             if reasons else "")

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
class PgnGame(Generic[T]):
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


def no_games_error(spec: str, skips: SkipCounter) -> KitError:
    """The one-line error of a pass that kept no game: empty input, or every game filtered."""
    if skips.seen == 0:
        return KitError(f"{spec}: no games found (the file is empty or not PGN); check the "
                        "source")
    return KitError(f"{spec}: no game passed the filters ({skips.summary()}); check the "
                    "source or relax the filters")


# --- lines and game chunks -----------------------------------------------------------------


class _ByteLines:
    """Lines of a block stream with byte offsets, normalised line ends, fast skipping of
    blank runs, and a stream error turned into an early end (kept in ``error``)."""

    def __init__(self, blocks: Iterator[bytes], start: int = 0) -> None:
        self._blocks = blocks
        self._buf = b""
        self._pos = 0
        self._base = start  # offset of _buf[0]
        self._carry = b""  # a trailing CR held back until the next block shows its LF
        self._eof = False
        self.error: str | None = None
        self.error_offset = 0

    @property
    def offset(self) -> int:
        return self._base + self._pos

    def _fill(self) -> bool:
        """Append the next block; False at the end of the stream (or at its damage)."""
        if self._eof:
            return False
        try:
            block = next(self._blocks, None)
        except stream_errors() as error:
            self.error = f"{type(error).__name__}: {error}"
            self.error_offset = self._base + len(self._buf) + len(self._carry)
            block = None
        if block is None:
            self._eof = True
            data, self._carry = self._carry, b""
            if not data:
                return False
        else:
            data = self._carry + block
            self._carry = b""
            if data.endswith(b"\r"):
                data, self._carry = data[:-1], b"\r"
        data = data.replace(b"\r\n", b" \n").translate(_LINE_ENDS)
        self._base += self._pos
        self._buf = self._buf[self._pos:] + data
        self._pos = 0
        return True

    def readline(self, cap: int) -> tuple[bytes, int, int] | None:
        """``(line, offset, length)``; ``line`` keeps at most ``cap`` bytes of a longer one."""
        start = self.offset
        parts: list[bytes] = []
        kept = 0
        while True:
            nl = self._buf.find(b"\n", self._pos)
            if nl >= 0:
                piece = self._buf[self._pos:nl + 1]
                self._pos = nl + 1
            else:
                piece = self._buf[self._pos:]
                self._base += len(self._buf)
                self._buf, self._pos = b"", 0
            if kept < cap:
                parts.append(piece[:cap - kept])
                kept += len(parts[-1])
            if nl >= 0 or not self._fill():
                break
        length = self.offset - start
        if length == 0:
            return None
        return b"".join(parts), start, length

    def skip_blank(self) -> None:
        """Skip whole blank lines (a block at a time)."""
        while True:
            match = _BLANK_RUN.match(self._buf, self._pos)
            if match:
                self._pos = match.end()
            if self._pos < len(self._buf) and not _PARTIAL_BLANK.match(self._buf, self._pos):
                return
            if not self._fill():
                return


@dataclass
class _Chunk:
    """The lines of one game chunk (see the module docstring), with what the scan saw."""

    offset: int
    lines: list[tuple[bytes, int]] = field(default_factory=list)
    size: int = 0
    movetext: bool = False
    tags: bool = False
    in_comment: bool = False
    depth: int = 0

    def add(self, line: bytes, offset: int, length: int, is_header: bool) -> None:
        self.size += length
        if self.size <= MAX_GAME_BYTES:
            self.lines.append((line, offset))
        if is_header:
            self.tags = True
        elif line[:1] != b"%" or self.in_comment:
            if line.strip():
                self.movetext = True
            self._scan(line)

    def blank(self, offset: int, length: int) -> None:
        """A run of blank lines: one line for the parser; outside a comment it ends an
        open variation (python-chess ends the game there)."""
        self.size += length
        if self.size <= MAX_GAME_BYTES:
            self.lines.append((b"\n", offset))
        if not self.in_comment:
            self.depth = 0

    def _scan(self, line: bytes) -> None:
        """Track comment and variation nesting, as python-chess reads them."""
        if not self.in_comment and not self.depth and not _MAY_OPEN.search(line):
            return
        for match in _BRACKETS.finditer(line):
            char = match.group()
            if self.in_comment:
                if char == b"}":
                    self.in_comment = False
            elif char == b"{":
                self.in_comment = True
            elif char == b";":
                return
            elif char == b"(":
                self.depth += 1
            elif char == b")" and self.depth:
                self.depth -= 1

    @property
    def unterminated(self) -> bool:
        return self.in_comment or self.depth > 0


def _is_header(line: bytes) -> bool:
    return line[:1] == b"[" and line[:2] != b"[%"


def _chunks(lines: _ByteLines, end: int | None) -> Iterator[_Chunk]:
    """Cut a stream into game chunks; stop at the first chunk starting at or after ``end``.

    A chunk starts at a tag-pair line whose previous line is not a header line, or at
    the first non-blank line of the stream; blank runs inside a chunk become one line.
    The rule is local, so an unterminated ``{`` comment or ``(`` variation ends at the next
    game's headers (counted ``unterminated``), a game cut off after its headers is its own
    skip (``headers_only``), and byte ranges of a plain file read exactly the games a single
    pass reads.
    """
    current: _Chunk | None = None
    previous_header = False
    while (item := lines.readline(MAX_GAME_BYTES + 1)) is not None:
        line, offset, length = item
        if not line.strip():
            lines.skip_blank()
            previous_header = False
            if current is not None:
                current.blank(offset, length)
            continue
        header = _is_header(line)
        if current is None or (header and not previous_header
                               and _TAG_START.match(line) is not None):
            if current is not None:
                yield current
            if end is not None and offset >= end:
                return
            current = _Chunk(offset)
        previous_header = header
        current.add(line, offset, length, header)
    if current is not None:
        yield current


def _decode(line: bytes) -> tuple[str, bool]:
    """UTF-8, else Latin-1 (KingBase files are Latin-1): names come out right, no byte is
    lost; the flag says the fallback was used."""
    try:
        return line.decode("utf-8"), False
    except UnicodeDecodeError:
        return line.decode("latin-1"), True


def _pieces(text: str) -> list[str]:
    """A movetext line cut at spaces into lines of about :data:`_PIECE` characters, where
    that cannot change how python-chess reads it (no ``;`` comment is cut short, no piece
    starts with ``%`` or is blank): a line of 500k comments costs linear time."""
    if len(text) <= _PIECE:
        return [text]
    limit = text.find(";")
    limit = len(text) if limit < 0 else limit
    out: list[str] = []
    start = 0
    while limit - start > _PIECE:
        cut = text.find(" ", start + _PIECE, limit)
        while cut >= 0 and (text[cut + 1:cut + 2] in ("", " ", "%", "\n")
                            or not text[start:cut].strip()):
            cut = text.find(" ", cut + 1, limit)
        if cut < 0:
            break
        out.append(text[start:cut] + "\n")
        start = cut + 1
    out.append(text[start:])
    return out


class _ChunkText:
    """``readline()`` over a chunk's decoded lines, knowing the byte offset of each."""

    def __init__(self, chunk: _Chunk) -> None:
        self.latin1 = 0
        self._lines: list[tuple[str, int]] = []
        for raw, offset in chunk.lines:
            text, latin1 = _decode(raw)
            self.latin1 += latin1
            if _is_header(raw):
                self._lines.append((text, offset))
            else:
                self._lines.extend((piece, offset) for piece in _pieces(text))
        self._next = 0

    def readline(self) -> str:
        if self._next >= len(self._lines):
            return ""
        self._next += 1
        return self._lines[self._next - 1][0]

    def next_game_start(self) -> int | None:
        """Skip blank and escape lines; the offset of the next content line, or None."""
        while self._next < len(self._lines):
            text, offset = self._lines[self._next]
            if text.strip() and text[:1] not in ("%", ";"):
                return offset
            self._next += 1
        return None


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
        self.started = False

    def begin_game(self) -> None:
        self.started = True
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
            if board.fullmove_number > MAX_FULLMOVE:
                self.skip_reason = self.skip_reason or "bad_fen"
        if self.extract is not None and self.skip_reason is None:
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
        detail = visitor.headers.get("Variant", visitor.headers.get("Result", ""))
        if visitor.skip_reason == "bad_fen":
            detail = f"full-move number over {MAX_FULLMOVE}: {visitor.headers.get('FEN')}"
        return visitor.skip_reason, detail
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


# --- reading games -------------------------------------------------------------------------


def iter_games(path: str | os.PathLike[str], *, filters: PgnFilters | None = None,
               skips: SkipCounter | None = None,
               extract: Callable[[chess.Board], T] | None = None,
               byte_range: tuple[int, int | None] | None = None,
               member: str | None = None,
               max_games: int | None = None) -> Iterator[PgnGame[T]]:
    """Stream the kept games of one source file (every member of a zip).

    ``byte_range=(start, end)`` (plain ``.pgn`` only, ``start`` from
    :func:`split_ranges`) reads the games whose chunk starts at a byte offset in
    ``[start, end)``, so disjoint ranges split a file between workers without losing or
    repeating a game. ``max_games`` stops after that many games *seen* (kept or
    skipped). ``member`` reads one member of a zip archive.
    """
    filters = filters or PgnFilters()
    skips = skips if skips is not None else SkipCounter()
    path = Path(path)
    if byte_range is not None:
        if not path.name.lower().endswith(".pgn"):
            raise PgnStreamError(f"{path}: byte ranges need an uncompressed .pgn file")
        start, end = byte_range
        if start == 0:
            blocks, skip = with_encoding(path.name, file_blocks(path))
            yield from _iter_stream(path.name, blocks, skip, end, filters, skips, extract,
                                    max_games)
            return
        with open(path, "rb") as raw:
            raw.seek(start)
            yield from _iter_stream(path.name, read_blocks(raw), start, end, filters,
                                    skips, extract, max_games)
        return
    seen = 0
    for label, raw_blocks in open_streams(path, member):
        budget = None if max_games is None else max_games - seen
        if budget is not None and budget <= 0:
            return
        before = skips.seen
        blocks, skip = with_encoding(label, raw_blocks)
        yield from _iter_stream(label, blocks, skip, None, filters, skips, extract, budget)
        seen += skips.seen - before


def _iter_stream(label: str, blocks: Iterator[bytes], start: int, end: int | None,
                 filters: PgnFilters, skips: SkipCounter,
                 extract: Callable[[chess.Board], T] | None,
                 max_games: int | None) -> Iterator[PgnGame[T]]:
    lines = _ByteLines(blocks, start)
    visitor: _Visitor[T] = _Visitor(extract, filters)
    ordinal = 0
    for chunk in _chunks(lines, end):
        if max_games is not None and ordinal >= max_games:
            return
        where = f"{label}@{chunk.offset}"
        if chunk.size > MAX_GAME_BYTES:
            skips.skip("oversized", where, f"{chunk.size} bytes")
            ordinal += 1
            continue
        if not chunk.movetext:
            if chunk.tags:
                skips.skip("headers_only", where, "no movetext before the next game")
                ordinal += 1
            continue
        text = _ChunkText(chunk)
        skips.latin1_lines += text.latin1
        while (offset := text.next_game_start()) is not None:
            if max_games is not None and ordinal >= max_games:
                return
            where = f"{label}@{offset}"
            ordinal += 1
            visitor.started = False
            try:
                chess.pgn.read_game(typing.cast(TextIO, text), Visitor=lambda: visitor)
            except Exception as error:  # python-chess bug on hostile input: count it
                skips.skip("parse_error", where, f"{type(error).__name__}: {error}")
                continue
            if not visitor.started:  # only escape lines left: not a game
                ordinal -= 1
                break
            if chunk.unterminated and text.next_game_start() is None:
                what = "{ comment" if chunk.in_comment else "( variation"
                skips.skip("unterminated", where, f"{what} not closed")
                break
            reason, detail = _classify(visitor, filters)
            if reason is not None:
                skips.skip(reason, where, detail)
                continue
            skips.kept += 1
            yield PgnGame(source=label, offset=offset, ordinal=ordinal - 1,
                             headers=dict(visitor.headers),
                             start_fen=visitor.headers.get("FEN"),
                             moves=list(visitor.moves), result=visitor.headers["Result"],
                             boards=list(visitor.boards))
    if lines.error is not None:
        # A damaged compressed stream: counted once, after the games read before it.
        skips.skip("stream_error", f"{label}@{lines.error_offset}", lines.error)


def game_offsets(path: str | os.PathLike[str]) -> Iterator[int]:
    """Byte offsets of the game chunks of a plain ``.pgn`` file (the cut points of
    :func:`split_ranges`), by the same rule the reader uses."""
    path = Path(path)
    blocks, skip = with_encoding(path.name, file_blocks(path))
    for chunk in _chunks(_ByteLines(blocks, skip), None):
        yield chunk.offset


def _ascii_compatible(path: Path) -> bool:
    with open(path, "rb") as raw:
        return sniff_encoding(raw.read(64)) in (None, "utf-8-sig")


def split_ranges(path: str | os.PathLike[str], parts: int) -> list[tuple[int, int | None]]:
    """Split a plain ``.pgn`` into at most ``parts`` byte ranges of similar size, cut at
    game chunks.

    The ranges cover the file without gap or overlap, so with
    ``iter_games(path, byte_range=r)`` every game is read by exactly one range. A
    UTF-16/32 file is one range (its offsets are those of the transcoded text).
    """
    path = Path(path)
    size = path.stat().st_size
    if parts <= 1 or not _ascii_compatible(path):
        return [(0, None)]
    offsets = list(game_offsets(path))
    if len(offsets) < 2:
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

    def games(self, **kwargs: Any) -> Iterator[PgnGame[Any]]:
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
        cuts: Iterable[tuple[str | None, tuple[int, int | None] | None]]
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


def probe_positions(path: str | os.PathLike[str], count: int,
                    plies: int = 20) -> list[chess.Board]:
    """``count`` real-game positions for timing a search: each of the first games of ``path``
    played ``plies`` half-moves in (at most half its length), games already over skipped."""
    boards: list[chess.Board] = []
    game: PgnGame[Any]
    for game in iter_games(path, max_games=count * 10 + 20):
        board = chess.Board(game.start_fen) if game.start_fen else chess.Board()
        for move in game.moves[:min(plies, len(game.moves) // 2)]:
            board.push(move)
        if not board.is_game_over():
            boards.append(board)
        if len(boards) >= count:
            break
    return boards
