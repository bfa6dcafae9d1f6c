"""The command line: every subcommand documents itself and runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from chessmoe.cli import build_parser, main


@pytest.mark.parametrize("argv", [[], ["data"], ["data", "sample"], ["data", "selfplay"],
                                  ["data", "fetch"], ["stats"]])
def test_every_command_has_help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args([*argv, "--help"])
    assert exit_info.value.code == 0
    assert "usage: chessmoe" in capsys.readouterr().out


def test_python_m_chessmoe_runs() -> None:
    done = subprocess.run([sys.executable, "-m", "chessmoe", "data", "sample", "--info"],
                          capture_output=True, text=True, check=True)
    path, manifest = done.stdout.split("\n", 1)
    assert path.endswith("selfplay-sf15.pgn.gz")
    assert json.loads(manifest)["kind"] == "chessmoe self-play sample"


def test_fetch_offline_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from chessmoe.games import fetch

    monkeypatch.setattr(fetch, "LICHESS_URL", "http://127.0.0.1:9/{month}.zst")
    code = main(["data", "fetch", "lichess-2013-01", "--first", "3", "--data-dir",
                 str(tmp_path), "--quiet"])
    assert code == 2
    assert "chessmoe data fetch:" in capsys.readouterr().err


def test_stats_command_writes_results(tmp_path: Path) -> None:
    from tests.helpers import random_games_pgn

    pgn = random_games_pgn(tmp_path / "g.pgn", 12)
    assert main(["stats", "--source", str(pgn), "--results", str(tmp_path / "r"),
                 "--quiet"]) == 0
    assert (tmp_path / "r" / "stats" / "g" / "manifest.json").exists()


def test_stats_on_bad_input_is_one_line_and_exit_2(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from chessmoe.cli import main

    empty = tmp_path / "empty.pgn"
    empty.write_bytes(b"")
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 not a zip")
    monkeypatch.setenv("no_proxy", "*")
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")
    for source, text in ((str(empty), "no games found"), (str(broken), "not a readable zip"),
                         ("lichess-2013-01:5000", "cannot download")):
        code = main(["stats", "--source", source, "--results", str(tmp_path / "r"),
                     "--data-dir", str(tmp_path / "data"), "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and text in err and err.count("\n") == 1, err
