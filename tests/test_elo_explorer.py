"""The Elo explorer behind notebooks/07: numbers, the shrinking interval, the widget."""

from __future__ import annotations

import math

import numpy as np
import pytest

from chessmoe.explore.elo_widget import EloExplorerWidget
from chessmoe.report.figures import elo_explorer as ex


def test_describe_prints_the_cutechess_line_and_its_interval() -> None:
    info = ex.describe(13, 1, 1)  # wins, draws, losses
    assert info["line"] == "Elo difference: 381.7 +/- nan, LOS: 99.9 %, DrawRatio: 6.7 %"
    info = ex.describe(60, 30, 40)
    # by hand: score mu = (60 + 15) / 130, per-game variance around it, a 95 % interval of
    # mu +- 1.959964 sd / sqrt(130) mapped to Elo, the margin half its width
    n, mu = 130, 75 / 130
    sd = math.sqrt((60 * (1 - mu) ** 2 + 40 * mu**2 + 30 * (0.5 - mu) ** 2) / n)

    def to_elo(p: float) -> float:
        return -400 * math.log10(1 / p - 1)

    margin = (to_elo(mu + 1.959964 * sd / math.sqrt(n))
              - to_elo(mu - 1.959964 * sd / math.sqrt(n))) / 2
    assert info["elo"] == pytest.approx(to_elo(mu)) == pytest.approx(53.88, abs=0.01)
    assert info["margin"] == pytest.approx(margin, rel=1e-5)
    assert (info["low"], info["high"]) == pytest.approx(
        (to_elo(mu) - margin, to_elo(mu) + margin), rel=1e-5)
    assert info["games"] == 130 and info["draw_ratio"] == pytest.approx(30 / 130)
    margins = [ex.describe(60, 30, 40, level=level)["margin"] for level in (0.8, 0.95, 0.99)]
    assert margins == sorted(margins) and margins[0] < margins[-1]


def test_describe_with_pentanomial_counts_and_sprt_state() -> None:
    balanced = ex.describe(0, 0, 0, pentanomial=[2, 5, 20, 5, 2])
    assert balanced["elo"] == pytest.approx(0.0, abs=1e-9)
    assert balanced["normalized_elo"] == pytest.approx(0.0, abs=1e-9)
    strong = ex.describe(0, 0, 0, pentanomial=[0, 2, 40, 60, 40], elo0=0, elo1=10)
    assert strong["elo"] > 100 and strong["sprt"]["state"] == "H1 accepted"
    assert strong["sprt"]["llr"] >= strong["sprt"]["upper"]


def test_the_interval_shrinks_as_the_same_result_gets_more_games() -> None:
    curve = ex.interval_curve(60, 30, 40, points=30)
    assert curve["games"].is_monotonic_increasing and curve["games"].iloc[-1] == 1300
    finite = curve[np.isfinite(curve["margin"])]
    tail = finite[finite["games"] >= 100]["margin"].to_numpy()
    assert (np.diff(tail) < 0).all()
    # roughly 1/sqrt(games): ten times the games, about a third of the margin
    big = tail[-1]
    small = finite[finite["games"] >= 130]["margin"].iloc[0]
    assert big / small == pytest.approx(math.sqrt(130 / 1300), rel=0.15)
    with pytest.raises(ValueError, match="no games"):
        ex.interval_curve(0, 0, 0)


@pytest.mark.slow
def test_the_widget_recomputes_text_and_png_when_a_count_changes() -> None:
    pytest.importorskip("ipywidgets")
    widget = EloExplorerWidget(wins=60, draws=30, losses=40)
    first = bytes(widget.image.value)
    assert first[:8] == b"\x89PNG\r\n\x1a\n" and len(first) > 5000
    assert "+53.9 +/- 53.3 Elo, 95 % interval [+1.9, +108.4]" in widget.text.value
    assert "significant at 95 %" in widget.text.value
    widget.wins.value, widget.draws.value, widget.losses.value = "13", "1", "1"
    # the normal upper bound passes a perfect score: the exact interval instead of [+203.1, +inf]
    assert ("+381.7 +/- 378.1 Elo, 95 % exact (Clopper-Pearson) interval [+97.4, +853.6]"
            in widget.text.value)
    assert bytes(widget.image.value) != first and bytes(widget.image.value)[:4] == b"\x89PNG"
