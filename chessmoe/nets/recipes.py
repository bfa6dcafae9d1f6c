"""Training recipes without torch: the test sets, the one-cycle schedules (Table 7, Fig. 14)
and the weighted regime's sample weights (sec. 2.2, Table 5).

Kept apart from the trainer so that figure code can draw them without importing torch (the
layering contract forbids ``chessmoe.report.figures`` to reach torch).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import pandas as pd

from chessmoe.phases import phase_definition

__all__ = ["TEST_SETS", "balanced_phase_weights", "epoch_iterations", "learning_rate", "momentum",
           "phase_weights", "plateau_learning_rate", "table5", "test_sets"]

TEST_SETS = ("opening", "middlegame", "endgame", "no-phases")  # under the Lichess definition


def test_sets(definition: str) -> tuple[str, ...]:
    """The test sets a run is evaluated on: each phase of its definition, then no-phases."""
    from chessmoe.phases import phase_definition

    return (*phase_definition(definition).phase_names, "no-phases")


def epoch_iterations(epochs: float, batch_size: int, positions: int) -> int:
    """The iterations a run of ``epochs`` epochs takes over ``positions`` training positions
    at ``batch_size`` (a last partial batch counts as one): what a run without a fixed
    iteration count plans, and at most trains when its patience stops it earlier."""
    return max(1, math.ceil(epochs * math.ceil(positions / batch_size)))


def learning_rate(iteration: int, total: int, max_lr: float = 0.14,
                  min_lr: float = 1e-5) -> float:
    """One-cycle learning rate: warm-up 1e-5 -> max/8 over the first 1/30 of the run, up to
    max over the next 15 %, back to max/8 over 15 %, cool-down to min over 60 %, then hold."""
    if total <= 0:
        raise ValueError("total iterations must be positive")
    x = min(max(iteration, 0), total) / total
    base = max_lr / 8
    points = ((0.0, min_lr), (1 / 30, base), (1 / 30 + 0.15, max_lr), (1 / 30 + 0.30, base),
              (1 / 30 + 0.90, min_lr), (1.0, min_lr))
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return min_lr


def plateau_learning_rate(iteration: int, cuts: int, max_lr: float = 0.14,
                          min_lr: float = 1e-5, warmup: int = 400,
                          factor: float = 0.1) -> float:
    """Learning rate of a run whose end is not known in advance (trained until the validation
    loss stops improving): linear warm-up from ``min_lr`` to ``max_lr`` over the first
    ``warmup`` iterations, then constant, multiplied by ``factor`` for each of the ``cuts``
    made so far (the trainer cuts it when the validation loss has stopped improving: reduce
    on plateau), never below ``min_lr``.

    The one-cycle schedule (:func:`learning_rate`) is a function of the run's planned length:
    over an iteration cap that a run stopped by patience never reaches, it would spend most of
    the run near its peak and stop before its cool-down, so the stopped network would be
    judged at a learning rate the schedule never meant to end on. Here the rate falls only
    when training at the current rate has stopped helping, so a run ends having tried the
    lower rates."""
    if cuts < 0 or warmup < 0 or not 0 < factor < 1:
        raise ValueError(f"a plateau schedule needs cuts >= 0, warmup >= 0 and 0 < factor < 1, "
                         f"not cuts={cuts}, warmup={warmup}, factor={factor}")
    step = max(iteration, 0)
    rate = max_lr if step >= warmup else min_lr + (max_lr - min_lr) * step / warmup
    return max(rate * factor**cuts, min_lr)


def momentum(lr: float, max_lr: float = 0.14, min_lr: float = 1e-5,
             max_momentum: float = 0.95, min_momentum: float = 0.8) -> float:
    """Momentum mirroring the learning rate: max_momentum at min_lr, min_momentum at max_lr."""
    span = max_momentum - min_momentum
    return max_momentum - (lr - min_lr) / (max_lr - min_lr) * span


def phase_weights(a: float, main: int, n_phases: int = 3) -> tuple[float, ...]:
    """Per-phase sample weights of the expert for phase ``main``: ``w_main = a * w_other``,
    mean weight 1 over equally many phases (3 phases: 3a/(a+2) and 3/(a+2))."""
    if a < 1:
        raise ValueError("the weighting factor a must be >= 1")
    if not 0 <= main < n_phases:
        raise ValueError(f"main phase {main} outside 0..{n_phases - 1}")
    other = n_phases / (a + n_phases - 1)
    return tuple(a * other if phase == main else other for phase in range(n_phases))


def balanced_phase_weights(a: float, main: int, shares: Sequence[float]) -> tuple[float, ...]:
    """:func:`phase_weights` rescaled to a mean weight of 1 over the training positions when
    the phases occur in the proportions ``shares`` (e.g. their position counts); the ratio
    ``a`` between the main phase and the others is kept.

    The paper's weights average 1 only over equally common phases, and the training loss is
    the mean of weight x loss, so on data whose phases are unequal an expert's gradients are
    scaled by its mean weight: on the medium data (opening, middlegame, endgame 15 / 27 /
    58 % of the positions) a = 10 trains the opening expert at 0.59 and the endgame expert
    at 1.55 of the regular network's step size. These weights train every expert at 1."""
    if len(shares) < 2 or any(not x >= 0 for x in shares) or sum(shares) <= 0:
        raise ValueError(f"phase shares must be two or more non-negative numbers with a "
                         f"positive sum, not {list(shares)}")
    base = phase_weights(a, main, len(shares))
    mean = sum(s * w for s, w in zip(shares, base, strict=True)) / sum(shares)
    return tuple(w / mean for w in base)


def table5(a_values: Sequence[float] = (4, 10), definition: str = "lichess") -> pd.DataFrame:
    """Paper Table 5, computed: the sample weights of every weighted expert."""
    names = phase_definition(definition).phase_names
    rows = []
    for a in a_values:
        for main, name in enumerate(names):
            weights = phase_weights(a, main, len(names))
            rows.append({"a": a, "expert main phase": name, "w_main": weights[main],
                         "w_other": weights[(main + 1) % len(names)],
                         **{f"w_{p}": w for p, w in zip(names, weights, strict=True)}})
    return pd.DataFrame(rows).set_index(["a", "expert main phase"])
