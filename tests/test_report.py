"""The results-first README, the "latest" benchmarks table and ``make report``'s site
(issue 41): each generated from the committed artefacts, never typed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from chessmoe.designs import converged
from chessmoe.report import benchlog, site, site_pages, stems, summary

ROOT = Path(__file__).resolve().parents[1]

# --- the README's answer ----------------------------------------------------------------------

CLAIMS_HEADER = ("Topic,Kind,The paper says,We measure (95 % interval unless stated),p,"
                 "p (Holm),Verdict,Note\n")
GAP = ("scale,bundle,compute,arm,games,pairs,openings,score,elo,low,high,p,interval\n"
       "small,regular,1.0,regular,0,0,0,0.5,0.0,0.0,0.0,,x\n"
       "medium,staged,3.0,staged,400,200,200,0.5,1.7,-29.1,32.6,0.9,x\n")


def _figures(tmp_path: Path, separated: str = "contradicts", direct: str = "contradicts"
             ) -> Path:
    rows = [
        f'MoE vs regular,paper claim,"separated beats regular: +122 Elo (Table 2, mean of 55 '
        f'settings)","-90 Elo [-115, -66] (400 games, 200 openings)",<0.0001,<0.0001,'
        f'{separated},note',
        'MoE vs regular,paper claim,"staged beats regular: +121 Elo (Table 2)",'
        '"+95 Elo [+67, +124] (400 games, 200 openings)",<0.0001,<0.0001,supports,',
        '"equal training compute, head to head",post-hoc control,"staged beats regular-long '
        'played directly (equal total training; the paper has no such control)",'
        f'"-252 Elo [-308, -205] (200 games, 100 openings)",<0.0001,<0.0001,{direct},',
        'single expert (Fig. 6),paper claim,only the opening expert: no gain,'
        '"+26 Elo [-5, +58] (200 games, 100 openings)",0.1,0.6,undecided at this scale,',
    ]
    (tmp_path / "claims.csv").write_text(CLAIMS_HEADER + "\n".join(rows) + "\n")
    (tmp_path / "compute-gap.csv").write_text(GAP)
    return tmp_path


def test_the_answer_copies_the_main_claims_rows_and_words_their_verdicts(tmp_path: Path) -> None:
    lines = summary.answer_lines(_figures(tmp_path))
    text = "\n".join(lines)
    assert lines[0] == ("**Does a mixture of experts help?** Trained as the paper trains them, "
                        "at the `small` profile 1 of the 2 mixtures beat the regular network "
                        "(one training seed each) and separated loses to it "
                        "(all decided); but one network trained for a mixture's total steps "
                        "beats every mixture played against it (decided). At the `medium` "
                        "profile (more and other data, the same network), against its regular "
                        "network: staged is not distinguishable from it (each by its own 95 % "
                        "interval, unadjusted).")
    assert ("| separated beats regular | +122 Elo | -90 Elo [-115, -66] (400 games, 200 "
            "openings) | **contradicts** |") in lines
    assert ("| staged beats regular-long played directly | no such control | -252 Elo "
            "[-308, -205] (200 games, 100 openings) | **contradicts** |") in lines
    assert "single expert" not in text  # only the main topics
    assert "staged +2 [-29, +33] (400 games)" in text  # the second scale, rounded
    assert "batch 8 and 100 nodes" in text and "](figures/compute-gap.png)" in lines[-1]
    assert "regular network trained for the profile's fixed length (compute-limited" in text
    # the sentence follows the verdicts, not a fixed text
    other = summary.answer_lines(_figures(tmp_path, separated="undecided at this scale",
                                          direct="undecided at this scale"))[0]
    assert ("1 of the 2 mixtures beat the regular network (one training seed each) "
            "(1 undecided)") in other
    assert "beats 0 of the 1 mixtures" in other


@pytest.mark.parametrize(("verdict", "shown"), [
    ("contradicts", True), ("in progress: 720 of 1,600 planned games", False),
    ("not played yet", False)])
def test_the_answer_shows_the_across_seeds_row_once_it_is_decided(
        tmp_path: Path, verdict: str, shown: bool) -> None:
    figures = _figures(tmp_path)
    with (figures / "claims.csv").open("a") as handle:
        handle.write('"equal training compute, across seeds",post-hoc control,"staged beats '
                     'regular-long over the training seeds of both (pooled: these seeds; the '
                     'paper has no such control)","-273 Elo [-294, -253] (1800 games, 100 '
                     f'openings)",<0.0001,<0.0001,{verdict},note\n')
    row = ("| staged beats regular-long over the training seeds of both (`seeds-long`) | "
           "no such control | "
           "-273 Elo [-294, -253] (1800 games, 100 openings) | **contradicts** |")
    lines = summary.answer_lines(figures)
    assert (row in lines) is shown
    assert "beats every mixture played against it (decided)" in lines[0]  # head to head only


@pytest.mark.parametrize(("verdict", "shown"), [
    ("contradicts", True), ("supports", True), ("in progress: 48 of 200 planned games", False),
    ("not played yet (registered before its first game)", False)])
def test_the_answer_shows_each_parameter_matched_row_once_it_is_decided(
        tmp_path: Path, verdict: str, shown: bool) -> None:
    figures = _figures(tmp_path)
    with (figures / "claims.csv").open("a") as handle:
        for claim, measured in (
                ("at equal nodes, batch 8, 100 nodes", "-400 Elo [-500, -330]"),
                ("at equal move time, batch 8, 100 ms a move", "-110 Elo [-160, -60]")):
            handle.write('parameter-matched network,post-hoc control,"staged beats regular-wide '
                         "(one network with the mixture's parameters, regular-long's steps) "
                         f'{claim} (the paper has no such control)","{measured} (200 games, '
                         f'100 openings)",<0.0001,<0.0001,{verdict},note\n')
    lines = summary.answer_lines(figures)
    # the text after the aside tells the rows apart; the tournament is named
    for row in ("| staged beats regular-wide at equal nodes, batch 8, 100 nodes (`matched`) | "
                "no such control | -400 Elo [-500, -330] (200 games, 100 openings) | "
                f"**{verdict}** |",
                "| staged beats regular-wide at equal move time, batch 8, 100 ms a move "
                "(`matched`) | no such control | -110 Elo [-160, -60] (200 games, 100 "
                f"openings) | **{verdict}** |"):
        assert (row in lines) is shown
    assert "(`replicated`" not in "\n".join(lines)  # the main rows name no tournament


def test_the_answer_says_what_the_main_rows_do_not(tmp_path: Path) -> None:
    """The replicated tournament named as a re-adjudication, regular-long's seed clause copied
    from its row's note, the medium profile called what it is (per game pair), and the
    settings rows counted by state with a decided one copied verbatim."""
    figures = _figures(tmp_path)
    text = (figures / "claims.csv").read_text().replace(
        "contradicts,\n",
        'contradicts,"equal total training; regular-long is one training seed (seed 9); the '
        'regular network\'s seed alone moves one mixture\'s score by up to 13.1 points a pair"\n')
    text += ('"settings: MoE vs regular",paper claim,"staged beats regular at batch 8, 400 '
             'nodes (paper: +121 Elo)","+50 Elo [+20, +80] (200 games, 100 openings)",0.001,'
             '0.002,supports,\n'
             '"settings: MoE vs regular",paper claim,"staged beats regular at batch 1, 400 '
             'nodes (paper: +112 Elo)","+10 Elo [-50, +70] (40 games, 20 openings)",,,'
             '"in progress: 40 of 200 planned games of this match",\n'
             '"settings: equal compute, head to head",post-hoc control,"staged beats '
             'regular-long at batch 8, 1600 nodes (equal total training)",no complete game '
             'pair yet,,,not played yet (registered before its first game),\n')
    (figures / "claims.csv").write_text(text)
    body = "\n".join(summary.answer_lines(figures))
    assert "re-adjudicates the powered tournament's deterministic games" in body
    assert ("Regular-long is one training seed (seed 9); the regular network's seed alone "
            "moves one mixture's score by up to 13.1 points a pair.") in body
    assert "not a larger model" in body and "per game pair" in body
    assert ("its 3 rows were registered before its first game: 1 decided, 1 in progress, 1 "
            "not played yet (below: Elo per game pair") in body
    # one line a setting: the paper's mean at that batch size, each opponent's cell
    lines = summary.answer_lines(figures)
    assert ("| batch 8, 400 nodes | +121 Elo | +50 [+20, +80] **supports** | - |") in lines
    assert ("| batch 1, 400 nodes | +112 Elo | in progress (40 of 200 games) | - |") in lines
    assert ("| batch 8, 1600 nodes | - | - | not played yet |") in lines


def test_the_headline_words_each_other_scale_by_its_own_intervals() -> None:
    """An arm beats the regular network where its interval lies above 0, cannot be told from
    it where the interval holds 0 (the bound itself included), loses where it lies below;
    regular-long, the one network trained longer, is named first; no arm, no clause."""
    row = summary.GapRow
    gap = [row("medium", "staged", 3.0, 400, 1.7, -29.1, 32.6),
           row("medium", "edge", 3.0, 400, 40.0, 0.0, 80.0),
           row("medium", "weighted-a10", 3.0, 400, -107.0, -140.0, -75.0),
           row("medium", "separated", 3.0, 400, -321.0, -369.0, -281.0),
           row("medium", "up", 3.0, 400, 50.0, 10.0, 90.0),
           row("medium", "regular-long", 3.0, 400, 392.0, 348.0, 447.0)]
    assert summary.medium_clause(gap) == (
        " At the `medium` profile (more and other data, the same network), against its "
        "regular network: regular-long and up beat it; staged and edge are not "
        "distinguishable from it; weighted-a10 and separated lose to it (each by its own 95 % "
        "interval, unadjusted).")
    assert summary.medium_clause(gap[:1]) == (
        " At the `medium` profile (more and other data, the same network), against its "
        "regular network: staged is not distinguishable from it (each by its own 95 % "
        "interval, unadjusted).")
    assert summary.medium_clause([]) == ""


def test_the_answer_says_what_the_converged_rows_decide(tmp_path: Path) -> None:
    """The converged design's rows, counted by state with each decided one copied verbatim,
    after the settings rows; none without such rows; the committed claims table writes the
    topic the answer reads."""
    figures = _figures(tmp_path)
    assert "converged" not in "\n".join(summary.answer_lines(figures))
    with (figures / "claims.csv").open("a") as handle:
        handle.write('trained to convergence,post-hoc control,"staged beats regular when both '
                     'are trained until their validation loss stops improving",no complete '
                     'game pair yet,,,not played yet (registered before its first game),\n'
                     'trained to convergence,post-hoc control,"regular-converged beats '
                     'regular","+342 Elo [+306, +385] (400 games, 200 openings)",<0.0001,'
                     '<0.0001,supports,\n')
    body = "\n".join(summary.answer_lines(figures))
    assert ("the `converged` tournament plays the networks trained until their validation loss "
            "stops improving (the data-limited regime); its 2 rows were registered before "
            "their networks were trained: 1 decided, 0 in progress, 1 not played yet: "
            "regular-converged beats regular: +342 Elo [+306, +385] (400 games, 200 openings), "
            "**supports**.") in body
    # a played row whose interval holds zero is counted as played, not as decided
    with (figures / "claims.csv").open("a") as handle:
        handle.write('trained to convergence,post-hoc control,"weighted beats regular when '
                     'both are trained out","+30 Elo [-1, +61] (400 games, 200 openings)",'
                     '0.0574,0.4020,undecided at this scale,\n')
    body = "\n".join(summary.answer_lines(figures))
    assert ("its 3 rows were registered before their networks were trained: 2 played (1 "
            "decided, 1 undecided at this scale), 0 in progress, 1 not played yet: "
            "regular-converged beats regular: +342 Elo [+306, +385] (400 games, 200 openings), "
            "**supports**; weighted beats regular when both are trained out: +30 Elo [-1, +61] "
            "(400 games, 200 openings), **undecided at this scale**.") in body
    committed = summary.read_claims(ROOT / "figures" / "claims.csv")
    assert sum(r.topic == converged.TOPIC for r in committed) == 3


def test_the_answer_says_a_verdict_is_a_sign_and_what_other_seeds_decide(tmp_path: Path) -> None:
    """Each verdict row's note says whether the paper's size is inside the interval; the
    across-seeds rows add the pooled estimate and the random-seeds interval, read as
    undecided for seeds not played when it holds zero (and decided when it does not)."""
    figures = _figures(tmp_path)
    text = (figures / "claims.csv").read_text()
    text = text.replace("contradicts,note\n", "contradicts,the paper's +122 is outside our "
                        "interval\n", 1)
    text = text.replace("<0.0001,<0.0001,supports,\n", "<0.0001,<0.0001,supports,the "
                        "paper's +121 is inside our interval\n", 1)
    for method, random in (("staged", "+66 [-14, +153]"), ("weighted-a10", "+40 [+5, +80]")):
        text += (f'"MoE vs regular, across seeds",paper claim,"{method} beats regular over the '
                 'training seeds played of both (pooled: these seeds)","+50 Elo [+40, +60] '
                 '(3600 games, 200 openings)",<0.0001,<0.0001,supports,"9 seed pairings; with '
                 f'the seeds of both sides random (two-way random effects, 2.0 df): {random}"\n')
    (figures / "claims.csv").write_text(text)
    body = "\n".join(summary.answer_lines(figures))
    assert ("A verdict reads the sign of the effect; the paper's size lies inside our interval "
            "for staged; outside our interval for separated.") in body
    assert ("staged +50 Elo [+40, +60] pooled (supports, these seeds), +66 [-14, +153] with "
            "both sides' seeds random (undecided for seeds not played)") in body
    assert ("weighted-a10 +50 Elo [+40, +60] pooled (supports, these seeds), +40 [+5, +80] "
            "with both sides' seeds random (decided for seeds not played)") in body


def test_the_answer_names_make_figures_when_the_claims_table_is_missing(tmp_path: Path) -> None:
    with pytest.raises(summary.ClaimsMissing, match="run `make figures` first"):
        summary.answer_lines(tmp_path)


def test_the_readme_answer_is_what_the_committed_claims_table_says() -> None:
    """The README's first screen is generated: python -m chessmoe.report.summary README.md
    rewrites it; this fails while the block differs from figures/claims.csv."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    expected = summary.refresh(readme, summary.answer_lines(ROOT / "figures"))
    assert readme == expected, "run: python -m chessmoe.report.summary README.md"
    top = readme.split(summary.END)[0]
    # one screen: two tables (the main claims, the settings grid) and short paragraphs
    assert top.count("\n") < 45 and "contradicts" in top and "supports" in top


def test_the_readme_is_short_keeps_the_two_commands_and_reaches_every_docs_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    assert "make figures" in readme and "make test" in readme and "make test-fast" in readme
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
    assert ("| MCTS search (issues 5 and 12) | uniform evaluator, batch 8: 40 simulations/s | "
            "2026-02-01 | `bbbbbbbbbbbb` (dirty) | lent GPU machine, 16 cores, NVIDIA H200 | "
            "uniform >= 50 simulations/s | NOT met |") in table
    assert "| Tournament games (issue 6) | scaling 1 -> 2 workers: 1.5x |" in table
    assert "no target | - |" in table and "100 simulations/s" not in table
    assert text.index(benchlog.END) < text.index("## 2026-01-01")  # it opens the file
    assert benchlog.refresh(text) == text  # the table is not read back as a log entry
    # a new run appended below replaces the benchmark's row
    newer = text + ("\n## 2026-03-01T00:00:00+00:00 — commit cccccccccccc\n\nMachine: AMD EPYC, "
                    "2 cores\n\n### MCTS search (issues 5 and 39)\n\n| measure | value |\n"
                    "|---|---|\n| uniform evaluator, batch 8 | 90 simulations/s |\n\nTarget: "
                    "uniform >= 50 simulations/s — **met**.\n")
    table = benchlog.refresh(newer).split(benchlog.END)[0]
    assert "90 simulations/s | 2026-03-01 | `cccccccccccc` | AMD EPYC, 2 cores" in table
    assert "40 simulations/s" not in table


def test_the_committed_benchmarks_open_with_the_table_their_log_gives() -> None:
    text = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert text == benchlog.refresh(text), "run: python -m chessmoe.report.benchlog"
    assert text.index(benchlog.BEGIN) < text.index("\n## 20")
    latest = benchlog.latest(benchlog.parse_log(text))
    assert {s.benchmark for s in latest} >= {"MCTS search", "Paper scale on a GPU"}


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
    assert compared[("Table", 2)].text.startswith("pooled over 36 pairs")
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
    assert "REPRODUCING.md (Fig. 6 single experts (nodes)): partly resolved" in fig06
    assert ("| single expert (Fig. 6) | only the middlegame expert: clear gain | -61 Elo "
            "[-90, -34] (200 games, 100 openings) | 0.0001 | **contradicts** |") in fig06
    assert "| `results/tournaments/small-cutechess` | 35 of 35 | 420 of 420 planned | " \
           "cutechess: 420 |" in fig06
    assert "| `results/tournaments/small-cutechess` | small-cutechess | `629f7e12` clean (1)" \
        in fig06
    assert "[`notebooks/06_playing_strength.ipynb`](../notebooks/06_playing_strength.ipynb)" \
        in fig06

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
    assert "\n".join(summary.answer_lines(ROOT / "figures")) in landing
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
