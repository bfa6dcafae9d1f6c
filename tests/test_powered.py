"""The powered tournament's design and its control claims (designs.powered,
report.verdicts.claims)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from chessmoe._io.jsonl import append_record
from chessmoe.play.designs import registered_spec
from chessmoe.records import GameRecord
from chessmoe.report.verdicts import claims

METHODS = ("separated", "staged", "weighted-a4", "weighted-a10")


def _bundles(root: Path, names: tuple[str, ...]) -> None:
    for name in names:
        (root / name).mkdir(parents=True)
        (root / name / "manifest.json").write_text("{}")


def test_powered_arms_pairs_and_shared_openings(tmp_path: Path) -> None:
    """Methods get ``pairs`` pairs, every other arm ``arm_pairs``, the separated-long control
    ``pairs`` and regular-long ``arm_pairs``; all play the regular network on one openings
    group; a control arm exists only once its bundle is trained."""
    _bundles(tmp_path, ("regular", *METHODS, "separated-movecount2"))
    spec = registered_spec("powered", str(tmp_path), pairs=7, arm_pairs=3)
    names = {m.name: m for m in spec.matches}
    assert [n for n in names if n.startswith(("separated-long", "regular-long"))] == []
    _bundles(tmp_path, ("separated-long", "regular-long"))
    spec = registered_spec("powered", str(tmp_path), pairs=7, arm_pairs=3)
    names = {m.name: m for m in spec.matches}
    assert {names[f"{m}-b8-n100"].pairs for m in METHODS} == {7}
    assert names["separated-long-b8-n100"].pairs == 7
    assert names["regular-long-b8-n100"].pairs == 3
    assert names["regular-long-b8-n100"].label("kind") == "control"
    assert names["definition-movecount2-b8-n100"].pairs == 3
    assert "definition-movecount3-b8-n100" not in names  # not trained here
    assert {m.openings_group for m in spec.matches} == {"b8-n100"}
    assert {m.second.name for m in spec.matches} == {"regular"}
    assert len(names) == 4 + 3 + 1 + 2 + 1 + 2


def _write_arm(directory: Path, pair_scores: list[tuple[int, float, float]]) -> None:
    directory.mkdir(parents=True)
    game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", (), (), (), 0.0)
    for pair, (opening, first, second) in enumerate(pair_scores):
        for score in (first, second):
            record = game.in_match(pair=pair, opening=opening, first_score=score)
            append_record(directory / "games-000.jsonl", record.to_json())


def test_control_claims_compare_the_long_experts_with_both_baselines(tmp_path: Path) -> None:
    """separated-long scores 0.75 or 0.5 a pair, separated 0.5, regular-long as separated-long
    but 0 on opening 0: the long experts beat the separated ones (supports) and the regular
    network (supports), but not the regular network trained for the same total: +5.0 points
    (differences 50, 0 x 9: sd 15.8, se 5.0), interval [-4.8, +14.8], undecided."""
    ten = range(10)
    _write_arm(tmp_path / "separated-b8-n100", [(k, 0.5 + (k % 2) / 2, 0.5 - (k % 2) / 2)
                                                 for k in ten])
    _write_arm(tmp_path / "separated-long-b8-n100", [(k, 1, 0.5 if k % 3 else 0) for k in ten])
    _write_arm(tmp_path / "regular-long-b8-n100", [(k, 1, 0.5 if k % 3 else 0) if k
                                                   else (k, 0, 0) for k in ten])
    rows = [c for c in claims(tmp_path, tmp_path / "no-experts")
            if "iterations" in c.topic or "compute" in c.topic]
    assert [r.verdict for r in rows] == ["supports", "supports", "undecided at this scale",
                                         "undecided at this scale"]
    assert rows[0].ours.startswith("separated-long minus separated: +")
    assert "(20 games, 10 openings)" in rows[1].ours
    # separated (0.5 a pair) minus regular-long: +50 on opening 0, -25 on six, 0 on three
    assert rows[2].ours.startswith("separated minus regular-long: -10.0 points")
    assert rows[3].ours.startswith("separated-long minus regular-long: +5.0 points [-4.8, +14.8]")


def test_seed_grid_and_head_to_head_come_from_the_replicated_tournament(tmp_path: Path) -> None:
    """The replicated tournament's seed pairings pool into one row per method (its seed-9
    arm is the method's own arm name) and its head-to-head arms give a direct Elo; its main
    arms replace the powered ones only once every planned game of it is played."""
    import json

    from chessmoe.designs.replicated import primary_tournament
    from chessmoe.designs.seeds import seed_arms

    powered, rep = tmp_path / "powered", tmp_path / "replicated"
    win = [(k, 1, 0.5) for k in range(20)]  # 0.75 a pair
    even = [(k, 1, 0) for k in range(20)]  # 0.5 a pair
    _write_arm(powered / "staged-b8-n100", even)
    _write_arm(rep / "staged-b8-n100", win)
    _write_arm(rep / "staged-vs-regular-seed10-b8-n100", win)
    _write_arm(rep / "staged-seed11-vs-regular-b8-n100", even)
    _write_arm(rep / "staged-vs-regular-long-b8-n100", [(k, 0, 0.5) for k in range(20)])
    _write_arm(rep / "staged-vs-regular-9-b8-n100", win)  # not a seed bundle name
    grid = seed_arms({p.name: [] for p in rep.iterdir()} | {
        "staged-b8-n100": [GameRecord("a", "b", "f", "1-0", "", "", (), (), (), 0.0)],
        "staged-vs-regular-seed10-b8-n100": [GameRecord("a", "b", "f", "1-0", "", "", (), (),
                                                        (), 0.0)]}, "staged")
    assert sorted(grid) == [("staged", "regular"), ("staged", "regular-seed10")]
    planned = {"matches": [{"name": p.name, "pairs": 20} for p in rep.iterdir()]}
    planned["matches"].append({"name": "weighted-a10-b8-n100", "pairs": 20})
    (rep / "spec.json").write_text(json.dumps(planned))
    assert primary_tournament(powered, rep) == powered  # 200 of 240 games: in progress
    rows = claims(powered, tmp_path / "none", replicated=rep)
    main = next(r for r in rows if r.topic == "MoE vs regular")
    assert main.ours.startswith("+0 Elo")  # the powered arm (0.5 a pair)
    seeds = next(r for r in rows if r.topic == "MoE vs regular, across seeds")
    # pooled over three pairings: 0.75, 0.75, 0.5 a pair -> 0.6667: +120 Elo
    assert seeds.ours.startswith("+120 Elo") and "(120 games, 20 openings)" in seeds.ours
    # the paper's size first (its +121 against the pooled interval), then the pairings
    assert seeds.note.startswith("the paper's +121 is ")
    assert "(these seeds); 3 seed pairings (2 staged x 2 regular seeds)" in seeds.note
    assert "+0 to +191" in seeds.note
    # seed 11 scores 0.5 in every pair (+0, its interval [+0, +0]): not above zero
    assert "2 of 3 above zero, 2 with their own interval above zero" in seeds.note
    assert "treats these seeds as fixed" in seeds.note
    head = next(r for r in rows if r.topic == "equal training compute, head to head")
    # while the tournament is being played its rows are shown but not tested
    assert head.ours.startswith("-191 Elo") and math.isnan(head.p)
    assert head.verdict == seeds.verdict == ("in progress: 200 of 240 planned games of the "
                                             "replicated tournament")
    assert math.isnan(head.p_holm) and math.isnan(seeds.p_holm)
    family = [r for r in rows if not math.isnan(r.p_holm)]
    assert [r.topic for r in family] == ["MoE vs regular"]
    planned["matches"].pop()
    (rep / "spec.json").write_text(json.dumps(planned))
    assert primary_tournament(powered, rep) == rep
    rows = claims(powered, tmp_path / "none", replicated=rep)
    main = next(r for r in rows if r.topic == "MoE vs regular")
    assert main.ours.startswith("+191 Elo")
    head = next(r for r in rows if r.topic == "equal training compute, head to head")
    assert head.verdict == "contradicts" and not math.isnan(head.p_holm)


def test_table1_rows_compare_seed_ranges_of_both_sides(tmp_path: Path) -> None:
    """Regular seeds 2.40, 2.42, 2.44; staged under three seeds 2.35-2.39 lies wholly below
    (below), weighted-a10 2.38 and 2.45 overlaps, separated 2.50 lies above: descriptive words,
    and the rows say the ranges are not confidence intervals."""
    import json

    def evaluation(name: str, side: str, loss: float) -> None:
        (tmp_path / name).mkdir()
        (tmp_path / name / "evaluation.json").write_text(
            json.dumps({"results": {side: {"no-phases": {"loss": loss}}}}))

    for name, loss in (("regular", 2.40), ("regular-seed10", 2.42), ("regular-seed11", 2.44)):
        evaluation(name, "baseline", loss)
    for name, loss in (("staged", 2.39), ("staged-seed10", 2.35), ("staged-seed11", 2.37),
                       ("weighted-a10", 2.38), ("weighted-a10-seed10", 2.45),
                       ("separated", 2.50)):
        evaluation(name, "mixture", loss)
    rows = {r.paper.split()[0]: r for r in claims(tmp_path / "no-games", tmp_path)}
    assert rows["staged"].verdict == "below the seed range (descriptive)"
    assert rows["staged"].ours.startswith("2.3500-2.3900 over 3 seeds vs regular "
                                          "2.4000-2.4400 over 3 seeds")
    assert rows["weighted-a10"].verdict == "overlaps the seed range (descriptive)"
    assert rows["separated"].verdict == "above the seed range (descriptive)"
    assert all("not confidence intervals" in r.ours and math.isnan(r.p_holm)
               for r in rows.values())


@pytest.mark.slow
def test_compute_points_put_each_bundle_at_its_training_steps(tmp_path: Path) -> None:
    """Steps come from the manifests (separated's three experts together make the regular
    network's steps: 698 + 748 + 610 = 2056; regular-long and the staged/weighted mixtures
    three times that) and each Elo is the arm's own pentanomial estimate."""
    import json

    from chessmoe import estimates, played
    from chessmoe.report.figures import claims

    root = Path(__file__).resolve().parents[1] / "results"
    powered, experts = root / "tournaments" / "powered", root / "experts" / "small"
    points = {p.bundle: p for p in claims.compute_points("small", powered, experts)}
    assert points["regular"].compute == 1.0 and points["regular"].estimate.elo == 0.0
    assert points["separated"].compute == 1.0
    for bundle in ("regular-long", "separated-long", "staged", "weighted-a4", "weighted-a10"):
        assert points[bundle].compute == 3.0, bundle
    arms = played.load_arms(powered)
    assert points["staged"].estimate == estimates.arm_estimate(
        "staged", arms["staged-b8-n100"])
    # a bundle that is trained but has not played is left out; a scale without a regular
    # network or tournament has no points
    (tmp_path / "experts" / "regular").mkdir(parents=True)
    (tmp_path / "experts" / "regular" / "manifest.json").write_text(
        json.dumps({"experts": {"baseline": {"iterations": 100}}}))
    (tmp_path / "experts" / "staged").mkdir()
    (tmp_path / "experts" / "staged" / "manifest.json").write_text(
        json.dumps({"experts": {f"phase{k}": {"iterations": 100} for k in range(3)}}))
    (tmp_path / "tournament").mkdir()
    assert [p.bundle for p in claims.compute_points("medium", tmp_path / "tournament",
                                                    tmp_path / "experts")] == ["regular"]
    assert claims.compute_points("medium", tmp_path / "absent", tmp_path / "experts") == []
    fig = claims.fig_compute_gap([("small", powered, experts),
                                  ("medium", tmp_path / "absent", tmp_path / "experts")],
                                 tmp_path / "out")
    assert all(p.is_file() and p.stat().st_size > 0 for p in fig.paths)
    # each panel names how long its regular network trained, from its config (the small
    # profile's 2 epochs); a fixed-iteration run or a missing config names nothing
    titles = [ax.get_title() for ax in fig.figure.axes]
    assert titles[0] == "small: 'powered' tournament\nthe regular network: 2 epochs of its data"
    assert titles[1] == "medium: 'absent' tournament"
    config = tmp_path / "experts" / "regular" / "baseline" / "config.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"train": {"epochs": 0.13, "iterations": None}}))
    assert claims._regular_epochs(tmp_path / "experts") == 0.13
    config.write_text(json.dumps({"train": {"epochs": 0.13, "iterations": 500}}))
    assert claims._regular_epochs(tmp_path / "experts") is None
    # the medium scale's staged experts ran 8,201 steps against regular-long's 8,199: one tick
    assert claims.compute_ticks([1.0, 3 * 8201 / 8199, 3.0, 3.0]) == [1.0, 3.0]
    assert claims.compute_ticks([1.0, 1.5, 3.0]) == [1.0, 1.5, 3.0]


def test_every_committed_replicated_game_was_played_by_one_clean_commit() -> None:
    """REPRODUCING says every record of the replicated tournament names commit d3d1828, a
    clean tree, the same library versions and cutechess's draw rules: the records say so."""
    import json

    root = Path(__file__).resolve().parents[1] / "results" / "tournaments" / "replicated"
    files = sorted(root.glob("*/games-*.jsonl"))
    assert len(files) > 100
    seen: set[tuple[object, ...]] = set()
    for path in files:
        for line in path.read_text().splitlines():
            p = json.loads(line)["provenance"]
            seen.add((p["commit"], p["dirty"], p["chess"], p["torch"], p["onnxruntime"],
                      p["draw_rules"]))
    assert seen == {("d3d1828bf38c3409ff1d737fbb1ebc8c03516e2c", False, "1.11.2",
                     "2.13.0+cpu", "1.32.0", "cutechess")}


def test_medium_design_plays_equal_compute_under_cutechess_rules(tmp_path: Path) -> None:
    """The second scale's tournament: staged, weighted a=10 and regular-long against the
    regular network, and both mixtures head to head against regular-long, 400 games each by
    default, on one openings group, under cutechess rules; a match waits for its bundles."""
    from chessmoe.play.designs import build_design
    from chessmoe.play.grids import medium_spec
    from chessmoe.play.match import Adjudication

    _bundles(tmp_path, ("regular", "staged"))
    assert [m.name for m in medium_spec(str(tmp_path)).matches] == ["staged-b8-n100"]
    _bundles(tmp_path, ("weighted-a10", "regular-long", "weighted-a4"))
    spec = build_design("medium", tmp_path)
    names = {m.name: m for m in spec.matches}
    assert list(names) == ["staged-b8-n100", "weighted-a10-b8-n100", "regular-long-b8-n100",
                           "staged-vs-regular-long-b8-n100",
                           "weighted-a10-vs-regular-long-b8-n100"]
    assert {m.pairs for m in spec.matches} == {200}
    assert spec.adjudication == Adjudication() and spec.adjudication.draw_rules == "cutechess"
    assert {m.openings_group for m in spec.matches} == {"b8-n100"}
    assert names["regular-long-b8-n100"].label("kind") == "control"
    assert (names["regular-long-b8-n100"].first.name,
            names["regular-long-b8-n100"].second.name) == ("regular-long", "regular")
    h2h = names["weighted-a10-vs-regular-long-b8-n100"]
    assert h2h.label("kind") == "head-to-head" and h2h.second.name == "regular-long"
    assert (h2h.first.batch_size, h2h.first.nodes) == (8, 100)
    assert build_design("medium", tmp_path, pairs=3).matches[0].pairs == 3
    _bundles(tmp_path, ("weighted-a10-balanced",))  # the test of weighted's reversal
    balanced = build_design("medium", tmp_path).matches[-1]
    assert balanced.name == "weighted-a10-balanced-b8-n100"
    assert (balanced.first.name, balanced.second.name) == ("weighted-a10-balanced", "regular")
    assert balanced.first.experts.endswith("weighted-a10-balanced") and balanced.pairs == 200
    # separated (issue 40, item 5) joins after the others, against regular and regular-long
    before = [m.name for m in build_design("medium", tmp_path).matches]
    _bundles(tmp_path, ("separated",))
    after = build_design("medium", tmp_path).matches
    assert [m.name for m in after][:len(before)] == before
    assert [m.name for m in after][len(before):] == ["separated-b8-n100",
                                                     "separated-vs-regular-long-b8-n100"]
    assert {m.group for m in after} == {"b8-n100"} and after[-1].label("kind") == "head-to-head"


def test_table1_at_a_second_scale_reads_each_bundle_and_names_those_not_evaluated(
        tmp_path: Path) -> None:
    """Each bundle's own losses with 1.96 standard errors; a mixture read as the mixture;
    the difference from the regular network with both errors combined; a bundle without
    evaluation.json listed as not evaluated."""
    import json

    from chessmoe.report.figures import claims as figures

    def write(bundle: str, side: str, loss: float, se: float | None) -> None:
        root = tmp_path / "experts" / bundle
        root.mkdir(parents=True)
        if side == "mixture":
            (root / "phase0").mkdir()
        sets = {s: {"loss": loss + k / 10, "n": 100 * (k + 1),
                    **({"loss_se": se} if se is not None else {})}
                for k, s in enumerate(("no-phases", "opening", "middlegame", "endgame"))}
        results = {"baseline" if side == "baseline" else "phase0": {}, side: sets}
        (root / "evaluation.json").write_text(json.dumps({"results": results}))

    write("regular", "baseline", 2.36, 0.003)
    write("staged", "mixture", 2.30, 0.004)
    table = figures.table_losses_at_scale(tmp_path / "experts", tmp_path / "out").table
    assert table is not None
    assert list(table.index) == ["regular", "staged", "weighted-a10", "regular-long",
                                 "weighted-a10-balanced", "separated"]
    assert table.loc["regular", "No-Phases"] == f"2.3600 +- {1.959964 * 0.003:.4f}"
    assert table.loc["staged", "evaluated as"] == "mixture"
    assert table.loc["staged", "Opening"] == f"2.4000 +- {1.959964 * 0.004:.4f}"
    assert table.loc["staged", "minus regular (No-Phases)"] == \
        f"-0.0600 +- {1.959964 * 0.005:.4f}"  # hypot(0.003, 0.004) = 0.005
    assert table.loc["staged", "test positions"] == "100"
    assert table.loc["weighted-a10", "evaluated as"] == "not evaluated"
    assert table.loc["regular", "minus regular (No-Phases)"] == ""
    assert (tmp_path / "out" / "extras" / "table1-medium.md").is_file()
    write("regular-long", "baseline", 2.34, None)  # evaluated before loss_se was recorded
    table = figures.table_losses_at_scale(tmp_path / "experts", tmp_path / "out").table
    assert table is not None
    assert table.loc["regular-long", "No-Phases"] == "2.3400 (no SE recorded)"
    assert table.loc["regular-long", "minus regular (No-Phases)"] == "-0.0200"
