"""The ``seeds-long`` design: equal training compute over training seeds.

Staged under its three training seeds against ``regular-long`` under its three (:func:`grid`,
:func:`plan`). Its one claims row (:func:`row`), registered before its first game, closes the
claims table's equal-compute rows, so the replicated design places it
(:func:`chessmoe.designs.replicated.claims`). Every row resting on the one-seed
``regular-long`` quotes :func:`regular_long_note`.
"""

from __future__ import annotations

import math
import os
from dataclasses import replace
from pathlib import Path

from chessmoe.designs.base import Design, Evidence, Plan, TableNotes, trained, versus
from chessmoe.designs.rows import (
    NOT_PLAYED,
    POST_HOC,
    ClaimTest,
    arm_claim,
)
from chessmoe.designs.seeds import regular_seed_spread, seed_note
from chessmoe.estimates import ArmEstimate, elo_interval, pooled_estimate, seed_level_estimate
from chessmoe.nets.names import (
    CONTROL_SEEDS,
    REGULAR_LONG,
    method_seed_bundle,
    regular_long_seed_bundle,
)
from chessmoe.played import planned_pairs
from chessmoe.records import GameRecord

__all__ = ["DESIGN", "LONG_SEED", "TOPIC", "grid", "plan", "regular_long_note", "row",
           "seeds_long_arms"]

TOPIC = "equal training compute, across seeds"
#: How a claims row that rests on the one-seed regular-long starts its note's seed clause.
LONG_SEED = "regular-long is one training seed"
#: Game pairs of every pairing (200 games).
PAIRS = 100


def grid() -> list[tuple[str, str]]:
    """The 3 x 3 grid of staged's seeds (``staged``, ``staged-seed10/11``) against
    ``regular-long``'s (``regular-long``, ``regular-long-seed10/11``), rows first."""
    return [(first, second)
            for first in ("staged", *(method_seed_bundle("staged", s) for s in CONTROL_SEEDS))
            for second in (REGULAR_LONG, *(regular_long_seed_bundle(s) for s in CONTROL_SEEDS))]


def plan(experts_root: str | os.PathLike[str], *, pairs: int = PAIRS) -> Plan:
    """Every pairing of :func:`grid` whose bundles are trained, ``pairs`` pairs each at the
    powered setting (batch 8, 100 nodes) under cutechess's draw rules, named
    ``<staged seed>-vs-<regular-long seed>-b8-n100`` in the opening group ``b8-n100``; but the
    first: ``staged-vs-regular-long-b8-n100`` (both seed 9) is the replicated tournament's
    head-to-head arm, the same name, the same openings and 100 pairs, so it is not played
    again here (:func:`seeds_long_arms` takes it from there)."""
    return Plan("seeds-long", tuple(
        versus(first, second, pairs, (("kind", "seed-long"), ("method", "staged"),
                                      ("first", first), ("second", second)))
        for first, second in grid()[1:]
        if trained(experts_root, first) and trained(experts_root, second)))


def seeds_long_arms(long_arms: dict[str, list[GameRecord]],
                    replicated_arms: dict[str, list[GameRecord]], setting: str = "b8-n100"
                    ) -> dict[tuple[str, str], list[GameRecord]]:
    """``(staged bundle, regular-long bundle) -> records`` of the equal-compute seed grid:
    the ``seeds-long`` tournament's pairings ``<a>-vs-<b>-<setting>`` and, for both seed 9,
    the replicated tournament's head-to-head arm of the same name (the same openings)."""
    out: dict[tuple[str, str], list[GameRecord]] = {}
    for first, second in grid():
        name = f"{first}-vs-{second}-{setting}"
        source = replicated_arms if (first, second) == ("staged", REGULAR_LONG) else long_arms
        if source.get(name):
            out[(first, second)] = source[name]
    return out


def row(evidence: Evidence) -> ClaimTest | None:
    """The equal-compute seed grid's row (``None`` without a seeds-long tournament): staged
    under three seeds against regular-long under three, pooled over the pairings (these
    seeds), with the seeds-random estimate in the note. A test once every pairing has played
    its planned games (the ninth is the replicated tournament's head-to-head arm)."""
    directory = evidence.tournament("seeds-long")
    if directory is None:
        return None
    return evidence.memo("seeds-long row", lambda: _row(evidence, directory))


def _row(evidence: Evidence, directory: Path) -> ClaimTest:
    arms, setting = evidence.arms("seeds-long"), evidence.setting
    cells = seeds_long_arms(arms, evidence.arms("replicated"), setting)
    planned = planned_pairs(directory, PAIRS)
    claim = ("staged beats regular-long over the training seeds played of both (pooled: "
             "these seeds; equal total training; the paper has no such control)")
    pooled = (pooled_estimate("staged", list(cells.values())) if len(cells) >= 2
              else ArmEstimate("staged", 0, 0, math.nan, math.nan, math.nan, math.nan))
    test = arm_claim(TOPIC, claim, pooled, +1,
                     seed_note(cells, "staged", "regular-long") if len(cells) >= 2 else "",
                     POST_HOC)
    if len(cells) < 2:
        test = replace(test, claim=replace(test.claim, ours="fewer than two seed pairings "
                                           "played"))
    names = [f"{a}-vs-{b}-{setting}" for a, b in grid()[1:]]
    played = sum(len(arms.get(c, [])) for c in names)
    wanted = sum(2 * planned.get(c, PAIRS) for c in names)
    done = all(len(arms.get(c, [])) >= 2 * planned.get(c, PAIRS) for c in names)
    state = ("" if done and len(cells) == len(grid()) else
             NOT_PLAYED if not played else
             f"in progress: {played:,} of {wanted:,} planned games of the seeds-long "
             "tournament")
    level = seed_level_estimate("staged", cells) if not state else None
    cited = (f"staged {elo_interval(pooled)} Elo against it pooled over {len(cells)} seed "
             f"pairings (these seeds), {elo_interval(level.estimate)} with both sides' seeds "
             "random" if level is not None else "")
    return replace(test, in_progress=state, cited=cited)


def regular_long_note(evidence: Evidence) -> str:
    """What a row resting on the one-seed ``regular-long`` says about seeds: how far the
    regular network's seed alone moves a mixture's score in the replicated seed grid, and
    where regular-long under three seeds stands (this design's row)."""
    return evidence.memo("regular-long note", lambda: _regular_long_note(evidence))


def _regular_long_note(evidence: Evidence) -> str:
    test = row(evidence)
    state = ("not in this table" if test is None
             else "the row 'equal training compute, across seeds'"
             + (f", {test.in_progress}" if test.in_progress
                else f": {test.cited}" if test.cited else ""))
    spread = regular_seed_spread(evidence.arms("replicated"), evidence.setting)
    text = f"{LONG_SEED} (seed 9)"
    if spread is not None:
        text += (f"; the regular network's seed alone moves one mixture's score by up to "
                 f"{spread[0]:.1f} points a pair in the seed grid ({spread[1]})")
    return text + f"; regular-long under three seeds: {state}"


DESIGN = Design(
    "seeds-long", plan,
    profile="equal compute over seeds: staged under its three training seeds against "
            "regular-long under three (train regular-long-seed10/11 first: chessmoe train "
            "--profile small --controls), 200 games a pairing at batch 8 and 100 nodes on the "
            "replicated tournament's openings, cutechess rules (1,600 games; the ninth pairing "
            "is the replicated tournament's staged-vs-regular-long arm)",
    registered=True, rows="seeds-long",
    notes=TableNotes(source="The seeds-long source counts the games played in its own folder; "
                            "its rows also count their ninth pairing (staged and regular-long "
                            "under seed 9), which is the replicated tournament's head-to-head "
                            "arm."))
