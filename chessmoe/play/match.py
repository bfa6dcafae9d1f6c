"""Games and matches under the paper's protocol (App. E.3, Fig. 15).

* Players: in-process MCTS (:class:`MctsPlayer`: an expert bundle, a single network or a
  uniform evaluator) and external UCI engines (:class:`UciPlayer`, e.g. Stockfish at fixed
  nodes or a Skill Level), both built from a picklable :class:`PlayerSpec`.
* Adjudication as the paper's cutechess command: resign when both engines' own scores are
  beyond 600 cp (one winning, one losing) for 5 consecutive moves each; draw from move 30
  when both engines' scores stay within 20 cp for 4 consecutive moves each. An MCTS value
  ``v`` is scored as ``cp = 111.714640912 * tan(1.5620688421 * v)``
  (:func:`chessmoe.play.engine.value_to_cp`).
* Every game ends with a reason: mate, stalemate, repetition, fifty moves, insufficient
  material, resign or draw adjudication, illegal move, engine crash, time, max plies.
* A match plays its game slots (openings, colours) and appends one JSON record per
  finished game to ``games.jsonl``; rerunning it skips the slots already recorded, so an
  interrupted match resumes without losing or duplicating games. ``games.pgn`` (full
  headers) is rewritten from the records.
"""

from __future__ import annotations

import datetime as _dt
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import chess
import chess.engine
import chess.pgn

from chessmoe._io.fsutil import atomic_path
from chessmoe._io.jsonl import JsonlLog
from chessmoe.play.engine import value_to_cp
from chessmoe.play.openings import GameSlot

__all__ = [
    "TERMINATIONS",
    "Adjudication",
    "MctsPlayer",
    "MoveOutcome",
    "PlayerSpec",
    "UciPlayer",
    "play_game",
    "play_match",
    "write_pgn",
]

TERMINATIONS = ("checkmate", "stalemate", "repetition", "fifty_moves",
                "insufficient_material", "resign_adjudication", "draw_adjudication",
                "illegal_move", "engine_crash", "time_forfeit", "max_plies")


@dataclass(frozen=True)
class Adjudication:
    """The paper's cutechess adjudication (``-resign movecount=5 score=600 -draw
    movenumber=30 movecount=4 score=20``); ``max_plies`` caps runaway games (a draw)."""

    resign_movecount: int = 5
    resign_score: int = 600
    draw_movenumber: int = 30
    draw_movecount: int = 4
    draw_score: int = 20
    max_plies: int = 600


@dataclass
class MoveOutcome:
    """A player's answer: the move, its own score (centipawns, side to move) and info."""

    move: chess.Move | None
    score_cp: int | None
    info: dict[str, Any] = field(default_factory=dict)


class MatchPlayer(Protocol):
    name: str

    def new_game(self) -> None: ...

    def move(self, board: chess.Board) -> MoveOutcome: ...

    def close(self) -> None: ...


class EngineCrash(RuntimeError):
    """An external engine died or sent something unusable."""


class EngineTimeout(EngineCrash):
    """An external engine did not answer in time (a time forfeit)."""


@dataclass(frozen=True)
class PlayerSpec:
    """A declarative, picklable description of a player (so processes can build it).

    ``kind="mcts"``: ``experts`` (a bundle directory: a mixture, or the regular bundle's
    single network), or ``uniform``; ``routing``, ``gate``, ``single_expert``,
    ``baseline``; search limits ``nodes``/``movetime_ms`` and ``batch_size``.
    ``kind="uci"``: ``command`` (argv), ``options`` (UCI options) and the same limits.
    """

    name: str
    kind: str = "mcts"
    experts: str | None = None
    baseline: str | None = None
    routing: str = "majority"
    gate: str | None = None
    single_expert: int | None = None
    uniform: bool = False
    command: tuple[str, ...] = ()
    options: tuple[tuple[str, Any], ...] = ()
    nodes: int | None = 100
    movetime_ms: int | None = None
    batch_size: int = 8
    device: str = "cpu"
    threads: int = 1

    def build(self) -> MatchPlayer:
        if self.kind == "mcts":
            return MctsPlayer(self)
        if self.kind == "uci":
            return UciPlayer(self)
        raise ValueError(f"unknown player kind {self.kind!r} (mcts or uci)")

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["command"] = list(self.command)
        data["options"] = dict(self.options)
        return data


class MctsPlayer:
    """The kit's engine in-process (no UCI round trip)."""

    def __init__(self, spec: PlayerSpec) -> None:
        import torch

        from chessmoe.play.engine import Player, build_evaluator
        from chessmoe.play.uci import EngineOptions
        from chessmoe.search.mcts import Limits, SearchConfig

        torch.set_num_threads(spec.threads)
        options = EngineOptions(Batch_Size=spec.batch_size, Model_Directory=spec.experts or "",
                                Baseline_Directory=spec.baseline or "",
                                Phase_Definition=spec.gate or "", Routing=spec.routing,
                                Single_Expert=-1 if spec.single_expert is None
                                else spec.single_expert, Threads=spec.threads,
                                Device=spec.device, Uniform=spec.uniform)
        evaluator, self.description = build_evaluator(options)
        self.name = spec.name
        self.player = Player(evaluator, SearchConfig(batch_size=spec.batch_size))
        self.limits = Limits(nodes=spec.nodes, movetime_ms=spec.movetime_ms)

    def new_game(self) -> None:
        self.player.new_game()

    def move(self, board: chess.Board) -> MoveOutcome:
        result = self.player.play(board, self.limits)
        return MoveOutcome(result.move, value_to_cp(result.value),
                           {"nodes": result.nodes, "seconds": round(result.seconds, 4)})

    def close(self) -> None:
        pass


class UciPlayer:
    """An external UCI engine through python-chess (crashes become :class:`EngineCrash`)."""

    def __init__(self, spec: PlayerSpec) -> None:
        if not spec.command:
            raise ValueError(f"player {spec.name!r}: a UCI player needs a command")
        self.name = spec.name
        self.spec = spec
        # A generous timeout per command: past it the game is lost on time.
        budget = (spec.movetime_ms or 0) / 1000 * 10 + 30.0
        self.engine = chess.engine.SimpleEngine.popen_uci(list(spec.command), timeout=budget)
        if spec.options:
            self.engine.configure(dict(spec.options))
        self.limit = chess.engine.Limit(
            nodes=spec.nodes, time=spec.movetime_ms / 1000 if spec.movetime_ms else None)
        self.game_key: object = object()

    def new_game(self) -> None:
        self.game_key = object()

    def move(self, board: chess.Board) -> MoveOutcome:
        try:
            result = self.engine.play(board, self.limit, game=self.game_key,
                                      info=chess.engine.INFO_SCORE)
        except TimeoutError as error:
            raise EngineTimeout(f"{self.name}: no answer in time") from error
        except (chess.engine.EngineTerminatedError, chess.engine.EngineError,
                BrokenPipeError) as error:
            raise EngineCrash(f"{self.name}: {type(error).__name__}: {error}") from error
        score = result.info.get("score")
        cp = score.relative.score(mate_score=10000) if score is not None else None
        return MoveOutcome(result.move, cp, {})

    def close(self) -> None:
        try:
            self.engine.quit()
        except (chess.engine.EngineTerminatedError, chess.engine.EngineError, OSError):
            self.engine.close()


# --- one game ----------------------------------------------------------------------------


def _adjudicate(scores: dict[chess.Color, list[int | None]], board: chess.Board,
                rules: Adjudication) -> tuple[str, str] | None:
    """``(result, reason)`` when the adjudication rules end the game, else ``None``."""
    white, black = scores[chess.WHITE], scores[chess.BLACK]
    n = rules.resign_movecount
    if len(white) >= n and len(black) >= n:
        last_w, last_b = white[-n:], black[-n:]
        if all(s is not None for s in last_w + last_b):
            if all(s <= -rules.resign_score for s in last_w) and all(  # type: ignore[operator]
                    s >= rules.resign_score for s in last_b):  # type: ignore[operator]
                return "0-1", "resign_adjudication"
            if all(s >= rules.resign_score for s in last_w) and all(  # type: ignore[operator]
                    s <= -rules.resign_score for s in last_b):  # type: ignore[operator]
                return "1-0", "resign_adjudication"
    n = rules.draw_movecount
    if board.fullmove_number > rules.draw_movenumber and len(white) >= n and len(black) >= n:
        last = white[-n:] + black[-n:]
        if all(s is not None and abs(s) <= rules.draw_score for s in last):
            return "1/2-1/2", "draw_adjudication"
    return None


_OUTCOME_REASON = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient_material",
    chess.Termination.SEVENTYFIVE_MOVES: "fifty_moves",
    chess.Termination.FIFTY_MOVES: "fifty_moves",
    chess.Termination.FIVEFOLD_REPETITION: "repetition",
    chess.Termination.THREEFOLD_REPETITION: "repetition",
}


def play_game(white: MatchPlayer, black: MatchPlayer, fen: str,
              rules: Adjudication | None = None) -> dict[str, Any]:
    """Play one game from ``fen``; return its record (result, reason, moves, scores)."""
    rules = rules or Adjudication()
    board = chess.Board(fen)
    players = {chess.WHITE: white, chess.BLACK: black}
    scores: dict[chess.Color, list[int | None]] = {chess.WHITE: [], chess.BLACK: []}
    for player in players.values():
        player.new_game()
    start = time.monotonic()
    result, reason, detail = "*", "", ""
    moves: list[str] = []
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result, reason = outcome.result(), _OUTCOME_REASON.get(outcome.termination,
                                                                  "repetition")
            break
        if len(moves) >= rules.max_plies:
            result, reason = "1/2-1/2", "max_plies"
            break
        mover = board.turn
        try:
            answer = players[mover].move(board)
        except EngineCrash as error:
            reason = "time_forfeit" if isinstance(error, EngineTimeout) else "engine_crash"
            result, detail = ("0-1" if mover else "1-0"), str(error)
            break
        if answer.move is None or answer.move not in board.legal_moves:
            result, reason = ("0-1" if mover else "1-0"), "illegal_move"
            detail = f"{players[mover].name} played {answer.move} in {board.fen()}"
            break
        board.push(answer.move)
        moves.append(answer.move.uci())
        scores[mover].append(answer.score_cp)
        decided = _adjudicate(scores, board, rules)
        if decided is not None:
            result, reason = decided
            break
    return {"white": white.name, "black": black.name, "fen": fen, "result": result,
            "termination": reason, "detail": detail, "moves": moves, "plies": len(moves),
            "scores": {"white": scores[chess.WHITE], "black": scores[chess.BLACK]},
            "seconds": round(time.monotonic() - start, 2)}


# --- matches -----------------------------------------------------------------------------


def play_match(first: PlayerSpec, second: PlayerSpec, slots: Sequence[GameSlot],
               log_path: str | os.PathLike[str], *, rules: Adjudication | None = None,
               event: str = "chessmoe match",
               on_game: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Play the slots not yet in ``log_path`` (JSONL, one record per game); return all."""
    log = JsonlLog(log_path, key="slot")
    todo = [s for s in slots if not log.done(s.id)]
    if todo:
        players = [first.build(), second.build()]
        try:
            for slot in todo:
                white, black = (players if slot.first_is_white else players[::-1])
                record = play_game(white, black, slot.fen, rules)
                if record["termination"] in ("engine_crash", "time_forfeit"):
                    for k, spec in enumerate((first, second)):  # fresh engines go on playing
                        players[k].close()
                        players[k] = spec.build()
                first_score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[record["result"]]
                if not slot.first_is_white:
                    first_score = 1.0 - first_score
                record.update(slot=slot.id, pair=slot.pair, game=slot.game,
                              opening=slot.opening, first=first.name, second=second.name,
                              first_is_white=slot.first_is_white, first_score=first_score,
                              event=event,
                              date=_dt.datetime.now(_dt.timezone.utc).strftime("%Y.%m.%d"))
                log.append(record)
                if on_game is not None:
                    on_game(record)
        finally:
            for player in players:
                player.close()
    wanted = {s.id for s in slots}
    return sorted((r for r in log if r["slot"] in wanted), key=lambda r: r["slot"])


def game_pgn(record: dict[str, Any], round_number: int | None = None) -> str:
    """The PGN of one game record, with full headers."""
    board = chess.Board(record["fen"])
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = record.get("event", "chessmoe match")
    game.headers["Site"] = "chessmoe"
    game.headers["Date"] = record.get("date", "????.??.??")
    game.headers["Round"] = str(round_number if round_number is not None
                                else record.get("pair", 0) + 1)
    game.headers["White"] = record["white"]
    game.headers["Black"] = record["black"]
    game.headers["Result"] = record["result"]
    game.headers["FEN"] = record["fen"]
    game.headers["SetUp"] = "1"
    game.headers["Termination"] = ("adjudication" if "adjudication" in record["termination"]
                                   else "rules infraction" if record["termination"] in (
                                       "illegal_move", "engine_crash") else "normal")
    game.headers["TerminationDetail"] = record["termination"]
    game.headers["PlyCount"] = str(record["plies"])
    node: chess.pgn.GameNode = game
    for uci in record["moves"]:
        node = node.add_variation(chess.Move.from_uci(uci))
    game.headers["Result"] = record["result"]
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=False)
    return game.accept(exporter)


def write_pgn(records: Sequence[dict[str, Any]], path: str | os.PathLike[str]) -> Path:
    """Write every game record as PGN (atomically). Every game, the last included, ends
    with a blank line, so ``cat a.pgn b.pgn`` is a valid PGN file of both."""
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text("".join(game_pgn(r).rstrip("\n") + "\n\n" for r in records))
    return path


def load_records(paths: Sequence[str | os.PathLike[str]]) -> list[dict[str, Any]]:
    """Game records of several JSONL logs."""
    from chessmoe._io.jsonl import read_records

    out: list[dict[str, Any]] = []
    for path in paths:
        out.extend(read_records(path).records)
    return out


def summarise(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """W/D/L from the first engine's view, pentanomial pair counts, Elo and terminations."""
    from chessmoe import elo

    wins = sum(r["first_score"] == 1.0 for r in records)
    losses = sum(r["first_score"] == 0.0 for r in records)
    draws = sum(r["first_score"] == 0.5 for r in records)
    by_pair: dict[int, list[float]] = {}
    for r in records:
        by_pair.setdefault(int(r["pair"]), []).append(float(r["first_score"]))
    complete = [scores for scores in by_pair.values() if len(scores) == 2]
    penta = elo.pairs_from_games([s for pair in complete for s in pair])
    estimate = elo.trinomial(wins, losses, draws)
    terminations: dict[str, int] = {}
    for r in records:
        terminations[r["termination"]] = terminations.get(r["termination"], 0) + 1
    seconds = sum(float(r.get("seconds", 0)) for r in records)
    return {"games": len(records), "wins": wins, "losses": losses, "draws": draws,
            "pentanomial": list(penta), "elo": estimate.elo, "margin": estimate.margin,
            "los": estimate.los, "draw_ratio": estimate.draw_ratio, "line": estimate.line(),
            "terminations": dict(sorted(terminations.items())),
            "mean_plies": (sum(r["plies"] for r in records) / len(records)) if records else 0,
            "game_seconds": round(seconds, 1)}
