"""The answer a reviewer reads first (report.answer): three sentences chosen from the
verdicts, the paper's four claims with sign and size, the kit's controls worded as what the
games found, and REPRODUCING.md's tables, all copied from the claims table."""

from __future__ import annotations

from pathlib import Path

import pytest

from chessmoe.report import answer, summary

ROOT = Path(__file__).resolve().parents[1]

HEADER = ("Topic,Kind,The paper says,We measure (95 % interval unless stated),p,p (Holm),"
          "Verdict,Note\n")
GAP = ("scale,bundle,compute,arm,games,pairs,openings,score,elo,low,high,p,interval\n"
       "small,regular,1.0,regular,0,0,0,0.5,0.0,0.0,0.0,,x\n"
       "medium,regular,1.0,regular,0,0,0,0.5,0.0,0.0,0.0,,x\n"
       "medium,regular-long,3.0,regular-long,400,200,200,0.9,391.6,347.5,447.1,0.0,x\n"
       "medium,staged,3.0,staged,400,200,200,0.5,1.7,-29.1,32.6,0.9,x\n"
       "medium,weighted-a10,3.0,weighted-a10,400,200,200,0.35,-106.6,-139.7,-75.2,0.0,x\n")
PAPER = ('MoE vs regular,paper claim,"{m} beats regular: {paper} Elo (Table 2, mean of 55 '
         'settings)","{ours} Elo {ci} (400 games, 200 openings)",<0.0001,<0.0001,"{v}",'
         "\"the paper's {paper} is {where} our interval\"\n")
DIRECT = ('"equal training compute, head to head",post-hoc control,"{m} beats regular-long '
          'played directly (equal total training; the paper has no such control)","{ours} Elo '
          '{ci} (200 games, 100 openings)",<0.0001,<0.0001,{v},note\n')
SEEDS_LONG = ('"equal training compute, across seeds",post-hoc control,"staged beats '
              'regular-long over the training seeds played of both (pooled: these seeds; the '
              'paper has no such control)","-273 Elo [-294, -253] (1800 games, 100 openings)",'
              '<0.0001,<0.0001,{v},"9 seed pairings (3 staged x 3 regular-long seeds); with '
              'the seeds of both sides random (two-way random effects, 2.6 df): {random}"\n')
MATCHED = ('parameter-matched network,post-hoc control,"staged beats regular-wide (one network '
           'with the mixture\'s parameters, regular-long\'s steps) {at}, batch 8, 100 nodes '
           '(the paper has no such control)","{ours} Elo {ci} (200 games, 100 openings)",'
           '<0.0001,<0.0001,{v},note\n')
CONVERGED = ('trained to convergence,post-hoc control,"{m} beats regular when both are trained '
             'until their validation loss stops improving ({m}-converged vs regular-converged; '
             'the paper: +121 Elo at fixed epochs, Table 2)","{ours} Elo {ci} (400 games, 200 '
             'openings)",0.05,0.4,{v},note\n')


def _figures(tmp_path: Path, rows: list[str], gap: str = GAP) -> Path:
    (tmp_path / "claims.csv").write_text(HEADER + "".join(rows))
    (tmp_path / "compute-gap.csv").write_text(gap)
    return tmp_path


def _paper_rows(a4: str = "sign agrees, size differs", separated: str = "contradicts"
                ) -> list[str]:
    return [PAPER.format(m="separated", paper="+122", ours="-90", ci="[-115, -66]",
                         v=separated, where="outside"),
            PAPER.format(m="staged", paper="+121", ours="+95", ci="[+67, +124]", v="supports",
                         where="inside"),
            PAPER.format(m="weighted-a4", paper="+23", ours="+80", ci="[+55, +105]", v=a4,
                         where="outside")]


def _rows(tmp_path: Path, every: list[str]) -> list[summary.ClaimRow]:
    return summary.read_claims(_figures(tmp_path, every) / "claims.csv")


def test_the_paper_table_copies_each_claim_with_sign_and_size(tmp_path: Path) -> None:
    rows = [r for r in _rows(tmp_path, _paper_rows()) if r.topic == "MoE vs regular"]
    assert answer.paper_table(rows) == [
        "| the paper's claim | paper | kit [95 % interval] | verdict |", "|---|---|---|---|",
        "| separated beats regular | +122 Elo | -90 [-115, -66] | **contradicts** |",
        "| staged beats regular | +121 Elo | +95 [+67, +124] | **supports** |",
        "| weighted-a4 beats regular | +23 Elo | +80 [+55, +105] | **sign agrees, size "
        "differs** |"]


def test_a_control_says_who_won_not_that_a_claim_was_contradicted(tmp_path: Path) -> None:
    """A post-hoc row decided against its hypothesis names the other side as the winner; one
    decided for it names the first; an undecided one shows no difference; one in progress
    says so. No control row reads 'contradicts'."""
    rows = _rows(tmp_path, [
                  DIRECT.format(m="staged", ours="-252", ci="[-307, -206]", v="contradicts"),
                  MATCHED.format(at="at equal nodes", ours="-418", ci="[-503, -358]",
                                 v="contradicts"),
                  CONVERGED.format(m="staged", ours="+30", ci="[-1, +61]",
                                   v="undecided at this scale"),
                  CONVERGED.format(m="weighted-a10", ours="+60", ci="[+20, +100]",
                                   v="supports"),
                  DIRECT.format(m="weighted-a4", ours="-10", ci="[-40, +20]",
                                v="in progress: 20 of 200 planned games")])
    assert [answer.finding(r) for r in rows] == [
        "regular-long wins", "regular-wide wins", "no difference shown",
        "weighted-a10-converged wins", "in progress"]
    table = answer.controls_table(rows, [])
    assert table[2:] == [
        "| staged vs regular-long (`replicated`) | -252 [-307, -206] | regular-long wins |",
        "| staged vs regular-wide, at equal nodes (`matched`) | -418 [-503, -358] | "
        "regular-wide wins |",
        "| staged-converged vs regular-converged (`converged`) | +30 [-1, +61] | no "
        "difference shown |",
        "| weighted-a10-converged vs regular-converged (`converged`) | +60 [+20, +100] | "
        "weighted-a10-converged wins |"]  # the row in progress is left out
    assert "contradicts" not in "\n".join(table)


def test_a_row_over_the_seeds_of_both_shows_its_interval_with_both_sides_seeds_random(
        tmp_path: Path) -> None:
    """The pooled interval treats the seeds played as fixed; a row worded over the seeds of
    both shows the one with both sides' seeds random, and wins only for these seeds when
    that interval holds zero."""
    [row] = _rows(tmp_path, [SEEDS_LONG.format(v="contradicts", random="-273 [-338, -220]")])
    assert answer.seeds_random(row) == ("-273", "[-338, -220]")
    assert answer.controls_table([row], [])[2] == (
        "| staged vs regular-long, 3 seeds each, seeds random (`seeds-long`) | -273 "
        "[-338, -220] | regular-long wins |")
    [wide] = _rows(tmp_path, [SEEDS_LONG.format(v="contradicts", random="-100 [-300, +50]")])
    assert answer.finding(wide) == "regular-long wins for these seeds only"
    assert "[-294, -253]" not in answer.controls_table([wide], [])[2]


def test_the_other_scale_shows_regular_long_and_the_best_mixture_by_their_intervals(
        tmp_path: Path) -> None:
    gap = summary.read_compute_gap(_figures(tmp_path, []) / "compute-gap.csv")
    rows = answer.control_rows([], gap)
    assert [(r.label, r.estimate, r.interval, r.found) for r in rows] == [
        ("regular-long vs regular, more data (`medium`)", "+392", "[+348, +447]",
         "regular-long wins"),
        ("staged (the best mixture) vs regular, more data (`medium`)", "+2", "[-29, +33]",
         "no difference shown")]


def test_the_bottom_line_is_three_sentences_chosen_from_the_verdicts(tmp_path: Path) -> None:
    rows = _rows(tmp_path, [*_paper_rows(),
                  DIRECT.format(m="staged", ours="-252", ci="[-307, -206]", v="contradicts"),
                  DIRECT.format(m="weighted-a4", ours="-263", ci="[-322, -215]",
                                v="contradicts"),
                  SEEDS_LONG.format(v="contradicts", random="-273 [-338, -220]"),
                  MATCHED.format(at="at equal nodes", ours="-418", ci="[-503, -358]",
                                 v="contradicts"),
                  MATCHED.format(at="at equal move time", ours="-133", ci="[-183, -88]",
                                 v="contradicts"),
                  CONVERGED.format(m="staged", ours="+30", ci="[-1, +61]",
                                   v="undecided at this scale"),
                  CONVERGED.format(m="weighted-a10", ours="-47", ci="[-78, -17]",
                                   v="contradicts")])
    gap = summary.read_compute_gap(tmp_path / "compute-gap.csv")
    assert answer.bottom_line(rows, gap) == (
        "Trained as the paper trains them (small networks at CPU scale, one training seed "
        "each), 2 of the 3 mixtures beat the regular network (staged by the paper's margin, "
        "weighted-a4 by more) and separated loses to it. But one network trained for the "
        "mixtures' total steps (regular-long) beats every mixture head to head, staged also "
        "over three training seeds a side and with more data (`medium`); so does one network "
        "with the mixture's parameters (regular-wide), against staged. With every network "
        "trained until its validation loss stops improving (`converged`), staged cannot be "
        "told from the regular network and weighted-a10 loses to it; nothing here runs at the "
        "paper's GPU scale.")
    # other verdicts, other words: an undecided claim, a mixture that holds regular-long off
    other = _rows(tmp_path, [*_paper_rows(a4="undecided at this scale",
                                separated="undecided at this scale"),
                   DIRECT.format(m="staged", ours="-252", ci="[-307, -206]", v="contradicts"),
                   DIRECT.format(m="weighted-a4", ours="-5", ci="[-40, +30]",
                                 v="undecided at this scale")])
    text = answer.bottom_line(other, [])
    assert text.startswith("Trained as the paper trains them (small networks at CPU scale, one "
                           "training seed each), 1 of the 3 mixtures beat the regular network "
                           "(staged by the paper's margin) (2 undecided). ")
    assert "beats 1 of the 2 mixtures head to head." in text
    assert text.endswith(" Nothing here runs at the paper's GPU scale.")


def test_the_answer_puts_the_figure_right_after_the_bottom_line(tmp_path: Path) -> None:
    figures = _figures(tmp_path, [*_paper_rows(),
                                  DIRECT.format(m="staged", ours="-252", ci="[-307, -206]",
                                                v="contradicts")])
    lines = answer.answer_lines(figures)
    assert lines[0].startswith("**The answer.** Trained as the paper trains them")
    assert lines[2] == ("![Equal training compute: the mixtures beside one network trained "
                        "as long](figures/compute-gap.png)")
    assert "400 games, 200 openings a claim" in lines[4]
    assert "| staged vs regular-long (`replicated`) | -252 [-307, -206] | regular-long wins |" \
        in lines


SCALE_ROW = ('"scale: {size} parameters",post-hoc control,"{claim} at {size} parameters, both '
             'early-stopped (seeds 9, 10; the paper: +121 Elo at 5.8 M parameters, fixed '
             'epochs)","{ours}",{p},{p},"{v}","by seed pairing seed 9: x; pooled over these '
             'seeds (openings are the clusters); {random}"\n')


def _scale(size: str, mixture: str, verdict: str, ours: str = "no complete game pair yet",
           random: str = "the seeds-random interval once every pairing is played") -> str:
    claim = "staged beats regular" if mixture == "staged" else \
        "the shared-trunk mixture beats regular"
    return SCALE_ROW.format(size=size, claim=claim, ours=ours, v=verdict, random=random,
                            p="<0.0001" if verdict[:3] in ("sup", "con") else "")


def test_the_answer_says_what_the_scale_design_has_decided_size_by_size(
        tmp_path: Path) -> None:
    """Nothing played: one sentence says the question is open and no size figure is shown.
    With 50 k played (staged wins only for these seeds, the trunk loses) and 201 k in
    progress: the sentence names each mixture's result at 50 k and the sizes not played, the
    size figure follows the equal-compute one, and the controls table shows the two decided
    rows with their seeds-random intervals."""
    waiting = [_scale(size, m, "not played yet (registered before its first game)")
               for size in ("50 k", "201 k", "604 k") for m in ("staged", "trunk")]
    figures = _figures(tmp_path, [*_paper_rows(), *waiting])
    lines = answer.answer_lines(figures)
    assert lines[0].endswith(
        " Whether this holds as networks grow (`scale`: 50 k to 604 k parameters, and a "
        "shared-trunk mixture at one network's cost) is still being played.")
    assert "GPU scale" not in lines[0]  # the sentence on scale replaces the regime's tail
    assert not any("figures/scale.png" in line for line in lines)
    played = [_scale("50 k", "staged", "supports", "+60 Elo [+20, +100] (400 games, 100 "
                     "openings)", "with both sides' seeds random (t over 2 pairings): "
                     "+60 [-200, +320]"),
              _scale("50 k", "trunk", "contradicts", "-80 Elo [-120, -40] (400 games, 100 "
                     "openings)", "with both sides' seeds random (t over 2 pairings): "
                     "-80 [-90, -70]"),
              _scale("201 k", "staged", "in progress: 200 of 600 planned games of its 3 "
                     "matches", "+10 Elo [-40, +60] (200 games, 100 openings)"),
              *waiting[3:]]
    figures = _figures(tmp_path, [*_paper_rows(), *played])
    lines = answer.answer_lines(figures)
    assert lines[0].endswith(
        " As networks grow (`scale`, early-stopped): at 50 k parameters staged "
        "beats regular (for these seeds only) and trunk loses to it; 201 k and 604 k not "
        "played yet.")
    assert lines[4] == ("![As networks grow: each mixture against one network, by size]"
                        "(figures/scale.png)")
    # the size rows are told by the sentence and the figure, not the controls table; the
    # 400-node row over three regular seeds is a control row with its seeds-random interval
    three = ('"scale: 400 nodes over three regular seeds",post-hoc control,"staged beats '
             'regular at batch 8, 400 nodes over regular seeds 9, 10 and 11 (pooled)","+78 Elo '
             '[+50, +106] (600 games, 100 openings)",<0.0001,<0.0001,supports,"one staged '
             'network; with the regular network\'s seed random (t over 3 seeds): +78 [-6, '
             '+172]"\n')
    rows = summary.read_claims(_figures(tmp_path, [*_paper_rows(), *played, three])
                               / "claims.csv")
    assert answer.controls_table(rows, [])[2:] == [
        "| staged vs regular at 400 nodes, 3 regular seeds, seeds random (`scale`) | +78 "
        "[-6, +172] | staged wins for these seeds only |"]


def test_make_figures_rewrites_the_generated_blocks_before_it_checks_their_quotes(
        tmp_path: Path) -> None:
    """A REPRODUCING block left from the last run quotes an interval the new claims table no
    longer holds: checked first it is named stale; refreshed first (what make figures does)
    nothing is stale and the block holds the new interval."""
    import io

    from chessmoe.report import quotes

    old = _scale("50 k", "staged", "in progress: 200 of 400 planned games",
                 "+83 Elo [+50, +119] (200 games, 100 openings)")
    new = _scale("50 k", "staged", "in progress: 300 of 400 planned games",
                 "+78 Elo [+50, +106] (300 games, 100 openings)")
    (tmp_path / "figures").mkdir()
    small = GAP.split("medium", 1)[0]  # no other scale: the README quotes only these rows
    figures = _figures(tmp_path / "figures", [*_paper_rows(), old], small)
    block = answer.section_block("scale")
    (tmp_path / "README.md").write_text(summary.refresh("# x\n\n" + summary.BEGIN + "\n"
                                                        + summary.END + "\n",
                                                        answer.answer_lines(figures)))
    (tmp_path / "REPRODUCING.md").write_text(block.replace(
        f"# r\n\n{block.begin}\n{block.end}\n",
        answer.section_lines(summary.read_claims(figures / "claims.csv"), "scale")))
    _figures(figures, [*_paper_rows(), new], small)  # the new run's claims table
    assert len(quotes.check_repository(tmp_path)) == 1  # the old block, checked as it is
    stream = io.StringIO()
    assert quotes.refresh_and_report(tmp_path, figures, tmp_path / "results", stream) == 0
    assert stream.getvalue() == ""
    assert "+78 Elo [+50, +106]" in (tmp_path / "REPRODUCING.md").read_text()


def test_the_answer_names_make_figures_when_the_claims_table_is_missing(tmp_path: Path) -> None:
    with pytest.raises(summary.ClaimsMissing, match="run `make figures` first"):
        answer.answer_lines(tmp_path)


def test_reproducings_seed_table_keeps_the_pooled_tests_p_off_the_random_interval(
        tmp_path: Path) -> None:
    rows = _rows(tmp_path, [SEEDS_LONG.format(v="contradicts", random="-273 [-338, -220]")])
    lines = answer.section_lines(rows, "seeds-long")
    assert lines[0] == ("| claim | paper | kit, pooled over the seeds played (95 %) | p (Holm; "
                        "the pooled test) | kit, both sides' seeds random (95 %; no test) | "
                        "verdict (pooled) |")
    assert lines[1] == "|---|---|---|---|---|---|"
    assert lines[2] == ("| staged beats regular-long over the training seeds played of both | "
                        "(not in the paper) | -273 Elo [-294, -253] (1800 games, 100 openings) "
                        "| <0.0001 | -273 [-338, -220] | **regular-long wins** (its hypothesis: "
                        "contradicts) |")
    assert answer.section_lines(rows, "matched") == [
        "(no rows of this topic in the claims table yet)"]


def test_refresh_rewrites_only_the_blocks_a_document_holds(tmp_path: Path) -> None:
    figures = _figures(tmp_path, _paper_rows())
    block = answer.section_block("paper-claims")
    text = f"intro\n{block.begin}\nOLD\n{block.end}\ntail\n"
    out = answer.refresh_sections(text, figures)
    assert "OLD" not in out and out.startswith("intro\n") and out.endswith("tail\n")
    assert "| staged beats regular | +121 Elo | +95 Elo [+67, +124] (400 games, 200 " \
           "openings) | <0.0001 | **supports** |" in out
    assert answer.refresh_sections("no blocks here", figures) == "no blocks here"


def test_the_summary_command_rewrites_the_readme_and_reproducing_beside_it(tmp_path: Path) -> None:
    readme, reproducing = tmp_path / "README.md", tmp_path / "REPRODUCING.md"
    readme.write_text(f"top\n{summary.BEGIN}\nOLD\n{summary.END}\n")
    block = answer.section_block("settings")
    reproducing.write_text(f"{block.begin}\nSTALE\n{block.end}\n")
    assert answer.main([str(readme), str(ROOT / "figures")]) == 0
    assert "OLD" not in readme.read_text() and "**The answer.**" in readme.read_text()
    assert "STALE" not in reproducing.read_text()
    assert "staged beats regular-long at batch 8, 1600 nodes" in reproducing.read_text()


def test_the_committed_documents_hold_what_the_claims_table_says() -> None:
    text = (ROOT / "REPRODUCING.md").read_text(encoding="utf-8")
    assert answer.refresh_sections(text, ROOT / "figures") == text, (
        "run: python -m chessmoe.report.answer README.md")
    for name in answer.SECTIONS:
        assert answer.section_block(name).span(text) is not None, name
