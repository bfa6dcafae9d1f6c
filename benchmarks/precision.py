"""Benchmarks of the faster paths against fp32 (``make bench`` runs them from ``bench.py``).

* ``mixed-precision``: training steps per second under bf16 autocast against fp32, at the
  small network and at regular-wide's (three times its parameters), batch 256, one thread;
* ``low-precision``: network calls per second of OpenVINO bf16 and of ONNX Runtime static int8
  (QDQ, per channel, calibrated on real positions) against ONNX Runtime fp32, one thread, at
  search batch sizes; with each one's move agreement with fp32 on the same positions.

Each pair is timed interleaved in one process (best of the repeats), so a ratio holds on a
shared machine where the absolute rates do not.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["bench_low_precision", "bench_mixed_precision"]


def _interleaved(fns: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Best seconds of each function, run in turn ``repeat`` times."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def bench_mixed_precision(repeat: int) -> Any:
    import torch
    from common import BenchResult, sample_batches  # type: ignore[import-not-found]

    from chessmoe.nets.model import build_model, matched_width, preset
    from chessmoe.nets.training import TrainConfig, compute_loss, cpu_computes_bf16

    result = BenchResult("mixed-precision", "Mixed-precision training (bf16 autocast, CPU)",
                         target="bf16 >= 1.7x fp32 steps/s at small and at regular-wide")
    if not cpu_computes_bf16():
        result.rows = [("bf16 autocast", "this CPU computes no bf16 natively: not measured")]
        return result
    torch.set_num_threads(1)
    config = TrainConfig()
    steps, batch_size = 6, 256
    batches = sample_batches(batch_size, steps)
    ratios = []
    for label, model_config in (("small", preset("small")),
                                ("regular-wide", matched_width(preset("small"), 3))):
        models = {}
        for amp in ("fp32", "bf16"):
            model = build_model(model_config).to(
                memory_format=torch.channels_last)  # type: ignore[call-overload]
            optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9,
                                        nesterov=True, weight_decay=1e-4)
            models[amp] = (model, optimizer)

        def run(amp: str, models: dict[str, Any] = models) -> None:
            model, optimizer = models[amp]
            context = (torch.autocast("cpu", dtype=torch.bfloat16) if amp == "bf16"
                       else torch.autocast("cpu", enabled=False))
            for b in batches:
                with context:
                    loss = compute_loss(
                        model(b.planes.contiguous(memory_format=torch.channels_last)), b,
                        config)
                optimizer.zero_grad()
                loss.backward()  # type: ignore[no-untyped-call]
                optimizer.step()

        run("fp32")
        run("bf16")  # warm-up: oneDNN picks its kernels on the first steps
        best = _interleaved({"fp32": lambda: run("fp32"), "bf16": lambda: run("bf16")},
                            repeat)
        ratio = best["fp32"] / best["bf16"]
        ratios.append(ratio)
        params = sum(p.numel() for p in models["fp32"][0].parameters())
        result.rows.append(
            (f"{label} ({params:,} parameters), batch {batch_size}, 1 thread",
             f"fp32 {best['fp32'] / steps:.2f} s a step, bf16 {best['bf16'] / steps:.2f} s: "
             f"{ratio:.2f}x"))
    result.met = all(r >= 1.7 for r in ratios)
    result.note = ("One optimiser step each, the two precisions interleaved, best of the "
                   "repeats; the same batches of the embedded sample. Whether bf16 training "
                   "learns as well is the precision design's question (test losses and a "
                   "match), not this benchmark's.")
    return result


def bench_low_precision(repeat: int) -> Any:
    import numpy as np
    from common import BenchResult, _positions_from_sample  # type: ignore[import-not-found]

    from chessmoe.encoding import legal_policy_indices, records_to_planes
    from chessmoe.search.evaluators import committed_bundles
    from chessmoe.search.inference import (
        OnnxBackend,
        _exported,
        make_backend,
        openvino_bf16_available,
    )
    from chessmoe.search.mcts import leaf_batch

    result = BenchResult("low-precision", "Low-precision inference (CPU, one thread)")
    _, baseline = committed_bundles()
    if baseline is None or not openvino_bf16_available():
        result.rows = [("low-precision backends", "no committed network or no OpenVINO/bf16 "
                                                  "CPU here: not measured")]
        return result
    from chessmoe._io.fsutil import sha256_file

    checkpoint = baseline / "baseline" / "model.pt"
    onnx_path = _exported(checkpoint, sha256_file(checkpoint))
    boards = _positions_from_sample(640)
    records = leaf_batch(boards).records
    calibration, held_out = records[:384], records[384:]
    backends: dict[str, Any] = {"onnx": make_backend(checkpoint, "onnx"),
                                "openvino-bf16": make_backend(checkpoint, "openvino-bf16")}
    with tempfile.TemporaryDirectory() as tmp_name:
        int8 = _static_int8(onnx_path, records_to_planes(calibration), Path(tmp_name))
        if int8 is not None:
            backends["onnx-int8"] = OnnxBackend(int8, threads=1, name="int8")
        ratios = {}
        for size in (8, 32):
            chunk = held_out[:size]
            calls = max(8, 256 // size)
            fns = {name: (lambda b=b, c=chunk, n=calls: [b.forward(c) for _ in range(n)])
                   for name, b in backends.items()}
            best = _interleaved(fns, repeat)
            rates = {name: size * calls / s for name, s in best.items()}
            ratios[size] = {name: rates[name] / rates["onnx"] for name in rates}
            result.rows.append((f"batch {size}", ", ".join(
                f"{name} {rates[name]:,.0f} positions/s ({ratios[size][name]:.2f}x)"
                for name in rates)))
        legal = [legal_policy_indices(board)[1] for board in boards[384:]]
        _, reference = backends["onnx"].forward(held_out)
        for name in backends:
            if name == "onnx":
                continue
            _, logits = backends[name].forward(held_out)
            same = [np.argmax(reference[i, idx]) == np.argmax(logits[i, idx])
                    for i, idx in enumerate(legal) if len(idx)]
            result.rows.append((f"{name}: best legal move as fp32's",
                                f"{np.mean(same):.1%} of {len(same)} positions"))
    result.note = ("The committed small regular network; positions from the embedded sample's "
                   "games (int8 calibrated on 384 of them, the rates and agreement measured on "
                   "the other 256). The gates that decide whether a backend may play recorded "
                   "games are measured on 1,000 held-out Lichess positions and a 400-game match "
                   "(results/tournaments/precision/gates.json).")
    return result


def _static_int8(onnx_path: Path, planes: Any, tmp: Path) -> Path | None:
    """ONNX Runtime's static int8 quantisation (QDQ, per channel) of ``onnx_path``,
    calibrated on ``planes``; None where the quantisation tools are not installed."""
    try:
        from onnxruntime.quantization import (
            CalibrationDataReader,
            QuantFormat,
            QuantType,
            quantize_static,
        )
    except ImportError:
        return None

    class Reader(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.chunks = iter([{"planes": planes[i:i + 32]} for i in range(0, len(planes), 32)])

        def get_next(self) -> dict[str, Any] | None:
            return next(self.chunks, None)

    target = tmp / "int8.onnx"
    quantize_static(str(onnx_path), str(target), Reader(), quant_format=QuantFormat.QDQ,
                    per_channel=True, activation_type=QuantType.QInt8,
                    weight_type=QuantType.QInt8)
    return target
