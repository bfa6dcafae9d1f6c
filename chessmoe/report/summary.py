"""The README's generated blocks and the two artefacts they are drawn from: the claims table
(``figures/claims.csv``, written by ``make figures``) read back as
:class:`~chessmoe.designs.rows.ClaimRow` records and the equal-compute figure's numbers (the
compute-gap figure's CSV) as :class:`GapRow` records.

The answer itself (:func:`chessmoe.report.answer.answer_lines`) is set out by
:mod:`chessmoe.report.answer`. The README keeps it between :data:`BEGIN` and :data:`END`;
``python -m chessmoe.report.answer README.md`` rewrites it (and the runs-in-progress block,
and REPRODUCING.md's claims blocks beside the README) and a test fails while it differs from
what the artefacts say.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe.designs.rows import ClaimRow
from chessmoe.report.blocks import Block

__all__ = ["BEGIN", "END", "ClaimRow", "ClaimsMissing", "GapRow", "read_claims",
           "read_compute_gap", "refresh"]

BLOCK = Block("answer", "chessmoe.report.answer", "figures/claims.csv")
BEGIN, END = BLOCK.begin, BLOCK.end


class ClaimsMissing(FileNotFoundError):
    """An artefact the answer is drawn from is absent (``make figures`` writes it)."""


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

