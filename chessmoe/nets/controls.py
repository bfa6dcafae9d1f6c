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
* **Seed noise of the mixtures** (``staged-seed<N>``, ``weighted-a10-seed<N>``): the methods
  whose gain the paper reports, retrained under other seeds, so every Elo can be read against
  the spread of both the mixture's and the regular network's seeds.
* **Seed noise of the equal-compute network** (``regular-long-seed<N>``): ``regular-long``
  under the same other seeds, so the head-to-head equal-compute result is read over the
  training seeds of both sides (the ``seeds-long`` tournament design), not one.

All land beside the profile's bundles in ``results/experts/<profile>/`` with their manifest,
Table 1 evaluation and provenance, and resume like every training run.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

from chessmoe.nets.names import (
    BALANCED_SUFFIX,
    CONTROL_SEEDS,
    REGULAR_LONG,
    SEEDED_METHODS,
    SEPARATED_LONG,
    method_seed_bundle,
    regular_long_seed_bundle,
    seed_bundle,
)
from chessmoe.nets.regimes import (
    BundleSpec,
    TrainingPlan,
    evaluate_bundle,
    profile_dataset,
    train_bundle,
)
from chessmoe.nets.training import TrainConfig

__all__ = ["METHOD_SEEDS", "REGULAR_LONG", "SEPARATED_LONG", "ControlPlan", "bundle_spec",
           "method_seed_bundle", "regular_long_seed_bundle", "seed_bundle", "train_controls"]


def bundle_spec(name: str) -> BundleSpec:
    """The bundle a lichess-gated bundle name stands for: ``staged`` -> staged,
    ``weighted-a10`` -> weighted with a = 10, ``weighted-a10-balanced`` -> the same with
    weights balanced over the data's phase shares."""
    if name.startswith("weighted-a"):
        factor = name.removeprefix("weighted-a")
        balanced = factor.endswith(BALANCED_SUFFIX)
        return BundleSpec("weighted", float(factor.removesuffix(BALANCED_SUFFIX)),
                          balanced=balanced)
    if name not in ("regular", "separated", "staged"):
        raise ValueError(f"{name!r} is not a bundle name of a regime")
    return BundleSpec(name)  # type: ignore[arg-type]  # checked above


#: The mixtures retrained under other seeds (:data:`chessmoe.nets.names.SEEDED_METHODS`).
METHOD_SEEDS: tuple[BundleSpec, ...] = tuple(bundle_spec(m) for m in SEEDED_METHODS)


@dataclass(frozen=True)
class ControlPlan:
    """Which controls to train: extra seeds of the regular network (the profile's own seed
    is the committed ``regular`` bundle), whether to train ``separated-long`` and whether to
    train ``regular-long`` (the regular network for ``phases`` times its iterations), and
    the extra seeds of ``regular-long`` (``regular-long-seed<N>``, trained last)."""

    seeds: tuple[int, ...] = CONTROL_SEEDS
    separated_long: bool = True
    regular_long: bool = True
    phases: int = 3
    methods: tuple[BundleSpec, ...] = METHOD_SEEDS
    regular_long_seeds: tuple[int, ...] = CONTROL_SEEDS

    @classmethod
    def of(cls, spec: TrainingPlan) -> ControlPlan:
        """The controls a profile's training plan names (``TrainingPlan.controls``): seeds of
        ``regular-long`` where it names both the seeds and ``regular-long``."""
        seeds = "seeds" in spec.controls
        long = "regular-long" in spec.controls
        return cls(seeds=CONTROL_SEEDS if seeds else (),
                   separated_long="separated-long" in spec.controls,
                   regular_long=long,
                   methods=METHOD_SEEDS if seeds else (),
                   regular_long_seeds=CONTROL_SEEDS if seeds and long else ())


def _regular_iterations(regular: Path) -> int:
    """Optimiser steps of the committed regular network (its manifest's baseline entry)."""
    manifest = json.loads((regular / "manifest.json").read_text())
    return int(manifest["experts"]["baseline"]["iterations"])


def _regular_config(regular: Path, default: TrainConfig) -> TrainConfig:
    """The training configuration the regular network was trained with (its manifest's
    ``train_config``; ``default`` for a manifest without one), so every control trains like
    it (a regular network trained with ``--set batch_size=1024`` gets a regular-long at
    batch 1024, not one at the profile's batch with a quarter of the positions per step)."""
    manifest = json.loads((regular / "manifest.json").read_text())
    stored = manifest.get("train_config")
    if not isinstance(stored, dict):
        return default
    # how many threads the regular network ran on says nothing about what it learnt
    return replace(TrainConfig.from_dict(stored), threads=default.threads)


def _finished(bundle: Path) -> bool:
    """A control whose Table 1 evaluation is written is complete (evaluation is its last
    step): it is neither retrained nor re-evaluated, so its committed files stay as they are."""
    return (bundle / "evaluation.json").exists() and (bundle / "manifest.json").exists()


def train_controls(spec: TrainingPlan, profile: str, *,
                   results_dir: str | os.PathLike[str] = "results",
                   data_dir: str | os.PathLike[str] | None = None,
                   plan: ControlPlan | None = None, progress: bool = True) -> list[Path]:
    """Train (or resume) the controls of ``profile`` next to its bundles; return their dirs.
    ``plan`` defaults to the controls ``spec`` names (:meth:`ControlPlan.of`).

    Needs the profile's ``regular`` bundle (the seed-noise reference and the iteration count
    ``separated-long`` matches).
    """
    plan = plan or ControlPlan.of(spec)
    out = Path(results_dir) / "experts" / profile
    regular = out / "regular"
    if not (regular / "manifest.json").exists():
        raise FileNotFoundError(f"{regular}/manifest.json: train the profile's regular network "
                                f"first (make experts PROFILE={profile})")
    base = _regular_config(regular, spec.train)
    # (bundle name, regime, a, training config, baseline bundle) of every control, in order
    jobs: list[tuple[str, str, float | None, TrainConfig, Path | None]] = []
    jobs += [(seed_bundle(seed), "regular", None, replace(base, seed=seed), None)
             for seed in plan.seeds]
    if plan.separated_long:
        jobs.append((SEPARATED_LONG, "separated", None,
                     replace(base, iterations=_regular_iterations(regular)), regular))
    if plan.regular_long:
        jobs.append((REGULAR_LONG, "regular", None,
                     replace(base, iterations=plan.phases * _regular_iterations(regular)),
                     None))
    jobs += [(method_seed_bundle(method.name(spec.definition), seed), method.regime, method.a,
              replace(base, seed=seed), out / seed_bundle(seed))
             for method in plan.methods for seed in plan.seeds]
    # regular-long under the other seeds: the same steps, another initialisation and order
    jobs += [(regular_long_seed_bundle(seed), "regular", None,
              replace(base, seed=seed,
                      iterations=plan.phases * _regular_iterations(regular)), None)
             for seed in plan.regular_long_seeds]
    todo = [job for job in jobs if not _finished(out / job[0])]
    dataset_dir = profile_dataset(spec, data_dir=data_dir, progress=progress) if todo else None
    for name, regime, a, config, baseline in todo:
        assert dataset_dir is not None
        train_bundle(regime, out, dataset_dir, config, definition=spec.definition, a=a,
                     profile=profile, progress=progress, name=name,
                     baseline=None if baseline is None else os.path.relpath(baseline, out / name))
        evaluate_bundle(out / name, dataset_dir, test_samples=spec.test_samples)
    return [out / job[0] for job in jobs]
