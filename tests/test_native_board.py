"""The numba board against python-chess: perft on a golden suite, ordered legal moves and
every position attribute along fuzzed games, Zobrist keys against transposition keys,
and the inputs it refuses."""

from __future__ import annotations

import json
import random
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import chess
import chess.variant
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessmoe.encoding import castling_bits, legal_ep_square
from chessmoe.search.native import board as nb
from tests.golden.make_perft import perft as chess_perft
from tests.helpers import RULE_EDGES, rule_edge_board

GOLDEN = json.loads((Path(__file__).parent / "golden" / "perft.json").read_text())
POSITIONS: list[dict[str, Any]] = GOLDEN["positions"]
IDS = [p["name"] for p in POSITIONS]
MAX_MOVES_FEN = "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1"


def _moves(pos: np.ndarray) -> list[chess.Move]:
    out = nb.new_moves()
    n = nb.gen_legal(pos, out)
    return [nb.decode_move(int(m)) for m in out[:n]]


# --- perft -------------------------------------------------------------------------------------


def test_golden_file_is_big_enough_and_knows_the_start_position() -> None:
    assert len(POSITIONS) >= 30
    assert GOLDEN["how"] == "python -m tests.golden.make_perft"
    start = next(p for p in POSITIONS if p["fen"] == chess.STARTING_FEN)
    assert start["perft"] == [20, 400, 8902, 197281, 4865609]
    assert sum(len(p["perft"]) == 5 for p in POSITIONS) >= 4


@pytest.mark.parametrize("case", POSITIONS, ids=IDS)
def test_perft_matches_golden(case: dict[str, Any]) -> None:
    pos = nb.pos_from_board(chess.Board(case["fen"]))
    counts = [nb.perft(pos, depth) for depth in range(1, len(case["perft"]) + 1)]
    assert counts == case["perft"]


@pytest.mark.slow
@pytest.mark.parametrize("case", POSITIONS, ids=IDS)
def test_golden_perft_recomputed_by_python_chess(case: dict[str, Any]) -> None:
    board = chess.Board(case["fen"])
    depths = range(1, min(3, len(case["perft"])) + 1)
    assert [chess_perft(board, d) for d in depths] == case["perft"][:len(depths)]


@pytest.mark.parametrize("case", POSITIONS, ids=IDS)
def test_move_order_matches_python_chess_two_plies_deep(case: dict[str, Any]) -> None:
    board = chess.Board(case["fen"])
    pos = nb.pos_from_board(board)
    child = nb.new_pos()
    assert _moves(pos) == list(board.generate_legal_moves())
    for move in list(board.generate_legal_moves()):
        nb.make_move(pos, nb.encode_move(move), child)
        board.push(move)
        assert _moves(child) == list(board.generate_legal_moves()), (case["fen"], move.uci())
        board.pop()


def test_perft_depth_zero_is_one() -> None:
    assert nb.perft(nb.pos_from_board(chess.Board()), 0) == 1


# --- fuzzing ---------------------------------------------------------------------------------


def _pick(board: chess.Board, moves: list[chess.Move], rng: random.Random) -> chess.Move:
    """A random legal move, favouring the rare kinds (castling, en passant, promotions,
    pawn moves, captures) so games reach them often."""
    weights = []
    for move in moves:
        if board.is_castling(move) or board.is_en_passant(move):
            weights.append(40.0)
        elif move.promotion:
            weights.append(20.0)
        elif board.piece_type_at(move.from_square) == chess.PAWN:
            weights.append(4.0)
        elif board.is_capture(move):
            weights.append(3.0)
        else:
            weights.append(1.0)
    return rng.choices(moves, weights)[0]


def _check_position(pos: np.ndarray, board: chess.Board) -> list[chess.Move]:
    """Every attribute of ``pos`` equals python-chess's; returns the legal moves."""
    moves = _moves(pos)
    reference = list(board.generate_legal_moves())
    assert moves == reference, board.fen()
    assert nb.is_check(pos) == board.is_check()
    assert nb.checkers(pos) == board.checkers_mask()
    assert nb.insufficient_material(pos) == board.is_insufficient_material(), board.fen()
    assert (not moves and nb.is_check(pos)) == board.is_checkmate()
    assert (not moves and not nb.is_check(pos)) == board.is_stalemate()
    assert nb.turn(pos) == int(board.turn)
    assert nb.halfmove(pos) == board.halfmove_clock
    assert nb.fullmove(pos) == board.fullmove_number
    assert nb.castling(pos) == castling_bits(board)
    assert nb.ep_square(pos) == (64 if board.ep_square is None else board.ep_square)
    assert nb.legal_ep_square(pos) == legal_ep_square(board)
    # The incrementally kept position equals one built from the board from scratch (the
    # key included), so python-chess's status() accepts every position reached by play.
    assert np.array_equal(pos, nb.pos_from_board(board)), board.fen()
    return moves


def _play(seed: int, plies: int, keys: dict[int, Hashable],
          transpositions: dict[Hashable, int]) -> set[str]:
    """One random game checked at every ply; returns the move kinds it met."""
    rng = random.Random(seed)
    board = chess.Board()
    pos = nb.pos_from_board(board)
    child = nb.new_pos()
    kinds: set[str] = set()
    for _ in range(plies):
        moves = _check_position(pos, board)
        key = int(nb.key(pos))
        transposition = board._transposition_key()
        assert keys.setdefault(key, transposition) == transposition, board.fen()
        assert transpositions.setdefault(transposition, key) == key, board.fen()
        if not moves:
            break
        move = _pick(board, moves, rng)
        kinds.update(kind for kind, hit in (
            ("castling", board.is_castling(move)), ("en passant", board.is_en_passant(move)),
            ("promotion", bool(move.promotion)), ("capture", board.is_capture(move))) if hit)
        nb.make_move(pos, nb.encode_move(move), child)
        board.push(move)
        assert nb.board_from_pos(child).fen() == board.fen()
        pos, child = child, pos
    return kinds


@settings(max_examples=50, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_agree_with_python_chess_at_every_ply(seed: int) -> None:
    _play(seed, 150, {}, {})


def test_fixed_games_reach_every_move_kind_and_keys_match_transpositions() -> None:
    keys: dict[int, Hashable] = {}
    transpositions: dict[Hashable, int] = {}
    kinds: set[str] = set()
    for seed in range(6):
        kinds |= _play(seed, 150, keys, transpositions)
    assert kinds == {"castling", "en passant", "promotion", "capture"}
    assert len(transpositions) > 500


@pytest.mark.parametrize("name", [edge[0] for edge in RULE_EDGES])
def test_positions_at_the_edges_of_the_rules_agree_two_plies_deep(name: str) -> None:
    """From each position at the fifty-move limit, with bare minor pieces, promotions or a
    repetition history, every position two plies on agrees with python-chess: the half-move
    clock reaching 100 (or reset by a pawn move or capture), insufficient material after
    under-promotions and captures, checks and mates."""
    board = rule_edge_board(name)
    pos = nb.pos_from_board(board)
    child, grandchild = nb.new_pos(), nb.new_pos()
    clocks: set[int] = set()
    bare = 0
    for move in _check_position(pos, board):
        nb.make_move(pos, nb.encode_move(move), child)
        board.push(move)
        for reply in _check_position(child, board):
            nb.make_move(child, nb.encode_move(reply), grandchild)
            board.push(reply)
            _check_position(grandchild, board)
            clocks.add(board.halfmove_clock)
            bare += board.is_insufficient_material()
            board.pop()
        board.pop()
    if name.startswith("fifty"):  # the clock counts on over the limit
        assert max(clocks) == board.halfmove_clock + 2, name
    if name.startswith("promotion"):  # an under-promotion leaves bare material
        assert bare > 0, name


@pytest.mark.parametrize("fen", [
    "8/8/4k3/8/8/3K4/8/8 w - - 0 1",  # K v K
    "8/8/4k3/8/8/3K4/8/6N1 w - - 0 1",  # K+N v K
    "8/8/4k3/8/8/3K4/8/5B2 b - - 0 1",  # K+B v K
    "8/8/4k3/3b4/8/3K4/8/5B2 w - - 0 1",  # bishops on one colour
    "8/8/4k3/4b3/8/3K4/8/5B2 w - - 0 1",  # bishops on both colours
    "8/8/4k3/8/8/3K4/8/5BB1 w - - 0 1",  # two bishops, both colours
    "8/8/4k3/8/8/3K4/8/4NN2 w - - 0 1",  # K+N+N v K
    "8/8/4k3/4n3/8/3K4/8/6N1 w - - 0 1",  # knight v knight (selfmate possible)
    "8/8/4k3/4q3/8/3K4/8/6N1 w - - 0 1",  # knight v queen
    "8/8/4k3/4b3/8/3K4/8/6N1 w - - 0 1",  # knight v bishop
    "8/8/4k3/4p3/8/3K4/8/5B2 w - - 0 1",  # bishop v pawn
    "8/8/4k3/8/8/3K4/8/5R2 w - - 0 1",  # K+R v K
])
def test_insufficient_material_follows_python_chess(fen: str) -> None:
    board = chess.Board(fen)
    assert nb.insufficient_material(nb.pos_from_board(board)) == \
        board.is_insufficient_material()


# --- keys ------------------------------------------------------------------------------------


def _key_after(*sans: str, fen: str = chess.STARTING_FEN) -> int:
    board = chess.Board(fen)
    pos = nb.pos_from_board(board)
    child = nb.new_pos()
    for san in sans:
        move = board.parse_san(san)
        nb.make_move(pos, nb.encode_move(move), child)
        board.push(move)
        pos = child.copy()
    return int(nb.key(pos))


def test_keys_of_transpositions_are_equal() -> None:
    assert _key_after("Nf3", "Nf6", "Nc3") == _key_after("Nc3", "Nf6", "Nf3")
    assert _key_after("Nf3", "Nf6", "Ng1", "Ng8") == _key_after()
    assert _key_after("Nf3", "Nf6") != _key_after("Nc3", "Nf6")


def test_key_counts_the_ep_square_only_when_the_capture_is_legal() -> None:
    # After 1. e4 no black pawn can take on e3: the key is that of the same position
    # without an ep square, as in python-chess's transposition key.
    assert _key_after("e4") == _key_after(fen="rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR "
                                              "b KQkq - 0 1")
    legal = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
    assert _key_after(fen=legal) != _key_after(fen=legal.replace(" f6 ", " - "))
    pinned = "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1"  # exd3 would expose the king on the rank
    assert _key_after(fen=pinned) == _key_after(fen=pinned.replace(" d3 ", " - "))


def test_key_sees_castling_rights_and_turn() -> None:
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    assert len({_key_after(fen=fen.replace("KQkq", rights))
                for rights in ("KQkq", "Kkq", "Qkq", "kq", "-")}) == 5
    assert _key_after(fen=fen) != _key_after(fen=fen.replace(" w ", " b "))


# --- conversions and bad input -----------------------------------------------------------------


@pytest.mark.parametrize("case", POSITIONS, ids=IDS)
def test_board_round_trip(case: dict[str, Any]) -> None:
    board = chess.Board(case["fen"])
    back = nb.board_from_pos(nb.pos_from_board(board))
    assert back.fen() == board.fen()
    assert back.ep_square == board.ep_square
    assert back.fen(en_passant="fen") == board.fen(en_passant="fen")


def test_move_encoding_round_trips() -> None:
    for uci, expected in (("e2e4", 12 | 28 << 6), ("e1g1", 4 | 6 << 6),
                          ("a7b8n", 48 | 57 << 6 | 2 << 12), ("h2h1q", 15 | 7 << 6 | 5 << 12)):
        move = chess.Move.from_uci(uci)
        m = nb.encode_move(move)
        assert m == expected
        assert nb.decode_move(m) == move
        assert (nb.move_from(m), nb.move_to(m)) == (move.from_square, move.to_square)
        assert nb.move_promo(m) == (move.promotion or 0)


def test_layout_matches_the_record_dtype() -> None:
    from chessmoe.encoding import RECORD_DTYPE

    names = RECORD_DTYPE.names
    assert names is not None
    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    pos = nb.pos_from_board(board)
    bitboards = (board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.pawns,
                 board.knights, board.bishops, board.rooks, board.queens, board.kings)
    assert list(names[:8]) == ["white", "black", "pawns", "knights", "bishops", "rooks",
                               "queens", "kings"]
    assert [int(w) for w in pos[:8]] == list(bitboards)
    assert pos.dtype == np.uint64 and pos.shape == (nb.POS_WORDS,)


def test_refuses_chess960() -> None:
    board = chess.Board.from_chess960_pos(518)
    with pytest.raises(ValueError, match="Chess960") as error:
        nb.pos_from_board(board)
    assert "\n" not in str(error.value) and board.fen() in str(error.value)


@pytest.mark.parametrize("variant", [chess.variant.AtomicBoard, chess.variant.CrazyhouseBoard,
                                     chess.variant.ThreeCheckBoard])
def test_refuses_variants(variant: type[chess.Board]) -> None:
    board = variant()
    with pytest.raises(ValueError, match=variant.__name__) as error:
        nb.pos_from_board(board)
    assert "\n" not in str(error.value) and board.fen() in str(error.value)


@pytest.mark.parametrize("fen", ["8/8/8/8/8/8/8/K7 w - - 0 1",  # no black king
                                 "4k3/8/8/8/8/8/8/4K2R b K - 0 1",  # fine (control)
                                 "4k3/8/8/8/8/8/8/R3K2R w KQ e6 0 1",  # impossible ep
                                 "4k2R/8/8/8/8/8/8/4K3 w - - 0 1"])  # side not to move in check
def test_refuses_invalid_positions(fen: str) -> None:
    board = chess.Board(fen)
    if board.is_valid():
        nb.pos_from_board(board)
        return
    with pytest.raises(ValueError, match="invalid position") as error:
        nb.pos_from_board(board)
    assert "\n" not in str(error.value) and fen in str(error.value)


def test_the_218_move_position_fits_the_buffer() -> None:
    board = chess.Board(MAX_MOVES_FEN)
    pos = nb.pos_from_board(board)
    out = np.full(nb.MAX_MOVES, -1, dtype=np.int32)
    n = nb.gen_legal(pos, out)
    assert n == 218 == board.legal_moves.count() and nb.MAX_MOVES >= 256
    assert [nb.decode_move(int(m)) for m in out[:n]] == list(board.generate_legal_moves())
    assert (out[n:] == -1).all()
