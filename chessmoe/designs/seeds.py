"""The seed grids: mixtures under several training seeds against the regular network under
several, read pairing by pairing. The replicated design plays staged's and weighted a=10's
grid against the regular network's seeds (:func:`seed_arms`); the seeds-long design plays
staged's against regular-long's. :func:`seed_note` says what a grid's pairings show one by
one and with both sides' seeds random; :func:`regular_seed_spread` how far the regular
network's seed alone moves one mixture's score.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from chessmoe.estimates import arm_estimate, elo_interval, seed_level_estimate, signed
from chessmoe.nets.names import CONTROL_SEEDS, SEEDED_METHODS, method_seed_bundle, seed_bundle
from chessmoe.records import GameRecord

__all__ = ["regular_seed_note", "regular_seed_spread", "seed_arms", "seed_note"]


def seed_arms(arms: dict[str, list[GameRecord]], method: str, setting: str = "b8-n100"
              ) -> dict[tuple[str, str], list[GameRecord]]:
    """``(method bundle, regular bundle) -> records`` of a replicated tournament's seed
    grid: the committed pair is the method's own arm, the others ``<a>-vs-<b>-<setting>``."""
    out: dict[tuple[str, str], list[GameRecord]] = {}
    for first in (method, *(method_seed_bundle(method, s) for s in CONTROL_SEEDS)):
        for second in ("regular", *(seed_bundle(s) for s in CONTROL_SEEDS)):
            name = (f"{method}-{setting}" if (first, second) == (method, "regular")
                    else f"{first}-vs-{second}-{setting}")
            if arms.get(name):
                out[(first, second)] = arms[name]
    return out



def seed_note(grid: Mapping[tuple[str, str], Sequence[GameRecord]], method: str,
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
            f"their Elo ranges {signed(min(spread))} to {signed(max(spread))}; {above} of "
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
    for method in SEEDED_METHODS:
        grid = seed_arms(replicated_arms, method, setting)
        for first in {a for a, _ in grid}:
            scores = [arm_estimate(b, r).score for (a, b), r in grid.items() if a == first]
            scores = [x for x in scores if not math.isnan(x)]
            if len(scores) >= 2:
                width = 100 * (max(scores) - min(scores))
                if best is None or width > best[0]:
                    best = (width, first)
    return best


def regular_seed_note(replicated_arms: dict[str, list[GameRecord]], method: str = "staged",
                      setting: str = "b8-n100") -> str:
    """Which regular network a row plays ("regular is training seed 9") and, from the
    replicated seed grid at ``setting``, the Elo range of ``method``'s seeds against each
    regular seed, so a row resting on one regular seed says where that seed stands."""
    grid = seed_arms(replicated_arms, method, setting)
    by_seed: dict[int, list[float]] = {}
    for (_, second), records in grid.items():
        seed = 9 if second == "regular" else int(second.rsplit("seed", 1)[1])
        elo = arm_estimate(second, records).elo
        if math.isfinite(elo):
            by_seed.setdefault(seed, []).append(elo)
    text = "regular is training seed 9"
    if len(by_seed) < 2 or 9 not in by_seed:
        return text

    def span(values: list[float]) -> str:
        low, high = min(values), max(values)
        return signed(low) if round(low) == round(high) else f"{signed(low)} to {signed(high)}"

    others = sorted(s for s in by_seed if s != 9)
    firsts = len({first for first, _ in grid})
    return (f"{text}; in the seed grid ({firsts} {method} seeds, {setting}) {method} "
            f"scores {span(by_seed[9])} Elo against it and "
            + ", ".join(f"{span(by_seed[s])} against seed {s}" for s in others))

