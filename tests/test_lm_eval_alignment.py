"""The lm-eval side by side (``benchmarks/compare_lm_eval.py``) compares the same items, without lm-eval installed.

Expected values: lm-evaluation-harness 0.4.13's own prompts and log-likelihoods for the first 10 items of each of
MMLU's five HELM subjects (validation first, the items helmlite evaluates), written by
``compare_lm_eval.py --limit 10 --repeats 1 --write-fixture tests/data/lm_eval_alignment.json`` on 2026-12-07 with
SmolLM2-135M in fp32 on the CPU: per item, the sha256 of lm-eval's prompt (no question text: third-party data) and
its log-likelihoods of " A".." D". That run printed "items paired by id: 50/50", "identical prompt strings: 50/50" and
"predicted-answer agreement: 1.0000 (50/50)", max |Δ log-likelihood| 1.10e-05.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from helmlite.models import load_model, prepare
from helmlite.scenarios.mmlu import SUBJECTS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from compare_lm_eval import helmlite_requests  # noqa: E402

FIXTURE = json.loads((Path(__file__).parent / "data" / "lm_eval_alignment.json").read_text(encoding="utf-8"))["items"]


def test_the_benchmark_pairs_helmlites_items_with_lm_evals_by_id_prompt_and_score(mirrored_cache):
    """helmlite's workload for the benchmark holds every fixture item under the same id (validation and test ids
    both), with lm-eval's prompt string byte for byte, and scores it as lm-eval did: the same predicted answer for all
    50 and log-likelihoods within 1e-4 (the run measured 1.1e-5: fp32 summation order)."""
    prepare("smollm2-135m")
    model = load_model("smollm2-135m", threads=1)
    ours = {}
    for subject in SUBJECTS:
        ids, requests, _ = helmlite_requests(model, subject)
        ours.update(zip(ids, requests))
    assert {i.split("/")[2] for i in FIXTURE} == {"val", "test"} and len(FIXTURE) == 50
    assert set(FIXTURE) <= set(ours)
    requests = [ours[item_id] for item_id in FIXTURE]
    assert [hashlib.sha256(r.prompt.encode()).hexdigest() for r in requests] == [v["prompt_sha256"] for v in FIXTURE.values()]
    scores = [list(s.logprobs) for s in model.score(requests)]
    theirs = [v["loglikelihoods"] for v in FIXTURE.values()]
    assert [int(np.argmax(s)) for s in scores] == [int(np.argmax(t)) for t in theirs]
    assert max(abs(a - b) for s, t in zip(scores, theirs) for a, b in zip(s, t)) < 1e-4
