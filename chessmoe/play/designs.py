"""The tournament designs the kit plays: the paper's grids and the profiles' tournaments.

Each design is a function of the experts' directory returning a
:class:`~chessmoe.play.tournament.TournamentSpec` (its matches, openings, seed and draw rules);
:data:`DESIGNS` names them and :func:`build_design` builds one by name. Running a design,
resuming it and summarising it is :mod:`chessmoe.play.tournament`'s.

Grids of the paper (sec. 3, App. F): :func:`method_grid` (methods x batch sizes x nodes or
move times against the regular network), :func:`ablation_grid` (one phase expert at a
time, baseline elsewhere, batch 64: Fig. 6/29) and :func:`definition_grid` (move-count 2-5
and Lichess experts: Fig. 7). The designs: ``smoke``, ``small`` (the 2-core CPU subset) and
``small-cutechess``, ``powered`` and ``replicated`` (one setting, paired by opening),
``settings``, ``seeds-long``, ``matched`` and ``converged``, ``ratings`` and
``ratings-cutechess`` (a round robin anchored to Stockfish), ``related`` (the related
documents' engines), ``medium`` (more and other data, the same network) and ``paper``
(the full grids). The names the designs give matches and players that the reports read
too live in :mod:`chessmoe.nets.names`; :func:`untrained` names the bundles a design still needs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import sha256_file
from chessmoe.nets.names import (
    BALANCED_SUFFIX,
    CONTROL_SEEDS,
    CONVERGED_PAIRS,
    MATCHED,
    MATCHED_GROUP,
    MATCHED_PAIRS,
    RATING_ANCHOR,
    RATING_CHECK,
    REGULAR_BF16,
    REGULAR_LONG,
    SEEDED_METHODS,
    SEPARATED_LONG,
    SETTINGS,
    SETTINGS_GROUP,
    SETTINGS_OPPONENTS,
    SETTINGS_PAIRS,
    converged_grid,
    converged_match,
    matched_match,
    method_seed_bundle,
    seed_bundle,
    seeds_long_grid,
    settings_match,
)
from chessmoe.nets.related import RELATED_WEIGHTS
from chessmoe.paper import BATCH_SIZES
from chessmoe.play.match import Adjudication, PlayerSpec, SprtRule
from chessmoe.play.tournament import MatchSpec, TournamentSpec, with_pairs
from chessmoe.search.evaluators import RECORDED_BACKEND, RECORDED_DEVICE, EvaluatorSpec

__all__ = [
    "BATCH_SIZES",
    "CLAIM_RULES",
    "DESIGNS",
    "MAIS_SPRT",
    "MAIS_SPRT_PAIRS",
    "MOVETIMES",
    "NODES",
    "POWERED_SETTING",
    "RATING_ANCHOR",
    "RATING_CHECK",
    "SETTINGS",
    "SETTINGS_OPPONENTS",
    "ablation_grid",
    "build_design",
    "converged_spec",
    "definition_grid",
    "matched_spec",
    "medium_spec",
    "method_grid",
    "paper_spec",
    "powered_spec",
    "ratings_claim_spec",
    "ratings_spec",
    "related_spec",
    "replicated_spec",
    "seeds_long_grid",
    "seeds_long_spec",
    "settings_match",
    "settings_spec",
    "small_cutechess_spec",
    "small_spec",
    "smoke_spec",
    "stockfish_anchors",
    "untrained",
]

NODES = (100, 200, 400, 800, 1600, 3200)
MOVETIMES = (100, 200, 400, 800, 1600)


# --- the paper's grids ---------------------------------------------------------------------


def _mcts(name: str, bundle: str, batch: int, nodes: int | None, movetime: int | None,
          **evaluator: Any) -> PlayerSpec:
    """The kit's MCTS player of ``bundle``; ``evaluator``: further fields of its
    :class:`EvaluatorSpec` over a tournament player's defaults (:meth:`EvaluatorSpec.recorded`)."""
    return PlayerSpec.mcts(name, EvaluatorSpec.recorded(network=bundle, **evaluator),
                           batch_size=batch, nodes=nodes, movetime_ms=movetime)


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
                first=_mcts(method, bundle, batch, n, t, device=device, backend=backend),
                second=_mcts("regular", baseline, batch, n, t, device=device,
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
                first=_mcts(label, experts, batch_size, n, t, single_expert=phase,
                            baseline=baseline, device=device, backend=backend),
                second=_mcts("regular", baseline, batch_size, n, t, device=device,
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
                      first=_mcts(name, bundle, batch_size, nodes, movetime, device=device,
                                  backend=backend),
                      second=_mcts("regular", baseline, batch_size, nodes, movetime,
                                   device=device, backend=backend),
                      pairs=pairs,
                      labels=(("kind", "definition"), ("definition", name),
                              ("batch_size", batch_size), ("nodes", nodes),
                              ("movetime", movetime)))
            for name, bundle in bundles.items()]


# --- the kit's designs ---------------------------------------------------------------------


def _experts(root: str, name: str) -> str:
    return str(Path(root) / name)


def _trained(root: str, name: str) -> bool:
    """Whether the bundle ``name`` under ``root`` is trained (its manifest is written)."""
    return (Path(root) / name / "manifest.json").exists()


def _versus(experts_root: str, first: str, second: str, pairs: int,
            labels: tuple[tuple[str, Any], ...], *, backend: str, name: str | None = None
            ) -> MatchSpec:
    """Bundle ``first`` against bundle ``second`` at the powered setting (batch 8, 100
    nodes, its openings group), named ``<first>-vs-<second>-b8-n100`` unless ``name``."""
    batch, nodes = POWERED_SETTING
    group = f"b{batch}-n{nodes}"
    return MatchSpec(name=name or f"{first}-vs-{second}-{group}",
                     first=_mcts(first, _experts(experts_root, first), batch, nodes, None,
                                 backend=backend),
                     second=_mcts(second, _experts(experts_root, second), batch, nodes, None,
                                  backend=backend),
                     pairs=pairs, openings_group=group,
                     labels=(*labels, ("batch_size", batch), ("nodes", nodes),
                             ("movetime", None)))


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


POWERED_SETTING = (8, 100)  # batch size, nodes per move of every powered arm

#: The claim reading of the draw rules (a game ends once a draw *could* be claimed): the
#: small, powered and ratings tournaments are played under it, so their designs resume and
#: reproduce their committed games; the other designs use ``Adjudication()`` (cutechess's).
CLAIM_RULES = Adjudication(draw_rules="claim")


def powered_spec(experts_root: str, *, pairs: int = 200, arm_pairs: int = 100,
                 backend: str = "onnx", rules: Adjudication = CLAIM_RULES,
                 name: str = "powered") -> TournamentSpec:
    """A tournament that can decide something on 2 CPU cores: every arm at one node-limited
    setting (batch 8, 100 nodes: the paper's default batch size and its cheapest node limit,
    where a 2-core machine plays the most games), all arms against the regular network and
    all drawing their openings from one shared permutation of the embedded suite, so arms are
    paired by opening.

    * the four methods (separated, staged, weighted a=4 and a=10): ``pairs`` pairs each
      (400 games from 200 openings by default);
    * the single-expert ablation (Fig. 6/29), the phase definitions (Fig. 7: move-count
      experts; the Lichess arm is the separated method's), the routings (split and soft;
      majority is the separated method's) and the gate table (the authors' ``engine`` table;
      the ``lichess`` table is the separated method's): ``arm_pairs`` pairs each (200 games);
    * the controls: separated experts trained for as many iterations as the regular network
      (``separated-long``, when trained), ``pairs`` pairs; the regular network trained for
      their total (``regular-long``, when trained), ``arm_pairs`` pairs.

    The committed ``powered`` tournament was played under the claim reading of the draw
    rules (``rules``); :func:`replicated_spec` replays it under cutechess's rules.
    """
    root = Path(experts_root)
    baseline = _experts(experts_root, "regular")
    batch, nodes = POWERED_SETTING
    group = f"b{batch}-n{nodes}"

    def arm(name: str, bundle: str, count: int, labels: tuple[tuple[str, Any], ...],
            **extra: Any) -> MatchSpec:
        return MatchSpec(name=name,
                         first=_mcts(name.split("-b")[0], bundle, batch, nodes, None,
                                     backend=backend, **extra),
                         second=_mcts("regular", baseline, batch, nodes, None, backend=backend),
                         pairs=count, openings_group=group,
                         labels=(*labels, ("batch_size", batch), ("nodes", nodes),
                                 ("movetime", None)))

    def exists(name: str) -> bool:
        return (root / name / "manifest.json").exists()

    separated = _experts(experts_root, "separated")
    matches = [arm(f"{m}-{group}", _experts(experts_root, m), pairs,
                   (("kind", "method"), ("method", m)))
               for m in ("separated", "staged", "weighted-a4", "weighted-a10") if exists(m)]
    names = ("opening", "middlegame", "endgame")
    matches += [arm(f"only-{names[k]}-{group}", separated, arm_pairs,
                    (("kind", "ablation"), ("expert", names[k]), ("phase", k)),
                    single_expert=k, baseline=baseline) for k in range(3)]
    matches += [arm(f"definition-{d}-{group}", _experts(experts_root, f"separated-{d}"),
                    arm_pairs, (("kind", "definition"), ("definition", d)))
                for d in ("movecount2", "movecount3", "movecount4", "movecount5")
                if exists(f"separated-{d}")]
    matches += [arm(f"routing-{r}-{group}", separated, arm_pairs,
                    (("kind", "routing"), ("routing", r)), routing=r)
                for r in ("split", "soft")]
    matches.append(arm(f"gate-engine-{group}", separated, arm_pairs,
                       (("kind", "gate"), ("gate", "engine")), gate="engine"))
    if exists("separated-long"):
        matches.append(arm(f"separated-long-{group}", _experts(experts_root, "separated-long"),
                           pairs, (("kind", "control"), ("method", "separated-long"))))
    if exists("regular-long"):
        matches.append(arm(f"regular-long-{group}", _experts(experts_root, "regular-long"),
                           arm_pairs, (("kind", "control"), ("method", "regular-long"))))
    return TournamentSpec(name, tuple(matches), openings="embedded", pairs_per_shard=10,
                          games_at_once=20, adjudication=rules)


def replicated_spec(experts_root: str, *, pairs: int = 200, arm_pairs: int = 100,
                    backend: str = "onnx") -> TournamentSpec:
    """The powered design replayed under cutechess's draw rules (``Adjudication()``), with
    the evidence a single seed and a common opponent cannot give, all on one shared opening
    permutation (every arm paired by opening with every other):

    * every powered arm (:func:`powered_spec`), same names, same openings;
    * **seeds**: staged and weighted a=10 under their three seeds (the committed bundle and
      ``<method>-seed10/11``) against each of the regular network's three seeds
      (``regular``, ``regular-seed10/11``): ``pairs`` pairs each, named
      ``<method>[-seedN]-vs-regular[-seedM]-b8-n100`` (the seed-9 pairs are the powered
      method arms themselves);
    * **equal compute head to head**: staged, weighted a=4, a=10 and separated-long
      against ``regular-long`` (the regular network trained for their total iterations),
      ``arm_pairs`` pairs each, named ``<method>-vs-regular-long-b8-n100``.

    Arms whose bundles are not trained are left out (they join when trained).
    """
    base = powered_spec(experts_root, pairs=pairs, arm_pairs=arm_pairs, backend=backend,
                        rules=Adjudication(), name="replicated")

    def exists(name: str) -> bool:
        return _trained(experts_root, name)

    def versus(first: str, second: str, count: int, labels: tuple[tuple[str, Any], ...]
               ) -> MatchSpec:
        return _versus(experts_root, first, second, count, labels, backend=backend)

    regulars = ["regular", *(seed_bundle(s) for s in CONTROL_SEEDS)]
    matches = list(base.matches)
    for method in SEEDED_METHODS:
        for first in (method, *(method_seed_bundle(method, s) for s in CONTROL_SEEDS)):
            for second in regulars:
                if (first, second) == (method, "regular") or not (exists(first)
                                                                 and exists(second)):
                    continue
                matches.append(versus(first, second, pairs,
                                      (("kind", "seed"), ("method", method),
                                       ("first", first), ("second", second))))
    for method in ("staged", "weighted-a4", "weighted-a10", SEPARATED_LONG):
        if exists(method) and exists(REGULAR_LONG):
            matches.append(versus(method, REGULAR_LONG, arm_pairs,
                                  (("kind", "head-to-head"), ("method", method),
                                   ("first", method), ("second", REGULAR_LONG))))
    return replace(base, matches=tuple(matches))


def settings_spec(experts_root: str, *, pairs: int = SETTINGS_PAIRS, backend: str = "onnx"
                  ) -> TournamentSpec:
    """The staged mixture beyond the powered setting: staged against the regular
    network and against ``regular-long`` (equal training compute) at 100, 400 and 1,600
    nodes with batch 8, and at batch 1 and 32 with 400 nodes (:data:`SETTINGS`), ``pairs``
    pairs each (200 games from 100 openings by default), under cutechess's draw rules.

    Every match draws its openings from one shared permutation of the embedded suite
    (opening group ``settings``), so the two opponents and every setting are paired by
    opening: the difference between two settings, or between the two opponents, is taken
    opening by opening. The group is not the powered design's ``b8-n100``, so these openings
    are a fresh draw; where one of them is also among the replicated tournament's, staged
    against regular at batch 8 and 100 nodes replays that game (the searches are
    deterministic). Matches are in :data:`SETTINGS` order, the cheap settings first; a
    match whose bundles are not trained is left out. Its claims rows were registered before
    its first game (:func:`chessmoe.report.verdicts.claims`)."""
    matches = []
    for batch, nodes in SETTINGS:
        for opponent in SETTINGS_OPPONENTS:
            if not (_trained(experts_root, "staged") and _trained(experts_root, opponent)):
                continue
            matches.append(MatchSpec(
                name=settings_match(opponent, batch, nodes),
                first=_mcts("staged", _experts(experts_root, "staged"), batch, nodes, None,
                            backend=backend),
                second=_mcts(opponent, _experts(experts_root, opponent), batch, nodes, None,
                             backend=backend),
                pairs=pairs, openings_group=SETTINGS_GROUP,
                labels=(("kind", "settings"), ("method", "staged"), ("first", "staged"),
                        ("second", opponent), ("batch_size", batch), ("nodes", nodes),
                        ("movetime", None))))
    return TournamentSpec("settings", tuple(matches), openings="embedded", pairs_per_shard=10,
                          games_at_once=20, adjudication=Adjudication())


def seeds_long_spec(experts_root: str, *, pairs: int = 100, backend: str = "onnx"
                    ) -> TournamentSpec:
    """Equal compute over training seeds: staged under its three seeds against
    ``regular-long`` under its three, ``pairs`` pairs a pairing, at the powered setting
    (batch 8, 100 nodes) under cutechess's draw rules, named
    ``<staged seed>-vs-<regular-long seed>-b8-n100`` in the opening group ``b8-n100``.

    The ninth cell, ``staged-vs-regular-long-b8-n100`` (both seed 9), is the replicated
    tournament's head-to-head arm: the same name, the same openings (the group's permutation
    with the same seed) and 100 pairs, so it is not played again here; the reading takes it
    from there (:func:`chessmoe.report.verdicts.seeds_long_arms`). A pairing whose bundles
    are not trained is left out (``regular-long-seed10/11``: ``chessmoe train --profile small
    --controls``)."""
    matches = [_versus(experts_root, first, second, pairs,
                       (("kind", "seed-long"), ("method", "staged"), ("first", first),
                        ("second", second)), backend=backend)
               for first, second in seeds_long_grid()[1:]
               if _trained(experts_root, first) and _trained(experts_root, second)]
    return TournamentSpec("seeds-long", tuple(matches), openings="embedded",
                          pairs_per_shard=10, games_at_once=20, adjudication=Adjudication())


def matched_spec(experts_root: str, *, pairs: int = MATCHED_PAIRS, backend: str = "onnx"
                 ) -> TournamentSpec:
    """The parameter-matched single network: staged against
    ``regular-wide`` (the regular network widened to the mixture's three experts' parameters
    and trained for ``regular-long``'s steps) at batch 8 with 100 nodes (equal nodes) and
    with :data:`~chessmoe.nets.names.MATCHED_MOVETIME` ms a move (equal time: the wide network
    is slower per node, so it searches fewer nodes; each game record holds both sides' nodes
    a move), and ``regular-wide`` against ``regular-long`` at 100 nodes (the same steps, three
    times the parameters), ``pairs`` pairs each (200 games from 100 openings by default),
    under cutechess's draw rules (:data:`~chessmoe.nets.names.MATCHED`).

    Every match draws its openings from one shared permutation (the fresh group
    ``matched``), so the three are paired by opening. The design is registered: every match
    is listed whether or not its bundles are trained, so ``--status`` counts its games from
    the start and playing refuses, naming the missing bundle, until they are
    (:func:`untrained`). Its claims rows were registered before its first game
    (:func:`chessmoe.report.verdicts.claims`)."""
    matches = []
    for first, second, batch, nodes, movetime in MATCHED:
        matches.append(MatchSpec(
            name=matched_match(first, second, batch, nodes, movetime),
            first=_mcts(first, _experts(experts_root, first), batch, nodes, movetime,
                        backend=backend),
            second=_mcts(second, _experts(experts_root, second), batch, nodes, movetime,
                         backend=backend),
            pairs=pairs, openings_group=MATCHED_GROUP,
            labels=(("kind", "matched"), ("first", first), ("second", second),
                    ("batch_size", batch), ("nodes", nodes), ("movetime", movetime))))
    return TournamentSpec("matched", tuple(matches), openings="embedded", pairs_per_shard=10,
                          games_at_once=20, adjudication=Adjudication())


def converged_spec(experts_root: str, *, pairs: int = CONVERGED_PAIRS, backend: str = "onnx"
                   ) -> TournamentSpec:
    """The powered design's comparisons for the networks trained until convergence (the
    data-limited regime): ``staged-converged`` and
    ``weighted-a10-converged`` against ``regular-converged`` (the powered method arms), and
    ``regular-converged`` against the profile's ``regular`` network (the powered
    ``regular-long`` arm: what training to convergence buys the single network), ``pairs``
    pairs each (400 games by default, the powered design's count a method) at the powered
    setting (batch 8, 100 nodes) under cutechess's draw rules, named
    ``<first>-vs-<second>-b8-n100`` (:func:`~chessmoe.nets.names.converged_grid`).

    The openings are the powered design's group ``b8-n100`` (the same seed), so each arm is
    paired by opening with the powered and replicated tournaments' fixed-length arms. Like
    :func:`matched_spec` the design is registered: every match is listed before its bundles
    are trained, and its claims rows exist before its first game."""
    matches = [_versus(experts_root, first, second, pairs,
                       (("kind", "converged"), ("first", first), ("second", second)),
                       backend=backend, name=converged_match(first, second))
               for first, second in converged_grid()]
    return TournamentSpec("converged", tuple(matches), openings="embedded", pairs_per_shard=10,
                          games_at_once=20, adjudication=Adjudication())


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
                  first=_mcts(REGULAR_BF16, _experts(experts_root, REGULAR_BF16), batch,
                              nodes, None, backend=backend),
                  second=_mcts("regular", _experts(experts_root, "regular"), batch, nodes,
                               None, backend=backend),
                  pairs=pairs or PRECISION_TRAINING_PAIRS, openings_group="precision",
                  labels=(("kind", "precision-training"), ("first", REGULAR_BF16),
                          ("second", "regular"), *label)),
        MatchSpec(name=f"{PRECISION_GATE_BUNDLE}-{PRECISION_BACKEND}-vs-{backend}"
                       f"-b{batch}-n{nodes}",
                  first=_mcts(f"{PRECISION_GATE_BUNDLE}-{PRECISION_BACKEND}", staged, batch,
                              nodes, None, backend=PRECISION_BACKEND),
                  second=_mcts(f"{PRECISION_GATE_BUNDLE}-{backend}", staged, batch, nodes,
                               None, backend=backend),
                  pairs=pairs or PRECISION_GATE_PAIRS, openings_group="precision",
                  labels=(("kind", "precision-gate"), ("first", PRECISION_BACKEND),
                          ("second", backend), *label)),
    )
    return TournamentSpec("precision", matches, openings="embedded", pairs_per_shard=10,
                          games_at_once=20, adjudication=Adjudication())


def untrained(spec: TournamentSpec) -> list[str]:
    """The bundle directories the kit's MCTS players of ``spec`` search with (their experts
    and their baseline) that hold no trained bundle (no ``manifest.json``), each once, in the
    order the matches name them: what must be trained before the tournament can be played."""
    missing: list[str] = []
    for match in spec.matches:
        for player in (match.first, match.second):
            if player.kind != "mcts" or player.uniform:
                continue
            for bundle in (player.experts, player.baseline):
                if (bundle is not None and bundle not in missing
                        and not (Path(bundle) / "manifest.json").is_file()):
                    missing.append(bundle)
    return missing


def medium_spec(experts_root: str, *, pairs: int = 200, backend: str = "onnx"
                ) -> TournamentSpec:
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
    group = "b{}-n{}".format(*POWERED_SETTING)

    def exists(name: str) -> bool:
        return _trained(experts_root, name)

    def match(first: str, second: str, name: str, labels: tuple[tuple[str, Any], ...]
              ) -> MatchSpec:
        return _versus(experts_root, first, second, pairs, labels, backend=backend, name=name)

    matches: list[MatchSpec] = []
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
    return TournamentSpec("medium", tuple(matches), openings="embedded", pairs_per_shard=10,
                          games_at_once=20, adjudication=Adjudication())


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


def stockfish_anchors() -> list[PlayerSpec]:
    """Stockfish 15.1 players spanning the kit's engines: Skill Level 0 at 50 and 200 nodes,
    and UCI_LimitStrength at UCI_Elo 1350 (its minimum) and 1500, with 100 ms a move. The
    1350 player is the anchor (Stockfish calibrates UCI_Elo at a time control, so even it is
    only roughly 1350 here); where the list then places the 1500 player checks how far
    Stockfish's own scale holds at 100 ms. Players are only ever appended to this list, so a
    committed round robin resumes with the new pairings added."""
    sl0 = (("Skill Level", 0), ("Threads", 1), ("Hash", 16))

    def limited(name: str, elo: int) -> PlayerSpec:
        return PlayerSpec(name=name, kind="uci", command=("stockfish",),
                          options=(("UCI_LimitStrength", True), ("UCI_Elo", elo),
                                   ("Threads", 1), ("Hash", 16)),
                          nodes=None, movetime_ms=100)

    return [PlayerSpec(name="sf-sl0-n50", kind="uci", command=("stockfish",), options=sl0,
                       nodes=50),
            PlayerSpec(name="sf-sl0-n200", kind="uci", command=("stockfish",), options=sl0,
                       nodes=200),
            limited(RATING_ANCHOR[0], 1350),
            limited(RATING_CHECK[0], RATING_CHECK[1])]


def _rating_players(experts_root: str, backend: str) -> list[PlayerSpec]:
    from chessmoe.play.players import RELATED_KINDS, default_model_dir

    batch, nodes = POWERED_SETTING
    players = [_mcts(name, _experts(experts_root, name), batch, nodes, None, backend=backend)
               for name in ("regular", "staged")
               if (Path(experts_root) / name / "manifest.json").exists()]
    players += [PlayerSpec(name=kind, kind=kind, nodes=nodes)  # type: ignore[arg-type]
                for kind in RELATED_KINDS if default_model_dir(kind) is not None]
    return players + stockfish_anchors()


def ratings_claim_spec(experts_root: str, *, pairs: int = 3, backend: str = "onnx"
                       ) -> TournamentSpec:
    """The committed rating list's design (``results/tournaments/ratings``): one round robin,
    ``pairs`` openings shared by every pairing, under the claim reading of the draw rules.
    Kept so that tournament can be resumed and checked; :func:`ratings_spec` (design
    ``ratings-cutechess``) replaces it."""
    players = _rating_players(experts_root, backend)
    matches = [MatchSpec(name=f"{a.name}-vs-{b.name}", first=a, second=b, pairs=pairs,
                         openings_group="round-robin",
                         labels=(("kind", "rating"), ("first", a.name), ("second", b.name)))
               for i, a in enumerate(players) for b in players[i + 1:]]
    return TournamentSpec("ratings", tuple(matches), openings="embedded", pairs_per_shard=3,
                          games_at_once=1, adjudication=CLAIM_RULES)


def ratings_spec(experts_root: str, *, pairs: int = 8, backend: str = "onnx"
                 ) -> TournamentSpec:
    """One round robin for a rating list anchored to Stockfish, under cutechess's draw rules:
    the regular network and the staged mixture (the best method of the small tournament,
    chosen before the first list was played) at the powered setting (batch 8, 100 nodes),
    the related documents' engines whose trained weights are committed (each at 100 of its
    own nodes, labelled with its weights' checksum) and the Stockfish anchors
    (:func:`stockfish_anchors`). Each pairing plays ``pairs`` openings of its own with both
    colours: with 8 players and 8 pairs every engine plays 7 x 16 = 112 games from 56
    openings. A round robin (not a gauntlet against the anchors only) so that every
    engine's rating rests on games against all the others."""
    from chessmoe.play.players import RELATED_KINDS

    players = _rating_players(experts_root, backend)

    def labels(player: PlayerSpec) -> tuple[tuple[str, Any], ...]:
        if player.kind not in RELATED_KINDS:
            return ()
        from chessmoe.play.players import default_model_dir

        run = default_model_dir(player.kind)
        return ((f"weights_{player.name}", _weights_label(player.kind, run)),) if run else ()

    matches = [MatchSpec(name=f"{a.name}-vs-{b.name}", first=a, second=b, pairs=pairs,
                         openings_group=f"{a.name}-vs-{b.name}",
                         labels=(("kind", "rating"), ("first", a.name), ("second", b.name),
                                 *labels(a), *labels(b)))
               for i, a in enumerate(players) for b in players[i + 1:]]
    return TournamentSpec("ratings-cutechess", tuple(matches), openings="embedded",
                          pairs_per_shard=4, games_at_once=1, adjudication=Adjudication())


def _weights_label(kind: str, run: Path) -> str:
    """The first 12 hex digits of a run's weights file: a label of the match, so a tournament
    whose engine was retrained under the same path is refused, not mixed ("missing" when
    the run has no weights file: its games would fail with a message naming it)."""
    path = run / RELATED_WEIGHTS[kind]
    return sha256_file(path)[:12] if path.is_file() else "missing"


MAIS_SPRT = SprtRule(elo0=0.0, elo1=35.0, alpha=0.05, beta=0.05, model="logistic", exact=True)
"""The MAIS match's sequential test: H0, the 1,200-game net is no stronger than the
200-game net (logistic Elo 0), against H1, it scores 55 % (+35 Elo, the kit's target for the
document's claim); 5 % error each way; the exact generalized LLR over game pairs (fishtest's,
fastchess's)."""
MAIS_SPRT_PAIRS = 1000  # the cap: 2,000 games; the test is expected to end long before


def related_spec(experts_root: str, *, related_root: str | os.PathLike[str] | None = None,
                 ntuple_pairs: int = 500, pairs: int = 100) -> TournamentSpec:
    """The related documents' own experiments, each engine against its document's baseline,
    under cutechess's draw rules, every match on its own openings:

    * ``ntuple-vs-pesto``: the comparison-trained n-tuple engine against the hand-tuned PeSTO
      tapered evaluation (the document's baseline is a tuned linear evaluation), both at 400
      nodes, ``ntuple_pairs`` pairs (1,000 games); ``ntuple-d2-vs-pesto`` likewise for the
      d = 2 run (``related/ntuple-d2``) when it is trained, and ``ntuple-d2-vs-ntuple`` the
      two trained engines head to head on shared openings (the document's Table IX: 2-ply
      against 1-ply training, 57.65 % for 2-ply);
    * ``mais-vs-mais-at-200``: the self-play value network after all its games against itself
      after 200 (``at-200-games/``, kept by the large profile), 1,500 nodes each, ``pairs``;
      ``mais-vs-mais-at-200-sprt`` the same players on openings of their own until a
      pentanomial SPRT decides (:data:`MAIS_SPRT`: H0 0 Elo against H1 +35 Elo, the kit's
      55 % target score; alpha = beta = 0.05), at most ``MAIS_SPRT_PAIRS`` pairs;
    * ``deepchess-vs-material``: DeepChess's comparator search against a material-only
      alpha-beta, both to depth 3, ``pairs`` pairs. The material engine resolves captures
      past depth 3 (quiescence) and DeepChess's search does not;
      ``deepchess-vs-material-flat`` is the same match with the material engine's quiescence
      off, so both searches stop at the same horizon (a test of how much of the first
      match's gap that one difference makes); ``deepchess-quiet-vs-material`` gives
      DeepChess a quiescence search of its own (``Quiescence``) against the first match's
      material engine: both searches then resolve captures past depth 3;
      ``deepchess-d4-vs-material-flat`` searches one ply deeper than the flat match, both
      engines to depth 4 without quiescence (the document's search, past depth 3).

    Runs are read from ``related_root`` (default: ``results/related`` beside the experts);
    a match whose run is absent is left out, and each match is labelled with its engines'
    weights checksums, so a retrained engine starts a new design instead of resuming."""
    root = (Path(related_root) if related_root is not None
            else Path(experts_root).resolve().parents[1] / "related")
    matches: list[MatchSpec] = []

    def present(kind: str, run: Path) -> bool:
        return (run / RELATED_WEIGHTS[kind]).is_file()

    def add(name: str, first: PlayerSpec, second: PlayerSpec, count: int,
            runs: tuple[tuple[str, Path], ...], sprt: SprtRule | None = None) -> None:
        labels = tuple((f"weights_{side}", _weights_label(kind, run))
                       for side, (kind, run) in zip(("first", "second"), runs, strict=False))
        matches.append(MatchSpec(name=name, first=first, second=second, pairs=count,
                                 openings_group=name,
                                 labels=(("kind", "related"), *labels), sprt=sprt))

    for run_name in ("ntuple", "ntuple-d2"):
        run = root / run_name
        if present("ntuple", run):
            add(f"{run_name}-vs-pesto",
                PlayerSpec(name=run_name, kind="ntuple", experts=str(run), nodes=400),
                PlayerSpec(name="pesto", kind="ntuple", experts=str(run), nodes=400,
                           options=(("Evaluation", "pesto"),)),
                ntuple_pairs, (("ntuple", run),))
    shallow, deep = root / "ntuple", root / "ntuple-d2"
    if present("ntuple", shallow) and present("ntuple", deep):
        # the document's Table IX (2-ply against 1-ply training, head to head)
        add("ntuple-d2-vs-ntuple",
            PlayerSpec(name="ntuple-d2", kind="ntuple", experts=str(deep), nodes=400),
            PlayerSpec(name="ntuple", kind="ntuple", experts=str(shallow), nodes=400),
            ntuple_pairs, (("ntuple", deep), ("ntuple", shallow)))
    mais, early = root / "mais", root / "mais" / "at-200-games"
    if present("mais", mais) and present("mais", early):
        add("mais-vs-mais-at-200",
            PlayerSpec(name="mais", kind="mais", experts=str(mais), nodes=1500),
            PlayerSpec(name="mais-at-200", kind="mais", experts=str(early), nodes=1500),
            pairs, (("mais", mais), ("mais", early)))
        add("mais-vs-mais-at-200-sprt",
            PlayerSpec(name="mais", kind="mais", experts=str(mais), nodes=1500),
            PlayerSpec(name="mais-at-200", kind="mais", experts=str(early), nodes=1500),
            MAIS_SPRT_PAIRS, (("mais", mais), ("mais", early)), sprt=MAIS_SPRT)
    deepchess = root / "deepchess"
    if present("deepchess", deepchess):
        add("deepchess-vs-material",
            PlayerSpec(name="deepchess", kind="deepchess", experts=str(deepchess), nodes=None,
                       options=(("Depth", 3),)),
            PlayerSpec(name="material", kind="ntuple", experts=None, nodes=None,
                       options=(("Evaluation", "material"), ("Depth", 3))),
            pairs, (("deepchess", deepchess),))
        add("deepchess-vs-material-flat",
            PlayerSpec(name="deepchess", kind="deepchess", experts=str(deepchess), nodes=None,
                       options=(("Depth", 3),)),
            PlayerSpec(name="material-flat", kind="ntuple", experts=None, nodes=None,
                       options=(("Evaluation", "material"), ("Depth", 3),
                                ("Quiescence", False))),
            pairs, (("deepchess", deepchess),))
        add("deepchess-quiet-vs-material",
            PlayerSpec(name="deepchess-quiet", kind="deepchess", experts=str(deepchess),
                       nodes=None, options=(("Depth", 3), ("Quiescence", True))),
            PlayerSpec(name="material", kind="ntuple", experts=None, nodes=None,
                       options=(("Evaluation", "material"), ("Depth", 3))),
            pairs, (("deepchess", deepchess),))
        add("deepchess-d4-vs-material-flat",
            PlayerSpec(name="deepchess-d4", kind="deepchess", experts=str(deepchess),
                       nodes=None, options=(("Depth", 4),)),
            PlayerSpec(name="material-d4-flat", kind="ntuple", experts=None, nodes=None,
                       options=(("Evaluation", "material"), ("Depth", 4),
                                ("Quiescence", False))),
            pairs, (("deepchess", deepchess),))
    return TournamentSpec("related", tuple(matches), openings="embedded", pairs_per_shard=10,
                          games_at_once=1, adjudication=Adjudication())


DESIGNS: dict[str, Callable[..., TournamentSpec]] = {"smoke": smoke_spec,
                                                       "small": small_spec,
                                                       "small-cutechess": small_cutechess_spec,
                                                       "powered": powered_spec,
                                                       "replicated": replicated_spec,
                                                       "ratings": ratings_claim_spec,
                                                       "ratings-cutechess": ratings_spec,
                                                       "related": related_spec,
                                                       "medium": medium_spec,
                                                       "settings": settings_spec,
                                                       "seeds-long": seeds_long_spec,
                                                       "matched": matched_spec,
                                                       "converged": converged_spec,
                                                       "precision": precision_spec,
                                                       "paper": paper_spec}


def build_design(name: str, experts_root: str | os.PathLike[str], *,
                 pairs: int | None = None) -> TournamentSpec:
    """The tournament design ``name`` over the bundles under ``experts_root``."""
    try:
        factory = DESIGNS[name]
    except KeyError:
        raise KitError(f"unknown tournament design {name!r}; known: "
                       f"{', '.join(DESIGNS)}") from None
    spec = factory(str(experts_root))
    return with_pairs(spec, pairs) if pairs else spec
