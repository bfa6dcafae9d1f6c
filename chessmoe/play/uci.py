"""The UCI front end (``chessmoe uci``) over text streams: :class:`UciEngine` speaks the
Universal Chess Interface for the paper's engine and the related documents' engines, answers
every command (malformed ones with an ``info string``) and never plays with a stand-in for
weights it could not load.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import IO, Any

import chess

import chessmoe
from chessmoe.play.engine import Player, Searcher, value_to_cp
from chessmoe.search.evaluators import EvaluatorSpec
from chessmoe.search.kinds import SEARCH_KINDS
from chessmoe.search.mcts import Evaluator, Limits, SearchConfig, SearchResult

__all__ = ["RELATED_COMMON", "EngineOptions", "LoadError", "UciEngine", "UciError", "run_uci",
           "wait_for"]

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
    # auto: cuda on a GPU, ONNX Runtime on a CPU (search.inference.choose_backend); torch
    # (eager fp32, the reference), onnx (ONNX Runtime, CPU), cuda (bf16 + graphs)
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
                 engine: str = "moe", err: IO[str] | None = None) -> None:
        self.options = options or EngineOptions()
        self.engine = engine  # "moe" (the paper's engine) or a related kind (play.players)
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.exit_code = 0  # 1 once the player could not be loaded (the loop then ends)
        self._make_evaluator = make_evaluator or build_from_options
        self.board = chess.Board()
        self.player: Searcher | None = None
        self._described = ""
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._infinite = False  # "go infinite": bestmove only after stop (UCI)
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
        """Handle one command line; ``False`` after ``quit``."""
        line = raw.strip()
        if not line:
            return True
        command, _, rest = line.partition(" ")
        try:
            if command == "quit":
                self._stop.set()
                return False
            handler = getattr(self, f"_cmd_{command}", None)
            if handler is None:
                raise UciError(f"unknown command: {line}")
            handler(rest.strip())
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
        return True

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

    def _cmd_isready(self, _: str) -> None:
        self._load()  # a LoadError ends the engine without readyok
        self.send("readyok")

    def _cmd_debug(self, _: str) -> None:
        pass

    def _cmd_register(self, _: str) -> None:
        pass

    def _cmd_setoption(self, rest: str) -> None:
        if not rest.startswith("name "):
            raise UciError(f"setoption needs 'name <id> [value <x>]', got: {rest}")
        name, _, value = rest[5:].partition(" value ")
        name, value = name.strip(), value.strip()
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
        parsed: Any
        if isinstance(current, bool):
            from chessmoe._io.errors import KitError
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
            self.player = None  # rebuilt on the next isready/go
        torch = sys.modules.get("torch")
        if key == "Threads" and torch is not None:  # else the next build sets it
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
        from chessmoe._io.errors import KitError
        from chessmoe.play.players import engine_options

        own = {o.name.lower(): o for o in engine_options(self.engine)}
        option = own.get(name.lower().replace(" ", "_"))
        if option is None:
            return False
        current = self.engine_settings.get(option.name, option.default)
        try:
            self.engine_settings[option.name] = option.parse(value)
        except KitError as error:
            shown = str(current).lower() if isinstance(current, bool) else current
            raise UciError(f"{error}; {option.name} stays {shown}") from None
        self.player = None  # rebuilt with the new setting on the next isready/go
        return True

    def _cmd_ucinewgame(self, _: str) -> None:
        self._stop_search()
        self.board = chess.Board()
        if self.player is not None:
            self.player.new_game()

    def _cmd_position(self, rest: str) -> None:
        tokens = rest.split()
        if not tokens:
            raise UciError("position needs 'startpos' or 'fen <fen>'")
        if tokens[0] == "startpos":
            board, tokens = chess.Board(), tokens[1:]
        elif tokens[0] == "fen":
            fen_parts = []
            tokens = tokens[1:]
            while tokens and tokens[0] != "moves":
                fen_parts.append(tokens.pop(0))
            try:
                board = chess.Board(" ".join(fen_parts))
            except ValueError as error:
                raise UciError(f"bad FEN {' '.join(fen_parts)!r}: {error}") from None
            if not board.is_valid():
                raise UciError(f"invalid position: {' '.join(fen_parts)}")
        else:
            raise UciError(f"position needs 'startpos' or 'fen', got {tokens[0]!r}")
        if tokens:
            if tokens[0] != "moves":
                raise UciError(f"expected 'moves', got {tokens[0]!r}")
            for uci in tokens[1:]:
                try:
                    move = chess.Move.from_uci(uci)
                except ValueError:
                    raise UciError(f"malformed move {uci!r}; position unchanged") from None
                if move not in board.legal_moves:
                    raise UciError(f"illegal move {uci} in {board.fen()}; position unchanged")
                board.push(move)
        self._stop_search()
        self.board = board

    def _cmd_go(self, rest: str) -> None:
        """Start a search; every ``go`` of a loaded player ends in exactly one ``bestmove``
        -- ``(none)`` where the position has no move, the engine's own limits (with an
        ``info string``) where the parameters are bad. A player that cannot be loaded ends
        the engine instead (:class:`LoadError`): no move is played for it."""
        self._stop_search()
        board = self.board.copy()
        over = not any(board.legal_moves)
        limits, allowed, infinite = self._default_limits(), None, False
        if not over:
            try:
                limits, allowed, infinite = self._limits(rest.split())
            except UciError as error:
                self.info(f"error: {error}; searching with the engine's own limits")
        player = self._load()  # a LoadError ends the engine without a bestmove
        if over:
            self.info("no legal move: the game is over in this position")
            self.send("bestmove (none)")
            return
        self._stop.clear()
        self._infinite = infinite
        self._thread = threading.Thread(target=self._search,
                                        args=(player, board, limits, allowed), daemon=True)
        self._thread.start()

    def _cmd_stop(self, _: str) -> None:
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

    def _limits(self, tokens: list[str]
                ) -> tuple[Limits, list[chess.Move] | None, bool]:
        """The search limits of ``go``, the ``searchmoves`` (if any) and ``infinite``."""
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
        if "infinite" in flags:
            return Limits(), allowed, True
        options = self.options
        nodes = args.get("nodes")
        movetime = args.get("movetime")
        side_time = args.get("wtime" if self.board.turn else "btime")
        if side_time is not None and movetime is None:
            increment = args.get("winc" if self.board.turn else "binc", 0)
            moves_left = args.get("movestogo", 30)
            budget = side_time / max(moves_left, 1) + 0.75 * increment
            movetime = int(max(10, min(budget, side_time / 2 - 50)))
        if nodes is None and movetime is None:
            return self._default_limits(), allowed, False
        if nodes == 0:
            nodes = 1  # the least search there is: answer at once
        if movetime == 0:
            movetime = 1  # "go movetime 0": answer at once, never search forever
        simulations = options.Simulations or None
        return (Limits(nodes=nodes, simulations=simulations,
                       movetime_ms=float(movetime) if movetime else None), allowed, False)

    def _load(self) -> Searcher:
        """The player, built now if needed; a :class:`LoadError` when it cannot be."""
        try:
            return self._ensure_player()
        except Exception as error:
            what = "network" if self.engine == "moe" else f"{self.engine} weights"
            raise LoadError(f"cannot load the {what}: {error}") from None

    def _ensure_player(self) -> Searcher:
        if self.player is None and self.engine != "moe":
            from chessmoe.play.players import build_searcher

            self.player = build_searcher(self.engine, self.options.Model_Directory or None,
                                         threads=self.options.Threads,
                                         options=self.engine_settings)
            loaded = getattr(self.player, "loaded", "")
            if loaded:
                self.info(f"{self.engine} {loaded}")
        if self.player is None:
            evaluator, description = self._make_evaluator(self.options)
            self.player = Player(evaluator, SearchConfig(batch_size=self.options.Batch_Size),
                                 search_kind=self.options.Search)
            if description != self._described:
                self.info(description)
                self._described = description
        return self.player

    def _search(self, player: Searcher, board: chess.Board, limits: Limits,
                allowed: list[chess.Move] | None = None) -> None:
        # torch's thread count is the calling thread's own (OpenMP's), and this thread is
        # new: unset, torch would use every core here whatever Threads says, which on a
        # loaded machine made a torch search many times slower than in the main thread
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.set_num_threads(self.options.Threads)
        try:
            calibrated = bool(getattr(player, "scores_calibrated", True))
            result = player.play(board, limits, stop=self._stop,
                                 on_progress=lambda r: self.send(self._info_line(r, calibrated)))
            while self._infinite and not self._stop.is_set():  # wait for stop (UCI)
                self._stop.wait(0.05)
            self.send(self._info_line(result, calibrated))
            move = result.move
            if allowed:
                by_visits = {c.move: c.visits for c in result.children}
                move = max(allowed, key=lambda m: by_visits.get(m, -1))
            self.send(f"bestmove {move.uci() if move else '(none)'}")
        except Exception as error:  # report, then still answer
            self.info(f"error: search failed: {type(error).__name__}: {error}")
            choices = allowed or list(board.legal_moves)
            self.send(f"bestmove {choices[0].uci() if choices else '(none)'}")

    @staticmethod
    def _info_line(result: SearchResult, calibrated: bool = True) -> str:
        """The search's UCI info; an engine whose values are no calibrated evaluation
        (DeepChess) gives a score only for a mate, so a tournament manager never adjudicates
        on its comparator's confidence."""
        pv = " ".join(m.uci() for m in result.pv)
        score = (f"score cp {value_to_cp(result.value)} "
                 if calibrated or abs(result.value) >= 1.0 else "")
        return (f"info depth {max(1, round(result.depth))} seldepth {result.seldepth} "
                f"nodes {result.nodes} nps {int(result.nps)} "
                f"time {int(result.seconds * 1000)} {score}pv {pv}")

    def _wait(self) -> None:
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        self._thread = None


def run_uci(options: EngineOptions | None = None, stream: IO[str] | None = None, *,
            engine: str = "moe") -> int:
    """Run the UCI loop on stdin/stdout with ``engine`` (``moe`` or a related kind)."""
    if engine != "moe":
        from chessmoe.play.players import check_engine

        check_engine(engine)  # an unknown or absent engine: one line before the loop
    uci_engine = UciEngine(options, engine=engine)
    uci_engine.run(stream or sys.stdin)
    return uci_engine.exit_code


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll ``predicate`` until true or ``timeout`` seconds pass (for tests and tools)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()
