"""Notebook 01's fidelity table: HELM's side against HELM's own schema, helmlite's side against the registry."""
from __future__ import annotations

import re

import yaml

from helmlite import data
from helmlite.analyses.helm_core import fidelity
from helmlite.scenarios import scenario


def test_helm_main_metrics_are_the_schemas(mirrored_cache):
    """HELM's main metric per group is ``main_name`` in crfm-helm's presentation schema.yaml (fetched through the
    registry from the mirror; f1_score and RR@10 are helmlite's f1 and rr@10); BOLD has none there."""
    schema = yaml.safe_load(data.fetch("helm/resources/presentation_v0.1.0/schema.yaml").read_text())
    main = {g["name"]: g.get("environment", {}).get("main_name") for g in schema["run_groups"]}
    for ours, group in fidelity.HELM_GROUP.items():
        theirs = main[group]
        expected = None if theirs is None else re.sub(r"^f1_score$", "f1", theirs).lower()
        assert fidelity.HELM_MAIN_METRIC[ours] == expected, ours


def test_table_reads_helmlites_side_from_the_registry_and_lists_every_aspect():
    table = fidelity.fidelity_table()
    live = table[table["aspect"] != "available"]
    assert set(live["scenario"]) == set(fidelity.ROWS) == set(fidelity.HELM_GROUP)
    assert (live.groupby("scenario")["aspect"].apply(tuple) == fidelity.ASPECTS).all()
    assert set(table["same"]) <= {"same", "differs", "partly", "absent"}
    for row in live[live["aspect"] == "method"].itertuples():
        assert row.helmlite == scenario(row.scenario).default_method
        assert row.same == ("same" if row.helm == row.helmlite else "differs")
    metric = live[live["aspect"] == "main metric"].set_index("scenario")
    # what a default run reports (helmlite.evaluation.scoring_rules.main_metric): exact match of the chosen choice for multiple choice,
    # "partly" HELM's quasi-exact match of a generated label
    assert metric.loc["mmlu", "same"] == "same" and metric.loc["nq_closed_book", ["helmlite", "same"]].tolist() == ["f1", "same"]
    assert metric.loc["bbq", "same"] == "partly" and metric.loc["bbq", "helmlite"].startswith("exact_match of the chosen choice")
    # the default config scores MMLU by log-probability of each answer: not HELM's joint method, and the table says so
    mmlu = live[live["scenario"] == "mmlu"].set_index("aspect")
    assert mmlu.loc["method", "same"] == "differs" and mmlu.loc["main metric", "same"] == "same"
    absent = table[table["aspect"] == "available"]
    assert set(absent["scenario"]) == {"NarrativeQA", "QuAC", "HellaSwag", "OpenbookQA", "MS MARCO (TREC)", "CNN/DailyMail",
                                       "XSUM", "CivilComments"}
    assert absent["helmlite"].str.contains("helmlite import").all()
