"""Notebook 01's published reference values, in one place: the paper's models as HELM v0.4.0's leaderboard names
them, the precision of its published win rates and the acceptance bounds the reproduction check holds them to
(Liang et al. 2022; HELM Classic v0.4.0)."""
from __future__ import annotations

# The 30 models of the paper (v0.1.0) as HELM v0.4.0 names them; the two code models (code-davinci-002,
# code-cushman-001) were only evaluated on code scenarios and are not in the core leaderboard.
PAPER_MODELS = (
    "J1-Jumbo v1 (178B)", "J1-Grande v1 (17B)", "J1-Large v1 (7.5B)", "Anthropic-LM v4-s3 (52B)", "BLOOM (176B)",
    "T0pp (11B)", "Cohere xlarge v20220609 (52.4B)", "Cohere large v20220720 (13.1B)", "Cohere medium v20220720 (6.1B)",
    "Cohere small v20220720 (410M)", "GPT-J (6B)", "GPT-NeoX (20B)", "T5 (11B)", "UL2 (20B)", "OPT (175B)", "OPT (66B)",
    "TNLG v2 (530B)", "TNLG v2 (6.7B)", "davinci (175B)", "curie (6.7B)", "babbage (1.3B)", "ada (350M)",
    "text-davinci-002", "text-curie-001", "text-babbage-001", "text-ada-001", "GLM (130B)", "YaLM (100B)")

# Acceptance bounds on max |Δ| (recomputed − published) per group, v0.4.0 tie rule (issue 16). Bias and
# Toxicity have none: their rounded cells are too often tied to determine a win rate (see tie ranges).
REPRODUCTION_TARGETS = {"Accuracy": 0.008, "Calibration": 0.007, "Robustness": 0.006, "Fairness": 0.006,
                        "Efficiency": 0.015, "Summarization metrics": 0.008, "Summarization": 0.008}
ROUNDING = 0.0005  # published win rates are shown to 3 decimals
