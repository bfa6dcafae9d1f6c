"""The same games under two rule sets: what changing the draw rules did to a tournament
(:func:`replay_tournament`), game by game (:func:`compare_game`) and per arm
(:func:`replay_arm`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from chessmoe.estimates import (
    ArmEstimate,
    PairedDifference,
    arm_estimate,
    pair_scores,
    paired_difference,
)
from chessmoe.played import load_arms
from chessmoe.records import GameRecord

__all__ = ["DIVERGED", "ENDED_SOONER", "PLAYED_ON", "SAME", "GameChange", "Relation",
           "RuleReplay", "compare_game", "replay_arm", "replay_tournament"]

Relation = Literal["same moves", "played on", "ended sooner", "diverged"]
SAME: Relation = "same moves"
PLAYED_ON: Relation = "played on"
ENDED_SOONER: Relation = "ended sooner"
DIVERGED: Relation = "diverged"


@dataclass(frozen=True)
class GameChange:
    """One game played in both tournaments: how the replay's moves relate to the original's,
    whether the moves both played carry the same search scores, and the arm's engine's
    score in each (1, 0.5, 0)."""

    pair: int
    first_is_white: bool
    relation: Relation
    rescored: bool
    before: float
    after: float


@dataclass(frozen=True)
class RuleReplay:
    """One arm's games in both tournaments (``games`` = matched games, each counted once)."""

    arm: str
    games: int
    same_moves: int
    played_on: int
    ended_sooner: int
    diverged: int
    rescored: int  # games whose shared moves carry a different search score somewhere
    to_first: int  # results that moved toward the arm's engine (the match's first)
    to_second: int  # ... toward its opponent
    changed_diverged: int  # of the changed results, those in diverged games
    before: ArmEstimate  # the arm on the pairs both played, original rules
    after: ArmEstimate  # ... replayed rules
    shift: PairedDifference  # after minus before, score points a pair by opening

    @property
    def changed(self) -> int:
        return self.to_first + self.to_second


def _white_first(fen: str) -> bool:
    fields = fen.split()
    return len(fields) < 2 or fields[1] != "b"


def _shared_scores(a: GameRecord, b: GameRecord, plies: int) -> bool:
    """Whether both games' search scores agree over their first ``plies`` moves (each
    side's own scores, one per move it made in that range)."""
    white_first = _white_first(a.fen)
    for white, scores_a, scores_b in ((True, a.scores_white, b.scores_white),
                                      (False, a.scores_black, b.scores_black)):
        own = (plies + (1 if white_first == white else 0)) // 2
        if list(scores_a[:own]) != list(scores_b[:own]):
            return False
    return True


def compare_game(before: GameRecord, after: GameRecord) -> GameChange:
    """How ``after`` (the replay) relates to ``before`` (the same pair and colours).

    A tournament replayed with other draw rules plays every match's game pairs on the same openings
    (the opening draw depends on the seed and the opening groups alone), and with node-limited
    searches and no noise a replayed game is expected to repeat the original move for move until one
    of the two rule sets ends it. The game is classified: **same moves** (the ending may be named
    differently); **played on** (the replay's moves extend the original's: the original's rules
    ended it earlier, e.g. at a draw that could be *claimed* but had not happened); **ended sooner**
    (the original's moves extend the replay's); **diverged** (the moves differ before either game
    ended, which the rules do not do: the engines' numerics, settings or versions differed between
    the runs). Whether the expectation holds is measured, not assumed: the games whose shared moves
    carry different search scores are counted too (``rescored``), a sign that the two runs'
    arithmetic differed even where the moves agree.
    """
    if (before.fen != after.fen or before.first_is_white != after.first_is_white
            or before.opening != after.opening or before.pair != after.pair):
        raise ValueError(f"pair {before.pair}: not the same game start in both tournaments "
                         "(opening, position or colours differ)")
    if before.first_score is None or after.first_score is None or before.pair is None:
        raise ValueError(f"pair {before.pair}: a game without its pair or the match's score")
    a, b = before.moves, after.moves
    n = min(len(a), len(b))
    if a[:n] != b[:n]:
        relation = DIVERGED
        n = next(i for i in range(n) if a[i] != b[i])
    elif len(a) == len(b):
        relation = SAME
    else:
        relation = PLAYED_ON if len(b) > len(a) else ENDED_SOONER
    return GameChange(before.pair, bool(before.first_is_white), relation,
                      not _shared_scores(before, after, n), before.first_score,
                      after.first_score)


def _games(arm: str, records: Sequence[GameRecord]) -> dict[tuple[int, bool], GameRecord]:
    """``(pair, arm's engine is White) -> game``; a second game under one key is an error
    (a record written twice, or an opening scheduled twice), never dropped silently."""
    out: dict[tuple[int, bool], GameRecord] = {}
    for r in records:
        if r.pair is not None and r.first_is_white is not None:
            key = (r.pair, r.first_is_white)
            if key in out:
                raise ValueError(f"{arm}: pair {r.pair} has two games with the arm's engine "
                                 f"as {'White' if r.first_is_white else 'Black'}")
            out[key] = r
    return out


def replay_arm(arm: str, before: Sequence[GameRecord], after: Sequence[GameRecord]
               ) -> RuleReplay:
    """Compare one arm's games: every complete game pair
    (:func:`~chessmoe.estimates.pair_scores`) that both tournaments played, so the Elo
    estimates and their shift use the same pairs. A pair with two games of one colour raises
    ``ValueError``.

    Games are matched by pair number and colours (the opening and starting position must agree). The
    arm's Elo is estimated under each rule set on the pairs both played, and the shift (replay minus
    original, score points a pair, paired by opening).
    """
    shared = set(pair_scores(before)) & set(pair_scores(after))
    old = {k: r for k, r in _games(arm, before).items() if k[0] in shared}
    new = {k: r for k, r in _games(arm, after).items() if k[0] in shared}
    if set(old) != set(new):
        raise ValueError(f"{arm}: the complete pairs of the two tournaments differ in colours")
    changes = [compare_game(old[k], new[k]) for k in sorted(old)]
    count = {rel: sum(c.relation == rel for c in changes)
             for rel in (SAME, PLAYED_ON, ENDED_SOONER, DIVERGED)}
    moved = [c for c in changes if c.after != c.before]
    old_records, new_records = list(old.values()), list(new.values())
    return RuleReplay(
        arm=arm, games=len(changes), same_moves=count[SAME], played_on=count[PLAYED_ON],
        ended_sooner=count[ENDED_SOONER], diverged=count[DIVERGED],
        rescored=sum(c.rescored for c in changes),
        to_first=sum(c.after > c.before for c in moved),
        to_second=sum(c.after < c.before for c in moved),
        changed_diverged=sum(c.relation == DIVERGED for c in moved),
        before=arm_estimate(arm, old_records), after=arm_estimate(arm, new_records),
        shift=paired_difference(new_records, old_records))


def replay_tournament(before: str | os.PathLike[str], after: str | os.PathLike[str]
                      ) -> list[RuleReplay]:
    """Every arm both tournament directories played (by match name), compared game by game;
    arms without a shared complete pair are left out, and so is everything when either
    directory is missing."""
    if not (Path(before).is_dir() and Path(after).is_dir()):
        return []
    old, new = load_arms(before), load_arms(after)
    rows = [replay_arm(arm, old[arm], new[arm]) for arm in sorted(set(old) & set(new))]
    return [r for r in rows if r.games > 0]
