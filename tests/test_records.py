"""Game and match records read and write the committed JSON unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chessmoe._io.jsonl import read_records
from chessmoe.records import GameRecord, MatchSummary, summarise

ROOT = Path(__file__).resolve().parents[1]
LOGS = sorted((ROOT / "results" / "tournaments").glob("*/*/games-*.jsonl"))


@pytest.mark.slow
@pytest.mark.skipif(not LOGS, reason="no committed tournament in this checkout")
def test_every_committed_game_round_trips_field_for_field() -> None:
    count = 0
    for log in LOGS:
        for row in read_records(log).records:
            assert GameRecord.from_json(row).to_json() == row
            count += 1
    assert count > 100


@pytest.mark.skipif(not (ROOT / "results" / "tournaments" / "small" / "summary.json").exists(),
                    reason="the committed small tournament is not here")
def test_summaries_recompute_to_the_committed_summary() -> None:
    base = ROOT / "results" / "tournaments" / "small"
    committed = json.loads((base / "summary.json").read_text())
    for match in committed["matches"][:6]:
        rows = [GameRecord.from_json(r) for log in sorted((base / match["name"]).glob(
            "games-*.jsonl")) for r in read_records(log).records]
        recomputed = summarise(rows).to_json()
        stored = MatchSummary.from_json(match).to_json()  # the interval's ends on reading
        for key in recomputed:
            if key != "game_seconds":
                assert recomputed[key] == stored[key], (match["name"], key)


def test_a_first_engine_that_always_loses_scores_zero_with_either_colour() -> None:
    game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", ("e2e4",), (0,), (), 1.0)
    as_white = game.in_match(pair=0, first_is_white=True, first_score=0.0, result="0-1")
    as_black = game.in_match(pair=0, first_is_white=False, first_score=0.0, result="1-0")
    summary = summarise([as_white, as_black])
    assert (summary.wins, summary.draws, summary.losses) == (0, 0, 2)
    assert summary.pentanomial == (1, 0, 0, 0, 0)


def test_only_complete_pairs_enter_the_pentanomial() -> None:
    """A pair with one game played (a match in progress, a lost game) counts in W/D/L but not
    among the pairs: 3 scored games are 1 pair, and so are 4 whose last two are halves of
    two different pairs."""
    game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", ("e2e4",), (0,), (), 1.0)
    pair0 = [game.in_match(pair=0, first_score=1.0), game.in_match(pair=0, first_score=0.5)]
    three = summarise([*pair0, game.in_match(pair=1, first_score=0.0)])
    assert (three.wins, three.draws, three.losses) == (1, 1, 1)
    assert three.pentanomial == (0, 0, 0, 1, 0)  # WD only
    four = summarise([*pair0, game.in_match(pair=1, first_score=1.0),
                      game.in_match(pair=2, first_score=1.0)])
    assert (four.wins, four.draws, four.losses) == (3, 1, 0)
    assert four.pentanomial == (0, 0, 0, 1, 0)  # not a WW pair made of two halves


def test_every_committed_pgn_ends_each_game_with_a_blank_line() -> None:
    """So that ``cat a.pgn b.pgn`` stays valid PGN (the last game would merge otherwise)."""
    root = Path(__file__).resolve().parents[1] / "results"
    files = sorted(root.rglob("*.pgn"))
    assert len(files) > 30
    assert [str(f) for f in files if not f.read_bytes().endswith(b"\n\n")] == []
