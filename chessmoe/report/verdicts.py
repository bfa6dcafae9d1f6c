"""What the committed evidence decides: every claim of the paper we test, with our estimate,
its 95 % interval and a verdict computed from the results (never typed by hand): :func:`claims`,
with the verdicts of :func:`decide`. The rows decided by games are the registered designs'
(:mod:`chessmoe.designs.registry`), each reading its own tournament.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from chessmoe._io.errors import KitError
from chessmoe.designs import registry
from chessmoe.designs.base import Evidence
from chessmoe.designs.rows import (
    POST_HOC,
    SIGN_AGREES,
    SIZE_DIFFERS,
    UNDECIDED,
    Claim,
    ClaimTest,
)
from chessmoe.estimates import holm
from chessmoe.nets.bundles import table1_seed_band
from chessmoe.nets.names import SEPARATED_LONG

__all__ = ["SIGN_AGREES", "SIZE_DIFFERS", "UNDECIDED", "claims", "claims_of", "decide",
           "evidence", "table1_rows"]


def decide(test: ClaimTest, p_holm: float, alpha: float) -> str:
    """A test's verdict from its Holm-adjusted p-value and its decision rule.

    Verdicts: **supports** (the estimate lies on the paper's side of zero and the test of zero
    rejects after Holm's correction; where the paper gives a size, it lies inside our interval),
    **sign agrees, size differs** (the same, with the paper's size outside our interval),
    **contradicts** (it rejects, on the other side), **undecided at this scale** (it does not
    reject).
    """
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


def evidence(tournament: str | os.PathLike[str], experts: str | os.PathLike[str],
             tournaments: Mapping[str, str | os.PathLike[str] | None],
             setting: str = "b8-n100") -> Evidence:
    """What the designs read: ``tournament`` is the main design's directory, ``tournaments``
    the others' by keyword (:attr:`~chessmoe.designs.base.Design.keyword`); a design not given
    has no rows."""
    known = {d.keyword: d.name for d in registry.REGISTERED}
    unknown = sorted(set(tournaments) - set(known))
    if unknown:
        raise KitError(f"no registered design {unknown[0]!r}; known: {', '.join(known)}")
    given = {known[k]: Path(v) for k, v in tournaments.items() if v is not None}
    return Evidence(Path(experts), {registry.MAIN: Path(tournament), **given}, setting)


def table1_rows(experts: str | os.PathLike[str]) -> list[Claim]:
    """Table 1: each mixture's loss under every seed it was trained with against the regular
    network's seed range (descriptive: three seeds give a range, not an interval)."""
    seeds, mixtures = table1_seed_band(experts)
    if len(seeds) < 2:
        return []
    lo, hi = min(seeds), max(seeds)
    out = []
    for name, losses in mixtures.items():
        mine = (f"{losses[0]:.4f}" if len(losses) == 1 else
                f"{min(losses):.4f}-{max(losses):.4f} over {len(losses)} seeds")
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


def claims(tournament: str | os.PathLike[str], experts: str | os.PathLike[str],
           setting: str = "b8-n100", *, alpha: float = 0.05,
           **tournaments: str | os.PathLike[str] | None) -> list[Claim]:
    """Every claim the committed tournaments and the training controls can speak to, the
    game-decided ones corrected together by Holm's procedure (family-wise ``alpha``).

    ``tournament``: the main design's directory; ``tournaments``: every other registered
    design's by keyword (:attr:`~chessmoe.designs.base.Design.keyword`). Each design's
    rows follow in the registry's order; a registered design's rows are in the table from
    before its first game, and a row is a test only once its match has played its planned
    games. The Table 1 rows (seed ranges) close the table.

    Every claim decided by games is one test in one family: its two-sided p-value (a z-test on pair
    scores, the same standard error as the interval; :mod:`chessmoe.estimates`) is adjusted by
    Holm's step-down procedure over the whole table, so the table's family-wise error is at most 5
    %, not 5 % per row. Intervals are shown unadjusted (95 %); a row whose interval excludes zero
    can still be undecided after the correction. Table 1 rows are decided by training seeds: they
    compare seed ranges (min to max), which are not confidence intervals, and are not in the family.
    """
    return claims_of(evidence(tournament, experts, tournaments, setting), alpha)


def claims_of(found: Evidence, alpha: float = 0.05) -> list[Claim]:
    """:func:`claims` of what :func:`evidence` found."""
    tests = [t for design in registry.REGISTERED if design.claims is not None
             for t in design.claims(found)]
    family = [t for t in tests if not t.in_progress]
    adjusted = dict(zip((id(t) for t in family), holm([t.claim.p for t in family]),
                        strict=True))
    # an unfinished tournament's rows keep their estimate and interval but no p: they are
    # not tests until it has played its planned games
    out = [replace(t.claim, verdict=t.in_progress, p=math.nan, p_holm=math.nan)
           if t.in_progress
           else replace(t.claim, verdict=decide(t, adjusted[id(t)], alpha),
                        p_holm=adjusted[id(t)])
           for t in tests]
    return out + table1_rows(found.experts)
