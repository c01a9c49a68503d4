"""Design for a decision (``helmlite plan --target-mde``): the n each claim needs, the sized config, pilot values.

References: the n needed for a paired 0/1 claim against the exact power of statsmodels' exact McNemar test summed over
the distribution of discordant pairs (:func:`tests.test_stats_power.statsmodels_mcnemar_power`), for one proportion
against the exact power of the Clopper–Pearson test from statsmodels' ``proportion_confint``
(:func:`tests.test_stats_power.clopper_pearson_power`); the pilot's upper limit against scipy's beta quantile (the
Clopper–Pearson bound written out); the ECE test's scaled MDE against the simulation at full size.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
import yaml
from scipy import stats as sps

from helmlite import models, planning, stats, workflow
from helmlite.cli import main
from helmlite.errors import UserError
from helmlite.metrics import calibration_error_test
from helmlite.planning import claim_mdes, design as designs, rates
from helmlite.analyses.helm_core.claims import model_difference_name
from helmlite.planning.pilot import PILOT_CONFIDENCE, Pilot, upper_sd

from .test_stats_power import clopper_pearson_power, statsmodels_mcnemar_power

RAW = {"analyses": ["helm_core", "depth"],
       "helm_core": {"models": ["smollm2-135m", "gemma3-270m"], "max_instances": 10, "perturbations": [],
                     "scenarios": [{"scenario": "mmlu", "args": {"subject": "computer_security"}},
                                   {"scenario": "boolq", "args": {"only_contrast": True},
                                    "adapter": {"max_train_instances": 1}}]},
       "depth": {"models": ["smollm2-135m"], "lengths": [128],
                 "tasks": [{"scenario": "niah", "args": {"n_contexts": 2, "depths": [0.0, 0.5, 1.0], "distractors": 5},
                            "methods": ["multiple_choice_separate"]}]}}
MMLU = model_difference_name("smollm2-135m", "gemma3-270m", "mmlu:computer_security")
BOOLQ = model_difference_name("smollm2-135m", "gemma3-270m", "boolq:only_contrast")


@pytest.mark.parametrize("effect,base", [(0.15, None), (0.12, 0.08)])
def test_paired_n_needed_is_the_first_n_from_which_exact_mcnemar_has_80_percent_power(effect, base):
    """At the planning ψ = 0.25 held fixed, and with a pilot's ψ0 growing with the effect (ψ = ψ0 + δ, as the
    notebooks report it): statsmodels' exact McNemar power reaches 0.8 at the planned n (and the 20 after it),
    not at the n before."""
    n_needed = int(claim_mdes.paired(50, effect, base)[1])
    psi = claim_mdes.PLANNING_DISCORDANCE if base is None else base + effect
    assert statsmodels_mcnemar_power(n_needed - 1, effect, psi) < 0.8
    assert min(statsmodels_mcnemar_power(n, effect, psi) for n in range(n_needed, n_needed + 21)) >= 0.8 - 1e-9


def test_one_proportion_n_needed_is_the_first_n_from_which_the_exact_test_has_80_percent_power():
    """A one-proportion claim (a notebook's accuracy against chance) sized for 0.15 above 0.25."""
    n_needed = stats.required_n(0.15, p=0.25, one_sample=True, direction="greater")
    assert clopper_pearson_power(n_needed - 1, 0.25, 0.40) < 0.8
    assert min(clopper_pearson_power(n, 0.25, 0.40) for n in range(n_needed, n_needed + 21)) >= 0.8 - 1e-9


def test_a_pilot_gives_the_80_percent_upper_limit_of_the_two_way_discordance(monkeypatch, tmp_path):
    """a right where b is wrong on 10 items, the reverse on 4, of 50: ψ0 = 2·min(p_b, p_c) planned at 2·min(U_10, U_4),
    each U a one-sided 90% Clopper–Pearson limit — the Beta(k + 1, n − k) quantile at 0.9 (Bonferroni: both cover with
    probability ≥ 0.8; tests/test_pilot_coverage.py enumerates it); an absent run or fewer than 20 pairs leave the
    planning value."""
    a = {f"i{k}": k < 20 for k in range(50)}                         # right on the first 20
    b = {f"i{k}": 10 <= k < 24 for k in range(50)}                   # a only: 0-9 (10); b only: 20-23 (4)
    pilot = Pilot(tmp_path)
    monkeypatch.setattr(pilot, "_correct", lambda run_id, perturbation=None: {"A": a, "B": b}.get(run_id))
    upper, note = pilot.paired_base_discordance([("A", None, "B", None)])
    assert upper == pytest.approx(2 * sps.beta.ppf(1 - (1 - PILOT_CONFIDENCE) / 2, 4 + 1, 50 - 4)) and "10+4 of 50" in note
    assert pilot.paired_base_discordance([("A", None, "missing", None)]) is None
    few = {k: v for k, v in list(a.items())[:10]}
    monkeypatch.setattr(pilot, "_correct", lambda run_id, perturbation=None: few)
    assert pilot.paired_base_discordance([("A", None, "A", None)]) is None


def test_the_ece_mde_above_2000_items_is_the_full_simulation_within_ten_percent():
    n = 6000
    rng = np.random.default_rng(0)
    confidence = rng.uniform(0.25, 1.0, size=n)
    full = calibration_error_test(confidence, rng.random(n) < confidence, n_simulations=500, seed=0).mde
    assert claim_mdes.calibration([(n, 4)])[0] == pytest.approx(full, rel=0.1)


@pytest.fixture
def fixed_rates(monkeypatch):
    if not all(models.model_path(m) for m in ("smollm2-135m", "gemma3-270m")):
        pytest.skip("embedded models not prepared (make venv prepares them)")
    monkeypatch.setattr(planning.planner, "model_rates", lambda *a, **k: (rates.Rates(0.003, 0.05, 0.05, 0.1, 1.0), False))


def _raw(tmp_path) -> dict:
    return {**RAW, "engine": {"results_dir": str(tmp_path / "runs"), "cache": str(tmp_path / "c.sqlite")}}


def test_a_design_sizes_each_entry_for_its_claims_and_says_what_cannot_be_reached(fixed_rates, tmp_path, mirrored_cache):
    raw = _raw(tmp_path)
    config = workflow.validate_config(raw, "<test>")
    result = designs.design(config, raw, 0.17, rates_file=tmp_path / "rates.json")
    claims = result.claims.set_index("claim")
    mmlu = claims.loc[MMLU]
    needed = int(mmlu["n_needed"])
    # notebook 01's live family here: two model differences and two pooled calibration claims, so α = 0.05/4 (at 0.15
    # MMLU's 111 items would not be enough at that level: 127 needed)
    assert mmlu["family_size"] == 4 and mmlu["alpha"] == pytest.approx(0.0125)
    assert needed == stats.required_n(0.17, paired=True, discordance=claim_mdes.PLANNING_DISCORDANCE, level=1 - 0.0125)
    assert needed > stats.required_n(0.17, paired=True, discordance=claim_mdes.PLANNING_DISCORDANCE)
    assert mmlu["n_design"] == needed and mmlu["mde_design"] <= 0.17 and mmlu["reachable"] and mmlu["n"] == 10
    boolq = claims.loc[BOOLQ]  # HELM's contrast set: 64 questions
    assert boolq["n_design"] == 64 and not boolq["reachable"] and boolq["mde_design"] > 0.17
    depth = claims.loc[[c for c in claims.index if c.startswith("Lost in the Middle: U-shape")][0]]
    # the formula asks for fewer contexts (two depth hypotheses: α = 0.025, planning SD √0.02) than the depth tests'
    # ten, below which they give no verdict: the design writes ten
    by_formula = math.ceil(((sps.norm.ppf(1 - 0.025 / 2) + sps.norm.ppf(0.8)) * math.sqrt(0.02) / 0.17) ** 2)
    assert by_formula < 10 and depth["n_design"] == depth["n_needed"] == 10 and depth["mde_design"] <= 0.17
    # the entries as written, resized; the rest of the config untouched
    entries = result.config["helm_core"]["scenarios"]
    available = result.before.runs.set_index("scenario").loc["mmlu", "available"].max()
    assert needed <= entries[0]["max_instances"] <= available  # at least the paired claim's n (the ECE claim may ask more)
    assert entries[1]["max_instances"] == 64 and result.config["helm_core"]["max_instances"] == 10
    assert result.config["depth"]["tasks"][0]["args"]["n_contexts"] == int(depth["n_needed"])
    on_runs = result.claims["analysis"].ne("helm_core") | ~result.claims["planning"].str.startswith("a published table")
    assert (result.claims.loc[on_runs, "predicted_s"] > 0).all() and result.claims.loc[~on_runs, "predicted_s"].isna().all()
    assert result.after.analyses.iloc[-1]["predicted_run_s"] > result.before.analyses.iloc[-1]["predicted_run_s"]
    text = designs.render(result, cores=2)
    assert f"cannot reach 0.17: {BOOLQ} — best reachable MDE" in text
    # --claims: only the named claims size their entries, by part of a name or the name verbatim
    only = designs.design(config, raw, 0.17, ["MMLU:computer"], rates_file=tmp_path / "rates.json")
    assert only.config["helm_core"]["scenarios"][1] == RAW["helm_core"]["scenarios"][1]
    assert only.claims.set_index("claim").loc[MMLU, "n_design"] >= needed
    verbatim = designs.design(config, raw, 0.17, [MMLU], rates_file=tmp_path / "rates.json")
    assert list(verbatim.claims.loc[verbatim.claims["sized"], "claim"]) == [MMLU]
    with pytest.raises(UserError, match="'gsm8k' matches no headline claim of this config; its claims: The two models"):
        designs.design(config, raw, 0.17, ["gsm8k"], rates_file=tmp_path / "rates.json")
    with pytest.raises(UserError, match="an empty name selects nothing"):
        designs.design(config, raw, 0.17, [""], rates_file=tmp_path / "rates.json")


def test_plan_target_mde_writes_a_config_that_validates_and_dry_runs(fixed_rates, tmp_path, mirrored_cache, capsys):
    source, out = tmp_path / "pilot.yaml", tmp_path / "sized.yaml"
    source.write_text(yaml.safe_dump(_raw(tmp_path)))
    assert main(["plan", "--configfile", str(source), "--target-mde", "0.15", "--rates-file", str(tmp_path / "r.json"),
                 "--table", "claims", "--format", "csv", "--write-config", str(out)]) == 0
    header = capsys.readouterr().out.splitlines()[0].split(",")
    assert header[:8] == ["analysis", "claim", "family", "role", "family_size", "alpha", "n", "mde"] and "predicted_s" in header
    assert out.read_text().startswith(f"# Sized by `helmlite plan --configfile {source} --target-mde 0.15` on ")
    workflow.load_config(out)
    assert workflow.planned_jobs_file(str(out)).is_file()  # the sized config's cluster limits
    dry = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--quiet", "--cores", "1", "--configfile", str(out)],
                         capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr[-2000:]
    assert main(["plan", "--configfile", str(source), "--write-config", str(out)]) == 2
    assert "give --target-mde D with them" in capsys.readouterr().err
    # --write-config never overwrites the config being sized, nor writes onto a folder: one line naming the path
    before = source.read_text()
    for target, why in ((source, "is the config being sized"), (tmp_path, "is a folder")):
        assert main(["plan", "--configfile", str(source), "--target-mde", "0.15", "--write-config", str(target)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"{target} {why}" in err[0]
    assert source.read_text() == before


def test_a_design_plans_sized_runs_with_the_pilot_of_the_same_specification(tmp_path):
    """The sized run of an entry has another id (its max_instances changed); the pilot run of the same specification
    stands for it."""
    raw = _raw(tmp_path)
    config = workflow.validate_config(raw, "<test>")
    sized_raw = designs.sized_config(raw, {("helm_core", "scenarios", 0): ("items", 90),
                                           ("depth", "tasks", 0): ("contexts", 7)})
    sized = workflow.validate_config(sized_raw, "<test>")
    aliases = designs.pilot_aliases(config, sized)
    before, after = workflow.run_specs(config), workflow.run_specs(sized)
    assert len(aliases) == len(after) == len(before)
    changed = {run_id: pilot for run_id, pilot in aliases.items() if run_id != pilot}
    assert {after[r].scenario for r in changed} == {"mmlu", "niah"}
    assert all(after[r].model == before[p].model and after[r].scenario == before[p].scenario for r, p in changed.items())
    assert json.dumps(sized_raw["helm_core"]["scenarios"][1]) == json.dumps(RAW["helm_core"]["scenarios"][1])
    assert math.isclose(sized_raw["depth"]["tasks"][0]["args"]["n_contexts"], 7)


def test_rates_are_never_measured_where_the_caller_says_not_to(tmp_path, monkeypatch):
    """``helmlite compare`` prices "n to detect" with cached rates only: without them its column says n/a rather than
    calibrating for a minute."""
    if not models.model_path("smollm2-135m"):
        pytest.skip("embedded models not prepared (make venv prepares them)")
    monkeypatch.setattr(rates, "calibrate", lambda *a, **k: pytest.fail("calibrated"))
    assert rates.model_rates("smollm2-135m", models.model_path("smollm2-135m"), threads=1, batch_size=8,
                             rates_file=tmp_path / "none.json", measure=False) == (None, False)


def test_a_pooled_claims_items_go_where_the_runs_have_them():
    """Hand-derived: 817 pooled items over MMLU's 111 and BBQ's 1,000 take all of MMLU's and 706 of BBQ's (an even
    split would ask 409 of each and leave the claim 298 short); runs with too few give all they have."""
    assert designs.pooled_shares(817, {"mmlu": 111, "bbq": 1000}) == {"mmlu": 111, "bbq": 706}
    assert designs.pooled_shares(300, {"a": 100, "b": 100}) == {"a": 100, "b": 100}
    assert designs.pooled_shares(11, {"a": math.inf, "b": math.inf}) == {"a": 6, "b": 5}


def test_a_gpu_run_is_counted_on_the_backends_path_there(fixed_rates, tmp_path, mirrored_cache):
    """On a GPU or in half precision the backend reuses no prefix and packs no rows, so the plan counts each prompt
    whole: more tokens to encode than the same runs on the CPU in float32, and no seconds (this machine's rates do not
    hold there)."""
    raw = {**_raw(tmp_path), "analyses": ["helm_core"]}
    cpu = planning.plan(workflow.validate_config({**raw, "engine": {**raw["engine"], "device": "cpu"}}, "<t>"),
                        rates_file=tmp_path / "r.json").runs
    gpu = planning.plan(workflow.validate_config({**raw, "engine": {**raw["engine"], "device": "cuda"}}, "<t>"),
                        rates_file=tmp_path / "r.json").runs
    assert list(cpu["run_id"]) == list(gpu["run_id"]) and gpu["predicted_s"].isna().all()
    assert (gpu["tokens_to_encode"] > cpu["tokens_to_encode"]).all()


def test_runs_already_in_the_results_folder_plan_the_paired_claims(fixed_rates, tmp_path, mirrored_cache):
    """A pilot end to end: the config's two MMLU runs made (by a fake model, 30 items) in its results folder, the plan's
    instruct-vs-base claim on MMLU says it used them, with the bound the pilot module computes from their records; the
    claim on BoolQ, whose runs are absent, keeps the planning value."""
    from helmlite.evaluation.runner import execute

    from .fakes import WordModel

    raw = {**_raw(tmp_path), "analyses": ["helm_core"]}
    raw["helm_core"] = {**raw["helm_core"], "max_instances": 30}
    config = workflow.validate_config(raw, "<test>")
    mmlu = sorted(run_id for run_id, spec in workflow.run_specs(config).items() if spec.scenario == "mmlu")
    for run_id in mmlu:
        execute(workflow.run_specs(config)[run_id], WordModel(), results_dir=tmp_path / "runs")
    claims = planning.plan(config, rates_file=tmp_path / "r.json").claims.set_index("claim")
    expected = Pilot(tmp_path / "runs").paired_base_discordance([(mmlu[0], None, mmlu[1], None)])
    label = claims.loc[MMLU, "planning"]
    assert expected is not None and label == expected[1] and label.startswith("pilot: ψ0 ≤ ") and "of 30 pairs" in label
    assert claims.loc[BOOLQ, "planning"] == "planning ψ = 0.25"


def test_a_pilot_gives_the_upper_limit_of_the_within_item_variance_across_seeds(monkeypatch, tmp_path):
    """Three seeds × 30 items, 10 items right under two seeds of three (sample variance 1/3 each), 20 right under all:
    mean within-item variance 10/3/30 = 1/9, planned at v_max = 1/3 times the one-sided 80% Clopper–Pearson limit of the
    share of items that vary, Beta(11, 20)'s 0.8 quantile (an exact limit: tests/test_pilot_coverage.py), which
    notebook 02's Cochran's-Q MDE then uses."""
    runs = {f"seed{s}": {f"i{k}": (k >= 10 or s < 2) for k in range(30)} for s in range(3)}
    pilot = Pilot(tmp_path)
    monkeypatch.setattr(pilot, "_correct", lambda run_id, perturbation=None: runs.get(run_id))
    upper, note = pilot.seed_within_variance(list(runs))
    assert upper == pytest.approx(sps.beta.ppf(0.8, 11, 20) / 3) and "0.111 observed over 3 seeds × 30 items" in note
    assert claim_mdes.seed_sd(30, 3, within_variance=upper)[0] == pytest.approx(stats.mde_seed_sd(30, 3, upper))
    assert pilot.seed_within_variance(["seed0", "absent", "seed2"]) is None


def test_a_pilot_gives_the_upper_limit_of_a_depth_curves_end_minus_start_sd(tmp_path, mirrored_cache):
    """A NIAH curve made by a fake model (6 contexts, depths 0, 0.5, 1, with its baseline): the SD across contexts of
    P(gold) − baseline P(gold) at depth 1 minus at depth 0, recomputed here from the run's records, at its one-sided
    80% upper limit (Bonett 2006, by hand in tests/test_pilot_coverage.py)."""
    from helmlite.results import read_run
    from helmlite.evaluation.runner import execute
    from helmlite.evaluation.runspec import RunSpec

    from .fakes import WordModel

    spec = RunSpec.from_dict({"scenario": "niah", "model": "fake", "perturbations": ["baseline"],
                              "args": {"n_contexts": 6, "depths": [0.0, 0.5, 1.0], "distractors": 5, "target_tokens": 128},
                              "adapter": {"method": "multiple_choice_separate"}})
    folder = execute(spec, WordModel(), results_dir=tmp_path)
    score = {}
    for r in read_run(tmp_path, folder.name).records:
        gold = [p for p, (_, right) in zip(r.probabilities, r.references) if right]
        base = [p for p, (_, right) in zip(r.perturbed["baseline"].probabilities, r.references) if right]
        score[(r.metadata["context"], r.metadata["depth"])] = sum(gold) - sum(base)
    contrast = np.array([score[(c, 1.0)] - score[(c, 0.0)] for c in range(6)])
    upper, note = Pilot(tmp_path).depth_contrast_sd(folder.name)
    assert upper == pytest.approx(upper_sd(contrast)) and upper > contrast.std(ddof=1)
    assert "over 6 contexts" in note and Pilot(tmp_path).depth_contrast_sd("absent") is None


def test_a_pilot_gives_the_step_contrasts_sd_and_the_calibration_claims_confidences(monkeypatch, tmp_path):
    """Hand-derived: 0, 1 and 2 shots on 30 items where 1 shot alone is right on 10 (contrast +2), 2 shots alone on 10
    (contrast −1) and none on 10 (0): planned at the bound on E[c²] = P(|c| = 1) + 4·P(|c| = 2), each share at its
    90% Clopper–Pearson limit, here both 10 of 30: √(5·Beta(11, 20)'s 0.9 quantile). A calibration claim draws its confidences from the pilot's, so a pilot
    whose confidences sit at 0.99 plans another MDE than U(1/4, 1)."""
    shots = {"zero": {f"i{k}": False for k in range(30)}, "one": {f"i{k}": k < 10 for k in range(30)},
             "two": {f"i{k}": 10 <= k < 20 for k in range(30)}}
    pilot = Pilot(tmp_path)
    monkeypatch.setattr(pilot, "_correct", lambda run_id, perturbation=None: shots.get(run_id))
    upper, note = pilot.step_contrast_sd("zero", "one", "two")
    contrast = np.array([2.0] * 10 + [-1.0] * 10 + [0.0] * 10)
    assert upper == pytest.approx(math.sqrt(5 * sps.beta.ppf(0.9, 11, 20))) and upper > contrast.std(ddof=1)
    assert "30 items" in note
    assert claim_mdes.step_contrast(100, contrast_sd=upper)[0] == pytest.approx(
        (sps.norm.ppf(0.975) + sps.norm.ppf(0.8)) * upper / 10)
    sharp = claim_mdes.calibration([(400, 4)], pools=[np.full(50, 0.99)])[0]
    assert sharp != pytest.approx(claim_mdes.calibration([(400, 4)])[0], rel=0.05)


def test_a_pilot_gives_the_upper_limit_of_the_length_contrasts_sd(tmp_path, mirrored_cache):
    """Two NIAH curves by a fake model at 128 and 256 tokens (6 contexts, 3 depths, with baselines): per context, the
    mean over depths of (P(gold) − baseline P(gold)) / (1 − chance) at 128 minus at 256 — recomputed here from the
    runs' records with notebook 04's chance level — and the 80% upper limit of its SD (Bonett 2006)."""
    from helmlite.analyses.depth.sweeps import chance_level
    from helmlite.results import read_run
    from helmlite.evaluation.runner import execute
    from helmlite.evaluation.runspec import RunSpec

    from .fakes import WordModel

    means, folders = [], []
    for length in (128, 256):
        spec = RunSpec.from_dict({"scenario": "niah", "model": "fake", "perturbations": ["baseline"],
                                  "args": {"n_contexts": 6, "depths": [0.0, 0.5, 1.0], "distractors": 5,
                                           "target_tokens": length}, "adapter": {"method": "multiple_choice_separate"}})
        folders.append(execute(spec, WordModel(), results_dir=tmp_path).name)
        per_context = {}
        for r in read_run(tmp_path, folders[-1]).records:
            gold = sum(p for p, (_, right) in zip(r.probabilities, r.references) if right)
            base = sum(p for p, (_, right) in zip(r.perturbed["baseline"].probabilities, r.references) if right)
            chance = chance_level(r.references, "multiple_choice_separate")
            per_context.setdefault(r.metadata["context"], []).append((gold - base) / (1 - chance))
        means.append(np.array([np.mean(per_context[c]) for c in range(6)]))
    upper, note = Pilot(tmp_path).length_contrast_sd(*folders)
    contrast = means[0] - means[1]
    assert upper == pytest.approx(upper_sd(contrast))
    assert "over 6 contexts" in note


def test_a_multi_document_task_is_sized_by_its_question_count(tmp_path):
    """Issue #62: multi-document QA builds one context per question (``n_questions``); a design sizes that argument —
    ``n_contexts``, the synthetic tasks' count, is no argument of its loader — and a pilot of another question count
    stands for the sized run."""
    raw = json.loads(json.dumps(_raw(tmp_path)))
    raw["depth"]["tasks"] = [{"scenario": "nq_multidoc", "args": {"n_questions": 3, "depths": [0.0, 0.5, 1.0], "distractors": 5},
                              "methods": ["multiple_choice_separate"]}]
    config = workflow.validate_config(raw, "<test>")
    sized_raw = designs.sized_config(raw, {("depth", "tasks", 0): ("contexts", 12)})
    assert sized_raw["depth"]["tasks"][0]["args"] == {"n_questions": 12, "depths": [0.0, 0.5, 1.0], "distractors": 5}
    sized = workflow.validate_config(sized_raw, "<test>")
    aliases = designs.pilot_aliases(config, sized)
    assert {workflow.run_specs(sized)[r].scenario for r, p in aliases.items() if r != p} == {"nq_multidoc"}
    assert [designs.context_count_arg(name) for name in ("niah", "json_kv", "nq_multidoc")] == ["n_contexts", "n_contexts",
                                                                                               "n_questions"]
