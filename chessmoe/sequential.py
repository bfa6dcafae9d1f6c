"""Planning and reading a sequential test (SPRT): Wald's curves (:func:`plan_sprt`), the bounds
in three units (:func:`bounds_table`), and the estimate after a test stopped at a bound
(:func:`stopped_estimate`). The formulas are restated in ``docs/elo.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chessmoe import elo

__all__ = [
    "BoundRow",
    "SprtPlan",
    "StoppedEstimate",
    "bounds_table",
    "draw_ratio_variance",
    "match_estimate",
    "plan_sprt",
    "score_of",
    "stop_probability",
    "stopped_estimate",
    "upper_exit_probability",
    "value_of_score",
]

#: Normalised Elo per unit of t-value ((score - 1/2) / per-game sd): 800 / ln 10.
NELO_SCALE = 800.0 / math.log(10.0)
_MODELS = ("normalized", "logistic")


def _check_model(model: str) -> None:
    if model not in _MODELS:
        raise ValueError(f"the SPRT model must be 'normalized' or 'logistic', got {model!r}")


def _check_test(elo0: float, elo1: float, alpha: float, beta: float) -> None:
    if not elo0 < elo1:
        raise ValueError(f"SPRT needs elo0 < elo1, got {elo0}, {elo1}")
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise ValueError(f"SPRT needs 0 < alpha, beta and alpha + beta < 1, got {alpha}, {beta}")


def _check_spread(variance: float, per: int) -> None:
    if per not in (1, 2):
        raise ValueError(f"the unit is a game (per=1) or a pair (per=2), got {per!r}")
    if not 0.0 < variance <= 0.25 or not math.isfinite(variance):
        raise ValueError(f"the score variance of a {'pair' if per == 2 else 'game'} must lie in "
                         f"(0, 0.25], got {variance}")


def draw_ratio_variance(draw_ratio: float) -> float:
    """The per-game score variance (1 - d) / 4 of a match between equals with draw ratio ``d``
    (wins and losses equally likely): the spread fishtest's calculator assumes at every Elo."""
    if not 0.0 <= draw_ratio < 1.0 or not math.isfinite(draw_ratio):
        raise ValueError(f"the draw ratio must lie in [0, 1), got {draw_ratio}")
    return (1.0 - draw_ratio) / 4.0


def score_of(value: float, *, model: str, variance: float, per: int) -> float:
    """The expected score of Elo ``value`` in the bounds' ``model``: logistic
    1 / (1 + 10^(-value/400)); normalised 1/2 + value sqrt(per var) / (800 / ln 10), the game's
    standard deviation sqrt(per var) (a pair's variance is that of the mean of its two games)."""
    _check_model(model)
    if model == "logistic":
        return elo.score_from_elo(value)
    return 0.5 + value * math.sqrt(per * variance) / NELO_SCALE


def value_of_score(score: float, *, model: str, variance: float, per: int) -> float:
    """The inverse of :func:`score_of`: the Elo (logistic or nElo) of an expected score."""
    _check_model(model)
    if model == "logistic":
        return elo.elo_from_score(score)
    return (score - 0.5) / math.sqrt(per * variance) * NELO_SCALE


@dataclass(frozen=True)
class BoundRow:
    """One hypothesis in three units: logistic Elo, normalised Elo and expected score (nan where
    the score leaves [0, 1], which a spread too small for the nElo asked makes happen)."""

    name: str
    logistic: float
    nelo: float
    score: float


def bounds_table(values: Sequence[tuple[str, float]], *, model: str, variance: float,
                 per: int = 1) -> list[BoundRow]:
    """Each named value (read in ``model``) as logistic Elo, nElo and score, with the spread
    ``variance`` of a game (``per=1``) or pair (``per=2``)."""
    _check_model(model)
    _check_spread(variance, per)
    sd = math.sqrt(per * variance)
    rows = []
    for name, value in values:
        s = score_of(value, model=model, variance=variance, per=per)
        inside = 0.0 <= s <= 1.0
        rows.append(BoundRow(name, elo.elo_from_score(s) if inside else math.nan,
                             (s - 0.5) / sd * NELO_SCALE if inside else math.nan,
                             s if inside else math.nan))
    return rows


@dataclass(frozen=True)
class SprtPlan:
    """Wald's pass probability and expected number of games of one SPRT at each true Elo
    ``elos`` (in the bounds' ``model``), for a game (``per=1``) or pair (``per=2``) score
    variance ``variance``; ``bounds``: H0 and H1 in three units."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str
    variance: float
    per: int
    elos: tuple[float, ...]
    pass_probability: tuple[float, ...]
    expected_games: tuple[float, ...]
    bounds: tuple[BoundRow, ...]

    @property
    def unit(self) -> str:
        return "nElo" if self.model == "normalized" else "Elo"

    def at(self, true_elo: float) -> elo.SprtOutlook:
        """The outlook at one more true Elo."""
        return elo.sprt_outlook(true_elo, elo0=self.elo0, elo1=self.elo1, alpha=self.alpha,
                                beta=self.beta, variance=self.variance, model=self.model,
                                per=self.per)


def plan_sprt(*, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
              model: str = "normalized", variance: float, per: int = 1,
              span: tuple[float, float] | None = None, points: int = 121) -> SprtPlan:
    """The SPRT's curves over ``span`` (default: from one bound width below ``elo0`` to one
    above ``elo1``), one spread at every Elo as fishtest's calculator assumes. Raises
    ``ValueError`` naming what is out of range.

    The pass probability and the expected number of games against the true Elo, for given bounds,
    ``alpha``, ``beta`` and a score spread (a draw ratio, :func:`draw_ratio_variance`, or a pair
    variance), with Wald's approximations as fishtest's SPRT calculator uses them
    (:func:`chessmoe.elo.sprt_outlook`). The LLR of one game (pair) is taken as Wald's (s1 - s0)(2 x
    - s0 - s1) / (2 var) with x its score, the first-order form of the exact generalized LLR
    (:func:`chessmoe.elo.sprt`): drift d = (s1 - s0)(2 s - s0 - s1) / (2 var) per unit at the true
    score s, variance v = (s1 - s0)^2 / var per unit.
    """
    _check_test(elo0, elo1, alpha, beta)
    _check_model(model)
    _check_spread(variance, per)
    if points < 2:
        raise ValueError(f"a curve needs at least 2 points, got {points}")
    width = elo1 - elo0
    low, high = span if span is not None else (elo0 - width, elo1 + width)
    if not low < high:
        raise ValueError(f"the span must rise, got {low}, {high}")
    grid = sorted({low + (high - low) * i / (points - 1) for i in range(points)}
                  | {elo0, elo1})
    outlooks = [elo.sprt_outlook(x, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
                                 variance=variance, model=model, per=per) for x in grid]
    table = bounds_table([("H0", elo0), ("H1", elo1)], model=model, variance=variance, per=per)
    return SprtPlan(elo0, elo1, alpha, beta, model, variance, per, tuple(grid),
                    tuple(o.pass_probability for o in outlooks),
                    tuple(o.expected_games for o in outlooks), tuple(table))


# --- the estimate after a stop --------------------------------------------------------------


def _log_phi(x: float) -> float:
    """log of the standard normal CDF, accurate far into the lower tail."""
    if x > -30.0:
        return math.log(0.5 * math.erfc(-x / math.sqrt(2.0)))
    # the asymptotic series of the Mills ratio, to 1/x^6
    x2 = x * x
    return (-x2 / 2.0 - math.log(-x) - 0.5 * math.log(2.0 * math.pi)
            + math.log1p(-1.0 / x2 + 3.0 / x2**2 - 15.0 / x2**3))


def _log_add(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    high = max(a, b)
    return high + math.log1p(math.exp(min(a, b) - high))


def _log_passage(drift: float, level: float, t: float) -> float:
    """log P(a Brownian motion with ``drift`` and unit variance reaches ``level`` > 0 by time
    ``t``): Phi((drift t - level)/sqrt t) + e^(2 drift level) Phi((-drift t - level)/sqrt t)."""
    root = math.sqrt(t)
    return _log_add(_log_phi((drift * t - level) / root),
                    2.0 * drift * level + _log_phi((-drift * t - level) / root))


def upper_exit_probability(t: float, *, drift: float, lower: float, upper: float) -> float:
    """P(a Brownian motion from 0 with ``drift`` and unit variance per unit time leaves
    (``lower``, ``upper``) through ``upper`` at or before time ``t``).

    The method of images: the density of an exit at ``upper`` is
    e^(drift upper - drift^2 t/2) sum_k c_k / sqrt(2 pi t^3) e^(-c_k^2 / 2t), c_k = upper + 2 k w
    over all integers k (w = upper - lower); each term integrates to a first-passage probability
    to |c_k| with drift sign(c_k) drift, weighted by e^(drift (upper - c_k)). ``t = inf`` gives
    the closed form (1 - e^(-2 drift lower)) / (e^(-2 drift upper) - e^(-2 drift lower)).
    """
    if not lower < 0.0 < upper:
        raise ValueError(f"the bounds must straddle 0, got {lower}, {upper}")
    if not t >= 0.0:
        raise ValueError(f"time must be >= 0, got {t}")
    width = upper - lower
    if math.isinf(t):
        return _upper_closed(drift, lower, upper)
    if t == 0.0:
        return 0.0
    # survival to t is at most (4/pi) e^(|drift| w - (drift^2/2 + pi^2/(2 w^2)) t) (the
    # first eigenvalue of the strip): where that is negligible, the exit has happened
    decay = (drift * drift / 2.0 + math.pi**2 / (2.0 * width * width)) * t
    if math.log(4.0 / math.pi) + abs(drift) * width - decay < -40.0:
        return _upper_closed(drift, lower, upper)
    total = 0.0
    reach = int(10.0 * math.sqrt(t) / width) + 3
    for k in range(-reach, reach + 1):
        c = upper + 2.0 * k * width
        sign = 1.0 if c > 0 else -1.0
        log_term = drift * (upper - c) + _log_passage(sign * drift, abs(c), t)
        if log_term > -745.0:
            total += sign * math.exp(log_term)
    return min(1.0, max(0.0, total))


def _upper_closed(drift: float, lower: float, upper: float) -> float:
    """(1 - e^(-2 drift lower)) / (e^(-2 drift upper) - e^(-2 drift lower)), overflow-safe."""
    if drift == 0.0:
        return -lower / (upper - lower)
    if drift > 0.0:  # divide by e^(-2 drift lower): both exponents below 0
        return -math.expm1(2.0 * drift * lower) / -math.expm1(-2.0 * drift * (upper - lower))
    # drift < 0: divide by e^(-2 drift upper) instead
    return (math.exp(2.0 * drift * upper) - math.exp(2.0 * drift * (upper - lower))) \
        / -math.expm1(2.0 * drift * (upper - lower))


@dataclass(frozen=True)
class StoppedEstimate:
    """The Elo (in the bounds' ``model``) of a match stopped by its SPRT after ``units`` games
    (pairs when ``per=2``), with its ``level`` interval ``[low, high]``: the median-unbiased
    estimate under the stage-wise ordering (:func:`stopped_estimate`); ``fixed_length`` is the
    match's own estimate read as if its length had been fixed in advance (biased away from the
    bound the test did not reach)."""

    elo: float
    low: float
    high: float
    level: float
    model: str
    accepted: str  # "H0" or "H1"
    units: float
    per: int
    fixed_length: float

    @property
    def unit(self) -> str:
        return "nElo" if self.model == "normalized" else "Elo"

    def text(self) -> str:
        """``+41.2 [+2.5, +81.0] Elo (95 %, corrected for the stop at H1)``."""
        return (f"{self.elo:+.1f} [{self.low:+.1f}, {self.high:+.1f}] {self.unit} "
                f"({self.level * 100:g} %, corrected for the stop at {self.accepted})")


def _bisect(f: Callable[[float], float], target: float, low: float, high: float) -> float:
    """The x in [low, high] with f(x) = target for f rising (the bracket widens as needed, at
    most 60 times: a target no x reaches raises ``ValueError`` instead of looping)."""
    for _ in range(60):
        if f(low) <= target:
            break
        low -= (high - low)
    else:
        raise ValueError(f"no value gives {target} (the function stays above it)")
    for _ in range(60):
        if f(high) >= target:
            break
        high += (high - low)
    else:
        raise ValueError(f"no value gives {target} (the function stays below it)")
    for _ in range(200):
        mid = (low + high) / 2.0
        if f(mid) < target:
            low = mid
        else:
            high = mid
        if high - low < 1e-12 * max(1.0, abs(mid)):
            break
    return (low + high) / 2.0


def stop_probability(true_elo: float, *, elo0: float, elo1: float, alpha: float, beta: float,
                     model: str, variance: float, per: int, units: float, accepted: str
                     ) -> float:
    """P(an outcome at least as far towards H1 as the observed stop | the true Elo), in the
    stage-wise ordering: a stop at H1 after ``units`` or fewer units for ``accepted="H1"``,
    anything but a stop at H0 within ``units`` for ``accepted="H0"``. Uniform on [0, 1] over
    repeated tests at the true Elo (the continuous approximation), which is what makes
    :func:`stopped_estimate` median-unbiased and its interval cover."""
    drift, sd, lower, upper = _brownian(true_elo, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
                                        model=model, variance=variance, per=per)
    if accepted == "H1":
        return upper_exit_probability(units, drift=drift / sd, lower=lower / sd,
                                      upper=upper / sd)
    if accepted == "H0":
        return 1.0 - upper_exit_probability(units, drift=-drift / sd, lower=-upper / sd,
                                            upper=-lower / sd)
    raise ValueError(f"a stopped test accepted 'H0' or 'H1', got {accepted!r}")


def _brownian(true_elo: float, *, elo0: float, elo1: float, alpha: float, beta: float,
              model: str, variance: float, per: int) -> tuple[float, float, float, float]:
    """Drift and standard deviation of the LLR per unit at ``true_elo``, and the bounds."""
    s0, s1, s = (score_of(x, model=model, variance=variance, per=per)
                 for x in (elo0, elo1, true_elo))
    drift = (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * variance)
    sd = abs(s1 - s0) / math.sqrt(variance)
    return drift, sd, math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def stopped_estimate(*, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
                     model: str = "normalized", variance: float, per: int = 1, units: float,
                     accepted: str, fixed_length: float = math.nan, level: float = 0.95
                     ) -> StoppedEstimate:
    """The Elo of a match stopped when its SPRT accepted ``accepted`` ("H0" or "H1") after
    ``units`` games (pairs for ``per=2``), ``variance`` the score variance of a unit.

    The estimate is the Elo at which :func:`stop_probability` is 1/2 (median-unbiased), the
    interval the Elos at which it is (1 -+ level) / 2. The LLR is treated as a Brownian motion
    (Wald's first-order LLR, no overshoot), so a stop is read as an exit at the bound it
    crossed. Raises ``ValueError`` naming a bad argument.

    Why: the fixed-length estimate of such a match leans away from the bound it did not reach (a
    test stops early when the games ran lucky). The ordering of outcomes is stage-wise: a stop at
    the upper bound after fewer games is the more extreme.
    """
    _check_test(elo0, elo1, alpha, beta)
    _check_model(model)
    _check_spread(variance, per)
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must lie in (0, 1), got {level}")
    if not (units > 0.0 and math.isfinite(units)):
        raise ValueError(f"a stopped test played at least one unit, got {units}")
    if accepted not in ("H0", "H1"):
        raise ValueError(f"a stopped test accepted 'H0' or 'H1', got {accepted!r}")
    s0 = score_of(elo0, model=model, variance=variance, per=per)
    s1 = score_of(elo1, model=model, variance=variance, per=per)

    def probability_at(score: float) -> float:
        value = value_of_score(score, model=model, variance=variance, per=per)
        return stop_probability(value, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
                                model=model, variance=variance, per=per, units=units,
                                accepted=accepted)

    # solved in score, where the drift is linear and never leaves [0, 1] for logistic Elo
    width = abs(s1 - s0)
    low_s, high_s = s0 - width, s1 + width

    def solve(target: float) -> float:
        score = _bisect(probability_at, target, low_s, high_s)
        return value_of_score(min(max(score, 1e-12), 1.0 - 1e-12) if model == "logistic"
                              else score, model=model, variance=variance, per=per)

    tail = (1.0 - level) / 2.0
    return StoppedEstimate(elo=solve(0.5), low=solve(tail), high=solve(1.0 - tail),
                           level=level, model=model, accepted=accepted, units=units, per=per,
                           fixed_length=fixed_length)


def _unit_spread(cells: Sequence[int], scores: Sequence[float]) -> tuple[float, float, float]:
    """Units, mean score and per-unit score variance of outcome counts (0 variance when every
    unit scored the same)."""
    n = float(sum(cells))
    mu = sum(c * s for c, s in zip(cells, scores, strict=True)) / n
    return n, mu, sum(c * (s - mu) ** 2 for c, s in zip(cells, scores, strict=True)) / n


def match_estimate(*, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
                   model: str = "normalized", level: float = 0.95, wins: int | None = None,
                   draws: int | None = None, losses: int | None = None,
                   pentanomial: Sequence[int] | None = None) -> StoppedEstimate | None:
    """:func:`stopped_estimate` of a match whose SPRT (:func:`chessmoe.elo.sprt`, the exact
    LLR, on the pentanomial counts when given, else on W/D/L) accepted a hypothesis, read as
    stopped there: the spread and the fixed-length estimate are the match's own. None while
    the test continues, or when every unit scored the same (no spread to read the stop by)."""
    scores: tuple[float, ...]
    if pentanomial is not None:
        test = elo.sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, pentanomial=pentanomial,
                        model=model)
        cells, scores, per = list(pentanomial), (0.0, 0.25, 0.5, 0.75, 1.0), 2
    else:
        test = elo.sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, wins=wins,
                        draws=draws, losses=losses, model=model)
        cells, scores, per = [losses or 0, draws or 0, wins or 0], (0.0, 0.5, 1.0), 1
    if test.state == "continue":
        return None
    units, mu, variance = _unit_spread(cells, scores)
    if variance <= 0.0:
        return None
    fixed = value_of_score(mu, model=model, variance=variance, per=per)
    return stopped_estimate(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, model=model,
                            variance=variance, per=per, units=units,
                            accepted=test.state.split()[0], fixed_length=fixed, level=level)
