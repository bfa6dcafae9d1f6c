"""Runs in progress (chessmoe.played, chessmoe.nets.bundles, chessmoe.report.progress):
hand-computed rates and hours left from records written here, the finished runs left out, and
the README's block kept current."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from chessmoe import played
from chessmoe._io.jsonl import append_record
from chessmoe.nets import bundles
from chessmoe.records import GameRecord, TournamentMatch, TournamentSummary, summarise
from chessmoe.report import answer, progress, summary

ROOT = Path(__file__).resolve().parents[1]


def _shard(path: Path, seconds: list[float], first_slot: int = 0,
           scores: list[float] | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", (), (), (), 0.0)
    for k, s in enumerate(seconds):
        slot = first_slot + k
        record = game.in_match(pair=slot // 2, game=slot % 2, slot=f"{slot:05d}",
                               first_score=1.0 if scores is None else scores[k], seconds=s)
        append_record(path, record.to_json())


def _spec(directory: Path, matches: list[tuple[str, int, bool]], lanes: int | None) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    spec: dict[str, object] = {"name": directory.name, "matches": [
        {"name": name, "pairs": pairs, **({"sprt": {"elo0": 0, "elo1": 35}} if sprt else {})}
        for name, pairs, sprt in matches]}
    if lanes is not None:
        spec["games_at_once"] = lanes
    (directory / "spec.json").write_text(json.dumps(spec))


@pytest.mark.parametrize(("durations", "lanes", "expected"), [
    ([10, 20, 30, 40], 2, 60.0),  # lanes: 10+30=40 then +... -> [10,20] -> 30 on 10 -> 40 on 20
    ([10, 20, 30, 40], 4, 40.0),  # all at once: the longest
    ([10, 20, 30, 40], 1, 100.0),  # one lane: the sum
    ([5, 5, 5], 8, 5.0),  # more lanes than games
    ([], 3, 0.0),
])
def test_makespan_is_greedy_list_scheduling(durations: list[float], lanes: int,
                                            expected: float) -> None:
    assert played.makespan(durations, lanes) == expected


def test_a_tournament_in_progress_is_timed_by_its_shards_makespan(tmp_path: Path) -> None:
    t = tmp_path / "tournaments" / "grid"
    _spec(t, [("done", 1, False), ("half", 2, False), ("later", 3, False),
              ("seq", 5, True)], lanes=2)
    _shard(t / "done" / "games-000.jsonl", [7, 9])  # complete: its rate does not count
    _shard(t / "half" / "games-000.jsonl", [10, 20])  # 2 of 4 games, makespan 20
    _shard(t / "seq" / "games-000.jsonl", [30, 10, 10, 10])  # 4 of 10, makespan [30|10,10,10]=30
    [row] = played.tournaments_in_progress(tmp_path)
    assert (row.name, row.games, row.planned, row.matches, row.complete) == ("grid", 8, 22, 4, 1)
    # unfinished begun matches: 20 + 30 seconds over 2 + 4 games
    assert row.seconds_per_game == pytest.approx(50 / 6)
    # half: 2 left at 10 s; seq: 6 left at 7.5 s; later: 6 games untimed
    assert row.seconds_left == pytest.approx(2 * 10 + 6 * 7.5)
    assert row.untimed == 6 and row.open_sprt == 1
    text = "\n".join(progress.progress_lines(tmp_path))
    assert "| tournament `grid` | 8 games (1 of 4 matches complete) | 22 games | 8 s a game |" \
        in text
    # "done" (complete, makespan 9 s over 2 games on 2 lanes) times the 6 games not begun
    assert row.finished_rate == pytest.approx(4.5)
    assert "at most 0.0 h of one worker (1 SPRT match stops at its decision), and 6 games " \
           "of matches not begun (no rate of their own yet; about 0.0 h at its complete " \
           "matches' 4.5 s a game)" in text


@pytest.mark.parametrize(("pairs_each", "decided"), [(20, True), (10, False)])
def test_an_sprt_match_its_games_decide_is_complete(tmp_path: Path, pairs_each: int,
                                                     decided: bool) -> None:
    """A sequential match stops at its test's decision, far below its cap: 20 pairs won and
    lost plus 20 won and drawn (pentanomial 0, 0, 20, 20, 0: LLR 3.83 against the bounds
    +-2.94 of H0 0 / H1 +35 Elo) decide it, so the tournament is finished; half as many (LLR
    1.91) do not, and the cap still counts as at most what is left."""
    t = tmp_path / "tournaments" / "related"
    _spec(t, [("fixed", 1, False), ("seq", 1000, True)], lanes=None)
    _shard(t / "fixed" / "games-000.jsonl", [5, 5])
    scores = [1.0, 0.0] * pairs_each + [1.0, 0.5] * pairs_each
    _shard(t / "seq" / "games-000.jsonl", [10.0] * len(scores), scores=scores)
    found = played.tournaments_in_progress(tmp_path)
    if decided:
        assert found == []
    else:
        [row] = found
        assert (row.games, row.planned, row.complete, row.open_sprt) == (42, 2002, 1, 1)
        assert row.seconds_left == pytest.approx((2000 - 40) * 10.0)


def test_a_finished_design_with_a_new_match_says_only_what_is_not_begun(tmp_path: Path) -> None:
    """Every begun match complete and a match added (none of its games played): nothing is
    left at a measured rate, so the row names only the games not begun, not '0.0 h', timed
    at the complete match's rate (one lane: 1,800 s over 2 games, so 4 games are 1.0 h);
    without any game played there is no rate at all."""
    t = tmp_path / "tournaments" / "grown"
    _spec(t, [("done", 1, False), ("added", 2, False)], lanes=1)
    _shard(t / "done" / "games-000.jsonl", [700, 1100])
    [row] = played.tournaments_in_progress(tmp_path)
    assert row.seconds_left == 0 and row.untimed == 4
    text = "\n".join(progress.progress_lines(tmp_path))
    assert ("| tournament `grown` | 2 games (1 of 2 matches complete) | 6 games | 900.0 s a "
            "game (its complete matches) | 4 games of matches not begun (no rate of their own "
            "yet; about 1.0 h at its complete matches' 900.0 s a game) |") in text
    (t / "done" / "games-000.jsonl").unlink()
    text = "\n".join(progress.progress_lines(tmp_path))
    assert ("| tournament `grown` | 0 games (0 of 2 matches complete) | 6 games | no game yet | "
            "6 games of matches not begun (no rate of their own yet) |") in text


def test_matches_the_summary_lists_but_the_spec_does_not_yet_are_planned(
        tmp_path: Path) -> None:
    """A design that registers its matches one at a time (``converged``: a match joins
    ``spec.json`` once its networks are trained) still plans the others, which its
    ``summary.json`` lists: the tournament is not complete while they are unplayed, and the
    figures' ledger counts them. The spec's own pairs win where both name a match."""
    from chessmoe.report import ledger

    t = tmp_path / "tournaments" / "converged"
    _spec(t, [("registered", 1, False)], lanes=1)
    _shard(t / "registered" / "games-000.jsonl", [5, 5])
    summary = TournamentSummary("converged", "embedded", None, 1, {}, tuple(
        TournamentMatch(name, (), planned, summarise([]))
        for name, planned in (("registered", 400), ("waiting", 400))), False)
    (t / "summary.json").write_text(json.dumps(summary.to_json()))
    assert played.planned_pairs(t, 7) == {"registered": 1, "waiting": 200}
    assert played.planned_games(t) == 2 * (1 + 200)
    assert ledger._planned_matches(t) == 2
    [row] = played.tournaments_in_progress(tmp_path)
    assert (row.games, row.planned, row.matches, row.complete, row.untimed,
            row.unregistered) == (2, 402, 2, 1, 400, 400)
    assert ("400 games of matches not begun (400 of them in matches not registered yet: each "
            "waits for its networks; no rate of their own yet; then about 0.6 h at its "
            "complete matches' 5.0 s a game)") in "\n".join(progress.progress_lines(tmp_path))
    (t / "summary.json").write_text("{not json")  # unreadable: the spec is the whole plan
    assert played.planned_pairs(t, 7) == {"registered": 1}
    assert played.tournaments_in_progress(tmp_path) == []


def test_runs_a_begun_design_owes_are_listed_as_not_begun(tmp_path: Path) -> None:
    """A mixture bundle in training lists its experts not started (the phases its dataset's
    manifest has), and a profile that began the converged design lists its bundles not
    started; a finished bundle lists nothing."""
    small = tmp_path / "experts" / "small"
    config = {"train": {"iterations": 100},
              "data": {"dataset_dir": "data/datasets/tiny", "definition": "lichess"}}
    for expert in ("phase0", "phase1"):
        (small / "staged-converged" / expert).mkdir(parents=True)
        (small / "staged-converged" / expert / "config.json").write_text(json.dumps(config))
    (small / "staged" / "phase0").mkdir(parents=True)
    (small / "staged" / "phase0" / "config.json").write_text(json.dumps(config))
    (small / "staged" / "manifest.json").write_text("{}")
    (small / "regular-converged").mkdir()
    manifest = tmp_path / "datasets" / "tiny" / "manifest.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"datasets": {"lichess": {"train": {
        s: {} for s in ("endgame", "middlegame", "no-phases", "opening")}}}}))
    assert progress.training_not_begun(tmp_path) == [
        ("small/staged-converged/phase2", "not begun"),
        ("small/weighted-a10-converged", "not begun")]
    # a staged expert in its first of three stages has two more to train
    (small / "staged-converged" / "phase1" / "stages" / "stage1-opening").mkdir(parents=True)
    assert progress.training_not_begun(tmp_path)[0] == (
        "small/staged-converged/phase1", "2 more stages not begun")
    assert ("| training `small/weighted-a10-converged` | not begun | - | no rate yet | "
            "not timed |") in progress.progress_lines(tmp_path)
    # a staged bundle in its first expert's first stage: no expert has its config.json yet
    first = small / "staged-seed12" / "phase0" / "stages" / "stage1-middlegame"
    first.mkdir(parents=True)
    (first / "config.json").write_text(json.dumps(config))
    assert [e for e in progress.training_not_begun(tmp_path) if "seed12" in e[0]] == [
        ("small/staged-seed12/phase0", "2 more stages not begun"),
        ("small/staged-seed12/phase1", "not begun"), ("small/staged-seed12/phase2", "not begun")]


def test_without_games_at_once_one_game_is_played_at_a_time(tmp_path: Path) -> None:
    t = tmp_path / "tournaments" / "serial"
    _spec(t, [("m", 2, False)], lanes=None)
    _shard(t / "m" / "games-000.jsonl", [10, 20, 30])
    [row] = played.tournaments_in_progress(tmp_path)
    assert row.seconds_per_game == pytest.approx(20.0) and row.seconds_left == pytest.approx(20)


def test_finished_runs_and_unreadable_specs_are_not_in_progress(tmp_path: Path) -> None:
    t = tmp_path / "tournaments"
    _spec(t / "full", [("m", 1, False)], lanes=4)
    _shard(t / "full" / "m" / "games-000.jsonl", [1, 2])
    (t / "nospec" / "m").mkdir(parents=True)
    _shard(t / "nospec" / "m" / "games-000.jsonl", [1])
    assert played.tournaments_in_progress(tmp_path) == []
    assert progress.progress_lines(tmp_path)[0].startswith("No run is in progress")


def _training(part: Path, planned: int, log: list[tuple[int, float]]) -> None:
    part.mkdir(parents=True)
    (part / "config.json").write_text(json.dumps({"train": {"iterations": planned}}))
    lines = [json.dumps({"iteration": i, "time": t, "set": "train"}) for i, t in log]
    (part / "metrics.jsonl").write_text("\n".join([*lines, "{torn"]) + "\n")


def test_a_training_run_without_a_manifest_reports_its_rate(tmp_path: Path) -> None:
    bundle = tmp_path / "experts" / "small" / "wide"
    # a resumed log repeats iterations: the latest iteration and its time count
    _training(bundle / "baseline", 1000, [(100, 250.0), (200, 500.0), (100, 260.0)])
    finished = tmp_path / "experts" / "small" / "staged"
    _training(finished / "phase0", 1000, [(100, 10.0)])
    (finished / "manifest.json").write_text("{}")
    [run] = bundles.training_in_progress(tmp_path)
    assert (run.name, run.iterations, run.planned) == ("small/wide/baseline", 200, 1000)
    assert run.seconds_per_iteration == pytest.approx(2.5)
    assert run.seconds_left == pytest.approx(800 * 2.5)
    assert "| training `small/wide/baseline` | 200 iterations logged | 1,000 | 2.50 s an " \
           "iteration | 0.6 h |" in "\n".join(progress.progress_lines(tmp_path))
    assert not math.isnan(run.seconds_left)


def test_a_staged_expert_reports_the_stage_it_is_training(tmp_path: Path) -> None:
    """A staged expert trains stage by stage (``phase0/stages/stage2-endgame``): the stage in
    progress is listed under its expert, a finished stage (its ``summary.json`` written) is
    not, nor is a finished expert beside it."""
    bundle = tmp_path / "experts" / "small" / "staged-converged"
    stages = bundle / "phase0" / "stages"
    _training(stages / "stage1-middlegame", 1000, [(600, 300.0)])  # stopped by its patience
    (stages / "stage1-middlegame" / "summary.json").write_text("{}")
    _training(stages / "stage2-endgame", 1000, [(100, 60.0), (200, 120.0)])
    _training(bundle / "phase1", 1000, [(900, 450.0)])
    (bundle / "phase1" / "summary.json").write_text("{}")
    [run] = bundles.training_in_progress(tmp_path)
    assert (run.name, run.iterations, run.planned) == (
        "small/staged-converged/phase0/stage2-endgame", 200, 1000)
    assert run.seconds_per_iteration == pytest.approx(0.6)


@pytest.mark.parametrize("patience", [12, None])
def test_a_run_of_epochs_plans_them_over_its_training_set(tmp_path: Path,
                                                         patience: int | None) -> None:
    """A run without a fixed iteration count (the converged networks, the medium profile)
    plans its epochs over the training positions its dataset's manifest records: 30 epochs of
    1,001 positions at batch 100 are 30 x 11 = 330 iterations. With a patience it may stop
    sooner, so the row says "at most"."""
    part = tmp_path / "experts" / "small" / "regular-converged" / "baseline"
    _training(part, 0, [(110, 55.0)])
    config = {"train": {"iterations": None, "epochs": 30.0, "batch_size": 100,
                        "patience": patience},
              "data": {"dataset_dir": "data/datasets/tiny", "definition": "lichess",
                       "train": "no-phases"}}
    (part / "config.json").write_text(json.dumps(config))
    manifest = tmp_path / "datasets" / "tiny" / "manifest.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"datasets": {"lichess": {"train": {
        "no-phases": {"games": 9, "positions": 1001}}}}}))
    [run] = bundles.training_in_progress(tmp_path)
    assert (run.iterations, run.planned, run.capped) == (110, 330, patience is not None)
    assert run.seconds_left == pytest.approx(220 * 0.5)
    row = [line for line in progress.progress_lines(tmp_path) if "regular-converged" in line]
    planned = ("at most 330 (until its validation loss stops improving)" if patience
               else "330")
    assert row == [f"| training `small/regular-converged/baseline` | 110 iterations logged | "
                   f"{planned} | 0.50 s an iteration | {'at most ' if patience else ''}0.0 h |"]
    manifest.unlink()  # no manifest, no plan: not listed rather than guessed
    assert bundles.training_in_progress(tmp_path) == []


def test_the_readme_block_is_what_the_committed_results_say() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    expected = progress.refresh(readme, progress.progress_lines(ROOT / "results"))
    assert readme == expected, "run: python -m chessmoe.report.answer README.md"


def test_the_summary_command_rewrites_both_blocks(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("\n".join(["top", summary.BEGIN, "OLD-ANSWER", summary.END, "",
                                 progress.BEGIN, "STALE-PROGRESS", progress.END, "tail"]))
    assert answer.main([str(readme), str(ROOT / "figures"), str(tmp_path / "results")]) == 0
    text = readme.read_text()
    assert "STALE-PROGRESS" not in text and "OLD-ANSWER" not in text and text.endswith("tail")
    assert "No run is in progress" in text
