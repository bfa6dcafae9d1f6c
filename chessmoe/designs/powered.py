"""The ``powered`` design: a tournament that can decide something on 2 CPU cores.

Every arm plays the regular network at one node-limited setting, all drawing their openings
from one shared permutation of the embedded suite, so arms are paired by opening
(:func:`plan`). The committed tournament was played under the claim reading of the draw
rules; the replicated design replays it under cutechess's. Its arms' claims rows
(:func:`against_regular`, :func:`controls`) are read from the replicated tournament once that
is complete, else from this one; the replicated design orders them with its own
(:mod:`chessmoe.designs.replicated`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from chessmoe.designs.base import POWERED_SETTING, Design, Evidence, Pairing, Plan, Side, trained
from chessmoe.designs.rows import (
    EXPLORATORY,
    POST_HOC,
    ClaimTest,
    arm_claim,
    diff_claim,
    size_note,
)
from chessmoe.estimates import arm_estimate, paired_difference
from chessmoe.nets.bundles import expert_steps
from chessmoe.paper import TABLE2_ELO
from chessmoe.records import GameRecord

__all__ = ["DESIGN", "METHODS", "PAPER_TABLE2", "against_regular", "controls", "plan"]

#: The paper's four methods, each an arm against the regular network.
METHODS = ("separated", "staged", "weighted-a4", "weighted-a10")
#: Table 2's mean gain over its 55 settings (its last column) of each method.
PAPER_TABLE2 = {method: TABLE2_ELO[method][-1] for method in METHODS}
_PHASES = ("opening", "middlegame", "endgame")
_DEFINITIONS = ("movecount2", "movecount3", "movecount4", "movecount5")


def plan(experts_root: str | os.PathLike[str], *, pairs: int = 200, arm_pairs: int = 100,
         draw_rules: Literal["claim", "cutechess"] = "claim", name: str = "powered") -> Plan:
    """The powered arms over the bundles under ``experts_root``, every one against the
    regular network at batch 8 and 100 nodes (:data:`~chessmoe.designs.base.POWERED_SETTING`:
    the paper's default batch size and its cheapest node limit, where a 2-core machine plays
    the most games):

    * the four methods (:data:`METHODS`): ``pairs`` pairs each (400 games from 200 openings
      by default);
    * the single-expert ablation (Fig. 6/29), the phase definitions (Fig. 7: move-count
      experts; the Lichess arm is the separated method's), the routings (split and soft;
      majority is the separated method's) and the gate table (the authors' ``engine`` table;
      the ``lichess`` table is the separated method's): ``arm_pairs`` pairs each (200 games);
    * the controls: separated experts trained for as many iterations as the regular network
      (``separated-long``), ``pairs`` pairs; the regular network trained for their total
      (``regular-long``), ``arm_pairs`` pairs.

    An arm whose bundle is not trained is left out, but for the ablation, routing and gate
    arms of ``separated``."""
    batch, nodes = POWERED_SETTING
    group = f"b{batch}-n{nodes}"

    def arm(name: str, bundle: str, count: int, labels: tuple[tuple[str, Any], ...],
            **extra: Any) -> Pairing:
        return Pairing(name, Side(name.split("-b")[0], bundle, batch, nodes, **extra),
                       Side("regular", "regular", batch, nodes), count, group,
                       (*labels, ("batch_size", batch), ("nodes", nodes), ("movetime", None)))

    def exists(bundle: str) -> bool:
        return trained(experts_root, bundle)

    matches = [arm(f"{m}-{group}", m, pairs, (("kind", "method"), ("method", m)))
               for m in METHODS if exists(m)]
    matches += [arm(f"only-{_PHASES[k]}-{group}", "separated", arm_pairs,
                    (("kind", "ablation"), ("expert", _PHASES[k]), ("phase", k)),
                    single_expert=k, baseline="regular") for k in range(3)]
    matches += [arm(f"definition-{d}-{group}", f"separated-{d}", arm_pairs,
                    (("kind", "definition"), ("definition", d)))
                for d in _DEFINITIONS if exists(f"separated-{d}")]
    matches += [arm(f"routing-{r}-{group}", "separated", arm_pairs,
                    (("kind", "routing"), ("routing", r)), routing=r)
                for r in ("split", "soft")]
    matches.append(arm(f"gate-engine-{group}", "separated", arm_pairs,
                       (("kind", "gate"), ("gate", "engine")), gate="engine"))
    if exists("separated-long"):
        matches.append(arm(f"separated-long-{group}", "separated-long", pairs,
                           (("kind", "control"), ("method", "separated-long"))))
    if exists("regular-long"):
        matches.append(arm(f"regular-long-{group}", "regular-long", arm_pairs,
                           (("kind", "control"), ("method", "regular-long"))))
    return Plan(name, tuple(matches), draw_rules=draw_rules)


def against_regular(arms: Mapping[str, list[GameRecord]], setting: str) -> list[ClaimTest]:
    """Each method against the regular network (Table 2), the paper's mean beside ours."""
    tests = []
    for method, paper in PAPER_TABLE2.items():
        records = arms.get(f"{method}-{setting}")
        if not records:
            continue
        e = arm_estimate(method, records)
        note, inside = size_note(paper, e)
        tests.append(replace(arm_claim("MoE vs regular", f"{method} beats regular: "
                                       f"+{paper:.0f} Elo (Table 2, mean of 55 settings)", e,
                                       +1, note), size_inside=inside))
    return tests


def _separated_budget(experts: Path) -> str:
    """The separated experts' training steps against the regular network's, from the
    bundles' manifests ('' where either is missing)."""
    separated, regular = expert_steps(experts / "separated"), expert_steps(experts / "regular")
    if not separated or len(regular) != 1:
        return ""
    return (f"the separated experts are under-trained here: {min(separated):,}-"
            f"{max(separated):,} steps each against the regular network's {regular[0]:,} "
            "(each trains on its phase's third of the data at the same epoch budget; the "
            "separated-long control gives each the regular network's steps)")


def controls(evidence: Evidence, arms: Mapping[str, list[GameRecord]], long_seeds: str
             ) -> list[ClaimTest]:
    """The ablation (Fig. 6), the phase definitions (Fig. 7), the routings and the gate
    table, the separated experts given the regular network's iterations, and each method
    against regular-long (equal compute via the regular network; ``long_seeds``: what the
    one-seed regular-long says about seeds)."""
    setting = evidence.setting
    tests = []
    budget = _separated_budget(evidence.experts)
    for expert, sign, says in (("opening", 0, "no gain or slightly worse"),
                               ("middlegame", 1, "clear gain"), ("endgame", 1, "clear gain")):
        records = arms.get(f"only-{expert}-{setting}")
        if records:
            tests.append(arm_claim("single expert (Fig. 6)", f"only the {expert} expert: "
                                   f"{says}", arm_estimate(expert, records), sign, budget))
    separated = arms.get(f"separated-{setting}")
    for k in (2, 3, 4, 5):
        other = arms.get(f"definition-movecount{k}-{setting}")
        if separated and other:
            tests.append(diff_claim("phase definition (Fig. 7)",
                                    f"the Lichess gate beats {k} move-count phases",
                                    f"Lichess minus movecount{k}",
                                    paired_difference(separated, other), +1))
    for routing in ("split", "soft"):
        other = arms.get(f"routing-{routing}-{setting}")
        if separated and other:
            tests.append(diff_claim("routing (sec. 4)", f"{routing} routing instead of the "
                                    "majority vote (the paper does not test it)",
                                    f"{routing} minus majority",
                                    paired_difference(other, separated), None,
                                    kind=EXPLORATORY))
    gate = arms.get(f"gate-engine-{setting}")
    if separated and gate:
        tests.append(diff_claim("gate table (docs/phases.md)", "the authors' engine mixedness "
                                "table as the gate instead of the training table (not "
                                "compared in the paper)", "engine minus lichess table",
                                paired_difference(gate, separated), None, kind=EXPLORATORY))
    long = arms.get(f"separated-long-{setting}")
    if separated and long:
        tests.append(diff_claim("iterations per expert", "separated experts given the "
                                "regular network's iterations each score higher than the "
                                "separated experts (consistent with data starvation; not "
                                "a causal test)", "separated-long minus separated",
                                paired_difference(long, separated), +1,
                                "same data, three times the iterations", POST_HOC))
        tests.append(arm_claim("iterations per expert", "with the regular network's "
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
        tests.append(diff_claim("equal training compute, via the regular network",
                                f"{method} beats regular-long (the regular network trained "
                                "for three times its iterations; the paper has no such "
                                "control)", f"{method} minus regular-long",
                                paired_difference(records, regular_long), +1, compute,
                                POST_HOC))
    return tests


DESIGN = Design(
    "powered", plan,
    profile="the small experts in a tournament that can decide: 400 games per method, "
            "200 per ablation/definition/routing/gate arm, paired openings (~3 h on 2 cores)")
