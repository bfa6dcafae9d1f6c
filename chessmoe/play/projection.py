"""How long a tournament will take here: a short calibration, then a projection per part.

``chessmoe tournament --profile paper --plan`` measures, on the present machine, what one
search node costs without a network (the tree: selection, move generation, backup -- the
uniform evaluator) and how many positions per second the network reaches on the chosen backend
at the batch the multi-game runner feeds it; it then adds up every match of the tournament:

* node-limited games cost ``plies x nodes`` nodes each, split into tree work (runs on the CPU
  workers in parallel) and network work (on a GPU: one shared network per GPU, so its time is
  divided by the GPUs, not the workers; on a CPU: each worker runs its own network);
* time-limited games cost ``plies x move time`` of one worker's time, whatever it reaches
  (they should run one game per worker, so each search gets its whole worker).

The projection is only as good as the calibration: it assumes the network stays busy (enough
games in flight per GPU) and the mean game length given (the paper does not report one; the
kit's small tournament averages about 110 plies).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Calibration", "PartProjection", "calibrate", "format_projection", "project"]


@dataclass(frozen=True)
class Calibration:
    """Rates measured on this machine."""

    tree_seconds_per_node: float  # search work per node with a free (uniform) evaluator
    network_positions_per_second: float  # one network, at ``batch``, on ``backend``
    network: str  # what was measured: preset, backend, device, batch
    cpu_workers: int  # search processes
    gpus: int  # 0: the networks run on the CPU workers

    @property
    def seconds_per_node(self) -> float:
        """One worker's seconds per node when it also runs the network (CPU only)."""
        return self.tree_seconds_per_node + 1.0 / self.network_positions_per_second


@dataclass(frozen=True)
class PartProjection:
    """The projected cost of one part of a tournament (a grid of matches)."""

    name: str
    matches: int
    games: int
    nodes: float  # total search nodes of the node-limited games
    tree_hours: float  # CPU-worker hours of tree work (node-limited games)
    network_hours: float  # network hours (node-limited games), per network device
    timed_hours: float  # worker hours of time-limited games
    wall_hours: float


def calibrate(*, preset: str = "paper", backend: str = "torch", device: str = "cpu",
              batch: int = 256, cpu_workers: int = 1, gpus: int = 0,
              seconds: float = 5.0) -> Calibration:
    """Measure the tree's cost per node and a randomly initialised ``preset`` network's
    throughput at ``batch`` on ``backend`` (about ``seconds`` each)."""
    import chess
    import torch

    from chessmoe.nets.model import build_model
    from chessmoe.search.inference import (
        CudaBackend,
        NetworkBackend,
        OnnxBackend,
        TorchBackend,
        export_onnx,
    )
    from chessmoe.search.mcts import MCTS, Limits, SearchConfig, UniformEvaluator, leaf_batch

    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    nodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        nodes += MCTS(UniformEvaluator(), SearchConfig(batch_size=8)).search(
            board, Limits(nodes=2000)).nodes
    tree = (time.perf_counter() - start) / nodes
    model = build_model(preset)
    network: NetworkBackend
    with tempfile.TemporaryDirectory() as tmp:
        if backend == "cuda":
            network = CudaBackend(model, device=device if device.startswith("cuda")
                                  else "cuda")
        elif backend == "onnx":
            path = Path(tmp) / "calibration.onnx"
            export_onnx(model, path)
            network = OnnxBackend(path)
        else:
            torch.set_num_threads(1)
            network = TorchBackend(model, device=device)
        records = leaf_batch([board] * batch).records
        network.forward(records)  # warm-up (graph capture, allocator)
        done = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds or done == 0:
            done += len(network.forward(records)[0])
        rate = done / (time.perf_counter() - start)
    return Calibration(tree, rate, f"{preset} network, {backend} on {device}, batch {batch}",
                       cpu_workers, gpus)


def project(parts: Sequence[tuple[str, Sequence[tuple[int, int | None, int | None]]]],
            calibration: Calibration, *, mean_plies: float = 110.0) -> list[PartProjection]:
    """Project each part: ``(name, [(games, nodes per move, move time ms), ...])``."""
    out = []
    for name, matches in parts:
        nodes = timed = 0.0
        games = 0
        for count, move_nodes, movetime in matches:
            games += count
            if move_nodes is not None:
                nodes += count * mean_plies * move_nodes
            elif movetime is not None:
                timed += count * mean_plies * movetime / 1000
        tree_hours = nodes * calibration.tree_seconds_per_node / 3600
        network_hours = nodes / calibration.network_positions_per_second / 3600
        timed_hours = timed / 3600
        workers = max(1, calibration.cpu_workers)
        if calibration.gpus > 0:  # CPU workers feed shared GPUs: the slower side decides
            node_wall = max(tree_hours / workers, network_hours / calibration.gpus)
        else:
            node_wall = (tree_hours + network_hours) / workers
        out.append(PartProjection(name, len(matches), games, nodes, tree_hours,
                                  network_hours, timed_hours, node_wall + timed_hours / workers))
    return out


def format_projection(rows: Sequence[PartProjection], calibration: Calibration) -> str:
    """A plain-text table of the projection, with its total and the calibration."""
    lines = [f"calibration: tree {calibration.tree_seconds_per_node * 1e6:.0f} us/node; "
             f"{calibration.network}: {calibration.network_positions_per_second:,.0f} "
             f"positions/s; {calibration.cpu_workers} CPU worker(s), {calibration.gpus} GPU(s)",
             f"{'part':<28}{'matches':>8}{'games':>9}{'nodes':>10}{'tree h':>9}"
             f"{'network h':>11}{'timed h':>9}{'wall h':>9}"]
    for r in rows:
        lines.append(f"{r.name:<28}{r.matches:>8}{r.games:>9}{r.nodes:>10.2e}"
                     f"{r.tree_hours:>9.1f}{r.network_hours:>11.1f}{r.timed_hours:>9.1f}"
                     f"{r.wall_hours:>9.1f}")
    total = sum(r.wall_hours for r in rows)
    lines.append(f"{'total':<28}{sum(r.matches for r in rows):>8}"
                 f"{sum(r.games for r in rows):>9}{sum(r.nodes for r in rows):>10.2e}"
                 f"{sum(r.tree_hours for r in rows):>9.1f}"
                 f"{sum(r.network_hours for r in rows):>11.1f}"
                 f"{sum(r.timed_hours for r in rows):>9.1f}{total:>9.1f}"
                 f"   ({total / 24:.1f} days)")
    return "\n".join(lines)
