"""Training controls the paper does not report, so its loss and Elo differences can be judged.

* **Seed noise** of the regular network: the same data and schedule under other seeds
  (``regular-seed<N>`` bundles). Table 1's loss differences are compared with the spread of
  these runs (the paper reports one run per regime).
* **Equal-iteration separated experts** (``separated-long``): each separated expert trains on
  a third of the positions, so at the profile's epoch budget it makes 0.3-0.4x the regular
  network's optimiser steps. Training it for as many iterations as the regular network tests
  the explanation that separated learning loses because it is data-starved (fewer updates)
  rather than because its experts see only their phase.

* **Equal-compute regular network** (``regular-long``): ``separated-long`` spends the regular
  network's iterations on *each* expert, three times its total. The regular network trained
  for that same total separates the separated experts' gain from the extra training.

All land beside the profile's bundles in ``results/experts/<profile>/`` with their manifest,
Table 1 evaluation and provenance, and resume like every training run.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

from chessmoe.nets.regimes import TrainingPlan, evaluate_bundle, profile_dataset, train_bundle

__all__ = ["REGULAR_LONG", "SEPARATED_LONG", "ControlPlan", "seed_bundle", "train_controls"]

SEPARATED_LONG = "separated-long"
REGULAR_LONG = "regular-long"


def seed_bundle(seed: int) -> str:
    """Bundle directory name of the regular network trained with ``seed``."""
    return f"regular-seed{seed}"


@dataclass(frozen=True)
class ControlPlan:
    """Which controls to train: extra seeds of the regular network (the profile's own seed
    is the committed ``regular`` bundle), whether to train ``separated-long`` and whether to
    train ``regular-long`` (the regular network for ``phases`` times its iterations)."""

    seeds: tuple[int, ...] = (10, 11)
    separated_long: bool = True
    regular_long: bool = True
    phases: int = 3


def _regular_iterations(regular: Path) -> int:
    """Optimiser steps of the committed regular network (its manifest's baseline entry)."""
    manifest = json.loads((regular / "manifest.json").read_text())
    return int(manifest["experts"]["baseline"]["iterations"])


def train_controls(spec: TrainingPlan, profile: str, *,
                   results_dir: str | os.PathLike[str] = "results",
                   data_dir: str | os.PathLike[str] | None = None,
                   plan: ControlPlan = ControlPlan(), progress: bool = True) -> list[Path]:
    """Train (or resume) the controls of ``profile`` next to its bundles; return their dirs.

    Needs the profile's ``regular`` bundle (the seed-noise reference and the iteration count
    ``separated-long`` matches).
    """
    out = Path(results_dir) / "experts" / profile
    regular = out / "regular"
    if not (regular / "manifest.json").exists():
        raise FileNotFoundError(f"{regular}/manifest.json: train the profile's regular network "
                                f"first (make experts PROFILE={profile})")
    dataset_dir = profile_dataset(spec, data_dir=data_dir, progress=progress)
    done: list[Path] = []
    for seed in plan.seeds:
        name = seed_bundle(seed)
        train_bundle("regular", out, dataset_dir, replace(spec.train, seed=seed),
                     definition=spec.definition, profile=profile, progress=progress, name=name)
        evaluate_bundle(out / name, dataset_dir)
        done.append(out / name)
    if plan.separated_long:
        config = replace(spec.train, iterations=_regular_iterations(regular))
        train_bundle("separated", out, dataset_dir, config, definition=spec.definition,
                     profile=profile, progress=progress, name=SEPARATED_LONG,
                     baseline=os.path.relpath(regular, out / SEPARATED_LONG))
        evaluate_bundle(out / SEPARATED_LONG, dataset_dir)
        done.append(out / SEPARATED_LONG)
    if plan.regular_long:
        config = replace(spec.train, iterations=plan.phases * _regular_iterations(regular))
        train_bundle("regular", out, dataset_dir, config, definition=spec.definition,
                     profile=profile, progress=progress, name=REGULAR_LONG)
        evaluate_bundle(out / REGULAR_LONG, dataset_dir)
        done.append(out / REGULAR_LONG)
    return done
