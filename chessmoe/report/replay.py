"""The same games under two rule sets: what changing the draw rules alone did to a tournament.

The kit's node-limited searches are deterministic (no noise, a fixed node count), so a
tournament replayed on the same openings with other draw rules repeats each game move for
move until one of the two rule sets ends it. Comparing a replay with the original game by
game therefore separates the rules' effect from everything else:

* **same moves**: both games have the same moves (the ending may be named differently);
* **played on**: the replay's moves extend the original's (the original's rules ended it
  earlier, e.g. a draw that could be *claimed* but had not happened);
* **ended sooner**: the original's moves extend the replay's;
* **diverged**: the moves differ before either game ended: not the rules' direct effect
  (the engines or their settings differ between the two runs, or their numerics: the
  multi-game runner evaluates several games' positions in one batch, and a batch composed
  differently, because another game ended elsewhere, can round differently). A count above
  zero says the replay is not a pure change of rules for those games.

Per arm it also estimates the arm's Elo under each rule set on the pairs both played, and the
shift (replay minus original, score points a pair, paired by opening).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe.play.records import GameRecord
from chessmoe.report.verdicts import (
    ArmEstimate,
    PairedDifference,
    arm_estimate,
    load_arms,
    paired_difference,
)

__all__ = ["GameChange", "RuleReplay", "compare_game", "replay_arm", "replay_tournament", "share"]

#: How a replayed game relates to the original (see the module's docstring).
SAME, PLAYED_ON, ENDED_SOONER, DIVERGED = "same moves", "played on", "ended sooner", "diverged"


@dataclass(frozen=True)
class GameChange:
    """One game played in both tournaments: how the replay's moves relate to the original's
    and the arm's engine's score in each (1, 0.5, 0)."""

    opening: int
    first_is_white: bool
    relation: str  # SAME, PLAYED_ON, ENDED_SOONER or DIVERGED
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
    to_first: int  # results that moved toward the arm's engine (the match's first)
    to_second: int  # ... toward its opponent
    changed_diverged: int  # of the changed results, those in diverged games
    before: ArmEstimate  # the arm on the pairs both played, original rules
    after: ArmEstimate  # ... replayed rules
    shift: PairedDifference  # after minus before, score points a pair by opening

    @property
    def changed(self) -> int:
        return self.to_first + self.to_second


def compare_game(before: GameRecord, after: GameRecord) -> GameChange:
    """How ``after`` (the replay) relates to ``before`` (the same opening and colours)."""
    if before.fen != after.fen or before.first_is_white != after.first_is_white:
        raise ValueError(f"opening {before.opening}: not the same game start in both "
                         "tournaments (position or colours differ)")
    if before.first_score is None or after.first_score is None:
        raise ValueError(f"opening {before.opening}: a game without the match's score")
    a, b = before.moves, after.moves
    n = min(len(a), len(b))
    if a[:n] != b[:n]:
        relation = DIVERGED
    elif len(a) == len(b):
        relation = SAME
    else:
        relation = PLAYED_ON if len(b) > len(a) else ENDED_SOONER
    return GameChange(int(before.opening or 0), bool(before.first_is_white), relation,
                      before.first_score, after.first_score)


def _key(record: GameRecord) -> tuple[int, bool] | None:
    if record.opening is None or record.first_is_white is None:
        return None
    return record.opening, record.first_is_white


def _complete_pairs(records: Sequence[GameRecord]) -> set[int]:
    colours: dict[int, set[bool]] = {}
    for r in records:
        key = _key(r)
        if key is not None:
            colours.setdefault(key[0], set()).add(key[1])
    return {o for o, c in colours.items() if len(c) == 2}


def replay_arm(arm: str, before: Sequence[GameRecord], after: Sequence[GameRecord]
               ) -> RuleReplay:
    """Compare one arm's games: every game whose opening both tournaments played with both
    colours (whole pairs only, so the Elo estimates and their shift use the same pairs)."""
    shared = _complete_pairs(before) & _complete_pairs(after)
    old = {k: r for r in before if (k := _key(r)) is not None and k[0] in shared}
    new = {k: r for r in after if (k := _key(r)) is not None and k[0] in shared}
    changes = [compare_game(old[k], new[k]) for k in sorted(old)]
    count = {rel: sum(c.relation == rel for c in changes)
             for rel in (SAME, PLAYED_ON, ENDED_SOONER, DIVERGED)}
    moved = [c for c in changes if c.after != c.before]
    old_records, new_records = list(old.values()), list(new.values())
    return RuleReplay(
        arm=arm, games=len(changes), same_moves=count[SAME], played_on=count[PLAYED_ON],
        ended_sooner=count[ENDED_SOONER], diverged=count[DIVERGED],
        to_first=sum(c.after > c.before for c in moved),
        to_second=sum(c.after < c.before for c in moved),
        changed_diverged=sum(c.relation == DIVERGED for c in moved),
        before=arm_estimate(arm, old_records), after=arm_estimate(arm, new_records),
        shift=paired_difference(new_records, old_records))


def replay_tournament(before: str | os.PathLike[str], after: str | os.PathLike[str]
                      ) -> list[RuleReplay]:
    """Every arm both tournament directories played (by match name), compared game by game;
    arms without a shared complete pair are left out."""
    if not (Path(before).is_dir() and Path(after).is_dir()):
        return []
    old, new = load_arms(before), load_arms(after)
    rows = [replay_arm(arm, old[arm], new[arm]) for arm in sorted(set(old) & set(new))]
    return [r for r in rows if r.games > 0]


def share(part: int, whole: int) -> float:
    """``part`` of ``whole`` in percent (nan for an empty whole)."""
    return 100.0 * part / whole if whole else math.nan
