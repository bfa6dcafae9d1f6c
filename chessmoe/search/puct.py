"""The PUCT selection rule, written once (paper App. E.1, ClassicAra's constants).

The Python search (:class:`chessmoe.search.mcts.MCTS`) runs these functions as they are, over
lists; the compiled tree (:mod:`chessmoe.search.native.tree`) compiles this same source with
numba, over array views. Plain Python and ``math`` only, so both read one definition.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

__all__ = ["Column", "exploration", "scale", "score", "select"]


class Column(Protocol):
    """The children's visits, value sums or priors: a list, or a column of the tree's arrays."""

    def __getitem__(self, index: int, /) -> Any: ...


def exploration(visits: int, c_init: float = 2.5, c_base: float = 19652.0) -> float:
    """The growing exploration constant ``c(N) = ln((N + c_base + 1) / c_base) + c_init``."""
    return math.log((visits + c_base + 1) / c_base) + c_init


def scale(visits: int, c_init: float, c_base: float) -> float:
    """``c(N) * sqrt(N)``, the factor of every child's prior term (``sqrt(N)`` read as 1
    below two visits, so a node's first children are told apart by their priors)."""
    return exploration(visits, c_init, c_base) * (math.sqrt(visits) if visits > 1 else 1.0)


def score(w: float, n: int, prior: float, c: float, unvisited_q: float) -> float:
    """A child's PUCT score ``Q + c * P / (1 + n)``: ``Q = w / n``, or ``unvisited_q``
    for a child never visited; ``c`` is :func:`scale` of its parent."""
    return (w / n if n else unvisited_q) + c * prior / (1 + n)


def select(n: Column, w: Column, p: Column, first: int, count: int, visits: int,
           c_init: float, c_base: float, unvisited_q: float) -> int:
    """The child of highest :func:`score` (the first of equals; 0 for the one at ``first``)
    among ``count`` children at ``first...`` of ``n`` (visits), ``w`` (value sums) and ``p``
    (priors), kept in descending prior order, whose visited children are therefore a prefix:
    the visited ones are scanned, then only the first unvisited one can beat them."""
    c = scale(visits, c_init, c_base)
    best = -math.inf
    choice = 0
    k = 0
    while k < count:
        nk = n[first + k]
        if nk == 0:
            break
        value = score(w[first + k], nk, p[first + k], c, unvisited_q)
        if value > best:
            best = value
            choice = k
        k += 1
    if k < count and score(0.0, 0, p[first + k], c, unvisited_q) > best:
        choice = k
    return choice
