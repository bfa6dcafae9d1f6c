"""The ``converged`` design: the powered comparisons for networks trained until convergence.

``staged-converged`` and ``weighted-a10-converged`` against ``regular-converged`` (the
powered method arms), and ``regular-converged`` against the profile's ``regular`` network
(the powered ``regular-long`` arm: what training to convergence buys the single network), 200
pairs each (400 games, the powered design's count a method) at the powered setting under
cutechess's draw rules, named ``<first>-vs-<second>-b8-n100`` (:func:`grid`). The openings
are the powered design's group ``b8-n100`` (the same seed), so each arm is paired by opening
with the powered and replicated tournaments' fixed-length arms. The design is registered:
every match is listed before its bundles are trained, and its claims rows exist before its
first game; the runs in progress list its networks not yet begun once one of them has begun.
"""

from __future__ import annotations

import os
from pathlib import Path

from chessmoe.designs.base import Design, Evidence, Plan, TableNotes, versus
from chessmoe.designs.powered import PAPER_TABLE2
from chessmoe.designs.rows import (
    POST_HOC,
    ClaimTest,
    arm_claim,
    registered,
)
from chessmoe.estimates import arm_estimate
from chessmoe.nets.bundles import bundle_losses, convergence_text, read_manifest
from chessmoe.nets.names import (
    CONVERGED_METHODS,
    CONVERGED_SUFFIX,
    REGULAR_LONG,
    converged_bundle,
)
from chessmoe.played import planned_pairs

__all__ = ["BUNDLES", "DESIGN", "GROUP", "PAIRS", "TOPIC", "grid", "match_name", "plan",
           "regime_note"]

#: The opening group: the powered design's (batch 8, 100 nodes, the same seed), so each
#: converged arm is paired by opening with the fixed-length arms of the powered and
#: replicated tournaments.
GROUP = "b8-n100"
#: Game pairs of each match: the powered design's 400 games a method.
PAIRS = 200
TOPIC = "trained to convergence"
#: The bundles the design plays, each trained until its validation loss stopped improving.
BUNDLES: tuple[str, ...] = tuple(converged_bundle(m) for m in CONVERGED_METHODS)


def grid() -> list[tuple[str, str]]:
    """The matches as ``(first, second)`` bundles, in the order its rows are read: each
    converged mixture against the converged regular network (the powered design's method
    arms), then the converged regular network against the profile's regular network (the
    powered design's ``regular-long`` arm: what the longer training buys)."""
    regular = converged_bundle("regular")
    return [*((converged_bundle(m), regular) for m in CONVERGED_METHODS if m != "regular"),
            (regular, "regular")]


def match_name(first: str, second: str) -> str:
    """The name of ``first`` against ``second``:
    ``staged-converged-vs-regular-converged-b8-n100``."""
    return f"{first}-vs-{second}-{GROUP}"


def plan(experts_root: str | os.PathLike[str], *, pairs: int = PAIRS) -> Plan:
    """Every match of :func:`grid`, trained or not."""
    return Plan("converged", tuple(
        versus(first, second, pairs, (("kind", "converged"), ("first", first),
                                      ("second", second)), name=match_name(first, second))
        for first, second in grid()))


def claims(evidence: Evidence) -> list[ClaimTest]:
    """Each converged mixture against the converged regular network (the paper's claim,
    tested where both are trained until their validation loss stops improving) and the
    converged regular network against the profile's regular network. Each is a test once its
    own match has played its planned games; the notes say how long each network trained
    (its manifest)."""
    directory = evidence.tournament("converged")
    if directory is None:
        return []
    arms = evidence.arms("converged")
    planned = planned_pairs(directory, PAIRS)
    experts = evidence.experts
    tests = []
    for first, second in grid():
        name = match_name(first, second)
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
        test = arm_claim(TOPIC, claim, e, +1, note, POST_HOC)
        tests.append(registered(test, records, 2 * planned.get(name, PAIRS)))
    return tests


def regime_note(experts: Path) -> str:
    """The regime every claims row's networks were trained in: the profile's fixed length,
    except this design's bundles (each trained until its validation loss stopped improving);
    with regular-long's and the converged regular network's no-phases test losses where both
    are evaluated (Table 1)."""
    note = ("Regime: every network behind these rows was trained for its profile's fixed "
            "length (compute-limited: regular-long for 3 times the regular network's steps), "
            "except " + ", ".join(BUNDLES[:-1]) + " and " + BUNDLES[-1]
            + " (the trained-to-convergence rows' "
            "networks, each trained until its validation loss stopped improving: the "
            "data-limited regime; the row against `regular` plays one of them against the "
            "fixed-length network).")
    losses = {b: bundle_losses(experts / b) for b in (REGULAR_LONG, BUNDLES[0], "regular")}
    found = {b: v["no-phases"].loss for b, v in losses.items() if v and "no-phases" in v}
    if len(found) == 3 and found["regular"] > found[BUNDLES[0]]:
        closed = ((found["regular"] - found[REGULAR_LONG])
                  / (found["regular"] - found[BUNDLES[0]]))
        note += (f" Table 1's no-phases test loss: regular {found['regular']:.4f}, "
                 f"{REGULAR_LONG} {found[REGULAR_LONG]:.4f}, {BUNDLES[0]} "
                 f"{found[BUNDLES[0]]:.4f}: regular-long closes {100 * closed:.0f} % of the "
                 "regular network's gap to the converged one.")
    return note


DESIGN = Design(
    "converged", plan,
    profile="the data-limited regime: staged and weighted a=10 trained until their "
            "validation loss stopped improving against the regular network trained so (train "
            "them first: chessmoe train --profile small --control converged), and that network "
            "against the regular one, 400 games a match at batch 8 and 100 nodes on the "
            "powered tournament's openings, cutechess rules (1,200 games; registered before "
            "its first game)",
    registered=True, claims=claims, rows="trained-to-convergence",
    notes=TableNotes(regime=regime_note), awaited=BUNDLES)
