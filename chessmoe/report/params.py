"""Notebook parameters: one validated record per notebook (papermill passes literals only).

A notebook's first code cell takes ``_before = nb.snapshot(globals())`` (``nb`` is this module),
its cell tagged "parameters" holds literals only, the next reads them with
``p = nb.parameters(PhaseStatsParams, globals(), _before)`` (:mod:`chessmoe._io.parameters`) and
its last cell checks what it promised (:func:`assert_artefacts` with
:func:`chessmoe.report.artefacts.promised`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chessmoe._io.parameters import ParameterError, parameters, parameters_or_defaults, snapshot
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


