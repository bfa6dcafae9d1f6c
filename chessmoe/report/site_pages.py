"""The report's pages (:mod:`chessmoe.report.site` builds them): one page per artefact of the
job table -- the figure or table, the paper's values as :mod:`chessmoe.paper` records them
beside the kit's, the comparison REPRODUCING.md gives and the claims rows that decide it, the
games behind it and their provenance (``figures/INDEX.md``; the results' manifests) and the
executed notebook that drew it -- the landing page (the answer, :mod:`chessmoe.report.answer`,
and the claims table), one page per group of artefacts and the explorers' page.
"""

from __future__ import annotations

import csv
import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from chessmoe import paper
from chessmoe._io.provenance import FolderProvenance, folder_provenance
from chessmoe.designs.rows import ClaimRow
from chessmoe.report import answer, stems
from chessmoe.report import pages as report_pages
from chessmoe.report.artefacts import NOTEBOOK_JOBS, NotebookJob

__all__ = ["GROUPS", "Artefact", "Comparison", "Context", "IndexTables",
           "ReportInputsMissing", "SiteInputs", "artefact_page", "artefacts", "comparisons",
           "explorers_page", "group_page", "landing", "page_name",
           "read_index", "toctree"]


class ReportInputsMissing(FileNotFoundError):
    """Something the report is built from is absent; the message names each and what makes it."""


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
    stems.SCALE: "Does the answer survive scale? The mixtures against one network, by size",
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
    stems.SCALE: ("scale:",),
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
    """REPRODUCING.md's one-line answers, keyed by ("Fig."|"Table", number): each section
    ``### Fig. 17–19: separated experts`` and the ``**Answer.**`` paragraph under it; a
    section for a range of figures holds for each of them."""
    out: dict[tuple[str, int], Comparison] = {}
    sections = re.split(r"^### ", reproducing, flags=re.M)[1:]
    for section in sections:
        heading, _, body = section.partition("\n")
        match = re.match(r"(Fig\.|Table)\s+(\d+)(?:\s*[\u2013-]\s*(\d+))?:\s*(.*)$",
                         heading.strip())
        said = re.search(r"^\*\*Answer\.\*\*\s*(.*?)(?:\n\s*\n|\Z)", body, re.M | re.S)
        if match is None or said is None:
            continue
        kind, first, last = match.group(1), int(match.group(2)), match.group(3)
        label = heading.strip().replace(":", "", 1)
        # the link to the detail is left out: the artefact's page holds the detail
        text = re.sub(r"\s*\[Detail\]\([^)]*\)\.?", "", " ".join(said.group(1).split()))
        for number in range(first, (int(last) if last else first) + 1):
            out.setdefault((kind, number), Comparison(label, text))
    return out


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
class Context:
    inputs: SiteInputs
    index: IndexTables
    compared: dict[tuple[str, int], Comparison]
    claims: list[ClaimRow]
    provenance: dict[str, FolderProvenance] = field(default_factory=dict)
    evidence: list[report_pages.Evidence] = field(default_factory=list)
    #: ``rewrite(text, source, page)``: ``text``'s links, written from ``source``, as the
    #: site's ``page`` reaches them (:func:`chessmoe.report.site.rewrite_links`)
    rewrite: Callable[[str, str, str], str] = lambda text, source, page: text

    def folder(self, folder: str) -> FolderProvenance:
        if folder not in self.provenance:
            self.provenance[folder] = folder_provenance(self.inputs.results, folder)
        return self.provenance[folder]


def artefact_page(artefact: Artefact, context: Context) -> str:
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

    # the paper beside the kit, in one table, and the detail behind it
    read = context.index.results_read.get(artefact.stem, [])
    small = next((g for g in context.index.games if g["tournament"].strip("`").rstrip("/")
                  .endswith(report_pages.SMALL_TOURNAMENT)), None)
    per_match = (report_pages.games_per_match(small["matches played"], small["games"])
                 if small else None)
    lines += ["## The paper beside the kit", ""]
    lines += report_pages.small_note(read, per_match,
                                     posixpath.relpath(page_name(stems.CLAIMS),
                                                       posixpath.dirname(page)))
    comparison = context.compared.get(artefact.paper_number) if artefact.paper_number else None
    if comparison is not None:
        said = context.rewrite(comparison.text, "REPRODUCING.md", page)
        lines += [f"**Answer** (REPRODUCING.md, {comparison.label}): {said}", ""]
    rows = _claim_rows(artefact, context.claims)
    table = report_pages.aligned_table(artefact.stem, rows, context.claims, figures)
    if table:
        lines += [f"Each row of the [claims table]({up}{page_name(stems.CLAIMS)}) this page "
                  "speaks to (Elo or score points; 95 % interval, a game pair the unit; "
                  "verdicts Holm-adjusted):", "", *table, ""]
    if comparison is None and not table:
        lines += ["No claim of the paper is decided by this artefact alone; see "
                  f"[REPRODUCING.md]({up}REPRODUCING.md) and the [claims table]"
                  f"({up}{page_name(stems.CLAIMS)}).", ""]
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

    detail = report_pages.detail_lines(
        artefact.stem, context.evidence,
        lambda text, source: context.rewrite(
            report_pages.point_links(text, source, context.evidence), source, page))
    if detail:
        lines += ["## Detail", "", "Moved from REPRODUCING.md into `docs/evidence/`:", "",
                  *detail]

    # games and provenance
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


def toctree(entries: Iterable[str], caption: str | None = None, hidden: bool = False,
             maxdepth: int = 1) -> list[str]:
    options = [f":maxdepth: {maxdepth}"]
    if caption:
        options.append(f":caption: {caption}")
    if hidden:
        options.append(":hidden:")
    return ["```{toctree}", *options, "", *entries, "```", ""]


def landing(context: Context, commit: str) -> str:
    figures = context.inputs.figures
    claims = (figures / "claims.md").read_text(encoding="utf-8").splitlines()
    related = page_name(stems.RELATED_ENGINES)
    lines = ["# chessmoe: the reproduction report", "",
             "\"Checkmating One, by Using Many\" (Helfenstein, Blüml, Czech, Kersting, 2024), "
             f"reproduced from the committed results at commit `{commit}`.", "",
             *answer.answer_lines(figures), "",
             "## Where to go next", "",
             "* [The paper's figures](paper-figures.md) and [tables](paper-tables.md), one "
             "page each: the kit's version, the paper's values beside it, the verdict, the "
             "games, their provenance and the notebook that drew it;",
             "* [the kit's own artefacts](kit.md): the claims' tournament, the seed grid, "
             "equal compute, [the related engines against their documents]"
             f"({related}), [the rating list]({page_name(stems.RATING_LIST_TABLE)});",
             "* [the benchmarks](benchmarks.md), [the explorers](explorers.md) (and how to "
             "start them), [the executed notebooks](notebooks/index.md), [every figure with "
             "its provenance](figures-index.md), [REPRODUCING.md](REPRODUCING.md), [the "
             "evidence in detail](evidence/index.md), [the README](README.md) and [the "
             "documentation](docs/index.md).", "",
             "## The claims table", "",
             f"Every claim the kit tests, as `figures/claims.md` holds it ([its page]"
             f"({page_name(stems.CLAIMS)})).", "", *claims, "",
             *toctree(["paper-figures", "paper-tables", "kit", "extras", "explorers",
                       "benchmarks", "figures-index", "notebooks/index", "REPRODUCING",
                       "evidence/index", "README", "docs/index"], hidden=True)]
    return "\n".join(lines) + "\n"


GROUPS = {
    "paper-figures": ("The paper's figures", "Each of the paper's 29 figures as the kit draws it."),
    "paper-tables": ("The paper's tables", "Each of the paper's 8 tables as the kit computes it."),
    "kit": ("The kit's own artefacts", "What the kit adds to decide the paper's claims: the "
            "claims table, the replicated tournament's arms, the seed grid, equal compute, the "
            "rating list and the related documents' engines."),
    "extras": ("Extras", "Further tables and figures the notebooks write beside the paper's."),
}


def group_page(group: str, members: Sequence[Artefact],
                compared: dict[tuple[str, int], Comparison]) -> str:
    title, intro = GROUPS[group]
    lines = [f"# {title}", "", intro, ""]
    lines += [f"* [{_title(a, compared)}]({page_name(a.stem)})" for a in members]
    lines += ["", *toctree([page_name(a.stem)[:-3] for a in members], hidden=True)]
    return "\n".join(lines) + "\n"


def explorers_page() -> str:
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
