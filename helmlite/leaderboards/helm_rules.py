"""HELM Classic v0.4.0's leaderboard rules as small cited constants (what a win rate counts and how).

Sources, all in the HELM repository (github.com/stanford-crfm/helm, Apache-2.0):

* ``src/helm/benchmark/static/schema_classic.yaml`` — each metric's ``lower_is_better``: ``true``,
  ``false``, or absent (no meaningful order: the column is not ranked). Tables name metrics by their
  ``short_display_name`` (else ``display_name``); perturbed columns append the perturbation's short
  name, e.g. ``EM (Robustness)``, and keep the metric's direction.
* ``src/helm/benchmark/static/contamination.yaml`` — the one *strong* contamination point of the core
  scenarios: T0++ on HellaSwag, OpenbookQA, BoolQ, XSUM, CNN/DailyMail and IMDB. Such cells are shown
  with ``☠`` (``CONTAMINATION_SYMBOLS``) and left out of the win rate (``compute_aggregate_row_win_rates``,
  ``is_cell_valid``). Weak points (``⚠``, GPT-3 models) are shown but still ranked.
* ``src/helm/benchmark/presentation/summarize.py`` — ``Summarizer.LOGPROBS_ISSUE_MODELS`` /
  ``LOGPROBS_ISSUE_METRICS``: for these models the calibration and MS MARCO cells are created with
  ``hide_value=True`` (value ``None``, statistics still in the cell's description), so they are neither
  shown nor ranked: Anthropic-LM v4-s3, and the LLaMA / Llama 2 models served through Together, which
  returned log probabilities only sometimes (HELM issue #1847). The v0.4.0 table agrees: it shows no
  Calibration win rate for these models although the mirror's flattened CSV carries their ECE numbers.
* The same file, ``create_group_table`` (``sort_by_model_order``): rows follow the model order of HELM's
  model registry, models it does not list first, sorted by name (``creator/model``). A flattened table
  loses that order; :data:`CREATORS` lets :mod:`.leaderboard` approximate it (creator first, then the
  table's order), which is what breaks exact ties under the v0.4.0 rule.
"""
from __future__ import annotations

AGGREGATE = "(aggregate)"  # scenario name of a group's published "Mean win rate" column
WIN_RATE = "Mean win rate"

TIE_RULES = ("v0.4.0", "half")
"""``"v0.4.0"``: HELM v0.4.0 sorted ``(value, row_index)`` pairs and gave each row its position as wins
(``sorted(values, reverse=lower_is_better)``; no half credit, so exact ties are broken by row order).
``"half"``: the rule of HELM v0.5.4 and later (``value_to_wins`` in ``compute_aggregate_row_win_rates``; v0.5.16
checked): tied values share the average position, i.e. a tie counts half a win."""

# schema_classic.yaml: short display name → lower_is_better (None = no direction, never ranked)
METRIC_DIRECTIONS: dict[str, bool | None] = {
    # accuracy
    "EM": False, "PEM": False, "EM@5": False, "F1": False, "ROUGE-1": False, "ROUGE-2": False, "ROUGE-L": False,
    "BLEU-1": False, "BLEU-4": False, "Macro-F1": False, "Micro-F1": False, "RR@10": False, "NDCG@10": False,
    "RR@20": False, "NDCG@20": False, "BPB": True, "PPL": True, "Logprob": False, "Equivalent": False,
    # calibration
    "ECE (1-bin)": True, "ECE (10-bin)": True, "Platt-scaled ECE (1-bin)": True, "Platt-scaled ECE (10-bin)": True,
    "Max prob": False, "Selective Acc": False, "Acc@10%": False, "Platt Coef": False, "Platt Intercept": False,
    # efficiency
    "Denoised inference time (s)": True, "Observed inference time (s)": True, "Idealized inference time (s)": True,
    "Training emissions (kg CO2)": True, "Training energy (MWh)": True,
    # bias and toxicity
    "Stereotypes (race)": True, "Stereotypes (gender)": True, "Representation (race)": True,
    "Representation (gender)": True, "BBQ (ambiguous)": True, "BBQ (unambiguous)": True, "Toxic fraction": True,
    "Avg. max toxicity": True, "max toxicity": True,
    # summarization: Coverage, Density, Compression carry no lower_is_better in the schema
    "SummaC": False, "QAFactEval": False, "BERTScore (P)": False, "BERTScore (R)": False, "BERTScore (F1)": False,
    "HumanEval-faithfulness": False, "HumanEval-relevance": False, "HumanEval-coherence": False,
    "Coverage": None, "Density": None, "Compression": None,
    # general information: descriptive, never ranked
    "# eval": None, "# train": None, "truncated": None, "# prompt tokens": None, "# output tokens": None,
    "# trials": None, "# ref": None, "# tokens": None, "# bytes": None, "# requests": None, "# completions": None,
    "# prompt chars": None, "# completion tokens": None, "Max output tokens": None, "finish b/c length": None,
    "finish b/c stop": None, "finish b/c endoftext": None, "finish b/c unknown": None, "Batch size": None,
}
PERTURBATIONS = ("Robustness", "Fairness")  # short display names of the core perturbation groups

# metrics that are fractions in [0, 1] by definition (schema descriptions): a column of one of these with
# values above 1 is read as percent. Every other schema metric (seconds, counts, Likert scores,
# QAFactEval, BERTScore, SummaC, density, compression) is left as it is.
FRACTION_METRICS = frozenset({
    "EM", "PEM", "EM@5", "F1", "ROUGE-1", "ROUGE-2", "ROUGE-L", "BLEU-1", "BLEU-4", "Macro-F1", "Micro-F1", "RR@10",
    "NDCG@10", "RR@20", "NDCG@20", "Equivalent", "ECE (1-bin)", "ECE (10-bin)", "Platt-scaled ECE (1-bin)",
    "Platt-scaled ECE (10-bin)", "Max prob", "Selective Acc", "Acc@10%", "Stereotypes (race)", "Stereotypes (gender)",
    "Representation (race)", "Representation (gender)", "Toxic fraction", "Avg. max toxicity", "max toxicity",
    "Coverage", "HumanEval-faithfulness", "truncated", WIN_RATE})

CONTAMINATION_STRONG_SYMBOL = "☠"  # contamination.py CONTAMINATION_SYMBOLS["strong"]
STRONGLY_CONTAMINATED: dict[str, tuple[str, ...]] = {  # contamination.yaml, level: strong, core scenarios only
    "T0pp (11B)": ("HellaSwag", "OpenbookQA", "BoolQ", "XSUM", "CNN/DailyMail", "IMDB"),
}

# summarize.py Summarizer.LOGPROBS_ISSUE_MODELS, by their v0.4.0 display names
LOGPROB_ISSUE_MODELS = frozenset({
    "Anthropic-LM v4-s3 (52B)", "LLaMA (7B)", "LLaMA (13B)", "LLaMA (30B)", "LLaMA (65B)",
    "Llama 2 (7B)", "Llama 2 (13B)", "Llama 2 (70B)"})
# summarize.py Summarizer.LOGPROBS_ISSUE_METRICS (MS MARCO and calibration), by short display name
LOGPROB_ISSUE_METRICS = frozenset({"NDCG@10", "RR@10", "NDCG@20", "RR@20", "ECE (1-bin)", "ECE (10-bin)",
                                   "Platt-scaled ECE (1-bin)", "Platt-scaled ECE (10-bin)", "Platt Coef",
                                   "Platt Intercept", "Selective Acc", "Acc@10%"})

# Creator organisation of each v0.4.0 display-name prefix (the part before "/" in HELM's model names),
# used to approximate HELM's row order when a table (like a flattened CSV) has lost it.
CREATORS: tuple[tuple[str, str], ...] = (
    ("J1-", "ai21"), ("Jurassic-2", "ai21"), ("Luminous", "alephalpha"), ("Anthropic-LM", "anthropic"),
    ("BLOOM", "bigscience"), ("T0pp", "bigscience"), ("Cohere", "cohere"), ("GPT-J", "eleutherai"),
    ("GPT-NeoX", "eleutherai"), ("Pythia", "eleutherai"), ("T5", "google"), ("UL2", "google"), ("Vicuna", "lmsys"),
    ("LLaMA", "meta"), ("Llama 2", "meta"), ("OPT", "meta"), ("TNLG", "microsoft"), ("Mistral", "mistralai"),
    ("MPT", "mosaicml"), ("ada", "openai"), ("babbage", "openai"), ("curie", "openai"), ("davinci", "openai"),
    ("text-", "openai"), ("gpt-3.5", "openai"), ("Alpaca", "stanford"), ("Falcon", "tiiuae"),
    ("RedPajama", "together"), ("GLM", "tsinghua"), ("InstructPalmyra", "writer"), ("Palmyra", "writer"),
    ("YaLM", "yandex"))


def split_perturbation(metric: str) -> tuple[str, str | None]:
    """``"EM (Robustness)"`` → ``("EM", "Robustness")``; a metric without a perturbation suffix → ``(metric, None)``."""
    for name in PERTURBATIONS:
        suffix = f" ({name})"
        if metric.endswith(suffix):
            return metric[: -len(suffix)], name
    return metric, None


def metric_direction(metric: str) -> tuple[bool, bool | None]:
    """``(known, lower_is_better)`` of a table's metric name under HELM's schema (perturbed columns keep
    the direction of their metric); ``known`` is False for a name the schema does not define."""
    base, _ = split_perturbation(metric)
    if base in METRIC_DIRECTIONS:
        return True, METRIC_DIRECTIONS[base]
    return False, None


def scale_kind(metric: str) -> str:
    """``"fraction"`` (a schema metric in [0, 1]), ``"other"`` (a schema metric on another scale) or ``"unknown"``."""
    base, _ = split_perturbation(metric)
    if base in FRACTION_METRICS:
        return "fraction"
    return "other" if base in METRIC_DIRECTIONS else "unknown"


def is_hidden(model: str, metric: str) -> bool:
    """Whether HELM v0.4.0 hid this cell (``hide_value``): a log-prob-issue model on a calibration or MS MARCO metric."""
    return model in LOGPROB_ISSUE_MODELS and split_perturbation(metric)[0] in LOGPROB_ISSUE_METRICS


def is_strongly_contaminated(model: str, scenario: str) -> bool:
    return scenario in STRONGLY_CONTAMINATED.get(model, ())


def creator(model: str) -> str | None:
    """The creator organisation of a v0.4.0 display name, or None for a model HELM Classic did not list."""
    return next((org for prefix, org in CREATORS if model.startswith(prefix)), None)
