"""Notebook claims in the shared schema (helmlite.claims): hand-built analysis tables → hand-derived verdicts."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from helmlite import claims, stats
from helmlite.analyses.helm_core import claims as helm_claims
from helmlite.analyses.sensitivity import claims as sensitivity_claims


def test_live_claims_follow_the_schema_and_small_n_is_inconclusive():
    diff = pd.DataFrame([{"scenario": "mmlu", "method": "multiple_choice_joint", "difference": 0.9, "ci_low": 0.7, "ci_high": 0.97, "n": 20, "p_value": 2 * 0.5**18,
                          "discordance": 0.9, "test": "newcombe-score/mcnemar-exact"},
                         {"scenario": "boolq", "method": "multiple_choice_joint", "difference": 0.67, "ci_low": 0.1, "ci_high": 0.9,
                          "n": 3, "p_value": 0.25, "discordance": 2 / 3, "test": "newcombe-score/mcnemar-exact"},
                         # a generation scenario stays in the model-difference table but makes no claim (no headline claim)
                         {"scenario": "nq", "method": "generation", "difference": 0.01, "ci_low": -0.2, "ci_high": 0.2,
                          "n": 8, "p_value": 0.9, "discordance": math.nan, "test": "paired-bootstrap"}])
    mc = {"seed": 0, "method": "multiple_choice_joint"}
    deltas = pd.DataFrame([{"model": "m", "scenario": "mmlu", "perturbation": "robustness", "delta": -0.02, "ci_low": -0.1,
                            "ci_high": 0.05, "n": 50, "p_value": 0.6, "discordance": 0.1, "test": "newcombe-score/mcnemar-exact", **mc},
                           # HELM's fairness perturbations are claimed as robustness is; "contrast" is not a headline claim
                           {"model": "m", "scenario": "mmlu", "perturbation": "dialect", "delta": -0.3, "ci_low": -0.42,
                            "ci_high": -0.18, "n": 50, "p_value": 2 * 0.5**15, "discordance": 0.3, "test": "newcombe-score/mcnemar-exact", **mc},
                           {"model": "m", "scenario": "boolq", "perturbation": "contrast", "delta": -0.3, "ci_low": -0.42,
                            "ci_high": -0.18, "n": 50, "p_value": 2 * 0.5**15, "discordance": 0.3, "test": "newcombe-score/mcnemar-exact", **mc},
                           # a second seed repeats the first seed's question: no claim of its own
                           {"model": "m", "scenario": "mmlu", "perturbation": "robustness", "delta": -0.3, "ci_low": -0.42,
                            "ci_high": -0.18, "n": 50, "p_value": 2 * 0.5**15, "discordance": 0.3,
                            "test": "newcombe-score/mcnemar-exact", "seed": 1, "method": "multiple_choice_joint"}])
    calibration = pd.DataFrame([{"model": "m", "scenario": "mmlu", "method": "multiple_choice_joint", "ece_10": 0.30, "n": 200, "ece_if_calibrated": 0.08,
                                 "ece_if_calibrated_q95": 0.11, "p_calibrated": 1 / 2001, "p_two_sided": 2 / 2001,
                                 "p_floor": 2 / 2001, "direction": "overconfident", "calibration_error": 0.21,
                                 "ci_low": 0.17, "ci_high": 0.62, "mde": 0.07}])
    asked = []

    def calibration_mde(model, scenario, alpha):  # the ECE test's MDE at the family's level (a stand-in here)
        asked.append((model, scenario, alpha))
        return 0.07

    table = claims.claims_table(helm_claims.live_claims(diff, deltas, calibration, pair=("a", "b"),
                                                        calibration_mde=calibration_mde))
    claims.check_claims_table(table)
    verdicts = dict(zip(table["quantity"], table["verdict"]))
    assert "live:model_difference:nq" not in verdicts and len(table) == 5
    # one family of five hypotheses: every MDE at α = 0.05/5 (Holm's worst case), the calibration test's asked there
    assert set(table["family_size"]) == {5} and table["alpha"].tolist() == pytest.approx([0.01] * 5)
    assert asked == [("m", "mmlu", pytest.approx(0.01))]
    assert helm_claims.model_difference_name("a", "b", "mmlu") in set(table["claim"])
    # 15 discordant pairs all one way (p = 2 · 0.5^15, Holm over 5 claims: far below 0.05)
    assert verdicts["live:dialect_delta:m:mmlu"] == "supported"
    assert "dialect (fairness) perturbation" in table.set_index("quantity").loc["live:dialect_delta:m:mmlu", "claim"]
    # 18 discordant pairs all one way: Holm over 5 claims keeps p far below 0.05
    assert verdicts["live:model_difference:mmlu"] == "supported"
    assert verdicts["live:model_difference:boolq"] == "inconclusive"  # n = 3: no verdict possible
    assert "MDE at n = 3" in table.set_index("quantity").loc["live:model_difference:boolq", "evidence"]
    assert verdicts["live:robustness_delta:m:mmlu"] == "inconclusive"
    # the MDE of a paired claim is the exact McNemar test's with the discordance growing from the observed pairs that
    # differ both ways: 5 of 50 items differ, the difference is −0.02, so 0.1 − 0.02 = 0.08 differ both ways (at α = 0.01)
    assert table.set_index("quantity").loc["live:robustness_delta:m:mmlu", "mde"] == pytest.approx(
        stats.mde_paired_growing(50, 0.08, level=0.99))
    # the calibration test's p = 1/2001 and its dual interval [0.17, 0.62] of the calibration error: supported,
    # with the test's own MDE
    row = table.set_index("quantity").loc["live:calibration_error:m:mmlu"]
    assert row["verdict"] == "supported" and row["estimate"] == pytest.approx(0.21) and row["mde"] == pytest.approx(0.07)
    assert row["p_value"] == pytest.approx(2 / 2001)  # the two-sided p the interval is dual to
    assert "p ≤ 0.001 (the resampling floor" in row["evidence"]  # at 2,000 simulations' floor: a bound, not a value


def test_sensitivity_claims_report_b_minus_a_and_the_weakest_first_step_contrast():
    spread = pd.DataFrame([{"model": "m", "scenario": "s", "seeds": 3, "seed_variance": 0.001, "seed_sd": 0.001 ** 0.5,
                            "ci_low": -0.002, "ci_high": 0.01, "sd_ci_low": 0.0, "sd_ci_high": 0.1, "p_seeds_matter": 0.4,
                            "n": 100, "mde_sd": stats.mde_seed_sd(100, 3, 0.125), "within_item_variance": 0.125}])
    steps = pd.DataFrame([{"model": "m", "scenario": "s", "step": "0→1", "difference": 0.3, "ci_low": 0.2, "ci_high": 0.4,
                           "p_value": 1e-6, "n": 100, "discordance": 0.3, "test": "newcombe-score/mcnemar-exact"}])
    first = pd.DataFrame([{"model": "m", "scenario": "s", "contrast": "(0→1) − (1→2)", "difference": 0.25, "ci_low": 0.1,
                           "ci_high": 0.4, "p_value": 0.001, "n": 100},
                          {"model": "m", "scenario": "s", "contrast": "(0→1) − (2→4)", "difference": 0.05, "ci_low": -0.05,
                           "ci_high": 0.15, "p_value": 0.3, "n": 100}])
    tests = pd.DataFrame([{"study": "methods", "model": "m", "scenario": "s", "a": "multiple_choice_joint",
                           "b": "multiple_choice_separate", "difference": -0.2, "ci_low": -0.3, "ci_high": -0.1,
                           "p_value": 0.001, "n": 100, "discordance": 0.2, "test": "newcombe-score/mcnemar-exact"}])
    table = claims.claims_table(sensitivity_claims.sensitivity_claims(spread, steps, first, tests)).set_index("quantity")
    # the seed claim on the SD scale (accuracy points), with the MDE of Cochran's Q at that design (0.078 alone; at the
    # family's α = 0.05/4 — four claims — larger)
    seed_claim = table.loc["seed_sd:m:s"]
    assert seed_claim["verdict"] == "inconclusive" and seed_claim["estimate"] == pytest.approx(0.0316, abs=1e-4)
    assert stats.mde_seed_sd(100, 3, 0.125) == pytest.approx(0.0776, abs=1e-3)
    assert seed_claim["mde"] == pytest.approx(stats.mde_seed_sd(100, 3, 0.125, level=1 - 0.05 / 4)) and seed_claim["mde"] > 0.09
    assert table.loc["shot_step:0→1:m:s", "verdict"] == "supported"
    # the intersection–union test is decided by its weakest contrast, which includes 0
    largest = table.loc["first_step_largest:m:s:weakest (0→1) − (2→4)"]
    assert largest["estimate"] == pytest.approx(0.05) and largest["verdict"] == "inconclusive"
    assert largest["claim"] == sensitivity_claims.first_step_largest_name("m", "s", "0→1")
    # joint − separate = −0.2 is reported as separate − joint = +0.2 with the interval mirrored
    row = table.loc["methods:multiple_choice_separate-multiple_choice_joint:m:s"]
    assert (row["estimate"], row["ci_low"], row["ci_high"]) == pytest.approx((0.2, 0.1, 0.3)) and row["verdict"] == "supported"


def test_two_seeds_are_one_paired_difference_with_the_pairwise_tables_test():
    """Issue #54 §1, the default run's numbers: seeds 0 and 1 differ on 3 of 100 items (2 one way, 1 the other:
    difference 0.01). The claim is that paired difference with the pairwise table's exact McNemar p (1.0, the same
    row) and its interval; held at the observed discordance 0.03 no difference is detectable (3 discordant items), so
    its MDE lets the discordance grow with the effect (statsmodels' mcnemar(exact=True) on [[48, 2], [1, 49]] gives
    p = 1.0 too)."""
    import math

    from statsmodels.stats.contingency_tables import mcnemar

    p = mcnemar([[48, 2], [1, 49]], exact=True).pvalue
    spread = pd.DataFrame([{"model": "m", "scenario": "s", "seeds": 2, "seed_sd": 0.00707, "sd_ci_low": 0.0,
                            "sd_ci_high": 0.225, "n": 100, "mde_sd": 0.034, "p_seeds_matter": 0.564}])
    tests = pd.DataFrame([{"study": "seeds", "model": "m", "scenario": "s", "a": "seed 0", "b": "seed 1", "difference": 0.01,
                           "ci_low": -0.0306, "ci_high": 0.0509, "p_value": p, "n": 100, "discordance": 0.03,
                           "test": "newcombe-score/mcnemar-exact"}])
    empty_steps = pd.DataFrame(columns=["model", "scenario", "step", "difference", "ci_low", "ci_high", "p_value", "n",
                                        "discordance", "test"])
    empty_first = pd.DataFrame(columns=["model", "scenario", "contrast", "difference", "ci_low", "ci_high", "p_value", "n"])
    table = claims.claims_table(sensitivity_claims.sensitivity_claims(spread, empty_steps, empty_first, tests))
    (row,) = table.itertuples()
    assert row.quantity == "seed_difference:seed 0-seed 1:m:s" and row.p_value == pytest.approx(1.0) == pytest.approx(p)
    assert (row.estimate, row.ci_low, row.ci_high) == (0.01, -0.0306, 0.0509)
    assert stats.mde_proportion(100, paired=True, discordance=0.03) == math.inf  # held at the observed 0.03: unreachable
    # the MDE the claim reports lets the discordance grow with the effect from the 0.02 differing both ways: reachable
    assert row.mde == pytest.approx(stats.mde_paired_growing(100, 0.02)) and 0.05 < row.mde < 0.15
    assert "ψ0 = 0.02 differing both ways; at the observed 0.03 held fixed: ∞" in row.evidence


def test_the_planner_and_the_notebooks_name_every_claim_kind_alike():
    """Each analysis names its claims once: the claims notebook 02 and 04 build from their tables carry exactly the
    names their ``declare_claims`` gives the planner for the same runs — here the kinds config/test.yaml does not make
    (three seeds' SD, "the first step is the largest", the format study, length degradation)."""
    from helmlite.analyses.depth import claims as depth_claims

    def run(run_id, labels=(), **extra):
        return {"analysis": "x", "run_id": run_id, "model": "m", "scenario": "mmlu", "scenario_label": "mmlu:a",
                "method": "multiple_choice_joint", "instances": 50, "contexts": 50, "choices": 4, "perturbations": [],
                "labels": list(labels), "length": None, "seed": 0, **extra}

    planned = [run(f"seed{k}", [("seeds", f"seed {k}")]) for k in range(3)]
    planned += [run(f"shot{k}", [("shots", str(k))]) for k in (0, 1, 2)]
    planned += [run(f"format-{f}", [("formats", f)]) for f in ("helm_default", "plain")]
    planned += [run(f"method-{m}", [("methods", m)]) for m in ("multiple_choice_joint", "multiple_choice_separate")]
    spread = pd.DataFrame([{"model": "m", "scenario": "mmlu:a", "seeds": 3, "seed_sd": 0.01, "sd_ci_low": 0.0,
                            "sd_ci_high": 0.1, "p_seeds_matter": 0.4, "n": 50, "within_item_variance": 0.1}])
    steps = pd.DataFrame([{"model": "m", "scenario": "mmlu:a", "step": s, "difference": 0.1, "ci_low": 0.0, "ci_high": 0.2,
                           "p_value": 0.1, "n": 50, "discordance": 0.2, "test": "newcombe-score/mcnemar-exact"}
                          for s in ("0→1", "1→2")])
    first = pd.DataFrame([{"model": "m", "scenario": "mmlu:a", "contrast": "(0→1) − (1→2)", "difference": 0.1,
                           "ci_low": 0.0, "ci_high": 0.2, "p_value": 0.1, "n": 50}])
    tests = pd.DataFrame([{"study": study, "model": "m", "scenario": "mmlu:a", "a": a, "b": b, "difference": 0.1,
                           "ci_low": 0.0, "ci_high": 0.2, "p_value": 0.1, "n": 50, "discordance": 0.2,
                           "test": "newcombe-score/mcnemar-exact"}
                          for study, a, b in (("formats", "helm_default", "plain"),
                                              ("methods", "multiple_choice_joint", "multiple_choice_separate"))])
    built = {c.claim for c in sensitivity_claims.sensitivity_claims(spread, steps, first, tests)}
    assert built == {d.name for d in sensitivity_claims.declare_claims(planned)} and len(built) == 5

    curve = {"contexts": 20, **{f"{part}{end}": math.nan for part in ("primacy", "recency", "recency_minus_primacy")
                                for end in ("", "_ci_low", "_ci_high", "_p")},
             **{f"{part}_p_floor": 0.0 for part in ("primacy", "recency", "recency_minus_primacy")}, "no_verdict": ""}
    score = "P(gold) − baseline P(gold)"
    ushape = pd.DataFrame([{"model": "m", "task": "niah", "length": n, "method": "log-prob retrieval", "score": score,
                            **curve} for n in (512, 1024)])
    lengths = pd.DataFrame([{"model": "m", "task": "niah", "method": "log-prob retrieval", "short": 512, "long": 1024,
                             "score": f"({score})/(1 − chance)", "difference": 0.1, "ci_low": 0.0, "ci_high": 0.2,
                             "p_value": 0.1, "p_floor": 0.0, "contexts": 20, "no_verdict": ""}])
    depth_runs = [run(f"d{n}", scenario="niah", method="multiple_choice_separate", length=n, contexts=20, instances=60,
                      positions=3, perturbations=["baseline"]) for n in (512, 1024)]
    built = {c.claim for c in depth_claims.depth_claims(ushape, lengths)}
    assert built == {d.name for d in depth_claims.declare_claims(depth_runs)} and len(built) == 5
