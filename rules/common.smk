# Shared helpers: every path comes from helmlite.workflow, which reads the same catalog as the CLI.
import json
import os
import shlex

from helmlite import workflow as hw
from helmlite.data import cache_dir, registry

DATA_CACHE = os.path.relpath(cache_dir())
ANALYSES = hw.enabled(config)
DIRS = hw.output_dirs(config)


def cached(name):
    """The cache path of a registered data file (a `fetch` rule output)."""
    return f"{DATA_CACHE}/{name}"


def html_of(analysis):
    return f"{DIRS['reports']}/{analysis.notebook}.html"


def all_targets():
    targets = [f"{DIRS['reports']}/index.html"]
    for analysis in ANALYSES:
        files = hw.outputs(config, analysis)
        targets += [html_of(analysis), *files["figures"], *files["tables"], files["manifest"]]
    return targets
