"""--set KEY=VALUE parsed by the field's declared type (chessmoe._io.overrides)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

from chessmoe._io.errors import KitError
from chessmoe._io.overrides import parse_overrides
from chessmoe.cli import main
from chessmoe.nets.training import TrainConfig


@dataclass(frozen=True)
class Record:
    name: str = "x"
    count: int = 1
    rate: float = 0.5
    flag: bool = True
    budget: int | None = None
    mode: Literal["a", "b"] = "a"
    sizes: tuple[int, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


def test_values_follow_the_declared_types() -> None:
    got = parse_overrides(Record, ["name=true", "count=3", "rate=1e-3", "flag=no",
                                   "budget=none", "mode=b", "sizes=1,2,3", "extra={\"k\": 2}"])
    assert got == {"name": "true", "count": 3, "rate": 0.001, "flag": False, "budget": None,
                   "mode": "b", "sizes": (1, 2, 3), "extra": {"k": 2}}
    assert parse_overrides(Record, ["budget=7", "sizes=[4, 5]"]) == {"budget": 7,
                                                                     "sizes": (4, 5)}
    assert parse_overrides(TrainConfig, ["model=tiny", "amp=fp16", "epochs=3",
                                         "max_lr=0.1"]) == {
        "model": "tiny", "amp": "fp16", "epochs": 3.0, "max_lr": 0.1}


@pytest.mark.parametrize(("item", "message"), [
    ("count=2.5", "expected an integer"), ("flag=maybe", "true or false"),
    ("mode=c", "one of a, b"), ("cuont=1", "did you mean count"), ("count", "KEY=VALUE"),
    ("sizes=[1,", "not a JSON list"),
])
def test_mistakes_are_one_line_errors(item: str, message: str) -> None:
    with pytest.raises(KitError, match=message):
        parse_overrides(Record, [item])


def test_the_cli_reports_a_bad_set_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--profile", "smoke", "--set", "modle=tiny"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean model" in err and "Traceback" not in err
