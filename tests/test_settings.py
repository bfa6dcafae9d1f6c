"""Issue 40's designs and their reading: the settings tournament (staged against regular and
regular-long at other node limits and batch sizes) and the equal-compute seed grid (staged's
seeds against regular-long's), their claims rows registered before the first game, and the
settings figure (designs.settings / designs.seeds_long, report.verdicts,
report.figures.claims.fig_settings)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from chessmoe import estimates, played
from chessmoe._io.jsonl import append_record
from chessmoe.designs import powered, seeds, seeds_long
from chessmoe.designs import rows as claim_rows
from chessmoe.designs.seeds_long import grid as seeds_long_grid
from chessmoe.designs.settings import SETTINGS
from chessmoe.play.designs import build_design, registered_spec
from chessmoe.play.match import Adjudication
from chessmoe.play.openings import group_seed, read_epd, resolve_suite, schedule
from chessmoe.play.tournament import units
from chessmoe.records import GameRecord
from chessmoe.report import verdicts

ROOT = Path(__file__).resolve().parents[1] / "results"
SMALL = ROOT / "experts" / "small"
REPLICATED = ROOT / "tournaments" / "replicated"
NAMES = ["staged-vs-regular-b8-n100", "staged-vs-regular-long-b8-n100",
         "staged-vs-regular-b8-n400", "staged-vs-regular-long-b8-n400",
         "staged-vs-regular-b8-n1600", "staged-vs-regular-long-b8-n1600",
         "staged-vs-regular-b1-n400", "staged-vs-regular-long-b1-n400",
         "staged-vs-regular-b32-n400", "staged-vs-regular-long-b32-n400"]


def _bundles(root: Path, names: tuple[str, ...]) -> None:
    for name in names:
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "manifest.json").write_text("{}")


def _write_arm(directory: Path, pairs: list[tuple[int, float, float]]) -> None:
    """Records of pairs (opening, first game's score, second game's score) of one match."""
    directory.mkdir(parents=True, exist_ok=True)
    game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", (), (), (), 0.0)
    for pair, (opening, first, second) in enumerate(pairs):
        for score in (first, second):
            append_record(directory / "games-000.jsonl",
                          game.in_match(pair=pair, opening=opening, first_score=score).to_json())


def _spec(directory: Path, pairs: dict[str, int]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "spec.json").write_text(json.dumps(
        {"matches": [{"name": n, "pairs": k} for n, k in pairs.items()]}))


# --- the designs ----------------------------------------------------------------------------


def test_settings_design_plays_staged_against_both_opponents_at_five_settings(
        tmp_path: Path) -> None:
    """Ten matches in the registered order (cheap settings first), 100 pairs each, staged
    first at the same batch size and node limit as its opponent, one opening group for all,
    cutechess rules, labels naming the opponent and the setting; the regular-long matches
    wait for their bundle."""
    _bundles(tmp_path, ("regular", "staged"))
    assert [m.name for m in registered_spec("settings", str(tmp_path)).matches] == NAMES[::2]
    _bundles(tmp_path, ("regular-long", "separated"))
    spec = build_design("settings", tmp_path)
    assert [m.name for m in spec.matches] == NAMES
    assert spec.name == "settings" and spec.adjudication == Adjudication()
    assert spec.adjudication.draw_rules == "cutechess"
    assert {m.pairs for m in spec.matches} == {100}
    assert {m.group for m in spec.matches} == {"settings"}
    for match, (batch, nodes) in zip(spec.matches, [s for s in SETTINGS for _ in (0, 1)],
                                     strict=True):
        opponent = match.label("second")
        assert match.name == f"staged-vs-{opponent}-b{batch}-n{nodes}"
        assert (match.first.name, match.second.name) == ("staged", opponent)
        assert match.first.experts == str(tmp_path / "staged")
        assert match.second.experts == str(tmp_path / opponent)
        for player in (match.first, match.second):
            assert (player.batch_size, player.nodes, player.movetime_ms) == (batch, nodes, None)
            assert player.kind == "mcts" and player.single_expert is None
        assert dict(match.labels) == {"kind": "settings", "method": "staged",
                                      "first": "staged", "second": opponent,
                                      "batch_size": batch, "nodes": nodes, "movetime": None}
    assert {m.pairs for m in build_design("settings", tmp_path, pairs=3).matches} == {3}


def test_settings_openings_are_shared_by_every_match_and_drawn_afresh(tmp_path: Path) -> None:
    """Every match's shards draw from one permutation (the group's seed), so each opening is
    played at every setting against both opponents; the draw is not the powered design's
    b8-n100 one: 11 of its 100 openings are among the replicated tournament's 200 there (the
    settings README quotes this)."""
    _bundles(tmp_path, ("regular", "staged", "regular-long"))
    spec = registered_spec("settings", str(tmp_path))
    assert {u.seed for u in units(spec)} == {group_seed(spec.seed, "settings")}
    assert len(units(spec)) == 10 * 10  # ten shards of ten pairs a match
    fens = read_epd(resolve_suite("embedded", None))
    ours = [s.opening for s in schedule(fens, 100, group_seed(spec.seed, "settings"))]
    powered = {s.opening for s in schedule(fens, 200, group_seed(spec.seed, "b8-n100"))}
    assert len(set(ours)) == 100
    assert len(set(ours) & powered) == 11


def test_seeds_long_design_is_the_grid_less_the_replicated_cell(tmp_path: Path) -> None:
    """Staged's three seeds against regular-long's three: eight pairings here (the ninth is
    the replicated tournament's staged-vs-regular-long arm), 100 pairs each on the powered
    openings group, cutechess rules; a pairing waits for both bundles."""
    assert seeds_long_grid()[0] == ("staged", "regular-long")
    assert len(set(seeds_long_grid())) == 9
    _bundles(tmp_path, ("staged", "staged-seed10", "staged-seed11", "regular-long"))
    assert [m.name for m in registered_spec("seeds-long", str(tmp_path)).matches] == [
        "staged-seed10-vs-regular-long-b8-n100", "staged-seed11-vs-regular-long-b8-n100"]
    _bundles(tmp_path, ("regular-long-seed10", "regular-long-seed11"))
    spec = build_design("seeds-long", tmp_path)
    names = [m.name for m in spec.matches]
    assert len(names) == 8 and "staged-vs-regular-long-b8-n100" not in names
    assert names[:3] == ["staged-vs-regular-long-seed10-b8-n100",
                         "staged-vs-regular-long-seed11-b8-n100",
                         "staged-seed10-vs-regular-long-b8-n100"]
    assert {m.pairs for m in spec.matches} == {100}
    assert {m.group for m in spec.matches} == {"b8-n100"}
    assert spec.adjudication == Adjudication()
    cell = next(m for m in spec.matches if m.name == "staged-seed11-vs-regular-long-seed10-b8-n100")
    assert (cell.first.name, cell.second.name) == ("staged-seed11", "regular-long-seed10")
    assert cell.second.experts == str(tmp_path / "regular-long-seed10")
    assert (cell.first.batch_size, cell.first.nodes) == (8, 100)
    assert cell.label("kind") == "seed-long"


def test_the_ninth_cell_is_the_replicated_arm_on_the_same_openings() -> None:
    """The replicated tournament recorded staged-vs-regular-long-b8-n100 with 100 pairs on
    the b8-n100 group, the seed 2024 and cutechess rules: what the seeds-long design plays
    its eight other pairings on."""
    spec = json.loads((REPLICATED / "spec.json").read_text())
    match = next(m for m in spec["matches"] if m["name"] == "staged-vs-regular-long-b8-n100")
    assert (match["pairs"], match["openings_group"]) == (100, "b8-n100")
    assert spec["seed"] == registered_spec("seeds-long", str(SMALL)).seed == 2024
    assert spec["adjudication"]["draw_rules"] == "cutechess"


# --- the claims rows ---------------------------------------------------------------------------


def _rows(tmp_path: Path, **kwargs: Path) -> list[claim_rows.Claim]:
    return verdicts.claims(tmp_path / "powered", tmp_path / "experts", **kwargs)


def test_settings_rows_are_registered_before_the_first_game(tmp_path: Path) -> None:
    """With no game played, the table already holds the ten rows, in the design's order, with
    their hypotheses (staged beats the opponent) and the paper's Table 2 mean at that batch
    size; none is a test."""
    rows = [r for r in _rows(tmp_path, settings=tmp_path / "settings")
            if r.topic.startswith("settings")]
    assert len(rows) == 10
    assert all(r.verdict == claim_rows.NOT_PLAYED and math.isnan(r.p_holm) for r in rows)
    assert rows[0].paper.startswith("staged beats regular at batch 8, 100 nodes (paper: +121")
    assert rows[1].paper.startswith("staged beats regular-long at batch 8, 100 nodes")
    assert rows[6].paper.startswith("staged beats regular at batch 1, 400 nodes (paper: +112")
    assert rows[8].paper.startswith("staged beats regular at batch 32, 400 nodes (paper: +125")
    assert [r.kind for r in rows[:2]] == ["paper claim", claim_rows.POST_HOC]
    assert "regular-long is one training seed" in rows[1].note
    assert not [r for r in _rows(tmp_path) if r.topic.startswith("settings")]


def test_a_settings_row_is_a_test_once_its_own_match_is_complete(tmp_path: Path) -> None:
    """staged-vs-regular-b8-n100 complete (20 planned pairs: 0.75 a pair, +191 Elo) joins the
    Holm family with the main arm; staged-vs-regular-long-b8-n400 with 10 of its 20 pairs is
    in progress (not a test); the others are not played."""
    settings = tmp_path / "settings"
    _spec(settings, {NAMES[0]: 20, NAMES[3]: 20})
    win = [(k, 1, 0.5) for k in range(20)]
    _write_arm(settings / NAMES[0], win)
    _write_arm(settings / NAMES[3], [(k, 0, 0.5) for k in range(10)])
    _write_arm(tmp_path / "powered" / "staged-b8-n100", [(k, 1, 0) for k in range(20)])
    rows = {r.paper.split(" (")[0]: r for r in _rows(tmp_path, settings=settings)}
    done = rows["staged beats regular at batch 8, 100 nodes"]
    assert done.ours.startswith("+191 Elo") and "(40 games, 20 openings)" in done.ours
    # decided on the paper's side with the paper's +121 outside the interval of +191
    assert done.verdict == "sign agrees, size differs" and not math.isnan(done.p_holm)
    # no seed grid played here: the note names the regular seed and no more
    assert done.note == ("the paper's batch-8 mean +121 is outside our interval; regular is "
                         "training seed 9")
    running = rows["staged beats regular-long at batch 8, 400 nodes"]
    assert running.verdict == "in progress: 20 of 40 planned games of this match"
    assert running.ours.startswith("-191 Elo") and math.isnan(running.p)
    assert rows["staged beats regular at batch 32, 400 nodes"].verdict == claim_rows.NOT_PLAYED
    family = [r for r in rows.values() if not math.isnan(r.p_holm)]
    assert len(family) == 2  # the main staged arm (level: p = 1) and the complete match
    assert done.p == done.p_holm == 0.0  # every pair 0.75: no spread, z infinite


def test_a_match_not_in_the_spec_is_planned_at_the_design_count(tmp_path: Path) -> None:
    """A directory whose spec.json lists only some matches (a --match run): the others are
    planned at the design's 100 pairs, so 40 games of one are in progress, not complete."""
    settings = tmp_path / "settings"
    _spec(settings, {NAMES[0]: 20})
    _write_arm(settings / NAMES[2], [(k, 1, 0.5) for k in range(20)])
    row = next(r for r in _rows(tmp_path, settings=settings)
               if r.paper.startswith("staged beats regular at batch 8, 400 nodes"))
    assert row.verdict == "in progress: 40 of 200 planned games of this match"
    # its estimate so far is shown, but not read against the paper before it is complete
    assert row.ours.startswith("+191 Elo") and "the paper's" not in row.note
    assert row.note.startswith("regular is training seed 9; over regular seeds 9, 10 and 11")


#: Game scores giving each possible pair score.
_GAMES = {0.0: (0.0, 0.0), 0.25: (0.5, 0.0), 0.5: (1.0, 0.0), 0.75: (1.0, 0.5)}


def _grid_cells(tmp_path: Path, cells: dict[tuple[str, str], tuple[float, float]],
                pairs: int = 40) -> tuple[Path, Path]:
    """A seeds-long directory and a replicated one whose pairing (a, b) scores the first of
    its two pair scores on even openings and the second on odd ones (openings 0..pairs-1;
    over 30 openings, so the pooled estimate has a p-value)."""
    long_dir, rep = tmp_path / "seeds-long", tmp_path / "replicated"
    for (a, b), (even, odd) in cells.items():
        where = rep if (a, b) == ("staged", "regular-long") else long_dir
        _write_arm(where / f"{a}-vs-{b}-b8-n100",
                   [(k, *_GAMES[odd if k % 2 else even]) for k in range(pairs)])
    _spec(long_dir, {f"{a}-vs-{b}-b8-n100": pairs for a, b in seeds_long_grid()[1:]})
    return long_dir, rep


def test_equal_compute_across_seeds_reads_the_grid_with_the_replicated_cell(
        tmp_path: Path) -> None:
    """Nine cells (the replicated one included) pool into one row with the seed-grid note
    and the two-way random-effects interval; one cell short, the row is in progress."""
    scores = ((0.25, 0.5), (0.0, 0.5), (0.25, 0.25), (0.0, 0.25), (0.25, 0.75), (0.0, 0.5),
              (0.25, 0.5), (0.0, 0.0), (0.25, 0.25))
    means = {cell: sum(s) / 2 for cell, s in zip(seeds_long_grid(), scores, strict=True)}
    long_dir, rep = _grid_cells(tmp_path, dict(zip(seeds_long_grid(), scores, strict=True)))
    rows = _rows(tmp_path, replicated=rep, seeds_long=long_dir)
    row = next(r for r in rows if r.topic == "equal training compute, across seeds")
    grid = seeds_long.seeds_long_arms(played.load_arms(long_dir), played.load_arms(rep))
    assert len(grid) == 9 and ("staged", "regular-long") in grid
    pooled = estimates.pooled_estimate("staged", list(grid.values()))
    assert pooled.score == pytest.approx(sum(means.values()) / 9)
    assert row.ours.startswith(estimates.estimate_text(pooled).split(" (")[0])
    assert row.note.startswith("9 seed pairings (3 staged x 3 regular-long seeds)")
    below = sum(estimates.arm_estimate("cell", r).high < 0 for r in grid.values())
    assert below > 0 and f"and {below} with their own interval below zero;" in row.note
    level = estimates.seed_level_estimate("staged", grid)
    assert level is not None and estimates.elo_interval(level.estimate) in row.note
    assert row.verdict == "contradicts" and row.kind == claim_rows.POST_HOC
    # the rows resting on the one-seed regular-long quote the complete grid's two estimates
    cited = (f"regular-long under three seeds: the row 'equal training compute, across "
             f"seeds': staged {estimates.elo_interval(pooled)} Elo against it pooled over 9 "
             f"seed pairings (these seeds), {estimates.elo_interval(level.estimate)} with "
             "both sides' seeds random")
    head = [r for r in rows if r.topic == "equal training compute, head to head"]
    assert head and all(r.note.endswith(cited) for r in head)
    # a pairing with one game pair short: the row waits for it
    path = long_dir / "staged-seed11-vs-regular-long-seed11-b8-n100" / "games-000.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:-2]))
    rows = _rows(tmp_path, replicated=rep, seeds_long=long_dir)
    row = next(r for r in rows if r.topic == "equal training compute, across seeds")
    assert row.verdict == ("in progress: 638 of 640 planned games of the seeds-long "
                           "tournament") and math.isnan(row.p_holm)
    assert all(r.note.endswith("regular-long under three seeds: the row 'equal training "
                               "compute, across seeds', in progress: 638 of 640 planned "
                               "games of the seeds-long tournament")
               for r in rows if r.topic == "equal training compute, head to head")


def test_the_ninth_cell_comes_from_the_committed_replicated_arm() -> None:
    """Read from the committed games: the replicated staged-vs-regular-long arm is the grid's
    seed-9 cell, -252 Elo [-307, -206] on 200 games (the claims table's head-to-head row)."""
    grid = seeds_long.seeds_long_arms({}, played.load_arms(REPLICATED))
    assert list(grid) == [("staged", "regular-long")]
    e = estimates.arm_estimate("staged", grid[("staged", "regular-long")])
    assert (2 * e.pairs, estimates.elo_interval(e)) == (200, "-252 [-307, -206]")


def test_the_notes_name_the_seed_spread_and_the_separated_budget() -> None:
    """From the committed results: the regular network's seed alone moves weighted a = 10's
    score by 13.1 points a pair (60.5 % against seed 9, 47.4 % against seed 11), and the
    separated experts trained 610-748 steps against the regular network's 2,056."""
    spread = seeds.regular_seed_spread(played.load_arms(REPLICATED))
    assert spread is not None and spread[1] == "weighted-a10"
    assert f"{spread[0]:.1f}" == "13.1"
    assert powered._separated_budget(SMALL).startswith(
        "the separated experts are under-trained here: 610-748 steps each against the regular "
        "network's 2,056")
    rows = verdicts.claims(ROOT / "tournaments" / "powered", SMALL, replicated=REPLICATED)
    fig6 = [r for r in rows if r.topic == "single expert (Fig. 6)"]
    assert len(fig6) == 3 and all("under-trained" in r.note for r in fig6)
    long = [r for r in rows if "regular-long" in r.paper and "across seeds" not in r.topic]
    assert len(long) == 9
    assert all("regular-long is one training seed (seed 9)" in r.note and "13.1 points" in r.note
               for r in long)


# --- the figure -------------------------------------------------------------------------------


def test_settings_figure_draws_what_is_played_and_names_what_is_not(tmp_path: Path) -> None:
    """The figure's data has one row per registered match: a complete one with its arm
    estimate, one in progress with its games so far, the rest not played (nan Elo)."""
    from chessmoe.report.figures import claims as figures

    settings = tmp_path / "settings"
    _spec(settings, {NAMES[0]: 10, NAMES[1]: 10})
    _write_arm(settings / NAMES[0], [(k, 1, 0.5) for k in range(10)])
    _write_arm(settings / NAMES[1], [(k, 0, 0.5) for k in range(4)])
    frame = figures.settings_frame(settings)
    assert list(frame["arm"]) == NAMES
    assert list(frame["state"][:3]) == ["complete", "in progress", "not played"]
    expected = estimates.arm_estimate(NAMES[0], played.load_arms(settings)[NAMES[0]])
    assert frame["elo"][0] == pytest.approx(expected.elo)
    assert (frame["low"][0], frame["high"][0]) == (pytest.approx(expected.low),
                                                   pytest.approx(expected.high))
    assert list(frame["games_played"][:3]) == [20, 8, 0]
    assert list(frame["planned_games"][:3]) == [20, 20, 200]
    assert frame["elo"][2:].isna().all()
    assert set(frame["interval"]) == {figures.PAIR_INTERVAL}
    artefact = figures.fig_settings(settings, tmp_path / "out")
    assert all(p.is_file() and p.stat().st_size > 0 for p in artefact.paths)
    assert {p.suffix for p in artefact.paths} == {".png", ".pdf", ".csv"}
    # nothing played: still drawn, every match named as not played
    empty = figures.settings_frame(tmp_path / "absent")
    assert set(empty["state"]) == {"not played"} and len(empty) == 10
    figures.fig_settings(tmp_path / "absent", tmp_path / "out2")


# --- provenance notes -----------------------------------------------------------------------


@pytest.mark.parametrize("profile", ["small", "medium"])
def test_every_bundle_trained_from_a_dirty_checkout_is_named_in_its_readme(profile: str) -> None:
    """Each bundle with a record written from a checkout that differed from its commit has a
    row in its folder README's provenance notes naming every such record's file and commit."""
    from chessmoe.nets.bundles import dirty_bundles

    readme = (ROOT / "experts" / profile / "README.md").read_text(encoding="utf-8")
    notes = readme.split("## Provenance notes", 1)[1].split("\n## ", 1)[0]
    rows = {line.split("|")[1].strip(): line for line in notes.splitlines()
            if line.startswith("| `")}
    dirty = dirty_bundles(ROOT / "experts" / profile)
    assert dirty, profile
    named = {name.strip("` ") for key in rows for name in key.split(",")}
    assert set(dirty) == named
    for bundle, records in dirty.items():
        row = next(line for key, line in rows.items() if f"`{bundle}`" in key.split(", ")
                   or key == f"`{bundle}`")
        for record in records:
            assert f"`{record.file}`" in row, (bundle, record)
            assert f"`{record.commit[:7]}`" in row, (bundle, record)
        # a bundle whose records list only its own files as changed (a resumed run's state)
        # ran the commit's code: its row says so
        if not any(r.differs_outside(f"results/experts/{profile}/{bundle}") for r in records):
            assert "own files" in row, bundle


def test_a_record_differs_outside_its_bundle_only_where_it_lists_another_file(
        tmp_path: Path) -> None:
    """Provenance records of a bundle: clean, dirty in its own files only (a resumed run),
    dirty in another file (a neighbour's name sharing its prefix counts as another), dirty
    with the list cut short or absent (counts as differing: unknown)."""
    from chessmoe.nets.bundles import BundleRecord, bundle_records

    where = "results/experts/small/regular-converged"
    own = (f"{where}/baseline/state.pt", f"{where}/baseline/metrics.jsonl")
    assert not BundleRecord("manifest.json", "abc", False).differs_outside(where)
    assert not BundleRecord("manifest.json", "abc", True, own).differs_outside(where)
    assert BundleRecord("manifest.json", "abc", True,
                        (*own, "chessmoe/nets/training.py")).differs_outside(where)
    assert BundleRecord("manifest.json", "abc", True,
                        (f"{where}2/manifest.json",)).differs_outside(where)
    assert BundleRecord("manifest.json", "abc", True, None).differs_outside(where)

    bundle = tmp_path / "regular-converged"
    (bundle / "baseline").mkdir(parents=True)
    git = {"commit": "abc", "dirty": True, "changed": list(own), "changed_count": 2}
    (bundle / "manifest.json").write_text(json.dumps({"provenance": {"git": git}}))
    cut = {**git, "changed": list(own[:1]), "changed_count": 7}
    (bundle / "evaluation.json").write_text(json.dumps({"provenance": {"git": cut}}))
    records = bundle_records(bundle)
    assert [(r.file, r.changed) for r in records] == [("manifest.json", own),
                                                      ("evaluation.json", None)]
    assert [r.differs_outside(where) for r in records] == [False, True]
    # a staged expert's stage records and the bundle's dataset copy are records too
    stage = bundle / "phase1" / "stages" / "stage2-endgame"
    stage.mkdir(parents=True)
    (stage / "config.json").write_text(json.dumps({"provenance": {"git": git}}))
    (bundle / "dataset-manifest.json").write_text(json.dumps({"provenance": {"git": cut}}))
    assert [r.file for r in bundle_records(bundle)] == [
        "phase1/stages/stage2-endgame/config.json", "dataset-manifest.json", "manifest.json",
        "evaluation.json"]


def test_settings_games_on_replicated_openings_repeat_the_replicated_games() -> None:
    """Staged against regular at batch 8 and 100 nodes on an opening the replicated
    tournament also drew: the compiled search (the settings records) plays the Python
    search's game (the replicated records) move for move, to the same result, whatever commit
    each was played at. The committed settings games share at least one such opening."""
    def games(pattern: str) -> dict[tuple[int, bool], dict[str, object]]:
        out = {}
        for path in (ROOT / "tournaments").glob(pattern):
            for line in path.read_text().splitlines():
                record = json.loads(line)
                out[(record["opening"], record["first_is_white"])] = record
        return out

    settings = games("settings/staged-vs-regular-b8-n100/games-*.jsonl")
    replicated = games("replicated/staged-b8-n100/games-*.jsonl")
    shared = sorted(set(settings) & set(replicated))
    # the match is complete: both colours of all 11 shared openings (the README says 22)
    assert len(shared) == 22 and len({opening for opening, _ in shared}) == 11
    for key in shared:
        ours, theirs = settings[key], replicated[key]
        assert ours["moves"] == theirs["moves"], key
        assert ours["result"] == theirs["result"], key
        assert {ours["provenance"]["search"], theirs["provenance"].get("search", "python")} \
            == {"native", "python"}


def test_every_settings_row_against_regular_names_its_regular_seed_and_where_it_stands() -> None:
    """From the committed results: each staged-vs-regular settings row says it plays regular
    seed 9, the weakest of three in the replicated seed grid (staged +95 to +114 Elo against
    it, +48 to +70 against seed 10, +30 to +58 against seed 11), and the 400-node row names
    the scale design's row that plays that setting over three regular seeds, a topic of the
    same table."""
    rows = verdicts.claims(ROOT / "tournaments" / "powered", SMALL, replicated=REPLICATED,
                           settings=ROOT / "tournaments" / "settings",
                           scale=ROOT / "tournaments" / "scale")
    against = [r for r in rows if r.topic == "settings: MoE vs regular"]
    assert len(against) == 5
    grid = ("regular is training seed 9; in the seed grid (3 staged seeds, b8-n100) staged "
            "scores +95 to +114 Elo against it and +48 to +70 against seed 10, +30 to +58 "
            "against seed 11")
    assert all(grid in r.note for r in against), [r.note for r in against]
    cited = [r for r in against if "the row '" in r.note]
    assert [r.paper.split(" (")[0] for r in cited] == ["staged beats regular at batch 8, 400 nodes"]
    topic = cited[0].note.split("the row '", 1)[1].split("'", 1)[0]
    assert topic in {r.topic for r in rows}
