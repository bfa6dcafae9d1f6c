"""Planning and reading an SPRT (chessmoe.sequential): Wald's curves against fishtest's formulas
and a seeded simulation, the bounds in three units, and the estimate after a stop."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from chessmoe import elo
from chessmoe import sequential as sq

K = 800.0 / math.log(10.0)


def _fishtest_characteristics(true_elo: float, *, elo0: float, elo1: float, alpha: float,
                              beta: float, draw_ratio: float, normalized: bool
                              ) -> tuple[float, float]:
    """fishtest's SPRT calculator restated (static/js/sprt.js): the variance (1 - d)/4 of a
    game between equals, scores from the bounds, h = (2 L(elo) - s0 - s1)/(s1 - s0) with the
    true Elo logistic, P = (1 - e^(-h LA)) / (e^(-h LB) - e^(-h LA)) and
    games = (2/h)(LB P + LA (1 - P)) / w2, w2 = (s1 - s0)^2 / variance."""
    variance = (1 - draw_ratio) / 4
    if normalized:
        s0, s1 = (0.5 + e / K * math.sqrt(variance) for e in (elo0, elo1))
    else:
        s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    la, lb = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    w2 = (s1 - s0) ** 2 / variance
    h = (2 / (1 + 10 ** (-true_elo / 400)) - s0 - s1) / (s1 - s0)
    if abs(h * (la - lb)) < 1e-6:
        return -la / (lb - la), -la * lb / w2
    p = (1 - math.exp(-h * la)) / (math.exp(-h * lb) - math.exp(-h * la))
    return p, (2 / h) * (lb * p + la * (1 - p)) / w2


@pytest.mark.parametrize("true_elo", [-10.0, 0.0, 2.5, 5.0, 8.0, 20.0])
def test_the_planner_is_fishtests_calculator_for_logistic_bounds(true_elo: float) -> None:
    plan = sq.plan_sprt(elo0=0.0, elo1=5.0, alpha=0.05, beta=0.1, model="logistic",
                        variance=sq.draw_ratio_variance(0.6))
    p, games = _fishtest_characteristics(true_elo, elo0=0.0, elo1=5.0, alpha=0.05, beta=0.1,
                                         draw_ratio=0.6, normalized=False)
    got = plan.at(true_elo)
    assert got.pass_probability == pytest.approx(p, rel=1e-9, abs=1e-12)
    # rel 1e-7: near h = 0 fishtest's form cancels (2.5 Elo: the two differ by 4e-9)
    assert got.expected_games == pytest.approx(games, rel=1e-7)


def test_the_planner_curves_pass_alpha_and_one_minus_beta_at_the_bounds() -> None:
    plan = sq.plan_sprt(elo0=0.0, elo1=2.0, alpha=0.05, beta=0.2, model="normalized",
                        variance=sq.draw_ratio_variance(0.5), points=41)
    assert plan.elos[0] == -2.0 and plan.elos[-1] == 4.0 and 0.0 in plan.elos
    curve = dict(zip(plan.elos, plan.pass_probability, strict=True))
    assert curve[0.0] == pytest.approx(0.05) and curve[2.0] == pytest.approx(0.8)
    assert all(a < b for a, b in itertools.pairwise(plan.pass_probability))
    # expected length peaks between the bounds, where the drift vanishes
    peak = plan.elos[plan.expected_games.index(max(plan.expected_games))]
    assert 0.0 < peak < 2.0
    # nElo bounds: the true nElo maps to a score with the same spread as the bounds (fishtest
    # reads the true Elo as logistic; at the bounds the two agree)
    s1 = 0.5 + 2.0 / K * math.sqrt(0.125)
    _, games = _fishtest_characteristics(elo.elo_from_score(s1), elo0=0.0, elo1=2.0,
                                         alpha=0.05, beta=0.2, draw_ratio=0.5, normalized=True)
    assert plan.at(2.0).expected_games == pytest.approx(games, rel=1e-9)


def test_a_pair_variance_plans_in_games() -> None:
    """per=2: the variance of a pair's mean score; the outlook counts games (two a pair) and a
    pair variance of half the game variance plans the same test as the games would."""
    games = sq.plan_sprt(elo0=0.0, elo1=10.0, model="logistic", variance=0.12, per=1)
    pairs = sq.plan_sprt(elo0=0.0, elo1=10.0, model="logistic", variance=0.06, per=2)
    assert pairs.pass_probability == pytest.approx(games.pass_probability)
    assert pairs.expected_games == pytest.approx(games.expected_games)
    narrower = sq.plan_sprt(elo0=0.0, elo1=10.0, model="logistic", variance=0.04, per=2)
    assert narrower.at(5.0).expected_games < pairs.at(5.0).expected_games


def test_the_bounds_table_converts_logistic_nelo_and_score() -> None:
    # logistic 35 Elo is a score of 0.5502; with a pair variance of 0.0684 (the MAIS match's)
    # the game sd is sqrt(2 * 0.0684) = 0.3698: nElo = 0.0502 / 0.3698 * K = 47.16
    rows = sq.bounds_table([("H0", 0.0), ("H1", 35.0)], model="logistic",
                           variance=0.06837606837606838, per=2)
    assert [r.name for r in rows] == ["H0", "H1"]
    assert (rows[0].logistic, rows[0].nelo, rows[0].score) == (0.0, 0.0, 0.5)
    assert rows[1].score == pytest.approx(0.550199, abs=1e-6)
    assert rows[1].nelo == pytest.approx(47.163, abs=1e-3)
    # and back: the nElo row read as normalised bounds gives the same logistic Elo and score
    back = sq.bounds_table([("H1", rows[1].nelo)], model="normalized",
                           variance=0.06837606837606838, per=2)[0]
    assert back.logistic == pytest.approx(35.0) and back.score == pytest.approx(rows[1].score)
    # a draw ratio of 0.5: game sd sqrt(0.125); 5 nElo = score 0.505088, 3.54 logistic Elo
    row = sq.bounds_table([("H1", 5.0)], model="normalized",
                          variance=sq.draw_ratio_variance(0.5))[0]
    assert row.score == pytest.approx(0.5 + 5 / K * math.sqrt(0.125))
    assert row.logistic == pytest.approx(3.5357, abs=1e-4)
    # an nElo beyond what the spread allows has no score: nan, never a wrapped value
    assert math.isnan(sq.bounds_table([("H1", 2000.0)], model="normalized",
                                      variance=0.01)[0].logistic)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"elo0": 5.0, "elo1": 0.0}, "SPRT needs elo0 < elo1"),
    ({"alpha": 0.6, "beta": 0.5}, r"alpha \+ beta < 1"),
    ({"model": "bayes"}, "'normalized' or 'logistic'"),
    ({"variance": 0.0}, r"variance of a game must lie in \(0, 0.25\], got 0.0"),
    ({"variance": 0.3, "per": 2}, r"variance of a pair must lie in \(0, 0.25\]"),
])
def test_the_planner_names_a_bad_setting(kwargs: dict[str, object], message: str) -> None:
    settings: dict[str, object] = {"elo0": 0.0, "elo1": 5.0, "variance": 0.1}
    with pytest.raises(ValueError, match=message):
        sq.plan_sprt(**(settings | kwargs))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"draw ratio must lie in \[0, 1\), got 1.0"):
        sq.draw_ratio_variance(1.0)


def test_the_exit_probability_is_the_closed_form_at_long_times_and_zero_at_the_start() -> None:
    for drift in (-0.3, -0.01, 0.0, 0.05, 0.4):
        closed = sq.upper_exit_probability(math.inf, drift=drift, lower=-3.0, upper=2.5)
        assert sq.upper_exit_probability(1e7, drift=drift, lower=-3.0, upper=2.5) == (
            pytest.approx(closed, abs=1e-9))
    assert sq.upper_exit_probability(math.inf, drift=0.0, lower=-3.0, upper=2.5) == (
        pytest.approx(3.0 / 5.5))
    # (1 - e^(-2 mu a)) / (e^(-2 mu b) - e^(-2 mu a)) at mu = 0.4, a = -3, b = 2.5
    expected = (1 - math.exp(2.4)) / (math.exp(-2.0) - math.exp(2.4))
    assert sq.upper_exit_probability(math.inf, drift=0.4, lower=-3.0, upper=2.5) == (
        pytest.approx(expected))
    assert sq.upper_exit_probability(0.0, drift=0.4, lower=-3.0, upper=2.5) == 0.0
    times = [0.5, 2.0, 8.0, 30.0, 200.0]
    probabilities = [sq.upper_exit_probability(t, drift=0.1, lower=-3.0, upper=2.5)
                     for t in times]
    assert all(a < b for a, b in itertools.pairwise(probabilities))
    # no lower bound within reach: the first-passage probability of a single level
    far = sq.upper_exit_probability(4.0, drift=0.2, lower=-1e4, upper=1.0)
    single = (0.5 * math.erfc(-(0.8 - 1.0) / math.sqrt(8.0))
              + math.exp(0.4) * 0.5 * math.erfc((0.8 + 1.0) / math.sqrt(8.0)))
    assert far == pytest.approx(single, rel=1e-9)


def test_the_exit_probability_matches_a_fine_random_walk() -> None:
    rng = np.random.default_rng(20260115)
    runs, dt, horizon, drift = 4000, 0.002, 5.0, 0.1
    x = np.zeros(runs)
    alive = np.ones(runs, dtype=bool)
    upper = np.zeros(runs, dtype=bool)
    for _ in range(int(horizon / dt)):
        x[alive] += drift * dt + math.sqrt(dt) * rng.standard_normal(int(alive.sum()))
        up, down = alive & (x >= 2.5), alive & (x <= -3.0)
        upper |= up
        alive &= ~(up | down)
    expected = sq.upper_exit_probability(horizon, drift=drift, lower=-3.0, upper=2.5)
    # the walk's discreteness makes it exit slightly late: within 3 standard errors + 0.01
    assert abs(upper.mean() - expected) < 3 * math.sqrt(expected * (1 - expected) / runs) + 0.01


def _simulate(true_elo: float, *, runs: int, seed: int, keep_points: bool = False,
              elo0: float = 0.0, elo1: float = 10.0, draw_ratio: float = 0.5,
              alpha: float = 0.05, beta: float = 0.05
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Runs of Wald's SPRT on simulated games (logistic bounds, the given draw ratio): each
    run's decision (True: H1), games and mean score."""
    rng = np.random.default_rng(seed)
    variance = sq.draw_ratio_variance(draw_ratio)
    s0, s1, s = (elo.score_from_elo(x) for x in (elo0, elo1, true_elo))
    probabilities = [1 - s - draw_ratio / 2, draw_ratio, s - draw_ratio / 2]
    step = (s1 - s0) * (2 * np.array([0.0, 0.5, 1.0]) - s0 - s1) / (2 * variance)
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    llr, games, points = np.zeros(runs), np.zeros(runs, dtype=np.int64), np.zeros(runs)
    alive, passed = np.ones(runs, dtype=bool), np.zeros(runs, dtype=bool)
    chunk = 1500
    while alive.any():
        idx = np.flatnonzero(alive)
        outcomes = rng.choice(3, size=(len(idx), chunk), p=probabilities)
        path = llr[idx, None] + np.cumsum(step[outcomes], axis=1)
        crossed = (path >= upper) | (path <= lower)
        stops = crossed.any(axis=1)
        last = np.where(stops, crossed.argmax(axis=1), chunk - 1)
        llr[idx] = path[np.arange(len(idx)), last]
        games[idx] += last + 1
        if keep_points:
            taken = np.arange(chunk)[None, :] <= last[:, None]
            points[idx] += (outcomes * taken).sum(axis=1) / 2
        passed[idx[stops]] = llr[idx[stops]] >= upper
        alive[idx[stops]] = False
    return passed, games, points / games


@pytest.mark.slow
@pytest.mark.parametrize("true_elo", [-5.0, 0.0, 5.0, 10.0, 15.0])
def test_walds_curves_agree_with_a_seeded_simulation(true_elo: float) -> None:
    """1,000 simulated SPRTs (logistic [0, 10], draw ratio 0.5) per true Elo: the pass rate is
    Wald's within 3 standard errors plus 0.01 and the mean length within 5 % (Wald ignores the
    overshoot at the bound, a few games here)."""
    runs = 1000
    passed, games, _ = _simulate(true_elo, runs=runs, seed=58 + int(true_elo))
    plan = sq.plan_sprt(elo0=0.0, elo1=10.0, model="logistic",
                        variance=sq.draw_ratio_variance(0.5))
    outlook = plan.at(true_elo)
    p = outlook.pass_probability
    assert abs(passed.mean() - p) < 3 * math.sqrt(p * (1 - p) / runs) + 0.01
    assert games.mean() == pytest.approx(outlook.expected_games, rel=0.05)


def test_the_mais_match_read_as_stopped() -> None:
    """The committed MAIS SPRT (pairs 5, 10, 26, 28, 9; logistic [0, 35]; H1 accepted after
    78 pairs): +58.5 Elo at fixed length, +47.7 [+4.9, +90.9] read as stopped at H1."""
    got = sq.match_estimate(elo0=0.0, elo1=35.0, model="logistic", pentanomial=[5, 10, 26, 28, 9])
    assert got is not None and got.accepted == "H1" and got.units == 78 and got.per == 2
    assert got.fixed_length == pytest.approx(58.451, abs=1e-3)
    assert (round(got.elo, 1), round(got.low, 1), round(got.high, 1)) == (47.7, 4.9, 90.9)
    assert got.text() == "+47.7 [+4.9, +90.9] Elo (95 %, corrected for the stop at H1)"
    # the estimate is where the stop probability is 1/2, the ends where it is 2.5 / 97.5 %
    variance = 0.06837606837606838
    for value, target in ((got.elo, 0.5), (got.low, 0.025), (got.high, 0.975)):
        assert sq.stop_probability(value, elo0=0.0, elo1=35.0, alpha=0.05, beta=0.05,
                                   model="logistic", variance=variance, per=2, units=78,
                                   accepted="H1") == pytest.approx(target, abs=1e-9)
    assert sq.match_estimate(elo0=0.0, elo1=10.0, wins=60, draws=30, losses=10) is None


def test_a_stop_at_h0_mirrors_a_stop_at_h1() -> None:
    up = sq.stopped_estimate(elo0=0.0, elo1=10.0, model="logistic", variance=0.1, units=900,
                             accepted="H1")
    down = sq.stopped_estimate(elo0=-10.0, elo1=0.0, model="logistic", variance=0.1,
                               units=900, accepted="H0")
    assert down.elo == pytest.approx(-up.elo, abs=1e-6)
    assert (down.low, down.high) == pytest.approx((-up.high, -up.low), abs=1e-6)
    assert up.low < up.elo < up.high
    # an early stop at H1 is strong evidence; a late one barely clears H0
    early = sq.stopped_estimate(elo0=0.0, elo1=10.0, model="logistic", variance=0.1,
                                units=200, accepted="H1")
    assert early.elo > up.elo
    with pytest.raises(ValueError, match="accepted 'H0' or 'H1', got 'continue'"):
        sq.stopped_estimate(elo0=0.0, elo1=10.0, variance=0.1, units=10, accepted="continue")


def test_the_estimate_after_a_stop_is_median_unbiased_where_the_fixed_length_one_is_not(
        ) -> None:
    """600 simulated SPRTs at the true Elo 10 (= H1): the fixed-length estimate lies above the
    truth in about two runs of three (a test stops early when the games ran lucky), the
    estimate read as stopped in about one of two, and its 95 % interval misses about one in
    twenty. Each run's stop probability at the truth is uniform; the estimate is above the
    truth exactly where that probability is below 1/2."""
    truth, runs = 10.0, 600
    passed, games, means = _simulate(truth, runs=runs, seed=2026, keep_points=True)
    variance = sq.draw_ratio_variance(0.5)
    u = np.array([sq.stop_probability(truth, elo0=0.0, elo1=10.0, alpha=0.05, beta=0.05,
                                      model="logistic", variance=variance, per=1, units=n,
                                      accepted="H1" if h1 else "H0")
                  for h1, n in zip(passed, games, strict=True)])
    se = math.sqrt(0.25 / runs)
    fixed_above = float(np.mean([elo.elo_from_score(m) > truth for m in means]))
    assert fixed_above > 0.5 + 4 * se  # biased
    assert abs(float(np.mean(u < 0.5)) - 0.5) < 3 * se  # median-unbiased
    misses = float(np.mean((u < 0.025) | (u > 0.975)))
    assert misses < 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)
    for h1, n, p in list(zip(passed, games, u, strict=True))[:12]:
        got = sq.stopped_estimate(elo0=0.0, elo1=10.0, model="logistic", variance=variance,
                                  units=float(n), accepted="H1" if h1 else "H0")
        assert (got.elo > truth) == (p < 0.5)
        assert (got.low <= truth <= got.high) == (0.025 <= p <= 0.975)


def test_a_probability_that_never_reaches_its_target_is_named_not_looped() -> None:
    with pytest.raises(ValueError, match=r"no value gives 0\.5"):
        sq._bisect(lambda x: 0.9, 0.5, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"no value gives 0\.5"):
        sq._bisect(lambda x: 0.1, 0.5, 0.0, 1.0)
    assert sq._bisect(lambda x: x, 0.25, 0.0, 1.0) == pytest.approx(0.25)


def _survival(t: float, drift: float, lower: float, upper: float, terms: int = 400) -> float:
    """P(no exit by t) from the strip's eigenfunction series (independent of the images):
    e^(-drift^2 t/2) sum_n (2/w) sin(k x0) e^(-k^2 t/2) int_0^w e^(drift (z - x0)) sin(k z) dz,
    k = n pi / w, x0 = -lower."""
    w, x0 = upper - lower, -lower
    total = 0.0
    for n in range(1, terms + 1):
        k = n * math.pi / w
        integral = (math.exp(drift * (w - x0)) * (drift * math.sin(k * w) - k * math.cos(k * w))
                    + k * math.exp(-drift * x0)) / (drift * drift + k * k)
        total += 2 / w * math.sin(k * x0) * integral * math.exp(-k * k * t / 2)
    return math.exp(-drift * drift * t / 2) * total


@pytest.mark.parametrize("t", [0.5, 3.0, 10.0, 40.0])
@pytest.mark.parametrize("drift", [-0.3, 0.0, 0.3])
def test_exits_by_either_bound_and_survival_add_to_one(t: float, drift: float) -> None:
    """The images' exit probabilities through each bound and the eigenfunction series'
    survival are two independent computations of one distribution: they add to 1."""
    up = sq.upper_exit_probability(t, drift=drift, lower=-3.0, upper=2.5)
    down = sq.upper_exit_probability(t, drift=-drift, lower=-2.5, upper=3.0)
    assert up + down + _survival(t, drift, -3.0, 2.5) == pytest.approx(1.0, abs=1e-9)
