"""DeepChess's comparator for the search, one position and one pair at a time in numpy.

The search (:mod:`chessmoe.search.alphabeta_compare`) asks ``better(a, b)`` one pair at a
time, and only about one in seven of the positions that :class:`~chessmoe.nets.related.
deepchess.Comparator` embeds ahead (every child of a node one ply above the horizon, in one
torch batch) is ever compared: alpha-beta cuts the rest. :class:`FastComparator` answers the
same question without a torch call:

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
"""

from __future__ import annotations

import math

import chess
import numpy as np
from torch import nn

from chessmoe.nets.related.deepchess import CASTLING_BITS, SIDE_TO_MOVE_BIT, DeepChessNet

__all__ = ["FastComparator", "active_bits"]

_KINDS = ("pawns", "knights", "bishops", "rooks", "queens", "kings")
Key = tuple[int, ...]


def active_bits(board: chess.Board) -> list[int]:
    """The indices of the set bits of the 773-bit encoding
    (:func:`~chessmoe.nets.related.deepchess.encode_batch`), ascending."""
    out: list[int] = []
    for color, offset in ((chess.WHITE, 0), (chess.BLACK, 384)):
        mine = board.occupied_co[color]
        for kind, name in enumerate(_KINDS):
            base = offset + 64 * kind
            out += [base + square for square in chess.scan_forward(getattr(board, name) & mine)]
    if board.turn == chess.WHITE:
        out.append(SIDE_TO_MOVE_BIT)
    rights = board.castling_rights
    out += [SIDE_TO_MOVE_BIT + 1 + index for index, rook in enumerate(CASTLING_BITS)
            if rights & rook]
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
    averaged), in numpy (see the module doc); a drop-in for the search of
    :class:`~chessmoe.nets.related.deepchess.Comparator` without its ``prepare`` batches.

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

        def arrays(layer: nn.Linear) -> tuple[np.ndarray, np.ndarray]:
            return (np.ascontiguousarray(layer.weight.detach().double().numpy().T),
                    layer.bias.detach().double().numpy().copy())

        tower = [arrays(layer) for layer in net.tower.layers]  # type: ignore[arg-type]
        self._first_rows, self._first_bias = tower[0]  # [773, hidden]: one row a bit
        self._tower = tower[1:]
        head = [arrays(m) for m in net.head if isinstance(m, nn.Linear)]
        weight, bias = head[0]  # [2 code, hidden]
        code = weight.shape[0] // 2
        # a position's code times the first layer's half for the first position (bias
        # included) and for the second: one pair's two orders add [first_a | second_a] and
        # [second_b | first_b] (the halves swapped) into both rows of the hidden layer
        self._projection = np.ascontiguousarray(np.concatenate([weight[:code], weight[code:]],
                                                               axis=1))  # [code, 2 hidden]
        self._head_bias = bias
        self._hidden = weight.shape[1]
        self._middle = head[1:-1]
        out_weight, out_bias = head[-1]  # [hidden, 2]: softmax class 0 = logit 0 - logit 1
        self._margin = np.ascontiguousarray(out_weight[:, 0] - out_weight[:, 1])
        self._margin_bias = float(out_bias[0] - out_bias[1])

    def clear(self) -> None:
        self._vectors.clear()
        self._answers.clear()

    def _vectors_of(self, board: chess.Board, key: Key) -> np.ndarray:
        """``[first, second]``: the position's code times the head's first layer as the
        pair's first position (the layer's bias added) and as its second."""
        found = self._vectors.get(key)
        if found is not None:
            return found
        x = self._first_rows[active_bits(board)].sum(axis=0)
        x += self._first_bias
        np.maximum(x, 0.0, out=x)
        for weight, bias in self._tower:
            x = x @ weight
            x += bias
            np.maximum(x, 0.0, out=x)
        vectors: np.ndarray = (x @ self._projection).reshape(2, self._hidden)
        vectors[0] += self._head_bias
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
        for weight, bias in self._middle:
            rows = rows @ weight
            rows += bias
            np.maximum(rows, 0.0, out=rows)
        # softmax class 0 of two logits: 1 / (1 + exp(logit 1 - logit 0))
        ab, ba = (rows @ self._margin).tolist()
        self.evaluations += 1
        return 0.5 * (_sigmoid(ab + self._margin_bias) + 1.0 - _sigmoid(ba + self._margin_bias))

    def better(self, a: chess.Board, b: chess.Board) -> bool:
        return self.probability(a, b) > 0.5
