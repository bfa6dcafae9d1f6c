"""Opening suites: reading EPD, the embedded suite against its manifest, the paper's suite."""

from __future__ import annotations

import json
from pathlib import Path

import chess
import pytest

from chessmoe._io.fsutil import sha256_file
from chessmoe.play.openings import (
    PAPER_SUITE_SHA256,
    OpeningError,
    embedded_suite_path,
    read_epd,
    resolve_suite,
    schedule,
    shard,
)
from tests.conftest import SHARED_DATA


def test_epd_and_fen_lines_comments_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "suite.epd"
    path.write_text("# a comment\n\n"
                    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; c0 \"x\";\n"
                    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2\n")
    fens = read_epd(path)
    assert fens == ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                    # the en-passant square is dropped: no pawn can take on e6
                    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"]


@pytest.mark.parametrize("line", ["not a position at all",
                                  "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq -",
                                  "8/8/8/8/8/8/8/8 w - -"])
def test_a_bad_line_names_file_and_line(tmp_path: Path, line: str) -> None:
    path = tmp_path / "bad.epd"
    path.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n" + line + "\n")
    with pytest.raises(OpeningError, match=r"bad\.epd:2"):
        read_epd(path)


def test_missing_empty_and_unknown_suites(tmp_path: Path) -> None:
    with pytest.raises(OpeningError, match="does not exist"):
        read_epd(tmp_path / "nothing.epd")
    (tmp_path / "empty.epd").write_text("# only a comment\n")
    with pytest.raises(OpeningError, match="holds no position"):
        read_epd(tmp_path / "empty.epd")
    with pytest.raises(OpeningError, match="not 'embedded', 'paper' or a file"):
        resolve_suite("ianfab")


def test_embedded_suite_matches_its_manifest_and_recipe() -> None:
    path = embedded_suite_path()
    manifest = json.loads(path.with_name(path.name + ".manifest.json").read_text())
    assert sha256_file(path) == manifest["sha256"]
    fens = read_epd(path)
    assert len(fens) == len(set(fens)) == manifest["positions"] == 2000
    low, high = manifest["recipe"]["band_cp"]
    for line in path.read_text().splitlines():
        cp = int(line.split('"')[1].split()[1])
        assert low <= abs(cp) <= high
    for fen in fens:
        board = chess.Board(fen)
        assert board.ply() == 5 and board.turn == chess.BLACK  # five random plies
        assert not board.is_game_over()


def test_shards_of_a_schedule_are_disjoint_complete_and_keep_pairs() -> None:
    fens = read_epd(embedded_suite_path())
    slots = schedule(fens, 7, seed=3)
    parts = [shard(slots, k, 3) for k in range(3)]
    ids = [slot.id for part in parts for slot in part]
    assert sorted(ids) == sorted(slot.id for slot in slots) and len(set(ids)) == 14
    for part in parts:  # both games of a pair land in the same shard
        assert {(s.pair, s.game) for s in part} == {(s.pair, g) for s in part for g in (0, 1)}
    with pytest.raises(OpeningError, match="2001 game pairs need 2001 openings"):
        schedule(fens, 2001, seed=0)


@pytest.mark.slow
def test_the_papers_suite_reads_whole() -> None:
    path = SHARED_DATA / "ianfab-books-chess.epd"
    if not path.exists():
        pytest.skip(f"the paper's opening suite is not at {path}")
    assert sha256_file(path) == PAPER_SUITE_SHA256
    fens = read_epd(path)
    assert len(fens) == 31_526
    assert all(chess.Board(fen).turn == chess.BLACK for fen in fens)
