"""Games and matches under the paper's protocol (App. E.3, Fig. 15).

Players are built from a picklable :class:`PlayerSpec` (in-process MCTS, an external UCI
engine, a related engine's searcher); a game is played to its end (the rules of chess, then
adjudication: :mod:`chessmoe.play.adjudication`), which is one of :data:`TERMINATIONS`; a match
appends one record per finished game to ``games.jsonl`` and, rerun, resumes from it without
losing or duplicating games (``games.pgn`` is rewritten from the records).
"""

from __future__ import annotations

import datetime as _dt
import functools
import os
import time
import traceback
from collections.abc import Callable, Generator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import chess
import chess.engine
import chess.pgn

from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import atomic_path
from chessmoe._io.jsonl import JsonlLog
from chessmoe.play.adjudication import Adjudication, CutechessAdjudicator, claim_adjudication
from chessmoe.play.engine import value_to_cp
from chessmoe.play.openings import GameSlot
from chessmoe.records import GameProvenance, GameRecord, pentanomial_counts
from chessmoe.rules import DRAW_RULES, DrawRules, rules_outcome
from chessmoe.search.evaluators import EvaluatorSpec
from chessmoe.search.inference import InferenceService
from chessmoe.search.kinds import DEFAULT_SEARCH, check_search_kind
from chessmoe.search.mcts import drive

if TYPE_CHECKING:
    from chessmoe.search.mcts import Evaluation, Evaluator, LeafBatch

__all__ = [
    "DRAW_RULES",
    "TERMINATIONS",
    "Adjudication",
    "CutechessAdjudicator",
    "DrawRules",
    "GameSteps",
    "MctsPlayer",
    "MoveOutcome",
    "PlayerKind",
    "PlayerSpec",
    "Request",
    "SearcherPlayer",
    "SprtRule",
    "UciPlayer",
    "game_provenance",
    "play_game",
    "play_game_steps",
    "play_match",
    "write_pgn",
]

TERMINATIONS = ("checkmate", "stalemate", "repetition", "fifty_moves",
                "insufficient_material", "resign_adjudication", "draw_adjudication",
                "illegal_move", "engine_crash", "time_forfeit", "max_plies")


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
    """An engine died or sent something unusable: an external engine's process, or an
    in-process engine whose code raised (see :func:`_move_steps`)."""


CRASH_STREAK = 3
"""Engine crashes in a row that stop a match: one crash is the engine's lost game, three in
a row are a broken engine or set-up, which should not fill a tournament with forfeits."""


class EngineTimeout(EngineCrash):
    """An external engine did not answer in time (a time forfeit)."""


PlayerKind = Literal["mcts", "uci", "deepchess", "ntuple", "mais"]


_RECORDED = EvaluatorSpec.recorded()  # a tournament player's defaults (search.evaluators)

# The one mapping between a player's flat fields (as committed spec.json files record them)
# and EvaluatorSpec: (PlayerSpec field, EvaluatorSpec field)
_EVALUATOR_FIELDS: tuple[tuple[str, str], ...] = (
    ("experts", "network"), ("baseline", "baseline"), ("routing", "routing"), ("gate", "gate"),
    ("single_expert", "single_expert"), ("uniform", "uniform"), ("device", "device"),
    ("threads", "threads"), ("backend", "backend"))


@dataclass(frozen=True)
class PlayerSpec:
    """A declarative, picklable description of a player (so processes can build it).

    ``kind="mcts"``: the evaluator is the flat fields ``experts`` (a bundle directory: a
    mixture, or the regular bundle's single network), ``uniform``, ``routing``, ``gate``,
    ``single_expert``, ``baseline``, ``device``, ``threads`` and ``backend``, read as one
    :class:`~chessmoe.search.evaluators.EvaluatorSpec` by :meth:`evaluator_spec` (and written
    from one by :meth:`mcts`); they stay flat because committed tournaments record players so.
    Their defaults are :meth:`EvaluatorSpec.recorded
    <chessmoe.search.evaluators.EvaluatorSpec.recorded>`'s: ``cpu`` and the ``torch`` backend,
    not a user's ``auto``, so a recorded player resumes with the backend it was played with.
    Search limits ``nodes``/``movetime_ms`` and ``batch_size``;
    ``search``: the tree search of a ``kind="mcts"`` player (``native``, the compiled one,
    or ``python``, the reference; :mod:`chessmoe.search.kinds`).
    ``kind="uci"``: ``command`` (argv), ``options`` (UCI options) and the same limits.
    ``kind`` one of the related documents' engines (``deepchess``, ``ntuple``, ``mais``;
    :mod:`chessmoe.play.players`): ``experts`` names its trained weights (default: the
    committed ones), ``options`` its own options (e.g. ``(("Evaluation", "pesto"),)`` makes an
    ``ntuple`` player the PeSTO baseline), ``threads`` its threads, and the same limits apply.
    """

    name: str
    kind: PlayerKind = "mcts"
    experts: str | None = _RECORDED.network
    baseline: str | None = _RECORDED.baseline
    routing: str = _RECORDED.routing
    gate: str | None = _RECORDED.gate
    single_expert: int | None = _RECORDED.single_expert
    uniform: bool = _RECORDED.uniform
    command: tuple[str, ...] = ()
    options: tuple[tuple[str, Any], ...] = ()
    nodes: int | None = 100
    movetime_ms: int | None = None
    batch_size: int = 8
    device: str = _RECORDED.device
    threads: int = _RECORDED.threads
    backend: str = _RECORDED.backend  # network backend: torch, onnx, cuda (search.inference)
    search: str = DEFAULT_SEARCH  # an mcts player's tree search: native or python

    def __post_init__(self) -> None:
        check_search_kind(self.search)

    @classmethod
    def mcts(cls, name: str, evaluator: EvaluatorSpec | None = None, **fields: Any
             ) -> PlayerSpec:
        """The kit's MCTS player searching with ``evaluator`` (default:
        :meth:`EvaluatorSpec.recorded`), with the other ``fields`` (limits, ``search``)."""
        chosen = _RECORDED if evaluator is None else evaluator
        return cls(name=name, kind="mcts", **{own: getattr(chosen, theirs)
                                              for own, theirs in _EVALUATOR_FIELDS}, **fields)

    def evaluator_spec(self) -> EvaluatorSpec:
        """The evaluator of an in-process (``mcts``) player (the inverse of :meth:`mcts`)."""
        return EvaluatorSpec(**{theirs: getattr(self, own) for own, theirs in _EVALUATOR_FIELDS})

    def build(self) -> MatchPlayer:
        if self.kind == "mcts":
            return MctsPlayer(self)
        if self.kind == "uci":
            return UciPlayer(self)
        from chessmoe.play.players import RELATED_KINDS

        if self.kind in RELATED_KINDS:
            return SearcherPlayer(self)
        raise ValueError(f"unknown player kind {self.kind!r} "
                         f"(mcts, uci, {', '.join(RELATED_KINDS)})")

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["command"] = list(self.command)
        data["options"] = dict(self.options)
        return data


class MctsPlayer:
    """The kit's engine in-process (no UCI round trip)."""

    def __init__(self, spec: PlayerSpec, *, evaluator: Evaluator | None = None,
                 description: str = "") -> None:
        import torch

        from chessmoe.play.engine import Player
        from chessmoe.search.mcts import Limits, SearchConfig

        torch.set_num_threads(spec.threads)
        if evaluator is None:  # else: shared with the other games a worker plays at once
            evaluator, description = spec.evaluator_spec().build()
        self.description = description
        self.evaluator = evaluator
        self.spec = spec
        self.name = spec.name
        self.player = Player(evaluator, SearchConfig(batch_size=spec.batch_size),
                             search_kind=spec.search)
        self.limits = Limits(nodes=spec.nodes, movetime_ms=spec.movetime_ms)

    def sibling(self) -> MctsPlayer:
        """Another player of the same spec sharing this one's evaluator (its own tree)."""
        return MctsPlayer(self.spec, evaluator=self.evaluator, description=self.description)

    def new_game(self) -> None:
        self.player.new_game()

    def move_steps(self, board: chess.Board) -> Generator[LeafBatch, Evaluation, MoveOutcome]:
        """:meth:`move` as steps: yields the search's mini-batches, is sent their scores."""
        result = yield from self.player.search.search_steps(board, self.limits)
        return MoveOutcome(result.move, value_to_cp(result.value),
                           {"nodes": result.nodes, "seconds": round(result.seconds, 4)})

    def move(self, board: chess.Board) -> MoveOutcome:
        return drive(self.move_steps(board), self.evaluator.evaluate)

    def close(self) -> None:
        pass


class SearcherPlayer:
    """A related document's engine in-process (any :class:`~chessmoe.play.engine.Searcher`)."""

    def __init__(self, spec: PlayerSpec) -> None:
        from chessmoe.play.players import build_searcher
        from chessmoe.search.mcts import Limits

        self.spec = spec
        self.name = spec.name
        self.searcher = build_searcher(spec.kind, spec.experts, threads=spec.threads,
                                       options=dict(spec.options))
        self.limits = Limits(nodes=spec.nodes, movetime_ms=spec.movetime_ms)

    def new_game(self) -> None:
        self.searcher.new_game()

    def move(self, board: chess.Board) -> MoveOutcome:
        result = self.searcher.play(board, self.limits)
        # an engine whose values are not a calibrated evaluation (DeepChess's comparator
        # confidence) reports a score only for a mate: adjudication never rests on the rest
        calibrated = getattr(self.searcher, "scores_calibrated", True)
        score = (value_to_cp(result.value) if calibrated or abs(result.value) >= 1.0
                 else None)
        return MoveOutcome(result.move, score,
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
        command = list(spec.command)
        if command[0] == "stockfish":  # the portable name: $STOCKFISH, PATH, /usr/games
            from chessmoe._io.external import find_stockfish

            command[0] = str(find_stockfish())
        self.engine = chess.engine.SimpleEngine.popen_uci(command, timeout=budget)
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


Request = tuple["Evaluator", "LeafBatch"]
"""A mini-batch some game's search wants evaluated, with the evaluator that owns it."""

GameSteps = Generator[Request, "Evaluation", GameRecord]
"""A game in progress: yields requests, is sent their evaluations, returns the game record."""


def _crash_of(player: MatchPlayer, error: Exception) -> EngineCrash:
    """An in-process engine's exception as a crash of that engine: its game is lost and
    recorded (cutechess scores an engine that dies mid-game the same way), the match goes
    on with fresh engines, and the record's detail names the error and where it was raised,
    so the bug is found from the games file instead of stopping a tournament of hours."""
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name}" \
        if frames else ""
    return EngineCrash(f"{player.name}: {type(error).__name__}: {error}{where}")


def _move_steps(player: MatchPlayer, board: chess.Board
                ) -> Generator[Request, Evaluation, MoveOutcome]:
    """A player's move as requests (an in-process search), or at once (a UCI engine).
    An exception raised by the player's own code becomes :class:`EngineCrash`."""
    stepper = getattr(player, "move_steps", None)
    if stepper is None:
        try:
            return player.move(board)
        except EngineCrash:
            raise
        except Exception as error:  # the engine's bug, not the match's: a lost game
            raise _crash_of(player, error) from error
    evaluator = player.evaluator  # type: ignore[attr-defined]
    steps: Generator[LeafBatch, Evaluation, MoveOutcome] | None = None
    evaluation: Evaluation | None = None
    while True:
        try:
            if steps is None:
                steps = stepper(board)
                batch = next(steps)
            else:
                assert evaluation is not None  # the caller sends each request's evaluation
                batch = steps.send(evaluation)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        except EngineCrash:
            raise
        except Exception as error:
            raise _crash_of(player, error) from error
        evaluation = yield (evaluator, batch)


def play_game_steps(white: MatchPlayer, black: MatchPlayer, fen: str,
                    rules: Adjudication | None = None) -> GameSteps:
    """:func:`play_game` as steps, so one worker can play many games at once and evaluate
    their searches' mini-batches together (:func:`play_match` with ``concurrency``)."""
    rules = rules or Adjudication()
    board = chess.Board(fen)
    players = {chess.WHITE: white, chess.BLACK: black}
    scores: dict[chess.Color, list[int | None]] = {chess.WHITE: [], chess.BLACK: []}
    nodes: dict[chess.Color, list[int | None]] = {chess.WHITE: [], chess.BLACK: []}
    for player in players.values():
        player.new_game()
    adjudicator = CutechessAdjudicator(rules) if rules.draw_rules == "cutechess" else None
    start = time.monotonic()
    result, reason, detail = "*", "", ""
    moves: list[str] = []
    while True:
        # cutechess-cli checks its board only after a move: a start position drawn by the
        # material count, fifty moves or repetition is still played from (not one without moves)
        first = adjudicator is not None and not moves and any(board.legal_moves)
        ended = None if first else rules_outcome(board, rules.draw_rules)
        if ended is not None:
            result, reason = ended
            break
        if len(moves) >= rules.max_plies:
            result, reason = "1/2-1/2", "max_plies"
            break
        mover = board.turn
        try:
            answer = yield from _move_steps(players[mover], board)
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
        nodes[mover].append(answer.info.get("nodes"))
        if adjudicator is not None:  # cutechess: the game's rules first, then adjudication
            if rules_outcome(board, rules.draw_rules) is not None:
                continue
            decided = adjudicator.add(board, answer.score_cp, len(moves))
        else:  # the claim reading, kept for the tournaments played under it
            decided = claim_adjudication(scores, board, rules, len(moves))
        if decided is not None:
            result, reason = decided
            break
    return GameRecord(white=white.name, black=black.name, fen=fen, result=result,
                      termination=reason, detail=detail, moves=tuple(moves),
                      scores_white=tuple(scores[chess.WHITE]),
                      scores_black=tuple(scores[chess.BLACK]),
                      seconds=round(time.monotonic() - start, 2),
                      nodes_white=tuple(nodes[chess.WHITE]),
                      nodes_black=tuple(nodes[chess.BLACK]))


def play_game(white: MatchPlayer, black: MatchPlayer, fen: str,
              rules: Adjudication | None = None) -> GameRecord:
    """Play one game from ``fen``; return its record (result, reason, moves, scores and the
    nodes each search reached per move -- the number that matters under a move-time limit)."""
    steps = play_game_steps(white, black, fen, rules)
    try:
        evaluator, batch = next(steps)
        while True:
            evaluator, batch = steps.send(evaluator.evaluate(batch))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


# --- matches -----------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _loaded_code() -> tuple[str | None, bool | None, dict[str, str | None]]:
    """The commit (and dirty flag) of the code this process loaded, read once per process:
    a worker started before a later commit keeps playing the code it loaded."""
    from chessmoe._io.provenance import git_commit, software

    git = git_commit()
    return git["commit"], git["dirty"], software()


def game_provenance(rules: Adjudication, search: str | None = None) -> GameProvenance:
    """What every game this process plays under ``rules`` records about the code (``search``:
    the tree search of the kit's MCTS players in the game, when there is one)."""
    commit, dirty, versions = _loaded_code()
    return GameProvenance(commit=commit, dirty=dirty, chessmoe=versions.get("chessmoe"),
                          chess=versions.get("chess"), torch=versions.get("torch"),
                          onnxruntime=versions.get("onnxruntime"),
                          draw_rules=rules.draw_rules, search=search)


def match_search(first: PlayerSpec, second: PlayerSpec) -> str | None:
    """The tree search the match's MCTS players use (``None`` when neither is one); a match
    is played by one search, so two MCTS players with different searches are refused."""
    kinds = sorted({p.search for p in (first, second) if p.kind == "mcts"})
    if len(kinds) > 1:
        raise KitError(f"{first.name} and {second.name} use different tree searches "
                       f"({' and '.join(kinds)}): a match is played by one search")
    return kinds[0] if kinds else None


def recorded_search(record: GameRecord) -> str:
    """The search that played a recorded game of MCTS players: games recorded before the
    native search existed name none and were played by the Python search."""
    found = record.provenance.search if record.provenance is not None else None
    return found or "python"


def _check_search(log_path: str | os.PathLike[str], played: Sequence[GameRecord],
                  search: str | None) -> None:
    if search is None:
        return
    other = sorted({recorded_search(r) for r in played} - {search})
    if other:
        raise KitError(f"{log_path} holds games played by the {other[0]} search; this run "
                       f"uses the {search} search and would mix them in one match: rerun "
                       f"with --search {other[0]} to resume it, or write to another directory")


def play_match(first: PlayerSpec, second: PlayerSpec, slots: Sequence[GameSlot],
               log_path: str | os.PathLike[str], *, rules: Adjudication | None = None,
               event: str = "chessmoe match",
               on_game: Callable[[GameRecord], None] | None = None,
               concurrency: int = 1, service: InferenceService | None = None,
               stop_when: Callable[[Sequence[GameRecord]], bool] | None = None
               ) -> list[GameRecord]:
    """Play the slots not yet in ``log_path`` (JSONL, one record per game); return all.

    ``stop_when`` (e.g. :class:`SprtRule`) sees the match's records after every game; once it
    says stop, no new game starts (games in flight finish and count), and a resumed match
    that is already decided plays nothing.

    ``concurrency > 1`` plays that many games at once in this process: each game has its own
    players and trees, the players of one spec share one evaluator, and every round the
    pending mini-batches of all games go to ``service`` together (one network call per
    network). Node-limited games are the games ``concurrency=1`` plays, move for move, when
    the network's rows do not depend on the batch they sit in (true of ONNX Runtime; see
    :mod:`chessmoe.search.inference`); games are logged as they finish.
    """
    with JsonlLog(log_path, key="slot") as log:  # one writer a log: a second is refused
        wanted = {s.id for s in slots}
        played = [GameRecord.from_json(r) for r in log if r["slot"] in wanted]
        search = match_search(first, second)
        _check_search(log_path, played, search)
        decided = [stop_when is not None and stop_when(played)]
        todo = [] if decided[0] else [s for s in slots if not log.done(s.id)]

        def should_stop() -> bool:
            return decided[0]

        played_by = game_provenance(rules or Adjudication(), search)
        crashes = [0]  # engine crashes in a row: a broken engine stops the match, not each game

        def finish(game: GameRecord, slot: GameSlot) -> None:
            first_score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[game.result]
            if not slot.first_is_white:
                first_score = 1.0 - first_score
            record = game.in_match(slot=slot.id, pair=slot.pair, game=slot.game,
                                   opening=slot.opening, first=first.name, second=second.name,
                                   first_is_white=slot.first_is_white, first_score=first_score,
                                   event=event,
                                   date=_dt.datetime.now(_dt.timezone.utc).strftime("%Y.%m.%d"),
                                   provenance=played_by)
            log.append(record.to_json())
            played.append(record)
            crashes[0] = crashes[0] + 1 if game.termination == "engine_crash" else 0
            if crashes[0] >= CRASH_STREAK:
                raise KitError(f"{CRASH_STREAK} games in a row ended in an engine crash, the last: "
                               f"{game.detail}; the match stopped with its games kept (rerun to "
                               "resume once the engine is fixed)")
            if stop_when is not None and not decided[0]:
                decided[0] = stop_when(played)
            if on_game is not None:
                on_game(record)

        if todo and concurrency > 1:
            _play_concurrently(first, second, todo, rules, finish, concurrency,
                               service or InferenceService(), should_stop)
        elif todo:
            players = [first.build(), second.build()]
            try:
                for slot in todo:
                    if should_stop():
                        break
                    white, black = (players if slot.first_is_white else players[::-1])
                    record = play_game(white, black, slot.fen, rules)
                    if record.termination in ("engine_crash", "time_forfeit"):
                        for k, spec in enumerate((first, second)):  # fresh engines go on playing
                            players[k].close()
                            players[k] = spec.build()
                    finish(record, slot)
            finally:
                for player in players:
                    player.close()
        return sorted((GameRecord.from_json(r) for r in log if r["slot"] in wanted),
                      key=lambda r: r.slot or "")


@dataclass(frozen=True)
class SprtRule:
    """Stop a match once a pentanomial SPRT of H0: elo0 against H1: elo1 is decided
    (:func:`chessmoe.elo.sprt` over the match's complete game pairs; by default the exact
    generalized LLR fishtest and fastchess compute)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"
    exact: bool = True

    def state(self, records: Sequence[GameRecord]) -> str:
        """"H0 accepted", "H1 accepted" or "continue" for these game records."""
        from chessmoe import elo

        return elo.sprt(elo0=self.elo0, elo1=self.elo1, alpha=self.alpha, beta=self.beta,
                        pentanomial=pentanomial_counts(records), model=self.model,
                        exact=self.exact).state

    def __call__(self, records: Sequence[GameRecord]) -> bool:
        return self.state(records) != "continue"


class _Lane:
    """One of the games a worker plays at once: its two players and the game in progress."""

    def __init__(self, players: list[MatchPlayer]) -> None:
        self.players = players
        self.slot: GameSlot | None = None
        self.steps: GameSteps | None = None
        self.request: Request | None = None


def _play_concurrently(first: PlayerSpec, second: PlayerSpec, todo: Sequence[GameSlot],
                       rules: Adjudication | None,
                       finish: Callable[[GameRecord, GameSlot], None], concurrency: int,
                       service: InferenceService,
                       should_stop: Callable[[], bool] = lambda: False) -> None:
    """Play ``todo`` with ``concurrency`` games in flight, evaluating together."""
    queue = list(todo)
    templates = [first.build(), second.build()]

    def fresh(k: int) -> MatchPlayer:
        template = templates[k]
        if isinstance(template, MctsPlayer):
            return template.sibling()
        return (first, second)[k].build()

    lanes = [_Lane(list(templates) if i == 0 else [fresh(0), fresh(1)])
             for i in range(min(concurrency, len(queue)))]

    def advance(lane: _Lane, evaluation: Evaluation | None) -> None:
        """Send ``evaluation`` (or start), finishing games and starting new ones until the
        lane waits for a mini-batch or has nothing left to play."""
        while True:
            if lane.steps is None:
                if not queue or should_stop():
                    lane.request = None
                    return
                lane.slot = queue.pop(0)
                white, black = (lane.players if lane.slot.first_is_white
                                else lane.players[::-1])
                lane.steps = play_game_steps(white, black, lane.slot.fen, rules)
                evaluation = None
            try:
                lane.request = (next(lane.steps) if evaluation is None
                                else lane.steps.send(evaluation))
                return
            except StopIteration as done:
                record: GameRecord = done.value
                assert lane.slot is not None
                if record.termination in ("engine_crash", "time_forfeit"):
                    for k in range(2):
                        lane.players[k].close()
                        lane.players[k] = fresh(k)
                finish(record, lane.slot)
                lane.steps, evaluation = None, None

    try:
        for lane in lanes:
            advance(lane, None)
        while True:
            active = [lane for lane in lanes if lane.request is not None]
            if not active:
                break
            evaluations = service.evaluate_many([lane.request for lane in active
                                                 if lane.request is not None])
            for lane, evaluation in zip(active, evaluations, strict=True):
                advance(lane, evaluation)
    finally:
        for lane in lanes:
            for player in lane.players:
                player.close()


def game_pgn(record: GameRecord, round_number: int | None = None) -> str:
    """The PGN of one game record, with full headers."""
    board = chess.Board(record.fen)
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = record.event or "chessmoe match"
    game.headers["Site"] = "chessmoe"
    game.headers["Date"] = record.date or "????.??.??"
    game.headers["Round"] = str(round_number if round_number is not None
                                else (record.pair or 0) + 1)
    game.headers["White"] = record.white
    game.headers["Black"] = record.black
    game.headers["Result"] = record.result
    game.headers["FEN"] = record.fen
    game.headers["SetUp"] = "1"
    game.headers["Termination"] = ("adjudication" if "adjudication" in record.termination
                                   else "rules infraction" if record.termination in (
                                       "illegal_move", "engine_crash") else "normal")
    game.headers["TerminationDetail"] = record.termination
    game.headers["PlyCount"] = str(record.plies)
    node: chess.pgn.GameNode = game
    for uci in record.moves:
        node = node.add_variation(chess.Move.from_uci(uci))
    game.headers["Result"] = record.result
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=False)
    return game.accept(exporter)


def write_pgn(records: Sequence[GameRecord], path: str | os.PathLike[str]) -> Path:
    """Write every game record as PGN (atomically). Every game, the last included, ends
    with a blank line, so ``cat a.pgn b.pgn`` is a valid PGN file of both."""
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text("".join(game_pgn(r).rstrip("\n") + "\n\n" for r in records))
    return path
