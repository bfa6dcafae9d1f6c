"""Phase-statistics figures and tables: content, determinism, errors."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from chessmoe.games import stats as gs
from chessmoe.games.datasets import DatasetError, build
from chessmoe.games.sources import ResolvedSource
from chessmoe.games.stats import compute
from chessmoe.records import TournamentSummary
from chessmoe.report.figures import dataset_tables as dt
from chessmoe.report.figures import phase_stats as ps
from tests.helpers import random_games_pgn, summary_match, tournament_summary


@pytest.fixture(scope="module")
def stats(tmp_path_factory: pytest.TempPathFactory) -> gs.PhaseStats:
    root = tmp_path_factory.mktemp("stats")
    pgn = random_games_pgn(root / "g.pgn", 80, seed=9)
    compute(ResolvedSource(str(pgn), "random", (pgn,), "random games"), root / "out",
            progress=False)
    return gs.load_stats(root / "out")


@pytest.mark.slow
def test_dataset_tables_from_a_manifest(stats: gs.PhaseStats, tmp_path: Path) -> None:
    pgn = random_games_pgn(tmp_path / "g.pgn", 40, seed=3)
    manifest = build(ResolvedSource(str(pgn), "g", (pgn,), "random games"), tmp_path / "ds",
                     progress=False)
    t3 = dt.table3_positions(manifest, tmp_path / "out").table
    t4 = dt.table4_games(manifest, tmp_path / "out").table
    assert t3 is not None and t4 is not None
    assert int(t3["No-Phases"].sum()) == manifest["totals"]["positions"]
    assert (t3[["Opening", "Middlegame", "Endgame"]].sum(axis=1) == t3["No-Phases"]).all()
    assert int(t4["No-Phases"].sum()) == manifest["totals"]["games"]
    assert (t4["Opening"] == t4["No-Phases"]).all()  # every game starts in the opening
    csv = pd.read_csv(tmp_path / "out" / "table3-positions-per-phase.csv", index_col=0)
    assert csv.loc["Train", "No-Phases"] == t3.loc["Train", "No-Phases"]
    md = (tmp_path / "out" / "table4-games-per-phase.md").read_text()
    assert md.startswith("**Table 4") and "1,112,647" in md
    sizes = dt.definition_sizes(manifest, tmp_path / "out").table
    assert sizes is not None
    assert sizes.loc["movecount3", "positions"].sum() == t3.loc["Train", "No-Phases"]
    with pytest.raises(DatasetError, match="make datasets"):
        dt.load_manifest(tmp_path / "missing" / "manifest.json")


def test_table6_matches_the_paper(tmp_path: Path) -> None:
    table = dt.table6_input_planes(tmp_path).table
    assert table is not None
    assert table.loc["Total", "Planes"] == 52
    assert table.loc["Last Moves", "Planes"] == 16
    assert table.loc["P1 material count*", "Type"] == "int"
    assert (tmp_path / "extras" / "input-planes.csv").read_text().count("\n") == 53


@pytest.mark.slow
def test_figures_are_byte_for_byte_reproducible(stats: gs.PhaseStats, tmp_path: Path) -> None:
    for function in (ps.fig02_phase_distribution, ps.fig11_phase_starts,
                     ps.fig13_phase_coverage):
        first = function(stats, tmp_path / "a")
        second = function(stats, tmp_path / "b")
        assert [p.suffix for p in first.paths] == [".png", ".pdf"]
        for a, b in zip(first.paths, second.paths, strict=True):
            assert a.read_bytes() == b.read_bytes(), a.name


def test_summary_metrics_agree_with_the_frames(stats: gs.PhaseStats) -> None:
    metrics = gs.summary_metrics(stats)
    games = stats.games
    assert metrics["draws_pct"] == pytest.approx((games["result"] == "1/2-1/2").mean() * 100)
    shares = [metrics[f"positions_{p}_pct"] for p in ("opening", "middlegame", "endgame")]
    assert sum(shares) == pytest.approx(100)
    frame = gs.paper_comparison([stats])
    assert list(frame.columns) == ["paper (KingBase)", "random"]
    assert frame.loc["middlegame_start_mean", "paper (KingBase)"] == 11.89
    agreement = gs.label_agreement(stats)
    assert list(agreement.index) == ["lichess", "lichess-2025", "engine"]
    # every labelling's shares add up to 100 %, and the position-only phase and the division
    # disagree somewhere in random games (a phase can come back: the division cannot)
    for labelling in ("position_only", "division"):
        total = sum(agreement[f"{p}_pct_{labelling}"] for p in ("opening", "middlegame",
                                                                  "endgame"))
        assert total.tolist() == pytest.approx([100.0] * 3, abs=0.02)
    assert (agreement["differ_pct"] > 0).all()


def test_label_agreement_by_hand() -> None:
    """Four positions with known labels: lichess differs on one (25 %), lichess-2025 on none,
    engine on two (50 %); the shares of each labelling are counted as given."""
    positions = pd.DataFrame({
        "game": [0, 0, 0, 0],
        "phase_lichess": [0, 1, 2, 2], "division_lichess": [0, 1, 1, 2],
        "phase_lichess_2025": [0, 0, 1, 2], "division_lichess_2025": [0, 0, 1, 2],
        "phase_engine": [1, 1, 2, 0], "division_engine": [0, 1, 2, 2],
    })
    games = pd.DataFrame({"game": [0], "split": ["train"]})
    stats = gs.PhaseStats(Path("."), positions, games, {"source": {"name": "hand"}})
    agreement = gs.label_agreement(stats)
    assert agreement["differ_pct"].to_dict() == {"lichess": 25.0, "lichess-2025": 0.0,
                                                 "engine": 50.0}
    assert agreement.loc["lichess", "endgame_pct_position_only"] == 50.0
    assert agreement.loc["lichess", "endgame_pct_division"] == 25.0
    assert agreement.loc["engine", "opening_pct_position_only"] == 25.0
    assert agreement.loc["engine", "opening_pct_division"] == 25.0
    assert agreement.loc["lichess-2025", "middlegame_pct_division"] == 25.0


def test_unknown_split_and_table_are_errors(stats: gs.PhaseStats, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="split 'dev'"):
        ps.fig08_mixedness(stats, tmp_path, split="dev")
    with pytest.raises(ValueError, match="unknown mixedness table"):
        ps.fig08_mixedness(stats, tmp_path, table="chess.com")


def _match(method: str, batch: int, nodes: int, wins: int, draws: int, losses: int
           ) -> dict[str, object]:
    return summary_match(f"{method}-b{batch}-n{nodes}", wins, draws, losses,
                         labels={"kind": "method", "method": method, "batch_size": batch,
                                 "nodes": nodes, "movetime": None})


def test_table2_means_per_batch_and_pools_all_games(tmp_path: Path) -> None:
    from chessmoe import elo
    from chessmoe.report.figures.strength import table2_elo

    summary = TournamentSummary.from_json(tournament_summary([
        _match("staged", 8, 100, 6, 4, 2), _match("staged", 8, 200, 5, 2, 5),
        _match("staged", 32, 100, 12, 0, 0),  # 12-0: infinite Elo, left out of the means
        _match("separated", 8, 100, 2, 6, 4)]))
    table = table2_elo(summary, tmp_path).table
    assert table is not None
    staged = table.loc["Staged Learning"]
    first, second = elo.trinomial(6, 2, 4).elo, elo.trinomial(5, 5, 2).elo
    assert staged["batch 8"] == pytest.approx(round((first + second) / 2, 2))
    assert np.isnan(staged["batch 32"]) and staged["Average"] == staged["batch 8"]
    assert staged["settings"] == 3 and staged["games"] == 36
    assert staged["pooled W/D/L"] == "23/6/7"
    # no game records given: no pooled interval (one trinomial over settings that replay the
    # same openings would count them as independent; the clustered one needs the pairs)
    assert not any(column.startswith("pooled Elo") for column in table.columns)
    markdown = (tmp_path / "table2-elo-gains.md").read_text()  # score 5/12: -400 log10(1.4)
    assert "| Separated Learning | -58.45 | nan | -58.45 | 1 | 12 | 2/6/4 |" in markdown
    # the note names the draw rules: an adjudication without them is the claim reading
    assert "Tournament 't' (claim draw rules): settings played" in markdown
    table2_elo(replace(summary, adjudication={"draw_rules": "cutechess"}), tmp_path)
    assert "Tournament 't' (cutechess draw rules)" in (tmp_path / "table2-elo-gains.md").read_text()


def test_strength_intervals_are_drawn_as_low_high_with_unbounded_sides_dashed() -> None:
    """A 3-0-1 match has an infinite upper bound: its upper segment is dashed and the lower
    one ends exactly at the trinomial low bound (asymmetric, not elo - margin)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from chessmoe import elo
    from chessmoe.report.figures import strength

    rows = pd.DataFrame([{"elo": elo.trinomial(3, 0, 1).elo, "games": 4,
                          "low": elo.trinomial(3, 0, 1).low, "high": math.inf},
                         {"elo": elo.trinomial(6, 2, 4).elo, "games": 12,
                          "low": elo.trinomial(6, 2, 4).low,
                          "high": elo.trinomial(6, 2, 4).high}])
    fig, ax = plt.subplots()
    strength.draw_intervals(ax, [1.0, 2.0], rows, "red", "x")
    segments = [line for line in ax.get_lines() if len(line.get_xdata()) == 2
                and line.get_xdata()[0] == line.get_xdata()[1]]
    dashed = [line for line in segments if line.get_linestyle() == "--"]
    assert len(dashed) == 1 and dashed[0].get_xdata()[0] == 1.0
    assert dashed[0].get_ydata()[1] == pytest.approx(rows["elo"][0]
                                                     + strength.UNBOUNDED_REACH)
    second = [line for line in segments if line.get_xdata()[0] == 2.0]
    ends = sorted(float(line.get_ydata()[1]) for line in second)
    assert ends == pytest.approx([rows["low"][1], rows["high"][1]])
    assert ends[1] - rows["elo"][1] > rows["elo"][1] - ends[0]  # asymmetric
    texts = [t.get_text() for t in ax.texts]
    assert "n=4" in texts and "n=12" in texts
    plt.close(fig)


def test_table8_names_the_backend_each_tournament_ran_its_networks_on(tmp_path: Path) -> None:
    """A tournament's players on ONNX Runtime show in Table 8's backend row; a spec written
    before backends existed counts as eager PyTorch."""
    import json

    from chessmoe.report.figures.setup import table8_setup

    prov = {"hardware": {"cpu": "cpu", "logical_cores": 2, "memory_gib": 1, "os": "linux"},
            "software": {"torch": "2.x", "numpy": "2.y", "python": "3.11"}}
    players = {"onnx": {"name": "a", "kind": "mcts", "backend": "onnx", "search": "native"},
               "old": {"name": "b", "kind": "mcts"}}
    for name, player in players.items():
        folder = tmp_path / "tournaments" / name
        folder.mkdir(parents=True)
        (folder / "summary.json").write_text(json.dumps({"provenance": prov}))
        (folder / "spec.json").write_text(json.dumps(
            {"matches": [{"name": "m", "pairs": 1, "first": player,
                          "second": {"name": "sf", "kind": "uci"}}]}))
    backend = table8_setup(tmp_path, tmp_path / "out").table.loc["Backend", "tournaments"]
    assert "networks on ONNX Runtime" in backend and "networks on eager PyTorch" in backend
    # the tree search each played with: a spec from before the compiled search, the Python one
    engine = table8_setup(tmp_path, tmp_path / "out").table.loc["Engine", "tournaments"]
    assert "(MCTS compiled with numba, " in engine and "(MCTS in Python, " in engine


def test_a_saved_figure_carries_no_date_or_version_and_repeats_byte_for_byte(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 44: the PNG and PDF of an unchanged figure are the same bytes on every run and
    every machine date (no creation date, no matplotlib or software version inside)."""
    import matplotlib

    from chessmoe.report.figures.style import new_figure, save_figure

    def draw(out: Path, epoch: str) -> dict[str, bytes]:
        monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
        fig = new_figure(3.0, 2.0)
        ax = fig.subplots()
        ax.plot([0, 1, 2], [1, 0, 2], label="séparé")
        ax.legend()
        return {p.suffix: p.read_bytes() for p in save_figure(fig, out, "probe")}

    first = draw(tmp_path / "a", "0")
    assert draw(tmp_path / "b", "1700000000") == first
    for data in first.values():
        for marker in (b"CreationDate", b"ModDate", b"Producer", b"Creator", b"Software",
                       matplotlib.__version__.encode()):
            assert marker not in data, marker


@pytest.mark.skipif(__import__("shutil").which("git") is None, reason="needs git")
def test_table8_leaves_out_the_results_git_ignores(tmp_path: Path) -> None:
    """Issue 44: the smoke profile's outputs (ignored by git) do not reach Table 8; the
    committed results' provenance does."""
    import json
    import subprocess

    from chessmoe.report.figures.setup import table8_setup

    def prov(os_name: str) -> dict[str, object]:
        return {"provenance": {"hardware": {"cpu": "cpu", "logical_cores": 2, "memory_gib": 1,
                                            "os": os_name},
                               "software": {"torch": "2.x", "numpy": "2.y", "python": "3.11"}}}

    results = tmp_path / "results"
    for name, os_name in (("selfplay-sample", "the committed machine"),
                          ("selfplay-sample-smoke", "a smoke run's machine")):
        (results / "stats" / name).mkdir(parents=True)
        (results / "stats" / name / "manifest.json").write_text(json.dumps(prov(os_name)))
    (tmp_path / ".gitignore").write_text("/results/*/*-smoke/\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    table = table8_setup(results, tmp_path / "out").table
    assert table.loc["Operating system", "phase statistics"] == "the committed machine"
