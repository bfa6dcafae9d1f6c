"""The scale design, declared in one file (chessmoe/designs/scale.py): its matches (each size's
mixtures against the regular network of the same seed, and staged at 400 nodes against the
other regular seeds), its rows registered before any network trained, and the recipe and
training order of its networks (chessmoe.nets.controls)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from chessmoe.designs import scale
from chessmoe.designs.rows import NOT_PLAYED, POST_HOC
from chessmoe.elo import elo_from_score
from chessmoe.estimates import paired_seeds_estimate
from chessmoe.nets.controls import scale_config, scale_jobs, scale_model
from chessmoe.nets.model import RiseNet, count_parameters, preset
from chessmoe.nets.names import (
    SCALE_PARAMETERS,
    SCALE_SIZES,
    control_of,
    scale_bundle,
    train_command,
)
from chessmoe.nets.training import TrainConfig
from chessmoe.play import designs as play_designs
from chessmoe.records import GameRecord
from chessmoe.report import verdicts
from tests.helpers import plant_games


def test_each_mixture_plays_the_regular_network_of_its_own_size_and_seed(
        tmp_path: Path) -> None:
    spec = play_designs.registered_spec("scale", tmp_path)
    names = [m.name for m in spec.matches]
    assert len(names) == len(set(names)) == 16 and sum(2 * m.pairs for m in spec.matches) == 3200
    sized = [m for m in spec.matches if m.name.startswith("scale-")]
    assert len(sized) == 14  # 201k: 3 seeds, 50k and 600k: 2, each with two mixtures
    for match in sized:
        first, second = Path(match.first.experts).name, Path(match.second.experts).name
        size, method, seed = first.split("-")[1], first.split("-")[2], first.split("seed")[1]
        assert second == scale_bundle("regular", size, int(seed))  # the diagonal pairing
        assert method in ("staged", "trunk") and match.name == f"{first}-vs-{second}-b8-n100"
        assert (match.first.batch_size, match.first.nodes) == (8, 100)
    beside = [m for m in spec.matches if not m.name.startswith("scale-")]
    assert [m.name for m in beside] == ["staged-vs-regular-seed10-b8-n400",
                                        "staged-vs-regular-seed11-b8-n400"]
    assert all(m.second.nodes == 400 and m.first.experts == str(tmp_path / "staged")
               for m in beside)
    assert str(tmp_path / "scale-201k-regular-seed9") in play_designs.untrained(spec)


def test_its_rows_are_in_the_table_before_any_network_trains(tmp_path: Path) -> None:
    rows = [r for r in verdicts.claims(tmp_path / "powered", tmp_path / "experts",
                                       scale=tmp_path / "scale")]
    assert [r.topic for r in rows] == [
        "scale: 50 k parameters", "scale: 50 k parameters", "scale: 201 k parameters",
        "scale: 201 k parameters", "scale: 604 k parameters", "scale: 604 k parameters",
        "scale: 400 nodes over three regular seeds"]
    assert all(r.verdict == NOT_PLAYED and math.isnan(r.p_holm) and r.kind == POST_HOC
               for r in rows)
    assert "staged beats regular at 201 k parameters" in rows[2].paper
    assert "shared-trunk mixture beats regular at 201 k" in rows[3].paper


def test_a_size_row_is_a_test_once_every_seed_pairing_is_played(tmp_path: Path) -> None:
    """Staged at 201 k scores 0.75, 0.625 and 0.5 a pair against seeds 9, 10 and 11 (40 pairs
    each, planned 40; the pooled p needs more than 30 openings): in progress until the last
    pairing is complete, then pooled over the three pairings and decided; the note gives the
    seeds-random interval of the three cells."""
    root = tmp_path / "scale"
    cells = [scale.size_matches("201k", "staged")[i] for i in range(3)]
    names = [f"{first}-vs-{second}-b8-n100" for _, first, second in cells]
    root.mkdir()
    (root / "spec.json").write_text(json.dumps({"matches": [{"name": n, "pairs": 40}
                                                            for n in names]}))
    plant_games(root / names[0], [(1.0, 0.5)] * 40)
    plant_games(root / names[1], [(1.0, 0.5), (0.5, 0.5)] * 20)
    plant_games(root / names[2], [(1.0, 0.0)] * 39)
    row = next(r for r in verdicts.claims(tmp_path / "powered", tmp_path / "experts",
                                          scale=root)
               if r.topic == "scale: 201 k parameters")
    assert row.verdict == "in progress: 238 of 240 planned games of its 3 matches"
    plant_games(root / names[2], [(0.5, 0.5)], start=39)
    row = next(r for r in verdicts.claims(tmp_path / "powered", tmp_path / "experts",
                                          scale=root)
               if r.topic == "scale: 201 k parameters")
    assert row.verdict == "supports" and row.p_holm < 1e-6
    assert row.ours.startswith(f"{elo_from_score((0.75 + 0.625 + 0.5) / 3):+.0f} Elo")
    assert "seed 9: +191" in row.note and "seed 10: +89" in row.note
    assert "with both sides' seeds random (t over 3 pairings)" in row.note


def test_the_seeds_random_interval_is_t_over_the_pairings_means() -> None:
    """Cells of 0.60, 0.70 and 0.65 a pair: mean 0.65, standard error 0.05/sqrt(3), t(2) 4.303;
    with one cell, or a cell under 10 pairs, no interval."""
    def cell(score: float, pairs: int = 10) -> list[GameRecord]:
        """``pairs`` pairs scoring 0.75 or 0.5, mean ``score``."""
        game = GameRecord("a", "b", "fen", "1-0", "checkmate", "", (), (), (), 0.0)
        won = round((score - 0.5) / 0.25 * pairs)
        return [game.in_match(pair=p, opening=p, first_score=s, first_is_white=w)
                for p in range(pairs)
                for w, s in ((True, 1.0 if p < won else 0.5), (False, 0.5))]

    e = paired_seeds_estimate("staged", [cell(0.6), cell(0.7), cell(0.65)])
    assert e is not None
    half = 4.303 * 0.05 / math.sqrt(3)
    assert e.score == pytest.approx(0.65)
    assert (e.low, e.high) == pytest.approx((elo_from_score(0.65 - half),
                                             elo_from_score(0.65 + half)))
    assert paired_seeds_estimate("staged", [cell(0.6)]) is None
    assert paired_seeds_estimate("staged", [cell(0.6), cell(0.7, pairs=9)]) is None


def test_the_400_node_row_pools_the_settings_designs_seed_9_with_its_own_two(
        tmp_path: Path) -> None:
    settings = tmp_path / "settings"
    plant_games(settings / "staged-vs-regular-b8-n400", [(1.0, 0.5)] * 12)
    root = tmp_path / "scale"
    root.mkdir()
    names = [scale.beside_name(s) for s in (10, 11)]
    (root / "spec.json").write_text(json.dumps({"matches": [{"name": n, "pairs": 12}
                                                            for n in names]}))
    for name in names:
        plant_games(root / name, [(0.5, 0.5)] * 12)
    row = next(r for r in verdicts.claims(tmp_path / "powered", tmp_path / "experts",
                                          scale=root, settings=settings)
               if r.topic == "scale: 400 nodes over three regular seeds")
    assert row.verdict != NOT_PLAYED and not row.verdict.startswith("in progress")
    assert row.ours.startswith(f"{elo_from_score((0.75 + 0.5 + 0.5) / 3):+.0f} Elo")
    assert "regular (seed 9, the settings design's): +191" in row.note


def test_its_networks_train_size_by_size_on_one_early_stopped_fp32_recipe(
        tmp_path: Path) -> None:
    base = TrainConfig(model="small", batch_size=256, epochs=2.0, cpu_amp="bf16")
    jobs = scale_jobs(base, tmp_path)
    assert [j[0] for j in jobs[:3]] == ["scale-201k-regular-seed9", "scale-201k-trunk-seed9",
                                        "scale-201k-staged-seed9"]
    assert len(jobs) == 21 and jobs[-1][0] == "scale-600k-staged-seed10"
    assert jobs[1][4] == tmp_path / "scale-201k-regular-seed9"  # the mixtures' baseline
    sizes = {}
    for name, regime, _, config, _ in jobs:
        assert regime == name.split("-")[2]
        assert (config.cpu_amp, config.schedule, config.eval_every, config.eval_samples,
                config.eval_test_samples, config.patience, config.plateau_patience) == (
            "off", "plateau", 200, 16384, 4096, 6, 2)
        assert config.seed == int(name.split("seed")[1])
        sizes[name.split("-")[1]] = count_parameters(RiseNet(config.model_config()))
    assert sizes == SCALE_PARAMETERS == {"201k": 201_469, "50k": 49_969, "600k": 604_086}
    assert scale_model(preset("small"), "201k") == preset("small")
    with pytest.raises(ValueError, match="unknown scale size '1m'"):
        scale_config(base, "1m", 9)
    assert SCALE_SIZES[0] == "201k"  # the profile's size trains first
    assert control_of("scale-50k-trunk-seed10") == "scale"
    assert train_command("scale-50k-trunk-seed10", "small").endswith("--control scale")
    with pytest.raises(ValueError, match="no scale bundle"):
        scale_bundle("weighted-a10", "201k", 9)


def test_its_networks_not_begun_are_one_line_of_the_runs_in_progress(tmp_path: Path) -> None:
    from chessmoe.report import progress

    first = tmp_path / "experts" / "small" / "scale-201k-regular-seed9"
    first.mkdir(parents=True)
    lines = progress.progress_lines(tmp_path)
    owed = [line for line in lines if "scale-" in line]
    assert owed == ["| training `small/scale-* (scale design)` | 20 networks not begun "
                    "(scale-201k-trunk-seed9 ... scale-600k-staged-seed10) | - | no rate yet | "
                    "not timed |"]
    # finished (a manifest): its logged wall-clock is the design's rate; a cut line is skipped
    (first / "manifest.json").write_text("{}")
    (first / "baseline").mkdir()
    (first / "baseline" / "metrics.jsonl").write_text(
        '{"iteration": 25, "time": 3000.0}\n{"iteration": 6200, "time": 6305.1}\n{"iter')
    trunk = tmp_path / "experts" / "small" / "scale-201k-trunk-seed9"
    for part, seconds in (("trunk", 7000.0), ("phase0", 1800.0)):
        (trunk / part).mkdir(parents=True)
        (trunk / part / "metrics.jsonl").write_text(f'{{"time": {seconds}}}\n')
    (trunk / "manifest.json").write_text("{}")
    owed = [line for line in progress.progress_lines(tmp_path) if "scale design" in line]
    assert owed == ["| training `small/scale-* (scale design)` | 19 networks not begun "
                    "(scale-201k-staged-seed9 ... scale-600k-staged-seed10) | - | 2.1 h a "
                    "network (its 2 finished) | not timed |"]  # (6,305 + 7,000 + 1,800 s) / 2
