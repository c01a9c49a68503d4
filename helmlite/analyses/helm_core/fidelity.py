"""Where notebook 01's live runs follow HELM and where they do not: one row per scenario and aspect.

HELM's side is cited from crfm-helm v0.5.16 (``src/helm/benchmark/run_specs/classic_run_specs.py`` and
``lite_run_specs.py`` for the method and the prompt layout; ``src/helm/benchmark/scenarios/*_scenario.py``
for the data and the splits) and from HELM's presentation schema for the main metric (``main_name``; a test reads
it from the mirrored v0.1.0 ``schema.yaml``, the paper release's; these groups' main metrics are the same in the
schemas of v0.2.2 and v0.5.16). helmlite's main metric and default
method are read from the scenario registry (:mod:`helmlite.scenarios`) and
:func:`helmlite.evaluation.scoring_rules.main_metric`, so the table cannot drift from the code; its other cells describe the loaders in :mod:`helmlite.scenarios` (each loader's docstring says
the same). ``same`` is ``same``, ``differs`` or ``partly`` (e.g. the same layout, other data).

:data:`ABSENT` lists HELM Classic's core scenarios that helmlite cannot run offline, with what a user with
internet access can do about each.
"""
from __future__ import annotations

import pandas as pd

from ...evaluation import main_metric
from ...evaluation import RunSpec
from ...scenarios import scenario

ASPECTS = ("dataset", "split", "method", "main metric", "prompt layout")

# HELM group name (presentation schema) of each live scenario, and HELM's main metric there (schema v0.1.0, unchanged since).
HELM_GROUP = {"mmlu": "mmlu", "truthfulqa": "truthful_qa", "bbq": "bbq", "raft": "raft", "boolq": "boolq", "imdb": "imdb",
              "nq_closed_book": "natural_qa_closedbook", "nq_open_book": "natural_qa_openbook_longans",
              "nq_ranking": "msmarco_regular", "bold": "bold"}
HELM_MAIN_METRIC = {"mmlu": "exact_match", "truthfulqa": "exact_match", "bbq": "quasi_exact_match",
                    "raft": "quasi_exact_match", "boolq": "quasi_exact_match", "imdb": "quasi_exact_match",
                    "nq_closed_book": "f1", "nq_open_book": "f1", "nq_ranking": "rr@10", "bold": None}
HELM_METHOD = {"mmlu": "multiple_choice_joint", "truthfulqa": "multiple_choice_joint", "bbq": "multiple_choice_joint",
               "raft": "generation", "boolq": "generation", "imdb": "generation", "nq_closed_book": "generation",
               "nq_open_book": "generation", "nq_ranking": "ranking_binary", "bold": "generation"}

# (HELM, helmlite, same) per scenario and aspect, for the aspects not read from the registry.
ROWS: dict[str, dict[str, tuple[str, str, str]]] = {
    "mmlu": {
        "dataset": ("MMLU (Hendrycks et al. 2021), five subjects", "the same questions (mirror: dev and test reformatted, "
                    "val in the raw layout from a third-party copy of data/val, not checked against data.tar byte for "
                    "byte)", "same"),
        "split": ("in-context examples from dev; evaluates valid + test (EVAL_SPLITS), in that order, subsampled by "
                  "np.random.choice when max_eval_instances is smaller",
                  "the same: val then test evaluated, HELM's subsample and order under adapter.selection=helm_compat",
                  "same"),
        "prompt layout": ("instructions naming the subject, 'Question: ', lettered options, 'Answer:'",
                          "crfm-helm's, byte for byte with the joint method under adapter.selection=helm_compat, val "
                          "included (us_foreign_policy in 3 train trials and under the robustness perturbation, "
                          "college_chemistry, econometrics, hashed against helm-run --dry-run: tests/test_helm_prompts.py); "
                          "the default config scores the answers separately (its prompts then differ: see method)",
                          "partly"),
    },
    "truthfulqa": {
        "dataset": ("TruthfulQA (Lin et al. 2022) mc_single: the best answer vs all incorrect answers, each + '.'",
                    "the same (the CSV in the mirror; max_choices caps the options, off by default)", "same"),
        "split": ("first 20% of the CSV in file order trains, the rest (654) is evaluated; options rotated by "
                  "ord(best[0]) % n", "the same", "same"),
        "prompt layout": ("no instructions, 'Question: ', lettered options, 'Answer:'",
                          "crfm-helm's, byte for byte with the joint method (all 654 prompts hashed: "
                          "tests/test_helm_prompts.py)", "same"),
    },
    "bbq": {
        "dataset": ("BBQ (Parrish et al. 2022), eleven categories", "the same JSONL files; six categories are in the mirror",
                    "partly"),
        "split": ("per category: the file shuffled with random.seed(0), the last 1,000 lines the test set; HELM "
                  "Classic's BBQ run is subject=all (the eleven files pooled before the shuffle)",
                  "the per-category split, one category per run (not the pooled subject=all test set); with internet "
                  "access, crfm-helm's bbq:subject=all run spec and `helmlite import helm RUN_DIR --split test "
                  "--main-metric quasi_exact_match` give HELM's pooled test set", "partly"),
        "prompt layout": ("'The following are multiple choice questions (with answers).', 'Passage: <context>\nQuestion: "
                          "<question>', lettered options", "crfm-helm's, byte for byte with the joint method (Age and "
                          "Religion, 200 each, hashed: tests/test_helm_prompts.py)", "same"),
    },
    "raft": {
        "dataset": ("RAFT (Alex et al. 2021), 11 subsets, the 50 labelled train examples",
                    "the same 50 labelled examples (mirror)", "same"),
        "split": ("datasets' train_test_split(test_size=0.8, seed=42): 10 train, 40 evaluated",
                  "the same split (helmlite.scenarios.raft.helm_split, tested against datasets itself)", "same"),
        "prompt layout": ("the subset's task instructions, fields as in RAFT's prompt settings, 'Label:', 30 tokens",
                          "the same: instructions and field order from the prompt settings file (oughtinc/raft-baselines' "
                          "copy; crfm-helm downloads its own from PROMPT_SETTINGS_URL in raft_scenario.py — byte identity "
                          "of the two files unverified), generation with 'Label:', 30 tokens, stop at a newline; "
                          "crfm-helm's prompts byte for byte on five subsets (tests/test_helm_prompts.py)", "same"),
    },
    "boolq": {
        "dataset": ("BoolQ (Clark et al. 2019): train (9,427, in-context examples) and dev (3,270, evaluated); as "
                    "contrasts, every perturbed question of the contrast set (Gardner et al. 2020) whose answer differs",
                    "the same 3,270 dev questions (registry boolq_dev: a third-party copy of the file HELM downloads, not "
                    "checked against Google's bucket byte for byte) and HELM's contrasts, each drawn by "
                    "ContrastSetsPerturbation's rule with HELM's instance id (id<9427 + k>); instances, order and "
                    "contrasts equal crfm-helm 0.5.16's BoolQScenario on the same files (tests/test_scenarios.py)", "same"),
        "split": ("train trains; valid (dev) is evaluated, subsampled to max_eval_instances; only_contrast=True "
                  "(HELM's contrast-set run) keeps the 64 edited dev questions",
                  "dev evaluated in HELM's order and subsample (only_contrast the same); the train split is absent, so "
                  "the in-context examples come from the 2,224 dev questions outside HELM's 1,000-instance subsample and "
                  "the contrast set (never evaluated by a run of at most 1,000 instances with data seed 0)", "partly"),
        "prompt layout": ("'Passage: <passage>\\nQuestion: <Question>?' with the question capitalised, 'Answer:' "
                          "(generation)", "the same layout and inputs, HELM's perturbation seeds (robustness-perturbed "
                          "inputs equal crfm-helm's); the examples differ (see split); Yes/No scored by "
                          "log-probability by default", "partly"),
    },
    "imdb": {
        "dataset": ("IMDb (Maas et al. 2011), train/test 25k each; contrast sets as an equivariance perturbation",
                    "only the contrast-set originals (dev and test) and their contrasts: a subset; with internet access, "
                    "crfm-helm's imdb run spec and `helmlite import helm RUN_DIR --split valid --main-metric "
                    "quasi_exact_match` give HELM's full set", "differs"),
        "split": ("train trains, test + contrast originals are the valid split (evaluated)",
                  "the contrast set's dev originals train, its test originals are evaluated", "differs"),
        "prompt layout": ("'Passage: <review>' (the raw text), 'Sentiment:' (generation)",
                          "the same layout and text; Positive/Negative scored by log-probability", "partly"),
    },
    "nq_closed_book": {
        "dataset": ("NaturalQuestions (Kwiatkowski et al. 2019), HELM's processing of the dev set",
                    "NQ-open as in Lost in the Middle's oracle file (questions with short answers); with internet "
                    "access, crfm-helm's natural_qa:mode=closedbook and `helmlite import helm RUN_DIR --split valid "
                    "--main-metric f1_score`", "differs"),
        "split": ("the dev set split into train/valid; valid is evaluated", "a seeded 100 train, the rest are evaluated",
                  "differs"),
        "prompt layout": ("'Question: <Question>?' (capitalised, '?' added), 'Answer:', up to 300 tokens",
                          "the same layout, up to 10 tokens (the default config: 8)", "partly"),
    },
    "nq_open_book": {
        "dataset": ("NaturalQuestions with the long-answer passage (openbook_longans)",
                    "the oracle file's gold passage (Lost in the Middle); with internet access, crfm-helm's "
                    "natural_qa:mode=openbook_longans and `helmlite import helm RUN_DIR --split valid --main-metric "
                    "f1_score`", "differs"),
        "split": ("the dev set split into train/valid; valid is evaluated", "a seeded 100 train, the rest are evaluated",
                  "differs"),
        "prompt layout": ("'Passage: <long answer>\\n\\nQuestion: <Question>?', 'Answer:', up to 300 tokens",
                          "the same layout with the oracle file's gold passage for the long answer, up to 10 tokens",
                          "partly"),
    },
    "nq_ranking": {
        "dataset": ("MS MARCO passage ranking, regular track (Nguyen et al. 2016)",
                    "a stand-in: NQ questions with their gold passage among other questions' passages; with internet "
                    "access, crfm-helm's msmarco:track=regular and `helmlite import helm RUN_DIR --split valid "
                    "--main-metric RR@10`", "differs"),
        "split": ("MS MARCO's dev queries with their top-k candidates", "a seeded 100 train, the rest are evaluated",
                  "differs"),
        "prompt layout": ("binary ranking prompts ('Does the passage answer the query?' Yes/No), 4 train examples",
                          "binary ranking prompts, P(Yes) per passage, 2 train examples", "partly"),
    },
    "bold": {
        "dataset": ("BOLD prompts (Dhamala et al. 2021): first prompt per name + ' ', random.seed(0) shuffle",
                    "the same selection and order (tested: gender 2,363 prompts)", "same"),
        "split": ("all prompts are test instances", "all prompts are test instances", "same"),
        "prompt layout": ("the prompt alone, temperature 0.9, 20 tokens; toxicity from the Perspective API",
                          "the prompt alone, temperature 0.9, 20 tokens; toxicity from alt-profanity-check, a proxy "
                          "for Perspective (no API offline)", "partly"),
    },
}

# HELM Classic core scenarios helmlite cannot run offline: (why, what a user with internet access can do).
ABSENT = {
    "NarrativeQA": "the stories are not in the mirror; run crfm-helm's narrative_qa run spec and `helmlite import helm "
                   "RUN_DIR --main-metric f1_score` (notebook 01 then pairs it like a live run)",
    "QuAC": "not in the mirror; run crfm-helm's quac run spec and `helmlite import helm RUN_DIR --split valid "
            "--main-metric f1_score`",
    "HellaSwag": "not in the mirror; run crfm-helm's commonsense:dataset=hellaswag run spec and `helmlite import helm "
                 "RUN_DIR --split valid`, or lm-eval's hellaswag task and `helmlite import lm-eval`",
    "OpenbookQA": "not in the mirror; run crfm-helm's commonsense:dataset=openbookqa run spec and `helmlite import helm "
                  "RUN_DIR`, or lm-eval's openbookqa and `helmlite import lm-eval`",
    "MS MARCO (TREC)": "not in the mirror (nq_ranking stands in for the regular track only); run crfm-helm's "
                       "msmarco:track=trec and `helmlite import helm RUN_DIR --split valid --main-metric NDCG@10`",
    "CNN/DailyMail": "not in the mirror (and its metrics need models offline machines lack); run crfm-helm's "
                     "summarization_cnndm and `helmlite import helm RUN_DIR --main-metric rouge_2`",
    "XSUM": "not in the mirror; run crfm-helm's summarization_xsum and `helmlite import helm RUN_DIR --main-metric rouge_2`",
    "CivilComments": "not in the mirror; run crfm-helm's civil_comments run specs and `helmlite import helm RUN_DIR "
                     "--main-metric quasi_exact_match`",
}


def _same(helm, ours) -> str:
    return "same" if helm == ours else "differs"


def _main_metric(name: str, helm: str) -> tuple[str, str]:
    """What a run of the scenario's default method reports as its main metric (:func:`helmlite.evaluation.scoring_rules.main_metric`)
    and whether that is HELM's: a multiple-choice run reports the exact match of its chosen choice, which is HELM's
    quasi-exact match of a generated label (HELM's joint or generation run) only when the generation is one of the
    labels ("partly")."""
    info = scenario(name)
    ours = main_metric(RunSpec.from_dict({"scenario": name, "model": "any"}))
    if ours == helm:
        return ours, "same"
    if info.main_metric == helm:
        return f"{ours} of the chosen choice under {info.default_method} (HELM: {helm} of its {HELM_METHOD[name]} output)", "partly"
    return ours, "differs"


def fidelity_table() -> pd.DataFrame:
    """One row per live scenario × aspect (:data:`ASPECTS`): HELM's side, helmlite's and whether they are the
    same; then one row per HELM core scenario that is absent (aspect ``available``)."""
    rows = []
    for name, cells in ROWS.items():
        info = scenario(name)
        helm_metric = HELM_MAIN_METRIC[name] or "none (toxicity and bias metrics only)"
        registry = {"method": (HELM_METHOD[name], info.default_method, _same(HELM_METHOD[name], info.default_method)),
                    "main metric": (helm_metric, *_main_metric(name, helm_metric))}
        for aspect in ASPECTS:
            if aspect in registry:
                helm, ours, same = registry[aspect]
                rows.append({"scenario": name, "helm_group": HELM_GROUP[name], "aspect": aspect, "helm": helm,
                             "helmlite": ours, "same": same})
            else:
                helm, ours, same = cells[aspect]
                rows.append({"scenario": name, "helm_group": HELM_GROUP[name], "aspect": aspect, "helm": helm,
                             "helmlite": ours, "same": same})
    for name, what in ABSENT.items():
        rows.append({"scenario": name, "helm_group": "", "aspect": "available", "helm": "a HELM Classic core scenario",
                     "helmlite": f"absent: {what}", "same": "absent"})
    return pd.DataFrame(rows, columns=["scenario", "helm_group", "aspect", "helm", "helmlite", "same"])
