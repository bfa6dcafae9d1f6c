"""Property-based fuzzing of the PGN reader: no game is lost without being counted, and
the counts never depend on how the file is cut between workers."""

from __future__ import annotations

import bz2
import gzip
import re
import tempfile
import zipfile
from pathlib import Path

import pytest
import zstandard
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chessmoe.games.pgn import SkipCounter, iter_games, plan_pieces

GAME = ('[Event "g{i}"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n'
        "1. e4 {{c}} e5 (1... c5) 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 1-0\n\n")
BASE = "".join(GAME.format(i=i) for i in range(12)).encode()
FUZZ = settings(max_examples=50, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])



def _read(path: Path, **kwargs: object) -> tuple[SkipCounter, list[int]]:
    skips = SkipCounter()
    offsets = [g.offset for g in iter_games(path, skips=skips, **kwargs)]  # type: ignore[arg-type]
    assert skips.kept == len(offsets)
    return skips, offsets


def _pieces(path: Path, workers: int) -> tuple[SkipCounter, list[int]]:
    skips = SkipCounter()
    offsets = [g.offset for piece in plan_pieces([path], workers=workers)
               for g in piece.games(skips=skips)]
    return skips, offsets


def _mutate(data: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    out = bytearray(data)
    for position, cut, insert in edits:
        at = position % (len(out) + 1)
        out[at:at + cut] = insert
    return bytes(out)


EDITS = st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 20),
                           st.binary(max_size=6) | st.sampled_from(
                               [b"{", b"(", b"\n", b"\r", b"\x00", b"\n\n", b'[Event "x"]\n',
                                b"\xff\xfe", b";", b"}"])),
                 max_size=8)


@FUZZ
@given(edits=EDITS)
def test_mutated_plain_pgn_counts_every_game_for_any_worker_count(edits: list[tuple[int, int,
                                                                                  bytes]]
                                                                   ) -> None:
    data = _mutate(BASE, edits)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.pgn"
        path.write_bytes(data)
        one, kept_one = _pieces(path, 1)
        two, kept_two = _pieces(path, 2)
        assert one.seen == one.kept + sum(one.skipped.values())
        assert (one.kept, dict(one.skipped)) == (two.kept, dict(two.skipped))
        assert kept_one == kept_two
        # every '[Event "' line after a non-header line starts a game that is counted
        normalised = data.replace(b"\r\n", b" \n").replace(b"\r", b"\n").replace(b"\0", b"\n")
        starts = sum(1 for i, line in enumerate(normalised.split(b"\n"))
                     if line.startswith(b'[Event "') and (
                         i == 0 or not normalised.split(b"\n")[i - 1].startswith(b"[")))
        assert one.seen >= starts


@FUZZ
@given(cut=st.integers(0, len(BASE)))
def test_truncated_plain_file_keeps_every_complete_game(cut: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.pgn"
        path.write_bytes(BASE[:cut])
        skips, _ = _read(path)
        complete = BASE[:cut].count(b"1-0\n\n")
        assert skips.kept >= complete
        starts = [m.start() for m in re.finditer(rb'\[Event "', BASE)]
        assert skips.seen == sum(1 for start in starts if start < cut)


@pytest.mark.slow
@FUZZ
@given(kind=st.sampled_from(["gz", "bz2", "zst", "zip"]), fraction=st.floats(0.05, 0.95),
       flip=st.booleans())
@example(kind="zip", fraction=0.90234375, flip=True)  # the member's method byte: unsupported
def test_damaged_archives_are_counted_stream_errors(kind: str, fraction: float,
                                                    flip: bool) -> None:
    text = BASE * 40
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"a.pgn.{kind}" if kind != "zip" else Path(tmp) / "a.zip"
        if kind == "gz":
            blob = gzip.compress(text)
        elif kind == "bz2":
            blob = bz2.compress(text)
        elif kind == "zst":
            blob = zstandard.ZstdCompressor().compress(text)
        else:
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
                archive.writestr("a.pgn", text)
            blob = path.read_bytes()
        at = int(len(blob) * fraction)
        damaged = blob[:at] + bytes([blob[at] ^ 0xFF]) + blob[at + 1:] if flip else blob[:at]
        path.write_bytes(damaged)
        try:
            skips, _ = _read(path)
        except Exception as error:  # only a one-line KitError may escape (zip directory)
            from chessmoe._io.errors import KitError

            assert isinstance(error, KitError) and "\n" not in str(error)
            return
        assert skips.seen == skips.kept + sum(skips.skipped.values())
        if not flip:
            assert skips.skipped["stream_error"] == 1
            assert skips.examples["stream_error"][0].startswith(path.name)
        assert skips.kept <= 480


@FUZZ
@given(encoding=st.sampled_from(["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32",
                                 "utf-32-le", "latin-1"]),
       newline=st.sampled_from(["\n", "\r\n", "\r"]))
def test_encodings_and_line_ends_read_every_game(encoding: str, newline: str) -> None:
    text = BASE.decode().replace("White", "Wéite").replace("\n", newline)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "e.pgn"
        path.write_bytes(text.encode(encoding))
        skips, _ = _read(path)
        assert (skips.kept, skips.seen) == (12, 12)


@pytest.mark.parametrize("bom", [b"\xfe\xff", b"\xff\xfe", b"\xff\xfe\x00\x00"])
def test_a_stray_utf16_or_utf32_bom_before_utf8_text_does_not_hide_the_games(bom: bytes
                                                                             ) -> None:
    """Found by the fuzzer: two bytes that look like a UTF-16 BOM in front of UTF-8 text made
    the reader decode everything as UTF-16 and see one garbled game instead of twelve."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "b.pgn"
        path.write_bytes(bom + BASE)
        skips, _ = _read(path)
        assert skips.seen >= 12 and skips.kept >= 11


def test_a_zip_member_that_cannot_be_opened_is_a_counted_stream_error(tmp_path: Path) -> None:
    """An unsupported compression method or the encryption flag in a member's headers (zipfile
    raises NotImplementedError / RuntimeError on open) skips that member with a counted
    stream error; the archive's other member is still read."""
    path = tmp_path / "two.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("a.pgn", BASE)
        archive.writestr("b.pgn", BASE)
    blob = bytearray(path.read_bytes())
    local = blob.find(b"PK\x03\x04")  # a.pgn's local header
    central = blob.find(b"PK\x01\x02")  # a.pgn's central directory entry
    blob[local + 8:local + 10] = blob[central + 10:central + 12] = (99).to_bytes(2, "little")
    path.write_bytes(bytes(blob))
    skips, _ = _read(path)
    assert skips.skipped["stream_error"] == 1
    assert "a.pgn" in skips.examples["stream_error"][0]
    assert "compression method is not supported" in skips.examples["stream_error"][0]
    assert skips.kept == BASE.count(b'[Event "')  # b.pgn, whole


@pytest.mark.parametrize("damage", ["version", "utf8-name"])
def test_a_zip_directory_claiming_the_impossible_is_a_one_line_error(tmp_path: Path,
                                                                    damage: str) -> None:
    """A central directory entry that claims an unsupported zip version (zipfile raises
    NotImplementedError) or a UTF-8 name that does not decode (UnicodeDecodeError) is a
    one-line error naming the archive, as any damaged directory is."""
    from chessmoe.games.pgn import PgnStreamError, iter_games, zip_members

    path = tmp_path / "one.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("a.pgn", BASE)
    blob = bytearray(path.read_bytes())
    central = blob.find(b"PK\x01\x02")
    if damage == "version":
        blob[central + 6:central + 8] = (235).to_bytes(2, "little")
    else:
        blob[central + 8:central + 10] = (0x800).to_bytes(2, "little")  # UTF-8 names
        blob[central + 46] = 0xFF  # the name's first byte: never valid UTF-8
    path.write_bytes(bytes(blob))
    with pytest.raises(PgnStreamError, match="not a readable zip archive") as raised:
        list(iter_games(path))
    assert "\n" not in str(raised.value) and "one.zip" in str(raised.value)
    with pytest.raises(PgnStreamError, match="not a readable zip archive"):
        zip_members(path)
