"""Rule parity with cutechess-cli: the kit's games replayed under the real tournament manager.

Each recorded game is played again *by cutechess-cli* between two replay engines that answer
with the recorded move and score (a forced move where the record has no score), so only the
manager's rules decide its end; the game agrees when cutechess-cli ends it after the same
plies with the same result for the same reason as the kit (:mod:`chessmoe.rules`,
:mod:`chessmoe.play.adjudication`). A replay engine asked past the recorded end plays the
first legal move, and the game disagrees. ``python -m chessmoe.play.parity serve LOG SLOT`` is
the replay engine; :func:`run_parity` does the rest (``chessmoe results parity``).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO

import chess
import chess.pgn

from chessmoe.play.match import Adjudication
from chessmoe.records import GameRecord, TournamentPlan

__all__ = ["DESCRIPTIONS", "ParityGame", "ParityReport", "find_manager", "manager_command",
           "pick_games", "replay_game", "run_parity", "serve"]

_REPO = Path(__file__).resolve().parents[2]  # the checkout this module runs from

# cutechess-cli's result descriptions (projects/lib/src/board/result.cpp, westernboard.cpp)
# for each of the kit's terminations; {w} is the winner's colour.
DESCRIPTIONS = {
    "checkmate": "{w} mates",
    "stalemate": "Draw by stalemate",
    "insufficient_material": "Draw by insufficient mating material",
    "fifty_moves": "Draw by fifty moves rule",
    "repetition": "Draw by 3-fold repetition",
    "resign_adjudication": "{w} wins by adjudication",
    "draw_adjudication": "Draw by adjudication",
    "max_plies": "Draw by adjudication: maximal game length",
}


@dataclass(frozen=True)
class ParityGame:
    """One game as the kit ended it and as cutechess-cli ended it."""

    match: str
    slot: str
    kit_result: str
    kit_termination: str
    kit_plies: int
    manager_result: str
    manager_reason: str
    manager_plies: int
    same_moves: bool  # the manager's game is the record's moves, no more, no fewer

    @property
    def agree(self) -> bool:
        expected = expected_description(self.kit_result, self.kit_termination)
        return (self.same_moves and self.kit_result == self.manager_result
                and self.kit_plies == self.manager_plies and expected == self.manager_reason)


@dataclass(frozen=True)
class ParityReport:
    """Every replayed game, the manager and the rules they were replayed under."""

    manager: str
    manager_version: str
    tournament: str
    rules: dict[str, object]
    games: tuple[ParityGame, ...]

    @property
    def agreeing(self) -> int:
        return sum(g.agree for g in self.games)

    def by_termination(self) -> dict[str, tuple[int, int]]:
        """``termination -> (agreeing, replayed)`` of the kit's terminations."""
        out: dict[str, tuple[int, int]] = {}
        for g in self.games:
            agree, total = out.get(g.kit_termination, (0, 0))
            out[g.kit_termination] = (agree + g.agree, total + 1)
        return dict(sorted(out.items()))

    def to_json(self) -> dict[str, object]:
        return {"manager": self.manager, "manager_version": self.manager_version,
                "tournament": self.tournament, "rules": self.rules,
                "agreeing": self.agreeing, "replayed": len(self.games),
                "by_termination": {k: {"agree": a, "replayed": n}
                                   for k, (a, n) in self.by_termination().items()},
                "games": [{**asdict(g), "agree": g.agree} for g in self.games]}


def expected_description(result: str, termination: str) -> str:
    """The description cutechess-cli gives a game the kit ended with ``termination``."""
    winner = {"1-0": "White", "0-1": "Black"}.get(result, "")
    template = DESCRIPTIONS.get(termination)
    return template.format(w=winner) if template else f"(no cutechess reading of {termination})"


# --- the replay engine ---------------------------------------------------------------------


def _record(log: str | os.PathLike[str], slot: str) -> GameRecord:
    from chessmoe._io.jsonl import read_records

    for data in read_records(log).records:
        if data.get("slot") == slot:
            return GameRecord.from_json(data)
    raise SystemExit(f"no game {slot!r} in {log}")


def serve(record: GameRecord, source: IO[str], sink: IO[str]) -> None:
    """Answer UCI as the record's players did: the recorded move and its recorded score.

    A position that is not the record's (another start or other moves) or past its end is
    answered with the first legal move in UCI order and ``info string parity: ...``."""
    board = chess.Board(record.fen)
    played = 0
    on_record = True

    def send(line: str) -> None:
        sink.write(line + "\n")
        sink.flush()

    for raw in source:
        tokens = raw.split()
        if not tokens:
            continue
        command = tokens[0]
        if command == "uci":
            send("id name chessmoe-replay")
            send("id author chessmoe")
            send("uciok")
        elif command == "isready":
            send("readyok")
        elif command == "position":
            board, played, on_record = _position(record, tokens[1:])
        elif command == "go":
            if on_record and played < len(record.moves):
                move = record.moves[played]
                mover_scores = (record.scores_white if board.turn == chess.WHITE
                                else record.scores_black)
                index = sum(1 for k in range(played) if _mover(record, k) == board.turn)
                score = mover_scores[index] if index < len(mover_scores) else None
                if score is not None:
                    send(f"info depth 1 score cp {score}")
                send(f"bestmove {move}")
            else:
                send("info string parity: the position is past or off the record")
                legal = sorted(m.uci() for m in board.legal_moves)
                send(f"bestmove {legal[0] if legal else '0000'}")
        elif command == "quit":
            return


def _mover(record: GameRecord, ply: int) -> chess.Color:
    first = chess.Board(record.fen).turn
    return first if ply % 2 == 0 else not first


def _position(record: GameRecord, tokens: list[str]) -> tuple[chess.Board, int, bool]:
    if tokens and tokens[0] == "startpos":
        board, rest = chess.Board(), tokens[1:]
    else:
        fen: list[str] = []
        rest = tokens[1:]
        while rest and rest[0] != "moves":
            fen.append(rest.pop(0))
        board = chess.Board(" ".join(fen))
    moves = rest[1:] if rest and rest[0] == "moves" else []
    on_record = (board.board_fen() == chess.Board(record.fen).board_fen()
                 and list(record.moves[:len(moves)]) == moves)
    for move in moves:
        board.push_uci(move)
    return board, len(moves), on_record


# --- the manager -----------------------------------------------------------------------------


def find_manager(path: str | None = None) -> Path | None:
    """cutechess-cli: ``path``, ``$CUTECHESS``, ``build/cutechess/cutechess-cli`` or PATH."""
    for candidate in (path, os.environ.get("CUTECHESS"),
                      str(_REPO / "build" / "cutechess" / "cutechess-cli"),
                      shutil.which("cutechess-cli")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


def manager_command(manager: str | os.PathLike[str], log: str | os.PathLike[str], slot: str,
                    rules: Adjudication, book: str | os.PathLike[str],
                    pgn_out: str | os.PathLike[str]) -> list[str]:
    """cutechess-cli's command line for one game: two replay engines, the record's opening
    as a one-game PGN book, and the kit's adjudication as the paper passes it to cutechess
    (``-resign movecount=5 score=600 -draw movenumber=30 movecount=4 score=20``)."""
    engine = [f"cmd={sys.executable}", "arg=-m", "arg=chessmoe.play.parity", "arg=serve",
              f"arg={os.fspath(log)}", f"arg={slot}"]
    resign = [f"movecount={rules.resign_movecount}", f"score={rules.resign_score}"]
    if rules.resign_two_sided:
        resign.append("twosided=true")
    return [os.fspath(manager),
            "-engine", "name=white", *engine, "-engine", "name=black", *engine,
            "-each", "proto=uci", "st=30", "timemargin=60000",
            "-openings", f"file={os.fspath(book)}", "format=pgn", "order=sequential",
            "-games", "1", "-rounds", "1",
            "-draw", f"movenumber={rules.draw_movenumber}", f"movecount={rules.draw_movecount}",
            f"score={rules.draw_score}",
            "-resign", *resign,
            "-maxmoves", str(rules.max_plies // 2),
            "-pgnout", os.fspath(pgn_out)]


_COMMENT = re.compile(r"\{([^{}]*)\}\s*(?:1-0|0-1|1/2-1/2|\*)\s*$")


def replay_game(manager: str | os.PathLike[str], match: str, log: str | os.PathLike[str],
                record: GameRecord, rules: Adjudication, timeout: float = 120.0) -> ParityGame:
    """Play ``record`` again under cutechess-cli and read how the manager ended it."""
    if record.slot is None:
        raise ValueError("a game without a slot cannot be replayed")
    with tempfile.TemporaryDirectory(prefix="chessmoe-parity-") as tmp:
        book, pgn_out = Path(tmp) / "book.pgn", Path(tmp) / "out.pgn"
        book.write_text(f'[Event "?"]\n[SetUp "1"]\n[FEN "{record.fen}"]\n\n*\n\n')
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (str(_REPO), os.environ.get("PYTHONPATH", "")) if p)}
        subprocess.run(manager_command(manager, Path(log).resolve(), record.slot, rules, book,
                                       pgn_out),
                       cwd=tmp, env=env, capture_output=True, text=True, timeout=timeout,
                       check=False)
        text = pgn_out.read_text() if pgn_out.exists() else ""
    game = chess.pgn.read_game(io.StringIO(text)) if text else None
    if game is None:
        return ParityGame(match, record.slot, record.result, record.termination,
                          record.plies, "*", "(no game written)", 0, False)
    moves = [m.uci() for m in game.mainline_moves()]
    found = _COMMENT.search(text.strip())
    reason = found.group(1).strip() if found else ""
    # cutechess puts the engine's eval and the description in one comment on the last move
    reason = reason.split(", ")[-1] if reason else reason
    return ParityGame(match, record.slot, record.result, record.termination, record.plies,
                      game.headers.get("Result", "*"), reason, len(moves),
                      moves == list(record.moves))


def pick_games(tournament: str | os.PathLike[str], games: int,
               matches: Sequence[str] | None = None, each: int = 5
               ) -> list[tuple[str, Path, GameRecord]]:
    """``games`` games of a tournament directory, each with its log, deterministic: first
    up to ``each`` games of every termination the tournament has (so a rare rule, such as
    the fifty-move rule, is replayed too), then the rest round-robin over its matches
    (every match's first game, then every second, ...)."""
    from chessmoe._io.jsonl import read_records

    per_match: list[list[tuple[str, Path, GameRecord]]] = []
    for directory in sorted(p for p in Path(tournament).iterdir() if p.is_dir()):
        if matches and directory.name not in matches:
            continue
        mine = [(directory.name, log, GameRecord.from_json(r))
                for log in sorted(directory.glob("games-*.jsonl"))
                for r in read_records(log).records]
        if mine:
            per_match.append(mine)
    order: list[tuple[str, Path, GameRecord]] = []
    depth = 0
    while any(depth < len(m) for m in per_match):
        order += [m[depth] for m in per_match if depth < len(m)]
        depth += 1
    taken: dict[str, int] = {}
    first: list[int] = []
    for index, (_, _, record) in enumerate(order):
        reason = record.termination or ""
        if taken.get(reason, 0) < each:
            taken[reason] = taken.get(reason, 0) + 1
            first.append(index)
    chosen = first[:games]
    rest = (i for i in range(len(order)) if i not in set(chosen))
    chosen += [i for _, i in zip(range(games - len(chosen)), rest, strict=False)]
    return [order[i] for i in sorted(chosen)]


def run_parity(tournament: str | os.PathLike[str], manager: str | os.PathLike[str],
               games: int, out: str | os.PathLike[str] | None = None,
               matches: Sequence[str] | None = None, progress: bool = True) -> ParityReport:
    """Replay ``games`` games of ``tournament`` under cutechess-cli (its rules from the
    tournament's ``spec.json``); write the report (JSON, with provenance) to ``out``."""
    from tqdm.auto import tqdm

    from chessmoe._io.fsutil import atomic_write_json
    from chessmoe._io.provenance import provenance

    rules = Adjudication.from_dict(
        dict(TournamentPlan.read(Path(tournament) / "spec.json").adjudication))
    picked = pick_games(tournament, games, matches)
    if not picked:
        raise ValueError(f"{tournament}: no game records to replay")
    version = subprocess.run([os.fspath(manager), "--version"], capture_output=True,
                             text=True, check=False).stdout.splitlines()
    replayed: list[ParityGame] = []
    for match, log, record in tqdm(picked, desc="parity", unit="game", disable=not progress):
        replayed.append(replay_game(manager, match, log, record, rules))
    report = ParityReport(Path(manager).name, version[0] if version else "", str(tournament),
                          asdict(rules), tuple(replayed))
    if out is not None:
        atomic_write_json(Path(out), {**report.to_json(), "provenance": provenance()})
    return report


def _main(argv: Iterable[str]) -> int:
    args = list(argv)
    if len(args) != 3 or args[0] != "serve":
        print("usage: python -m chessmoe.play.parity serve LOG SLOT", file=sys.stderr)
        return 2
    serve(_record(args[1], args[2]), sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
