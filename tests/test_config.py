"""Config validation: the shipped profiles are valid, bad values stop with a message naming the key."""
from __future__ import annotations

import subprocess
import sys

import pytest

from helmlite import workflow
from helmlite.cli import main

from .conftest import REPO


@pytest.mark.parametrize("name", ["config.yaml", "test.yaml", "paper.yaml"])
def test_shipped_profiles_validate_and_get_defaults(name):
    config = workflow.load_config(REPO / "config" / name)
    assert config["bootstrap"]["n_resamples"] >= 100
    assert config["helpsteer2"]["source"] in ("auto", "real", "simulated")


@pytest.mark.parametrize("text,needle", [
    ("analyses: [helpsteer2]\nhelpsteer2: {source: internet}\n", "at helpsteer2.source: 'internet' is not one of"),
    ("analyses: [helpsteer2]\nbootstrap: {n_resamples: 5}\n", "at bootstrap.n_resamples: 5 is less than the minimum of 100"),
    ("analyses: [helmet9]\n", "'helmet9' is not one of"),
    ("analyses: [helpsteer2]\nbootstrapp: {}\n", "'bootstrapp' was unexpected"),
    ("output_dir: x\n", "'analyses' is a required property"),
    ("- just\n- a list\n", "expected a mapping"),
])
def test_invalid_config_names_the_key(tmp_path, text, needle):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(workflow.ConfigError) as error:
        workflow.load_config(path)
    assert str(path) in str(error.value) and needle in str(error.value)


def test_cli_reports_invalid_config_in_one_line(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("analyses: [helpsteer2]\nhelpsteer2: {n_simulated: many}\n")
    assert main(["config", str(path)]) == 2
    assert "'many' is not of type 'integer'" in capsys.readouterr().err


def test_snakemake_refuses_an_invalid_config(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("analyses: [helpsteer2]\nhelpsteer2: {source: internet}\n")
    result = subprocess.run([sys.executable, "-m", "snakemake", "--dry-run", "--cores", "1", "--configfile", str(path)],
                            cwd=REPO, capture_output=True, text=True)
    assert result.returncode != 0
    assert "'internet' is not one of ['auto', 'real', 'simulated']" in result.stdout + result.stderr


def test_notebook_parameters_come_from_the_config():
    config = workflow.load_config(REPO / "config" / "test.yaml")
    analysis = next(a for a in workflow.enabled(config) if a.key == "helpsteer2")
    params = workflow.notebook_parameters(config, analysis)
    assert params["figures_dir"] == "build/test/figures" and params["tables_dir"] == "build/test/tables"
    assert params["source"] == "simulated" and params["n_resamples"] == 200
    outputs = workflow.outputs(config, analysis)
    assert outputs["notebook"] == "build/test/reports/05_helpsteer2_aggregation.ipynb"
    assert len(outputs["figures"]) == 2 * len(analysis.figures)
