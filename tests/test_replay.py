"""The same games under two rule sets (chessmoe.replay and the draw-rules table)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chessmoe import replay
from chessmoe._io.jsonl import append_record
from chessmoe.records import GameRecord
from chessmoe.report.figures import claims

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
LINE = ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6")
WHITE_SCORES, BLACK_SCORES = (10, 20, 30), (-10, -20, -30)  # one per move of LINE's sides


def _game(pair: int, first_white: bool, moves: tuple[str, ...], score: float,
          white: tuple[int, ...] = WHITE_SCORES, black: tuple[int, ...] = BLACK_SCORES
          ) -> GameRecord:
    """A game of pair ``pair`` (opening 100 + pair) with each side's scores cut to its moves."""
    game = GameRecord("a", "b", START, "1/2-1/2", "repetition", "", moves,
                      white[:(len(moves) + 1) // 2], black[:len(moves) // 2], 0.0)
    return game.in_match(pair=pair, opening=100 + pair, first_is_white=first_white,
                         first_score=score)


def test_a_replayed_game_is_classified_by_its_moves_against_the_original() -> None:
    short, full = _game(3, True, LINE[:4], 0.5), _game(3, True, LINE, 1.0)
    assert replay.compare_game(short, full).relation == replay.PLAYED_ON
    assert replay.compare_game(full, short).relation == replay.ENDED_SOONER
    assert replay.compare_game(full, full).relation == replay.SAME
    # same length, one move different: diverged, not "same moves"
    other = _game(3, True, (*LINE[:5], "h7h6"), 0.0)
    assert replay.compare_game(full, other).relation == replay.DIVERGED
    change = replay.compare_game(short, full)
    assert (change.pair, change.first_is_white, change.before, change.after) == \
        (3, True, 0.5, 1.0)
    assert not change.rescored
    with pytest.raises(ValueError, match="pair 3"):
        replay.compare_game(full, _game(3, False, LINE, 1.0))
    moved = full.in_match(fen=START.replace(" w ", " b "))
    with pytest.raises(ValueError, match="position"):
        replay.compare_game(full, moved)


def test_scores_are_compared_over_the_moves_both_games_share_only() -> None:
    """A different score on a shared move is a rescored game; a score on a move only the
    longer game made is not; before a divergence only the moves up to it count."""
    full = _game(1, True, LINE, 1.0)
    assert replay.compare_game(full, _game(1, True, LINE, 1.0, black=(-10, -21, -30))).rescored
    short = _game(1, True, LINE[:3], 0.5, white=(10, 20), black=(-10,))
    longer = _game(1, True, LINE, 1.0, white=(10, 20, 99), black=(-10, -99, -99))
    assert not replay.compare_game(short, longer).rescored  # White's 3rd move: after ply 3
    split = _game(1, True, (*LINE[:2], "d2d4", *LINE[3:]), 0.0, white=(10, 77, 30))
    assert replay.compare_game(full, split).relation == replay.DIVERGED
    assert not replay.compare_game(full, split).rescored  # its 2nd move is where they split


BEFORE = [_game(0, True, LINE[:4], 0.5), _game(0, False, LINE[:4], 0.5),
          _game(1, True, LINE, 1.0), _game(1, False, LINE, 0.0),
          _game(2, True, LINE, 1.0), _game(2, False, LINE, 0.5),
          _game(3, True, LINE, 0.5), _game(3, False, LINE, 0.5),
          _game(4, True, LINE, 1.0), _game(4, False, LINE, 1.0)]
AFTER = [_game(0, True, LINE, 1.0), _game(0, False, LINE, 0.5),
         _game(1, True, LINE, 1.0), _game(1, False, LINE, 0.0),
         _game(2, True, LINE[:2], 0.5), _game(2, False, LINE, 0.5),
         _game(3, True, (*LINE[:3], "g8f6"), 0.0), _game(3, False, LINE, 0.5),
         _game(4, True, LINE, 0.0)]


def test_an_arm_counts_its_games_and_shifts_on_the_pairs_both_tournaments_played() -> None:
    """Pairs 0-3 complete in both; pair 4 only half played in the replay (left out).
    Pair 0: both games played on, the arm wins one it drew (+0.25 a pair); pair 1: the same
    moves; pair 2: ended sooner, the arm's win becomes a draw (-0.25); pair 3: diverged, a
    draw becomes a loss (-0.25). Shift: mean of (+25, 0, -25, -25) points."""
    row = replay.replay_arm("staged", BEFORE, AFTER)
    assert row.games == 8  # four shared complete pairs
    assert (row.same_moves, row.played_on, row.ended_sooner, row.diverged) == (4, 2, 1, 1)
    assert (row.to_first, row.to_second, row.changed, row.changed_diverged) == (1, 2, 3, 1)
    assert row.rescored == 0
    assert row.shift.openings == 4 and row.shift.diff == pytest.approx(-6.25)
    assert row.before.pairs == row.after.pairs == 4
    assert row.before.score == pytest.approx((0.5 + 0.5 + 0.75 + 0.5) / 4)
    assert row.after.score == pytest.approx((0.75 + 0.5 + 0.5 + 0.25) / 4)


def test_a_pair_with_two_games_of_one_colour_is_an_error_not_a_silent_drop() -> None:
    twice = [*AFTER[:2], AFTER[0].in_match(first_is_white=False)]
    with pytest.raises(ValueError, match="staged: pair 0 has two games"):
        replay.replay_arm("staged", BEFORE[:2], twice)


def _write(tournament: Path, arm: str, records: list[GameRecord], rules: str) -> None:
    (tournament / arm).mkdir(parents=True, exist_ok=True)
    (tournament / "spec.json").write_text(json.dumps(
        {"adjudication": {"draw_rules": rules}, "matches": []}))
    for r in records:
        append_record(tournament / arm / "games-000.jsonl", r.to_json())


def test_the_draw_rules_table_writes_each_arm_its_elo_and_shift_and_adds_up_the_counts(
        tmp_path: Path) -> None:
    before, after = tmp_path / "powered", tmp_path / "replicated"
    _write(before, "staged-b8-n100", BEFORE, "claim")
    _write(after, "staged-b8-n100", AFTER, "cutechess")
    _write(before, "separated-b8-n100", BEFORE[:4], "claim")
    _write(after, "separated-b8-n100", [AFTER[0], BEFORE[1], *AFTER[2:4]], "cutechess")
    _write(before, "only-in-powered", BEFORE, "claim")
    table = claims.table_draw_rules(before, after, tmp_path / "out")
    frame = table.table
    assert frame is not None
    assert list(frame.index) == ["separated-b8-n100", "staged-b8-n100", "all arms"]
    assert list(frame.columns[:9]) == list(claims.DRAW_RULES_COUNTS)
    staged = frame.loc["staged-b8-n100"]
    assert [staged[c] for c in claims.DRAW_RULES_COUNTS] == [8, 4, 2, 1, 1, 0, 3, 1, 2]
    # before: pair scores 0.5, 0.5, 0.75, 0.5 (mean 0.5625); after 0.75, 0.5, 0.5, 0.25 (0.5)
    assert staged["Elo, original rules"].startswith("+44 [")
    assert staged["Elo, replay rules"].startswith("+0 [")
    # differences 25, 0, -25, -25: sd 23.94, se 11.97, mean -6.25 +- 1.96 se
    assert staged["shift (points a pair)"] == "-6.2 [-29.7, +17.2]"
    total = frame.loc["all arms"]
    # separated: pair 0 White played on (a draw won), Black and pair 1 the same moves
    assert [total[c] for c in claims.DRAW_RULES_COUNTS] == [12, 7, 3, 1, 1, 0, 4, 2, 2]
    text = table.paths[1].read_text()
    assert "'powered' (claim draw rules) replayed as 'replicated' (cutechess draw rules)" in text
    assert "'played on': the claim rules ended the original earlier" in text
    assert "12 games: 11 repeat the original" in text
    assert "4 (33.3 %) changed result (2 toward the arm, 2 toward its opponent)" in text
    for missing in (tmp_path / "none", before):
        empty = claims.table_draw_rules(missing, tmp_path / "absent", tmp_path / "out2")
        assert "No game pair was played completely by both yet." in empty.paths[1].read_text()
