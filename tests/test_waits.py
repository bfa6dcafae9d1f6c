"""The test suite's waits (tests.helpers): a timeout scaled for a loaded machine, and a
failure that says what was awaited, for how long, and what was seen instead."""

from __future__ import annotations

import os

import pytest

from tests.helpers import TIMEOUT_SCALE_VARIABLE, scaled, timeout_scale, wait_until


def test_the_scale_is_the_variable_when_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TIMEOUT_SCALE_VARIABLE, "3")
    assert timeout_scale() == 3.0 and scaled(20) == 60.0
    monkeypatch.setenv(TIMEOUT_SCALE_VARIABLE, "1")
    assert scaled(20) == 20.0


@pytest.mark.parametrize("value", ["0.5", "0", "-2", "fast", "nan"])
def test_a_scale_below_one_or_not_a_number_is_refused_by_name(
        value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TIMEOUT_SCALE_VARIABLE, value)
    with pytest.raises(ValueError, match=f"{TIMEOUT_SCALE_VARIABLE} must be a number >= 1, "
                                         f"got '{value}'"):
        timeout_scale()


def test_without_the_variable_the_scale_follows_the_load_per_core(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TIMEOUT_SCALE_VARIABLE, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    for load, scale in ((0.3, 1.0), (2.0, 1.0), (5.0, 2.5), (13.0, 6.5), (60.0, 10.0)):
        monkeypatch.setattr(os, "getloadavg", lambda load=load: (load, 0.0, 0.0))
        assert timeout_scale() == scale, load

    def no_load() -> tuple[float, float, float]:
        raise OSError("no load average here")

    monkeypatch.setattr(os, "getloadavg", no_load)
    assert timeout_scale() == 1.0


def test_wait_until_returns_what_the_check_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TIMEOUT_SCALE_VARIABLE, "1")
    calls = []

    def third_time() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise KeyError("not there yet")  # ignored: counts as not yet
        return "found"

    assert wait_until(third_time, "the third call", 5, ignore=(KeyError,),
                      interval=0.001) == "found"
    assert len(calls) == 3


def test_a_wait_that_times_out_says_what_it_waited_for_and_what_it_saw(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TIMEOUT_SCALE_VARIABLE, "2")
    with pytest.raises(AssertionError) as failed:
        wait_until(lambda: False, "a bestmove line", 0.01, context=lambda: "info depth 3",
                   interval=0.001)
    assert str(failed.value) == ("waited 0 s (0.01 s x load scale 2.0) for a bestmove line; "
                                 "saw: info depth 3")

    def broken() -> str:
        raise RuntimeError("page gone")

    with pytest.raises(AssertionError, match=r"for the plot; \(reading the context failed: "
                                             r"RuntimeError\('page gone'\)\)"):
        wait_until(lambda: 0, "the plot", 0.01, context=broken, interval=0.001)
    with pytest.raises(KeyError):  # an exception not named in ignore is the check's failure
        wait_until(lambda: {}["x"], "x", 0.01)
