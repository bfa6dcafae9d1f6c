"""DeepChess (``related-deepchess.md``): the 773-bit position, Pos2Vec and the siamese comparator.

The document fixes the input (:func:`encode_batch`), the Pos2Vec tower pre-trained layer by
layer as autoencoders (:class:`Pos2Vec`, :func:`pretrain_layer`), the comparator of two
weight-shared towers (:class:`DeepChessNet`, :func:`comparator_epoch`), its training pairs
(:func:`random_pairs`, :func:`extract_positions`), the learning rates and the distilled
network (:data:`DISTILLED`). Chosen here, where it is silent: the autoencoders' loss (squared
error, linear decoder), SGD with momentum (:class:`Schedule`) and the batch size; every layer
size is a parameter (:class:`Shape`), so tests train a tiny network in seconds.
:class:`Comparator` is what the search calls: ``better(a, b)``, "``a`` is better for White".
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import numpy as np
import torch
from torch import nn

from chessmoe._io.fsutil import atomic_path
from chessmoe.nets.related import load_state

__all__ = [
    "CASTLING_BITS",
    "COMPARATOR_SCHEDULE",
    "DISTILLED",
    "FULL",
    "INPUT_BITS",
    "MAX_CLUSTER_SHARE",
    "MIN_CLUSTERS",
    "PIECE_BITS",
    "POS2VEC_SCHEDULE",
    "SIDE_TO_MOVE_BIT",
    "Comparator",
    "DeepChessNet",
    "PairBatch",
    "PairedComparison",
    "Pos2Vec",
    "PositionSet",
    "Schedule",
    "Shape",
    "board_key",
    "comparator_epoch",
    "encode",
    "encode_batch",
    "extract_positions",
    "first_games",
    "load_weights",
    "material_balance",
    "material_pair_accuracy",
    "material_pair_scores",
    "network_pair_scores",
    "pair_accuracy",
    "pair_probabilities",
    "paired_with_material",
    "piece_bit",
    "pretrain_layer",
    "random_pairs",
    "save_weights",
    "split_by_game",
    "split_positions",
]

PIECE_BITS = 768
SIDE_TO_MOVE_BIT = 768
CASTLING_BITS: tuple[chess.Bitboard, ...] = (chess.BB_H1, chess.BB_A1, chess.BB_H8, chess.BB_A8)
"""The rook squares whose castling right sets bits 769..772, in that order."""
INPUT_BITS = 773

_COLORS = (chess.WHITE, chess.BLACK)


def piece_bit(color: chess.Color, piece_type: chess.PieceType, square: chess.Square) -> int:
    """Index of the bit that is set when ``color``'s ``piece_type`` stands on ``square``:
    ``c * 384 + (t - 1) * 64 + s`` (White 0, Black 1; pawn 1 .. king 6; a1 = 0 .. h8 = 63)."""
    return (0 if color == chess.WHITE else 1) * 384 + (piece_type - 1) * 64 + square


def _words(board: chess.Board) -> list[int]:
    """The 12 piece bitboards in encoding order, then the side to move and castling as a word."""
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    kinds = (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings)
    words = [kind & white for kind in kinds] + [kind & black for kind in kinds]
    state = 1 if board.turn == chess.WHITE else 0
    rights = board.castling_rights
    for index, rook in enumerate(CASTLING_BITS):
        if rights & rook:
            state |= 2 << index
    words.append(state)
    return words


def encode_batch(boards: Sequence[chess.Board]) -> np.ndarray:
    """The 773 bits of each board, ``uint8 [N, 773]`` (0 or 1): 768 piece bits (two sides x
    six piece types x 64 squares, :func:`piece_bit`), the side to move (White = 1) and the
    four castling rights (White king side, White queen side, Black king side, Black queen
    side). Read from python-chess's 64-bit bitboards with one ``numpy.unpackbits`` a batch."""
    words = np.array([_words(board) for board in boards], dtype=np.uint64).reshape(-1, 13)
    return _unpack(words)


def _unpack(words: np.ndarray) -> np.ndarray:
    # little-endian bytes, little-endian bit order: bit k of word w lands at column 64 w + k
    raw = words.astype("<u8").view(np.uint8).reshape(len(words), 13 * 8)
    bits = np.unpackbits(raw, axis=1, bitorder="little")
    out: np.ndarray = np.ascontiguousarray(bits[:, :INPUT_BITS])
    return out


def encode(board: chess.Board) -> np.ndarray:
    """The 773 bits of one board, ``uint8 [773]``."""
    row: np.ndarray = encode_batch([board])[0]
    return row


def board_key(board: chess.Board) -> tuple[int, ...]:
    """What the 773 bits see of a position, as a hashable key (the embedding cache's)."""
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE], int(board.turn), board.castling_rights)


# --- the networks ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """Layer sizes: the tower's (input first) and the head's hidden layers (before the 2-way
    output)."""

    pos2vec: tuple[int, ...] = (INPUT_BITS, 600, 400, 200, 100)
    head: tuple[int, ...] = (400, 200, 100)

    def __post_init__(self) -> None:
        if len(self.pos2vec) < 2 or self.pos2vec[0] != INPUT_BITS:
            raise ValueError(f"the tower starts with {INPUT_BITS} inputs and has a layer")


FULL = Shape()
"""The document's network: Pos2Vec 773-600-400-200-100, head 400-200-100-2."""
DISTILLED = Shape(pos2vec=(INPUT_BITS, 100, 100, 100), head=(100, 100))
"""The document's smaller ("distilled") network: Pos2Vec 773-100-100-100, head 100-100-2."""


class Pos2Vec(nn.Module):
    """Fully connected ReLU layers ``pos2vec[0] -> ... -> pos2vec[-1]`` (the document's
    773-600-400-200-100, no regularisation); input ``float32 [N, 773]``, output
    ``[N, pos2vec[-1]]``."""

    def __init__(self, sizes: tuple[int, ...]) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(sizes))

    def forward(self, x: torch.Tensor, upto: int | None = None) -> torch.Tensor:
        """The codes after the first ``upto`` layers (all by default)."""
        for layer in list(self.layers)[:upto]:
            x = torch.relu(layer(x))
        return x


class DeepChessNet(nn.Module):
    """Two weight-shared :class:`Pos2Vec` towers and the comparing head: the two codes
    concatenated into ReLU layers (the document's 400-200-100) and a 2-way softmax,
    initialised with the pre-trained towers.

    ``forward(a, b)`` takes two ``float32 [N, 773]`` batches and returns logits ``[N, 2]``;
    softmax class 0 = "``a`` is the position of the game White won"."""

    def __init__(self, shape: Shape = FULL) -> None:
        super().__init__()
        self.shape = shape
        self.tower = Pos2Vec(shape.pos2vec)
        sizes = (2 * shape.pos2vec[-1], *shape.head)
        layers: list[nn.Module] = []
        for a, b in itertools.pairwise(sizes):
            layers += [nn.Linear(a, b), nn.ReLU()]
        layers.append(nn.Linear(sizes[-1], 2))
        self.head = nn.Sequential(*layers)

    def compare(self, ea: torch.Tensor, eb: torch.Tensor) -> torch.Tensor:
        """Logits ``[N, 2]`` from two embeddings ``[N, pos2vec[-1]]``."""
        out: torch.Tensor = self.head(torch.cat([ea, eb], dim=1))
        return out

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return self.compare(self.tower(a), self.tower(b))


# --- positions and pairs ----------------------------------------------------------------------


@dataclass(frozen=True)
class PositionSet:
    """Positions sampled from decided games: ``bits uint8 [N, 773]``, ``game int32 [N]`` (the
    game's index in the source's kept decided games), ``white_won bool [N]``."""

    bits: np.ndarray
    game: np.ndarray
    white_won: np.ndarray

    def __len__(self) -> int:
        return len(self.game)

    def subset(self, mask: np.ndarray) -> PositionSet:
        return PositionSet(self.bits[mask], self.game[mask], self.white_won[mask])

    @property
    def games(self) -> int:
        return len(np.unique(self.game))


def extract_positions(source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], *,
                      games: int, per_game: int, seed: int, skip_plies: int = 10,
                      unique: bool = False, keys: list[str] | None = None) -> PositionSet:
    """Up to ``per_game`` random positions of each of the first ``games`` decided games of a
    PGN, or of several read in order (a self-play run's shards; read with
    :func:`chessmoe.games.pgn.iter_games`): positions after ply ``skip_plies`` or later (not
    in the first 5 moves) whose last move was not a capture. ``unique``: a game equal to an
    earlier one (start position and moves, :func:`chessmoe.games.splits.game_key`) is
    skipped, the first copy kept, so no split holds a copy of another's game. ``keys``, if
    given, receives each kept game's key (index = the game id of its positions)."""
    from chessmoe.games.pgn import PgnGame, SkipCounter, iter_games, no_games_error
    from chessmoe.games.splits import game_key

    rng = np.random.default_rng(seed)
    words: list[list[int]] = []
    game_ids: list[int] = []
    white: list[bool] = []
    skips = SkipCounter()
    record: PgnGame[Any]
    kept = 0
    files = ([source] if isinstance(source, (str, os.PathLike)) else list(source))

    def records() -> Iterator[PgnGame[Any]]:
        for path in files:
            yield from iter_games(path, skips=skips)

    seen: set[str] = set()
    for record in records():
        key = ""
        if unique or keys is not None:
            key = game_key(record.start_fen, (move.uci() for move in record.moves))
            if unique and key in seen:
                continue
            seen.add(key)
        if record.result not in ("1-0", "0-1"):
            continue
        board = chess.Board(record.start_fen) if record.start_fen else chess.Board()
        candidates: list[list[int]] = []
        for ply, move in enumerate(record.moves, start=1):
            capture = board.is_capture(move)
            board.push(move)
            if ply >= skip_plies and not capture:
                candidates.append(_words(board))
        if candidates:
            take = rng.choice(len(candidates), size=min(per_game, len(candidates)),
                              replace=False)
            for index in sorted(take.tolist()):
                words.append(candidates[index])
                game_ids.append(kept)
                white.append(record.result == "1-0")
            kept += 1
            if keys is not None:
                keys.append(key)
        if kept >= games:
            break
    if not words:
        raise no_games_error(", ".join(str(f) for f in files), skips)
    return PositionSet(bits=_unpack(np.array(words, dtype=np.uint64)),
                       game=np.asarray(game_ids, dtype=np.int32),
                       white_won=np.asarray(white, dtype=bool))


def split_by_game(positions: PositionSet, held_out: float, seed: int
                  ) -> tuple[PositionSet, PositionSet]:
    """``(train, held out)``: every position of a game lands on the same side; about
    ``held_out`` of the games (at least one of each result when there are two) are held out."""
    rng = np.random.default_rng(seed)
    chosen: list[int] = []
    for won in (True, False):
        ids = np.unique(positions.game[positions.white_won == won])
        if len(ids) >= 2:
            count = max(1, round(held_out * len(ids)))
            chosen.extend(rng.choice(ids, size=count, replace=False).tolist())
    mask = np.isin(positions.game, np.asarray(chosen, dtype=np.int32))
    return positions.subset(~mask), positions.subset(mask)


def split_positions(positions: PositionSet, share: float, seed: int
                    ) -> tuple[PositionSet, PositionSet]:
    """``(kept, unseen)``: about ``share`` of the positions, drawn at random across all the
    games, are set aside (the by-position held-out set: unseen positions of games whose other
    positions are trained on, as a split of positions rather than games would make it)."""
    if share <= 0:
        return positions, positions.subset(np.zeros(len(positions), dtype=bool))
    rng = np.random.default_rng(seed)
    count = min(len(positions) - 1, max(1, round(share * len(positions))))
    mask = np.zeros(len(positions), dtype=bool)
    mask[rng.choice(len(positions), size=count, replace=False)] = True
    return positions.subset(~mask), positions.subset(mask)


def first_games(positions: PositionSet, games: int) -> PositionSet:
    """The positions of the first ``games`` games of ``positions`` (in game-id order, the order
    they were read); ``games <= 0``: all of them."""
    ids = np.unique(positions.game)
    if games <= 0 or games >= len(ids):
        return positions
    return positions.subset(np.isin(positions.game, ids[:games]))


_MATERIAL = np.zeros(INPUT_BITS)
for _color, _sign in ((chess.WHITE, 1.0), (chess.BLACK, -1.0)):
    for _type, _value in ((chess.PAWN, 1), (chess.KNIGHT, 3), (chess.BISHOP, 3),
                          (chess.ROOK, 5), (chess.QUEEN, 9)):
        _start = piece_bit(_color, _type, 0)
        _MATERIAL[_start:_start + 64] = _sign * _value


def material_balance(bits: np.ndarray) -> np.ndarray:
    """White's material minus Black's (P 1, N 3, B 3, R 5, Q 9) from the 773 bits, ``[N]``."""
    balance: np.ndarray = bits.astype(np.float64) @ _MATERIAL
    return balance


def material_pair_scores(positions: PositionSet, pairs: PairBatch) -> np.ndarray:
    """The material-only comparator's score on each row of ``pairs``, ``float64 [M]``: 1 where
    the position with more White material is the White win, 0 where it is the Black win,
    one half for a tie of material."""
    balance = material_balance(positions.bits)
    first, second = balance[pairs.first], balance[pairs.second]
    right = np.where(pairs.label == 0, first > second, second > first)
    scores: np.ndarray = np.where(first == second, 0.5, right.astype(np.float64))
    return scores


def material_pair_accuracy(positions: PositionSet, pairs: PairBatch) -> float:
    """The comparator that knows only material, on the same pairs as the network: it picks
    the position with more White material as the White win (a tie counts one half)."""
    if len(pairs.label) == 0:
        return float("nan")
    return float(np.mean(material_pair_scores(positions, pairs)))


@dataclass(frozen=True)
class PairBatch:
    """Pairs of position indices ``first, second int64 [M]`` and labels ``int64 [M]``
    (0: ``first`` is the White win, 1: ``second`` is)."""

    first: np.ndarray
    second: np.ndarray
    label: np.ndarray


def random_pairs(positions: PositionSet, pairs: int, rng: np.random.Generator) -> PairBatch:
    """``pairs`` random (White win, Black win) pairs, each in both orders (``2 * pairs``
    rows, shuffled)."""
    white = np.flatnonzero(positions.white_won)
    black = np.flatnonzero(~positions.white_won)
    if len(white) == 0 or len(black) == 0:
        raise ValueError("pairs need positions of games won by each side")
    w = rng.choice(white, size=pairs)
    b = rng.choice(black, size=pairs)
    first = np.concatenate([w, b])
    second = np.concatenate([b, w])
    label = np.concatenate([np.zeros(pairs, dtype=np.int64), np.ones(pairs, dtype=np.int64)])
    order = rng.permutation(2 * pairs)
    return PairBatch(first[order].astype(np.int64), second[order].astype(np.int64),
                     label[order])


# --- training -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Schedule:
    """SGD with momentum; the learning rate starts at ``lr`` and is multiplied by ``decay``
    after every epoch (the epoch's rate is ``lr * decay ** epoch``)."""

    lr: float
    decay: float
    momentum: float = 0.9
    batch_size: int = 64

    def rate(self, epoch: int) -> float:
        return self.lr * self.decay ** epoch


POS2VEC_SCHEDULE = Schedule(lr=0.005, decay=0.98)
COMPARATOR_SCHEDULE = Schedule(lr=0.01, decay=0.99)


def _set_rate(optimizer: torch.optim.Optimizer, rate: float) -> None:
    for group in optimizer.param_groups:
        group["lr"] = rate


def pretrain_layer(tower: Pos2Vec, layer: int, bits: np.ndarray, decoder: nn.Linear,
                   optimizer: torch.optim.Optimizer, schedule: Schedule, epoch: int,
                   generator: torch.Generator) -> float:
    """One epoch of the autoencoder of tower layer ``layer`` (0-based): its input is the
    codes of the layers below it (kept fixed), it reconstructs them through ``decoder``
    (linear), loss the squared error summed over the features, averaged over positions.
    Returns the epoch's mean loss."""
    with torch.no_grad():
        codes = tower(torch.from_numpy(bits.astype(np.float32)), upto=layer)
    encoder = tower.layers[layer]
    _set_rate(optimizer, schedule.rate(epoch))
    order = torch.randperm(len(codes), generator=generator)
    total = 0.0
    for start in range(0, len(codes), schedule.batch_size):
        x = codes[order[start:start + schedule.batch_size]]
        optimizer.zero_grad()
        loss: torch.Tensor = (decoder(torch.relu(encoder(x))) - x).pow(2).sum(dim=1).mean()
        loss.backward()  # type: ignore[no-untyped-call]
        optimizer.step()
        total += float(loss.detach()) * len(x)
    return total / max(1, len(codes))


def comparator_epoch(net: DeepChessNet, positions: PositionSet, pairs: PairBatch,
                     optimizer: torch.optim.Optimizer, schedule: Schedule, epoch: int,
                     generator: torch.Generator) -> float:
    """One epoch of the whole network on ``pairs`` (cross entropy); the mean loss."""
    net.train()
    _set_rate(optimizer, schedule.rate(epoch))
    x = torch.from_numpy(positions.bits.astype(np.float32))
    first = torch.from_numpy(pairs.first)
    second = torch.from_numpy(pairs.second)
    label = torch.from_numpy(pairs.label)
    order = torch.randperm(len(label), generator=generator)
    total = 0.0
    for start in range(0, len(label), schedule.batch_size):
        index = order[start:start + schedule.batch_size]
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(net(x[first[index]], x[second[index]]),
                                           label[index])
        loss.backward()  # type: ignore[no-untyped-call]
        optimizer.step()
        total += float(loss.detach()) * len(index)
    net.eval()
    return total / max(1, len(label))


def pair_probabilities(net: DeepChessNet, positions: PositionSet, pairs: PairBatch,
                       batch: int = 4096) -> np.ndarray:
    """The network's softmax P(class 0: the first position is the White win), ``[M]``."""
    net.eval()
    out = []
    with torch.no_grad():
        embedded = net.tower(torch.from_numpy(positions.bits.astype(np.float32)))
        for start in range(0, len(pairs.label), batch):
            a = embedded[torch.from_numpy(pairs.first[start:start + batch])]
            b = embedded[torch.from_numpy(pairs.second[start:start + batch])]
            out.append(torch.softmax(net.compare(a, b), dim=1)[:, 0].double().numpy())
    return np.concatenate(out) if out else np.zeros(0)


def network_pair_scores(probabilities: np.ndarray, pairs: PairBatch) -> np.ndarray:
    """1 where the network (its softmax P(first is the White win), ``[M]``) picks the row's
    White win (P <= 0.5 picks the second position), else 0, ``float64 [M]``."""
    picked = (np.asarray(probabilities) <= 0.5).astype(np.int64)
    scores: np.ndarray = (picked == pairs.label).astype(np.float64)
    return scores


def pair_accuracy(net: DeepChessNet, positions: PositionSet, pairs: PairBatch) -> float:
    """The share of ``pairs`` whose White win the network picks (softmax > 0.5)."""
    if len(pairs.label) == 0:
        return float("nan")
    return float(np.mean(network_pair_scores(pair_probabilities(net, positions, pairs),
                                             pairs)))


@dataclass(frozen=True)
class PairedComparison:
    """The network against the material-only comparator on the *same* pairs, row by row.

    ``network`` and ``material`` are accuracies over the ``rows`` (each drawn pair appears in
    both orders); ``difference`` is network minus material, and ``half_width`` its 95 %
    half-width (normal approximation) with the rows clustered by game: rows that share a
    game, directly or through other rows, form one cluster (``units``: the connected
    components of the games the rows join), since positions of one game are not independent
    and each pair appears in both orders. ``network_only`` / ``material_only`` count the rows
    only one of them gets right (a material tie counts as material wrong there).

    The clustered interval needs many clusters, none dominant: where fewer than
    :data:`MIN_CLUSTERS` clusters exist or the largest holds more than
    :data:`MAX_CLUSTER_SHARE` of the rows (few games sampled many times link into one
    component), the interval is not estimable and nothing is decided."""

    rows: int
    units: int
    network: float
    material: float
    difference: float
    half_width: float
    network_only: int
    material_only: int
    largest_cluster: int  # rows in the largest cluster

    @property
    def estimable(self) -> bool:
        return (self.units >= MIN_CLUSTERS
                and self.largest_cluster <= MAX_CLUSTER_SHARE * self.rows)

    @property
    def decided(self) -> bool:
        """Is the interval estimable, and does it exclude zero?"""
        return self.estimable and abs(self.difference) > self.half_width

    def to_json(self) -> dict[str, Any]:
        return {"rows": self.rows, "units": self.units, "network": self.network,
                "material": self.material, "difference": self.difference,
                "half_width": self.half_width, "network_only": self.network_only,
                "material_only": self.material_only,
                "largest_cluster": self.largest_cluster, "estimable": self.estimable,
                "decided": self.decided}


MIN_CLUSTERS = 30
MAX_CLUSTER_SHARE = 0.1


def _game_clusters(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Each row's cluster ``0..k-1``: the connected component of its two games in the graph
    whose edges are the rows (union-find over game ids)."""
    parent: dict[int, int] = {}

    def root(game: int) -> int:
        parent.setdefault(game, game)
        while parent[game] != game:
            parent[game] = parent[parent[game]]
            game = parent[game]
        return game

    for a, b in zip(first.tolist(), second.tolist(), strict=True):
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[rb] = ra
    _, cluster = np.unique([root(a) for a in first.tolist()], return_inverse=True)
    return np.asarray(cluster, dtype=np.int64).reshape(-1)


def paired_with_material(probabilities: np.ndarray, positions: PositionSet,
                         pairs: PairBatch) -> PairedComparison:
    """:class:`PairedComparison` of the network's ``probabilities`` on ``pairs``
    (:func:`pair_probabilities`) against :func:`material_pair_scores` on the same rows."""
    rows = len(pairs.label)
    if rows == 0:
        raise ValueError("a paired comparison needs at least one pair")
    net = network_pair_scores(probabilities, pairs)
    mat = material_pair_scores(positions, pairs)
    diff = net - mat
    unit = _game_clusters(positions.game[pairs.first], positions.game[pairs.second])
    units = int(unit.max()) + 1
    mean = float(diff.mean())
    # the row mean's variance with rows clustered by unit (the sandwich estimator, with the
    # small-sample factor units / (units - 1))
    totals = np.bincount(unit, weights=diff - mean, minlength=units)
    variance = (float(np.sum(totals ** 2)) / rows ** 2 * units / (units - 1)
                if units > 1 else math.inf)
    return PairedComparison(
        rows=rows, units=units, network=float(net.mean()), material=float(mat.mean()),
        difference=mean, half_width=1.959963984540054 * math.sqrt(variance),
        network_only=int(np.sum((net == 1) & (mat < 1))),
        material_only=int(np.sum((net == 0) & (mat == 1))),
        largest_cluster=int(np.bincount(unit).max()))


# --- the comparator the search uses ---------------------------------------------------------


class Comparator:
    """``better(a, b)``: is ``a`` better for White than ``b``, by the network (both orders
    averaged); tower embeddings and answers are cached per position.

    The search asks one pair at a time, so the per-pair work is cut to the bone (so that
    depth 4 fits a match's time): when a position is embedded (in a batch, by
    :meth:`prepare`), its code is also multiplied by both halves of the head's first layer,
    so a comparison adds two precomputed rows per order and runs the head's remaining small
    layers in numpy (float32, within 1e-6 of :meth:`DeepChessNet.compare`), without a torch
    call. The network's weights are read when the comparator is made.

    The engine's player searches with
    :class:`~chessmoe.nets.related.deepchess_fast.FastComparator` (no batches, no torch
    call, the same decisions); this one is the reference its tests and benchmark compare
    it with."""

    def __init__(self, net: DeepChessNet, *, cache_size: int = 200_000) -> None:
        self.net = net.eval()
        self.cache_size = cache_size
        self._embedding: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        self._answers: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = {}
        self.evaluations = 0  # head evaluations (pairs of orders) made
        self.embeddings = 0  # tower evaluations made
        linears = [m for m in net.head if isinstance(m, nn.Linear)]
        weight = linears[0].weight.detach().numpy().astype(np.float32)
        half = weight.shape[1] // 2
        self._as_first = np.ascontiguousarray(weight[:, :half].T)  # [code, hidden]
        self._as_second = np.ascontiguousarray(weight[:, half:].T)
        self._first_bias = linears[0].bias.detach().numpy().astype(np.float32)
        self._rest = [(np.ascontiguousarray(m.weight.detach().numpy().T.astype(np.float32)),
                       m.bias.detach().numpy().astype(np.float32)) for m in linears[1:]]

    def clear(self) -> None:
        self._embedding.clear()
        self._answers.clear()

    def _embed(self, boards: Sequence[chess.Board], keys: Sequence[tuple[int, ...]]
               ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each board's code projected by the head's first layer as the first and as the
        second position of a pair (embedded in one batch where missing)."""
        missing = [i for i, key in enumerate(keys) if key not in self._embedding]
        if missing:
            if len(self._embedding) + len(missing) > self.cache_size:
                self._embedding.clear()  # full: start over, so every key is embedded anew
                missing = list(range(len(keys)))
            bits = encode_batch([boards[i] for i in missing])
            with torch.no_grad():
                codes = self.net.tower(torch.from_numpy(bits.astype(np.float32))).numpy()
            as_first, as_second = codes @ self._as_first, codes @ self._as_second
            self.embeddings += len(missing)
            for row, i in enumerate(missing):
                self._embedding[keys[i]] = (as_first[row], as_second[row])
        return [self._embedding[key] for key in keys]

    def prepare(self, boards: Sequence[chess.Board]) -> None:
        """Embed ``boards`` in one batch ahead of their comparisons."""
        self._embed(boards, [board_key(b) for b in boards])

    def probability(self, a: chess.Board, b: chess.Board) -> float:
        """P(``a`` is better for White than ``b``) = (p(a, b) + 1 - p(b, a)) / 2."""
        ka, kb = board_key(a), board_key(b)
        cached = self._answers.get((ka, kb))
        if cached is not None:
            return cached
        (a_first, a_second), (b_first, b_second) = self._embed([a, b], [ka, kb])
        # rows: (a, b) and (b, a); the head's first layer is the sum of the halves' products
        hidden = np.stack([a_first + b_second, b_first + a_second]) + self._first_bias
        np.maximum(hidden, 0.0, out=hidden)
        for index, (weight, bias) in enumerate(self._rest):
            hidden = hidden @ weight + bias
            if index < len(self._rest) - 1:
                np.maximum(hidden, 0.0, out=hidden)
        # softmax class 0 of two logits
        p = 1.0 / (1.0 + np.exp(hidden[:, 1].astype(np.float64) - hidden[:, 0]))
        self.evaluations += 1
        value = 0.5 * (float(p[0]) + 1.0 - float(p[1]))
        if len(self._answers) >= self.cache_size:
            self._answers.clear()
        self._answers[(ka, kb)] = value
        self._answers[(kb, ka)] = 1.0 - value
        return value

    def better(self, a: chess.Board, b: chess.Board) -> bool:
        return self.probability(a, b) > 0.5


def save_weights(net: DeepChessNet, path: str | os.PathLike[str]) -> None:
    """Write the network's ``state_dict`` atomically (tensors only: safe to load)."""
    with atomic_path(path) as tmp:
        torch.save(net.state_dict(), tmp)


def load_weights(path: str | os.PathLike[str], shape: Shape = FULL) -> DeepChessNet:
    """A :class:`DeepChessNet` of ``shape`` with the weights at ``path``
    (``torch.load(weights_only=True)``)."""
    net = DeepChessNet(shape)
    load_state(Path(path), net, "DeepChess")  # one line naming the file when it cannot
    net.eval()
    return net
