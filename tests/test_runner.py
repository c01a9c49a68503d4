"""Run specs and execution: stable ids, paired instances across models, resumable byte-identical outputs."""
from __future__ import annotations

import json

import pytest

from helmlite.errors import UserError

from helmlite.models.cache import CachedModel, RequestCache
from helmlite.evaluation.runner import RunSpec, execute
from helmlite.evaluation.runspec import RunError

from .fakes import WordModel

MMLU = {"scenario": "mmlu", "model": "word-model", "args": {"subject": "econometrics"}, "max_instances": 12}


def files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name != "timings.json"}


def test_run_id_is_stable_and_changes_with_the_spec():
    spec = RunSpec.from_dict(MMLU)
    assert spec.run_id == RunSpec.from_dict(dict(MMLU)).run_id
    assert spec.run_id.startswith("mmlu_subject=econometrics-word-model-multiple_choice_separate-")
    changed = RunSpec.from_dict({**MMLU, "adapter": {"max_train_instances": 3}})
    assert changed.run_id != spec.run_id
    assert hash(spec) == hash(RunSpec.from_dict(MMLU))  # frozen and hashable



def test_a_raised_definition_version_changes_exactly_the_ids_it_affects(monkeypatch):
    """Issue 27 §2: a scenario's, perturbation's or metric family's version enters the run id of the runs that use
    it, and only theirs; a definition at version 1 leaves the id as it was before versions existed (the hash of the
    spec alone, computed here by hand)."""
    import dataclasses
    import hashlib

    from helmlite.evaluation import perturbations
    from helmlite.metrics import registry
    from helmlite.scenarios import _base

    specs = {"mmlu": RunSpec.from_dict(MMLU),
             "mmlu+robustness": RunSpec.from_dict({**MMLU, "perturbations": ["robustness"]}),
             "truthfulqa": RunSpec.from_dict({**MMLU, "scenario": "truthfulqa", "args": {}}),
             "nq": RunSpec.from_dict({**MMLU, "scenario": "nq_closed_book", "args": {}})}
    plain = specs["truthfulqa"]  # a scenario still at version 1 (mmlu is at 2: HELM's validation split, 2026-12-05)
    digest = hashlib.sha256(json.dumps(plain.as_dict(), sort_keys=True, default=list).encode()).hexdigest()[:10]
    assert plain.run_id.endswith(digest) and plain.versions["scenario"] == 1
    assert specs["mmlu"].versions["scenario"] == 2
    assert specs["mmlu+robustness"].versions["perturbations"] == {"robustness": 2}  # seeded as crfm-helm, 2026-12-02
    before = {name: spec.run_id for name, spec in specs.items()}

    def changed_after(patch) -> set[str]:
        with monkeypatch.context() as m:
            patch(m)
            return {name for name, spec in specs.items() if spec.run_id != before[name]}

    info = _base.scenario("mmlu")
    assert changed_after(lambda m: m.setitem(_base._REGISTRY, "mmlu", dataclasses.replace(info, version=info.version + 1))) == \
        {"mmlu", "mmlu+robustness"}
    robustness = perturbations.PERTURBATIONS["robustness"]
    assert changed_after(lambda m: m.setitem(perturbations.PERTURBATIONS, "robustness",
                                             dataclasses.replace(robustness, version=3))) == {"mmlu+robustness"}
    families = registry.REGISTRY
    assert changed_after(lambda m: m.setitem(families, "toxicity", dataclasses.replace(families["toxicity"], version=2))) \
        == {"nq"}  # generation runs only
    assert changed_after(lambda m: m.setitem(families, "calibration",
                                             dataclasses.replace(families["calibration"], version=2))) == set(specs)
    from helmlite.evaluation import adaptation

    assert plain.versions["adaptation"] == 1
    assert changed_after(lambda m: m.setattr(adaptation, "LAYOUT_VERSION", 2)) == set(specs)  # the prompt layout


def test_a_raised_backend_code_version_stops_reusing_cached_answers(tmp_path):
    """Issue 27 §2: the request cache keys a backend's answers by its code version when above 1; at 1 the key is the
    one of the cache's first format (computed here by hand), so existing caches stay valid."""
    import hashlib

    from helmlite.models.cache import request_key

    identity, request = {"backend": "fake", "name": "w"}, {"prompt": "p", "max_tokens": 1}
    first_format = hashlib.sha256(json.dumps({"model": identity, "request": request}, sort_keys=True).encode()).hexdigest()
    assert request_key(identity, request) == request_key(identity, request, 1) == first_format
    assert request_key(identity, request, 2) != first_format
    cache = RequestCache(tmp_path / "cache.sqlite")
    old, new = WordModel(), WordModel()
    new.code_version = 2
    CachedModel(old, cache, progress=False).score(_score_requests())
    CachedModel(new, cache, progress=False).score(_score_requests())
    assert len(old.calls) == len(new.calls) == 2  # the raised version asked the model again


def _score_requests():
    from helmlite.models import ScoreRequest

    return [ScoreRequest("Question: 1 + 1 =", (" 2", " 3")), ScoreRequest("Question: 2 + 2 =", (" 4", " 5"))]

def test_scenario_defaults_and_overrides_reach_the_adapter():
    spec = RunSpec.from_dict({**MMLU, "adapter": {"method": "multiple_choice_joint"}})
    assert spec.adapter.method == "multiple_choice_joint"
    assert spec.adapter.instructions.startswith("The following are multiple choice questions")


def test_rerun_is_byte_identical_with_zero_model_calls(mirrored_cache, tmp_path):
    spec = RunSpec.from_dict(MMLU)
    cache = RequestCache(tmp_path / "cache.sqlite")
    first = execute(spec, CachedModel(WordModel(), cache, progress=False), results_dir=tmp_path / "a")
    inner = WordModel()
    second = execute(spec, CachedModel(inner, RequestCache(tmp_path / "cache.sqlite"), progress=False), results_dir=tmp_path / "b")
    assert inner.calls == []
    assert files(first) == files(second)
    stats = json.loads((first / "stats.json").read_text())
    assert stats["n_instances"] == 12 and stats["main_metric"] == "exact_match"
    records = [json.loads(line) for line in (first / "instances.jsonl").read_text().splitlines()]
    assert all(r["n_train"] == 5 and len(r["scores"]) == 4 for r in records)
    # the stats are the mean of the per-instance records
    assert stats["metrics"]["exact_match"]["mean"] == pytest.approx(sum(r["correct"] for r in records) / 12)


def test_two_models_see_the_same_instances_and_examples(mirrored_cache, tmp_path):
    a = execute(RunSpec.from_dict(MMLU), WordModel("a"), results_dir=tmp_path)
    b = execute(RunSpec.from_dict({**MMLU, "model": "other"}), WordModel("b"), results_dir=tmp_path)
    ids = lambda run: [json.loads(line)["id"] for line in (run / "instances.jsonl").read_text().splitlines()]  # noqa: E731
    examples = lambda run: json.loads((run / "manifest.json").read_text())["in_context_examples"]  # noqa: E731
    assert ids(a) == ids(b) and examples(a) == examples(b)


def test_generation_run_scores_with_helm_metrics(mirrored_cache, tmp_path):
    out = execute(RunSpec.from_dict({"scenario": "nq_closed_book", "model": "w", "max_instances": 5}), WordModel(),
                  results_dir=tmp_path)
    stats = json.loads((out / "stats.json").read_text())
    assert stats["main_metric"] == "f1"
    assert {"exact_match", "quasi_exact_match", "f1", "toxic_fraction", "representation_gender"} <= set(stats["metrics"])
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["annotations"]["toxicity"]["proxy"] is True  # the offline classifier is labelled as a proxy


@pytest.mark.parametrize("spec,message", [
    ({"scenario": "mmlu", "model": "w", "args": {"subjekt": "x"}}, r"unknown argument 'subjekt'.*Did you mean: subject"),
    ({"scenario": "mmlu", "model": "w", "adapter": {"methd": "x"}}, r"unknown key 'methd'; expected one of method, .*Did you mean: method\?"),
    ({"scenario": "mmlu", "model": "w", "adapter": {"method": "guess"}}, "adapter method must be one of"),
    ({"scenario": "mmlu", "model": "w", "extra": 1}, r"unknown field\(s\) \['extra'\]"),
])
def test_bad_specs_fail_with_one_clear_message(mirrored_cache, tmp_path, spec, message):
    with pytest.raises((RunError, ValueError, UserError), match=message):
        execute(RunSpec.from_dict(spec), WordModel(), results_dir=tmp_path)


@pytest.mark.slow
def test_real_run_with_the_embedded_model(mirrored_cache, tmp_path):
    """`helmlite models prepare` then a 5-shot MMLU run of 20 instances; the rerun is served from the cache."""
    from helmlite.cli import main
    from helmlite.models import prepare

    prepare("smollm2-135m")
    args = ["run", "--scenario", "mmlu", "--model", "smollm2-135m", "--max-instances", "20", "--quiet",
            "--cache", str(tmp_path / "cache.sqlite")]
    assert main(args + ["--results-dir", str(tmp_path / "a")]) == 0
    assert main(args + ["--results-dir", str(tmp_path / "b")]) == 0
    (run_a,), (run_b,) = list((tmp_path / "a").iterdir()), list((tmp_path / "b").iterdir())
    assert files(run_a) == files(run_b)
    timings = json.loads((run_b / "timings.json").read_text())
    assert timings["model_calls"] == 0 and timings["cache_hits"] == 20 and timings["encoded_tokens"] == 0
    # where the time went (issue 24 §4): the parts add up to the wall time; overhead is all but the model calls
    first = json.loads((run_a / "timings.json").read_text())
    assert first["prepare_s"] + first["model_s"] + first["metrics_s"] == pytest.approx(first["wall_s"])
    assert first["overhead_s"] == pytest.approx(first["wall_s"] - first["model_s"]) and first["model_s"] > 0
    stats = json.loads((run_a / "stats.json").read_text())
    assert stats["n_instances"] == 20 and 0 <= stats["metrics"]["exact_match"]["mean"] <= 1
    # the positions the model ran: the planner's independent count of the same requests (the backend with its forwards
    # replaced by counts), and fewer than the prompts' tokens (the 5-shot prefix is encoded once for all 20)
    from helmlite.evaluation import prepare_requests
    from helmlite.models import work_counter

    counter = work_counter("smollm2-135m")
    spec = RunSpec.from_dict(json.loads((run_a / "manifest.json").read_text())["spec"])
    work = counter.count([r for a in prepare_requests(spec, counter)[-1] for r in a.requests], chunk_size=32)
    prompt_tokens = sum(json.loads(line)["prompt_tokens"] for line in (run_a / "instances.jsonl").open())
    assert first["encoded_tokens"] == work.encoded_tokens and 0 < first["encoded_tokens"] < prompt_tokens / 2


def test_bbq_bias_scores_come_from_instance_metadata(mirrored_cache, tmp_path):
    bbq = execute(RunSpec.from_dict({"scenario": "bbq", "model": "w", "args": {"category": "Age"}, "max_instances": 12}),
                  WordModel(), results_dir=tmp_path)
    mmlu = execute(RunSpec.from_dict(MMLU), WordModel(), results_dir=tmp_path)
    bbq_metrics = json.loads((bbq / "stats.json").read_text())["metrics"]
    assert {"bbq_accuracy_ambiguous", "bbq_bias_score_disambiguated", "bbq_bias_score_ambiguous_helm",
            "bbq_bias_score_ambiguous_parrish"} <= set(bbq_metrics)
    assert not any(k.startswith("bbq_") for k in json.loads((mmlu / "stats.json").read_text())["metrics"])
    # shares of 0/1 items get Clopper–Pearson (statsmodels "beta"), never a zero-width interval (also at 0 or n)
    from statsmodels.stats.proportion import proportion_confint

    mmlu_metrics = json.loads((mmlu / "stats.json").read_text())["metrics"]
    shares = {k: v for k, v in {**bbq_metrics, **mmlu_metrics}.items()
              if k in ("bbq_accuracy", "bbq_accuracy_ambiguous", "bbq_accuracy_disambiguated", "selective_acc@10")}
    assert "bbq_accuracy" in shares and "selective_acc@10" in shares
    for name, stat in shares.items():
        hits = round(stat["mean"] * stat["n"])
        assert (stat["ci_low"], stat["ci_high"]) == pytest.approx(proportion_confint(hits, stat["n"], 0.05, "beta")), name
        assert stat["ci_high"] > stat["ci_low"] and stat["method"] == "clopper-pearson", name


@pytest.mark.parametrize("spec,main", [
    ({"scenario": "babi", "args": {"task": 1}, "max_instances": 3}, "quasi_exact_match"),
    ({"scenario": "gsm8k", "max_instances": 3, "adapter": {"max_train_instances": 1}}, "final_number_match"),
    ({"scenario": "blimp", "args": {"paradigm": "anaphor_gender_agreement"}, "max_instances": 3}, "exact_match"),
])
def test_scenarios_no_config_uses_still_run_end_to_end(mirrored_cache, tmp_path, spec, main):
    """bAbI, GSM8K and BLiMP are registered for users' own configs: each runs through the engine and reads back."""
    from helmlite.results import read_run

    run_spec = RunSpec.from_dict({**spec, "model": "w"})
    execute(run_spec, WordModel(), results_dir=tmp_path)
    run = read_run(tmp_path, run_spec.run_id)
    assert run.stats.n_instances == 3 and run.main_metric == main and len(run.main_values()) == 3


@pytest.mark.parametrize("small,large", [
    ({**MMLU, "max_instances": 5, "perturbations": ["robustness"]}, {**MMLU, "max_instances": 10, "perturbations": ["robustness"]}),
    # BBQ's questions come in groups that share a context passage: in one run-wide trie half of a 10-item run's
    # requests gained a shared level when the run grew to 40 (measured), so their keys changed
    ({"scenario": "bbq", "args": {"category": "Age"}, "adapter": {"max_train_instances": 3}, "max_instances": 10},
     {"scenario": "bbq", "args": {"category": "Age"}, "adapter": {"max_train_instances": 3}, "max_instances": 40}),
    ({"scenario": "niah", "args": {"n_contexts": 2, "depths": [0.0, 0.5, 1.0], "distractors": 3, "target_tokens": 128},
      "perturbations": ["baseline"], "adapter": {"method": "multiple_choice_separate"}},
     {"scenario": "niah", "args": {"n_contexts": 4, "depths": [0.0, 0.5, 1.0], "distractors": 3, "target_tokens": 128},
      "perturbations": ["baseline"], "adapter": {"method": "multiple_choice_separate"}}),
    # a depth sweep subsampled by max_instances: a context's levels count its depths the subsample left out too
    ({"scenario": "niah", "args": {"n_contexts": 3, "depths": [0.0, 0.5, 1.0], "distractors": 3, "target_tokens": 128},
      "perturbations": ["baseline"], "adapter": {"method": "multiple_choice_separate"}, "max_instances": 4},
     {"scenario": "niah", "args": {"n_contexts": 3, "depths": [0.0, 0.5, 1.0], "distractors": 3, "target_tokens": 128},
      "perturbations": ["baseline"], "adapter": {"method": "multiple_choice_separate"}, "max_instances": 7})])
def test_a_grown_run_reuses_every_request_it_already_asked(mirrored_cache, tmp_path, tiny_model_dir, small, large):
    """A request's cache key depends on the request alone (its prefixes come from its instance's or context's own
    prompts, helmlite.evaluation.shared_prefixes) and the request cache computes only what it lacks, chunk by chunk: a run of 10
    items after a run of 5 of the same spec — HELM's subsample is nested —, BBQ's 40 after 10, a depth sweep of 4
    contexts after 2, and one of 7 of its 9 instances after 4 answer every request of the smaller run from the cache, and those items' records are the smaller
    run's byte for byte (the transformers backend, fp32 on CPU)."""
    from helmlite.models.transformers_backend import TransformersModel

    model = TransformersModel(tiny_model_dir, batch_size=4)
    cache = RequestCache(tmp_path / "cache.sqlite")
    results = tmp_path / "runs"
    first = execute(RunSpec.from_dict({**small, "model": str(tiny_model_dir)}), CachedModel(model, cache, progress=False),
                    results_dir=results)
    grown = execute(RunSpec.from_dict({**large, "model": str(tiny_model_dir)}), CachedModel(model, cache, progress=False),
                    results_dir=results)
    before, after = (json.loads((folder / "timings.json").read_text()) for folder in (first, grown))
    from helmlite.models import local_model_key

    # the run records its model as its folder's name and weights hash, as its run id does (a moved folder's runs agree)
    assert json.loads((first / "stats.json").read_text())["model"] == local_model_key(tiny_model_dir)
    assert before["cache_hits"] == 0 and after["cache_hits"] == before["model_calls"] > 0
    lines = {folder: {json.loads(line)["id"]: line for line in (folder / "instances.jsonl").read_text().splitlines()}
             for folder in (first, grown)}
    assert set(lines[first]) < set(lines[grown])
    assert all(lines[grown][i] == line for i, line in lines[first].items())


def test_a_local_model_directorys_run_ids_do_not_depend_on_where_it_lies(tmp_path, tiny_model_dir, monkeypatch):
    """The same checkpoint copied to two places (another parent folder, the same folder name) gives the same run id,
    whose readable part names the folder and its weights' hash, not the path; other weights give another id. The hash
    is computed once and remembered by the weight files' sizes and times."""
    import shutil

    from helmlite.models import local_model_key
    from helmlite.models._identity import weights_sha256

    monkeypatch.setenv("HELMLITE_MODEL_HASHES", str(tmp_path / "hashes.json"))
    here, there = tmp_path / "a" / "tiny", tmp_path / "b" / "c" / "tiny"
    shutil.copytree(tiny_model_dir, here)
    shutil.copytree(tiny_model_dir, there)
    ids = [RunSpec.from_dict({**MMLU, "model": str(folder)}).run_id for folder in (here, there)]
    key = f"tiny@{weights_sha256(here)[:12]}"
    assert ids[0] == ids[1] and f"-{key.replace('@', '_')}-" in ids[0] and "_a_" not in ids[0]  # ids keep [A-Za-z0-9_.=,-]
    assert local_model_key(here) == key and str(here.resolve()) in json.loads((tmp_path / "hashes.json").read_text())
    weights = next(there.glob("*.safetensors"))
    weights.write_bytes(weights.read_bytes()[:-4] + b"\0\0\0\1")  # other weights (same size): another id
    assert RunSpec.from_dict({**MMLU, "model": str(there)}).run_id != ids[0]


def test_execute_all_reports_each_run_from_its_stats_alone(mirrored_cache, tmp_path, tiny_model_dir, monkeypatch):
    """One line per finished run with the main metric, its interval and n as ``stats.json`` holds them (reference: the
    file itself), read without reading the instances back (reading a record raises here)."""
    from helmlite.evaluation.runner import execute_all
    from helmlite.results import InstanceRecord

    specs = [RunSpec.from_dict({**MMLU, "model": str(tiny_model_dir), "max_instances": 3, "args": {"subject": subject}})
             for subject in ("econometrics", "us_foreign_policy")]

    def refuse(*args, **kwargs):
        raise AssertionError("a finished run's line read its instances back")

    monkeypatch.setattr(InstanceRecord, "from_json", staticmethod(refuse))
    lines = []
    folders = execute_all(specs, RequestCache(tmp_path / "cache.sqlite"), results_dir=tmp_path / "runs", progress="none",
                          n_resamples=200, report=lines.append)
    assert len(lines) == len(folders) == 2
    for line, folder in zip(lines, folders):
        stats = json.loads((folder / "stats.json").read_text())
        main = stats["metrics"][stats["main_metric"]]
        assert line == (f"{stats['run_id']}: {stats['main_metric']} = {main['mean']:.3f} [{main['ci_low']:.3f}, "
                        f"{main['ci_high']:.3f}] (n=3; model calls 3, cache hits 0) -> {folder}")
