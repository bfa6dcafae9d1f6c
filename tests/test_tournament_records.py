"""Every committed tournament's recorded players are the players the code builds for its
profile: a resume passes the evidence guard (the recorded spec compared match by match)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from chessmoe import config
from chessmoe.play import designs, tournament

ROOT = Path(__file__).resolve().parents[1]
TOURNAMENTS = ROOT / "results" / "tournaments"
COMMITTED = sorted(p.parent.name for p in TOURNAMENTS.glob("*/spec.json")
                   if p.parent.name in config.PROFILES)


def _design(profile: str) -> tournament.TournamentSpec:
    chosen = config.profile(profile)
    experts = ROOT / "results" / "experts" / config.experts_of(chosen)
    spec = designs.build_design(chosen.tournament.design, experts,
                                pairs=chosen.tournament.pairs)
    return tournament.with_recorded_search(spec, TOURNAMENTS / profile)


@pytest.mark.skipif(not COMMITTED, reason="no committed tournament here")
@pytest.mark.parametrize("profile", COMMITTED)
def test_each_committed_tournament_resumes_with_the_players_it_recorded(
        profile: str, tmp_path: Path) -> None:
    recorded = json.loads((TOURNAMENTS / profile / "spec.json").read_text())
    spec = _design(profile)
    built_list = json.loads(json.dumps(spec.to_dict()))["matches"]
    built = {m["name"]: m for m in built_list}
    names = [m["name"] for m in built_list]
    repeated = sorted(n for n, k in Counter(names).items() if k > 1)
    assert not repeated, f"{profile}: the design builds these matches twice: {repeated}"
    recorded_names = {m["name"] for m in recorded["matches"]}
    # the design builds exactly the recorded matches: none extra, none missing
    assert set(built) == recorded_names, (
        f"{profile}: built but not recorded {sorted(set(built) - recorded_names)}; "
        f"recorded but not built {sorted(recorded_names - set(built))}")
    for match in recorded["matches"]:
        assert (tournament._match_identity(built[match["name"]])
                == tournament._match_identity(match)), match["name"]
    # and the guard itself (on a copy: a changed match would raise OtherRunError)
    shutil.copy(TOURNAMENTS / profile / "spec.json", tmp_path / "spec.json")
    tournament._write_spec(spec, tmp_path)
