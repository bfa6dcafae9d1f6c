"""Estimates from game pairs: an arm's score and Elo with its interval, the paired
difference of two arms, pooled and seed-level estimates over several matches, and Holm's
adjustment of a family of p-values.

Estimates from games use game *pairs* (one opening, both colours) as the unit -- the
pentanomial model -- so an opening's two games are never counted as independent; arms
compared with each other were played on the same openings (one opening group), so their
difference is taken pair by pair over the shared openings (a paired design). "Points" are
score percentage points: 100 x the difference of two mean pair scores, each against the
arm's own opponent (near a 50 % score one point is about 7 Elo).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from chessmoe.elo import elo_from_score, pair_standard_error
from chessmoe.records import GameRecord, complete_pairs, pentanomial_counts

__all__ = ["MIN_CELL_PAIRS", "Z95", "ArmEstimate", "EloTrend", "PairedDifference",
           "SeedLevelEstimate", "arm_estimate", "clustered_mean", "elo_interval", "elo_trend",
           "estimate_text", "holm",
           "pair_scores", "paired_difference", "paired_seeds_estimate", "pooled_estimate",
           "seed_level_estimate", "signed",
           "t975", "t975_at", "two_sided_p"]

Z95 = 1.959963984540054


@dataclass(frozen=True)
class ArmEstimate:
    """One arm (a match against the regular network) from its complete game pairs."""

    name: str
    pairs: int
    openings: int
    score: float  # mean score per game of the arm's engine
    elo: float
    low: float  # 95 % interval in Elo (asymmetric; -inf/+inf where it leaves [0, 1])
    high: float
    p: float = math.nan  # two-sided p-value of "score 50 %" (z-test on pair scores)


@dataclass(frozen=True)
class PairedDifference:
    """Arm ``a`` minus arm ``b`` over the openings both played, in score percentage points,
    with its 95 % interval and the two-sided p-value of "no difference"."""

    diff: float
    low: float
    high: float
    openings: int
    p: float


def _elo_bound(score: float) -> float:
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return elo_from_score(score)


def pair_scores(records: Sequence[GameRecord]) -> dict[int, tuple[int | None, float]]:
    """``pair -> (opening, mean score of the pair)`` of the complete game pairs
    (:func:`chessmoe.records.complete_pairs`, the kit's one definition, which the match
    summaries' pentanomial counts use too), for every estimate here."""
    return {n: (p.opening, p.score) for n, p in complete_pairs(records).items()}


def two_sided_p(z: float) -> float:
    """The two-sided p-value of a standard normal statistic ``z`` (nan stays nan; a zero
    standard error with a nonzero effect gives ``z = +-inf`` and p = 0)."""
    if math.isnan(z):
        return math.nan
    return math.erfc(abs(z) / math.sqrt(2.0))


def _z(effect: float, se: float) -> float:
    if math.isnan(effect) or math.isnan(se):
        return math.nan
    if se == 0.0:
        return 0.0 if effect == 0.0 else math.copysign(math.inf, effect)
    return effect / se


def arm_estimate(name: str, records: Sequence[GameRecord]) -> ArmEstimate:
    """The pentanomial estimate of one arm: mean pair score +- 1.96 standard errors
    (:func:`chessmoe.elo.pair_standard_error`, the kit's one pair interval), and the
    two-sided p-value of a 50 % score from the same standard error. Fewer than two complete
    pairs give no estimate."""
    pairs = pair_scores(records)
    n = len(pairs)
    if n < 2:
        return ArmEstimate(name, n, n, math.nan, math.nan, math.nan, math.nan)
    _, mean, se = pair_standard_error(pentanomial_counts(records))
    return ArmEstimate(name, n, len({o for o, _ in pairs.values()}), mean,
                       elo_from_score(mean) if 0 < mean < 1 else _elo_bound(mean),
                       _elo_bound(mean - Z95 * se), _elo_bound(mean + Z95 * se),
                       two_sided_p(_z(mean - 0.5, se)))


# Student's t 97.5 % quantiles for 1..30 degrees of freedom (standard tables).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975_at(df: float) -> float:
    """The 97.5 % t quantile at a real number of degrees of freedom (Satterthwaite's): the
    table's values interpolated linearly in 1/df, exact at whole numbers and within about
    0.1 of the exact quantile between 1 and 2 (4.35 at 1.99, exact 4.43), closer beyond;
    infinite below one degree of freedom, where no finite interval is claimed."""
    if math.isnan(df) or df < 1:
        return math.inf
    low = math.floor(df)
    if low == df:
        return t975(low)
    weight = (1 / df - 1 / (low + 1)) / (1 / low - 1 / (low + 1))
    return t975(low + 1) + weight * (t975(low) - t975(low + 1))


def t975(df: int) -> float:
    """Student's t 97.5 % quantile (a table to 30 degrees of freedom, the Cornish-Fisher
    expansion beyond, within 1e-3): the multiplier of a 95 % interval from few clusters."""
    if df < 1:
        return math.nan
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2))


def clustered_mean(values: Sequence[tuple[object, float]]) -> tuple[float, float, int]:
    """Mean of ``(cluster, value)`` observations and its cluster-robust standard error:
    ``se^2 = G/(G-1) * sum_g (sum_{i in g} (v_i - mean))^2 / n^2`` over G clusters (the
    sandwich estimator), so observations that share a cluster -- the same opening played at
    several settings -- are not counted as independent. Returns ``(mean, se, clusters)``."""
    n = len(values)
    clusters: dict[object, float] = {}
    if n == 0:
        return math.nan, math.nan, 0
    mean = sum(v for _, v in values) / n
    for key, v in values:
        clusters[key] = clusters.get(key, 0.0) + (v - mean)
    g = len(clusters)
    if g < 2:
        return mean, math.nan, g
    se = math.sqrt(g / (g - 1) * sum(e * e for e in clusters.values())) / n
    return mean, se, g


def pooled_estimate(name: str, matches: Sequence[Sequence[GameRecord]]) -> ArmEstimate:
    """One estimate from several matches (settings) of one method: every complete game pair
    is an observation, clustered by its opening across the matches (:func:`clustered_mean`);
    the interval is the Elo of mean -+ t(G-1) cluster-robust standard errors (Student's t
    with one degree of freedom fewer than clusters: with 6 openings, 2.571 instead of 1.96)."""
    values = [(opening, score) for records in matches
              for opening, score in pair_scores(records).values()]
    mean, se, clusters = clustered_mean(values)
    if math.isnan(se):
        return ArmEstimate(name, len(values), clusters, mean, math.nan, math.nan, math.nan)
    critical = t975(clusters - 1)
    # the p-value is the normal one: only used (in the claims) with hundreds of clusters
    return ArmEstimate(name, len(values), clusters, mean, _elo_bound(mean),
                       _elo_bound(mean - critical * se), _elo_bound(mean + critical * se),
                       two_sided_p(_z(mean - 0.5, se)) if clusters > 30 else math.nan)


@dataclass(frozen=True)
class SeedLevelEstimate:
    """The mean score over a crossed grid of training seeds with the seeds of both sides
    taken as random (other seeds would give other cells): the estimate, its 95 % interval in
    Elo and the Satterthwaite degrees of freedom the interval's t quantile used."""

    estimate: ArmEstimate
    df: float
    grid: tuple[int, int]  # seeds of the first side x seeds of the second


#: Fewest complete game pairs a cell of a seed grid needs for :func:`seed_level_estimate`.
MIN_CELL_PAIRS = 10


def seed_level_estimate(name: str, grid: Mapping[tuple[str, str], Sequence[GameRecord]]
                        ) -> SeedLevelEstimate | None:
    """A two-way random-effects estimate over a complete I x J grid of seed pairings (I, J
    >= 2): each cell is its mean pair score y_ij = mu + a_i + b_j + e_ij (e: interaction
    and the cell's own game noise). From the ANOVA mean squares MS_A (I-1 df), MS_B (J-1)
    and MS_E ((I-1)(J-1)): var(mean) = s_a^2/I + s_b^2/J + MS_E/(IJ) with
    s_a^2 = (MS_A-MS_E)/J and s_b^2 = (MS_B-MS_E)/I, each set to 0 where negative;
    Satterthwaite's degrees of freedom (with 3 seeds a side from about 0.8 to 4: below 1 the
    interval is unbounded); the interval is the mean -+ :func:`t975_at` standard errors.
    Every cell is played on the same openings, so an opening effect common to all cells
    cancels: the openings are held fixed here (the pooled estimate holds the seeds fixed
    instead). ``None`` for an incomplete or smaller grid, or a cell with fewer than
    :data:`MIN_CELL_PAIRS` complete pairs. It answers "across seeds" where the pooled
    estimate cannot, and is wide."""
    firsts = sorted({a for a, _ in grid})
    seconds = sorted({b for _, b in grid})
    n_i, n_j = len(firsts), len(seconds)
    if n_i < 2 or n_j < 2 or len(grid) != n_i * n_j:
        return None
    y = {}
    for key, records in grid.items():
        pairs = [s for _, s in pair_scores(records).values()]
        if len(pairs) < MIN_CELL_PAIRS:
            return None
        y[key] = sum(pairs) / len(pairs)
    mean = sum(y.values()) / len(y)
    rows = {a: sum(y[(a, b)] for b in seconds) / n_j for a in firsts}
    cols = {b: sum(y[(a, b)] for a in firsts) / n_i for b in seconds}
    ms_a = n_j * sum((r - mean) ** 2 for r in rows.values()) / (n_i - 1)
    ms_b = n_i * sum((c - mean) ** 2 for c in cols.values()) / (n_j - 1)
    df_e = (n_i - 1) * (n_j - 1)
    ms_e = sum((y[(a, b)] - rows[a] - cols[b] + mean) ** 2
               for a in firsts for b in seconds) / df_e
    cells = n_i * n_j
    # var = c_a MS_A + c_b MS_B + c_e MS_E, the components kept where positive
    c_a = 1 / cells if ms_a > ms_e else 0.0
    c_b = 1 / cells if ms_b > ms_e else 0.0
    c_e = 1 / cells - c_a - c_b
    var = c_a * ms_a + c_b * ms_b + c_e * ms_e
    terms = [(c_a * ms_a, n_i - 1), (c_b * ms_b, n_j - 1), (c_e * ms_e, df_e)]
    denominator = sum(x * x / d for x, d in terms if x)
    if var <= 0 or denominator <= 0:
        return None
    df = var * var / denominator
    half = t975_at(df) * math.sqrt(var)
    scored = [pair_scores(r) for r in grid.values()]
    openings = len({o for pairs in scored for o, _ in pairs.values()})
    estimate = ArmEstimate(name, sum(len(pairs) for pairs in scored), openings, mean,
                           _elo_bound(mean), _elo_bound(mean - half), _elo_bound(mean + half))
    return SeedLevelEstimate(estimate, df, (n_i, n_j))


def paired_seeds_estimate(name: str, cells: Sequence[Sequence[GameRecord]]
                          ) -> ArmEstimate | None:
    """The mean score over seed pairings in which each side's seed is trained afresh for
    every cell (seed 9 against seed 9, 10 against 10, ...), with both sides' seeds taken as
    random: the cells' mean pair scores are independent draws, so the interval is their mean
    -+ t(k-1) standard errors of the mean of k cells (with 2 cells t is 12.7: wide by
    construction). ``None`` for fewer than 2 cells or a cell with fewer than
    :data:`MIN_CELL_PAIRS` complete pairs."""
    means: list[float] = []
    for records in cells:
        pairs = [score for _, score in pair_scores(records).values()]
        if len(pairs) < MIN_CELL_PAIRS:
            return None
        means.append(sum(pairs) / len(pairs))
    k = len(means)
    if k < 2:
        return None
    mean = sum(means) / k
    se = math.sqrt(sum((m - mean) ** 2 for m in means) / (k - 1) / k)
    half = t975(k - 1) * se
    openings = len({o for records in cells for o, _ in pair_scores(records).values()})
    total = sum(len(pair_scores(records)) for records in cells)
    return ArmEstimate(name, total, openings, mean, _elo_bound(mean), _elo_bound(mean - half),
                       _elo_bound(mean + half))


@dataclass(frozen=True)
class EloTrend:
    """Elo = ``intercept + slope * log10(parameters)``, fitted by :func:`elo_trend`, with the
    covariance of its two coefficients (from the points' standard errors, taken as known)."""

    slope: float  # Elo per tenfold parameters
    intercept: float
    var_intercept: float
    covariance: float
    var_slope: float
    points: int

    def at(self, parameters: float) -> tuple[float, float, float]:
        """``(elo, low, high)``: the fitted line at ``parameters`` and its 95 % interval
        (the line's own uncertainty, +- :data:`Z95` of its standard error; not the spread of
        a new network's Elo around it). Beyond the fitted sizes it is an extrapolation."""
        x = math.log10(parameters)
        elo = self.intercept + self.slope * x
        var = self.var_intercept + 2 * x * self.covariance + x * x * self.var_slope
        half = Z95 * math.sqrt(max(var, 0.0))
        return elo, elo - half, elo + half


def elo_trend(points: Sequence[tuple[float, ArmEstimate]]) -> EloTrend | None:
    """Elo against log10(parameters) by weighted least squares over ``(parameters,
    estimate)`` points: each point's standard error is its 95 % interval's half-width over
    :data:`Z95`, the two sides of an asymmetric interval averaged (``(high - low) / 2Z95``),
    its weight 1/se^2. The standard errors are treated as known (no residual variance is
    estimated from so few points), so the coefficients' covariance is (X'WX)^-1 and the
    line's interval uses the normal quantile. A point without a finite estimate and interval
    is left out; ``None`` with fewer than two points left or only one distinct size."""
    rows = [(math.log10(n), e.elo, (e.high - e.low) / (2 * Z95)) for n, e in points
            if n > 0 and all(math.isfinite(v) for v in (e.elo, e.low, e.high))
            and e.high > e.low]
    if len(rows) < 2 or len({x for x, _, _ in rows}) < 2:
        return None
    weights = [1 / (se * se) for _, _, se in rows]
    sw = sum(weights)
    sx = sum(w * x for w, (x, _, _) in zip(weights, rows, strict=True))
    sy = sum(w * y for w, (_, y, _) in zip(weights, rows, strict=True))
    sxx = sum(w * x * x for w, (x, _, _) in zip(weights, rows, strict=True))
    sxy = sum(w * x * y for w, (x, y, _) in zip(weights, rows, strict=True))
    det = sw * sxx - sx * sx
    return EloTrend((sw * sxy - sx * sy) / det, (sxx * sy - sx * sxy) / det,
                    sxx / det, -sx / det, sw / det, len(rows))


def paired_difference(a: Sequence[GameRecord], b: Sequence[GameRecord]) -> PairedDifference:
    """Mean pair-score difference of arm ``a`` minus arm ``b`` over the openings both played
    (each arm's pairs against its own opponent), with its 95 % interval and p-value, in score
    percentage points. Pairs are matched by their opening (a pair whose records name none
    has no match)."""
    pa = {o: s for o, s in pair_scores(a).values() if o is not None}
    pb = {o: s for o, s in pair_scores(b).values() if o is not None}
    shared = sorted(set(pa) & set(pb))
    d = [100 * (pa[o] - pb[o]) for o in shared]
    n = len(d)
    if n < 2:
        return PairedDifference(math.nan, math.nan, math.nan, n, math.nan)
    mean = sum(d) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1) / n)
    return PairedDifference(mean, mean - Z95 * se, mean + Z95 * se, n, two_sided_p(_z(mean, se)))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of a family of p-values (nan entries are not in the
    family and stay nan): the i-th smallest of m becomes ``max_{j<=i} min(1, (m-j+1) p_(j))``,
    so rejecting where the adjusted value is below alpha keeps the family-wise error at
    alpha under any dependence between the tests."""
    order = sorted((p, i) for i, p in enumerate(pvalues) if not math.isnan(p))
    m = len(order)
    out = [math.nan] * len(pvalues)
    running = 0.0
    for rank, (p, i) in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


def signed(x: float) -> str:
    """A whole Elo with its sign (``+67``, ``-inf``)."""
    return "+inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:+.0f}"


def elo_interval(e: ArmEstimate) -> str:
    """``+67 [+41, +93]``: the arm's Elo and its 95 % interval ('' without an estimate)."""
    return "" if math.isnan(e.elo) else f"{signed(e.elo)} [{signed(e.low)}, {signed(e.high)}]"


def estimate_text(e: ArmEstimate) -> str:
    """``+67 Elo [+41, +93] (400 games, 200 openings)``: what a claims row measures."""
    return (f"{signed(e.elo)} Elo [{signed(e.low)}, {signed(e.high)}] "
            f"({2 * e.pairs} games, {e.openings} openings)")
