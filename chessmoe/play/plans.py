"""The designs' plans as tournaments: each side of a :class:`~chessmoe.designs.base.Pairing`
becomes the kit's MCTS player searching with its bundle under the experts root, each plan a
:class:`~chessmoe.play.tournament.TournamentSpec` on the embedded openings.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from chessmoe.designs.base import Plan, Side
from chessmoe.play.match import Adjudication, PlayerSpec
from chessmoe.play.tournament import MatchSpec, TournamentSpec
from chessmoe.search.evaluators import EvaluatorSpec

__all__ = ["CLAIM_RULES", "mcts_player", "tournament_of"]

#: The claim reading of the draw rules (a game ends once a draw *could* be claimed): the
#: small, powered and ratings tournaments are played under it, so their designs resume and
#: reproduce their committed games; the other designs use ``Adjudication()`` (cutechess's).
CLAIM_RULES = Adjudication(draw_rules="claim")


def mcts_player(name: str, bundle: str, batch: int, nodes: int | None, movetime: int | None,
                **evaluator: Any) -> PlayerSpec:
    """The kit's MCTS player of ``bundle``; ``evaluator``: further fields of its
    :class:`EvaluatorSpec` over a tournament player's defaults (:meth:`EvaluatorSpec.recorded`)."""
    return PlayerSpec.mcts(name, EvaluatorSpec.recorded(network=bundle, **evaluator),
                           batch_size=batch, nodes=nodes, movetime_ms=movetime)


def _player(side: Side, root: Path, backend: str) -> PlayerSpec:
    evaluator: dict[str, Any] = {key: value for key, value in
                                 (("single_expert", side.single_expert),
                                  ("routing", side.routing), ("gate", side.gate))
                                 if value is not None}
    if side.baseline is not None:
        evaluator["baseline"] = str(root / side.baseline)
    return mcts_player(side.name, str(root / side.bundle), side.batch, side.nodes,
                       side.movetime, backend=backend, **evaluator)


def tournament_of(plan: Plan, experts_root: str | os.PathLike[str], *,
                  backend: str = "onnx") -> TournamentSpec:
    """``plan`` over the bundles under ``experts_root``, its networks on ``backend``."""
    root = Path(experts_root)
    matches = tuple(MatchSpec(name=m.name, first=_player(m.first, root, backend),
                              second=_player(m.second, root, backend), pairs=m.pairs,
                              labels=m.labels, openings_group=m.group) for m in plan.matches)
    return TournamentSpec(plan.name, matches, openings="embedded",
                          pairs_per_shard=plan.pairs_per_shard, games_at_once=plan.games_at_once,
                          adjudication=CLAIM_RULES if plan.draw_rules == "claim"
                          else Adjudication())
