"""What ``go depth N`` and ``go mate N`` mean to each search, and mate distances, said once.

Every search reports a *depth* (:attr:`SearchResult.depth <chessmoe.search.mcts.SearchResult>`)
and stops under :attr:`Limits.depth <chessmoe.search.mcts.Limits>` when the depth it would
report, :func:`reported_depth`, reaches the limit:

* MCTS (both tree searches): the mean depth, below the root, of the leaves this search
  expanded (Leela's ``info depth``), checked after each mini-batch;
* alpha-beta (n-tuple, DeepChess): the last iteration of the iterative deepening finished,
  so ``depth N`` is the iteration ``N`` (the engine's own ``Depth`` setting does not cut it);
* best-first (MAIS): one more than the mean depth of the positions it expanded, i.e. the mean
  depth of the positions its expansions created, checked after each expansion.

A *mate* is proven when the search's own tree or minimax shows it forced: :attr:`SearchResult.mate`
holds its distance in plies from the searched position, positive when the side to move mates,
negative when it is mated, ``None`` when no mate is proven. Under :attr:`Limits.mate` a search
stops once it has proven a mate in at most ``N`` moves (``2 N - 1`` plies) for the side to
move, or that the side to move is mated; alpha-beta also stops after iteration ``2 N - 1``,
which finds every mate in ``N`` there is.

For MCTS the proof is read from the tree (:func:`tree_mate`): a node is won when one of its
children is lost, and lost when every one of its moves has a child node and each is won; a
checkmate is lost in 0 plies. Draws by rule are not mates. The compiled search reads its
arrays the same way (:mod:`chessmoe.search.native.mates`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["MATE_PROOF_PLIES", "ProofNode", "last_iteration", "mate_reached", "prove",
           "reported_depth", "tree_mate"]

MATE_PROOF_PLIES = 128
"""The longest mate (in plies) a tree proof looks for (bounds the proof's recursion)."""


def reported_depth(depth: float) -> int:
    """The integer depth a search reports for its mean or finished ``depth`` (at least 1):
    what ``info depth`` prints and what ``go depth N`` is compared with."""
    return max(1, round(depth))


def last_iteration(max_depth: int, limits: _DepthLimits | None) -> int:
    """The deepest iteration an iterative-deepening search runs: ``limits.depth`` when given
    (in place of its own ``max_depth``), else ``max_depth``; no deeper than ``2 mate - 1``
    under ``limits.mate`` (a full-width search that deep finds every mate in ``mate``)."""
    if limits is None:
        return max_depth
    last = max_depth if limits.depth is None else limits.depth
    if limits.mate is not None:
        last = 2 * limits.mate - 1 if limits.depth is None else min(last, 2 * limits.mate - 1)
    return last


def mate_reached(mate: int | None, moves: int) -> bool:
    """Whether a proven ``mate`` (signed plies) ends a ``go mate moves`` search: the side to
    move mates in at most ``moves`` moves, or is mated."""
    return mate is not None and (mate < 0 or mate <= 2 * moves - 1)


class _DepthLimits(Protocol):
    """The two fields of :class:`chessmoe.search.mcts.Limits` read here."""

    @property
    def depth(self) -> int | None: ...

    @property
    def mate(self) -> int | None: ...


class ProofNode(Protocol):
    """What :func:`prove` reads of a node of the Python tree
    (:class:`chessmoe.search.mcts.Node`)."""

    @property
    def terminal(self) -> bool: ...

    @property
    def terminal_value(self) -> float: ...

    @property
    def expanded(self) -> bool: ...

    @property
    def children(self) -> Sequence[ProofNode | None]: ...


# A proof's answer for a node: 0 unknown, r > 0 the side to move mates in r plies, r < 0 it is
# mated in -r - 1 plies (-1: checkmated now).


def _full(node: ProofNode) -> bool:
    return all(child is not None for child in node.children)


def _may_lose(node: ProofNode) -> bool:
    """Only a checkmate, or an expanded node all of whose moves have a child, can be lost."""
    return node.terminal or (node.expanded and _full(node))


def prove(node: ProofNode, plies: int) -> int:
    """The mate proven for ``node``'s side to move within ``plies`` plies (see above)."""
    if node.terminal:
        return -1 if node.terminal_value <= -1.0 else 0
    if not node.expanded or plies <= 0:
        return 0
    full = _full(node)
    win = 0
    longest = 0
    lost = full
    for child in node.children:
        if child is None or not (full or _may_lose(child)):
            continue
        answer = prove(child, plies - 1)
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


def tree_mate(root: ProofNode, best: int, plies: int = MATE_PROOF_PLIES) -> int | None:
    """The proven mate (signed plies from ``root``) of playing child ``best``: positive when
    that child is lost for the opponent, negative when it is won for the opponent and every
    other move of ``root`` is too; ``None`` otherwise."""
    child = root.children[best] if 0 <= best < len(root.children) else None
    if child is None:
        return None
    answer = prove(child, plies - 1)
    if answer < 0:
        return -answer  # the child's loss in -answer - 1 plies: our mate in -answer
    if answer > 0 and prove(root, plies) < 0:
        return -(answer + 1)
    return None
