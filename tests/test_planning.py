"""The planner (issue 24 §2): its counts are the backend's own, its rates are cached per machine, its MDEs are
the notebooks' tests at planning values, and it plans exactly the workflow's runs."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from helmlite import models, stats, workflow
from helmlite.results import FORMAT_VERSION
from helmlite.models import GenerationRequest, ScoreRequest
from helmlite.planning import claim_mdes as planned_claims

from .test_stats_power import statsmodels_mcnemar_power
from helmlite.models import work_counting as counting  # the planner's token-counting hook (helmlite.models.work_counter)
from helmlite.planning import rates

REPO = Path(__file__).resolve().parent.parent


def _requests():
    prefix = "The cat sat on the mat. " * 12
    scores = [ScoreRequest(f"{prefix}Question: what is two plus two? {k}\nAnswer:", (" four", " the mat", " Paris is in France"))
              for k in range(6)]
    scores += [ScoreRequest("Paris is", (" in France.",)), ScoreRequest("Question: what", (" is", " cat"))]
    generations = [GenerationRequest(f"{prefix}Question {k}: what is two plus two?\nAnswer:", max_tokens=3) for k in range(5)]
    generations += [GenerationRequest("The cat", max_tokens=2)]
    return scores, generations


@pytest.mark.parametrize("chunk_size", [3, 100])
def test_counted_tokens_are_what_the_backend_encodes(tiny_model_dir, chunk_size):
    """The counter is the real backend with its forwards replaced: on the same requests, in the same chunks,
    it counts exactly the tokens the real model runs through the network (its own ``encoded_tokens``), with
    prefix reuse, one-token merging and prefix-cached decoding all in play."""
    from helmlite.models.transformers_backend import TransformersModel

    scores, generations = _requests()
    model = TransformersModel(tiny_model_dir, batch_size=4)
    for requests in (scores, generations):
        for start in range(0, len(requests), chunk_size):
            chunk = requests[start:start + chunk_size]
            (model.score if isinstance(chunk[0], ScoreRequest) else model.generate)(chunk)
    counter = counting.WorkCounter(tiny_model_dir, batch_size=4)
    work = counter.count(generations + scores, chunk_size)
    assert work.encoded_tokens == model.encoded_tokens > 0
    assert work.requests == len(scores) + len(generations)
    assert work.decode_steps == 5 * 3 + 2 and work.score_forwards >= 1  # every generation decodes max_tokens


def test_seconds_are_the_linear_cost_model():
    """Hand-derived: 1,000 positions × 2 ms + 10 forwards × 0.1 s + 8 steps × 50 ms + 2 generate calls × 0.3 s
    = 4.0 s; with 5,000 row × prefix positions at 0.1 ms: + 0.5 s."""
    work = counting.Work(score_positions=600, prefill_positions=400, score_forwards=10, decode_steps=8, generate_calls=2)
    assert rates.Rates(0.002, 0.1, 0.05, 0.3, 1.0).seconds(work) == pytest.approx(2.0 + 1.0 + 0.4 + 0.6)
    work.prefix_row_positions = 5000
    assert rates.Rates(0.002, 0.1, 0.05, 0.3, 1.0, 1e-4).seconds(work) == pytest.approx(4.0 + 0.5)
    work.projected_positions = 300  # × 2 ms per position projected to the vocabulary: + 0.6 s
    assert rates.Rates(0.002, 0.1, 0.05, 0.3, 1.0, 1e-4, projected_s=0.002).seconds(work) == pytest.approx(4.5 + 0.6)


def test_counter_counts_the_positions_each_forward_projects():
    """Hand-derived, per path, with SmolLM2's tokenizer: three one-row requests run as one packed forward that
    projects MIN_POSITIONS = 16 positions (their three read positions and 13 others), not 16 per row; "a b c" with
    the continuations " d e" and " f g h" is two padded rows, [81, 278, 265, 287, 297] and [81, 278, 265, 275, 310,
    294], each reading after its context's 3 tokens, so ``logits_to_keep`` projects the union {2, 3, 4} for both
    rows: 6; a declared 80-word prefix adds its extension's one projected position (logits_to_keep=1)."""
    from helmlite.models import prepare
    from helmlite.models._base import ScoreRequest

    counter = counting.WorkCounter(prepare("smollm2-135m"))
    packed = counter.count([ScoreRequest("a b c", (f" {w}",)) for w in "def"], chunk_size=8)
    assert (packed.score_forwards, packed.projected_positions) == (1, 16)
    assert [counter._pair_tokens("a b c", c) for c in (" d e", " f g h")] == [([81, 278, 265, 287, 297], 3),
                                                                           ([81, 278, 265, 275, 310, 294], 3)]
    padded = counter.count([ScoreRequest("a b c", (" d e", " f g h"))], chunk_size=8)
    assert (padded.score_forwards, padded.projected_positions) == (1, 6)
    shared = " ".join(["word"] * 80)
    levelled = counter.count([ScoreRequest(shared + " a b c", (" d e", " f g h"), (len(shared),))], chunk_size=8)
    assert (levelled.score_forwards, levelled.projected_positions) == (2, 1 + 6)


@pytest.mark.parametrize("model", ["smollm2-135m", "gemma3-270m"])
def test_the_counters_fast_encodings_are_the_tokenizers_on_real_prompts(mirrored_cache, model):
    """The counter tokenizes each new text after the previous one's shared part, and each scored context once for
    all its continuations (:mod:`helmlite.models.encodings`). On real prompts — MMLU's separately scored answers
    with five shots, BoolQ's, JSON KV's ten candidate values after a 1,024-token dictionary (its size searched by
    counting) — every prompt's count and every pair's ids equal the tokenizer's on the whole text (the independent
    reference: the tokenizer called directly), and the counter tokenized less than a third of the characters."""
    from helmlite.models import ScoreRequest, prepare
    from helmlite.models._base import split_context
    from helmlite.evaluation.runner import prepare_requests
    from helmlite.evaluation.runspec import RunSpec

    counter = counting.WorkCounter(prepare(model))
    reference = counting.WorkCounter(prepare(model)).tokenizer
    tokenized = []
    encode = counter._encodings._encode  # the Rust tokenizer, called directly
    counter._encodings._encode = lambda text, **kwargs: tokenized.append(len(text)) or encode(text, **kwargs)
    specs = [{"scenario": "mmlu", "args": {"subject": "us_foreign_policy"}, "adapter": {"method": "multiple_choice_separate"}},
             {"scenario": "boolq", "adapter": {"method": "multiple_choice_separate"}},
             {"scenario": "json_kv", "args": {"target_tokens": 1024, "n_contexts": 2}, "adapter": {"method": "multiple_choice_separate"}}]
    pairs, fast, characters = 0, 0, 0
    for spec in specs:
        adapted = prepare_requests(RunSpec.from_dict({"model": model, "max_instances": 6, **spec}), counter)[4]
        for request in (r for a in adapted for r in a.requests if isinstance(r, ScoreRequest)):
            assert counter.count_tokens(request.prompt) == len(reference(request.prompt)["input_ids"])
            characters += len(request.prompt)
            for continuation in request.continuations:
                context, rest = split_context(request.prompt, continuation)
                assert counter._encode_pair(context, rest) == reference(context + rest)["input_ids"]
                pairs, fast, characters = pairs + 1, fast + (counter._encodings.pair(context, rest) is not None), characters + len(context + rest)
    assert pairs >= 80 and fast == pairs  # a boundary was found in every context
    assert sum(tokenized) < characters / 3


def test_counted_projections_are_what_the_model_projects(tiny_model_dir):
    """The counter's projected positions equal what the real backend's vocabulary projection receives (a forward hook
    on the model's output embedding, rows × positions of every call) on the same scoring requests and chunks."""
    from helmlite.models.transformers_backend import TransformersModel

    scores, _ = _requests()
    model = TransformersModel(tiny_model_dir, batch_size=4)
    projected = []
    model.model.get_output_embeddings().register_forward_hook(lambda module, args, out: projected.append(out.shape[0] * out.shape[1]))
    for start in range(0, len(scores), 3):
        model.score(scores[start:start + 3])
    work = counting.WorkCounter(tiny_model_dir, batch_size=4).count(scores, 3)
    assert work.projected_positions == sum(projected) > 0


def test_calibration_solves_back_known_rates(tiny_model_dir, monkeypatch):
    """With every timing replaced by what known rates make of the workload's counted work (and the projection timed on
    hidden states as a fixed cost plus the known cost per position), :func:`rates.calibrate` returns those rates."""
    import torch

    known = rates.Rates(position_s=0.002, forward_s=0.05, step_s=0.03, generate_call_s=0.01, load_s=0.0,
                        prefix_row_s=1e-5, projected_s=0.004)
    counter = counting.WorkCounter(tiny_model_dir, batch_size=4)

    def timed(call, requests, repeats=1):
        if isinstance(requests, torch.Tensor):  # hidden states through the output embedding
            return 0.02 + known.projected_s * requests.shape[1]
        return known.seconds(counter.count(requests, chunk_size=len(requests)))

    monkeypatch.setattr(rates, "_timed", timed)
    solved = rates.calibrate(tiny_model_dir, threads=1, batch_size=4)
    assert counter.count(rates._workloads(256)["shared"], chunk_size=16).prefix_row_positions > 0  # identifiable
    for name in ("forward_s", "position_s", "projected_s", "prefix_row_s", "step_s", "generate_call_s"):
        assert getattr(solved, name) == pytest.approx(getattr(known, name), rel=1e-6), name


def test_counter_prices_each_row_over_a_reused_prefix():
    """Rows scored over a shared prefix cache count rows × prefix length (here 4 one-answer requests after one long
    shared question, declared shared as the adapter declares a few-shot prefix: one packed forward of 4 rows of a few
    tokens, under MIN_POSITIONS, so with a fifth, filler row — 5 rows, each attending over the prefix level, whose
    length is the question's tokens but its last); requests without a shared prefix count none."""
    from helmlite.models import prepare
    from helmlite.models._base import ScoreRequest

    counter = counting.WorkCounter(prepare("smollm2-135m"))
    shared = " ".join(["word"] * 80)
    work = counter.count([ScoreRequest(shared, (f" answer{k}",), (len(shared),)) for k in range(4)], chunk_size=8)
    level = len(counter._encode(shared)) - 1
    assert sum(len(counter._encode(shared + f" answer{k}")) - 1 - level for k in range(4)) < 16  # so a filler row
    assert work.prefix_row_positions == 5 * level
    alone = counter.count([ScoreRequest("a b c", (" d",))], chunk_size=8)
    assert alone.prefix_row_positions == 0


def test_rates_are_measured_once_per_machine_and_cached(tiny_model_dir, tmp_path, monkeypatch):
    calls = []

    def fake_calibrate(path, *, threads, batch_size):
        calls.append(threads)
        return rates.Rates(0.001 * threads, 0.01, 0.02, 0.1, 0.5)

    monkeypatch.setattr(rates, "calibrate", fake_calibrate)
    store = tmp_path / "rates.json"
    first, measured = rates.model_rates("tiny", tiny_model_dir, threads=1, batch_size=8, rates_file=store)
    again, measured_again = rates.model_rates("tiny", tiny_model_dir, threads=1, batch_size=8, rates_file=store)
    assert measured and not measured_again and first == again and calls == [1]
    other, measured_other = rates.model_rates("tiny", tiny_model_dir, threads=2, batch_size=8, rates_file=store)
    assert measured_other and other.position_s == 0.002 and calls == [1, 2]  # another thread count: measured afresh
    keys = [json.loads(key) for key in json.loads(store.read_text())]
    assert {k["machine"]["threads"] for k in keys} == {1, 2} and all(k["machine"]["cpu"] and k["machine"]["torch"] for k in keys)
    # other backend, counter or rates source (e.g. rows packed that were padded, at the same answers) is measured afresh
    assert len(rates.planner_source_sha()) == 16
    monkeypatch.setattr(rates, "planner_source_sha", lambda: "another-source")
    _, measured_new_code = rates.model_rates("tiny", tiny_model_dir, threads=1, batch_size=8, rates_file=store)
    assert measured_new_code and calls == [1, 2, 1]


def test_recalibrations_are_kept_and_the_plan_takes_each_rates_median(tiny_model_dir, tmp_path, monkeypatch):
    """``recalibrate`` adds a calibration beside the stored ones (the last KEPT_CALIBRATIONS = 5 are kept) and the rates
    are each field's median over them, worked by hand: position_s calibrated as 1, 9 (a slow spell), 2 ms → median 2 ms;
    after 3, 4, 5 ms more the kept five are 2, 3, 4, 5 (and 9) → median 4 ms. A rate no calibration measured stays None."""
    sequence = iter([1, 9, 2, 3, 4, 5])
    monkeypatch.setattr(rates, "calibrate", lambda path, *, threads, batch_size: rates.Rates(next(sequence) / 1000, 0.01, 0.02, 0.1, 0.5))
    store = tmp_path / "rates.json"
    got = [rates.model_rates("tiny", tiny_model_dir, threads=1, batch_size=8, rates_file=store, recalibrate=True)[0]
           for _ in range(3)]
    assert [r.position_s for r in got] == pytest.approx([0.001, 0.005, 0.002])  # medians of 1; of 1, 9; of 1, 9, 2 (ms)
    assert rates.model_rates("tiny", tiny_model_dir, threads=1, batch_size=8, rates_file=store) == (got[-1], False)
    for _ in range(3):
        latest, measured = rates.model_rates("tiny", tiny_model_dir, threads=1, batch_size=8, rates_file=store, recalibrate=True)
    (kept,) = json.loads(store.read_text()).values()
    assert measured and [c["position_s"] for c in kept] == [0.009, 0.002, 0.003, 0.004, 0.005]
    assert latest.position_s == 0.004 and latest.forward_s == 0.01 and latest.loaded_mb is None


def test_calibration_timings_interleave_the_workloads(monkeypatch):
    """The workloads are timed in rounds (each once per round until it has its repeats), so a slow spell touches a
    few timings of each: here the second round is slow (10 s) and every median still comes out at the quiet 1 s."""
    order = []

    def timed(call, requests):
        order.append(requests)
        return 10.0 if len(order) in (4, 5, 6) else 1.0

    monkeypatch.setattr(rates, "_timed", timed)
    got = rates._timed_in_rounds({"a": (None, "a"), "b": (None, "b"), "c": (None, "c")}, {"a": 3, "b": 3, "c": 4},
                                 before=lambda: order.append("reset"))
    assert order == ["reset", "a", "reset", "b", "reset", "c"] * 3 + ["reset", "c"]  # each timing starts cold
    assert got == {"a": 1.0, "b": 1.0, "c": 1.0}


def test_calibration_times_the_shared_prefix_cold(tiny_model_dir, monkeypatch):
    """Every timing of a calibration workload starts with no prefix kept, as the counter counts it (the shared
    few-shot prefix encoded in each repeat): the backend's prefix cache is empty whenever a workload is timed."""
    from helmlite.models.transformers_backend import TransformersModel

    kept = []
    score = TransformersModel.score
    monkeypatch.setattr(TransformersModel, "score", lambda self, requests: kept.append(len(self._prefix_lru)) or score(self, requests))
    rates.calibrate(tiny_model_dir, threads=1, batch_size=4)
    assert len(kept) > 30 and set(kept[1:]) == {0}  # the warm-up's call aside


def test_calibration_on_a_real_model_gives_positive_rates(tiny_model_dir):
    measured = rates.calibrate(tiny_model_dir, threads=1, batch_size=4)
    assert measured.position_s > 0 and measured.forward_s > 0 and measured.step_s > 0 and measured.load_s > 0


def test_planned_mdes_are_the_notebooks_tests_at_planning_values():
    """Paired 0/1 at the planning ψ = 0.25, n = 100: 0.144, and 92 items for an MDE of 0.15 (exact McNemar power;
    at ψ = 0.5 it is 0.203, as benchmarks/coverage.py reports). Depth, 20 contexts, by hand, for the two-sided test the
    notebook runs: end − start of 0/1 scores with variance 0.25 has sd √0.5, MDE (1.9600 + 0.8416)·0.7071/4.4721 =
    0.4430; with the baseline (the probability score, planning SD 0.1) sd √0.02, MDE 0.0886; a length contrast of
    per-context means over 4 depths, sd √(2·0.01/4) = 0.0707, MDE 0.0443; at α = 0.01 (a family of five) z = 2.5758."""
    mde, needed, discordance = planned_claims.paired(100)
    assert mde == pytest.approx(0.1442, abs=5e-4) and needed > 500 and discordance == 0.25
    from helmlite.stats import power
    assert power.required_n(0.15, paired=True, discordance=planned_claims.PLANNING_DISCORDANCE) == 92
    assert power.mde_proportion(100, paired=True, discordance=0.5) == pytest.approx(0.203, abs=0.001)
    assert planned_claims.depth_curve(20, baseline=False)[0] == pytest.approx(0.4430, abs=5e-4)
    assert planned_claims.depth_curve(20, baseline=True)[0] == pytest.approx(0.0886, abs=5e-4)
    assert planned_claims.depth_curve(20, baseline=True, depths=4)[0] == pytest.approx(0.0443, abs=5e-4)
    assert planned_claims.depth_curve(20, baseline=True, level=0.99)[0] == pytest.approx(3.4174 * 0.14142 / 4.4721, abs=5e-4)
    # a stricter level needs a larger effect: the exact McNemar MDE at α = 0.05/9 is above the one at 0.05
    assert planned_claims.paired(100, level=1 - 0.05 / 9)[0] > mde + 0.02
    # the ECE test at the default's n = 100 (4 choices): above the 0.15 bar, as the default run's observed 0.19 is
    mde, needed = planned_claims.calibration([(100, 4)])
    assert 0.15 < mde < 0.25 and needed == math.ceil(100 * (mde / 0.05) ** 2)
    # pooled over three such runs (notebook 01's headline calibration claim): about 1/√3 of it, below the bar
    pooled, _ = planned_claims.calibration([(100, 4), (100, 4), (100, 3)])
    assert pooled < 0.15 and pooled == pytest.approx(mde / math.sqrt(3), rel=0.25)


def _run(analysis, model, scenario, method="multiple_choice_joint", n=100, **extra):
    return {"analysis": analysis, "run_id": f"{analysis}-{model}-{scenario}-{method}-{extra.get('length')}-{extra.get('labels')}",
            "model": model, "scenario": scenario, "scenario_label": scenario, "method": method, "instances": n,
            "contexts": n, "choices": 4, "perturbations": [], "labels": [], "length": None, "seed": 0, **extra}


def test_headline_claims_are_the_analyses_declarations_at_their_familys_level():
    """The planner names each claim as the notebooks do (the analyses' name functions) and sizes it at α / family
    size: notebook 01's live family here has 4 hypotheses (a model difference, a robustness claim, two calibration
    claims), its published family 7 (5 claims, 2 of them with a claimed size), notebook 02's one, notebook 04's five."""
    from helmlite.analyses.depth import claims as depth_claims
    from helmlite.analyses.helm_core import claims as core_claims
    from helmlite.analyses.sensitivity import claims as sensitivity_claims

    runs = [_run("helm_core", "a", "mmlu", perturbations=["robustness"], labels=[("methods", "multiple_choice_joint")]),
            _run("helm_core", "b", "mmlu"), _run("helm_core", "a", "truthfulqa", n=50),
            _run("sensitivity", "a", "mmlu", "multiple_choice_separate", labels=[("methods", "multiple_choice_separate")]),
            _run("depth", "a", "json_kv", "multiple_choice_separate", n=30, length=512, perturbations=["baseline"]),
            _run("depth", "a", "json_kv", "multiple_choice_separate", n=20, length=1024, perturbations=["baseline"])]
    rows = planned_claims.headline_claims(runs, analyses=["helm_core", "sensitivity", "depth"])
    table = {row["claim"]: row for row in rows}
    difference = table[core_claims.model_difference_name("b", "a", "mmlu")]
    assert difference["test"] == "exact McNemar (paired)" and difference["quantity"] == "accuracy of b − a on mmlu"
    assert difference["n"] == 100 and difference["family_size"] == 4 and difference["alpha"] == pytest.approx(0.0125)
    assert difference["mde"] == pytest.approx(planned_claims.paired(100, level=1 - 0.0125)[0])
    assert core_claims.perturbation_name("robustness", "a", "mmlu") in table
    assert core_claims.perturbation_name("robustness", "b", "mmlu") not in table
    # calibration: per scenario for b (one MC run), pooled for a (its two MC runs, 100 + 50 items)
    assert core_claims.calibration_name("b", "mmlu") in table
    pooled = table[core_claims.calibration_name("a", core_claims.pooled_label(core_claims.POOLED, ["mmlu", "truthfulqa"]))]
    assert pooled["n"] == 150 and pooled["pooled"]
    published = [row for row in rows if row["family"] == core_claims.PUBLISHED]
    assert len(published) == 5 and {row["family_size"] for row in published} == {7} and not any(r["decidable"] for r in published)
    method = table[sensitivity_claims.paired_study_name("methods", "a", "mmlu")]
    assert method["n"] == 100 and method["family_size"] == 1 and method["alpha"] == 0.05
    score = "(P(gold) − baseline P(gold))/(1 − chance)"
    length = table[depth_claims.length_name("a", "json_kv", "log-prob retrieval", score, 512, 1024)]
    # five depth hypotheses (two curves × U-shape and recency, one length claim): α = 0.01, 20 contexts, sd √0.02
    assert length["n"] == 20 and length["family_size"] == 5 and length["mde"] == pytest.approx(0.1081, abs=5e-4)
    assert length["decidable"] and length["min_n"] == 10  # the depth tests' minimum contexts
    gen = [_run("depth", "a", "niah", "generation", n=20, length=length) for length in (128, 256)]
    gen_rows = {row["claim"]: row for row in planned_claims.headline_claims(gen)}
    assert not gen_rows[depth_claims.length_name("a", "niah", "substring match (generation)", "chance-corrected accuracy",
                                                 128, 256)]["decidable"]


def test_a_declared_primary_family_is_what_the_planner_corrects_over():
    """With notebook 01's primary claims declared, only those share its family's α; the rest are exploratory at 0.05;
    a name that is no claim of the analysis is one error naming the config key."""
    from helmlite.analyses.helm_core import claims as core_claims
    from helmlite.errors import UserError

    runs = [_run("helm_core", "a", "mmlu", perturbations=["robustness"]), _run("helm_core", "b", "mmlu")]
    name = core_claims.model_difference_name("b", "a", "mmlu")
    table = {row["claim"]: row for row in planned_claims.headline_claims(runs, primary={"helm_core": [name]})}
    assert table[name]["role"] == "primary" and table[name]["family_size"] == 1 and table[name]["alpha"] == 0.05
    assert table[core_claims.perturbation_name("robustness", "a", "mmlu")]["role"] == "exploratory"
    with pytest.raises(UserError, match="helm_core.primary_claims: 'instruct vs base'"):
        planned_claims.headline_claims(runs, primary={"helm_core": ["instruct vs base"]})


def test_sensitivity_claims_planned_from_the_grids_labels():
    """Shots: the first step always; "the first step is the largest" only with a later level, its MDE by hand:
    var((x1 − x0) − (x2 − x1)) = ψ + ψ − 2·(−ψ/2) = 3ψ when every pair of levels disagrees on a share ψ; at α = 0.05/3
    (three claims: first step, largest step, seed SD) z = 2.3940: (2.3940 + 0.8416)·√0.75/√100 = 0.2802; seeds:
    Cochran's Q on the SD scale at the same level."""
    from helmlite.analyses.sensitivity import claims as sensitivity_claims

    shots = [_run("sensitivity", "a", "mmlu", n=100, labels=[("shots", k), ("seeds", f"seed {k}")]) for k in ("0", "1", "5")]
    table = {row["claim"]: row for row in planned_claims.headline_claims(shots)}
    largest = table[sensitivity_claims.first_step_largest_name("a", "mmlu", "0→1")]
    assert largest["family_size"] == 3 and largest["mde"] == pytest.approx(0.2802, abs=5e-4) and not largest["decidable"]
    first = table[sensitivity_claims.first_example_name("a", "mmlu")]
    assert first["mde"] == pytest.approx(planned_claims.paired(100, level=1 - 0.05 / 3)[0])
    seeds = table[sensitivity_claims.seed_sd_name("a", "mmlu", 3)]
    assert seeds["mde"] == pytest.approx(stats.mde_seed_sd(100, 3, 0.125, level=1 - 0.05 / 3))
    two = {row["claim"] for row in planned_claims.headline_claims(shots[:2])}
    assert not any("largest" in claim for claim in two)


def _plan_with_fixed_rates(name: str, monkeypatch, tmp_path, results_dir=None):
    """(config, plan) of ``config/<name>`` with fixed rates (no calibration), reading finished runs from
    ``results_dir`` if given; skips without the embedded models."""
    from helmlite import planning

    if not all(models.model_path(m) for m in ("smollm2-135m", "gemma3-270m")):
        pytest.skip("embedded models not prepared (make venv prepares them)")
    monkeypatch.setattr(planning.planner, "model_rates", lambda *a, **k: (rates.Rates(0.003, 0.05, 0.05, 0.1, 1.0), False))
    config = workflow.load_config(REPO / "config" / name)
    if results_dir is not None:
        config["engine"]["results_dir"] = str(results_dir)
    return config, planning.plan(config, rates_file=tmp_path / "rates.json")


def test_plan_lists_exactly_the_workflow_runs(monkeypatch, tmp_path):
    """Dry run, `helmlite config` and `helmlite plan` agree on the run ids (the Snakemake side:
    test_config.test_snakemake_plans_exactly_the_runs_of_the_config_it_is_given)."""
    from helmlite import planning

    config, result = _plan_with_fixed_rates("test.yaml", monkeypatch, tmp_path)
    assert sorted(result.runs["run_id"]) == sorted(workflow.run_specs(config))
    # two run jobs at once on two cores: each run's model seconds × the measured slowdown, the overhead unchanged
    shared = planning.plan(config, rates_file=tmp_path / "rates.json", cores=2).runs.set_index("run_id")["predicted_s"]
    alone = result.runs.set_index("run_id")["predicted_s"]
    assert ((shared - planning.PER_RUN_OVERHEAD_S) / (alone - planning.PER_RUN_OVERHEAD_S)).dropna().to_numpy() == \
        pytest.approx(planning.CONCURRENT_SLOWDOWN)
    summary = result.analyses.set_index("analysis")
    assert summary.loc["total", "runs"] == len(workflow.run_specs(config))
    assert summary.loc["total", "run_jobs"] == len(workflow.run_batches(config))
    assert (result.runs["predicted_s"] > 0).all()
    # notebook 02's base configuration (seed 0, HELM's format, 5-shot separate) asks only for requests that notebook
    # 01's perturbed MMLU run of the same model asks first: the request cache answers them, so the plan counts 0
    free = result.runs[result.runs["tokens_to_encode"] == 0]
    assert sorted(free["model"]) == ["gemma3-270m", "smollm2-135m"]
    assert all(("seeds", "seed 0") in labels for labels in free["labels"])
    assert (free["predicted_s"] == planning.PER_RUN_OVERHEAD_S).all()
    from helmlite.evaluation.runner import prepare_requests

    specs = workflow.run_specs(config)
    for run_id, model in zip(free["run_id"], free["model"]):
        first = next(r for r in result.runs.itertuples() if r.model == model and r.analysis == "helm_core" and r.scenario == "mmlu")
        requests_of = {rid: {q for a in prepare_requests(specs[rid], counting.WorkCounter(models.model_path(model),
                                                                                                  name=model))[4]
                             for q in a.requests} for rid in (run_id, first.run_id)}
        assert requests_of[run_id] <= requests_of[first.run_id]
    assert set(result.claims["analysis"]) == {"helm_core", "sensitivity", "helmet", "depth"}


def test_the_plan_is_checked_against_runs_already_measured(monkeypatch, tmp_path):
    """A finished run whose requests all reached the model gets its measured wall seconds beside its prediction, and
    the plan says per model the median predicted / measured against CHECK_TOLERANCE (±25%); a run the request cache
    helped (cache hits) or one not finished (no stats.json) measures nothing. By hand: one SmolLM2 run measured at
    twice its prediction → ratio 0.50, outside; a Gemma run at its prediction / 1.1 → 1.10, within."""
    from helmlite import planning

    config, before = _plan_with_fixed_rates("test.yaml", monkeypatch, tmp_path, results_dir=tmp_path / "runs")
    assert before.runs["measured_s"].isna().all() and "already measured" not in planning.render(before, cores=1)
    by_model = {model: part.sort_values("predicted_s", ascending=False) for model, part in before.runs.groupby("model")}
    smol, smol_helped, smol_unfinished = by_model["smollm2-135m"].head(3).itertuples()
    gemma = by_model["gemma3-270m"].iloc[0]

    def write(run, wall_s, cache_hits, finished=True):
        folder = tmp_path / "runs" / run.run_id
        folder.mkdir(parents=True)
        (folder / "timings.json").write_text(json.dumps({"format_version": FORMAT_VERSION, "wall_s": wall_s, "cache_hits": cache_hits,
                                                         "model_calls": 5}))
        if finished:
            (folder / "stats.json").write_text("{}")

    write(smol, 2 * smol.predicted_s, 0)
    write(smol_helped, 1.0, 3)
    write(smol_unfinished, 1.0, 0, finished=False)
    write(gemma, gemma.predicted_s / 1.1, 0)
    result = planning.plan(config, rates_file=tmp_path / "rates.json")
    measured = result.runs.set_index("run_id")["measured_s"]
    assert measured[smol.run_id] == pytest.approx(2 * smol.predicted_s) and measured.notna().sum() == 2
    check = planning.check_against_measured(result.runs).set_index("model")
    assert check.loc["smollm2-135m", ["runs", "median"]].tolist() == pytest.approx([1, 0.5])
    assert check.loc["gemma3-270m", "median"] == pytest.approx(1.1)
    assert check["within_tolerance"].to_dict() == {"gemma3-270m": True, "smollm2-135m": False}
    # the band is 0.75-1.25 (±25% of measured): 0.78 and 1.25 are within, 0.74 is not
    edges = pd.DataFrame({"model": ["a", "b", "c"], "predicted_s": [78.0, 125.0, 74.0], "measured_s": [100.0] * 3})
    assert planning.check_against_measured(edges)["within_tolerance"].tolist() == [True, True, False]
    shown = planning.render(result, cores=1)
    assert "of smollm2-135m already measured" in shown and "0.50" in shown and "outside; `helmlite plan --recalibrate`" in shown


@pytest.mark.slow
def test_the_default_plan_sizes_each_claim_at_the_level_its_family_decides_it(monkeypatch, tmp_path):
    """config/config.yaml through the planner (fixed rates, ~20 s of token counting; an empty results folder, so the
    planning values, not a pilot's): the runs are the workflow's; every analysis's claims are listed, named as the
    notebooks name them; notebook 01's primary live claims (the config's ``primary_claims``) share a family of more
    than one hypothesis, its exploratory ones are sized alone at α = 0.05; and for every paired
    claim, the exact McNemar power at the plan's own ``alpha``, ``n``, ``discordance`` and effect ``mde`` — computed
    independently with statsmodels' exact McNemar test summed over the discordant pairs — lies in 0.77–0.85 (the MDE is
    the smallest effect every n' ≥ n detects with 80% power, so the power at n itself can sit above 0.8 on the saw's
    teeth)."""
    config, result = _plan_with_fixed_rates("config.yaml", monkeypatch, tmp_path, results_dir=tmp_path / "no-runs")
    assert sorted(result.runs["run_id"]) == sorted(workflow.run_specs(config))
    assert not result.claims["planning"].str.startswith("pilot").any()
    assert set(result.claims["analysis"]) == {"helm_core", "sensitivity", "helmet", "depth"}
    live = result.claims[(result.claims["analysis"] == "helm_core") & (result.claims["family"] == "live runs")]
    primary, exploratory = live[live["role"] == "primary"], live[live["role"] == "exploratory"]
    assert set(primary["claim"]) == set(config["helm_core"]["primary_claims"]) & set(live["claim"])
    assert len(primary) > 1 and (primary["family_size"] == len(primary)).all()
    assert primary["alpha"].to_numpy() == pytest.approx(0.05 / len(primary))
    assert len(exploratory) and (exploratory["family_size"] == 1).all() and (exploratory["alpha"] == 0.05).all()
    paired = result.claims[result.claims["discordance"].notna()]
    assert len(paired) >= 8
    for row in paired.itertuples():
        exact = statsmodels_mcnemar_power(int(row.n), row.mde, row.discordance, alpha=row.alpha)
        assert 0.77 <= exact <= 0.85, (row.claim, row.alpha, row.n, row.mde, exact)


def test_predicted_wall_is_at_least_the_longest_job():
    """Hand-derived: jobs of 100 s and 10 + 10 s (start-up 2 s each) on 2 cores: evenly (126 / 2 = 63 s) would
    hide that one job alone takes 102 s; on 1 core the total, 126 s."""
    from types import SimpleNamespace

    import pandas as pd

    from helmlite import planning

    runs = pd.DataFrame({"run_id": ["a", "b", "c"], "predicted_s": [100.0, 10.0, 10.0]})
    analyses = pd.DataFrame([{"analysis": "total", "predicted_run_s": 120.0, "job_startup_s": 6.0, "run_jobs": 3}])
    jobs = {"j1": [SimpleNamespace(run_id="a")], "j2": [SimpleNamespace(run_id="b")], "j3": [SimpleNamespace(run_id="c")]}
    result = planning.Plan(runs, analyses, pd.DataFrame(), [], jobs)
    assert planning.predicted_wall_s(result, 2) == pytest.approx(102.0)
    assert planning.predicted_wall_s(result, 1) == pytest.approx(126.0)


def test_cluster_time_limits_come_from_the_plan(tmp_path, monkeypatch):
    """A run job's SLURM runtime: 2 × the planner's seconds + 10 minutes, at least 15, 60 without a plan
    (hand-derived: 80 s → ⌈160/60⌉ + 10 = 13 → 15; 1,800 s → 60 + 10 = 70; 4,000 s → ⌈133.3⌉ + 10 = 144)."""
    from helmlite import workflow

    monkeypatch.setattr(workflow.job_resources, "PLANNED_JOBS_DIR", tmp_path)
    assert workflow.planned_job_seconds("config/paper.yaml") == {}
    (tmp_path / "jobs-paper.csv").write_text("job,runs,predicted_s,predicted_mem_mb\na,2,80,768\nb,3,1800,5120\nc,1,4000,\nd,1,,\n")
    planned = workflow.planned_job_seconds("config/paper.yaml")
    assert planned == {"a": 80.0, "b": 1800.0, "c": 4000.0}
    assert [workflow.run_job_runtime_min(planned.get(k)) for k in "abcd"] == [15, 70, 144, 60]
    assert workflow.run_job_runtime_min(float("nan")) == 60
    # memory: the plan's reservation, at least 1,024 MB; 4,000 without one (and from a plan written before the column)
    memory_mb = workflow.planned_job_memory_mb("config/paper.yaml")
    assert memory_mb == {"a": 768.0, "b": 5120.0}
    assert [workflow.run_job_mem_mb(memory_mb.get(k)) for k in "abcd"] == [1024, 5120, 4000, 4000]
    (tmp_path / "jobs-paper.csv").write_text("job,runs,predicted_s\na,2,80\n")
    assert workflow.planned_job_memory_mb("config/paper.yaml") == {}


def test_predicted_memory_is_the_sum_of_its_terms():
    """Hand-derived for SmolLM2-135M's shape (30 layers, 9 heads, 3 key/value heads of 64, hidden 576, MLP 1,536,
    vocabulary 49,152): a key/value position is 2·3·64·4 = 1,536 B per layer. 1,000 cached positions × 30 layers
    = 46,080,000 B; 2,000 one-layer positions × (1,536 + 2·9·64·4 for the copy repeated to 9 heads) = 12,288,000 B;
    10⁶ attention cells × (2·9 + 1)·4 = 76,000,000 B; 500 row positions × (2·1,536 + 576)·4 = 7,296,000 B; 8 logit
    positions × 49,152 × 8 = 3,145,728 B: in all 144,809,728 B = 138.10 MiB. Reserved over a 1,000 MB floor:
    ⌈1.5 · 1,138.10 / 256⌉ · 256 = 1,792 MB."""
    from helmlite.planning import memory

    shape = {"layers": 30, "heads": 9, "kv_heads": 3, "head_dim": 64, "hidden": 576, "intermediate": 1536, "vocab": 49152}
    work = counting.Work(peak_cached_positions=1000, peak_layer_positions=2000, peak_attention_cells=10**6,
                         peak_row_positions=500, peak_logit_positions=8)
    assert memory.work_mb(work, shape) == pytest.approx(144_809_728 / 2**20)
    assert memory.reservation_mb(1000 + memory.work_mb(work, shape)) == 1792.0
    assert math.isnan(memory.reservation_mb(math.nan))
    # peaks combine as maxima, counts as sums
    total = work + counting.Work(peak_cached_positions=10, peak_attention_cells=2 * 10**6, score_forwards=3)
    assert (total.peak_cached_positions, total.peak_attention_cells, total.score_forwards) == (1000, 2 * 10**6, 3)


def test_counted_peaks_are_the_backends_forward_shapes(tiny_model_dir):
    """The counter's peaks on requests whose forwards are known by hand. One request of one continuation, without
    prefix reuse, is a packed forward of its n − 1 tokens (the last is read, never run) and a filler row up to
    MIN_POSITIONS = 16: every layer keeps 16 positions, attention runs one row at a time (the longer row's L² cells),
    16 positions are projected to the vocabulary. Two one-token greedy generations over a declared prefix are one
    packed forward over the prefix level P — the longest token prefix of the declared string's encoding shared with
    both prompts, found here by comparing token lists — of their own tokens past it (a, b): one layer holds the
    packed positions joined with the prefix and one row's copy of it, P + a + b + P + max(a, b); the largest forward
    is the prefix's own encoding (P positions) or the packed one (a + b); and no HF generate call runs."""
    counter = counting.WorkCounter(tiny_model_dir, batch_size=8)
    counter.reuse_prefixes = False
    n = len(counter.tokenizer("The cat sat on the mat")["input_ids"])
    work = counter.count([ScoreRequest("The cat sat on the", (" mat",))], 10)
    assert n - 1 < 16
    longest = max(n - 1, 16 - (n - 1))
    assert (work.peak_cached_positions, work.peak_attention_cells, work.peak_row_positions, work.peak_logit_positions) == (16, longest ** 2, 16, 16)
    assert work.peak_layer_positions == 0
    counter.reuse_prefixes = True
    prefix = "Question: what is two plus two?\nAnswer: four\n\n" * 4
    requests = [GenerationRequest(prefix + f"Question: and {k}?\nAnswer:", max_tokens=1, prefixes=(len(prefix),)) for k in ("three", "five")]
    work = counter.count(requests, 10)
    ids = [counter.tokenizer(r.prompt)["input_ids"] for r in requests]
    declared = counter.tokenizer(prefix)["input_ids"]
    shared = 0
    while shared < len(declared) and all(shared < len(i) and i[shared] == declared[shared] for i in ids):
        shared += 1
    own = [len(i) - shared for i in ids]
    assert sum(own) >= 16  # no filler row
    assert work.peak_layer_positions == shared + sum(own) + shared + max(own)
    assert work.peak_row_positions == max(shared, sum(own))  # the larger of the prefix's encoding and the packed forward
    assert work.peak_logit_positions == 16
    assert work.generate_calls == 0 and work.decode_steps == 0  # answered by the packed forward, not by HF generate


def test_a_run_jobs_memory_reservation_covers_its_measured_peak(mirrored_cache, tmp_path):
    """A real run job (``helmlite run``, SmolLM2, NIAH at 1K tokens, log-probability scoring) peaks below the memory
    the planner reserves for it, and the reservation is not wasteful: at most twice the measured peak (measured here
    2026-12-03: 1,565 MB against 2,304 reserved)."""
    import subprocess
    import sys

    from helmlite.models import prepare
    from helmlite.planning import memory
    from helmlite.evaluation.runner import prepare_requests
    from helmlite.evaluation.runspec import RunSpec

    spec_dict = {"scenario": "niah", "model": "smollm2-135m", "args": {"n_contexts": 2, "target_tokens": 1024},
                 "adapter": {"method": "multiple_choice_separate"}}
    path = prepare("smollm2-135m")
    counter = counting.WorkCounter(path, batch_size=8)
    *_, adapted = prepare_requests(RunSpec.from_dict(spec_dict), counter)
    work = counter.count(list(dict.fromkeys(r for a in adapted for r in a.requests)), 32)
    loaded = rates.loaded_mb(path, threads=2)
    reserved = memory.reservation_mb(loaded + memory.work_mb(work, memory.model_shape(counter.model.config)))
    measure = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)")
    done = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "helmlite", "run", "--spec-json",
                           json.dumps([spec_dict]), "--results-dir", str(tmp_path / "runs"), "--cache", str(tmp_path / "cache.sqlite"),
                           "--threads", "2", "--quiet", "--progress", "none"], capture_output=True, text=True, check=True)
    measured = float(done.stdout.split()[-1])
    assert measured <= reserved <= 2 * measured, (measured, reserved, loaded, work)


def test_run_jobs_start_longest_critical_path_first():
    """Hand-derived on the default config with made-up predictions (job k of the sorted job list: 100·(k+1) s):
    a job's priority is its own seconds plus those of the jobs that wait for it (each model's helm_core job is waited on
    by its sensitivity job); with a job missing from the plan a job's number of runs stands in for its seconds."""
    from helmlite import workflow

    config = workflow.load_config("config/config.yaml")
    jobs = sorted(workflow.run_batches(config))
    planned = {job: 100.0 * (k + 1) for k, job in enumerate(jobs)}
    waits = workflow.shared_request_waits(config)
    assert waits == {"gemma3_270m_sensitivity_1": ["gemma3_270m_helm_core_1"],
                     "smollm2_135m_sensitivity_1": ["smollm2_135m_helm_core_1"]}
    expected = dict(planned)
    for model in ("gemma3_270m", "smollm2_135m"):
        expected[f"{model}_helm_core_1"] += planned[f"{model}_sensitivity_1"]
    assert workflow.run_job_priorities(config, planned) == {job: round(s) for job, s in expected.items()}
    del planned[jobs[0]]
    runs = {job: len(batch) for job, batch in workflow.run_batches(config).items()}
    assert runs == {"gemma3_270m_depth_1": 1, "gemma3_270m_helm_core_1": 5, "gemma3_270m_sensitivity_1": 3,
                    "smollm2_135m_depth_1": 1, "smollm2_135m_helm_core_1": 5, "smollm2_135m_sensitivity_1": 3}
    assert workflow.run_job_priorities(config, planned) == {**runs, "gemma3_270m_helm_core_1": 5 + 3,
                                                            "smollm2_135m_helm_core_1": 5 + 3}


def test_the_paper_plan_lists_exactly_the_workflow_runs(monkeypatch):
    """config/paper.yaml through the planner with no model to count (the plan's path for a model without local
    weights) and each run's instances stubbed (its ~20 min of token counting is not run here): its run ids are the
    ones `helmlite config` and Snakemake list (test_config checks those two agree for all three configs)."""
    from helmlite import planning
    from helmlite.evaluation import instances
    from helmlite.scenarios import TEST, Instance, Reference

    monkeypatch.setattr(models, "work_counter", lambda name, **options: None)
    monkeypatch.setattr(instances, "load_all", lambda spec, model: [Instance("x", "q", (Reference("a", True),), TEST)])
    config = workflow.load_config(REPO / "config" / "paper.yaml")
    result = planning.plan(config)
    assert sorted(result.runs["run_id"]) == sorted(workflow.run_specs(config)) and len(result.runs) > 100
    assert result.runs["predicted_s"].isna().all()


def test_a_run_whose_data_file_is_absent_is_listed_unknown_and_the_plan_goes_on(monkeypatch):
    """A scenario whose registered file cannot be obtained (offline, not in the mirror: Lost in the Middle's
    multi-document files here) gives its runs NaN instances, tokens and seconds and names the file once per
    scenario; every other run is planned, and no claim is computed from the unknown n."""
    from helmlite import planning
    from helmlite.evaluation import instances
    from helmlite.data import FetchError
    from helmlite.scenarios import TEST, Instance, Reference

    def load_all(spec, model):
        if spec.scenario == "litm_multidoc":
            raise FetchError("long reason", f"litm/data/nq-open-{dict(spec.args)['n_documents']}.jsonl.gz")
        return [Instance("x", "q", (Reference("a", True),), TEST)]

    monkeypatch.setattr(models, "work_counter", lambda name, **options: None)
    monkeypatch.setattr(instances, "load_all", load_all)
    result = planning.plan(workflow.load_config(REPO / "config" / "paper.yaml"))
    absent = result.runs[result.runs["scenario"] == "litm_multidoc"]
    assert len(absent) == 6 and absent["instances"].isna().all() and absent["tokens_to_encode"].isna().all()
    assert set(absent["absent_data"]) == {f"litm/data/nq-open-{n}.jsonl.gz" for n in (10, 20, 30)}
    assert (result.runs.loc[result.runs["scenario"] != "litm_multidoc", "instances"] == 1).all()
    text = planning.render(result, cores=2)
    assert text.count("cannot be obtained here") == 3 and "litm/data/nq-open-20.jsonl.gz" in text
    unknown = result.claims[result.claims["claim"].str.contains("litm_multidoc")]
    # 6 curves × (U-shape, recency) and 2 length claims
    assert len(unknown) == 12 + 2 and unknown["mde"].isna().all() and not unknown["decidable"].any()


def test_large_runs_are_counted_on_a_sample_and_scaled():
    """Runs of more than SAMPLE_ABOVE test instances are counted on about SAMPLE_INSTANCES and their sums scaled
    (hand-derived on a Work of known sums; peaks stay the sample's): a subsampled run on the first draws of its own
    subsample; a depth sweep (instances sharing a context) on whole contexts, the first in load order."""
    from helmlite.models import Work
    from helmlite.planning.sampling import SAMPLE_ABOVE, SAMPLE_INSTANCES, counted_sample
    from helmlite.evaluation.runspec import RunSpec
    from helmlite.scenarios import TEST, TRAIN, Instance, Reference

    spec = RunSpec.from_dict({"scenario": "mmlu", "model": "m", "args": {"subject": "econometrics"}, "max_instances": 1000})
    plain = [Instance(f"q{k}", "q", (Reference("a", True),), TRAIN if k < 5 else TEST) for k in range(1005)]
    whole = counted_sample(spec, plain, plain[5:5 + SAMPLE_ABOVE])
    assert (whole.spec, whole.factor) == (spec, 1.0) and whole.instances is plain
    sample = counted_sample(spec, plain, plain[5:])
    assert sample.spec.max_instances == SAMPLE_INSTANCES and sample.spec.run_id != spec.run_id
    assert sample.factor == 1000 / SAMPLE_INSTANCES and sample.instances is plain
    sweep = [Instance(f"c{c}/{d}", "q", (Reference("a", True),), TEST, {"context": c}) for c in range(50) for d in range(6)]
    depth = counted_sample(RunSpec.from_dict({"scenario": "json_kv", "model": "m"}), plain[:5] + sweep, sweep)
    assert depth.instances == plain[:5] + sweep[:9 * 6]  # ceil(50 · 50 / 300) = 9 whole contexts and the training pool
    assert depth.factor == 300 / 54 and depth.spec.max_instances is None
    work = Work(requests=200, score_positions=3001, encoded_tokens=1500, peak_row_positions=77)
    scaled = work.scaled(1000 / 200)
    assert (scaled.requests, scaled.score_positions, scaled.encoded_tokens, scaled.peak_row_positions) == (1000, 15005, 7500, 77)
