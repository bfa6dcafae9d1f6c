"""The Elo explorer's record (chessmoe.report.explore_elo) and its browser widget, headless."""

from __future__ import annotations

import math
from pathlib import Path

import nbformat
import pytest

from chessmoe.report import artefacts, explore_elo, params, runner
from chessmoe.report.figures import elo_explorer as ex
from tests.test_notebooks import _parameters_cell

ROOT = Path(__file__).resolve().parents[1]
PNG = b"\x89PNG\r\n\x1a\n"


def test_wdl_mode_gives_one_multiplier_for_text_and_interval_and_a_verdict() -> None:
    result = explore_elo.explore("wdl", wins=60, draws=30, losses=40)
    tri = result.trinomial
    assert tri is not None and result.pentanomial is None
    assert result.z == pytest.approx(1.959964, abs=1e-6)
    assert tri.text(0.95) == "+53.9 +/- 53.3 Elo, 95 % interval [+1.9, +108.4]"
    assert tri.margin == pytest.approx((tri.high - tri.low) / 2)
    assert tri.counts == "W 60, D 30, L 40" and tri.source == "entered"
    assert result.verdict.startswith("The interval excludes 0: significant at 95 %")
    assert any("not derivable from W/D/L" in n for n in result.notes)
    undecided = explore_elo.explore("wdl", wins=6, draws=3, losses=4)
    assert undecided.verdict == "The interval contains 0: undecided at 95 %."
    weaker = explore_elo.explore("wdl", wins=10, draws=30, losses=60, level=0.99)
    assert "excludes 0: significant at 99 %" in weaker.verdict and "weaker" in weaker.verdict


def test_pentanomial_mode_derives_wdl_only_when_no_pair_is_ambiguous() -> None:
    derived = explore_elo.explore("pentanomial", pairs=[0, 1, 0, 2, 3])
    assert derived.wdl == (8, 3, 1)
    assert derived.trinomial is not None and derived.trinomial.source == "derived from the pairs"
    assert derived.pentanomial is not None and derived.pentanomial.games == 12
    assert derived.trinomial.elo == pytest.approx(derived.pentanomial.elo)  # same score
    assert math.isinf(derived.pentanomial.high) and math.isfinite(derived.trinomial.high)
    ambiguous = explore_elo.explore("pentanomial", pairs=[0, 1, 3, 2, 0])
    assert ambiguous.trinomial is None and "cannot be derived" in ambiguous.notes[0]
    both = explore_elo.explore("pentanomial", pairs=[0, 1, 3, 2, 0], wins=4, draws=5, losses=3)
    assert both.trinomial is not None and both.trinomial.source == "recorded with the same match"
    with pytest.raises(ValueError, match="W 9, D 0, L 3 do not describe the same games"):
        explore_elo.explore("pentanomial", pairs=[0, 1, 3, 2, 0], wins=9, draws=0, losses=3)


def test_errors_name_the_counts_in_the_order_shown() -> None:
    with pytest.raises(ValueError, match=r"got W 1, D -2, L 3"):
        explore_elo.explore("wdl", wins=1, draws=-2, losses=3)
    with pytest.raises(ValueError, match="no games: give at least one of W, D, L"):
        explore_elo.explore("wdl")
    with pytest.raises(ValueError, match="LL, LD, WL\\+DD, WD, WW"):
        explore_elo.explore("pentanomial")


def test_sprt_path_crosses_its_settable_bounds_where_it_says() -> None:
    result = explore_elo.explore("wdl", wins=60, draws=30, losses=40, what_if_games=2000)
    path = result.sprt
    assert path.upper == pytest.approx(math.log(0.95 / 0.05))
    assert path.llr[path.games.index(130)] == pytest.approx(path.llr_now)
    assert path.decided_at is not None
    k = path.games.index(path.decided_at)
    assert path.llr[k] >= path.upper > path.llr[k - 1]
    assert 500 < path.decided_at < 700 and "H1 (elo 10) accepted" in path.decision
    strict = explore_elo.explore("wdl", wins=60, draws=30, losses=40, alpha=0.01, beta=0.2,
                                 elo0=0, elo1=5)
    assert strict.sprt.upper == pytest.approx(math.log(0.8 / 0.01))
    assert strict.sprt.lower == pytest.approx(math.log(0.2 / 0.99))
    assert strict.sprt.llr_now != pytest.approx(path.llr_now)


def test_what_if_keeps_the_score_and_narrows_the_interval() -> None:
    result = explore_elo.explore("wdl", wins=60, draws=30, losses=40, what_if_games=1300)
    what = result.what_if.estimate
    assert result.what_if.games == 1300 and what.counts == "W 600, D 300, L 400"
    assert what.elo == pytest.approx(result.primary.elo)
    assert what.margin == pytest.approx(result.primary.margin / math.sqrt(10), rel=0.05)
    few = explore_elo.explore("wdl", wins=60, draws=30, losses=40, what_if_games=13)
    assert few.what_if.verdict.startswith("The interval contains 0")


def test_presets_include_the_committed_matches_with_their_pairs() -> None:
    presets = explore_elo.presets(ROOT / "results", wins=7, draws=1, losses=2)
    assert presets[0].label == "parameters cell" and (presets[0].wins, presets[0].losses) == (7, 2)
    assert presets[1].wins + presets[1].draws + presets[1].losses == 1000
    committed = [p for p in presets if p.label.startswith("small: separated-b8-n100")]
    # the preset carries the match's own pair counts, counted here from its game records
    from chessmoe.play.match import load_records

    match = ROOT / "results" / "tournaments" / "small" / "separated-b8-n100"
    records = load_records(sorted(match.glob("games-*.jsonl")))
    by_pair: dict[int, float] = {}
    for r in records:
        assert r.first_score is not None and r.pair is not None
        by_pair[r.pair] = by_pair.get(r.pair, 0.0) + r.first_score
    counted = tuple(sum(1 for v in by_pair.values() if v == k / 2) for k in range(5))
    assert len(records) == 12 and sum(counted) == 6
    assert committed and committed[0].pairs == counted
    assert (committed[0].wins, committed[0].draws, committed[0].losses) == (
        sum(r.first_score == 1 for r in records), sum(r.first_score == 0.5 for r in records),
        sum(r.first_score == 0 for r in records))
    for preset in presets:  # every preset is a consistent match
        result = explore_elo.explore(preset.mode, wins=preset.wins, draws=preset.draws,
                                     losses=preset.losses, pairs=preset.pairs)
        assert result.trinomial is not None


def test_widget_callbacks_update_text_and_png() -> None:
    pytest.importorskip("ipywidgets")
    widget = ex.EloExplorerWidget(wins=7, draws=1, losses=2, level=0.9, elo1=20.0,
                                  results_dir=ROOT / "results")
    assert (widget.wins.value, widget.draws.value, widget.losses.value) == (7, 1, 2)
    assert widget.level.value == 0.9 and widget.elo1.value == 20.0
    images = [bytes(widget.image.value)]
    assert images[0].startswith(PNG)
    widget.alpha.value = 0.01
    assert "alpha 0.01" in widget.text.value and f"{math.log(0.95 / 0.01):.3f}" in widget.text.value
    images.append(bytes(widget.image.value))
    widget.what_if.value = 5000
    assert "What if 5000 games" in widget.text.value
    images.append(bytes(widget.image.value))
    small = next(i for i, p in enumerate(widget.presets) if p.label.startswith("small: "))
    widget.preset.value = small
    assert widget.result is not None and widget.result.pentanomial is not None
    assert "pentanomial (fastchess)" in widget.text.value
    images.append(bytes(widget.image.value))
    widget.mode.value = "pentanomial"
    assert "recorded with the same match" in widget.text.value
    for control in widget.pairs:
        control.value = 0
    assert "error: no games: give at least one of LL, LD, WL+DD, WD, WW" in widget.text.value
    assert all(i.startswith(PNG) for i in images) and len(set(images)) == len(images)


def test_the_parameters_cell_matches_its_declaration() -> None:
    declared = params.EloExplorerParams()
    cell = _parameters_cell(ROOT / "notebooks" / "07_elo_explorer.ipynb")
    assert cell == {k: getattr(declared, k) for k in cell} and len(cell) == len(vars(declared))


@pytest.mark.slow
def test_the_notebook_starts_the_widget_from_its_parameters(tmp_path: Path) -> None:
    out = tmp_path / "figures"
    runner.execute(ROOT / "notebooks" / "07_elo_explorer.ipynb", tmp_path / "run.ipynb",
                   {"wins": 7, "draws": 1, "losses": 2, "figures_dir": str(out),
                    "interactive": True})
    assert sorted(p.name for p in (out / "extras").iterdir()) == sorted([
        Path(f).name for f in artefacts.job("07_elo_explorer.ipynb").artefact_files()])
    executed = nbformat.read(tmp_path / "run.ipynb", as_version=4)
    text = "".join(o.get("text", "") for c in executed.cells for o in c.get("outputs", []))
    assert "W 7, D 1, L 2" in text and "<Figure size" not in text
    last = executed.cells[-1].outputs
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in last)
