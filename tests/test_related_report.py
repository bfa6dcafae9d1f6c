"""The related engines' report reads the committed runs, survives a missing engine and names a
cut metrics log."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from chessmoe._io.errors import KitError
from chessmoe.report import artefacts, stems
from chessmoe.report.figures import related

RELATED = Path(__file__).resolve().parents[1] / "results" / "related"


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_loaders_read_the_committed_runs() -> None:
    mais = related.load_mais(RELATED / "mais")
    assert mais is not None
    mais_lines = _lines(RELATED / "mais" / "metrics.jsonl")
    assert len(mais.batches) == len(mais_lines) == 21  # batch 0 (untrained) + 20 batches
    assert mais.batches[-1].games == mais.games == 200
    assert mais.batches[0].fresh_mae is None
    assert mais.batches[-1].val_mae == mais_lines[-1]["val_mae"]
    summary = json.loads((RELATED / "mais" / "summary.json").read_text())
    assert mais.zero_predictor_mae == summary["val_mae_zero_predictor"]
    assert mais.vs_stockfish is not None and mais.vs_stockfish.games == 10

    deep = related.load_deepchess(RELATED / "deepchess")
    assert deep is not None
    comparator = [r for r in _lines(RELATED / "deepchess" / "metrics.jsonl")
                  if r["phase"] == "comparator"]
    assert len(deep.epochs) == deep.comparator_epochs == len(comparator)
    assert deep.epochs[-1].held_out_accuracy == comparator[-1]["held_out_accuracy"]
    assert deep.epochs[-1].train_accuracy == comparator[-1]["train_accuracy"]

    nt = related.load_ntuple(RELATED / "ntuple")
    assert nt is not None
    nt_lines = _lines(RELATED / "ntuple" / "metrics.jsonl")
    assert [i.iteration for i in nt.iterations] == [r["iteration"] for r in nt_lines]
    assert nt.iterations[0].train_agreement is None
    vs = json.loads((RELATED / "ntuple" / "trained-vs-untrained" / "summary.json").read_text())
    assert (nt.vs_untrained.wins, nt.vs_untrained.draws, nt.vs_untrained.losses) == (
        vs["wins"], vs["draws"], vs["losses"])
    assert nt.vs_untrained.score == vs["score"]


def test_table_rows_carry_the_runs_and_the_documents_numbers() -> None:
    rows = {r["Engine"].split(" ")[0]: r for r in related.related_rows(RELATED)}
    deep = related.load_deepchess(RELATED / "deepchess")
    assert deep is not None
    assert f"{100 * deep.epochs[-1].held_out_accuracy:.1f} %" in rows["DeepChess"]["Ours"]
    assert rows["DeepChess"]["Document's"] == "98.2 % / 98.0 %"
    assert rows["n-tuple"]["Document's"] == "65.25 %"
    assert "750 positions/s" in rows["MAIS"]["Speed (ours vs document)"]
    assert "0-0-10 (W-D-L)" in rows["MAIS"]["Vs Stockfish"]


def test_a_missing_engine_is_not_trained(tmp_path: Path) -> None:
    shutil.copytree(RELATED / "deepchess", tmp_path / "deepchess")
    assert related.load_mais(tmp_path / "mais") is None
    rows = {r["Engine"].split(" ")[0]: r for r in related.related_rows(tmp_path)}
    assert rows["MAIS"]["Ours"] == rows["n-tuple"]["Ours"] == "not trained"
    assert rows["DeepChess"]["Ours"] != "not trained"
    fig = related.fig_related_learning_curves(tmp_path, tmp_path / "out")
    assert all(p.is_file() for p in fig.paths)


def test_figure_and_table_are_written_under_the_promised_stems(tmp_path: Path) -> None:
    table = related.table_related_engines(RELATED, tmp_path)
    fig = related.fig_related_learning_curves(RELATED, tmp_path)
    assert (table.stem, fig.stem) == (stems.RELATED_ENGINES, stems.RELATED_LEARNING_CURVES)
    promised = artefacts.promised("13_related_engines.ipynb", tmp_path)
    assert sorted(promised) == sorted([*table.paths, *fig.paths])
    assert all(p.stat().st_size > 0 for p in promised)
    assert len(table.table) == 3


def test_a_cut_metrics_log_is_named(tmp_path: Path) -> None:
    shutil.copytree(RELATED / "mais", tmp_path / "mais")
    log = tmp_path / "mais" / "metrics.jsonl"
    text = log.read_text()
    log.write_text(text[: len(text) - 40])  # the last record cut mid-line
    with pytest.raises(KitError, match=r"metrics\.jsonl.*line\(s\) \[21\]"):
        related.load_mais(tmp_path / "mais")
