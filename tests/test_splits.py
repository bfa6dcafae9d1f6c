"""Game-level splits: deterministic, sized as asked, the authors' month rule."""

from __future__ import annotations

import pytest

from chessmoe.games.splits import MonthSplit, SeededSplit, month_of, split_from_dict, split_to_dict


def test_seeded_split_sizes_and_determinism() -> None:
    labels = SeededSplit(val=0.1, test=0.2, seed=9).assign(1000)
    assert (labels == "val").sum() == 100 and (labels == "test").sum() == 200
    assert (labels == SeededSplit(val=0.1, test=0.2, seed=9).assign(1000)).all()
    assert not (labels == SeededSplit(val=0.1, test=0.2, seed=10).assign(1000)).all()
    counts = SeededSplit(val=50, test=25).assign(1000)
    assert (counts == "val").sum() == 50 and (counts == "test").sum() == 25


def test_seeded_split_rejects_impossible_sizes() -> None:
    with pytest.raises(ValueError, match="exceed"):
        SeededSplit(val=600, test=600).assign(1000)


def test_month_split_takes_first_games_of_the_months() -> None:
    months = ["2012-09"] * 5 + ["2017-05"] * 3 + [None, "2013-01", "2012-09"]
    labels = MonthSplit(games_per_split=3).assign(len(months), months).tolist()
    assert labels == ["val"] * 3 + ["unused"] * 2 + ["test"] * 3 + ["train", "train", "unused"]
    with pytest.raises(ValueError, match="month"):
        MonthSplit().assign(3)


def test_month_of_parses_pgn_dates() -> None:
    assert month_of("2012.09.14") == "2012-09"
    assert month_of("2017-05-01") == "2017-05"
    assert month_of("????.??.??") is None
    assert month_of("2012.13.01") is None
    assert month_of("") is None


def test_rules_round_trip_through_dicts() -> None:
    for rule in (SeededSplit(val=0.05, test=100, seed=3), MonthSplit(games_per_split=10)):
        assert split_from_dict(split_to_dict(rule)) == rule


def test_a_size_of_one_is_one_game_not_every_game() -> None:
    """``val=1`` is a count (one game), not the fraction 100 %; ``0.5`` is half."""
    labels = SeededSplit(val=1, test=1, seed=3).assign(10)
    assert (labels == "val").sum() == 1 and (labels == "test").sum() == 1
    assert (labels == "train").sum() == 8
    labels = SeededSplit(val=1.0, test=0.5).assign(10)
    assert list(labels).count("val") == 1 and list(labels).count("test") == 5
    assert list(SeededSplit(val=1, test=0).assign(1)) == ["val"]
