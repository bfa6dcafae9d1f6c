"""Tournament projection (chessmoe.play.projection): hand-computed cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from chessmoe.play.grids import paper_spec
from chessmoe.play.projection import (
    Calibration,
    GameRate,
    format_projection,
    measure_games,
    project,
    project_from_games,
    random_bundles,
)
from chessmoe.play.tournament import projection_parts


def test_a_cpu_projection_adds_tree_and_network_over_the_workers() -> None:
    calibration = Calibration(tree_seconds_per_node=1e-4, network_positions_per_second=1e4,
                              network="fake", cpu_workers=2, gpus=0)
    [row] = project([("part", [(10, 100, None), (10, None, 100)])], calibration,
                    mean_plies=100)
    assert row.games == 20 and row.matches == 2
    assert row.nodes == pytest.approx(10 * 100 * 100)
    assert row.tree_hours == pytest.approx(10 / 3600)  # 1e5 nodes x 100 us
    assert row.network_hours == pytest.approx(10 / 3600)  # 1e5 positions at 1e4/s
    assert row.timed_hours == pytest.approx(100 / 3600)  # 10 games x 100 plies x 0.1 s
    assert row.wall_hours == pytest.approx((20 + 100) / 2 / 3600)


def test_on_gpus_the_slower_of_tree_and_network_decides() -> None:
    calibration = Calibration(1e-4, 1e4, "fake", cpu_workers=4, gpus=1)
    [row] = project([("part", [(10, 100, None)])], calibration, mean_plies=100)
    # tree: 10 s over 4 workers = 2.5 s; network: 10 s on one GPU
    assert row.wall_hours == pytest.approx(10 / 3600)
    two = project([("part", [(10, 100, None)])], Calibration(1e-4, 1e4, "fake", 4, 4),
                  mean_plies=100)[0]
    assert two.wall_hours == pytest.approx(2.5 / 3600)


def test_the_paper_grid_has_the_papers_size() -> None:
    parts = dict(projection_parts(paper_spec("results/experts/paper")))
    assert len(parts["method: staged"]) == 55  # 5 batch sizes x (6 node limits + 5 times)
    assert sum(g for g, _, _ in parts["method: staged"]) == 55 * 1000
    assert len(parts["single-expert ablation"]) == 33
    rows = project(list(parts.items()), Calibration(1e-4, 1e5, "fake", 16, 1))
    text = format_projection(rows, Calibration(1e-4, 1e5, "fake", 16, 1))
    assert "total" in text and "days" in text


def _rate(nodes: int, per_second: float) -> GameRate:
    return GameRate("fake", nodes, 8, 4, 2, 0, games=10, plies=1000,
                    nodes=int(per_second * 100), seconds=100.0)


def test_a_measured_projection_uses_the_nearest_node_limit_and_times_moves() -> None:
    rates = [_rate(100, 1000.0), _rate(800, 2000.0)]
    assert rates[1].nodes_per_second == pytest.approx(2000.0)
    assert rates[0].games_per_hour == pytest.approx(360.0)
    [row] = project_from_games([("part", [(10, 100, None), (10, 400, None), (10, None, 100)])],
                               rates, workers=2, mean_plies=100)
    # 1e5 nodes at 1000/s; 4e5 nodes at the 800-node rate (400 is nearer 800 than 100 in
    # log scale); 10 timed games x 100 plies x 0.1 s over 2 workers
    assert row.wall_hours == pytest.approx((100 + 200 + 50) / 3600)
    assert row.timed_hours == pytest.approx(100 / 3600)
    assert "-" in format_projection([row], "measured")
    with pytest.raises(ValueError, match="at least one"):
        project_from_games([("part", [(10, 100, None)])], [], workers=1)


def test_random_bundles_are_a_mixture_and_a_regular_network(tmp_path: Path) -> None:
    from chessmoe.search.experts import mixture_from_bundle, network_from_dir

    experts, regular = random_bundles("tiny", tmp_path)
    mixture = mixture_from_bundle(experts, device="cpu")
    assert len(mixture.experts) == 3 and mixture.baseline is not None
    assert network_from_dir(regular, device="cpu").model is not None


@pytest.mark.slow
def test_measured_games_are_played_through_the_runner() -> None:
    rate = measure_games(preset="tiny", backend="onnx", device="cpu", nodes=12, batch_size=4,
                         games_at_once=2, workers=1, max_plies=16)
    assert rate.games == 2 and 2 <= rate.plies <= 2 * 16
    # every move of a node-limited game searches its 12 new nodes (or fewer when the
    # root's moves are all decided): the total comes from the game records
    assert rate.plies <= rate.nodes <= 12 * rate.plies
    assert rate.nodes_per_second > 0 and "onnx on cpu" in rate.network


def test_measure_games_needs_plan_and_positive_limits(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    from chessmoe.cli import main

    assert main(["tournament", "--measure-games", "100"]) == 2
    assert main(["tournament", "--plan", "--measure-games", "0"]) == 2
    assert "--measure-games takes positive node limits" in capsys.readouterr().err
