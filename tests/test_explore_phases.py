"""The phase explorer's functions and widget (chessmoe.report.explore_phases), headless."""

from __future__ import annotations

import json
from pathlib import Path

import chess
import nbformat
import pytest

from chessmoe import phases
from chessmoe.report import explore_phases as xp


@pytest.fixture(scope="module")
def games() -> list[xp.SampleGame]:
    return xp.load_sample_games(count=30)


def test_window_scores_sum_to_the_mixedness_under_every_table(games: list[xp.SampleGame]
                                                              ) -> None:
    for board in games[0].boards()[::7]:
        for table in phases.MIXEDNESS_TABLES:
            windows = phases.window_scores(board, table)
            assert len(windows) == 49
            assert sum(w.score for w in windows) == phases.mixedness(board, table)
    start = phases.window_scores(chess.Board())
    assert sum(w.score for w in start) == 0
    assert sum(w.score for w in phases.window_scores(chess.Board(), "engine")) == 70
    a1 = start[0]
    assert (a1.name, a1.white, a1.black, a1.rank) == ("a1-b2", 4, 0, 1)


def test_position_facts_name_the_rule_that_decides() -> None:
    start = xp.position_facts(chess.Board())
    assert (start.phase, start.mixedness, start.majors_minors) == ("opening", 0, 14)
    assert (start.white_back_rank, start.black_back_rank) == (8, 8)
    endgame = xp.position_facts(chess.Board("8/5k2/8/3r4/8/2B5/5K2/8 w - - 0 50"))
    assert endgame.phase == "endgame" and endgame.reason.startswith("2 majors and minors")
    # White's rank 1 holds only the king and a rook: sparse back rank, nothing else
    sparse = xp.position_facts(chess.Board(
        "rnbqkbnr/pppppppp/8/8/8/2NBPN2/PPPPQPPP/R3K2R w KQkq - 0 1"))
    assert sparse.phase == "middlegame" and sparse.back_rank_sparse
    assert "sparse back rank (White 3" in sparse.reason and "mixedness" not in sparse.reason


def test_borderline_examples_cross_exactly_one_rule(games: list[xp.SampleGame]) -> None:
    examples = {e.title: e for e in xp.borderline_examples(games)}
    assert set(examples) == {"Mixedness crosses 150", "A back rank turns sparse",
                             "7 -> 6 majors and minors"}
    mix = examples["Mixedness crosses 150"]
    assert mix.before is not None and mix.before.mixedness <= 150 < mix.after.mixedness
    assert (mix.before.phase, mix.after.phase) == ("opening", "middlegame")
    back = examples["A back rank turns sparse"]
    assert back.before is not None and not back.before.back_rank_sparse
    assert back.after.back_rank_sparse and back.after.mixedness <= 150
    assert (back.before.phase, back.after.phase) == ("opening", "middlegame")
    end = examples["7 -> 6 majors and minors"]
    assert end.before is not None and (end.before.majors_minors, end.after.majors_minors) == (7, 6)
    assert (end.before.phase, end.after.phase) == ("middlegame", "endgame")
    # the move shown really leads from before to after
    board = chess.Board(end.before.fen)
    board.push_san(end.move)
    assert board.fen() == end.after.fen
    typical = xp.typical_examples(games)
    assert [e.after.phase for e in typical] == ["opening", "middlegame", "endgame"]


def test_mixedness_table_and_replay_use_human_columns(games: list[xp.SampleGame]) -> None:
    board = games[0].boards()[30]
    table = xp.mixedness_table(board)
    assert table["Score (points)"].sum() == phases.mixedness(board)
    assert "Rule (Lichess table)" in table.columns
    rows = xp.replay(games[0])
    frame = xp.replay_table(rows)
    assert len(frame) == len(games[0].moves) + 1
    for column in [frame.index.name, *frame.columns, *table.columns]:
        assert "_" not in column and column[0].isupper()
    division = phases.lichess_division(games[0].boards())
    assert [r.division for r in rows] == [xp.PHASE_NAMES[p] for p in division.labels()]
    assert frame.loc[30, "Mixedness (points)"] == phases.mixedness(board)
    svg = xp.window_svg(board.fen(), [w for w in phases.window_scores(board) if w.score][:2])
    assert svg.startswith("<svg") and "#ff8c00" in svg


def test_the_replayer_widget_follows_game_ply_and_table(games: list[xp.SampleGame]) -> None:
    pytest.importorskip("ipywidgets")
    widget = xp.PhaseExplorerWidget(games)
    start_board = widget.board.value
    assert "Mixedness (points)</td><td>0<" in widget.facts.value
    widget.ply.value = 30
    row = xp.replay(games[0])[30]
    assert f"Mixedness (points)</td><td>{row.mixedness}<" in widget.facts.value
    assert widget.board.value != start_board and widget.board.value.startswith("<svg")
    widget.table.value = "engine"
    engine = phases.mixedness(games[0].boards()[30], "engine")
    assert f"Mixedness (points)</td><td>{engine}<" in widget.facts.value
    widget.ply.value = widget.ply.max
    widget.game.value = 1
    assert widget.ply.max == len(games[1].moves) and widget.ply.value <= widget.ply.max
    assert "Phase (whole-game division)" in widget.facts.value


@pytest.mark.slow
def test_the_notebook_parameters_match_and_it_runs(tmp_path: Path) -> None:
    from chessmoe.report import params, runner
    from tests.test_notebooks import _parameters_cell

    notebook = Path(__file__).resolve().parents[1] / "notebooks" / "12_phase_explorer.ipynb"
    assert _parameters_cell(notebook) == vars(params.PhaseExplorerParams())
    runner.execute(notebook, tmp_path / "run.ipynb", {"games": 12, "ply": 10})
    executed = nbformat.read(tmp_path / "run.ipynb", as_version=4)
    outputs = json.dumps([c.get("outputs", []) for c in executed.cells])
    assert "12 games read" in outputs and '"error"' not in outputs
    assert "Mixedness crosses 150" in outputs and "<svg" in outputs
    assert "application/vnd.jupyter.widget-view+json" in outputs
