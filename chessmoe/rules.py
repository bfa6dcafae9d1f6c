"""When the rules of chess end a game, said once for every game the kit plays or generates
(:func:`rules_outcome`), in two readings (``DrawRules``): ``"cutechess"``, what cutechess-cli's
board declares (fastchess declares the same), and ``"claim"``, python-chess's
``outcome(claim_draw=True)``, under which the small, powered and ratings tournaments are
played.
"""

from __future__ import annotations

from typing import Literal

import chess

__all__ = ["DRAW_RULES", "DrawRules", "cutechess_insufficient", "rules_outcome"]

DrawRules = Literal["cutechess", "claim"]
DRAW_RULES: tuple[DrawRules, ...] = ("cutechess", "claim")

_OUTCOME_REASON = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient_material",
    chess.Termination.SEVENTYFIVE_MOVES: "fifty_moves",
    chess.Termination.FIFTY_MOVES: "fifty_moves",
    chess.Termination.FIVEFOLD_REPETITION: "repetition",
    chess.Termination.THREEFOLD_REPETITION: "repetition",
}


def cutechess_insufficient(board: chess.Board) -> bool:
    """cutechess's insufficient mating material: kings count 0, knights 1, bishops 1 for
    each square colour they stand on (both sides together), any other piece 2; at most 1
    is a draw (K v K, K+N v K, K+B v K, kings and bishops all on one colour)."""
    if board.pawns or board.rooks or board.queens:
        return False
    bishops = board.bishops
    colours = bool(bishops & chess.BB_LIGHT_SQUARES) + bool(bishops & chess.BB_DARK_SQUARES)
    return chess.popcount(board.knights) + colours <= 1


def rules_outcome(board: chess.Board, draw_rules: DrawRules = "cutechess"
                  ) -> tuple[str, str] | None:
    """(result, termination) if the rules of chess end the game in ``board``, else None.

    ``"cutechess"``: mate or stalemate, then insufficient material as cutechess counts it,
    then the fifty-move rule (100 plies), then threefold repetition that has happened (the
    position on the board seen for the third time since the game's first position).
    ``"claim"``: python-chess's ``outcome(claim_draw=True)``, which also ends a game when a
    draw could be claimed with the next move. See :class:`Adjudication`.
    """
    if draw_rules == "claim":
        outcome = board.outcome(claim_draw=True)
        if outcome is None:
            return None
        return outcome.result(), _OUTCOME_REASON.get(outcome.termination, "repetition")
    if not any(board.generate_legal_moves()):
        if board.is_check():
            return ("0-1" if board.turn == chess.WHITE else "1-0"), "checkmate"
        return "1/2-1/2", "stalemate"
    if cutechess_insufficient(board):
        return "1/2-1/2", "insufficient_material"
    if board.halfmove_clock >= 100:
        return "1/2-1/2", "fifty_moves"
    if board.is_repetition(3):
        return "1/2-1/2", "repetition"
    return None


