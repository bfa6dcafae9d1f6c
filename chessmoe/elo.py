"""Match statistics as cutechess and fastchess report them, plus a multi-engine rating list:
cutechess's trinomial Elo and printed line (:func:`trinomial`), fastchess's pentanomial and
normalised Elo (:func:`pentanomial`), the generalized SPRT with its exact LLR, the kit's one
LLR (:func:`sprt`), the exact binomial interval, LOS, an SPRT's outlook and the games a margin
needs, and maximum-likelihood ratings of several engines (:func:`rating_list`). The formulas
come from the documented behaviour of cutechess and fastchess (restated in docs/elo.md); the
code is this project's own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

__all__ = [
    "TIE_ELO",
    "Z_CUTECHESS",
    "Z_EXACT",
    "EloEstimate",
    "Rating",
    "SprtOutlook",
    "SprtResult",
    "clopper_pearson_interval",
    "confidence_z",
    "elo_from_score",
    "games_for_margin",
    "likelihood_of_superiority",
    "normalized_elo_pentanomial",
    "normalized_elo_trinomial",
    "pairs_from_games",
    "pentanomial",
    "ranked",
    "rating_list",
    "report_lines",
    "score_from_elo",
    "sprt",
    "sprt_outlook",
    "trinomial",
]

#: cutechess's z for 95 %: sqrt(2) * erfInv(0.95) with its approximate inverse erf (~1.957162).
Z_CUTECHESS: float = 1.9571619316560245
#: The exact two-sided 95 % normal quantile (fastchess's ``CI95ZSCORE``).
Z_EXACT: float = 1.959963984540054

_NELO_SCALE = 800.0 / math.log(10.0)  # normalised Elo per unit of (mu - 0.5) / sigma
_PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
_GAME_SCORES = (0.0, 0.5, 1.0)  # loss, draw, win


def _div(a: float, b: float) -> float:
    """IEEE division (x/0 = +-inf, 0/0 = nan) so results match cutechess's C++ doubles."""
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _cutechess_phi_inv(p: float) -> float:
    """cutechess's normal quantile: sqrt(2) erfInv(2p - 1) with Winitzki's erfInv approximation."""
    pi = 3.1415926535897  # the truncated pi cutechess uses
    x = 2.0 * p - 1.0
    a = 8.0 * (pi - 3.0) / (3.0 * pi * (4.0 - pi))
    y = math.log(1.0 - x * x)
    z = 2.0 / (pi * a) + y / 2.0
    root = math.sqrt(math.sqrt(z * z - y / a) - z)
    return math.sqrt(2.0) * (-root if x < 0.0 else root)


def confidence_z(level: float) -> float:
    """Two-sided normal quantile for a confidence level (0.95 -> 1.959964), for interval widths."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must lie in (0, 1), got {level}")
    return NormalDist().inv_cdf(0.5 + level / 2.0)


def elo_from_score(p: float) -> float:
    """Logistic Elo -400 log10(1/p - 1) of an expected score; +-inf at 1 and 0, nan outside."""
    if math.isnan(p) or p < 0.0 or p > 1.0:
        return math.nan
    if p == 0.0:
        return -math.inf
    q = 1.0 / p - 1.0
    if q <= 0.0:
        return math.inf
    return -400.0 * math.log10(q) + 0.0  # + 0.0 turns -0.0 into 0.0


def score_from_elo(elo: float) -> float:
    """Expected score 1 / (1 + 10^(-elo/400)) of a logistic Elo difference (overflow-safe)."""
    if math.isnan(elo):
        return math.nan
    a = elo * math.log(10.0) / 400.0
    if a >= 0.0:
        return 1.0 / (1.0 + math.exp(-a))
    e = math.exp(a)
    return e / (1.0 + e)


def _fmt1(x: float) -> str:
    """One decimal as Qt's arg(x, 0, 'f', 1) prints it: ``nan`` (never ``-nan``), ``inf``,
    ``-inf``, ``-0.3``; an exact zero prints ``0.0`` (never ``-0.0``) while a small negative
    value that rounds to zero keeps its sign (``-0.0``), and an exact binary tie rounds away
    from zero (12.25 -> ``12.3``)."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    # Decimal(x) is the double's exact value, so only exact binary ties (x.25, x.75) are
    # affected; Qt's double-conversion rounds those away from zero where printf rounds to even.
    return f"{Decimal(x + 0.0).quantize(Decimal('0.1'), rounding=ROUND_HALF_UP):f}"


@dataclass(frozen=True)
class EloEstimate:
    """Elo difference with its error margin, LOS (%), draw ratio (fraction), score and games.

    ``margin`` is cutechess's symmetric half-width; the interval it comes from is
    ``[low, high]`` = the Elo of ``score -+ z stdev``, asymmetric (wider towards the far side of
    0.5) and infinite where the score bound leaves (0, 1): draw that, not ``elo -+ margin``.
    """

    elo: float
    margin: float
    los: float
    draw_ratio: float
    score: float
    games: int
    low: float = math.nan
    high: float = math.nan

    def line(self) -> str:
        """cutechess's printed result line, so outputs can be compared digit by digit."""
        return (f"Elo difference: {_fmt1(self.elo)} +/- {_fmt1(self.margin)}, "
                f"LOS: {_fmt1(self.los)} %, DrawRatio: {_fmt1(self.draw_ratio * 100.0)} %")


def _check_counts(counts: Sequence[int]) -> None:
    """Reject negative or non-integer counts, which no match can produce."""
    for c in counts:
        if isinstance(c, bool) or not isinstance(c, int | np.integer) or c < 0:
            raise ValueError(f"counts must be non-negative integers, got {list(counts)}")


def _bound(score: float) -> float:
    """Elo of a score bound, saturating to -+inf beyond (0, 1)."""
    if math.isnan(score):
        return math.nan
    return elo_from_score(min(1.0, max(0.0, score)))


def _margin(mu: float, stdev: float, z: float) -> float:
    """Half the Elo width of the score interval mu +- z stdev (nan when a bound leaves [0, 1])."""
    return (elo_from_score(mu + z * stdev) - elo_from_score(mu - z * stdev)) / 2.0


def trinomial(wins: int, losses: int, draws: int, *, z: float = Z_CUTECHESS) -> EloEstimate:
    """cutechess's Elo, margin, LOS and draw ratio of a W/L/D result (same operation order).

    IEEE semantics are kept on purpose: a score of 1 is ``inf`` Elo, a confidence bound
    outside [0, 1] makes the margin ``nan``, no games at all make every number ``nan``, and
    W + L = 0 makes LOS ``nan`` (0 / 0 in cutechess's C++); the printed line
    (``Elo difference: 381.7 +/- nan, LOS: 99.9 %, DrawRatio: 6.7 %``) prints numbers as Qt
    does (:func:`_fmt1`)."""
    _check_counts((wins, losses, draws))
    n = float(wins + losses + draws)
    fw, fl, fd = _div(wins, n), _div(losses, n), _div(draws, n)
    mu = fw + fd / 2.0
    var = fw * (1.0 - mu) ** 2 + fl * (0.0 - mu) ** 2 + fd * (0.5 - mu) ** 2
    stdev = _div(math.sqrt(var), math.sqrt(n))
    los = 100.0 * (0.5 + 0.5 * math.erf(_div(wins - losses, math.sqrt(2.0 * (wins + losses)))))
    return EloEstimate(elo=elo_from_score(mu), margin=_margin(mu, stdev, z), los=los,
                       draw_ratio=_div(draws, n), score=mu, games=wins + losses + draws,
                       low=_bound(mu - z * stdev), high=_bound(mu + z * stdev))


def _pair_moments(counts: Sequence[int]) -> tuple[int, float, float]:
    """Number of pairs, mean pair score and per-pair variance of pentanomial counts."""
    if len(counts) != 5:
        raise ValueError(f"pentanomial counts are (LL, LD, WL+DD, WD, WW), got {list(counts)}")
    _check_counts(counts)
    pairs = int(sum(counts))
    if pairs == 0:
        return 0, math.nan, math.nan
    f = [c / pairs for c in counts]
    mu = sum(fi * si for fi, si in zip(f, _PAIR_SCORES, strict=True))
    var = sum(fi * (si - mu) ** 2 for fi, si in zip(f, _PAIR_SCORES, strict=True))
    return pairs, mu, var


def pair_standard_error(counts: Sequence[int]) -> tuple[int, float, float]:
    """``(pairs, mean pair score, its standard error)`` of pentanomial counts: the kit's one
    pair interval model, fastchess's (the per-pair variance over the pairs played, ``n``
    not ``n - 1``), which the claims table, the match summaries and the Elo explorer share."""
    pairs, mu, var = _pair_moments(counts)
    return pairs, mu, (math.sqrt(var / pairs) if pairs else math.nan)


def pentanomial(counts: Sequence[int], *, z: float = Z_CUTECHESS) -> EloEstimate:
    """Elo and margin from game pairs (LL, LD, WL+DD, WD, WW); draw_ratio = share of 1/2 pairs."""
    pairs, mu, stdev = pair_standard_error(counts)
    # fastchess's pentanomial LOS: normal approximation of P(mu > 0.5), in percent.
    los = 100.0 * (1.0 - math.erf(-_div(mu - 0.5, math.sqrt(2.0) * stdev))) / 2.0
    return EloEstimate(elo=elo_from_score(mu), margin=_margin(mu, stdev, z), los=los,
                       draw_ratio=_div(counts[2], pairs), score=mu, games=2 * pairs,
                       low=_bound(mu - z * stdev), high=_bound(mu + z * stdev))


def _nelo(mu: float, sd: float, stdev_mean: float, z: float) -> tuple[float, float]:
    """fastchess's nElo = (mu - 0.5) / sd * 800/ln10 and its margin over mu +- z stdev_mean."""
    nelo = _div(mu - 0.5, sd) * _NELO_SCALE
    hi = _div(mu + z * stdev_mean - 0.5, sd) * _NELO_SCALE
    lo = _div(mu - z * stdev_mean - 0.5, sd) * _NELO_SCALE
    return nelo, (hi - lo) / 2.0


def normalized_elo_trinomial(wins: int, losses: int, draws: int, *,
                             z: float = Z_EXACT) -> tuple[float, float]:
    """fastchess's normalised Elo (mu - 0.5)/sqrt(var_game) * 800/ln10 and its margin."""
    est = trinomial(wins, losses, draws)
    n = est.games
    if n == 0:
        return math.nan, math.nan
    mu = est.score
    fw, fl, fd = wins / n, losses / n, draws / n
    var = fw * (1.0 - mu) ** 2 + fl * mu**2 + fd * (0.5 - mu) ** 2
    return _nelo(mu, math.sqrt(var), math.sqrt(var / n), z)


def normalized_elo_pentanomial(counts: Sequence[int], *,
                               z: float = Z_EXACT) -> tuple[float, float]:
    """fastchess's normalised Elo (mu - 0.5)/sqrt(2 var_pair) * 800/ln10 and its margin."""
    pairs, mu, var = _pair_moments(counts)
    if pairs == 0:
        return math.nan, math.nan
    return _nelo(mu, math.sqrt(2.0 * var), math.sqrt(var / pairs), z)


@dataclass(frozen=True)
class SprtResult:
    """Log-likelihood ratio, its stopping bounds and the decision ("H0/H1 accepted", "continue")."""

    llr: float
    lower: float
    upper: float
    state: str

    def line(self) -> str:
        """A cutechess-like SPRT line for logs."""
        return (f"SPRT: llr {self.llr:.2f}, lbound {self.lower:.2f}, "
                f"ubound {self.upper:.2f} - {self.state}")


def _regularize(counts: Sequence[int]) -> list[float]:
    """Empty cells become 1e-3 games, as fastchess does, so the variance never vanishes."""
    return [float(c) if c else 1e-3 for c in counts]


def sprt(*, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
         wins: int | None = None, losses: int | None = None, draws: int | None = None,
         pentanomial: Sequence[int] | None = None, model: str = "normalized",
         exact: bool = True) -> SprtResult:
    """Generalized SPRT of H0: elo = elo0 against H1: elo = elo1 from W/L/D or pentanomial counts.

    The LLR (``exact=True``, the default and the kit's one LLR) is the generalized LLR of
    fishtest and fastchess >= 1.0: each hypothesis's distribution is the maximum-likelihood
    multinomial over the observed outcome cells under its constraint (mean score s for
    ``logistic``, s = 1/(1 + 10^(-elo/400)); t-value (mu - 1/2) / sigma = elo / (800/ln10) for
    ``normalized``, times sqrt(2) for pairs), and the LLR sums the log ratio of the two over the
    observations. Empty cells count as 1e-3 games (fastchess). No games at all give LLR 0.

    ``exact=False``: the first-order closed form LLR = N (s1 - s0)(2 mu - s0 - s1) / (2 var),
    mu and var the empirical mean and variance of a game or pair score over N games or pairs,
    ``normalized`` s = 0.5 + nelo * sqrt(var) / (800/ln10) (sqrt(2 var) for pairs). It agrees
    with the exact LLR to first order in the bounds and drifts from it on lopsided counts
    (W/D/L 60/30/10 at nElo [0, 10]: 2.10 against the exact 1.68); kept for comparison only.
    """
    if not elo0 < elo1:
        raise ValueError(f"SPRT needs elo0 < elo1, got {elo0}, {elo1}")
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise ValueError(f"SPRT needs 0 < alpha, beta and alpha + beta < 1, got {alpha}, {beta}")
    if model not in ("normalized", "logistic"):
        raise ValueError(f"SPRT model must be 'normalized' or 'logistic', got {model!r}")
    trinomial_given = (wins, losses, draws) != (None, None, None)
    if trinomial_given == (pentanomial is not None):
        raise ValueError("give either wins/losses/draws or pentanomial counts, not both or none")
    if pentanomial is not None:
        raw: Sequence[int] = pentanomial
        scores: tuple[float, ...]
        if len(raw) != 5:
            raise ValueError(f"pentanomial counts are (LL, LD, WL+DD, WD, WW), got {list(raw)}")
        scores, sd_factor = _PAIR_SCORES, math.sqrt(2.0)
    else:
        raw = (losses or 0, draws or 0, wins or 0)
        scores, sd_factor = _GAME_SCORES, 1.0
    _check_counts(raw)
    lower = math.log(beta / (1.0 - alpha))
    upper = math.log((1.0 - beta) / alpha)
    if sum(raw) == 0:
        return SprtResult(0.0, lower, upper, "continue")
    cells = _regularize(raw)
    n = sum(cells)
    mu = sum(c * s for c, s in zip(cells, scores, strict=True)) / n
    var = sum(c * (s - mu) ** 2 for c, s in zip(cells, scores, strict=True)) / n
    if exact:
        observed = [c / n for c in cells]
        if model == "logistic":
            h0 = _mle_mean(scores, observed, score_from_elo(elo0))
            h1 = _mle_mean(scores, observed, score_from_elo(elo1))
        else:
            t0, t1 = (sd_factor * e / _NELO_SCALE for e in (elo0, elo1))
            h0 = _mle_t_value(scores, observed, t0)
            h1 = _mle_t_value(scores, observed, t1)
        llr = n * sum(p * (math.log(q1) - math.log(q0))
                      for p, q0, q1 in zip(observed, h0, h1, strict=True))
        state = "H1 accepted" if llr >= upper else "H0 accepted" if llr <= lower else "continue"
        return SprtResult(llr, lower, upper, state)
    if model == "logistic":
        s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    else:
        sd = sd_factor * math.sqrt(var)
        s0, s1 = 0.5 + elo0 * sd / _NELO_SCALE, 0.5 + elo1 * sd / _NELO_SCALE
    llr = n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)
    state = "H1 accepted" if llr >= upper else "H0 accepted" if llr <= lower else "continue"
    return SprtResult(llr, lower, upper, state)


def _secular_root(shifted: Sequence[float], probs: Sequence[float]) -> float:
    """The x with sum p_i a_i / (1 + x a_i) = 0 (a_i of both signs): the left side falls
    monotonically on (-1/max a, -1/min a), so bisection finds it to machine precision."""
    low, high = -1.0 / max(shifted), -1.0 / min(shifted)

    def f(x: float) -> float:
        return sum(p * a / (1.0 + x * a) for a, p in zip(shifted, probs, strict=True))

    width = high - low
    low, high = low + 1e-12 * width, high - 1e-12 * width
    for _ in range(200):
        mid = (low + high) / 2.0
        if f(mid) > 0.0:
            low = mid
        else:
            high = mid
        if high - low < 1e-15 * max(1.0, abs(mid)):
            break
    return (low + high) / 2.0


def _mle_mean(scores: Sequence[float], observed: Sequence[float], s: float) -> list[float]:
    """Maximum-likelihood cell probabilities with mean score ``s`` given the observed
    frequencies: q_i = p_i / (1 + x (a_i - s)), x the secular root."""
    shifted = [a - s for a in scores]
    x = _secular_root(shifted, observed)
    return [p / (1.0 + x * a) for a, p in zip(shifted, observed, strict=True)]


def _mle_t_value(scores: Sequence[float], observed: Sequence[float], t: float,
                 ref: float = 0.5) -> list[float]:
    """Maximum-likelihood cell probabilities with t-value (mu - ref) / sigma = ``t``: a fixed
    point, each step a mean-constrained problem on scores moved by the current sigma."""
    q = [1.0 / len(scores)] * len(scores)
    for _ in range(100):
        mu = sum(p * a for a, p in zip(scores, q, strict=True))
        sigma = math.sqrt(sum(p * (a - mu) ** 2 for a, p in zip(scores, q, strict=True)))
        shifted = [a - ref - t * sigma * (1.0 + ((mu - a) / sigma) ** 2) / 2.0 for a in scores]
        x = _secular_root(shifted, observed)
        new = [p / (1.0 + x * a) for a, p in zip(shifted, observed, strict=True)]
        done = max(abs(u - v) for u, v in zip(new, q, strict=True)) < 1e-12
        q = new
        if done:
            break
    return q


def _beta_fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz; converges fast
    for x < (a + 1) / (a + b + 2))."""
    tiny = 1e-300
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


def _beta_cdf(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b) for a, b > 0."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(x, a, b) / a
    return 1.0 - front * _beta_fraction(1.0 - x, b, a) / b


def _beta_quantile(p: float, a: float, b: float) -> float:
    """The x in [0, 1] with I_x(a, b) = p, by bisection (I_x rises monotonically in x)."""
    low, high = 0.0, 1.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if _beta_cdf(mid, a, b) < p:
            low = mid
        else:
            high = mid
        if high - low < 1e-15:
            break
    return (low + high) / 2.0


def clopper_pearson_interval(successes: float, n: float, level: float) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a proportion: ``successes`` of ``n`` trials at a
    two-sided confidence ``level``.

    ``low`` is the p at which P(X >= successes) = (1 - level) / 2 for X ~ Binomial(n, p),
    ``high`` the p at which P(X <= successes) = (1 - level) / 2: the beta quantiles
    B((1 - level) / 2; x, n - x + 1) and B((1 + level) / 2; x + 1, n - x), with ``low`` = 0 at
    x = 0 and ``high`` = 1 at x = n. Its coverage is at least ``level`` for every p. Fractional
    ``successes`` or ``n`` (a draw as half a point, a rescaled match) use the same quantiles.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must lie in (0, 1), got {level}")
    if not (n > 0.0 and 0.0 <= successes <= n and math.isfinite(n)):
        raise ValueError(f"the exact interval needs 0 <= successes <= n and n > 0, got "
                         f"{successes} of {n}")
    tail = (1.0 - level) / 2.0
    low = 0.0 if successes == 0.0 else _beta_quantile(tail, successes, n - successes + 1.0)
    high = 1.0 if successes == n else _beta_quantile(1.0 - tail, successes + 1.0, n - successes)
    return low, high


def _moments(counts: Sequence[float], scores: Sequence[float]) -> tuple[float, float, float]:
    """Units, mean score and per-unit variance of (possibly fractional) outcome counts."""
    if len(counts) != len(scores):
        raise ValueError(f"need one count per score {list(scores)}, got {list(counts)}")
    if any(not math.isfinite(c) or c < 0 for c in counts):
        raise ValueError(f"counts must be finite and >= 0, got {list(counts)}")
    n = float(sum(counts))
    if n <= 0.0:
        raise ValueError("no games: every count is 0")
    mu = sum(c * s for c, s in zip(counts, scores, strict=True)) / n
    var = sum(c * (s - mu) ** 2 for c, s in zip(counts, scores, strict=True)) / n
    return n, mu, var


def likelihood_of_superiority(counts: Sequence[float], scores: Sequence[float]) -> float:
    """LOS in percent of (possibly fractional) counts, defined for every match.

    Games (scores (0, 1/2, 1)): cutechess's 1/2 + 1/2 erf((W - L) / sqrt(2 (W + L))), and 50 %
    when no game was decisive. Pairs: fastchess's normal approximation P(mu > 1/2), and 100 %,
    0 % or 50 % when every pair scored the same (above, below or at 1/2).
    """
    if tuple(scores) == _GAME_SCORES:
        losses, _, wins = counts
        if wins + losses == 0:
            return 50.0
        return 100.0 * (0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))
    n, mu, var = _moments(counts, scores)
    if var == 0.0:
        return 100.0 if mu > 0.5 else 0.0 if mu < 0.5 else 50.0
    return 100.0 * (1.0 + math.erf((mu - 0.5) / (math.sqrt(2.0) * math.sqrt(var / n)))) / 2.0


@dataclass(frozen=True)
class SprtOutlook:
    """Wald's approximations for an SPRT if the true value were ``elo`` (in the bounds' model):
    the chance it accepts H1 and the expected number of games until it stops."""

    elo: float
    pass_probability: float
    expected_games: float


def sprt_outlook(true_elo: float, *, elo0: float, elo1: float, alpha: float = 0.05,
                 beta: float = 0.05, variance: float, model: str = "normalized",
                 per: int = 1) -> SprtOutlook:
    """Pass probability and expected length of the SPRT of H0 ``elo0`` vs H1 ``elo1``.

    The LLR of one game (``per=1``) or pair (``per=2``, ``variance`` then the pair score's) is
    taken as (s1 - s0)(2 x - s0 - s1) / (2 var) with x the unit's score: drift
    d = (s1 - s0)(2 s - s0 - s1) / (2 var) at the true score s, variance v = (s1 - s0)^2 / var.
    With a = log(beta / (1 - alpha)), b = log((1 - beta) / alpha) and theta = 2 d / v, Wald's
    approximations are P(pass) = (1 - e^(-theta a)) / (e^(-theta b) - e^(-theta a)) and
    E[units] = (P b + (1 - P) a) / d (-a b / v when d = 0). At elo0 the pass probability is
    alpha, at elo1 it is 1 - beta. Scores: logistic s = 1 / (1 + 10^(-elo/400)); normalised
    s = 1/2 + elo sqrt(per var) / (800 / ln 10).
    """
    if not elo0 < elo1:
        raise ValueError(f"SPRT needs elo0 < elo1, got {elo0}, {elo1}")
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise ValueError(f"SPRT needs 0 < alpha, beta and alpha + beta < 1, got {alpha}, {beta}")
    if model not in ("normalized", "logistic"):
        raise ValueError(f"SPRT model must be 'normalized' or 'logistic', got {model!r}")
    if not variance > 0.0:
        raise ValueError(f"the SPRT outlook needs a positive score variance, got {variance}")
    if model == "logistic":
        s0, s1, s = (score_from_elo(e) for e in (elo0, elo1, true_elo))
    else:
        sd = math.sqrt(per * variance)
        s0, s1, s = (0.5 + e * sd / _NELO_SCALE for e in (elo0, elo1, true_elo))
    a = math.log(beta / (1.0 - alpha))
    b = math.log((1.0 - beta) / alpha)
    drift = (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * variance)
    spread = (s1 - s0) ** 2 / variance
    theta = 2.0 * drift / spread
    if theta == 0.0:
        p, units = -a / (b - a), -a * b / spread
    else:
        if theta > 0.0:  # both exponents negative: no overflow
            p = math.expm1(theta * a) / math.expm1(theta * (a - b))
        else:
            p = (math.exp(theta * b) - math.exp(theta * (b - a))) / -math.expm1(theta * (b - a))
        units = (p * b + (1.0 - p) * a) / drift
    return SprtOutlook(elo=true_elo, pass_probability=p, expected_games=units * per)


def games_for_margin(score: float, variance_per_game: float, margin: float, z: float) -> float:
    """Games needed for an interval of +/- ``margin`` Elo at ``score`` (normal approximation):
    N = (z sd dElo/ds / margin)^2 with dElo/ds = 400 / (ln 10 s (1 - s)) and sd the per-game
    score deviation (for pairs: sqrt(2 var_pair)). nan where it cannot be known (a score of 0
    or 1, no spread)."""
    if not margin > 0.0:
        raise ValueError(f"the margin must be > 0 Elo, got {margin}")
    if not 0.0 < score < 1.0 or not variance_per_game > 0.0:
        return math.nan
    slope = 400.0 / (math.log(10.0) * score * (1.0 - score))
    return (z * math.sqrt(variance_per_game) * slope / margin) ** 2


def pairs_from_games(results: Sequence[float]) -> tuple[int, int, int, int, int]:
    """Pentanomial counts (LL, LD, WL+DD, WD, WW) of consecutive game pairs scored 1/0.5/0."""
    if len(results) % 2:
        raise ValueError(f"game pairs need an even number of games, got {len(results)}")
    counts = [0, 0, 0, 0, 0]
    for g in results:
        if g not in _GAME_SCORES:
            raise ValueError(f"game scores must be 0, 0.5 or 1, got {g!r}")
    for first, second in zip(results[::2], results[1::2], strict=True):
        counts[round(2.0 * (first + second))] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


@dataclass(frozen=True)
class Rating:
    """One engine of a rating list: Elo, interval [low, high] and number of games played."""

    name: str
    elo: float
    low: float
    high: float
    games: int


_FloatArray = npt.NDArray[np.float64]

#: Ratings closer than this (in Elo) are a tie: equal results fitted equal up to the last bits
#: of floating point, which differ with the order the players were met and the BLAS.
TIE_ELO = 1e-6


def ranked(ratings: Sequence[Rating]) -> list[Rating]:
    """``ratings`` best first (``-inf`` after every finite rating, those the results cannot
    place, ``nan``, last), ties (:data:`TIE_ELO`) in name order: the list never depends on the
    order the players were met in, nor on rounding noise, so a table or figure of it is the same
    on every run."""
    def key(r: Rating) -> tuple[bool, float]:
        return (math.isnan(r.elo), 0.0 if math.isnan(r.elo) else -r.elo)

    def tied(a: Rating, b: Rating) -> bool:
        (nan_a, x), (nan_b, y) = key(a), key(b)
        return nan_a == nan_b and (x == y or abs(x - y) <= TIE_ELO)

    ordered = sorted(ratings, key=lambda r: (*key(r), r.name))
    out: list[Rating] = []
    group: list[Rating] = []
    for rating in ordered:
        if group and not tied(rating, group[-1]):
            out += sorted(group, key=lambda r: r.name)
            group = []
        group.append(rating)
    return out + sorted(group, key=lambda r: r.name)


def _closure(adjacency: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """Reflexive-transitive closure of a directed graph by repeated boolean squaring."""
    reach = adjacency | np.eye(len(adjacency), dtype=bool)
    while True:
        step = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
        if np.array_equal(step, reach):
            return reach
        reach = step


def _log_likelihood(theta: _FloatArray, points: _FloatArray, games: _FloatArray) -> float:
    """Bradley-Terry log-likelihood (natural-log units) with draws as half wins."""
    diff = theta[:, None] - theta[None, :]
    ll = -(points * np.logaddexp(0.0, -diff) + (games - points) * np.logaddexp(0.0, diff)).sum()
    return float(ll) / 2.0  # every game is counted once from each side


def _fit(points: _FloatArray, games: _FloatArray, ref: int) -> tuple[_FloatArray, _FloatArray]:
    """Newton's method (with step halving) for ratings with theta[ref] = 0, and their covariance."""
    m = len(points)
    free = np.array([i for i in range(m) if i != ref], dtype=np.int64)
    theta = np.zeros(m)
    for _ in range(200):
        diff = theta[:, None] - theta[None, :]
        p = 1.0 / (1.0 + np.exp(-diff))
        grad = (points - games * p).sum(axis=1)
        w = games * p * (1.0 - p)
        info = np.diag(w.sum(axis=1)) - w
        step = np.zeros(m)
        if len(free):
            step[free] = np.linalg.solve(info[np.ix_(free, free)], grad[free])
        base = _log_likelihood(theta, points, games)
        slack = 1e-12 * max(1.0, abs(base))
        t = 1.0
        while _log_likelihood(theta + t * step, points, games) < base - slack and t > 1e-6:
            t /= 2.0
        theta = theta + t * step
        if float(np.max(np.abs(t * step), initial=0.0)) < 1e-11:
            break
    else:
        raise RuntimeError("rating_list: Newton's method did not converge")
    cov = np.zeros((m, m))
    if len(free):
        cov[np.ix_(free, free)] = np.linalg.inv(info[np.ix_(free, free)])
    return theta, cov


def rating_list(results: Sequence[tuple[str, str, int, int, int]], *,
                anchor: str | None = None, level: float = 0.95) -> list[Rating]:
    """Maximum-likelihood logistic ratings of engines from (a, b, a_wins, draws, a_losses) rows.

    Draws count as half a win for each side (Bradley-Terry on the score), so for two engines the
    difference is exactly the pairwise Elo. The anchor (or, without one, the mean of the rated
    core) is 0. Intervals: rating -+ z sqrt(diag inverse Fisher information), conservative when
    draws are common; the anchor's own interval is [0, 0]. Engines that never gave up a point to
    the anchor's group (a perfect score) have no finite MLE: they get +inf (interval [nan, inf]),
    those that never took one get -inf ([-inf, nan]), those the results cannot place relative to
    it get nan. The core is the anchor's strongly connected group of the "scored a point against"
    graph (without an anchor, the largest such group). Sorted by Elo, best first, ties by name
    (:func:`ranked`).
    """
    names: list[str] = []
    for a, b, *_ in results:
        for name in (a, b):
            if name not in names:
                names.append(name)
    n = len(names)
    index = {name: i for i, name in enumerate(names)}
    points = np.zeros((n, n))
    games = np.zeros((n, n))
    for a, b, won, drawn, lost in results:
        if a == b:
            raise ValueError(f"an engine cannot play itself: {a!r}")
        _check_counts((won, drawn, lost))
        i, j = index[a], index[b]
        points[i, j] += won + drawn / 2.0
        points[j, i] += lost + drawn / 2.0
        games[i, j] += won + drawn + lost
        games[j, i] += won + drawn + lost
    if n == 0:
        return []
    if anchor is not None and anchor not in index:
        raise ValueError(f"anchor {anchor!r} played no game in the results")
    reach = _closure(points > 0)
    group = reach & reach.T  # group[i, j]: i and j are in the same strongly connected component
    if anchor is not None:
        ref = index[anchor]
    else:
        sizes = group.sum(axis=1)
        ref = int(np.argmax(sizes))  # first engine of the largest group
    core = np.flatnonzero(group[ref])
    theta, cov = _fit(points[np.ix_(core, core)], games[np.ix_(core, core)],
                      int(np.searchsorted(core, ref)))
    if anchor is None:
        center = np.eye(len(core)) - 1.0 / len(core)
        theta, cov = center @ theta, center @ cov @ center.T
    scale = 400.0 / math.log(10.0)
    z = confidence_z(level)
    elo = np.full(n, math.nan)
    low = np.full(n, math.nan)
    high = np.full(n, math.nan)
    elo[core] = theta * scale
    half = z * np.sqrt(np.clip(np.diag(cov), 0.0, None)) * scale
    low[core], high[core] = elo[core] - half, elo[core] + half
    for i in range(n):
        if group[ref, i]:
            continue
        if reach[i, ref] and not reach[ref, i]:
            elo[i], high[i] = math.inf, math.inf
        elif reach[ref, i] and not reach[i, ref]:
            elo[i], low[i] = -math.inf, -math.inf
    played = games.sum(axis=1)
    ratings = [Rating(names[i], float(elo[i]) + 0.0, float(low[i]) + 0.0, float(high[i]) + 0.0,
                      round(float(played[i]))) for i in range(n)]
    return ranked(ratings)


def report_lines(*, wins: int | None = None, losses: int | None = None,
                 draws: int | None = None, pentanomial_counts: Sequence[int] | None = None,
                 sprt_bounds: tuple[float, float] | None = None, alpha: float = 0.05,
                 beta: float = 0.05, model: str = "normalized", z: float = Z_CUTECHESS
                 ) -> list[str]:
    """cutechess's Elo line (then nElo, pentanomial and SPRT lines) for a match result, as
    ``chessmoe elo`` prints them. Bad counts or bounds raise ``ValueError``."""
    has_wdl = (wins, losses, draws) != (None, None, None)
    if not has_wdl and pentanomial_counts is None:
        raise ValueError("give wins/losses/draws and/or pentanomial counts")
    wdl = (wins or 0, losses or 0, draws or 0)
    lines = []
    if has_wdl:
        lines.append(trinomial(*wdl, z=z).line())
        nelo, nmargin = normalized_elo_trinomial(*wdl)
        lines.append(f"nElo: {nelo:.2f} +/- {nmargin:.2f}")
    if pentanomial_counts is not None:
        penta = pentanomial(pentanomial_counts, z=z)
        pnelo, pmargin = normalized_elo_pentanomial(pentanomial_counts)
        lines.append(f"Ptnml(0-2): {list(pentanomial_counts)}, Elo: {_fmt1(penta.elo)} +/- "
                     f"{_fmt1(penta.margin)}, nElo: {pnelo:.2f} +/- {pmargin:.2f}")
    if sprt_bounds is not None:
        elo0, elo1 = sprt_bounds
        if pentanomial_counts is not None:
            result = sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
                          pentanomial=pentanomial_counts, model=model)
        else:
            result = sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, wins=wdl[0],
                          losses=wdl[1], draws=wdl[2], model=model)
        lines.append(result.line())
    return lines
