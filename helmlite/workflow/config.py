"""A workflow config: validated against the schema shipped with helmlite (snakemake's own validator), its names
checked with a did-you-mean before any job runs, parsed from a file or from JSON."""
from __future__ import annotations

import copy
import os
import re
from importlib import resources
from pathlib import Path

import yaml

from ..errors import UserError
from .outputs import enabled

SCHEMA = Path(str(resources.files("helmlite") / "schema.yaml"))  # shipped in the package (wheel installs validate too)


class ConfigError(UserError):
    """An invalid workflow config; the message names the file and the key."""


def validate_config(config: dict, source: str = "config") -> dict:
    """Validate against helmlite/schema.yaml (filling defaults) with Snakemake's own validator."""
    from snakemake.utils import validate

    config = copy.deepcopy(config)
    try:
        validate(config, str(SCHEMA))
    except Exception as error:  # snakemake raises WorkflowError wrapping jsonschema's multi-line message
        text = str(error)
        where = re.search(r"On instance((?:\[[^\]]+\])*)", text)
        what = re.search(r"ValidationError: (.+)", text)
        key = ".".join(re.findall(r"\['?([^\]']+)'?\]", where.group(1))) if where and where.group(1) else "top level"
        raise ConfigError(f"{source}: invalid configuration at {key}: {what.group(1) if what else text}"
                          f"{_schema_suggestion(config)}") from None
    return config


def _schema_suggestion(config: dict) -> str:
    """A did-you-mean for the schema's first error when it is an unknown key or a value outside an enum."""
    import jsonschema

    from ..errors import did_you_mean

    schema = yaml.safe_load(SCHEMA.read_text())
    error = jsonschema.exceptions.best_match(jsonschema.validators.validator_for(schema)(schema).iter_errors(config))
    if error is None:
        return ""
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = list(error.schema.get("properties", {}))
        return "".join(did_you_mean(str(key), known) for key in error.instance if key not in known)
    if error.validator == "enum":
        return did_you_mean(str(error.instance), [str(value) for value in error.validator_value])
    return ""


def parse_config(text: str, source: str) -> dict:
    """Parse YAML (or JSON) config text and validate it; errors name ``source``."""
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(f"{source}: not valid YAML ({error})") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{source}: expected a mapping of settings at the top level")
    return validate_config(config, source)


def check_names(config: dict, source: str = "config") -> None:
    """Every run the config asks for names a known scenario, method, metric family and model: one
    :class:`ConfigError` naming the source, the config section and the name (with a did-you-mean), before
    any job starts — the schema checks shapes, this checks the names the registries know."""
    from ..models import unknown_model_message
    from ..evaluation import RunSpec

    sensitivity = config.get("sensitivity", {})
    for name in sensitivity.get("chat_models", []):
        if "sensitivity" in config.get("analyses", []) and name not in sensitivity.get("models", []):
            from ..errors import did_you_mean

            raise ConfigError(f"{source}: sensitivity.chat_models: {name!r} is not one of sensitivity.models "
                              f"{sensitivity.get('models')}.{did_you_mean(name, sensitivity.get('models', []))}")
    sections = [("runs", [{"spec": run} for run in config.get("runs", [])])]
    sections += [(analysis.key, [{"spec": item.spec} for item in analysis.grid(config.get(analysis.key, {}))])
                 for analysis in enabled(config) if analysis.grid]
    for key, items in sections:
        for item in items:
            try:
                spec = RunSpec.from_dict(item["spec"])
            except UserError as error:
                raise ConfigError(f"{source}: {key}: {error}") from None
            problem = unknown_model_message(spec.model)
            if problem:
                raise ConfigError(f"{source}: {key}: {problem}")


def load_config(path: str | os.PathLike) -> dict:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: config file not found")
    return parse_config(path.read_text(encoding="utf-8"), str(path))
