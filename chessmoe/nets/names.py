"""Names of the control bundles under ``results/experts/<profile>/`` (one home, torch-free, so
trainers, designs, players and reports name them alike without importing the trainer); the
profile's own seed (9) is the bundle without a suffix (``regular``, ``staged``, ...).
:func:`control_of` and :func:`train_command` say which ``chessmoe train`` makes a bundle.
"""

from __future__ import annotations

__all__ = [
    "BALANCED_SUFFIX",
    "CONTROL_DESCRIPTIONS",
    "CONTROL_SEEDS",
    "CONVERGED_METHODS",
    "CONVERGED_SUFFIX",
    "HEAD1X1_PARAMETERS",
    "RATING_ANCHOR",
    "RATING_CHECK",
    "REGULAR_BF16",
    "REGULAR_HEAD1X1",
    "REGULAR_LONG",
    "REGULAR_WIDE",
    "SCALE_METHODS",
    "SCALE_PARAMETERS",
    "SCALE_SEEDS",
    "SCALE_SIZES",
    "SEEDED_METHODS",
    "SEPARATED_LONG",
    "control_of",
    "converged_bundle",
    "method_seed_bundle",
    "regular_long_seed_bundle",
    "scale_bundle",
    "seed_bundle",
    "train_command",
]

#: The equal-iteration control: the separated experts trained for the regular network's steps.
SEPARATED_LONG = "separated-long"
#: The suffix of a weighted bundle trained with weights balanced over the data's phase shares.
BALANCED_SUFFIX = "-balanced"
#: The equal-compute control: the regular network trained for the separated experts' total.
REGULAR_LONG = "regular-long"
#: The parameter-matched single network: as many parameters as the mixture's experts together.
REGULAR_WIDE = "regular-wide"
#: The regular network trained under bf16 autocast, with the seed and steps of ``regular``:
#: what mixed-precision training is validated on (test losses and a match against ``regular``).
REGULAR_BF16 = "regular-bf16"
#: The shared-trunk mixture's head-shape control: one of its experts' networks (the trunk, the
#: shared policy convolution and a 1x1 policy output) as a single network on every position,
#: on the scale recipe at 201 k with seed 9: it tells the 1x1 output's cost from the phase
#: heads' (``scale-201k-trunk-seed9`` and ``scale-201k-regular-seed9`` on either side).
REGULAR_HEAD1X1 = "regular-head1x1"
#: Its parameters (one expert of the 201 k shared-trunk mixture: its trunk, its 107-channel
#: shared policy convolution and one head), counted from the model the control builds
#: (tests/test_controls.py counts them again).
HEAD1X1_PARAMETERS = 190_679
#: The suffix of a bundle trained until its validation loss stopped improving.
CONVERGED_SUFFIX = "-converged"
#: The methods trained until convergence: the regular network and the two mixtures whose gains
#: the claims report.
CONVERGED_METHODS: tuple[str, ...] = ("regular", "staged", "weighted-a10")

#: What each control trains, in a few words (``chessmoe train --help``), in the order the
#: controls train (:data:`chessmoe.nets.regimes.CONTROLS` is its keys).
CONTROL_DESCRIPTIONS: dict[str, str] = {
    "seeds": "the regular network and the mixtures under two more seeds",
    "separated-long": "separated experts given the regular network's steps each",
    "regular-long": "the regular network trained for the separated experts' total steps",
    "regular-wide": "the mixture's parameters in one network",
    "converged": "regular, staged and weighted a=10 trained until the validation loss stops "
                 "improving",
    "bf16": "the regular network trained under bf16 autocast",
    "scale": "the scale design: regular, staged and the shared-trunk mixture at 50 k, 201 k "
             "and 604 k parameters, days of CPU",
    "head1x1": "one of the 201 k shared-trunk mixture's experts as a single network",
}

#: The other seeds every seeded control is trained under (the profile's own is 9).
CONTROL_SEEDS: tuple[int, ...] = (10, 11)

#: The mixtures retrained under :data:`CONTROL_SEEDS`: the methods whose gains the claims
#: report (staged, the best of the small tournament, and weighted a=10).
SEEDED_METHODS: tuple[str, ...] = ("staged", "weighted-a10")


#: The scale design's network sizes, by label: about 50 k, 201 k (the small profile's network)
#: and 600 k parameters (the width grows, the depth stays; :func:`chessmoe.nets.controls.
#: scale_model`), in the order they are trained: the profile's size first.
SCALE_SIZES: tuple[str, ...] = ("201k", "50k", "600k")
#: The training seeds of each size's networks: three at the profile's size, two elsewhere.
SCALE_SEEDS: dict[str, tuple[int, ...]] = {"201k": (9, 10, 11), "50k": (9, 10),
                                           "600k": (9, 10)}
#: The networks trained at each size: the single network, the paper's best mixture and the
#: shared-trunk mixture (one trunk, a head per phase, the single network's cost).
SCALE_METHODS: tuple[str, ...] = ("regular", "trunk", "staged")
#: The parameters of each size's regular network (each of staged's experts has as many; the
#: shared-trunk mixture is within 10 % of it), counted from the models the scale recipe builds
#: (tests/test_scale.py counts them again).
SCALE_PARAMETERS: dict[str, int] = {"50k": 49_969, "201k": 201_469, "600k": 604_086}
_SCALE_PREFIX = "scale-"


def scale_bundle(method: str, size: str, seed: int) -> str:
    """Bundle directory name of the scale design's ``method`` at ``size`` under ``seed``:
    ``scale-201k-staged-seed10``."""
    if size not in SCALE_SIZES or method not in SCALE_METHODS:
        raise ValueError(f"no scale bundle {method!r} at {size!r}; sizes: "
                         f"{', '.join(SCALE_SIZES)}; methods: {', '.join(SCALE_METHODS)}")
    return f"{_SCALE_PREFIX}{size}-{method}-seed{seed}"


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


def control_of(bundle: str) -> str | None:
    """The control (``chessmoe train --control NAME``, :data:`chessmoe.nets.regimes.CONTROLS`)
    that trains ``bundle``; ``None`` for a bundle of the profile's own regimes."""
    if bundle.startswith(_SCALE_PREFIX):
        return "scale"
    if bundle.endswith(CONVERGED_SUFFIX):
        return "converged"
    if bundle == REGULAR_BF16:
        return "bf16"
    if bundle == REGULAR_HEAD1X1:
        return "head1x1"
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
