"""What the report's artefact pages add to the figure: one aligned table of the paper beside
the kit (paper | kit | interval | games | verdict), a note where the page's figure draws a
small tournament (with the decisive tournament's number beside the small one), and the
detail moved out of REPRODUCING.md into ``docs/evidence/``.

An evidence file names the artefact pages it belongs on in its first line,
``<!-- pages: stem, stem -->``; the report shows its text on each of them, and a link to it
(``docs/evidence/NAME.md``) opens the first of them, or with an anchor naming one of them
(``docs/evidence/NAME.md#`` and the stem, a ``/`` written ``-``) that one. An evidence
file that names no page is a page of its own (``evidence/NAME.md``). On GitHub the same links
open the evidence file.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe.designs.replicated import MAIN_TOPICS
from chessmoe.designs.rows import ClaimRow
from chessmoe.report import answer, stems

__all__ = ["SMALL_TOURNAMENT", "Evidence", "aligned_table", "detail_lines", "evidence_page",
           "games_per_match", "point_links", "read_evidence", "small_note", "small_pooled",
           "wrap_target"]

#: The tournament whose 12-game settings the strength figures draw.
SMALL_TOURNAMENT = "small-cutechess"
#: The folder of the evidence files, relative to the checkout.
EVIDENCE = "docs/evidence"
_PAGES = re.compile(r"\A<!--\s*pages:([^>]*)-->\s*\n")
#: The methods of Table 2 as its rows name them.
_TABLE2_NAMES = {"Separated Learning": "separated", "Staged Learning": "staged",
                 "Weighted Learning (a = 4)": "weighted-a4",
                 "Weighted Learning (a = 10)": "weighted-a10"}
#: Pages whose figure draws each method against the regular network by setting, and the
#: methods they show.
METHOD_PAGES: dict[str, tuple[str, ...]] = {
    stems.FIG05_MOE_VS_SINGLE: ("separated", "staged", "weighted-a4", "weighted-a10"),
    stems.TABLE2_ELO_GAINS: ("separated", "staged", "weighted-a4", "weighted-a10"),
    stems.FIG26_ELO_SEPARATED: ("separated",),
    stems.FIG27_ELO_STAGED: ("staged",),
    stems.FIG28_ELO_WEIGHTED: ("weighted-a4", "weighted-a10"),
}


@dataclass(frozen=True)
class Evidence:
    """One file of ``docs/evidence/``: its name, title, the artefact pages it belongs on (none:
    a page of its own) and its text below the title."""

    name: str
    title: str
    pages: tuple[str, ...]
    body: str

    @property
    def source(self) -> str:
        return f"{EVIDENCE}/{self.name}.md"

    def site_page(self, known: set[str]) -> str:
        """Where the report shows it: its first artefact page the site holds, or its own."""
        for stem in self.pages:
            if f"artefacts/{stem}.md" in known:
                return f"artefacts/{stem}.md"
        return f"evidence/{self.name}.md"


def read_evidence(root: Path) -> list[Evidence]:
    """Every evidence file under ``root``'s ``docs/evidence/``, by name (a file without a
    title gets its name as one)."""
    folder = root / EVIDENCE
    out = []
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        text = path.read_text(encoding="utf-8")
        pages: tuple[str, ...] = ()
        found = _PAGES.match(text)
        if found:
            pages = tuple(p.strip() for p in found.group(1).split(",") if p.strip())
            text = text[found.end():]
        title, body = path.stem, text
        if text.startswith("# "):
            first, _, body = text.partition("\n")
            title = first[2:].strip()
        out.append(Evidence(path.stem, title, pages, body.strip("\n") + "\n"))
    return out


_LINK = re.compile(r"\]\((?P<path>(?:\.\./)*(?:docs/evidence/)?[\w.-]+\.md)#(?P<anchor>[\w.-]+)\)")


def point_links(text: str, source: str, evidence: Sequence[Evidence]) -> str:
    """``text`` (a document at repository path ``source``) with each link to an evidence file
    whose anchor names one of its pages pointed at that artefact's figure path
    (``figures/<stem>.md``, which the site maps to the artefact's page)."""
    by_source = {e.source: e for e in evidence}
    base = source.rsplit("/", 1)[0] if "/" in source else ""

    def one(match: re.Match[str]) -> str:
        path = match.group("path")
        resolved = _normal(f"{base}/{path}" if base else path)
        found = by_source.get(resolved)
        if found is None:
            return match.group(0)
        for stem in found.pages:
            if stem.replace("/", "-") == match.group("anchor"):
                up = "../" * base.count("/") + ("../" if base else "")
                return f"]({up}figures/{stem}.md)"
        return match.group(0)

    return _LINK.sub(one, text)


def _normal(path: str) -> str:
    parts: list[str] = []
    for part in path.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)


def wrap_target(target: Callable[[str], str | None], evidence: Sequence[Evidence],
                known: set[str]) -> Callable[[str], str | None]:
    """``target`` (repository path -> site path) that also maps each evidence file to the
    page that shows it."""
    pages = {e.source: e.site_page(known) for e in evidence}

    def mapped(path: str) -> str | None:
        return pages.get(path) or target(path)

    return mapped


def evidence_page(item: Evidence) -> str:
    """An evidence file that names no artefact page, as a page of its own."""
    return f"# {item.title}\n\n{item.body}"


def detail_lines(stem: str, evidence: Sequence[Evidence],
                 rewrite: Callable[[str, str], str] = lambda text, source: text) -> list[str]:
    """The evidence that belongs on ``stem``'s page, its headings one level down, each text
    passed through ``rewrite(text, its repository path)`` (the site points its links)."""
    lines: list[str] = []
    for item in evidence:
        if stem not in item.pages:
            continue
        body = re.sub(r"^(#{2,5}) ", r"#\1 ", item.body, flags=re.M)
        lines += [f"### {item.title}", "", rewrite(body, item.source).rstrip("\n"), ""]
    return lines


# --- the aligned table ------------------------------------------------------------------------


def small_pooled(figures: Path) -> dict[str, tuple[str, str, str]]:
    """Each method's pooled estimate in the small tournament (Table 2's last column):
    method -> (estimate, interval, games)."""
    path = figures / f"{stems.TABLE2_ELO_GAINS}.csv"
    if not path.is_file():
        return {}
    out: dict[str, tuple[str, str, str]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            method = _TABLE2_NAMES.get(row.get("Approach", ""))
            pooled = next((v for k, v in row.items() if k and k.startswith("pooled Elo")), "")
            found = re.match(r"([+\-]?[\d.]+) (\[[^\]]+\])", pooled or "")
            if method and found:
                out[method] = (found.group(1), found.group(2), f"{row.get('games', '')} games")
    return out


def _games(sample: str) -> str:
    found = re.match(r"(\d[\d,]*) games", sample)
    return found.group(1) if found else (sample or "-")


def _cell(text: str) -> str:
    """A table cell; an interval's ends kept on one line (a no-break space after its comma)."""
    text = re.sub(r"\[([+\-]?[\d.]+), ([+\-]?[\d.]+)\]", "[\\1,\u00a0\\2]", text)
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows)]


def _paper_cell(row: ClaimRow) -> str:
    """The paper's side of a row: its size, else its words ("clear gain"); a control the
    kit added is not in the paper."""
    if row.kind != "paper claim":
        return "(not in the paper)"
    if row.paper_value != "-":
        return row.paper_value
    words = row.paper_says.split(":", 1)[1].strip() if ":" in row.paper_says else ""
    return words or "(direction only)"


def aligned_table(stem: str, rows: Sequence[ClaimRow], every: Sequence[ClaimRow],
                  figures: Path) -> list[str]:
    """The page's one table of the paper beside the kit: for each claims row of the page,
    the paper's size, the kit's estimate, its interval, its games and the verdict (for a
    control, who won, and its hypothesis's verdict); on a page whose figure draws each
    method by setting, the small tournament's pooled estimate beside the decisive one."""
    methods = METHOD_PAGES.get(stem)
    if methods is not None:
        small = small_pooled(figures)
        decisive = {r.claim.split(" beats ", 1)[0]: r for r in every
                    if r.topic == MAIN_TOPICS[0]}
        body: list[tuple[str, ...]] = []
        for method in methods:
            row = decisive.get(method)
            mine = small.get(method, ("-", "", "-"))
            if row is None:
                continue
            estimate, interval, sample = answer.split_measured(row.measured)
            body.append((row.claim, row.paper_value, f"{mine[0]} {mine[1]}".strip(),
                         _games(mine[2]), estimate, interval, _games(sample),
                         answer.verdict_cell(row)))
        return _table(("claim", "paper", f"kit: `{SMALL_TOURNAMENT}` (this page)", "games",
                       "kit: `replicated` (decisive)", "interval", "games", "verdict"), body)
    if not rows:
        return []
    body = []
    for row in rows:
        estimate, interval, sample = answer.split_measured(row.measured)
        body.append((row.claim, _paper_cell(row), estimate, interval or "-", _games(sample),
                     answer.verdict_cell(row)))
    return _table(("claim", "paper", "kit", "interval", "games", "verdict"), body)


def small_note(read: Sequence[str], per_match: int | None, claims: str = "claims.md"
               ) -> list[str]:
    """Where a page draws the small tournament (its results ``read`` include it): say so,
    with its games a match (``per_match``, from the games ledger), and where the decisive
    numbers are (``claims``: the link to the claims page from the page; [] otherwise)."""
    if not any(r.endswith(SMALL_TOURNAMENT) for r in read):
        return []
    games = f", {per_match} games a match" if per_match else ""
    return [f"**A small tournament.** This page draws `{SMALL_TOURNAMENT}` (the small grid "
            f"replayed under cutechess's rules{games}): its single intervals are wide and "
            "decide little. The decisive numbers are the `replicated` tournament's (400 "
            "games a method, 200 an arm), in the table below beside the small one where "
            f"the page shows a method, and on the [claims page]({claims}).", ""]


def games_per_match(matches: str, games: str) -> int | None:
    """Games a match from the ledger's cells (``35 of 35``, ``420 of 420 planned``)."""
    m, g = re.match(r"(\d[\d,]*)", matches), re.match(r"(\d[\d,]*)", games)
    if not m or not g or int(m.group(1).replace(",", "")) == 0:
        return None
    count, total = int(m.group(1).replace(",", "")), int(g.group(1).replace(",", ""))
    return total // count if total % count == 0 else None
