"""The rating list from PGN files: maximum likelihood, anchors, counted skips, the CLI."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from chessmoe.cli import main
from chessmoe.elo import trinomial
from chessmoe.games.pgn import SkipCounter
from chessmoe.games.ratings import (
    MatchCount,
    parse_anchor,
    rating_table,
    read_results,
)


def _game(white: str, black: str, result: str) -> str:
    moves = {"1-0": "1. f3 e5 2. g4 Qh4# 1-0", "0-1": "1. f3 e5 2. g4 Qh4# 0-1",
             "1/2-1/2": "1. e4 e5 1/2-1/2", "*": "1. e4 *"}[result]
    if result == "1-0":  # a real white win: the fool's mate the other way round
        moves = "1. e4 f6 2. d4 g5 3. Qh5# 1-0"
    return (f'[Event "t"]\n[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n'
            f"{moves}\n\n")


def _match(center: str, other: str, wins: int, draws: int, losses: int) -> str:
    """``other``'s games against ``center`` (W/D/L from ``other``'s side), colours alternating."""
    text = []
    outcomes = ["w"] * wins + ["d"] * draws + ["l"] * losses
    for k, outcome in enumerate(outcomes):
        other_white = k % 2 == 0
        white, black = (other, center) if other_white else (center, other)
        if outcome == "d":
            result = "1/2-1/2"
        else:
            white_won = (outcome == "w") == other_white
            result = "1-0" if white_won else "0-1"
        text.append(_game(white, black, result))
    return "".join(text)


STAR = {"X": (7, 5, 3), "Y": (2, 6, 8), "Z": (4, 4, 4)}


@pytest.fixture
def star_pgn(tmp_path: Path) -> Path:
    path = tmp_path / "star.pgn"
    path.write_text("".join(_match("C", name, *wdl) for name, wdl in STAR.items())
                    + _game("C", "X", "*"))
    return path


def test_star_tournament_gives_each_match_its_cutechess_elo(star_pgn: Path) -> None:
    skips = SkipCounter()
    matches = read_results([star_pgn], skips)
    assert skips.skipped["unfinished"] == 1  # the '*' game: counted, not rated
    rows = {r.name: r for r in rating_table(matches, anchor="C")}
    for name, (w, d, lost) in STAR.items():
        line = trinomial(w, lost, d)
        assert rows[name].elo == pytest.approx(line.elo, abs=1e-6)
        assert rows[name].games == w + d + lost
        assert rows[name].points == w + d / 2
    assert rows["C"].elo == 0 and rows["C"].games == 43
    assert [r.rank for r in rows.values()] == sorted(r.rank for r in rows.values())


def test_cli_prints_one_row_per_player_with_the_anchor_value(star_pgn: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    assert main(["ratings", str(star_pgn), "--anchor", "C=1500"]) == 0
    out = capsys.readouterr().out.splitlines()
    header, rows = out[0].split(), [line.split() for line in out[1:5]]
    assert header[:4] == ["rank", "name", "rating", "error"]
    by_name = {row[1]: row for row in rows}
    assert set(by_name) == {"C", "X", "Y", "Z"}
    expected = 1500 + trinomial(7, 3, 5).elo
    assert int(by_name["X"][2]) == round(expected)
    assert by_name["C"][2] == "1500" and by_name["C"][3] == "0"
    assert [row[0] for row in rows] == ["1", "2", "3", "4"]
    assert "unfinished 1" in out[-1]


def test_a_hand_computed_maximum_likelihood_example() -> None:
    """A beats B 3-1, B beats C 3-1, C beats A 3-1: by symmetry every rating is 0. With
    A-B 3-1 and B-C 3-1 only (a chain), each step is 400 log10(3) = 190.85 Elo."""
    cycle = rating_table([MatchCount("A", "B", 3, 0, 1), MatchCount("B", "C", 3, 0, 1),
                          MatchCount("C", "A", 3, 0, 1)])
    assert all(r.elo == pytest.approx(0.0, abs=1e-9) for r in cycle)
    chain = {r.name: r.elo for r in rating_table(
        [MatchCount("A", "B", 3, 0, 1), MatchCount("B", "C", 3, 0, 1)], anchor="B")}
    step = 400 * math.log10(3)
    assert chain["A"] == pytest.approx(step) and chain["C"] == pytest.approx(-step)


def test_ml_ratings_make_expected_points_equal_actual_points() -> None:
    """The likelihood's stationary condition, checked on an unbalanced real-valued case."""
    games = [MatchCount("A", "B", 5, 3, 2), MatchCount("B", "C", 4, 4, 1),
             MatchCount("A", "C", 2, 1, 0), MatchCount("C", "D", 1, 2, 6)]
    rows = {r.name: r for r in rating_table(games)}
    for name in rows:
        expected = 0.0
        for m in games:
            if name not in (m.first, m.second):
                continue
            other = m.second if name == m.first else m.first
            d = rows[name].elo - rows[other].elo
            expected += (m.wins + m.draws + m.losses) / (1 + 10 ** (-d / 400))
        assert expected == pytest.approx(rows[name].points, abs=1e-6)


def test_a_perfect_score_cannot_be_placed_and_says_so() -> None:
    rows = {r.name: r for r in rating_table([MatchCount("A", "B", 3, 1, 2),
                                             MatchCount("S", "A", 4, 0, 0)], anchor="B")}
    assert rows["S"].elo == math.inf and math.isinf(rows["S"].error)
    assert rows["S"].rank == 1


@pytest.mark.parametrize("bad", ["C=abc", "=12", "C=inf"])
def test_a_bad_anchor_is_one_line_exit_2(star_pgn: Path, bad: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ratings", str(star_pgn), "--anchor", bad]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--anchor" in err


def test_an_unknown_anchor_or_missing_file_is_one_line(star_pgn: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    assert main(["ratings", str(star_pgn), "--anchor", "Nobody=0"]) == 2
    assert "Nobody" in capsys.readouterr().err
    assert main(["ratings", str(tmp_path / "none.pgn")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none.pgn" in err


def test_parse_anchor_without_a_value_rates_it_zero() -> None:
    assert parse_anchor("stockfish-sl0") == ("stockfish-sl0", 0.0)
    assert parse_anchor("sf=1320") == ("sf", 1320.0)


@pytest.mark.slow
def test_the_tournament_rating_list_reads_game_records(tmp_path: Path) -> None:
    """A kit tournament directory (match folders of JSONL game records): W/D/L per match
    from its first engine's side, and the table/figure anchored at the named player."""
    from chessmoe._io.jsonl import append_record
    from chessmoe.games.ratings import tournament_results
    from chessmoe.records import GameRecord
    from chessmoe.report.figures import ratings as figures

    game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", (), (), (), 0.0)
    for first, scores in (("x", [1, 1, 0.5, 0]), ("y", [0, 0, 0.5, 0.5])):
        for k, score in enumerate(scores):
            record = game.in_match(pair=k // 2, opening=7 + k // 2, first=first,
                                   second="anchor", first_score=float(score))
            append_record(tmp_path / f"{first}-vs-anchor" / "games-000.jsonl",
                          record.to_json())
    (tmp_path / "empty-match").mkdir()
    matches = {m.first: m for m in tournament_results(tmp_path)}
    assert (matches["x"].wins, matches["x"].draws, matches["x"].losses) == (2, 1, 1)
    assert (matches["y"].wins, matches["y"].draws, matches["y"].losses) == (0, 2, 2)
    rows = {r.name: r for r in figures.rating_rows(tmp_path, "anchor", 1000.0)}
    assert rows["x"].elo == pytest.approx(1000 + trinomial(2, 1, 1).elo)
    assert rows["y"].elo == pytest.approx(1000 + trinomial(0, 2, 2).elo)
    table = figures.table_rating_list(tmp_path, tmp_path / "out", "anchor", 1000.0)
    assert table.table is not None and list(table.table["Player"]) == ["x", "anchor", "y"]
    # the notes name the tournament, its games, openings and rules (no spec: rules unknown),
    # and the command that rebuilds the list reads this tournament's PGNs
    text = table.paths[1].read_text()
    assert f"Tournament '{tmp_path.name}': 8 games from 2 distinct openings, unknown draw " \
        "rules." in text
    (tmp_path / "spec.json").write_text('{"adjudication": {"draw_rules": "cutechess"}}')
    text = figures.table_rating_list(tmp_path, tmp_path / "out", "anchor", 1000.0
                                     ).paths[1].read_text()
    assert "8 games from 2 distinct openings, cutechess draw rules." in text
    assert f"results/tournaments/{tmp_path.name}/*/games.pgn --anchor anchor=1000" in text
    figures.fig_rating_list(tmp_path, tmp_path / "out", "anchor", 1000.0)
    assert (tmp_path / "out" / "rating-list.png").stat().st_size > 0
    assert figures.rating_rows(tmp_path, "nobody", 0.0) == []


def test_the_scale_check_says_whether_the_nominal_rating_is_inside_the_interval() -> None:
    from chessmoe.games.ratings import RatingRow
    from chessmoe.report.figures.ratings import check_note

    near = RatingRow(1, "sf-elo1500-t100", 1460.0, 80.0, 1380.0, 1540.0, 5.0, 12)
    far = RatingRow(1, "sf-elo1500-t100", 1700.0, 80.0, 1620.0, 1780.0, 11.0, 12)
    check = ("sf-elo1500-t100", 1500.0)
    assert "1460 [1380, 1540] over 12 games" in str(check_note([near], check))
    assert "inside the interval" in str(check_note([near], check))
    assert "outside the interval" in str(check_note([far], check))
    assert check_note([], check) is None  # not played yet: no note


def test_the_level_sets_the_interval_width() -> None:
    """A beats B 3-1, B the anchor: Fisher information 4 x 0.75 x 0.25 = 0.75 per logit^2,
    so the standard error is sqrt(4/3) logits = 200.59 Elo; the 95 % half-width is
    1.959964 of it (393.1), the 90 % one 1.644854 (329.9)."""
    games = [MatchCount("A", "B", 3, 0, 1)]
    se = 400 / math.log(10) * math.sqrt(1 / 0.75)
    wide = {r.name: r for r in rating_table(games, anchor="B")}
    narrow = {r.name: r for r in rating_table(games, anchor="B", level=0.90)}
    assert wide["A"].error == pytest.approx(1.959964 * se, rel=1e-5)
    assert narrow["A"].error == pytest.approx(1.644854 * se, rel=1e-5)
    assert narrow["A"].error < wide["A"].error
    # the rating itself does not depend on the level
    assert narrow["A"].elo == pytest.approx(wide["A"].elo) == pytest.approx(400 * math.log10(3))
    assert narrow["A"].low == pytest.approx(400 * math.log10(3) - 1.644854 * se, rel=1e-5)
    assert (narrow["B"].low, narrow["B"].high) == (0.0, 0.0)


def test_no_anchor_rates_the_largest_group_when_player_0_is_in_a_small_one() -> None:
    """X and Y (met first) play only each other; A, B, C form a chain A-B 3-1, B-C 3-1.
    Without an anchor the largest group is rated, centred on its mean: A +190.85, B 0,
    C -190.85; X and Y cannot be placed against it (nan), and come last."""
    games = [MatchCount("X", "Y", 2, 0, 1), MatchCount("A", "B", 3, 0, 1),
             MatchCount("B", "C", 3, 0, 1)]
    rows = rating_table(games)
    step = 400 * math.log10(3)
    assert [r.name for r in rows[:3]] == ["A", "B", "C"]
    by_name = {r.name: r for r in rows}
    assert by_name["A"].elo == pytest.approx(step)
    assert by_name["B"].elo == pytest.approx(0.0, abs=1e-9)
    assert by_name["C"].elo == pytest.approx(-step)
    assert all(math.isfinite(by_name[n].error) and by_name[n].error > 0 for n in "ABC")
    for name in ("X", "Y"):
        assert math.isnan(by_name[name].elo) and math.isnan(by_name[name].error)
        assert by_name[name].rank in (4, 5)
    assert by_name["X"].points == 2 and by_name["Y"].games == 3


def test_tied_players_are_listed_by_name_whatever_order_they_were_met_in() -> None:
    """Issue 44: sf-sl0-n50 and sf-sl0-n200, 1268 and 92.5 points each, swapped places from
    run to run; ties now go by name, and the table follows."""
    from chessmoe.elo import Rating, ranked

    # anchor a; n50 and n200 score alike against it and each other: an exact tie
    games = [MatchCount("a", "sf-sl0-n50", 3, 2, 5), MatchCount("a", "sf-sl0-n200", 3, 2, 5),
             MatchCount("sf-sl0-n50", "sf-sl0-n200", 2, 4, 2), MatchCount("a", "b", 6, 2, 2)]
    for order in (games, games[::-1], [games[1], games[3], games[0], games[2]]):
        rows = rating_table(order, anchor="a", anchor_elo=1350)
        assert [r.name for r in rows] == ["sf-sl0-n200", "sf-sl0-n50", "a", "b"]
        assert [r.rank for r in rows] == [1, 2, 3, 4]
        assert rows[0].elo == pytest.approx(rows[1].elo, abs=1e-9)
    # ties up to rounding noise count as ties; a real difference does not
    noisy = [Rating("z", 1268.0 + 4e-13, 0, 0, 1), Rating("y", 1268.0, 0, 0, 1),
             Rating("x", 1268.5, 0, 0, 1), Rating("w", math.nan, 0, 0, 1),
             Rating("v", math.nan, 0, 0, 1)]
    assert [r.name for r in ranked(noisy)] == ["x", "y", "z", "v", "w"]
