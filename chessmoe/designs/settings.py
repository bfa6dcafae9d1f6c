"""The ``settings`` design: the staged mixture beyond the powered setting.

Staged against the regular network and against ``regular-long`` (equal training compute) at
100, 400 and 1,600 nodes with batch 8, and at batch 1 and 32 with 400 nodes (:data:`SETTINGS`),
100 pairs each (200 games from 100 openings), under cutechess's draw rules. Every match draws
its openings from one shared permutation of the embedded suite (opening group ``settings``, a
fresh draw, not the powered design's ``b8-n100``), so the two opponents and every setting are
paired by opening. Matches are in :data:`SETTINGS` order, the cheap settings first; a match
whose bundles are not trained is left out. Its claims rows were registered before its first
game: staged against the regular network at each setting (the paper's Table 2 mean at that
batch size beside ours) and against regular-long.
"""

from __future__ import annotations

import math
import os
from dataclasses import replace
from pathlib import Path

from chessmoe.designs import seeds_long
from chessmoe.designs.base import Design, Evidence, Pairing, Plan, Side, TableNotes, trained
from chessmoe.designs.rows import (
    POST_HOC,
    ClaimTest,
    arm_claim,
    registered,
    size_note,
)
from chessmoe.designs.seeds import regular_seed_note
from chessmoe.estimates import arm_estimate
from chessmoe.nets.names import REGULAR_LONG
from chessmoe.paper import BATCH_SIZES, TABLE2_ELO
from chessmoe.played import load_arms, planned_pairs
from chessmoe.records import GameRecord

__all__ = ["DESIGN", "GROUP", "OPPONENTS", "PAIRS", "SETTINGS", "THREE_SEEDS_NODES",
           "THREE_SEEDS_TOPIC", "TOPIC",
           "match_name", "plan", "settings_arms"]

#: The design's search settings (batch size, nodes per move), in the order its rows are read:
#: the node limits at batch 8, then the batch sizes at 400 nodes.
SETTINGS: tuple[tuple[int, int], ...] = ((8, 100), (8, 400), (8, 1600), (1, 400), (32, 400))
#: The opponents staged plays at every setting: the regular network, and the regular network
#: trained for the mixture's total steps (equal training compute).
OPPONENTS: tuple[str, ...] = ("regular", REGULAR_LONG)
#: The design's one opening group (not ``b8-n100``: its openings are drawn afresh, not the
#: powered and replicated tournaments' first 200).
GROUP = "settings"
#: Game pairs of each match (a match its ``spec.json`` does not list yet is read at this size:
#: the design's own, registered before the match began).
PAIRS = 100
#: The claims table's topics of the design start so.
TOPIC = "settings:"
#: The scale design's row that plays this design's batch-8, 400-node setting against regular
#: seeds 9, 10 and 11 (declared here, where the rows that cite it are built).
THREE_SEEDS_TOPIC = "scale: 400 nodes over three regular seeds"
#: The node limit of that row (at batch 8).
THREE_SEEDS_NODES = 400


def match_name(opponent: str, batch: int, nodes: int) -> str:
    """The name of staged against ``opponent`` at one setting:
    ``staged-vs-regular-long-b1-n400``."""
    return f"staged-vs-{opponent}-b{batch}-n{nodes}"


def plan(experts_root: str | os.PathLike[str], *, pairs: int = PAIRS) -> Plan:
    """Staged against each opponent at each setting, where both bundles are trained."""
    return Plan("settings", tuple(
        Pairing(match_name(opponent, batch, nodes), Side("staged", "staged", batch, nodes),
                Side(opponent, opponent, batch, nodes), pairs, GROUP,
                (("kind", "settings"), ("method", "staged"), ("first", "staged"),
                 ("second", opponent), ("batch_size", batch), ("nodes", nodes),
                 ("movetime", None)))
        for batch, nodes in SETTINGS for opponent in OPPONENTS
        if trained(experts_root, "staged") and trained(experts_root, opponent)))


def settings_arms(directory: str | Path) -> dict[tuple[str, int, int], list[GameRecord]]:
    """``(opponent, batch, nodes) -> records`` of a settings tournament directory (every
    match of :data:`SETTINGS` x opponents that has a game)."""
    arms = load_arms(directory) if Path(directory).is_dir() else {}
    return {(opponent, batch, nodes): arms[match_name(opponent, batch, nodes)]
            for batch, nodes in SETTINGS for opponent in OPPONENTS
            if arms.get(match_name(opponent, batch, nodes))}


def claims(evidence: Evidence) -> list[ClaimTest]:
    """For every setting, staged against the regular network and against regular-long. A
    row is a test once its own match has played its planned games (each match's size is
    fixed by the design, so no row is decided while its sample grows); before that it is
    shown as not played or in progress."""
    directory = evidence.tournament("settings")
    if directory is None:
        return []
    arms = settings_arms(directory)
    planned = planned_pairs(directory, PAIRS)
    long_seeds = seeds_long.regular_long_note(evidence)
    regular_seed = regular_seed_note(evidence.arms("replicated"))
    tests = []
    for batch, nodes in SETTINGS:
        for opponent in OPPONENTS:
            name = match_name(opponent, batch, nodes)
            records = arms.get((opponent, batch, nodes), [])
            games = 2 * planned.get(name, PAIRS)
            e = arm_estimate(name, records)
            if opponent == "regular":
                paper = TABLE2_ELO["staged"][BATCH_SIZES.index(batch)]
                claim = f"staged beats regular at batch {batch}, {nodes} nodes (paper: " \
                        f"+{paper:.0f} Elo, Table 2's mean over batch {batch}'s 11 limits)"
                # compared with the paper only once complete: an interim interval is no
                # reading (a match is read at its fixed size)
                size, inside = size_note(paper, e, f"batch-{batch} mean ")
                complete = not math.isnan(e.elo) and len(records) >= games
                three = (f"; over regular seeds 9, 10 and 11: the row '{THREE_SEEDS_TOPIC}'"
                         if (batch, nodes) == (8, THREE_SEEDS_NODES) else "")
                note = "; ".join(x for x in (size if complete else "", regular_seed) if x)
                test = replace(arm_claim(f"{TOPIC} MoE vs regular", claim, e, +1,
                                         note + three),
                               size_inside=inside if complete else None)
            else:
                claim = (f"staged beats regular-long at batch {batch}, {nodes} nodes (equal "
                         "total training; the paper has no such control)")
                test = arm_claim(f"{TOPIC} equal compute, head to head", claim, e, +1,
                                 long_seeds, POST_HOC)
            tests.append(registered(test, records, games))
    return tests


DESIGN = Design(
    "settings", plan,
    profile="staged against the regular network and against regular-long (equal compute) at "
            "100, 400 and 1,600 nodes with batch 8 and at batch 1 and 32 with 400 nodes, 200 "
            "games a match on one shared opening draw, cutechess rules (2,000 games; the "
            "1,600-node matches cost about 16 times the 100-node ones; resumable, --match plays "
            "some first)",
    registered=True, claims=claims, rows="settings",
    notes=TableNotes(registration=(
        "The settings rows (staged against regular and regular-long at other node limits and "
        "batch sizes) and the equal-compute across-seeds row were registered in this table, "
        "with their hypotheses and directions, before their first game. A settings row joins "
        "the Holm family once its own match has played its planned games; the across-seeds "
        "row once every pairing has. As rows join, the family grows and every adjusted p can "
        "only rise.")))
