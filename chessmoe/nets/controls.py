"""Training controls the paper does not report, so its loss and Elo differences can be judged:
which to train and what each tests (:class:`ControlPlan`), their configurations
(:func:`converged_config`, :func:`wide_config`, :func:`scale_config`) and the run
(:func:`train_controls`).

All land beside the profile's bundles in ``results/experts/<profile>/`` with their manifest,
Table 1 evaluation and provenance, and resume like every training run. A profile's
``--controls`` trains :data:`~chessmoe.nets.regimes.DEFAULT_CONTROLS`; the others are opt-in
(``chessmoe train --controls --control regular-wide``, ``--control converged``, ...).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from chessmoe._io.fsutil import BusyError, hold_lock
from chessmoe.nets.evaluation import evaluate_bundle
from chessmoe.nets.model import ModelConfig, matched_width, preset_overrides
from chessmoe.nets.names import (
    BALANCED_SUFFIX,
    CONTROL_SEEDS,
    CONVERGED_METHODS,
    REGULAR_BF16,
    REGULAR_HEAD1X1,
    REGULAR_LONG,
    REGULAR_WIDE,
    SCALE_METHODS,
    SCALE_SEEDS,
    SCALE_SIZES,
    SEEDED_METHODS,
    SEPARATED_LONG,
    converged_bundle,
    method_seed_bundle,
    regular_long_seed_bundle,
    scale_bundle,
    seed_bundle,
)
from chessmoe.nets.regimes import (
    BundleSpec,
    TrainingPlan,
    profile_dataset,
    train_bundle,
)
from chessmoe.nets.training import TrainConfig
from chessmoe.nets.trunk import trunk_config

__all__ = ["CONVERGED", "CONVERGED_CAP_EPOCHS", "CONVERGED_MIN_DELTA", "CONVERGED_PATIENCE",
           "CONVERGED_PLATEAU_PATIENCE", "CONVERGED_WARMUP", "METHOD_SEEDS", "REGULAR_LONG",
           "REGULAR_WIDE", "SCALE_EVAL_EVERY", "SCALE_EVAL_SAMPLES", "SCALE_PATIENCE",
           "SEPARATED_LONG", "TRAINING_LOCK", "ControlPlan", "bundle_spec", "converged_config",
           "head1x1_config",
           "method_seed_bundle", "regular_long_seed_bundle", "scale_config", "scale_jobs",
           "scale_model", "seed_bundle", "train_controls", "wide_config"]


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
#: The methods trained until convergence (:data:`chessmoe.nets.names.CONVERGED_METHODS`).
CONVERGED: tuple[BundleSpec, ...] = tuple(bundle_spec(m) for m in CONVERGED_METHODS)

#: Evaluations without improvement after which a converged run (or stage) stops: at the
#: small profile's ``eval_every`` of 100 steps, 1,200 steps (1.2 epochs of the small data's
#: 1,028-step epochs; 3-4 epochs of one phase's positions in a staged stage).
CONVERGED_PATIENCE = 12
#: Evaluations without improvement before each cut of the learning rate (by 10): in a stretch
#: without improvement the rate is cut at the 4th and the 8th evaluation and the run stops at
#: the 12th, so the rate it had and two lower ones have each had 4 evaluations to help.
CONVERGED_PLATEAU_PATIENCE = 4
#: The smallest fall of the validation loss that counts as an improvement (for the patience
#: and the cuts; any fall still saves the best checkpoint). Below the smallest difference
#: Table 1 reads (staged's mixture against the regular network: 0.009 on the no-phases test
#: set; regular-long against regular: 0.19), above what a rate near its floor moves the loss
#: in an evaluation, so a run does not crawl to its cap by steps of 1e-5.
CONVERGED_MIN_DELTA = 0.001
#: The plateau schedule's warm-up to the peak rate, in steps: about the one-cycle's rise on
#: the small regular run (1/30 + 15 % of 2,056 steps = 377).
CONVERGED_WARMUP = 400
#: The cap, in epochs of the run's own training data (per stage for a staged expert): 15 times
#: the small profile's 2 epochs, 5 times regular-long's 6; a run that reaches it says so
#: (``reason: cap``).
CONVERGED_CAP_EPOCHS = 30.0


def converged_config(base: TrainConfig) -> TrainConfig:
    """``base`` (the regular network's configuration) trained until convergence: the
    plateau schedule (warm-up to ``max_lr``, constant, cut by 10 after
    :data:`CONVERGED_PLATEAU_PATIENCE` evaluations without improvement, floor ``min_lr``), the
    stop after :data:`CONVERGED_PATIENCE` evaluations without improvement, at most
    :data:`CONVERGED_CAP_EPOCHS` epochs.

    Why not the one-cycle: it is a function of the planned length. Laid over the cap, a run
    stopped by patience would end somewhere on its way down, never having had the low rates
    that give the one-cycle its final gains (regular-long's validation loss fell from 2.34 to
    2.24 in its last half, at rates below max_lr/8), and a run that kept improving under the
    falling rate would be stopped by the schedule, not by the data. Reduce-on-plateau lowers
    the rate only when the current one has stopped helping, so "converged" means that neither
    more steps nor the two lower rates improve the validation loss."""
    return replace(base, iterations=None, epochs=CONVERGED_CAP_EPOCHS, schedule="plateau",
                   patience=CONVERGED_PATIENCE, min_delta=CONVERGED_MIN_DELTA,
                   plateau_patience=CONVERGED_PLATEAU_PATIENCE, plateau_factor=0.1,
                   warmup_iterations=CONVERGED_WARMUP)


def wide_config(base: TrainConfig, phases: int, iterations: int) -> TrainConfig:
    """``base`` with its network widened to ``phases`` times its parameters
    (:func:`~chessmoe.nets.model.matched_width`), for ``iterations`` steps (regular-long's);
    everything else (schedule, batch, seed) as ``base``. The widening is recorded as
    ``model_overrides`` on ``base``'s preset, so the manifest's ``model`` names every size."""
    wide = matched_width(base.model_config(), phases)
    return replace(base, iterations=iterations,
                   model_overrides=preset_overrides(base.model, wide))


#: The scale design's recipe: evaluations every 200 steps on 16,384 validation positions (a
#: staged stage on all of its phase's, 9.7-11.6 k on the small data), so the kept checkpoint
#: is not a dip of a 4,096-position subset's noise; the patience is 6 evaluations (1,200 steps,
#: the converged recipe's), the rate cut after every 2 (400 steps, as before).
SCALE_EVAL_EVERY = 200
SCALE_EVAL_SAMPLES = 16384
#: The test sets' positions an evaluation reads in training (the curves; Table 1 reads the
#: whole test split after training): 4,096 each, as before, so evaluations cost about as
#: much as 100 of the 200 steps between them, not as much as 200.
SCALE_TEST_SAMPLES = 4096
SCALE_PATIENCE = 6
SCALE_PLATEAU_PATIENCE = 2


def scale_model(base: ModelConfig, size: str) -> ModelConfig:
    """The scale design's network at ``size``: ``base`` (the small profile's, 201 k
    parameters) at ``201k``, widened to a quarter of its parameters at ``50k`` and to three
    times at ``600k`` (:func:`~chessmoe.nets.model.matched_width`: the width grows, the depth
    stays; ``600k`` is ``regular-wide``'s network)."""
    factors = {"201k": 1.0, "50k": 0.25, "600k": 3.0}
    if size not in factors:
        raise ValueError(f"unknown scale size {size!r}; known: {', '.join(SCALE_SIZES)}")
    return base if factors[size] == 1.0 else matched_width(base, factors[size])


def scale_config(base: TrainConfig, size: str, seed: int) -> TrainConfig:
    """One recipe for every network of the scale design: ``base`` (the regular network's
    configuration) trained until its validation loss stops improving
    (:func:`converged_config`) with the evaluations of :data:`SCALE_EVAL_EVERY` and
    :data:`SCALE_EVAL_SAMPLES` and a patience of :data:`SCALE_PATIENCE`, in fp32 (the committed
    bf16 network's no-phases test loss, 2.4253, lies above all three fp32 seeds', 2.376-2.409,
    so bf16 has not shown it trains as well), with ``size``'s network and ``seed``."""
    model = scale_model(base.model_config(), size)
    return replace(converged_config(base), seed=seed, cpu_amp="off",
                   eval_every=SCALE_EVAL_EVERY, eval_samples=SCALE_EVAL_SAMPLES,
                   eval_test_samples=SCALE_TEST_SAMPLES,
                   patience=SCALE_PATIENCE, plateau_patience=SCALE_PLATEAU_PATIENCE,
                   model_overrides=preset_overrides(base.model, model))


def head1x1_config(base: TrainConfig) -> TrainConfig:
    """The head-shape control's recipe: the scale recipe at 201 k under seed 9
    (:func:`scale_config`, as ``scale-201k-regular-seed9`` and ``scale-201k-trunk-seed9``), its
    network one expert of that shared-trunk mixture (:func:`~chessmoe.nets.trunk.trunk_config`
    with one head: the regular network's trunk, the mixture's wider shared policy convolution
    and its 1x1 policy output), trained on every position like the regular network."""
    config = scale_config(base, "201k", 9)
    head = replace(trunk_config(config.model_config()), phase_heads=1)
    return replace(config, model_overrides=preset_overrides(base.model, head))


def scale_jobs(base: TrainConfig, out: Path
               ) -> list[tuple[str, str, float | None, TrainConfig, Path | None]]:
    """The scale design's networks as training jobs ``(bundle, regime, a, config,
    baseline)``, size by size (:data:`~chessmoe.nets.names.SCALE_SIZES`: the profile's size
    first), seed by seed, each seed's regular network before its mixtures (their baseline), so
    every finished seed can be played while the next trains."""
    jobs: list[tuple[str, str, float | None, TrainConfig, Path | None]] = []
    for size in SCALE_SIZES:
        for seed in SCALE_SEEDS[size]:
            regular = out / scale_bundle("regular", size, seed)
            jobs += [(scale_bundle(method, size, seed), method, None,
                      scale_config(base, size, seed), None if method == "regular" else regular)
                     for method in SCALE_METHODS]
    return jobs


@dataclass(frozen=True)
class ControlPlan:
    """Which controls to train: extra seeds of the regular network (the profile's own seed
    is the committed ``regular`` bundle), whether to train ``separated-long`` and whether to
    train ``regular-long`` (the regular network for ``phases`` times its iterations), and
    the extra seeds of ``regular-long`` (``regular-long-seed<N>``), whether to train
    ``regular-wide`` (``phases`` times the parameters, ``regular-long``'s steps) and which
    methods to train until convergence (``<method>-converged``), these last three in
    this order after the others, and whether to train ``regular-bf16``. What each control
    tests:

    * **Seed noise** of the regular network: the same data and schedule under other seeds
      (``regular-seed<N>`` bundles). Table 1's loss differences are compared with the spread
      of these runs (the paper reports one run per regime).
    * **Equal-iteration separated experts** (``separated-long``): each separated expert
      trains on a third of the positions, so at the profile's epoch budget it makes 0.3-0.4x
      the regular network's optimiser steps. Training it for as many iterations as the
      regular network tests the explanation that separated learning loses because it is
      data-starved (fewer updates) rather than because its experts see only their phase.
    * **Equal-compute regular network** (``regular-long``): ``separated-long`` spends the
      regular network's iterations on *each* expert, three times its total. The regular
      network trained for that same total separates the separated experts' gain from the
      extra training.
    * **Seed noise of the mixtures** (``staged-seed<N>``, ``weighted-a10-seed<N>``): the
      methods whose gain the paper reports, retrained under other seeds, so every Elo can be
      read against the spread of both the mixture's and the regular network's seeds.
    * **Seed noise of the equal-compute network** (``regular-long-seed<N>``):
      ``regular-long`` under the same other seeds, so the head-to-head equal-compute result
      is read over the training seeds of both sides (the ``seeds-long`` tournament design).
    * **Parameter-matched single network** (``regular-wide``): a mixture of three experts
      holds three times the regular network's parameters. The regular network widened to
      that count (:func:`~chessmoe.nets.model.matched_width`: every channel count scaled, the
      depth kept) and trained for ``regular-long``'s steps (the same schedule, batch and
      seed) separates the mixture's gain from its size. It is slower per node than one
      expert, so it is played at equal nodes and at equal move time.
    * **Mixed-precision training** (``regular-bf16``): the regular network with its seed and
      steps, its forward pass under bf16 autocast (``cpu_amp=bf16``); its test losses and a
      match against ``regular`` say whether bf16 training may replace fp32 for new designs.
    * **Trained to convergence** (``regular-converged``, ``staged-converged``,
      ``weighted-a10-converged``): the data-limited regime. Each run trains until its
      validation loss has not improved (by more than :data:`CONVERGED_MIN_DELTA`) for
      :data:`CONVERGED_PATIENCE` evaluations, at most :data:`CONVERGED_CAP_EPOCHS` epochs of
      its own training data, on the plateau schedule (see :func:`converged_config` for why
      not the one-cycle). A staged expert applies the patience to each stage on its own: a
      stage stops when its own validation loss (on the stage's phase, as in every staged
      run) has not improved for the patience, and the next stage starts from that stage's
      best weights with a fresh optimiser, a fresh warm-up and a fresh count. Each expert's
      manifest entry records, per stage, where it stopped, its best iteration and why
      (``convergence``).
    * **Scale** (``scale-<size>-<method>-seed<N>``, :func:`scale_jobs`): ``regular``,
      ``staged`` and the shared-trunk mixture at three sizes, under two or three seeds, every
      one on one early-stopped recipe (:func:`scale_config`), in fp32.
    * **The trunk's head shape** (``regular-head1x1``, :func:`head1x1_config`): at 201 k,
      seed 9, the shared-trunk mixture's test loss lies above the regular network's; each of
      its heads ends in a 1x1 policy convolution where the regular network's is 3x3. One of
      its experts' networks trained as a single network on every position separates that
      output's cost (against ``scale-201k-regular-seed9``) from the phase heads' (against
      ``scale-201k-trunk-seed9``)."""

    seeds: tuple[int, ...] = CONTROL_SEEDS
    separated_long: bool = True
    regular_long: bool = True
    phases: int = 3
    methods: tuple[BundleSpec, ...] = METHOD_SEEDS
    regular_long_seeds: tuple[int, ...] = CONTROL_SEEDS
    regular_wide: bool = False
    converged: tuple[BundleSpec, ...] = ()
    bf16: bool = False
    scale: bool = False
    head1x1: bool = False

    @classmethod
    def of(cls, spec: TrainingPlan) -> ControlPlan:
        """The controls a profile's training plan names (``TrainingPlan.controls``): seeds of
        ``regular-long`` where it names both the seeds and ``regular-long``; ``converged``:
        every method of :data:`CONVERGED`."""
        seeds = "seeds" in spec.controls
        long = "regular-long" in spec.controls
        return cls(seeds=CONTROL_SEEDS if seeds else (),
                   separated_long="separated-long" in spec.controls,
                   regular_long=long,
                   methods=METHOD_SEEDS if seeds else (),
                   regular_long_seeds=CONTROL_SEEDS if seeds and long else (),
                   regular_wide="regular-wide" in spec.controls,
                   converged=CONVERGED if "converged" in spec.controls else (),
                   bf16="bf16" in spec.controls, scale="scale" in spec.controls,
                   head1x1="head1x1" in spec.controls)


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


#: The lock a runner holds on a control bundle while it trains and evaluates it (released
#: however the process ends), so two runners of one plan never write one bundle: a second
#: runner skips a bundle another trains and takes the next, and the two share the plan's work.
TRAINING_LOCK = ".training.lock"


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
    if plan.regular_wide:
        jobs.append((REGULAR_WIDE, "regular", None,
                     wide_config(base, plan.phases, plan.phases * _regular_iterations(regular)),
                     None))
    # trained until convergence; the mixtures' reference is the converged regular network
    converged = converged_config(base)
    reference = out / converged_bundle("regular")
    jobs += [(converged_bundle(method.name(spec.definition)), method.regime, method.a, converged,
              None if method.regime == "regular" else reference)
             for method in plan.converged]
    if plan.bf16:  # the regular network's seed and steps, its forward pass in bf16
        jobs.append((REGULAR_BF16, "regular", None, replace(base, cpu_amp="bf16"), None))
    if plan.scale:  # days of CPU: resumable, size by size
        jobs += scale_jobs(base, out)
    if plan.head1x1:  # a single network of the shared-trunk mixture's expert shape
        jobs.append((REGULAR_HEAD1X1, "regular", None, head1x1_config(base), None))
    todo = [job for job in jobs if not _finished(out / job[0])]
    dataset_dir = profile_dataset(spec, data_dir=data_dir, progress=progress) if todo else None
    for name, regime, a, config, baseline in todo:
        assert dataset_dir is not None
        try:
            lock = hold_lock(out / name / TRAINING_LOCK, f"{out / name}")
        except BusyError as busy:  # another runner trains it: take the next one
            print(f"chessmoe train: skipped: {busy}", file=sys.stderr)
            continue
        with lock:
            if _finished(out / name):  # another runner finished it since this one started
                continue
            train_bundle(regime, out, dataset_dir, config, definition=spec.definition, a=a,
                         profile=profile, progress=progress, name=name,
                         baseline=None if baseline is None
                         else os.path.relpath(baseline, out / name))
            evaluate_bundle(out / name, dataset_dir, test_samples=spec.test_samples)
    return [out / job[0] for job in jobs]
