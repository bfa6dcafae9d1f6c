"""Recorded searches: transition positions, purity table, and the search notebook."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chessmoe.games.sources import sample_path
from chessmoe.phases import lichess_division
from chessmoe.search import gating


@pytest.mark.slow
def test_transition_positions_sit_around_phase_changes() -> None:
    positions = gating.transition_positions(sample_path(), 12, offsets=(0,))
    assert len(positions) == 12
    for label, board in positions:
        assert label in ("middlegame+0", "endgame+0")
        history = board.copy()
        boards = [history.copy()]
        while history.move_stack:
            history.pop()
            boards.insert(0, history.copy())
        division = lichess_division(boards)
        ply = len(board.move_stack)
        assert ply == (division.middle if label.startswith("middle") else division.end)


def test_purity_table_counts(tmp_path: Path) -> None:
    rows = [
        {"batch_size": 4, "size": 4, "counts": [4, 0, 0], "phase": 0, "model": "phase0"},
        {"batch_size": 4, "size": 4, "counts": [1, 3, 0], "phase": 1, "model": "phase1"},
        {"batch_size": 4, "size": 1, "counts": [0, 1, 0], "phase": 1, "model": "phase1"},
    ]
    path = tmp_path
    (path / "batches.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    frame = gating.load_batches(path)
    assert frame["purity"].tolist() == [1.0, 0.75, 1.0]
    table = gating.purity_table(frame)
    assert table.loc[4, "mini-batches"] == 2  # batches of one leaf are not mini-batches
    assert table["mini-batches"].dtype.kind == "i"
    assert table.loc[4, "mean purity %"] == pytest.approx(87.5)
    assert table.loc[4, "leaves off their phase %"] == pytest.approx(12.5)
    assert table.loc[4, "phase0 %"] == pytest.approx(50.0)
    # the per-phase counts become columns n0, n1, n2 (one row per batch)
    assert frame["n0"].tolist() == [4, 1, 0] and frame["n1"].tolist() == [0, 3, 1]
    assert frame["n2"].tolist() == [0, 0, 0]
    # size 4: one pure batch of two; phase0 and phase1 each evaluated 4 of 8 leaves
    assert table.loc[4, "pure batches %"] == pytest.approx(50.0)
    assert table.loc[4, "phase1 %"] == pytest.approx(50.0)
    assert list(table.index) == [4]
    with pytest.raises(FileNotFoundError, match="make results-search"):
        gating.load_batches(path / "nothing")


@pytest.mark.slow
def test_recorded_search_and_its_notebook(tmp_path: Path) -> None:
    from chessmoe.games.datasets import build
    from chessmoe.games.sources import resolve
    from chessmoe.nets.regimes import BundleSpec, train_all
    from chessmoe.nets.training import TrainConfig
    from chessmoe.report import runner

    build(resolve("sample"), tmp_path / "data", max_games=40, progress=False)
    config = TrainConfig(model="tiny", batch_size=16, iterations=4, eval_every=2,
                         eval_samples=32, log_every=2, device="cpu", threads=1)
    train_all(tmp_path / "experts", tmp_path / "data", config,
              bundles=(BundleSpec("regular"), BundleSpec("separated")), progress=False,
              evaluate=False)
    manifest = gating.record(tmp_path / "experts" / "separated", tmp_path / "search",
                             config=gating.GatingConfig(batch_sizes=(1, 8), nodes=60,
                                                        positions=4))
    frame = gating.load_batches(tmp_path / "search")
    assert manifest["batches"] == len(frame) and set(frame["batch_size"]) == {1, 8}
    assert (frame[frame["batch_size"] == 1]["size"] == 1).all()
    figures = tmp_path / "figures"
    notebooks = Path(__file__).resolve().parents[1] / "notebooks"
    runner.execute(notebooks / "08_search_gating.ipynb", tmp_path / "08.ipynb",
               {"search_dir": str(tmp_path / "search"), "figures_dir": str(figures)})
    assert (figures / "fig03-minibatch-gating.png").exists()
    assert (figures / "extras" / "batch-purity.md").exists()
