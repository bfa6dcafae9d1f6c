"""The powered tournament's design and its control claims (play.tournament.powered_spec,
report.verdicts.claims)."""

from __future__ import annotations

from pathlib import Path

from chessmoe._io.jsonl import append_record
from chessmoe.play.records import GameRecord
from chessmoe.play.tournament import powered_spec
from chessmoe.report.verdicts import claims

METHODS = ("separated", "staged", "weighted-a4", "weighted-a10")


def _bundles(root: Path, names: tuple[str, ...]) -> None:
    for name in names:
        (root / name).mkdir(parents=True)
        (root / name / "manifest.json").write_text("{}")


def test_powered_arms_pairs_and_shared_openings(tmp_path: Path) -> None:
    """Methods get ``pairs`` pairs, every other arm ``arm_pairs``, the separated-long control
    ``pairs`` and regular-long ``arm_pairs``; all play the regular network on one openings
    group; a control arm exists only once its bundle is trained."""
    _bundles(tmp_path, ("regular", *METHODS, "separated-movecount2"))
    spec = powered_spec(str(tmp_path), pairs=7, arm_pairs=3)
    names = {m.name: m for m in spec.matches}
    assert [n for n in names if n.startswith(("separated-long", "regular-long"))] == []
    _bundles(tmp_path, ("separated-long", "regular-long"))
    spec = powered_spec(str(tmp_path), pairs=7, arm_pairs=3)
    names = {m.name: m for m in spec.matches}
    assert {names[f"{m}-b8-n100"].pairs for m in METHODS} == {7}
    assert names["separated-long-b8-n100"].pairs == 7
    assert names["regular-long-b8-n100"].pairs == 3
    assert names["regular-long-b8-n100"].label("kind") == "control"
    assert names["definition-movecount2-b8-n100"].pairs == 3
    assert "definition-movecount3-b8-n100" not in names  # not trained here
    assert {m.openings_group for m in spec.matches} == {"b8-n100"}
    assert {m.second.name for m in spec.matches} == {"regular"}
    assert len(names) == 4 + 3 + 1 + 2 + 1 + 2


def _write_arm(directory: Path, pair_scores: list[tuple[int, float, float]]) -> None:
    directory.mkdir(parents=True)
    game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", (), (), (), 0.0)
    for pair, (opening, first, second) in enumerate(pair_scores):
        for score in (first, second):
            record = game.in_match(pair=pair, opening=opening, first_score=score)
            append_record(directory / "games-000.jsonl", record.to_json())


def test_control_claims_compare_the_long_experts_with_both_baselines(tmp_path: Path) -> None:
    """separated-long scores 0.75 or 0.5 a pair, separated 0.5, regular-long as separated-long
    but 0 on opening 0: the long experts beat the separated ones (supports) and the regular
    network (supports), but not the regular network trained for the same total: +5.0 points
    (differences 50, 0 x 9: sd 15.8, se 5.0), interval [-4.8, +14.8], undecided."""
    ten = range(10)
    _write_arm(tmp_path / "separated-b8-n100", [(k, 0.5 + (k % 2) / 2, 0.5 - (k % 2) / 2)
                                                 for k in ten])
    _write_arm(tmp_path / "separated-long-b8-n100", [(k, 1, 0.5 if k % 3 else 0) for k in ten])
    _write_arm(tmp_path / "regular-long-b8-n100", [(k, 1, 0.5 if k % 3 else 0) if k
                                                   else (k, 0, 0) for k in ten])
    rows = [c for c in claims(tmp_path, tmp_path / "no-experts")
            if "starvation" in c.topic or "compute" in c.topic]
    assert [r.verdict for r in rows] == ["supports", "supports", "undecided at this scale",
                                         "undecided at this scale"]
    assert rows[0].ours.startswith("separated-long minus separated: +")
    assert "(20 games, 10 openings)" in rows[1].ours
    # separated (0.5 a pair) minus regular-long: +50 on opening 0, -25 on six, 0 on three
    assert rows[2].ours.startswith("separated minus regular-long: -10.0 points")
    assert rows[3].ours.startswith("separated-long minus regular-long: +5.0 points [-4.8, +14.8]")
