"""Table 1 with the training controls (chessmoe.report.figures.training.table1_losses)."""

from __future__ import annotations

from pathlib import Path

from chessmoe.report.figures.training import ExpertRuns, table1_losses

SETS = ("opening", "middlegame", "endgame", "no-phases")


def _evaluation(**experts: float) -> dict[str, object]:
    """An evaluation.json whose experts have the given loss on every test set."""
    return {"test_positions": 1000, "loss": "test loss",
            "results": {name: {s: {"loss": loss, "policy_acc": 0.3} for s in SETS}
                        for name, loss in experts.items()}}


def test_controls_appear_and_the_note_compares_every_mixture_with_the_seed_band(
        tmp_path: Path) -> None:
    """Seeds 2.40 / 2.38 / 2.42 (band 2.38-2.42, mean 2.40): a mixture at 2.39 is inside the
    band (+0.0100, undecided), one at 2.60 outside (-0.2000); the control rows are labelled
    with their iteration budget read from the manifest; regular-long (2.30) is a control row,
    not a seed: it leaves the band alone."""
    evaluations = {
        "regular": _evaluation(baseline=2.40),
        "regular-seed10": _evaluation(baseline=2.38),
        "regular-seed11": _evaluation(baseline=2.42),
        "separated": _evaluation(phase0=3.0, phase1=3.1, phase2=3.2, mixture=2.60),
        "separated-long": _evaluation(phase0=2.9, phase1=3.0, phase2=3.1, mixture=2.39),
        "regular-long": _evaluation(baseline=2.30),
        "staged": _evaluation(phase0=2.5, phase1=2.6, phase2=2.7, mixture=2.41),
        "staged-seed10": _evaluation(phase0=2.5, phase1=2.6, phase2=2.7, mixture=2.37),
        "weighted-a10-seed11": _evaluation(phase0=2.5, phase1=2.6, phase2=2.7, mixture=2.45),
    }
    manifests = {"separated-long": {"experts": {f"phase{k}": {"iterations": 2056}
                                                for k in range(3)}},
                 "regular-long": {"experts": {"baseline": {"iterations": 6168}}}}
    runs = ExpertRuns(tmp_path / "small", manifests, evaluations)
    artefact = table1_losses(runs, tmp_path / "out")
    table = artefact.table
    assert table is not None
    control = "Separated Learning, 2,056 iterations per expert (control) / Mixture"
    assert table.loc[control, "No-Phases"] == 2.39
    assert "Regular Learning, seed 11 (control) / -" in table.index
    assert table.loc["Regular Learning, 6,168 iterations (control) / -", "No-Phases"] == 2.30
    text = (tmp_path / "out" / "table1-expert-losses.md").read_text()
    assert "spans 2.3800-2.4200 over 3 training seeds (mean 2.4000)" in text
    assert "Separated Learning -0.2000 (outside)" in text
    assert "Separated Learning, 2,056 iterations per expert (control) +0.0100 (inside)" in text
    # a mixture's extra training seeds are rows of their own, and are compared with the band
    assert table.loc["Staged Learning, seed 10 (control) / Mixture", "No-Phases"] == 2.37
    assert table.loc["Weighted Learning (a = 10), seed 11 (control) / Mixture",
                     "No-Phases"] == 2.45
    assert "Staged Learning, seed 10 (control) +0.0300 (outside)" in text
    assert "Regular Learning, seed 10 (control) / -" in table.index


def test_one_seed_gives_no_band(tmp_path: Path) -> None:
    runs = ExpertRuns(tmp_path / "small", {}, {"regular": _evaluation(baseline=2.4),
                                               "staged": _evaluation(mixture=2.3)})
    table1_losses(runs, tmp_path / "out")
    text = (tmp_path / "out" / "table1-expert-losses.md").read_text()
    assert "Seed noise" not in text and "Staged Learning +0.1000" in text


def test_the_opt_in_controls_are_named_until_evaluated_then_rows_with_their_training(
        tmp_path: Path) -> None:
    """Issue 40's controls: while none is evaluated, the table has no row of theirs and a
    note names each with the command that trains it; once evaluated, regular-wide and the
    converged bundles are rows labelled as controls, and the notes say how long each
    converged network trained (its manifest) and each converged mixture's and regular-wide's
    no-phases gain over their reference."""
    base = {"regular": _evaluation(baseline=2.40), "regular-long": _evaluation(baseline=2.30)}
    runs = ExpertRuns(tmp_path / "small", {}, dict(base))
    table1_losses(runs, tmp_path / "before")
    text = (tmp_path / "before" / "table1-expert-losses.md").read_text()
    assert ("Not trained or not finished yet (their rows join this table once evaluated): "
            "regular-wide "
            "('chessmoe train --profile small --control regular-wide'); regular-converged, "
            "staged-converged, weighted-a10-converged ('chessmoe train --profile small "
            "--control converged').") in text
    assert "converged" not in " ".join(
        (tmp_path / "before" / "table1-expert-losses.csv").read_text().splitlines())
    assert "Trained until the validation loss" not in text

    def stopped(at: int, best: int, epochs: float) -> dict[str, object]:
        return {"stopped_at": at, "best_iteration": best, "epochs": epochs,
                "reason": "patience"}

    manifests = {
        "regular-wide": {"experts": {"baseline": {"iterations": 6168}}},
        "regular-converged": {"experts": {"baseline": {
            "iterations": 4300, "convergence": [stopped(4300, 3100, 4.18)]}}},
        "staged-converged": {"experts": {f"phase{k}": {
            "iterations": 2500, "convergence": [stopped(1200, 100, 1.2),
                                                stopped(1300, 200, 3.5)]}
            for k in range(3)}}}
    evaluations = {**base, "regular-wide": _evaluation(baseline=2.25),
                   "regular-converged": _evaluation(baseline=2.20),
                   "staged-converged": _evaluation(phase0=2.5, phase1=2.6, phase2=2.7,
                                                   mixture=2.15)}
    table = table1_losses(ExpertRuns(tmp_path / "small", manifests, evaluations),
                          tmp_path / "after").table
    assert table is not None
    assert table.loc["Regular Learning, widened to the mixture's parameters, 6,168 "
                     "iterations (control) / -", "No-Phases"] == 2.25
    assert table.loc["Regular Learning, trained to convergence, 4,300 iterations (control) "
                     "/ -", "No-Phases"] == 2.20
    assert table.loc["Staged Learning, trained to convergence, 2,500 iterations (control) "
                     "/ Mixture", "No-Phases"] == 2.15
    text = (tmp_path / "after" / "table1-expert-losses.md").read_text()
    assert ("Not trained or not finished yet (their rows join this table once evaluated): "
            "weighted-a10-converged ('chessmoe train --profile small --control converged')."
            ) in text
    assert ("Trained until the validation loss stopped improving: regular-converged: 4,300 "
            "steps (4.18 epochs), best at 3,100, stopped by patience; staged-converged: "
            "phase0 2,500 steps (1.2 + 3.5 epochs over 2 stages), best at 100, 200, stopped "
            "by patience;") in text
    assert "weighted-a10-converged: not trained yet." in text
    assert "over regular-converged: staged-converged +0.0500." in text
    assert ("No-phases improvement of regular-wide (the mixture's parameters in one network) "
            "over regular-long (the same steps): +0.0500.") in text
