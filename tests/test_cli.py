"""The command line: every subcommand documents itself and runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from chessmoe.cli import build_parser, main


@pytest.mark.parametrize("argv", [[], ["data"], ["data", "sample"], ["data", "selfplay"],
                                  ["data", "selfplay-run"], ["data", "selfplay-sample"],
                                  ["data", "fetch"], ["stats"]])
def test_every_command_has_help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args([*argv, "--help"])
    assert exit_info.value.code == 0
    assert "usage: chessmoe" in capsys.readouterr().out


def test_every_option_is_documented_and_no_help_prints_a_doubled_percent_sign() -> None:
    """Every argument of every command says what it is; and argparse formats ``help=`` with
    %, not ``description=``: a "%%" written in a description is printed as it stands."""
    import argparse

    def parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
        found = [parser]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in dict.fromkeys(action.choices.values()):
                    found += parsers(sub)
        return found

    every = parsers(build_parser())
    assert len(every) > 20
    for parser in every:
        assert "%%" not in parser.format_help(), parser.prog
        for action in parser._actions:
            if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction,
                                       argparse._VersionAction)):
                assert action.help, f"{parser.prog} {action.option_strings or action.dest}"


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


@pytest.mark.parametrize("argv, says", [
    (["analyse", "startpos", "--nodes", "-5"], "argument --nodes: -5 is below 1"),
    (["analyse", "startpos", "--batch-size", "0"], "argument --batch-size: 0 is below 1"),
    (["analyse", "startpos", "--nodes", "abc"], "'abc' is not an integer"),
])
def test_engine_arguments_out_of_range_are_one_argparse_line(
        argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert says in capsys.readouterr().err


@pytest.mark.slow
def test_user_mistakes_in_analyse_search_and_tournament_are_one_line_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "model.pt").write_bytes(bytes(range(256)) * 2)  # not a torch file
    other = tmp_path / "other"  # a directory holding a tournament played under claim rules
    other.mkdir()
    (other / "spec.json").write_text('{"matches": [], "adjudication": {"draw_rules": "claim"}}')
    trained = tmp_path / "experts"  # bundles with a manifest: the run gets to the draw rules
    for bundle in ("regular", "separated"):
        (trained / bundle).mkdir(parents=True)
        (trained / bundle / "manifest.json").write_text("{}")
    cases = [(["analyse", "startpos", "--experts", str(tmp_path / "none"), "--nodes", "5"],
              "none does not exist (expected an expert bundle"),
             (["analyse", "startpos", "--single-expert", "7", "--nodes", "5"],
              "single_expert 7 is not a phase id"),
             (["analyse", "startpos", "--experts", str(bad / "model.pt"), "--nodes", "5"],
              "cannot be loaded"),
             (["search", "--bundle", str(tmp_path / "none"), "--out", str(tmp_path / "s")],
              "none does not exist (expected an expert bundle"),
             (["tournament", "--profile", "smoke", "--match", "no-such-match",
               "--out", str(tmp_path / "t")], "has no match 'no-such-match'; its matches:"),
             (["tournament", "--profile", "smoke", "--out", str(other), "--workers", "1",
               "--experts", str(trained), "--quiet"],
              "was played under other adjudication or draw rules (draw rules claim, now draw "
              "rules cutechess"),
             (["tournament", "--profile", "smoke", "--out", str(tmp_path / "t"),
               "--experts", str(tmp_path / "untrained"), "--quiet"],
              f"{tmp_path / 'untrained' / 'separated'}, {tmp_path / 'untrained' / 'regular'} "
              "are not trained (no manifest.json): train with 'chessmoe train --profile "
              "smoke'")]
    for argv, says in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1 and "Traceback" not in err, err


def test_summarise_writes_a_partial_tournaments_summary_without_playing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One game of the smoke design's first match is on disk: --summarise writes summary.json
    with 1 of 2 games there, 0 of 2 in the other match and complete false, and plays
    nothing; an OUT with no tournament is one line, exit 2."""
    from chessmoe import config
    from chessmoe._io.jsonl import append_record
    from chessmoe.play import designs, tournament
    from chessmoe.records import GameRecord

    out = tmp_path / "t"
    assert main(["tournament", "--profile", "smoke", "--out", str(out), "--summarise"]) == 2
    err = capsys.readouterr().err
    assert "holds no tournament" in err and err.count("\n") == 1
    chosen = config.profile("smoke")
    spec = designs.build_design(chosen.tournament.design,
                                Path("results") / "experts" / config.experts_of(chosen),
                                pairs=chosen.tournament.pairs)
    tournament._write_spec(spec, out)
    first, second = spec.matches[0], spec.matches[1]
    game = GameRecord(first.first.name, first.second.name, chess_start(), "1-0", "checkmate",
                      "", (), (), (), 0.0)
    append_record(out / first.name / "games-000.jsonl", game.in_match(pair=0, opening=0)
                  .to_json())
    before = sorted(p.name for p in out.rglob("*"))
    assert main(["tournament", "--profile", "smoke", "--out", str(out), "--summarise"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    counts = {m["name"]: (m["games"], m["planned_games"]) for m in summary["matches"]}
    assert counts[first.name] == (1, 2) and counts[second.name] == (0, 2)
    assert summary["complete"] is False and "provenance" in summary
    assert sorted(p.name for p in out.rglob("*")) == sorted(
        [*before, "summary.json", "games.pgn"])
    assert "from the games played so far" in capsys.readouterr().out


def chess_start() -> str:
    import chess

    return chess.STARTING_FEN


def test_set_takes_several_values_and_checks_them_by_type(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "show", "smoke", "--set", "epochs=3", "batch_size=64",
                 "--set", "amp=off"]) == 0
    out = capsys.readouterr().out
    assert "epochs: 3.0" in out and "batch_size: 64" in out and "amp: off" in out
    for value, says in (("amp=fp17", "expected one of bf16, fp16, off"),
                        ("device=bogus", "expected auto, cpu, mps, cuda or cuda:N"),
                        ("model=huge", "expected one of paper")):
        assert main(["config", "show", "smoke", "--set", value]) == 2
        assert says in capsys.readouterr().err


def test_a_train_config_refuses_an_unknown_amp_even_from_a_file() -> None:
    from chessmoe._io.errors import KitError
    from chessmoe.nets.training import TrainConfig

    with pytest.raises(KitError, match="amp='fp17'"):
        TrainConfig.from_dict({"amp": "fp17"})
    assert TrainConfig(amp="off", device="cuda:1").device == "cuda:1"


def test_figures_without_results_exit_2_naming_the_make_target(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["notebooks", "figures", "--results", str(tmp_path / "none"),
                 "--figures", str(tmp_path / "fig"), "--build", str(tmp_path / "b")])
    assert code == 2
    assert "make results-stats SOURCE=" in capsys.readouterr().err
    assert not (tmp_path / "fig").exists()  # nothing written


def test_train_controls_needs_the_regular_bundle_and_refuses_regime_flags(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``chessmoe train --controls`` (make controls): one line, exit 2, for a missing regular
    bundle or for flags that choose regimes; nothing is written."""
    code = main(["train", "--profile", "smoke", "--controls", "--results", str(tmp_path),
                 "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "experts/smoke/regular/manifest.json" in err and "make experts PROFILE=smoke" in err
    code = main(["train", "--controls", "--regime", "staged", "--set", "epochs=1",
                 "--results", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "drop --regime, --set" in err
    # how the controls run (threads) is the machine's to choose: accepted, and the run goes
    # on to its first real check (the missing regular bundle)
    code = main(["train", "--profile", "smoke", "--controls", "--set", "threads=1",
                 "--results", str(tmp_path), "--quiet"])
    assert code == 2 and "experts/smoke/regular/manifest.json" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_help_texts_name_every_profile() -> None:
    from chessmoe import cli, config

    assert set(cli.PROFILE_NAMES) == set(config.PROFILES)


def test_the_related_commands_offer_every_related_engine_and_state_each_ones_nodes(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The engines and the Stockfish check's nodes come from their homes: a changed node
    count shows in ``vs-stockfish --help``, and every related engine is a choice."""
    from chessmoe.play import versus
    from chessmoe.play.players import RELATED_KINDS

    monkeypatch.setitem(versus.STOCKFISH_CHECK_NODES, "mais", 1234)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["related", "vs-stockfish", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "mais 1234" in text and "deepchess 200" in text and "ntuple 400" in text
    for argv in (["related", "train"], ["related", "vs-stockfish"]):
        with pytest.raises(SystemExit):
            build_parser().parse_args([*argv, "chess960"])
        assert f"choose from {', '.join(repr(k) for k in RELATED_KINDS)}" in \
            capsys.readouterr().err
    assert build_parser().parse_args(["uci", "--player", RELATED_KINDS[-1]]).player == \
        RELATED_KINDS[-1]


def test_parity_names_a_missing_tournament_before_looking_for_cutechess(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parity", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (f"chessmoe parity: {tmp_path / 'none'} is not a tournament "
                           "directory (no spec.json)")


def test_a_tournament_with_no_trained_engine_says_so_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The medium design's matches join as their bundles are trained: with none trained,
    --status and a run both say what to train instead of reporting '0 of 0 games:
    complete'; nothing is written."""
    for extra in (["--status"], []):
        code = main(["tournament", "--profile", "medium", "--experts", str(tmp_path / "none"),
                     "--out", str(tmp_path / "out"), "--quiet", *extra])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1
        assert "medium design has no match to play yet under" in err
        assert "make experts PROFILE=medium" in err
    assert not (tmp_path / "out").exists()


def test_a_design_is_registered_before_its_networks_are_trained(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--register records every match of the scale design while none of its bundles exist
    (the design is declared before it is trained); nothing is played, and a run of the same
    untrained design is still refused in one line. --trained-only keeps the matches whose
    bundles are all trained."""
    from chessmoe import config
    from chessmoe.play import designs

    out = tmp_path / "out"
    argv = ["tournament", "--profile", "scale", "--experts", str(tmp_path / "none"),
            "--out", str(out), "--quiet"]
    assert main([*argv, "--register"]) == 0
    assert "(16 matches)" in capsys.readouterr().out
    recorded = json.loads((out / "spec.json").read_text())["matches"]
    chosen = config.profile("scale")
    built = designs.build_design(chosen.tournament.design, tmp_path / "none",
                                 pairs=chosen.tournament.pairs).matches
    assert [m["name"] for m in recorded] == [m.name for m in built]
    assert sorted(p.name for p in out.iterdir()) == ["spec.json"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "are not trained" in err
    # --trained-only: none trained, the one-line refusal; two trained, their one match
    assert main([*argv, "--trained-only", "--status"]) == 2
    assert "has no match to play yet" in capsys.readouterr().err
    for bundle in ("scale-201k-staged-seed10", "scale-201k-regular-seed10"):
        (tmp_path / "none" / bundle).mkdir(parents=True)
        (tmp_path / "none" / bundle / "manifest.json").write_text("{}")
    assert main([*argv[:-1], "--trained-only", "--status"]) == 0
    out = capsys.readouterr().out
    assert "1 match has its engines; the others wait for" in out
    rows = [line.split()[0] for line in out.splitlines()[1:-1]]
    assert rows == ["scale-201k-staged-seed10-vs-scale-201k-regular-seed10-b8-n100"]


def test_a_tournament_run_from_a_changed_checkout_says_its_records_will_be_dirty() -> None:
    """Before playing, a checkout whose tracked files differ from its commit is named in one
    line (the first three files and the count), since every game it plays will say dirty;
    a clean checkout, or none, gives no line."""
    from chessmoe.cli.tournaments import dirty_note

    changed = ["results/tournaments/settings/summary.json",
               "results/tournaments/settings/a/games.pgn",
               "results/tournaments/settings/b/games.pgn", "chessmoe/elo.py"]
    note = dirty_note({"commit": "7cdb1d8a1783", "dirty": True, "changed": changed,
                       "changed_count": 4})
    assert note is not None and "\n" not in note
    assert note.startswith("chessmoe tournament: note: the checkout differs from commit "
                           "7cdb1d8 in 4 tracked files (results/tournaments/settings/"
                           "summary.json, results/tournaments/settings/a/games.pgn, "
                           "results/tournaments/settings/b/games.pgn, ...)")
    assert "will say dirty" in note
    one = dirty_note({"commit": "abc", "dirty": True, "changed": ["x"], "changed_count": 1})
    assert one is not None and "in 1 tracked file (x)" in one
    assert dirty_note({"commit": "abc", "dirty": False, "changed": [], "changed_count": 0}) \
        is None
    assert dirty_note({"commit": None, "dirty": None, "changed": None,
                       "changed_count": None}) is None
