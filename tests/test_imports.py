"""Importing runs made by crfm-helm and lm-eval: the real fixtures under tests/data/ (recipes:
benchmarks/helm_import_fixture.py, benchmarks/lm_eval_import_fixture.py) reproduce the source tool's
aggregates exactly, keep their instances, compare paired across models, and bad input gets one clear error."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helmlite import cli
from helmlite.analyses.helm_core import model_differences
from helmlite.errors import DataError
from helmlite.imports import ImportFormatError, import_helm, import_lm_eval
from helmlite.results import read_run, read_runs

DATA = Path(__file__).parent / "data"
MODELS = ("smollm2-135m", "gemma3-270m")
BOOT = {"n_resamples": 200, "seed": 0}


def helm_dir(model: str) -> Path:
    return DATA / "helm" / model


def samples_file(model: str) -> Path:
    return next((DATA / "lm_eval" / model).glob("samples_*.jsonl"))


def results_file(model: str) -> Path:
    return next((DATA / "lm_eval" / model).glob("results_*.json"))


def helm_mean(model: str, metric: str) -> float:
    stats = json.loads((helm_dir(model) / "stats.json").read_text())
    return next(s["mean"] for s in stats if s["name"] == {"name": metric, "split": "test"})


def helm_count(model: str) -> int:
    return int(helm_mean(model, "num_instances"))


@pytest.mark.parametrize("model", MODELS)
def test_helm_import_reproduces_helms_aggregate_and_instances(tmp_path, model):
    [folder] = import_helm(helm_dir(model), tmp_path, **BOOT)
    run = read_run(tmp_path, folder.name)
    assert run.run_id == f"helm-mmlu_subject=us_foreign_policy,method=multiple_choice_joint,model=helmlite_{model}"
    assert run.stats.n_instances == helm_count(model) == len(run.records) == 10
    for metric in ("exact_match", "quasi_exact_match", "prefix_exact_match"):
        assert run.stats.metrics[metric].mean == helm_mean(model, metric)  # exactly HELM's number
    main = run.stats.metrics["exact_match"]
    assert main.method == "clopper-pearson" and main.ci_low <= main.mean <= main.ci_high and main.n == 10
    assert run.main_metric == "exact_match" and run.model == f"helmlite/{model}" and run.scenario_label == "mmlu:us_foreign_policy"
    state = json.loads((helm_dir(model) / "scenario_state.json").read_text())["request_states"]
    assert [r.id for r in run.records] == [s["instance"]["id"] for s in state]
    for record, request_state in zip(run.records, state):
        text = request_state["result"]["completions"][0]["text"]
        assert record.prompt == request_state["request"]["prompt"] and record.completion == text
        assert record.prediction == text.strip() and record.n_train == 5
        assert record.predicted_index == list(request_state["output_mapping"]).index(text.strip())
        assert record.correct == (record.metrics["exact_match"] == 1.0)
        assert sum(c for _, c in record.references) == 1 and record.prompt_tokens > 0
    # HELM's HuggingFaceClient reports log-probability 0 at temperature 0: no confidence, no calibration, said so
    assert all(r.confidence is None for r in run.records) and "ece_10" not in run.stats.metrics
    assert run.stats.decision["confidence"].startswith("none: every max_prob is exactly 1")
    source = run.manifest.imported_from
    assert source["tool"] == "crfm-helm" and source["aggregate"] == {"metric": "exact_match", "helm_mean": helm_mean(model, "exact_match")}
    assert set(source["files"]) == {"run_spec.json", "scenario_state.json", "per_instance_stats.json", "stats.json"}
    assert all(len(f["sha256"]) == 64 for f in source["files"].values())
    assert len(run.timings.latency_s) == 10 and run.stats.efficiency["mean_prompt_tokens"] > 400


@pytest.mark.parametrize("model", MODELS)
def test_lm_eval_import_reproduces_reported_accuracy(tmp_path, model):
    folder = import_lm_eval(samples_file(model), tmp_path, **BOOT)
    run = read_run(tmp_path, folder.name)
    reported = json.loads(results_file(model).read_text())
    task = "helmlite_mmlu_cloze_us_foreign_policy"
    assert run.run_id == f"lm-eval-{task}-{model}" and run.model == model and run.scenario_label == task
    assert run.stats.n_instances == reported["n-samples"][task]["effective"] == 10
    assert run.stats.metrics["acc"].mean == reported["results"][task]["acc,none"]
    assert run.stats.metrics["acc_norm"].mean == reported["results"][task]["acc_norm,none"]
    assert run.main_metric == "acc" and run.stats.n_train_examples == 5 and run.stats.metrics["acc"].method == "clopper-pearson"
    samples = [json.loads(line) for line in samples_file(model).read_text().splitlines()]
    for record, sample in zip(run.records, samples):
        lls = [float(r[0]) for r in sample["filtered_resps"]]
        assert record.id == str(sample["doc_id"]) and record.scores == lls and len(record.references) == 4
        assert record.predicted_index == lls.index(max(lls)) and record.correct == (sample["acc"] == 1.0)
        assert record.metrics == {"acc": sample["acc"], "acc_norm": sample["acc_norm"]}
        assert record.prompt == sample["arguments"]["gen_args_0"]["arg_0"]
        assert [r for r, ok in record.references if ok] == [sample["doc"]["choices"][sample["doc"]["answer"]]]
        assert abs(sum(record.probabilities) - 1) < 1e-9 and record.confidence == max(record.probabilities)
    assert "ece_10" in run.stats.metrics  # softmax over the choices is a real confidence
    source = run.manifest.imported_from
    assert source["tool"] == "lm-eval" and source["version"] == reported["lm_eval_version"]
    assert source["aggregate"]["lm_eval_mean"] == reported["results"][task]["acc,none"]
    assert read_run(tmp_path, folder.name).stats == run.stats


def test_imports_are_byte_identical_when_repeated(tmp_path):
    for target in ("a", "b"):
        import_helm(helm_dir("smollm2-135m"), tmp_path / target, **BOOT)
        import_lm_eval(samples_file("smollm2-135m"), tmp_path / target, **BOOT)
    for path in sorted((tmp_path / "a").rglob("*.json*")):
        assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes(), path


def test_two_imported_models_compare_paired_on_the_same_items(tmp_path):
    for model in MODELS:
        import_helm(helm_dir(model), tmp_path, **BOOT)
        import_lm_eval(samples_file(model), tmp_path, **BOOT)
    runs = read_runs(tmp_path, sorted(p.name for p in tmp_path.iterdir()))
    helm = model_differences(runs, "helmlite/smollm2-135m", "helmlite/gemma3-270m", seed=0, n_resamples=200)
    assert len(helm) == 1 and helm.loc[0, "n"] == 10 and helm.loc[0, "scenario"] == "mmlu:us_foreign_policy"
    assert helm.loc[0, "difference"] == pytest.approx(helm_mean("smollm2-135m", "exact_match") - helm_mean("gemma3-270m", "exact_match"))
    assert helm.loc[0, "test"] == "newcombe-score/mcnemar-exact" and helm.loc[0, "ci_low"] <= helm.loc[0, "difference"] <= helm.loc[0, "ci_high"]
    lm = model_differences(runs, "smollm2-135m", "gemma3-270m", seed=0, n_resamples=200)
    assert len(lm) == 1 and lm.loc[0, "n"] == 10 and lm.loc[0, "metric"] == "acc"


def test_cli_imports_and_prints_the_interval(tmp_path, capsys):
    assert cli.main(["import", "helm", str(helm_dir("smollm2-135m")), "--results-dir", str(tmp_path), "--n-resamples", "200"]) == 0
    assert cli.main(["import", "lm-eval", str(samples_file("gemma3-270m")), "--results-dir", str(tmp_path),
                     "--model", "gemma-3-270m", "--n-resamples", "200"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("helm-mmlu_subject=us_foreign_policy,method=multiple_choice_joint,model=helmlite_smollm2-135m: "
                             "exact_match = 0.400 [0.122, 0.738] (n=10, clopper-pearson) -> ")
    assert out[1].startswith("lm-eval-helmlite_mmlu_cloze_us_foreign_policy-gemma-3-270m: acc = 0.300")
    assert read_run(tmp_path, "lm-eval-helmlite_mmlu_cloze_us_foreign_policy-gemma-3-270m").model == "gemma-3-270m"


def _copy(src: Path, tmp_path: Path) -> Path:
    target = tmp_path / "src"
    shutil.copytree(src, target)
    return target


def _edit_json(path: Path, edit) -> None:
    raw = json.loads(path.read_text())
    edit(raw)
    path.write_text(json.dumps(raw))


def _helm_cases():
    def drop(file, edit):
        return lambda folder: _edit_json(folder / file, edit)

    return [
        ("missing run_spec.json", lambda f: (f / "run_spec.json").unlink(), "run_spec.json: file not found"),
        ("missing scenario_state.json", lambda f: (f / "scenario_state.json").unlink(), "scenario_state.json: file not found"),
        ("truncated per_instance_stats.json",
         lambda f: (f / "per_instance_stats.json").write_text((f / "per_instance_stats.json").read_text()[:5000]),
         "per_instance_stats.json: not valid JSON"),
        ("run spec without a name", drop("run_spec.json", lambda r: r.pop("name")), "run_spec.json: the top level has no field 'name'"),
        ("adapter without a method", drop("run_spec.json", lambda r: r["adapter_spec"].pop("method")),
         "run_spec.json: adapter_spec has no field 'method'"),
        ("state without request_states", drop("scenario_state.json", lambda r: r.pop("request_states")),
         "scenario_state.json: the top level has no field 'request_states'"),
        ("request without prompt text", drop("scenario_state.json", lambda r: r["request_states"][3]["instance"]["input"].pop("text")),
         "scenario_state.json: request_states[3].instance.input has no field 'text'"),
        ("completion without text", drop("scenario_state.json", lambda r: r["request_states"][2]["result"]["completions"][0].pop("text")),
         "scenario_state.json: request_states[2].result.completions[0] has no field 'text'"),
        ("stat without mean", drop("per_instance_stats.json", lambda r: r[4]["stats"][16].pop("mean")),
         "per_instance_stats.json: [4].stats[16] has no field 'mean'"),
        ("stats for an instance without a request",
         drop("scenario_state.json", lambda r: r["request_states"].pop(0)), "has no request state in"),
        ("per-instance stats not a list", lambda f: (f / "per_instance_stats.json").write_text("{}"),
         "per_instance_stats.json: expected a list of per-instance stats, got dict"),
        ("per-instance stats cut to 3 instances, the request states complete",  # the fixture's first 3: 1/3; HELM: 0.4
         drop("per_instance_stats.json", lambda r: r.__delitem__(slice(3, None))),
         "mean exact_match of its 3 instances is 0.333333, but stats.json (HELM's own aggregate) says 0.400000"),
    ]


@pytest.mark.parametrize("case,damage,message", _helm_cases(), ids=[c[0] for c in _helm_cases()])
def test_bad_helm_input_gets_one_clear_error(tmp_path, capsys, case, damage, message):
    folder = _copy(helm_dir("smollm2-135m"), tmp_path)
    damage(folder)
    with pytest.raises(ImportFormatError) as error:
        import_helm(folder, tmp_path / "out", **BOOT)
    assert message in str(error.value) and str(folder) in str(error.value) and isinstance(error.value, DataError)
    assert not (tmp_path / "out").exists()  # nothing half-written
    assert cli.main(["import", "helm", str(folder), "--results-dir", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    assert len(captured.err.splitlines()) == 1 and message in captured.err


def _lm_eval_cases():
    def lines(edit):
        def damage(path):
            rows = [json.loads(line) for line in path.read_text().splitlines()]
            edit(rows)
            path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return damage

    return [
        ("truncated samples", lambda p: p.write_text(p.read_text()[:-2000]), "line 10: malformed JSON"),
        ("sample without doc_id", lines(lambda rows: rows[2].pop("doc_id")), "line 3 has no field 'doc_id'"),
        ("sample without filtered_resps", lines(lambda rows: rows[0].pop("filtered_resps")), "line 1 has no field 'filtered_resps'"),
        ("sample without its acc value", lines(lambda rows: rows[4].pop("acc")), "line 5 has no field 'acc'"),
        ("log-likelihoods of the wrong length", lines(lambda rows: rows[1]["filtered_resps"].pop()),
         "line 2.filtered_resps has 3 log-likelihoods for 4 requests"),
        ("duplicate documents", lines(lambda rows: rows.append(rows[0])), "doc_id 0 appears twice"),
        ("samples cut at a line boundary", lambda p: p.write_text("".join(p.read_text().splitlines(True)[:5])),
         "5 samples of filter 'none', but results_2026-11-30T21-33-35.657980.json says lm-eval evaluated 10"),
        ("samples cut short, results without n-samples",  # the fixture's first 5 samples: acc 0.2, lm-eval's own: 0.3
         lambda p: (p.write_text("".join(p.read_text().splitlines(True)[:5])),
                    _edit_json(next(p.parent.glob("results_*.json")), lambda r: r.pop("n-samples"))),
         "mean acc of its 5 instances is 0.200000, but results_2026-11-30T21-33-35.657980.json (filter 'none') says 0.300000"),
        ("empty file", lambda p: p.write_text(""), "no samples (an empty file"),
        ("truncated results json", lambda p: next(p.parent.glob("results_*.json")).write_text('{"results": {'),
         "not valid JSON (Expecting property name enclosed in double quotes at line 1, column 14 — truncated?)"),
        ("results without model name", lambda p: _edit_json(next(p.parent.glob("results_*.json")), lambda r: r.pop("model_name")),
         "has no field 'model_name': give the model name with --model"),
    ]


@pytest.mark.parametrize("case,damage,message", _lm_eval_cases(), ids=[c[0] for c in _lm_eval_cases()])
def test_bad_lm_eval_input_gets_one_clear_error(tmp_path, capsys, case, damage, message):
    folder = _copy(samples_file("smollm2-135m").parent, tmp_path)
    path = next(folder.glob("samples_*.jsonl"))
    damage(path)
    with pytest.raises(ImportFormatError) as error:
        import_lm_eval(path, tmp_path / "out", **BOOT)
    assert message in str(error.value) and str(folder) in str(error.value)
    assert not (tmp_path / "out").exists()
    assert cli.main(["import", "lm-eval", str(path), "--results-dir", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    assert len(captured.err.splitlines()) == 1 and message in captured.err


def test_missing_sources_exit_2_naming_the_path(tmp_path, capsys):
    assert cli.main(["import", "helm", str(tmp_path / "absent")]) == 2
    assert f"{tmp_path / 'absent'}: not a folder; expected a HELM run folder" in capsys.readouterr().err
    assert cli.main(["import", "lm-eval", str(tmp_path / "samples_x_2026-01-01T00-00-00.0.jsonl")]) == 2
    assert "file not found (expected lm-eval --log_samples output" in capsys.readouterr().err


def test_import_of_good_then_bad_sources_says_what_was_written(tmp_path, capsys):
    """`helmlite import helm good/ bad/`: the good run is written and announced at once; the error on the bad
    one is one line that names what was already imported, exit status 2."""
    out = tmp_path / "out"
    assert cli.main(["import", "helm", str(helm_dir("smollm2-135m")), str(tmp_path / "absent"),
                     "--results-dir", str(out), "--n-resamples", "200"]) == 2
    captured = capsys.readouterr()
    (written,) = [p.name for p in out.iterdir()]
    assert captured.out.startswith(f"{written}: ") and len(captured.err.splitlines()) == 1
    assert f"(imported before it: {written}; nothing of {tmp_path / 'absent'} was written)" in captured.err


def test_samples_without_results_file_need_a_model_name(tmp_path, capsys):
    path = tmp_path / "samples_task.jsonl"
    shutil.copyfile(samples_file("smollm2-135m"), path)
    with pytest.raises(ImportFormatError, match="no results_<date>.json beside .*: give the model name with --model"):
        import_lm_eval(path, tmp_path / "out", **BOOT)
    run = read_run(tmp_path / "out", import_lm_eval(path, tmp_path / "out", model="m", **BOOT).name)
    assert run.stats.metrics["acc"].mean == 0.3 and run.manifest.imported_from["aggregate"] is None
    assert ("helmlite: warning: samples_task.jsonl: no results_<date>.json beside it to check the sample count "
            "(n-samples) and the mean acc; imported 10 samples unchecked") in capsys.readouterr().err


def test_helm_perturbed_variants_and_trials(tmp_path):
    """HELM's augmented instances become perturbed outcomes; several train trials become one run each."""
    folder = _copy(helm_dir("smollm2-135m"), tmp_path)
    state_path, stats_path = folder / "scenario_state.json", folder / "per_instance_stats.json"
    state, per_instance = json.loads(state_path.read_text()), json.loads(stats_path.read_text())
    perturbation = {"name": "typos", "robustness": True, "fairness": False, "computed_on": "perturbed"}
    extra_states, extra_stats = [], []
    for request_state, entry in zip(state["request_states"][:3], per_instance[:3]):
        variant = json.loads(json.dumps(request_state))
        variant["instance"]["perturbation"] = perturbation
        extra_states.append(variant)
        extra_stats.append({**json.loads(json.dumps(entry)), "perturbation": perturbation})
    second_states = [{**json.loads(json.dumps(s)), "train_trial_index": 1} for s in state["request_states"]]
    second_stats = [{**json.loads(json.dumps(e)), "train_trial_index": 1} for e in per_instance]
    state["request_states"] += extra_states + second_states
    state_path.write_text(json.dumps(state))
    stats_path.write_text(json.dumps(per_instance + extra_stats + second_stats))
    folders = import_helm(folder, tmp_path / "out", **BOOT)
    assert [f.name.rsplit("-", 1)[1] for f in folders] == ["trial0", "trial1"]
    first, second = (read_run(tmp_path / "out", f.name) for f in folders)
    assert (first.seed, second.seed) == (0, 1) and first.stats.metrics["exact_match"].mean == 0.4
    assert first.variants() == ["typos"] and sum(1 for r in first.records if r.perturbed) == 3
    record = next(r for r in first.records if r.perturbed)
    assert record.perturbed["typos"].metrics["exact_match"] == record.metrics["exact_match"]
    assert second.variants() == []
