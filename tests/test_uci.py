"""The UCI loop always answers (issue 11): every go ends in exactly one bestmove, stop/quit/
position/ucinewgame/end of input end a running search promptly, isready always gets readyok,
every error line is an info string. Each dialogue runs under a hard time limit."""

from __future__ import annotations

import subprocess
import sys
import threading

import chess
import pytest

from chessmoe.play.uci import EngineOptions, UciEngine, wait_for

from .test_engine import Dialogue

LIMIT = 20.0  # seconds a dialogue may take before the test fails (a hang)


def _bestmoves(d: Dialogue) -> list[str]:
    return [ln for ln in d.out.getvalue().splitlines() if ln.startswith("bestmove")]


def _settle(d: Dialogue, count: int) -> list[str]:
    assert wait_for(lambda: len(_bestmoves(d)) >= count, LIMIT), d.out.getvalue()[-400:]
    d.engine._wait()
    return _bestmoves(d)


@pytest.mark.parametrize(("go", "message"), [
    ("go nodes -5", "must not be negative"), ("go nodes abc", "needs an integer"),
    ("go nodes", "needs a value"), ("go movetime soon", "needs an integer"),
    ("go sideways 3", "unknown parameter"), ("go searchmoves e2e5", "not legal"),
])
def test_a_bad_go_still_ends_in_one_bestmove(go: str, message: str) -> None:
    d = Dialogue(Nodes=30)
    lines = d.say("position startpos", go)
    assert lines[0].startswith("info string error") and message in lines[0]
    moves = _settle(d, 1)
    assert len(moves) == 1 and chess.Move.from_uci(moves[0].split()[1]) in chess.Board().legal_moves


def test_searchmoves_restricts_the_answer() -> None:
    d = Dialogue(Nodes=60)
    d.say("position startpos", "go searchmoves a2a3 h2h3")
    (move,) = _settle(d, 1)
    assert move.split()[1] in ("a2a3", "h2h3")


@pytest.mark.parametrize("fen", ["7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",  # mate
                                 "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"])  # stalemate
def test_no_legal_move_gives_bestmove_none(fen: str) -> None:
    d = Dialogue()
    lines = d.say(f"position fen {fen}", "go nodes 10")
    assert lines[-1] == "bestmove (none)" and lines[-2].startswith("info string")


def test_go_movetime_zero_answers_at_once() -> None:
    d = Dialogue(Nodes=0)
    d.say("position startpos", "go movetime 0")
    assert len(_settle(d, 1)) == 1


@pytest.mark.parametrize("interrupt", ["stop", "position startpos moves e2e4", "ucinewgame"])
def test_an_infinite_search_is_ended_by_stop_position_and_ucinewgame(interrupt: str) -> None:
    d = Dialogue()
    d.say("position startpos", "go infinite")
    assert wait_for(lambda: "info depth" in d.out.getvalue(), LIMIT)
    assert _bestmoves(d) == []  # no bestmove before stop under go infinite
    worker = threading.Thread(target=d.say, args=(interrupt,), daemon=True)
    worker.start()
    worker.join(LIMIT)
    hung = worker.is_alive()
    d.engine._stop.set()  # release a hung loop so the test run goes on
    assert not hung, f"{interrupt!r} did not end the infinite search"
    assert len(_settle(d, 1)) == 1
    assert d.say("isready")[-1] == "readyok"


@pytest.mark.parametrize("option", ["Model_Directory value /nonexistent",
                                    "Phase_Definition value moonphase",
                                    "Device value bogus"])
def test_a_broken_evaluator_still_gives_readyok_and_a_bestmove(option: str) -> None:
    out = __import__("io").StringIO()
    engine = UciEngine(EngineOptions(Nodes=20), out=out)
    engine.handle(f"setoption name {option}")
    engine.handle("isready")
    lines = out.getvalue().splitlines()
    assert lines[-1] == "readyok"
    assert any(ln.startswith("info string error") for ln in lines)
    engine.handle("position startpos")
    engine.handle("go")
    assert wait_for(lambda: "bestmove" in out.getvalue(), LIMIT)
    engine._wait()
    assert sum(ln.startswith("bestmove") for ln in out.getvalue().splitlines()) == 1
    assert all(ln.startswith(("info", "bestmove", "readyok", "id ", "option", "uciok"))
               for ln in out.getvalue().splitlines())


def test_multi_line_errors_are_prefixed_line_by_line() -> None:
    d = Dialogue()
    d.engine.info("first line\nsecond line")
    assert d.out.getvalue().splitlines()[-2:] == ["info string first line",
                                                  "info string second line"]


@pytest.mark.parametrize("ending", ["", "quit\n", "position startpos\nucinewgame\nquit\n"])
def test_the_process_exits_when_input_ends_during_an_infinite_search(ending: str) -> None:
    script = "uci\nisready\nposition startpos\ngo infinite\n" + ending
    done = subprocess.run([sys.executable, "-m", "chessmoe", "uci", "--uniform"],
                          input=script, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-500:]
    assert sum(ln.startswith("bestmove") for ln in done.stdout.splitlines()) == 1
