# helmlite workflow: fetch data → (model runs) → papermill notebooks → HTML reports → reports/index.html
# Thin on purpose: rules live in rules/*.smk, what each notebook reads/writes in helmlite/catalog.py.
from snakemake.utils import min_version, validate

from helmlite.workflow import SCHEMA

min_version("9.0")


configfile: "config/config.yaml"


validate(config, str(SCHEMA))


include: "rules/common.smk"
include: "rules/fetch.smk"
include: "rules/runs.smk"
include: "rules/notebooks.smk"
include: "rules/reports.smk"


rule all:
    default_target: True
    input:
        all_targets(),
