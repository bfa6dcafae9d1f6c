"""The games behind the figures: draw rules and checkouts counted from the game records."""

from __future__ import annotations

import json
from pathlib import Path

from chessmoe.played import PlayedBy, tournament_ledger, unrecorded
from chessmoe.records import GameProvenance, GameRecord
from chessmoe.report.artefacts import NotebookJob
from chessmoe.report.ledger import CUTECHESS, ledger_lines
from chessmoe.report.make_figures import _index


def _record(game: int, provenance: GameProvenance | None, date: str) -> GameRecord:
    return GameRecord(white="a", black="b", fen="8/8/8/8/8/8/8/8 w - - 0 1", result="1-0",
                      termination="checkmate", detail="", moves=("e2e4",), scores_white=(10,),
                      scores_black=(), seconds=1.0, pair=game // 2, game=game, date=date,
                      provenance=provenance)


def _write(match: Path, records: list[GameRecord]) -> None:
    match.mkdir(parents=True)
    (match / "games-000.jsonl").write_text(
        "".join(json.dumps(r.to_json()) + "\n" for r in records))


def _tournament(root: Path) -> Path:
    """Two matches: one played by two checkouts under cutechess rules, one by records that
    name no rules (an old tournament whose spec names none either: the claim reading),
    planned 4 and 6 games, and a third planned match (2 games) not started."""
    tour = root / "tournaments" / "mixed"
    clean = GameProvenance(commit="a" * 40, dirty=False, draw_rules=CUTECHESS)
    dirty = GameProvenance(commit="b" * 40, dirty=True, draw_rules=CUTECHESS)
    _write(tour / "m1", [_record(0, clean, "2026.11.25"), _record(1, clean, "2026.11.25"),
                         _record(2, dirty, "2026.11.26")])
    _write(tour / "m2", [_record(0, None, "2026.11.22"), _record(1, None, "2026.11.23")])
    (tour / "empty").mkdir()  # a match not started: no row
    (tour / "spec.json").write_text(json.dumps({"matches": [
        {"name": "m1", "pairs": 2}, {"name": "m2", "pairs": 3}, {"name": "empty", "pairs": 1}]}))
    return tour


def test_tournament_ledger_counts_rules_and_checkouts_per_match(tmp_path: Path) -> None:
    ledger = tournament_ledger(_tournament(tmp_path))
    assert [m.match for m in ledger] == ["m1", "m2"]
    m1, m2 = ledger
    assert (m1.games, m2.games) == (3, 2)
    assert m1.draw_rules == ((CUTECHESS, 3),)
    assert m1.played_by == (PlayedBy("a" * 40, False, 2), PlayedBy("b" * 40, True, 1))
    assert (m1.first_date, m1.last_date) == ("2026.11.25", "2026.11.26")
    assert m2.draw_rules == ((unrecorded("claim"), 2),)
    assert m2.played_by == (PlayedBy(None, None, 2),)
    assert tournament_ledger(tmp_path / "absent") == ()


def test_ledger_lines_count_the_games_outside_cutechess_rules(tmp_path: Path) -> None:
    _tournament(tmp_path)
    lines = ledger_lines({"tournaments/mixed": ["10_claims.ipynb"]}, tmp_path)
    text = "\n".join(lines)
    assert "3 of the 5 games behind these figures were played under cutechess rules; the " \
           "others are in `results/tournaments/mixed` (2)." in text
    row = next(line for line in lines if line.startswith("| `results/tournaments/mixed`"))
    assert "| 2 of 3 | 5 of 12 planned |" in row  # the match not started is still planned
    assert f"{CUTECHESS}: 3; claim (from spec.json; the records name none): 2" in row
    assert "`aaaaaaaa` clean: 2; commit not recorded: 2; `bbbbbbbb` dirty: 1" in row
    assert "2026.11.22 to 2026.11.26" in row and "`10_claims.ipynb`" in row
    assert ledger_lines({"tournaments/absent": ["x"]}, tmp_path) == []


def test_ledger_lines_say_all_when_every_game_is_cutechess(tmp_path: Path) -> None:
    prov = GameProvenance(commit="c" * 40, dirty=False, draw_rules=CUTECHESS)
    _write(tmp_path / "tournaments" / "t" / "m", [_record(0, prov, "2026.11.26")])
    text = "\n".join(ledger_lines({"tournaments/t": ["n.ipynb"]}, tmp_path))
    assert "All 1 game behind these figures were played under cutechess rules." in text
    assert "| 1 | 1 |" in text  # no spec.json: nothing planned is claimed


def test_index_carries_the_ledger_of_the_tournaments_the_notebooks_read(tmp_path: Path) -> None:
    tour = _tournament(tmp_path)
    job = NotebookJob(notebook="10_claims.ipynb",
                      params=lambda results, out: {"tournament_dir": str(tour)}, needs=())
    index = _index([job], tmp_path)
    assert "## Games behind the figures" in index
    assert "| `results/tournaments/mixed` | 2 of 3 | 5 of 12 planned |" in index
