"""The Elo explorer's record (chessmoe.explore.elo) and its browser widget, headless."""

from __future__ import annotations

import math
from pathlib import Path

import nbformat
import pytest

from chessmoe import elo
from chessmoe.explore import elo as explore_elo
from chessmoe.explore import elo_widget as ex
from chessmoe.report import artefacts, params, runner
from tests.helpers import summary_match, tournament_summary
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
    assert result.nelo == pytest.approx(61.904, abs=1e-3)
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
    # losses are two per LL pair and one per LD pair: [2, 1, 0, 0, 1] is W 2, D 1, L 5 (the
    # pairs here have no LL, so a loss count of LL + LD passed them)
    losing = explore_elo.explore("pentanomial", pairs=[2, 1, 0, 0, 1])
    assert losing.wdl == (2, 1, 5) and losing.trinomial is not None
    assert losing.trinomial.counts == "W 2, D 1, L 5" and losing.trinomial.games == 8
    # six pairs at 84 %: the normal upper bound passes a perfect score; the 12 games lose only
    # 2.5 points: both get the exact interval, each over its own trials, and say why
    assert derived.pentanomial.method == "exact" and derived.trinomial.method == "exact"
    assert derived.pentanomial.note.startswith("the normal interval reaches a score of 0 or 1")
    assert derived.trinomial.note.startswith("fewer than 5 points on one side (9.5 won, 2.5 lost)")
    assert math.isfinite(derived.pentanomial.high) and math.isfinite(derived.trinomial.high)
    ambiguous = explore_elo.explore("pentanomial", pairs=[0, 1, 3, 2, 0])
    assert ambiguous.trinomial is None and "cannot be derived" in ambiguous.notes[0]
    both = explore_elo.explore("pentanomial", pairs=[0, 1, 3, 2, 0], wins=4, draws=5, losses=3)
    assert both.trinomial is not None and both.trinomial.source == "recorded with the same match"
    with pytest.raises(ValueError, match="W 9, D 0, L 3 do not describe the same games"):
        explore_elo.explore("pentanomial", pairs=[0, 1, 3, 2, 0], wins=9, draws=0, losses=3)


def test_errors_name_the_counts_in_the_order_shown() -> None:
    with pytest.raises(ValueError, match=r"D must be >= 0, got -2"):
        explore_elo.explore("wdl", wins=1, draws=-2, losses=3)
    # a negative pair count is named, never read as "no games" (the old sum was -1)
    with pytest.raises(ValueError, match=r"^LD must be >= 0, got -1$"):
        explore_elo.explore("pentanomial", pairs=[0, -1, 0, 0, 0])
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
    assert 600 < path.decided_at < 800 and "H1 (nElo 10) accepted" in path.decision
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
    # fewer games: fractional counts, not rounded ones (W 5, D 2, L 3 would be +70.4)
    ten = explore_elo.explore("wdl", wins=60, draws=30, losses=40, what_if_games=10).what_if
    s = (60 + 30 / 2) / 130
    assert ten.estimate.elo == pytest.approx(-400 * math.log10(1 / s - 1))
    assert f"{ten.estimate.elo:+.1f}" == "+53.9" and ten.games == 10
    assert ten.estimate.counts == "W 4.6, D 2.3, L 3.1"
    # pairs: 100 pairs -> 10 pairs keeps the pair score (rounding first gave +0.0)
    pairs = explore_elo.explore("pentanomial", pairs=[5, 15, 45, 20, 15], what_if_games=20)
    assert pairs.what_if.games == 20 and pairs.primary.elo == pytest.approx(43.66, abs=0.01)
    assert pairs.what_if.estimate.elo == pytest.approx(pairs.primary.elo)
    assert pairs.what_if.estimate.counts == "LL 0.5, LD 1.5, WL+DD 4.5, WD 2, WW 1.5"
    assert what.margin == pytest.approx(result.primary.margin / math.sqrt(10), rel=0.05)
    few = explore_elo.explore("wdl", wins=60, draws=30, losses=40, what_if_games=13)
    assert few.what_if.verdict.startswith("The interval contains 0")


def test_a_match_ending_on_half_a_pair_is_a_preset_without_pairs(tmp_path: Path) -> None:
    """81 games of which 80 are in 40 pairs (a match stopped mid-pair): the preset keeps the
    W/D/L, drops the pairs it cannot reconcile, says so, and explores; a whole match keeps
    its pairs."""
    import json

    folder = tmp_path / "tournaments" / "t"
    folder.mkdir(parents=True)
    matches = [summary_match("half", 53, 9, 19, pentanomial=(2, 2, 13, 7, 16)),
               summary_match("whole", 2, 1, 1, pentanomial=(0, 0, 1, 1, 0))]
    (folder / "summary.json").write_text(json.dumps(tournament_summary(matches)))
    half, whole = explore_elo.committed_presets(tmp_path)
    assert half.label == "half (81 games, 80 in pairs)" and half.pairs == (0, 0, 0, 0, 0)
    assert half.group == whole.group == "t"
    assert (half.wins, half.draws, half.losses) == (53, 9, 19)
    assert whole.label == "whole (4 games)" and whole.pairs == (0, 0, 1, 1, 0)
    for preset in (half, whole):
        explore_elo.explore(preset.mode, wins=preset.wins, draws=preset.draws,
                            losses=preset.losses, pairs=preset.pairs)


def test_presets_include_the_committed_matches_with_their_pairs() -> None:
    presets = explore_elo.presets(ROOT / "results", wins=7, draws=1, losses=2)
    assert presets[0].label == "parameters cell" and (presets[0].wins, presets[0].losses) == (7, 2)
    assert presets[1].wins + presets[1].draws + presets[1].losses == 1000
    committed = [p for p in presets
                  if p.group == "small" and p.label.startswith("separated-b8-n100 ")]
    # the preset carries the match's own pair counts, counted here from its game records
    from chessmoe.records import load_records

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


@pytest.mark.slow
def test_widget_callbacks_update_text_and_png() -> None:
    pytest.importorskip("ipywidgets")
    widget = ex.EloExplorerWidget(wins=7, draws=1, losses=2, level=0.9, elo1=20.0,
                                  results_dir=ROOT / "results")
    assert (widget.wins.value, widget.draws.value, widget.losses.value) == ("7", "1", "2")
    assert widget.level.value == "0.9" and widget.elo1.value == "20"
    assert widget.result is not None and widget.result.level == 0.9
    images = [bytes(widget.image.value)]
    assert images[0].startswith(PNG)
    widget.alpha.value = "0.01"
    assert "alpha 0.01" in widget.text.value and f"{math.log(0.95 / 0.01):.3f}" in widget.text.value
    images.append(bytes(widget.image.value))
    widget.what_if.value = "5000"
    assert "What if 5000 games" in widget.text.value
    images.append(bytes(widget.image.value))
    small = next(i for i, p in enumerate(widget.presets) if p.group == "small")
    widget.choose_preset(small)
    assert widget.result is not None and widget.result.pentanomial is not None
    assert "pentanomial (fastchess)" in widget.text.value
    images.append(bytes(widget.image.value))
    widget.mode.value = "pentanomial"
    assert "recorded with the same match" in widget.text.value
    for control in widget.pairs:
        control.value = "0"
    assert "No pairs yet" in widget.text.value and widget.image.layout.display == "none"
    assert all(i.startswith(PNG) for i in images) and len(set(images)) == len(images)


# --- issue 23: the explorer is right for every input (headless widget tests) ------------------


def _widget(**kwargs: object) -> ex.EloExplorerWidget:
    pytest.importorskip("ipywidgets")
    return ex.EloExplorerWidget(results_dir=ROOT / "results", **kwargs)  # type: ignore[arg-type]


def _enter(widget: ex.EloExplorerWidget, w: object, d: object, l_: object) -> None:
    widget.wins.value, widget.draws.value, widget.losses.value = str(w), str(d), str(l_)


EXACT = "95 % exact (Clopper-Pearson) interval"


@pytest.mark.slow
@pytest.mark.parametrize(("wdl", "shown", "verdict_has"), [
    # 6 wins: exact one-sided p = 1/64 < 2.5 %, low = Elo(0.025^(1/6)) = +28.4
    ((6, 0, 0), f"+inf Elo, {EXACT} [+28.4, no upper bound]: every game won",
     "significant at 95 %"),
    ((1, 0, 0), f"+inf Elo, {EXACT} [-636.4, no upper bound]: every game won",
     "undecided at 95 %"),
    ((0, 0, 8), f"-inf Elo, {EXACT} [no lower bound, -92.9]: every game lost",
     "significant at 95 %"),
    ((0, 100, 0), f"+0.0 +/- 71.7 Elo, {EXACT} [-71.7, +71.7]: every game scored the same",
     "undecided at 95 %"),
])
def test_lopsided_matches_get_a_sensible_interval_and_a_verdict_that_agrees(
        wdl: tuple[int, int, int], shown: str, verdict_has: str) -> None:
    """Defect 1: 6/0/0 printed "+inf +/- nan Elo, interval [+inf, +inf]"; 1/0/0 was called
    significant while LOS said 84.1 %; 0/100/0 gave [+0.0, +0.0] and "LOS nan %". Issue 42:
    the Wilson interval gave way to the exact one."""
    widget = _widget()
    _enter(widget, *wdl)
    text = widget.text.value
    assert shown in text and verdict_has in text
    assert "nan" not in text.lower() and "+/- inf" not in text
    assert widget.result is not None
    primary = widget.result.primary
    assert primary.low < primary.high and not math.isnan(primary.los)
    excludes_zero = primary.low > 0 or primary.high < 0  # the verdict agrees with the interval
    assert excludes_zero == ("significant" in widget.result.verdict)
    if wdl == (1, 0, 0):
        assert f"{primary.los:.1f} %" == "84.1 %" and primary.low < 0 < primary.high
    if wdl == (0, 100, 0):
        assert "50.0 %" in text  # LOS without decisive games


@pytest.mark.slow
def test_what_if_in_the_widget_keeps_the_score() -> None:
    """Defect 2: the 'what if' counts were rounded first (60/30/40 at 10 games: +70.4)."""
    widget = _widget()
    widget.what_if.value = "10"
    assert "What if 10 games at the same score (W 4.6, D 2.3, L 3.1): +53.9" in widget.text.value
    widget.mode.value = "pentanomial"
    for control, value in zip(widget.pairs, (5, 15, 45, 20, 15), strict=True):
        control.value = str(value)
    widget.what_if.value = "20"
    assert widget.result is not None
    assert widget.result.what_if.estimate.elo == pytest.approx(widget.result.primary.elo)
    assert "What if 20 games at the same score (LL 0.5, LD 1.5" in widget.text.value


@pytest.mark.slow
@pytest.mark.parametrize("bad", ["wins", "pairs", "alpha"])
def test_an_error_hides_the_previous_plot_and_verdict(bad: str) -> None:
    """Defect 3: W = -5, pairs mode without pairs or alpha = 0 left the old plot and verdict."""
    widget = _widget()
    assert widget.image.layout.display != "none" and "significant" in widget.text.value
    if bad == "wins":
        widget.wins.value = "-5"
    elif bad == "pairs":
        widget.mode.value = "pentanomial"
    else:
        widget.alpha.value = "0"
    assert widget.result is None and widget.image.layout.display == "none"
    assert "significant" not in widget.text.value and "undecided" not in widget.text.value
    widget.wins.value, widget.mode.value, widget.alpha.value = "60", "wdl", "0.05"
    assert widget.image.layout.display != "none" and "significant" in widget.text.value


@pytest.mark.slow
def test_each_mode_owns_its_inputs() -> None:
    """Defect 4: pairs mode cross-checked the W/D/L fields; after a preset, editing W failed
    ("the pairs do not describe the same games"); switching modes showed "no games"."""
    widget = _widget()
    assert widget.wdl_box.layout.display != "none" and widget.pairs_box.layout.display == "none"
    widget.mode.value = "pentanomial"
    assert widget.wdl_box.layout.display == "none" and widget.pairs_box.layout.display != "none"
    assert "no games" not in widget.text.value and "No pairs yet" in widget.text.value
    for control, value in zip(widget.pairs, (0, 1, 3, 2, 0), strict=True):
        control.value = str(value)
    # W/D/L fields still hold 60/30/40, which do not fit six pairs: not read in pairs mode
    assert widget.result is not None and "error" not in widget.text.value
    assert widget.result.pentanomial is not None and widget.result.pentanomial.source == "entered"
    widget.mode.value = "wdl"
    assert widget.result is not None and "W 60, D 30, L 40" in widget.text.value
    kit = next(i for i, p in enumerate(widget.presets) if p.label.startswith("kit-sized"))
    widget.choose_preset(kit)
    assert widget.result is not None and widget.result.pentanomial is not None
    assert widget.mode.value == "pentanomial"  # a preset with pairs opens in pairs mode
    widget.mode.value = "wdl"
    assert widget.result is not None and widget.result.pentanomial is not None
    widget.wins.value = "5"  # no longer the preset's match: its pairs are dropped, no error
    assert widget.result is not None and "error" not in widget.text.value
    assert widget.result.wdl == (5, 5, 3) and widget.result.pentanomial is None
    widget.choose_preset(0)
    widget.choose_preset(kit)
    widget.mode.value = "pentanomial"  # the preset's W/D/L are recorded with its pairs
    assert widget.result is not None and widget.result.trinomial is not None
    assert widget.result.trinomial.source == "recorded with the same match"


@pytest.mark.parametrize(("field", "typed", "message"), [
    ("wins", "2.5", "W (wins) must be a whole number of games, got &#x27;2.5&#x27;"),
    ("wins", "1e3", "W (wins) must be a whole number of games, got &#x27;1e3&#x27;"),
    ("draws", "x", "D (draws) must be a whole number of games, got &#x27;x&#x27;"),
    ("WD", "-1", "WD must be &gt;= 0, got -1"),
])
def test_typed_counts_are_read_exactly_or_refused_naming_the_field(
        field: str, typed: str, message: str) -> None:
    """Defect 5: the browser's number box turned 2.5 into 25 and 1e3 into 13; a negative pair
    count said "no games"."""
    widget = _widget()
    if field in ("wins", "draws"):
        getattr(widget, field).value = typed
    else:
        widget.mode.value = "pentanomial"
        widget.pairs[0].value = "3"
        widget.pairs[explore_elo.PAIR_NAMES.index(field)].value = typed
    assert f"error: {message}" in widget.text.value and widget.result is None
    assert "no games" not in widget.text.value
    assert explore_elo.parse_count("W", " 12 ") == 12
    for bad in ("2.5", "1e3", "", "１２"):
        with pytest.raises(ValueError, match="W must be a whole number"):
            explore_elo.parse_count("W", bad)


@pytest.mark.slow
def test_sprt_is_labelled_exact_and_forecast() -> None:
    """Defect 6: bounds labelled "elo" were nElo; the LLR was the closed-form approximation
    (2.104 for 60/30/10 at nElo [0, 10]; fishtest's exact GSPRT gives 1.680)."""
    widget = _widget()
    assert (widget.elo0.description, widget.elo1.description) == ("H0: nElo", "H1: nElo")
    _enter(widget, 60, 30, 10)
    assert widget.result is not None
    assert widget.result.sprt.llr_now == pytest.approx(1.680, abs=5e-4)
    assert "exact LLR 1.680" in widget.text.value
    assert "Normalised Elo of the match (fastchess): +" in widget.text.value
    h0, h1, own = widget.result.sprt.outlooks
    assert h0.pass_probability == pytest.approx(0.05) and h1.pass_probability == pytest.approx(0.95)
    # nElo bounds: one game's LLR has drift -+(10/K)^2/2 at H0/H1 and variance (10/K)^2
    # (K = 800/ln 10) whatever the draws, so Wald's length at H0 and H1 is
    # 2 (1 - 2 alpha) ln((1 - alpha)/alpha) (K/10)^2 = 6,398 games
    k = 800 / math.log(10)
    wald = 2 * 0.9 * math.log(0.95 / 0.05) * (k / 10) ** 2
    assert round(wald) == 6398
    assert h0.expected_games == pytest.approx(wald) and h1.expected_games == pytest.approx(wald)
    # at the match's own nElo: theta = (2 nElo - 10)/10, P = (1 - e^(-theta a))/(e^(-theta b)
    # - e^(-theta a)) with a = -b = ln(0.05/0.95)
    theta = (2 * widget.result.nelo - 10) / 10
    a, b = math.log(0.05 / 0.95), math.log(0.95 / 0.05)
    passes = (1 - math.exp(-theta * a)) / (math.exp(-theta * b) - math.exp(-theta * a))
    assert own.pass_probability == pytest.approx(passes)
    assert "SPRT passes (Wald)" in widget.text.value
    assert "Games needed for +/- 10 Elo at 95 %" in widget.text.value
    # 60/30/10: score 0.75, game variance 0.1125; N = (z sd 400 / (ln10 s (1 - s)) / 10)^2
    slope = 400 / (math.log(10) * 0.75 * 0.25)
    needed = (elo.Z_EXACT * math.sqrt(0.1125) * slope / 10) ** 2
    assert widget.result.games_needed == pytest.approx(needed) and round(needed) == 3710
    assert "about 3,710 games" in widget.text.value
    widget.precision.value = "5"
    assert widget.result.games_needed == pytest.approx(4 * needed)
    widget.sprt_model.value = "logistic"
    assert widget.elo0.description == "H0: Elo" and widget.result.sprt.unit == "Elo"
    assert "H1 (Elo 10)" in widget.text.value
    assert widget.result.sprt.llr_now == pytest.approx(elo.sprt(
        elo0=0, elo1=10, wins=60, draws=30, losses=10, model="logistic", exact=True).llr)


def test_the_controls_wrap_and_the_plot_keeps_its_labels_clear() -> None:
    """Defect 9: at 800 px the controls scrolled sideways (beta hidden), labels sat on the bars
    and the legend on the LLR line."""
    widget = _widget()
    import ipywidgets

    rows = [c for c in (*widget.box.children, *widget.planner.box.children)
            if isinstance(c, ipywidgets.HBox)]
    assert len(rows) == 6 and all(r.layout.flex_flow == "row wrap" for r in rows)
    assert widget.beta in rows[-2].children and widget.planner.draw_ratio in rows[-1].children
    assert widget.image.layout.width == "100%"
    assert widget.result is not None
    fig = ex.result_figure(widget.result)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    left, right = fig.axes
    legend = right.get_legend()
    assert legend is not None
    box, axes_box = legend.get_window_extent(renderer), right.get_window_extent(renderer)
    assert box.y1 <= axes_box.y0  # the legend sits below the axes, off the LLR line
    bars = [line.get_window_extent(renderer) for line in left.get_lines()
            if line.get_linewidth() == 6]
    for text in left.texts:
        extent = text.get_window_extent(renderer)
        assert not any(extent.overlaps(bar) for bar in bars)


def test_the_page_text_agrees_with_the_page() -> None:
    """Defect 7: a fixed printout above the widget never updated; the "How the interval shrinks"
    text described a figure the page lacks and said 30 games per setting (the preset: 12)."""
    import re

    notebook = nbformat.read(ROOT / "notebooks" / "07_elo_explorer.ipynb", as_version=4)
    code = "".join(c.source for c in notebook.cells if c.cell_type == "code")
    assert "print(" not in code and "explore_elo.explore(" not in code
    text = next(c.source for c in notebook.cells if c.source.startswith("## How the interval"))
    assert "what if: games" in text and "panel (a)" in text and "30" not in text
    by_label = {p.label.split(":")[0]: p for p in explore_elo.presets(ROOT / "results")}
    kit, paper = by_label["kit-sized match"], by_label["paper-sized match"]
    kit_result = explore_elo.explore("wdl", wins=kit.wins, draws=kit.draws, losses=kit.losses,
                                     pairs=kit.pairs)
    paper_result = explore_elo.explore("wdl", wins=paper.wins, draws=paper.draws,
                                       losses=paper.losses)
    assert kit_result.primary.games == 12 and "12 games (6\npairs)" in text
    assert kit_result.pentanomial is not None and paper_result.primary.games == 1000
    stated = [int(x) for x in re.findall(r"\+/- (\d+)", text)]
    assert stated == [round(paper_result.primary.margin), round(kit_result.primary.margin),
                      round(kit_result.pentanomial.margin)]


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
    assert "<Figure size" not in text and "W 7, D 1, L 2" not in text  # no fixed printout
    last = executed.cells[-1].outputs
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in last)


# --- issue 42: surviving mutants ---------------------------------------------------------------


def test_the_sprt_path_of_pairs_counts_games() -> None:
    """The path is in games in pairs mode too: 100 pairs are 200 games, where the path meets the
    match's own LLR (counting pairs as games doubled the LLR at 200 games and halved the length
    at which the SPRT decides)."""
    result = explore_elo.explore("pentanomial", pairs=[5, 15, 45, 20, 15], what_if_games=4000)
    path = result.sprt
    assert result.primary.games == 200 and 200 in path.games
    assert all(g % 2 == 0 for g in path.games)  # whole pairs only
    assert path.llr[path.games.index(200)] == pytest.approx(path.llr_now)
    for games, llr in zip(path.games, path.llr, strict=True):
        assert llr == pytest.approx(path.llr_now * games / 200)
    assert path.decided_at is not None
    k = path.games.index(path.decided_at)
    assert path.llr[k] >= path.upper > path.llr[k - 1]
    assert path.decided_at == min(g for g in path.games if path.llr_now * g / 200 >= path.upper)


def test_clopper_pearson_interval_is_the_exact_binomial_one() -> None:
    """R's binom.test(5, 10): [0.1870860, 0.8129140]; the closed forms at x = n and x = 0; and
    at each bound the binomial tail equals (1 - level) / 2."""
    low, high = elo.clopper_pearson_interval(5, 10, 0.95)
    assert (low, high) == (pytest.approx(0.1870860, abs=1e-7), pytest.approx(0.8129140, abs=1e-7))
    assert elo.clopper_pearson_interval(4, 4, 0.95) == (pytest.approx(0.025 ** 0.25), 1.0)
    assert elo.clopper_pearson_interval(0, 8, 0.9) == (0.0, pytest.approx(1 - 0.05 ** 0.125))
    low, high = elo.clopper_pearson_interval(12, 16, 0.95)

    def tail(p: float, ks: range) -> float:
        return sum(math.comb(16, k) * p**k * (1 - p) ** (16 - k) for k in ks)

    assert tail(low, range(12, 17)) == pytest.approx(0.025, abs=1e-10)
    assert tail(high, range(13)) == pytest.approx(0.025, abs=1e-10)
    with pytest.raises(ValueError, match="0 <= successes <= n"):
        elo.clopper_pearson_interval(5, 4, 0.95)


@pytest.mark.parametrize(("wdl", "normal_low", "why"), [
    # every game won: the Wilson interval gave [+7.0, no upper bound], "significant"
    ((4, 0, 0), None, "every game won"),
    # normal [+26.3, +562.2] inside (0, 1) yet only 4 points lost: exact one-sided p = 0.038
    ((12, 0, 4), 26.3, "fewer than 5 points on one side (12 won, 4 lost)"),
])
def test_tiny_or_lopsided_matches_get_the_exact_interval_and_say_so(
        wdl: tuple[int, int, int], normal_low: float | None, why: str) -> None:
    """4/0/0 was called significant although the exact one-sided p is 1/16; the exact
    (Clopper-Pearson) interval contains 0 and the page says which interval and why."""
    widget = _widget()
    _enter(widget, *wdl)
    assert widget.result is not None
    primary = widget.result.primary
    w, d, l_ = wdl
    low, high = elo.clopper_pearson_interval(w + d / 2, w + d + l_, 0.95)
    assert primary.method == "exact" and primary.note.startswith(why)
    assert primary.low == pytest.approx(elo.elo_from_score(low)) and primary.low < 0
    assert primary.high == elo.elo_from_score(high)
    assert widget.result.verdict == "The interval contains 0: undecided at 95 %."
    assert f"95 % exact (Clopper-Pearson) interval [{primary.low:+.1f}" in widget.text.value
    if wdl == (4, 0, 0):
        assert f"{primary.low:+.1f}" == "-72.1"  # Elo(0.025^(1/4)): p = 1/16 > 2.5 %
        assert 2 * 0.5**4 > 0.05
    else:
        normal = elo.trinomial(12, 4, 0, z=widget.result.z)  # Elo(mu -+ z sigma)
        assert normal.score - widget.result.z * math.sqrt(0.75 * 0.25 / 16) > 0
        assert f"{normal.low:+.1f}" == f"{normal_low:+.1f}" and math.isfinite(normal.high)
        p_value = sum(math.comb(16, k) for k in range(12, 17)) / 2**16
        assert p_value == pytest.approx(0.0384, abs=1e-4)


def test_los_comes_from_the_same_games_in_both_modes() -> None:
    """One WW pair is two won games: LOS 92.1 % in both modes (the pairs said 100.0 %); three LL
    pairs are six lost games: 0.7 % (the pairs said 0.0 %). Where WL+DD pairs leave W + L open,
    the LOS is the range over their splits."""
    two_wins = 100 * (0.5 + 0.5 * math.erf(2 / math.sqrt(4)))
    six_losses = 100 * (0.5 + 0.5 * math.erf(-6 / math.sqrt(12)))
    assert f"{two_wins:.1f} {six_losses:.1f}" == "92.1 0.7"
    for pairs, wdl, expected in (([0, 0, 0, 0, 1], (2, 0, 0), two_wins),
                                 ([3, 0, 0, 0, 0], (0, 0, 6), six_losses)):
        by_pairs = explore_elo.explore("pentanomial", pairs=pairs)
        by_games = explore_elo.explore("wdl", wins=wdl[0], draws=wdl[1], losses=wdl[2])
        assert by_pairs.primary.los == pytest.approx(expected)
        assert by_games.primary.los == pytest.approx(expected)
        assert by_pairs.trinomial is not None and by_pairs.trinomial.los == by_pairs.primary.los
        recorded = explore_elo.explore("wdl", wins=wdl[0], draws=wdl[1], losses=wdl[2],
                                       pairs=pairs)
        assert recorded.pentanomial is not None
        assert recorded.pentanomial.los == recorded.primary.los == pytest.approx(expected)
    widget = _widget()
    widget.mode.value = "pentanomial"
    widget.pairs[4].value = "1"
    assert ">92.1 %</td>" in widget.text.value and "100.0 %" not in widget.text.value
    assert "the same model in both modes" in widget.text.value
    # one WL+DD pair and one WW pair: W - L = 2, W + L = 2 or 4
    open_split = explore_elo.explore("pentanomial", pairs=[0, 0, 1, 0, 1]).primary
    assert math.isnan(open_split.los) and open_split.los_range == (
        pytest.approx(100 * (0.5 + 0.5 * math.erf(2 / math.sqrt(8)))), pytest.approx(two_wins))
    assert open_split.los_text() == "84.1 to 92.1 %"
    # the kit-sized preset: its pairs and its W/D/L give one LOS
    kit = explore_elo.explore("wdl", wins=4, draws=5, losses=3, pairs=[0, 1, 3, 2, 0])
    assert kit.pentanomial is not None and kit.pentanomial.los == kit.primary.los


def test_bounds_print_the_digits_that_agree_with_the_verdict() -> None:
    """[+0.0, +0.1] "excludes 0" read false: a bound near 0 keeps the digits of its sign."""
    result = explore_elo.explore("wdl", wins=50_010_000, losses=49_990_000)
    primary = result.primary
    assert 0 < primary.low < 0.05 and result.verdict.startswith("The interval excludes 0")
    assert primary.text(0.95) == "+0.069 +/- 0.068 Elo, 95 % interval [+0.001, +0.138]"
    weaker = explore_elo.explore("wdl", wins=49_990_000, losses=50_010_000)
    assert weaker.primary.text(0.95) == "-0.069 +/- 0.068 Elo, 95 % interval [-0.138, -0.001]"
    assert explore_elo.bound_text(0.0004) == "+0.0004" and explore_elo.bound_text(-0.04) == "-0.04"
    assert explore_elo.bound_text(0.0) == "0.0" and explore_elo.bound_text(108.44) == "+108.4"
    widget = _widget()
    _enter(widget, 50_010_000, 0, 49_990_000)
    assert "[+0.001, +0.138]" in widget.text.value and "excludes 0" in widget.text.value


@pytest.mark.parametrize(("field", "typed", "message"), [
    ("alpha", "0,05", "alpha must be a number with a decimal point (0.05, not 0,05), got "
                      "&#x27;0,05&#x27;"),
    ("precision", "-3", "games for +/- Elo must be &gt; 0, got -3"),
    ("level", "95", "confidence must lie strictly between 0 and 1 (0.95 for 95 %), got 95"),
    ("level", "nan", "confidence must be a number, got &#x27;nan&#x27;"),
    ("what_if", "2.5", "what if: games must be a whole number of games, got &#x27;2.5&#x27;"),
    ("elo1", "-5", "H1 must be above H0 (nElo), got H0 0, H1 -5"),
    ("beta", "0.96", "alpha + beta must be below 1, got 0.05 + 0.96"),
])
def test_settings_are_refused_with_their_name_and_never_rewritten(
        field: str, typed: str, message: str) -> None:
    """"0,05" became 005 and -3 became 0.1 without a word: the field keeps what was typed and
    the page says in one line which field is wrong; the plot is hidden."""
    widget = _widget()
    getattr(widget, field).value = typed
    assert getattr(widget, field).value == typed
    assert widget.text.value == f"<p style='color:#b00'>error: {message}</p>"
    assert widget.result is None and widget.image.layout.display == "none"


@pytest.mark.parametrize(("field", "typed", "read"), [
    ("precision", "2000", 2000.0),  # was clamped to 1000
    ("what_if", "25", 25),  # the slider's step made it 30
    ("level", "0.951", 0.951),  # the slider's step made it 0.95
    ("alpha", "1e-3", 0.001),
])
def test_settings_are_read_as_typed(field: str, typed: str, read: float) -> None:
    widget = _widget()
    getattr(widget, field).value = typed
    assert getattr(widget, field).value == typed and widget.result is not None
    got = {"precision": widget.result.precision, "what_if": widget.result.what_if.games,
           "level": widget.result.level, "alpha": widget.result.sprt.alpha}[field]
    assert got == read
    if field == "what_if":
        assert "What if 25 games at the same score (W 11.5, D 5.8, L 7.7)" in widget.text.value
    if field == "precision":
        assert "Games needed for +/- 2000 Elo" in widget.text.value


@pytest.mark.slow
def test_the_preset_menu_opens_short_and_a_search_finds_every_match() -> None:
    """Issue 55: 238 matches sat in the preset menus. The menu opens with the kit's examples
    and the decisive matches (the full-length matches of the powered, matched and converged
    tournaments, and every SPRT match); a search finds any other; an edit resets the menu."""
    widget = _widget()
    committed = explore_elo.committed_presets(ROOT / "results")
    assert len(committed) > 150
    shown = [label for label, _ in widget.preset.options]
    assert shown[0] == ex.TYPED and len(shown) - 1 < 20
    decisive = [p.name for p in committed if p.decisive]
    assert shown[4:] == decisive and shown[1] == "parameters cell"
    assert "powered / staged-b8-n100 (400 games)" in decisive
    assert "related / mais-vs-mais-at-200-sprt (156 games)" in decisive
    assert not any(name.startswith(("small", "ratings", "replicated")) for name in decisive)
    assert f"{len(decisive)} decisive matches of the {len(committed)} committed" in (
        widget.preset_note.value)
    # a search: every word in the name, the menu narrowed to it
    widget.preset_search.value = "small separated-b8"
    found = [label for label, _ in widget.preset.options][1:]
    assert found and all(name.startswith(("small / separated-b8", "small-cutechess / separated-b8"))
                         for name in found)
    assert f"{len(found)} matches hold 'small separated-b8'" in widget.preset_note.value
    widget.preset_search.value = "no such match"
    assert [label for label, _ in widget.preset.options] == [ex.TYPED]
    assert "No match holds every word of 'no such match'" in widget.preset_note.value
    # every committed preset can be reached by searching for its name
    offset = len(widget.presets) - len(committed)
    for i, p in enumerate(committed):
        assert offset + i in explore_elo.find_presets(widget.presets, p.name.split(" (")[0])
    small = next(i for i, p in enumerate(widget.presets)
                 if p.group == "small" and p.label.startswith("separated-b8-n100 "))
    widget.choose_preset(small)  # not in the menu: the search brings it in
    assert widget.preset.value == small
    assert widget.preset_search.value == "small / separated-b8-n100"
    assert widget.result is not None and widget.result.pentanomial is not None
    assert widget.mode.value == "pentanomial"
    widget.pairs[0].value = str(int(widget.pairs[0].value) + 1)
    assert widget.preset.value == -1 and widget.preset.label == ex.TYPED
    assert widget.result is not None and widget.result.trinomial is None
    widget.choose_preset(small)  # choosing it again restores the match
    assert widget.preset.label == widget.presets[small].name
    assert widget.result is not None and widget.result.trinomial is not None
    widget.level.value = "0.9"  # a setting is not a new match
    assert widget.preset.value == small

# --- issue 58: pairs first, the spread, the stop, the planner and a block to copy -----------


def test_a_preset_with_pairs_opens_in_pairs_mode_and_tests_the_pairs() -> None:
    """ntuple-d2-vs-pesto (1,000 games): its pairs' exact LLR at nElo [0, 10] is 2.95, H1
    accepted; its W/D/L's 2.93 would read "continue". Every committed preset with pairs
    opens in pairs mode."""
    committed = explore_elo.committed_presets(ROOT / "results")
    assert all((p.mode == "pentanomial") == any(p.pairs) for p in committed)
    assert sum(p.mode == "pentanomial" for p in committed) > 200
    match = next(p for p in committed if p.name.startswith("related / ntuple-d2-vs-pesto "))
    result = explore_elo.explore(match.mode, wins=match.wins, draws=match.draws,
                                 losses=match.losses, pairs=match.pairs)
    assert result.mode == "pentanomial" and result.sprt.state == "H1 accepted"
    assert f"{result.sprt.llr_now:.2f}" == "2.95"
    wdl = explore_elo.explore("wdl", wins=match.wins, draws=match.draws, losses=match.losses)
    assert wdl.sprt.state == "continue" and f"{wdl.sprt.llr_now:.2f}" == "2.93"
    sprt_match = next(p for p in committed if p.test is not None)
    assert sprt_match.test == explore_elo.PresetTest(0.0, 35.0, 0.05, 0.05, "logistic")


def test_the_spread_shows_why_pairs_narrow_the_interval() -> None:
    """W/D/L 62/58/36 with pairs (5, 10, 26, 28, 9), the MAIS match: draw ratio 58/156,
    pair ratio (28 + 9)/(5 + 10) = 2.467, per-game variance 0.1501 from W/D/L and
    2 * 0.06838 = 0.1368 from the pairs: ratio 0.911, the pairs' interval narrower by 0.954."""
    result = explore_elo.explore("pentanomial", pairs=[5, 10, 26, 28, 9], wins=62, draws=58,
                                 losses=36)
    sp = result.spread
    assert sp is not None
    assert sp.draw_ratio == pytest.approx(58 / 156)
    assert sp.pair_ratio == pytest.approx(37 / 15)
    mu = (62 + 29) / 156
    game_var = (62 * (1 - mu) ** 2 + 58 * (0.5 - mu) ** 2 + 36 * mu**2) / 156
    assert sp.game_variance == pytest.approx(game_var)
    assert sp.pair_variance == pytest.approx(0.06837606837606838)
    assert sp.variance_ratio == pytest.approx(2 * 0.06837606837606838 / game_var)
    assert f"{sp.variance_ratio:.3f}" == "0.911"
    # the ratio is the square of the ratio of the two models' standard errors of the score
    _, _, pair_se = elo.pair_standard_error([5, 10, 26, 28, 9])
    assert sp.variance_ratio == pytest.approx((pair_se / math.sqrt(game_var / 156)) ** 2)
    import html

    html_text = html.unescape(ex.result_html(result))
    assert "ratio 0.911 (the pairs' interval is narrower by its square root, 0.954" in html_text
    assert "pair ratio 2.467" in html_text and "draw ratio 0.372" in html_text
    # no pair lost: an infinite pair ratio; no pairs at all: none
    assert explore_elo.match_spread(None, (0, 0, 1, 2, 3)).pair_ratio == math.inf
    assert math.isnan(explore_elo.match_spread((6, 3, 4), None).pair_ratio)


def test_a_decided_test_reads_the_match_as_stopped_on_the_page() -> None:
    result = explore_elo.explore("pentanomial", pairs=[5, 10, 26, 28, 9], elo0=0, elo1=35,
                                 sprt_model="logistic")
    assert result.stopped is not None and result.stopped.accepted == "H1"
    assert result.stopped.text() == "+47.7 [+4.9, +90.9] Elo (95 %, corrected for the stop at H1)"
    page = ex.result_html(result)
    assert ("its Elo read as stopped there is <b>+47.7 [+4.9, +90.9] Elo (95 %, corrected for "
            "the stop at H1)</b>; the fixed-length Elo +58.5") in page
    going = explore_elo.explore("wdl", wins=60, draws=30, losses=40)
    assert going.sprt.state == "continue" and going.stopped is None
    assert "read as stopped" not in ex.result_html(going)


def test_the_result_block_reproduces_the_page_on_the_command_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The block to copy names the counts, estimates, spread and SPRT, and its command prints
    the same Elo and LLR in ``chessmoe elo``."""
    from chessmoe.cli import main

    result = explore_elo.explore("pentanomial", pairs=[5, 10, 26, 28, 9], wins=62, draws=58,
                                 losses=36, elo0=0, elo1=35, sprt_model="logistic")
    block = ex.result_block(result)
    lines = block.splitlines()
    assert lines[0] == "Elo explorer (game pairs mode), 95 % intervals"
    assert any(line.startswith("pentanomial (fastchess): LL 5, LD 10, WL+DD 26, WD 28, WW 9 "
                               "(entered): +58.5 +/- 41.7 Elo") for line in lines)
    assert ("SPRT H0 Elo 0, H1 Elo 35, alpha 0.05, beta 0.05: exact LLR 2.96 in [-2.94, 2.94]: "
            "H1 accepted") in lines
    assert "read as stopped at this decision: +47.7 [+4.9, +90.9] Elo (95 %, corrected for " \
           "the stop at H1)" in lines
    command = lines[-1].removeprefix("same Elo lines and LLR: chessmoe ")
    assert main(command.split()) == 0
    printed = capsys.readouterr().out
    assert "SPRT: llr 2.96, lbound -2.94, ubound 2.94 - H1 accepted" in printed
    assert "Ptnml(0-2): [5, 10, 26, 28, 9], Elo: 58.5 +/- " in printed
    assert "If the match stopped at this decision: +47.7 [+4.9, +90.9] Elo" in printed


def test_the_planner_reads_its_spread_from_the_match_a_draw_ratio_or_a_pair_variance() -> None:
    from chessmoe import sequential
    from chessmoe.explore import sprt as explore_sprt

    match = explore_elo.explore("wdl", wins=60, draws=30, losses=40)
    settings = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05, "model": "normalized"}
    view = explore_sprt.planner_view(source="match", result=match, **settings)
    assert view.plan.per == 1 and view.plan.variance == pytest.approx(
        explore_elo.match_spread((60, 30, 40), None).game_variance)
    assert view.estimate == pytest.approx(match.nelo) and view.estimate_outlook is not None
    # the page's Wald figures at H0, H1 and the estimate are the planner's
    for outlook in match.sprt.outlooks:
        planned = view.plan.at(outlook.elo)
        # the page's outlook uses fastchess's regularised cells; no cell is empty here
        assert planned.pass_probability == pytest.approx(outlook.pass_probability)
    drawn = explore_sprt.planner_view(source="draw ratio", draw_ratio="0.5", **settings)
    assert drawn.plan.variance == 0.125 and drawn.estimate_outlook is None
    paired = explore_sprt.planner_view(source="pair variance", pair_variance="0.04", **settings)
    assert paired.plan.per == 2 and paired.plan.variance == 0.04
    assert paired.plan.elos == sequential.plan_sprt(elo0=0.0, elo1=10.0, variance=0.04,
                                                    per=2).elos
    text = explore_sprt.planner_html(drawn)
    assert "a draw ratio of 0.5: variance (1 - d) / 4 = 0.1250" in text
    assert "<td>H1 (nElo 10)</td><td>+7.07</td><td>+10.00</td><td>0.5102</td>" in text
    for kwargs, message in (
            ({"source": "draw ratio", "draw_ratio": "1"},
             "planner: draw ratio must lie in [0, 1) (0.6 for 60 % draws), got 1"),
            ({"source": "draw ratio", "draw_ratio": "0,5"},
             "planner: draw ratio must be a number with a decimal point"),
            ({"source": "pair variance", "pair_variance": "0.3"},
             "planner: pair variance must lie in (0, 0.25]"),
            ({"source": "match"}, "the planner has no match to take the spread from")):
        with pytest.raises(ValueError) as caught:
            explore_sprt.planner_view(**kwargs, **settings)  # type: ignore[arg-type]
        assert str(caught.value).startswith(message)


@pytest.mark.slow
def test_the_widget_draws_the_planner_and_fills_the_block() -> None:
    widget = _widget()
    assert bytes(widget.planner.image.value).startswith(PNG)
    assert "sprt-planner" in widget.planner.image._dom_classes
    assert widget.block.value == ex.result_block(widget.result)  # type: ignore[arg-type]
    first = bytes(widget.planner.image.value)
    widget.planner.source.value = "draw ratio"
    assert widget.planner.draw_ratio.layout.display == ""
    assert widget.planner.pair_variance.layout.display == "none"
    second = bytes(widget.planner.image.value)
    assert second != first and "a draw ratio of 0.6" in widget.planner.text.value
    widget.planner.draw_ratio.value = "2"
    assert "error: planner: draw ratio must lie in [0, 1)" in widget.planner.text.value
    assert widget.planner.image.layout.display == "none"
    widget.planner.draw_ratio.value = "0.3"
    assert widget.planner.image.layout.display == ""
    # without a match (counts refused), the planner still plans from a draw ratio
    widget.wins.value = "-1"
    assert widget.result is None and widget.block.value == ""
    assert widget.planner.image.layout.display == "" and "draw ratio of 0.3" in (
        widget.planner.text.value)
    widget.planner.source.value = "match"
    assert ("<p style='color:#555'>The planner has no match to take the spread from: enter its "
            "counts") in widget.planner.text.value  # a note, not an error
    assert "error" not in widget.planner.text.value
    widget.wins.value = "60"
    widget.elo1.value = "-5"  # a bad bound: both the page and the planner name it
    assert "error: H1 must be above H0 (nElo)" in widget.text.value
    assert "error: H1 must be above H0 (nElo)" in widget.planner.text.value
    # a preset that ran to an SPRT brings its own test
    mais = next(i for i, p in enumerate(widget.presets) if p.test is not None)
    widget.choose_preset(mais)
    assert (widget.sprt_model.value, widget.elo0.value, widget.elo1.value) == (
        "logistic", "0", "35")
    assert widget.result is not None and widget.result.stopped is not None
    assert "read as stopped at this decision" in widget.block.value
