"""The job table: every notebook ``make figures`` runs, what it reads, and every artefact it
promises -- named once, here. The figures runner, the index and each notebook's final assertion
(:func:`promised`) read it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chessmoe.designs import registry
from chessmoe.games.sources import results_name
from chessmoe.report import stems

if TYPE_CHECKING:
    from chessmoe.records import PlannedMatch

__all__ = [
    "LAYOUTS",
    "NOTEBOOK_JOBS",
    "PROVENANCE_MANIFESTS",
    "NotebookJob",
    "ResultsLayout",
    "job",
    "notebook_jobs",
    "promised",
]

# --- the figures runner --------------------------------------------------------------------

#: Every result's manifest, with the provenance it records, by results-relative pattern: what
#: Table 8 reads (statistics, datasets, training, recorded searches, tournaments).
PROVENANCE_MANIFESTS: tuple[str, ...] = (
    "stats/*/manifest.json", "datasets/*/manifest.json", "experts/*/*/manifest.json",
    "search/*/manifest.json", "tournaments/*/summary.json")


@dataclass(frozen=True)
class NotebookJob:
    """A notebook ``make figures`` executes: its parameters, inputs and artefacts."""

    notebook: str
    params: Callable[[Path, Path], dict[str, Any]]  # (results dir, staging dir) -> params
    needs: tuple[tuple[str, str], ...]  # (results-relative file, make target producing it)
    figures: tuple[str, ...] = ()  # stems saved as .png + .pdf
    tables: tuple[str, ...] = ()  # stems saved as .csv + .md
    data: tuple[str, ...] = ()  # figure stems whose plotted numbers are saved as .csv too
    # results-relative glob patterns of further files it reads, beyond its parameters' folders
    # (compared with the commit before drawing, like those folders)
    reads: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        stray = set(self.data) - set(self.figures)
        if stray:
            raise ValueError(f"{self.notebook}: data for figures it does not draw: "
                             f"{', '.join(sorted(stray))}")

    def artefact_files(self) -> list[str]:
        return ([f"{s}.{e}" for s in self.figures for e in ("png", "pdf")]
                + [f"{s}.csv" for s in self.data]
                + [f"{s}.{e}" for s in self.tables for e in ("csv", "md")])


@dataclass(frozen=True)
class ResultsLayout:
    """Which results folders a set of figures reads (the committed small profile, or the
    smoke profile that ``make test`` builds in a temporary directory). ``stats`` and
    ``stats_compare`` are statistics folders; ``dataset`` and ``dataset_compare`` source specs
    whose manifests are read from ``results/datasets/<results_name(spec, tag)>``."""

    stats: str = "lichess-2013-01-first5000"
    stats_compare: tuple[str, ...] = ("selfplay-sample",)
    dataset: str = "lichess-2013-01:5000"
    dataset_compare: tuple[str, ...] = ("sample",)
    tag: str = ""  # the datasets' name suffix (a profile's DataPlan.tag)
    experts: str = "small"
    tournament: str = "small"  # the per-setting grid (claim draw rules)
    # its replay under cutechess rules: drawn instead once complete
    tournament_replayed: str = "small-cutechess"
    search: str = "small-separated"
    powered: str = "powered"  # the claims' tournament (one setting, many paired openings)
    replicated: str = "replicated"  # its replay under cutechess rules, seeds, head to head
    ratings: str = "ratings"  # the round robin with Stockfish anchors
    # its replay under cutechess rules with many openings: drawn instead once complete
    ratings_replayed: str = "ratings-cutechess"
    medium: str = "medium"  # the medium profile's experts and tournament (equal compute)
    # each registered design's tournament folder is its name after this prefix
    designs_prefix: str = ""

    def design_dirs(self, results: Path) -> dict[str, str]:
        """The tournament folder of every registered design whose rows were registered before
        its first game, by design name."""
        return {d.name: str(results / "tournaments" / f"{self.designs_prefix}{d.name}")
                for d in registry.REGISTERED if d.registered}


LAYOUTS: dict[str, ResultsLayout] = {
    "small": ResultsLayout(),
    "smoke": ResultsLayout(stats=results_name("sample", "smoke"), stats_compare=(),
                           dataset="sample", dataset_compare=(), tag="smoke", experts="smoke",
                           tournament="smoke",
                           tournament_replayed="smoke-small-cutechess",
                           search="smoke-separated", powered="smoke", replicated="smoke-replicated",
                           ratings="smoke", ratings_replayed="smoke-ratings-cutechess",
                           medium="smoke-medium", designs_prefix="smoke-"),
}


def _spec_matches(directory: Path) -> tuple[PlannedMatch, ...] | None:
    from chessmoe.records import SpecError, TournamentPlan

    try:
        return TournamentPlan.read(directory / "spec.json").matches
    except SpecError:
        return None


def _players(matches: Sequence[PlannedMatch]) -> set[frozenset[str]] | None:
    """The pairings of ``matches`` as sets of two player names; ``None`` when a match lacks
    a player or its name, or pits a player against itself."""
    pairs = set()
    for m in matches:
        names = [p.name if p is not None else None for p in (m.first, m.second)]
        if not all(names) or names[0] == names[1]:
            return None
        pairs.add(frozenset(str(n) for n in names))
    return pairs


def _round_robin(matches: Sequence[PlannedMatch],
                 committed: Sequence[PlannedMatch] | None) -> bool:
    """Whether the matches pair every two of their players (in either colour order), and
    include every player of the ``committed`` tournament's matches."""
    pairs = _players(matches)
    if pairs is None:
        return False
    players = {name for pair in pairs for name in pair}
    before = _players(committed or []) or set()
    if not {name for pair in before for name in pair} <= players:
        return False
    return len(players) >= 2 and len(pairs) == len(players) * (len(players) - 1) // 2


def replayed_or_committed(results: Path, committed: str, replayed: str, *,
                          same_matches: bool = False, round_robin: bool = False) -> Path:
    """``results/tournaments/<replayed>`` (a replay under cutechess rules) once its summary
    says every planned game is played, else ``results/tournaments/<committed>``. A run of
    some matches only (``--match``, ``--pairs`` or bundles missing) is complete for what it
    planned, not a replacement, so with ``same_matches`` the replay must also plan exactly
    the committed tournament's matches (names, pairs, players, openings group), and with
    ``round_robin`` its matches must pair every two of its players, who must include every
    player of the committed tournament."""
    from chessmoe.records import TournamentSummary

    path = results / "tournaments" / replayed
    original = results / "tournaments" / committed
    summary = path / "summary.json"
    if not (summary.is_file() and TournamentSummary.read(summary).complete):
        return original
    ours = _spec_matches(path)
    if same_matches and (ours is None or ours != _spec_matches(original)):
        return original
    if round_robin and (ours is None or not _round_robin(ours, _spec_matches(original))):
        return original
    return path


def ratings_tournament(results: Path, layout: ResultsLayout) -> Path:
    """The rating list's tournament: the replay under cutechess rules
    (``layout.ratings_replayed``) once complete as a round robin, else the committed one."""
    return replayed_or_committed(results, layout.ratings, layout.ratings_replayed,
                                 round_robin=True)


def grid_tournament(results: Path, layout: ResultsLayout) -> Path:
    """The per-setting grid's tournament (Table 2, Fig. 5-7, 29; Table 8's rules): the
    replay under cutechess rules (``layout.tournament_replayed``) once complete, else the
    committed one."""
    return replayed_or_committed(results, layout.tournament, layout.tournament_replayed,
                                 same_matches=True)


def notebook_jobs(layout: ResultsLayout | None = None) -> tuple[NotebookJob, ...]:
    """The figure notebooks and what each reads and writes, for a results layout."""
    from chessmoe.games.sources import source_name

    lay = layout or ResultsLayout()
    training_figures = (stems.FIG04_STAGED_ENDGAME_LOSS, stems.FIG14_SCHEDULES,
                        stems.FIG16_REGULAR_TRAINING, *stems.EXPERT_FIGURES.values())
    strength_figures = (stems.FIG05_MOE_VS_SINGLE, stems.FIG06_SINGLE_EXPERT_NODES,
                        stems.FIG07_PHASE_DEFINITIONS, *stems.METHOD_FIGURES.values(),
                        stems.FIG29_SINGLE_EXPERT_MOVETIME)
    stats_target = {"lichess-2013-01-first5000": "make results-stats SOURCE=lichess-2013-01:5000",
                    "selfplay-sample": "make results-stats SOURCE=sample"}
    return (
        NotebookJob(
            notebook="01_phase_statistics.ipynb",
            params=lambda results, out: {
                "stats_dir": str(results / "stats" / lay.stats),
                "compare_dirs": [str(results / "stats" / c) for c in lay.stats_compare],
                "figures_dir": str(out), "paper_splits": True},
            needs=tuple((f"stats/{n}/manifest.json", stats_target.get(n, "make results"))
                        for n in (lay.stats, *lay.stats_compare)),
            figures=(stems.FIG02_PHASE_DISTRIBUTION, stems.FIG08_MIXEDNESS,
                     stems.FIG09_PIECES, stems.FIG10_SPARSE_BACKRANK, stems.FIG11_PHASE_STARTS,
                     stems.FIG12_RESULTS_BY_PHASE, stems.FIG13_PHASE_COVERAGE),
            tables=(stems.EXTRAS_PHASE_STATS_VS_PAPER, stems.EXTRAS_PHASE_LABEL_AGREEMENT)),
        NotebookJob(
            notebook="02_datasets.ipynb",
            params=lambda results, out: {"results_dir": str(results), "figures_dir": str(out),
                                         "source": lay.dataset,
                                         "compare_sources": list(lay.dataset_compare),
                                         "tag": lay.tag},
            needs=tuple((f"datasets/{results_name(s, lay.tag)}/manifest.json",
                         f"make datasets SOURCE={s}" if not lay.tag
                         else f"make results PROFILE={lay.tag}")
                        for s in (lay.dataset, *lay.dataset_compare)),
            tables=(stems.TABLE3_POSITIONS_PER_PHASE, stems.TABLE4_GAMES_PER_PHASE,
                    stems.TABLE6_INPUT_REPRESENTATION, stems.EXTRAS_INPUT_PLANES,
                    stems.EXTRAS_DATASET_SIZES_BY_DEFINITION,
                    *(stems.dataset_sizes(source_name(s)) for s in lay.dataset_compare))),
        NotebookJob(
            notebook="04_expert_losses.ipynb",
            params=lambda results, out: {"experts_dir": str(results / "experts" / lay.experts),
                                         "figures_dir": str(out)},
            needs=tuple((f"experts/{lay.experts}/{b}/evaluation.json",
                         f"make experts PROFILE={lay.experts}")
                        for b in ("regular", "separated", "staged", "weighted-a4",
                                  "weighted-a10")),
            figures=training_figures,
            tables=(stems.TABLE1_EXPERT_LOSSES, stems.EXTRAS_TABLE1_PAPER,
                    stems.TABLE5_SAMPLE_WEIGHTS, stems.TABLE7_HYPERPARAMETERS)),
        NotebookJob(
            notebook="06_playing_strength.ipynb",
            params=lambda results, out: {
                "tournament_dir": str(grid_tournament(results, lay)),
                "figures_dir": str(out)},
            needs=((f"tournaments/{lay.tournament}/summary.json",
                    f"make tournament PROFILE={lay.tournament}"),),
            figures=strength_figures,
            tables=(stems.TABLE2_ELO_GAINS, stems.EXTRAS_TABLE2_PAPER),
            data=strength_figures),
        NotebookJob(
            notebook="07_elo_explorer.ipynb",
            params=lambda results, out: {"figures_dir": str(out), "interactive": False},
            needs=(),
            figures=(stems.EXTRAS_ELO_EXPLORER,)),
        NotebookJob(
            notebook="09_setup.ipynb",
            params=lambda results, out: {
                "results_dir": str(results), "figures_dir": str(out),
                "tournament_dir": str(grid_tournament(results, lay))},
            needs=((f"tournaments/{lay.tournament}/summary.json",
                    f"make tournament PROFILE={lay.tournament}"),),
            figures=(stems.FIG15_MATCH_COMMAND,),
            tables=(stems.TABLE8_SETUP,),
            reads=PROVENANCE_MANIFESTS),
        NotebookJob(
            notebook="08_search_gating.ipynb",
            params=lambda results, out: {"search_dir": str(results / "search" / lay.search),
                                         "figures_dir": str(out)},
            needs=((f"search/{lay.search}/batches.jsonl", "make results-search"),),
            figures=(stems.FIG01_MOE_IN_MCTS, stems.FIG03_MINIBATCH_GATING),
            tables=(stems.EXTRAS_BATCH_PURITY,)),
        NotebookJob(
            notebook="10_claims.ipynb",
            params=lambda results, out: {
                "tournament_dir": str(results / "tournaments" / lay.powered),
                "replicated_dir": str(results / "tournaments" / lay.replicated),
                "experts_dir": str(results / "experts" / lay.experts),
                "medium_tournament_dir": str(results / "tournaments" / lay.medium),
                "medium_experts_dir": str(results / "experts" / lay.medium),
                "design_dirs": lay.design_dirs(results),
                "figures_dir": str(out)},
            needs=((f"tournaments/{lay.powered}/spec.json",
                    f"make tournament PROFILE={lay.powered}"),
                   *((f"experts/{lay.experts}/{b}/evaluation.json",
                      f"make experts PROFILE={lay.experts}") for b in ("regular",))),
            figures=(stems.POWERED_ARMS, stems.SEED_GRID, stems.COMPUTE_GAP, stems.SETTINGS,
                     stems.SCALE),
            tables=(stems.CLAIMS, stems.EXTRAS_CONTRASTS, stems.EXTRAS_DRAW_RULES,
                    stems.EXTRAS_TABLE1_SCALE, stems.EXTRAS_TABLE1_SIZES),
            data=(stems.POWERED_ARMS, stems.SEED_GRID, stems.COMPUTE_GAP, stems.SETTINGS,
                  stems.SCALE)),
        NotebookJob(
            notebook="11_ratings.ipynb",
            params=lambda results, out: {
                "tournament_dir": str(ratings_tournament(results, lay)),
                "figures_dir": str(out)},
            needs=((f"tournaments/{lay.ratings}/spec.json",
                    f"make tournament PROFILE={lay.ratings}"),),
            figures=(stems.RATING_LIST,),
            tables=(stems.RATING_LIST_TABLE,)),
        NotebookJob(
            notebook="13_related_engines.ipynb",
            params=lambda results, out: {
                "related_dir": str(results / "related"),
                "tournament_dir": str(results / "tournaments" / "related"),
                "figures_dir": str(out)},
            needs=(),  # an engine not trained is a "not trained" row, not a failure
            figures=(stems.RELATED_LEARNING_CURVES,),
            tables=(stems.RELATED_ENGINES, stems.DEEPCHESS_CURVE)),
    )


NOTEBOOK_JOBS: tuple[NotebookJob, ...] = notebook_jobs()




def job(notebook: str, layout: ResultsLayout | None = None) -> NotebookJob:
    """The job of ``notebook`` (by file name)."""
    for entry in notebook_jobs(layout):
        if entry.notebook == notebook:
            return entry
    raise KeyError(f"{notebook} is not in the job table")


def promised(notebook: str, figures_dir: str | Path, **layout: Any) -> list[Path]:
    """The files ``notebook`` promises to write into ``figures_dir`` (its final assertion);
    ``layout`` overrides :class:`ResultsLayout` fields the artefact names depend on (e.g.
    ``dataset_compare``)."""
    return [Path(figures_dir) / name
            for name in job(notebook, ResultsLayout(**layout)).artefact_files()]
