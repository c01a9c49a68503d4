"""A worked example of a new metric family (docs/how-to/add-a-metric-family.md; tests/test_metric_families.py and
tests/test_docs.py use it).

"length": the mean completion length in characters, and the share of empty completions with an exact interval. A
family is one declaration: its name, its place in the order, the methods it is a default for, its version (part of
every run id that uses it) and where its run-level numbers are computed (``points``: values with a bootstrap interval
over instances; ``shares``: counts with an exact binomial interval). Inside the package it goes in
``helmlite/metrics/declared/``.
"""
from helmlite.metrics import registry


def empty_share(records):
    """How many completions are empty, of all: a share, so it gets an exact (Clopper–Pearson) interval."""
    return {"empty_completions": (sum(not r.completion for r in records), len(records))}


def mean_length(records):
    """The mean completion length in characters."""
    return {"mean_characters": sum(len(r.completion) for r in records) / len(records)}


def declare():
    """Register the family (the test removes it afterwards: ``registry.REGISTRY.pop("length")``)."""
    return registry.metric_family(name="length", order=99, default_for=("generation",), version=3,
                                  points=f"{__name__}:mean_length", shares=f"{__name__}:empty_share")
