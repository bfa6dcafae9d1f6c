"""BENCHMARKS.md read back: the "latest" table at its top (:func:`refresh`), generated from the
log below it, which ``make bench`` (``benchmarks/bench.py``) appends to and which keeps the
dates, commits, every measure and the targets in full (:func:`parse_log`)."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe.report.blocks import Block

__all__ = ["BEGIN", "END", "HEADLINES", "Headline", "Section", "headline_value", "latest",
           "latest_table", "parse_log", "refresh"]

BLOCK = Block("latest", "chessmoe.report.benchlog", "the log below")
BEGIN, END = BLOCK.begin, BLOCK.end

@dataclass(frozen=True)
class Headline:
    """What a benchmark's row of the latest table shows: the measures its target is about
    (a name prefix and a short label each; the last row matching a prefix is read) and its
    target in a few words (the log keeps the whole sentence)."""

    measures: tuple[tuple[str, str], ...]
    target: str
    pattern: str = ""  # set: the headline is this pattern's first match in each value


#: Each known benchmark's headline; one not listed shows the first ratio its section
#: gives and its target's first clause.
HEADLINES: dict[str, Headline] = {
    "Phase-statistics pass": Headline((("ratio (ours / baseline)", ""),),
                                      ">= 0.7x python-chess"),
    "Phase dataset build": Headline((("ratio (ours / baseline)", ""),), ">= 0.5x python-chess"),
    "Plane expansion": Headline((("numpy, batch 1024, 1 thread", ""),),
                                ">= 300k positions/s a core"),
    "Training throughput": Headline((("paper preset", "paper preset"),),
                                    ">= 20k samples/s, paper preset, 1 GPU"),
    "MCTS search": Headline((("uniform evaluator, batch 8", "uniform"),
                             ("committed small experts (separated), mixture, onnx, batch 8,",
                              "experts")), ">= 0.5x / 0.10x move generation"),
    "Tournament games": Headline((("scaling 1 -> 2 workers", "1 -> 2 workers"),), "-"),
    "Tournament games: multi-game runner vs per-game runner": Headline(
        (("multi-game / per-game", ""),), ">= 2.5x"),
    "Network inference backends": Headline((("batch 8", "ONNX / torch, batch 8"),), "-"),
    "Paper scale on a GPU": Headline((("paper network, NVIDIA", "bf16, batch 1024"),
                                      ("paper grid projected", "grid")),
                                     ">= 100k positions/s; grid <= 3 days",
                                     r"\d[\d,]* (?:positions/s|hours)"),
    "Projection against a played tournament": Headline(
        (("`chessmoe tournament --profile small --plan", ""),
         ("small tournament, played", "played")), "-"),
    "n-tuple comparison training": Headline((("ratio (reference / ours)", ""),),
                                            ">= 1.5x the reference"),
    "Compiled search core vs the Python search": Headline(
        (("tree alone (uniform evaluator), batch 8,", "tree"),
         ("UCI engine, committed small experts, default options (native search)", "UCI")),
        ">= 15x Python; UCI >= 0.15x move generation"),
    "Tournament games: compiled vs Python search": Headline(
        (("compiled / Python at 100", "100 nodes"), ("compiled / Python at 800", "800 nodes")),
        ">= 2x"),
    "Per-batch glue: compiled vs numpy": Headline(
        (("compiled / numpy glue", "games fp32"),
         ("compiled glue on the gated low-precision backend", "games bf16"),
         ("UCI engine, committed small experts", "UCI")),
        ">= 1.3x / 2.5x games/hour; UCI >= 0.15x",
        r"\d+(?:\.\d+)?x"),
    "DeepChess comparison search": Headline((("depth 4 (", "depth 4"),),
                                            ">= 2x the reference at depth 4"),
    "MAIS best-first search": Headline((("1,500-node search (", ""),),
                                       "faster than the match's search"),
    "Mixed-precision training (bf16 autocast, CPU)": Headline(
        (("small (", "small"), ("regular-wide (", "regular-wide")), ">= 1.7x fp32",
        r"\d+(?:\.\d+)?x"),
    "Training cost by network size (the scale design)": Headline(
        (("604 k (", "604 k"), ("201 k shared trunk (", "trunk"), ("1.8 M (", "1.8 M")), "-",
        r"\d+(?:\.\d+)?x"),
    "Low-precision inference (CPU, one thread)": Headline(
        (("batch 8", "OpenVINO bf16 / ONNX, batch 8"),), "-",
        r"(?<=openvino-bf16 )[\d,]+ positions/s \(\d+(?:\.\d+)?x\)"),
}

_RATIO = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)x(?![\w])")


def headline_value(value: str) -> str:
    """A measure's value cut to its headline: the first ratio it gives (``85.7x``), else its
    first clause (``736,628 positions/s``)."""
    ratio = _RATIO.search(value)
    if ratio:
        return f"{ratio.group(1)}x"
    per = re.search(r"\((\d+(?:\.\d+)?) per generated position\)", value)
    if per:
        return f"{per.group(1)}x"
    return re.split(r" \(|; |: ", value, maxsplit=1)[0].strip()


_ENTRY = re.compile(r"^## (\d{4}-\d{2}-\d{2})T[\d:+.\-]+ — commit (\S+)(.*)$")
_TARGET = re.compile(r"^Target: (.*) — \*\*(.+?)\*\*(.*)$")


@dataclass(frozen=True)
class Section:
    """One benchmark's section of one log entry."""

    title: str
    date: str  # YYYY-MM-DD
    commit: str  # as the entry names it (12 hex digits)
    dirty: bool
    machine: str  # the entry's Machine line, shortened: cores and GPU
    rows: tuple[tuple[str, str], ...]
    target: str
    verdict: str  # the log's own words: met, NOT met, n/a, or longer

    @property
    def benchmark(self) -> str:
        """The title without the tracker suffix older log entries carry ("MCTS search (issue
        5)" is "MCTS search"): what stays the same across runs."""
        return re.sub(r"\s*\(issues? [^)]*\)\s*$", "", self.title).strip()

    def headline(self) -> str:
        """The latest table's cell: each headline measure's ratio or value, with its label
        (:data:`HEADLINES`); for a benchmark not listed, its first ratio."""
        known = HEADLINES.get(self.benchmark)
        if known is not None:
            parts = []
            for prefix, label in known.measures:
                found = [v for m, v in self.rows if m.startswith(prefix)]
                if found:
                    match = re.search(known.pattern, found[-1]) if known.pattern else None
                    value = match.group(0) if match else headline_value(found[-1])
                    parts.append(f"{label}: {value}" if label else value)
            if parts:
                return "; ".join(parts)
        ratios = [headline_value(v) for _, v in self.rows if _RATIO.search(v)]
        if ratios:
            return ratios[0]
        return headline_value(self.rows[0][1]) if self.rows else "-"

    def short_target(self) -> str:
        """The target in a few words (:data:`HEADLINES`), else its first clause."""
        known = HEADLINES.get(self.benchmark)
        if known is not None:
            return known.target
        return self.target.split(";", 1)[0].strip() or "-"

    def met(self) -> str:
        """met, not met, partly (a target of several parts, some met) or -."""
        words = self.verdict.lower()
        if not words or words in ("n/a", "-"):
            return "-"
        if "not met" in words:
            return "partly" if re.sub(r"not met", "", words).count("met") else "not met"
        return "met" if "met" in words else self.verdict


def _machine(line: str) -> str:
    cores = re.search(r"(\d+) cores", line)
    gpu = re.search(r"NVIDIA [A-Z]\d+\w*", line)
    cpu = line.removeprefix("Machine: ").split(",", 1)[0].strip()
    parts = [f"{cpu}, {cores.group(1)} cores" if cores else cpu]
    if gpu:
        parts.append(gpu.group(0))
    return ", ".join(parts)


def _without_block(text: str) -> str:
    return BLOCK.without(text)


def parse_log(text: str) -> list[Section]:
    """Every benchmark section of every entry of BENCHMARKS.md, oldest first (the generated
    table is not read). ``make bench`` appends one entry per run, newest last::

        ## 2026-11-23T13:11:28+00:00 — commit e10ebaac7f94 (dirty)

        Machine: AMD EPYC, 2 cores, 23.5 GiB, GPU: none; Python 3.11.7, ...

        ### MCTS search

        | measure | value |
        |---|---|
        | uniform evaluator, batch 8 | 6,893 simulations/s (0.55 per generated position) |

        Target: uniform search >= 0.5x ... — **NOT met**.
    """
    sections: list[Section] = []
    date = commit = machine = ""
    dirty = False
    title: str | None = None
    rows: list[tuple[str, str]] = []
    target = verdict = ""

    def close() -> None:
        if title is not None:
            sections.append(Section(title, date, commit, dirty, machine, tuple(rows), target,
                                    verdict))

    for line in _without_block(text).splitlines():
        entry = _ENTRY.match(line)
        if entry or line.startswith("## "):
            close()
            title = None
            if entry:
                date, commit = entry.group(1), entry.group(2)
                dirty = "dirty" in entry.group(3)
                machine = ""
            continue
        if line.startswith("Machine: ") and title is None:
            machine = _machine(line)
        elif line.startswith("### "):
            close()
            title, rows, target, verdict = line[4:].strip(), [], "", ""
        elif title is not None and line.startswith("| ") and not line.startswith(
                ("| measure |", "|---")):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ", 1)]
            if len(cells) == 2:
                rows.append((cells[0], cells[1]))
        elif title is not None and (match := _TARGET.match(line)):
            target, verdict = match.group(1).strip(), match.group(2).strip()
    close()
    return sections


def latest(sections: Sequence[Section]) -> list[Section]:
    """Each benchmark's newest section, in the order the benchmarks first appear (a benchmark
    is a section title without its parenthesised suffix: :attr:`Section.benchmark`)."""
    newest: dict[str, Section] = {}
    for section in sections:  # the log is oldest first: a later section replaces
        newest[section.benchmark] = section
    order = list(dict.fromkeys(s.benchmark for s in sections))
    return [newest[name] for name in order]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def latest_table(text: str) -> list[str]:
    """The "latest" block's lines for BENCHMARKS.md's ``text``: one short row a benchmark
    (measure, headline ratio, target, met, machine); the log below keeps the rest."""
    rows = latest(parse_log(text))
    lines = ["## Latest", "",
             "Each benchmark's newest run in one line, from the log below (newest last), where "
             "its date, commit, every measure and the target in full are; ratios are against "
             "a baseline measured in the same run.", "",
             "| measure | headline ratio | target | met | machine |",
             "|---|---|---|---|---|"]
    for s in rows:
        lines.append(f"| {_cell(s.benchmark)} | {_cell(s.headline())} | "
                     f"{_cell(s.short_target())} | {s.met()} | {_cell(s.machine)} |")
    return lines


def refresh(text: str) -> str:
    """BENCHMARKS.md's ``text`` with its "latest" block, between :data:`BEGIN` and
    :data:`END` under the file's title, rewritten from its log (inserted before the first
    entry when it has none): one short row a benchmark with its headline ratio
    (:data:`HEADLINES`), its target in a few words, whether it was met and the machine."""
    if BLOCK.span(text) is not None:
        return BLOCK.replace(text, latest_table(text))
    block = BLOCK.render(latest_table(text))
    first = re.search(r"^## \d{4}-", text, re.M)
    at = first.start() if first else len(text)
    return text[:at] + block + "\n\n" + text[at:]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m chessmoe.report.benchlog BENCHMARKS.md``: rewrite its "latest" table."""
    args = list(sys.argv[1:] if argv is None else argv)
    path = Path(args[0] if args else "BENCHMARKS.md")
    path.write_text(refresh(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
