"""Game and match records read and write the committed JSON unchanged; summaries carry the
interval's ends; one definition of a complete game pair serves every counter of pairs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from chessmoe import elo
from chessmoe._io.jsonl import read_records
from chessmoe.records import (
    GamePair,
    GameRecord,
    LoggedStep,
    MatchSummary,
    SprtRecord,
    TournamentSummary,
    VersusSummary,
    complete_pairs,
    last_logged,
    pentanomial_counts,
    summarise,
)

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


# --- typed summaries: every committed summary.json, old and new -----------------------------

SUMMARIES = sorted((ROOT / "results" / "tournaments").glob("*/summary.json"))
VERSUS = sorted(p for p in (ROOT / "results" / "related").glob("**/summary.json")
                if "players" in json.loads(p.read_text()) and "mais_wins" not in
                json.loads(p.read_text()))


def _text(data: object) -> str:
    """JSON text (sorted keys): equal where the values are, a nan equal to itself."""
    return json.dumps(data, sort_keys=True)


@pytest.mark.skipif(not SUMMARIES, reason="no committed tournament in this checkout")
@pytest.mark.parametrize("path", SUMMARIES, ids=lambda p: p.parent.name)
def test_every_committed_tournament_summary_round_trips_with_the_intervals_ends(
        path: Path) -> None:
    """A committed summary reads into the typed record and writes back field for field, the
    interval's ends added: computed on reading (where the file predates them) from the stored W/D/L
    by cutechess's recipe, so they agree with chessmoe.elo and with the stored Elo and margin."""
    data = json.loads(path.read_text())
    typed = TournamentSummary.from_json(data)
    written = typed.to_json()
    assert _text(TournamentSummary.from_json(written).to_json()) == _text(written)
    assert len(typed.matches) == len(data["matches"]) > 0
    for match, stored, entry in zip(typed.matches, data["matches"], written["matches"],
                                    strict=True):
        # the file's own fields, unchanged; the ends the only addition
        # (a summary written since the ends were added stores them: the same values)
        assert _text({k: v for k, v in entry.items() if k not in ("low", "high")}) \
            == _text({k: v for k, v in stored.items() if k not in ("low", "high")})
        if "low" in stored:
            assert _text([entry["low"], entry["high"]]) == _text([stored["low"], stored["high"]])
        result = match.summary
        assert (result.games, result.wins, result.draws, result.losses) == (
            stored["games"], stored["wins"], stored["draws"], stored["losses"])
        assert _text([result.elo, result.margin]) == _text([stored["elo"], stored["margin"]])
        estimate = elo.trinomial(result.wins, result.losses, result.draws)
        assert _text([result.low, result.high]) == _text([estimate.low, estimate.high])
        assert _text([estimate.elo, estimate.margin]) == _text([result.elo, result.margin])
        if result.games and math.isfinite(result.margin):  # the margin: half the ends' width
            assert result.margin == pytest.approx((result.high - result.low) / 2)
            assert result.low < result.elo < result.high
    assert typed.complete == data["complete"] and typed.tournament == data["tournament"]


@pytest.mark.skipif(not VERSUS, reason="no committed two-engine run in this checkout")
def test_every_committed_two_engine_summary_round_trips() -> None:
    for path in VERSUS:
        data = json.loads(path.read_text())
        typed = VersusSummary.from_json(data)
        assert _text(typed.to_json()) == _text({k: data[k] for k in typed.to_json()}), path


def test_a_summary_written_now_carries_the_ends_a_reader_of_an_old_one_computes() -> None:
    """Old and new agree: the ends a summary stores are the ones an old summary of the same
    games gets on reading."""
    game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", ("e2e4",), (0,), (), 1.0)
    records = [game.in_match(pair=k // 2, opening=k // 2, first_score=s)
               for k, s in enumerate((1.0, 0.5, 0.5, 0.5, 0.0, 1.0, 1.0, 1.0))]
    new = summarise(records).to_json()
    old = {k: v for k, v in new.items() if k not in ("low", "high")}
    assert _text(MatchSummary.from_json(old).to_json()) == _text(new)
    estimate = elo.trinomial(4, 1, 3)
    assert (new["low"], new["high"]) == (estimate.low, estimate.high)


# --- one definition of a complete game pair ----------------------------------------------------


def _incomplete_pairs() -> list[GameRecord]:
    """Pair 0 complete (a win and a draw), pair 1 with one game, pair 2 recorded three times,
    a game with no pair number, a game without the match's score, and pair 3 complete."""
    game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", ("e2e4",), (0,), (), 1.0)
    return [game.in_match(pair=0, opening=10, first_score=1.0),
            game.in_match(pair=1, opening=11, first_score=1.0),
            game.in_match(pair=0, opening=10, first_score=0.5),
            *(game.in_match(pair=2, opening=12, first_score=1.0) for _ in range(3)),
            game.in_match(opening=13, first_score=1.0),
            game.in_match(pair=3, opening=14, first_score=None),
            game.in_match(pair=4, opening=15, first_score=0.0),
            game.in_match(pair=4, opening=15, first_score=0.0)]


def test_an_incomplete_pair_counts_in_no_user_of_the_pair_definition() -> None:
    """The summary's pentanomial counts, the claims' pair scores and a sequential test read
    the same complete pairs: 0 (WD) and 4 (LL), never 1 (one game), 2 (three games), a game
    without a pair number or a pair without scores."""
    from chessmoe import estimates
    from chessmoe.play.match import SprtRule
    from chessmoe.play.tournament import sprt_record

    records = _incomplete_pairs()
    assert list(complete_pairs(records)) == [0, 4]
    assert complete_pairs(records)[0] == GamePair(0, 10, (1.0, 0.5))
    expected = (1, 0, 0, 1, 0)  # LL, WD
    assert pentanomial_counts(records) == expected
    summary = summarise(records)
    assert summary.pentanomial == expected
    assert (summary.wins, summary.draws, summary.losses) == (6, 1, 2)  # W/D/L: every game
    assert estimates.pair_scores(records) == {0: (10, 0.75), 4: (15, 0.0)}
    rule = SprtRule(elo0=0.0, elo1=50.0)
    test = sprt_record(rule, records)
    assert (test.pairs, test.pentanomial) == (2, expected)
    assert rule.state(records) == test.state
    assert SprtRecord.of(records, elo0=0.0, elo1=50.0, alpha=0.05, beta=0.05,
                         model="logistic", exact=True) == test


@pytest.mark.skipif(not (ROOT / "results" / "tournaments" / "powered").is_dir(),
                    reason="the committed powered tournament is not here")
def test_the_summaries_pairs_are_the_claims_pairs_on_committed_games() -> None:
    """Every arm of the powered tournament: the pentanomial counts of its summary and of the
    claims' pair scores (each pair's mean score in quarters) are the same."""
    from chessmoe import estimates, played

    for name, records in played.load_arms(ROOT / "results" / "tournaments" / "powered").items():
        counts = [0] * 5
        for _, score in estimates.pair_scores(records).values():
            counts[round(4 * score)] += 1
        assert tuple(counts) == summarise(records).pentanomial, name


def test_last_logged_reads_the_furthest_step_and_its_time(tmp_path: Path) -> None:
    """The furthest iteration of a metrics log with the time of the last record at it; a cut
    last line, a record without a number for its iteration, a boolean and step 0 are passed
    over, the others still count."""
    log = tmp_path / "metrics.jsonl"
    rows = [{"iteration": 0, "time": 0.0, "set": "val"},
            {"iteration": 100, "time": 40.5, "set": "train"},
            {"iteration": 200, "time": 81.0, "set": "train"},
            {"iteration": 200, "time": 83.25, "set": "val"},  # the evaluation after it
            {"iteration": "300", "time": 120.0},
            {"iteration": True, "time": 1.0},
            {"phase": "done"}]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows)
                   + '{"iteration": 900, "time": 999.0', encoding="utf-8")  # cut short
    assert last_logged(log) == LoggedStep(200, 83.25)


def test_last_logged_without_a_step_or_a_time(tmp_path: Path) -> None:
    """No file, or no record past step 0: ``None``; a furthest record without a time keeps
    its iteration with the time ``None`` (the progress table then has no rate to give)."""
    assert last_logged(tmp_path / "absent.jsonl") is None
    log = tmp_path / "metrics.jsonl"
    log.write_text('{"iteration": 0, "time": 0.0}\n', encoding="utf-8")
    assert last_logged(log) is None
    log.write_text('{"iteration": 50, "time": 20.0}\n{"iteration": 75}\n', encoding="utf-8")
    assert last_logged(log) == LoggedStep(75, None)
