"""Download public game databases safely: verified, atomic, resumable by reuse, offline-aware.

Every download streams to a temporary file beside its destination and is renamed into place
only after its size and checksum (when known) have been verified, so an interrupted or
corrupted transfer never leaves a file under its final name. Lichess months are large
(30+ GB compressed for recent ones); ``fetch_lichess_month(first=N)`` decompresses the
``.zst`` straight from the HTTP response and stops reading after the N-th game.
Zip archives are extracted only after every member has been checked (no absolute paths,
no ``..``, no symlinks, bounded size and compression ratio).
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import io
import json
import os
import re
import stat
import urllib.error
import urllib.request
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, BinaryIO, NamedTuple

import zstandard
from tqdm import tqdm

from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import atomic_path, atomic_write_json, sha256_file
from chessmoe.games.streams import TruncatedStream, zst_blocks

__all__ = [
    "KINGBASE_URL",
    "KNOWN",
    "LICHESS_URL",
    "FetchError",
    "KnownFile",
    "download",
    "fetch_kingbase",
    "fetch_lichess_month",
    "first_games",
    "safe_extract_zip",
]

LICHESS_URL = "https://database.lichess.org/standard/lichess_db_standard_rated_{month}.pgn.zst"
KINGBASE_URL = "https://archive.org/download/KingBaseLite2019/KingBaseLite2019-pgn.zip"
KINGBASE_ZIP = "KingBaseLite2019-pgn.zip"
USER_AGENT = "chessmoe/0.1"
MAX_EXTRACT_BYTES = 20 * 1024**3
MAX_COMPRESSION_RATIO = 200.0

_CHUNK = 1 << 20
_MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


class FetchError(KitError, RuntimeError):
    """A download, verification or extraction failed in a way the user can act on."""


@dataclass(frozen=True)
class KnownFile:
    """Expected checksum and size of a file the kit can produce (``None``: not checked)."""

    name: str
    sha256: str | None
    size: int | None


_LICHESS_2013_01 = "lichess_db_standard_rated_2013-01.pgn.zst"
_LICHESS_2013_01_FIRST5000 = "lichess_db_standard_rated_2013-01_first5000.pgn"

KNOWN: dict[str, KnownFile] = {
    # database.lichess.org/standard/sha256sums.txt and the size the index page lists
    # (121,332 games); the month the kit's Lichess results use.
    _LICHESS_2013_01: KnownFile(
        name=_LICHESS_2013_01,
        sha256="aa40b3671fa3cf1072eb182892cd90b0e1e003a4a5943492f64b77e7f3fd1635",
        size=17761302,
    ),
    # The first 5,000 games of that month as first_games() writes them (computed from
    # the excerpt the results were made with).
    _LICHESS_2013_01_FIRST5000: KnownFile(
        name=_LICHESS_2013_01_FIRST5000,
        sha256="3f133829eb57e446d8ac0cef0c5fc230e89757a8c442ee57fac535e4d9463704",
        size=3743501,
    ),
    # archive.org publishes md5/sha1 only in the item's file list, not reachable from
    # here: the first download's size and sha256 go into the .fetch.json sidecar and a
    # reused archive is checked against it.
    KINGBASE_ZIP: KnownFile(name=KINGBASE_ZIP, sha256=None, size=None),
}


class _Transfer(NamedTuple):
    """What ``_download`` did: the file's sha256 when known without re-reading, size, fetched."""

    sha256: str | None
    size: int
    fetched: bool


# --------------------------------------------------------------------------- network


def _open(url: str, timeout: float) -> http.client.HTTPResponse:
    """Open ``url`` with the kit's User-Agent; proxies come from the environment as usual."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    response: http.client.HTTPResponse = urllib.request.build_opener().open(
        request, timeout=timeout)
    return response


@contextlib.contextmanager
def _network_errors(url: str, place_at: Path, note: str = "") -> Iterator[None]:
    """Turn urllib/socket failures into a FetchError that says what happened and what to do
    (``note``: why a present file is being downloaded again, e.g. a checksum mismatch)."""
    prefix = f"{note}; " if note else ""
    try:
        yield
    except urllib.error.HTTPError as error:
        error.close()
        raise FetchError(f"{prefix}HTTP {error.code} {error.reason} for {url}") from error
    except (urllib.error.URLError, TimeoutError, ConnectionError,
            http.client.HTTPException) as error:
        reason = getattr(error, "reason", None) or error
        raise FetchError(
            f"{prefix}cannot download {url} ({reason}): this machine looks offline or the host is "
            f"unreachable. Download the file elsewhere and place it at {place_at}"
        ) from error


def _content_length(response: http.client.HTTPResponse) -> int | None:
    """The response's Content-Length, or None when absent or malformed."""
    value = response.headers.get("Content-Length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _mismatch(path: Path, sha256: str | None, size: int | None) -> str | None:
    """Why ``path`` fails the given size/sha256 (each skipped when None), or None."""
    actual = path.stat().st_size
    if size is not None and actual != size:
        return (f"{path} fails its checksum (checksum mismatch: {actual} bytes, expected "
                f"{size})")
    if sha256 is not None and (digest := sha256_file(path)) != sha256.lower():
        return (f"{path} fails its checksum (checksum mismatch: sha256 {digest}, expected "
                f"{sha256.lower()})")
    return None


def _matches(path: Path, sha256: str | None, size: int | None) -> bool:
    """Whether ``path`` has the given size and sha256 (each skipped when None)."""
    return _mismatch(path, sha256, size) is None


def _expected(path: Path) -> tuple[str | None, int | None]:
    """The sha256 and size ``path`` must have: published (:data:`KNOWN`), else those its
    ``.fetch.json`` sidecar recorded when it was fetched, else unknown."""
    known = KNOWN.get(path.name)
    if known is not None and (known.sha256 or known.size):
        return known.sha256, known.size
    with contextlib.suppress(OSError, ValueError):
        old = json.loads(_manifest_path(path).read_text(encoding="utf-8"))
        if isinstance(old, dict) and isinstance(old.get("sha256"), str):
            return old["sha256"], int(old["bytes"])
    return None, None


def _check(what: str, size: int, digest: str, *, expected_size: int | None,
           expected_sha256: str | None) -> None:
    """Raise a FetchError naming expected and actual values when size or sha256 differ."""
    if expected_size is not None and size != expected_size:
        raise FetchError(f"checksum mismatch for {what}: expected {expected_size} bytes, "
                         f"got {size} (size mismatch: truncated or a different file)")
    if expected_sha256 is not None and digest != expected_sha256.lower():
        raise FetchError(f"checksum mismatch for {what}: sha256 expected "
                         f"{expected_sha256.lower()}, got {digest}")


class _ZstCheck:
    """Decompresses a ``.zst`` download as it arrives (output discarded) so a truncated or
    corrupt file is refused even where no checksum is known."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._decompressor = zstandard.ZstdDecompressor(max_window_size=1 << 31)
        self._frame = self._decompressor.decompressobj()
        self._open = False  # inside a frame

    def update(self, data: bytes) -> None:
        try:
            while data:
                self._open = True
                self._frame.decompress(data)
                if not self._frame.eof:
                    return
                data = self._frame.unused_data
                self._frame, self._open = self._decompressor.decompressobj(), False
        except zstandard.ZstdError as error:
            raise FetchError(f"{self.what} is not a valid .zst file ({error}); nothing was "
                             "kept") from error

    def finish(self) -> None:
        if self._open:
            raise FetchError(f"{self.what} is truncated (the .zst stream ends inside a "
                             "frame); nothing was kept")


def _download(url: str, dest: Path, *, sha256: str | None, size: int | None,
              progress: bool, timeout: float) -> _Transfer:
    """Implementation of ``download`` that also reports the digest it computed on the way.

    A present file is reused when it has the expected size and sha256; one that does not
    is downloaded again, and the error (offline, say) says it failed its checksum. A
    ``.zst`` without a known checksum is decompressed on the way, so a truncated one is
    refused too.
    """
    note = ""
    if dest.is_file():
        note = _mismatch(dest, sha256, size) or ""
        if not note:
            return _Transfer(sha256.lower() if sha256 else None, dest.stat().st_size, False)
    digest = hashlib.sha256()
    written = 0
    zst = _ZstCheck(url) if dest.name.endswith(".zst") and sha256 is None else None
    with _network_errors(url, dest, note), _open(url, timeout) as response, \
            atomic_path(dest) as tmp:
        length = _content_length(response)
        if size is not None and length is not None and length != size:
            raise FetchError(f"checksum mismatch for {url}: expected {size} bytes, "
                             f"server announces {length}")
        with open(tmp, "wb") as handle, tqdm(total=length, unit="B", unit_scale=True,
                                            unit_divisor=1024, desc=dest.name,
                                            disable=not progress) as bar:
            while chunk := response.read(_CHUNK):
                handle.write(chunk)
                digest.update(chunk)
                written += len(chunk)
                bar.update(len(chunk))
                if zst is not None:
                    zst.update(chunk)
                if size is not None and written > size:
                    raise FetchError(f"checksum mismatch for {url}: expected {size} bytes, "
                                     f"got more")
            handle.flush()
            os.fsync(handle.fileno())
        if length is not None and written != length:
            raise FetchError(f"truncated download of {url}: got {written} of {length} bytes")
        if zst is not None:
            zst.finish()
        _check(url, written, digest.hexdigest(), expected_size=size, expected_sha256=sha256)
    return _Transfer(digest.hexdigest(), written, True)


def download(url: str, dest: Path, *, sha256: str | None = None, size: int | None = None,
             progress: bool = True, timeout: float = 60.0) -> Path:
    """Download ``url`` to ``dest`` atomically, verifying size/sha256; reuse a matching file."""
    dest = Path(dest)
    _download(url, dest, sha256=sha256, size=size, progress=progress, timeout=timeout)
    return dest


def _utc_now() -> str:
    """Current UTC time, ISO 8601 to the second (manifests)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _manifest_path(path: Path) -> Path:
    """Sidecar manifest beside ``path``: ``<name>.fetch.json``."""
    return path.with_name(path.name + ".fetch.json")


def _record(path: Path, transfer: _Transfer, fields: dict[str, Any]) -> None:
    """Write ``path``'s sidecar manifest unless a reused file already has a consistent one."""
    manifest = _manifest_path(path)
    if not transfer.fetched and manifest.is_file():
        with contextlib.suppress(OSError, ValueError):
            old = json.loads(manifest.read_text(encoding="utf-8"))
            if isinstance(old, dict) and old.get("bytes") == transfer.size:
                return
    digest = transfer.sha256 or sha256_file(path)
    atomic_write_json(manifest, {**fields, "file": path.name, "bytes": transfer.size,
                                 "sha256": digest, "date": _utc_now()})


# --------------------------------------------------------------------------- PGN excerpts


def _copy_games(stream: BinaryIO, n: int, out: BinaryIO,
                on_game: Callable[[], None] | None = None) -> int:
    """``first_games`` with a callback per game started (progress bars)."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if n == 0:
        return 0
    games = 0
    after_blank = True  # the stream's first line counts as following a blank line
    pending: list[bytes] = []  # blank lines held back until more text of the excerpt follows
    last = b""
    for line in iter(stream.readline, b""):
        blank = not line.strip()
        if not blank and after_blank and line.startswith(b"["):
            if games == n:
                break  # the (n+1)-th game starts: stop reading
            games += 1
            if games == 1:
                pending.clear()  # leading blank lines are not part of any game
            if on_game is not None:
                on_game()
        after_blank = blank
        if games == 0:
            continue  # text before the first game
        if blank:
            pending.append(line)
            continue
        if pending:
            out.write(b"".join(pending))
            pending.clear()
        out.write(line)
        last = line
    if games and not last.endswith(b"\n"):
        out.write(b"\n")
    return games


def first_games(stream: BinaryIO, n: int, out: BinaryIO) -> int:
    """Copy the raw bytes of the first ``n`` games of a PGN byte stream to ``out``; count them.

    A game starts at a line beginning with ``[`` that opens the stream or follows a blank
    line. Games keep their exact bytes and separators; the output ends with the last game's
    final line plus one newline (no trailing blank line), as in the Lichess excerpts.
    Reads line by line and stops as soon as the (n+1)-th game starts.
    """
    return _copy_games(stream, n, out)


# --------------------------------------------------------------------------- Lichess


def _lichess_name(month: str) -> str:
    """Validate ``YYYY-MM`` and return the Lichess file stem for that month."""
    if not isinstance(month, str) or not _MONTH.fullmatch(month):
        raise FetchError(f"bad Lichess month {month!r}: expected YYYY-MM, e.g. 2013-01")
    return f"lichess_db_standard_rated_{month}"


def fetch_lichess_month(month: str, data_dir: Path, *, first: int | None = None,
                        progress: bool = True, url: str | None = None,
                        timeout: float = 60.0) -> Path:
    """Fetch a Lichess month (``.pgn.zst``) or, with ``first=N``, only its first N games.

    With ``first`` the ``.zst`` is decompressed straight from the HTTP response and reading
    stops after the N-th game, so the month file is never stored. Outputs listed in
    ``KNOWN`` are verified; an existing valid output is returned without network access.
    """
    stem = _lichess_name(month)
    source = url or LICHESS_URL.format(month=month)
    data_dir = Path(data_dir)
    if first is None:
        dest = data_dir / f"{stem}.pgn.zst"
        sha256, size = _expected(dest)
        transfer = _download(source, dest, sha256=sha256, size=size, progress=progress,
                             timeout=timeout)
        _record(dest, transfer, {"url": source, "month": month, "first": None})
        return dest
    if isinstance(first, bool) or not isinstance(first, int) or first < 1:
        raise FetchError(f"first must be a positive number of games, got {first!r}")
    out = data_dir / f"{stem}_first{first}.pgn"
    sha256, size = _expected(out)
    note = ""
    if out.is_file():
        note = _mismatch(out, sha256, size) or ""
        if not note:
            return out
    known = KnownFile(out.name, sha256, size) if out.name in KNOWN else None
    games, transfer = _stream_first_games(source, out, first, known, progress=progress,
                                          timeout=timeout, note=note)
    _record(out, transfer, {"url": source, "month": month, "first": first, "games": games})
    return out


class _BlockStream(io.RawIOBase):
    """A readable raw stream over an iterator of byte blocks."""

    def __init__(self, blocks: Iterator[bytes]) -> None:
        self._blocks = blocks
        self._rest = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._rest:
            block = next(self._blocks, None)
            if block is None:
                return 0
            self._rest = block
        n = min(len(buffer), len(self._rest))
        buffer[:n] = self._rest[:n]
        self._rest = self._rest[n:]
        return n


def _stream_first_games(url: str, out: Path, n: int, known: KnownFile | None, *,
                        progress: bool, timeout: float, note: str = ""
                        ) -> tuple[int, _Transfer]:
    """Decompress ``url`` on the fly into ``out`` (atomic), keeping the first ``n`` games.

    A stream that holds no game, or that ends inside a frame before the n-th game, is
    refused (nothing kept, no sidecar): a month with fewer games ends cleanly."""
    with _network_errors(url, out, note), _open(url, timeout) as response, \
            atomic_path(out) as tmp:
        with open(tmp, "wb") as handle, \
                tqdm(total=n, unit="game", desc=out.name, disable=not progress) as bar:
            # zst_blocks allows long-distance windows (zstd --long) up to 2 GiB and reports
            # a stream cut inside a frame, which zstandard's stream reader does not.
            try:
                with io.BufferedReader(_BlockStream(zst_blocks(response)),
                                       buffer_size=_CHUNK) as lines:
                    games = _copy_games(lines, n, handle, on_game=lambda: bar.update(1))
            except zstandard.ZstdError as error:
                raise FetchError(f"{url} is not a valid .zst stream ({error})") from error
            except TruncatedStream as error:
                raise FetchError(f"{url} is truncated before game {n} ({error}); nothing "
                                 "was kept") from error
            if games == 0:
                raise FetchError(f"{url} holds no PGN games; nothing was kept")
            handle.flush()
            os.fsync(handle.fileno())
        digest, size = sha256_file(tmp), tmp.stat().st_size
        if known is not None:
            _check(out.name, size, digest, expected_size=known.size,
                   expected_sha256=known.sha256)
    return games, _Transfer(digest, size, True)


# --------------------------------------------------------------------------- zip archives


def _member_path(info: zipfile.ZipInfo, archive: Path) -> PurePosixPath:
    """The member's relative path; FetchError for absolute, drive-letter or ``..`` names."""
    name = info.filename.replace("\\", "/")
    path = PurePosixPath(name)
    if path.is_absolute() or PureWindowsPath(info.filename).drive or ".." in path.parts:
        raise FetchError(f"unsafe member {info.filename!r} in {archive}: absolute path or "
                         f"'..' component; refusing to extract")
    if stat.S_ISLNK(info.external_attr >> 16):
        raise FetchError(f"unsafe member {info.filename!r} in {archive}: symbolic link; "
                         f"refusing to extract")
    return PurePosixPath(*[part for part in path.parts if part not in ("", ".")])


def _plan_extraction(zf: zipfile.ZipFile, archive: Path, dest_dir: Path,
                     suffixes: tuple[str, ...], max_bytes: int,
                     max_ratio: float) -> list[tuple[zipfile.ZipInfo, Path]]:
    """Check every member before anything is written; return the members to extract."""
    wanted = tuple(suffix.lower() for suffix in suffixes)
    root = dest_dir.resolve()
    plan: list[tuple[zipfile.ZipInfo, Path]] = []
    total = 0
    for info in zf.infolist():
        rel = _member_path(info, archive)
        if info.is_dir() or not info.filename.lower().endswith(wanted):
            continue
        if info.flag_bits & 0x1:
            raise FetchError(f"member {info.filename!r} in {archive} is encrypted")
        if info.file_size > 0 and (info.compress_size == 0
                                   or info.file_size / info.compress_size > max_ratio):
            raise FetchError(f"member {info.filename!r} in {archive} expands "
                             f"{info.compress_size} -> {info.file_size} bytes (ratio over "
                             f"{max_ratio:g}): refusing a possible zip bomb")
        total += info.file_size
        if total > max_bytes:
            raise FetchError(f"{archive} expands to more than {max_bytes} bytes; refusing")
        target = dest_dir.joinpath(*rel.parts)
        if not target.resolve().is_relative_to(root):
            raise FetchError(f"member {info.filename!r} in {archive} would land outside "
                             f"{dest_dir}; refusing to extract")
        plan.append((info, target))
    return plan


def _extract_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path) -> None:
    """Write one member to ``target`` atomically, never more than its declared size."""
    written = 0
    with zf.open(info) as source, atomic_path(target) as tmp, open(tmp, "wb") as handle:
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            if written > info.file_size:
                raise FetchError(f"member {info.filename!r} is larger than declared")
            handle.write(chunk)


def safe_extract_zip(archive: Path, dest_dir: Path, *, suffixes: tuple[str, ...] = (".pgn",),
                     max_bytes: int = MAX_EXTRACT_BYTES,
                     max_ratio: float = MAX_COMPRESSION_RATIO) -> list[Path]:
    """Extract members ending in ``suffixes`` after checking the whole archive is safe.

    Refuses (FetchError, nothing written) absolute or ``..`` member paths, symlinks, a total
    over ``max_bytes`` and a member compression ratio over ``max_ratio``. Members keep their
    relative path under ``dest_dir``; one already there with the same size is not rewritten.
    """
    archive, dest_dir = Path(archive), Path(dest_dir)
    try:
        with zipfile.ZipFile(archive) as zf:
            plan = _plan_extraction(zf, archive, dest_dir, suffixes, max_bytes, max_ratio)
            for info, target in plan:
                if not (target.is_file() and target.stat().st_size == info.file_size):
                    _extract_member(zf, info, target)
    except (zipfile.BadZipFile, zlib.error, EOFError) as error:
        raise FetchError(f"{archive} is not a valid zip archive ({error}); delete it and "
                         f"fetch again") from error
    return sorted(target for _, target in plan)


# --------------------------------------------------------------------------- KingBase


def fetch_kingbase(data_dir: Path, *, progress: bool = True, url: str | None = None,
                   timeout: float = 60.0) -> list[Path]:
    """Download KingBase Lite 2019 into ``data_dir/kingbase`` and extract its PGN files.

    No sha256 is published, so the size and sha256 of what was downloaded are recorded in
    ``KingBaseLite2019-pgn.zip.fetch.json`` beside the archive, and a present archive that
    no longer matches them is downloaded again.
    """
    source = url or KINGBASE_URL
    folder = Path(data_dir) / "kingbase"
    archive = folder / KINGBASE_ZIP
    sha256, size = _expected(archive)  # the sidecar of an earlier download, if any
    transfer = _download(source, archive, sha256=sha256, size=size, progress=progress,
                         timeout=timeout)
    _record(archive, transfer, {"url": source})
    paths = safe_extract_zip(archive, folder / "pgn")
    if not paths:
        raise FetchError(f"{archive} holds no .pgn files")
    return paths
