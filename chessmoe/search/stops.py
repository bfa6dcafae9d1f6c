"""What ``go depth N`` and ``go mate N`` mean to each search, said once.

Every search reports a *depth* and stops under :attr:`Limits.depth
<chessmoe.search.mcts.Limits>` when the depth it would report, :func:`reported_depth`, reaches
the limit. A *mate* is proven when the search's own tree or minimax shows it forced (the tree
searches' proof: :mod:`chessmoe.search.proof`); :attr:`SearchResult.mate
<chessmoe.search.mcts.SearchResult>` holds its distance in plies from the searched position,
positive when the side to move mates, negative when it is mated, ``None`` when none is proven.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["last_iteration", "mate_reached", "reported_depth"]


def reported_depth(depth: float) -> int:
    """The integer depth a search reports for its mean or finished ``depth`` (at least 1):
    what ``info depth`` prints and what ``go depth N`` is compared with.

    The depth each search means: MCTS (both tree searches), the mean depth below the root of
    the leaves this search expanded (Leela's ``info depth``), checked after each mini-batch;
    alpha-beta (n-tuple, DeepChess), the last iteration of the iterative deepening finished,
    so ``depth N`` is iteration ``N`` (the engine's own ``Depth`` setting does not cut it);
    best-first (MAIS), one more than the mean depth of the positions it expanded, i.e. the mean
    depth of the positions its expansions created, checked after each expansion."""
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
    move mates in at most ``moves`` moves (``2 moves - 1`` plies), or is mated. (Alpha-beta
    also stops after iteration ``2 moves - 1``, which finds every such mate: see
    :func:`last_iteration`.)"""
    return mate is not None and (mate < 0 or mate <= 2 * moves - 1)


class _DepthLimits(Protocol):
    """The two fields of :class:`chessmoe.search.mcts.Limits` read here."""

    @property
    def depth(self) -> int | None: ...

    @property
    def mate(self) -> int | None: ...
