"""The engines of the related documents, as players beside the paper's MoE engine (kind
``"moe"``): one module each (``deepchess``, ``ntuple``, ``mais``), their settings declared once
here (:data:`ENGINE_OPTIONS`). Their networks, trainers and searches sit in the layers below;
this package only joins them into players and never imports a trainer.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, get_args

from chessmoe._io.errors import KitError
from chessmoe.nets.related import RELATED_WEIGHTS
from chessmoe.play.engine import Searcher

__all__ = ["ENGINE_OPTIONS", "RELATED_KINDS", "RELATED_WEIGHTS", "EngineOption", "RelatedKind",
           "build_searcher", "check_engine", "default_model_dir", "engine_options",
           "resolve_options", "run_files", "weights_note"]

RelatedKind = Literal["deepchess", "ntuple", "mais"]
RELATED_KINDS: tuple[str, ...] = get_args(RelatedKind)

_DOCUMENT = {"deepchess": "related-deepchess.md",
             "ntuple": "related-comparison-training-ntuple.md",
             "mais": "related-selfplay-value-search.md"}


def check_engine(kind: str) -> None:
    """A :class:`KitError` when ``kind`` is no related engine of this kit or its module is
    absent, found without importing the module (which imports torch: seconds)."""
    if kind not in RELATED_KINDS:
        raise KitError(f"unknown engine {kind!r}: one of moe, {', '.join(RELATED_KINDS)}")
    if importlib.util.find_spec(f"chessmoe.play.players.{kind}") is None:
        raise KitError(f"engine {kind!r} ({_DOCUMENT[kind]}) is not part of this version of "
                       "the kit")


def _module(kind: str) -> ModuleType:
    check_engine(kind)
    try:
        return importlib.import_module(f"chessmoe.play.players.{kind}")
    except ModuleNotFoundError as error:
        if error.name == f"chessmoe.play.players.{kind}":
            raise KitError(f"engine {kind!r} ({_DOCUMENT[kind]}) is not part of this "
                           "version of the kit") from None
        raise


OptionKind = Literal["spin", "combo", "check"]


@dataclass(frozen=True)
class EngineOption:
    """One setting of a related engine, as UCI spells it (``option name ... type ...``)."""

    name: str
    kind: OptionKind
    default: int | str | bool
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()
    help: str = ""

    def uci_line(self) -> str:
        if self.kind == "spin":
            return (f"option name {self.name} type spin default {self.default} "
                    f"min {self.low} max {self.high}")
        if self.kind == "combo":
            choices = " ".join(f"var {c}" for c in self.choices)
            return f"option name {self.name} type combo default {self.default} {choices}"
        return f"option name {self.name} type check default {str(self.default).lower()}"

    def parse(self, value: object) -> int | str | bool:
        """``value`` (a UCI string or a typed value) checked against this option."""
        if self.kind == "check":
            return parse_check(self.name, value)
        if self.kind == "spin":
            try:
                number = int(str(value))
            except (TypeError, ValueError):
                raise KitError(f"option {self.name} needs an integer, got {value!r}") from None
            if not self.low <= number <= self.high:
                raise KitError(f"option {self.name} must lie in {self.low}..{self.high}, "
                               f"got {number}")
            return int(number)
        text = str(value)
        if text not in self.choices:
            raise KitError(f"option {self.name} must be one of {', '.join(self.choices)}, "
                           f"got {text!r}")
        return text


_TRUE = ("true", "1", "on", "yes")
_FALSE = ("false", "0", "off", "no")


def parse_check(name: str, value: object) -> bool:
    """A check option's value: a bool, or ``true``/``false`` (also 1/0, on/off, yes/no, any
    case); anything else is a :class:`KitError` naming the option, never a silent false."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise KitError(f"option {name} needs true or false, got {value!r}")


ENGINE_OPTIONS: dict[str, tuple[EngineOption, ...]] = {
    "deepchess": (
        EngineOption("Depth", "spin", 0, low=0, high=64,
                     help="deepest iteration of the comparison alpha-beta; 0: the run's "
                          "search_depth (3). Past 3, give it time: Fixed_Movetime or go "
                          "wtime/btime stop the iterative deepening with the last finished "
                          "depth's move"),
        EngineOption("Quiescence", "check", False,
                     help="search captures and promotions past Depth, each horizon position "
                          "standing pat (the document describes none; the material engine's "
                          "numeric search has one)"),
    ),
    "ntuple": (
        EngineOption("Evaluation", "combo", "weights", choices=("weights", "pesto", "material"),
                     help="weights: the run's; pesto: the PeSTO tables; material: Table I"),
        EngineOption("Depth", "spin", 64, low=1, high=64,
                     help="deepest alpha-beta iteration (nodes and movetime stop it earlier)"),
        EngineOption("Quiescence", "check", True,
                     help="search captures past Depth (off: the evaluation at the horizon, "
                          "the search shape of DeepChess's comparator alpha-beta)"),
    ),
    "mais": (
        EngineOption("Delta_Percent", "spin", 30, low=1, high=100,
                     help="the best-first search's delta in hundredths (document: 0.3); the "
                          "node budget is the common Nodes option"),
    ),
}
"""Each related engine's own options (its module's ``OPTIONS`` is this entry)."""


def engine_options(kind: str) -> tuple[EngineOption, ...]:
    """The own options of engine ``kind`` (:data:`ENGINE_OPTIONS`; the module is not
    imported)."""
    check_engine(kind)
    return ENGINE_OPTIONS.get(kind, ())


def resolve_options(kind: str, given: Mapping[str, object] | None) -> dict[str, Any]:
    """Every own option of ``kind``: ``given`` (names matched case-insensitively, spaces as
    underscores) checked, the rest at their defaults; an unknown name is a KitError."""
    known = {o.name.lower(): o for o in engine_options(kind)}
    values: dict[str, Any] = {o.name: o.default for o in known.values()}
    for name, value in (given or {}).items():
        option = known.get(name.lower().replace(" ", "_"))
        if option is None:
            raise KitError(f"engine {kind} has no option {name!r} (its options: "
                           f"{', '.join(o.name for o in known.values()) or 'none'})")
        values[option.name] = option.parse(value)
    return values


def weights_note(path: Path) -> str:
    """``weights <path> sha256 <first 12 hex digits>``: which file a player loaded."""
    from chessmoe._io.fsutil import sha256_file

    return f"weights {path} sha256 {sha256_file(path)[:12]}"


def default_model_dir(kind: str) -> Path | None:
    """The committed trained weights of ``kind`` (``results/related/<kind>``), if present."""
    from chessmoe.search.evaluators import committed_results

    results = committed_results()
    if results is None:
        return None
    path = results / "related" / kind
    return path if path.is_dir() else None


def run_files(kind: str, model_dir: Path | None, *names: str) -> list[Path]:
    """The files ``names`` of a trained run of engine ``kind`` in ``model_dir``; a
    :class:`KitError` saying how to train one when there is no run or a file is missing."""
    train = f"python -m chessmoe related train {kind}"
    if model_dir is None:
        raise KitError(f"no trained {kind} weights: run `{train}` or set Model_Directory")
    paths = [Path(model_dir) / name for name in names]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise KitError(f"{' and '.join(missing)} not found: train with `{train} --out "
                       f"{model_dir}`")
    return paths


def build_searcher(kind: str, model_dir: str | Path | None = None, *,
                   threads: int = 1, options: Mapping[str, object] | None = None) -> Searcher:
    """A fresh player of engine ``kind`` (its own state; one per game lane), set up with its
    own ``options`` (:func:`resolve_options`).

    Each engine's module exposes ``OPTIONS`` (its settings, declared here in :data:`ENGINE_OPTIONS`
    so a UCI ``uci`` answer imports neither the engine's module nor torch),
    ``build_searcher(model_dir, *, threads, options) -> Searcher`` (a
    :class:`~chessmoe.play.engine.Searcher` that loads its trained weights safely, default the
    committed ``results/related/<name>``, and says what it loaded in ``loaded``:
    :func:`weights_note`) and ``SEARCH_STEPS`` (what its trainer needs of its search, given to it by
    the caller).
    """
    module = _module(kind)
    values = resolve_options(kind, options)
    path = Path(model_dir) if model_dir else default_model_dir(kind)
    searcher: Searcher = module.build_searcher(path, threads=threads, options=values)
    return searcher

