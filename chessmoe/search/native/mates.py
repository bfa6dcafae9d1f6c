"""Mates proven in the compiled search's tree: the rule of :mod:`chessmoe.search.proof`, the
Python search's own source, compiled with its tree accessors bound to the arrays of
:mod:`chessmoe.search.native.tree` (a node is a row of ``ni``; ``tree`` is ``(ni, nv, ei)``)."""

from __future__ import annotations

from typing import cast

import numpy as np

from chessmoe.search import proof
from chessmoe.search.native.jit import compiled_rebound, inlined
from chessmoe.search.native.tree import COUNT, E_CHILD, EXPANDED, FIRST, FLAGS, TERMINAL

__all__ = ["prove", "tree_mate"]

Tree = tuple[np.ndarray, np.ndarray, np.ndarray]


@inlined
def _terminal(tree: Tree, node: int) -> bool:
    return bool(tree[0][node, FLAGS] & TERMINAL)


@inlined
def _checkmated(tree: Tree, node: int) -> bool:
    return bool(tree[1][node] <= -1.0)


@inlined
def _expanded(tree: Tree, node: int) -> bool:
    return bool(tree[0][node, FLAGS] & EXPANDED)


@inlined
def _count(tree: Tree, node: int) -> int:
    return int(tree[0][node, COUNT])


@inlined
def _child(tree: Tree, node: int, k: int) -> int:
    return int(tree[2][tree[0][node, FIRST] + k, E_CHILD])


@inlined
def _present(child: int) -> bool:
    return child >= 0


_bound = compiled_rebound(proof, compile=("_full", "_may_lose", "prove"), keep=("tree_mate",),
                          bindings={name: globals()[name] for name in proof.TREE_ACCESSORS})
prove = _bound["prove"]


def tree_mate(ni: np.ndarray, nv: np.ndarray, ei: np.ndarray, root: int, best: int,
              plies: int) -> int | None:
    """:func:`chessmoe.search.proof.tree_mate` over the arrays: the proven mate (signed plies)
    of playing the root's edge ``best``."""
    return cast(int | None, _bound["tree_mate"]((ni, nv, ei), root, best, plies))
