"""What each analysis notebook reads and writes, with a one-line caption per output.

The single source of truth for the workflow (rule inputs/outputs in ``rules/notebooks.smk``), the
fetch step (``helmlite fetch --for-config``) and ``reports/index.html``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from . import grids


@dataclass(frozen=True)
class Analysis:
    key: str
    notebook: str  # file stem under notebooks/ and reports/
    title: str  # the notebook's heading is "NN — <title>" (tested); the navigation shows "NN <title up to its colon>"
    paper: str
    figures: dict[str, str] = field(default_factory=dict)  # name (no extension) → caption
    tables: dict[str, str] = field(default_factory=dict)  # name (no extension) → caption
    # tables of wall-clock measurements (differ from run to run and machine to machine), kept apart from
    # tables/ so that two runs of the workflow give identical tables
    measured: dict[str, str] = field(default_factory=dict)
    data: tuple[str, ...] = ()  # registry names the notebook needs (fetched before it runs)
    # outputs that never come from the analysis's input, so never from a simulated one (a dataset card's own example,
    # hand-derived cases): the index labels every other output of a simulated run SIMULATED
    fixed: tuple[str, ...] = ()
    grid: Callable[[dict], list[grids.GridRun]] | None = None  # config section → the model runs it analyses

    @property
    def manifest(self) -> str:
        return f"{self.key}_manifest"


HELPSTEER2 = Analysis(
    key="helpsteer2",
    fixed=("helpsteer2_card_example", "helpsteer2_worked_examples"),
    notebook="05_helpsteer2_aggregation",
    title="HelpSteer2: how the released labels are aggregated from annotators",
    paper="Wang et al. 2024, HelpSteer2 (arXiv 2406.08673)",
    figures={
        "helpsteer2_protocol": "Annotators per sample (3-then-5 protocol) and the share removed by the spread filter, per prompt (paper) and per response, with CIs.",
        "helpsteer2_protocol_readings": "Simulated: share removed and annotators per response under four readings of the 3-then-5 protocol (full/partial escalation x filter on the most agreeing three/all annotators).",
        "helpsteer2_distributions": "Score distributions per attribute (simulated annotations unless the real file is present: the title says which): every individual rating vs the released labels.",
        "helpsteer2_correlations": "Pearson correlations among released attributes, and each vs helpfulness with CIs (simulated unless the real file is present; the simulator was built with these correlations).",
        "helpsteer2_agreement": "Inter-annotator agreement (weighted kappa, Krippendorff's alpha) before vs after keeping the most agreeing three (simulated unless the real file is present).",
        "helpsteer2_error_vs_truth": "Simulated data: error of the released label vs a naive mean of all annotators, against the latent truth.",
        "helpsteer2_careless_curve": "Simulated data: MAE difference top-3 − naive mean vs the share of careless annotators, CIs clustered by prompt.",
    },
    tables={
        "helpsteer2_card_example": "The dataset card's example aggregated by helmlite, beside the card's released row.",
        "helpsteer2_worked_examples": "Hand-derived examples with four and five annotators (selection, ties, per-prompt vs per-response filter) vs helmlite.",
        "helpsteer2_annotator_counts": "Samples by number of annotators.",
        "helpsteer2_simulator_calibration": "Simulated: the two published figures the simulator's careless and escalation shares were fitted to, simulated vs published (a match by construction).",
        "helpsteer2_removal": "Share removed by the spread filter, per prompt (paper) and per response, overall / per rule / per annotator count, with CIs.",
        "helpsteer2_distributions": "Score distributions before/after aggregation (counts and shares).",
        "helpsteer2_correlations": "Pearson r of each attribute with helpfulness, bootstrap CIs.",
        "helpsteer2_agreement": "Agreement before/after keeping the most agreeing three, bootstrap CIs.",
        "helpsteer2_protocol_readings": "Simulated: each reading of the protocol with the default and a refitted careless share: annotators, share removed, weighted kappa, published figures met.",
        "helpsteer2_unfitted_check": "The annotators' weighted kappa (initial three, CI) beside the published 0.465 -> 0.706 (helpfulness) and 0.472 -> 0.715 (correctness), a figure the simulator was not fitted to.",
        "helpsteer2_error_vs_truth": "MAE against the latent truth: most agreeing three vs naive mean, cluster bootstrap over prompts (simulated; empty for real data).",
        "helpsteer2_careless_curve": "MAE difference top-3 − naive mean per careless-annotator share and attribute (simulated; empty for real data).",
        "helpsteer2_reproduction": "Reproduction check: card example, the card's facts and the paper's ~10% removal vs ours (simulator: fitted to them, a match by construction).",
    },
    data=("helpsteer2/card_example_disagreements.jsonl", "helpsteer2/card_example_aggregated.jsonl"),
)

HELMET = Analysis(
    key="helmet",
    notebook="03_helmet_correlations",
    title="HELMET: do synthetic long-context tasks predict downstream performance?",
    paper="Yen et al. 2025, HELMET (ICLR 2025, arXiv 2410.02694), Figs. 3, 5, 6, 8",
    figures={
        "helmet_fig5_reproduced": "Fig. 5 recomputed (35 instruct models, fitted exclusion) beside its difference to the paper in thousandths, and that difference with all 36.",
        "helmet_fig3_reproduced": "Fig. 3: the paper's NIAH/RULER rows and our recomputed Recall/RAG rows.",
        "helmet_correlation_cis": "Every recomputed correlation with a 95% bootstrap CI over models, and the paper's value.",
        "helmet_fig8_averages": "Fig. 8 (paper's printed values, mirror-only): each synthetic and RAG dataset's Avg. rho with the downstream categories, and the 0.8 line.",
        "helmet_ci_width": "Width of the CI on Spearman's rho against the number of models (strong and weak pair), subsets smaller than the 35.",
        "helmet_base_vs_instruct": "Category correlations over base vs instruct models, and their difference with CIs.",
        "helmet_by_length": "Mean category correlation by input length, 8K-128K (Fig. 6 values), with CIs.",
    },
    tables={
        "helmet_fig5_exclusions": "Which of the 36 instruct models the paper left out: max/mean |diff| to Fig. 5 per exclusion.",
        "helmet_correlations": "Fig. 5 and Fig. 3 correlations: paper, ours, bootstrap CI.",
        "helmet_predictor_comparison": "RAG vs Recall as predictors of downstream categories (paired bootstrap over models).",
        "helmet_category_connectedness": "Each category's mean correlation with the others, with CIs.",
        "helmet_fig8_statements": "The paper's statements as it makes them, on Fig. 8's printed values (no interval): no synthetic row averages above 0.8; RAG datasets above synthetic datasets, per pair.",
        "helmet_fig8_rag_vs_synthetic": "Per RAG dataset (Fig. 8): how many synthetic datasets its Avg. rho is above, tied with and below, naming those it is not above.",
        "helmet_claims": "Inferential claims (helmlite's additions on the category table, and Fig. 5's ICL/Cite statement): paired over models, Holm-corrected verdicts with MDE.",
        "helmet_weak_categories": "ICL and Cite vs the other categories: paired gaps in mean rho (and to the best-connected one).",
        "helmet_ci_width": "CI width of rho by number of models.",
        "helmet_base_vs_instruct": "Base vs instruct correlations per pair, percentile CI of the difference with its dual p, Holm.",
        "helmet_by_length": "Mean category correlation per input length and the 128K-8K change (paired bootstrap).",
        "helmet_reproduction": "Reproduction check: every published Fig. 5 / Fig. 3 cell vs ours.",
    },
    data=("helmet/agg_results_128k.csv",),
)

HELM_CORE = Analysis(
    key="helm_core",
    notebook="01_helm_core",
    title="HELM core: live runs and the published leaderboard",
    paper="Liang et al. 2022, Holistic Evaluation of Language Models (arXiv 2211.09110), §8, Figs. 24-26",
    figures={
        "helm_core_score_matrix": "Live runs: scenarios x metric families per embedded model, estimate and 95% CI in every cell.",
        "helm_core_accuracy_vs_robustness_fairness": "Live runs: accuracy vs robustness and vs fairness per scenario (HELM Fig. 24 style), with CIs.",
        "helm_core_perturbation_deltas": "Live runs: change of the main metric under each perturbation, paired on the same instances, with 95% CIs (Newcombe's paired interval for 0/1 metrics, a paired bootstrap otherwise).",
        "helm_core_bbq_groups": "Live runs: BBQ accuracy by category and context condition, with 95% CIs.",
        "helm_core_model_difference": "Live runs: difference in the main metric between the two models per scenario, paired on the instances both saw, with 95% CIs (Newcombe's paired interval for 0/1 metrics, a paired bootstrap otherwise).",
        "helm_core_reliability": "Live runs: reliability diagrams (10 equal-mass bins) for the classification scenarios.",
        "helm_core_winrate_agreement": "Published HELM v0.4.0: recomputed vs published mean win rate per metric group (all 67 models).",
        "helm_core_winrate_ranking": "Published HELM v0.4.0: accuracy win rates with bootstrap CIs over scenarios and tie markers.",
        "helm_core_metric_relationships": "Published HELM v0.4.0: accuracy vs each metric group across models, per scenario, with CIs.",
        "helm_core_budget": "Published HELM v0.4.0: ranking agreement from priority-1 / k random scenarios vs all 16.",
    },
    tables={
        "helm_core_fidelity": "Per live scenario and aspect (dataset, split, method, main metric, prompt layout): HELM's side beside helmlite's and same/partly/differs; HELM core scenarios absent offline and what to do about each.",
        "helm_core_score_matrix": "Live runs: every metric family per model and scenario, estimate and CI.",
        "helm_core_model_difference": "Live runs: paired differences between the models per scenario (exact McNemar p and Newcombe CI for 0/1 metrics, paired bootstrap otherwise).",
        "helm_core_perturbation_deltas": "Live runs: paired changes under robustness/fairness perturbations.",
        "helm_core_bbq_groups": "Live runs: BBQ accuracy per category/context condition.",
        "helm_core_bbq_bias": "Live runs: BBQ's accuracies and bias scores per run, the ambiguous one as HELM (1 − accuracy over all items) and as Parrish et al. (1 − accuracy on ambiguous items).",
        "helm_core_calibration": "Live runs: ECE-10 beside the ECE a perfectly calibrated model would show at that n.",
        "helm_core_winrate_comparison": "Published: recomputed vs published mean win rate, every model x metric group.",
        "helm_core_winrate_summary": "Published: per group Kendall tau, max/mean |diff|, ties created by rounding.",
        "helm_core_winrate_intervals": "Published: accuracy win rates with CIs and statistical ties (all models and the paper's 28).",
        "helm_core_metric_relationships": "Published: accuracy vs other metrics, Pearson r with CIs, per scenario.",
        "helm_core_claims": "Live and published claims in the claims schema: supported / contradicted / inconclusive with MDE (Holm).",
        "helm_core_budget": "Published: Kendall tau vs number of scenarios (random subsets and HELM priorities).",
        "helm_core_reproduction": "Reproduction check: every published mean win rate (model x group), HELM v0.4.0 rules.",
    },
    measured={
        "helm_core_latency": "Live runs: measured seconds per instance per model and scenario, with CIs (this machine).",
        "helm_core_runtime_model": "Live runs: HELM's runtime model (prompt and output token costs) per model (this machine).",
    },
    data=("helm/results/helm_classic_v0.4.0_core_scenarios_all_metrics.csv", "helm/resources/presentation_v0.1.0/run_specs.conf"),
    grid=grids.helm_core,
)

SENSITIVITY = Analysis(
    key="sensitivity",
    notebook="02_prompt_sensitivity",
    title="Prompt sensitivity: seeds, shots, formats and the multiple-choice method",
    paper="Liang et al. 2022, HELM §8.2, Figs. 31-33",
    figures={
        "sensitivity_seeds": "Seed SD (variance component, 95% CI) beside the raw SD of run means, per model and scenario.",
        "sensitivity_shots": "Accuracy vs number of in-context examples, 95% CIs (Fig. 32 analog).",
        "sensitivity_methods": "Accuracy per multiple-choice adaptation method, 95% CIs (Fig. 33 analog).",
        "sensitivity_formats": "Accuracy per prompt format (HELM default, expert instruction, plain, Q/A, chat template).",
        "sensitivity_variance": "Share of run-level accuracy variance due to scenario, seed, shots, format and method.",
    },
    tables={
        "sensitivity_runs": "Every run of the four studies: factor level and accuracy with CI.",
        "sensitivity_seeds": "Seed variance component with CI, Cochran's Q p-value, raw range and SD of run means.",
        "sensitivity_shots": "Consecutive shot steps: paired differences on the same instances (exact McNemar p, Newcombe CI).",
        "sensitivity_first_step": "Is 0->1 the largest step? Per-instance contrasts of the 0->1 step with each later step.",
        "sensitivity_methods": "Accuracy per multiple-choice method.",
        "sensitivity_formats": "Accuracy per prompt format.",
        "sensitivity_pairwise_tests": "Every pair of configurations: paired difference, p, Holm and Benjamini-Yekutieli corrections.",
        "sensitivity_rank_reversals": "Pairs of configurations where the two models swap order; significant ones marked.",
        "sensitivity_significance": "Counts of significant differences and rank reversals per study.",
        "sensitivity_variance": "Variance decomposition per model: type-II sums of squares, df, F, p and shares.",
        "sensitivity_claims": "The paper's claims in the claims schema: supported / contradicted / inconclusive with MDE (Holm).",
    },
    grid=grids.sensitivity,
)

DEPTH = Analysis(
    key="depth",
    notebook="04_lost_in_the_middle",
    title="Lost in the middle: depth sweeps, live and published",
    paper="Liu et al. 2023, Lost in the Middle (arXiv 2307.03172); HELMET App. E.4, Figs. 11-14",
    figures={
        "depth_live_curves": "Live sweeps: accuracy vs the target's actual position per task, model and scoring, one line per length, chance dashed, the baseline's hit rate (key-absent query) dotted; 95% CIs only with >= 10 contexts.",
        "depth_retrieval_scores": "The score the position tests use on log-prob curves: P(gold) − the baseline's P(gold) of the same candidate vs the target's actual position, paired-bootstrap CIs over contexts.",
        "depth_u_shape": "Primacy vs recency of each live curve's score (P(gold) − baseline P(gold) for log-prob) with paired CIs over contexts; hollow = no verdict; red = U-shape supported after Holm.",
        "depth_published": "Published curves: Lost in the Middle (20 documents) and HELMET JSON KV by length.",
        "depth_length": "Chance-corrected accuracy averaged over depths vs context length, per model and task, with 95% Korn–Graubard intervals (contexts as the units).",
    },
    tables={
        "depth_design": "The live sweeps' design and means per task, length, model and scoring: contexts, instances, chance, accuracy, the baseline's hit rate, P(gold) and the baseline's P(gold).",
        "depth_curves": "Accuracy, the baseline's hit rate and their difference per depth at the actual position, with chance level, and P(gold), the baseline's P(gold) and their difference; CIs only for curves with >= 10 contexts.",
        "depth_u_shape": "Primacy/recency per curve at actual positions, chance, floor/ceiling flags and the Holm-corrected verdicts.",
        "depth_claims": "Lost in the Middle's U-shape, HELMET's recency and the length-degradation claims, on P(gold) − baseline P(gold) for log-prob curves, in the claims schema (Holm over the family).",
        "depth_length_tests": "Length degradation per model, task and scoring: score at the shortest minus the longest length, paired by context.",
        "depth_published": "Primacy/recency computed on the published curves (no CIs: no per-item data).",
        "depth_length": "Raw and chance-corrected accuracy vs length, averaged over depths; Korn-Graubard interval with contexts as the units.",
        "depth_reproduction": "Read checks (not reproductions): LitM GPT-3.5-Turbo numbers as read from the mirror vs the cited constants.",
    },
    grid=grids.depth,
)

METHODS_LAB = Analysis(
    key="methods_lab",
    notebook="06_methods_lab",
    title="Methods lab: the statistics behind the reports, in seven lessons",
    paper="Teaching material: Clopper & Pearson 1934, McNemar 1947, Holm 1979, Benjamini & Yekutieli 2001, "
          "Kish 1965, Korn & Graubard 1998, Schuirmann 1987",
    figures={
        "methods_lab_coverage": "Exact coverage of the Wald and Clopper–Pearson 95% intervals against the true accuracy (binomial sums, no simulation).",
        "methods_lab_pairing": "Simulated: how often the paired exact McNemar test and lm-eval's unpaired z-test reject equal accuracy, by true difference.",
        "methods_lab_multiplicity": "Simulated: family-wise error rate and false discovery rate by number of claims tested together, without correction, with Holm and with Benjamini–Yekutieli.",
        "methods_lab_mde": "Minimum detectable difference at 80% power by number of items, for three designs.",
        "methods_lab_clusters": "Simulated: coverage of a naive and a cluster (Korn–Graubard) interval when items share a context, by intraclass correlation.",
        "methods_lab_seeds": "Smallest between-seed SD of accuracy detectable with 80% power (Cochran's Q), by number of seeds and items.",
        "methods_lab_verdicts": "Simulated reproduction checks: share read \"consistent\" and share found equivalent (TOST, ±0.05), by n and true offset.",
    },
    tables={
        "methods_lab_coverage": "Exact coverage and expected width of each interval at each true accuracy and n.",
        "methods_lab_lowest_coverage": "Each interval's lowest coverage per n, and the accuracy where it falls.",
        "methods_lab_pairing": "Simulated rejection rates of the paired and unpaired tests, by true difference.",
        "methods_lab_multiplicity": "Simulated family-wise error rate, false discovery rate and power, by number of claims and correction.",
        "methods_lab_mde": "Minimum detectable difference by n and design.",
        "methods_lab_items_needed": "Items each design needs to detect a given difference (what helmlite plan --target-mde answers).",
        "methods_lab_clusters": "Simulated coverage and width of the naive and the cluster interval, by intraclass correlation.",
        "methods_lab_seeds": "Smallest detectable between-seed SD by seeds and items.",
        "methods_lab_seeds_needed": "Seeds a claim about a given between-seed SD needs for 80% power, by number of items.",
        "methods_lab_seed_spread": "Simulated: the spread three seeds show, and how often Cochran's Q detects it, by true seed SD.",
        "methods_lab_verdicts": "Simulated share of each reproduction verdict and of equivalence, by n and true offset.",
    },
)

ANALYSES: dict[str, Analysis] = {a.key: a for a in (HELM_CORE, SENSITIVITY, HELMET, DEPTH, HELPSTEER2, METHODS_LAB)}
