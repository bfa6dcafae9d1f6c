"""The ``matched`` design: the parameter-matched single network.

Staged against ``regular-wide`` (the regular network widened to the mixture's three experts'
parameters and trained for ``regular-long``'s steps) at batch 8 with 100 nodes (equal nodes)
and with :data:`MOVETIME` ms a move (equal time: the wide network is slower per node, so it
searches fewer nodes; each game record holds both sides' nodes a move), and ``regular-wide``
against ``regular-long`` at 100 nodes (the same steps, three times the parameters), 100 pairs
each, under cutechess's draw rules (:data:`MATCHES`). Every match draws its openings from one
shared permutation (the fresh group ``matched``), so the three are paired by opening. The
design is registered: every match is listed whether or not its bundles are trained, and its
claims rows were registered before its first game.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from chessmoe.designs import seeds_long
from chessmoe.designs.base import Design, Evidence, Pairing, Plan, Side, TableNotes
from chessmoe.designs.rows import POST_HOC, ClaimTest, arm_claim, registered
from chessmoe.estimates import arm_estimate
from chessmoe.nets.names import REGULAR_LONG, REGULAR_WIDE
from chessmoe.played import planned_pairs
from chessmoe.records import GameRecord, mean_nodes

__all__ = ["DESIGN", "GROUP", "MATCHES", "MOVETIME", "PAIRS", "TOPIC", "match_name", "plan"]

#: The move time (ms) at equal time: the paper's shortest. Measured before registration with
#: the committed staged bundle (native search, ONNX Runtime, one thread, batch 8, 24 sample
#: positions on the 2-core CPU at a load of about 2.5): 237 nodes a move on average (194-295);
#: 200 ms gave 519. ``regular-wide`` costs about 4.4 times as much per node
#: (``benchmarks/wide_nodes.py``), so it is expected near 55.
MOVETIME = 100
#: The matches, in the order its rows are read: ``(first, second, batch size, nodes, move
#: time ms)``. Staged against ``regular-wide`` at equal nodes and at equal move time, and
#: ``regular-wide`` against ``regular-long`` at equal nodes (what the width alone buys).
MATCHES: tuple[tuple[str, str, int, int | None, int | None], ...] = (
    ("staged", REGULAR_WIDE, 8, 100, None),
    ("staged", REGULAR_WIDE, 8, None, MOVETIME),
    (REGULAR_WIDE, REGULAR_LONG, 8, 100, None))
#: The one opening group: a fresh draw shared by its matches (not the powered ``b8-n100`` nor
#: the settings group), so the three are paired by opening.
GROUP = "matched"
#: Game pairs of each match (its design's own, registered before its games).
PAIRS = 100
TOPIC = "parameter-matched network"


def match_name(first: str, second: str, batch: int, nodes: int | None,
               movetime: int | None) -> str:
    """The name of one match: ``staged-vs-regular-wide-b8-n100``,
    ``staged-vs-regular-wide-b8-t100``."""
    return f"{first}-vs-{second}-b{batch}-" + (f"n{nodes}" if nodes else f"t{movetime}")


def plan(experts_root: str | os.PathLike[str], *, pairs: int = PAIRS) -> Plan:
    """Every match of :data:`MATCHES`, trained or not."""
    return Plan("matched", tuple(
        Pairing(match_name(first, second, batch, nodes, movetime),
                Side(first, first, batch, nodes, movetime),
                Side(second, second, batch, nodes, movetime), pairs, GROUP,
                (("kind", "matched"), ("first", first), ("second", second),
                 ("batch_size", batch), ("nodes", nodes), ("movetime", movetime)))
        for first, second, batch, nodes, movetime in MATCHES))


def _nodes_note(records: Sequence[GameRecord], first: str, second: str) -> str:
    """The mean nodes a move each side searched in a match ('' before any game)."""
    a, b = mean_nodes(records)
    if a is None or b is None:
        return ""
    return f"nodes a move (mean over the match's searches): {first} {a:,.0f}, {second} {b:,.0f}"


def claims(evidence: Evidence) -> list[ClaimTest]:
    """One row a match; each is a test once its own match has played its planned games; the
    notes give each side's mean nodes a move from the records (at equal time the wide
    network searches fewer)."""
    directory = evidence.tournament("matched")
    if directory is None:
        return []
    arms = evidence.arms("matched")
    planned = planned_pairs(directory, PAIRS)
    tests = []
    for first, second, batch, nodes, movetime in MATCHES:
        name = match_name(first, second, batch, nodes, movetime)
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
            note = seeds_long.regular_long_note(evidence)
        nodes_note = _nodes_note(records, first, second)
        test = arm_claim(TOPIC, claim, e, +1, "; ".join(n for n in (nodes_note, note) if n),
                         POST_HOC)
        tests.append(registered(test, records, 2 * planned.get(name, PAIRS)))
    return tests


DESIGN = Design(
    "matched", plan,
    profile="the parameter-matched single network: staged against regular-wide (the "
            "mixture's parameters in one network, regular-long's steps; train it first: "
            "chessmoe train --profile small --control regular-wide) at batch 8 with 100 nodes "
            "and with 100 ms a move (the records hold each side's nodes a move), and "
            "regular-wide against regular-long at 100 nodes (same steps, three times the "
            "parameters), 200 games a match on one fresh shared opening draw, cutechess rules "
            "(600 games; registered before its first game)",
    registered=True, claims=claims, rows="parameter-matched",
    notes=TableNotes(registration=(
        "The parameter-matched rows (staged against regular-wide, one network with the "
        "mixture's parameters, at equal nodes and at equal move time; regular-wide against "
        "regular-long) and the trained-to-convergence rows (staged and weighted a = 10 "
        "against the regular network, all trained until their validation loss stopped "
        "improving; that network against the regular one) were registered likewise, before "
        "their networks were trained; each joins the family once its own match has played "
        "its planned games.")))
