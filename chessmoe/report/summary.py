"""The answer in ten lines: the main rows of the claims table (``figures/claims.csv``, written
by ``make figures``) and the equal-compute figure's numbers (the compute-gap figure's CSV),
set out for the top of the README and the report's landing page. Each registered design
(:mod:`chessmoe.designs.registry`) gives its part (:class:`~chessmoe.designs.base.Answer`):
the main design its headline, rows and paragraph, the others their decided rows, a sentence
on where the answer holds and what follows; the other scales' arms close it.

Nothing here is typed by hand: every estimate, interval and verdict is copied from those two
artefacts (the claims table's cells verbatim, the figure's numbers rounded to whole Elo), and
the sentence above the table is chosen from the verdicts. The README keeps the block between
:data:`BEGIN` and :data:`END`; ``python -m chessmoe.report.summary README.md`` rewrites it
and a test fails while it differs from what the artefacts say.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe.designs import registry
from chessmoe.designs.rows import ClaimRow
from chessmoe.report.blocks import Block
from chessmoe.report.stems import COMPUTE_GAP

__all__ = ["BEGIN", "END", "ClaimsMissing", "answer_lines", "medium_clause", "read_claims",
           "read_compute_gap", "refresh"]

BLOCK = Block("answer", "chessmoe.report.summary", "figures/claims.csv")
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


def _elo(value: float) -> str:
    rounded = round(value)
    return f"+{rounded}" if rounded > 0 else str(rounded)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


_VERBS = ("beats", "is not distinguishable from", "loses to")


def _verb(arm: GapRow) -> str:
    """How an arm stands against its regular network by its own interval (:data:`_VERBS`)."""
    return _VERBS[0] if arm.low > 0 else _VERBS[2] if arm.high < 0 else _VERBS[1]


def medium_clause(gap: Sequence[GapRow]) -> str:
    """What the other scales' arms say against their regular network, each by its own 95 %
    pair interval (unadjusted): which beat it, which it cannot tell from it, which lose to
    it; regular-long (one network trained for the mixtures' total steps) first ('' without
    such arms)."""
    parts = []
    for scale in sorted({g.scale for g in gap}):
        arms = sorted((g for g in gap if g.scale == scale), key=lambda g: g.arm != "regular-long")
        said = []
        for verb in _VERBS:
            names = [g.arm for g in arms if _verb(g) == verb]
            if names:
                plural = {"beats": "beat", "loses to": "lose to",
                          "is not distinguishable from": "are not distinguishable from"}[verb]
                joined = names[0] if len(names) == 1 else (
                    ", ".join(names[:-1]) + " and " + names[-1])
                said.append(f"{joined} {verb if len(names) == 1 else plural} it")
        if said:
            parts.append(f"at the `{scale}` profile (more and other data, the same network), "
                         "against its regular network: " + "; ".join(said))
    if not parts:
        return ""
    return " " + "; ".join(p[0].upper() + p[1:] for p in parts) + \
        " (each by its own 95 % interval, unadjusted)."


def _row(row: ClaimRow, source: str) -> str:
    claim = f"{row.claim} (`{source}`)" if source else row.claim
    return (f"| {_cell(claim)} | {_cell(row.paper_value)} | {_cell(row.measured)} | "
            f"**{_cell(row.verdict)}** |")


def answer_lines(figures: Path, *, image: str = f"figures/{COMPUTE_GAP}.png") -> list[str]:
    """The answer: the main design's sentence chosen from the verdicts and its rows verbatim,
    each design's decided rows, the paragraph under them, where the answer holds, what the
    designs add after it, the other scales' numbers and the figure (``image``, a path from
    the page that shows it)."""
    path = figures / "claims.csv"
    every = read_claims(path)
    try:
        answers = [d.answer(every) for d in registry.REGISTERED if d.answer is not None]
    except ValueError as error:
        raise ValueError(f"{path} {error}") from None
    gap = [g for g in read_compute_gap(figures / f"{COMPUTE_GAP}.csv") if g.scale != "small"]
    main = next(a for a in answers if a.headline)
    lines = ["**Does a mixture of experts help?** " + main.headline + medium_clause(gap), "",
             f"| claim (the `{main.source}` tournament unless named) | paper | kit: estimate "
             "[95 % interval] | verdict |", "|---|---|---|---|"]
    lines += [_row(r, "" if a is main else a.source) for a in answers for r in a.rows]
    lines += ["", " ".join(a.paragraph for a in answers if a.paragraph)]
    lines += ["", " ".join(a.regime for a in answers if a.regime)]
    lines += [line for a in answers for line in a.lines]
    if gap:
        scales = sorted({g.scale for g in gap})
        lines += ["", f"With more and other data ({', '.join(f'`{s}`' for s in scales)}: "
                  "the same small network on Stockfish self-play and the Lichess excerpt, a "
                  "fraction of an epoch; not a larger model), against the regular network, "
                  "Elo [95 %, per game pair]: "
                  + "; ".join(f"{g.arm} {_elo(g.elo)} [{_elo(g.low)}, {_elo(g.high)}] "
                              f"({g.games} games)" for g in gap) + "."]
    lines += ["",
              f"![Equal training compute: the mixtures beside one network trained as long]"
              f"({image})"]
    return lines


def refresh(text: str, lines: Sequence[str]) -> str:
    """``text`` with the answer block replaced by ``lines``."""
    return BLOCK.replace(text, lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m chessmoe.report.summary README.md [FIGURES [RESULTS]]``: rewrite the answer
    block and, where the README has its markers, the runs-in-progress block
    (:mod:`chessmoe.report.progress`, from RESULTS, default ``results`` beside the README)."""
    from chessmoe.report import progress

    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m chessmoe.report.summary README.md [FIGURES [RESULTS]]",
              file=sys.stderr)
        return 2
    readme = Path(args[0])
    figures = Path(args[1]) if len(args) > 1 else readme.parent / "figures"
    results = Path(args[2]) if len(args) > 2 else readme.parent / "results"
    text = refresh(readme.read_text(encoding="utf-8"), answer_lines(figures))
    if progress.BLOCK.span(text) is not None:
        text = progress.refresh(text, progress.progress_lines(results))
    readme.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
