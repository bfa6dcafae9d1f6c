"""Committed games play again move for move: the settings tournament's staged-vs-regular games
at 100 nodes (compiled search, ONNX Runtime fp32, cutechess rules), replayed by today's code
through the multi-game runner (two games at once, their mini-batches evaluated together)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chessmoe.play.match import Adjudication, PlayerSpec, play_match
from chessmoe.play.openings import GameSlot

ROOT = Path(__file__).resolve().parents[1]
TOURNAMENT = ROOT / "results" / "tournaments" / "settings"
MATCH = "staged-vs-regular-b8-n100"
GAMES = ("00003-0", "00004-1")  # the match's two shortest games (9 and 49 plies)


@pytest.mark.slow
@pytest.mark.skipif(not (TOURNAMENT / "spec.json").exists(),
                    reason="the committed settings tournament is not here")
def test_committed_games_replay_move_for_move(tmp_path: Path) -> None:
    spec = json.loads((TOURNAMENT / "spec.json").read_text())
    match = next(m for m in spec["matches"] if m["name"] == MATCH)
    players = []
    for side in ("first", "second"):
        recorded = match[side]
        player = PlayerSpec(name=recorded["name"], experts=str(ROOT / recorded["experts"]),
                            nodes=100, batch_size=8, backend="onnx", device="cpu",
                            search="native")
        # the players as the tournament recorded them (their fields, bar the path)
        assert {k: recorded[k] for k in ("nodes", "batch_size", "backend", "device", "search",
                                         "routing", "threads", "kind")} == \
            {k: getattr(player, k) for k in ("nodes", "batch_size", "backend", "device",
                                             "search", "routing", "threads", "kind")}
        players.append(player)
    records = [json.loads(line) for path in sorted((TOURNAMENT / MATCH).glob("games-*.jsonl"))
               for line in path.read_text().splitlines()]
    committed = {r["slot"]: r for r in records if r["slot"] in GAMES}
    assert sorted(committed) == sorted(GAMES)
    slots = [GameSlot(r["pair"], r["game"], r["opening"], r["fen"], r["first_is_white"])
             for r in committed.values()]
    played = play_match(players[0], players[1], slots, tmp_path / "games.jsonl",
                        rules=Adjudication.from_dict(spec["adjudication"]), concurrency=2)
    assert {g.slot: (list(g.moves), g.result, g.termination) for g in played} == {
        slot: (r["moves"], r["result"], r["termination"]) for slot, r in committed.items()}
