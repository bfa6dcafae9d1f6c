"""What every benchmark module shares: the result record and the same-run baselines (sample
positions, python-chess move generation, the UCI engine's reported speed)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess

__all__ = ["BenchResult", "_legal_rate", "_positions_from_sample", "_uci_nodes_per_second",
           "sample_batches"]


@dataclass
class BenchResult:
    """One benchmark's rows (metric -> value) and its verdict against a target."""

    name: str
    title: str
    rows: list[tuple[str, str]] = field(default_factory=list)
    target: str = ""
    met: bool | None = None
    note: str = ""

    def markdown(self) -> str:
        lines = [f"### {self.title}", "", "| measure | value |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in self.rows]
        if self.target:
            verdict = {True: "met", False: "NOT met", None: "n/a"}[self.met]
            lines += ["", f"Target: {self.target} — **{verdict}**."]
        if self.note:
            lines += ["", self.note]
        return "\n".join(lines) + "\n"


def sample_batches(batch_size: int, count: int, max_games: int = 200) -> list[Any]:
    """``count`` training batches of ``batch_size`` from a dataset built from the embedded
    sample's first ``max_games`` games (planes expanded, so they outlive the store)."""
    import tempfile

    from chessmoe.games.datasets import DatasetStore, build
    from chessmoe.games.sources import ResolvedSource, sample_path

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        build(ResolvedSource("sample", "sample", (sample_path(),), "sample"), tmp / "store",
              max_games=max_games, progress=False)
        store = DatasetStore(tmp / "store")
        return list(store.batches(store.indices("train"), batch_size, seed=1))[:count]


def _positions_from_sample(count: int) -> list[chess.Board]:
    from chessmoe.games.pgn import iter_games
    from chessmoe.games.sources import sample_path

    boards: list[chess.Board] = []
    games: Any = iter_games(sample_path(), max_games=60)
    for game in games:
        board = chess.Board()
        for ply, move in enumerate(game.moves):
            if ply % 7 == 3:
                boards.append(board.copy())
            board.push(move)
        if len(boards) >= count:
            break
    return boards[:count]


def _legal_rate(positions: list[chess.Board], rounds: int = 200) -> float:
    """python-chess legal-move generation: positions per second (the same-run baseline)."""
    start = time.perf_counter()
    for _ in range(rounds):
        for board in positions:
            len(list(board.legal_moves))
    return rounds * len(positions) / (time.perf_counter() - start)


def _uci_nodes_per_second(positions: list[chess.Board], extra: list[str],
                          nodes: int = 800) -> float:
    """Nodes per second of ``chessmoe uci`` (default options plus ``extra``) over searches of
    ``nodes`` nodes from each position, as the engine reports them."""
    import sys

    import chess.engine

    root = Path(__file__).resolve().parents[1]
    command = [sys.executable, "-m", "chessmoe", "uci", *extra]
    searched = spent = 0.0
    with chess.engine.SimpleEngine.popen_uci(command, cwd=root, timeout=120) as engine:
        engine.analyse(chess.Board(), chess.engine.Limit(nodes=50))  # load and warm up
        for board in positions:
            info = engine.analyse(board, chess.engine.Limit(nodes=nodes))
            searched += info.get("nodes", 0)
            spent += info.get("time", 0.0)
    return searched / spent if spent else 0.0
