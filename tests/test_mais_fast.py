"""The MAIS engine's faster search plays the same games: the bitboard encoding is the
piece-by-piece one bit for bit, the search's end-of-game test is python-chess's, and the
committed games of the MAIS SPRT match are played again move for move, with the same nodes
and scores."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest

from chessmoe.nets.related.mais import encode, encode_batch
from chessmoe.search.bestfirst import game_end

_ROOT = Path(__file__).resolve().parents[1]
_MATCH = "mais-vs-mais-at-200-sprt"

_FENS = [
    chess.STARTING_FEN,
    "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 3 30",  # castling rights, Black to move
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",  # en passant
    "1Q4Qk/8/8/8/8/8/8/q6K b - - 0 60",  # promoted queens, pieces on a1 (bit 0), h8 (bit 63)
    "7k/8/8/8/8/8/8/K7 w - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
]


def _random_games(games: int, seed: int) -> tuple[list[chess.Board], dict[str, int]]:
    """Every position of ``games`` random games played to their end (at most 300 plies),
    and how many positions follow a capture, a promotion, an en passant capture and a
    castling move."""
    rng = random.Random(seed)
    out: list[chess.Board] = []
    seen = {"capture": 0, "promotion": 0, "en passant": 0, "castling": 0}
    for _ in range(games):
        board = chess.Board()
        for _ in range(300):
            moves = list(board.legal_moves)
            if not moves:
                break
            # the rare moves whenever there are some, and captures more often than at random
            # (fewer pieces: promotions and, at the end, mates and insufficient material)
            rare = [m for m in moves if m.promotion or board.is_en_passant(m)
                    or board.is_castling(m)]
            captures = [m for m in moves if board.is_capture(m)]
            move = rng.choice(rare if rare and rng.random() < 0.8
                              else captures if captures and rng.random() < 0.3 else moves)
            seen["capture"] += board.is_capture(move)
            seen["promotion"] += move.promotion is not None
            seen["en passant"] += board.is_en_passant(move)
            seen["castling"] += board.is_castling(move)
            board.push(move)
            out.append(board.copy(stack=False))
    return out, seen


def _committed_positions(games: int) -> list[chess.Board]:
    shards = sorted((_ROOT / "results" / "tournaments" / "related" / _MATCH)
                    .glob("games-*.jsonl"))
    out = []
    for shard in shards[:1]:
        for line in shard.read_text().splitlines()[:games]:
            record = json.loads(line)
            board = chess.Board(record["fen"])
            for uci in record["moves"]:
                board.push_uci(uci)
                out.append(board.copy(stack=False))
    return out


def test_the_bitboard_encoding_is_the_piece_map_encoding_bit_for_bit() -> None:
    """``encode_batch`` (bitboards) equals ``encode`` (python-chess's piece map) byte for
    byte (zeros included: no -0.0) on random games' positions (captures, promotions, en
    passant, castling, both sides to move), the committed match's and a few by hand, in
    batches of every size the search makes and more."""
    boards, seen = _random_games(40, 5)
    assert min(seen.values()) >= 5, seen
    boards += _committed_positions(3) + [chess.Board(fen) for fen in _FENS]
    assert sum(b.turn == chess.BLACK for b in boards) > 1000
    reference = np.stack([encode(b) for b in boards])
    assert encode_batch(boards).tobytes() == reference.tobytes()
    start = 0
    for size in (1, 2, 7, 30, 50, 111):  # batches of varied sizes, as the expansions make
        chunk = encode_batch(boards[start:start + size])
        assert chunk.dtype == np.float32 and chunk.shape == (size, 6, 8, 8)
        assert chunk.tobytes() == reference[start:start + size].tobytes()
        start += size
    assert encode_batch([]).shape == (0, 6, 8, 8)
    corner = encode_batch([chess.Board("1Q4Qk/8/8/8/8/8/8/q6K b - - 0 60")])[0]
    assert corner[4, 0, 0] == -1 and corner[5, 0, 7] == 1 and corner[5, 7, 7] == -1
    assert corner[4, 7, 1] == corner[4, 7, 6] == 1 and np.count_nonzero(corner) == 5


_MATES_IN_ONE = [
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",  # Rd8#
    "3r2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1",  # Rd1#
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",  # Qxf7#
    "6rk/6pp/8/6N1/8/8/8/6K1 w - - 0 1",  # Nf7#
    "k7/8/1K6/8/8/8/8/7Q w - - 0 1",  # Qa8# and Qh8#, and stalemates (Qc6, Qb7 ...)
]


def test_the_end_of_game_test_is_python_chess_s() -> None:
    """``game_end`` says what ``is_checkmate() or is_stalemate() or
    is_insufficient_material()`` and ``is_checkmate()`` say, on positions of random games
    played to their end and on children as the search makes them (of positions with mates
    in one and of random endgames): every kind of end among them."""
    games, _ = _random_games(30, 9)
    parents = [chess.Board(fen) for fen in _FENS + _MATES_IN_ONE]
    parents += [b for b in games[::3] if chess.popcount(b.occupied) <= 8]
    boards = games[::2]
    for board in parents:
        for move in board.legal_moves:
            child = board.copy(stack=False)
            child.push(move)
            boards.append(child)
    kinds = {"checkmate": 0, "stalemate": 0, "insufficient": 0, "on": 0}
    for board in boards:
        mate, stale = board.is_checkmate(), board.is_stalemate()
        insufficient = board.is_insufficient_material()
        assert game_end(board) == (mate or stale or insufficient, mate), board.fen()
        kinds["checkmate"] += mate
        kinds["stalemate"] += stale
        kinds["insufficient"] += insufficient
        kinds["on"] += not (mate or stale or insufficient)
    assert min(kinds.values()) >= 5, kinds


# --- the committed games, played again ------------------------------------------------------


def _players() -> dict[str, Any]:
    """The match's two players (spec.json), their weights the committed files of the same
    checksums as the match's (its labels)."""
    from chessmoe._io.fsutil import sha256_file
    from chessmoe.play.players import build_searcher

    spec = json.loads((_ROOT / "results" / "tournaments" / "related" / "spec.json")
                      .read_text())
    (match,) = [m for m in spec["matches"] if m["name"] == _MATCH]
    players = {}
    for side, label in (("first", "weights_first"), ("second", "weights_second")):
        player = match[side]
        # the match read the weights from another checkout: the same run, committed here
        run = _ROOT / "results" / "related" / player["experts"].split("/results/related/")[1]
        weights = run / "weights.pt"
        if not weights.is_file():
            pytest.skip(f"no committed weights {weights}")
        assert sha256_file(weights).startswith(match["labels"][label]), weights
        assert player["kind"] == "mais" and player["nodes"] == 1500
        players[player["name"]] = build_searcher("mais", run, threads=player["threads"],
                                                 options=player["options"])
    return players


def _replay(players: dict[str, Any], record: dict[str, Any]
            ) -> list[tuple[str, str, int, int, int | None, int]]:
    """``(played, chosen now, nodes then, nodes now, score then, score now)`` for every
    move of a committed game, each side searched by its own player (1,500 nodes)."""
    from chessmoe.play.engine import value_to_cp
    from chessmoe.search.mcts import Limits

    board = chess.Board(record["fen"])
    made = {"white": 0, "black": 0}
    out = []
    for player in players.values():
        player.new_game()
    for uci in record["moves"]:
        side = "white" if board.turn == chess.WHITE else "black"
        found = players[record[side]].play(board, Limits(nodes=1500))
        index = made[side]
        made[side] += 1
        out.append((uci, found.move.uci(), record["nodes"][side][index], found.nodes,
                    record["scores"][side][index], value_to_cp(found.value)))
        board.push_uci(uci)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("game", [1])
def test_the_committed_sprt_games_are_played_again_move_for_move(game: int) -> None:
    """Every move of a committed game of the 1,500-node SPRT match between the two MAIS
    networks (played before the bitboard encoding and the one-search end-of-game test) is
    chosen again, after as many evaluated positions and with the same reported score, so
    that adjudication too decides as it did.

    One game (48 plies, both networks) in the test lane, about 20 s; when the faster search
    landed, 23 games (1,304 searches) were replayed this way with no difference, and a
    planted sign flip in the encoding failed here at the first move."""
    shards = sorted((_ROOT / "results" / "tournaments" / "related" / _MATCH)
                    .glob("games-*.jsonl"))
    if not shards:
        pytest.skip(f"no committed games of {_MATCH}")
    players = _players()
    record = json.loads(shards[0].read_text().splitlines()[game])
    moves = _replay(players, record)
    assert len(moves) == len(record["moves"]) == record["plies"]
    for ply, (played, chosen, then, now, score_then, score_now) in enumerate(moves):
        assert (chosen, now, score_now) == (played, then, score_then), (record["slot"], ply)
