"""Issue 40's parameter-matched and converged designs, registered before their bundles are
trained: the matches, names and sizes of ``matched`` (staged against regular-wide at equal
nodes and at equal move time, regular-wide against regular-long) and ``converged`` (the powered
comparisons for the networks trained until convergence), the tournament command's status and
its refusal while a bundle is missing (designs.matched / designs.converged,
play.designs.untrained, nets.names, cli.tournaments)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chessmoe import config
from chessmoe.cli import main
from chessmoe.designs.converged import GROUP as CONVERGED_GROUP
from chessmoe.designs.converged import grid as converged_grid
from chessmoe.designs.matched import MATCHES as MATCHED
from chessmoe.designs.matched import MOVETIME as MATCHED_MOVETIME
from chessmoe.designs.rows import Claim
from chessmoe.nets.names import (
    CONVERGED_METHODS,
    REGULAR_LONG,
    REGULAR_WIDE,
    control_of,
    converged_bundle,
    train_command,
)
from chessmoe.play.designs import build_design, registered_spec, untrained
from chessmoe.play.match import Adjudication
from chessmoe.play.openings import group_seed, read_epd, resolve_suite, schedule
from chessmoe.play.tournament import units

MATCHED_NAMES = ["staged-vs-regular-wide-b8-n100", "staged-vs-regular-wide-b8-t100",
                 "regular-wide-vs-regular-long-b8-n100"]
CONVERGED_NAMES = ["staged-converged-vs-regular-converged-b8-n100",
                   "weighted-a10-converged-vs-regular-converged-b8-n100",
                   "regular-converged-vs-regular-b8-n100"]


def _bundles(root: Path, names: tuple[str, ...]) -> None:
    for name in names:
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "manifest.json").write_text("{}")


# --- the designs ----------------------------------------------------------------------------


def test_matched_design_plays_staged_at_equal_nodes_and_time_and_wide_against_long(
        tmp_path: Path) -> None:
    """Three matches in the registered order, 100 pairs each, listed before any bundle is
    trained; staged against regular-wide at batch 8 with 100 nodes and with 100 ms a move
    (no node limit), regular-wide against regular-long at 100 nodes; one fresh opening group
    for all, cutechess rules, labels naming the sides and the setting."""
    # nothing trained: the design is registered anyway
    spec = registered_spec("matched", str(tmp_path))
    assert [m.name for m in spec.matches] == MATCHED_NAMES
    assert spec == build_design("matched", tmp_path)
    assert spec.name == "matched" and spec.adjudication == Adjudication()
    assert spec.adjudication.draw_rules == "cutechess"
    assert {m.pairs for m in spec.matches} == {100}
    assert {m.group for m in spec.matches} == {"matched"}
    limits = [(8, 100, None), (8, None, MATCHED_MOVETIME), (8, 100, None)]
    sides = [("staged", REGULAR_WIDE), ("staged", REGULAR_WIDE), (REGULAR_WIDE, REGULAR_LONG)]
    assert [(a, b, *lim) for (a, b), lim in zip(sides, limits, strict=True)] == list(MATCHED)
    for match, (first, second), (batch, nodes, movetime) in zip(spec.matches, sides, limits,
                                                                 strict=True):
        assert (match.first.name, match.second.name) == (first, second)
        assert match.first.experts == str(tmp_path / first)
        assert match.second.experts == str(tmp_path / second)
        for player in (match.first, match.second):
            assert (player.batch_size, player.nodes, player.movetime_ms) == (batch, nodes,
                                                                              movetime)
            assert player.kind == "mcts" and player.single_expert is None
        assert dict(match.labels) == {"kind": "matched", "first": first, "second": second,
                                      "batch_size": batch, "nodes": nodes,
                                      "movetime": movetime}
    assert MATCHED_MOVETIME == 100
    assert {m.pairs for m in build_design("matched", tmp_path, pairs=3).matches} == {3}


def test_matched_openings_are_one_fresh_draw_shared_by_its_matches(tmp_path: Path) -> None:
    """Every match's shards draw from the group 'matched' (so the three are paired by
    opening), not from the powered b8-n100 draw nor the settings one: 10 of its 100 openings
    are among the replicated tournament's 200, 7 among the settings tournament's 100. The
    timed match is played one game at a time."""
    spec = registered_spec("matched", str(tmp_path))
    assert {u.seed for u in units(spec)} == {group_seed(spec.seed, "matched")}
    assert len(units(spec)) == 3 * 10
    assert {u.games_at_once for u in units(spec) if "-t100" in u.match.name} == {1}
    fens = read_epd(resolve_suite("embedded", None))
    ours = {s.opening for s in schedule(fens, 100, group_seed(spec.seed, "matched"))}
    assert len(ours) == 100
    for other, pairs, shared in (("b8-n100", 200, 10), ("settings", 100, 7)):
        theirs = {s.opening for s in schedule(fens, pairs, group_seed(spec.seed, other))}
        assert len(ours & theirs) == shared, other


def test_converged_design_is_the_powered_comparisons_of_the_converged_networks(
        tmp_path: Path) -> None:
    """The converged mixtures against the converged regular network, then that network
    against the regular one: 200 pairs each at batch 8 and 100 nodes on the powered openings
    group (so paired with the powered and replicated arms), cutechess rules, listed before
    any bundle is trained."""
    assert CONVERGED_METHODS == ("regular", "staged", "weighted-a10")
    assert converged_grid() == [("staged-converged", "regular-converged"),
                                ("weighted-a10-converged", "regular-converged"),
                                ("regular-converged", "regular")]
    spec = registered_spec("converged", str(tmp_path))
    assert spec == build_design("converged", tmp_path)
    assert [m.name for m in spec.matches] == CONVERGED_NAMES
    assert spec.name == "converged" and spec.adjudication == Adjudication()
    assert {m.pairs for m in spec.matches} == {200}
    assert {m.group for m in spec.matches} == {CONVERGED_GROUP} == {"b8-n100"}
    assert {u.seed for u in units(spec)} == {group_seed(2024, "b8-n100")}
    for match, (first, second) in zip(spec.matches, converged_grid(), strict=True):
        assert (match.first.name, match.second.name) == (first, second)
        assert match.first.experts == str(tmp_path / first)
        assert match.second.experts == str(tmp_path / second)
        assert (match.first.batch_size, match.first.nodes, match.first.movetime_ms) \
            == (8, 100, None)
        assert (match.second.batch_size, match.second.nodes) == (8, 100)
        assert match.label("kind") == "converged"
    assert {converged_bundle(m) for m in CONVERGED_METHODS} == {
        name for pair in converged_grid() for name in pair} - {"regular"}


def test_the_profiles_name_the_designs_and_play_the_small_experts() -> None:
    for name in ("matched", "converged"):
        chosen = config.profile(name)
        assert chosen.tournament.design == name and config.experts_of(chosen) == "small"
        assert f"# chessmoe profile '{name}'" in config.show(name)


# --- what trains a bundle, and the refusal ------------------------------------------------------


def test_each_bundle_names_the_command_that_trains_it() -> None:
    from chessmoe.nets.regimes import CONTROLS

    assert control_of(REGULAR_WIDE) == "regular-wide"
    assert {control_of(converged_bundle(m)) for m in CONVERGED_METHODS} == {"converged"}
    assert control_of("regular-long-seed10") == control_of("staged-seed11") == "seeds"
    assert control_of(REGULAR_LONG) == "regular-long"
    assert control_of("staged") is None and control_of("weighted-a10") is None
    named = {control_of(b) for b in (REGULAR_WIDE, "staged-converged", "regular-seed10",
                                     REGULAR_LONG, "separated-long")}
    assert named <= set(CONTROLS)
    assert train_command(REGULAR_WIDE, "small") == \
        "chessmoe train --profile small --control regular-wide"
    assert train_command("weighted-a10-converged", "small") == \
        "chessmoe train --profile small --control converged"
    assert train_command("staged", "small") == "chessmoe train --profile small"


def test_untrained_lists_every_missing_bundle_once_in_match_order(tmp_path: Path) -> None:
    assert untrained(registered_spec("matched", str(tmp_path))) == [
        str(tmp_path / n) for n in ("staged", REGULAR_WIDE, REGULAR_LONG)]
    _bundles(tmp_path, ("staged", REGULAR_LONG))
    assert untrained(registered_spec("matched", str(tmp_path))) == [str(tmp_path / REGULAR_WIDE)]
    _bundles(tmp_path, (REGULAR_WIDE,))
    assert untrained(registered_spec("matched", str(tmp_path))) == []
    assert untrained(registered_spec("converged", str(tmp_path))) == [
        str(tmp_path / n) for n in ("staged-converged", "regular-converged",
                                    "weighted-a10-converged", "regular")]


@pytest.mark.parametrize("profile, names, planned", [("matched", MATCHED_NAMES, 200),
                                                      ("converged", CONVERGED_NAMES, 400)])
def test_status_counts_the_registered_games_before_any_bundle_is_trained(
        profile: str, names: list[str], planned: int, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """--status with no bundle trained and no game played: every match at 0 of its planned
    games, exit 0, nothing written."""
    out = tmp_path / "t"
    assert main(["tournament", "--profile", profile, "--experts", str(tmp_path / "experts"),
                 "--out", str(out), "--status"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == names
    assert all(f"0 of    {planned} games  (not started)" in line for line in lines[:-1])
    total = 3 * planned
    assert lines[-1].split()[:4] == ["total", "0", "of", f"{total:,}"]
    assert not out.exists() and not (tmp_path / "experts").exists()


@pytest.mark.parametrize("profile, says", [
    ("matched", "{root}/regular-wide is not trained (no manifest.json): train with 'chessmoe "
                "train --profile small --control regular-wide'"),
    ("converged", "{root}/staged-converged, {root}/regular-converged, "
                  "{root}/weighted-a10-converged are not trained (no manifest.json): train "
                  "with 'chessmoe train --profile small --control converged'")])
def test_playing_without_a_bundle_is_refused_in_one_line_naming_it_and_its_command(
        profile: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The profile's own bundles are trained (staged, regular, regular-long), the controls
    are not: one line on stderr naming each missing bundle and the command that trains it,
    exit 2, and nothing is written (no spec.json, no game)."""
    root = tmp_path / "experts"
    _bundles(root, ("staged", "regular", REGULAR_LONG))
    out = tmp_path / "t"
    assert main(["tournament", "--profile", profile, "--experts", str(root), "--out", str(out),
                 "--workers", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == f"chessmoe tournament: {says.format(root=root)}\n"
    assert not out.exists()


# --- the claims rows ---------------------------------------------------------------------------

MATCHED_CLAIMS = [
    "staged beats regular-wide (one network with the mixture's parameters, regular-long's "
    "steps) at equal nodes, batch 8, 100 nodes",
    "staged beats regular-wide (one network with the mixture's parameters, regular-long's "
    "steps) at equal move time, batch 8, 100 ms a move",
    "regular-wide beats regular-long at batch 8, 100 nodes"]
CONVERGED_CLAIMS = [
    "staged beats regular when both are trained until their validation loss stops improving",
    "weighted-a10 beats regular when both are trained until their validation loss stops "
    "improving",
    "regular-converged beats regular"]


def _write_arm(directory: Path, pairs: list[tuple[int, float, float]],
               nodes: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())) -> None:
    """Records of pairs (opening, first game's score, second game's score) of one match, the
    first engine white in the first game of a pair; ``nodes``: the first and the second
    engine's nodes a move in every game."""
    from chessmoe._io.jsonl import append_record
    from chessmoe.records import GameRecord

    directory.mkdir(parents=True, exist_ok=True)
    for pair, (opening, first, second) in enumerate(pairs):
        for white_first, score in ((True, first), (False, second)):
            mine, theirs = nodes if white_first else nodes[::-1]
            game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", (), (), (), 0.0,
                              nodes_white=mine, nodes_black=theirs)
            append_record(directory / "games-000.jsonl",
                          game.in_match(pair=pair, opening=opening, first_score=score,
                                        first_is_white=white_first).to_json())


def _spec(directory: Path, pairs: dict[str, int]) -> None:
    import json

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "spec.json").write_text(json.dumps(
        {"matches": [{"name": n, "pairs": k} for n, k in pairs.items()]}))


def _claims(tmp_path: Path, **kwargs: Path) -> list[Claim]:
    from chessmoe.report import verdicts

    return verdicts.claims(tmp_path / "powered", tmp_path / "experts", **kwargs)


def _by_claim(rows: list[Claim], claims: list[str]) -> dict[str, Claim]:
    """The rows stating each of ``claims`` (a row's hypothesis starts with it)."""
    return {c: next(r for r in rows if r.paper.startswith(c)) for c in claims}


def test_matched_and_converged_rows_are_registered_before_the_first_game(
        tmp_path: Path) -> None:
    """With no game played and no bundle trained, the table already holds the three matched
    and the three converged rows, in the designs' order, each stating its hypothesis and
    direction, marked post hoc, not played and outside the Holm family; the converged rows'
    notes say the networks are not trained yet. Without the directories, no such row."""
    import math

    from chessmoe.designs import rows as verdicts

    rows = _claims(tmp_path, matched=tmp_path / "matched", converged=tmp_path / "converged")
    matched = [r for r in rows if r.topic == "parameter-matched network"]
    converged = [r for r in rows if r.topic == "trained to convergence"]
    for found, expected in ((matched, MATCHED_CLAIMS), (converged, CONVERGED_CLAIMS)):
        assert len(found) == len(expected)
        assert all(r.paper.startswith(e) for r, e in zip(found, expected, strict=True))
        assert all(r.verdict == verdicts.NOT_PLAYED and math.isnan(r.p_holm)
                   and math.isnan(r.p) and r.ours == "no complete game pair yet"
                   and r.kind == verdicts.POST_HOC for r in found)
    assert "equal nodes" in matched[0].paper and "equal move time" in matched[1].paper
    assert "three times the parameters" in matched[2].paper
    assert "regular-long is one training seed" in matched[2].note
    assert "the paper: +121 Elo at fixed epochs" in converged[0].paper
    assert "the paper: +56 Elo at fixed epochs" in converged[1].paper
    assert converged[0].note == ("staged-converged: not trained yet; regular-converged: not "
                                 "trained yet")
    assert converged[2].note == "regular-converged: not trained yet"
    assert not [r for r in _claims(tmp_path) if r.topic in ("parameter-matched network",
                                                            "trained to convergence")]


def test_a_converged_network_still_training_is_named_as_training(tmp_path: Path) -> None:
    """A converged bundle with a training log and no manifest is training, not finished: the
    row's note says so with the iteration each expert logged (a cut-short last line is
    skipped), where one without a log reads not trained yet."""
    log = tmp_path / "experts" / "regular-converged" / "baseline" / "metrics.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text('{"iteration": 2000, "set": "val"}\n{"iteration": 2100, "set": "val"}\n'
                   '{"iteration": 22')
    stage = tmp_path / "experts" / "staged-converged" / "phase1" / "metrics.jsonl"
    stage.parent.mkdir(parents=True)
    stage.write_text('{"iteration": 300}\n')
    # a staged expert still in its stages: the latest stage that logged names where it is
    stages = tmp_path / "experts" / "staged-converged" / "phase2" / "stages"
    for name, last in (("stage1-opening", 900), ("stage2-middlegame", 40)):
        (stages / name).mkdir(parents=True)
        (stages / name / "metrics.jsonl").write_text(f'{{"iteration": {last}}}\n')
    (stages / "stage3-endgame").mkdir()  # begun, nothing logged yet
    finished = tmp_path / "experts" / "staged-converged" / "phase0"
    finished.mkdir()
    (finished / "metrics.jsonl").write_text('{"iteration": 9400}\n')
    (finished / "summary.json").write_text("{}")  # a finished expert says so
    converged = [r for r in _claims(tmp_path, converged=tmp_path / "converged")
                 if r.topic == "trained to convergence"]
    assert converged[0].note == ("staged-converged: training, not finished (phase0 finished "
                                 "at 9,400 steps; logged to iteration phase1 300, phase2 "
                                 "stage2-middlegame 40); regular-converged: training, not "
                                 "finished (logged to iteration 2,100)")
    assert converged[1].note.startswith("weighted-a10-converged: not trained yet; ")


def test_a_matched_row_is_a_test_once_its_own_match_is_complete(tmp_path: Path) -> None:
    """staged-vs-regular-wide-b8-t100 complete (20 planned pairs, 0.75 a pair: +191 Elo)
    joins the Holm family with the main arm and says each side's mean nodes a move (staged
    240, regular-wide 55); the equal-nodes match with 10 of its 20 pairs is in progress, the
    third not played."""
    import math

    matched = tmp_path / "matched"
    _spec(matched, {MATCHED_NAMES[0]: 20, MATCHED_NAMES[1]: 20})
    _write_arm(matched / MATCHED_NAMES[1], [(k, 1, 0.5) for k in range(20)],
               nodes=((230, 250), (50, 60)))
    _write_arm(matched / MATCHED_NAMES[0], [(k, 0, 0.5) for k in range(10)])
    _write_arm(tmp_path / "powered" / "staged-b8-n100", [(k, 1, 0) for k in range(20)])
    rows = _by_claim(_claims(tmp_path, matched=matched), MATCHED_CLAIMS)
    done = rows[MATCHED_CLAIMS[1]]
    assert done.ours.startswith("+191 Elo") and "(40 games, 20 openings)" in done.ours
    assert done.verdict == "supports" and done.p == done.p_holm == 0.0
    assert done.note.startswith("nodes a move (mean over the match's searches): staged 240, "
                                "regular-wide 55; at equal time")
    running = rows[MATCHED_CLAIMS[0]]
    assert running.verdict == "in progress: 20 of 40 planned games of this match"
    assert running.ours.startswith("-191 Elo") and math.isnan(running.p_holm)
    assert rows[MATCHED_CLAIMS[2]].verdict.startswith("not played yet")
    family = [r for r in _claims(tmp_path, matched=matched) if not math.isnan(r.p_holm)]
    assert len(family) == 2  # the main staged arm and the complete match


def test_a_converged_row_is_a_test_once_its_own_match_is_complete_and_names_the_training(
        tmp_path: Path) -> None:
    """weighted-a10-converged-vs-regular-converged complete at the design's 200 pairs (no
    spec.json: the design's own count) joins the family and contradicts (0.25 a pair); its
    note says how long each network trained, from the manifests; the others stay out."""
    import json
    import math

    converged = tmp_path / "converged"
    _write_arm(converged / CONVERGED_NAMES[1], [(k, 0, 0.5) for k in range(200)])
    _write_arm(converged / CONVERGED_NAMES[2], [(k, 1, 0.5) for k in range(199)])
    experts = tmp_path / "experts"
    record = {"stopped_at": 4300, "best_iteration": 3100, "reason": "patience",
              "epochs": 4.18}
    for name, entry in (("regular-converged", {"baseline": {"convergence": [record]}}),
                        ("weighted-a10-converged", {
                            f"phase{k}": {"convergence": [{**record, "stopped_at": 2000 + k,
                                                           "epochs": 6.5}]}
                            for k in range(3)})):
        (experts / name).mkdir(parents=True)
        (experts / name / "manifest.json").write_text(json.dumps({"experts": entry}))
    rows = _by_claim(_claims(tmp_path, converged=converged), CONVERGED_CLAIMS)
    done = rows[CONVERGED_CLAIMS[1]]
    assert done.verdict == "contradicts" and not math.isnan(done.p_holm)
    assert done.ours.startswith("-191 Elo") and "(400 games, 200 openings)" in done.ours
    assert done.note == (
        "weighted-a10-converged: phase0 2,000 steps (6.5 epochs), best at 3,100, stopped by "
        "patience; phase1 2,001 steps (6.5 epochs), best at 3,100, stopped by patience; "
        "phase2 2,002 steps (6.5 epochs), best at 3,100, stopped by patience; "
        "regular-converged: 4,300 steps (4.18 epochs), best at 3,100, stopped by patience")
    assert rows[CONVERGED_CLAIMS[2]].verdict == ("in progress: 398 of 400 planned games of "
                                                 "this match")
    assert math.isnan(rows[CONVERGED_CLAIMS[2]].p_holm)
    assert rows[CONVERGED_CLAIMS[0]].verdict.startswith("not played yet")


def test_the_claims_table_renders_the_unplayed_rows_and_names_their_tournaments(
        tmp_path: Path) -> None:
    """table_claims with the two designs' directories absent: the CSV holds the six rows
    as not played, the notes name both tournaments (0 games) and the registration."""
    import pandas as pd

    from chessmoe.report.figures.claims import table_claims

    artefact = table_claims(tmp_path / "powered", tmp_path / "experts", tmp_path / "out",
                            matched=tmp_path / "matched",
                            converged=tmp_path / "converged")
    frame = pd.read_csv(tmp_path / "out" / "claims.csv")
    assert artefact.table is not None and len(frame) == len(artefact.table) == 6
    assert list(frame["Topic"]) == ["parameter-matched network"] * 3 + [
        "trained to convergence"] * 3
    assert set(frame["Verdict"]) == {"not played yet (registered before its first game)"}
    assert frame["p (Holm)"].isna().all()
    text = (tmp_path / "out" / "claims.md").read_text()
    assert "matched tournament (0 games) for the parameter-matched rows" in text
    assert "converged tournament (0 games) for the trained-to-convergence rows" in text
    assert "registered likewise, before their networks were trained" in text


def test_the_claims_regime_note_names_the_converged_networks_and_reads_their_losses(
        tmp_path: Path) -> None:
    """The claims table's regime note names the converged bundles as the only ones not
    trained for a fixed length and, once regular, regular-long and regular-converged are
    evaluated, says how much of the regular network's loss gap to the converged one
    regular-long closes: (2.40 - 2.22) / (2.40 - 2.20) = 90 %."""
    from chessmoe.designs.converged import regime_note

    note = regime_note(tmp_path)
    assert "except regular-converged, staged-converged and weighted-a10-converged" in note
    assert "Table 1" not in note  # nothing evaluated: no losses quoted
    for bundle, loss in (("regular", 2.40), ("regular-long", 2.22), ("regular-converged", 2.20)):
        (tmp_path / bundle).mkdir()
        (tmp_path / bundle / "evaluation.json").write_text(json.dumps(
            {"results": {"baseline": {"no-phases": {"loss": loss, "n": 10}}}}))
    assert regime_note(tmp_path).endswith(
        "Table 1's no-phases test loss: regular 2.4000, regular-long 2.2200, regular-converged "
        "2.2000: regular-long closes 90 % of the regular network's gap to the converged one.")
