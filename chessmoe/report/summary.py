"""The answer in ten lines: the main rows of the claims table (``figures/claims.csv``, written
by ``make figures``) and the equal-compute figure's numbers (the compute-gap figure's CSV),
set out for the top of the README and the report's landing page, with what the main rows do
not show: that ``replicated`` re-adjudicates the powered games, how far one regular-long seed
carries, the medium profile for what it is, and the state of the settings rows.

Nothing here is typed by hand: every estimate, interval and verdict is copied from those two
artefacts (the claims table's cells verbatim, the figure's numbers rounded to whole Elo), and
the sentence above the table is chosen from the verdicts. The README keeps the block between
:data:`BEGIN` and :data:`END`; ``python -m chessmoe.report.summary README.md`` rewrites it
and a test fails while it differs from what the artefacts say.
"""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe.report.blocks import Block
from chessmoe.report.stems import COMPUTE_GAP

__all__ = ["ACROSS_SEEDS_TOPIC", "BEGIN", "CONVERGED_TOPIC", "END", "MAIN_TOPICS",
           "MATCHED_TOPIC", "SETTINGS_TOPIC", "TOPIC_TOURNAMENTS", "ClaimRow", "answer_lines",
           "converged_line", "read_claims", "read_compute_gap", "refresh", "regime_line",
           "settings_line"]

BLOCK = Block("answer", "chessmoe.report.summary", "figures/claims.csv")
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
#: How a claims row that rests on the one-seed regular-long starts its note's seed clause.
_LONG_SEED = "regular-long is one training seed"


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


def _elo(value: float) -> str:
    rounded = round(value)
    return f"+{rounded}" if rounded > 0 else str(rounded)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _sourced(row: ClaimRow) -> str:
    """The row's claim, with its tournament named where it is not the replicated one."""
    tournament = TOPIC_TOURNAMENTS.get(row.topic)
    return f"{row.claim} (`{tournament}`)" if tournament else row.claim


def _names(rows: Sequence[ClaimRow]) -> str:
    names = [r.claim.split(" beats ", 1)[0] for r in rows]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _headline(versus: Sequence[ClaimRow], direct: Sequence[ClaimRow]) -> str:
    """One sentence from the verdicts: how many mixtures beat the regular network (and which
    lose to it), and how many lose to one network trained for their total steps."""
    beat = [r for r in versus if r.verdict == "supports"]
    lose = [r for r in versus if r.verdict == "contradicts"]
    open_ = len(versus) - len(beat) - len(lose)
    first = f"Trained as the paper trains them, at the `small` profile {len(beat)} of the " \
            f"{len(versus)} mixtures beat the regular network (one training seed each)"
    if lose:
        first += f" and {_names(lose)} {'loses' if len(lose) == 1 else 'lose'} to it"
    first += f" ({open_} undecided)" if open_ else " (all decided)"
    if not direct:
        return first + "."
    lost = [r for r in direct if r.verdict == "contradicts"]
    who = ("every mixture" if len(lost) == len(direct)
           else f"{len(lost)} of the {len(direct)} mixtures")
    return (f"{first}; but one network trained for a mixture's total steps beats {who} "
            "played against it (decided).")


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


def size_clause(versus: Sequence[ClaimRow]) -> str:
    """What a verdict reads (the sign) and, from each row's note, whether the paper's size
    lies inside the kit's interval ('' when no note says)."""
    inside: list[ClaimRow] = []
    outside: list[ClaimRow] = []
    for row in versus:
        found = re.search(r"the paper's \S+ is (inside|outside) our interval", row.note)
        if found:
            (inside if found.group(1) == "inside" else outside).append(row)
    if not inside and not outside:
        return ""
    parts = [f"{where} our interval for {_names(rows)}"
             for where, rows in (("inside", inside), ("outside", outside)) if rows]
    return ("A verdict reads the sign of the effect; the paper's size lies "
            + "; ".join(parts) + ".")


def seeds_clause(every: Sequence[ClaimRow]) -> str:
    """The mixtures against the regular network over the seeds played of both: the pooled
    estimate (these seeds) and, from the note, the interval with both sides' seeds random and
    whether it decides the gain for seeds not played ('' without such rows)."""
    parts: list[str] = []
    for row in every:
        if row.topic != MOE_SEEDS_TOPIC or row.verdict.startswith(("in progress", "not played")):
            continue
        estimate = row.measured.split(" (", 1)[0]
        text = f"{row.claim.split(' beats ', 1)[0]} {estimate} pooled ({row.verdict}, these seeds)"
        found = re.search(r"random[^:]*:\s*([+\-]?\d+) \[([+\-]?\d+), ([+\-]?\d+)\]", row.note)
        if found:
            low, high = int(found.group(2)), int(found.group(3))
            decides = "decided" if low > 0 or high < 0 else "undecided"
            text += (f", {found.group(1)} [{found.group(2)}, {found.group(3)}] with both sides' "
                     f"seeds random ({decides} for seeds not played)")
        parts.append(text)
    if not parts:
        return ""
    return ("Against the regular network under three training seeds, each mixture under "
            "three (9 seed pairings): " + "; ".join(parts) + ".")


def regime_line() -> str:
    """Where the answer holds (the design of the claims' tournament, not a result)."""
    return ("The `small` profile's answer holds in this regime: CPU scale (its networks on a "
            "Lichess excerpt), every game at batch 8 and 100 nodes a move, the mixtures and the "
            "regular network trained for the profile's fixed length (compute-limited, far from "
            "trained out); the paper's GPU scale is not run.")


def _registered_line(mine: Sequence[ClaimRow], opening: str, registered: str,
                     after: str = "") -> str:
    """A registered design's rows in one sentence: ``opening``, how many rows were registered
    (``registered``: when), how many are played (and of those how many are undecided, where
    any is), in progress or not played, then ``after`` where given, else each played one's
    claim, estimate and verdict verbatim ('' without rows)."""
    if not mine:
        return ""
    waiting = [r for r in mine if r.verdict.startswith(("in progress", "not played"))]
    played = [r for r in mine if r not in waiting]
    running = sum(r.verdict.startswith("in progress") for r in waiting)
    undecided = sum(r.verdict.startswith("undecided") for r in played)
    count = (f"{len(played)} played ({len(played) - undecided} decided, {undecided} "
             "undecided at this scale)" if undecided else f"{len(played)} decided")
    text = (f"{opening}; its {len(mine)} rows were registered {registered}: {count}, "
            f"{running} in progress, {len(waiting) - running} not played yet")
    if after:
        text += f" ({after})"
    elif played:
        text += ": " + "; ".join(f"{r.claim}: {r.measured}, **{r.verdict}**" for r in played)
    return text + "."


def settings_line(rows: Sequence[ClaimRow]) -> str:
    """The settings design's rows (``settings:`` topics) counted: how many are decided, in
    progress or not played; :func:`settings_table` gives each ('' without such rows)."""
    return _registered_line(
        [r for r in rows if r.topic.startswith(SETTINGS_TOPIC)],
        "Beyond that setting, the `settings` tournament plays staged against the regular "
        "network and against regular-long at other node limits and batch sizes",
        "before its first game",
        "below: Elo per game pair, 95 %, verdicts Holm-adjusted with the claims table")


_SETTING = re.compile(r" at (batch \d+, \d+ nodes)")


def _settings_cell(row: ClaimRow | None) -> str:
    if row is None:
        return "-"
    if row.verdict.startswith("not played"):
        return "not played yet"
    running = re.match(r"in progress: ([\d,]+) of ([\d,]+) planned games", row.verdict)
    if running:
        return f"in progress ({running.group(1)} of {running.group(2)} games)"
    estimate = row.measured.split(" (", 1)[0].replace(" Elo", "")
    return f"{estimate} **{row.verdict}**"


def settings_table(rows: Sequence[ClaimRow]) -> list[str]:
    """The settings rows as a table, one line a setting (batch and nodes, as registered):
    staged against the regular network beside the paper's Table 2 mean at that batch size,
    and against regular-long; each cell the estimate and verdict, or the match's state
    (empty without such rows)."""
    cells: dict[str, dict[str, ClaimRow]] = {}
    for row in rows:
        found = _SETTING.search(row.claim)
        if not row.topic.startswith(SETTINGS_TOPIC) or found is None:
            continue
        side = "long" if " beats regular-long " in f"{row.claim} " else "regular"
        cells.setdefault(found.group(1), {})[side] = row
    if not cells:
        return []
    lines = ["| setting | paper (its Table 2 mean at that batch size) | staged vs regular | "
             "staged vs regular-long (equal training compute; the paper has no such control) |",
             "|---|---|---|---|"]
    for setting, pair in cells.items():
        paper = pair["regular"].paper_value if "regular" in pair else "-"
        lines.append(f"| {setting} | {_cell(paper)} | {_cell(_settings_cell(pair.get('regular')))}"
                     f" | {_cell(_settings_cell(pair.get('long')))} |")
    return lines


def converged_line(rows: Sequence[ClaimRow]) -> str:
    """The converged design's rows (:data:`CONVERGED_TOPIC`), worded as
    :func:`settings_line` words the settings rows: the regime the main rows do not reach
    ('' without such rows)."""
    return _registered_line(
        [r for r in rows if r.topic == CONVERGED_TOPIC],
        "Out of the compute-limited regime, the `converged` tournament plays the networks "
        "trained until their validation loss stops improving (the data-limited regime)",
        "before their networks were trained")


def answer_lines(figures: Path, *, image: str = f"figures/{COMPUTE_GAP}.png") -> list[str]:
    """The answer: a sentence chosen from the verdicts, the main claims rows verbatim (with
    what the replicated tournament is and regular-long's seed clause from their notes), the
    medium profile's numbers, where it holds, the settings and converged rows' state, and
    the figure
    (``image``, a path from the page that shows it)."""
    every = read_claims(figures / "claims.csv")
    rows = [r for r in every if r.topic in MAIN_TOPICS]
    if not rows:
        raise ValueError(f"{figures / 'claims.csv'} has none of the topics {MAIN_TOPICS}")
    versus = [r for r in rows if r.topic == MAIN_TOPICS[0]]
    direct = [r for r in rows if r.topic == MAIN_TOPICS[1]]
    rows += [r for topic in TOPIC_TOURNAMENTS for r in every if r.topic == topic
             and not r.verdict.startswith(("in progress", "not played"))]
    gap = [g for g in read_compute_gap(figures / f"{COMPUTE_GAP}.csv") if g.scale != "small"]
    lines = ["**Does a mixture of experts help?** " + _headline(versus, direct)
             + medium_clause(gap), "",
             "| claim (the `replicated` tournament unless named) | paper | kit: estimate "
             "[95 % interval] | verdict |", "|---|---|---|---|"]
    lines += [f"| {_cell(_sourced(r))} | {_cell(r.paper_value)} | {_cell(r.measured)} | "
              f"**{_cell(r.verdict)}** |" for r in rows]
    lines += ["", "Intervals take a game pair (one opening, both colours) as the unit. The "
              "`replicated` tournament re-adjudicates the powered tournament's deterministic "
              "games under cutechess's draw rules: it is not an independent replication."]
    seeds = next((r.note[r.note.index(_LONG_SEED):] for r in direct if _LONG_SEED in r.note),
                 "")
    if seeds:
        lines[-1] += f" {seeds[0].upper()}{seeds[1:]}."
    for clause in (size_clause(versus), seeds_clause(every)):
        if clause:
            lines[-1] += " " + clause
    lines += ["", regime_line()]
    settings = settings_line(every)
    if settings:
        lines[-1] += " " + settings
    lines += ["", *settings_table(every)] if settings else []
    converged = converged_line(every)
    if converged:
        lines += ["", converged]
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
