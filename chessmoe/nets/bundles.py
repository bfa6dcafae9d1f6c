"""What a bundle's files record, read without torch: its test losses (``evaluation.json``,
Table 1), its experts' training steps and how each run trained until convergence ended
(``manifest.json``), and how far an unfinished bundle's runs have got (``metrics.jsonl``
against what their ``config.json`` plans, at the rate the log measures; the experts and
stages not begun), and the provenance each of its files records (:func:`bundle_records`).
The reports and the tournament designs read bundles through here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chessmoe.nets.names import SEPARATED_LONG
from chessmoe.records import last_logged

__all__ = ["MIXTURES", "PAIRED_LOSSES", "BundleLoss", "BundleRecord", "Convergence", "PairedLoss",
           "TrainingProgress", "bundle_losses", "bundle_records", "bundle_steps", "convergence",
           "convergence_text", "dirty_bundles", "expert_steps", "is_regular_seed",
           "logged_iterations", "paired_loss", "read_manifest", "stages_not_begun",
           "table1_seed_band", "training_in_progress"]


def is_regular_seed(bundle: str) -> bool:
    """Whether a bundle is the regular network under one training seed (the profile's own
    ``regular`` or a ``regular-seed<N>`` control; not ``regular-long``)."""
    return bundle == "regular" or bundle.startswith("regular-seed")


MIXTURES = ("separated", SEPARATED_LONG, "staged", "weighted-a4", "weighted-a10")


def _loss(path: Path, side: str, test_set: str) -> float | None:
    if not path.exists():
        return None
    return float(json.loads(path.read_text())["results"][side][test_set]["loss"])


@dataclass(frozen=True)
class BundleLoss:
    """One Table 1 entry: a loss on a test set, its standard error (``None`` where the
    evaluation predates ``loss_se``), the positions it was measured on, and whether it is
    a mixture's (each position scored by its own phase's expert) or a single network's, and
    the loss's two terms: the policy cross-entropy and the value MSE (``None`` where the
    evaluation does not record them)."""

    loss: float
    se: float | None
    n: int
    mixture: bool
    policy_ce: float | None = None
    value_mse: float | None = None


def bundle_losses(bundle: str | os.PathLike[str]) -> dict[str, BundleLoss] | None:
    """Table 1 of one bundle by test set: its mixture's losses where it has one, else its
    single network's; ``None`` while the bundle has no ``evaluation.json``."""
    path = Path(bundle) / "evaluation.json"
    if not path.exists():
        return None
    results = json.loads(path.read_text())["results"]
    mixture = "mixture" in results
    if not mixture and "baseline" not in results:
        raise ValueError(f"{path}: neither a mixture nor a single network was evaluated "
                         f"(only {', '.join(sorted(results))})")
    side = results["mixture" if mixture else "baseline"]
    def term(r: Mapping[str, Any], key: str) -> float | None:
        return float(r[key]) if key in r else None

    return {name: BundleLoss(float(r["loss"]), term(r, "loss_se"), int(r["n"]), mixture,
                             term(r, "policy_ce"), term(r, "value_mse"))
            for name, r in side.items()}


#: The file beside a profile's bundles (``results/experts/<profile>/``) that holds the paired
#: test-loss differences ``chessmoe compare`` measured.
PAIRED_LOSSES = "paired-losses.json"


@dataclass(frozen=True)
class PairedLoss:
    """One bundle's test loss minus another's on the same test positions (each position
    scored by a mixture's own phase expert, or by the single network): the mean difference
    of the loss and of its two terms, over ``positions`` positions of ``games`` games, and the
    difference's standard error clustered by game (a game's positions are not independent)."""

    first: str
    second: str
    test_set: str
    positions: int
    games: int
    difference: float
    se: float
    policy_ce: float
    value_mse: float

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """The difference's normal interval (95 % by default)."""
        return self.difference - z * self.se, self.difference + z * self.se

    @property
    def decided(self) -> bool:
        """Whether the 95 % interval excludes zero."""
        low, high = self.interval()
        return low > 0 or high < 0

    def to_dict(self) -> dict[str, Any]:
        """The record (with its 95 % interval, which documents quote; not read back)."""
        return {"first": self.first, "second": self.second, "test_set": self.test_set,
                "positions": self.positions, "games": self.games,
                "difference": self.difference, "se": self.se,
                "interval_95": list(self.interval()), "policy_ce": self.policy_ce,
                "value_mse": self.value_mse}

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> PairedLoss:
        return cls(str(record["first"]), str(record["second"]), str(record["test_set"]),
                   int(record["positions"]), int(record["games"]),
                   float(record["difference"]), float(record["se"]),
                   float(record["policy_ce"]), float(record["value_mse"]))


def paired_loss(experts: str | os.PathLike[str], first: str, second: str,
                test_set: str = "no-phases") -> PairedLoss | None:
    """``first`` minus ``second`` on ``test_set`` as ``chessmoe compare`` recorded it in
    ``experts``' :data:`PAIRED_LOSSES` (the other order negated); ``None`` where it was not
    measured, or where either bundle's experts changed since (the record names their hashes)."""
    path = Path(experts) / PAIRED_LOSSES
    if not path.is_file():
        return None
    for record in json.loads(path.read_text())["comparisons"]:
        if record["test_set"] != test_set or {record["first"], record["second"]} != {first,
                                                                                    second}:
            continue
        for name in (first, second):
            manifest = read_manifest(Path(experts) / name)
            hashes = None if manifest is None else {
                k: v["sha256"] for k, v in manifest["experts"].items()}
            if hashes != record["inputs"]["experts"][name]:
                return None
        found = PairedLoss.from_dict(record)
        if found.first == first:
            return found
        return PairedLoss(first, second, test_set, found.positions, found.games,
                          -found.difference, found.se, -found.policy_ce, -found.value_mse)
    return None


def table1_seed_band(experts: str | os.PathLike[str], test_set: str = "no-phases"
                     ) -> tuple[list[float], dict[str, list[float]]]:
    """Table 1 on ``test_set``: the regular network's loss under every trained seed, and each
    mixture's loss under every seed it was trained with (the bundle itself, then
    ``<mixture>-seed<N>`` controls of :mod:`chessmoe.nets.controls`)."""
    root = Path(experts)
    seeds: list[float] = []
    if not root.is_dir():
        return seeds, {}
    for bundle in sorted(p for p in root.iterdir() if is_regular_seed(p.name)):
        loss = _loss(bundle / "evaluation.json", "baseline", test_set)
        if loss is not None:
            seeds.append(loss)
    mixtures: dict[str, list[float]] = {}
    for name in MIXTURES:
        losses = [loss for path in (root / name, *sorted(root.glob(f"{name}-seed*")))
                  if (loss := _loss(path / "evaluation.json", "mixture", test_set)) is not None]
        if losses:
            mixtures[name] = losses
    return seeds, mixtures



@dataclass(frozen=True)
class Convergence:
    """How one run (an expert, or one stage of a staged expert) trained until convergence
    ended, as its bundle's manifest records it: the step it stopped at, its best step, the
    epochs of its own training data and why it stopped (``patience`` or ``cap``)."""

    expert: str
    stage: str | None  # a staged expert's stage (its training data), else None
    stopped_at: int
    best_iteration: int | None
    epochs: float
    reason: str


def convergence(manifest: Mapping[str, Any]) -> list[Convergence]:
    """Every converged run of a bundle (expert by expert, stage by stage) from its manifest
    (``experts.<name>.convergence``; none for a bundle trained for a fixed length)."""
    return [Convergence(name, record.get("train"), int(record["stopped_at"]),
                        (None if record.get("best_iteration") is None
                         else int(record["best_iteration"])),
                        float(record["epochs"]), str(record["reason"]))
            for name, entry in manifest.get("experts", {}).items()
            for record in entry.get("convergence", [])]


def read_manifest(bundle: str | os.PathLike[str]) -> dict[str, Any] | None:
    """A bundle's ``manifest.json``; ``None`` while it has none (not trained yet)."""
    path = Path(bundle) / "manifest.json"
    return json.loads(path.read_text()) if path.is_file() else None


def logged_iterations(bundle: str | os.PathLike[str]) -> dict[str, int]:
    """The last iteration each expert of an unfinished bundle logged, by expert: its own
    ``metrics.jsonl`` (``bundle/<expert>/``), or, for a staged expert that has not reached
    its final run, its latest stage's (``<expert> <stage>``: ``phase1 stage1-opening``);
    empty where no expert has logged one."""
    done: dict[str, int] = {}
    for expert in sorted(p for p in Path(bundle).iterdir() if p.is_dir()) \
            if Path(bundle).is_dir() else ():
        step = last_logged(expert / "metrics.jsonl")
        if step is not None:
            done[expert.name] = step.iteration
            continue
        for stage in sorted((expert / "stages").glob("*/metrics.jsonl"), reverse=True):
            step = last_logged(stage)
            if step is not None:  # the latest stage (they are numbered) that logged
                done[f"{expert.name} {stage.parent.name}"] = step.iteration
                break
    return done


def convergence_text(name: str, manifest: Mapping[str, Any] | None,
                     bundle: str | os.PathLike[str] | None = None) -> str:
    """How long the bundle ``name`` trained until convergence, from its manifest, in words:
    ``regular-converged: 4,300 steps (4.18 epochs), best at 3,100, stopped by patience``; for
    a mixture each expert's steps summed over its stages (the epochs and best steps stage by
    stage). Without a manifest: ``training, not finished`` with the iteration each expert
    logged in ``bundle`` (its directory, where given), else ``not trained yet``."""
    if manifest is None:
        logged = logged_iterations(bundle) if bundle is not None else {}
        if logged:
            done = {e for e in logged
                    if bundle is not None and (Path(bundle) / e / "summary.json").is_file()}
            finished = ", ".join(f"{e} finished at {logged[e]:,} steps" for e in logged
                                 if e in done)
            where = ", ".join(("" if expert == "baseline" else f"{expert} ") + f"{it:,}"
                              for expert, it in logged.items() if expert not in done)
            said = "; ".join(filter(None, (finished, where and f"logged to iteration {where}")))
            return f"{name}: training, not finished ({said})"
        return f"{name}: not trained yet"
    runs = convergence(manifest)
    if not runs:
        return f"{name}: its manifest records no convergence"
    parts = []
    for expert in dict.fromkeys(r.expert for r in runs):
        mine = [r for r in runs if r.expert == expert]
        epochs = " + ".join(f"{r.epochs:g}" for r in mine)
        best = ", ".join("?" if r.best_iteration is None else f"{r.best_iteration:,}"
                         for r in mine)
        reasons = ", ".join(dict.fromkeys(r.reason for r in mine))
        parts.append(("" if expert == "baseline" else f"{expert} ")
                     + f"{sum(r.stopped_at for r in mine):,} steps ({epochs} epochs"
                     + (f" over {len(mine)} stages" if len(mine) > 1 else "")
                     + f"), best at {best}, stopped by {reasons}")
    return f"{name}: " + "; ".join(parts)




def expert_steps(bundle: str | os.PathLike[str]) -> list[int]:
    """Each expert's training steps as the bundle's manifest records them (empty without a
    manifest)."""
    path = Path(bundle) / "manifest.json"
    if not path.is_file():
        return []
    experts = json.loads(path.read_text()).get("experts", {})
    return [int(e["iterations"]) for e in experts.values() if "iterations" in e]


def bundle_steps(bundle: str | os.PathLike[str]) -> int | None:
    """The bundle's training steps, all its experts together (``None`` without a manifest or
    without steps)."""
    return sum(expert_steps(bundle)) or None


@dataclass(frozen=True)
class TrainingProgress:
    """One unfinished training run (a bundle part without a manifest beside it): the last
    iteration its log records, the iterations planned, and the mean seconds an iteration."""

    name: str
    iterations: int
    planned: int
    seconds_per_iteration: float
    capped: bool = False  # stops once its validation loss stops improving: at most planned

    @property
    def seconds_left(self) -> float:
        return (self.planned - self.iterations) * self.seconds_per_iteration


def _epoch_cap(results: Path, config: dict[str, Any]) -> int:
    """The iterations a run without a fixed count plans (its epochs over its training set,
    whose size the dataset's committed manifest records: ``results/datasets/<name>``)."""
    from chessmoe.nets.recipes import epoch_iterations

    data, train = config["data"], config["train"]
    manifest = json.loads((results / "datasets" / Path(data["dataset_dir"]).name
                           / "manifest.json").read_text(encoding="utf-8"))
    positions = manifest["datasets"][data["definition"]]["train"][data["train"]]["positions"]
    return epoch_iterations(float(train["epochs"]), int(train["batch_size"]), int(positions))


def _run_progress(results: Path, run: Path, name: str) -> TrainingProgress | None:
    try:
        config = json.loads((run / "config.json").read_text(encoding="utf-8"))
        fixed = config["train"]["iterations"]
        planned = int(fixed) if fixed is not None else _epoch_cap(results, config)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    last = last_logged(run / "metrics.jsonl")
    if last is None or last.time is None or last.iteration >= planned:
        return None
    done = last.iteration
    stops = config["train"].get("patience") is not None  # may stop before what it plans
    return TrainingProgress(name, done, planned, last.time / done, capped=stops)


def _runs(bundle: Path) -> list[Path]:
    """The training runs of an unfinished bundle: each expert's directory, and each stage's
    of a staged expert (``<expert>/stages/stage2-endgame``), that has a ``config.json`` and
    no ``summary.json`` (a finished run writes one)."""
    found = [*bundle.glob("*/config.json"), *bundle.glob("*/stages/*/config.json")]
    return sorted(c.parent for c in found if not (c.parent / "summary.json").exists())


def training_in_progress(results: Path) -> list[TrainingProgress]:
    """Every training run under ``results/experts/<profile>/<bundle>/<expert>`` (or a stage of
    a staged expert, ``<expert>/stages/<stage>``) whose bundle has no ``manifest.json`` yet (a
    finished bundle writes one), that has not written its ``summary.json`` and whose log stops
    short of the iterations its ``config.json`` plans."""
    out: list[TrainingProgress] = []
    root = results / "experts"
    if not root.is_dir():
        return out
    for bundle in sorted(p for p in root.glob("*/*") if p.is_dir()):
        if (bundle / "manifest.json").exists():
            continue
        for run in _runs(bundle):
            parts = run.relative_to(bundle).parts
            where = parts[0] if len(parts) == 1 else f"{parts[0]}/{parts[-1]}"
            found = _run_progress(results, run, f"{bundle.parent.name}/{bundle.name}/{where}")
            if found is not None:
                out.append(found)
    return out


def _phase_count(results: Path, config: dict[str, Any]) -> int | None:
    """The phases of the definition a run's ``config.json`` trains on (its dataset's committed
    manifest: every split but ``no-phases``); ``None`` where that cannot be read."""
    try:
        data = config["data"]
        manifest = json.loads((results / "datasets" / Path(data["dataset_dir"]).name
                               / "manifest.json").read_text(encoding="utf-8"))
        return sum(1 for s in manifest["datasets"][data["definition"]]["train"]
                   if s != "no-phases")
    except (OSError, ValueError, KeyError, TypeError):
        return None


def stages_not_begun(results: Path, bundle: Path) -> list[tuple[str, str]]:
    """The experts (``phase<p>``) a begun mixture bundle without a ``manifest.json`` has not
    begun, and the stages a begun staged expert has not started (one a phase), as
    ``(<profile>/<bundle>/<expert>, what is left)``."""
    # an expert's config.json is written when its last stage ends; a stage's, when it begins
    begun = sorted([*bundle.glob("phase*/config.json"),
                    *bundle.glob("phase*/stages/*/config.json")])
    if (bundle / "manifest.json").exists() or not begun:
        return []
    try:
        config = json.loads(begun[0].read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    out: list[tuple[str, str]] = []
    name = f"{bundle.parent.name}/{bundle.name}"
    phases = _phase_count(results, config) or 0
    for p in range(phases):
        expert = bundle / f"phase{p}"
        if not expert.is_dir():
            out.append((f"{name}/phase{p}", "not begun"))
            continue
        stages = [s for s in (expert / "stages").glob("*") if s.is_dir()]
        if stages and len(stages) < phases:  # staged: one stage a phase
            left = phases - len(stages)
            out.append((f"{name}/phase{p}",
                        f"{left} more stage{'s' if left > 1 else ''} not begun"))
    return out


@dataclass(frozen=True)
class BundleRecord:
    """One provenance record of a trained bundle: which file (``phase0/config.json``: the
    run's start; ``.../summary.json``: its end; ``manifest.json``, ``evaluation.json``), the
    commit it names, whether the checkout's tracked files differed from it, and which
    (``changed``, repository paths; ``None`` where the record does not list them all)."""

    file: str
    commit: str
    dirty: bool
    changed: tuple[str, ...] | None = None

    def differs_outside(self, bundle: str) -> bool:
        """Whether the checkout may have differed from the commit in anything but the files
        of ``bundle`` (its repository path, ``results/experts/small/regular-converged``): a
        run resumed from its own state, written after its commit, records those files as
        changed and still ran the commit's code. A dirty record without the full list of
        changed files counts as differing."""
        if not self.dirty:
            return False
        if self.changed is None:
            return True
        inside = bundle.rstrip("/") + "/"
        return any(not path.startswith(inside) for path in self.changed)


def bundle_records(bundle: str | os.PathLike[str]) -> list[BundleRecord]:
    """Every provenance record of a bundle directory: each expert's ``config.json`` and
    ``summary.json``, each stage's of a staged expert (``phase0/stages/stage1-middlegame/``),
    then the bundle's ``dataset-manifest.json`` (the dataset copy it trained on),
    ``manifest.json`` and ``evaluation.json``."""
    root = Path(bundle)
    files = [*sorted(root.glob("*/config.json")), *sorted(root.glob("*/summary.json")),
             *sorted(root.glob("*/stages/*/config.json")),
             *sorted(root.glob("*/stages/*/summary.json")),
             root / "dataset-manifest.json", root / "manifest.json", root / "evaluation.json"]
    out = []
    for path in files:
        if not path.is_file():
            continue
        git = json.loads(path.read_text()).get("provenance", {}).get("git")
        if isinstance(git, dict) and "commit" in git:
            listed = git.get("changed")
            changed = (tuple(str(c) for c in listed) if isinstance(listed, list)
                       and git.get("changed_count") == len(listed) else None)
            out.append(BundleRecord(str(path.relative_to(root)), str(git["commit"]),
                                    bool(git.get("dirty")), changed))
    return out


def dirty_bundles(experts: str | os.PathLike[str]) -> dict[str, list[BundleRecord]]:
    """The bundles under ``experts`` with a record written from a checkout whose tracked files
    differed from its commit (training, its manifest or its evaluation), with those records;
    :meth:`BundleRecord.differs_outside` tells a record whose checkout differed only in the
    bundle's own files (a resumed run's state) from one that may have run other code."""
    out = {}
    for bundle in sorted(p for p in Path(experts).iterdir() if p.is_dir()):
        dirty = [r for r in bundle_records(bundle) if r.dirty]
        if dirty:
            out[bundle.name] = dirty
    return out
