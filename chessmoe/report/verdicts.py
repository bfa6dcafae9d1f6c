"""What the committed evidence decides: every claim of the paper we test, with our estimate,
its 95 % interval and a verdict computed from the results (never typed by hand).

Verdicts: **supports** (our interval lies on the paper's side of zero), **contradicts** (it
lies on the other side), **undecided at this scale** (it contains zero). Where the paper gives
a size, we also say whether it lies inside our interval.

Estimates from games use game *pairs* (one opening, both colours) as the unit -- the pentanomial
model -- so an opening's two games are never counted as independent; arms compared with each
other were played on the same openings (one opening group), so their difference is taken pair
by pair over the shared openings (a paired design).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe.elo import elo_from_score
from chessmoe.play.match import load_records
from chessmoe.play.records import GameRecord

__all__ = ["ArmEstimate", "Claim", "arm_estimate", "claims", "clustered_mean", "is_regular_seed",
           "load_arms", "paired_difference", "pooled_estimate", "t975", "table1_seed_band",
           "write_markdown"]

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


@dataclass(frozen=True)
class Claim:
    """One claim, our number and the verdict."""

    topic: str
    paper: str  # what the paper says, with its number
    ours: str  # our estimate with its interval and sample
    verdict: str  # "supports", "contradicts" or "undecided at this scale"
    note: str = ""


def _elo_bound(score: float) -> float:
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return elo_from_score(score)


def _pair_scores(records: Sequence[GameRecord]) -> dict[int, tuple[int, float]]:
    """``pair -> (opening, mean score of the pair)`` for pairs with both games played."""
    games: dict[int, list[tuple[int, float]]] = {}
    for r in records:
        if r.pair is not None and r.opening is not None and r.first_score is not None:
            games.setdefault(r.pair, []).append((r.opening, r.first_score))
    return {p: (g[0][0], (g[0][1] + g[1][1]) / 2) for p, g in games.items() if len(g) == 2}


def arm_estimate(name: str, records: Sequence[GameRecord]) -> ArmEstimate:
    """The pentanomial estimate of one arm: mean pair score +- 1.96 standard errors."""
    pairs = _pair_scores(records)
    values = [s for _, s in pairs.values()]
    n = len(values)
    if n < 2:
        return ArmEstimate(name, n, n, math.nan, math.nan, math.nan, math.nan)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    se = math.sqrt(var / n)
    return ArmEstimate(name, n, len({o for o, _ in pairs.values()}), mean,
                       elo_from_score(mean) if 0 < mean < 1 else _elo_bound(mean),
                       _elo_bound(mean - Z95 * se), _elo_bound(mean + Z95 * se))


# Student's t 97.5 % quantiles for 1..30 degrees of freedom (standard tables).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


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
              for opening, score in _pair_scores(records).values()]
    mean, se, clusters = clustered_mean(values)
    if math.isnan(se):
        return ArmEstimate(name, len(values), clusters, mean, math.nan, math.nan, math.nan)
    critical = t975(clusters - 1)
    return ArmEstimate(name, len(values), clusters, mean, _elo_bound(mean),
                       _elo_bound(mean - critical * se), _elo_bound(mean + critical * se))


def paired_difference(a: Sequence[GameRecord], b: Sequence[GameRecord]
                      ) -> tuple[float, float, float, int]:
    """Mean pair-score difference of arm ``a`` minus arm ``b`` over the openings both played
    (each arm's pair against the same regular network), with its 95 % interval, in score
    percentage points: ``(diff, low, high, shared openings)``."""
    pa = {o: s for o, s in _pair_scores(a).values()}
    pb = {o: s for o, s in _pair_scores(b).values()}
    shared = sorted(set(pa) & set(pb))
    d = [100 * (pa[o] - pb[o]) for o in shared]
    n = len(d)
    if n < 2:
        return math.nan, math.nan, math.nan, n
    mean = sum(d) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1) / n)
    return mean, mean - Z95 * se, mean + Z95 * se, n


def planned_games(tournament: str | os.PathLike[str]) -> int | None:
    """Games the tournament's ``spec.json`` plans (two per pair of every match); ``None``
    without a readable spec."""
    path = Path(tournament) / "spec.json"
    try:
        spec = json.loads(path.read_text())
        return sum(2 * int(match["pairs"]) for match in spec["matches"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load_arms(tournament: str | os.PathLike[str]) -> dict[str, list[GameRecord]]:
    """Every match's game records of a tournament directory (``<match>/games-*.jsonl``)."""
    arms: dict[str, list[GameRecord]] = {}
    for match in sorted(p for p in Path(tournament).iterdir() if p.is_dir()):
        records = load_records(sorted(match.glob("games-*.jsonl")))
        if records:
            arms[match.name] = records
    return arms


def _verdict(low: float, high: float, paper_sign: int) -> str:
    if math.isnan(low) or math.isnan(high):
        return "undecided at this scale"
    if low > 0:
        return "supports" if paper_sign > 0 else "contradicts"
    if high < 0:
        return "supports" if paper_sign < 0 else "contradicts"
    return "undecided at this scale"


def _fmt(x: float) -> str:
    return "+inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:+.0f}"


def _arm_text(e: ArmEstimate) -> str:
    return (f"{_fmt(e.elo)} Elo [{_fmt(e.low)}, {_fmt(e.high)}] "
            f"({2 * e.pairs} games, {e.openings} openings)")


def is_regular_seed(bundle: str) -> bool:
    """Whether a bundle is the regular network under one training seed (the profile's own
    ``regular`` or a ``regular-seed<N>`` control; not ``regular-long``)."""
    return bundle == "regular" or bundle.startswith("regular-seed")


def table1_seed_band(experts: str | os.PathLike[str], test_set: str = "no-phases"
                     ) -> tuple[list[float], dict[str, float]]:
    """Table 1 on ``test_set``: the regular network's loss under every trained seed, and each
    mixture's loss (the controls of :mod:`chessmoe.nets.controls`)."""
    root = Path(experts)
    seeds: list[float] = []
    if not root.is_dir():
        return seeds, {}
    for bundle in sorted(p for p in root.iterdir() if is_regular_seed(p.name)):
        path = bundle / "evaluation.json"
        if path.exists():
            seeds.append(json.loads(path.read_text())["results"]["baseline"][test_set]["loss"])
    mixtures = {}
    for name in ("separated", "separated-long", "staged", "weighted-a4", "weighted-a10"):
        path = root / name / "evaluation.json"
        if path.exists():
            mixtures[name] = json.loads(path.read_text())["results"]["mixture"][test_set]["loss"]
    return seeds, mixtures


PAPER_TABLE2 = {"separated": 122.20, "staged": 121.11, "weighted-a4": 23.18,
                "weighted-a10": 55.84}


def claims(tournament: str | os.PathLike[str], experts: str | os.PathLike[str],
           setting: str = "b8-n100") -> list[Claim]:
    """Every claim the committed powered tournament and the training controls can speak to."""
    arms = load_arms(tournament) if Path(tournament).exists() else {}
    out: list[Claim] = []
    for method, paper in PAPER_TABLE2.items():
        records = arms.get(f"{method}-{setting}")
        if not records:
            continue
        e = arm_estimate(method, records)
        inside = e.low <= paper <= e.high
        out.append(Claim("MoE vs regular", f"{method} beats regular: +{paper:.0f} Elo "
                         "(Table 2, mean of 55 settings)", _arm_text(e),
                         _verdict(e.low, e.high, +1),
                         f"the paper's +{paper:.0f} is {'inside' if inside else 'outside'} "
                         "our interval"))
    for expert, sign, says in (("opening", 0, "no gain or slightly worse"),
                               ("middlegame", 1, "clear gain"), ("endgame", 1, "clear gain")):
        records = arms.get(f"only-{expert}-{setting}")
        if not records:
            continue
        e = arm_estimate(expert, records)
        verdict = (_verdict(e.low, e.high, sign) if sign else
                   "supports" if e.high < 50 and e.low < 0 else "contradicts"
                   if e.low > 0 else "undecided at this scale")
        out.append(Claim("single expert (Fig. 6)", f"only the {expert} expert: {says}",
                         _arm_text(e), verdict))
    separated = arms.get(f"separated-{setting}")
    for k in (2, 3, 4, 5):
        other = arms.get(f"definition-movecount{k}-{setting}")
        if separated and other:
            d, lo, hi, n = paired_difference(separated, other)
            out.append(Claim("phase definition (Fig. 7)",
                             f"the Lichess gate beats {k} move-count phases",
                             f"Lichess minus movecount{k}: {d:+.1f} points [{lo:+.1f}, "
                             f"{hi:+.1f}] on {n} shared openings",
                             _verdict(lo, hi, +1)))
    for routing in ("split", "soft"):
        other = arms.get(f"routing-{routing}-{setting}")
        if separated and other:
            d, lo, hi, n = paired_difference(other, separated)
            out.append(Claim("routing (sec. 4)", f"{routing} routing instead of the majority "
                             "vote (the paper does not test it)",
                             f"{routing} minus majority: {d:+.1f} points [{lo:+.1f}, "
                             f"{hi:+.1f}] on {n} shared openings",
                             _verdict(lo, hi, +1) if lo > 0 or hi < 0
                             else "undecided at this scale", "no paper claim: sign only"))
    gate = arms.get(f"gate-engine-{setting}")
    if separated and gate:
        d, lo, hi, n = paired_difference(gate, separated)
        out.append(Claim("gate table (docs/phases.md)", "the authors' engine mixedness table as "
                         "the gate instead of the training table (not compared in the paper)",
                         f"engine minus lichess table: {d:+.1f} points [{lo:+.1f}, {hi:+.1f}]"
                         f" on {n} shared openings", "undecided at this scale"
                         if lo <= 0 <= hi else "differs", "no paper claim"))
    long = arms.get(f"separated-long-{setting}")
    if separated and long:
        d, lo, hi, n = paired_difference(long, separated)
        out.append(Claim("data starvation (our explanation)", "separated experts lose because "
                         "they train for fewer iterations", f"separated-long minus separated:"
                         f" {d:+.1f} points [{lo:+.1f}, {hi:+.1f}] on {n} shared openings",
                         _verdict(lo, hi, +1)))
        e = arm_estimate("separated-long", long)
        out.append(Claim("data starvation (our explanation)", "with the regular network's "
                         "iterations per expert, separated experts beat the regular network "
                         "(the paper: +122 at equal epochs)", _arm_text(e),
                         _verdict(e.low, e.high, +1),
                         "three times the regular network's training in total"))
    regular_long = arms.get(f"regular-long-{setting}")
    for method in (*PAPER_TABLE2, "separated-long"):
        records = arms.get(f"{method}-{setting}")
        if not (records and regular_long):
            continue
        d, lo, hi, n = paired_difference(records, regular_long)
        compute = ("a third of its training" if method == "separated" else
                   "the same total training (three experts at its budget each)")
        out.append(Claim("equal training compute (control)", f"{method} beats one network "
                         "trained as much as the experts together (regular-long; the paper "
                         "has no such control)", f"{method} minus regular-long: {d:+.1f} "
                         f"points [{lo:+.1f}, {hi:+.1f}] on {n} shared openings",
                         _verdict(lo, hi, +1), f"{method}: {compute}"))
    seeds, mixtures = table1_seed_band(experts)
    if len(seeds) >= 2:
        band = (min(seeds), max(seeds))
        for name, loss in mixtures.items():
            gain = sum(seeds) / len(seeds) - loss
            inside = band[0] <= loss <= band[1]
            out.append(Claim("Table 1 loss", f"{name} mixture has a lower loss than regular "
                             "(paper: about 0.06 for separated/staged, 0.04 weighted)",
                             f"{loss:.4f} vs regular {band[0]:.4f}-{band[1]:.4f} over "
                             f"{len(seeds)} seeds (gain {gain:+.4f} against their mean)",
                             "undecided at this scale" if inside else
                             "supports" if loss < band[0] else "contradicts",
                             "inside the seed band" if inside else "outside the seed band"))
    return out


def write_markdown(rows: Sequence[Claim], path: str | os.PathLike[str]) -> Path:
    """The claims as a Markdown table (atomically)."""
    from chessmoe._io.fsutil import atomic_path

    lines = ["| topic | the paper says | we measure (95 % interval) | verdict | note |",
             "|---|---|---|---|---|"]
    lines += [f"| {c.topic} | {c.paper} | {c.ours} | **{c.verdict}** | {c.note} |"
              for c in rows]
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text("\n".join(lines) + "\n")
    return path
