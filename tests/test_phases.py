"""Phase rules at their boundaries, golden values from FACTS.md, and batch == scalar."""

from __future__ import annotations

import itertools
import random

import chess
import numpy as np
import pytest

from chessmoe import phases
from chessmoe.phases import (
    BoardBatch,
    Division,
    Phase,
    backrank_sparse,
    division_batch,
    lichess_division,
    lichess_phase,
    majors_minors,
    mixedness,
    mixedness_batch,
    movecount_phase,
    phase_definition,
    tapered_alpha,
)
from tests.helpers import random_game, random_positions

# --- an independent reference, written from FACTS.md section 1.1 with square loops ---------


def _ref_score(table: str, w: int, b: int, y: int) -> int:
    base = {
        (0, 0): 0, (1, 0): 9 - y, (2, 0): y if y > 2 else 0,
        (3, 0): y + 2 if y > 1 else 0, (4, 0): y + 2 if y > 1 else 0, (0, 1): 1 + y,
        (0, 2): 8 - y if y < 6 else 0, (0, 3): 10 - y if y < 7 else 0,
        (0, 4): 10 - y if y < 7 else 0, (1, 1): 5 + abs(3 - y), (2, 1): 4 + y,
        (3, 1): 5 + y, (1, 2): 10 - y, (2, 2): 7, (1, 3): 11 - y,
    }
    if table == "lichess-2025":
        base.update({(1, 1): 5 + abs(4 - y), (2, 1): 3 + y, (3, 1): 4 + y, (1, 2): 11 - y,
                     (1, 3): 12 - y})
    if table == "engine":
        if y <= 2:
            base[(2, 0)] = 2
        if y == 1:
            base[(3, 0)] = base[(4, 0)] = 3
        if y >= 6:
            base[(0, 2)] = 2
        if y == 7:
            base[(0, 3)] = base[(0, 4)] = 3
    return base.get((w, b), 0)


def _ref_mixedness(board: chess.Board, table: str = "lichess") -> int:
    total = 0
    for file, rank in itertools.product(range(7), range(7)):
        w = b = 0
        for df, dr in itertools.product((0, 1), (0, 1)):
            piece = board.piece_at(chess.square(file + df, rank + dr))
            if piece is not None:
                w += piece.color == chess.WHITE
                b += piece.color == chess.BLACK
        total += _ref_score(table, w, b, rank + 1)
    return total


# --- golden values ----------------------------------------------------------------------


def test_mixedness_golden_values() -> None:
    board = chess.Board()
    assert mixedness(board) == 0
    board.push_san("e4")
    assert mixedness(board) == 36
    board.push_san("e5")
    assert mixedness(board) == 64


def test_engine_table_scores_start_position_70() -> None:
    assert mixedness(chess.Board(), "engine") == 70
    assert mixedness(chess.Board(), "lichess-2025") == 0


@pytest.mark.parametrize("table", phases.MIXEDNESS_TABLES)
def test_mixedness_matches_square_loop_reference(table: str) -> None:
    for board in random_positions(150):
        assert mixedness(board, table) == _ref_mixedness(board, table), board.fen()


def test_unknown_table_is_an_error() -> None:
    with pytest.raises(ValueError, match="known: lichess"):
        mixedness(chess.Board(), "scalachess")


# --- boundaries of the position-only rule ---------------------------------------------------


def test_endgame_boundary_six_versus_seven_pieces() -> None:
    six = chess.Board("4k3/8/8/3nb3/3NB3/2R1R3/8/4K3 w - - 0 40")
    seven = chess.Board("4k3/8/8/3nb3/3NB3/2R1R3/8/3QK3 w - - 0 40")
    assert (majors_minors(six), majors_minors(seven)) == (6, 7)
    assert lichess_phase(six) is Phase.ENDGAME
    assert lichess_phase(seven) is Phase.MIDDLEGAME


def test_middlegame_boundary_ten_versus_eleven_pieces() -> None:
    eleven = chess.Board("r1bqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKB1R w KQkq - 0 1")
    ten = chess.Board("r1bqkb1r/pppppppp/8/8/8/8/PPPPPPPP/R1BQKB1R w KQkq - 0 1")
    for board in (eleven, ten):  # the other two triggers stay off
        assert not backrank_sparse(board)
        assert mixedness(board) <= 150
    assert (majors_minors(eleven), majors_minors(ten)) == (11, 10)
    assert lichess_phase(eleven) is Phase.OPENING
    assert lichess_phase(ten) is Phase.MIDDLEGAME


@pytest.mark.parametrize("color", [chess.WHITE, chess.BLACK])
def test_backrank_boundary_three_versus_four_own_pieces(color: chess.Color) -> None:
    # White keeps Ra1 Qd1 Ke1 Rh1 on rank 1 (4), minor pieces developed to rank 3.
    four = chess.Board("rnbqkbnr/pppppppp/8/8/8/2NBBN2/PPPPPPPP/R2QK2R w KQkq - 0 1")
    three = chess.Board("rnbqkbnr/pppppppp/8/8/8/2NBBN2/PPPPPPPP/R3K2R w KQkq - 0 1")
    three.set_piece_at(chess.G3, chess.Piece(chess.QUEEN, chess.WHITE))
    if color == chess.BLACK:
        four, three = four.mirror(), three.mirror()
    for board in (four, three):
        assert majors_minors(board) > 10
        assert mixedness(board) <= 150
    rank = chess.BB_RANK_1 if color == chess.WHITE else chess.BB_RANK_8
    assert (four.occupied_co[color] & rank).bit_count() == 4
    assert (three.occupied_co[color] & rank).bit_count() == 3
    assert not backrank_sparse(four) and backrank_sparse(three)
    assert lichess_phase(four) is Phase.OPENING
    assert lichess_phase(three) is Phase.MIDDLEGAME


def test_backrank_counts_the_king_and_only_own_pieces() -> None:
    # Black pieces on rank 1 do not help White's back rank.
    board = chess.Board("4k3/8/8/8/8/8/8/rnb1K3 w - - 0 1")
    assert (board.occupied_co[chess.WHITE] & chess.BB_RANK_1).bit_count() == 1
    assert backrank_sparse(board)


def test_mixedness_boundary_150_versus_151() -> None:
    # Real positions from the Lichess 2013-01 excerpt, m > 10 and no sparse back rank.
    at_150 = chess.Board("r1bq1rk1/1p2bpp1/p1n1p2p/3p4/1PP2B2/P2BPP1P/4NP2/R2Q1RK1 b - - 0 14")
    at_151 = chess.Board("r2qk2r/pp5p/3b2p1/3p1b2/2pnp3/1NN5/PPP2PPP/R1BQ1RK1 b kq - 3 14")
    for board, value in ((at_150, 150), (at_151, 151)):
        assert mixedness(board) == _ref_mixedness(board) == value
        assert majors_minors(board) > 10 and not backrank_sparse(board)
    assert lichess_phase(at_150) is Phase.OPENING
    assert lichess_phase(at_151) is Phase.MIDDLEGAME
    # The tables disagree on these very positions.
    assert mixedness(at_150, "lichess-2025") == 149
    assert lichess_phase(at_150, "engine") is Phase.MIDDLEGAME


# --- whole-game division --------------------------------------------------------------------


def test_division_of_a_real_game_matches_forward_only_rule() -> None:
    board = chess.Board()
    boards = [board.copy()]
    for san in ("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 "
                "c4 c6 cxb5 axb5 Nc3 Bb7 Bg5 b4 Nb1 h6 Bh4 c5 dxe5 Nxe4 Bxe7 Qxe7 exd6 Qf6 "
                "Nbd2 Nxd6 Nc4 Nxc4 Bxc4 Nb6 Ne5 Rae8 Bxf7+ Rxf7 Nxf7 Rxe1+ Qxe1 Kxf7 Qe3 Qg5 "
                "Qxg5 hxg5").split():
        board.push_san(san)
        boards.append(board.copy())
    division = lichess_division(boards)
    trig = [phases.middlegame_trigger(b) for b in boards]
    endg = [majors_minors(b) <= 6 for b in boards]
    assert division.middle == trig.index(True)
    assert division.end == endg.index(True)
    assert division.plies == len(boards) - 1
    labels = division.labels()
    assert labels[0] is Phase.OPENING and labels[-1] is Phase.ENDGAME
    assert all(a <= b for a, b in itertools.pairwise(labels))  # forward only


def test_division_drops_middle_when_equal_to_end() -> None:
    opening = chess.Board()
    endgame = chess.Board("4k3/8/8/3nb3/3NB3/8/8/2R1K3 w - - 0 30")
    division = lichess_division([opening, endgame])
    assert division == Division(middle=None, end=1, plies=1)
    assert division.labels() == [Phase.OPENING, Phase.ENDGAME]


def test_game_from_endgame_fen_has_no_middle_and_ends_at_zero() -> None:
    import chess.pgn

    game = chess.pgn.Game.from_board(chess.Board("8/8/4k3/8/8/4K3/4P3/8 w - - 0 1"))
    node = game
    for uci in ("e3d4", "e6d6", "e2e4", "d6e6"):
        node = node.add_variation(chess.Move.from_uci(uci))
    division = lichess_division(game)
    assert division.middle is None and division.end == 0 and division.plies == 4


def test_promotion_lifting_count_above_six_stays_endgame() -> None:
    board = chess.Board("4k3/P7/8/3nb3/3NB3/2R5/8/4K3 w - - 0 50")
    assert majors_minors(board) == 5
    boards = [board.copy()]
    board.push_san("a8=Q+")  # back to 6
    boards.append(board.copy())
    board.push_san("Kd7")
    boards.append(board.copy())
    board.set_piece_at(chess.H1, chess.Piece(chess.ROOK, chess.WHITE))  # now 7 pieces
    boards.append(board.copy())
    assert majors_minors(boards[-1]) == 7
    assert lichess_phase(boards[-1]) is Phase.MIDDLEGAME  # position-only goes back
    division = lichess_division(boards)
    assert division.end == 0
    assert division.phase_at(3) is Phase.ENDGAME  # the division does not


def test_division_batch_matches_scalar_on_many_games() -> None:
    rng = random.Random(3)
    games = [random_game(rng, 200, min_plies=1) for _ in range(30)]
    flat = [b for g in games for b in g]
    starts = np.cumsum([0] + [len(g) for g in games[:-1]])
    for table in phases.MIXEDNESS_TABLES:
        middle, end, labels = division_batch(BoardBatch.from_boards(flat), starts, table)
        offset = 0
        for i, boards in enumerate(games):
            div = lichess_division(boards, table)
            assert middle[i] == (-1 if div.middle is None else div.middle)
            assert end[i] == (-1 if div.end is None else div.end)
            assert labels[offset:offset + len(boards)].tolist() == [int(p) for p in div.labels()]
            offset += len(boards)


# --- move-count and tapered phases ---------------------------------------------------------

BOUNDARIES = {  # completed full moves where each phase starts (FACTS.md 1.3)
    2: [0, 21],
    3: [0, 14, 28],
    4: [0, 11, 22, 33],
    5: [0, 9, 18, 27, 36],
}


@pytest.mark.parametrize("n", sorted(BOUNDARIES))
def test_movecount_boundaries(n: int) -> None:
    def at(completed: int) -> int:
        return movecount_phase(chess.Board(f"4k3/8/8/8/8/8/8/4K3 w - - 0 {completed + 1}"), n)

    for phase, start in enumerate(BOUNDARIES[n]):
        assert at(start) == phase
        if start > 0:
            assert at(start - 1) == phase - 1
    assert at(500) == n - 1
    assert phases.movecount_boundaries(n)[0][0] == 0
    assert phases.movecount_boundaries(n)[-1][1] is None


def test_tapered_alpha_endpoints_and_midpoint() -> None:
    assert tapered_alpha(chess.Board()) == 1.0
    assert tapered_alpha(chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")) == 0.0
    # Q + R + R + B: 2500 + 2564 + 826 = 5890 -> (5890 - 3915) / 11343
    board = chess.Board("4k3/8/8/8/8/8/8/RB1QK2R w - - 0 1")
    assert tapered_alpha(board) == pytest.approx((5890 - 3915) / (15258 - 3915))
    batch = BoardBatch.from_boards([chess.Board(), board])
    assert phases.tapered_alpha_batch(batch).tolist() == pytest.approx(
        [1.0, (5890 - 3915) / (15258 - 3915)])


# --- registry and vectorised paths ----------------------------------------------------------


def test_registry_names_and_unknown_name() -> None:
    assert phases.PHASE_DEFINITIONS == ("lichess", "lichess-2025", "engine", "movecount2",
                                        "movecount3", "movecount4", "movecount5")
    lichess = phase_definition("lichess")
    assert lichess.n_phases == 3 and lichess.phase_names == ("opening", "middlegame", "endgame")
    m3 = phase_definition("movecount3")
    assert m3.phase_names == ("moves 0-13", "moves 14-27", "moves 28+")
    with pytest.raises(ValueError, match="known: lichess, lichess-2025, engine, movecount2"):
        phase_definition("movecount6")


@pytest.mark.slow
@pytest.mark.parametrize("name", phases.PHASE_DEFINITIONS)
def test_batch_phases_equal_scalar_phases(name: str) -> None:
    definition = phase_definition(name)
    boards = random_positions(300, seed=11)
    batch = BoardBatch.from_boards(boards)
    assert definition.phases(batch).tolist() == [definition.phase(b) for b in boards]


def test_mixedness_batch_equals_scalar_and_handles_empty() -> None:
    boards = random_positions(200, seed=5)
    batch = BoardBatch.from_boards(boards)
    for table in phases.MIXEDNESS_TABLES:
        assert mixedness_batch(batch.white, batch.black, table, chunk=37).tolist() == [
            mixedness(b, table) for b in boards]
    empty = np.zeros(0, dtype=np.uint64)
    assert mixedness_batch(empty, empty).shape == (0,)
