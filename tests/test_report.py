"""The results-first README, the "latest" benchmarks table and ``make report``'s site
(issue 41): each generated from the committed artefacts, never typed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from chessmoe.report import answer, benchlog, site, site_pages, stems, summary

ROOT = Path(__file__).resolve().parents[1]

# --- the README's answer ----------------------------------------------------------------------

def test_the_readme_answer_is_what_the_committed_claims_table_says() -> None:
    """The README's first screen is generated: python -m chessmoe.report.answer README.md
    rewrites it; this fails while the block differs from figures/claims.csv."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    expected = summary.refresh(readme, answer.answer_lines(ROOT / "figures"))
    assert readme == expected, "run: python -m chessmoe.report.answer README.md"


#: A reviewer reads the answer in two minutes: the README's limits.
README_LINES, README_WORDS_BEFORE_HEADING, FIGURE_BY_LINE = 150, 700, 30


def readme_limits(text: str) -> list[str]:
    """What breaks the README's limits: its length, the words before its first heading
    (whitespace-separated, as ``wc -w`` counts them), where the compute-gap figure is, and
    the two tables and glossary the answer needs."""
    problems = []
    lines = text.splitlines()
    if len(lines) > README_LINES:
        problems.append(f"{len(lines)} lines (at most {README_LINES})")
    heading = next((i for i, line in enumerate(lines) if line.startswith("## ")), len(lines))
    words = len("\n".join(lines[:heading]).split())
    if words > README_WORDS_BEFORE_HEADING:
        problems.append(f"{words} words before the first heading (at most "
                        f"{README_WORDS_BEFORE_HEADING})")
    figure = next((i + 1 for i, line in enumerate(lines)
                   if line.startswith("![") and "figures/compute-gap.png" in line), None)
    if figure is None or figure > FIGURE_BY_LINE:
        problems.append(f"figures/compute-gap.png at line {figure} (by line {FIGURE_BY_LINE})")
    before = "\n".join(lines[:heading])
    for needed in ("| the paper's claim | paper | kit [95 % interval] | verdict |",
                   "| control (tournament) | kit [95 % interval] | found |", "**Terms.**"):
        if needed not in before:
            problems.append(f"no {needed!r} before the first heading")
    return problems


def test_the_readme_limits_catch_a_long_readme_and_a_late_figure() -> None:
    good = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_limits(good) == []
    late = good.replace("![Equal training compute", "\n" * 30 + "![Equal training compute", 1)
    assert [p.split(" at line")[0] for p in readme_limits(late)] == ["figures/compute-gap.png"]
    wordy = good.replace("**Terms.**", "**Terms.** " + "word " * 200, 1)
    assert readme_limits(wordy)[0].endswith("words before the first heading (at most 700)")
    assert readme_limits(good + "\n" * 150)[0].endswith("lines (at most 150)")


def test_the_readme_is_short_keeps_the_two_commands_and_reaches_every_docs_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_limits(readme) == []
    assert "make figures" in readme and "make test" in readme and "make test-fast" in readme
    assert readme.index("**Terms.**") < readme.index("## Two commands")
    linked = set(re.findall(r"\]\(docs/([\w.-]+\.md)\)", readme))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages <= linked, f"docs pages the README does not link: {sorted(pages - linked)}"


#: Every section of the README before issue 41, and the docs/ page it moved to.
MOVED = {
    "Who it is for, in detail": "who-it-is-for.md", "The explorers as a web page": "explorers.md",
    "The layers": "layers.md", "In code": "phases.md", "Data sources": "data.md",
    "Growing self-play data": "data.md", "Recomputing results": "data.md",
    "Training experts": "training.md", "Playing: the UCI engine and analysis": "playing.md",
    "The related documents' engines": "related-engines.md",
    "Tournaments and Elo": "tournaments.md", "A rating list from any PGN": "tournaments.md",
    "Checking against a real tournament manager": "tournaments.md",
    "Playing at scale": "playing-at-scale.md",
}


def test_every_section_of_the_old_readme_has_a_page_under_docs() -> None:
    for heading, page in MOVED.items():
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        assert re.search(rf"^#+ {re.escape(heading)}$", text, re.M), (heading, page)
    # the moved text itself, not only its headings
    assert "Records cross module boundaries" in (ROOT / "docs" / "layers.md").read_text()
    assert "Speed, honestly." in (ROOT / "docs" / "playing-at-scale.md").read_text()


def test_the_profiles_page_lists_every_profile_with_its_own_description() -> None:
    from chessmoe.config import PROFILES

    text = (ROOT / "docs" / "profiles.md").read_text(encoding="utf-8")
    for name, profile in PROFILES.items():
        assert f"| `{name}` | {profile.description} |" in text, name


# --- the latest benchmarks -------------------------------------------------------------------

LOG = """# Benchmarks

Appended by `make bench` (newest last).

## 2026-01-01T00:00:00+00:00 — commit aaaaaaaaaaaa

Machine: AMD EPYC, 2 cores, 23.5 GiB, GPU: none; Python 3.11.

### MCTS search (issue 5)

| measure | value |
|---|---|
| uniform evaluator, batch 8 | 100 simulations/s |
| something else | 3 |

Target: uniform >= 50 simulations/s — **met**.

### Tournament games (issue 6)

| measure | value |
|---|---|
| scaling 1 -> 2 workers | 1.5x |

## 2026-02-01T00:00:00+00:00 — commit bbbbbbbbbbbb (dirty)

Machine: lent GPU machine, NVIDIA H200 (1 MiB), Xeon, 16 cores, 1 GiB; Python 3.12.

### MCTS search (issues 5 and 12)

| measure | value |
|---|---|
| uniform evaluator, batch 8 | 40 simulations/s |

Target: uniform >= 50 simulations/s — **NOT met**.
"""


def test_the_latest_table_takes_each_benchmarks_newest_section_from_the_log() -> None:
    rows = benchlog.latest(benchlog.parse_log(LOG))
    assert [(r.benchmark, r.date, r.commit, r.dirty, r.verdict) for r in rows] == [
        ("MCTS search", "2026-02-01", "bbbbbbbbbbbb", True, "NOT met"),
        ("Tournament games", "2026-01-01", "aaaaaaaaaaaa", False, "")]
    assert rows[0].machine == "lent GPU machine, 16 cores, NVIDIA H200"
    text = benchlog.refresh(LOG)
    table = text[text.index(benchlog.BEGIN):text.index(benchlog.END)]
    # one short row a benchmark: no tracker number, no date or commit (the log keeps them)
    assert "| measure | headline ratio | target | met | machine |" in table
    assert ("| MCTS search | uniform: 40 simulations/s | >= 0.5x / 0.10x move generation | "
            "not met | lent GPU machine, 16 cores, NVIDIA H200 |") in table
    assert "| Tournament games | 1 -> 2 workers: 1.5x | - | - | AMD EPYC, 2 cores |" in table
    assert "issue" not in table and "100 simulations/s" not in table
    assert text.index(benchlog.END) < text.index("## 2026-01-01")  # it opens the file
    assert benchlog.refresh(text) == text  # the table is not read back as a log entry
    # a new run appended below replaces the benchmark's row
    newer = text + ("\n## 2026-03-01T00:00:00+00:00 — commit cccccccccccc\n\nMachine: AMD EPYC, "
                    "2 cores\n\n### MCTS search (issues 5 and 39)\n\n| measure | value |\n"
                    "|---|---|\n| uniform evaluator, batch 8 | 90 simulations/s (0.55 per "
                    "generated position) |\n\nTarget: uniform >= 50 simulations/s — **met**.\n"
                    "\n### Something new (issue 77)\n\n| measure | value |\n|---|---|\n"
                    "| setup | 3.2 s |\n| ours / theirs | 1.40x faster (12 runs) |\n\nTarget: "
                    "ours >= 1.2x theirs; setup under 5 s — **inference met, the setup NOT "
                    "met**.\n")
    table = benchlog.refresh(newer).split(benchlog.END)[0]
    assert ("| MCTS search | uniform: 0.55x | >= 0.5x / 0.10x move generation "
            "| met | AMD EPYC, 2 cores |") in table
    assert "40 simulations/s" not in table
    # a benchmark the table does not know: its first ratio, its target's first clause
    assert ("| Something new | 1.40x | ours >= 1.2x theirs | partly | AMD EPYC, 2 cores |"
            in table)


def test_a_headline_value_is_its_ratio_or_its_first_clause() -> None:
    assert benchlog.headline_value("native 171,156 simulations/s, Python 1,997: 85.7x; "
                                   "14.34x move generation") == "85.7x"
    assert benchlog.headline_value("736,628 positions/s") == "736,628 positions/s"
    assert benchlog.headline_value("0.6 h projected (the calibration took 60 s)") == \
        "0.6 h projected"
    assert benchlog.headline_value("b8-n100x: 3 games") == "b8-n100x"  # no ratio in a name


def test_the_committed_benchmarks_open_with_the_table_their_log_gives() -> None:
    text = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert text == benchlog.refresh(text), "run: python -m chessmoe.report.benchlog"
    assert text.index(benchlog.BEGIN) < text.index("\n## 20")
    latest = benchlog.latest(benchlog.parse_log(text))
    assert {s.benchmark for s in latest} >= {"MCTS search", "Paper scale on a GPU"}
    table = text[text.index(benchlog.BEGIN):text.index(benchlog.END)]
    cells = [c.strip() for line in table.splitlines() if line.startswith("| ")
             for c in line.strip("|").split(" | ")]
    assert max(len(c) for c in cells) <= 60, max(cells, key=len)
    assert "issue" not in table.lower()


# --- the site's sources ------------------------------------------------------------------------


def _fake_notebooks(tmp_path: Path) -> Path:
    """The figure notebooks with papermill's metadata, as ``make figures`` leaves them (no
    outputs: the pages do not need them)."""
    from chessmoe.report.artefacts import NOTEBOOK_JOBS

    out = tmp_path / "notebooks"
    out.mkdir()
    for job in NOTEBOOK_JOBS:
        notebook = json.loads((ROOT / "notebooks" / job.notebook).read_text(encoding="utf-8"))
        notebook["metadata"]["papermill"] = {"exception": None}
        (out / job.notebook).write_text(json.dumps(notebook), encoding="utf-8")
    return out


def test_the_report_names_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(site.ReportInputsMissing, match=r"build/notebooks/ is absent .*make "
                                                       "figures` first"):
        site.check_inputs(site.SiteInputs(ROOT, tmp_path / "build" / "notebooks"))
    notebooks = _fake_notebooks(tmp_path)
    site.check_inputs(site.SiteInputs(ROOT, notebooks))  # complete: no error
    (notebooks / "10_claims.ipynb").unlink()
    failed = json.loads((notebooks / "06_playing_strength.ipynb").read_text())
    failed["metadata"]["papermill"]["exception"] = True
    (notebooks / "06_playing_strength.ipynb").write_text(json.dumps(failed))
    root = tmp_path / "checkout"
    shutil.copytree(ROOT / "figures", root / "figures")
    for name in ("REPRODUCING.md", "BENCHMARKS.md"):
        shutil.copyfile(ROOT / name, root / name)
    (root / "figures" / "fig06-single-expert-nodes.png").unlink()
    with pytest.raises(site.ReportInputsMissing) as error:
        site.check_inputs(site.SiteInputs(root, notebooks))
    message = str(error.value)
    assert "10_claims.ipynb is missing: run `make figures` first" in message
    assert "06_playing_strength.ipynb is not a successful papermill run" in message
    assert "fig06-single-expert-nodes.png is missing: run `make figures`" in message


def test_links_point_at_the_sites_pages_or_become_paths() -> None:
    known = {"docs/phases.md", "REPRODUCING.md", "artefacts/claims.md"}

    def target(path: str) -> str | None:
        if path in known:
            return path
        return "artefacts/claims.md" if path == "figures/claims.md" else None

    text = ("See [the rules](phases.md#mixedness), [REPRODUCING.md](../REPRODUCING.md), "
            "[claims](../figures/claims.md), [the README](../README.md), "
            "[Voila](https://voila.readthedocs.io), `[a](b.md)` and ![shot](missing.png).")
    out = site.rewrite_links(text, "docs/guide.md", target)
    assert out == ("See [the rules](phases.md#mixedness), [REPRODUCING.md](../REPRODUCING.md), "
                   "[claims](../artefacts/claims.md), the README (`README.md`), "
                   "[Voila](https://voila.readthedocs.io), `[a](b.md)` and shot "
                   "(`docs/missing.png`).")
    # a document shown at another place than it was written keeps resolving from its source
    moved = site.rewrite_links("[x](claims.md)", "figures/INDEX.md", target,
                               page="figures-index.md")
    assert moved == "[x](artefacts/claims.md)"


def test_reproducings_comparisons_and_the_index_are_read_back() -> None:
    compared = site_pages.comparisons((ROOT / "REPRODUCING.md").read_text(encoding="utf-8"))
    assert compared[("Fig.", 6)].label == "Fig. 6 single experts (nodes)"
    assert compared[("Fig.", 18)].label == compared[("Fig.", 17)].label  # "Fig. 17–19"
    assert compared[("Table", 2)].text.startswith("Drawn from the small tournament")
    assert compared[("Fig.", 25)].label == "Fig. 23–25 weighted experts"
    index = site_pages.read_index(ROOT / "figures" / "INDEX.md")
    assert index.results_read[stems.FIG06_SINGLE_EXPERT_NODES] == [
        "tournaments/small-cutechess"]
    small = next(g for g in index.games if "small-cutechess" in g["tournament"])
    assert small["draw rules (games)"] == "cutechess: 420"
    assert "`06_playing_strength.ipynb`" in small["read by"]
    assert {a.stem for a in site_pages.artefacts()} == set(index.results_read)


def test_the_site_sources_have_a_page_per_artefact_with_its_numbers_and_provenance(
        tmp_path: Path) -> None:
    from chessmoe import paper

    src = tmp_path / "src"
    pages = site.write_sources(site.SiteInputs(ROOT, _fake_notebooks(tmp_path)), src)
    for artefact in site_pages.artefacts():
        assert site_pages.page_name(artefact.stem) in pages
    assert {"index.md", "REPRODUCING.md", "benchmarks.md", "explorers.md", "docs/phases.md",
            "notebooks/10_claims.ipynb"} <= set(pages)

    fig06 = (src / "artefacts" / "fig06-single-expert-nodes.md").read_text()
    assert fig06.startswith("# Fig. 6: single experts (nodes)\n")
    assert "![Fig. 6: single experts (nodes)](../figures/fig06-single-expert-nodes.png)" in fig06
    assert ("**Answer** (REPRODUCING.md, Fig. 6 single experts (nodes)): The separated "
            "middlegame and endgame experts alone") in fig06
    # one aligned table: paper | kit | interval | games | verdict
    assert "| claim | paper | kit | interval | games | verdict |" in fig06
    assert ("| only the middlegame expert | clear gain | -61 | [-90,\u00a0-34] | 200 | "
            "**contradicts** |") in fig06  # an interval's ends kept on one line
    # the figure draws the small tournament, and the page says so
    assert "**A small tournament.** This page draws `small-cutechess`" in fig06
    assert "12 games a match" in fig06
    # the detail moved out of REPRODUCING.md is on the page, its links pointed at the site
    assert "## Detail" in fig06 and "### Single experts (Fig. 6 and 29)" in fig06
    assert "| `results/tournaments/small-cutechess` | 35 of 35 | 420 of 420 planned | " \
           "cutechess: 420 |" in fig06
    assert "| `results/tournaments/small-cutechess` | small-cutechess | `629f7e12` clean (1)" \
        in fig06
    assert "[`notebooks/06_playing_strength.ipynb`](../notebooks/06_playing_strength.ipynb)" \
        in fig06

    fig05 = (src / "artefacts" / "fig05-moe-vs-single.md").read_text()
    # the small tournament's pooled number beside the decisive tournament's
    assert ("| separated beats regular | +122 Elo | -178.2 [-247.4,\u00a0-120.1] | 72 | -90 | "
            "[-115,\u00a0-66] | 400 | **contradicts** |") in fig05
    assert "**A small tournament.**" in fig05
    table2 = (src / "artefacts" / "table2-elo-gains.md").read_text()
    separated = paper.TABLE2_ELO["separated"]
    assert "| separated | " + " | ".join(f"{v:+.2f}" for v in separated) + " |" in table2
    assert "**contradicts**" in table2 and "**supports**" in table2
    fig13 = (src / "artefacts" / "fig13-phase-coverage.md").read_text()
    reached = paper.KINGBASE_STATS["games_reaching_endgame_pct"]
    assert f"| games_reaching_endgame_pct | {reached:.2f} |" in fig13
    assert "| games_reaching_endgame_pct | 67.85 | 61.64 | 88.92 |" in fig13  # beside the kit's
    assert "positions_opening_pct" not in fig13  # only the rows this figure is about

    landing = (src / "index.md").read_text()
    assert "\n".join(answer.answer_lines(ROOT / "figures")) in landing
    # REPRODUCING's links to the detail open the figure's page; own evidence is its own page
    reproducing = (src / "REPRODUCING.md").read_text()
    assert "[Detail](artefacts/fig26-elo-separated.md)" in reproducing
    assert "[Detail](evidence/matched.md)" in reproducing
    assert {"README.md", "evidence/index.md", "evidence/matched.md"} <= set(pages)
    assert "(claims.md)" not in (src / "evidence" / "matched.md").read_text()
    assert "position: sticky" in (src / "_static" / "report.css").read_text()
    assert (ROOT / "figures" / "claims.md").read_text().splitlines()[2] in landing
    moved = (src / "docs" / "who-it-is-for.md").read_text()
    assert "[REPRODUCING.md](../REPRODUCING.md)" in moved  # a site page: kept as a link
    notebook = json.loads((src / "notebooks" / "01_phase_statistics.ipynb").read_text())
    sources = "".join("".join(c["source"]) for c in notebook["cells"])
    assert "(../docs/phases.md)" in sources


def test_external_fetches_names_every_resource_a_page_would_load_from_the_network(
        tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(
        '<script src="https://cdn.example/x.js"></script><link rel="stylesheet" '
        'href="//fonts.example/f.css"><img src="figures/a.png"><a href="https://x.org">x</a>')
    (tmp_path / "b.css").write_text('body { background: url("https://img.example/b.png") }')
    found = site.external_fetches(tmp_path)
    assert [f.split(":", 1)[0] for f in found] == ["a.html", "a.html", "b.css"]
    assert all("x.org" not in f for f in found)  # a link is not a fetch


# --- the report's screenshots ------------------------------------------------------------------


def test_the_committed_screenshots_show_the_answer_the_claims_table_gives() -> None:
    """make report retakes docs/report-*.png where Chromium is installed and records the
    answer they show; this fails while they show an older one."""
    from chessmoe.report import screens

    assert screens.stale(ROOT) is None


def test_screenshots_of_another_answer_are_named_stale(tmp_path: Path) -> None:
    from chessmoe.report import screens

    (tmp_path / "docs").mkdir()
    shutil.copytree(ROOT / "figures", tmp_path / "figures")
    assert "is missing: run `make report`" in str(screens.stale(tmp_path))
    for _, name in screens.SHOTS:
        (tmp_path / "docs" / name).write_bytes(b"png")
    stamp = tmp_path / "docs" / screens.STAMP
    stamp.write_text(json.dumps({"answer_sha256": screens.answer_fingerprint(
        tmp_path / "figures")}))
    assert screens.stale(tmp_path) is None
    claims = tmp_path / "figures" / "claims.csv"  # the answer moves: the shots are stale
    claims.write_text(claims.read_text().replace("+95 Elo [+67, +124]", "+96 Elo [+67, +124]"))
    assert "show an older answer" in str(screens.stale(tmp_path))
