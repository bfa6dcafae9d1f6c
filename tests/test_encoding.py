"""The 52-plane encoder and the 4864 policy map: golden values, hand checks, equality of
the three expansion paths, exhaustive policy round trips."""

from __future__ import annotations

import chess
import numpy as np
import pytest
import torch

from chessmoe.encoding import (
    N_PLANES,
    PLANES,
    POLICY_SIZE,
    board_to_planes,
    board_to_record,
    legal_mask,
    legal_policy_indices,
    move_to_policy_index,
    policy_index_to_move,
    policy_indices,
    records_to_planes,
    records_to_planes_torch,
    table6,
)
from chessmoe.games.pgn import iter_games
from chessmoe.games.sources import sample_path
from tests.helpers import random_positions


def _after(*sans: str, fen: str | None = None) -> chess.Board:
    board = chess.Board(fen) if fen else chess.Board()
    for san in sans:
        board.push_san(san)
    return board


def _plane(board: chess.Board, name: str, normalize: bool = False) -> np.ndarray:
    index = next(p.index for p in PLANES if p.name == name)
    return board_to_planes(board, normalize=normalize)[index]


# --- golden values -------------------------------------------------------------------------


def test_golden_sums() -> None:
    assert board_to_planes(chess.Board(), normalize=False).sum() == 1312
    assert board_to_planes(_after("e4", "c5"), normalize=False).sum() == 1316


def test_plane_table_is_the_papers_table6() -> None:
    assert len(PLANES) == N_PLANES == 52
    rows = table6()
    assert sum(count for _, count, _, _ in rows) == 52
    assert [r[0] for r in rows] == [
        "P1 pieces", "P2 pieces", "Repetitions*", "En-passant square", "P1 castling*",
        "P2 castling*", "No-progress count*", "Last Moves", "is960*", "P1 pieces (all)",
        "P2 pieces (all)", "Checkerboard", "P1 Material difference*", "Opposite color bishops*",
        "Checkers", "P1 material count*"]
    assert [r[1] for r in rows] == [6, 6, 2, 1, 2, 2, 1, 16, 1, 1, 1, 1, 5, 1, 1, 5]


# --- hand-checked positions -------------------------------------------------------------------


def test_black_to_move_is_mirrored() -> None:
    board = _after("e4")
    pawns = _plane(board, "P1 pawn")  # Black's pawns, seen from Black: on "rank 2"
    assert pawns[1].sum() == 8 and pawns.sum() == 8
    theirs = _plane(board, "P2 pawn")  # White's e-pawn on e4 appears on rank 5 (index 4)
    assert theirs[4, 4] == 1 and theirs[1, 4] == 0
    king = _plane(board, "P1 king")
    assert king[0, 4] == 1  # e8 -> e1 after the flip, files unchanged
    checker = _plane(board, "checkerboard")
    assert checker[0, 0] == 0 and checker[0, 1] == 1  # never flipped


def test_castling_planes_follow_the_side_to_move() -> None:
    board = _after("e4", "e5", "Ke2")  # White lost both rights; Black to move
    assert _plane(board, "P1 castling king side").all()  # Black still may castle
    assert _plane(board, "P1 castling queen side").all()
    assert not _plane(board, "P2 castling king side").any()
    assert not _plane(board, "P2 castling queen side").any()
    rook = _after("h4", "a5", "Rh3")  # White keeps only the queen side
    assert not _plane(rook, "P2 castling king side").any()
    assert _plane(rook, "P2 castling queen side").all()


def test_en_passant_plane_only_when_the_capture_is_legal() -> None:
    legal = _after("e4", "a6", "e5", "d5")  # exd6 is legal: square d6
    ep = _plane(legal, "en-passant square")
    assert ep.sum() == 1 and ep[5, 3] == 1
    not_legal = _after("e4", "d5")  # ep square set by python-chess? no capture possible
    assert not _plane(not_legal, "en-passant square").any()
    black = _after("a3", "c5", "a4", "c4", "d4")  # ...cxd3 e.p. for Black: d3 -> d6 mirrored
    ep_black = _plane(black, "en-passant square")
    assert ep_black.sum() == 1 and ep_black[5, 3] == 1


def test_repetition_planes_after_a_knight_shuffle() -> None:
    once = _after("Nf3", "Nf6", "Ng1", "Ng8")
    assert _plane(once, "repetition >= 1").all() and not _plane(once, "repetition >= 2").any()
    twice = _after("Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8")
    assert _plane(twice, "repetition >= 1").all() and _plane(twice, "repetition >= 2").all()
    fresh = _after("Nf3", "Nf6", "Ng1")
    assert not _plane(fresh, "repetition >= 1").any()


def test_promotion_changes_material_planes() -> None:
    board = _after("a8=Q", fen="4k3/P7/8/8/8/8/8/4K3 w - - 0 1")  # Black to move
    assert (_plane(board, "material difference queen") == -1).all()  # P1 is Black
    assert (_plane(board, "material difference pawn") == 0).all()
    assert (_plane(board, "P1 material pawn") == 0).all()
    planes = board_to_planes(board, normalize=True)
    assert planes[40 + 4, 0, 0] == pytest.approx(-1 / 8)


def test_halfmove_counter_plane_and_normalisation() -> None:
    board = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 37 60")
    assert (_plane(board, "no-progress count") == 37).all()
    assert _plane(board, "no-progress count", normalize=True)[3, 3] == pytest.approx(37 / 50)


def test_last_moves_most_recent_first_and_checkers() -> None:
    board = _after("e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#")
    planes = board_to_planes(board, normalize=False)
    # Black to move: Qxf7 (h5 -> f7) is the latest move, mirrored: h5 -> h4, f7 -> f2.
    assert planes[20, 3, 7] == 1 and planes[21, 1, 5] == 1
    assert planes[22, 0, 6] == 1 and planes[23, 2, 5] == 1  # Nf6: g8 -> g1, f6 -> f3
    assert planes[34:36].sum() == 0  # only 7 moves so far: the 8th slot is empty
    assert planes[46, 1, 5] == 1 and planes[46].sum() == 1  # the queen on f7 gives check


def test_opposite_coloured_bishops() -> None:
    opposite = chess.Board("4k3/8/8/3b4/8/8/8/2B1K3 w - - 0 1")  # c1 dark, d5 light
    same = chess.Board("4k3/8/8/8/3b4/8/8/2B1K3 w - - 0 1")  # d4 dark
    assert _plane(opposite, "opposite-coloured bishops").all()
    assert not _plane(same, "opposite-coloured bishops").any()


# --- three paths agree --------------------------------------------------------------------


def _real_boards(limit: int) -> list[chess.Board]:
    boards: list[chess.Board] = []
    for game in iter_games(sample_path(), max_games=60):
        board = chess.Board()
        for move in game.moves:
            boards.append(board.copy())
            board.push(move)
        if len(boards) >= limit:
            break
    return boards[:limit]


@pytest.mark.slow
@pytest.mark.parametrize("normalize", [True, False])
def test_numpy_torch_and_single_board_paths_agree(normalize: bool) -> None:
    boards = _real_boards(3000) + list(random_positions(200, seed=21))
    records = np.stack([board_to_record(b) for b in boards])
    expanded = records_to_planes(records, normalize)
    single = np.stack([board_to_planes(b, normalize) for b in boards])
    np.testing.assert_array_equal(expanded, single)
    torch_planes = records_to_planes_torch(records, normalize).numpy()
    np.testing.assert_array_equal(torch_planes, expanded)
    assert expanded.shape == (len(boards), 52, 8, 8) and expanded.dtype == np.float32


def test_record_expansion_into_a_given_buffer() -> None:
    records = np.stack([board_to_record(b) for b in random_positions(50, seed=3)])
    buffer = np.full((50, 52, 8, 8), 7.0, dtype=np.float32)
    out = records_to_planes(records, out=buffer)
    np.testing.assert_array_equal(out, records_to_planes(records))
    with pytest.raises(TypeError, match="lack the field"):
        records_to_planes(np.zeros(3, dtype=[("white", "<u8")]))


# --- policy map ---------------------------------------------------------------------------


@pytest.mark.parametrize(("fen", "uci", "index"), [
    ("8/P7/8/8/8/8/8/k6K w - - 0 1", "a7a8q", 74 * 64 + 48),
    ("8/P7/8/8/8/8/8/k6K w - - 0 1", "a7a8n", 65 * 64 + 48),
    ("1r6/P7/8/8/8/8/8/k6K w - - 0 1", "a7b8r", 72 * 64 + 48),
    ("r7/1P6/8/8/8/8/8/k6K w - - 0 1", "b7a8b", 67 * 64 + 49),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", (2 * 7 + 1) * 64 + 4),  # E, 2
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1", (6 * 7 + 1) * 64 + 4),  # W, 2
    (chess.STARTING_FEN, "g1f3", (56 + 7) * 64 + 6),  # knight (+2, -1)
])
def test_policy_golden_indices(fen: str, uci: str, index: int) -> None:
    board = chess.Board(fen)
    move = chess.Move.from_uci(uci)
    assert move in board.legal_moves
    assert move_to_policy_index(move, board) == index
    assert policy_index_to_move(index, board) == move


def test_black_moves_are_mirrored() -> None:
    white = chess.Board()
    black = _after("e4")
    assert move_to_policy_index(chess.Move.from_uci("e7e5"), black) == move_to_policy_index(
        chess.Move.from_uci("e2e4"), white)
    promo = chess.Board("4k3/8/8/8/8/8/p7/4K3 b - - 0 1")
    assert move_to_policy_index(chess.Move.from_uci("a2a1n"), promo) == 65 * 64 + 48


def test_every_legal_move_round_trips_with_a_unique_index() -> None:
    special = [
        chess.Board("r3k2r/pPpppppp/8/8/8/8/PPPPPPpP/R3K2R w KQkq - 0 1"),  # promotions both
        chess.Board("r3k2r/pPpppppp/8/8/8/8/PPPPPPpP/R3K2R b KQkq - 0 1"),
        _after("e4", "a6", "e5", "d5"),  # en passant
        _after("a3", "c5", "a4", "c4", "d4"),  # en passant for Black
    ]
    boards = special + _real_boards(1500) + list(random_positions(300, seed=8))
    promotions = castles = en_passant = 0
    for board in boards:
        moves, indices = legal_policy_indices(board)
        assert len(set(indices.tolist())) == len(moves)
        assert ((indices >= 0) & (indices < POLICY_SIZE)).all()
        for move, index in zip(moves, indices.tolist(), strict=True):
            assert policy_index_to_move(index, board) == move
        batch = policy_indices([m.from_square for m in moves], [m.to_square for m in moves],
                               [m.promotion or 0 for m in moves], [board.turn] * len(moves))
        assert batch.tolist() == indices.tolist()
        promotions += sum(m.promotion is not None and m.promotion != chess.QUEEN for m in moves)
        castles += sum(board.is_castling(m) for m in moves)
        en_passant += sum(board.is_en_passant(m) for m in moves)
    assert promotions and castles and en_passant  # the special moves were exercised


def test_legal_mask_and_invalid_indices() -> None:
    boards = [chess.Board(), _after("e4")]
    mask = legal_mask(boards)
    assert mask.shape == (2, POLICY_SIZE) and mask.sum(axis=1).tolist() == [20, 20]
    with pytest.raises(ValueError, match="outside"):
        policy_index_to_move(POLICY_SIZE, chess.Board())
    with pytest.raises(ValueError, match="leaves the board"):
        policy_index_to_move(0 * 64 + 63, chess.Board())  # N from h8
    assert policy_indices([0], [0], [0], [True]).tolist() == [-1]


def test_torch_expansion_runs_on_the_available_device() -> None:
    device = "cuda" if torch.cuda.is_available() else "cpu"
    records = np.stack([board_to_record(b) for b in random_positions(20, seed=2)])
    planes = records_to_planes_torch(records, device=device)
    assert planes.device.type == device
    if device == "cpu":
        np.testing.assert_array_equal(planes.numpy(), records_to_planes(records))
    else:
        # CUDA divides by a scalar through its reciprocal: on an H200 (2026-11-26) the
        # halfmove plane read 0.099999994 where numpy gives 0.1, one float32 ulp apart.
        np.testing.assert_allclose(planes.cpu().numpy(), records_to_planes(records),
                                   rtol=2e-7, atol=0)


def test_a_threefold_repetition_is_stored_as_2_and_sets_plane_13_on_every_path() -> None:
    """The position after two knight round trips has occurred twice before: its record
    stores repetition 2, and planes 12 and 13 are all ones from the board, from the record
    (numpy) and from the record on torch; a fourth occurrence stays capped at 2."""
    from chessmoe.encoding import board_to_record, records_to_planes, records_to_planes_torch

    shuffle = ("Nf3", "Nf6", "Ng1", "Ng8")
    twice = _after(*shuffle, *shuffle)
    record = board_to_record(twice)[None]  # (1,) records
    assert int(record["repetition"][0]) == 2
    for planes in (board_to_planes(twice, normalize=False),
                   records_to_planes(record, normalize=False)[0],
                   records_to_planes_torch(record, normalize=False)[0].cpu().numpy()):
        assert planes[12].all() and planes[13].all()
    thrice = _after(*shuffle, *shuffle, *shuffle)
    assert int(board_to_record(thrice)["repetition"]) == 2
    once = board_to_record(_after(*shuffle))[None]
    assert int(once["repetition"][0]) == 1
    assert not records_to_planes(once, normalize=False)[0][13].any()
