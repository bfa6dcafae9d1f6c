"""The seam of the related engines (chessmoe.play.players): unknown kinds and missing runs are
one clear KitError each, naming what is missing and how to train it."""

from __future__ import annotations

from pathlib import Path

import pytest

from chessmoe._io.errors import KitError
from chessmoe.play.players import build_searcher, run_files


@pytest.mark.parametrize("kind", ["deepchess", "mais"])
def test_an_empty_run_directory_names_the_missing_file_and_the_command(
        kind: str, tmp_path: Path) -> None:
    with pytest.raises(KitError) as error:
        build_searcher(kind, tmp_path)
    message = str(error.value)
    assert str(tmp_path) in message and "not found" in message
    assert f"python -m chessmoe related train {kind} --out {tmp_path}" in message
    assert "\n" not in message


def test_run_files_returns_the_files_in_order_or_says_there_is_no_run(tmp_path: Path) -> None:
    for name in ("weights.pt", "config.json"):
        (tmp_path / name).write_text("x")
    assert run_files("x", tmp_path, "config.json", "weights.pt") == [
        tmp_path / "config.json", tmp_path / "weights.pt"]
    with pytest.raises(KitError, match="no trained x weights"):
        run_files("x", None, "weights.pt")
    with pytest.raises(KitError, match=r"missing\.bin not found"):
        run_files("x", tmp_path, "weights.pt", "missing.bin")


def test_an_unknown_engine_lists_the_known_ones() -> None:
    with pytest.raises(KitError, match="unknown engine 'alphazero': one of moe, deepchess"):
        build_searcher("alphazero")


def test_the_lichess_excerpt_is_found_in_the_named_or_default_data_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chessmoe.games.sources import LICHESS_EXCERPT, lichess_excerpt, sample_path

    named, default = tmp_path / "named", tmp_path / "default"
    named.mkdir()
    default.mkdir()
    monkeypatch.setenv("CHESSMOE_DATA", str(default))
    with pytest.raises(KitError, match="chessmoe data fetch lichess-2013-01 --first 5000"):
        lichess_excerpt(named)
    assert lichess_excerpt(None, or_sample=True) == sample_path()
    with pytest.raises(KitError, match=str(named)):  # a named folder never falls back
        lichess_excerpt(named, or_sample=True)
    (default / LICHESS_EXCERPT).write_text("x")
    assert lichess_excerpt(None) == default / LICHESS_EXCERPT
    assert lichess_excerpt(named) == default / LICHESS_EXCERPT
    (named / LICHESS_EXCERPT).write_text("y")
    assert lichess_excerpt(named) == named / LICHESS_EXCERPT
    assert lichess_excerpt(named / LICHESS_EXCERPT) == named / LICHESS_EXCERPT


def test_ntuple_never_stands_in_material_for_weights_it_was_not_given(tmp_path: Path) -> None:
    """Issue 43: Evaluation=weights with no run is an error naming the fix; material and
    PeSTO are asked for by name."""
    from chessmoe.play.players import ntuple

    with pytest.raises(KitError, match="no trained ntuple weights"):
        ntuple.build_searcher(None)
    with pytest.raises(KitError, match="not found"):
        ntuple.build_searcher(tmp_path)
    for evaluation in ("material", "pesto"):
        player = ntuple.build_searcher(None, options={"Evaluation": evaluation})
        assert f"evaluation {evaluation}" in getattr(player, "loaded", "")
