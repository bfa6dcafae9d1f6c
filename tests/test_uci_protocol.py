"""Issue 56: each player behaves as tournament managers and GUIs expect, driven through raw pipes
(a ``chessmoe uci --player ...`` process per player, shared by the tests of this module):
``go depth``/``go mate``, ``score mate``, Stockfish's ``position`` rules, ``go infinite`` and
``go ponder`` on a finished game, any whitespace, ``setoption`` without a value, one-line load
errors, the Python search where the compiled one cannot run, and loading without ``isready``.
Every wait is bounded (a hang fails the test, never the run)."""

from __future__ import annotations

import contextlib
import io
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import chess
import pytest

from chessmoe.play import uci as uci_module
from chessmoe.play.engine import Player, Searcher
from chessmoe.play.uci import (
    DEPTH_ONLY_NODES,
    EngineOptions,
    UciEngine,
    pv_in_game,
    uci_mate,
    wait_for,
)
from chessmoe.search.mcts import (
    MCTS,
    Evaluator,
    Limits,
    SearchConfig,
    SearchResult,
    UniformEvaluator,
)

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 90.0  # seconds any one answer may take before the test fails (a hang)
MATE_IN_1 = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"  # Ra8#
MATED_IN_1 = "8/8/8/8/8/1k6/2q4P/K7 w - - 0 1"  # h3 or h4, then Qb2# (or Qc1#)
CHECKMATED = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"
ALPHA_BETA = ("ntuple", "deepchess")  # depth N is the iteration N


def test_mate_scores_count_moves() -> None:
    assert [uci_mate(p) for p in (1, 3, 5, -2, -4, -1, 0)] == [1, 2, 3, -1, -2, -1, 0]


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_DISABLE")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get(
        "PYTHONPATH")])])
    return {**env, **extra}


class Pipe:
    """A UCI engine process driven line by line; every read waits at most ``LIMIT``."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "chessmoe", "uci", *args], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
            env=env or environment())
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.err: list[str] = []
        self._readers = [threading.Thread(target=self._read, daemon=True),
                         threading.Thread(target=self._read_err, daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _read_err(self) -> None:
        assert self.process.stderr is not None
        self.err.extend(line.rstrip("\n") for line in self.process.stderr)

    def send(self, *commands: str) -> None:
        assert self.process.stdin is not None
        for command in commands:
            self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def until(self, done: Callable[[str], bool], timeout: float = LIMIT) -> list[str]:
        """The lines up to and including the first that ``done`` accepts."""
        seen: list[str] = []
        end = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no answer in {timeout} s; last lines {seen[-8:]}") \
                    from None
            if line is None:
                raise AssertionError(f"the engine ended; last lines {seen[-8:]}, "
                                     f"stderr {self.err[-5:]}")
            seen.append(line)
            if done(line):
                return seen

    def search(self, *commands: str) -> tuple[list[str], str]:
        """Send ``commands`` (the last a go) and wait for the bestmove: (the info lines
        that came with it, the move)."""
        self.send(*commands)
        lines = self.until(lambda line: line.startswith("bestmove"))
        return lines[:-1], lines[-1].split()[1]

    def quiet(self, seconds: float) -> list[str]:
        """Whatever the engine says within ``seconds`` (to see that it says no bestmove)."""
        seen = []
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            seen.append(line)
        return seen

    def close(self) -> int:
        if self.process.poll() is None:
            with contextlib.suppress(BrokenPipeError, OSError):
                self.send("quit")
        try:
            return self.process.wait(timeout=LIMIT)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            for reader in self._readers:
                reader.join(LIMIT)


def last_info(lines: list[str]) -> dict[str, str]:
    """The fields of the last ``info depth`` line (``score`` as ``cp 12`` or ``mate -1``)."""
    line = [ln for ln in lines if ln.startswith("info depth")][-1].split()
    fields = {line[i]: line[i + 1] for i in range(1, len(line) - 1)
              if line[i] in ("depth", "seldepth", "nodes")}
    if "score" in line:
        at = line.index("score")
        fields["score"] = f"{line[at + 1]} {line[at + 2]}"
    return fields


@pytest.fixture(scope="module", params=[
    "moe", "ntuple", *[pytest.param(p, marks=pytest.mark.slow) for p in ("deepchess", "mais")]])
def engine(request: pytest.FixtureRequest) -> Iterator[tuple[str, Pipe]]:
    """One engine process per player. Its first search comes with no ``isready`` (as some
    managers send it): the player loads in the background after ``uci`` and must answer."""
    player = request.param
    pipe = Pipe("--player", player)
    try:
        pipe.send("uci")
        pipe.until(lambda line: line == "uciok")
        info, move = pipe.search("position startpos", "go wtime 3000 btime 3000")
        assert not any("error" in line for line in info), info
        assert chess.Move.from_uci(move) in chess.Board().legal_moves
        yield player, pipe
    finally:
        pipe.close()


def legal(fen_or_board: str | chess.Board, move: str) -> bool:
    board = chess.Board(fen_or_board) if isinstance(fen_or_board, str) else fen_or_board
    return chess.Move.from_uci(move) in board.legal_moves


# --- go depth and go mate ----------------------------------------------------------------------


def test_go_depth_stops_at_the_depth_it_reports(engine: tuple[str, Pipe]) -> None:
    player, pipe = engine
    info, move = pipe.search("ucinewgame", "position startpos", "go depth 1")
    fields = last_info(info)
    # the default Nodes (800) would have run on: depth 1 is a few dozen nodes at most
    assert fields["depth"] == "1" and int(fields["nodes"]) < 800, fields
    assert legal(chess.Board(), move)
    pipe.send("setoption name Depth value 2" if player in ALPHA_BETA else "isready")
    info, move = pipe.search("ucinewgame", "position startpos", "go depth 3")
    # alpha-beta: the iteration, past the engine's own Depth setting; MCTS and best-first:
    # the first mini-batch (expansion) whose mean depth reaches 3
    assert last_info(info)["depth"] == "3", info[-2:]
    assert legal(chess.Board(), move)
    if player in ALPHA_BETA:
        pipe.send(f"setoption name Depth value {64 if player == 'ntuple' else 0}")


def test_go_depth_alone_ends_without_a_node_limit(engine: tuple[str, Pipe]) -> None:
    _, pipe = engine
    pipe.send("setoption name Nodes value 0")  # the engine's own limit: none
    try:
        info, move = pipe.search("ucinewgame", "position startpos", "go depth 2")
        assert last_info(info)["depth"] == "2" and legal(chess.Board(), move)
    finally:
        pipe.send("setoption name Nodes value 800")


def test_a_proven_mate_is_reported_as_score_mate(engine: tuple[str, Pipe]) -> None:
    _, pipe = engine
    info, move = pipe.search("ucinewgame", f"position fen {MATE_IN_1}", "go nodes 400")
    assert move == "a1a8" and last_info(info)["score"] == "mate 1", info[-2:]
    info, move = pipe.search("ucinewgame", f"position fen {MATED_IN_1}", "go nodes 400")
    assert move in ("h2h3", "h2h4") and last_info(info)["score"] == "mate -1", info[-2:]


WHITE_WINS = "6k1/8/8/8/8/8/5PPP/3QQ1K1 w - - 0 1"  # two queens up, no mate in one
BLACK_WINS = "3qq1k1/5ppp/8/8/8/8/8/6K1 w - - 0 1"  # the same, White to move and losing


def scores_of(lines: list[str]) -> list[str]:
    """The ``score`` of every search ``info`` line (not ``info string``); a line without one
    fails (fastchess warns "No info line available to extract score" on such a move)."""
    found = []
    for line in lines:
        if line.startswith("info ") and not line.startswith("info string"):
            tokens = line.split()
            assert "score" in tokens, f"an info line without a score: {line!r}"
            at = tokens.index("score")
            assert tokens[at + 1] in ("cp", "mate"), line
            found.append(f"{tokens[at + 1]} {int(tokens[at + 2])}")
    return found


def test_every_info_line_has_a_score_of_the_winning_side(engine: tuple[str, Pipe]) -> None:
    """Every player, DeepChess included (its comparator's confidence as logistic Elo, the UCI
    front end only): each info line of a search has a score, positive for the side two
    queens up, negative for the side two queens down, within +-10000 cp."""
    _, pipe = engine
    for fen, sign in ((WHITE_WINS, 1), (BLACK_WINS, -1),
                      (chess.Board(WHITE_WINS).mirror().fen(), 1)):
        info, move = pipe.search("ucinewgame", f"position fen {fen}", "go depth 2")
        scores = scores_of(info)
        assert scores and legal(fen, move), info
        kind, value = scores[-1].split()
        assert value != "0" and (int(value) > 0) == (sign > 0), (fen, info[-2:])
        if kind == "cp":
            assert -10000 <= int(value) <= 10000


def test_go_mate_stops_once_the_mate_is_proven(engine: tuple[str, Pipe]) -> None:
    player, pipe = engine
    pipe.send("setoption name Nodes value 0")
    try:
        info, move = pipe.search("ucinewgame", f"position fen {MATE_IN_1}", "go mate 1")
        fields = last_info(info)
        assert move == "a1a8" and fields["score"] == "mate 1" and int(fields["nodes"]) < 800
        if player in ALPHA_BETA:  # no mate in 1 from the start: iteration 1 proves it
            info, move = pipe.search("ucinewgame", "position startpos", "go mate 1")
            assert last_info(info)["depth"] == "1" and legal(chess.Board(), move)
    finally:
        pipe.send("setoption name Nodes value 800")


# --- position, whitespace, go infinite/ponder, setoption --------------------------------------


def test_position_plays_the_moves_before_the_first_illegal_one(
        engine: tuple[str, Pipe]) -> None:
    _, pipe = engine
    pipe.send("position startpos")
    info, move = pipe.search("position startpos moves e2e4 e7e5 g1f3 e1e8", "go depth 1")
    assert any(ln.startswith("info string") and "illegal move e1e8" in ln for ln in info)
    board = chess.Board()
    for uci in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(uci)
    assert legal(board, move)  # Black's move: the position after the three legal moves
    info, move = pipe.search("position startpos moves d2d4 z9z9 e7e5", "go depth 1")
    assert any("malformed move z9z9" in ln for ln in info)
    board = chess.Board()
    board.push_uci("d2d4")
    assert legal(board, move)


def test_a_growing_game_plays_only_its_new_moves_and_reaches_the_same_position() -> None:
    """A manager resends the whole game each move: the engine plays only the moves past the
    ones it already played from the same base, and every position (history included, which
    repetition and the fifty-move rule read) is the one a fresh reading gives; another base,
    a changed earlier move or ``ucinewgame`` reads afresh."""
    out = io.StringIO()
    engine = UciEngine(EngineOptions(Uniform=True), out=out)
    start = "fen r3k2r/ppp2ppp/8/8/8/8/PPP2PPP/R3K2R w KQkq - 0 1"
    for base in ("startpos", start):
        board = chess.Board() if base == "startpos" else chess.Board(start[4:])
        moves: list[str] = []
        engine.handle("ucinewgame")
        for _ in range(70):
            legal_moves = sorted(m.uci() for m in board.legal_moves)
            if not legal_moves:
                break
            moves.append(legal_moves[len(moves) * 7 % len(legal_moves)])
            board.push_uci(moves[-1])
            engine.handle(f"position {base} moves {' '.join(moves)}")
            assert engine.board == board and engine.board.move_stack == board.move_stack
        assert len(moves) > 40
        fresh = chess.Board() if base == "startpos" else chess.Board(start[4:])
        for uci in moves[:-3]:  # an earlier game: fewer moves
            fresh.push_uci(uci)
        engine.handle(f"position {base} moves {' '.join(moves[:-3])}")
        assert engine.board.move_stack == fresh.move_stack
    engine.handle("position startpos moves e2e4 e7e5")
    engine.handle("position startpos moves d2d4 e7e5")  # a changed first move
    assert [m.uci() for m in engine.board.move_stack] == ["d2d4", "e7e5"]
    engine.handle("position startpos moves d2d4 e7e5 g1f3 e1e8")
    assert "the position is the one after the 3 move(s) before it" in out.getvalue()
    engine.handle("position startpos moves d2d4 e7e5 g1f3 b8c6")  # after the illegal one
    assert [m.uci() for m in engine.board.move_stack] == ["d2d4", "e7e5", "g1f3", "b8c6"]
    engine.handle("ucinewgame")  # a new game from the same moves is read afresh
    engine.handle("position startpos moves d2d4 e7e5 g1f3 b8c6 c2c4")
    assert len(engine.board.move_stack) == 5


def test_a_fen_that_cannot_be_read_keeps_the_previous_position(
        engine: tuple[str, Pipe]) -> None:
    _, pipe = engine
    info, move = pipe.search(f"position fen {MATED_IN_1}", "position fen rubbish w - - 0 1",
                             "go depth 1")
    said = [ln for ln in info if ln.startswith("info string")]
    assert any("bad FEN" in ln and "previous position stays" in ln for ln in said), said
    assert move in ("h2h3", "h2h4")


def test_any_whitespace_separates_tokens(engine: tuple[str, Pipe]) -> None:
    _, pipe = engine
    info, move = pipe.search("position\tstartpos \t moves\te2e4", "go\tdepth\t1")
    assert not any("unknown command" in ln or "error" in ln for ln in info), info
    board = chess.Board()
    board.push_uci("e2e4")
    assert legal(board, move)


@pytest.mark.parametrize("go", ["go infinite", "go ponder wtime 1000 btime 1000"])
def test_infinite_and_ponder_wait_for_stop_on_a_finished_game(
        engine: tuple[str, Pipe], go: str) -> None:
    _, pipe = engine
    pipe.send(f"position fen {CHECKMATED}", go)
    pipe.until(lambda line: line == "info depth 0 score mate 0")
    assert not any(ln.startswith("bestmove") for ln in pipe.quiet(0.5))
    pipe.send("stop")
    assert pipe.until(lambda line: line.startswith("bestmove"))[-1] == "bestmove (none)"


def test_setoption_without_a_value_is_refused_naming_the_option(
        engine: tuple[str, Pipe]) -> None:
    player, pipe = engine
    own = {"moe": "Batch_Size", "ntuple": "Depth", "deepchess": "Depth",
           "mais": "Delta_Percent"}[player]
    for option, command in ((name, f"setoption name {name}{end}")
                            for name in ("Nodes", own) for end in (" value", " value  ", "")):
        pipe.send(command, "isready")
        lines = pipe.until(lambda line: line == "readyok")
        errors = [ln for ln in lines if ln.startswith("info string error")]
        assert len(errors) == 1 and f"option {option} needs a value" in errors[0], lines
        assert f"{option} stays" in errors[0] and "unknown option" not in errors[0]


# --- weights that cannot be loaded -------------------------------------------------------


def _unloadable(player: str, how: str, tmp_path: Path) -> Path:
    """A run (or moe checkpoint) whose weights file cannot be loaded in the way ``how``."""
    import shutil

    source = ROOT / "results" / "related" / player
    run = tmp_path / f"{player}-{how}"
    if player == "moe":
        run.mkdir()
        target = run / "model.pt"
        if how == "garbage":
            target.write_bytes(os.urandom(3000))
        else:  # truncated
            real = next((ROOT / "results" / "experts" / "small" / "regular").rglob("*.pt"))
            target.write_bytes(real.read_bytes()[:20000])
        return target
    run.mkdir()
    shutil.copy(source / "config.json", run / "config.json")
    name = "weights.npz" if player == "ntuple" else "weights.pt"
    target = run / name
    real = (source / name).read_bytes()
    if how == "garbage":
        target.write_bytes(os.urandom(3000))
    elif how == "truncated":
        target.write_bytes(real[:len(real) // 2])
    elif player == "ntuple":  # another file's arrays: pickled objects
        import numpy as np

        np.savez(target, linear_features=np.array([{"a": 1}], dtype=object))
    else:  # the other torch engine's weights
        other = "mais" if player == "deepchess" else "deepchess"
        target.write_bytes((ROOT / "results" / "related" / other / name).read_bytes())
    return target


@pytest.mark.parametrize(("player", "how"), [
    ("ntuple", "garbage"),
    *[pytest.param(player, how, marks=pytest.mark.slow) for player, how in [
        ("deepchess", "garbage"), ("mais", "garbage"),
        ("moe", "garbage"), ("moe", "truncated"), ("ntuple", "truncated"),
        ("ntuple", "other"), ("deepchess", "truncated"), ("deepchess", "other"),
        ("mais", "truncated"), ("mais", "other")]]])
def test_an_unloadable_weights_file_gives_one_line_naming_it(
        player: str, how: str, tmp_path: Path) -> None:
    target = _unloadable(player, how, tmp_path)
    directory = target if player == "moe" else target.parent
    pipe = Pipe("--player", player)
    try:
        pipe.send("uci", f"setoption name Model_Directory value {directory}", "isready")
        lines = pipe.until(lambda line: line.startswith("info string error"))
        assert pipe.close() == 1
    finally:
        pipe.close()
    error = lines[-1]
    assert str(target) in error and "cannot load" in error, error
    assert "readyok" not in lines
    messages = [ln for ln in pipe.err if ln.startswith("chessmoe uci: error")]
    assert len(messages) == 1 and error.endswith(messages[0].split("error: ", 1)[1]), pipe.err
    for unsafe in ("weights_only", "allow_pickle", "Traceback", "arbitrary code"):
        assert unsafe not in error and not any(unsafe in ln for ln in pipe.err)
    cause = error.split(str(target), 1)[1]
    assert "(" in cause and len(cause) > 12, error  # the cause follows the file


# --- the compiled search cannot run --------------------------------------------------------


def _fake_numba(tmp_path: Path, how: str) -> dict[str, str]:
    """An environment where numba is told not to compile, is absent (a module that fails to
    import in its place), or finds no cache directory it may write (numba's own cache
    locators removed at start-up, so ``njit(cache=True)`` raises numba's own error)."""
    if how == "disabled":
        return environment(NUMBA_DISABLE_JIT="1")
    site = tmp_path / "site"
    site.mkdir()
    if how == "absent":
        (site / "numba").mkdir()
        (site / "numba" / "__init__.py").write_text(
            "raise ModuleNotFoundError(\"No module named 'numba'\", name='numba')\n")
    else:
        (site / "sitecustomize.py").write_text(
            "from numba.core import caching\ncaching.CacheImpl._locator_classes = []\n")
    env = environment()
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    return env


@pytest.mark.parametrize(("how", "named"), [
    ("disabled", "NUMBA_DISABLE_JIT is set"),
    pytest.param("absent", "numba cannot be imported", marks=pytest.mark.slow),
    pytest.param("uncacheable", "no locator available", marks=pytest.mark.slow)])
def test_without_the_compiled_search_the_python_one_plays_the_same_moves(
        how: str, named: str, tmp_path: Path) -> None:
    expected = MCTS(UniformEvaluator(), SearchConfig()).search(
        chess.Board(), Limits(nodes=60))
    pipe = Pipe("--uniform", env=_fake_numba(tmp_path, how))
    try:
        pipe.send("uci", "isready")
        said = pipe.until(lambda line: line == "readyok")
        info, move = pipe.search("position startpos", "go nodes 60")
    finally:
        assert pipe.close() == 0
    note = [ln for ln in said if "compiled search cannot run" in ln]
    assert len(note) == 1 and named in note[0] and "Python reference search" in note[0], said
    fields = last_info(info)
    assert move == expected.move.uci() and fields["nodes"] == "60"  # searched, not guessed
    pv = [ln for ln in info if ln.startswith("info depth")][-1].split(" pv ")[1].split()
    assert pv == [m.uci() for m in expected.pv]


# --- in process: what the pipes cannot see ---------------------------------------------------


class Recording:
    """A player that records the limits it is asked to search with."""

    def __init__(self, fail: bool = False) -> None:
        self.limits: list[Limits] = []
        self.fail = fail

    def play(self, board: chess.Board, limits: Limits, stop: object = None,
             on_progress: object = None) -> SearchResult:
        self.limits.append(limits)
        if self.fail:
            raise RuntimeError("the search broke")
        move = next(iter(board.legal_moves))
        return SearchResult(move=move, value=0.0, pv=[move], nodes=1, simulations=1,
                            tree_nodes=1, seconds=0.0, depth=1.0, seldepth=1, batches=1,
                            collisions=0, children=[], reused=False)

    def new_game(self) -> None:
        pass


def _counting(calls: list[tuple[EngineOptions, str]], gate: threading.Event | None = None
              ) -> Callable[[EngineOptions], tuple[Evaluator, str]]:
    def make(options: EngineOptions) -> tuple[Evaluator, str]:
        if gate is not None:
            gate.wait(LIMIT)
        calls.append((options, threading.current_thread().name))
        return UniformEvaluator(), "evaluator: counted"
    return make


def test_the_player_loads_in_the_background_after_uci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uci_module, "_QUIET_S", 0.0)
    calls: list[tuple[EngineOptions, str]] = []
    out = io.StringIO()
    engine = UciEngine(EngineOptions(Search="python"), out=out, make_evaluator=_counting(calls))
    engine.handle("uci")
    assert out.getvalue().splitlines()[-1] == "uciok"
    assert wait_for(lambda: len(calls) == 1, LIMIT)  # no isready, no go: loading already
    assert calls[0][1] == "chessmoe-load"
    engine.handle("position startpos")
    engine.handle("go nodes 20")
    engine._wait()
    assert len(calls) == 1 and "bestmove" in out.getvalue()  # go found it loaded


def test_options_set_after_uci_are_the_ones_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uci_module, "_QUIET_S", LIMIT)  # the first load has not begun yet
    calls: list[tuple[EngineOptions, str]] = []
    engine = UciEngine(EngineOptions(Search="python"), out=io.StringIO(),
                       make_evaluator=_counting(calls))
    engine.handle("uci")
    engine.handle("setoption name Batch_Size value 3")
    engine.handle("isready")  # hurries the load of the options now in force
    assert [options.Batch_Size for options, _ in calls] == [3]
    for thread in engine.loads:
        thread.join(LIMIT)
    assert len(calls) == 1  # the load for the options before setoption was called off


def test_a_go_that_waits_for_the_load_takes_the_wait_from_its_clock(
        monkeypatch: pytest.MonkeyPatch) -> None:
    engine = UciEngine(EngineOptions(), out=io.StringIO())
    player = Recording()
    real_load = engine._load

    def slow_load() -> Searcher:
        time.sleep(0.3)  # the load still running when go came
        engine.player = player
        return real_load()

    monkeypatch.setattr(engine, "_load", slow_load)
    engine.handle("position startpos")
    engine.handle("go wtime 60000 btime 60000")  # a share of the clock: 2000 ms
    engine._wait()
    engine.handle("go movetime 2000")  # asked for: kept
    engine._wait()
    clock, asked = (limits.movetime_ms for limits in player.limits)
    assert clock is not None and 1.0 <= clock <= 2000 - 300 and asked == 2000


@pytest.mark.parametrize(("go", "nodes", "depth", "mate"), [
    ("go depth 3", DEPTH_ONLY_NODES, 3, None), ("go mate 2", DEPTH_ONLY_NODES, None, 2),
    ("go depth 0", DEPTH_ONLY_NODES, 1, None), ("go nodes 100 depth 3", 100, 3, None),
    ("go depth 4 mate 2", DEPTH_ONLY_NODES, 4, 2), ("go", 800, None, None)])
def test_depth_and_mate_alone_are_bounded(go: str, nodes: int, depth: int | None,
                                          mate: int | None) -> None:
    engine = UciEngine(EngineOptions(), out=io.StringIO())
    engine.player = player = Recording()
    engine.handle("position startpos")
    engine.handle(go)
    engine._wait()
    (limits,) = player.limits
    assert (limits.nodes, limits.depth, limits.mate) == (nodes, depth, mate)


def test_a_failed_compiled_search_is_searched_again_in_python(
        monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    engine = UciEngine(EngineOptions(), out=out)
    engine.player = player = Player(UniformEvaluator(), SearchConfig(), search_kind="native")

    def broken(*args: object, **kwargs: object) -> SearchResult:
        raise RuntimeError("compiled core broke")

    monkeypatch.setattr(player.search, "search", broken)
    engine.handle("position startpos")
    engine.handle("go nodes 60")
    engine._wait()
    expected = MCTS(UniformEvaluator(), SearchConfig()).search(
        chess.Board(), Limits(nodes=60))
    lines = out.getvalue().splitlines()
    assert any("compiled search failed (RuntimeError: compiled core broke)" in ln
               for ln in lines), lines
    assert lines[-1] == f"bestmove {expected.move.uci()}" and " nodes 60 " in lines[-2]
    assert engine.exit_code == 0


def test_a_search_that_cannot_run_ends_the_engine_without_a_move() -> None:
    out, err = io.StringIO(), io.StringIO()
    engine = UciEngine(EngineOptions(), out=out, err=err, engine="ntuple")
    engine.player = Recording(fail=True)
    engine.handle("position startpos")
    engine.handle("go nodes 60")
    engine._wait()
    assert "bestmove" not in out.getvalue() and engine.exit_code == 1
    assert "the search broke" in err.getvalue() and "no move is played" in err.getvalue()
    assert engine.handle("isready") is False and "readyok" not in out.getvalue()


def test_the_pv_ends_where_the_game_would() -> None:
    board = chess.Board()
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"):
        board.push_uci(uci)
    shuffle = [chess.Move.from_uci(m) for m in ("f6g8", "g1f3", "g8f6")]
    assert pv_in_game(board, shuffle) == shuffle[:1]  # f6g8: the start position a third time
    mate = chess.Board(MATE_IN_1)
    line = [chess.Move.from_uci(m) for m in ("a1a8", "g8h7")]
    assert pv_in_game(mate, line) == line[:1]  # nothing after the mate
    wrong = [chess.Move.from_uci(m) for m in ("e2e4", "e2e4", "e7e5")]
    assert pv_in_game(chess.Board(), wrong) == wrong[:1]  # nor after a move that is illegal


def test_a_clock_search_that_overran_takes_the_overrun_off_the_next_budget() -> None:
    class Late(Recording):
        def play(self, board: chess.Board, limits: Limits, stop: object = None,
                 on_progress: object = None) -> SearchResult:
            assert limits.movetime_ms is not None
            time.sleep(limits.movetime_ms / 1000 + 0.3)  # 300 ms past its move time
            return super().play(board, limits)

    engine = UciEngine(EngineOptions(), out=io.StringIO())
    engine.player = player = Late()
    engine.handle("position startpos")
    for _ in range(2):
        engine.handle("go wtime 3000 btime 3000 winc 0 binc 0")  # a share: 100 ms
        engine._wait()
    first, second = (limits.movetime_ms for limits in player.limits)
    assert first == 100 and second == 1  # 100 - 300: the least there is
    engine.handle("go movetime 500")  # asked for: kept
    engine._wait()
    assert player.limits[-1].movetime_ms == 500
