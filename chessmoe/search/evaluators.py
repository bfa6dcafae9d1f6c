"""How a search scores its leaves, said once: :class:`EvaluatorSpec` and its one ``build()``.

The UCI engine, in-process players, the CLI (``chessmoe analyse``), the pipeline and the
notebooks all describe the evaluator they want with an :class:`EvaluatorSpec` and call
:meth:`EvaluatorSpec.build`; bundles are read through :class:`~chessmoe.search.bundles.Bundle`
(their manifest), never by hand.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from chessmoe._io.errors import KitError
from chessmoe.search.inference import BACKEND_CHOICES as BACKENDS
from chessmoe.search.inference import BackendChoice as Backend
from chessmoe.search.inference import choose_backend
from chessmoe.search.mcts import Evaluator, UniformEvaluator
from chessmoe.search.routing import ROUTINGS, Routing

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "DEFAULT_DEVICE", "GATES_FILE", "RECORDED_BACKEND",
           "RECORDED_DEVICE", "ROUTINGS", "Backend", "EvaluatorSpec", "NoNetworkError", "Routing",
           "committed_bundles", "committed_results", "passed_backends"]

# The defaults, for two contexts. EvaluatorSpec's own (DEFAULT_*: both ``auto``, the fastest
# exact backend of the machine) are those of a user's engine: the UCI engine's options, the
# ``chessmoe uci`` and ``chessmoe analyse`` arguments and library code. EvaluatorSpec.recorded
# (RECORDED_*: eager fp32 torch on the CPU) is the default of the kit's tournament players
# (chessmoe.play.match.PlayerSpec): the committed tournaments record these values, and games
# played with another backend could differ move for move, so a player that names no backend
# plays, and is recorded, with them whatever machine resumes it.

DEFAULT_DEVICE = "auto"
"""A user's engine: ``cuda`` when a GPU is present, else the CPU."""
DEFAULT_BACKEND: Backend = "auto"
"""A user's engine: ``cuda`` on a GPU; on a CPU the fastest low-precision backend whose gates
are committed as passed (:data:`GATES_FILE`) where the machine runs it, else ONNX Runtime
(:func:`choose_backend`)."""
RECORDED_DEVICE = "cpu"
"""A tournament player that names no device (what the committed tournaments record)."""
RECORDED_BACKEND: Backend = "torch"
"""A tournament player that names no backend: eager fp32 torch, the reference, which the
committed tournaments record for such players (resuming them must not change their moves)."""


#: Where the low-precision backends' gates are committed, under the results directory
#: (written by :func:`chessmoe.play.precision.gates`).
GATES_FILE = Path("tournaments") / "precision" / "gates.json"


def passed_backends(results_dir: str | os.PathLike[str] | None) -> tuple[str, ...]:
    """The low-precision backends whose committed gates passed (none without the file)."""
    if results_dir is None:
        return ()
    try:
        data = json.loads((Path(results_dir) / GATES_FILE).read_text())
    except (OSError, ValueError):
        return ()
    if not isinstance(data, dict):
        return ()
    return tuple(name for name, entry in data.items()
                 if isinstance(entry, dict) and entry.get("passed") is True)


class NoNetworkError(KitError):
    """No network was named, none of the kit's committed experts was found, and ``uniform``
    is off: there is nothing to search with."""


def committed_results() -> Path | None:
    """The kit's committed ``results/`` directory, if it can be found: ``$CHESSMOE_RESULTS``,
    else ``./results`` when it holds experts, else the source checkout's ``results/``. An
    installed wheel has none: a spec that names no network then refuses to build
    (:class:`NoNetworkError`, one line) instead of searching without a network;
    ``uniform=True`` is the explicit way to search without one."""
    candidates = []
    if os.environ.get("CHESSMOE_RESULTS"):
        candidates.append(Path(os.environ["CHESSMOE_RESULTS"]))
    candidates += [Path("results"), Path(__file__).resolve().parents[2] / "results"]
    for candidate in candidates:
        if (candidate / "experts").is_dir():
            return candidate
    return None


def committed_bundles(profile: str = "small") -> tuple[Path | None, Path | None]:
    """The committed experts (separated) and regular bundle of ``profile``, when present."""
    results = committed_results()
    if results is None:
        return None, None
    root = results / "experts" / profile
    experts, baseline = root / "separated", root / "regular"
    return (experts if (experts / "manifest.json").exists() else None,
            baseline if (baseline / "manifest.json").exists() else None)


@dataclass(frozen=True)
class EvaluatorSpec:
    """What scores the leaves of a search (picklable; JSON round-trip with to/from_dict).

    ``network``: an expert bundle directory (a mixture; the regular bundle gives its single
    network), a run directory or a ``model.pt``; ``None``: the committed small experts.
    ``baseline``: the regular bundle standing in for the other phases when ``single_expert``
    (a phase id) is set (the paper's Fig. 6 ablation); default: the bundle's own reference.
    ``gate``: the phase definition of the gate (default: the bundle's training definition).
    ``device``: ``auto`` (the default: ``cuda`` when present, else ``cpu``), ``cpu``, ``cuda``
    or ``cuda:N``. ``backend``: ``auto`` (the default: ``cuda`` on a GPU, ONNX Runtime on a
    CPU; see :func:`~chessmoe.search.inference.choose_backend`), ``torch`` (eager fp32, the
    reference), ``onnx`` (ONNX Runtime, CPU) or ``cuda`` (bf16, CUDA graphs); ``threads``:
    CPU threads of the network. ``uniform``: no network at all (value 0, uniform priors).

    The defaults live here, once, for two contexts. These (:data:`DEFAULT_DEVICE`,
    :data:`DEFAULT_BACKEND`: both ``auto``, the fastest exact backend of the machine) are
    those of a user's engine: the UCI engine's options
    (:class:`~chessmoe.play.uci.EngineOptions`), the ``chessmoe uci`` and ``chessmoe analyse``
    arguments and library code. :meth:`recorded` gives a tournament player's
    (:class:`~chessmoe.play.match.PlayerSpec`).
    """

    network: str | None = None
    baseline: str | None = None
    routing: Routing = "majority"
    gate: str | None = None
    single_expert: int | None = None
    device: str = DEFAULT_DEVICE
    backend: Backend = DEFAULT_BACKEND
    threads: int = 1
    uniform: bool = False

    def __post_init__(self) -> None:
        if self.routing not in ROUTINGS:
            raise ValueError(f"unknown routing {self.routing!r}; known: {', '.join(ROUTINGS)}")
        if self.backend not in BACKENDS:
            raise ValueError(f"unknown backend {self.backend!r}; known: {', '.join(BACKENDS)}")
        if self.single_expert is not None and self.single_expert < 0:
            raise ValueError(f"single_expert is a phase id (0, 1, ...), not "
                             f"{self.single_expert}")
        if self.threads < 1:
            raise ValueError("threads must be at least 1")

    @classmethod
    def recorded(cls, **fields: Any) -> EvaluatorSpec:
        """A tournament player's evaluator: ``fields`` over :data:`RECORDED_DEVICE` (``cpu``)
        and :data:`RECORDED_BACKEND` (``torch``) instead of a user's ``auto``. The committed
        tournaments record these values for a player that names neither (and games played
        with another backend could differ move for move), so such a player plays, and is
        recorded, with eager fp32 torch on the CPU, whatever machine resumes it."""
        return cls(**{"device": RECORDED_DEVICE, "backend": RECORDED_BACKEND, **fields})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvaluatorSpec:
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown evaluator field(s) {unknown}; known: {sorted(known)}")
        return cls(**data)

    def named_networks(self) -> tuple[str, str | None]:
        """The network and baseline this spec reads: as named, or the kit's committed small
        experts and their regular bundle (:class:`NoNetworkError` when they are not found)."""
        network, baseline = self.network, self.baseline
        if network is None:
            experts, regular = committed_bundles()
            if experts is None:
                raise NoNetworkError(
                    "no network named and the kit's committed small experts were not found: "
                    "set CHESSMOE_RESULTS, name a network (--experts, UCI Model_Directory) or "
                    "search without one (--uniform, UCI Uniform)")
            network = str(experts)
            baseline = baseline or (str(regular) if regular else None)
        path = Path(network)
        if not path.exists():
            raise FileNotFoundError(f"{path} does not exist (expected an expert bundle, a run "
                                    "directory or a model.pt)")
        return network, baseline

    @staticmethod
    def _single(path: Path) -> bool:
        """Whether ``path`` gives one network (a regular bundle, a run directory or a
        checkpoint) rather than a mixture of experts."""
        from chessmoe.search.bundles import load_bundle

        return (not (path / "manifest.json").exists()
                or load_bundle(path).regime == "regular")

    def weight_files(self) -> tuple[Path, ...]:
        """The checkpoint files :meth:`build` reads, without reading them (and without
        torch): a single network's ``model.pt``, or a mixture's experts and, when present, its
        baseline; none for ``uniform``. Raises as :meth:`build` does for a missing network."""
        from chessmoe.search.bundles import load_bundle, mixture_baseline, network_file

        if self.uniform:
            return ()
        network, baseline = self.named_networks()
        path = Path(network)
        if self._single(path):
            return (network_file(path),)
        bundle = load_bundle(path)
        base = mixture_baseline(bundle, baseline)
        return (*bundle.expert_paths(), *([base] if base is not None else []))

    def build(self) -> tuple[Evaluator, str]:
        """The evaluator, and one line saying what was loaded. Raises
        :class:`NoNetworkError` (a :class:`~chessmoe._io.errors.KitError`, one line) when no
        network is named and the kit's committed experts are not found, unless ``uniform``;
        :class:`FileNotFoundError` when the named network does not exist."""
        # imported here, not above: the UCI front end answers 'uci' before anything loads
        from chessmoe.search.experts import mixture_from_bundle, network_from_dir

        if self.uniform:
            return UniformEvaluator(), "evaluator: uniform (no network: value 0, uniform priors)"
        network, baseline = self.named_networks()
        backend = choose_backend(self.backend, self.device,
                                 gated=passed_backends(committed_results()))
        if backend in ("torch", "cuda"):  # the other backends run without torch
            import torch

            torch.set_num_threads(self.threads)  # small search batches: more threads contend
        path = Path(network)
        if self._single(path):  # a regular bundle, a run directory or a checkpoint
            net = network_from_dir(path, device=self.device, backend=backend,
                                   threads=self.threads)
            return net, f"evaluator: single network {path} ({backend})"
        mixture = mixture_from_bundle(path, routing=self.routing, gate=self.gate,
                                      single_expert=self.single_expert, baseline=baseline,
                                      device=self.device, backend=backend,
                                      threads=self.threads)
        only = (f", only phase {self.single_expert}'s expert, baseline elsewhere"
                if self.single_expert is not None else "")
        return mixture, (f"evaluator: mixture of {len(mixture.experts)} experts from {path} "
                         f"(gate {mixture.definition.name}, routing {mixture.routing}{only}, "
                         f"{backend})")
