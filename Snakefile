# helmlite workflow: fetch data → (model runs) → papermill notebooks → HTML reports → reports/index.html
# Thin on purpose: rules live in rules/*.smk, what each notebook reads/writes in helmlite/catalog.py.
from snakemake.utils import min_version

from helmlite.workflow import validated_for_snakemake

min_version("9.0")


# Exactly the config it is given: --configfile FILE alone, or config/config.yaml when none is given (a
# `configfile:` directive would be deep-merged with --configfile, planning runs from both files).
if not workflow.config_settings.configfiles:

    configfile: "config/config.yaml"


# the schema (helmlite/schema.yaml) and the names; one line and exit status 2 when bad
validated_for_snakemake(config, workflow.config_settings.configfiles)


include: "rules/common.smk"


# Light jobs stay on the submitting host under a cluster executor (a compute node may have no internet, and
# each would reserve a job's memory): downloads, model unpacking, HTML conversion and the index page.
localrules:
    all,
    fetch,
    prepare_model,
    html,
    index,


include: "rules/fetch.smk"
include: "rules/runs.smk"
include: "rules/notebooks.smk"
include: "rules/reports.smk"


# when this invocation started: the index's wall time (a dry run does not run onstart)
onstart:
    hw.record_start(config)


rule all:
    default_target: True
    input:
        all_targets(),
