"""Mates proven in the compiled search's tree: :func:`chessmoe.search.stops.prove` over the
arrays of :mod:`chessmoe.search.native.tree` (same rule, same answers; see that module).

An answer is 0 (unknown), ``r > 0`` (the side to move mates in ``r`` plies) or ``r < 0`` (it is
mated in ``-r - 1`` plies).
"""

from __future__ import annotations

import numpy as np

from chessmoe.search.native.jit import compiled
from chessmoe.search.native.tree import COUNT, E_CHILD, EXPANDED, FIRST, FLAGS, TERMINAL

__all__ = ["prove", "tree_mate"]


@compiled
def _full(ni: np.ndarray, ei: np.ndarray, node: int) -> bool:
    first = ni[node, FIRST]
    for k in range(ni[node, COUNT]):  # noqa: SIM110 (a loop numba compiles)
        if ei[first + k, E_CHILD] < 0:
            return False
    return True


@compiled
def _may_lose(ni: np.ndarray, ei: np.ndarray, node: int) -> bool:
    flags = ni[node, FLAGS]
    if flags & TERMINAL:
        return True
    return bool(flags & EXPANDED) and _full(ni, ei, node)


@compiled
def prove(ni: np.ndarray, nv: np.ndarray, ei: np.ndarray, node: int, plies: int) -> int:
    """The mate proven for ``node``'s side to move within ``plies`` plies."""
    flags = ni[node, FLAGS]
    if flags & TERMINAL:
        return -1 if nv[node] <= -1.0 else 0
    if not (flags & EXPANDED) or plies <= 0:
        return 0
    full = _full(ni, ei, node)
    win = 0
    longest = 0
    lost = full
    first = ni[node, FIRST]
    for k in range(ni[node, COUNT]):
        child = ei[first + k, E_CHILD]
        if child < 0 or not (full or _may_lose(ni, ei, child)):
            continue
        answer = prove(ni, nv, ei, child, plies - 1)
        if answer < 0:
            distance = -answer
            win = distance if win == 0 else min(win, distance)
            lost = False
        elif answer > 0:
            longest = max(longest, answer + 1)
        else:
            lost = False
    if win:
        return win
    return -longest - 1 if lost else 0


def tree_mate(ni: np.ndarray, nv: np.ndarray, ei: np.ndarray, root: int, best: int,
              plies: int) -> int | None:
    """:func:`chessmoe.search.stops.tree_mate` over the arrays: the proven mate (signed
    plies) of playing the root's edge ``best``."""
    child = int(ei[int(ni[root, FIRST]) + best, E_CHILD])
    if child < 0:
        return None
    answer = int(prove(ni, nv, ei, child, plies - 1))
    if answer < 0:
        return -answer
    if answer > 0 and int(prove(ni, nv, ei, root, plies)) < 0:
        return -(answer + 1)
    return None
