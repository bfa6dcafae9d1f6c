"""The registered tournament designs, in the order every reader iterates them.

A new design is one module of this package declaring its :class:`~chessmoe.designs.base.Design`
as ``DESIGN``, and one line here (``docs/layers.md`` walks through an example). The order is
the order of the profiles and of the claims table's rows, sources and notes.
"""

from __future__ import annotations

from chessmoe._io.errors import KitError
from chessmoe.designs import (
    converged,
    matched,
    powered,
    replicated,
    scale,
    seeds_long,
    settings,
)
from chessmoe.designs.base import Design

__all__ = ["MAIN", "REGISTERED", "design"]

REGISTERED: tuple[Design, ...] = (powered.DESIGN, replicated.DESIGN, settings.DESIGN,
                                  seeds_long.DESIGN, matched.DESIGN, converged.DESIGN,
                                  scale.DESIGN)
#: The design whose tournament is the claims table's first argument (its main arms).
MAIN = powered.DESIGN.name


def design(name: str) -> Design:
    """The registered design ``name`` (a one-line error listing the known ones otherwise)."""
    for known in REGISTERED:
        if known.name == name:
            return known
    raise KitError(f"unknown registered design {name!r}; known: "
                   f"{', '.join(d.name for d in REGISTERED)}")
