"""A tournament's spec.json reads into one frozen record (:class:`TournamentPlan`): every
committed spec loads with its matches, older shapes keep their meaning for the keys they
lack, and a missing or malformed spec is one line naming the file."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from chessmoe._io.errors import KitError
from chessmoe.records import PlannedMatch, PlannedPlayer, SpecError, TournamentPlan

ROOT = Path(__file__).resolve().parents[1]
SPECS = sorted((ROOT / "results" / "tournaments").glob("*/spec.json"))


@pytest.mark.skipif(not SPECS, reason="no committed tournament in this checkout")
@pytest.mark.parametrize("path", SPECS, ids=[p.parent.name for p in SPECS])
def test_every_committed_spec_loads_with_each_of_its_matches(path: Path) -> None:
    raw = json.loads(path.read_text())
    plan = TournamentPlan.read(path.parent)  # the directory or the file: the same record
    assert plan == TournamentPlan.read(path)
    assert len(plan.matches) == len(raw["matches"])
    for match, data in zip(plan.matches, raw["matches"], strict=True):
        assert (match.name, match.pairs, dict(match.labels), match.openings_group) == (
            data["name"], data["pairs"], data["labels"], data["openings_group"])
        assert match.sprt == (None if "sprt" not in data else tuple(sorted(data["sprt"].items())))
        assert [p.name for p in match.players] == [data["first"]["name"],
                                                    data["second"]["name"]]
        for player, side in zip(match.players, ("first", "second"), strict=True):
            assert player.kind == data[side]["kind"]
            assert {k for k, _ in player.settings} == set(data[side]) - {"name"}
    assert plan.planned_games == sum(2 * m["pairs"] for m in raw["matches"])
    assert plan.draw_rules == raw["adjudication"].get("draw_rules", "claim")
    assert dict(plan.adjudication) == raw["adjudication"]
    assert plan.games_at_once == raw["games_at_once"]


def test_the_record_is_frozen_and_equal_as_its_json_is_equal() -> None:
    data = {"matches": [{"name": "a", "pairs": 2, "labels": {"kind": "method", "nodes": 100},
                         "first": {"name": "x", "kind": "mcts", "options": {"b": 1, "a": [2]}},
                         "second": {"name": "y", "kind": "uci", "command": ["sf"]}}],
            "adjudication": {"draw_rules": "cutechess"}}
    plan = TournamentPlan.from_json(data)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.matches[0].pairs = 3  # type: ignore[misc]
    assert hash(plan) == hash(TournamentPlan.from_json(json.loads(json.dumps(data))))
    reordered = {"adjudication": data["adjudication"], "matches": [
        {k: v for k, v in reversed(data["matches"][0].items())}]}
    assert TournamentPlan.from_json(reordered) == plan  # an object's key order is no change
    other = json.loads(json.dumps(data))
    other["matches"][0]["first"]["options"]["a"] = [3]
    assert TournamentPlan.from_json(other) != plan  # any player setting is
    match = plan.matches[0]
    assert match.kind == "method" and match.label("nodes") == 100 and match.games == 4
    assert match.first == PlannedPlayer("x", (("kind", "mcts"), ("options", (("a", (2,)),
                                                                           ("b", 1)))))
    assert plan.match("a") is match and plan.match("b") is None


def _strip(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` as the kit wrote specs before opening groups, backends, tree searches, draw
    rules and the suite's record existed (the oldest shape committed)."""
    old = {k: v for k, v in data.items()
           if k not in ("games_at_once", "openings_draw", "openings_suite")}
    old["adjudication"] = {k: v for k, v in data["adjudication"].items()
                           if k not in ("draw_rules", "draw_from_fen_move_number",
                                        "resign_two_sided")}
    old["matches"] = [{**{k: v for k, v in m.items() if k != "openings_group"},
                       **{side: {k: v for k, v in m[side].items()
                                 if k not in ("backend", "search")}
                          for side in ("first", "second")}}
                      for m in data["matches"]]
    return old


def test_an_older_spec_keeps_the_meaning_of_the_keys_it_lacks(tmp_path: Path) -> None:
    new = {"name": "t", "openings": "embedded", "seed": 1, "pairs_per_shard": 10,
           "games_at_once": 4, "openings_draw": "per group", "openings_suite": {"sha256": "0"},
           "adjudication": {"draw_rules": "cutechess", "draw_from_fen_move_number": False,
                            "resign_two_sided": False, "max_plies": 600},
           "matches": [{"name": "m", "pairs": 3, "labels": {"kind": "method"},
                        "openings_group": "g",
                        "first": {"name": "staged", "kind": "mcts", "backend": "onnx",
                                  "search": "native"},
                        "second": {"name": "sf", "kind": "uci", "backend": "torch"}}]}
    (tmp_path / "spec.json").write_text(json.dumps(_strip(new)))
    plan = TournamentPlan.read(tmp_path)
    match = plan.matches[0]
    assert match.openings_group is None and match.sprt is None
    assert match.first is not None and match.second is not None
    assert (match.first.backend, match.first.search) == ("torch", "python")
    assert match.second.search is None  # only the kit's MCTS players search a tree
    assert plan.draw_rules == "claim" and dict(plan.adjudication) == {"max_plies": 600}
    assert plan.games_at_once == 1  # before workers played games side by side
    current = TournamentPlan.from_json(new)
    assert current.matches[0].first is not None
    assert (current.matches[0].first.backend, current.matches[0].first.search,
            current.draw_rules, current.games_at_once) == ("onnx", "native", "cutechess", 4)
    # the fewest keys a report reads: no players, no labels, no adjudication
    (tmp_path / "spec.json").write_text('{"matches": [{"name": "m", "pairs": "4"}]}')
    plan = TournamentPlan.read(tmp_path)
    assert plan.matches == (PlannedMatch("m", 4),) and plan.planned_games == 8
    assert plan.matches[0].players == () and plan.draw_rules == "claim"
    (tmp_path / "spec.json").write_text('{"adjudication": {"draw_rules": "cutechess"}}')
    assert TournamentPlan.read(tmp_path) == TournamentPlan((), (("draw_rules", "cutechess"),))


def test_the_oldest_committed_shape_still_loads() -> None:
    small = ROOT / "results" / "tournaments" / "small" / "spec.json"
    if not small.is_file():
        pytest.skip("no committed small tournament in this checkout")
    data = json.loads(small.read_text())
    plan, old = TournamentPlan.from_json(data), TournamentPlan.from_json(_strip(data))
    assert [m.name for m in old.matches] == [m.name for m in plan.matches]
    assert {p.backend for m in old.matches for p in m.players} == {"torch"}
    assert {m.openings_group for m in old.matches} == {None}


def _one_line_naming(error: pytest.ExceptionInfo[SpecError], path: Path) -> str:
    text = str(error.value)
    assert isinstance(error.value, KitError) and isinstance(error.value, ValueError)
    assert "\n" not in text and text.startswith(f"{path}: ")
    return text


def test_a_missing_spec_is_one_line_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as error:
        TournamentPlan.read(tmp_path)  # a directory without its spec
    assert "missing" in _one_line_naming(error, tmp_path / "spec.json")
    with pytest.raises(SpecError) as error:
        TournamentPlan.read(tmp_path / "nowhere" / "spec.json")
    _one_line_naming(error, tmp_path / "nowhere" / "spec.json")


@pytest.mark.parametrize(("text", "says"), [
    ('{"matches": [', "Expecting"),
    ("[1, 2]", "the spec is list, not an object"),
    ('{"matches": {"a": 1}}', "'matches' is dict, not a list"),
    ('{"matches": [7]}', "matches[0] is int"),
    ('{"matches": [{"pairs": 2}]}', "matches[0] has no name"),
    ('{"matches": [{"name": "m"}]}', "match 'm' plans no 'pairs'"),
    ('{"matches": [{"name": "m", "pairs": "many"}]}', "'pairs' is 'many', not a count"),
    ('{"matches": [{"name": "m", "pairs": 1, "first": "x"}]}',
     "the first player of match 'm' is str"),
    ('{"matches": [{"name": "m", "pairs": 1, "second": {"kind": "uci"}}]}',
     "the second player of match 'm' names no player"),
    ('{"matches": [{"name": "m", "pairs": 1, "labels": [1]}]}', "the labels of match 'm'"),
    ('{"matches": [], "adjudication": "cutechess"}', "'adjudication' is str"),
    ('{"matches": [], "games_at_once": "some"}', "'games_at_once' is 'some', not a count"),
    ('{"matches": [\n{"name": "m",\n "pairs": 1,\n "first": 3}]}', "first player"),
])
def test_a_malformed_spec_is_one_line_naming_the_file_and_the_fault(
        tmp_path: Path, text: str, says: str) -> None:
    (tmp_path / "spec.json").write_text(text)
    with pytest.raises(SpecError) as error:
        TournamentPlan.read(tmp_path)
    assert says in _one_line_naming(error, tmp_path / "spec.json")


def test_what_the_play_layer_writes_now_reads_back_match_for_match() -> None:
    from chessmoe.play.match import Adjudication, PlayerSpec
    from chessmoe.play.tournament import MatchSpec, TournamentSpec

    spec = TournamentSpec("t", (
        MatchSpec("a", PlayerSpec.mcts("staged", nodes=400), PlayerSpec(name="sf", kind="uci",
                                                                        command=("sf",)),
                  pairs=5, labels=(("kind", "method"),), openings_group="g"),
        MatchSpec("b", PlayerSpec.mcts("x"), PlayerSpec.mcts("y"), pairs=2)),
        adjudication=Adjudication(draw_rules="cutechess"))
    written = json.loads(json.dumps(spec.to_dict()))
    plan = TournamentPlan.from_json(written)
    assert [(m.name, m.pairs, m.openings_group) for m in plan.matches] == [
        ("a", 5, "g"), ("b", 2, "b")]
    a = plan.matches[0]
    assert a.first is not None and a.second is not None
    assert (a.kind, a.first.name, a.first.setting("nodes"), a.second.setting("command")) == (
        "method", "staged", 400, ("sf",))
    assert (a.first.search, a.second.search) == (spec.matches[0].first.search, None)
    assert plan.draw_rules == "cutechess" and plan.planned_games == 14
