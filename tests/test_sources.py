"""Source specs: the embedded sample and name resolution."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from chessmoe._io.fsutil import sha256_file
from chessmoe.games import sources
from chessmoe.games.pgn import PgnFilters, SkipCounter, iter_games
from chessmoe.games.splits import MonthSplit, SeededSplit


@pytest.mark.slow
def test_embedded_sample_matches_its_manifest() -> None:
    path = sources.sample_path()
    manifest = sources.sample_manifest()
    assert manifest["sha256"] == sha256_file(path)
    assert manifest["engine"].startswith("Stockfish 15.1")
    counts = manifest["counts"]
    assert counts["games"] >= 2000
    every = PgnFilters(min_full_moves=0)
    assert sum(g.plies for g in iter_games(path, filters=every)) == counts["plies"]
    skips = SkipCounter()
    for _ in iter_games(path, skips=skips):
        pass
    assert skips.seen == counts["games"]
    # the recipe only writes finished games; a few end (mate) before move 5
    assert set(skips.skipped) <= {"too_short"}
    assert skips.kept + skips.skipped["too_short"] == counts["games"]
    assert skips.kept > 0.98 * counts["games"]
    assert sum(counts["results"].values()) == counts["games"]


def test_export_sample_plain_and_gzip(tmp_path: Path) -> None:
    plain = sources.export_sample(tmp_path / "s.pgn")
    packed = sources.export_sample(tmp_path / "s.pgn.gz")
    assert plain.read_bytes() == gzip.decompress(packed.read_bytes())
    assert plain.read_bytes().startswith(b"[Event ")


def test_resolve_names_and_paths(tmp_path: Path) -> None:
    sample = sources.resolve("sample")
    assert sample.name == "selfplay-sample" and isinstance(sample.split_rule, SeededSplit)
    month = tmp_path / "lichess_db_standard_rated_2013-01_first10.pgn"
    month.write_text("")
    lichess = sources.resolve("lichess-2013-01:10", tmp_path, fetch_missing=False)
    assert lichess.files == (month,) and lichess.name == "lichess-2013-01-first10"
    kingbase_dir = tmp_path / "kingbase" / "pgn"
    kingbase_dir.mkdir(parents=True)
    (kingbase_dir / "KingBaseLite2019-A00-A39.pgn").write_text("")
    kingbase = sources.resolve("kingbase", tmp_path, fetch_missing=False)
    assert kingbase.name == "kingbase-lite-2019" and isinstance(kingbase.split_rule, MonthSplit)
    direct = sources.resolve(str(month))
    assert direct.name == "lichess_db_standard_rated_2013-01_first10"


def test_resolve_unknown_or_missing_sources(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="unknown source"):
        sources.resolve("chessbase-2020", tmp_path)
    with pytest.raises(FileNotFoundError, match="chessmoe data fetch lichess-2013-02"):
        sources.resolve("lichess-2013-02:5", tmp_path, fetch_missing=False)
    with pytest.raises(sources.FetchError, match="unknown database"):
        sources.fetch("fics", tmp_path)


def test_named_lichess_file_is_checked_against_its_known_checksum(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chessmoe.games import fetch

    (tmp_path / "lichess_db_standard_rated_2013-01_first5000.pgn").write_text("tampered")
    monkeypatch.setattr(fetch, "LICHESS_URL", "http://127.0.0.1:9/{month}.zst")
    # The present file does not match the known sha256, so it is fetched again: offline here.
    # The download's own error reaches the caller: one FetchError, whichever module names it.
    with pytest.raises(fetch.FetchError, match="offline") as failed:
        sources.resolve("lichess-2013-01:5000", tmp_path, progress=False)
    assert type(failed.value) is sources.FetchError is fetch.FetchError
