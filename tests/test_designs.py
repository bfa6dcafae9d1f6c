"""A tournament design declared once (chessmoe.designs): the registry holds every design
module, each reader iterates it, and a new design declared in one object reaches the player,
the claims table (rows, sources, notes), the runs in progress and the claims notebook's
parameters without any reader naming it (docs/layers.md walks through it); the README's answer
names the rows it shows by the topics the designs declare."""

from __future__ import annotations

import importlib
import json
import math
import pkgutil
from pathlib import Path

import pytest

from chessmoe import config, designs
from chessmoe.cli._common import PROFILE_NAMES
from chessmoe.designs import registry
from chessmoe.designs.base import Design, Evidence, Plan, TableNotes, versus
from chessmoe.designs.rows import NOT_PLAYED, POST_HOC, ClaimTest, arm_claim, registered
from chessmoe.estimates import arm_estimate
from chessmoe.play import designs as play_designs
from chessmoe.played import planned_pairs
from chessmoe.report import answer, artefacts, params, progress, summary, verdicts
from chessmoe.report.figures import claims as figures
from tests.helpers import plant_games

# --- the registry ---------------------------------------------------------------------------


def test_every_design_module_is_registered_once_and_every_reader_sees_it() -> None:
    """Each module of chessmoe.designs declaring a ``DESIGN`` is in the registry (a design
    file left out of it would be read by no one), names and keywords are unique, and each
    registered design with a profile is a profile, a CLI profile name and a playable design."""
    declared = {}
    for module in pkgutil.iter_modules(designs.__path__):
        found = getattr(importlib.import_module(f"chessmoe.designs.{module.name}"),
                        "DESIGN", None)
        if found is not None:
            declared[module.name] = found
    assert set(declared.values()) == set(registry.REGISTERED)
    assert len({d.name for d in registry.REGISTERED}) == len(registry.REGISTERED)
    assert len({d.keyword for d in registry.REGISTERED}) == len(registry.REGISTERED)
    assert registry.MAIN == registry.REGISTERED[0].name == "powered"
    for design in registry.REGISTERED:
        assert design.name in play_designs.DESIGNS
        assert isinstance(design.plan(Path("/nowhere")), Plan)
        if design.profile:
            profile = config.PROFILES[design.name]
            assert (profile.description, profile.tournament.design) == (design.profile,
                                                                         design.name)
            assert design.name in PROFILE_NAMES
    assert tuple(config.PROFILES) == PROFILE_NAMES
    with pytest.raises(Exception, match="unknown registered design 'nope'; known: powered"):
        registry.design("nope")


# --- a new design, declared in one object ---------------------------------------------------

TOPIC = "a toy design"
MATCH = "staged-vs-regular-b8-n100"
PAIRS = 6


def _plan(experts_root: object, *, pairs: int = PAIRS) -> Plan:
    return Plan("toy", (versus("staged", "regular", pairs, (("kind", "toy"),)),))


def _claims(evidence: Evidence) -> list[ClaimTest]:
    directory = evidence.tournament("toy")
    if directory is None:
        return []
    records = evidence.arms("toy").get(MATCH, [])
    games = 2 * planned_pairs(directory, PAIRS).get(MATCH, PAIRS)
    test = arm_claim(TOPIC, "staged beats regular in the toy design (no such control)",
                     arm_estimate(MATCH, records), +1, "", POST_HOC)
    return [registered(test, records, games)]


TOY = Design("toy", _plan, profile="", registered=True, claims=_claims, rows="toy",
             notes=TableNotes(registration="The toy rows were registered by the test."),
             awaited=("toy-a", "toy-b"))


@pytest.fixture
def with_toy(monkeypatch: pytest.MonkeyPatch) -> Design:
    monkeypatch.setattr(registry, "REGISTERED", (*registry.REGISTERED, TOY))
    return TOY




def test_a_new_design_is_played_and_its_rows_are_registered_before_its_first_game(
        tmp_path: Path, with_toy: Design) -> None:
    """The player builds its plan by name; its one row is in the claims table, not played,
    once its tournament is given (never without), after every other design's rows."""
    spec = play_designs.registered_spec("toy", tmp_path)
    assert [m.name for m in spec.matches] == [MATCH] and spec.matches[0].pairs == PAIRS
    assert spec.matches[0].first.experts == str(tmp_path / "staged")
    assert play_designs.untrained(spec) == [str(tmp_path / "staged"), str(tmp_path / "regular")]
    rows = verdicts.claims(tmp_path / "powered", tmp_path / "experts", toy=tmp_path / "toy")
    assert [r.topic for r in rows] == [TOPIC]
    assert rows[0].verdict == NOT_PLAYED and math.isnan(rows[0].p_holm)
    assert verdicts.claims(tmp_path / "powered", tmp_path / "experts") == []
    with pytest.raises(Exception, match="no registered design 'toys'"):
        verdicts.claims(tmp_path / "powered", tmp_path / "experts", toys=tmp_path)


def test_a_new_designs_complete_match_joins_the_holm_family(tmp_path: Path,
                                                            with_toy: Design) -> None:
    """Six pairs each 1.5 of 2 (0.75 a pair, no spread): the estimate is above zero with a zero
    standard error, p = 0, so the row supports its direction and is adjusted with the family;
    at five of six pairs it is in progress and no test."""
    toy = tmp_path / "toy"
    (toy).mkdir()
    (toy / "spec.json").write_text(json.dumps({"matches": [{"name": MATCH, "pairs": PAIRS}]}))
    plant_games(toy / MATCH, [(1.0, 0.5)] * (PAIRS - 1))
    [running] = verdicts.claims(tmp_path / "powered", tmp_path / "experts", toy=toy)
    assert running.verdict == f"in progress: {2 * PAIRS - 2} of {2 * PAIRS} planned games of " \
                              "this match"
    plant_games(toy / MATCH, [(1.0, 0.5)])
    [done] = verdicts.claims(tmp_path / "powered", tmp_path / "experts", toy=toy)
    assert done.verdict == "supports" and done.p_holm == 0.0 and done.kind == POST_HOC


def test_a_new_design_reaches_the_claims_table_notes_and_the_notebook(
        tmp_path: Path, with_toy: Design) -> None:
    """The table's source line names its tournament for its rows and its registration note
    follows the other designs'; the claims notebook and the figures' job table pass its
    folder (the smoke layout's under its prefix)."""
    artefact = figures.table_claims(tmp_path / "powered", tmp_path / "experts", tmp_path / "out",
                                    toy=tmp_path / "toy")
    assert artefact.table is not None and list(artefact.table["Topic"]) == [TOPIC]
    text = (tmp_path / "out" / "claims.md").read_text()
    assert "; toy tournament (0 games) for the toy rows;" in text
    notes = text.split("\n")
    matched = next(i for i, line in enumerate(notes) if "parameter-matched rows" in line)
    toy = next(i for i, line in enumerate(notes) if "The toy rows were registered" in line)
    assert toy > matched
    assert params.ClaimsParams().tournaments()["toy"] == "../results/tournaments/toy"
    assert artefacts.LAYOUTS["smoke"].design_dirs(tmp_path)["toy"] == str(
        tmp_path / "tournaments" / "smoke-toy")


def test_every_topic_the_readme_answer_names_is_a_row_of_the_committed_claims_table() -> None:
    """The answer (chessmoe.report.answer) picks its rows by topic: a topic a design no longer
    writes would drop its rows from the README without an error. Each control's tournament is
    a registered design."""
    checkout = Path(__file__).resolve().parents[1]  # not the working directory: another test
    # in the same worker may have changed it
    committed = {r.topic for r in summary.read_claims(checkout / "figures" / "claims.csv")}
    named = {t for t, _ in answer.CONTROL_TOPICS} | {t for topics in answer.SECTIONS.values()
                                                      for t in topics}
    assert named - committed == set()
    assert {answer.SETTINGS_TOPIC} == {t.split(" ", 1)[0] for t in committed
                                       if t.startswith(answer.SETTINGS_TOPIC)}
    assert {d for _, d in answer.CONTROL_TOPICS} <= {d.name for d in registry.REGISTERED}


def test_a_new_designs_awaited_networks_are_listed_once_one_has_begun(
        tmp_path: Path, with_toy: Design) -> None:
    (tmp_path / "experts" / "small" / "toy-a").mkdir(parents=True)
    assert ("small/toy-b", "not begun") in progress.training_not_begun(tmp_path)
    assert ("small/toy-a", "not begun") not in progress.training_not_begun(tmp_path)
    (tmp_path / "experts" / "small" / "toy-a").rmdir()
    assert ("small/toy-b", "not begun") not in progress.training_not_begun(tmp_path)
