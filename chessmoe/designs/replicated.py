"""The ``replicated`` design, and the claims table's main rows.

The powered design replayed under cutechess's draw rules, with the evidence a single seed and
a common opponent cannot give: a seed grid, and the equal-compute arms head to head with
``regular-long`` (:func:`plan`). The claims table's main rows (:func:`claims`) come from the
powered arms, this design's arms and the seeds-long design's row; the README's answer
(:mod:`chessmoe.report.answer`) opens with them (:data:`MAIN_TOPICS`).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from chessmoe.designs import powered, seeds_long
from chessmoe.designs.base import Design, Evidence, Plan, trained, versus
from chessmoe.designs.rows import POST_HOC, ClaimTest, arm_claim, size_note
from chessmoe.designs.seeds import seed_arms, seed_note
from chessmoe.estimates import arm_estimate, pooled_estimate
from chessmoe.nets.names import (
    CONTROL_SEEDS,
    REGULAR_LONG,
    SEEDED_METHODS,
    SEPARATED_LONG,
    method_seed_bundle,
    seed_bundle,
)
from chessmoe.played import complete, load_arms, planned_games, read_plan
from chessmoe.records import GameRecord

__all__ = ["DESIGN", "EXTRA_KINDS", "MAIN_TOPICS", "SEEDS_TOPIC", "baseline_arms", "claims",
           "plan", "primary_tournament"]

#: The claims table's topics the answer shows: each mixture against the regular network, and
#: each against one network trained for the mixture's total steps, played directly.
MAIN_TOPICS: tuple[str, ...] = ("MoE vs regular", "equal training compute, head to head")
#: The claims table's topic of the mixtures against the regular network under three seeds each.
SEEDS_TOPIC = "MoE vs regular, across seeds"
#: Match kinds (``labels.kind`` in a tournament's ``spec.json``) that are not the powered
#: design's arms against the regular network: the seed grid and the head-to-head games.
EXTRA_KINDS = ("seed", "head-to-head")
HEAD_TO_HEAD = ("staged", "weighted-a4", "weighted-a10", SEPARATED_LONG)


def plan(experts_root: str | os.PathLike[str], *, pairs: int = 200, arm_pairs: int = 100) -> Plan:
    """The replicated arms, all on one shared opening permutation (every arm paired by
    opening with every other); arms whose bundles are not trained are left out (they join
    when trained):

    * every powered arm (:func:`chessmoe.designs.powered.plan`) under cutechess's rules, same
      names, same openings;
    * **seeds**: staged and weighted a=10 under their three seeds (the committed bundle and
      ``<method>-seed10/11``) against each of the regular network's three seeds (``regular``,
      ``regular-seed10/11``): ``pairs`` pairs each, named
      ``<method>[-seedN]-vs-regular[-seedM]-b8-n100`` (the seed-9 pairs are the powered method
      arms themselves);
    * **equal compute head to head**: staged, weighted a=4, a=10 and separated-long against
      ``regular-long`` (the regular network trained for their total iterations), ``arm_pairs``
      pairs each, named ``<method>-vs-regular-long-b8-n100``."""
    base = powered.plan(experts_root, pairs=pairs, arm_pairs=arm_pairs, draw_rules="cutechess",
                        name="replicated")

    def exists(name: str) -> bool:
        return trained(experts_root, name)

    regulars = ["regular", *(seed_bundle(s) for s in CONTROL_SEEDS)]
    matches = list(base.matches)
    for method in SEEDED_METHODS:
        for first in (method, *(method_seed_bundle(method, s) for s in CONTROL_SEEDS)):
            for second in regulars:
                if (first, second) == (method, "regular") or not (exists(first)
                                                                 and exists(second)):
                    continue
                matches.append(versus(first, second, pairs,
                                      (("kind", "seed"), ("method", method),
                                       ("first", first), ("second", second))))
    for method in HEAD_TO_HEAD:
        if exists(method) and exists(REGULAR_LONG):
            matches.append(versus(method, REGULAR_LONG, arm_pairs,
                                  (("kind", "head-to-head"), ("method", method),
                                   ("first", method), ("second", REGULAR_LONG))))
    return replace(base, matches=tuple(matches))


def primary_tournament(tournament: str | os.PathLike[str],
                       replicated: str | os.PathLike[str] | None) -> Path:
    """The tournament the main arms are read from: the replicated one (cutechess draw rules)
    once every planned game of it is played, else ``tournament``."""
    if replicated is not None and complete(Path(replicated)):
        return Path(replicated)
    return Path(tournament)


def baseline_arms(tournament: str | os.PathLike[str]) -> dict[str, list[GameRecord]]:
    """The powered design's arms of a tournament (every arm against the regular network,
    one opening group): its matches less those whose ``spec.json`` kind is in
    :data:`EXTRA_KINDS`. The powered and replicated tournaments give the same arm names."""
    if not Path(tournament).is_dir():
        return {}
    arms = load_arms(tournament)
    spec = read_plan(tournament)
    extra = ({m.name for m in spec.matches if m.kind in EXTRA_KINDS}
             if spec is not None else set())
    return {name: records for name, records in arms.items() if name not in extra}


def _primary(evidence: Evidence) -> str:
    """The design whose tournament the main arms are read from."""
    replicated = evidence.tournament("replicated")
    return ("replicated" if replicated is not None and complete(replicated) else "powered")


def _running(evidence: Evidence) -> str:
    """The state of a replicated tournament still being played ('' once complete): its rows
    are shown, but are not tests until it has played its planned games (deciding while the
    sample grows would inflate the error)."""
    replicated, arms = evidence.tournament("replicated"), evidence.arms("replicated")
    if not arms or replicated is None or complete(replicated):
        return ""
    played = sum(len(r) for r in arms.values())
    return (f"in progress: {played:,} of {planned_games(replicated) or 0:,} planned "
            "games of the replicated tournament")


def seed_rows(evidence: Evidence) -> list[ClaimTest]:
    """Each seeded mixture against the regular network over the seeds played of both."""
    tests = []
    for method in SEEDED_METHODS:
        grid = seed_arms(evidence.arms("replicated"), method, evidence.setting)
        if len(grid) < 2:
            continue
        pooled = pooled_estimate(method, list(grid.values()))
        paper = powered.PAPER_TABLE2[method]
        size, inside = size_note(paper, pooled)
        tests.append(replace(arm_claim(SEEDS_TOPIC, f"{method} beats regular over the "
                                       "training seeds played of both (pooled: these seeds): "
                                       f"+{paper:.0f} Elo (Table 2, mean of 55 settings)",
                                       pooled, +1, f"{size} (these seeds); "
                                       + seed_note(grid, method, "regular")),
                             in_progress=_running(evidence), size_inside=inside))
    return tests


def head_to_head(evidence: Evidence, long_seeds: str) -> list[ClaimTest]:
    """Each method against regular-long played directly (equal total training)."""
    tests = []
    for method in HEAD_TO_HEAD:
        records = evidence.arms("replicated").get(f"{method}-vs-regular-long-{evidence.setting}")
        if records:
            tests.append(replace(arm_claim(MAIN_TOPICS[1], f"{method} beats regular-long "
                                           "played directly (equal total training; the paper "
                                           "has no such control)",
                                           arm_estimate(method, records), +1,
                                           f"equal total training; {long_seeds}", POST_HOC),
                                 in_progress=_running(evidence)))
    return tests


def claims(evidence: Evidence) -> list[ClaimTest]:
    """The main rows: the powered arms against the regular network, the seed grid, the
    powered controls, the head-to-head arms and the seeds-long row, in that order. The
    powered arms are read from the replicated tournament once every planned game of it is
    played, else from the powered one (:func:`primary_tournament`); the seed grid and the
    head-to-head arms are shown while it is played, tests once it is complete."""
    arms = evidence.arms(_primary(evidence))
    long_seeds = seeds_long.regular_long_note(evidence)
    across = seeds_long.row(evidence)
    return [*powered.against_regular(arms, evidence.setting), *seed_rows(evidence),
            *powered.controls(evidence, arms, long_seeds), *head_to_head(evidence, long_seeds),
            *([across] if across is not None else [])]


def sources(evidence: Evidence) -> list[tuple[Path, str]]:
    """The main arms' tournament, and the replicated one where the seed grid and the
    head-to-head arms come from another."""
    primary = evidence.tournament(_primary(evidence))
    replicated = evidence.tournament("replicated")
    if primary is None:
        return []
    if replicated is not None and replicated != primary:
        return [(primary, "main arms"), (replicated, "seed grid and the head-to-head arms")]
    return [(primary, "")]


DESIGN = Design(
    "replicated", plan,
    profile="the powered design replayed under cutechess's draw rules (a re-adjudication of "
            "the same deterministic games, not an independent replication), with staged and "
            "weighted a=10 under three seeds against the regular network's three seeds and the "
            "equal-compute arms head to head with regular-long (~11,400 games, ~13 h on 2 "
            "cores; resumable)",
    claims=claims, sources=sources)
