"""``make report``: a static reproduction report (Sphinx + MyST-NB) built offline from the
executed notebooks ``make figures`` leaves in ``build/notebooks/``, the artefacts in
``figures/`` and the committed ``results/``.

Every page is generated, none is written by hand:

* the landing page: the answer (:mod:`chessmoe.report.summary`) and the claims table;
* one page per artefact of the job table (:mod:`chessmoe.report.artefacts`): the figure or
  table, the paper's values as :mod:`chessmoe.paper` records them beside the kit's, the
  comparison REPRODUCING.md gives and the claims rows that decide it, the games behind it
  and their provenance (``figures/INDEX.md``: tournaments, draw rules, commits; the results'
  manifests: profile, commit, date), and the executed notebook that drew it;
* the executed notebooks, the ``docs/`` pages, REPRODUCING.md, the figure index, the
  benchmarks and how to start the explorers.

Links between these documents are rewritten to the site's pages; a link to a file the site
does not hold becomes its path in code. The build fails, naming what is missing, when an
executed notebook, an artefact or a document is absent, on any Sphinx warning (a broken
cross-reference among them), and when a page would fetch anything from the network.

    python -m chessmoe.report.site [--root .] [--notebooks build/notebooks] [--out build/report]
"""

from __future__ import annotations

import argparse
import csv
import json
import posixpath
import re
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from chessmoe import paper
from chessmoe.designs.rows import ClaimRow
from chessmoe.report import stems, summary
from chessmoe.report.artefacts import NOTEBOOK_JOBS, NotebookJob

__all__ = [
    "Artefact",
    "ReportInputsMissing",
    "SiteInputs",
    "artefact_page",
    "artefacts",
    "build",
    "check_inputs",
    "comparisons",
    "external_fetches",
    "page_name",
    "read_index",
    "rewrite_links",
    "write_sources",
]


class ReportInputsMissing(FileNotFoundError):
    """Something the report is built from is absent; the message names each and what makes it."""


# --- the artefacts ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Artefact:
    """One artefact of the job table: its stem, whether it is a figure or a table, the
    notebook that writes it and its files (relative to ``figures/``)."""

    stem: str
    kind: str  # "figure" | "table"
    notebook: str
    files: tuple[str, ...]

    @property
    def paper_number(self) -> tuple[str, int] | None:
        """("Fig.", 5) for ``fig05-...``, ("Table", 2) for ``table2-...``; None otherwise."""
        match = re.fullmatch(r"(fig|table)(\d+)-.*", self.stem)
        if match is None:
            return None
        return ("Fig." if match.group(1) == "fig" else "Table", int(match.group(2)))

    @property
    def label(self) -> str | None:
        number = self.paper_number
        return f"{number[0]} {number[1]}" if number else None

    @property
    def group(self) -> str:
        """paper-figures, paper-tables, extras or kit (the report's sections)."""
        if self.stem.startswith("fig"):
            return "paper-figures"
        if self.stem.startswith("table"):
            return "paper-tables"
        return "extras" if self.stem.startswith("extras/") else "kit"


def artefacts(jobs: Sequence[NotebookJob] = NOTEBOOK_JOBS) -> list[Artefact]:
    """Every artefact of the job table, in the paper's order (figures by number, then tables,
    then the kit's own artefacts, then the extras)."""
    out: list[Artefact] = []
    for job in jobs:
        for stem in job.figures:
            files = [f"{stem}.png", f"{stem}.pdf"] + ([f"{stem}.csv"] if stem in job.data else [])
            out.append(Artefact(stem, "figure", job.notebook, tuple(files)))
        for stem in job.tables:
            out.append(Artefact(stem, "table", job.notebook, (f"{stem}.md", f"{stem}.csv")))
    order = {"paper-figures": 0, "paper-tables": 1, "kit": 2, "extras": 3}

    def key(a: Artefact) -> tuple[int, int, str]:
        number = a.paper_number
        return order[a.group], number[1] if number else 0, a.stem

    return sorted(out, key=key)


def page_name(stem: str) -> str:
    """The site path of an artefact's page (``artefacts/<stem>.md``)."""
    return f"artefacts/{stem}.md"


_KIT_TITLES: dict[str, str] = {
    stems.CLAIMS: "What the evidence decides: the claims table",
    stems.POWERED_ARMS: "Every arm of the claims' tournament against the regular network",
    stems.SEED_GRID: "The seed grid: mixtures and regular networks under three seeds",
    stems.COMPUTE_GAP: "Equal training compute: the mixtures beside one network trained as long",
    stems.SETTINGS: "Staged beyond one setting: nodes per move and batch size",
    stems.RATING_LIST: "The rating list (figure)",
    stems.RATING_LIST_TABLE: "The rating list, anchored to Stockfish",
    stems.RELATED_ENGINES: "The related documents' engines against their documents",
    stems.RELATED_LEARNING_CURVES: "The related engines' learning curves",
    stems.DEEPCHESS_CURVE: "DeepChess: the learning curve against material",
}

#: Claims-table topics shown on a kit artefact's page (paper artefacts match by their label).
_KIT_TOPICS: dict[str, tuple[str, ...]] = {
    stems.CLAIMS: ("",),  # every row
    stems.POWERED_ARMS: ("MoE vs regular", "single expert", "iterations per expert"),
    stems.SEED_GRID: ("MoE vs regular, across seeds", "equal training compute, across seeds"),
    stems.SETTINGS: ("settings:",),
    stems.COMPUTE_GAP: ("equal training compute",),
    stems.EXTRAS_CONTRASTS: ("phase definition", "routing", "gate table",
                             "equal training compute, via"),
}

#: Side-by-side artefacts the kit writes for a paper artefact (the paper's numbers beside its
#: own), with the statistics rows they are filtered to (None: every row).
_BESIDE: dict[str, tuple[str, tuple[str, ...] | None]] = {
    stems.FIG02_PHASE_DISTRIBUTION: (stems.EXTRAS_PHASE_STATS_VS_PAPER,
                                     ("positions_opening_pct", "positions_middlegame_pct",
                                      "positions_endgame_pct")),
    stems.FIG11_PHASE_STARTS: (stems.EXTRAS_PHASE_STATS_VS_PAPER,
                               ("middlegame_start_mean", "middlegame_start_std",
                                "endgame_start_mean", "endgame_start_std")),
    stems.FIG12_RESULTS_BY_PHASE: (stems.EXTRAS_PHASE_STATS_VS_PAPER,
                                   ("white_wins_pct", "draws_pct", "black_wins_pct",
                                    "draws_reaching_middlegame_pct",
                                    "draws_reaching_endgame_pct")),
    stems.FIG13_PHASE_COVERAGE: (stems.EXTRAS_PHASE_STATS_VS_PAPER,
                                 ("games_reaching_middlegame_pct", "games_reaching_endgame_pct")),
}


def _md_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    return ["| " + " | ".join(cell(h) for h in header) + " |",
            "|" + "---|" * len(header),
            *("| " + " | ".join(cell(v) for v in row) + " |" for row in rows)]


def _kingbase(keys: Sequence[str]) -> list[str]:
    return _md_table(("statistic (KingBase Lite 2019)", "paper"),
                     ((k, f"{paper.KINGBASE_STATS[k]:.2f}") for k in keys))


def _table2(methods: Sequence[str]) -> list[str]:
    return _md_table(("method", "batch 1", "batch 8", "batch 16", "batch 32", "batch 64",
                      "mean of 55 settings"),
                     ((m, *(f"{v:+.2f}" for v in paper.TABLE2_ELO[m])) for m in methods))


def _paper_values(stem: str) -> list[str]:
    """The paper's numbers for ``stem`` as :mod:`chessmoe.paper` records them ([] if none)."""
    methods = tuple(paper.TABLE2_ELO)
    by_stem: dict[str, Callable[[], list[str]]] = {
        stems.TABLE1_EXPERT_LOSSES: lambda: _md_table(
            ("approach", "expert", "opening", "middlegame", "endgame", "no-phases"),
            ((a, e, *(f"{v:.4f}" for v in values))
             for (a, e), values in paper.TABLE1_LOSSES.items())),
        stems.TABLE2_ELO_GAINS: lambda: _table2(methods),
        stems.FIG05_MOE_VS_SINGLE: lambda: _table2(methods),
        stems.FIG26_ELO_SEPARATED: lambda: _table2(("separated",)),
        stems.FIG27_ELO_STAGED: lambda: _table2(("staged",)),
        stems.FIG28_ELO_WEIGHTED: lambda: _table2(("weighted-a4", "weighted-a10")),
        stems.TABLE3_POSITIONS_PER_PHASE: lambda: _md_table(
            ("split", "no-phases", "opening", "middlegame", "endgame"),
            ((s, *(f"{v:,}" for v in values)) for s, values in paper.TABLE3_POSITIONS.items())),
        stems.TABLE4_GAMES_PER_PHASE: lambda: _md_table(
            ("split", "no-phases", "opening", "middlegame", "endgame"),
            ((s, *(f"{v:,}" for v in values)) for s, values in paper.TABLE4_GAMES.items())),
        stems.TABLE7_HYPERPARAMETERS: lambda: _md_table(("hyper-parameter", "paper"),
                                                        paper.TABLE7.items()),
    }
    beside = _BESIDE.get(stem)
    if beside is not None and beside[1] is not None:
        return _kingbase(beside[1])
    make = by_stem.get(stem)
    return make() if make else []


# --- what the committed documents say -----------------------------------------------------------


def _table_rows(lines: Sequence[str]) -> list[list[str]]:
    """The cells of a Markdown table's rows (header and separator left out)."""
    rows = []
    for line in lines:
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if all(re.fullmatch(r":?-+:?", c) for c in cells):
            continue
        rows.append(cells)
    return rows[1:] if rows else []


@dataclass
class IndexTables:
    """``figures/INDEX.md`` read back: per artefact the results it read, per results folder
    the commit and date its manifest records, and per tournament the games behind the
    figures (matches, games, draw rules, commits, dates, the notebooks reading it)."""

    results_read: dict[str, list[str]] = field(default_factory=dict)
    provenance: dict[str, str] = field(default_factory=dict)
    games_note: str = ""
    games: list[dict[str, str]] = field(default_factory=list)


def read_index(path: Path) -> IndexTables:
    """Parse ``figures/INDEX.md`` (written by ``make figures``)."""
    if not path.is_file():
        raise ReportInputsMissing(f"{path} is missing: run `make figures` first")
    sections: dict[str, list[str]] = {"": []}
    current = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            sections[current] = []
        else:
            sections[current].append(line)
    index = IndexTables()
    for cells in _table_rows(sections[""]):
        if len(cells) == 4:
            index.results_read[cells[0]] = re.findall(r"`results/([^`]+)`", cells[3])
    for cells in _table_rows(sections.get("Results provenance", [])):
        folder = re.findall(r"`results/([^`]+)`", cells[0])
        if folder and len(cells) == 2:
            index.provenance[folder[0]] = cells[1]
    ledger = sections.get("Games behind the figures", [])
    index.games_note = " ".join(line for line in ledger if line and not line.startswith("|"))
    header = ("tournament", "matches played", "games", "draw rules (games)",
              "played by (games)", "dates", "read by")
    for cells in _table_rows(ledger):
        if len(cells) == len(header):
            index.games.append(dict(zip(header, cells, strict=True)))
    return index


@dataclass(frozen=True)
class Comparison:
    """One row of REPRODUCING.md's "comparison with the paper" tables."""

    label: str  # as REPRODUCING.md writes it ("Fig. 17–19 separated experts")
    text: str


def comparisons(reproducing: str) -> dict[tuple[str, int], Comparison]:
    """REPRODUCING.md's one-line comparisons, keyed by ("Fig."|"Table", number); a row for
    a range of figures ("Fig. 17–19") holds for each of them."""
    out: dict[tuple[str, int], Comparison] = {}
    for line in reproducing.splitlines():
        match = re.match(r"\|\s*(Fig\.|Table)\s+(\d+)(?:\s*[\u2013-]\s*(\d+))?\s+([^|]*)"
                         r"\|(.*)\|\s*$", line)
        if match is None:
            continue
        kind, first, last = match.group(1), int(match.group(2)), match.group(3)
        label = line.split("|")[1].strip()
        for number in range(first, (int(last) if last else first) + 1):
            out.setdefault((kind, number), Comparison(label, match.group(5).strip()))
    return out


# --- provenance of the results folders ----------------------------------------------------------


@dataclass(frozen=True)
class FolderProvenance:
    """What the manifests of one results folder (and its direct sub-folders) record."""

    folder: str
    profiles: tuple[str, ...]
    checkouts: tuple[tuple[str, int], ...]  # ("`8929a80a` clean", records)
    first_date: str | None
    last_date: str | None


def _records(directory: Path) -> Iterable[dict[str, object]]:
    for name in ("manifest.json", "summary.json"):
        for path in [directory / name, *sorted(directory.glob(f"*/{name}"))]:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict):
                yield data


def folder_provenance(results: Path, folder: str) -> FolderProvenance:
    """The profiles, checkouts and dates the manifests (or summaries) of ``results/folder``
    and its bundles record."""
    profiles: set[str] = set()
    checkouts: Counter[str] = Counter()
    dates: list[str] = []
    for record in _records(results / folder):
        profile = record.get("profile") or record.get("tournament")
        if isinstance(profile, str):
            profiles.add(profile)
        prov = record.get("provenance")
        if not isinstance(prov, dict):
            continue
        git = prov.get("git")
        git = git if isinstance(git, dict) else {}
        commit, dirty = git.get("commit"), git.get("dirty")
        state = ("state not recorded" if not isinstance(dirty, bool)
                 else "dirty" if dirty else "clean")
        checkouts[f"`{commit[:8]}` {state}" if isinstance(commit, str) else
                  "commit not recorded"] += 1
        if isinstance(prov.get("date"), str):
            dates.append(str(prov["date"]))
    dates.sort()
    return FolderProvenance(folder, tuple(sorted(profiles)),
                            tuple(sorted(checkouts.items(), key=lambda kv: (-kv[1], kv[0]))),
                            dates[0] if dates else None, dates[-1] if dates else None)


# --- the inputs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SiteInputs:
    """Where the report reads from: the checkout (``figures/``, ``results/``, ``docs/``,
    REPRODUCING.md, BENCHMARKS.md) and the executed notebooks."""

    root: Path
    notebooks: Path

    @property
    def figures(self) -> Path:
        return self.root / "figures"

    @property
    def results(self) -> Path:
        return self.root / "results"


def check_inputs(inputs: SiteInputs, jobs: Sequence[NotebookJob] = NOTEBOOK_JOBS) -> None:
    """Fail loudly, naming each missing input and what makes it."""
    problems: list[str] = []
    if not inputs.notebooks.is_dir():
        problems.append(f"{inputs.notebooks}/ is absent (the executed notebooks): run "
                        "`make figures` first")
    else:
        for job in jobs:
            path = inputs.notebooks / job.notebook
            if not path.is_file():
                problems.append(f"{path} is missing: run `make figures` first")
                continue
            meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
            run = meta.get("papermill", {}) if isinstance(meta, dict) else {}
            if not run or run.get("exception"):
                problems.append(f"{path} is not a successful papermill run: rerun "
                                "`make figures`")
    for artefact in artefacts(jobs):
        for name in artefact.files:
            if not (inputs.figures / name).is_file():
                problems.append(f"{inputs.figures / name} is missing: run `make figures`")
    for name in ("figures/INDEX.md", "figures/claims.csv", f"figures/{stems.COMPUTE_GAP}.csv",
                 "REPRODUCING.md", "BENCHMARKS.md"):
        if not (inputs.root / name).is_file():
            make = "`make figures`" if name.startswith("figures/") else "git checkout"
            problems.append(f"{inputs.root / name} is missing: restore it ({make})")
    if problems:
        raise ReportInputsMissing("make report: cannot build the report:\n  "
                                  + "\n  ".join(problems))


# --- links between the documents ----------------------------------------------------------------

_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^()\s]+)\)")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def rewrite_links(text: str, source: str, target: Callable[[str], str | None],
                  page: str | None = None) -> str:
    """``text`` (a Markdown document at repository path ``source``, shown at site path
    ``page``, default the same) with every relative link pointed at the site's copy of its
    target (``target(repository path)``, None when the site has none). A link to a file the
    site does not hold becomes its text and path in code; links inside code and links with a
    scheme or only an anchor are left alone."""
    shown_at = page if page is not None else source
    def one(match: re.Match[str], source: str) -> str:
        bang, label, href = match.groups()
        if re.match(r"[a-z][a-z0-9+.-]*:", href) or href.startswith(("#", "/")):
            return match.group(0)
        path, _, anchor = href.partition("#")
        repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
        site = target(repo_path)
        if site is None:
            shown = f"`{repo_path}`"
            return (f"{label} ({shown})" if label and label.strip("`") != repo_path
                    else shown)
        relative = posixpath.relpath(site, posixpath.dirname(shown_at) or ".")
        return f"{bang}[{label}]({relative}{'#' + anchor if anchor else ''})"

    def outside_code(chunk: str, source: str) -> str:
        return _LINK.sub(lambda m: one(m, source), chunk)

    return _apply_outside_code(text, lambda chunk: outside_code(chunk, source))


def _apply_outside_code(text: str, apply: Callable[[str], str]) -> str:
    out, last = [], 0
    for code in _CODE.finditer(text):
        out.append(apply(text[last:code.start()]))
        out.append(code.group(0))
        last = code.end()
    out.append(apply(text[last:]))
    return "".join(out)


# --- the pages ----------------------------------------------------------------------------------


def _csv_table(path: Path, max_rows: int = 60) -> list[str]:
    """A CSV artefact as a Markdown table, full-precision numbers rounded for reading."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        return []

    def shown(cell: str) -> str:
        if re.fullmatch(r"-?\d+\.\d{4,}(?:e[+-]?\d+)?|-?\d+(?:\.\d+)?e[+-]?\d+", cell):
            value = float(cell)
            return f"{value:.1f}" if abs(value) >= 10 else f"{value:.3g}"
        return cell

    body = [[shown(c) for c in row] for row in rows[1:max_rows + 1]]
    keep = [i for i in range(len(rows[0])) if any(i < len(r) and r[i] for r in body)]
    lines = _md_table([rows[0][i] for i in keep], ([r[i] for i in keep] for r in body))
    if len(rows) - 1 > max_rows:
        lines.append(f"\n({len(rows) - 1 - max_rows} more rows in the CSV file.)")
    return lines


def _filtered(lines: Sequence[str], keys: Sequence[str] | None) -> list[str]:
    """A Markdown artefact's lines; with ``keys``, its table keeps only the rows whose first
    cell is one of them."""
    if keys is None:
        return list(lines)
    out: list[str] = []
    seen_header = False
    for line in lines:
        if line.startswith("|"):
            first = line.split("|")[1].strip()
            if not seen_header or set(first) <= set("-: ") or first in keys:
                out.append(line)
            seen_header = True
        else:
            out.append(line)
    return out


def _title(artefact: Artefact, compared: dict[tuple[str, int], Comparison]) -> str:
    words = artefact.stem.split("/")[-1]
    if artefact.paper_number:
        words = words.split("-", 1)[1]
        comparison = compared.get(artefact.paper_number)
        if comparison is not None and not re.search(r"\d\s*[\u2013-]\s*\d", comparison.label):
            # REPRODUCING.md names a single artefact: "Fig. 5 MoE vs one network"
            return f"{artefact.label}: {comparison.label[len(artefact.label or ''):].strip()}"
        return f"{artefact.label}: {words.replace('-', ' ')}"
    if artefact.stem in _KIT_TITLES:
        return _KIT_TITLES[artefact.stem]
    return "Extra: " + words.replace("-", " ")


def _claim_rows(artefact: Artefact, claims: Sequence[ClaimRow]) -> list[ClaimRow]:
    if artefact.label:
        pattern = re.compile(rf"(?<![\w.]){re.escape(artefact.label)}(?!\d)")
        return [r for r in claims if pattern.search(f"{r.topic} {r.paper_says}")]
    topics = _KIT_TOPICS.get(artefact.stem, ())
    return [r for r in claims if any(r.topic.startswith(t) for t in topics)]


def _up(page: str) -> str:
    """The path from ``page`` back to the site's root."""
    depth = page.count("/")
    return "../" * depth


@dataclass
class _Context:
    inputs: SiteInputs
    index: IndexTables
    compared: dict[tuple[str, int], Comparison]
    claims: list[ClaimRow]
    provenance: dict[str, FolderProvenance] = field(default_factory=dict)

    def folder(self, folder: str) -> FolderProvenance:
        if folder not in self.provenance:
            self.provenance[folder] = folder_provenance(self.inputs.results, folder)
        return self.provenance[folder]


def artefact_page(artefact: Artefact, context: _Context) -> str:
    """The Markdown page of one artefact (see the module's note)."""
    page = page_name(artefact.stem)
    up = _up(page)
    figures = context.inputs.figures
    title = _title(artefact, context.compared)
    lines = [f"# {title}", ""]
    if artefact.label:
        lines += [f"The paper's {artefact.label}, redrawn by the kit from committed results "
                  f"(`figures/{artefact.stem}`).", ""]
    else:
        lines += [f"An artefact of the kit (`figures/{artefact.stem}`), drawn from committed "
                  "results.", ""]
    if artefact.kind == "figure":
        lines += [f"![{title}]({up}figures/{artefact.stem}.png)", ""]
    files = ", ".join(f"[{name.rsplit('.', 1)[1]}]({up}figures/{name})"
                      for name in artefact.files if not name.endswith(".md"))
    lines += [f"Files: {files}.", ""]

    # the numbers: the paper's, the kit's side by side, the kit's own
    paper_lines = _paper_values(artefact.stem)
    beside = _BESIDE.get(artefact.stem)
    own_table = figures / f"{artefact.stem}.md"
    own_csv = figures / f"{artefact.stem}.csv"
    lines += ["## The paper's values and the kit's", ""]
    if paper_lines:
        lines += ["What the paper reports, as `chessmoe/paper.py` records it:", "",
                  *paper_lines, ""]
    else:
        lines += ["The paper prints no numbers for this artefact that the kit records "
                  "(`chessmoe/paper.py`).", ""]
    if beside is not None:
        stem, keys = beside
        text = (figures / f"{stem}.md").read_text(encoding="utf-8").splitlines()
        lines += [f"Side by side, as the kit writes it ([`{stem}`]({up}{page_name(stem)})):",
                  "", *_filtered(text, keys), ""]
    if artefact.kind == "table" and own_table.is_file():
        lines += ["The kit's table:", "", *own_table.read_text(encoding="utf-8").splitlines(), ""]
    elif own_csv.is_file():
        lines += ["The numbers the kit's figure draws (its CSV, rounded for reading):", "",
                  *_csv_table(own_csv), ""]

    # the verdict
    lines += ["## Verdict", ""]
    comparison = context.compared.get(artefact.paper_number) if artefact.paper_number else None
    if comparison is not None:
        lines += [f"REPRODUCING.md ({comparison.label}): {comparison.text}", ""]
    rows = _claim_rows(artefact, context.claims)
    if rows:
        lines += ["Decided by the claims table ([all claims]"
                  f"({up}{page_name(stems.CLAIMS)})):", "",
                  *_md_table(("topic", "the paper says", "we measure (95 %)", "p (Holm)",
                              "verdict"),
                             ((r.topic, r.paper_says, r.measured, r.p_holm or "-",
                               f"**{r.verdict}**") for r in rows)), ""]
    if comparison is None and not rows:
        lines += ["No claim of the paper is decided by this artefact alone; see "
                  f"[REPRODUCING.md]({up}REPRODUCING.md) and the [claims table]"
                  f"({up}{page_name(stems.CLAIMS)}).", ""]

    # games and provenance
    read = context.index.results_read.get(artefact.stem, [])
    games = [g for g in context.index.games if f"`{artefact.notebook}`" in g["read by"]]
    lines += ["## Games", ""]
    if games:
        lines += [f"The games behind `{artefact.notebook}`, read from every game record's "
                  "own provenance (`figures/INDEX.md`):", "",
                  *_md_table(("tournament", "matches", "games", "draw rules (games)",
                              "played by (games)", "dates"),
                             ((g["tournament"], g["matches played"], g["games"],
                               g["draw rules (games)"], g["played by (games)"], g["dates"])
                              for g in games)), ""]
    else:
        lines += ["No games: this artefact is drawn from data, training or searches, not "
                  "from a tournament.", ""]
    lines += ["## Provenance", ""]
    if read:
        rows_out = []
        for folder in read:
            prov = context.folder(folder)
            made = context.index.provenance.get(folder)
            commits = "; ".join(f"{c} ({n})" for c, n in prov.checkouts) or made or "-"
            span = (prov.first_date if prov.first_date == prov.last_date
                    else f"{prov.first_date} to {prov.last_date}") if prov.first_date else "-"
            rows_out.append((f"`results/{folder}`", ", ".join(prov.profiles) or "-", commits,
                             span))
        lines += ["The results this artefact reads, with what their manifests record "
                  "(commit and tree state per manifest, and how many manifests name it):", "",
                  *_md_table(("results", "profile", "commits (manifests)", "dates"),
                             rows_out), ""]
    else:
        lines += ["It reads no committed results (drawn from the kit's code alone).", ""]
    lines += ["## The notebook that drew it", "",
              f"[`notebooks/{artefact.notebook}`]({up}notebooks/{artefact.notebook}), as "
              "`make figures` executed it (papermill, from the committed results).", ""]
    return "\n".join(lines) + "\n"


def _toctree(entries: Iterable[str], caption: str | None = None, hidden: bool = False,
             maxdepth: int = 1) -> list[str]:
    options = [f":maxdepth: {maxdepth}"]
    if caption:
        options.append(f":caption: {caption}")
    if hidden:
        options.append(":hidden:")
    return ["```{toctree}", *options, "", *entries, "```", ""]


def _landing(context: _Context, commit: str) -> str:
    figures = context.inputs.figures
    claims = (figures / "claims.md").read_text(encoding="utf-8").splitlines()
    related = page_name(stems.RELATED_ENGINES)
    lines = ["# chessmoe: the reproduction report", "",
             "A reproduction of \"Checkmating One, by Using Many: Combining Mixture of Experts "
             "with MCTS to Improve in Chess\" (Helfenstein, Blüml, Czech, Kersting, 2024), built "
             f"by `make report` from the committed results at commit `{commit}`.", "",
             "## The answer", "", *summary.answer_lines(figures), "",
             "## Where to go next", "",
             "* [The paper's figures](paper-figures.md) and [tables](paper-tables.md), one "
             "page each: the kit's version, the paper's values beside it, the verdict, the "
             "games, their provenance and the notebook that drew it;",
             "* [the kit's own artefacts](kit.md): the claims' tournament, the seed grid, "
             "equal compute, [the related engines against their documents]"
             f"({related}), [the rating list]({page_name(stems.RATING_LIST_TABLE)});",
             "* [the benchmarks](benchmarks.md), [the explorers](explorers.md) (and how to "
             "start them), [the executed notebooks](notebooks/index.md), [every figure with "
             "its provenance](figures-index.md), [REPRODUCING.md](REPRODUCING.md) and [the "
             "documentation](docs/index.md).", "",
             "## The claims table", "",
             f"Every claim the kit tests, as `figures/claims.md` holds it ([its page]"
             f"({page_name(stems.CLAIMS)})).", "", *claims, "",
             *_toctree(["paper-figures", "paper-tables", "kit", "extras", "explorers",
                        "benchmarks", "figures-index", "notebooks/index", "REPRODUCING",
                        "docs/index"], hidden=True)]
    return "\n".join(lines) + "\n"


_GROUPS = {
    "paper-figures": ("The paper's figures", "Each of the paper's 29 figures as the kit draws it."),
    "paper-tables": ("The paper's tables", "Each of the paper's 8 tables as the kit computes it."),
    "kit": ("The kit's own artefacts", "What the kit adds to decide the paper's claims: the "
            "claims table, the replicated tournament's arms, the seed grid, equal compute, the "
            "rating list and the related documents' engines."),
    "extras": ("Extras", "Further tables and figures the notebooks write beside the paper's."),
}


def _group_page(group: str, members: Sequence[Artefact],
                compared: dict[tuple[str, int], Comparison]) -> str:
    title, intro = _GROUPS[group]
    lines = [f"# {title}", "", intro, ""]
    lines += [f"* [{_title(a, compared)}]({page_name(a.stem)})" for a in members]
    lines += ["", *_toctree([page_name(a.stem)[:-3] for a in members], hidden=True)]
    return "\n".join(lines) + "\n"


def _explorers_page() -> str:
    return "\n".join([
        "# The explorers", "",
        "Two notebooks are made to be played with rather than read: the Elo explorer "
        "(`notebooks/07_elo_explorer.ipynb`: a match's counts to its Elo interval, likelihood of "
        "superiority, verdict and SPRT path) and the phase explorer "
        "(`notebooks/12_phase_explorer.ipynb`: boards of each phase, borderline positions and a "
        "game replayer). They need a running Python kernel, so this static report cannot hold "
        "them; start them from the checkout:", "",
        "```bash", "make explore                    # both, with Voilà, on this machine only",
        "make explore EXPLORE_PORT=9000  # other ports", "```", "",
        "`make explore` prints the addresses when it starts: the Elo explorer at "
        "<http://localhost:8866/> and the phase explorer at <http://localhost:8867/> (by "
        "default). Each runs as a page with its widgets and no code cells; Ctrl-C in the "
        "terminal that runs it stops both. Either also opens in JupyterLab "
        "(`.venv/bin/jupyter lab`, kernel *Python (chessmoe)*).", "",
        "![The Elo explorer in Chromium](docs/elo-explorer.png)", "",
        "![The phase explorer's replayer in Chromium](docs/phase-explorer.png)", "",
        "More: [the explorers' page of the documentation](docs/explorers.md), and the "
        "formulas in [docs/elo.md](docs/elo.md).", ""])


def _site_target(known: set[str]) -> Callable[[str], str | None]:
    """Map a repository path to its site path (None: the site does not hold it)."""
    def target(path: str) -> str | None:
        if path in known:
            return path
        if path == "BENCHMARKS.md":
            return "benchmarks.md"
        if path == "figures/INDEX.md":
            return "figures-index.md"
        match = re.fullmatch(r"figures/(.+)\.(md|csv|png|pdf)", path)
        if match and f"artefacts/{match.group(1)}.md" in known:
            return (f"artefacts/{match.group(1)}.md" if match.group(2) == "md"
                    else path)
        return None

    return target


def _copy_notebook(source: Path, destination: Path, page: str,
                   target: Callable[[str], str | None]) -> None:
    """Copy an executed notebook, its Markdown cells' links pointed at the site."""
    notebook = json.loads(source.read_text(encoding="utf-8"))
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "markdown":
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"] = rewrite_links(text, page, target)
    destination.write_text(json.dumps(notebook), encoding="utf-8")


_CONF = '''\
# Generated by chessmoe.report.site for `make report`; rebuilt on every run.
project = "chessmoe reproduction report"
author = "chessmoe developers"
copyright = "chessmoe developers, GPL-3.0-or-later"
extensions = ["myst_nb"]
exclude_patterns = ["figures/**", "_build"]
root_doc = "index"
html_theme = "alabaster"
html_theme_options = {
    "page_width": "1240px", "sidebar_width": "250px", "show_powered_by": False,
    "font_family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
    "head_font_family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
}
html_sidebars = {"**": ["navigation.html", "relations.html", "searchbox.html"]}
html_favicon = "_static/favicon.png"
html_static_path = ["_static"]
html_css_files = ["report.css"]
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None
# offline: executed notebooks are rendered as they are, no widget manager or math from a CDN
nb_execution_mode = "off"
nb_ipywidgets_js = {}
nb_merge_streams = True
nb_render_markdown_format = "myst"  # Markdown outputs (the tables the notebooks display) as MyST
myst_heading_anchors = 3
myst_enable_extensions = []
suppress_warnings = ["myst.header"]
'''

_CSS = """\
div.body { max-width: none; }
div.body img { max-width: 100%; height: auto; }
table.docutils { font-size: 0.85em; display: block; overflow-x: auto; }
table.docutils td, table.docutils th { padding: 2px 6px; min-width: 4em; }
div.cell_output img { max-width: 100%; }
"""


def _favicon(path: Path) -> None:
    """A 16x16 PNG (a two-tone square), so the browser asks for no missing /favicon.ico."""
    import struct
    import zlib

    raw = b"".join(b"\x00" + b"".join(bytes((40, 70, 110)) if (x // 4 + y // 4) % 2
                                      else bytes((235, 235, 235)) for x in range(16))
                   for y in range(16))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8,
                                                                        2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _commit(root: Path) -> str:
    from chessmoe._io.provenance import git_commit

    git = git_commit(root)
    commit = git.get("commit")
    if not isinstance(commit, str):
        return "unknown"
    return commit[:12] + (" (with uncommitted changes)" if git.get("dirty") else "")


def write_sources(inputs: SiteInputs, src: Path,
                  jobs: Sequence[NotebookJob] = NOTEBOOK_JOBS) -> list[str]:
    """Write the report's Sphinx sources into ``src`` (emptied first); return its pages."""
    check_inputs(inputs, jobs)
    if src.exists():
        shutil.rmtree(src)
    (src / "_static").mkdir(parents=True)
    _favicon(src / "_static" / "favicon.png")
    (src / "_static" / "report.css").write_text(_CSS, encoding="utf-8")
    (src / "conf.py").write_text(_CONF, encoding="utf-8")
    root = inputs.root
    shutil.copytree(inputs.figures, src / "figures")
    artefact_list = artefacts(jobs)
    reproducing = (root / "REPRODUCING.md").read_text(encoding="utf-8")
    context = _Context(inputs, read_index(inputs.figures / "INDEX.md"),
                       comparisons(reproducing),
                       summary.read_claims(inputs.figures / "claims.csv"))
    stale = [a.stem for a in artefact_list if a.stem not in context.index.results_read]
    if stale:
        raise ReportInputsMissing(f"{inputs.figures / 'INDEX.md'} does not list "
                                  f"{', '.join(stale)}: run `make figures` to regenerate it")

    pages: dict[str, str] = {}
    docs = sorted(p for p in (root / "docs").glob("*.md")) if (root / "docs").is_dir() else []
    known = ({f"docs/{p.name}" for p in docs} | {"REPRODUCING.md"}
             | {f"notebooks/{job.notebook}" for job in jobs}
             | {page_name(a.stem) for a in artefact_list})
    target = _site_target(known)

    for artefact in artefact_list:
        pages[page_name(artefact.stem)] = artefact_page(artefact, context)
    for group in _GROUPS:
        members = [a for a in artefact_list if a.group == group]
        pages[f"{group}.md"] = _group_page(group, members, context.compared)
    pages["index.md"] = _landing(context, _commit(root))
    pages["explorers.md"] = _explorers_page()
    pages["REPRODUCING.md"] = rewrite_links(reproducing, "REPRODUCING.md", target)
    index_text = (inputs.figures / "INDEX.md").read_text(encoding="utf-8")
    pages["figures-index.md"] = rewrite_links(
        index_text.replace("# Figures and tables", "# Every figure and table, with its "
                           "provenance (figures/INDEX.md)", 1), "figures/INDEX.md",
        lambda p: (f"artefacts/{p[len('figures/'):].rsplit('.', 1)[0]}.md"
                   if target(p) is not None else None), page="figures-index.md")
    benchmarks = (root / "BENCHMARKS.md").read_text(encoding="utf-8")
    pages["benchmarks.md"] = rewrite_links(benchmarks, "BENCHMARKS.md", target)
    doc_links = []
    for doc in docs:
        name = f"docs/{doc.name}"
        pages[name] = rewrite_links(doc.read_text(encoding="utf-8"), name, target)
        first = doc.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
        doc_links.append(f"* [{first}]({doc.name})")
    for image in sorted((root / "docs").glob("*.png")) if docs else []:
        (src / "docs").mkdir(exist_ok=True)
        shutil.copyfile(image, src / "docs" / image.name)
    pages["docs/index.md"] = "\n".join([
        "# Documentation", "", "The pages of `docs/` (the README's detail lives here).", "",
        *doc_links, "", *_toctree([d.stem for d in docs], hidden=True)]) + "\n"
    (src / "notebooks").mkdir()
    for job in jobs:
        _copy_notebook(inputs.notebooks / job.notebook, src / "notebooks" / job.notebook,
                       f"notebooks/{job.notebook}", target)
    pages["notebooks/index.md"] = "\n".join([
        "# The executed notebooks", "",
        "Each notebook as `make figures` ran it (papermill, against the committed results), "
        "with its outputs. The sources, without outputs, are in `notebooks/`.", "",
        *(f"* [{job.notebook}]({job.notebook})" for job in jobs), "",
        *_toctree([job.notebook[:-6] for job in jobs], hidden=True)]) + "\n"
    for name, text in pages.items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return sorted(pages) + [f"notebooks/{job.notebook}" for job in jobs]


# --- offline check and build --------------------------------------------------------------------

_FETCH = re.compile(
    r"<(?:script|img|iframe|source|video|audio|embed)\b[^>]*\bsrc\s*=\s*[\"']?(?:https?:)?//"
    r"|<link\b[^>]*\bhref\s*=\s*[\"']?(?:https?:)?//"
    r"|url\(\s*[\"']?(?:https?:)?//|@import\s+[\"'](?:https?:)?//", re.I)


def external_fetches(site: Path) -> list[str]:
    """Every place in the built site (HTML, CSS, JS) that would load something from the
    network when a page is viewed: ``file: excerpt``."""
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix not in {".html", ".css", ".js"} or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in _FETCH.finditer(text):
            end = min(i for i in (text.find(">", match.start()), text.find(")", match.start()),
                                  match.start() + 160) if i >= 0)
            excerpt = text[match.start():end + 1].split("\n")[0]
            found.append(f"{path.relative_to(site)}: {excerpt}")
    return found


def build(inputs: SiteInputs, out: Path, *, jobs: Sequence[NotebookJob] = NOTEBOOK_JOBS,
          log: Callable[[str], None] = print) -> Path:
    """Build the report into ``out`` (its sources in ``out``'s sibling ``<name>-src``);
    return ``out / "index.html"``. Raises :class:`ReportInputsMissing` naming what is absent
    and ``RuntimeError`` on a Sphinx warning or a page that would fetch from the network."""
    try:
        from sphinx.cmd.build import build_main
    except ImportError as error:
        raise ReportInputsMissing("Sphinx and MyST-NB are not installed: pip install -e "
                                  "'.[report]' (make report does)") from error
    start = time.monotonic()
    src = out.parent / f"{out.name}-src"
    pages = write_sources(inputs, src, jobs)
    log(f"make report: {len(pages)} pages written to {src} "
        f"({time.monotonic() - start:.1f} s)")
    if out.exists():
        shutil.rmtree(out)
    warnings = out.parent / f"{out.name}-warnings.txt"
    status = build_main(["-b", "html", "-q", "-W", "--keep-going", "-w", str(warnings),
                         "-d", str(out.parent / f"{out.name}-doctrees"), str(src), str(out)])
    if status != 0:
        text = warnings.read_text(encoding="utf-8") if warnings.is_file() else ""
        raise RuntimeError(f"make report: Sphinx failed (status {status}):\n{text}")
    fetches = external_fetches(out)
    if fetches:
        raise RuntimeError("make report: pages would load from the network:\n  "
                           + "\n  ".join(fetches))
    log(f"make report: {out / 'index.html'} ({time.monotonic() - start:.1f} s)")
    return out / "index.html"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chessmoe.report.site",
                                     description="Build the static reproduction report.")
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument("--notebooks", type=Path, default=None,
                        help="the executed notebooks (default: ROOT/build/notebooks)")
    parser.add_argument("--out", type=Path, default=None,
                        help="the site (default: ROOT/build/report)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    inputs = SiteInputs(root, (args.notebooks or root / "build" / "notebooks").resolve())
    try:
        build(inputs, (args.out or root / "build" / "report").resolve())
    except (ReportInputsMissing, RuntimeError) as error:
        print(error, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
