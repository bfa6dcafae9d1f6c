"""The compiled search against the Python reference: same move, same root visits, same batches.

:func:`compare_searches` runs both searches from fresh trees on each position (with its game
history) at a fixed node limit, no noise, with the same evaluator description, and records
whether the move, every root move's visits and Q, and every mini-batch sent to the evaluator
(its records byte for byte, policy indices, and a mixture's gate decision) agree.
:func:`parity_positions` draws the positions from the embedded opening suite and the
embedded self-play sample (later positions keep their move stack, so history and repetition
count). The ``chessmoe search-parity`` command writes the record the README cites.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import chess
import numpy as np

from chessmoe.search.mcts import (
    MCTS,
    Evaluation,
    Evaluator,
    LeafBatch,
    Limits,
    SearchConfig,
    TreeSearch,
)
from chessmoe.search.native.search import NativeMCTS

__all__ = ["PARITY_CASES", "ParityCase", "ParityResult", "compare_searches", "parity_positions",
           "record_parity"]


@dataclass(frozen=True)
class ParityResult:
    """One configuration's comparison over ``positions`` positions."""

    label: str
    batch_size: int
    nodes: int
    positions: int
    same_move: int
    same_visits: int  # every root move's visits and Q equal
    same_batches: int  # every mini-batch (records, policy indices, gate decision) equal
    mismatches: tuple[str, ...] = field(default=())  # the first few differing FENs
    python_seconds: float = 0.0
    native_seconds: float = 0.0

    @property
    def exact(self) -> bool:
        return self.same_move == self.same_visits == self.same_batches == self.positions


class _Recorder:
    """Passes batches to ``inner`` and keeps what it was asked (records, policy indices)."""

    def __init__(self, inner: Evaluator) -> None:
        self.inner = inner
        self.seen: list[tuple[bytes, bytes]] = []

    def evaluate(self, batch: LeafBatch) -> Evaluation:
        policy = np.concatenate(batch.policy_indices) if len(batch) else np.zeros(0, np.int64)
        self.seen.append((np.ascontiguousarray(batch.records).tobytes(),
                          policy.astype(np.int64).tobytes()))
        return self.inner.evaluate(batch)


_SEARCHES: tuple[Callable[[Evaluator, SearchConfig], TreeSearch], ...] = (MCTS, NativeMCTS)


def _gate_log(evaluator: Evaluator) -> list[object]:
    return list(getattr(evaluator, "log", []))


def compare_searches(boards: Sequence[chess.Board], make_evaluator: Callable[[], Evaluator],
                     *, label: str, batch_size: int, nodes: int,
                     keep_mismatches: int = 5) -> ParityResult:
    """Search every board with both searches (fresh trees, ``nodes`` new nodes each)."""
    config = SearchConfig(batch_size=batch_size)
    limits = Limits(nodes=nodes)
    same_move = same_visits = same_batches = 0
    mismatches: list[str] = []
    spent = [0.0, 0.0]
    for board in boards:
        outcomes = []
        for k, search in enumerate(_SEARCHES):
            inner = make_evaluator()
            recorder = _Recorder(inner)
            start = time.perf_counter()
            result = search(recorder, config).search(board, limits)
            spent[k] += time.perf_counter() - start
            visits = [(c.move, c.visits, c.q) for c in result.children]
            outcomes.append((result.move, visits, recorder.seen, _gate_log(inner)))
        (move_a, visits_a, seen_a, log_a), (move_b, visits_b, seen_b, log_b) = outcomes
        same_move += move_a == move_b
        same_visits += visits_a == visits_b
        same_batches += seen_a == seen_b and log_a == log_b
        if not (move_a == move_b and visits_a == visits_b and seen_a == seen_b
                and log_a == log_b) and len(mismatches) < keep_mismatches:
            mismatches.append(board.fen())
    return ParityResult(label, batch_size, nodes, len(boards), same_move, same_visits,
                        same_batches, tuple(mismatches), round(spent[0], 3),
                        round(spent[1], 3))


def parity_positions(count: int, seed: int = 20261127) -> list[chess.Board]:
    """``count`` positions: half from the embedded opening suite (no history), half from the
    embedded self-play sample's games (with their move stacks), drawn with ``seed``."""
    from chessmoe.games.epd import embedded_suite_path, read_epd
    from chessmoe.games.pgn import iter_games
    from chessmoe.games.sources import sample_path

    rng = random.Random(seed)
    fens = read_epd(embedded_suite_path())
    openings = [chess.Board(f) for f in rng.sample(fens, min(len(fens), count // 2))]
    played: list[chess.Board] = []
    want = count - len(openings)
    games: list[Any] = list(iter_games(sample_path(), max_games=max(60, want)))
    rng.shuffle(games)
    for game in games:
        if len(played) >= want:
            break
        moves = list(game.moves)
        if len(moves) < 2:
            continue
        ply = rng.randrange(1, len(moves))
        board = chess.Board()
        for move in moves[:ply]:
            board.push(move)
        if any(board.legal_moves):
            played.append(board)
    return openings + played


@dataclass(frozen=True)
class ParityCase:
    """One configuration of the recorded comparison: a committed bundle of the small profile
    (a mixture with a routing, or the regular bundle's single network) at a batch size."""

    bundle: str  # a bundle name under results/experts/small
    routing: str | None  # None: the regular bundle's single network
    batch_size: int

    @property
    def label(self) -> str:
        kind = "network" if self.routing is None else f"mixture-{self.routing}"
        return f"{self.bundle}-{kind}-b{self.batch_size}"


PARITY_CASES: tuple[ParityCase, ...] = (
    ParityCase("regular", None, 1), ParityCase("regular", None, 8),
    ParityCase("regular", None, 64), ParityCase("staged", "majority", 1),
    ParityCase("staged", "majority", 8), ParityCase("staged", "majority", 64),
    ParityCase("staged", "split", 8), ParityCase("staged", "soft", 8),
)
"""The recorded comparison: the regular network and the staged mixture with every routing,
at batch sizes 1, 8 and 64 (ONNX Runtime, whose rows do not depend on their batch)."""


def record_parity(experts_root: str | os.PathLike[str], out_dir: str | os.PathLike[str], *,
                  evaluator_for: Callable[[Path, str | None], Evaluator],
                  positions: int = 1000, nodes: int = 100,
                  cases: Sequence[ParityCase] = PARITY_CASES, progress: bool = True
                  ) -> list[dict[str, object]]:
    """Compare the searches on ``positions`` positions per case, one JSON file a case in
    ``out_dir`` (written when the case is done, with provenance; a rerun skips the cases
    already recorded with the same positions and nodes). ``evaluator_for(bundle, routing)``
    builds a case's evaluator on ONNX Runtime (routing None: the bundle's single network;
    the caller's, so this layer needs no network loading)."""
    import json

    from tqdm import tqdm

    from chessmoe._io.fsutil import atomic_write_json
    from chessmoe._io.provenance import provenance

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    boards = parity_positions(positions)
    done: list[dict[str, object]] = []
    for case in tqdm(cases, desc="search parity", disable=not progress):
        path = out / f"{case.label}.json"
        if path.exists():
            old = json.loads(path.read_text())
            if old.get("positions") == positions and old.get("nodes") == nodes:
                done.append(old)
                continue
        bundle = Path(experts_root) / case.bundle
        routing = case.routing

        def make(bundle: Path = bundle, routing: str | None = routing) -> Evaluator:
            return evaluator_for(bundle, routing)

        result = compare_searches(boards, make, label=case.label,
                                  batch_size=case.batch_size, nodes=nodes)
        record: dict[str, object] = {
            "what": "the compiled search against the Python search: fresh trees, the same "
                    "evaluator, a fixed node limit, no noise; same move, same visits and Q of "
                    "every root move, same mini-batches (records, policy indices, gate "
                    "decisions) counted per position",
            "bundle": case.bundle, "routing": case.routing or "single network",
            "backend": "onnx", **asdict(result), "exact": result.exact,
            "positions_from": "parity_positions(): half the embedded opening suite, half "
                              "self-play sample positions with their game history",
            "provenance": provenance()}
        atomic_write_json(path, record)
        done.append(record)
    return done
