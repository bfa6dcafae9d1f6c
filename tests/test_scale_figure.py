"""The scale design's reading (issue 54): the weighted trend of Elo against log10(parameters)
(chessmoe.estimates.elo_trend), each size's estimates (chessmoe.designs.scale.size_estimates),
the figure of Elo against parameters beside the paper's network and Table 1 by size
(chessmoe.report.figures.scale)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from chessmoe import paper
from chessmoe.designs import scale
from chessmoe.designs.powered import PAPER_TABLE2
from chessmoe.elo import elo_from_score
from chessmoe.estimates import Z95, ArmEstimate, elo_trend
from chessmoe.nets.bundles import PAIRED_LOSSES, PairedLoss
from chessmoe.nets.names import scale_bundle
from chessmoe.report import stems
from chessmoe.report.figures import scale as by_size
from tests.helpers import plant_games


def _point(elo: float, se: float, *, below: float | None = None) -> ArmEstimate:
    """An estimate at ``elo`` whose interval is +-1.96 ``se`` (``below`` the lower half's
    own se: an asymmetric interval)."""
    low = elo - Z95 * (se if below is None else below)
    high = elo + Z95 * (se if below is None else 2 * se - below)
    return ArmEstimate("staged", 100, 100, 0.6, elo, low, high)


def test_with_equal_weights_the_trend_is_the_ordinary_least_squares_line() -> None:
    """log10 parameters 1, 2, 3 at Elo 10, 30, 20 (se 10 each; the last interval asymmetric,
    8 below and 12 above, averaging 10): slope 10/2 = 5, intercept 20 - 5 x 2 = 10. With
    known se s, cov = s^2 (X'X)^-1, X'X = [[3, 6], [6, 14]]: at x = 4 the line's variance is
    s^2 (14/6 - 8 + 8) = 7/3 s^2; at the mean x = 2 it is s^2 / 3."""
    trend = elo_trend([(10, _point(10, 10)), (100, _point(30, 10)),
                       (1000, _point(20, 10, below=8))])
    assert trend is not None and trend.points == 3
    assert (trend.slope, trend.intercept) == pytest.approx((5.0, 10.0))
    elo, low, high = trend.at(10_000)
    assert elo == pytest.approx(30.0)
    assert (low, high) == pytest.approx((30 - Z95 * 10 * math.sqrt(7 / 3),
                                         30 + Z95 * 10 * math.sqrt(7 / 3)))
    assert trend.at(100) == pytest.approx((20.0, 20 - Z95 * 10 / math.sqrt(3),
                                           20 + Z95 * 10 / math.sqrt(3)))


def test_the_trend_weights_each_point_by_its_inverse_variance() -> None:
    """se 2, 2, 1 (weights 1/4, 1/4, 1) at x = 1, 2, 3 and Elo 0, 0, 30: weighted means x 2.5
    and Elo 20, S_xx = 0.875, S_xy = 15, so slope 120/7 (ordinary least squares: 15) and
    intercept 20 - 2.5 x 120/7 = -160/7; the slope's variance 1/S_xx = 8/7."""
    trend = elo_trend([(10, _point(0, 2)), (100, _point(0, 2)), (1000, _point(30, 1))])
    assert trend is not None
    assert (trend.slope, trend.intercept) == pytest.approx((120 / 7, -160 / 7))
    assert trend.var_slope == pytest.approx(8 / 7)


def test_two_points_give_the_line_through_them_and_its_interval_widens_beyond() -> None:
    """Through (1, 0) with se 3 and (3, 40) with se 4: the line is y = 20 (x - 1). At x = 2 it
    is half of each point (variance (9 + 16) / 4); at x = 5 it is -1 x the first plus 2 x the
    second (variance 9 + 4 x 16 = 73): an extrapolation's interval is wider."""
    trend = elo_trend([(10, _point(0, 3)), (1000, _point(40, 4))])
    assert trend is not None
    assert trend.at(100) == pytest.approx((20.0, 20 - Z95 * 2.5, 20 + Z95 * 2.5))
    wide = Z95 * math.sqrt(73)
    assert trend.at(100_000) == pytest.approx((80.0, 80 - wide, 80 + wide))


def test_no_trend_from_fewer_than_two_finite_points_or_one_size() -> None:
    unbounded = ArmEstimate("staged", 5, 5, 1.0, math.inf, 100.0, math.inf)
    unplayed = ArmEstimate("staged", 0, 0, math.nan, math.nan, math.nan, math.nan)
    assert elo_trend([(10, _point(0, 3)), (100, unbounded), (1000, unplayed)]) is None
    assert elo_trend([(100, _point(0, 3)), (100, _point(40, 4))]) is None
    assert elo_trend([]) is None


def _plant(root: Path) -> list[str]:
    """Staged at 201 k scoring 0.75, 0.625 and 0.5 a pair against seeds 9, 10 and 11 and at
    50 k 0.5625 against seeds 9 and 10, 12 pairs on openings 0-11 each (planned 12)."""
    staged = {size: [f"{first}-vs-{second}-b8-n100"
                     for _, first, second in scale.size_matches(size, "staged")]
              for size in ("201k", "50k")}
    root.mkdir(parents=True)
    names = [*staged["201k"], *staged["50k"]]
    (root / "spec.json").write_text(json.dumps({"matches": [{"name": n, "pairs": 12}
                                                            for n in names]}))
    for name, pattern in zip(staged["201k"], ([(1.0, 0.5)], [(1.0, 0.5), (0.5, 0.5)],
                                              [(0.5, 0.5)]), strict=True):
        plant_games(root / name, pattern * (12 // len(pattern)))
    for name in staged["50k"]:
        plant_games(root / name, [(1.0, 0.5), (0.5, 0.5), (0.5, 0.5), (0.5, 0.5)] * 3)
    return names


def test_each_size_is_pooled_over_its_seed_pairings_with_the_seeds_random_beside(
        tmp_path: Path) -> None:
    _plant(tmp_path / "scale")
    found = {(e.size, e.mixture): e for e in scale.size_estimates(tmp_path / "scale")}
    assert [(e.label, e.mixture) for e in found.values()] == [
        ("50 k", "staged"), ("50 k", "trunk"), ("201 k", "staged"), ("201 k", "trunk"),
        ("604 k", "staged"), ("604 k", "trunk")]
    mid = found[("201k", "staged")]
    assert mid.parameters == 201_469 and (mid.played, mid.planned) == (72, 72)
    assert mid.pooled is not None and mid.pooled.score == pytest.approx(0.625)
    assert mid.pooled.openings == 12  # the openings are the clusters
    half = 4.303 * 0.125 / math.sqrt(3)  # t(2) x the standard error of the 3 cells' means
    assert mid.seeds_random is not None
    assert (mid.seeds_random.low, mid.seeds_random.high) == pytest.approx(
        (elo_from_score(0.625 - half), elo_from_score(0.625 + half)))
    large = found[("600k", "trunk")]
    assert (large.pooled, large.seeds_random, large.played, large.planned) == (None, None, 0, 400)


def test_the_figure_draws_each_sizes_pooled_elo_the_paper_and_the_extrapolated_trend(
        tmp_path: Path) -> None:
    _plant(tmp_path / "scale")
    art = by_size.fig_scale(tmp_path / "scale", tmp_path / "experts" / "small", tmp_path / "out")
    assert art.stem == stems.SCALE
    assert {p.name for p in art.paths} == {"scale.png", "scale.pdf", "scale.csv"}
    data = pd.read_csv(tmp_path / "out" / "scale.csv")
    pooled = data[data.interval.str.startswith("pooled")].set_index("size")
    assert list(pooled.index) == ["50 k", "201 k"] and set(pooled.mixture) == {"staged"}
    assert pooled.loc["201 k", "elo"] == pytest.approx(elo_from_score(0.625))
    assert pooled.loc["50 k", "elo"] == pytest.approx(elo_from_score(0.5625))
    assert pooled.loc["201 k", "parameters"] == 201_469
    assert (data.interval.str.startswith("both sides' seeds random")).sum() == 2
    # the trend through two sizes passes through both pooled points
    trend = data[data.arm == "staged trend"].set_index("size")
    assert trend.loc["201 k", "elo"] == pytest.approx(elo_from_score(0.625))
    extrapolated = data[data.interval.str.endswith("extrapolation")]
    assert list(extrapolated.parameters) == [paper.NETWORK_PARAMETERS]
    beside = data[data.arm == "paper, Table 2"]
    assert list(beside.elo) == [PAPER_TABLE2["staged"]] == [121.11]
    assert art.figure is not None
    ax = art.figure.axes[0]
    assert "extrapolation" in [t.get_text() for t in ax.texts]
    # the band comes from the pooled intervals (seeds fixed), and its legend says so
    legend = ax.get_legend()
    assert legend is not None
    assert any(t.get_text().endswith("95 % band, seeds fixed)") for t in legend.get_texts())
    star = [line for line in ax.lines if line.get_marker() == "*"]
    assert [list(line.get_xdata()) for line in star] == [[paper.NETWORK_PARAMETERS]]


def test_the_figure_says_not_played_yet_without_a_game(tmp_path: Path) -> None:
    art = by_size.fig_scale(tmp_path / "scale", tmp_path / "experts", tmp_path / "out")
    assert art.figure is not None
    assert [t.get_text() for t in art.figure.axes[0].texts] == ["not played yet"]
    assert pd.read_csv(tmp_path / "out" / "scale.csv").empty


def _evaluation(root: Path, bundle: str, side: str, loss: float,
                **terms: float) -> None:
    (root / bundle).mkdir(parents=True)
    (root / bundle / "evaluation.json").write_text(json.dumps(
        {"results": {side: {s: {"loss": loss, "loss_se": 0.01, "n": 4096, **terms}
                            for s in ("no-phases", "opening", "middlegame", "endgame")}}}))


def test_the_head_shape_note_splits_the_trunks_excess_between_head_and_phase_heads(
        tmp_path: Path) -> None:
    experts = tmp_path / "small"
    _evaluation(experts, scale_bundle("regular", "201k", 9), "baseline", 2.2216,
                policy_ce=2.2354, value_mse=0.8508)
    _evaluation(experts, scale_bundle("trunk", "201k", 9), "mixture", 2.2487,
                policy_ce=2.2626, value_mse=0.8688)
    waiting = by_size.head_shape_note(experts)
    assert waiting.endswith("regular-head1x1 not evaluated yet ('chessmoe train --profile "
                            "small --control head1x1' trains the control).")
    _evaluation(experts, "regular-head1x1", "baseline", 2.2400, policy_ce=2.2530,
                value_mse=0.8600)
    note = by_size.head_shape_note(experts)
    assert "190,679 parameters" in note
    assert ("no-phases test loss 2.2400 (policy cross-entropy 2.2530, value MSE 0.8600), "
            "against 2.2216 (policy cross-entropy 2.2354, value MSE 0.8508) for the regular "
            "network and 2.2487 (policy cross-entropy 2.2626, value MSE 0.8688)") in note
    # 2.2487 - 2.2216 = 0.0271 = (2.2400 - 2.2216) + (2.2487 - 2.2400)
    assert ("The mixture's +0.0271 over the regular network is the head shape's +0.0184 "
            "(regular-head1x1 minus regular) plus the phase heads' +0.0087") in note
    assert "a difference's standard error is not measured yet ('chessmoe compare " \
           "scale-201k-trunk-seed9 scale-201k-regular-seed9'" in note
    table = by_size.table_scale_losses(experts, tmp_path / "out")
    assert note in (tmp_path / "out" / "extras" / "table1-sizes.md").read_text()
    assert table.table is not None
    # measured pairs carry their intervals (a record of the other order reads negated)
    trunk, regular = scale_bundle("trunk", "201k", 9), scale_bundle("regular", "201k", 9)
    for name in (trunk, regular, "regular-head1x1"):
        (experts / name / "manifest.json").write_text(json.dumps(
            {"experts": {"baseline": {"sha256": name}}}))
    rows = [PairedLoss(trunk, regular, "no-phases", 9, 3, 0.0271, 0.005, 0.027, 0.018),
            PairedLoss(regular, "regular-head1x1", "no-phases", 9, 3, -0.0184, 0.004, -0.0176,
                       -0.0092),
            PairedLoss(trunk, "regular-head1x1", "no-phases", 9, 3, 0.0087, 0.002, 0.0096,
                       0.0088)]
    (experts / PAIRED_LOSSES).write_text(json.dumps({"comparisons": [
        {**row.to_dict(), "inputs": {"experts": {row.first: {"baseline": row.first},
                                                 row.second: {"baseline": row.second}}}}
        for row in rows]}))
    note = by_size.head_shape_note(experts)
    assert ("The mixture's +0.0271 [+0.0173, +0.0369] over the regular network is the head "
            "shape's +0.0184 [+0.0106, +0.0262]") in note
    assert "plus the phase heads' +0.0087 [+0.0048, +0.0126]" in note
    assert note.endswith("95 % intervals from standard errors clustered by game ('chessmoe "
                         "compare').")


def test_table_1_by_size_gives_each_methods_mean_loss_over_its_seeds_and_their_range(
        tmp_path: Path) -> None:
    experts = tmp_path / "experts"
    _evaluation(experts, scale_bundle("regular", "201k", 9), "baseline", 2.0)
    _evaluation(experts, scale_bundle("regular", "201k", 11), "baseline", 2.3)
    _evaluation(experts, scale_bundle("staged", "201k", 10), "mixture", 1.9)
    (experts / scale_bundle("trunk", "201k", 9)).mkdir()  # training: no evaluation yet
    art = by_size.table_scale_losses(experts, tmp_path / "out")
    assert art.stem == stems.EXTRAS_TABLE1_SIZES and art.table is not None
    table = art.table
    assert list(table.index) == ["50 k", "201 k", "604 k"]
    assert list(table.columns) == ["parameters", "regular", "trunk", "staged"]
    assert table.loc["201 k", "regular"] == "2.1500 [2.0000, 2.3000] (2 of 3 seeds)"
    assert table.loc["201 k", "staged"] == "1.9000 (1 of 3 seeds)"
    assert table.loc["201 k", "trunk"] == by_size.NOT_TRAINED
    assert table.loc["50 k", "parameters"] == "49,969"
    assert set(table.loc["604 k", ["regular", "trunk", "staged"]]) == {"not trained yet"}
    assert (tmp_path / "out" / "extras" / "table1-sizes.md").read_text().startswith(
        "**Table 1 by network size")
