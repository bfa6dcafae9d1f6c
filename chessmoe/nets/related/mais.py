"""The self-play value network of the MAIS 202 document (related-selfplay-value-search.md),
with the document's numbers: the signed one-hot input (:func:`encode`), the network
(:class:`MaisNet`, predicting Q from White's point of view in the naive evaluation's
centipawns), the naive evaluation of the document's ``static_board_evaluation.py``
(:func:`naive_eval`), the targets ``Q(S_t) = naive_eval(S_t) + 0.9 Q(S_t+1)`` along a played
game (:func:`q_targets`) and Adam on the mean squared error, 5 epochs a call (:func:`fit`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import chess
import numpy as np
import torch
from torch import nn

from chessmoe._io.fsutil import atomic_path
from chessmoe.nets.related import load_state

__all__ = [
    "CHECK_BONUS",
    "GAMMA",
    "MATE_SCORE",
    "OUTPUT_SCALE",
    "PIECE_VALUES",
    "MaisNet",
    "encode",
    "encode_batch",
    "fit",
    "load_weights",
    "mean_absolute_error",
    "naive_eval",
    "predict",
    "predict_planes",
    "q_targets",
    "save_weights",
]

GAMMA = 0.9
MATE_SCORE = 20000.0  # the king's value: what a checkmate is worth
CHECK_BONUS = 50.0  # per piece giving check
# The output layer is followed by this fixed factor: targets reach tens of thousands of
# centipawns, and the factor keeps the weights' gradients in a usual range without changing
# what the network can represent.
OUTPUT_SCALE = 1000.0
PIECE_VALUES: dict[chess.PieceType, float] = {
    chess.PAWN: 100.0, chess.KNIGHT: 320.0, chess.BISHOP: 330.0, chess.ROOK: 500.0,
    chess.QUEEN: 900.0,
}
_ENDGAME_PIECES = 12  # at or below this many non-king pieces the king uses its late table


def _table(rows: str) -> np.ndarray:
    """A White piece-square table written rank 1 first (index = python-chess square)."""
    values = [int(v) for v in rows.split()]
    assert len(values) == 64
    return np.array(values, dtype=np.float64)


_PST: dict[chess.PieceType, np.ndarray] = {
    chess.PAWN: _table("""
        0 0 0 0 0 0 0 0
        5 10 10 -25 -25 10 10 5
        5 -5 -10 0 0 -10 -5 5
        0 0 0 25 25 0 0 0
        5 5 10 27 27 10 5 5
        10 10 20 30 30 20 10 10
        50 50 50 50 50 50 50 50
        0 0 0 0 0 0 0 0"""),
    chess.KNIGHT: _table("""
        -50 -40 -20 -30 -30 -20 -40 -50
        -40 -20 0 5 5 0 -20 -40
        -30 5 10 15 15 10 5 -30
        -30 0 15 20 20 15 0 -30
        -30 5 15 20 20 15 5 -30
        -30 0 10 15 15 10 0 -30
        -40 -20 0 0 0 0 -20 -40
        -50 -40 -30 -30 -30 -30 -40 -50"""),
    chess.BISHOP: _table("""
        -20 -10 -40 -10 -10 -40 -10 -20
        -10 5 0 0 0 0 5 -10
        -10 10 10 10 10 10 10 -10
        -10 0 10 10 10 10 0 -10
        -10 5 5 10 10 5 5 -10
        -10 0 5 10 10 5 0 -10
        -10 0 0 0 0 0 0 -10
        -20 -10 -10 -10 -10 -10 -10 -20"""),
    chess.ROOK: _table("""
        0 0 0 10 10 10 0 0
        0 0 0 0 0 0 0 0
        0 0 0 0 0 0 0 0
        0 0 0 0 0 0 0 0
        0 0 0 0 0 0 0 0
        0 0 0 0 0 0 0 0
        15 15 15 20 20 15 15 15
        0 0 0 0 0 0 0 0"""),
    chess.QUEEN: _table("""
        -20 -10 -10 0 0 -10 -10 -20
        -10 0 5 0 0 0 0 -10
        -10 5 5 5 5 5 0 -10
        -5 0 5 5 5 5 0 -5
        -5 0 5 5 5 5 0 -5
        -10 0 5 5 5 5 0 -10
        -10 0 0 0 0 0 0 -10
        -20 -10 -10 -5 -5 -10 -10 -20"""),
}
_KING_EARLY = _table("""
    20 30 10 0 0 10 30 20
    20 20 0 0 0 0 20 20
    -10 -20 -20 -20 -20 -20 -20 -10
    -20 -30 -30 -40 -40 -30 -30 -20
    -30 -40 -40 -50 -50 -40 -40 -30
    -30 -40 -40 -50 -50 -40 -40 -30
    -30 -40 -40 -50 -50 -40 -40 -30
    -30 -40 -40 -50 -50 -40 -40 -30""")
_KING_LATE = _table("""
    -50 -30 -30 -30 -30 -30 -30 -50
    -30 -30 0 0 0 0 -30 -30
    -30 -10 20 30 30 20 -10 -30
    -30 -10 30 40 40 30 -10 -30
    -30 -10 30 40 40 30 -10 -30
    -30 -10 20 30 30 20 -10 -30
    -30 -20 -10 0 0 -10 -20 -30
    -50 -40 -30 -20 -20 -30 -40 -50""")


def naive_eval(board: chess.Board, *, claim_draw: bool = False) -> float:
    """The document's static evaluation in centipawns, White's point of view.

    A finished game scores ``+-MATE_SCORE`` (checkmate) or 0 (a draw; with ``claim_draw``,
    threefold repetition and the fifty-move rule count too, as at the end of a self-play
    game). Otherwise: material plus piece-square values (Black's tables are White's,
    mirrored), the king's table by phase, and ``CHECK_BONUS`` per piece giving check.
    """
    outcome = board.outcome(claim_draw=claim_draw)
    if outcome is not None:
        if outcome.winner is None:
            return 0.0
        return MATE_SCORE if outcome.winner == chess.WHITE else -MATE_SCORE
    score = 0.0
    pieces = 0
    for square, piece in board.piece_map().items():
        if piece.piece_type == chess.KING:
            continue
        pieces += 1
        own = square if piece.color == chess.WHITE else chess.square_mirror(square)
        value = PIECE_VALUES[piece.piece_type] + _PST[piece.piece_type][own]
        score += value if piece.color == chess.WHITE else -value
    king_table = _KING_EARLY if pieces > _ENDGAME_PIECES else _KING_LATE
    for color, sign in ((chess.WHITE, 1.0), (chess.BLACK, -1.0)):
        king = board.king(color)
        if king is not None:
            own = king if color == chess.WHITE else chess.square_mirror(king)
            score += sign * king_table[own]
    for checker in board.checkers():
        checking = board.piece_at(checker)
        if checking is not None:
            score += CHECK_BONUS if checking.color == chess.WHITE else -CHECK_BONUS
    return float(score)


def q_targets(naive: Sequence[float], gamma: float = GAMMA) -> list[float]:
    """``Q_t = naive_t + gamma * Q_t+1`` backwards along one game; ``Q_T = naive_T``."""
    out = [0.0] * len(naive)
    following = 0.0
    for index in range(len(naive) - 1, -1, -1):
        following = float(naive[index]) + (gamma * following if index < len(naive) - 1
                                           else 0.0)
        out[index] = following
    return out


def encode(board: chess.Board) -> np.ndarray:
    """The document's signed one-hot board, ``float32 [6, 8, 8]`` (plane = piece type - 1,
    row = rank, column = file; +1 White, -1 Black: absolute colours, as the document writes
    it, "positive being white and negative black"), channels-first: torch's layout of the
    document's ``8 x 8 x 6``."""
    planes = np.zeros((6, 8, 8), dtype=np.float32)
    for square, piece in board.piece_map().items():
        planes[piece.piece_type - 1, chess.square_rank(square), chess.square_file(square)] = (
            1.0 if piece.color == chess.WHITE else -1.0)
    return planes


def encode_batch(boards: Sequence[chess.Board]) -> np.ndarray:
    """:func:`encode` of each board, ``float32 [N, 6, 8, 8]``, read from the boards' bitboards.

    Each board gives 12 masks, White's pawns ... kings then Black's. A mask's bits, least
    significant first, are the squares a1, b1, ..., h8: laid out 8 x 8 they are row = rank,
    column = file. White's planes minus Black's give the signs."""
    masks: list[int] = []
    for board in boards:
        kinds = (board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                 board.kings)
        white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
        masks += [kind & white for kind in kinds]
        masks += [kind & black for kind in kinds]
    as_bytes = np.array(masks, dtype="<u8").view(np.uint8)
    bits = np.unpackbits(as_bytes, bitorder="little").reshape(len(boards), 2, 6, 8, 8)
    out = bits[:, 0].astype(np.float32)
    out -= bits[:, 1]
    return out


class MaisNet(nn.Module):
    """6 x (conv 3x3, 32 filters, padding 1, ReLU), dense 64 (linear), dense 1 (linear).

    Input ``float32 [N, 6, 8, 8]`` (:func:`encode_batch`); output ``[N]``, Q in centipawns
    from White's point of view (the last layer's output times :data:`OUTPUT_SCALE`).
    """

    def __init__(self, filters: int = 32, convs: int = 6, hidden: int = 64) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        channels = 6
        for _ in range(convs):
            layers += [nn.Conv2d(channels, filters, 3, padding=1), nn.ReLU()]
            channels = filters
        self.body = nn.Sequential(*layers)
        self.hidden = nn.Linear(filters * 64, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.body(x).flatten(1)
        value: torch.Tensor = self.out(self.hidden(z)).squeeze(1) * OUTPUT_SCALE
        return value


def predict(model: MaisNet, boards: Sequence[chess.Board]) -> np.ndarray:
    """The network's Q of each board, ``float64 [N]`` (White's point of view)."""
    if not boards:
        return np.zeros(0)
    model.eval()
    with torch.no_grad():
        values = model(torch.from_numpy(encode_batch(boards)))
    return np.asarray(values.double().numpy(), dtype=np.float64)


def predict_planes(model: MaisNet, planes: np.ndarray, batch: int = 1024) -> np.ndarray:
    """The network's Q of encoded positions ``[N, 6, 8, 8]`` (any dtype), ``float64 [N]``."""
    model.eval()
    out = []
    with torch.no_grad():
        for start in range(0, len(planes), batch):
            chunk = torch.from_numpy(np.asarray(planes[start:start + batch], dtype=np.float32))
            out.append(model(chunk).double().numpy())
    return np.concatenate(out) if out else np.zeros(0)


def mean_absolute_error(model: MaisNet, planes: np.ndarray, targets: np.ndarray) -> float:
    """MAE of the network on encoded positions against their Q targets (centipawns)."""
    if len(targets) == 0:
        return float("nan")
    return float(np.mean(np.abs(predict_planes(model, planes) - targets)))


def fit(model: MaisNet, optimizer: torch.optim.Optimizer, planes: np.ndarray,
        targets: np.ndarray, *, epochs: int = 5, batch_size: int = 32,
        generator: torch.Generator | None = None) -> list[float]:
    """Fit on ``planes [N, 6, 8, 8]`` -> ``targets [N]`` (MSE, shuffled mini-batches, Keras'
    default batch of 32); returns each epoch's mean loss (in ``OUTPUT_SCALE`` units squared)."""
    model.train()
    x = torch.from_numpy(np.asarray(planes, dtype=np.float32))
    y = torch.from_numpy(np.asarray(targets, dtype=np.float32)) / OUTPUT_SCALE
    losses = []
    for _ in range(epochs):
        order = torch.randperm(len(x), generator=generator)
        total = 0.0
        for start in range(0, len(x), batch_size):
            index = order[start:start + batch_size]
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x[index]) / OUTPUT_SCALE, y[index])
            loss.backward()  # type: ignore[no-untyped-call]
            optimizer.step()
            total += float(loss.detach()) * len(index)
        losses.append(total / max(1, len(x)))
    model.eval()
    return losses


def save_weights(model: MaisNet, path: str | os.PathLike[str]) -> None:
    """Write the network's ``state_dict`` atomically (tensors only: safe to load)."""
    with atomic_path(path) as tmp:
        torch.save(model.state_dict(), tmp)


def load_weights(path: str | os.PathLike[str]) -> MaisNet:
    """A :class:`MaisNet` with the weights at ``path`` (``torch.load(weights_only=True)``)."""
    model = MaisNet()
    load_state(Path(path), model, "MAIS")  # one line naming the file when it cannot
    model.eval()
    return model
