"""The phase explorer's functions, games and widget (chessmoe.explore.phases,
chessmoe.explore.phase_games, chessmoe.explore.phase_widget), headless."""

from __future__ import annotations

import gzip
import html
import itertools
import json
import re
from pathlib import Path

import chess
import nbformat
import pytest

from chessmoe import phases
from chessmoe.explore import phase_games as pg
from chessmoe.explore import phases as xp
from chessmoe.report import params
from chessmoe.report.params import PhaseExplorerParams

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "12_phase_explorer.ipynb"
LICHESS = ROOT.parent / "shared" / "data" / "lichess_db_standard_rated_2013-01_first5000.pgn"

CHESS960 = """[Event "a Chess960 game"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"]
[Result "1-0"]

1. e4 e5 1-0
"""


@pytest.fixture(scope="module")
def game_set() -> pg.GameSet:
    return pg.load_games()


@pytest.fixture(scope="module")
def long_game(game_set: pg.GameSet) -> pg.SampleGame:
    return game_set.game(4)  # 99 plies: opening, middlegame and endgame


def _widget(game_set: pg.GameSet, **kwargs: object) -> object:
    pytest.importorskip("ipywidgets")
    from chessmoe.explore import phase_widget as pe

    return pe.PhaseExplorerWidget(game_set, **kwargs)  # type: ignore[arg-type]


def test_the_default_games_are_the_kits_human_lichess_games(game_set: pg.GameSet) -> None:
    """The first 100 Lichess games of January 2013 (CC0), each listed by its number in the
    file: the first two are 5-ply bullet games the paper's filters would drop, kept here."""
    assert game_set.seen == 100 and len(game_set.games) == 100 and not game_set.skipped
    assert game_set.numbers() == list(range(1, 101))
    assert game_set.games[0].label == "game 1: garlic - Viktoriya 1-0, 5 plies"
    assert game_set.game(4).label == "game 4: yehshua - Pozitiv 1-0, 99 plies"
    readme = (pg.default_games_path().parent / "README.md").read_text()
    assert "CC0" in readme and "database.lichess.org" in readme
    head = pg.default_games_path().read_text().split("\n\n", 2)
    assert '[Site "https://lichess.org/3y88wwzz"]' in head[0]
    assert head[1] == "1. g3 d5 2. f4 Bf5 3. Bg2 1-0"


def test_every_skipped_game_is_named_by_its_number_and_reason() -> None:
    """Games 2 (Chess960) and 3 (an illegal move) of a pasted PGN are skipped and named; games
    1 and 4 keep their numbers in the file."""
    text = ("[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n" + CHESS960
            + "\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n[Result \"1/2-1/2\"]\n\n1. d4 d5 1/2-1/2\n")
    got = pg.read_pgn_text(text)
    assert got.numbers() == [1, 4] and got.seen == 4
    assert [(s.number, s.reason) for s in got.skipped] == [(2, "variant"), (3, "illegal_move")]
    assert got.skipped[0].text() == ("game 2: not standard chess (Variant header or Chess960 "
                                     "castling): Chess960")
    assert got.skipped[1].text().startswith("game 3: a main-line move that is illegal or "
                                            "unparsable: after 2 plies")
    assert got.report().startswith("2 of 4 games read from the pasted PGN; skipped: game 2: ")
    with pytest.raises(ValueError, match=r"^game 2: not standard chess .* so it cannot be "
                                         r"replayed$"):
        got.game(2)
    with pytest.raises(ValueError, match=r"game 9 is not among the games read from the "
                                         r"pasted PGN \(games 1 to 4\)"):
        got.game(9)
    with pytest.raises(ValueError, match="the PGN is empty"):
        pg.read_pgn_text("  \n")
    # an upload: compressed as its name says
    upload = pg.read_pgn_bytes(gzip.compress(CHESS960.encode()), "mine.pgn.gz")
    assert upload.games == () and upload.skipped[0].reason == "variant"
    broken = pg.read_pgn_bytes(b"not zstd at all", "upload.zst")
    assert broken.games == () and broken.skipped[0].text().startswith(
        "game 1: a compressed stream or archive member could not be read to its end: ")


def test_window_scores_sum_to_the_mixedness_under_every_table(long_game: pg.SampleGame) -> None:
    for board in long_game.boards()[::7]:
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


def test_borderline_examples_cross_exactly_one_rule(game_set: pg.GameSet) -> None:
    games = game_set.games
    examples = {e.title: e for e in xp.borderline_examples(games)}
    assert set(examples) == {"Mixedness crosses 150", "A back rank turns sparse",
                             "7 -> 6 majors and minors"}
    mix = examples["Mixedness crosses 150"]
    assert mix.before is not None and mix.before.mixedness <= 150 < mix.after.mixedness
    assert (mix.before.phase, mix.after.phase) == ("opening", "middlegame")
    back = examples["A back rank turns sparse"]
    assert back.before is not None and not back.before.back_rank_sparse
    assert back.after.back_rank_sparse and back.after.mixedness <= 150
    end = examples["7 -> 6 majors and minors"]
    assert end.before is not None and (end.before.majors_minors, end.after.majors_minors) == (7, 6)
    board = chess.Board(end.before.fen)
    board.push_san(end.move)
    assert board.fen() == end.after.fen
    typical = xp.typical_examples(games)
    assert [e.after.phase for e in typical] == ["opening", "middlegame", "endgame"]


def test_the_worked_example_shows_the_windows_the_move_changed(game_set: pg.GameSet) -> None:
    """Issue 58: the example highlighted the five top-scoring windows (lone pawns on rank 2);
    it now shows the windows whose scores the crossing move changed: exactly those, their
    changes summing to the mixedness's change (138 -> 161 in game 5)."""
    worked = xp.worked_example(game_set.games)
    assert worked is not None
    e = worked.example
    assert e.before is not None and e.game.startswith("game 5: ")
    assert (e.before.mixedness, e.after.mixedness) == (138, 161)
    before = phases.window_scores(chess.Board(e.before.fen))
    after = phases.window_scores(chess.Board(e.after.fen))
    changed = {a.name for b, a in zip(before, after, strict=True) if a.score != b.score}
    assert {c.after.name for c in worked.changes} == changed
    assert sum(c.delta for c in worked.changes) == 161 - 138
    assert [abs(c.delta) for c in worked.changes] == sorted(
        (abs(c.delta) for c in worked.changes), reverse=True)
    page = xp.worked_example_html(game_set.games)
    assert "takes the mixedness from 138 to 161, over 150" in page
    assert "their changes sum to +23 = 161 - 138" in page
    assert page.count("<tr>") == len(worked.changes) + 1
    # no crossing in these games: one line says so, no other position stands in
    short = [game_set.game(1)]
    assert xp.worked_example(short) is None
    none = xp.worked_example_html(short)
    assert none.startswith("<p class='no-crossing'>None of these games has a move that takes "
                           "the mixedness over 150") and "<svg" not in none


def test_mixedness_table_and_replay_use_human_columns(long_game: pg.SampleGame) -> None:
    board = long_game.boards()[30]
    table = xp.mixedness_table(board)
    assert table["Score (points)"].sum() == phases.mixedness(board)
    assert "Rule (Lichess table)" in table.columns
    rows = xp.replay(long_game)
    frame = xp.replay_table(rows)
    assert len(frame) == len(long_game.moves) + 1
    for column in [frame.index.name, *frame.columns, *table.columns]:
        assert "_" not in column and column[0].isupper()
    division = phases.lichess_division(long_game.boards())
    assert [r.division for r in rows] == [xp.PHASE_NAMES[p] for p in division.labels()]
    assert frame.loc[30, "Mixedness (points)"] == phases.mixedness(board)


def test_every_definition_has_a_strip(long_game: pg.SampleGame) -> None:
    rows = pg.definition_strips(long_game)
    boards = long_game.boards()
    assert [r.name for r in rows] == [
        "lichess table, position only", "lichess table, whole-game division",
        "lichess-2025 table, position only", "lichess-2025 table, whole-game division",
        "engine table, position only", "engine table, whole-game division",
        "move count, 2 phases", "move count, 3 phases", "move count, 4 phases",
        "move count, 5 phases", "tapered (Stockfish's material weight)"]
    assert all(len(r.labels) == len(boards) for r in rows)
    assert list(rows[0].labels) == [r.phase for r in xp.replay(long_game)]
    assert list(rows[5].labels) == [r.division for r in xp.replay(long_game, "engine")]
    three = phases.phase_definition("movecount3")
    assert list(rows[7].labels) == [three.phase_names[three.phase(b)] for b in boards]
    assert rows[-1].values[0] == 1.0 and rows[-1].values[-1] == phases.tapered_alpha(boards[-1])
    # the engine table calls the start position a middlegame candidate (70 points) but the
    # divisions of the three tables differ somewhere in this game
    assert rows[1].labels != rows[5].labels
    svg = xp.strips_svg(rows, 30)
    assert svg.count("class='current-ply' data-ply='30'") == 1
    assert svg.count("<text") == len(rows) + 3
    runs = sum(1 + sum(a != b for a, b in itertools.pairwise(r.labels)) for r in rows[:-1])
    assert svg.count("<rect") == runs + len(boards)  # a band per run, one per ply tapered
    assert "<title>lichess table, whole-game division: opening, plies 0-21</title>" in svg


def test_phase_lengths_and_triggers_follow_the_division(game_set: pg.GameSet) -> None:
    """Each game's trigger, re-derived here from the three rules at the division's first
    middlegame board, and its phase lengths, which cover every board once."""
    summary = pg.phase_summary(game_set.games)
    assert len(summary.games) == 100
    for game, got in zip(game_set.games, summary.games, strict=True):
        boards = game.boards()
        division = phases.lichess_division(boards)
        assert got.opening + got.middlegame + got.endgame == len(boards)
        if division.middle is None:
            assert got.trigger == "never" and got.middlegame == 0
            continue
        b = boards[division.middle]
        hits = [phases.mixedness(b) > 150, phases.backrank_sparse(b), phases.majors_minors(b) <= 10]
        expected = ("several at once" if sum(hits) > 1 else
                    ("mixedness alone", "back rank alone", "material alone")[hits.index(True)])
        assert got.trigger == expected and got.opening == division.middle
    counts = summary.trigger_counts()
    assert sum(counts.values()) == 100 and list(counts) == list(pg.TRIGGERS)
    assert summary.lengths("endgame") == [g.endgame for g in summary.games if g.endgame]
    with pytest.raises(ValueError, match="table must be one of lichess, lichess-2025, engine"):
        pg.phase_summary(game_set.games, "fide")


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.skipif(not LICHESS.exists(), reason=f"{LICHESS} is absent")
def test_the_triggers_of_the_lichess_excerpt_are_the_issues() -> None:
    """Issue 58 counted which rule starts the middlegame on the 4,885 kept games of the Lichess
    excerpt: mixedness alone 39 %, back rank 30 %, material 20 %, several 5 %, never 5 %."""
    from chessmoe.games import pgn

    games = [pg.SampleGame(r.ordinal + 1, "", r.start_fen, tuple(r.moves))
             for r in pgn.iter_games(LICHESS)]
    shares = pg.phase_summary(games).trigger_shares()
    assert len(games) == 4885
    assert {k: round(100 * v) for k, v in shares.items()} == {
        "mixedness alone": 39, "back rank alone": 30, "material alone": 20,
        "several at once": 5, "never": 5}


def test_the_replayer_follows_game_ply_and_table(game_set: pg.GameSet) -> None:
    widget = _widget(game_set, game=4)
    assert "Mixedness (points)</td><td>0<" in widget.facts.value  # type: ignore[attr-defined]
    widget.ply.value = 30  # type: ignore[attr-defined]
    row = xp.replay(game_set.game(4))[30]
    assert f"Mixedness (points)</td><td>{row.mixedness}<" in widget.facts.value  # type: ignore[attr-defined]
    widget.table.value = "engine"  # type: ignore[attr-defined]
    engine = phases.mixedness(game_set.game(4).boards()[30], "engine")
    assert f"Mixedness (points)</td><td>{engine}<" in widget.facts.value  # type: ignore[attr-defined]
    assert "start position scores 70" in widget.table_note.value  # type: ignore[attr-defined]
    widget.ply.value = widget.ply.max  # type: ignore[attr-defined]
    widget.game.value = 8  # type: ignore[attr-defined]
    assert widget.ply.max == len(game_set.game(8).moves)  # type: ignore[attr-defined]


def test_the_table_follows_the_chosen_game(game_set: pg.GameSet) -> None:
    """Issue 58: "the whole game as a table" always showed the first game."""
    widget = _widget(game_set, game=4)
    table = widget.game_table  # type: ignore[attr-defined]
    assert "game 4: yehshua - Pozitiv" in table.value and table.value.count("<tr>") == 101
    widget.game.value = 8  # type: ignore[attr-defined]
    eighth = xp.replay(game_set.game(8))
    assert "game 8: " in table.value and "game 4: " not in table.value
    assert table.value.count("<tr>") == len(eighth) + 1
    assert f"<td>{eighth[1].move}</td>" in table.value
    assert [label.split(":")[0] for label, _ in widget.game.options][:3] == [  # type: ignore[attr-defined]
        "game 1", "game 2", "game 3"]
    assert [v for _, v in widget.game.options] == game_set.numbers()  # type: ignore[attr-defined]


def test_a_pasted_pgn_replaces_the_games_and_names_each_skip(game_set: pg.GameSet) -> None:
    widget = _widget(game_set, game=4)
    widget.paste.value = CHESS960 + "\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n"  # type: ignore[attr-defined]
    widget.read.click()  # type: ignore[attr-defined]
    report = widget.games_report.value  # type: ignore[attr-defined]
    assert "1 of 2 games read from the pasted PGN; skipped:" in report
    assert ("<li>game 1: not standard chess (Variant header or Chess960 castling): Chess960"
            "</li>") in report
    assert [v for _, v in widget.game.options] == [2]  # type: ignore[attr-defined]
    assert widget.game.value == 2 and widget.ply.max == 5  # type: ignore[attr-defined]
    assert "game 2: ? - ? *, 5 plies" in widget.game_table.value  # type: ignore[attr-defined]
    assert "Over the 1 games loaded" in widget.summary_text.value  # type: ignore[attr-defined]
    widget.paste.value = CHESS960  # type: ignore[attr-defined]
    widget.read.click()  # type: ignore[attr-defined]
    assert "error: no game could be read (0 of 1 games read from the pasted PGN; skipped: " \
           "game 1: not standard chess" in widget.games_report.value  # type: ignore[attr-defined]
    assert [v for _, v in widget.game.options] == [2]  # type: ignore[attr-defined]
    import datetime

    content = b"[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n"
    widget.upload.value = ({"name": "two.pgn", "type": "", "size": len(content),  # type: ignore[attr-defined]
                            "last_modified": datetime.datetime.now(datetime.timezone.utc),
                            "content": memoryview(content)},)
    assert "1 of 1 games read from the upload two.pgn, none skipped" in (
        widget.games_report.value)  # type: ignore[attr-defined]


def test_the_replayer_lists_the_moves_and_marks_the_current_one(long_game: pg.SampleGame,
                                                                game_set: pg.GameSet) -> None:
    rows = xp.replay(long_game)
    listed = xp.move_list_html(rows, 4)
    assert listed.count("<span") == len(long_game.moves)
    assert "1. " + rows[1].move in listed and "2. " + rows[3].move in listed
    assert f"<b class='current'>{rows[4].move}</b>" in listed and listed.count("current") == 1
    assert "current" not in xp.move_list_html(rows, 0)
    widget = _widget(game_set, game=4, ply=5)
    assert f"<b class='current'>{rows[5].move}</b>" in widget.moves.value  # type: ignore[attr-defined]


def test_previous_next_and_play_step_through_the_game(game_set: pg.GameSet) -> None:
    widget = _widget(game_set, game=4, ply=0)
    assert widget.previous.disabled and not widget.next.disabled  # type: ignore[attr-defined]
    widget.next.click()  # type: ignore[attr-defined]
    widget.next.click()  # type: ignore[attr-defined]
    assert widget.ply.value == 2 and widget.play.value == 2  # type: ignore[attr-defined]
    widget.previous.click()  # type: ignore[attr-defined]
    assert widget.ply.value == 1  # type: ignore[attr-defined]
    widget.play.value = 7  # type: ignore[attr-defined]
    assert widget.ply.value == 7 and "Ply (move)</td><td>7 (" in widget.facts.value  # type: ignore[attr-defined]
    assert "data-ply='7'" in widget.strips.value  # type: ignore[attr-defined]
    widget.ply.value = widget.ply.max  # type: ignore[attr-defined]
    assert widget.next.disabled  # type: ignore[attr-defined]


def test_the_whole_game_chart_marks_the_division_and_the_ply(long_game: pg.SampleGame) -> None:
    rows = xp.replay(long_game)
    division = phases.lichess_division(long_game.boards())
    assert division.middle is not None
    chart = xp.game_chart_svg(rows, 12)
    starts = [int(p) for p in re.findall(r"class='division' data-ply='(\d+)'", chart)]
    assert starts == [p for p in (division.middle, division.end) if p is not None]
    shaded = re.findall(r"class='phase (\w+)'", chart)
    assert shaded[0] == "opening" and shaded[1] == "middlegame"
    assert "class='current-ply' data-ply='12'" in chart


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"game": 200}, "game 200 is not among the games read from the kit's 100 Lichess games "
                    "(January 2013, CC0) (games 1 to 100)"),
    ({"game": 4, "ply": -1}, "ply must be from 0 to 99 (game 4 has 99 plies), got -1"),
    ({"game": 4, "ply": 10_000}, "ply must be from 0 to 99 (game 4 has 99 plies), got 10000"),
])
def test_a_bad_game_or_ply_is_one_clear_line(game_set: pg.GameSet, kwargs: dict[str, int],
                                             message: str) -> None:
    pytest.importorskip("ipywidgets")
    from chessmoe.explore import phase_widget as pe

    with pytest.raises(ValueError) as caught:
        pe.PhaseExplorerWidget(game_set, **kwargs)  # type: ignore[arg-type]
    assert str(caught.value) == message and "\n" not in message


@pytest.mark.parametrize(("namespace", "line", "used"), [
    ({"game": "3"}, "parameter 'game' must be int (game = 3, without quotes), got '3' (str); "
                    "the page uses 4", ("game", 4)),
    ({"gme": 3}, "unknown parameter 'gme' (did you mean 'game'?) is ignored; this page takes: "
                 "pgn, games, table, game, ply", ("game", 4)),
    ({"games": 2.5}, "parameter 'games' must be int, got 2.5 (float); the page uses 100",
     ("games", 100)),
])
def test_a_mistyped_parameter_is_named_and_replaced(namespace: dict[str, object], line: str,
                                                    used: tuple[str, object]) -> None:
    """Issue 55: game='3' gave Voila's generic cell error; the page names it in one line and
    goes on with the default."""
    got, problems = params.parameters_or_defaults(PhaseExplorerParams, namespace, [])
    assert problems == [line] and getattr(got, used[0]) == used[1]


@pytest.mark.parametrize(("asked", "line", "start"), [
    ({"table": "fide"}, "table must be one of 'lichess', 'lichess-2025', 'engine', got 'fide'; "
                        "the page uses 'lichess'", (4, 30)),
    ({"games": 0}, "games must be a whole number from 1, got 0; the page reads 100", (4, 30)),
    ({"games": 50_000}, "games: the page reads at most 2,000 games (its menu and summary slow "
                        "down beyond), got 50,000; it reads the first 2,000", (4, 30)),
    ({"pgn": "no/such.pgn"}, "pgn: no PGN file at 'no/such.pgn'; the page shows the kit's "
                             "Lichess games instead", (4, 30)),
    ({"game": 0}, "game: game 0 is not among the games read from the kit's 100 Lichess games "
                  "(January 2013, CC0) (games 1 to 100); the replayer starts with game 1",
     (1, 5)),
    ({"games": 10, "game": 12}, "game: game 12 is not among the games read from the kit's 100 "
                                "Lichess games (January 2013, CC0) (games 1 to 10); the "
                                "replayer starts with game 1", (1, 5)),
    ({"ply": 500}, "ply must be from 0 to 99 (game 4 has 99 plies), got 500; the replayer "
                   "starts at ply 99", (4, 99)),
])
def test_every_bad_parameter_of_the_page_is_one_line(asked: dict[str, object], line: str,
                                                     start: tuple[int, int]) -> None:
    from chessmoe.explore import phase_widget as pe

    settings = pe.page_settings(PhaseExplorerParams(**asked))  # type: ignore[arg-type]
    problems = list(settings.problems)
    if asked.get("game") == 0 or asked.get("game") == 12:  # game 1 has 5 plies: ply 30 too
        assert problems[1] == ("ply must be from 0 to 5 (game 1 has 5 plies), got 30; the "
                               "replayer starts at ply 5")
        problems = problems[:1]
    assert problems == [line]
    assert (settings.game, settings.ply) == start
    assert pe.problems_html(settings).count("<p style='color:#b00'") == len(settings.problems)
    assert pe.page_settings(PhaseExplorerParams()).problems == ()


def test_a_skipped_game_asked_for_says_why(tmp_path: Path) -> None:
    from chessmoe.explore import phase_widget as pe

    path = tmp_path / "mine.pgn"
    path.write_text("[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 1-0\n\n" + CHESS960)
    settings = pe.page_settings(PhaseExplorerParams(pgn=str(path), game=2, ply=1))
    assert settings.problems == (
        "game: game 2: not standard chess (Variant header or Chess960 castling): Chess960, so "
        "it cannot be replayed; the replayer starts with game 1",)
    assert settings.game_set.source == "mine.pgn" and settings.game == 1


def test_the_parameters_cell_matches_its_declaration() -> None:
    from tests.test_notebooks import _parameters_cell

    assert _parameters_cell(NOTEBOOK) == vars(PhaseExplorerParams())


@pytest.mark.slow
def test_the_notebook_runs_on_the_kits_games_and_names_bad_parameters(tmp_path: Path) -> None:
    from chessmoe.report import runner

    runner.execute(NOTEBOOK, tmp_path / "run.ipynb", {"games": 12, "ply": 10})
    executed = nbformat.read(tmp_path / "run.ipynb", as_version=4)
    outputs = json.dumps([c.get("outputs", []) for c in executed.cells])
    assert "12 of 12 games read from the kit's 100 Lichess games" in outputs
    assert '"error"' not in outputs and "parameter-problem" not in outputs
    assert "<svg" in outputs and "application/vnd.jupyter.widget-view+json" in outputs
    assert "takes the mixedness from" in outputs or "None of these games" in outputs
    runner.execute(NOTEBOOK, tmp_path / "bad.ipynb", {"games": 12, "game": "3", "table": "x"})
    executed = nbformat.read(tmp_path / "bad.ipynb", as_version=4)
    outputs = html.unescape(json.dumps([c.get("outputs", []) for c in executed.cells]))
    assert "parameter 'game' must be int (game = 3, without quotes)" in outputs
    assert "table must be one of" in outputs
    assert '"error"' not in outputs and "Traceback" not in outputs
