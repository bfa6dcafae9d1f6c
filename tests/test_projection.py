"""Tournament projection (chessmoe.play.projection): hand-computed cases."""

from __future__ import annotations

import pytest

from chessmoe.play.projection import Calibration, format_projection, project
from chessmoe.play.tournament import paper_spec, projection_parts


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
