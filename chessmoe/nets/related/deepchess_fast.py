"""DeepChess's comparator for the search, one position and one pair at a time in numpy.

The search (:mod:`chessmoe.search.alphabeta_compare`) asks ``better(a, b)`` one pair at a
time, and alpha-beta cuts most of the positions the torch comparator embeds ahead in a batch;
:class:`FastComparator` answers the same question without a torch call.
"""

from __future__ import annotations

import math

import chess
import numpy as np
from torch import nn

from chessmoe.nets.related.deepchess import (
    CASTLING_BITS,
    INPUT_BITS,
    SIDE_TO_MOVE_BIT,
    DeepChessNet,
)

__all__ = ["FastComparator", "active_bits"]

Key = tuple[int, ...]
_CASTLING = tuple(zip(CASTLING_BITS, range(SIDE_TO_MOVE_BIT + 1, INPUT_BITS), strict=True))


def active_bits(board: chess.Board) -> list[int]:
    """The indices of the set bits of the 773-bit encoding
    (:func:`~chessmoe.nets.related.deepchess.encode_batch`), ascending."""
    kinds = (board.pawns, board.knights, board.bishops, board.rooks, board.queens,
             board.kings)
    out: list[int] = []
    for mine, offset in ((board.occupied_co[chess.WHITE], 0),
                         (board.occupied_co[chess.BLACK], 384)):
        for kind in kinds:
            bits = kind & mine
            while bits:
                low = bits & -bits
                out.append(offset + low.bit_length() - 1)
                bits ^= low
            offset += 64
    if board.turn == chess.WHITE:
        out.append(SIDE_TO_MOVE_BIT)
    rights = board.castling_rights
    out += [bit for rook, bit in _CASTLING if rights & rook]
    return out


def _key(board: chess.Board) -> Key:
    """:func:`~chessmoe.nets.related.deepchess.board_key` (what the encoding sees)."""
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE], int(board.turn), board.castling_rights)


def _sigmoid(x: float) -> float:
    """1 / (1 + exp(-x)), 0 where exp(-x) overflows."""
    return 0.0 if x < -700.0 else 1.0 / (1.0 + math.exp(-x))


class FastComparator:
    """``better(a, b)``: is ``a`` better for White than ``b``, by the network (both orders
    averaged), in numpy; a drop-in for the search of
    :class:`~chessmoe.nets.related.deepchess.Comparator` without its ``prepare`` batches
    (only about one in seven of the positions that one embeds ahead -- every child of a node
    one ply above the horizon -- is ever compared).

    * a position is embedded when it is first compared, alone: the tower's first layer is the sum
      of the weight rows of its set input bits (about 35 of the 773: one per piece, the side to
      move and the castling rights), the other layers are small dense products; the code is then
      multiplied by the head's first layer as the first and as the second position of a pair
      (``W [ea; eb] = W_a ea + W_b eb``), so
    * a pair adds two stored vectors and runs the head's remaining small layers, both orders at
      once; the answer is the network's, both orders averaged, as the reference comparator's.

    The arithmetic is float64 where the reference's is float32 in another order: answers agree
    with the network's exact ones to about 1e-15 and with the reference's to its own rounding,
    within 1e-6 -- not bit for bit, so a decision could differ only for a pair the network finds
    even to that precision (tests compare decisions and whole searches on real positions). A
    position compared with itself (a transposition) is an exact tie, not better, as in the
    reference. Each pair is worked out in one fixed order of its two positions and a position's
    vectors depend on it alone, so an answer is a function of the pair, whatever the caches
    held: unlike the reference's, it does not move with the searches before it in a game.

    Each position's two projections and each pair's answer are kept until :meth:`clear`
    (a new game) or until ``cache_size`` of them are held (then that store starts over)."""

    prepare = None  # nothing to batch: the search need not build a node's children ahead

    def __init__(self, net: DeepChessNet, *, cache_size: int = 200_000) -> None:
        net = net.eval()
        self.cache_size = cache_size
        self.evaluations = 0  # head evaluations (pairs of orders) made
        self.embeddings = 0  # tower evaluations made
        self._vectors: dict[Key, np.ndarray] = {}
        self._answers: dict[tuple[Key, Key], float] = {}

        # Every layer carries a constant 1 in an extra last column, so its bias is one more
        # row of its weights: a layer is one product (x @ [[W.T, 0], [b, 1]]) and a ReLU.
        def augmented(layer: nn.Linear) -> np.ndarray:
            weight = layer.weight.detach().double().numpy()
            out = np.zeros((weight.shape[1] + 1, weight.shape[0] + 1))
            out[:-1, :-1] = weight.T
            out[-1, :-1] = layer.bias.detach().double().numpy()
            out[-1, -1] = 1.0
            return out

        tower = [augmented(layer) for layer in net.tower.layers]  # type: ignore[arg-type]
        # the first layer as rows to add: one a set input bit, the last the bias (and the 1)
        self._first_rows = tower[0]
        self._bias_row = INPUT_BITS
        self._tower = tower[1:]
        head = [augmented(m) for m in net.head if isinstance(m, nn.Linear)]
        first = head[0]  # [2 code + 1, hidden + 1]
        code, hidden = (first.shape[0] - 1) // 2, first.shape[1] - 1
        # a position's code times the head's first layer as the pair's first position (with
        # the bias and the 1) and as its second: [first | second], so the pair's two orders
        # (a, b) and (b, a) are a's [first, second] plus b's [second, first]
        projection = np.zeros((code + 1, 2, hidden + 1))
        projection[:code, 0] = first[:code]
        projection[code, 0] = first[-1]  # the bias row, whose last entry is the 1
        projection[:code, 1, :-1] = first[code:-1, :-1]
        self._projection = projection.reshape(code + 1, 2 * (hidden + 1))
        self._hidden = hidden + 1
        self._middle = head[1:-1]
        # softmax class 0 of the two logits = sigmoid(logit 0 - logit 1)
        last = head[-1]
        self._margin = np.ascontiguousarray(last[:, 0] - last[:, 1])

    def clear(self) -> None:
        self._vectors.clear()
        self._answers.clear()

    def _vectors_of(self, board: chess.Board, key: Key) -> np.ndarray:
        """``[first, second]``: the position's code times the head's first layer as the
        pair's first position (the layer's bias and the constant 1 added) and as its
        second."""
        found = self._vectors.get(key)
        if found is not None:
            return found
        rows = active_bits(board)
        rows.append(self._bias_row)
        x = np.add.reduce(self._first_rows.take(rows, axis=0), axis=0)
        np.maximum(x, 0.0, out=x)
        for layer in self._tower:
            x = x @ layer
            np.maximum(x, 0.0, out=x)
        vectors: np.ndarray = (x @ self._projection).reshape(2, self._hidden)
        if len(self._vectors) >= self.cache_size:
            self._vectors.clear()
        self._vectors[key] = vectors
        self.embeddings += 1
        return vectors

    def probability(self, a: chess.Board, b: chess.Board) -> float:
        """P(``a`` is better for White than ``b``) = (p(a, b) + 1 - p(b, a)) / 2."""
        ka, kb = _key(a), _key(b)
        cached = self._answers.get((ka, kb))
        if cached is not None:
            return cached
        if ka == kb:
            self._remember(ka, kb, 0.5)  # the same position: neither is better
            return 0.5
        # worked out for the pair in one order whichever is asked first, so an answer is
        # the same whatever the caches held before
        if ka < kb:
            value = self._network(a, ka, b, kb)
            self._remember(ka, kb, value)
            return value
        value = self._network(b, kb, a, ka)
        self._remember(kb, ka, value)
        return 1.0 - value

    def _remember(self, ka: Key, kb: Key, value: float) -> None:
        if len(self._answers) >= self.cache_size:
            self._answers.clear()
        self._answers[(ka, kb)] = value
        self._answers[(kb, ka)] = 1.0 - value

    def _network(self, a: chess.Board, ka: Key, b: chess.Board, kb: Key) -> float:
        """The network's P(``a`` better for White than ``b``), both orders averaged."""
        # rows (a, b) and (b, a): a's first + b's second, b's first + a's second
        rows = self._vectors_of(a, ka) + self._vectors_of(b, kb)[::-1]
        np.maximum(rows, 0.0, out=rows)
        for layer in self._middle:
            rows = rows @ layer
            np.maximum(rows, 0.0, out=rows)
        ab, ba = (rows @ self._margin).tolist()
        self.evaluations += 1
        return 0.5 * (_sigmoid(ab) + 1.0 - _sigmoid(ba))

    def better(self, a: chess.Board, b: chess.Board) -> bool:
        return self.probability(a, b) > 0.5
