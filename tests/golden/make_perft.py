"""Regenerate the perft golden file with python-chess: ``python -m tests.golden.make_perft``.

Each position's leaf counts at depths 1..4 (1..5 for the few marked ``depth 5``) are counted
by python-chess, the reference the numba board (:mod:`chessmoe.search.native.board`) must
agree with. The well-known positions' published counts are asserted before the file is
written, so a python-chess that disagreed with them would be noticed here. Takes a few
minutes (python-chess is slow at depth 5).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import chess

GOLDEN = Path(__file__).parent / "perft.json"
HOW = "python -m tests.golden.make_perft"

# (name, FEN, deepest depth). Names say what each position exercises.
POSITIONS: list[tuple[str, str, int]] = [
    # The well-known perft positions (chessprogramming.org "Perft Results").
    ("start", chess.STARTING_FEN, 5),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4),
    ("cpw position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
    ("cpw position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4),
    ("cpw position 4 mirrored",
     "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 4),
    ("cpw position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4),
    ("cpw position 6",
     "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 4),
    # Castling rights: partly lost, prevented by attacks, a rook capturable on its corner.
    ("castling: partly lost rights", "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1", 4),
    ("castling: rooks and bishops x-ray", "r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1", 4),
    ("castling: prevented by queens", "r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1", 4),
    ("castling: queen takes a corner rook", "r3k2r/8/8/8/3Q4/8/8/R3K2R w KQkq - 0 1", 4),
    ("castling: pawn takes h1 promoting", "r3k2r/8/8/8/8/8/6p1/R3K2R b KQkq - 0 1", 4),
    ("castling: short castle gives check", "5k2/8/8/8/8/8/8/4K2R w K - 0 1", 4),
    ("castling: long castle gives check", "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", 4),
    ("castling: through an attacked b-file is fine", "1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1", 4),
    # En passant: pins, skewers, evasions.
    ("ep: horizontal skewer (queen on the rank)", "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1", 4),
    ("ep: horizontal skewer (rook, white captures)", "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", 4),
    ("ep: diagonal pin off the line", "8/1k6/8/8/3Pp3/8/8/4K2B b - d3 0 1", 4),
    ("ep: diagonal pin along the line", "8/8/6k1/8/3Pp3/8/8/1B2K3 b - d3 0 1", 4),
    ("ep: captures the checking pawn", "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", 4),
    ("ep: capture gives check", "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 5),
    ("ep: pinned bishop line", "8/8/8/2k5/2pP4/8/B7/4K3 b - d3 0 3", 4),
    ("ep: two capturers", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 4),
    ("ep: raw square without a capturer",
     "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", 4),
    ("ep: avoid the illegal capture", "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", 4),
    ("ep: avoid the illegal capture (bishop)", "8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1", 4),
    # Promotions, with captures and under-promotions.
    ("promotion: both sides, with captures", "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", 5),
    ("promotion: out of check", "2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", 4),
    ("promotion: to give check", "4k3/1P6/8/8/8/8/K7/8 w - - 0 1", 4),
    ("promotion: under-promotion to give check", "8/P1k5/K7/8/8/8/8/8 w - - 0 1", 4),
    # Checks: single, double, discovered.
    ("check: bishop check", "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3",
     4),
    ("check: double check (rook and knight)", "4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1", 4),
    ("check: discovered check", "8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1", 4),
    ("check: kiwipete line with a check", "r3k2r/p1pp1pb1/bn2Qnp1/2qPN3/1p2P3/2N5/PPPBBPPP/R3K2R "
     "b KQkq - 3 2", 4),
    ("check: knight check", "rnb2k1r/pp1Pbppp/2p5/q7/2B5/8/PPPQNnPP/RNB1K2R w KQ - 3 9", 4),
    # Stalemate and mate (at the root and close to it).
    ("stalemate at the root", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 4),
    ("mate at the root (fool's mate)",
     "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", 4),
    ("self-stalemate", "K1k5/8/P7/8/8/8/8/8 w - - 0 1", 4),
    ("stalemate and checkmate (white)", "8/k1P5/8/1K6/8/8/8/8 w - - 0 1", 4),
    ("stalemate and checkmate (black)", "8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1", 4),
    # The most legal moves known (218).
    ("218 legal moves", "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1", 3),
]

# Published counts (chessprogramming.org) the file must reproduce.
KNOWN: dict[str, list[int]] = {
    "start": [20, 400, 8902, 197281, 4865609],
    "kiwipete": [48, 2039, 97862, 4085603],
    "cpw position 3": [14, 191, 2812, 43238, 674624],
    "cpw position 4": [6, 264, 9467, 422333],
    "cpw position 4 mirrored": [6, 264, 9467, 422333],
    "cpw position 5": [44, 1486, 62379, 2103487],
    "cpw position 6": [46, 2079, 89890, 3894594],
    "promotion: both sides, with captures": [24, 496, 9483, 182838, 3605103],
    "218 legal moves": [218],
}


def perft(board: chess.Board, depth: int) -> int:
    """Leaf positions ``depth`` plies below ``board``, by python-chess."""
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in list(board.generate_legal_moves()):
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def main() -> None:
    rows = []
    for name, fen, deepest in POSITIONS:
        board = chess.Board(fen)
        assert board.is_valid(), (name, fen, board.status())
        counts = [perft(board, d) for d in range(1, deepest + 1)]
        known = KNOWN.get(name, [])
        assert counts[:len(known)] == known[:len(counts)], (name, counts, known)
        rows.append({"name": name, "fen": fen, "perft": counts})
        print(f"{name}: {counts}", file=sys.stderr, flush=True)
    GOLDEN.write_text(json.dumps({
        "how": HOW,
        "what": "perft leaf counts at depths 1..len(perft), by python-chess "
                f"{chess.__version__}; the numba board must reproduce every one",
        "positions": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
