"""A claims row as a design declares it, and as the claims table prints it.

A design's reading returns :class:`ClaimTest` records: the :class:`Claim` (topic, what the
paper says, our estimate, note, kind) with the effect and the direction that decide it. The
claims table (:func:`chessmoe.report.verdicts.claims`) adjusts the p-values of every test of
every design together (Holm) and writes the verdicts. A row whose match is still being played
carries ``in_progress`` and is no test until its match has played its planned games
(:func:`registered`). :class:`ClaimRow` is a row read back from ``figures/claims.csv``: what a
design's README sentence quotes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from chessmoe.estimates import ArmEstimate, PairedDifference, estimate_text, pair_scores
from chessmoe.records import GameRecord

__all__ = ["EXPLORATORY", "NOT_PLAYED", "POST_HOC", "SIGN_AGREES", "SIZE_DIFFERS", "UNDECIDED",
           "Claim", "ClaimRow", "ClaimTest", "arm_claim", "diff_claim", "registered",
           "size_note", "waiting"]

POST_HOC = "post-hoc control"
EXPLORATORY = "exploratory (no paper claim)"
UNDECIDED = "undecided at this scale"
#: The verdict of a paper claim whose sign the test decides on the paper's side while the
#: paper's own size lies outside our interval: the direction agrees, the size does not.
SIZE_DIFFERS = "sign agrees, size differs"
#: Verdicts whose sign agrees with the claim (with or without its size).
SIGN_AGREES: tuple[str, ...] = ("supports", SIZE_DIFFERS)
NOT_PLAYED = "not played yet (registered before its first game)"


@dataclass(frozen=True)
class Claim:
    """One claim, our number and the verdict."""

    topic: str
    paper: str  # what the paper says, with its number
    ours: str  # our estimate with its interval and sample
    verdict: str  # "supports", SIZE_DIFFERS, "contradicts" or "undecided at this scale"
    note: str = ""
    kind: str = "paper claim"  # or "post-hoc control" or "exploratory (no paper claim)"
    p: float = math.nan  # unadjusted two-sided p-value (nan: decided by seeds, not games)
    p_holm: float = math.nan  # Holm-adjusted over every game-decided row of the table


@dataclass(frozen=True)
class ClaimTest:
    """A claim decided by games, before the family's correction: its decision rule is
    ``paper_sign`` (+1/-1: the paper's direction; 0: "no gain"; None: no paper direction)."""

    claim: Claim
    effect: float
    paper_sign: int | None
    high_elo: float = math.nan  # the "no gain" rule's upper bound
    in_progress: str = ""  # set: its tournament is still being played (not yet a test)
    cited: str = ""  # what other rows' notes quote of it once it is complete
    size_inside: bool | None = None  # the paper's size inside our interval (None: no size)


def arm_claim(topic: str, paper: str, e: ArmEstimate, paper_sign: int | None, note: str = "",
              kind: str = "paper claim") -> ClaimTest:
    """The test of one arm's score against 50 %."""
    return ClaimTest(Claim(topic, paper, estimate_text(e), "", note, kind, e.p),
                     e.score - 0.5, paper_sign, e.high)


def size_note(paper: float, e: ArmEstimate, label: str = "") -> tuple[str, bool]:
    """Whether the paper's size lies inside our interval, in words for the row's note."""
    inside = e.low <= paper <= e.high
    return (f"the paper's {label}+{paper:.0f} is {'inside' if inside else 'outside'} our "
            "interval", inside)


def diff_claim(topic: str, paper: str, label: str, d: PairedDifference,
               paper_sign: int | None, note: str = "", kind: str = "paper claim") -> ClaimTest:
    """The test of two arms' paired difference against zero."""
    ours = (f"{label}: {d.diff:+.1f} points [{d.low:+.1f}, {d.high:+.1f}] on {d.openings} "
            "shared openings")
    return ClaimTest(Claim(topic, paper, ours, "", note, kind, d.p), d.diff, paper_sign)


def registered(test: ClaimTest, records: Sequence[GameRecord], games: int) -> ClaimTest:
    """A row of a design registered before its first game: a test once its own match has
    played its ``games`` planned games, before that *not played yet* or *in progress* (its
    estimate shown, no p, not in the Holm family)."""
    if len(pair_scores(records)) < 2:
        test = replace(test, claim=replace(test.claim, ours="no complete game pair yet"))
    state = (NOT_PLAYED if not records else "" if len(records) >= games else
             f"in progress: {len(records):,} of {games:,} planned games of this match")
    return replace(test, in_progress=state)


@dataclass(frozen=True)
class ClaimRow:
    """One row of ``figures/claims.csv``, its cells as the table prints them."""

    topic: str
    kind: str
    paper_says: str
    measured: str
    p: str
    p_holm: str
    verdict: str
    note: str

    @property
    def claim(self) -> str:
        """The claim tested, without the paper's number or the asides in brackets (what
        follows an aside stays: "at equal nodes, batch 8, 100 nodes")."""
        text, previous = self.paper_says, ""
        while text != previous:  # innermost brackets first
            previous, text = text, re.sub(r"\s*\([^()]*\)", "", text)
        return text.split(":", 1)[0].strip()

    @property
    def paper_value(self) -> str:
        """The size the paper reports (``+122 Elo``), or that it has no such control."""
        match = re.search(r":\s*([+\-\u2212]?\d+(?:\.\d+)?\s*Elo)", self.paper_says)
        if match:
            return match.group(1)
        return "no such control" if "no such control" in self.paper_says else "-"


def waiting(row: ClaimRow) -> bool:
    """Whether the row's match is not complete (in progress or not played yet)."""
    return row.verdict.startswith(("in progress", "not played"))
