"""The ``scale`` design: does the answer survive as the networks grow?

At three sizes, ``staged`` and the shared-trunk mixture ``trunk`` each play the ``regular``
network of their size and seed, every network early-stopped on one recipe
(:func:`chessmoe.nets.controls.scale_config`); beside them, staged plays two more regular
seeds at 400 nodes (:func:`plan`). The claims rows (:func:`claims`) were registered before
the first network trained.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from chessmoe.designs.base import Design, Evidence, Pairing, Plan, Side, TableNotes, versus
from chessmoe.designs.powered import PAPER_TABLE2
from chessmoe.designs.rows import NOT_PLAYED, POST_HOC, ClaimTest, arm_claim
from chessmoe.designs.settings import GROUP as SETTINGS_GROUP
from chessmoe.designs.settings import THREE_SEEDS_NODES, THREE_SEEDS_TOPIC
from chessmoe.designs.settings import match_name as settings_match
from chessmoe.estimates import (
    ArmEstimate,
    arm_estimate,
    elo_interval,
    paired_seeds_estimate,
    pooled_estimate,
)
from chessmoe.nets.names import (
    CONTROL_SEEDS,
    SCALE_METHODS,
    SCALE_PARAMETERS,
    SCALE_SEEDS,
    SCALE_SIZES,
    scale_bundle,
    seed_bundle,
)
from chessmoe.played import load_arms, planned_pairs
from chessmoe.records import GameRecord

__all__ = ["DESIGN", "MIXTURES", "NODES_BESIDE", "PAIRS", "PARAMETERS", "TOPIC", "SizeEstimate",
           "beside_name", "by_parameters", "cells", "plan", "size_estimate", "size_estimates"]

#: The claims table's topics of the design start so.
TOPIC = "scale:"
#: Game pairs of every match (200 games).
PAIRS = 100
#: The mixtures each size's regular network plays.
MIXTURES: tuple[str, ...] = ("staged", "trunk")
#: The node limit (at batch 8) staged plays the other regular seeds at, beside the sizes.
NODES_BESIDE = THREE_SEEDS_NODES
#: What each size label stands for, in parameters (the networks' counts in thousands, rounded:
#: "50 k", "201 k", "604 k").
PARAMETERS = {size: f"{round(n / 1000)} k" for size, n in SCALE_PARAMETERS.items()}


def by_parameters() -> list[str]:
    """The sizes from the fewest parameters to the most (not the training order)."""
    return sorted(SCALE_SIZES, key=SCALE_PARAMETERS.__getitem__)


def size_matches(size: str, mixture: str) -> list[tuple[int, str, str]]:
    """``(seed, first, second)`` of ``mixture`` against the regular network at ``size``,
    seed by seed."""
    return [(seed, scale_bundle(mixture, size, seed), scale_bundle("regular", size, seed))
            for seed in SCALE_SEEDS[size]]


def beside_name(seed: int) -> str:
    """Staged against ``regular-seed<seed>`` at batch 8 and 400 nodes:
    ``staged-vs-regular-seed10-b8-n400`` (the settings design's name pattern)."""
    return settings_match(seed_bundle(seed), 8, NODES_BESIDE)


def plan(experts_root: str | os.PathLike[str], *, pairs: int = PAIRS) -> Plan:
    """Every match, trained or not (registered):

    * the sizes in training order (:data:`~chessmoe.nets.names.SCALE_SIZES`: about 50 k, 201 k
      and 600 k parameters, the width growing), each seed's mixtures against the regular
      network of its size and seed (seed 9 against seed 9, 10 against 10, ...: every pairing
      has both sides trained afresh), ``pairs`` pairs a pairing at the powered setting under
      cutechess's draw rules, named ``<first>-vs-<second>-b8-n100`` in the opening group
      ``b8-n100``;
    * then staged against ``regular-seed10`` and ``regular-seed11`` at batch 8 and 400 nodes
      on the settings design's openings, so that setting rests on three regular seeds (the
      settings design plays seed 9)."""
    matches = [versus(first, second, pairs, (("kind", "scale"), ("size", size),
                                             ("seed", seed), ("method", mixture),
                                             ("first", first), ("second", second)))
               for size in SCALE_SIZES for mixture in MIXTURES
               for seed, first, second in size_matches(size, mixture)]
    matches += [Pairing(beside_name(seed), Side("staged", "staged", 8, NODES_BESIDE),
                        Side(seed_bundle(seed), seed_bundle(seed), 8, NODES_BESIDE), pairs,
                        SETTINGS_GROUP,
                        (("kind", "scale-settings"), ("method", "staged"), ("first", "staged"),
                         ("second", seed_bundle(seed)), ("batch_size", 8),
                         ("nodes", NODES_BESIDE), ("movetime", None)))
                for seed in CONTROL_SEEDS]
    return Plan("scale", tuple(matches))


def cells(arms: dict[str, list[GameRecord]], size: str, mixture: str
          ) -> dict[int, list[GameRecord]]:
    """Seed -> the records of ``mixture`` against the regular network at ``size``."""
    return {seed: arms.get(f"{first}-vs-{second}-b8-n100", [])
            for seed, first, second in size_matches(size, mixture)}


def _state(played: dict[str, int], wanted: dict[str, int]) -> str:
    """'' when every match has its planned games, else not played or in progress."""
    if all(played[m] >= wanted[m] for m in wanted):
        return ""
    if not any(played.values()):
        return NOT_PLAYED
    return (f"in progress: {sum(played.values()):,} of {sum(wanted.values()):,} planned "
            f"games of its {len(wanted)} matches")


def _pooled(name: str, matches: Sequence[Sequence[GameRecord]]) -> ArmEstimate:
    played = [m for m in matches if m]
    if not played:
        return ArmEstimate(name, 0, 0, math.nan, math.nan, math.nan, math.nan)
    return pooled_estimate(name, played)


@dataclass(frozen=True)
class SizeEstimate:
    """One size's mixture against the regular network of its size, as played so far: the
    estimate pooled over its seed pairings (openings the clusters: these seeds) and the one
    with both sides' seeds random (``None`` until every pairing has enough pairs), with the
    games played and planned of its matches."""

    size: str  # the label of :data:`~chessmoe.nets.names.SCALE_SIZES` ("201k")
    label: str  # "201 k"
    parameters: int  # the regular network's (each of staged's experts has as many)
    mixture: str
    pooled: ArmEstimate | None  # None: fewer than two complete pairs over two openings
    seeds_random: ArmEstimate | None
    played: int  # games
    planned: int  # games


def size_estimate(arms: dict[str, list[GameRecord]], planned: dict[str, int], size: str,
                  mixture: str) -> SizeEstimate:
    """``mixture`` against the regular network at ``size`` from a tournament's ``arms``
    (match -> records) and its planned pairs by match (:data:`PAIRS` where not planned)."""
    by_seed = cells(arms, size, mixture)
    pooled = _pooled(mixture, list(by_seed.values()))
    names = [f"{first}-vs-{second}-b8-n100" for _, first, second in size_matches(size, mixture)]
    return SizeEstimate(size, PARAMETERS[size], SCALE_PARAMETERS[size], mixture,
                        None if math.isnan(pooled.elo) else pooled,
                        paired_seeds_estimate(mixture, list(by_seed.values())),
                        sum(len(r) for r in by_seed.values()),
                        sum(2 * planned.get(n, PAIRS) for n in names))


def size_estimates(tournament_dir: str | os.PathLike[str]) -> list[SizeEstimate]:
    """Every size (fewest parameters first) x mixture (:data:`MIXTURES`) of the tournament in
    ``tournament_dir`` (a directory not there yet: nothing played)."""
    directory = Path(tournament_dir)
    arms = load_arms(directory) if directory.is_dir() else {}
    planned = planned_pairs(directory, PAIRS) if directory.is_dir() else {}
    return [size_estimate(arms, planned, size, mixture)
            for size in by_parameters() for mixture in MIXTURES]


def _size_row(evidence: Evidence, size: str, mixture: str) -> ClaimTest:
    directory = evidence.tournament("scale")
    assert directory is not None
    planned = planned_pairs(directory, PAIRS)
    by_seed = cells(evidence.arms("scale"), size, mixture)
    names = {seed: f"{first}-vs-{second}-b8-n100"
             for seed, first, second in size_matches(size, mixture)}
    pooled = _pooled(mixture, list(by_seed.values()))  # its counts even without an estimate
    level = size_estimate(evidence.arms("scale"), planned, size, mixture).seeds_random
    seeds = ", ".join(str(s) for s in by_seed)
    if mixture == "staged":
        claim = (f"staged beats regular at {PARAMETERS[size]} parameters, both early-stopped "
                 f"(seeds {seeds}, each pairing trained afresh on both sides; the paper: "
                 f"+{PAPER_TABLE2['staged']:.0f} Elo at 5.8 M parameters, fixed epochs)")
    else:
        claim = (f"the shared-trunk mixture beats regular at {PARAMETERS[size]} parameters "
                 f"and the same cost a position, both early-stopped (seeds {seeds}; the paper "
                 "has no such network)")
    each = "; ".join(f"seed {seed}: {elo_interval(arm_estimate(names[seed], records))}"
                     for seed, records in by_seed.items() if records)
    note = ((f"by seed pairing {each}; " if each else "")
            + "pooled over these seeds (openings are the clusters); "
            + (f"with both sides' seeds random (t over {len(by_seed)} pairings): "
               f"{elo_interval(level)}" if level is not None
               else "the seeds-random interval once every pairing is played"))
    test = arm_claim(f"{TOPIC} {PARAMETERS[size]} parameters", claim, pooled, +1, note, POST_HOC)
    if not any(by_seed.values()):
        test = replace(test, claim=replace(test.claim, ours="no complete game pair yet"))
    state = _state({n: len(by_seed[s]) for s, n in names.items()},
                   {n: 2 * planned.get(n, PAIRS) for n in names.values()})
    cited = (f"{mixture} {elo_interval(pooled)} pooled over {len(by_seed)} seed pairings"
             + (f", {elo_interval(level)} with both sides' seeds random" if level else "")
             if not state else "")
    return replace(test, in_progress=state, cited=cited)


def _beside_row(evidence: Evidence) -> ClaimTest:
    directory = evidence.tournament("scale")
    assert directory is not None
    planned = planned_pairs(directory, PAIRS)
    arms = evidence.arms("scale")
    own = {seed_bundle(s): arms.get(beside_name(s), []) for s in CONTROL_SEEDS}
    seed9 = evidence.arms("settings").get(settings_match("regular", 8, NODES_BESIDE), [])
    matches = {"regular (seed 9, the settings design's)": seed9,
               **{f"{b} (this design's)": r for b, r in own.items()}}
    pooled = _pooled("staged", list(matches.values()))
    each = "; ".join(f"{label}: {elo_interval(arm_estimate(label, records))}"
                     for label, records in matches.items() if records)
    level = paired_seeds_estimate("staged", [r for r in matches.values()])
    note = ((f"against {each}; " if each else "")
            + "one staged network (seed 9) against three regular seeds on the settings "
              "design's openings; "
            + (f"with the regular network's seed random (t over 3 seeds): {elo_interval(level)}"
               if level is not None else "the seeds-random interval once every match is played"))
    claim = (f"staged beats regular at batch 8, {NODES_BESIDE} nodes over regular seeds 9, 10 "
             f"and 11 (pooled; the paper's Table 2 rests on one regular network)")
    test = arm_claim(THREE_SEEDS_TOPIC, claim, pooled, +1, note, POST_HOC)
    names = {beside_name(s): len(own[seed_bundle(s)]) for s in CONTROL_SEEDS}
    state = _state(names, {n: 2 * planned.get(n, PAIRS) for n in names})
    return replace(test, in_progress=state)


def claims(evidence: Evidence) -> list[ClaimTest]:
    """Per size (in parameter order) staged and then the shared-trunk mixture against the
    regular network, each pooled over its seed pairings (these seeds) with the estimate with
    both sides' seeds random in its note, then staged at 400 nodes over three regular seeds.
    A row is a test once every one of its pairings has played its planned games."""
    if evidence.tournament("scale") is None:
        return []
    return [*(_size_row(evidence, size, mixture) for size in by_parameters()
              for mixture in MIXTURES),
            _beside_row(evidence)]


DESIGN = Design(
    "scale", plan,
    profile="three network sizes (about 50 k, 201 k and 604 k parameters), each early-stopped "
            "on one recipe: staged and the shared-trunk mixture against the regular network of "
            "their size and seed (train them first: chessmoe train --profile small --controls "
            "--control scale), 200 games a pairing at batch 8 and 100 nodes on the powered "
            "openings; and staged against regular seeds 10 and 11 at 400 nodes on the settings "
            "openings, cutechess rules (3,200 games; registered before its first network "
            "trained)",
    registered=True, claims=claims, rows="scale",
    notes=TableNotes(registration=(
        "The scale rows (three network sizes, staged and the shared-trunk mixture against the "
        "regular network, and staged at 400 nodes over three regular seeds) were registered "
        "with their directions before the first of their networks trained; each joins the "
        "Holm family once every one of its pairings has played its planned games.")),
    awaited=tuple(scale_bundle(m, size, seed) for size in SCALE_SIZES
                  for seed in SCALE_SEEDS[size] for m in SCALE_METHODS))
