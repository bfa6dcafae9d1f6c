"""PUCT is defined once (chessmoe.search.puct): the Python search runs it, the compiled tree
compiles it, and both choose the same child; the scores shown for inspection rank the
children as the selection does."""

from __future__ import annotations

import random

import chess
import numpy as np

from chessmoe.search import puct
from chessmoe.search.mcts import MCTS, Node, SearchConfig, UniformEvaluator, puct_scores
from chessmoe.search.native.tree import select_child


def _children(rng: random.Random) -> tuple[list[int], list[float], list[float], int]:
    """Children in descending prior order, a visited prefix, a node's visits (0 and 1
    included), priors with ties."""
    count = rng.randint(1, 40)
    priors = sorted((rng.choice([0.0, 0.25, rng.random()]) for _ in range(count)), reverse=True)
    visited = rng.randint(0, count)
    n = [rng.randint(1, 30) for _ in range(visited)] + [0] * (count - visited)
    w = [rng.uniform(-1, 1) * k for k in n]
    visits = rng.choice([0, 1, 2, sum(n), sum(n) + 1])
    return n, w, priors, visits


def test_the_compiled_tree_compiles_the_same_rule() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        n, w, p, visits = _children(rng)
        pad = rng.randint(0, 3)  # children start anywhere in the tree's columns
        columns = (np.array([7] * pad + n, dtype=np.int64),
                   np.array([0.5] * pad + w, dtype=np.float64),
                   np.array([0.9] * pad + p, dtype=np.float64))
        expected = puct.select(n, w, p, 0, len(n), visits, 2.5, 19652.0, -1.0)
        assert select_child(*columns, pad, len(n), visits, 2.5, 19652.0, -1.0) == expected


def test_the_search_selects_the_child_of_highest_score() -> None:
    """The first child of highest :func:`puct_scores` is the one :meth:`MCTS._select` takes,
    at every visit count (below two visits ``sqrt(N)`` reads as 1 in both)."""
    rng = random.Random(6)
    search = MCTS(UniformEvaluator(), SearchConfig())
    for _ in range(2000):
        n, w, p, visits = _children(rng)
        node = Node(chess.Board(), None, None, 0)
        node.child_n, node.child_w, node.priors, node.visits = n, w, p, visits
        scores = puct_scores(node, search.config)
        assert search._select(node) == scores.index(max(scores))
