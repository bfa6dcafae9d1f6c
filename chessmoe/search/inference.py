"""Fast network inference for the search: backends that run one network on a batch of compact
leaf records (:func:`make_backend`), and one service that batches the mini-batches of many
searches (:class:`InferenceService`). The planes, the gate's phases and the softmax run compiled
where numba can compile them (:func:`compiled_glue`), else as their numpy definitions; the
numbers are the same.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast, runtime_checkable

import numpy as np
import numpy.typing as npt

from chessmoe.encoding import records_to_planes

if TYPE_CHECKING:
    import torch

    from chessmoe.nets.model import RiseNet
    from chessmoe.phases import PhaseDefinition
    from chessmoe.search.mcts import Evaluation, Evaluator, LeafBatch

__all__ = [
    "BACKENDS",
    "BACKEND_CHOICES",
    "BACKEND_PRECISION",
    "LOW_PRECISION",
    "BackendChoice",
    "BackendName",
    "CallResult",
    "CompiledGlue",
    "CudaBackend",
    "EvalPlan",
    "InferenceService",
    "NetCall",
    "NetworkBackend",
    "OnnxBackend",
    "OpenVinoBackend",
    "Outputs",
    "Plannable",
    "TorchBackend",
    "choose_backend",
    "compiled_glue",
    "cpu_has_native_bf16",
    "export_onnx",
    "leaf_planes",
    "legal_softmax",
    "make_backend",
    "onnx_cache_dir",
    "openvino_bf16_available",
    "run_plan",
]

BackendName = Literal["torch", "onnx", "openvino-bf16", "cuda"]
BACKENDS: tuple[BackendName, ...] = ("torch", "onnx", "openvino-bf16", "cuda")
#: What each backend computes in (``cuda``: its default; :func:`make_backend` takes others).
BACKEND_PRECISION: dict[BackendName, str] = {"torch": "fp32", "onnx": "fp32",
                                             "openvino-bf16": "bf16", "cuda": "bf16"}
#: The backends whose outputs are not fp32's: a tournament played with one names it in its
#: spec, and a claim reads it only after its gates passed.
LOW_PRECISION: tuple[BackendName, ...] = ("openvino-bf16",)
BackendChoice = Literal["auto", "torch", "onnx", "openvino-bf16", "cuda"]
BACKEND_CHOICES: tuple[BackendChoice, ...] = ("auto", *BACKENDS)


def choose_backend(backend: BackendChoice, device: str = "auto",
                   gated: Sequence[str] = ()) -> BackendName:
    """The backend ``backend`` names; ``auto`` is the fastest one the machine can run that is
    exact, or whose gates passed: ``cuda`` (bf16, CUDA graphs) when ``device`` resolves to a
    GPU; else ``openvino-bf16`` when it is in ``gated`` (the low-precision backends whose
    committed gates passed), OpenVINO is installed and the CPU computes bf16 natively; else
    ONNX Runtime when it is installed (within 1e-4 of eager fp32, about twice its speed at
    search batch sizes on a CPU; BENCHMARKS.md), else eager torch."""
    if backend != "auto":
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; known: "
                             f"{', '.join(BACKEND_CHOICES)}")
        return backend
    if _gpu_requested(device):
        return "cuda"
    if "openvino-bf16" in gated and openvino_bf16_available():
        return "openvino-bf16"
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return "torch"
    return "onnx"


def _gpu_requested(device: str) -> bool:
    """Whether ``device`` resolves to a GPU (``auto`` asks torch only when torch is already
    imported or CUDA is visible, so a CPU engine's choice does not import torch)."""
    if device.startswith("cuda"):
        return True
    if device != "auto":
        return False
    if "torch" not in sys.modules and not os.environ.get("CUDA_VISIBLE_DEVICES") and \
            not Path("/proc/driver/nvidia").exists():
        return False
    import torch

    return bool(torch.cuda.is_available())


def cpu_has_native_bf16() -> bool:
    """Whether this CPU computes bf16 natively (AVX512_BF16 or AMX), read from its flags
    (Linux) without importing torch; False where the flags cannot be read."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return any(flag in flags.split() for flag in ("avx512_bf16", "amx_bf16"))


def openvino_bf16_available() -> bool:
    """Whether the ``openvino-bf16`` backend can run here at its speed: OpenVINO installed and
    a CPU that computes bf16 natively (elsewhere OpenVINO would quietly compute in fp32)."""
    import importlib.util

    return importlib.util.find_spec("openvino") is not None and cpu_has_native_bf16()

Outputs = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]
"""``(values [N], policy logits [N, 4864])`` of one network call, float32."""


class NetworkBackend(Protocol):
    """One network behind a ``forward`` over leaf records."""

    name: str
    calls: int
    positions: int

    def forward(self, records: npt.NDArray[Any]) -> Outputs:
        """Values ``[N]`` and policy logits ``[N, 4864]`` of ``N`` records."""
        ...


# --- backends -------------------------------------------------------------------------------


class TorchBackend:
    """Eager PyTorch on the CPU (fp32; the reference) or any device without graph capture."""

    def __init__(self, model: RiseNet, *, device: str = "cpu", name: str = "network") -> None:
        import torch

        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self.name = name
        self.calls = 0
        self.positions = 0

    def forward(self, records: npt.NDArray[Any]) -> Outputs:
        import torch

        planes = torch.from_numpy(leaf_planes(records)).to(self.device)
        with torch.inference_mode():
            output = self.model(planes)
        self.calls += 1
        self.positions += len(records)
        return (output.value.float().reshape(-1).cpu().numpy(),
                output.policy.float().cpu().numpy())


def onnx_cache_dir() -> Path:
    """Where exported ONNX networks are cached: ``$CHESSMOE_CACHE/onnx`` or
    ``~/.cache/chessmoe/onnx``."""
    base = os.environ.get("CHESSMOE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "chessmoe")
    return Path(base) / "onnx"


def _exported(checkpoint: Path, sha256: str) -> Path:
    """The ONNX export of ``checkpoint`` (made once, atomically, keyed by its sha256)."""
    target = onnx_cache_dir() / f"{sha256}.onnx"
    if not target.exists():
        from chessmoe.nets.checkpoints import load_model

        target.parent.mkdir(parents=True, exist_ok=True)
        _export(load_model(checkpoint, "cpu"), target)
    return target


def export_onnx(model: RiseNet, target: str | os.PathLike[str]) -> None:
    """Export ``model`` to ONNX at ``target`` (atomically; dynamic batch axis)."""
    _export(model, Path(target))


def _export(model: RiseNet, target: Path) -> None:
    from chessmoe.nets.checkpoints import export_onnx as export

    export(model, target)


class OnnxBackend:
    """ONNX Runtime on the CPU, ``threads`` intra-op threads (1: one search worker a core)."""

    def __init__(self, onnx_path: str | os.PathLike[str], *, threads: int = 1,
                 name: str = "network") -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(str(onnx_path), options,
                                            providers=["CPUExecutionProvider"])
        self.name = name
        self.calls = 0
        self.positions = 0

    def forward(self, records: npt.NDArray[Any]) -> Outputs:
        value, policy = self.session.run(["value", "policy"],
                                         {"planes": leaf_planes(records)})
        self.calls += 1
        self.positions += len(records)
        return (np.asarray(value, dtype=np.float32).reshape(-1),
                np.asarray(policy, dtype=np.float32))


class OpenVinoBackend:
    """OpenVINO on the CPU: the ONNX export compiled once (dynamic batch) with ``precision``
    as its inference precision (``bf16``; ``f32`` computes as ONNX Runtime does, for tests),
    ``threads`` threads, one stream, latency mode (one search's small batches), threads not
    pinned (pinned, the workers of a tournament all chose the same core)."""

    def __init__(self, onnx_path: str | os.PathLike[str], *, precision: str = "bf16",
                 threads: int = 1, name: str = "network") -> None:
        try:
            import openvino as ov
        except ImportError as error:
            from chessmoe._io.errors import KitError

            raise KitError("the openvino-bf16 backend needs OpenVINO: pip install openvino "
                           "(or use --backend onnx)") from error
        if precision not in ("bf16", "f32"):
            raise ValueError(f"precision {precision!r}: the openvino backend takes bf16 or f32")
        core = ov.Core()
        # compiled networks are cached beside the ONNX exports: a later engine start loads
        # the blob instead of compiling again
        core.set_property({"CACHE_DIR": str(onnx_cache_dir().parent / "openvino")})
        self.compiled = core.compile_model(core.read_model(str(onnx_path)), "CPU", {
            "INFERENCE_PRECISION_HINT": precision, "INFERENCE_NUM_THREADS": threads,
            "NUM_STREAMS": 1, "PERFORMANCE_HINT": "LATENCY", "ENABLE_CPU_PINNING": False})
        self.request = self.compiled.create_infer_request()
        self._value = self.compiled.output("value")
        self._policy = self.compiled.output("policy")
        self.precision = precision
        self.name = name
        self.calls = 0
        self.positions = 0

    def forward(self, records: npt.NDArray[Any]) -> Outputs:
        result = self.request.infer({"planes": leaf_planes(records)})
        self.calls += 1
        self.positions += len(records)
        return (np.array(result[self._value], dtype=np.float32).reshape(-1),
                np.array(result[self._policy], dtype=np.float32))


DEFAULT_BUCKETS = (8, 16, 32, 64, 128, 256, 512, 1024)


class CudaBackend:
    """A network on a CUDA device: bf16/fp16 weights, channels-last, GPU plane expansion, and
    one CUDA graph per batch bucket (batches padded up to the next bucket; larger batches
    than the last bucket run eagerly).

    The backend converts its own copy of ``model`` (the caller's, often the one
    :func:`~chessmoe.nets.checkpoints.load_model` shares, stays fp32 where it was). With
    ``graphs=False`` it runs on any device, which lets a machine without a GPU test the
    reduced-precision, channels-last and plane-building path against eager fp32."""

    def __init__(self, model: RiseNet, *, device: str = "cuda",
                 precision: Literal["bf16", "fp16", "fp32"] = "bf16",
                 graphs: bool = True, buckets: Sequence[int] = DEFAULT_BUCKETS,
                 name: str = "network") -> None:
        import copy

        import torch

        self.device = torch.device(device)
        if graphs and self.device.type != "cuda":
            raise ValueError(f"CUDA graphs need a CUDA device, not {device!r}")
        self.dtype = {"bf16": torch.bfloat16, "fp16": torch.float16,
                      "fp32": torch.float32}[precision]
        self.model = copy.deepcopy(model).to(self.device, dtype=self.dtype).eval()
        self.model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
        self.graphs_enabled = graphs
        self.buckets = tuple(sorted(buckets))
        self._graphs: dict[int, tuple[Any, torch.Tensor, torch.Tensor, torch.Tensor]] = {}
        self.name = name
        self.calls = 0
        self.positions = 0

    def _planes(self, records: npt.NDArray[Any]) -> torch.Tensor:
        import torch

        from chessmoe.encoding import records_to_planes_torch

        planes = records_to_planes_torch(records, device=self.device)
        return planes.to(self.dtype).contiguous(memory_format=torch.channels_last)

    def _graph(self, size: int) -> tuple[Any, torch.Tensor, torch.Tensor, torch.Tensor]:
        import torch

        if size not in self._graphs:
            static = torch.zeros((size, self.model.config.input_planes, 8, 8),
                                 dtype=self.dtype, device=self.device).contiguous(
                memory_format=torch.channels_last)
            stream = torch.cuda.Stream(self.device)  # type: ignore[no-untyped-call]
            stream.wait_stream(torch.cuda.current_stream(self.device))
            with torch.cuda.stream(stream), torch.inference_mode():
                for _ in range(3):  # warm-up outside the graph (cuDNN picks its kernels)
                    self.model(static)
            torch.cuda.current_stream(self.device).wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph), torch.inference_mode():
                out = self.model(static)
            self._graphs[size] = (graph, static, out.value, out.policy)
        return self._graphs[size]

    def forward(self, records: npt.NDArray[Any]) -> Outputs:
        import torch

        n = len(records)
        planes = self._planes(records)
        bucket = next((b for b in self.buckets if b >= n), None)
        with torch.inference_mode():
            if self.graphs_enabled and bucket is not None:
                graph, static, value, policy = self._graph(bucket)
                static[:n].copy_(planes)
                if bucket > n:
                    static[n:].zero_()
                graph.replay()
                value, policy = value[:n], policy[:n]
            else:
                out = self.model(planes)
                value, policy = out.value, out.policy
            self.calls += 1
            self.positions += n
            return (value.float().reshape(-1).cpu().numpy(), policy.float().cpu().numpy())


def make_backend(checkpoint: str | os.PathLike[str], backend: BackendName = "torch", *,
                 device: str = "cpu", precision: str = "fp32", threads: int = 1,
                 name: str = "network") -> NetworkBackend:
    """The backend ``backend`` for the network in ``checkpoint`` (loaded with
    ``weights_only=True`` through :func:`chessmoe.nets.checkpoints.load_model`):

    * ``torch`` -- eager PyTorch in fp32 on the CPU (the reference every backend is compared
      with);
    * ``onnx`` -- ONNX Runtime on the CPU (the network exported once per checkpoint, cached by
      the checkpoint's sha256). On this kit's small networks it is 2x eager torch at batch 8
      and 6x at batch 1 (``make bench``), and its rows are bit-identical whatever the batch
      they sit in, so a batched search reproduces an unbatched one exactly;
    * ``cuda`` -- PyTorch on a GPU: weights and inputs in bf16 (or fp16), channels-last
      memory, planes expanded from the records on the GPU, and one CUDA graph per batch-size
      bucket (a batch is padded to the next bucket) so a call is one graph launch instead of
      ~160 kernels;
    * ``openvino-bf16`` -- OpenVINO on the CPU with bf16 inference precision (the ONNX export
      read as it is; weights and activations in bf16 where the CPU computes bf16 natively:
      AVX512_BF16 or AMX). Not exact: it is used for claims only after the gates of
      :mod:`chessmoe.play.precision` (move agreement, value error, a match against fp32)
      pass, and :func:`choose_backend` picks it only where those gates are committed as
      passed.

    Each returns ``(values [N] float32, policy logits [N, 4864] float32)`` for records
    (``RECORD_DTYPE``) of shape ``[N]``. Agreement with eager fp32 (tested, the
    reduced-precision path on the CPU): ``onnx`` within 1e-4 on values and priors; bf16 within
    0.03 on values and on each prior (8 mantissa bits); fp16 within 0.005."""
    from chessmoe._io.fsutil import sha256_file

    path = Path(checkpoint)
    if backend in ("cuda", "torch"):  # the others read the cached export without torch
        from chessmoe.nets.checkpoints import load_model
    if backend == "onnx":
        return OnnxBackend(_exported(path, sha256_file(path)), threads=threads, name=name)
    if backend == "openvino-bf16":
        return OpenVinoBackend(_exported(path, sha256_file(path)),
                               precision="f32" if precision == "f32" else "bf16",
                               threads=threads, name=name)
    if backend == "cuda":
        if precision not in ("bf16", "fp16", "fp32"):
            raise ValueError(f"precision {precision!r}: the cuda backend takes bf16, fp16, fp32")
        return CudaBackend(load_model(path, "cpu"), device=device if device.startswith("cuda")
                           else "cuda", precision=precision,  # type: ignore[arg-type]
                           name=name)
    if backend == "torch":
        if precision != "fp32":
            raise ValueError("the torch backend runs fp32 (use cuda for bf16/fp16)")
        return TorchBackend(load_model(path, device), device=device, name=name)
    raise ValueError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")


# --- the per-batch glue: compiled, or its numpy definitions ------------------------------------


class CompiledGlue(Protocol):
    """What :mod:`chessmoe.search.native.glue` gives (see there)."""

    def planes(self, records: npt.NDArray[Any]) -> npt.NDArray[np.float32]: ...

    def gate(self, records: npt.NDArray[Any], definition: PhaseDefinition
             ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]: ...

    def legal_softmax_flat(self, logits: npt.NDArray[np.float32],
                           policy: npt.NDArray[np.int64],
                           offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]: ...

    def chain_offsets(self, parts: npt.NDArray[np.int64], rows: npt.NDArray[np.int64]
                      ) -> npt.NDArray[np.int64]: ...


@functools.cache
def _compiled_module() -> CompiledGlue | None:
    try:
        import numba

        if getattr(numba.config, "DISABLE_JIT", False):
            return None
        from chessmoe.search.native import glue
    except Exception:  # no numba, or no cache it may write ("no locator available")
        return None
    return cast("CompiledGlue", glue)


def compiled_glue() -> CompiledGlue | None:
    """:mod:`chessmoe.search.native.glue` where its compiled planes, gate and softmax run
    (numba imports, compiles and caches here, and ``CHESSMOE_GLUE`` is not ``numpy``), else
    None: the numpy definitions run instead, with the same results (the engine without numba,
    the benchmark's baseline)."""
    if os.environ.get("CHESSMOE_GLUE") == "numpy":
        return None
    return _compiled_module()


def leaf_planes(records: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """The ``(N, 52, 8, 8)`` input planes of N leaf records, what every CPU backend feeds its
    network (:func:`~chessmoe.encoding.records_to_planes`, compiled where it can be)."""
    glue = compiled_glue()
    return records_to_planes(records) if glue is None else glue.planes(records)


def legal_softmax(logits: npt.NDArray[np.float32], indices: Sequence[npt.NDArray[np.int64]]
                  ) -> list[npt.NDArray[np.float32]]:
    """Softmax of each row of ``logits`` over that row's legal policy indices (vectorised
    numpy; the definition :func:`~chessmoe.search.native.glue.legal_softmax_flat` compiles)."""
    counts = np.array([len(i) for i in indices], dtype=np.int64)
    if counts.sum() == 0:
        return [np.zeros(0, dtype=np.float32) for _ in indices]
    rows = np.repeat(np.arange(len(indices)), counts)
    flat = logits[rows, np.concatenate(indices)].astype(np.float64)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    flat = np.exp(flat - np.maximum.reduceat(flat, starts)[rows])
    flat /= np.add.reduceat(flat, starts)[rows]
    return np.split(flat.astype(np.float32), np.cumsum(counts)[:-1])


def _priors(logits: npt.NDArray[np.float32], policy: npt.NDArray[np.int64],
            offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
    """Each row's softmax over its legal moves, flat (compiled, or the numpy definition)."""
    glue = compiled_glue()
    if glue is not None:
        return glue.legal_softmax_flat(logits, policy, offsets)
    from chessmoe.search.mcts import join_flat, split_flat

    return join_flat(legal_softmax(logits, split_flat(policy, offsets)), np.float32)[0]


def _chained(parts: Sequence[npt.NDArray[np.int64]]) -> npt.NDArray[np.int64]:
    """One offsets array for flat arrays laid end to end, from theirs (each from 0)."""
    glue = compiled_glue()
    if glue is not None:
        return glue.chain_offsets(np.concatenate(parts),
                                  np.array([len(p) - 1 for p in parts], dtype=np.int64))
    counts = np.concatenate([np.diff(p) for p in parts])
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


# --- planning and the service ------------------------------------------------------------------


@dataclass(frozen=True)
class NetCall:
    """Rows of one mini-batch bound for one network: ``rows`` indexes the batch ``[k]``
    (increasing, so ``k`` rows of a batch of ``k`` are all of it)."""

    network: NetworkBackend
    rows: npt.NDArray[np.int64]

    def records(self, batch: LeafBatch) -> npt.NDArray[Any]:
        """The records of the call's rows (the batch's own when they are all of it)."""
        return batch.records if len(self.rows) == len(batch) else batch.records[self.rows]


def _joined(parts: Sequence[npt.NDArray[Any]]) -> npt.NDArray[Any]:
    """Record arrays end to end (their bytes joined: numpy's concatenate of structured
    arrays costs about 0.3 ms a call)."""
    if len(parts) == 1:
        return parts[0]
    return np.frombuffer(bytearray(b"".join(np.ascontiguousarray(p).data for p in parts)),
                         dtype=parts[0].dtype)


@dataclass(frozen=True)
class CallResult:
    """A network call's answer for its ``k`` rows: values ``[k]`` and each row's priors over
    its legal moves (the softmax of the policy logits), flat: row i's at
    ``priors[offsets[i]:offsets[i + 1]]``."""

    values: npt.NDArray[np.float32]
    priors: npt.NDArray[np.float32]
    offsets: npt.NDArray[np.int64]

    def split(self) -> list[npt.NDArray[np.float32]]:
        """Each row's priors."""
        from chessmoe.search.mcts import split_flat

        return split_flat(self.priors, self.offsets)


@dataclass(frozen=True)
class EvalPlan:
    """How an evaluator scores one mini-batch: its network calls, and how their answers (one
    :class:`CallResult` per call, in order) become the evaluation."""

    calls: tuple[NetCall, ...]
    combine: Callable[[Sequence[CallResult]], Evaluation]


@runtime_checkable
class Plannable(Protocol):
    """An evaluator that can split its work into network calls (see :class:`EvalPlan`)."""

    def plan(self, batch: LeafBatch) -> EvalPlan: ...


def run_plan(plan: EvalPlan, batch: LeafBatch) -> Evaluation:
    """Carry out one plan by itself (what an evaluator's ``evaluate`` does)."""
    answers = []
    for call in plan.calls:
        policy, offsets = batch.policy_of(call.rows)
        values, logits = call.network.forward(call.records(batch))
        answers.append(CallResult(values, _priors(logits, policy, offsets), offsets))
    return plan.combine(answers)


class InferenceService:
    """Evaluates the pending mini-batches of many searches with one call per network.

    Each search's mini-batch is first *planned* by its own evaluator -- a mixture of experts
    takes its gate decision (the paper's majority vote) on that mini-batch alone, exactly as
    when it runs by itself -- into network calls (which network, which rows). The service
    then concatenates the rows bound for the same network across all searches, runs each
    network once, takes the softmax over every row's legal moves in one go, and hands every
    search its own rows back. Evaluators that cannot plan (a uniform evaluator, test stubs)
    are called directly.

    ``max_batch`` caps one network call (larger groups are split into several calls); the
    statistics count network calls and positions per call.
    """

    def __init__(self, max_batch: int = 1024) -> None:
        self.max_batch = max_batch
        self.calls = 0
        self.positions = 0

    def _forward(self, network: NetworkBackend, records: npt.NDArray[Any]) -> Outputs:
        """``network`` on ``records``, in calls of at most ``max_batch`` rows."""
        outputs = []
        for start in range(0, len(records), self.max_batch):
            values, logits = network.forward(records[start:start + self.max_batch])
            outputs.append((values, logits))
            self.calls += 1
            self.positions += len(values)
        if len(outputs) == 1:
            return outputs[0]
        return (np.concatenate([v for v, _ in outputs]),
                np.concatenate([lg for _, lg in outputs]))

    def evaluate_many(self, requests: Sequence[tuple[Evaluator, LeafBatch]]
                      ) -> list[Evaluation]:
        """Evaluations of ``requests`` (evaluator, mini-batch), in the same order."""
        results: list[Evaluation | None] = [None] * len(requests)
        plans: list[tuple[int, EvalPlan]] = []
        for k, (evaluator, batch) in enumerate(requests):
            plan = getattr(evaluator, "plan", None)  # Plannable, without a protocol check
            if plan is not None:
                plans.append((k, plan(batch)))
            else:
                results[k] = evaluator.evaluate(batch)
        # every call grouped by network (one network behind several wrappers -- an evaluator
        # over a backend, the same baseline in several mixtures -- is still one group)
        groups: dict[int, tuple[NetworkBackend, list[tuple[int, int, NetCall]]]] = {}
        for k, plan in plans:
            for c, call in enumerate(plan.calls):
                network = getattr(call.network, "backend", None) or call.network
                groups.setdefault(id(network), (network, []))[1].append((k, c, call))
        answers: dict[tuple[int, int], CallResult] = {}
        for network, parts in groups.values():
            batches = [requests[k][1] for k, _, _ in parts]
            calls = [call for _, _, call in parts]
            values, logits = self._forward(network, _joined(
                [call.records(batch) for call, batch in zip(calls, batches, strict=True)]))
            flats = [batch.policy_of(call.rows) for call, batch in zip(calls, batches,
                                                                       strict=True)]
            if len(parts) == 1:
                policy, offsets = flats[0]
            else:  # the parts' policy indices end to end: every row's softmax in one go
                policy = np.concatenate([f[0] for f in flats])
                offsets = _chained([f[1] for f in flats])
            priors = _priors(logits, policy, offsets)
            row = start = 0
            for (k, c, call), (_, part_offsets) in zip(parts, flats, strict=True):
                n, size = len(call.rows), int(part_offsets[-1])
                answers[(k, c)] = CallResult(values[row:row + n], priors[start:start + size],
                                             part_offsets)
                row, start = row + n, start + size
        done: list[Evaluation] = []
        for k, plan in plans:
            results[k] = plan.combine([answers[(k, c)] for c in range(len(plan.calls))])
        for result in results:
            assert result is not None  # every request was planned or evaluated above
            done.append(result)
        return done
