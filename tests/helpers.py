"""Test helpers: seeded random games (legal, varied, cheap), positions at the edges of the
rules, a deterministic fake network, and waits on state scaled for a loaded machine."""

from __future__ import annotations

import functools
import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import chess
import chess.pgn
import numpy as np


def random_game(rng: random.Random, max_plies: int, min_plies: int = 0) -> list[chess.Board]:
    """The boards (start position first) of one game of uniformly random legal moves."""
    board = chess.Board()
    boards = [board.copy()]
    for _ in range(rng.randint(min_plies, max_plies)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        boards.append(board.copy())
    return boards


@functools.cache
def random_positions(n: int, seed: int = 7, max_plies: int = 160) -> tuple[chess.Board, ...]:
    """The final boards (with move stacks) of ``n`` random games (cached: do not mutate)."""
    rng = random.Random(seed)
    boards = []
    for _ in range(n):
        board = chess.Board()
        for _ in range(rng.randint(0, max_plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        boards.append(board)
    return tuple(boards)


# (name, FEN, moves played from it): each sits where a rule of the game ends play inside a
# search -- the fifty-move limit, bare kings and minor pieces, promotions (under-promotions
# that leave bare material), and game histories that make a position's third occurrence
RULE_EDGES: tuple[tuple[str, str, str], ...] = (
    ("fifty: every move draws", "8/8/4k3/8/8/3K4/8/6R1 w - - 99 80", ""),
    ("fifty: only the capture plays on", "8/8/4k3/8/2n5/3K4/8/6R1 w - - 99 80", ""),
    ("fifty: a mate on the hundredth half-move", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 99 80", ""),
    ("fifty: three plies to go, a pawn resets", "8/5k2/8/8/8/2K5/4P3/6R1 w - - 97 80", ""),
    ("fifty: rooks, black to move", "r5k1/8/8/8/8/8/8/R5K1 b - - 98 80", ""),
    ("bare: K v K+N, every move draws", "8/8/4k3/8/3n4/3K4/8/8 w - - 0 1", ""),
    ("bare: K+N v K in the corner", "8/8/8/8/8/2k5/8/K1N5 w - - 0 1", ""),
    ("bare: a single move, and it draws", "8/8/8/8/8/8/1n6/K1k5 w - - 0 1", ""),
    ("bare: bishops on one colour", "8/8/4k3/3b4/8/3K4/8/5B2 w - - 0 1", ""),
    ("bare: bishops on both colours", "8/8/4k3/4b3/8/3K4/8/5B2 w - - 0 1", ""),
    ("bare: two knights", "8/8/4k3/8/8/3K4/8/4NN2 w - - 0 1", ""),
    ("bare: the knight takes the last pawn", "8/8/4k3/4p3/8/3K1N2/8/8 w - - 0 1", ""),
    ("promotion: under-promotions leave bare material", "8/1P6/8/8/8/8/5k2/K7 w - - 0 1", ""),
    ("promotion: capturing onto the back rank", "1r6/P7/8/8/8/2k5/8/K7 w - - 0 1", ""),
    ("promotion: black, out of check by a capture", "8/8/8/8/8/k7/p7/1N1K4 b - - 0 1", ""),
    ("promotion: beside castling rights", "r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1", ""),
    ("repetition: the root seen once before", chess.STARTING_FEN,
     "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1"),
    ("repetition: the root seen twice before", chess.STARTING_FEN,
     "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8"),
    ("repetition: a pawn move between", chess.STARTING_FEN,
     "g1f3 g8f6 f3g1 f6g8 e2e4 g8f6 g1f3 f6g8 f3g1 g8f6 g1f3 f6g8"),
    ("repetition: near the fifty-move limit", "8/8/4k3/8/8/3K4/8/6R1 w - - 90 80",
     "d3d2 e6e7 d2d3 e7e6 d3d2 e6e7 d2d3"),
)


def rule_edge_board(name: str) -> chess.Board:
    """The :data:`RULE_EDGES` position ``name``, with its moves on the move stack."""
    _, fen, moves = next(edge for edge in RULE_EDGES if edge[0] == name)
    board = chess.Board(fen)
    for uci in moves.split():
        board.push_uci(uci)
    return board


def rule_edge_boards() -> list[chess.Board]:
    """Every :data:`RULE_EDGES` position (fresh boards)."""
    return [rule_edge_board(name) for name, _, _ in RULE_EDGES]


def random_games_pgn(path: Path, n: int, seed: int = 4) -> Path:
    """``n`` random legal games with decided results and dates (some too short to keep)."""
    rng = random.Random(seed)
    chunks = []
    for index in range(n):
        game = chess.pgn.Game.from_board(random_game(rng, 180, min_plies=4)[-1])
        game.headers["Result"] = rng.choice(["1-0", "0-1", "1/2-1/2"])
        game.headers["Date"] = f"2013.{1 + index % 12:02d}.01"
        chunks.append(str(game) + "\n\n")
    path.write_text("".join(chunks))
    return path


class HashNet:
    """A deterministic fake network: each row's outputs depend on that row only (like
    ONNX Runtime), so any regrouping of rows must give the same numbers."""

    def __init__(self, salt: int) -> None:
        self.salt = salt
        self.calls: list[int] = []

    def forward(self, records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.calls.append(len(records))
        keys = (records["white"] ^ records["black"] * np.uint64(31) ^ records["pawns"]
                ^ np.uint64(self.salt)).astype(np.uint64)
        rng_rows = [np.random.default_rng(int(k) % (2**63)) for k in keys]
        logits = np.stack([r.standard_normal(4864).astype(np.float32) for r in rng_rows])
        values = np.tanh(logits[:, 0]).astype(np.float32)
        return values, logits


class ScriptedEngine:
    """A stand-in for ``chess.engine.SimpleEngine`` in one process: each ``play`` answers a
    seeded random legal move and, from ``scores`` (White's view in centipawns, one a call;
    ``None`` or past the end: no score), the score a real engine would report with it."""

    def __init__(self, scores: tuple[int | None, ...] = (), seed: int = 0) -> None:
        import chess.engine

        self._engine = chess.engine
        self.scores = scores
        self.rng = random.Random(seed)
        self.calls = 0

    def play(self, board: chess.Board, limit: object, **options: object) -> object:
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        score = self.scores[self.calls] if self.calls < len(self.scores) else None
        self.calls += 1
        info = ({} if score is None else
                {"score": self._engine.PovScore(self._engine.Cp(score), chess.WHITE)})
        return self._engine.PlayResult(self.rng.choice(moves), None, info)  # type: ignore[arg-type]


def bestmoves(text: str) -> list[str]:
    """The ``bestmove`` lines of a UCI engine's output."""
    return [line for line in text.splitlines() if line.startswith("bestmove")]


def uci_script(engine: str, model_dir: Path) -> tuple[str, list[str]]:
    """Drive the UCI front end of ``engine`` (a trained run in ``model_dir``) through the
    script every engine must pass: a node-limited search after 1. e4, a timed one after 1...
    e5, ``go infinite`` that answers only after ``stop``, and a back-rank mate in 1 (Rd8#).
    Each ``go`` ends in exactly one ``bestmove``, each move legal; returns the whole output
    and its ``bestmove`` lines."""
    import io
    import time

    from chessmoe.play.uci import EngineOptions, UciEngine

    out = io.StringIO()
    uci = UciEngine(EngineOptions(Model_Directory=str(model_dir)), out=out, engine=engine)
    for line in ("uci", "isready", "ucinewgame", "position startpos moves e2e4",
                 "go nodes 150"):
        uci.handle(line)
    def answered(count: int, what: str) -> None:
        wait_until(lambda: len(bestmoves(out.getvalue())) == count,
                   f"bestmove number {count} ({what})", 20,
                   context=lambda: out.getvalue()[-400:])

    answered(1, "go nodes 150")
    uci.handle("position startpos moves e2e4 e7e5")
    uci.handle("go movetime 100")
    answered(2, "go movetime 100")
    uci.handle("go infinite")
    time.sleep(0.3)
    assert len(bestmoves(out.getvalue())) == 2  # infinite: no answer before stop
    uci.handle("stop")
    answered(3, "stop after go infinite")
    uci.handle("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    uci.handle("go nodes 300")
    answered(4, "go nodes 300 on a mate in one")
    uci._wait()
    moves = bestmoves(out.getvalue())
    assert len(moves) == 4 and moves[-1] == "bestmove d1d8"
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    after_e5 = after_e4.copy()
    after_e5.push_uci("e7e5")
    for line, board in zip(moves[:3], (after_e4, after_e5, after_e5), strict=True):
        assert chess.Move.from_uci(line.split()[1]) in board.legal_moves, line
    return out.getvalue(), moves


def summary_match(name: str, wins: int, draws: int, losses: int, *,
                  labels: dict[str, object] | None = None, planned_games: int | None = None,
                  pentanomial: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0),
                  elo: float | None = None, margin: float | None = None,
                  sprt: dict[str, object] | None = None, games: int | None = None
                  ) -> dict[str, object]:
    """One match of a tournament's ``summary.json`` as the kit writes it, from its W/D/L
    (Elo and margin cutechess's unless given; ``games`` the W/D/L's unless given)."""
    from chessmoe import elo as elo_
    from chessmoe.records import MatchSummary, SprtRecord, TournamentMatch

    estimate = elo_.trinomial(wins, losses, draws)
    played = wins + draws + losses if games is None else games
    summary = MatchSummary(
        games=played, wins=wins, losses=losses, draws=draws, pentanomial=pentanomial,
        elo=estimate.elo if elo is None else elo,
        margin=estimate.margin if margin is None else margin, los=estimate.los,
        draw_ratio=estimate.draw_ratio, line=estimate.line(), terminations=(),
        mean_plies=0.0, game_seconds=0.0, low=estimate.low, high=estimate.high)
    test = None
    if sprt is not None:
        test = SprtRecord.from_json({"model": "logistic", "exact": True, **sprt})
    return TournamentMatch(name, tuple((labels or {}).items()),
                           played if planned_games is None else planned_games, summary,
                           test).to_json()


def tournament_summary(matches: list[dict[str, object]], *, name: str = "t",
                       adjudication: dict[str, object] | None = None,
                       complete: bool | None = None) -> dict[str, object]:
    """A tournament's ``summary.json`` as the kit writes it, around ``matches``
    (:func:`summary_match`); ``complete`` every match's unless given."""
    from chessmoe.records import TournamentMatch, TournamentSummary

    typed = tuple(TournamentMatch.from_json(m) for m in matches)
    return TournamentSummary(
        name, "embedded", None, 2024, adjudication or {}, typed,
        all(m.complete for m in typed) if complete is None else complete).to_json()


# --- waiting on state ----------------------------------------------------------------------

TIMEOUT_SCALE_VARIABLE = "CHESSMOE_TEST_TIMEOUT_SCALE"
_MAX_LOAD_SCALE = 10.0
_T = TypeVar("_T")


def timeout_scale() -> float:
    """How many times longer than on a quiet machine a test may wait for something:
    ``$CHESSMOE_TEST_TIMEOUT_SCALE`` when set (a number >= 1), else the machine's load per
    core (the one-minute load average over the cores), at least 1 and at most 10."""
    given = os.environ.get(TIMEOUT_SCALE_VARIABLE)
    if given:
        try:
            scale = float(given)
        except ValueError:
            raise ValueError(f"{TIMEOUT_SCALE_VARIABLE} must be a number >= 1, got "
                             f"{given!r}") from None
        if not scale >= 1:
            raise ValueError(f"{TIMEOUT_SCALE_VARIABLE} must be a number >= 1, got {given!r}")
        return scale
    try:
        load = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:  # no load average on this system
        return 1.0
    return min(max(1.0, load), _MAX_LOAD_SCALE)


def scaled(seconds: float) -> float:
    """``seconds`` (what a wait needs on a quiet 2-core machine) times :func:`timeout_scale`."""
    return seconds * timeout_scale()


def wait_until(check: Callable[[], _T], what: str, timeout: float = 20.0, *,
               ignore: tuple[type[BaseException], ...] = (),
               context: Callable[[], str] | None = None, interval: float = 0.1) -> _T:
    """Poll ``check`` until it returns something true and return that; give up after
    ``scaled(timeout)`` seconds with an AssertionError that says what was awaited
    (``what``), how long, and ``context()`` (the page's text, the engine's output).
    Exceptions of the types in ``ignore`` (a page element being redrawn) count as not yet."""
    scale = timeout_scale()
    limit = timeout * scale
    deadline = time.monotonic() + limit
    while True:
        try:
            value = check()
            if value:
                return value
        except ignore:
            pass
        if time.monotonic() >= deadline:
            break
        time.sleep(interval)
    seen = ""
    if context is not None:
        try:
            seen = f"; saw: {context()}"
        except Exception as error:  # the context itself failed: say so, keep the message
            seen = f"; (reading the context failed: {error!r})"
    raise AssertionError(f"waited {limit:.0f} s ({timeout:g} s x load scale {scale:.1f}) for "
                         f"{what}{seen}")


def plant_games(directory: Path, scores: list[tuple[float, float]], start: int = 0) -> None:
    """Game pairs in ``directory/games-000.jsonl`` as a tournament writes them: pair ``k``
    (numbered from ``start``) on opening ``k``, the first player's score in each of its two
    games (first as White, then as Black)."""
    from chessmoe._io.jsonl import append_record
    from chessmoe.records import GameRecord

    directory.mkdir(parents=True, exist_ok=True)
    for pair, pair_scores in enumerate(scores, start):
        for white_first, score in zip((True, False), pair_scores, strict=True):
            game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", (), (), (), 0.0)
            append_record(directory / "games-000.jsonl",
                          game.in_match(pair=pair, opening=pair, first_score=score,
                                        first_is_white=white_first).to_json())
