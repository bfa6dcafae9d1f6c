"""The README's generated blocks and the two artefacts they are drawn from: the claims table
(``figures/claims.csv``, written by ``make figures``) read back as :class:`ClaimRow` records,
the equal-compute figure's numbers (the compute-gap figure's CSV) as :class:`GapRow` records,
and the claims-table topics the answer names.

The answer itself (:func:`chessmoe.report.answer.answer_lines`) is set out by
:mod:`chessmoe.report.answer`. The README keeps it between :data:`BEGIN` and :data:`END`;
``python -m chessmoe.report.answer README.md`` rewrites it (and the runs-in-progress block,
and REPRODUCING.md's claims blocks beside the README) and a test fails while it differs from
what the artefacts say.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe.report.blocks import Block

__all__ = ["ACROSS_SEEDS_TOPIC", "BEGIN", "CONVERGED_TOPIC", "END", "MAIN_TOPICS",
           "MATCHED_TOPIC", "SETTINGS_TOPIC", "TOPIC_TOURNAMENTS", "ClaimRow", "GapRow",
           "read_claims", "read_compute_gap", "refresh"]

BLOCK = Block("answer", "chessmoe.report.answer", "figures/claims.csv")
BEGIN, END = BLOCK.begin, BLOCK.end

#: The claims table's topics the answer shows: each mixture against the regular network, and
#: each against one network trained for the mixture's total steps, played directly.
MAIN_TOPICS: tuple[str, ...] = ("MoE vs regular", "equal training compute, head to head")
#: The claims table's topic of the equal-compute seed grid, shown once it is decided.
ACROSS_SEEDS_TOPIC = "equal training compute, across seeds"
#: The claims table's topic of the mixtures against the regular network under three seeds each.
MOE_SEEDS_TOPIC = "MoE vs regular, across seeds"
#: The claims table's topic of the parameter-matched single network, each row shown once
#: it is decided.
MATCHED_TOPIC = "parameter-matched network"
#: The tournament each topic's rows come from, where it is not the ``replicated`` one.
TOPIC_TOURNAMENTS: dict[str, str] = {ACROSS_SEEDS_TOPIC: "seeds-long",
                                     MATCHED_TOPIC: "matched"}
#: The claims table's topics of the settings design (other node limits and batch sizes).
SETTINGS_TOPIC = "settings:"
#: The claims table's topic of the converged design (every network trained until its
#: validation loss stops improving).
CONVERGED_TOPIC = "trained to convergence"


class ClaimsMissing(FileNotFoundError):
    """An artefact the answer is drawn from is absent (``make figures`` writes it)."""


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


def read_claims(path: Path) -> list[ClaimRow]:
    """Every row of the claims table ``path`` (``figures/claims.csv``)."""
    if not path.is_file():
        raise ClaimsMissing(f"{path} is missing: run `make figures` first")
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    if len(header) != 8:
        raise ValueError(f"{path}: expected the claims table's 8 columns, found {header}")
    return [ClaimRow(*(cell.strip() for cell in row)) for row in body if len(row) == 8]


@dataclass(frozen=True)
class GapRow:
    """One arm of the compute-gap figure's CSV: its scale, Elo against the regular network
    and the 95 % interval."""

    scale: str
    arm: str
    compute: float
    games: int
    elo: float
    low: float
    high: float


def read_compute_gap(path: Path) -> list[GapRow]:
    """The arms of the equal-compute figure's numbers (the regular network's own 0 left out)."""
    if not path.is_file():
        raise ClaimsMissing(f"{path} is missing: run `make figures` first")
    with path.open(encoding="utf-8", newline="") as handle:
        return [GapRow(r["scale"], r["arm"], float(r["compute"]), int(r["games"]),
                       float(r["elo"]), float(r["low"]), float(r["high"]))
                for r in csv.DictReader(handle) if int(r["games"]) > 0]


def refresh(text: str, lines: Sequence[str]) -> str:
    """``text`` with the answer block replaced by ``lines``."""
    return BLOCK.replace(text, lines)
