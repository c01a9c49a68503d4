"""Run grids (helmlite.grids) and what the workflow derives from them: hand-derived run counts and labels."""
from __future__ import annotations

from helmlite import grids, workflow
from helmlite.catalog import ANALYSES, SENSITIVITY
from helmlite.evaluation.runspec import RunSpec

SENSITIVITY_SECTION = {"models": ["a"], "seeds": [0, 1], "shots": [0, 5], "seed_scenarios": [{"scenario": "mmlu"}],
                       "shot_scenarios": [{"scenario": "mmlu"}], "formats": {"helm_default": {}, "chat": {"chat_template": True}},
                       "format_scenarios": [{"scenario": "mmlu"}], "chat_models": [], "methods": ["multiple_choice_joint"],
                       "method_scenarios": [{"scenario": "mmlu"}], "max_instances": 10}


def section(key: str, raw: dict) -> dict:
    """A config section as the grids receive it: validated, the schema's defaults filled in."""
    return workflow.validate_config({"analyses": [key], key: raw})[key]


def test_sensitivity_studies_vary_one_factor_and_share_the_base():
    runs = grids.sensitivity(section("sensitivity", SENSITIVITY_SECTION))
    by_study = {study: [r.level for r in runs if r.study == study] for study in grids.STUDIES}
    assert by_study == {"seeds": ["seed 0", "seed 1"], "shots": ["0", "5"], "formats": ["helm_default"],  # chat: chat models only
                        "methods": ["multiple_choice_joint"]}
    ids = [RunSpec.from_dict(r.spec).run_id for r in runs]
    # the base configuration (seed 0, 5 shots — the default — and HELM's format) is one run shared by three studies
    assert len(ids) == 6 and len(set(ids)) == 4


def test_helm_core_and_depth_grids():
    core = grids.helm_core(section("helm_core", {"models": ["a", "b"], "seeds": [0, 1], "max_instances": 5,
                                                 "scenarios": [{"scenario": "mmlu", "perturbations": ["robustness"]}]}))
    assert len(core) == 4 and {r.spec["adapter"]["seed"] for r in core} == {0, 1}
    assert all(r.spec["max_instances"] == 5 and r.spec["perturbations"] == ["robustness"] for r in core)
    depth = grids.depth(section("depth", {"models": ["a"], "lengths": [256, 512],
                                          "tasks": [{"scenario": "niah", "args": {"n_contexts": 3}},
                                                    {"scenario": "json_kv", "lengths": [1024]}]}))
    assert [(r.spec["scenario"], r.spec["args"]["target_tokens"], r.spec["adapter"]["method"]) for r in depth] == [
        ("niah", 256, "generation"), ("niah", 256, "multiple_choice_separate"),
        ("niah", 512, "generation"), ("niah", 512, "multiple_choice_separate"),
        ("json_kv", 1024, "generation"), ("json_kv", 1024, "multiple_choice_separate")]
    # log-probability runs score each instance's baseline (the key-absent query); generation runs do not
    assert [r.spec.get("perturbations", []) for r in depth] == [[], ["baseline"]] * 3


def test_catalog_refers_to_grid_functions_and_notebooks_get_run_ids_and_levels():
    assert all(a.grid is None or callable(a.grid) for a in ANALYSES.values())
    config = workflow.validate_config({"analyses": ["sensitivity"], "sensitivity": SENSITIVITY_SECTION})
    params = workflow.notebook_parameters(config, SENSITIVITY)
    assert len(params["run_ids"]) == 4 and set(params["run_levels"]) == set(params["run_ids"])
    base = [run_id for run_id, labels in params["run_levels"].items() if len(labels) == 3]
    assert len(base) == 1 and sorted(params["run_levels"][base[0]]) == [["formats", "helm_default"], ["seeds", "seed 0"],
                                                                         ["shots", "5"]]
    assert not set(params) & set(workflow.GRID_KEYS)  # grid keys build the runs; the notebook gets the runs
