"""Rule parity with cutechess-cli (chessmoe.play.parity): the replay engine, the manager's
command line, and -- where cutechess-cli is built -- games the kit ended under each of its
rules, replayed by cutechess-cli, end the same way."""

from __future__ import annotations

import io
import json
from pathlib import Path

import chess
import pytest

from chessmoe._io.jsonl import append_record
from chessmoe.play.match import Adjudication, MoveOutcome, play_game
from chessmoe.play.parity import (
    ParityGame,
    expected_description,
    find_manager,
    manager_command,
    pick_games,
    run_parity,
    serve,
)
from chessmoe.records import GameRecord


class Scripted:
    def __init__(self, name: str, moves: list[tuple[str, int | None]]) -> None:
        self.name, self.moves, self.index = name, moves, 0

    def new_game(self) -> None:
        self.index = 0

    def move(self, board: chess.Board) -> MoveOutcome:
        uci, score = self.moves[self.index]
        self.index += 1
        return MoveOutcome(chess.Move.from_uci(uci), score)

    def close(self) -> None:
        pass


FOOLS = play_game(Scripted("w", [("f2f3", 5), ("g2g4", -30)]),
                  Scripted("b", [("e7e5", 10), ("d8h4", 10000)]), chess.STARTING_FEN)


def _uci(record: GameRecord, commands: str) -> list[str]:
    sink = io.StringIO()
    serve(record, io.StringIO(commands), sink)
    return sink.getvalue().splitlines()


def test_replay_engine_answers_with_the_record() -> None:
    out = _uci(FOOLS, "uci\nisready\nposition startpos moves f2f3 e7e5\ngo nodes 5\n"
                      "position startpos moves f2f3 e7e5 g2g4\ngo\nquit\n")
    assert out[:4] == ["id name chessmoe-replay", "id author chessmoe", "uciok", "readyok"]
    # White's second move and White's second score; then Black's second of each
    assert out[4:] == ["info depth 1 score cp -30", "bestmove g2g4",
                       "info depth 1 score cp 10000", "bestmove d8h4"]


def test_replay_engine_off_the_record_plays_the_first_legal_move() -> None:
    off = _uci(FOOLS, "position startpos moves e2e4\ngo\n")
    assert off[0].startswith("info string parity:") and off[1] == "bestmove a7a5"
    # no recorded score: no info line (cutechess reads a forced move)
    silent = play_game(Scripted("w", [("f2f3", None), ("g2g4", None)]),
                       Scripted("b", [("e7e5", None), ("d8h4", None)]), chess.STARTING_FEN)
    assert _uci(silent, "position startpos\ngo\n") == ["bestmove f2f3"]


def test_descriptions_and_agreement() -> None:
    assert expected_description("0-1", "checkmate") == "Black mates"
    assert expected_description("1-0", "resign_adjudication") == "White wins by adjudication"
    assert expected_description("1/2-1/2", "repetition") == "Draw by 3-fold repetition"
    same = ParityGame("m", "s", "0-1", "checkmate", 4, "0-1", "Black mates", 4, True)
    assert same.agree
    assert not ParityGame("m", "s", "1/2-1/2", "repetition", 7, "1/2-1/2",
                          "Draw by 3-fold repetition", 8, False).agree  # one ply later
    assert not ParityGame("m", "s", "1-0", "resign_adjudication", 9, "1-0", "White mates", 9,
                          True).agree  # same result, other reason


def test_manager_command_passes_the_kits_adjudication(tmp_path: Path) -> None:
    command = manager_command("cutechess-cli", tmp_path / "g.jsonl", "00001-0",
                              Adjudication(), tmp_path / "b.pgn", tmp_path / "o.pgn")
    text = " ".join(command)
    assert "-draw movenumber=30 movecount=4 score=20" in text
    assert "-resign movecount=5 score=600 -maxmoves 300" in text
    assert "twosided" not in text and command.count("arg=serve") == 2
    two = manager_command("c", "g", "s", Adjudication(resign_two_sided=True), "b", "o")
    assert "twosided=true" in two


def test_pick_games_round_robin_over_matches(tmp_path: Path) -> None:
    for match, count in (("a", 3), ("b", 1)):
        (tmp_path / match).mkdir()
        for k in range(count):
            append_record(tmp_path / match / "games-000.jsonl",
                          FOOLS.in_match(slot=f"{k:05d}-0").to_json())
    picked = [(m, r.slot) for m, _, r in pick_games(tmp_path, 3)]
    assert picked == [("a", "00000-0"), ("b", "00000-0"), ("a", "00001-0")]
    assert len(pick_games(tmp_path, 99)) == 4


# --- against cutechess-cli itself ------------------------------------------------------------

def _games(rules: Adjudication) -> list[GameRecord]:
    """Games that end under each rule, played by the kit under ``rules`` (with
    ``draw_movenumber=2, draw_movecount=2``: 4 quiet plies in a row after move 2 draw)."""
    resign = play_game(Scripted("w", [(f"{f}2{f}3", -700) for f in "abcdef"]),
                       Scripted("b", [(f"{f}7{f}6", 700) for f in "abcdef"]),
                       chess.STARTING_FEN, rules)
    # scores of 50: never quiet; the start position occurs a third time at ply 8
    repetition = play_game(Scripted("w", [("g1f3", 50), ("f3g1", 50)] * 3),
                           Scripted("b", [("g8f6", 50), ("f6g8", 50)] * 3),
                           chess.STARTING_FEN, rules)
    # quiet throughout, but Black's pawn move at ply 4 restarts cutechess's count: ply 7
    quiet = play_game(Scripted("w", [("g1f3", 0), ("f3g1", 0), ("g1f3", 0), ("f3g1", 0)]),
                      Scripted("b", [("b8c6", 0), ("a7a6", 0), ("c6b8", 0)]),
                      chess.STARTING_FEN, rules)
    # K v KN: drawn by material from the start, but cutechess-cli checks its board only
    # after a move, so one move is played
    bare = play_game(Scripted("w", [("e1d1", 0)]), Scripted("b", []),
                     "4k3/8/8/8/8/8/8/4K2n w - - 0 1", rules)
    # two quiet plies from a clock of 98: the hundredth half-move draws (the scripts hold
    # spare moves, so a rule that waited for a 101st would play on)
    fifty = play_game(Scripted("w", [("b2b3", 50), ("b3b2", 50)]),
                      Scripted("b", [("e5e4", 50), ("e4e5", 50)]),
                      "8/8/8/4k3/8/8/1R6/4K3 w - - 98 80", rules)
    return [FOOLS, resign, repetition, quiet, bare, fifty]


def test_the_parity_games_end_by_every_rule() -> None:
    games = _games(Adjudication(draw_movenumber=2, draw_movecount=2))
    assert [(g.termination, g.plies) for g in games] == [
        ("checkmate", 4), ("resign_adjudication", 9), ("repetition", 8),
        ("draw_adjudication", 7), ("insufficient_material", 1), ("fifty_moves", 2)]


@pytest.mark.tools
def test_cutechess_cli_ends_every_kit_game_the_same_way(tmp_path: Path) -> None:
    manager = find_manager()
    if manager is None:
        pytest.skip("cutechess-cli is not built: run 'make cutechess' (needs Qt 6)")
    rules = Adjudication(draw_movenumber=2, draw_movecount=2)
    tournament = tmp_path / "t"
    (tournament / "m").mkdir(parents=True)
    (tournament / "spec.json").write_text(json.dumps({"adjudication": rules.__dict__}))
    games = _games(rules)
    assert {g.termination for g in games} >= {"checkmate", "resign_adjudication",
                                              "draw_adjudication", "insufficient_material",
                                              "fifty_moves"}
    for k, game in enumerate(games):
        append_record(tournament / "m" / "games-000.jsonl",
                      game.in_match(slot=f"{k:05d}-0").to_json())
    report = run_parity(tournament, manager, games=len(games), out=tmp_path / "p.json",
                        progress=False)
    disagree = [g for g in report.games if not g.agree]
    assert not disagree, disagree
    assert json.loads((tmp_path / "p.json").read_text())["agreeing"] == len(games)


def test_pick_games_replays_every_termination_first(tmp_path: Path) -> None:
    """A rare ending (here the last game of the order) is picked even when the round-robin
    order alone would stop before it; then the order fills the rest, and the result stays in
    round-robin order."""
    from dataclasses import replace

    (tmp_path / "a").mkdir()
    for k in range(6):
        ending = "fifty_moves" if k == 5 else FOOLS.termination
        append_record(tmp_path / "a" / "games-000.jsonl",
                      replace(FOOLS.in_match(slot=f"{k:05d}-0"), termination=ending).to_json())
    picked = [r.slot for _, _, r in pick_games(tmp_path, 3, each=1)]
    assert picked == ["00000-0", "00001-0", "00005-0"]
    assert [r.slot for _, _, r in pick_games(tmp_path, 3, each=0)] == [
        "00000-0", "00001-0", "00002-0"]
    assert len(pick_games(tmp_path, 99)) == 6
