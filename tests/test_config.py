"""Config validation: the shipped profiles are valid, bad values stop with a message naming the key."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from helmlite import workflow
from helmlite.cli import main

from .conftest import REPO


@pytest.mark.parametrize("name", ["config.yaml", "test.yaml", "paper.yaml"])
def test_shipped_profiles_validate_and_get_defaults(name):
    config = workflow.load_config(REPO / "config" / name)
    assert config["bootstrap"]["n_resamples"] >= 100
    assert config["helpsteer2"]["source"] in ("auto", "real", "simulated")


@pytest.mark.parametrize("text,needle", [
    ("analyses: [helpsteer2]\nhelpsteer2: {source: internet}\n", "at helpsteer2.source: 'internet' is not one of"),
    ("analyses: [helpsteer2]\nbootstrap: {n_resamples: 5}\n", "at bootstrap.n_resamples: 5 is less than the minimum of 100"),
    ("analyses: [helmet9]\n", "'helmet9' is not one of"),
    ("analyses: [helmet9]\n", "Did you mean: helmet"),  # difflib's close matches among the schema's enum
    ("analyses: [helpsteer2]\nbootstrapp: {}\n", "'bootstrapp' was unexpected"),
    ("analyses: [helpsteer2]\nbootstrapp: {}\n", "Did you mean: bootstrap?"),  # among the schema's properties
    ("analyses: [sensitivity]\nsensitivity: {methods: [multiple_choice_jiont]}\n",
     "at sensitivity.methods.0: 'multiple_choice_jiont' is not one of .* Did you mean: multiple_choice_joint"),
    ("analyses: [helm_core]\nhelm_core: {perturbations: [robustnes]}\n", "Did you mean: robustness?"),
    ("output_dir: x\n", "'analyses' is a required property"),
    ("- just\n- a list\n", "expected a mapping"),
])
def test_invalid_config_names_the_key(tmp_path, text, needle):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(workflow.ConfigError) as error:
        workflow.load_config(path)
    assert str(path) in str(error.value) and re.search(needle, str(error.value))


def test_cli_reports_invalid_config_in_one_line(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("analyses: [helpsteer2]\nhelpsteer2: {n_simulated: many}\n")
    assert main(["config", str(path)]) == 2
    assert "'many' is not of type 'integer'" in capsys.readouterr().err


def test_snakemake_refuses_an_invalid_config(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("analyses: [helpsteer2]\nhelpsteer2: {source: internet}\n")
    result = subprocess.run([sys.executable, "-m", "snakemake", "--dry-run", "--cores", "1", "--configfile", str(path)],
                            cwd=REPO, capture_output=True, text=True)
    assert result.returncode != 0
    assert "'internet' is not one of ['auto', 'real', 'simulated']" in result.stdout + result.stderr


def test_notebook_parameters_come_from_the_config():
    config = workflow.load_config(REPO / "config" / "test.yaml")
    analysis = next(a for a in workflow.enabled(config) if a.key == "helpsteer2")
    params = workflow.notebook_parameters(config, analysis)
    assert params["figures_dir"] == "build/test/figures" and params["tables_dir"] == "build/test/tables"
    assert params["source"] == "simulated" and params["n_resamples"] == 200
    outputs = workflow.outputs(config, analysis)
    assert outputs["notebook"] == "build/test/reports/05_helpsteer2_aggregation.ipynb"
    assert len(outputs["figures"]) == 2 * len(analysis.figures)


@pytest.mark.parametrize("per_analysis", [1, 2, 8])
def test_run_batches_cover_every_run_once_per_model_and_analysis(per_analysis):
    """Run jobs: every run spec in exactly one job; a job holds one model and one analysis; a model and
    analysis get at most ``engine.jobs_per_analysis`` jobs; job ids are identifiers naming both."""
    config = workflow.load_config(REPO / "config" / "config.yaml")
    config["engine"]["jobs_per_analysis"] = per_analysis
    batches = workflow.run_batches(config)
    ids = [spec.run_id for batch in batches.values() for spec in batch]
    assert sorted(ids) == sorted(workflow.run_specs(config)) and len(ids) == len(set(ids))
    by_analysis = {run_id: key for key, runs in workflow.runs_by_analysis(config).items() for run_id in runs}
    jobs: dict[tuple, int] = {}
    for batch_id, batch in batches.items():
        assert batch_id.isidentifier() and batch
        (model,) = {spec.model for spec in batch}
        (key,) = {by_analysis[spec.run_id] for spec in batch}
        assert batch_id.startswith(f"{model.replace('-', '_')}_{key}_")
        jobs[model, key] = jobs.get((model, key), 0) + 1
    assert max(jobs.values()) <= per_analysis
    if per_analysis == 1:
        assert len(batches) == len(jobs)


def _job_parameters(config: dict) -> dict[str, tuple]:
    """Per run job, what Snakemake compares to decide a re-run: its runs (the params) and its waits (inputs)."""
    waits = workflow.run_job_waits(config)
    return {job: ([spec.run_id for spec in batch], waits.get(job, [])) for job, batch in workflow.run_batches(config).items()}


@pytest.mark.parametrize("configfile, per_analysis", [("config/config.yaml", 4), ("config/config.yaml", 16),
                                                      ("config/test.yaml", 3)])
def test_adding_a_scenario_leaves_every_other_job_unchanged(configfile, per_analysis):
    """Stable assignment (issue 24 §1): a scenario added to a config lands its runs in some jobs; every
    job that got none of them keeps exactly the runs it had (its Snakemake parameters are unchanged, so it
    is not re-run), and the jobs that got them only gained the new runs. With several jobs per analysis, so that
    round-robin dealing (which shifts every later run to another job) would fail it. A job that waits for a
    changed one keeps its inputs too (it waits on a marker of the job, not on that job's run files)."""
    config = workflow.load_config(REPO / configfile)
    config["engine"]["jobs_per_analysis"] = per_analysis
    assert max(len(batch) for batch in workflow.run_batches(config).values()) < len(workflow.run_specs(config))
    before = _job_parameters(config)
    config["helm_core"]["scenarios"].append({"scenario": "mmlu", "args": {"subject": "econometrics"}})
    after = _job_parameters(config)
    new_runs = set(workflow.run_specs(config)) - {r for runs, _ in before.values() for r in runs}
    assert new_runs, "the added scenario must add runs"
    changed = {job for job in after if after[job] != before.get(job)}
    assert changed and all(set(after[job][0]) - set(before.get(job, ([], []))[0]) <= new_runs for job in changed)
    assert all(set(before.get(job, ([], []))[0]) <= set(after[job][0]) for job in changed)
    assert all(after[job][1] == before.get(job, ([], after[job][1]))[1] for job in changed)
    assert any(after[job][1] for job in after), "some job waits for another (notebook 02's for notebook 01's)"
    rule = (REPO / "rules" / "runs.smk").read_text()  # and these are the rule's inputs (not the waited-on runs' files)
    assert "WAITS = hw.run_job_waits(config)" in rule and "after=[ancient(marker) for marker in WAITS.get(batch_id, [])]" in rule
    assert {job: runs for job, runs in after.items() if job not in changed} == \
        {job: runs for job, runs in before.items() if job not in changed}


def test_a_job_asking_an_earlier_analysis_requests_waits_for_it():
    """Notebook 02's base configuration asks notebook 01's MMLU requests (without the perturbation): its job waits
    for the helm_core job of the same model, so the second reads them from the request cache instead of both
    computing them at once. Reference: the runs' request lists themselves (the adapted prompts, derived here)."""
    from helmlite.evaluation.runner import prepare_requests
    from tests.fakes import WordModel

    config = workflow.load_config(REPO / "config" / "config.yaml")
    waits = workflow.shared_request_waits(config)
    batches = workflow.run_batches(config)
    assert waits and all(job.split("_sensitivity_")[0] == other.split("_helm_core_")[0]
                         for job, earlier in waits.items() for other in earlier)

    def requests(spec):
        return {r.key().__repr__() for a in prepare_requests(spec, WordModel())[4] for r in a.requests}

    for job, earlier in waits.items():
        mine = set().union(*(requests(spec) for spec in batches[job] if spec.scenario == "mmlu"))
        theirs = set().union(*(requests(spec) for other in earlier for spec in batches[other] if spec.scenario == "mmlu"))
        assert mine & theirs  # the shared requests the wait saves
    # a job without such a twin waits for nobody
    assert not any(job.startswith("gemma3_270m_depth") or job.endswith("helm_core_1") for job in waits)


def test_wall_clock_tables_are_kept_apart_from_tables():
    """tables/ must be identical between runs; measured seconds go to results/measured/ (issue: determinism)."""
    config = workflow.load_config(REPO / "config" / "test.yaml")
    analysis = next(a for a in workflow.enabled(config) if a.key == "helm_core")
    outputs = workflow.outputs(config, analysis)
    assert outputs["measured"] == ["build/test/results/measured/helm_core_latency.csv",
                                   "build/test/results/measured/helm_core_runtime_model.csv"]
    assert not any("runtime" in t or "latency" in t for t in outputs["tables"])
    assert workflow.notebook_parameters(config, analysis)["measured_dir"] == "build/test/results/measured"


def test_the_docs_state_the_default_plan():
    """The time-budget page's sentence on the default run's size is the planner's, so it cannot go stale."""
    import re
    from pathlib import Path

    from helmlite import workflow

    readme = (Path(__file__).resolve().parent.parent / "docs" / "explanation" / "time-budget.md").read_text()
    stated = re.search(r"The default config plans (.+?\)), both embedded", readme.replace("\n", " ")).group(1)
    config = workflow.load_config(Path(__file__).resolve().parent.parent / "config" / "config.yaml")
    assert stated == workflow.plan_summary(config)
    # the timing table's run column: runs per analysis, as the plan counts them
    counts = {analysis: len(ids) for analysis, ids in workflow.runs_by_analysis(config).items()}
    for label, analysis in (("01 HELM core", "helm_core"), ("02 prompt sensitivity", "sensitivity"),
                            ("04 lost in the middle", "depth")):
        assert re.search(rf"^\| {label} \| (\d+)\b", readme, re.M).group(1) == str(counts[analysis]), label


@pytest.mark.parametrize("configfile", [None, "config/test.yaml", "config/config.yaml", "config/paper.yaml"])
def test_snakemake_plans_exactly_the_runs_of_the_config_it_is_given(configfile):
    """The workflow reads exactly the file given with --configfile (config/config.yaml when none): its planned
    run folders (snakemake --summary) are the run ids helmlite's own reading of that file lists — before, the
    Snakefile's default was deep-merged with the given file (test.yaml gained config.yaml's formats)."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    from helmlite import workflow

    repo = Path(__file__).resolve().parent.parent
    args = [sys.executable, "-m", "snakemake", "--summary", "--cores", "1"]
    if configfile:
        args += ["--configfile", configfile]
    done = subprocess.run(args, cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    planned = set(re.findall(r"/runs/([^/\s]+)/stats\.json", done.stdout))
    expected = set(workflow.run_specs(workflow.load_config(repo / (configfile or "config/config.yaml"))))
    assert planned == expected and planned
    listed = subprocess.run([sys.executable, "-m", "helmlite", "config", configfile or "config/config.yaml", "--runs"],
                            cwd=repo, capture_output=True, text=True)
    assert listed.returncode == 0 and set(listed.stdout.split()) == planned  # `helmlite config --runs` lists the same


@pytest.mark.parametrize("section,expected", [
    ({"analyses": ["helm_core"], "helm_core": {"scenarios": [{"scenario": "mmlu", "args": {"subject": "computer_securty"}}]}},
     "scenario .mmlu.: subject must be one of \\[.*\\], got 'computer_securty'. Did you mean: computer_security?"),
    ({"analyses": ["helm_core"], "helm_core": {"scenarios": [{"scenario": "bbq", "args": {"category": "Agee"}}]}},
     "category must be one of .* Did you mean: Age?"),
    ({"analyses": ["helm_core"], "helm_core": {"scenarios": [{"scenario": "mmlu", "args": {"subjct": "econometrics"}}]}},
     "unknown argument 'subjct'; accepted: \\['subject'\\]. Did you mean: subject?"),
    ({"analyses": ["sensitivity"], "sensitivity": {"models": ["smollm2-135m"], "chat_models": ["smollm-135m"]}},
     "sensitivity.chat_models: 'smollm-135m' is not one of sensitivity.models .* Did you mean: smollm2-135m?"),
])
def test_config_check_catches_scenario_arguments_and_chat_models(section, expected):
    """Issue 23 §4: a typo'd subject, category, argument name or chat model is one line with a did-you-mean at
    `helmlite config` (and Snakemake start-up, which calls the same check), not a run job failing later."""
    config = workflow.validate_config(section)
    with pytest.raises(workflow.ConfigError, match=expected):
        workflow.check_names(config, "c.yaml")


def test_required_data_includes_the_files_runs_read_besides_their_scenarios():
    """`make data` (helmlite fetch --for-config) fetches every file a run job reads: config/test.yaml perturbs with
    robustness and gender and computes the bias family on its generation runs, so their word lists are listed
    beside the scenarios' files (they were fetched inside the run jobs before, so an offline `make data` missed them)."""
    from helmlite.metrics.bias import WORD_LISTS
    from helmlite.evaluation.perturbations import CONTRACTIONS, GENDER_MAPPINGS, MISSPELLINGS

    names = workflow.required_data(workflow.load_config(REPO / "config" / "test.yaml"))
    assert {WORD_LISTS, CONTRACTIONS, MISSPELLINGS, GENDER_MAPPINGS} <= set(names)
    spec = next(s for s in workflow.run_specs(workflow.load_config(REPO / "config" / "test.yaml")).values() if "gender" in s.perturbations)
    assert GENDER_MAPPINGS in workflow.run_data(spec) and workflow.run_data(spec)[0] in names


def test_schema_accepts_what_a_run_spec_accepts_and_names_the_registries():
    """One source of names (issue 27 §3): the schema's run properties are RunSpec.from_dict's fields, and its
    perturbation enums (also helm_core's) are the registries' (helmlite.evaluation.perturbations, scenario variants) — a
    name added to one and not the other fails here; metric families are checked by the registry alone
    (helmlite.metrics.selection.family_names(), through workflow.check_names), so declaring a family is one file. A run with
    perturbations and metrics validates (the schema rejected both before)."""
    from importlib import resources

    import yaml

    from helmlite.evaluation.perturbations import PERTURBATIONS
    from helmlite.evaluation.runspec import RunSpec
    from helmlite.scenarios._base import SCENARIO_VARIANTS

    schema = yaml.safe_load(resources.files("helmlite").joinpath("schema.yaml").read_text(encoding="utf-8"))
    run, entry = schema["$defs"]["run"]["properties"], schema["$defs"]["grid_entry"]["properties"]
    assert set(run) == {"scenario", "model", "args", "adapter", "max_instances", "data_seed", "perturbations", "metrics"}
    helm_core = schema["properties"]["helm_core"]["properties"]  # the live grid's own perturbation list
    for properties in (run, entry, helm_core):
        assert set(properties["perturbations"]["items"]["enum"]) == set(PERTURBATIONS) | set(SCENARIO_VARIANTS)
    for properties in (run, entry):  # family names: the registry alone checks them (one file adds a family)
        assert properties["metrics"]["items"] == {"type": "string"}
    config = workflow.load_config(REPO / "config" / "test.yaml")
    with pytest.raises(workflow.ConfigError, match=r"c\.yaml: runs: unknown metric family 'acuracy'.*accuracy"):
        workflow.check_names(workflow.validate_config({**config, "runs": [
            {"scenario": "mmlu", "model": "smollm2-135m", "metrics": ["acuracy"]}]}, "c.yaml"), "c.yaml")
    spec = {"scenario": "mmlu", "model": "smollm2-135m", "args": {"subject": "computer_security"}, "max_instances": 4,
            "perturbations": ["robustness"], "metrics": ["accuracy", "robustness"]}
    workflow.validate_config({**config, "runs": [spec]}, "test")
    assert RunSpec.from_dict(spec).perturbations == ("robustness",)


def test_the_schemas_other_name_lists_are_the_registries():
    """One source of names (issue 27 §3), the lists the test above does not cover: the analyses enum is the
    catalog's, the sensitivity methods are the adapter's multiple-choice methods, the depth methods are adapter
    methods, the depth scenarios are the registered loaders that size a context in tokens (``target_tokens``), and
    every key the workflow treats as a run-grid key is a key of some analysis section."""
    import inspect
    from importlib import resources

    import yaml

    from helmlite.evaluation.adaptation import METHODS, MULTIPLE_CHOICE_METHODS
    from helmlite.catalog import ANALYSES
    from helmlite.scenarios import scenarios

    schema = yaml.safe_load(resources.files("helmlite").joinpath("schema.yaml").read_text(encoding="utf-8"))
    sections = schema["properties"]
    assert sections["analyses"]["items"]["enum"] == list(ANALYSES)
    assert tuple(sections["sensitivity"]["properties"]["methods"]["items"]["enum"]) == MULTIPLE_CHOICE_METHODS
    depth = sections["depth"]["properties"]
    assert set(depth["methods"]["items"]["enum"]) <= set(METHODS)
    task = depth["tasks"]["items"]["properties"]
    assert task["methods"]["items"]["enum"] == depth["methods"]["items"]["enum"]
    sized = {name for name, info in scenarios().items() if "target_tokens" in inspect.signature(info.load).parameters}
    assert set(task["scenario"]["enum"]) == sized
    analysis_keys = {key for name in ANALYSES for key in sections[name].get("properties", {})}
    assert set(workflow.GRID_KEYS) <= analysis_keys


def test_a_primary_claim_that_the_config_does_not_make_is_one_line_at_start_up(tmp_path, capsys):
    """config/examples/decide.yaml declares its one primary claim by name; a name no analysis declares for the config's
    runs stops `helmlite config` and Snakemake's start-up (before any job) with one line naming the key."""
    import yaml

    raw = yaml.safe_load((REPO / "config" / "examples" / "decide.yaml").read_text())
    assert main(["config", str(REPO / "config" / "examples" / "decide.yaml")]) == 0
    capsys.readouterr()
    raw["helm_core"]["primary_claims"] = ["The two models differ on bbq:Age (instruct vs base)"]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(raw, allow_unicode=True))
    assert main(["config", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "helm_core.primary_claims: 'The two models differ on bbq:Age (instruct vs base)' is not a claim" in err[0]
    assert "The two models differ on bbq:Age (smollm2-135m − gemma3-270m, paired)" in err[0]  # the claims it has
    dry = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile", str(bad)], cwd=REPO,
                         capture_output=True, text=True)
    assert dry.returncode == 2 and "helm_core.primary_claims" in dry.stderr
    assert [line for line in dry.stderr.splitlines() if line.startswith("helmlite: error:")] == dry.stderr.strip().splitlines()[-1:]
