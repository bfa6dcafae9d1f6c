"""The statistics pass: frame invariants, parallel = serial, resume, checksums."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.pgn
import pandas as pd
import pytest

from chessmoe._io.errors import KitError
from chessmoe.games import stats as stats_mod
from chessmoe.games.sources import ResolvedSource
from chessmoe.games.stats import StatsMissing, compute, load
from chessmoe.phases import lichess_division, lichess_phase, mixedness
from tests.helpers import random_games_pgn


@pytest.fixture(scope="module")
def pgn_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return random_games_pgn(tmp_path_factory.mktemp("pgn") / "random.pgn", 60)


def _source(path: Path) -> ResolvedSource:
    return ResolvedSource(str(path), "random", (path,), "random legal games")


def test_frames_hold_every_position_with_correct_features(pgn_file: Path,
                                                           tmp_path: Path) -> None:
    result = compute(_source(pgn_file), tmp_path / "out", progress=False)
    positions, games, manifest = load(result.directory)
    assert manifest["counts"]["games"] == len(games) == result.skips.kept
    assert len(positions) == int((games["plies"] + 1).sum()) == manifest["counts"]["positions"]
    assert positions.groupby("game")["ply"].max().tolist() == games["plies"].tolist()
    assert set(games["split"]) <= {"train", "val", "test"}
    # Replay a few games and compare every per-position value with the scalar functions.
    game_id = 0
    handle = pgn_file.open()
    while (game := chess.pgn.read_game(handle)) is not None:
        if len(list(game.mainline_moves())) < 10:
            continue
        if game_id % 7 == 0:
            rows = positions[positions["game"] == game_id]
            board = game.board()
            boards = [board.copy()]
            for move in game.mainline_moves():
                board.push(move)
                boards.append(board.copy())
            assert rows["mixedness_lichess"].tolist() == [mixedness(b) for b in boards]
            assert rows["mixedness_engine"].tolist() == [mixedness(b, "engine") for b in boards]
            assert rows["phase_lichess"].tolist() == [int(lichess_phase(b)) for b in boards]
            assert rows["move_number"].tolist() == [b.fullmove_number for b in boards]
            division = lichess_division(boards)
            assert rows["division_lichess"].tolist() == [int(p) for p in division.labels()]
            row = games[games["game"] == game_id].iloc[0]
            assert row["middle_lichess"] == (-1 if division.middle is None else division.middle)
            assert row["end_lichess"] == (-1 if division.end is None else division.end)
            if division.middle is not None:
                assert row["middle_move_lichess"] == boards[division.middle].fullmove_number
        game_id += 1
    handle.close()
    assert game_id == len(games)


def test_byte_range_parts_give_identical_frames(pgn_file: Path, tmp_path: Path) -> None:
    one = compute(_source(pgn_file), tmp_path / "one", progress=False, parts=1)
    many = compute(_source(pgn_file), tmp_path / "many", progress=False, parts=5)
    p1, g1, _ = load(one.directory)
    p5, g5, _ = load(many.directory)
    pd.testing.assert_frame_equal(p1, p5)
    pd.testing.assert_frame_equal(g1.drop(columns="offset"), g5.drop(columns="offset"))
    assert g1["offset"].tolist() == g5["offset"].tolist()


@pytest.mark.slow
def test_two_worker_processes_give_identical_frames(pgn_file: Path, tmp_path: Path) -> None:
    serial = compute(_source(pgn_file), tmp_path / "serial", progress=False)
    parallel = compute(_source(pgn_file), tmp_path / "parallel", progress=False, workers=2)
    pd.testing.assert_frame_equal(load(serial.directory)[0], load(parallel.directory)[0])
    pd.testing.assert_frame_equal(load(serial.directory)[1], load(parallel.directory)[1])


def test_interrupted_pass_resumes_without_redoing_units(pgn_file: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    reference = compute(_source(pgn_file), tmp_path / "ref", progress=False, parts=4)
    real = stats_mod._stats_unit
    calls: list[str] = []

    def flaky(unit, work):  # type: ignore[no-untyped-def]
        calls.append(unit.id)
        if len(calls) == 3:
            raise KeyboardInterrupt("simulated interruption")
        return real(unit, work)

    monkeypatch.setattr(stats_mod, "_stats_unit", flaky)
    out = tmp_path / "resumed"
    with pytest.raises(KeyboardInterrupt):
        compute(_source(pgn_file), out, progress=False, parts=4)
    assert not (out / "manifest.json").exists()
    assert len(list((out / ".parts").glob("*.done.json"))) == 2
    calls.clear()
    resumed = compute(_source(pgn_file), out, progress=False, parts=4)
    assert len(calls) == 2  # only the two missing units ran again
    pd.testing.assert_frame_equal(load(reference.directory)[0], load(resumed.directory)[0])
    pd.testing.assert_frame_equal(load(reference.directory)[1], load(resumed.directory)[1])
    assert not (out / ".parts").exists()


def test_load_detects_missing_and_damaged_frames(pgn_file: Path, tmp_path: Path) -> None:
    result = compute(_source(pgn_file), tmp_path / "out", progress=False)
    positions = result.directory / "positions.parquet"
    positions.write_bytes(positions.read_bytes()[:-100] + b"x" * 100)
    with pytest.raises(StatsMissing, match=r"positions\.parquet does not match the checksum"):
        load(result.directory)
    (result.directory / "manifest.json").unlink()
    with pytest.raises(StatsMissing, match="make results-stats"):
        load(result.directory)


def test_source_without_kept_games_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "short.pgn"
    path.write_text('[Result "1-0"]\n\n1. e4 e5 1-0\n\n')
    with pytest.raises(KitError, match=r"short.*no game passed the filters.*too_short 1"):
        compute(_source(path), tmp_path / "out", progress=False)
