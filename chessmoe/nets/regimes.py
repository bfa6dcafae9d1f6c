"""The four training regimes of the paper (sec. 2.2) -- regular, separated, staged and
weighted (:data:`REGIMES`) -- and the shared-trunk mixture (``trunk``, not the paper's), and
the expert bundles they produce: :func:`train_bundle` trains (or resumes) one into a bundle
directory with its manifest (Table 1's evaluation of it: :mod:`chessmoe.nets.evaluation`).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import shutil
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, cast

from chessmoe._io.fsutil import atomic_write_json, sha256_file
from chessmoe._io.jobs import follow_parent
from chessmoe._io.jsonl import read_records
from chessmoe._io.provenance import provenance
from chessmoe.nets.checkpoints import load_checkpoint
from chessmoe.nets.evaluation import evaluate_bundle
from chessmoe.nets.model import preset_overrides
from chessmoe.nets.names import BALANCED_SUFFIX, CONTROL_DESCRIPTIONS
from chessmoe.nets.recipes import balanced_phase_weights, phase_weights
from chessmoe.nets.training import (
    EXECUTION_OPTIONS,
    DataSpec,
    TrainConfig,
    Trainer,
)
from chessmoe.nets.trunk import trunk_config
from chessmoe.phases import phase_definition

__all__ = [
    "ALL_REGIMES",
    "CONTROLS",
    "DEFAULT_CONTROLS",
    "REGIMES",
    "ExpertJob",
    "TrainingPlan",
    "bundle_name",
    "plan",
    "regime_config",
    "split_trunk",
    "stage_order",
    "train_all",
    "train_bundle",
    "train_profile",
    "trained_experts",
]

Regime = Literal["regular", "separated", "staged", "weighted", "trunk"]
REGIMES: tuple[Regime, ...] = ("regular", "separated", "staged", "weighted")
"""* ``regular`` -- one network on all positions (the baseline);
* ``separated`` -- one expert per phase, trained on that phase's positions only;
* ``staged`` -- each expert is trained on the other phases first and on its own phase
  last, a fresh optimiser per stage, weights carried from the previous stage's best
  checkpoint;
* ``weighted`` -- each expert sees all positions, its own phase weighted ``a`` times the
  others, weights normalised to mean 1 (:func:`phase_weights`, paper Table 5); a *balanced*
  bundle (``weighted-a<a>-balanced``, not the paper's) rescales them to mean 1 over the
  training data's phase shares (:func:`balanced_phase_weights`)."""
#: Every regime a bundle can be trained in: the paper's and ``trunk`` (the shared-trunk
#: mixture of :mod:`chessmoe.nets.trunk`: one network trained on every position, each through
#: its phase's head, then split into one expert a phase; opt-in, never a profile's default).
ALL_REGIMES: tuple[Regime, ...] = (*REGIMES, "trunk")
#: The controls of :mod:`chessmoe.nets.controls`: the regular network and the seeded
#: mixtures under other seeds, the equal-iteration separated experts, the regular network
#: trained for the mixtures' total steps, the regular network with the mixture's parameters
#: (``regular-wide``), the methods trained until convergence (``converged``) and the regular
#: network trained under bf16 autocast (``bf16``: the validation of mixed-precision training),
#: the scale design's networks (``scale``: three sizes, regular, staged and trunk) and the
#: shared-trunk mixture's head-shape control (``head1x1``: one of its experts' networks as a
#: single network).
Control = Literal["seeds", "separated-long", "regular-long", "regular-wide", "converged",
                  "bf16", "scale", "head1x1"]
CONTROLS: tuple[Control, ...] = cast("tuple[Control, ...]", tuple(CONTROL_DESCRIPTIONS))
#: The controls a profile trains unless it names others: the last two are opt-in (hours of
#: CPU each; ``chessmoe train --controls --control NAME``).
DEFAULT_CONTROLS: tuple[Control, ...] = ("seeds", "separated-long", "regular-long")


# --- weights (paper sec. 2.2, Table 5) ----------------------------------------------------


# --- profiles -------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainingPlan:
    """How a profile trains every regime (the training stage of :mod:`chessmoe.config`)."""

    train: TrainConfig = field(metadata={"doc": "hyper-parameters of every run (Table 7)"})
    source: str = field(metadata={"doc": "dataset source: sample | lichess-YYYY-MM:N | "
                                         "kingbase | selfplay:RUN | A+B | a path"})
    definition: str = field(default="lichess",
                            metadata={"doc": "phase definition the experts split by"})
    max_games: int | None = field(default=None,
                                  metadata={"doc": "cut the source to N games (smoke)"})
    weighted_a: tuple[float, ...] = field(default=(4, 10),
                                          metadata={"doc": "factors a of the weighted regime"})
    definitions: tuple[str, ...] = field(
        default=(), metadata={"doc": "other definitions with separated experts (Fig. 7)"})
    workers: int = field(default=1, metadata={"doc": "experts trained in parallel processes"})
    regimes: tuple[Regime, ...] = field(
        default=REGIMES, metadata={"doc": "regimes 'chessmoe train' trains when none is named"})
    controls: tuple[Control, ...] = field(
        default=DEFAULT_CONTROLS,
        metadata={"doc": "controls 'chessmoe train --controls' trains: seeds, separated-long, "
                         "regular-long (opt-in, or with --control: regular-wide, converged)"})
    pipeline_controls: bool = field(
        default=False, metadata={"doc": "'make results' trains the controls after the regimes "
                                        "(when the profile's tournament plays them)"})
    test_samples: int | None = field(
        default=None, metadata={"doc": "Table 1 evaluates this seeded subset of the test "
                                       "positions, the same for every bundle (None: all)"})

    def __post_init__(self) -> None:
        for name, given, known in (("regime", self.regimes, ALL_REGIMES),
                                   ("control", self.controls, CONTROLS)):
            unknown = [g for g in given if g not in known]
            if unknown:
                raise ValueError(f"unknown {name} {unknown[0]!r}; known: {', '.join(known)}")
        if self.test_samples is not None and self.test_samples < 1:
            raise ValueError(f"test_samples must be a positive count or None, "
                             f"not {self.test_samples}")


# --- plans -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    """One training run of an expert: the dataset it trains on and its sample weights."""

    train: str
    weights: tuple[float, ...] | None = None


@dataclass(frozen=True)
class ExpertJob:
    """Everything needed to train one expert (or the baseline) of a bundle."""

    name: str  # "phase0", ..., "baseline", or "trunk"
    phase: int | None
    stages: tuple[Stage, ...]
    validation: str
    splits: tuple[str, ...] = ()  # the experts a trunk network is split into after training

    @property
    def experts(self) -> tuple[str, ...]:
        """The experts the job leaves in its bundle (its own name, or its splits)."""
        return self.splits or (self.name,)


def bundle_name(regime: str, a: float | None = None, definition: str | None = None,
                balanced: bool = False) -> str:
    """Directory name of a regime's bundle, e.g. ``weighted-a4``, ``weighted-a10-balanced``
    or, for a bundle trained with another phase definition than the profile's,
    ``separated-movecount3``."""
    if regime == "weighted":
        if a is None:
            raise ValueError("the weighted regime needs a")
        name = f"weighted-a{a:g}" + (BALANCED_SUFFIX if balanced else "")
    else:
        name = regime
    return f"{name}-{definition}" if definition else name


def stage_order(main: int, n_phases: int = 3,
                order: Sequence[int] | None = None) -> tuple[int, ...]:
    """Phase order of the staged expert for ``main``: by default the other phases in
    their natural order, then ``main`` (the last stage defines the expert)."""
    if order is None:
        return (*[p for p in range(n_phases) if p != main], main)
    order = tuple(order)
    if sorted(order) != list(range(n_phases)) or order[-1] != main:
        raise ValueError(f"a staged order must list every phase once and end with {main}: "
                         f"{order}")
    return order


def plan(regime: str, definition: str = "lichess", *, a: float | None = None,
         orders: dict[int, Sequence[int]] | None = None,
         shares: Sequence[float] | None = None) -> list[ExpertJob]:
    """The training jobs of one regime; ``shares`` (weighted only: the phases' shares of the
    training positions) balances the weights over them (:func:`balanced_phase_weights`)."""
    names = phase_definition(definition).phase_names
    n = len(names)
    if shares is not None and regime != "weighted":
        raise ValueError("phase shares balance the weighted regime's weights only")
    if regime == "regular":
        return [ExpertJob("baseline", None, (Stage("no-phases"),), "no-phases")]
    if regime == "trunk":
        return [ExpertJob("trunk", None, (Stage("no-phases"),), "no-phases",
                          splits=tuple(f"phase{p}" for p in range(n)))]
    if regime == "separated":
        return [ExpertJob(f"phase{p}", p, (Stage(names[p]),), names[p]) for p in range(n)]
    if regime == "staged":
        return [ExpertJob(f"phase{p}", p,
                          tuple(Stage(names[q]) for q in stage_order(p, n, (orders or {})
                                                                      .get(p))), names[p])
                for p in range(n)]
    if regime == "weighted":
        if a is None:
            raise ValueError("the weighted regime needs a")
        if shares is not None and len(shares) != n:
            raise ValueError(f"{len(shares)} phase shares for the {n} phases of {definition}")
        return [ExpertJob(f"phase{p}", p, (Stage("no-phases", phase_weights(a, p, n)
                                                  if shares is None
                                                  else balanced_phase_weights(a, p, shares)),),
                          "no-phases") for p in range(n)]
    raise ValueError(f"unknown regime {regime!r}; known: {', '.join(ALL_REGIMES)}")


def regime_config(regime: str, config: TrainConfig, phases: int = 3) -> TrainConfig:
    """The configuration ``regime`` trains with: ``config`` itself, except for ``trunk``,
    whose network is :func:`~chessmoe.nets.trunk.trunk_config` of ``config``'s (a head per
    phase, its parameters and cost per position within 10 % of ``config``'s network),
    recorded as ``model_overrides`` on the same preset."""
    model = config.model_config()
    if regime != "trunk" or model.phase_heads > 1:
        return config
    return replace(config, model_overrides=preset_overrides(
        config.model, trunk_config(model, phases)))


# --- training ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _JobArgs:
    job: ExpertJob
    bundle: str
    dataset_dir: str
    definition: str
    config: TrainConfig
    progress: bool
    keep_stage_checkpoints: bool = False


def _stage_dir(expert_dir: Path, k: int, stage: Stage, stages: int) -> Path:
    return expert_dir if stages == 1 else expert_dir / "stages" / f"stage{k + 1}-{stage.train}"


def _train_job(args: _JobArgs) -> dict[str, Any]:
    """Train one expert (all its stages); return its summary (runs in a worker process)."""
    job = args.job
    expert_dir = Path(args.bundle) / job.name
    init: Path | None = None
    summaries = []
    offset = 0
    merged: list[dict[str, Any]] = []
    for k, stage in enumerate(job.stages):
        run_dir = _stage_dir(expert_dir, k, stage, len(job.stages))
        data = DataSpec(args.dataset_dir, args.definition, train=stage.train,
                        validation=stage.train if len(job.stages) > 1 else job.validation,
                        weights=stage.weights)
        label = f"{Path(args.bundle).name}/{job.name}" + (
            f" stage {k + 1} ({stage.train})" if len(job.stages) > 1 else "")
        summary = Trainer(run_dir, args.config, data, init_from=init, progress=args.progress,
                          label=label).run()
        summaries.append(summary)
        for row in read_records(run_dir / "metrics.jsonl").records:
            merged.append({**row, "iteration": row["iteration"] + offset, "stage": k + 1,
                           "stage_train": stage.train})
        offset += int(summary["iterations"])
        init = run_dir / "model.pt"
    if len(job.stages) > 1:  # the last stage defines the expert
        last = _stage_dir(expert_dir, len(job.stages) - 1, job.stages[-1], len(job.stages))
        for name in ("model.pt", "model.pt.json", "model.onnx", "config.json"):
            if name == "model.onnx" and not (last / name).exists():
                continue  # not committed (rebuilt from model.pt where it is needed): a clone
            shutil.copyfile(last / name, expert_dir / name)
        with open(expert_dir / "metrics.jsonl", "w") as handle:
            handle.writelines(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n"
                              for r in merged)
        if not args.keep_stage_checkpoints:
            for k, stage in enumerate(job.stages[:-1]):
                for name in ("model.pt", "model.onnx"):
                    (_stage_dir(expert_dir, k, stage, len(job.stages)) / name).unlink(
                        missing_ok=True)
        final = {k: v for k, v in summaries[-1].items() if k != "convergence"}
        atomic_write_json(expert_dir / "summary.json", {
            **final, "stages": [
                {"train": s.train, "iterations": int(m["iterations"]),
                 "best_val_loss": m["best_val_loss"],
                 **({"precision": m["precision"]} if "precision" in m else {}),
                 **({"convergence": m["convergence"]} if "convergence" in m else {})}
                for s, m in zip(job.stages, summaries, strict=True)],
            "iterations": offset})
    summary = json.loads((expert_dir / "summary.json").read_text())
    if job.splits:
        summary["split"] = split_trunk(Path(args.bundle), job, summary)
    return summary  # type: ignore[no-any-return]


def split_trunk(bundle: Path, job: ExpertJob, summary: dict[str, Any]
                ) -> dict[str, dict[str, Any]]:
    """Split the trained shared-trunk network ``bundle/<job.name>/model.pt`` into one plain
    network a phase (:meth:`~chessmoe.nets.trunk.PhaseHeadNet.expert`): ``bundle/phase<k>/``
    with its checkpoint, ONNX export and summary (the trunk run's, its checkpoint replaced,
    ``trunk`` naming the head and the trunk checkpoint it came from), so the bundle is read,
    evaluated and played like any mixture. Deterministic; a split already made from the same
    trunk checkpoint is kept as it is. Returns each expert's summary."""
    from chessmoe.nets.checkpoints import export_onnx, save_checkpoint
    from chessmoe.nets.trunk import PhaseHeadNet

    source = bundle / job.name / "model.pt"
    trunk_sha = summary["checkpoint"]["sha256"]
    network: PhaseHeadNet | None = None
    out: dict[str, dict[str, Any]] = {}
    for head, name in enumerate(job.splits):
        expert_dir = bundle / name
        done = expert_dir / "summary.json"
        if done.exists():
            kept: dict[str, Any] = json.loads(done.read_text())
            if kept.get("trunk", {}).get("sha256") == trunk_sha:
                out[name] = kept
                continue
        if network is None:
            loaded = load_checkpoint(source)
            if not isinstance(loaded, PhaseHeadNet):
                raise ValueError(f"{source} is not a shared-trunk network")
            network = loaded
        expert_dir.mkdir(parents=True, exist_ok=True)
        expert = network.expert(head)
        meta = save_checkpoint(expert_dir / "model.pt", expert,
                               {"iteration": summary["best_iteration"],
                                "val_loss": summary["best_val_loss"], "trunk_head": head})
        export_onnx(expert, expert_dir / "model.onnx")
        out[name] = {**{k: v for k, v in summary.items() if k not in ("split", "onnx")},
                     "checkpoint": {"file": "model.pt", "sha256": meta["sha256"]},
                     "onnx": {"file": "model.onnx",
                              "sha256": sha256_file(expert_dir / "model.onnx")},
                     "trunk": {"checkpoint": f"{job.name}/model.pt", "sha256": trunk_sha,
                               "head": head}}
        atomic_write_json(done, out[name])
    return out


def trained_experts(jobs: Sequence[ExpertJob], results: Sequence[dict[str, Any]]
                    ) -> dict[str, dict[str, Any]]:
    """Each expert's summary by name: a job's own, or each of a trunk job's splits."""
    trained: dict[str, dict[str, Any]] = {}
    for job, result in zip(jobs, results, strict=True):
        trained.update(result["split"] if job.splits else {job.name: result})
    return trained


def _run_jobs(args: Sequence[_JobArgs], workers: int) -> list[dict[str, Any]]:
    """Train jobs, in parallel processes when ``workers > 1`` (longest jobs first)."""
    if workers <= 1 or len(args) <= 1:
        return [_train_job(x) for x in args]
    order = sorted(range(len(args)), key=lambda i: -_cost(args[i]))
    results: dict[int, dict[str, Any]] = {}
    with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"),
                             initializer=follow_parent) as pool:
        futures = {i: pool.submit(_train_job, args[i]) for i in order}
        for i, future in futures.items():
            results[i] = future.result()
    return [results[i] for i in range(len(args))]


def _cost(args: _JobArgs) -> float:
    """Relative cost of a job: stages, weighted by how much data each stage sees."""
    return sum(3.0 if stage.train == "no-phases" else 1.0 for stage in args.job.stages)


def _learning(config: dict[str, Any]) -> dict[str, Any]:
    """A recorded training configuration less how it executed (:data:`EXECUTION_OPTIONS`)."""
    return {k: v for k, v in config.items() if k not in EXECUTION_OPTIONS}


def finished_bundle_changes(bundle: Path, jobs: Sequence[ExpertJob], config: TrainConfig,
                            dataset_dir: str | os.PathLike[str]) -> list[str] | None:
    """What training ``jobs`` with ``config`` on ``dataset_dir`` would change in a finished
    bundle (its manifest names every job's expert and its Table 1 evaluation is written):
    ``[]`` when nothing (the same learning settings, on a dataset of the same games and
    split, whatever machine rebuilt it), else the differences in a few words; ``None`` when
    the bundle is not finished (training resumes it)."""
    manifest_path, evaluation_path = bundle / "manifest.json", bundle / "evaluation.json"
    if not (manifest_path.exists() and evaluation_path.exists()):
        return None
    manifest = json.loads(manifest_path.read_text())
    if any(name not in manifest.get("experts", {}) for job in jobs for name in job.experts):
        return None
    changes: list[str] = []
    recorded = _learning(manifest.get("train_config", {}))
    wanted = _learning(json.loads(json.dumps(config.to_dict())))
    differ = sorted(k for k in set(recorded) | set(wanted) if recorded.get(k) != wanted.get(k))
    if differ:
        changes.append(f"{_OTHER_SETTINGS}: {', '.join(differ)}")
    data = json.loads((Path(dataset_dir) / "manifest.json").read_text())
    trained_on = manifest.get("dataset", {})
    if trained_on.get("games_table_sha256") is not None:
        same_data = trained_on["games_table_sha256"] == data.get("games_table", {}).get("sha256")
    else:  # recorded before the games table's sha256: its source, name and split say which
        same_data = ((trained_on.get("source"), trained_on.get("name"), trained_on.get("split"))
                     == (data["source"]["spec"], data["source"]["name"],
                         data["split"]["description"]))
    if not same_data:
        changes.append(_OTHER_DATASET)
    evaluation = json.loads(evaluation_path.read_text())
    if evaluation.get("inputs", {}).get("experts") != {
            k: v["sha256"] for k, v in manifest["experts"].items()}:
        changes.append("an evaluation of other experts")
    return changes


_OTHER_SETTINGS = "other training settings"
_OTHER_DATASET = "another dataset"


def _may_train(bundle: Path, jobs: Sequence[ExpertJob], config: TrainConfig,
               dataset_dir: str | os.PathLike[str], force: bool) -> bool:
    """Whether to (re)train and (re)write ``bundle``: false for a finished bundle this run
    would not change (it is left as it is); a finished bundle it would change is replaced only
    where it is not committed evidence, or with ``force``. Replacing it under other settings
    or data retrains the jobs' experts from scratch (a finished run is otherwise reused as it
    is, and its manifest would name settings it was not trained with); a stale evaluation
    alone is only evaluated again."""
    from chessmoe._io.evidence import refuse_replacing

    changes = finished_bundle_changes(bundle, jobs, config, dataset_dir)
    if changes is None:
        return True
    if not changes and not force:
        return False
    refuse_replacing(bundle, force=force, elsewhere="--results DIR",
                     what="a finished expert bundle", reason="; ".join(changes) or "retrained")
    if any(c.startswith(_OTHER_SETTINGS) or c == _OTHER_DATASET for c in changes):
        for job in jobs:
            for name in {job.name, *job.experts}:
                shutil.rmtree(bundle / name, ignore_errors=True)
    return True


def train_bundle(regime: str, out_dir: str | os.PathLike[str], dataset_dir: str | os.PathLike[str],
                 config: TrainConfig, *, definition: str = "lichess", a: float | None = None,
                 phases: Sequence[int] | None = None, workers: int = 1,
                 orders: dict[int, Sequence[int]] | None = None, profile: str = "custom",
                 progress: bool = True, baseline: str | os.PathLike[str] | None = None,
                 name: str | None = None, balanced: bool = False,
                 force: bool = False) -> dict[str, Any]:
    """Train (or resume) every expert of a regime into ``out_dir/<bundle name>/``: one run
    directory per expert, ``phase0/``, ``phase1/``, ... (see :mod:`chessmoe.nets.training`),
    or ``baseline/`` for the regular regime, and a ``manifest.json`` naming the regime,
    definition, dataset, profile and each expert's checkpoint and metrics.

    ``phases`` limits the experts trained (e.g. one separated expert); ``workers``
    trains independent experts in parallel processes; ``baseline`` names the regular
    bundle the search should compare against (recorded in the manifest); ``name``
    replaces the bundle's directory name (controls such as ``regular-seed10``);
    ``balanced`` (weighted only) balances the weights over the training data's phase shares.
    A finished bundle this run would not change is returned as it is; one it would change is
    replaced only with ``force`` where it is committed (:func:`_may_train`).
    """
    bundle = Path(out_dir) / (name or bundle_name(regime, a, balanced=balanced))
    config = regime_config(regime, config, len(phase_definition(definition).phase_names))
    shares = train_shares(dataset_dir, definition) if balanced else None
    jobs = plan(regime, definition, a=a, orders=orders, shares=shares)
    if phases is not None:
        jobs = [j for j in jobs if j.phase in set(phases)]
    if not _may_train(bundle, jobs, config, dataset_dir, force):
        return json.loads((bundle / "manifest.json").read_text())  # type: ignore[no-any-return]
    bundle.mkdir(parents=True, exist_ok=True)
    args = [_JobArgs(j, str(bundle), str(dataset_dir), definition, config, progress)
            for j in jobs]
    results = _run_jobs(args, workers)
    return write_manifest(bundle, regime, definition, dataset_dir, config, a=a,
                          profile=profile, baseline=baseline,
                          trained=trained_experts(jobs, results),
                          balance=_balance(jobs, shares))


#: The copy of the dataset manifest a bundle was trained on, kept in the bundle: a dataset
#: directory is rebuilt on every machine (its shards, and so its manifest's checksum, depend on
#: the build's workers), so the manifest the checksum names must travel with the bundle.
#: ``games_table_sha256`` (the games and their split) is the same for every build of a source.
DATASET_MANIFEST_COPY = "dataset-manifest.json"


def keep_dataset_manifest(bundle: Path, dataset_manifest: Path) -> Path:
    """Copy ``dataset_manifest`` into ``bundle`` (atomically, byte for byte)."""
    from chessmoe._io.fsutil import atomic_path

    target = bundle / DATASET_MANIFEST_COPY
    with atomic_path(target) as tmp:
        tmp.write_bytes(dataset_manifest.read_bytes())
    return target


def train_shares(dataset_dir: str | os.PathLike[str], definition: str) -> tuple[float, ...]:
    """Each phase's share of the training positions under ``definition``, from the dataset's
    manifest (what a balanced weighted bundle balances its weights over)."""
    data = json.loads((Path(dataset_dir) / "manifest.json").read_text())
    counts = data.get("datasets", {}).get(definition, {}).get("train", {})
    names = phase_definition(definition).phase_names
    missing = [n for n in names if n not in counts]
    if missing:
        raise ValueError(f"{dataset_dir}: the manifest counts no training positions of "
                         f"{', '.join(missing)} under {definition}; rebuild the dataset")
    positions = [int(counts[n]["positions"]) for n in names]
    return tuple(p / sum(positions) for p in positions)


def _balance(jobs: Sequence[ExpertJob], shares: Sequence[float] | None
             ) -> dict[str, Any] | None:
    """What a balanced bundle's manifest records: the shares and each expert's weights."""
    if shares is None:
        return None
    return {"phase_shares": [round(x, 6) for x in shares],
            "weights": {j.name: [round(w, 6) for w in (j.stages[0].weights or ())]
                        for j in jobs},
            "note": "the paper's weights (Table 5) rescaled to mean 1 over the training "
                    "positions' phase shares (not the paper's recipe)"}


def _precision(summary: dict[str, Any]) -> dict[str, Any]:
    """The precision an expert trained in (every stage's, for a staged expert), where its
    summary names one: runs made before it was recorded trained in fp32 on the CPU."""
    stages = summary.get("stages") or [summary]
    named = {stage["precision"] for stage in stages if "precision" in stage}
    if not named:
        return {}
    if len(named) > 1:
        raise ValueError(f"an expert's stages trained in different precisions: {sorted(named)}")
    return {"precision": named.pop()}


def _convergence(summary: dict[str, Any]) -> dict[str, Any]:
    """What a manifest records of how an expert trained until convergence ended: its runs'
    convergence records, one per stage (``train`` names the stage's data), under
    ``convergence``; nothing for a fixed-length expert."""
    stages = summary.get("stages") or [summary]
    records = [{**({"train": stage["train"]} if "train" in stage else {}),
                **stage["convergence"]} for stage in stages if "convergence" in stage]
    return {"convergence": records} if records else {}


def write_manifest(bundle: Path, regime: str, definition: str,
                   dataset_dir: str | os.PathLike[str], config: TrainConfig, *,
                   a: float | None, profile: str, baseline: str | os.PathLike[str] | None,
                   trained: dict[str, dict[str, Any]],
                   balance: dict[str, Any] | None = None) -> dict[str, Any]:
    """The bundle manifest: regime, definition, data, profile and every expert present
    (``balance``: a balanced weighted bundle's shares and weights)."""
    manifest_path = bundle / "manifest.json"
    old = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    experts = dict(old.get("experts", {}))
    for name, summary in trained.items():
        experts[name] = {"checkpoint": f"{name}/model.pt",
                         "sha256": summary["checkpoint"]["sha256"],
                         "best_val_loss": summary["best_val_loss"],
                         "iterations": summary["iterations"], "seconds": summary["seconds"],
                         "spikes": summary["spikes"], **_precision(summary),
                         **({"trunk": summary["trunk"]} if "trunk" in summary else {}),
                         **_convergence(summary)}
    dataset_manifest = Path(dataset_dir) / "manifest.json"
    data = json.loads(dataset_manifest.read_text())
    manifest = {
        "kind": "chessmoe expert bundle",
        "regime": regime, "a": a, "definition": definition,
        "phase_names": list(phase_definition(definition).phase_names),
        "profile": profile,
        "train_config": config.to_dict(),
        "model": config.model_config().to_dict(),
        "dataset": {"source": data["source"]["spec"], "name": data["source"]["name"],
                    "manifest_sha256": sha256_file(dataset_manifest),
                    "manifest_copy": DATASET_MANIFEST_COPY,
                    "games_table_sha256": data.get("games_table", {}).get("sha256"),
                    "split": data["split"]["description"]},
        "baseline": str(baseline) if baseline is not None else None,
        "experts": dict(sorted(experts.items())),
        **({"balanced_weights": balance} if balance is not None else {}),
        "provenance": provenance(),
    }
    keep_dataset_manifest(bundle, dataset_manifest)
    if old and {k: v for k, v in old.items() if k != "provenance"} == json.loads(json.dumps(
            {k: v for k, v in manifest.items() if k != "provenance"})):
        return old  # nothing changed: keep the file (and its provenance) as it is
    atomic_write_json(manifest_path, manifest)
    return manifest


@dataclass(frozen=True)
class BundleSpec:
    """One bundle to train: its regime, the weighting factor ``a`` (weighted regime only) and
    the phase definition its experts split by (``None``: the profile's)."""

    regime: Regime
    a: float | None = None
    definition: str | None = None
    balanced: bool = False  # weighted only: weights balanced over the data's phase shares

    def __post_init__(self) -> None:
        if self.regime not in ALL_REGIMES:
            raise ValueError(f"unknown regime {self.regime!r}; known: "
                             f"{', '.join(ALL_REGIMES)}")
        if (self.regime == "weighted") != (self.a is not None):
            raise ValueError("the weighted regime, and only it, takes a factor a")
        if self.balanced and self.regime != "weighted":
            raise ValueError("only the weighted regime's weights can be balanced")

    def resolved(self, default: str) -> tuple[str, str | None]:
        """(definition, directory suffix): the suffix names a non-default definition."""
        definition = self.definition or default
        return definition, (definition if definition != default else None)

    def name(self, default: str) -> str:
        """The bundle's directory name under the profile's definition ``default``."""
        return bundle_name(self.regime, self.a, self.resolved(default)[1], self.balanced)


ALL_BUNDLES: tuple[BundleSpec, ...] = (BundleSpec("regular"), BundleSpec("separated"),
                                       BundleSpec("staged"), BundleSpec("weighted", 4.0),
                                       BundleSpec("weighted", 10.0))


def train_all(out_dir: str | os.PathLike[str], dataset_dir: str | os.PathLike[str],
              config: TrainConfig, *, definition: str = "lichess",
              bundles: Sequence[BundleSpec] = ALL_BUNDLES, workers: int = 1,
              profile: str = "custom", progress: bool = True,
              evaluate: bool = True,
              test_samples: int | None = None,
              force: bool = False) -> dict[str, dict[str, Any]]:
    """Train every expert of several regimes, all jobs sharing one pool of ``workers``
    processes (longest first), then write each bundle's manifest and evaluation. A finished
    bundle this run would not change is left as it is (its manifest is returned); one it would
    change is replaced only with ``force`` where it is committed (:func:`_may_train`)."""
    out = Path(out_dir)
    regular = out / bundle_name("regular")
    planned: list[tuple[str, ExpertJob]] = []
    args: list[_JobArgs] = []
    balances: dict[str, tuple[float, ...] | None] = {}  # a balanced bundle's phase shares
    manifests: dict[str, dict[str, Any]] = {}
    configs: dict[str, TrainConfig] = {}  # each bundle's (a trunk's network differs)
    for spec in bundles:
        name, bundle_definition = spec.name(definition), spec.resolved(definition)[0]
        shares = train_shares(dataset_dir, bundle_definition) if spec.balanced else None
        balances[name] = shares
        jobs = plan(spec.regime, bundle_definition, a=spec.a, shares=shares)
        configs[name] = regime_config(spec.regime, config,
                                      len(phase_definition(bundle_definition).phase_names))
        if not _may_train(out / name, jobs, configs[name], dataset_dir, force):
            manifests[name] = json.loads((out / name / "manifest.json").read_text())
            continue
        for job in jobs:
            planned.append((name, job))
            args.append(_JobArgs(job, str(out / name), str(dataset_dir), bundle_definition,
                                 configs[name], progress))
    results = _run_jobs(args, workers)
    for spec in bundles:
        name, bundle_definition = spec.name(definition), spec.resolved(definition)[0]
        if name in manifests:
            continue  # finished and up to date: nothing written
        own = [(job, result) for (n, job), result in zip(planned, results, strict=True)
               if n == name]
        jobs = [job for job, _ in own]
        trained = trained_experts(jobs, [result for _, result in own])
        manifests[name] = write_manifest(
            out / name, spec.regime, bundle_definition, dataset_dir, configs[name], a=spec.a,
            profile=profile, baseline=None if spec.regime == "regular"
            else os.path.relpath(regular, out / name), trained=trained,
            balance=_balance(jobs, balances[name]))
        if evaluate:
            evaluate_bundle(out / name, dataset_dir, test_samples=test_samples)
    return manifests


def profile_dataset(profile: TrainingPlan, *, data_dir: str | os.PathLike[str] | None = None,
                    source: str | None = None, progress: bool = True) -> Path:
    """Build (or reuse) the dataset a profile trains on (or ``source``'s); its directory."""
    from chessmoe.games.datasets import build_source
    from chessmoe.games.sources import default_data_dir, source_name

    base = Path(data_dir) if data_dir is not None else default_data_dir()
    spec = source or profile.source
    dataset_name = source_name(spec) + (f"-max{profile.max_games}" if profile.max_games
                                        else "")
    dataset_dir, _ = build_source(spec, data_dir=base, out=base / "datasets" / dataset_name,
                                  definition=profile.definition, max_games=profile.max_games,
                                  progress=progress)
    return Path(dataset_dir)


def train_profile(profile: TrainingPlan, name: str, *,
                  results_dir: str | os.PathLike[str] = "results",
                  data_dir: str | os.PathLike[str] | None = None,
                  regimes: Sequence[str] | None = None, a: Sequence[float] | None = None,
                  phases: Sequence[int] | None = None, workers: int | None = None,
                  overrides: dict[str, Any] | None = None, source: str | None = None,
                  definitions: Sequence[str] | None = None,
                  progress: bool = True, balanced: bool = False,
                  force: bool = False) -> dict[str, dict[str, Any]]:
    """Build (or reuse) the plan's dataset (or ``source``'s) and train its regimes into
    ``results_dir/experts/<name>/``; return the bundle manifests. ``balanced``: the
    weighted bundles balance their weights over the data's phase shares
    (``weighted-a<a>-balanced``, beside the paper's)."""
    config = TrainConfig.from_dict({**profile.train.to_dict(), **(overrides or {})})
    dataset_dir = profile_dataset(profile, data_dir=data_dir, source=source, progress=progress)
    wanted = set(regimes) if regimes else set(profile.regimes)
    unknown = wanted - set(ALL_REGIMES)
    if unknown:
        raise ValueError(f"unknown regime(s) {sorted(unknown)}; known: "
                         f"{', '.join(ALL_REGIMES)}")
    factors = tuple(a) if a else profile.weighted_a
    bundles = [BundleSpec(r) for r in ("regular", "separated", "staged", "trunk")
               if r in wanted]
    if balanced and "weighted" not in wanted:
        raise ValueError("balanced weights are the weighted regime's: name --regime weighted")
    if "weighted" in wanted:
        bundles += [BundleSpec("weighted", float(x), balanced=balanced) for x in factors]
    if definitions is None:
        definitions = profile.definitions if regimes is None else ()
    bundles += [BundleSpec("separated", None, d) for d in definitions
                if d != profile.definition]
    out = Path(results_dir) / "experts" / name
    if phases is not None:  # a subset of experts: no mixture evaluation across bundles
        manifests = {}
        for spec in bundles:
            bundle_definition = spec.resolved(profile.definition)[0]
            manifests[bundle_name(spec.regime, spec.a, balanced=spec.balanced)] = train_bundle(
                spec.regime, out, dataset_dir, config, definition=bundle_definition,
                a=spec.a, phases=None if spec.regime == "regular" else phases,
                workers=workers or profile.workers, profile=name, progress=progress,
                balanced=spec.balanced, force=force)
        return manifests
    return train_all(out, dataset_dir, config, definition=profile.definition, bundles=bundles,
                     workers=workers or profile.workers, profile=name, progress=progress,
                     test_samples=profile.test_samples, force=force)
