"""When a game is adjudicated: the paper's cutechess adjudication (resign and draw by the
engines' scores) as rules (:class:`Adjudication`), and its two readings -- cutechess-cli's own
(:class:`CutechessAdjudicator`) and the claim reading (:func:`claim_adjudication`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import chess

from chessmoe.rules import DRAW_RULES, DrawRules

__all__ = ["Adjudication", "CutechessAdjudicator", "claim_adjudication"]


@dataclass(frozen=True)
class Adjudication:
    """The paper's cutechess adjudication (``-resign movecount=5 score=600 -draw
    movenumber=30 movecount=4 score=20``); ``max_plies`` caps runaway games (a draw).

    By default the rules read as cutechess reads that command line (its
    ``GameAdjudicator``): resignation is *one-sided* (``twosided`` is not set: a side whose
    own score stays at or below -600 cp for 5 of its moves loses, whatever the opponent
    says), and draw adjudication starts once 30 full moves have been *played* from the
    opening position (not from the FEN's move number) and the last 8 scores (4 per side)
    lie within 20 cp. ``resign_two_sided`` and ``draw_from_fen_move_number`` give the kit's
    earlier, stricter reading (both engines must agree; the FEN's move number counts).

    ``draw_rules`` says when the rules of chess end a game. ``"cutechess"`` (the default) is
    what cutechess-cli's board declares, in its order: no legal move (mate or stalemate),
    insufficient mating material (kings count 0, knights 1, bishops 1 per square colour
    present, anything else 2; a draw at 1 or less), the fifty-move rule once 100 plies have
    passed without a capture or pawn move, and threefold repetition once the position
    *has occurred* for the third time in the game. ``"claim"`` is python-chess's reading
    (``outcome(claim_draw=True)``): a game also ends as soon as a draw
    *could be claimed*, i.e. when some legal move would repeat a position for the third
    time or reach the fifty-move count, so games end a move or more early. The powered
    tournament committed before this option existed was played under ``"claim"``.

    Adjudication follows the same choice. Under ``"cutechess"`` it is cutechess's
    (:class:`CutechessAdjudicator`): the game's rules are checked first after a move, and
    the draw counter restarts after every capture or pawn move. Under ``"claim"`` it is the
    claim reading, kept so the tournaments played under it replay: adjudication is checked
    before the game's rules and the draw needs the last 4 scores of each side within
    ``draw_score``, whatever was captured.
    """

    resign_movecount: int = 5
    resign_score: int = 600
    draw_movenumber: int = 30
    draw_movecount: int = 4
    draw_score: int = 20
    max_plies: int = 600
    resign_two_sided: bool = False
    draw_from_fen_move_number: bool = False
    draw_rules: DrawRules = "cutechess"

    def __post_init__(self) -> None:
        if self.draw_rules not in DRAW_RULES:
            raise ValueError(f"unknown draw rules {self.draw_rules!r}; known: "
                             f"{', '.join(DRAW_RULES)}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Adjudication:
        """Rules as a spec records them; a record written before ``draw_rules`` existed
        was played under ``"claim"`` (the only reading the kit had then)."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown adjudication field(s) {unknown}; known: {sorted(known)}")
        return cls(**{"draw_rules": "claim", **data})


def _trailing(scores: list[int | None], test: Callable[[int], bool]) -> int:
    """How many of the last scores pass ``test`` in a row (a missing score breaks it)."""
    count = 0
    for score in reversed(scores):
        if score is None or not test(score):
            break
        count += 1
    return count


def claim_adjudication(scores: dict[chess.Color, list[int | None]], board: chess.Board,
                rules: Adjudication, plies: int | None = None) -> tuple[str, str] | None:
    """``(result, reason)`` when the adjudication rules end the game, else ``None``, as read
    under ``draw_rules="claim"`` (see :class:`Adjudication`).

    ``scores`` are each side's own scores in order; ``plies`` the plies played from the
    opening position (default: both sides' score counts)."""
    white, black = scores[chess.WHITE], scores[chess.BLACK]
    if plies is None:
        plies = len(white) + len(black)
    n = rules.resign_movecount
    limit = rules.resign_score
    mover = not board.turn  # the side that just moved and scored
    for side in (mover, board.turn):
        own, other = (white, black) if side == chess.WHITE else (black, white)
        losing = _trailing(own, lambda s: s <= -limit) >= n
        if losing and (not rules.resign_two_sided
                       or _trailing(other, lambda s: s >= limit) >= n):
            return ("0-1" if side == chess.WHITE else "1-0"), "resign_adjudication"
    n = rules.draw_movecount
    started = (board.fullmove_number > rules.draw_movenumber
               if rules.draw_from_fen_move_number else plies // 2 >= rules.draw_movenumber)
    if started and len(white) >= n and len(black) >= n:
        last = white[-n:] + black[-n:]
        if all(s is not None and abs(s) <= rules.draw_score for s in last):
            return "1/2-1/2", "draw_adjudication"
    return None


class CutechessAdjudicator:
    """cutechess-cli's ``GameAdjudicator`` for one game, fed each move's score in order.

    After a move (the board already holds it): a draw counter counts consecutive moves of
    either side scoring within ``draw_score``; it restarts after a capture or pawn move (the
    move is irreversible: the halfmove clock is 0) and the draw is declared once 30 full
    moves have been played and the counter reaches ``2 x draw_movecount``. Each side keeps a
    resign counter of its own consecutive moves at or below ``-resign_score`` (and, for the
    two-sided rule, of moves at or above ``+resign_score``). A move without a score (the
    engine sent none: cutechess reads depth 0, a forced move) restarts the draw counter and
    the mover's counters. The game's rules (mate, stalemate, material, fifty moves,
    repetition) are checked before any of this, as cutechess does.
    """

    def __init__(self, rules: Adjudication) -> None:
        self.rules = rules
        self.draw_count = 0
        self.resign = {chess.WHITE: 0, chess.BLACK: 0}
        self.win = {chess.WHITE: 0, chess.BLACK: 0}

    def add(self, board: chess.Board, score: int | None, plies: int) -> tuple[str, str] | None:
        """The mover's ``score`` after its move (``board`` holds the move); ``plies`` played
        from the opening position. ``(result, reason)`` when adjudicated, else ``None``."""
        rules, side = self.rules, not board.turn
        if board.halfmove_clock == 0:
            self.draw_count = 0
        if score is None:
            self.draw_count = 0
            self.resign[side] = self.win[side] = 0
            return None
        if rules.draw_movenumber > 0:
            self.draw_count = self.draw_count + 1 if abs(score) <= rules.draw_score else 0
            started = (board.fullmove_number > rules.draw_movenumber
                       if rules.draw_from_fen_move_number
                       else plies // 2 >= rules.draw_movenumber)
            if started and self.draw_count >= 2 * rules.draw_movecount:
                return "1/2-1/2", "draw_adjudication"
        if rules.resign_movecount > 0:
            self.resign[side] = self.resign[side] + 1 if score <= -rules.resign_score else 0
            self.win[side] = self.win[side] + 1 if score >= rules.resign_score else 0
            if self.resign[side] >= rules.resign_movecount and (
                    not rules.resign_two_sided
                    or self.win[not side] >= rules.resign_movecount):
                return ("0-1" if side == chess.WHITE else "1-0"), "resign_adjudication"
        return None
