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
GATES_NOTE = "results/tournaments/precision/gates.json"


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
        from chessmoe.search.inference import leaf_planes

        leaf_planes(records)  # a backend's own first step
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


def _games(experts: Path, baseline: Path, out: Path, pairs: int, backend: str = "onnx"
           ) -> tuple[float, list[Any], Any]:
    """Seconds, moves of every game and the summary of a 100-node tournament (separated
    against regular on ``backend``, 2 workers, ``pairs`` pairs each, played at once)."""
    from chessmoe._io.jsonl import read_records
    from chessmoe.play.match import Adjudication, PlayerSpec
    from chessmoe.play.tournament import MatchSpec, TournamentSpec, run_local

    first = PlayerSpec(name="separated", experts=str(experts), nodes=100, batch_size=8,
                       backend=backend, search="native")
    second = PlayerSpec(name="regular", experts=str(baseline), nodes=100, batch_size=8,
                        backend=backend, search="native")
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
    from common import (  # type: ignore[import-not-found]
        BenchResult,
        _legal_rate,
        _positions_from_sample,
        _uci_nodes_per_second,
    )

    from chessmoe.phases import phase_definition
    from chessmoe.search.evaluators import committed_bundles
    from chessmoe.search.experts import MixtureEvaluator, mixture_from_bundle

    result = BenchResult("glue", "Per-batch glue: compiled vs numpy",
                         target="tournament games per hour at 100 nodes against the numpy "
                         "glue on ONNX fp32: compiled glue on ONNX fp32 >= 1.3x, the same "
                         "games; compiled glue on the gated low-precision backend >= 2.5x; UCI "
                         "engine, committed small experts, default options, >= 0.15x move "
                         "generation")
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

    # tournament games: numpy glue then compiled glue on ONNX fp32, then the compiled glue on
    # the low-precision backend where its gates passed here (what auto picks)
    from chessmoe.search.evaluators import committed_results, passed_backends
    from chessmoe.search.inference import LOW_PRECISION, choose_backend

    chosen = choose_backend("auto", "cpu", gated=passed_backends(committed_results()))
    low = chosen if chosen in LOW_PRECISION else None
    legs = [("numpy", "onnx"), ("compiled", "onnx"), *([("compiled", low)] if low else [])]
    pairs = 4
    games: dict[tuple[str, str], tuple[float, list[Any], Any]] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        for attempt in range(max(1, repeat - 1)):
            for glue, backend in legs:
                with _glue(glue):
                    played = _games(experts, baseline,
                                    Path(tmp_name) / f"{glue}-{backend}-{attempt}", pairs,
                                    backend)
                if (glue, backend) not in games or played[0] < games[(glue, backend)][0]:
                    games[(glue, backend)] = played
    per_hour = {}
    for leg in legs:
        seconds, _, summary = games[leg]
        per_hour[leg] = summary.games / seconds * 3600
        rows.append((f"{leg[0]} glue, {leg[1]}, 100 nodes, 2 workers x {2 * pairs} games at once",
                     f"{per_hour[leg]:,.0f} games/hour ({summary.games} games, mean "
                     f"{summary.mean_plies:.0f} plies, {seconds:.0f} s incl. start-up)"))
    before = games[("numpy", "onnx")][1]
    same = sum(a == b for a, b in zip(before, games[("compiled", "onnx")][1], strict=False))
    ratio = per_hour[("compiled", "onnx")] / per_hour[("numpy", "onnx")]
    rows.append(("compiled / numpy glue, ONNX fp32, games per hour at 100 nodes",
                 f"{ratio:.2f}x; games identical move for move: {same} of {len(before)}"))
    low_ratio = per_hour[("compiled", low)] / per_hour[("numpy", "onnx")] if low else 0.0
    rows.append(("compiled glue on the gated low-precision backend / numpy glue on ONNX fp32, "
                 "games per hour at 100 nodes",
                 f"{low} (its gates: {GATES_NOTE}): {low_ratio:.2f}x" if low
                 else "no low-precision backend passed its gates on this machine"))

    # the UCI engine: default options (auto: the gated backend where it passed) and ONNX fp32
    uci: dict[str, float] = {}
    for glue, extra in (("compiled", []), ("compiled", ["--backend", "onnx"]),
                        ("numpy", ["--backend", "onnx"])):
        with _glue(glue):
            uci[f"{glue} {' '.join(extra) or 'default'}"] = _uci_nodes_per_second(
                positions[:6], extra)
    default, onnx_c, onnx_n = (uci["compiled default"], uci["compiled --backend onnx"],
                               uci["numpy --backend onnx"])
    rows.append(("UCI engine, committed small experts, default options (backend auto: "
                 f"{low or 'onnx'}), 800-node searches",
                 f"{default:,.0f} nodes/s ({default / generation:.3f}x move generation); with "
                 f"--backend onnx {onnx_c:,.0f} nodes/s ({onnx_c / generation:.3f}x), numpy "
                 f"glue {onnx_n:,.0f} nodes/s ({onnx_n / generation:.3f}x)"))
    result.rows = rows
    result.met = (ratio >= 1.3 and same == len(before) and low_ratio >= 2.5
                  and default >= 0.15 * generation)
    result.note = ("CHESSMOE_GLUE=numpy runs the numpy definitions the compiled glue is tested "
                   "equal to (tests/test_glue.py), in the searches, the tournament workers and "
                   "the engine alike. Nodes are new nodes (evaluated leaves); simulations add "
                   "the descents that ended at a terminal position already in the tree.")
    return result
