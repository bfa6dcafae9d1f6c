"""The UCI engine: a scripted dialogue, bad input, and real clients (python-chess, Stockfish)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import chess
import chess.engine
import pytest

import chessmoe
from chessmoe.elo import score_from_elo
from chessmoe.play.engine import confidence_to_cp, cp_to_value, value_to_cp
from chessmoe.play.uci import EngineOptions, UciEngine
from tests.helpers import wait_until


def test_value_to_centipawns() -> None:
    assert value_to_cp(0.0) == 0
    assert value_to_cp(0.5) == -value_to_cp(-0.5)
    assert 90 <= value_to_cp(0.5) <= 120
    assert value_to_cp(1.0) == 10000 and value_to_cp(-1.0) == -10000
    values = [i / 100 for i in range(-99, 100)]
    cps = [value_to_cp(v) for v in values]
    assert cps == sorted(cps)
    for v in (-0.9, -0.3, 0.2, 0.7):
        assert cp_to_value(value_to_cp(v)) == pytest.approx(v, abs=3e-3)  # 0.5 cp rounding


def test_confidence_to_centipawns_is_the_logistic_elo_of_the_confidence() -> None:
    """DeepChess's UCI score: v = 2p - 1 -> -400 log10(1/p - 1), rounded, clipped."""
    assert confidence_to_cp(0.0) == 0
    assert confidence_to_cp(0.5) == 191 and confidence_to_cp(-0.5) == -191  # p = 3/4: 400 lg 3
    assert confidence_to_cp(0.8) == 382  # p = 0.9: 400 lg 9
    assert confidence_to_cp(1.0) == 10000 and confidence_to_cp(-1.0) == -10000  # saturated
    assert confidence_to_cp(1.5) == 10000 and confidence_to_cp(-7.0) == -10000
    cps = [confidence_to_cp(i / 100) for i in range(-100, 101)]
    assert cps == sorted(cps) and len(set(cps)) == len(cps)
    for v in (-0.9, -0.3, 0.2, 0.7):
        assert 2 * score_from_elo(confidence_to_cp(v)) - 1 == pytest.approx(v, abs=3e-3)


class Dialogue:
    """Drive a UciEngine line by line and collect what it prints."""

    def __init__(self, **options: object) -> None:
        self.out = io.StringIO()
        self.engine = UciEngine(EngineOptions(Uniform=True, **options), out=self.out)  # type: ignore[arg-type]

    def say(self, *lines: str) -> list[str]:
        start = len(self.out.getvalue())
        for line in lines:
            self.engine.handle(line)
        return self.out.getvalue()[start:].splitlines()

    def best(self, timeout: float = 20.0) -> str:
        wait_until(lambda: "bestmove" in self.out.getvalue(), "a bestmove line", timeout,
                   context=lambda: self.out.getvalue()[-400:])
        self.engine._wait()
        lines = [ln for ln in self.out.getvalue().splitlines() if ln.startswith("bestmove")]
        return lines[-1].split()[1]


def test_scripted_dialogue() -> None:
    d = Dialogue()
    lines = d.say("uci")
    assert lines[0] == f"id name chessmoe {chessmoe.__version__}" and lines[-1] == "uciok"
    for name in ("Batch_Size", "Nodes", "Simulations", "Fixed_Movetime", "Model_Directory",
                 "Phase_Definition", "Routing", "Threads"):
        assert any(f"option name {name} type" in line for line in lines), name
    assert d.say("isready")[-1] == "readyok"
    assert any("uniform" in line for line in d.out.getvalue().splitlines())
    d.say("ucinewgame", "position startpos moves e2e4 e7e5", "go nodes 60")
    move = d.best()
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert chess.Move.from_uci(move) in board.legal_moves
    info = [ln for ln in d.out.getvalue().splitlines() if ln.startswith("info depth")][-1]
    assert " nodes 60 " in info and " score cp " in info and " pv " in info


def test_bad_input_never_stops_the_engine() -> None:
    d = Dialogue()
    cases = {
        "flurb": "unknown command",
        "position startpos moves e2e5": "illegal move e2e5",
        "position startpos moves e2": "malformed move",
        "position fen not/a/fen w - - 0 1": "bad FEN",
        "position": "needs 'startpos'",
        "setoption name Nodes value many": "needs an integer",
        "setoption name Batch_Size value 0": "must lie in 1..512",
        "setoption name Routing value random": "must be one of",
        "setoption name Colour value blue": "unknown option",
    }
    for command, message in cases.items():
        lines = d.say(command)
        assert lines and lines[-1].startswith("info string error") and message in lines[-1], \
            (command, lines)
    # An illegal move ends the moves, as Stockfish: the legal ones before it stand (issue 56).
    d.say("position startpos moves d2d4", "position startpos moves e2e4 d2d4 e7e5")
    assert d.engine.board.move_stack == [chess.Move.from_uci("e2e4")]
    assert d.say("isready")[-1] == "readyok"


def test_go_variants_and_stop() -> None:
    d = Dialogue(Nodes=0)
    d.say("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "go movetime 200")
    assert d.best() == "a1a8"
    d.say("position startpos", "go wtime 3000 btime 3000 winc 0 binc 0")
    assert chess.Move.from_uci(d.best()) in chess.Board().legal_moves
    d.say("position startpos", "go infinite")
    wait_until(lambda: "info depth" in d.out.getvalue(), "the infinite search's first info line",
               5, context=lambda: d.out.getvalue()[-400:])
    d.say("stop")
    assert d.out.getvalue().splitlines()[-1].startswith("bestmove")
    d.say("setoption name Nodes value 40", "position startpos", "go")
    assert chess.Move.from_uci(d.best()) in chess.Board().legal_moves


def test_game_over_position_is_reported() -> None:
    d = Dialogue()
    lines = d.say("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "go nodes 10")
    assert "game is over" in lines[-2] and lines[-1] == "bestmove (none)"


def _engine_command(*extra: str) -> list[str]:
    return [sys.executable, "-m", "chessmoe", "uci", *extra]


@pytest.mark.slow
def test_python_chess_plays_games_against_the_engine() -> None:
    with chess.engine.SimpleEngine.popen_uci(_engine_command("--uniform", "--nodes", "40")) \
            as first, chess.engine.SimpleEngine.popen_uci(
                _engine_command("--uniform", "--nodes", "30", "--batch-size", "1")) as second:
        first.configure({"Batch_Size": 4})
        nodes: dict[bool, list[int]] = {True: [], False: []}  # by engine (first or not)
        for game in range(2):
            board = chess.Board()
            players = (first, second) if game == 0 else (second, first)
            while not board.is_game_over() and board.ply() < 24:
                engine = players[board.ply() % 2]
                result = engine.play(board, chess.engine.Limit(nodes=40), game=game,
                                     info=chess.engine.INFO_ALL)
                assert result.move in board.legal_moves
                assert "error" not in result.info.get("string", ""), (board.fen(), result.info)
                assert result.info["pv"][0] == result.move  # the move its search chose
                nodes[engine is first].append(result.info["nodes"])
                board.push(result.move)
        # the client's limit (40), not the engine's own --nodes (30), bounds every search;
        # a search may stop short of it at its simulation cap (lines decided by repetition)
        for counts in nodes.values():
            assert max(counts) == 40 and all(1 <= n <= 40 for n in counts)
        analysis = first.analyse(chess.Board(), chess.engine.Limit(nodes=50))
        assert analysis["nodes"] == 50 and "score" in analysis and analysis["pv"]


@pytest.mark.slow
@pytest.mark.stockfish
def test_a_game_against_stockfish(stockfish: Path) -> None:
    with chess.engine.SimpleEngine.popen_uci(_engine_command("--uniform", "--nodes", "40")) \
            as ours, chess.engine.SimpleEngine.popen_uci(str(stockfish)) as theirs:
        board = chess.Board()
        nodes = []
        while not board.is_game_over() and board.ply() < 40:
            engine = ours if board.turn == chess.WHITE else theirs
            result = engine.play(board, chess.engine.Limit(nodes=60), info=chess.engine.INFO_ALL)
            assert result.move in board.legal_moves
            if engine is ours:  # the move its own search chose, within the client's limit
                assert "error" not in result.info.get("string", ""), (board.fen(), result.info)
                assert result.info["pv"][0] == result.move
                nodes.append(result.info["nodes"])
            board.push(result.move)
        assert max(nodes) == 60 and all(1 <= n <= 60 for n in nodes)
