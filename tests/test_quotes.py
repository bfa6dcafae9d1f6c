"""Quoted intervals of the documents against the artefacts (report.quotes), and the numbers
each strength and claims figure writes beside itself (``<stem>.csv``)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from chessmoe.report import quotes
from chessmoe.report.quotes import Quote, Row, quoted_intervals, rows_of, supported

ROOT = Path(__file__).resolve().parents[1]


def test_quotes_with_and_without_their_estimate() -> None:
    text = ("Staged +67 Elo [+41, +93] and a = 10 +64 [+40, +89];\n"
            "separated minus regular-long: -45.5 points [-51.6,\n  -39.4] on 100 openings;\n"
            "batch 8, 100 nodes: [-241, -23]; on the same 200 openings [+7.1, +17.1];\n"
            "weighted-a10 [1, 2]; 2,056 steps [1,234.5, \u22122,000]")
    found = quoted_intervals(text, "doc")
    assert [(q.estimate, q.low, q.high) for q in found] == [
        (67.0, 41.0, 93.0), (64.0, 40.0, 89.0), (-45.5, -51.6, -39.4),
        (None, -241.0, -23.0), (None, 7.1, 17.1), (None, 1.0, 2.0), (None, 1234.5, -2000.0)]
    assert found[2].where == "doc:2" and found[2].text == "-45.5 points [-51.6, -39.4]"
    assert (found[2].estimate_decimals, found[2].low_decimals) == (1, 1)
    assert found[0].estimate_decimals == 0


def test_what_is_not_a_quote_and_where_an_estimate_stops() -> None:
    text = ("see [1, 2](https://x) and a[0, 1];\n"
            "```python\nx = [3, 4]\n```\n"
            "inline `[5, 6]` is code; percent [+2 %, +9.5 %];\n"
            "en dash [\u201386, \u201342];\n"
            "DeepChess\n129 [-423, 682]; movecount4 [7, 8];\n"
            "+161\n  Elo [+132, +191]; +12.1 points a\n  pair [+7.1, +17.1];\n"
            "more than 4\n\n[+0.6, +14.4]")
    found = [(q.estimate, q.low, q.high) for q in quoted_intervals(text)]
    assert found == [(None, 2.0, 9.5), (None, -86.0, -42.0), (129.0, -423.0, 682.0),
                     (None, 7.0, 8.0), (161.0, 132.0, 191.0), (12.1, 7.1, 17.1),
                     (None, 0.6, 14.4)]


def test_an_interval_must_stand_in_order_in_its_row() -> None:
    """Its ends are neighbours (low, then high) with the estimate before them in a table row;
    three different fields of a JSON object; and a reversed quote holds nowhere."""
    row = Row("md", ((7.5, 1), (0.6, 1), (14.4, 1), (4.0, 0)))
    assert supported(_quote(0.6, 14.4, 1, 7.5), [row]) is row
    assert supported(_quote(0.6, 14.4, 1, 4.0), [row]) is None  # 4 is not the estimate
    assert supported(_quote(0.6, 14.4, 1), [Row("md", ((0.6, 1), (7.5, 1), (14.4, 1)))]) \
        is None
    swapped = Quote("doc:1", "", 14.4, 0.6, 1, 1, 7.5, 1)
    assert supported(swapped, [row, Row("md", ((7.5, 1), (14.4, 1), (0.6, 1)))]) is None
    fields = Row("json", ((7.5, 17), (14.4, 17), (0.6, 17)), ordered=False)
    assert supported(_quote(0.6, 14.4, 1, 7.5), [fields]) is fields
    assert supported(_quote(0.6, 14.4, 1, 14.4), [fields]) is None  # one field, two roles


def test_numbers_inside_words_are_not_numbers_of_a_row(tmp_path: Path) -> None:
    (tmp_path / "t.md").write_text("| only-opening-b8-n200 | 2026-11-25 | -3 [-5, -1] |\n")
    (tmp_path / "t.csv").write_text("p\n1e-05\n")
    assert rows_of(tmp_path / "t.md")[0].numbers == ((2026.0, 0), (-3.0, 0), (-5.0, 0),
                                                      (-1.0, 0))
    assert rows_of(tmp_path / "t.csv")[1].numbers == ((1e-05, 17),)


def _quote(low: float, high: float, decimals: int, estimate: float | None = None) -> Quote:
    return Quote("doc:1", "", low, high, decimals, decimals, estimate, decimals)


def test_a_quote_must_round_from_what_the_source_implies() -> None:
    exact = Row("csv", ((-10.5, 17), (-15.94741216767222, 17), (-5.05258783232778, 17)))
    assert supported(_quote(-15.9, -5.1, 1, -10.5), [exact]) is exact
    assert supported(_quote(-16.0, -5.1, 1, -10.5), [exact]) is None  # -15.947 is -15.9
    rounded = Row("md", ((-10.5, 2), (-15.95, 2), (-5.05, 2)))
    # -15.95 printed with two decimals may be -15.954 (-> -16.0) or -15.946 (-> -15.9)
    assert supported(_quote(-16.0, -5.1, 1), [rounded]) is None
    assert supported(_quote(-15.95, -5.05, 2), [rounded]) is rounded
    one = Row("md", ((73.5, 1), (20.6, 1), (129.9, 1)))
    assert supported(_quote(21, 130, 0, 74), [one]) is None  # 73.5 may have been 73.46
    assert supported(_quote(21, 130, 0), [one]) is one
    assert supported(_quote(21, 130, 0, 73), [Row("csv", ((73.4577, 17), (20.61, 17),
                                                          (129.91, 17)))]) is not None


def test_the_interval_and_its_estimate_must_share_one_row() -> None:
    rows = [Row("a", ((67.0, 17), (41.0, 17))), Row("b", ((93.0, 17),))]
    assert supported(_quote(41, 93, 0, 67), rows) is None
    assert supported(_quote(41, 93, 0, 67), [*rows, Row("c", ((2.0, 0), (67.0, 0), (41.0, 0),
                                                             (93.0, 0)))]) is not None


def test_rows_of_csv_markdown_and_json(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("arm,elo,low\nstaged,66.82477700555239,41.172665903861\n"
                                    "x,\"+73.5 [+20.6, +129.9] (36 pairs)\",\n")
    (tmp_path / "t.md").write_text("| a | -64 Elo [-86, -42] (4,200 games) |\n")
    (tmp_path / "t.json").write_text(json.dumps(
        {"n": 3, "ok": True, "inner": {"elo": -1.5, "interval": [-2.25, 0.5]}, "games": []}))
    csv_rows = rows_of(tmp_path / "t.csv")
    assert csv_rows[1].numbers == ((66.82477700555239, 17), (41.172665903861, 17))
    assert csv_rows[2].numbers == ((73.5, 1), (20.6, 1), (129.9, 1), (36.0, 0))
    assert rows_of(tmp_path / "t.md")[0].numbers == ((-64.0, 0), (-86.0, 0), (-42.0, 0),
                                                      (4200.0, 0))
    by_object = [r.numbers for r in rows_of(tmp_path / "t.json")]
    assert by_object == [((-1.5, 17), (-2.25, 17), (0.5, 17)), ((3.0, 17),)]  # bools skipped


def test_check_documents_names_each_unsupported_quote(tmp_path: Path) -> None:
    doc = tmp_path / "DOC.md"
    doc.write_text("ok +67 Elo [+41, +93]\nstale +70 Elo [+41, +93]\n")
    source = tmp_path / "a.csv"
    source.write_text("elo,low,high\n66.8,41.2,93.2\n")
    problems = quotes.check_documents([doc], [source], tmp_path)
    assert problems == ["DOC.md:2: '+70 Elo [+41, +93]' is in no generated artefact or "
                        "committed result"]


def test_make_figures_names_the_stale_quotes_of_a_checkout(tmp_path: Path) -> None:
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "arms.csv").write_text("arm,elo,low,high\nstaged,66.8,41.2,93.2\n")
    (tmp_path / "REPRODUCING.md").write_text("staged +67 Elo [+41, +93];\nold +60 [+38, +81]\n")
    stream = io.StringIO()
    assert quotes.report_stale(tmp_path, stream) == 1
    assert stream.getvalue().splitlines() == [
        "make figures: REPRODUCING.md:2: '+60 [+38, +81]' is in no generated artefact or "
        "committed result",
        "make figures: 1 quoted interval(s) above match no regenerated artefact: update the "
        "documents"]
    (tmp_path / "REPRODUCING.md").write_text("staged +67 Elo [+41, +93]\n")
    assert quotes.report_stale(tmp_path, io.StringIO()) == 0


def test_the_committed_documents_quote_only_what_the_artefacts_hold() -> None:
    """Every interval REPRODUCING.md, README.md, the docs/ pages and the results' READMEs
    print is in a generated figure/table or a committed result, rounded correctly (make
    figures prints the same list after regenerating)."""
    read = {p.relative_to(ROOT) for pattern in quotes.DOCUMENTS for p in ROOT.glob(pattern)}
    assert Path("REPRODUCING.md") in read and Path("README.md") in read
    # the README's detail moved to docs/ (issue 41): its quotes are still checked there
    assert Path("docs/related-engines.md") in read
    assert quoted_intervals((ROOT / "docs" / "related-engines.md").read_text())
    assert len(quoted_intervals((ROOT / "REPRODUCING.md").read_text())) >= 50
    assert quotes.check_repository(ROOT) == []


# --- the numbers beside the figures -----------------------------------------------------------


def test_margin_quotes_are_read_and_checked_like_intervals(tmp_path: Path) -> None:
    """``estimate +- margin`` (also ``+/-`` and the plus-minus sign, a unit before the sign,
    a line break) is a quote: its estimate and margin must stand in one row, as neighbours in
    a table row, as two fields of a JSON object; a margin without an estimate, code, and an
    estimate glued to a word are not quotes. A sign flipped or a margin typed by hand is
    named."""
    from chessmoe.report.quotes import check_documents, quoted_margins

    text = ("staged +1.7 +- 31.0 per game; regular-long +391.6 +/- 51.9 Elo;\n"
            "move 11.7 \u00b1 2.6; -442.8 Elo\n  +- 60.3 here; about +- 29; `1.0 +- 2.0`;\n"
            "weighted-a10 +- 3; 0.363 +- 0.013")
    found = [(q.estimate, q.margin, q.estimate_decimals, q.margin_decimals)
             for q in quoted_margins(text, "doc")]
    assert found == [(1.7, 31.0, 1, 1), (391.6, 51.9, 1, 1), (11.7, 2.6, 1, 1),
                     (-442.8, 60.3, 1, 1), (0.363, 0.013, 3, 3)]
    assert quoted_margins(text, "doc")[3].where == "doc:2"
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps({"matches": [{"elo": 1.7371924043128415,
                                                "margin": 30.963500568426817, "games": 400},
                                               {"elo": -442.75, "margin": 60.31}]}))
    table = tmp_path / "t.md"
    table.write_text("| arm | 0.363 +- 0.013 |\n| b | 11.7 | 3.1 | 2.6 |\n")
    good, bad = tmp_path / "good.md", tmp_path / "bad.md"
    good.write_text("staged +1.7 +- 31.0 and -442.8 +- 60.3 (per game); 0.363 +- 0.013\n")
    bad.write_text("beats it by 442.8 +- 60.3; staged +1.7 +- 30.9; 11.7 +- 2.6\n")
    assert check_documents([good], [summary, table]) == []
    assert [line.split(": ")[1] for line in check_documents([bad], [summary, table])] == [
        "'442.8 +- 60.3' is in no generated artefact or committed result",
        "'+1.7 +- 30.9' is in no generated artefact or committed result",
        "'11.7 +- 2.6' is in no generated artefact or committed result"]


def test_strength_figures_write_the_cutechess_numbers_they_draw(tmp_path: Path) -> None:
    """Fig. 6's CSV holds each match's W/D/L and cutechess's estimate: 0-6-6 (score 0.25)
    is -190.8 Elo, margin 144.3, as cutechess prints it ('Elo difference: -190.8 +/- 144.3')."""
    from chessmoe.records import TournamentSummary
    from chessmoe.report.figures.strength import fig06_ablation
    from tests.helpers import summary_match, tournament_summary

    def match(expert: str, wins: int, draws: int, losses: int) -> dict[str, object]:
        return summary_match(f"only-{expert}-b64-n100", wins, draws, losses, elo=0.0,
                             margin=0.0, labels={"kind": "ablation", "expert": expert,
                                                 "batch_size": 64, "nodes": 100,
                                                 "movetime": None})

    summary = TournamentSummary.from_json(tournament_summary(
        [match("middlegame", 0, 6, 6), match("opening", 3, 6, 3)]))
    artefact = fig06_ablation(summary, tmp_path)
    csv = tmp_path / "fig06-single-expert-nodes.csv"
    assert csv in artefact.paths
    data = pd.read_csv(csv).set_index("name")
    middle = data.loc["only-middlegame-b64-n100"]
    assert (middle["wins"], middle["draws"], middle["losses"]) == (0, 6, 6)
    assert middle["low"] == pytest.approx(-365.42, abs=0.01)
    assert middle["high"] == pytest.approx(-76.80, abs=0.01)
    assert data.loc["only-opening-b64-n100", "low"] == pytest.approx(-146.99, abs=0.01)
    assert set(data["interval"]) == {"per game (trinomial, as cutechess), 95 %"}


@pytest.mark.slow
def test_contrasts_table_and_arm_numbers_from_paired_openings(tmp_path: Path) -> None:
    """Arm a scores 1 a pair on openings 0-9, arm b 0.5 on 0-9 and 1 on 10: a minus b is
    +50 points on the 10 shared openings (no spread: the interval is the point); the arms'
    CSV holds each arm's pairs, openings and score."""
    from chessmoe._io.jsonl import append_record
    from chessmoe.records import GameRecord
    from chessmoe.report.figures.claims import fig_powered_arms, table_contrasts

    tournament = tmp_path / "powered"
    game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", (), (), (), 0.0)
    for arm, pairs in (("a-b8-n100", [(k, 1.0) for k in range(10)]),
                       ("b-b8-n100", [(k, 0.5) for k in range(10)] + [(10, 1.0)])):
        (tournament / arm).mkdir(parents=True)
        for pair, (opening, score) in enumerate(pairs):
            for first in (score, score):
                record = game.in_match(pair=pair, opening=opening, first_score=first)
                append_record(tournament / arm / "games-000.jsonl", record.to_json())
    table = table_contrasts(tournament, tmp_path / "out").table
    assert table is not None and list(table.index) == ["a-b8-n100"]
    row = table.iloc[0]
    assert row["arm b"] == "b-b8-n100" and row["shared openings"] == 10
    assert row["a minus b (points a pair)"] == pytest.approx(50.0)
    assert (row["low"], row["high"]) == pytest.approx((50.0, 50.0))
    fig_powered_arms(tournament, tmp_path / "out")
    arms = pd.read_csv(tmp_path / "out" / "powered-arms.csv").set_index("arm")
    assert arms.loc["b-b8-n100", "pairs"] == 11 and arms.loc["b-b8-n100", "games"] == 22
    assert arms.loc["b-b8-n100", "score"] == pytest.approx((10 * 0.5 + 1.0) / 11)
    # a replicated tournament's seed grid and head-to-head arms (spec kinds "seed",
    # "head-to-head") play other opponents: neither the forest plot nor the contrasts take them
    import json

    extras = {"a-seed10-vs-regular-b8-n100": "seed", "a-vs-regular-long-b8-n100": "head-to-head"}
    for arm in extras:
        (tournament / arm).mkdir()
        for pair in range(3):
            for _ in range(2):
                record = game.in_match(pair=pair, opening=pair, first_score=0.0)
                append_record(tournament / arm / "games-000.jsonl", record.to_json())
    (tournament / "spec.json").write_text(json.dumps({"matches": [
        {"name": name, "pairs": 3, "labels": {"kind": kind}} for name, kind in
        [("a-b8-n100", "method"), ("b-b8-n100", "method"), *extras.items()]]}))
    fig_powered_arms(tournament, tmp_path / "out")
    kept = pd.read_csv(tmp_path / "out" / "powered-arms.csv")
    assert sorted(kept["arm"]) == ["a-b8-n100", "b-b8-n100"]
    pairs_table = table_contrasts(tournament, tmp_path / "out").table
    assert pairs_table is not None and list(pairs_table.index) == ["a-b8-n100"]
    assert arms.loc["a-b8-n100", "openings"] == 10
