"""The per-batch glue compiled against its numpy definitions (``make bench`` runs it from
``bench.py``): planes, the gate's counts and the softmax over legal moves around the forward
pass, selected per process with ``CHESSMOE_GLUE`` (the same games either way).

* the per-batch path alone (the committed experts' gate, free networks that answer zeros):
  new nodes and simulations per second, each glue;
* the same searches with the committed experts on ONNX Runtime fp32 (one thread): the rates,
  and the share of the numpy-glue search's time the forward pass takes (what bounds any glue);
* tournament games per hour at 100 nodes through the multi-game runner on 2 workers, numpy
  glue then compiled glue, and whether the games are the same move for move;
* the UCI engine with its default options against python-chess move generation, each glue.

Legs are interleaved and the best of the repeats kept, so a ratio holds on a shared machine
where the absolute rates do not.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["bench_glue"]

GLUES = ("numpy", "compiled")


@contextmanager
def _glue(kind: str) -> Iterator[None]:
    """``CHESSMOE_GLUE=kind`` in this process and the processes it starts."""
    before = os.environ.get("CHESSMOE_GLUE")
    os.environ["CHESSMOE_GLUE"] = kind
    try:
        yield
    finally:
        if before is None:
            del os.environ["CHESSMOE_GLUE"]
        else:
            os.environ["CHESSMOE_GLUE"] = before


class _FreeNetwork:
    """A network that answers zeros at once: the path around the forward pass, whole."""

    name = "free"
    calls = 0
    positions = 0

    def forward(self, records: Any) -> tuple[Any, Any]:
        import numpy as np

        from chessmoe.encoding import POLICY_SIZE
        from chessmoe.search.native.glue import planes

        planes(records)  # a backend's own first step
        return (np.zeros(len(records), dtype=np.float32),
                np.zeros((len(records), POLICY_SIZE), dtype=np.float32))


def _search_rates(evaluator: Any, boards: list[Any], nodes: int) -> tuple[float, float, float]:
    """New nodes per second, simulations per second and seconds of compiled searches of
    ``nodes`` nodes (batch 8) from each board."""
    from chessmoe.search.mcts import Limits, SearchConfig
    from chessmoe.search.native.search import NativeMCTS

    new = sims = spent = 0.0
    for board in boards:
        found = NativeMCTS(evaluator, SearchConfig(batch_size=8)).search(
            board, Limits(nodes=nodes))
        new += found.nodes
        sims += found.simulations
        spent += found.seconds
    return new / spent, sims / spent, spent


def _games(experts: Path, baseline: Path, out: Path, pairs: int) -> tuple[float, list[Any], Any]:
    """Seconds, moves of every game and the summary of a 100-node tournament (separated
    against regular, ONNX Runtime fp32, 2 workers, ``pairs`` pairs each, played at once)."""
    from chessmoe._io.jsonl import read_records
    from chessmoe.play.match import Adjudication, PlayerSpec
    from chessmoe.play.tournament import MatchSpec, TournamentSpec, run_local

    first = PlayerSpec(name="separated", experts=str(experts), nodes=100, batch_size=8,
                       backend="onnx", search="native")
    second = PlayerSpec(name="regular", experts=str(baseline), nodes=100, batch_size=8,
                        backend="onnx", search="native")
    spec = TournamentSpec("bench", (MatchSpec("m", first, second, 2 * pairs),), seed=7,
                          pairs_per_shard=pairs, adjudication=Adjudication(),
                          games_at_once=2 * pairs)
    start = time.perf_counter()
    summary = run_local(spec, out, workers=2, progress=False)
    seconds = time.perf_counter() - start
    moves = [r["moves"] for path in sorted((out / "m").glob("*.jsonl"))
             for r in sorted(read_records(path).records, key=lambda r: r["slot"])]
    return seconds, moves, summary.matches[0].summary


def bench_glue(repeat: int) -> Any:
    from bench import (  # type: ignore[import-not-found]
        BenchResult,
        _legal_rate,
        _positions_from_sample,
        _uci_nodes_per_second,
    )

    from chessmoe.phases import phase_definition
    from chessmoe.search.evaluators import committed_bundles
    from chessmoe.search.experts import MixtureEvaluator, mixture_from_bundle

    result = BenchResult("glue", "Per-batch glue: compiled vs numpy",
                         target="tournament games per hour at 100 nodes, ONNX fp32: compiled "
                         ">= 1.3x the numpy glue, the same games; UCI engine, committed small "
                         "experts, default options, >= 0.15x move generation")
    experts, baseline = committed_bundles()
    if experts is None or baseline is None:
        result.rows = [("small experts", "not in this checkout: benchmark skipped")]
        return result
    positions = _positions_from_sample(12)
    generation = max(_legal_rate(positions) for _ in range(repeat))
    rows: list[tuple[str, str]] = [("python-chess legal-move generation",
                                    f"{generation:,.0f} positions/s")]

    # the per-batch path alone, then with the network
    free = MixtureEvaluator([_FreeNetwork() for _ in range(3)],  # type: ignore[misc]
                            phase_definition("lichess"), keep_log=False)
    onnx = mixture_from_bundle(experts, device="cpu", backend="onnx")
    onnx.keep_log = False
    rates: dict[tuple[str, str], tuple[float, float, float]] = {}
    for label, evaluator, nodes in (("free", free, 2000), ("onnx", onnx, 400)):
        for glue in GLUES:
            with _glue(glue):
                _search_rates(evaluator, positions[:1], 50)  # compiled and warm
                best = (0.0, 0.0, float("inf"))
                for _ in range(repeat):
                    found = _search_rates(evaluator, positions[:6], nodes)
                    best = found if found[0] > best[0] else best
                rates[(label, glue)] = best
    for label, text, nodes in (
            ("free", "the per-batch path alone (gate of the committed experts, free networks "
                     "answering zeros), batch 8", 2000),
            ("onnx", f"committed small experts ({experts.name}), ONNX Runtime fp32, 1 thread, "
                     "batch 8", 400)):
        (new_n, sims_n, _), (new_c, sims_c, _) = rates[(label, "numpy")], rates[(label,
                                                                                  "compiled")]
        rows.append((f"{text}, {nodes:,}-node searches",
                     f"compiled {new_c:,.0f} new nodes/s ({sims_c:,.0f} simulations/s), numpy "
                     f"{new_n:,.0f} new nodes/s ({sims_n:,.0f} simulations/s): "
                     f"{new_c / new_n:.2f}x"))
    # the forward pass's share: the same searches' seconds per new node, with and without it
    free_n, onnx_n = rates[("free", "numpy")][0], rates[("onnx", "numpy")][0]
    share = 1 - onnx_n / free_n
    rows.append(("the forward pass's share of the numpy-glue search's time (1 - network "
                 "search rate / free search rate, new nodes)",
                 f"{share:.0%}: no glue can make those searches more than "
                 f"{1 / share:.2f}x faster"))

    # tournament games, numpy glue then compiled glue
    pairs = 4
    games: dict[str, tuple[float, list[Any], Any]] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        for attempt in range(max(1, repeat - 1)):
            for glue in GLUES:
                with _glue(glue):
                    found = _games(experts, baseline, Path(tmp_name) / f"{glue}-{attempt}",
                                   pairs)
                if glue not in games or found[0] < games[glue][0]:
                    games[glue] = found
    per_hour = {}
    for glue in GLUES:
        seconds, _, summary = games[glue]
        per_hour[glue] = summary.games / seconds * 3600
        rows.append((f"{glue} glue, 100 nodes, 2 workers x {2 * pairs} games at once",
                     f"{per_hour[glue]:,.0f} games/hour ({summary.games} games, mean "
                     f"{summary.mean_plies:.0f} plies, {seconds:.0f} s incl. start-up)"))
    same = sum(a == b for a, b in zip(games["numpy"][1], games["compiled"][1], strict=False))
    ratio = per_hour["compiled"] / per_hour["numpy"]
    rows.append(("compiled / numpy glue, games per hour at 100 nodes",
                 f"{ratio:.2f}x; games identical move for move: {same} of "
                 f"{len(games['numpy'][1])}"))

    # the UCI engine
    uci: dict[str, float] = {}
    for glue in GLUES:
        with _glue(glue):
            uci[glue] = _uci_nodes_per_second(positions[:6], [])
    rows.append(("UCI engine, committed small experts, default options, 800-node searches",
                 f"compiled {uci['compiled']:,.0f} nodes/s ({uci['compiled'] / generation:.3f}x "
                 f"move generation), numpy {uci['numpy']:,.0f} nodes/s "
                 f"({uci['numpy'] / generation:.3f}x): {uci['compiled'] / uci['numpy']:.2f}x"))
    result.rows = rows
    result.met = (ratio >= 1.3 and same == len(games["numpy"][1])
                  and uci["compiled"] >= 0.15 * generation)
    result.note = ("CHESSMOE_GLUE=numpy runs the numpy definitions the compiled glue is tested "
                   "equal to (tests/test_glue.py), in the searches, the tournament workers and "
                   "the engine alike. Nodes are new nodes (evaluated leaves); simulations add "
                   "the descents that ended at a terminal position already in the tree.")
    return result
