# Shared helpers: every path comes from helmlite.workflow, which reads the same catalog as the CLI.
import json
import os
import re
import shlex
import sys

from helmlite import workflow as hw
from helmlite.results import INSTANCES, MANIFEST, STATS
from helmlite.data import cache_dir, registry
from helmlite.models import EMBEDDED, model_dir

# Every rule finds `helmlite` next to the interpreter that runs Snakemake (its venv's or conda env's bin/), so a
# job does not depend on the shell it starts in: a SLURM job inherits the submitting environment, and without an
# activated venv a bare `helmlite` is not found there.
shell.prefix(f'set -euo pipefail; export PATH={shlex.quote(os.path.dirname(sys.executable))}:"$PATH"; ')
CONFIGFILE = (workflow.config_settings.configfiles or ["config/config.yaml"])[0]
DATA_CACHE = os.path.relpath(cache_dir())
ANALYSES = hw.enabled(config)
DIRS = hw.output_dirs(config)
RUNS = hw.run_specs(config)
ENGINE = config["engine"]
MODEL_DIR = os.path.relpath(model_dir())


def cached(name):
    """The cache path of a registered data file (a `fetch` rule output)."""
    return f"{DATA_CACHE}/{name}"


def model_marker(name):
    """The prepared-model marker a run needs (embedded models only)."""
    return [f"{MODEL_DIR}/{name}/helmlite_model.json"] if name in EMBEDDED else []


def run_file(run_id, name):
    """A file of a run folder (names from helmlite.results, the run-folder contract)."""
    return f"{ENGINE['results_dir']}/{run_id}/{name}"


def html_of(analysis):
    return f"{DIRS['reports']}/{analysis.notebook}.html"


def all_targets():
    targets = [f"{DIRS['reports']}/index.html"]
    targets += [run_file(run_id, STATS) for run_id in RUNS]
    for analysis in ANALYSES:
        files = hw.outputs(config, analysis)
        targets += [html_of(analysis), *files["figures"], *files["tables"], files["manifest"]]
    return targets
