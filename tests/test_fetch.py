"""Tests for chessmoe.games.fetch: downloads from a local HTTP server, PGN excerpts, safe unzip."""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import json
import socket
import stat
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zstandard

from chessmoe.games.fetch import (
    KNOWN,
    FetchError,
    download,
    fetch_kingbase,
    fetch_lichess_month,
    first_games,
    safe_extract_zip,
)

SHARED_EXCERPT = (Path(__file__).resolve().parents[2] / "shared" / "data"
                  / "lichess_db_standard_rated_2013-01_first5000.pgn")

GAME_1 = (b'[Event "Rated Blitz game"]\n[Site "https://lichess.org/aaaaaaaa"]\n'
          b'[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n')
GAME_2 = (b'[Event "Rated Bullet game"]\n[Site "https://lichess.org/bbbbbbbb"]\n'
          b'[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n')
# movetext over several lines, with a line starting with "[" that does not follow a blank line
GAME_3 = (b'[Event "Casual game"]\n[Result "1/2-1/2"]\n\n1. d4 d5 2. c4 e6\n'
          b'3. Nc3 Nf6 { a comment\n[not a tag] } 4. Bg5 Be7\n5. e3 O-O 1/2-1/2\n')
GAME_4 = b'[Event "Last game"]\n[Result "*"]\n\n1. c4 *\n'
GAMES = [GAME_1, GAME_2, GAME_3, GAME_4]
SOURCE = b"\n".join(GAMES) + b"\n"  # Lichess layout: a blank line after every game


def sha256(data: bytes) -> str:
    """Hex sha256 of bytes."""
    return hashlib.sha256(data).hexdigest()


def excerpt(n: int) -> bytes:
    """Expected first-n output for SOURCE: games joined by a blank line, one final newline."""
    return b"\n".join(GAMES[:n])


def zst(data: bytes, frames: int = 1) -> bytes:
    """Compress ``data`` to zstd, split over ``frames`` concatenated frames."""
    step = -(-len(data) // frames)
    compressor = zstandard.ZstdCompressor(level=3)
    return b"".join(compressor.compress(data[i:i + step]) for i in range(0, len(data), step))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Static file handler that records request paths instead of logging them."""

    requests: list[str]

    def do_GET(self) -> None:
        self.requests.append(self.path)
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    """Server that ignores clients hanging up early (first=N closes the stream mid-file)."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


class LocalServer:
    """A static HTTP server on 127.0.0.1 serving ``root``, run in a thread."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.requests: list[str] = []
        handler = type("Handler", (_QuietHandler,), {"requests": self.requests})
        self._server = _QuietServer(("127.0.0.1", 0),
                                    functools.partial(handler, directory=str(root)))
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.01,),
                                        daemon=True)
        self._thread.start()
        self.running = True

    def url(self, name: str) -> str:
        """URL of a file under root."""
        return f"http://127.0.0.1:{self.port}/{name}"

    def put(self, name: str, data: bytes) -> str:
        """Serve ``data`` as ``name``; return its URL."""
        (self.root / name).write_bytes(data)
        return self.url(name)

    def stop(self) -> None:
        """Shut the server down; later requests to its port are refused."""
        if self.running:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join()
            self.running = False


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    """A local HTTP server over a temporary directory; proxies bypassed for 127.0.0.1."""
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    root = tmp_path / "www"
    root.mkdir()
    local = LocalServer(root)
    yield local
    local.stop()


def closed_port_url() -> str:
    """A URL on 127.0.0.1 whose port nothing listens on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/file.pgn.zst"


def leftovers(folder: Path) -> list[str]:
    """Names of all files under ``folder`` (temporary files included)."""
    return sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


# --------------------------------------------------------------------------- download


def test_download_streams_bytes_and_verifies(server: LocalServer, tmp_path: Path) -> None:
    data = bytes(range(256)) * 5000
    url = server.put("blob.bin", data)
    dest = tmp_path / "out" / "blob.bin"
    assert download(url, dest, sha256=sha256(data), size=len(data), progress=False) == dest
    assert dest.read_bytes() == data
    assert leftovers(dest.parent) == ["blob.bin"]


def test_download_sha256_mismatch(server: LocalServer, tmp_path: Path) -> None:
    url = server.put("blob.bin", b"real content\n")
    dest = tmp_path / "out" / "blob.bin"
    wrong = "0" * 64
    with pytest.raises(FetchError) as info:
        download(url, dest, sha256=wrong, progress=False)
    assert wrong in str(info.value) and sha256(b"real content\n") in str(info.value)
    assert not dest.exists()
    assert leftovers(dest.parent) == []


def test_download_size_mismatch(server: LocalServer, tmp_path: Path) -> None:
    url = server.put("blob.bin", b"twelve bytes")
    dest = tmp_path / "blob.bin"
    with pytest.raises(FetchError, match="expected 99 bytes"):
        download(url, dest, size=99, progress=False)
    assert not dest.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["www"]  # no temporary file left behind


def test_download_http_404(server: LocalServer, tmp_path: Path) -> None:
    dest = tmp_path / "missing.bin"
    with pytest.raises(FetchError, match="404"):
        download(server.url("missing.bin"), dest, progress=False)
    assert not dest.exists()


def test_download_reuses_verified_file_without_request(server: LocalServer,
                                                       tmp_path: Path) -> None:
    data = b"some archive bytes\n" * 100
    url = server.put("blob.bin", data)
    dest = tmp_path / "blob.bin"
    download(url, dest, sha256=sha256(data), progress=False)
    assert server.requests == ["/blob.bin"]
    server.stop()  # any request now fails: reuse must not touch the network
    assert download(url, dest, sha256=sha256(data), size=len(data), progress=False) == dest
    assert download(url, dest, progress=False) == dest  # no checksum: an existing file is kept
    assert dest.read_bytes() == data
    assert server.requests == ["/blob.bin"]


def test_download_replaces_a_corrupt_existing_file(server: LocalServer, tmp_path: Path) -> None:
    data = b"good\n"
    url = server.put("blob.bin", data)
    dest = tmp_path / "blob.bin"
    dest.write_bytes(b"bad\n")
    download(url, dest, sha256=sha256(data), progress=False)
    assert dest.read_bytes() == data


def test_download_offline_says_so_and_where_to_put_the_file(tmp_path: Path) -> None:
    dest = tmp_path / "data" / "file.pgn.zst"
    with pytest.raises(FetchError) as info:
        download(closed_port_url(), dest, progress=False, timeout=5)
    message = str(info.value)
    assert "offline" in message and "unreachable" in message
    assert str(dest) in message
    assert not dest.exists()


# --------------------------------------------------------------------------- first_games


def run_first(source: bytes, n: int) -> tuple[int, bytes]:
    """first_games over an in-memory source; return (count, output)."""
    out = io.BytesIO()
    count = first_games(io.BytesIO(source), n, out)
    return count, out.getvalue()


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_first_games_exact_bytes(n: int) -> None:
    count, out = run_first(SOURCE, n)
    assert count == n
    assert out == excerpt(n)
    assert out.endswith(b"\n") and not out.endswith(b"\n\n")


def test_first_games_more_than_available_and_zero() -> None:
    assert run_first(SOURCE, 10) == (4, excerpt(4))
    assert run_first(SOURCE, 0) == (0, b"")
    assert run_first(b"", 3) == (0, b"")
    with pytest.raises(ValueError):
        run_first(SOURCE, -1)


def test_first_games_multiline_movetext_is_one_game() -> None:
    count, out = run_first(GAME_3 + b"\n" + GAME_4, 1)
    assert count == 1
    assert out == GAME_3


def test_first_games_leading_blank_lines_and_missing_final_newline() -> None:
    assert run_first(b"\n\n  \n" + SOURCE, 2) == (2, excerpt(2))
    assert run_first(GAME_1 + b"\n" + GAME_2.rstrip(b"\n"), 5) == (2, excerpt(2))
    # several blank lines between games are kept as in the source, trailing ones are not
    assert run_first(GAME_1 + b"\n\n\n" + GAME_2 + b"\n\n\n", 2) == (2, GAME_1 + b"\n\n\n" + GAME_2)


def test_first_games_keeps_crlf_bytes() -> None:
    crlf = SOURCE.replace(b"\n", b"\r\n")
    count, out = run_first(crlf, 2)
    assert count == 2
    assert out == excerpt(2).replace(b"\n", b"\r\n")
    assert out.endswith(b"0-1\r\n")


def test_first_games_stops_reading_at_the_next_game() -> None:
    stream = io.BytesIO(SOURCE)
    first_games(stream, 1, io.BytesIO())
    # read up to and including the first line of game 2, and no further
    assert stream.tell() == len(GAME_1) + 1 + len(GAME_2.splitlines(keepends=True)[0])


# --------------------------------------------------------------------------- Lichess


def test_fetch_lichess_first_n(server: LocalServer, tmp_path: Path) -> None:
    url = server.put("month.pgn.zst", zst(SOURCE, frames=3))
    data_dir = tmp_path / "data"
    out = fetch_lichess_month("2020-05", data_dir, first=3, progress=False, url=url)
    assert out == data_dir / "lichess_db_standard_rated_2020-05_first3.pgn"
    assert out.read_bytes() == excerpt(3)
    manifest = json.loads((data_dir / (out.name + ".fetch.json")).read_text())
    assert manifest["url"] == url and manifest["month"] == "2020-05"
    assert manifest["first"] == 3 and manifest["games"] == 3
    assert manifest["bytes"] == len(excerpt(3)) and manifest["sha256"] == sha256(excerpt(3))
    assert manifest["date"].endswith("+00:00")
    assert sorted(p.name for p in data_dir.iterdir()) == [out.name, out.name + ".fetch.json"]
    server.stop()  # an existing output (not in KNOWN) is reused without network access
    assert fetch_lichess_month("2020-05", data_dir, first=3, progress=False, url=url) == out


def test_fetch_lichess_whole_month(server: LocalServer, tmp_path: Path) -> None:
    payload = zst(SOURCE)
    url = server.put("month.pgn.zst", payload)
    out = fetch_lichess_month("2021-12", tmp_path, progress=False, url=url)
    assert out == tmp_path / "lichess_db_standard_rated_2021-12.pgn.zst"
    assert out.read_bytes() == payload
    manifest = json.loads((tmp_path / (out.name + ".fetch.json")).read_text())
    assert manifest["sha256"] == sha256(payload) and manifest["first"] is None


@pytest.mark.parametrize("month", ["2013-1", "2013-13", "13-01", "2013-01/../x", ""])
def test_fetch_lichess_rejects_bad_month(month: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match="YYYY-MM"):
        fetch_lichess_month(month, tmp_path, first=1, progress=False, url="http://127.0.0.1:9/")


def test_fetch_lichess_rejects_bad_first(tmp_path: Path) -> None:
    with pytest.raises(FetchError, match="positive"):
        fetch_lichess_month("2013-01", tmp_path, first=0, progress=False)


def test_fetch_lichess_not_zstd(server: LocalServer, tmp_path: Path) -> None:
    url = server.put("month.pgn.zst", b"<html>not a zstd file</html>\n")
    data_dir = tmp_path / "data"
    with pytest.raises(FetchError, match="zst"):
        fetch_lichess_month("2013-01", data_dir, first=2, progress=False, url=url)
    assert leftovers(data_dir) == []


def test_fetch_lichess_known_checksum_mismatch_keeps_nothing(server: LocalServer,
                                                             tmp_path: Path) -> None:
    url = server.put("month.pgn.zst", zst(SOURCE))  # 4 games, not the real January 2013
    data_dir = tmp_path / "data"
    with pytest.raises(FetchError, match="mismatch"):
        fetch_lichess_month("2013-01", data_dir, first=5000, progress=False, url=url)
    assert leftovers(data_dir) == []


def test_fetch_lichess_offline(tmp_path: Path) -> None:
    with pytest.raises(FetchError) as info:
        fetch_lichess_month("2013-01", tmp_path, first=7, progress=False,
                            url=closed_port_url())
    message = str(info.value)
    assert "offline" in message and "unreachable" in message
    assert str(tmp_path / "lichess_db_standard_rated_2013-01_first7.pgn") in message


@pytest.mark.shared_data
def test_fetch_lichess_reproduces_the_shared_excerpt(server: LocalServer, tmp_path: Path) -> None:
    if not SHARED_EXCERPT.is_file():
        pytest.skip(f"shared data file absent: {SHARED_EXCERPT}")
    reference = SHARED_EXCERPT.read_bytes()
    known = KNOWN[SHARED_EXCERPT.name]
    assert (sha256(reference), len(reference)) == (known.sha256, known.size)
    # the month file continues after game 5000: a blank line, then more games
    url = server.put("2013-01.pgn.zst", zst(reference + b"\n" + SOURCE))
    out = fetch_lichess_month("2013-01", tmp_path, first=5000, progress=False, url=url)
    assert out.name == SHARED_EXCERPT.name
    assert out.read_bytes() == reference

    chunks = reference.split(b"\n\n[Event ")
    assert len(chunks) == 5000
    ten = fetch_lichess_month("2013-01", tmp_path, first=10, progress=False, url=url)
    assert ten.read_bytes() == b"\n\n[Event ".join(chunks[:10]) + b"\n"


# --------------------------------------------------------------------------- zip archives


def make_zip(path: Path, members: dict[str, bytes],
             compression: int = zipfile.ZIP_DEFLATED) -> Path:
    """Write a zip with the given member names (kept verbatim) and contents."""
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in members.items():
            zf.writestr(zipfile.ZipInfo(name), data, compress_type=compression)
    return path


def test_safe_extract_zip_extracts_only_pgn(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "a.zip", {"b.pgn": GAME_1, "sub/a.PGN": GAME_2,
                                            "README.txt": b"hello", "sub/": b""})
    dest = tmp_path / "out"
    paths = safe_extract_zip(archive, dest)
    assert paths == [dest / "b.pgn", dest / "sub" / "a.PGN"]
    assert paths[0].read_bytes() == GAME_1 and paths[1].read_bytes() == GAME_2
    assert leftovers(dest) == ["a.PGN", "b.pgn"]
    # already extracted with the same size: not rewritten
    stamp = paths[0].stat().st_mtime_ns
    paths[0].touch()
    touched = paths[0].stat().st_mtime_ns
    assert safe_extract_zip(archive, dest) == paths
    assert paths[0].stat().st_mtime_ns == touched and touched >= stamp


@pytest.mark.parametrize("name", ["../evil.pgn", "ok/../../evil.pgn", "/abs/evil.pgn",
                                  "..\\evil.pgn", "C:/evil.pgn"])
def test_safe_extract_zip_refuses_unsafe_paths(tmp_path: Path, name: str) -> None:
    archive = make_zip(tmp_path / "a.zip", {"good.pgn": GAME_1, name: GAME_2})
    dest = tmp_path / "deep" / "out"
    with pytest.raises(FetchError, match="unsafe"):
        safe_extract_zip(archive, dest)
    assert leftovers(tmp_path / "deep") == []
    assert not (tmp_path / "evil.pgn").exists() and not (tmp_path / "deep" / "evil.pgn").exists()


def test_safe_extract_zip_refuses_symlinks(tmp_path: Path) -> None:
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("good.pgn", GAME_1)
        link = zipfile.ZipInfo("link.pgn")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
    with pytest.raises(FetchError, match="symbolic link"):
        safe_extract_zip(archive, tmp_path / "out")
    assert leftovers(tmp_path / "out") == []


def test_safe_extract_zip_refuses_zip_bombs(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "a.zip", {"good.pgn": GAME_1, "bomb.pgn": b"\0" * 2_000_000})
    with pytest.raises(FetchError, match="zip bomb"):
        safe_extract_zip(archive, tmp_path / "out")
    assert leftovers(tmp_path / "out") == []
    plain = make_zip(tmp_path / "b.zip", {"a.pgn": GAME_1 * 10, "b.pgn": GAME_2 * 10},
                     compression=zipfile.ZIP_STORED)
    with pytest.raises(FetchError, match="more than 1000 bytes"):
        safe_extract_zip(plain, tmp_path / "out", max_bytes=1000)
    assert leftovers(tmp_path / "out") == []


def test_safe_extract_zip_not_a_zip(tmp_path: Path) -> None:
    archive = tmp_path / "a.zip"
    archive.write_bytes(b"<html>Service unavailable</html>")
    with pytest.raises(FetchError, match="not a valid zip"):
        safe_extract_zip(archive, tmp_path / "out")


# --------------------------------------------------------------------------- KingBase


def test_fetch_kingbase(server: LocalServer, tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    payload = make_zip(server.root / "kb.zip", {"KingBaseLite2019-A00-A39.pgn": SOURCE,
                                               "KingBaseLite2019-B00-B19.pgn": GAME_3,
                                               "readme.txt": b"x"}).read_bytes()
    url = server.url("kb.zip")
    data_dir = tmp_path / "data"
    paths = fetch_kingbase(data_dir, progress=False, url=url)
    pgn = data_dir / "kingbase" / "pgn"
    assert paths == [pgn / "KingBaseLite2019-A00-A39.pgn", pgn / "KingBaseLite2019-B00-B19.pgn"]
    assert paths[0].read_bytes() == SOURCE and paths[1].read_bytes() == GAME_3
    archive = data_dir / "kingbase" / "KingBaseLite2019-pgn.zip"
    assert archive.read_bytes() == payload
    manifest = json.loads((archive.parent / (archive.name + ".fetch.json")).read_text())
    assert manifest["url"] == url
    assert manifest["bytes"] == len(payload) and manifest["sha256"] == sha256(payload)
    assert capsys.readouterr().out == ""
    server.stop()  # second call: everything is already there
    assert fetch_kingbase(data_dir, progress=False, url=url) == paths
    assert server.requests == ["/kb.zip"]


def test_truncated_month_zst_is_refused_without_sidecar(server: LocalServer,
                                                        tmp_path: Path) -> None:
    whole = zst(SOURCE * 50)
    url = server.put("month.pgn.zst", whole[:len(whole) // 2])
    with pytest.raises(FetchError, match="truncated"):
        fetch_lichess_month("2021-11", tmp_path / "d", progress=False, url=url)
    assert leftovers(tmp_path / "d") == []
    with pytest.raises(FetchError, match="truncated before game 1000"):
        fetch_lichess_month("2021-11", tmp_path / "d", first=1000, progress=False, url=url)
    assert leftovers(tmp_path / "d") == []


def test_known_month_is_checked_against_the_published_checksum(server: LocalServer,
                                                               tmp_path: Path) -> None:
    assert KNOWN["lichess_db_standard_rated_2013-01.pgn.zst"].size == 17761302
    url = server.put("month.pgn.zst", zst(SOURCE))
    with pytest.raises(FetchError, match="checksum mismatch"):
        fetch_lichess_month("2013-01", tmp_path / "d", progress=False, url=url)
    assert leftovers(tmp_path / "d") == []


def test_changed_byte_is_a_checksum_mismatch_even_offline(server: LocalServer,
                                                          tmp_path: Path) -> None:
    url = server.put("month.pgn.zst", zst(SOURCE))
    out = fetch_lichess_month("2021-10", tmp_path, progress=False, url=url)
    data = bytearray(out.read_bytes())
    data[-1] ^= 1
    out.write_bytes(bytes(data))
    server.stop()
    with pytest.raises(FetchError, match=r"checksum mismatch.*cannot download.*offline"):
        fetch_lichess_month("2021-10", tmp_path, progress=False, url=url)
