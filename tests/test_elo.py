"""Match statistics: cutechess lines digit for digit, pentanomial/nElo, SPRT, rating list."""

from __future__ import annotations

import math

import numpy as np
import pytest

from chessmoe import elo as elo_mod
from chessmoe.elo import (
    Z_CUTECHESS,
    Z_EXACT,
    EloEstimate,
    confidence_z,
    elo_from_score,
    normalized_elo_pentanomial,
    normalized_elo_trinomial,
    pairs_from_games,
    pentanomial,
    rating_list,
    score_from_elo,
    sprt,
    trinomial,
)

K = 800.0 / math.log(10.0)  # nElo per unit of (mu - 0.5) / sigma


def _elo(p: float) -> float:
    return 400.0 * math.log10(p / (1.0 - p))


# ---------------------------------------------------------------------------------------------
# z values and the score <-> Elo transform


def test_z_values() -> None:
    assert pytest.approx(1.957162, abs=1e-6) == Z_CUTECHESS
    assert elo_mod._cutechess_phi_inv(0.975) == Z_CUTECHESS
    assert elo_mod._cutechess_phi_inv(0.025) == -Z_CUTECHESS
    assert confidence_z(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert confidence_z(0.95) == pytest.approx(Z_EXACT, abs=1e-12)
    assert confidence_z(0.99) == pytest.approx(2.575829, abs=1e-6)
    with pytest.raises(ValueError):
        confidence_z(1.0)


def test_elo_from_score_edges_and_inverse() -> None:
    assert elo_from_score(0.5) == 0.0
    assert math.copysign(1.0, elo_from_score(0.5)) == 1.0  # never -0.0
    assert elo_from_score(0.9) == pytest.approx(400.0 * math.log10(9.0))
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf
    for p in (1.0000001, -0.1, math.nan):
        assert math.isnan(elo_from_score(p))
    for e in (-800.0, -120.5, 0.0, 3.0, 700.0):
        assert elo_from_score(score_from_elo(e)) == pytest.approx(e, abs=1e-9)
    assert score_from_elo(math.inf) == 1.0
    assert score_from_elo(-math.inf) == 0.0
    assert score_from_elo(-1e6) == 0.0  # no overflow
    assert math.isnan(score_from_elo(math.nan))
    scores = [score_from_elo(e) for e in range(-1000, 1001, 50)]
    assert scores == sorted(scores)


# ---------------------------------------------------------------------------------------------
# cutechess trinomial


def test_13_wins_1_loss_1_draw_prints_nan_margin() -> None:
    est = trinomial(13, 1, 1)
    assert est.line() == "Elo difference: 381.7 +/- nan, LOS: 99.9 %, DrawRatio: 6.7 %"
    # by hand: mu = 13.5 / 15 = 0.9; the upper score bound passes 1, so the margin is nan
    sigma = math.sqrt((13 / 15 * 0.1**2 + 1 / 15 * 0.9**2 + 1 / 15 * 0.4**2) / 15)
    assert 0.9 + Z_CUTECHESS * sigma > 1.0
    assert est.elo == pytest.approx(400.0 * math.log10(9.0))
    assert est.los == pytest.approx(100.0 * (0.5 + 0.5 * math.erf(12 / math.sqrt(28))))
    assert (est.score, est.games, est.draw_ratio) == (pytest.approx(0.9), 15, 1 / 15)


# (wins, losses, draws) -> the line cutechess-cli printed for them in public match logs
PUBLISHED = [
    ((449, 276, 275), "60.7 +/- 18.5, LOS: 100.0 %, DrawRatio: 27.5 %"),
    ((382, 320, 298), "21.6 +/- 18.1, LOS: 99.0 %, DrawRatio: 29.8 %"),
    ((372, 322, 306), "17.4 +/- 17.9, LOS: 97.1 %, DrawRatio: 30.6 %"),
    ((382, 304, 314), "27.2 +/- 17.9, LOS: 99.9 %, DrawRatio: 31.4 %"),
    ((435, 293, 272), "49.7 +/- 18.5, LOS: 100.0 %, DrawRatio: 27.2 %"),
    ((869, 646, 357), "41.6 +/- 14.2, LOS: 100.0 %, DrawRatio: 19.1 %"),
    ((409, 197, 133), "102.5 +/- 23.5, LOS: 100.0 %, DrawRatio: 18.0 %"),
    ((628, 416, 277), "56.2 +/- 16.8, LOS: 100.0 %, DrawRatio: 21.0 %"),
    ((366, 69, 65), "237.6 +/- 34.0, LOS: 100.0 %, DrawRatio: 13.0 %"),
    ((20, 21, 159), "-1.7 +/- 21.8, LOS: 43.8 %, DrawRatio: 79.5 %"),
    ((1, 2, 1), "-88.7 +/- nan, LOS: 28.2 %, DrawRatio: 25.0 %"),
    ((349, 1, 1), "946.9 +/- nan, LOS: 100.0 %, DrawRatio: 0.3 %"),
    ((500, 0, 0), "inf +/- nan, LOS: 100.0 %, DrawRatio: 0.0 %"),
    ((0, 1, 0), "-inf +/- nan, LOS: 15.9 %, DrawRatio: 0.0 %"),
]


@pytest.mark.parametrize(("wld", "tail"), PUBLISHED)
def test_published_cutechess_lines(wld: tuple[int, int, int], tail: str) -> None:
    assert trinomial(*wld).line() == "Elo difference: " + tail


def test_hand_computed_triples() -> None:
    # 10 wins, 10 losses: mu = 0.5, sigma = sqrt(0.25 / 20); Elo(0.5 + x) = -Elo(0.5 - x)
    x = Z_CUTECHESS * math.sqrt(0.25 / 20)
    even = trinomial(10, 10, 0)
    assert (even.elo, even.los, even.draw_ratio) == (0.0, 50.0, 0.0)
    assert even.margin == pytest.approx(_elo(0.5 + x), rel=1e-12)
    assert f"{_elo(0.5 + x):.1f}" == "163.1"
    assert even.line() == "Elo difference: 0.0 +/- 163.1, LOS: 50.0 %, DrawRatio: 0.0 %"
    # 60 wins, 20 losses, 20 draws: mu = 0.7, var = .6*.09 + .2*.49 + .2*.04 = .16, sigma = .04
    lop = trinomial(60, 20, 20)
    x = Z_CUTECHESS * 0.04
    assert lop.elo == pytest.approx(400.0 * math.log10(7 / 3), rel=1e-12)
    assert lop.margin == pytest.approx((_elo(0.7 + x) - _elo(0.7 - x)) / 2.0, rel=1e-12)
    assert lop.los == pytest.approx(100.0 * (0.5 + 0.5 * math.erf(40 / math.sqrt(160))))
    assert lop.line() == "Elo difference: 147.2 +/- 65.9, LOS: 100.0 %, DrawRatio: 20.0 %"
    exact = trinomial(60, 20, 20, z=Z_EXACT)
    assert exact.margin > lop.margin


def test_degenerate_results() -> None:
    draws = trinomial(0, 0, 12)  # W + L = 0: LOS is 0/0
    assert draws.line() == "Elo difference: 0.0 +/- 0.0, LOS: nan %, DrawRatio: 100.0 %"
    wins = trinomial(7, 0, 0)
    assert wins.elo == math.inf and math.isnan(wins.margin)
    los = 100.0 * (0.5 + 0.5 * math.erf(7 / math.sqrt(14)))
    assert wins.line() == f"Elo difference: inf +/- nan, LOS: {los:.1f} %, DrawRatio: 0.0 %"
    losses = trinomial(0, 3, 0)
    assert losses.elo == -math.inf and math.isnan(losses.margin)
    none = trinomial(0, 0, 0)
    assert none.games == 0
    assert none.line() == "Elo difference: nan +/- nan, LOS: nan %, DrawRatio: nan %"
    with pytest.raises(ValueError):
        trinomial(-1, 2, 3)


def test_signs_print_like_qt() -> None:
    def line(value: float) -> str:
        return EloEstimate(value, 1.0, 50.0, 0.0, 0.5, 2).line()

    assert line(-0.0).startswith("Elo difference: 0.0 +/-")  # exact zero: no sign
    assert line(-0.04).startswith("Elo difference: -0.0 +/-")  # rounds to zero: sign kept
    assert line(-12.25).startswith("Elo difference: -12.3 +/-")  # exact tie: away from zero
    assert line(0.75).startswith("Elo difference: 0.8 +/-")
    assert line(0.35).startswith("Elo difference: 0.3 +/-")  # the double is below 0.35
    assert line(-math.inf).startswith("Elo difference: -inf +/-")


def test_symmetry_and_monotonicity() -> None:
    for won, lost, drawn in [(30, 20, 50), (5, 9, 2), (449, 276, 275), (60, 20, 20)]:
        a, b = trinomial(won, lost, drawn), trinomial(lost, won, drawn)
        assert b.elo == pytest.approx(-a.elo)
        assert b.margin == pytest.approx(a.margin)
        assert b.los == pytest.approx(100.0 - a.los)
    elos = [trinomial(w, 20, 10).elo for w in range(0, 60, 5)]
    assert elos == sorted(elos) and len(set(elos)) == len(elos)
    assert trinomial(120, 80, 100).margin < trinomial(30, 20, 25).margin


# ---------------------------------------------------------------------------------------------
# pentanomial and normalised Elo


def test_pentanomial_hand_values() -> None:
    # pair scores 0, 1/4, 1/2, 3/4, 1 with frequencies .05 .1 .4 .3 .15: mu = 0.6, var = 0.065
    est = pentanomial((5, 10, 40, 30, 15))
    x = Z_CUTECHESS * math.sqrt(0.065 / 100)
    assert est.score == pytest.approx(0.6)
    assert est.elo == pytest.approx(_elo(0.6))
    assert est.margin == pytest.approx((_elo(0.6 + x) - _elo(0.6 - x)) / 2.0)
    assert est.los == pytest.approx(100.0 * (0.5 + 0.5 * math.erf(0.1 / math.sqrt(0.13 / 100))))
    assert (est.games, est.draw_ratio) == (200, 0.4)
    balanced = pentanomial((0, 0, 25, 0, 0))  # only WL or DD pairs
    assert (balanced.elo, balanced.margin) == (0.0, 0.0)
    assert pentanomial((3, 7, 20, 7, 3)).elo == 0.0
    assert pentanomial((0, 0, 0, 0, 4)).elo == math.inf
    assert math.isnan(pentanomial((0, 0, 0, 0, 0)).elo)
    for bad in [(1, 2, 3, 4), (1, 2, -3, 4, 5)]:
        with pytest.raises(ValueError):
            pentanomial(bad)


def test_pairs_from_games() -> None:
    games = [1, 0, 0.5, 0.5, 1, 0.5, 0, 0, 1, 1, 0, 0.5, 0.5, 1, 0.5, 0.5]
    counts = pairs_from_games(games)
    assert counts == (1, 1, 3, 2, 1)
    assert pentanomial(counts).score == pytest.approx(sum(games) / len(games))
    wins, losses = games.count(1), games.count(0)
    assert pentanomial(counts).score == pytest.approx(
        trinomial(wins, losses, len(games) - wins - losses).score)
    assert pairs_from_games([]) == (0, 0, 0, 0, 0)
    with pytest.raises(ValueError):
        pairs_from_games([1, 0, 1])
    with pytest.raises(ValueError):
        pairs_from_games([1, 0.25])


def test_normalized_elo_hand_values() -> None:
    # 30/20/50: mu = .55, var = .3*.45^2 + .2*.55^2 + .5*.05^2 = .1225, sd = .35
    nelo, margin = normalized_elo_trinomial(30, 20, 50)
    assert nelo == pytest.approx(0.05 / 0.35 * K)
    assert margin == pytest.approx(Z_EXACT / math.sqrt(100) * K)
    # (5, 10, 40, 30, 15): mu = .6, var_pair = .065 -> (mu - .5) / sqrt(2 var_pair)
    pnelo, pmargin = normalized_elo_pentanomial((5, 10, 40, 30, 15))
    assert pnelo == pytest.approx(0.1 / math.sqrt(0.13) * K)
    assert pmargin == pytest.approx(Z_EXACT / math.sqrt(200) * K)  # 100 pairs = 200 games
    assert normalized_elo_trinomial(20, 30, 50)[0] == pytest.approx(-nelo)
    assert normalized_elo_trinomial(10, 10, 5)[0] == 0.0
    assert all(math.isnan(v) for v in normalized_elo_trinomial(0, 0, 0))
    assert all(math.isnan(v) for v in normalized_elo_pentanomial((0, 0, 0, 0, 0)))


# ---------------------------------------------------------------------------------------------
# SPRT


def test_sprt_bounds_and_states() -> None:
    h1 = sprt(elo0=0, elo1=10, wins=600, losses=300, draws=100, model="logistic")
    assert h1.lower == pytest.approx(math.log(0.05 / 0.95))
    assert h1.upper == pytest.approx(math.log(0.95 / 0.05))
    assert h1.state == "H1 accepted" and h1.llr > h1.upper
    h0 = sprt(elo0=0, elo1=10, wins=300, losses=600, draws=100, model="logistic")
    assert h0.state == "H0 accepted" and h0.llr < h0.lower
    go = sprt(elo0=0, elo1=5, wins=10, losses=10, draws=10)
    assert go.state == "continue" and go.lower < go.llr < go.upper
    assert sprt(elo0=0, elo1=5, wins=0, losses=0, draws=0) == sprt(elo0=0, elo1=5, pentanomial=(
        0, 0, 0, 0, 0))
    assert sprt(elo0=0, elo1=5, wins=0, losses=0, draws=0).llr == 0.0
    assert sprt(elo0=0, elo1=5, pentanomial=(20, 60, 300, 120, 40)).state == "continue"
    assert sprt(elo0=0, elo1=5, pentanomial=(40, 120, 600, 240, 80)).state == "H1 accepted"
    assert sprt(elo0=0, elo1=5, pentanomial=(80, 240, 600, 120, 40)).state == "H0 accepted"
    # empty cells are regularised, not divided by: a run of wins is finite evidence, one
    # game's exact LLR at most log(q1/q0) of a win (40 wins: 1.13, continue; 200: 5.67)
    assert sprt(elo0=0, elo1=10, wins=40, losses=0, draws=0, model="logistic").state == (
        "continue")
    assert sprt(elo0=0, elo1=10, wins=200, losses=0, draws=0, model="logistic").llr == (
        pytest.approx(5 * sprt(elo0=0, elo1=10, wins=40, losses=0, draws=0,
                               model="logistic").llr))
    assert sprt(elo0=0, elo1=10, wins=200, losses=0, draws=0, model="logistic").state == (
        "H1 accepted")


def test_sprt_llr_hand_values_and_sign() -> None:
    # the closed form (exact=False, kept for comparison): LLR = N (s1 - s0)(2 mu - s0 - s1)
    # / (2 var)
    n, mu = 300, (120 + 50) / 300
    var = (120 * (1 - mu) ** 2 + 100 * (0.5 - mu) ** 2 + 80 * mu**2) / n
    s0, s1 = 0.5, 1 / (1 + 10 ** (-10 / 400))
    got = sprt(elo0=0, elo1=10, wins=120, losses=80, draws=100, model="logistic", exact=False)
    assert got.llr == pytest.approx(n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var), rel=1e-12)
    # normalised: LLR = N / (2 K^2) (n1 - n0)(2 nElo - n0 - n1), N games
    nelo = normalized_elo_trinomial(120, 80, 100)[0]
    got = sprt(elo0=-2, elo1=6, wins=120, losses=80, draws=100, exact=False)
    assert got.llr == pytest.approx(n / (2 * K**2) * 8 * (2 * nelo + 2 - 6), rel=1e-12)
    counts = (5, 10, 40, 30, 15)  # pentanomial: the same with 2 games per pair
    pnelo = normalized_elo_pentanomial(counts)[0]
    got = sprt(elo0=0, elo1=5, pentanomial=counts, exact=False)
    assert got.llr == pytest.approx(200 / (2 * K**2) * 5 * (2 * pnelo - 5), rel=1e-12)
    # sign: positive above the midpoint of the two hypotheses, antisymmetric under W <-> L
    up = sprt(elo0=0, elo1=10, wins=55, losses=45, draws=0, model="logistic")
    down = sprt(elo0=-10, elo1=0, wins=45, losses=55, draws=0, model="logistic")
    assert up.llr > 0 and down.llr == pytest.approx(-up.llr)


def test_sprt_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        sprt(elo0=5, elo1=0, wins=1, losses=1, draws=1)
    with pytest.raises(ValueError):
        sprt(elo0=0, elo1=5, alpha=0.6, beta=0.5, wins=1, losses=1, draws=1)
    with pytest.raises(ValueError):
        sprt(elo0=0, elo1=5, wins=1, losses=1, draws=1, model="bayesian")
    with pytest.raises(ValueError):
        sprt(elo0=0, elo1=5)
    with pytest.raises(ValueError):
        sprt(elo0=0, elo1=5, wins=1, pentanomial=(1, 1, 1, 1, 1))


# ---------------------------------------------------------------------------------------------
# rating list


def test_two_engines_reproduce_the_pairwise_elo() -> None:
    ratings = {r.name: r for r in rating_list([("A", "B", 60, 20, 20)], anchor="B")}
    assert ratings["A"].elo == pytest.approx(trinomial(60, 20, 20).elo, abs=1e-9)
    assert (ratings["B"].elo, ratings["B"].low, ratings["B"].high) == (0.0, 0.0, 0.0)
    assert ratings["A"].games == ratings["B"].games == 100
    # inverse Fisher information of 100 half-win Bernoulli games at p = 0.7, in Elo
    half = Z_EXACT / math.sqrt(100 * 0.7 * 0.3) * 400 / math.log(10)
    assert ratings["A"].high - ratings["A"].elo == pytest.approx(half, rel=1e-9)
    centred = rating_list([("A", "B", 60, 20, 20)])
    assert [r.name for r in centred] == ["A", "B"]
    assert centred[0].elo == pytest.approx(-centred[1].elo, abs=1e-9)
    assert centred[0].elo - centred[1].elo == pytest.approx(trinomial(60, 20, 20).elo, abs=1e-9)


def test_three_engines_are_transitive_and_fit_the_scores() -> None:
    chain = {r.name: r.elo for r in rating_list(
        [("A", "B", 30, 40, 10), ("C", "B", 15, 20, 25)], anchor="C")}
    assert chain["C"] == 0.0
    assert chain["A"] - chain["B"] == pytest.approx(trinomial(30, 10, 40).elo, abs=1e-9)
    assert chain["B"] - chain["C"] == pytest.approx(trinomial(25, 15, 20).elo, abs=1e-9)
    rows = [("A", "B", 30, 40, 10), ("B", "C", 25, 20, 15), ("A", "C", 40, 30, 10)]
    ratings = {r.name: r.elo for r in rating_list(rows)}
    assert sum(ratings.values()) == pytest.approx(0.0, abs=1e-9)
    assert ratings["A"] > ratings["B"] > ratings["C"]
    expected = dict.fromkeys(ratings, 0.0)
    actual = dict.fromkeys(ratings, 0.0)
    for a, b, won, drawn, lost in rows:  # at the MLE expected scores equal the real ones
        p = score_from_elo(ratings[a] - ratings[b])
        expected[a] += (won + drawn + lost) * p
        expected[b] += (won + drawn + lost) * (1 - p)
        actual[a] += won + drawn / 2
        actual[b] += lost + drawn / 2
    for name in ratings:
        assert expected[name] == pytest.approx(actual[name], abs=1e-7)
    anchored = {r.name: r.elo for r in rating_list(rows, anchor="B")}
    assert anchored["B"] == 0.0
    assert anchored["A"] == pytest.approx(ratings["A"] - ratings["B"], abs=1e-9)


def test_intervals_cover_the_truth_in_simulation() -> None:
    rng = np.random.default_rng(20240611)
    truth = {"E0": 0.0, "E1": 60.0, "E2": 140.0, "E3": -90.0}
    names = list(truth)
    hits = total = 0
    for _ in range(40):
        rows = []
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                p = score_from_elo(truth[a] - truth[b])
                draw = 0.3
                won, drawn, lost = rng.multinomial(150, [p - draw / 2, draw, 1 - p - draw / 2])
                rows.append((a, b, int(won), int(drawn), int(lost)))
        for r in rating_list(rows, anchor="E0"):
            if r.name != "E0":
                total += 1
                hits += r.low <= truth[r.name] <= r.high
    assert hits / total >= 0.9


def test_perfect_scores_and_unplaceable_engines() -> None:
    rows = [("P", "A", 10, 0, 0), ("B", "P", 0, 0, 8), ("A", "B", 30, 10, 20),
            ("A", "Z", 5, 0, 0), ("B", "Z", 4, 0, 0), ("X", "Y", 3, 3, 3)]
    ratings = rating_list(rows, anchor="A")
    assert [r.name for r in ratings][:4] == ["P", "A", "B", "Z"]
    by = {r.name: r for r in ratings}
    assert by["P"].elo == math.inf and by["P"].high == math.inf and math.isnan(by["P"].low)
    assert by["Z"].elo == -math.inf and by["Z"].low == -math.inf and math.isnan(by["Z"].high)
    assert math.isnan(by["X"].elo) and math.isnan(by["Y"].elo)
    assert by["A"].elo == 0.0
    assert by["B"].elo == pytest.approx(-trinomial(30, 20, 10).elo, abs=1e-9)
    assert by["P"].games == 18
    top = {r.name: r.elo for r in rating_list(rows[:3], anchor="P")}
    assert top == {"P": 0.0, "A": -math.inf, "B": -math.inf}
    with pytest.raises(ValueError):
        rating_list(rows, anchor="nobody")
    with pytest.raises(ValueError):
        rating_list([("A", "A", 1, 0, 0)])
    assert rating_list([]) == []


# ---------------------------------------------------------------------------------------------
# command line


def test_cli_prints_the_cutechess_line_first(capsys: pytest.CaptureFixture[str]) -> None:
    from chessmoe.cli import main

    assert main(["elo", "--wins", "13", "--losses", "1", "--draws", "1", "--sprt", "0",
                 "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Elo difference: 381.7 +/- nan, LOS: 99.9 %, DrawRatio: 6.7 %"
    assert lines[1].startswith("nElo: ")
    # nElo bounds [0, 5] are tiny: the exact LLR is 0.18 (the closed form 15 / (2 K^2) * 5 *
    # (2 nElo - 5) would print 0.32), keep going
    assert lines[-1] == "SPRT: llr 0.18, lbound -2.94, ubound 2.94 - continue"
    assert main(["elo", "--pentanomial", "5", "10", "40", "30", "15"]) == 0
    assert capsys.readouterr().out.startswith("Ptnml(0-2): [5, 10, 40, 30, 15], Elo: 70.4 +/- ")
    assert main(["elo"]) == 2  # nothing to rate: one line, no traceback
    assert "give wins/losses/draws" in capsys.readouterr().err


def test_sprt_bounds_with_alpha_different_from_beta() -> None:
    """Wald's bounds: lower ln(beta / (1 - alpha)), upper ln((1 - beta) / alpha); swapping
    alpha and beta must move them (a formula with the two confused would not)."""
    result = sprt(elo0=0, elo1=10, alpha=0.05, beta=0.2, wins=10, losses=10, draws=10)
    assert result.lower == pytest.approx(math.log(0.2 / 0.95))
    assert result.upper == pytest.approx(math.log(0.8 / 0.05))
    swapped = sprt(elo0=0, elo1=10, alpha=0.2, beta=0.05, wins=10, losses=10, draws=10)
    assert (swapped.lower, swapped.upper) != (result.lower, result.upper)
    assert swapped.upper == pytest.approx(math.log(0.95 / 0.2))


def test_the_interval_is_the_elo_of_the_score_bounds_and_asymmetric() -> None:
    """60 % over 100 games: [low, high] = Elo(mu -+ z sd); the upper side is wider, and
    margin is their half-width (cutechess's symmetric number)."""
    est = trinomial(50, 30, 20)
    mu, sd = 0.6, math.sqrt((0.5 * 0.4**2 + 0.3 * 0.6**2 + 0.2 * 0.1**2) / 100)
    assert est.low == pytest.approx(_elo(mu - Z_CUTECHESS * sd), abs=1e-9)
    assert est.high == pytest.approx(_elo(mu + Z_CUTECHESS * sd), abs=1e-9)
    assert est.high - est.elo > est.elo - est.low
    assert est.margin == pytest.approx((est.high - est.low) / 2, abs=1e-9)


def test_an_interval_bound_beyond_a_perfect_score_is_infinite() -> None:
    est = trinomial(3, 0, 1)  # 87.5 %: the upper score bound exceeds 1
    assert est.high == math.inf and math.isfinite(est.low)
    assert math.isnan(est.margin)
    pairs = pentanomial([0, 0, 1, 1, 3])
    assert pairs.high == math.inf and math.isfinite(pairs.low)


@pytest.mark.parametrize(("model", "elo0", "elo1", "counts", "expected"), [
    # fishtest's LLR_logistic / LLR_normalized (server/fishtest/stats/LLRcalc.py) on the same
    # counts; trinomial counts there are (L, D, W)
    ("logistic", 0, 5, (40, 120, 600, 240, 80), 6.6813666010086585),
    ("logistic", 0, 10, (300, 100, 600), 9.138726252950878),
    ("normalized", 0, 5, (20, 60, 300, 120, 40), 2.162885119023245),
    ("normalized", -2, 6, (80, 100, 120), 1.088372506478952),
    ("logistic", 0, 2, (5, 0, 30, 0, 1), -0.14036366827289307),
    ("normalized", 0, 2, (5, 0, 30, 0, 1), -0.08084851877897076),
])
def test_exact_gsprt_equals_fishtest(model: str, elo0: float, elo1: float,
                                     counts: tuple[int, ...], expected: float) -> None:
    if len(counts) == 5:
        got = sprt(elo0=elo0, elo1=elo1, pentanomial=counts, model=model, exact=True)
    else:
        lost, drawn, won = counts
        got = sprt(elo0=elo0, elo1=elo1, wins=won, losses=lost, draws=drawn, model=model,
                   exact=True)
    assert got.llr == pytest.approx(expected, abs=1e-7)


def test_exact_gsprt_stops_a_synthetic_stream_where_fishtest_would() -> None:
    """Pairs arrive in a repeating pattern (LD, WD, WW and 1-point pairs, mean above 1):
    fishtest's LLR_logistic(0, 10) first reaches the upper bound log(0.95/0.05) at pair 108
    (LLR 2.98302263172208, counts [0, 11, 65, 21, 11]); so must ours, not a pair earlier."""
    pattern = [3, 2, 2, 2, 1, 3, 2, 2, 4, 2]
    counts = [0, 0, 0, 0, 0]
    stop = None
    for n in range(1, 4000):
        counts[pattern[n % len(pattern)]] += 1
        result = sprt(elo0=0, elo1=10, pentanomial=counts, model="logistic", exact=True)
        if result.state != "continue":
            stop = (n, result.state, result.llr)
            break
    assert stop is not None and stop[1] == "H1 accepted"
    assert stop[0] == 108 and stop[2] == pytest.approx(2.98302263172208, abs=1e-9)
    assert counts == [0, 11, 65, 21, 11]
    assert stop[2] >= math.log(0.95 / 0.05) > sprt(
        elo0=0, elo1=10, model="logistic", exact=True,
        pentanomial=_counts_after(pattern, stop[0] - 1)).llr


def _counts_after(pattern: list[int], n: int) -> list[int]:
    counts = [0, 0, 0, 0, 0]
    for k in range(1, n + 1):
        counts[pattern[k % len(pattern)]] += 1
    return counts


def test_the_sprt_outlook_counts_games_not_pairs_in_pair_mode() -> None:
    """Pairs (per=2), logistic H0 0 / H1 10 Elo, pair-score variance 0.1, true Elo 0: s1 - s0
    = 0.0143871, drift -(s1 - s0)^2 / 0.2 = -1.03494e-3 per pair, P(pass) = alpha = 0.05,
    E[pairs] = (0.05 b + 0.95 a) / drift with b = -a = ln 19: 2,560.5 pairs, 5,121 games."""
    from chessmoe.elo import sprt_outlook

    outlook = sprt_outlook(0.0, elo0=0.0, elo1=10.0, variance=0.1, model="logistic", per=2)
    delta = 1 / (1 + 10 ** (-10 / 400)) - 0.5
    pairs = (0.05 - 0.95) * math.log(19) / (-delta * delta / 0.2)
    assert outlook.pass_probability == pytest.approx(0.05)
    assert outlook.expected_games == pytest.approx(2 * pairs, rel=1e-9)
    assert round(outlook.expected_games) == 5121


def test_games_for_a_margin_by_hand() -> None:
    """Score 0.6, per-game variance 0.2, +/-10 Elo at z 1.96: dElo/ds = 400 / (ln 10 x 0.6 x
    0.4) = 723.8, N = (1.96 x sqrt(0.2) x 723.8 / 10)^2 = 4,025 games."""
    from chessmoe.elo import games_for_margin

    slope = 400 / (math.log(10) * 0.6 * 0.4)
    assert games_for_margin(0.6, 0.2, 10, 1.96) == pytest.approx(
        (1.96 * math.sqrt(0.2) * slope / 10) ** 2, rel=1e-12)
    assert round(games_for_margin(0.6, 0.2, 10, 1.96)) == 4025
    assert games_for_margin(0.6, 0.2, 20, 1.96) == pytest.approx(4025.39 / 4, rel=1e-5)


@pytest.mark.parametrize(("argv", "mode", "counts", "model", "bounds", "llr"), [
    # issue 58: W/D/L 60/30/10 at nElo [0, 10]: the exact LLR 1.68, never the closed form 2.10
    (["--wins", "60", "--draws", "30", "--losses", "10"], "wdl", (60, 30, 10), "normalized",
     (0.0, 10.0), "1.68"),
    # lopsided pairs, logistic bounds (the closed form would print 4.97)
    (["--pentanomial", "1", "2", "10", "30", "20"], "pentanomial", (1, 2, 10, 30, 20),
     "logistic", (0.0, 10.0), "1.69"),
    # an all-but-perfect W/D/L at nElo [0, 5] (the closed form: 0.32)
    (["--wins", "13", "--losses", "1", "--draws", "1"], "wdl", (13, 1, 1), "normalized",
     (0.0, 5.0), "0.18"),
])
def test_the_cli_and_the_explorer_print_one_llr(
        capsys: pytest.CaptureFixture[str], argv: list[str], mode: str,
        counts: tuple[int, ...], model: str, bounds: tuple[float, float], llr: str) -> None:
    """``chessmoe elo --sprt`` and the Elo explorer compute the same (exact) LLR on lopsided
    counts, where the closed form differs in the first decimal."""
    from chessmoe.cli import main
    from chessmoe.explore import elo as explore_elo

    elo0, elo1 = bounds
    assert main(["elo", *argv, "--sprt", f"{elo0:g}", f"{elo1:g}", "--model", model]) == 0
    printed = capsys.readouterr().out.splitlines()
    sprt_line = next(line for line in printed if line.startswith("SPRT:"))
    assert sprt_line.startswith(f"SPRT: llr {llr}, ")
    if mode == "wdl":
        w, d, l_ = counts
        explored = explore_elo.explore("wdl", wins=w, draws=d, losses=l_, elo0=elo0,
                                       elo1=elo1, sprt_model=model)  # type: ignore[arg-type]
        closed = sprt(elo0=elo0, elo1=elo1, wins=w, draws=d, losses=l_, model=model,
                      exact=False).llr
    else:
        explored = explore_elo.explore("pentanomial", pairs=list(counts), elo0=elo0,
                                       elo1=elo1, sprt_model=model)  # type: ignore[arg-type]
        closed = sprt(elo0=elo0, elo1=elo1, pentanomial=counts, model=model, exact=False).llr
    assert f"{explored.sprt.llr_now:.2f}" == llr
    assert f"{closed:.2f}" != llr  # the counts are lopsided enough to tell the two apart


def test_a_decided_cli_sprt_also_prints_the_estimate_corrected_for_the_stop(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The MAIS match's pairs (5, 10, 26, 28, 9) with logistic bounds [0, 35]: H1 accepted at
    LLR 2.96; read as stopped there the Elo is +47.7 [+4.9, +90.9], not the fixed-length
    +58.5."""
    from chessmoe.cli import main

    assert main(["elo", "--pentanomial", "5", "10", "26", "28", "9", "--sprt", "0", "35",
                 "--model", "logistic"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2] == "SPRT: llr 2.96, lbound -2.94, ubound 2.94 - H1 accepted"
    assert lines[-1] == ("If the match stopped at this decision: +47.7 [+4.9, +90.9] Elo (95 %, "
                         "corrected for the stop at H1); the fixed-length Elo above is biased "
                         "by the stop")
    assert main(["elo", "--wins", "60", "--draws", "30", "--losses", "10", "--sprt", "0",
                 "10"]) == 0
    assert "stopped" not in capsys.readouterr().out  # a test that continues has no stop
