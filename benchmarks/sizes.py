"""The scale design's training cost by network size (``make bench`` runs it from
``bench.py`` as ``scale-sizes``).

One fp32 training step (forward, loss, backward, SGD) at batch 256 on one thread, for the
design's networks (50 k, 201 k and 604 k parameters, and the shared-trunk mixture at 201 k)
and for the 1.8 M-parameter network the issue allows only if the rate permits, each as a
ratio of the 201 k regular network's step measured interleaved in the same run.
"""

from __future__ import annotations

from typing import Any

__all__ = ["bench_sizes"]


def bench_sizes(repeat: int) -> Any:
    import torch
    from common import BenchResult, sample_batches  # type: ignore[import-not-found]
    from precision import _interleaved  # type: ignore[import-not-found]

    from chessmoe.nets.controls import scale_model
    from chessmoe.nets.model import count_parameters, matched_width, preset
    from chessmoe.nets.training import TrainConfig, compute_loss
    from chessmoe.nets.trunk import build_network, run_network, trunk_config

    result = BenchResult("scale-sizes", "Training cost by network size (the scale design)")
    torch.set_num_threads(1)
    config = TrainConfig()
    steps, batch_size = 2, 256
    base = preset("small")
    networks = {
        "50 k": scale_model(base, "50k"), "201 k": base, "604 k": scale_model(base, "600k"),
        "201 k shared trunk": trunk_config(base), "1.8 M": matched_width(base, 9)}
    batches = sample_batches(batch_size, steps)
    runs = {}
    for label, model_config in networks.items():
        model = build_network(model_config).train()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9,
                                    nesterov=True, weight_decay=1e-4)

        def run(model: Any = model, optimizer: Any = optimizer) -> None:
            for b in batches:
                loss = compute_loss(run_network(model, b.planes, b.phase), b, config)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

        run()  # warm-up: oneDNN picks its kernels on the first steps
        runs[label] = (run, count_parameters(model))
    best = _interleaved({k: v[0] for k, v in runs.items()}, repeat)
    for label, (_, params) in runs.items():
        result.rows.append((f"{label} ({params:,} parameters), batch {batch_size}, 1 thread",
                            f"{best[label] / steps:.2f} s a step: "
                            f"{best[label] / best['201 k']:.2f}x the 201 k step"))
    result.note = ("fp32, the scale design's recipe; the networks interleaved, best of the "
                   "repeats, on the same batches of the embedded sample. Steps to early stopping "
                   "are the runs' own (results/experts/small/scale-*/*/metrics.jsonl), not this "
                   "benchmark's.")
    return result
