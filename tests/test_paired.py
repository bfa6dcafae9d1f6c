"""Paired test-loss differences (chessmoe.nets.evaluation.compare_bundles, ``chessmoe
compare``): one bundle's loss minus another's on the same positions, the standard error
clustered by game, recorded beside the bundles and read back by the reports."""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from chessmoe.cli import main
from chessmoe.games.datasets import DatasetStore
from chessmoe.nets.bundles import PAIRED_LOSSES, PairedLoss, paired_loss
from chessmoe.nets.evaluation import clustered_se, compare_bundles, evaluate_bundle
from chessmoe.nets.regimes import train_bundle
from tests.test_trunk import TRUNK_SMOKE


def test_the_clustered_standard_error_by_hand_and_with_one_position_a_game() -> None:
    values = np.array([1.0, 2.0, 3.0, 4.0])
    # deviations -1.5, -0.5 | 0.5, 1.5: cluster sums -2 and 2; sqrt(2 / 1 x 8) / 4 = 1
    assert clustered_se(values, np.array([7, 7, 3, 3])) == pytest.approx(1.0)
    # one observation a cluster: the usual standard error, std(ddof=1) / sqrt(n)
    rng = np.random.default_rng(1)
    x = rng.normal(size=50)
    assert clustered_se(x, np.arange(50)) == pytest.approx(np.std(x, ddof=1) / math.sqrt(50))
    # positions of a game moving together widen it; one game is no estimate
    together = np.repeat(x[:10], 5)
    assert clustered_se(together, np.repeat(np.arange(10), 5)) > clustered_se(
        together, np.arange(50))
    assert clustered_se(x, np.zeros(50, dtype=np.int64)) == 0.0


@pytest.fixture(scope="module")
def bundles(dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A trained single network and a trained shared-trunk mixture, both evaluated."""
    root = tmp_path_factory.mktemp("experts") / "smoke"
    train_bundle("regular", root, dataset, TRUNK_SMOKE, progress=False)
    train_bundle("trunk", root, dataset, replace(TRUNK_SMOKE, seed=3), progress=False)
    for name in ("regular", "trunk"):
        evaluate_bundle(root / name, dataset, device="cpu")
    return root


@pytest.mark.slow
def test_the_paired_difference_is_table_1s_difference_with_a_game_clustered_error(
        bundles: Path, dataset: Path) -> None:
    table = {name: json.loads((bundles / name / "evaluation.json").read_text())["results"]
             for name in ("regular", "trunk")}
    store = DatasetStore(dataset)
    games = np.unique(store.column("game_global")[store.indices("test", "no-phases",
                                                                "lichess")]).size
    rows = compare_bundles(bundles, "trunk", "regular", dataset,
                           test_sets=("no-phases", "endgame"), device="cpu")
    for test_set, found in zip(("no-phases", "endgame"), rows, strict=True):
        assert found.test_set == test_set
        trunk, regular = table["trunk"]["mixture"][test_set], table["regular"]["baseline"][
            test_set]
        assert found.difference == pytest.approx(trunk["loss"] - regular["loss"], abs=1e-5)
        assert found.policy_ce == pytest.approx(trunk["policy_ce"] - regular["policy_ce"],
                                                abs=1e-5)
        assert found.value_mse == pytest.approx(trunk["value_mse"] - regular["value_mse"],
                                                abs=1e-5)
        assert found.positions == trunk["n"] == regular["n"]
        assert found.se > 0 and found.games <= games
    assert found.games < games  # the endgame positions come from fewer games
    # recorded once per pair and test set, read back in either order
    records = json.loads((bundles / PAIRED_LOSSES).read_text())["comparisons"]
    assert [(r["first"], r["second"], r["test_set"]) for r in records] == [
        ("trunk", "regular", "no-phases"), ("trunk", "regular", "endgame")]
    [again] = compare_bundles(bundles, "regular", "trunk", dataset, device="cpu")
    records = json.loads((bundles / PAIRED_LOSSES).read_text())["comparisons"]
    assert len(records) == 2 and records[-1]["first"] == "regular"
    forward = paired_loss(bundles, "trunk", "regular")
    assert forward is not None and forward.difference == pytest.approx(-again.difference)
    assert forward.se == again.se and forward.decided == again.decided
    assert paired_loss(bundles, "regular", "trunk") == again
    assert paired_loss(bundles, "regular", "trunk", "opening") is None  # not measured


@pytest.mark.slow
def test_a_retrained_bundle_voids_its_record_and_bad_requests_say_why(
        bundles: Path, dataset: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "experts" / "smoke"
    shutil.copytree(bundles, root)
    compare_bundles(root, "trunk", "regular", dataset, device="cpu")
    assert paired_loss(root, "trunk", "regular") is not None
    manifest = json.loads((root / "regular" / "manifest.json").read_text())
    manifest["experts"]["baseline"]["sha256"] = "0" * 64  # as if retrained
    (root / "regular" / "manifest.json").write_text(json.dumps(manifest))
    assert paired_loss(root, "trunk", "regular") is None
    before = (root / PAIRED_LOSSES).read_bytes()
    with pytest.raises(ValueError, match="not trunk with itself"):
        compare_bundles(root, "trunk", "trunk", dataset)
    with pytest.raises(FileNotFoundError, match="no trained bundle staged"):
        compare_bundles(root, "trunk", "staged", dataset)
    with pytest.raises(ValueError, match="unknown test set 'middle'"):
        compare_bundles(root, "trunk", "regular", dataset, test_sets=("opening", "middle"))
    evaluation = json.loads((root / "trunk" / "evaluation.json").read_text())
    evaluation["inputs"]["dataset_manifest_sha256"] = "f" * 64
    (root / "trunk" / "evaluation.json").write_text(json.dumps(evaluation))
    with pytest.raises(ValueError, match="trunk was evaluated on another dataset"):
        compare_bundles(root, "trunk", "regular", dataset)
    assert (root / PAIRED_LOSSES).read_bytes() == before  # nothing written on an error
    code = main(["compare", "trunk", "staged", "--profile", "smoke",
                 "--results", str(tmp_path), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "no trained bundle staged" in err


def test_a_record_reads_back_as_written() -> None:
    row = PairedLoss("a", "b", "no-phases", 100, 10, 0.02, 0.005, 0.021, -0.01)
    assert PairedLoss.from_dict(row.to_dict()) == row
    assert row.to_dict()["interval_95"] == list(row.interval())  # what documents quote
    assert row.interval() == pytest.approx((0.02 - 1.96 * 0.005, 0.02 + 1.96 * 0.005))
    assert row.decided and not replace(row, se=0.011).decided
