"""Mates proven in a search tree, the rule written once (:mod:`chessmoe.search.stops` says what a
proven mate means to each search).

The Python search (:class:`chessmoe.search.mcts.MCTS`) runs :func:`prove` and :func:`tree_mate`
as they are, over its :class:`ProofNode` objects; the compiled tree
(:mod:`chessmoe.search.native.mates`) compiles this same source with numba, the tree accessors
(``_terminal``, ``_checkmated``, ``_expanded``, ``_count``, ``_child``, ``_present``) bound to
versions over its arrays. Plain Python through those accessors only, so both read one definition.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["MATE_PROOF_PLIES", "TREE_ACCESSORS", "ProofNode", "prove", "tree_mate"]

MATE_PROOF_PLIES = 128
"""The longest mate (in plies) a tree proof looks for (bounds the proof's recursion)."""

#: The names through which the rule reads a tree; the compiled search binds each to its arrays.
TREE_ACCESSORS = ("_terminal", "_checkmated", "_expanded", "_count", "_child", "_present")


class ProofNode(Protocol):
    """What the proof reads of a node of the Python tree (:class:`chessmoe.search.mcts.Node`)."""

    @property
    def terminal(self) -> bool: ...

    @property
    def terminal_value(self) -> float: ...

    @property
    def expanded(self) -> bool: ...

    @property
    def children(self) -> Sequence[ProofNode | None]: ...


# --- the Python tree's accessors: ``tree`` is unused (a node carries its children) ----------


def _terminal(tree: object, node: ProofNode) -> bool:
    return node.terminal


def _checkmated(tree: object, node: ProofNode) -> bool:
    return node.terminal_value <= -1.0


def _expanded(tree: object, node: ProofNode) -> bool:
    return node.expanded


def _count(tree: object, node: ProofNode) -> int:
    return len(node.children)


def _child(tree: object, node: ProofNode, k: int) -> ProofNode | None:
    return node.children[k]


def _present(child: ProofNode | None) -> bool:
    return child is not None


# --- the rule -------------------------------------------------------------------------------
# A proof's answer for a node: 0 unknown, r > 0 the side to move mates in r plies, r < 0 it is
# mated in -r - 1 plies (-1: checkmated now). A node is won when one of its children is lost,
# and lost when every one of its moves has a child node and each is won; draws are not mates.


def _full(tree: object, node: ProofNode) -> bool:
    """Whether every move of ``node`` has a child node."""
    for k in range(_count(tree, node)):  # noqa: SIM110 (a loop numba compiles)
        if not _present(_child(tree, node, k)):
            return False
    return True


def _may_lose(tree: object, node: ProofNode) -> bool:
    """Only a checkmate, or an expanded node all of whose moves have a child, can be lost."""
    if _terminal(tree, node):
        return True
    return _expanded(tree, node) and _full(tree, node)


def prove(tree: object, node: ProofNode, plies: int) -> int:
    """The mate proven for ``node``'s side to move within ``plies`` plies (see above)."""
    if _terminal(tree, node):
        return -1 if _checkmated(tree, node) else 0
    if not _expanded(tree, node) or plies <= 0:
        return 0
    full = _full(tree, node)
    win = 0
    longest = 0
    lost = full
    for k in range(_count(tree, node)):
        child = _child(tree, node, k)
        if not _present(child) or not (full or _may_lose(tree, child)):  # type: ignore[arg-type]
            continue
        answer = prove(tree, child, plies - 1)  # type: ignore[arg-type]
        if answer < 0:
            distance = -answer  # the child's loss in -answer - 1 plies, one more from here
            win = distance if win == 0 else min(win, distance)
            lost = False
        elif answer > 0:
            longest = max(longest, answer + 1)
        else:
            lost = False
    if win:
        return win
    return -longest - 1 if lost else 0


def tree_mate(tree: object, root: ProofNode, best: int,
              plies: int = MATE_PROOF_PLIES) -> int | None:
    """The proven mate (signed plies from ``root``) of playing its move ``best``: positive
    when that child is lost for the opponent, negative when it is won for the opponent and
    every other move of ``root`` is too; ``None`` otherwise."""
    if not 0 <= best < _count(tree, root):
        return None
    child = _child(tree, root, best)
    if not _present(child):
        return None
    answer = int(prove(tree, child, plies - 1))  # type: ignore[arg-type]
    if answer < 0:
        return -answer  # the child's loss in -answer - 1 plies: our mate in -answer
    if answer > 0 and int(prove(tree, root, plies)) < 0:
        return -(answer + 1)
    return None
