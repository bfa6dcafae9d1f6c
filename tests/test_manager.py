"""Every engine of the kit under a real tournament manager (fastchess) against Stockfish.

fastchess drives the UCI dialogue exactly as users' tournaments will: new games, positions
from a book, ``go nodes``, adjudication. The games must end normally (mate, draw rules or
adjudication), never by an illegal move, a stall, a disconnect or a time forfeit, and the
manager must log no complaint about our engine. Runs when fastchess is built
(``make fastchess``; ``.ci/run`` does it) and Stockfish is installed; skips otherwise.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

BAD_TERMINATIONS = ("illegal move", "stall", "disconnect", "time forfeit", "abandoned")


def _fastchess() -> Path:
    for candidate in (os.environ.get("FASTCHESS"), str(REPO / "build" / "fastchess" /
                                                       "fastchess"), shutil.which("fastchess")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return Path(candidate)
    pytest.skip("fastchess is not built: run 'make fastchess' (needs git and network once)")


def _engine_args(kind: str) -> list[str]:
    if kind == "moe":
        experts = REPO / "results" / "experts" / "small" / "separated"
        return ["uci", "--experts", str(experts)]
    from chessmoe.play.players import default_model_dir

    if default_model_dir(kind) is None:
        pytest.skip(f"no committed weights for {kind} (results/related/{kind})")
    return ["uci", "--player", kind]


@pytest.mark.tools
@pytest.mark.parametrize("kind", ["moe", "deepchess", "ntuple", "mais"])
def test_engine_plays_complete_games_under_fastchess(kind: str, stockfish: Path,
                                                     tmp_path: Path) -> None:
    fastchess = _fastchess()
    args = _engine_args(kind)
    book = tmp_path / "book.epd"
    book.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n")
    pgn, log = tmp_path / "games.pgn", tmp_path / "fastchess.log"
    command = [str(fastchess),
               "-engine", f"cmd={sys.executable}", f"args=-m chessmoe {' '.join(args)}",
               f"name={kind}", "nodes=40",
               "-engine", f"cmd={stockfish}", "name=stockfish", "option.Skill Level=0",
               "nodes=100",
               "-each", "proto=uci", "timemargin=10000",
               "-openings", f"file={book}", "format=epd", "order=sequential",
               "-rounds", "1", "-games", "2", "-repeat",
               "-resign", "movecount=5", "score=600",
               "-draw", "movenumber=30", "movecount=4", "score=20",
               "-pgnout", f"file={pgn}", "-log", f"file={log}", "level=warn"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    text = pgn.read_text()
    results = re.findall(r'\[Result "([^"]+)"\]', text)
    terminations = re.findall(r'\[Termination "([^"]+)"\]', text)
    assert len(results) == 2 and all(r in ("1-0", "0-1", "1/2-1/2") for r in results)
    assert not [t for t in terminations if t.lower() in BAD_TERMINATIONS], terminations
    complaints = [line for line in (log.read_text().splitlines() if log.exists() else [])
                  if kind in line and ("Warning" in line or "Error" in line)]
    assert not complaints, complaints[:5]
