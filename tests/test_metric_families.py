"""Metric families are declared once each (issue #65): a new family is one declaration — here the how-to guide's
worked example (docs/examples/length_family.py) declares a "length" family (the mean completion length in characters, with an exact interval on the share of empty completions)
and the run spec's defaults, its run id's versions and the computation all follow, with no other edit."""
from __future__ import annotations

import dataclasses

import pytest
from scipy.stats import beta

from helmlite.errors import UserError
import length_family as length_family_example
from helmlite.metrics import families, registry, selection


@dataclasses.dataclass
class Record:
    completion: str
    metrics: dict


@pytest.fixture
def length_family():
    family = length_family_example.declare()  # the worked example of docs/how-to/add-a-metric-family.md
    yield family
    registry.REGISTRY.pop("length")


def test_a_declared_family_joins_the_defaults_the_versions_and_the_computation(length_family):
    assert selection.family_names()[-1] == "length"  # after the built-in ones (its order)
    assert "length" in selection.default_families("generation", ()) and \
        "length" not in selection.default_families("multiple_choice_joint", ())
    assert selection.family_version("length") == 3 and selection.check_families(["length", "accuracy"]) == ("accuracy", "length")
    records = [Record("", {}), Record("abcd", {}), Record("ab", {}), Record("", {})]
    out = families.compute(("length",), records, run_id="r", seed=0, n_resamples=10)["metrics"]
    assert out["mean_characters"].estimate == 1.5 and out["mean_characters"].method == families.POINT_METHOD
    share = out["empty_completions"]  # 2 of 4: the exact Clopper–Pearson interval (scipy's beta quantiles)
    assert share.estimate == 0.5 and share.ci_low == pytest.approx(beta.ppf(0.025, 2, 3))
    assert share.ci_high == pytest.approx(beta.ppf(0.975, 3, 2))


def test_a_family_name_or_place_is_declared_once(length_family):
    with pytest.raises(UserError, match="order 99 is taken by 'length'"):
        registry.metric_family(name="other", order=99)
    with pytest.raises(UserError, match="'length' is already declared differently"):
        registry.metric_family(name="length", order=98)


def test_a_config_may_name_a_declared_family_with_no_schema_edit(length_family):
    """The workflow's config check (schema, then the registries' names) accepts the new family in a run entry:
    the schema leaves family names to the registry, so declaring one is the only edit."""
    from pathlib import Path

    from helmlite import workflow

    config = workflow.load_config(Path(__file__).resolve().parent.parent / "config" / "test.yaml")
    entry = {"scenario": "mmlu", "model": "smollm2-135m", "args": {"subject": "econometrics"}, "metrics": ["length"]}
    checked = workflow.validate_config({**config, "runs": [entry]}, "c.yaml")
    workflow.check_names(checked, "c.yaml")
    (spec,) = [s for s in workflow.run_specs(checked).values() if s.metrics == ("length",)]  # the workflow runs it
    assert spec.versions["metrics"] == {"length": 3}  # its declared version enters the run id


def test_a_family_that_scores_records_or_summarises_a_run_declares_hooks_not_special_cases():
    """toxicity's classifier and efficiency's token means are hooks any family may declare (``annotates``,
    ``summary``), not names the computation tests for: a family declared here with both gets its per-instance metric
    scored before the run-level means (2 of 4 records flagged → mean 0.5, by hand) and its summary in the run's
    plain numbers, and the manifest's note comes back from :func:`families.annotate`."""
    import sys
    import types

    module = types.ModuleType("hooks_for_test")

    def flag_long(records, *, threshold=3, **_):
        for record in records:
            record.metrics["long_completion"] = float(len(record.completion) > threshold)
        return {"threshold": threshold}

    module.flag_long = flag_long
    module.total_characters = lambda records: {"total_characters": float(sum(len(r.completion) for r in records))}
    sys.modules["hooks_for_test"] = module
    registry.metric_family(name="hooked", order=97, annotates="hooks_for_test:flag_long", summary="hooks_for_test:total_characters")
    try:
        records = [Record("", {}), Record("abcd", {}), Record("ab", {}), Record("abcdef", {})]
        assert families.annotate(("hooked",), records, threshold=3) == {"hooked": {"threshold": 3}}
        computed = families.compute(("hooked",), records, run_id="r", seed=0, n_resamples=10)
        assert computed["metrics"]["long_completion"].estimate == 0.5
        assert computed["efficiency"] == {"total_characters": 12.0}
    finally:
        registry.REGISTRY.pop("hooked")
        sys.modules.pop("hooks_for_test")
