"""Notebook parameters: one validated record per notebook (papermill passes literals only).

Every notebook follows one pattern::

    from chessmoe.report import params as nb              # first code cell
    _before = nb.snapshot(globals())

    stats_dir = "../results/stats/..."            # the cell tagged "parameters": literals only

    p = nb.parameters(PhaseStatsParams, globals(), _before)   # validates, returns a dataclass

papermill only warns about unknown parameters; :func:`parameters` turns a misspelt or unknown
name, or a value of the wrong type, into an error that lists the known parameters. The last cell
checks what the notebook promised (:func:`assert_artefacts` with
:func:`chessmoe.report.artefacts.promised`).
"""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, Union

from chessmoe.designs import registry

__all__ = [
    "SCRATCH",
    "DatasetsParams",
    "EloExplorerParams",
    "ExpertLossesParams",
    "ParameterError",
    "PhaseExplorerParams",
    "PhaseStatsParams",
    "PlayingStrengthParams",
    "RelatedEnginesParams",
    "SearchGatingParams",
    "SetupParams",
    "TournamentParams",
    "TrainExpertsParams",
    "assert_artefacts",
    "is_committed_figures",
    "output_dir",
    "parameters",
    "parameters_or_defaults",
    "snapshot",
]

D = TypeVar("D")


class ParameterError(TypeError):
    """An unknown, misspelt or mistyped notebook parameter."""


# --- in-notebook parameter validation --------------------------------------------------


def snapshot(namespace: Mapping[str, Any]) -> frozenset[str]:
    """The names defined before the parameters cell."""
    return frozenset(namespace)


def _type_ok(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if hint is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(_type_ok(value, arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin in (list, tuple):
        args = typing.get_args(hint)
        if not isinstance(value, (list, tuple)):
            return False
        item = args[0] if args else Any
        return all(_type_ok(v, item) for v in value)
    if origin is dict:
        key, val = typing.get_args(hint) or (Any, Any)
        return isinstance(value, dict) and all(
            _type_ok(k, key) and _type_ok(v, val) for k, v in value.items())
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def _describe(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def parameters(cls: type[D], namespace: Mapping[str, Any], before: Iterable[str]) -> D:
    """Collect the parameters defined since ``before`` into ``cls`` (a dataclass).

    Raises :class:`ParameterError` for a name ``cls`` does not declare (with the
    closest known names) or a value whose type does not match the declaration.
    """
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    hints = typing.get_type_hints(cls)
    known = [f.name for f in dataclasses.fields(cls)]
    new = [n for n in namespace if n not in set(before) and not n.startswith("_")
           and not isinstance(namespace[n], types.ModuleType)]
    unknown = [n for n in new if n not in known]
    if unknown:
        hints_text = []
        for name in unknown:
            close = difflib.get_close_matches(name, known, n=1)
            hints_text.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise ParameterError(f"unknown notebook parameter(s) {', '.join(hints_text)}; this "
                             f"notebook takes: {', '.join(known)}")
    values = {n: namespace[n] for n in known if n in namespace}
    for name, value in values.items():
        if not _type_ok(value, hints[name]):
            raise ParameterError(f"parameter {name!r} must be {_describe(hints[name])}, got "
                                 f"{value!r} ({type(value).__name__})")
    return cls(**values)


def parameters_or_defaults(cls: type[D], namespace: Mapping[str, Any], before: Iterable[str]
                           ) -> tuple[D, list[str]]:
    """:func:`parameters` for a page that must show itself whatever it is given (a Voila page
    hides a raised error behind a generic message): each unknown name or mistyped value is
    dropped for its declared default, and named in one line of the returned list."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    problems = []
    values = {}
    for name in namespace:
        if name in set(before) or name.startswith("_") or isinstance(namespace[name],
                                                                     types.ModuleType):
            continue
        if name not in fields:
            close = difflib.get_close_matches(name, list(fields), n=1)
            problems.append(f"unknown parameter {name!r}" + (f" (did you mean {close[0]!r}?)"
                                                             if close else "")
                            + f" is ignored; this page takes: {', '.join(fields)}")
            continue
        value = namespace[name]
        if _type_ok(value, hints[name]):
            values[name] = value
            continue
        f = fields[name]
        default = (f.default if f.default is not dataclasses.MISSING
                   else f.default_factory() if f.default_factory is not dataclasses.MISSING
                   else None)
        shown = f" ({name} = {value}, without quotes)" if (
            isinstance(value, str) and _type_ok(_literal(value), hints[name])) else ""
        problems.append(f"parameter {name!r} must be {_describe(hints[name])}{shown}, got "
                        f"{value!r} ({type(value).__name__}); the page uses {default!r}")
    return cls(**values), problems


def _literal(text: str) -> Any:
    """``text`` read as a Python number when it is one (to suggest the value without quotes)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def assert_artefacts(paths: Iterable[str | Path]) -> list[Path]:
    """Fail unless every promised artefact exists and is not empty (last notebook cell)."""
    missing = [Path(p) for p in paths if not Path(p).is_file() or Path(p).stat().st_size == 0]
    if missing:
        raise FileNotFoundError("promised artefacts missing: " + ", ".join(map(str, missing)))
    return [Path(p) for p in paths]


# --- where a notebook writes -----------------------------------------------------------------

#: Scratch folder of interactive runs, relative to a notebook (``notebooks/``): a run with
#: changed parameters writes here, never over the committed ``figures/``.
SCRATCH: str = "../build/explore"


def is_committed_figures(path: str | Path) -> bool:
    """True when ``path`` is the repository's committed ``figures/`` folder (a folder named
    ``figures`` beside ``chessmoe/`` and ``results/``)."""
    resolved = Path(path).resolve()
    root = resolved.parent
    return (resolved.name == "figures" and (root / "chessmoe").is_dir()
            and (root / "results").is_dir())


def output_dir(figures_dir: str | Path, notebook: str) -> Path:
    """The folder a notebook writes its artefacts into.

    ``make figures`` passes a staging folder, which is used as given (the figures runner alone
    replaces ``figures/``). A notebook run by hand that names the committed ``figures/`` is sent
    to ``build/explore/<notebook stem>/`` beside it instead, so exploring never overwrites a
    committed artefact.
    """
    path = Path(figures_dir)
    if is_committed_figures(path):
        return path.resolve().parent / "build" / "explore" / Path(notebook).stem
    return path


# --- parameter declarations of the notebooks -----------------------------------------------


@dataclass
class PhaseStatsParams:
    """``01_phase_statistics.ipynb``: every figure reads ``split`` ("all", "train", "val" or
    "test"); ``paper_splits`` (``make figures``) uses the paper's instead: the test games for
    Fig. 8-11, the training games for Fig. 12-13, all games for Fig. 2."""

    stats_dir: str = "../results/stats/lichess-2013-01-first5000"
    compare_dirs: list[str] = field(default_factory=lambda: [
        "../results/stats/selfplay-sample"])
    figures_dir: str = f"{SCRATCH}/01_phase_statistics"
    table: str = "lichess"
    max_move: int = 80
    split: str = "all"
    paper_splits: bool = False


@dataclass
class PhaseExplorerParams:
    """``12_phase_explorer.ipynb``: ``game`` is a game's number in the file (from 1, as the
    page lists them)."""

    pgn: str = ""
    games: int = 100
    table: str = "lichess"
    game: int = 4
    ply: int = 30


@dataclass
class DatasetsParams:
    """``02_datasets.ipynb``."""

    source: str = "lichess-2013-01:5000"
    compare_sources: list[str] = field(default_factory=lambda: ["sample"])
    tag: str = ""
    definition: str = "lichess"
    build: bool = False
    val: float = 0.1
    test: float = 0.1
    seed: int = 9
    workers: int = 1
    results_dir: str = "../results"
    data_dir: str = "../data"
    figures_dir: str = f"{SCRATCH}/02_datasets"


@dataclass
class TrainExpertsParams:
    """``03_train_experts.ipynb``."""

    profile: str = "smoke"
    regimes_to_train: list[str] = field(default_factory=lambda: [
        "regular", "separated", "staged", "weighted"])
    a_values: list[float] = field(default_factory=lambda: [4.0, 10.0])
    phases: list[int] = field(default_factory=list)
    data: str = ""
    results_dir: str = "../results"
    data_dir: str = "../data"
    workers: int = 0
    overrides: dict[str, Any] = field(default_factory=dict)


@dataclass
class ExpertLossesParams:
    """``04_expert_losses.ipynb``."""

    experts_dir: str = "../results/experts/small"
    figures_dir: str = f"{SCRATCH}/04_expert_losses"


@dataclass
class SearchGatingParams:
    """``08_search_gating.ipynb``."""

    search_dir: str = "../results/search/small-separated"
    figures_dir: str = f"{SCRATCH}/08_search_gating"
    batch_size: int = 8
    live_search: bool = False
    live_fen: str = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R1BQKB1R w KQ - 0 8"


@dataclass
class TournamentParams:
    """``05_tournaments.ipynb``."""

    profile: str = "small"
    experts_root: str = "../results/experts/small"
    out_dir: str = "../results/tournaments/small"
    pairs: int = 0
    workers: int = 2
    executor: str = "local"
    dask_address: str = ""


@dataclass
class PlayingStrengthParams:
    """``06_playing_strength.ipynb``."""

    tournament_dir: str = "../results/tournaments/small"
    figures_dir: str = f"{SCRATCH}/06_playing_strength"


@dataclass
class EloExplorerParams:
    """``07_elo_explorer.ipynb``."""

    mode: str = "wdl"
    wins: int = 60
    draws: int = 30
    losses: int = 40
    pentanomial: list[int] = field(default_factory=list)
    level: float = 0.95
    sprt_model: str = "normalized"
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    what_if_games: int = 1000
    precision: float = 10.0
    results_dir: str = "../results"
    figures_dir: str = f"{SCRATCH}/07_elo_explorer"
    interactive: bool = True


@dataclass
class ClaimsParams:
    """``10_claims.ipynb``."""

    tournament_dir: str = "../results/tournaments/powered"
    replicated_dir: str = "../results/tournaments/replicated"
    experts_dir: str = "../results/experts/small"
    medium_tournament_dir: str = "../results/tournaments/medium"  # more data, same network
    medium_experts_dir: str = "../results/experts/medium"
    # the registered designs' tournaments by design name (None: each design's name beside
    # tournament_dir)
    design_dirs: dict[str, str] | None = None
    figures_dir: str = f"{SCRATCH}/10_claims"

    def tournament(self, name: str) -> str:
        """The tournament directory of the registered design ``name``."""
        if self.design_dirs is not None and name in self.design_dirs:
            return self.design_dirs[name]
        return str(Path(self.tournament_dir).parent / name)

    def tournaments(self) -> dict[str, str]:
        """Every registered design's tournament whose rows were registered before its first
        game, by keyword (:func:`chessmoe.report.verdicts.claims`' arguments)."""
        return {d.keyword: self.tournament(d.name) for d in registry.REGISTERED if d.registered}


@dataclass
class RatingsParams:
    """``11_ratings.ipynb``."""

    tournament_dir: str = "../results/tournaments/ratings"
    anchor: str = "sf-elo1350-t100"
    anchor_elo: float = 1350.0
    figures_dir: str = f"{SCRATCH}/11_ratings"


@dataclass
class RelatedEnginesParams:
    """``13_related_engines.ipynb``."""

    related_dir: str = "../results/related"
    tournament_dir: str = "../results/tournaments/related"  # each engine vs its baseline
    figures_dir: str = f"{SCRATCH}/13_related_engines"


@dataclass
class SetupParams:
    """``09_setup.ipynb``."""

    results_dir: str = "../results"
    tournament_dir: str = "../results/tournaments/small"
    figures_dir: str = f"{SCRATCH}/09_setup"


