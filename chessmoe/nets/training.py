"""Training one network: loss, schedules, the trainer, checkpoints (paper sec. 3, Table 7).

:func:`compute_loss` is the training loss (paper Eq. 2); the learning rate and momentum follow
the one-cycle schedules of Fig. 14 (:func:`~chessmoe.nets.recipes.learning_rate`,
:func:`~chessmoe.nets.recipes.momentum`, pure functions of the iteration); :class:`Trainer`
runs one network's training in a run directory and keeps its checkpoints.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np
import numpy.typing as npt
import torch
from torch import nn
from tqdm import tqdm

from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import atomic_path, atomic_write_json, sha256_file
from chessmoe._io.jsonl import append_record, read_records
from chessmoe._io.provenance import provenance
from chessmoe.games.datasets import Batch, DatasetStore
from chessmoe.nets.checkpoints import (
    CheckpointError,
    export_onnx,
    load_checkpoint,
    load_optimizer,
    resolve_device,
    save_checkpoint,
    save_optimizer,
)
from chessmoe.nets.model import PRESETS, ModelConfig, RiseNet, preset
from chessmoe.nets.precision import autocast_context, cpu_computes_bf16, training_precision
from chessmoe.nets.recipes import (
    epoch_iterations,
    learning_rate,
    momentum,
    plateau_learning_rate,
    test_sets,
)
from chessmoe.nets.trunk import PhaseHeadNet, build_network, run_network

__all__ = [
    "CONVERGENCE_OPTIONS",
    "RECORDED_IF_SET",
    "DataSpec",
    "LossTerms",
    "TrainConfig",
    "Trainer",
    "compute_loss",
    "cpu_computes_bf16",
    "evaluate",
    "training_precision",
]

# --- configuration -----------------------------------------------------------------------

Amp = Literal["bf16", "fp16", "off"]
#: Autocast on the CPU: ``off`` (fp32, the recipe of every committed network) or ``bf16``
#: (needs AVX512_BF16 or AMX; refused elsewhere, where bf16 is emulated and slower).
CpuAmp = Literal["bf16", "off"]
#: ``one-cycle``: Fig. 14 over the run's fixed length; ``plateau``: warm-up, then constant,
#: cut on plateau (:func:`~chessmoe.nets.recipes.plateau_learning_rate`), for runs that train
#: until the validation loss stops improving.
Schedule = Literal["one-cycle", "plateau"]


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters of one run (defaults: the paper's Table 7)."""

    model: str = "paper"  # preset name
    model_overrides: dict[str, Any] = field(default_factory=dict)
    batch_size: int = 2048
    epochs: float = 7.0
    iterations: int | None = None  # budget that replaces epochs when set
    max_lr: float = 0.14
    min_lr: float = 1e-5
    max_momentum: float = 0.95
    min_momentum: float = 0.8
    weight_decay: float = 1e-4
    nesterov: bool = True  # Table 7 says NAG; the authors' code ran plain momentum (False)
    value_loss_factor: float = 0.01
    policy_loss_factor: float = 0.988
    wdl_loss_factor: float = 0.01
    plies_loss_factor: float = 0.002
    val_value_factor: float = 0.01
    val_policy_factor: float = 0.99
    plies_clip: float = 100.0
    eval_every: int = 500
    eval_samples: int | None = None  # cap per evaluation set (seeded subset); None = all
    eval_test_samples: int | None = None  # cap per test set in training's evaluations (None:
    #   eval_samples); they draw the curves, the validation set alone picks the checkpoint
    log_every: int = 50
    spike_threshold: float = 1.5
    max_spikes: int = 20
    seed: int = 9
    device: str = "auto"  # "auto", "cpu", "cuda", "cuda:1", ...
    amp: Amp = "bf16"  # autocast dtype on GPU: "bf16", "fp16" or "off"
    cpu_amp: CpuAmp = "off"  # autocast dtype on CPU: "off" (fp32) or "bf16"
    channels_last: bool = True  # memory format (faster on GPU and, here, 1.5x on CPU too)
    threads: int | None = None  # torch CPU threads
    expand_on_device: bool = True  # expand planes with torch on the GPU
    # -- training until convergence (see CONVERGENCE_OPTIONS) --
    schedule: Schedule = "one-cycle"
    patience: int | None = None  # stop after this many evaluations without improvement
    min_delta: float = 0.0  # an improvement beats the last improvement by more than this
    plateau_patience: int = 4  # evaluations without improvement before each cut (plateau)
    plateau_factor: float = 0.1  # the plateau schedule's cut
    warmup_iterations: int = 400  # the plateau schedule's linear warm-up

    def __post_init__(self) -> None:
        # checked when the record is made, so a typo fails before any data is read (on a GPU
        # an unknown amp would otherwise have meant fp16, an unknown device a late crash)
        if self.amp not in get_args(Amp):
            raise KitError(f"amp={self.amp!r}: expected one of {', '.join(get_args(Amp))}")
        if self.cpu_amp not in get_args(CpuAmp):
            raise KitError(f"cpu_amp={self.cpu_amp!r}: expected one of "
                           f"{', '.join(get_args(CpuAmp))}")
        if self.schedule not in get_args(Schedule):
            raise KitError(f"schedule={self.schedule!r}: expected one of "
                           f"{', '.join(get_args(Schedule))}")
        if self.patience is not None and self.patience < 1:
            raise KitError(f"patience={self.patience}: expected a count of evaluations >= 1 "
                           "or None (a fixed-length run)")
        if self.plateau_patience < 1 or not 0 < self.plateau_factor < 1:
            raise KitError(f"plateau_patience={self.plateau_patience}, plateau_factor="
                           f"{self.plateau_factor}: expected >= 1 and between 0 and 1")
        if self.min_delta < 0 or self.warmup_iterations < 0:
            raise KitError(f"min_delta={self.min_delta}, warmup_iterations="
                           f"{self.warmup_iterations}: expected >= 0")
        if self.model not in PRESETS:
            raise KitError(f"model={self.model!r}: expected one of {', '.join(PRESETS)}")
        if not re.fullmatch(r"auto|cpu|mps|cuda(:\d+)?", self.device):
            raise KitError(f"device={self.device!r}: expected auto, cpu, mps, cuda or cuda:N")

    def model_config(self) -> ModelConfig:
        return preset(self.model, **self.model_overrides)

    @property
    def open_ended(self) -> bool:
        """Whether the run trains until its validation loss stops improving (``patience``)
        or its learning rate follows the validation loss (``plateau``): its ``iterations`` or
        ``epochs`` is then a cap, not its length."""
        return self.patience is not None or self.schedule != "one-cycle"

    def to_dict(self) -> dict[str, Any]:
        """Every field; the :data:`CONVERGENCE_OPTIONS` only where one differs from its
        default, so a fixed-length run is recorded (and resumed, and compared with its
        committed bundle) exactly as before those options existed."""
        data = asdict(self)
        if all(data[k] == _DEFAULTS[k] for k in CONVERGENCE_OPTIONS):
            for key in CONVERGENCE_OPTIONS:
                del data[key]
        for key in RECORDED_IF_SET:  # absent from every record made before it existed
            if data[key] == _DEFAULTS[key]:
                del data[key]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown training option(s) {unknown}; known: {sorted(known)}")
        return cls(**data)


#: The options of a run trained until convergence (:attr:`TrainConfig.open_ended`): the
#: schedule, the stopping patience (in evaluations, i.e. ``eval_every`` steps each) and the
#: smallest change that counts as an improvement, and the plateau schedule's patience, cut and
#: warm-up. Every evaluation whose validation loss is not below the last improvement's minus
#: ``min_delta`` counts one towards both patiences (a spike, which reloads the best weights,
#: counts too); an improvement resets the count. The plateau schedule cuts the learning rate
#: each time the count reaches a multiple of ``plateau_patience`` (down to ``min_lr``); the
#: run stops when the count reaches ``patience``, or at the cap.
CONVERGENCE_OPTIONS = ("schedule", "patience", "min_delta", "plateau_patience",
                       "plateau_factor", "warmup_iterations")
#: Options recorded only where they differ from their default, so the records of runs made
#: before the option existed (all fp32 on the CPU) read, resume and compare as before.
RECORDED_IF_SET = ("cpu_amp", "eval_test_samples")
_DEFAULTS = {f.name: f.default for f in fields(TrainConfig)}


@dataclass(frozen=True)
class DataSpec:
    """What a run trains and evaluates on, inside one dataset store."""

    dataset_dir: str
    definition: str = "lichess"
    train: str = "no-phases"  # dataset trained on (a phase name for separated/staged)
    validation: str = "no-phases"  # dataset of the validation set
    weights: tuple[float, ...] | None = None  # per-phase sample weights (weighted learning)
    weight_validation: bool = True  # weight the validation loss like training

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["weights"] = list(self.weights) if self.weights is not None else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DataSpec:
        data = dict(data)
        if data.get("weights") is not None:
            data["weights"] = tuple(data["weights"])
        return cls(**data)


# --- schedules (paper Fig. 14) -----------------------------------------------------------


# --- loss ------------------------------------------------------------------------------------


@dataclass
class LossTerms:
    """Per-sample loss terms of a batch (1-D tensors)."""

    value: torch.Tensor  # squared error of the value
    policy: torch.Tensor  # cross-entropy of the played move
    wdl: torch.Tensor  # cross-entropy of the game result class
    plies: torch.Tensor  # squared error of clip(plies, 0, clip) / clip
    correct: torch.Tensor  # policy top-1 hit (float)

    def train_loss(self, config: TrainConfig) -> torch.Tensor:
        return (config.value_loss_factor * self.value + config.policy_loss_factor * self.policy
                + config.wdl_loss_factor * self.wdl + config.plies_loss_factor * self.plies)

    def val_loss(self, config: TrainConfig) -> torch.Tensor:
        return config.val_value_factor * self.value + config.val_policy_factor * self.policy


def loss_terms(output: Any, batch: Batch, plies_clip: float = 100.0) -> LossTerms:
    """Per-sample terms for a network output and a batch."""
    policy = output.policy.float()
    wdl = output.wdl.float()
    target_plies = batch.plies_to_end.clamp(0, plies_clip) / plies_clip
    return LossTerms(
        value=(output.value.float() - batch.value) ** 2,
        policy=nn.functional.cross_entropy(policy, batch.policy, reduction="none"),
        wdl=nn.functional.cross_entropy(wdl, batch.wdl, reduction="none"),
        plies=(output.plies.float() - target_plies) ** 2,
        correct=(policy.argmax(dim=1) == batch.policy).float(),
    )


def compute_loss(output: Any, batch: Batch, config: TrainConfig) -> torch.Tensor:
    """The training loss of a batch: ``0.01 value MSE + 0.988 policy CE + 0.01 WDL CE + 0.002
    plies MSE`` per sample, weighted by per-sample weights and averaged (paper Eq. 2)."""
    terms = loss_terms(output, batch, config.plies_clip)
    return (batch.weight * terms.train_loss(config)).mean()


# --- evaluation ------------------------------------------------------------------------------


@torch.no_grad()
def per_sample_terms(model: RiseNet, store: DatasetStore, indices: npt.NDArray[np.int64],
                     config: TrainConfig, device: torch.device, batch_size: int = 1024,
                     definition: str | None = None) -> dict[str, npt.NDArray[np.float32]]:
    """Loss terms of every sample in ``indices`` (in order), as numpy arrays; ``phase`` is
    each sample's phase under ``definition`` (default: the store's).

    The result arrays are allocated once, at full length, and filled batch by batch. With
    one small array appended per batch instead, a 2 M-position evaluation grew by about
    15 MB a second until the kernel killed it at 24 GB (measured); filling in place did not
    grow over the same stretch. The likely mechanism, not shown: each small long-lived
    allocation lands after a batch's large temporaries (the 1024 x 4864 policy logits), so
    the allocator cannot return the heap freed beneath it.
    """
    model.eval()
    indices = np.asarray(indices, dtype=np.int64)
    keys = ("value", "policy", "wdl", "plies", "correct", "phase")
    out = {k: np.empty(indices.shape[0], dtype=np.float32) for k in keys}
    autocast = autocast_context(config, device)
    start = 0
    for batch in store.batches(indices, batch_size, shuffle=False, device=device,
                               definition=definition,
                               expand_on_device=config.expand_on_device and device.type != "cpu"):
        planes = batch.planes
        if config.channels_last:
            planes = planes.contiguous(memory_format=torch.channels_last)
        with autocast:
            output = run_network(model, planes, batch.phase)
        terms = loss_terms(output, batch, config.plies_clip)
        stop = start + int(batch.phase.shape[0])
        for key in keys[:-1]:
            out[key][start:stop] = getattr(terms, key).float().cpu().numpy()
        out["phase"][start:stop] = batch.phase.cpu().numpy()
        del output, terms, planes, batch
        start = stop
    if start != indices.shape[0]:  # every row written, or none of it is returned
        raise RuntimeError(f"per_sample_terms filled {start} of {indices.shape[0]} samples")
    return out


def summarise(terms: dict[str, npt.NDArray[np.float32]], config: TrainConfig,
              weights: npt.NDArray[np.float32] | None = None) -> dict[str, float]:
    """Mean metrics of per-sample terms (optionally weighted like training)."""
    n = terms["policy"].shape[0]
    if n == 0:
        return {"n": 0}
    w = np.ones(n, dtype=np.float64) if weights is None else weights.astype(np.float64)

    def mean(x: npt.NDArray[np.float32]) -> float:
        return float(np.sum(w * x) / n)

    value, policy = mean(terms["value"]), mean(terms["policy"])
    wdl, plies = mean(terms["wdl"]), mean(terms["plies"])
    per_sample = w * (config.val_value_factor * terms["value"].astype(np.float64)
                      + config.val_policy_factor * terms["policy"].astype(np.float64))
    return {
        "n": int(n),
        "loss": config.val_value_factor * value + config.val_policy_factor * policy,
        # standard error of the loss mean over these samples (0 for one sample)
        "loss_se": float(np.std(per_sample, ddof=1) / np.sqrt(n)) if n > 1 else 0.0,
        "total": (config.value_loss_factor * value + config.policy_loss_factor * policy
                  + config.wdl_loss_factor * wdl + config.plies_loss_factor * plies),
        "value_mse": value, "policy_ce": policy, "wdl_ce": wdl, "plies_mse": plies,
        "policy_acc": float(np.mean(terms["correct"])),
    }


def evaluate(model: RiseNet, store: DatasetStore, indices: npt.NDArray[np.int64],
             config: TrainConfig, device: torch.device,
             weights: Sequence[float] | None = None,
             definition: str | None = None) -> dict[str, float]:
    """Metrics of ``model`` on the samples ``indices`` (``weights`` by phase under
    ``definition``)."""
    terms = per_sample_terms(model, store, indices, config, device, definition=definition)
    sample_weights = None
    if weights is not None:
        sample_weights = np.asarray(weights, dtype=np.float32)[terms["phase"].astype(np.int64)]
    return summarise(terms, config, sample_weights)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)


def _subset(indices: npt.NDArray[np.int64], cap: int | None, seed: int
            ) -> npt.NDArray[np.int64]:
    if cap is None or indices.shape[0] <= cap:
        return indices
    chosen = np.random.default_rng(seed).choice(indices.shape[0], size=cap, replace=False)
    return np.sort(indices[chosen])


@dataclass
class _Run:
    """What one training run works on (built once by :meth:`Trainer._prepare`)."""

    store: DatasetStore
    train_index: npt.NDArray[np.int64]
    eval_sets: dict[str, npt.NDArray[np.int64]]
    per_epoch: int
    total: int
    model: RiseNet
    optimizer: torch.optim.Optimizer
    device: torch.device
    autocast: Any
    weights: list[float] | None


@dataclass
class _Progress:
    """Where a run stands (restored on resume)."""

    iteration: int
    best: float
    previous: float
    spikes: int
    recoveries: list[int]
    running: list[float]
    start: float
    lr: float = 0.0
    momentum: float = 0.0
    stopped: str | None = None
    skip_logging: bool = False
    stale: int = 0  # evaluations since the last improvement (patience, plateau cuts)
    reference: float = math.inf  # validation loss of the last improvement
    cuts: list[int] = field(default_factory=list)  # iterations of the plateau cuts


#: Training options that say how a run executes, not what it learns: a run resumes under
#: other values (two torch threads on a core another job shares ran 11 times slower than one).
EXECUTION_OPTIONS = ("threads",)


def _comparable(resolved: dict[str, Any]) -> dict[str, Any]:
    """A run's resolved configuration less :data:`EXECUTION_OPTIONS` (what a resumed run must
    share with the one it continues)."""
    train = resolved.get("train")
    if isinstance(train, dict):
        resolved = {**resolved, "train": {k: v for k, v in train.items()
                                          if k not in EXECUTION_OPTIONS}}
    return resolved


class Trainer:
    """One training run in ``run_dir``; call :meth:`run` (again, to resume).

    SGD with (Nesterov) momentum and weight decay, evaluation every N iterations on the
    validation set and the four test sets, best-checkpoint saving, spike recovery, exact
    resume after an interruption, bf16 autocast and channels-last on GPU, and bf16 autocast on
    a CPU that computes bf16 natively (``cpu_amp``, opt-in: fp32 is the recipe of every
    committed network; :func:`training_precision` names what a run used). The validation loss
    that picks checkpoints is ``0.01 value + 0.99 policy`` (the authors' CrazyAra trainer).

    ``run_dir`` holds ``config.json`` (the resolved config), ``metrics.jsonl`` (one row per
    evaluation per set, and training-loss rows), ``model.pt`` (best checkpoint, loaded with
    ``weights_only=True`` and checked against ``model.pt.json``), ``model.onnx``,
    ``state.pt`` while running (for resume) and ``summary.json`` when done."""

    def __init__(self, run_dir: str | os.PathLike[str], config: TrainConfig, data: DataSpec,
                 *, init_from: str | os.PathLike[str] | None = None, progress: bool = True,
                 label: str = "", on_evaluation: Callable[[dict[str, Any]], None] | None = None
                 ) -> None:
        self.run_dir = Path(run_dir)
        self.config = config
        self.data = data
        self.init_from = str(init_from) if init_from is not None else None
        self.progress = progress
        self.label = label or self.run_dir.name
        self.on_evaluation = on_evaluation

    # -- files --
    @property
    def metrics_path(self) -> Path:
        return self.run_dir / "metrics.jsonl"

    @property
    def summary_path(self) -> Path:
        return self.run_dir / "summary.json"

    def _write_config(self) -> None:
        resolved = {"train": self.config.to_dict(), "data": self.data.to_dict(),
                    "model": self.config.model_config().to_dict(),
                    "init_from": self.init_from}
        path = self.run_dir / "config.json"
        if path.exists():
            old = json.loads(path.read_text())
            if _comparable({k: old.get(k) for k in resolved}) != _comparable(
                    json.loads(json.dumps(resolved))):
                raise ValueError(f"{self.run_dir} holds a run with a different configuration; "
                                 "use another directory or delete it")
        else:
            atomic_write_json(path, {**resolved, "provenance": provenance()})

    # -- the loop --
    def run(self) -> dict[str, Any]:
        """Train to the end (or resume), export the best model, return the summary."""
        if self.summary_path.exists():
            summary: dict[str, Any] = json.loads(self.summary_path.read_text())
            return summary
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._write_config()
        run = self._prepare()
        state = self._restore(run.model, run.optimizer, run.device)
        progress = _Progress(
            iteration=int(state["iteration"]), best=float(state["best"]),
            previous=float(state["previous"]), spikes=int(state["spikes"]),
            recoveries=list(state["recoveries"]), running=list(state["running"]),
            start=time.monotonic() - float(state["elapsed"]), stale=int(state["stale"]),
            reference=float(state["reference"]), cuts=[int(i) for i in state["cuts"]])
        if self._patience_spent(progress):  # stopped, then cut off before the summary
            progress.stopped = "patience"
        bar = tqdm(total=run.total, initial=progress.iteration, desc=self.label, unit="it",
                   disable=not self.progress)
        while progress.iteration < run.total and progress.stopped is None:
            for batch in self._epoch_batches(run, progress.iteration):
                stop = self._train_step(run, progress, batch)
                bar.update(1)
                if stop:
                    break
                if ((progress.iteration % self.config.eval_every == 0
                     or progress.iteration == run.total)
                        and self._evaluate_and_keep_best(run, progress)):
                    break
                if progress.iteration >= run.total:
                    break
        bar.close()
        return self._finish(run, progress, time.monotonic() - progress.start)

    # -- the steps of a run --
    def _prepare(self) -> _Run:
        """Device, seeds, data indices, the model (from ``init_from``) and the optimiser."""
        config, data = self.config, self.data
        device = resolve_device(config.device)
        if config.threads is not None:
            torch.set_num_threads(config.threads)
        seed_everything(config.seed)
        store = DatasetStore(data.dataset_dir)
        train_index = store.indices("train", data.train, data.definition)
        if train_index.shape[0] == 0:
            raise ValueError(f"the {data.train!r} training set of {data.dataset_dir} is empty")
        eval_sets = {"val": _subset(store.indices("val", data.validation, data.definition),
                                    config.eval_samples, config.seed)}
        for name in test_sets(data.definition):
            eval_sets[f"test/{name}"] = _subset(store.indices("test", name, data.definition),
                                                config.eval_test_samples or config.eval_samples,
                                                config.seed + 1)
        per_epoch = math.ceil(train_index.shape[0] / config.batch_size)
        total = config.iterations or epoch_iterations(config.epochs, config.batch_size,
                                                       train_index.shape[0])
        model = build_network(config.model_config())
        if self.init_from is not None:
            model.load_state_dict(load_checkpoint(self.init_from).state_dict())
        model.to(device)
        if config.channels_last:
            model = model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
        optimizer = torch.optim.SGD(model.parameters(), lr=config.min_lr,
                                    momentum=config.max_momentum, nesterov=config.nesterov,
                                    weight_decay=config.weight_decay)
        return _Run(store, train_index, eval_sets, per_epoch, total, model, optimizer, device,
                    autocast_context(config, device),
                    list(data.weights) if data.weights is not None else None)

    def _epoch_batches(self, run: _Run, iteration: int) -> Any:
        """The batches from ``iteration`` to the end of its epoch (seeded, resumable)."""
        config, data = self.config, self.data
        epoch, position = divmod(iteration, run.per_epoch)
        return run.store.batches(run.train_index, config.batch_size, seed=config.seed,
                                 epoch=epoch, start_batch=position, weights=run.weights,
                                 definition=data.definition, device=run.device,
                                 expand_on_device=(config.expand_on_device
                                                   and run.device.type == "cuda"))

    def _learning_rate(self, iteration: int, total: int, cuts: int) -> float:
        """The schedule's learning rate at ``iteration`` of ``total`` after ``cuts``
        plateau cuts (one-cycle: a function of the iteration and the length alone)."""
        config = self.config
        if config.schedule == "plateau":
            return plateau_learning_rate(iteration, cuts, config.max_lr, config.min_lr,
                                         config.warmup_iterations, config.plateau_factor)
        return learning_rate(iteration, total, config.max_lr, config.min_lr)

    def _train_step(self, run: _Run, progress: _Progress, batch: Batch) -> bool:
        """One optimiser step on the schedule; a non-finite loss is a spike that
        reloads the best weights instead of stepping. ``True``: too many spikes, stop."""
        config = self.config
        run.model.train()
        lr = self._learning_rate(progress.iteration, run.total, len(progress.cuts))
        mom = momentum(lr, config.max_lr, config.min_lr, config.max_momentum,
                       config.min_momentum)
        for group in run.optimizer.param_groups:
            group["lr"], group["momentum"] = lr, mom
        progress.lr, progress.momentum = lr, mom
        planes = batch.planes
        if config.channels_last:
            planes = planes.contiguous(memory_format=torch.channels_last)
        with run.autocast:
            output = run_network(run.model, planes, batch.phase)
        loss = compute_loss(output, batch, config)
        progress.iteration += 1
        if not torch.isfinite(loss):
            progress.spikes += 1
            progress.recoveries.append(progress.iteration)
            self._log({"iteration": progress.iteration, "set": "event", "event": "nan-loss",
                       "spikes": progress.spikes})
            if progress.spikes > config.max_spikes:
                progress.stopped = "too many spikes"
                return True
            self._recover(run.model, run.optimizer, run.device)
            progress.skip_logging = True
            return False
        progress.skip_logging = False
        run.optimizer.zero_grad(set_to_none=True)
        loss.backward()  # type: ignore[no-untyped-call]
        run.optimizer.step()
        progress.running.append(float(loss.detach()))
        if progress.iteration % config.log_every == 0 or progress.iteration == run.total:
            self._log({"iteration": progress.iteration, "set": "train",
                       "samples": progress.iteration * config.batch_size,
                       "loss_train": float(np.mean(progress.running)), "lr": lr,
                       "momentum": mom, "time": time.monotonic() - progress.start})
            progress.running = []
        return False

    def _evaluate_and_keep_best(self, run: _Run, progress: _Progress) -> bool:
        """Evaluate on the validation and test sets; a validation spike reloads the best
        weights, a new best is saved (weights, then optimiser), the patience is counted, the
        resume state is written. ``True``: too many spikes, or the patience is spent: stop."""
        if progress.skip_logging:  # the step was a non-finite loss: nothing to evaluate
            return False
        config, data = self.config, self.data
        iteration = progress.iteration
        results = {name: evaluate(run.model, run.store, index, config, run.device,
                                  run.weights if (name == "val" and data.weight_validation)
                                  else None, definition=data.definition)
                   for name, index in run.eval_sets.items()}
        for name, metrics in results.items():
            self._log({"iteration": iteration, "set": name, **metrics, "lr": progress.lr,
                       "momentum": progress.momentum,
                       "time": time.monotonic() - progress.start})
        val = results["val"].get("loss", float("nan"))
        previous = progress.previous
        spiked = not math.isfinite(val) or (math.isfinite(previous)
                                            and val > config.spike_threshold * previous)
        if spiked:
            progress.spikes += 1
            progress.recoveries.append(iteration)
            self._log({"iteration": iteration, "set": "event", "event": "spike", "loss": val,
                       "previous": previous, "spikes": progress.spikes})
            if progress.spikes > config.max_spikes:
                progress.stopped = "too many spikes"
                return True
            self._recover(run.model, run.optimizer, run.device)
            progress.previous = progress.best
        else:
            progress.previous = val
            if val < progress.best:
                progress.best = val
                save_checkpoint(self.run_dir / "model.pt", run.model,
                                {"iteration": iteration, "val_loss": val})
                save_optimizer(self.run_dir / "optimizer.pt", run.optimizer, iteration)
        if config.open_ended:
            self._count_patience(progress, math.nan if spiked else val)
        if self.on_evaluation is not None:
            self.on_evaluation({"iteration": iteration, **results})
        self._checkpoint_state(run.model, run.optimizer, progress,
                               time.monotonic() - progress.start)
        return progress.stopped is not None

    def _count_patience(self, progress: _Progress, val: float) -> None:
        """Count an evaluation towards the patience (see :data:`CONVERGENCE_OPTIONS`): an
        improvement (``val`` below the last one's by more than ``min_delta``) resets the
        count; otherwise the plateau schedule cuts the rate at every ``plateau_patience``-th
        evaluation and the run stops at the ``patience``-th. A spike is passed as NaN."""
        config, iteration = self.config, progress.iteration
        if math.isfinite(val) and val < progress.reference - config.min_delta:
            progress.reference, progress.stale = val, 0
            return
        progress.stale += 1
        if self._patience_spent(progress):
            progress.stopped = "patience"
            self._log({"iteration": iteration, "set": "event", "event": "patience",
                       "stale": progress.stale, "best": progress.best})
            return
        if config.schedule == "plateau" and progress.stale % config.plateau_patience == 0:
            now = self._learning_rate(iteration, 0, len(progress.cuts))
            cut = self._learning_rate(iteration, 0, len(progress.cuts) + 1)
            if cut < now:  # at the floor there is nothing left to cut
                progress.cuts.append(iteration)
                self._log({"iteration": iteration, "set": "event", "event": "lr-cut",
                           "stale": progress.stale, "lr": cut})

    def _patience_spent(self, progress: _Progress) -> bool:
        patience = self.config.patience
        return patience is not None and progress.stale >= patience

    # -- helpers --
    def _log(self, row: dict[str, Any]) -> None:
        append_record(self.metrics_path, row)

    def _recover(self, model: RiseNet, optimizer: torch.optim.Optimizer,
                 device: torch.device) -> None:
        """Reload the best checkpoint (model and optimiser), or the start weights."""
        best = self.run_dir / "model.pt"
        if best.exists():
            model.load_state_dict(load_checkpoint(best).state_dict())
            iteration = json.loads((self.run_dir / "model.pt.json").read_text()).get(
                "iteration")
            load_optimizer(self.run_dir / "optimizer.pt", optimizer, iteration, device)
        model.to(device)

    def _checkpoint_state(self, model: RiseNet, optimizer: torch.optim.Optimizer,
                          progress: _Progress, elapsed: float) -> None:
        state = {
            "model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "iteration": progress.iteration, "best": progress.best,
            "previous": progress.previous, "spikes": progress.spikes,
            "recoveries": progress.recoveries, "running": progress.running, "elapsed": elapsed,
            "stale": progress.stale, "reference": progress.reference, "cuts": progress.cuts,
            "python_rng": repr(random.getstate()),
            "numpy_rng": json.dumps(np.random.get_state(legacy=False), default=_jsonable),
            "torch_rng": torch.get_rng_state(),
            "cuda_rng": (torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []),
        }
        with atomic_path(self.run_dir / "state.pt", suffix=".pt") as tmp:
            torch.save(state, tmp)

    def _restore(self, model: RiseNet, optimizer: torch.optim.Optimizer,
                 device: torch.device) -> dict[str, Any]:
        fresh: dict[str, Any] = {"iteration": 0, "best": math.inf, "previous": math.nan,
                                 "spikes": 0, "recoveries": [], "running": [], "elapsed": 0.0,
                                 "stale": 0, "reference": math.inf, "cuts": []}
        path = self.run_dir / "state.pt"
        if not path.exists():
            if self.metrics_path.exists():
                self.metrics_path.unlink()  # an interrupted start before the first evaluation
            return fresh
        try:
            state = torch.load(path, map_location=device, weights_only=True)
        except Exception as error:
            raise CheckpointError(f"resume state {path} cannot be loaded ({error}); delete it "
                                  "to restart the run") from error
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        import ast

        random.setstate(ast.literal_eval(state["python_rng"]))
        np.random.set_state(json.loads(state["numpy_rng"], object_hook=_numpy_state))
        torch.set_rng_state(state["torch_rng"])
        if state["cuda_rng"] and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(state["cuda_rng"])
        # Drop metric rows written after the saved state: they will be recomputed.
        report = read_records(self.metrics_path)
        kept = [r for r in report.records if int(r["iteration"]) <= int(state["iteration"])]
        with atomic_path(self.metrics_path) as tmp:
            tmp.write_text("".join(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n"
                                   for r in kept))
        # a state without a patience count (a fixed-length run's resume state) starts
        # from none
        return {k: state.get(k, fresh[k]) for k in fresh}

    def _finish(self, run: _Run, progress: _Progress, elapsed: float) -> dict[str, Any]:
        total, best, stopped = run.total, progress.best, progress.stopped
        best_path = self.run_dir / "model.pt"
        if not best_path.exists():
            raise RuntimeError(f"{self.run_dir}: no checkpoint was saved (every evaluation "
                               "failed); see metrics.jsonl")
        model = load_checkpoint(best_path)
        plain = not isinstance(model, PhaseHeadNet)  # a trunk exports its experts, split
        if plain:
            export_onnx(model, self.run_dir / "model.onnx")
        meta = json.loads((self.run_dir / "model.pt.json").read_text())
        summary = {"iterations": progress.iteration if self.config.open_ended else total,
                   "best_val_loss": best,
                   "best_iteration": meta.get("iteration"), "spikes": progress.spikes,
                   "recoveries": progress.recoveries, "stopped": stopped,
                   "seconds": round(elapsed, 1),
                   "precision": training_precision(self.config, run.device),
                   "parameters": sum(p.numel() for p in model.parameters()),
                   "checkpoint": {"file": "model.pt", "sha256": meta["sha256"]},
                   **({"onnx": {"file": "model.onnx",
                                "sha256": sha256_file(self.run_dir / "model.onnx")}}
                      if plain else {}),
                   **({"convergence": self._convergence(run, progress, meta)}
                      if self.config.open_ended else {}),
                   "provenance": provenance()}
        atomic_write_json(self.summary_path, summary)
        for leftover in ("state.pt", "optimizer.pt"):
            (self.run_dir / leftover).unlink(missing_ok=True)
        return summary


    def _convergence(self, run: _Run, progress: _Progress, meta: dict[str, Any]
                     ) -> dict[str, Any]:
        """How an open-ended run ended: where it stopped and why, its best iteration, the
        settings that decided it and the iterations of its learning-rate cuts."""
        config = self.config
        reason = {None: "cap", "patience": "patience"}.get(progress.stopped, progress.stopped)
        return {"stopped_at": progress.iteration, "best_iteration": meta.get("iteration"),
                "reason": reason, "cap": run.total,
                "epochs": round(progress.iteration / run.per_epoch, 3),
                "iterations_per_epoch": run.per_epoch,
                "evaluations_without_improvement": progress.stale,
                "patience": config.patience, "min_delta": config.min_delta,
                "eval_every": config.eval_every, "schedule": config.schedule,
                **({"plateau_patience": config.plateau_patience,
                    "plateau_factor": config.plateau_factor,
                    "warmup_iterations": config.warmup_iterations, "lr_cuts": progress.cuts}
                   if config.schedule == "plateau" else {})}


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, np.integer):
        return int(value)
    raise TypeError(type(value))


def _numpy_state(data: dict[str, Any]) -> Any:
    if "__ndarray__" in data:
        return np.array(data["__ndarray__"], dtype=data["dtype"])
    return data
