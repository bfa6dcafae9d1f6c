"""The UCI loop always answers (issue 11): every go ends in exactly one bestmove, stop/quit/
position/ucinewgame/end of input end a running search promptly, isready always gets readyok,
every error line is an info string. Each dialogue runs under a hard time limit."""

from __future__ import annotations

import io
import subprocess
import sys
import threading
from pathlib import Path

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
    out = io.StringIO()
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


# --- the related engines' own options and the weights they loaded (issue 22) --------------


def _related(engine: str, **options: object) -> tuple[UciEngine, io.StringIO]:
    out = io.StringIO()
    return UciEngine(EngineOptions(**options), out=out, engine=engine), out  # type: ignore[arg-type]


@pytest.mark.parametrize(("engine", "own"), [
    ("ntuple", ["option name Evaluation type combo default weights var weights var pesto "
                "var material", "option name Depth type spin default 64 min 1 max 64"]),
    ("deepchess", ["option name Depth type spin default 0 min 0 max 64"]),
    ("mais", ["option name Delta_Percent type spin default 30 min 1 max 100"]),
])
def test_each_related_engine_lists_its_own_options(engine: str, own: list[str]) -> None:
    uci, out = _related(engine)
    uci.handle("uci")
    lines = out.getvalue().splitlines()
    for line in own:
        assert line in lines
    names = {ln.split()[2] for ln in lines if ln.startswith("option name")}
    assert "Batch_Size" not in names and "Routing" not in names  # the MCTS's, not theirs
    assert {"Nodes", "Model_Directory", "Fixed_Movetime", "Threads"} <= names
    assert lines[-1] == "uciok"


def test_ntuple_names_the_weights_it_loaded_and_plays_pesto(tmp_path: Path) -> None:
    from chessmoe._io.fsutil import sha256_file
    from chessmoe.nets.related.ntuple import NtupleWeights, TrainConfig, config_record, save_weights

    save_weights(tmp_path, NtupleWeights.initial(), config_record(TrainConfig()))
    uci, out = _related("ntuple", Nodes=40)
    uci.handle(f"setoption name Model_Directory value {tmp_path}")
    uci.handle("isready")
    digest = sha256_file(tmp_path / "weights.npz")[:12]
    assert f"info string ntuple weights {tmp_path / 'weights.npz'} sha256 {digest}" in \
        out.getvalue().splitlines()
    uci.handle("setoption name Evaluation value pesto")
    uci.handle("setoption name Depth value 2")
    assert uci.player is None  # rebuilt with the new options
    uci.handle("position startpos")
    uci.handle("go")
    _settle(_Wrap(uci, out), 1)  # type: ignore[arg-type]
    assert "info string ntuple evaluation pesto" in out.getvalue()
    assert uci.engine_settings == {"Evaluation": "pesto", "Depth": 2}
    uci.handle("setoption name Evaluation value stockfish")
    assert "info string error: option Evaluation must be one of" in out.getvalue()
    uci.handle("setoption name Depth value 0")
    assert "must lie in 1..64" in out.getvalue()


class _Wrap:
    """The two attributes of a Dialogue that _settle reads."""

    def __init__(self, engine: UciEngine, out: io.StringIO) -> None:
        self.engine, self.out = engine, out


@pytest.mark.parametrize("search", ["native", "python"])
@pytest.mark.parametrize("uniform", [True, False])
def test_stop_mid_search_answers_within_100_ms(search: str, uniform: bool) -> None:
    """``stop`` during an infinite search: the bestmove follows within 100 ms, with either
    tree search, without a network or with the committed small experts (the default)."""
    import time

    d = Dialogue(Search=search)
    d.engine.options = EngineOptions(Search=search, Uniform=uniform)
    d.say("isready")  # the evaluator is built (and the compiled code loaded) before the clock
    d.say("position startpos moves e2e4", "go infinite")
    assert wait_for(lambda: "info depth" in d.out.getvalue(), LIMIT)
    time.sleep(0.3)
    start = time.monotonic()
    d.say("stop")
    assert wait_for(lambda: len(_bestmoves(d)) == 1, LIMIT)
    late = time.monotonic() - start
    assert late < 0.1, f"bestmove {late * 1000:.0f} ms after stop"
    assert _bestmoves(d)[0].split()[1] in {m.uci() for m in chess.Board(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves}


def test_the_search_option_is_a_combo_and_refuses_other_values() -> None:
    d = Dialogue()
    assert "option name Search type combo default native var native var python" in d.say("uci")
    assert any("must be one of native, python" in line
               for line in d.say("setoption name Search value cython"))
    assert d.engine.options.Search == "native"
