"""Games, matches and tournaments: adjudication, colours, resume, crashes, executors."""

from __future__ import annotations

import contextlib
import json
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import chess
import chess.pgn
import pytest

from chessmoe.play.adjudication import claim_adjudication
from chessmoe.play.designs import build_design
from chessmoe.play.grids import ablation_grid, method_grid, paper_spec, small_spec
from chessmoe.play.match import (
    Adjudication,
    CutechessAdjudicator,
    MoveOutcome,
    PlayerSpec,
    play_game,
    play_match,
    write_pgn,
)
from chessmoe.play.openings import read_epd, resolve_suite, schedule, shard
from chessmoe.play.plans import CLAIM_RULES
from chessmoe.play.tournament import MatchSpec, TournamentSpec, run_local, units
from chessmoe.records import GameRecord, summarise

UNIFORM = PlayerSpec(name="uniform-a", uniform=True, nodes=20, batch_size=4)
UNIFORM_B = PlayerSpec(name="uniform-b", uniform=True, nodes=12, batch_size=1)


# --- adjudication ------------------------------------------------------------------------


def _scores(white: list[int | None], black: list[int | None]) -> dict[bool, list[int | None]]:
    return {chess.WHITE: white, chess.BLACK: black}


STRICT = Adjudication(resign_two_sided=True, draw_from_fen_move_number=True)


def test_two_sided_resign_adjudication_boundaries() -> None:
    """The kit's earlier reading: both engines must agree for 5 moves each."""
    board = chess.Board()
    assert claim_adjudication(_scores([-600] * 5, [600] * 5), board, STRICT) == (
        "0-1", "resign_adjudication")
    assert claim_adjudication(_scores([700] * 5, [-650] * 5), board, STRICT) == (
        "1-0", "resign_adjudication")
    assert claim_adjudication(_scores([-599] + [-600] * 4, [600] * 5), board, STRICT) is None
    assert claim_adjudication(_scores([-600] * 4, [600] * 5), board, STRICT) is None  # 4 moves only
    assert claim_adjudication(_scores([-600] * 5, [599] * 5), board, STRICT) is None
    assert claim_adjudication(_scores([-900] * 5, [None] + [900] * 4), board, STRICT) is None


def test_cutechess_resign_is_one_sided() -> None:
    """cutechess without ``twosided``: the loser's own 5 scores at or below -600 decide."""
    rules = Adjudication()
    board = chess.Board()
    board.push_san("e4")  # White just moved
    assert claim_adjudication(_scores([-600] * 5, [599] * 4), board, rules) == (
        "0-1", "resign_adjudication")
    assert claim_adjudication(_scores([-600] * 5, [None] * 4), board, rules) == (
        "0-1", "resign_adjudication")
    assert claim_adjudication(_scores([-600] * 4 + [-599], [0] * 4), board, rules) is None
    assert claim_adjudication(_scores([-700, None] + [-700] * 4, [0] * 5), board, rules) is None
    assert claim_adjudication(_scores([0] * 5, [-601] * 5), board, rules) == (
        "1-0", "resign_adjudication")


def test_draw_adjudication_boundaries() -> None:
    after_30 = chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 10 31")
    at_30 = chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 10 30")
    quiet = _scores([20, -20, 0, 5], [-20, 20, 3, 0])
    assert claim_adjudication(quiet, after_30, STRICT) == ("1/2-1/2", "draw_adjudication")
    assert claim_adjudication(quiet, at_30, STRICT) is None
    assert claim_adjudication(_scores([21, -20, 0, 5], [-20, 20, 3, 0]), after_30, STRICT) is None
    assert claim_adjudication(_scores([0, 0, 0], [0, 0, 0, 0]), after_30, STRICT) is None
    # cutechess counts the moves played from the opening position, not the FEN's number
    rules = Adjudication()
    assert claim_adjudication(quiet, after_30, rules, plies=59) is None
    assert claim_adjudication(quiet, at_30, rules, plies=60) == ("1/2-1/2", "draw_adjudication")
    assert claim_adjudication(quiet, chess.Board(), rules, plies=60) == (
        "1/2-1/2", "draw_adjudication")


def _feed(moves: list[str], scores: list[int | None], rules: Adjudication,
          first_ply: int = 60) -> list[tuple[str, str] | None]:
    """cutechess's adjudicator fed one move at a time from a kings-knights-pawns position,
    the game already ``first_ply`` plies old."""
    board = chess.Board("4k3/p7/8/8/8/8/P7/4K1N1 w - - 3 40")
    adjudicator = CutechessAdjudicator(rules)
    out = []
    for ply, (move, score) in enumerate(zip(moves, scores, strict=True)):
        board.push_uci(move)
        out.append(adjudicator.add(board, score, first_ply + ply + 1))
    return out


SHUFFLE = ["g1f3", "e8d8", "f3g1", "d8e8"] * 3


def test_cutechess_draw_count_needs_8_quiet_moves_in_a_row() -> None:
    decided = _feed(SHUFFLE[:8], [0, 20, -20, 0, 0, 0, 0, 0], Adjudication())
    assert decided[:7] == [None] * 7
    assert decided[7] == ("1/2-1/2", "draw_adjudication")
    noisy = _feed(SHUFFLE[:8], [0, 21, 0, 0, 0, 0, 0, 0], Adjudication())
    assert noisy == [None] * 8  # the 21 cp move restarts the count: 6 in a row
    early = _feed(SHUFFLE[:8], [0] * 8, Adjudication(), first_ply=51)
    assert early == [None] * 8  # 59 plies played: not 30 full moves yet


def test_cutechess_draw_count_restarts_after_a_pawn_move_or_capture() -> None:
    """cutechess resets the draw counter when the move just made is irreversible: the fifth
    move a2a3 counts as the first of a new run, so the draw comes at the twelfth move."""
    moves = [*SHUFFLE[:4], "a2a3", "e8d8", "g1f3", "d8e8", "f3g1", "e8d8", "g1f3", "d8e8"]
    decided = _feed(moves, [0] * 12, Adjudication())
    assert decided[:11] == [None] * 11
    assert decided[11] == ("1/2-1/2", "draw_adjudication")
    # a move without a score (cutechess: depth 0, a forced move) restarts it too
    gap = _feed(SHUFFLE[:12], [0, 0, 0, None, 0, 0, 0, 0, 0, 0, 0, 0], Adjudication())
    assert gap.index(("1/2-1/2", "draw_adjudication")) == 11


def test_cutechess_resign_counts_each_sides_own_moves() -> None:
    scores = [-600, 0, -700, 0, -650, 0, -600, 0, -601, 0]
    decided = _feed(SHUFFLE[:10], scores, Adjudication(draw_movenumber=0))
    assert decided[:8] == [None] * 8 and decided[8] == ("0-1", "resign_adjudication")
    broken = _feed(SHUFFLE[:10], [-600, 0, -599, 0, -650, 0, -600, 0, -601, 0],
                   Adjudication(draw_movenumber=0))
    assert broken == [None] * 10
    two = _feed(SHUFFLE[:10], [-600, 600, -700, 600, -650, 600, -600, 600, -601, 599],
                Adjudication(draw_movenumber=0, resign_two_sided=True))
    assert two == [None] * 10  # Black's fifth score is 599: the winner does not agree


def test_cutechess_order_the_games_rules_before_adjudication() -> None:
    """A knight shuffle whose eighth ply is the third occurrence of the start position and
    also the eighth quiet score after move 4: cutechess declares the repetition (its board
    first); the kit's earlier reading adjudicated the draw first."""
    early = {"draw_movenumber": 4, "draw_movecount": 4}
    cute = _knight_shuffle(Adjudication(**early))
    assert (cute.termination, cute.plies) == ("repetition", 8)
    old = _knight_shuffle(Adjudication(**early, draw_rules="claim"))
    assert old.termination in ("draw_adjudication", "repetition") and old.plies <= 8


class Scripted:
    """A player that reads its moves and scores from a list."""

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


def test_game_terminations() -> None:
    fools = play_game(Scripted("w", [("f2f3", 0), ("g2g4", 0)]),
                      Scripted("b", [("e7e5", 0), ("d8h4", 0)]), chess.STARTING_FEN)
    assert fools.result == "0-1" and fools.termination == "checkmate"
    illegal = play_game(Scripted("w", [("e2e5", 0)]), Scripted("b", []), chess.STARTING_FEN)
    assert illegal.result == "0-1" and illegal.termination == "illegal_move"
    shuffle = [("g1f3", 0), ("f3g1", 0)] * 3
    repeat = play_game(Scripted("w", shuffle), Scripted("b", [("g8f6", 0), ("f6g8", 0)] * 3),
                       chess.STARTING_FEN)
    assert repeat.result == "1/2-1/2" and repeat.termination == "repetition"
    resign = play_game(Scripted("w", [(f"{f}2{f}3", -700) for f in "abcdef"]),
                       Scripted("b", [(f"{f}7{f}6", 700) for f in "abcdef"]),
                       chess.STARTING_FEN)
    assert resign.result == "0-1" and resign.termination == "resign_adjudication"
    assert resign.plies == 9  # White's fifth score at -700 ends it (one-sided)
    both = play_game(Scripted("w", [(f"{f}2{f}3", -700) for f in "abcdef"]),
                     Scripted("b", [(f"{f}7{f}6", 700) for f in "abcdef"]),
                     chess.STARTING_FEN, STRICT)
    # two-sided: cutechess checks the side that just moved, so White's sixth move ends it,
    # once Black's five winning scores agree; the kit's earlier reading ended it at Black's
    # fifth move
    assert both.plies == 11 and both.termination == "resign_adjudication"
    legacy = play_game(Scripted("w", [(f"{f}2{f}3", -700) for f in "abcdef"]),
                       Scripted("b", [(f"{f}7{f}6", 700) for f in "abcdef"]),
                       chess.STARTING_FEN, replace(STRICT, draw_rules="claim"))
    assert legacy.plies == 10
    capped = play_game(Scripted("w", [("g1f3", 0), ("f3g1", 0), ("b1c3", 0)]),
                       Scripted("b", [("g8f6", 0), ("f6g8", 0), ("b8c6", 0)]),
                       chess.STARTING_FEN, Adjudication(max_plies=5))
    assert capped.termination == "max_plies" and capped.plies == 5


def _knight_shuffle(rules: Adjudication) -> GameRecord:
    shuffle = [("g1f3", 0), ("f3g1", 0)] * 3
    return play_game(Scripted("w", shuffle), Scripted("b", [("g8f6", 0), ("f6g8", 0)] * 3),
                     chess.STARTING_FEN, rules)


def test_repetition_ends_a_game_when_it_happens_as_cutechess_declares_it() -> None:
    """The start position occurs after plies 0, 4 and 8: cutechess ends the game after ply 8
    (the third occurrence); the claim reading ends it after ply 7, when Black *could* claim
    by playing Ng8 -- a position that has then occurred only twice."""
    actual = _knight_shuffle(Adjudication())
    assert (actual.termination, actual.result, actual.plies) == ("repetition", "1/2-1/2", 8)
    board = chess.Board()
    for uci in actual.moves:
        board.push_uci(uci)
    assert board.is_repetition(3)
    claimed = _knight_shuffle(Adjudication(draw_rules="claim"))
    assert (claimed.termination, claimed.plies) == ("repetition", 7)
    board.pop()
    assert not board.is_repetition(3) and board.can_claim_threefold_repetition()


@pytest.mark.parametrize(("fen", "cutechess", "claim"), [
    # 99 quiet plies: a claim is possible (a quiet move reaches 100), cutechess plays on
    ("8/8/8/4k3/8/8/1R6/4K3 w - - 99 80", None, "fifty_moves"),
    # 100 quiet plies: both end it
    ("8/8/8/4k3/8/8/1R6/4K3 w - - 100 80", "fifty_moves", "fifty_moves"),
    # mate given on the 100th quiet ply is mate (cutechess checks moves first)
    ("R5k1/5ppp/8/8/8/8/8/6K1 b - - 100 80", "checkmate", "checkmate"),
    # K+B v K stalemated: cutechess says stalemate, python-chess insufficient material
    ("7k/5K2/6B1/8/8/8/8/8 b - - 0 1", "stalemate", "insufficient_material"),
    # cutechess's material count: bishops all on light squares count 1 -> draw
    ("4k3/8/3b4/8/8/2B5/8/4K3 w - - 0 1", "insufficient_material", "insufficient_material"),
    # bishops on both colours count 2 -> play on; so do two knights (K+N v K+N)
    ("4k3/8/4b3/8/8/2B5/8/4K3 w - - 0 1", None, None),
    ("4k3/8/4n3/8/8/2N5/8/4K3 w - - 0 1", None, None),
    ("4k3/8/8/8/8/2N5/8/4K3 w - - 0 1", "insufficient_material", "insufficient_material"),
])
def test_draw_rules_boundaries(fen: str, cutechess: str | None, claim: str | None) -> None:
    from chessmoe.rules import rules_outcome

    board = chess.Board(fen)
    for rules, want in (("cutechess", cutechess), ("claim", claim)):
        got = rules_outcome(board, rules)  # type: ignore[arg-type]
        assert (got[1] if got else None) == want, rules


def test_cutechess_insufficient_material_agrees_with_its_counting_rule() -> None:
    """Every placement of up to two minor pieces beside the kings: a draw exactly when
    knights + (light bishops present) + (dark bishops present) <= 1, with no other piece."""
    from chessmoe.rules import cutechess_insufficient as _cutechess_insufficient

    squares = [chess.C3, chess.D3, chess.C6, chess.D6]  # dark, light, light, dark
    pieces = [None, chess.Piece(chess.KNIGHT, chess.WHITE), chess.Piece(chess.BISHOP, True),
              chess.Piece(chess.BISHOP, False), chess.Piece(chess.KNIGHT, False)]
    for a in pieces:
        for b in pieces:
            for sq_a, sq_b in ((squares[0], squares[1]), (squares[1], squares[2]),
                               (squares[0], squares[3])):
                board = chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
                for piece, sq in ((a, sq_a), (b, sq_b)):
                    if piece is not None:
                        board.set_piece_at(sq, piece)
                knights = sum(p is not None and p.piece_type == chess.KNIGHT for p in (a, b))
                colours = {bool(chess.BB_SQUARES[sq] & chess.BB_LIGHT_SQUARES)
                           for p, sq in ((a, sq_a), (b, sq_b))
                           if p is not None and p.piece_type == chess.BISHOP}
                assert _cutechess_insufficient(board) == (knights + len(colours) <= 1), (
                    board.fen())
    assert not _cutechess_insufficient(chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"))


def test_unknown_draw_rules_are_refused_and_old_records_read_as_claim() -> None:
    with pytest.raises(ValueError, match="unknown draw rules 'fide'"):
        Adjudication(draw_rules="fide")  # type: ignore[arg-type]
    old = {"resign_movecount": 5, "resign_score": 600, "draw_movenumber": 30,
           "draw_movecount": 4, "draw_score": 20, "max_plies": 600}
    assert Adjudication.from_dict(old).draw_rules == "claim"
    assert Adjudication.from_dict({**old, "draw_rules": "cutechess"}) == Adjudication()
    with pytest.raises(ValueError, match="unknown adjudication field"):
        Adjudication.from_dict({**old, "resign_moves": 3})


def test_a_tournament_played_under_other_draw_rules_is_not_resumed(tmp_path: Path) -> None:
    from dataclasses import replace

    from chessmoe.play.tournament import _write_spec

    spec = _tiny_spec(pairs=1)
    _write_spec(replace(spec, adjudication=Adjudication(draw_rules="claim")), tmp_path)
    recorded = json.loads((tmp_path / "spec.json").read_text())
    del recorded["adjudication"]["draw_rules"]  # as the kit wrote it before the option
    (tmp_path / "spec.json").write_text(json.dumps(recorded))
    with pytest.raises(ValueError, match="other adjudication or draw rules"):
        _write_spec(spec, tmp_path)
    _write_spec(replace(spec, adjudication=Adjudication(draw_rules="claim")), tmp_path)


def test_a_tournament_played_by_the_python_search_resumes_only_with_it(tmp_path: Path) -> None:
    """spec.json written before players named their search: the matches were played by the
    Python search; the default (native) run is refused naming --search python, which
    resumes."""
    from dataclasses import replace

    from chessmoe.play.tournament import _write_spec, with_recorded_search, with_search

    spec = _tiny_spec(pairs=1)
    _write_spec(with_search(spec, "python"), tmp_path)
    recorded = json.loads((tmp_path / "spec.json").read_text())
    for match in recorded["matches"]:
        for side in ("first", "second"):
            del match[side]["search"]
    (tmp_path / "spec.json").write_text(json.dumps(recorded))
    with pytest.raises(ValueError, match=r"played by the python search .*--search python"):
        _write_spec(spec, tmp_path)
    _write_spec(with_search(spec, "python"), tmp_path)
    assert {m.first.search for m in with_search(spec, "native").matches} == {"native"}
    # --search auto: recorded matches keep their search, a match not recorded gets native
    extra = MatchSpec("c-vs-a", UNIFORM_B, UNIFORM, 1)
    auto = with_recorded_search(replace(spec, matches=(*spec.matches, extra)), tmp_path)
    assert [(m.first.search, m.second.search) for m in auto.matches] == [
        ("python", "python"), ("python", "python"), ("native", "native")]
    _write_spec(auto, tmp_path)


def test_a_game_recorded_under_other_rules_is_refused_by_tournaments(tmp_path: Path) -> None:
    """A claim-rules game copied into a cutechess tournament's log: neither a run nor the
    summary accepts it (one summary names one adjudication); a game whose record names no
    rules (played before the kit recorded them) and the spec's own rules are accepted."""
    from chessmoe._io.jsonl import append_record
    from chessmoe.play.tournament import run_local, summarise_tournament
    from chessmoe.records import GameProvenance

    spec = _tiny_spec(pairs=1)
    game = GameRecord("a", "b", chess.STARTING_FEN, "1-0", "checkmate", "", (), (), (), 0.0)
    log = tmp_path / "a-vs-b" / "games-000.jsonl"
    log.parent.mkdir()
    ours = GameProvenance("abc", False, draw_rules="cutechess")
    append_record(log, game.in_match(pair=0, game=0, opening=0, first_score=1.0,
                                     provenance=ours).to_json())
    append_record(log, game.in_match(pair=0, game=1, opening=0, first_score=1.0).to_json())
    summarise_tournament(spec, tmp_path)  # its own rules and unrecorded ones: accepted
    append_record(log, game.in_match(pair=1, game=0, opening=1, first_score=1.0,
                                     provenance=GameProvenance("abc", False,
                                                               draw_rules="claim")).to_json())
    before = log.read_text()
    with pytest.raises(ValueError, match=r"a-vs-b: 1 under claim draw rules, but tournament "
                                         r"'tiny' is played under cutechess"):
        summarise_tournament(spec, tmp_path)
    with pytest.raises(ValueError, match="1 under claim draw rules"):
        run_local(spec, tmp_path, workers=1, progress=False)
    assert log.read_text() == before  # refused before anything was played


def test_every_game_records_the_code_that_played_it(tmp_path: Path) -> None:
    from chessmoe._io.provenance import git_commit, software
    from chessmoe.play.openings import embedded_suite_path

    records = play_match(UNIFORM, UNIFORM_B, schedule(read_epd(embedded_suite_path()), 1, seed=3),
                         tmp_path / "g.jsonl", rules=Adjudication(max_plies=6))
    logged = [json.loads(line) for line in (tmp_path / "g.jsonl").read_text().splitlines()]
    git, versions = git_commit(), software()
    for record, line in zip(records, logged, strict=True):
        assert record.provenance is not None
        assert line["provenance"] == {
            "commit": git["commit"], "dirty": git["dirty"], "chessmoe": versions["chessmoe"],
            "chess": versions["chess"], "torch": versions["torch"],
            "onnxruntime": versions["onnxruntime"], "draw_rules": "cutechess",
            "search": "native"}
        assert GameRecord.from_json(line) == record


def test_a_match_is_played_by_one_search(tmp_path: Path) -> None:
    """Two MCTS players with different tree searches are refused; a log of games played by
    the Python search (old records name none) is not extended by the native search."""
    from dataclasses import replace

    from chessmoe._io.errors import KitError
    from chessmoe.play.openings import embedded_suite_path

    slots = schedule(read_epd(embedded_suite_path()), 1, seed=3)
    python = replace(UNIFORM, search="python")
    with pytest.raises(KitError, match="use different tree searches"):
        play_match(python, UNIFORM_B, slots, tmp_path / "mixed.jsonl")
    log = tmp_path / "g.jsonl"
    records = play_match(python, replace(UNIFORM_B, search="python"), slots[:1], log,
                         rules=Adjudication(max_plies=6))
    assert records[0].provenance is not None and records[0].provenance.search == "python"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    del lines[0]["provenance"]["search"]  # as recorded before the native search existed
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(KitError, match=r"played by the python search.*--search python"):
        play_match(UNIFORM, UNIFORM_B, slots, log, rules=Adjudication(max_plies=6))
    resumed = play_match(python, replace(UNIFORM_B, search="python"), slots, log,
                         rules=Adjudication(max_plies=6))
    assert len(resumed) == 2


# --- matches ----------------------------------------------------------------------------


def test_colours_swap_within_each_pair() -> None:
    fens = read_epd(Path(__file__).resolve().parents[1] / "chessmoe" / "data" / "openings"
                    / "chessmoe-5ply.epd")
    slots = schedule(fens, 6, seed=1)
    assert len(slots) == 12
    for a, b in zip(slots[::2], slots[1::2], strict=True):
        assert a.opening == b.opening and a.fen == b.fen
        assert a.first_is_white and not b.first_is_white
    assert len({s.opening for s in slots}) == 6
    assert schedule(fens, 6, seed=1) == slots and schedule(fens, 6, seed=2) != slots
    parts = [shard(slots, k, 4) for k in range(4)]
    assert sorted(s.id for p in parts for s in p) == sorted(s.id for s in slots)
    assert all(len({s.pair for s in p}) * 2 == len(p) for p in parts)


def test_interrupted_match_resumes_to_exactly_the_planned_games(tmp_path: Path) -> None:
    fens = read_epd(Path(__file__).resolve().parents[1] / "chessmoe" / "data" / "openings"
                    / "chessmoe-5ply.epd")
    slots = schedule(fens, 3, seed=5)
    log = tmp_path / "games.jsonl"
    played: list[str] = []

    def stop_after_two(record: dict) -> None:
        played.append(record.slot)
        if len(played) == 2:
            raise KeyboardInterrupt("power cut")

    with pytest.raises(KeyboardInterrupt):
        play_match(UNIFORM, UNIFORM_B, slots, log, on_game=stop_after_two,
                   rules=Adjudication(max_plies=30))
    records = play_match(UNIFORM, UNIFORM_B, slots, log, rules=Adjudication(max_plies=30))
    assert sorted(r.slot for r in records) == sorted(s.id for s in slots)
    assert len(log.read_text().splitlines()) == 6  # nothing lost, nothing twice
    for record in records:
        white_first = record.first_is_white
        assert record.white == ("uniform-a" if white_first else "uniform-b")
    summary = summarise(records)
    assert summary.wins + summary.losses + summary.draws == 6
    assert sum(summary.pentanomial) == 3
    pgn = write_pgn(records, tmp_path / "games.pgn")
    with pgn.open() as handle:
        games = []
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    assert len(games) == 6
    assert games[0].headers["SetUp"] == "1" and games[0].headers["TerminationDetail"]
    replay = games[0].board()
    for move in games[0].mainline_moves():
        replay.push(move)
    assert replay.fen() != games[0].board().fen()


CRASHER = textwrap.dedent("""
    import sys, chess, pathlib
    counter = pathlib.Path(sys.argv[1])
    board = chess.Board()
    for line in sys.stdin:
        cmd = line.split()
        if not cmd: continue
        if cmd[0] == "uci": print("id name crasher"); print("uciok", flush=True)
        elif cmd[0] == "isready": print("readyok", flush=True)
        elif cmd[0] == "position":
            board = chess.Board() if cmd[1] == "startpos" else chess.Board(" ".join(cmd[2:8]))
            if "moves" in cmd:
                for m in cmd[cmd.index("moves") + 1:]: board.push_uci(m)
        elif cmd[0] == "go":
            n = int(counter.read_text()) if counter.exists() else 0
            counter.write_text(str(n + 1))
            if n == 3: sys.exit(3)
            print("info depth 1 score cp 0")
            print("bestmove " + next(iter(board.legal_moves)).uci(), flush=True)
        elif cmd[0] == "quit": break
""")


def test_a_crashing_engine_is_recorded_and_the_match_goes_on(tmp_path: Path) -> None:
    script = tmp_path / "crasher.py"
    script.write_text(CRASHER)
    crasher = PlayerSpec(name="crasher", kind="uci",
                         command=(sys.executable, str(script), str(tmp_path / "count")),
                         nodes=1)
    fens = [chess.STARTING_FEN] * 4
    slots = schedule(fens, 2, seed=0)
    records = play_match(UNIFORM, crasher, slots, tmp_path / "games.jsonl",
                         rules=Adjudication(max_plies=12))
    assert len(records) == 4
    crashes = [r for r in records if r.termination == "engine_crash"]
    assert len(crashes) == 1 and crashes[0].first_score == 1.0
    assert "crasher" in crashes[0].detail
    assert all(r.termination == "max_plies" for r in records if r not in crashes)



class _RaisingPlayer:
    """An in-process engine (no ``move_steps``) whose code raises on its second move."""

    name = "raiser"

    def __init__(self) -> None:
        self.moves = 0

    def new_game(self) -> None:
        pass

    def move(self, board: chess.Board) -> MoveOutcome:
        self.moves += 1
        if self.moves == 2:
            raise ValueError("planted bug")
        return MoveOutcome(next(iter(board.legal_moves)), 0, {})

    def close(self) -> None:
        pass


def test_an_in_process_engine_that_raises_loses_its_game_with_the_error_named() -> None:
    """Black raises on its second move: the game is Black's loss by engine crash after three
    plies, and the detail names the engine, the exception and the line that raised it."""
    white = UNIFORM.build()
    record = play_game(white, _RaisingPlayer(), chess.STARTING_FEN, Adjudication(max_plies=20))
    assert (record.result, record.termination, len(record.moves)) == ("1-0", "engine_crash", 3)
    assert record.detail.startswith("raiser: ValueError: planted bug at test_match.py:")
    assert "in move" in record.detail


@pytest.mark.parametrize("concurrency", [1, 2])
def test_an_in_process_search_that_raises_mid_move_is_a_counted_crash_and_the_match_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, concurrency: int) -> None:
    """The MCTS player's third move raises after one evaluated mini-batch (a bug in the
    search's own code, as DeepChess's cache KeyError was): that one game is lost and
    recorded with the error, and every other game of the match is played, one by one or
    several at once."""
    from chessmoe.play.match import MctsPlayer

    original = MctsPlayer.move_steps
    calls = [0]

    def flaky(self: MctsPlayer, board: chess.Board):  # type: ignore[no-untyped-def]
        steps = original(self, board)
        if self.name != "uniform-b":
            return steps
        calls[0] += 1
        if calls[0] != 3:
            return steps

        def broken():  # type: ignore[no-untyped-def]
            with contextlib.suppress(StopIteration):  # a reused tree may need none
                yield next(steps)  # one mini-batch evaluated, then the bug
            raise KeyError("planted")
        return broken()

    monkeypatch.setattr(MctsPlayer, "move_steps", flaky)
    slots = schedule([chess.STARTING_FEN] * 4, 2, seed=0)
    records = play_match(UNIFORM, UNIFORM_B, slots, tmp_path / "games.jsonl",
                         rules=Adjudication(max_plies=12), concurrency=concurrency)
    assert len(records) == 4
    crashes = [r for r in records if r.termination == "engine_crash"]
    assert len(crashes) == 1 and crashes[0].first_score == 1.0
    assert crashes[0].detail.startswith("uniform-b: KeyError: 'planted' at test_match.py:")
    assert all(r.termination == "max_plies" for r in records if r not in crashes)
    logged = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert sorted(r["termination"] for r in logged) == ["engine_crash"] + ["max_plies"] * 3



@pytest.mark.parametrize("concurrency", [1, 2])
def test_an_engine_that_crashes_three_games_in_a_row_stops_the_match_with_its_games_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, concurrency: int) -> None:
    """A broken engine (every move raises) loses three games as crashes, then the match stops
    with one line naming the error; the three records stay, and a rerun resumes after them."""
    from chessmoe._io.errors import KitError
    from chessmoe.play.match import CRASH_STREAK, MctsPlayer

    original = MctsPlayer.move_steps

    def broken(self: MctsPlayer, board: chess.Board):  # type: ignore[no-untyped-def]
        if self.name == "uniform-b":
            raise OSError("model file vanished")
        return original(self, board)

    monkeypatch.setattr(MctsPlayer, "move_steps", broken)
    slots = schedule([chess.STARTING_FEN] * 4, 4, seed=0)
    log = tmp_path / "games.jsonl"
    with pytest.raises(KitError, match="3 games in a row ended in an engine crash, the last: "
                                       "uniform-b: OSError: model file vanished"):
        play_match(UNIFORM, UNIFORM_B, slots, log, rules=Adjudication(max_plies=12),
                   concurrency=concurrency)
    kept = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(kept) == CRASH_STREAK == 3
    assert all(r["termination"] == "engine_crash" for r in kept)
    monkeypatch.setattr(MctsPlayer, "move_steps", original)
    records = play_match(UNIFORM, UNIFORM_B, slots, log, rules=Adjudication(max_plies=12))
    assert len(records) == 8 and sum(r.termination == "engine_crash" for r in records) == 3

# --- tournaments ------------------------------------------------------------------------


def _tiny_spec(pairs: int = 2) -> TournamentSpec:
    matches = (MatchSpec("a-vs-b", UNIFORM, UNIFORM_B, pairs, (("kind", "test"),)),
               MatchSpec("b-vs-a", UNIFORM_B, UNIFORM, pairs, (("kind", "test"),)))
    return TournamentSpec("tiny", matches, pairs_per_shard=1,
                          adjudication=Adjudication(max_plies=16))


def test_register_records_the_design_before_any_game_and_a_run_keeps_it(
        tmp_path: Path) -> None:
    """``chessmoe tournament --register``: the design is written as a run would write it and
    no game is played; registering again (or running the same design) leaves the bytes as
    they are, a new match is appended after the recorded ones, and a recorded match played
    differently is refused as a run would refuse it."""
    from dataclasses import replace

    from chessmoe.play.tournament import register

    first = TournamentSpec("tiny", _tiny_spec().matches[:1], pairs_per_shard=1,
                           adjudication=Adjudication(max_plies=16))
    assert register(first, tmp_path) == ["a-vs-b"]
    record = (tmp_path / "spec.json").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.json"]  # no game, no log
    assert register(first, tmp_path) == ["a-vs-b"]
    assert (tmp_path / "spec.json").read_bytes() == record
    assert register(_tiny_spec(), tmp_path) == ["a-vs-b", "b-vs-a"]  # the new match follows
    grown = (tmp_path / "spec.json").read_bytes()
    assert register(first, tmp_path) == ["a-vs-b", "b-vs-a"]  # a run of some keeps the others
    assert (tmp_path / "spec.json").read_bytes() == grown
    changed = replace(first, matches=(replace(first.matches[0], pairs=5),))
    with pytest.raises(ValueError, match="played differently"):
        register(changed, tmp_path)
    assert (tmp_path / "spec.json").read_bytes() == grown


def test_status_counts_finished_games_per_match_without_playing(tmp_path: Path) -> None:
    """Three finished games of a-vs-b plus an unfinished last line, none of b-vs-a: the
    status counts 3 of 4 and 0 of 4, writes nothing, and says what is left."""
    from chessmoe._io.jsonl import append_record
    from chessmoe.play.tournament import format_progress, progress

    game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", (), (), (), 0.0)
    log = tmp_path / "a-vs-b" / "games-000.jsonl"
    log.parent.mkdir()
    for k in range(3):
        append_record(log, game.in_match(pair=k // 2, opening=k // 2).to_json())
    with log.open("a") as handle:
        handle.write('{"white": "a", "bla')  # a game being written when the run stopped
    before = sorted(p.name for p in tmp_path.rglob("*"))
    rows = progress(_tiny_spec(), tmp_path)
    assert [(r.name, r.played, r.planned, r.complete) for r in rows] == \
        [("a-vs-b", 3, 4, False), ("b-vs-a", 0, 4, False)]
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    text = format_progress(rows).splitlines()
    assert text[0].split() == ["a-vs-b", "3", "of", "4", "games", "(in", "progress)"]
    assert text[1].split()[-2:] == ["(not", "started)"]
    assert text[-1].split() == ["total", "3", "of", "8", "games", "(37.5", "%):", "5",
                                "games", "to", "play"]
    done = [replace(r, played=r.planned) for r in rows]
    assert all(r.complete for r in done)
    assert format_progress(done).splitlines()[0].split() == ["a-vs-b", "4", "of", "4", "games"]
    assert format_progress(done).splitlines()[-1].endswith("(100.0 %): complete")


def test_grids_have_the_papers_shape() -> None:
    grid = method_grid({"separated": "s", "staged": "t"}, "r", pairs=500)
    assert len(grid) == 2 * 55
    assert {m.label("batch_size") for m in grid} == {1, 8, 16, 32, 64}
    timed = [m for m in grid if m.label("movetime")]
    assert len(timed) == 2 * 25 and all(m.first.nodes is None for m in timed)
    ablation = ablation_grid("s", "r", pairs=500)
    assert len(ablation) == 33 and {m.first.single_expert for m in ablation} == {0, 1, 2}
    assert all(m.first.baseline == "r" and m.label("batch_size") == 64 for m in ablation)
    spec = TournamentSpec("t", tuple(grid[:3]), pairs_per_shard=100)
    assert [u.shards for u in units(spec)] == [5] * 15


def test_shards_hold_at_most_pairs_per_shard_and_every_pair_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """25 pairs at 10 a shard are 3 shards (rounded up), and the shards' games together are
    the match's 25 pairs, each once: no shard is longer than asked."""
    import chessmoe.play.tournament as tournament

    match = MatchSpec("m", UNIFORM, UNIFORM_B, pairs=25)
    cut = units(TournamentSpec("t", (match,), pairs_per_shard=10))
    assert [(u.id, u.shards) for u in cut] == [("m/000", 3), ("m/001", 3), ("m/002", 3)]
    pairs: dict[str, set[int]] = {}

    def record_slots(first: PlayerSpec, second: PlayerSpec, slots: list, log: Path,
                     **options: object) -> list[GameRecord]:
        pairs[log.stem] = {s.pair for s in slots}
        return []

    monkeypatch.setattr(tournament, "play_match", record_slots)
    for unit in cut:
        tournament.run_unit(unit, str(tmp_path))
    assert sorted(pairs) == ["games-000", "games-001", "games-002"]
    assert max(len(p) for p in pairs.values()) <= 10
    assert sorted(q for p in pairs.values() for q in p) == list(range(25))


def test_profiles_run_node_limited_games_together_and_timed_games_alone() -> None:
    """The small profile plays its node-limited games 8 at a time on ONNX Runtime (the
    multi-game runner); a time-limited search owns its worker, so those play one at a time.
    The paper profile on a GPU uses the cuda backend and 32 games a worker."""
    small = small_spec("results/experts/small")
    players = [p for m in small.matches for p in (m.first, m.second)]
    assert {p.backend for p in players} == {"onnx"}
    concurrency = {u.match.name: u.games_at_once for u in units(small)}
    assert concurrency["separated-b8-n100"] == concurrency["only-endgame-b64-n100"] == 8
    assert concurrency["separated-b8-t100"] == concurrency["only-endgame-b64-t100"] == 1
    timed = [u for u in units(small) if u.match.first.movetime_ms is not None]
    assert timed and all(u.games_at_once == 1 for u in timed)
    paper = paper_spec("results/experts/paper")
    assert {p.backend for m in paper.matches for p in (m.first, m.second)} == {"cuda"}
    assert max(u.games_at_once for u in units(paper)) == 32
    on_cpu = paper_spec("results/experts/paper", device="cpu")
    assert {p.backend for m in on_cpu.matches for p in (m.first, m.second)} == {"torch"}


def test_the_small_cutechess_replay_plays_the_committed_small_grid_under_cutechess_rules(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Same matches, players and openings as the committed small tournament (its spec.json),
    so the design changes only the draw rules (the 100 ms matches also depend on the machine
    and its load); the small design itself keeps the claim rules it was played under."""
    root = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(root)  # the design looks for the bundles it plays relative to here
    committed = json.loads((root / "results/tournaments/small/spec.json").read_text())
    replay = build_design("small-cutechess", "results/experts/small")
    small = build_design("small", "results/experts/small")
    assert replay.name == "small-cutechess" and small.name == "small"
    assert replay.adjudication == Adjudication() and replay.adjudication.draw_rules == "cutechess"
    assert small.adjudication == CLAIM_RULES
    played = replay.to_dict()
    for match in played["matches"]:  # the search is the runner's choice (--search), not the
        for side in ("first", "second"):  # design's: the committed spec predates the option
            del match[side]["search"]
    assert played["matches"] == committed["matches"] and len(played["matches"]) == 35
    assert {k: played[k] for k in ("seed", "openings", "pairs_per_shard", "games_at_once")} \
        == {k: committed[k] for k in ("seed", "openings", "pairs_per_shard", "games_at_once")}
    # the opening each unit plays follows from the seed and the group: identical in both
    fens = read_epd(resolve_suite("embedded"))
    for ours, theirs in zip(units(replay), units(small), strict=True):
        assert ours.match.name == theirs.match.name and ours.seed == theirs.seed
        assert schedule(fens, ours.match.pairs, ours.seed) == \
            schedule(fens, theirs.match.pairs, theirs.seed)
        assert ours.adjudication.draw_rules == "cutechess"


@pytest.mark.slow
def test_a_tiny_tournament_runs_locally_and_resumes(tmp_path: Path) -> None:
    seen: list[tuple[bool, int]] = []  # before the first game: the design recorded, no game

    def before_play() -> None:
        seen.append(((tmp_path / "spec.json").is_file(), len(list(tmp_path.rglob("games-*")))))

    summary = run_local(_tiny_spec(), tmp_path, workers=2, progress=False,
                        before_play=before_play)
    assert seen == [(True, 0)]
    assert summary.complete and [m.summary.games for m in summary.matches] == [4, 4]
    first = summary.matches[0]
    assert first.summary.line.startswith("Elo difference:")
    assert (tmp_path / "a-vs-b" / "games.pgn").exists()
    logs = sorted((tmp_path / "a-vs-b").glob("games-*.jsonl"))
    assert len(logs) == 2
    # Mark the provenance of the run that played, to see whether a rerun keeps it.
    marked = json.loads((tmp_path / "summary.json").read_text())
    marked["provenance"] = {"played_by": "the first run"}
    (tmp_path / "summary.json").write_text(json.dumps(marked))
    again = run_local(_tiny_spec(), tmp_path, workers=1, progress=False)
    assert again.matches[0].summary.games == 4  # nothing replayed
    # nothing new: the summary, with the provenance of the run that played, stays as it was
    assert json.loads((tmp_path / "summary.json").read_text()) == marked
    assert sum(len(p.read_text().splitlines()) for p in logs) == 4
    with pytest.raises(ValueError, match="played differently"):
        run_local(_tiny_spec(pairs=3), tmp_path, workers=1, progress=False)
    assert json.loads((tmp_path / "spec.json").read_text())["name"] == "tiny"


def test_gpu_shards_on_a_machine_without_a_gpu_are_refused_before_anything_is_written(
        tmp_path: Path) -> None:
    from dataclasses import replace

    from chessmoe._io.errors import KitError

    on_gpu = replace(UNIFORM, device="cuda")
    cuda_backend = replace(UNIFORM_B, backend="cuda")  # device left at cpu
    spec = TournamentSpec("g", (MatchSpec("m", on_gpu, UNIFORM_B, 2),
                                MatchSpec("n", UNIFORM, UNIFORM_B, 2),
                                MatchSpec("o", UNIFORM, cuda_backend, 1)), pairs_per_shard=1)
    with pytest.raises(KitError, match="'g' runs networks on CUDA in 3 of its 5 shards, but"):
        run_local(spec, tmp_path / "out", workers=1, gpus=0, progress=False)
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_tournament_resumes_from_another_path_to_the_same_bundles(tmp_path: Path) -> None:
    """A clone elsewhere, or a notebook's ``../results``, names the same bundles; an older
    record without a later player field played at its default; a changed engine refuses."""
    from dataclasses import replace

    from chessmoe.play.tournament import _write_spec

    def spec(root: str, bundle: str = "separated", **player: object) -> TournamentSpec:
        first = replace(UNIFORM, experts=f"{root}/experts/small/{bundle}",
                        **player)  # type: ignore[arg-type]
        return TournamentSpec("t", (MatchSpec("m", first, UNIFORM_B, 2),))

    _write_spec(spec("/somewhere/clone/results"), tmp_path)
    recorded = json.loads((tmp_path / "spec.json").read_text())
    del recorded["matches"][0]["first"]["backend"]  # as a kit without backends wrote it
    (tmp_path / "spec.json").write_text(json.dumps(recorded))
    with pytest.raises(ValueError, match="played differently"):
        _write_spec(spec("../results", backend="onnx"), tmp_path)
    _write_spec(spec("../results"), tmp_path)  # the same engine: resumes
    for changed in (spec("../results", nodes=40), spec("../results", bundle="staged")):
        with pytest.raises(ValueError, match="played differently"):
            _write_spec(changed, tmp_path)


def test_a_changed_opening_suite_is_not_resumed(tmp_path: Path) -> None:
    from dataclasses import replace

    from chessmoe._io.fsutil import sha256_file
    from chessmoe.play.openings import embedded_suite_path

    suite = tmp_path / "suite.epd"
    lines = embedded_suite_path().read_text().splitlines(keepends=True)
    suite.write_text("".join(lines[:50]))
    spec = replace(_tiny_spec(pairs=1), openings=str(suite))
    summary = run_local(spec, tmp_path / "t", workers=1, progress=False)
    recorded = {"file": "suite.epd", "sha256": sha256_file(suite), "positions": 50}
    assert summary.openings_suite == recorded
    assert json.loads((tmp_path / "t" / "spec.json").read_text())["openings_suite"] == recorded
    run_local(spec, tmp_path / "t", workers=1, progress=False)  # same suite: resumes
    suite.write_text("".join(lines[:49]))
    with pytest.raises(ValueError, match="another version of the opening suite"):
        run_local(spec, tmp_path / "t", workers=1, progress=False)


@pytest.mark.slow
def test_a_tiny_tournament_runs_on_dask(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    from chessmoe.play.tournament import run_dask

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        summary = run_dask(_tiny_spec(), tmp_path, client)
    assert summary.complete and sum(m.summary.games for m in summary.matches) == 8


# --- many games at once --------------------------------------------------------------------


@pytest.mark.slow
def test_concurrent_games_are_the_sequential_games_move_for_move(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker playing several games at once (their mini-batches evaluated together) plays
    exactly the node-limited games one-at-a-time play plays, when each row's network output
    does not depend on its batch (the fake networks here, ONNX Runtime in practice)."""
    from chessmoe.phases import phase_definition
    from chessmoe.search.evaluators import EvaluatorSpec
    from chessmoe.search.experts import MixtureEvaluator, NetworkEvaluator
    from chessmoe.search.inference import InferenceService

    from .helpers import HashNet

    networks = {"moe": [HashNet(1), HashNet(2), HashNet(3)], "single": [HashNet(4)]}

    def fake_build(spec: EvaluatorSpec) -> tuple[object, str]:
        if spec.network == "moe":
            return MixtureEvaluator(networks["moe"], phase_definition("lichess")), "moe"
        return NetworkEvaluator(backend=networks["single"][0]), "single"

    monkeypatch.setattr(EvaluatorSpec, "build", fake_build)
    moe = PlayerSpec(name="moe", experts="moe", nodes=24, batch_size=8)
    single = PlayerSpec(name="single", experts="single", nodes=16, batch_size=4)
    fens = read_epd(Path(__file__).resolve().parents[1] / "chessmoe" / "data" / "openings"
                    / "chessmoe-5ply.epd")
    slots = schedule(fens, 3, seed=11)
    rules = Adjudication(max_plies=40)
    alone = play_match(moe, single, slots, tmp_path / "alone.jsonl", rules=rules)
    every = networks["moe"] + networks["single"]
    sequential_calls = sum(len(n.calls) for n in every)
    for net in every:
        net.calls.clear()
    service = InferenceService()
    together = play_match(moe, single, slots, tmp_path / "together.jsonl", rules=rules,
                          concurrency=6, service=service)
    assert len(alone) == len(together) == 6
    for a, b in zip(alone, together, strict=True):
        assert (a.slot, a.moves, a.result, a.termination, a.scores_white, a.scores_black) == (
            b.slot, b.moves, b.result, b.termination, b.scores_white, b.scores_black)
        assert all(n == 24 for n in (a.nodes_white if a.first_is_white else a.nodes_black)
                   or ())
    assert service.calls == sum(len(n.calls) for n in every)
    assert service.calls < sequential_calls / 2  # the games' mini-batches went together
    assert max(max(n.calls, default=0) for n in every) > 8  # more than one game's leaves


def test_arms_of_an_opening_group_share_openings_and_advance_in_rounds() -> None:
    from chessmoe.play.openings import embedded_suite_path, group_seed

    arms = [MatchSpec(f"arm{k}", UNIFORM, UNIFORM_B, pairs, openings_group="g")
            for k, pairs in enumerate((20, 10))]
    other = MatchSpec("other", UNIFORM, UNIFORM_B, 10)
    spec = TournamentSpec("t", (*arms, other), pairs_per_shard=5)
    order = [(u.match.name, u.shard) for u in units(spec)]
    assert order[:3] == [("arm0", 0), ("arm1", 0), ("other", 0)]  # rounds, not matches
    assert order[-2:] == [("arm0", 2), ("arm0", 3)]
    fens = read_epd(embedded_suite_path())
    long, short = (schedule(fens, m.pairs, group_seed(spec.seed, m.group)) for m in arms)
    assert [s.fen for s in long[:20]] == [s.fen for s in short]  # paired by opening
    assert len({s.opening for s in long}) == 20  # each pair its own opening
    mine = schedule(fens, 10, group_seed(spec.seed, other.group))
    assert {s.opening for s in mine} != {s.opening for s in short}


def test_a_match_stops_when_its_rule_says_so_and_stays_stopped(tmp_path: Path) -> None:
    fens = read_epd(Path(__file__).resolve().parents[1] / "chessmoe" / "data" / "openings"
                    / "chessmoe-5ply.epd")
    slots = schedule(fens, 6, seed=2)
    rules = Adjudication(max_plies=16)
    log = tmp_path / "g.jsonl"
    records = play_match(UNIFORM, UNIFORM_B, slots, log, rules=rules,
                         stop_when=lambda played: len(played) >= 4)
    assert len(records) == 4
    again = play_match(UNIFORM, UNIFORM_B, slots, log, rules=rules,
                       stop_when=lambda played: len(played) >= 4)
    assert len(again) == 4  # decided: a resumed match plays nothing more
    together = play_match(UNIFORM, UNIFORM_B, slots, tmp_path / "c.jsonl", rules=rules,
                          concurrency=3, stop_when=lambda played: len(played) >= 2)
    assert 2 <= len(together) <= 4  # games in flight when it stopped still count


def test_sprt_rule_reads_complete_pairs_only() -> None:
    """The rule's states with hand-chosen results (not recomputed with elo.sprt): 120 won
    pairs and 60 won-drawn pairs accept H1, 180 lost pairs accept H0, and lone games of
    unfinished pairs count for nothing, however many."""
    from chessmoe.play.match import SprtRule

    rule = SprtRule(elo0=0, elo1=10, alpha=0.05, beta=0.1)
    game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", (), (), (), 0.0)
    wins = [game.in_match(pair=p, first_score=1.0 if k == 0 or p % 3 else 0.5)
            for p in range(180) for k in range(2)]  # 120 WW pairs, 60 WD pairs
    assert rule.state(wins) == "H1 accepted"
    losses = [game.in_match(pair=p, first_score=0.0) for p in range(180) for _ in range(2)]
    assert rule.state(losses) == "H0 accepted"
    half = [game.in_match(pair=p, first_score=1.0) for p in range(300)]  # one game a pair
    assert rule.state(half) == "continue"
    # ten drawn pairs and 300 lone wins: only the draws count, nothing is decided yet
    draws = [game.in_match(pair=p, first_score=0.5) for p in range(10) for _ in range(2)]
    lone = [game.in_match(pair=1000 + p, first_score=1.0) for p in range(300)]
    assert rule.state(draws + lone) == "continue"
    assert rule(wins) and not rule(draws + lone)


def test_a_player_who_always_loses_scores_zero_with_both_colours(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Resigner:
        """Answers no move: loses every game on the spot (illegal move)."""

        def __init__(self, name: str) -> None:
            self.name = name

        def new_game(self) -> None:
            pass

        def move(self, board: chess.Board) -> MoveOutcome:
            return MoveOutcome(None, None)

        def close(self) -> None:
            pass

    class FirstLegal(Resigner):
        def move(self, board: chess.Board) -> MoveOutcome:
            return MoveOutcome(next(iter(board.legal_moves)), 0)

    monkeypatch.setattr(PlayerSpec, "build", lambda spec: Resigner(spec.name)
                        if spec.name == "loser" else FirstLegal(spec.name))
    loser, winner = PlayerSpec(name="loser"), PlayerSpec(name="winner")
    slots = schedule([chess.STARTING_FEN] * 4, 3, seed=1)
    records = play_match(loser, winner, slots, tmp_path / "g.jsonl")
    assert {r.first_is_white for r in records} == {True, False}
    assert all(r.first_score == 0.0 for r in records)  # as White and as Black
    summary = summarise(records)
    assert (summary.wins, summary.draws, summary.losses) == (0, 0, 6)
    assert summary.pentanomial == (3, 0, 0, 0, 0)


def test_the_ratings_design_is_a_round_robin_with_stockfish_anchors(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pair of players once, each pairing on its own openings (the committed claim
    design: all on the same); the related engines join only when their weights are
    committed; the anchor is one of the players."""
    from chessmoe.play.rosters import (
        RATING_ANCHOR,
        RATING_CHECK,
        ratings_claim_spec,
        ratings_spec,
    )

    experts = tmp_path / "experts"
    for name in ("regular", "staged"):
        (experts / name).mkdir(parents=True)
        (experts / name / "manifest.json").write_text("{}")
    monkeypatch.setenv("CHESSMOE_RESULTS", str(tmp_path / "results"))
    (tmp_path / "results" / "experts").mkdir(parents=True)
    spec = ratings_spec(str(experts))
    names = {p for m in spec.matches for p in (m.first.name, m.second.name)}
    assert names == {"regular", "staged", "sf-sl0-n50", "sf-sl0-n200", RATING_ANCHOR[0],
                     RATING_CHECK[0]}
    assert len(spec.matches) == 6 * 5 // 2
    assert [m.group for m in spec.matches] == [m.name for m in spec.matches]
    assert {m.group for m in ratings_claim_spec(str(experts)).matches} == {"round-robin"}
    assert len({frozenset((m.first.name, m.second.name)) for m in spec.matches}) == 15
    (tmp_path / "results" / "related" / "ntuple").mkdir(parents=True)
    with_ntuple = ratings_spec(str(experts))
    assert len(with_ntuple.matches) == 7 * 6 // 2
    assert any(m.first.kind == "ntuple" or m.second.kind == "ntuple"
               for m in with_ntuple.matches)
    # a new player only adds pairings: every earlier match keeps its name and its players,
    # so a committed round robin resumes
    assert set(spec.matches) <= set(with_ntuple.matches)


def test_a_stockfish_player_named_portably_is_found(stockfish: Path) -> None:
    """``command=("stockfish",)`` resolves through $STOCKFISH, PATH or /usr/games, so a
    committed spec.json plays on any machine."""
    from chessmoe.play.match import UciPlayer

    player = UciPlayer(PlayerSpec(name="sf", kind="uci", command=("stockfish",), nodes=10))
    try:
        outcome = player.move(chess.Board())
        assert outcome.move in chess.Board().legal_moves
    finally:
        player.close()


# An engine sure of itself: it reports +100 cp as White and +250 cp as Black, each from its
# own side (UCI scores are the side to move's), then plays its first legal move.
CONFIDENT = textwrap.dedent("""
    import sys, chess
    board = chess.Board()
    for line in sys.stdin:
        cmd = line.split()
        if not cmd: continue
        if cmd[0] == "uci": print("id name confident"); print("uciok", flush=True)
        elif cmd[0] == "isready": print("readyok", flush=True)
        elif cmd[0] == "position":
            board = chess.Board() if cmd[1] == "startpos" else chess.Board(" ".join(cmd[2:8]))
            if "moves" in cmd:
                for m in cmd[cmd.index("moves") + 1:]: board.push_uci(m)
        elif cmd[0] == "go":
            print("info depth 1 score cp " + ("100" if board.turn else "250"))
            print("bestmove " + next(iter(board.legal_moves)).uci(), flush=True)
        elif cmd[0] == "quit": break
""")


def test_a_uci_engine_playing_black_records_its_own_score(tmp_path: Path) -> None:
    from chessmoe.play.match import UciPlayer, play_game

    script = tmp_path / "confident.py"
    script.write_text(CONFIDENT)
    spec = PlayerSpec(name="confident", kind="uci", command=(sys.executable, str(script)),
                      nodes=1)
    white, black = UciPlayer(spec), UciPlayer(spec)
    try:
        after_e4 = chess.Board()
        after_e4.push_san("e4")
        assert black.move(after_e4).score_cp == 250  # Black's own view, not White's (-250)
        record = play_game(white, black, chess.STARTING_FEN, Adjudication(max_plies=6))
    finally:
        white.close()
        black.close()
    assert record.termination == "max_plies" and len(record.moves) == 6
    assert record.scores_white == (100, 100, 100)
    assert record.scores_black == (250, 250, 250)


def test_units_give_each_opening_group_its_own_seed() -> None:
    """The seed a unit draws its openings with: the tournament's seed mixed with the group's
    name (the first 8 bytes of sha256("<seed>:<group>")), shared inside a group, different
    between groups and between tournament seeds."""
    import hashlib

    def by_hand(seed: int, group: str) -> int:
        return int.from_bytes(hashlib.sha256(f"{seed}:{group}".encode()).digest()[:8], "big")

    arms = [MatchSpec(f"arm{k}", UNIFORM, UNIFORM_B, 10, openings_group="g") for k in range(2)]
    other = MatchSpec("other", UNIFORM, UNIFORM_B, 10)
    spec = TournamentSpec("t", (*arms, other), pairs_per_shard=5, seed=7)
    seeds = {(u.match.name, u.shard): u.seed for u in units(spec)}
    assert set(seeds) == {(m, k) for m in ("arm0", "arm1", "other") for k in (0, 1)}
    assert {seeds["arm0", k] for k in (0, 1)} == {seeds["arm1", 0]} == {by_hand(7, "g")}
    assert seeds["other", 0] == seeds["other", 1] == by_hand(7, "other")
    assert by_hand(7, "g") != by_hand(7, "other")
    # so the groups play different openings (as run_unit draws them)
    fens = read_epd(Path(__file__).resolve().parents[1] / "chessmoe" / "data" / "openings"
                    / "chessmoe-5ply.epd")
    drawn = {name: [s.opening for s in schedule(fens, 10, seeds[name, 0])]
             for name in ("arm0", "arm1", "other")}
    assert drawn["arm0"] == drawn["arm1"] and drawn["arm0"] != drawn["other"]
    again = TournamentSpec("t", (*arms, other), pairs_per_shard=5, seed=8)
    assert {u.seed for u in units(again) if u.match.name == "other"} == {by_hand(8, "other")}


@pytest.mark.slow
def test_a_tournament_can_play_some_of_its_matches_and_add_the_rest_later(
        tmp_path: Path) -> None:
    """--match plays only the named matches; a later run of the others adds them to the same
    directory, and neither run erases the other's record in spec.json or summary.json."""
    from chessmoe._io.errors import KitError
    from chessmoe.play.tournament import only_matches

    first = run_local(only_matches(_tiny_spec(), ["b-vs-a"]), tmp_path, workers=1,
                      progress=False)
    assert [m.name for m in first.matches] == ["b-vs-a"] and first.complete
    assert not (tmp_path / "a-vs-b").exists()
    # the first run is a finished tournament: outside git it counts as committed evidence,
    # so adding a match to it takes force (issue 44); an unfinished one would just resume
    from chessmoe._io.evidence import CommittedResult

    with pytest.raises(CommittedResult, match=r"\(new matches a-vs-b\); pass --force"):
        run_local(only_matches(_tiny_spec(), ["a-vs-b"]), tmp_path, workers=1, progress=False)
    assert not (tmp_path / "a-vs-b").exists()
    second = run_local(only_matches(_tiny_spec(), ["a-vs-b"]), tmp_path, workers=1,
                       progress=False, force=True)
    assert sorted(m.name for m in second.matches) == ["a-vs-b", "b-vs-a"]
    assert all(m.summary.games == 4 for m in second.matches) and second.complete
    recorded = json.loads((tmp_path / "spec.json").read_text())
    assert sorted(m["name"] for m in recorded["matches"]) == ["a-vs-b", "b-vs-a"]
    # the whole design afterwards resumes both, nothing replayed
    whole = run_local(_tiny_spec(), tmp_path, workers=1, progress=False)
    assert [m.summary.games for m in whole.matches] == [4, 4]
    # a recorded match played differently is still refused, named or not in this run
    with pytest.raises(ValueError, match="played differently"):
        run_local(only_matches(_tiny_spec(pairs=3), ["a-vs-b"]), tmp_path, workers=1,
                  progress=False)
    with pytest.raises(KitError, match="no match 'c-vs-d'; its matches: a-vs-b, b-vs-a"):
        only_matches(_tiny_spec(), ["a-vs-b", "c-vs-d"])


def test_a_run_of_one_match_from_another_checkout_leaves_the_record_as_it_was(
        tmp_path: Path) -> None:
    """A resumed run of one match (``--match``), its bundles named by another checkout's
    path, leaves spec.json byte for byte: the record's match order stays, so a committed
    design's records are not rewritten (which made every game played after it say dirty)."""
    from dataclasses import replace

    from chessmoe.play.tournament import _write_spec, only_matches

    def spec(root: str) -> TournamentSpec:
        def at(player: PlayerSpec, bundle: str) -> PlayerSpec:
            return replace(player, experts=f"{root}/{bundle}")

        names = ("a-vs-b", "b-vs-a", "c-vs-a")
        return TournamentSpec("t", tuple(MatchSpec(n, at(UNIFORM, n[0]), at(UNIFORM_B, n[-1]), 2)
                                         for n in names))

    _write_spec(spec("/work/first/results"), tmp_path)
    before = (tmp_path / "spec.json").read_bytes()
    for name in ("a-vs-b", "b-vs-a", "c-vs-a"):  # first, middle, last
        _write_spec(only_matches(spec("/elsewhere/clone/results"), [name]), tmp_path)
        assert (tmp_path / "spec.json").read_bytes() == before, name
    # a new match joins after the recorded ones, which keep their order
    grown = replace(spec("/x"), matches=(*spec("/x").matches,
                                         MatchSpec("d-vs-a", UNIFORM, UNIFORM_B, 2)))
    _write_spec(only_matches(grown, ["d-vs-a"]), tmp_path)
    recorded = json.loads((tmp_path / "spec.json").read_text())
    assert [m["name"] for m in recorded["matches"]] == ["a-vs-b", "b-vs-a", "c-vs-a", "d-vs-a"]


def test_the_related_design_pairs_each_engine_with_its_documents_baseline(
        tmp_path: Path) -> None:
    """Matches appear when their runs exist; each is labelled with its weights' checksums, so
    a run retrained under the same path makes the design refuse to resume."""
    from chessmoe._io.fsutil import sha256_file
    from chessmoe.play.designs import build_design
    from chessmoe.play.rosters import related_spec
    from chessmoe.play.tournament import _write_spec

    related = tmp_path / "results" / "related"
    experts = tmp_path / "results" / "experts" / "small"
    experts.mkdir(parents=True)
    assert related_spec(str(experts)).matches == ()
    (related / "ntuple").mkdir(parents=True)
    (related / "ntuple" / "weights.npz").write_bytes(b"trained n-tuple")
    (related / "mais" / "at-200-games").mkdir(parents=True)
    (related / "mais" / "weights.pt").write_bytes(b"1200 games")
    spec = related_spec(str(experts))
    assert [m.name for m in spec.matches] == ["ntuple-vs-pesto"]  # no snapshot: no MAIS arm
    (related / "mais" / "at-200-games" / "weights.pt").write_bytes(b"200 games")
    spec = build_design("related", experts)
    by_name = {m.name: m for m in spec.matches}
    assert list(by_name) == ["ntuple-vs-pesto", "mais-vs-mais-at-200",
                             "mais-vs-mais-at-200-sprt"]
    ntuple = by_name["ntuple-vs-pesto"]
    assert ntuple.pairs == 500 and ntuple.first.nodes == ntuple.second.nodes == 400
    assert dict(ntuple.second.options) == {"Evaluation": "pesto"}
    assert ntuple.label("weights_first") == sha256_file(related / "ntuple" / "weights.npz")[:12]
    (related / "ntuple-d2").mkdir()
    (related / "ntuple-d2" / "weights.npz").write_bytes(b"trained at d = 2")
    by_name = {m.name: m for m in related_spec(str(experts)).matches}
    assert list(by_name) == ["ntuple-vs-pesto", "ntuple-d2-vs-pesto", "ntuple-d2-vs-ntuple",
                             "mais-vs-mais-at-200", "mais-vs-mais-at-200-sprt"]
    head = by_name["ntuple-d2-vs-ntuple"]  # the document's 2-ply against 1-ply training
    assert head.first.experts == str(related / "ntuple-d2")
    assert head.second.experts == str(related / "ntuple")
    assert head.first.nodes == head.second.nodes == 400 and head.pairs == 500
    assert head.first.options == head.second.options == ()
    assert head.label("weights_first") == sha256_file(related / "ntuple-d2" / "weights.npz")[:12]
    assert head.label("weights_second") == ntuple.label("weights_first")
    (related / "ntuple-d2" / "weights.npz").unlink()
    mais = by_name["mais-vs-mais-at-200"]
    assert mais.pairs == 100 and mais.second.experts == str(related / "mais" / "at-200-games")
    assert mais.label("weights_second") != mais.label("weights_first")
    assert spec.adjudication == Adjudication() and ntuple.group != mais.group
    sprt = by_name["mais-vs-mais-at-200-sprt"]  # issue 43: the same players to a decision
    assert (sprt.first, sprt.second, sprt.labels) == (mais.first, mais.second, mais.labels)
    assert sprt.sprt is not None and (sprt.sprt.elo0, sprt.sprt.elo1) == (0.0, 35.0)
    assert sprt.group != mais.group and sprt.pairs == 1000 and mais.sprt is None
    assert spec.adjudication.max_plies > 200  # games are not capped at 200 plies
    (related / "deepchess").mkdir()
    (related / "deepchess" / "weights.pt").write_bytes(b"deepchess")
    by_name = {m.name: m for m in related_spec(str(experts)).matches}
    full, flat = by_name["deepchess-vs-material"], by_name["deepchess-vs-material-flat"]
    assert dict(full.first.options) == dict(flat.first.options) == {"Depth": 3}
    assert dict(full.second.options) == {"Evaluation": "material", "Depth": 3}
    assert dict(flat.second.options) == {"Evaluation": "material", "Depth": 3,
                                         "Quiescence": False}
    assert full.group != flat.group and full.pairs == flat.pairs == 100
    quiet = by_name["deepchess-quiet-vs-material"]
    assert dict(quiet.first.options) == {"Depth": 3, "Quiescence": True}
    assert quiet.second == full.second and quiet.group not in (full.group, flat.group)
    deeper = by_name["deepchess-d4-vs-material-flat"]  # past depth 3, the same horizons
    assert dict(deeper.first.options) == {"Depth": 4} and deeper.pairs == 100
    assert dict(deeper.second.options) == {"Evaluation": "material", "Depth": 4,
                                           "Quiescence": False}
    assert deeper.group not in (full.group, flat.group, quiet.group)
    out = tmp_path / "out"
    _write_spec(spec, out)
    (related / "ntuple" / "weights.npz").write_bytes(b"retrained n-tuple")
    with pytest.raises(ValueError, match="ntuple-vs-pesto"):
        _write_spec(related_spec(str(experts)), out)


@pytest.mark.parametrize("quiescence", [False, True])
def test_a_depth_limited_deepchess_and_material_game_is_played(tmp_path: Path,
                                                               quiescence: bool) -> None:
    """The equal-depth pairing (no node limit, Depth 1 here) plays legal games to an end,
    DeepChess with or without its quiescence search."""
    from chessmoe.play.players import default_model_dir

    deepchess = default_model_dir("deepchess")
    if deepchess is None:
        pytest.skip("no committed DeepChess run")
    first = PlayerSpec(name="deepchess", kind="deepchess", experts=str(deepchess),
                       nodes=None, options=(("Depth", 1), ("Quiescence", quiescence)))
    assert first.build().searcher.search.quiescence is quiescence  # type: ignore[attr-defined]
    second = PlayerSpec(name="material", kind="ntuple", experts=None, nodes=None,
                        options=(("Evaluation", "material"), ("Depth", 1)))
    slots = schedule(read_epd(resolve_suite("embedded")), 1, 3)[:1]
    (record,) = play_match(first, second, slots, tmp_path / "games.jsonl",
                           rules=Adjudication(max_plies=40))
    assert record.result in ("1-0", "0-1", "1/2-1/2") and 0 < record.plies <= 40
    board = chess.Board(record.fen)
    for move in record.moves:
        board.push_uci(move)


def test_the_rating_round_robin_gives_every_engine_100_games_from_50_openings(
        tmp_path: Path) -> None:
    """The replayed rating list (issue 22): >= 100 games and >= 50 distinct openings per
    engine, cutechess rules, related engines labelled by their weights; the committed list's
    design is still buildable (its recorded spec accepts it)."""
    from chessmoe.play.designs import build_design
    from chessmoe.play.openings import group_seed
    from chessmoe.play.players import RELATED_KINDS
    from chessmoe.play.tournament import _write_spec, with_recorded_search

    experts = Path(__file__).resolve().parents[1] / "results" / "experts" / "small"
    spec = build_design("ratings-cutechess", experts)
    assert spec.adjudication == Adjudication()
    fens = read_epd(resolve_suite("embedded"))
    games: dict[str, int] = {}
    openings: dict[str, set[int]] = {}
    for match in spec.matches:
        slots = schedule(fens, match.pairs, group_seed(spec.seed, match.group))
        for name in (match.first.name, match.second.name):
            games[name] = games.get(name, 0) + len(slots)
            openings.setdefault(name, set()).update(s.opening for s in slots)
        for side in (match.first, match.second):
            if side.kind in RELATED_KINDS:
                assert len(str(match.label(f"weights_{side.name}"))) == 12
    assert len(games) >= 8
    assert min(games.values()) >= 100 and min(len(o) for o in openings.values()) >= 50
    committed = experts.parents[1] / "tournaments" / "ratings" / "spec.json"
    out = tmp_path
    (out / "spec.json").write_text(committed.read_text())
    # accepted: the same design, resumed with the search that played it
    _write_spec(with_recorded_search(build_design("ratings", experts), out), out)
    with pytest.raises(ValueError, match="--search python"):
        _write_spec(build_design("ratings", experts), out)  # not with another search
    with pytest.raises(ValueError):
        _write_spec(with_recorded_search(spec, out), out)


def test_deepchess_reports_a_score_only_for_a_mate_it_found() -> None:
    """Its comparator confidence is not an evaluation: no score in an ordinary position (so
    it is never resign-adjudicated on it), a mate score when it sees mate in one; an engine
    with calibrated values (the n-tuple engine) always reports one."""
    from chessmoe.play.match import SearcherPlayer
    from chessmoe.play.players import default_model_dir

    deepchess = default_model_dir("deepchess")
    if deepchess is None:
        pytest.skip("no committed DeepChess run")
    player = SearcherPlayer(PlayerSpec(name="dc", kind="deepchess", experts=str(deepchess),
                                       nodes=None, options=(("Depth", 1),)))
    assert player.move(chess.Board()).score_cp is None
    mate = player.move(chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"))  # Ra8#
    assert mate.move == chess.Move.from_uci("a1a8") and mate.score_cp is not None
    assert mate.score_cp >= 10000
    ntuple = SearcherPlayer(PlayerSpec(name="nt", kind="ntuple", nodes=50))
    assert ntuple.move(chess.Board()).score_cp is not None


# --- one record a slot, one writer a shard ------------------------------------------------------


def test_a_slot_logged_twice_counts_once_and_is_reported(tmp_path: Path,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    """Two processes once appended the same deterministic games to one shard (25 lines for
    20 slots): the summary must count each slot once and say what it skipped."""
    from chessmoe.records import load_records

    slots = schedule(read_epd(resolve_suite("embedded")), 2, seed=4)
    log = tmp_path / "games-000.jsonl"
    records = play_match(UNIFORM, UNIFORM_B, slots, log, rules=Adjudication(max_plies=8))
    lines = log.read_text().splitlines()
    log.write_text("\n".join([*lines, lines[0], lines[2], lines[0]]) + "\n")
    other = tmp_path / "games-001.jsonl"
    other.write_text(lines[1] + "\n")  # a slot repeated in another shard's log
    with caplog.at_level("WARNING", logger="chessmoe"):
        again = load_records([log, other])
    assert [r.slot for r in again] == [r.slot for r in records]
    assert again == sorted(records, key=lambda r: [s.id for s in slots].index(r.slot or ""))
    count = [(s.wins, s.draws, s.losses, s.pentanomial) for s in map(summarise, (again, records))]
    assert count[0] == count[1] and sum(count[0][:3]) == 4
    assert "games-000.jsonl: 3 record(s)" in caplog.text
    assert "games-001.jsonl: 1 record(s)" in caplog.text


def test_a_shard_held_by_another_writer_is_refused_not_played_twice(tmp_path: Path) -> None:
    from chessmoe._io.fsutil import BusyError
    from chessmoe._io.jsonl import JsonlLog

    slots = schedule(read_epd(resolve_suite("embedded")), 1, seed=4)
    log = tmp_path / "games-016.jsonl"
    with JsonlLog(log, key="slot"), pytest.raises(BusyError, match=r"games-016\.jsonl"):
        play_match(UNIFORM, UNIFORM_B, slots, log, rules=Adjudication(max_plies=8))
    assert not log.exists() or log.read_text() == ""
    assert len(play_match(UNIFORM, UNIFORM_B, slots, log, rules=Adjudication(max_plies=8))) == 2


def test_tournament_workers_follow_their_parent() -> None:
    """The pool initializer of tournaments starts the watch that ends a worker with its
    parent (tested end to end in test_io)."""
    import multiprocessing as mp
    import threading

    from chessmoe.play.tournament import _pin_worker

    before = {t.ident for t in threading.enumerate()}
    _pin_worker(mp.get_context("spawn").Value("i", 0), 0)
    started = [t for t in threading.enumerate() if t.ident not in before]
    assert [t.name for t in started] == ["chessmoe-follow-parent"] and started[0].daemon


def test_a_tournament_match_with_an_sprt_stops_once_decided_across_its_shards(
        tmp_path: Path) -> None:
    """Issue 43: a match run to a decision -- its shards read one another's games, the first
    game that decides the test is the last played, the summary records the test and counts
    the match complete, a rerun plays nothing, and the spec keeps its bounds."""
    from chessmoe.play.match import SprtRule
    from chessmoe.play.tournament import progress
    from chessmoe.records import load_records

    rule = SprtRule(elo0=0, elo1=200, alpha=0.05, beta=0.05)
    match = MatchSpec("sprt", UNIFORM, UNIFORM_B, 8, (("kind", "test"),), sprt=rule)
    spec = TournamentSpec("tiny-sprt", (match,), pairs_per_shard=3,
                          adjudication=Adjudication(max_plies=16))
    summary = run_local(spec, tmp_path, workers=1, progress=False)
    logs = sorted((tmp_path / "sprt").glob("games-*.jsonl"))
    records = sorted(load_records(logs), key=lambda r: (r.pair or 0, r.game or 0))
    assert 2 <= len(records) < 16
    assert len(logs) == -(-(len(records) // 2) // 3)  # the shards after it: never started
    assert rule(records) and not rule(records[:-2])  # stopped at the deciding pair
    (entry,) = summary.matches
    assert entry.sprt is not None
    assert entry.sprt.state == rule.state(records) and entry.sprt.elo1 == 200
    assert entry.sprt.pairs == len(records) // 2 and summary.complete is True
    again = run_local(spec, tmp_path, workers=1, progress=False)
    assert again.matches[0].summary.games == len(records)
    assert progress(spec, tmp_path)[0].decided == rule.state(records)
    recorded = json.loads((tmp_path / "spec.json").read_text())["matches"][0]
    assert recorded["sprt"]["elo0"] == 0 and recorded["sprt"]["alpha"] == 0.05
    plain = json.loads(json.dumps(_tiny_spec().to_dict()))["matches"][0]
    assert "sprt" not in plain  # matches without a test keep their recorded identity
