"""The reviewer tutorial (docs/tutorials/reviewer.md) runs as written, on a test-sized copy of its config.

Its steps 2 and 3 — size a claim with ``helmlite plan --target-mde … --write-config``, then re-run the report that
holds it with ``snakemake`` — are taken verbatim from the page's bash blocks and run in order in a fresh folder that
holds the workflow (Snakefile, rules/, notebooks/) and ``config/examples/decide.yaml`` cut to 6 items per scenario
(:data:`TEST_ITEMS`; the page's 50-item pilot takes minutes per model). Step 4's ``helmlite compare`` commands run in
:func:`tests.test_readme.test_readme_runs_as_written`; the page's other ``snakemake`` commands (the default, class and
paper configs) are dry-run there and run test-sized by ``make e2e`` (``config/test.yaml``: every notebook, every rule).

The planner's rates are a stand-in here (:func:`stand_in_rates`, stored under the folder's
``results/planner/rates.json`` through the planner's own cache): calibrating both models would take a minute and
measure this machine, which the test does not check. What is checked: the sized config is one the workflow accepts
and asks the claim's scenario for the n the plan printed; the re-run's claims table decides the named claim at the
pilot's n.
"""
from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pandas as pd
import pytest
import yaml

from .test_readme import REPO, readme_commands
from helmlite import cli
from helmlite.planning import rates

PAGE = "docs/tutorials/reviewer.md"
CONFIG = "config/examples/decide.yaml"
TEST_ITEMS = 6


def stand_in_rates(path, *, threads, batch_size):
    """Fixed rates in place of a calibration (seconds per position, forward, step, generate call; load; prefix row;
    MiB loaded; projected position): plausible magnitudes for these models on this machine, nothing measured."""
    return rates.Rates(0.002, 0.01, 0.02, 0.1, 3.0, 1e-6, 900.0, 0.0005)


@pytest.mark.slow
def test_size_claim_then_rerun_its_report(tmp_path, mirrored_cache, monkeypatch):
    kit = tmp_path / "kit"
    (kit / "config" / "examples").mkdir(parents=True)
    for part in ("Snakefile", "rules", "notebooks"):
        (kit / part).symlink_to(REPO / part)
    config = yaml.safe_load((REPO / CONFIG).read_text())
    config["helm_core"]["max_instances"] = TEST_ITEMS
    (kit / CONFIG).write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))

    monkeypatch.chdir(kit)
    monkeypatch.setattr(rates, "calibrate", stand_in_rates)
    assert cli.main(["plan", "--configfile", CONFIG, "--format", "csv"]) == 0  # stores the stand-in for both models
    assert (kit / rates.RATES_FILE).is_file()

    steps = [c for c in readme_commands((PAGE,)) if CONFIG in c]
    assert [shlex.split(c)[:2] for c in steps] == [["helmlite", "plan"], ["snakemake", "--cores"]]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "HELMLITE_MODEL_DIR": str(REPO / "data" / "models")}
    claim = shlex.split(steps[0])[shlex.split(steps[0]).index("--claims") + 1]

    def run(command: str) -> str:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=kit, env=env, capture_output=True, text=True)
        assert done.returncode == 0, (command, done.stderr[-3000:])
        return done.stdout

    # step 2: size the claim (no runs yet: the plan sizes it at its planning values)
    plan_out, sized_file = run(steps[0]), kit / "results" / "decide" / "sized.yaml"
    assert "measured this machine's rates" not in plan_out  # it read the stored stand-in, calibrated nothing
    assert "wrote results/decide/sized.yaml" in plan_out
    assert cli.main(["config", str(sized_file)]) == 0  # the workflow's own check of the written config
    sized = yaml.safe_load(sized_file.read_text())
    designed = {entry["scenario"]: entry.get("max_instances", sized["helm_core"]["max_instances"])
                for entry in sized["helm_core"]["scenarios"]}
    row = _plan_claims(claim).set_index("claim").loc[claim]  # the same plan as CSV: the n it designed
    assert row["role"] == "primary" and designed["bbq"] == int(row["n_design"]) > TEST_ITEMS
    assert designed["mmlu"] == TEST_ITEMS  # a claim not named keeps its size

    # step 3: re-run the report that holds the claim, at its present size
    run(steps[1])
    report = kit / "results" / "decide" / "reports" / "01_helm_core.html"
    assert report.is_file() and claim in report.read_text()
    claims = pd.read_csv(kit / "results" / "decide" / "tables" / "helm_core_claims.csv").set_index("claim")
    decided = claims.loc[claim]
    assert decided["n"] == TEST_ITEMS and decided["verdict"] in ("supported", "contradicted", "inconclusive")


def _plan_claims(claim: str) -> pd.DataFrame:
    """The plan's claims table for ``claim`` at the tutorial's target, as CSV (in the current folder)."""
    out = StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["plan", "--configfile", CONFIG, "--target-mde", "0.05", "--claims", claim,
                         "--format", "csv", "--table", "claims"]) == 0
    return pd.read_csv(StringIO(out.getvalue()))
