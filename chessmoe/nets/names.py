"""Names of the control bundles under ``results/experts/<profile>/``, and the names the
tournament designs give the matches between them (one home, torch-free, so players, designs
and reports name them alike without importing the trainer, and the reports without importing
the players).

* ``regular-seed<N>``: the regular network under another seed;
* ``<method>-seed<N>``: a mixture (staged, weighted a=10) under another seed;
* ``separated-long`` / ``regular-long``: the equal-iteration and equal-compute controls;
* ``regular-long-seed<N>``: the equal-compute regular network under another seed;
* ``weighted-a<a>-balanced``: weighted learning with the weights rescaled to mean 1 over the
  training data's phase shares (:func:`chessmoe.nets.recipes.balanced_phase_weights`);
* ``regular-wide``: one network with the mixture's parameters (the profile's network widened
  to three times its parameter count), trained for ``regular-long``'s steps;
* ``<method>-converged`` (``regular-converged``, ``staged-converged``,
  ``weighted-a10-converged``): the method trained until its validation loss stops improving
  instead of for the profile's fixed epochs.

The profile's own seed (9) is the bundle without a suffix (``regular``, ``staged``, ...).

The settings design (:data:`SETTINGS`, :func:`settings_match`), the equal-compute seed grid
(:func:`seeds_long_grid`), the parameter-matched design (:data:`MATCHED`,
:func:`matched_match`), the converged design (:func:`converged_grid`,
:func:`converged_match`) and the rating list's Stockfish players (:data:`RATING_ANCHOR`,
:data:`RATING_CHECK`) are played by :mod:`chessmoe.play.designs` and read by
:mod:`chessmoe.report` under these names; :func:`control_of` and :func:`train_command` say
which ``chessmoe train`` makes a bundle.
"""

from __future__ import annotations

__all__ = ["BALANCED_SUFFIX", "CONTROL_SEEDS", "CONVERGED_GROUP", "CONVERGED_METHODS",
           "CONVERGED_PAIRS", "CONVERGED_SUFFIX", "MATCHED", "MATCHED_GROUP",
           "MATCHED_MOVETIME", "MATCHED_PAIRS", "RATING_ANCHOR", "RATING_CHECK",
           "REGULAR_BF16", "REGULAR_LONG", "REGULAR_WIDE", "SEEDED_METHODS", "SEPARATED_LONG",
           "SETTINGS",
           "SETTINGS_GROUP", "SETTINGS_OPPONENTS", "SETTINGS_PAIRS", "control_of",
           "converged_bundle", "converged_grid", "converged_match", "matched_match",
           "method_seed_bundle", "regular_long_seed_bundle", "seed_bundle", "seeds_long_grid",
           "settings_match", "train_command"]

SEPARATED_LONG = "separated-long"
#: The suffix of a weighted bundle trained with weights balanced over the data's phase shares.
BALANCED_SUFFIX = "-balanced"
REGULAR_LONG = "regular-long"
#: The parameter-matched single network: as many parameters as the mixture's experts together.
REGULAR_WIDE = "regular-wide"
#: The regular network trained under bf16 autocast, with the seed and steps of ``regular``:
#: what mixed-precision training is validated on (test losses and a match against ``regular``).
REGULAR_BF16 = "regular-bf16"
#: The suffix of a bundle trained until its validation loss stopped improving.
CONVERGED_SUFFIX = "-converged"
#: The methods trained until convergence: the regular network and the two mixtures whose gains
#: the claims report.
CONVERGED_METHODS: tuple[str, ...] = ("regular", "staged", "weighted-a10")

#: The other seeds every seeded control is trained under (the profile's own is 9).
CONTROL_SEEDS: tuple[int, ...] = (10, 11)

#: The mixtures retrained under :data:`CONTROL_SEEDS`: the methods whose gains the claims
#: report (staged, the best of the small tournament, and weighted a=10).
SEEDED_METHODS: tuple[str, ...] = ("staged", "weighted-a10")


def seed_bundle(seed: int) -> str:
    """Bundle directory name of the regular network trained with ``seed``."""
    return f"regular-seed{seed}"


def method_seed_bundle(method: str, seed: int) -> str:
    """Bundle directory name of the mixture ``method`` (a bundle name such as ``staged`` or
    ``weighted-a10``) trained with ``seed``: ``staged-seed10``."""
    return f"{method}-seed{seed}"


def regular_long_seed_bundle(seed: int) -> str:
    """Bundle directory name of ``regular-long`` (the regular network trained for the
    mixtures' total steps) trained with ``seed``: ``regular-long-seed10``."""
    return f"{REGULAR_LONG}-seed{seed}"


def converged_bundle(method: str) -> str:
    """Bundle directory name of ``method`` (a bundle name such as ``regular``, ``staged`` or
    ``weighted-a10``) trained until its validation loss stopped improving:
    ``staged-converged``. Never the name of a fixed-length bundle, so it cannot replace one."""
    return f"{method}{CONVERGED_SUFFIX}"


# --- the names the tournament designs give their matches and players --------------------------

#: The settings design's search settings (batch size, nodes per move), in the order its
#: rows are read: the node limits at batch 8, then the batch sizes at 400 nodes.
SETTINGS: tuple[tuple[int, int], ...] = ((8, 100), (8, 400), (8, 1600), (1, 400), (32, 400))
#: The opponents staged plays at every setting: the regular network, and the regular network
#: trained for the mixture's total steps (equal training compute).
SETTINGS_OPPONENTS: tuple[str, ...] = ("regular", REGULAR_LONG)
#: The settings design's one opening group (not ``b8-n100``: its openings are drawn afresh,
#: not the powered and replicated tournaments' first 200).
SETTINGS_GROUP = "settings"
#: Game pairs of each settings match (a match its ``spec.json`` does not list yet is read at
#: this size: the design's own, registered before the match began).
SETTINGS_PAIRS = 100


def settings_match(opponent: str, batch: int, nodes: int) -> str:
    """The settings design's name of staged against ``opponent`` at one setting:
    ``staged-vs-regular-long-b1-n400``."""
    return f"staged-vs-{opponent}-b{batch}-n{nodes}"


def seeds_long_grid() -> list[tuple[str, str]]:
    """The 3 x 3 grid of staged's seeds (``staged``, ``staged-seed10/11``) against
    ``regular-long``'s (``regular-long``, ``regular-long-seed10/11``), rows first."""
    return [(first, second)
            for first in ("staged", *(method_seed_bundle("staged", s) for s in CONTROL_SEEDS))
            for second in (REGULAR_LONG, *(regular_long_seed_bundle(s) for s in CONTROL_SEEDS))]


#: The parameter-matched design's move time (ms) at equal time: the paper's shortest. Measured
#: before registration with the committed staged bundle (native search, ONNX Runtime, one
#: thread, batch 8, 24 sample positions on the 2-core CPU at a load of about 2.5): 237 nodes a
#: move on average (194-295); 200 ms gave 519. ``regular-wide`` costs about 4.4 times as much
#: per node (``benchmarks/wide_nodes.py``), so it is expected near 55.
MATCHED_MOVETIME = 100
#: The parameter-matched design, in the order its rows are read: ``(first,
#: second, batch size, nodes, move time ms)`` of each match. Staged against ``regular-wide``
#: (one network with the mixture's parameters) at equal nodes and at equal move time, and
#: ``regular-wide`` against ``regular-long`` at equal nodes (the same training steps and
#: schedule, three times the parameters: what the width alone buys).
MATCHED: tuple[tuple[str, str, int, int | None, int | None], ...] = (
    ("staged", REGULAR_WIDE, 8, 100, None),
    ("staged", REGULAR_WIDE, 8, None, MATCHED_MOVETIME),
    (REGULAR_WIDE, REGULAR_LONG, 8, 100, None))
#: The parameter-matched design's one opening group: a fresh draw shared by its matches (not
#: the powered ``b8-n100`` nor the settings group), so the three are paired by opening.
MATCHED_GROUP = "matched"
#: Game pairs of each parameter-matched match (its design's own, registered before its games).
MATCHED_PAIRS = 100


def matched_match(first: str, second: str, batch: int, nodes: int | None,
                  movetime: int | None) -> str:
    """The parameter-matched design's name of one match: ``staged-vs-regular-wide-b8-n100``,
    ``staged-vs-regular-wide-b8-t100``."""
    return f"{first}-vs-{second}-b{batch}-" + (f"n{nodes}" if nodes else f"t{movetime}")


#: The converged design's opening group: the powered design's (batch 8, 100 nodes, the same
#: seed), so each converged arm is paired by opening with the fixed-length arms of the powered
#: and replicated tournaments.
CONVERGED_GROUP = "b8-n100"
#: Game pairs of each converged match: the powered design's 400 games a method.
CONVERGED_PAIRS = 200


def converged_grid() -> list[tuple[str, str]]:
    """The converged design's matches as ``(first, second)`` bundles, in the order its rows
    are read: each converged mixture against the converged regular network (the powered
    design's method arms), then the converged regular network against the profile's regular
    network (the powered design's ``regular-long`` arm: what the longer training buys)."""
    regular = converged_bundle("regular")
    return [*((converged_bundle(m), regular) for m in CONVERGED_METHODS if m != "regular"),
            (regular, "regular")]


def converged_match(first: str, second: str) -> str:
    """The converged design's name of ``first`` against ``second``:
    ``staged-converged-vs-regular-converged-b8-n100``."""
    return f"{first}-vs-{second}-{CONVERGED_GROUP}"


def control_of(bundle: str) -> str | None:
    """The control (``chessmoe train --control NAME``, :data:`chessmoe.nets.regimes.CONTROLS`)
    that trains ``bundle``; ``None`` for a bundle of the profile's own regimes."""
    if bundle.endswith(CONVERGED_SUFFIX):
        return "converged"
    if bundle == REGULAR_BF16:
        return "bf16"
    if bundle in (REGULAR_WIDE, SEPARATED_LONG, REGULAR_LONG):
        return bundle
    if "-seed" in bundle:
        return "seeds"
    return None


def train_command(bundle: str, profile: str) -> str:
    """The command that trains ``bundle`` into ``results/experts/<profile>/``:
    ``chessmoe train --profile small --control regular-wide``."""
    control = control_of(bundle)
    return f"chessmoe train --profile {profile}" + (f" --control {control}" if control else "")


RATING_ANCHOR = ("sf-elo1350-t100", 1350.0)  # the named player the rating list is fixed to
RATING_CHECK = ("sf-elo1500-t100", 1500)  # a second UCI_Elo level: where the list puts it
