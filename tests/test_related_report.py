"""The related engines' report reads the committed runs, survives a missing engine and names a
cut metrics log."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from chessmoe._io.errors import KitError
from chessmoe.nets.related import runs
from chessmoe.report import artefacts, stems
from chessmoe.report.figures import related
from tests.helpers import summary_match, tournament_summary

RELATED = Path(__file__).resolve().parents[1] / "results" / "related"


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_loaders_read_the_committed_runs() -> None:
    mais = runs.load_mais(RELATED / "mais")
    assert mais is not None
    mais_lines = _lines(RELATED / "mais" / "metrics.jsonl")
    assert len(mais.batches) == len(mais_lines)  # batch 0 (untrained) + one per batch
    assert mais.batches[-1].games == mais.games == mais_lines[-1]["games"]
    assert mais.batches[0].fresh_mae is None
    assert mais.batches[-1].val_mae == mais_lines[-1]["val_mae"]
    summary = json.loads((RELATED / "mais" / "summary.json").read_text())
    assert mais.zero_predictor_mae == summary["val_mae_zero_predictor"]
    assert mais.vs_stockfish is not None and mais.vs_stockfish.games == 10
    assert [b.selfplay_val_mae for b in mais.batches] == [r.get("selfplay_val_mae")
                                                         for r in mais_lines]

    deep = runs.load_deepchess(RELATED / "deepchess")
    assert deep is not None
    comparator = [r for r in _lines(RELATED / "deepchess" / "metrics.jsonl")
                  if r["phase"] == "comparator"]
    assert len(deep.epochs) == deep.comparator_epochs == len(comparator)
    assert deep.epochs[-1].held_out_accuracy == comparator[-1]["held_out_accuracy"]
    assert deep.epochs[-1].train_accuracy == comparator[-1]["train_accuracy"]
    paired = json.loads((RELATED / "deepchess" / "material-paired.json").read_text())
    assert deep.paired_by_game is not None and deep.paired_by_position is not None
    assert (deep.paired_by_game.difference, deep.paired_by_game.half_width) == (
        paired["by_game"]["difference"], paired["by_game"]["half_width"])
    assert deep.paired_by_position.units == paired["by_position"]["units"]
    assert deep.paired_by_game.decided == paired["by_game"]["decided"]

    nt = runs.load_ntuple(RELATED / "ntuple-small")  # the small run kept its own match
    assert nt is not None and nt.vs_untrained is not None
    nt_lines = _lines(RELATED / "ntuple-small" / "metrics.jsonl")
    assert [i.iteration for i in nt.iterations] == [r["iteration"] for r in nt_lines]
    assert nt.iterations[0].train_agreement is None
    vs = json.loads((RELATED / "ntuple-small" / "trained-vs-untrained" / "summary.json")
                    .read_text())
    assert (nt.vs_untrained.wins, nt.vs_untrained.draws, nt.vs_untrained.losses) == (
        vs["wins"], vs["draws"], vs["losses"])
    assert nt.vs_untrained.score == vs["score"]
    # the pair-unit interval is read, not the per-game one
    assert nt.vs_untrained.pair_margin == vs["pentanomial_margin"] != vs["elo_margin"]
    assert nt.vs_untrained.pairs == vs["openings"]["pairs"]

    large = runs.load_ntuple(RELATED / "ntuple")  # the kit's engine: the large PeSTO run
    assert large is not None and large.vs_untrained is None
    test = json.loads((RELATED / "ntuple" / "test.json").read_text())
    assert large.test is not None and (large.start, large.depth) == ("pesto", 1)
    assert (large.test.start, large.test.trained, large.test.difference) == (
        test["start_agreement"], test["trained_agreement"], test["difference"])
    assert large.test.positions == test["positions"] == 5000


def _with_small_ntuple(tmp_path: Path) -> Path:
    """The committed runs, with the small n-tuple run (which played its own trained vs
    untrained match) as the engine."""
    for kind in ("deepchess", "mais"):
        shutil.copytree(RELATED / kind, tmp_path / kind)
    shutil.copytree(RELATED / "ntuple-small", tmp_path / "ntuple")
    return tmp_path


def test_table_rows_carry_the_runs_and_the_documents_numbers(tmp_path: Path) -> None:
    rows = {r["Engine"].split(" ")[0]: r
            for r in related.related_rows(_with_small_ntuple(tmp_path))}
    deep = runs.load_deepchess(RELATED / "deepchess")
    assert deep is not None
    assert f"{100 * deep.epochs[-1].held_out_accuracy:.1f} %" in rows["DeepChess"]["Ours"]
    assert rows["DeepChess"]["Document's"] == "98.2 % / 98.0 %"
    assert deep.paired_by_game is not None
    assert f"network minus material by game: {deep.paired_by_game.words()}" in " ".join(
        rows["DeepChess"].values())
    assert rows["n-tuple"]["Document's"] == "65.25 %"
    vs = json.loads((RELATED / "ntuple-small" / "trained-vs-untrained" / "summary.json")
                    .read_text())
    assert (f"{vs['pentanomial_elo']:+.0f} Elo +- {vs['pentanomial_margin']:.0f} (95 %, by "
            f"game pairs, {vs['openings']['pairs']} pairs)") in rows["n-tuple"]["Ours"]
    assert "750 positions/s" in rows["MAIS"]["Speed (ours vs document)"]
    mais_vs = json.loads((RELATED / "mais" / "vs-stockfish" / "summary.json").read_text())
    assert (f"{mais_vs['wins']}-{mais_vs['draws']}-{mais_vs['losses']} (W-D-L)"
            in rows["MAIS"]["Vs Stockfish"])
    # each match says the draw rules its summary records
    assert vs["adjudication"]["draw_rules"] == "cutechess"
    assert "400 nodes, cutechess draw rules) against" in rows["n-tuple"]["Ours"]
    assert rows["MAIS"]["Vs Stockfish"].endswith("; cutechess draw rules")


def test_paired_difference_words_by_hand() -> None:
    near = related.MaterialComparison(0.013, 0.0101, 2500)
    assert near.decided and near.words() == "+1.3 [+0.3, +2.3] points, decided"
    level = related.MaterialComparison(-0.004, 0.009, 2500)
    assert not level.decided and level.words() == "-0.4 [-1.3, +0.5] points, undecided"
    # one cluster of games holding most rows: no interval, not decided however far from 0
    giant = related.MaterialComparison(0.032, 0.006, 139, estimable=False, largest_share=0.915)
    assert not giant.decided
    assert giant.interval() == "+3.2 (no interval: 139 clusters, the largest 92 % of the rows)"


def test_the_deepchess_curve_table_reads_each_runs_paired_comparison(tmp_path: Path) -> None:
    curve = RELATED / "deepchess-curve"
    rows = related.deepchess_curve_rows(curve)
    assert [r["Training games"] for r in rows] == ["5,000", "20,000", "60,000", "90,000"]
    for row, n in zip(rows, (5000, 20000, 60000, 90000), strict=True):
        paired = json.loads((curve / f"games-{n}" / "material-paired.json").read_text())
        d, h = (100 * paired["by_game"][k] for k in ("difference", "half_width"))
        assert row["Network minus material, by game (points, 95 %)"].startswith(
            f"{d:+.1f} [{d - h:+.1f}, {d + h:+.1f}] (")
        assert f"{paired['by_position']['units']:,} clusters" in row[
            "Network minus material, by position (points, 95 %)"]
    table = related.table_deepchess_curve(curve, tmp_path / "out")
    assert table.stem == stems.DEEPCHESS_CURVE and all(p.is_file() for p in table.paths)
    # a curve whose runs predate the paired comparison says so; no curve at all says how
    shutil.copytree(curve, tmp_path / "old")
    data = json.loads((tmp_path / "old" / "learning_curve.json").read_text())
    for r in data["rows"]:
        del r["material_paired_by_game"], r["material_paired_by_position"]
    (tmp_path / "old" / "learning_curve.json").write_text(json.dumps(data))
    old = related.deepchess_curve_rows(tmp_path / "old")
    assert {r["Network minus material, by game (points, 95 %)"] for r in old} == {"not scored"}
    empty = related.table_deepchess_curve(tmp_path / "none", tmp_path / "out2")
    assert "learning curve not run" in empty.paths[1].read_text()


def test_a_match_summary_without_its_rules_says_they_are_not_recorded(tmp_path: Path) -> None:
    shutil.copytree(RELATED / "ntuple-small", tmp_path / "ntuple")
    path = tmp_path / "ntuple" / "vs-stockfish" / "summary.json"
    summary = json.loads(path.read_text())
    del summary["adjudication"]
    path.write_text(json.dumps(summary))
    rows = {r["Engine"].split(" ")[0]: r for r in related.related_rows(tmp_path)}
    assert rows["n-tuple"]["Vs Stockfish"].endswith("; draw rules not recorded")
    summary["adjudication"] = {"draw_rules": "claim"}
    path.write_text(json.dumps(summary))
    rows = {r["Engine"].split(" ")[0]: r for r in related.related_rows(tmp_path)}
    assert rows["n-tuple"]["Vs Stockfish"].endswith("; claim draw rules")


@pytest.mark.slow
def test_a_missing_engine_is_not_trained(tmp_path: Path) -> None:
    shutil.copytree(RELATED / "deepchess", tmp_path / "deepchess")
    assert runs.load_mais(tmp_path / "mais") is None
    rows = {r["Engine"].split(" ")[0]: r for r in related.related_rows(tmp_path)}
    assert rows["MAIS"]["Ours"] == rows["n-tuple"]["Ours"] == "not trained"
    assert rows["DeepChess"]["Ours"] != "not trained"
    fig = related.fig_related_learning_curves(tmp_path, tmp_path / "out")
    assert all(p.is_file() for p in fig.paths)


@pytest.mark.slow
def test_figure_and_table_are_written_under_the_promised_stems(tmp_path: Path) -> None:
    table = related.table_related_engines(RELATED, tmp_path)
    fig = related.fig_related_learning_curves(RELATED, tmp_path)
    curve = related.table_deepchess_curve(RELATED / "deepchess-curve", tmp_path)
    assert (table.stem, fig.stem) == (stems.RELATED_ENGINES, stems.RELATED_LEARNING_CURVES)
    promised = artefacts.promised("13_related_engines.ipynb", tmp_path)
    assert sorted(promised) == sorted([*table.paths, *fig.paths, *curve.paths])
    assert all(p.stat().st_size > 0 for p in promised)
    assert len(table.table) == 3


def test_a_cut_metrics_log_is_named(tmp_path: Path) -> None:
    shutil.copytree(RELATED / "mais", tmp_path / "mais")
    log = tmp_path / "mais" / "metrics.jsonl"
    text = log.read_text()
    log.write_text(text[: len(text) - 40])  # the last record cut mid-line
    last = len(text.splitlines())
    with pytest.raises(KitError, match=rf"metrics\.jsonl.*line\(s\) \[{last}\]"):
        runs.load_mais(tmp_path / "mais")


def _mais_run(root: Path) -> None:
    """A MAIS run of two batches measured on the self-play split (numbers by hand)."""
    (root / "mais").mkdir(parents=True)
    lines = [{"batch": 0, "games": 0, "val_mae": 900.0},
             {"batch": 1, "games": 10, "val_mae": 800.0, "fresh_mae": 700.0,
              "selfplay_val_mae": 300.0, "selfplay_zero_mae": 500.0,
              "selfplay_naive_mae": 450.0},
             {"batch": 2, "games": 20, "val_mae": 820.0, "fresh_mae": 650.0,
              "selfplay_val_mae": 320.0, "selfplay_zero_mae": 510.0,
              "selfplay_naive_mae": 440.0}]
    (root / "mais" / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    (root / "mais" / "summary.json").write_text(json.dumps(
        {"games": 20, "val_mae_zero_predictor": 850.0, "nps": 1000.0,
         "selfplay_naive_multiple": 5.0}))


def test_mais_on_the_self_play_split_names_its_baselines(tmp_path: Path) -> None:
    _mais_run(tmp_path)
    mais = runs.load_mais(tmp_path / "mais")
    assert mais is not None and [b.games for b in mais.selfplay] == [10, 20]
    row = {r["Engine"].split(" ")[0]: r for r in related.related_rows(tmp_path)}["MAIS"]
    assert row["Ours"] == ("self-play validation MAE 320 after 20 games (lowest 300 after "
                           "10, on the split as it grew); on human positions 820")
    assert row["Baselines"] == ("on the same self-play positions: zero predictor 510, "
                                "5 x naive evaluation 440")
    assert row["Against its baseline (related tournament)"] == "not played"
    fig = related.fig_related_learning_curves(tmp_path, tmp_path / "out")
    assert all(p.is_file() for p in fig.paths)


def _related_tournament(root: Path, planned: dict[str, int] | None = None,
                        **counts: tuple[int, int, int, float, float]) -> Path:
    out = root / "tournaments" / "related"
    out.mkdir(parents=True)
    matches = [summary_match(name, w, d, lo, elo=elo, margin=margin,
                             planned_games=(planned or {}).get(name, w + d + lo))
               for name, (w, d, lo, elo, margin) in counts.items()]
    (out / "summary.json").write_text(json.dumps(tournament_summary(matches)))
    return out


def test_the_related_tournament_fills_each_engines_baseline_cell(tmp_path: Path) -> None:
    """Scores by hand: 120-60-20 is 75 %; the n-tuple target is an interval above 50 %
    (Elo's lower end above 0); MAIS's is a score of 55 %."""
    _mais_run(tmp_path)
    shutil.copytree(RELATED / "ntuple", tmp_path / "ntuple")
    _related_tournament(tmp_path, **{"ntuple-vs-pesto": (400, 300, 300, 34.9, 17.0),
                                     "mais-vs-mais-at-200": (80, 16, 104, -41.9, 46.7),
                                     "deepchess-vs-material": (120, 60, 20, 190.8, 50.0)})
    matches = runs.load_related_matches(tmp_path / "tournaments" / "related")
    assert matches["deepchess-vs-material"].score == 0.75
    rows = {r["Engine"].split(" ")[0]: r
            for r in related.related_rows(tmp_path, tmp_path / "tournaments" / "related")}
    cell = "Against its baseline (related tournament)"
    assert rows["n-tuple"][cell] == (
        "vs PeSTO, 400 nodes: 400-300-300, 55.0 % over 1000 games, +35 +/- 17 Elo "
        "per game (target: interval above 50 %: met)")
    # the score's own interval (the trinomial ends), not the Elo margin converted back
    assert rows["MAIS"][cell].endswith("44.0 % over 200 games, -42 +/- 47 Elo per game "
                                       "(target 55 %: not met, decided (score interval "
                                       "37.4 %-50.6 %))")
    assert rows["DeepChess"]["Ours"] == "not trained"  # no run: its match is not shown
    # an interval reaching 0 is not "above 50 %"
    _related_tournament(tmp_path / "b", **{"ntuple-vs-pesto": (400, 300, 300, 16.0, 17.0)})
    shutil.copytree(RELATED / "ntuple", tmp_path / "b" / "ntuple")
    rows = {r["Engine"].split(" ")[0]: r for r in related.related_rows(
        tmp_path / "b", tmp_path / "b" / "tournaments" / "related")}
    assert rows["n-tuple"][cell].endswith("(target: interval above 50 %: not met)")


def test_a_match_repeating_a_documents_experiment_is_read_against_its_score(
        tmp_path: Path) -> None:
    """d = 2 against d = 1 is the document's Table IX (57.65 %, +54 Elo): the cell says
    whether the match decides anything and whether the document's score lies in its
    interval, and names no target the issue did not set."""
    cell = "Against its baseline (related tournament)"
    for root, counts, words in (
            ("a", (423, 121, 456, -11.5, 20.2),
             "not decided; the document's 57.65 % (+54 Elo) lies outside the interval"),
            ("b", (560, 120, 320, 60.0, 20.0),
             "decided; the document's 57.65 % (+54 Elo) lies inside the interval"),
            ("c", (600, 120, 280, 115.0, 20.0),
             "decided; the document's 57.65 % (+54 Elo) lies outside the interval")):
        _related_tournament(tmp_path / root, **{"ntuple-d2-vs-ntuple": counts})
        shutil.copytree(RELATED / "ntuple", tmp_path / root / "ntuple")
        rows = {r["Engine"].split(" ")[0]: r for r in related.related_rows(
            tmp_path / root, tmp_path / root / "tournaments" / "related")}
        assert rows["n-tuple"][cell].endswith(
            f"(document, 2-ply vs 1-ply training, Table IX: {words})")
        assert "target" not in rows["n-tuple"][cell]


def test_a_match_still_being_played_shows_its_games_and_decides_nothing(
        tmp_path: Path) -> None:
    """60 of 200 planned games at 75 %: the cell gives the numbers so far and no verdict; the
    finished match beside it keeps its verdict."""
    _mais_run(tmp_path)
    _related_tournament(tmp_path, planned={"mais-vs-mais-at-200": 200},
                        **{"mais-vs-mais-at-200": (40, 10, 10, 190.8, 90.0),
                           "ntuple-vs-pesto": (400, 300, 300, 34.9, 17.0)})
    matches = runs.load_related_matches(tmp_path / "tournaments" / "related")
    assert matches["mais-vs-mais-at-200"].partial and not matches["ntuple-vs-pesto"].partial
    rows = {r["Engine"].split(" ")[0]: r
            for r in related.related_rows(tmp_path, tmp_path / "tournaments" / "related")}
    assert rows["MAIS"]["Against its baseline (related tournament)"].endswith(
        "75.0 % over 60 games, +191 +/- 90 Elo per game (target 55 %: undecided, 60 of 200 games "
        "played so far)")


def test_a_score_target_is_read_against_the_score_interval_or_the_sprt(
        tmp_path: Path) -> None:
    """Issue 43: 54.25 % with +29.6 +- 37.0 Elo is no verdict on a 55 % target (its score
    interval, 48.9-59.5 % by hand, holds 55 %: the point score decides nothing); a match run
    to a sequential test says the test's decision (stronger or not shown stronger) beside
    the target's reading from the score interval, and is in progress until it decides."""
    _mais_run(tmp_path)
    out = _related_tournament(tmp_path, **{"mais-vs-mais-at-200": (67, 83, 50, 29.6, 37.0),
                                           "mais-vs-mais-at-200-sprt": (90, 50, 60, 52.5,
                                                                        38.0)})
    cell = "Against its baseline (related tournament)"
    summary = json.loads((out / "summary.json").read_text())
    test = {"elo0": 0.0, "elo1": 35.0, "alpha": 0.05, "beta": 0.05, "llr": 3.1,
            "lower": -2.94, "upper": 2.94, "state": "H1 accepted"}
    for state, llr, words in (
            # the test decides strength, not a 55 % score: the target reads the interval
            ("H1 accepted", 3.1, "not decided (score interval 51.6 %-63.4 %); the SPRT "
             "accepts H1: stronger"),
            ("H0 accepted", -3.0, "not decided (score interval 51.6 %-63.4 %); the SPRT "
             "accepts H0: not shown stronger"),
            ("continue", 1.0, "undecided, 200 games played so far, at most 2000")):
        summary["matches"][1].update(planned_games=2000,
                                     sprt={**test, "state": state, "llr": llr})
        (out / "summary.json").write_text(json.dumps(summary))
        verdicts = related.match_verdicts(
            "mais", runs.load_related_matches(tmp_path / "tournaments" / "related"))
        assert verdicts["mais-vs-mais-at-200"].endswith(
            "54.2 % over 200 games, +30 +/- 37 Elo per game (target 55 %: not decided (score "
            "interval 49.0 %-59.5 %))")
        assert verdicts["mais-vs-mais-at-200-sprt"].endswith(
            f"(target 55 %: {words}; SPRT H0 +0 Elo against H1 +35 Elo, alpha 0.05, beta "
            f"0.05, LLR {llr:.2f} in [-2.94, 2.94])")
        row = {r["Engine"].split(" ")[0]: r for r in related.related_rows(
            tmp_path, tmp_path / "tournaments" / "related")}["MAIS"]
        assert row[cell] == "; ".join(verdicts.values())


def test_a_deepchess_learning_curve_is_read_in_game_order(tmp_path: Path) -> None:
    curve = tmp_path / "deepchess-curve"
    curve.mkdir()
    rows = [{"train_games": 20000, "held_out_accuracy_last": 0.7,
             "held_out_position_accuracy_last": 0.9, "material_held_out_accuracy": 0.69},
            {"train_games": 5000, "held_out_accuracy_last": 0.65,
             "held_out_position_accuracy_last": None, "material_held_out_accuracy": 0.69}]
    (curve / "learning_curve.json").write_text(json.dumps({"rows": rows}))
    points = runs.load_deepchess_curve(curve)
    assert [p.train_games for p in points] == [5000, 20000]
    assert points[0].held_out_position_accuracy is None
    assert points[1].material_held_out_accuracy == 0.69
    assert runs.load_deepchess_curve(tmp_path / "absent") == ()
    fig = related.fig_related_learning_curves(tmp_path, tmp_path / "out")
    assert all(p.is_file() for p in fig.paths)


def test_the_ntuple_row_shows_the_test_set_apart_when_it_was_scored(tmp_path: Path) -> None:
    shutil.copytree(RELATED / "ntuple-small", tmp_path / "ntuple")
    row = {r["Engine"].split(" ")[0]: r for r in related.related_rows(tmp_path)}["n-tuple"]
    assert "test set apart" not in row["Ours"]  # the small run predates it
    (tmp_path / "ntuple" / "test.json").write_text(json.dumps({
        "positions": 5000, "source": "sample", "source_name": "selfplay-sample",
        "start_agreement": 0.3012, "start_half_width": 0.0121, "trained_agreement": 0.3456,
        "trained_half_width": 0.0125, "difference": 0.0444, "difference_half_width": 0.0101}))
    row = {r["Engine"].split(" ")[0]: r for r in related.related_rows(tmp_path)}["n-tuple"]
    assert ("test set apart (5000 positions of selfplay-sample): start 0.301 +- 0.012, "
            "trained 0.346 +- 0.013, difference +0.044 +- 0.010 (95 %, by position)"
            ) in row["Ours"]


def test_the_mais_row_scores_its_nets_on_the_one_final_split() -> None:
    fixed = json.loads((RELATED / "mais" / "fixed-split.json").read_text())
    row = {r["Engine"].split(" ")[0]: r for r in related.related_rows(RELATED)}["MAIS"]
    early, final = fixed["networks"]
    assert (f"on the one final split ({fixed['split']['positions']:,} positions) "
            f"{early['mae']:.0f} after {early['games']:,} games, {final['mae']:.0f} after "
            f"{final['games']:,} games") in row["Ours"]


def test_an_ntuple_run_without_its_own_match_shows_its_agreements_and_the_d2_curve(
        tmp_path: Path) -> None:
    """The large run plays the related tournament, not a trained-vs-untrained match of its
    own: its row reads the held-out agreement of the start and of the kept iteration, and the
    figure draws a d = 2 run's held-out curve (still training: metrics only) beside it."""
    shutil.copytree(RELATED / "ntuple", tmp_path / "ntuple")
    shutil.rmtree(tmp_path / "ntuple" / "trained-vs-untrained", ignore_errors=True)
    nt = runs.load_ntuple(tmp_path / "ntuple")
    assert nt is not None and nt.vs_untrained is None
    lines = _lines(RELATED / "ntuple" / "metrics.jsonl")
    best = json.loads((RELATED / "ntuple" / "config.json").read_text())["best_iteration"]
    kept = next(r for r in lines if r["iteration"] == best)
    row = {r["Engine"].split(" ")[0]: r for r in related.related_rows(tmp_path)}["n-tuple"]
    assert (f"held-out agreement with Stockfish's move {lines[0]['held_out_agreement']:.3f} "
            f"(start) -> {kept['held_out_agreement']:.3f} (iteration {best}, chosen on it)"
            ) in row["Ours"]
    assert "untrained start" not in row["Ours"]
    d2 = tmp_path / "ntuple-d2"
    d2.mkdir()
    (d2 / "metrics.jsonl").write_text(
        json.dumps({"iteration": 0, "held_out_agreement": 0.35}) + "\n"
        + json.dumps({"iteration": 1, "held_out_agreement": 0.42}) + "\n")
    fig = related.fig_related_learning_curves(tmp_path, tmp_path / "out")
    assert fig.figure is not None
    curves = [list(line.get_ydata()) for line in fig.figure.axes[1].get_lines()]
    assert [35.0, 42.0] in curves
    # the committed run's test set apart is drawn at the start (0) and the kept iteration
    shutil.copytree(RELATED / "ntuple", tmp_path / "large" / "ntuple")
    large = related.fig_related_learning_curves(tmp_path / "large", tmp_path / "out2")
    test = json.loads((RELATED / "ntuple" / "test.json").read_text())
    best = json.loads((RELATED / "ntuple" / "config.json").read_text())["best_iteration"]
    drawn = [(list(line.get_xdata()), list(line.get_ydata()))
             for line in large.figure.axes[1].get_lines()]
    assert ([0, best], [100 * test["start_agreement"], 100 * test["trained_agreement"]]
            ) in drawn


def test_a_finished_d2_run_joins_the_ntuple_row_and_draws_its_test_set(tmp_path: Path) -> None:
    """The committed d = 2 run: its held-out and test-set agreements are in the n-tuple row
    (numbers read from its own files) and its test set is drawn; while it trains (no
    weights yet) the row says nothing of it."""
    shutil.copytree(RELATED / "ntuple", tmp_path / "ntuple")
    shutil.copytree(RELATED / "ntuple-d2", tmp_path / "ntuple-d2")
    cfg = json.loads((RELATED / "ntuple-d2" / "config.json").read_text())
    test = json.loads((RELATED / "ntuple-d2" / "test.json").read_text())
    lines = _lines(RELATED / "ntuple-d2" / "metrics.jsonl")
    kept = next(r for r in lines if r["iteration"] == cfg["best_iteration"])
    assert cfg["train"]["depth"] == 2
    row = {r["Engine"].split(" ")[0]: r for r in related.related_rows(tmp_path)}["n-tuple"]
    words = row["Ours"].split("the d = 2 run (ntuple-d2, same start and positions, ")[1]
    assert words.startswith(f"{len(lines) - 1} of {cfg['train']['iterations']} passes): "
                            f"held-out agreement with Stockfish's move "
                            f"{lines[0]['held_out_agreement']:.3f} (start) -> "
                            f"{kept['held_out_agreement']:.3f} (iteration "
                            f"{cfg['best_iteration']}, chosen on it)")
    assert (f"start {test['start_agreement']:.3f} +- {test['start_half_width']:.3f}, trained "
            f"{test['trained_agreement']:.3f} +- {test['trained_half_width']:.3f}, difference "
            f"{test['difference']:+.3f} +- {test['difference_half_width']:.3f}") in words
    fig = related.fig_related_learning_curves(tmp_path, tmp_path / "out")
    drawn = [(list(line.get_xdata()), list(line.get_ydata()))
             for line in fig.figure.axes[1].get_lines()]
    assert ([0, cfg["best_iteration"]],
            [100 * test["start_agreement"], 100 * test["trained_agreement"]]) in drawn
    (tmp_path / "ntuple-d2" / "weights.npz").unlink()  # as while it was training
    row = {r["Engine"].split(" ")[0]: r for r in related.related_rows(tmp_path)}["n-tuple"]
    assert "d = 2 run" not in row["Ours"]


def test_an_ntuple_run_whose_log_lacks_the_kept_iteration_is_named(tmp_path: Path) -> None:
    shutil.copytree(RELATED / "ntuple", tmp_path / "ntuple")
    log = tmp_path / "ntuple" / "metrics.jsonl"
    log.write_text(log.read_text().splitlines()[0] + "\n")  # iteration 0 only
    with pytest.raises(KitError, match=r"metrics\.jsonl: no record of the kept iteration 5"):
        runs.load_ntuple(tmp_path / "ntuple")


AGREEING = ("docs/evidence/related-engines.md", "results/tournaments/related/README.md",
            "figures/related-engines.md")


def test_the_documents_state_each_related_match_as_the_computed_table_does() -> None:
    """Issue 43: every document that states a related match states it in the computed
    table's words (match_verdicts over the committed summary: W-D-L, score, Elo and the
    target's verdict), so none can call a target met that the table does not; a match
    still being played is named in the prose documents and tabulated in the figure."""
    root = Path(__file__).resolve().parents[1]
    matches = runs.load_related_matches(root / "results" / "tournaments" / "related")
    texts = {name: " ".join((root / name).read_text().split()) for name in AGREEING}
    checked = 0
    for kind in related.RELATED_TARGETS:
        for name, cell in related.match_verdicts(kind, matches).items():
            for doc, text in texts.items():
                if matches[name].partial and doc != "figures/related-engines.md":
                    assert f"`{name}`" in text, (doc, name)
                else:
                    assert cell in text, (doc, name, cell)
            checked += 1
    assert checked >= 7


def test_deepchess_level_material_words(tmp_path: Path) -> None:
    """level-material.json in the DeepChess cell: the network's accuracy where material is
    level, with its paired difference; a block without a usable interval says so."""
    block = {"rows": 370, "units": 178, "network": 0.619, "material": 0.5,
             "difference": 0.119, "half_width": 0.07, "largest_cluster": 6}
    flat = {**block, "rows": 40000, "units": 32, "network": 0.661, "difference": 0.161,
            "estimable": False, "largest_cluster": 39930}
    path = tmp_path / "level-material.json"
    path.write_text(json.dumps({"by_game": {"material_tied": block, "level_draw": flat}}))
    assert related._level_words(path) == (
        "where material is level (the two positions' balances equal; material scores 50 % "
        "there): by game 61.9 % on 370 rows of the summary's pairs (network minus material "
        "+11.9 [+4.9, +18.9] points, decided), 66.1 % on 40,000 rows of a larger draw "
        "(network minus material +16.1 (no interval: 32 clusters, the largest 100 % of the "
        "rows) points, undecided)")
    assert related._level_words(tmp_path / "absent.json") == ""


def test_a_score_interval_is_the_scores_own() -> None:
    """The committed DeepChess match with its own quiescence, 139-16-45 over 200 games: the
    score's 95 % interval with a game as the unit is 67.7-79.3 %, not the Elo margin
    (+177.2 +- 52.3) converted back to scores (67.2-78.9 %)."""
    from chessmoe.elo import score_from_elo

    m = runs.load_related_matches(RELATED.parent / "tournaments" / "related")[
        "deepchess-quiet-vs-material"]
    assert (m.wins, m.draws, m.losses) == (139, 16, 45)
    low, high = m.score_bounds()
    assert (f"{100 * low:.1f}", f"{100 * high:.1f}") == ("67.7", "79.3")
    assert (f"{100 * score_from_elo(m.elo - m.margin):.1f}",
            f"{100 * score_from_elo(m.elo + m.margin):.1f}") == ("67.2", "78.9")
    # by hand: mean 0.735, per-game variance 0.17478, z = 1.9572 (cutechess's)
    half = 1.9571619316560245 * math.sqrt((139 * 0.265**2 + 16 * 0.235**2 + 45 * 0.735**2)
                                          / 200 / 200)
    assert low == pytest.approx(0.735 - half) and high == pytest.approx(0.735 + half)


def test_a_match_stopped_by_its_sprt_reports_the_estimate_read_as_stopped() -> None:
    """Issue 58: the MAIS SPRT (H1 accepted after 78 pairs) printed only its fixed-length
    +58 +/- 44, which leans away from H0 after a stop at H1; its cell labels that and gives
    the estimate read as stopped (chessmoe.sequential), +48 [+5, +91]. A fixed-length match
    keeps its plain interval."""
    matches = runs.load_related_matches(RELATED.parent / "tournaments" / "related")
    stopped = matches["mais-vs-mais-at-200-sprt"]
    assert stopped.stopped is not None and stopped.stopped.accepted == "H1"
    assert (round(stopped.stopped.elo), round(stopped.stopped.low),
            round(stopped.stopped.high)) == (48, 5, 91)
    cells = related.match_verdicts("mais", matches)
    assert ("+58 +/- 44 Elo per game at fixed length, biased by the stop (read as stopped at "
            "H1: +48 [+5, +91] Elo) (target 55 %") in cells["mais-vs-mais-at-200-sprt"]
    assert matches["mais-vs-mais-at-200"].stopped is None
    assert "biased by the stop" not in cells["mais-vs-mais-at-200"]
