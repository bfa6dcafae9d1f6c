"""Units sent elsewhere: absolute paths, the networks' checksums and the kit's version, checked
on the client and again by the worker before it writes (chessmoe.play.placement)."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from chessmoe._io.fsutil import sha256_file
from chessmoe.play.grids import smoke_spec
from chessmoe.play.match import Adjudication, PlayerSpec
from chessmoe.play.openings import embedded_suite_path
from chessmoe.play.placement import (
    Need,
    Placement,
    PlacementError,
    absolute,
    code_version,
    place_openings,
    place_player,
    same_kit,
)
from chessmoe.play.tournament import MatchSpec, TournamentSpec, placed_units, run_unit
from chessmoe.search.evaluators import EvaluatorSpec

REPO = Path(__file__).resolve().parents[1]
SMALL = REPO / "results" / "experts" / "small"


def _manifest_files(bundle: Path) -> dict[str, str]:
    """Every network file a bundle's manifest lists, with the sha256 it records (written by
    the trainer, independently of the placement code)."""
    manifest = json.loads((bundle / "manifest.json").read_text())
    return {str((bundle / e["checkpoint"]).resolve()): e["sha256"]
            for e in manifest["experts"].values()}


def _copy_bundles(to: Path) -> Path:
    for name in ("separated", "regular"):
        shutil.copytree(SMALL / name, to / name)
    return to


def test_weight_files_are_the_files_a_bundle_records() -> None:
    """A mixture reads its three experts and, through its manifest's ``../regular``, the regular
    network; the regular bundle its one network; a uniform search none."""
    mixture = EvaluatorSpec(network=str(SMALL / "separated")).weight_files()
    regular = EvaluatorSpec(network=str(SMALL / "regular")).weight_files()
    assert {str(p.resolve()) for p in mixture} == (set(_manifest_files(SMALL / "separated"))
                                                  | set(_manifest_files(SMALL / "regular")))
    assert len(mixture) == 4
    assert [str(p.resolve()) for p in regular] == list(_manifest_files(SMALL / "regular"))
    assert EvaluatorSpec(uniform=True).weight_files() == ()


def test_a_player_is_placed_with_absolute_paths_and_the_checksums_its_manifest_records(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    player = PlayerSpec.mcts("separated", EvaluatorSpec.recorded(
        network="results/experts/small/separated"), nodes=20)
    placed, needs = place_player(player)
    assert placed.experts == str(SMALL / "separated")
    assert replace(placed, experts=player.experts) == player  # nothing else changes
    recorded = {**_manifest_files(SMALL / "separated"), **_manifest_files(SMALL / "regular")}
    assert {str(Path(n.path).resolve()): n.sha256 for n in needs} == recorded
    assert all(Path(n.path).is_absolute() for n in needs)


def test_a_placed_unit_is_met_from_any_directory(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative experts, --out and a relative opening suite, placed in one directory, are
    found again by a process working in another (a worker started anywhere)."""
    client = tmp_path / "client"
    (client / "openings").mkdir(parents=True)
    shutil.copy(embedded_suite_path(), client / "openings" / "suite.epd")
    monkeypatch.chdir(client)
    spec = replace(smoke_spec(os.path.relpath(SMALL, client)), openings="openings/suite.epd")
    todo = placed_units(spec, absolute("out"), None)
    assert {u.openings for u in todo} == {str(client / "openings" / "suite.epd")}
    needs = {n.path for u in todo for n in u.placement.needs}
    assert str(client / "out") in needs
    assert all(Path(p).is_absolute() for p in needs)
    assert {u.match.first.experts for u in todo} == {str(absolute(SMALL / "separated"))}
    (client / "out").mkdir()
    monkeypatch.chdir(tmp_path)  # the worker's directory
    for unit in todo:
        assert unit.placement.problem() is None
    monkeypatch.chdir(client)
    with pytest.raises(PlacementError, match="nowhere/separated does not exist"):
        placed_units(smoke_spec("nowhere"), absolute("out"), None)


def test_a_worker_reading_another_copy_of_a_network_is_refused(tmp_path: Path) -> None:
    bundles = _copy_bundles(tmp_path / "experts")
    player = PlayerSpec.mcts("separated", EvaluatorSpec.recorded(
        network=str(bundles / "separated")), nodes=20)
    _, needs = place_player(player)
    meets = Placement(needs, version=code_version())
    assert meets.problem() is None
    changed = bundles / "regular" / "baseline" / "model.pt"
    shutil.copy(bundles / "separated" / "phase0" / "model.pt", changed)  # same name, other net
    line = meets.problem()
    assert line is not None and "\n" not in line
    assert f"reads {changed.resolve()} (network of player 'separated') with sha256 " \
           f"{sha256_file(changed)[:12]}..., not the client's " \
           f"{sha256_file(SMALL / 'regular' / 'baseline' / 'model.pt')[:12]}" in line
    assert line.startswith(f"process {os.getpid()} on ")
    (bundles / "separated" / "phase1" / "model.pt").unlink()
    line = meets.problem()
    assert line is not None and f"cannot see {bundles / 'separated' / 'phase1' / 'model.pt'}" \
        " (network of player 'separated')" in line
    assert f"(started in {os.getcwd()})" in line


def test_another_kit_version_or_suite_or_an_unwritable_out_is_refused(tmp_path: Path) -> None:
    assert "runs chessmoe " + code_version() + ", the client 0.0.1" in str(
        Placement(version="0.0.1").problem())
    assert Placement(version=code_version()).problem() is None
    assert same_kit("0.1.0 (commit 0123456789ab)", "0.1.0 (commit 0123456789ab)")
    assert not same_kit("0.1.0 (commit 0123456789ab)", "0.1.0 (commit 123456789abc)")
    assert same_kit("0.1.0 (commit 0123456789ab)", "0.1.0")  # a worker without git
    assert not same_kit("0.1.0", "0.2.0 (commit 0123456789ab)")
    openings, digest, needs = place_openings("embedded", None)
    assert (openings, digest, needs) == ("embedded", sha256_file(embedded_suite_path()), ())
    Placement(suite_sha256=digest).check_suite(embedded_suite_path())
    with pytest.raises(PlacementError, match=r"reads the opening suite .* not the client's "
                                             r"0123456789ab"):
        Placement(suite_sha256="0123456789ab" * 5).check_suite(embedded_suite_path())
    plain = tmp_path / "file"
    plain.write_text("")
    assert "cannot write into" in str(Placement(
        (Need(str(plain), "the tournament directory (--out)", writable=True),)).problem())


def test_a_unit_whose_worker_lacks_a_path_writes_nothing(tmp_path: Path) -> None:
    uniform = PlayerSpec(name="u", uniform=True, nodes=4, batch_size=1)
    spec = TournamentSpec("t", (MatchSpec("m", uniform, replace(uniform, name="v"), 1),),
                          pairs_per_shard=1, adjudication=Adjudication(max_plies=4))
    missing = str(tmp_path / "gone" / "model.pt")
    (unit,) = placed_units(spec, tmp_path / "out", None)
    unit = replace(unit, placement=replace(
        unit.placement, needs=(Need(missing, "network of player 'u'", "0" * 64),)))
    with pytest.raises(PlacementError, match=f"cannot see {missing} "):
        run_unit(unit, str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()
