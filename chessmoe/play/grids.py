"""The paper's grids and the tournaments built on them, the medium profile's tournament and the
precision checks.

Grids of the paper (sec. 3, App. F): :func:`method_grid` (methods x batch sizes x nodes or
move times against the regular network), :func:`ablation_grid` (one phase expert at a time,
baseline elsewhere, batch 64: Fig. 6/29) and :func:`definition_grid` (move-count 2-5 and
Lichess experts: Fig. 7). The tournaments: ``smoke`` (seconds), ``small`` (the 2-core CPU
subset) and ``small-cutechess`` (its replay under cutechess's rules), ``paper`` (the full
grids), ``medium`` (equal compute with more and other data, the same network) and
``precision`` (faster paths checked against fp32 before any claim uses them).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chessmoe.designs.base import POWERED_SETTING, Pairing, Plan, trained, versus
from chessmoe.nets.names import BALANCED_SUFFIX, REGULAR_BF16, REGULAR_LONG
from chessmoe.paper import BATCH_SIZES
from chessmoe.play.match import Adjudication
from chessmoe.play.plans import CLAIM_RULES, mcts_player, tournament_of
from chessmoe.play.tournament import MatchSpec, TournamentSpec
from chessmoe.search.evaluators import RECORDED_BACKEND, RECORDED_DEVICE

__all__ = ["MOVETIMES", "NODES", "PRECISION_BACKEND", "PRECISION_GATE_BUNDLE",
           "PRECISION_GATE_PAIRS", "PRECISION_TRAINING_PAIRS", "ablation_grid",
           "definition_grid", "medium_spec", "method_grid", "paper_spec", "precision_spec",
           "small_cutechess_spec", "small_spec", "smoke_spec"]

NODES = (100, 200, 400, 800, 1600, 3200)
MOVETIMES = (100, 200, 400, 800, 1600)


def _settings(batch_sizes: Sequence[int], nodes: Sequence[int], movetimes: Sequence[int]
              ) -> list[tuple[int, int | None, int | None]]:
    return ([(b, n, None) for b in batch_sizes for n in nodes]
            + [(b, None, t) for b in batch_sizes for t in movetimes])


def _limit_label(nodes: int | None, movetime: int | None) -> str:
    return f"n{nodes}" if nodes else f"t{movetime}"


def method_grid(methods: dict[str, str], baseline: str, *, pairs: int,
                batch_sizes: Sequence[int] = BATCH_SIZES, nodes: Sequence[int] = NODES,
                movetimes: Sequence[int] = MOVETIMES, device: str = RECORDED_DEVICE,
                backend: str = RECORDED_BACKEND) -> list[MatchSpec]:
    """Every method (name -> bundle) against the regular network at every setting
    (paper: 5 batch sizes x (6 node limits + 5 move times) = 55 settings per method)."""
    matches = []
    for method, bundle in methods.items():
        for batch, n, t in _settings(batch_sizes, nodes, movetimes):
            limit = _limit_label(n, t)
            matches.append(MatchSpec(
                name=f"{method}-b{batch}-{limit}",
                first=mcts_player(method, bundle, batch, n, t, device=device, backend=backend),
                second=mcts_player("regular", baseline, batch, n, t, device=device,
                             backend=backend),
                pairs=pairs,
                labels=(("kind", "method"), ("method", method), ("batch_size", batch),
                        ("nodes", n), ("movetime", t))))
    return matches


def ablation_grid(experts: str, baseline: str, *, pairs: int, batch_size: int = 64,
                  nodes: Sequence[int] = NODES, movetimes: Sequence[int] = MOVETIMES,
                  phases: Sequence[int] = (0, 1, 2), device: str = RECORDED_DEVICE,
                  backend: str = RECORDED_BACKEND) -> list[MatchSpec]:
    """One phase expert at a time (baseline for the other phases) against the regular
    network (paper Fig. 6 and 29, batch 64)."""
    names = ("opening", "middlegame", "endgame")
    matches = []
    for phase in phases:
        for _, n, t in _settings([batch_size], nodes, movetimes):
            limit = _limit_label(n, t)
            label = f"only-{names[phase]}"
            matches.append(MatchSpec(
                name=f"{label}-b{batch_size}-{limit}",
                first=mcts_player(label, experts, batch_size, n, t, single_expert=phase,
                            baseline=baseline, device=device, backend=backend),
                second=mcts_player("regular", baseline, batch_size, n, t, device=device,
                             backend=backend),
                pairs=pairs,
                labels=(("kind", "ablation"), ("expert", names[phase]), ("phase", phase),
                        ("batch_size", batch_size), ("nodes", n), ("movetime", t))))
    return matches


def definition_grid(bundles: dict[str, str], baseline: str, *, pairs: int,
                    batch_size: int = 64, nodes: int | None = 800,
                    movetime: int | None = None, device: str = RECORDED_DEVICE,
                    backend: str = RECORDED_BACKEND) -> list[MatchSpec]:
    """Experts of each phase definition (name -> separated bundle) against the regular
    network (paper Fig. 7)."""
    return [MatchSpec(name=f"definition-{name}-b{batch_size}-{_limit_label(nodes, movetime)}",
                      first=mcts_player(name, bundle, batch_size, nodes, movetime, device=device,
                                  backend=backend),
                      second=mcts_player("regular", baseline, batch_size, nodes, movetime,
                                   device=device, backend=backend),
                      pairs=pairs,
                      labels=(("kind", "definition"), ("definition", name),
                              ("batch_size", batch_size), ("nodes", nodes),
                              ("movetime", movetime)))
            for name, bundle in bundles.items()]



def _experts(root: str, name: str) -> str:
    return str(Path(root) / name)


def small_spec(experts_root: str, *, pairs: int = 6, backend: str = "onnx",
               games_at_once: int = 8, rules: Adjudication | None = None,
               name: str = "small") -> TournamentSpec:
    """The 2-core CPU subset (420 games): every method against regular at batch 8 and 32
    with 100 and 200 nodes and 100 ms; the single-expert ablation at batch 64 (100 nodes,
    100 ms); and the phase-definition comparison (batch 8, 100 nodes) when those bundles
    exist. The networks run on ONNX Runtime and each worker plays ``games_at_once``
    node-limited games at once (the multi-game runner); time-limited games one at a time.

    The committed ``small`` tournament was played under the claim reading of the draw rules
    (``rules`` None: :data:`CLAIM_RULES`); the ``small-cutechess`` design replays the same
    matches on the same openings (the opening draw depends on the seed and the groups, not
    the name) under cutechess's rules."""
    baseline = _experts(experts_root, "regular")
    methods = {m: _experts(experts_root, m) for m in
               ("separated", "staged", "weighted-a4", "weighted-a10")
               if (Path(experts_root) / m / "manifest.json").exists()}
    matches = method_grid(methods, baseline, pairs=pairs, batch_sizes=(8, 32),
                          nodes=(100, 200), movetimes=(100,), backend=backend)
    matches += ablation_grid(_experts(experts_root, "separated"), baseline, pairs=pairs,
                             nodes=(100,), movetimes=(100,), backend=backend)
    definitions = {"lichess": _experts(experts_root, "separated")}
    definitions.update({d: _experts(experts_root, f"separated-{d}") for d in
                        ("movecount2", "movecount3", "movecount4", "movecount5")
                        if (Path(experts_root) / f"separated-{d}" / "manifest.json").exists()})
    if len(definitions) > 1:
        matches += definition_grid(definitions, baseline, pairs=pairs, batch_size=8,
                                   nodes=100, backend=backend)
    return TournamentSpec(name, tuple(matches), openings="embedded", pairs_per_shard=3,
                          games_at_once=games_at_once,
                          adjudication=CLAIM_RULES if rules is None else rules)


def small_cutechess_spec(experts_root: str, **kwargs: Any) -> TournamentSpec:
    """The small tournament replayed under cutechess's draw rules (``Adjudication()``):
    the figures of the per-setting grid (Table 2, Fig. 5-7 and 29) read it once complete."""
    return small_spec(experts_root, rules=Adjudication(), name="small-cutechess", **kwargs)



def paper_spec(experts_root: str, *, pairs: int = 500, device: str = "cuda",
               games_at_once: int = 32) -> TournamentSpec:
    """The paper's grids: 4 methods x 55 settings, the ablation at batch 64 (33 settings)
    and the definition comparison, 500 pairs each, on the paper's opening suite. On a GPU
    the networks run on the ``cuda`` backend (bf16, CUDA graphs) and each worker plays
    ``games_at_once`` node-limited games at once so the GPU sees large batches; on a CPU,
    eager torch."""
    backend = "cuda" if device.startswith("cuda") else "torch"
    baseline = _experts(experts_root, "regular")
    methods = {m: _experts(experts_root, m) for m in
               ("separated", "staged", "weighted-a4", "weighted-a10")}
    matches = method_grid(methods, baseline, pairs=pairs, device=device, backend=backend)
    matches += ablation_grid(_experts(experts_root, "separated"), baseline, pairs=pairs,
                             device=device, backend=backend)
    definitions = {"lichess": _experts(experts_root, "separated"),
                   **{d: _experts(experts_root, f"separated-{d}") for d in
                      ("movecount2", "movecount3", "movecount4", "movecount5")}}
    matches += definition_grid(definitions, baseline, pairs=pairs, device=device,
                               backend=backend)
    return TournamentSpec("paper", tuple(matches), openings="paper", pairs_per_shard=25,
                          games_at_once=games_at_once)


def smoke_spec(experts_root: str, *, pairs: int = 1) -> TournamentSpec:
    """Seconds: separated against regular and one ablated expert, 20 nodes, short games."""
    baseline = _experts(experts_root, "regular")
    separated = _experts(experts_root, "separated")
    matches = method_grid({"separated": separated}, baseline, pairs=pairs, batch_sizes=(8,),
                          nodes=(20,), movetimes=())
    matches += ablation_grid(separated, baseline, pairs=pairs, nodes=(20,), movetimes=(),
                             phases=(2,))
    return TournamentSpec("smoke", tuple(matches), openings="embedded", pairs_per_shard=1,
                          adjudication=Adjudication(max_plies=40))




def medium_spec(experts_root: str | os.PathLike[str], *, pairs: int = 200,
                backend: str = "onnx") -> TournamentSpec:
    """Equal compute at the ``medium`` profile (more and other data, the same network),
    under cutechess's draw rules at the powered setting (batch 8, 100 nodes), every match
    on one shared opening permutation so all of them are paired by opening:

    * staged, weighted a=10 and ``regular-long`` against the regular network (the powered
      design's arms, same names), and
    * staged and weighted a=10 head to head against ``regular-long`` (the replicated
      design's names), and
    * ``weighted-a10-balanced`` (weights balanced over the data's phase shares, when
      trained) against the regular network: the test of why weighted a=10 loses here,
    * ``separated`` (when trained: ``chessmoe train --profile medium --regime separated``)
      against the regular network and head to head against ``regular-long``, so the medium
      tournament has all four of the paper's methods,

    ``pairs`` pairs each (400 games by default: the powered design's count per method).
    Matches whose bundles are not trained are left out (they join when trained).
    """
    group = "b8-n100"

    def exists(name: str) -> bool:
        return trained(experts_root, name)

    def match(first: str, second: str, name: str, labels: tuple[tuple[str, Any], ...]
              ) -> Pairing:
        return versus(first, second, pairs, labels, name=name)

    matches: list[Pairing] = []
    if exists("regular"):
        matches += [match(m, "regular", f"{m}-{group}",
                          (("kind", "method"), ("method", m)))
                    for m in ("staged", "weighted-a10") if exists(m)]
        if exists(REGULAR_LONG):
            matches.append(match(REGULAR_LONG, "regular", f"{REGULAR_LONG}-{group}",
                                 (("kind", "control"), ("method", REGULAR_LONG))))
    if exists(REGULAR_LONG):
        matches += [match(m, REGULAR_LONG, f"{m}-vs-{REGULAR_LONG}-{group}",
                          (("kind", "head-to-head"), ("method", m), ("first", m),
                           ("second", REGULAR_LONG)))
                    for m in ("staged", "weighted-a10") if exists(m)]
    balanced = f"weighted-a10{BALANCED_SUFFIX}"  # the test of weighted's reversal
    if exists("regular") and exists(balanced):
        matches.append(match(balanced, "regular", f"{balanced}-{group}",
                             (("kind", "control"), ("method", balanced))))
    if exists("separated"):  # the fourth method, added after the others were played
        if exists("regular"):
            matches.append(match("separated", "regular", f"separated-{group}",
                                 (("kind", "method"), ("method", "separated"))))
        if exists(REGULAR_LONG):
            matches.append(match("separated", REGULAR_LONG,
                                 f"separated-vs-{REGULAR_LONG}-{group}",
                                 (("kind", "head-to-head"), ("method", "separated"),
                                  ("first", "separated"), ("second", REGULAR_LONG))))
    return tournament_of(Plan("medium", tuple(matches)), experts_root, backend=backend)


#: Game pairs of the precision design's matches: the mixed-precision training check (200
#: games) and the low-precision evaluator's gate (400 games).
PRECISION_TRAINING_PAIRS = 100
PRECISION_GATE_PAIRS = 200
#: The low-precision backend the gate plays against fp32, and the network it plays with.
PRECISION_BACKEND = "openvino-bf16"
PRECISION_GATE_BUNDLE = "staged"


def precision_spec(experts_root: str, *, pairs: int | None = None, backend: str = "onnx"
                   ) -> TournamentSpec:
    """Faster paths checked against fp32 before any claim uses them, at the powered setting
    (batch 8, 100 nodes) under cutechess's draw rules, on their own opening draw
    (``precision``):

    * ``regular-bf16-vs-regular-b8-n100``: the regular network trained under bf16 autocast
      against the one trained in fp32 with the same seed and steps, both evaluated in fp32
      (``backend``), :data:`PRECISION_TRAINING_PAIRS` pairs;
    * ``staged-openvino-bf16-vs-onnx-b8-n100``: the same staged mixture evaluated by
      :data:`PRECISION_BACKEND` and by ONNX Runtime in fp32, :data:`PRECISION_GATE_PAIRS` pairs
      (the match gate of :mod:`chessmoe.play.precision`).

    ``pairs`` replaces both counts (tests)."""
    batch, nodes = POWERED_SETTING
    label = (("batch_size", batch), ("nodes", nodes), ("movetime", None))
    staged = _experts(experts_root, PRECISION_GATE_BUNDLE)
    matches = (
        MatchSpec(name=f"{REGULAR_BF16}-vs-regular-b{batch}-n{nodes}",
                  first=mcts_player(REGULAR_BF16, _experts(experts_root, REGULAR_BF16), batch,
                                    nodes, None, backend=backend),
                  second=mcts_player("regular", _experts(experts_root, "regular"), batch,
                                     nodes, None, backend=backend),
                  pairs=pairs or PRECISION_TRAINING_PAIRS, openings_group="precision",
                  labels=(("kind", "precision-training"), ("first", REGULAR_BF16),
                          ("second", "regular"), *label)),
        MatchSpec(name=f"{PRECISION_GATE_BUNDLE}-{PRECISION_BACKEND}-vs-{backend}"
                       f"-b{batch}-n{nodes}",
                  first=mcts_player(f"{PRECISION_GATE_BUNDLE}-{PRECISION_BACKEND}", staged,
                                    batch, nodes, None, backend=PRECISION_BACKEND),
                  second=mcts_player(f"{PRECISION_GATE_BUNDLE}-{backend}", staged, batch,
                                     nodes, None, backend=backend),
                  pairs=pairs or PRECISION_GATE_PAIRS, openings_group="precision",
                  labels=(("kind", "precision-gate"), ("first", PRECISION_BACKEND),
                          ("second", backend), *label)),
    )
    return TournamentSpec("precision", matches, openings="embedded", pairs_per_shard=10,
                          games_at_once=20, adjudication=Adjudication())
