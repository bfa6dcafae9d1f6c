"""Every tournament design the kit plays, by name: :data:`DESIGNS` names them and
:func:`build_design` builds one over an experts directory as a
:class:`~chessmoe.play.tournament.TournamentSpec` (its matches, openings, seed and draw
rules). Running a design, resuming it and summarising it is :mod:`chessmoe.play.tournament`'s.

The registered designs (:mod:`chessmoe.designs.registry`: powered, replicated, settings,
seeds-long, matched, converged, ...) declare their matches as plans (:mod:`chessmoe.play.plans`
builds them); the paper's grids, the medium tournament and the precision checks are
:mod:`chessmoe.play.grids`', the other engines' tournaments :mod:`chessmoe.play.rosters`'.
:func:`untrained` names the bundles a design still needs.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from chessmoe._io.errors import KitError
from chessmoe.designs.registry import REGISTERED, design
from chessmoe.play.grids import (
    medium_spec,
    paper_spec,
    precision_spec,
    small_cutechess_spec,
    small_spec,
    smoke_spec,
)
from chessmoe.play.plans import tournament_of
from chessmoe.play.rosters import ratings_claim_spec, ratings_spec, related_spec
from chessmoe.play.tournament import TournamentSpec, with_pairs

__all__ = ["DESIGNS", "build_design", "registered_spec", "trained_only", "untrained"]


def registered_spec(name: str, experts_root: str | os.PathLike[str], *,
                    backend: str = "onnx", **options: Any) -> TournamentSpec:
    """The registered design ``name`` over the bundles under ``experts_root``; ``options``:
    its plan's (``pairs=``, ...)."""
    return tournament_of(design(name).plan(experts_root, **options), experts_root,
                         backend=backend)


DESIGNS: dict[str, Callable[..., TournamentSpec]] = {
    "smoke": smoke_spec, "small": small_spec, "small-cutechess": small_cutechess_spec,
    **{d.name: partial(registered_spec, d.name) for d in REGISTERED},
    "precision": precision_spec,
    "ratings": ratings_claim_spec, "ratings-cutechess": ratings_spec, "related": related_spec,
    "medium": medium_spec, "paper": paper_spec}


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


def trained_only(spec: TournamentSpec) -> TournamentSpec:
    """``spec`` restricted to the matches whose bundles are all trained (:func:`untrained`
    finds none of theirs), in the design's order: a design whose networks are trained over
    days plays each match as soon as both its engines exist."""
    return replace(spec, matches=tuple(m for m in spec.matches
                                       if not untrained(replace(spec, matches=(m,)))))
