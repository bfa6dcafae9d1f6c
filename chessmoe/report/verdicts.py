"""What the committed evidence decides: every claim of the paper we test, with our estimate,
its 95 % interval and a verdict computed from the results (never typed by hand).

Verdicts: **supports** (the estimate lies on the paper's side of zero and the test of zero
rejects after Holm's correction; where the paper gives a size, it lies inside our interval),
**sign agrees, size differs** (the same, with the paper's size outside our interval),
**contradicts** (it rejects, on the other side), **undecided at this scale** (it does not
reject). Every claim decided by games is one test in one family: its
two-sided p-value (a z-test on pair scores, the same standard error as the interval) is
adjusted by Holm's step-down procedure over the whole table, so the table's family-wise error
is at most 5 %, not 5 % per row. Intervals are shown unadjusted (95 %); a row whose interval
excludes zero can still be undecided after the correction. Where the paper gives a size, the
note says whether it lies inside our interval. Table 1 rows are decided by training seeds: they
compare seed ranges (min to max), which are not confidence intervals, and are not in the
family.

"Points" are score percentage points: 100 x the difference of two mean pair scores, each
against the arm's own opponent (near a 50 % score one point is about 7 Elo).

Estimates from games use game *pairs* (one opening, both colours) as the unit -- the pentanomial
model -- so an opening's two games are never counted as independent; arms compared with each
other were played on the same openings (one opening group), so their difference is taken pair
by pair over the shared openings (a paired design).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from chessmoe._io.errors import KitError
from chessmoe.elo import elo_from_score, pair_standard_error
from chessmoe.nets.names import (
    CONVERGED_PAIRS,
    CONVERGED_SUFFIX,
    MATCHED,
    MATCHED_PAIRS,
    REGULAR_LONG,
    REGULAR_WIDE,
    SEPARATED_LONG,
    SETTINGS,
    SETTINGS_OPPONENTS,
    SETTINGS_PAIRS,
    converged_grid,
    converged_match,
    matched_match,
    seeds_long_grid,
    settings_match,
)
from chessmoe.paper import BATCH_SIZES, TABLE2_ELO
from chessmoe.records import (
    GameRecord,
    SpecError,
    TournamentPlan,
    TournamentSummary,
    complete_pairs,
    draw_rules_of,
    last_logged,
    load_records,
    mean_nodes,
    pentanomial_counts,
)

__all__ = [
    "SIGN_AGREES",
    "SIZE_DIFFERS",
    "ArmEstimate",
    "BundleLoss",
    "Claim",
    "Convergence",
    "PairedDifference",
    "SeedLevelEstimate",
    "arm_estimate",
    "baseline_arms",
    "bundle_losses",
    "claims",
    "clustered_mean",
    "convergence",
    "convergence_text",
    "draw_rules",
    "elo_interval",
    "holm",
    "is_regular_seed",
    "load_arms",
    "logged_iterations",
    "pair_scores",
    "paired_difference",
    "planned_pairs",
    "pooled_estimate",
    "primary_tournament",
    "read_manifest",
    "rules_named",
    "seed_arms",
    "seed_level_estimate",
    "seeds_long_arms",
    "settings_arms",
    "t975",
    "t975_at",
    "table1_seed_band",
    "two_sided_p",
]

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


@dataclass(frozen=True)
class Claim:
    """One claim, our number and the verdict."""

    topic: str
    paper: str  # what the paper says, with its number
    ours: str  # our estimate with its interval and sample
    verdict: str  # "supports", SIZE_DIFFERS, "contradicts" or "undecided at this scale"
    note: str = ""
    kind: str = "paper claim"  # or "post-hoc control" or "exploratory (no paper claim)"
    p: float = math.nan  # unadjusted two-sided p-value (nan: decided by seeds, not games)
    p_holm: float = math.nan  # Holm-adjusted over every game-decided row of the table


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


def planned_games(tournament: str | os.PathLike[str]) -> int | None:
    """Games the tournament plans (two per pair of every match of :func:`planned_pairs`);
    ``None`` without a readable ``spec.json``."""
    plan = _plan(tournament)
    return None if plan is None else 2 * sum(planned_pairs(Path(tournament), 0).values())


def _plan(tournament: str | os.PathLike[str]) -> TournamentPlan | None:
    """The tournament's ``spec.json``; ``None`` without a readable one (a tournament not
    begun, or a directory that is none)."""
    try:
        return TournamentPlan.read(Path(tournament) / "spec.json")
    except SpecError:
        return None


def load_arms(tournament: str | os.PathLike[str]) -> dict[str, list[GameRecord]]:
    """Every match's game records of a tournament directory (``<match>/games-*.jsonl``)."""
    arms: dict[str, list[GameRecord]] = {}
    for match in sorted(p for p in Path(tournament).iterdir() if p.is_dir()):
        records = load_records(sorted(match.glob("games-*.jsonl")))
        if records:
            arms[match.name] = records
    return arms


#: Match kinds (``labels.kind`` in a tournament's ``spec.json``) that are not the powered
#: design's arms against the regular network: the replicated tournament's seed grid and its
#: head-to-head games against regular-long.
EXTRA_KINDS = ("seed", "head-to-head")


def baseline_arms(tournament: str | os.PathLike[str]) -> dict[str, list[GameRecord]]:
    """The powered design's arms of a tournament (every arm against the regular network,
    one opening group): its matches less those whose ``spec.json`` kind is in
    :data:`EXTRA_KINDS`. The powered and replicated tournaments give the same arm names."""
    if not Path(tournament).is_dir():
        return {}
    arms = load_arms(tournament)
    plan = _plan(tournament)
    extra = ({m.name for m in plan.matches if m.kind in EXTRA_KINDS}
             if plan is not None else set())
    return {name: records for name, records in arms.items() if name not in extra}


def _fmt(x: float) -> str:
    return "+inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:+.0f}"


def elo_interval(e: ArmEstimate) -> str:
    """``+67 [+41, +93]``: the arm's Elo and its 95 % interval ('' without an estimate)."""
    return "" if math.isnan(e.elo) else f"{_fmt(e.elo)} [{_fmt(e.low)}, {_fmt(e.high)}]"


def _arm_text(e: ArmEstimate) -> str:
    return (f"{_fmt(e.elo)} Elo [{_fmt(e.low)}, {_fmt(e.high)}] "
            f"({2 * e.pairs} games, {e.openings} openings)")


def is_regular_seed(bundle: str) -> bool:
    """Whether a bundle is the regular network under one training seed (the profile's own
    ``regular`` or a ``regular-seed<N>`` control; not ``regular-long``)."""
    return bundle == "regular" or bundle.startswith("regular-seed")


MIXTURES = ("separated", SEPARATED_LONG, "staged", "weighted-a4", "weighted-a10")


def _loss(path: Path, side: str, test_set: str) -> float | None:
    if not path.exists():
        return None
    return float(json.loads(path.read_text())["results"][side][test_set]["loss"])


@dataclass(frozen=True)
class BundleLoss:
    """One Table 1 entry: a loss on a test set, its standard error (``None`` where the
    evaluation predates ``loss_se``), the positions it was measured on, and whether it is
    a mixture's (each position scored by its own phase's expert) or a single network's."""

    loss: float
    se: float | None
    n: int
    mixture: bool


def bundle_losses(bundle: str | os.PathLike[str]) -> dict[str, BundleLoss] | None:
    """Table 1 of one bundle by test set: its mixture's losses where it has one, else its
    single network's; ``None`` while the bundle has no ``evaluation.json``."""
    path = Path(bundle) / "evaluation.json"
    if not path.exists():
        return None
    results = json.loads(path.read_text())["results"]
    mixture = "mixture" in results
    if not mixture and "baseline" not in results:
        raise ValueError(f"{path}: neither a mixture nor a single network was evaluated "
                         f"(only {', '.join(sorted(results))})")
    side = results["mixture" if mixture else "baseline"]
    return {name: BundleLoss(float(r["loss"]),
                           float(r["loss_se"]) if "loss_se" in r else None,
                           int(r["n"]), mixture)
            for name, r in side.items()}


def table1_seed_band(experts: str | os.PathLike[str], test_set: str = "no-phases"
                     ) -> tuple[list[float], dict[str, list[float]]]:
    """Table 1 on ``test_set``: the regular network's loss under every trained seed, and each
    mixture's loss under every seed it was trained with (the bundle itself, then
    ``<mixture>-seed<N>`` controls of :mod:`chessmoe.nets.controls`)."""
    root = Path(experts)
    seeds: list[float] = []
    if not root.is_dir():
        return seeds, {}
    for bundle in sorted(p for p in root.iterdir() if is_regular_seed(p.name)):
        loss = _loss(bundle / "evaluation.json", "baseline", test_set)
        if loss is not None:
            seeds.append(loss)
    mixtures: dict[str, list[float]] = {}
    for name in MIXTURES:
        losses = [loss for path in (root / name, *sorted(root.glob(f"{name}-seed*")))
                  if (loss := _loss(path / "evaluation.json", "mixture", test_set)) is not None]
        if losses:
            mixtures[name] = losses
    return seeds, mixtures


PAPER_TABLE2 = {"separated": 122.20, "staged": 121.11, "weighted-a4": 23.18,
                "weighted-a10": 55.84}
POST_HOC = "post-hoc control"
EXPLORATORY = "exploratory (no paper claim)"
UNDECIDED = "undecided at this scale"
#: The verdict of a paper claim whose sign the test decides on the paper's side while the
#: paper's own size lies outside our interval: the direction agrees, the size does not.
SIZE_DIFFERS = "sign agrees, size differs"
#: Verdicts whose sign agrees with the claim (with or without its size).
SIGN_AGREES: tuple[str, ...] = ("supports", SIZE_DIFFERS)


@dataclass(frozen=True)
class _Test:
    """A claim decided by games, before the family's correction: its decision rule is
    ``paper_sign`` (+1/-1: the paper's direction; 0: "no gain"; None: no paper direction)."""

    claim: Claim
    effect: float
    paper_sign: int | None
    high_elo: float = math.nan  # the "no gain" rule's upper bound
    in_progress: str = ""  # set: its tournament is still being played (not yet a test)
    cited: str = ""  # what other rows' notes quote of it once it is complete
    size_inside: bool | None = None  # the paper's size inside our interval (None: no size)


def _decide(test: _Test, p_holm: float, alpha: float) -> str:
    rejected = not math.isnan(p_holm) and p_holm < alpha
    sign = 1 if test.effect > 0 else -1
    if test.paper_sign is None:
        return (f"differs ({'higher' if sign > 0 else 'lower'})" if rejected else UNDECIDED)
    if test.paper_sign == 0:  # the paper: no gain (or slightly worse)
        if rejected:
            return "contradicts" if sign > 0 else "supports"
        return "supports (no gain above +50 Elo)" if test.high_elo < 50 else UNDECIDED
    if not rejected:
        return UNDECIDED
    if sign != test.paper_sign:
        return "contradicts"
    return SIZE_DIFFERS if test.size_inside is False else "supports"


def _size_note(paper: float, e: ArmEstimate, label: str = "") -> tuple[str, bool]:
    """Whether the paper's size lies inside our interval, in words for the row's note."""
    inside = e.low <= paper <= e.high
    return (f"the paper's {label}+{paper:.0f} is {'inside' if inside else 'outside'} our "
            "interval", inside)


def _arm_claim(topic: str, paper: str, e: ArmEstimate, paper_sign: int | None, note: str = "",
               kind: str = "paper claim") -> _Test:
    return _Test(Claim(topic, paper, _arm_text(e), "", note, kind, e.p),
                 e.score - 0.5, paper_sign, e.high)


def _diff_claim(topic: str, paper: str, label: str, d: PairedDifference,
                paper_sign: int | None, note: str = "", kind: str = "paper claim") -> _Test:
    ours = (f"{label}: {d.diff:+.1f} points [{d.low:+.1f}, {d.high:+.1f}] on {d.openings} "
            "shared openings")
    return _Test(Claim(topic, paper, ours, "", note, kind, d.p), d.diff, paper_sign)


def _complete(tournament: Path) -> bool:
    planned = planned_games(tournament)
    return (planned is not None and tournament.exists()
            and sum(len(r) for r in load_arms(tournament).values()) >= planned)


def draw_rules(tournament: str | os.PathLike[str]) -> str:
    """The draw rules a tournament was played under, from its ``spec.json`` (a spec written
    before the field existed was played under the claim reading); '' without a readable
    spec."""
    plan = _plan(tournament)
    return "" if plan is None else plan.draw_rules


def rules_named(adjudication: object) -> str | None:
    """The draw rules an adjudication record (a spec's or a summary's ``adjudication``)
    names: one written before the field existed means the claim reading; ``None`` when
    there is no record at all."""
    if not isinstance(adjudication, dict):
        return None
    return draw_rules_of(adjudication)


def primary_tournament(tournament: str | os.PathLike[str],
                       replicated: str | os.PathLike[str] | None) -> Path:
    """The tournament the main arms are read from: the replicated one (cutechess draw rules)
    once every planned game of it is played, else ``tournament``."""
    if replicated is not None and _complete(Path(replicated)):
        return Path(replicated)
    return Path(tournament)


def seed_arms(arms: dict[str, list[GameRecord]], method: str, setting: str = "b8-n100"
              ) -> dict[tuple[str, str], list[GameRecord]]:
    """``(method bundle, regular bundle) -> records`` of a replicated tournament's seed
    grid: the committed pair is the method's own arm, the others ``<a>-vs-<b>-<setting>``."""
    from chessmoe.nets.names import CONTROL_SEEDS, method_seed_bundle, seed_bundle

    out: dict[tuple[str, str], list[GameRecord]] = {}
    for first in (method, *(method_seed_bundle(method, s) for s in CONTROL_SEEDS)):
        for second in ("regular", *(seed_bundle(s) for s in CONTROL_SEEDS)):
            name = (f"{method}-{setting}" if (first, second) == (method, "regular")
                    else f"{first}-vs-{second}-{setting}")
            if arms.get(name):
                out[(first, second)] = arms[name]
    return out


def seeds_long_arms(long_arms: dict[str, list[GameRecord]],
                    replicated_arms: dict[str, list[GameRecord]], setting: str = "b8-n100"
                    ) -> dict[tuple[str, str], list[GameRecord]]:
    """``(staged bundle, regular-long bundle) -> records`` of the equal-compute seed grid:
    the ``seeds-long`` tournament's pairings ``<a>-vs-<b>-<setting>`` and, for both seed 9,
    the replicated tournament's head-to-head arm of the same name (the same openings)."""
    out: dict[tuple[str, str], list[GameRecord]] = {}
    for first, second in seeds_long_grid():
        name = f"{first}-vs-{second}-{setting}"
        source = replicated_arms if (first, second) == ("staged", REGULAR_LONG) else long_arms
        if source.get(name):
            out[(first, second)] = source[name]
    return out


def settings_arms(settings: str | os.PathLike[str]
                  ) -> dict[tuple[str, int, int], list[GameRecord]]:
    """``(opponent, batch, nodes) -> records`` of a settings tournament directory (every
    match of :data:`~chessmoe.nets.names.SETTINGS` x opponents that has a game)."""
    arms = load_arms(settings) if Path(settings).is_dir() else {}
    return {(opponent, batch, nodes): arms[settings_match(opponent, batch, nodes)]
            for batch, nodes in SETTINGS for opponent in SETTINGS_OPPONENTS
            if arms.get(settings_match(opponent, batch, nodes))}


def planned_pairs(tournament: Path, default: int) -> dict[str, int]:
    """Pairs per match name that ``tournament`` plans: every match of its ``spec.json``, then
    every match its ``summary.json`` lists that the spec does not list yet (a design whose
    matches are registered one at a time, as their networks are trained: ``converged``),
    at half the summary's planned games, or ``default`` pairs where that is no even count.
    Empty without a readable spec (a tournament not begun)."""
    plan = _plan(tournament)
    if plan is None:
        return {}
    pairs = {m.name: m.pairs for m in plan.matches}
    try:
        summary = TournamentSummary.read(tournament)
    except (OSError, KitError):
        return pairs  # no summary yet (or none readable): the spec is the whole plan
    for match in summary.matches:
        if match.name not in pairs:
            even = match.planned_games > 0 and match.planned_games % 2 == 0
            pairs[match.name] = match.planned_games // 2 if even else default
    return pairs


def _seed_note(grid: Mapping[tuple[str, str], Sequence[GameRecord]], method: str,
               opponent: str) -> str:
    """What a seed grid's pairings say one by one, and its seeds-random estimate."""
    each = {k: arm_estimate(f"{k[0]} vs {k[1]}", v) for k, v in grid.items()}
    spread = [e.elo for e in each.values() if math.isfinite(e.elo)]
    firsts = len({k[0] for k in grid})
    seconds = len({k[1] for k in grid})
    above = sum(e.elo > 0 for e in each.values())
    sure = sum(e.low > 0 for e in each.values())
    below = sum(e.high < 0 for e in each.values())
    note = (f"{len(grid)} seed pairings ({firsts} {method} x {seconds} {opponent} seeds); "
            f"their Elo ranges {_fmt(min(spread))} to {_fmt(max(spread))}; {above} of "
            f"{len(grid)} above zero, {sure} with their own interval above zero"
            + (f" and {below} with their own interval below zero" if below else "") + "; the "
            "pooled interval treats these seeds as fixed (openings are its clusters), "
            "so it does not cover other seeds" if spread
            else f"{len(grid)} seed pairings")
    level = seed_level_estimate(method, grid)
    if level is not None:
        note += (f"; with the seeds of both sides random (two-way random effects, "
                 f"{level.df:.1f} df): {elo_interval(level.estimate)}")
    return note


def regular_seed_spread(replicated_arms: dict[str, list[GameRecord]],
                        setting: str = "b8-n100") -> tuple[float, str] | None:
    """How much the regular network's training seed alone moves a mixture's score: over the
    replicated seed grid, the largest range (max - min, in score points a pair) of one
    mixture bundle's mean pair score across the regular seeds it played, and that bundle's
    name; ``None`` without two regular seeds played by one bundle."""
    best: tuple[float, str] | None = None
    for method in ("staged", "weighted-a10"):
        grid = seed_arms(replicated_arms, method, setting)
        for first in {a for a, _ in grid}:
            scores = [arm_estimate(b, r).score for (a, b), r in grid.items() if a == first]
            scores = [x for x in scores if not math.isnan(x)]
            if len(scores) >= 2:
                width = 100 * (max(scores) - min(scores))
                if best is None or width > best[0]:
                    best = (width, first)
    return best


def _regular_long_seeds_note(spread: tuple[float, str] | None, grid_state: str) -> str:
    """What a row resting on the one-seed ``regular-long`` says about seeds."""
    text = "regular-long is one training seed (seed 9)"
    if spread is not None:
        text += (f"; the regular network's seed alone moves one mixture's score by up to "
                 f"{spread[0]:.1f} points a pair in the seed grid ({spread[1]})")
    return text + f"; regular-long under three seeds: {grid_state}"


def _steps_of(bundle: Path) -> list[int]:
    path = bundle / "manifest.json"
    if not path.is_file():
        return []
    experts = json.loads(path.read_text()).get("experts", {})
    return [int(e["iterations"]) for e in experts.values() if "iterations" in e]


def _separated_budget(experts: Path) -> str:
    """The separated experts' training steps against the regular network's, from the
    bundles' manifests ('' where either is missing)."""
    separated, regular = _steps_of(experts / "separated"), _steps_of(experts / "regular")
    if not separated or len(regular) != 1:
        return ""
    return (f"the separated experts are under-trained here: {min(separated):,}-"
            f"{max(separated):,} steps each against the regular network's {regular[0]:,} "
            "(each trains on its phase's third of the data at the same epoch budget; the "
            "separated-long control gives each the regular network's steps)")


NOT_PLAYED = "not played yet (registered before its first game)"


def _settings_tests(settings: Path, long_seeds: str) -> list[_Test]:
    """The settings design's rows, registered before its first game: for every setting of
    :data:`~chessmoe.nets.names.SETTINGS`, staged against the regular network (the
    paper's claim, its Table 2 mean at that batch size beside ours) and against
    regular-long (equal training compute). A row is a test once its own match has played
    its planned games (each match's size is fixed by the design, so no row is decided while
    its sample grows); before that it is shown as not played or in progress."""
    arms = settings_arms(settings)
    planned = planned_pairs(settings, SETTINGS_PAIRS)
    tests = []
    for batch, nodes in SETTINGS:
        for opponent in SETTINGS_OPPONENTS:
            name = settings_match(opponent, batch, nodes)
            records = arms.get((opponent, batch, nodes), [])
            games = 2 * planned.get(name, SETTINGS_PAIRS)
            e = arm_estimate(name, records)
            if opponent == "regular":
                paper = TABLE2_ELO["staged"][BATCH_SIZES.index(batch)]
                claim = f"staged beats regular at batch {batch}, {nodes} nodes (paper: " \
                        f"+{paper:.0f} Elo, Table 2's mean over batch {batch}'s 11 limits)"
                # compared with the paper only once complete: an interim interval is no
                # reading (a match is read at its fixed size)
                size, inside = _size_note(paper, e, f"batch-{batch} mean ")
                complete = not math.isnan(e.elo) and len(records) >= games
                test = replace(_arm_claim("settings: MoE vs regular", claim, e, +1,
                                          size if complete else ""),
                               size_inside=inside if complete else None)
            else:
                claim = (f"staged beats regular-long at batch {batch}, {nodes} nodes (equal "
                         "total training; the paper has no such control)")
                test = _arm_claim("settings: equal compute, head to head", claim, e, +1,
                                  long_seeds, POST_HOC)
            tests.append(_registered(test, records, games))
    return tests


def _registered(test: _Test, records: Sequence[GameRecord], games: int) -> _Test:
    """A row of a design registered before its first game: a test once its own match has
    played its ``games`` planned games, before that *not played yet* or *in progress* (its
    estimate shown, no p, not in the Holm family)."""
    if len(pair_scores(records)) < 2:
        test = replace(test, claim=replace(test.claim, ours="no complete game pair yet"))
    state = (NOT_PLAYED if not records else "" if len(records) >= games else
             f"in progress: {len(records):,} of {games:,} planned games of this match")
    return replace(test, in_progress=state)


def _nodes_note(records: Sequence[GameRecord], first: str, second: str) -> str:
    """The mean nodes a move each side searched in a match ('' before any game)."""
    a, b = mean_nodes(records)
    if a is None or b is None:
        return ""
    return f"nodes a move (mean over the match's searches): {first} {a:,.0f}, {second} {b:,.0f}"


def _matched_tests(matched: Path, long_seeds: str) -> list[_Test]:
    """The parameter-matched design's rows (:data:`~chessmoe.nets.names.MATCHED`), registered
    before its first game: staged against ``regular-wide`` (one network with the mixture's
    parameters) at equal nodes and at equal move time, and ``regular-wide`` against
    ``regular-long`` (the same steps, three times the parameters). Each is a test once its
    own match has played its planned games; the notes give each side's mean nodes a move
    from the records (at equal time the wide network searches fewer)."""
    arms = load_arms(matched) if matched.is_dir() else {}
    planned = planned_pairs(matched, MATCHED_PAIRS)
    tests = []
    for first, second, batch, nodes, movetime in MATCHED:
        name = matched_match(first, second, batch, nodes, movetime)
        records = arms.get(name, [])
        e = arm_estimate(name, records)
        limit = f"{nodes} nodes" if nodes else f"{movetime} ms a move"
        if second == REGULAR_WIDE:
            claim = (f"staged beats regular-wide (one network with the mixture's parameters, "
                     f"regular-long's steps) at {'equal nodes' if nodes else 'equal move time'}"
                     f", batch {batch}, {limit} (the paper has no such control)")
            note = ("regular-wide is slower per node: at equal nodes it spends more time a "
                    "move" if nodes else "at equal time each side searches the nodes its "
                    "speed allows (regular-wide is slower per node)")
        else:
            claim = (f"regular-wide beats regular-long at batch {batch}, {limit} (the same "
                     "steps and schedule, three times the parameters: the width alone; the "
                     "paper has no such control)")
            note = long_seeds
        nodes_note = _nodes_note(records, first, second)
        test = _arm_claim("parameter-matched network", claim, e, +1,
                          "; ".join(n for n in (nodes_note, note) if n), POST_HOC)
        tests.append(_registered(test, records, 2 * planned.get(name, MATCHED_PAIRS)))
    return tests


@dataclass(frozen=True)
class Convergence:
    """How one run (an expert, or one stage of a staged expert) trained until convergence
    ended, as its bundle's manifest records it: the step it stopped at, its best step, the
    epochs of its own training data and why it stopped (``patience`` or ``cap``)."""

    expert: str
    stage: str | None  # a staged expert's stage (its training data), else None
    stopped_at: int
    best_iteration: int | None
    epochs: float
    reason: str


def convergence(manifest: Mapping[str, Any]) -> list[Convergence]:
    """Every converged run of a bundle (expert by expert, stage by stage) from its manifest
    (``experts.<name>.convergence``; none for a bundle trained for a fixed length)."""
    return [Convergence(name, record.get("train"), int(record["stopped_at"]),
                        (None if record.get("best_iteration") is None
                         else int(record["best_iteration"])),
                        float(record["epochs"]), str(record["reason"]))
            for name, entry in manifest.get("experts", {}).items()
            for record in entry.get("convergence", [])]


def read_manifest(bundle: str | os.PathLike[str]) -> dict[str, Any] | None:
    """A bundle's ``manifest.json``; ``None`` while it has none (not trained yet)."""
    path = Path(bundle) / "manifest.json"
    return json.loads(path.read_text()) if path.is_file() else None


def logged_iterations(bundle: str | os.PathLike[str]) -> dict[str, int]:
    """The last iteration each expert of an unfinished bundle logged, by expert: its own
    ``metrics.jsonl`` (``bundle/<expert>/``), or, for a staged expert that has not reached
    its final run, its latest stage's (``<expert> <stage>``: ``phase1 stage1-opening``);
    empty where no expert has logged one."""
    done: dict[str, int] = {}
    for expert in sorted(p for p in Path(bundle).iterdir() if p.is_dir()) \
            if Path(bundle).is_dir() else ():
        step = last_logged(expert / "metrics.jsonl")
        if step is not None:
            done[expert.name] = step.iteration
            continue
        for stage in sorted((expert / "stages").glob("*/metrics.jsonl"), reverse=True):
            step = last_logged(stage)
            if step is not None:  # the latest stage (they are numbered) that logged
                done[f"{expert.name} {stage.parent.name}"] = step.iteration
                break
    return done


def convergence_text(name: str, manifest: Mapping[str, Any] | None,
                     bundle: str | os.PathLike[str] | None = None) -> str:
    """How long the bundle ``name`` trained until convergence, from its manifest, in words:
    ``regular-converged: 4,300 steps (4.18 epochs), best at 3,100, stopped by patience``; for
    a mixture each expert's steps summed over its stages (the epochs and best steps stage by
    stage). Without a manifest: ``training, not finished`` with the iteration each expert
    logged in ``bundle`` (its directory, where given), else ``not trained yet``."""
    if manifest is None:
        logged = logged_iterations(bundle) if bundle is not None else {}
        if logged:
            done = {e for e in logged
                    if bundle is not None and (Path(bundle) / e / "summary.json").is_file()}
            finished = ", ".join(f"{e} finished at {logged[e]:,} steps" for e in logged
                                 if e in done)
            where = ", ".join(("" if expert == "baseline" else f"{expert} ") + f"{it:,}"
                              for expert, it in logged.items() if expert not in done)
            said = "; ".join(filter(None, (finished, where and f"logged to iteration {where}")))
            return f"{name}: training, not finished ({said})"
        return f"{name}: not trained yet"
    runs = convergence(manifest)
    if not runs:
        return f"{name}: its manifest records no convergence"
    parts = []
    for expert in dict.fromkeys(r.expert for r in runs):
        mine = [r for r in runs if r.expert == expert]
        epochs = " + ".join(f"{r.epochs:g}" for r in mine)
        best = ", ".join("?" if r.best_iteration is None else f"{r.best_iteration:,}"
                         for r in mine)
        reasons = ", ".join(dict.fromkeys(r.reason for r in mine))
        parts.append(("" if expert == "baseline" else f"{expert} ")
                     + f"{sum(r.stopped_at for r in mine):,} steps ({epochs} epochs"
                     + (f" over {len(mine)} stages" if len(mine) > 1 else "")
                     + f"), best at {best}, stopped by {reasons}")
    return f"{name}: " + "; ".join(parts)


def _converged_tests(converged: Path, experts: Path) -> list[_Test]:
    """The converged design's rows (:func:`~chessmoe.nets.names.converged_grid`), registered
    before its first game: each converged mixture against the converged regular network
    (the paper's claim, tested where both are trained until their validation loss stops
    improving) and the converged regular network against the profile's regular network.
    Each is a test once its own match has played its planned games; the notes say how long
    each network trained (its manifest)."""
    arms = load_arms(converged) if converged.is_dir() else {}
    planned = planned_pairs(converged, CONVERGED_PAIRS)
    tests = []
    for first, second in converged_grid():
        name = converged_match(first, second)
        records = arms.get(name, [])
        e = arm_estimate(name, records)
        if second == "regular":
            claim = (f"{first} beats regular (the regular network trained until its "
                     "validation loss stopped improving, against the profile's fixed "
                     "length; the paper has no such control)")
        else:
            method = first.removesuffix(CONVERGED_SUFFIX)
            claim = (f"{method} beats regular when both are trained until their validation "
                     f"loss stops improving ({first} vs {second}; the paper: "
                     f"+{PAPER_TABLE2[method]:.0f} Elo at fixed epochs, Table 2)")
        note = "; ".join(convergence_text(b, read_manifest(experts / b), experts / b)
                         for b in (first, second) if b.endswith(CONVERGED_SUFFIX))
        test = _arm_claim("trained to convergence", claim, e, +1, note, POST_HOC)
        tests.append(_registered(test, records, 2 * planned.get(name, CONVERGED_PAIRS)))
    return tests


def _seeds_long_test(seeds_long: Path, replicated_arms: dict[str, list[GameRecord]],
                     setting: str) -> _Test:
    """The equal-compute seed grid's row: staged under three seeds against regular-long
    under three, pooled over the pairings (these seeds), with the seeds-random estimate in
    the note. A test once every pairing has played its planned games (the ninth is the
    replicated tournament's head-to-head arm)."""
    arms = load_arms(seeds_long) if seeds_long.is_dir() else {}
    grid = seeds_long_arms(arms, replicated_arms, setting)
    planned = planned_pairs(seeds_long, 100)
    claim = ("staged beats regular-long over the training seeds played of both (pooled: "
             "these seeds; equal total training; the paper has no such control)")
    pooled = (pooled_estimate("staged", list(grid.values())) if len(grid) >= 2
              else ArmEstimate("staged", 0, 0, math.nan, math.nan, math.nan, math.nan))
    test = _arm_claim("equal training compute, across seeds", claim, pooled, +1,
                      _seed_note(grid, "staged", "regular-long") if len(grid) >= 2 else "",
                      POST_HOC)
    if len(grid) < 2:
        test = replace(test, claim=replace(test.claim, ours="fewer than two seed pairings "
                                           "played"))
    cells = [f"{a}-vs-{b}-{setting}" for a, b in seeds_long_grid()[1:]]
    played = sum(len(arms.get(c, [])) for c in cells)
    wanted = sum(2 * planned.get(c, 100) for c in cells)
    done = all(len(arms.get(c, [])) >= 2 * planned.get(c, 100) for c in cells)
    state = ("" if done and len(grid) == len(seeds_long_grid()) else
             NOT_PLAYED if not played else
             f"in progress: {played:,} of {wanted:,} planned games of the seeds-long "
             "tournament")
    level = seed_level_estimate("staged", grid) if not state else None
    cited = (f"staged {elo_interval(pooled)} Elo against it pooled over {len(grid)} seed "
             f"pairings (these seeds), {elo_interval(level.estimate)} with both sides' seeds "
             "random" if level is not None else "")
    return replace(test, in_progress=state, cited=cited)


def claims(tournament: str | os.PathLike[str], experts: str | os.PathLike[str],
           setting: str = "b8-n100", replicated: str | os.PathLike[str] | None = None,
           alpha: float = 0.05, settings: str | os.PathLike[str] | None = None,
           seeds_long: str | os.PathLike[str] | None = None,
           matched: str | os.PathLike[str] | None = None,
           converged: str | os.PathLike[str] | None = None) -> list[Claim]:
    """Every claim the committed tournaments and the training controls can speak to, the
    game-decided ones corrected together by Holm's procedure (family-wise ``alpha``).

    The main arms come from :func:`primary_tournament`; the seed grid and the head-to-head
    equal-compute arms from ``replicated`` (whatever it has played so far). With
    ``settings`` (a settings tournament directory, played or not) the settings design's
    rows are in the table from before its first game (:func:`_settings_tests`); with
    ``seeds_long`` the equal-compute seed grid's row (:func:`_seeds_long_test`); with
    ``matched`` the parameter-matched design's rows (:func:`_matched_tests`) and with
    ``converged`` the converged design's (:func:`_converged_tests`), likewise registered."""
    primary = primary_tournament(tournament, replicated)
    arms = load_arms(primary) if primary.exists() else {}
    rep = (load_arms(replicated) if replicated is not None and Path(replicated).exists()
           else {})
    # rows from a tournament still being played are shown, but are not tests until it has
    # played its planned games (deciding while the sample grows would inflate the error)
    running = ""
    if rep and replicated is not None and not _complete(Path(replicated)):
        played = sum(len(r) for r in rep.values())
        running = (f"in progress: {played:,} of {planned_games(replicated) or 0:,} planned "
                   "games of the replicated tournament")
    tests: list[_Test] = []
    for method, paper in PAPER_TABLE2.items():
        records = arms.get(f"{method}-{setting}")
        if not records:
            continue
        e = arm_estimate(method, records)
        note, inside = _size_note(paper, e)
        tests.append(replace(_arm_claim("MoE vs regular", f"{method} beats regular: "
                                        f"+{paper:.0f} Elo (Table 2, mean of 55 settings)", e,
                                        +1, note), size_inside=inside))
    for method in ("staged", "weighted-a10"):
        grid = seed_arms(rep, method, setting)
        if len(grid) < 2:
            continue
        pooled = pooled_estimate(method, list(grid.values()))
        paper = PAPER_TABLE2[method]
        size, inside = _size_note(paper, pooled)
        tests.append(replace(_arm_claim("MoE vs regular, across seeds",
                                        f"{method} beats regular over the training seeds "
                                        f"played of both (pooled: these seeds): +{paper:.0f} "
                                        "Elo (Table 2, mean of 55 settings)", pooled, +1,
                                        f"{size} (these seeds); "
                                        + _seed_note(grid, method, "regular")),
                             in_progress=running, size_inside=inside))
    long_test = (_seeds_long_test(Path(seeds_long), rep, setting) if seeds_long is not None
                 else None)
    spread = regular_seed_spread(rep, setting)
    grid_state = ("not in this table" if long_test is None
                  else "the row 'equal training compute, across seeds'"
                  + (f", {long_test.in_progress}" if long_test.in_progress
                     else f": {long_test.cited}" if long_test.cited else ""))
    long_seeds = _regular_long_seeds_note(spread, grid_state)
    budget = _separated_budget(Path(experts))
    for expert, sign, says in (("opening", 0, "no gain or slightly worse"),
                               ("middlegame", 1, "clear gain"), ("endgame", 1, "clear gain")):
        records = arms.get(f"only-{expert}-{setting}")
        if records:
            tests.append(_arm_claim("single expert (Fig. 6)", f"only the {expert} expert: "
                                    f"{says}", arm_estimate(expert, records), sign,
                                    budget))
    separated = arms.get(f"separated-{setting}")
    for k in (2, 3, 4, 5):
        other = arms.get(f"definition-movecount{k}-{setting}")
        if separated and other:
            tests.append(_diff_claim("phase definition (Fig. 7)",
                                     f"the Lichess gate beats {k} move-count phases",
                                     f"Lichess minus movecount{k}",
                                     paired_difference(separated, other), +1))
    for routing in ("split", "soft"):
        other = arms.get(f"routing-{routing}-{setting}")
        if separated and other:
            tests.append(_diff_claim("routing (sec. 4)", f"{routing} routing instead of the "
                                     "majority vote (the paper does not test it)",
                                     f"{routing} minus majority",
                                     paired_difference(other, separated), None,
                                     kind=EXPLORATORY))
    gate = arms.get(f"gate-engine-{setting}")
    if separated and gate:
        tests.append(_diff_claim("gate table (docs/phases.md)", "the authors' engine mixedness "
                                 "table as the gate instead of the training table (not "
                                 "compared in the paper)", "engine minus lichess table",
                                 paired_difference(gate, separated), None, kind=EXPLORATORY))
    long = arms.get(f"separated-long-{setting}")
    if separated and long:
        tests.append(_diff_claim("iterations per expert", "separated experts given the "
                                 "regular network's iterations each score higher than the "
                                 "separated experts (consistent with data starvation; not "
                                 "a causal test)", "separated-long minus separated",
                                 paired_difference(long, separated), +1,
                                 "same data, three times the iterations", POST_HOC))
        tests.append(_arm_claim("iterations per expert", "with the regular network's "
                                "iterations per expert, separated experts beat the regular "
                                "network (the paper: +122 at equal epochs)",
                                arm_estimate("separated-long", long), +1,
                                "three times the regular network's training in total",
                                POST_HOC))
    regular_long = arms.get(f"regular-long-{setting}")
    for method in (*PAPER_TABLE2, "separated-long"):
        records = arms.get(f"{method}-{setting}")
        if not (records and regular_long):
            continue
        compute = ("regular-long had three times separated's total training" if
                   method == "separated" else "equal total training (three experts at the "
                   "regular budget each)") + f"; {long_seeds}"
        tests.append(_diff_claim("equal training compute, via the regular network",
                                 f"{method} beats regular-long (the regular network trained "
                                 "for three times its iterations; the paper has no such "
                                 "control)", f"{method} minus regular-long",
                                 paired_difference(records, regular_long), +1, compute,
                                 POST_HOC))
    for method in ("staged", "weighted-a4", "weighted-a10", "separated-long"):
        records = rep.get(f"{method}-vs-regular-long-{setting}")
        if records:
            tests.append(replace(_arm_claim("equal training compute, head to head",
                                            f"{method} beats regular-long played directly "
                                            "(equal total training; the paper has no such "
                                            "control)", arm_estimate(method, records), +1,
                                            f"equal total training; {long_seeds}", POST_HOC),
                                 in_progress=running))
    if long_test is not None:
        tests.append(long_test)
    if settings is not None:
        tests += _settings_tests(Path(settings), long_seeds)
    if matched is not None:
        tests += _matched_tests(Path(matched), long_seeds)
    if converged is not None:
        tests += _converged_tests(Path(converged), Path(experts))
    family = [t for t in tests if not t.in_progress]
    adjusted = dict(zip((id(t) for t in family), holm([t.claim.p for t in family]),
                        strict=True))
    # an unfinished tournament's rows keep their estimate and interval but no p: they are
    # not tests until it has played its planned games
    out = [replace(t.claim, verdict=t.in_progress, p=math.nan, p_holm=math.nan)
           if t.in_progress
           else replace(t.claim, verdict=_decide(t, adjusted[id(t)], alpha),
                        p_holm=adjusted[id(t)])
           for t in tests]
    seeds, mixtures = table1_seed_band(experts)
    if len(seeds) >= 2:
        lo, hi = min(seeds), max(seeds)
        for name, losses in mixtures.items():
            mine = (f"{losses[0]:.4f}" if len(losses) == 1 else
                    f"{min(losses):.4f}-{max(losses):.4f} over {len(losses)} seeds")
            # descriptive: three seeds give a range, not an interval, and no test
            verdict = ("below the seed range (descriptive)" if max(losses) < lo
                       else "above the seed range (descriptive)" if min(losses) > hi
                       else "overlaps the seed range (descriptive)")
            out.append(Claim("Table 1 loss", f"{name} mixture has a lower loss than regular "
                             "(paper: about 0.06 for separated/staged, 0.04 weighted)",
                             f"{mine} vs regular {lo:.4f}-{hi:.4f} over {len(seeds)} seeds "
                             "(seed ranges, min to max: not confidence intervals)", verdict,
                             "seed ranges compared (no test; not in the Holm family)"
                             + ("; one seed of the mixture" if len(losses) == 1 else ""),
                             POST_HOC if name == SEPARATED_LONG else "paper claim"))
    return out
