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
