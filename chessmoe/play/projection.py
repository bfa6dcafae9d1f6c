"""How long a tournament will take here: a short calibration, then a projection per part
(``chessmoe tournament --plan``).

:func:`calibrate` measures a search node's tree cost and the network's throughput on this
machine and :func:`project` adds up every match from them; with ``--measure-games``,
:func:`measure_games` plays a short tournament of random networks through the real runner and
:func:`project_from_games` projects from the whole machine's measured nodes per second.
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from chessmoe.search.kinds import DEFAULT_SEARCH, make_search
from chessmoe.search.mcts import Evaluation, LeafBatch

__all__ = ["Calibration", "GameRate", "PartProjection", "calibrate", "format_projection",
           "format_rates", "measure_games", "project", "project_from_games", "random_bundles"]


@dataclass(frozen=True)
class Calibration:
    """Rates measured on this machine."""

    tree_seconds_per_node: float  # search work per node with a free (uniform) evaluator
    network_positions_per_second: float  # one network, at ``batch``, on ``backend``
    network: str  # what was measured: preset, backend, device, batch
    cpu_workers: int  # search processes
    gpus: int  # 0: the networks run on the CPU workers


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


class _ZeroNetwork:
    """A network whose forward pass is free: the planes a backend builds, then zeros."""

    name = "zero"
    calls = 0
    positions = 0

    def forward(self, records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        from chessmoe.encoding import POLICY_SIZE
        from chessmoe.search.native.glue import planes

        planes(records)
        return (np.zeros(len(records), dtype=np.float32),
                np.zeros((len(records), POLICY_SIZE), dtype=np.float32))


class _FreeNetwork:
    """An evaluator that costs what a network's evaluator costs around the network: the
    search's per-batch work, the planes, the legal softmax of zero logits; no forward pass."""

    def __init__(self) -> None:
        from chessmoe.search.experts import NetworkEvaluator

        self._network = NetworkEvaluator(backend=_ZeroNetwork())

    def evaluate(self, batch: LeafBatch) -> Evaluation:
        return self._network.evaluate(batch)


def calibrate(*, preset: str = "paper", backend: str = "torch", device: str = "cpu",
              batch: int = 256, cpu_workers: int = 1, gpus: int = 0,
              seconds: float = 5.0, search: str = DEFAULT_SEARCH) -> Calibration:
    """Measure the tree's cost per node (``search``, batch 8, with an evaluator that does all
    but the forward pass: selection, move generation, backup, records, softmax, priors) and
    a randomly initialised ``preset`` network's throughput at ``batch`` (the batch the
    multi-game runner feeds it) on ``backend`` (about ``seconds`` each)."""
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
    from chessmoe.search.mcts import Limits, SearchConfig, leaf_batch

    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    make_search(_FreeNetwork(), SearchConfig(batch_size=8), search).search(
        board, Limits(nodes=50))  # compiled code loaded before the clock starts
    nodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        nodes += make_search(_FreeNetwork(), SearchConfig(batch_size=8), search).search(
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
    """Project each part: ``(name, [(games, nodes per move, move time ms), ...])``.

    * node-limited games cost ``plies x nodes`` nodes each, split into tree work (runs on
      the CPU workers in parallel) and network work (on a GPU: one shared network per GPU,
      so its time is divided by the GPUs, not the workers; on a CPU: each worker runs its
      own network);
    * time-limited games cost ``plies x move time`` of one worker's time, whatever it
      reaches (they should run one game per worker, so each search gets its whole worker).

    The projection is only as good as the calibration: it assumes the network stays busy
    (enough games in flight per GPU) and the mean game length given (the paper does not
    report one; the kit's small tournament averaged 88 plies and its powered one 92; 110,
    the default, errs long for stronger engines)."""
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


def random_bundles(preset: str, directory: str | Path, *, seed: int = 0) -> tuple[Path, Path]:
    """Randomly initialised ``preset`` networks laid out as an expert bundle (three experts of
    the Lichess phases, ``directory/experts``) and a regular bundle (``directory/regular``),
    for speed measurements only: they play nonsense, at the real networks' cost."""
    import torch

    from chessmoe._io.fsutil import atomic_write_json
    from chessmoe.nets.checkpoints import save_checkpoint
    from chessmoe.nets.model import build_model
    from chessmoe.phases import phase_definition

    root = Path(directory)
    torch.manual_seed(seed)
    phases = phase_definition("lichess").phase_names
    bundles = {"regular": ["baseline"], "experts": [f"phase{k}" for k in range(len(phases))]}
    for bundle, names in bundles.items():
        for name in names:
            (root / bundle / name).mkdir(parents=True, exist_ok=True)
            save_checkpoint(root / bundle / name / "model.pt", build_model(preset))
        atomic_write_json(root / bundle / "manifest.json", {
            "kind": "chessmoe random bundle (speed measurements only)",
            "regime": "regular" if bundle == "regular" else "random",
            "definition": "lichess", "phase_names": list(phases),
            "profile": preset, "baseline": "../regular" if bundle == "experts" else None,
            "experts": {n: {"checkpoint": f"{n}/model.pt"} for n in names}})
    return root / "experts", root / "regular"


@dataclass(frozen=True)
class GameRate:
    """Games played through the runner at one node limit, and what they cost."""

    network: str  # preset, backend, device
    nodes_per_move: int
    batch_size: int
    games_at_once: int
    workers: int
    gpus: int
    games: int
    plies: int
    nodes: int  # search nodes of every move of every game
    seconds: float  # wall time of the whole run (start-up included)

    @property
    def games_per_hour(self) -> float:
        return self.games / self.seconds * 3600

    @property
    def nodes_per_second(self) -> float:
        """The whole machine's search nodes per second (all workers and GPUs together)."""
        return self.nodes / self.seconds


def measure_games(*, preset: str = "paper", backend: str = "cuda", device: str = "cuda",
                  nodes: int = 100, batch_size: int = 8, games_at_once: int = 32,
                  workers: int = 1, gpus: int = 0, games: int | None = None,
                  max_plies: int = 120, seed: int = 0,
                  search: str = DEFAULT_SEARCH) -> GameRate:
    """Play ``games`` (default: one per lane, ``workers x games_at_once``) between random
    ``preset`` networks -- a three-expert mixture against a regular network, both on
    ``backend``/``device`` -- through :func:`chessmoe.play.tournament.run_local` and return
    the measured rates. Games stop at ``max_plies`` (a draw) or the paper's adjudication."""
    from chessmoe.play.match import Adjudication, PlayerSpec
    from chessmoe.play.tournament import MatchSpec, TournamentSpec, run_local
    from chessmoe.records import load_records

    count = games or max(2, workers * games_at_once)
    pairs = -(-count // 2)
    with tempfile.TemporaryDirectory() as tmp:
        experts, regular = random_bundles(preset, Path(tmp) / "nets", seed=seed)
        first, second = (PlayerSpec(name=name, experts=str(path), nodes=nodes,
                                    batch_size=batch_size, device=device, backend=backend,
                                    search=search)
                         for name, path in (("moe", experts), ("regular", regular)))
        spec = TournamentSpec("calibration", (MatchSpec("moe-regular", first, second, pairs),),
                              pairs_per_shard=max(1, -(-pairs // max(1, workers))),
                              adjudication=Adjudication(max_plies=max_plies),
                              games_at_once=games_at_once)
        out = Path(tmp) / "games"
        start = time.perf_counter()
        run_local(spec, out, workers=workers, gpus=gpus, progress=False)
        seconds = time.perf_counter() - start
        records = load_records(sorted((out / "moe-regular").glob("games-*.jsonl")))
    searched = sum(n or 0 for r in records for side in (r.nodes_white, r.nodes_black)
                   for n in (side or ()))
    return GameRate(f"{preset} network, {backend} on {device}", nodes, batch_size,
                    games_at_once, workers, gpus, len(records), sum(r.plies for r in records),
                    searched, seconds)


def project_from_games(parts: Sequence[tuple[str, Sequence[tuple[int, int | None, int | None]]]],
                       rates: Sequence[GameRate], *, workers: int,
                       mean_plies: float = 110.0) -> list[PartProjection]:
    """Project each part from measured game rates: a node-limited match's nodes over the
    machine's nodes per second measured at the nearest node limit (in log scale); a
    time-limited game takes its moves' time on one of ``workers`` workers. No assumption
    about how tree and network overlap: the measured rate holds both."""
    if not rates:
        raise ValueError("project_from_games needs at least one measured rate")
    out = []
    for name, matches in parts:
        nodes = timed = wall = 0.0
        games = 0
        for count, move_nodes, movetime in matches:
            games += count
            if move_nodes is not None:
                rate = min(rates, key=lambda r: abs(math.log(r.nodes_per_move / move_nodes)))
                nodes += count * mean_plies * move_nodes
                wall += count * mean_plies * move_nodes / rate.nodes_per_second
            elif movetime is not None:
                timed += count * mean_plies * movetime / 1000
        out.append(PartProjection(name, len(matches), games, nodes, math.nan, math.nan,
                                  timed / 3600, (wall + timed / max(1, workers)) / 3600))
    return out


def format_rates(rates: Sequence[GameRate]) -> str:
    """The measured rates, one line each."""
    return "\n".join(f"measured: {r.network}, {r.nodes_per_move} nodes a move, batch "
                     f"{r.batch_size}, {r.workers} worker(s) x {r.games_at_once} games, "
                     f"{r.gpus} GPU(s): {r.games} games ({r.plies} plies) in {r.seconds:.0f} s"
                     f" = {r.games_per_hour:,.0f} games/hour, {r.nodes_per_second:,.0f} nodes/s"
                     for r in rates)


def _hours(value: float, width: int) -> str:
    return f"{'-':>{width}}" if math.isnan(value) else f"{value:>{width}.1f}"


def format_projection(rows: Sequence[PartProjection], calibration: Calibration | str) -> str:
    """A plain-text table of the projection, with its total and the calibration (or a line
    saying where the rates came from)."""
    head = calibration if isinstance(calibration, str) else (
        f"calibration: tree {calibration.tree_seconds_per_node * 1e6:.0f} us/node; "
        f"{calibration.network}: {calibration.network_positions_per_second:,.0f} "
        f"positions/s; {calibration.cpu_workers} CPU worker(s), {calibration.gpus} GPU(s)")
    lines = [head,
             f"{'part':<28}{'matches':>8}{'games':>9}{'nodes':>10}{'tree h':>9}"
             f"{'network h':>11}{'timed h':>9}{'wall h':>9}"]
    for r in rows:
        lines.append(f"{r.name:<28}{r.matches:>8}{r.games:>9}{r.nodes:>10.2e}"
                     f"{_hours(r.tree_hours, 9)}{_hours(r.network_hours, 11)}"
                     f"{r.timed_hours:>9.1f}{r.wall_hours:>9.1f}")
    total = sum(r.wall_hours for r in rows)
    lines.append(f"{'total':<28}{sum(r.matches for r in rows):>8}"
                 f"{sum(r.games for r in rows):>9}{sum(r.nodes for r in rows):>10.2e}"
                 f"{_hours(sum(r.tree_hours for r in rows), 9)}"
                 f"{_hours(sum(r.network_hours for r in rows), 11)}"
                 f"{sum(r.timed_hours for r in rows):>9.1f}{total:>9.1f}"
                 f"   ({total / 24:.1f} days)")
    return "\n".join(lines)
