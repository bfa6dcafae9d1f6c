"""The same games under two rule sets (report.replay and the draw-rules table)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chessmoe._io.jsonl import append_record
from chessmoe.play.records import GameRecord
from chessmoe.report import replay
from chessmoe.report.figures import claims

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
LINE = ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6")


def _game(opening: int, first_white: bool, moves: tuple[str, ...], score: float,
          pair: int | None = None) -> GameRecord:
    game = GameRecord("a", "b", START, "1/2-1/2", "repetition", "", moves, (), (), 0.0)
    return game.in_match(pair=opening if pair is None else pair, opening=opening,
                         first_is_white=first_white, first_score=score)


def test_a_replayed_game_is_classified_by_its_moves_against_the_original() -> None:
    short, full = _game(3, True, LINE[:4], 0.5), _game(3, True, LINE, 1.0)
    assert replay.compare_game(short, full).relation == replay.PLAYED_ON
    assert replay.compare_game(full, short).relation == replay.ENDED_SOONER
    assert replay.compare_game(full, full).relation == replay.SAME
    other = _game(3, True, (*LINE[:3], "g8f6"), 0.0)
    assert replay.compare_game(full, other).relation == replay.DIVERGED
    change = replay.compare_game(short, full)
    assert (change.opening, change.first_is_white, change.before, change.after) == \
        (3, True, 0.5, 1.0)
    with pytest.raises(ValueError, match="opening 3"):
        replay.compare_game(full, _game(3, False, LINE, 1.0))


def test_an_arm_counts_its_games_and_shifts_on_the_pairs_both_tournaments_played() -> None:
    """Openings 0-3 complete in both; opening 4 only half played in the replay (left out).
    Opening 0: both games played on, the arm wins one it drew (+0.25 a pair); opening 1: the
    same moves; opening 2: ended sooner, the arm's win becomes a draw (-0.25); opening 3:
    diverged, a draw becomes a loss (-0.25). Shift: mean of (+25, 0, -25, -25) points."""
    before = [_game(0, True, LINE[:4], 0.5), _game(0, False, LINE[:4], 0.5),
              _game(1, True, LINE, 1.0), _game(1, False, LINE, 0.0),
              _game(2, True, LINE, 1.0), _game(2, False, LINE, 0.5),
              _game(3, True, LINE, 0.5), _game(3, False, LINE, 0.5),
              _game(4, True, LINE, 1.0), _game(4, False, LINE, 1.0)]
    after = [_game(0, True, LINE, 1.0), _game(0, False, LINE, 0.5),
             _game(1, True, LINE, 1.0), _game(1, False, LINE, 0.0),
             _game(2, True, LINE[:2], 0.5), _game(2, False, LINE, 0.5),
             _game(3, True, (*LINE[:3], "g8f6"), 0.0), _game(3, False, LINE, 0.5),
             _game(4, True, LINE, 0.0)]
    row = replay.replay_arm("staged", before, after)
    assert row.games == 8  # four shared complete pairs
    assert (row.same_moves, row.played_on, row.ended_sooner, row.diverged) == (4, 2, 1, 1)
    assert (row.to_first, row.to_second, row.changed, row.changed_diverged) == (1, 2, 3, 1)
    assert row.shift.openings == 4 and row.shift.diff == pytest.approx(-6.25)
    assert row.before.pairs == row.after.pairs == 4
    assert row.before.score == pytest.approx((0.5 + 0.5 + 0.75 + 0.5) / 4)
    assert row.after.score == pytest.approx((0.75 + 0.5 + 0.5 + 0.25) / 4)


def _write(directory: Path, records: list[GameRecord], rules: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory.parent / "spec.json").write_text(json.dumps(
        {"adjudication": {"draw_rules": rules}, "matches": []}))
    for r in records:
        append_record(directory / "games-000.jsonl", r.to_json())


def test_the_draw_rules_table_adds_up_every_arm_and_names_both_rule_sets(
        tmp_path: Path) -> None:
    before, after = tmp_path / "powered", tmp_path / "replicated"
    for arm, won in (("staged-b8-n100", 1.0), ("separated-b8-n100", 0.0)):
        _write(before / arm, [_game(k, w, LINE[:4], 0.5) for k in range(3)
                              for w in (True, False)], "claim")
        _write(after / arm, [_game(k, w, LINE, won if (k, w) == (0, True) else 0.5)
                             for k in range(3) for w in (True, False)], "cutechess")
    _write(before / "only-in-powered", [_game(0, True, LINE, 1.0)], "claim")
    table = claims.table_draw_rules(before, after, tmp_path / "out")
    frame = table.table
    assert frame is not None
    assert list(frame.index) == ["separated-b8-n100", "staged-b8-n100", "all arms"]
    assert frame.loc["all arms", "games"] == 12 and frame.loc["all arms", "played on"] == 12
    assert frame.loc["staged-b8-n100", "toward the arm"] == 1
    assert frame.loc["separated-b8-n100", "toward its opponent"] == 1
    assert frame.loc["all arms", "results changed"] == 2
    assert "Elo, claim rules" in frame.columns and "Elo, cutechess rules" in frame.columns
    text = table.paths[1].read_text()
    assert "2 of 12 games (16.7 %) changed result (1 toward the arm, 1 toward its opponent)" \
        in text
    empty = claims.table_draw_rules(tmp_path / "none", after, tmp_path / "out2")
    assert "No game was played by both yet." in empty.paths[1].read_text()
