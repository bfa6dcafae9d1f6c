"""How a mixture of experts routes a mini-batch, named once (a light module: no torch).

``majority`` (the paper's): the phase with the most leaves picks the expert for the whole batch;
``split``: each phase's leaves go to their own expert; ``soft``: every expert evaluates the batch
and outputs are mixed by tapered phase memberships
(:class:`chessmoe.search.experts.MixtureEvaluator`).
"""

from __future__ import annotations

from typing import Literal

__all__ = ["ROUTINGS", "Routing"]

Routing = Literal["majority", "split", "soft"]
ROUTINGS: tuple[Routing, ...] = ("majority", "split", "soft")
