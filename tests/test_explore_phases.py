"""The phase explorer's functions and widget (chessmoe.explore.phases), headless."""

from __future__ import annotations

import json
from pathlib import Path

import chess
import nbformat
import pytest

from chessmoe import phases
from chessmoe.explore import phases as xp


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


def test_the_replayer_lists_the_moves_and_marks_the_current_one(games: list[xp.SampleGame]
                                                                ) -> None:
    rows = xp.replay(games[0])
    listed = xp.move_list_html(rows, 4)
    assert listed.count("<span") == len(games[0].moves)
    assert "1. " + rows[1].move in listed and "2. " + rows[3].move in listed
    assert f"<b class='current'>{rows[4].move}</b>" in listed and listed.count("current") == 1
    assert "current" not in xp.move_list_html(rows, 0)
    pytest.importorskip("ipywidgets")
    widget = xp.PhaseExplorerWidget(games, ply=5)
    assert f"<b class='current'>{rows[5].move}</b>" in widget.moves.value
    assert widget.moves in widget.box.children


def test_previous_next_and_play_step_through_the_game(games: list[xp.SampleGame]) -> None:
    pytest.importorskip("ipywidgets")
    widget = xp.PhaseExplorerWidget(games, ply=0)
    assert widget.previous.disabled and not widget.next.disabled
    widget.next.click()
    widget.next.click()
    assert widget.ply.value == 2 and widget.play.value == 2
    widget.previous.click()
    assert widget.ply.value == 1 and "Ply (move)</td><td>1 (" in widget.facts.value
    widget.play.value = 7  # the play control drives the slider (and the board)
    assert widget.ply.value == 7 and "Ply (move)</td><td>7 (" in widget.facts.value
    widget.ply.value = widget.ply.max
    assert widget.next.disabled
    widget.next.click()
    assert widget.ply.value == widget.ply.max
    widget.game.value = 1
    assert widget.play.max == len(games[1].moves) == widget.ply.max


def test_the_whole_game_chart_marks_the_division_and_the_ply(games: list[xp.SampleGame]) -> None:
    import re

    rows = xp.replay(games[0])
    division = phases.lichess_division(games[0].boards())
    assert division.middle is not None
    chart = xp.game_chart_svg(rows, 12)
    starts = [int(p) for p in re.findall(r"class='division' data-ply='(\d+)'", chart)]
    assert starts == [p for p in (division.middle, division.end) if p is not None]
    shaded = re.findall(r"class='phase (\w+)'", chart)
    assert shaded[0] == "opening" and shaded[1] == "middlegame"
    assert "class='current-ply' data-ply='12'" in chart
    assert chart.count("<polyline") == 2 and f"middlegame from ply {division.middle}" in chart
    pytest.importorskip("ipywidgets")
    widget = xp.PhaseExplorerWidget(games, ply=12)
    assert widget.chart.value == chart
    widget.ply.value = 20
    assert "class='current-ply' data-ply='20'" in widget.chart.value


def test_the_board_highlights_the_last_move(games: list[xp.SampleGame]) -> None:
    pytest.importorskip("ipywidgets")
    widget = xp.PhaseExplorerWidget(games, ply=0)
    assert "lastmove" not in widget.board.value
    widget.ply.value = 1
    move = games[0].moves[0]
    for square in (move.from_square, move.to_square):
        assert f"lastmove {chess.square_name(square)}" in widget.board.value


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"game": 99}, "game must be a game index from 0 to 29 (30 games were read), got 99"),
    ({"game": -1}, "game must be a game index from 0 to 29 (30 games were read), got -1"),
    ({"ply": -1}, "ply must be from 0 to {plies} (game 0 has {plies} plies), got -1"),
    ({"ply": 10_000}, "ply must be from 0 to {plies} (game 0 has {plies} plies), got 10000"),
])
def test_a_bad_game_index_is_one_clear_line(games: list[xp.SampleGame], kwargs: dict[str, int],
                                            message: str) -> None:
    """Issue 42: game=99 raised ipywidgets' TraitError ("Invalid selection: value not found");
    the replayer names the parameter and its range in one line, and the notebook's call shows
    that line on the page (Voila hides a raised error)."""
    pytest.importorskip("ipywidgets")
    expected = message.format(plies=len(games[0].moves))
    with pytest.raises(ValueError) as caught:
        xp.PhaseExplorerWidget(games, **kwargs)
    assert str(caught.value) == expected and "\n" not in expected
    shown = xp.replayer(games, **kwargs) if "game" in kwargs else None
    if shown is not None:
        assert shown.value == f"<p style='color:#b00'>error: {expected}</p>"
    # the page's call starts a shorter game at its last ply, as before
    box = xp.replayer(games, game=1, ply=10_000)
    assert hasattr(box, "children") and len(games[1].moves) < 10_000


@pytest.mark.slow
def test_the_notebook_shows_a_bad_game_index_in_one_line(tmp_path: Path) -> None:
    """game=99 under papermill (and on the Voila page) is one line naming the index, not a
    traceback; the notebook still runs to its end."""
    from chessmoe.report import runner

    notebook = Path(__file__).resolve().parents[1] / "notebooks" / "12_phase_explorer.ipynb"
    runner.execute(notebook, tmp_path / "run.ipynb", {"games": 12, "game": 99})
    executed = nbformat.read(tmp_path / "run.ipynb", as_version=4)
    outputs = json.dumps([c.get("outputs", []) for c in executed.cells])
    assert "error: game must be a game index from 0 to 11 (12 games were read), got 99" in outputs
    assert '"error"' not in outputs and "Traceback" not in outputs
