"""The Snakefile's start-up check of the config it was given (:func:`validated_for_snakemake`)."""
from __future__ import annotations

from .claim_names import check_primary_claims
from .config import ConfigError, check_names, validate_config


def validated_for_snakemake(config: dict, configfiles=()) -> dict:
    """The Snakefile's check of the config it was given: the schema (defaults filled in place), the names, and the
    claims it declares primary (:func:`helmlite.workflow.claim_names.check_primary_claims`). A bad config stops
    Snakemake with one line on stderr and exit status 2, not a traceback with the schema dumped."""
    import sys

    source = "config from " + (", ".join(str(f) for f in configfiles) or "config/config.yaml")
    try:
        checked = validate_config(config, source)
        check_names(checked, source)
        check_primary_claims(checked, source)
    except ConfigError as error:
        print(f"helmlite: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    config.clear()
    config.update(checked)
    return config
