"""DeepChess's numpy comparator (a depth-4 search within a match's time) against the reference
comparator and the network: the same answers, the same decisions, the same searches."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest
import torch

from chessmoe.games.pgn import PgnGame, iter_games
from chessmoe.games.sources import sample_path
from chessmoe.nets.related.deepchess import (
    INPUT_BITS,
    Comparator,
    DeepChessNet,
    Shape,
    encode,
    encode_batch,
    load_weights,
)
from chessmoe.nets.related.deepchess_fast import FastComparator, active_bits
from chessmoe.search.alphabeta_compare import CompareAlphaBeta
from chessmoe.search.mcts import Limits, SearchResult

_FENS = [
    chess.STARTING_FEN,
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    "8/8/4k3/8/2P5/8/5K2/8 b - - 0 60",
    "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 3 30",
    "r3k2r/8/8/8/8/8/8/R3K2R w Qk - 3 30",
]


def _game_positions(plies: tuple[int, ...] = (12, 20, 26, 34, 15, 41)) -> list[chess.Board]:
    """Positions of the embedded sample's games (one a game, after ``plies``)."""
    games: list[PgnGame[Any]] = list(iter_games(sample_path(), max_games=len(plies)))
    out = []
    for game, ply in zip(games, plies, strict=False):
        board = chess.Board()
        for move in game.moves[:ply]:
            board.push(move)
        if not board.is_game_over():
            out.append(board)
    return out


def _small_net(seed: int) -> DeepChessNet:
    torch.manual_seed(seed)
    return DeepChessNet(Shape(pos2vec=(INPUT_BITS, 32, 16), head=(12, 8))).eval()


def _exact(net: DeepChessNet, a: chess.Board, b: chess.Board) -> float:
    """The network's P(a better for White), both orders averaged, in float64 torch."""
    wide = copy.deepcopy(net).double()
    with torch.no_grad():
        codes = wide.tower(torch.from_numpy(encode_batch([a, b]).astype(np.float64)))
        p = torch.softmax(wide.compare(codes[[0, 1]], codes[[1, 0]]), dim=1)[:, 0]
    return 0.5 * (float(p[0]) + 1.0 - float(p[1]))


def test_active_bits_are_the_set_bits_of_the_encoding() -> None:
    for board in [chess.Board(fen) for fen in _FENS] + _game_positions():
        assert active_bits(board) == np.flatnonzero(encode(board)).tolist(), board.fen()


@pytest.mark.parametrize("shape", [Shape(pos2vec=(INPUT_BITS, 32, 16), head=(12, 8)),
                                   Shape(pos2vec=(INPUT_BITS, 24), head=(8,))])
def test_the_fast_comparator_answers_as_the_network(shape: Shape) -> None:
    """Its answers are the network's (both orders averaged) to float64 precision, within
    1e-6 of the reference comparator's float32 ones, for towers and heads of one or more
    layers; a pair's reverse is answered from the cache (one minus the pair)."""
    torch.manual_seed(7)
    net = DeepChessNet(shape).eval()
    fast, reference = FastComparator(net), Comparator(net)
    boards = _game_positions() + [chess.Board(fen) for fen in _FENS[:3]]
    for a, b in itertools.combinations(boards, 2):
        p = fast.probability(a, b)
        assert p == pytest.approx(_exact(net, a, b), abs=1e-12)
        assert p == pytest.approx(reference.probability(a, b), abs=1e-6)
        assert fast.probability(b, a) == pytest.approx(1.0 - p, abs=1e-15)
    pairs = len(boards) * (len(boards) - 1) // 2
    assert fast.evaluations == pairs and fast.embeddings == len(boards)


def test_a_position_compared_with_itself_is_a_tie() -> None:
    """A transposition meets its own position: neither is better, as for the reference."""
    net = _small_net(2)
    fast, reference = FastComparator(net), Comparator(net)
    for board in _game_positions():
        same = board.copy(stack=False)
        assert fast.probability(board, same) == 0.5
        assert not fast.better(board, same) and not fast.better(same, board)
        assert not reference.better(board, same) and not reference.better(same, board)


def test_a_full_cache_starts_over_without_changing_an_answer() -> None:
    net = _small_net(3)
    small, roomy = FastComparator(net, cache_size=3), FastComparator(net)
    boards = _game_positions()
    for a, b in itertools.permutations(boards[:4], 2):
        assert small.probability(a, b) == roomy.probability(a, b)
    assert len(small._vectors) <= 3 and len(small._answers) <= 3 + 1


# --- the search: the fast comparator against the reference ----------------------------------


def _searches(net: DeepChessNet, boards: list[chess.Board], depth: int, quiescence: bool
              ) -> tuple[list[SearchResult], list[SearchResult], list[tuple[chess.Board, ...]]]:
    """Each board searched with the reference comparator (its batches prepared) and with the
    fast one (nothing prepared), a new game each; and every pair the reference was asked."""
    asked: list[tuple[chess.Board, ...]] = []
    reference, fast = Comparator(net), FastComparator(net)

    def recording(a: chess.Board, b: chess.Board) -> bool:
        asked.append((a, b))
        return reference.better(a, b)

    slow = CompareAlphaBeta(recording, max_depth=depth, confidence=reference.probability,
                            prepare=reference.prepare, quiescence=quiescence)
    quick = CompareAlphaBeta(fast.better, max_depth=depth, confidence=fast.probability,
                             prepare=fast.prepare, quiescence=quiescence)
    out: tuple[list[SearchResult], list[SearchResult]] = ([], [])
    for board in boards:
        reference.clear()
        fast.clear()
        out[0].append(slow.play(board, Limits()))
        out[1].append(quick.play(board, Limits()))
    return out[0], out[1], asked


def _same_search(a: SearchResult, b: SearchResult) -> None:
    assert (a.move, a.pv, a.nodes, a.simulations, a.tree_nodes, a.depth, a.seldepth) == (
        b.move, b.pv, b.nodes, b.simulations, b.tree_nodes, b.depth, b.seldepth)
    assert [c.move for c in a.children] == [c.move for c in b.children]
    assert a.value == pytest.approx(b.value, abs=2e-6)  # 2 p - 1: twice the answers' 1e-6


@pytest.mark.slow
def test_searches_with_a_small_network_are_identical() -> None:
    """Move, line, leaves, comparisons and visited nodes equal, values within 2e-6, with
    and without quiescence; every pair the reference was asked gets the same decision."""
    net = _small_net(11)
    boards = _game_positions()
    for depth, quiescence, chosen in ((2, False, boards), (1, True, boards[:3])):
        slow, quick, asked = _searches(net, chosen, depth, quiescence)
        for a, b in zip(slow, quick, strict=True):
            _same_search(a, b)
        fast = FastComparator(net)
        reference = Comparator(net)
        assert len(asked) > 400
        assert [fast.better(a, b) for a, b in asked] == [reference.better(a, b)
                                                         for a, b in asked]


def _committed() -> DeepChessNet:
    """The committed run's network; its player searches with the fast comparator."""
    from chessmoe.play.players import default_model_dir
    from chessmoe.play.players.deepchess import build_searcher

    model = default_model_dir("deepchess")
    if model is None or not (model / "weights.pt").is_file():
        pytest.skip("no committed DeepChess run")
    player: Any = build_searcher(Path(model))
    assert isinstance(player.comparator, FastComparator)
    assert player.search.prepare is None  # nothing built ahead for a comparator without batches
    config = json.loads((model / "config.json").read_text())
    return load_weights(model / "weights.pt",
                        Shape(pos2vec=tuple(config["pos2vec"]), head=tuple(config["head"])))


@pytest.mark.slow
def test_searches_with_the_committed_network_are_identical() -> None:
    """The engine's own weights (the distilled network of the 90K-game run): depth 3 on the
    sample's positions, depth 4 on one and depth 1 with quiescence on all, the same
    searches and decisions (about 20,000 pairs)."""
    net = _committed()
    boards = _game_positions()
    for depth, quiescence, chosen in ((3, False, boards), (4, False, boards[1:2]),
                                      (1, True, boards)):
        slow, quick, asked = _searches(net, chosen, depth, quiescence)
        for a, b in zip(slow, quick, strict=True):
            _same_search(a, b)
        fast = FastComparator(net)
        reference = Comparator(net)
        assert [fast.better(a, b) for a, b in asked] == [reference.better(a, b)
                                                         for a, b in asked]


# --- the search's own shortcuts ---------------------------------------------------------------


def _random_positions(games: int, seed: int, *, stack: bool = False) -> list[chess.Board]:
    """Every position of ``games`` random games (checks, promotions, en passant, castling),
    with some shuffling of the knights back and forth so that positions recur."""
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(games):
        board = chess.Board()
        for _ in range(rng.randint(1, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            out.append(board.copy(stack=stack))
            knights = [m for m in moves if board.piece_type_at(m.from_square) == chess.KNIGHT
                       and not board.is_capture(m)]
            board.push(rng.choice(knights if knights and rng.random() < 0.6 else moves))
    return out


def test_moves_made_lazily_come_in_the_order_of_the_sorted_list() -> None:
    from chessmoe.search.alphabeta import ordered_moves
    from chessmoe.search.alphabeta_compare import lazily_ordered

    boards = _random_positions(100, 1)
    assert sum(b.is_check() for b in boards) > 100
    assert sum(any(m.promotion for m in b.legal_moves) for b in boards) > 20
    assert sum(any(b.is_en_passant(m) for m in b.legal_moves) for b in boards) > 5
    for board in boards:
        assert list(lazily_ordered(board)) == ordered_moves(board, list(board.legal_moves))
    # the board may be pushed and popped while the moves are made
    board = boards[len(boards) // 2]
    seen = []
    for move in lazily_ordered(board):
        seen.append(move)
        board.push(move)
        board.pop()
    assert seen == ordered_moves(board, list(board.legal_moves))


def test_the_search_finds_every_repetition_python_chess_finds() -> None:
    """The search skips python-chess's repetition test below a halfmove clock of 4, where a
    position cannot have recurred: its terminal results are python-chess's own."""
    search = CompareAlphaBeta(lambda a, b: False)
    boards = _random_positions(60, 2, stack=True)
    repeated = 0
    for board in boards:
        outcome = search._terminal(board, 1)
        if board.is_repetition(2) and not board.is_game_over(claim_draw=False):
            repeated += 1
            assert outcome is not None and outcome.kind == "draw", board.fen()
        elif (any(board.legal_moves) and board.halfmove_clock < 100
              and not board.is_insufficient_material()):
            assert outcome is None, board.fen()
    assert repeated > 20
    assert any(b.halfmove_clock == 4 and b.is_repetition(2) for b in boards)


def _replay(player: Any, record: dict[str, Any], name: str, limits: Limits,
            moves: int) -> list[tuple[str, str, int | None, int]]:
    """``(played, chosen now, leaves then, leaves now)`` for up to ``moves`` of the
    player's moves in a committed game, the player's caches kept through the game as in
    the match."""
    board = chess.Board(record["fen"])
    side = chess.WHITE if record["white"] == name else chess.BLACK
    leaves = record["nodes"]["white" if side == chess.WHITE else "black"]
    player.new_game()
    out: list[tuple[str, str, int | None, int]] = []
    for uci in record["moves"]:
        if board.turn == side and len(out) < moves:
            found = player.play(board, limits)
            out.append((uci, found.move.uci(), leaves[len(out)], found.nodes))
        board.push_uci(uci)
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("match", "limits", "games", "moves"), [
    ("ratings-cutechess/deepchess-vs-mais", Limits(nodes=100), 4, 100),
    ("related/deepchess-vs-material", Limits(), 1, 15),
])
def test_the_committed_games_are_played_again_move_for_move(match: str, limits: Limits,
                                                            games: int, moves: int) -> None:
    """The engine with the fast comparator plays the committed games' moves again (played
    with the torch comparator), each search with the same number of leaves: 100-node
    searches of the rating list and depth-3 searches of the match against material."""
    from chessmoe.play.players import default_model_dir
    from chessmoe.play.players.deepchess import build_searcher

    model = default_model_dir("deepchess")
    shards = sorted((Path(__file__).resolve().parents[1] / "results" / "tournaments" / match)
                    .glob("games-*.jsonl"))
    if model is None or not shards:
        pytest.skip("no committed DeepChess run or games")
    player = build_searcher(Path(model))
    records = [json.loads(line) for line in shards[0].read_text().splitlines()][:games]
    for record in records:
        for played, chosen, then, now in _replay(player, record, "deepchess", limits, moves):
            assert chosen == played and then in (None, now), (record["slot"], played)
