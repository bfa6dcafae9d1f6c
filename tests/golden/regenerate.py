"""Regenerate the golden search file: ``python -m tests.golden.regenerate``.

The file carries its own position, seed and search config (``input``) beside the result
(``output``); the test reads the input from the file, searches, and compares the output. Run this
only when the search is meant to change, and say why in the commit.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import chess
import numpy as np

from chessmoe.search.mcts import MCTS, Evaluation, LeafBatch, Limits, SearchConfig

GOLDEN = Path(__file__).parent / "mcts_visits.json"
INPUT = {"fen": "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
         "seed": 7, "nodes": 400, "batch_size": 8,
         "evaluator": "HashEvaluator: value U(-0.6, 0.6) and gamma(0.5) priors from a numpy "
                      "generator seeded with crc32(fen) ^ seed"}


class HashEvaluator:
    """Deterministic, position-dependent values and priors (no network, no global state)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.calls: list[int] = []

    def evaluate(self, batch: LeafBatch) -> Evaluation:
        self.calls.append(len(batch))
        values, priors = [], []
        for board, moves in zip(batch.boards, batch.moves, strict=True):
            rng = np.random.default_rng(zlib.crc32(board.fen().encode()) ^ self.seed)
            values.append(rng.uniform(-0.6, 0.6))
            p = rng.gamma(0.5, size=len(moves)) + 1e-3
            priors.append((p / p.sum()).astype(np.float32))
        return Evaluation(np.array(values, dtype=np.float32), priors)


def run(spec: dict[str, Any]) -> dict[str, Any]:
    """The search the golden file records, for the given input."""
    result = MCTS(HashEvaluator(seed=spec["seed"]),
                  SearchConfig(batch_size=spec["batch_size"])).search(
        chess.Board(spec["fen"]), Limits(nodes=spec["nodes"]))
    assert result.move is not None
    return {"move": result.move.uci(),
            "visits": {c.move.uci(): c.visits for c in result.children if c.visits},
            "simulations": result.simulations, "tree_nodes": result.tree_nodes}


def main() -> int:
    GOLDEN.write_text(json.dumps({"input": INPUT, "output": run(INPUT)}, indent=1,
                                 sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
