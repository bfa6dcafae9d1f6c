"""Self-play runs: deterministic games, resumable shards, refused mismatches, skipped crashes,
and shards checked against the manifest when a dataset reads them."""

from __future__ import annotations

import gzip
import hashlib
import json
import stat
import sys
from pathlib import Path

import chess
import numpy as np
import pytest

from chessmoe._io.fsutil import atomic_path
from chessmoe.cli import main
from chessmoe.games import selfplay_run
from chessmoe.games.epd import embedded_suite_path, read_epd
from chessmoe.games.pgn import SkipCounter, iter_games
from chessmoe.games.selfplay_run import (
    RunError,
    RunSettings,
    game_plan,
    grow,
    read_manifest,
    run_shards,
)
from chessmoe.games.sources import resolve, source_name

# A UCI engine in a few lines: it plays a legal move picked by a hash of the position and the
# node limit (so both matter, as they do for Stockfish), and can crash on cue.
FAKE_ENGINE = '''
import hashlib, os, sys
import chess

board = chess.Board()
name = os.environ.get("FAKE_NAME", "FakeFish 1.0")
crash_fen = os.environ.get("FAKE_CRASH_FEN")
marker = os.environ.get("FAKE_CRASH_MARKER")
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print(f"id name {name}")
        print("option name Threads type spin default 1 min 1 max 64")
        print("option name Hash type spin default 16 min 1 max 1024")
        print("option name Skill Level type spin default 20 min 0 max 20")
        print("uciok")
    elif words[0] == "isready":
        print("readyok")
    elif words[0] == "position":
        rest = line.split(" moves ")
        head = rest[0].split()
        board = chess.Board() if head[1] == "startpos" else chess.Board(" ".join(head[2:8]))
        start = board.fen()
        for move in (rest[1].split() if len(rest) > 1 else []):
            board.push_uci(move)
    elif words[0] == "go":
        if os.environ.get("FAKE_CRASH_ALWAYS") or (
                crash_fen == start and not os.path.exists(marker)):
            if marker:
                open(marker, "w").close()
            os._exit(3)
        nodes = words[words.index("nodes") + 1] if "nodes" in words else "0"
        moves = sorted(m.uci() for m in board.legal_moves)
        pick = int(hashlib.sha256((board.fen() + nodes).encode()).hexdigest(), 16)
        print("info depth 1 score cp 0")
        print(f"bestmove {moves[pick % len(moves)]}")
    elif words[0] == "quit":
        break
    sys.stdout.flush()
'''

SMALL = RunSettings(nodes=10, shard_games=3, max_plies=16)


@pytest.fixture
def fake_engine(tmp_path: Path) -> Path:
    path = tmp_path / "fakefish"
    path.write_text(f"#!{sys.executable}\n{FAKE_ENGINE}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def games_by_index(run: Path) -> dict[int, str]:
    """Every game of a run by its index (a duplicate index fails the test)."""
    games: dict[int, str] = {}
    for shard in sorted(run.glob("shard-*.pgn*")):
        text = (gzip.decompress(shard.read_bytes()).decode() if shard.suffix == ".gz"
                else shard.read_text())
        chunks = [c for c in text.split('[Event "') if c.strip()]
        for chunk in chunks:
            index = int(chunk.split('[GameIndex "', 1)[1].split('"', 1)[0])
            assert index not in games, f"game {index} appears twice"
            games[index] = chunk
    return games


def test_game_plans_pair_openings_and_swap_node_limits() -> None:
    fens = read_epd(embedded_suite_path())
    settings = RunSettings()
    plans = [game_plan(settings, fens, i) for i in range(4002)]
    assert plans == [game_plan(settings, fens, i) for i in range(4002)]  # pure
    for first, second in zip(plans[0::2], plans[1::2], strict=True):
        assert first.opening == second.opening
        assert (first.white_nodes, first.black_nodes) == (second.black_nodes,
                                                          second.white_nodes)
    assert [p.opening for p in plans[:6]] == [0, 0, 1, 1, 2, 2]
    assert plans[4000].opening == 0 and plans[4000].fen == fens[0]  # the suite wraps around
    nodes = [n for p in plans for n in (p.white_nodes, p.black_nodes)]
    assert min(nodes) >= 800 and max(nodes) <= 1200 and len(set(nodes)) > 300
    # the second lap of the suite plays its openings at other node limits
    assert (plans[0].white_nodes, plans[0].black_nodes) != (plans[4000].white_nodes,
                                                            plans[4000].black_nodes)
    other = [game_plan(RunSettings(seed=1), fens, i) for i in range(10)]
    assert [p.white_nodes for p in other] != [p.white_nodes for p in plans[:10]]


@pytest.mark.parametrize("kwargs", [{"nodes": 0}, {"spread": 1.0}, {"spread": -0.1},
                                    {"shard_games": 0}, {"max_plies": 0}])
def test_settings_reject_bad_values(kwargs: dict[str, object]) -> None:
    with pytest.raises(RunError):
        RunSettings(**kwargs)  # type: ignore[arg-type]


@pytest.mark.slow
def test_interrupted_run_resumes_to_the_same_games(
        fake_engine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reference = tmp_path / "reference"
    done = grow(reference, 7, SMALL, engine=fake_engine, progress=False)
    assert done.played == 7 and len(done.manifest["shards"]) == 3  # 3 + 3 + 1 games
    expected = games_by_index(reference)
    assert sorted(expected) == list(range(7))

    run = tmp_path / "run"
    grow(run, 2, SMALL, engine=fake_engine, progress=False)  # a short first session

    # The next session is cut (Ctrl-C) while the second shard is being written.
    real_write = selfplay_run.atomic_write_bytes
    calls = {"n": 0}

    def cut_write(path: Path, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            with atomic_path(path) as tmp:
                tmp.write_bytes(data[: len(data) // 2])
                raise KeyboardInterrupt
        real_write(path, data)

    monkeypatch.setattr(selfplay_run, "atomic_write_bytes", cut_write)
    with pytest.raises(KeyboardInterrupt):
        grow(run, 7, SMALL, engine=fake_engine, progress=False)
    monkeypatch.setattr(selfplay_run, "atomic_write_bytes", real_write)
    manifest = read_manifest(run)
    assert [s["file"] for s in manifest["shards"]] == ["shard-00000.pgn.gz", "shard-00001.pgn.gz"]
    assert manifest["totals"]["attempted"] == 5
    assert sorted(p.name for p in run.iterdir()) == [".lock", "manifest.json",
                                                     "shard-00000.pgn.gz", "shard-00001.pgn.gz"]

    # A shard renamed into place just before the cut, never listed in the manifest, and a
    # temporary file of another interrupted write: both are discarded.
    (run / "shard-00002.pgn.gz").write_text("half a game")
    (run / ".shard-00002.pgn.gz.abc123.tmp").write_text("half a game")
    resumed = grow(run, 7, SMALL, engine=fake_engine, progress=False)
    assert sorted(resumed.discarded) == [".shard-00002.pgn.gz.abc123.tmp",
                                         "shard-00002.pgn.gz"]
    assert resumed.played == 2
    assert games_by_index(run) == expected  # no game lost, none twice, the same games
    assert read_manifest(run)["totals"]["games"] == 7
    again = grow(run, 7, SMALL, engine=fake_engine, progress=False)
    assert again.played == 0 and games_by_index(run) == expected


def test_interrupt_while_playing_drops_the_unfinished_shard(
        fake_engine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_play = selfplay_run._Player.play
    calls = {"n": 0}

    def cut_play(self: selfplay_run._Player, plan: selfplay_run.GamePlan
                 ) -> selfplay_run.PlayedGame:
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real_play(self, plan)

    monkeypatch.setattr(selfplay_run._Player, "play", cut_play)
    run = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        grow(run, 6, SMALL, engine=fake_engine, progress=False)
    manifest = read_manifest(run)
    assert [s["attempted"] for s in manifest["shards"]] == [3]  # game 3 was never written
    assert sorted(p.name for p in run.glob("shard-*")) == ["shard-00000.pgn.gz"]


@pytest.mark.slow
def test_resume_with_other_settings_is_refused(fake_engine: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "run"
    grow(run, 2, SMALL, engine=fake_engine, progress=False)
    with pytest.raises(RunError, match=r"nodes=10 in the run, nodes=11 now"):
        grow(run, 4, RunSettings(nodes=11, shard_games=3, max_plies=16), engine=fake_engine,
             progress=False)
    suite = tmp_path / "three.epd"
    suite.write_text("".join(line + "\n" for line in read_epd(embedded_suite_path())[:3]))
    with pytest.raises(RunError, match="opening suite sha256"):
        grow(run, 4, RunSettings(nodes=10, shard_games=3, max_plies=16, openings=str(suite)),
             engine=fake_engine, progress=False)
    monkeypatch.setenv("FAKE_NAME", "FakeFish 2.0")
    with pytest.raises(RunError, match=r"engine .FakeFish 1\.0. in the run, .FakeFish 2\.0."):
        grow(run, 4, SMALL, engine=fake_engine, progress=False)
    monkeypatch.delenv("FAKE_NAME")
    assert grow(run, 4, None, engine=fake_engine, progress=False).played == 2  # the run's own
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="not empty and holds no self-play run"):
        grow(other, 2, SMALL, engine=fake_engine, progress=False)


def test_a_crashed_engine_skips_its_game_and_the_run_continues(
        fake_engine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fens = read_epd(embedded_suite_path())
    monkeypatch.setenv("FAKE_CRASH_FEN", fens[1])  # games 2 and 3; the engine dies once
    monkeypatch.setenv("FAKE_CRASH_MARKER", str(tmp_path / "crashed"))
    run = tmp_path / "run"
    result = grow(run, 6, SMALL, engine=fake_engine, progress=False)
    assert [s["game"] for s in result.skipped] == [2]
    assert "engine process died" in result.skipped[0]["error"]
    manifest = read_manifest(run)
    assert manifest["shards"][0]["skipped"][0]["game"] == 2
    assert manifest["totals"] == {**manifest["totals"], "games": 5, "skipped": 1,
                                  "attempted": 6}
    assert sorted(games_by_index(run)) == [0, 1, 3, 4, 5]


def test_an_engine_that_keeps_crashing_stops_the_run(
        fake_engine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_CRASH_ALWAYS", "1")
    with pytest.raises(RunError, match="failed in 3 games in a row"):
        grow(tmp_path / "run", 6, SMALL, engine=fake_engine, progress=False)
    assert read_manifest(tmp_path / "run")["shards"] == []


def test_parallel_workers_write_the_same_games(fake_engine: Path, tmp_path: Path) -> None:
    grow(tmp_path / "one", 5, SMALL, engine=fake_engine, progress=False)
    result = grow(tmp_path / "two", 5, SMALL, engine=fake_engine, workers=2, progress=False)
    assert result.played == 5
    assert games_by_index(tmp_path / "two") == games_by_index(tmp_path / "one")


def test_manifest_records_provenance_and_checksums(fake_engine: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    grow(run, 4, SMALL, engine=fake_engine, progress=False, command="chessmoe test")
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["kind"] == "chessmoe self-play run" and manifest["target_games"] == 4
    assert manifest["engine"]["name"] == "FakeFish 1.0"
    assert manifest["openings"]["file"] == "chessmoe-5ply.epd"
    assert manifest["openings"]["positions"] == 2000
    assert manifest["draw_rules"] == "cutechess"
    assert manifest["settings"]["nodes"] == 10 and manifest["settings"]["seed"] == 20261125
    session = manifest["sessions"][0]
    assert session["command"] == "chessmoe test"
    assert {"git", "software", "hardware"} <= set(session["provenance"])
    for shard in manifest["shards"]:
        assert selfplay_run.sha256_file(run / shard["file"]) == shard["sha256"]
    skips = SkipCounter()
    games = list(iter_games(run / "shard-00000.pgn.gz", skips=skips, extract=lambda b: None))
    assert len(games) == 3 and skips.seen == 3
    headers = games[1].headers
    assert headers["Engine"] == "FakeFish 1.0" and headers["OpeningIndex"] == "0"
    assert headers["GameIndex"] == "1" and headers["DrawRules"] == "cutechess"
    assert headers["TerminationDetail"] in {"max_plies", "checkmate", "stalemate",
                                            "repetition", "fifty_moves",
                                            "insufficient_material"}
    assert int(headers["WhiteNodes"]) == int(games[0].headers["BlackNodes"])


def test_dataset_reader_checks_shards_against_the_manifest(
        fake_engine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    run = data / "selfplay" / "fake"
    grow(run, 4, SMALL, engine=fake_engine, progress=False)
    source = resolve("selfplay:fake", data)
    assert source.name == "selfplay-fake" == source_name("selfplay:fake")
    assert [f.name for f in source.files] == ["shard-00000.pgn.gz", "shard-00001.pgn.gz"]
    assert resolve(str(run)).files == source.files  # the directory itself reads the same
    joined = resolve("selfplay:fake+sample", data)
    assert joined.name == "selfplay-fake+selfplay-sample" == source_name("selfplay:fake+sample")
    assert joined.files[:2] == source.files and len(joined.files) == 3

    shard = run / "shard-00001.pgn.gz"
    shard.write_bytes(gzip.compress(gzip.decompress(shard.read_bytes()).replace(
        b"FakeFish", b"FakeFisk", 1), mtime=0))
    with pytest.raises(RunError, match=r"shard-00001\.pgn\.gz: sha256 differs"):
        run_shards(run)
    code = main(["data", "build", "--source", "selfplay:fake", "--data-dir", str(data),
                 "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "sha256 differs from the run's manifest" in err
    shard.unlink()
    with pytest.raises(RunError, match="missing"):
        run_shards(run)
    with pytest.raises(Exception, match=r"not found in .* or results/selfplay; grow it"):
        resolve("selfplay:nothing", data)


def test_a_committed_run_is_read_from_the_checkout_and_never_shadowed(
        fake_engine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chessmoe.games import sources

    monkeypatch.chdir(tmp_path / "..")  # notebooks run elsewhere than the project root
    checkout = Path(__file__).resolve().parents[1]
    assert sources.committed_runs() == checkout / "results" / "selfplay"
    committed = tmp_path / "results" / "selfplay"
    monkeypatch.setattr(sources, "committed_runs", lambda: committed)
    grow(committed / "fake", 2, SMALL, engine=fake_engine, progress=False)
    source = resolve("selfplay:fake", tmp_path / "data")
    assert [f.parts[-4:] for f in source.files] == [
        ("results", "selfplay", "fake", "shard-00000.pgn.gz")]
    own = tmp_path / "data" / "selfplay" / "fake"  # a run of the same name in the data dir
    grow(own, 3, SMALL, engine=fake_engine, progress=False)
    with pytest.raises(sources.SourceNotFound, match=r"both in .* name the one to read"):
        resolve("selfplay:fake", tmp_path / "data")
    assert resolve(str(own)).files[0].parent == own  # its path reads it


def test_cli_grows_resumes_and_refuses_in_one_line(
        fake_engine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    base = ["data", "selfplay-run", "--out", str(run), "--engine", str(fake_engine), "--quiet"]
    assert main([*base, "--games", "3", "--nodes", "10", "--max-plies", "16"]) == 0
    out = capsys.readouterr().out
    assert "3 games in 1 shards, 0 skipped" in out and "games/s" in out
    assert main([*base, "--games", "4"]) == 0  # the run's own settings, one more game
    assert "4 games in 2 shards" in capsys.readouterr().out
    for argv, message in [
            ([*base, "--games", "5", "--nodes", "20"], "nodes=10 in the run, nodes=20 now"),
            (["data", "selfplay-run", "--out", str(tmp_path / "new"), "--engine",
              str(tmp_path / "no-such-engine"), "--games", "2"], "does not exist"),
            (["data", "selfplay-run", "--out", str(tmp_path / "new2"), "--games", "2",
              "--engine", str(fake_engine), "--openings", "nowhere.epd"],
             "unknown opening suite"),
            (["data", "selfplay-run", "--out", str(tmp_path / "x.pgn"), "--games", "2"],
             "--out is a run directory, not a PGN file; the sample's recipe into one file is "
             "'chessmoe data selfplay-sample'"),
            (["data", "selfplay-sample", "--out", str(tmp_path / "dir"), "--games", "2"],
             "a run directory is grown by 'chessmoe data selfplay-run'")]:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
        assert "Traceback" not in err
    assert main(base) == 0  # no --games: the run's target, nothing left to play
    assert "nothing to play" in capsys.readouterr().out


@pytest.mark.parametrize(("command", "argv", "says"), [
    ("selfplay-run", ["--skill", "3", "5"], "unrecognized arguments: --skill 3 5"),
    ("selfplay-run", ["--nodes", "10", "20"], "unrecognized arguments: 20"),
    ("selfplay-sample", ["--spread", "0.1"], "unrecognized arguments: --spread 0.1"),
    ("selfplay-sample", ["--nodes", "10"], "argument --nodes: expected 2 arguments"),
])
def test_each_selfplay_command_takes_only_its_own_options(
        command: str, argv: list[str], says: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / ("run" if command == "selfplay-run" else "x.pgn")
    with pytest.raises(SystemExit) as exit_info:
        main(["data", command, "--out", str(out), *argv])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err, err


def test_the_old_selfplay_spelling_still_works_and_names_the_new_command(
        fake_engine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``data selfplay`` chose its mode by --out's suffix; it still does, after one line on
    stderr naming the command to use."""
    run = tmp_path / "run"
    old = ["data", "selfplay", "--out", str(run), "--engine", str(fake_engine), "--quiet"]
    assert main([*old, "--games", "2", "--nodes", "10", "--max-plies", "16"]) == 0
    captured = capsys.readouterr()
    assert "2 games in 1 shards" in captured.out
    assert captured.err.strip() == ("chessmoe data selfplay: this spelling is deprecated; use "
                                    "'chessmoe data selfplay-run' (same options)")
    new = ["data", "selfplay-run", "--out", str(run), "--engine", str(fake_engine), "--quiet"]
    assert main(new) == 0 and capsys.readouterr().err == ""  # the same run, resumed
    pgn = tmp_path / "games.pgn"
    assert main(["data", "selfplay", "--out", str(pgn), "--games", "1", "--engine",
                 str(fake_engine), "--nodes", "5", "10", "--max-plies", "12", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["games"] == 1
    assert "use 'chessmoe data selfplay-sample'" in captured.err
    for argv, message in [  # the old spelling's own checks: the notice, then the one error
            ([*old, "--games", "5", "--skill", "3", "5"], "--skill applies to the sample"),
            ([*old, "--nodes", "10", "20"], "a run takes one --nodes N"),
            (["data", "selfplay", "--out", str(tmp_path / "x.pgn"), "--spread", "0.1"],
             "--spread applies to a run directory"),
            (["data", "selfplay", "--out", str(tmp_path / "x.pgn"), "--nodes", "5"],
             "the sample's recipe takes --nodes MIN MAX")]:
        assert main(argv) == 2, argv
        notice, error = capsys.readouterr().err.strip().splitlines()
        assert "use 'chessmoe data selfplay-" in notice and message in error, error


def test_medium_profile_names_the_run_and_the_excerpt() -> None:
    from chessmoe import config

    medium = config.profile("medium")
    assert medium.training.source == "selfplay:stockfish-n1000+lichess-2013-01:5000"
    assert medium.data.dataset_sources == (medium.training.source,)
    assert source_name(medium.training.source) == (
        "selfplay-stockfish-n1000+lichess-2013-01-first5000")
    assert "medium" in config.show("medium")


@pytest.mark.slow
@pytest.mark.stockfish
def test_stockfish_games_are_reproducible_across_workers_and_resumes(
        stockfish: Path, tmp_path: Path) -> None:
    settings = RunSettings(nodes=10, shard_games=2)
    whole = grow(tmp_path / "whole", 4, settings, engine=stockfish, workers=2, progress=False)
    assert whole.manifest["engine"]["name"].startswith("Stockfish")
    grow(tmp_path / "parts", 1, settings, engine=stockfish, progress=False)
    grow(tmp_path / "parts", 4, settings, engine=stockfish, progress=False)
    assert games_by_index(tmp_path / "parts") == games_by_index(tmp_path / "whole")
    skips = SkipCounter()
    games = [g for f in run_shards(tmp_path / "whole")
             for g in iter_games(f, skips=skips, extract=lambda b: None)]
    assert len(games) == 4 and skips.seen == 4
    for game in games:
        assert game.headers["TerminationDetail"] in {
            "checkmate", "stalemate", "repetition", "fifty_moves", "insufficient_material",
            "max_plies"}
        assert game.headers["FEN"] and game.headers["SetUp"] == "1"


def test_a_crash_in_a_worker_process_is_skipped_too(
        fake_engine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fens = read_epd(embedded_suite_path())
    monkeypatch.setenv("FAKE_CRASH_FEN", fens[1])  # one of games 2 and 3, whichever comes first
    monkeypatch.setenv("FAKE_CRASH_MARKER", str(tmp_path / "crashed"))
    result = grow(tmp_path / "run", 6, SMALL, engine=fake_engine, workers=2, progress=False)
    assert len(result.skipped) == 1 and result.skipped[0]["game"] in {2, 3}
    assert len(games_by_index(tmp_path / "run")) == 5


def test_cli_keeps_the_sample_recipe_for_a_pgn_file(
        fake_engine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.pgn"
    assert main(["data", "selfplay-sample", "--out", str(out), "--games", "2", "--engine",
                 str(fake_engine), "--nodes", "5", "10", "--max-plies", "12", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2
    assert out.read_text().count('[Event "chessmoe self-play sample"]') == 2


def test_one_process_grows_a_run_at_a_time(fake_engine: Path, tmp_path: Path) -> None:
    import fcntl

    run = tmp_path / "run"
    grow(run, 2, SMALL, engine=fake_engine, progress=False)
    with open(run / ".lock", "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another grower holds the run
        with pytest.raises(RunError, match="run is being written by another process"):
            grow(run, 4, SMALL, engine=fake_engine, progress=False)
    assert read_manifest(run)["totals"]["attempted"] == 2


def test_shards_are_the_same_bytes_wherever_they_are_grown(
        fake_engine: Path, tmp_path: Path) -> None:
    one = grow(tmp_path / "one", 4, SMALL, engine=fake_engine, progress=False)
    two = grow(tmp_path / "two", 4, SMALL, engine=fake_engine, progress=False)
    assert [s["file"] for s in one.manifest["shards"]] == ["shard-00000.pgn.gz",
                                                           "shard-00001.pgn.gz"]
    assert ([s["sha256"] for s in one.manifest["shards"]]
            == [s["sha256"] for s in two.manifest["shards"]])
    raw = (tmp_path / "one" / "shard-00000.pgn.gz").read_bytes()
    # a gzip stream with no time, no file name and the "unknown" OS (255) in its header
    assert raw[:2] == b"\x1f\x8b" and raw[4:8] == b"\0\0\0\0" and not raw[3] & 0x08
    assert raw[9] == 255
    games = gzip.decompress(raw)
    assert games.decode().count('[Event "') == 3
    assert one.manifest["shards"][0]["pgn_sha256"] == hashlib.sha256(games).hexdigest()


def test_a_format_1_run_is_read_but_not_grown(
        fake_engine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "run"
    monkeypatch.setattr(selfplay_run, "FORMAT", 1)
    grow(run, 5, SMALL, engine=fake_engine, progress=False)
    monkeypatch.undo()
    assert [p.name for p in run_shards(run)] == ["shard-00000.pgn", "shard-00001.pgn"]
    assert sorted(games_by_index(run)) == list(range(5))
    with pytest.raises(RunError, match="format 1 in the run, 2 now"):
        grow(run, 7, SMALL, engine=fake_engine, progress=False)
    assert [p.name for p in run_shards(run)] == ["shard-00000.pgn", "shard-00001.pgn"]


def test_a_game_is_drawn_at_exactly_max_plies() -> None:
    """A game that reaches ``max_plies`` plies is drawn there: 6 plies at max_plies=6, not 7."""
    from tests.helpers import ScriptedEngine

    settings = RunSettings(nodes=10, max_plies=6)
    plan = game_plan(settings, [chess.STARTING_FEN], 0)
    played = selfplay_run.play_planned(ScriptedEngine(seed=2), plan,  # type: ignore[arg-type]
                                       settings, "Scripted", "start.epd")
    assert (played.plies, played.result, played.termination) == (6, "1/2-1/2", "max_plies")
    assert '[PlyCount "6"]' in played.pgn and '[TerminationDetail "max_plies"]' in played.pgn


def test_a_rerun_at_or_below_the_target_leaves_the_manifest_alone(
        fake_engine: Path, tmp_path: Path) -> None:
    """Growing a run to the games it already holds (or fewer) plays nothing and writes
    nothing: no session is added to the manifest."""
    run = tmp_path / "run"
    grow(run, 4, SMALL, engine=fake_engine, progress=False)
    before = (run / "manifest.json").read_bytes()
    for games in (4, 2):
        again = grow(run, games, SMALL, engine=fake_engine, progress=False)
        assert again.played == 0 and len(again.manifest["sessions"]) == 1
        assert (run / "manifest.json").read_bytes() == before


def test_a_worker_whose_parent_is_gone_plays_nothing_more(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool worker checks its parent before each game: orphaned (the parent was killed and
    the worker handed to another process), it stops its engine and exits without playing."""
    import os

    class Player:
        def __init__(self) -> None:
            self.played: list[int] = []
            self.closed = False

        def play(self, plan: selfplay_run.GamePlan) -> selfplay_run.PlayedGame:
            self.played.append(plan.index)
            return selfplay_run.PlayedGame(index=plan.index, opening=plan.opening)

        def close(self) -> None:
            self.closed = True

    def exit_now(code: int) -> None:
        raise SystemExit(code)

    player = Player()
    monkeypatch.setattr(selfplay_run.os, "_exit", exit_now)
    monkeypatch.setitem(selfplay_run._WORKER, "player", player)
    monkeypatch.setitem(selfplay_run._WORKER, "parent", os.getppid())
    plan = game_plan(SMALL, [chess.STARTING_FEN], 0)
    assert selfplay_run._worker_play(plan).index == 0
    monkeypatch.setitem(selfplay_run._WORKER, "parent", -1)  # not this process's parent now
    with pytest.raises(SystemExit) as stopped:
        selfplay_run._worker_play(game_plan(SMALL, [chess.STARTING_FEN], 1))
    assert stopped.value.code == 1
    assert player.played == [0] and player.closed


def test_duplicates_are_counted_in_the_manifest_and_read_by_no_split(
        fake_engine: Path, tmp_path: Path) -> None:
    """Issue 43: without spread both sides of a pair search alike, so each pair's second
    game repeats its first. The manifest counts the later copies (first copy kept), and the
    kit's key over the parsed moves (what the readers use) finds the same copies."""
    from chessmoe.games.splits import game_key, later_copies

    run = tmp_path / "run"
    settings = RunSettings(nodes=10, spread=0.0, shard_games=3, max_plies=40)
    grow(run, 6, settings, engine=fake_engine, progress=False)
    record = read_manifest(run)["duplicates"]
    assert record["games_checked"] == 6
    assert record["later_copies"] == [[1, 0], [3, 2], [5, 4]] and record["count"] == 3
    parsed = [r for path in run_shards(run) for r in iter_games(path)]
    keys = [game_key(r.start_fen, [m.uci() for m in r.moves]) for r in parsed]
    assert [int(parsed[i].headers["GameIndex"]) for i in
            np.flatnonzero(later_copies(keys))] == [1, 3, 5]

    grow(run, 8, settings, engine=fake_engine, progress=False)  # grown: counted again
    record = read_manifest(run)["duplicates"]
    assert record["games_checked"] == 8 and record["later_copies"][-1] == [7, 6]


BLACKBURNE = ("1. e4 e5 2. Nf3 Nc6 3. Bc4 Nd4 4. Nxe5 Qg5 5. Nxf7 Qxg2 6. Rf1 Qxe4+ 7. Be2 "
              "Nf3# 0-1")
LEGAL = "1. e4 e5 2. Nf3 d6 3. Bc4 Bg4 4. Nc3 g6 5. Nxe5 Bxd1 6. Bxf7+ Ke7 7. Nd5# 1-0"


def test_deepchess_reads_each_game_once(tmp_path: Path) -> None:
    """The DeepChess reader deduplicates (first copy kept): a copy never becomes a game of
    its own, so the by-game split cannot hold one on both sides."""
    from chessmoe.games.splits import later_copies
    from chessmoe.nets.related.deepchess import extract_positions

    pgn = tmp_path / "games.pgn"
    games = [BLACKBURNE, LEGAL, BLACKBURNE, BLACKBURNE]
    pgn.write_text("".join(f'[Result "{g.split()[-1]}"]\n\n{g}\n\n' for g in games))
    every: list[str] = []
    unique: list[str] = []
    kept = extract_positions(pgn, games=10, per_game=5, seed=1, skip_plies=1, keys=every)
    once = extract_positions(pgn, games=10, per_game=5, seed=1, skip_plies=1, unique=True,
                             keys=unique)
    assert len(np.unique(kept.game)) == 4 and list(later_copies(every)) == [
        False, False, True, True]
    assert len(np.unique(once.game)) == 2 and unique == every[:2]
