"""Nodes per second of a search with the parameter-matched network (``regular-wide``'s)
against the small regular network, on this machine's CPU.

Both networks are freshly initialised with the same seed (the weights change the tree's
shape a little, not the cost of a forward pass), saved as checkpoints and searched through the
players' path (:class:`~chessmoe.search.evaluators.EvaluatorSpec`, the native search) from the
same positions; small and wide alternate so a change in the machine's load falls on both.
The committed ``regular`` bundle is searched too, as the trained reference. Not a test:
``python benchmarks/wide_nodes.py [--nodes 800] [--batch 8] [--backend auto]``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import chess
import torch

from chessmoe.nets.checkpoints import save_checkpoint
from chessmoe.nets.model import build_model, count_parameters, matched_width, preset
from chessmoe.search.evaluators import EvaluatorSpec
from chessmoe.search.mcts import Limits, SearchConfig


def positions(count: int) -> list[chess.Board]:
    """Every 7th position of the sample games (plies 3, 10, 17, ...), ``count`` of them: the
    positions ``bench.py`` measures on (this script runs beside it in benchmarks/)."""
    from common import _positions_from_sample

    return _positions_from_sample(count)


def searcher(network: Path, backend: str, batch: int) -> Any:
    from chessmoe.search.native.search import NativeMCTS

    evaluator, line = EvaluatorSpec(network=str(network), backend=backend,  # type: ignore[arg-type]
                                    threads=1).build()
    print(line)
    return NativeMCTS(evaluator, SearchConfig(batch_size=batch))


def rate(search: Any, boards: list[chess.Board], nodes: int) -> float:
    spent = found = 0.0
    for board in boards:
        result = search.search(board, Limits(nodes=nodes))
        spent += result.seconds
        found += result.nodes
    return found / spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=800)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--regular", type=Path, default=Path("results/experts/small/regular"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    boards = positions(args.positions)
    with tempfile.TemporaryDirectory() as tmp:
        nets = {}
        for name, config in (("small", preset("small")),
                             ("wide", matched_width(preset("small"), 3))):
            torch.manual_seed(0)
            model = build_model(config)
            nets[name] = Path(tmp) / f"{name}.pt"
            save_checkpoint(nets[name], model)
            print(f"{name}: {config.channels} channels, {count_parameters(model):,} parameters")
        searches = {name: searcher(path, args.backend, args.batch) for name, path in nets.items()}
        if (args.regular / "manifest.json").exists():
            searches["committed regular"] = searcher(args.regular, args.backend, args.batch)
        for search in searches.values():  # compile and warm every path first
            search.search(boards[0], Limits(nodes=args.batch * 4))
        rates: dict[str, list[float]] = {name: [] for name in searches}
        start = time.monotonic()
        for _ in range(args.rounds):
            for name, search in searches.items():
                rates[name].append(rate(search, boards, args.nodes))
        best = {name: max(values) for name, values in rates.items()}
        print(json.dumps({"nodes": args.nodes, "batch": args.batch, "backend": args.backend,
                          "positions": len(boards), "rounds": args.rounds,
                          "seconds": round(time.monotonic() - start, 1),
                          "nodes_per_second": {k: [round(v) for v in vs]
                                               for k, vs in rates.items()},
                          "best": {k: round(v) for k, v in best.items()},
                          "wide_over_small": round(best["wide"] / best["small"], 3)}, indent=1))


if __name__ == "__main__":
    main()
