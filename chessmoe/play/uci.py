"""The UCI front end (``chessmoe uci``): :class:`UciEngine` speaks the Universal Chess Interface
for the paper's engine and the related documents' engines. It answers ``uci`` before loading
anything, loads in the background, refuses a bad option or unloadable weights in one line,
never plays a move no search chose, and gives ``go depth``/``go mate`` the meaning
:mod:`chessmoe.search.stops` states; docs/playing.md tells each command per player."""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from typing import IO, Any

import chess

import chessmoe
from chessmoe._io.errors import KitError, error_cause
from chessmoe.play.engine import Player, Searcher, confidence_to_cp, value_to_cp
from chessmoe.search.evaluators import EvaluatorSpec
from chessmoe.search.kinds import SEARCH_KINDS, native_problem
from chessmoe.search.mcts import Evaluator, Limits, SearchConfig, SearchResult
from chessmoe.search.stops import reported_depth

__all__ = ["DEPTH_ONLY_NODES", "RELATED_COMMON", "EngineOptions", "LoadError", "UciEngine",
           "UciError", "pv_in_game", "run_uci", "uci_mate", "wait_for"]

DEPTH_ONLY_NODES = 250_000
"""The nodes (as the player's ``info nodes`` counts them) a search may use when ``go`` bounds
it only by ``depth`` or ``mate``, so that neither can run forever (an MCTS tree of this size
holds a few hundred MB); ``go nodes`` raises it."""

RELATED_COMMON = ("Nodes", "Fixed_Movetime", "Model_Directory", "Threads")
"""The common options a related engine uses (the others steer the paper's MCTS only)."""


_EVALUATOR = EvaluatorSpec()  # a user's engine: the defaults' one home (search.evaluators)

# The one mapping between the UCI options and EvaluatorSpec: (option, field, the option's value
# for a field's None -- the UCI dialogue has no None: an empty string, or -1 for all experts)
_EVALUATOR_OPTIONS: tuple[tuple[str, str, Any], ...] = (
    ("Model_Directory", "network", ""), ("Baseline_Directory", "baseline", ""),
    ("Phase_Definition", "gate", ""), ("Routing", "routing", None),
    ("Single_Expert", "single_expert", -1), ("Threads", "threads", None),
    ("Device", "device", None), ("Backend", "backend", None), ("Uniform", "uniform", None))


@dataclass(frozen=True)
class EngineOptions:
    """The engine's UCI options (names as the UCI dialogue spells them). The evaluator's
    options map to and from :class:`~chessmoe.search.evaluators.EvaluatorSpec` in one place
    (:meth:`evaluator_spec`, :meth:`from_evaluator_spec`) and take its defaults."""

    Batch_Size: int = 8
    Nodes: int = 800  # 0: no node limit
    Simulations: int = 0  # 0: twice Nodes
    Fixed_Movetime: int = 0  # ms; 0: off
    Model_Directory: str = ""  # an expert bundle; empty: the kit's small experts if present
    Baseline_Directory: str = ""  # the regular bundle (single-expert ablation)
    Phase_Definition: str = ""  # the gate; empty: the bundle's training definition
    Routing: str = _EVALUATOR.routing
    Single_Expert: int = -1  # -1: all experts; k: phase k's expert, baseline elsewhere
    Threads: int = _EVALUATOR.threads
    Device: str = _EVALUATOR.device  # auto: cuda when present, else cpu
    # auto: cuda on a GPU, else openvino-bf16 where its gates passed, else ONNX Runtime
    # (search.inference.choose_backend); torch (eager fp32, the reference), onnx (fp32)
    Backend: str = _EVALUATOR.backend
    Uniform: bool = _EVALUATOR.uniform  # no network: value 0, uniform priors
    Search: str = "native"  # the tree search: native (compiled) or python (the reference)

    def evaluator_spec(self) -> EvaluatorSpec:
        """The evaluator these options describe (UCI names mapped once, here)."""
        fields: dict[str, Any] = {}
        for option, field, empty in _EVALUATOR_OPTIONS:
            value = getattr(self, option)
            fields[field] = None if empty is not None and value == empty else value
        return EvaluatorSpec(**fields)

    @classmethod
    def from_evaluator_spec(cls, spec: EvaluatorSpec, **others: Any) -> EngineOptions:
        """The options describing ``spec`` (the inverse of :meth:`evaluator_spec`), with the
        search's options ``others`` (``Batch_Size``, ``Nodes``, ...)."""
        return cls(**{option: empty if getattr(spec, field) is None else getattr(spec, field)
                      for option, field, empty in _EVALUATOR_OPTIONS}, **others)


def build_from_options(options: EngineOptions) -> tuple[Evaluator, str]:
    """The default evaluator factory of :class:`UciEngine`: the network the options name, or
    the kit's committed small experts when ``Model_Directory`` is empty; an error (never the
    uniform evaluator) when there is no network to load and ``Uniform`` is off
    (:meth:`EvaluatorSpec.build <chessmoe.search.evaluators.EvaluatorSpec.build>` refuses)."""
    return options.evaluator_spec().build()


_SPIN = {"Batch_Size": (1, 512), "Nodes": (0, 100_000_000), "Simulations": (0, 200_000_000),
         "Fixed_Movetime": (0, 86_400_000), "Single_Expert": (-1, 15), "Threads": (1, 256)}
_GO_KEYS = frozenset({"wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate",
                      "movetime", "infinite", "ponder", "searchmoves"})
_COMBO = {"Routing": ("majority", "split", "soft"), "Backend": ("auto", "torch", "onnx", "cuda"),
          "Search": SEARCH_KINDS}
_DEVICE = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")
# options whose change rebuilds the player (its evaluator or weights) on the next isready/go
_REBUILD = frozenset({"Model_Directory", "Baseline_Directory", "Phase_Definition", "Routing",
                      "Single_Expert", "Device", "Backend", "Uniform", "Batch_Size", "Search"})


class UciError(ValueError):
    """A command the engine cannot carry out (reported as ``info string``)."""


class LoadError(RuntimeError):
    """The player's weights or network cannot be loaded: the engine reports it and exits."""


def uci_mate(plies: int) -> int:
    """UCI's ``score mate`` of a mate ``plies`` plies away (positive: the side to move mates):
    moves, not plies, negative when the side to move is mated (Stockfish's rounding)."""
    return (plies + 1) // 2 if plies > 0 else -((-plies + 1) // 2)


@dataclass(frozen=True)
class _Go:
    """What a ``go`` asks: the limits, the ``searchmoves``, whether to wait for ``stop``
    (``infinite``/``ponder``) and whether the move time is a share of the clock."""

    limits: Limits
    allowed: list[chess.Move] | None = None
    infinite: bool = False
    clock: bool = False


@dataclass(frozen=True)
class _Built:
    """A loaded player, the evaluator's one-line description and what else to say."""

    player: Searcher
    description: str = ""
    notes: tuple[str, ...] = ()


_QUIET_S = 0.3  # a background load waits this long for more setoption before it starts


@dataclass
class _Loader:
    """A background load: the generation of the options it builds from, its thread, an event
    that ends its wait before building (``hurry``), whether it was called off before it
    began, and its outcome."""

    generation: int
    thread: threading.Thread | None = None
    hurry: threading.Event = dataclass_field(default_factory=threading.Event)
    cancelled: bool = False
    outcome: list[_Built | BaseException] = dataclass_field(default_factory=list)


class UciEngine:
    """A UCI engine over text streams (``run`` loops until ``quit`` or end of input).

    Its options carry the names of the
    paper's cutechess command where they exist (``Batch_Size``, ``Nodes``, ``Simulations``,
    ``Fixed_Movetime``, ``Model_Directory``) plus ``Baseline_Directory``, ``Phase_Definition`` (the
    gate), ``Routing``, ``Single_Expert``, ``Threads`` and ``Device``. A related document's engine
    (``--player deepchess|ntuple|mais``) lists only the common options that apply to it
    (:data:`RELATED_COMMON`) and its own (its module's ``OPTIONS``, e.g. DeepChess ``Depth``,
    n-tuple ``Evaluation`` and ``Depth``, MAIS ``Delta_Percent``), and says what it loaded:
    ``info string <engine> weights <path> sha256 <first 12 hex>``. Malformed commands and illegal
    moves produce an ``info string`` and never stop the engine.

    Loading: ``uci`` is answered before anything is loaded (the options are declared
    without importing an engine's module or torch), so every engine answers it at once; the
    weights load on ``isready`` (or lazily before the first ``go``) and again after an option
    that changes them. A player whose weights or network cannot be loaded never plays with a
    stand-in: the error goes to an ``info string`` and to stderr, and the engine exits with
    status 1 at that ``isready`` or ``go`` (no ``readyok``, no ``bestmove``), as Stockfish does
    when its network file cannot be loaded. ``Uniform`` (the paper's engine only) stays the
    explicit way to play without a network. Any other bad option value is refused when it is set
    (``info string error: ...`` naming the option; the option keeps its previous value): a value
    out of range, not one of a combo's choices, a check that is not true or false, an unknown
    device or phase definition, or an option the engine does not list."""

    def __init__(self, options: EngineOptions | None = None, *,
                 out: IO[str] | None = None,
                 make_evaluator: Callable[[EngineOptions], tuple[Evaluator, str]] | None = None,
                 engine: str = "moe", err: IO[str] | None = None,
                 exit_on_failure: bool = False) -> None:
        self.options = options or EngineOptions()
        self.engine = engine  # "moe" (the paper's engine) or a related kind (play.players)
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.exit_code = 0  # 1 once the player could not be loaded or search (the loop ends)
        # a search that fails for good ends the process at once (run_uci): the loop may be
        # blocked reading input, and no move may be sent for it
        self._exit_on_failure = exit_on_failure
        self._make_evaluator = make_evaluator or build_from_options
        self.board = chess.Board()
        self.player: Searcher | None = None
        self._described = ""
        self._generation = 0  # counts changes of the options a player is built from
        self._loader: _Loader | None = None  # the background load of the current options
        self._loading = False  # background loads start once 'uci' was seen
        self.loads: list[threading.Thread] = []  # every background load started
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._infinite = False  # "go infinite": bestmove only after stop (UCI)
        self._lag = 0.0  # ms a clock search ran past its move time lately (taken off the next)
        # what set self.board: the base ("startpos" or the FEN's tokens) and the moves played
        # from it, so that a manager's next position (the same moves and one or two more)
        # plays only the new moves (re-checking a long game's moves took ~5 ms of its clock)
        self._position: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self._lock = threading.Lock()
        self.engine_settings: dict[str, Any] = {}  # a related engine's own options, as set

    # -- output --
    def send(self, line: str) -> None:
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    def info(self, text: str) -> None:
        """One ``info string`` line per line of ``text`` (a GUI reads line by line)."""
        for line in str(text).splitlines() or [""]:
            self.send(f"info string {line}")

    # -- the loop --
    def run(self, stream: IO[str]) -> None:
        """Read commands until ``quit`` or the end of input; either stops a running search
        (its ``bestmove`` is still sent) before returning."""
        for raw in stream:
            if not self.handle(raw):
                break
        self._stop_search()

    def handle(self, raw: str) -> bool:
        """Handle one command line (tokens split at any whitespace); ``False`` after ``quit``
        or once the engine has ended."""
        if self.exit_code:
            return False
        tokens = raw.split()
        if not tokens:
            return True
        command, rest = tokens[0], " ".join(tokens[1:])
        try:
            if command == "quit":
                self._stop.set()
                return False
            handler = getattr(self, f"_cmd_{command}", None)
            if handler is None:
                raise UciError(f"unknown command: {' '.join(tokens)}")
            handler(rest)
        except UciError as error:
            self.info(f"error: {error}")
        except LoadError as error:  # as Stockfish on a network it cannot load: say so, exit
            self.info(f"error: {error}")
            print(f"chessmoe uci: error: {error}", file=self.err, flush=True)
            self.exit_code = 1
            self._stop.set()
            return False
        except Exception as error:  # the engine must survive any input
            self.info(f"error: {type(error).__name__}: {error}")
        return not self.exit_code

    # -- commands --
    def _cmd_uci(self, _: str) -> None:
        # a GUI lists engines by this name: the related players say which engine they are
        suffix = "" if self.engine == "moe" else f" {self.engine}"
        self.send(f"id name chessmoe{suffix} {chessmoe.__version__}")
        self.send("id author chessmoe developers")
        defaults = EngineOptions()
        for name in EngineOptions.__dataclass_fields__:
            if self.engine != "moe" and name not in RELATED_COMMON:
                continue
            value = getattr(defaults, name)
            if name in _SPIN:
                low, high = _SPIN[name]
                self.send(f"option name {name} type spin default {value} min {low} max {high}")
            elif name in _COMBO:
                choices = " ".join(f"var {c}" for c in _COMBO[name])
                self.send(f"option name {name} type combo default {value} {choices}")
            elif isinstance(value, bool):
                self.send(f"option name {name} type check default {str(value).lower()}")
            else:
                self.send(f"option name {name} type string default {value or '<empty>'}")
        if self.engine != "moe":
            from chessmoe.play.players import engine_options

            for option in engine_options(self.engine):
                self.send(option.uci_line())
        self.send("uciok")
        self._loading = True
        self._start_loading()

    def _cmd_isready(self, _: str) -> None:
        self._load()  # a LoadError ends the engine without readyok
        self.send("readyok")

    def _cmd_debug(self, _: str) -> None:
        pass

    def _cmd_register(self, _: str) -> None:
        pass

    def _cmd_setoption(self, rest: str) -> None:
        tokens = rest.split()
        if len(tokens) < 2 or tokens[0] != "name" or tokens[1] == "value":
            raise UciError(f"setoption needs 'name <id> [value <x>]', got: {rest}")
        cut = tokens.index("value", 2) if "value" in tokens[2:] else len(tokens)
        name, value = " ".join(tokens[1:cut]), " ".join(tokens[cut + 1:])
        if self.engine != "moe" and self._set_engine_option(name, value):
            return
        fields = {f.lower(): f for f in EngineOptions.__dataclass_fields__
                  if self.engine == "moe" or f in RELATED_COMMON}
        key = fields.get(name.lower().replace(" ", "_"))
        if key is None:
            listed = "" if self.engine == "moe" else f" for engine {self.engine}"
            raise UciError(f"unknown option {name!r}{listed}; refused")
        current = getattr(self.options, key)
        if value == "<empty>":
            value = ""
        if not value and not isinstance(current, str):
            shown = str(current).lower() if isinstance(current, bool) else current
            raise UciError(f"option {key} needs a value (setoption name {key} value <x>); "
                           f"{key} stays {shown}")
        parsed: Any
        if isinstance(current, bool):
            from chessmoe.play.players import parse_check

            try:
                parsed = parse_check(key, value)
            except KitError as error:
                raise UciError(f"{error}; {key} stays {str(current).lower()}") from None
        elif isinstance(current, int):
            try:
                parsed = int(value)
            except ValueError:
                raise UciError(f"option {key} needs an integer, got {value!r}; {key} stays "
                               f"{current}") from None
            low, high = _SPIN[key]
            if not low <= parsed <= high:
                raise UciError(f"option {key} must lie in {low}..{high}, got {parsed}; {key} "
                               f"stays {current}")
        else:
            parsed = value
            self._check_string(key, parsed, current)
        self.options = replace(self.options, **{key: parsed})
        if key in _REBUILD:
            self._invalidate()
        torch = sys.modules.get("torch")
        # else the next build sets it (torch may still be importing in the background load)
        if key == "Threads" and torch is not None and hasattr(torch, "set_num_threads"):
            torch.set_num_threads(parsed)

    @staticmethod
    def _check_string(key: str, value: str, current: str) -> None:
        """Refuse a string option's value the engine could not use (a combo's non-choice,
        an unknown device or phase definition); paths are checked when loaded."""
        keeps = f"; {key} stays {current or '<empty>'}"
        if key in _COMBO and value not in _COMBO[key]:
            raise UciError(f"option {key} must be one of {', '.join(_COMBO[key])}, got "
                           f"{value!r}{keeps}")
        if key == "Device" and not _DEVICE.match(value):
            raise UciError(f"option Device must be auto, cpu, mps, cuda or cuda:N, got "
                           f"{value!r}{keeps}")
        if key == "Phase_Definition" and value:
            from chessmoe.phases import PHASE_DEFINITIONS

            if value not in PHASE_DEFINITIONS:
                raise UciError(f"option Phase_Definition must be empty (the bundle's own) or "
                               f"one of {', '.join(PHASE_DEFINITIONS)}, got {value!r}{keeps}")

    def _set_engine_option(self, name: str, value: str) -> bool:
        """Set a related engine's own option; ``False`` when ``name`` is not one of them."""
        from chessmoe.play.players import engine_options

        own = {o.name.lower(): o for o in engine_options(self.engine)}
        option = own.get(name.lower().replace(" ", "_"))
        if option is None:
            return False
        current = self.engine_settings.get(option.name, option.default)
        shown = str(current).lower() if isinstance(current, bool) else current
        if not value:
            raise UciError(f"option {option.name} needs a value (setoption name "
                           f"{option.name} value <x>); {option.name} stays {shown}")
        try:
            self.engine_settings[option.name] = option.parse(value)
        except KitError as error:
            raise UciError(f"{error}; {option.name} stays {shown}") from None
        self._invalidate()  # rebuilt with the new setting on the next isready/go
        return True

    def _cmd_ucinewgame(self, _: str) -> None:
        self._stop_search()
        self.board = chess.Board()
        self._position = None
        if self.player is not None:
            self.player.new_game()

    def _cmd_position(self, rest: str) -> None:
        """As Stockfish: the moves up to the first illegal (or malformed) one are played and
        the rest ignored, with an ``info string`` naming it; a FEN that cannot be read keeps
        the previous position."""
        tokens = rest.split()
        keeps = "; the previous position stays"
        if not tokens or tokens[0] not in ("startpos", "fen"):
            got = f", got {tokens[0]!r}" if tokens else ""
            raise UciError(f"position needs 'startpos' or 'fen <fen>'{got}{keeps}")
        cut = tokens.index("moves") if "moves" in tokens else len(tokens)
        base, moves = tuple(tokens[:cut]), tuple(tokens[cut + 1:])
        known = self._position
        if known is not None and known[0] == base and moves[:len(known[1])] == known[1]:
            board, start = self.board.copy(), len(known[1])  # its moves were all legal
            tokens = ["moves", *moves[start:]]
        elif tokens[0] == "startpos":
            board, tokens, start = chess.Board(), tokens[1:], 0
        else:
            fen, tokens, start = " ".join(tokens[1:cut]), tokens[cut:], 0
            try:
                board = chess.Board(fen)
            except ValueError as error:
                raise UciError(f"bad FEN {fen!r}: {error}{keeps}") from None
            if not board.is_valid():
                raise UciError(f"invalid position {fen!r} ({board.status()!r}){keeps}")
        notes = []
        if tokens and tokens[0] != "moves":
            notes.append(f"expected 'moves', ignored: {' '.join(tokens)}")
            tokens = []
        for played, uci in enumerate(tokens[1:], start):
            try:
                move: chess.Move | None = chess.Move.from_uci(uci)
            except ValueError:
                move, what = None, "malformed move"
            else:
                what = "illegal move"
            if move is None or not move or move not in board.legal_moves:
                notes.append(f"{what} {uci} in {board.fen()}: the position is the one after "
                             f"the {played} move(s) before it; the rest is ignored")
                break
            board.push(move)
        self._stop_search()
        self.board = board
        self._position = None if notes else (base, moves)
        for note in notes:
            self.info(f"error: {note}")

    def _cmd_go(self, rest: str) -> None:
        """Start a search; every ``go`` of a loaded player ends in exactly one ``bestmove``
        -- ``(none)`` where the position has no move (after ``stop`` under ``infinite``), the
        engine's own limits (with an ``info string``) where the parameters are bad. A player
        that cannot be loaded ends the engine instead (:class:`LoadError`): no move is played
        for it."""
        received = time.monotonic()
        self._stop_search()
        board = self.board.copy()
        over = not any(board.legal_moves)
        go = _Go(self._default_limits(),
                 infinite=bool({"infinite", "ponder"} & set(rest.split())))
        if not over:
            try:
                go = self._limits(rest.split())
            except UciError as error:
                self.info(f"error: {error}; searching with the engine's own limits")
        player = self._load()  # a LoadError ends the engine without a bestmove
        self._stop.clear()
        self._infinite = go.infinite
        if over:
            self.send(f"info depth 0 score {'mate 0' if board.is_check() else 'cp 0'}")
            self.info("no legal move: the game is over in this position")
            if not go.infinite:
                self.send("bestmove (none)")
                return
            self._thread = threading.Thread(target=self._answer_none, daemon=True)
            self._thread.start()
            return
        limits = go.limits
        waited = time.monotonic() - received  # a load still running when go came
        if go.clock and limits.movetime_ms is not None and waited > 0.001:
            limits = replace(limits, movetime_ms=max(1.0, limits.movetime_ms - 1000 * waited))
        clock = received + waited if go.clock else None
        self._thread = threading.Thread(target=self._search, daemon=True,
                                        args=(player, board, limits, go.allowed, clock))
        self._thread.start()

    def _answer_none(self) -> None:
        while self._infinite and not self._stop.is_set():  # wait for stop (UCI)
            self._stop.wait(0.05)
        self.send("bestmove (none)")

    def _cmd_stop(self, _: str) -> None:
        self._stop_search()

    def _cmd_ponderhit(self, _: str) -> None:
        # the ponder search ran without limits: its move now (the time it took was free)
        self._stop_search()

    def _stop_search(self) -> None:
        """Stop a running search promptly and wait for its ``bestmove``."""
        self._infinite = False
        self._stop.set()
        self._wait()

    # -- helpers --
    def _default_limits(self) -> Limits:
        options = self.options
        return Limits(nodes=options.Nodes or None, simulations=options.Simulations or None,
                      movetime_ms=float(options.Fixed_Movetime) if options.Fixed_Movetime
                      else None)

    def _limits(self, tokens: list[str]) -> _Go:
        """What ``go`` asks (see :class:`_Go`)."""
        args: dict[str, int] = {}
        flags = set()
        allowed: list[chess.Move] | None = None
        i = 0
        while i < len(tokens):
            key = tokens[i]
            if key in ("infinite", "ponder"):
                flags.add(key)
                i += 1
                continue
            if key == "searchmoves":
                allowed, i = [], i + 1
                while i < len(tokens) and tokens[i] not in _GO_KEYS:
                    try:
                        move = chess.Move.from_uci(tokens[i])
                    except ValueError:
                        raise UciError(f"searchmoves: malformed move {tokens[i]!r}") from None
                    if move not in self.board.legal_moves:
                        raise UciError(f"searchmoves: {tokens[i]} is not legal here")
                    allowed.append(move)
                    i += 1
                continue
            if key not in _GO_KEYS:
                raise UciError(f"go: unknown parameter {key!r}")
            if i + 1 >= len(tokens):
                raise UciError(f"go {key} needs a value")
            try:
                value = int(tokens[i + 1])
            except ValueError:
                raise UciError(f"go {key} needs an integer, got {tokens[i + 1]!r}") from None
            if value < 0 and key not in ("wtime", "btime"):
                raise UciError(f"go {key} must not be negative, got {value}")
            args[key] = value
            i += 2
        if flags:  # infinite, ponder: until stop
            return _Go(Limits(), allowed, infinite=True)
        nodes, movetime = args.get("nodes"), args.get("movetime")
        depth, mate = args.get("depth"), args.get("mate")
        side_time = args.get("wtime" if self.board.turn else "btime")
        clock = side_time is not None and movetime is None
        if side_time is not None and movetime is None:
            increment = args.get("winc" if self.board.turn else "binc", 0)
            moves_left = args.get("movestogo", 30)
            budget = side_time / max(moves_left, 1) + 0.75 * increment
            movetime = int(max(1, min(budget, side_time / 2 - 50) - self._lag))
        if nodes is None and movetime is None:
            if depth is None and mate is None:
                return _Go(self._default_limits(), allowed)
            nodes = DEPTH_ONLY_NODES  # depth or mate alone: never forever
        if nodes == 0:
            nodes = 1  # the least search there is: answer at once
        if movetime == 0:
            movetime = 1  # "go movetime 0": answer at once, never search forever
        return _Go(Limits(nodes=nodes, simulations=self.options.Simulations or None,
                          movetime_ms=float(movetime) if movetime else None,
                          depth=None if depth is None else max(1, depth),
                          mate=None if mate is None else max(1, mate)), allowed, clock=clock)

    # -- loading --
    def _invalidate(self) -> None:
        """An option the player is built from changed: rebuilt on the next isready/go (in
        the background meanwhile, once ``uci`` was seen)."""
        self.player = None
        self._generation += 1
        loader = self._loader
        if loader is not None:  # called off if it has not begun; else its result is dropped
            loader.cancelled = True
            loader.hurry.set()
            self._loader = None
        if self._loading:
            self._start_loading()

    def _start_loading(self) -> None:
        """Load the player in the background with the options of now, after a short wait
        for further ``setoption`` (which start another load instead)."""
        if self.player is not None or self._loader is not None:
            return
        loader = _Loader(self._generation)
        options, settings = self.options, dict(self.engine_settings)

        def load() -> None:
            loader.hurry.wait(_QUIET_S)
            if loader.cancelled:
                return
            try:
                loader.outcome.append(self._build(options, settings))
            except BaseException as error:  # reported when isready or go needs the player
                loader.outcome.append(error)

        loader.thread = threading.Thread(target=load, name="chessmoe-load", daemon=True)
        self._loader = loader
        self.loads.append(loader.thread)
        loader.thread.start()

    def _load(self) -> Searcher:
        """The player, built now if needed; a :class:`LoadError` when it cannot be."""
        loader, self._loader = self._loader, None
        if loader is not None and loader.generation == self._generation and self.player is None:
            assert loader.thread is not None
            loader.hurry.set()
            loader.thread.join()
            outcome = loader.outcome[0]
            if isinstance(outcome, BaseException):
                raise LoadError(self._load_failure(outcome))
            self._take(outcome)
        if self.player is None:
            try:
                built = self._build(self.options, dict(self.engine_settings))
            except Exception as error:
                raise LoadError(self._load_failure(error)) from None
            self._take(built)
        assert self.player is not None
        return self.player

    def _load_failure(self, error: BaseException) -> str:
        what = "network" if self.engine == "moe" else f"{self.engine} weights"
        cause = str(error) if isinstance(error, KitError) else error_cause(error)
        return f"cannot load the {what}: {' '.join(cause.split())}"

    def _take(self, built: _Built) -> None:
        self.player = built.player
        if built.description and built.description != self._described:
            self.info(built.description)
            self._described = built.description
        for note in built.notes:
            self.info(note)

    def _build(self, options: EngineOptions, settings: dict[str, Any]) -> _Built:
        """A player of ``options`` (a related engine's with its own ``settings``)."""
        if self.engine != "moe":
            from chessmoe.play.players import build_searcher

            player = build_searcher(self.engine, options.Model_Directory or None,
                                    threads=options.Threads, options=settings)
            loaded = getattr(player, "loaded", "")
            return _Built(player, notes=(f"{self.engine} {loaded}",) if loaded else ())
        evaluator, description = self._make_evaluator(options)
        kind = options.Search
        notes: tuple[str, ...] = ()
        if kind == "native":
            problem = native_problem()
            if problem is not None:
                kind, notes = "python", (f"the compiled search cannot run: {problem}; "
                                         "searching with the Python reference search (the "
                                         "same moves, slower)",)
        return _Built(Player(evaluator, SearchConfig(batch_size=options.Batch_Size),
                             search_kind=kind), description, notes)

    # -- searching --
    def _search(self, player: Searcher, board: chess.Board, limits: Limits,
                allowed: list[chess.Move] | None = None, clock: float | None = None) -> None:
        """Search and answer; ``clock``: when a clock search's move time began (its overrun
        is measured against it for the next budgets)."""
        # torch's thread count is the calling thread's own (OpenMP's), and this thread is
        # new: unset, torch would use every core here whatever Threads says, which on a
        # loaded machine made a torch search many times slower than in the main thread
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.set_num_threads(self.options.Threads)
        calibrated = bool(getattr(player, "scores_calibrated", True))
        try:
            result = player.play(board, limits, stop=self._stop,
                                 on_progress=lambda r: self.send(
                                     self._info_line(r, board, calibrated)))
        except Exception as error:
            reference = self._reference(player)
            if reference is None:
                return self._fail(f"the search failed ({error_cause(error)})")
            self.info(f"error: the compiled search failed ({error_cause(error)}); searching "
                      "again with the Python reference search (the same moves, slower)")
            self.player = player = reference
            try:
                result = player.play(board, limits, stop=self._stop,
                                     on_progress=lambda r: self.send(
                                         self._info_line(r, board)))
            except Exception as again:
                return self._fail(f"the Python reference search failed too "
                                  f"({error_cause(again)})")
        while self._infinite and not self._stop.is_set():  # wait for stop (UCI)
            self._stop.wait(0.05)
        self.send(self._info_line(result, board, calibrated))
        move = result.move
        if allowed:
            by_visits = {c.move: c.visits for c in result.children}
            move = max(allowed, key=lambda m: by_visits.get(m, -1))
        self.send(f"bestmove {move.uci() if move else '(none)'}")
        if clock is not None and limits.movetime_ms is not None:  # decays, never below 0
            overrun = 1000 * (time.monotonic() - clock) - limits.movetime_ms
            self._lag = max(overrun, 0.8 * self._lag, 0.0)

    @staticmethod
    def _reference(player: Searcher) -> Player | None:
        """The same player on the Python reference search, for a failed compiled one."""
        if isinstance(player, Player) and player.search_kind != "python":
            return Player(player.evaluator, player.config, search_kind="python")
        return None

    def _fail(self, message: str) -> None:
        """A search that cannot be carried out ends the engine: no move is played for it."""
        message = f"{message}; no move is played for a search that did not run"
        self.info(f"error: {message}")
        print(f"chessmoe uci: error: {message}", file=self.err, flush=True)
        self.exit_code = 1
        if self._exit_on_failure:  # the loop may be blocked reading input: end the process
            self.out.flush()
            os._exit(1)

    @staticmethod
    def _info_line(result: SearchResult, board: chess.Board, calibrated: bool = True) -> str:
        """The search's UCI info: ``score mate`` for a proven mate, else ``score cp``: the
        centipawns of the search value, or, for an engine whose values are no calibrated
        evaluation (DeepChess), the logistic Elo of its comparator's confidence
        (:func:`~chessmoe.play.engine.confidence_to_cp`), so every info line has the score a
        manager reads (in-process matches record no such score: :mod:`chessmoe.play.match`).
        The PV ends where the game would (:func:`pv_in_game`)."""
        pv = " ".join(m.uci() for m in pv_in_game(board, result.pv))
        if result.mate is not None:
            score = f"mate {uci_mate(result.mate)}"
        elif calibrated:
            score = f"cp {value_to_cp(result.value)}"
        else:
            score = f"cp {confidence_to_cp(result.value)}"
        return (f"info depth {reported_depth(result.depth)} seldepth {result.seldepth} "
                f"nodes {result.nodes} nps {int(result.nps)} "
                f"time {int(result.seconds * 1000)} score {score} pv {pv}")

    def _wait(self) -> None:
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        self._thread = None


def pv_in_game(board: chess.Board, pv: list[chess.Move]) -> list[chess.Move]:
    """``pv`` up to the move that ends the game from ``board`` (with its history): a mate,
    stalemate, insufficient material, a threefold repetition or the fifty-move rule -- a
    search that does not know the game's history (best-first) may see past them, and a
    manager flags such a PV -- or up to the first move that is not legal."""
    work = board.copy()
    kept: list[chess.Move] = []
    for move in pv:
        if move not in work.legal_moves:
            break
        work.push(move)
        kept.append(move)
        if (not any(work.legal_moves) or work.is_insufficient_material()
                or work.halfmove_clock >= 100 or work.is_repetition(3)):
            break
    return kept


def run_uci(options: EngineOptions | None = None, stream: IO[str] | None = None, *,
            engine: str = "moe") -> int:
    """Run the UCI loop on stdin/stdout with ``engine`` (``moe`` or a related kind)."""
    if engine != "moe":
        from chessmoe.play.players import check_engine

        check_engine(engine)  # an unknown or absent engine: one line before the loop
    uci_engine = UciEngine(options, engine=engine, exit_on_failure=True)
    uci_engine.run(stream or sys.stdin)
    if any(thread.is_alive() for thread in uci_engine.loads):
        # a background load for options since changed is still importing or building:
        # leave without tearing the interpreter down under it
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(uci_engine.exit_code)
    return uci_engine.exit_code


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll ``predicate`` until true or ``timeout`` seconds pass (for tests and tools)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()
