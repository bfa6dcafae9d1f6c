"""Evaluators for the search: one network (:class:`NetworkEvaluator`), or a mixture of phase
experts gated by a phase definition (:class:`MixtureEvaluator`, paper sec. 2.3-2.4), and the
expert bundles they are read from (:class:`Bundle`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from chessmoe.phases import BoardBatch, PhaseDefinition, phase_definition, tapered_alpha_batch
from chessmoe.search.bundles import Bundle, load_bundle, mixture_baseline, network_file
from chessmoe.search.inference import (
    BACKEND_PRECISION,
    BackendName,
    CallResult,
    EvalPlan,
    NetCall,
    NetworkBackend,
    legal_softmax,
    make_backend,
    run_plan,
)
from chessmoe.search.mcts import Evaluation, LeafBatch
from chessmoe.search.native import glue
from chessmoe.search.routing import ROUTINGS

if TYPE_CHECKING:  # torch is imported only by the eager path: an ONNX Runtime or OpenVINO
    import torch  # engine answers its first 'go' without it (about 1.3 s of start-up)

    from chessmoe.nets.model import RiseNet

__all__ = [
    "Bundle",  # re-exported from chessmoe.search.bundles (its home), as load_bundle
    "GateDecision",
    "MixtureEvaluator",
    "NetworkEvaluator",
    "legal_softmax",  # re-exported from chessmoe.search.inference (its home)
    "load_bundle",
    "load_model",  # noqa: F822  (re-exported lazily from chessmoe.nets.checkpoints, its home)
    "mixture_from_bundle",
    "network_evaluator",
    "network_from_dir",
]



class NetworkEvaluator:
    """One network as an :class:`~chessmoe.search.mcts.Evaluator`.

    Runs ``model`` eagerly (fp32; fp16 on a GPU with ``half``), or, when ``backend`` is given
    (see :mod:`chessmoe.search.inference`: ONNX Runtime, CUDA graphs), that backend.
    """

    def __init__(self, model: RiseNet | None = None, *, device: str = "auto",
                 half: bool = False, name: str = "network",
                 backend: NetworkBackend | None = None) -> None:
        if (model is None) == (backend is None):
            raise ValueError("a network evaluator needs a model or a backend (not both)")
        self.backend = backend
        self.model = model
        self.half = False
        if model is not None:
            from chessmoe.nets.checkpoints import resolve_device

            self.device: torch.device = resolve_device(device)
            self.half = half and self.device.type == "cuda"
            self.model = model.to(self.device).eval()
            if self.half:
                self.model = self.model.half()
        self.name = name
        self.calls = 0
        self.positions = 0

    def forward(self, records: npt.NDArray[Any]) -> tuple[npt.NDArray[np.float32],
                                                          npt.NDArray[np.float32]]:
        """Values ``[N]`` and policy logits ``[N, 4864]`` of N records."""
        self.calls += 1
        self.positions += len(records)
        if self.backend is not None:
            return self.backend.forward(records)
        assert self.model is not None
        import torch

        planes = torch.from_numpy(glue.planes(records)).to(self.device)
        if self.half:
            planes = planes.half()
        with torch.inference_mode():
            output = self.model(planes)
        return (output.value.float().reshape(-1).cpu().numpy(),
                output.policy.float().cpu().numpy())

    def plan(self, batch: LeafBatch) -> EvalPlan:
        """One call over every row (see :class:`~chessmoe.search.inference.EvalPlan`)."""
        return EvalPlan((NetCall(self, np.arange(len(batch), dtype=np.int64)),), _whole)

    def evaluate(self, batch: LeafBatch) -> Evaluation:
        return run_plan(self.plan(batch), batch)


def _whole(outputs: Sequence[CallResult]) -> Evaluation:
    """The evaluation of a batch that one call scored whole."""
    answer = outputs[0]
    return Evaluation(answer.values.astype(np.float32), flat=answer.priors,
                      offsets=answer.offsets)


def soft_memberships(batch: LeafBatch) -> npt.NDArray[np.float64]:
    """(N, 3) phase memberships from the tapered phase alpha: opening ``max(0, 2a - 1)``,
    endgame ``max(0, 1 - 2a)``, middlegame the rest (they sum to 1)."""
    alpha = tapered_alpha_batch(BoardBatch.from_columns(batch.records))
    opening = np.clip(2 * alpha - 1, 0, 1)
    endgame = np.clip(1 - 2 * alpha, 0, 1)
    return np.stack([opening, 1 - opening - endgame, endgame], axis=1)


@dataclass(frozen=True)
class GateDecision:
    """One mini-batch's gate decision (the log behind Fig. 3 and batch purity): its size, the
    leaves per phase, the phase that won the vote and the network(s) used (``phase<k>``,
    ``baseline``, ``phase0+phase2`` for split routing, ``soft``)."""

    size: int
    counts: tuple[int, ...]
    phase: int
    model: str

    @property
    def purity(self) -> float:
        """The share of the batch's leaves in its most frequent phase."""
        return max(self.counts) / self.size


@dataclass
class MixtureEvaluator:
    """Phase experts gated by a phase definition from the registry:

    * ``routing="majority"`` (the paper): the phase with the most leaves in the mini-batch
      (ties: the lowest phase id) picks the expert that evaluates the *whole* batch; the
      root, a batch of one, gets its own phase's expert;
    * ``routing="split"``: each phase's leaves go to their own expert (the paper's
      Limitations);
    * ``routing="soft"``: every expert evaluates the batch and outputs are mixed with phase
      memberships from the tapered phase (the left form of the paper's Eq. 1; 3 phases);
    * ``single_expert=k``: only phase k's expert is used, the baseline network stands in for
      the other phases (the ablation of Fig. 6 and 29).

    The gate's definition (e.g. the ``engine`` mixedness table) is independent of the labels
    the experts were trained with. Every call is logged (:attr:`log`: batch size, phase
    counts, the expert(s) used), from which the kit draws Fig. 3 and batch purity."""

    experts: Sequence[NetworkEvaluator]
    definition: PhaseDefinition
    routing: str = "majority"
    baseline: NetworkEvaluator | None = None
    single_expert: int | None = None
    log: list[GateDecision] = field(default_factory=list)
    keep_log: bool = True

    def __post_init__(self) -> None:
        if self.routing not in ROUTINGS:
            raise ValueError(f"unknown routing {self.routing!r}; known: {', '.join(ROUTINGS)}")
        if len(self.experts) != self.definition.n_phases:
            raise ValueError(f"{len(self.experts)} experts for the {self.definition.n_phases} "
                             f"phases of {self.definition.name!r}")
        if self.single_expert is not None:
            if self.baseline is None:
                raise ValueError("the single-expert ablation needs a baseline network")
            if not 0 <= self.single_expert < len(self.experts):
                raise ValueError(f"single_expert {self.single_expert} is not a phase id")
        if self.routing == "soft" and self.definition.n_phases != 3:
            raise ValueError("soft routing mixes three phases (opening/middlegame/endgame)")

    def expert_for(self, phase: int) -> tuple[NetworkEvaluator, str]:
        """The network that evaluates batches gated to ``phase``, and its label."""
        if self.single_expert is not None and phase != self.single_expert:
            assert self.baseline is not None
            return self.baseline, "baseline"
        return self.experts[phase], f"phase{phase}"

    def phases(self, batch: LeafBatch) -> npt.NDArray[np.int8]:
        return glue.gate(batch.records, self.definition)[0]

    def plan(self, batch: LeafBatch) -> EvalPlan:
        """The gate decision for this mini-batch alone, as network calls (see
        :class:`~chessmoe.search.inference.EvalPlan`): majority -- one call, the whole batch to
        the expert of the most frequent phase; split -- one call per phase present; soft --
        every expert on every row, mixed by tapered memberships."""
        phases, counts = glue.gate(batch.records, self.definition)
        everything = np.arange(len(batch), dtype=np.int64)
        combine: Callable[[Sequence[CallResult]], Evaluation]
        if self.routing == "majority":
            chosen = int(counts.argmax())  # first maximum: ties go to the lowest phase id
            network, label = self.expert_for(chosen)
            decision = (chosen, label)
            calls: tuple[NetCall, ...] = (NetCall(network, everything),)
            combine = _whole
        elif self.routing == "split":
            present = [int(p) for p in np.flatnonzero(counts)]
            row_sets = [np.flatnonzero(phases == p).astype(np.int64) for p in present]
            chosen_nets = [self.expert_for(p) for p in present]
            calls = tuple(NetCall(net, rows) for (net, _), rows in zip(chosen_nets, row_sets,
                                                                      strict=True))
            decision = (int(np.argmax(counts)), "+".join(label for _, label in chosen_nets))

            def combine(outputs: Sequence[CallResult]) -> Evaluation:
                values = np.zeros(len(batch), dtype=np.float32)
                priors: list[npt.NDArray[np.float32]] = [np.zeros(0, np.float32)] * len(batch)
                for rows, answer in zip(row_sets, outputs, strict=True):
                    values[rows] = answer.values
                    for row, p in zip(rows, answer.split(), strict=True):
                        priors[row] = p
                return Evaluation(values, priors)
        else:  # soft
            weights = soft_memberships(batch)
            calls = tuple(NetCall(self.expert_for(k)[0], everything) for k in range(3))
            decision = (int(np.argmax(weights.sum(axis=0))), "soft")

            def combine(outputs: Sequence[CallResult]) -> Evaluation:
                mixed = np.zeros(len(batch), dtype=np.float64)
                parts = [answer.split() for answer in outputs]
                for k, answer in enumerate(outputs):
                    mixed += weights[:, k] * answer.values
                mixed_priors: list[npt.NDArray[np.float32]] = []
                for i in range(len(batch)):
                    mix = np.zeros(len(parts[0][i]), dtype=np.float64)
                    for k in range(3):
                        mix += weights[i, k] * parts[k][i]
                    mixed_priors.append(mix.astype(np.float32))
                return Evaluation(mixed.astype(np.float32), mixed_priors)
        if self.keep_log:
            self.log.append(GateDecision(len(batch), tuple(counts.tolist()), *decision))
        return EvalPlan(calls, combine)

    def evaluate(self, batch: LeafBatch) -> Evaluation:
        return run_plan(self.plan(batch), batch)

    def usage(self) -> dict[str, Any]:
        """Summary of the log: batches and positions per expert, and batch purity (the share
        of a batch's leaves in the phase that picked its expert)."""
        if not self.log:
            return {"batches": 0}
        per_model: dict[str, int] = {}
        purity = []
        for entry in self.log:
            per_model[entry.model] = per_model.get(entry.model, 0) + entry.size
            purity.append(entry.purity)
        return {"batches": len(self.log), "positions_per_model": per_model,
                "mean_purity": float(np.mean(purity)),
                "pure_batches": float(np.mean([p == 1.0 for p in purity]))}


# --- networks from bundles on disk (which files: chessmoe.search.bundles) -----------------


def network_evaluator(path: str | os.PathLike[str], *, device: str = "auto",
                      half: bool = False, backend: BackendName = "torch", threads: int = 1,
                      name: str = "network") -> NetworkEvaluator:
    """The network in checkpoint ``path`` as an evaluator on ``backend`` (``torch``: eager,
    fp16 on a GPU with ``half``; ``onnx``: ONNX Runtime on the CPU with ``threads``;
    ``cuda``: bf16 with CUDA graphs). Backends are shared per checkpoint, device and
    thread count, so every player of a worker feeds one network object."""
    if backend == "torch":
        from chessmoe.nets.checkpoints import load_model

        return NetworkEvaluator(load_model(path, device, half), device=device, half=half,
                                name=name)
    return NetworkEvaluator(backend=_shared_backend(str(Path(path).resolve()), backend,
                                                    device, threads, name),
                            device="cpu", name=name)


@lru_cache(maxsize=32)
def _shared_backend(path: str, backend: BackendName, device: str, threads: int,
                    name: str) -> NetworkBackend:
    precision = BACKEND_PRECISION[backend]
    return make_backend(path, backend, device="cuda" if device == "auto" else device,
                        precision=precision, threads=threads, name=name)


def mixture_from_bundle(directory: str | os.PathLike[str], *, routing: str = "majority",
                        gate: str | None = None, single_expert: int | None = None,
                        baseline: str | os.PathLike[str] | None = None, device: str = "auto",
                        half: bool = False, backend: BackendName = "torch",
                        threads: int = 1) -> MixtureEvaluator:
    """A mixture evaluator from a bundle (experts loaded once and shared)."""
    bundle = load_bundle(directory)
    definition = phase_definition(gate or bundle.definition)
    experts = [network_evaluator(p, device=device, half=half, backend=backend,
                                 threads=threads, name=f"phase{i}")
               for i, p in enumerate(bundle.expert_paths())]
    base_path = mixture_baseline(bundle, baseline)
    base = (network_evaluator(base_path, device=device, half=half, backend=backend,
                              threads=threads, name="baseline")
            if base_path is not None else None)
    return MixtureEvaluator(experts, definition, routing=routing, baseline=base,
                            single_expert=single_expert)


def network_from_dir(directory: str | os.PathLike[str], device: str = "auto",
                     half: bool = False, backend: BackendName = "torch",
                     threads: int = 1) -> NetworkEvaluator:
    """A single-network evaluator from a run directory, a bundle with a baseline, or a
    checkpoint file."""
    path = network_file(directory)
    return network_evaluator(path, device=device, half=half, backend=backend,
                             threads=threads, name=path.parent.name)


def __getattr__(name: str) -> Any:
    """``load_model`` from its home, imported on first use (it needs torch)."""
    if name == "load_model":
        from chessmoe.nets.checkpoints import load_model

        return load_model
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
