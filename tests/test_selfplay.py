"""The self-play recipe: seeded per-game settings, and real games with Stockfish."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import chess
import pytest

from chessmoe.games.pgn import SkipCounter, iter_games
from chessmoe.games.selfplay import SelfPlayConfig, game_settings, generate


def test_game_settings_are_a_pure_function_of_seed_and_index() -> None:
    config = SelfPlayConfig(seed=5)
    first = [game_settings(config, i) for i in range(50)]
    assert first == [game_settings(config, i) for i in range(50)]
    assert first != [game_settings(SelfPlayConfig(seed=6), i) for i in range(50)]
    for settings in first:
        assert 2 <= len(settings.random_moves) <= 6
        for side in (settings.white, settings.black):
            assert 4 <= side.skill <= 20
            assert 500 <= side.nodes <= 30000
        board = chess.Board()
        for uci in settings.random_moves:
            assert chess.Move.from_uci(uci) in board.legal_moves
            board.push_uci(uci)
    assert len({s.random_moves for s in first}) > 40  # openings vary


@pytest.mark.parametrize("kwargs", [{"skill": (3, 21)}, {"nodes": (0, 10)},
                                    {"random_plies": (5, 2)}, {"games": 0}])
def test_config_rejects_bad_ranges(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        SelfPlayConfig(**kwargs)  # type: ignore[arg-type]


@pytest.mark.stockfish
def test_generate_plays_real_games_and_resumes(stockfish: Path, tmp_path: Path) -> None:
    config = SelfPlayConfig(games=3, seed=1, nodes=(50, 120), max_plies=60, resign_plies=4)
    out = tmp_path / "games.pgn.gz"
    log = tmp_path / "games.pgn.gz.parts.jsonl"
    # A previous run finished game 0 and was cut while writing game 1.
    fake = '[Event "earlier run"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n'
    log.write_text(json.dumps({"index": 0, "pgn": fake, "plies": 7, "result": "1-0",
                               "detail": "checkmate", "extra": {}}) + "\n" + '{"index": 1, "pg')
    manifest = generate(out, config, workers=1, engine=str(stockfish), progress=False)
    assert not log.exists()
    assert manifest["counts"]["games"] == 3
    assert manifest["engine"].startswith("Stockfish")
    text = gzip.decompress(out.read_bytes()).decode()
    assert text.startswith('[Event "earlier run"]')  # game 0 was kept, not replayed
    assert text.count('[Event "chessmoe self-play sample"]') == 2
    skips = SkipCounter()
    games = list(iter_games(out, skips=skips, extract=lambda b: None))
    assert skips.seen == 3
    for game in games[1:]:
        assert game.headers["TerminationDetail"] in {
            "checkmate", "stalemate", "threefold_repetition", "fifty_moves",
            "insufficient_material", "resign_adjudication", "max_plies_adjudication"}
        assert game.plies <= 60
    sidecar = json.loads((tmp_path / "games.pgn.gz.manifest.json").read_text())
    assert sidecar["recipe"]["seed"] == 1 and sidecar["sha256"] == manifest["sha256"]


def _resign_game(scores: tuple[int, ...]) -> tuple[str, str, int]:
    from chessmoe.games.selfplay import play_game
    from tests.helpers import ScriptedEngine

    config = SelfPlayConfig(seed=3, random_plies=(0, 0), resign_cp=1000, resign_plies=4,
                            max_plies=12)
    played = play_game(ScriptedEngine(scores, seed=11), config, 0)  # type: ignore[arg-type]
    return played.result, played.detail, played.plies


def test_resignation_needs_one_side_favoured_for_the_whole_run() -> None:
    """Four plies in a row beyond 1000 cp for White resign the game for White; scores that
    swing between +1200 and -1200 never do (the run restarts when the favoured side flips),
    so that game runs to the ply cap."""
    assert _resign_game((1200,) * 12) == ("1-0", "resign_adjudication", 4)
    assert _resign_game((-1200,) * 12) == ("0-1", "resign_adjudication", 4)
    assert _resign_game((0, 0, -1200, -1200, -1200, -1200) + (0,) * 6) == (
        "0-1", "resign_adjudication", 6)
    assert _resign_game((1200, -1200) * 6) == ("1/2-1/2", "max_plies_adjudication", 12)
    assert _resign_game((1200, 1200, 1200, -1200) * 3) == (
        "1/2-1/2", "max_plies_adjudication", 12)
