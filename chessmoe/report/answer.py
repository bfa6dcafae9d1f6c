"""The answer a reviewer reads first (:func:`answer_lines`: the README's block and the report's
landing page) and REPRODUCING.md's generated blocks (:func:`refresh_sections`), generated from the
claims table (``figures/claims.csv``) and the equal-compute figure's numbers (its CSV), both
written by ``make figures``: every estimate and interval is copied from the two artefacts.
``python -m chessmoe.report.answer README.md`` (``make figures``) rewrites both.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe.designs import converged, matched, replicated, seeds_long, settings
from chessmoe.designs import scale as scale_design
from chessmoe.designs.rows import SIGN_AGREES, SIZE_DIFFERS, UNDECIDED, ClaimRow
from chessmoe.report.blocks import Block
from chessmoe.report.stems import COMPUTE_GAP, SCALE
from chessmoe.report.summary import GapRow, read_claims, read_compute_gap, refresh

__all__ = ["SCALE_TOPICS", "SECTIONS", "ControlRow", "answer_lines", "bottom_line", "control_rows",
           "controls_table", "finding", "paper_table", "refresh_sections", "section_block",
           "section_lines", "seeds_random", "sides", "split_measured", "verdict_cell"]

# The claims-table topics the answer names, as the designs declare them.
MAIN_TOPICS = replicated.MAIN_TOPICS
ACROSS_SEEDS_TOPIC = seeds_long.TOPIC
MATCHED_TOPIC = matched.TOPIC
CONVERGED_TOPIC = converged.TOPIC
SETTINGS_TOPIC = settings.TOPIC
#: The claims-table topic of the separated experts given the regular network's steps.
ITERATIONS_TOPIC = "iterations per expert"
#: The scale design's rows by size, fewest parameters first, then its 400-node row.
SCALE_TOPICS: tuple[str, ...] = (
    *(f"{scale_design.TOPIC} {scale_design.PARAMETERS[size]} parameters"
      for size in scale_design.by_parameters()),
    settings.THREE_SEEDS_TOPIC)
#: The controls the README's second table shows, in order, with the tournament each is from
#: (the scale design's size rows are told by the answer's sentence on size and its figure).
CONTROL_TOPICS: tuple[tuple[str, str], ...] = (
    (MAIN_TOPICS[1], "replicated"), (ACROSS_SEEDS_TOPIC, "seeds-long"),
    (MATCHED_TOPIC, "matched"), (CONVERGED_TOPIC, "converged"),
    (ITERATIONS_TOPIC, "replicated"), (settings.THREE_SEEDS_TOPIC, "scale"))
_WAITING = ("in progress", "not played")
_NUMBER = r"[+\-]?(?:\d+(?:\.\d+)?|inf)"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _elo(value: float) -> str:
    rounded = round(value)
    return f"+{rounded}" if rounded > 0 else str(rounded)


def split_measured(measured: str) -> tuple[str, str, str]:
    """A claims row's measurement as (estimate, interval, sample):
    ``-90 Elo [-115, -66] (400 games, 200 openings)`` gives ``("-90", "[-115, -66]",
    "400 games, 200 openings")``; a difference in points keeps its unit
    (``"+17.0 points"``); a measurement of another shape is the estimate alone."""
    found = re.search(rf"({_NUMBER})( Elo| points)? (\[{_NUMBER}, {_NUMBER}\])", measured)
    if found is None:
        return measured, "", ""
    unit = found.group(2) if found.group(2) == " points" else ""
    sample = re.search(r"\(([^()]*games[^()]*)\)|on (\d+ shared openings)",
                       measured[found.end():])
    where = (sample.group(1) or sample.group(2)) if sample else ""
    return found.group(1) + unit, found.group(3), where


def seeds_random(row: ClaimRow) -> tuple[str, str] | None:
    """The estimate and interval with both sides' seeds random that an across-seeds row's
    note gives (``("-273", "[-338, -220]")``), or None."""
    found = re.search(rf"random[^:]*:\s*({_NUMBER}) (\[{_NUMBER}, {_NUMBER}\])", row.note)
    return (found.group(1), found.group(2)) if found else None


def _bounds(interval: str) -> tuple[float, float]:
    low, high = (float(x) for x in interval.strip("[]").split(", "))
    return low, high


def sides(row: ClaimRow) -> tuple[str, str, str]:
    """Who plays whom in a claims row, first-named side first, and what the claim adds
    (``("staged", "regular-wide", "at equal nodes")``); a converged row names its networks
    in its aside (``staged-converged vs regular-converged``)."""
    named = re.search(r"\(([\w.-]+) vs ([\w.-]+);", row.paper_says)
    if named:
        return named.group(1), named.group(2), ""
    if row.topic == ITERATIONS_TOPIC:  # "separated experts given the regular network's..."
        return "separated-long", "regular", ""
    first, _, rest = row.claim.partition(" beats ")
    second, _, more = rest.partition(" ")
    first = "trunk" if first == "the shared-trunk mixture" else first
    if row.topic in SCALE_TOPICS:  # "at 50 k parameters", "at batch 8, 400 nodes over ..."
        return first, second, row.topic.removeprefix(scale_design.TOPIC).strip()
    more = more.removeprefix("played directly").strip()
    return first, second, more.split(",", 1)[0] if more.startswith("at equal") else ""


def finding(row: ClaimRow) -> str:
    """What a decided control row found: the winner ("regular-long wins"), or "no
    difference shown"; a row over seeds whose interval with random seeds holds zero wins
    only "for these seeds". A row still being played says so; a verdict of another kind
    (a description, a difference without a side) is returned as it is."""
    if row.verdict.startswith(_WAITING):
        return row.verdict.split(":", 1)[0]
    if row.verdict == UNDECIDED:
        return "no difference shown"
    first, second, _ = sides(row)
    if row.verdict in SIGN_AGREES and second:
        winner = first
    elif row.verdict == "contradicts" and second:
        winner = second
    else:
        return row.verdict
    level = seeds_random(row)
    if level is not None:
        low, high = _bounds(level[1])
        if low <= 0 <= high:
            return f"{winner} wins for these seeds only"
    return f"{winner} wins"


def verdict_cell(row: ClaimRow) -> str:
    """A row's verdict as the documents' tables show it: a paper claim's verdict (sign and
    size); for a control the kit added, what the games found, its hypothesis's verdict
    beside it."""
    if row.kind == "paper claim" or row.verdict.startswith(_WAITING):
        return f"**{row.verdict}**"
    found = finding(row)
    if found == row.verdict:
        return f"**{found}**"
    return f"**{found}** (its hypothesis: {row.verdict})"


@dataclass(frozen=True)
class ControlRow:
    """One line of the controls table: who plays whom (and where), the kit's estimate with
    its interval, and what was found."""

    label: str
    estimate: str
    interval: str
    found: str


def control_rows(every: Sequence[ClaimRow], gap: Sequence[GapRow]) -> list[ControlRow]:
    """The kit's controls, as the README shows them (:data:`CONTROL_TOPICS`, each row in
    Elo and played; an across-seeds row with its interval over random seeds), and from the
    other scale's arms, regular-long and the best mixture against its regular network (by
    their own unadjusted intervals)."""
    out: list[ControlRow] = []
    for topic, tournament in CONTROL_TOPICS:
        for row in every:
            if row.topic != topic or row.verdict.startswith(_WAITING):
                continue
            estimate, interval, _ = split_measured(row.measured)
            if not interval or "points" in estimate:
                continue
            first, second, more = sides(row)
            label = f"{first} vs {second}" + (f", {more}" if more else "")
            level = (seeds_random(row) if topic == ACROSS_SEEDS_TOPIC
                     or topic in SCALE_TOPICS else None)
            if topic == settings.THREE_SEEDS_TOPIC:  # one staged seed, three regular seeds
                label = (f"{first} vs {second} at {settings.THREE_SEEDS_NODES} nodes, 3 regular "
                         "seeds")
            if level is not None:
                seeds = re.search(r"\((\d+) \S+ x (\d+) \S+ seeds\)", row.note)
                each = (f"{seeds.group(1)} seeds each, " if seeds and seeds.group(1)
                        == seeds.group(2) else "")
                label += f", {each}seeds random"
                estimate, interval = level
            out.append(ControlRow(f"{label} (`{tournament}`)", estimate, interval,
                                  finding(row)))
    for scale in sorted({g.scale for g in gap if g.scale != "small"}):
        arms = [g for g in gap if g.scale == scale]
        mixtures = sorted((g for g in arms if g.arm not in ("regular", "regular-long")),
                          key=lambda g: -g.elo)
        shown = [g for g in arms if g.arm == "regular-long"] + mixtures[:1]
        for g in shown:
            best = " (the best mixture)" if g.arm != "regular-long" and len(mixtures) > 1 \
                else ""
            found = (f"{g.arm} wins" if g.low > 0 else "regular wins" if g.high < 0
                     else "no difference shown")
            out.append(ControlRow(f"{g.arm}{best} vs regular, more data (`{scale}`)",
                                  _elo(g.elo), f"[{_elo(g.low)}, {_elo(g.high)}]", found))
    return out


def controls_table(every: Sequence[ClaimRow], gap: Sequence[GapRow]) -> list[str]:
    """:func:`control_rows` as a Markdown table (empty without rows).

    The last column says what the games found ("regular-long wins", "no difference shown"), not
    whether a claim the paper never made is contradicted.
    """
    rows = control_rows(every, gap)
    if not rows:
        return []
    return ["| control (tournament) | kit [95 % interval] | found |", "|---|---|---|",
            *(f"| {_cell(r.label)} | {r.estimate} {r.interval} | {r.found} |" for r in rows)]


def paper_table(versus: Sequence[ClaimRow]) -> list[str]:
    """The paper's claims against the regular network, one row each: the paper's size, the
    kit's estimate with its interval, and the verdict (sign and size)."""
    lines = ["| the paper's claim | paper | kit [95 % interval] | verdict |", "|---|---|---|---|"]
    for row in versus:
        estimate, interval, _ = split_measured(row.measured)
        lines.append(f"| {_cell(row.claim)} | {_cell(row.paper_value)} | "
                     f"{_cell(f'{estimate} {interval}'.strip())} | **{_cell(row.verdict)}** |")
    return lines


def _first_number(text: str) -> float | None:
    found = re.search(_NUMBER, text)
    return float(found.group(0)) if found else None


def _claims_sentence(versus: Sequence[ClaimRow]) -> str:
    """How many mixtures beat the regular network, which of them by the paper's size and
    which by more or less, and which lose to it."""
    name = {r: r.claim.split(" beats ", 1)[0] for r in versus}
    beat = [r for r in versus if r.verdict in SIGN_AGREES]
    lose = [r for r in versus if r.verdict == "contradicts"]
    text = (f"Trained as the paper trains them (small networks at CPU scale, one training seed "
            f"each), {len(beat)} of the {len(versus)} mixtures beat the regular network")
    how: list[str] = []
    sized = [name[r] for r in beat if r.verdict == "supports"]
    if sized:
        how.append(f"{_names(sized)} by the paper's margin")
    for r in beat:
        if r.verdict != SIZE_DIFFERS:
            continue
        ours, paper = _first_number(r.measured), _first_number(r.paper_value)
        more = "more" if ours is not None and paper is not None and ours > paper else "less"
        how.append(f"{name[r]} by {more}")
    if how:
        text += f" ({', '.join(how)})"
    if lose:
        text += f" and {_names([name[r] for r in lose])} {'loses' if len(lose) == 1 else 'lose'}" \
                " to it"
    undecided = len(versus) - len(beat) - len(lose)
    if undecided:
        text += f" ({undecided} undecided)"
    return text + "."


def _controls_sentence(every: Sequence[ClaimRow], gap: Sequence[GapRow]) -> str:
    """Whether one network trained for the mixtures' total steps beats them (head to head,
    over seeds, at other settings, with more data) and whether one network with their
    parameters does ('' without head-to-head rows)."""
    direct = [r for r in every if r.topic == MAIN_TOPICS[1]
              and not r.verdict.startswith(_WAITING)]
    if not direct:
        return ""
    lost = [r for r in direct if r.verdict == "contradicts"]
    who = "every mixture" if len(lost) == len(direct) else \
        f"{len(lost)} of the {len(direct)} mixtures"
    text = (f"But one network trained for the mixtures' total steps (regular-long) beats "
            f"{who} head to head")
    where: list[str] = []  # what holds for staged, the mixture every design plays
    for row in every:
        if row.topic == ACROSS_SEEDS_TOPIC and row.verdict == "contradicts" \
                and finding(row).endswith(" wins"):
            where.append("over three training seeds a side")
    settings = [r for r in every if r.topic.startswith(SETTINGS_TOPIC)
                and " beats regular-long " in f"{r.claim} "
                and not r.verdict.startswith(_WAITING)]
    if settings:
        won = sum(r.verdict == "contradicts" for r in settings)
        where.append(f"at all {won} search settings tried" if won == len(settings)
                     else f"at {won} of {len(settings)} search settings")
    for scale in sorted({g.scale for g in gap if g.scale != "small"}):
        arms = [g for g in gap if g.scale == scale]
        long = [g for g in arms if g.arm == "regular-long"]
        others = [g for g in arms if g.arm not in ("regular", "regular-long")]
        if long and others and all(long[0].low > g.high for g in others):
            where.append(f"with more data (`{scale}`)")
    if where:
        text += ", staged also " + _names(where)
    matched = [r for r in every if r.topic == MATCHED_TOPIC and sides(r)[1] == "regular-wide"
               and not r.verdict.startswith(_WAITING)]
    if matched and all(r.verdict == "contradicts" for r in matched):
        text += (f"; so does one network with the mixture's parameters (regular-wide), against "
                 f"{_names(sorted({sides(r)[0] for r in matched}))}")
    return text + "."


def _regime_sentence(every: Sequence[ClaimRow], *, tail: bool = True) -> str:
    """The networks trained until their validation loss stops improving: what each mixture
    does against the regular network so trained; and (``tail``) the scale not run."""
    verbs = {"supports": "beats", "contradicts": "loses to"}
    said: list[str] = []
    for row in every:
        if row.topic != CONVERGED_TOPIC or sides(row)[1] == "regular" \
                or row.verdict.startswith(_WAITING):
            continue
        opponent = "it" if said else "the regular network"
        said.append(f"{row.claim.split(' beats ', 1)[0]} "
                    f"{verbs.get(row.verdict, 'cannot be told from')} {opponent}")
    end = "nothing here runs at the paper's GPU scale."
    if not said:
        return end[0].upper() + end[1:] if tail else ""
    return ("With every network trained until its validation loss stops improving "
            f"(`converged`), {_names(said)}" + (f"; {end}" if tail else "."))


def _scale_played(every: Sequence[ClaimRow]) -> list[ClaimRow]:
    """The scale design's size rows that are tests (their matches complete)."""
    return [r for r in every if r.topic in SCALE_TOPICS[:-1]
            and not r.verdict.startswith(_WAITING)]


def _scale_sentence(every: Sequence[ClaimRow]) -> str:
    """Whether the answer holds as networks grow: per size played, what staged and the
    shared-trunk mixture do against the regular network ("for these seeds only" where the
    seeds-random interval holds zero); the sizes not yet played ('' without the design)."""
    rows = [r for r in every if r.topic in SCALE_TOPICS[:-1]]
    if not rows:
        return ""
    sizes = [t.removeprefix(scale_design.TOPIC).strip().removesuffix(" parameters")
             for t in SCALE_TOPICS[:-1] if any(r.topic == t for r in rows)]
    played = _scale_played(every)
    if not played:
        return (f"Whether this holds as networks grow (`scale`: {sizes[0]} to {sizes[-1]} "
                "parameters, and a shared-trunk mixture at one network's cost) is still being "
                "played.")
    verbs = {"supports": "beats", "contradicts": "loses to"}
    said: list[str] = []
    for size in sizes:
        here = [r for r in played if r.topic == f"{scale_design.TOPIC} {size} parameters"]
        parts: list[str] = []
        for row in here:
            verb = verbs.get(row.verdict, "cannot be told from")
            level = seeds_random(row)
            only = (" (for these seeds only)" if verb != "cannot be told from" and level
                    and _bounds(level[1])[0] <= 0 <= _bounds(level[1])[1] else "")
            parts.append(f"{sides(row)[0]} {verb} {'it' if parts else 'regular'}{only}")
        if parts:
            said.append(f"at {size} parameters {_names(parts)}")
    waiting = [size for size in sizes
               if not any(r.topic == f"{scale_design.TOPIC} {size} parameters" for r in played)]
    text = "As networks grow (`scale`, early-stopped): " + "; ".join(said)
    if waiting:
        text += f"; {_names(waiting)} not played yet"
    return text + "."


def bottom_line(every: Sequence[ClaimRow], gap: Sequence[GapRow]) -> str:
    """Four sentences: the paper's claims, the kit's controls, the regime, and size.

    Chosen from the verdicts: the paper's claims, the kit's controls, the regime the answer holds
    in, and what the scale design has decided so far.
    """
    versus = [r for r in every if r.topic == MAIN_TOPICS[0]]
    scale = _scale_sentence(every)  # where the design is declared, it says what is not run
    parts = [_claims_sentence(versus), _controls_sentence(every, gap),
             _regime_sentence(every, tail=not scale), scale]
    return " ".join(p for p in parts if p)


def answer_lines(figures: Path, *, image: str = f"figures/{COMPUTE_GAP}.png") -> list[str]:
    """The answer: the bottom line, the equal-compute figure (``image``, a path from the page
    that shows it), the paper's claims and the kit's controls."""
    every = read_claims(figures / "claims.csv")
    versus = [r for r in every if r.topic == MAIN_TOPICS[0]]
    if not versus:
        raise ValueError(f"{figures / 'claims.csv'} has no rows of the topic {MAIN_TOPICS[0]!r}")
    gap = read_compute_gap(figures / f"{COMPUTE_GAP}.csv")
    _, _, sample = split_measured(versus[0].measured)
    lines = [f"**The answer.** {bottom_line(every, gap)}", "",
             f"![Equal training compute: the mixtures beside one network trained as long]"
             f"({image})", "",
             *([f"![As networks grow: each mixture against one network, by size]"
                f"({Path(image).parent / SCALE!s}.png)", ""] if _scale_played(every) else []),
             "**The paper's claims** (the `replicated` tournament"
             + (f", {sample} a claim" if sample else "") + "; Elo, 95 % interval):", "",
             *paper_table(versus)]
    controls = controls_table(every, gap)
    if controls:
        lines += ["", "**The kit's controls** (none is in the paper; Elo from the first-named "
                  "side; the `medium` rows unadjusted):", "", *controls]
    return lines


# --- REPRODUCING.md's generated blocks ------------------------------------------------------

#: REPRODUCING.md's generated tables: a block name and the claims-table topics it shows.
SECTIONS: dict[str, tuple[str, ...]] = {
    "paper-claims": (MAIN_TOPICS[0],),
    "seeds": (replicated.SEEDS_TOPIC,),
    "single-expert": ("single expert (Fig. 6)",),
    "phase-definition": ("phase definition (Fig. 7)",),
    "exploratory": ("routing (sec. 4)", "gate table (docs/phases.md)"),
    "separated-long": (ITERATIONS_TOPIC,),
    "equal-compute": ("equal training compute, via the regular network", MAIN_TOPICS[1]),
    "seeds-long": (ACROSS_SEEDS_TOPIC,),
    "settings": ("settings: MoE vs regular", "settings: equal compute, head to head"),
    "matched": (MATCHED_TOPIC,),
    "converged": (CONVERGED_TOPIC,),
    "scale": SCALE_TOPICS,
    "table1": ("Table 1 loss",),
}


def section_block(name: str) -> Block:
    """The markers of REPRODUCING.md's block ``name`` (a key of :data:`SECTIONS`)."""
    return Block(f"claims {name}", "chessmoe.report.answer", "figures/claims.csv")


def section_lines(every: Sequence[ClaimRow], name: str) -> list[str]:
    """The rows of the topics :data:`SECTIONS` gives ``name``, as a table: the claim, the
    paper's size, the kit's measurement, the Holm-adjusted p and the verdict (for a control,
    what was found: :func:`verdict_cell`); a pooled
    row over seeds shows its interval with both sides' seeds random beside it, and the p
    belongs to the pooled test only."""
    rows = [r for r in every if r.topic in SECTIONS[name]]
    if not rows:
        return ["(no rows of this topic in the claims table yet)"]
    seeded = any(seeds_random(r) for r in rows)
    header = ("| claim | paper | kit (95 %) | p (Holm) | verdict |" if not seeded else
              "| claim | paper | kit, pooled over the seeds played (95 %) | p (Holm; the "
              "pooled test) | kit, both sides' seeds random (95 %; no test) | verdict (pooled) |")
    lines = [header, "|---" * header.count(" | ") + "|---|"]
    for row in rows:
        paper = row.paper_value if row.kind == "paper claim" else "(not in the paper)"
        cells = [row.claim, paper, row.measured, row.p_holm or "-"]
        if seeded:
            level = seeds_random(row)
            cells.append(" ".join(level) if level else "-")
        cells.append(verdict_cell(row))
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return lines


def refresh_sections(text: str, figures: Path) -> str:
    """``text`` (REPRODUCING.md) with every block of :data:`SECTIONS` it holds rewritten
    from ``figures``' claims table (a block it does not hold is left out)."""
    every = read_claims(figures / "claims.csv")
    for name in SECTIONS:
        block = section_block(name)
        if block.span(text) is not None:
            text = block.replace(text, section_lines(every, name))
    return text


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m chessmoe.report.answer README.md [FIGURES [RESULTS]]``: rewrite the README's
    answer block, where the README has its markers its runs-in-progress block
    (:mod:`chessmoe.report.progress`, from RESULTS, default ``results`` beside the README),
    and the claims blocks of the REPRODUCING.md beside it (:func:`refresh_sections`)."""
    from chessmoe.report import progress

    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m chessmoe.report.answer README.md [FIGURES [RESULTS]]",
              file=sys.stderr)
        return 2
    readme = Path(args[0])
    figures = Path(args[1]) if len(args) > 1 else readme.parent / "figures"
    results = Path(args[2]) if len(args) > 2 else readme.parent / "results"
    text = refresh(readme.read_text(encoding="utf-8"), answer_lines(figures))
    if progress.BLOCK.span(text) is not None:
        text = progress.refresh(text, progress.progress_lines(results))
    readme.write_text(text, encoding="utf-8")
    reproducing = readme.parent / "REPRODUCING.md"
    if reproducing.is_file():
        before = reproducing.read_text(encoding="utf-8")
        after = refresh_sections(before, figures)
        if after != before:
            reproducing.write_text(after, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
