"""The byte streams of PGN sources: plain, ``.gz``, ``.bz2`` and ``.zst`` files and the PGN
members of ``.zip`` archives, read as blocks (flat memory), with a UTF-8 BOM skipped and
UTF-16/32 text transcoded to UTF-8. :mod:`chessmoe.games.pgn` cuts the blocks into games.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import os
import typing
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Final

import zstandard

from chessmoe._io.errors import KitError

__all__ = [
    "PgnStreamError",
    "TruncatedStream",
    "file_blocks",
    "open_streams",
    "read_blocks",
    "sniff_encoding",
    "stream_errors",
    "with_encoding",
    "zip_members",
    "zst_blocks",
]

_BLOCK: Final = 1 << 16  # small: a corrupt spot loses at most one block of decoded text
_MAGIC: Final = ((b"\x1f\x8b", ".gz"), (b"BZh", ".bz2"), (b"\x28\xb5\x2f\xfd", ".zst"),
                 (b"PK\x03\x04", ".zip"))


class PgnStreamError(KitError):
    """A source file cannot be read at all (missing, a directory, unreadable zip directory,
    misnamed compressed data); the message names the file and the fix."""


class TruncatedStream(EOFError):
    """A compressed stream ended inside a frame."""


def stream_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that mean the byte stream itself is damaged (not one game)."""
    return (OSError, EOFError, zipfile.BadZipFile, zlib.error, zstandard.ZstdError)


def read_blocks(stream: IO[bytes]) -> Iterator[bytes]:
    """Blocks of a binary stream; ``read1`` makes at most one read of the layer below, so
    the data decoded before a corrupt spot is delivered before the error is raised."""
    read = getattr(stream, "read1", stream.read)
    while block := read(_BLOCK):
        yield block


def zst_blocks(raw: IO[bytes]) -> Iterator[bytes]:
    """Decompressed blocks of a (multi-frame) ``.zst`` stream (a file or an HTTP response);
    raises :class:`TruncatedStream`
    when the input ends inside a frame, which zstandard's stream reader accepts silently."""
    decompressor = zstandard.ZstdDecompressor(max_window_size=1 << 31)
    frame = decompressor.decompressobj()
    started = False
    while data := raw.read(_BLOCK):
        while data:
            started = True
            out = frame.decompress(data)
            if out:
                yield out
            if not frame.eof:
                break
            data = frame.unused_data
            frame, started = decompressor.decompressobj(), False
    if started:
        raise TruncatedStream("the .zst stream ends inside a frame (truncated download?)")


def sniff_encoding(head: bytes) -> str | None:
    """The encoding of a PGN that is not ASCII-compatible (BOM, or the NUL pattern of
    UTF-16/32 text), ``"utf-8-sig"`` for a UTF-8 BOM, else ``None``."""
    for bom, name in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                      (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
                      (codecs.BOM_UTF16_BE, "utf-16")):  # "utf-16"/"utf-32" drop the BOM
        if head.startswith(bom):
            if name == "utf-8-sig":
                return name
            # trust a UTF-16/32 BOM only when the text after it has that encoding's NUL
            # pattern (PGN is ASCII): two stray bytes in front of UTF-8 text are not UTF-16
            after = (sniff_encoding(head[len(bom):len(bom) + 64])
                     if len(head) > len(bom) + 8 else name)
            return name if after is not None and after.startswith(name) else None
    sample = head[:64]
    if len(sample) < 8:
        return None
    for name, period, where in (("utf-32-le", 4, (1, 2, 3)), ("utf-32-be", 4, (0, 1, 2)),
                                ("utf-16-le", 2, (1,)), ("utf-16-be", 2, (0,))):
        n = len(sample) - len(sample) % period
        zeros = all(sample[i + k] == 0 for i in range(0, n, period) for k in where)
        text = [sample[i + k] for i in range(0, n, period) for k in range(period)
                if k not in where]
        if zeros and sum(b == 0 for b in text) <= len(text) // 8:
            return name
    return None


def _transcode(blocks: Iterator[bytes], encoding: str) -> Iterator[bytes]:
    """Re-encode UTF-16/32 blocks as UTF-8 (undecodable units become U+FFFD)."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    for block in blocks:
        yield decoder.decode(block).encode("utf-8")
    yield decoder.decode(b"", final=True).encode("utf-8")


def with_encoding(label: str, blocks: Iterator[bytes]) -> tuple[Iterator[bytes], int]:
    """Look at the first block: skip a UTF-8 BOM (returning its length), transcode UTF-16/32
    (by BOM or NUL pattern), refuse compressed data under a plain ``.pgn`` name with a message
    naming the right suffix."""
    try:
        first = next(blocks, b"")
    except stream_errors() as error:  # damaged at once: let the reader count it
        failed = error

        def failing() -> Iterator[bytes]:
            yield from ()
            raise failed

        return failing(), 0
    for magic, suffix in _MAGIC:
        if first.startswith(magic):
            raise PgnStreamError(f"{label} holds {suffix} compressed data but is read as "
                                 f"plain PGN; rename it to end in {suffix}")
    encoding = sniff_encoding(first)

    skip = len(codecs.BOM_UTF8) if encoding == "utf-8-sig" else 0

    def chained() -> Iterator[bytes]:
        yield first[skip:]
        yield from blocks

    if encoding is None or encoding == "utf-8-sig":
        return chained(), skip
    return _transcode(chained(), encoding), 0


def file_blocks(path: Path) -> Iterator[bytes]:
    """Decompressed blocks of a ``.pgn``, ``.gz``, ``.bz2`` or ``.zst`` file."""
    name = path.name.lower()
    if name.endswith(".zst"):
        with open(path, "rb") as raw:
            yield from zst_blocks(raw)
        return
    handle: IO[bytes]
    if name.endswith(".gz"):
        handle = typing.cast(IO[bytes], gzip.open(path, "rb"))  # noqa: SIM115 - closed below
    elif name.endswith(".bz2"):
        handle = typing.cast(IO[bytes], bz2.open(path, "rb"))  # noqa: SIM115 - closed below
    else:
        handle = open(path, "rb")  # noqa: SIM115 - closed below
    with handle:
        yield from read_blocks(handle)


def _member_blocks(archive: zipfile.ZipFile, name: str) -> Iterator[bytes]:
    """Blocks of one zip member, opened lazily so that a member that cannot be opened is a
    stream error of that member (counted by the reader), not a crash of the whole archive:
    a damaged local header can name an unsupported compression method or set flags that
    zipfile refuses with NotImplementedError or RuntimeError (encryption)."""
    try:
        with archive.open(name) as handle:
            yield from read_blocks(handle)
    except (NotImplementedError, RuntimeError) as error:
        raise zipfile.BadZipFile(f"{name}: {error}") from error


def _zip_pgn_names(archive: zipfile.ZipFile) -> list[str]:
    return sorted(n for n in archive.namelist()
                  if n.lower().endswith(".pgn") and not n.endswith("/"))


# What zipfile raises on opening a damaged archive directory: besides BadZipFile, an entry
# may claim an unsupported zip version (NotImplementedError) or a UTF-8 name that does not
# decode (UnicodeDecodeError, a ValueError).
_DAMAGED_DIRECTORY = (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, ValueError)


def zip_members(path: str | os.PathLike[str]) -> list[str]:
    """Names of the PGN members of a zip archive, in name order."""
    try:
        with zipfile.ZipFile(path) as archive:
            return _zip_pgn_names(archive)
    except _DAMAGED_DIRECTORY as error:
        raise PgnStreamError(f"{path}: not a readable zip archive ({error}); download it "
                             "again") from error


def open_streams(path: str | os.PathLike[str], member: str | None = None
                 ) -> Iterator[tuple[str, Iterator[bytes]]]:
    """Yield ``(label, decompressed blocks)`` for a PGN file or each PGN member of a zip
    (only ``member`` when given).

    Zip members are read in name order, never extracted; members that are not PGN (by
    extension) are ignored. Raises :class:`PgnStreamError` for a missing file or a
    damaged zip directory; damage inside a stream is raised while its blocks are read.
    """
    path = Path(path)
    if not path.exists():
        raise PgnStreamError(f"{path}: PGN source does not exist; check the path")
    if path.is_dir():
        raise PgnStreamError(f"{path}: PGN source is a directory; pass its files")
    if path.name.lower().endswith(".zip"):
        try:
            archive = zipfile.ZipFile(path)
        except _DAMAGED_DIRECTORY as error:
            raise PgnStreamError(f"{path}: not a readable zip archive ({error}); download "
                                 "it again") from error
        with archive:
            members = _zip_pgn_names(archive)
            if member is not None:
                if member not in members:
                    raise PgnStreamError(f"{path} has no PGN member {member!r}")
                members = [member]
            for name in members:
                yield f"{path.name}/{name}", _member_blocks(archive, name)
        return
    yield path.name, file_blocks(path)
