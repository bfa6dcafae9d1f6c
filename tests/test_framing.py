"""Framing the documents must not use (report.framing), read as the quote checker reads
numbers: each rule catches the wording the documents once used (excerpts copied from them)
and lets the wording that replaced it pass; the committed documents hold none."""

from __future__ import annotations

from pathlib import Path

import pytest

from chessmoe.report import framing

ROOT = Path(__file__).resolve().parents[1]

#: Per rule: text the documents used (it must be caught) and what replaced it (it must pass).
CASES: dict[str, tuple[str, str]] = {
    "trained out": (
        "  - With both sides trained out (staged's nine stages 29,600 steps in all, each stage",
        "  - With both sides early-stopped (staged's nine stages 29,600 steps in all, each"),
    "interval end as a bound": (
        "the data-limited regime the mixture's advantage is at most +61 Elo here (95 %),",
        "the 95 % interval of the mixture's advantage runs from -1 to +61 Elo; at most 5 %"
        " of the verdicts, at most 1,000 pairs"),
    "SPRT as a score": (
        "(target 55 %: met: the SPRT accepts H1; SPRT H0 +0 Elo against H1 +35 Elo, alpha "
        "0.05); the 55 % target is met by the test fixed for it",  # two uses: both caught
        "(target 55 %: not decided (score interval 52.3 %-64.4 %); the SPRT accepts H1: "
        "stronger; SPRT H0 +0 Elo against H1 +35 Elo)"),
    "just inside an edge": (
        "(**supports**; the paper's batch-8 mean, +120.8, just inside the interval's lower "
        "edge, +120.7) and",
        "the paper's batch-8 mean, +120.8, lies 0.1 Elo above this interval's lower end, "
        "+120.7, and below the per-game interval's, +122.5"),
    "answers hold over a range": (
        "trends. So the answers hold from 100 to 1,600 nodes and at batch 1, 8 and 32, with",
        "at each of the five settings played, staged beats the regular network"),
    "seeds of both, unqualified": (
        "| staged beats regular-long over the training seeds of both (`seeds-long`) | no such "
        "control | -273 Elo [-294, -253] (1800 games, 100 openings) |",
        "| staged beats regular-long over the training seeds played of both | (not in the "
        "paper) | -273 Elo [-294, -253] |"),
    "pooled p beside the random-seeds interval": (
        "  -273 [-338, -220] with both sides' seeds random (two-way random effects, 2.6 degrees "
        "of\n  freedom): **contradicts** (adjusted p < 0.0001), and this time for seeds not "
        "played too.",
        "  pooled (the claims table's test: adjusted p < 0.0001). With both sides' seeds "
        "random (2.6 degrees of freedom; descriptive, no test and no p-value) the interval is "
        "-273 [-338, -220]."),
    "a control contradicting the paper": (
        "| staged beats regular-long played directly | no such control | -252 Elo [-307, -206] "
        "(200 games, 100 openings) | **contradicts** |",
        "| staged vs regular-long (`replicated`) | -252 [-307, -206] | regular-long wins |\n"
        "| separated beats regular | +122 Elo | -90 [-115, -66] | **contradicts** |"),
    "supports with the size outside": (
        "| MoE vs regular | paper claim | weighted-a4 beats regular: +23 Elo | +80 Elo [+55, "
        "+105] | <0.0001 | <0.0001 | supports | the paper's +23 is outside our interval |",
        "| MoE vs regular | paper claim | weighted-a4 beats regular: +23 Elo | +80 Elo [+55, "
        "+105] | <0.0001 | <0.0001 | sign agrees, size differs | the paper's +23 is outside "
        "our interval |\n| staged | supports | the paper's +121 is inside our interval |"),
}


def test_every_rule_has_a_case() -> None:
    assert {rule.name for rule in framing.RULES} == set(CASES)


@pytest.mark.parametrize("rule", framing.RULES, ids=lambda r: r.name)
def test_each_rule_catches_the_old_wording_and_passes_the_new(rule: framing.Rule) -> None:
    old, new = CASES[rule.name]
    found = framing.check_text(old, "doc", [rule])
    assert found and all(f.startswith("doc:1: ") and rule.advice in f for f in found)
    assert framing.check_text(new, "doc", [rule]) == []


def test_both_ways_of_reading_an_sprt_as_a_score_are_caught() -> None:
    old = CASES["SPRT as a score"][0]
    assert len(framing.check_text(old, "doc")) == 2


def test_a_finding_names_its_line_and_code_is_not_read() -> None:
    text = "first line\n```\ntrained out\n```\nsecond `trained out` and\nthen trained out."
    assert framing.check_text(text, "x.md") == [
        "x.md:6: 'trained out' -- a network stopped by its validation patience is "
        "early-stopped, not trained out"]


def test_the_committed_documents_claim_no_more_than_the_games_show() -> None:
    assert framing.check_repository(ROOT) == []
    # the generated tables are read too
    assert "figures/*.md" in framing.DOCUMENTS and "docs/**/*.md" in framing.DOCUMENTS
